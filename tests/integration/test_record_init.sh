#!/bin/bash
# Recording (issue 13), the init's half: seccomp-tsync-init --record FILE with a recording filter
# (listener 3, record/record_file.h) notes every (ABI, syscall) pair the workload makes, from every
# thread and every descendant, and nothing of its own; the workload behaves as it would without
# it (same output, same status), and a workload killed with SIGKILL still leaves what it did.
# The init runs as PID 1 of a new pid namespace (unshare), under the real kernel's seccomp, as in
# test_init.sh; the recording filter is hand-made (every call to the listener), the way the host
# writes it. The refusals are rows of test_failclosed.sh ("issue 13: recording (the init)").
# About 15 s.
TOP=${TSYNC_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/integration/lib.sh
. "$TOP/tests/integration/lib.sh"
# shellcheck source=tests/integration/hooklib.sh
. "$TOP/tests/integration/hooklib.sh"

INIT=$TSYNC_BUILD/bin/seccomp-tsync-init
OCI=$TSYNC_BUILD/bin/oci-seccomp-tsync
PROBE=$TSYNC_BUILD/tests/static/record_probe
MAGIC='oci-seccomp-tsync-record 1'
# x86-64 numbers: what the probe makes in one place only, and what only the init makes.
NATIVE=c000003e
I386=40000003
SYSINFO=99     # only in a second thread of the workload
TIMES=100      # only in a grandchild
I386_GETPID=20 # only through int 0x80, in a child
EXECVE=59
CAPSET=126  # only the init's main thread, after the load (capabilities changed after it)
SETPGID=109 # only the init's child before its execve (-g)
MKDIR=83

oneTimeSetUp() {
        tsync_need_built "$INIT" "$OCI" "$PROBE"
        if [ "$(uname -m)" != x86_64 ]; then
                echo "test_record_init.sh: the expected numbers are x86-64's" >&2
                exit 1
        fi
}

setUp() {
        tsync_test_begin || exit 1
        T=$TSYNC_TMP
        # Every call to the listener: the recording filter as the host compiles it.
        python3 "$TOP/tests/tools/filter_file.py" --listener 3 "$T/rec.bpf" 0x06,0,0,0x7fc00000 ||
                fail "filter_file.py"
        echo '{"defaultAction": "SCMP_ACT_ALLOW",
               "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 71}]}' \
                >"$T/deny.json"
        "$OCI" compile -O tsync "$T/deny.json" -o "$T/deny.tsync" 2>"$T/compile.err" ||
                fail "compile: $(cat "$T/compile.err")"
}

tearDown() {
        tsync_test_end
}

# in_pidns CMD...: CMD as PID 1 of a new pid namespace with its own /proc. stdout to $T/out,
# stderr to $T/err, the status to $rc. A hang ends in SIGKILL (137) after 60 s.
in_pidns() {
        timeout --preserve-status -s KILL 60 unshare --pid --fork --kill-child --mount-proc "$@" >"$T/out" 2>"$T/err"
        rc=$?
}

# record ARGS... -- CMD...: the init with the layer and the recording filter, recording into $T/calls.
record() {
        in_pidns "$INIT" -f "$T/deny.tsync" -f "$T/rec.bpf" --record "$T/calls" "$@"
}

# assertRecorded ARCH NR WHAT / assertNotRecorded ARCH NR WHAT: the pair's line is (not) in $T/calls.
assertRecorded() {
        grep -qx "$1 $2" "$T/calls" || fail "$3 ($1 $2) is not recorded: $(paste -sd' ' "$T/calls")"
}

assertNotRecorded() {
        if grep -qx "$1 $2" "$T/calls"; then
                fail "$3 ($1 $2) is recorded: $(paste -sd' ' "$T/calls")"
        fi
}

# assertWellFormed: the magic, then distinct lines of 8 hex digits, a space and a number.
assertWellFormed() {
        assertEquals "the first line" "$MAGIC" "$(head -n1 "$T/calls")"
        assertEquals "malformed lines" "" "$(tail -n +2 "$T/calls" | grep -Ev '^[0-9a-f]{8} [0-9]{1,10}$')"
        assertEquals "repeated lines" "" "$(tail -n +2 "$T/calls" | sort | uniq -d)"
        assertEquals "the file ends with a newline" "" "$(tail -c1 "$T/calls" | tr -d '\n')"
}

testTheRecordHoldsTheCallsOfEveryThreadEveryDescendantAndEveryAbi() {
        record -- "$PROBE" 7
        assertEquals "stderr: $(cat "$T/err")" 7 "$rc"
        assertWellFormed
        assertRecorded $NATIVE $EXECVE "the workload's execve"
        assertRecorded $NATIVE $SYSINFO "sysinfo, made only by a second thread"
        assertRecorded $NATIVE $TIMES "times, made only by a grandchild"
        grep -qx 'thread=ok' "$T/out" || fail "the probe's thread: $(cat "$T/out")"
        grep -qx 'grandchild=ok' "$T/out" || fail "the probe's grandchild: $(cat "$T/out")"
        if grep -qx 'int80=yes' "$T/out"; then
                assertRecorded $I386 $I386_GETPID "i386's getpid, made only through int 0x80"
        else
                # Not a pass for the ABI part: say why it could not be checked here.
                echo "test_record_init.sh: the int 0x80 part is skipped: $(grep '^int80=' "$T/out")" >&2
                assertNotRecorded $I386 $I386_GETPID "i386's getpid without IA-32 emulation"
        fi
}

# Each ABI under its own tag: x32's numbers keep __X32_SYSCALL_BIT (seccomp sees the call even
# where the kernel does not run x32), i386's come with AUDIT_ARCH_I386. The recording filter alone
# here: a libseccomp layer for x86_64 kills x32 numbers before the recording sees them.
testEachAbiTheWorkloadUsesIsRecordedUnderItsOwnTag() {
        in_pidns "$INIT" -f "$T/rec.bpf" --record "$T/calls" -- "$PROBE" 0
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertWellFormed
        assertRecorded $NATIVE $((0x40000000 + 39)) "x32's getpid"
        assertRecorded $NATIVE 1500 "a number past the bit table (ENOSYS)"
        if grep -qx 'int80=yes' "$T/out"; then
                assertRecorded $I386 $I386_GETPID "i386's getpid, made only through int 0x80"
        else
                echo "test_record_init.sh: the int 0x80 part is skipped: $(grep '^int80=' "$T/out")" >&2
        fi
}

testTheWorkloadsOutputAndStatusAreTheSameWithoutRecording() {
        in_pidns "$INIT" -f "$T/deny.tsync" -- "$PROBE" 5
        local plain_rc=$rc
        cp "$T/out" "$T/plain.out"
        record -- "$PROBE" 5
        assertEquals "stderr: $(cat "$T/err")" "$plain_rc" "$rc"
        assertEquals "the status" 5 "$rc"
        assertEquals "the output" "$(cat "$T/plain.out")" "$(cat "$T/out")"
        assertEquals "nothing on stderr" "" "$(cat "$T/err")"
        # A busybox-style shell workload, with a pipe, a child and a sleep.
        local script='ls / >/dev/null; cat /etc/hostname; echo a | cat; sleep 0.1; exit 4'
        in_pidns "$INIT" -f "$T/deny.tsync" -- /bin/sh -c "$script"
        plain_rc=$rc
        cp "$T/out" "$T/plain.out"
        record -- /bin/sh -c "$script"
        assertEquals "sh: the status" "$plain_rc" "$rc"
        assertEquals "sh: the output" "$(cat "$T/plain.out")" "$(cat "$T/out")"
        assertWellFormed
}

testTheInitsOwnCallsAreNotRecorded() {
        # -g: the child calls setpgid before its execve; capabilities changed after the load (root
        # without NO_NEW_PRIVS): the main thread calls capset under the recording filter.
        record -g --permitted CAP_CHOWN --effective CAP_CHOWN -- "$PROBE" 0
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertWellFormed
        assertNotRecorded $NATIVE $CAPSET "the init's capset"
        assertNotRecorded $NATIVE $SETPGID "the init's setpgid, before the workload's execve"
        assertRecorded $NATIVE $SYSINFO "the workload's sysinfo"
        # The positive control: the same calls, made by the workload, are recorded.
        record -- /bin/sh -c 'setpriv --inh-caps -all true; exit 0'
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertRecorded $NATIVE $CAPSET "the workload's capset"
}

testACallTheFiltersDenyIsDeniedStillAndNotRecorded() {
        record -- /bin/sh -c "mkdir '$T/x' 2>/dev/null; echo mkdir=\$?"
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertEquals "mkdir=1" "$(cat "$T/out")"
        assertFalse "the directory exists" "[ -e '$T/x' ]"
        assertNotRecorded $NATIVE $MKDIR "mkdir, which the layer answers with an errno"
}

testAWorkloadKilledWithSigkillStillLeavesItsLines() {
        record -- "$PROBE" 0 kill
        assertEquals "stderr: $(cat "$T/err")" 137 "$rc"
        grep -qx kill "$T/out" || fail "the probe did not get to its end: $(cat "$T/out")"
        assertWellFormed
        assertRecorded $NATIVE $SYSINFO "sysinfo, before the SIGKILL"
        assertRecorded $NATIVE $TIMES "times, before the SIGKILL"
        # A shell that kills itself: the kill that ends it is recorded, as every line is written
        # before the call it records is let through.
        rm -f "$T/calls"
        record -- /bin/sh -c 'cat /etc/hostname >/dev/null; kill -KILL $$; echo survived'
        assertEquals "stderr: $(cat "$T/err")" 137 "$rc"
        assertEquals "" "$(cat "$T/out")"
        assertWellFormed
        assertRecorded $NATIVE 62 "the kill that ended the workload"
}

# A write that fails (here: past RLIMIT_FSIZE, EFBIG) voids the recording: the file loses its
# magic, so that no profile missing calls can be made from it; the workload goes on unchanged.
testAFailedWriteEmptiesTheRecordAndTheWorkloadGoesOn() {
        # 200 bytes: the magic and a few lines fit, the shell's thirty-odd pairs do not (nor would
        # more than 200 bytes of stdout or stderr, which the limit covers too).
        in_pidns prlimit --fsize=200 "$INIT" -f "$T/deny.tsync" -f "$T/rec.bpf" --record "$T/calls" -- \
                /bin/sh -c 'echo hi; exit 4'
        assertEquals "stderr: $(cat "$T/err")" 4 "$rc"
        assertEquals "hi" "$(cat "$T/out")"
        assertEquals "the record is emptied: $(head -c 100 "$T/calls")" 0 "$(stat -c %s "$T/calls")"
        assertEquals "one warning: $(cat "$T/err")" 1 "$(wc -l <"$T/err")"
        # Cut short at the limit, or refused past it (EFBIG): either way, void.
        grep -Eq "^seccomp-tsync-init: record: warning: cannot write to $T/calls: (a short write|File too large): the recording is void" \
                "$T/err" || fail "the warning: $(cat "$T/err")"
}

# A start refused before the workload runs leaves no recording: no file when the refusal comes
# before the init opens it, an empty one (no magic) when it comes after, even when the init ends
# from its signal thread because a filter killed the main thread after the load.
testARefusedStartLeavesNoRecording() {
        record -- /nonexistent/cmd
        assertEquals "stderr: $(cat "$T/err")" 127 "$rc"
        assertFalse "a record file was made" "[ -e '$T/calls' ]"
        # Kills a read made from anywhere but instruction pointer 0: the proof's first read.
        python3 "$TOP/tests/tools/filter_file.py" "$T/kill-read.bpf" \
                0x20,0,0,0 0x15,0,3,0 0x20,0,0,8 0x15,1,0,0 0x06,0,0,0 0x06,0,0,0x7fff0000 || fail "filter_file.py"
        in_pidns "$INIT" -f "$T/kill-read.bpf" -f "$T/rec.bpf" --record "$T/calls" -- touch "$T/marker"
        assertEquals "stderr: $(cat "$T/err")" 124 "$rc"
        grep -q "the main thread ([0-9]*) died before the workload ran" "$T/err" || fail "$(cat "$T/err")"
        assertFalse "the workload ran" "[ -e '$T/marker' ]"
        assertTrue "no record file" "[ -f '$T/calls' ]"
        assertEquals "the record is emptied: $(head -c 100 "$T/calls")" 0 "$(stat -c %s "$T/calls")"
}

# The proof: the main thread carries the TSYNC filters and the recording filter, every other
# thread of the init the TSYNC filters alone; the workload inherits the main thread's.
testOnlyTheMainThreadOfTheInitCarriesTheRecordingFilter() {
        # shellcheck disable=SC2016 # the workload's shell expands it
        local script='for t in /proc/1/task/*; do
                echo "$(basename "$t") $(sed -n "s/^Seccomp_filters:[[:space:]]*//p" "$t/status")"
        done; echo "self $(sed -n "s/^Seccomp_filters:[[:space:]]*//p" /proc/self/status)"'
        record -- /bin/sh -c "$script"
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertEquals "the main thread (1): one layer and the recording" "1 2" "$(grep '^1 ' "$T/out")"
        assertEquals "two other threads (signal, recorder), with the layer only" "2 1" \
                "$(grep -v '^1 \|^self ' "$T/out" | awk '{print $2}' | sort | uniq -c | awk '{print $1, $2}')"
        assertEquals "the workload" "self 2" "$(grep '^self ' "$T/out")"
}

# issue 23: without --record, the record file comes from createRuntime's relay (here the stand-in
# tests/tools/fake_relay.py): the init takes the descriptor with the relay's greeting, before its
# first filter, and writes through it (in a container the file is on the host, and the workload has
# no path to it).
testTheRecordFileCanComeFromTheRelay() {
        python3 "$TOP/tests/tools/fake_relay.py" "$T/relay.sock" "$T/relayed" '{}' record \
                >"$T/relay.out" 2>"$T/relay.err" &
        local relay=$!
        tsync_wait_ready "$T/relay.out"
        in_pidns "$INIT" -f "$T/deny.tsync" -f "$T/rec.bpf" --relay "$T/relay.sock" -- "$PROBE" 3
        wait "$relay"
        assertEquals "status (stderr: $(cat "$T/err"))" 3 "$rc"
        cp "$T/relayed" "$T/calls" || fail "no record file"
        assertWellFormed
        assertRecorded $NATIVE $SYSINFO "sysinfo, made only by a second thread"
        assertRecorded $NATIVE $EXECVE "the workload's execve"
        assertEquals "the relay's file is root's alone" 600 "$(stat -c %a "$T/relayed")"
}

testARecordingWithNeitherRecordNorRelayAndWithBothIsRefused() {
        in_pidns "$INIT" -f "$T/rec.bpf" -- /bin/true
        assertEquals "neither: $(cat "$T/err")" 122 "$rc"
        assertContains "$(cat "$T/err")" "a recording filter, but --record is not given"
        in_pidns "$INIT" -f "$T/rec.bpf" --record "$T/calls" --relay "$T/relay.sock" -- /bin/true
        assertEquals "both: $(cat "$T/err")" 121 "$rc"
        assertContains "$(cat "$T/err")" "--record cannot be combined with --relay"
}

# Under a real runtime, whose own linux.seccomp is in place before the init starts: a bundle
# injected with a layer, its init's arguments given the recording filter and --record FILE, and a
# record directory bind-mounted read-write (the init's --record on its own; the hook itself passes
# --relay and mounts nothing of the host: test_recording.sh).
testUnderRuncAndCrunTheRecordHoldsTheWorkloadsCalls() {
        local rec
        rec=$(base64 -w0 "$T/rec.bpf")
        for RT in runc crun; do
                rm -rf "$T/b" "$T/rec"
                mkdir -p "$T/rec"
                make_rootfs "$T/b/rootfs" "$PROBE" >/dev/null || fail "rootfs"
                make_bundle "$T/b" /bin/record_probe 3 || fail "bundle"
                tsync_json_edit "$T/b/config.json" '.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW",
                        "syscalls": [{"names": ["unshare"], "action": "SCMP_ACT_ERRNO"}]}' || fail "jq"
                inject -p "$T/deny.json" "$T/b" || fail "inject"
                # shellcheck disable=SC2016 # jq's variables
                tsync_json_edit "$T/b/config.json" '(.process.args | index("--")) as $i
                        | .process.args = .process.args[:$i] + ["--filter-data", $rec, "--record", $file]
                                + .process.args[$i:]
                        | .mounts += [{"destination": $dir, "type": "bind", "source": $src,
                                       "options": ["bind", "rw", "nosuid", "nodev"]}]' \
                        --arg rec "$rec" --arg file /.oci-seccomp-tsync/record/calls \
                        --arg dir /.oci-seccomp-tsync/record --arg src "$T/rec" || fail "jq"
                ID=$(tsync_unique_id record)
                rt_run "$ID" "$T/b"
                assertEquals "$RT: status (stderr: $(cat "$T/$ID.err"))" 3 "$rc"
                grep -qx 'grandchild=ok' "$T/$ID.out" || fail "$RT: the probe: $(cat "$T/$ID.out")"
                cp "$T/rec/calls" "$T/calls" 2>/dev/null || fail "$RT: no record file"
                assertWellFormed
                assertRecorded $NATIVE $SYSINFO "$RT: sysinfo, made only by a second thread"
                assertRecorded $NATIVE $TIMES "$RT: times, made only by a grandchild"
                assertRecorded $NATIVE $EXECVE "$RT: the workload's execve"
        done
        RT=runc
}

# shellcheck disable=SC1091
. shunit2
