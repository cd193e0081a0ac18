#!/bin/bash
# Rootless Podman (issue 15): a test user of this suite's own (subuid/subgid ranges of its own, home in
# the suite's temp dir) runs `podman --runtime runc` with our hooks.d files. Podman runs the precreate
# hook as root of the user's namespace with an empty environment; the filters travel in the init's
# arguments and the hook caches in the user's ~/.cache. No systemd here: XDG_RUNTIME_DIR is made by
# hand; there is no slirp4netns, so --network=none.
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$HERE/lib.sh"
# shellcheck source=tests/integration/hooklib.sh
. "$HERE/hooklib.sh"

RL_USER=tsyncrl$$
STATUS_RE='^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp|Seccomp_filters):'
ANN=io.oci-seccomp-tsync.layers=deny-mkdir

# A subordinate range no line of /etc/subuid or /etc/subgid overlaps, derived from our pid.
free_subid_start() {
        local start=$((100000 + ($$ % 40000) * 65536)) tries
        for tries in $(seq 20); do
                if awk -F: -v s="$start" '$2 < s + 65536 && s < $2 + $3 { found = 1 } END { exit !found }' \
                        /etc/subuid /etc/subgid; then
                        start=$((start + 65536 * 7))
                else
                        echo "$start"
                        return 0
                fi
        done
        return 1
}

# remove_line FILE LINE: drops exactly that line, keeping the file's inode, owner and mode.
remove_line() {
        local kept
        kept=$(grep -vxF -- "$2" "$1")
        printf '%s\n' "$kept" | sed '/^$/d' >"$1"
}

oneTimeSetUp() {
        tsync_need_built "$OCI" "$INIT" "$TSYNC_BUILD/tests/static/threads_probe"
        SUITE_TMP=$(mktemp -d) && chmod 0755 "$SUITE_TMP" || exit 1
        RL_HOME=$SUITE_TMP/home
        # useradd would add login.defs' default ranges; the suite adds its own and removes exactly those.
        useradd -m -d "$RL_HOME" -K SUB_UID_COUNT=0 -K SUB_GID_COUNT=0 -s /bin/sh "$RL_USER" || {
                echo "useradd $RL_USER failed" >&2
                exit 1
        }
        RL_UID=$(id -u "$RL_USER")
        local start
        start=$(free_subid_start) || {
                echo "no free subordinate id range" >&2
                exit 1
        }
        RL_SUBID="$RL_USER:$start:65536"
        echo "$RL_SUBID" >>/etc/subuid
        echo "$RL_SUBID" >>/etc/subgid
        RL_RUNTIME=$SUITE_TMP/xdg-runtime
        mkdir -m 0700 "$RL_RUNTIME" && chown "$RL_USER:" "$RL_RUNTIME" || exit 1
        # The build must be reachable by the user; where a parent directory is not, run copies.
        local build=$TSYNC_BUILD
        if ! runuser -u "$RL_USER" -- test -x "$OCI" -a -r "$INIT"; then
                build=$SUITE_TMP/build
                mkdir -p "$build/bin" && cp "$OCI" "$INIT" "$build/bin/" && chmod -R a+rX "$build" || exit 1
        fi
        OCI_RL=$build/bin/oci-seccomp-tsync
        RL_AGENT=$TSYNC_TOOLS/seccomp_agent
        if ! runuser -u "$RL_USER" -- test -x "$RL_AGENT"; then
                RL_AGENT=$SUITE_TMP/seccomp_agent
                cp "$TSYNC_TOOLS/seccomp_agent" "$RL_AGENT" && chmod a+rx "$RL_AGENT" || exit 1
        fi
        mkdir -p "$SUITE_TMP/profiles"
        cp "$PROFILES/deny-mkdir.json" "$SUITE_TMP/profiles/"
        HOOKS=$SUITE_TMP/hooks.d
        # The hook's own defaults for the state root and the cache: they are what is tested.
        TSYNC_BUILD=$build podman_hooks_dir "$HOOKS" "$SUITE_TMP/profiles" "" "" || exit 1
        ROOTFS=$SUITE_TMP/rootfs
        # Rootless Podman writes into the rootfs (/etc/mtab): the user's own, as an image would be.
        make_rootfs "$ROOTFS" "$TSYNC_BUILD/tests/static/threads_probe" && chown -R "$RL_USER:" "$ROOTFS" || exit 1
        chmod -R a+rX "$SUITE_TMP/profiles" "$HOOKS"
}

oneTimeTearDown() {
        upodman rm -a -f -t 0 >/dev/null 2>&1
        # The pause process rootless Podman keeps for the user's namespace: ours, by its pid.
        local pause
        pause=$(cat "$RL_RUNTIME/libpod/tmp/pause.pid" 2>/dev/null)
        [ -n "$pause" ] && kill -9 "$pause" 2>/dev/null
        [ -n "$RL_SUBID" ] && remove_line /etc/subuid "$RL_SUBID" && remove_line /etc/subgid "$RL_SUBID"
        id "$RL_USER" >/dev/null 2>&1 && userdel "$RL_USER"
        rm -rf "$SUITE_TMP"
}

setUp() {
        tsync_test_begin || exit 1
}

tearDown() {
        tsync_test_end
}

# upodman ARGS...: podman as the test user, with our hooks.
upodman() {
        (cd / && runuser -u "$RL_USER" -- env -i PATH="$PATH" HOME="$RL_HOME" XDG_RUNTIME_DIR="$RL_RUNTIME" \
                podman --runtime runc --cgroup-manager=cgroupfs --events-backend=file --hooks-dir "$HOOKS" "$@")
}

# urun [PODMAN RUN OPTIONS...] -- SCRIPT: a rootless `podman run --rm`; output in $TSYNC_TMP/out, err; status $rc.
urun() {
        local OPTS ARGS
        tsync_split_dashes "$@"
        rm -rf "$ROOTFS/tmp"/*
        upodman run --rm --label tsync-test=$$ --network=none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
                "${OPTS[@]}" --rootfs "$ROOTFS" /bin/sh -c "${ARGS[0]}" </dev/null >"$TSYNC_TMP/out" 2>"$TSYNC_TMP/err"
        rc=$?
}

# ustart NAME [PODMAN RUN OPTIONS...]: a rootless container running `sleep 600`.
ustart() {
        local name=$1
        shift
        upodman run -d --name "$name" --label tsync-test=$$ --network=none --ulimit nofile=1024:1024 \
                --ulimit nproc=1024:1024 "$@" --rootfs "$ROOTFS" /bin/sleep 600 </dev/null >/dev/null 2>"$TSYNC_TMP/err"
}

testALayerDeniesItsCallInEveryThreadUnderOurInitAsPid1() {
        urun --annotation "$ANN" -- "$PROBE
echo \"pid1: \$(tr '\\0' ' ' </proc/1/cmdline)\"
exec /bin/threads_probe -n 8 mkdir /tmp/t"
        assertEquals "$(cat "$TSYNC_TMP/err")" 0 "$rc"
        grep -q '^pid1: /\.oci-seccomp-tsync/init --filter-data ' "$TSYNC_TMP/out" ||
                fail "PID 1: $(grep '^pid1' "$TSYNC_TMP/out" | cut -c1-120)"
        assertTrue "init threads listed" "grep -q '^init ' $TSYNC_TMP/out"
        assertEquals "init threads without both filters" "" "$(init_threads_without "$TSYNC_TMP/out" 2)"
        assert_threads_denied "$TSYNC_TMP/out" 9
}

# rootless_parity [PODMAN RUN OPTIONS...]: the workload's capability and NoNewPrivs lines with the
# annotation equal those of the same rootless run without it.
rootless_parity() {
        urun "$@" -- "$PROBE"
        assertEquals "plain $*: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        cap_lines "$TSYNC_TMP/out" >"$TSYNC_TMP/plain.caps"
        grep -q "mkdir: ok" "$TSYNC_TMP/out" || fail "plain $*: $(cat "$TSYNC_TMP/out")"
        urun "$@" --annotation "$ANN" -- "$PROBE"
        assertEquals "ours $*: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        grep -q "mkdir: .*Disk quota exceeded" "$TSYNC_TMP/out" || fail "ours $*: $(cat "$TSYNC_TMP/out")"
        assertEquals "$*" "$(cat "$TSYNC_TMP/plain.caps")" "$(cap_lines "$TSYNC_TMP/out")"
        assertEquals 6 "$(wc -l <"$TSYNC_TMP/plain.caps")"
}

testCapabilitiesMatchTheRootlessRunWithoutUs() {
        rootless_parity
        rootless_parity --user 1000:1000
        rootless_parity --security-opt no-new-privileges --user 1000:1000
        rootless_parity --cap-drop all --cap-add NET_RAW
}

# ustatus NAME: the compared status lines of a process `podman exec` starts in NAME.
ustatus() {
        upodman exec "$1" /bin/grep -E "$STATUS_RE" /proc/self/status | tr '\t' ' '
}

testPodmanExecGetsWhatItGetsWithoutUs() {
        local opts plain ours
        for opts in "" "--user 1000:1000" "--security-opt no-new-privileges --user 1000:1000"; do
                # shellcheck disable=SC2086 # the options are words
                ustart "rl-plain-$$" $opts || fail "plain $opts: $(cat "$TSYNC_TMP/err")"
                # shellcheck disable=SC2086
                ustart "rl-ours-$$" $opts --annotation "$ANN" || fail "ours $opts: $(cat "$TSYNC_TMP/err")"
                plain=$(ustatus "rl-plain-$$")
                ours=$(ustatus "rl-ours-$$")
                assertNotEquals "$opts: no status from the plain container" "" "$plain"
                assertEquals "podman exec, $opts" "$plain" "$ours"
                assertEquals "$opts: PID 1 carries the layer" "Seccomp_filters: 2" \
                        "$(upodman exec "rl-ours-$$" /bin/grep '^Seccomp_filters:' /proc/1/status | tr '\t' ' ')"
                upodman rm -f -t 0 "rl-plain-$$" "rl-ours-$$" >/dev/null 2>&1
        done
}

# Entries a rootless hook of ours could have left: in the state root, owned by the user or named
# after the container; under the user's home and runtime directory, anything named like us but
# the cache.
our_leftovers() {
        local id=$1
        if [ -d "$TSYNC_STATE_ROOT" ]; then
                find "$TSYNC_STATE_ROOT" -mindepth 1 \( -user "$RL_UID" -o -name "*$id*" \) 2>/dev/null
        fi
        find "$RL_HOME" "$RL_RUNTIME" \( -name '*oci-seccomp-tsync*' -o -name '*tsync*' \) \
                -not -path "$RL_HOME/.cache/oci-seccomp-tsync" -not -path "$RL_HOME/.cache/oci-seccomp-tsync/*" \
                2>/dev/null
}

testNothingOfOursIsLeftAfterPodmanRm() {
        TSYNC_STATE_ROOT=/run/oci-seccomp-tsync
        ustart "rl-rm-$$" --annotation "$ANN" || fail "$(cat "$TSYNC_TMP/err")"
        local id bundle
        id=$(upodman inspect --format '{{.ID}}' "rl-rm-$$")
        bundle=$(dirname "$(upodman inspect --format '{{.OCIConfigPath}}' "rl-rm-$$")")
        assertTrue "bundle $bundle" "[ -f '$bundle/config.json' ]"
        assertEquals "state in the running container's bundle" "" "$(find "$bundle" -iname "*tsync*")"
        assertEquals "left while running" "" "$(our_leftovers "$id")"
        upodman stop -t 0 "rl-rm-$$" >/dev/null 2>&1
        assertEquals "state in the stopped container's bundle" "" "$(find "$bundle" -iname "*tsync*")"
        upodman rm "rl-rm-$$" >/dev/null || fail "podman rm"
        assertFalse "the bundle outlived podman rm" "[ -e '$bundle' ]"
        assertEquals "left after podman rm" "" "$(our_leftovers "$id")"
}

# Without HOME (a hook run from a service with a bare environment) the cache is still the user's own:
# the home /etc/passwd gives, read as a file (the program is static: no NSS modules of another glibc).
testWithoutHomeTheCacheIsInThePasswdHome() {
        local cache=$RL_HOME/.cache/oci-seccomp-tsync work=$SUITE_TMP/nohome
        rm -rf "$cache" "$work"
        mkdir -p "$work/run" && runc spec --rootless --bundle "$work" || fail "runc spec"
        jq -c --arg a "${ANN%%=*}" --arg v "${ANN#*=}" '.annotations = {($a): $v}' "$work/config.json" >"$work/in" &&
                chown -R "$RL_USER:" "$work" || fail "config"
        # Not exec'd: the hook's parent is this shell, running as the user (whose cache it picks).
        (cd / && runuser -u "$RL_USER" -- sh -c '"$1" hook precreate --profile-dir "$2" --state-root "$3" <"$4" >"$5"' \
                sh "$OCI_RL" "$SUITE_TMP/profiles" "$work/run" "$work/in" "$work/out") 2>"$TSYNC_TMP/err"
        last_rc=$?
        assertEquals "precreate: $(cat "$TSYNC_TMP/err")" 0 "$last_rc"
        assertEquals "precreate said more than warnings: $(cat "$TSYNC_TMP/err")" "" \
                "$(grep -v '^oci-seccomp-tsync: precreate (hostname runc): warning: ' "$TSYNC_TMP/err")"
        jq -e .process.args "$work/out" >/dev/null || fail "precreate wrote no config"
        assertNotEquals "no entry of the user's in $cache" "" "$(find "$cache" -name '*.bpf' -user "$RL_UID" 2>/dev/null)"
}

testTheUsersOwnCacheIsUsed() {
        local cache=$RL_HOME/.cache/oci-seccomp-tsync entry
        rm -rf "$cache"
        urun --annotation "$ANN" -- "mkdir /tmp/x"
        assertNotEquals "the layer did not deny mkdir" 0 "$rc"
        grep -q "Disk quota exceeded" "$TSYNC_TMP/err" || fail "$(cat "$TSYNC_TMP/err")"
        entry=$(find "$cache" -name '*.bpf' -user "$RL_UID" 2>/dev/null)
        assertNotEquals "no entry of the user's in $cache" "" "$entry"
        assertEquals "cache directory mode and owner" "700 $RL_USER" "$(stat -c '%a %U' "$cache")"
        # A second run hits the entries (the layer's and the baseline's): none is written again.
        local before
        before=$(find "$cache" -name '*.bpf' -printf '%p %T@ %i\n' | sort)
        sleep 1
        urun --annotation "$ANN" -- "mkdir /tmp/x"
        grep -q "Disk quota exceeded" "$TSYNC_TMP/err" || fail "second run: $(cat "$TSYNC_TMP/err")"
        assertEquals "an entry was written again" "$before" "$(find "$cache" -name '*.bpf' -printf '%p %T@ %i\n' | sort)"
}

# Recording (issue 25): the shipped hooks.d files, no --record-root; the namespace's root cannot
# write /var/lib/oci-seccomp-tsync, so the recording waits in the user's own
# ~/.local/share/oci-seccomp-tsync/record (0700), and poststop writes the profile at of:.
testRootlessRecordingWritesTheProfile() {
        local out=$SUITE_TMP/rec-out root=$RL_HOME/.local/share/oci-seccomp-tsync/record i
        mkdir -p "$out" && chown "$RL_USER:" "$out" || fail "mkdir $out"
        urun --annotation "io.oci-seccomp-tsync.record=of:$out/pod.json" -- 'ls / >/dev/null; echo rootless-ok'
        assertEquals "podman run: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        assertContains "$(cat "$TSYNC_TMP/out")" "rootless-ok"
        # poststop runs as Podman cleans up; wait for it (not a timed assert: the file must come).
        for i in $(seq 100); do [ -s "$out/pod.json" ] && break; sleep 0.1; done
        assertTrue "the profile is written: $(cat "$TSYNC_TMP/err")" "[ -s $out/pod.json ]"
        assertEquals "the user's" "$RL_USER" "$(stat -c %U "$out/pod.json")"
        jq -r '.syscalls[] | select(.action == "SCMP_ACT_ALLOW") | .names[]' "$out/pod.json" | grep -qx getdents64 ||
                fail "ls's getdents64 is not in $(cat "$out/pod.json")"
        assertEquals "the record root: the user's alone" "700 $RL_USER" "$(stat -c '%a %U' "$root")"
        assertEquals "the recording's directory is removed" "" "$(ls -A "$root")"
        assertFalse "nothing under the system's record root" \
                "find /var/lib/oci-seccomp-tsync/record -user $RL_UID 2>/dev/null | grep -q ."
}

# A rootless user's own profiles (issue 39): the hooks as packaged, with no --profile-dir, look in the
# system's directories, then in ~/.config/oci-seccomp-tsync/profiles: the user's recording becomes a
# layer by name, without root. The system's directories come first, so a name the system has (a
# node.conf layer) is never the user's file.
testTheUsersOwnRecordingIsALayerByName() {
        local out=$SUITE_TMP/rec-mine mine=$RL_HOME/.config/oci-seccomp-tsync/profiles hooks=$SUITE_TMP/hooks-default f
        mkdir -p "$out" "$hooks" && chown "$RL_USER:" "$out" || fail "mkdir"
        for f in "$HOOKS"/*.json; do
                jq '.hook.args |= (index("--profile-dir") as $i | if $i then .[:$i] + .[$i + 2:] else . end)' "$f" \
                        >"$hooks/${f##*/}" || fail "hooks.d"
        done
        chmod -R a+rX "$hooks"
        local script='ls / >/dev/null; echo mine-ok'
        HOOKS=$hooks urun --annotation "io.oci-seccomp-tsync.record=of:$out/mine.json" -- "$script"
        assertEquals "recording: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        for i in $(seq 100); do [ -s "$out/mine.json" ] && break; sleep 0.1; done
        assertTrue "the recording is written" "[ -s $out/mine.json ]"
        # Not there yet: the error names every directory looked in, the user's last (precreate by
        # hand, as the user: Podman hides the hook's stderr).
        local spec=$SUITE_TMP/mine-spec
        mkdir -p "$spec" && runc spec --rootless --bundle "$spec" && chown -R "$RL_USER:" "$spec" || fail "runc spec"
        (cd / && runuser -u "$RL_USER" -- env -i HOME="$RL_HOME" sh -c \
                'jq -c ".annotations = {\"io.oci-seccomp-tsync.layers\": \"mine\"}" "$1" | "$2" hook precreate' \
                sh "$spec/config.json" "$OCI_RL") >/dev/null 2>"$TSYNC_TMP/err"
        grep -qE "layer 'mine': no such profile in /etc/oci-seccomp-tsync/profiles, /[^ ]+/share/oci-seccomp-tsync/profiles or $mine\$" \
                "$TSYNC_TMP/err" || fail "$(cat "$TSYNC_TMP/err")"
        runuser -u "$RL_USER" -- sh -c 'mkdir -p "$1" && cp "$2" "$1/mine.json"' sh "$mine" "$out/mine.json" ||
                fail "the user's copy"
        HOOKS=$hooks urun --annotation io.oci-seccomp-tsync.layers=mine -- "$script; mkdir /tmp/x"
        assertContains "the recorded workload runs under its own recording: $(cat "$TSYNC_TMP/err")" \
                "$(cat "$TSYNC_TMP/out")" "mine-ok"
        assertNotEquals "mkdir, which the recording never saw, is denied" 0 "$rc"
        assertContains "$(cat "$TSYNC_TMP/err")" "Operation not permitted"
        # Without the layer, Podman's profile lets mkdir through.
        HOOKS=$hooks urun -- "mkdir /tmp/x && echo made"
        assertEquals "$(cat "$TSYNC_TMP/err")" "made" "$(cat "$TSYNC_TMP/out")"
}

# A notify agent (issue 12): the user's own agent on a socket of the user's, a layer naming it by
# annotation; the state reaches the agent through the createRuntime hook, run in the user's namespace.
# ustart_agent DIR: the agent, as the test user, on DIR/agent.sock; its pid in AGENT_PID.
ustart_agent() {
        local dir=$1
        mkdir -p "$dir" && chown "$RL_USER:" "$dir" && chmod 0755 "$dir" || return 1
        runuser -u "$RL_USER" -- "$RL_AGENT" "$dir/agent.sock" "$dir/agent.log" >"$dir/agent.out" 2>"$dir/agent.err" &
        AGENT_PID=$!
        assert_started agent "$dir/agent"
}

testANotifyLayerGetsItsAnswersFromTheUsersAgent() {
        local dir=$SUITE_TMP/agent-$$ state
        ustart_agent "$dir" || return
        jq -n --arg sock "$dir/agent.sock" '{defaultAction: "SCMP_ACT_ALLOW", listenerPath: $sock,
                listenerMetadata: "rootless", syscalls: [{names: ["mkdir", "mkdirat", "getppid"], action: "SCMP_ACT_NOTIFY"}]}' \
                >"$SUITE_TMP/profiles/notify.json" && chmod a+r "$SUITE_TMP/profiles/notify.json"
        urun --annotation io.oci-seccomp-tsync.layers=notify -- \
                'ls -a /.oci-seccomp-tsync/agent; exec /bin/threads_probe -n 4 getppid'
        kill -TERM "$AGENT_PID" 2>/dev/null
        wait "$AGENT_PID" 2>/dev/null
        assertEquals "$(cat "$TSYNC_TMP/err")" 0 "$rc"
        assert_agents_getppid
        assert_agent_tmpfs_empty
        state=$(sed -n 1p "$dir/agent.log")
        assertEquals "metadata: $state" rootless "$(jq -r .metadata <<<"$state")"
        jq -e '.pid > 1 and .state.status == "creating" and (.state.id | test("^[0-9a-f]{64}$"))' \
                <<<"$state" >/dev/null || fail "state: $state"
}

. shunit2
