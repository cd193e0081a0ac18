#!/bin/bash
# `oci-seccomp-tsync lockdown` by its targets, and what holds after it (the task core, stops,
# zombies, diverged threads and storms are test_lockdown.sh's). Each fails on a main without it.
# shellcheck disable=SC2016 # jq's variables in single quotes
#
# Targets: a runc id or --pid, a crun id whose container has a cgroup of its own (and one whose
# cgroup holds a process of the host below it: refused, nothing frozen), Podman and Docker by name,
# and gVisor's containers (runsc alone, under Podman, under Docker), refused by the identity of the
# binary their processes run (the host's runsc, by device and inode; never a name) before anything
# is touched.
# After a lockdown: its record (status lists the layers and judges every task by them, a plain
# `runc exec` process is named as short), `docker exec` through oci-seccomp-tsync-runtime carries
# the added layer; for Podman the output names what `podman exec` runs (runc: its processes go
# without the layer, as they do; the wrapper as Podman's runtime: they carry it, as they do).
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"
. "$HERE/lockdownlib.sh"
. "$HERE/enginelib.sh"

SCHEMA=$TSYNC_TOP/schema/status.schema.json

oneTimeSetUp() {
        tsync_need_built "$OCI" "$PROBE"
}

oneTimeTearDown() {
        engine_stop_all
        podman ps -aq --filter label=tsync-test=$$ 2>/dev/null | xargs -r podman rm -f -t 0 >/dev/null 2>&1
}

setUp() {
        lockdown_setup
        LOG=$TSYNC_TMP/$ID.log
        LOG_CMD=()
}

lockdown() {
        timeout 60 "$OCI" lockdown "$@" >"$T/out" 2>"$T/err"
        rc=$?
}

# lockdown_in CMD... :: ARGS...: lockdown ARGS run by CMD (nsenter, env).
lockdown_in() {
        local cmd=()
        while [ "$1" != "::" ]; do
                cmd+=("$1")
                shift
        done
        shift
        timeout 60 "${cmd[@]}" "$OCI" lockdown "$@" >"$T/out" 2>"$T/err"
        rc=$?
}

# check_denied [PID]: the probe's lines once /tmp/go exists in the container of PID 1 PID (default:
# $T/b/rootfs): every kind reported, each with the layer's errno. The lines are in $LOG, or what
# LOG_CMD prints (an engine's logs).
check_denied() {
        local k root=$T/b/rootfs
        [ -z "${1:-}" ] || root=/proc/$1/root
        touch "$root/tmp/go"
        for _ in $(seq 1 100); do
                [ ${#LOG_CMD[@]} -eq 0 ] || "${LOG_CMD[@]}" >"$LOG" 2>&1
                [ "$(grep -cE 'kind=(read|nanosleep|futex|main|child)' "$LOG" | head -1)" -ge 6 ] &&
                        grep -q 'kind=read' "$LOG" && grep -q 'kind=futex' "$LOG" &&
                        grep -q 'kind=nanosleep' "$LOG" && grep -q 'kind=main' "$LOG" &&
                        break
                sleep 0.1
        done
        for k in read nanosleep futex main child; do
                assertTrue "no report from $k: $(tail -n 5 "$LOG")" "grep -q 'kind=$k' '$LOG'"
        done
        assertEquals "calls not denied: $(grep 'kind=' "$LOG" | grep -v 'errno=122' | head -3)" \
                0 "$(grep 'kind=' "$LOG" | grep -vc 'errno=122')"
        assertEquals "directories made" "" "$(find "$root/tmp/" -maxdepth 1 -name 'd.*')"
        assertEquals "errors: $(grep ERROR "$LOG" | head -3)" 0 "$(grep -c ERROR "$LOG")"
}

# every_task_has N PID: every task of the container of PID carries N filters, none is traced.
every_task_has() {
        all_tasks "$2" >"$T/after"
        assertEquals "tasks without the layer: $(awk -v n="$1" '$3 != n' "$T/after")" "" \
                "$(awk -v n="$1" '$3 != n' "$T/after")"
        assertEquals "tasks left traced" "" "$(awk '$4 != 0' "$T/after")"
}

json_status() {
        timeout 60 "$OCI" status --json "$@" >"$T/sout" 2>"$T/serr"
        src=$?
        python3 "$TSYNC_TOP/tests/tools/validate_json.py" "$SCHEMA" "$T/sout" >"$T/valid" 2>&1 ||
                fail "the JSON does not follow the schema: $(cat "$T/valid")"
}

testARuncContainerIsJudgedByItsRecordAndAPlainExecIsNamed() {
        bundle true || fail "bundle"
        start_runc "$ID" "$T/b" || fail "start"
        pid=$(runc_pid "$ID")
        record_of "$pid"
        rec=$REC
        lockdown --profile-dir "$PROFILES" --layers deny-mkdir --cache-dir "$T/cache" "$ID"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertContains "no runtime wrapper: said in one line" "$(cat "$T/out")" \
                "later exec'd processes will not carry the added layers"
        assertTrue "no record: $rec" "[ -f '$rec' ]"
        assertEquals "a root-only record" "600 0" "$(stat -c '%a %u' "$rec")"
        assertEquals "deny-mkdir" "$(jq -r '.layers[0].name' "$rec")"
        python3 "$TSYNC_TOP/tests/tools/validate_json.py" "$TSYNC_TOP/schema/lockdown.schema.json" "$rec" \
                >"$T/valid" 2>&1 || fail "the record does not follow its schema: $(cat "$T/valid")"
        json_status "$ID"
        assertEquals "$(cat "$T/serr")" 0 "$src"
        assertEquals "protected" "$(jq -r .verdict "$T/sout")"
        assertEquals "deny-mkdir 64" "$(jq -r '.lockdown.layers[0] | "\(.name) \(.sha256 | length)"' "$T/sout")"
        assertEquals "PID 1's newest program is the layer" "null" "$(jq -r '.lockdown.differ' "$T/sout")"
        assertEquals "every task asked for the layer" "" \
                "$(jq -r '.tasks[] | select(.dead | not) | select(.expected != 1) | .tid' "$T/sout")"
        timeout 60 "$OCI" status "$ID" >"$T/text" 2>&1
        assertContains "$(cat "$T/text")" "lockdown:  deny-mkdir (sha256 "

        # A plain runc exec: no wrapper, no layer; status names it.
        runc exec "$ID" /bin/mkdir /tmp/plain >"$T/exec.out" 2>&1
        last_rc=$?
        assertEquals "a plain exec is not covered: $(cat "$T/exec.out")" 0 "$last_rc"
        runc exec -d --pid-file "$T/exec.pid" "$ID" /bin/sleep 300 >"$T/exec.out" 2>&1 ||
                fail "runc exec -d: $(cat "$T/exec.out")"
        # Judged once it runs sleep, not while it is still runc's init.
        tsync_wait_exec "$(cat "$T/exec.pid")" || fail "the exec'd sleep never ran"
        json_status "$ID"
        assertEquals "$(cat "$T/serr")" 1 "$src"
        assertEquals "short" "$(jq -r .verdict "$T/sout")"
        assertContains "$(cat "$T/serr")" "(sleep, other): 0 seccomp filters, 1 asked (0 of the plan's + 1 added by lockdown)"
        stop_runc "$ID"
}

# crun_own_start ID BUNDLE: crun with a cgroup of its own (cgroupfs, in cgroup2 alone on
# /sys/fs/cgroup: crun_cmd's namespace) at /ID; no linux.resources (crun's device filter is a BPF
# program this host's memlock limit refuses). crun_own_stop ID removes both.
crun_own_start() {
        tsync_json_edit "$2/config.json" '.linux.cgroupsPath = "/" + $id | del(.linux.resources)' --arg id "$1" ||
                return 1
        tsync_in_cgroup2 crun --cgroup-manager=cgroupfs run -d --bundle "$2" "$1" </dev/null >"$LOG" 2>&1 || {
                fail "crun run: $(cat "$LOG")"
                return 1
        }
        tsync_wait_exec "$(crun_pid "$1")"
}

crun_own_stop() {
        tsync_in_cgroup2 crun --cgroup-manager=cgroupfs kill "$1" KILL >/dev/null 2>&1
        for _ in $(seq 1 50); do
                tsync_in_cgroup2 crun --cgroup-manager=cgroupfs delete -f "$1" >/dev/null 2>&1 && break
                sleep 0.1
        done
        [ ! -d "/sys/fs/cgroup/unified/$1" ] || find "/sys/fs/cgroup/unified/$1" -depth -type d -exec rmdir {} + 2>/dev/null
}

# crun_own_container: $ID, a crun container of `bundle true` with a cgroup of its own (skipped
# without crun or cgroup2's hierarchy), its pid in $pid and its record's path in $REC; non-zero
# when the test cannot go on.
crun_own_container() {
        if ! command -v crun >/dev/null || [ ! -d /sys/fs/cgroup/unified ]; then
                startSkipping
                return 1
        fi
        bundle true || fail "bundle"
        crun_own_start "$ID" "$T/b" || {
                crun_own_stop "$ID"
                return 1
        }
        pid=$(crun_pid "$ID")
        record_of "$pid"
}

testACrunContainerWithACgroupOfItsOwnIsLockedDownById() {
        crun_own_container || return
        rec=$REC
        lockdown --profile-dir "$PROFILES" --layers deny-mkdir --cache-dir "$T/cache" --runtime crun "$ID"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertContains "$(cat "$T/out")" "1 filter(s) added"
        assertEquals "deny-mkdir" "$(jq -r '.layers[0].name' "$rec")"
        every_task_has 1 "$pid"
        assertContains "$(grep '^frozen' "/sys/fs/cgroup/unified/$ID/cgroup.events")" "frozen 0"
        check_denied
        crun_own_stop "$ID"
}

testACgroupHoldingAHostProcessBelowTheContainerIsNeverFrozen() {
        crun_own_container || return
        # A process of the host in a cgroup below the container's: a freeze would reach it.
        mkdir "/sys/fs/cgroup/unified/$ID/host"
        sleep 300 &
        host=$!
        echo "$host" >"/sys/fs/cgroup/unified/$ID/host/cgroup.procs"
        lockdown --no-cache --runtime crun "$ID" --profile "$PROFILES/deny-mkdir.json"
        assertEquals 1 "$rc"
        assertEquals "one line: $(cat "$T/err")" 1 "$(wc -l <"$T/err")"
        assertContains "$(cat "$T/err")" "it cannot be frozen alone"
        assertContains "$(cat "$T/err")" "$ID/host holds pid $host, which is not in the container"
        assertContains "nothing frozen" "$(grep '^frozen' "/sys/fs/cgroup/unified/$ID/cgroup.events")" "frozen 0"
        assert_untouched "a refused run touched tasks" '$3 != 0 || $4 != 0'
        kill "$host"
        wait "$host" 2>/dev/null
        crun_own_stop "$ID"
}

testAPodmanContainerIsLockedDownByName() {
        command -v podman >/dev/null || {
                startSkipping
                return
        }
        bundle true || fail "bundle"
        podman run -d --name "$ID" --runtime runc --label tsync-test=$$ --ulimit nofile=1024:1024 \
                --ulimit nproc=1024:1024 --security-opt no-new-privileges --security-opt seccomp=unconfined \
                --rootfs "$T/b/rootfs" /bin/lockdown_probe >"$T/podman.out" 2>&1 || {
                fail "podman run: $(cat "$T/podman.out")"
                return
        }
        pid=$(podman inspect --format '{{.State.Pid}}' "$ID")
        record_of "$pid"
        rec=$REC
        sleep 0.5
        lockdown --profile-dir "$PROFILES" --layers deny-mkdir --cache-dir "$T/cache" --podman "$ID"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertContains "$(cat "$T/out")" "1 filter(s) added"
        every_task_has 1 "$pid"
        LOG_CMD=(podman logs "$ID")
        check_denied "$pid"
        json_status --podman "$ID"
        assertEquals "$(cat "$T/serr")" 0 "$src"
        assertEquals "deny-mkdir" "$(jq -r '.lockdown.layers[0].name' "$T/sout")"

        # `podman exec` runs runc's exec itself: the output says its processes go without the
        # layer, and they do (mkdir works, one filter fewer), and status names one that stays.
        assertContains "what podman exec gets: $(cat "$T/out")" "$(cat "$T/out")" "$ID: \`podman exec\` runs \`"
        assertContains "$(cat "$T/out")" "runc exec\` itself (conmon's runtime), not through oci-seccomp-tsync-runtime: the processes it starts will not carry the added layers"
        podman exec "$ID" /bin/mkdir /tmp/exec >"$T/exec.out" 2>&1
        last_rc=$?
        assertEquals "podman exec's mkdir: $(cat "$T/exec.out")" 0 "$last_rc"
        assertTrue "made by the exec'd process" "[ -d /proc/$pid/root/tmp/exec ]"
        podman exec "$ID" /bin/sh -c 'grep Seccomp_filters /proc/self/status' >"$T/exec.out" 2>&1
        assertContains "the exec'd process: Podman's profile only" "$(cat "$T/exec.out")" "Seccomp_filters:	0"
        podman exec -d "$ID" /bin/sleep 300 >"$T/exec.out" 2>&1 || fail "podman exec -d: $(cat "$T/exec.out")"
        # Judged once it runs sleep: podman exec -d may return while it is still runc's init.
        local tries=50
        while json_status --podman "$ID" && ! grep -q "(sleep, " "$T/serr" && [ $((tries -= 1)) -gt 0 ]; do
                sleep 0.1
        done
        assertEquals "$(cat "$T/serr")" 1 "$src"
        assertContains "$(cat "$T/serr")" "(sleep, other): 0 seccomp filters, 1 asked (0 of the plan's + 1 added by lockdown)"
        podman rm -f -t 0 "$ID" >/dev/null 2>&1
}

# Podman with oci-seccomp-tsync-runtime as its runtime (`podman --runtime`, its options as runtime
# flags) and a layer of the container's own (deny-getcwd): after a lockdown (deny-mkdir) the output
# says `podman exec` goes through the wrapper, and a process it starts carries both layers.
testAPodmanExecThroughTheWrapperCarriesTheAddedLayer() {
        command -v podman >/dev/null || {
                startSkipping
                return
        }
        local runtime="$TSYNC_BUILD/bin/oci-seccomp-tsync-runtime" flags
        : >"$T/runtime.conf"
        flags=(--runtime "$runtime" --runtime-flag "runtime-config=$T/runtime.conf"
                --runtime-flag "profile-dir=$PROFILES" --runtime-flag "cache-dir=$T/cache")
        bundle true || fail "bundle"
        podman "${flags[@]}" run -d --name "$ID" --label tsync-test=$$ --ulimit nofile=1024:1024 \
                --ulimit nproc=1024:1024 --network none --security-opt no-new-privileges \
                --annotation io.oci-seccomp-tsync.layers=deny-getcwd --rootfs "$T/b/rootfs" /bin/lockdown_probe \
                >"$T/podman.out" 2>&1 || {
                fail "podman run: $(cat "$T/podman.out")"
                return
        }
        pid=$(podman inspect --format '{{.State.Pid}}' "$ID")
        record_of "$pid"
        all_tasks "$pid" >"$T/before"
        before=$(awk 'NR == 1 {print $3}' "$T/before")
        lockdown --profile-dir "$PROFILES" --layers deny-mkdir --cache-dir "$T/cache" --podman "$ID"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertContains "$(cat "$T/out")" "$ID: \`podman exec\` goes through oci-seccomp-tsync-runtime (conmon's runtime, $runtime): the processes it starts get the added layers too"
        every_task_has $((before + 1)) "$pid"
        podman "${flags[@]}" exec "$ID" /bin/mkdir /tmp/exec >"$T/exec.out" 2>&1
        assertNotEquals "podman exec ran mkdir after the lockdown" 0 "$?"
        assertContains "$(cat "$T/exec.out")" "quota"
        assertFalse "made by an exec'd process" "[ -d /proc/$pid/root/tmp/exec ]"
        podman "${flags[@]}" exec "$ID" /bin/sh -c 'grep Seccomp_filters /proc/self/status' >"$T/exec.out" 2>&1
        assertContains "the exec'd process carries the container's and the added layer: $(cat "$T/exec.out")" \
                "$(cat "$T/exec.out")" "$((before + 1))"
        podman "${flags[@]}" rm -f -t 0 "$ID" >/dev/null 2>&1
}

# Docker through oci-seccomp-tsync-runtime with a layer of its own (deny-getcwd), locked down by
# name with deny-mkdir: every task then denies mkdir, and so does a process `docker exec` starts
# afterwards (the wrapper gives it the record's layer), while getcwd stays denied too.
testADockerContainerIsLockedDownByNameAndItsExecsCarryTheLayer() {
        if [ ! -x "$DOCKERD" ] || [ ! -x "$DOCKER_CLIENT" ]; then
                startSkipping
                return
        fi
        local image=tsync-lockdown-test:1
        docker_with_layer "$T/docker" tsync-getcwd deny-getcwd "$image" "$PROBE" || return
        docker_cmd run -d --network none --name "$ID" --runtime tsync-getcwd --security-opt no-new-privileges \
                "$image" /bin/lockdown_probe >"$T/docker.out" 2>&1 || fail "docker run: $(cat "$T/docker.out")"
        pid=$(docker_cmd inspect --format '{{.State.Pid}}' "$ID")
        record_of "$pid"
        rec=$REC
        all_tasks "$pid" >"$T/before"
        before=$(awk 'NR == 1 {print $3}' "$T/before")
        assertEquals "one count before: $(cat "$T/before")" "" "$(awk -v n="$before" '$3 != n' "$T/before")"
        docker_cmd exec "$ID" /bin/mkdir /tmp/before >"$T/exec.out" 2>&1
        last_rc=$?
        assertEquals "mkdir before the lockdown: $(cat "$T/exec.out")" 0 "$last_rc"
        # lockdown and status run where dockerd (and so the wrapper) sees /run: its own tmpfs here
        # (enginelib.sh), the host's anywhere else. The record goes with that tmpfs.
        mkdir -p "$T/bin" && ln -s "$DOCKER_CLIENT" "$T/bin/docker"
        in_docker=(nsenter -t "$DOCKER_PID" -m -- env PATH="$T/bin:$PATH" DOCKER_HOST="unix://$DOCKER_SOCK")
        lockdown_in "${in_docker[@]}" :: --profile-dir "$PROFILES" --layers deny-mkdir --cache-dir "$T/cache" \
                --docker "$ID"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertContains "$(cat "$T/out")" "processes exec'd through oci-seccomp-tsync-runtime get the added layers"
        every_task_has $((before + 1)) "$pid"
        LOG_CMD=(docker_cmd logs "$ID")
        check_denied "$pid"

        docker_cmd exec "$ID" /bin/mkdir /tmp/after >"$T/exec.out" 2>&1
        assertNotEquals "docker exec ran mkdir after the lockdown" 0 "$?"
        assertContains "$(cat "$T/exec.out")" "quota"
        assertFalse "made by an exec'd process" "[ -d /proc/$pid/root/tmp/after ]"
        docker_cmd exec "$ID" /bin/sh -c 'grep Seccomp_filters /proc/self/status' >"$T/exec.out" 2>&1
        assertContains "the exec'd process carries the container's and the added layer: $(cat "$T/exec.out")" \
                "$(cat "$T/exec.out")" "$((before + 1))"
        "${in_docker[@]}" "$OCI" status --json --docker "$ID" --profile-dir "$PROFILES" >"$T/sout" 2>"$T/serr"
        src=$?
        assertEquals "$(cat "$T/serr")" 0 "$src"
        assertEquals "deny-mkdir" "$(jq -r '.lockdown.layers[0].name' "$T/sout")"
        docker_cmd rm -f "$ID" >/dev/null 2>&1
        engine_stop "$DOCKER_PID"
        engine_stop_all
}

# need_runsc ID BUNDLE: starts a gVisor container, or skips the test saying why runsc cannot run one.
need_runsc() {
        if ! command -v runsc >/dev/null; then
                startSkipping
                fail "skipped: runsc is not installed (apt-get install runsc)"
                return 1
        fi
        start_runsc "$1" "$2" 2>"$T/runsc.err" && return 0
        startSkipping
        fail "skipped: runsc cannot start a container here: $(cat "$T/runsc.err")"
        return 1
}

# refused_as_gvisor SANDBOX ARGS...: lockdown ARGS exits 1 with one line naming gVisor and why, and
# touches nothing of the container whose sandbox is SANDBOX: no task's filter count changes (tasks
# joined by tid: the sentry's threads come and go), its cgroup is not frozen, no record or lock is
# written for any of its processes.
refused_as_gvisor() {
        local sandbox=$1 p
        shift
        cgroup_tasks "$sandbox" >"$T/before"
        lockdown --no-cache --profile "$PROFILES/deny-mkdir.json" "$@"
        assertEquals "$* ($(cat "$T/out"))" 1 "$rc"
        assertEquals "$*: one line: $(cat "$T/err")" 1 "$(wc -l <"$T/err")"
        assertContains "$*" "$(cat "$T/err")" "its container's tasks are not host tasks but run inside its sentry"
        assertContains "$*" "$(cat "$T/err")" "a filter on the sentry itself is not what was asked"
        cgroup_tasks "$sandbox" >"$T/after"
        assertEquals "$*: filters added" "" "$(awk 'NR == FNR {f[$2] = $3; next} ($2 in f) && f[$2] != $3' \
                "$T/before" "$T/after")"
        assertContains "$*: frozen" "$(cgroup_frozen "$sandbox")" "THAWED"
        for p in $(cat "$(freezer_dir "$sandbox")/cgroup.procs"); do
                assertEquals "$*: a record or lock of pid $p" "" "$(compgen -G "$RECORDS/$p-*")"
        done
}

# A gVisor container's host processes are runsc's (the sandbox running the sentry, the gofer, the
# ptrace platform's stubs): lockdown refuses it by name whichever names it, by its runtime, by any
# of these processes, or by a process of the host in its cgroup (a freeze would take the sandbox).
testAGvisorContainerIsRefusedByNameWhicheverOfItsProcessesIsNamed() {
        make_bundle "$T/g" || fail "bundle"
        need_runsc "$ID" "$T/g" || return
        sandbox=$(runsc state "$ID" | jq -r .pid)
        assertEquals "the runtime's pid is its sandbox" "runsc-sandbox" "$(tr '\0' '\n' <"/proc/$sandbox/cmdline" | head -1)"
        gofer='' stub=''
        for p in $(cat "$(freezer_dir "$sandbox")/cgroup.procs"); do
                case "$(tr '\0' '\n' <"/proc/$p/cmdline" | head -1)" in
                runsc-gofer) gofer=$p ;;
                runsc-sandbox) ;;
                *) [ "$(awk '{print $4}' "/proc/$p/stat")" = "$sandbox" ] && stub=$p ;;
                esac
        done
        assertNotNull "no gofer in the container's cgroup" "$gofer"
        refused_as_gvisor "$sandbox" --runtime runsc "$ID"
        assertContains "$(cat "$T/err")" "oci-seccomp-tsync: $ID: --runtime runsc is gVisor: "
        refused_as_gvisor "$sandbox" --pid "$sandbox"
        assertContains "$(cat "$T/err")" "pid $sandbox is gVisor's (runsc), not the workload's: it runs "
        refused_as_gvisor "$sandbox" --pid "$gofer"
        assertContains "$(cat "$T/err")" "pid $gofer is gVisor's (runsc), not the workload's: it runs "
        # The platform's stubs (ptrace: the sandbox's children) exist on some platforms only.
        if [ -n "$stub" ]; then
                refused_as_gvisor "$sandbox" --pid "$stub"
                assertContains "$(cat "$T/err")" "is gVisor's (runsc), not the workload's"
        fi
        # A process that is not runsc's, in the container's cgroup: the cgroup's other processes tell.
        sleep 300 &
        host=$!
        echo "$host" >"$(freezer_dir "$sandbox")/cgroup.procs"
        refused_as_gvisor "$sandbox" --pid "$host"
        assertContains "$(cat "$T/err")" "oci-seccomp-tsync: $host: pid "
        assertContains "$(cat "$T/err")" "is gVisor's (runsc), not the workload's"
        kill "$host"
        wait "$host" 2>/dev/null || :
}

# Docker with runsc as a runtime (daemon.json's runtimes): found through docker inspect, refused
# the same way.
testADockerContainerUnderGvisorIsRefusedByName() {
        if [ ! -x "$DOCKERD" ] || [ ! -x "$DOCKER_CLIENT" ] || ! command -v runsc >/dev/null; then
                startSkipping
                fail "skipped: needs dockerd, the docker client and runsc"
                return
        fi
        local dir="$T/docker" image=tsync-lockdown-test:1
        mkdir -p "$dir"
        # containerd's shim hands its runtime the host's /dev/null, which runsc would give to the
        # sandbox's user.
        tsync_runtime_program "$dir/runsc" runsc --network=none
        jq -n --arg r "$dir/runsc" '{runtimes: {gvisor: {path: $r}}}' >"$dir/daemon.json"
        make_rootfs "$dir/rootfs" >/dev/null || fail "rootfs"
        docker_start "$dir" || {
                fail "dockerd did not start"
                return
        }
        engine_image_tar "$dir/rootfs" | docker_cmd import - "$image" >/dev/null || fail "docker import"
        if ! docker_cmd run -d --network none --name "$ID" --runtime gvisor "$image" /bin/sleep 600 \
                >"$T/docker.out" 2>&1; then
                # A container whose start failed keeps its shim and sandbox, which docker rm does not
                # end: this test's own (their command lines name its exec root), killed.
                docker_cmd rm -f "$ID" >/dev/null 2>&1
                pgrep -f -- "$dir/exec/" | xargs -r kill -KILL
                engine_stop "$DOCKER_PID"
                engine_stop_all
                startSkipping
                fail "skipped: docker cannot run a container with runsc here: $(tail -n 1 "$T/docker.out")"
                return
        fi
        sandbox=$(docker_cmd inspect --format '{{.State.Pid}}' "$ID")
        mkdir -p "$T/bin" && ln -s "$DOCKER_CLIENT" "$T/bin/docker"
        in_docker=(nsenter -t "$DOCKER_PID" -m -- env PATH="$T/bin:$PATH" DOCKER_HOST="unix://$DOCKER_SOCK")
        cgroup_tasks "$sandbox" >"$T/before"
        lockdown_in "${in_docker[@]}" :: --no-cache --profile "$PROFILES/deny-mkdir.json" --docker "$ID"
        assertEquals "$(cat "$T/out")" 1 "$rc"
        assertEquals "one line: $(cat "$T/err")" 1 "$(wc -l <"$T/err")"
        assertContains "$(cat "$T/err")" "oci-seccomp-tsync: $ID: pid "
        assertContains "$(cat "$T/err")" "is gVisor's (runsc), not the workload's: it runs "
        assertContains "$(cat "$T/err")" "(the same device and inode): its container's tasks are not host tasks but run inside its sentry"
        cgroup_tasks "$sandbox" >"$T/after"
        assertEquals "filters added" "" "$(awk 'NR == FNR {f[$2] = $3; next} ($2 in f) && f[$2] != $3' \
                "$T/before" "$T/after")"
        assertContains "frozen" "$(cgroup_frozen "$sandbox")" "THAWED"
        docker_cmd rm -f "$ID" >/dev/null 2>&1
        engine_stop "$DOCKER_PID"
        engine_stop_all
}

# Podman running the container with runsc: found through podman inspect, refused the same way.
testAPodmanContainerUnderGvisorIsRefusedByName() {
        if ! command -v podman >/dev/null || ! command -v runsc >/dev/null; then
                startSkipping
                fail "skipped: needs podman and runsc"
                return
        fi
        make_rootfs "$T/rootfs" || fail "rootfs"
        # Podman hands its runtime the host's /dev/null, which runsc would give to the sandbox's user.
        tsync_runtime_program "$T/runsc" runsc --network=none
        podman --runtime "$T/runsc" run -d --name "$ID" --label tsync-test=$$ \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --network none --rootfs "$T/rootfs" \
                /bin/sleep 600 >"$T/podman.out" 2>&1 || {
                podman rm -f -t 0 "$ID" >/dev/null 2>&1
                startSkipping
                fail "skipped: podman cannot run a container with runsc here: $(tail -n 1 "$T/podman.out")"
                return
        }
        sandbox=$(podman inspect --format '{{.State.Pid}}' "$ID")
        refused_as_gvisor "$sandbox" --podman "$ID"
        assertContains "$(cat "$T/err")" "oci-seccomp-tsync: $ID: pid $sandbox is gVisor's"
        podman rm -f -t 0 "$ID" >/dev/null 2>&1
}

. shunit2
