#!/bin/bash
# The hook end to end with runc. See hook_cases.sh.
HERE=$(cd "$(dirname "$0")" && pwd)
RT=runc
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"
. "$HERE/hook_cases.sh"

# Hook stages called directly, as a runtime would, with bad input.
testHookFailsClosedOnGarbageStateAndAMissingBundle() {
        echo 'not json' | "$OCI" hook createRuntime 2>"$TSYNC_TMP/err"
        assertEquals 1 $?
        assertEquals 1 "$(wc -l <"$TSYNC_TMP/err")"
        echo '{"ociVersion": "1.0.2", "id": "gone-1", "status": "creating", "bundle": "/nonexistent/bundle"}' |
                "$OCI" hook createRuntime 2>"$TSYNC_TMP/err"
        assertEquals 1 $?
        grep -q "^oci-seccomp-tsync: gone-1: /nonexistent/bundle/config.json: No such file or directory$" "$TSYNC_TMP/err" ||
                fail "$(cat "$TSYNC_TMP/err")"
        echo '{"ociVersion": "1.0.2", "id": "gone-1", "status": "stopped", "bundle": "/nonexistent/bundle"}' |
                "$OCI" hook poststop
        assertEquals "poststop with the state already gone" 0 $?
}

. shunit2
