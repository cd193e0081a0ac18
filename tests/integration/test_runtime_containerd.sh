#!/bin/bash
# containerd 1.6 with its runc shim calling oci-seccomp-tsync-runtime (ctr run --runc-binary,
# as a CRI runtime's BinaryName does), layers from the container's annotation. One
# containerd for the suite, its config holding packaging/examples/containerd-cri.toml (see
# enginelib.sh).
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"
. "$HERE/enginelib.sh"
LAYERS=io.oci-seccomp-tsync.layers

oneTimeSetUp() {
        tsync_need_built "$RUNTIME" "$INIT" "$OCI" "$THREADS"
        SUITE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tsync-containerd.XXXXXX")
        : >"$SUITE_DIR/runtime.conf"
        # BinaryName takes no arguments: the test's settings come from a wrapper (a host uses runtime.conf).
        cat >"$SUITE_DIR/runtime" <<EOF
#!/bin/sh
exec "$RUNTIME" --runtime-config="$SUITE_DIR/runtime.conf" --profile-dir="$PROFILES" --cache-dir="$SUITE_DIR/cache" "\$@"
EOF
        chmod 0755 "$SUITE_DIR/runtime"
        containerd_config "$SUITE_DIR"
        cat >>"$SUITE_DIR/config.toml" <<EOF
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
EOF
        # As a host adds it: the example's tables in the main config.
        cat "$EXAMPLES/containerd-cri.toml" >>"$SUITE_DIR/config.toml"
        make_rootfs "$SUITE_DIR/rootfs" "$THREADS" >/dev/null || return 1
        containerd_start "$SUITE_DIR"
}

oneTimeTearDown() {
        # shellcheck disable=SC2046 # one word an id
        ctr_remove $(ctr_cmd containers ls -q 2>/dev/null)
        engine_stop_all
        rm -rf "$SUITE_DIR"
}

setUp() {
        tsync_test_begin
        ctr_cmd version >/dev/null 2>&1 || fail "containerd is not running"
        ID=$(tsync_unique_id ctr)
}

tearDown() {
        ctr_remove "$ID"
        tsync_test_end
}

# run_ctr RUNC_BINARY [CTR RUN OPTIONS...] -- ARGS...: `ctr run --rm` of the suite's rootfs with
# containerd's default seccomp profile and no cgroup of ctr's; output in $TSYNC_TMP/out, status in $rc.
run_ctr() {
        local bin=$1 OPTS ARGS
        shift
        tsync_split_dashes "$@"
        ctr_cmd run --rm --seccomp --cgroup "" --env PATH=/bin --runc-binary "$bin" "${OPTS[@]}" --rootfs "$SUITE_DIR/rootfs" "$ID" \
                "${ARGS[@]}" </dev/null >"$TSYNC_TMP/out" 2>&1
        rc=$?
}

testTheAnnotationGivesContainerdsProfileAndTheLayerOnEveryThread() {
        local script="$PROBE; tr '\\0' ' ' </proc/1/cmdline; echo; exec /bin/threads_probe -n 4 mkdir /tmp/t"
        run_ctr runc -- sh -c "$script"
        assertEquals "runc alone: $(cat "$TSYNC_TMP/out")" 0 "$rc"
        assertEquals "runc alone: containerd's profile on PID 1" "" "$(init_threads_without "$TSYNC_TMP/out" 1)"

        run_ctr "$SUITE_DIR/runtime" --annotation "$LAYERS=deny-mkdir" -- sh -c "$script"
        out="$TSYNC_TMP/out"
        assertEquals "$(cat "$out")" 0 "$rc"
        assertTrue "no init threads listed" "grep -q '^init ' $out"
        assertEquals "init threads without containerd's profile + the layer" "" "$(init_threads_without "$out" 2)"
        grep -q "^/.oci-seccomp-tsync/init " "$out" || fail "PID 1 is not our init: $(cat "$out")"
        assertEquals "threads reported" 5 "$(grep -c '^tid=' "$out")"
        assertEquals "threads without containerd's profile + the layer denying mkdir" "" \
                "$(grep '^tid=' "$out" | grep -v 'Seccomp_filters=2 .*call=mkdir rc=-1 errno=122' || true)"
}

# A recording through the wrapper (issue 27): containerd's shim calls `runtime delete` once the
# task exited (ctr run --rm), which writes the profile.
testTheRecordAnnotationWritesTheProfileAtTheShimsDelete() {
        echo "record-dir = $TSYNC_TMP" >"$SUITE_DIR/runtime.conf"
        run_ctr "$SUITE_DIR/runtime" --annotation "io.oci-seccomp-tsync.record=of:$TSYNC_TMP/p.json" -- \
                sh -c 'mkdir /tmp/d && echo made'
        : >"$SUITE_DIR/runtime.conf"
        assertEquals "$(cat "$TSYNC_TMP/out")" 0 "$rc"
        assertEquals "the workload's output alone" made "$(cat "$TSYNC_TMP/out")"
        jq -r '.syscalls[].names[]' "$TSYNC_TMP/p.json" >"$TSYNC_TMP/names" || fail "no profile written"
        grep -qx mkdir "$TSYNC_TMP/names" || fail "mkdir is not in the profile: $(paste -sd' ' "$TSYNC_TMP/names")"
}

testWithoutTheAnnotationTheBundleIsContainerdsOwn() {
        ctr_cmd run -d --seccomp --cgroup "" --runc-binary "$SUITE_DIR/runtime" --rootfs "$SUITE_DIR/rootfs" "$ID" \
                /bin/sleep 60 </dev/null >"$TSYNC_TMP/out" 2>&1 || fail "ctr run -d: $(cat "$TSYNC_TMP/out")"
        local bundle="$SUITE_DIR/state/io.containerd.runtime.v2.task/default/$ID"
        assertEquals "the bundle's config.json, against the spec containerd holds" \
                "$(ctr_cmd containers info --spec "$ID" | jq -S .)" "$(jq -S . "$bundle/config.json")"
        assertEquals "PID 1" "/bin/sleep 60 " \
                "$(ctr_cmd task exec --exec-id c-$$ "$ID" /bin/cat /proc/1/cmdline </dev/null | tr '\0' ' ')"
        assertEquals "filters on PID 1" "Seccomp_filters:1" \
                "$(ctr_cmd task exec --exec-id s-$$ "$ID" /bin/grep Seccomp_filters /proc/1/status </dev/null | tr -d '\t')"
}

testCtrExecGetsTheLayerAndOtherwiseWhatItGetsWithRuncAlone() {
        local bin
        for bin in runc "$SUITE_DIR/runtime"; do
                ctr_cmd run -d --seccomp --cgroup "" --runc-binary "$bin" --annotation "$LAYERS=deny-mkdir" \
                        --rootfs "$SUITE_DIR/rootfs" "$ID" /bin/sleep 60 </dev/null >/dev/null 2>&1 || fail "run -d $bin"
                for u in 0 1000; do
                        ctr_cmd task exec --user "$u" --exec-id "e$u-$$" "$ID" \
                                /bin/sh -c 'grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp|Seccomp_filters):" \
                                /proc/self/status; mkdir /tmp/d$$ 2>&1 && echo mkdir: ok' </dev/null
                done >"$TSYNC_TMP/exec-$(basename "$bin")"
                ctr_cmd task exec --exec-id "x-$$" "$ID" /bin/sh -c 'exit 7' </dev/null
                echo "status $?" >>"$TSYNC_TMP/exec-$(basename "$bin")"
                ctr_remove "$ID"
        done
        local plain="$TSYNC_TMP/exec-runc" ours="$TSYNC_TMP/exec-runtime"
        assertContains "$(cat "$plain")" "NoNewPrivs"
        assertEquals "ctr task exec: privileges and status" "$(grep -v -e Seccomp_filters -e mkdir "$plain")" \
                "$(grep -v -e Seccomp_filters -e mkdir "$ours")"
        assertEquals "status" "status 7" "$(grep ^status "$ours")"
        # Through our init (issue 23): containerd's profile and the layer.
        assertEquals "runc alone" "2 2" "$(grep -c 'Seccomp_filters:.1$' "$plain") $(grep -c '^mkdir: ok' "$plain")"
        assertEquals "ours" "2 2" "$(grep -c 'Seccomp_filters:.2$' "$ours") $(grep -c 'Disk quota exceeded' "$ours")"
}

# Exec once (annotation) reaches `ctr task exec` too: the exec'd process starts its own program,
# and every exec after that is refused; runc alone lets it exec.
testCtrExecOfAnExecOnceContainerStartsItsProgramOnce() {
        local bin out
        for bin in runc "$SUITE_DIR/runtime"; do
                ctr_cmd run -d --seccomp --cgroup "" --runc-binary "$bin" --annotation "$LAYERS=deny-mkdir" \
                        --annotation io.oci-seccomp-tsync.exec=once --rootfs "$SUITE_DIR/rootfs" "$ID" /bin/sleep 60 \
                        </dev/null >/dev/null 2>&1 || fail "run -d $bin"
                out=$(ctr_cmd task exec --exec-id "o-$$" "$ID" /bin/sh -c \
                        'echo started; /bin/cat /proc/self/status >/dev/null; echo "cat: $?"' </dev/null 2>&1)
                echo "$out" >"$TSYNC_TMP/once-$(basename "$bin")"
                ctr_remove "$ID"
        done
        assertEquals "runc alone" "started
cat: 0" "$(cat "$TSYNC_TMP/once-runc")"
        assertContains "ours: $(cat "$TSYNC_TMP/once-runtime")" "$(cat "$TSYNC_TMP/once-runtime")" "started"
        assertContains "ours" "$(cat "$TSYNC_TMP/once-runtime")" "cat: 126"
        assertContains "ours" "$(cat "$TSYNC_TMP/once-runtime")" "Operation not permitted"
}

testARefusalReachesCtrAndNoTaskRuns() {
        run_ctr "$SUITE_DIR/runtime" --annotation "$LAYERS=no-such-layer" -- sh -c 'echo ran'
        assertNotEquals 0 "$rc"
        assertNotContains "$(cat "$TSYNC_TMP/out")" "ran"
        assertContains "$(cat "$TSYNC_TMP/out")" "OCI runtime create failed: oci-seccomp-tsync: $ID: layer 'no-such-layer'"
        assertFalse "a task runs" "ctr_cmd task ls -q | grep -qx $ID"
}

# crun as the real runtime: a containerd of this test's own, in a namespace with cgroup2 alone.
testCrunAsTheRealRuntimeUnderContainerd() {
        local suite_pid=$CONTAINERD_PID suite_sock=$CONTAINERD_SOCK dir="$TSYNC_TMP/crun" pid
        mkdir "$dir"
        cat >"$dir/config.toml" <<EOF
version = 2
root = "$dir/root"
state = "$dir/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$dir/c.sock"
EOF
        tsync_runtime_program "$dir/runtime" "$RUNTIME" --runtime-config="$SUITE_DIR/runtime.conf" \
                --profile-dir="$PROFILES" --no-cache --runtime="$(command -v crun)" --cgroup-manager=disabled
        ENGINE_CGROUP2=1 containerd_start "$dir" || fail "containerd with cgroup2"
        pid=$CONTAINERD_PID
        run_ctr "$dir/runtime" --annotation "$LAYERS=deny-mkdir" -- \
                sh -c "$PROBE; exec /bin/threads_probe -n 2 mkdir /tmp/t"
        engine_stop "$pid"
        CONTAINERD_PID=$suite_pid CONTAINERD_SOCK=$suite_sock
        out="$TSYNC_TMP/out"
        assertEquals "$(cat "$out")" 0 "$rc"
        assertTrue "no init threads listed" "grep -q '^init ' $out"
        assertEquals "init threads without containerd's profile + the layer" "" "$(init_threads_without "$out" 2)"
        assertEquals "threads reported" 3 "$(grep -c '^tid=' "$out")"
        assertEquals "threads without the layer denying mkdir" "" \
                "$(grep '^tid=' "$out" | grep -v 'Seccomp_filters=2 .*call=mkdir rc=-1 errno=122' || true)"
}

testTheCriSnippetLoadsInTheRunningContainerd() {
        assertEquals "the CRI plugin" "ok" \
                "$(ctr_cmd plugins ls | awk '$1 == "io.containerd.grpc.v1" && $2 == "cri" { print $NF }')"
        local dump
        dump=$(containerd --config "$SUITE_DIR/config.toml" config dump) || fail "config dump"
        assertContains "$dump" '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.oci-seccomp-tsync.options]'
        assertContains "$dump" 'BinaryName = "/usr/bin/oci-seccomp-tsync-runtime"'
        assertContains "$dump" 'pod_annotations = ["io.oci-seccomp-tsync.*"]'
}

testTheKubernetesAndEngineExamplesAreValidAndAgreeOnTheHandlerName() {
        out=$(python3 -c '
import json, sys, tomllib, yaml
d = sys.argv[1]
crio = tomllib.load(open(d + "/crio-runtime.conf", "rb"))["crio"]["runtime"]["runtimes"]
cri = tomllib.load(open(d + "/containerd-cri.toml", "rb"))["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]
rc = list(yaml.safe_load_all(open(d + "/runtimeclass.yaml")))
pod = list(yaml.safe_load_all(open(d + "/pod.yaml")))
assert [x["kind"] for x in rc] == ["RuntimeClass"] and rc[0]["apiVersion"] == "node.k8s.io/v1", rc
assert [x["kind"] for x in pod] == ["Pod"], pod
assert pod[0]["spec"]["runtimeClassName"] == rc[0]["metadata"]["name"]
assert "io.oci-seccomp-tsync.layers" in pod[0]["metadata"]["annotations"]
daemon = json.load(open(d + "/docker-daemon.json.in"))
assert all(r["path"].endswith("/oci-seccomp-tsync-runtime") for r in daemon["runtimes"].values())
h = rc[0]["handler"]
assert cri[h]["options"]["BinaryName"].endswith("/oci-seccomp-tsync-runtime"), cri
assert crio[h]["runtime_path"].endswith("/oci-seccomp-tsync-runtime"), crio
print(h)' "$EXAMPLES") || fail "examples: $out"
        assertEquals "oci-seccomp-tsync" "$out"
}

. shunit2
