#!/bin/bash
# tests/bench/bench_hook_insns.sh [-b OTHER] [-r REPS]: the exec view's two hooks counted rather than timed
# (on a shared machine a start varies by more than they cost): the instructions each hook process
# executes (callgrind) and the sync calls it makes (strace: fsync, fdatasync, sync_file_range,
# syncfs, sync, each with the file it syncs). Two bundles of Podman's config (noNewPrivileges
# false) with a layer, so the init is lent capabilities and createRuntime and poststop rewrite
# config.json for the exec view: "inject", the config injected (inject's pretty text), its hooks
# run synced (the bundle is the user's) and with --no-sync; and "precreate", what the precreate hook
# wrote, as Podman writes it again into config.json (indented by two), its hooks with --no-sync as
# the hooks.d files run them. /bin/true for scale. -b OTHER:
# another build's oci-seccomp-tsync on the same bundle. With perf, also the pair's CPU time
# (task-clock: less at the mercy of other load than wall time) and page faults, over REPS
# repetitions (-r, default 15; see cpu_pair below). Each hook is spawned by bench_spawn
# copied as "runc", the parent the exec view asks for. Prints counts; asserts nothing. Needs root,
# podman, jq, valgrind, strace, python3 and a build.
set -uo pipefail
# shellcheck source=tests/bench/benchlib.sh
. "$(dirname "$0")/benchlib.sh"

SPAWN=$TSYNC_BUILD/tests/bench/bench_spawn
OTHER=
REPS=15
PAIRS=100
while [ $# -gt 0 ]; do
        case "$1" in
        -b)
                if [ $# -lt 2 ] || ! [ -x "$2" ]; then die "-b: '${2:-}' is not an executable"; fi
                OTHER=$(realpath "$2")
                shift 2
                ;;
        -r)
                if [ $# -lt 2 ] || ! [ "$2" -ge 1 ] 2>/dev/null; then die "-r: '${2:-}' is not a count"; fi
                REPS=$2
                shift 2
                ;;
        *) die "usage: $0 [-b OTHER] [-r REPS]" ;;
        esac
done
bench_need podman jq valgrind strace
[ -x "$SPAWN" ] || die "$SPAWN is not built (run scons)"
VALGRIND=$(command -v valgrind)
STRACE=$(command -v strace)
bench_begin

podman_bundle "$T/b" ":" >/dev/null || die "cannot build a bundle from Podman's config"
inject --profile "$PROFILES/deny-mkdir.json" "$T/b" 2>"$T/inject.err" || die "inject: $(cat "$T/inject.err")"
mkdir -p "$T/p" "$T/profiles" && cp "$PROFILES/deny-mkdir.json" "$T/profiles/" || die "cannot make the precreate bundle"
jq '.annotations["io.oci-seccomp-tsync.layers"] = "deny-mkdir"' "$PODMAN_CONFIG" |
        "$OCI" hook precreate --profile-dir "$T/profiles" --no-cache --init "$INIT" 2>"$T/precreate.err" |
        jq --indent 2 . >"$T/p/config.json" || die "precreate: $(cat "$T/precreate.err")"
for b in b p; do
        jq -e '.process.capabilities.ambient | index("CAP_SYS_ADMIN")' "$T/$b/config.json" >/dev/null ||
                die "$b: the init is not lent CAP_SYS_ADMIN: no exec view to keep"
        printf '{"ociVersion":"1.0.2","id":"bench-insns-%s","status":"created","pid":1,"bundle":"%s"}\n' $$ "$T/$b" \
                >"$T/$b.state.json"
        cp "$T/$b/config.json" "$T/$b.lent.json"
done
cp "$SPAWN" "$T/runc" || die "cannot copy bench_spawn"
# The bundle the functions below run on: b (inject) or p (precreate).
B=b

# count BINARY STAGE [ARG...]: "instructions syncs" of one hook process, and the synced files.
count() {
        local bin=$1 stage=$2
        shift 2
        rm -f "$T/cg.out" "$T/strace.out"
        (cd "$T" && ./runc -n 1 -w 0 -i "$T/$B.state.json" "$VALGRIND" -q --tool=callgrind \
                --callgrind-out-file="$T/cg.out" "$bin" hook "$stage" "$@") >/dev/null 2>"$T/spawn.err" ||
                die "$stage under callgrind failed: $(tail -n 3 "$T/spawn.err")"
        # Undo it (the same stage's counterpart, untraced), then the same run under strace.
        undo "$bin" "$stage" "$@"
        # strace follows bench_spawn itself (which syncs nothing), so the hook's parent is still "runc".
        (cd "$T" && "$STRACE" -f -qq -y -e trace=fsync,fdatasync,sync_file_range,syncfs,sync -e signal=none -o "$T/strace.out" \
                ./runc -n 1 -w 0 -i "$T/$B.state.json" "$bin" hook "$stage" "$@") >/dev/null 2>"$T/spawn.err" ||
                die "$stage under strace failed: $(tail -n 3 "$T/spawn.err")"
        printf '%s %s\n' "$(awk '/^totals:/ { print $2 }' "$T/cg.out")" "$(cat "$T/strace.out" 2>/dev/null | grep -c .)"
        [ ! -f "$T/strace.out" ] || sed 's/^[0-9]* *//; s/^/        /' "$T/strace.out" >&2
}
undo() {
        local bin=$1 stage=$2
        shift 2
        case "$stage" in
        createRuntime) (cd "$T" && ./runc -n 1 -w 0 -i "$T/$B.state.json" "$bin" hook poststop "$@") >/dev/null ;;
        poststop) (cd "$T" && ./runc -n 1 -w 0 -i "$T/$B.state.json" "$bin" hook createRuntime "$@") >/dev/null ;;
        esac || die "undoing $stage failed"
}

echo "the exec view's hooks on Podman's config with a layer: instructions (callgrind), sync calls (strace);"
echo "bundles: inject ($(wc -c <"$T/b.lent.json") bytes, inject's text), precreate ($(wc -c <"$T/p.lent.json") bytes, as Podman writes it)"
echo
"$VALGRIND" -q --tool=callgrind --callgrind-out-file="$T/cg.out" /bin/true
printf '%-8s %-10s %-16s %-10s %12s %6s\n' build bundle stage "hooks as" instructions syncs
printf '%-8s %-10s %-16s %-10s %12s %6s\n' "" "" /bin/true "" "$(awk '/^totals:/ { print $2 }' "$T/cg.out")" 0
BUILDS=("$OCI")
[ -z "$OTHER" ] || BUILDS+=("$OTHER")
for b in "${BUILDS[@]}"; do
        label=this
        [ "$b" = "$OCI" ] || label=other
        for B in b p; do
                kind=inject syncs_of=("" --no-sync)
                [ "$B" = b ] || kind=precreate syncs_of=(--no-sync)
                for sync in "${syncs_of[@]}"; do
                        how=${sync:-synced}
                        # createRuntime on the lent view, then (after its untraced undo and redo) poststop on the exec view.
                        read -r ins syncs < <(count "$b" createRuntime $sync 2>"$T/synced.$label.$kind.cr$sync")
                        printf '%-8s %-10s %-16s %-10s %12s %6s\n' "$label" "$kind" createRuntime "$how" "$ins" "$syncs"
                        read -r ins syncs < <(count "$b" poststop $sync 2>"$T/synced.$label.$kind.ps$sync")
                        printf '%-8s %-10s %-16s %-10s %12s %6s\n' "$label" "$kind" poststop "$how" "$ins" "$syncs"
                        # inject's text comes back byte for byte; Podman's indentation by two does not
                        # for the capabilities (each rewrite writes them indented as inject does).
                        if [ "$B" = b ]; then
                                cmp -s "$T/$B/config.json" "$T/$B.lent.json"
                        else
                                cmp -s <(jq -S . "$T/$B/config.json") <(jq -S . "$T/$B.lent.json")
                        fi || die "$label: $kind: the pair did not give config.json back"
                        cp "$T/$B.lent.json" "$T/$B/config.json" || die "cannot restore $kind's config.json"
                done
        done
done
B=b
# CPU time, less at the mercy of other load than wall time: perf stat's task-clock (and page
# faults) of bench_spawn running PAIRS rounds of the pair (and of two /bin/true), its children
# included, per round. One such run moves by 0.1 ms from one minute to the next on a shared
# machine, more than a change to the hooks is worth: REPS repetitions, each running every
# configuration once in an order rotated by one (none always after the same one), give medians
# and, with -b, the difference between the builds paired within each repetition.
cpu_pair() {
        (cd "$T" && perf stat -x, -e task-clock,page-faults -o "$T/perf.out" ./runc -n "$PAIRS" -w 3 "$@") \
                >/dev/null 2>&1 || return 1
        awk -F, -v n=$((PAIRS + 3)) '/task-clock/ { t = $1 / n } /page-faults/ { f = $1 / n }
                END { printf "%.4f %.2f\n", t, f }' "$T/perf.out"
}
# cpu_config CONFIG: one cpu_pair of "true" or "BUILD-LABEL:synced|--no-sync".
cpu_config() {
        local s=("-i" "$T/$B.state.json") bin sync=()
        case "$1" in
        true) cpu_pair "${s[@]}" /bin/true --- "${s[@]}" /bin/true ;;
        *)
                bin=$OCI
                [ "${1%%:*}" = this ] || bin=$OTHER
                [ "${1#*:}" != --no-sync ] || sync=(--no-sync)
                cpu_pair "${s[@]}" "$bin" hook createRuntime "${sync[@]}" --- "${s[@]}" "$bin" hook poststop "${sync[@]}"
                ;;
        esac
}
if command -v perf >/dev/null; then
        configs=(true)
        for b in "${BUILDS[@]}"; do
                label=this
                [ "$b" = "$OCI" ] || label=other
                configs+=("$label:synced" "$label:--no-sync")
        done
        : >"$T/cpu.txt"
        for ((r = 0; r < REPS; r++)); do
                for ((i = 0; i < ${#configs[@]}; i++)); do
                        c=${configs[(i + r) % ${#configs[@]}]}
                        read -r ms faults < <(cpu_config "$c") || die "$c: bench_spawn or perf failed"
                        echo "$r $c $ms $faults" >>"$T/cpu.txt"
                done
        done
        echo
        echo "CPU time and page faults of a createRuntime + poststop pair ($REPS repetitions of $PAIRS rounds,"
        echo "perf stat task-clock; medians, and with -b this build minus the other, paired within each repetition:"
        echo "mean ± 1.96 standard errors):"
        python3 - "$T/cpu.txt" <<'PY'
import math, statistics as st, sys
runs = {}
for line in open(sys.argv[1]):
    r, c, ms, faults = line.split()
    runs.setdefault(c, {})[int(r)] = (float(ms), float(faults))
def show(c, name):
    ms = [v[0] for v in runs[c].values()]
    faults = [v[1] for v in runs[c].values()]
    print("  %-16s %.3f ms (p25 %.3f, p75 %.3f), %.1f page faults" % (name, st.median(ms),
          st.quantiles(ms, n=4)[0], st.quantiles(ms, n=4)[2], st.median(faults)))
show("true", "two /bin/true:")
for label in ("this", "other"):
    for sync in ("synced", "--no-sync"):
        if label + ":" + sync in runs:
            show(label + ":" + sync, "%s %s:" % (label, sync))
for sync in ("synced", "--no-sync"):
    a, b = runs.get("this:" + sync), runs.get("other:" + sync)
    if not a or not b:
        continue
    d = [a[r][0] - b[r][0] for r in a if r in b]
    f = [a[r][1] - b[r][1] for r in a if r in b]
    half = 1.96 * st.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
    print("  this - other, %s: %+.3f ± %.3f ms a pair, %+.1f page faults" % (sync, st.mean(d), half, st.mean(f)))
PY
fi
echo
echo "what was synced:"
for f in "$T"/synced.*; do
        echo "  ${f##*/synced.}:"
        cat "$f"
done
for b in "${BUILDS[@]}"; do
        [ "$b" = "$OCI" ] && echo "this:  $b" || echo "other: $b"
done
