#!/bin/bash
# Docker 20.10 with oci-seccomp-tsync-runtime registered under two names whose runtimeArgs
# name different layers (and a third naming a layer that does not exist). One dockerd for
# the suite, started and stopped here (see enginelib.sh).
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"
. "$HERE/enginelib.sh"
IMAGE=tsync-runtime-test:1

oneTimeSetUp() {
        tsync_need_built "$RUNTIME" "$INIT" "$OCI" "$THREADS"
        SUITE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tsync-docker.XXXXXX")
        : >"$SUITE_DIR/runtime.conf"
        local name layer common
        common=$(jq -cn --arg c "$SUITE_DIR/runtime.conf" --arg p "$PROFILES" --arg d "$SUITE_DIR/cache" \
                '["--runtime-config=" + $c, "--profile-dir=" + $p, "--cache-dir=" + $d]')
        printf '{"runtimes": {}}' >"$SUITE_DIR/daemon.json"
        for name in mkdir:deny-mkdir getcwd:deny-getcwd missing:no-such-layer; do
                layer=${name#*:}
                tsync_json_edit "$SUITE_DIR/daemon.json" \
                        '.runtimes["tsync-" + $n] = {path: $r, runtimeArgs: ($common + ["--layers=" + $l])}' \
                        --arg n "${name%%:*}" --arg r "$RUNTIME" --arg l "$layer" --argjson common "$common" || return 1
        done
        make_rootfs "$SUITE_DIR/rootfs" "$THREADS" >/dev/null || return 1
        docker_start "$SUITE_DIR" || return 1
        engine_image_tar "$SUITE_DIR/rootfs" | docker_cmd import - "$IMAGE" >/dev/null || tsync_log "docker import failed"
}

oneTimeTearDown() {
        local ids
        ids=$(docker_cmd ps -aq 2>/dev/null)
        # shellcheck disable=SC2086 # one id a word
        [ -z "$ids" ] || docker_cmd rm -f $ids >/dev/null 2>&1
        engine_stop_all
        rm -rf "$SUITE_DIR"
}

setUp() {
        tsync_test_begin
        docker_cmd image inspect "$IMAGE" >/dev/null 2>&1 || fail "dockerd or the image is not there"
        NAME=$(tsync_unique_id docker)
}

tearDown() {
        docker_cmd rm -f "$NAME" >/dev/null 2>&1
        tsync_test_end
}

# drun ARGS...: `docker run --rm --network none ARGS`; output in $TSYNC_TMP/out (stdout and stderr), status in $rc.
drun() {
        docker_cmd run --rm --network none --name "$NAME" "$@" >"$TSYNC_TMP/out" 2>&1
        rc=$?
}

testDockerRunWithTheRuntimeGetsDockersProfileAndTheLayerOnEveryThread() {
        local script="$PROBE; tr '\\0' ' ' </proc/1/cmdline; echo; unshare -U true 2>&1 || echo unshare: denied
                /bin/threads_probe -n 4 mkdir /tmp/t"
        drun "$IMAGE" sh -c "$script"
        assertEquals "runc alone: $(cat "$TSYNC_TMP/out")" 0 "$rc"
        cp "$TSYNC_TMP/out" "$TSYNC_TMP/plain"
        assertEquals "runc alone: Docker's profile on PID 1" "" "$(init_threads_without "$TSYNC_TMP/plain" 1)"
        grep -q "unshare: denied" "$TSYNC_TMP/plain" || fail "Docker's profile allows unshare: $(cat "$TSYNC_TMP/plain")"

        drun --runtime tsync-mkdir "$IMAGE" sh -c "$script"
        out="$TSYNC_TMP/out"
        assertEquals "$(cat "$out")" 0 "$rc"
        assertTrue "no init threads listed" "grep -q '^init ' $out"
        assertEquals "init threads without Docker's profile + the layer" "" "$(init_threads_without "$out" 2)"
        grep -q "^/.oci-seccomp-tsync/init " "$out" || fail "PID 1 is not our init: $(cat "$out")"
        grep -q "unshare: denied" "$out" || fail "Docker's profile no longer applies: $(cat "$out")"
        assertEquals "threads reported" 5 "$(grep -c '^tid=' "$out")"
        assertEquals "threads without Docker's profile + the layer denying mkdir" "" \
                "$(grep '^tid=' "$out" | grep -v 'Seccomp_filters=2 .*call=mkdir rc=-1 errno=122' || true)"

        drun --runtime tsync-mkdir --security-opt seccomp=unconfined "$IMAGE" /bin/threads_probe -n 2 mkdir /tmp/t
        assertEquals "$(cat "$TSYNC_TMP/out")" 0 "$rc"
        assertEquals "unconfined: the layer alone" "" \
                "$(grep '^tid=' "$TSYNC_TMP/out" | grep -v 'Seccomp_filters=1 .*errno=122' || true)"
}

testEachRegisteredNameGetsItsOwnLayers() {
        drun --runtime tsync-getcwd "$IMAGE" sh -c '/bin/threads_probe -n 2 getcwd; mkdir /tmp/d && echo mkdir: ok'
        assertEquals "$(cat "$TSYNC_TMP/out")" 0 "$rc"
        assertEquals "threads where getcwd was not denied" "" \
                "$(grep '^tid=' "$TSYNC_TMP/out" | grep -v 'call=getcwd rc=-1 errno=123' || true)"
        grep -q "^mkdir: ok" "$TSYNC_TMP/out" || fail "the other name's layer applies: $(cat "$TSYNC_TMP/out")"
}

testDockerRunWithoutTheRuntimeIsUnaffected() {
        drun "$IMAGE" sh -c 'tr "\0" " " </proc/1/cmdline; echo; grep Seccomp_filters /proc/self/status
                mkdir /tmp/d && echo mkdir: ok'
        assertEquals "$(cat "$TSYNC_TMP/out")" 0 "$rc"
        grep -q "^sh -c" "$TSYNC_TMP/out" || fail "PID 1: $(cat "$TSYNC_TMP/out")"
        grep -q "^Seccomp_filters:.1$" "$TSYNC_TMP/out" || fail "filters: $(cat "$TSYNC_TMP/out")"
        grep -q "^mkdir: ok" "$TSYNC_TMP/out" || fail "mkdir: $(cat "$TSYNC_TMP/out")"
}

# exec_status RUNTIME [RUN OPTIONS...]: a container's `docker exec` status lines and what mkdir
# gets, as root and uid 1000.
exec_status() {
        local rt=$1 name="$NAME-$1"
        shift
        docker_cmd run -d --network none --name "$name" --runtime "$rt" "$@" "$IMAGE" sleep 60 >/dev/null || return 1
        for u in 0 1000; do
                docker_cmd exec -u "$u" "$name" sh -c 'grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp|Seccomp_filters):" \
                        /proc/self/status; mkdir /tmp/d$$ 2>&1 && echo mkdir: ok'
        done
        docker_cmd rm -f "$name" >/dev/null
}

# The exec'd process runs through our init (issue 23): Docker's profile and the layer, and
# otherwise exactly what runc gives it.
testDockerExecGetsTheLayerAndOtherwiseWhatItGetsWithoutOurRuntime() {
        local opts
        for opts in "" "--security-opt no-new-privileges" "--cap-add SYS_PTRACE --cap-drop CHOWN"; do
                # shellcheck disable=SC2086 # options split at blanks
                want=$(exec_status runc $opts) || fail "runc: $want"
                # shellcheck disable=SC2086
                got=$(exec_status tsync-mkdir $opts) || fail "ours: $got"
                assertEquals "docker exec with '$opts': privileges" "$(grep -v -e Seccomp_filters -e mkdir <<<"$want")" \
                        "$(grep -v -e Seccomp_filters -e mkdir <<<"$got")"
                assertEquals "runc: Docker's profile" "2 2" "$(grep -c 'Seccomp_filters:.1$' <<<"$want") $(grep -c '^mkdir: ok' <<<"$want")"
                assertEquals "ours: Docker's profile and the layer" "2 0" \
                        "$(grep -c 'Seccomp_filters:.2$' <<<"$got") $(grep -c '^mkdir: ok' <<<"$got")"
                assertEquals "ours: mkdir denied" 2 "$(grep -c 'Disk quota exceeded' <<<"$got")"
                assertContains "$got" "NoNewPrivs"
        done
}

testDockerExecPassesStatusAndATerminalThrough() {
        docker_cmd run -d --network none --name "$NAME" --runtime tsync-mkdir "$IMAGE" sleep 60 >/dev/null ||
                fail "run -d"
        docker_cmd exec "$NAME" sh -c 'exit 7'
        assertEquals "exit status" 7 $?
        docker_cmd exec "$NAME" sh -c 'kill -KILL $$'
        assertEquals "killed" 137 $?
        # -t: the process gets a terminal of its own (the client needs none for that).
        out=$(docker_cmd exec -t "$NAME" sh -c '[ -t 0 ] && [ -t 1 ] && echo tty: yes; grep Seccomp_filters /proc/self/status' |
                tr -d '\r\t')
        assertEquals "docker exec -t" "tty: yes
Seccomp_filters:2" "$out"
        # Without a process file (a HEALTHCHECK is a docker exec too): the layer holds.
        assertEquals "the container" "running" "$(docker_cmd inspect -f '{{.State.Status}}' "$NAME")"
}

# Docker's --init (issue 27): docker-init (tini) under our init is told -s (a subreaper), so it
# says nothing and keeps its duties for the workload: an orphaned grandchild reaped, SIGTERM
# forwarded, the status passed (128+N for signal N), as with runc alone.
# ZOMBIE: an orphan that exits at once; the script says whether a zombie is left.
ZOMBIE='(sh -c "exit 0" &); i=0; while [ $i -lt 100 ]; do z=$(cat /proc/[0-9]*/stat 2>/dev/null | grep -c ") Z "); [ "$z" = 0 ] && break; sleep 0.1; i=$((i + 1)); done; echo zombies=$z; grep Seccomp_filters /proc/self/status | tr -d "\t"'

testDockerRunInitIsQuietAndKeepsPid1sDuties() {
        local rt want
        for rt in runc tsync-mkdir; do
                want=1
                [ "$rt" = runc ] || want=2
                drun --init --runtime "$rt" "$IMAGE" sh -c "$ZOMBIE"
                assertEquals "$rt: $(cat "$TSYNC_TMP/out")" 0 "$rc"
                assertEquals "$rt: docker run --init's output alone" "zombies=0
Seccomp_filters:$want" "$(cat "$TSYNC_TMP/out")"
                drun --init --runtime "$rt" "$IMAGE" sh -c 'exit 7'
                assertEquals "$rt: exit status" 7 "$rc"
                drun --init --runtime "$rt" "$IMAGE" sh -c 'kill -KILL $$'
                assertEquals "$rt: killed by SIGKILL" 137 "$rc"
                assertEquals "$rt: nothing said" "" "$(cat "$TSYNC_TMP/out")"
                docker_cmd run -d --init --network none --name "$NAME" --runtime "$rt" "$IMAGE" \
                        sh -c 'trap "echo got TERM; exit 3" TERM; echo ready; while :; do sleep 0.1; done' >/dev/null ||
                        fail "$rt: run -d"
                engine_wait 30 eval "docker_cmd logs $NAME | grep -q ready" || fail "$rt: not ready"
                docker_cmd stop -t 60 "$NAME" >/dev/null
                assertEquals "$rt: SIGTERM forwarded to the workload" 3 "$(docker_cmd wait "$NAME")"
                assertEquals "$rt: its output" "ready
got TERM" "$(docker_cmd logs "$NAME" 2>&1)"
                docker_cmd rm -f "$NAME" >/dev/null
        done
        # Under ours, tini runs as a subreaper, as our init's child.
        docker_cmd run -d --init --network none --name "$NAME" --runtime tsync-mkdir "$IMAGE" sleep 60 >/dev/null ||
                fail "run -d"
        local pid
        pid=$(docker_cmd inspect -f '{{.State.Pid}}' "$NAME")
        assertEquals "PID 1's child" "/sbin/docker-init -s -- sleep 60 " \
                "$(tr '\0' ' ' </proc/"$(cat /proc/"$pid"/task/"$pid"/children | awk '{ print $1 }')"/cmdline)"
}

# -it: the terminal reaches the workload through our init and tini, quietly.
testDockerRunInitWithATerminalIsQuiet() {
        local rt
        for rt in runc tsync-mkdir; do
                script -qec "$DOCKER_CLIENT -H unix://$DOCKER_SOCK run --rm -it --init --network none --runtime $rt $IMAGE \
                        sh -c '[ -t 0 ] && [ -t 1 ] && echo tty: yes; exit 5'" /dev/null </dev/null >"$TSYNC_TMP/out" 2>&1
                rc=$?
                assertEquals "$rt: $(cat "$TSYNC_TMP/out")" 5 "$rc"
                # The terminal echoes the NUL script(1) sends at the end of its input as "^@".
                assertEquals "$rt: the output alone" "tty: yes" "$(tr -d '\r' <"$TSYNC_TMP/out" | sed 's/\^@//g')"
        done
}

testARefusalReachesDockerRunAndTheContainerNeverRuns() {
        docker_cmd run --network none --name "$NAME" --runtime tsync-missing "$IMAGE" sh -c 'echo ran' \
                >"$TSYNC_TMP/out" 2>&1
        assertEquals 125 $?
        assertNotContains "$(cat "$TSYNC_TMP/out")" "ran"
        assertContains "$(cat "$TSYNC_TMP/out")" "OCI runtime create failed: oci-seccomp-tsync: "
        assertContains "$(cat "$TSYNC_TMP/out")" ": layer 'no-such-layer': no such profile in $PROFILES"
        assertEquals "created" "$(docker_cmd inspect -f '{{.State.Status}}' "$NAME")"
}

. shunit2
