#!/bin/bash
# The hook end to end with runc. See hook_cases.sh.
HERE=$(cd "$(dirname "$0")" && pwd)
RT=runc
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"
. "$HERE/hook_cases.sh"

# assert_refuses_bad_state PROGRAM: PROGRAM's hook stages, called directly as a runtime would,
# refuse a state that is not JSON and a bundle that is gone in one line, and let a poststop whose
# bundle is gone pass.
assert_refuses_bad_state() {
        echo 'not json' | "$1" hook createRuntime 2>"$TSYNC_TMP/err"
        assertEquals 1 $?
        assertEquals 1 "$(wc -l <"$TSYNC_TMP/err")"
        echo '{"ociVersion": "1.0.2", "id": "gone-1", "status": "creating", "bundle": "/nonexistent/bundle"}' |
                "$1" hook createRuntime 2>"$TSYNC_TMP/err"
        assertEquals 1 $?
        grep -q "^oci-seccomp-tsync: gone-1: /nonexistent/bundle/config.json: No such file or directory$" "$TSYNC_TMP/err" ||
                fail "$(cat "$TSYNC_TMP/err")"
        echo '{"ociVersion": "1.0.2", "id": "gone-1", "status": "stopped", "bundle": "/nonexistent/bundle"}' |
                "$1" hook poststop
        assertEquals "poststop with the state already gone" 0 $?
}

testHookFailsClosedOnGarbageStateAndAMissingBundle() {
        assert_refuses_bad_state "$OCI"
}

# The exec view's hook (seccomp-tsync-view-hook, linked with musl) names the hook entries of a plan
# whose hooks keep the exec view alone, and refuses, in one line, what it cannot serve: the same
# bad input as above, a config without a plan, a plan that needs filter files (only
# oci-seccomp-tsync compiles them), an option of oci-seccomp-tsync's.
testTheViewHookServesTheExecViewAloneAndRefusesTheRest() {
        local view=$TSYNC_BUILD/bin/seccomp-tsync-view-hook state
        assertEquals "the view hook is built with the init" musl "$(_tsync_libc "$view")"
        make_bundle "$TSYNC_TMP/b" sh -c : || fail "bundle"
        tsync_json_edit "$TSYNC_TMP/b/config.json" '.process.noNewPrivileges = false' || fail "edit"
        inject --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/b" || fail "inject"
        assertEquals "inject's hooks for the exec view alone" "$view $view" \
                "$(jq -r '[.hooks.createRuntime[].path, .hooks.poststop[].path] | join(" ")' "$TSYNC_TMP/b/config.json")"
        rt_run "vh-$$" "$TSYNC_TMP/b"
        assertEquals "a start through it: $(cat "$TSYNC_TMP/vh-$$.err")" 0 "$rc"

        assert_refuses_bad_state "$view"

        make_bundle "$TSYNC_TMP/plain" sh -c : || fail "bundle"
        state='{"ociVersion": "1.0.2", "id": "vh-1", "status": "creating", "bundle": "'$TSYNC_TMP/plain'"}'
        echo "$state" | "$view" hook createRuntime 2>"$TSYNC_TMP/err"
        assertEquals "createRuntime of a config without a plan" 1 $?
        assertEquals "$(cat "$TSYNC_TMP/err")" 1 "$(wc -l <"$TSYNC_TMP/err")"

        inject --compile-at-start --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/plain" || fail "inject"
        assertEquals "filter files are oci-seccomp-tsync's" "$OCI" \
                "$(jq -r '.hooks.createRuntime[0].path' "$TSYNC_TMP/plain/config.json")"
        echo "$state" | "$view" hook createRuntime 2>"$TSYNC_TMP/err"
        assertEquals "createRuntime of a plan with filter files" 1 $?
        grep -q "^oci-seccomp-tsync: vh-1: createRuntime: the plan needs filter files, which only 'oci-seccomp-tsync hook createRuntime' serves" \
                "$TSYNC_TMP/err" || fail "$(cat "$TSYNC_TMP/err")"
        assertEquals "and nothing of it was written" "" "$(ls "$TSYNC_TMP/plain/oci-seccomp-tsync")"
        echo "$state" | "$view" hook createRuntime --cache-dir /x 2>"$TSYNC_TMP/err"
        assertEquals "an option of oci-seccomp-tsync's" 2 $?
}

. shunit2
