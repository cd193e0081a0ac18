#!/bin/bash
# tests/bench/bench_start_trace.sh [-n N]: where a container start's cost goes, traced rather
# than timed. bench_start.sh times whole `RUNTIME run`s of 40 to 70 ms whose runtime part before
# the container's first program varies by several ms, so differences under about 1 ms (an init
# in front of the workload, one hook) drown in it even over hundreds of rounds. Here each start
# of bench_start.sh's bundles (start_bundles in benchlib.sh) is one `perf record -a` of sched and
# syscall tracepoints, and tests/tools/start_phases.py reads the phases from the events: from the
# exec of PID 1's program (our init, catatonit, or sh itself) to sh's exec, sh's run, its exit to
# PID 1's end, that to the runtime's exit, and each hook process's exec to exit. The sum from
# the exec on leaves the runtime's own set-up out. N rounds (default 10), each a start of every
# (runtime, mode) in an order rotated from round to round, after one untimed warm-up round.
# Prints medians (ms) and each mode's difference to the plain runtime; asserts nothing. perf's
# own cost per event is in every figure alike. Needs root, perf (with tracepoints), podman, runc,
# crun, jq, catatonit, python3, busybox-static and a build (`scons`).
set -uo pipefail
# shellcheck source=tests/bench/benchlib.sh
. "$(dirname "$0")/benchlib.sh"

ROUNDS=10
RUNTIMES="runc crun"
MODES="podman layer layer-rw layer-eng layer-nh layer-x hooks0 hooks1 catatonit"
EVENTS=sched:sched_process_exec,sched:sched_process_fork,sched:sched_process_exit,syscalls:sys_enter_exit_group,syscalls:sys_enter_seccomp

bench_args "$@"
bench_need runc crun podman jq catatonit perf python3
case "$(perf list 'sched:sched_process_exec' 2>/dev/null)" in
*sched_process_exec*) ;;
*) die "perf sees no tracepoints (is tracefs mounted?)" ;;
esac
bench_begin
start_bundles
mkdir -p "$T/trace" || die "cannot make $T/trace"
: >"$T/empty"

# trace_run RUNTIME MODE OUT: one start, recorded into OUT as perf script's text.
trace_run() {
        local rt=$1 m=$2 out=$3 id rc
        bench_fresh_config "$T/$m"
        id=$(tsync_unique_id "trace-$m")
        _tsync_register "$rt" "$id"
        # shellcheck disable=SC2016 # crun's $1 and $2 are the inner sh's
        case "$rt" in
        # The first program writes its pid, which the runtime's exec keeps: the trace is system-wide,
        # and start_phases.py counts only that process and what descends from it.
        runc) perf record -q -o "$T/perf.data" -a -e "$EVENTS" -- sh -c 'echo $$ >"$0" && exec "$@"' "$out.pid" \
                runc run --bundle "$T/$m" "$id" <"$T/empty" >"$T/run.out" 2>"$T/run.err" ;;
        crun) perf record -q -o "$T/perf.data" -a -e "$EVENTS" -- sh -c 'echo $$ >"$0" && exec "$@"' "$out.pid" \
                unshare -m --propagation private -- sh -c \
                'mount -t cgroup2 none /sys/fs/cgroup && exec crun --cgroup-manager=disabled run --bundle "$1" "$2"' \
                sh "$T/$m" "$id" <"$T/empty" >"$T/run.out" 2>"$T/run.err" ;;
        esac
        rc=$?
        _tsync_remove_container "$rt" "$id"
        _tsync_unregister "$rt" "$id"
        [ "$rc" -eq 0 ] || die "$rt run $m failed ($rc): $(tail -n 3 "$T/run.err")"
        perf script -i "$T/perf.data" -F comm,pid,tid,cpu,time,event,trace >"$out" 2>/dev/null ||
                die "perf script failed"
}

mapfile -t pairs < <(start_pairs)
n=${#pairs[@]}
for ((round = -1; round < ROUNDS; round++)); do
        [ $((round % 5)) -ne 0 ] || progress "round $round of $ROUNDS"
        for ((k = 0; k < n; k++)); do
                read -r rt m <<<"${pairs[$(((k + round + 1) % n))]}"
                if [ "$round" -lt 0 ]; then
                        trace_run "$rt" "$m" "$T/trace/warmup.txt"
                else
                        trace_run "$rt" "$m" "$T/trace/$rt-$m.$round.txt"
                fi
        done
done

echo "container start traced: 'RUNTIME run' of sh -c : with Podman's config (busybox rootfs), $ROUNDS rounds"
echo "host: $(nproc) CPUs, kernel $(uname -r), runc $(runc --version | sed -n 's/^runc version //p'), $(crun --version | head -n 1)"
for rt in $RUNTIMES; do
        echo
        # shellcheck disable=SC2086 # MODES is a list
        python3 "$TSYNC_TOP/tests/tools/start_phases.py" "$T/trace" "$rt" $MODES
done
echo
echo "exec->end: from the exec of PID 1's program to the runtime's exit (poststop included, createRuntime"
echo "not); hook0/hook1: createRuntime and poststop, exec to exit; +hooks: exec->end plus createRuntime."
echo "Our own part with capabilities lent: +hooks of layer (inject's bundle: its views exchanged),"
echo "layer-rw (the same without views: config.json rewritten and synced) or layer-eng (an engine's"
echo "config: createRuntime alone, unsynced) minus that of two trivial hooks (hooks0) or one (hooks1),"
echo "against catatonit's (+hooks of catatonit minus podman's)."
