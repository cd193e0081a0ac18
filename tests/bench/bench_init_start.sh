#!/bin/bash
# tests/bench/bench_init_start.sh [-n N]: what our init costs as PID 1, against
# catatonit (what `podman run --init` puts there), without a runtime around it.
#
# A container start under runc or crun takes 50-70 ms here and varies by
# several ms from run to run, while an init in front of the workload adds one
# or two: bench_start.sh's ratios between such small differences of medians
# swing from run to run. This isolates the part that is the init's own: each
# mode is `unshare -fp --mount-proc [INIT] EMPTY` (a fresh PID namespace, so the init is PID
# 1 as in a container; EMPTY is a static program that returns 0), run B times
# in a batch; a round runs one batch of every mode, in an order rotated from
# round to round, and what is compared is the difference to the bare batch of
# the same round (paired, so a slow stretch of the shared machine hits both
# sides of a difference alike). Modes:
#   bare       EMPTY as PID 1
#   catatonit  catatonit -- EMPTY
#   layer      our init with a small layer (deny-mkdir.json) in its arguments,
#              NO_NEW_PRIVS set, workload forked and supervised (the default)
#   layer-x    the same with --exec (the workload replaces the init)
#   podman     our init with Podman's whole default profile in its arguments
#              (what replace mode carries), supervised
# Prints figures (ms per start, median over rounds of the per-round mean
# difference to bare, with p25..p75); asserts nothing. Needs root, catatonit,
# gcc, unshare and a build.
set -uo pipefail
# shellcheck source=tests/bench/benchlib.sh
. "$(dirname "$0")/benchlib.sh"

ROUNDS=20
BATCH=${BENCH_BATCH:-25}
MODES="bare catatonit layer layer-x podman"
# Podman 4.3's default capabilities (containers.conf), for the Docker-format profile's includes.
PODMAN_CAPS=CAP_CHOWN,CAP_DAC_OVERRIDE,CAP_FOWNER,CAP_FSETID,CAP_KILL,CAP_NET_BIND_SERVICE,CAP_SETFCAP,CAP_SETGID,CAP_SETPCAP,CAP_SETUID,CAP_SYS_CHROOT

bench_args "$@"
bench_need catatonit gcc unshare
bench_tmp

printf 'int main(void) { return 0; }\n' >"$T/empty.c"
gcc -O2 -static -o "$T/empty" "$T/empty.c" || die "cannot build a static empty program"
"$OCI" compile -O tsync -o "$T/layer.bpf" "$PROFILES/deny-mkdir.json" 2>"$T/err" ||
        die "compile deny-mkdir.json: $(cat "$T/err")"
"$OCI" compile -O tsync -f docker --caps "$PODMAN_CAPS" -o "$T/podman.bpf" /usr/share/containers/seccomp.json 2>"$T/err" ||
        die "compile Podman's profile: $(cat "$T/err")"
LAYER=$(base64 -w0 "$T/layer.bpf")
PODMAN=$(base64 -w0 "$T/podman.bpf")
CATATONIT=$(command -v catatonit)

# cmd_of MODE: the words after `unshare -fp`.
cmd_of() {
        case "$1" in
        bare) echo "$T/empty" ;;
        catatonit) echo "$CATATONIT -- $T/empty" ;;
        layer) echo "$INIT --no-new-privs --filter-data $LAYER -- $T/empty" ;;
        layer-x) echo "$INIT --no-new-privs --exec --filter-data $LAYER -- $T/empty" ;;
        podman) echo "$INIT --no-new-privs --filter-data $PODMAN -- $T/empty" ;;
        esac
}

declare -A CMD
for m in $MODES; do
        CMD[$m]=$(cmd_of "$m")
        # shellcheck disable=SC2086 # the words are ours, without spaces inside
        unshare -fp --mount-proc ${CMD[$m]} 2>"$T/err" || die "$m does not run: $(cat "$T/err")"
        : >"$T/$m.ms"
done

# batch MODE: mean ms of one start over BATCH runs.
batch() {
        local i t0 t1
        t0=$EPOCHREALTIME
        for ((i = 0; i < BATCH; i++)); do
                # shellcheck disable=SC2086
                unshare -fp --mount-proc ${CMD[$1]} || return 1
        done
        t1=$EPOCHREALTIME
        bench_ms "$t0" "$t1" "$BATCH"
}

read -r -a modes <<<"$MODES"
nm=${#modes[@]}
progress "$ROUNDS rounds of $nm batches of $BATCH starts (after one warm-up round)"
for round in $(seq 0 "$ROUNDS"); do
        declare -A R=()
        for k in $(seq 0 $((nm - 1))); do
                m=${modes[$(((k + round) % nm))]}
                R[$m]=$(batch "$m") || die "$m failed in round $round"
        done
        [ "$round" -eq 0 ] && continue
        for m in $MODES; do
                awk -v a="${R[$m]}" -v b="${R[bare]}" 'BEGIN { printf "%.4f\n", a - b }' >>"$T/$m.ms"
        done
        echo "${R[bare]}" >>"$T/bare-abs.ms"
done

# stats3 FILE: "median p25 p75" with two decimals (stats rounds to one).
stats3() {
        sort -n "$1" | awk '{ v[NR] = $1 }
                function q(p,  i) { i = int(p * (NR - 1)) + 1; return v[i] + (p * (NR - 1) + 1 - i) * (v[i + 1 < NR ? i + 1 : NR] - v[i]) }
                END { printf "%.2f %.2f %.2f\n", q(0.5), q(0.25), q(0.75) }'
}

echo "PID 1 in front of a static empty workload, outside any runtime: 'unshare -fp --mount-proc [INIT] EMPTY'"
echo "host: $(nproc) CPUs, kernel $(uname -r); $ROUNDS rounds x $BATCH starts per mode, paired with bare per round"
read -r bmed _ _ < <(stats3 "$T/bare-abs.ms")
echo "bare start (EMPTY as PID 1): $bmed ms"
echo
printf '%-10s %12s %16s %14s\n' mode "added, ms" "IQR (p25..p75)" "x catatonit"
read -r cmed _ _ < <(stats3 "$T/catatonit.ms")
for m in $MODES; do
        [ "$m" = bare ] && continue
        read -r med p25 p75 < <(stats3 "$T/$m.ms")
        ratio=$(awk -v a="$med" -v c="$cmed" 'BEGIN { if (c > 0) printf "%.2fx", a / c; else printf "n/a" }')
        printf '%-10s %12s %16s %14s\n' "$m" "$med" "$p25..$p75" "$ratio"
done
echo
echo "layer: a $(stat -c %s "$T/layer.bpf")-byte filter file (deny-mkdir.json); podman: $(stat -c %s "$T/podman.bpf") bytes"
echo "(Podman's default profile), both as --filter-data. No timing is asserted."
