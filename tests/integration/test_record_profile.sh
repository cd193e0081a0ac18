#!/bin/bash
# Recording (issue 13), the profile half: a record file becomes a profile
# (tests/tools/record_profile, the library poststop uses) that `check` passes,
# `explain` reads, and real runc and crun apply as linux.seccomp (both
# noNewPrivileges settings: without it the runtime loads the filter before
# it drops capabilities and changes user) or our init as a layer, or both, and
# Podman reads in the Docker format: the recorded workload runs, anything else
# is refused.
#
# The record file is made by hand from strace -f -n of the same busybox
# workload in a chroot of the same root filesystem: the calls it makes after
# its execve, each as "c000003e NR" (x86_64 only, where the audit arch is
# known here).
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

OCI=$TSYNC_BUILD/bin/oci-seccomp-tsync
INIT=$TSYNC_BUILD/bin/seccomp-tsync-init
TOOL=$TSYNC_TOOLS/record_profile
WORKLOAD='ls /; cat /etc/hostname'
MAGIC='oci-seccomp-tsync-record 1'

oneTimeSetUp() {
        tsync_need_built "$OCI" "$INIT" "$TOOL"
        command -v strace >/dev/null || {
                echo "test_record_profile.sh: strace is not installed" >&2
                exit 1
        }
}

setUp() {
        tsync_test_begin || exit 1
        T=$TSYNC_TMP
        [ "$(uname -m)" = x86_64 ] || startSkipping
}

tearDown() {
        podman ps -aq --filter label=tsync-test=$$ 2>/dev/null | xargs -r podman rm -f >/dev/null 2>&1
        tsync_test_end
}

# record_of SCRIPT FILE: the record file of `sh -c SCRIPT` in $T/rootfs (made once).
record_of() {
        local script=$1 file=$2
        if [ ! -d "$T/rootfs" ]; then
                make_rootfs "$T/rootfs" && echo recorded-host >"$T/rootfs/etc/hostname" || return 1
        fi
        strace -f -n -qq -o "$T/trace" chroot "$T/rootfs" /bin/sh -c "$script" >/dev/null 2>&1
        {
                echo "$MAGIC"
                awk '/execve\("\/bin\/sh"/ { on = 1 } on && match($0, /\[ *[0-9]+\]/) {
                        print substr($0, RSTART + 1, RLENGTH - 2) + 0 }' "$T/trace" |
                        sort -nu | sed 's/^/c000003e /'
        } >"$file"
        [ "$(wc -l <"$file")" -gt 10 ] || {
                tsync_log "record_of: too few calls in $file"
                return 1
        }
}

# bundle_with DIR PROFILE NNP SCRIPT: a runc bundle on a copy of $T/rootfs running `sh -c SCRIPT`,
# PROFILE its linux.seccomp ("" for none), noNewPrivileges NNP.
bundle_with() {
        local dir=$1 profile=$2 nnp=$3 script=$4
        mkdir -p "$dir" && cp -a "$T/rootfs" "$dir/rootfs" && make_bundle "$dir" sh -c "$script" || return 1
        # shellcheck disable=SC2016 # jq's variables
        tsync_json_edit "$dir/config.json" '.process.noNewPrivileges = $nnp | .hostname = "recorded-host"' \
                --argjson nnp "$nnp" || return 1
        if [ -n "$profile" ]; then
                tsync_json_edit "$dir/config.json" '.linux.seccomp = $p' --slurpfile p "$profile" || return 1
                tsync_json_edit "$dir/config.json" '.linux.seccomp = .linux.seccomp[0]'
        fi
}

# run_in RUNTIME BUNDLE: runs it; output in $T/out, errors in $T/err, status in $rc.
run_in() {
        local id
        id=$(tsync_unique_id rec)
        run_runtime "$1" "$id" "$2" "$T/out" "$T/err"
}

# assert_ran_the_workload WHAT: the run printed / and the hostname, and exited 0.
assert_ran_the_workload() {
        assertEquals "$1: exit status ($(cat "$T/err"))" 0 "$rc"
        assertTrue "$1: ls / lists bin ($(cat "$T/out"))" "grep -qx bin '$T/out'"
        assertTrue "$1: cat /etc/hostname" "grep -qx recorded-host '$T/out'"
}

# assert_mkdir_refused WHAT: mkdir failed with EPERM (the profile's errno).
assert_mkdir_refused() {
        assertNotEquals "$1: mkdir must fail" 0 "$rc"
        assertTrue "$1: EPERM ($(cat "$T/err"))" "grep -q 'Operation not permitted' '$T/err'"
}

testARecordedProfileChecksWithNoErrorsInBothFormats() {
        record_of "$WORKLOAD" "$T/calls" || fail "record" || return
        "$TOOL" "$T/calls" >"$T/oci.json" || fail "oci profile" || return
        "$TOOL" --format docker "$T/calls" >"$T/docker.json" || fail "docker profile" || return
        "$OCI" check "$T/oci.json" >"$T/check.out" 2>&1
        last_rc=$?
        assertEquals "check oci: $(cat "$T/check.out")" 0 "$last_rc"
        assertTrue "0 errors, 0 warnings" "grep -q '0 errors, 0 warnings' '$T/check.out'"
        "$OCI" check --caps none "$T/docker.json" >"$T/check.out" 2>&1
        last_rc=$?
        assertEquals "check docker: $(cat "$T/check.out")" 0 "$last_rc"
        assertTrue "0 errors, 0 warnings" "grep -q '0 errors, 0 warnings' '$T/check.out'"
        # The init can supervise under it: its calls after the load are in the profile.
        assertTrue "init supervises" "grep -q 'init: supervises the workload' '$T/check.out'"
}

testExplainSaysWhatARecordedProfileAllowsAndRefuses() {
        printf '%s\nc000003e 59\nc000003e 0\n40000003 4\n' "$MAGIC" >"$T/calls"
        "$TOOL" --errno ENOSYS "$T/calls" >"$T/p.json" || fail "profile" || return
        "$OCI" explain "$T/p.json" execve >"$T/out" 2>&1
        assertTrue "execve allowed: $(cat "$T/out")" "grep -q '^execve (SCMP_ARCH_X86_64, nr 59) -> ALLOW' '$T/out'"
        assertTrue "by the recorded rule" "grep -q 'decided by: rule syscalls\[0\]' '$T/out'"
        "$OCI" explain "$T/p.json" mkdir >"$T/out" 2>&1
        assertTrue "mkdir refused with ENOSYS: $(cat "$T/out")" "grep -q '^mkdir .* -> ERRNO(38)' '$T/out'"
        "$OCI" explain "$T/p.json" wait4 >"$T/out" 2>&1
        assertTrue "the init's wait4 by the added rule: $(cat "$T/out")" \
                "grep -q 'decided by: rule syscalls\[1\]' '$T/out'"
}

# The runtime alone applies the recording as linux.seccomp.
runtime_runs_only_what_was_recorded() {
        local runtime=$1 nnp
        record_of "$WORKLOAD" "$T/calls" || fail "record" || return
        "$TOOL" "$T/calls" >"$T/p.json" || fail "profile" || return
        for nnp in true false; do
                bundle_with "$T/ok-$nnp" "$T/p.json" "$nnp" "$WORKLOAD" || fail "bundle" || return
                run_in "$runtime" "$T/ok-$nnp"
                assert_ran_the_workload "$runtime, noNewPrivileges $nnp"
                bundle_with "$T/no-$nnp" "$T/p.json" "$nnp" "mkdir /x" || fail "bundle" || return
                run_in "$runtime" "$T/no-$nnp"
                assert_mkdir_refused "$runtime, noNewPrivileges $nnp"
        done
}

testRuncRunsTheRecordedWorkloadAndRefusesMkdir() {
        runtime_runs_only_what_was_recorded runc
}

testCrunRunsTheRecordedWorkloadAndRefusesMkdir() {
        runtime_runs_only_what_was_recorded crun
}

# Through our init: the recording as a layer on no linux.seccomp, then as
# linux.seccomp too (the runtime's filter then judges the init's own calls).
init_runs_only_what_was_recorded() {
        local runtime=$1 how
        record_of "$WORKLOAD" "$T/calls" || fail "record" || return
        "$TOOL" "$T/calls" >"$T/p.json" || fail "profile" || return
        for how in layer both; do
                local seccomp=
                [ "$how" = both ] && seccomp=$T/p.json
                bundle_with "$T/ok-$how" "$seccomp" true "$WORKLOAD" || fail "bundle" || return
                "$OCI" inject --no-hooks --no-cache --init "$INIT" --profile "$T/p.json" "$T/ok-$how" 2>"$T/err" ||
                        fail "inject: $(cat "$T/err")" || return
                run_in "$runtime" "$T/ok-$how"
                assert_ran_the_workload "$runtime, as $how"
                bundle_with "$T/no-$how" "$seccomp" true "mkdir /x" || fail "bundle" || return
                "$OCI" inject --no-hooks --no-cache --init "$INIT" --profile "$T/p.json" "$T/no-$how" 2>"$T/err" ||
                        fail "inject: $(cat "$T/err")" || return
                run_in "$runtime" "$T/no-$how"
                assert_mkdir_refused "$runtime, as $how"
        done
}

testTheInitUnderRuncRunsTheRecordedWorkloadAsALayer() {
        init_runs_only_what_was_recorded runc
}

testTheInitUnderCrunRunsTheRecordedWorkloadAsALayer() {
        init_runs_only_what_was_recorded crun
}

# Why syscalls[1] is there: without it the runtime cannot finish its own start,
# nor our init its own, under the workload's calls alone.
testWithoutTheAddedRuleTheRuntimeAndTheInitCannotStart() {
        record_of "$WORKLOAD" "$T/calls" || fail "record" || return
        "$TOOL" "$T/calls" | jq 'del(.syscalls[1])' >"$T/bare.json" || fail "profile" || return
        bundle_with "$T/runc" "$T/bare.json" false "$WORKLOAD" || fail "bundle" || return
        run_in runc "$T/runc"
        assertNotEquals "runc, noNewPrivileges false: $(cat "$T/err")" 0 "$rc"
        bundle_with "$T/init" "$T/bare.json" true "$WORKLOAD" || fail "bundle" || return
        "$OCI" inject --no-hooks --no-cache --init "$INIT" --profile "$T/bare.json" "$T/init" 2>"$T/err"
        if [ $? -eq 0 ]; then
                run_in runc "$T/init"
                assertNotEquals "the init under the bare profile: $(cat "$T/out")" 0 "$rc"
        else
                assertTrue "inject names the init's call: $(cat "$T/err")" "grep -q 'init' '$T/err'"
        fi
}

# The Docker format as containers/common reads it: Podman (runc, its default noNewPrivileges
# false and capabilities) with the recording as --security-opt seccomp=.
testPodmanAppliesTheDockerFormat() {
        local script
        record_of "$WORKLOAD" "$T/calls" || fail "record" || return
        "$TOOL" --format docker "$T/calls" >"$T/docker.json" || fail "profile" || return
        for script in "$WORKLOAD" "mkdir /tmp/x"; do
                timeout -s KILL 120 podman run --rm --runtime runc --label tsync-test=$$ \
                        --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --security-opt seccomp="$T/docker.json" \
                        --rootfs "$T/rootfs" /bin/sh -c "$script" </dev/null >"$T/out" 2>"$T/err"
                rc=$?
                if [ "$script" = "$WORKLOAD" ]; then
                        assertEquals "podman: $(cat "$T/err")" 0 "$rc"
                        assertTrue "podman: ls / lists bin" "grep -qx bin '$T/out'"
                else
                        assert_mkdir_refused podman
                fi
        done
}

testTwoRecordingsAddUp() {
        record_of "$WORKLOAD" "$T/a" || fail "record a" || return
        record_of "mkdir /tmp/made" "$T/b" || fail "record b" || return
        rmdir "$T/rootfs/tmp/made"
        "$TOOL" --format docker "$T/a" >"$T/a.json" || fail "profile a" || return
        "$TOOL" --input "$T/a.json" --output "$T/ab.json" "$T/b" 2>"$T/err" || fail "merge: $(cat "$T/err")" || return
        bundle_with "$T/both-ls" "$T/ab.json" true "$WORKLOAD" || fail "bundle" || return
        run_in runc "$T/both-ls"
        assert_ran_the_workload "merged, the first workload"
        bundle_with "$T/both-mkdir" "$T/ab.json" true "mkdir /tmp/made && echo made" || fail "bundle" || return
        run_in runc "$T/both-mkdir"
        assertEquals "merged, the second workload: $(cat "$T/err")" 0 "$rc"
        assertEquals "made" "$(cat "$T/out")"
        # Merging again changes nothing.
        "$TOOL" --input "$T/ab.json" "$T/b" >"$T/ab2.json" || fail "merge again" || return
        assertTrue "a fixed point" "cmp -s '$T/ab.json' '$T/ab2.json'"
}

testAProfileIsNotWrittenIntoTheRootfsOrThroughASymlink() {
        printf '%s\nc000003e 59\n' "$MAGIC" >"$T/calls"
        mkdir -p "$T/b/rootfs/etc" "$T/real" && ln -s real "$T/link"
        "$TOOL" --rootfs "$T/b/rootfs" --output "$T/b/rootfs/etc/p.json" "$T/calls" 2>"$T/err"
        assertEquals 1 $?
        assertTrue "names the rootfs: $(cat "$T/err")" "grep -q \"is under the container's rootfs\" '$T/err'"
        assertFalse "nothing written" "[ -e '$T/b/rootfs/etc/p.json' ]"
        "$TOOL" --rootfs "$T/b/rootfs" --output "$T/link/p.json" "$T/calls" 2>"$T/err"
        assertEquals 1 $?
        assertTrue "names the link: $(cat "$T/err")" "grep -q \"'$T/link' is a symbolic link\" '$T/err'"
        assertFalse "nothing written" "[ -e '$T/real/p.json' ]"
        "$TOOL" --rootfs "$T/b/rootfs" --output "$T/real/p.json" "$T/calls" 2>"$T/err"
        last_rc=$?
        assertEquals "$(cat "$T/err")" 0 "$last_rc"
        assertEquals "0644" "$(stat -c %04a "$T/real/p.json")"
}

. shunit2
