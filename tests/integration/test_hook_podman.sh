#!/bin/bash
# Podman (and, through the same hooks.d files, CRI-O): the precreate stage
# rewrites the config when a container carries the io.oci-seccomp-tsync.*
# annotations; createRuntime and poststop deliver and remove the filters.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"

oneTimeSetUp() {
        SUITE_TMP=$(mktemp -d)
        HOOKS="$SUITE_TMP/hooks.d"
        STATE="$SUITE_TMP/state"
        # The state root an older precreate used: this one must leave it empty (issue 15).
        mkdir -p "$SUITE_TMP/profiles" && mkdir -m 0711 "$STATE"
        cp "$PROFILES"/deny-mkdir.json "$PROFILES"/broken.json "$SUITE_TMP/profiles/"
        cp /usr/share/containers/seccomp.json "$SUITE_TMP/profiles/containers-default.json"
        podman_hooks_dir "$HOOKS" "$SUITE_TMP/profiles" "$STATE" "$SUITE_TMP/cache"
        ROOTFS="$SUITE_TMP/rootfs"
        local extra=()
        [ -x "$TSYNC_BUILD/tests/static/threads_probe" ] && extra+=("$TSYNC_BUILD/tests/static/threads_probe")
        make_rootfs "$ROOTFS" "${extra[@]}"
}

oneTimeTearDown() {
        podman ps -aq --filter label=tsync-test=$$ | xargs -r podman rm -f >/dev/null 2>&1
        rm -rf "$SUITE_TMP"
}

setUp() {
        tsync_test_begin
        rm -rf "$ROOTFS/tmp"/*
}

tearDown() {
        tsync_test_end
}

# prun [PODMAN RUN OPTIONS...] -- SCRIPT: podman run --rm with our hooks; output in $TSYNC_TMP/out, err; status $rc.
prun() {
        local OPTS ARGS
        tsync_split_dashes "$@"
        podman --hooks-dir "$HOOKS" run --rm --runtime runc --label tsync-test=$$ \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "${OPTS[@]}" --rootfs "$ROOTFS" /bin/sh -c "${ARGS[0]}" \
                </dev/null >"$TSYNC_TMP/out" 2>"$TSYNC_TMP/err"
        rc=$?
}

# issue 37: the node's hooks.d entry (packaging/examples/hooks.d-node-precreate.json, copied over the
# packaged one by name) runs precreate for every container: the node's layers (node.conf) go to a
# container that asks nothing; without a policy a container goes on as it is; a bad policy stops it.
testTheNodesHooksDEntryGivesEveryContainerTheNodesLayers() {
        local node="$TSYNC_TMP/hooks.d" bindir
        bindir=$(cd "$TSYNC_BUILD/bin" && pwd)
        cp -r "$HOOKS" "$node" || fail "hooks"
        sed "s|@BINDIR@|$bindir|" "$TSYNC_TOP/packaging/examples/hooks.d-node-precreate.json.in" |
                jq --arg p "$SUITE_TMP/profiles" --arg c "$SUITE_TMP/cache" --arg n "$TSYNC_TMP/node.conf" \
                        '.hook.args += ["--profile-dir", $p, "--cache-dir", $c, "--node-conf", $n]' \
                        >"$node/oci-seccomp-tsync-precreate.json" || fail "the node's entry"
        printf 'layers = deny-mkdir\n' >"$TSYNC_TMP/node.conf" && chmod 0644 "$TSYNC_TMP/node.conf"
        HOOKS=$node prun -- "$PROBE"
        assertEquals "$(cat "$TSYNC_TMP/err")" 0 "$rc"
        grep -q "mkdir: .*Disk quota exceeded" "$TSYNC_TMP/out" || fail "mkdir allowed: $(cat "$TSYNC_TMP/out")"
        assertEquals "init threads without the node's layer" "" "$(init_threads_without "$TSYNC_TMP/out" 2)"
        rm -f "$TSYNC_TMP/node.conf"
        HOOKS=$node prun -- 'grep -E "^Seccomp_filters" /proc/self/status; cat /proc/1/comm; mkdir /tmp/made && echo made'
        assertEquals "$(cat "$TSYNC_TMP/err")" 0 "$rc"
        assertEquals "no policy: as Podman alone runs it" "$(printf 'Seccomp_filters:\t1\nsh\nmade')" \
                "$(cat "$TSYNC_TMP/out")"
        printf 'layers = deny-mkdir\nlayers = deny-mkdir\n' >"$TSYNC_TMP/node.conf" && chmod 0644 "$TSYNC_TMP/node.conf"
        HOOKS=$node prun -- 'echo ran'
        assertNotEquals "a bad policy let the container run" 0 "$rc"
        assertEquals "ran anyway" "" "$(cat "$TSYNC_TMP/out")"
}

testAnnotationAddsALayerOnTopOfPodmansProfile() {
        prun --annotation io.oci-seccomp-tsync.layers=deny-mkdir -- "$PROBE"
        assertEquals "$(cat "$TSYNC_TMP/err")" 0 "$rc"
        grep -q "mkdir: .*Disk quota exceeded" "$TSYNC_TMP/out" || fail "$(cat "$TSYNC_TMP/out")"
        assertTrue "init threads listed" "grep -q '^init ' $TSYNC_TMP/out"
        assertEquals "" "$(init_threads_without "$TSYNC_TMP/out" 2)"
        grep -q "^Seccomp_filters: 2$" "$TSYNC_TMP/out" || fail "$(grep Seccomp "$TSYNC_TMP/out")"
        assertEquals "state left behind" "" "$(ls -A "$STATE")"
}

# precreate judges the init's calls against the layers and Podman's own profile: both come from
# the cache, so that a start after the first compiles nothing (issue 15: the hook's own start).
testPrecreateTakesPodmansOwnProfileFromTheCacheToo() {
        local HOOKS="$TSYNC_TMP/hooks.d" cache="$TSYNC_TMP/cache" before
        podman_hooks_dir "$HOOKS" "$SUITE_TMP/profiles" "$STATE" "$cache" || fail "hooks.d"
        prun --annotation io.oci-seccomp-tsync.layers=deny-mkdir -- "$PROBE"
        assertEquals "$(cat "$TSYNC_TMP/err")" 0 "$rc"
        # Podman's profile twice: under its canonical key and under its document's (tsync_cache_key_json).
        assertEquals "the layer and Podman's profile: $(ls "$cache")" 3 "$(ls "$cache" | wc -l)"
        before=$(stat -c '%n %i' "$cache"/* | sort)
        prun --annotation io.oci-seccomp-tsync.layers=deny-mkdir -- "$PROBE"
        assertEquals "$(cat "$TSYNC_TMP/err")" 0 "$rc"
        # A store replaces the file (a new inode): the same inodes mean both were cache hits.
        assertEquals "entries stored again" "$before" "$(stat -c '%n %i' "$cache"/* | sort)"
}

testContainerWithoutTheAnnotationIsUntouched() {
        prun -- "$PROBE"
        assertEquals 0 "$rc"
        grep -q "mkdir: ok" "$TSYNC_TMP/out" || fail "$(cat "$TSYNC_TMP/out")"
        grep -q "^Seccomp_filters: 1$" "$TSYNC_TMP/out" || fail "$(grep Seccomp "$TSYNC_TMP/out")"
}

testPodmanExecKeepsTheBaseline() {
        podman --hooks-dir "$HOOKS" run -d --name tsync-exec-$$ --runtime runc --label tsync-test=$$ \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
                --annotation io.oci-seccomp-tsync.layers=deny-mkdir --rootfs "$ROOTFS" /bin/sleep 60 >/dev/null ||
                fail "podman run -d"
        out=$(podman exec tsync-exec-$$ /bin/grep -E '^Seccomp_filters:' /proc/self/status | tr '\t' ' ')
        assertEquals "Seccomp_filters: 1" "$out"
        init=$(podman exec tsync-exec-$$ /bin/grep -E '^Seccomp_filters:' /proc/1/status | tr '\t' ' ')
        assertEquals "Seccomp_filters: 2" "$init"
        podman rm -f tsync-exec-$$ >/dev/null
}

testReplaceModeByAnnotationEnforcesTheSeccompOption() {
        prun --security-opt seccomp="$PROFILES/deny-mkdir.json" -- "$PROBE"
        assertEquals 0 "$rc"
        plain_filters=$(grep '^Seccomp_filters' "$TSYNC_TMP/out")
        prun --security-opt seccomp="$PROFILES/deny-mkdir.json" --annotation io.oci-seccomp-tsync.mode=replace -- "$PROBE"
        assertEquals "$(cat "$TSYNC_TMP/err")" 0 "$rc"
        assertEquals "$plain_filters" "$(grep '^Seccomp_filters' "$TSYNC_TMP/out")"
        grep -q "mkdir: .*Disk quota exceeded" "$TSYNC_TMP/out" || fail "$(cat "$TSYNC_TMP/out")"
        assertEquals "" "$(init_threads_without "$TSYNC_TMP/out" 1)"
        # Podman hides the hook's stderr: the warning reaches the user on the container's, once.
        assertEquals "seccomp-tsync-init: replace mode: warning: linux.seccomp applies only to this container's init and its children; processes an engine's exec starts (podman exec) run without it" \
                "$(cat "$TSYNC_TMP/err")"
        # Layer mode says nothing of it.
        prun --annotation io.oci-seccomp-tsync.layers=deny-mkdir -- ':'
        assertEquals 0 "$rc"
        assertEquals "" "$(cat "$TSYNC_TMP/err")"
}

testLayerNameThatEscapesTheProfileDirectoryIsRefused() {
        prun --annotation io.oci-seccomp-tsync.layers=../../../etc/passwd -- "touch /tmp/marker"
        assertNotEquals 0 "$rc"
        assertFalse "the workload ran" "[ -e $ROOTFS/tmp/marker ]"
        grep -q "precreate hook" "$TSYNC_TMP/err" || fail "$(cat "$TSYNC_TMP/err")"
        # Podman does not show a hook's stderr; the same stage run by hand says why.
        jq -n '{ociVersion: "1.0.2", process: {args: ["sh"]}, annotations: {"io.oci-seccomp-tsync.layers": "../../../etc/passwd"}}' |
                "$OCI" hook precreate --profile-dir "$SUITE_TMP/profiles" --state-root "$STATE" >/dev/null 2>"$TSYNC_TMP/err"
        assertEquals 1 $?
        grep -q "'../../../etc/passwd' is not a profile name" "$TSYNC_TMP/err" || fail "$(cat "$TSYNC_TMP/err")"
        prun --annotation io.oci-seccomp-tsync.layers=no-such-profile -- "touch /tmp/marker"
        assertNotEquals 0 "$rc"
        assertFalse "the workload ran" "[ -e $ROOTFS/tmp/marker ]"
        assertEquals "state left behind" "" "$(ls -A "$STATE")"
}

testEveryThreadOfAMultithreadedWorkloadIsFiltered() {
        prun --annotation io.oci-seccomp-tsync.layers=deny-mkdir -- "exec /bin/threads_probe -n 8 mkdir /tmp/t"
        assertEquals "$(cat "$TSYNC_TMP/err")" 0 "$rc"
        assert_threads_denied "$TSYNC_TMP/out" 9
}

testDockerFormatLayerByNameAndExitCodePassThrough() {
        prun --annotation 'io.oci-seccomp-tsync.layers=containers-default;deny-mkdir' -- "$PROBE; exit 42"
        assertEquals "$(cat "$TSYNC_TMP/err")" 42 "$rc"
        assertEquals "" "$(init_threads_without "$TSYNC_TMP/out" 3)"
        grep -q "mkdir: .*Disk quota exceeded" "$TSYNC_TMP/out" || fail "$(cat "$TSYNC_TMP/out")"
}

testBrokenLayerStopsTheContainer() {
        prun --annotation io.oci-seccomp-tsync.layers=broken -- "touch /tmp/marker"
        assertNotEquals 0 "$rc"
        assertFalse "the workload ran" "[ -e $ROOTFS/tmp/marker ]"
        assertEquals "state left behind" "" "$(ls -A "$STATE")"
}

testPodmanStopDeliversSigtermToTheWorkload() {
        podman --hooks-dir "$HOOKS" run -d --name tsync-stop-$$ --runtime runc --label tsync-test=$$ \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
                --annotation io.oci-seccomp-tsync.layers=deny-mkdir --rootfs "$ROOTFS" \
                /bin/sh -c "trap 'echo got-term > /tmp/term; exit 7' TERM; touch /tmp/ready; while :; do sleep 0.1; done" \
                >/dev/null || fail "podman run -d"
        for _ in $(seq 100); do [ -e "$ROOTFS/tmp/ready" ] && break; sleep 0.05; done
        podman stop -t 10 tsync-stop-$$ >/dev/null
        assertEquals "got-term" "$(cat "$ROOTFS/tmp/term" 2>/dev/null)"
        assertEquals 7 "$(podman inspect --format '{{.State.ExitCode}}' tsync-stop-$$)"
        podman rm -f tsync-stop-$$ >/dev/null
}

podman_parity() {
        prun "$@" -- "$PROBE"
        assertEquals "plain: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        cap_lines "$TSYNC_TMP/out" >"$TSYNC_TMP/plain.caps"
        prun "$@" --annotation io.oci-seccomp-tsync.layers=deny-mkdir -- "$PROBE"
        assertEquals "ours: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        assertEquals "$*" "$(cat "$TSYNC_TMP/plain.caps")" "$(cap_lines "$TSYNC_TMP/out")"
        assertEquals 6 "$(wc -l <"$TSYNC_TMP/plain.caps")"
}

# issue 40: Podman puts the hooks.d createRuntime entry in the config before precreate runs, so
# precreate takes it out when the plan needs nothing of it (nothing lent, no agent, no recording):
# the start runs one process less. Lent capabilities keep it (the exec view takes them back).
testPrecreateDropsTheCreateRuntimeHookOnlyWhenNothingNeedsIt() {
        local name=tsync-nohook-$$ hooks
        # ours_in NAME: our hooks' stages in the config Podman gave the runtime.
        ours_in() {
                jq -r '.hooks // {} | to_entries[] | select(any(.value[]; .args[0] == "oci-seccomp-tsync")) | .key' \
                        "$(podman inspect --format '{{.OCIConfigPath}}' "$1")"
        }
        podman --hooks-dir "$HOOKS" run -d --name "$name" --runtime runc --label tsync-test=$$ \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --security-opt no-new-privileges \
                --annotation io.oci-seccomp-tsync.layers=deny-mkdir --rootfs "$ROOTFS" /bin/sleep 60 >/dev/null ||
                fail "podman run -d"
        hooks=$(ours_in "$name")
        assertEquals "nothing lent: our hooks in the config" "" "$hooks"
        assertEquals "the layer applies without the hook" "Seccomp_filters: 2" \
                "$(podman exec "$name" /bin/grep -E '^Seccomp_filters:' /proc/1/status | tr '\t' ' ')"
        podman rm -f "$name" >/dev/null
        prun --security-opt no-new-privileges --annotation io.oci-seccomp-tsync.layers=deny-mkdir -- "$PROBE"
        assertEquals "$(cat "$TSYNC_TMP/err")" 0 "$rc"
        grep -q "mkdir: .*Disk quota exceeded" "$TSYNC_TMP/out" || fail "mkdir allowed: $(cat "$TSYNC_TMP/out")"
        assertEquals "" "$(init_threads_without "$TSYNC_TMP/out" 2)"
        podman --hooks-dir "$HOOKS" run -d --name "$name" --runtime runc --label tsync-test=$$ \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
                --annotation io.oci-seccomp-tsync.layers=deny-mkdir --rootfs "$ROOTFS" /bin/sleep 60 >/dev/null ||
                fail "podman run -d"
        assertEquals "capabilities lent: our hooks in the config" "createRuntime" "$(ours_in "$name")"
        podman rm -f "$name" >/dev/null
}

testCapabilitiesMatchAPlainPodmanRunForRoot() {
        podman_parity
}

testCapabilitiesMatchAPlainPodmanRunForUser1000() {
        podman_parity --user 1000:1000
}

testCapabilitiesMatchAPlainPodmanRunWithNoNewPrivileges() {
        podman_parity --security-opt no-new-privileges --user 1000:1000
}

# Exec once (issue 12) by annotation alone: the hooks.d files fire on it, and the errno named in
# it is what a later exec gets.
testExecAnnotationAloneRefusesEveryExecAfterTheWorkloadsStart() {
        prun --annotation io.oci-seccomp-tsync.exec=once:EACCES -- 'echo started; /bin/ls / >/dev/null; echo "ls=$?"'
        assertEquals "$(cat "$TSYNC_TMP/err")" 0 "$rc"
        assertContains "$(cat "$TSYNC_TMP/out")" "started"
        assertContains "$(cat "$TSYNC_TMP/out")" "ls=126"
        assertContains "$(cat "$TSYNC_TMP/err")" "/bin/ls: Permission denied"
        assertEquals "state left behind" "" "$(ls -A "$STATE")"
}

. shunit2
