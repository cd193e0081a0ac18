# What the benchmarks share. Each sources it first (after `set -uo pipefail`); it sources
# tests/integration/lib.sh and hooklib.sh ($OCI, $INIT, $PROFILES, ...) and sets TOP to the
# source tree. bench_args reads -n into ROUNDS: set the default after sourcing.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export TSYNC_TOP=$TOP TSYNC_BUILD=${TSYNC_BUILD:-$TOP/build}
# shellcheck source=tests/integration/lib.sh
. "$TOP/tests/integration/lib.sh"
# shellcheck source=tests/integration/hooklib.sh
. "$TOP/tests/integration/hooklib.sh"

BENCH_NAME=$(basename "$0")

die() {
        echo "$BENCH_NAME: $*" >&2
        exit 1
}
progress() {
        echo "$BENCH_NAME: $*" >&2
}

# bench_args "$@": -n N sets ROUNDS; -b OTHER sets OTHER, in a benchmark that compares with
# another build (it sets OTHER= before, and checks what OTHER names after).
bench_args() {
        local usage="usage: $0 [-n N]${OTHER+ [-b OTHER]}"
        while [ $# -gt 0 ]; do
                case "$1" in
                -n)
                        if [ $# -lt 2 ] || ! [ "$2" -ge 1 ] 2>/dev/null; then die "$usage"; fi
                        ROUNDS=$2
                        shift 2
                        ;;
                -b)
                        if [ -z "${OTHER+set}" ] || [ $# -lt 2 ]; then die "$usage"; fi
                        OTHER=$2
                        shift 2
                        ;;
                *) die "$usage" ;;
                esac
        done
}

# bench_need COMMAND...: a build, root, and each COMMAND.
bench_need() {
        local f c
        for f in "$OCI" "$INIT"; do
                [ -x "$f" ] || die "$f is not built (run scons)"
        done
        [ "$(id -u)" -eq 0 ] || die "needs root"
        for c in "$@"; do
                command -v "$c" >/dev/null || die "$c is missing"
        done
}

# bench_tmp: a temporary directory T, removed (with every container lib.sh started) at exit.
bench_tmp() {
        tsync_test_begin || exit 1
        tsync_cleanup_on_exit
        T=$TSYNC_TMP
}

# bench_begin: bench_tmp, and Podman's config in $PODMAN_CONFIG.
bench_begin() {
        bench_tmp
        SUITE_TMP=
        trap bench_cleanup EXIT
        progress "capturing the config.json of a real podman run"
        hook_suite_setup
        [ -n "$PODMAN_CONFIG" ] || die "capture_podman_config.sh failed"
}
bench_cleanup() {
        tsync_test_end
        [ -z "$SUITE_TMP" ] || hook_suite_teardown
}

# stats FILE: "median p25 p75" of one number a line (linear interpolation).
stats() {
        sort -n "$1" | awk '{ v[NR] = $1 }
                function q(p,  i) { i = int(p * (NR - 1)) + 1; return v[i] + (p * (NR - 1) + 1 - i) * (v[i + 1 < NR ? i + 1 : NR] - v[i]) }
                END { printf "%.1f %.1f %.1f\n", q(0.5), q(0.25), q(0.75) }'
}
sub() {
        awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f", a - b }'
}

# bench_ms T0 T1 [N]: the time from $EPOCHREALTIME T0 to T1 in ms (divided by N).
bench_ms() {
        awk -v a="$1" -v b="$2" -v n="${3:-1}" 'BEGIN { printf "%.4f\n", (b - a) * 1000 / n }'
}

# bench_fresh_config BUNDLE: BUNDLE.fresh.json, when there, becomes BUNDLE/config.json (untimed), as an
# engine writes the config anew at every start: the hooks of such a bundle leave the exec view in it.
bench_fresh_config() {
        # A new file, as an engine writes a new bundle's: cp over the old one would truncate it, which
        # on ext4 starts its writeback at close, and a rewrite of it right after waits for that.
        [ ! -f "$1.fresh.json" ] || { rm -f "$1/config.json" && cp "$1.fresh.json" "$1/config.json"; } ||
                die "cannot write $1/config.json"
}

# bench_time_run RUNTIME BUNDLE COMMAND...: how long `COMMAND run --bundle BUNDLE ID` took,
# in ms (COMMAND: RUNTIME with its global options, or crun_cmd). The container is deleted
# afterwards, untimed; lib.sh removes it at exit if we are interrupted.
bench_time_run() {
        local rt=$1 bundle=$2 id t0 t1 rc
        shift 2
        bench_fresh_config "$bundle" || return 1
        id=$(tsync_unique_id "bench-$(basename "$bundle")")
        _tsync_register "$rt" "$id"
        t0=$EPOCHREALTIME
        "$@" run --bundle "$bundle" "$id" </dev/null >"$T/run.out" 2>"$T/run.err"
        rc=$?
        t1=$EPOCHREALTIME
        _tsync_remove_container "$rt" "$id"
        _tsync_unregister "$rt" "$id"
        [ "$rc" -eq 0 ] || {
                echo "$BENCH_NAME: $rt run $bundle failed ($rc): $(tail -n 3 "$T/run.err")" >&2
                return 1
        }
        bench_ms "$t0" "$t1"
}

# bench_rounds FN KEY...: one warm-up round (not kept), then ROUNDS rounds; each runs `FN KEY`
# (KEY split into words) for every KEY, starting one further along each round, and appends
# the ms it prints to $T/KEY.ms (spaces in KEY as '-').
bench_rounds() {
        local fn=$1 round k key ms
        shift
        local keys=("$@") n=$#
        for key in "${keys[@]}"; do : >"$T/${key// /-}.ms"; done
        progress "$ROUNDS rounds of $n runs (after one warm-up round)"
        for round in $(seq 0 "$ROUNDS"); do
                for k in $(seq 0 $((n - 1))); do
                        key=${keys[$(((k + round) % n))]}
                        # shellcheck disable=SC2086
                        ms=$("$fn" $key) || exit 1
                        [ "$round" -eq 0 ] || echo "$ms" >>"$T/${key// /-}.ms"
                done
        done
}

# bench_table WIDTH KEY...: a row per KEY: median and IQR of $T/KEY.ms; MED[KEY] its median.
bench_table() {
        local w=$1 key med p25 p75
        shift
        declare -gA MED
        printf "%-${w}s %9s %19s\n" mode median "IQR (p25..p75)"
        for key in "$@"; do
                read -r med p25 p75 < <(stats "$T/$key.ms")
                MED[$key]=$med
                printf "%-${w}s %9s %19s\n" "$key" "$med" "$p25..$p75"
        done
}

# start_pairs: "RUNTIME MODE", a line each, for every runtime of $RUNTIMES and mode of $MODES.
start_pairs() {
        local rt m
        for rt in $RUNTIMES; do
                for m in $MODES; do
                        echo "$rt $m"
                done
        done
}

# start_bundles: bench_start.sh's bundles in $T/MODE, for MODE in none podman replace layer
# layer-rw layer-eng layer-nh layer-x hooks0 hooks1 catatonit (bench_start.sh says what each
# is). A bundle with $T/MODE.fresh.json gets it as config.json before every start
# (bench_fresh_config), as an engine writes it. Needs bench_begin.
start_bundles() {
        progress "building the bundles"
        podman_bundle "$T/podman" ":" >/dev/null || die "cannot build a bundle from Podman's config"
        jq -e '.linux.seccomp.syscalls | length > 0' "$T/podman/config.json" >/dev/null ||
                die "Podman's config has no seccomp profile"
        for m in none replace layer layer-rw layer-eng layer-nh layer-x hooks0 hooks1 catatonit; do
                cp -a "$T/podman" "$T/$m" || die "cannot copy the bundle"
        done
        tsync_json_edit "$T/none/config.json" 'del(.linux.seccomp)' || exit 1
        inject --replace "$T/replace" 2>"$T/inject.err" || die "inject --replace: $(cat "$T/inject.err")"
        inject --profile "$PROFILES/deny-mkdir.json" "$T/layer" 2>"$T/inject.err" ||
                die "inject --profile: $(cat "$T/inject.err")"
        # Without inject's views, as on a file system that cannot exchange two names: each hook
        # rewrites config.json and syncs its new text.
        inject --profile "$PROFILES/deny-mkdir.json" "$T/layer-rw" 2>"$T/inject.err" ||
                die "inject --profile: $(cat "$T/inject.err")"
        rm -rf "$T/layer-rw/oci-seccomp-tsync-views" || die "cannot remove the views"
        # What an engine's front end leaves (the runtime wrapper's config, the hooks.d files):
        # createRuntime alone, unsynced, on a config.json written anew at every start.
        inject --profile "$PROFILES/deny-mkdir.json" "$T/layer-eng" 2>"$T/inject.err" ||
                die "inject --profile: $(cat "$T/inject.err")"
        rm -rf "$T/layer-eng/oci-seccomp-tsync-views" || die "cannot remove the views"
        tsync_json_edit "$T/layer-eng/config.json" 'del(.hooks.poststop) | .hooks.createRuntime[].args += ["--no-sync"]' ||
                exit 1
        cp "$T/layer-eng/config.json" "$T/layer-eng.fresh.json" || die "cannot copy the config"
        for m in layer-nh layer-x; do
                tsync_json_edit "$T/$m/config.json" '.process.noNewPrivileges = true' || exit 1
        done
        inject --no-hooks --profile "$PROFILES/deny-mkdir.json" "$T/layer-nh" 2>"$T/inject.err" ||
                die "inject --no-hooks: $(cat "$T/inject.err")"
        inject --no-hooks --exec --profile "$PROFILES/deny-mkdir.json" "$T/layer-x" 2>"$T/inject.err" ||
                die "inject --no-hooks --exec: $(cat "$T/inject.err")"
        # The two hooks read the state on stdin, as ours do: crun fails a start when a
        # hook exits before it has written the state (EPIPE), as /bin/true may.
        tsync_json_edit "$T/hooks0/config.json" '.hooks = {createRuntime: [$h], poststop: [$h]}' \
                --argjson h '{"path": "/usr/bin/dd", "args": ["dd", "of=/dev/null", "status=none"]}' || exit 1
        tsync_json_edit "$T/hooks1/config.json" '.hooks = {createRuntime: [$h]}' \
                --argjson h '{"path": "/usr/bin/dd", "args": ["dd", "of=/dev/null", "status=none"]}' || exit 1
        tsync_json_edit "$T/catatonit/config.json" '.mounts += [{destination: "/run/podman-init", type: "bind", source: $c,
                 options: ["bind", "ro"]}] | .process.args = ["/run/podman-init", "--"] + .process.args' \
                --arg c "$(command -v catatonit)" || exit 1
}
