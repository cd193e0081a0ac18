#!/bin/bash
# `oci-seccomp-tsync lockdown`: a layer added to every task of a running runc container without a
# restart. The workload (lockdown_probe) keeps creating threads and children and has threads
# blocked in read, nanosleep and futex while it is locked down: afterwards every task carries one
# more filter, the layer's call fails in every thread and in every new child, the blocking calls
# resumed without EINTR, nothing is left traced and the cgroup is thawed. A container whose
# process has neither NO_NEW_PRIVS nor CAP_SYS_ADMIN is refused without --set-no-new-privs
# (nothing touched) and covered with it. Two lockdowns at once both hold. Each fails on a main
# without the command.
# shellcheck disable=SC2016 # jq's variables in single quotes
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"
. "$HERE/lockdownlib.sh"

oneTimeSetUp() {
        tsync_need_built "$OCI" "$PROBE"
}

# setUp and tearDown: lockdownlib.sh's.

# lockdown ARGS: the command, on $pid's container (its record removed at tearDown).
lockdown() {
        [ -z "${pid:-}" ] || record_of "$pid"
        timeout 60 "$OCI" lockdown "$@" >"$T/out" 2>"$T/err"
        rc=$?
}

# check_denied [PROCS [KINDS]]: creates /tmp/go; then every process of the probe (proc=0..PROCS-1)
# must report each of KINDS (default: every blocking call, the forked children and main) with
# the layer's errno, made no directory and reported no ERROR (EINTR without a handler that allows
# it, a changed signal mask or register, a wrong wait4 status).
check_denied() {
        local procs=${1:-1} kinds=${2:-"read nanosleep futex accept wait4 regs main child"} k p missing
        local log=$TSYNC_TMP/$ID.log
        touch "$T/b/rootfs/tmp/go"
        for _ in $(seq 1 100); do
                missing=
                for p in $(seq 0 $((procs - 1))); do
                        for k in $kinds; do
                                grep -q "proc=$p .*kind=$k " "$log" || missing="$missing $p/$k"
                        done
                done
                [ -z "$missing" ] && break
                sleep 0.1
        done
        assertEquals "no report from (proc/kind): $(tail -n 5 "$log")" "" "$missing"
        assertEquals "calls not denied: $(grep 'kind=' "$log" | grep -v 'errno=122' | head -3)" \
                0 "$(grep 'kind=' "$log" | grep -vc 'errno=122')"
        assertEquals "directories made" "" "$(find "$T/b/rootfs/tmp" -maxdepth 1 -name 'd.*')"
        assertEquals "errors: $(grep ERROR "$log" | head -3)" 0 "$(grep -c ERROR "$log")"
}

# covered PID: every live task of the container carries exactly one filter and none is traced.
covered() {
        all_tasks "$1" >"$T/after"
        assertEquals "tasks without the layer: $(awk '$3 != 1' "$T/after")" "" "$(awk '$3 != 1' "$T/after")"
        assertEquals "tasks left traced" "" "$(awk '$4 != 0' "$T/after")"
        assertContains "$(cgroup_frozen "$1")" "THAWED"
}

# States of every task of process $1 ("T" when all are stopped).
states_of() {
        cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^State:/ {print $2}' | sort -u | tr -d '\n'
}

wait_state() {
        for _ in $(seq 1 50); do
                [ "$(states_of "$1")" = "$2" ] && return 0
                sleep 0.1
        done
        return 1
}

testARuncContainerUnderAStormIsLockedDownOnEveryTask() {
        bundle true || fail "bundle"
        start_runc "$ID" "$T/b" || fail "start"
        pid=$(runc_pid "$ID")
        sleep 0.5
        all_tasks "$pid" >"$T/before"
        assertEquals "filters before: $(cat "$T/before")" "" "$(awk '$3 != 0' "$T/before")"
        lockdown --profile-dir "$PROFILES" --layers deny-mkdir --cache-dir "$T/cache" "$ID"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertContains "$(cat "$T/out")" "1 filter(s) added"
        all_tasks "$pid" >"$T/after"
        assertEquals "tasks without the layer: $(awk '$3 != 1' "$T/after")" "" "$(awk '$3 != 1' "$T/after")"
        assertEquals "tasks left traced" "" "$(awk '$4 != 0' "$T/after")"
        assertContains "$(cgroup_frozen "$pid")" "THAWED"
        check_denied
        stop_runc "$ID"
}

# issue 37: the node's policy says what it wants for such a process: no-new-privs = set acts as
# --set-no-new-privs; a policy that cannot be read refuses before anything is touched.
testTheNodesNoNewPrivsSetActsAsSetNoNewPrivs() {
        bundle false || fail "bundle"
        start_runc "$ID" "$T/b" || fail "start"
        pid=$(runc_pid "$ID")
        printf '%s\n' "no-new-privs = sett" >"$T/node.conf" && chmod 0644 "$T/node.conf"
        lockdown --no-cache --pid "$pid" --node-conf "$T/node.conf" --profile "$PROFILES/deny-mkdir.json"
        assertEquals 1 "$rc"
        assertEquals "oci-seccomp-tsync: node policy: $T/node.conf: line 1: no-new-privs: 'sett' is neither set nor refuse: no-new-privs = set, or refuse" \
                "$(cat "$T/err")"
        assert_untouched "a refused run touched tasks" '$3 != 0 || $4 != 0'
        printf '%s\n' "no-new-privs = set" >"$T/node.conf"
        lockdown --no-cache --pid "$pid" --node-conf "$T/node.conf" --profile "$PROFILES/deny-mkdir.json"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "1" "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$pid/status")"
        check_denied
        stop_runc "$ID"
}

testATaskWithoutNoNewPrivsIsRefusedThenCoveredWithSetNoNewPrivs() {
        bundle false || fail "bundle"
        start_runc "$ID" "$T/b" || fail "start"
        pid=$(runc_pid "$ID")
        assertEquals "0" "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$pid/status")"
        lockdown --no-cache --pid "$pid" --profile "$PROFILES/deny-mkdir.json"
        assertEquals 1 "$rc"
        assertContains "$(cat "$T/err")" "neither NO_NEW_PRIVS nor CAP_SYS_ADMIN"
        # One line for the container, with the fix, not one a thread (issue 37).
        assertEquals "one line: $(cat "$T/err")" 1 "$(grep -c . "$T/err")"
        assertContains "$(cat "$T/err")" "give --set-no-new-privs"
        # The policy it read is the one its fix names.
        : >"$T/node.conf" && chmod 0644 "$T/node.conf"
        lockdown --no-cache --pid "$pid" --node-conf "$T/node.conf" --profile "$PROFILES/deny-mkdir.json"
        assertEquals 1 "$rc"
        assertContains "the policy given named" "$(cat "$T/err")" "no-new-privs = set in $T/node.conf"
        assert_untouched "a refused run touched tasks" '$3 != 0 || $4 != 0'
        lockdown --no-cache --pid "$pid" --set-no-new-privs --profile "$PROFILES/deny-mkdir.json"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "1" "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$pid/status")"
        all_tasks "$pid" >"$T/after"
        assertEquals "tasks without the layer: $(awk '$3 != 1' "$T/after")" "" "$(awk '$3 != 1' "$T/after")"
        check_denied
        stop_runc "$ID"
}

testAStoppedProcessIsCoveredAndStaysStopped() {
        bundle true || fail "bundle"
        start_runc "$ID" "$T/b" || fail "start"
        pid=$(runc_pid "$ID")
        sleep 0.5
        kill -STOP "$pid"
        wait_state "$pid" T || fail "not stopped: $(states_of "$pid")"
        lockdown --no-cache --pid "$pid" --profile "$PROFILES/deny-mkdir.json"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertContains "$(cat "$T/out")" "job-control stop"
        assertContains "$(cat "$T/out")" "they stay stopped"
        sleep 0.3
        assertEquals "states after" "T" "$(states_of "$pid")"
        covered "$pid"
        kill -CONT "$pid"
        check_denied
        stop_runc "$ID"
}

# Several processes, each with every blocking call, a thread storm, a fork storm, a zombie
# child, one of them stopped: every live task is covered, the zombies are named as skipped, the
# stopped process stays stopped, and `runc delete -f` leaves no process and no cgroup behind.
testAMultiProcessContainerUnderStormsIsCoveredAndDeletedClean() {
        bundle true -p 3 -z || fail "bundle"
        start_runc "$ID" "$T/b" || fail "start"
        pid=$(runc_pid "$ID")
        for _ in $(seq 1 50); do
                [ "$(grep -c 'ready' "$TSYNC_TMP/$ID.log")" -ge 3 ] && break
                sleep 0.1
        done
        sleep 0.5
        child=$(pgrep -P "$pid" -x lockdown_probe | head -1)
        # the probe's long-lived children: the ones with threads
        for c in $(pgrep -P "$pid" -x lockdown_probe); do
                [ "$(find "/proc/$c/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)" -gt 5 ] && child=$c
        done
        kill -STOP "$child"
        wait_state "$child" T || fail "child not stopped: $(states_of "$child")"
        zombies=$(for c in $(procs_of "$pid"); do awk '/^State:/ {print $2}' "/proc/$c/status"; done | grep -c Z)
        assertTrue "no zombie in the container" "[ $zombies -ge 3 ]"
        lockdown --no-cache --pid "$pid" --profile "$PROFILES/deny-mkdir.json"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertContains "$(cat "$T/out")" "a zombie"
        assertContains "$(cat "$T/out")" "runs no more code"
        assertEquals "states of the stopped child" "T" "$(states_of "$child")"
        covered "$pid"
        ns=$(readlink "/proc/$pid/ns/pid")
        cg=$(awk -F: '$2 ~ /freezer/ {print $3}' "/proc/$pid/cgroup")
        kill -CONT "$child"
        check_denied 3
        runc delete -f "$ID" >/dev/null 2>&1
        # The kernel kills the namespace's processes once its PID 1 is gone: wait for the last to end.
        for _ in $(seq 1 100); do
                left=
                for p in /proc/[0-9]*; do
                        [ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$ns" ] && left="$left ${p#/proc/}"
                done
                [ -z "$left" ] && break
                sleep 0.1
        done
        assertEquals "processes left after runc delete -f" "" "$left"
        assertFalse "runc still lists it" "runc list -q | grep -qx '$ID'"
        [ -n "$cg" ] && assertFalse "its freezer cgroup is left" "[ -d '/sys/fs/cgroup/freezer$cg' ]"
        stop_runc "$ID"
}

# A thread that loaded a filter of its own: TSYNC names it and refuses the process; each thread
# is then given the layer on its own (the diverged one carries 2, the others 1), said so.
testADivergedThreadIsGivenTheLayerOnItsOwn() {
        bundle true -d || fail "bundle"
        start_runc "$ID" "$T/b" || fail "start"
        pid=$(runc_pid "$ID")
        sleep 0.5
        all_tasks "$pid" >"$T/before"
        assertEquals "one diverged thread: $(cat "$T/before")" 1 "$(awk '$3 == 1' "$T/before" | wc -l)"
        div=$(awk '$3 == 1 {print $2}' "$T/before")
        lockdown --no-cache --pid "$pid" --profile "$PROFILES/deny-mkdir.json"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertContains "$(cat "$T/out")" "has filters of its own"
        assertContains "$(cat "$T/out")" "each thread was given the layer on its own"
        all_tasks "$pid" >"$T/after"
        assertEquals "the diverged thread" "2" "$(awk -v t="$div" '$2 == t {print $3}' "$T/after")"
        assertEquals "other threads: $(awk -v t="$div" '$2 != t && $3 != 1' "$T/after")" "" \
                "$(awk -v t="$div" '$2 != t && ($3 != 1 || $4 != 0)' "$T/after")"
        check_denied 1 "read nanosleep futex accept wait4 regs main diverged"
        stop_runc "$ID"
}

# Processes whose main thread exited (a zombie leader, its other threads running): they are
# covered through a live thread (/proc/PID shows no mappings of a zombie leader).
testProcessesWhoseMainThreadExitedAreCovered() {
        bundle true -p 3 -x || fail "bundle"
        start_runc "$ID" "$T/b" || fail "start"
        pid=$(runc_pid "$ID")
        sleep 0.8
        leaders=
        for c in $(procs_of "$pid"); do
                [ "$(awk '/^State:/ {print $2}' "/proc/$c/task/$c/status")" = Z ] &&
                        [ "$(find "/proc/$c/task" -mindepth 1 -maxdepth 1 | wc -l)" -gt 1 ] && leaders="$leaders $c"
        done
        assertEquals "processes with an exited main thread: $leaders" 2 "$(echo "$leaders" | wc -w)"
        lockdown --no-cache "$ID" --profile "$PROFILES/deny-mkdir.json"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        covered "$pid"
        check_denied 3 "read nanosleep futex accept wait4 regs child"
        stop_runc "$ID"
}

# A 32-bit (i386) process in the container, where the kernel runs them (IA-32 emulation): it is
# refused by name before anything is touched (no injection with i386 numbering yet). The program
# is assembled here (binutils' --32 needs no multilib): nanosleep through int 0x80, forever.
testA32BitProcessIsRefusedByName() {
        if ! command -v as >/dev/null || ! command -v ld >/dev/null; then
                startSkipping
                fail "no as/ld to build an i386 program"
                return 0
        fi
        cat >"$T/s32.S" <<'ASM'
        .globl _start
_start:
1:      movl $162, %eax
        leal ts, %ebx
        xorl %ecx, %ecx
        int $0x80
        jmp 1b
        .data
ts:     .long 1, 0
ASM
        as --32 -o "$T/s32.o" "$T/s32.S" || fail "as --32"
        ld -m elf_i386 -o "$T/lockdown_i386" "$T/s32.o" || fail "ld -m elf_i386"
        "$T/lockdown_i386" &
        p32=$!
        sleep 0.2
        if ! kill -0 "$p32" 2>/dev/null; then
                startSkipping
                fail "the kernel does not run i386 programs (no IA-32 emulation, or ia32_emulation=0)"
                return 0
        fi
        kill "$p32" 2>/dev/null
        wait "$p32" 2>/dev/null
        rm -rf "$T/b"
        make_rootfs "$T/b/rootfs" "$T/lockdown_i386" || fail "rootfs"
        make_bundle "$T/b" /bin/lockdown_i386 || fail "bundle"
        tsync_json_edit "$T/b/config.json" '.process.noNewPrivileges = true | del(.linux.seccomp)' || fail "config"
        start_runc "$ID" "$T/b" || fail "start"
        pid=$(runc_pid "$ID")
        lockdown --no-cache "$ID" --profile "$PROFILES/deny-mkdir.json"
        assertEquals 1 "$rc"
        assertContains "$(cat "$T/err")" "pid $pid tid $pid (lockdown_i386): not an x86_64 process"
        assert_untouched "a refused run touched tasks" '$3 != 0 || $4 != 0'
        stop_runc "$ID"
}

testATracedTaskIsRefusedBeforeAnythingIsTouched() {
        bundle true || fail "bundle"
        start_runc "$ID" "$T/b" || fail "start"
        pid=$(runc_pid "$ID")
        strace -qq -e trace=none -p "$pid" 2>/dev/null &
        tracer=$!
        for _ in $(seq 1 50); do
                [ "$(awk '/^TracerPid:/ {print $2}' "/proc/$pid/status")" = "$tracer" ] && break
                sleep 0.1
        done
        lockdown --no-cache --pid "$pid" --profile "$PROFILES/deny-mkdir.json"
        kill "$tracer"
        wait "$tracer" 2>/dev/null || :
        assertEquals 1 "$rc"
        assertContains "$(cat "$T/err")" "pid $pid tid $pid (lockdown_probe): traced by pid $tracer"
        assert_untouched "a refused run added filters" '$3 != 0'
        stop_runc "$ID"
}

# Two lockdowns of one container started at once (different layers): the second waits for the
# first (one lock a container, across the record's read to its last write), so neither loses the
# other's record nor seizes the other's tasks: both succeed, the record lists both layers, every
# task carries both filters, and no lock file is left.
testTwoLockdownsOfOneContainerAtOnceKeepBothLayers() {
        bundle true -p 3 || fail "bundle"
        start_runc "$ID" "$T/b" || fail "start"
        pid=$(runc_pid "$ID")
        record_of "$pid"
        sleep 0.5
        timeout 60 "$OCI" lockdown --cache-dir "$T/cache" --profile "$PROFILES/deny-mkdir.json" "$ID" \
                >"$T/out1" 2>"$T/err1" &
        first=$!
        timeout 60 "$OCI" lockdown --cache-dir "$T/cache" --profile "$PROFILES/deny-getcwd.json" "$ID" \
                >"$T/out2" 2>"$T/err2" &
        second=$!
        wait "$first"
        rc1=$?
        wait "$second"
        rc2=$?
        assertEquals "the first: $(cat "$T/err1")" 0 "$rc1"
        assertEquals "the second: $(cat "$T/err2")" 0 "$rc2"
        assertEquals "the record's layers" "$PROFILES/deny-getcwd.json $PROFILES/deny-mkdir.json" \
                "$(jq -r '.layers[].name' "$REC" | sort | tr '\n' ' ' | sed 's/ $//')"
        all_tasks "$pid" >"$T/after"
        assertEquals "tasks without both layers: $(awk '$3 != 2' "$T/after")" "" "$(awk '$3 != 2' "$T/after")"
        assertEquals "tasks left traced" "" "$(awk '$4 != 0' "$T/after")"
        assertContains "$(cgroup_frozen "$pid")" "THAWED"
        assertFalse "a lock file is left" "[ -e '${REC%.json}.lock' ]"
        check_denied 3
        stop_runc "$ID"
}

testACrunContainerWithoutACgroupOfItsOwnIsRefused() {
        command -v crun >/dev/null || startSkipping
        bundle true || fail "bundle"
        start_crun "$ID" "$T/b" || fail "start"
        pid=$(crun_pid "$ID")
        lockdown --no-cache --pid "$pid" --profile "$PROFILES/deny-mkdir.json"
        assertEquals 1 "$rc"
        assertEquals "one line: $(cat "$T/err")" 1 "$(wc -l <"$T/err")"
        assertContains "$(cat "$T/err")" "it cannot be frozen alone"
        assert_untouched "a refused run added filters" '$3 != 0 || $4 != 0'
        stop_crun "$ID"
}

. shunit2
