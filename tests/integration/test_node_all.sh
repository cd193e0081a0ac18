#!/bin/bash
# `oci-seccomp-tsync status --all`: every container of the node, found in the runtimes' state roots
# (hook/node) and judged as `status TARGET` judges one. Real runc containers (one under our init by
# inject, one plain, one through the runtime wrapper, whose record leads to its root), crun, ctr's
# containerd in the default and k8s.io namespaces, Docker and Podman by their names; created and
# paused ones; stale and hostile state entries beside a real container (a dead pid, pid 1 with
# another start time, a link, a huge file, garbage, a FIFO, a user's root naming root's process),
# which are said and not believed; the exit status. The tests read their own roots alone
# (--only-roots) or, where an engine keeps its containers in the node's root (Podman, plain runc,
# the wrapper's record), look only at their own containers and stop no task (--no-programs).
# Every --json array is validated against schema/status-all.schema.json.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"
. "$HERE/enginelib.sh"

SCHEMA=$TSYNC_TOP/schema/status-all.schema.json

oneTimeSetUp() {
        tsync_need_built "$INIT" "$OCI" "$RUNTIME"
}

oneTimeTearDown() {
        engine_stop_all
        command -v podman >/dev/null &&
                podman ps -aq --filter label=tsync-test=$$ | xargs -r podman rm -f -t 0 >/dev/null 2>&1
        return 0
}

setUp() {
        tsync_test_begin || exit 1
        T=$TSYNC_TMP
        ID=$(tsync_unique_id all)
        R=$T/runc
        mkdir -p "$R"
        CTR_IDS=()
}

tearDown() {
        if [ -n "${CONTAINERD_PID:-}" ]; then
                local ns_id
                for ns_id in "${CTR_IDS[@]}"; do
                        ctr_cmd -n "${ns_id%% *}" task kill -s KILL "${ns_id#* }" >/dev/null 2>&1
                        ctr_cmd -n "${ns_id%% *}" task rm -f "${ns_id#* }" >/dev/null 2>&1
                        ctr_cmd -n "${ns_id%% *}" containers rm "${ns_id#* }" >/dev/null 2>&1
                done
        fi
        [ -n "${DOCKER_PID:-}" ] && docker_cmd rm -f "$ID-dk" >/dev/null 2>&1
        engine_stop_all
        CONTAINERD_PID=
        DOCKER_PID=
        tsync_test_end
}

# bundle DIR ARG...: a bundle at DIR running ARGS, no ambient capabilities.
bundle() {
        local dir=$1
        shift
        make_rootfs "$dir/rootfs" && make_bundle "$dir" "$@" &&
                tsync_json_edit "$dir/config.json" '.process.capabilities.ambient = []'
}

# start_in ROOT ID BUNDLE: runc --root ROOT run -d; removed at the test's end.
start_in() {
        _tsync_start "runc:$1" "$2" "$3" runc --root "$1"
}

# all ARGS...: status --all; stdout in $T/out, stderr in $T/err, status in $rc.
all() {
        timeout 120 "$OCI" status --all "$@" >"$T/out" 2>"$T/err"
        rc=$?
}

# json_all ARGS...: status --all --json, the array validated against the schema.
json_all() {
        all --json "$@"
        python3 "$TSYNC_TOP/tests/tools/validate_json.py" "$SCHEMA" "$T/out" >"$T/valid" 2>&1 ||
                fail "the JSON does not follow the schema: $(cat "$T/valid")"
}

# of ID FIELDS: FIELDS (a jq string) of the container ID in the array in $T/out.
of() {
        jq -r --arg id "$1" ".[] | select(.id == \$id) | $2" "$T/out"
}

testEachContainerIsSaidWithItsEngineOurInitAndItsVerdict() {
        bundle "$T/a" sleep 300 || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$T/a" || fail "inject"
        start_in "$R" "$ID-ours" "$T/a" || fail "start ours"
        bundle "$T/p" sleep 300 || fail "bundle"
        start_in "$R" "$ID-plain" "$T/p" || fail "start plain"
        mkdir -p "$T/crun"
        _tsync_start "crun:$T/crun" "$ID-crun" "$T/p" crun_cmd --root "$T/crun" || fail "start crun"
        json_all --only-roots --root "$R" --root "$T/crun"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "3 containers" 3 "$(jq length "$T/out")"
        assertEquals "runc runc true protected running $R" \
                "$(of "$ID-ours" '"\(.engine) \(.runtime) \(.init_ours) \(.verdict) \(.state) \(.root)"')"
        assertEquals "$(runc --root "$R" state "$ID-ours" | jq .pid)" "$(of "$ID-ours" .pid)"
        assertEquals "$T/a/config.json" "$(of "$ID-ours" .config)"
        assertEquals "the container's own status document" "node protected" \
                "$(of "$ID-ours" '"\(.status.target.kind) \(.status.verdict)"')"
        assertEquals "runc false not-asked" "$(of "$ID-plain" '"\(.engine) \(.init_ours) \(.verdict)"')"
        assertEquals "crun crun false not-asked" \
                "$(of "$ID-crun" '"\(.engine) \(.runtime) \(.init_ours) \(.verdict)"')"
        all --only-roots --root "$R" --root "$T/crun"
        assertEquals 0 "$rc"
        assertTrue "ours: $(cat "$T/out")" "grep -qE '^runc +running +[0-9]+  ours  protected +$ID-ours$' '$T/out'"
        assertTrue "plain: $(cat "$T/out")" "grep -qE '^runc +running +[0-9]+  -     not-asked +$ID-plain$' '$T/out'"
        assertTrue "crun: $(cat "$T/out")" "grep -qE '^crun +running +[0-9]+  -     not-asked +$ID-crun$' '$T/out'"
        assertContains "$(cat "$T/out")" "3 containers: 1 protected, 2 not asking for us, 0 short"
}

# Kubernetes is containerd's namespace k8s.io, its names the CRI's annotations; ctr's default
# namespace is containerd's. This containerd keeps its runc root in a /run of its own: reached
# through /proc/PID/root, as a host's status reaches an engine in a mount namespace of its own.
testContainerdsNamespacesSayKubernetesAndContainerd() {
        mkdir -p "$T/ctrd" && containerd_config "$T/ctrd" && make_rootfs "$T/rootfs" || fail "setup"
        containerd_start "$T/ctrd" || fail "containerd"
        CTR_IDS=("default $ID-ctr" "k8s.io $ID-k8s")
        ctr_cmd run -d --cgroup "" --rootfs "$T/rootfs" "$ID-ctr" /bin/sleep 300 >"$T/ctr.out" 2>&1 ||
                fail "ctr run: $(cat "$T/ctr.out")"
        ctr_cmd -n k8s.io run -d --cgroup "" --annotation io.kubernetes.cri.container-name=app \
                --annotation io.kubernetes.cri.sandbox-name="$ID-pod" \
                --annotation io.kubernetes.cri.sandbox-namespace=team --rootfs "$T/rootfs" "$ID-k8s" \
                /bin/sleep 300 >"$T/ctr.out" 2>&1 || fail "ctr run k8s.io: $(cat "$T/ctr.out")"
        engine_wait 10 sh -c "[ \$(ls '/proc/$CONTAINERD_PID/root/run/containerd/runc/k8s.io' | wc -l) -ge 1 ]"
        json_all --only-roots --containerd-root "/proc/$CONTAINERD_PID/root/run/containerd/runc"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "containerd default null not-asked running" \
                "$(of "$ID-ctr" '"\(.engine) \(.namespace) \(.name) \(.verdict) \(.state)"')"
        assertEquals "kubernetes k8s.io app $ID-pod team not-asked" \
                "$(of "$ID-k8s" '"\(.engine) \(.namespace) \(.name) \(.pod) \(.pod_namespace) \(.verdict)"')"
        all --only-roots --containerd-root "/proc/$CONTAINERD_PID/root/run/containerd/runc"
        assertTrue "k8s: $(cat "$T/out")" "grep -qE '^kubernetes .* not-asked +team/$ID-pod/app \\(tsync-all-' '$T/out'"
        assertTrue "ctr: $(cat "$T/out")" "grep -qE '^containerd .* not-asked +$ID-ctr$' '$T/out'"
}

# Docker 20.10 keeps its runc root in its exec root (runtime-runc/moby); the name comes from its
# data root, which the bundle's work directory links into.
testADockerContainerIsDockersAndNamedAsDockerNamesIt() {
        mkdir -p "$T/d" && make_rootfs "$T/d/rootfs" >/dev/null || fail "rootfs"
        docker_start "$T/d" || fail "dockerd did not start"
        engine_image_tar "$T/d/rootfs" | docker_cmd import - "tsync-all-$$" >/dev/null || fail "docker import"
        docker_cmd run -d --network none --name "$ID-dk" "tsync-all-$$" sleep 300 >"$T/docker.out" 2>&1 ||
                fail "docker run: $(cat "$T/docker.out")"
        local id
        id=$(docker_cmd inspect -f '{{.Id}}' "$ID-dk")
        json_all --only-roots --containerd-root "$T/d/exec/runtime-runc"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "docker moby $ID-dk not-asked" "$(of "$id" '"\(.engine) \(.namespace) \(.name) \(.verdict)"')"
        assertEquals "$(docker_cmd inspect -f '{{.State.Pid}}' "$ID-dk")" "$(of "$id" .pid)"
}

# Rootful Podman keeps its containers in the runtime's default root (/run/runc here): found there
# among the host's other containers, named as Podman names it.
testAPodmanContainerIsPodmansAndNamedAsPodmanNamesIt() {
        command -v podman >/dev/null || {
                startSkipping
                return
        }
        bundle "$T/b" sleep 300 || fail "bundle"
        podman run -d --name "$ID-pm" --runtime runc --label tsync-test=$$ --ulimit nofile=1024:1024 \
                --ulimit nproc=1024:1024 --network none --rootfs "$T/b/rootfs" /bin/sleep 300 >"$T/pm.out" 2>&1 ||
                fail "podman run: $(cat "$T/pm.out")"
        local id
        id=$(podman inspect -f '{{.Id}}' "$ID-pm")
        json_all --no-programs
        podman rm -f -t 0 "$ID-pm" >/dev/null 2>&1
        assertEquals "podman $ID-pm /run/runc runc not-asked" \
                "$(of "$id" '"\(.engine) \(.name) \(.root) \(.runtime) \(.verdict)"')"
}

# A container the runtime wrapper created in a root of its own is found through the wrapper's
# record of that root; a container in the node's runc root is found there.
testTheWrappersRecordAndTheNodesRootAreRead() {
        bundle "$T/b" sleep 300 || fail "bundle"
        : >"$T/runtime.conf"
        _tsync_start "runc:$T/wr" "$ID-wr" "$T/b" "$RUNTIME" --runtime-config="$T/runtime.conf" \
                --profile-dir="$PROFILES" --cache-dir="$T/cache" --layers=deny-mkdir --root "$T/wr" ||
                fail "start through the wrapper"
        [ -f "/run/oci-seccomp-tsync/runtime/$(fnv1a "$T/wr")/$ID-wr" ] || fail "no record of the wrapper's"
        bundle "$T/p" sleep 300 || fail "bundle"
        start_runc "$ID-node" "$T/p" || fail "start in /run/runc"
        json_all --no-programs
        assertEquals "runc $T/wr true unverified" "$(of "$ID-wr" '"\(.engine) \(.root) \(.init_ours) \(.verdict)"')"
        assertEquals "runc /run/runc false not-asked" \
                "$(of "$ID-node" '"\(.engine) \(.root) \(.init_ours) \(.verdict)"')"
}

testCreatedAndPausedContainersAreSaidSo() {
        bundle "$T/p" sleep 300 || fail "bundle"
        start_in "$R" "$ID-paused" "$T/p" || fail "start"
        runc --root "$R" pause "$ID-paused" || fail "pause"
        _tsync_register "runc:$R" "$ID-created"
        runc --root "$R" create --bundle "$T/p" "$ID-created" </dev/null >"$T/create.out" 2>&1 ||
                fail "create: $(cat "$T/create.out")"
        json_all --only-roots --root "$R" --no-programs
        assertEquals "paused" "$(of "$ID-paused" .state)"
        assertEquals "created" "$(of "$ID-created" .state)"
        runc --root "$R" resume "$ID-paused"
        json_all --only-roots --root "$R" --no-programs
        assertEquals "running" "$(of "$ID-paused" .state)"
}

# Entries that are not believed are said, one warning each, and never stop the others.
testStaleAndHostileEntriesAreSaidAndNotBelieved() {
        bundle "$T/p" sleep 300 || fail "bundle"
        start_in "$R" "$ID-plain" "$T/p" || fail "start"
        local state=$R/$ID-plain/state.json dead
        # The pid of a process that ended (no job of this shell's: shunit2 waits for its own).
        dead=$(sh -c 'echo $$')
        mkdir -m 0711 "$R/$ID-dead" "$R/$ID-pid1" "$R/$ID-huge" "$R/$ID-garbage" "$R/$ID-fifo"
        jq --argjson p "$dead" '.id += "-dead" | .init_process_pid = $p' "$state" >"$R/$ID-dead/state.json"
        jq '.id += "-pid1" | .init_process_pid = 1' "$state" >"$R/$ID-pid1/state.json"
        ln -s "$ID-plain" "$R/$ID-link"
        head -c 2000000 /dev/zero | tr '\0' ' ' >"$R/$ID-huge/state.json"
        echo '{"init_process_pid": ' >"$R/$ID-garbage/state.json"
        mkfifo "$R/$ID-fifo/state.json"
        # A user's root naming root's container: the user's word, for the user's processes alone.
        mkdir -p "$T/user/runc/$ID-mine" && cp "$state" "$T/user/runc/$ID-mine/state.json" &&
                chown -R 65534 "$T/user" && chmod 0700 "$T/user/runc" || fail "user root"
        json_all --only-roots --root "$R" --root "$T/user/runc"
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertEquals "the real container alone: $(jq -c '[.[].id]' "$T/out")" "[\"$ID-plain\"]" \
                "$(jq -c '[.[].id]' "$T/out")"
        assertEquals "not-asked" "$(of "$ID-plain" .verdict)"
        local err
        err=$(cat "$T/err")
        assertNotContains "a dead pid is a stopped container: $err" "$err" "$ID-dead"
        assertContains "$err" "$R/$ID-pid1: pid 1 started at "
        assertContains "$err" "as recorded (stale, or forged): skipped"
        assertContains "$err" "$R/$ID-link: a symbolic link: not followed"
        assertContains "$err" "$R/$ID-huge: state.json: 2000000 bytes is more than the limit"
        assertContains "$err" "$R/$ID-garbage: state.json: "
        assertContains "$err" "$R/$ID-fifo: state.json: not a regular file"
        assertContains "$err" "$T/user/runc/$ID-mine: pid $(of "$ID-plain" .pid) is not a process of uid 65534"
        assertEquals "one warning each: $err" 6 "$(grep -c 'status --all: warning: ' "$T/err")"
}

testTheExitStatusIsOneWhenAnyContainerCarriesLessThanItAsked() {
        bundle "$T/p" sleep 300 || fail "bundle"
        start_in "$R" "$ID-plain" "$T/p" || fail "start plain"
        bundle "$T/n" sleep 300 || fail "bundle"
        tsync_json_edit "$T/n/config.json" '.annotations["io.oci-seccomp-tsync.layers"] = "deny-mkdir"'
        start_in "$R" "$ID-nohooks" "$T/n" || fail "start annotated"
        all --only-roots --root "$R"
        assertEquals "$(cat "$T/out")" 1 "$rc"
        assertTrue "$(cat "$T/out")" "grep -qE '^runc .* unprotected +$ID-nohooks$' '$T/out'"
        assertContains "$(cat "$T/err")" "oci-seccomp-tsync: $ID-nohooks: UNPROTECTED: "
        assertContains "$(cat "$T/out")" "2 containers: 0 protected, 1 not asking for us, 1 short or unprotected"
        json_all --only-roots --root "$R"
        assertEquals 1 "$rc"
        assertEquals "unprotected 1" "$(of "$ID-nohooks" '"\(.verdict) \(.status.exit)"')"
        _tsync_stop "runc:$R" "$ID-nohooks"
        all --only-roots --root "$R"
        assertEquals "without it: $(cat "$T/out")" 0 "$rc"
        # Counts alone are not a verdict: unverified is a failure too.
        bundle "$T/a" sleep 300 || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$T/a" || fail "inject"
        start_in "$R" "$ID-ours" "$T/a" || fail "start ours"
        all --only-roots --root "$R" --no-programs
        assertEquals "unverified: $(cat "$T/out")" 1 "$rc"
}

# issue 37: the node's layers (node.conf) judged on every container: carried where PID 1 holds
# them (here by inject), MISSING where it does not (exit 1), left out with its line's reason; a
# policy that cannot be read is exit 4 in one line, never "no policy".
testTheNodesLayersAreJudgedOnEveryContainer() {
        bundle "$T/a" sleep 300 || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$T/a" || fail "inject"
        start_in "$R" "$ID-ours" "$T/a" || fail "start ours"
        bundle "$T/p" sleep 300 || fail "bundle"
        start_in "$R" "$ID-plain" "$T/p" || fail "start plain"
        start_in "$R" "$ID-out" "$T/p" || fail "start left out"
        printf '%s\n' "layers = deny-mkdir" "exclude = $ID-out: reviewed (ticket #9)" >"$T/node.conf" &&
                chmod 0644 "$T/node.conf"
        json_all --only-roots --root "$R" --node-conf "$T/node.conf" --profile-dir "$PROFILES"
        assertEquals "$(cat "$T/err")" 1 "$rc"
        assertEquals "ours carries it" "1 1 true null" \
                "$(of "$ID-ours" '"\(.node.layers | length) \(.node.held) \(.node.read) \(.node.left_out)"')"
        assertEquals "plain lacks it" "0 null" "$(of "$ID-plain" '"\(.node.held) \(.node.left_out)"')"
        assertEquals "left out, with its line and reason" "2 reviewed (ticket #9)" \
                "$(of "$ID-out" '"\(.node.left_out.line) \(.node.left_out.reason)"')"
        all --only-roots --root "$R" --node-conf "$T/node.conf" --profile-dir "$PROFILES"
        assertEquals 1 "$rc"
        assertEquals "$(cat "$T/out")" "    the node's layers: carried (1)" \
                "$(grep -A1 " $ID-ours\$" "$T/out" | sed -n 2p)"
        assertEquals "$(cat "$T/out")" \
                "    the node's layers: MISSING: it holds 0 of the 1 ($T/node.conf): oci-seccomp-tsync lockdown adds them" \
                "$(grep -A1 " $ID-plain\$" "$T/out" | sed -n 2p)"
        assertEquals "$(cat "$T/out")" "    the node's layers: left out by $T/node.conf, line 2: reviewed (ticket #9)" \
                "$(grep -A1 " $ID-out\$" "$T/out" | sed -n 2p)"
        _tsync_stop "runc:$R" "$ID-plain"
        all --only-roots --root "$R" --node-conf "$T/node.conf" --profile-dir "$PROFILES"
        assertEquals "every container carries them or is left out: $(cat "$T/out")" 0 "$rc"
        printf '%s\n' "layers = deny-mkdir" "exclude = $ID-out" >"$T/node.conf"
        all --only-roots --root "$R" --node-conf "$T/node.conf" --profile-dir "$PROFILES"
        assertEquals "a bad policy" 4 "$rc"
        assertEquals "oci-seccomp-tsync: node policy: $T/node.conf: line 2: exclude needs a reason: exclude = NAME: WHY" \
                "$(cat "$T/err")"
        assertEquals "nothing judged" "" "$(cat "$T/out")"
}

# A process holding an io_uring ring: its requests are not system calls, so no layer reaches them;
# the line says which process and that a restart covers it (issue 37).
testAProcessHoldingAnIoUringRingIsFlagged() {
        local hostile=$TSYNC_BUILD/tests/static/lockdown_hostile
        tsync_need_built "$hostile"
        make_rootfs "$T/u/rootfs" "$hostile" && make_bundle "$T/u" /bin/lockdown_hostile uring &&
                tsync_json_edit "$T/u/config.json" '.process.capabilities.ambient = [] | del(.linux.seccomp)' ||
                fail "bundle"
        start_in "$R" "$ID-uring" "$T/u" || fail "start"
        engine_wait 10 grep -q "hostile uring ready" "$TSYNC_TMP/$ID-uring.log"
        local pid
        pid=$(runc --root "$R" state "$ID-uring" | jq .pid)
        all --only-roots --root "$R"
        assertContains "$(cat "$T/out")" "io_uring: pid $pid (lockdown_hostil) holds a ring (fd "
        assertContains "$(cat "$T/out")" "restart the container to cover it fully"
        # It asks nothing of us and no policy names layers: flagged, not a shortfall.
        assertEquals "$(cat "$T/err")" 0 "$rc"
        json_all --only-roots --root "$R"
        assertEquals "--json: the task's ring" "true" \
                "$(of "$ID-uring" "[.status.tasks[] | select(.pid == $pid) | .io_uring_fd >= 0] | any")"
}

testBadCommandLinesAreRefused() {
        all "$ID"
        assertEquals "a TARGET beside --all" 2 "$rc"
        all --pid 1
        assertEquals "--pid beside --all" 2 "$rc"
        all --only-roots
        assertEquals "--only-roots without a root" 2 "$rc"
        timeout 20 "$OCI" status --containerd-root "$T" "$ID" >"$T/out" 2>"$T/err"
        assertEquals "--containerd-root without --all" 2 $?
        assertContains "$(cat "$T/err")" "go with --all"
        timeout 20 "$OCI" status --help >"$T/out"
        assertContains "$(cat "$T/out")" "--containerd-root DIR"
}

. shunit2
