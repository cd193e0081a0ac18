#!/bin/bash
# Profiles a runtime can apply, our init can apply (issue 17): each profile of
# runc's and crun's own seccomp tests, once as the config's linux.seccomp under
# the plain runtime (the reference), once as a layer (inject --profile), once
# moved to our init (inject --replace), and once left to the runtime with a
# layer of ours on top (the runtime applies it to our init too). The workload must run exactly as the
# reference (same output, same exit status), and nothing may be left running.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"

WORKLOAD_NAME=hello

# The profiles are Podman's own default (the config of a real podman run), cut
# the way runc's and crun's seccomp tests cut theirs:
without() { # without JQ_FILTER NAME...: Podman's profile through JQ_FILTER, without NAMEs.
        local f=$1
        shift
        jq -c --argjson drop "$(tsync_json_array "$@")" ".linux.seccomp | $f
                | .syscalls |= (map(.names -= \$drop) | map(select(.names | length > 0)))" "$PODMAN_CONFIG"
}

oneTimeSetUp() {
        tsync_need_built "$OCI" "$INIT"
        hook_suite_setup
        # runc's errnoRet test: an allow-list answering ERRNO(6) by default, without clone.
        P_ERRNO_NO_CLONE=$(without '.defaultErrnoRet = 6' clone clone3 fork vfork)
        # crun's errno-default test: EPERM by default, neither clone nor getdents64.
        P_EPERM_NO_CLONE_GETDENTS=$(without '.defaultErrnoRet = 1' clone clone3 fork vfork getdents getdents64)
        # An allow-list whose default kills the thread, without getdents64.
        P_KILL_NO_GETDENTS=$(without '.defaultAction = "SCMP_ACT_KILL" | del(.defaultErrnoRet)' getdents getdents64)
        # What runc itself needs of the last two.
        P_EPERM_NO_CLONE=$(without '.defaultErrnoRet = 1' clone clone3 fork vfork)
        P_KILL=$(without '.defaultAction = "SCMP_ACT_KILL" | del(.defaultErrnoRet)')
}
oneTimeTearDown() { hook_suite_teardown; }
setUp() { tsync_test_begin; }
tearDown() { tsync_test_end; }

# bundle DIR PROFILE: a runc-spec bundle (noNewPrivileges true) running `echo <marker>` under PROFILE.
bundle() {
        local dir=$1 profile=$2
        make_bundle "$dir" /bin/echo "$MARKER" || return 1
        tsync_json_edit "$dir/config.json" '.linux.seccomp = $p' --argjson p "$profile"
}

# run_bounded ID BUNDLE: rt_run, but a container still there after 30 s is
# killed (rc 124): a start that hangs fails the test instead of the suite.
run_bounded() {
        local id=$1 bundle=$2 pid i
        _tsync_register "$RT" "$id"
        (rt_run "$id" "$bundle" && exit "$rc") &
        pid=$!
        for ((i = 0; i < 300; i++)); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
                rt kill "$id" KILL >/dev/null 2>&1
                rt delete --force "$id" >/dev/null 2>&1
                pkill -KILL -f -- "$MARKER"
                wait "$pid"
                rc=124
                return
        fi
        wait "$pid"
        rc=$?
}

# compare PROFILE [REFERENCE]: reference, layer and replace runs of the same
# workload under $RT. REFERENCE (default PROFILE) is what the runtime itself
# runs under: runc's own init lists /proc/self/fd after its load, so a profile
# without getdents64 stops runc itself; the workload does not need it.
compare() {
        local profile=$1 ref=${2:-$1} mode id ref_rc ref_out
        MARKER="$WORKLOAD_NAME-$$-$RANDOM"
        bundle "$TSYNC_TMP/ref" "$ref" || fail "bundle"
        id=$(tsync_unique_id ref)
        run_bounded "$id" "$TSYNC_TMP/ref"
        ref_rc=$rc
        assertEquals "$RT alone: the workload runs ($(cat "$TSYNC_TMP/$id.err"))" 0 "$ref_rc"
        ref_out=$(cat "$TSYNC_TMP/$id.out")
        for mode in layer replace baseline; do
                rm -rf "$TSYNC_TMP/$mode"
                case "$mode" in
                layer)
                        bundle "$TSYNC_TMP/$mode" "$profile" || fail "bundle"
                        echo "$profile" >"$TSYNC_TMP/layer.json"
                        tsync_json_edit "$TSYNC_TMP/$mode/config.json" 'del(.linux.seccomp)'
                        inject --profile "$TSYNC_TMP/layer.json" "$TSYNC_TMP/$mode" >/dev/null 2>&1 || fail "inject"
                        ;;
                replace)
                        bundle "$TSYNC_TMP/$mode" "$profile" || fail "bundle"
                        inject --replace "$TSYNC_TMP/$mode" >/dev/null 2>&1 || fail "inject --replace"
                        ;;
                baseline)
                        # The runtime applies the profile (to our init too), and a layer of ours goes on top:
                        # inject must see that the init cannot supervise under the runtime's profile.
                        bundle "$TSYNC_TMP/$mode" "$ref" || fail "bundle"
                        inject --profile "$TSYNC_TOP/configs/profiles/deny-ptrace.json" "$TSYNC_TMP/$mode" \
                                >/dev/null 2>"$TSYNC_TMP/inject.err" || fail "inject: $(cat "$TSYNC_TMP/inject.err")"
                        ;;
                esac
                id=$(tsync_unique_id "$mode")
                run_bounded "$id" "$TSYNC_TMP/$mode"
                assertEquals "$RT $mode: exit status as the plain runtime's ($(cat "$TSYNC_TMP/$id.err"))" \
                        "$ref_rc" "$rc"
                assertEquals "$RT $mode: output as the plain runtime's" "$ref_out" "$(cat "$TSYNC_TMP/$id.out")"
        done
        # Nothing of these runs may live on: no process with the marker in its command line.
        assertEquals "$RT: processes left behind" "" "$(pgrep -f -- "$MARKER")"
        pkill -KILL -f -- "$MARKER" || true
}

testAnErrnoAllowListWithoutCloneRunsAsUnderRunc() { RT=runc compare "$P_ERRNO_NO_CLONE"; }
testAnErrnoAllowListWithoutCloneRunsAsUnderCrun() { RT=crun compare "$P_ERRNO_NO_CLONE"; }
testAnEpermAllowListWithoutCloneAndGetdentsRunsAsUnderRunc() {
        RT=runc compare "$P_EPERM_NO_CLONE_GETDENTS" "$P_EPERM_NO_CLONE"
}
testAnEpermAllowListWithoutCloneAndGetdentsRunsAsUnderCrun() { RT=crun compare "$P_EPERM_NO_CLONE_GETDENTS"; }
testAKillThreadAllowListWithoutGetdentsRunsAsUnderRunc() { RT=runc compare "$P_KILL_NO_GETDENTS" "$P_KILL"; }
testAKillThreadAllowListWithoutGetdentsRunsAsUnderCrun() { RT=crun compare "$P_KILL_NO_GETDENTS"; }

. shunit2
