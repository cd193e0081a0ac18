#!/bin/bash
# oci-seccomp-tsync-runtime called as an engine calls runc: global options
# before the command, create/run rewritten, everything else passed through to
# the real runtime (runc 1.1.5, or crun 1.8.1 in its cgroup2 namespace).
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"

setUp() {
        tsync_test_begin
        tsync_need_built "$RUNTIME" "$INIT" "$OCI" "$THREADS"
        : >"$TSYNC_TMP/runtime.conf"
        ID=$(tsync_unique_id rt)
}

tearDown() {
        if [ -n "$TSYNC_TMP" ] && [ -d "$TSYNC_TMP/root" ]; then
                runc --root "$TSYNC_TMP/root" delete --force "$ID" >/dev/null 2>&1
        fi
        tsync_test_end
}

# ours ARGS...: the runtime with this test's config file, node policy (none unless a test writes
# it: never the host's), profiles and cache.
ours() {
        "$RUNTIME" --runtime-config="$TSYNC_TMP/runtime.conf" --node-conf="$TSYNC_TMP/node.conf" \
                --profile-dir="$PROFILES" --cache-dir="$TSYNC_TMP/cache" "$@"
}

# node_conf LINE...: this test's node policy (node.conf), root's alone.
node_conf() {
        printf '%s\n' "$@" >"$TSYNC_TMP/node.conf" && chmod 0644 "$TSYNC_TMP/node.conf"
}

# bundle DIR SCRIPT: runc spec's config running `sh -c SCRIPT`, threads_probe in the rootfs.
bundle() {
        make_rootfs "$1/rootfs" "$THREADS" && make_bundle "$1" /bin/sh -c "$2"
}

# run_ours ID BUNDLE ARGS...: `ours ARGS... run -b BUNDLE ID` in the foreground; $rc, ID.out, ID.err.
run_ours() {
        local id=$1 b=$2
        shift 2
        _tsync_register runc "$id"
        ours "$@" run -b "$b" "$id" </dev/null >"$TSYNC_TMP/$id.out" 2>"$TSYNC_TMP/$id.err"
        rc=$?
        _tsync_remove_container runc "$id"
        _tsync_unregister runc "$id"
}

testAConfigWithoutOurSettingsRunsUntouchedByteForByte() {
        bundle "$TSYNC_TMP/b" 'grep -E "^Seccomp_filters" /proc/1/status; tr "\0" " " </proc/1/cmdline; echo' ||
                fail "bundle"
        cp "$TSYNC_TMP/b/config.json" "$TSYNC_TMP/before.json"
        run_ours "$ID" "$TSYNC_TMP/b"
        assertEquals "$(cat "$TSYNC_TMP/$ID.err")" 0 "$rc"
        cmp -s "$TSYNC_TMP/before.json" "$TSYNC_TMP/b/config.json" || fail "config.json was changed"
        grep -q "^Seccomp_filters:.0$" "$TSYNC_TMP/$ID.out" || fail "filters: $(cat "$TSYNC_TMP/$ID.out")"
        grep -q "^/bin/sh" "$TSYNC_TMP/$ID.out" || fail "PID 1 is not the workload: $(cat "$TSYNC_TMP/$ID.out")"
}

testAConfigWeCannotParseThatDoesNotNameUsGoesToRuncUntouched() {
        bundle "$TSYNC_TMP/b" 'echo ran' || fail "bundle"
        # Go's decoder takes the last of two equal keys; ours refuses them.
        sed -i '1s/^{/{"ociVersion": "1.0.0",/' "$TSYNC_TMP/b/config.json"
        cp "$TSYNC_TMP/b/config.json" "$TSYNC_TMP/before.json"
        run_ours "$ID" "$TSYNC_TMP/b"
        assertEquals "$(cat "$TSYNC_TMP/$ID.err")" 0 "$rc"
        assertEquals "ran" "$(cat "$TSYNC_TMP/$ID.out")"
        cmp -s "$TSYNC_TMP/before.json" "$TSYNC_TMP/b/config.json" || fail "config.json was changed"
}

testTheRuntimesLayersHoldOnEveryThreadOfInitAndWorkload() {
        bundle "$TSYNC_TMP/b" "$PROBE; exec /bin/threads_probe -n 4 mkdir /tmp/t" || fail "bundle"
        # As Docker starts containers: capabilities and no NO_NEW_PRIVS (the init is lent CAP_SYS_ADMIN).
        tsync_json_edit "$TSYNC_TMP/b/config.json" '.process.noNewPrivileges = false' || fail "edit"
        run_ours "$ID" "$TSYNC_TMP/b" --layers=deny-mkdir
        out="$TSYNC_TMP/$ID.out"
        assertEquals "$(cat "$TSYNC_TMP/$ID.err")" 0 "$rc"
        assertTrue "no init threads listed" "grep -q '^init ' $out"
        assertEquals "init threads without the layer" "" "$(init_threads_without "$out" 1)"
        assertEquals "threads reported" 5 "$(grep -c '^tid=' "$out")"
        assertEquals "threads where mkdir was not denied with EDQUOT" "" \
                "$(grep '^tid=' "$out" | grep -v 'Seccomp_filters=1 .*call=mkdir rc=-1 errno=122' || true)"
        # The engine writes config.json anew at every start (a config with our plan is refused), so
        # createRuntime's exec view is neither synced nor lent back by a poststop hook.
        assertEquals "createRuntime keeps lent capabilities from runc exec, unsynced; no poststop" \
                '{"createRuntime":["oci-seccomp-tsync","hook","createRuntime","--no-sync"]}' \
                "$(jq -c '.hooks | map_values(map(.args) | add)' "$TSYNC_TMP/b/config.json")"
        assertEquals "the exec view stays: the original sets, the container's id" "$ID false" \
                "$(jq -r '[.annotations["io.oci-seccomp-tsync.running"],
                        (.process.capabilities.bounding | index("CAP_SYS_ADMIN") != null)] | join(" ")' \
                        "$TSYNC_TMP/b/config.json")"
}

# The engine's config.json is rewritten in place (no rename: on ext4 a rename over it starts its
# writeback): the same file, its mode kept. A file with another name is replaced instead, so that
# name keeps the engine's text. A torn rewrite (the wrapper killed midway: the new text's start
# over the old text) starts nothing, through us or through runc itself.
testTheConfigIsRewrittenInPlaceUnlessItHasAnotherName() {
        bundle "$TSYNC_TMP/b" 'echo ran' || fail "bundle"
        chmod 0604 "$TSYNC_TMP/b/config.json"
        cp "$TSYNC_TMP/b/config.json" "$TSYNC_TMP/engine.json"
        ino=$(stat -c %i "$TSYNC_TMP/b/config.json")
        run_ours "$ID" "$TSYNC_TMP/b" --layers=deny-mkdir
        assertEquals "$(cat "$TSYNC_TMP/$ID.err")" 0 "$rc"
        assertEquals "ran" "$(cat "$TSYNC_TMP/$ID.out")"
        assertEquals "the same file, its mode kept" "$ino 604" "$(stat -c '%i %a' "$TSYNC_TMP/b/config.json")"
        jq -e '.process.args[0] == "/.oci-seccomp-tsync/init"' "$TSYNC_TMP/b/config.json" >/dev/null ||
                fail "not rewritten: $(jq -c .process.args "$TSYNC_TMP/b/config.json")"

        cp "$TSYNC_TMP/engine.json" "$TSYNC_TMP/b/config.json"
        ln "$TSYNC_TMP/b/config.json" "$TSYNC_TMP/other-name.json"
        run_ours "$ID-2" "$TSYNC_TMP/b" --layers=deny-mkdir
        assertEquals "$(cat "$TSYNC_TMP/$ID-2.err")" 0 "$rc"
        cmp -s "$TSYNC_TMP/engine.json" "$TSYNC_TMP/other-name.json" || fail "the other name was rewritten too"
        jq -e '.process.args[0] == "/.oci-seccomp-tsync/init"' "$TSYNC_TMP/b/config.json" >/dev/null ||
                fail "not rewritten through a new file"

        # What a kill midway leaves: the first half of our text over the engine's, its tail kept.
        local ours_len half
        ours_len=$(stat -c %s "$TSYNC_TMP/b/config.json")
        half=$((ours_len / 2))
        { head -c "$half" "$TSYNC_TMP/b/config.json" && tail -c "+$((half + 1))" "$TSYNC_TMP/engine.json"; } \
                >"$TSYNC_TMP/torn.json" || fail "torn"
        rm -f "$TSYNC_TMP/b/config.json" "$TSYNC_TMP/other-name.json"
        cp "$TSYNC_TMP/torn.json" "$TSYNC_TMP/b/config.json"
        run_ours "$ID-3" "$TSYNC_TMP/b" --layers=deny-mkdir
        assertNotEquals "a torn config started through us" 0 "$rc"
        assertEquals "one line saying why" 1 "$(grep -c "oci-seccomp-tsync: $ID-3: " "$TSYNC_TMP/$ID-3.err")"
        cp "$TSYNC_TMP/torn.json" "$TSYNC_TMP/b/config.json"
        _tsync_register runc "$ID-4"
        runc run -b "$TSYNC_TMP/b" "$ID-4" </dev/null >"$TSYNC_TMP/$ID-4.out" 2>&1
        rc=$?
        _tsync_remove_container runc "$ID-4"
        _tsync_unregister runc "$ID-4"
        assertNotEquals "a torn config started under runc itself" 0 "$rc"
        assertNotContains "$(cat "$TSYNC_TMP/$ID-4.out")" "ran"
}

# mkdir_and_getcwd_denied: run_ours's container ran with two layers, deny-mkdir then deny-getcwd,
# each holding on its threads.
mkdir_and_getcwd_denied() {
        local out="$TSYNC_TMP/$ID.out"
        assertEquals "$(cat "$TSYNC_TMP/$ID.err")" 0 "$rc"
        grep -q "^Seccomp_filters:.2$" "$out" || fail "filters: $(cat "$out")"
        grep -q "Disk quota exceeded" "$TSYNC_TMP/$ID.err" || fail "mkdir allowed: $(cat "$TSYNC_TMP/$ID.err")"
        assertEquals "threads where getcwd was not denied" "" \
                "$(grep '^tid=' "$out" | grep -v 'call=getcwd rc=-1 errno=123' || true)"
        assertEquals "layers in the plan" '["deny-mkdir","deny-getcwd"]' \
                "$(jq -c '.annotations["io.oci-seccomp-tsync.plan"] | fromjson | .layers' "$TSYNC_TMP/b/config.json")"
}

testAnnotationLayersComeAfterTheRuntimesOwn() {
        bundle "$TSYNC_TMP/b" 'grep -E "^Seccomp_filters" /proc/self/status; mkdir /tmp/d; /bin/threads_probe -n 1 getcwd' ||
                fail "bundle"
        tsync_json_edit "$TSYNC_TMP/b/config.json" '.annotations["io.oci-seccomp-tsync.layers"] = "deny-getcwd"' ||
                fail "edit"
        run_ours "$ID" "$TSYNC_TMP/b" --layers=deny-mkdir
        mkdir_and_getcwd_denied
}

testGlobalOptionsBeforeTheCommandReachRuncAndCreateStartStateDelete() {
        bundle "$TSYNC_TMP/b" 'mkdir /tmp/d 2>/tmp/err; cat /tmp/err; sleep 30' || fail "bundle"
        mkdir "$TSYNC_TMP/root"
        local g=(--root "$TSYNC_TMP/root" --log "$TSYNC_TMP/log.json" --log-format json --rootless false
                --criu /nonexistent/criu --debug)
        ours --layers=deny-mkdir "${g[@]}" create --bundle "$TSYNC_TMP/b" --pid-file "$TSYNC_TMP/pid" "$ID" \
                </dev/null >"$TSYNC_TMP/out" 2>&1 || fail "create: $(cat "$TSYNC_TMP/out")"
        assertEquals "created" "$(ours "${g[@]}" state "$ID" | jq -r .status)"
        ours "${g[@]}" start "$ID" || fail "start"
        assertEquals "running" "$(ours "${g[@]}" state "$ID" | jq -r .status)"
        # exec goes through our init too (test_runtime_exec.sh): the process as a file.
        jq -n '{args: ["/bin/grep", "Seccomp_filters", "/proc/1/status"], cwd: "/", user: {uid: 0, gid: 0}}' \
                >"$TSYNC_TMP/process.json"
        out=$(ours "${g[@]}" exec --process "$TSYNC_TMP/process.json" "$ID" | tr -d '\t')
        assertEquals "Seccomp_filters:1" "$out"
        assertTrue "runc --debug wrote to its json log" "grep -q '\"level\":\"debug\"' $TSYNC_TMP/log.json"
        ours "${g[@]}" kill "$ID" KILL && sleep 0.2
        ours "${g[@]}" delete --force "$ID" || fail "delete"
        assertFalse "still listed" "runc --root $TSYNC_TMP/root list -q | grep -qx $ID"
}

# A recording (issue 27): the wrapper prepares it at create as precreate does (a root-only
# directory, our createRuntime hook for the relay) and writes the profile at delete, once runc's
# delete succeeded (no poststop hook is added).
# rec_create SCRIPT: $ID created and started by the wrapper under $TSYNC_TMP/root, recording into
# $TSYNC_TMP/rec/p.json; $REC_DIR is the recording's directory.
rec_create() {
        bundle "$TSYNC_TMP/b" "$1" || return 1
        tsync_json_edit "$TSYNC_TMP/b/config.json" '.annotations["io.oci-seccomp-tsync.record"] = $v' \
                --arg v "of:$TSYNC_TMP/rec/p.json" || return 1
        mkdir -p "$TSYNC_TMP/root" "$TSYNC_TMP/rec"
        # A directory of its own: record-dir may not hold the cache (issue 35).
        echo "record-dir = $TSYNC_TMP/rec" >>"$TSYNC_TMP/runtime.conf"
        _tsync_register runc "$ID"
        ours --root "$TSYNC_TMP/root" create --bundle "$TSYNC_TMP/b" "$ID" </dev/null >"$TSYNC_TMP/out" 2>&1 || {
                tsync_log "create: $(cat "$TSYNC_TMP/out")"
                return 1
        }
        REC_DIR=$(jq -r '.annotations["io.oci-seccomp-tsync.plan"] | fromjson | .record.dir' "$TSYNC_TMP/b/config.json")
        ours --root "$TSYNC_TMP/root" start "$ID"
}

# rec_wait_stopped: polls runc's state until the workload has ended.
rec_wait_stopped() {
        local i
        for i in $(seq 200); do
                [ "$(runc --root "$TSYNC_TMP/root" state "$ID" | jq -r .status)" = stopped ] && return 0
                sleep 0.05
        done
        return 1
}

testARecordingBecomesItsProfileAtDelete() {
        rec_create 'mkdir /tmp/d; echo done' || fail "create and start"
        case "$REC_DIR" in /var/lib/oci-seccomp-tsync/record/*) ;; *) fail "the recording's directory: $REC_DIR" ;; esac
        assertEquals "root's alone" "0:0 700" "$(stat -c '%u:%g %a' "$REC_DIR")"
        assertEquals "no poststop of ours: delete writes it" null "$(jq -c .hooks.poststop "$TSYNC_TMP/b/config.json")"
        rec_wait_stopped || fail "the workload never ended"
        assertFalse "no profile before delete" "[ -e $TSYNC_TMP/rec/p.json ]"
        ours --root "$TSYNC_TMP/root" delete "$ID" >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "delete: $(cat "$TSYNC_TMP/out")" 0 "$rc"
        _tsync_unregister runc "$ID"
        assertEquals "nothing said" "" "$(cat "$TSYNC_TMP/out")"
        assertFalse "still listed" "runc --root $TSYNC_TMP/root list -q | grep -qx $ID"
        jq -r '.syscalls[].names[]' "$TSYNC_TMP/rec/p.json" >"$TSYNC_TMP/names" || fail "no profile: $(cat "$TSYNC_TMP/out")"
        grep -qx mkdir "$TSYNC_TMP/names" || fail "mkdir is not in the profile: $(paste -sd' ' "$TSYNC_TMP/names")"
        assertEquals "SCMP_ACT_ERRNO" "$(jq -r .defaultAction "$TSYNC_TMP/rec/p.json")"
        assertFalse "the recording's directory is gone" "[ -e $REC_DIR ]"
}

# A delete that fails (the workload still runs) writes nothing and keeps the record; delete
# --force kills the workload and writes it.
testAFailedDeleteKeepsTheRecordAndDeleteForceWritesIt() {
        rec_create 'mkdir /tmp/d; exec sleep 300' || fail "create and start"
        ours --root "$TSYNC_TMP/root" delete "$ID" >"$TSYNC_TMP/out" 2>&1
        assertNotEquals "delete of a running container: runc's refusal" 0 $?
        assertNotContains "$(cat "$TSYNC_TMP/out")" "oci-seccomp-tsync"
        assertFalse "no profile" "[ -e $TSYNC_TMP/rec/p.json ]"
        assertTrue "the record is kept" "[ -d $REC_DIR ]"
        assertEquals "running" "$(runc --root "$TSYNC_TMP/root" state "$ID" | jq -r .status)"
        ours --root "$TSYNC_TMP/root" delete --force "$ID" >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "delete --force: $(cat "$TSYNC_TMP/out")" 0 "$rc"
        _tsync_unregister runc "$ID"
        jq -r '.syscalls[].names[]' "$TSYNC_TMP/rec/p.json" | grep -qx mkdir || fail "mkdir is not in the profile"
        assertFalse "the recording's directory is gone" "[ -e $REC_DIR ]"
}

# A profile that cannot be written is said in one line, in runc's --log too, and delete fails;
# the container is deleted all the same and only the raw calls stay, root's alone.
testAProfileThatCannotBeWrittenFailsDeleteWithOneLine() {
        rec_create 'mkdir /tmp/d' || fail "create and start"
        rec_wait_stopped || fail "the workload never ended"
        mkdir "$TSYNC_TMP/rec/p.json"
        ours --root "$TSYNC_TMP/root" --log "$TSYNC_TMP/log.json" --log-format json delete "$ID" \
                >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "delete: $(cat "$TSYNC_TMP/out")" 1 "$rc"
        _tsync_unregister runc "$ID"
        assertEquals "one line: $(cat "$TSYNC_TMP/out")" 1 "$(grep -c . "$TSYNC_TMP/out")"
        assertContains "$(cat "$TSYNC_TMP/out")" "oci-seccomp-tsync: $ID: recording: "
        assertContains "$(cat "$TSYNC_TMP/out")" "the raw calls stay in $REC_DIR/calls"
        assertEquals "in the log" error "$(jq -r 'select(.msg | contains("recording:")) | .level' "$TSYNC_TMP/log.json")"
        assertFalse "still listed" "runc --root $TSYNC_TMP/root list -q | grep -qx $ID"
        assertEquals "only the calls stay" calls "$(ls -A "$REC_DIR")"
        rm -rf "$REC_DIR"
}

# A config that cannot be believed at delete (writable by others since create) is said, and the
# container deleted all the same: the workload has ended, only its profile is not written.
testAConfigNoLongerOursAtDeleteIsSaidAndTheContainerStillDeleted() {
        rec_create 'mkdir /tmp/d' || fail "create and start"
        rec_wait_stopped || fail "the workload never ended"
        chmod g+w "$TSYNC_TMP/b/config.json"
        ours --root "$TSYNC_TMP/root" delete "$ID" >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "delete: $(cat "$TSYNC_TMP/out")" 0 "$rc"
        _tsync_unregister runc "$ID"
        assertEquals "one line: $(cat "$TSYNC_TMP/out")" 1 "$(grep -c . "$TSYNC_TMP/out")"
        assertContains "$(cat "$TSYNC_TMP/out")" "oci-seccomp-tsync: $ID: warning: recording: cannot read the container's plan: "
        assertFalse "still listed" "runc --root $TSYNC_TMP/root list -q | grep -qx $ID"
        assertFalse "no profile" "[ -e $TSYNC_TMP/rec/p.json ]"
        rm -rf "$REC_DIR"
}

testPassThroughCommandsGiveRuncsOutputAndExitStatus() {
        mkdir "$TSYNC_TMP/root"
        local args
        for args in "--root $TSYNC_TMP/root list" "--root $TSYNC_TMP/root state nosuch-$ID" \
                "features" "--root $TSYNC_TMP/root kill nosuch-$ID KILL" "nosuchcommand"; do
                # shellcheck disable=SC2086 # word splitting wanted
                runc $args >"$TSYNC_TMP/runc.out" 2>&1
                want=$?
                # shellcheck disable=SC2086
                ours $args >"$TSYNC_TMP/ours.out" 2>&1
                got=$?
                assertEquals "exit status of '$args'" "$want" "$got"
                assertEquals "output of '$args'" "$(sed 's/time="[^"]*"//' "$TSYNC_TMP/runc.out")" \
                        "$(sed 's/time="[^"]*"//' "$TSYNC_TMP/ours.out")"
        done
        out=$(ours --layers=deny-mkdir create --help 2>&1)
        assertContains "create --help is runc's" "$out" "--bundle value"
}

testVersionAndHelpPrintOursThenTheRealRuntimes() {
        local args runc_path version
        runc_path=$(command -v runc)
        version=$("$OCI" --version | cut -d' ' -f2)
        for args in "--version" "-v" "--help" "-h" ""; do
                # shellcheck disable=SC2086 # word splitting wanted
                runc $args >"$TSYNC_TMP/runc.out" 2>&1
                want=$?
                # shellcheck disable=SC2086
                ours $args >"$TSYNC_TMP/ours.out" 2>&1
                got=$?
                assertEquals "exit status of '$args'" "$want" "$got"
                case "$args" in
                -v | --version)
                        assertEquals "ours of '$args'" "oci-seccomp-tsync-runtime version $version
the real runtime: $runc_path" "$(head -n 2 "$TSYNC_TMP/ours.out")"
                        assertEquals "runc's of '$args'" "$(cat "$TSYNC_TMP/runc.out")" \
                                "$(tail -n +3 "$TSYNC_TMP/ours.out")"
                        ;;
                *)
                        assertEquals "ours of '$args'" \
                                "Usage: oci-seccomp-tsync-runtime [OUR OPTIONS] [RUNTIME'S GLOBAL OPTIONS] COMMAND [ARGS...]" \
                                "$(head -n 1 "$TSYNC_TMP/ours.out")"
                        grep -q -- "--layers=NAMES" "$TSYNC_TMP/ours.out" || fail "our options: $(cat "$TSYNC_TMP/ours.out")"
                        assertEquals "runc's of '$args'" "$(cat "$TSYNC_TMP/runc.out")" \
                                "$(sed "1,/^The real runtime, ${runc_path//\//\\/}:\$/d" "$TSYNC_TMP/ours.out" | sed 1d)"
                        ;;
                esac
        done
}

# A program that records its arguments, then runs runc: which runtime a command reached.
fake_runtime() {
        mkdir -p "$TSYNC_TMP/bin" &&
                printf '#!/bin/sh\necho "$*" >>%s/calls\nexec %s "$@"\n' "$TSYNC_TMP" "$(command -v runc)" \
                        >"$TSYNC_TMP/bin/myrunc" && chmod 0755 "$TSYNC_TMP/bin/myrunc"
}

testABrokenConfigFileRefusesCreateButLetsTheContainerBeStoppedByItsRuntime() {
        bundle "$TSYNC_TMP/b" 'sleep 3600' || fail "bundle"
        fake_runtime || fail "fake runtime"
        mkdir "$TSYNC_TMP/root"
        local g=(--root "$TSYNC_TMP/root")
        printf 'runtime = %s\nlayers = deny-mkdir\n' "$TSYNC_TMP/bin/myrunc" >"$TSYNC_TMP/runtime.conf"
        _tsync_register runc "$ID"
        ours "${g[@]}" run -d -b "$TSYNC_TMP/b" "$ID" </dev/null >"$TSYNC_TMP/out" 2>&1 || fail "run -d: $(cat "$TSYNC_TMP/out")"
        # A typo added later: creating is refused with its line...
        printf 'runtime = %s\nlayers = deny-mkdir\nmodes = layer\n' "$TSYNC_TMP/bin/myrunc" >"$TSYNC_TMP/runtime.conf"
        ours "${g[@]}" create -b "$TSYNC_TMP/b" "$ID-2" </dev/null >"$TSYNC_TMP/out" 2>"$TSYNC_TMP/err"
        assertEquals 1 $?
        assertEquals "oci-seccomp-tsync: $TSYNC_TMP/runtime.conf: line 3: 'modes' is not a setting (runtime, layers, mode, profile-dir, cache-dir, no-cache, record-dir)" \
                "$(cat "$TSYNC_TMP/err")"
        assertFalse "created" "runc ${g[*]} state $ID-2 >/dev/null 2>&1"
        # ... but the running container is still the runtime's (the file's own line) to stop, with clean output.
        : >"$TSYNC_TMP/calls"
        ours "${g[@]}" state "$ID" >"$TSYNC_TMP/out" 2>"$TSYNC_TMP/err"
        last_rc=$?
        assertEquals "state: $(cat "$TSYNC_TMP/err")" 0 "$last_rc"
        assertEquals "" "$(cat "$TSYNC_TMP/err")"
        assertEquals "running" "$(jq -r .status "$TSYNC_TMP/out")"
        ours "${g[@]}" ps "$ID" >/dev/null 2>"$TSYNC_TMP/err" || fail "ps: $(cat "$TSYNC_TMP/err")"
        ours "${g[@]}" pause "$ID" 2>"$TSYNC_TMP/err" || fail "pause: $(cat "$TSYNC_TMP/err")"
        ours "${g[@]}" resume "$ID" 2>"$TSYNC_TMP/err" || fail "resume: $(cat "$TSYNC_TMP/err")"
        ours "${g[@]}" list -q >"$TSYNC_TMP/out" 2>"$TSYNC_TMP/err" || fail "list: $(cat "$TSYNC_TMP/err")"
        assertEquals "$ID" "$(cat "$TSYNC_TMP/out")"
        # The owner and mode are checked all the same: a file others can write names no program for root.
        chmod g+w "$TSYNC_TMP/runtime.conf"
        ours "${g[@]}" kill "$ID" KILL 2>"$TSYNC_TMP/err" || fail "kill: $(cat "$TSYNC_TMP/err")"
        chmod g-w "$TSYNC_TMP/runtime.conf"
        for _ in $(seq 100); do
                [ "$(runc "${g[@]}" state "$ID" 2>/dev/null | jq -r .status)" = stopped ] && break
                sleep 0.1
        done
        ours "${g[@]}" delete "$ID" 2>"$TSYNC_TMP/err" || fail "delete: $(cat "$TSYNC_TMP/err")"
        assertFalse "still there" "runc ${g[*]} state $ID >/dev/null 2>&1"
        # Every command went through the runtime that created it (kill too, the file refused whole: its
        # record); delete asks it for the container's bundle first (a recording is written at delete).
        assertEquals "state ps pause resume list kill state delete" \
                "$(sed -E 's/^--root [^ ]+ ([a-z]+).*/\1/' "$TSYNC_TMP/calls" | tr '\n' ' ' | sed 's/ $//')"
}

# started ID: `run -d` of a sleeping container under $TSYNC_TMP/root by the runtime myrunc (the config
# file's line); $REC is the record of its runtime the wrapper keeps.
started() {
        bundle "$TSYNC_TMP/b" 'sleep 3600' || fail "bundle"
        fake_runtime || fail "fake runtime"
        mkdir -p "$TSYNC_TMP/root"
        printf 'runtime = %s\n' "$TSYNC_TMP/bin/myrunc" >"$TSYNC_TMP/runtime.conf"
        _tsync_register runc "$1"
        ours --root "$TSYNC_TMP/root" run -d -b "$TSYNC_TMP/b" "$1" </dev/null >"$TSYNC_TMP/out" 2>&1 ||
                fail "run -d: $(cat "$TSYNC_TMP/out")"
        REC=$(ls -d /run/oci-seccomp-tsync/runtime/*/"$1")
        assertEquals "$TSYNC_TMP/bin/myrunc" "$(head -n1 "$REC")"
        assertEquals "600 0" "$(stat -c '%a %u' "$REC")"
        : >"$TSYNC_TMP/calls"
}

# stop_by ID: kill and delete through the wrapper; $TSYNC_TMP/err holds their stderr.
stop_by() {
        ours --root "$TSYNC_TMP/root" kill "$1" KILL 2>"$TSYNC_TMP/err" || fail "kill: $(cat "$TSYNC_TMP/err")"
        for _ in $(seq 100); do
                [ "$(runc --root "$TSYNC_TMP/root" state "$1" 2>/dev/null | jq -r .status)" = stopped ] && break
                sleep 0.1
        done
        ours --root "$TSYNC_TMP/root" delete --force "$1" 2>>"$TSYNC_TMP/err" || fail "delete: $(cat "$TSYNC_TMP/err")"
        assertFalse "still there" "runc --root $TSYNC_TMP/root state $1 >/dev/null 2>&1"
}

calls() {
        sed -E 's/^--root [^ ]+ ([a-z]+).*/\1/' "$TSYNC_TMP/calls" | tr '\n' ' ' | sed 's/ $//'
}

testABrokenConfigFileStillReachesTheRuntimeThatCreatedTheContainer() {
        started "$ID"
        # Broken whole (others may write it): nothing of it is read, runc on PATH would be the fallback.
        chmod g+w "$TSYNC_TMP/runtime.conf"
        ours --root "$TSYNC_TMP/root" state "$ID" >"$TSYNC_TMP/out" 2>"$TSYNC_TMP/err"
        last_rc=$?
        assertEquals "state: $(cat "$TSYNC_TMP/err")" 0 "$last_rc"
        assertEquals "" "$(cat "$TSYNC_TMP/err")"
        assertEquals "running" "$(jq -r .status "$TSYNC_TMP/out")"
        stop_by "$ID"
        assertEquals "" "$(cat "$TSYNC_TMP/err")"
        assertEquals "state kill state delete" "$(calls)"
        assertFalse "record left" "[ -e $REC ]"
}

testAConfigNamingAnotherRuntimeStillTearsDownByTheCreatingOne() {
        started "$ID"
        cp "$(command -v runc)" "$TSYNC_TMP/bin/otherrunc"
        printf 'runtime = %s\n' "$TSYNC_TMP/bin/otherrunc" >"$TSYNC_TMP/runtime.conf"
        # state's output is read as JSON with stderr mixed in (go-runc): the line goes to the system log alone.
        ours --root "$TSYNC_TMP/root" state "$ID" >"$TSYNC_TMP/out" 2>"$TSYNC_TMP/err"
        assertEquals 0 $?
        assertEquals "" "$(cat "$TSYNC_TMP/err")"
        assertEquals "running" "$(jq -r .status "$TSYNC_TMP/out")"
        stop_by "$ID"
        local w="the runtime that created it, $TSYNC_TMP/bin/myrunc, not $TSYNC_TMP/bin/otherrunc as configured now"
        assertEquals "oci-seccomp-tsync: $ID: warning: kill: uses $w
oci-seccomp-tsync: $ID: warning: delete: uses $w" "$(cat "$TSYNC_TMP/err")"
        assertEquals "state kill state delete" "$(calls)"
        assertFalse "record left" "[ -e $REC ]"
}

testATamperedRecordOfTheRuntimeIsNotBelieved() {
        started "$ID"
        chmod g+w "$TSYNC_TMP/runtime.conf"
        chmod 0644 "$REC"
        ours --root "$TSYNC_TMP/root" pause "$ID" 2>"$TSYNC_TMP/err"
        assertEquals 0 $?
        assertEquals "oci-seccomp-tsync: $ID: warning: $REC: the record of its runtime, owned by uid 0 with mode 0644: not believed (must be a file of uid 0, 0600): the runtime is chosen as if there were none" \
                "$(cat "$TSYNC_TMP/err")"
        # A symbolic link to a file that would otherwise pass.
        install -m 0600 "$REC" "$TSYNC_TMP/rec"
        rm "$REC" && ln -s "$TSYNC_TMP/rec" "$REC"
        ours --root "$TSYNC_TMP/root" resume "$ID" 2>"$TSYNC_TMP/err"
        assertEquals 0 $?
        assertEquals 1 "$(wc -l <"$TSYNC_TMP/err")"
        assertContains "$(cat "$TSYNC_TMP/err")" "$REC: a symbolic link"
        # Neither reached the recorded runtime: runc on PATH answered.
        assertEquals "" "$(calls)"
        assertEquals "running" "$(runc --root "$TSYNC_TMP/root" state "$ID" | jq -r .status)"
        rm "$REC"
        chmod g-w "$TSYNC_TMP/runtime.conf"
        stop_by "$ID"
}

testARefusalIsOneLineOnStderrAndInTheJsonLogAndNothingIsCreated() {
        bundle "$TSYNC_TMP/b" 'true' || fail "bundle"
        cp "$TSYNC_TMP/b/config.json" "$TSYNC_TMP/before.json"
        mkdir "$TSYNC_TMP/root"
        ours --layers=no-such-layer --root "$TSYNC_TMP/root" --log "$TSYNC_TMP/log.json" --log-format json \
                create -b "$TSYNC_TMP/b" "$ID" </dev/null >"$TSYNC_TMP/out" 2>"$TSYNC_TMP/err"
        assertEquals 1 $?
        assertEquals "stderr lines" 1 "$(wc -l <"$TSYNC_TMP/err")"
        assertContains "$(cat "$TSYNC_TMP/err")" "oci-seccomp-tsync: $ID: layer 'no-such-layer': no such profile"
        assertEquals "the log's last error" "$(cat "$TSYNC_TMP/err")" \
                "$(jq -r 'select(.level == "error") | .msg' "$TSYNC_TMP/log.json" | tail -n 1)"
        assertFalse "created" "runc --root $TSYNC_TMP/root state $ID >/dev/null 2>&1"
        cmp -s "$TSYNC_TMP/before.json" "$TSYNC_TMP/b/config.json" || fail "config.json was changed"
}

testAModeTheRuntimeFixesCannotBeChangedByAnAnnotation() {
        bundle "$TSYNC_TMP/b" 'true' || fail "bundle"
        tsync_json_edit "$TSYNC_TMP/b/config.json" '.annotations["io.oci-seccomp-tsync.mode"] = "replace"' || fail "edit"
        run_ours "$ID" "$TSYNC_TMP/b" --mode=layer --layers=deny-mkdir
        assertEquals 1 "$rc"
        assertContains "$(cat "$TSYNC_TMP/$ID.err")" "annotations.io.oci-seccomp-tsync.mode: 'replace', but this runtime is set to mode 'layer'"
}

testAPlanAmongTheAnnotationsIsRefusedAsForged() {
        bundle "$TSYNC_TMP/b" 'true' || fail "bundle"
        tsync_json_edit "$TSYNC_TMP/b/config.json" '.annotations["io.oci-seccomp-tsync.plan"] = "{}"' || fail "edit"
        run_ours "$ID" "$TSYNC_TMP/b"
        assertEquals 1 "$rc"
        assertContains "$(cat "$TSYNC_TMP/$ID.err")" "oci-seccomp-tsync: $ID: "
        assertContains "$(cat "$TSYNC_TMP/$ID.err")" "io.oci-seccomp-tsync.plan"
}

testTheConfigFileNamesTheRuntimeAndLayersAndMustBeRootsAlone() {
        bundle "$TSYNC_TMP/b" 'grep -E "^Seccomp_filters" /proc/self/status' || fail "bundle"
        printf '# test\nruntime = %s\nlayers = deny-mkdir\n' "$(command -v runc)" >"$TSYNC_TMP/runtime.conf"
        run_ours "$ID" "$TSYNC_TMP/b"
        assertEquals "$(cat "$TSYNC_TMP/$ID.err")" 0 "$rc"
        grep -q "^Seccomp_filters:.1$" "$TSYNC_TMP/$ID.out" || fail "filters: $(cat "$TSYNC_TMP/$ID.out")"
        chmod g+w "$TSYNC_TMP/runtime.conf"
        run_ours "$ID" "$TSYNC_TMP/b"
        assertEquals 1 "$rc"
        assertContains "$(cat "$TSYNC_TMP/$ID.err")" "must belong to root and be writable by root alone"
        chmod g-w "$TSYNC_TMP/runtime.conf"
        printf 'runtimes = runc\n' >"$TSYNC_TMP/runtime.conf"
        run_ours "$ID" "$TSYNC_TMP/b"
        assertEquals 1 "$rc"
        assertContains "$(cat "$TSYNC_TMP/$ID.err")" "line 1: 'runtimes' is not a setting"
}

testItselfAsTheRealRuntimeIsRefused() {
        ours --runtime="$RUNTIME" --version >/dev/null 2>"$TSYNC_TMP/err"
        assertEquals 1 $?
        assertContains "$(cat "$TSYNC_TMP/err")" "is this program"
}

testCrunAsTheRealRuntimeRunsTheLayer() {
        bundle "$TSYNC_TMP/b" "$PROBE" || fail "bundle"
        tsync_json_edit "$TSYNC_TMP/b/config.json" '.process.noNewPrivileges = false' || fail "edit"
        _tsync_register crun "$ID"
        # crun_cmd's namespace, with our runtime in crun's place (its global option goes through).
        tsync_in_cgroup2 "$RUNTIME" --runtime-config="$TSYNC_TMP/runtime.conf" --profile-dir="$PROFILES" --no-cache \
                --runtime="$(command -v crun)" --layers=deny-mkdir --cgroup-manager=disabled \
                run --bundle "$TSYNC_TMP/b" "$ID" </dev/null >"$TSYNC_TMP/out" 2>"$TSYNC_TMP/err"
        last_rc=$?
        assertEquals "$(cat "$TSYNC_TMP/err")" 0 "$last_rc"
        assertTrue "no init threads listed" "grep -q '^init ' $TSYNC_TMP/out"
        assertEquals "init threads without the layer" "" "$(init_threads_without "$TSYNC_TMP/out" 1)"
        grep -q "mkdir: .*Disk quota exceeded" "$TSYNC_TMP/out" || fail "mkdir allowed: $(cat "$TSYNC_TMP/out")"
}

# nothing_runtime: runtime.conf names a runtime that exits 0 and keeps no container, so every
# record of its runtime the wrapper writes under $TSYNC_TMP/root is stale; a bundle in $TSYNC_TMP/b.
nothing_runtime() {
        mkdir -p "$TSYNC_TMP/bin" "$TSYNC_TMP/root" && printf '#!/bin/sh\nexit 0\n' >"$TSYNC_TMP/bin/nothing" &&
                chmod 0755 "$TSYNC_TMP/bin/nothing" || fail "setup"
        bundle "$TSYNC_TMP/b" true || fail "bundle"
        printf 'runtime = %s\n' "$TSYNC_TMP/bin/nothing" >"$TSYNC_TMP/runtime.conf"
}

# Creates and deletes side by side under one --root (a node starting and stopping many pods): each
# delete prunes the records of containers its runtime no longer holds, and their directory once
# empty, which may be the one a create is about to write into. Every create must still keep its
# record. A runtime that creates nothing makes every record stale, so that each delete prunes all.
testCreatesAndDeletesSideBySideInOneRootEachCreateKeepsItsRecord() {
        nothing_runtime
        local round i
        for round in $(seq 60); do
                for i in $(seq 4); do
                        ours --root "$TSYNC_TMP/root" create --bundle "$TSYNC_TMP/b" "$ID-$round-$i" \
                                </dev/null >/dev/null 2>>"$TSYNC_TMP/err" &
                        ours --root "$TSYNC_TMP/root" delete "$ID-$((round - 1))-$i" </dev/null >/dev/null 2>>"$TSYNC_TMP/err" &
                done
                wait
        done
        rm -rf "/run/oci-seccomp-tsync/runtime/$(fnv1a "$TSYNC_TMP/root")"
        rmdir /run/oci-seccomp-tsync/runtime 2>/dev/null
        assertEquals "creates or deletes that failed" "" "$(cat "$TSYNC_TMP/err")"
}

# issue 40: a create reads no other container's record (its cost must not grow with the node's
# containers); a delete prunes the records whose container the runtime no longer holds, so that a
# `run`'s (whose end the runtime deletes) or one deleted by hand does not stay for long. The runtime
# here keeps ROOT/ID from create to delete, as runc does, so that only the two containers "deleted
# by hand" just before the last create are stale: a delete in a suite beside this one prunes every
# stale record of the node, and their window is kept that short.
testStaleRecordsArePrunedAtADeleteNotAtACreate() {
        local dir id root=$TSYNC_TMP/root
        mkdir -p "$TSYNC_TMP/bin" "$root" || fail "setup"
        cat >"$TSYNC_TMP/bin/keeper" <<'EOF' && chmod 0755 "$TSYNC_TMP/bin/keeper" || fail "keeper"
#!/bin/sh
# --root ROOT create --bundle B ID, --root ROOT delete ID: ROOT/ID while the container "exists".
eval id=\${$#}
case $3 in create) mkdir "$2/$id" ;; delete) rmdir "$2/$id" ;; esac
EOF
        bundle "$TSYNC_TMP/b" true || fail "bundle"
        printf 'runtime = %s\n' "$TSYNC_TMP/bin/keeper" >"$TSYNC_TMP/runtime.conf"
        dir=/run/oci-seccomp-tsync/runtime/$(fnv1a "$root")
        for id in "$ID-a" "$ID-b" "$ID-c"; do
                ours --root "$root" create --bundle "$TSYNC_TMP/b" "$id" </dev/null >/dev/null 2>>"$TSYNC_TMP/err"
        done
        assertEquals "$(cat "$TSYNC_TMP/err")" "$ID-a $ID-b $ID-c" "$(cd "$root" && echo *)"
        rmdir "$root/$ID-a" "$root/$ID-b" || fail "deleting two by hand"
        ours --root "$root" create --bundle "$TSYNC_TMP/b" "$ID-d" </dev/null >/dev/null 2>>"$TSYNC_TMP/err"
        assertEquals "$(cat "$TSYNC_TMP/err")" "$ID-a $ID-b $ID-c $ID-d" "$(cd "$dir" && echo *)"
        ours --root "$root" delete "$ID-d" </dev/null >/dev/null 2>>"$TSYNC_TMP/err"
        assertEquals "nothing said" "" "$(cat "$TSYNC_TMP/err")"
        assertEquals "after a delete: the running container's record alone" "$ID-c" "$(cd "$dir" && echo *)"
        rm -rf "$dir" "$root/$ID-c"
        rmdir /run/oci-seccomp-tsync/runtime 2>/dev/null || :
}

# issue 37: the node's layers (node.conf) go to every container the wrapper creates, before the
# runtime's own and the annotation's, each name once.
testTheNodesLayersComeFirstAndEachNameOnce() {
        bundle "$TSYNC_TMP/b" 'grep -E "^Seccomp_filters" /proc/self/status; mkdir /tmp/d; /bin/threads_probe -n 1 getcwd' ||
                fail "bundle"
        tsync_json_edit "$TSYNC_TMP/b/config.json" \
                '.annotations["io.oci-seccomp-tsync.layers"] = "deny-getcwd,deny-mkdir"' || fail "edit"
        node_conf "# the node's" "layers = deny-mkdir"
        run_ours "$ID" "$TSYNC_TMP/b" --layers=deny-getcwd,deny-mkdir
        mkdir_and_getcwd_denied
}

testAContainerTheNodeLeavesOutRunsAsItIsAndSaysWhy() {
        bundle "$TSYNC_TMP/b" 'mkdir /tmp/d && echo made' || fail "bundle"
        cp "$TSYNC_TMP/b/config.json" "$TSYNC_TMP/before.json"
        node_conf "layers = deny-mkdir" "exclude = $ID: the test's reason (ticket #7)"
        run_ours "$ID" "$TSYNC_TMP/b"
        assertEquals "$(cat "$TSYNC_TMP/$ID.err")" 0 "$rc"
        assertEquals "made" "$(cat "$TSYNC_TMP/$ID.out")"
        assertEquals "oci-seccomp-tsync: $ID: warning: left out of the node's layers by $TSYNC_TMP/node.conf, line 2: the test's reason (ticket #7)" \
                "$(cat "$TSYNC_TMP/$ID.err")"
        cmp -s "$TSYNC_TMP/before.json" "$TSYNC_TMP/b/config.json" || fail "config.json was changed"
}

# A bad policy never means "no policy": create is refused in one line naming the file, the line and
# the fix, and nothing is created; the runtime's other commands still reach it.
testABadNodePolicyRefusesCreateInOneLine() {
        bundle "$TSYNC_TMP/b" 'echo ran' || fail "bundle"
        node_conf "layers = deny-mkdir" "layer = deny-getcwd"
        run_ours "$ID" "$TSYNC_TMP/b"
        assertNotEquals 0 "$rc"
        assertEquals "oci-seccomp-tsync: node policy: $TSYNC_TMP/node.conf: line 2: 'layer' is not a setting (layers, no-new-privs, exclude): did you mean 'layers'?" \
                "$(cat "$TSYNC_TMP/$ID.err")"
        assertEquals "ran anyway" "" "$(cat "$TSYNC_TMP/$ID.out")"
        node_conf "layers = deny-mkdir" && chmod 0664 "$TSYNC_TMP/node.conf"
        run_ours "$ID" "$TSYNC_TMP/b"
        assertNotEquals 0 "$rc"
        assertEquals 1 "$(wc -l <"$TSYNC_TMP/$ID.err")"
        assertContains "$(cat "$TSYNC_TMP/$ID.err")" "node.conf: owned by uid 0 with mode 0664: "
        assertEquals "ran anyway" "" "$(cat "$TSYNC_TMP/$ID.out")"
        ours list >/dev/null 2>"$TSYNC_TMP/err" || fail "list refused over the node's policy: $(cat "$TSYNC_TMP/err")"
}

. shunit2
