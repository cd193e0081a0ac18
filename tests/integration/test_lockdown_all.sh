#!/bin/bash
# `oci-seccomp-tsync lockdown --all`: the node's layers (node.conf) added to every running container
# the node's state roots name, each one that does not carry them yet. Real runc containers in a
# state root of the test's own (--only-roots --root), running lockdown_probe (several processes,
# many threads each: blocked in every kind of call under storms where the layer's effect is
# checked, idle elsewhere, which costs the machine nothing): each one covered once, a second run adds
# nothing; exclude lines, paused and not-started containers said and left as they are; a default
# container (noNewPrivileges false, no CAP_SYS_ADMIN) refused in one line with the fix, and covered
# under no-new-privs = set; --dry-run changes nothing; --or-kill kills only the container that
# could not be covered; a container that stalls to lockdown's deadlines holds up no other; a
# policy that cannot be read is never "no policy". Every --json object is validated against
# schema/lockdown-all.schema.json.
# shellcheck disable=SC2016 # jq's variables in single quotes
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"
. "$HERE/lockdownlib.sh"
. "$HERE/enginelib.sh"

SCHEMA=$TSYNC_TOP/schema/lockdown-all.schema.json
HOSTILE=$TSYNC_BUILD/tests/static/lockdown_hostile

oneTimeSetUp() {
        tsync_need_built "$OCI" "$PROBE" "$HOSTILE"
}

oneTimeTearDown() {
        engine_stop_all
        command -v podman >/dev/null &&
                podman ps -aq --filter label=tsync-test=$$ | xargs -r podman rm -f -t 0 >/dev/null 2>&1
        return 0
}

setUp() {
        lockdown_setup
        R=$T/root
        mkdir -p "$R" "$T/profiles" && cp "$PROFILES/deny-mkdir.json" "$T/profiles/" || fail "setup"
        make_rootfs "$T/rootfs" "$PROBE" "$HOSTILE" || fail "rootfs"
        node_conf "layers = deny-mkdir"
        PIDS=()
}

# node_conf LINE...: $T/node.conf (root's, 0600).
node_conf() {
        printf '%s\n' "$@" >"$T/node.conf" && chmod 0600 "$T/node.conf"
}

# container NAME NNP ARG...: a runc container NAME ($ID-NAME) in $R running ARGS from the shared
# rootfs, noNewPrivileges NNP, runc's default capabilities, no seccomp of the runtime's; its pid
# in PIDS and its lockdown record remembered for tearDown.
container() {
        local name=$1 nnp=$2 dir=$T/b-$1 pid
        shift 2
        mkdir -p "$dir/rootfs" || return 1
        make_bundle "$dir" "$@" || return 1
        tsync_json_edit "$dir/config.json" '.process.noNewPrivileges = $nnp | del(.linux.seccomp)
                | .process.capabilities.ambient = [] | .root.path = $rootfs' --argjson nnp "$nnp" \
                --arg rootfs "$T/rootfs" || return 1
        _tsync_start "runc:$R" "$ID-$name" "$dir" runc --root "$R" || return 1
        pid=$(runc --root "$R" state "$ID-$name" | jq .pid) || return 1
        PIDS+=("$pid")
        record_of "$pid"
}

pid_of() {
        runc --root "$R" state "$ID-$1" | jq -r .pid
}

# all ARGS...: lockdown --all over $R alone, with $T/node.conf and $T/profiles; stdout in $T/out,
# stderr in $T/err, status in $rc.
all() {
        timeout 180 "$OCI" lockdown --all --only-roots --root "$R" --node-conf "$T/node.conf" \
                --profile-dir "$T/profiles" "$@" >"$T/out" 2>"$T/err"
        rc=$?
}

json_all() {
        all --json "$@"
        python3 "$TSYNC_TOP/tests/tools/validate_json.py" "$SCHEMA" "$T/out" >"$T/valid" 2>&1 ||
                fail "the JSON does not follow the schema: $(cat "$T/valid")"
}

# line NAME: the line of container NAME in $T/out.
line() {
        grep "^$ID-$1 (runc " "$T/out"
}

# filters NAME: the distinct Seccomp_filters counts of every live task of container NAME.
filters() {
        all_tasks "$(pid_of "$1")" | awk '{print $3}' | sort -u | tr '\n' ' '
}

# Containers under storms (threads and processes born and ending all the time, every kind of
# blocked call): each covered, every task once, and the layer holds for each of them.
testEveryContainerIsCoveredUnderStorms() {
        local n
        for n in a b; do
                container "$n" true /bin/lockdown_probe -p 2 || fail "container $n"
        done
        all
        assertEquals "$(cat "$T/out" "$T/err")" 0 "$rc"
        for n in a b; do
                assertContains "$n: $(line $n)" "$(line $n)" ": covered: 1 layer(s) added to "
                assertEquals "$n: every task carries the layer" "1 " "$(filters $n)"
        done
        assertContains "$(cat "$T/out")" "2 containers: 2 covered, 0 already covered, 0 left out, 0 not covered"
        # The layer holds: once told, every thread of every process tries mkdir.
        touch "$T/rootfs/tmp/go"
        sleep 2
        assertEquals "no mkdir went through: $(grep -h 'probe ' "$TSYNC_TMP/$ID-a.log" | head -5)" "" \
                "$(grep -h 'kind=.* rc=0 ' "$TSYNC_TMP/$ID-"[ab].log)"
        assertEquals "no probe saw anything wrong" "" "$(grep -h 'probe ERROR' "$TSYNC_TMP/$ID-"[ab].log)"
}

# A second run adds nothing: each container already carries the layer on every task.
testASecondRunAddsNothing() {
        local n
        for n in a b c; do
                container "$n" true /bin/lockdown_probe -i -p 2 -t 4 || fail "container $n"
        done
        all
        assertEquals "first run: $(cat "$T/out" "$T/err")" 0 "$rc"
        assertContains "$(cat "$T/out")" "3 containers: 3 covered, 0 already covered, 0 left out, 0 not covered"
        json_all
        assertEquals "second run: $(cat "$T/err")" 0 "$rc"
        assertEquals "second run: every container already covered" "already already already" \
                "$(jq -r '[.containers[] | .result] | join(" ")' "$T/out")"
        assertEquals "second run: nothing added" '3 0' "$(jq -r '"\(.summary.already) \(.summary.covered)"' "$T/out")"
        for n in a b c; do
                assertEquals "$n: still one filter on every task" "1 " "$(filters $n)"
        done
}

testLeftOutPausedAndNotStartedAreSaidAndLeftAsTheyAre() {
        container out true /bin/lockdown_probe -i -t 4 || fail "container out"
        container paused true /bin/lockdown_probe -i -t 4 || fail "container paused"
        container ok true /bin/lockdown_probe -i -t 4 || fail "container ok"
        runc --root "$R" pause "$ID-paused" || fail "pause"
        mkdir -p "$T/b-new/rootfs" && make_bundle "$T/b-new" /bin/lockdown_probe &&
                tsync_json_edit "$T/b-new/config.json" 'del(.linux.seccomp) | .root.path = $r' --arg r "$T/rootfs" ||
                fail "bundle new"
        _tsync_register "runc:$R" "$ID-new"
        runc --root "$R" create --bundle "$T/b-new" "$ID-new" </dev/null >/dev/null 2>&1 || fail "create"
        node_conf "layers = deny-mkdir" "exclude = runc/$ID-out: the test leaves it out"
        all
        assertEquals "exit 1: two are not covered: $(cat "$T/out" "$T/err")" 1 "$rc"
        assertContains "$(line out)" "left out: $T/node.conf, line 2: the test leaves it out"
        assertContains "$(line paused)" "refused: paused: lockdown never thaws a container someone else froze"
        assertContains "$(line new)" "refused: created, not started"
        assertContains "$(line ok)" ": covered: "
        assertEquals "left out: untouched" "0 " "$(filters out)"
        assertEquals "paused: still paused" paused "$(runc --root "$R" state "$ID-paused" | jq -r .status)"
        assertContains "$(cat "$T/out")" "4 containers: 1 covered, 0 already covered, 1 left out, 2 not covered"
        runc --root "$R" resume "$ID-paused" || fail "resume"
        assertEquals "paused: untouched" "0 " "$(filters paused)"
}

# Podman's and Docker's default: noNewPrivileges false and no CAP_SYS_ADMIN, so the kernel takes no
# filter until NO_NEW_PRIVS is set. Said once for the container with the fix, not once a thread.
testADefaultContainerIsRefusedInOneLineWithTheFix() {
        container dflt false /bin/lockdown_probe -i -p 2 -t 4 || fail "container"
        all
        assertEquals "$(cat "$T/out" "$T/err")" 1 "$rc"
        assertContains "$(line dflt)" "refused: "
        assertContains "$(line dflt)" "neither NO_NEW_PRIVS nor CAP_SYS_ADMIN"
        assertContains "$(line dflt)" "no-new-privs = set in node.conf, or --set-no-new-privs"
        assertEquals "one line of the container's own on stderr: $(cat "$T/err")" 1 \
                "$(grep -c "^oci-seccomp-tsync: $ID-dflt: " "$T/err")"
        assertEquals "nothing changed" "0 " "$(filters dflt)"
        # A lockdown of the container alone says it in one line too.
        timeout 60 "$OCI" lockdown --root "$R" --profile-dir "$T/profiles" --layers deny-mkdir \
                --node-conf "$T/node.conf" "$ID-dflt" >"$T/one.out" 2>"$T/one.err"
        rc=$?
        assertEquals "lockdown TARGET: $(cat "$T/one.err")" 1 "$rc"
        assertEquals "lockdown TARGET: one line: $(cat "$T/one.err")" 1 "$(grep -c . "$T/one.err")"
        assertContains "$(cat "$T/one.err")" "--set-no-new-privs"
        node_conf "layers = deny-mkdir" "no-new-privs = set"
        all
        assertEquals "under no-new-privs = set: $(cat "$T/out" "$T/err")" 0 "$rc"
        assertContains "$(line dflt)" ": covered: "
        assertEquals "every task carries the layer" "1 " "$(filters dflt)"
}

# The docs' first example on Podman's default container (noNewPrivileges false, Podman's default
# capabilities, no CAP_SYS_ADMIN), kept in the suite's root (runc --root through
# --runtime-flag): node.conf's no-new-privs = set, then lockdown --all covers every task of it,
# named as Podman names it.
testADefaultPodmanContainerIsCoveredUnderTheNodesPolicy() {
        command -v podman >/dev/null || {
                fail "podman is not installed"
                return
        }
        podman --runtime runc --runtime-flag "root=$R" run -d --name "$ID-pm" --label tsync-test=$$ \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --network none --rootfs "$T/rootfs" \
                /bin/lockdown_probe -p 2 >"$T/pm.out" 2>&1 || fail "podman run: $(cat "$T/pm.out")"
        local id pid
        id=$(podman inspect -f '{{.Id}}' "$ID-pm")
        pid=$(podman inspect -f '{{.State.Pid}}' "$ID-pm")
        record_of "$pid"
        assertEquals "Podman's default: no NO_NEW_PRIVS" 0 "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$pid/status")"
        local before
        before=$(all_tasks "$pid" | awk '{print $3}' | sort -u)
        node_conf "layers = deny-mkdir" "no-new-privs = set"
        all
        assertEquals "$(cat "$T/out" "$T/err")" 0 "$rc"
        assertContains "$(cat "$T/out")" "$ID-pm (podman ${id:0:12}): covered: "
        all_tasks "$pid" >"$T/after"
        assertEquals "every task carries the layer over Podman's profile: $(cat "$T/after")" "$((before + 1))" \
                "$(awk '{print $3}' "$T/after" | sort -u)"
        podman exec "$ID-pm" /bin/mkdir /tmp/made-by-exec >/dev/null 2>&1
        touch "$T/rootfs/tmp/go"
        sleep 2
        podman logs "$ID-pm" >"$T/pm.log" 2>&1
        assertEquals "no mkdir of the workload went through" "" "$(grep 'kind=.* rc=0 ' "$T/pm.log")"
        podman --runtime-flag "root=$R" rm -f -t 0 "$ID-pm" >/dev/null 2>&1
}

# node.conf grows a layer: the next pass adds only the new one (no layer twice).
testAPolicyThatGrowsAddsOnlyTheNewLayer() {
        cp "$PROFILES/deny-getcwd.json" "$T/profiles/" || fail "profile"
        container a true /bin/lockdown_probe -i -p 2 -t 4 || fail "container"
        all
        assertEquals "$(cat "$T/err")" 0 "$rc"
        node_conf "layers = deny-mkdir, deny-getcwd"
        all
        assertEquals "$(cat "$T/err")" 0 "$rc"
        assertContains "$(line a)" ": covered: 1 layer(s) added to "
        assertEquals "every task carries the two layers, each once" "2 " "$(filters a)"
        all
        assertContains "$(line a)" "already covered: every task carries the 2 layer(s)"
}

# watch_start: lockdown --all --watch over $R in the background, its lines in $T/watch.out, the
# system log's datagrams in $T/watch.log (a socket of the test's own); $WATCH its pid.
watch_start() {
        python3 -c "$TSYNC_SYSLOG_CATCH" "$T/log.sock" "$T/watch.log" "$OCI" lockdown --all --watch --only-roots \
                --root "$R" --node-conf "$T/node.conf" --profile-dir "$T/profiles" >"$T/watch.out" 2>&1 &
        WATCH=$!
        engine_wait 10 grep -q "lockdown --watch: watching" "$T/watch.out" || fail "the watch did not start"
}

# The watch covers a container that appears, and every task of every container within 10 s of a
# change of the policy; a policy that cannot be read keeps the layers in force; SIGTERM ends it
# with 0. Each action is in the system log.
testTheWatchCoversNewContainersAndPolicyChanges() {
        cp "$PROFILES/deny-getcwd.json" "$T/profiles/" || fail "profile"
        container a true /bin/lockdown_probe -i -t 4 || fail "container a"
        watch_start
        engine_wait 10 grep -q "^$ID-a (runc .*: covered: " "$T/watch.out" || fail "a: $(cat "$T/watch.out")"
        container b true /bin/lockdown_probe -i -p 2 -t 4 || fail "container b"
        engine_wait 10 grep -q "^$ID-b (runc .*: covered: " "$T/watch.out" ||
                fail "a new container within 10 s: $(cat "$T/watch.out")"
        assertEquals "b: every task" "1 " "$(filters b)"
        node_conf "layers = deny-mkdir, deny-getcwd"
        engine_wait 10 sh -c "[ \"\$(grep -c ': covered: 1 layer(s) added' '$T/watch.out')\" -ge 2 ]" ||
                fail "the policy's change within 10 s: $(cat "$T/watch.out")"
        engine_wait 5 sh -c "[ \"\$(grep -c ': covered: ' '$T/watch.out')\" -ge 4 ]"
        assertEquals "a: both layers, each once" "2 " "$(filters a)"
        assertEquals "b: both layers, each once" "2 " "$(filters b)"
        node_conf "layers = deny-mkdir, no-such-layer"
        engine_wait 10 grep -q "the layers in force stay" "$T/watch.out" ||
                fail "a broken policy is said: $(cat "$T/watch.out")"
        assertEquals "a: the layers in force stay" "2 " "$(filters a)"
        kill -TERM "$WATCH"
        wait "$WATCH"
        rc=$?
        assertEquals "SIGTERM ends the watch with 0: $(tail -3 "$T/watch.out")" 0 "$rc"
        assertContains "$(cat "$T/watch.out")" "lockdown --watch: stopped (signal 15)"
        assertContains "the system log: $(cat "$T/watch.log")" "$(cat "$T/watch.log")" "$ID-b (runc "
        assertContains "$(cat "$T/watch.log")" "the layers in force stay"
        assertEquals "no line about a container already covered: $(cat "$T/watch.out")" "" \
                "$(grep '): already covered' "$T/watch.out")"
}

# The same on Docker's default container (noNewPrivileges false, Docker's default capabilities and
# seccomp profile), found in the runc root of the suite's own dockerd.
testADefaultDockerContainerIsCoveredUnderTheNodesPolicy() {
        mkdir -p "$T/d" || fail "setup"
        docker_start "$T/d" || fail "dockerd did not start"
        engine_image_tar "$T/rootfs" | docker_cmd import - "tsync-ld-all-$$" >/dev/null || fail "docker import"
        docker_cmd run -d --network none --name "$ID-dk" "tsync-ld-all-$$" /bin/lockdown_probe -i -p 2 -t 4 \
                >"$T/dk.out" 2>&1 || fail "docker run: $(cat "$T/dk.out")"
        local id pid before
        id=$(docker_cmd inspect -f '{{.Id}}' "$ID-dk")
        pid=$(docker_cmd inspect -f '{{.State.Pid}}' "$ID-dk")
        record_of "$pid"
        assertEquals "Docker's default: no NO_NEW_PRIVS" 0 "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$pid/status")"
        sleep 0.5
        before=$(all_tasks "$pid" | awk '{print $3}' | sort -u)
        node_conf "layers = deny-mkdir" "no-new-privs = set"
        timeout 120 "$OCI" lockdown --all --only-roots --containerd-root "$T/d/exec/runtime-runc" \
                --node-conf "$T/node.conf" --profile-dir "$T/profiles" >"$T/out" 2>"$T/err"
        rc=$?
        assertEquals "$(cat "$T/out" "$T/err")" 0 "$rc"
        assertContains "$(cat "$T/out")" "$ID-dk (docker ${id:0:12}): covered: "
        all_tasks "$pid" >"$T/after"
        assertEquals "every task carries the layer over Docker's profile: $(cat "$T/after")" "$((before + 1))" \
                "$(awk '{print $3}' "$T/after" | sort -u)"
        docker_cmd rm -f "$ID-dk" >/dev/null 2>&1
}

testADryRunChangesNothing() {
        container a true /bin/lockdown_probe -i -t 4 || fail "container a"
        container d false /bin/lockdown_probe -i -t 4 || fail "container d"
        json_all --dry-run
        assertEquals "exit 1: nothing is covered yet: $(cat "$T/err")" 1 "$rc"
        assertEquals "true" "$(jq .dryRun "$T/out")"
        assertEquals "would-cover would-refuse" "$(jq -r '[.containers[] | .result] | join(" ")' "$T/out")"
        assertEquals "nothing changed in a" "0 " "$(filters a)"
        assertEquals "nothing changed in d" "0 " "$(filters d)"
        assertEquals "nothing traced or frozen in a" "0" "$(all_tasks "$(pid_of a)" | awk '{print $4}' | sort -u)"
        assertEquals "no record written" "" "$(ls "$RECORDS" 2>/dev/null | grep -E "^($(pid_of a)|$(pid_of d))-")"
        all --dry-run
        assertContains "$(line a)" ": would cover: 1 layer(s) to "
        assertContains "$(cat "$T/out")" "2 containers: 1 would be covered, 0 already covered, 0 left out, 1 not covered"
}

testOrKillKillsOnlyTheContainerThatCouldNotBeCovered() {
        container good true /bin/lockdown_probe -i -t 4 || fail "container good"
        container bad false /bin/lockdown_probe -i -t 4 || fail "container bad"
        all --or-kill
        assertEquals "$(cat "$T/out" "$T/err")" 1 "$rc"
        assertContains "$(line bad)" "; killed (--or-kill)"
        assertContains "$(line good)" ": covered: "
        assertEquals "bad is dead" stopped "$(runc --root "$R" state "$ID-bad" | jq -r .status)"
        assertEquals "good runs" running "$(runc --root "$R" state "$ID-good" | jq -r .status)"
}

# A PID 1 held in vfork never reaches a ptrace stop: its lockdown ends at its deadlines, in its own
# process, while the others are taken beside it (two at a time) and covered.
testAContainerThatStallsHoldsUpNoOther() {
        container stall true /bin/lockdown_hostile vfork || fail "container stall"
        local n
        for n in a b c; do
                container "$n" true /bin/lockdown_probe -i -t 4 || fail "container $n"
        done
        all --jobs 2
        assertEquals "$(cat "$T/out" "$T/err")" 1 "$rc"
        assertContains "$(line stall)" "refused: "
        for n in a b c; do
                assertContains "$n: $(line $n)" "$(line $n)" ": covered: "
        done
        assertEquals "nothing left traced in the stalled one" "0" \
                "$(all_tasks "$(pid_of stall)" | awk '{print $4}' | sort -u)"
        assertNotEquals "the stalled one is not left frozen" "frozen 1" "$(cgroup_frozen "$(pid_of stall)")"
}

testAPolicyThatCannotBeReadIsNeverNoPolicy() {
        container a true /bin/lockdown_probe -i -t 4 || fail "container"
        node_conf "layers = deny-mkdir" "no-new-privs = maybe"
        all
        assertEquals "a bad node.conf: $(cat "$T/err")" 1 "$rc"
        assertContains "$(cat "$T/err")" "$T/node.conf"
        assertEquals "no container line" "" "$(line a)"
        node_conf "exclude = runc/x: nothing else"
        all
        assertEquals "no layers: $(cat "$T/err")" 1 "$rc"
        assertContains "$(cat "$T/err")" "names no layers"
        chmod 0666 "$T/node.conf"
        all
        assertEquals "writable by others: $(cat "$T/err")" 1 "$rc"
        assertEquals "nothing changed" "0 " "$(filters a)"
}

# The unit the packages ship (examples/oci-seccomp-tsync-lockdown.service) is one systemd takes, and
# it runs the watch the test above drives.
testTheShippedSystemdUnitRunsTheWatch() {
        command -v systemd-analyze >/dev/null || {
                fail "systemd-analyze is not installed"
                return
        }
        mkdir -p "$T/units" || fail "setup"
        sed "s|@BINDIR@|$TSYNC_BUILD/bin|g" "$TSYNC_TOP/packaging/examples/oci-seccomp-tsync-lockdown.service.in" \
                >"$T/units/oci-seccomp-tsync-lockdown.service" || fail "unit"
        # The man page is the installed package's: its Documentation= line alone may fail here.
        systemd-analyze verify "$T/units/oci-seccomp-tsync-lockdown.service" 2>&1 | grep -v "Command 'man " >"$T/verify"
        assertEquals "systemd-analyze verify: $(cat "$T/verify")" "" "$(cat "$T/verify")"
        assertEquals "ExecStart=$TSYNC_BUILD/bin/oci-seccomp-tsync lockdown --all --watch" \
                "$(grep '^ExecStart=' "$T/units/oci-seccomp-tsync-lockdown.service")"
}

testBadCommandLinesAreRefused() {
        local args
        for args in "--all $ID" "--all --layers deny-mkdir" "--all --profile $PROFILES/deny-mkdir.json" \
                "--dry-run --layers deny-mkdir $ID" "--json --layers deny-mkdir $ID" "--all --jobs 0" \
                "--all --jobs 65" "--all --only-roots"; do
                # shellcheck disable=SC2086 # the words of args
                "$OCI" lockdown --node-conf "$T/node.conf" $args >"$T/out" 2>"$T/err"
                rc=$?
                assertEquals "lockdown $args: $(cat "$T/err")" 2 "$rc"
                assertEquals "lockdown $args: one line" 1 "$(grep -c '^oci-seccomp-tsync: ' "$T/err")"
        done
}

. shunit2
