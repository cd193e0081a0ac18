#!/bin/bash
# gVisor's runsc ignores a config's linux.seccomp unless started with --oci-seccomp, without a word.
# Replace mode closes that gap: our init applies the profile with TSYNC and, as gVisor's /proc shows no
# Seccomp_filters, proves it by its effect (a probe call in every thread). Here: the gap and its fix
# side by side, fail-closed refusals, layer mode under --oci-seccomp, and `check --runtime`.
# The probe route is also tested on Linux (--verify probe), where it must agree with the counts.
# The runsc tests are skipped, saying why, if runsc cannot start a container here.
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$HERE/lib.sh"
# shellcheck source=tests/integration/hooklib.sh
. "$HERE/hooklib.sh"

THREADS=$TSYNC_BUILD/tests/static/threads_probe
EDQUOT=122  # what our rules give mkdir: mkdir never returns it on its own
ENOTBLK=15  # what a second filter gives getcwd in the Linux tests
EPERM=1     # what the baseline gives getcwd under runsc --oci-seccomp (which ignores errnoRet)
NTHREADS=8

# setUp and tearDown: hooklib.sh's (a temp dir $T, the test's containers removed after it).
oneTimeSetUp() {
        tsync_need_built "$OCI" "$INIT" "$THREADS"
        hook_suite_setup
        RUNSC_WHY=$(runsc_unusable)
}

oneTimeTearDown() {
        hook_suite_teardown
}

# Prints why runsc cannot run a container here (nothing if it can).
runsc_unusable() {
        local dir rc
        command -v runsc >/dev/null || {
                echo "runsc is not installed (apt-get install runsc)"
                return
        }
        tsync_test_begin || return
        dir=$TSYNC_TMP/b
        if ! make_bundle "$dir" sh -c 'echo runsc-works' >/dev/null 2>&1; then
                echo "cannot make a bundle"
        else
                run_runsc "$(tsync_unique_id usable)" "$dir" >"$TSYNC_TMP/out" 2>&1
                rc=$?
                grep -q '^runsc-works$' "$TSYNC_TMP/out" ||
                        echo "runsc cannot start a container here (exit $rc): $(tail -n 1 "$TSYNC_TMP/out")"
        fi
        tsync_test_end
}

# need_runsc || return: skips the test, with the reason, when runsc cannot run here.
need_runsc() {
        [ -n "$RUNSC_WHY" ] || return 0
        startSkipping
        fail "skipped: $RUNSC_WHY"
        return 1
}

# Files the workloads write go to the root of their root filesystem: gVisor mounts a tmpfs of its own
# on /tmp, which the host never sees.

# runsc_run ID BUNDLE [FLAG...]: output in $T/ID.out and .err, status in $rc.
runsc_run() {
        local id=$1 bundle=$2
        shift 2
        run_runsc "$id" "$bundle" "$@" >"$T/$id.out" 2>"$T/$id.err"
        rc=$?
}

# with_rule DIR NAME... ERRNO: the config's own linux.seccomp gives the calls NAME... ERRNO, first.
with_rule() {
        local dir=$1 names errno
        shift
        errno=${*: -1}
        names=$(tsync_json_array "${@:1:$#-1}") || return 1
        tsync_json_edit "$dir/config.json" \
                '.linux.seccomp.syscalls = [{names: $n, action: "SCMP_ACT_ERRNO", errnoRet: ($e | tonumber)}]
                 + .linux.seccomp.syscalls' --argjson n "$names" --arg e "$errno"
}

# Lines of threads_probe in FILE that do not end with CALL failing with ERRNO.
# runsc_bundle DIR SCRIPT: Podman's config running SCRIPT, with noNewPrivileges true. gVisor sets
# NO_NEW_PRIVS on every process anyway, so the workload gets the same; with it false the init
# would be lent CAP_SYS_ADMIN, which runsc's exec'd processes would see (they take the
# container's own sets): the hook refuses that (testRunscWithoutNoNewPrivilegesIsRefused).
runsc_bundle() {
        podman_bundle "$1" "$2" && tsync_json_edit "$1/config.json" '.process.noNewPrivileges = true'
}

testRunscWithoutNoNewPrivilegesIsRefused() {
        need_runsc || return
        podman_bundle "$T/b" "touch /marker" || fail "bundle"
        inject --replace "$T/b" 2>/dev/null || fail "inject"
        runsc_run lent-$$ "$T/b"
        assertNotEquals "the container ran" 0 "$rc"
        assertFalse "the workload ran" "[ -e '$T/b/rootfs/marker' ]"
        grep -q "oci-seccomp-tsync: lent-$$: .*set process.noNewPrivileges to true" "$T/lent-$$.err" ||
                fail "$(cat "$T/lent-$$.err")"
}

threads_not_denied() {
        grep '^tid=' "$1" | grep -v " call=$2 rc=-1 errno=$3\$" || true
}

testReplaceModeUnderRunscDeniesInEveryThreadWhatRunscAloneLetsThrough() {
        need_runsc || return
        runsc_bundle "$T/alone" "exec /bin/threads_probe -n $NTHREADS mkdir /t" || fail "bundle"
        with_rule "$T/alone" mkdir mkdirat $EDQUOT || fail "rule"
        cp -a "$T/alone" "$T/replace"

        # runsc by itself: the profile denies mkdir, and mkdir goes through anyway.
        runsc_run alone-$$ "$T/alone"
        assertEquals "runsc alone: $(cat "$T/alone-$$.err")" 0 "$rc"
        assertEquals "threads reported, runsc alone" $((NTHREADS + 1)) "$(grep -c '^tid=' "$T/alone-$$.out")"
        assertEquals "threads where runsc alone denied mkdir" "" "$(grep ' errno=122$' "$T/alone-$$.out")"
        assertTrue "mkdir ran under runsc alone" "[ -d '$T/alone/rootfs/t' ]"

        # The same config in replace mode: denied in every thread with the profile's errno.
        inject --replace "$T/replace" 2>"$T/inject.err" || fail "inject: $(cat "$T/inject.err")"
        runsc_run replace-$$ "$T/replace"
        assertEquals "replace mode: $(cat "$T/replace-$$.err")" 0 "$rc"
        assertEquals "threads reported, replace mode" $((NTHREADS + 1)) "$(grep -c '^tid=' "$T/replace-$$.out")"
        assertEquals "threads where mkdir was not denied" "" \
                "$(threads_not_denied "$T/replace-$$.out" mkdir $EDQUOT)"
        assertEquals "threads without a filter" "" "$(grep '^tid=' "$T/replace-$$.out" | grep -v ' Seccomp=2 ' || true)"
        assertFalse "mkdir ran in replace mode" "[ -e '$T/replace/rootfs/t' ]"
        assertFalse "a state directory in the bundle" "[ -e '$T/replace/oci-seccomp-tsync' ]"
}

testABrokenProfileStopsTheContainerUnderRunsc() {
        need_runsc || return
        runsc_bundle "$T/b" "touch /marker" || fail "bundle"
        cp "$PROFILES/deny-mkdir.json" "$T/layer.json"
        # Compiled at each start, so a layer broken after inject counts (by default it does not).
        inject --compile-at-start --replace --profile "$T/layer.json" "$T/b" 2>/dev/null || fail "inject"
        cp "$PROFILES/broken.json" "$T/layer.json"
        runsc_run broken-$$ "$T/b"
        assertNotEquals "the container ran" 0 "$rc"
        assertFalse "the workload ran" "[ -e '$T/b/rootfs/marker' ]"
        grep -q "oci-seccomp-tsync: broken-$$: layer .*SCMP_ACT_SOMETIMES" "$T/broken-$$.err" ||
                fail "no error naming the container: $(cat "$T/broken-$$.err")"
}

testAProfileTheInitCannotProveUnderRunscStopsTheContainer() {
        need_runsc || return
        runsc_bundle "$T/b" "touch /marker" || fail "bundle"
        # Denies nothing the probe can call harmlessly: no proof, so no workload.
        tsync_json_edit "$T/b/config.json" \
                '.linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW",
                                   syscalls: [{names: ["uname"], action: "SCMP_ACT_ERRNO"}]}'
        inject --replace "$T/b" 2>/dev/null || fail "inject"
        runsc_run unprovable-$$ "$T/b"
        assertEquals "exit status: $(cat "$T/unprovable-$$.err")" 125 "$rc"
        assertFalse "the workload ran" "[ -e '$T/b/rootfs/marker' ]"
        grep -q "^seccomp-tsync-init: .*answers none of the harmless calls" "$T/unprovable-$$.err" ||
                fail "$(cat "$T/unprovable-$$.err")"
}

testVerifyProcStillRefusesWhereProcShowsNoCounts() {
        need_runsc || return
        make_rootfs "$T/b/rootfs" "$INIT" || fail "rootfs"
        "$OCI" compile -O tsync "$PROFILES/deny-mkdir.json" -o "$T/b/rootfs/deny.tsync" || fail "compile"
        make_bundle "$T/b" /bin/seccomp-tsync-init --verify proc -f /deny.tsync -- /bin/touch /marker ||
                fail "bundle"
        runsc_run proc-$$ "$T/b"
        assertEquals "exit status: $(cat "$T/proc-$$.err")" 125 "$rc"
        assertFalse "the workload ran" "[ -e '$T/b/rootfs/marker' ]"
        grep -q "no Seccomp_filters line" "$T/proc-$$.err" || fail "$(cat "$T/proc-$$.err")"
}

testLayerModeUnderRunscOciSeccompEnforcesTheBaselineAndTheLayer() {
        need_runsc || return
        runsc_bundle "$T/b" "/bin/threads_probe -n 4 getcwd; exec /bin/threads_probe -n 4 mkdir /t" ||
                fail "bundle"
        with_rule "$T/b" getcwd $EPERM || fail "rule"
        inject --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject"
        runsc_run layer-$$ "$T/b" --oci-seccomp
        assertEquals "$(cat "$T/layer-$$.err")" 0 "$rc"
        out=$T/layer-$$.out
        assertEquals "getcwd lines" 5 "$(grep -c 'call=getcwd' "$out")"
        assertEquals "mkdir lines" 5 "$(grep -c 'call=mkdir' "$out")"
        assertEquals "threads where the baseline did not deny getcwd" "" \
                "$(grep 'call=getcwd' "$out" | grep -v "rc=-1 errno=$EPERM\$" || true)"
        assertEquals "threads where the layer did not deny mkdir" "" \
                "$(grep 'call=mkdir' "$out" | grep -v "rc=-1 errno=$EDQUOT\$" || true)"
        assertFalse "mkdir ran" "[ -e '$T/b/rootfs/t' ]"
}

testCheckRuntimeTellsThatRunscIgnoresTheProfileUnlessOciSeccomp() {
        need_runsc || return
        # runsc inherits TMPDIR and its sandbox must be able to reach it.
        mkdir "$T/tmp" && chmod 755 "$T" "$T/tmp"
        TMPDIR=$T/tmp "$OCI" check --runtime runsc --runtime-arg=--network=none >"$T/out" 2>"$T/err"
        rc=$?
        assertEquals "runsc: $(cat "$T/err")" 3 "$rc"
        grep -q "^runsc: ignores linux.seccomp" "$T/out" || fail "$(cat "$T/out")"
        TMPDIR=$T/tmp "$OCI" check --runtime runsc -A --network=none -A --oci-seccomp >"$T/out" 2>"$T/err"
        rc=$?
        assertEquals "runsc --oci-seccomp: $(cat "$T/err")" 0 "$rc"
        grep -q "^runsc: applies linux.seccomp" "$T/out" || fail "$(cat "$T/out")"
        TMPDIR=$T/tmp "$OCI" check --runtime runc >"$T/out" 2>"$T/err"
        rc=$?
        assertEquals "runc: $(cat "$T/err")" 0 "$rc"
        grep -q "^runc: applies linux.seccomp" "$T/out" || fail "$(cat "$T/out")"
        assertEquals "bundles left" "" "$(ls -A "$T/tmp")"
        assertEquals "containers left" "" "$(runsc list -q 2>/dev/null | grep oci-seccomp-tsync-check || true)"
}

# --- the probe route on Linux (no runsc needed) ----------------------------------------------------

# in_pidns CMD...: CMD as PID 1 of a new pid namespace; $T/out, $T/err, $rc.
in_pidns() {
        timeout --preserve-status -s KILL 60 unshare --pid --fork --kill-child --mount-proc "$@" >"$T/out" 2>"$T/err"
        rc=$?
}

# compile_profile NAME JSON: $T/NAME.tsync.
compile_profile() {
        echo "$2" >"$T/$1.json"
        "$OCI" compile -O tsync "$T/$1.json" -o "$T/$1.tsync" 2>"$T/$1.err" || fail "compile $1: $(cat "$T/$1.err")"
}

deny_json() {
        echo '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": '"$1"', "action": "SCMP_ACT_ERRNO", "errnoRet": '"$2"'}]}'
}

testOnLinuxTheProbeAgreesWithTheCountsInEveryThread() {
        compile_profile deny "$(deny_json '["mkdir", "mkdirat"]' $EDQUOT)"
        in_pidns "$INIT" --verify probe -f "$T/deny.tsync" -- "$THREADS" -n $NTHREADS mkdir "$T/t"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "threads reported" $((NTHREADS + 1)) "$(grep -c '^tid=' "$T/out")"
        assertEquals "threads where mkdir was not denied" "" "$(threads_not_denied "$T/out" mkdir $EDQUOT)"
}

testOnLinuxAFilterWhoseEffectIsNotTheSimulatedOneIsCaught() {
        # A hand-made filter: ERRNO(122) for mkdir only where the instruction pointer is 0, which the
        # probe's simulation assumes and no real call has. The kernel lets the probe call through: the
        # proof fails. (Only mkdir: the calls the init itself needs simulate as allowed, so the init
        # gets as far as the proof.)
        python3 "$TSYNC_TOP/tests/tools/filter_file.py" "$T/ip.tsync" \
                0x20,0,0,0 0x15,0,3,83 0x20,0,0,8 0x15,0,1,0 0x06,0,0,0x0005007a 0x06,0,0,0x7fff0000
        in_pidns "$INIT" --verify probe -f "$T/ip.tsync" -- /bin/touch "$T/marker"
        assertEquals "$(cat "$T/err")" 125 "$rc"
        assertFalse "the workload ran" "[ -e '$T/marker' ]"
        grep -q "^seccomp-tsync-init: .*: thread [0-9]* (main): the probe mkdir() got Bad address, not the filter's errno 122" \
                "$T/err" || fail "$(cat "$T/err")"
}

testOnLinuxAProfileDenyingNothingProbeableIsRefused() {
        compile_profile uname "$(deny_json '["uname"]' 1)"
        in_pidns "$INIT" --verify probe -f "$T/uname.tsync" -- /bin/touch "$T/marker"
        assertEquals "$(cat "$T/err")" 125 "$rc"
        assertFalse "the workload ran" "[ -e '$T/marker' ]"
        grep -q "answers none of the harmless calls" "$T/err" || fail "$(cat "$T/err")"
        # The default (auto) proves the same filter from /proc's counts on Linux.
        in_pidns "$INIT" -f "$T/uname.tsync" -- /bin/touch "$T/marker"
        assertEquals "auto on Linux: $(cat "$T/err")" 0 "$rc"
}

testOnLinuxACallThatFailsWithTheSameErrnoOnItsOwnIsNoProof() {
        # mkdir(NULL) fails with EFAULT whether denied or not: that tells nothing.
        compile_profile efault "$(deny_json '["mkdir", "mkdirat"]' 14)"
        in_pidns "$INIT" --verify probe -f "$T/efault.tsync" -- /bin/touch "$T/marker"
        assertEquals "$(cat "$T/err")" 125 "$rc"
        assertFalse "the workload ran" "[ -e '$T/marker' ]"
        grep -q "already fails with Bad address before loading" "$T/err" || fail "$(cat "$T/err")"
}

testOnLinuxEachOfSeveralFiltersIsProvenByItsOwnProbe() {
        # Two filters, two errnos: each probe call is one only its own filter denies.
        compile_profile one "$(deny_json '["mkdir", "mkdirat"]' $EDQUOT)"
        compile_profile two "$(deny_json '["getcwd"]' $ENOTBLK)"
        in_pidns "$INIT" --verify probe -f "$T/one.tsync" -f "$T/two.tsync" -- "$THREADS" -n 2 getcwd
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "threads where getcwd was not denied" "" "$(threads_not_denied "$T/out" getcwd $ENOTBLK)"
        # A filter whose every denial a later one makes too has no effect of its own to observe: refused.
        compile_profile both "$(deny_json '["mkdir", "mkdirat", "getcwd"]' 1)"
        in_pidns "$INIT" --verify probe -f "$T/one.tsync" -f "$T/both.tsync" -- /bin/touch "$T/marker"
        assertEquals "a filter shadowed by the next: $(cat "$T/err")" 125 "$rc"
        assertFalse "the workload ran" "[ -e '$T/marker' ]"
        grep -q "^seccomp-tsync-init: $T/one.tsync: .*answers none" "$T/err" || fail "$(cat "$T/err")"
}

. shunit2
