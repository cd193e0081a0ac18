#!/bin/bash
# Our translation against the filters real runtimes install. A real `podman run`
# gives the config (Podman's default profile, OCI form); runc and crun run a
# container under it; the filter the kernel holds for that container is read
# back with PTRACE_SECCOMP_GET_FILTER; seccomp_diff simulates both programs over
# every syscall number of x86_64, x32 and i386 with argument samples.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
OCI="$TSYNC_BUILD/bin/oci-seccomp-tsync"
DIFF="$TSYNC_TOOLS/seccomp_diff"

oneTimeSetUp() {
        SUITE_TMP=$(mktemp -d)
        if ! bash "$HERE/capture_podman_config.sh" "$SUITE_TMP/podman.json" >"$SUITE_TMP/capture.log" 2>&1; then
                cat "$SUITE_TMP/capture.log"
                PODMAN_CONFIG=
                return 0
        fi
        PODMAN_CONFIG="$SUITE_TMP/podman.json"
}

oneTimeTearDown() {
        rm -rf "$SUITE_TMP"
}

setUp() {
        tsync_test_begin
        [ -n "$PODMAN_CONFIG" ] || fail "no config from a real podman run (see the capture log above)"
}

tearDown() {
        tsync_test_end
}

# diffAgainst OURS.bpf THEIRS.bpf [--allow-enosys]: no difference may remain.
diffAgainst() {
        "$DIFF" "${@:3}" "$1" "$2" >"$TSYNC_TMP/diff.out" 2>&1
        local rc=$?
        tail -n 3 "$TSYNC_TMP/diff.out"
        assertEquals "$(grep -v '(allowed)' "$TSYNC_TMP/diff.out" | head -20)" 0 "$rc"
}

testOciTranslationActsLikeTheFilterRuncInstalls() {
        [ -n "$PODMAN_CONFIG" ] || return
        assertEquals "filters runc installed" 1 "$(capture_runc_filter "$PODMAN_CONFIG" "$TSYNC_TMP/runc")"
        "$OCI" compile "$PODMAN_CONFIG" -o "$TSYNC_TMP/ours.bpf" || fail "compile"
        diffAgainst "$TSYNC_TMP/ours.bpf" "$TSYNC_TMP/runc/filter.0.bpf"
}

testDockerFormatWithPodmanCapabilitiesActsLikeTheFilterRuncInstalls() {
        [ -n "$PODMAN_CONFIG" ] || return
        assertEquals 1 "$(capture_runc_filter "$PODMAN_CONFIG" "$TSYNC_TMP/runc")"
        "$OCI" compile --config "$PODMAN_CONFIG" /usr/share/containers/seccomp.json -o "$TSYNC_TMP/ours.bpf" ||
                fail "compile"
        diffAgainst "$TSYNC_TMP/ours.bpf" "$TSYNC_TMP/runc/filter.0.bpf"
}

testOciTranslationActsLikeTheFilterCrunInstalls() {
        [ -n "$PODMAN_CONFIG" ] || return
        tsync_bundle_from_config "$PODMAN_CONFIG" "$TSYNC_TMP/bundle" || fail "bundle"
        id=$(tsync_unique_id diff)
        start_crun "$id" "$TSYNC_TMP/bundle" || fail "crun did not start"
        pid=$(crun_pid "$id")
        mkdir -p "$TSYNC_TMP/crun"
        assertEquals 1 "$("$TSYNC_TOOLS/seccomp_get_filter" "$pid" "$TSYNC_TMP/crun")"
        stop_crun "$id"
        "$OCI" compile "$PODMAN_CONFIG" -o "$TSYNC_TMP/ours.bpf" || fail "compile"
        diffAgainst "$TSYNC_TMP/ours.bpf" "$TSYNC_TMP/crun/filter.0.bpf"
}

# With an EPERM default, runc adds its ENOSYS stub; ours must answer the same.
testEnosysStubMatchesRuncsWhenTheDefaultIsEperm() {
        [ -n "$PODMAN_CONFIG" ] || return
        jq '.linux.seccomp.defaultErrnoRet = 1' "$PODMAN_CONFIG" >"$TSYNC_TMP/eperm.json"
        assertEquals 1 "$(capture_runc_filter "$TSYNC_TMP/eperm.json" "$TSYNC_TMP/runc")"
        "$OCI" compile "$TSYNC_TMP/eperm.json" -o "$TSYNC_TMP/ours.bpf" || fail "compile"
        "$OCI" explain "$TSYNC_TMP/eperm.json" 1000 | grep -q "ERRNO(38)" || fail "no ENOSYS for 1000"
        diffAgainst "$TSYNC_TMP/ours.bpf" "$TSYNC_TMP/runc/filter.0.bpf"
}

# Instruction counts are a property of the program, not a timing: safe to assert.
testOurProgramRunsFarFewerInstructionsPerSyscallThanRuncs() {
        [ -n "$PODMAN_CONFIG" ] || return
        assertEquals 1 "$(capture_runc_filter "$PODMAN_CONFIG" "$TSYNC_TMP/runc")"
        "$OCI" compile "$PODMAN_CONFIG" -o "$TSYNC_TMP/ours.bpf" || fail "compile"
        "$DIFF" "$TSYNC_TMP/ours.bpf" "$TSYNC_TMP/runc/filter.0.bpf" >"$TSYNC_TMP/diff.out" 2>&1
        ours=$(sed -n 's/^A: .*over [0-9]* (arch, nr): mean \([0-9.]*\) max \([0-9]*\);.*/\1 \2/p' "$TSYNC_TMP/diff.out")
        theirs=$(sed -n 's/^B: .*over [0-9]* (arch, nr): mean \([0-9.]*\) max \([0-9]*\);.*/\1 \2/p' "$TSYNC_TMP/diff.out")
        echo "instructions per syscall (mean max): ours $ours, runc $theirs"
        read -r om ox <<<"$ours"
        read -r tm tx <<<"$theirs"
        assertNotNull "figures parsed" "$om"
        assertTrue "mean $om is not under a quarter of runc's $tm" "awk 'BEGIN { exit !($om * 4 < $tm) }'"
        assertTrue "max $ox is not under a quarter of runc's $tx" "[ $((ox * 4)) -lt $tx ]"
}

. shunit2
