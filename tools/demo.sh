#!/bin/bash
# The demo: a real `podman run` gives the config of Podman's default profile; runc
# runs a container under it; we read back the filter the kernel holds for the
# container, translate the same config ourselves, and compare the two programs
# over every syscall of x86_64, x32 and i386. Needs root; run after `scons`.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
export TSYNC_TOP=$TOP TSYNC_BUILD=$TOP/build
. "$TOP/tests/integration/lib.sh"
OCI=$TSYNC_BUILD/bin/oci-seccomp-tsync

tsync_test_begin
tsync_cleanup_on_exit
echo "== 1. config.json of a real 'podman run' (Podman's default seccomp profile)"
bash "$TOP/tests/integration/capture_podman_config.sh" "$TSYNC_TMP/podman.json" >/dev/null
jq -r '.linux.seccomp | "   defaultAction \(.defaultAction) errno \(.defaultErrnoRet), \(.syscalls | length) rules, \([.syscalls[].names[]] | length) names"' "$TSYNC_TMP/podman.json"

echo "== 2. runc runs a container under that config; the filter the kernel holds for it"
count=$(capture_runc_filter "$TSYNC_TMP/podman.json" "$TSYNC_TMP/runc")
echo "   $count filter, $(($(stat -c %s "$TSYNC_TMP/runc/filter.0.bpf") / 8)) instructions"

echo "== 3. our translation of the same config"
"$OCI" compile "$TSYNC_TMP/podman.json" -o "$TSYNC_TMP/ours.bpf"
echo "   $(($(stat -c %s "$TSYNC_TMP/ours.bpf") / 8)) instructions"

echo "== 4. both programs, simulated over every syscall number of x86_64, x32 and i386"
"$TSYNC_TOOLS/seccomp_diff" "$TSYNC_TMP/ours.bpf" "$TSYNC_TMP/runc/filter.0.bpf" |
        sed -e "s|$TSYNC_TMP/ours.bpf|ours|" -e "s|$TSYNC_TMP/runc/filter.0.bpf|runc|" -e 's/^/   /'

echo "== 5. explain: what a few calls get, and which rule decides"
for call in "socket 16 3 9" "personality 0xffffffff" "clone3" "kexec_load" "1000"; do
        # shellcheck disable=SC2086
        "$OCI" explain "$TSYNC_TMP/podman.json" $call | sed 's/^/   /'
done
