#!/bin/bash
# tests/bench/bench_hook_insns.sh [-b OTHER]: the exec view's two hooks counted rather than timed
# (on a shared machine a start varies by more than they cost): the instructions each hook process
# executes (callgrind) and the sync calls it makes (strace: fsync, fdatasync, sync_file_range,
# syncfs, sync, each with the file it syncs). Two bundles of Podman's config (noNewPrivileges
# false) with a layer, so the init is lent capabilities and createRuntime and poststop rewrite
# config.json for the exec view: "inject", the config injected (inject's pretty text), its hooks
# run synced (the bundle is the user's) and with --no-sync; and "precreate", what the precreate hook
# wrote, as Podman writes it again into config.json (indented by two), its hooks with --no-sync as
# the hooks.d files run them. /bin/true for scale. -b OTHER:
# another build's oci-seccomp-tsync on the same bundle. With perf, also the pair's CPU time
# (task-clock: less at the mercy of other load than wall time). Each hook is spawned by bench_spawn
# copied as "runc", the parent the exec view asks for. Prints counts; asserts nothing. Needs root,
# podman, jq, valgrind, strace and a build.
set -uo pipefail
# shellcheck source=tests/bench/benchlib.sh
. "$(dirname "$0")/benchlib.sh"

SPAWN=$TSYNC_BUILD/tests/bench/bench_spawn
OTHER=
while [ $# -gt 0 ]; do
        case "$1" in
        -b)
                if [ $# -lt 2 ] || ! [ -x "$2" ]; then die "-b: '${2:-}' is not an executable"; fi
                OTHER=$(realpath "$2")
                shift 2
                ;;
        *) die "usage: $0 [-b OTHER]" ;;
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
# CPU time, less at the mercy of other load than wall time: perf stat's task-clock of bench_spawn
# running PAIRS rounds of the pair (and of two /bin/true), its children included, per round.
PAIRS=100
cpu_pair() {
        (cd "$T" && perf stat -x, -e task-clock -o "$T/perf.out" ./runc -n "$PAIRS" -w 3 "$@") >/dev/null 2>&1 ||
                return 1
        awk -F, -v n=$((PAIRS + 3)) '/task-clock/ { printf "%.2f", $1 / n }' "$T/perf.out"
}
if command -v perf >/dev/null; then
        echo
        echo "CPU time of a createRuntime + poststop pair, ms ($PAIRS rounds, perf stat task-clock):"
        echo "  two /bin/true: $(cpu_pair -i "$T/$B.state.json" /bin/true --- -i "$T/$B.state.json" /bin/true)"
        for b in "${BUILDS[@]}"; do
                label=this
                [ "$b" = "$OCI" ] || label=other
                for sync in "" --no-sync; do
                        echo "  $label ${sync:-synced}: $(cpu_pair -i "$T/$B.state.json" "$b" hook createRuntime $sync --- \
                                -i "$T/$B.state.json" "$b" hook poststop $sync)"
                done
        done
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
