#!/bin/bash
# tests/bench/bench_start_whole.sh [-n N]: a container start seen whole (issue 40). Timed as a user
# times it, our start with capabilities lent costs more over a plain one than bench_start_trace.sh's
# window (PID 1's exec to the runtime's exit, and each hook's exec to its exit) accounts for. Here
# every start is traced system-wide from the first program's exec (the runtime, or the runtime
# wrapper) to the runtime's exit, with sched and syscall tracepoints (exec, fork, exit,
# exit_group, execve, wait4's return, mount), and tests/tools/start_whole.py splits the whole of it
# into phases that add up: the runtime's set-up before its first hook, each hook from the
# runtime's fork of it to its wait4 reaping it, the set-up between the hooks and PID 1's exec,
# PID 1 to the workload, the workload, the ends, poststop. The bundles are Podman's real config
# (busybox rootfs, `sh -c :`), as start_bundles in benchlib.sh builds them, and three front ends:
#   podman    Podman's config, plain
#   catatonit podman with catatonit as PID 1, as `podman run --init`: the yardstick
#   hooks0    podman plus two trivial hooks (dd reading the state; createRuntime, poststop)
#   hooks1    podman plus one (createRuntime)
#   layer-nh  inject's bundle, nothing lent (noNewPrivileges true, `inject --no-hooks`)
#   layer     inject's bundle, capabilities lent (createRuntime and poststop exchange its views)
#   pre-nh    an engine's config: Podman's with io.oci-seccomp-tsync.layers=deny-mkdir and the
#             createRuntime hook the hooks.d file adds (--no-sync), through `oci-seccomp-tsync hook
#             precreate` (once; it drops that hook where nothing needs it), written anew before
#             every start; noNewPrivileges true
#   pre       the same with Podman's noNewPrivileges (capabilities lent)
#   wrap-nh   `oci-seccomp-tsync-runtime --layers=deny-mkdir run` of Podman's config (written anew
#             before every start), which rewrites it and execs the runtime; noNewPrivileges true
#   wrap      the same, capabilities lent
# Each round starts every (runtime, mode) twice, in an order rotated from round to round: first
# all untraced, each timed from before the command to its return (EPOCHREALTIME; and the CPU time
# of the start's processes, from bash's `times`), then all traced (perf record -a: the syscall
# tracepoints slow every call of the start, so traced totals are longer; perf's own start-up is
# outside them). One warm-up round is not kept. Every start must succeed; each container is
# deleted afterwards, untimed. Runs under runc, then crun (crun in a mount namespace of its own
# with cgroup2 mounted, as crun_cmd: that unshare and mount are in every crun start alike).
# The binaries are copied at the start, so a rebuild meanwhile does not change them under it.
# START_WHOLE_KEEP=DIR keeps the traces (perf script's text, the pid files) and the timed figures
# in DIR, to read one start's events or to run start_whole.py again.
# Prints figures (ms, medians over N rounds, default 15); asserts nothing. Needs root, perf (with
# tracepoints), podman, runc, crun, jq, catatonit, python3, busybox-static and a build (`scons`).
set -uo pipefail
# shellcheck source=tests/bench/benchlib.sh
. "$(dirname "$0")/benchlib.sh"

ROUNDS=15
RUNTIMES="runc crun"
MODES="podman catatonit hooks0 hooks1 layer-nh layer pre-nh pre wrap-nh wrap"
# Each path's own cost is taken beyond what it needs of hooks (start_whole.py's MODE=YARDSTICK).
declare -A YARDSTICK=([layer-nh]=podman [layer]=hooks0 [pre-nh]=podman [pre]=hooks1 [wrap-nh]=podman [wrap]=hooks1)
EVENTS=sched:sched_process_exec,sched:sched_process_fork,sched:sched_process_exit,syscalls:sys_enter_exit_group
EVENTS+=,syscalls:sys_enter_execve,syscalls:sys_exit_wait4,syscalls:sys_enter_mount,syscalls:sys_exit_mount

bench_args "$@"
bench_need runc crun podman jq catatonit perf python3 unshare
[ -x "$RUNTIME" ] || die "$RUNTIME is not built (run scons)"
for e in ${EVENTS//,/ }; do
        case "$(perf list "$e" 2>/dev/null)" in
        *"${e#*:}"*) ;;
        *) die "perf does not see the tracepoint $e (is tracefs mounted?)" ;;
        esac
done
SANITIZED=
if nm "$OCI" 2>/dev/null | grep -q ' __asan_init'; then
        SANITIZED=1
        progress "WARNING: $OCI is built with sanitizers; its figures include ASan"
fi
START=$SECONDS
LOAD_BEFORE=$(cut -d ' ' -f 1-3 /proc/loadavg)

bench_begin
mkdir -p "$T/bin" "$T/trace" "$T/profiles" || die "cannot make directories in $T"
cp "$OCI" "$INIT" "$RUNTIME" "$T/bin/" || die "cannot copy the binaries"
# The exec view's hook goes beside the init, where the front ends look for it (musl_init builds it).
VIEW_HOOK=$(dirname "$INIT")/seccomp-tsync-view-hook
if [ -x "$VIEW_HOOK" ]; then
        cp "$VIEW_HOOK" "$T/bin/" || die "cannot copy the view hook"
else
        progress "no $VIEW_HOOK: the hooks that keep the exec view are oci-seccomp-tsync's"
fi
OCI=$T/bin/$(basename "$OCI") INIT=$T/bin/$(basename "$INIT") RUNTIME=$T/bin/$(basename "$RUNTIME")
start_bundles

# whole_bundles: the engine's and the wrapper's bundles (see above), each with the config
# written before every start as $T/MODE.fresh.json.
whole_bundles() {
        local m hook
        cp "$PROFILES/deny-mkdir.json" "$T/profiles/" || die "cannot copy the profile"
        { : >"$T/runtime.conf" && chmod 0644 "$T/runtime.conf"; } || die "cannot write $T/runtime.conf"
        podman_hooks_dir "$T/hooks.d" "$T/profiles" "" "$T/cache" || die "cannot write the hooks.d files"
        hook=$(jq -c '.hook' "$T/hooks.d/oci-seccomp-tsync-createRuntime.json") || die "cannot read the hooks.d file"
        for m in pre pre-nh wrap wrap-nh; do
                cp -a "$T/podman" "$T/$m" || die "cannot copy the bundle"
        done
        cp "$T/podman/config.json" "$T/wrap.fresh.json" || die "cannot copy the config"
        jq '.process.noNewPrivileges = true' "$T/podman/config.json" >"$T/wrap-nh.fresh.json" || die "jq failed"
        # Podman's config asks for the layer, with noNewPrivileges as Podman's (pre) or true (pre-nh).
        # Podman adds the hooks.d createRuntime entry before precreate runs (which keeps it only
        # where the plan needs it), as here.
        for m in pre pre-nh; do
                jq --argjson h "$hook" '.annotations["io.oci-seccomp-tsync.layers"] = "deny-mkdir" |
                        .hooks.createRuntime += [$h]' "$T/wrap${m#pre}.fresh.json" |
                        "$OCI" hook precreate --init "$INIT" --profile-dir "$T/profiles" --cache-dir "$T/cache" \
                                >"$T/$m.fresh.json" 2>"$T/precreate.err" ||
                        die "hook precreate failed: $(tail -n 3 "$T/precreate.err")"
        done
}
whole_bundles
: >"$T/empty"

# start_cmd RUNTIME MODE: CMD, the command before `run --bundle BUNDLE ID`.
start_cmd() {
        CMD=()
        # shellcheck disable=SC2016 # the inner sh's "$@"
        [ "$1" = runc ] || CMD=(unshare -m --propagation private -- sh -c 'mount -t cgroup2 none /sys/fs/cgroup && exec "$@"' sh)
        case "$2" in
        wrap*)
                CMD+=("$RUNTIME" --runtime-config="$T/runtime.conf" --profile-dir="$T/profiles" --cache-dir="$T/cache"
                        --layers=deny-mkdir)
                [ "$1" = runc ] || CMD+=(--runtime=crun --cgroup-manager=disabled)
                ;;
        *)
                if [ "$1" = runc ]; then CMD+=(runc); else CMD+=(crun --cgroup-manager=disabled); fi
                ;;
        esac
}

# one_start RUNTIME MODE ROUND timed|traced: a start, kept as a line of $T/trace/RUNTIME-MODE.ms (the
# ms it took) and of RUNTIME-MODE.cpu (its CPU time), or as RUNTIME-MODE.ROUND.data (perf's record)
# and .ROUND.txt.pid (the pid perf started); round -1 (a warm-up) keeps nothing.
one_start() {
        local rt=$1 m=$2 round=$3 how=$4 id rc t0 t1 out=$T/trace/$1-$2.$3
        bench_fresh_config "$T/$m"
        id=$(tsync_unique_id "whole-$m")
        _tsync_register "$rt" "$id"
        start_cmd "$rt" "$m"
        if [ "$how" = timed ]; then
                times >"$T/times.0"
                t0=$EPOCHREALTIME
                "${CMD[@]}" run --bundle "$T/$m" "$id" <"$T/empty" >"$T/run.out" 2>"$T/run.err"
                rc=$?
                t1=$EPOCHREALTIME
                times >"$T/times.1"
        else
                # The first program writes its pid, which its exec keeps: the trace is system-wide, and
                # start_whole.py counts only that process and what descends from it.
                # shellcheck disable=SC2016 # the inner sh's $$ and "$@"
                perf record -q -o "$out.data" -a -e "$EVENTS" -- sh -c 'echo $$ >"$0" && exec "$@"' "$out.txt.pid" \
                        "${CMD[@]}" run --bundle "$T/$m" "$id" <"$T/empty" >"$T/run.out" 2>"$T/run.err"
                rc=$?
        fi
        _tsync_remove_container "$rt" "$id"
        _tsync_unregister "$rt" "$id"
        [ "$rc" -eq 0 ] || die "$how start of $m under $rt failed ($rc): $(tail -n 3 "$T/run.err")"
        if [ "$round" -lt 0 ]; then
                rm -f "$out.data" "$out.txt.pid"
        elif [ "$how" = timed ]; then
                bench_ms "$t0" "$t1" >>"$T/trace/$rt-$m.ms"
                children_cpu "$T/times.0" "$T/times.1" >>"$T/trace/$rt-$m.cpu"
        fi
}

# children_cpu BEFORE AFTER: the CPU time (user and system) of the children this shell waited for
# between two outputs of `times`, in ms. The start's processes count in it: each is reaped by its
# parent, the runtime (a subreaper) or the runtime wrapper's process, up to this shell. Less noisy
# than wall time on a busy machine, it says how much work a start does, not how long it waits.
children_cpu() {
        awk 'function s(t) { sub(/s$/, "", t); split(t, a, "m"); return a[1] * 60 + a[2] }
             FNR == 2 { c[FILENAME == ARGV[1]] = s($1) + s($2) }
             END { printf "%.3f\n", (c[0] - c[1]) * 1000 }' "$1" "$2"
}

WHOLE_MODES=()
for m in $MODES; do
        WHOLE_MODES+=("$m${YARDSTICK[$m]:+=${YARDSTICK[$m]}}")
done

read -ra modes <<<"$MODES"
n=${#modes[@]}
for rt in $RUNTIMES; do
        for m in $MODES; do : >"$T/trace/$rt-$m.ms" && : >"$T/trace/$rt-$m.cpu"; done
done
progress "$ROUNDS rounds of $n timed and $n traced starts a runtime (after one warm-up round)"
for ((round = -1; round < ROUNDS; round++)); do
        [ $((round % 5)) -ne 0 ] || progress "round $round of $ROUNDS"
        # The timed starts first, a runtime at a time, each after another untraced start of that
        # runtime (the first after one that is not kept): a start just after perf's exit was slower
        # by about 10 ms here, and crun's first after runc's (podman's) by as much in two runs.
        # Then the traced ones.
        for how in timed traced; do
                for rt in $RUNTIMES; do
                        [ "$how" = traced ] || one_start "$rt" podman -1 timed
                        for ((k = 0; k < n; k++)); do
                                one_start "$rt" "${modes[$(((k + round + 1) % n))]}" "$round" "$how"
                        done
                done
        done
done
progress "reading the traces"
for f in "$T"/trace/*.data; do
        perf script -i "$f" -F comm,pid,tid,cpu,time,event,trace >"${f%.data}.txt" 2>/dev/null || die "perf script $f failed"
        rm -f "$f"
done

echo "container start seen whole: 'RUNTIME run' of sh -c : with Podman's config (busybox rootfs), $ROUNDS rounds"
echo "host: $(nproc) CPUs, kernel $(uname -r), runc $(runc --version | sed -n 's/^runc version //p'), $(crun --version | head -n 1)"
echo "load average (1, 5, 15 min): $LOAD_BEFORE before, $(cut -d ' ' -f 1-3 /proc/loadavg) after; took $((SECONDS - START)) s"
echo "config.json, bytes: podman $(wc -c <"$T/podman/config.json"), layer $(wc -c <"$T/layer/config.json")," \
        "pre $(wc -c <"$T/pre.fresh.json") (precreate's output and the hook)"
if [ -n "${START_WHOLE_KEEP:-}" ]; then
        { mkdir -p "$START_WHOLE_KEEP" && cp "$T"/trace/* "$START_WHOLE_KEEP/"; } || die "cannot keep the traces in $START_WHOLE_KEEP"
fi
for rt in $RUNTIMES; do
        echo
        python3 "$TSYNC_TOP/tests/tools/start_whole.py" "$T/trace" "$rt" "${WHOLE_MODES[@]}" || die "start_whole.py failed"
done
echo
echo "Phases (start_whole.py says each): wrapper = its exec to the runtime's; rt>fork = the runtime up to its"
echo "fork of the container; fork>hk = the container's set-up up to the first createRuntime hook (all of it"
echo "without one); crhook, pshook = the hooks, from the runtime's fork of each to its wait4; hk>exec = the"
echo "set-up after them; execve = PID 1's execve call; pid1>sh, sh, sh>pid1 = to the workload, the workload,"
echo "to PID 1's end; pid1>end = to the runtime's exit, poststop aside. t-over, tr-over, c-over: mode - podman"
echo "within each round, the median, timed untraced, traced, and CPU time untraced; gap: t-over - tr-over, and"
echo "whether it is within twice its noise (from the IQR). crun's timed starts include crun_cmd's unshare and"
echo "cgroup2 mount (alike in every mode); its traced totals do not. Our own cost: layer beyond hooks0, pre and"
echo "wrap beyond hooks1, the nothing-lent paths beyond podman; x: as a multiple of catatonit - podman."
echo "phases, x ph: that cost counted by the path's own phases (wrapper, hooks, execve, pid1>sh, sh>pid1,"
echo "pid1>end) and the time in the runtime's mount calls, without the runtime's set-up around them, where"
echo "the noise is (and blind to what a path costs inside it beside its mounts), and as a multiple of catatonit's."
[ -z "$SANITIZED" ] || echo "WARNING: $OCI is an ASan/UBSan build: the hook's share is inflated."
