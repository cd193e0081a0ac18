#!/bin/bash
# One request, every front end (issue 24): each annotation of ours, alone and with a layer,
# through Podman's precreate hook (podman run --rootfs with our hooks.d files), the runtime
# wrapper called directly (create, then start) and the wrapper under containerd (ctr run
# --runc-binary, as a CRI runtime's BinaryName calls it). Each is honoured and proven in the
# container, or refused with exactly one line and the workload never runs. The annotations'
# table is hook/facts/annotations.c; what each front end does with each row is asserted here.
# The probe uses shell builtins only, since exec once forbids every later exec.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"
. "$HERE/enginelib.sh"
A=io.oci-seccomp-tsync
FRONTENDS="podman runtime ctr"

# One fact a line. pid1: PID 1's name (our init is "init"); initfilters: the filters in its
# arguments; self and initthread: Seccomp_filters of the workload and of every thread of PID 1;
# mkdir and exec: the status of a mkdir (1 under deny-mkdir) and of any program (126 under
# exec once).
PROBE_X='read -r c </proc/1/comm; echo "pid1=$c"
n=0; while IFS= read -r -d "" a; do [ "$a" = --filter-data ] && n=$((n + 1)); done </proc/1/cmdline
echo "initfilters=$n"
while read -r k v; do [ "$k" = Seccomp_filters: ] && echo "self=$v"; done </proc/self/status
for t in /proc/1/task/*; do while read -r k v; do [ "$k" = Seccomp_filters: ] && echo "initthread=$v"; done <"$t/status"; done
/bin/mkdir /tmp/probe 2>/dev/null; echo "mkdir=$?"
/bin/echo >/dev/null 2>&1; echo "exec=$?"'

# The runtime's own profile for the direct bundles, so that every front end has one filter of
# the runtime's (Podman's and containerd's defaults elsewhere): allow all but acct.
BASE_SECCOMP='{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
  "syscalls": [{"names": ["acct"], "action": "SCMP_ACT_ERRNO"}]}'

oneTimeSetUp() {
        tsync_need_built "$RUNTIME" "$INIT" "$OCI"
        SUITE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tsync-frontends.XXXXXX")
        : >"$SUITE_DIR/runtime.conf"
        mkdir -p "$SUITE_DIR/profiles" && mkdir -m 0700 "$SUITE_DIR/recroot"
        cp "$PROFILES/deny-mkdir.json" "$SUITE_DIR/profiles/"
        echo '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir", "no_such_syscall_12345"], "action": "SCMP_ACT_ERRNO", "errnoRet": 122}]}' \
                >"$SUITE_DIR/profiles/deny-mkdir-unknown.json"
        # The wrapper with the suite's settings (BinaryName and --runc-binary take no arguments).
        cat >"$SUITE_DIR/runtime" <<EOF
#!/bin/sh
exec "$RUNTIME" --runtime-config="$SUITE_DIR/runtime.conf" --profile-dir="$SUITE_DIR/profiles" --cache-dir="$SUITE_DIR/cache" "\$@"
EOF
        chmod 0755 "$SUITE_DIR/runtime"
        HOOKS="$SUITE_DIR/hooks.d"
        podman_hooks_dir "$HOOKS" "$SUITE_DIR/profiles" "" "$SUITE_DIR/cache" "$SUITE_DIR/recroot" || return 1
        ROOTFS="$SUITE_DIR/rootfs"
        make_rootfs "$ROOTFS" >/dev/null || return 1
        containerd_config "$SUITE_DIR" 'disabled_plugins = ["io.containerd.grpc.v1.cri"]'
        containerd_start "$SUITE_DIR"
}

oneTimeTearDown() {
        # shellcheck disable=SC2046 # one word an id
        ctr_remove $(ctr_cmd containers ls -q 2>/dev/null | grep "^tsync-fe-$$-")
        engine_stop_all
        podman ps -aq --filter label=tsync-test=$$ | xargs -r podman rm -f >/dev/null 2>&1
        rm -rf "$SUITE_DIR"
}

setUp() {
        tsync_test_begin
        N=0
}

tearDown() {
        ctr_remove "$ID"
        tsync_test_end
}

# run_fe FRONTEND KEY=VALUE...: the probe with these annotations through FRONTEND; $rc, and the
# workload's output in $OUT, what the front end said on stderr in $ERR ($ERR also holds the
# output under ctr, which mixes them).
run_fe() {
        local fe=$1 kv ann=()
        shift
        N=$((N + 1))
        ID=tsync-fe-$$-$N
        OUT="$TSYNC_TMP/$ID.out" ERR="$TSYNC_TMP/$ID.err"
        rm -rf "$ROOTFS/tmp/probe"
        case "$fe" in
        podman)
                for kv in "$@"; do ann+=(--annotation "$kv"); done
                podman --hooks-dir "$HOOKS" run --rm --runtime runc --label tsync-test=$$ \
                        --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "${ann[@]}" --rootfs "$ROOTFS" \
                        /bin/sh -c "$PROBE_X" </dev/null >"$OUT" 2>"$ERR"
                rc=$?
                ;;
        runtime) run_direct "$@" ;;
        ctr)
                for kv in "$@"; do ann+=(--annotation "$kv"); done
                ctr_cmd run --rm --seccomp --cgroup "" --env PATH=/bin --runc-binary "$SUITE_DIR/runtime" "${ann[@]}" \
                        --rootfs "$ROOTFS" "$ID" /bin/sh -c "$PROBE_X" </dev/null >"$ERR" 2>&1
                rc=$?
                grep -E '^[a-z0-9]+=' "$ERR" >"$OUT"
                ;;
        esac
}

# run_direct KEY=VALUE...: a runc bundle with BASE_SECCOMP and the annotations, created and then
# started and, once stopped, deleted through the wrapper (which writes a recording then).
run_direct() {
        local b="$TSYNC_TMP/$ID" kv annotations='{}' i
        for kv in "$@"; do
                annotations=$(jq -c --arg k "${kv%%=*}" --arg v "${kv#*=}" '.[$k] = $v' <<<"$annotations")
        done
        make_rootfs "$b/rootfs" >/dev/null && make_bundle "$b" /bin/sh -c "$PROBE_X" &&
                tsync_json_edit "$b/config.json" '.linux.seccomp = $s | .annotations = $a | .process.capabilities.ambient = []' \
                        --argjson s "$BASE_SECCOMP" --argjson a "$annotations" || fail "bundle"
        cp "$b/config.json" "$TSYNC_TMP/$ID.before"
        _tsync_register runc "$ID"
        "$SUITE_DIR/runtime" create --bundle "$b" "$ID" </dev/null >"$OUT" 2>"$ERR"
        rc=$?
        [ "$rc" = 0 ] || return 0
        "$SUITE_DIR/runtime" start "$ID" 2>>"$ERR" || fail "start: $(cat "$ERR")"
        # Not a timed assertion: the workload ends on its own; 30 s bounds a broken one.
        for i in $(seq 300); do
                [ "$(runc state "$ID" 2>/dev/null | jq -r .status)" = stopped ] && break
                sleep 0.1
        done
        assertEquals "$ID stopped" stopped "$(runc state "$ID" 2>/dev/null | jq -r .status)"
        "$SUITE_DIR/runtime" delete "$ID" 2>>"$ERR" || fail "delete: $(cat "$ERR")"
}

# honoured FRONTEND FACT...: the run succeeded and printed each FACT (pid1=init, self=2, ...);
# every thread of PID 1 carries as many filters as the workload unless ANY_THREADS is set.
honoured() {
        local fe=$1 fact
        shift
        assertEquals "$fe $ID: status ($(cat "$ERR"))" 0 "$rc"
        for fact in "$@"; do
                grep -qx "$fact" "$OUT" || fail "$fe $ID: no '$fact' in: $(tr '\n' ' ' <"$OUT") ($(tail -n 3 "$ERR"))"
        done
        [ -n "${ANY_THREADS:-}" ] && return 0
        local self
        self=$(sed -n 's/^self=//p' "$OUT")
        assertTrue "$fe $ID: no thread of PID 1 listed" "grep -q '^initthread=' $OUT"
        assertEquals "$fe $ID: threads of PID 1 without the workload's $self filters" "" \
                "$(grep '^initthread=' "$OUT" | grep -vx "initthread=$self")"
}

# refused FRONTEND CAUSE: one line naming CAUSE, and no workload (and no container left).
refused() {
        local fe=$1 cause=$2
        assertNotEquals "$fe $ID: started" 0 "$rc"
        assertEquals "$fe $ID: the workload ran" "" "$(grep '^pid1=' "$OUT")"
        if [ "$fe" = podman ]; then
                # Podman shows the hook's exit status, not its line (test_failclosed.sh checks the line).
                assertContains "$fe $ID: $(cat "$ERR")" "$(cat "$ERR")" "hook precreate"
                return 0
        fi
        assertEquals "$fe $ID: lines of ours: $(cat "$ERR")" 1 "$(grep -c 'oci-seccomp-tsync: ' "$ERR")"
        assertContains "$fe $ID: $(cat "$ERR")" "$(grep 'oci-seccomp-tsync: ' "$ERR")" "oci-seccomp-tsync: $ID: $cause"
        case "$fe" in
        runtime)
                assertFalse "$fe $ID: a container is left" "runc state $ID >/dev/null 2>&1"
                cmp -s "$TSYNC_TMP/$ID.before" "$TSYNC_TMP/$ID/config.json" || fail "$fe $ID: config.json changed"
                ;;
        ctr) assertFalse "$fe $ID: a task is left" "ctr_cmd task ls -q | grep -qx $ID" ;;
        esac
}

# each_frontend "FACT..." ANNOTATION...: every front end runs the probe with the ANNOTATIONs, and
# honours them with the FACTs.
each_frontend() {
        local facts=$1 fe
        shift
        for fe in $FRONTENDS; do
                run_fe "$fe" "$@"
                # shellcheck disable=SC2086
                honoured "$fe" $facts
        done
}

testLayersAlone() {
        each_frontend "pid1=init initfilters=1 self=2 mkdir=1 exec=0" "$A.layers=deny-mkdir"
}

testReplaceModeAloneMovesTheRuntimesFilterToTheInit() {
        # One filter in all, the init's: the runtime applied none of its own.
        each_frontend "pid1=init initfilters=1 self=1 mkdir=0 exec=0" "$A.mode=replace"
}

testReplaceModeWithALayer() {
        each_frontend "pid1=init initfilters=2 self=2 mkdir=1 exec=0" "$A.mode=replace" "$A.layers=deny-mkdir"
}

testLayerModeByNameWithALayer() {
        each_frontend "pid1=init initfilters=1 self=2 mkdir=1 exec=0" "$A.mode=layer" "$A.layers=deny-mkdir"
}

# Issue 24: through the wrapper, exec=once alone ran the workload without it.
testExecOnceAloneRefusesASecondExec() {
        each_frontend "pid1=init initfilters=1 self=2 mkdir=126 exec=126" "$A.exec=once"
}

testExecOnceWithALayer() {
        each_frontend "pid1=init initfilters=2 self=3 mkdir=126 exec=126" "$A.exec=once" "$A.layers=deny-mkdir"
}

# record: precreate honours it (the profile written at poststop), the wrapper too (written at
# delete) when its record-dir holds the profile; without one the wrapper refuses it.
recording() {
        local fe i
        for fe in $FRONTENDS; do
                rm -f "$TSYNC_TMP/p.json"
                echo "record-dir = $TSYNC_TMP" >"$SUITE_DIR/runtime.conf"
                run_fe "$fe" "$A.record=of:$TSYNC_TMP/p.json" "$@"
                : >"$SUITE_DIR/runtime.conf"
                # The recorder's filter is on the main thread alone.
                ANY_THREADS=1 honoured "$fe" pid1=init exec=0 ${1:+mkdir=1}
                # poststop runs as Podman cleans up: the file must come (the wrapper's delete
                # has run when run_fe returns).
                for i in $(seq 100); do [ -s "$TSYNC_TMP/p.json" ] && break; sleep 0.1; done
                assertTrue "$fe: the recorded profile is written" "[ -s $TSYNC_TMP/p.json ]"
                [ "$fe" = podman ] && continue
                run_fe "$fe" "$A.record=of:$TSYNC_TMP/p.json" "$@"
                refused "$fe" "annotations.$A.record: recordings through oci-seccomp-tsync-runtime are off on this host"
        done
}

testRecordAlone() {
        recording
}

testRecordWithALayer() {
        recording "$A.layers=deny-mkdir"
}

# crun's run.oci.seccomp_fail_unknown_syscall: alone it asks nothing of us (the container is the
# runtime's own); with a layer naming a syscall libseccomp does not know, the layer is refused,
# where without it the name is skipped with a warning.
testCrunsFailUnknownSyscallAsksNothingAloneAndIsHonouredWithALayer() {
        local fe crun=run.oci.seccomp_fail_unknown_syscall=1
        for fe in $FRONTENDS; do
                run_fe "$fe" "$crun"
                honoured "$fe" pid1=sh initfilters=0 self=1 mkdir=0 exec=0
                run_fe "$fe" "$A.layers=deny-mkdir-unknown"
                honoured "$fe" pid1=init initfilters=1 self=2 mkdir=1 exec=0
                run_fe "$fe" "$crun" "$A.layers=deny-mkdir-unknown"
                refused "$fe" "layer 'deny-mkdir-unknown'"
                [ "$fe" = podman ] || grep -q "unknown to libseccomp .*'no_such_syscall_12345'" "$ERR" ||
                        fail "$fe: $(cat "$ERR")"
        done
}

# A misspelt name of ours never runs the container without what it asked. Podman calls
# precreate only for the names of the hooks.d regex, so only the wrapper can see it alone.
testAMisspeltAnnotationIsRefusedByTheWrapper() {
        local fe
        for fe in runtime ctr; do
                run_fe "$fe" "$A.exec=once" "$A.layer=deny-mkdir"
                refused "$fe" "annotations.$A.layer: not an annotation of oci-seccomp-tsync"
                run_fe "$fe" "$A.layer=deny-mkdir"
                refused "$fe" "annotations.$A.layer: not an annotation of oci-seccomp-tsync"
        done
        run_fe podman "$A.layers=deny-mkdir" "$A.Mode=replace"
        assertNotEquals "podman: started" 0 "$rc"
        assertEquals "podman: the workload ran" "" "$(grep '^pid1=' "$OUT")"
}

# An empty --bundle is the current directory, as runc reads it: the config there is ours.
testAnEmptyBundleIsTheCurrentDirectory() {
        local spelling
        for spelling in "--bundle=" "--bundle ''" "-b ''"; do
                N=$((N + 1))
                ID=tsync-fe-$$-$N
                local b="$TSYNC_TMP/$ID"
                make_rootfs "$b/rootfs" >/dev/null && make_bundle "$b" /bin/sh -c "$PROBE_X" &&
                        tsync_json_edit "$b/config.json" '.annotations = {"io.oci-seccomp-tsync.exec": "once"}' ||
                        fail "bundle"
                _tsync_register runc "$ID"
                (cd "$b" && eval "\"$SUITE_DIR/runtime\" run $spelling $ID") </dev/null >"$TSYNC_TMP/$ID.out" 2>&1
                last_rc=$?
                assertEquals "$spelling: $(cat "$TSYNC_TMP/$ID.out")" 0 "$last_rc"
                grep -qx pid1=init "$TSYNC_TMP/$ID.out" || fail "$spelling: not our init: $(cat "$TSYNC_TMP/$ID.out")"
                grep -qx exec=126 "$TSYNC_TMP/$ID.out" || fail "$spelling: exec once not applied"
        done
}

. shunit2
