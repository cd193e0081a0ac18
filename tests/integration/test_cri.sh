#!/bin/bash
# Kubernetes' path, driven as a kubelet drives it: CRI calls (gRPC, tests/tools/cri/cri.py) to
# containerd 1.6's CRI plugin, whose runtime handler is our wrapper (BinaryName), in front of
# runc. containerd runs with packaging/examples/containerd-cri.toml as shipped (the wrapper's
# path filled in); the first pod is packaging/examples/pod.yaml with its RuntimeClass (its image
# the local busybox). Images are built here (busybox-static, catatonit as the pause) and
# imported: nothing is pulled. Host network for every pod, so no CNI is needed.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"
. "$HERE/enginelib.sh"
# Debian's python3, with python3-grpcio and python3-grpc-tools (tools/install-deps.sh).
CRI_PYTHON=${CRI_PYTHON:-/usr/bin/python3}
CRI_TOOL="$TSYNC_TOP/tests/tools/cri/cri.py"
CATATONIT=${CATATONIT:-/usr/bin/catatonit}
BUSYBOX_IMAGE=tsync.test/busybox:cri
PAUSE_IMAGE=tsync.test/pause:cri
NS=k8s.io
# Seccomp_filters of a process under containerd's RuntimeDefault alone.
BASELINE=1

oneTimeSetUp() {
        tsync_need_built "$RUNTIME" "$INIT" "$OCI" "$THREADS"
        "$CRI_PYTHON" -c 'import grpc, grpc_tools' 2>/dev/null || {
                echo "$(basename "$0"): $CRI_PYTHON lacks grpc: apt-get install python3-grpcio python3-grpc-tools" >&2
                exit 1
        }
        [ -x "$CATATONIT" ] || {
                echo "$(basename "$0"): $CATATONIT (the pause program): apt-get install catatonit" >&2
                exit 1
        }
        SUITE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tsync-cri.XXXXXX")
        CGROUP_PARENT="/tsync-cri-$$"
        "$CRI_PYTHON" "$CRI_TOOL" gen "$SUITE_DIR/stubs" || return 1
        # A node for Kubernetes: the pod may layer, never replace the baseline (README).
        # Recordings only into the node's one directory for them (README).
        mkdir -m 0700 "$SUITE_DIR/recorded"
        printf 'mode = layer\nrecord-dir = %s\n' "$SUITE_DIR/recorded" >"$SUITE_DIR/runtime.conf"
        # BinaryName takes no arguments: the test's settings come from a wrapper (a node uses runtime.conf).
        cat >"$SUITE_DIR/runtime" <<EOF
#!/bin/sh
exec "$RUNTIME" --runtime-config="$SUITE_DIR/runtime.conf" --profile-dir="$TSYNC_TOP/configs/profiles" \
        --profile-dir="$PROFILES" --cache-dir="$SUITE_DIR/cache" "\$@"
EOF
        chmod 0755 "$SUITE_DIR/runtime"
        mkdir -p "$SUITE_DIR/cni/bin" "$SUITE_DIR/cni/conf"
        containerd_config "$SUITE_DIR"
        cat >>"$SUITE_DIR/config.toml" <<EOF
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # The pause's oom_score_adj -998 is below what this host lets root set: no lower than ours.
  restrict_oom_score_adj = true
# Empty: host-network pods need no CNI (the plugin logs that it found no network config and
# runs them); the host's /etc/cni is not read.
[plugins."io.containerd.grpc.v1.cri".cni]
  bin_dir = "$SUITE_DIR/cni/bin"
  conf_dir = "$SUITE_DIR/cni/conf"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
EOF
        # As a node adds it, with the wrapper's path filled in.
        sed "s|^\( *BinaryName = \).*|\1\"$SUITE_DIR/runtime\"|" "$EXAMPLES/containerd-cri.toml" >>"$SUITE_DIR/config.toml"
        make_rootfs "$SUITE_DIR/busybox" "$THREADS" >/dev/null || return 1
        # The node-policy DaemonSet's watch runs the node's program through chroot (examples).
        ln -sf busybox "$SUITE_DIR/busybox/bin/chroot" || return 1
        mkdir -p "$SUITE_DIR/pause"
        cp "$CATATONIT" "$SUITE_DIR/pause/pause"
        "$CRI_PYTHON" "$CRI_TOOL" image "$SUITE_DIR/busybox" "$BUSYBOX_IMAGE" "$SUITE_DIR/busybox.tar" \
                --cmd '["sh"]' || return 1
        "$CRI_PYTHON" "$CRI_TOOL" image "$SUITE_DIR/pause" "$PAUSE_IMAGE" "$SUITE_DIR/pause.tar" \
                --entrypoint '["/pause", "-P"]' --env '[]' || return 1
        containerd_start "$SUITE_DIR" || return 1
        ctr_cmd -n "$NS" images import "$SUITE_DIR/busybox.tar" >/dev/null &&
                ctr_cmd -n "$NS" images import "$SUITE_DIR/pause.tar" >/dev/null || {
                tsync_log "image import failed"
                return 1
        }
        HANDLER=$(example_handler) || return 1
}

oneTimeTearDown() {
        local id d
        for id in $(ctr_cmd -n "$NS" task ls -q 2>/dev/null); do
                ctr_cmd -n "$NS" task kill -s KILL "$id" >/dev/null 2>&1
                ctr_cmd -n "$NS" task rm -f "$id" >/dev/null 2>&1
        done
        engine_stop_all
        for d in /sys/fs/cgroup/*$CGROUP_PARENT /sys/fs/cgroup$CGROUP_PARENT; do
                [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
        done
        rm -rf "$SUITE_DIR"
}

setUp() {
        tsync_test_begin
        PODS=()
}

tearDown() {
        local pod
        for pod in "${PODS[@]}"; do
                echo "{\"podSandboxId\": \"$pod\"}" | cri StopPodSandbox >/dev/null 2>&1
                echo "{\"podSandboxId\": \"$pod\"}" | cri RemovePodSandbox >/dev/null 2>&1
        done
        tsync_test_end
}

# json_array ARGS...: the arguments as a JSON array (jq's --args would read "-c" as its own).
json_array() {
        local a
        for a in "$@"; do
                jq -n --arg a "$a" '$a'
        done | jq -cs .
}

# cri METHOD: the request (JSON) on stdin, the response on stdout.
cri() {
        "$CRI_PYTHON" "$CRI_TOOL" --stubs "$SUITE_DIR/stubs" "$SUITE_DIR/c.sock" "$1"
}

# The handler the RuntimeClass example names (the containerd example's runtime table).
example_handler() {
        "$CRI_PYTHON" -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["handler"])' \
                "$EXAMPLES/runtimeclass.yaml"
}

# sandbox_config NAME ANNOTATIONS_JSON: a PodSandboxConfig as a kubelet sends it for a pod
# with hostNetwork, its own PID namespace per container, RuntimeDefault seccomp.
sandbox_config() {
        mkdir -p "$TSYNC_TMP/logs/$1"
        jq -cn --arg name "$1" --argjson a "$2" --arg uid "$(cat /proc/sys/kernel/random/uuid)" \
                --arg logs "$TSYNC_TMP/logs/$1" --arg cg "$CGROUP_PARENT" \
                '{metadata: {name: $name, uid: $uid, namespace: "tsync-test"},
                  logDirectory: $logs, annotations: $a,
                  linux: {cgroupParent: $cg, securityContext: {namespaceOptions: {network: "NODE", pid: "CONTAINER"},
                                                               seccomp: {profileType: "RuntimeDefault"}}}}'
}

# run_pod NAME ANNOTATIONS_JSON: RunPodSandbox with the example's handler; the id in $POD,
# the config in $POD_CONFIG; the error in $TSYNC_TMP/err. Status 1 when refused.
run_pod() {
        POD_NAME=$1
        POD_CONFIG=$(sandbox_config "$1" "$2")
        local out
        out=$(jq -cn --argjson c "$POD_CONFIG" --arg h "$HANDLER" '{config: $c, runtimeHandler: $h}' |
                cri RunPodSandbox 2>"$TSYNC_TMP/err") || return 1
        POD=$(jq -r .podSandboxId <<<"$out")
        PODS+=("$POD")
}

# create NAME SECCOMP_JSON ANNOTATIONS_JSON CMD...: CreateContainer in $POD; the id in $CID,
# the error in $TSYNC_TMP/err. Status 1 when refused.
create() {
        local name=$1 seccomp=$2 annotations=$3 out
        shift 3
        out=$(jq -cn --arg pod "$POD" --argjson sc "$POD_CONFIG" --arg name "$name" --arg image "$BUSYBOX_IMAGE" \
                --argjson seccomp "$seccomp" --argjson a "$annotations" --arg log "$name.log" --argjson cmd "$(json_array "$@")" \
                '{podSandboxId: $pod, sandboxConfig: $sc,
                  config: {metadata: {name: $name}, image: {image: $image}, command: $cmd,
                           annotations: $a, logPath: $log,
                           linux: {securityContext: {namespaceOptions: {network: "NODE", pid: "CONTAINER"},
                                                     seccomp: $seccomp}}}}' |
                cri CreateContainer 2>"$TSYNC_TMP/err") || return 1
        CID=$(jq -r .containerId <<<"$out")
}

# start ID: StartContainer, where containerd creates the task (the runtime's create); the
# error in $TSYNC_TMP/err.
start() {
        echo "{\"containerId\": \"$1\"}" | cri StartContainer >/dev/null 2>"$TSYNC_TMP/err"
}

# logs NAME: what container NAME of the last pod wrote (its CRI log).
logs() {
        cat "$TSYNC_TMP/logs/$POD_NAME/$1.log" 2>/dev/null
}

# exec_sync ID CMD...: ExecSync's stdout; its exit code in $EXEC_RC (not through $(...)).
exec_sync() {
        local id=$1 out
        shift
        out=$(jq -cn --arg id "$id" --argjson cmd "$(json_array "$@")" '{containerId: $id, cmd: $cmd, timeout: 30}' |
                cri ExecSync) || return 1
        EXEC_RC=$(jq -r '.exitCode // 0' <<<"$out")
        jq -r '.stdout // ""' <<<"$out" | base64 -d
}

# state ID: CONTAINER_RUNNING, CONTAINER_EXITED, ... from ContainerStatus.
state() {
        echo "{\"containerId\": \"$1\"}" | cri ContainerStatus | jq -r '.status.state // "CONTAINER_CREATED"'
}

# exited ID: whether ContainerStatus says EXITED (for engine_wait: a bounded wait, not a measurement).
exited() {
        [ "$(state "$1")" = CONTAINER_EXITED ]
}

# threads_filters ID: "TGID FILTERS" for every thread in the container, the ExecSync'd process
# that looks included (through the runtime it carries what the container's init applied).
threads_filters() {
        exec_sync "$1" sh -c 'exec grep -E "^(Tgid|Seccomp_filters):" /proc/[0-9]*/task/*/status' |
                awk '{ split($0, f, ":"); v = $NF; gsub(/[ \t]/, "", v) }
                     f[2] == "Tgid" { tgid[f[1]] = v } f[2] == "Seccomp_filters" { n[f[1]] = v }
                     END { for (t in tgid) print tgid[t], n[t] }' | sort -n
}

RUNTIME_DEFAULT='{"profileType": "RuntimeDefault"}'

testThePodOfTheExamplesRunsUnderOurInitWithItsLayersOnEveryThread() {
        local pod annotations seccomp name command
        pod=$("$CRI_PYTHON" -c 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))' \
                "$EXAMPLES/pod.yaml") || fail "pod.yaml"
        assertEquals "the pod's RuntimeClass" "$(jq -r .spec.runtimeClassName <<<"$pod")" \
                "$("$CRI_PYTHON" -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["metadata"]["name"])' \
                        "$EXAMPLES/runtimeclass.yaml")"
        annotations=$(jq -c .metadata.annotations <<<"$pod")
        seccomp=$(jq -c '{profileType: .spec.securityContext.seccompProfile.type}' <<<"$pod")
        name=$(jq -r '.spec.containers[0].name' <<<"$pod")
        mapfile -t command < <(jq -r '.spec.containers[0].command[]' <<<"$pod")
        local n_layers
        n_layers=$(jq -r '.["io.oci-seccomp-tsync.layers"] | split(",") | length' <<<"$annotations")

        run_pod "$(jq -r .metadata.name <<<"$pod")" "$annotations" || fail "RunPodSandbox: $(cat "$TSYNC_TMP/err")"
        create "$name" "$seccomp" '{}' "${command[@]}" || fail "CreateContainer: $(cat "$TSYNC_TMP/err")"
        start "$CID" || fail "StartContainer: $(cat "$TSYNC_TMP/err")"
        assertEquals "ContainerStatus" CONTAINER_RUNNING "$(state "$CID")"
        assertEquals "PID 1" "/.oci-seccomp-tsync/init" "$(exec_sync "$CID" cat /proc/1/cmdline | tr '\0' '\n' | head -n 1)"
        threads_filters "$CID" >"$TSYNC_TMP/threads"
        assertTrue "PID 1's threads listed: $(cat "$TSYNC_TMP/threads")" "grep -q '^1 ' $TSYNC_TMP/threads"
        assertTrue "more than the init: $(cat "$TSYNC_TMP/threads")" "[ $(wc -l <"$TSYNC_TMP/threads") -gt 1 ]"
        assertEquals "threads without RuntimeDefault + the pod's $n_layers layers" "" \
                "$(awk -v want=$((BASELINE + n_layers)) '$2 != want' "$TSYNC_TMP/threads")"
        assertContains "what the example's workload printed" "$(logs "$name")" "Seccomp_filters:	$((BASELINE + n_layers))"
        # What the README shows for a pod: status, from the node, with the container's config.
        local pid bundle="$SUITE_DIR/state/io.containerd.runtime.v2.task/$NS/$CID"
        pid=$(ctr_cmd -n "$NS" task ls | awk -v id="$CID" '$1 == id { print $2 }')
        "$TSYNC_BUILD/bin/oci-seccomp-tsync" status --pid "$pid" --config "$bundle/config.json" \
                --profile-dir "$TSYNC_TOP/configs/profiles" >"$TSYNC_TMP/status" 2>&1
        last_rc=$?
        assertEquals "status of the pod's container: $(cat "$TSYNC_TMP/status")" 0 "$last_rc"
        assertContains "status: $(cat "$TSYNC_TMP/status")" "$(cat "$TSYNC_TMP/status")" \
                "$n_layers of ours on every thread"
        assertContains "status: $(cat "$TSYNC_TMP/status")" "$(cat "$TSYNC_TMP/status")" \
                "they are what the plan compiles to now"
        echo "{\"containerId\": \"$CID\", \"timeout\": 10}" | cri StopContainer >/dev/null || fail "StopContainer"
        assertEquals "after StopContainer" CONTAINER_EXITED "$(state "$CID")"
        echo "{\"podSandboxId\": \"$POD\"}" | cri StopPodSandbox >/dev/null || fail "StopPodSandbox"
        echo "{\"podSandboxId\": \"$POD\"}" | cri RemovePodSandbox >/dev/null || fail "RemovePodSandbox"
        assertFalse "the pod's tasks are gone" "ctr_cmd -n $NS task ls -q | grep -qx -e $POD -e $CID"
}

# Through the runtime an exec'd process runs under our init too (hook/runtime/exec.c): runc
# alone would give it the config's baseline without the layers.
testExecSyncCarriesTheLayers() {
        run_pod exec '{"io.oci-seccomp-tsync.layers": "deny-mkdir"}' || fail "RunPodSandbox: $(cat "$TSYNC_TMP/err")"
        create app "$RUNTIME_DEFAULT" '{}' sleep 3600 || fail "CreateContainer: $(cat "$TSYNC_TMP/err")"
        start "$CID" || fail "StartContainer: $(cat "$TSYNC_TMP/err")"
        assertEquals "the workload" "Seccomp_filters:$((BASELINE + 1))" \
                "$(exec_sync "$CID" grep Seccomp_filters /proc/1/status | tr -d '\t')"
        assertEquals "the ExecSync'd process" "Seccomp_filters:$((BASELINE + 1))" \
                "$(exec_sync "$CID" grep Seccomp_filters /proc/self/status | tr -d '\t')"
        exec_sync "$CID" mkdir /tmp/x >/dev/null || fail "ExecSync"
        assertNotEquals "mkdir in an ExecSync'd process: its status" 0 "$EXEC_RC"
}

testALocalhostProfileIsTheBaselineAndTheContainersAnnotationTheLayer() {
        # The baseline denies mkdir: runc itself loads it, then calls getcwd, which the layer denies.
        local profile="$TSYNC_TMP/localhost.json"
        jq '.syscalls[0].errnoRet = 121' "$PROFILES/deny-mkdir.json" >"$profile"
        run_pod localhost '{}' || fail "RunPodSandbox: $(cat "$TSYNC_TMP/err")"
        # The kubelet sends the profile's absolute path on the node.
        create app "$(jq -cn --arg p "$profile" '{profileType: "Localhost", localhostRef: $p}')" \
                '{"io.oci-seccomp-tsync.layers": "deny-getcwd"}' \
                sh -c 'threads_probe -n 3 getcwd >/tmp/getcwd; threads_probe -n 3 mkdir /tmp/t >/tmp/mkdir; exec sleep 3600' ||
                fail "CreateContainer: $(cat "$TSYNC_TMP/err")"
        start "$CID" || fail "StartContainer: $(cat "$TSYNC_TMP/err")"
        engine_wait 30 exec_sync_has "$CID" /tmp/mkdir || fail "the probe did not run: $(logs app)"
        exec_sync "$CID" cat /tmp/getcwd /tmp/mkdir >"$TSYNC_TMP/out"
        assertEquals "threads reported" 8 "$(grep -c '^tid=' "$TSYNC_TMP/out")"
        assertEquals "getcwd refused by the layer on every thread" "" \
                "$(grep 'call=getcwd' "$TSYNC_TMP/out" | grep -v 'Seccomp_filters=2 .*rc=-1 errno=123')"
        assertEquals "mkdir refused by the Localhost profile on every thread" "" \
                "$(grep 'call=mkdir' "$TSYNC_TMP/out" | grep -v 'Seccomp_filters=2 .*rc=-1 errno=121')"
        assertEquals "threads without the profile + the layer" "" \
                "$(threads_filters "$CID" | awk '$2 != 2')"
}

# exec_sync_has ID FILE: whether FILE in the container is not empty.
exec_sync_has() {
        exec_sync "$1" grep -q . "$2" >/dev/null && [ "$EXEC_RC" = 0 ]
}

# exit_code_of ANNOTATIONS_JSON CMD...: a pod with those annotations, one container running CMD
# to its end; its status from ContainerStatus in $EXIT_CODE.
exit_code_of() {
        local annotations=$1
        shift
        run_pod "exit-$RANDOM" "$annotations" || fail "RunPodSandbox: $(cat "$TSYNC_TMP/err")"
        create app "$RUNTIME_DEFAULT" '{}' "$@" || fail "CreateContainer: $(cat "$TSYNC_TMP/err")"
        start "$CID" || fail "StartContainer: $(cat "$TSYNC_TMP/err")"
        engine_wait 30 exited "$CID" || fail "the container did not exit: $(state "$CID")"
        EXIT_CODE=$(echo "{\"containerId\": \"$CID\"}" | cri ContainerStatus | jq -r '.status.exitCode // 0')
}

testExecOnceAndModeLayerFromThePodsAnnotations() {
        # The shell is the one program the workload may start: /bin/echo is refused.
        local script='/bin/echo started && exit 0; exit 42'
        exit_code_of '{}' sh -c "$script"
        assertEquals "without exec once: $(logs app)" 0 "$EXIT_CODE"
        assertContains "$(logs app)" "started"
        exit_code_of '{"io.oci-seccomp-tsync.exec": "once", "io.oci-seccomp-tsync.mode": "layer"}' sh -c "$script"
        assertEquals "with exec once: $(logs app)" 42 "$EXIT_CODE"
        assertNotContains "$(logs app)" "started"
        assertContains "$(logs app)" "Operation not permitted"
}

# refused WHAT ANNOTATIONS_JSON WHY: a container of $POD with those annotations is created (a
# record in containerd), then refused at StartContainer, where containerd has the runtime
# create the task: our line, and the workload never ran.
refused() {
        local what=$1 why=$3
        create app "$RUNTIME_DEFAULT" "$2" sh -c 'echo ran; sleep 3600' || fail "$what: CreateContainer: $(cat "$TSYNC_TMP/err")"
        start "$CID"
        assertEquals "$what: StartContainer refused" 1 $?
        assertContains "$what" "$(cat "$TSYNC_TMP/err")" "OCI runtime create failed: oci-seccomp-tsync: $CID: "
        assertContains "$what" "$(cat "$TSYNC_TMP/err")" "$why"
        assertNotEquals "$what: the container's state" CONTAINER_RUNNING "$(state "$CID")"
        assertEquals "$what: the workload's output" "" "$(logs app)"
        assertFalse "$what: a task runs" "ctr_cmd -n $NS task ls -q | grep -qx $CID"
}

testARefusedLayerIsStartContainersErrorWithOurLine() {
        run_pod refused '{}' || fail "RunPodSandbox: $(cat "$TSYNC_TMP/err")"
        refused "a container's bad layer" '{"io.oci-seccomp-tsync.layers": "no-such-layer"}' \
                ": layer 'no-such-layer': no such profile in "
}

# With the wildcard of the example, every annotation of ours reaches the runtime: those a pod
# may not set are refused there, each with its reason.
testAnnotationsAPodMayNotSetAreRefused() {
        local a
        for a in 'io.oci-seccomp-tsync.mode=replace|but this runtime is set to mode' \
                'io.oci-seccomp-tsync.plan={}|io.oci-seccomp-tsync.plan' \
                'io.oci-seccomp-tsync.running=x|io.oci-seccomp-tsync.running' \
                "io.oci-seccomp-tsync.record=of:/etc/p.json|of: '/etc/p.json' is not a file directly in this host's record-dir" \
                'io.oci-seccomp-tsync.layer=deny-mkdir|not an annotation of oci-seccomp-tsync'; do
                local kv=${a%%|*} why=${a#*|}
                run_pod "bad-$RANDOM" "$(jq -cn --arg k "${kv%%=*}" --arg v "${kv#*=}" '{($k): $v}')" ||
                        fail "RunPodSandbox with $kv: $(cat "$TSYNC_TMP/err")"
                refused "$kv" '{}' "$why"
        done
}

# A recording through Kubernetes (issue 27): the pod's annotation records its container's calls;
# the runtime's delete, which containerd's CRI plugin calls when the container exits (or its pod is
# stopped), writes the profile on the node. The pause passes through, recorded by no one.
testAPodAnnotationRecordsAProfileOnTheNode() {
        local out="$SUITE_DIR/recorded/pod-$$.json"
        run_pod rec "$(jq -cn --arg v "of:$out" '{"io.oci-seccomp-tsync.record": $v}')" ||
                fail "RunPodSandbox: $(cat "$TSYNC_TMP/err")"
        create app "$RUNTIME_DEFAULT" '{}' sh -c 'mkdir /tmp/d && echo made' || fail "CreateContainer: $(cat "$TSYNC_TMP/err")"
        start "$CID" || fail "StartContainer: $(cat "$TSYNC_TMP/err")"
        engine_wait 30 exited "$CID" || fail "the container did not exit: $(state "$CID")"
        assertContains "the workload's output" "$(logs app)" " made"
        jq -r '.syscalls[].names[]' "$out" >"$TSYNC_TMP/names" || fail "no profile at $out"
        grep -qx mkdir "$TSYNC_TMP/names" || fail "mkdir is not in the profile: $(paste -sd' ' "$TSYNC_TMP/names")"
        local pid
        pid=$(ctr_cmd -n "$NS" task ls | awk -v id="$POD" '$1 == id { print $2 }')
        assertEquals "the pause is not recorded: PID 1 of its container" "/pause -P " "$(tr '\0' ' ' </proc/"$pid"/cmdline)"
        rm -f "$out"
}

testAContainersRecordingIsWrittenWhenItsPodIsRemoved() {
        local out="$SUITE_DIR/recorded/ctr-$$.json"
        run_pod rec2 '{}' || fail "RunPodSandbox: $(cat "$TSYNC_TMP/err")"
        create app "$RUNTIME_DEFAULT" "$(jq -cn --arg v "of:$out" '{"io.oci-seccomp-tsync.record": $v}')" \
                sh -c 'mkdir /tmp/d && echo made; exec sleep 3600' || fail "CreateContainer: $(cat "$TSYNC_TMP/err")"
        start "$CID" || fail "StartContainer: $(cat "$TSYNC_TMP/err")"
        engine_wait 30 eval 'logs app | grep -q " made$"' || fail "the workload did not run: $(logs app)"
        assertFalse "no profile while it runs" "[ -e $out ]"
        echo "{\"podSandboxId\": \"$POD\"}" | cri StopPodSandbox >/dev/null || fail "StopPodSandbox"
        echo "{\"podSandboxId\": \"$POD\"}" | cri RemovePodSandbox >/dev/null || fail "RemovePodSandbox"
        jq -r '.syscalls[].names[]' "$out" >"$TSYNC_TMP/names" || fail "no profile at $out"
        grep -qx mkdir "$TSYNC_TMP/names" || fail "mkdir is not in the profile: $(paste -sd' ' "$TSYNC_TMP/names")"
        grep -qx nanosleep "$TSYNC_TMP/names" || grep -qx clock_nanosleep "$TSYNC_TMP/names" ||
                fail "sleep's call is not in the profile: $(paste -sd' ' "$TSYNC_TMP/names")"
        rm -f "$out"
}

# containerd copies the pod's allowed annotations onto its pause container as well (marked
# io.kubernetes.cri.container-type=sandbox): the wrapper passes it through as containerd made it.
testThePauseContainerIsNeverLayered() {
        run_pod pause '{"io.oci-seccomp-tsync.layers": "deny-mkdir"}' || fail "RunPodSandbox: $(cat "$TSYNC_TMP/err")"
        local bundle="$SUITE_DIR/state/io.containerd.runtime.v2.task/$NS/$POD" pid
        assertEquals "the pause's config carries the pod's annotation" deny-mkdir \
                "$(jq -r '.annotations["io.oci-seccomp-tsync.layers"]' "$bundle/config.json")"
        assertEquals "and containerd's mark" sandbox \
                "$(jq -r '.annotations["io.kubernetes.cri.container-type"]' "$bundle/config.json")"
        assertEquals "the pause's config, as containerd holds it" \
                "$(ctr_cmd -n "$NS" containers info --spec "$POD" | jq -S .)" "$(jq -S . "$bundle/config.json")"
        pid=$(ctr_cmd -n "$NS" task ls | awk -v id="$POD" '$1 == id { print $2 }')
        assertEquals "the pause is PID 1 of its container" "/pause -P " "$(tr '\0' ' ' </proc/"$pid"/cmdline)"
        assertEquals "the pause's filters: RuntimeDefault alone" "Seccomp_filters:$BASELINE" \
                "$(grep Seccomp_filters /proc/"$pid"/status | tr -d '\t')"

        # A layer that does not exist: the pod starts, and the container is refused, not the pod.
        run_pod pause-bad '{"io.oci-seccomp-tsync.layers": "no-such-layer"}' ||
                fail "RunPodSandbox of a pod with a bad layer: $(cat "$TSYNC_TMP/err")"
        refused "the pod's bad layer" '{}' ": layer 'no-such-layer': no such profile in "
}

testThePodsOtherContainersAreUntouchedUnlessAsked() {
        local layered plain
        run_pod two '{}' || fail "RunPodSandbox: $(cat "$TSYNC_TMP/err")"
        create layered "$RUNTIME_DEFAULT" '{"io.oci-seccomp-tsync.layers": "deny-mkdir"}' sleep 3600 ||
                fail "CreateContainer: $(cat "$TSYNC_TMP/err")"
        layered=$CID
        create plain "$RUNTIME_DEFAULT" '{}' sleep 3600 || fail "CreateContainer: $(cat "$TSYNC_TMP/err")"
        plain=$CID
        start "$layered" && start "$plain" || fail "StartContainer"
        assertEquals "the layered one's PID 1" "/.oci-seccomp-tsync/init" \
                "$(exec_sync "$layered" cat /proc/1/cmdline | tr '\0' '\n' | head -n 1)"
        assertEquals "the layered one's threads" "" "$(threads_filters "$layered" | awk -v w=$((BASELINE + 1)) '$2 != w')"
        assertEquals "the other's PID 1" "sleep 3600 " "$(exec_sync "$plain" cat /proc/1/cmdline | tr '\0' ' ')"
        assertEquals "the other's threads: RuntimeDefault alone" "" \
                "$(threads_filters "$plain" | awk -v w=$BASELINE '$2 != w')"
        local bundle="$SUITE_DIR/state/io.containerd.runtime.v2.task/$NS/$plain"
        assertEquals "the other's config, as containerd holds it" \
                "$(ctr_cmd -n "$NS" containers info --spec "$plain" | jq -S .)" "$(jq -S . "$bundle/config.json")"
}


# pid_of ID: the host pid of container ID's process (containerd's task list).
pid_of() {
        ctr_cmd -n "$NS" task ls | awk -v id="$1" '$1 == id { print $2 }'
}

# filters_of PID: its Seccomp_filters, read on the host (a container not under our init refuses a
# wrapper's exec once lockdown added layers: its exec'd process could not carry them).
filters_of() {
        awk '/^Seccomp_filters:/ { print $2 }' "/proc/$1/status"
}

# The node's policy across a cluster (packaging/examples/kubernetes-node-policy.yaml): its watch
# container runs as a privileged host-PID pod, through chroot into the node's files, as the
# DaemonSet runs it; it covers the other pods' containers, and a change of node.conf reaches them
# within 10 s. The watch's own container is left out (a freeze of it would stop the watch).
testTheNodePolicyDaemonSetsWatchCoversThePodsAndAPolicyChange() {
        local ds watch_cmd app app_pid
        ds=$("$CRI_PYTHON" -c 'import json, sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d["kind"] == "DaemonSet":
        print(json.dumps(d))' "$TSYNC_TOP/packaging/examples/kubernetes-node-policy.yaml.in") || fail "the example"
        mapfile -t watch_cmd < <(jq -r '.spec.template.spec.containers[] | select(.name == "watch") | .command[]' \
                <<<"$ds" | sed "s|@BINDIR@|$TSYNC_BUILD/bin|")
        assertEquals "the example's watch" "chroot /host $TSYNC_BUILD/bin/oci-seccomp-tsync lockdown --all --watch" \
                "${watch_cmd[*]}"
        assertEquals "host PID" true "$(jq -r .spec.template.spec.hostPID <<<"$ds")"
        mkdir -p "$TSYNC_TMP/etc" && cp "$PROFILES/deny-mkdir.json" "$PROFILES/deny-getcwd.json" "$TSYNC_TMP/etc/" || fail "setup"
        # A kubelet's container keeps NO_NEW_PRIVS unset: the example's policy sets it.
        printf 'layers = deny-mkdir\nno-new-privs = set\n' >"$TSYNC_TMP/etc/node.conf" && chmod 0600 "$TSYNC_TMP/etc/node.conf"

        # The other pod first: it runs before the watch does.
        run_pod app '{}' || fail "RunPodSandbox: $(cat "$TSYNC_TMP/err")"
        create app "$RUNTIME_DEFAULT" '{}' sleep 3600 || fail "CreateContainer: $(cat "$TSYNC_TMP/err")"
        app=$CID
        start "$app" || fail "StartContainer: $(cat "$TSYNC_TMP/err")"
        app_pid=$(pid_of "$app")
        assertEquals "before the watch" "$BASELINE" "$(filters_of "$app_pid")"

        # The watch's pod: privileged, the node's pid namespace, the node's / at /host. This
        # containerd keeps its runc root in a /run of its own, reached through its /proc entry.
        local sc out
        sc=$(sandbox_config node-policy '{}' | jq -c '.linux.securityContext.privileged = true
                | .linux.securityContext.namespaceOptions.pid = "NODE"')
        out=$(jq -cn --argjson c "$sc" --arg h "$HANDLER" '{config: $c, runtimeHandler: $h}' |
                cri RunPodSandbox 2>"$TSYNC_TMP/err") || fail "RunPodSandbox (watch): $(cat "$TSYNC_TMP/err")"
        local wpod wcid
        wpod=$(jq -r .podSandboxId <<<"$out")
        PODS+=("$wpod")
        out=$(jq -cn --arg pod "$wpod" --argjson sc "$sc" --arg image "$BUSYBOX_IMAGE" \
                --argjson cmd "$(json_array "${watch_cmd[@]}" --only-roots \
                        --containerd-root "/proc/$CONTAINERD_PID/root/run/containerd/runc" \
                        --node-conf "$TSYNC_TMP/etc/node.conf" --profile-dir "$TSYNC_TMP/etc" \
                        --cache-dir "$TSYNC_TMP/cache")" \
                '{podSandboxId: $pod, sandboxConfig: $sc,
                  config: {metadata: {name: "watch"}, image: {image: $image}, command: $cmd, logPath: "watch.log",
                           mounts: [{containerPath: "/host", hostPath: "/"}],
                           linux: {securityContext: {privileged: true,
                                                     namespaceOptions: {network: "NODE", pid: "NODE"}}}}}' |
                cri CreateContainer 2>"$TSYNC_TMP/err") || fail "CreateContainer (watch): $(cat "$TSYNC_TMP/err")"
        wcid=$(jq -r .containerId <<<"$out")
        start "$wcid" || fail "StartContainer (watch): $(cat "$TSYNC_TMP/err")"
        local log=$TSYNC_TMP/logs/node-policy/watch.log
        engine_wait 10 sh -c "[ \"\$(awk '/^Seccomp_filters:/ { print \$2 }' /proc/$app_pid/status)\" = $((BASELINE + 1)) ]" ||
                fail "the other pod's container within 10 s: $(cat "$log")"
        assertEquals "the app's container carries the node's layer" "$((BASELINE + 1))" "$(filters_of "$app_pid")"
        assertContains "the watch's own container is left out: $(cat "$log")" "$(cat "$log")" "lockdown --all runs in it"
        assertContains "and its pod's sandbox: $(cat "$log")" "$(cat "$log")" "lockdown --all runs in its pod (tsync-test/node-policy)"
        assertNotContains "nothing else refused: $(cat "$log")" "$(cat "$log")" "): refused: "
        assertEquals "the watch runs" CONTAINER_RUNNING "$(state "$wcid")"

        # The policy changes on the node (what the DaemonSet's policy container writes).
        printf 'layers = deny-mkdir, deny-getcwd\nno-new-privs = set\n' >"$TSYNC_TMP/etc/node.conf.new" &&
                chmod 0600 "$TSYNC_TMP/etc/node.conf.new" && mv "$TSYNC_TMP/etc/node.conf.new" "$TSYNC_TMP/etc/node.conf"
        engine_wait 10 sh -c "[ \"\$(awk '/^Seccomp_filters:/ { print \$2 }' /proc/$app_pid/status)\" = $((BASELINE + 2)) ]" ||
                fail "the policy's change within 10 s: $(cat "$log")"
        assertEquals "the new layer alone was added" "$((BASELINE + 2))" "$(filters_of "$app_pid")"
        echo "{\"containerId\": \"$wcid\", \"timeout\": 10}" | cri StopContainer >/dev/null || fail "StopContainer"
        assertContains "the watch ended on SIGTERM: $(tail -3 "$log")" "$(cat "$log")" "lockdown --watch: stopped (signal 15)"
}

. shunit2
