#!/bin/bash
# Seccomp user notification (issue 12): the reference behaviour of the plain
# runtimes, with our test agent (tests/tools/seccomp_agent.c). A profile with
# SCMP_ACT_NOTIFY rules and a listenerPath is the config's own linux.seccomp;
# runc and crun load it, connect to the agent and hand it the listener with
# the container process state. The agent answers mkdir with success without
# creating anything and getppid with 4242. What these runs show (answers in
# every thread, the state's fields, a refused start without an agent) is what
# our init must match when it loads such a profile itself.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
# podman_hooks_dir; its PROBE (a script) is replaced by ours below.
. "$HERE/hooklib.sh"

OCI=$TSYNC_BUILD/bin/oci-seccomp-tsync
WRAP=
AGENT=$TSYNC_TOOLS/seccomp_agent
PROBE=$TSYNC_BUILD/tests/static/threads_probe
INIT=$TSYNC_BUILD/bin/seccomp-tsync-init
UNIX_PROBE=$TSYNC_BUILD/tests/static/unix_probe
FAKE_RELAY=$TSYNC_TOP/tests/tools/fake_relay.py

oneTimeSetUp() {
        tsync_need_built "$AGENT" "$PROBE" "$INIT" "$OCI" "$UNIX_PROBE"
}
setUp() {
        tsync_test_begin
        WRAP=
        AT_START=--compile-at-start
        AGENT_PID=
        RELAY_PID=
}
tearDown() {
        local p
        for p in $AGENT_PID $RELAY_PID; do
                kill -TERM "$p" 2>/dev/null
                wait "$p" 2>/dev/null
        done
        tsync_test_end
}

# notify_cases: one test per row of its input, "NAME COMMAND": testNAME() runs COMMAND (variables
# set for it, then a helper of this file and its arguments, expanded when the test runs). The
# cases below are one helper run with other runtimes, wrappers and deliveries; suite() adds them.
notify_cases() {
        local name cmd
        while read -r name cmd; do
                eval "test$name() { $cmd; }"
        done
}

# start_agent: the agent on $TSYNC_TMP/agent.sock, logging to $TSYNC_TMP/agent.log, each
# notification to $TSYNC_TMP/agent.calls.
start_agent() {
        "$AGENT" "$TSYNC_TMP/agent.sock" "$TSYNC_TMP/agent.log" "$TSYNC_TMP/agent.calls" \
                >"$TSYNC_TMP/agent.out" 2>"$TSYNC_TMP/agent.err" &
        AGENT_PID=$!
        assert_started agent "$TSYNC_TMP/agent"
}

# notify_bundle DIR SOCKET ARG...: a bundle (noNewPrivileges true) running ARGS under a profile
# that sends mkdir, mkdirat and getppid to the agent on SOCKET.
notify_bundle() {
        local dir=$1 sock=$2
        shift 2
        mkdir -p "$dir"
        make_rootfs "$dir/rootfs" "$PROBE" "$UNIX_PROBE" || return 1
        make_bundle "$dir" "$@" || return 1
        tsync_json_edit "$dir/config.json" '.process.noNewPrivileges = true
                | .annotations = {"org.example.notify": "yes"}
                | .linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW", listenerPath: $sock, listenerMetadata: $meta,
                   architectures: ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
                   syscalls: [{names: ["mkdir", "mkdirat", "getppid"], action: "SCMP_ACT_NOTIFY"}]}' \
                --arg sock "$sock" --arg meta "meta-$$"
}

# wrap BUNDLE: with WRAP=layer the config's notify profile becomes a layer (`inject --profile`)
# over a config without linux.seccomp; with WRAP=replace, `inject --replace` moves it to our init;
# else the runtime applies it itself.
# AT_START=--compile-at-start: filter files; else (the default) the filters in the init's arguments.
wrap() {
        case "$WRAP" in
        layer)
                jq .linux.seccomp "$1/config.json" >"$1/notify.json" || return 1
                tsync_json_edit "$1/config.json" 'del(.linux.seccomp)' || return 1
                "$OCI" inject --cache-dir "$TSYNC_TMP/cache" $AT_START --profile "$1/notify.json" "$1" ;;
        replace) "$OCI" inject --cache-dir "$TSYNC_TMP/cache" $AT_START --replace "$1" ;;
        esac
}

# run_rt RUNTIME ID BUNDLE: the container in the foreground (wrapped by WRAP); status in rc.
run_rt() {
        if ! wrap "$3" 2>"$TSYNC_TMP/err"; then
                rc=99
                fail "inject ($WRAP): $(cat "$TSYNC_TMP/err")"
                return
        fi
        run_runtime "$1" "$2" "$3" "$TSYNC_TMP/out" "$TSYNC_TMP/err"
}

# answers_in_every_thread RUNTIME: a 4-thread workload's getppid is the agent's in every thread,
# a shell's mkdir succeeds and creates nothing.
answers_in_every_thread() {
        local rt=$1 id lines
        start_agent || return
        notify_bundle "$TSYNC_TMP/b" "$TSYNC_TMP/agent.sock" /bin/threads_probe -n 4 getppid || fail "bundle"
        id=$(tsync_unique_id "notify-$rt")
        run_rt "$rt" "$id" "$TSYNC_TMP/b"
        assertEquals "$rt run: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        lines=$(grep -c '^tid=' "$TSYNC_TMP/out")
        assertEquals "threads that answered: $(cat "$TSYNC_TMP/out")" 5 "$lines"
        assertEquals "threads whose getppid was not the agent's: $(cat "$TSYNC_TMP/out")" 0 \
                "$(grep '^tid=' "$TSYNC_TMP/out" | grep -vc ' call=getppid rc=4242 errno=0$')"

        rm -rf "$TSYNC_TMP/b"
        notify_bundle "$TSYNC_TMP/b" "$TSYNC_TMP/agent.sock" /bin/sh -c \
                'mkdir /tmp/made && echo mkdir=ok; [ -d /tmp/made ] && echo made || echo not-made' || fail "bundle"
        id=$(tsync_unique_id "notify-$rt")
        run_rt "$rt" "$id" "$TSYNC_TMP/b"
        assertEquals "$rt run: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        assertEquals "$rt: the agent's answer" "mkdir=ok
not-made" "$(cat "$TSYNC_TMP/out")"
        assertFalse "a directory was made" "[ -e $TSYNC_TMP/b/rootfs/tmp/made ]"
}

# the_state_is_sent RUNTIME: what the agent received with the listener: one fd, the metadata,
# and the state naming the container, its bundle, its annotations and a pid.
the_state_is_sent() {
        local rt=$1 id state
        start_agent || return
        notify_bundle "$TSYNC_TMP/b" "$TSYNC_TMP/agent.sock" /bin/threads_probe getppid || fail "bundle"
        id=$(tsync_unique_id "state-$rt")
        run_rt "$rt" "$id" "$TSYNC_TMP/b"
        assertEquals "$rt run: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        assertEquals "$rt: lines the agent logged: $(cat "$TSYNC_TMP/agent.log")" 2 "$(wc -l <"$TSYNC_TMP/agent.log")"
        assertEquals "$rt: fds with the state" "fds=1" "$(sed -n 2p "$TSYNC_TMP/agent.log")"
        state=$(sed -n 1p "$TSYNC_TMP/agent.log")
        echo "  $rt sent: $state"
        assertEquals "$rt: fds" '["seccompFd"]' "$(jq -c .fds <<<"$state")"
        assertEquals "$rt: metadata" "meta-$$" "$(jq -r .metadata <<<"$state")"
        assertEquals "$rt: state.id" "$id" "$(jq -r .state.id <<<"$state")"
        assertEquals "$rt: state.bundle" "$(cd "$TSYNC_TMP/b" && pwd -P)" "$(jq -r .state.bundle <<<"$state")"
        assertEquals "$rt: state.annotations" '{"org.example.notify":"yes"}' "$(jq -c .state.annotations <<<"$state")"
        assertTrue "$rt: pid $(jq .pid <<<"$state")" "jq -e '.pid > 1 and .state.pid == .pid' <<<'$state' >/dev/null"
        jq -e '.ociVersion | type == "string"' <<<"$state" >/dev/null || fail "$rt: no ociVersion"
        jq -e '.state.status | type == "string"' <<<"$state" >/dev/null || fail "$rt: no state.status"
}

# no_agent_no_start RUNTIME WHY: a listenerPath nobody listens on (absent, or a socket whose agent
# is gone) stops the start; the workload never runs.
no_agent_no_start() {
        local rt=$1 why=$2 id sock=$TSYNC_TMP/none.sock
        if [ "$why" = gone ]; then
                start_agent || return
                # Killed: the socket file stays, and connecting to it is refused.
                kill -KILL "$AGENT_PID" && wait "$AGENT_PID" 2>/dev/null
                AGENT_PID=
                sock=$TSYNC_TMP/agent.sock
                [ -S "$sock" ] || fail "the agent's socket is gone"
        fi
        notify_bundle "$TSYNC_TMP/b" "$sock" /bin/sh -c 'echo ran >/tmp/marker' || fail "bundle"
        id=$(tsync_unique_id "noagent-$rt")
        run_rt "$rt" "$id" "$TSYNC_TMP/b"
        assertNotEquals "$rt started without an agent" 0 "$rc"
        assertFalse "$rt: the workload ran" "[ -e $TSYNC_TMP/b/rootfs/tmp/marker ]"
        echo "  $rt ($why): $(tail -n 1 "$TSYNC_TMP/err")"
}

# Our init on its own (issue 12, the init's half; issue 23: through the relay): a hand-made agent
# filter (x86-64: getppid and mkdir to the agent) and tests/tools/fake_relay.py in the place of
# createRuntime's relay, speaking hook/shared/relay_proto.h without the pid check.
# agent_filter FILE SOCKET META
agent_filter() {
        python3 "$TSYNC_TOP/tests/tools/filter_file.py" --agent "$2" "$3" "$1" \
                0x20,0,0,4 0x15,1,0,0xc000003e 0x06,0,0,0x7fff0000 0x20,0,0,0 \
                0x15,0,1,110 0x06,0,0,0x7fc00000 0x15,0,1,83 0x06,0,0,0x7fc00000 0x06,0,0,0x7fff0000
}
STATE='{"ociVersion":"1.0.2","fds":["seccompFd"],"pid":4321,"state":{"ociVersion":"1.0.2","id":"c1","status":"creating","pid":4321,"bundle":"/b","annotations":{"a":"b"}}}'

# start_relay MODE: the fake relay on $TSYNC_TMP/relay.sock (modes in fake_relay.py), for the agent
# on $TSYNC_TMP/agent.sock and the state $STATE.
start_relay() {
        python3 "$FAKE_RELAY" "$TSYNC_TMP/relay.sock" "$TSYNC_TMP/agent.sock" "$STATE" "$1" \
                >"$TSYNC_TMP/relay.out" 2>"$TSYNC_TMP/relay.err" &
        RELAY_PID=$!
        assert_started relay "$TSYNC_TMP/relay"
}

# run_init ARG...: the init as PID 1 of a new pid namespace; status in rc.
run_init() {
        timeout -s KILL 30 unshare --pid --fork --kill-child --mount-proc "$INIT" "$@" \
                >"$TSYNC_TMP/out" 2>"$TSYNC_TMP/err"
        rc=$?
}

testOurInitHandsTheRelayItsListenerAndEveryThreadGetsTheAgentsAnswers() {
        start_agent || return
        start_relay relay || return
        agent_filter "$TSYNC_TMP/f.bpf" /.oci-seccomp-tsync/agent/relay 'meta "q"' || fail "filter_file.py"
        run_init -f "$TSYNC_TMP/f.bpf" --relay "$TSYNC_TMP/relay.sock" -- "$PROBE" -n 4 getppid
        assertEquals "init: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        assertEquals "threads that answered: $(cat "$TSYNC_TMP/out")" 5 "$(grep -c '^tid=' "$TSYNC_TMP/out")"
        assertEquals "threads whose getppid was not the agent's: $(cat "$TSYNC_TMP/out")" 0 \
                "$(grep '^tid=' "$TSYNC_TMP/out" | grep -vc ' call=getppid rc=4242 errno=0$')"
        assertEquals "fds with the state" "fds=1" "$(sed -n 2p "$TSYNC_TMP/agent.log")"
        local got
        got=$(sed -n 1p "$TSYNC_TMP/agent.log")
        assertEquals "the state, with the metadata the init sent: $got" \
                "$(jq -cS '. + {metadata: "meta \"q\""}' <<<"$STATE")" "$(jq -cS . <<<"$got")"
}

testOurInitSendsEmptyMetadataThatTheRelayLeavesOut() {
        start_agent || return
        start_relay relay || return
        agent_filter "$TSYNC_TMP/f.bpf" /.oci-seccomp-tsync/agent/relay '' || fail "filter_file.py"
        run_init -f "$TSYNC_TMP/f.bpf" --relay "$TSYNC_TMP/relay.sock" -- "$PROBE" getppid
        assertEquals "init: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        assertEquals "the state as the hook wrote it" "$(jq -cS . <<<"$STATE")" \
                "$(sed -n 1p "$TSYNC_TMP/agent.log" | jq -cS .)"
}

# init_refuses STATUS WANT: the init, with the filter file f.bpf and the relay's socket, refuses to
# start a workload that would leave a marker: exit STATUS, one line on stderr holding WANT, no marker.
init_refuses() {
        run_init -f "$TSYNC_TMP/f.bpf" --relay "$TSYNC_TMP/relay.sock" -- /bin/sh -c "echo ran >$TSYNC_TMP/marker"
        assertEquals "status: $(cat "$TSYNC_TMP/err")" "$1" "$rc"
        assertFalse "the workload ran" "[ -e $TSYNC_TMP/marker ]"
        assertEquals "one line: $(cat "$TSYNC_TMP/err")" 1 "$(wc -l <"$TSYNC_TMP/err")"
        assertContains "$(cat "$TSYNC_TMP/err")" "$2"
}

# no_relay_no_init_start MODE WANT: absent (no relay), close (the relay closes at once, as it does
# for any process but the container's), vanish (it goes away before it answers), refuse (it says
# why not), agentless (the relay cannot reach the agent): status 126, one line with WANT, and the
# workload never runs.
no_relay_no_init_start() {
        [ "$1" = absent ] || start_relay "$1" || return
        agent_filter "$TSYNC_TMP/f.bpf" /.oci-seccomp-tsync/agent/relay m || fail "filter_file.py"
        init_refuses 126 "$2"
        assertContains "$(cat "$TSYNC_TMP/err")" "the workload is not started"
}
testOurInitDoesNotStartTheWorkloadWithoutARelay() {
        no_relay_no_init_start absent "$TSYNC_TMP/relay.sock: cannot reach the relay of the createRuntime hook"
}
testOurInitDoesNotStartTheWorkloadWhenTheRelayClosesAtOnce() {
        no_relay_no_init_start close "the relay closed the connection (it accepts the container's first process alone)"
}
testOurInitDoesNotStartTheWorkloadWhenTheRelayGoesAway() {
        no_relay_no_init_start vanish "the relay went away before the seccomp agent had the listener"
}
testOurInitPrintsWhyTheRelayRefused() { no_relay_no_init_start refuse ": the agent said no; the workload"; }
testOurInitDoesNotStartTheWorkloadWhenTheRelayCannotReachTheAgent() {
        no_relay_no_init_start relay "$TSYNC_TMP/agent.sock: cannot reach the seccomp agent (listenerPath)"
}

# important_filter FILE: on x86-64, runc's important syscalls (execve, openat, open, read,
# close) and the init's own after its load (recvmsg, capset, seccomp) to the agent, with getppid
# and mkdir; the rest allowed.
important_filter() {
        local insns="0x20,0,0,4 0x15,1,0,0xc000003e 0x06,0,0,0x7fff0000 0x20,0,0,0" nr
        for nr in 0 2 3 47 59 83 110 126 257 317; do
                insns="$insns 0x15,0,1,$nr 0x06,0,0,0x7fc00000"
        done
        python3 "$TSYNC_TOP/tests/tools/filter_file.py" --agent /.oci-seccomp-tsync/agent/relay m "$1" \
                $insns 0x06,0,0,0x7fff0000
}

# The agent holds the listener from right after its filter's load: it answers the init's own
# calls after it (the next filter's load, the relay's answer, the proof's reads), and every thread.
testOurInitLetsTheAgentAnswerItsOwnCallsAfterTheHandOver() {
        start_agent || return
        start_relay relay || return
        important_filter "$TSYNC_TMP/f.bpf" || fail "filter_file.py"
        python3 "$TSYNC_TOP/tests/tools/filter_file.py" "$TSYNC_TMP/g.bpf" 0x06,0,0,0x7fff0000 || fail "filter_file.py"
        run_init -f "$TSYNC_TMP/f.bpf" -f "$TSYNC_TMP/g.bpf" --relay "$TSYNC_TMP/relay.sock" -- "$PROBE" -n 4 getppid
        assertEquals "init: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        assert_agents_getppid
        local call
        for call in seccomp recvmsg close read execve; do
                grep -q " call=$call$" "$TSYNC_TMP/agent.calls" ||
                        fail "the agent answered no $call: $(sort -u "$TSYNC_TMP/agent.calls" | tr '\n' ' ')"
        done
}

# An agent that answers the proof's reads otherwise than CONTINUE fails the start (125): an error
# for every read, or ESRCH, which a thread gone would give (never skipped with an agent: none of
# the init's threads exits before the workload starts).
proof_read_answered() {
        SECCOMP_AGENT_READ_ERRNO=$1 start_agent || return
        start_relay relay || return
        important_filter "$TSYNC_TMP/f.bpf" || fail "filter_file.py"
        init_refuses 125 "verify: cannot read /proc/self/task/"
}
notify_cases <<'EOF'
OurInitRefusesWhenTheAgentFailsTheProofsReads          proof_read_answered 5
OurInitRefusesWhenTheAgentSaysTheProofsThreadsAreGone  proof_read_answered 3
EOF

# A relay that takes the listener and then refuses: the init's copy is closed already, so its
# notified calls fail (ENOSYS) once the relay lets go, and the init refuses, never hangs.
testOurInitRefusesWithoutWaitingWhenTheRelayTakesTheListenerAndRefuses() {
        start_relay refuse || return
        important_filter "$TSYNC_TMP/f.bpf" || fail "filter_file.py"
        init_refuses 126 "the workload is not started"
        echo "  $(cat "$TSYNC_TMP/err")"
}

testOurInitRefusesAnAgentFilterWithoutTheRelayAndTheRelayWithoutOne() {
        agent_filter "$TSYNC_TMP/f.bpf" /.oci-seccomp-tsync/agent/relay m || fail "filter_file.py"
        run_init -f "$TSYNC_TMP/f.bpf" -- /bin/sh -c "echo ran >$TSYNC_TMP/marker"
        assertEquals "without --relay: $(cat "$TSYNC_TMP/err")" 122 "$rc"
        assertContains "$(cat "$TSYNC_TMP/err")" "but --relay is not given"
        run_init --relay "$TSYNC_TMP/relay.sock" -- /bin/sh -c "echo ran >$TSYNC_TMP/marker"
        assertEquals "--relay alone: $(cat "$TSYNC_TMP/err")" 122 "$rc"
        assertFalse "the workload ran" "[ -e $TSYNC_TMP/marker ]"
}

testOurInitRefusesAForgedTrailer() {
        # "run/a.sock\0m\0" padded: a relative path, checksum sealed over it.
        python3 "$TSYNC_TOP/tests/tools/filter_file.py" --listener 2 --trailer 72756e2f612e736f636b006d00000000 \
                "$TSYNC_TMP/f.bpf" 0x20,0,0,0 0x15,0,1,110 0x06,0,0,0x7fc00000 0x06,0,0,0x7fff0000 || fail "filter_file.py"
        run_init -f "$TSYNC_TMP/f.bpf" --relay "$TSYNC_TMP/relay.sock" -- /bin/sh -c "echo ran >$TSYNC_TMP/marker"
        assertEquals "status: $(cat "$TSYNC_TMP/err")" 122 "$rc"
        assertContains "$(cat "$TSYNC_TMP/err")" "bad filter file: trailer: the agent's path is not absolute"
        assertFalse "the workload ran" "[ -e $TSYNC_TMP/marker ]"
}

notify_cases <<'EOF'
RuncAnswersComeFromTheAgentInEveryThread   answers_in_every_thread runc
CrunAnswersComeFromTheAgentInEveryThread   answers_in_every_thread crun
RuncSendsTheAgentTheContainerProcessState  the_state_is_sent runc
CrunSendsTheAgentTheContainerProcessState  the_state_is_sent crun
RuncDoesNotStartWithoutAnAgent             no_agent_no_start runc absent
RuncDoesNotStartWhenTheAgentIsGone         no_agent_no_start runc gone
CrunDoesNotStartWithoutAnAgent             no_agent_no_start crun absent
EOF

# Through our hook and init (layer: `inject --profile`; replace: `inject --replace`): the same
# answers in every thread, the same state, and no start without an agent, as runc's own runs above.
notify_cases <<'EOF'
LayerUnderRuncAnswersComeFromTheAgentInEveryThread     WRAP=layer answers_in_every_thread runc
ReplaceUnderRuncAnswersComeFromTheAgentInEveryThread   WRAP=replace answers_in_every_thread runc
LayerUnderRuncSendsTheAgentTheContainerProcessState    WRAP=layer the_state_is_sent runc
ReplaceUnderRuncSendsTheAgentTheContainerProcessState  WRAP=replace the_state_is_sent runc
LayerUnderRuncDoesNotStartWithoutAnAgent               WRAP=layer no_agent_no_start runc absent
ReplaceUnderRuncDoesNotStartWhenTheAgentIsGone         WRAP=replace no_agent_no_start runc gone
LayerUnderCrunAnswersComeFromTheAgentInEveryThread     WRAP=layer answers_in_every_thread crun
ReplaceUnderCrunSendsTheAgentTheContainerProcessState  WRAP=replace the_state_is_sent crun
EOF

# The default delivery (issue 12): the filters in the init's arguments, and the agent's state written
# by the createRuntime hook inject adds for an agent, into the agent's private tmpfs.
notify_cases <<'EOF'
DefaultDeliveryLayerUnderRuncAnswersComeFromTheAgentInEveryThread     AT_START= WRAP=layer answers_in_every_thread runc
DefaultDeliveryReplaceUnderRuncAnswersComeFromTheAgentInEveryThread   AT_START= WRAP=replace answers_in_every_thread runc
DefaultDeliveryLayerUnderRuncSendsTheAgentTheContainerProcessState    AT_START= WRAP=layer the_state_is_sent runc
DefaultDeliveryReplaceUnderRuncSendsTheAgentTheContainerProcessState  AT_START= WRAP=replace the_state_is_sent runc
DefaultDeliveryLayerUnderRuncDoesNotStartWithoutAnAgent               AT_START= WRAP=layer no_agent_no_start runc absent
DefaultDeliveryReplaceUnderRuncDoesNotStartWhenTheAgentIsGone         AT_START= WRAP=replace no_agent_no_start runc gone
DefaultDeliveryLayerUnderCrunAnswersComeFromTheAgentInEveryThread     AT_START= WRAP=layer answers_in_every_thread crun
DefaultDeliveryReplaceUnderCrunAnswersComeFromTheAgentInEveryThread   AT_START= WRAP=replace answers_in_every_thread crun
DefaultDeliveryLayerUnderCrunSendsTheAgentTheContainerProcessState    AT_START= WRAP=layer the_state_is_sent crun
DefaultDeliveryReplaceUnderCrunDoesNotStartWithoutAnAgent             AT_START= WRAP=replace no_agent_no_start crun absent
EOF

# The plan records the agent's listenerPath, as schema/plan.schema.json says (and the schema refuses
# a relative one).
testThePlanRecordsTheListenerPathAsItsSchemaSays() {
        notify_bundle "$TSYNC_TMP/b" "$TSYNC_TMP/agent.sock" /bin/threads_probe getppid || fail "bundle"
        AT_START= WRAP=replace wrap "$TSYNC_TMP/b" || fail "inject"
        jq -r '.annotations["io.oci-seccomp-tsync.plan"]' "$TSYNC_TMP/b/config.json" >"$TSYNC_TMP/plan.json"
        assertEquals "plan.listenerPath" "$TSYNC_TMP/agent.sock" "$(jq -r .listenerPath "$TSYNC_TMP/plan.json")"
        python3 "$TSYNC_TOP/tests/tools/validate_json.py" "$TSYNC_TOP/schema/plan.schema.json" \
                "$TSYNC_TMP/plan.json" >"$TSYNC_TMP/v.out" 2>&1 || fail "$(cat "$TSYNC_TMP/v.out")"
        jq '.listenerPath = "run/agent.sock"' "$TSYNC_TMP/plan.json" >"$TSYNC_TMP/bad.json"
        assertFalse "a relative listenerPath passes the schema" \
                "python3 $TSYNC_TOP/tests/tools/validate_json.py $TSYNC_TOP/schema/plan.schema.json $TSYNC_TMP/bad.json"
        assertEquals "createRuntime and poststop hooks for the agent" '["createRuntime","poststop"]' \
                "$(jq -c '.hooks | keys' "$TSYNC_TMP/b/config.json")"
}

# no_host_socket_inside RUNTIME (issue 23): the workload finds the relay's tmpfs empty and no
# socket anywhere under /.oci-seccomp-tsync (nor at the agent's host path), so it has no way to
# the agent; the agent heard from exactly one connection, ours, with the container's id and pid.
no_host_socket_inside() {
        local rt=$1 id
        start_agent || return
        notify_bundle "$TSYNC_TMP/b" "$TSYNC_TMP/agent.sock" /bin/sh -c \
                "ls -a /.oci-seccomp-tsync/agent; /bin/unix_probe /.oci-seccomp-tsync $TSYNC_TMP/agent.sock" \
                || fail "bundle"
        id=$(tsync_unique_id "private-$rt")
        run_rt "$rt" "$id" "$TSYNC_TMP/b"
        assertEquals "$rt run: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        assertEquals "what the workload found" ".
..
walk $TSYNC_TMP/agent.sock errno:2
sockets=0" "$(cat "$TSYNC_TMP/out")"
        assertEquals "$rt: connections the agent had: $(cat "$TSYNC_TMP/agent.log")" 2 "$(wc -l <"$TSYNC_TMP/agent.log")"
        assertEquals "$rt: the agent got the state" "$id" "$(sed -n 1p "$TSYNC_TMP/agent.log" | jq -r .state.id)"
}
notify_cases <<'EOF'
TheWorkloadFindsNoSocketOfTheHostUnderRunc        AT_START= WRAP=layer no_host_socket_inside runc
TheWorkloadFindsNoSocketOfTheHostUnderCrun        AT_START= WRAP=replace no_host_socket_inside crun
TheWorkloadFindsNoSocketOfTheHostWithFilterFiles  WRAP=layer no_host_socket_inside runc
EOF

# Between create and start (runc): the relay of this container, found as the process of our hook
# holding a pidfd of the container's process; rc 1 when there is none.
relay_of() {
        local cpid=$1 p exe
        exe=$(readlink -f "$OCI")
        for p in /proc/[0-9]*; do
                [ "$(readlink "$p/exe" 2>/dev/null)" = "$exe" ] || continue
                grep -qs "^Pid:[[:space:]]*$cpid\$" "$p"/fdinfo/* && echo "${p#/proc/}" && return 0
        done
        return 1
}
# gone PID: waits (30 s at most) until PID has exited.
gone() {
        local i
        for ((i = 0; i < 600; i++)); do
                [ -e "/proc/$1" ] || return 0
                sleep 0.05
        done
        return 1
}
# created ARGS...: $TSYNC_TMP/b (the default delivery, a layer) created under runc as $ID, its
# process in CPID and its relay in RELAY (the test's output in $TSYNC_TMP/out and err).
created() {
        start_agent || return 1
        notify_bundle "$TSYNC_TMP/b" "$TSYNC_TMP/agent.sock" "$@" || return 1
        AT_START= WRAP=layer wrap "$TSYNC_TMP/b" || return 1
        ID=$(tsync_unique_id "relay")
        _tsync_register runc "$ID"
        runc create --bundle "$TSYNC_TMP/b" "$ID" </dev/null >"$TSYNC_TMP/out" 2>"$TSYNC_TMP/err" || {
                fail "runc create: $(cat "$TSYNC_TMP/err")"
                return 1
        }
        CPID=$(runc_pid "$ID") || return 1
        RELAY=$(relay_of "$CPID") || {
                fail "no relay for the created container $CPID"
                return 1
        }
}
# stopped: waits (30 s at most) until $ID has stopped, then removes it.
stopped() {
        local i
        for ((i = 0; i < 600; i++)); do
                [ "$(runc state "$ID" 2>/dev/null | jq -r .status)" = stopped ] && break
                sleep 0.05
        done
        _tsync_remove_container runc "$ID"
        _tsync_unregister runc "$ID"
}

testAProcessOtherThanTheInitIsRefusedByTheRelayAndTheAgentNeverHearsOfIt() {
        created /bin/threads_probe getppid || return
        local sock=/proc/$CPID/root/.oci-seccomp-tsync/agent/relay got
        assertTrue "the relay's socket in the created container" "[ -S $sock ]"
        # A process of the host (root, not the container's) through /proc/PID/root: closed unread.
        got=$(python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
try:
    s.sendall(b"L\0\0\0\0")
    got = s.recv(64)
except (ConnectionResetError, BrokenPipeError):
    got = b""
print("closed" if got == b"" else repr(got))' "$sock" 2>&1)
        assertEquals "what the relay told a stranger" "closed" "$got"
        assertTrue "the relay still waits for the init" "[ -e /proc/$RELAY ] && [ -S $sock ]"
        assertEquals "the agent heard of the stranger" "" "$(cat "$TSYNC_TMP/agent.log")"
        runc start "$ID" 2>>"$TSYNC_TMP/err" || fail "runc start: $(cat "$TSYNC_TMP/err")"
        stopped
        assertNotEquals "the workload ran: $(cat "$TSYNC_TMP/err")" 0 "$(grep -c '^tid=' "$TSYNC_TMP/out")"
        assertEquals "threads whose getppid was not the agent's: $(cat "$TSYNC_TMP/out")" 0 \
                "$(grep '^tid=' "$TSYNC_TMP/out" | grep -vc ' call=getppid rc=4242 errno=0$')"
        assertEquals "connections the agent had: $(cat "$TSYNC_TMP/agent.log")" 2 "$(wc -l <"$TSYNC_TMP/agent.log")"
        assertEquals "state.id" "$ID" "$(sed -n 1p "$TSYNC_TMP/agent.log" | jq -r .state.id)"
        assertEquals "state.pid: the container's" "$CPID" "$(sed -n 1p "$TSYNC_TMP/agent.log" | jq -r .state.pid)"
        assertTrue "the relay is gone after the start" "gone $RELAY"
}

testTheRelayIsGoneWhenACreatedContainerIsDeletedWithoutStart() {
        created /bin/threads_probe getppid || return
        runc delete -f "$ID" 2>>"$TSYNC_TMP/err" || fail "runc delete: $(cat "$TSYNC_TMP/err")"
        _tsync_unregister runc "$ID"
        assertTrue "the relay is gone" "gone $RELAY"
        assertEquals "the agent heard of it" "" "$(cat "$TSYNC_TMP/agent.log")"
}

testAContainerWhoseRelayIsGoneDoesNotStart() {
        created /bin/sh -c "echo ran >/tmp/marker" || return
        # The relay killed outright leaves its socket behind, unanswered.
        kill -KILL "$RELAY" && gone "$RELAY"
        runc start "$ID" 2>>"$TSYNC_TMP/err"
        stopped
        assertContains "$(cat "$TSYNC_TMP/err")" \
                "/.oci-seccomp-tsync/agent/relay: cannot reach the relay of the createRuntime hook, which hands the seccomp agent (listenerPath) its listener: Connection refused; the workload is not started"
        assertFalse "the workload ran" "[ -e $TSYNC_TMP/b/rootfs/tmp/marker ]"
        assertEquals "the agent heard of it" "" "$(cat "$TSYNC_TMP/agent.log")"
}

# process.user: the relay's tmpfs and socket are the user's, and the relay reaches the agent from
# the host as root, as runc does: the agent's socket may be root's alone (the test agent makes it
# 0600), as under runc.
testAnAgentWithASocketOfRootsAloneServesAWorkloadOfAnotherUser() {
        local id
        start_agent || return
        chmod 0600 "$TSYNC_TMP/agent.sock"
        notify_bundle "$TSYNC_TMP/b" "$TSYNC_TMP/agent.sock" /bin/sh -c \
                'ls -a /.oci-seccomp-tsync/agent; id -u; exec /bin/threads_probe -n 4 getppid' || fail "bundle"
        tsync_json_edit "$TSYNC_TMP/b/config.json" '.process.user = {uid: 1000, gid: 1000}' || fail "user"
        id=$(tsync_unique_id "user-runc")
        AT_START= WRAP=layer run_rt runc "$id" "$TSYNC_TMP/b"
        assertEquals "runc run: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        assert_agents_getppid
        assertEquals "the workload (uid 1000) found the relay's tmpfs empty" ".
..
1000" "$(grep -v '^tid=' "$TSYNC_TMP/out")"
}

# The image's own /.oci-seccomp-tsync/agent: runc gives the tmpfs that directory's mode, so one
# that others can write to is refused by createRuntime; one that only its owner writes to is fine.
image_dir() {
        local id
        start_agent || return
        notify_bundle "$TSYNC_TMP/b" "$TSYNC_TMP/agent.sock" /bin/sh -c \
                'ls -a /.oci-seccomp-tsync/agent; exec /bin/threads_probe getppid' || fail "bundle"
        mkdir -p "$TSYNC_TMP/b/rootfs/.oci-seccomp-tsync/agent"
        chmod "$1" "$TSYNC_TMP/b/rootfs/.oci-seccomp-tsync/agent"
        id=$(tsync_unique_id "imagedir")
        AT_START= WRAP=replace run_rt runc "$id" "$TSYNC_TMP/b"
}
# The image's directory lies under our read-only tmpfs (issue 35): its mode never reaches the
# relay's directory, which is made afresh there.
testAnAgentDirectoryOthersCanWriteToInTheImageDoesNotReachTheRelay() {
        image_dir 0777
        assertEquals "runc run: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        assert_agent_tmpfs_empty
        assert_agents_getppid
}
testAnAgentDirectoryInTheImageThatOnlyItsOwnerWritesToIsFine() {
        image_dir 0755
        assertEquals "runc run: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        assert_agent_tmpfs_empty
        assert_agents_getppid
}

# Podman (rootful): the precreate hook rewrites the config for a layer named by annotation, and the
# createRuntime hook from the same hooks.d writes the agent's state.
podman_notify() {
        local rt=$1 name state
        start_agent || return
        mkdir -p "$TSYNC_TMP/profiles" "$TSYNC_TMP/rootfs"
        jq -n --arg sock "$TSYNC_TMP/agent.sock" '{defaultAction: "SCMP_ACT_ALLOW", listenerPath: $sock,
                listenerMetadata: "podman", architectures: ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
                syscalls: [{names: ["mkdir", "mkdirat", "getppid"], action: "SCMP_ACT_NOTIFY"}]}' \
                >"$TSYNC_TMP/profiles/notify.json"
        podman_hooks_dir "$TSYNC_TMP/hooks.d" "$TSYNC_TMP/profiles" "" "$TSYNC_TMP/cache" || fail "hooks.d"
        make_rootfs "$TSYNC_TMP/rootfs" "$PROBE" || fail "rootfs"
        name=$(tsync_unique_id "notify-podman-$rt")
        podman --hooks-dir "$TSYNC_TMP/hooks.d" run --rm --name "$name" --runtime "$rt" --label tsync-test=$$ \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --annotation io.oci-seccomp-tsync.layers=notify --rootfs "$TSYNC_TMP/rootfs" \
                /bin/sh -c 'ls -a /.oci-seccomp-tsync/agent; exec /bin/threads_probe -n 4 getppid' \
                </dev/null >"$TSYNC_TMP/out" 2>"$TSYNC_TMP/err"
        rc=$?
        assertEquals "podman run ($rt): $(cat "$TSYNC_TMP/err")" 0 "$rc"
        assert_agents_getppid
        assert_agent_tmpfs_empty
        state=$(sed -n 1p "$TSYNC_TMP/agent.log")
        assertEquals "metadata: $state" podman "$(jq -r .metadata <<<"$state")"
        [[ "$(jq -r .state.id <<<"$state")" =~ ^[0-9a-f]{64}$ ]] || fail "state.id is no Podman id: $state"
        jq -e '.pid > 1 and .state.status == "creating"' <<<"$state" >/dev/null || fail "state: $state"
        jq -e '.state.annotations | has("io.oci-seccomp-tsync.plan") | not' <<<"$state" >/dev/null ||
                fail "our plan reached the agent: $state"
}
# (crun under Podman needs this host's cgroup workaround, see test_exec_parity.sh: runc only.)
testPodmanRunsANotifyLayerByAnnotationUnderRunc() { podman_notify runc; }

# The runtime wrapper (oci-seccomp-tsync-runtime): precreate's rewrite for a layer named on its
# command line, with our createRuntime hook in the config for the agent's state.
testTheRuntimeWrapperRunsANotifyLayerUnderRunc() {
        local id
        start_agent || return
        mkdir -p "$TSYNC_TMP/profiles"
        notify_bundle "$TSYNC_TMP/b" "$TSYNC_TMP/agent.sock" /bin/sh -c \
                'ls -a /.oci-seccomp-tsync/agent; exec /bin/threads_probe -n 4 getppid' || fail "bundle"
        jq .linux.seccomp "$TSYNC_TMP/b/config.json" >"$TSYNC_TMP/profiles/notify.json" || fail "profile"
        tsync_json_edit "$TSYNC_TMP/b/config.json" 'del(.linux.seccomp)' || fail "config"
        : >"$TSYNC_TMP/runtime.conf"
        id=$(tsync_unique_id "notify-wrapper")
        _tsync_register runc "$id"
        "$TSYNC_BUILD/bin/oci-seccomp-tsync-runtime" --runtime-config="$TSYNC_TMP/runtime.conf" \
                --profile-dir="$TSYNC_TMP/profiles" --cache-dir="$TSYNC_TMP/cache" --layers=notify \
                run -b "$TSYNC_TMP/b" "$id" </dev/null >"$TSYNC_TMP/out" 2>"$TSYNC_TMP/err"
        rc=$?
        _tsync_remove_container runc "$id"
        _tsync_unregister runc "$id"
        assertEquals "wrapper run: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        assert_agents_getppid
        assert_agent_tmpfs_empty
        assertEquals "state.id" "$id" "$(sed -n 1p "$TSYNC_TMP/agent.log" | jq -r .state.id)"
}

# runc's "important syscalls" case (its tests/integration/seccomp-notify.bats: execve, openat,
# open, read, close, with noNewPrivileges false and true), with fcntl and the calls our init makes
# after its load up to the workload's start (recvmsg, capset, prctl, rt_sigprocmask, clone): the
# init hands the agent its listener right after its filter's load, so the agent answers them all,
# the init's own proof reads among them (the agent saw read from the container's process, the
# state's pid), and a 4-thread workload gets the agent's getppid in every thread.
# important_syscalls RUNTIME NNP NAMES-JSON
important_syscalls() {
        local rt=$1 nnp=$2 names=$3 id pid
        start_agent || return
        notify_bundle "$TSYNC_TMP/b" "$TSYNC_TMP/agent.sock" /bin/threads_probe -n 4 getppid || fail "bundle"
        tsync_json_edit "$TSYNC_TMP/b/config.json" \
                ".process.noNewPrivileges = $nnp | .linux.seccomp.syscalls[0].names += $names" || fail "config"
        id=$(tsync_unique_id "important-$rt")
        run_rt "$rt" "$id" "$TSYNC_TMP/b"
        assertEquals "$rt run (${WRAP:-plain}, noNewPrivileges $nnp): $(cat "$TSYNC_TMP/err")" 0 "$rc"
        assert_agents_getppid
        pid=$(sed -n 1p "$TSYNC_TMP/agent.log" | jq -r .pid)
        grep -qx "pid=$pid call=read" "$TSYNC_TMP/agent.calls" ||
                fail "the agent answered no read of the container's process $pid: $(sort -u "$TSYNC_TMP/agent.calls" | head -20)"
        grep -q " call=execve$" "$TSYNC_TMP/agent.calls" || fail "the agent answered no execve"
}
RUNC_IMPORTANT='["execve", "openat", "open", "read", "close"]'
THE_INITS='["execve", "openat", "open", "read", "close", "fcntl", "recvmsg", "capset", "prctl", "rt_sigprocmask", "clone"]'
# The reference, runc alone, with noNewPrivileges true only: Debian 12's runc 1.1.5 panics on the
# false case ("No error following JSON procError payload"), a bug of that runc; under our init the
# runtime loads no notify filter, and both cases run (below).
notify_cases <<'EOF'
RuncRunsRuncsImportantSyscallsNoNewPrivilegesTrue                           important_syscalls runc true "$RUNC_IMPORTANT"
LayerUnderRuncRunsRuncsImportantSyscallsNoNewPrivilegesFalse                WRAP=layer important_syscalls runc false "$RUNC_IMPORTANT"
LayerUnderRuncRunsRuncsImportantSyscallsNoNewPrivilegesTrue                 WRAP=layer important_syscalls runc true "$RUNC_IMPORTANT"
ReplaceUnderRuncRunsRuncsImportantSyscallsNoNewPrivilegesFalse              WRAP=replace important_syscalls runc false "$RUNC_IMPORTANT"
ReplaceUnderRuncRunsRuncsImportantSyscallsNoNewPrivilegesTrue               WRAP=replace important_syscalls runc true "$RUNC_IMPORTANT"
LayerUnderCrunRunsRuncsImportantSyscallsNoNewPrivilegesFalse                WRAP=layer important_syscalls crun false "$RUNC_IMPORTANT"
ReplaceUnderCrunRunsRuncsImportantSyscallsNoNewPrivilegesTrue               WRAP=replace important_syscalls crun true "$RUNC_IMPORTANT"
LayerUnderRuncTheAgentAnswersTheInitsCallsNoNewPrivilegesFalse              WRAP=layer important_syscalls runc false "$THE_INITS"
ReplaceUnderCrunTheAgentAnswersTheInitsCallsNoNewPrivilegesFalse            AT_START= WRAP=replace important_syscalls crun false "$THE_INITS"
DefaultDeliveryLayerUnderRuncRunsRuncsImportantSyscallsNoNewPrivilegesTrue  AT_START= WRAP=layer important_syscalls runc true "$RUNC_IMPORTANT"
EOF

# SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (runc's seccomp-notify.bats runs it): the kernel takes
# the flag only with a listener, so the init asks about it together with NEW_LISTENER, as it loads
# it. A 4-thread workload gets the agent's answers in every thread.
killable_recv_answers() {
        local id
        start_agent || return
        notify_bundle "$TSYNC_TMP/b" "$TSYNC_TMP/agent.sock" /bin/threads_probe -n 4 getppid || fail "bundle"
        tsync_json_edit "$TSYNC_TMP/b/config.json" \
                '.linux.seccomp.flags = ["SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"]' || fail "config"
        id=$(tsync_unique_id "killable-$WRAP")
        run_rt runc "$id" "$TSYNC_TMP/b"
        assertEquals "runc run ($WRAP): $(cat "$TSYNC_TMP/err")" 0 "$rc"
        assert_agents_getppid
        assertEquals "the agent got one listener" "fds=1" "$(sed -n 2p "$TSYNC_TMP/agent.log")"
}
notify_cases <<'EOF'
LayerWithWaitKillableRecvUnderRuncLoadsAndTheAgentAnswers    WRAP=layer killable_recv_answers
ReplaceWithWaitKillableRecvUnderRuncLoadsAndTheAgentAnswers  AT_START= WRAP=replace killable_recv_answers
EOF

suite() {
        tsync_add_declared_tests
}

. shunit2
