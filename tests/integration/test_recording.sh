#!/bin/bash
# Recording a profile (issue 13), the host's half end to end: inject --record and the Podman
# annotation io.oci-seccomp-tsync.record ask for it, the init records every call of the workload
# (every thread, child and ABI) into the file createRuntime's relay hands it (issue 23: no directory
# of the host is in the container), and poststop writes the profile.
# Then the recording is used as a layer: the same workloads give the same output and exit status,
# and a workload doing something else is refused by it. Under runc and crun (crun in its own mount
# namespace with cgroup2, as lib.sh's crun_cmd sets it up), and Podman rootful.
# About 2 minutes on 2 cores.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"

PROBE_BIN=$TSYNC_BUILD/tests/static/record_probe
# The busybox workload of the issue, and what it prints.
BUSYBOX_SCRIPT='ls /; cat /etc/hostname; sleep 0.1'
HOSTNAME_LINE=recorded-host

# setUp and tearDown: hooklib.sh's (a temp dir $T, the test's containers removed after it).
oneTimeSetUp() {
        tsync_need_built "$OCI" "$INIT" "$PROBE_BIN"
}

# bundle DIR ARG...: a bundle running ARGS with record_probe, unshare and hostname in its rootfs
# (lib.sh's tsync_probe_bundle) and an /etc/hostname.
bundle() {
        TSYNC_APPLETS="$TSYNC_APPLETS unshare hostname true" tsync_probe_bundle "$1" "$PROBE_BIN" "${@:2}" &&
                echo "$HOSTNAME_LINE" >"$1/rootfs/etc/hostname"
}

# record OUT [INJECT-OPTION...] -- ARG...: a bundle $T/rec running ARGS, recorded into OUT by $RT:
# $rc, $T/$ID.out, $T/$ID.err.
record() {
        local out=$1 OPTS ARGS
        shift
        tsync_split_dashes "$@"
        bundle "$T/rec" "${ARGS[@]}" || fail "bundle"
        inject --record "$out" "${OPTS[@]}" "$T/rec" || fail "inject --record"
        rt_run "$ID" "$T/rec"
}

# replay PROFILE ARG...: a bundle $T/rep running ARGS with PROFILE as a layer: $rc, $T/$ID-rep.out, .err.
replay() {
        local profile=$1
        shift
        bundle "$T/rep" "$@" || fail "bundle"
        inject --profile "$profile" "$T/rep" || fail "inject --profile $profile"
        rt_run "$ID-rep" "$T/rep"
}

# names PROFILE: the names the profile allows, one per line, sorted.
names() {
        jq -r '.syscalls[] | select(.action == "SCMP_ACT_ALLOW") | .names[]' "$1" | sort -u
}

busyboxRoundTrip() {
        record "$T/p.json" -- /bin/sh -c "$BUSYBOX_SCRIPT"
        assertEquals "$RT: recorded run ($(cat "$T/$ID.err"))" 0 "$rc"
        assertContains "$RT: the workload ran" "$(cat "$T/$ID.out")" "$HOSTNAME_LINE"
        assertTrue "$RT: the profile is written" "[ -s $T/p.json ]"
        assertEquals "$RT: the recording's directory is emptied for the next run" "" \
                "$(ls -A "$T/rec/oci-seccomp-tsync-record")"
        assertEquals "$RT: defaultAction" SCMP_ACT_ERRNO "$(jq -r .defaultAction "$T/p.json")"
        for n in execve openat getdents64 read write nanosleep; do
                names "$T/p.json" | grep -qx "$n" || fail "$RT: $n is not in the recording: $(names "$T/p.json" | paste -sd' ')"
        done
        replay "$T/p.json" /bin/sh -c "$BUSYBOX_SCRIPT"
        assertEquals "$RT: under the recording ($(cat "$T/$ID-rep.err"))" 0 "$rc"
        assertEquals "$RT: the same output" "$(cat "$T/$ID.out")" "$(cat "$T/$ID-rep.out")"
}

testBusyboxWorkloadRecordedThenRunUnderItsRecordingGivesTheSameOutput() {
        each_runtime busyboxRoundTrip
}

probeRoundTrip() {
        record "$T/p.json" --record-format docker -- /bin/record_probe 3
        assertEquals "$RT: recorded run passes the status through ($(cat "$T/$ID.err"))" 3 "$rc"
        assertContains "$RT: $(cat "$T/$ID.out")" "$(cat "$T/$ID.out")" "thread=ok"
        assertContains "$RT" "$(cat "$T/$ID.out")" "grandchild=ok"
        # Docker's format names each ABI's calls (archMap and per-ABI rules).
        "$OCI" check --caps all "$T/p.json" >"$T/check" 2>&1 || fail "$RT: check: $(cat "$T/check")"
        "$OCI" explain --caps all "$T/p.json" sysinfo | grep -q ALLOW ||
                fail "$RT: the second thread's sysinfo is not allowed: $("$OCI" explain --caps all "$T/p.json" sysinfo)"
        "$OCI" explain --caps all "$T/p.json" times | grep -q ALLOW || fail "$RT: the grandchild's times is not allowed"
        if grep -q "int80=yes" "$T/$ID.out"; then
                "$OCI" explain --caps all --abi x86 "$T/p.json" getpid | grep -q ALLOW ||
                        fail "$RT: int 0x80's getpid is not allowed under x86: $("$OCI" explain --caps all --abi x86 "$T/p.json" getpid)"
        fi
        replay "$T/p.json" /bin/record_probe 3
        assertEquals "$RT: under the recording ($(cat "$T/$ID-rep.err"))" 3 "$rc"
        assertEquals "$RT: the same output" "$(cat "$T/$ID.out")" "$(cat "$T/$ID-rep.out")"
}

testMultiThreadedWorkloadRecordedWithItsThreadsChildrenAndAbisThenRunUnderIt() {
        each_runtime probeRoundTrip
}

somethingElseRefused() {
        record "$T/p.json" -- /bin/sh -c "$BUSYBOX_SCRIPT"
        assertEquals "$RT: recorded run ($(cat "$T/$ID.err"))" 0 "$rc"
        replay "$T/p.json" /bin/sh -c "$BUSYBOX_SCRIPT; mkdir /x; echo mkdir=\$?; unshare -U true; echo unshare=\$?"
        assertContains "$RT: the recorded part still runs" "$(cat "$T/$ID-rep.out")" "$HOSTNAME_LINE"
        assertContains "$RT: mkdir refused" "$(cat "$T/$ID-rep.out")" "mkdir=1"
        assertNotContains "$RT: unshare refused" "$(cat "$T/$ID-rep.out")" "unshare=0"
        assertContains "$RT: with EPERM" "$(cat "$T/$ID-rep.err")" "Operation not permitted"
        assertFalse "$RT: /x was made" "[ -e $T/rep/rootfs/x ]"
}

testWorkloadDoingSomethingElseIsRefusedByTheRecording() {
        each_runtime somethingElseRefused
}

testInputMergeAddsUpTwoDifferentRuns() {
        ID=merge-$$
        record "$T/a.json" -- /bin/sh -c 'cat /etc/hostname'
        assertEquals "first run ($(cat "$T/$ID.err"))" 0 "$rc"
        names "$T/a.json" | grep -qx mkdirat && fail "the first run made no mkdir"
        record "$T/b.json" --record-input "$T/a.json" -- /bin/sh -c 'mkdir /tmp/d'
        assertEquals "second run ($(cat "$T/$ID.err"))" 0 "$rc"
        names "$T/b.json" | grep -qE '^mkdir(at)?$' || fail "the second run's mkdir is not in the merge"
        assertEquals "everything of the first run is in the merge" "" \
                "$(comm -23 <(names "$T/a.json") <(names "$T/b.json"))"
        replay "$T/b.json" /bin/sh -c 'cat /etc/hostname; mkdir /tmp/d; echo mkdir=$?'
        assertEquals "both runs' work under the merge ($(cat "$T/$ID-rep.err"))" 0 "$rc"
        assertContains "$(cat "$T/$ID-rep.out")" "mkdir=0"
}

# if: takes any profile (issue 25), oci-seccomp-bpf-hook's rule: its rules stay, a call it blocks
# stays blocked though recorded, a recorded call none of its rules names is added.
BASE_BLOCK_MKDIR=$PROFILES/record-base-block-mkdir.json
CONTAINERS_COMMON=/usr/share/containers/seccomp.json

# blocked PROFILE NAME: the actions of the rules naming NAME, sorted, one line.
actions() {
        jq -r --arg n "$2" '[.syscalls[] | select(.names | index($n)) | .action] | sort | unique | join(" ")' "$1"
}

testInputAnyProfileKeepsItsBlocksAndAddsWhatWasRecorded() {
        ID=base-$$
        record "$T/p.json" --record-input "$BASE_BLOCK_MKDIR" -- \
                /bin/sh -c 'cat /etc/hostname; mkdir /tmp/d; echo mkdir=$?'
        assertEquals "recorded run ($(cat "$T/$ID.err"))" 0 "$rc"
        assertContains "the recording ran the workload as it is" "$(cat "$T/$ID.out")" "mkdir=0"
        assertEquals "defaultAction" SCMP_ACT_ERRNO "$(jq -r .defaultAction "$T/p.json")"
        assertEquals "mkdir stays blocked: $(cat "$T/p.json")" SCMP_ACT_ERRNO "$(actions "$T/p.json" mkdir)"
        assertEquals "mkdirat stays blocked" SCMP_ACT_ERRNO "$(actions "$T/p.json" mkdirat)"
        assertEquals "a recorded call is added" SCMP_ACT_ALLOW "$(actions "$T/p.json" execve)"
        replay "$T/p.json" /bin/sh -c 'cat /etc/hostname; mkdir /tmp/d; echo mkdir=$?'
        assertContains "the recorded work runs under it ($(cat "$T/$ID-rep.err"))" "$(cat "$T/$ID-rep.out")" \
                "$HOSTNAME_LINE"
        assertContains "mkdir is refused under it" "$(cat "$T/$ID-rep.out")" "mkdir=1"
        assertFalse "the directory was made" "[ -e $T/rep/rootfs/tmp/d ]"
}

testInputContainersCommonProfileKeepsItsBlocks() {
        [ -r "$CONTAINERS_COMMON" ] || fail "$CONTAINERS_COMMON: not readable (containers-common is not installed)"
        ID=common-$$
        # chroot: refused by containers-common without CAP_SYS_CHROOT (the container has none).
        TSYNC_APPLETS="$TSYNC_APPLETS chroot" record "$T/p.json" --record-input "$CONTAINERS_COMMON" -- \
                /bin/sh -c 'cat /etc/hostname; chroot / true; echo chroot=$?'
        assertEquals "recorded run ($(cat "$T/$ID.err"))" 0 "$rc"
        assertEquals "chroot stays blocked: $(actions "$T/p.json" chroot)" SCMP_ACT_ERRNO \
                "$(actions "$T/p.json" chroot)"
        assertEquals "kexec_load stays blocked" SCMP_ACT_ERRNO "$(actions "$T/p.json" kexec_load)"
        assertEquals "what containers-common allows stays allowed" SCMP_ACT_ALLOW "$(actions "$T/p.json" execve)"
        # A copy that no longer names getdents64: ls's call is added.
        jq '(.syscalls[] | .names) |= map(select(. != "getdents64"))' "$CONTAINERS_COMMON" >"$T/common-less.json"
        record "$T/q.json" --record-input "$T/common-less.json" -- /bin/sh -c 'ls /'
        assertEquals "recorded run ($(cat "$T/$ID.err"))" 0 "$rc"
        assertEquals "a recorded call is added" SCMP_ACT_ALLOW "$(actions "$T/q.json" getdents64)"
        replay "$T/q.json" /bin/sh -c 'ls /; echo ls=$?'
        assertContains "ls runs under it ($(cat "$T/$ID-rep.err"))" "$(cat "$T/$ID-rep.out")" "ls=0"
}

# inject_refused WHAT INJECT-OPTION...: inject of $T/rec with these options refuses with one line
# (in $T/err) and leaves its config.json as $T/before.json.
inject_refused() {
        local what=$1
        shift
        "$OCI" inject --cache-dir "$T/cache" "$@" "$T/rec" 2>"$T/err"
        rc=$?
        assertEquals "$what: refused ($(cat "$T/err"))" 1 "$rc"
        assertEquals "one line" 1 "$(wc -l <"$T/err")"
        assertTrue "$what: config.json untouched" "cmp -s $T/before.json $T/rec/config.json"
}

testBadInputRefusesTheStartBeforeTheWorkloadRuns() {
        bundle "$T/rec" /bin/touch /tmp/marker || fail "bundle"
        cp "$T/rec/config.json" "$T/before.json"
        echo '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["mkdir"], "action": "SCMP_ACT_BLOCK"}]}' \
                >"$T/bad.json"
        echo '{"defaultAction": ' >"$T/broken.json"
        for in in "$T/bad.json" "$T/broken.json" "$T/none.json"; do
                inject_refused "$in" --record "$T/p.json" --record-input "$in"
                assertContains "$(cat "$T/err")" "if"
                assertContains "$(cat "$T/err")" "$in"
        done
        assertFalse "no recording directory" "[ -e $T/rec/oci-seccomp-tsync-record ]"
        assertFalse "no profile" "[ -e $T/p.json ]"
        assertFalse "the workload never ran" "[ -e $T/rec/rootfs/tmp/marker ]"
}

killedWorkload() {
        record "$T/p.json" -- /bin/record_probe 0 kill
        assertEquals "$RT: killed ($(cat "$T/$ID.err"))" 137 "$rc"
        assertTrue "$RT: the profile of a killed workload is written" "[ -s $T/p.json ]"
        "$OCI" explain "$T/p.json" sysinfo | grep -q ALLOW || fail "$RT: what it did before the kill is missing"
}

testKilledWorkloadStillProducesTheProfile() {
        each_runtime killedWorkload
}

testContainerKilledFromOutsideStillProducesTheProfile() {
        ID=outside-$$
        bundle "$T/rec" /bin/sh -c 'cat /etc/hostname; exec sleep 600' || fail "bundle"
        inject --record "$T/p.json" "$T/rec" || fail "inject"
        start_runc "$ID" "$T/rec" || fail "start"
        runc kill "$ID" KILL
        stop_runc "$ID" # runc delete: poststop
        assertTrue "the profile is written" "[ -s $T/p.json ]"
        names "$T/p.json" | grep -qx nanosleep || names "$T/p.json" | grep -qx clock_nanosleep ||
                fail "sleep's call is missing: $(names "$T/p.json" | paste -sd' ')"
}

# The init empties the record when it gives up before the workload runs: poststop says so and an
# earlier profile at of: is not replaced by an empty one.
testStartThatNeverRanTheWorkloadLeavesAnEarlierProfileAsItWas() {
        ID=never-$$
        echo '{"earlier": true}' >"$T/p.json"
        record "$T/p.json" -- /nonexistent/program
        assertEquals "$(cat "$T/$ID.err")" 127 "$rc"
        assertEquals "the earlier profile" '{"earlier": true}' "$(cat "$T/p.json")"
        assertContains "poststop said so" "$(cat "$T/$ID.err")" "nothing was recorded"
}

testNonRootWorkloadIsRecorded() {
        ID=user-$$
        bundle "$T/rec" /bin/sh -c 'id -u; cat /etc/hostname' || fail "bundle"
        tsync_json_edit "$T/rec/config.json" '.process.user = {uid: 1000, gid: 1000}'
        inject --record "$T/p.json" "$T/rec" || fail "inject"
        assertEquals "the directory is root's alone, never the workload user's" "0:0 700" \
                "$(stat -c '%u:%g %a' "$T/rec/oci-seccomp-tsync-record")"
        rt_run "$ID" "$T/rec"
        assertEquals "$(cat "$T/$ID.err")" 0 "$rc"
        assertTrue "the profile is written" "[ -s $T/p.json ]"
}

testBadOutputPathRefusesTheStartBeforeTheWorkloadRuns() {
        bundle "$T/rec" /bin/touch /tmp/marker || fail "bundle"
        cp "$T/rec/config.json" "$T/before.json"
        for out in "$T/rec/rootfs/p.json" "$T/link/p.json" "$T/none/p.json"; do
                mkdir -p "$T/real" && ln -sfn real "$T/link"
                inject_refused "$out" --record "$out"
                assertContains "$(cat "$T/err")" "of: '$out'"
        done
        assertFalse "no recording directory" "[ -e $T/rec/oci-seccomp-tsync-record ]"
        assertFalse "the workload never ran" "[ -e $T/rec/rootfs/tmp/marker ]"
}

testCheckReportsNoErrorsAndExplainWorksOnARecording() {
        ID=check-$$
        record "$T/p.json" -- /bin/sh -c "$BUSYBOX_SCRIPT"
        assertEquals "$(cat "$T/$ID.err")" 0 "$rc"
        "$OCI" check "$T/p.json" >"$T/check" 2>&1
        rc=$?
        assertEquals "check: $(cat "$T/check")" 0 "$rc"
        assertContains "$(cat "$T/check")" "0 errors"
        "$OCI" explain "$T/p.json" execve >"$T/explain" 2>&1
        rc=$?
        assertEquals "explain: $(cat "$T/explain")" 0 "$rc"
        assertContains "$(cat "$T/explain")" "ALLOW"
        "$OCI" explain "$T/p.json" unshare >"$T/explain" 2>&1
        assertContains "$(cat "$T/explain")" "ERRNO"
}

testCheckDescribesARecordingAConfigAsksFor() {
        bundle "$T/rec" /bin/true || fail "bundle"
        tsync_json_edit "$T/rec/config.json" '.annotations["io.oci-seccomp-tsync.record"] = "of:/tmp/p.json;errno:ENOSYS"
                | .linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW"}'
        "$OCI" check -f config "$T/rec/config.json" >"$T/check" 2>&1
        rc=$?
        assertEquals "$(cat "$T/check")" 0 "$rc"
        grep -q "^$T/rec/config.json: record: .*/tmp/p.json in the OCI format (defaultErrnoRet ENOSYS)" "$T/check" ||
                fail "$(cat "$T/check")"
        tsync_json_edit "$T/rec/config.json" '.annotations["io.oci-seccomp-tsync.record"] = "of:p.json"'
        "$OCI" check -f config "$T/rec/config.json" >"$T/check" 2>&1
        rc=$?
        assertEquals "$(cat "$T/check")" 1 "$rc"
        grep -q "^$T/rec/config.json: error: .*of: 'p.json' is not an absolute path" "$T/check" || fail "$(cat "$T/check")"
}

# poststop_alone CALLS ERRNO FILE...: a bundle $T/b injected with a layer, its recording's
# directory (0700) holding the record file CALLS (printf's escapes) and FILEs the workload left
# (sub/ is there), its plan asking for an OCI profile at $T/p.json denying with ERRNO; then the
# poststop hook alone, as the runtime calls it after the container: $rc, stderr in $T/err.
poststop_alone() {
        local dir="$T/b/oci-seccomp-tsync-record" f
        bundle "$T/b" /bin/true || fail "bundle"
        inject --compile-at-start --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject"
        mkdir -m 0700 "$dir" "$dir/sub" || fail "mkdir"
        for f in "${@:3}"; do
                touch "$dir/$f"
        done
        printf '%b' "$1" >"$dir/calls"
        tsync_json_edit "$T/b/config.json" '.annotations["io.oci-seccomp-tsync.plan"] |= (fromjson
                | .record = {output: $o, format: "oci", errno: $e, dir: $d} | tojson)' \
                --arg o "$T/p.json" --arg e "$2" --arg d "$dir"
        echo "{\"ociVersion\": \"1.0.2\", \"id\": \"ps-$$\", \"status\": \"stopped\", \"bundle\": \"$T/b\"}" |
                "$OCI" hook poststop --cache-dir "$T/cache" 2>"$T/err"
        rc=$?
}

# poststop alone, on a record file as the init leaves it (anything the container added to the
# directory goes too): the profile is written and inject's directory emptied for the next run; a
# call with no name is left out with a warning.
testPoststopWritesTheProfileAndEmptiesTheRecordingDirectory() {
        local dir="$T/b/oci-seccomp-tsync-record"
        poststop_alone 'oci-seccomp-tsync-record 1\nc000003e 59\nc000003e 0\nc000003e 999\n' ENOSYS \
                sub/left-by-the-workload
        assertEquals "poststop: $(cat "$T/err")" 0 "$rc"
        # 999 has no name: left out (denied), with one warning.
        assertEquals "one warning: $(cat "$T/err")" 1 "$(wc -l <"$T/err")"
        assertContains "$(cat "$T/err")" "oci-seccomp-tsync: ps-$$: warning: recording: calls this libseccomp has no name for"
        assertContains "$(cat "$T/err")" "SCMP_ARCH_X86_64 999"
        assertEquals "defaultErrnoRet" 38 "$(jq .defaultErrnoRet "$T/p.json")"
        names "$T/p.json" | grep -qx execve || fail "execve: $(cat "$T/p.json")"
        assertTrue "the directory stays for the bundle's next run" "[ -d $dir ]"
        assertEquals "and is empty" "" "$(ls -A "$dir")"
}

# podman_record_hooks: our hooks.d files in $T/hooks.d, profiles from $T/profiles, recordings'
# directories under $T/recroot (0700).
podman_record_hooks() {
        mkdir -p "$T/profiles" && mkdir -m 0700 "$T/recroot" || fail "mkdir"
        podman_hooks_dir "$T/hooks.d" "$T/profiles" "" "$T/cache" "$T/recroot" || fail "hooks.d"
}

# podman_record VALUE SCRIPT: podman run --rm of $rootfs with those hooks, the annotation
# io.oci-seccomp-tsync.record=VALUE, running `sh -c SCRIPT`: $rc, $T/out, $T/err.
podman_record() {
        podman --hooks-dir "$T/hooks.d" run --rm --runtime runc --label tsync-test=$$ \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
                --annotation "io.oci-seccomp-tsync.record=$1" --rootfs "$rootfs" \
                /bin/sh -c "$2" </dev/null >"$T/out" 2>"$T/err"
        rc=$?
}

# wait_for_file FILE: until FILE is there and not empty (10 s at most): poststop runs as Podman
# cleans up, after `podman run` returned. Not a timed assert: the caller's assert says if it came.
wait_for_file() {
        local i
        for i in $(seq 100); do
                [ -s "$1" ] && return 0
                sleep 0.1
        done
}

# Podman rootful: the annotation with our hooks.d files (precreate, poststop), the recording's
# directory under --record-root.
testPodmanAnnotationRecordsTheContainer() {
        command -v podman >/dev/null || fail "podman is not installed"
        local rootfs="$T/rootfs"
        podman_record_hooks
        TSYNC_APPLETS="$TSYNC_APPLETS unshare" make_rootfs "$rootfs" "$PROBE_BIN" || fail "rootfs"
        podman_record "of:$T/pod.json" 'ls /; echo podman-ok'
        assertEquals "podman run: $(cat "$T/err")" 0 "$rc"
        assertContains "$(cat "$T/out")" "podman-ok"
        # poststop runs as Podman cleans up; wait for it (not a timed assert: the file must come).
        wait_for_file "$T/pod.json"
        assertTrue "the profile is written: $(cat "$T/err")" "[ -s $T/pod.json ]"
        assertEquals "the recording's directory is removed" "" "$(ls -A "$T/recroot")"
        names "$T/pod.json" | grep -qx getdents64 || fail "ls's getdents64: $(names "$T/pod.json" | paste -sd' ')"
        # A bad of: refuses the start: the workload never runs.
        podman_record "of:p.json" 'echo ran'
        assertNotEquals "a relative of: is refused" 0 "$rc"
        assertNotContains "$(cat "$T/out")" "ran"
        # Podman shows the hook's exit status, not its line (test_failclosed.sh checks the line).
        assertContains "$(cat "$T/err")" "hook precreate"
}

# Podman rootful with if: (issue 25): any profile as the annotation's if:, its blocks kept; a bad one
# refuses at precreate, before the workload runs, and leaves nothing in the record root.
testPodmanAnnotationTakesAnyProfileAsInput() {
        command -v podman >/dev/null || fail "podman is not installed"
        local rootfs="$T/rootfs"
        podman_record_hooks
        make_rootfs "$rootfs" "$PROBE_BIN" || fail "rootfs"
        podman_record "if:$BASE_BLOCK_MKDIR;of:$T/pod.json" 'mkdir /tmp/d; echo podman-ok'
        assertEquals "podman run: $(cat "$T/err")" 0 "$rc"
        assertContains "$(cat "$T/out")" "podman-ok"
        # poststop runs as Podman cleans up; wait for it (not a timed assert: the file must come).
        wait_for_file "$T/pod.json"
        assertTrue "the profile is written: $(cat "$T/err")" "[ -s $T/pod.json ]"
        assertEquals "mkdir stays blocked" SCMP_ACT_ERRNO "$(actions "$T/pod.json" mkdir)"
        assertEquals "mkdirat stays blocked" SCMP_ACT_ERRNO "$(actions "$T/pod.json" mkdirat)"
        assertEquals "a recorded call is added" SCMP_ACT_ALLOW "$(actions "$T/pod.json" execve)"
        # containers-common's own profile as if:.
        podman_record "if:$CONTAINERS_COMMON;of:$T/common.json" 'ls / >/dev/null; echo podman-ok'
        assertEquals "podman run with containers-common's: $(cat "$T/err")" 0 "$rc"
        wait_for_file "$T/common.json"
        assertEquals "kexec_load stays blocked" SCMP_ACT_ERRNO "$(actions "$T/common.json" kexec_load)"
        assertEquals "execve allowed" SCMP_ACT_ALLOW "$(actions "$T/common.json" execve)"
        # A bad if: refuses the start: the workload never runs, nothing is left in the record root.
        echo '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["mkdir"], "action": "SCMP_ACT_BLOCK"}]}' \
                >"$T/bad.json"
        podman_record "if:$T/bad.json;of:$T/bad-out.json" 'echo ran'
        assertNotEquals "a bad if: is refused" 0 "$rc"
        assertNotContains "$(cat "$T/out")" "ran"
        assertContains "$(cat "$T/err")" "hook precreate"
        assertFalse "no profile" "[ -e $T/bad-out.json ]"
        assertEquals "nothing in the record root" "" "$(ls -A "$T/recroot")"
}

# issue 23: no directory of the host that the container can write to. With a read-only rootfs the
# workload tries, in every directory under /.oci-seccomp-tsync, to create a file, a setuid copy of
# busybox and 64 MiB; afterwards none of it exists on the host, the recording round-trips, and the
# recording's directory (root's, 0700) holds nothing.
HOSTILE='ls /.oci-seccomp-tsync; for d in $(find /.oci-seccomp-tsync -type d); do
        echo x >"$d/tsync-hostile-file" 2>/dev/null && echo "file:$d"
        cp /bin/busybox "$d/tsync-hostile-suid" 2>/dev/null && chmod 4755 "$d/tsync-hostile-suid" 2>/dev/null && echo "suid:$d"
        dd if=/dev/zero of="$d/tsync-hostile-fill" bs=1M count=64 2>/dev/null && echo "fill:$d"
done; echo done'
hostileRecording() {
        bundle "$T/rec" /bin/sh -c "$HOSTILE" || fail "bundle"
        tsync_json_edit "$T/rec/config.json" '.root.readonly = true'
        inject --record "$T/p.json" "$T/rec" || fail "inject --record"
        rt_run "$ID" "$T/rec"
        assertEquals "$RT: recorded run ($(cat "$T/$ID.err"))" 0 "$rc"
        assertEquals "$RT: what is under /.oci-seccomp-tsync, and where the workload could write: $(cat "$T/$ID.out")" \
                "agent
init
done" "$(grep -v '^file:/.oci-seccomp-tsync/agent$' "$T/$ID.out")"
        assertNotContains "$RT: a setuid file or 64 MiB anywhere" "$(cat "$T/$ID.out")" "suid:"
        assertNotContains "$RT" "$(cat "$T/$ID.out")" "fill:"
        assertEquals "$RT: what reached the host" "" "$(find "$T" /var/lib/oci-seccomp-tsync -name 'tsync-hostile-*' 2>/dev/null)"
        assertTrue "$RT: the profile is written" "[ -s $T/p.json ]"
        assertEquals "$RT: the recording's directory: root's, 0700, empty" "0:0 700 " \
                "$(stat -c '%u:%g %a' "$T/rec/oci-seccomp-tsync-record") $(ls -A "$T/rec/oci-seccomp-tsync-record")"
        names "$T/p.json" | grep -qx execve || fail "$RT: execve is not in the recording"
        rm -f "$T/p.json"
}
testTheContainerSeesNoHostDirectoryOfOursThatItCanWrite() { each_runtime hostileRecording; }

# poststop, when the record file cannot become a profile: only the raw calls stay, in the recording's
# directory (root's alone), and the message says where; everything else there goes.
testPoststopFailureKeepsOnlyTheRawCallsWhereOnlyRootCanReadThem() {
        local dir="$T/b/oci-seccomp-tsync-record"
        poststop_alone 'oci-seccomp-tsync-record 1\nnot a line\n' EPERM sub/stray stray
        assertNotEquals "poststop: $(cat "$T/err")" 0 "$rc"
        assertEquals "one line: $(cat "$T/err")" 1 "$(wc -l <"$T/err")"
        assertContains "$(cat "$T/err")" "the raw calls stay in $dir/calls (root's alone)"
        assertEquals "only the raw calls are left" "calls" "$(ls -A "$dir")"
        assertEquals "root's alone" "0:0 700" "$(stat -c '%u:%g %a' "$dir")"
        assertFalse "no profile" "[ -e $T/p.json ]"
}

suite() {
        tsync_add_declared_tests
}

. shunit2
