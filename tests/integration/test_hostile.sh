#!/bin/bash
# A hostile workload (issue 23): tests/static/hostile_probe, with no capability beyond runc's
# defaults, attacks what we put next to it, as root and as uid 1000, under runc and crun. One
# test per door; each asserts the property the issue promises, never our file names, so that it
# holds for any correct design:
#   1. forged agent state: the agent gets exactly one state per start, the container's own (its
#      id and host pid), and nothing from the workload, whose connects all fail;
#   2. holding the agent: no connection of the workload ever reaches the agent;
#   3. setuid drop in the recording (read-only rootfs): nothing the workload made or chmod'ed
#      outlives it on the host, no setuid file; the profile is written, or poststop refused with
#      one line and left only root's files;
#   4. disk fill through the recording: the host's disk under our directories grows by less
#      than 2 MiB while the workload writes 64 MiB wherever it can, and no place of ours takes
#      the 64 MiB;
#   5, 6. an exec'd `sleep` taken over by the workload (ptrace; /proc/PID/mem with ptrace denied):
#      through the runtime wrapper the process still carries every layer (mkdir fails with the
#      layer's errno, nothing is made); under a plain runtime with Yama ptrace_scope 1 the
#      take-over itself fails (skipped where the kernel has no Yama; the host's sysctl is never
#      changed);
#      With exec-once asked, such a process cannot exec another program either.
#   7. exec-once with CAP_SYS_PTRACE is refused with one line before any workload runs.
# About 2 minutes on 2 cores.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"

HOSTILE=$TSYNC_BUILD/tests/static/hostile_probe
AGENT=$TSYNC_TOOLS/seccomp_agent
RUNTIME=$TSYNC_BUILD/bin/oci-seccomp-tsync-runtime
DENY_PTRACE=$TSYNC_TOP/configs/profiles/deny-ptrace.json
# The layer's errno (deny-mkdir.json: EDQUOT).
MKDIR_ERRNO=errno:122
FILL_MIB=64
# The host's disk under our directories may grow by less than this while the workload fills.
DISK_BOUND=$((2 * 1024 * 1024))

oneTimeSetUp() {
        tsync_need_built "$OCI" "$INIT" "$HOSTILE" "$AGENT" "$RUNTIME" "$SWAP"
}

setUp() {
        tsync_test_begin || exit 1
        T=$TSYNC_TMP
        AGENT_PID=
        USR=0
        RT=runc
}

tearDown() {
        stop_agent
        podman_clean
        tsync_test_end
}

# ---- Podman (rootful, runc): our hooks.d with this build, containers labelled for this suite --

podman_clean() {
        command -v podman >/dev/null || return 0
        podman ps -aq --filter label=tsync-test=$$ | xargs -r podman rm -f >/dev/null 2>&1
        return 0
}

# podman_hooks [HOOK ARG...]: $T/hooks.d for `podman --hooks-dir`, profiles from $C/profiles, each
# hook given the extra ARGs.
podman_hooks() {
        local f extra
        mkdir -p "$C/profiles" || return 1
        podman_hooks_dir "$C/hooks.d" "$C/profiles" "" "$T/cache" || return 1
        extra=$(tsync_json_array "$@") || return 1
        for f in "$C/hooks.d"/*.json; do
                tsync_json_edit "$f" '.hook.args += $extra' --argjson extra "$extra" || return 1
        done
}

# runc spec's capabilities, no more (Podman's defaults grant more).
PODMAN_CAPS=(--cap-drop all --cap-add CAP_AUDIT_WRITE --cap-add CAP_KILL --cap-add CAP_NET_BIND_SERVICE)

# prun NAME PODMAN-RUN-OPTION... -- ARG...: `podman run` of hostile_probe ARGS from $C/rootfs, with
# our hooks and runc's default capabilities; $rc, $C/NAME.out, $C/NAME.err.
prun() {
        local name=$1 OPTS ARGS
        shift
        tsync_split_dashes "$@"
        podman --hooks-dir "$C/hooks.d" run --name "$name" --runtime runc --label tsync-test=$$ \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "${PODMAN_CAPS[@]}" --hostname "$name" "${OPTS[@]}" \
                --rootfs "$C/rootfs" \
                /bin/hostile_probe "${ARGS[@]}" </dev/null >"$C/$name.out" 2>"$C/$name.err"
        rc=$?
}

# each_podman FN: FN under Podman (rootful, runc) as root and as uid 1000.
each_podman() {
        local fn=$1
        if ! command -v podman >/dev/null; then
                fail "podman is not installed"
                return
        fi
        RT=podman
        for USR in 0 1000; do
                ID=$(tsync_unique_id "hostile-podman-$USR")
                C=$T/podman-$USR
                mkdir -p "$C"
                make_rootfs "$C/rootfs" "$HOSTILE" || fail "rootfs"
                "$fn"
                stop_agent
                podman_clean
        done
        RT=runc
        USR=0
}

# each_case FN: FN under runc and crun, as root and as uid 1000 ($RT, $USR, a unique $ID and an
# empty directory $C for each).
each_case() {
        local fn=$1
        for RT in runc crun; do
                for USR in 0 1000; do
                        ID=$(tsync_unique_id "hostile-$RT-$USR")
                        C=$T/$RT-$USR
                        mkdir -p "$C"
                        "$fn"
                        stop_agent
                done
        done
        RT=runc
        USR=0
}

# what: the case, for messages.
what() {
        echo "$RT uid=$USR"
}

# hostile_bundle DIR ARG...: a bundle running hostile_probe ARGS as $USR from a writable rootfs,
# with no ambient capabilities (lib.sh's tsync_probe_bundle), hostname $ID
# (the probe names what it makes hostile-HOSTNAME-*).
hostile_bundle() {
        local dir=$1
        shift
        tsync_probe_bundle "$dir" "$HOSTILE" /bin/hostile_probe "$@" || return 1
        tsync_json_edit "$dir/config.json" '.process.user = {uid: $u, gid: $u} | .hostname = $id' \
                --argjson u "$USR" --arg id "$ID"
}

# wait_line FILE REGEX: until a line of FILE matches (a guard of 2 minutes, not a measure).
wait_line() {
        local i
        for ((i = 0; i < 1200; i++)); do
                grep -qE "$2" "$1" 2>/dev/null && return 0
                sleep 0.1
        done
        return 1
}

rt_pid() {
        case "$RT" in
        runc) runc_pid "$1" ;;
        crun) crun_pid "$1" ;;
        esac
}

# lines REGEX FILE: the lines of FILE that match, "" when none.
lines() {
        grep -E "$1" "$2" || true
}

# ---- 1, 2: the notify agent ----------------------------------------------------------------

# start_agent: the test agent on $C/agent.sock (mode 0666: a workload of another user must be able
# to get its listener to it), logging every connection it accepts to $C/agent.log: the state read
# from it, then "fds=N". Stop it with stop_agent.
start_agent() {
        rm -f "$C/agent.sock" "$C/agent.log" "$C/agent.out"
        "$AGENT" "$C/agent.sock" "$C/agent.log" >"$C/agent.out" 2>"$C/agent.err" &
        AGENT_PID=$!
        tsync_wait_ready "$C/agent.out" && chmod 0666 "$C/agent.sock" && return 0
        fail "the agent did not start: $(cat "$C/agent.err")"
        return 1
}

stop_agent() {
        if [ -n "$AGENT_PID" ]; then
                kill -TERM "$AGENT_PID" 2>/dev/null
                wait "$AGENT_PID" 2>/dev/null
        fi
        AGENT_PID=
}

# notify_profile: $C/profiles/notify.json, a layer that sends getppid to the agent, which answers
# 4242: the probe's first line shows that the agent holds the listener, so its state is logged.
notify_profile() {
        mkdir -p "$C/profiles" &&
                jq -n --arg sock "$C/agent.sock" '{defaultAction: "SCMP_ACT_ALLOW", listenerPath: $sock,
                listenerMetadata: "ours", architectures: ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
                syscalls: [{names: ["getppid"], action: "SCMP_ACT_NOTIFY"}]}' >"$C/profiles/notify.json"
}

# agent_start MODE: the container running hostile_probe -w MODE under the notify layer, delivered
# as $DELIVERY says: inject (the filters in the init's arguments, the default), at-start (inject
# --compile-at-start: filter files) or wrapper (the runtime wrapper's --layers).
agent_start() {
        hostile_bundle "$C/b" -w "$1" && notify_profile || return 1
        case "$DELIVERY" in
        wrapper)
                _tsync_register "$RT" "$ID"
                ours_rt --layers=notify run --detach -b "$C/b" "$ID" </dev/null >"$T/$ID.log" 2>&1 || {
                        cat "$T/$ID.log" >&2
                        return 1
                }
                ;;
        at-start) inject --compile-at-start --profile "$C/profiles/notify.json" "$C/b" && rt_start "$ID" "$C/b" ;;
        *) inject --profile "$C/profiles/notify.json" "$C/b" && rt_start "$ID" "$C/b" ;;
        esac
}

# agent_run MODE: the agent, then the container running the probe in MODE (agent_start), kept until
# the probe is done; its host pid in $PID, its output in $OUT.
agent_run() {
        start_agent || return 1
        agent_start "$1" 2>"$C/start.err" || {
                fail "$(what) ${DELIVERY:-inject}: start: $(cat "$C/start.err" "$T/$ID.log" 2>/dev/null)"
                return 1
        }
        OUT=$T/$ID.log
        wait_line "$OUT" "^door=$1 done" || fail "$(what): the probe did not finish: $(cat "$OUT")"
        PID=$(rt_pid "$ID")
        rt_stop "$ID"
}

# the_agent_got_only_ours: one connection accepted, carrying the container's own state.
the_agent_got_only_ours() {
        local state
        assertEquals "$(what): the getppid answer (the agent holds the listener): $(cat "$OUT")" \
                "door=$1 ppid=4242" "$(lines "^door=$1 ppid=" "$OUT")"
        assertEquals "$(what): connections the agent accepted (one per start): $(cat "$C/agent.log")" 1 \
                "$(grep -c '^fds=' "$C/agent.log")"
        state=$(sed -n 1p "$C/agent.log")
        assertEquals "$(what): state.id: $state" "$ID" "$(jq -r .state.id <<<"$state" 2>/dev/null)"
        assertEquals "$(what): pid: $state" "$PID $PID" "$(jq -r '"\(.pid) \(.state.pid)"' <<<"$state" 2>/dev/null)"
        assertNotContains "$(what): the workload's state reached the agent" "$(cat "$C/agent.log")" forged
}

forgedState() {
        agent_run agent || return
        the_agent_got_only_ours agent
        assertEquals "$(what): connects of the workload that worked" "" \
                "$(lines '^door=agent connect=' "$OUT" | grep -v ' errno:' || true)"
        echo "  $(what) ${DELIVERY:-inject}: $(lines '^door=agent (connect|sent)=' "$OUT" | tr '\n' ';')"
}

testTheAgentGetsOnlyTheContainersOwnStateNeverOneTheWorkloadForged() {
        each_case forgedState
}

holdTheAgent() {
        agent_run hold || return
        the_agent_got_only_ours hold
        assertEquals "$(what): connections the workload held" "" \
                "$(lines '^door=hold connect=' "$OUT" | grep -v ' errno:' || true)"
}

testNoConnectionOfTheWorkloadEverReachesTheAgent() {
        each_case holdTheAgent
}

# The other deliveries of the agent's listener, under runc as root and uid 1000.
otherDeliveries() {
        [ "$RT" = runc ] || return 0
        local d
        for d in at-start wrapper; do
                DELIVERY=$d forgedState
                stop_agent
                rm -rf "${C:?}"/* && ID=$(tsync_unique_id "hostile-$d-$USR")
                DELIVERY=$d holdTheAgent
                stop_agent
                rm -rf "${C:?}"/* && ID=$(tsync_unique_id "hostile-$d-$USR")
        done
}

testEveryDeliveryKeepsTheAgentFromTheWorkload() {
        each_case otherDeliveries
}

# Podman: the layer named by annotation, precreate's rewrite and createRuntime's state.
podmanAgent() {
        local mode
        for mode in agent hold; do
                start_agent || return
                { podman_hooks && notify_profile; } || fail "hooks.d"
                podman --hooks-dir "$C/hooks.d" run -d --name "$ID" --runtime runc --label tsync-test=$$ \
                        --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "${PODMAN_CAPS[@]}" --user "$USR:$USR" \
                        --annotation io.oci-seccomp-tsync.layers=notify --rootfs "$C/rootfs" \
                        /bin/hostile_probe -w "$mode" </dev/null >"$C/run.out" 2>"$C/run.err" || {
                        fail "$(what): podman run: $(cat "$C/run.err")"
                        return
                }
                OUT=$C/$mode-podman.out
                local i
                for ((i = 0; i < 600; i++)); do
                        podman logs "$ID" >"$OUT" 2>&1
                        grep -q "^door=$mode done" "$OUT" && break
                        sleep 0.2
                done
                PID=$(podman inspect --format '{{.State.Pid}}' "$ID")
                local full
                full=$(podman inspect --format '{{.Id}}' "$ID")
                podman rm -f "$ID" >/dev/null 2>&1
                local want=$ID
                ID=$full
                the_agent_got_only_ours "$mode"
                ID=$want
                assertEquals "$(what) $mode: connects of the workload that worked" "" \
                        "$(lines "^door=$mode connect=" "$OUT" | grep -v ' errno:' || true)"
                stop_agent
        done
}

testUnderPodmanTheAgentSeesNothingOfTheWorkload() {
        each_podman podmanAgent
}

# ---- 3, 4: the recording -------------------------------------------------------------------

# record_bundle DIR ARG...: hostile_probe ARGS from a read-only rootfs (plain runc gives such a
# workload no writable host path), recorded into $C/out/p.json.
record_bundle() {
        local dir=$1
        shift
        hostile_bundle "$dir" "$@" || return 1
        tsync_json_edit "$dir/config.json" '.root.readonly = true' || return 1
        mkdir -m 0755 "$C/out" 2>/dev/null || [ -d "$C/out" ]
        inject --record "$C/out/p.json" "$dir"
}

# host_leftovers DIR...: what in DIRs (the bundle less its rootfs, the output's directory) a
# workload could use once it is gone, one line each: a hostile-* name (the probe's), a setuid or
# setgid file, an entry that is not root's or that others may write to. The output profile may be
# read by all. In the rootfs (read-only for the workload) only its names and setuid files count.
host_leftovers() {
        local d
        for d in "$@"; do
                find "$d" -path "$d/rootfs" -prune -o \( -name 'hostile-*' -o -perm /6000 -o ! -uid 0 \
                        -o \( ! -type l -perm /022 \) \) -printf '%p %u %m\n'
                [ -d "$d/rootfs" ] && find "$d/rootfs" \( -name 'hostile-*' -o -perm /6000 \) -printf '%p %u %m\n'
        done
        return 0
}

# The hook's default roots: a design may keep the recording's place there rather than in the
# bundle or under --record-root. Other containers' files live there too: only this one's names
# (hostile-$ID-*) are looked at.
DEFAULT_ROOTS=(/var/lib/oci-seccomp-tsync /run/oci-seccomp-tsync)

# marked_elsewhere: what of this container's is left in the default roots.
marked_elsewhere() {
        local r
        for r in "${DEFAULT_ROOTS[@]}"; do
                [ -d "$r" ] && find "$r" -name "hostile-$ID-*" -printf '%p %u %m\n'
        done
        return 0
}

setuidDrop() {
        record_bundle "$C/b" tamper 2>"$C/inject.err" || {
                fail "$(what): inject: $(cat "$C/inject.err")"
                return
        }
        rt_run "$ID" "$C/b"
        local out=$T/$ID.out err=$T/$ID.err said
        assertContains "$(what): the probe ran: $(cat "$err")" "$(cat "$out")" "door=tamper done"
        echo "  $(what): $(lines '^door=tamper (dir|break)=/\.oci' "$out" | tr '\n' ';')"
        assertEquals "$(what): what the workload left on the host" "" "$(host_leftovers "$C/b" "$C/out")"
        assertEquals "$(what): what the workload left in our default roots" "" "$(marked_elsewhere)"
        if [ -s "$C/out/p.json" ]; then
                jq -e .defaultAction "$C/out/p.json" >/dev/null || fail "$(what): the profile: $(cat "$C/out/p.json")"
        else
                # runc shows a hook's stderr inside its own error line; crun shows none of it.
                said=$(grep -o "oci-seccomp-tsync: $ID: " "$err" | wc -l)
                [ "$RT" = crun ] && [ "$said" = 0 ] && said="1 (crun shows no hook's line)"
                assertEquals "$(what): no profile, and poststop's lines: $(cat "$err")" 1 "${said%% *}"
        fi
}

testNothingTheWorkloadMakesInTheRecordingsPlaceOutlivesIt() {
        each_case setuidDrop
}

# Podman: the annotation io.oci-seccomp-tsync.record, the recording's place under --record-root
# (a directory of the test's), a read-only rootfs.
podmanSetuidDrop() {
        local said i
        mkdir -m 0700 "$C/recroot" && mkdir -m 0755 "$C/out"
        podman_hooks --record-root "$C/recroot" || fail "hooks.d"
        prun "$ID" --rm --read-only --user "$USR:$USR" --annotation "io.oci-seccomp-tsync.record=of:$C/out/p.json" -- tamper
        assertContains "$(what): the probe ran: $(cat "$C/$ID.err")" "$(cat "$C/$ID.out")" "door=tamper done"
        echo "  $(what): $(lines '^door=tamper (dir|break)=/\.oci' "$C/$ID.out" | tr '\n' ';')"
        # poststop runs as Podman cleans up: wait until the recording's place is gone or the profile
        # is written (not a timed assert: either must come).
        for ((i = 0; i < 100; i++)); do
                [ -s "$C/out/p.json" ] && break
                [ -z "$(ls -A "$C/recroot")" ] && break
                sleep 0.1
        done
        assertEquals "$(what): what the workload left on the host" "" "$(host_leftovers "$C/recroot" "$C/out")"
        assertEquals "$(what): what the workload left in our default roots" "" "$(marked_elsewhere)"
        if [ -s "$C/out/p.json" ]; then
                jq -e .defaultAction "$C/out/p.json" >/dev/null || fail "$(what): the profile: $(cat "$C/out/p.json")"
        fi
}

testUnderPodmanNothingTheWorkloadMakesInTheRecordingsPlaceOutlivesIt() {
        each_podman podmanSetuidDrop
}

# disk_bytes DIR...: the bytes of the files under DIRs on their own file systems (a file system
# mounted below one, such as a tmpfs of bounded size, is not the host's disk).
disk_bytes() {
        du -sxb "$@" | awk '{ n += $1 } END { print n + 0 }'
}

# marked_disk_bytes: the bytes of this container's fill files in the default roots, where not on a
# tmpfs.
marked_disk_bytes() {
        local r
        for r in "${DEFAULT_ROOTS[@]}"; do
                [ -d "$r" ] && find "$r" -name "hostile-$ID-fill" ! -fstype tmpfs -printf '%s\n'
        done | awk '{ n += $1 } END { print n + 0 }'
}

diskFill() {
        record_bundle "$C/b" -w fill "$FILL_MIB" 2>"$C/inject.err" || {
                fail "$(what): inject: $(cat "$C/inject.err")"
                return
        }
        local before after out=$T/$ID.log
        before=$(disk_bytes "$C/b" "$C/out")
        rt_start "$ID" "$C/b" || {
                fail "$(what): start: $(cat "$out")"
                return
        }
        wait_line "$out" "^door=fill done" || fail "$(what): the probe did not finish: $(cat "$out")"
        after=$(($(disk_bytes "$C/b" "$C/out") + $(marked_disk_bytes)))
        rt_stop "$ID"
        echo "  $(what): $(lines '^door=fill dir=' "$out" | tr '\n' ';')"
        assertTrue "$(what): the host's disk grew by $((after - before)) bytes" "[ $((after - before)) -lt $DISK_BOUND ]"
        assertEquals "$(what): places of ours that took ${FILL_MIB} MiB" "" \
                "$(lines "^door=fill dir=/\.oci-seccomp-tsync.* wrote=$((FILL_MIB * 1024 * 1024)) " "$out")"
}

testTheWorkloadCannotFillTheHostsDiskThroughTheRecording() {
        each_case diskFill
}

podmanDiskFill() {
        local before after i out=$C/fill.out
        mkdir -m 0700 "$C/recroot" && mkdir -m 0755 "$C/out"
        podman_hooks --record-root "$C/recroot" || fail "hooks.d"
        before=$(disk_bytes "$C/recroot" "$C/out")
        prun "$ID" -d --read-only --user "$USR:$USR" --annotation "io.oci-seccomp-tsync.record=of:$C/out/p.json" \
                -- -w fill "$FILL_MIB"
        assertEquals "$(what): podman run -d: $(cat "$C/$ID.err")" 0 "$rc"
        for ((i = 0; i < 600; i++)); do
                podman logs "$ID" >"$out" 2>&1
                grep -q "^door=fill done" "$out" && break
                sleep 0.2
        done
        after=$(($(disk_bytes "$C/recroot" "$C/out") + $(marked_disk_bytes)))
        podman rm -f "$ID" >/dev/null 2>&1
        echo "  $(what): $(lines '^door=fill dir=' "$out" | tr '\n' ';')"
        assertTrue "$(what): the host's disk grew by $((after - before)) bytes" "[ $((after - before)) -lt $DISK_BOUND ]"
        assertEquals "$(what): places of ours that took ${FILL_MIB} MiB" "" \
                "$(lines "^door=fill dir=/\.oci-seccomp-tsync.* wrote=$((FILL_MIB * 1024 * 1024)) " "$out")"
}

testUnderPodmanTheWorkloadCannotFillTheHostsDiskThroughTheRecording() {
        each_podman podmanDiskFill
}

# ---- 5, 6: exec'd processes ----------------------------------------------------------------

# ours_rt ARG...: the runtime wrapper over $RT, with $C/profiles; crun in its cgroup2 namespace
# (see lib.sh's crun_cmd).
ours_rt() {
        local opts=(--runtime-config="$C/runtime.conf" --profile-dir="$C/profiles" --cache-dir="$T/cache")
        : >"$C/runtime.conf"
        case "$RT" in
        runc) "$RUNTIME" "${opts[@]}" "$@" ;;
        crun)
                tsync_in_cgroup2 "$RUNTIME" "${opts[@]}" --runtime=crun --cgroup-manager=disabled "$@"
                ;;
        esac
}

# exec_sleep MARKER: `sleep MARKER` exec'd into $ID through the wrapper (WRAPPER=1, with --process
# FILE as Docker and containerd call it) or by the plain runtime; detached.
exec_sleep() {
        jq --arg m "$1" '.process | .args = ["sleep", $m]' "$C/b/config.json" >"$C/process.json" || return 1
        if [ -n "$WRAPPER" ]; then
                ours_rt exec --detach --process "$C/process.json" "$ID" </dev/null >"$C/exec.out" 2>&1
        else
                rt exec --detach --process "$C/process.json" "$ID" </dev/null >"$C/exec.out" 2>&1
        fi
}

# hijack MODE LAYER...: the probe (the container's workload, under LAYERs) takes over an exec'd
# `sleep` by MODE (ptrace, mem) and makes it call mkdir; with EXEC_ONCE=1 the container asks for
# exec-once and the taken-over process calls execve (of mkdir) instead. Its line in $LINE.
hijack() {
        local mode=$1 marker=$((RANDOM + 10000)) layers=() l exec=() dir
        shift
        LINE=
        [ -n "$EXEC_ONCE" ] && exec=(exec)
        dir=$C/b/rootfs/tmp/hostile-$mode${EXEC_ONCE:+-exec}
        hostile_bundle "$C/b" -w "$mode" "$marker" "${exec[@]}" || fail "bundle"
        if [ -n "$EXEC_ONCE" ]; then
                tsync_json_edit "$C/b/config.json" '.annotations["io.oci-seccomp-tsync.exec"] = "once"' || fail "exec-once"
        fi
        mkdir -p "$C/profiles"
        for l in "$@"; do
                cp "$l" "$C/profiles/" && layers+=("$(basename "$l" .json)")
        done
        if [ -n "$WRAPPER" ]; then
                _tsync_register "$RT" "$ID"
                ours_rt --layers="$(
                        IFS=,
                        echo "${layers[*]}"
                )" run --detach -b "$C/b" "$ID" </dev/null >"$T/$ID.log" 2>&1 || {
                        fail "$(what): wrapper run: $(cat "$T/$ID.log")"
                        return
                }
        else
                local opts=()
                [ -n "$EXEC_ONCE" ] && opts+=(--exec-once)
                for l in "$@"; do
                        opts+=(--profile "$l")
                done
                inject "${opts[@]}" "$C/b" 2>"$C/inject.err" || {
                        fail "$(what): inject: $(cat "$C/inject.err")"
                        return
                }
                rt_start "$ID" "$C/b" || {
                        fail "$(what): start: $(cat "$T/$ID.log")"
                        return
                }
        fi
        exec_sleep "$marker" || fail "$(what): exec: $(cat "$C/exec.out")"
        wait_line "$T/$ID.log" "^door=$mode done" || fail "$(what): the probe did not finish: $(cat "$T/$ID.log")"
        LINE=$(lines "^door=$mode target=" "$T/$ID.log")
        rt_stop "$ID"
        echo "  $(what): $LINE"
        assertFalse "$(what): the directory was made" "[ -e $dir ]"
}

# field NAME: the value of NAME= in $LINE.
field() {
        tr ' ' '\n' <<<"$LINE" | sed -n "s/^$1=//p"
}

# carries_every_layer: the taken-over process (if it could be) holds the filters of PID 1, our
# init, and its mkdir failed with the layer's errno.
carries_every_layer() {
        assertNotEquals "$(what): the probe found no exec'd process: $(cat "$T/$ID.log")" "" "$LINE"
        [ "$(field hijack)" = ok ] || return 0
        assertEquals "$(what): the exec'd process's filters against PID 1's: $LINE" "$(field init_filters)" \
                "$(field filters)"
        assertEquals "$(what): its mkdir: $LINE" "$MKDIR_ERRNO" "$(field result)"
}

# refuses_a_second_exec: the taken-over process (if it could be) could not exec another program:
# exec-once's errno (EPERM).
refuses_a_second_exec() {
        assertNotEquals "$(what): the probe found no exec'd process: $(cat "$T/$ID.log")" "" "$LINE"
        [ "$(field hijack)" = ok ] || return 0
        assertEquals "$(what): its execve: $LINE" errno:1 "$(field result)"
}

wrapperPtrace() {
        WRAPPER=1 hijack ptrace "$PROFILES/deny-mkdir.json"
        carries_every_layer
}

testAnExecdProcessTakenOverByPtraceStillCarriesEveryLayerUnderTheWrapper() {
        each_case wrapperPtrace
}

wrapperMem() {
        WRAPPER=1 hijack mem "$PROFILES/deny-mkdir.json" "$DENY_PTRACE"
        carries_every_layer
}

testAnExecdProcessTakenOverThroughProcMemStillCarriesEveryLayerUnderTheWrapper() {
        each_case wrapperMem
}

wrapperExecOnce() {
        local mode
        for mode in ptrace mem; do
                WRAPPER=1 EXEC_ONCE=1 hijack "$mode"
                refuses_a_second_exec
                rm -rf "${C:?}"/* && ID=$(tsync_unique_id "hostile-$RT-$USR")
        done
}

testAnExecdProcessTakenOverStillCannotExecUnderExecOnceThroughTheWrapper() {
        each_case wrapperExecOnce
}

# Without the wrapper nothing of ours sees the exec: Yama's ptrace_scope 1 must stop the take-over.
yama_or_skip() {
        local scope
        if ! scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null); then
                echo "  skipped: this kernel has no Yama (/proc/sys/kernel/yama is absent): a process a plain" \
                        "runtime execs can be taken over by the workload (the documented risk)"
                startSkipping
                assertTrue "Yama" "[ -d /proc/sys/kernel/yama ]"
                return 1
        fi
        if [ "$scope" -lt 1 ]; then
                echo "  skipped: Yama's ptrace_scope is $scope here (this test never changes it): it must be 1 or more"
                startSkipping
                assertTrue "ptrace_scope 1" "[ $scope -ge 1 ]"
                return 1
        fi
}

# (ptrace with the mkdir layer alone: its failure must be Yama's, not a layer's.)
plainCannotBeTakenOver() {
        WRAPPER='' hijack ptrace "$PROFILES/deny-mkdir.json"
        assertContains "$(what) ptrace: the take-over failed: $LINE" "$(field hijack)" "errno:"
        WRAPPER='' hijack mem "$PROFILES/deny-mkdir.json" "$DENY_PTRACE"
        assertContains "$(what) mem: the take-over failed: $LINE" "$(field hijack)" "errno:"
}

testUnderAPlainRuntimeWithYamaAnExecdProcessCannotBeTakenOver() {
        yama_or_skip || return 0
        each_case plainCannotBeTakenOver
}

# ---- 7: exec-once with CAP_SYS_PTRACE --------------------------------------------------------

execOncePtrace() {
        hostile_bundle "$C/b" supervisor || fail "bundle"
        tsync_json_edit "$C/b/config.json" '.process.capabilities |= (.bounding += ["CAP_SYS_PTRACE"]
                | .effective += ["CAP_SYS_PTRACE"] | .permitted += ["CAP_SYS_PTRACE"]
                | if $u != 0 then .inheritable += ["CAP_SYS_PTRACE"] | .ambient = ["CAP_SYS_PTRACE"] else . end)' \
                --argjson u "$USR" || fail "caps"
        cp "$C/b/config.json" "$C/before.json"
        if ! inject --exec-once "$C/b" 2>"$C/inject.err"; then
                assertEquals "$(what): inject's refusal is one line: $(cat "$C/inject.err")" 1 \
                        "$(grep -c '^oci-seccomp-tsync: ' "$C/inject.err")"
                assertEquals "$(what): and nothing else but warnings" 1 "$(grep -vc ': warning: ' "$C/inject.err")"
                assertTrue "$(what): the config is untouched" "cmp -s $C/before.json $C/b/config.json"
                return
        fi
        rt_run "$ID" "$C/b"
        local err=$T/$ID.err
        echo "  $(what): $(tr '\n' ';' <"$T/$ID.out")"
        assertNotEquals "$(what): the start went through" 0 "$rc"
        assertEquals "$(what): the workload ran" "" "$(lines '^door=' "$T/$ID.out")"
        # runc shows a hook's line inside its own error line.
        assertEquals "$(what): the refusal is one line: $(cat "$err")" 1 "$(grep -c 'oci-seccomp-tsync: ' "$err")"
}

testExecOnceWithCapSysPtraceIsRefusedBeforeAnyWorkloadRuns() {
        each_case execOncePtrace
}

# Podman: the annotation io.oci-seccomp-tsync.exec=once and --cap-add SYS_PTRACE. (Podman shows the
# hook's exit status, not its line.)
podmanExecOncePtrace() {
        podman_hooks || fail "hooks.d"
        prun "$ID" --rm --user "$USR:$USR" --cap-add SYS_PTRACE --annotation io.oci-seccomp-tsync.exec=once -- supervisor
        echo "  $(what): $(tr '\n' ';' <"$C/$ID.out")"
        assertNotEquals "$(what): the start went through" 0 "$rc"
        assertEquals "$(what): the workload ran" "" "$(lines '^door=' "$C/$ID.out")"
}

testUnderPodmanExecOnceWithCapSysPtraceIsRefusedBeforeAnyWorkloadRuns() {
        each_podman podmanExecOncePtrace
}

# ==== Issue 35, third round: each part of the attacker's view in a section of its own ============
# The exec path: what the runtime executes for an exec'd process (items 1, 12, 15).


SWAP=$TSYNC_BUILD/tests/static/swap_probe

# swap_start MODE HOW: the container running swap_probe -w MODE as $USR from a writable rootfs with
# noNewPrivileges false (so an exec'd process's init is lent CAP_SYS_ADMIN), under the deny-mkdir
# layer: through the wrapper (HOW=wrapper), or injected to run in place (HOW=inplace, the workload
# as PID 1; noNewPrivileges true there, which the wrapper needs to lend nothing). Waits for the
# probe's "done"; its lines in $T/$ID.log.
swap_start() {
        local mode=$1 how=$2 nnp=false
        [ "$how" = inplace ] && nnp=true
        tsync_probe_bundle "$C/b" "$SWAP" /bin/swap_probe -w "$mode" || return 1
        tsync_json_edit "$C/b/config.json" '.process.user = {uid: $u, gid: $u} | .hostname = $id |
                .process.noNewPrivileges = $nnp' --argjson u "$USR" --arg id "$ID" --argjson nnp "$nnp" || return 1
        mkdir -p "$C/profiles" && cp "$PROFILES/deny-mkdir.json" "$C/profiles/" || return 1
        case "$how" in
        wrapper)
                _tsync_register "$RT" "$ID"
                ours_rt --layers=deny-mkdir run --detach -b "$C/b" "$ID" </dev/null >"$T/$ID.log" 2>&1 || return 1
                ;;
        inplace)
                inject --exec --profile "$PROFILES/deny-mkdir.json" "$C/b" 2>"$C/inject.err" &&
                        rt_start "$ID" "$C/b" || return 1
                ;;
        esac
        wait_line "$T/$ID.log" '^door=swap done'
}

# swap_begin MODE HOW: swap_start, a failure said once; the probe's lines shown.
swap_begin() {
        swap_start "$@" || {
                fail "$(what): start: $(cat "$T/$ID.log" "$C/inject.err" 2>/dev/null)"
                return 1
        }
        echo "  $(what): $(lines '^door=swap' "$T/$ID.log" | tr '\n' ';')"
}

# swap_exec [JQ]: `cat /proc/self/status` exec'd through the wrapper as the container's own process
# (same user, same capabilities, noNewPrivileges as the container's, then JQ's changes), as docker
# exec gives it; its output in $C/exec.out, its status in $rc.
swap_exec() {
        jq ".process | .args = [\"cat\", \"/proc/self/status\"] | .terminal = false ${1:+| $1}" "$C/b/config.json" \
                >"$C/process.json" || return 1
        rc=0
        ours_rt exec --process "$C/process.json" "$ID" </dev/null >"$C/exec.out" 2>&1 || rc=$?
}

# no_evil_ran: nothing the workload put in place ran for the exec'd process.
no_evil_ran() {
        assertEquals "$(what): the workload's program ran for the exec'd process: $(cat "$C/exec.out")" "" \
                "$(lines '^door=swap evil' "$C/exec.out")"
        assertFalse "$(what): the workload's program ran for the exec'd process" "[ -e $C/b/rootfs/swap-evil-ran ]"
}

# cap_bit HEX N: whether bit N of the capability mask HEX is set.
cap_bit() {
        [ $(((0x$1 >> $2) & 1)) = 1 ]
}

execPathRename() {
        swap_begin rename wrapper || return
        assertEquals "$(what): what the workload changed there: $(lines '^door=swap file' "$T/$ID.log")" "" \
                "$(lines '^door=swap file' "$T/$ID.log" | grep -E '=ok( |$)' || true)"
        swap_exec
        no_evil_ran
        assertEquals "$(what): the exec'd process ran: $(cat "$C/exec.out")" 0 "$rc"
        local eff
        eff=$(sed -n 's/^CapEff:[[:space:]]*//p' "$C/exec.out")
        assertNotEquals "$(what): the exec'd process's CapEff: $(cat "$C/exec.out")" "" "$eff"
        assertFalse "$(what): the exec'd process holds CAP_SYS_ADMIN ($eff)" "cap_bit ${eff:-0} 21"
        assertFalse "$(what): the exec'd process holds CAP_SETPCAP ($eff)" "cap_bit ${eff:-0} 8"
        assertNotEquals "$(what): the exec'd process carries no filter: $(cat "$C/exec.out")" "0" \
                "$(sed -n 's/^Seccomp_filters:[[:space:]]*//p' "$C/exec.out")"
        rt_stop "$ID"
}

# Item 1: the workload renames the directory holding what an exec'd process runs and puts its own
# program there; an exec through the wrapper still runs ours, lent nothing to anything else.
testTheWorkloadCannotReplaceWhatAnExecdProcessRuns() {
        each_case execPathRename
}

execPathUserns() {
        swap_begin userns inplace || return
        swap_exec
        echo "  $(what): exec: $(head -c 300 "$C/exec.out" | tr '\n' ';')"
        no_evil_ran
        if [ -n "$(lines '^door=swap file=.* overmount=ok' "$T/$ID.log")" ]; then
                assertNotEquals "$(what): the exec went through over the workload's own mount" 0 "$rc"
                assertContains "$(what): the refusal: $(cat "$C/exec.out")" "$(cat "$C/exec.out")" "mount namespace"
        fi
        rt_stop "$ID"
}

# The workload as PID 1 (run in place) makes a user and a mount namespace of its own, which the
# runtime joins for an exec, and mounts over the directory: the wrapper refuses the exec.
testAWorkloadInPlaceCannotShadowWhatAnExecdProcessRunsFromANamespaceOfItsOwn() {
        each_case execPathUserns
}

execPathUsernsSupervised() {
        swap_begin userns wrapper || return
        swap_exec
        no_evil_ran
        assertEquals "$(what): the exec'd process ran (PID 1, our init, kept its namespaces): $(cat "$C/exec.out")" 0 \
                "$rc"
        rt_stop "$ID"
}

# The same from a workload that is not PID 1 (our init supervises): the runtime joins PID 1's
# namespaces, which the workload cannot move, and the exec runs ours.
testAWorkloadsOwnNamespacesDoNotReachAnExecdProcessUnderOurSupervisingInit() {
        each_case execPathUsernsSupervised
}

execPathInplaceLent() {
        swap_begin rename inplace || return
        swap_exec '.noNewPrivileges = false' || fail "process"
        no_evil_ran
        assertNotEquals "$(what): an exec lent CAP_SYS_ADMIN into a container run in place went through" 0 "$rc"
        assertEquals "$(what): the refusal is one line: $(cat "$C/exec.out")" 1 \
                "$(grep -c 'oci-seccomp-tsync' "$C/exec.out")"
        rt_stop "$ID"
}

# No capability is lent to an exec'd process of a container whose PID 1 is its workload: nothing
# keeps the path the runtime execs ours between our check and its execve.
testNoCapabilityIsLentToAnExecdProcessOfAContainerRunInPlace() {
        each_case execPathInplaceLent
}

# Item 15: a key of ours, misspelt (or unknown), is never ignored: under Podman the container does
# not run, whatever else it names. (Podman shows the hook's exit status, not its line.)
podmanMisspeltKey() {
        local key
        podman_hooks || fail "hooks.d"
        cp "$PROFILES/deny-mkdir.json" "$C/profiles/" || fail "profile"
        for key in layer Layers layers.extra; do
                prun "$ID-$key" --rm --user "$USR:$USR" --annotation "io.oci-seccomp-tsync.$key=deny-mkdir" -- supervisor
                echo "  $(what) io.oci-seccomp-tsync.$key: rc=$rc $(tr '\n' ';' <"$C/$ID-$key.err" | head -c 200)"
                assertNotEquals "$(what): io.oci-seccomp-tsync.$key: the container ran" 0 "$rc"
                assertEquals "$(what): io.oci-seccomp-tsync.$key: the workload ran" "" \
                        "$(lines '^door=' "$C/$ID-$key.out")"
        done
}

testUnderPodmanAMisspeltKeyOfOursIsRefusedNeverIgnored() {
        each_podman podmanMisspeltKey
}

# Issue 40: precreate takes Podman's createRuntime entry out of a config whose plan needs nothing of
# it. A Podman user hopes for that while the init is lent CAP_SYS_ADMIN (noNewPrivileges false, the
# default), so that `podman exec` reads the lent sets from config.json: the hook stays, and an exec'd
# process holds what it holds beside a container without us, never CAP_SYS_ADMIN.
podmanExecAfterPrecreate() {
        local name=$ID-exec plain=$ID-plain ours theirs n
        podman_hooks || fail "hooks.d"
        cp "$PROFILES/deny-mkdir.json" "$C/profiles/" || fail "profile"
        for n in "$name" "$plain"; do
                local ann=()
                [ "$n" = "$name" ] && ann=(--annotation io.oci-seccomp-tsync.layers=deny-mkdir)
                podman --hooks-dir "$C/hooks.d" run -d --name "$n" --runtime runc --label tsync-test=$$ \
                        --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "${PODMAN_CAPS[@]}" --user "$USR:$USR" \
                        "${ann[@]}" --rootfs "$C/rootfs" /bin/sleep 60 >/dev/null 2>"$C/$n.err" ||
                        fail "$(what): podman run -d $n: $(cat "$C/$n.err")"
        done
        ours=$(podman exec "$name" /bin/grep -E '^Cap(Eff|Prm|Bnd|Amb):' /proc/self/status)
        theirs=$(podman exec "$plain" /bin/grep -E '^Cap(Eff|Prm|Bnd|Amb):' /proc/self/status)
        echo "  $(what): exec'd process: $(echo "$ours" | tr '\n\t' '; ')"
        assertEquals "$(what): an exec'd process's capabilities beside a plain container's" "$theirs" "$ours"
        assertContains "$(what): the config lost its createRuntime hook" \
                "$(jq -c '.hooks.createRuntime // []' "$(podman inspect --format '{{.OCIConfigPath}}' "$name")")" \
                '"oci-seccomp-tsync","hook","createRuntime"'
}

testUnderPodmanAnExecdProcessIsNeverLentWhatTheInitWas() {
        each_podman podmanExecAfterPrecreate
}

# Issue 39: a user's own profile directory (~/.config/oci-seccomp-tsync/profiles) is looked in by a
# rootless engine's hooks only, after the system's: a user who puts a file there named like a layer
# of the node's (one that denies nothing, or here one that is not even JSON) never replaces it; the
# hook run as root never reads the user's directory at all.
testAUsersOwnProfileNeverShadowsTheSystemsLayer() {
        local dir=$T/shadow name="tsync-hostile-$$" sys=/etc/oci-seccomp-tsync/profiles made=
        # nobody reads the test's files: its temp dir may be passed through.
        mkdir -p "$dir/home/.config/oci-seccomp-tsync/profiles" && chmod -R 0755 "$dir" && chmod 0711 "$T" || fail "mkdir"
        [ -d "$sys" ] || { mkdir -p "$sys" && made=$sys; }
        cp "$PROFILES/deny-mkdir.json" "$sys/$name.json" || fail "the system's profile"
        echo "not json: the user's file" >"$dir/home/.config/oci-seccomp-tsync/profiles/$name.json"
        printf 'layers = %s\n' "$name" >"$dir/node.conf" && chmod 0644 "$dir/node.conf"
        runc spec --bundle "$dir" && chmod 0644 "$dir/config.json" || fail "runc spec"
        # The build may sit under root's home (a clone in /root): nobody runs copies.
        mkdir -p "$dir/bin" && cp "$OCI" "$INIT" "$dir/bin/" && chmod -R a+rX "$dir/bin" || fail "copies"
        local u oci=$dir/bin/${OCI##*/} init=$dir/bin/${INIT##*/}
        for u in nobody root; do
                (cd / && runuser -u "$u" -- env -i HOME="$dir/home" "$oci" hook precreate --init "$init" \
                        --node-conf "$dir/node.conf" --no-cache <"$dir/config.json" >"$dir/$u.out" 2>"$dir/$u.err")
                rc=$?
                echo "  as $u, a node layer the user's directory also names: rc=$rc $(head -c 160 "$dir/$u.err")"
                assertEquals "as $u: the system's layer, not the user's file: $(cat "$dir/$u.err")" 0 "$rc"
                jq -e '.process.args | index("--filter-data")' "$dir/$u.out" >/dev/null ||
                        fail "as $u: no filter in the init's arguments: $(head -c 300 "$dir/$u.out")"
        done
        # A name only the user's directory has: as root, never found there.
        echo '{"defaultAction": "SCMP_ACT_ALLOW"}' >"$dir/home/.config/oci-seccomp-tsync/profiles/only-mine.json"
        jq -c '.annotations = {"io.oci-seccomp-tsync.layers": "only-mine"}' "$dir/config.json" |
                env -i HOME="$dir/home" "$OCI" hook precreate --init "$INIT" --node-conf "$dir/node.conf" --no-cache \
                        >/dev/null 2>"$dir/root-only.err"
        assertNotEquals "root's hook read a user's profile" 0 "$?"
        assertContains "$(cat "$dir/root-only.err")" "layer 'only-mine': no such profile in $sys"
        assertNotContains "$(cat "$dir/root-only.err")" ".config"
        rm -f "$sys/$name.json"
        [ -n "$made" ] && rmdir "$made" /etc/oci-seccomp-tsync 2>/dev/null
        return 0
}

# Issue 39: precreate's lines name the container by the hostname its user chose (Podman passes a
# newline through, and runc sets it): a hostname that carries a syslog header forges no line of
# ours in the system log, refused or applied.
testUnderPodmanAHostnameForgesNoLineInTheSystemLog() {
        C=$T/podman-hostname
        mkdir -p "$C"
        make_rootfs "$C/rootfs" "$HOSTILE" || fail "rootfs"
        podman_hooks || fail "hooks.d"
        cp "$PROFILES/deny-mkdir.json" "$C/profiles/" || fail "profile"
        local f sock=$C/log.sock log=$C/log layers forged
        for f in "$C/hooks.d"/*.json; do
                tsync_json_edit "$f" '.hook.env = ["TSYNC_SYSLOG_SOCKET=" + $s]' --arg s "$sock" || fail "hooks.d env"
        done
        forged=$(printf 'x\n<27>Dec  7 00:00:00 oci-seccomp-tsync[1]: evil: forged')
        : >"$log"
        for layers in no-such-layer deny-mkdir; do
                python3 -c "$TSYNC_SYSLOG_CATCH" "$sock" "$log" podman --hooks-dir "$C/hooks.d" run --rm --runtime runc \
                        --label tsync-test=$$ --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "${PODMAN_CAPS[@]}" \
                        --hostname "$forged" --annotation "io.oci-seccomp-tsync.layers=$layers" --rootfs "$C/rootfs" \
                        /bin/hostile_probe supervisor </dev/null >"$C/$layers.out" 2>"$C/$layers.err"
                echo "  hostname with a syslog header, layers=$layers: rc=$? $(tr '\n' ';' <"$C/$layers.err" | head -c 160)"
        done
        # One datagram a line (the catcher ends each with a newline): every line is ours, none forged.
        assertNotEquals "nothing was logged" 0 "$(wc -l <"$log")"
        assertEquals "a line that is not a datagram's header: $(cat -A "$log")" "" \
                "$(grep -vE '^<[0-9]+>[A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} oci-seccomp-tsync\[[0-9]+\]: ' "$log")"
        assertEquals "a forged line: $(cat -A "$log")" "" "$(grep -F ': evil: forged' "$log" | grep -vF 'precreate (hostname x?<27>')"
        grep -qF "precreate (hostname x?<27>Dec  7 00:00:00 oci-seccomp-tsync[1]: evil: forged): layer 'no-such-layer'" "$log" ||
                fail "the refusal does not name the hostname as it was, made one line: $(cat -A "$log")"
}

# mark_run RUNNER ANNOTATIONS_JSON: through the wrapper (runc) with the node layer deny-mkdir (its
# --layers: the node's own), run by a program whose comm is RUNNER (as containerd's shim or conmon
# runs the runtime): a container whose annotations (jq, $id its id) claim to be a pod's sandbox and
# ask for deny-getcwd; it prints what mkdir and getcwd did. Its output in $T/$ID.log.
mark_run() {
        local runner=$1 annotations=$2
        tsync_probe_bundle "$C/b" /bin/busybox sh -c \
                'mkdir /tmp/m 2>/dev/null && echo mkdir=ok || echo mkdir=denied; /bin/busybox pwd -P >/dev/null 2>&1 && echo getcwd=ok || echo getcwd=denied' ||
                return 1
        tsync_json_edit "$C/b/config.json" ".annotations = ($annotations)" --arg id "$ID" || return 1
        mkdir -p "$C/profiles" && cp "$PROFILES/deny-mkdir.json" "$PROFILES/deny-getcwd.json" "$C/profiles/" || return 1
        mkdir -p "$C/bin" && ln -sf "$(command -v bash)" "$C/bin/$runner" || return 1
        _tsync_register "$RT" "$ID"
        : >"$C/runtime.conf"
        # shellcheck disable=SC2016 # the inner shell's; "exit" keeps it from exec'ing the wrapper itself
        "$C/bin/$runner" -c '"$@"; exit $?' "$runner" "$RUNTIME" --runtime-config="$C/runtime.conf" \
                --profile-dir="$C/profiles" --cache-dir="$T/cache" --layers=deny-mkdir run -b "$C/b" "$ID" \
                </dev/null >"$T/$ID.log" 2>&1
        rc=$?
}

markRuns() {
        local containerd='{"io.kubernetes.cri.container-type": "sandbox", "io.kubernetes.cri.sandbox-id": $id,
                "io.oci-seccomp-tsync.layers": "deny-getcwd"}'
        local crio='{"io.kubernetes.cri-o.ContainerType": "sandbox", "io.kubernetes.cri-o.SandboxID": $id,
                "io.oci-seccomp-tsync.layers": "deny-getcwd"}'
        local other='{"io.kubernetes.cri.container-type": "sandbox", "io.kubernetes.cri.sandbox-id": "another",
                "io.oci-seccomp-tsync.layers": "deny-getcwd"}'
        # containerd's own pause: the pod's annotation asks nothing, the node's layer holds.
        mark_run containerd-shim-runc-v2 "$containerd" || fail "$(what): start"
        echo "  $(what) containerd's mark under containerd's shim: $(tr '\n' ' ' <"$T/$ID.log")"
        assertEquals "$(what): the node's layer on a pod's sandbox: $(cat "$T/$ID.log")" "mkdir=denied" \
                "$(lines '^mkdir=' "$T/$ID.log")"
        assertEquals "$(what): the pod's annotation on its sandbox: $(cat "$T/$ID.log")" "getcwd=ok" \
                "$(lines '^getcwd=' "$T/$ID.log")"
        # Another engine's mark, or a sandbox id that is not the container's: an ordinary container.
        local case
        for case in "conmon:$containerd" "containerd-shim-runc-v2:$crio" "containerd-shim-runc-v2:$other" \
                "bash:$containerd"; do
                ID=$(tsync_unique_id "hostile-$RT-$USR")
                mark_run "${case%%:*}" "${case#*:}" || fail "$(what): start"
                echo "  $(what) run by ${case%%:*}: $(tr '\n' ' ' <"$T/$ID.log")"
                assertEquals "$(what) run by ${case%%:*}: the node's layer: $(cat "$T/$ID.log")" "mkdir=denied" \
                        "$(lines '^mkdir=' "$T/$ID.log")"
                assertEquals "$(what) run by ${case%%:*}: the container's own annotation: $(cat "$T/$ID.log")" \
                        "getcwd=denied" "$(lines '^getcwd=' "$T/$ID.log")"
        done
}

# Item 12: only the running engine's sandbox mark counts, confirmed by its sandbox id; node layers
# are never skipped, not even for a real pod's sandbox.
testOnlyTheRunningEnginesSandboxMarkCountsAndNodeLayersAreNeverSkipped() {
        local RT=runc USR=0
        ID=$(tsync_unique_id "hostile-$RT-$USR")
        C=$T/mark-$RT
        mkdir -p "$C"
        markRuns
}

# node_run RUNNER ANNOTATIONS: as mark_run, the layer named by a node policy ($C/node.conf) that
# leaves out the pod prod/db-0 by its Kubernetes name.
node_run() {
        local runner=$1 annotations=$2
        tsync_probe_bundle "$C/b" /bin/busybox sh -c 'mkdir /tmp/m 2>/dev/null && echo mkdir=ok || echo mkdir=denied' ||
                return 1
        tsync_json_edit "$C/b/config.json" ".annotations = ($annotations)" --arg id "$ID" || return 1
        mkdir -p "$C/profiles" && cp "$PROFILES/deny-mkdir.json" "$C/profiles/" || return 1
        mkdir -p "$C/bin" && ln -sf "$(command -v bash)" "$C/bin/$runner" || return 1
        printf '%s\n' "layers = deny-mkdir" "exclude = kubernetes/prod/db-0: reviewed" >"$C/node.conf" &&
                chmod 0644 "$C/node.conf" || return 1
        _tsync_register "$RT" "$ID"
        : >"$C/runtime.conf"
        # shellcheck disable=SC2016 # the inner shell's; "exit" keeps it from exec'ing the wrapper itself
        "$C/bin/$runner" -c '"$@"; exit $?' "$runner" "$RUNTIME" --runtime-config="$C/runtime.conf" \
                --node-conf="$C/node.conf" --profile-dir="$C/profiles" --cache-dir="$T/cache" run -b "$C/b" "$ID" \
                </dev/null >"$T/$ID.log" 2>&1
        rc=$?
}

# issue 37: a pod (under CRI-O, which passes a pod's annotations as they are, or any engine but
# containerd) claims the Kubernetes name of a pod node.conf leaves out, to run without the node's
# layers. Only under containerd's shim, which sets those names after the pod's own, does the name
# count.
testAPodCannotClaimTheNameOfAPodTheNodeLeavesOut() {
        local RT=runc USR=0 runner
        C=$T/node-$RT
        mkdir -p "$C"
        local names='{"io.kubernetes.cri.sandbox-namespace": "prod", "io.kubernetes.cri.sandbox-name": "db-0",
                "io.kubernetes.cri.container-name": "db", "io.kubernetes.cri.container-type": "container"}'
        for runner in conmon bash; do
                ID=$(tsync_unique_id "hostile-node")
                node_run "$runner" "$names" || fail "$runner: start"
                echo "  run by $runner: $(tr '\n' ' ' <"$T/$ID.log")"
                assertEquals "run by $runner: the node's layer: $(cat "$T/$ID.log")" "mkdir=denied" \
                        "$(lines '^mkdir=' "$T/$ID.log")"
        done
        ID=$(tsync_unique_id "hostile-node")
        node_run containerd-shim-runc-v2 "$names" || fail "containerd: start"
        assertEquals "under containerd's shim the pod is left out: $(cat "$T/$ID.log")" "mkdir=ok" \
                "$(lines '^mkdir=' "$T/$ID.log")"
        assertContains "the reason is said" "$(cat "$T/$ID.log")" "left out of the node's layers by $C/node.conf, line 2: reviewed"
}

# A pod's author shapes its config's annotations (up to the 16 MB any front end reads). The runtime
# wrapper's musl heap (hook/runtime/musl_heap.c) never gives memory back and reuses only its last
# block: a config at that limit, a million annotations, must not make it grow past a bound of the
# config's size (glibc's heap peaked at 11.5 times it, ours at 14: a heap that leaked what it
# reparsed would be far past 20). The wrapper alone, exec'ing /bin/true in the runtime's place.
testAConfigAtTheSizeLimitKeepsTheWrappersHeapWithinABoundOfIt() {
        local d=$T/heap
        mkdir -p "$d/b" "$d/profiles"
        cp "$PROFILES/deny-mkdir.json" "$d/profiles/" || fail "profile"
        python3 - "$d/b/config.json" <<'PY' || fail "the config"
import json, sys
c = {"ociVersion": "1.0.2", "process": {"args": ["sh"], "env": ["PATH=/bin"], "cwd": "/"},
     "root": {"path": "rootfs"}, "annotations": {}}
base = len(json.dumps(c, separators=(",", ":")))
for i in range((16 * 1024 * 1024 - base - 200) // 16):
    c["annotations"]["a%07d" % i] = "b"
open(sys.argv[1], "w").write(json.dumps(c, separators=(",", ":")))
PY
        local size rss rc=0
        size=$(stat -c %s "$d/b/config.json")
        : >"$d/runtime.conf"
        /usr/bin/time -f '%M' -o "$d/rss" "$RUNTIME" --runtime-config="$d/runtime.conf" --profile-dir="$d/profiles" \
                --cache-dir="$d/cache" --layers=deny-mkdir --runtime=/bin/true run --bundle "$d/b" heap-limit \
                >"$d/out" 2>&1 || rc=$?
        assertEquals "the wrapper takes it: $(head -c 300 "$d/out")" 0 "$rc"
        rss=$(tail -1 "$d/rss")
        echo "  config $size bytes, the wrapper's peak $((rss * 1024)) bytes ($((rss * 1024 / size)) times)"
        assertTrue "peak ${rss} KB for a config of $size bytes: more than 20 times it" \
                "[ $((rss * 1024)) -le $((size * 20)) ]"
        assertContains "the config was rewritten" "$(head -c 300 "$d/b/config.json")" '"args":["/.oci-seccomp-tsync/init",'
        # Its record of the runtime goes with a delete, as after a real container's.
        "$RUNTIME" --runtime-config="$d/runtime.conf" --runtime=/bin/true delete heap-limit >/dev/null 2>&1 ||
                fail "delete"
        rm -rf "$d"
}

# A config that names a plan of ours (forged: only our rewrite writes one) while the node names no
# layers: precreate, run by the node's hooks.d entry for every container, still judges it and
# refuses; it is never handed back as if it asked nothing.
testPrecreateNeverHandsBackAForgedPlanAsAConfigThatAsksNothing() {
        mkdir -p "$T/b/rootfs" && runc spec --bundle "$T/b" || fail "runc spec"
        tsync_json_edit "$T/b/config.json" \
                '.annotations["io.oci-seccomp-tsync.plan"] = "{\"version\":1,\"mode\":\"layer\",\"layers\":[]}"' ||
                fail "edit"
        "$OCI" hook precreate --init "$INIT" --no-cache --node-conf "$T/no-node.conf" <"$T/b/config.json" \
                >"$T/out" 2>"$T/err"
        rc=$?
        echo "  $(cat "$T/err")"
        assertNotEquals "a forged plan went through: $(cat "$T/err")" 0 "$rc"
        assertEquals "nothing on stdout for the runtime" "" "$(cat "$T/out")"
        assertContains "$(cat "$T/err")" "annotations.io.oci-seccomp-tsync.plan: set by oci-seccomp-tsync itself"
}

# (exec path: end)
#
#
#
# lockdown against a hostile workload (items 2, 3, 4, 7, 10, 13, 14).
# The workload is tests/static/lockdown_hostile (one attack a mode) or lockdown_probe (storms),
# under runc, with noNewPrivileges unless a test says otherwise. Each test asserts what lockdown
# promises (docs/lockdown.md): all or nothing with --or-kill, nothing the workload names decides,
# a deadline on every wait with the call unwound, a listener of the container's refused before
# anything is frozen, the cgroup thawed and the record as it was however lockdown ends, counts
# that are true, and no byte of the container's raw on our output.
LOCKDOWNLIB_HELPERS_ONLY=1 . "$HERE/lockdownlib.sh"
LD_HOSTILE=$TSYNC_BUILD/tests/static/lockdown_hostile
LD_DENY=$PROFILES/deny-mkdir.json

# ld_begin: an id for the test's container; lockdownlib's records list.
ld_begin() {
        tsync_need_built "$LD_HOSTILE" "$PROBE" || return 1
        ID=$(tsync_unique_id lockdown-hostile)
        MY_RECORDS=()
        pid=
}

# ld_end: the container stopped, its record removed.
ld_end() {
        [ -n "$ID" ] && stop_runc "$ID"
        lockdown_forget
}

# ld_bundle NNP ARG...: $T/b running lockdown_hostile ARGS (ARGS[0] names its binary in /bin), no
# seccomp of the runtime's.
ld_bundle() {
        local nnp=$1
        shift
        rm -rf "$T/b"
        make_rootfs "$T/b/rootfs" "$LD_HOSTILE" || return 1
        if [ "$1" != lockdown_hostile ]; then
                cp "$LD_HOSTILE" "$T/b/rootfs/bin/$1" || return 1
        fi
        make_bundle "$T/b" "/bin/$1" "${@:2}" || return 1
        tsync_json_edit "$T/b/config.json" '.process.noNewPrivileges = $nnp | del(.linux.seccomp)' \
                --argjson nnp "$nnp"
}

# ld_start: the bundle started under runc; $pid its host pid; the tasks as they were in $T/before.
ld_start() {
        start_runc "$ID" "$T/b" || return 1
        pid=$(runc_pid "$ID") || return 1
        record_of "$pid"
}

# ld_run ARG...: lockdown of $ID with ARGs ($rc, $T/out, $T/err); the freezer's states seen
# meanwhile in $T/states (a watcher reading freezer.state as fast as the shell can).
ld_run() {
        local dir w
        dir=$(freezer_dir "$pid")
        all_tasks "$pid" >"$T/before"
        : >"$T/states"
        (
                s=
                while [ -e "$T/watching" ]; do
                        read -r s <"$dir/freezer.state" 2>/dev/null && [ "$s" != THAWED ] && echo "$s"
                done >>"$T/states"
        ) &
        w=$!
        touch "$T/watching"
        timeout 90 "$OCI" lockdown --no-cache "$@" "$ID" >"$T/out" 2>"$T/err"
        rc=$?
        rm -f "$T/watching"
        wait "$w"
}

# ld_dead: the container's PID 1 ended within 5 s.
ld_dead() {
        local i
        for ((i = 0; i < 50; i++)); do
                [ -e "/proc/$pid" ] && [ "$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null)" != Z ] ||
                        return 0
                sleep 0.1
        done
        return 1
}

# ld_untouched WHAT: after a refused run, every task as before (filters, tracer), the cgroup thawed,
# the container running, no record.
ld_untouched() {
        all_tasks "$pid" >"$T/after"
        assertEquals "$1: tasks changed" "$(cat "$T/before")" "$(cat "$T/after")"
        assertContains "$1: cgroup" "$(cgroup_frozen "$pid")" THAWED
        assertTrue "$1: the container is gone" "[ -d /proc/$pid ]"
        assertFalse "$1: a record is left: $(cat "$REC" 2>/dev/null)" "[ -e '$REC' ]"
}

# ld_refused_then_killed WHAT: a refused run without --or-kill changed nothing, and one with
# --or-kill killed the container.
ld_refused_then_killed() {
        ld_run --profile "$LD_DENY"
        assertEquals "$1: $(cat "$T/err")" 1 "$rc"
        ld_untouched "$1"
        ld_run --or-kill --profile "$LD_DENY"
        assertEquals "$1 --or-kill: $(cat "$T/err")" 1 "$rc"
        assertTrue "$1 --or-kill: the container still runs: $(cat "$T/err")" ld_dead
        assertContains "$1 --or-kill" "$(cat "$T/err")" "--or-kill: the container's processes were killed"
}

# Item 2: a process that traces its own child (any process may) makes the run fail before the
# freeze; --or-kill must kill the container all the same.
testLockdownOrKillKillsAContainerWithASelfTracedChild() {
        ld_begin || return
        ld_bundle true lockdown_hostile selftrace || fail "bundle"
        ld_start || fail "start"
        wait_line "$TSYNC_TMP/$ID.log" '^hostile traces' || fail "the workload did not trace its child"
        ld_refused_then_killed "self-traced child"
        ld_end
}

# Item 2, the freeze's deadline and item 14: a parent held in vfork by a child that never execs
# takes no ptrace stop (its wait is killable only). The run ends within its deadline, lets
# everything go, says truthfully that it names one task and changed nothing, and --or-kill kills.
testLockdownOfAParentHeldInVforkEndsAtItsDeadlineAndOrKillKills() {
        ld_begin || return
        ld_bundle true lockdown_hostile vfork || fail "bundle"
        ld_start || fail "start"
        sleep 0.3
        ld_run --profile "$LD_DENY"
        assertEquals "vfork: $(cat "$T/err")" 1 "$rc"
        assertContains "vfork: the count" "$(cat "$T/err")" "lockdown refused: 1 task(s) named above; nothing was changed"
        assertNotContains "vfork: a count of uncovered tasks" "$(cat "$T/err")" "not covered"
        all_tasks "$pid" >"$T/after"
        assertEquals "vfork: tasks left traced" "" "$(awk '$4 != 0' "$T/after")"
        assertContains "vfork: cgroup" "$(cgroup_frozen "$pid")" THAWED
        ld_run --or-kill --profile "$LD_DENY"
        assertEquals "vfork --or-kill: $(cat "$T/err")" 1 "$rc"
        assertTrue "vfork --or-kill: the container still runs: $(cat "$T/err")" ld_dead
        ld_end
}

# Item 2, the foreign ABI: an i386 process (where the kernel runs one) is refused, and --or-kill
# kills the container.
testLockdownOrKillKillsAContainerWithAnI386Task() {
        ld_begin || return
        if ! command -v as >/dev/null || ! command -v ld >/dev/null; then
                startSkipping
                fail "no as/ld to build an i386 program"
                return 0
        fi
        printf '%s\n' '.globl _start' '_start:' '1: movl $162, %eax' 'leal ts, %ebx' 'xorl %ecx, %ecx' \
                'int $0x80' 'jmp 1b' '.data' 'ts: .long 1, 0' >"$T/s32.S"
        as --32 -o "$T/s32.o" "$T/s32.S" && ld -m elf_i386 -o "$T/ld_i386" "$T/s32.o" || fail "i386 build"
        "$T/ld_i386" &
        local p32=$!
        sleep 0.2
        if ! kill -0 "$p32" 2>/dev/null; then
                startSkipping
                fail "the kernel does not run i386 programs"
                return 0
        fi
        kill "$p32"
        wait "$p32" 2>/dev/null
        rm -rf "$T/b"
        make_rootfs "$T/b/rootfs" "$T/ld_i386" || fail "rootfs"
        make_bundle "$T/b" /bin/ld_i386 || fail "bundle"
        tsync_json_edit "$T/b/config.json" '.process.noNewPrivileges = true | del(.linux.seccomp)' || fail "config"
        ld_start || fail "start"
        ld_refused_then_killed "i386"
        ld_end
}

# Nothing the workload names decides that it is gVisor's: PID 1 runs as "runsc-sandbox" (argv[0],
# comm, its binary's name), its child as "runsc-gofer" from a binary named runsc. Neither runs the
# host's runsc, so lockdown covers every task (on main: refused as gVisor's, and --or-kill spared it).
testNothingTheWorkloadNamesMakesItAGVisorContainer() {
        ld_begin || return
        ld_bundle true runsc-sandbox names || fail "bundle"
        cp "$LD_HOSTILE" "$T/b/rootfs/bin/runsc" || fail "copy"
        ld_start || fail "start"
        sleep 0.3
        ld_run --or-kill --profile "$LD_DENY"
        assertEquals "names: $(cat "$T/err")" 0 "$rc"
        all_tasks "$pid" >"$T/after"
        assertEquals "names: tasks without the layer" "" "$(awk '$3 != 1' "$T/after")"
        assertEquals "names: both processes" 2 "$(awk '$1 == $2' "$T/after" | wc -l)"
        ld_end
}

# Item 3: a thread whose own filter sends seccomp() to a listener that another thread of the
# same process serves. Refused before anything is frozen (the freezer never left THAWED), in one
# line, nothing touched, no hang; --or-kill kills.
testAThreadServedListenerIsRefusedBeforeAnythingIsFrozen() {
        ld_begin || return
        ld_bundle true lockdown_hostile listener || fail "bundle"
        ld_start || fail "start"
        wait_line "$TSYNC_TMP/$ID.log" '^hostile listener ready' || fail "no listener"
        ld_run --profile "$LD_DENY"
        assertEquals "listener: $(cat "$T/err")" 1 "$rc"
        assertContains "listener: why" "$(cat "$T/err")" "seccomp listener"
        assertEquals "listener: the cgroup was frozen" "" "$(sort -u "$T/states" | tr '\n' ' ')"
        ld_untouched "listener"
        ld_run --or-kill --profile "$LD_DENY"
        assertTrue "listener --or-kill: the container still runs" ld_dead
        ld_end
}

# Item 4: a benign container being recorded (the init's recorder thread serves every call's
# notification). Refused before anything is frozen; the container keeps running, unharmed.
testARecordedContainerIsRefusedBeforeAnythingIsFrozenAndKeepsRunning() {
        ld_begin || return
        ld_bundle true lockdown_hostile sleep || fail "bundle"
        "$OCI" inject --cache-dir "$TSYNC_TMP/cache" --record "$T/rec.json" "$T/b" || fail "inject --record"
        ld_start || fail "start"
        ld_run --profile "$LD_DENY"
        assertEquals "recorded: $(cat "$T/err")" 1 "$rc"
        assertContains "recorded: why" "$(cat "$T/err")" "seccomp listener"
        assertEquals "recorded: the cgroup was frozen" "" "$(sort -u "$T/states" | tr '\n' ' ')"
        ld_untouched "recorded"
        sleep 0.5
        assertEquals "recorded: the container" running "$(runc state "$ID" 2>/dev/null | jq -r .status)"
        ld_end
}

# ld_stop_while_frozen: lockdown of $ID started in the background ($lpid) and stopped (SIGSTOP)
# while the cgroup is FROZEN by it. 0 when caught so, else it was let finish (retried by the
# caller).
ld_stop_while_frozen() {
        local dir s i
        dir=$(freezer_dir "$pid")
        "$OCI" lockdown --no-cache --profile "$LD_DENY" "$ID" >"$T/out" 2>"$T/err" &
        lpid=$!
        for ((i = 0; i < 200000; i++)); do
                read -r s <"$dir/freezer.state"
                if [ "$s" = FROZEN ]; then
                        kill -STOP "$lpid"
                        read -r s <"$dir/freezer.state"
                        [ "$s" = FROZEN ] && return 0
                        kill -CONT "$lpid"
                fi
                kill -0 "$lpid" 2>/dev/null || break
        done
        wait "$lpid"
        return 1
}

# ld_killed_mid_freeze SIGNAL: lockdown caught while it holds the cgroup frozen, then sent SIGNAL.
# Within 2 s the cgroup is thawed, no task is traced and the record is as it was (none); a
# second lockdown then succeeds and records the layer once.
ld_killed_mid_freeze() {
        local sig=$1 tries caught= i
        ld_bundle true lockdown_probe -p 4 || fail "bundle"
        cp "$PROBE" "$T/b/rootfs/bin/lockdown_probe" || fail "probe"
        ld_start || fail "start"
        sleep 0.5
        for ((tries = 0; tries < 30; tries++)); do
                if ld_stop_while_frozen; then
                        caught=1
                        break
                fi
                # It finished: a record and a layer of its own; start afresh.
                stop_runc "$ID"
                lockdown_forget
                ld_start || fail "restart"
                sleep 0.3
        done
        if [ -z "$caught" ]; then
                startSkipping
                fail "lockdown was never caught with the cgroup frozen in 30 tries"
                return
        fi
        kill "-$sig" "$lpid"
        kill -CONT "$lpid"
        wait "$lpid"
        for ((i = 0; i < 20; i++)); do
                [ "$(cgroup_frozen "$pid")" = THAWED ] && break
                sleep 0.1
        done
        assertContains "$sig mid-freeze: cgroup" "$(cgroup_frozen "$pid")" THAWED
        all_tasks "$pid" >"$T/after"
        assertEquals "$sig mid-freeze: tasks left traced" "" "$(awk '$4 != 0' "$T/after")"
        assertEquals "$sig mid-freeze: tasks with a layer" "" "$(awk '$3 != 0' "$T/after")"
        assertFalse "$sig mid-freeze: the record lists the layer: $(cat "$REC" 2>/dev/null)" "[ -e '$REC' ]"
        assertTrue "$sig mid-freeze: the container is gone" "[ -d /proc/$pid ]"
        ld_run --profile "$LD_DENY"
        assertEquals "$sig then a retry: $(cat "$T/err")" 0 "$rc"
        assertEquals "$sig then a retry: layers recorded" 1 "$(jq '.layers | length' "$REC")"
}

# Item 7: lockdown SIGKILLed while the cgroup is frozen.
testLockdownSigkilledMidFreezeLeavesTheCgroupThawedAndTheRecordAsItWas() {
        ld_begin || return
        ld_killed_mid_freeze KILL
        ld_end
}

# Item 7: lockdown interrupted (SIGINT) while the cgroup is frozen.
testLockdownInterruptedMidFreezeLeavesTheCgroupThawedAndTheRecordAsItWas() {
        ld_begin || return
        ld_killed_mid_freeze INT
        ld_end
}

# Item 10: a comm with an escape sequence, a newline and a bell, named in a refusal: the output
# holds no raw control byte and no line the container forged.
testControlBytesFromTheContainerNeverReachLockdownsOutputRaw() {
        ld_begin || return
        ld_bundle false lockdown_hostile ctrl || fail "bundle"
        ld_start || fail "start"
        sleep 0.3
        ld_run --profile "$LD_DENY"
        assertEquals "ctrl: $(cat "$T/err")" 1 "$rc"
        assertEquals "ctrl: raw control bytes" 0 "$(cat "$T/out" "$T/err" | tr -d '\n' | LC_ALL=C grep -c '[[:cntrl:]]')"
        assertEquals "ctrl: a forged line" "" "$(grep '^forged' "$T/out" "$T/err")"
        assertTrue "ctrl: the task named on one line: $(cat "$T/err")" \
                "grep -qE '^oci-seccomp-tsync: $ID: lockdown refused: .*\\(pid $pid tid $pid \\(.*forged.*\\) the first\\)' '$T/err'"
        # The same refusal now names the node's policy it read (--node-conf): the container's
        # bytes and the operator's path still make one line, the fix naming that file.
        printf 'no-new-privs = refuse\n' >"$T/node.conf" && chmod 0644 "$T/node.conf" || fail "node.conf"
        ld_run --node-conf "$T/node.conf" --profile "$LD_DENY"
        assertEquals "ctrl, --node-conf: $(cat "$T/err")" 1 "$rc"
        assertEquals "ctrl, --node-conf: raw control bytes" 0 \
                "$(cat "$T/out" "$T/err" | tr -d '\n' | LC_ALL=C grep -c '[[:cntrl:]]')"
        assertEquals "ctrl, --node-conf: a forged line" "" "$(grep '^forged' "$T/out" "$T/err")"
        assertTrue "ctrl, --node-conf: one line naming the file: $(cat "$T/err")" \
                "grep -qE '^oci-seccomp-tsync: $ID: lockdown refused: .*\\(pid $pid tid $pid \\(.*forged.*\\) the first\\).*no-new-privs = set in $T/node.conf\\)' '$T/err'"
        ld_end
}

# A workload whose filter kills the process on seccomp() (the injected call would kill it):
# without --or-kill lockdown refuses before any call and the container keeps running.
testAFilterThatKillsOnSeccompMakesLockdownRefuseNotKill() {
        ld_begin || return
        ld_bundle true lockdown_hostile killseccomp || fail "bundle"
        ld_start || fail "start"
        wait_line "$TSYNC_TMP/$ID.log" '^hostile kills on seccomp' || fail "no filter"
        ld_run --profile "$LD_DENY"
        assertEquals "killseccomp: $(cat "$T/err")" 1 "$rc"
        assertContains "killseccomp: why" "$(cat "$T/err")" "KILL_PROCESS"
        ld_untouched "killseccomp"
        ld_end
}

# A task with every signal blocked is covered: its mkdir fails with the layer's errno and its mask
# is as it was.
testATaskBlockingEverySignalIsCoveredWithItsMaskKept() {
        ld_begin || return
        ld_bundle true lockdown_hostile masked || fail "bundle"
        ld_start || fail "start"
        sleep 0.3
        ld_run --profile "$LD_DENY"
        assertEquals "masked: $(cat "$T/err")" 0 "$rc"
        touch "$T/b/rootfs/tmp/go"
        wait_line "$TSYNC_TMP/$ID.log" '^hostile mkdir' || fail "no report"
        assertEquals "masked" "hostile mkdir errno=122 mask=all" "$(grep '^hostile mkdir' "$TSYNC_TMP/$ID.log")"
        ld_end
}

# A paused container (runc pause) is refused and stays paused: lockdown's thaw would resume it.
testAPausedContainerIsRefusedAndStaysPaused() {
        ld_begin || return
        ld_bundle true lockdown_hostile sleep || fail "bundle"
        ld_start || fail "start"
        runc pause "$ID" || fail "pause"
        timeout 60 "$OCI" lockdown --no-cache --profile "$LD_DENY" "$ID" >"$T/out" 2>"$T/err"
        rc=$?
        assertEquals "paused: $(cat "$T/err")" 1 "$rc"
        assertContains "paused: why" "$(cat "$T/err")" "paused"
        assertEquals "paused: the container" paused "$(runc state "$ID" | jq -r .status)"
        runc resume "$ID"
        ld_end
}

# Item 13, what docs/lockdown.md promises of io_uring: a ring made before the lockdown keeps
# working (its IORING_OP_MKDIRAT makes the directory past a layer that denies mkdirat), while the
# layer's io_uring_setup denial stops any new ring.
testARingMadeBeforeALockdownKeepsWorkingWhileNewRingsAreDenied() {
        ld_begin || return
        printf '%s\n' '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir", "mkdirat",' \
                '"io_uring_setup"], "action": "SCMP_ACT_ERRNO", "errnoRet": 122}]}' >"$T/deny-uring.json"
        ld_bundle true lockdown_hostile uring || fail "bundle"
        ld_start || fail "start"
        wait_line "$TSYNC_TMP/$ID.log" '^hostile (uring ready|ERROR)' || fail "no ring"
        if grep -q '^hostile ERROR' "$TSYNC_TMP/$ID.log"; then
                startSkipping
                fail "no io_uring here: $(grep '^hostile ERROR' "$TSYNC_TMP/$ID.log")"
                ld_end
                return
        fi
        ld_run --profile "$T/deny-uring.json"
        assertEquals "uring: $(cat "$T/err")" 0 "$rc"
        touch "$T/b/rootfs/tmp/go"
        wait_line "$TSYNC_TMP/$ID.log" '^hostile uring-setup' || fail "no report"
        assertEquals "uring: the old ring's mkdirat" "hostile uring-mkdirat res=0" \
                "$(grep '^hostile uring-mkdirat' "$TSYNC_TMP/$ID.log")"
        assertTrue "uring: the directory" "[ -d '$T/b/rootfs/tmp/d.uring' ]"
        assertEquals "uring: a new ring" "hostile uring-setup errno=122" \
                "$(grep '^hostile uring-setup' "$TSYNC_TMP/$ID.log")"
        ld_end
}

# (lockdown: end)
#
#
#
# status against a hostile PID 1 (items 5, 6, 8, 10, 11, 13, 15).

# tests/static/status_probe plays the workload; status runs from the host, each call bounded
# (sp_status: a hang is rc 137) and asserted by its verdict and exit status, never by our wording
# alone. runc only: what status reads is the kernel's, whichever runtime started the container.

STATUS_PROBE=$TSYNC_BUILD/tests/static/status_probe

# sp_bundle ARG...: $C/b running `sh -c ARG...` (busybox, with tr, grep, ln, head) and
# status_probe, as root from a writable rootfs, no linux.seccomp.
sp_bundle() {
        tsync_need_built "$STATUS_PROBE" || return 1
        mkdir -p "$C" &&
                TSYNC_APPLETS="$TSYNC_APPLETS tr grep ln head" tsync_probe_bundle "$C/b" "$STATUS_PROBE" "$@"
}

# sp_start: the container $ID from $C/b under runc, waiting for the probe's "ready" line.
sp_start() {
        start_runc "$ID" "$C/b" || return 1
        wait_line "$T/$ID.log" "ready|errno" || return 1
        ! grep -q errno "$T/$ID.log"
}

# sp_status ARG...: `status ARG...` bounded by 60 s; $rc (137: it hung), $C/st.out, $C/st.err.
sp_status() {
        timeout -s KILL 60 "$OCI" status "$@" >"$C/st.out" 2>"$C/st.err"
        rc=$?
}

sp_verdict() {
        jq -r .verdict "$C/st.out" 2>/dev/null
}

sp_setup() {
        C=$T/status
        ID=$(tsync_unique_id status-hostile)
        mkdir -p "$C"
}

# 5. A PID 1 that copies itself to /.oci-seccomp-tsync/init and forges a command line is not our
# init: the config asked for a layer (an annotation no hook saw), so the container is unprotected.
testStatusTakesOurInitByItsFileNotByItsPath() {
        sp_setup
        sp_bundle /bin/status_probe forge /.oci-seccomp-tsync/init /.oci-seccomp-tsync/init -- /bin/sleep 300 ||
                fail "bundle"
        tsync_json_edit "$C/b/config.json" '.annotations["io.oci-seccomp-tsync.layers"] = "deny-mkdir"'
        sp_start || fail "start: $(cat "$T/$ID.log")"
        sp_status --json "$ID"
        assertEquals "not protected: $(cat "$C/st.err")" 1 "$rc"
        assertEquals "unprotected" "$(sp_verdict)"
        assertEquals "its exe is a copy of the workload's: $(jq -c .init "$C/st.out")" false \
                "$(jq -r .init.ours "$C/st.out")"
        # The same by --pid: the runtime's state names the config, the annotation still asks.
        sp_status --json --pid "$(runc_pid "$ID")"
        assertEquals "--pid: $(cat "$C/st.err")" 1 "$rc"
        assertEquals "annotations" "$(jq -r .asked.source "$C/st.out")"
}

# Extra: the same forgery with a command line of 1.2 MB (more than status reads of one).
testStatusCannotBeToldOffByAHugeForgedCommandLine() {
        sp_setup
        sp_bundle /bin/status_probe forge /.oci-seccomp-tsync/init /.oci-seccomp-tsync/init -- /bin/sleep 300 \
                @BIG @BIG @BIG @BIG @BIG @BIG @BIG @BIG @BIG @BIG @BIG @BIG || fail "bundle"
        tsync_json_edit "$C/b/config.json" '.annotations["io.oci-seccomp-tsync.layers"] = "deny-mkdir"'
        sp_start || fail "start: $(cat "$T/$ID.log")"
        sp_status --json "$ID"
        assertEquals "$(cat "$C/st.err")" 1 "$rc"
        assertEquals "unprotected" "$(sp_verdict)"
}

# 6. Where status reads the container's files, a link the workload planted points at a host FIFO:
# (a) a forged init naming /hostlink/fifo, /hostlink -> the host's directory; (b) our own init,
# whose directory the workload renames to put a link in place of a filter file (refused where
# /.oci-seccomp-tsync is a mount of its own). status returns, and says nothing is proven.
testStatusNeverFollowsTheContainersLinksOntoTheHost() {
        sp_setup
        mkfifo "$C/fifo" || fail "mkfifo"
        sp_bundle sh -c "ln -s '$C' /hostlink && exec /bin/status_probe forge /.oci-seccomp-tsync/init \
                /.oci-seccomp-tsync/init --filter /hostlink/fifo -- /bin/sleep 300" || fail "bundle"
        tsync_json_edit "$C/b/config.json" '.annotations["io.oci-seccomp-tsync.layers"] = "deny-mkdir"'
        sp_start || fail "start: $(cat "$T/$ID.log")"
        sp_status --json "$ID"
        assertNotEquals "status hung on the host's FIFO" 137 "$rc"
        assertEquals "forged init: $(cat "$C/st.err")" 1 "$rc"
        stop_runc "$ID"

        ID=$(tsync_unique_id status-hostile)
        sp_bundle sh -c "f=\$(tr '\\0' '\\n' </proc/1/cmdline | grep '/filters/' | head -n 1)
                exec /bin/status_probe plant \"\$f\" '$C/fifo'" || fail "bundle"
        # (a layer that leaves mkdir to the workload)
        inject --compile-at-start --profile "$PROFILES/deny-getcwd.json" "$C/b" 2>/dev/null || fail "inject"
        sp_start || fail "start: $(cat "$T/$ID.log")"
        echo "  our init: $(grep door= "$T/$ID.log" | tr '\n' ';')"
        sp_status --json "$ID"
        assertNotEquals "status hung on the host's FIFO" 137 "$rc"
        if grep -q '^door=plant rename=.* ok' "$T/$ID.log"; then
                assertNotEquals "a planted link is never proof: $(cat "$C/st.err")" 0 "$rc"
                assertNotEquals "protected" "$(sp_verdict)"
        else
                assertEquals "the rename was refused, nothing planted: $(cat "$C/st.err")" 0 "$rc"
        fi
}

# 8. A process that lacks the layer (a plain `runc exec`) and loads a filter that allows all, to
# make up the count, carries the count but not the program.
testStatusJudgesEachTasksProgramsNotItsCount() {
        sp_setup
        sp_bundle /bin/sleep 300 || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$C/b" 2>/dev/null || fail "inject"
        sp_start_plain || fail "start"
        runc exec -d "$ID" /bin/status_probe dummy 1 >"$C/exec.out" 2>&1 || fail "exec: $(cat "$C/exec.out")"
        wait_line "$C/exec.out" "ready|errno" || fail "the exec'd probe: $(cat "$C/exec.out")"
        sp_status --json "$ID"
        assertEquals "$(cat "$C/st.err")" 1 "$rc"
        assertEquals "short" "$(sp_verdict)"
        assertEquals "the exec'd task carries the count, not the program" "1 1 0" \
                "$(jq -r '.tasks[] | select(.role == "other") | "\(.filters) \(.expected) \(.matched)"' "$C/st.out")"
}

# sp_start_plain: sp_start for a workload that prints nothing (sleep).
sp_start_plain() {
        start_runc "$ID" "$C/b"
}

# 10. Control bytes in PID 1's exe path and comm: the table, the messages and --json carry them
# escaped; no line of status's is forged, no escape sequence reaches the terminal.
testStatusEscapesTheBytesTheContainerChose() {
        sp_setup
        local evil
        evil=$(printf '/x\033[2J\nverdict:   protected\r')
        sp_bundle /bin/status_probe forge "$evil" "$evil" || fail "bundle"
        tsync_json_edit "$C/b/config.json" '.annotations["io.oci-seccomp-tsync.layers"] = "deny-mkdir"'
        sp_start || fail "start: $(cat "$T/$ID.log")"
        sp_status "$ID"
        assertEquals "$(cat "$C/st.err")" 1 "$rc"
        assertEquals "no escape byte, no carriage return in the table or the message" 0 \
                "$(cat "$C/st.out" "$C/st.err" | tr -cd '\033\r' | wc -c)"
        assertEquals "no forged verdict line: $(cat "$C/st.out")" 0 "$(grep -c '^verdict: *protected' "$C/st.out")"
        assertEquals "one line on stderr: $(cat "$C/st.err")" 1 "$(wc -l <"$C/st.err")"
        sp_status --json "$ID"
        assertEquals "--json keeps the bytes, as JSON: $(jq -r .init.exe "$C/st.out" | od -c | head -3)" "$evil" \
                "$(jq -r .init.exe "$C/st.out")"
}

# 11. PID 1 in vfork (the workload run in place of our init) never reaches a ptrace stop: status
# gives it up within its deadline, says it is unverified, and leaves it untraced.
testStatusGivesUpATaskThatNeverStopsAndLeavesItUntraced() {
        sp_setup
        sp_bundle /bin/status_probe vfork || fail "bundle"
        inject --exec --profile "$PROFILES/deny-mkdir.json" "$C/b" 2>/dev/null || fail "inject"
        sp_start || fail "start: $(cat "$T/$ID.log")"
        local pid
        pid=$(runc_pid "$ID")
        sp_status --json "$ID"
        assertNotEquals "status waited for the stop without end" 137 "$rc"
        assertEquals "$(cat "$C/st.err")" 4 "$rc"
        assertEquals "unverified" "$(sp_verdict)"
        assertEquals "PID 1 left untraced" 0 "$(awk '/^TracerPid:/ {print $2}' "/proc/$pid/status")"
}

# 13. A task holding an io_uring ring: its requests pass no seccomp filter (a layer's, or one
# lockdown adds later), so status names it.
testStatusFlagsATaskHoldingAnIoUringRing() {
        sp_setup
        sp_bundle /bin/status_probe uring || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$C/b" 2>/dev/null || fail "inject"
        start_runc "$ID" "$C/b" || fail "start"
        wait_line "$T/$ID.log" "ready|errno" || fail "probe"
        if grep -q 'door=uring setup errno' "$T/$ID.log"; then
                startSkipping
                echo "  skipped: io_uring_setup fails here: $(cat "$T/$ID.log")"
                return
        fi
        sp_status --json "$ID"
        assertEquals "$(cat "$C/st.err")" 1 "$rc"
        assertEquals "short" "$(sp_verdict)"
        assertNotEquals "the ring's holder named" "" "$(jq -r '.tasks[] | select(.io_uring_fd != null) | .pid' "$C/st.out")"
        assertContains "$(cat "$C/st.err")" "io_uring"
}

# 15. A misspelt key of ours ran nothing of ours: status names the key, not hooks.d. Under plain
# runc (no front end at all) and under Podman with our hooks.d (whose `when` may now refuse it:
# then the container never ran, which holds the property too).
testStatusNamesAMisspeltKeyOfOurs() {
        sp_setup
        sp_bundle /bin/sleep 300 || fail "bundle"
        tsync_json_edit "$C/b/config.json" '.annotations["io.oci-seccomp-tsync.layer"] = "deny-mkdir"'
        sp_start_plain || fail "start"
        sp_status --json "$ID"
        assertEquals "$(cat "$C/st.err")" 1 "$rc"
        assertEquals "unprotected" "$(sp_verdict)"
        assertContains "$(cat "$C/st.err")" "annotations.io.oci-seccomp-tsync.layer is not a key of oci-seccomp-tsync"
        command -v podman >/dev/null || return 0
        mkdir -p "$C/rootfs" && make_rootfs "$C/rootfs" || fail "rootfs"
        podman_hooks || fail "hooks.d"
        local name
        name=$(tsync_unique_id status-typo)
        if ! podman --hooks-dir "$C/hooks.d" run -d --name "$name" --runtime runc --label tsync-test=$$ \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "${PODMAN_CAPS[@]}" \
                --annotation io.oci-seccomp-tsync.layer=deny-mkdir --rootfs "$C/rootfs" \
                /bin/sleep 300 </dev/null >"$C/podman.out" 2>&1; then
                echo "  podman refused the misspelt key: $(tail -n 1 "$C/podman.out")"
                return
        fi
        sp_status --json --podman "$name"
        assertEquals "podman: $(cat "$C/st.err")" 1 "$rc"
        assertContains "$(cat "$C/st.err")" "annotations.io.oci-seccomp-tsync.layer is not a key of oci-seccomp-tsync"
        assertNotContains "$(cat "$C/st.err")" "hooks.d not found"
}

# Extra: an exec'd process without the layer that runs a copy of itself from a memfd named like
# runc's own copy (runc 1.1's exe while it sets up an exec) is not passed as "starting".
testStatusDoesNotPassAProcessThatBorrowsARuntimesName() {
        sp_setup
        sp_bundle /bin/sleep 300 || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$C/b" 2>/dev/null || fail "inject"
        sp_start_plain || fail "start"
        runc exec -d "$ID" /bin/status_probe memfd >"$C/exec.out" 2>&1 || fail "exec: $(cat "$C/exec.out")"
        wait_line "$C/exec.out" "ready|errno" || fail "the exec'd probe: $(cat "$C/exec.out")"
        sp_status --json "$ID"
        echo "  memfd: $(jq -r '.tasks[] | select(.role == "starting" or .role == "other") | "\(.role) \(.filters)"' "$C/st.out" | tr '\n' ';')"
        assertNotEquals "never protected: $(cat "$C/st.err")" 0 "$rc"
        assertNotEquals "protected" "$(sp_verdict)"
}

# Extra: a workload that traces its own child, so that status cannot stop it: the child is
# unverified, the container never "protected" on counts alone.
testStatusDoesNotPassATaskItCannotRead() {
        sp_setup
        sp_bundle /bin/status_probe traced || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$C/b" 2>/dev/null || fail "inject"
        sp_start || fail "start: $(cat "$T/$ID.log")"
        sp_status --json "$ID"
        assertEquals "$(cat "$C/st.err")" 4 "$rc"
        assertEquals "unverified" "$(sp_verdict)"
        assertContains "$(cat "$C/st.err")" "PTRACE_SEIZE"
}

# Extra: tasks that come and go while status reads (a process forking short-lived children
# without end): no task that ended is reported, and status returns each time.
testStatusReadsAContainerWhoseTasksComeAndGo() {
        sp_setup
        sp_bundle /bin/status_probe churn || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$C/b" 2>/dev/null || fail "inject"
        sp_start || fail "start: $(cat "$T/$ID.log")"
        local i
        # Children caught as zombies between /proc and PTRACE_SEIZE (EPERM) come with each round.
        for i in $(seq 10); do
                sp_status --json "$ID"
                assertEquals "round $i: $(cat "$C/st.err")" 0 "$rc"
        done
}

# Extra: a workload stopped by job control (SIGSTOP) is read and left stopped: status resumes
# nothing the workload or its owner stopped.
testStatusLeavesAStoppedTaskStopped() {
        sp_setup
        sp_bundle /bin/status_probe stop || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$C/b" 2>/dev/null || fail "inject"
        sp_start || fail "start: $(cat "$T/$ID.log")"
        local pid i
        pid=$(jq -r '.tasks[] | select(.role == "workload") | .pid' < <("$OCI" status --json "$ID" 2>/dev/null) | head -n 1)
        for ((i = 0; i < 100; i++)); do
                [ "$(awk '/^State:/ {print $2}' "/proc/$pid/status")" = T ] && break
                sleep 0.1
        done
        sp_status --json "$ID"
        assertEquals "$(cat "$C/st.err")" 0 "$rc"
        assertEquals "still stopped" T "$(awk '/^State:/ {print $2}' "/proc/$pid/status")"
        assertEquals "untraced" 0 "$(awk '/^TracerPid:/ {print $2}' "/proc/$pid/status")"
        kill -CONT "$pid"
}

# Extra: a process without the layer (a plain `runc exec`) whose main thread has ended, so that
# it looks dead, while a second thread runs on: the live thread is judged all the same.
testStatusJudgesTheLiveThreadsOfAProcessThatLooksDead() {
        sp_setup
        sp_bundle /bin/sleep 300 || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$C/b" 2>/dev/null || fail "inject"
        sp_start_plain || fail "start"
        runc exec -d "$ID" /bin/status_probe zmain >"$C/exec.out" 2>&1 || fail "exec: $(cat "$C/exec.out")"
        wait_line "$C/exec.out" "ready|errno" || fail "the exec'd probe: $(cat "$C/exec.out")"
        sp_status --json "$ID"
        assertEquals "$(cat "$C/st.err")" 1 "$rc"
        assertEquals "its live thread named short" "true" \
                "$(jq -r '[.tasks[] | select(.role == "other" and (.dead | not))] | .[0].short' "$C/st.out")"
}

# (status: end)
#
#
#
# Recordings and the record directory (item 9).
#
# The pod author is the attacker here: through the runtime wrapper (whose record-dir holds the
# files pods may name) and through every front end, a recording's profile is written as root. Each
# test asserts what must hold whatever the design: a file already at the path keeps its bytes, a
# node layer keeps denying what it denied (a container under it is run to see), and a record-dir
# that overlaps a directory we trust is refused with one line naming runtime.conf and its line.

# rec_setup: under $C=$T/rec, two profile directories $C/p1 (empty) and $C/p2 (the deny-mkdir
# layer, its bytes kept in $C/layer.orig), a record-dir $C/rd, and $C/rec.conf naming them.
rec_setup() {
        C=$T/rec
        rm -rf "$C" && mkdir -p "$C/p1" "$C/p2" "$C/rd" || return 1
        cp "$PROFILES/deny-mkdir.json" "$C/p2/" && cp "$C/p2/deny-mkdir.json" "$C/layer.orig" || return 1
        RD=$C/rd
        ID=$(tsync_unique_id hostile-rec)
        rec_conf "record-dir = $RD"
}

# rec_conf LINE...: $C/rec.conf (root's, 0600): the two profile directories, the suite's cache,
# then LINEs (the record-dir is on line 4 when the first LINE names it).
rec_conf() {
        printf '%s\n' "profile-dir = $C/p1" "profile-dir = $C/p2" "cache-dir = $T/cache" "$@" >"$C/rec.conf" &&
                chmod 0600 "$C/rec.conf"
}

# rec_rt ARG...: the runtime wrapper over runc with $C/rec.conf.
rec_rt() {
        "$RUNTIME" --runtime-config="$C/rec.conf" "$@"
}

# pod DIR RECORD [SCRIPT]: a bundle at DIR running busybox `sh -c SCRIPT` (default: a mkdir) as
# root, asking for the recording RECORD (the annotation's value, as a pod's author writes it).
pod() {
        local dir=$1 rec=$2 script=${3:-'mkdir /tmp/d; echo done'}
        rm -rf "$dir"
        make_bundle "$dir" sh -c "$script" || return 1
        tsync_json_edit "$dir/config.json" \
                '.process.capabilities.ambient = [] | .annotations["io.oci-seccomp-tsync.record"] = $v' --arg v "$rec"
}

# pod_create ID DIR: `create` through the wrapper; $rc, its output in $C/ID.create, the
# recording's directory on the host (its plan's) in $C/ID.recdir.
pod_create() {
        _tsync_register runc "$1"
        rec_rt create --bundle "$2" "$1" </dev/null >"$C/$1.create" 2>&1
        rc=$?
        jq -r '.annotations["io.oci-seccomp-tsync.plan"] // empty | fromjson | .record.dir // empty' \
                "$2/config.json" >"$C/$1.recdir" 2>/dev/null
}

# pod_end ID: started, and run until its workload ended.
pod_end() {
        local i
        rec_rt start "$1" >"$C/$1.start" 2>&1 || return 1
        for ((i = 0; i < 400; i++)); do
                [ "$(runc state "$1" 2>/dev/null | jq -r .status)" = stopped ] && return 0
                sleep 0.05
        done
        return 1
}

# pod_delete ID: `delete` through the wrapper (which writes the recording; a guard of 60 s, then
# $rc is 124); $rc, its output in $C/ID.delete, $LISTED 1 when runc still lists it. The raw calls a refused write keeps on the host
# are removed (this container's alone).
pod_delete() {
        local dir
        timeout 60 "$RUNTIME" --runtime-config="$C/rec.conf" delete "$1" >"$C/$1.delete" 2>&1
        rc=$?
        LISTED=$(runc list -q | grep -cx "$1")
        _tsync_stop runc "$1"
        dir=$(cat "$C/$1.recdir" 2>/dev/null)
        case "$dir" in /var/lib/oci-seccomp-tsync/record/[0-9a-f]*) rm -rf -- "$dir" ;; esac
}

# pod_record ID DIR: created, run to its end and deleted through the wrapper, whatever create
# said (so that a refusal that does not come shows its damage). $rc and $C/ID.create: create's.
pod_record() {
        pod_create "$1" "$2"
        local created=$rc
        if [ "$created" = 0 ]; then
                pod_end "$1" || fail "$1: the workload never ended: $(cat "$C/$1.start")"
                pod_delete "$1"
        else
                _tsync_stop runc "$1"
        fi
        rc=$created
}

# one_refusal WHAT FILE TEXT: FILE holds exactly one line of ours, and it says TEXT.
one_refusal() {
        assertEquals "$1: one line of ours: $(cat "$2")" 1 "$(grep -c '^oci-seccomp-tsync: ' "$2")"
        assertContains "$1: why: $(cat "$2")" "$(cat "$2")" "$3"
}

# layer_still_denies: the deny-mkdir layer's file keeps its bytes, nothing of that name sits in
# the first profile directory, and a container under the layer (named, as a node's runtime.conf
# names it, from the profile directories) still cannot mkdir.
layer_still_denies() {
        local id
        id=$(tsync_unique_id hostile-rec-layer)
        assertTrue "the layer's file keeps its bytes" "cmp -s $C/layer.orig $C/p2/deny-mkdir.json"
        assertFalse "nothing shadows the layer from the first profile directory" "[ -e $C/p1/deny-mkdir.json ]"
        make_bundle "$C/lb" sh -c 'mkdir /tmp/made && echo made || echo denied' || fail "layer bundle"
        tsync_json_edit "$C/lb/config.json" '.process.capabilities.ambient = []' || fail "layer bundle"
        printf '%s\n' "profile-dir = $C/p1" "profile-dir = $C/p2" "layers = deny-mkdir" >"$C/layer.conf"
        chmod 0600 "$C/layer.conf"
        _tsync_register runc "$id"
        "$RUNTIME" --runtime-config="$C/layer.conf" run -b "$C/lb" "$id" </dev/null >"$C/layer.out" 2>&1
        _tsync_stop runc "$id"
        assertEquals "a container under the layer still cannot mkdir: $(cat "$C/layer.out")" denied \
                "$(grep -E '^(made|denied)$' "$C/layer.out")"
}

# Item 9: record-dir is, lies inside or holds a profile directory (by its path, through a symbolic
# link, a bind mount of it or of a directory above it, a '..'), the cache or the record root: each
# is refused at create, in one line naming runtime.conf's line; the pod's recording, which names
# the node's layer (or a new file of its name in the first profile directory, which would shadow
# it), is never written, and the layer still denies.
testARecordDirThatOverlapsAProfileDirTheCacheOrTheRecordRootIsRefused() {
        rec_setup || fail "setup"
        ln -s p2 "$C/lnk" && mkdir -p "$C/bm" "$T/view" || fail "setup"
        mount --bind "$C/p2" "$C/bm" || fail "bind mount"
        mount --bind "$C" "$T/view" || fail "bind mount"
        local c what dir
        for c in "is:$C/p2" "the-first:$C/p1" "inside:$C/p2/sub" "holds:$C" "symlink:$C/lnk" "bind:$C/bm" \
                "bind-above:$T/view/p2" "dotdot:$C/rd/../p2" "cache:$T/cache" "cache-default:/var/cache/oci-seccomp-tsync" \
                "record-root:/var/lib/oci-seccomp-tsync/record/x" "root:/"; do
                what=${c%%:*} dir=${c#*:}
                rec_conf "record-dir = $dir"
                pod "$C/b" "of:$dir/deny-mkdir.json" || fail "$what: bundle"
                pod_record "$ID" "$C/b"
                assertNotEquals "$what: record-dir = $dir: create went through" 0 "$rc"
                one_refusal "$what" "$C/$ID.create" "$C/rec.conf: line 4: record-dir '$dir'"
                echo "  $what: $(head -c 300 "$C/$ID.create")"
                ID=$(tsync_unique_id hostile-rec)
        done
        umount "$C/bm" "$T/view"
        layer_still_denies
}

# A pod names a file already in record-dir (another pod's profile, a hard link to a file of the
# host, a symbolic link to the node's layer, a FIFO, a directory): refused at create, each one
# left as it was.
testARecordingNeverReplacesWhatIsAlreadyInTheRecordDir() {
        rec_setup || fail "setup"
        echo '{"another": "pod"}' >"$RD/other.json" && cp "$RD/other.json" "$C/other.orig"
        echo host >"$C/hostfile" && ln "$C/hostfile" "$RD/hardlink.json"
        ln -s "$C/p2/deny-mkdir.json" "$RD/symlink.json"
        mkfifo "$RD/fifo.json" && mkdir "$RD/dir.json"
        local n
        for n in other hardlink symlink fifo dir; do
                pod "$C/b" "of:$RD/$n.json" || fail "$n: bundle"
                pod_record "$ID" "$C/b"
                assertNotEquals "$n: create went through" 0 "$rc"
                one_refusal "$n" "$C/$ID.create" "$RD/$n.json"
                echo "  $n: $(cat "$C/$ID.create")"
                ID=$(tsync_unique_id hostile-rec)
        done
        assertTrue "another pod's profile keeps its bytes" "cmp -s $C/other.orig $RD/other.json"
        assertEquals "the host's file keeps its bytes and its link in record-dir" "host 2" \
                "$(cat "$C/hostfile") $(stat -c %h "$C/hostfile")"
        assertEquals "the symbolic link stays" "$C/p2/deny-mkdir.json" "$(readlink "$RD/symlink.json")"
        assertTrue "the FIFO stays" "[ -p $RD/fifo.json ]"
        assertTrue "the directory stays, empty" "[ -d $RD/dir.json ] && [ -z \"\$(ls -A $RD/dir.json)\" ]"
        layer_still_denies
}

# Racing: the path is free at create, and something takes it before delete writes the profile
# (another pod's profile, a hard link to a host file, a symbolic link to the node's layer, a FIFO
# no one reads, a directory). delete refuses the write in one line and never hangs, replaces or
# writes through any of them; runc's container is gone all the same.
testAFileRacedIntoPlaceBetweenCreateAndDeleteIsNeverReplaced() {
        rec_setup || fail "setup"
        echo host >"$C/hostfile"
        local n p
        for n in other hardlink symlink fifo dir; do
                p=$RD/raced-$n.json
                pod "$C/b" "of:$p" || fail "$n: bundle"
                pod_create "$ID" "$C/b"
                assertEquals "$n: create: $(cat "$C/$ID.create")" 0 "$rc"
                pod_end "$ID" || fail "$n: the workload never ended: $(cat "$C/$ID.start")"
                case $n in
                other) echo '{"another": "pod"}' >"$p" ;;
                hardlink) ln "$C/hostfile" "$p" ;;
                symlink) ln -s "$C/p2/deny-mkdir.json" "$p" ;;
                fifo) mkfifo "$p" ;;
                dir) mkdir "$p" ;;
                esac
                pod_delete "$ID"
                assertNotEquals "$n: delete hung" 124 "$rc"
                assertNotEquals "$n: delete said nothing went wrong" 0 "$rc"
                one_refusal "$n" "$C/$ID.delete" "$p"
                echo "  $n: $(cat "$C/$ID.delete")"
                assertEquals "$n: runc still lists it" 0 "$LISTED"
                case $n in
                other) assertEquals "$n: its bytes" '{"another": "pod"}' "$(cat "$p")" ;;
                hardlink) assertEquals "$n: the host's file and its link" "host 2" \
                        "$(cat "$C/hostfile") $(stat -c %h "$C/hostfile")" ;;
                symlink) assertEquals "$n: the link" "$C/p2/deny-mkdir.json" "$(readlink "$p")" ;;
                fifo) assertTrue "$n: still a FIFO" "[ -p $p ]" ;;
                dir) assertTrue "$n: still an empty directory" "[ -d $p ] && [ -z \"\$(ls -A $p)\" ]" ;;
                esac
                ID=$(tsync_unique_id hostile-rec)
        done
        layer_still_denies
}

# Two pods name the same new file: both are created (it does not exist yet); the first delete
# writes its profile, the second is refused in one line and leaves the first's bytes.
testTwoPodsRecordingToTheSamePathLeaveTheFirstProfile() {
        rec_setup || fail "setup"
        local a=$ID b
        b=$(tsync_unique_id hostile-rec)
        pod "$C/a" "of:$RD/same.json" 'mkdir /tmp/d; echo a' && pod "$C/b" "of:$RD/same.json" 'echo b' || fail "bundles"
        pod_create "$a" "$C/a"
        assertEquals "first create: $(cat "$C/$a.create")" 0 "$rc"
        pod_create "$b" "$C/b"
        assertEquals "second create: $(cat "$C/$b.create")" 0 "$rc"
        pod_end "$a" && pod_end "$b" || fail "the workloads never ended"
        pod_delete "$a"
        assertEquals "first delete: $(cat "$C/$a.delete")" 0 "$rc"
        cp "$RD/same.json" "$C/first.json" || fail "no profile from the first pod"
        pod_delete "$b"
        assertNotEquals "the second delete said nothing went wrong" 0 "$rc"
        one_refusal second "$C/$b.delete" "$RD/same.json"
        echo "  second: $(cat "$C/$b.delete")"
        assertTrue "the first pod's profile keeps its bytes" "cmp -s $C/first.json $RD/same.json"
        assertTrue "and its mkdir" "jq -r '.syscalls[].names[]' $RD/same.json | grep -qx mkdir"
}

# Paths that leave record-dir or cannot be a file in it: '..' to the node's layer, '.', a
# directory of the container's (through a symbolic link in record-dir, and straight into its
# rootfs), a name longer than any file system takes. Each refused at create in one line, nothing
# written anywhere.
testARecordingPathThatLeavesTheRecordDirIsRefused() {
        rec_setup || fail "setup"
        local long p
        long=$(printf 'x%.0s' $(seq 300))
        mkdir -p "$C/b/rootfs/tmp" && ln -s "$C/b/rootfs/tmp" "$RD/ctl"
        for p in "$RD/../p2/deny-mkdir.json" "$RD/./dot.json" "$RD/ctl/x.json" "$RD/ctl" "$C/b/rootfs/tmp/x.json" \
                "$RD/$long.json" "$RD/sub/x.json" "$RD/"; do
                pod "$C/b" "of:$p" || fail "bundle"
                ln -sfn "$C/b/rootfs/tmp" "$RD/ctl"
                pod_record "$ID" "$C/b"
                assertNotEquals "of:${p:0:80}: create went through" 0 "$rc"
                one_refusal "of:${p:0:80}" "$C/$ID.create" "record"
                echo "  of:${p:0:80}: $(head -c 300 "$C/$ID.create")"
                ID=$(tsync_unique_id hostile-rec)
        done
        assertEquals "nothing written in record-dir" "ctl" "$(ls -A "$RD")"
        assertEquals "nothing written in the container's rootfs" "" "$(ls -A "$C/b/rootfs/tmp")"
        layer_still_denies
}

# inject (runc's user names the path, but the places are ours all the same): --record into the
# record root, the state root or the system's profile directory is refused before anything is
# written (the container is never run: nothing of the host is touched either way).
testInjectNeverRecordsWhereWeReadOurOwnFiles() {
        local p id
        C=$T/inject-rec
        for p in /var/lib/oci-seccomp-tsync/record/hostile-$$.json /run/oci-seccomp-tsync/hostile-$$.json \
                /etc/oci-seccomp-tsync/profiles/hostile-$$.json; do
                id=$(tsync_unique_id hostile-inject-rec)
                make_bundle "$C/b" true || fail "bundle"
                cp "$C/b/config.json" "$C/before.json"
                inject --record "$p" "$C/b" >"$C/inject.out" 2>&1
                assertNotEquals "--record $p: inject went through" 0 "$?"
                one_refusal "--record $p" "$C/inject.out" "recording: of: '$p'"
                echo "  --record $p: $(cat "$C/inject.out")"
                assertTrue "--record $p: the config is untouched" "cmp -s $C/before.json $C/b/config.json"
                assertFalse "--record $p: written" "[ -e $p ]"
                rm -rf "$C/b"
        done
}

# inject --cache-dir names the cache its hooks will trust: --record into it (or a directory
# inside it) is refused before anything is written, as for the default cache.
testInjectNeverRecordsIntoTheCacheItsHooksUse() {
        local p id
        C=$T/inject-cache-rec
        mkdir -p "$C/cache/sub" || fail "setup"
        for p in "$C/cache/x.json" "$C/cache/sub/x.json"; do
                id=$(tsync_unique_id hostile-inject-rec)
                make_bundle "$C/b" true || fail "bundle"
                cp "$C/b/config.json" "$C/before.json"
                inject --cache-dir "$C/cache" --record "$p" "$C/b" >"$C/inject.out" 2>&1
                assertNotEquals "--record $p: inject went through" 0 "$?"
                one_refusal "--record $p" "$C/inject.out" "the cache directory $C/cache"
                echo "  --record $p: $(cat "$C/inject.out")"
                assertTrue "--record $p: the config is untouched" "cmp -s $C/before.json $C/b/config.json"
                assertFalse "--record $p: written" "[ -e $p ]"
                rm -rf "$C/b"
        done
}

# Podman (precreate, poststop): the annotation names the node's layer, or a file in the cache.
# Refused before the workload runs; both keep what they held.
podmanRecordsIntoTrustedPlaces() {
        local p
        podman_hooks || fail "hooks.d"
        cp "$PROFILES/deny-mkdir.json" "$C/profiles/" && cp "$C/profiles/deny-mkdir.json" "$C/layer.orig"
        for p in "$C/profiles/deny-mkdir.json" "$C/profiles/new.json" "$T/cache/new.json"; do
                mkdir -p "$T/cache"
                prun "$ID" --rm --annotation "io.oci-seccomp-tsync.record=of:$p" -- supervisor
                assertNotEquals "$(what) of:$p: the start went through" 0 "$rc"
                assertEquals "$(what) of:$p: the workload ran" "" "$(lines '^door=' "$C/$ID.out")"
                echo "  $(what) of:$p: $(tr '\n' ';' <"$C/$ID.err" | head -c 300)"
        done
        assertTrue "$(what): the layer keeps its bytes" "cmp -s $C/layer.orig $C/profiles/deny-mkdir.json"
        assertFalse "$(what): nothing new in the profile directory" "[ -e $C/profiles/new.json ]"
        assertFalse "$(what): nothing new in the cache" "[ -e $T/cache/new.json ]"
}

testUnderPodmanARecordingIntoAProfileDirOrTheCacheIsRefused() {
        podman_clean
        command -v podman >/dev/null || {
                fail "podman is not installed"
                return
        }
        RT=podman USR=0 ID=$(tsync_unique_id hostile-podman-rec) C=$T/podman-rec
        mkdir -p "$C" && make_rootfs "$C/rootfs" "$HOSTILE" || fail "rootfs"
        podmanRecordsIntoTrustedPlaces
        podman_clean
        RT=runc
}

# A pod engine's container (CRI-O's marks, which CRI-O sets on every container of a pod; CRI-O is
# not on this machine, so real Podman carries them, through the same hooks.d precreate and
# poststop): the pod's author names the path, so a file already there is refused before the
# workload runs, and one raced into place before poststop is never replaced. A Podman user's own
# container, with no pod mark, records over the user's own file as before.
podmanPodRecordingNeverReplaces() {
        local marks=(--annotation io.kubernetes.cri-o.ContainerType=container
                --annotation "io.kubernetes.cri-o.SandboxID=$ID") rd=$C/rd id2
        podman_hooks || fail "hooks.d"
        mkdir -p "$rd" && echo '{"another": "pod"}' >"$rd/other.json" && cp "$rd/other.json" "$C/other.orig"
        prun "$ID" --rm "${marks[@]}" --annotation "io.oci-seccomp-tsync.record=of:$rd/other.json" -- supervisor
        assertNotEquals "$(what): a pod's recording over another's profile: the start went through" 0 "$rc"
        assertEquals "$(what): the workload ran" "" "$(lines '^door=' "$C/$ID.out")"
        assertContains "$(what): why: $(cat "$C/$ID.err")" "$(cat "$C/$ID.err")" "hook precreate"
        assertTrue "$(what): the other pod's profile keeps its bytes" "cmp -s $C/other.orig $rd/other.json"
        echo "  $(what) existing: $(tr '\n' ';' <"$C/$ID.err" | head -c 300)"

        # Raced: free at the start, taken by another pod's profile before poststop writes.
        id2=$(tsync_unique_id hostile-podman-rec)
        rm -f "$C/rootfs/tmp/go"
        podman --hooks-dir "$C/hooks.d" run -d --name "$id2" --runtime runc --label tsync-test=$$ \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "${PODMAN_CAPS[@]}" "${marks[@]}" \
                --annotation "io.oci-seccomp-tsync.record=of:$rd/raced.json" --rootfs "$C/rootfs" \
                /bin/sh -c 'while [ ! -e /tmp/go ]; do sleep 0.1; done; mkdir /tmp/d' >"$C/$id2.out" 2>&1
        last_rc=$?
        assertEquals "$(what): the raced pod's start: $(cat "$C/$id2.out")" 0 "$last_rc"
        echo '{"another": "pod"}' >"$rd/raced.json"
        touch "$C/rootfs/tmp/go"
        podman wait "$id2" >/dev/null 2>&1
        podman rm -f "$id2" >/dev/null 2>&1
        assertEquals "$(what): the raced file keeps the other pod's bytes" '{"another": "pod"}' "$(cat "$rd/raced.json")"

        # A Podman user's own container: its own file, replaced by its new recording.
        id2=$(tsync_unique_id hostile-podman-rec)
        prun "$id2" --rm --annotation "io.oci-seccomp-tsync.record=of:$rd/other.json" -- supervisor
        assertEquals "$(what): a user's own container: $(cat "$C/$id2.err")" 0 "$rc"
        assertFalse "$(what): a user's own container records over its own file" "cmp -s $C/other.orig $rd/other.json"
}

testUnderAPodEnginesPrecreateARecordingNeverReplacesAFile() {
        podman_clean
        command -v podman >/dev/null || {
                fail "podman is not installed"
                return
        }
        RT=podman USR=0 ID=$(tsync_unique_id hostile-podman-rec) C=$T/podman-pod-rec
        mkdir -p "$C" && make_rootfs "$C/rootfs" "$HOSTILE" || fail "rootfs"
        podmanPodRecordingNeverReplaces
        podman_clean
        RT=runc
}

# (recordings: end)

. shunit2
