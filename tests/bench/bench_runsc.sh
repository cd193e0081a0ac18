#!/bin/bash
# tests/bench/bench_runsc.sh [-n N]: container start under gVisor's runsc, the
# runtime applying Podman's profile (--oci-seccomp) against replace mode (our
# init applying it, proven by the probe since gVisor's /proc shows no
# Seccomp_filters). Each run is `runsc --network=none [--oci-seccomp] run` of
# a bundle built from the config of a real `podman run` (busybox rootfs) whose
# workload is `sh -c :`, timed from before runsc starts until it returns (the
# container is deleted afterwards, untimed). Three bundles:
#   none         Podman's config without linux.seccomp, plain `runsc run`
#   oci-seccomp  Podman's config, `runsc --oci-seccomp run`: runsc applies it
#   replace      `inject --replace` of Podman's config, plain `runsc run`:
#                createRuntime hook (cache hit), init TSYNC load + probe
# One untimed warm-up round, then N rounds (default 10), each running the
# three in an order rotated from round to round. Prints figures (ms);
# asserts nothing. Needs root, runsc, podman, jq, busybox-static and a build.
set -uo pipefail
# shellcheck source=tests/bench/benchlib.sh
. "$(dirname "$0")/benchlib.sh"

ROUNDS=10
MODES="none oci-seccomp replace"

bench_args "$@"
if ! command -v runsc >/dev/null; then
        progress "runsc is not installed (apt-get install runsc): nothing to measure"
        exit 0
fi
bench_need podman jq

bench_begin

progress "building the bundles"
podman_bundle "$T/oci-seccomp" ":" >/dev/null || die "cannot build a bundle from Podman's config"
# gVisor sets NO_NEW_PRIVS on every process anyway; without it in the config the hook refuses
# runsc (the init would be lent CAP_SYS_ADMIN, which runsc's exec'd processes would see).
tsync_json_edit "$T/oci-seccomp/config.json" '.process.noNewPrivileges = true' || exit 1
for m in none replace; do
        cp -a "$T/oci-seccomp" "$T/$m" || die "cannot copy the bundle"
done
tsync_json_edit "$T/none/config.json" 'del(.linux.seccomp)' || exit 1
inject --replace "$T/replace" 2>"$T/inject.err" || die "inject --replace: $(cat "$T/inject.err")"

# time_run MODE: how long runsc run of that bundle took, in ms.
time_run() {
        local flags=()
        [ "$1" = oci-seccomp ] && flags=(--oci-seccomp)
        bench_time_run runsc "$T/$1" runsc --network=none "${flags[@]}"
}

read -r -a modes <<<"$MODES"
bench_rounds time_run "${modes[@]}"

echo "container start under gVisor, ms: 'runsc --network=none run' of sh -c : with Podman's config"
echo "(busybox rootfs), $ROUNDS interleaved rounds"
echo "host: $(nproc) CPUs, kernel $(uname -r), $(runsc --version | head -n 1)"
echo
bench_table 12 "${modes[@]}"
echo
echo "differences of medians, ms:"
echo "  runsc applying the profile (oci-seccomp - none):              $(sub "${MED[oci-seccomp]}" "${MED[none]}")"
echo "  our init applying it in replace mode (replace - none):        $(sub "${MED[replace]}" "${MED[none]}")"
echo "  replace mode against --oci-seccomp (replace - oci-seccomp):   $(sub "${MED[replace]}" "${MED[oci-seccomp]}")"
echo
echo "replace includes the createRuntime and poststop hook processes (compile cache hit), the"
echo "init's bind mounts, its TSYNC load and the probe (before and after loading, in both of its"
echo "threads). --oci-seccomp applies the profile to the whole sandbox's container processes."
