#!/bin/bash
# Exec once (inject --exec-once): the workload's own start is the only exec. Every later execve
# and execveat, by the workload, its threads, its children and grandchildren, through every ABI
# the kernel offers, fails with the errno asked for (EPERM by default), under runc and crun alike;
# processes started with `runc exec` do not carry our filters and exec as usual. The exec's side
# effect is what is judged: the program exec_probe tries to run prints nothing and exits 0 when it
# runs, so "exec=ran" in the probe's line can only come from a real exec.
# About 1 minute on 2 cores.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"

PROBE_BIN=$TSYNC_BUILD/tests/static/exec_probe
EPERM=errno:1
EACCES=errno:13

# setUp and tearDown: hooklib.sh's (a temp dir $T, the test's containers removed after it).
oneTimeSetUp() {
        tsync_need_built "$INIT" "$OCI" "$PROBE_BIN" "$TSYNC_TOOLS/init_harness"
}

# bundle DIR ARG...: a bundle running ARGS with exec_probe in its rootfs (lib.sh's tsync_probe_bundle).
bundle() {
        tsync_probe_bundle "$1" "$PROBE_BIN" "${@:2}"
}

# run_exec_once ARG...: a bundle at $T/b running ARGS, injected with --exec-once (plus
# $EXEC_ONCE_OPTS), run in the foreground by $RT: $rc, $T/$ID.out, $T/$ID.err.
run_exec_once() {
        bundle "$T/b" "$@" || fail "bundle"
        inject "--exec-once${EXEC_ONCE_OPTS:-}" "$T/b" || fail "inject"
        rt_run "$ID" "$T/b"
}

# field KEY FILE: the value of KEY= on the first line of FILE that has it.
field() {
        grep -E "(^| )$1=" "$2" | head -n 1 | tr ' ' '\n' | sed -n "s/^$1=//p"
}

shCannotRunPrograms() {
        run_exec_once /bin/sh -c 'echo builtin-ok; /bin/ls / >/dev/null; echo "ls=$?"; /bin/exec_probe self /bin/echo; echo "probe=$?"; cd /tmp && pwd'
        assertEquals "$RT: status ($(cat "$T/$ID.err"))" 0 "$rc"
        assertContains "$RT: a builtin runs" "$(cat "$T/$ID.out")" "builtin-ok"
        assertContains "$RT: cd and pwd run" "$(cat "$T/$ID.out")" "/tmp"
        # busybox sh: 126 for a program it found but could not execute, and the errno's text.
        assertContains "$RT: ls does not run" "$(cat "$T/$ID.out")" "ls=126"
        assertContains "$RT: sh says why" "$(cat "$T/$ID.err")" "/bin/ls: Operation not permitted"
        assertContains "$RT: no other program either" "$(cat "$T/$ID.out")" "probe=126"
}

testShCannotRunProgramsWhileItsBuiltinsWork() {
        each_runtime shCannotRunPrograms
}

threadsOfAStaticWorkload() {
        run_exec_once /bin/exec_probe threads 8 /bin/echo
        assertEquals "$RT: status ($(cat "$T/$ID.err"))" 0 "$rc"
        assertEquals "$RT: eight threads report" 8 "$(grep -c '^thread=' "$T/$ID.out")"
        assertEquals "$RT: every thread's child got EPERM: $(tr '\n' ';' <"$T/$ID.out")" 8 \
                "$(grep -c "exec=$EPERM\$" "$T/$ID.out")"
}

testEveryThreadOfAStaticWorkloadGetsEpermForItsChildsExec() {
        each_runtime threadsOfAStaticWorkload
}

# execGetsEperm MODE: exec_probe MODE /bin/echo under exec once: it runs, and its exec gets EPERM.
execGetsEperm() {
        run_exec_once /bin/exec_probe "$1" /bin/echo
        assertEquals "$RT: status ($(cat "$T/$ID.err"))" 0 "$rc"
        assertEquals "$RT: $(cat "$T/$ID.out")" "$EPERM" "$(field exec "$T/$ID.out")"
}

aGrandchild() {
        execGetsEperm grandchild
}

testAGrandchildCannotExec() {
        each_runtime aGrandchild
}

execveat() {
        execGetsEperm execveat
}

testExecveatIsRefusedToo() {
        each_runtime execveat
}

theWorkloadItself() {
        execGetsEperm self
}

testTheWorkloadItselfCannotExecASecondTime() {
        each_runtime theWorkloadItself
}

testTheI386ExecveThroughInt0x80IsRefusedWhereTheKernelOffersIt() {
        local host
        host=$("$PROBE_BIN" int80 /bin/true) || fail "exec_probe on the host"
        if [ "$(field offered <(echo "$host"))" != yes ]; then
                echo "  skipped: this kernel offers no int 0x80 (no IA-32 emulation): $host"
                startSkipping
                return 0
        fi
        ID=int80-$$
        run_exec_once /bin/exec_probe int80 /bin/echo
        assertEquals "status ($(cat "$T/$ID.err"))" 0 "$rc"
        assertEquals "$(cat "$T/$ID.out")" "$EPERM" "$(field exec "$T/$ID.out")"
}

aShebangScript() {
        bundle "$T/b" /bin/script || fail "bundle"
        printf '#!/bin/sh\necho script-ran\n/bin/ls / >/dev/null\necho "ls=$?"\n' >"$T/b/rootfs/bin/script"
        chmod 755 "$T/b/rootfs/bin/script"
        inject --exec-once "$T/b" || fail "inject"
        rt_run "$ID" "$T/b"
        assertEquals "$RT: status ($(cat "$T/$ID.err"))" 0 "$rc"
        assertContains "$RT: the script starts" "$(cat "$T/$ID.out")" "script-ran"
        assertContains "$RT: and cannot exec" "$(cat "$T/$ID.out")" "ls=126"
}

testAShebangScriptStartsAsTheWorkload() {
        each_runtime aShebangScript
}

anErrnoByName() {
        EXEC_ONCE_OPTS='=EACCES' run_exec_once /bin/exec_probe grandchild /bin/echo
        assertEquals "$RT: status ($(cat "$T/$ID.err"))" 0 "$rc"
        assertEquals "$RT: $(cat "$T/$ID.out")" "$EACCES" "$(field exec "$T/$ID.out")"
}

testTheErrnoCanBeChosenByName() {
        each_runtime anErrnoByName
}

runtimeExec() {
        bundle "$T/b" /bin/sleep 600 || fail "bundle"
        inject --exec-once "$T/b" || fail "inject"
        rt_start "$ID" "$T/b" || fail "start"
        local out
        out=$(rt exec "$ID" /bin/exec_probe grandchild /bin/echo 2>&1)
        assertEquals "$RT exec: the exec'd process and its children exec as usual: $out" ran \
                "$(field exec <(echo "$out"))"
        out=$(rt exec "$ID" /bin/sh -c '/bin/ls / >/dev/null; echo "ls=$?"' 2>&1)
        assertEquals "$RT exec: $out" "ls=0" "$out"
        rt_stop "$ID"
}

testProcessesStartedWithRuntimeExecAreNotAffected() {
        each_runtime runtimeExec
}

testTheInitHoldsOneSupervisorThreadBesideTheSignalThread() {
        ID=threads-$$
        # Builtins only (read), since nothing else can run.
        run_exec_once /bin/sh -c 'for t in /proc/1/task/*; do read -r c <"$t/comm"; echo "$c"; done'
        assertEquals "status ($(cat "$T/$ID.err"))" 0 "$rc"
        assertEquals "$(tr '\n' ' ' <"$T/$ID.out")" "init tsync-signals tsync-exec-once " \
                "$(tr '\n' ' ' <"$T/$ID.out" | sed 's/^[^ ]* /init /')"
}

# The workload child announces its pid to the supervisor right before its execve (the main thread
# is suspended in clone until then); a late announcement must still give that execve, and only it,
# the CONTINUE. init_harness --late-pid holds every announcement back for 700 ms (the init itself,
# not in a container: the host's /bin/sh is the workload).
testAnExecBeforeTheWorkloadsPidIsKnownWaitsForIt() {
        python3 "$TSYNC_TOP/tests/tools/filter_file.py" --listener 1 "$T/exec-once.bpf" \
                0x20,0,0,0 0x15,0,1,59 0x06,0,0,0x7fc00000 0x15,0,1,322 0x06,0,0,0x7fc00000 0x06,0,0,0x7fff0000 ||
                fail "filter_file.py"
        timeout -s KILL 30 unshare --pid --fork --kill-child --mount-proc "$TSYNC_TOOLS/init_harness" \
                --late-pid 700 -- --exec-once 1 --bounding none --permitted none --effective none -f "$T/exec-once.bpf" -- \
                /bin/sh -c 'echo started; /bin/true; echo "true=$?"' >"$T/out" 2>"$T/err"
        rc=$?
        assertEquals "status ($(cat "$T/err"))" 0 "$rc"
        assertEquals "the workload started, then could not exec" "started true=126" "$(tr '\n' ' ' <"$T/out" | sed 's/ $//')"
}

testAProfileThatDeniesTheSupervisorsIoctlIsRefusedByInject() {
        bundle "$T/b" /bin/sh -c 'echo ran' || fail "bundle"
        cat >"$T/deny-ioctl.json" <<'EOF'
{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["ioctl"], "action": "SCMP_ACT_ERRNO"}]}
EOF
        cp "$T/b/config.json" "$T/before.json"
        if inject --exec-once --profile "$T/deny-ioctl.json" "$T/b" 2>"$T/err"; then
                fail "inject accepted it"
        fi
        assertContains "$(cat "$T/err")" "ioctl with ERRNO(1), which the init needs to receive exec notifications"
        assertContains "$(cat "$T/err")" "exec-once needs the init to supervise the workload"
        cmp -s "$T/before.json" "$T/b/config.json" || fail "the config was changed"
}

. shunit2
