#!/bin/bash
# hook/'s folders keep the rule HACKING.md writes down (tests/tools/architecture.py): a folder
# includes only itself and the folders before it, the init only hook/shared; no name is used for
# two files; no folder grows past 25 files; no two files, and no two folders, use each other.
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=${TSYNC_TOP:-$(cd "$HERE/../.." && pwd)}
BUILD=${TSYNC_BUILD:-$TOP/build}
CHECK="$TOP/tests/tools/architecture.py"

testEveryIncludeKeepsTheFolderOrder() {
        local out
        out=$(python3 "$CHECK" "$TOP" includes)
        assertEquals "$out" 0 $?
}

testNoNameIsUsedTwiceAndNoFolderIsTooBig() {
        local out
        out=$(python3 "$CHECK" "$TOP" names)
        assertEquals "$out" 0 $?
}

testNoTwoFilesOrFoldersUseEachOther() {
        local out
        out=$(python3 "$CHECK" "$TOP" circles "$BUILD")
        assertEquals "$out" 0 $?
}

# The checker itself: each check fails on a tree that breaks its rule (a copy of hook/ with one
# include, one file, one use added), so that a check that can no longer fail is seen.
testEachCheckFailsOnATreeThatBreaksIt() {
        local t
        t=$(mktemp -d) || fail "mktemp"
        cp -r "$TOP/hook" "$t/" || fail "copy"
        echo '#include "translate/profile.h"' >>"$t/hook/init/log.c"
        echo '#include "frontend/frontend.h"' >>"$t/hook/plan/plan.c"
        echo '#include "cli/cli.h"' >>"$t/hook/runtime/args.c"
        echo '#include "plan/no_such.h"' >>"$t/hook/util/json.c"
        python3 "$CHECK" "$t" includes >"$t/out"
        assertEquals "includes: exit status" 1 $?
        assertEquals "includes: each break named: $(cat "$t/out")" 4 "$(wc -l <"$t/out")"
        assertContains "$(cat "$t/out")" 'hook/init/log.c: includes "translate/profile.h": init may use only shared'
        cp "$t/hook/plan/plan.c" "$t/hook/lockdown/plan.c"
        local n_util
        n_util=$(find "$t/hook/util" -maxdepth 1 -name '*.c' | wc -l)
        for i in $(seq 30); do : >"$t/hook/util/extra_$i.c"; done
        python3 "$CHECK" "$t" names >"$t/out"
        assertEquals "names: exit status" 1 $?
        assertContains "$(cat "$t/out")" "hook/lockdown/plan.c and hook/plan/plan.c: one name for two files"
        assertContains "$(cat "$t/out")" "hook/util/: $((n_util + 30)) .c files, more than 25"
        rm -rf "$t"
}

testACircleOfTwoFilesIsFound() {
        local t
        t=$(mktemp -d) || fail "mktemp"
        mkdir -p "$t/hook/util" "$t/hook/plan" "$t/hook/shared" "$t/build/hook/util" "$t/build/hook/plan" "$t/build/hook/shared"
        printf 'int b(void);\nint a(void) { return b(); }\n' >"$t/hook/util/a.c"
        printf 'int a(void);\nint b(void) { return a() + 1; }\nint c(void);\nint d(void) { return c(); }\n' >"$t/hook/util/b.c"
        printf 'int d(void);\nint c(void) { return d(); }\n' >"$t/hook/plan/c.c"
        for i in $(seq 8); do printf 'int s%d(void) { return %d; }\n' "$i" "$i" >"$t/hook/shared/s$i.c"; done
        local f
        for f in util/a util/b plan/c $(for i in $(seq 8); do echo shared/s$i; done); do
                cc -c -o "$t/build/hook/$f.o" "$t/hook/$f.c" || fail "cc $f"
        done
        python3 "$CHECK" "$t" circles "$t/build" >"$t/out"
        assertEquals "circles: exit status" 1 $?
        assertContains "$(cat "$t/out")" "a circle of files: plan/c uses util/b (d); util/a uses util/b (b); util/b uses plan/c (c); util/b uses util/a (a)"
        assertContains "$(cat "$t/out")" "a circle of folders plan, util"
        assertContains "$(cat "$t/out")" "util/b uses c of plan/c: util may use only shared, util"
        rm -rf "$t"
}

. shunit2
