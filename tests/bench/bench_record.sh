#!/bin/bash
# tests/bench/bench_record.sh [-n N]: what recording costs (issue 13), as figures only.
#
#   1. A system call: record_probe makes 200000 getppid calls in one process under the init with
#      an allow-all filter, without and with --record. With it every call goes to the recorder
#      thread and back (CONTINUE); only the first is written. The difference per call is the
#      notification's round trip.
#   2. Workloads: the init running busybox `sh -c 'ls /; cat /etc/hostname; sleep 0.1'` and a
#      syscall-heavy `find /usr/share -maxdepth 3` (stat and getdents), without and with
#      --record, ROUNDS times each, interleaved; medians, and the recording's share.
#   3. A start: the init running /bin/true without and with --record (the recorder thread, the
#      file's open and magic, the recording filter's load). Without --record the init starts no
#      recorder and loads no recording filter: the cost is zero by construction, and the first
#      column is the init as it was before recording existed.
#
# Runs the init directly (as a subreaper, not in a container), as root. Asserts no timing.
set -uo pipefail
# shellcheck source=tests/bench/benchlib.sh
. "$(dirname "$0")/benchlib.sh"

PROBE=$TSYNC_BUILD/tests/static/record_probe
BUSYBOX=${TSYNC_BUSYBOX:-/bin/busybox}
ROUNDS=20
bench_args "$@"
tsync_need_built "$OCI" "$INIT" "$PROBE"
[ -x "$BUSYBOX" ] || {
        echo "bench_record.sh: $BUSYBOX is missing (busybox-static)" >&2
        exit 1
}
bench_tmp

echo '{"defaultAction": "SCMP_ACT_ALLOW"}' >"$T/allow.json"
"$OCI" compile -O tsync "$T/allow.json" -o "$T/allow.bpf" || exit 1
# Every call to the listener, as the host writes the recording filter.
python3 "$TOP/tests/tools/filter_file.py" --listener 3 "$T/rec.bpf" 0x06,0,0,0x7fc00000 || exit 1

run() { timeout 120 "$INIT" "$@" 2>"$T/err"; }
plain() { run -f "$T/allow.bpf" -- "$@"; }
recorded() { run -f "$T/allow.bpf" -f "$T/rec.bpf" --record "$T/calls" -- "$@"; }

echo "== 1. getppid, 200000 calls in one process"
p=$(plain "$PROBE" loop 200000 getppid)
r=$(recorded "$PROBE" loop 200000 getppid)
echo "  without recording: $p"
echo "  with recording:    $r"
pn=$(sed -n 's/.*ns_per_call=\([0-9]*\).*/\1/p' <<<"$p")
rn=$(sed -n 's/.*ns_per_call=\([0-9]*\).*/\1/p' <<<"$r")
if [ -n "$pn" ] && [ -n "$rn" ] && [ "$pn" -gt 0 ]; then
        echo "  the recorder's round trip: about $((rn - pn)) ns per call ($(awk -v a="$rn" -v b="$pn" \
                'BEGIN { printf "%.0f", a / b }')x the plain call)"
fi
echo "  recorded lines: $(($(wc -l <"$T/calls") - 1))"

# us ARGS...: wall-clock microseconds of one init run.
us() {
        local a b
        a=$(date +%s%N)
        "$@" >/dev/null
        b=$(date +%s%N)
        echo $(((b - a) / 1000))
}
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# compare NAME CMD...: CMD under plain and recorded, ROUNDS times each, interleaved.
compare() {
        local name=$1 mp mr
        shift
        : >"$T/p" && : >"$T/r"
        for _ in $(seq "$ROUNDS"); do
                us plain "$@" >>"$T/p"
                us recorded "$@" >>"$T/r"
        done
        mp=$(median "$T/p")
        mr=$(median "$T/r")
        echo "  $name: median $mp us without, $mr us with recording: +$((mr - mp)) us" \
                "($(awk -v a="$mr" -v b="$mp" 'BEGIN { printf "%+.0f%%", (a - b) * 100 / b }'))," \
                "$(($(wc -l <"$T/calls") - 1)) pairs recorded"
}

echo "== 2. workloads, $ROUNDS runs each, interleaved"
compare "busybox sh -c 'ls /; cat /etc/hostname; sleep 0.1'" "$BUSYBOX" sh -c 'ls / >/dev/null; cat /etc/hostname; sleep 0.1'
compare "busybox find /usr/share -maxdepth 3" "$BUSYBOX" find /usr/share -maxdepth 3
echo "  (find's system calls: $(strace -f -c -o "$T/strace" "$BUSYBOX" find /usr/share -maxdepth 3 >/dev/null 2>&1 &&
        awk '$NF == "total" { print $(NF - 2) }' "$T/strace"))"

echo "== 3. a start (init + /bin/true), $ROUNDS runs each, interleaved"
compare "/bin/true" /bin/true
