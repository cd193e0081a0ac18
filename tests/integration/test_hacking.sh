#!/bin/bash
# HACKING.md against the tree (tests/tools/hacking_names.py): its Layout names every file of
# hook/, and every file it names exists, so that a new or moved file shows up in review; and one
# of its conventions for tests, which a reader misses easily.
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=${TSYNC_TOP:-$(cd "$HERE/../.." && pwd)}

testTheLayoutNamesEveryFileOfHook() {
        local out
        out=$(python3 "$TOP/tests/tools/hacking_names.py" "$TOP" layout)
        assertEquals "$out" 0 $?
}

testEveryFileHackingNamesExists() {
        local out
        out=$(python3 "$TOP/tests/tools/hacking_names.py" "$TOP" files)
        assertEquals "$out" 0 $?
}

# An assertion whose message holds a command substitution and whose value is $? compares the
# substitution's status, never the command's: it cannot fail (HACKING.md, Conventions). Every suite
# and bench takes the status first (last_rc=$?).
STATUS_AFTER_SUBST='^[[:space:]]*assert[A-Za-z]* .*\$\(.*[" ]\$\?"?[[:space:]]*$'

testNoAssertionReadsAStatusThatACommandSubstitutionReset() {
        local found
        found=$(grep -nE "$STATUS_AFTER_SUBST" "$TOP"/tests/integration/*.sh "$TOP"/tests/bench/*.sh)
        assertEquals "assertions that cannot fail: $found" "" "$found"
        # The check finds what it looks for.
        # shellcheck disable=SC2016 # the text of a suite's line
        assertTrue 'it finds one' "printf '%s\n' '        assertEquals \"\$(cat x)\" 0 \"\$?\"' | grep -qE '$STATUS_AFTER_SUBST'"
        # shellcheck disable=SC2016
        assertFalse 'and not one that took the status first' \
                "printf '%s\n' '        assertEquals \"\$(cat x)\" 0 \"\$last_rc\"' | grep -qE '$STATUS_AFTER_SUBST'"
}

. shunit2
