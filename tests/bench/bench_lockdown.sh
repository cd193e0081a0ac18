#!/bin/bash
# tests/bench/bench_lockdown.sh [-n N]: what `oci-seccomp-tsync lockdown` costs on a running runc
# container of 1, 10 and 100 processes x 10 threads (lockdown_probe -i: every thread asleep).
# For each size one container; N rounds (default 5) of `lockdown --profile deny-mkdir.json`
# on it (each round adds one more filter). Per round:
#   wall    the whole command (compile cache warm: a first, untimed round fills it)
#   held    from the freeze to the last detach, as the command reports it: the workload runs
#           nothing during it (its tasks are frozen, then held in ptrace stops)
#   cgroup  of which the cgroup itself was frozen (the freeze until every task is seized)
# Prints figures (ms, median p25 p75); asserts no timing. Needs root, runc, jq,
# busybox-static and a build (`scons`).
set -uo pipefail
# shellcheck source=tests/bench/benchlib.sh
. "$(dirname "$0")/benchlib.sh"

ROUNDS=5
SIZES="1 10 100"
PROBE=$TSYNC_BUILD/tests/static/lockdown_probe
BENCH_NAME=bench_lockdown

bench_args "$@"
bench_need runc jq
[ -x "$PROBE" ] || die "$PROBE is not built (run scons)"
if nm "$OCI" 2>/dev/null | grep -q ' __asan_init'; then
        progress "WARNING: $OCI is built with sanitizers; its figures include ASan"
fi
tsync_test_begin || exit 1
trap tsync_test_end EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
T=$TSYNC_TMP

# tasks PID: the live tasks of PID's pid namespace.
tasks() {
        local ns p n=0
        ns=$(readlink "/proc/$1/ns/pid")
        for p in /proc/[0-9]*; do
                [ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$ns" ] && n=$((n + $(find "$p/task" -mindepth 1 -maxdepth 1 | wc -l)))
        done
        echo "$n"
}

printf '%-12s %7s %22s %22s %22s\n' "procs x thr" tasks "wall ms (p25 p75)" "held ms (p25 p75)" \
        "cgroup ms (p25 p75)"
for n in $SIZES; do
        id=$(tsync_unique_id lockbench)
        rm -rf "$T/b"
        make_rootfs "$T/b/rootfs" "$PROBE" || die "rootfs"
        make_bundle "$T/b" /bin/lockdown_probe -i -p "$n" -t 10 || die "bundle"
        tsync_json_edit "$T/b/config.json" '.process.noNewPrivileges = true | del(.linux.seccomp)' || die "config"
        start_runc "$id" "$T/b" || die "runc run"
        pid=$(runc_pid "$id") || die "no pid"
        for _ in $(seq 1 100); do
                [ "$(tasks "$pid")" -ge $((n * 10)) ] && break
                sleep 0.1
        done
        ntasks=$(tasks "$pid")
        : >"$T/wall" && : >"$T/held" && : >"$T/cgroup"
        for r in $(seq 0 "$ROUNDS"); do
                t0=$(date +%s%N)
                "$OCI" lockdown --cache-dir "$T/cache" --profile "$PROFILES/deny-mkdir.json" "$id" \
                        >"$T/out" 2>"$T/err" || die "lockdown of $n x 10: $(cat "$T/err")"
                t1=$(date +%s%N)
                [ "$r" -eq 0 ] && continue # warm-up: fills the compile cache
                echo $(((t1 - t0) / 1000)) | awk '{ print $1 / 1000 }' >>"$T/wall"
                sed -n 's/.*held \([0-9]*\) us (cgroup frozen \([0-9]*\) us).*/\1 \2/p' "$T/out" >"$T/fig"
                [ -s "$T/fig" ] || die "no figures in: $(cat "$T/out")"
                awk '{ print $1 / 1000 }' "$T/fig" >>"$T/held"
                awk '{ print $2 / 1000 }' "$T/fig" >>"$T/cgroup"
        done
        printf '%-12s %7s %22s %22s %22s\n' "$n x 10" "$ntasks" "$(stats "$T/wall")" "$(stats "$T/held")" \
                "$(stats "$T/cgroup")"
        # lockdown's record of this container (its PID 1's pid and start time), then its directory
        # once empty: never anyone else's.
        rm -f "/run/oci-seccomp-tsync/lockdown/$pid-$(sed 's/.*) //' "/proc/$pid/stat" | awk '{print $20}').json"
        stop_runc "$id"
        rmdir /run/oci-seccomp-tsync/lockdown 2>/dev/null
done
