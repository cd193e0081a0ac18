#!/bin/bash
# seccomp-tsync-init: filters on every thread with TSYNC, proven from /proc; the capability sets and
# NO_NEW_PRIVS asked for; PID 1 duties (signals, zombies, exit status); refusals before anything runs.
# The init runs as PID 1 of a new pid namespace (unshare --pid --fork --mount-proc): no runtime needed.
# Filters are compiled from profiles with the real CLI.
TOP=${TSYNC_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/integration/lib.sh
. "$TOP/tests/integration/lib.sh"

INIT=$TSYNC_BUILD/bin/seccomp-tsync-init
OCI=$TSYNC_BUILD/bin/oci-seccomp-tsync
PROBE=$TSYNC_BUILD/tests/static/threads_probe
STORM=$TSYNC_TOOLS/thread_storm
HARNESS=$TSYNC_TOOLS/init_harness
# The errno our test profile gives mkdir: EPROTO, which mkdir never returns on its own.
DENIED=71
DENY_MKDIR='{"defaultAction": "SCMP_ACT_ALLOW",
             "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 71}]}'

oneTimeSetUp() {
        tsync_need_built "$INIT" "$OCI" "$PROBE" "$STORM" "$HARNESS"
}

setUp() {
        tsync_test_begin || exit 1
        T=$TSYNC_TMP
        # The non-root tests read the filters and scripts as uid 1000, and run the init and the
        # probe as uid 1000: copies here, since the clone may lie under a directory only root can
        # enter (/root is 0700).
        chmod 755 "$T"
        cp "$INIT" "$T/seccomp-tsync-init" && cp "$PROBE" "$T/threads_probe" || exit 1
        USER_INIT=$T/seccomp-tsync-init
        USER_PROBE=$T/threads_probe
        profile deny "$DENY_MKDIR"
}

tearDown() {
        tsync_test_end
}

# profile NAME JSON: $T/NAME.tsync compiled from JSON by oci-seccomp-tsync.
profile() {
        echo "$2" >"$T/$1.json"
        if ! "$OCI" compile -O tsync "$T/$1.json" -o "$T/$1.tsync" 2>"$T/$1.compile.err"; then
                fail "compile $1: $(cat "$T/$1.compile.err")"
                return 1
        fi
        chmod 644 "$T/$1.tsync"
}

# kill_read_filter FILE: a hand-made filter that kills the thread making a read from anywhere but
# instruction pointer 0 (where the init's simulation, like the probe's, assumes every call is).
kill_read_filter() {
        python3 "$TOP/tests/tools/filter_file.py" "$1" \
                0x20,0,0,0 0x15,0,3,0 0x20,0,0,8 0x15,1,0,0 0x06,0,0,0 0x06,0,0,0x7fff0000
}

# in_pidns CMD...: CMD as PID 1 of a new pid namespace with its own /proc. stdout goes to
# $T/out, stderr to $T/err, the status to $rc. A hang ends in SIGKILL (137) after 60 s.
in_pidns() {
        timeout --preserve-status -s KILL 60 unshare --pid --fork --kill-child --mount-proc "$@" >"$T/out" 2>"$T/err"
        rc=$?
}

run_init() {
        in_pidns "$INIT" "$@"
}

# assertRefused STATUS PATTERN: the init exited STATUS with one line on stderr naming PATTERN,
# and the workload (which would have created $T/marker) never ran.
assertRefused() {
        assertEquals "exit status (stderr: $(cat "$T/err"))" "$1" "$rc"
        assertEquals "stderr lines: $(cat "$T/err")" 1 "$(wc -l <"$T/err")"
        grep -q "^seccomp-tsync-init: .*$2" "$T/err" || fail "expected '$2' in: $(cat "$T/err")"
        assertFalse "the workload ran" "[ -e '$T/marker' ]"
}

# wait_for FILE: until FILE exists (10 s at most).
wait_for() {
        for _ in $(seq 200); do
                [ -e "$1" ] && return 0
                sleep 0.05
        done
        fail "$1 never appeared"
        return 1
}

# child_of PID: the first child of PID.
child_of() {
        local c
        c=$(cat "/proc/$1/task/$1/children" 2>/dev/null)
        echo "${c%% *}"
}

# probe_lines: the lines of threads_probe in $T/out.
probe_lines() {
        grep '^tid=' "$T/out"
}

# field NAME LINE: the value of NAME=... in one probe line.
field() {
        tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"
}

# assert_probe_threads N FIELD=VALUE...: the run succeeded, and the probe printed N thread lines,
# each with every FIELD=VALUE.
assert_probe_threads() {
        local n=$1 line kv
        shift
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertEquals "$(cat "$T/out")" "$n" "$(probe_lines | wc -l)"
        while read -r line; do
                for kv in "$@"; do
                        assertEquals "$line" "${kv#*=}" "$(field "${kv%%=*}" "$line")"
                done
        done < <(probe_lines)
}

# caps NAME,NAME...: sorted lower-case capability names; capsh_names HEX: the same from a mask.
caps() {
        tr ',' '\n' <<<"$1" | tr '[:upper:]' '[:lower:]' | sed '/^$/d' | sort -u | paste -sd, -
}

capsh_names() {
        capsh --decode="$1" | sed 's/^[^=]*=//' | tr ',' '\n' | sed '/^$/d' | sort -u | paste -sd, -
}

# union A B...: the union of capability lists.
union() {
        local IFS=,
        caps "$*"
}

# assertCaps LINE BND INH AMB PRM EFF NNP: the probe line shows exactly these sets.
assertCaps() {
        local line=$1
        assertEquals "CapBnd" "$(caps "$2")" "$(capsh_names "$(field CapBnd "$line")")"
        assertEquals "CapInh" "$(caps "$3")" "$(capsh_names "$(field CapInh "$line")")"
        assertEquals "CapAmb" "$(caps "$4")" "$(capsh_names "$(field CapAmb "$line")")"
        assertEquals "CapPrm" "$(caps "$5")" "$(capsh_names "$(field CapPrm "$line")")"
        assertEquals "CapEff" "$(caps "$6")" "$(capsh_names "$(field CapEff "$line")")"
        assertEquals "NoNewPrivs" "$7" "$(field NoNewPrivs "$line")"
}

# mkbad IN DIR: DIR/KIND.tsync for each way of breaking IN. The checksum is recomputed (so
# that it is not what refuses the file) except for KIND checksum; reseal changes nothing else.
mkbad() {
        python3 - "$@" <<'EOF'
import struct, sys
src, out = sys.argv[1:3]

def fnv(h, b):
    for c in b:
        h = ((h ^ c) * 16777619) & 0xffffffff
    return h

def reseal(d):
    d[20:24] = bytes(4)
    d[20:24] = struct.pack('<I', fnv(fnv(2166136261, d[:32]), d[32:]))
    return d

def field(offset, value):
    def f(d):
        d[offset:offset + 4] = struct.pack('<I', value)
        return reseal(d)
    return f

def too_many(d):
    allow = struct.pack('<HBBI', 0x06, 0, 0, 0x7fff0000)  # ret ALLOW
    d = d[:32] + allow * 4097
    d[16:20] = struct.pack('<I', 4097)
    return reseal(d)

def flip(d):
    d[-4] ^= 0x40
    return d

kinds = {
    'reseal': reseal,
    'version': field(8, 3),  # this is version 2
    'magic': lambda d: reseal(bytearray(b'TSYNCBPX') + d[8:]),
    'truncated': lambda d: d[:-8],
    'not-multiple-of-8': lambda d: d[:-3],
    'checksum': flip,
    'unknown-flag': field(12, 1 << 3),  # NEW_LISTENER: not a flag a file may carry
    # A flag a file may carry but the kernel refuses without NEW_LISTENER (the
    # translator refuses such a profile, so only a crafted file has it).
    'wait-killable-recv': field(12, 1 << 5),
    'too-many-insns': too_many,
}
for kind, make in kinds.items():
    open('%s/%s.tsync' % (out, kind), 'wb').write(make(bytearray(open(src, 'rb').read())))
EOF
}

testTheWorkloadRunsUnderTheFilterAndItsStatusIsTheInits() {
        run_init -f "$T/deny.tsync" -- sh -c "mkdir '$T/d'; echo mkdir=\$?; exit 42"
        assertEquals "stderr: $(cat "$T/err")" 42 "$rc"
        assertEquals "mkdir=1" "$(cat "$T/out")"
        assertFalse "mkdir succeeded" "[ -d '$T/d' ]"
        run_init -f "$T/deny.tsync" -- true
        assertEquals 0 "$rc"
}

testAWorkloadKilledBySigtermExits143() {
        run_init -f "$T/deny.tsync" -- sh -c 'kill -TERM $$; sleep 5'
        assertEquals 143 "$rc"
}

testAWorkloadKilledByItsFilterExits159() {
        profile kill '{"defaultAction": "SCMP_ACT_ALLOW",
                       "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_KILL_PROCESS"}]}'
        run_init -f "$T/kill.tsync" -- sh -c "touch '$T/before'; exec mkdir '$T/d'"
        assertEquals "128+SIGSYS (stderr: $(cat "$T/err"))" 159 "$rc"
        assertTrue "the workload did not start" "[ -e '$T/before' ]"
        assertFalse "mkdir succeeded" "[ -d '$T/d' ]"
}

# assertEveryThreadDenied: after `threads_probe -n 8 mkdir $T/denied` started by a shell that
# wrote the init's threads to $T/init-threads, under one filter denying mkdir: every thread of
# the init and of the workload carries it, and mkdir failed with its errno in each.
assertEveryThreadDenied() {
        local line n
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        # The init: its main thread and its signal thread, both filtered.
        assertEquals "init threads: $(cat "$T/init-threads")" 2 "$(grep -c ':Name:' "$T/init-threads")"
        grep -q 'Name:.tsync-signals' "$T/init-threads" || fail "no signal thread: $(cat "$T/init-threads")"
        assertEquals "$(cat "$T/init-threads")" 2 "$(grep -c -P ':Seccomp:\t2$' "$T/init-threads")"
        assertEquals "$(cat "$T/init-threads")" 2 "$(grep -c -P ':Seccomp_filters:\t1$' "$T/init-threads")"
        # The workload: 9 threads, each filtered, each denied mkdir with the profile's errno.
        assertEquals "$(cat "$T/out")" 9 "$(probe_lines | wc -l)"
        n=0
        while read -r line; do
                assertEquals "$line" 2 "$(field Seccomp "$line")"
                assertEquals "$line" 1 "$(field Seccomp_filters "$line")"
                assertEquals "$line" -1 "$(field rc "$line")"
                assertEquals "$line" "$DENIED" "$(field errno "$line")"
                n=$((n + 1))
        done < <(probe_lines)
        assertEquals 9 "$n"
        assertFalse "mkdir succeeded" "[ -d '$T/denied' ]"
}

# A shell that records the init's threads in $T/init-threads, then runs the probe's 9 threads.
PROBE_EVERY_THREAD='grep -H -E "^(Name|Seccomp|Seccomp_filters):" /proc/1/task/*/status >"$0/init-threads";
                    exec "$1" -n 8 mkdir "$0/denied"'

testEveryThreadOfTheInitAndOfTheWorkloadCarriesTheFilter() {
        run_init -f "$T/deny.tsync" -- sh -c "$PROBE_EVERY_THREAD" "$T" "$PROBE"
        assertEveryThreadDenied
}

# Issue 15: the same filter carried in the init's arguments instead of a file.
testFilterDataDeniesItsCallOnEveryThreadLikeAFilterFile() {
        run_init --filter-data "$(base64 -w0 "$T/deny.tsync")" -- sh -c "$PROBE_EVERY_THREAD" "$T" "$PROBE"
        assertEveryThreadDenied
}

testWithoutAFilterTheProbeSeesNone() {
        # The probe can tell: without -f nothing is filtered and mkdir works.
        run_init -- "$PROBE" -n 2 mkdir "$T/made"
        assertEquals 0 "$rc"
        assertEquals 0 "$(probe_lines | grep -c -v 'Seccomp=0 ')"
        assertTrue "[ -d '$T/made' ]"
}

testFiltersStackOnAFilterTheRuntimeAlreadyLoaded() {
        profile deny-getcwd '{"defaultAction": "SCMP_ACT_ALLOW",
                              "syscalls": [{"names": ["getcwd"], "action": "SCMP_ACT_ERRNO", "errnoRet": 72}]}'
        # The outer init plays the runtime (layer mode): the inner one starts with one filter
        # on each thread and adds two, each checked to be 1 + 2 = 3.
        run_init -f "$T/deny-getcwd.tsync" -- "$INIT" -f "$T/deny.tsync" -f "$T/deny.tsync" -- \
                "$PROBE" -n 3 mkdir "$T/denied"
        assert_probe_threads 4 Seccomp_filters=3 "errno=$DENIED"
}

testAThreadStormLeavesNoThreadWithoutTheFilter() {
        "$STORM" --spawners 64 --rounds 4 --errno "$DENIED" "$T/deny.tsync" >"$T/out" 2>"$T/err"
        rc=$?
        assertEquals "$(cat "$T/out" "$T/err")" 0 "$rc"
        grep -q ' misses=0$' "$T/out" || fail "$(cat "$T/out")"
        # The storm really ran: thousands of threads, many started after a load.
        created=$(sed -n 's/.* created=\([0-9]*\).*/\1/p' "$T/out")
        checked=$(sed -n 's/.* self_checked=\([0-9]*\).*/\1/p' "$T/out")
        assertTrue "created=$created" "[ '${created:-0}' -gt 1000 ]"
        assertTrue "self_checked=$checked" "[ '${checked:-0}' -gt 100 ]"
}

testADivergentSiblingIsNamedAndTheWorkloadNeverRuns() {
        in_pidns "$HARNESS" --diverge "$T/tid" -- -f "$T/deny.tsync" -- touch "$T/marker"
        assertRefused 124 "thread $(cat "$T/tid") (diverger) runs a seccomp filter that is not an ancestor"
}

testSigtermToTheInitReachesTheWorkload() {
        local tpid upid ipid
        timeout --preserve-status -s KILL 60 unshare --pid --fork --kill-child --mount-proc \
                "$INIT" -f "$T/deny.tsync" -- sh -c \
                "trap 'echo TERM >\"$T/got\"; exit 7' TERM; touch '$T/ready'; while :; do sleep 0.1; done" \
                >"$T/out" 2>"$T/err" &
        tpid=$!
        wait_for "$T/ready" || return
        upid=$(child_of "$tpid")
        ipid=$(child_of "$upid")
        assertEquals "the init" seccomp-tsync-i "$(cat "/proc/$ipid/comm")"
        kill -TERM "$ipid"
        wait "$tpid"
        rc=$?
        assertEquals "stderr: $(cat "$T/err")" 7 "$rc"
        assertEquals TERM "$(cat "$T/got" 2>/dev/null)"
}

# The init is linked with the libc the build chose (SConstruct's musl_init: build/init-libc.txt).
# The detector must tell both apart on programs of known libc first: busybox-static and an empty
# program from gcc -static are glibc's, the same from musl-gcc (when installed) is musl's.
testTheInitIsLinkedWithTheLibcTheBuildChose() {
        local want
        want=$(cat "$TSYNC_BUILD/init-libc.txt") || fail "no $TSYNC_BUILD/init-libc.txt"
        printf 'int main(void) { return 0; }\n' >"$T/empty.c"
        gcc -static -o "$T/empty-glibc" "$T/empty.c" || fail "gcc -static"
        assertEquals "gcc -static" glibc "$(_tsync_libc "$T/empty-glibc")"
        assertEquals "$TSYNC_BUSYBOX" glibc "$(_tsync_libc "$TSYNC_BUSYBOX")"
        if command -v musl-gcc >/dev/null; then
                musl-gcc -static -o "$T/empty-musl" "$T/empty.c" || fail "musl-gcc -static"
                assertEquals "musl-gcc -static" musl "$(_tsync_libc "$T/empty-musl")"
        elif [ "$want" = musl ]; then
                fail "the build chose musl, but musl-gcc is not installed (apt-get install musl-tools)"
        fi
        assertEquals "$INIT" "$want" "$(_tsync_libc "$INIT")"
        strip -o "$T/init-stripped" "$INIT" || fail "strip"
        assertEquals "$INIT, stripped" "$want" "$(_tsync_libc "$T/init-stripped")"
}

# Signals 32-34 are libc's own (glibc's 32-33, musl's 32-34; SIGRTMIN is past them). Every thread
# of the init blocks them (a new thread gets them unblocked from either libc, and blocks them
# again), so one sent to an init that is not PID 1 (a pod's shared pid namespace; the kernel drops
# such signals for PID 1 anyway) stays pending instead of ending the init by its default action
# and the workload's supervision with it.
testLibcsOwnSignalsLeaveTheInitRunning() {
        local ipid wpid task blk sig
        "$INIT" -f "$T/deny.tsync" -- sh -c "trap 'exit 7' TERM; touch '$T/ready'; while :; do sleep 0.1; done" \
                >"$T/out" 2>"$T/err" &
        ipid=$!
        wait_for "$T/ready" || return
        wpid=$(child_of "$ipid")
        assertEquals "the init" seccomp-tsync-i "$(cat "/proc/$ipid/comm")"
        for task in /proc/"$ipid"/task/*; do
                blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' "$task/status")
                assertEquals "thread ${task##*/} ($(cat "$task/comm")): SigBlk $blk: 32-34" \
                        $((0x380000000)) $((0x$blk & 0x380000000))
        done
        for sig in 32 33 34; do
                kill -s "$sig" "$ipid"
        done
        sleep 0.2
        assertEquals "the init after signals 32-34 (stderr: $(cat "$T/err"))" seccomp-tsync-i \
                "$(cat "/proc/$ipid/comm" 2>/dev/null)"
        kill -TERM "$ipid"
        wait "$ipid"
        rc=$?
        assertEquals "stderr: $(cat "$T/err")" 7 "$rc"
        # An init that died left its workload behind.
        if [ "$rc" -ne 7 ]; then kill -KILL "$wpid" 2>/dev/null; fi
        return 0
}

# With --pgroup the whole process group of the workload gets the signal; without, only the workload.
pgroupRun() {
        local tpid upid ipid
        cat >"$T/group.sh" <<'EOF'
T=$1
sh -c 'trap "echo child >\"$1/got-child\"; exit 0" TERM; touch "$1/ready-child"; while :; do sleep 0.1; done' sh "$T" &
trap 'echo parent >"$T/got-parent"; sleep 0.5; exit 7' TERM
while [ ! -e "$T/ready-child" ]; do sleep 0.05; done
touch "$T/ready"
while :; do sleep 0.1; done
EOF
        timeout --preserve-status -s KILL 60 unshare --pid --fork --kill-child --mount-proc \
                "$INIT" "$@" -f "$T/deny.tsync" -- sh "$T/group.sh" "$T" >"$T/out" 2>"$T/err" &
        tpid=$!
        wait_for "$T/ready" || return
        upid=$(child_of "$tpid")
        ipid=$(child_of "$upid")
        kill -TERM "$ipid"
        wait "$tpid"
        rc=$?
}

testPgroupForwardsSignalsToTheWholeGroup() {
        pgroupRun --pgroup
        assertEquals "stderr: $(cat "$T/err")" 7 "$rc"
        assertTrue "the workload got it" "[ -e '$T/got-parent' ]"
        assertTrue "its child got it" "[ -e '$T/got-child' ]"
}

testWithoutPgroupOnlyTheWorkloadGetsTheSignal() {
        pgroupRun
        assertEquals "stderr: $(cat "$T/err")" 7 "$rc"
        assertTrue "the workload got it" "[ -e '$T/got-parent' ]"
        assertFalse "its child got it" "[ -e '$T/got-child' ]"
}

testASignalThatCameBeforeTheWorkloadIsForwardedWhenItStarts() {
        local start end
        start=$(date +%s)
        # SIGTERM (15) is pending when the init starts; sleep has no handler: it dies of it.
        in_pidns "$HARNESS" --pending-signal 15 -- -f "$T/deny.tsync" -- sleep 30
        end=$(date +%s)
        assertEquals "stderr: $(cat "$T/err")" 143 "$rc"
        assertTrue "took $((end - start)) s" "[ $((end - start)) -lt 20 ]"
}

zombie_script() {
        cat >"$T/zombie.sh" <<'EOF'
T=$1
echo $PPID >"$T/init-pid"
# The inner sh exits at once: its sleep is orphaned and handed to the init.
sh -c 'sleep 0.4 & echo $! >"$1/orphan"' sh "$T"
o=$(cat "$T/orphan")
sleep 0.1
cut -d' ' -f4 "/proc/$o/stat" >"$T/orphan-ppid"
sleep 1
if [ -e "/proc/$o" ]; then cat "/proc/$o/stat" >"$T/left"; fi
for f in /proc/[0-9]*/stat; do cat "$f"; done 2>/dev/null | awk '$3 == "Z"' >"$T/zombies"
exit 0
EOF
}

testAnOrphanedGrandchildIsReapedByPid1() {
        zombie_script
        run_init -f "$T/deny.tsync" -- sh "$T/zombie.sh" "$T"
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertEquals "the orphan's parent" 1 "$(cat "$T/orphan-ppid")"
        assertFalse "left unreaped: $(cat "$T/left" 2>/dev/null)" "[ -e '$T/left' ]"
        assertEquals "zombies" "" "$(cat "$T/zombies")"
}

testNotPid1TheInitIsASubreaperAndReaps() {
        zombie_script
        timeout --preserve-status -s KILL 60 "$INIT" -f "$T/deny.tsync" -- sh "$T/zombie.sh" "$T" >"$T/out" 2>"$T/err"
        rc=$?
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertEquals "the orphan's parent is the init" "$(cat "$T/init-pid")" "$(cat "$T/orphan-ppid")"
        assertFalse "left unreaped: $(cat "$T/left" 2>/dev/null)" "[ -e '$T/left' ]"
}

testBadFilterFilesAreRefusedBeforeAnythingRuns() {
        local kind
        # The control: resealing alone keeps a file good, so each refusal below is for its own reason.
        mkdir "$T/bad"
        mkbad "$T/deny.tsync" "$T/bad"
        run_init -f "$T/bad/reseal.tsync" -- touch "$T/marker"
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        rm -f "$T/marker"
        for kind in version:"unsupported version" magic:"bad magic" truncated:truncated \
                not-multiple-of-8:"not a multiple of 8" checksum:"checksum mismatch" unknown-flag:"unknown flags" \
                too-many-insns:"too many instructions"; do
                # After a good one: all files are checked before the first is applied.
                run_init -f "$T/deny.tsync" -f "$T/bad/${kind%%:*}.tsync" -- touch "$T/marker"
                assertRefused 122 "${kind#*:}"
        done
        run_init -f "$T/no-such-file.tsync" -- touch "$T/marker"
        assertRefused 122 "no-such-file.tsync: cannot read the filter file: No such file or directory"
        run_init -f "$T" -- touch "$T/marker"
        assertRefused 122 "not a regular file"
        # A symlink as the file, or as a directory on the way, is refused by name.
        ln -s "$T/deny.tsync" "$T/link.tsync"
        run_init -f "$T/link.tsync" -- touch "$T/marker"
        assertRefused 122 "link.tsync: refused: a symbolic link in its path"
        ln -s "$T/bad" "$T/linkdir"
        run_init -f "$T/linkdir/reseal.tsync" -- touch "$T/marker"
        assertRefused 122 "linkdir/reseal.tsync: refused: a symbolic link in its path"
}

# --filter and --filter-data mix, applied in command-line order: two filters deny mkdir with
# different errnos, and the kernel answers with the last one loaded (it runs filters newest first
# and keeps the first of equal precedence), so the errno tells the order.
testFilterAndFilterDataApplyInCommandLineOrder() {
        profile deny72 '{"defaultAction": "SCMP_ACT_ALLOW",
                         "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 72}]}'
        run_init -f "$T/deny.tsync" --filter-data "$(base64 -w0 "$T/deny72.tsync")" -- "$PROBE" -n 2 mkdir "$T/denied"
        assert_probe_threads 3 Seccomp_filters=2 errno=72
        run_init --filter-data "$(base64 -w0 "$T/deny72.tsync")" -f "$T/deny.tsync" -- "$PROBE" -n 2 mkdir "$T/denied"
        assert_probe_threads 3 Seccomp_filters=2 "errno=$DENIED"
        assertFalse "mkdir succeeded" "[ -d '$T/denied' ]"
}

# assertRefusedData STATUS PATTERN DATA: assertRefused, and the line does not carry the data.
assertRefusedData() {
        assertRefused "$1" "$2"
        [ -n "$3" ] && grep -qF -- "$3" "$T/err" && fail "the message carries the data: $(cat "$T/err")"
}

testBadFilterDataIsRefusedByItsPlaceBeforeAnythingRuns() {
        local kind data
        mkdir "$T/bad"
        mkbad "$T/deny.tsync" "$T/bad"
        # The control: the resealed file, as data, runs the workload.
        run_init -f "$T/deny.tsync" --filter-data "$(base64 -w0 "$T/bad/reseal.tsync")" -- touch "$T/marker"
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        rm -f "$T/marker"
        # Every way of breaking the file, as data after a good file: the same refusal, named as
        # filter 2. too-many-insns is within the size limit (which leaves room for an agent's
        # trailer), so its count refuses it.
        for kind in version:"unsupported version" magic:"bad magic" truncated:truncated \
                not-multiple-of-8:"not a multiple of 8" checksum:"checksum mismatch" unknown-flag:"unknown flags" \
                too-many-insns:"too many instructions"; do
                data=$(base64 -w0 "$T/bad/${kind%%:*}.tsync")
                run_init -f "$T/deny.tsync" --filter-data "$data" -- touch "$T/marker"
                assertRefusedData 122 "filter 2 (--filter-data): bad filter file: .*${kind#*:}" "$data"
        done
        # Not base64: line breaks (what base64 writes without -w0), a character of another
        # alphabet, a cut, bits after the last byte, padding inside.
        data=$(base64 -w76 "$T/deny.tsync")
        run_init --filter-data "$data" -- touch "$T/marker"
        assertRefusedData 122 "filter 1 (--filter-data): not base64: byte 76 (0x0a) is outside" "${data:0:40}"
        data=$(base64 -w0 "$T/deny.tsync" | tr 'A' '_')
        run_init --filter-data "$data" -- touch "$T/marker"
        assertRefusedData 122 "filter 1 (--filter-data): not base64: byte [0-9]* (0x5f) is outside" "${data:0:40}"
        data=$(base64 -w0 "$T/deny.tsync")
        run_init --filter-data "${data}A" -- touch "$T/marker"
        assertRefusedData 122 "filter 1 (--filter-data): not base64: its length ($((${#data} + 1))) is not" "${data:0:40}"
        run_init --filter-data "Zh==" -- touch "$T/marker"
        assertRefused 122 "filter 1 (--filter-data): not base64: misplaced '=' padding, or bits set"
        run_init --filter-data "Zg==${data}" -- touch "$T/marker"
        assertRefusedData 122 "filter 1 (--filter-data): not base64: misplaced '=' padding" "${data:0:40}"
        # Oversize: a whole file's worth of zeroes and more, refused by size before anything else.
        run_init -f "$T/deny.tsync" -f "$T/deny.tsync" --filter-data "$(head -c 40000 /dev/zero | base64 -w0)" -- \
                touch "$T/marker"
        assertRefused 122 "filter 3 (--filter-data): bad filter file: larger than 36896 bytes"
        # Empty: no bytes, a truncated file.
        run_init --filter-data "" -- touch "$T/marker"
        assertRefused 122 "filter 1 (--filter-data): bad filter file: truncated"
        # The label follows the filter past reading: a flag the kernel refuses at the load, and a
        # notify action.
        run_init -f "$T/deny.tsync" --filter-data "$(base64 -w0 "$T/bad/wait-killable-recv.tsync")" -- touch "$T/marker"
        assertRefused 124 "filter 2 (--filter-data): the kernel refuses flag SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"
        profile notify '{"defaultAction": "SCMP_ACT_ALLOW",
                         "syscalls": [{"names": ["getppid"], "action": "SCMP_ACT_NOTIFY"}]}'
        run_init --filter-data "$(base64 -w0 "$T/notify.tsync")" -- touch "$T/marker"
        assertRefused 122 "filter 1 (--filter-data): instruction [0-9]* returns SECCOMP_RET_USER_NOTIF"
        # A bad file after good data is still named by its path.
        run_init --filter-data "$data" -f "$T/no-such-file.tsync" -- touch "$T/marker"
        assertRefused 122 "no-such-file.tsync: cannot read the filter file: No such file or directory"
}

testNotifyActionsAreRefused() {
        profile notify '{"defaultAction": "SCMP_ACT_ALLOW",
                         "syscalls": [{"names": ["getppid"], "action": "SCMP_ACT_NOTIFY"}]}'
        run_init -f "$T/notify.tsync" -- touch "$T/marker"
        assertRefused 122 "returns SECCOMP_RET_USER_NOTIF"
}

testAFlagTheKernelRefusesIsNamedAndNothingIsApplied() {
        mkdir "$T/bad"
        mkbad "$T/deny.tsync" "$T/bad"
        run_init -f "$T/deny.tsync" -f "$T/bad/wait-killable-recv.tsync" -- touch "$T/marker"
        assertRefused 124 "wait-killable-recv.tsync: the kernel refuses flag SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"
        # Flags the kernel takes are passed with TSYNC.
        profile log '{"defaultAction": "SCMP_ACT_ALLOW", "flags": ["SECCOMP_FILTER_FLAG_LOG"],
                      "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 71}]}'
        run_init -f "$T/log.tsync" -- "$PROBE" -n 1 mkdir "$T/denied"
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertEquals 2 "$(probe_lines | grep -c "errno=$DENIED\$")"
}

testWithoutCapSysAdminAndWithoutNnpTheInitRefuses() {
        in_pidns setpriv --bounding-set -sys_admin -- "$INIT" -f "$T/deny.tsync" -- touch "$T/marker"
        assertRefused 123 "needs CAP_SYS_ADMIN (effective) or NO_NEW_PRIVS.*--allow-nnp"
}

testAllowNnpSetsNoNewPrivsToLoadWithoutCapSysAdmin() {
        local line
        in_pidns setpriv --bounding-set -sys_admin -- "$INIT" --allow-nnp -f "$T/deny.tsync" -- \
                "$PROBE" -n 2 mkdir "$T/denied"
        assert_probe_threads 3 NoNewPrivs=1 "errno=$DENIED"
}

testNoNewPrivsIsSetOnlyWhenAskedFor() {
        run_init --no-new-privs -f "$T/deny.tsync" -- "$PROBE" -n 1
        assertEquals 0 "$rc"
        assertEquals 2 "$(probe_lines | grep -c 'NoNewPrivs=1 ')"
        run_init -f "$T/deny.tsync" -- "$PROBE" -n 1
        assertEquals 2 "$(probe_lines | grep -c 'NoNewPrivs=0 ')"
        # Already set, and the config does not want it: the workload would not get what runc gives.
        in_pidns setpriv --no-new-privs -- "$INIT" -f "$T/deny.tsync" -- touch "$T/marker"
        assertRefused 123 "already set"
        in_pidns setpriv --no-new-privs -- "$INIT" --no-new-privs -f "$T/deny.tsync" -- touch "$T/marker"
        assertEquals 0 "$rc"
}

testRootEndsWithExactlyTheRequestedCapabilities() {
        local bnd=CAP_CHOWN,CAP_KILL,CAP_SETUID,CAP_NET_RAW inh=CAP_KILL,CAP_NET_RAW amb=CAP_KILL line
        run_init -f "$T/deny.tsync" --bounding "$bnd" --permitted CAP_CHOWN,CAP_KILL,CAP_NET_RAW \
                --effective CAP_CHOWN --inheritable "$inh" --ambient "$amb" -- "$PROBE" -n 2
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertEquals "" "$(cat "$T/err")"
        assertEquals 3 "$(probe_lines | wc -l)"
        # execve as uid 0 without file capabilities: P' = E' = bounding | I | A (commoncap.c).
        while read -r line; do
                assertCaps "$line" "$bnd" "$inh" "$amb" "$(union "$bnd" "$inh" "$amb")" \
                        "$(union "$bnd" "$inh" "$amb")" 0
        done < <(probe_lines)
        run_init -f "$T/deny.tsync" --bounding none --permitted "" --effective "" --inheritable "" --ambient "" -- \
                "$PROBE" -n 0
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertCaps "$(probe_lines)" "" "" "" "" "" 0
}

testANonRootUserEndsWithExactlyTheRequestedCapabilities() {
        local line
        # uid 1000 with CAP_SYS_ADMIN and CAP_SETPCAP lent through the ambient set, as the
        # rewritten config would: the init loads without NO_NEW_PRIVS, then drops them.
        in_pidns setpriv --reuid 1000 --regid 1000 --clear-groups \
                --inh-caps +sys_admin,+setpcap,+chown,+kill --ambient-caps +sys_admin,+setpcap,+chown,+kill -- \
                "$USER_INIT" -f "$T/deny.tsync" --bounding CAP_CHOWN,CAP_KILL --permitted CAP_CHOWN,CAP_KILL \
                --effective CAP_CHOWN --inheritable CAP_CHOWN,CAP_KILL --ambient CAP_CHOWN -- \
                "$USER_PROBE" -n 2 mkdir "$T/denied"
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertEquals 3 "$(probe_lines | wc -l)"
        # execve as a non-root uid without file capabilities: P' = E' = A (commoncap.c).
        while read -r line; do
                assertEquals "$line" 1000,1000,1000,1000 "$(field Uid "$line")"
                assertCaps "$line" CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL CAP_CHOWN CAP_CHOWN CAP_CHOWN 0
                assertEquals "$line" 2 "$(field Seccomp "$line")"
                assertEquals "$line" "$DENIED" "$(field errno "$line")"
        done < <(probe_lines)
        # No ambient set asked for: nothing survives the workload's execve.
        in_pidns setpriv --reuid 1000 --regid 1000 --clear-groups \
                --inh-caps +sys_admin,+setpcap --ambient-caps +sys_admin,+setpcap -- \
                "$USER_INIT" -f "$T/deny.tsync" --bounding CAP_CHOWN --permitted "" --effective "" --inheritable "" \
                --ambient "" -- "$USER_PROBE" -n 0
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertCaps "$(probe_lines)" CAP_CHOWN "" "" "" "" 0
}

testAnAmbientCapabilityTheKernelWillNotRaiseIsAWarning() {
        run_init -f "$T/deny.tsync" --permitted CAP_CHOWN --effective CAP_CHOWN --inheritable CAP_KILL \
                --ambient CAP_KILL -- "$PROBE" -n 0
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertEquals 1 "$(wc -l <"$T/err")"
        grep -q '^seccomp-tsync-init: capabilities: warning: cannot raise CAP_KILL in the ambient set' "$T/err" ||
                fail "$(cat "$T/err")"
        assertEquals "" "$(capsh_names "$(field CapAmb "$(probe_lines)")")"
}

testCapabilitiesTheInitCannotGiveAreRefused() {
        in_pidns setpriv --bounding-set -net_raw -- "$INIT" -f "$T/deny.tsync" --bounding CAP_CHOWN,CAP_NET_RAW -- \
                touch "$T/marker"
        assertRefused 123 "CAP_NET_RAW is not in the bounding set"
        run_init -f "$T/deny.tsync" --permitted CAP_CHOWN --effective CAP_CHOWN,CAP_KILL -- touch "$T/marker"
        assertRefused 123 "CAP_KILL is asked for in the effective set but not in the permitted set"
        run_init -f "$T/deny.tsync" --ambient CAP_NOT_A_CAP -- touch "$T/marker"
        assertRefused 121 "'CAP_NOT_A_CAP' is not a capability"
}

# The lines of PID 1's threads, as the workload sees them: "tid CapInh=... NoNewPrivs=...".
INIT_THREADS='for t in /proc/1/task/*; do
  echo "initthread $(basename $t) $(grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):" $t/status | tr -d "\t" | tr ":\n" "= ")"
done
echo "pid1owner $(stat -c %u /proc/1/environ) selfowner $(stat -c %u /proc/self/environ) uid $(id -u)"
cat /proc/self/status >/dev/null && echo "self-status ok"'

# assertInitThreads BND INH AMB PRM EFF NNP: both threads of PID 1 (main and signals) in $T/out
# show exactly these sets.
assertInitThreads() {
        local line n=0
        while read -r line; do
                n=$((n + 1))
                assertCaps "$line" "$@"
        done < <(grep '^initthread ' "$T/out")
        assertEquals "PID 1's threads: $(cat "$T/out")" 2 "$n"
}

testEveryThreadOfTheInitEndsWithWhatItHandsTheWorkload() {
        # Non-root, CAP_SYS_ADMIN and CAP_SETPCAP lent through the ambient set: the main thread
        # loads with them and drops them after; the signal thread never keeps them.
        in_pidns setpriv --reuid 1000 --regid 1000 --clear-groups \
                --inh-caps +sys_admin,+setpcap,+chown,+kill --ambient-caps +sys_admin,+setpcap,+chown,+kill -- \
                "$USER_INIT" -f "$T/deny.tsync" --bounding CAP_CHOWN,CAP_KILL --permitted CAP_CHOWN,CAP_KILL \
                --effective CAP_CHOWN --inheritable CAP_CHOWN,CAP_KILL --ambient CAP_CHOWN -- sh -c "$INIT_THREADS"
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertInitThreads CAP_CHOWN,CAP_KILL CAP_CHOWN,CAP_KILL CAP_CHOWN CAP_CHOWN,CAP_KILL CAP_CHOWN 0
        # Root with NO_NEW_PRIVS: everything final (and proven) before the load.
        run_init --no-new-privs -f "$T/deny.tsync" --bounding CAP_KILL,CAP_NET_RAW --permitted CAP_KILL \
                --effective CAP_KILL --inheritable "" --ambient "" -- sh -c "$INIT_THREADS"
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertInitThreads CAP_KILL,CAP_NET_RAW "" "" CAP_KILL CAP_KILL 1
}

testPid1IsNotDumpableYetProvesItselfAsNonRootAndInAUserNamespace() {
        # Non-root: PID 1's /proc is root's (non-dumpable), the workload's its own, as in a plain run.
        in_pidns setpriv --reuid 1000 --regid 1000 --clear-groups \
                --inh-caps +sys_admin,+setpcap --ambient-caps +sys_admin,+setpcap -- \
                "$USER_INIT" -f "$T/deny.tsync" --bounding CAP_CHOWN --permitted "" --effective "" --inheritable "" \
                --ambient "" -- sh -c "$INIT_THREADS"
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertEquals "pid1owner 0 selfowner 1000 uid 1000" "$(grep '^pid1owner' "$T/out")"
        grep -q '^self-status ok$' "$T/out" || fail "$(cat "$T/out")"
        assertInitThreads CAP_CHOWN "" "" "" "" 0
        # In a user namespace, as its root: the proof reads /proc/self/task there too.
        timeout --preserve-status -s KILL 60 unshare --user --map-root-user --pid --fork --kill-child --mount-proc \
                "$INIT" -f "$T/deny.tsync" --bounding CAP_KILL --permitted CAP_KILL --effective CAP_KILL \
                --inheritable "" --ambient "" -- sh -c "$INIT_THREADS" >"$T/out" 2>"$T/err"
        rc=$?
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        grep -q '^self-status ok$' "$T/out" || fail "$(cat "$T/out")"
        assertInitThreads CAP_KILL "" "" CAP_KILL CAP_KILL 0
}

testExecModeReplacesTheInitWithTheWorkload() {
        run_init --exec -f "$T/deny.tsync" -- sh -c \
                'echo pid=$$ tasks=$(ls /proc/1/task | wc -l); grep "^Seccomp_filters:" /proc/self/status; exit 42'
        assertEquals "stderr: $(cat "$T/err")" 42 "$rc"
        assertEquals "pid=1 tasks=1" "$(head -n 1 "$T/out")"
        grep -q -P '^Seccomp_filters:\t1$' "$T/out" || fail "$(cat "$T/out")"
}

testTheInitRunsInARootFilesystemWithoutALibc() {
        make_rootfs "$T/rootfs" "$INIT" "$PROBE" || fail "make_rootfs"
        cp "$T/deny.tsync" "$T/rootfs/deny.tsync"
        in_pidns --mount-proc="$T/rootfs/proc" chroot "$T/rootfs" \
                /bin/seccomp-tsync-init -f /deny.tsync -- /bin/threads_probe -n 2 mkdir /denied
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertEquals 3 "$(probe_lines | grep -c "errno=$DENIED\$")"
}

testWithoutProcNothingCanBeVerifiedAndTheWorkloadNeverRuns() {
        make_rootfs "$T/rootfs" "$INIT" || fail "make_rootfs"
        cp "$T/deny.tsync" "$T/rootfs/deny.tsync"
        timeout --preserve-status -s KILL 60 unshare --pid --fork --kill-child \
                chroot "$T/rootfs" /bin/seccomp-tsync-init -f /deny.tsync -- /bin/touch /marker >"$T/out" 2>"$T/err"
        rc=$?
        assertRefused 125 "verify: cannot open /proc/self/task"
        assertFalse "the workload ran" "[ -e '$T/rootfs/marker' ]"
}

testBadCommandLinesAndCommandsThatCannotRun() {
        run_init -f "$T/deny.tsync"
        assertRefused 121 "no command given"
        run_init --no-such-option -- true
        assertRefused 121 "unknown option '--no-such-option'"
        run_init --bounding CAP_CHOWN --bounding CAP_KILL -- true
        assertRefused 121 "--bounding is given twice"
        run_init --exec --pgroup -- true
        assertRefused 121 "--pgroup cannot be combined with --exec: there is no child to group"
        run_init -f "$T/deny.tsync" -- no-such-command-here
        assertRefused 127 "no-such-command-here: not found"
        touch "$T/not-executable"
        run_init -f "$T/deny.tsync" -- "$T/not-executable"
        assertRefused 126 "cannot be executed: Permission denied"
}

testHelpDocumentsTheExitCodes() {
        "$INIT" --help >"$T/out" 2>&1
        assertEquals 0 $?
        for code in 121 122 123 124 125 126 127 159; do
                grep -q "$code" "$T/out" || fail "--help does not mention $code"
        done
        assertEquals "seccomp-tsync-init $(sed -n "s/^VERSION = '\(.*\)'/\1/p" "$TOP/SConstruct")" "$("$INIT" --version)"
}

# The system calls --help lists are the only ones the init makes after the first filter.
POST_FILTER_SYSCALLS="read clone clone3 rt_sigprocmask execve wait4 exit_group seccomp capset prctl
rt_sigtimedwait kill futex tgkill setpgid getpid ioctl write set_robust_list pwrite64 ftruncate
sendmsg close_range recvmsg close"

# post_filter_syscalls TRACE INIT: the syscalls the init's threads (and its child until its
# execve) started after the init's first TSYNC seccomp() call, from an `strace -f` TRACE.
post_filter_syscalls() {
        python3 - "$@" <<'EOF'
import re, sys
trace, init = sys.argv[1:3]
line_re = re.compile(r'^(\d+) +(<\.\.\. )?([a-z0-9_]+)(?: resumed>|\()(.*)')
# (pid, syscall, rest of the line, whether the line starts the call rather than resumes it)
lines = [(int(m.group(1)), m.group(3), m.group(4), m.group(2) is None)
         for l in open(trace) for m in [line_re.match(l)] if m]
# Pass 1: who created whom (a clone may print its flags and its result on two lines).
init_pid, threads, forks, pending = None, {}, {}, {}
for pid, name, rest, is_start in lines:
    if name == 'execve' and is_start and rest.startswith('"' + init + '"') and rest.rstrip().endswith('= 0'):
        init_pid = init_pid or pid
    if name in ('clone', 'clone3'):
        text = pending.pop(pid, '') + rest
        if rest.rstrip().endswith('<unfinished ...>'):
            pending[pid] = text
            continue
        done = re.search(r'= (\d+)\s*$', rest)
        if done:
            (threads if 'CLONE_THREAD' in text else forks)[int(done.group(1))] = pid
# Pass 2: the init's threads, and its forked child until its execve, after the first TSYNC load.
ours, seen, after = {init_pid}, set(), False
for pid, name, rest, is_start in lines:
    if pid in threads and threads[pid] in ours:
        ours.add(pid)
    owned = pid in ours or (pid in forks and forks[pid] in ours)
    if not owned:
        continue
    if name == 'seccomp' and is_start and 'SECCOMP_FILTER_FLAG_TSYNC' in rest and '{' in rest:
        after = True
    if after and is_start:
        seen.add(name)
    if after and name == 'execve' and rest.rstrip().endswith('= 0'):
        # From here on that process is the workload.
        ours.discard(pid)
        forks.pop(pid, None)
print(' '.join(sorted(seen)))
EOF
}

# assert_post_filter_syscalls TRACE NAME...: every syscall the init made after its filter in
# TRACE is one of POST_FILTER_SYSCALLS (documented), and each NAME is among them.
assert_post_filter_syscalls() {
        local trace=$1 seen extra= name
        shift
        seen=$(post_filter_syscalls "$trace" "$INIT")
        assertNotEquals "nothing seen in $trace" "" "$seen"
        for name in $seen; do
                grep -qw -- "$name" <<<"$POST_FILTER_SYSCALLS" || extra="$extra $name"
        done
        assertEquals "undocumented syscalls after the filter in $trace (seen: $seen)" "" "$extra"
        for name in "$@"; do
                grep -qw -- "$name" <<<"$seen" || fail "$name not seen in $trace: $seen"
        done
}

testAfterTheFilterTheInitMakesOnlyTheDocumentedSyscalls() {
        local name seen trace
        if ! command -v strace >/dev/null; then
                startSkipping
                return
        fi
        profile deny-mknod '{"defaultAction": "SCMP_ACT_ALLOW",
                             "syscalls": [{"names": ["mknodat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 72}]}'
        # Everything at once: two filters, capabilities changed after loading (no NNP), an ambient
        # raise refused (a warning), a process group, and a signal forwarded.
        # strace runs inside the namespace so that the pids clone returns are the ones it prints;
        # the init is then its child, not PID 1 (a subreaper).
        in_pidns strace -f -qq -o "$T/trace" \
                "$INIT" -g -f "$T/deny.tsync" -f "$T/deny-mknod.tsync" --bounding CAP_CHOWN,CAP_KILL \
                --permitted CAP_CHOWN --effective CAP_CHOWN --inheritable CAP_KILL --ambient CAP_CHOWN,CAP_KILL -- \
                sh -c 'trap "exit 3" TERM; kill -TERM $PPID; while :; do sleep 0.1; done'
        assertEquals "stderr: $(cat "$T/err")" 3 "$rc"
        in_pidns strace -f -qq -o "$T/trace-exec" \
                "$INIT" --exec -f "$T/deny.tsync" --bounding CAP_CHOWN --permitted CAP_CHOWN --effective "" -- true
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        # What the supervising run needed, which a profile must therefore allow:
        assert_post_filter_syscalls "$T/trace" read execve wait4 seccomp capset prctl kill setpgid
        assert_post_filter_syscalls "$T/trace-exec"
        # The proof's files are opened before the load: neither run lists or opens anything after it.
        for trace in "$T/trace" "$T/trace-exec"; do
                seen=$(post_filter_syscalls "$trace" "$INIT")
                for name in openat getdents64; do
                        if grep -qw -- "$name" <<<"$seen"; then
                                fail "$name after the filter in $trace: $seen"
                        fi
                done
        done
}

# Exec once (issue 12): the supervisor's calls are documented too, and its thread is the third.
testWithExecOnceTheInitMakesOnlyTheDocumentedSyscalls() {
        if ! command -v strace >/dev/null; then
                startSkipping
                return
        fi
        python3 "$TOP/tests/tools/filter_file.py" --listener 1 "$T/exec-once.bpf" \
                0x20,0,0,0 0x15,0,1,59 0x06,0,0,0x7fc00000 0x15,0,1,322 0x06,0,0,0x7fc00000 0x06,0,0,0x7fff0000 ||
                fail "filter_file.py"
        in_pidns strace -f -qq -o "$T/trace" \
                "$INIT" --exec-once 1 --bounding none --permitted none --effective none -f "$T/deny.tsync" -f "$T/exec-once.bpf" -- sh -c '/bin/true || exit 7'
        assertEquals "the workload's exec is refused: stderr: $(cat "$T/err")" 7 "$rc"
        grep -q "Operation not permitted" "$T/err" || fail "no EPERM: $(cat "$T/err")"
        assert_post_filter_syscalls "$T/trace" ioctl futex execve
        grep -q 'SECCOMP_FILTER_FLAG_NEW_LISTENER|SECCOMP_FILTER_FLAG_TSYNC_ESRCH' "$T/trace" ||
                grep -q 'SECCOMP_FILTER_FLAG_TSYNC|SECCOMP_FILTER_FLAG_NEW_LISTENER|SECCOMP_FILTER_FLAG_TSYNC_ESRCH' \
                        "$T/trace" || fail "the listener's load: $(grep 'seccomp(' "$T/trace")"
}

# Recording (issue 13): the recorder's calls are documented too; the recording filter is loaded
# without TSYNC, with a listener, after the TSYNC ones.
testWithRecordingTheInitMakesOnlyTheDocumentedSyscalls() {
        if ! command -v strace >/dev/null; then
                startSkipping
                return
        fi
        python3 "$TOP/tests/tools/filter_file.py" --listener 3 "$T/rec.bpf" 0x06,0,0,0x7fc00000 ||
                fail "filter_file.py"
        in_pidns strace -f -qq -o "$T/trace" "$INIT" -g -f "$T/deny.tsync" -f "$T/rec.bpf" --record "$T/calls" \
                --permitted CAP_CHOWN --effective CAP_CHOWN -- sh -c 'echo ok; exit 5'
        assertEquals "stderr: $(cat "$T/err")" 5 "$rc"
        assertEquals "ok" "$(cat "$T/out")"
        assert_post_filter_syscalls "$T/trace" ioctl pwrite64 futex capset execve
        grep -q 'seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, {' "$T/trace" ||
                fail "the recording filter's load: $(grep 'seccomp(' "$T/trace")"
        grep -q 'SECCOMP_FILTER_FLAG_TSYNC.*SECCOMP_FILTER_FLAG_NEW_LISTENER' "$T/trace" &&
                fail "a listener loaded with TSYNC: $(grep 'seccomp(' "$T/trace")"
        grep -q '^oci-seccomp-tsync-record 1$' "$T/calls" || fail "no magic: $(head -c 100 "$T/calls")"
}

# A notify agent (issue 23): the hand-over's calls are documented too, and they are the main
# thread's first calls after the agent filter's load (sendmsg, then close_range: nothing of the init
# runs under that filter before the agent holds the listener). A stand-in relay
# (tests/tools/fake_relay.py) hands the listener to the test agent.
testWithAnAgentTheInitMakesOnlyTheDocumentedSyscalls() {
        local relay_pid agent_pid state first
        if ! command -v strace >/dev/null; then
                startSkipping
                return
        fi
        # x86-64: getppid and read to the agent, the rest allowed.
        python3 "$TOP/tests/tools/filter_file.py" --agent /.oci-seccomp-tsync/agent/relay m "$T/agent.bpf" \
                0x20,0,0,4 0x15,1,0,0xc000003e 0x06,0,0,0x7fff0000 0x20,0,0,0 0x15,0,1,110 0x06,0,0,0x7fc00000 \
                0x15,0,1,0 0x06,0,0,0x7fc00000 0x06,0,0,0x7fff0000 || fail "filter_file.py"
        "$TSYNC_TOOLS/seccomp_agent" "$T/agent.sock" "$T/agent.log" >"$T/agent.out" 2>&1 &
        agent_pid=$!
        state='{"ociVersion":"1.0.2","fds":["seccompFd"],"pid":1,"state":{"ociVersion":"1.0.2","id":"c","status":"creating","pid":1,"bundle":"/b"}}'
        python3 "$TOP/tests/tools/fake_relay.py" "$T/relay.sock" "$T/agent.sock" "$state" relay >"$T/relay.out" 2>&1 &
        relay_pid=$!
        tsync_wait_ready "$T/agent.out" "$T/relay.out"
        in_pidns strace -f -qq -o "$T/trace" "$INIT" -f "$T/deny.tsync" -f "$T/agent.bpf" --relay "$T/relay.sock" -- \
                sh -c 'echo ok'
        kill -TERM "$agent_pid" "$relay_pid" 2>/dev/null
        wait "$agent_pid" "$relay_pid" 2>/dev/null
        assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
        assertEquals "ok" "$(cat "$T/out")"
        assert_post_filter_syscalls "$T/trace" sendmsg close_range recvmsg close read execve
        # The main thread's two calls after the listener's load.
        # (The flag probes before the load pass no program: no "filter=".)
        first=$(awk -v pid="$(awk '/SECCOMP_FILTER_FLAG_NEW_LISTENER.*filter=/ {print $1; exit}' "$T/trace")" \
                '$1 == pid && found && n < 2 {sub(/\(.*/, "", $2); printf "%s ", $2; n++}
                 /SECCOMP_FILTER_FLAG_NEW_LISTENER.*filter=/ {found = 1}' "$T/trace")
        assertEquals "the main thread's first calls after the agent filter's load" "sendmsg close_range " "$first"
}

testAProfileDenyingWhatSupervisionNeedsRunsTheWorkloadInPlace() {
        local s
        for s in wait4 clone kill rt_sigtimedwait; do
                profile "deny-$s" "{\"defaultAction\": \"SCMP_ACT_ALLOW\",
                                    \"syscalls\": [{\"names\": [\"$s\"], \"action\": \"SCMP_ACT_ERRNO\"}]}"
                # As under the runtime alone: the workload is PID 1, one warning says why.
                run_init -f "$T/deny-$s.tsync" -- sh -c 'echo pid=$$; exit 7'
                assertEquals "deny $s: stderr: $(cat "$T/err")" 7 "$rc"
                assertEquals "deny $s: the workload is PID 1" "pid=1" "$(cat "$T/out")"
                assertEquals "deny $s: one warning: $(cat "$T/err")" 1 "$(wc -l <"$T/err")"
                grep -q "^seccomp-tsync-init: route: warning: the filters answer $s with ERRNO(1), .*runs in place of the init" \
                        "$T/err" || fail "deny $s: $(cat "$T/err")"
        done
}

testAProfileDenyingWhatEveryRouteNeedsIsRefusedBeforeAnythingRuns() {
        local s
        for s in rt_sigprocmask execve read; do
                profile "deny-$s" "{\"defaultAction\": \"SCMP_ACT_ALLOW\",
                                    \"syscalls\": [{\"names\": [\"$s\"], \"action\": \"SCMP_ACT_ERRNO\"}]}"
                run_init -f "$T/deny-$s.tsync" -- touch "$T/marker"
                assertRefused 126 "touch: cannot be started: the filters answer $s with ERRNO(1), and the init needs it"
        done
}

# A filter the simulation cannot foresee (it looks at the instruction pointer,
# which libseccomp never does) kills the main thread at its first read after
# the load: the signal thread must not live on without a workload.
testTheInitEndsWhenAFilterKillsItsMainThreadBeforeTheWorkloadRuns() {
        kill_read_filter "$T/kill-read.tsync"
        chmod 644 "$T/kill-read.tsync"
        run_init -f "$T/kill-read.tsync" -- touch "$T/marker"
        assertRefused 124 "the main thread ([0-9]*) died before the workload ran"
}

testTheInitIsStatic() {
        readelf -lW "$INIT" >"$T/out"
        assertFalse "has an interpreter" "grep -q INTERP '$T/out'"
}

# shellcheck disable=SC1091
. shunit2
