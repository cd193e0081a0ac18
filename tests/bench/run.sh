#!/bin/bash
# tests/bench/run.sh [-n N]: the translator benchmark on this machine, as one table.
#
#   1. A real `podman run` gives the config.json of Podman's default profile
#      (tests/integration/capture_podman_config.sh).
#   2. bench_compile times parse, cold compile and the cache on that config
#      (OCI form) and on /usr/share/containers/seccomp.json with the config's
#      bounding capabilities (Docker form, what Podman itself translates).
#   3. runc runs a container under the same config; the filter the kernel
#      holds for it is read back (capture_runc_filter) and seccomp_diff
#      simulates ours and runc's over every (arch, nr) of x86_64, x32 and i386:
#      instructions executed per syscall, mean and max, and any difference.
#   4. Context only: `runc run` of that config with and without linux.seccomp,
#      interleaved; the difference of the medians is what runc spends building
#      and loading its filter (libseccomp-golang + libseccomp, in runc init).
#
# Prints figures; asserts no timing (exit 0 unless a step fails). Needs root,
# podman, runc, jq, busybox-static and a build (`scons`). Takes about a minute.
# -n N: iterations per bench_compile phase (default 50); runc runs 2 x RUNC_RUNS
# (env, default 20) after one warm-up pair.
set -uo pipefail
# shellcheck source=tests/bench/benchlib.sh
. "$(dirname "$0")/benchlib.sh"

BENCH=$TSYNC_BUILD/tests/bench/bench_compile
DIFF=$TSYNC_TOOLS/seccomp_diff
DOCKER_PROFILE=/usr/share/containers/seccomp.json
ROUNDS=50
WARMUP=3
RUNC_RUNS=${RUNC_RUNS:-20}

bench_args "$@"
ITER=$ROUNDS

for f in "$OCI" "$BENCH" "$DIFF" "$TSYNC_TOOLS/seccomp_get_filter"; do
        [ -x "$f" ] || die "$f is not built (run scons)"
done
[ -r "$DOCKER_PROFILE" ] || die "$DOCKER_PROFILE is missing (apt-get install golang-github-containers-common)"
[ "$(id -u)" -eq 0 ] || die "needs root (podman and runc run real containers)"

bench_tmp

# --- 1. Podman's config ---------------------------------------------------
progress "capturing the config.json of a real podman run"
bash "$TOP/tests/integration/capture_podman_config.sh" "$T/podman.json" >"$T/capture.log" 2>&1 ||
        die "capture_podman_config.sh failed: $(tail -n 3 "$T/capture.log")"
CONFIG=$T/podman.json

# --- 2. compile times -----------------------------------------------------
# The bench's cache directories go under $T too, so nothing is left behind.
progress "bench_compile: config.json (OCI form), $ITER iterations"
"$BENCH" -n "$ITER" -w "$WARMUP" --tmp-dir "$T" --tsv "$CONFIG" >"$T/oci.tsv" 2>"$T/oci.err" ||
        die "bench_compile $CONFIG failed: $(cat "$T/oci.err")"
progress "bench_compile: $DOCKER_PROFILE with the config's capabilities, $ITER iterations"
"$BENCH" -n "$ITER" -w "$WARMUP" --tmp-dir "$T" --tsv --config "$CONFIG" "$DOCKER_PROFILE" \
        >"$T/docker.tsv" 2>"$T/docker.err" || die "bench_compile $DOCKER_PROFILE failed: $(cat "$T/docker.err")"

# --- 3. the filter runc installs, and instructions per syscall ---------------
progress "capturing the filter runc installs for the same config"
count=$(capture_runc_filter "$CONFIG" "$T/runc") || die "capture_runc_filter failed"
[ "$count" = 1 ] || die "runc's container holds $count filters, expected 1"
RUNC_BPF=$T/runc/filter.0.bpf

"$OCI" compile "$CONFIG" -o "$T/ours-oci.bpf" 2>"$T/compile.err" ||
        die "oci-seccomp-tsync compile $CONFIG failed: $(cat "$T/compile.err")"
"$OCI" compile --config "$CONFIG" "$DOCKER_PROFILE" -o "$T/ours-docker.bpf" 2>"$T/compile.err" ||
        die "oci-seccomp-tsync compile $DOCKER_PROFILE failed: $(cat "$T/compile.err")"

progress "seccomp_diff: ours against runc's over x86_64, x32 and i386"
for form in oci docker; do
        "$DIFF" "$T/ours-$form.bpf" "$RUNC_BPF" >"$T/diff-$form.out" 2>&1
        rc=$?
        [ "$rc" -le 1 ] || die "seccomp_diff failed: $(tail -n 3 "$T/diff-$form.out")"
done

# --- 4. runc's own compile, as context ---------------------------------------
progress "runc run with and without linux.seccomp, $RUNC_RUNS each, interleaved"
tsync_bundle_from_config "$CONFIG" "$T/with" || die "cannot make a bundle from $CONFIG"
tsync_json_edit "$T/with/config.json" '.process.args = ["sh", "-c", ":"]' || exit 1
mkdir -p "$T/without" || exit 1
cp -a "$T/with/rootfs" "$T/without/" || die "cannot copy the rootfs"
jq 'del(.linux.seccomp)' "$T/with/config.json" >"$T/without/config.json" || die "jq failed"

: >"$T/with.ms"
: >"$T/without.ms"
for i in $(seq 0 "$RUNC_RUNS"); do
        # Alternate which goes first, so a slow drift hits both alike.
        if [ $((i % 2)) -eq 0 ]; then order="with without"; else order="without with"; fi
        for b in $order; do
                ms=$(bench_time_run runc "$T/$b" runc) || exit 1
                [ "$i" -eq 0 ] || echo "$ms" >>"$T/$b.ms" # pair 0 warms the page cache
        done
done

# --- the table ----------------------------------------------------------------
# tsv_get FILE KEY: the value of "KEY<TAB>value".
tsv_get() {
        awk -F '\t' -v k="$2" '$1 == k { print $2; exit }' "$1"
}
# phase FILE NAME: "median / p90 / min" of one bench_compile phase.
phase() {
        awk -F '\t' -v k="$2" '$1 == "phase" && $2 == k { printf "%.3f / %.3f / %.3f", $3, $4, $5; exit }' "$1"
}
# insns FILE.out A|B FIELD: from seccomp_diff's "A: path: N instructions; executed ...: mean M max X; x86_64 mean ..."
insns() {
        local line
        line=$(grep "^$2: " "$1") || return 1
        case "$3" in
        len) sed -n 's/^.: [^:]*: \([0-9]*\) instructions;.*/\1/p' <<<"$line" ;;
        all) sed -n 's/.*(arch, nr): mean \([0-9.]*\) max \([0-9]*\);.*/\1 \/ \2/p' <<<"$line" ;;
        *) sed -n "s/.*; $3 mean \([0-9.]*\) max \([0-9]*\).*/\1 \/ \2/p" <<<"$line" ;;
        esac
}
diffs() {
        sed -n 's/.*: \([0-9]*\) differences, \([0-9]*\) allowed, \([0-9]*\) failing$/\1/p' "$1"
}
# stats FILE: "median p25 p75 min" of one number a line.
stats() {
        sort -n "$1" | awk '{ v[NR] = $1 }
                function q(p,  i) { i = int(p * (NR - 1)) + 1; return v[i] + (p * (NR - 1) + 1 - i) * (v[i + 1 < NR ? i + 1 : NR] - v[i]) }
                END { printf "%.1f %.1f %.1f %.1f\n", q(0.5), q(0.25), q(0.75), v[1] }'
}

read -r w_med w_p25 w_p75 w_min < <(stats "$T/with.ms")
read -r o_med o_p25 o_p75 o_min < <(stats "$T/without.ms")
runc_cost=$(awk -v a="$w_med" -v b="$o_med" 'BEGIN { printf "%.1f", a - b }')
n_rules=$(jq '.linux.seccomp.syscalls | length' "$CONFIG")
n_names=$(jq '[.linux.seccomp.syscalls[].names[]] | length' "$CONFIG")
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
lsv=$(pkg-config --modversion libseccomp 2>/dev/null || echo '?')
runcv=$(runc --version | sed -n 's/^runc version //p')
kib_to_mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

W=40 C=26
row() { printf "%-${W}s %-${C}s %-${C}s %s\n" "$1" "$2" "$3" "$4"; }

echo "oci-seccomp-tsync translator benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "host: ${cpu:-?}, $(nproc) CPUs, kernel $(uname -r), libseccomp $lsv, runc $runcv"
echo "profile: Podman's default, from a real 'podman run' ($n_rules rules, $n_names names in config.json);"
echo "         $DOCKER_PROFILE judged against that config's bounding set ($(tsv_get "$T/docker.tsv" caps))"
echo
row "" "ours: config.json" "ours: seccomp.json" "runc (same config)"
row "" "(OCI linux.seccomp)" "+ Podman's caps" ""
row "compile, ms: median / p90 / min" "($ITER runs, $WARMUP warm-up)" "" ""
row "  parse" "$(phase "$T/oci.tsv" parse)" "$(phase "$T/docker.tsv" parse)" "-"
row "  compile (profile already parsed)" "$(phase "$T/oci.tsv" compile)" "$(phase "$T/docker.tsv" compile)" "-"
row "  parse+compile, cold (no cache)" "$(phase "$T/oci.tsv" "parse+compile (cold)")" \
        "$(phase "$T/docker.tsv" "parse+compile (cold)")" "$runc_cost (*)"
row "  cache miss+store (incl. fsync)" "$(phase "$T/oci.tsv" "cache miss+store")" \
        "$(phase "$T/docker.tsv" "cache miss+store")" "-"
row "  cache hit (key + load + decode)" "$(phase "$T/oci.tsv" "cache hit")" "$(phase "$T/docker.tsv" "cache hit")" "-"
row "  parse+cache hit" "$(phase "$T/oci.tsv" "parse+cache hit")" "$(phase "$T/docker.tsv" "parse+cache hit")" "-"
row "peak RSS of bench_compile, MiB" "$(kib_to_mib "$(tsv_get "$T/oci.tsv" rss_peak_kib)")" \
        "$(kib_to_mib "$(tsv_get "$T/docker.tsv" rss_peak_kib)")" "-"
row "program length, instructions" "$(insns "$T/diff-oci.out" A len)" "$(insns "$T/diff-docker.out" A len)" \
        "$(insns "$T/diff-oci.out" B len)"
row "insns executed per syscall: mean / max" "" "" ""
row "  all ABIs (3 x 1024 (arch, nr))" "$(insns "$T/diff-oci.out" A all)" "$(insns "$T/diff-docker.out" A all)" \
        "$(insns "$T/diff-oci.out" B all)"
for abi in x86_64 x32 i386; do
        row "  $abi" "$(insns "$T/diff-oci.out" A "$abi")" "$(insns "$T/diff-docker.out" A "$abi")" \
                "$(insns "$T/diff-oci.out" B "$abi")"
done
row "differences from runc's filter" "$(diffs "$T/diff-oci.out")" "$(diffs "$T/diff-docker.out")" "-"
echo
echo "Instructions: seccomp_diff simulates each program on every syscall number 0..1023 of x86_64, x32 and i386"
echo "with zero arguments (a property of the program, not a timing). runc's program is the one the kernel held"
echo "for a runc container under this config, read back with PTRACE_SECCOMP_GET_FILTER."
echo "(*) Context, not a like-for-like figure: median 'runc run' of this config (sh -c :) with linux.seccomp"
echo "    minus without it, $RUNC_RUNS runs each, interleaved: $w_med - $o_med ms. With: median $w_med,"
echo "    IQR $w_p25..$w_p75, min $w_min; without: median $o_med, IQR $o_p25..$o_p75, min $o_min. It includes"
echo "    runc building the filter (libseccomp-golang + libseccomp), loading it, and the workload running under it."
