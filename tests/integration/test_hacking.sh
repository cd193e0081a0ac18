#!/bin/bash
# HACKING.md against the tree (tests/tools/hacking_names.py): its Layout names every file of
# hook/, and every file it names exists, so that a new or moved file shows up in review.
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

. shunit2
