#!/bin/bash
# explain's answer for a stack is the kernel's (issue 25): the runtime's linux.seccomp and a layer
# the init loads after it, each answering mkdir, and what explain says (from --baseline and
# --profile, and from the injected config) held against what busybox mkdir meets under runc and
# the real kernel: the more severe action wins whatever its filter's age, and of two ERRNOs the
# newest filter's errno is the one the call returns.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"

oneTimeSetUp() {
        tsync_need_built "$INIT" "$OCI"
}

setUp() {
        tsync_test_begin || exit 1
        T=$TSYNC_TMP
        ID=explain-$$
}

tearDown() {
        tsync_test_end
}

# profile FILE ACTION [ERRNO]: default ALLOW, mkdir and mkdirat answered with ACTION.
profile() {
        jq -n --arg a "$2" --arg e "${3:-}" '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir", "mkdirat"],
                action: $a} + if $e == "" then {} else {errnoRet: ($e | tonumber)} end]}' >"$1"
}

# stack BASE-ACTION BASE-ERRNO LAYER-ACTION LAYER-ERRNO: explain's verdict ($said, "ACTION from filter
# N"), the same from the injected config, and what mkdir met in the container ($T/$ID.out).
stack() {
        profile "$T/base.json" "$1" "$2"
        profile "$T/layer.json" "$3" "$4"
        said=$("$OCI" explain -q -b "$T/base.json" -p "$T/layer.json" mkdir) || fail "explain"
        said=${said#*-> }
        said=${said%%,*}
        make_bundle "$T/b" /bin/sh -c 'mkdir /made 2>&1; echo "mkdir=$?"' || fail "bundle"
        # shellcheck disable=SC2016 # $p is jq's
        tsync_json_edit "$T/b/config.json" '.linux.seccomp = $p | .process.capabilities.ambient = []' \
                --slurpfile p "$T/base.json" || fail "edit"
        tsync_json_edit "$T/b/config.json" '.linux.seccomp = .linux.seccomp[0]' || fail "edit"
        inject -p "$T/layer.json" "$T/b" 2>"$T/inject.err" || fail "inject: $(cat "$T/inject.err")"
        local from_config
        from_config=$("$OCI" explain -q --config "$T/b/config.json" mkdir) || fail "explain --config"
        from_config=${from_config#*-> }
        assertEquals "explain from the injected config" "$said" "${from_config%%,*}"
        RT=runc rt_run "$ID" "$T/b"
        [ -d "$T/b/rootfs/made" ] && fail "mkdir ran: $(cat "$T/$ID.out")"
        return 0
}

testAnOlderTrapBeatsANewerErrno() {
        stack SCMP_ACT_TRAP "" SCMP_ACT_ERRNO 1
        assertEquals "TRAP from filter 1" "$said"
        # SIGSYS: busybox sh reports 128+31
        assertContains "$(cat "$T/$ID.out" "$T/$ID.err")" "mkdir=159"
}

testOfTwoErrnosTheNewestFiltersIsReturned() {
        stack SCMP_ACT_ERRNO 13 SCMP_ACT_ERRNO 1
        assertEquals "ERRNO(1) from filter 2" "$said"
        assertContains "$(cat "$T/$ID.out")" "Operation not permitted"
        assertContains "$(cat "$T/$ID.out")" "mkdir=1"
        stack SCMP_ACT_ERRNO 1 SCMP_ACT_ERRNO 13
        assertEquals "ERRNO(13) from filter 2" "$said"
        assertContains "$(cat "$T/$ID.out")" "Permission denied"
}

testTheBaselineDecidesWhatTheLayerAllows() {
        stack SCMP_ACT_ERRNO 13 SCMP_ACT_LOG ""
        assertEquals "ERRNO(13) from filter 1" "$said"
        assertContains "$(cat "$T/$ID.out")" "Permission denied"
}

. shunit2
