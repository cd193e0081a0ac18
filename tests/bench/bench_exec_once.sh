#!/bin/bash
# tests/bench/bench_exec_once.sh [-n N]: what exec once costs (issue 12), as figures only.
#
#   1. The exec-once filter itself: its length, and the instructions it executes per system call
#      over the x86_64, x32 and i386 grid (seccomp_diff's mean and max): what every call other
#      than execve/execveat pays for it, next to the same for an allow-all filter.
#   2. A refused execve: exec_probe makes 2000 execve calls in one process under the init, each
#      failing. Without exec once the path does not exist (ENOENT from the kernel's lookup);
#      with it the same call goes to the supervisor and back (EPERM, before any lookup). The
#      difference is the notification's round trip.
#   3. A start: the init running /bin/true with an allow-all filter, and with it plus the exec-once
#      filter (a supervisor thread more, one execve through the listener), ROUNDS times each,
#      interleaved; medians.
#
# Runs the init directly (as a subreaper, not in a container), as root. Asserts no timing.
set -uo pipefail
# shellcheck source=tests/bench/benchlib.sh
. "$(dirname "$0")/benchlib.sh"

PROBE=$TSYNC_BUILD/tests/static/exec_probe
DIFF=$TSYNC_TOOLS/seccomp_diff
ROUNDS=30
bench_args "$@"
tsync_need_built "$OCI" "$INIT" "$PROBE" "$DIFF"
bench_tmp

# The exec-once filter as inject writes it: the --filter-data after --exec-once's errno.
make_bundle "$T/b" /bin/true >/dev/null || exit 1
"$OCI" inject --no-cache --exec-once "$T/b" || exit 1
jq -r '.process.args as $a | [range(0; $a | length) | select($a[.] == "--filter-data") | $a[. + 1]] | last' \
        "$T/b/config.json" | base64 -d >"$T/exec-once.bpf" || exit 1
# The same ABIs as the exec-once filter (on x86_64), so that only the exec rules differ.
echo '{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"]}' \
        >"$T/allow.json"
"$OCI" compile -O tsync "$T/allow.json" -o "$T/allow.bpf" || exit 1
tail -c +33 "$T/exec-once.bpf" >"$T/exec-once.raw"
tail -c +33 "$T/allow.bpf" >"$T/allow.raw"

echo "== 1. instructions per system call (x86_64, x32, i386 grid; seccomp_diff)"
"$DIFF" "$T/exec-once.raw" "$T/allow.raw" >"$T/diff.out" 2>&1
grep -E '^[AB]: ' "$T/diff.out" | sed -e 's/^A:/  exec-once filter:/' -e 's/^B:/  allow-all filter:/'
echo "  answered differently: $(grep -c 'A=' "$T/diff.out") (arch, nr, args) inputs (execve and execveat of each ABI)"

echo "== 2. a refused execve, 2000 in one process"
# Without CAP_SYS_PTRACE (the init refuses it beside --exec-once), for both runs alike.
run() { timeout 60 "$INIT" --bounding none --permitted none --effective none "$@" 2>/dev/null; }
plain=$(run -f "$T/allow.bpf" -- "$PROBE" loop 2000 /nonexistent)
once=$(run --exec-once 1 -f "$T/allow.bpf" -f "$T/exec-once.bpf" -- "$PROBE" loop 2000 /bin/true)
echo "  without exec once (ENOENT from the kernel): $plain"
echo "  with exec once (EPERM from the supervisor):  $once"
p=$(sed -n 's/.*ns_per_call=\([0-9]*\).*/\1/p' <<<"$plain")
o=$(sed -n 's/.*ns_per_call=\([0-9]*\).*/\1/p' <<<"$once")
[ -n "$p" ] && [ -n "$o" ] && echo "  the supervisor's round trip: about $(((o - p) / 1000)) us per refused exec"

echo "== 3. a start (init + /bin/true), $ROUNDS runs each, interleaved"
ms() { # ms ARGS...: wall-clock milliseconds of one init run
        local a b
        a=$(date +%s%N)
        run "$@" -- /bin/true
        b=$(date +%s%N)
        echo $(((b - a) / 1000))
}
: >"$T/plain" && : >"$T/once"
for _ in $(seq "$ROUNDS"); do
        ms -f "$T/allow.bpf" >>"$T/plain"
        ms --exec-once 1 -f "$T/allow.bpf" -f "$T/exec-once.bpf" >>"$T/once"
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mp=$(median "$T/plain")
mo=$(median "$T/once")
echo "  allow-all filter:              median $mp us"
echo "  plus exec once:                median $mo us"
echo "  exec once's share of a start:  $((mo - mp)) us (supervisor thread, listener, one supervised execve)"
