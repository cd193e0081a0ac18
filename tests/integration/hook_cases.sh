# The hook end to end with a runtime ($RT: runc or crun): config -> inject ->
# createRuntime hook -> compiled filters -> seccomp-tsync-init TSYNC -> workload.
# Sourced by test_hook_runc.sh and test_hook_crun.sh.

setUp() {
        tsync_test_begin
        [ -n "$PODMAN_CONFIG" ] || fail "no config from a real podman run (see the capture log above)"
        [ -x "$INIT" ] || fail "$INIT is not built"
}

tearDown() {
        tsync_test_end
}

oneTimeSetUp() {
        hook_suite_setup
}

oneTimeTearDown() {
        hook_suite_teardown
}

testLayerDeniesInTheWorkloadAndEveryInitThreadCarriesBaselinePlusLayer() {
        podman_bundle "$TSYNC_TMP/b" "$PROBE" || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/b" || fail "inject"
        rt_run layer-$$ "$TSYNC_TMP/b"
        assertEquals "$(cat "$TSYNC_TMP/layer-$$.err")" 0 "$rc"
        out="$TSYNC_TMP/layer-$$.out"
        grep -q "mkdir: .*Disk quota exceeded" "$out" || fail "mkdir was not denied by the layer: $(cat "$out")"
        assertTrue "no init threads listed" "grep -q '^init ' $out"
        assertEquals "init threads without baseline + layer" "" "$(init_threads_without "$out" 2)"
        grep -q "^Seccomp_filters: 2$" "$out" || fail "workload: $(grep Seccomp "$out")"
}

testEveryThreadOfAMultithreadedWorkloadIsFiltered() {
        [ -x "$TSYNC_BUILD/tests/static/threads_probe" ] || fail "threads_probe is not built"
        podman_bundle "$TSYNC_TMP/b" "exec /bin/threads_probe -n 8 mkdir /tmp/t" || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/b" || fail "inject"
        rt_run threads-$$ "$TSYNC_TMP/b"
        out="$TSYNC_TMP/threads-$$.out"
        assertEquals "$(cat "$TSYNC_TMP/threads-$$.err")" 0 "$rc"
        assert_threads_denied "$out" 9
}

testExecProcessKeepsOnlyTheBaseline() {
        podman_bundle "$TSYNC_TMP/b" "sleep 60" || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/b" || fail "inject"
        rt_start exec-$$ "$TSYNC_TMP/b" || fail "start"
        out=$(rt exec exec-$$ /bin/grep -E '^Seccomp(_filters)?:' /proc/self/status | tr '\t\n' '  ')
        assertEquals "Seccomp: 2 Seccomp_filters: 1 " "$out"
        rt exec exec-$$ /bin/mkdir /tmp/from-exec
        assertEquals "the baseline allows mkdir in exec" 0 $?
        rt_stop exec-$$
}

testReplaceModeEnforcesTheConfigsOwnSectionWithTheSameFilterCount() {
        podman_bundle "$TSYNC_TMP/plain" "$PROBE" || fail "bundle"
        # Podman's profile plus a rule we can see: mkdir gets EDQUOT.
        tsync_json_edit "$TSYNC_TMP/plain/config.json" \
                '.linux.seccomp.syscalls = [{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_ERRNO", errnoRet: 122}] + .linux.seccomp.syscalls'
        cp -a "$TSYNC_TMP/plain" "$TSYNC_TMP/replace"
        rt_run plain-$$ "$TSYNC_TMP/plain"
        assertEquals 0 "$rc"
        inject --replace "$TSYNC_TMP/replace" 2>"$TSYNC_TMP/inject.err" || fail "inject: $(cat "$TSYNC_TMP/inject.err")"
        grep -q "run without it" "$TSYNC_TMP/inject.err" || fail "replace mode did not say what exec processes get"
        assertNull "linux.seccomp left in the config" "$(jq -c '.linux.seccomp // empty' "$TSYNC_TMP/replace/config.json")"
        rt_run replace-$$ "$TSYNC_TMP/replace"
        assertEquals "$(cat "$TSYNC_TMP/replace-$$.err")" 0 "$rc"
        assertEquals "filters: plain run vs replace mode" \
                "$(grep '^Seccomp_filters' "$TSYNC_TMP/plain-$$.out")" "$(grep '^Seccomp_filters' "$TSYNC_TMP/replace-$$.out")"
        grep -q "mkdir: .*Disk quota exceeded" "$TSYNC_TMP/replace-$$.out" || fail "the moved rule does not hold"
        assertEquals "" "$(init_threads_without "$TSYNC_TMP/replace-$$.out" 1)"
}

# parity UID NNP: the workload's capability sets and NoNewPrivs under the init equal a plain run's.
parity() {
        local uid=$1 nnp=$2 tag=$1-$2
        podman_bundle "$TSYNC_TMP/plain-$tag" "$PROBE" || fail "bundle"
        tsync_json_edit "$TSYNC_TMP/plain-$tag/config.json" \
                '.process.user = {uid: ($u | tonumber), gid: ($u | tonumber)} | .process.noNewPrivileges = ($n == "true")' \
                --arg u "$uid" --arg n "$nnp"
        cp -a "$TSYNC_TMP/plain-$tag" "$TSYNC_TMP/ours-$tag"
        rt_run plain-$tag-$$ "$TSYNC_TMP/plain-$tag"
        assertEquals "plain run $tag: $(cat "$TSYNC_TMP/plain-$tag-$$.err")" 0 "$rc"
        inject --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/ours-$tag" || fail "inject"
        rt_run ours-$tag-$$ "$TSYNC_TMP/ours-$tag"
        assertEquals "injected run $tag: $(cat "$TSYNC_TMP/ours-$tag-$$.err")" 0 "$rc"
        assertEquals "capabilities and NoNewPrivs, uid $uid, noNewPrivileges $nnp" \
                "$(cap_lines "$TSYNC_TMP/plain-$tag-$$.out")" "$(cap_lines "$TSYNC_TMP/ours-$tag-$$.out")"
        assertEquals "$(cap_lines "$TSYNC_TMP/plain-$tag-$$.out" | wc -l)" 6
}

testCapabilitiesMatchAPlainRunForRootWithoutNoNewPrivs() {
        parity 0 false
}

testCapabilitiesMatchAPlainRunForRootWithNoNewPrivs() {
        parity 0 true
}

testCapabilitiesMatchAPlainRunForUser1000WithoutNoNewPrivs() {
        parity 1000 false
}

testCapabilitiesMatchAPlainRunForUser1000WithNoNewPrivs() {
        parity 1000 true
}

testDockerFormatLayerJudgedAgainstTheContainersCapabilities() {
        podman_bundle "$TSYNC_TMP/b" "$PROBE" || fail "bundle"
        inject --profile /usr/share/containers/seccomp.json --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/b" ||
                fail "inject"
        rt_run docker-$$ "$TSYNC_TMP/b"
        assertEquals "$(cat "$TSYNC_TMP/docker-$$.err")" 0 "$rc"
        assertEquals "" "$(init_threads_without "$TSYNC_TMP/docker-$$.out" 3)"
        grep -q "mkdir: .*Disk quota exceeded" "$TSYNC_TMP/docker-$$.out" || fail "$(cat "$TSYNC_TMP/docker-$$.out")"
}

# nnp_bundle DIR: DIR/config.json with noNewPrivileges true. inject --no-hooks refuses noNewPrivileges
# false: no hook at start would take the capabilities lent to the init back from exec'd processes.
nnp_bundle() {
        tsync_json_edit "$1/config.json" '.process.noNewPrivileges = true'
}

# filter_data BUNDLE: how many --filter-data arguments the init gets.
filter_data() {
        jq '[.process.args[] | select(. == "--filter-data")] | length' "$1/config.json"
}

testNoHooksDeliversAtInjectAndRunsEveryThreadFiltered() {
        [ -x "$TSYNC_BUILD/tests/static/threads_probe" ] || fail "threads_probe is not built"
        podman_bundle "$TSYNC_TMP/b" "exec /bin/threads_probe -n 4 mkdir /tmp/t" && nnp_bundle "$TSYNC_TMP/b" || fail "bundle"
        # Earlier injects: one with hooks (they, and the filter files they wrote, must go), one with
        # two layers (its second filter must not survive).
        inject --compile-at-start --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/b" || fail "inject"
        echo stale >"$TSYNC_TMP/b/oci-seccomp-tsync/00.bpf" || fail "a filter file of the hooked inject"
        inject --no-hooks --profile "$PROFILES/deny-getcwd.json" --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/b" ||
                fail "inject"
        assertEquals "filters of two layers" 2 "$(filter_data "$TSYNC_TMP/b")"
        inject --no-hooks --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/b" || fail "inject --no-hooks"
        assertEquals "hooks of ours left in the config" "" \
                "$(jq -r '[.hooks // {} | .[] | .[] | select(.args[0] == "oci-seccomp-tsync")] | length | select(. > 0)' \
                        "$TSYNC_TMP/b/config.json")"
        assertEquals "filters in the init's arguments" 1 "$(filter_data "$TSYNC_TMP/b")"
        assertFalse "the bundle keeps a state directory" "[ -e $TSYNC_TMP/b/oci-seccomp-tsync ]"
        assertEquals "a mount of filter files" "" \
                "$(jq -r '.mounts[] | select(.destination == "/.oci-seccomp-tsync/filters") | .source' "$TSYNC_TMP/b/config.json")"
        rt_run nohooks-$$ "$TSYNC_TMP/b"
        out="$TSYNC_TMP/nohooks-$$.out"
        assertEquals "$(cat "$TSYNC_TMP/nohooks-$$.err")" 0 "$rc"
        assert_threads_denied "$out" 5
        assertFalse "the run left a state directory" "[ -e $TSYNC_TMP/b/oci-seccomp-tsync ]"
        # Without the hooks, filter data edited in the config is the init's to refuse (its checksum).
        tsync_json_edit "$TSYNC_TMP/b/config.json" '(.process.args | index("--filter-data")) as $i
                | .process.args[$i + 1] |= (.[0:60] + (if .[60:61] == "A" then "B" else "A" end) + .[61:])'
        rt_run nohooks2-$$ "$TSYNC_TMP/b"
        assertNotEquals "ran with a forged filter" 0 "$rc"
        grep -q "filter 1 (--filter-data)" "$TSYNC_TMP/nohooks2-$$.err" ||
                fail "no word of the forged filter: $(cat "$TSYNC_TMP/nohooks2-$$.err")"
        assertFalse "the workload ran" "grep -q '^tid=' $TSYNC_TMP/nohooks2-$$.out"
}

testNoHooksRefusedLayerLeavesConfigAndFiltersAsTheyWere() {
        podman_bundle "$TSYNC_TMP/b" "mkdir /tmp/x || touch /tmp/denied" && nnp_bundle "$TSYNC_TMP/b" || fail "bundle"
        inject --no-hooks --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/b" || fail "inject"
        cp "$TSYNC_TMP/b/config.json" "$TSYNC_TMP/before.json"
        "$OCI" inject --no-hooks --profile "$PROFILES/broken.json" "$TSYNC_TMP/b" 2>"$TSYNC_TMP/err"
        assertNotEquals 0 $?
        assertEquals "$(cat "$TSYNC_TMP/err")" 1 "$(wc -l <"$TSYNC_TMP/err")"
        cmp -s "$TSYNC_TMP/before.json" "$TSYNC_TMP/b/config.json" || fail "a refused inject changed config.json"
        assertFalse "a refused inject made a state directory" "[ -e $TSYNC_TMP/b/oci-seccomp-tsync ]"
        rt_run nohooks3-$$ "$TSYNC_TMP/b"
        assertEquals "$(cat "$TSYNC_TMP/nohooks3-$$.err")" 0 "$rc"
        assertTrue "the earlier layer no longer holds" "[ -e $TSYNC_TMP/b/rootfs/tmp/denied ]"
}

testExecModeMakesTheFilteredWorkloadPid1() {
        podman_bundle "$TSYNC_TMP/b" 'echo "pid=$$"; grep -E "^Seccomp_filters:" /proc/self/status | tr "\t" " "; mkdir /tmp/x 2>/dev/null || exit 42' &&
                nnp_bundle "$TSYNC_TMP/b" || fail "bundle"
        inject --no-hooks --exec --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/b" || fail "inject"
        rt_run exec1-$$ "$TSYNC_TMP/b"
        out="$TSYNC_TMP/exec1-$$.out"
        assertEquals "mkdir was not denied (or the status was lost): $(cat "$TSYNC_TMP/exec1-$$.err")" 42 "$rc"
        assertEquals "pid=1 Seccomp_filters: 2" "$(tr '\n' ' ' <"$out" | sed 's/ $//')"
        # Injected again without --exec: the init is PID 1 again, the workload is not.
        inject --no-hooks --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/b" || fail "inject"
        rt_run exec2-$$ "$TSYNC_TMP/b"
        assertEquals 42 "$rc"
        grep -q '^pid=1$' "$TSYNC_TMP/exec2-$$.out" && fail "the workload is PID 1 under a forking init"
        grep -qx 'pid=[0-9]*' "$TSYNC_TMP/exec2-$$.out" || fail "$(cat "$TSYNC_TMP/exec2-$$.out")"
        assertEquals "Seccomp_filters: 2" "$(grep Seccomp_filters "$TSYNC_TMP/exec2-$$.out")"
}

testBrokenLayerIsRefusedByInject() {
        podman_bundle "$TSYNC_TMP/b" "touch /tmp/marker" || fail "bundle"
        cp "$TSYNC_TMP/b/config.json" "$TSYNC_TMP/before.json"
        "$OCI" inject --profile "$PROFILES/broken.json" "$TSYNC_TMP/b" 2>"$TSYNC_TMP/err"
        assertNotEquals 0 $?
        grep -q "action 'SCMP_ACT_SOMETIMES' is unknown" "$TSYNC_TMP/err" || fail "$(cat "$TSYNC_TMP/err")"
        cmp -s "$TSYNC_TMP/before.json" "$TSYNC_TMP/b/config.json" || fail "a refused inject changed config.json"
}

testLayerBrokenAfterInjectStopsTheContainer() {
        podman_bundle "$TSYNC_TMP/b" "touch /tmp/marker" || fail "bundle"
        cp "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/layer.json"
        # Compiled at each start, so a layer broken after inject counts (by default it does not).
        inject --compile-at-start --profile "$TSYNC_TMP/layer.json" "$TSYNC_TMP/b" || fail "inject"
        cp "$PROFILES/broken.json" "$TSYNC_TMP/layer.json"
        rt_run broken-$$ "$TSYNC_TMP/b"
        assertNotEquals "the container ran" 0 "$rc"
        assertFalse "the workload ran" "[ -e $TSYNC_TMP/b/rootfs/tmp/marker ]"
        if [ "$RT" = crun ]; then
                # crun does not pass a hook's stderr on; the same stage run by hand shows what it said.
                grep -q "error executing hook .*oci-seccomp-tsync" "$TSYNC_TMP/broken-$$.err" ||
                        fail "$(cat "$TSYNC_TMP/broken-$$.err")"
                jq -n --arg b "$TSYNC_TMP/b" '{ociVersion: "1.0.2", id: "broken-'$$'", status: "creating", pid: 1, bundle: $b}' |
                        "$OCI" hook createRuntime --cache-dir "$TSYNC_TMP/cache" 2>"$TSYNC_TMP/broken-$$.err"
        fi
        grep -q "oci-seccomp-tsync: broken-$$: layer .*SCMP_ACT_SOMETIMES" "$TSYNC_TMP/broken-$$.err" ||
                fail "no error naming the container: $(cat "$TSYNC_TMP/broken-$$.err")"
        assertEquals "no filter files left" "" "$(ls "$TSYNC_TMP/b/oci-seccomp-tsync")"
}

testSymlinkPlantedAtTheMountPointStopsTheContainer() {
        podman_bundle "$TSYNC_TMP/b" "touch /tmp/marker" || fail "bundle"
        # Filter files: the init reads them below the mount point, never through a link.
        inject --compile-at-start --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/b" || fail "inject"
        mkdir -p "$TSYNC_TMP/b/rootfs/elsewhere"
        ln -s /elsewhere "$TSYNC_TMP/b/rootfs/.oci-seccomp-tsync"
        rt_run symlink-$$ "$TSYNC_TMP/b"
        assertNotEquals "the container ran" 0 "$rc"
        assertFalse "the workload ran" "[ -e $TSYNC_TMP/b/rootfs/tmp/marker ]"
}

testReadonlyRootAndExitCodePassThrough() {
        podman_bundle "$TSYNC_TMP/b" "exit 42" || fail "bundle"
        tsync_json_edit "$TSYNC_TMP/b/config.json" '.root.readonly = true'
        inject --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/b" || fail "inject"
        rt_run exit-$$ "$TSYNC_TMP/b"
        assertEquals "$(cat "$TSYNC_TMP/exit-$$.err")" 42 "$rc"
}

testWorkloadKilledByItsFilterExits159() {
        podman_bundle "$TSYNC_TMP/b" "exec mkdir /tmp/x" || fail "bundle"
        jq '.syscalls[0].action = "SCMP_ACT_KILL_PROCESS" | del(.syscalls[0].errnoRet)' "$PROFILES/deny-mkdir.json" \
                >"$TSYNC_TMP/kill.json"
        inject --profile "$TSYNC_TMP/kill.json" "$TSYNC_TMP/b" || fail "inject"
        rt_run kill-$$ "$TSYNC_TMP/b"
        assertEquals 159 "$rc"
}

testSigtermFromTheRuntimeReachesTheWorkload() {
        podman_bundle "$TSYNC_TMP/b" "trap 'echo got-term > /tmp/term; exit 7' TERM; touch /tmp/ready; while :; do sleep 0.1; done" ||
                fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/b" || fail "inject"
        rt_start term-$$ "$TSYNC_TMP/b" || fail "start"
        for _ in $(seq 100); do [ -e "$TSYNC_TMP/b/rootfs/tmp/ready" ] && break; sleep 0.05; done
        rt kill term-$$ TERM
        for _ in $(seq 100); do [ -e "$TSYNC_TMP/b/rootfs/tmp/term" ] && break; sleep 0.05; done
        assertEquals "got-term" "$(cat "$TSYNC_TMP/b/rootfs/tmp/term" 2>/dev/null)"
        rt_stop term-$$
}

testTwentyContainersAtOnceLeaveNoStateBehind() {
        local i pids=()
        for i in $(seq 20); do
                podman_bundle "$TSYNC_TMP/p$i" "grep -E '^Seccomp_filters:' /proc/self/status" || fail "bundle $i"
                inject --profile "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/p$i" || fail "inject $i"
        done
        for i in $(seq 20); do
                (rt_run par$i-$$ "$TSYNC_TMP/p$i"; echo "$rc" >"$TSYNC_TMP/p$i.rc") &
                pids+=($!)
        done
        wait "${pids[@]}"
        for i in $(seq 20); do
                assertEquals "container $i: $(cat "$TSYNC_TMP/par$i-$$.err")" 0 "$(cat "$TSYNC_TMP/p$i.rc")"
                assertEquals "container $i" "Seccomp_filters: 2" "$(tr '\t' ' ' <"$TSYNC_TMP/par$i-$$.out")"
                assertEquals "state left for container $i" "" "$(ls -A "$TSYNC_TMP/p$i/oci-seccomp-tsync")"
        done
        assertEquals "cache temp files" "" "$(ls -A "$TSYNC_TMP/cache" | grep -v '\.bpf$' || true)"
        assertEquals "containers left" "" "$(rt list -q 2>/dev/null | grep -- "-$$\$" || true)"
}

# The suite: these cases and the sourcing suite's own tests (a suite that sources this file
# keeps this suite(): shunit2 would not find the cases in the suite's file).
suite() {
        tsync_add_declared_tests
}
