#!/bin/bash
# tests/bench/bench_hook.sh [-n N] [-b OTHER]: the hook's own start, stage by stage, as Podman
# runs it for `--annotation io.oci-seccomp-tsync.layers=deny-mkdir` with its default config
# (noNewPrivileges false, so the init is lent capabilities and the exec view needs
# createRuntime and poststop). Each is a process of its own, spawned and waited for by
# bench_spawn (copied as "runc", the runtime the exec view asks its parent to be):
#   /bin/true          what any hook process costs (fork, exec, exit)
#   --version          oci-seccomp-tsync with nothing to do: its own start and exit
#   precreate          Podman's config on stdin, cache hit (layer and Podman's own profile)
#   createRuntime      the OCI state on stdin; config.json from precreate (filters in the
#                      init's arguments): reads the plan, puts the exec view in place (with
#                      --no-sync, as the hooks.d files run it, when the build knows it)
#   poststop           lends the capabilities again (the pair leaves config.json as it was)
#   precreate cold     the same with --no-cache (context: what the cache saves)
# -b OTHER: the same stages with another build of oci-seccomp-tsync (e.g. one built from
# another commit), interleaved with this one. W untimed and N timed rounds (default 100);
# every round runs every command once, in order. Prints medians and IQR in ms, and each
# beside /bin/true; asserts nothing. Needs root (Podman's config), podman, jq, a build.
set -uo pipefail
# shellcheck source=tests/bench/benchlib.sh
. "$(dirname "$0")/benchlib.sh"

ROUNDS=100
WARMUP=5
SPAWN=$TSYNC_BUILD/tests/bench/bench_spawn
OTHER=

bench_args "$@"
if [ -n "$OTHER" ]; then
        [ -x "$OTHER" ] || die "-b: '$OTHER' is not an executable"
        OTHER=$(realpath "$OTHER")
fi
bench_need podman jq
[ -x "$SPAWN" ] || die "$SPAWN is not built (run scons)"
bench_begin

mkdir -p "$T/profiles" "$T/bundle" && cp "$PROFILES/deny-mkdir.json" "$T/profiles/" || die "profiles"
cp "$SPAWN" "$T/runc" || die "cannot copy bench_spawn"
jq '.annotations["io.oci-seccomp-tsync.layers"] = "deny-mkdir"' "$PODMAN_CONFIG" >"$T/precreate.json" ||
        die "jq failed"
printf '{"ociVersion":"1.0.2","id":"bench-hook-%s","status":"created","pid":1,"bundle":"%s"}\n' $$ "$T/bundle" \
        >"$T/state.json"

# stages BINARY: bench_spawn's commands for the stages of that build, each ending in ---.
# createRuntime and poststop get --no-sync as the hooks.d files give it (a build that knows it).
stages() {
        local bin=$1 common=(--profile-dir "$T/profiles" --cache-dir "$T/cache" --init "$INIT") sync=
        "$bin" hook --help | grep -q -- --no-sync && sync=--no-sync
        echo "$bin --version ---"
        echo "-i $T/precreate.json $bin hook precreate ${common[*]} ---"
        echo "-i $T/state.json $bin hook createRuntime $sync ---"
        echo "-i $T/state.json $bin hook poststop $sync ---"
        echo "-i $T/precreate.json $bin hook precreate --no-cache --profile-dir $T/profiles --init $INIT ---"
}
NAMES=("/bin/true" "--version" "precreate" "createRuntime" "poststop" "precreate, no cache")
BUILDS=("$OCI")
[ -z "$OTHER" ] || BUILDS+=("$OTHER")

# The bundle's config.json is what precreate writes (the exec view's stages need its plan);
# precreate also fills the cache, so the timed runs are cache hits.
"$OCI" hook precreate --profile-dir "$T/profiles" --cache-dir "$T/cache" --init "$INIT" \
        <"$T/precreate.json" >"$T/bundle/config.json" 2>"$T/precreate.err" ||
        die "precreate failed: $(cat "$T/precreate.err")"

cmd=(/bin/true ---)
for b in "${BUILDS[@]}"; do
        # shellcheck disable=SC2207 # the paths are ours, without spaces
        cmd+=($(stages "$b"))
done
unset 'cmd[${#cmd[@]}-1]'
progress "$ROUNDS rounds (after $WARMUP warm-up rounds) of ${#BUILDS[@]} x ${#NAMES[@]} hook processes"
# Run from $T: bench_spawn as "runc" is the parent the exec view checks for.
(cd "$T" && ./runc -n "$ROUNDS" -w "$WARMUP" "${cmd[@]}") >"$T/times.tsv" 2>"$T/spawn.err" ||
        die "bench_spawn failed: $(tail -n 3 "$T/spawn.err")"

column_stats() {
        cut -f "$1" "$T/times.tsv" >"$T/col"
        stats "$T/col"
}
read -r true_med _ _ < <(column_stats 1)
echo "the hook's own start, ms: each stage a process of its own, $ROUNDS interleaved rounds"
echo "host: $(nproc) CPUs, kernel $(uname -r); Podman's config with a layer (deny-mkdir), exec view on"
echo
printf '%-22s %-10s %9s %19s %13s\n' stage build median "IQR (p25..p75)" "over true"
printf '%-22s %-10s %9s %19s %13s\n' "/bin/true" "" "$true_med" "$(column_stats 1 | awk '{ print $2 ".." $3 }')" ""
declare -A SUM
col=2
for b in "${BUILDS[@]}"; do
        label=this
        [ "$b" = "$OCI" ] || label=other
        sum=0
        for name in "${NAMES[@]:1}"; do
                read -r med p25 p75 < <(column_stats $col)
                printf '%-22s %-10s %9s %19s %13s\n' "$name" "$label" "$med" "$p25..$p75" "$(sub "$med" "$true_med")"
                case "$name" in
                precreate | createRuntime | poststop) sum=$(awk -v a="$sum" -v b="$med" -v t="$true_med" \
                        'BEGIN { printf "%.3f", a + b - t }') ;;
                esac
                col=$((col + 1))
        done
        SUM[$label]=$sum
done
echo
for b in "${BUILDS[@]}"; do
        kind=dynamic
        readelf -lW "$b" 2>/dev/null | grep -q 'Requesting program interpreter' || kind=static
        [ "$b" = "$OCI" ] && echo "this:  $b ($kind)" || echo "other: $b ($kind)"
done
echo "Podman with the annotation runs precreate, createRuntime and poststop; what the three add"
echo "beyond three /bin/true hooks (medians): this $(sub "${SUM[this]}" 0) ms${OTHER:+, other $(sub "${SUM[other]}" 0) ms}."
