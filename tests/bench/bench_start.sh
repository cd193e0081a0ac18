#!/bin/bash
# tests/bench/bench_start.sh [-n N]: what oci-seccomp-tsync adds to a container
# start, with runc and crun. Each run is `RUNTIME run` of a bundle built from the
# config of a real `podman run` (busybox rootfs) whose workload is `sh -c :`,
# timed from before the runtime starts until it returns (the container is
# deleted afterwards, untimed). Four bundles:
#   none     Podman's config without linux.seccomp
#   podman   Podman's config: the runtime applies Podman's default profile
#   replace  `inject --replace`: the profile moves to our init (createRuntime
#            hook: cache lookup; init: TSYNC load + /proc verification)
#   layer    `inject --profile deny-mkdir.json`: the runtime applies Podman's
#            profile, our init adds the small layer on top, carried in its
#            arguments (noNewPrivileges is false in Podman's config, so the
#            init is lent capabilities: createRuntime exchanges config.json
#            with the exec view inject prepared, for exec'd processes, and
#            poststop exchanges them back)
#   layer-rw layer without inject's views (a file system that cannot
#            exchange two names): each hook rewrites config.json and syncs
#            its new text
#   layer-eng layer as an engine's front end leaves it (the runtime wrapper's
#            config, the hooks.d files): createRuntime alone, with --no-sync,
#            and config.json written anew before every start (untimed), as the
#            engine does: no poststop has a lent view to give back
#   layer-nh layer with `inject --no-hooks`: filters compiled at inject time,
#            no hook processes at start (only the init's mounts, exec and TSYNC).
#            With noNewPrivileges set to true: --no-hooks refuses to lend the
#            init capabilities that no hook would take back from exec'd
#            processes, so this bundle (and layer-x) differs from layer there too
#   layer-x  `inject --no-hooks --exec`: as layer-nh, and the init execs the
#            workload (PID 1 as in a plain run) instead of forking it
#   hooks0   podman plus two trivial hooks, dd reading the state into /dev/null
#            (createRuntime, poststop; /bin/true would race crun's write of it):
#            what the runtime spends on any two hooks, ours or not; layer -
#            hooks0 is our own part when capabilities are lent
#   hooks1   podman plus one such hook (createRuntime): layer-eng's yardstick
#   catatonit podman with catatonit as PID 1, bind-mounted as `podman run --init`
#            does: the yardstick for an init in front of the workload (issue 15)
# One untimed warm-up round (it also fills the hook's compile cache), then N
# rounds (default 15); within a round every (runtime, mode) runs once, in an
# order rotated from round to round so a slow drift hits all alike.
#
# Our part: layer - podman (layer mode); replace - none against podman - none
# (replace mode: our init applying the profile vs the runtime applying it).
# crun runs through crun_cmd (its own mount namespace with cgroup2 mounted:
# an unshare and a mount on every run, the same for all four modes).
# Prints figures (ms); asserts nothing. Needs root, podman, runc, crun, jq,
# busybox-static and a build (`scons`).
set -uo pipefail
# shellcheck source=tests/bench/benchlib.sh
. "$(dirname "$0")/benchlib.sh"

# 201 rounds take about 3 minutes on a quiet machine; fewer let catatonit's
# paired cost, the yardstick, wander by more than it measures (0 to 7.6 ms
# under runc in runs of 21 rounds).
ROUNDS=201
RUNTIMES="runc crun"
MODES="none podman replace layer layer-rw layer-eng layer-nh layer-x hooks0 hooks1 catatonit"

bench_args "$@"
bench_need runc crun podman jq catatonit
# The hooks run oci-seccomp-tsync on every start: an ASan build (scons
# sanitize=1) costs far more than a release one, and would be measured.
SANITIZED=
if nm "$OCI" 2>/dev/null | grep -q ' __asan_init'; then
        SANITIZED=1
        progress "WARNING: $OCI is built with sanitizers; its figures include ASan (TSYNC_BUILD=... to use another build)"
fi

bench_begin

start_bundles

# time_run RUNTIME MODE: how long `RUNTIME run` of that bundle took, in ms.
time_run() {
        case "$1" in
        runc) bench_time_run runc "$T/$2" runc ;;
        crun) bench_time_run crun "$T/$2" crun_cmd ;;
        esac
}

mapfile -t pairs < <(start_pairs)
bench_rounds time_run "${pairs[@]}"

# exec_floor: what one fork+exec+wait of an empty static program costs on this machine, ms.
exec_floor() {
        printf 'int main(void) { return 0; }\n' >"$T/empty.c"
        if gcc -O2 -static -o "$T/empty" "$T/empty.c" 2>/dev/null && command -v perf >/dev/null; then
                perf stat -r 200 "$T/empty" 2>&1 | awk '/seconds time elapsed/ { printf "%.2f", $1 * 1000 }'
        else
                echo "?"
        fi
}

# paired RUNTIME MODE: the median over rounds of (MODE - podman) within each
# round, ms. The runs of one round are seconds apart, so a slow stretch of this
# shared machine moves both sides of the difference alike; a difference of
# medians taken over the whole run does not cancel it.
paired() {
        paste "$T/$1-$2.ms" "$T/$1-podman.ms" | awk '{ printf "%.3f\n", $1 - $2 }' >"$T/paired.ms"
        stats "$T/paired.ms" | awk '{ print $1 }'
}

# paired_over RUNTIME MODE BASE: as paired, against BASE instead of podman.
paired_over() {
        paste "$T/$1-$2.ms" "$T/$1-$3.ms" | awk '{ printf "%.3f\n", $1 - $2 }' >"$T/paired.ms"
        stats "$T/paired.ms" | awk '{ print $1 }'
}

# times_of RUNTIME MODE: paired(MODE) / paired(catatonit), e.g. "1.40x".
times_of() {
        awk -v m="$(paired "$1" "$2")" -v c="$(paired "$1" catatonit)" \
                'BEGIN { if (c > 0) printf "%.2fx", m / c; else printf "n/a (catatonit %+.1f ms)", c }'
}

# over_catatonit RUNTIME MODE BASE: paired_over(MODE, BASE) / paired(catatonit), e.g. "0.45x".
over_catatonit() {
        awk -v m="$(paired_over "$1" "$2" "$3")" -v c="$(paired "$1" catatonit)" \
                'BEGIN { if (c > 0) printf "%.2fx", m / c; else print "n/a" }'
}

declare -A MED
echo "container start, ms: 'RUNTIME run' of sh -c : with Podman's config (busybox rootfs), $ROUNDS interleaved rounds"
echo "host: $(nproc) CPUs, kernel $(uname -r), runc $(runc --version | sed -n 's/^runc version //p'), $(crun --version | head -n 1)"
echo
printf '%-6s %-9s %9s %19s\n' runtime mode median "IQR (p25..p75)"
for rt in $RUNTIMES; do
        for m in $MODES; do
                read -r med p25 p75 < <(stats "$T/$rt-$m.ms")
                MED[$rt-$m]=$med
                printf '%-6s %-9s %9s %19s\n' "$rt" "$m" "$med" "$p25..$p75"
        done
done
echo
echo "differences of medians, ms:"
for rt in $RUNTIMES; do
        echo "  $rt: layer mode, our part (layer - podman):            $(sub "${MED[$rt-layer]}" "${MED[$rt-podman]}")"
        echo "  $rt:   of which any two hooks cost the runtime (hooks0 - podman): $(sub "${MED[$rt-hooks0]}" "${MED[$rt-podman]}")"
        echo "  $rt: layer mode without hooks (layer-nh - podman):     $(sub "${MED[$rt-layer-nh]}" "${MED[$rt-podman]}")"
        echo "  $rt: ... and the init execs the workload (layer-x - podman): $(sub "${MED[$rt-layer-x]}" "${MED[$rt-podman]}")"
        echo "  $rt: catatonit as PID 1 (catatonit - podman):       $(sub "${MED[$rt-catatonit]}" "${MED[$rt-podman]}")"
        echo "  $rt: paired within rounds (median of MODE - podman): catatonit $(paired "$rt" catatonit), layer $(paired "$rt" layer), layer-nh $(paired "$rt" layer-nh), layer-x $(paired "$rt" layer-x)"
        echo "  $rt:   our overhead over catatonit's (paired): layer $(times_of "$rt" layer), layer-nh $(times_of "$rt" layer-nh), layer-x $(times_of "$rt" layer-x)"
        echo "  $rt: caps lent (layer: Podman's noNewPrivileges false), our own part beyond two trivial hooks"
        echo "  $rt:   (paired, median of layer - hooks0): $(paired_over "$rt" layer hooks0) ms, against catatonit's $(paired "$rt" catatonit) ms:" \
                "$(over_catatonit "$rt" layer hooks0)"
        echo "  $rt:   the same without views, rewritten and synced (layer-rw - hooks0, paired): $(paired_over "$rt" layer-rw hooks0) ms:" \
                "$(over_catatonit "$rt" layer-rw hooks0)"
        echo "  $rt:   an engine's config (layer-eng - hooks0, paired): $(paired_over "$rt" layer-eng hooks0) ms:" \
                "$(over_catatonit "$rt" layer-eng hooks0); against one trivial hook (layer-eng - hooks1):" \
                "$(paired_over "$rt" layer-eng hooks1) ms: $(over_catatonit "$rt" layer-eng hooks1)"
        echo "  $rt: replace mode, our init applying the profile (replace - none): $(sub "${MED[$rt-replace]}" "${MED[$rt-none]}")"
        echo "  $rt:   vs the runtime applying it (podman - none):                 $(sub "${MED[$rt-podman]}" "${MED[$rt-none]}")"
done
echo
echo "replace and layer include the createRuntime hook (cache hit) and poststop hook processes,"
echo "the init's bind mounts, its TSYNC load and /proc verification; layer-nh only the init's part."
echo "An exec of a static empty program here: $(exec_floor) ms (perf stat of fork+exec+wait)."
echo "crun runs via crun_cmd (unshare + cgroup2 mount per run, alike in all modes)."
[ -z "$SANITIZED" ] || echo "WARNING: $OCI is an ASan/UBSan build: the hook's share is inflated."
