#!/bin/bash
# tests/bench/bench_podman.sh [-n N]: Podman's own start (`podman run --rm --runtime runc
# --rootfs DIR sh -c :`, as root) with and without what oci-seccomp-tsync adds, timed from
# before podman starts until it returns. Three ways:
#   plain      no annotation: our hooks.d files are in --hooks-dir but do not fire
#   init       `podman run --init`: catatonit as PID 1, Podman's own yardstick
#   layer      --annotation io.oci-seccomp-tsync.layers=deny-mkdir: precreate compiles
#              (cache hit after the warm-up) and puts the filter in the init's arguments,
#              createRuntime and poststop run from hooks.d, our init is PID 1
#   node       the node's hooks.d entry in place of the packaged precreate file
#              (examples/hooks.d-node-precreate.json: it fires for every container), no
#              node.conf and no annotation: what the node's entry costs a start without a policy
#   layer-b    (with -b BUILD) the same with the hooks of another build directory (e.g. one
#              from another commit), so that two builds are compared in one interleaved run
# One untimed warm-up round, then N rounds (default 10) in an order rotated from round to
# round. Prints figures (ms); asserts nothing. Needs root, podman, runc, catatonit, jq,
# busybox-static and a build (`scons`).
set -uo pipefail
# shellcheck source=tests/bench/benchlib.sh
. "$(dirname "$0")/benchlib.sh"

ROUNDS=10
MODES="plain init node layer"

OTHER=
bench_args "$@"
if [ -n "$OTHER" ]; then
        [ -x "$OTHER/bin/oci-seccomp-tsync" ] || die "-b: '$OTHER' is not a build directory"
        OTHER=$(realpath "$OTHER")
        MODES="$MODES layer-b"
fi
bench_need podman runc catatonit jq
tsync_test_begin || exit 1
trap 'podman ps -aq --filter label=tsync-bench=$$ | xargs -r podman rm -f >/dev/null 2>&1; tsync_test_end' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
T=$TSYNC_TMP

mkdir -p "$T/profiles" && cp "$PROFILES/deny-mkdir.json" "$T/profiles/" || die "profiles"
podman_hooks_dir "$T/hooks.d" "$T/profiles" "" "$T/cache" || die "hooks.d"
if [ -n "$OTHER" ]; then
        TSYNC_BUILD=$OTHER podman_hooks_dir "$T/hooks-b.d" "$T/profiles" "" "$T/cache-b" || die "hooks.d of $OTHER"
        # This tree's hooks.d files, for a build that may predate an option they pass.
        if ! "$OTHER/bin/oci-seccomp-tsync" hook --help | grep -q -- --no-sync; then
                for f in "$T"/hooks-b.d/*.json; do
                        jq '.hook.args -= ["--no-sync"]' "$f" >"$f.new" && mv "$f.new" "$f" || die "jq failed"
                done
        fi
fi
# The node's entry (docs/node-policy.md), with the test's arguments and a node.conf that is not there.
cp -r "$T/hooks.d" "$T/hooks-node.d" || die "hooks.d"
jq --arg n "$T/no-node.conf" '.when = {"always": true} | .hook.args += ["--node-conf", $n]' \
        "$T/hooks.d/oci-seccomp-tsync-precreate.json" >"$T/hooks-node.d/oci-seccomp-tsync-precreate.json" ||
        die "the node's entry"
make_rootfs "$T/rootfs" || die "rootfs"

# time_run MODE: how long one `podman run` took, in ms.
time_run() {
        local opts=() hooks=$T/hooks.d t0 t1 rc
        case "$1" in
        init) opts=(--init) ;;
        layer) opts=(--annotation io.oci-seccomp-tsync.layers=deny-mkdir) ;;
        node) hooks=$T/hooks-node.d ;;
        layer-b) opts=(--annotation io.oci-seccomp-tsync.layers=deny-mkdir) hooks=$T/hooks-b.d ;;
        esac
        t0=$EPOCHREALTIME
        podman --hooks-dir "$hooks" run --rm --runtime runc --network=none --label tsync-bench=$$ \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "${opts[@]}" --rootfs "$T/rootfs" /bin/sh -c : \
                </dev/null >"$T/run.out" 2>"$T/run.err"
        rc=$?
        t1=$EPOCHREALTIME
        [ "$rc" -eq 0 ] || {
                echo "$BENCH_NAME: podman run ($1) failed ($rc): $(tail -n 3 "$T/run.err")" >&2
                return 1
        }
        bench_ms "$t0" "$t1"
}

read -r -a modes <<<"$MODES"
bench_rounds time_run "${modes[@]}"

echo "podman run --rm --runtime runc --rootfs (busybox) sh -c :, ms; $ROUNDS interleaved rounds"
echo "host: $(nproc) CPUs, $(podman --version), runc $(runc --version | sed -n 's/^runc version //p')"
echo
bench_table 8 "${modes[@]}"
echo
echo "differences of medians, ms:"
echo "  --init, catatonit as PID 1 (init - plain): $(sub "${MED[init]}" "${MED[plain]}")"
echo "  our annotation, a layer (layer - plain):   $(sub "${MED[layer]}" "${MED[plain]}")"
echo "  the node's entry, no policy (node - plain): $(sub "${MED[node]}" "${MED[plain]}")"
if [ -n "$OTHER" ]; then
        echo "  the same, hooks of $OTHER (layer-b - plain): $(sub "${MED[layer-b]}" "${MED[plain]}")"
fi
