#!/bin/bash
# tests/bench/bench_init_size.sh [-n N]: seccomp-tsync-init against the other
# container inits (catatonit, tini, tini-static): file size, stripped size, and
# the memory each takes as PID 1 of a fresh PID namespace.
#
# Memory, two figures, each the median of N runs (default 5):
#   PID 1 peak RSS  VmHWM of PID 1 read from /proc/1/status by the workload
#                   (busybox sh), i.e. the init's own high-water mark once it
#                   has set up and started the workload (it only waits after).
#   tree max RSS    GNU time's %M around `unshare --pid --fork --mount-proc
#                   INIT -- true`: the largest maxrss among unshare, the init
#                   and /bin/true (the kernel folds reaped children's maxrss
#                   into their parent's), so mostly unshare's or true's.
# Our init runs with the deny-ptrace profile compiled with `-O tsync` and
# --allow-nnp, so its figures include reading, checking, loading and verifying
# a filter. A dynamically linked init's RSS includes the shared libc pages it
# maps. Prints figures; asserts nothing. Needs root and a build (`scons`).
set -uo pipefail
# shellcheck source=tests/bench/benchlib.sh
. "$(dirname "$0")/benchlib.sh"

GNU_TIME=/usr/bin/time
ROUNDS=5

bench_args "$@"
bench_need unshare
_tsync_is_static "$TSYNC_BUSYBOX" || die "$TSYNC_BUSYBOX is not busybox-static"
"$GNU_TIME" -f %M true >/dev/null 2>&1 || die "GNU time is missing (apt-get install time)"

bench_tmp

"$OCI" compile -O tsync "$TOP/configs/profiles/deny-ptrace.json" -o "$T/filter.bpf" 2>"$T/compile.err" ||
        die "compile failed: $(cat "$T/compile.err")"

# name|path|arguments before the workload
inits=("seccomp-tsync-init|$INIT|--allow-nnp --filter $T/filter.bpf --")
for c in /usr/bin/catatonit /usr/libexec/podman/catatonit; do
        if [ -x "$c" ]; then
                inits+=("catatonit|$c|--")
                break
        fi
done
[ -x /usr/bin/tini ] && inits+=("tini|/usr/bin/tini|--")
[ -x /usr/bin/tini-static ] && inits+=("tini-static|/usr/bin/tini-static|--")

median() {
        sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
                                             else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

linkage() {
        case "$(LC_ALL=C file -L "$1")" in
        *"statically linked"* | *"static-pie linked"*) echo static ;;
        *"dynamically linked"*) echo dynamic ;;
        *) echo "?" ;;
        esac
}

printf '%-20s %-8s %12s %14s %16s %16s\n' "init" "linking" "file bytes" "stripped bytes" "PID 1 peak KiB" "tree max KiB"
for entry in "${inits[@]}"; do
        IFS='|' read -r name path args <<<"$entry"
        size=$(stat -L -c %s "$path")
        strip -o "$T/stripped" "$path" 2>/dev/null && stripped=$(stat -c %s "$T/stripped") || stripped="?"
        : >"$T/hwm"
        : >"$T/tree"
        for _ in $(seq "$ROUNDS"); do
                # shellcheck disable=SC2086 # $args is a word list
                out=$(unshare --pid --fork --mount-proc "$path" $args "$TSYNC_BUSYBOX" sh -c \
                        'sed -n "s/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p" /proc/1/status' 2>"$T/err") ||
                        die "$name as PID 1 failed: $(tail -n 3 "$T/err")"
                [ -n "$out" ] || die "$name: no VmHWM for PID 1"
                echo "$out" >>"$T/hwm"
                # shellcheck disable=SC2086
                "$GNU_TIME" -o "$T/time.out" -f %M unshare --pid --fork --mount-proc "$path" $args /bin/true \
                        2>"$T/err" || die "$name running true failed: $(tail -n 3 "$T/err")"
                tail -n 1 "$T/time.out" >>"$T/tree"
        done
        printf '%-20s %-8s %12s %14s %16s %16s\n' "$name" "$(linkage "$path")" "$size" "$stripped" \
                "$(median <"$T/hwm")" "$(median <"$T/tree")"
done
echo
echo "PID 1 peak: VmHWM of PID 1 as its workload (busybox sh) sees it; median of $ROUNDS runs."
echo "tree max: GNU time %M of 'unshare --pid --fork --mount-proc INIT -- /bin/true' (max over the"
echo "process tree, dominated by unshare or true; context only); median of $ROUNDS runs."
echo "seccomp-tsync-init runs with --allow-nnp --filter (deny-ptrace.json, compiled -O tsync)."
