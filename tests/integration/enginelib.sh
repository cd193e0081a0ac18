# Real engines for the runtime suites (test_runtime_docker.sh, test_runtime_containerd.sh):
# dockerd 20.10 and containerd 1.6, started by a suite and stopped by it. Each runs in a
# mount namespace of its own with a tmpfs on /run (and /etc/docker), so that what they
# keep there by fixed paths (/run/containerd, /run/docker/plugins, /etc/docker/key.json)
# goes with them; their state lives in the suite's directory. Source after lib.sh.

DOCKERD=${DOCKERD:-/usr/sbin/dockerd}
# The docker.io client (another docker on PATH may not speak to 20.10).
DOCKER_CLIENT=${DOCKER_CLIENT:-/usr/bin/docker}
ENGINE_PIDS=()

# engine_wait SECONDS CMD...: until CMD succeeds (quietly).
engine_wait() {
        local tries=$(($1 * 10))
        shift
        while [ "$tries" -gt 0 ]; do
                "$@" >/dev/null 2>&1 && return 0
                sleep 0.1
                tries=$((tries - 1))
        done
        return 1
}

# engine_ns CMD... &: CMD in a new mount namespace with a tmpfs on /run and /etc/docker, and
# with ENGINE_CGROUP2=1 cgroup2 alone on /sys/fs/cgroup (crun refuses this host's hybrid
# layout; see crun_cmd). It execs: call it in the background, so that $! is the engine itself.
engine_ns() {
        ENGINE_CGROUP2=${ENGINE_CGROUP2:-} exec unshare -m --propagation private -- sh -c \
                'mount -t tmpfs tmpfs /run && { [ ! -d /etc/docker ] || mount -t tmpfs tmpfs /etc/docker; } &&
                 { [ -z "$ENGINE_CGROUP2" ] || mount -t cgroup2 none /sys/fs/cgroup; } &&
                 unset ENGINE_CGROUP2 && exec "$@"' sh "$@"
}

# engine_ready NAME LOG CMD...: an engine just started in the background ($!): kept for
# engine_stop_all, and waited for until CMD (its client) answers (60 s at most; then the tail of
# its LOG).
engine_ready() {
        local name=$1 log=$2
        shift 2
        ENGINE_PIDS+=("$!")
        engine_wait 60 "$@" || {
                tsync_log "$name did not start: $(tail -n 5 "$log")"
                return 1
        }
}

# docker_start DIR: dockerd with DIR/daemon.json (if any) and everything else under DIR;
# its containers' cgroups under /tsync-docker-<pid>. Sets DOCKER_PID; use docker_cmd.
docker_start() {
        local dir=$1 conf=()
        [ -f "$dir/daemon.json" ] && conf=(--config-file "$dir/daemon.json")
        DOCKER_SOCK="$dir/docker.sock"
        engine_ns "$DOCKERD" "${conf[@]}" --iptables=false --ip6tables=false --bridge=none \
                --storage-driver=vfs --data-root "$dir/data" --exec-root "$dir/exec" -H "unix://$DOCKER_SOCK" \
                -p "$dir/docker.pid" --cgroup-parent "/tsync-docker-$$" >"$dir/dockerd.log" 2>&1 &
        DOCKER_PID=$!
        engine_ready dockerd "$dir/dockerd.log" docker_cmd version
}

# docker_with_layer DIR RUNTIME LAYER IMAGE PROGRAM...: dockerd (docker_start DIR) with a runtime
# RUNTIME that is oci-seccomp-tsync-runtime adding the layer LAYER (profiles from $PROFILES, its
# runtime.conf and cache under DIR), and IMAGE imported from a rootfs holding PROGRAMs. Non-zero
# after a failed assert (shunit2's fail).
docker_with_layer() {
        local dir=$1 runtime=$2 layer=$3 image=$4
        shift 4
        mkdir -p "$dir" && : >"$dir/runtime.conf"
        jq -n --arg r "$TSYNC_BUILD/bin/oci-seccomp-tsync-runtime" --arg c "$dir/runtime.conf" --arg p "$PROFILES" \
                --arg d "$dir/cache" --arg n "$runtime" --arg l "$layer" \
                '{runtimes: {($n): {path: $r, runtimeArgs: ["--runtime-config=" + $c,
                  "--profile-dir=" + $p, "--cache-dir=" + $d, "--layers=" + $l]}}}' >"$dir/daemon.json"
        make_rootfs "$dir/rootfs" "$@" >/dev/null || fail "rootfs"
        docker_start "$dir" || {
                fail "dockerd did not start"
                return 1
        }
        engine_image_tar "$dir/rootfs" | docker_cmd import - "$image" >/dev/null || fail "docker import"
}

docker_cmd() {
        "$DOCKER_CLIENT" -H "unix://$DOCKER_SOCK" "$@"
}

# containerd_start DIR: containerd with DIR/config.toml, its socket at DIR/c.sock. Sets
# CONTAINERD_PID; use ctr_cmd (in containerd's namespace: ctr keeps fifos in /run/containerd).
containerd_start() {
        local dir=$1
        CONTAINERD_SOCK="$dir/c.sock"
        engine_ns containerd --config "$dir/config.toml" >"$dir/containerd.log" 2>&1 &
        CONTAINERD_PID=$!
        engine_ready containerd "$dir/containerd.log" ctr_cmd version
}

ctr_cmd() {
        nsenter -t "$CONTAINERD_PID" -m -- ctr --address "$CONTAINERD_SOCK" "$@"
}

# containerd_config DIR [TOP-LEVEL LINE...]: the head of DIR/config.toml for containerd_start,
# every path of containerd's own under DIR, with these lines of the top-level table; the suite
# appends its plugins' tables.
containerd_config() {
        local dir=$1
        shift
        cat >"$dir/config.toml" <<EOF
version = 2
root = "$dir/root"
state = "$dir/state"
$(printf '%s\n' "$@")
[grpc]
  address = "$dir/c.sock"
EOF
}

# ctr_remove ID...: these containers of the suite's containerd killed and removed, their tasks
# first (quietly: any of them may be gone already).
ctr_remove() {
        local id
        for id in "$@"; do
                ctr_cmd task kill -s KILL "$id" >/dev/null 2>&1
                ctr_cmd task rm -f "$id" >/dev/null 2>&1
                ctr_cmd containers rm "$id" >/dev/null 2>&1
        done
}

# engine_stop PID: stops one engine (TERM, then KILL after 30 s).
engine_stop() {
        local keep=() p
        kill -TERM "$1" 2>/dev/null
        engine_wait 30 sh -c "! kill -0 $1" || kill -KILL "$1" 2>/dev/null
        wait "$1" 2>/dev/null
        for p in "${ENGINE_PIDS[@]}"; do
                [ "$p" = "$1" ] || keep+=("$p")
        done
        ENGINE_PIDS=("${keep[@]}")
}

# engine_stop_all: stops every engine this suite started (TERM, then KILL after 30 s) and
# removes the cgroups Docker made for its containers.
engine_stop_all() {
        local pid d
        for pid in "${ENGINE_PIDS[@]}"; do
                kill -TERM "$pid" 2>/dev/null
        done
        for pid in "${ENGINE_PIDS[@]}"; do
                engine_wait 30 sh -c "! kill -0 $pid" || kill -KILL "$pid" 2>/dev/null
                wait "$pid" 2>/dev/null
        done
        ENGINE_PIDS=()
        for d in /sys/fs/cgroup/*/tsync-docker-$$ /sys/fs/cgroup/tsync-docker-$$; do
                [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
        done
        return 0
}

# engine_image_tar ROOTFS: the root filesystem as a tar stream (for `docker import -`).
engine_image_tar() {
        tar -c -C "$1" .
}
