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
VIEWS=oci-seccomp-tsync-views

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

# holder: the container inject's views record as running from $T/b (its id as a JSON string), or null.
holder() {
        local id
        id=$(readlink "$T/b/$VIEWS/running" 2>/dev/null) && jq -cn --arg id "$id" '$id' || echo null
}

# The capabilities of $T/b/config.json and the running record, compact.
view() {
        jq -cS --argjson h "$(holder)" '[.process.capabilities, $h]' "$T/b/config.json"
}

# views_as STATE: puts $T/b's two views by hand where a start (exec) or a stop (lent) leaves them.
views_as() {
        case "$1" in
        exec) cp "$T/b/$VIEWS/exec.json" "$T/b/config.json" && cp "$T/b/$VIEWS/lent.json" "$T/b/$VIEWS/swap.json" ;;
        lent) cp "$T/b/$VIEWS/lent.json" "$T/b/config.json" && cp "$T/b/$VIEWS/exec.json" "$T/b/$VIEWS/swap.json" ;;
        esac
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

# names_kept RUNTIME: while the container runs with the exec view in place, and after it stopped,
# the bundle holds exactly the names inject left, and of ours only the views (Podman's bundle is its
# userdata directory, which must hold nothing of ours: checked above).
names_kept() {
        local rt=$1 before id
        bundle_pair 1000 false || fail "bundles"
        before=$(ls -A "$T/b")
        assertEquals "$rt: inject's names" "$( (ls -A "$T/plain"; echo "$VIEWS") | LC_ALL=C sort)" \
                "$(ls -A "$T/b" | LC_ALL=C sort)"
        id=$(tsync_unique_id ours)
        "start_$rt" "$id" "$T/b" || fail "$rt: start"
        assertEquals "$rt: the container is recorded" "\"$id\"" "$(holder)"
        assertTrue "$rt: the exec view is in place" "cmp -s '$T/b/$VIEWS/exec.json' '$T/b/config.json'"
        assertEquals "$rt: the bundle's names while it runs" "$before" "$(ls -A "$T/b")"
        "stop_$rt" "$id"
        assertEquals "$rt: the bundle's names after poststop" "$before" "$(ls -A "$T/b")"
        assertEquals "$rt: no record after poststop" null "$(holder)"
        assertTrue "$rt: the lent view is back" "cmp -s '$T/b/$VIEWS/lent.json' '$T/b/config.json'"
}

testARuncBundleKeepsInjectsNamesWhileItRuns() {
        names_kept runc
}

testACrunBundleKeepsInjectsNamesWhileItRuns() {
        names_kept crun
}

# A host crash while the container runs: its processes die with no hook run, and whatever is
# only in memory is gone. A start writes nothing, it only links the record and exchanges two names
# of files inject synced, so a crash leaves each of them whole, in any of the states below: `runc
# delete` (its state root outlived the crash: runc's default here is on disk) runs poststop, which
# must put the lent view back and remove the record, and the next start must work.
#   kept: the record and the exchange; lost-exchange: the record alone; lost-record: the exchange
#   alone (a file system that does not keep the order of the two).
crash_then_delete() {
        local lost=$1 lent id next
        bundle_pair 1000 false || fail "bundles"
        lent=$(view)
        id=$(tsync_unique_id crashed)
        start_runc "$id" "$T/b" || fail "start"
        runc kill "$id" KILL || fail "runc kill"
        assertEquals "the crash leaves the record" "\"$id\"" "$(holder)"
        case "$lost" in
        lost-exchange) views_as lent || fail "views by hand" ;;
        lost-record) rm "$T/b/$VIEWS/running" || fail "rm the record" ;;
        esac
        runc delete "$id" >"$T/delete.log" 2>&1 || fail "runc delete after the crash: $(cat "$T/delete.log")"
        stop_runc "$id"
        assertEquals "after runc delete: the lent sets, as inject wrote them, and no record" "$lent" "$(view)"
        assertTrue "the lent view is back" "cmp -s '$T/b/$VIEWS/lent.json' '$T/b/config.json'"
        assertTrue "the exec view waits" "cmp -s '$T/b/$VIEWS/exec.json' '$T/b/$VIEWS/swap.json'"
        next=$(tsync_unique_id next)
        start_runc "$next" "$T/b" || fail "the next start: $(cat "$T/$next.log")"
        assertEquals "exec'd processes of the next start" "CapEff: 0000000000000000" \
                "$(exec_status runc "$next" | grep '^CapEff:')"
        stop_runc "$next"
}

testRuncDeleteAfterACrashWhileItRanLendsTheSetsAgain() {
        crash_then_delete kept
}

testRuncDeleteAfterACrashThatLostTheExchangeRemovesTheRecord() {
        crash_then_delete lost-exchange
}

testRuncDeleteAfterACrashThatLostTheRecordExchangesBack() {
        crash_then_delete lost-record
}

# syncs LOG: the sync calls (fsync, fdatasync, ...) in `strace -y` output, one a line as "CALL PATH".
syncs() {
        sed -n -E 's/^([0-9]+ +)?(fsync|fdatasync|sync_file_range|syncfs|sync)\([0-9]+<([^>]*)>.*/\2 \3/p' "$1"
}

# What the crash model needs synced and nothing more. With inject's views (the default) a start and
# a stop write nothing and sync nothing. Without them (a bundle on a file system that cannot exchange
# two names) the hooks rewrite config.json and sync its new text before it takes the name, once a
# stage, never the directory; with --no-sync (an engine's config, written anew at every start)
# nothing. Each hook runs under strace, copied as "runc": the parent the exec view asks for.
testTheHooksSyncOnlyWhatTheCrashModelNeeds() {
        if ! command -v strace >/dev/null; then
                startSkipping
                echo "no strace"
                return
        fi
        bundle_pair 1000 false || fail "bundles"
        cp "$(command -v strace)" "$T/runc" || fail "copy strace"
        cp -a "$T/b/$VIEWS" "$T/views" || fail "copy the views"
        local id form cr ps s
        for form in views synced no-sync; do
                rm -f "$T/createRuntime.log" "$T/poststop.log"
                rm -rf "$T/b/$VIEWS"
                cp "$T/views/lent.json" "$T/b/config.json" || fail "copy back"
                tsync_json_edit "$T/b/config.json" '.hooks |= with_entries(.key as $st | .value |= map(
                        .args = ["runc", "-f", "-qq", "-y", "-e", "trace=fsync,fdatasync,sync_file_range,syncfs,sync",
                                "-e", "signal=none", "-o", ($t + "/" + $st + ".log"), .path] + .args[1:3] +
                                (if $f == "no-sync" then ["--no-sync"] else [] end) | .path = ($t + "/runc")))' \
                        --arg t "$T" --arg f "$form" || fail "hooks under strace"
                if [ "$form" = views ]; then
                        # The hooks edited as inject would have written them.
                        cp -a "$T/views" "$T/b/$VIEWS" && cp "$T/b/config.json" "$T/b/$VIEWS/lent.json" ||
                                fail "the views"
                fi
                id=$(tsync_unique_id synced)
                start_runc "$id" "$T/b" || fail "start ($form): $(cat "$T/$id.log")"
                if [ "$form" = views ]; then
                        assertEquals "the views were exchanged" "\"$id\"" "$(holder)"
                else
                        assertEquals "the exec view was written ($form)" "\"$id\"" \
                                "$(jq -c --arg r "$RUNNING" '.annotations[$r]' "$T/b/config.json")"
                fi
                stop_runc "$id"
                assertEquals "the exec view's pair ran ($form)" "null" \
                        "$(jq -c --arg r "$RUNNING" '.annotations[$r]' "$T/b/config.json")"
                assertEquals "no record ($form)" null "$(holder)"
                cr=$(syncs "$T/createRuntime.log")
                ps=$(syncs "$T/poststop.log")
                if [ "$form" = synced ]; then
                        assertEquals "createRuntime: one sync: $cr" 1 "$(grep -c . <<<"$cr")"
                        assertEquals "poststop: one sync: $ps" 1 "$(grep -c . <<<"$ps")"
                        for s in "$cr" "$ps"; do
                                case "${s#* }" in
                                "$T/b/"?*) ;;
                                *) fail "a sync of something else than a new file in the bundle: $s" ;;
                                esac
                        done
                else
                        assertEquals "createRuntime ($form): nothing synced" "" "$cr"
                        assertEquals "poststop ($form): nothing synced" "" "$ps"
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
        assertEquals "the record still names the first" "\"$first\"" "$(holder)"
        assertTrue "the exec view is still in place" "cmp -s '$T/b/$VIEWS/exec.json' '$T/b/config.json'"
        stop_runc "$first"
        assertEquals "after the first stopped" "null" "$(holder)"
}

testAStartAfterAMissedPoststopFailsClosedUntilItRuns() {
        bundle_pair 1000 false || fail "bundles"
        local gone next
        gone=$(tsync_unique_id gone)
        start_runc "$gone" "$T/b" || fail "first start"
        stop_runc "$gone"
        # As if its poststop never ran.
        views_as exec && ln -s "$gone" "$T/b/$VIEWS/running" || fail "the views by hand"
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
        assertEquals "the record stays" "\"$id\"" "$(holder)"
        assertTrue "the new exec view is in place" "cmp -s '$T/b/$VIEWS/exec.json' '$T/b/config.json'"
        assertEquals "exec'd processes after the second inject" "CapEff: 0000000000000000" \
                "$(exec_status runc "$id" | grep '^CapEff:')"
        stop_runc "$id"
        assertEquals "lent again, by the new plan" "true" \
                "$(jq '.process.capabilities.ambient | index("CAP_SYS_ADMIN") != null' "$T/b/config.json")"
        assertEquals "two filters in the new plan" 2 \
                "$(jq '[.process.args[] | select(. == "--filter" or . == "--filter-data")] | length' "$T/b/config.json")"
}

# A plan that needs its hooks for more than the exec view (filter files compiled at every start) gets
# no views: inject removes an earlier inject's, and the hooks rewrite config.json as before. While a
# container holds the views that is refused, naming it, and the bundle stays as it was.
testInjectWithoutViewsRemovesThemAndIsRefusedWhileAContainerHoldsThem() {
        bundle_pair 1000 false || fail "bundles"
        local id before
        id=$(tsync_unique_id ours)
        start_runc "$id" "$T/b" || fail "start"
        before=$(cat "$T/b/config.json")
        inject --compile-at-start --profile "$LAYER" "$T/b" 2>"$T/inject.err" && fail "inject past the record"
        grep -q "container '$id' started from this config" "$T/inject.err" || fail "$(cat "$T/inject.err")"
        assertEquals "config.json as it was" "$before" "$(cat "$T/b/config.json")"
        assertEquals "the record stays" "\"$id\"" "$(holder)"
        stop_runc "$id"
        inject --compile-at-start --profile "$LAYER" "$T/b" || fail "inject after the stop"
        assertFalse "no views" "[ -e '$T/b/$VIEWS' ]"
        id=$(tsync_unique_id files)
        start_runc "$id" "$T/b" || fail "start with filter files: $(cat "$T/$id.log")"
        assertEquals "the exec view, rewritten" "\"$id\"" \
                "$(jq -c --arg r "$RUNNING" '.annotations[$r]' "$T/b/config.json")"
        assertEquals "exec'd processes" "CapEff: 0000000000000000" "$(exec_status runc "$id" | grep '^CapEff:')"
        stop_runc "$id"
        assertEquals "lent again" null "$(jq -c --arg r "$RUNNING" '.annotations[$r]' "$T/b/config.json")"
}

. shunit2
