# What the container-start benchmarks (bench_start.sh, bench_runsc.sh) share. Sourced after
# tests/integration/lib.sh and hooklib.sh, with ROUNDS set to the default.

BENCH_NAME=$(basename "$0")

die() {
        echo "$BENCH_NAME: $*" >&2
        exit 1
}
progress() {
        echo "$BENCH_NAME: $*" >&2
}

# bench_args "$@": -n N sets ROUNDS.
bench_args() {
        while [ $# -gt 0 ]; do
                case "$1" in
                -n)
                        if [ $# -lt 2 ] || ! [ "$2" -ge 1 ] 2>/dev/null; then die "usage: $0 [-n N]"; fi
                        ROUNDS=$2
                        shift 2
                        ;;
                *) die "usage: $0 [-n N]" ;;
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

# bench_begin: a temporary directory T removed at exit, and Podman's config in $PODMAN_CONFIG.
bench_begin() {
        tsync_test_begin || exit 1
        SUITE_TMP=
        trap bench_cleanup EXIT
        trap 'exit 130' INT
        trap 'exit 143' TERM
        T=$TSYNC_TMP
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
