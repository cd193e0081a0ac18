#!/bin/bash
# `oci-seccomp-tsync lockdown`: a layer added to every task of a running runc container without a
# restart. The workload (lockdown_probe) keeps creating threads and children and has threads
# blocked in read, nanosleep and futex while it is locked down: afterwards every task carries one
# more filter, the layer's call fails in every thread and in every new child, the blocking calls
# resumed without EINTR, nothing is left traced and the cgroup is thawed. A container whose
# process has neither NO_NEW_PRIVS nor CAP_SYS_ADMIN is refused without --set-no-new-privs
# (nothing touched) and covered with it. Each fails on a main without the command.
# shellcheck disable=SC2016 # jq's variables in single quotes
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"

PROBE=$TSYNC_BUILD/tests/static/lockdown_probe

oneTimeSetUp() {
        tsync_need_built "$OCI" "$PROBE"
}

setUp() {
        tsync_test_begin || exit 1
        T=$TSYNC_TMP
        ID=$(tsync_unique_id lockdown)
}

tearDown() {
        tsync_test_end
}

# bundle NNP: $T/b running lockdown_probe, noNewPrivileges NNP, runc's default capabilities
# (no CAP_SYS_ADMIN), no seccomp of the runtime's.
bundle() {
        rm -rf "$T/b"
        make_rootfs "$T/b/rootfs" "$PROBE" || return 1
        make_bundle "$T/b" /bin/lockdown_probe || return 1
        tsync_json_edit "$T/b/config.json" '.process.noNewPrivileges = $nnp | del(.linux.seccomp)' \
                --argjson nnp "$1"
}


# Every process in the container's pid namespace (host pids).
procs_of() {
        local ns p
        ns=$(readlink "/proc/$1/ns/pid")
        for p in /proc/[0-9]*; do
                [ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$ns" ] && echo "${p#/proc/}"
        done
}

# "pid tid Seccomp_filters TracerPid" of every task of the container.
all_tasks() {
        local p t
        for p in $(procs_of "$1"); do
                for t in /proc/"$p"/task/*; do
                        awk -v p="$p" -v t="${t##*/}" '/^Seccomp_filters:/ {f=$2} /^TracerPid:/ {tr=$2}
                                END {if (f != "") print p, t, f, tr}' "$t/status" 2>/dev/null
                done
        done
}

cgroup_frozen() {
        local cg
        cg=$(awk -F: '$1 == "0" {print $3}' "/proc/$1/cgroup")
        if grep -q freezer "/proc/$1/cgroup"; then
                cg=$(awk -F: '$2 ~ /freezer/ {print $3}' "/proc/$1/cgroup")
                cat "/sys/fs/cgroup/freezer$cg/freezer.state"
        else
                grep '^frozen' "/sys/fs/cgroup$cg/cgroup.events"
        fi
}

lockdown() {
        timeout 60 "$OCI" lockdown "$@" >"$T/out" 2>"$T/err"
        rc=$?
}

# The probe's lines once /tmp/go exists: every kind reported, each with the layer's errno.
check_denied() {
        local k
        touch "$T/b/rootfs/tmp/go"
        for _ in $(seq 1 100); do
                [ "$(grep -cE 'kind=(read|nanosleep|futex|main|child)' "$TSYNC_TMP/$ID.log" | head -1)" -ge 6 ] &&
                        grep -q 'kind=read' "$TSYNC_TMP/$ID.log" && grep -q 'kind=futex' "$TSYNC_TMP/$ID.log" &&
                        grep -q 'kind=nanosleep' "$TSYNC_TMP/$ID.log" && grep -q 'kind=main' "$TSYNC_TMP/$ID.log" &&
                        break
                sleep 0.1
        done
        for k in read nanosleep futex main child; do
                assertTrue "no report from $k: $(tail -n 5 "$TSYNC_TMP/$ID.log")" \
                        "grep -q 'kind=$k' '$TSYNC_TMP/$ID.log'"
        done
        assertEquals "calls not denied: $(grep 'kind=' "$TSYNC_TMP/$ID.log" | grep -v 'errno=122' | head -3)" \
                0 "$(grep 'kind=' "$TSYNC_TMP/$ID.log" | grep -vc 'errno=122')"
        assertEquals "directories made" "" "$(find "$T/b/rootfs/tmp" -maxdepth 1 -name 'd.*')"
        assertEquals "errors: $(grep ERROR "$TSYNC_TMP/$ID.log" | head -3)" 0 "$(grep -c ERROR "$TSYNC_TMP/$ID.log")"
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

testATaskWithoutNoNewPrivsIsRefusedThenCoveredWithSetNoNewPrivs() {
        bundle false || fail "bundle"
        start_runc "$ID" "$T/b" || fail "start"
        pid=$(runc_pid "$ID")
        assertEquals "0" "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$pid/status")"
        lockdown --no-cache --pid "$pid" --profile "$PROFILES/deny-mkdir.json"
        assertEquals 1 "$rc"
        assertContains "$(cat "$T/err")" "neither NO_NEW_PRIVS nor CAP_SYS_ADMIN"
        assertContains "$(cat "$T/err")" "pid $pid tid $pid (lockdown_probe)"
        all_tasks "$pid" >"$T/after"
        assertEquals "a refused run touched tasks" "" "$(awk '$3 != 0 || $4 != 0' "$T/after")"
        lockdown --no-cache --pid "$pid" --set-no-new-privs --profile "$PROFILES/deny-mkdir.json"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "1" "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$pid/status")"
        all_tasks "$pid" >"$T/after"
        assertEquals "tasks without the layer: $(awk '$3 != 1' "$T/after")" "" "$(awk '$3 != 1' "$T/after")"
        check_denied
        stop_runc "$ID"
}

testAStoppedProcessIsRefusedBeforeAnythingIsTouched() {
        bundle true || fail "bundle"
        start_runc "$ID" "$T/b" || fail "start"
        pid=$(runc_pid "$ID")
        kill -STOP "$pid"
        for _ in $(seq 1 50); do
                [ "$(awk '/^State:/ {print $2}' "/proc/$pid/status")" = T ] && break
                sleep 0.1
        done
        lockdown --no-cache --pid "$pid" --profile "$PROFILES/deny-mkdir.json"
        assertEquals 1 "$rc"
        assertContains "$(cat "$T/err")" "pid $pid tid $pid (lockdown_probe): stopped"
        all_tasks "$pid" >"$T/after"
        assertEquals "a refused run touched tasks" "" "$(awk '$3 != 0 || $4 != 0' "$T/after")"
        assertEquals "T" "$(awk '/^State:/ {print $2}' "/proc/$pid/status")"
        kill -CONT "$pid"
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
        all_tasks "$pid" >"$T/after"
        assertEquals "a refused run added filters" "" "$(awk '$3 != 0' "$T/after")"
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
        all_tasks "$pid" >"$T/after"
        assertEquals "a refused run added filters" "" "$(awk '$3 != 0 || $4 != 0' "$T/after")"
        stop_crun "$ID"
}

. shunit2
