#!/bin/bash
# `oci-seccomp-tsync status`: what protects a running container, read from the kernel and
# judged against what the container asked. Real runc, crun and Podman containers: injected
# with a layer (protected, exit 0, every task's count right), asking for us through an
# annotation without our hooks having run (unprotected, exit 1), a process started with
# `runc exec` beside the workload (short, exit 1, named), a layer changed on disk since the start
# (PID 1's programs against the plan compiled now), a thread and process storm, exec once, the
# workload in place, a recording, a container that asks nothing (exit 3), Podman by name with and
# without --hooks-dir and in a shared pid namespace (refused, exit 4), Docker by name.
# Every --json document is validated against schema/status.schema.json.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"
. "$HERE/enginelib.sh"

STORM=$TSYNC_BUILD/tests/static/storm_probe
SCHEMA=$TSYNC_TOP/schema/status.schema.json

oneTimeSetUp() {
        tsync_need_built "$INIT" "$OCI" "$STORM"
        SUITE_TMP=$(mktemp -d)
        # `crun state` as the suites run crun (crun_cmd): --runtime takes a program.
        CRUN="$SUITE_TMP/crun"
        tsync_runtime_program "$CRUN" unshare -m --propagation private -- sh -c \
                'mount -t cgroup2 none /sys/fs/cgroup && exec crun --cgroup-manager=disabled "$@"' crun
}

oneTimeTearDown() {
        engine_stop_all
        podman ps -aq --filter label=tsync-test=$$ | xargs -r podman rm -f -t 0 >/dev/null 2>&1
        rm -rf "$SUITE_TMP"
}

setUp() {
        tsync_test_begin || exit 1
        T=$TSYNC_TMP
        ID=$(tsync_unique_id status)
}

tearDown() {
        tsync_test_end
}

# bundle ARG...: $T/b running ARGS with storm_probe in its rootfs, the runtime's own profile
# (deny-getcwd) in linux.seccomp, no ambient capabilities.
bundle() {
        rm -rf "$T/b"
        make_rootfs "$T/b/rootfs" "$STORM" || return 1
        make_bundle "$T/b" "$@" || return 1
        tsync_json_edit "$T/b/config.json" '.process.capabilities.ambient = [] | .linux.seccomp = $p' \
                --slurpfile p "$PROFILES/deny-getcwd.json" || return 1
        tsync_json_edit "$T/b/config.json" '.linux.seccomp = .linux.seccomp[0]'
}

# status ARGS...: oci-seccomp-tsync status; stdout in $T/out, stderr in $T/err, status in $rc.
status() {
        "$OCI" status "$@" >"$T/out" 2>"$T/err"
        rc=$?
}

# json_status ARGS...: status --json, the document validated against the schema.
json_status() {
        status --json "$@"
        python3 "$TSYNC_TOP/tests/tools/validate_json.py" "$SCHEMA" "$T/out" >"$T/valid" 2>&1 ||
                fail "the JSON does not follow the schema: $(cat "$T/valid")"
}

# Live tasks of the JSON in $T/out that do not carry exactly COUNT filters with COUNT asked.
tasks_without() {
        jq -r --argjson n "$1" '.tasks[] | select(.dead | not) | select(.filters != $n or .expected != $n)
                | "\(.pid) \(.tid) \(.comm) \(.filters)/\(.expected)"' "$T/out"
}

testARuncContainerWithALayerIsProtectedOnEveryTask() {
        bundle sh -c 'sleep 300 & sleep 300 & wait' || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject"
        start_runc "$ID" "$T/b" || fail "start"
        json_status "$ID"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "protected" "$(jq -r .verdict "$T/out")"
        assertEquals "PID 1 is our init" "true" "$(jq -r .init.ours "$T/out")"
        # PID 1's main and signal threads, sh's two sleeps, sh itself.
        assertTrue "tasks: $(jq -c '[.tasks[].comm]' "$T/out")" "[ $(jq '.tasks | length' "$T/out") -ge 5 ]"
        assertEquals "the runtime's profile + the layer on every task" "" "$(tasks_without 2)"
        assertEquals "no shortfall" "" "$(cat "$T/err")"
        assertEquals "PID 1's program is its filter file's" "true 1 null" \
                "$(jq -r '"\(.programs.compared) \(.programs.filters) \(.programs.differ)"' "$T/out")"
        status "$ID"
        assertEquals 0 "$rc"
        assertContains "$(cat "$T/out")" "verdict:   protected"
}

# A layer only takes away: a container whose config has no linux.seccomp carries the layer alone
# (ctr run without --seccomp), which status says rather than let "protected" stand for more.
testAContainerWithoutTheRuntimesProfileIsSaidToHaveNoBaseline() {
        bundle sleep 300 || fail "bundle"
        status_no_baseline="baseline:  none: the config has no linux.seccomp"
        tsync_json_edit "$T/b/config.json" 'del(.linux.seccomp)' || fail "edit"
        inject --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject"
        start_runc "$ID" "$T/b" || fail "start"
        status "$ID"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertContains "$(cat "$T/out")" "$status_no_baseline"
        assertContains "$(cat "$T/out")" "asked:     from the plan: 0 runtime filter + 1 of ours"
        json_status "$ID"
        assertEquals 0 "$(jq -r .asked.runtime_filters "$T/out")"
        # With the runtime's profile under the layer, nothing is said of it.
        _tsync_stop runc "$ID"
        bundle sleep 300 || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject"
        start_runc "$ID" "$T/b" || fail "start"
        status "$ID"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertNotContains "$(cat "$T/out")" "baseline:"
}

testACrunContainerWithALayerIsProtectedOnEveryTask() {
        bundle sh -c 'sleep 300 & wait' || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject"
        RT=crun rt_start "$ID" "$T/b" || fail "start"
        json_status --runtime "$CRUN" "$ID"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "protected" "$(jq -r .verdict "$T/out")"
        assertEquals "the runtime's profile + the layer on every task" "" "$(tasks_without 2)"
        assertEquals "init-thread" "$(jq -r '.tasks[] | select(.comm == "tsync-signals") | .role' "$T/out")"
}

# PID 1's programs are compared with what the plan compiles to now: a layer changed on disk since
# the start (the container still runs the old one) is a shortfall, named.
testALayerChangedSinceTheStartIsAShortfall() {
        bundle sleep 300 || fail "bundle"
        cp "$PROFILES/deny-mkdir.json" "$T/layer.json"
        inject --profile "$T/layer.json" "$T/b" || fail "inject"
        start_runc "$ID" "$T/b" || fail "start"
        json_status "$ID"
        assertEquals "before the change: $(cat "$T/err")" 0 "$rc"
        assertEquals "true 1 null true null" "$(jq -r '.programs | "\(.compared) \(.filters) \(.differ) \(.plan_compared) \(.drift)"' "$T/out")"
        cp "$PROFILES/deny-getcwd.json" "$T/layer.json"
        json_status "$ID"
        assertEquals "$(cat "$T/out")" 1 "$rc"
        assertEquals "short 0" "$(jq -r '"\(.verdict) \(.programs.drift)"' "$T/out")"
        assertContains "$(cat "$T/err")" "(init, init): the kernel's program for the plan's filter 0 (layer '$T/layer.json') is not what the plan compiles to now"
        # Counts alone are what a task can forge: without its programs read, never "protected".
        json_status --no-programs "$ID"
        assertEquals "without the comparison: $(cat "$T/err")" 4 "$rc"
        assertEquals "unverified" "$(jq -r .verdict "$T/out")"
}

# The hooks.d-not-found case, with runc: the config asks through an annotation, nothing rewrote it.
testAnAnnotatedConfigThatNoHookRewroteIsUnprotected() {
        bundle sleep 300 || fail "bundle"
        tsync_json_edit "$T/b/config.json" '.annotations["io.oci-seccomp-tsync.layers"] = "deny-mkdir"'
        start_runc "$ID" "$T/b" || fail "start"
        json_status "$ID"
        assertEquals 1 "$rc"
        assertEquals "unprotected" "$(jq -r .verdict "$T/out")"
        assertEquals "annotations" "$(jq -r .asked.source "$T/out")"
        assertEquals "one line: $(cat "$T/err")" 1 "$(wc -l <"$T/err")"
        assertContains "$(cat "$T/err")" "oci-seccomp-tsync: $ID: UNPROTECTED: pid $(runc_pid "$ID") (sleep): "
        assertContains "$(cat "$T/err")" "annotations.io.oci-seccomp-tsync.layers asks for it"
}

# runc exec starts a process under the runtime's own profile alone: it carries less, and is named.
testAProcessStartedWithRuncExecIsAShortfall() {
        bundle sleep 300 || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject"
        start_runc "$ID" "$T/b" || fail "start"
        runc exec -d --pid-file "$T/exec.pid" "$ID" /bin/sleep 300 || fail "runc exec"
        local pid
        pid=$(cat "$T/exec.pid")
        # runc exec -d may return before its process leaves runc's init (role "starting", not judged).
        tsync_wait_exec "$pid" || fail "the exec'd process does not run sleep"
        json_status "$ID"
        assertEquals "$(cat "$T/out")" 1 "$rc"
        assertEquals "short" "$(jq -r .verdict "$T/out")"
        assertEquals "the exec'd process is in the report" "$pid" \
                "$(jq -r '.tasks[] | select(.role == "other") | .pid' "$T/out")"
        assertEquals "it carries the runtime's profile alone" "1/2" \
                "$(jq -r '.tasks[] | select(.role == "other") | "\(.filters)/\(.expected)"' "$T/out")"
        assertEquals "one line: $(cat "$T/err")" 1 "$(wc -l <"$T/err")"
        assertContains "$(cat "$T/err")" "oci-seccomp-tsync: $ID: pid $pid tid $pid (sleep, other): 1 seccomp filter, 2 asked"
}

# Through oci-seccomp-tsync-runtime, exec runs through our init: that process carries the layer too.
testAProcessTheRuntimeWrapperExecsCarriesTheLayer() {
        local runtime="$TSYNC_BUILD/bin/oci-seccomp-tsync-runtime" g=(--root "$T/root")
        [ -x "$runtime" ] || fail "$runtime is not built"
        bundle sleep 300 || fail "bundle"
        : >"$T/runtime.conf"
        # Removed by tearDown, with the wrapper's record of its runtime (lib.sh).
        _tsync_register "runc:$T/root" "$ID"
        ours() {
                "$runtime" --runtime-config="$T/runtime.conf" --profile-dir="$PROFILES" --cache-dir="$T/cache" \
                        --layers=deny-mkdir "${g[@]}" "$@"
        }
        ours run -d -b "$T/b" "$ID" </dev/null >"$T/run.out" 2>&1 || fail "run: $(cat "$T/run.out")"
        jq -n '{args: ["/bin/sleep", "300"], cwd: "/", env: ["PATH=/bin"], terminal: false, user: {uid: 0, gid: 0},
                noNewPrivileges: true}' >"$T/process.json"
        ours exec -d --pid-file "$T/exec.pid" --process "$T/process.json" "$ID" >"$T/exec.out" 2>&1 ||
                fail "exec: $(cat "$T/exec.out")"
        tsync_wait_exec "$(cat "$T/exec.pid")" || fail "the exec'd process does not run"
        json_status --root "$T/root" "$ID"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertTrue "the exec'd process is there: $(jq -c '[.tasks[] | [.comm, .role]]' "$T/out")" \
                "[ $(jq '[.tasks[] | select(.role == "other")] | length' "$T/out") -ge 1 ]"
        assertEquals "the runtime's profile + the layer on every task" "" "$(tasks_without 2)"
}

# Threads and processes come and go while status reads /proc: each task it finds carries the
# filters, and none that ends meanwhile turns into an error.
testAThreadAndProcessStormIsReadWithoutFalseShortfalls() {
        bundle /bin/storm_probe 4 || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject"
        start_runc "$ID" "$T/b" || fail "start"
        local i
        for i in 1 2 3 4 5; do
                json_status "$ID"
                assertEquals "round $i: $(cat "$T/err")" 0 "$rc"
                assertEquals "round $i" "" "$(tasks_without 2)"
                assertTrue "round $i: the spawners are seen" \
                        "[ $(jq '[.tasks[] | select(.comm == "storm_probe")] | length' "$T/out") -ge 5 ]"
        done
}

testExecOnceShowsItsSupervisorThread() {
        bundle sleep 300 || fail "bundle"
        inject --exec-once --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject"
        start_runc "$ID" "$T/b" || fail "start"
        json_status "$ID"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "1" "$(jq -r .asked.exec_once "$T/out")"
        assertEquals "the profile, the layer and exec once's filter" "" "$(tasks_without 3)"
        assertEquals "init-thread" "$(jq -r '.tasks[] | select(.comm == "tsync-exec-once") | .role' "$T/out")"
}

# inject --exec: the workload is PID 1, under the filters; its programs still meet the plan's.
testAWorkloadRunInPlaceIsProtected() {
        bundle sh -c 'sleep 300 & wait' || fail "bundle"
        inject --exec --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject"
        start_runc "$ID" "$T/b" || fail "start"
        json_status "$ID"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "false true" "$(jq -r '"\(.init.ours) \(.asked.in_place)"' "$T/out")"
        assertEquals "" "$(tasks_without 2)"
        assertEquals "true null" "$(jq -r '.programs | "\(.plan_compared) \(.drift)"' "$T/out")"
}

# A recording: one more filter on the init's main thread and the workload, and the recorder thread.
testARecordingIsAskedOnTheMainThreadAndTheWorkload() {
        bundle sh -c 'sleep 300 & wait' || fail "bundle"
        inject --record "$T/rec.json" --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject"
        start_runc "$ID" "$T/b" || fail "start"
        json_status "$ID"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "3 3 2 2" "$(jq -r '[.tasks[] | select(.comm == "init" or .comm == "sleep" or .comm == "tsync-record"
                or .comm == "tsync-signals") | .expected] | sort | reverse | join(" ")' "$T/out")"
        assertEquals "" "$(jq -r '.tasks[] | select(.filters != .expected) | .comm' "$T/out")"
}

testAContainerThatAsksNothingExitsThree() {
        bundle sleep 300 || fail "bundle"
        start_runc "$ID" "$T/b" || fail "start"
        json_status "$ID"
        assertEquals "$(cat "$T/err")" 3 "$rc"
        assertEquals "not-asked" "$(jq -r .verdict "$T/out")"
        assertEquals "" "$(cat "$T/err")"
}

# A pid alone: the runtime's state that names its PID 1 gives the config (issue 35: never "asks
# nothing" without a config read), and a pid no runtime state names cannot be told.
testAPidAloneIsJudgedByTheConfigItsRuntimesStateNames() {
        bundle sleep 300 || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject"
        start_runc "$ID" "$T/b" || fail "start"
        local pid
        pid=$(jq -r '.pid' <(runc state "$ID"))
        json_status --pid "$pid"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "plan" "$(jq -r .asked.source "$T/out")"
        assertEquals "1" "$(jq -r .asked.runtime_filters "$T/out")"
        assertEquals "$T/b/config.json" "$(jq -r .target.config "$T/out")"
        json_status --pid "$pid" --config "$T/b/config.json"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "" "$(tasks_without 2)"
        # A pid namespace no runtime made: what it asked cannot be told, and is not said.
        unshare --pid --fork --kill-child sleep 300 &
        local ns=$! i
        for ((i = 0; i < 100; i++)); do
                pid=$(pgrep -P "$ns" sleep) && break
                sleep 0.1
        done
        status --pid "$pid"
        kill -KILL "$ns" 2>/dev/null # (unshare blocks SIGTERM while it waits)
        wait "$ns" 2>/dev/null
        assertEquals "no runtime's state: $(cat "$T/err")" 4 "$rc"
        assertContains "$(cat "$T/err")" "cannot tell what the container asked"
}

# The capability sets are judged against the plan's record of the config's: told (through a
# config of our own) that the container's bounding set lacks CAP_KILL, every task holds too much.
testACapabilityBeyondTheConfigsSetsIsAShortfall() {
        bundle sleep 300 || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject"
        start_runc "$ID" "$T/b" || fail "start"
        jq '.annotations["io.oci-seccomp-tsync.plan"] |= (fromjson
                | .capabilities |= with_entries(.value -= ["CAP_KILL"]) | tojson)' "$T/b/config.json" >"$T/less.json" ||
                fail "jq"
        json_status --pid "$(runc_pid "$ID")" --config "$T/less.json"
        assertEquals "$(cat "$T/out")" 1 "$rc"
        assertContains "$(cat "$T/err")" "(init, init): CapBnd holds CAP_KILL, beyond the config's bounding"
        assertContains "$(cat "$T/err")" "(sleep, workload): CapEff holds CAP_KILL, beyond the config's bounding and inheritable sets"
        assertEquals "every live task named" "" "$(jq -r '.tasks[] | select(.short | not) | .comm' "$T/out")"
}

testAContainerThatDoesNotExistIsUnknown() {
        status "no-such-container-$$"
        assertEquals 4 "$rc"
        assertContains "$(cat "$T/err")" "oci-seccomp-tsync: no-such-container-$$: \`runc state\` failed"
        status --pid $$
        assertEquals 4 "$rc"
        assertContains "$(cat "$T/err")" "our own pid namespace"
        status --podman a b
        assertEquals 2 "$rc"
}

# pstart NAME [PODMAN RUN OPTIONS...]: a detached Podman container running sleep.
pstart() {
        local name=$1
        shift
        podman "$@" run -d --name "$name" --runtime runc --label tsync-test=$$ --ulimit nofile=1024:1024 \
                --ulimit nproc=1024:1024 --annotation io.oci-seccomp-tsync.layers=deny-mkdir \
                --rootfs "$T/b/rootfs" /bin/sleep 300 >"$T/podman.out" 2>&1 || {
                fail "podman run: $(cat "$T/podman.out")"
                return 1
        }
}

testAPodmanContainerIsFoundByNameWithAndWithoutOurHooks() {
        command -v podman >/dev/null || {
                startSkipping
                return
        }
        bundle sleep 300 || fail "bundle"
        mkdir -p "$T/profiles" && cp "$PROFILES/deny-mkdir.json" "$T/profiles/"
        podman_hooks_dir "$T/hooks.d" "$T/profiles" "" "$T/cache" || fail "hooks.d"
        pstart "$ID" --hooks-dir "$T/hooks.d" || return
        json_status --podman "$ID" --profile-dir "$T/profiles"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "protected" "$(jq -r .verdict "$T/out")"
        assertEquals "Podman's profile + the layer on every task" "" "$(tasks_without 2)"
        assertEquals "the config Podman keeps has the plan" "plan" "$(jq -r .asked.source "$T/out")"
        assertEquals "the programs in the init's arguments, and the plan's" "true 1 null true null" \
                "$(jq -r '.programs | "\(.compared) \(.filters) \(.differ) \(.plan_compared) \(.drift)"' "$T/out")"

        # A container in another's pid namespace: its processes cannot be told apart.
        podman run -d --name "$ID-shared" --pid "container:$ID" --runtime runc --label tsync-test=$$ \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --rootfs "$T/b/rootfs" /bin/sleep 300 \
                >"$T/podman.out" 2>&1 || fail "podman run --pid: $(cat "$T/podman.out")"
        status --podman "$ID-shared"
        assertEquals "$(cat "$T/err")" 4 "$rc"
        assertContains "$(cat "$T/err")" "in its pid namespace, not 1: the namespace is shared"
        podman rm -f -t 0 "$ID-shared" "$ID" >/dev/null 2>&1

        # No --hooks-dir: Podman finds no hooks of ours and runs the container as it is.
        mkdir -p "$T/empty"
        pstart "$ID-nohooks" --hooks-dir "$T/empty" || return
        json_status --podman "$ID-nohooks"
        assertEquals "$(cat "$T/out")" 1 "$rc"
        assertEquals "unprotected" "$(jq -r .verdict "$T/out")"
        assertContains "$(cat "$T/err")" "UNPROTECTED"
        podman rm -f -t 0 "$ID-nohooks" >/dev/null 2>&1
}

# Docker through oci-seccomp-tsync-runtime with a layer, found by name (docker inspect, then the
# bundle its containerd shim runs in). dockerd is started for this test alone (enginelib.sh).
testADockerContainerIsFoundByName() {
        [ -x "$DOCKERD" ] && [ -x "$DOCKER_CLIENT" ] || {
                startSkipping
                return
        }
        local image=tsync-status-test:1
        docker_with_layer "$T/docker" tsync-mkdir deny-mkdir "$image" || return
        docker_cmd run -d --network none --name "$ID" --runtime tsync-mkdir "$image" sleep 300 >"$T/docker.out" 2>&1 ||
                fail "docker run: $(cat "$T/docker.out")"
        # The client that speaks to this dockerd first on PATH; status runs `docker inspect`.
        mkdir -p "$T/bin" && ln -s "$DOCKER_CLIENT" "$T/bin/docker"
        PATH="$T/bin:$PATH" DOCKER_HOST="unix://$DOCKER_SOCK" json_status --docker "$ID" --profile-dir "$PROFILES"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "protected" "$(jq -r .verdict "$T/out")"
        assertEquals "Docker's profile + the layer on every task" "" "$(tasks_without 2)"
        assertEquals "plan" "$(jq -r .asked.source "$T/out")"
        assertEquals "true null" "$(jq -r '.programs | "\(.plan_compared) \(.drift)"' "$T/out")"
        # The text names the bundle's config by its real path, and how it was read.
        PATH="$T/bin:$PATH" DOCKER_HOST="unix://$DOCKER_SOCK" "$OCI" status --docker "$ID" --profile-dir "$PROFILES" \
                >"$T/text" 2>&1
        assertTrue "config: $(grep '^config:' "$T/text")" \
                "grep -qE '^config: +/.*/$(docker_cmd inspect -f '{{.Id}}' "$ID")/config.json \\(read through /proc/[0-9]+/cwd/config.json\\)$' '$T/text'"
        assertTrue "programs: $(grep '^programs:' "$T/text")" \
                "grep -qx \"programs:  PID 1's filter from us is the program its filter file holds\" '$T/text'"
        docker_cmd rm -f "$ID" >/dev/null 2>&1
        engine_stop "$DOCKER_PID"
        engine_stop_all
}

. shunit2
