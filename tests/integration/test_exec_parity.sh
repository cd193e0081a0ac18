#!/bin/bash
# Exec parity (issue 11): a process started with `runc exec`, `crun exec` or `podman exec` (with runc
# and with crun) in a container started through oci-seccomp-tsync shows exactly the CapInh, CapPrm,
# CapEff, CapBnd, CapAmb, NoNewPrivs, Seccomp and Seccomp_filters lines it shows in the same container
# started without it, for process.user root and 1000 and noNewPrivileges true and false. With
# noNewPrivileges false the init is lent CAP_SYS_ADMIN and CAP_SETPCAP in process.capabilities; runc
# exec and podman exec read BUNDLE/config.json at exec time and crun exec its state directory's copy,
# so the createRuntime hook puts the original sets back there and poststop lends them again. Also:
# what a second start, a missed poststop and a second inject do to that.
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$HERE/lib.sh"
# shellcheck source=tests/integration/hooklib.sh
. "$HERE/hooklib.sh"

STATUS_RE='^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp|Seccomp_filters):'
LAYER=$TSYNC_TOP/configs/profiles/deny-ptrace.json
RUNNING=io.oci-seccomp-tsync.running

# setUp and tearDown: hooklib.sh's (a temp dir $T, the test's containers removed after it).
oneTimeSetUp() {
        tsync_need_built "$OCI" "$INIT"
        hook_suite_setup
        HOOKS=$SUITE_TMP/hooks.d
        mkdir -p "$SUITE_TMP/profiles" "$SUITE_TMP/state"
        cp "$LAYER" "$SUITE_TMP/profiles/"
        podman_hooks_dir "$HOOKS" "$SUITE_TMP/profiles" "$SUITE_TMP/state" "$SUITE_TMP/cache"
        make_rootfs "$SUITE_TMP/rootfs"
        # Podman with crun: crun_cmd's namespace and cgroup2 mount, in a program Podman takes for crun
        # (it allows --cgroups=disabled by the runtime's name).
        mkdir -p "$SUITE_TMP/crun-bin"
        tsync_runtime_program "$SUITE_TMP/crun-bin/crun" unshare -m sh -c \
                'mount -t cgroup2 none /sys/fs/cgroup && exec crun --cgroup-manager=disabled "$@"' crun
}

oneTimeTearDown() {
        podman ps -aq --filter label=tsync-test=$$ | xargs -r podman rm -f -t 0 >/dev/null 2>&1
        hook_suite_teardown
}

# bundle_pair UID NNP: $T/plain from Podman's config with process.user UID and noNewPrivileges NNP,
# and $T/b, the same injected with the deny-ptrace layer.
bundle_pair() {
        rm -rf "$T/plain" "$T/b"
        podman_bundle "$T/plain" 'exec sleep 600' &&
                tsync_json_edit "$T/plain/config.json" \
                        '.process.user = {uid: ($u | tonumber), gid: ($u | tonumber)} | .process.noNewPrivileges = ($n == "true")' \
                        --arg u "$1" --arg n "$2" &&
                cp -a "$T/plain" "$T/b" &&
                inject --profile "$LAYER" "$T/b"
}

# exec_status RUNTIME ID [EXEC OPTION...]: the compared status lines of a process exec'd into ID.
exec_status() {
        local rt=$1 id=$2
        shift 2
        case "$rt" in
        runc) runc exec "$@" "$id" /bin/grep -E "$STATUS_RE" /proc/self/status ;;
        crun) crun_cmd exec "$@" "$id" /bin/grep -E "$STATUS_RE" /proc/self/status ;;
        esac | tr '\t' ' '
}

# assert_parity RUNTIME PLAIN_ID OURS_ID WHAT [EXEC OPTION...]
assert_parity() {
        local rt=$1 plain_id=$2 ours_id=$3 what=$4 plain ours
        shift 4
        plain=$(exec_status "$rt" "$plain_id" "$@")
        ours=$(exec_status "$rt" "$ours_id" "$@")
        assertNotEquals "$what: no status from the plain container" "" "$plain"
        assertEquals "$what" "$plain" "$ours"
}

# check_runtime RUNTIME: the four combinations; crun exec runs as root unless --user says otherwise,
# so crun is also asked with the config's user.
check_runtime() {
        local rt=$1 uid nnp plain_id ours_id
        for uid in 0 1000; do
                for nnp in true false; do
                        bundle_pair "$uid" "$nnp" || fail "bundles for user $uid, noNewPrivileges $nnp"
                        plain_id=$(tsync_unique_id plain)
                        ours_id=$(tsync_unique_id ours)
                        "start_$rt" "$plain_id" "$T/plain" || fail "$rt: the plain container did not start"
                        "start_$rt" "$ours_id" "$T/b" || fail "$rt: the injected container did not start"
                        assert_parity "$rt" "$plain_id" "$ours_id" "$rt exec, user $uid, noNewPrivileges $nnp"
                        if [ "$rt" = crun ]; then
                                assert_parity "$rt" "$plain_id" "$ours_id" \
                                        "crun exec --user $uid:$uid, user $uid, noNewPrivileges $nnp" --user "$uid:$uid"
                        fi
                        "stop_$rt" "$plain_id"
                        "stop_$rt" "$ours_id"
                done
        done
}

testRuncExecGetsWhatItGetsWithoutUs() {
        check_runtime runc
}

testCrunExecGetsWhatItGetsWithoutUs() {
        check_runtime crun
}

# pstatus NAME: the compared status lines of a process `podman exec` starts in NAME.
pstatus() {
        podman exec "$1" /bin/grep -E "$STATUS_RE" /proc/self/status | tr '\t' ' '
}

# bundle_names NAME: the names in the bundle (userdata directory) of Podman's container NAME.
bundle_names() {
        local config
        config=$(podman inspect --format '{{.OCIConfigPath}}' "$1") && [ -f "$config" ] &&
                ls -A "$(dirname "$config")"
}

# podman_parity RUNTIME: the four combinations with podman exec, the annotation against none.
podman_parity() {
        local rt=$1 uid nnp opts plain ours
        for uid in 0 1000; do
                for nnp in true false; do
                        opts=(--hooks-dir "$HOOKS" run -d --label "tsync-test=$$" --user "$uid:$uid"
                                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
                        case "$rt" in
                        runc) opts+=(--runtime runc) ;;
                        crun) opts+=(--runtime "$SUITE_TMP/crun-bin/crun" --cgroups=disabled) ;;
                        esac
                        [ "$nnp" = true ] && opts+=(--security-opt no-new-privileges)
                        podman "${opts[@]}" --name "tsync-plain-$$" --rootfs "$SUITE_TMP/rootfs" /bin/sleep 600 >/dev/null ||
                                fail "podman run ($rt), user $uid, noNewPrivileges $nnp"
                        podman "${opts[@]}" --name "tsync-ours-$$" --annotation io.oci-seccomp-tsync.layers=deny-ptrace \
                                --rootfs "$SUITE_TMP/rootfs" /bin/sleep 600 >/dev/null ||
                                fail "podman run ($rt) with the annotation, user $uid, noNewPrivileges $nnp"
                        # Podman's bundle is its userdata directory: nothing of ours may sit there.
                        assertEquals "podman ($rt), user $uid, noNewPrivileges $nnp: the bundle's names while it runs" \
                                "$(bundle_names "tsync-plain-$$")" "$(bundle_names "tsync-ours-$$")"
                        plain=$(pstatus "tsync-plain-$$")
                        ours=$(pstatus "tsync-ours-$$")
                        assertNotEquals "podman exec ($rt), user $uid, noNewPrivileges $nnp: no status" "" "$plain"
                        assertEquals "podman exec ($rt), user $uid, noNewPrivileges $nnp" "$plain" "$ours"
                        podman rm -f -t 0 "tsync-plain-$$" "tsync-ours-$$" >/dev/null 2>&1
                done
        done
}

testPodmanExecWithRuncGetsWhatItGetsWithoutUs() {
        podman_parity runc
}

testPodmanExecWithCrunGetsWhatItGetsWithoutUs() {
        podman_parity crun
}

# Podman writes the bundle's config.json anew at every start, so the hooks.d files run no poststop
# to lend the sets again (only a recording's): after a stop the file keeps the exec view, and a
# second start begins from Podman's fresh config, with the same parity.
testPodmanExecAfterARestartGetsWhatItGetsWithoutUs() {
        local opts=(--hooks-dir "$HOOKS" --runtime runc) limits=(--ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
        local name plain ours config
        podman "${opts[@]}" run "${limits[@]}" -d --label "tsync-test=$$" --name "tsync-plain-$$" --rootfs "$SUITE_TMP/rootfs" \
                /bin/sleep 600 >/dev/null || fail "podman run"
        podman "${opts[@]}" run "${limits[@]}" -d --label "tsync-test=$$" --name "tsync-ours-$$" \
                --annotation io.oci-seccomp-tsync.layers=deny-ptrace --rootfs "$SUITE_TMP/rootfs" /bin/sleep 600 \
                >/dev/null || fail "podman run with the annotation"
        config=$(podman inspect --format '{{.OCIConfigPath}}' "tsync-ours-$$") || fail "inspect"
        assertEquals "while it runs: the exec view, naming the container" "$(podman inspect --format '{{.ID}}' \
                "tsync-ours-$$")" "$(jq -r --arg r "$RUNNING" '.annotations[$r]' "$config")"
        for name in "tsync-plain-$$" "tsync-ours-$$"; do
                podman "${opts[@]}" stop -t 0 "$name" >/dev/null || fail "podman stop $name"
        done
        assertEquals "stopped: no poststop lent the sets again (the exec view stays)" "false" \
                "$(jq -r --arg r "$RUNNING" '.annotations[$r] == null' "$config")"
        for name in "tsync-plain-$$" "tsync-ours-$$"; do
                podman "${opts[@]}" start "$name" >/dev/null || fail "podman start $name"
        done
        assertEquals "the layer holds after the restart" "Seccomp_filters: 2" \
                "$(podman exec "tsync-ours-$$" /bin/grep Seccomp_filters /proc/1/status | tr '\t' ' ')"
        plain=$(pstatus "tsync-plain-$$")
        ours=$(pstatus "tsync-ours-$$")
        assertNotEquals "podman exec after a restart: no status" "" "$plain"
        assertEquals "podman exec after a restart" "$plain" "$ours"
        podman rm -f -t 0 "tsync-plain-$$" "tsync-ours-$$" >/dev/null 2>&1
}

# The capabilities and running record of $T/b/config.json, compact.
view() {
        jq -cS --arg r "$RUNNING" '[.process.capabilities, .annotations[$r]]' "$T/b/config.json"
}

testRuncPoststopLendsTheSetsAgainForTheNextStart() {
        bundle_pair 1000 false || fail "bundles"
        local lent original id
        lent=$(view)
        original=$(jq -cS '[.process.capabilities, null]' "$T/plain/config.json")
        id=$(tsync_unique_id ours)
        start_runc "$id" "$T/b" || fail "first start"
        assertEquals "while it runs: the original sets and its id" \
                "$(jq -cS --arg id "$id" '.[1] = $id' <<<"$original")" "$(view)"
        stop_runc "$id"
        assertEquals "after poststop: the lent sets, as inject wrote them" "$lent" "$(view)"
        id=$(tsync_unique_id again)
        start_runc "$id" "$T/b" || fail "second start"
        assertEquals "exec'd processes of the second start" "CapEff: 0000000000000000" \
                "$(exec_status runc "$id" | grep '^CapEff:')"
        stop_runc "$id"
}

# nothing_of_ours_in_the_bundle RUNTIME: while the container runs with the exec view in place, and
# after it stopped, the bundle holds exactly the names it held before (Podman's bundle is its
# userdata directory, which must hold nothing of ours; a user's bundle should not either).
nothing_of_ours_in_the_bundle() {
        local rt=$1 before id
        bundle_pair 1000 false || fail "bundles"
        before=$(ls -A "$T/b")
        id=$(tsync_unique_id ours)
        "start_$rt" "$id" "$T/b" || fail "$rt: start"
        assertEquals "$rt: the exec view is in place" "\"$id\"" \
                "$(jq -c --arg r "$RUNNING" '.annotations[$r]' "$T/b/config.json")"
        assertEquals "$rt: the bundle's names while it runs" "$before" "$(ls -A "$T/b")"
        "stop_$rt" "$id"
        assertEquals "$rt: the bundle's names after poststop" "$before" "$(ls -A "$T/b")"
}

testNothingOfOursSitsInARuncBundle() {
        nothing_of_ours_in_the_bundle runc
}

testNothingOfOursSitsInACrunBundle() {
        nothing_of_ours_in_the_bundle crun
}

# A host crash while the container runs: its processes die with no hook run, and whatever is
# only in memory is gone. config.json holds all that a repair needs, in either of the two states
# a crash can leave it in (the exec view's new text is synced before it takes the name): `runc
# delete` (its state root outlived the crash: runc's default here is on disk) runs poststop,
# which must find the right config and lend the sets again, and the next start must work.
crash_then_delete() {
        local lost_rename=$1 lent id next
        bundle_pair 1000 false || fail "bundles"
        lent=$(view)
        cp -p "$T/b/config.json" "$T/lent.json"
        id=$(tsync_unique_id crashed)
        start_runc "$id" "$T/b" || fail "start"
        runc kill "$id" KILL || fail "runc kill"
        if [ "$lost_rename" = yes ]; then
                # createRuntime's rename never reached the disk: the lent file, as before the start.
                cp -p "$T/lent.json" "$T/b/config.json"
        else
                assertEquals "the crash leaves the exec view with the id" "\"$id\"" \
                        "$(jq -c --arg r "$RUNNING" '.annotations[$r]' "$T/b/config.json")"
        fi
        runc delete "$id" >"$T/delete.log" 2>&1 || fail "runc delete after the crash: $(cat "$T/delete.log")"
        stop_runc "$id"
        assertEquals "after runc delete: the lent sets, as inject wrote them" "$lent" "$(view)"
        [ "$lost_rename" = yes ] && assertTrue "nothing to repair: poststop left the lent file alone" \
                "cmp -s '$T/lent.json' '$T/b/config.json'"
        next=$(tsync_unique_id next)
        start_runc "$next" "$T/b" || fail "the next start: $(cat "$T/$next.log")"
        assertEquals "exec'd processes of the next start" "CapEff: 0000000000000000" \
                "$(exec_status runc "$next" | grep '^CapEff:')"
        stop_runc "$next"
}

testRuncDeleteAfterACrashWhileItRanLendsTheSetsAgain() {
        crash_then_delete no
}

testRuncDeleteAfterACrashThatLostTheExecViewsRenameChangesNothing() {
        crash_then_delete yes
}

# syncs LOG: the sync calls (fsync, fdatasync, ...) in `strace -y` output, one a line as "CALL PATH".
syncs() {
        sed -n -E 's/^([0-9]+ +)?(fsync|fdatasync|sync_file_range|syncfs|sync)\([0-9]+<([^>]*)>.*/\2 \3/p' "$1"
}

# What the crash model needs synced and nothing more: inject's hooks (the bundle is the user's)
# sync the new text of config.json before it takes the name, once a stage, never the directory;
# with --no-sync (an engine's config, written anew at every start) nothing. Each hook runs under
# strace, copied as "runc": the parent the exec view asks for.
testTheHooksSyncOnlyWhatTheCrashModelNeeds() {
        if ! command -v strace >/dev/null; then
                startSkipping
                echo "no strace"
                return
        fi
        bundle_pair 1000 false || fail "bundles"
        cp "$(command -v strace)" "$T/runc" || fail "copy strace"
        cp "$T/b/config.json" "$T/injected.json" || fail "copy the config"
        local id nosync cr ps s
        for nosync in no yes; do
                rm -f "$T/createRuntime.log" "$T/poststop.log"
                cp "$T/injected.json" "$T/b/config.json" || fail "copy back"
                tsync_json_edit "$T/b/config.json" '.hooks |= with_entries(.key as $st | .value |= map(
                        .args = ["runc", "-f", "-qq", "-y", "-e", "trace=fsync,fdatasync,sync_file_range,syncfs,sync",
                                "-e", "signal=none", "-o", ($t + "/" + $st + ".log"), .path] + .args[1:3] +
                                (if $n == "yes" then ["--no-sync"] else [] end) | .path = ($t + "/runc")))' \
                        --arg t "$T" --arg n "$nosync" || fail "hooks under strace"
                id=$(tsync_unique_id synced)
                start_runc "$id" "$T/b" || fail "start (--no-sync: $nosync): $(cat "$T/$id.log")"
                stop_runc "$id"
                assertEquals "the exec view's pair ran (--no-sync: $nosync)" "null" \
                        "$(jq -c --arg r "$RUNNING" '.annotations[$r]' "$T/b/config.json")"
                cr=$(syncs "$T/createRuntime.log")
                ps=$(syncs "$T/poststop.log")
                if [ "$nosync" = no ]; then
                        assertEquals "createRuntime: one sync: $cr" 1 "$(grep -c . <<<"$cr")"
                        assertEquals "poststop: one sync: $ps" 1 "$(grep -c . <<<"$ps")"
                        for s in "$cr" "$ps"; do
                                case "${s#* }" in
                                "$T/b/"?*) ;;
                                *) fail "a sync of something else than a new file in the bundle: $s" ;;
                                esac
                        done
                else
                        assertEquals "createRuntime --no-sync: nothing synced" "" "$cr"
                        assertEquals "poststop --no-sync: nothing synced" "" "$ps"
                fi
        done
}

testASecondRuncContainerFromARunningBundleIsRefused() {
        bundle_pair 1000 false || fail "bundles"
        local first second
        first=$(tsync_unique_id first)
        second=$(tsync_unique_id second)
        start_runc "$first" "$T/b" || fail "first start"
        start_runc "$second" "$T/b" 2>/dev/null && fail "a second container from the bundle started"
        grep -q "container '$first' started from this config and has not run its poststop hook" "$T/$second.log" ||
                fail "$(cat "$T/$second.log")"
        assertEquals "the first container's exec'd processes" "CapEff: 0000000000000000" \
                "$(exec_status runc "$first" | grep '^CapEff:')"
        assertEquals "the record still names the first" "\"$first\"" "$(jq -c --arg r "$RUNNING" '.annotations[$r]' "$T/b/config.json")"
        stop_runc "$first"
        assertEquals "after the first stopped" "null" "$(jq -c --arg r "$RUNNING" '.annotations[$r]' "$T/b/config.json")"
}

testAStartAfterAMissedPoststopFailsClosedUntilItRuns() {
        bundle_pair 1000 false || fail "bundles"
        local gone next
        gone=$(tsync_unique_id gone)
        start_runc "$gone" "$T/b" || fail "first start"
        cp "$T/b/config.json" "$T/running.json"
        stop_runc "$gone"
        cp "$T/running.json" "$T/b/config.json" # as if its poststop never ran
        next=$(tsync_unique_id next)
        start_runc "$next" "$T/b" 2>/dev/null && fail "started past the record of a container that is gone"
        grep -q "if '$gone' is gone, give its id and bundle to \`oci-seccomp-tsync hook poststop\`" "$T/$next.log" ||
                fail "$(cat "$T/$next.log")"
        jq -n --arg id "$gone" --arg b "$T/b" '{ociVersion: "1.0.2", id: $id, bundle: $b}' |
                "$OCI" hook poststop --cache-dir "$T/cache" || fail "poststop by hand"
        start_runc "$next" "$T/b" || fail "start after the poststop by hand"
        assertEquals "CapEff: 0000000000000000" "$(exec_status runc "$next" | grep '^CapEff:')"
        stop_runc "$next"
}

testInjectAgainWhileAContainerRunsKeepsItsExecView() {
        bundle_pair 1000 false || fail "bundles"
        local id
        id=$(tsync_unique_id ours)
        start_runc "$id" "$T/b" || fail "start"
        inject --profile "$LAYER" --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject again"
        assertEquals "the record stays" "\"$id\"" "$(jq -c --arg r "$RUNNING" '.annotations[$r]' "$T/b/config.json")"
        assertEquals "exec'd processes after the second inject" "CapEff: 0000000000000000" \
                "$(exec_status runc "$id" | grep '^CapEff:')"
        stop_runc "$id"
        assertEquals "lent again, by the new plan" "true" \
                "$(jq '.process.capabilities.ambient | index("CAP_SYS_ADMIN") != null' "$T/b/config.json")"
        assertEquals "two filters in the new plan" 2 \
                "$(jq '[.process.args[] | select(. == "--filter" or . == "--filter-data")] | length' "$T/b/config.json")"
}

. shunit2
