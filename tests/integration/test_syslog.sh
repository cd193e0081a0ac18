#!/bin/bash
# The system log: engines hide what a hook or runtime prints (Podman keeps
# only "exit status 1", containerd's shim hands the runtime the container's
# stdio), so every refusal and every plan a container gets is also sent to
# syslog(3)'s socket, ident oci-seccomp-tsync. Each test binds its own
# datagram socket in its temp dir (TSYNC_SYSLOG_SOCKET): no host journald is
# needed, and no other program's lines are read.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"
RUNTIME="$TSYNC_BUILD/bin/oci-seccomp-tsync-runtime"

oneTimeSetUp() {
        command -v python3 >/dev/null || fail "python3 is needed (tools/install-deps.sh)"
}

setUp() {
        tsync_test_begin
        tsync_need_built "$OCI" "$RUNTIME" "$INIT"
        SOCK="$TSYNC_TMP/log.sock"
        LOG="$TSYNC_TMP/log"
        : >"$LOG"
        mkdir -p "$TSYNC_TMP/profiles"
        cp "$PROFILES/deny-mkdir.json" "$TSYNC_TMP/profiles/"
        ID=$(tsync_unique_id syslog)
}

tearDown() {
        podman ps -aq --filter label=tsync-test=$$ | xargs -r podman rm -f >/dev/null 2>&1
        tsync_test_end
}

# logged CMD...: CMD with the test's socket bound, stdin $LOGGED_IN (else none); its status in $rc,
# stdout and stderr in cmd.out, cmd.err.
logged() {
        python3 -c "$TSYNC_SYSLOG_CATCH" "$SOCK" "$LOG" "$@" <"${LOGGED_IN:-/dev/null}" >"$TSYNC_TMP/cmd.out" 2>"$TSYNC_TMP/cmd.err"
        rc=$?
}

# The received lines as "PRIORITY TEXT": the RFC 3164 header checked and taken off
# (a line without it stays whole, and so fails the comparison). The warning about plain runtime
# exec depends on the host (Yama): it is checked on its own, in testTheWarningAboutPlainExecIsLoggedToo.
PLAIN_EXEC='warning: processes started by a plain `runc exec`'
log_lines() {
        sed -E 's/^<([0-9]+)>[A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} oci-seccomp-tsync\[[0-9]+\]: /\1 /' "$LOG" |
                grep -vF "$PLAIN_EXEC"
}

# Podman runs hooks with the hooks.d file's env alone: the socket goes there.
podman_hooks() {
        podman_hooks_dir "$TSYNC_TMP/hooks.d" "$TSYNC_TMP/profiles" "" "$TSYNC_TMP/cache" || return 1
        local f
        for f in "$TSYNC_TMP"/hooks.d/*.json; do
                tsync_json_edit "$f" '.hook.env = ["TSYNC_SYSLOG_SOCKET=" + $s]' --arg s "$SOCK" || return 1
        done
}

prun() {
        logged podman --hooks-dir "$TSYNC_TMP/hooks.d" run --rm --runtime runc --label tsync-test=$$ \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --hostname "$ID" "$@" \
                --rootfs "$TSYNC_TMP/rootfs" /bin/sh -c 'echo ran'
}

# LOG_DAEMON (3 << 3) with LOG_ERR (3), LOG_WARNING (4), LOG_INFO (6).
ERR=27
WARNING=28
INFO=30

testARefusedPodmanStartLeavesItsOneLineInTheSystemLog() {
        podman_hooks || fail "hooks.d"
        make_rootfs "$TSYNC_TMP/rootfs" || fail "rootfs"
        prun --annotation io.oci-seccomp-tsync.layers=no-such-layer
        assertNotEquals "podman run was refused" 0 "$rc"
        assertEquals "" "$(cat "$TSYNC_TMP/cmd.out")"
        # No container id yet at precreate: the line names Podman's hostname, its short id.
        assertEquals "$ERR precreate (hostname $ID): layer 'no-such-layer': no such profile in $TSYNC_TMP/profiles" \
                "$(log_lines)"
}

testAnAppliedPodmanStartLogsItsPlanAtPrecreateAndWithItsIdAtCreateRuntime() {
        podman_hooks || fail "hooks.d"
        make_rootfs "$TSYNC_TMP/rootfs" || fail "rootfs"
        prun --annotation io.oci-seccomp-tsync.layers=deny-mkdir
        assertEquals "$(cat "$TSYNC_TMP/cmd.err")" 0 "$rc"
        assertEquals "ran" "$(cat "$TSYNC_TMP/cmd.out")"
        # Podman's containers keep their capabilities and no NO_NEW_PRIVS: the init is lent two.
        local plan="mode layer; layers deny-mkdir; lent to the init: CAP_SYS_ADMIN,CAP_SETPCAP"
        assertEquals "$INFO precreate (hostname $ID): applied: $plan" "$(log_lines | sed -n 1p)"
        log_lines | sed -n 2p | grep -qE "^$INFO [0-9a-f]{64}: createRuntime: $plan\$" || fail "$(log_lines)"
        assertEquals 2 "$(log_lines | wc -l)"
}

testTheWarningAboutPlainExecIsLoggedToo() {
        make_bundle "$TSYNC_TMP/b" /bin/sh -c 'echo ran' || fail "bundle"
        logged "$OCI" inject --cache-dir "$TSYNC_TMP/cache" --profile "$TSYNC_TMP/profiles/deny-mkdir.json" "$TSYNC_TMP/b"
        assertEquals "$(cat "$TSYNC_TMP/cmd.err")" 0 "$rc"
        # Whatever this host's Yama makes of it, stderr and the log say the same, a warning there.
        local printed logged_
        printed=$(sed -n "s/^oci-seccomp-tsync: //p" "$TSYNC_TMP/cmd.err" | grep -F "$PLAIN_EXEC" || true)
        logged_=$(sed -nE "s/^<$WARNING>[^]]*\]: //p" "$LOG" | grep -F "$PLAIN_EXEC" || true)
        assertEquals "$printed" "$logged_"
        if [ ! -e /proc/sys/kernel/yama/ptrace_scope ]; then
                assertNotNull "no Yama here: the warning is given" "$printed"
        fi
}

testAnInjectedRuncStartLogsTheInjectAndTheCreateRuntimeOfItsContainer() {
        make_bundle "$TSYNC_TMP/b" /bin/sh -c 'echo ran' || fail "bundle"
        tsync_json_edit "$TSYNC_TMP/b/config.json" '.process.noNewPrivileges = false' || fail "edit"
        logged "$OCI" inject --cache-dir "$TSYNC_TMP/cache" --profile "$TSYNC_TMP/profiles/deny-mkdir.json" \
                --exec-once "$TSYNC_TMP/b"
        assertEquals "$(cat "$TSYNC_TMP/cmd.err")" 0 "$rc"
        _tsync_register runc "$ID"
        logged runc run --bundle "$TSYNC_TMP/b" "$ID"
        assertEquals "$(cat "$TSYNC_TMP/cmd.err")" 0 "$rc"
        assertEquals "ran" "$(cat "$TSYNC_TMP/cmd.out")"
        local plan="mode layer; layers $TSYNC_TMP/profiles/deny-mkdir.json; lent to the init: CAP_SYS_ADMIN,CAP_SETPCAP"
        plan="$plan; exec once (EPERM)"
        assertEquals "$INFO $TSYNC_TMP/b: applied: $plan
$INFO $ID: createRuntime: $plan" "$(log_lines)"
}

testTheRuntimeWrapperLogsItsRefusalAndItsPlan() {
        make_bundle "$TSYNC_TMP/b" /bin/sh -c 'echo ran' || fail "bundle"
        : >"$TSYNC_TMP/runtime.conf"
        _tsync_register runc "$ID"
        logged "$RUNTIME" --runtime-config="$TSYNC_TMP/runtime.conf" --profile-dir="$TSYNC_TMP/profiles" \
                --cache-dir="$TSYNC_TMP/cache" --layers=no-such-layer run -b "$TSYNC_TMP/b" "$ID"
        assertNotEquals 0 "$rc"
        local line="layer 'no-such-layer': no such profile in $TSYNC_TMP/profiles"
        assertEquals "oci-seccomp-tsync: $ID: $line" "$(cat "$TSYNC_TMP/cmd.err")"
        assertEquals "$ERR $ID: $line" "$(log_lines)"
        : >"$LOG"
        logged "$RUNTIME" --runtime-config="$TSYNC_TMP/runtime.conf" --profile-dir="$TSYNC_TMP/profiles" \
                --cache-dir="$TSYNC_TMP/cache" --layers=deny-mkdir run -b "$TSYNC_TMP/b" "$ID"
        assertEquals "$(cat "$TSYNC_TMP/cmd.err")" 0 "$rc"
        assertEquals "ran" "$(cat "$TSYNC_TMP/cmd.out")"
        assertEquals "$INFO $ID: applied: mode layer; layers deny-mkdir" "$(log_lines)"
}

testAWarningIsLoggedAtWarningPriority() {
        make_bundle "$TSYNC_TMP/b" /bin/sh -c 'echo ran' || fail "bundle"
        tsync_json_edit "$TSYNC_TMP/b/config.json" '.linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW"}' ||
                fail "edit"
        logged "$OCI" inject --cache-dir "$TSYNC_TMP/cache" --replace "$TSYNC_TMP/b"
        assertEquals "$(cat "$TSYNC_TMP/cmd.err")" 0 "$rc"
        local warning
        warning=$(sed -n 's/^oci-seccomp-tsync: //p' "$TSYNC_TMP/cmd.err")
        [ -n "$warning" ] || fail "no warning on stderr"
        assertEquals "$WARNING $warning
$INFO $TSYNC_TMP/b: applied: mode replace; layers none" "$(log_lines)"
}

testWithoutALoggerStderrAloneHasTheLineAndNothingElseChanges() {
        make_bundle "$TSYNC_TMP/b" /bin/sh -c 'echo ran' || fail "bundle"
        cp "$TSYNC_TMP/b/config.json" "$TSYNC_TMP/before.json"
        TSYNC_SYSLOG_SOCKET="$TSYNC_TMP/nobody-listens" "$OCI" inject --profile "$TSYNC_TMP/no-such.json" \
                "$TSYNC_TMP/b" 2>"$TSYNC_TMP/err"
        assertEquals 1 "$?"
        assertEquals "oci-seccomp-tsync: inject: --profile $TSYNC_TMP/no-such.json: No such file or directory" \
                "$(cat "$TSYNC_TMP/err")"
        cmp -s "$TSYNC_TMP/before.json" "$TSYNC_TMP/b/config.json" || fail "config.json was changed"
        TSYNC_SYSLOG_SOCKET="$TSYNC_TMP/nobody-listens" "$OCI" inject --cache-dir "$TSYNC_TMP/cache" \
                --profile "$TSYNC_TMP/profiles/deny-mkdir.json" "$TSYNC_TMP/b" 2>"$TSYNC_TMP/err"
        last_rc=$?
        assertEquals "$(cat "$TSYNC_TMP/err")" 0 "$last_rc"
        assertEquals "" "$(grep -vF "$PLAIN_EXEC" "$TSYNC_TMP/err")"
}

# precreate CONFIG-EDIT [SOCKET]: the hook's precreate run by hand on the bundle's config, edited by
# jq, as logged runs it; with SOCKET, no one listens: that is its TSYNC_SYSLOG_SOCKET.
precreate() {
        jq -c "$1" "$TSYNC_TMP/b/config.json" >"$TSYNC_TMP/in.json" || return 1
        local cmd=("$OCI" hook precreate --init "$INIT" --profile-dir "$TSYNC_TMP/profiles"
                --cache-dir "$TSYNC_TMP/cache" --node-conf "$TSYNC_TMP/node.conf" --state-root "$TSYNC_TMP/run")
        if [ $# -lt 2 ]; then
                LOGGED_IN=$TSYNC_TMP/in.json logged "${cmd[@]}"
                return 0
        fi
        TSYNC_SYSLOG_SOCKET=$2 "${cmd[@]}" <"$TSYNC_TMP/in.json" >"$TSYNC_TMP/cmd.out" 2>"$TSYNC_TMP/cmd.err"
        rc=$?
}

testEveryLineLoggedForAContainerNamesIt() {
        make_bundle "$TSYNC_TMP/b" /bin/sh -c 'echo ran' || fail "bundle"
        # A node policy that cannot be read: its line is said before any front end knows more.
        printf 'no-such-setting = 1\n' >"$TSYNC_TMP/node.conf"
        chmod 600 "$TSYNC_TMP/node.conf"
        precreate '.hostname = "web-1"'
        assertNotEquals "precreate refused" 0 "$rc"
        local why
        why=$(sed -n 's/^oci-seccomp-tsync: //p' "$TSYNC_TMP/cmd.err")
        assertEquals "node policy: " "${why:0:13}"
        assertEquals "$ERR precreate (hostname web-1): $why" "$(log_lines)"
        # A hostname cannot make two lines of one.
        : >"$LOG"
        precreate '.hostname = "a\n<27>forged"'
        assertNotEquals 0 "$rc"
        assertEquals 1 "$(wc -l <"$LOG")"
        assertEquals 1 "$(wc -l <"$TSYNC_TMP/cmd.err")"
        log_lines | grep -qF "$ERR precreate (hostname a?<27>forged): " || fail "$(cat "$LOG")"

        # inject: lines that name no path of the bundle get the bundle in front.
        : >"$LOG"
        logged "$OCI" inject --node-conf "$TSYNC_TMP/node.conf" --profile-dir "$TSYNC_TMP/profiles" "$TSYNC_TMP/b"
        assertNotEquals "inject refused" 0 "$rc"
        why=$(sed -n 's/^oci-seccomp-tsync: //p' "$TSYNC_TMP/cmd.err")
        assertEquals "node policy: " "${why:0:13}"
        assertEquals "$ERR $TSYNC_TMP/b: $why" "$(log_lines)"

        # The runtime wrapper: the container's id.
        : >"$LOG"
        printf 'no-such-setting = 1\n' >"$TSYNC_TMP/runtime.conf"
        logged "$RUNTIME" --runtime-config="$TSYNC_TMP/runtime.conf" run -b "$TSYNC_TMP/b" "$ID"
        assertNotEquals "the wrapper refused" 0 "$rc"
        why=$(sed -n 's/^oci-seccomp-tsync: //p' "$TSYNC_TMP/cmd.err")
        assertEquals "$TSYNC_TMP/runtime.conf: " "${why:0:$((${#TSYNC_TMP} + 15))}"
        assertEquals "$ERR $ID: $why" "$(log_lines)"
}

testWithoutALoggerTheHookSaysSoOnceOnStderr() {
        make_bundle "$TSYNC_TMP/b" /bin/sh -c 'echo ran' || fail "bundle"
        : >"$TSYNC_TMP/node.conf"
        chmod 600 "$TSYNC_TMP/node.conf"
        local gone="$TSYNC_TMP/nobody-listens" none
        none="oci-seccomp-tsync: precreate (hostname web-1): warning: no system log at $gone (No such file or directory): these lines reach stderr alone"
        # Replace mode: two warnings and the plan's line, none of them sent; said once, first.
        precreate '.hostname = "web-1" | .linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW"}
                | .annotations = {"io.oci-seccomp-tsync.mode": "replace"}' "$gone"
        assertEquals "$(cat "$TSYNC_TMP/cmd.err")" 0 "$rc"
        assertEquals "$none" "$(sed -n 1p "$TSYNC_TMP/cmd.err")"
        assertEquals 1 "$(grep -c "no system log" "$TSYNC_TMP/cmd.err")"
        grep -q "^oci-seccomp-tsync: precreate (hostname web-1): replace mode: " "$TSYNC_TMP/cmd.err" ||
                fail "$(cat "$TSYNC_TMP/cmd.err")"
        # A refusal: the warning, then the refusal's line, last.
        precreate '.hostname = "web-1" | .annotations = {"io.oci-seccomp-tsync.layers": "no-such-layer"}' "$gone"
        assertNotEquals 0 "$rc"
        assertEquals "$none
oci-seccomp-tsync: precreate (hostname web-1): layer 'no-such-layer': no such profile in $TSYNC_TMP/profiles" \
                "$(cat "$TSYNC_TMP/cmd.err")"
        # An empty TSYNC_SYSLOG_SOCKET says no logger is wanted: nothing about it.
        precreate '.hostname = "web-1" | .annotations = {"io.oci-seccomp-tsync.layers": "no-such-layer"}' ""
        assertNotEquals 0 "$rc"
        assertEquals 0 "$(grep -c "no system log" "$TSYNC_TMP/cmd.err")"
}

testCommandsThatDecideNothingForAContainerLogNothing() {
        logged "$OCI" check "$TSYNC_TMP/no-such.json"
        assertNotEquals 0 "$rc"
        [ -s "$TSYNC_TMP/cmd.err" ] || fail "check printed no error"
        assertEquals "" "$(cat "$LOG")"
}

. shunit2
