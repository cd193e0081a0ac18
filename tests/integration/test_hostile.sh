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
        tsync_need_built "$OCI" "$INIT" "$HOSTILE" "$AGENT" "$RUNTIME"
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

# (exec path: end)
#
#
#
# lockdown against a hostile workload (items 2, 3, 4, 7, 10, 13, 14).

# (lockdown: end)
#
#
#
# status against a hostile PID 1 (items 5, 6, 8, 10, 11, 13, 15).

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
        runc delete --force "$1" >/dev/null 2>&1
        _tsync_unregister runc "$1"
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
                runc delete --force "$1" >/dev/null 2>&1
                _tsync_unregister runc "$1"
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
        runc delete --force "$id" >/dev/null 2>&1
        _tsync_unregister runc "$id"
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

# (recordings: end)

. shunit2
