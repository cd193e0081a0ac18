#!/bin/bash
# The C unit tests under valgrind memcheck: 0 errors and 0 definitely lost bytes in each
# test program and in every child it forks (each process writes its own log).
#
# valgrind 3.19 (Debian 12) does not emulate seccomp(2): it answers ENOSYS and warns
# "unhandled amd64-linux syscall: 317". libseccomp then also believes the kernel lacks
# newer actions (KILL_PROCESS, LOG: its API-level probe uses seccomp(2)). A test program
# whose children load filters still runs here, so memcheck sees all of its code, but its
# TAP results about the kernel's answers cannot hold: for those programs only memcheck's
# verdict counts (the TAP cases that failed under valgrind are listed). Every other program
# must also pass all its TAP cases. A sanitizer build (scons sanitize=1) cannot run under
# valgrind: then every test is skipped.
#
# The programs run in oneTimeSetUp, MEMCHECK_JOBS (default: the number of CPUs) at a time,
# each for at most MEMCHECK_TIMEOUT seconds (default 780); each test judges one program.
# tests: alone: it runs one valgrind per core already
TOP=${TSYNC_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${TSYNC_BUILD:-$TOP/build}
UNIT=$BUILD/tests/unit

unit_programs() {
        local prog
        for prog in "$UNIT"/test_*; do
                [ -f "$prog" ] && [ -x "$prog" ] && [ "${prog%.o}" = "$prog" ] && echo "$prog"
        done
}

# run_memcheck PROGRAM DIR: valgrind's logs go to DIR/vg.<pid>, the test's output to
# DIR/tap, the exit status to DIR/status, the pid of valgrind's parent to DIR/ppid.
run_memcheck() {
        local prog=$1 dir=$2 pid
        # From the top directory: the unit tests find their fixtures there.
        (cd "$TOP" && exec timeout -k 10 "${MEMCHECK_TIMEOUT:-780}" valgrind --error-exitcode=99 \
                --leak-check=full --errors-for-leak-kinds=definite --suppressions="$SUPP" \
                --log-file="$dir/vg.%p" "$prog" >"$dir/tap" 2>&1) &
        pid=$!
        wait "$pid"
        echo $? >"$dir/status"
        echo "$pid" >"$dir/ppid"
}

oneTimeSetUp() {
        SKIP_REASON=
        if ! command -v valgrind >/dev/null; then
                SKIP_REASON="valgrind is missing: apt-get install valgrind"
        elif ldd "$UNIT/test_json" 2>/dev/null | grep -q libasan; then
                SKIP_REASON="a sanitizer build (scons sanitize=1) cannot run under valgrind"
        fi
        RESULTS=$(mktemp -d "${TMPDIR:-/tmp}/tsync-memcheck.XXXXXX")
        SUPP=$RESULTS/suppressions
        # valgrind 3.19 reads mount(2)'s type as a string even when it is NULL, which the
        # kernel allows for MS_PRIVATE and MS_REMOUNT (test_cache's full-disk child does that).
        cat >"$SUPP" <<'EOF'
{
   mount-null-type-is-allowed
   Memcheck:Param
   mount(type)
   fun:mount
}
EOF
        [ -z "$SKIP_REASON" ] || return 0
        local jobs=${MEMCHECK_JOBS:-$(nproc)} prog dir
        for prog in $(unit_programs); do
                dir=$RESULTS/$(basename "$prog")
                mkdir -p "$dir"
                while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
                        wait -n
                done
                run_memcheck "$prog" "$dir" &
        done
        wait
}

oneTimeTearDown() {
        rm -rf "$RESULTS"
}

assertMemcheckClean() {
        local prog=$1 name dir status ppid main_log log bad=0
        name=$(basename "$prog")
        if [ -n "$SKIP_REASON" ]; then
                startSkipping
                assertTrue "$name: $SKIP_REASON" false
                return 0
        fi
        dir=$RESULTS/$name
        status=$(cat "$dir/status" 2>/dev/null)
        ppid=$(cat "$dir/ppid" 2>/dev/null)
        case "$status" in
        124|137) fail "$name: timed out after ${MEMCHECK_TIMEOUT:-780} s under valgrind"; return 0 ;;
        esac
        # The test process is the one timeout started; its children have it as parent.
        main_log=$(grep -l "^==[0-9]*== Parent PID: $ppid\$" "$dir"/vg.* 2>/dev/null | head -1)
        if [ -z "$main_log" ] || ! grep -q "ERROR SUMMARY: " "$main_log"; then
                fail "$name: the test process did not finish under valgrind (status $status): $(tail -3 "$dir/tap")"
                return 0
        fi
        local logs=("$dir"/vg.*)
        for log in "${logs[@]}"; do
                # A child the test killed (SIGKILL once it answered) writes no summary: nothing to judge.
                grep -q "ERROR SUMMARY: " "$log" || continue
                if ! grep -q "ERROR SUMMARY: 0 errors" "$log" || grep -qE "definitely lost: [1-9]" "$log"; then
                        bad=$((bad + 1))
                        echo "--- $name: $(basename "$log") ---"
                        grep -E '^==[0-9]+== ' "$log" | head -60
                fi
        done
        assertEquals "$name: processes with memcheck errors or definite leaks (of ${#logs[@]})" 0 "$bad"
        assertNotEquals "$name: valgrind's error exit code" 99 "$status"

        if grep -q "unhandled amd64-linux syscall: 317" "${logs[@]}"; then
                echo "$name: valgrind cannot emulate seccomp(2); TAP not judged here ($(grep -c '^not ok' "$dir/tap")" \
                        "cases failed under valgrind: $(grep '^not ok' "$dir/tap" | sed 's/^not ok [0-9]* - //; s/ .*//' |
                        tr '\n' ' '))"
        else
                assertEquals "$name: TAP under valgrind: $(grep '^not ok' "$dir/tap" | head -5)" 0 "$status"
                grep -q '^1\.\.[0-9]' "$dir/tap" || fail "$name: no TAP plan under valgrind"
        fi
        return 0
}

testMemcheckFoundTheUnitTests() {
        assertTrue "no unit tests in $UNIT (build first)" "[ -n '$(unit_programs)' ]"
}

# One test per unit-test program: testMemcheckTestJson, testMemcheckTestCompile, ...
suite() {
        local prog fn
        suite_addTest testMemcheckFoundTheUnitTests
        for prog in $(unit_programs); do
                fn=testMemcheck$(basename "$prog" | sed -E 's/(^|_)([a-z])/\U\2/g')
                eval "$fn() { assertMemcheckClean '$prog'; }"
                suite_addTest "$fn"
        done
}

. shunit2
