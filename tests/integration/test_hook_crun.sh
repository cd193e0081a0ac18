#!/bin/bash
# The hook end to end with crun (in its own mount namespace with cgroup2 alone). See hook_cases.sh.
HERE=$(cd "$(dirname "$0")" && pwd)
RT=crun
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"
. "$HERE/hook_cases.sh"

. shunit2
