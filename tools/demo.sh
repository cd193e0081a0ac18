#!/bin/bash
# The demo: a real runc container, started from a busybox-static root filesystem
# with Podman's default settings (its seccomp profile is the baseline), runs a
# multi-threaded workload twice: as is, then with a layer (getcwd -> ENOMEDIUM)
# applied by seccomp-tsync-init with TSYNC. Thread by thread it prints the
# filter state and what mkdir returned. Then it compares our translation of
# Podman's profile with the program runc installs. Needs root; run after `scons`.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
export TSYNC_TOP=$TOP TSYNC_BUILD=$TOP/build
. "$TOP/tests/integration/lib.sh"
. "$TOP/tests/integration/hooklib.sh"

tsync_test_begin
tsync_cleanup_on_exit
hook_suite_setup
trap 'hook_suite_teardown; tsync_test_end' EXIT
[ -n "$PODMAN_CONFIG" ] || exit 1

show() {
        # tid=.. main=.. Uid=.. Seccomp=.. Seccomp_filters=.. ... call=getcwd rc=.. errno=..
        sed -n 's/^tid=\([0-9]*\) main=\([01]\).* Seccomp=\([0-9]\) Seccomp_filters=\([0-9]*\) NoNewPrivs=\([01]\).* rc=\(-*[0-9]*\) errno=\([0-9]*\)$/\1 \2 \3 \4 \5 \6 \7/p' "$1" |
                while read -r tid main mode filters nnp r e; do
                        printf '   thread %-6s %-6s Seccomp %s  filters %s  NoNewPrivs %s  getcwd: %s\n' "$tid" \
                                "$([ "$main" = 1 ] && echo main || echo)" "$mode" "$filters" "$nnp" \
                                "$([ "$r" = 0 ] && echo ok || echo "errno $e ($(perl -e "\$! = $e; print \"\$!\"" 2>/dev/null))")"
                done
}

echo "== 1. runc, Podman's default profile, a workload with 6 threads, each calling getcwd"
podman_bundle "$TSYNC_TMP/plain" "exec /bin/threads_probe -n 5 getcwd"
rt_run demo-plain-$$ "$TSYNC_TMP/plain"
show "$TSYNC_TMP/demo-plain-$$.out"

echo "== 2. the same, after: oci-seccomp-tsync inject --profile deny-getcwd.json BUNDLE"
podman_bundle "$TSYNC_TMP/ours" "for t in /proc/1/task/*; do echo \"init \$(basename \$t) \$(grep -E '^Seccomp(_filters)?:' \$t/status | tr '\t\n' '  ')\"; done; exec /bin/threads_probe -n 5 getcwd"
inject --profile "$PROFILES/deny-getcwd.json" "$TSYNC_TMP/ours"
echo "   process.args: $(jq -c '.process.args[0:3] + ["..."]' "$TSYNC_TMP/ours/config.json")"
rt_run demo-ours-$$ "$TSYNC_TMP/ours"
sed -n 's/^init \([0-9]*\) /   PID 1 (seccomp-tsync-init) thread \1: /p' "$TSYNC_TMP/demo-ours-$$.out"
show "$TSYNC_TMP/demo-ours-$$.out"
echo "   exit status: $rc"

echo "== 3. our translation of Podman's profile against the program runc installed for it"
count=$(capture_runc_filter "$PODMAN_CONFIG" "$TSYNC_TMP/runc")
"$OCI" compile "$PODMAN_CONFIG" -o "$TSYNC_TMP/ours.bpf"
"$TSYNC_TOOLS/seccomp_diff" "$TSYNC_TMP/ours.bpf" "$TSYNC_TMP/runc/filter.0.bpf" |
        sed -e "s|$TSYNC_TMP/ours.bpf|ours|" -e "s|$TSYNC_TMP/runc/filter.0.bpf|runc|" -e 's/^/   /'
echo "   ($count filter read back from the runc container with PTRACE_SECCOMP_GET_FILTER)"
