#!/bin/bash
# exec through oci-seccomp-tsync-runtime (issue 23): a process started in a
# running container of ours by `RUNTIME exec --process FILE`, as Docker,
# containerd and Podman call it, runs through our init: the container's
# baseline and every layer on it, exec once as documented, and exactly the
# privileges plain runc or crun give the same process file. Under runc 1.1.5
# and crun 1.8.1 (in its cgroup2 namespace), each container started by the
# wrapper beside one started by the runtime alone from the same config.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"
RUNTIME="$TSYNC_BUILD/bin/oci-seccomp-tsync-runtime"

# The exec'd shell's own status (a redirection the shell opens itself), then what mkdir gets.
# Builtins alone up to mkdir: exec once refuses every program the shell would start.
STATUS='while read -r l; do case "$l" in Cap*|NoNewPrivs*|Seccomp_filters*) set -- $l; echo "$1 $2";; esac
done </proc/self/status
if mkdir /tmp/d-$$ 2>/tmp/err-$$; then echo "mkdir: ok"; else echo "mkdir: $(cat /tmp/err-$$)"; fi'
# Docker's default capabilities, with two inheritable and one ambient for uid 1000.
CAPS='{"bounding": ["CAP_CHOWN","CAP_DAC_OVERRIDE","CAP_FSETID","CAP_FOWNER","CAP_MKNOD","CAP_NET_RAW","CAP_SETGID",
  "CAP_SETUID","CAP_SETFCAP","CAP_SETPCAP","CAP_NET_BIND_SERVICE","CAP_SYS_CHROOT","CAP_KILL","CAP_AUDIT_WRITE"],
  "effective": ["CAP_CHOWN","CAP_DAC_OVERRIDE","CAP_FOWNER","CAP_SETGID","CAP_SETUID","CAP_KILL"],
  "permitted": ["CAP_CHOWN","CAP_DAC_OVERRIDE","CAP_FOWNER","CAP_SETGID","CAP_SETUID","CAP_KILL"],
  "inheritable": ["CAP_KILL","CAP_CHOWN"], "ambient": ["CAP_KILL"]}'

setUp() {
        tsync_test_begin
        tsync_need_built "$RUNTIME" "$INIT" "$OCI"
        : >"$TSYNC_TMP/runtime.conf"
        ID=$(tsync_unique_id exec)
        RT=runc
}

tearDown() {
        tsync_test_end
}

# ours ARGS...: the wrapper in front of $RT (crun in crun_cmd's namespace, with its option).
ours() {
        local common=(--runtime-config="$TSYNC_TMP/runtime.conf" --profile-dir="$PROFILES"
                --cache-dir="$TSYNC_TMP/cache")
        case "$RT" in
        runc) "$RUNTIME" "${common[@]}" "$@" ;;
        crun)
                tsync_in_cgroup2 "$RUNTIME" "${common[@]}" --runtime=crun --cgroup-manager=disabled "$@"
                ;;
        esac
}

# bundles [JQ]: $B/ours and $B/plain (B=$TSYNC_TMP/$ID), the same config (runc spec's, sleeping, with
# a baseline linux.seccomp denying acct, no NO_NEW_PRIVS as Docker starts containers), JQ applied.
bundles() {
        B=$TSYNC_TMP/$ID
        make_bundle "$B/plain" sleep 300 >/dev/null || return 1
        tsync_json_edit "$B/plain/config.json" '.process.noNewPrivileges = false
                | .linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW",
                                    syscalls: [{names: ["acct"], action: "SCMP_ACT_ERRNO"}]} | '"${1:-.}" || return 1
        mkdir "$B/ours" && cp -a "$B/plain/config.json" "$B/plain/rootfs" "$B/ours/"
}

# start_both [OUR OPTIONS...]: the plain bundle started by $RT alone ($ID-plain), ours by the wrapper ($ID).
start_both() {
        rt_start "$ID-plain" "$B/plain" || return 1
        _tsync_register "$RT" "$ID"
        ours "$@" run -d -b "$B/ours" "$ID" </dev/null >"$TSYNC_TMP/run.log" 2>&1 || {
                tsync_log "ours: $(cat "$TSYNC_TMP/run.log")"
                return 1
        }
        local pid
        pid=$(rt state "$ID" | jq -r .pid) && tsync_wait_exec "$pid"
}

stop_both() {
        rt_stop "$ID"
        rt_stop "$ID-plain"
}

# process FILE UID NNP SCRIPT: a process file running `sh -c SCRIPT`.
process() {
        jq -n --argjson uid "$2" --argjson nnp "$3" --arg s "$4" --argjson caps "$CAPS" \
                '{args: ["/bin/sh", "-c", $s], cwd: "/", env: ["PATH=/bin"], terminal: false,
                  user: {uid: $uid, gid: $uid}, noNewPrivileges: $nnp, capabilities: $caps}' >"$1"
}

# exec_both FILE: the process in both containers; $TSYNC_TMP/{ours,plain}.{out,err}, $rc_ours, $rc_plain.
exec_both() {
        ours exec --process "$1" "$ID" </dev/null >"$TSYNC_TMP/ours.out" 2>"$TSYNC_TMP/ours.err"
        rc_ours=$?
        rt exec --process "$1" "$ID-plain" </dev/null >"$TSYNC_TMP/plain.out" 2>"$TSYNC_TMP/plain.err"
        rc_plain=$?
}

privileges() {
        grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' "$1"
}

execCarriesEveryLayerWithThePrivilegesOfPlainExec() {
        bundles || fail "bundles"
        start_both --layers=deny-mkdir || fail "$RT: start"
        local u nnp
        for u in 0 1000; do
                for nnp in true false; do
                        process "$TSYNC_TMP/p.json" "$u" "$nnp" "$STATUS"
                        cp "$TSYNC_TMP/p.json" "$TSYNC_TMP/p.before"
                        exec_both "$TSYNC_TMP/p.json"
                        local what="$RT uid $u noNewPrivileges $nnp"
                        assertEquals "$what: plain: $(cat "$TSYNC_TMP/plain.err")" 0 "$rc_plain"
                        assertEquals "$what: ours: $(cat "$TSYNC_TMP/ours.err")" 0 "$rc_ours"
                        assertEquals "$what: plain: the baseline" "Seccomp_filters: 1" \
                                "$(grep Seccomp_filters "$TSYNC_TMP/plain.out")"
                        assertEquals "$what: ours: the baseline and the layer" "Seccomp_filters: 2" \
                                "$(grep Seccomp_filters "$TSYNC_TMP/ours.out")"
                        assertEquals "$what: plain mkdir" "mkdir: ok" "$(grep ^mkdir "$TSYNC_TMP/plain.out")"
                        assertContains "$what: ours mkdir" "$(grep ^mkdir "$TSYNC_TMP/ours.out")" "Disk quota exceeded"
                        assertEquals "$what: capability sets and NoNewPrivs" \
                                "$(privileges "$TSYNC_TMP/plain.out")" "$(privileges "$TSYNC_TMP/ours.out")"
                        assertEquals "$what: NoNewPrivs lines" 1 "$(grep -c NoNewPrivs "$TSYNC_TMP/ours.out")"
                        cmp -s "$TSYNC_TMP/p.json" "$TSYNC_TMP/p.before" || fail "$what: the engine's file was changed"
                done
        done
        stop_both
}

testExecCarriesEveryLayerWithThePrivilegesOfPlainExec() {
        each_runtime execCarriesEveryLayerWithThePrivilegesOfPlainExec
}

# Without capabilities in the process file runc gives the container's own: for a container of ours
# those would be the ones lent to its init, and the exec'd process gets the original ones.
execWithoutCapabilitiesGetsTheContainersOwn() {
        bundles || fail "bundles"
        start_both --layers=deny-mkdir || fail "$RT: start"
        process "$TSYNC_TMP/p.json" 0 false "$STATUS"
        tsync_json_edit "$TSYNC_TMP/p.json" 'del(.capabilities)' || fail "edit"
        exec_both "$TSYNC_TMP/p.json"
        assertEquals "$RT: ours: $(cat "$TSYNC_TMP/ours.err")" 0 "$rc_ours"
        assertEquals "$RT: capability sets and NoNewPrivs" \
                "$(privileges "$TSYNC_TMP/plain.out")" "$(privileges "$TSYNC_TMP/ours.out")"
        assertEquals "$RT: ours" "Seccomp_filters: 2" "$(grep Seccomp_filters "$TSYNC_TMP/ours.out")"
        stop_both
}

testExecWithoutCapabilitiesGetsTheContainersOwn() {
        each_runtime execWithoutCapabilitiesGetsTheContainersOwn
}

execStatusAndSignalsPassThrough() {
        bundles "${1:-.}" || fail "bundles"
        start_both --layers=deny-mkdir || fail "$RT: start"
        local script
        for script in 'exit 7' 'kill -TERM $$' 'kill -KILL $$' 'echo out; echo err >&2'; do
                process "$TSYNC_TMP/p.json" 0 false "$script"
                exec_both "$TSYNC_TMP/p.json"
                assertEquals "$RT ${1:-}: '$script': status" "$rc_plain" "$rc_ours"
                assertEquals "$RT ${1:-}: '$script': stdout" "$(cat "$TSYNC_TMP/plain.out")" "$(cat "$TSYNC_TMP/ours.out")"
                assertEquals "$RT ${1:-}: '$script': stderr" "$(cat "$TSYNC_TMP/plain.err")" "$(cat "$TSYNC_TMP/ours.err")"
                [ "$script" != "exit 7" ] || assertEquals "$RT: exit 7" 7 "$rc_ours"
        done
        stop_both
}

testExitStatusSignalsAndOutputPassThrough() {
        each_runtime execStatusAndSignalsPassThrough
}

testExitStatusAndSignalsPassThroughTheSupervisingInitOfExecOnce() {
        each_runtime execStatusAndSignalsPassThroughExecOnce
}

execStatusAndSignalsPassThroughExecOnce() {
        execStatusAndSignalsPassThrough '.annotations["io.oci-seccomp-tsync.exec"] = "once"'
}

execOnceLetsTheExecdProcessStartItsOwnProgramOnce() {
        bundles '.annotations["io.oci-seccomp-tsync.exec"] = "once"' || fail "bundles"
        start_both --layers=deny-mkdir || fail "$RT: start"
        local u
        for u in 0 1000; do
                process "$TSYNC_TMP/p.json" "$u" false "$STATUS"'
                        echo started; /bin/cat /etc/group >/dev/null; echo "cat: $?"'
                exec_both "$TSYNC_TMP/p.json"
                assertEquals "$RT uid $u: ours: $(cat "$TSYNC_TMP/ours.err")" 0 "$rc_ours"
                assertEquals "$RT uid $u: plain: cat" "cat: 0" "$(grep '^cat:' "$TSYNC_TMP/plain.out")"
                # mkdir's message comes from `cat /tmp/err`, which exec once refuses: the shell
                # started (its own program, once) and every exec after it was refused.
                grep -q '^started$' "$TSYNC_TMP/ours.out" || fail "$RT: the exec'd program did not start"
                assertEquals "$RT uid $u: ours: cat" "cat: 126" "$(grep '^cat:' "$TSYNC_TMP/ours.out")"
                assertContains "$(cat "$TSYNC_TMP/ours.err")" "Operation not permitted"
                # The baseline, the layer and the exec-once filter.
                assertEquals "$RT uid $u: ours" "Seccomp_filters: 3" "$(grep Seccomp_filters "$TSYNC_TMP/ours.out")"
                assertEquals "$RT uid $u: capability sets and NoNewPrivs" \
                        "$(privileges "$TSYNC_TMP/plain.out")" "$(privileges "$TSYNC_TMP/ours.out")"
        done
        stop_both
}

testExecOnceLetsTheExecdProcessStartItsOwnProgramOnce() {
        each_runtime execOnceLetsTheExecdProcessStartItsOwnProgramOnce
}

execOfAContainerNotOursPassesThroughUntouched() {
        bundles || fail "bundles"
        # The wrapper with nothing asked: runc's container and process as they are.
        start_both || fail "$RT: start"
        process "$TSYNC_TMP/p.json" 1000 false "$STATUS"'; tr "\0" " " </proc/self/cmdline'
        exec_both "$TSYNC_TMP/p.json"
        assertEquals "$RT: $(cat "$TSYNC_TMP/ours.err")" 0 "$rc_ours"
        assertEquals "$RT: the same process" "$(cat "$TSYNC_TMP/plain.out")" "$(cat "$TSYNC_TMP/ours.out")"
        assertContains "$RT" "$(cat "$TSYNC_TMP/ours.out")" "Seccomp_filters: 1"
        stop_both
}

# The rewritten process reaches the runtime as /proc/self/fd/N: that fd must not reach the process,
# with or without fds passed on (--preserve-fds).
execdProcessHasTheFdsOfPlainExec() {
        bundles || fail "bundles"
        start_both --layers=deny-mkdir || fail "$RT: start"
        process "$TSYNC_TMP/p.json" 0 false 'ls /proc/$$/fd'
        exec_both "$TSYNC_TMP/p.json"
        assertEquals "$RT: $(cat "$TSYNC_TMP/ours.err")" 0 "$rc_ours"
        assertEquals "$RT: open fds" "$(cat "$TSYNC_TMP/plain.out")" "$(cat "$TSYNC_TMP/ours.out")"
        ours exec --preserve-fds 2 --process "$TSYNC_TMP/p.json" "$ID" </dev/null 3</dev/null 4</dev/null \
                >"$TSYNC_TMP/ours.out" 2>&1
        rt exec --preserve-fds 2 --process "$TSYNC_TMP/p.json" "$ID-plain" </dev/null 3</dev/null 4</dev/null \
                >"$TSYNC_TMP/plain.out" 2>&1
        assertEquals "$RT: open fds with --preserve-fds 2" "$(cat "$TSYNC_TMP/plain.out")" "$(cat "$TSYNC_TMP/ours.out")"
        assertContains "$RT: preserved" "$(cat "$TSYNC_TMP/ours.out")" "4"
        stop_both
}

testExecdProcessHasTheFdsOfPlainExec() {
        each_runtime execdProcessHasTheFdsOfPlainExec
}

# Replace mode: the runtime applies no profile any more, to exec'd processes neither; through the
# wrapper they get the moved profile from our init, with the layer.
execInReplaceModeGetsTheMovedProfileAndTheLayer() {
        bundles || fail "bundles"
        start_both --mode=replace --layers=deny-mkdir || fail "$RT: start"
        process "$TSYNC_TMP/p.json" 1000 false "$STATUS"
        exec_both "$TSYNC_TMP/p.json"
        assertEquals "$RT: ours: $(cat "$TSYNC_TMP/ours.err")" 0 "$rc_ours"
        assertEquals "$RT: the moved profile and the layer" "Seccomp_filters: 2" \
                "$(grep Seccomp_filters "$TSYNC_TMP/ours.out")"
        assertContains "$RT" "$(grep ^mkdir "$TSYNC_TMP/ours.out")" "Disk quota exceeded"
        assertEquals "$RT: capability sets and NoNewPrivs" \
                "$(privileges "$TSYNC_TMP/plain.out")" "$(privileges "$TSYNC_TMP/ours.out")"
        stop_both
}

testExecInReplaceModeGetsTheMovedProfileAndTheLayer() {
        each_runtime execInReplaceModeGetsTheMovedProfileAndTheLayer
}

# A bundle from `inject` (filter files, mounted for the container's life, and our hooks) started by
# runc itself: the wrapper's exec reads the same files.
testExecOfAnInjectedBundleReadsItsFilterFiles() {
        bundles || fail "bundles"
        inject --profile "$PROFILES/deny-mkdir.json" "$B/ours" >/dev/null || fail "inject"
        rt_start "$ID" "$B/ours" || fail "runc run"
        process "$TSYNC_TMP/p.json" 1000 false "$STATUS"
        ours exec --process "$TSYNC_TMP/p.json" "$ID" </dev/null >"$TSYNC_TMP/ours.out" 2>"$TSYNC_TMP/ours.err"
        rc=$?
        assertEquals "$(cat "$TSYNC_TMP/ours.err")" 0 "$rc"
        assertEquals "the baseline and the layer" "Seccomp_filters: 2" "$(grep Seccomp_filters "$TSYNC_TMP/ours.out")"
        assertContains "$(grep ^mkdir "$TSYNC_TMP/ours.out")" "Disk quota exceeded"
        rt_stop "$ID"
}

testExecOfAContainerNotOursPassesThroughUntouched() {
        each_runtime execOfAContainerNotOursPassesThroughUntouched
}

testExecWithoutProcessIsRefusedNamingIt() {
        bundles || fail "bundles"
        start_both --layers=deny-mkdir || fail "start"
        ours exec "$ID" /bin/touch /tmp/ran </dev/null >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "$(cat "$TSYNC_TMP/out")" 1 "$rc"
        assertEquals "one line" 1 "$(wc -l <"$TSYNC_TMP/out")"
        assertContains "$(cat "$TSYNC_TMP/out")" "oci-seccomp-tsync: $ID: exec without --process: "
        process "$TSYNC_TMP/p.json" 0 true 'ls /tmp/ran 2>&1'
        assertContains "the refused command ran" "$(ours exec --process "$TSYNC_TMP/p.json" "$ID")" "No such file"
        stop_both
}

testExecWithAnOptionThatShapesTheProcessBesideProcessIsRefused() {
        bundles || fail "bundles"
        start_both --layers=deny-mkdir || fail "start"
        process "$TSYNC_TMP/p.json" 0 true 'touch /tmp/ran'
        ours exec --cap CAP_SYS_ADMIN --process "$TSYNC_TMP/p.json" "$ID" </dev/null >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "$(cat "$TSYNC_TMP/out")" 1 "$rc"
        assertContains "$(cat "$TSYNC_TMP/out")" "oci-seccomp-tsync: $ID: exec --process with '--cap': "
        stop_both
}

testTheGlobalRootAndTheProcessOptionsFormsAreHonoured() {
        bundles || fail "bundles"
        mkdir "$TSYNC_TMP/root"
        ours --layers=deny-mkdir --root "$TSYNC_TMP/root" run -d -b "$B/ours" "$ID" </dev/null \
                >"$TSYNC_TMP/run.log" 2>&1 || fail "run: $(cat "$TSYNC_TMP/run.log")"
        process "$TSYNC_TMP/p.json" 0 true 'grep Seccomp_filters /proc/self/status | tr -d "\t"'
        local form
        for form in "--process=$TSYNC_TMP/p.json" "-p $TSYNC_TMP/p.json" "-process $TSYNC_TMP/p.json"; do
                # shellcheck disable=SC2086 # the form's words
                assertEquals "$form" "Seccomp_filters:2" \
                        "$(ours --root "$TSYNC_TMP/root" exec $form "$ID" </dev/null 2>&1)"
        done
        # The default root holds no such container: the runtime says so, and nothing runs.
        ours exec --process "$TSYNC_TMP/p.json" "$ID" </dev/null >"$TSYNC_TMP/out" 2>&1
        assertNotEquals 0 "$?"
        assertContains "$(cat "$TSYNC_TMP/out")" "oci-seccomp-tsync: $ID: cannot tell whether the container runs under our init: "
        runc --root "$TSYNC_TMP/root" delete --force "$ID" >/dev/null 2>&1
}

testAConfigSomeoneElseCouldWriteDecidesNothing() {
        bundles || fail "bundles"
        start_both --layers=deny-mkdir || fail "start"
        chmod g+w "$B/ours/config.json"
        process "$TSYNC_TMP/p.json" 0 true 'touch /tmp/ran'
        ours exec --process "$TSYNC_TMP/p.json" "$ID" </dev/null >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "$(cat "$TSYNC_TMP/out")" 1 "$rc"
        assertContains "$(cat "$TSYNC_TMP/out")" "config.json: owned by uid 0 with mode 0664: only a file of uid 0"
        chmod g-w "$B/ours/config.json"
        stop_both
}

# The door of issue 23: the workload, under the layer denying mkdir, takes over an exec'd process by
# ptrace (no Yama on this kernel: same uid and capabilities suffice) and makes it call mkdir. Under
# the runtime alone the exec'd process carries the baseline only, and the mkdir goes through; through
# the wrapper it carries the layer too, and the hijack gains nothing.
ATTACKER='while [ ! -s /tmp/victim ]; do sleep 0.1; done
/bin/hijack_probe "$(cat /tmp/victim)" /tmp/hijacked >/tmp/result.tmp 2>&1; cat /tmp/result.tmp >/tmp/result
exec sleep 300'

# hijacked RUNTIME-COMMAND ID: the attacker's result line once the victim was exec'd into ID.
hijacked() {
        local run=$1 id=$2 tries=200
        "$run" exec -d --process "$TSYNC_TMP/victim.json" "$id" </dev/null >/dev/null 2>"$TSYNC_TMP/victim.err" || {
                echo "victim: $(cat "$TSYNC_TMP/victim.err")"
                return 1
        }
        while [ "$tries" -gt 0 ]; do
                "$run" exec --process "$TSYNC_TMP/result.json" "$id" </dev/null 2>/dev/null | grep . && return 0
                sleep 0.1
                tries=$((tries - 1))
        done
        echo "no result"
}

execdProcessHijackedByTheWorkloadStillCarriesTheLayer() {
        [ "$(uname -m)" = x86_64 ] || startSkipping
        bundles ".process.args = [\"/bin/sh\", \"-c\", $(jq -n --arg s "$ATTACKER" '$s')]" || fail "bundles"
        cp "$TSYNC_BUILD/tests/static/hijack_probe" "$B/plain/rootfs/bin/" &&
                cp "$TSYNC_BUILD/tests/static/hijack_probe" "$B/ours/rootfs/bin/" || fail "hijack_probe"
        start_both --layers=deny-mkdir || fail "$RT: start"
        jq -n '{args: ["/bin/sh", "-c", "echo $$ >/tmp/victim; exec sleep 60"], cwd: "/", env: ["PATH=/bin"],
                user: {uid: 0, gid: 0}, noNewPrivileges: false}' >"$TSYNC_TMP/victim.json"
        jq -n '{args: ["/bin/cat", "/tmp/result"], cwd: "/", user: {uid: 0, gid: 0}, noNewPrivileges: true}' \
                >"$TSYNC_TMP/result.json"
        assertEquals "$RT: the runtime alone: the hijacked process makes the call" "mkdir=ok" \
                "$(hijacked rt "$ID-plain" | grep -o 'mkdir=.*\|victim.*\|no result')"
        assertEquals "$RT: through the wrapper: the hijacked process carries the layer" "mkdir=errno:122" \
                "$(hijacked ours "$ID" | grep -o 'mkdir=.*\|victim.*\|no result')"
        stop_both
}

testAnExecdProcessHijackedByTheWorkloadStillCarriesTheLayer() {
        each_runtime execdProcessHijackedByTheWorkloadStillCarriesTheLayer
}

# Podman with the runtime (`podman --runtime`): `podman exec` hands it the process as a file too.
podman_status() { # podman_status RUNTIME: `podman exec` of $STATUS as root and uid 1000, and a status
        local name
        name="$ID-$(basename "$1")"
        podman --runtime "$1" run -d --name "$name" --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
                --network none --annotation io.oci-seccomp-tsync.layers=deny-mkdir --rootfs "$TSYNC_TMP/rootfs" \
                sleep 300 >/dev/null || return 1
        for u in 0 1000; do
                podman --runtime "$1" exec -u "$u" "$name" sh -c "$STATUS" </dev/null
        done
        podman --runtime "$1" exec "$name" sh -c 'exit 7' </dev/null
        echo "status $?"
        podman rm -f "$name" >/dev/null 2>&1
}

testPodmanExecWithTheRuntimeGetsTheLayer() {
        make_rootfs "$TSYNC_TMP/rootfs" >/dev/null || fail "rootfs"
        printf '#!/bin/sh\nexec "%s" --runtime-config="%s" --profile-dir="%s" --cache-dir="%s" "$@"\n' \
                "$RUNTIME" "$TSYNC_TMP/runtime.conf" "$PROFILES" "$TSYNC_TMP/cache" >"$TSYNC_TMP/runtime"
        chmod 0755 "$TSYNC_TMP/runtime"
        podman_status "$(command -v runc)" >"$TSYNC_TMP/plain" 2>&1 || fail "podman with runc: $(cat "$TSYNC_TMP/plain")"
        podman_status "$TSYNC_TMP/runtime" >"$TSYNC_TMP/ours" 2>&1 || fail "podman with ours: $(cat "$TSYNC_TMP/ours")"
        assertEquals "privileges and status" "$(grep -v -e Seccomp_filters -e mkdir "$TSYNC_TMP/plain")" \
                "$(grep -v -e Seccomp_filters -e mkdir "$TSYNC_TMP/ours")"
        assertEquals "runc alone: Podman's profile" "2 2" \
                "$(grep -c '^Seccomp_filters: 1$' "$TSYNC_TMP/plain") $(grep -c '^mkdir: ok' "$TSYNC_TMP/plain")"
        assertEquals "ours: Podman's profile and the layer" "2 2" \
                "$(grep -c '^Seccomp_filters: 2$' "$TSYNC_TMP/ours") $(grep -c 'Disk quota exceeded' "$TSYNC_TMP/ours")"
        assertEquals "status 7" "$(grep ^status "$TSYNC_TMP/ours")"
}

. shunit2
