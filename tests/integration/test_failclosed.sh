#!/bin/bash
# The fail-closed matrix: every entry point x every kind of bad input. One test per row, generated
# from the tables below, so a failure names its row and the closing count is the number of rows.
#
# Entry points: compile, inject, hook precreate | prestart | createRuntime | poststop, and the init
# (seccomp-tsync-init), each called directly; prestart and the init also under a real runc.
#
# What every refusing row asserts:
#   - a non-zero exit (for runc rows: runc run fails, or the container never ran its workload);
#   - exactly one line of ours: "oci-seccomp-tsync: <container id or where>: ... <cause>" (for the
#     init "seccomp-tsync-init: <file>: <cause>"); when we are called directly it is all of stderr;
#     runc quotes a hook's stderr inside its own message, so there we count occurrences;
#   - no workload: the workload is `touch /tmp/marker` (or the init's `touch $W/marker`), and the
#     marker must be absent;
#   - no partial file: no *.tmp* left in the bundle, state, cache or output directories; a refused
#     inject leaves config.json byte for byte and mode for mode as it was, and creates nothing;
#   - no state leaked: the bundle's filter directory (BUNDLE/oci-seccomp-tsync) holds no filter after
#     a refused createRuntime/prestart, and precreate's /run/oci-seccomp-tsync/<hex> (here
#     --state-root $W/run) is gone after a refused precreate or createRuntime, or after poststop.
#
# poststop is different: a runtime must be able to delete a container whatever became of its bundle,
# and a runc user expects `runc delete` to work. So:
#   - state already gone (bundle, config.json or our annotation missing, filter directory gone):
#     exit 0, nothing printed;
#   - bad OCI state on stdin: exit 1 and one line (we cannot know what to clean);
#   - a config or plan we cannot read, or a stateDir that is not ours: exit 1 and one line, and
#     nothing outside our own directories is touched (poststop never follows a plan elsewhere).
#     The filter files of such a container stay where they are: only the plan says where.
# A failing poststop does not block a delete: runc (1.1) logs the hook's line as an error and
# removes the container all the same (testRuncDeleteWithAnUnreadableConfig...).
#
# Takes about two minutes on a 2-core machine shared with other test runs. Needs root (tmpfs
# mounts, runc, setpriv), runc, jq, busybox-static, python3.
# The tables hold shell text in single quotes on purpose: it is expanded when a row runs.
# shellcheck disable=SC2016
HERE=$(cd "$(dirname "$0")" && pwd)
# `producer | hook ...` sets $rc in this shell.
shopt -s lastpipe
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"

# ---------------------------------------------------------------------------------------------
# Tables

# P NAME WHERE CAUSE GENERATOR: a bad layer profile. WHERE: c compile, i inject, h the hook's
# createRuntime (called directly), r prestart under runc (a sample: the runtime's side is the same
# for every cause), p precreate (by name from a profile directory). GENERATOR prints the file's content, or is @fifo, @dir, @missing, @devzero.
# CAUSE is a part of the one line every entry point must print.
PROF_NAMES=()
declare -A PROF_WHERE PROF_CAUSE PROF_GEN
P() {
        PROF_NAMES+=("$1")
        PROF_WHERE[$1]=$2
        PROF_CAUSE[$1]=$3
        PROF_GEN[$1]=$4
}
J() { # J 'RULE JSON': a layer that allows everything but RULE.
        echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [$1]}"
}
P NotJson cihpr "invalid JSON at byte 1" 'echo "this is not json"'
P Truncated cihp "invalid JSON" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\"}" | head -c 50'
P Empty cihp "empty document" ':'
P TrailingGarbage cihp "invalid JSON" 'J ""; echo "}"'
P DuplicateKey cihp "duplicate key 'defaultAction'" 'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"defaultAction\": \"SCMP_ACT_KILL\"}"'
P NulInName cihp "contains a NUL byte" 'J "{\"names\": [\"mk\\u0000dir\"], \"action\": \"SCMP_ACT_ERRNO\"}"'
P NotAnObject cihp "expected object" 'echo "[\"SCMP_ACT_ALLOW\"]"'
P NamesNotArray cihp "syscalls[0].names: expected array" 'J "{\"names\": \"mkdir\", \"action\": \"SCMP_ACT_ERRNO\"}"'
P ActionNotString cihp "syscalls[0].action: expected string" 'J "{\"names\": [\"mkdir\"], \"action\": 7}"'
P NamesEmpty cihp "syscalls[0].names: must name at least one syscall" 'J "{\"names\": [], \"action\": \"SCMP_ACT_ERRNO\"}"'
P Deep cihpr "deeper than the limit" 'python3 -c "print(\"{\\\"defaultAction\\\": \\\"SCMP_ACT_ALLOW\\\", \\\"x\\\": \" + \"[\" * 200 + \"]\" * 200 + \"}\")"'
P Huge cihpr "more than the limit of 4194304 bytes" 'python3 -c "print(\"{\\\"defaultAction\\\": \\\"SCMP_ACT_ALLOW\\\", \\\"x\\\": \\\"\" + \"x\" * (5 << 20) + \"\\\"}\")"'
P MissingDefaultAction cihp "defaultAction: missing" 'echo "{\"syscalls\": []}"'
P MissingArgOp cihp "syscalls[0].args[0].op: missing" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"args\": [{\"index\": 0, \"value\": 1}]}"'
P UnknownAction cihpr "action 'SCMP_ACT_SOMETIMES' is unknown" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_SOMETIMES\"}"'
P UnknownDefaultAction cihp "defaultAction: action 'SCMP_ACT_MAYBE' is unknown" 'echo "{\"defaultAction\": \"SCMP_ACT_MAYBE\"}"'
P UnknownOp cihp "op 'SCMP_CMP_ROUGHLY' is unknown" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"args\": [{\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_ROUGHLY\"}]}"'
P UnknownArch cihp "architecture 'SCMP_ARCH_VAX' is unknown" 'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_VAX\"]}"'
P UnknownFlag cihp "flag 'SECCOMP_FILTER_FLAG_NEW_LISTENER' is unknown" 'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"flags\": [\"SECCOMP_FILTER_FLAG_NEW_LISTENER\"]}"'
P ArgIndex6 cihpr "syscalls[0].args[0].index: 6 is past the last argument (5)" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"args\": [{\"index\": 6, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}]}"'
P ArgIndexNegative cihp "syscalls[0].args[0].index: -1 is negative" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"args\": [{\"index\": -1, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}]}"'
P ArgValueAbove64Bits cihp "syscalls[0].args[0].value: 18446744073709551616" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"args\": [{\"index\": 0, \"value\": 18446744073709551616, \"op\": \"SCMP_CMP_EQ\"}]}"'
P Errno4095 cihpr "syscalls[0].errnoRet: 4095 is above the largest errno a filter can return, 4094" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 4095}"'
P Errno65536 cihp "syscalls[0].errnoRet: 65536 is above the largest errno a filter can return, 4094" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 65536}"'
P DefaultErrno4095 cihpr "defaultErrnoRet: 4095 is above the largest errno a filter can return, 4094" 'echo "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 4095}"'
P TraceData65536 cihp "syscalls[0].errnoRet: 65536 does not fit the 16 bits of SECCOMP_RET_DATA" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_TRACE\", \"errnoRet\": 65536}"'
P ErrnoNegative cihp "syscalls[0].errnoRet: -1 is negative" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": -1}"'
P ErrnoFraction cihp "syscalls[0].errnoRet: 1.5 is not a whole number" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1.5}"'
P ErrnoOnAllow cihp "syscalls[0].errnoRet: only SCMP_ACT_ERRNO and SCMP_ACT_TRACE take an errno" 'echo "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"errnoRet\": 1}]}"'
P ValueTwoWithEq cihp "only SCMP_CMP_MASKED_EQ uses a second value" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"args\": [{\"index\": 0, \"value\": 1, \"valueTwo\": 2, \"op\": \"SCMP_CMP_EQ\"}]}"'
P WaitKillableWithoutListener cihpr "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV needs a notification listener" 'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"flags\": [\"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV\"]}"'
P DockerArchesAndArchMap cihp "architectures: cannot be combined with archMap" 'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_X86_64\"], \"archMap\": [{\"architecture\": \"SCMP_ARCH_X86_64\", \"subArchitectures\": []}]}"'
P DockerUnknownErrnoName cihp "errno 'EWHATEVER' is unknown" 'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"archMap\": [], \"syscalls\": [{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"errno\": \"EWHATEVER\"}]}"'
# issue 12: notify. The rules a notify profile keeps (runc's words for runc's two), refused with
# their own reason before the refusal above.
P NotifyOnWrite ihpr "syscalls[0]: SCMP_ACT_NOTIFY cannot be used for the write syscall" 'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/run/agent.sock\", \"syscalls\": [{\"names\": [\"mkdir\", \"write\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}"'
P NotifyAsDefault ihpr "SCMP_ACT_NOTIFY cannot be used as default action" 'echo "{\"defaultAction\": \"SCMP_ACT_NOTIFY\", \"listenerPath\": \"/run/agent.sock\"}"'
P NotifyWithoutListenerPath ihpr "SCMP_ACT_NOTIFY needs a listenerPath" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_NOTIFY\"}"'
# The calls that hand the agent its listener, before it holds it: the route's refusal.
P NotifyOnSendmsg i "the filters answer sendmsg with USER_NOTIF, which the init needs to send the relay the seccomp agent's listener: no workload could start under them" 'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/run/agent.sock\", \"syscalls\": [{\"names\": [\"mkdir\", \"sendmsg\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}"'
P NotifyOnCloseRange i "the filters answer close_range with USER_NOTIF, which the init needs to close its copy of the agent's listener: no workload could start under them" 'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/run/agent.sock\", \"syscalls\": [{\"names\": [\"close_range\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}"'
P NotifyRelativeListenerPath ihpr "listenerPath 'run/agent.sock' is not an absolute path" 'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"run/agent.sock\", \"syscalls\": [{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}"'
# Files that are not readable profiles. (As root every regular file is readable: compile is
# also run as nobody on a 0600 file, below.)
P Fifo cihr "empty document" @fifo
P Directory cih "is a directory" @dir
P Missing cihr "No such file or directory" @missing
P DevZero chr "more than the limit of 4194304 bytes" @devzero
# Host files (issue 11): a misspelt key must not empty a layer; the path is named, with a guess.
P UnknownTopLevelKey cihpr "syscall: unknown key (did you mean 'syscalls'?)" 'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscall\": [{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\"}]}"'
P UnknownRuleKey cihp "syscalls[0].action_: unknown key (did you mean 'action'?)" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"action_\": \"SCMP_ACT_ALLOW\"}"'
P UnknownArgKey cihp "syscalls[0].args[0].valu: unknown key (did you mean 'value'?)" 'J "{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"args\": [{\"index\": 0, \"value\": 1, \"valu\": 2, \"op\": \"SCMP_CMP_EQ\"}]}"'
P DockerUnknownIncludesKey cihp "syscalls[0].includes.capabilities: unknown key" 'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"archMap\": [], \"syscalls\": [{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"includes\": {\"capabilities\": [\"CAP_SYS_ADMIN\"]}}]}"'

# ---------------------------------------------------------------------------------------------
# Helpers

oneTimeSetUp() {
        tsync_need_built "$OCI" "$INIT"
        SUITE=$(mktemp -d)
        GOOD="$PROFILES/deny-mkdir.json"
        # One rootfs, copied per container test (cp of busybox is cheaper than make_rootfs's links).
        make_rootfs "$SUITE/rootfs" >/dev/null || exit 1
        "$OCI" compile -O tsync "$GOOD" -o "$SUITE/good.bpf" || exit 1
        # A filter whose effect the init's simulation cannot foresee: it kills a read made from
        # anywhere but instruction pointer 0, so the init's main thread dies at its proof.
        python3 "$TSYNC_TOP/tests/tools/filter_file.py" "$SUITE/kill-read.bpf" \
                0x20,0,0,0 0x15,0,3,0 0x20,0,0,8 0x15,1,0,0 0x06,0,0,0 0x06,0,0,0x7fff0000 || exit 1
        echo '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["execve"], "action": "SCMP_ACT_ERRNO"}]}' \
                >"$SUITE/deny-execve.json"
        "$OCI" compile -O tsync "$SUITE/deny-execve.json" -o "$SUITE/deny-execve.bpf" || exit 1
        echo '{"defaultAction": "SCMP_ACT_ALLOW"}' >"$SUITE/allow.json"
        "$OCI" compile -O tsync "$SUITE/allow.json" -o "$SUITE/allow.bpf" || exit 1
        # Templates, made once with the real tools: a bundle's config (runc spec, running
        # `touch /tmp/marker`), and that bundle injected at $SUITE/tmpl with layer.json and cache/.
        # injected() maps $SUITE/tmpl to each test's $W (testInjectedTemplateIsWhatInjectWrites
        # checks that this is exactly what inject writes there).
        mkdir -p "$SUITE/tmpl/b/rootfs" "$SUITE/tmpl/cache"
        runc spec --bundle "$SUITE/tmpl/b" &&
                tsync_json_edit "$SUITE/tmpl/b/config.json" '.process.args = ["touch", "/tmp/marker"]
                        | .process.terminal = false | .root = {path: "rootfs", readonly: false}' || exit 1
        cp "$SUITE/tmpl/b/config.json" "$SUITE/plain.json"
        cp "$GOOD" "$SUITE/tmpl/layer.json"
        "$OCI" inject --compile-at-start --cache-dir "$SUITE/tmpl/cache" --profile "$SUITE/tmpl/layer.json" "$SUITE/tmpl/b" || exit 1
        cp "$SUITE/tmpl/b/config.json" "$SUITE/injected.json"
}

oneTimeTearDown() {
        rm -rf "$SUITE"
}

setUp() {
        tsync_test_begin || exit 1
        W=$TSYNC_TMP
        MOUNTS=()
        mkdir "$W/cache" "$W/profiles" && mkdir -m 0711 "$W/run"
}

tearDown() {
        local m
        for m in "${MOUNTS[@]}"; do
                umount -l "$m" 2>/dev/null
        done
        # The wrapper's records of the runtime of containers under $W/root (RecordNotWritable).
        [ -d "$W/root" ] && rm -rf "/run/oci-seccomp-tsync/runtime/$(fnv1a "$W/root")"
        # The wrapper's record directory, once empty (rmdir: never anyone else's record; a create
        # beside this suite writes it again). Lockdown's goes in tsync_test_end, once empty.
        rmdir /run/oci-seccomp-tsync/runtime 2>/dev/null
        tsync_test_end
}

# make_profile FILE GENERATOR
make_profile() {
        local f=$1 g=$2
        rm -rf -- "$f"
        case "$g" in
        @fifo) mkfifo "$f" ;;
        @dir) mkdir "$f" ;;
        @missing) ;;
        @devzero) ln -s /dev/zero "$f" ;;
        *)
                # Generated once per suite: some run python.
                if [ -z "${GEN_CACHE[$g]:-}" ]; then
                        GEN_CACHE[$g]="$SUITE/gen.${#GEN_CACHE[@]}"
                        eval "$g" >"${GEN_CACHE[$g]}"
                fi
                cp "${GEN_CACHE[$g]}" "$f"
                ;;
        esac
}
declare -A GEN_CACHE

# full_tmpfs DIR [OPTIONS]: a 64 KiB tmpfs on DIR, filled to the last block.
full_tmpfs() {
        mkdir -p "$1"
        mount -t tmpfs -o "size=64k${2:+,$2}" tmpfs "$1" || fail "mount tmpfs on $1"
        MOUNTS+=("$1")
        dd if=/dev/zero of="$1/filler" bs=4k 2>/dev/null
        df --output=avail -B1 "$1" | tail -n 1 | grep -qx ' *0' || fail "$1 is not full: $(df "$1")"
}

# bundle DIR [ARGS...]: a runc bundle running ARGS (default: touch /tmp/marker); with a rootfs
# only when $ROOTFS_TOO is set (direct hook calls never look at it).
bundle() {
        local dir=$1 args
        shift
        [ $# -gt 0 ] || set -- touch /tmp/marker
        mkdir -p "$dir/rootfs"
        [ -n "${ROOTFS_TOO:-}" ] && cp -a "$SUITE/rootfs/." "$dir/rootfs/"
        cp "$SUITE/plain.json" "$dir/config.json"
        [ "$*" = "touch /tmp/marker" ] && return 0
        args=$(tsync_json_array "$@") || return 1
        tsync_json_edit "$dir/config.json" \
                '.process.args = $a | .process.terminal = false | .root = {path: "rootfs", readonly: false}' \
                --argjson a "$args"
}

# injected: $W/b, a bundle injected with $W/layer.json (a good layer) and $W/cache.
injected() {
        mkdir -p "$W/b/rootfs" "$W/b/oci-seccomp-tsync"
        [ -n "${ROOTFS_TOO:-}" ] && cp -a "$SUITE/rootfs/." "$W/b/rootfs/"
        cp "$GOOD" "$W/layer.json"
        sed "s|$SUITE/tmpl/|$W/|g" "$SUITE/injected.json" >"$W/b/config.json"
}

testInjectedTemplateIsWhatInjectWrites() {
        injected
        mv "$W/b/config.json" "$W/template.json"
        cp "$SUITE/plain.json" "$W/b/config.json"
        "$OCI" inject --compile-at-start --cache-dir "$W/cache" --profile "$W/layer.json" "$W/b" || fail "inject"
        cmp "$W/template.json" "$W/b/config.json" || fail "$(diff "$W/template.json" "$W/b/config.json")"
}

state() { # state ID BUNDLE: the OCI state a runtime gives a hook
        if [[ $1$2 =~ ^[A-Za-z0-9/._-]+$ ]]; then
                printf '{"ociVersion": "1.0.2", "id": "%s", "status": "creating", "pid": 4242, "bundle": "%s"}\n' "$1" "$2"
                return
        fi
        jq -cn --arg id "$1" --arg b "$2" '{ociVersion: "1.0.2", id: $id, status: "creating", pid: 4242, bundle: $b}'
}

hook() { # hook STAGE [OPTIONS]: stdin as given; status in $rc, stdout in $W/out, stderr in $W/err
        timeout -s KILL 30 "$OCI" hook "$@" >"$W/out" 2>"$W/err"
        rc=$?
}

# assert_refused PREFIX CAUSE [STATUS]: status non-zero (or STATUS), stderr exactly one line
# that starts with PREFIX and contains CAUSE.
assert_refused() {
        local prefix=$1 cause=$2 want=${3:-} err lines=()
        mapfile -t lines <"$W/err"
        err=${lines[*]}
        if [ -n "$want" ]; then
                assertEquals "exit status (stderr: $err)" "$want" "$rc"
        else
                assertNotEquals "exit status (stderr: $err)" 0 "$rc"
        fi
        [ "$rc" = 137 ] && fail "killed after 30 s: it hung"
        assertEquals "stderr lines: $err" 1 "${#lines[@]}"
        [[ $err == "$prefix"* ]] || fail "stderr does not start with '$prefix': $err"
        [[ $err == *"$cause"* ]] || fail "stderr does not name '$cause': $err"
        assert_names_its_subject "$err"
}

# assert_names_its_subject LINE: an errno's text ends the line only after what it is about (a
# file, a JSON path, a quoted name), never after words alone ("rewriting the config: Invalid
# argument" said nothing a user could act on).
assert_names_its_subject() {
        local line=$1 before
        [[ $line == *": Invalid argument" ]] || return 0
        before=${line%: Invalid argument}
        before=${before##*: }
        [[ $before == *[./\[\']* ]] || fail "'Invalid argument' without what it is about: $line"
}

assert_no_temp() { # assert_no_temp DIR...: no temporary file left anywhere under DIRs
        local d left=()
        # In this shell: a find per row costs more than the rest of many rows.
        shopt -s globstar nullglob dotglob
        for d; do
                left+=("$d"/**/*.tmp*)
        done
        shopt -u globstar nullglob dotglob
        assertEquals "temporary files left" "" "${left[*]}"
}

assert_no_filters() { # assert_no_filters DIR: no filter file left in DIR (missing DIR is fine)
        local left=() f
        [ -L "$1" ] && return 0 # not ours: assert_victim_intact checks what it points to
        shopt -s nullglob dotglob
        for f in "$1"/*; do
                [ "${f##*/}" = filler ] || left+=("${f##*/}")
        done
        shopt -u nullglob dotglob
        assertEquals "left in $1" "" "${left[*]}"
}

snap() { # snap FILE: content checksum and mode, or "absent"
        if [ -e "$1" ] || [ -L "$1" ]; then
                echo "$(sha256sum <"$1" | cut -d' ' -f1) $(stat -c '%a %F' "$1")"
        else
                echo absent
        fi
}

# Generated tests are added by suite(); shunit2 finds only those written out in the file.
row() { # row NAME BODY...: defines testNAME running BODY
        local name=$1
        shift
        eval "test$name() { $*; }"
}

q() { printf '%q' "$1"; }
# qq TEXT: TEXT in double quotes, so that $W in a table's cause is expanded when the row runs.
qq() { printf '"%s"' "$1"; }

# ---------------------------------------------------------------------------------------------
# compile

compile_row() {
        local name=$1
        make_profile "$W/p.json" "${PROF_GEN[$name]}"
        mkdir "$W/outdir"
        timeout -s KILL 30 "$OCI" compile --caps all --cache-dir "$W/cache" "$W/p.json" -o "$W/outdir/f.bpf" \
                >"$W/out" 2>"$W/err"
        rc=$?
        assert_refused "oci-seccomp-tsync: " "${PROF_CAUSE[$name]}" 1
        assertEquals "output written" "" "$(ls -A "$W/outdir")"
        assertEquals "cache written" "" "$(ls -A "$W/cache")"
}

testCompileUnreadableFileAsNonRoot() {
        J '{"names": ["mkdir"], "action": "SCMP_ACT_ERRNO"}' >"$W/p.json"
        chmod 0600 "$W/p.json"
        mkdir "$W/outdir" && chmod 0777 "$W/outdir" && chmod 0755 "$W"
        setpriv --reuid 65534 --regid 65534 --clear-groups "$OCI" compile --no-cache "$W/p.json" -o "$W/outdir/f.bpf" \
                >"$W/out" 2>"$W/err"
        rc=$?
        assert_refused "oci-seccomp-tsync: compile: $W/p.json: " "Permission denied" 1
        assertEquals "output written" "" "$(ls -A "$W/outdir")"
}

testCompileOntoAFullDisk() {
        full_tmpfs "$W/full"
        "$OCI" compile --no-cache "$GOOD" -o "$W/full/f.bpf" >"$W/out" 2>"$W/err"
        rc=$?
        assert_refused "oci-seccomp-tsync: compile: $W/full/f.bpf: " "No space left on device" 1
        assertEquals "left on the full disk" "filler" "$(ls -A "$W/full")"
}

testCompileWithAFullCache() {
        full_tmpfs "$W/full" mode=0700 # a cache directory must be ours alone
        "$OCI" compile --cache-dir "$W/full" "$GOOD" -o "$W/f.bpf" >"$W/out" 2>"$W/err"
        rc=$?
        assert_refused "oci-seccomp-tsync: " "cache store: $W/full/" 1
        [[ $(cat "$W/err") == *"No space left on device"* ]] || fail "$(cat "$W/err")"
        assertEquals "left in the cache" "filler" "$(ls -A "$W/full")"
        assertFalse "output written" "[ -e $W/f.bpf ]"
}

testCompileWithACacheDirThatIsASymlink() {
        mkdir "$W/real"
        ln -s real "$W/link"
        "$OCI" compile --cache-dir "$W/link" "$GOOD" -o "$W/f.bpf" >"$W/out" 2>"$W/err"
        rc=$?
        assert_refused "oci-seccomp-tsync: " "cache directory $W/link is a symbolic link" 1
        assertEquals "written through the link" "" "$(ls -A "$W/real")"
        assertFalse "output written" "[ -e $W/f.bpf ]"
}

# ---------------------------------------------------------------------------------------------
# inject: nothing in the bundle changes

# inject_refused CAUSE INJECT-ARGS...: runs inject on $W/b and checks the bundle is as it was.
inject_refused() {
        local cause=$1 before_config before_dir
        shift
        before_config=$(snap "$W/b/config.json")
        before_dir=$(ls -la --time-style=+ "$W/b" 2>/dev/null | sed 1d)
        timeout -s KILL 30 "$OCI" inject --cache-dir "$W/cache" "$@" "$W/b" >"$W/out" 2>"$W/err"
        rc=$?
        # A row may say `local INJECT_STATUS=2` for a refused command line.
        assert_refused "oci-seccomp-tsync: " "$cause" "${INJECT_STATUS:-1}"
        assertEquals "config.json (checksum, mode)" "$before_config" "$(snap "$W/b/config.json")"
        assertEquals "bundle entries" "$before_dir" "$(ls -la --time-style=+ "$W/b" 2>/dev/null | sed 1d)"
        assert_no_temp "$W/b" "$W/cache"
        assertEquals "cache written" "" "$(ls -A "$W/cache")"
}

inject_profile_row() {
        local name=$1
        bundle "$W/b"
        chmod 0640 "$W/b/config.json" # a mode inject must keep (and, refused, leave)
        make_profile "$W/p.json" "${PROF_GEN[$name]}"
        inject_refused "${PROF_CAUSE[$name]}" --profile "$W/p.json"
}

# I NAME CAUSE SETUP [INJECT-ARGS]: an inject row; SETUP prepares $W/b (a fresh runc bundle).
I() {
        row "Inject$1" "bundle \"\$W/b\"; $3; inject_refused $(qq "$2") ${4:-"--profile \"\$GOOD\""}"
}
I ConfigNotJson "invalid JSON" 'echo "not json" >"$W/b/config.json"'
I ConfigTruncated "invalid JSON" 'head -c 300 "$W/b/config.json" >"$W/b/c" && mv "$W/b/c" "$W/b/config.json"'
I ConfigEmpty "empty document" ': >"$W/b/config.json"'
I ConfigNotAnObject "config.json: config: expected object, got array" 'echo "[]" >"$W/b/config.json"'
I ConfigDeep "deeper than the limit" 'python3 -c "print(\"{\\\"x\\\": \" + \"[\" * 100 + \"]\" * 100 + \"}\")" >"$W/b/config.json"'
I ConfigHuge "more than the limit of 16777216 bytes" 'tsync_json_edit "$W/b/config.json" ".annotations.pad = (\"x\" * (17 * 1048576))"'
I ConfigArgsNotArray "process.args: expected array" 'tsync_json_edit "$W/b/config.json" ".process.args = \"sh\""'
I ConfigArgsEmpty "process.args" 'tsync_json_edit "$W/b/config.json" ".process.args = []"'
I ConfigNoProcess "process" 'tsync_json_edit "$W/b/config.json" "del(.process)"'
I ConfigCapsWrongType "capabilities" 'tsync_json_edit "$W/b/config.json" ".process.capabilities.bounding = \"CAP_KILL\""'
# inject reads its request from its options: an annotation of ours would be left out (issue 24).
I UsersAnnotation "annotations.io.oci-seccomp-tsync.exec: not read by inject, which takes --exec-once[=ERRNO] instead" 'tsync_json_edit "$W/b/config.json" ".annotations[\"io.oci-seccomp-tsync.exec\"] = \"once\""'
I MisspeltAnnotation "annotations.io.oci-seccomp-tsync.layer: not an annotation of oci-seccomp-tsync" 'tsync_json_edit "$W/b/config.json" ".annotations[\"io.oci-seccomp-tsync.layer\"] = \"x\""'
I ConfigMissing "config.json: No such file or directory" 'rm "$W/b/config.json"'
I ConfigIsADirectory "is a directory" 'rm "$W/b/config.json" && mkdir "$W/b/config.json"'
I StateDirIsASymlink "not a directory (a symlink?)" 'mkdir "$W/elsewhere" && ln -s "$W/elsewhere" "$W/b/oci-seccomp-tsync"' '--compile-at-start --profile "$GOOD"'
I StateDirIsAFile "oci-seccomp-tsync" 'echo x >"$W/b/oci-seccomp-tsync"' '--compile-at-start --profile "$GOOD"'
I StateDirWorldWritable "writable by it alone" 'mkdir -m 0777 "$W/b/oci-seccomp-tsync" && chmod 0777 "$W/b/oci-seccomp-tsync"' '--compile-at-start --profile "$GOOD"'
I ReplaceBrokenLinuxSeccomp "errnoRet: 4095 is above the largest errno" \
        'tsync_json_edit "$W/b/config.json" ".linux.seccomp = {defaultAction: \"SCMP_ACT_ALLOW\", syscalls: [{names: [\"mkdir\"], action: \"SCMP_ACT_ERRNO\", errnoRet: 4095}]}"' \
        '--replace'
# issue 12, notify agents: the kernel takes one listener per process, so one agent at most, and
# none over a linux.seccomp the runtime loads with its own.
I NotifyLayerOverNotifyLinuxSeccomp "a layer with SCMP_ACT_NOTIFY (a notify agent's) cannot be added to it" \
        'tsync_json_edit "$W/b/config.json" ".linux.seccomp = {defaultAction: \"SCMP_ACT_ALLOW\", listenerPath: \"/run/agent.sock\", syscalls: [{names: [\"mkdir\"], action: \"SCMP_ACT_NOTIFY\"}]}" && echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/run/a.sock\", \"syscalls\": [{\"names\": [\"getppid\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}" >"$W/n.json"' \
        '--compile-at-start --profile "$W/n.json"'
I TwoNotifyLayers "a second filter with SCMP_ACT_NOTIFY" \
        'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/run/a.sock\", \"syscalls\": [{\"names\": [\"getppid\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}" >"$W/n.json"' \
        '--compile-at-start --profile "$W/n.json" --profile "$W/n.json"'
I InitMissing 'cannot find seccomp-tsync-init at $W/no-init' ':' '--init "$W/no-init" --profile "$GOOD"'
I TooManyLayers "at most 16 layers" ':' "$(printf -- '--profile "$GOOD" %.0s' $(seq 17))"
# Exec once (issue 12): the combinations that cannot work are refused on the command line, and a
# profile that denies what the supervisor needs is refused before the config is written.
I ExecOnceWithExec "--exec and --exec-once" 'local INJECT_STATUS=2' '--exec --exec-once --profile "$GOOD"'
I ExecOnceUnknownErrno "--exec-once=EWHATEVER: not an errno name" 'local INJECT_STATUS=2' '--exec-once=EWHATEVER'
I ExecOnceErrnoTooBig "--exec-once=4096: not an errno name" 'local INJECT_STATUS=2' '--exec-once=4096'
I ExecOnceProfileDeniesTheSupervisor "ioctl with ERRNO(1), which the init needs to receive exec notifications (exec-once): exec-once needs the init to supervise" \
        'J "{\"names\": [\"ioctl\"], \"action\": \"SCMP_ACT_ERRNO\"}" >"$W/deny-ioctl.json"' '--exec-once --profile "$W/deny-ioctl.json"'
I ExecOnceProfileForcesInPlace "wait4 with ERRNO(1), which the init needs to reap the workload and orphans: exec-once needs the init to supervise" \
        'J "{\"names\": [\"wait4\"], \"action\": \"SCMP_ACT_ERRNO\"}" >"$W/deny-wait4.json"' '--exec-once --profile "$W/deny-wait4.json"'
# issue 23: with CAP_SYS_PTRACE in any set (or no process.capabilities: the whole bounding set) the
# workload could open the exec-once supervisor's /proc/1/task/N/mem: refused, naming the set.
I ExecOnceWithSysPtraceInBounding "exec once: process.capabilities.bounding has CAP_SYS_PTRACE, with which the workload could open the exec-once supervisor's /proc/1/task/N/mem" \
        'tsync_json_edit "$W/b/config.json" ".process.capabilities.bounding += [\"CAP_SYS_PTRACE\"]"' '--exec-once'
I ExecOnceWithSysPtraceInAmbient "exec once: process.capabilities.ambient has CAP_SYS_PTRACE" \
        'tsync_json_edit "$W/b/config.json" ".process.capabilities.ambient = [\"CAP_SYS_PTRACE\"]"' '--exec-once --profile "$GOOD"'
I ExecOnceWithoutCapabilities "exec once: process.capabilities is absent, so the runtime leaves the bounding set whole, CAP_SYS_PTRACE with it" \
        'tsync_json_edit "$W/b/config.json" "del(.process.capabilities)"' '--exec-once'
# issue 12: notify. The runtime loads a notify linux.seccomp with its listener, and the kernel
# allows one listener among a process's filters: exec once cannot be added in layer mode.
I ExecOnceBesideTheRuntimesNotifyProfile "linux.seccomp has SCMP_ACT_NOTIFY rules, so the runtime loads it with a notification listener, and the kernel allows one listener among a process's filters: exec once cannot be added to it" \
        'tsync_json_edit "$W/b/config.json" ".linux.seccomp = {defaultAction: \"SCMP_ACT_ALLOW\", listenerPath: \"/run/agent.sock\", syscalls: [{names: [\"mkdir\"], action: \"SCMP_ACT_NOTIFY\"}]}"' '--exec-once'
# Nor beside a notify layer: its agent's listener comes through --relay, which the init refuses
# beside --exec-once (issue 36: inject wrote that command line, and every start failed).
I ExecOnceBesideANotifyLayer "the init's command line: --exec-once cannot be combined with --relay: the kernel allows one listener among a process's filters" \
        'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/run/a.sock\", \"syscalls\": [{\"names\": [\"getppid\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}" >"$W/n.json"' \
        '--exec-once --profile "$W/n.json"'
# One home per decision (issue 16): the rewrite's refusals name their JSON path.
I ConfigHookStageNotAList "hooks.poststop: expected array, got object" 'tsync_json_edit "$W/b/config.json" ".hooks.poststop = {}"' '--compile-at-start --profile "$GOOD"'
I ConfigHooksNotAnObject "hooks: expected object, got array" 'tsync_json_edit "$W/b/config.json" ".hooks = []"' '--compile-at-start --profile "$GOOD"'
I ConfigAmbientNotAList "process.capabilities.ambient: expected array, got string" \
        'tsync_json_edit "$W/b/config.json" ".process.noNewPrivileges = false | .process.capabilities.ambient = \"CAP_KILL\""'
I ConfigAnnotationsNotAnObject "annotations: expected object, got array" 'tsync_json_edit "$W/b/config.json" ".annotations = []"'
# Host files (issue 11): root's write must not follow a link planted in a bundle.
I ConfigIsASymlink "config.json: is a symbolic link: refusing to read or replace it" 'mv "$W/b/config.json" "$W/real.json" && ln -s "$W/real.json" "$W/b/config.json"'
# Privilege parity (issue 11, capability names): a name runc ignores is no longer a refusal
# (it was, as ConfigUnknownCap): inject leaves it out, as runc does, and says so once, in
# runc's words; the init's options never carry it.
testInjectLeavesOutCapabilityNamesRuncIgnoresWithOneWarning() {
        bundle "$W/b"
        tsync_json_edit "$W/b/config.json" '.process.noNewPrivileges = false
                | .process.capabilities.bounding += ["CAP_TELEKINESIS", "sys_admin", "CAP_KILL,CAP_SYS_ADMIN"]'
        timeout -s KILL 30 "$OCI" inject --cache-dir "$W/cache" --profile "$GOOD" "$W/b" >"$W/out" 2>"$W/err"
        rc=$?
        assertEquals "inject: $(cat "$W/err")" 0 "$rc"
        assertEquals "capability warnings: $(cat "$W/err")" 1 "$(grep -c 'ignoring unknown or unavailable' "$W/err")"
        grep -qF "oci-seccomp-tsync: $W/b/config.json: warning: process.capabilities: ignoring unknown or unavailable capabilities: [CAP_KILL,CAP_SYS_ADMIN CAP_TELEKINESIS sys_admin]" "$W/err" ||
                fail "$(cat "$W/err")"
        assertEquals "the init's --bounding" "CAP_AUDIT_WRITE,CAP_KILL,CAP_NET_BIND_SERVICE" \
                "$(jq -r '.process.args as $a | $a | index("--bounding") as $i | $a[$i + 1]' "$W/b/config.json")"
}
# Plan trust and exec parity (issue 11, wip-execparity): a plan is believed only when the config is
# what inject wrote from it; --no-hooks cannot take lent capabilities back from exec'd processes.
honest() { # honest: $W/b injected (without touching $W/cache), then the edit JQ of its plan or config
        "$OCI" inject --compile-at-start --no-cache --profile "$GOOD" "$W/b" && tsync_json_edit "$W/b/config.json" "$1"
}
I ForgedPlanCapabilities "process.args[" 'honest ".annotations[\"io.oci-seccomp-tsync.plan\"] |= (fromjson | .capabilities.bounding += [\"CAP_SYS_ADMIN\"] | tojson)"'
I ForgedPlanNoNewPrivileges "not what inject wrote from the recorded plan" 'honest ".annotations[\"io.oci-seccomp-tsync.plan\"] |= (fromjson | .noNewPrivileges = false | tojson)"'
I ForgedPlanSeccomp "linux.seccomp: not what inject wrote from the recorded plan" 'honest ".annotations[\"io.oci-seccomp-tsync.plan\"] |= (fromjson | .seccomp = {defaultAction: \"SCMP_ACT_ALLOW\"} | tojson)"'
I ForgedPlanArgs "process.args[" 'honest ".annotations[\"io.oci-seccomp-tsync.plan\"] |= (fromjson | .args = [\"sh\", \"-c\", \"id\"] | tojson)"'
I CapabilitiesEditedAfterInject "process.capabilities.bounding[3]: not what inject wrote" 'honest ".process.capabilities.bounding += [\"CAP_SYS_MODULE\"]"'
I HooksEditedAfterInject "hooks." 'honest "del(.hooks.poststop)"'
I RunningRecordWithoutPlan "annotations.io.oci-seccomp-tsync.running: set without io.oci-seccomp-tsync.plan" 'tsync_json_edit "$W/b/config.json" ".annotations[\"io.oci-seccomp-tsync.running\"] = \"x\""'
I NoHooksLendsCapabilities "set process.noNewPrivileges to true" 'tsync_json_edit "$W/b/config.json" ".process.noNewPrivileges = false"' '--no-hooks --profile "$GOOD"'

testInjectOntoAFullDisk() {
        bundle "$W/src"
        full_tmpfs "$W/b"
        cp "$W/src/config.json" "$W/b/config.json" 2>/dev/null
        # The filler leaves no room for the copy either: make room for exactly the config.
        rm -f "$W/b/filler" && cp "$W/src/config.json" "$W/b/config.json" &&
                dd if=/dev/zero of="$W/b/filler" bs=4k 2>/dev/null
        inject_refused "No space left on device" --profile "$GOOD"
}

# ---------------------------------------------------------------------------------------------
# hook: the OCI state on stdin (prestart, createRuntime and poststop alike)

# S NAME CAUSE GENERATOR: a bad OCI state; one row per stage.
S() {
        local stage
        for stage in prestart createRuntime poststop; do
                row "Hook${stage^}State$1" "injected; { $3; } | hook $stage --cache-dir \"\$W/cache\";" \
                        "assert_refused $(q "oci-seccomp-tsync: $stage: the OCI state on stdin") $(qq "$2") 1;" \
                        "assert_no_filters \"\$W/b/oci-seccomp-tsync\"; assert_no_temp \"\$W\""
        done
}
S NotJson "invalid JSON" 'echo "not json"'
S Truncated "invalid JSON" 'state id-1 "$W/b" | head -c 30'
S Empty "empty document" ':'
S NotAnObject "state.id" 'echo "[\"id-1\"]"'
S IdMissing "state.id: missing" 'state id-1 "$W/b" | jq -c "del(.id)"'
S IdWrongType "state.id: expected string" 'state id-1 "$W/b" | jq -c ".id = 17"'
S IdEmpty "state.id: empty or too long" 'state "" "$W/b"'
S IdTooLong "state.id: empty or too long" 'state "$(printf "x%.0s" $(seq 300))" "$W/b"'
S IdNotPrintable "state.id: not printable" 'state "$(printf "a\nb")" "$W/b"'
S BundleMissing "state.bundle: missing" 'state id-1 "$W/b" | jq -c "del(.bundle)"'
S BundleWrongType "state.bundle: expected string" 'state id-1 "$W/b" | jq -c ".bundle = [1]"'
S BundleRelative "state.bundle: 'b' is not an absolute path" 'state id-1 b'
S Deep "deeper than the limit" 'python3 -c "print(\"{\\\"id\\\": \\\"x\\\", \\\"a\\\": \" + \"[\" * 100 + \"]\" * 100 + \"}\")"'
S Huge "more than the limit of 1048576 bytes" 'state id-1 "$W/b" | jq -c ".annotations.pad = (\"x\" * 1100000)"'

# ---------------------------------------------------------------------------------------------
# hook createRuntime and poststop: a bad bundle, config, plan or directory

# plan_edit JQ: edits the plan inside $W/b/config.json.
plan_edit() {
        tsync_json_edit "$W/b/config.json" ".annotations[\"io.oci-seccomp-tsync.plan\"] |= (fromjson | $1 | tojson)"
}

# A directory a plan may point at; nothing may ever be written to it or removed from it.
victim() {
        mkdir -p "$W/victim"
        echo keep >"$W/victim/precious"
        cp "$SUITE/allow.bpf" "$W/victim/00.bpf"
}

assert_victim_intact() {
        [ -d "$W/victim" ] || return 0
        assertEquals "the victim directory changed" "00.bpf precious" "$(ls "$W/victim" | paste -sd' ')"
        assertEquals "keep" "$(cat "$W/victim/precious")"
}

# B NAME CREATE-CAUSE POSTSTOP SETUP: an injected bundle $W/b broken by SETUP. createRuntime is
# refused with CREATE-CAUSE, naming the container; POSTSTOP is "ok" (exit 0, silent: the state is
# gone or never came) or the cause it must report.
B() {
        local name=$1 cause=$2 post=$3 setup=$4 check
        row "HookCreateRuntime$name" "injected; victim; $setup;" \
                "state fc-$name \"\$W/b\" | hook createRuntime --cache-dir \"\$W/cache\" --state-root \"\$W/run\" --profile-dir \"\$W/profiles\";" \
                "assert_refused $(q "oci-seccomp-tsync: fc-$name: ") $(qq "$cause") 1;" \
                "assert_no_filters \"\$W/b/oci-seccomp-tsync\"; assert_no_temp \"\$W\"; assert_victim_intact;" \
                "assertEquals 'state root' '' \"\$(ls -A \"\$W/run\")\""
        if [ "$post" = ok ]; then
                check="assertEquals \"poststop: \$(cat \"\$W/err\")\" 0 \"\$rc\"; assertEquals '' \"\$(cat \"\$W/err\")\""
        else
                check="assert_refused $(q "oci-seccomp-tsync: fc-$name: ") $(qq "$post") 1"
        fi
        row "HookPoststop$name" "injected; victim; $setup;" \
                "state fc-$name \"\$W/b\" | hook poststop --cache-dir \"\$W/cache\" --state-root \"\$W/run\" --profile-dir \"\$W/profiles\";" \
                "$check; assert_victim_intact; assert_no_filters \"\$W/b/oci-seccomp-tsync\""
}
B BundleGone '$W/b/config.json: No such file or directory' ok 'mv "$W/b" "$W/gone"'
B ConfigMissing "config.json: No such file or directory" ok 'rm "$W/b/config.json"'
B ConfigNotJson "config.json: (root): invalid JSON" "config.json: (root): invalid JSON" 'echo garbage >"$W/b/config.json"'
B ConfigIsADirectory "config.json: is a directory" "config.json: is a directory" 'rm "$W/b/config.json"; mkdir "$W/b/config.json"'
B NoPlan "annotations: no io.oci-seccomp-tsync.plan" ok 'tsync_json_edit "$W/b/config.json" "del(.annotations)"'
B PlanNotJson "annotations.io.oci-seccomp-tsync.plan" "annotations.io.oci-seccomp-tsync.plan" 'tsync_json_edit "$W/b/config.json" ".annotations[\"io.oci-seccomp-tsync.plan\"] = \"{not json\""'
B PlanWrongType "annotations.io.oci-seccomp-tsync.plan: expected string" "annotations.io.oci-seccomp-tsync.plan: expected string" 'tsync_json_edit "$W/b/config.json" ".annotations[\"io.oci-seccomp-tsync.plan\"] = 1"'
B PlanVersion99 "plan.version: 99" "plan.version: 99" 'plan_edit ".version = 99"'
B PlanModeUnknown "plan.mode: 'sometimes' is not layer or replace" "plan.mode: 'sometimes'" 'plan_edit ".mode = \"sometimes\""'
B PlanLayersNotArray "plan.layers: expected array" "plan.layers: expected array" 'plan_edit ".layers = \"/etc/passwd\""'
B PlanStateDirMissing "plan.stateDir: missing" "plan.stateDir: missing" 'plan_edit "del(.stateDir)"'
B PlanTooManyLayers "plan.layers: 17 layers, at most 16" "plan.layers: 17 layers, at most 16" 'plan_edit ".layers = [range(17) | \"/x.json\"]"'
B PlanArgsMissing "plan.args: missing" "plan.args: missing" 'plan_edit "del(.args)"'
# Paths that escape: poststop must refuse to clean them, and never touch the victim.
B StateDirOutside "plan.stateDir: '\$W/victim' is neither" "is neither" 'plan_edit ".stateDir = \"$W/victim\""'
B StateDirDotDot "is neither" "is neither" 'plan_edit ".stateDir = \"$W/b/oci-seccomp-tsync/../../victim\""'
B StateDirUnderRootDotDot "is neither" "is neither" 'plan_edit ".stateDir = \"$W/run/../victim\""'
B StateDirRelative "is neither" "is neither" 'plan_edit ".stateDir = \"oci-seccomp-tsync\""'
B StateDirSymlink "not a directory (a symlink?)" "oci-seccomp-tsync: Not a directory" 'rmdir "$W/b/oci-seccomp-tsync" && ln -s "$W/victim" "$W/b/oci-seccomp-tsync"'
B StateDirWorldWritable "writable by it alone" ok 'chmod 0777 "$W/b/oci-seccomp-tsync"'
B StateDirGone "oci-seccomp-tsync: No such file or directory" ok 'rmdir "$W/b/oci-seccomp-tsync"'
B LayerRelative "layer 0: 'layer.json' is not an absolute path" ok 'plan_edit ".layers = [\"layer.json\"]"'
B LayerByNameDotDot "layer '../../etc/passwd': not a profile name" ok 'plan_edit ".layersByName = true | .layers = [\"../../etc/passwd\"]"'
B LayerByNameAbsolute "layer '/etc/passwd': not a profile name" ok 'plan_edit ".layersByName = true | .layers = [\"/etc/passwd\"]"'
B LayerByNameUnknown "layer 'no-such-layer': no such profile in \$W/profiles" ok 'plan_edit ".layersByName = true | .layers = [\"no-such-layer\"]"'
B ReplaceSeccompBroken "linux.seccomp (replace mode): defaultAction: action 'SCMP_ACT_NEVER' is unknown" ok 'plan_edit ".mode = \"replace\" | .seccomp = {defaultAction: \"SCMP_ACT_NEVER\"}"'
B CapsWrongType "capabilities" ok 'plan_edit ".capabilities.bounding = 7"'
# Exec parity (issue 11, wip-execparity): with capabilities lent (noNewPrivileges false), a runtime
# we do not know (here the hook's parent is `timeout`) is refused: we cannot tell where its exec reads.
lending() { # lending: $W/b injected as the template, but with noNewPrivileges false
        bundle "$W/b" && cp "$GOOD" "$W/layer.json" && mkdir -p "$W/b/oci-seccomp-tsync" &&
                tsync_json_edit "$W/b/config.json" ".process.noNewPrivileges = false" &&
                "$OCI" inject --compile-at-start --cache-dir "$W/cache" --profile "$W/layer.json" "$W/b"
}
B UnknownRuntimeWithLentCapabilities "runtime 'timeout': process.noNewPrivileges is false" ok 'lending'

# The layer profile itself, broken after inject (every kind of bad profile).
hook_profile_row() {
        local name=$1
        injected
        make_profile "$W/layer.json" "${PROF_GEN[$name]}"
        state "fc-$name" "$W/b" | hook createRuntime --cache-dir "$W/cache"
        assert_refused "oci-seccomp-tsync: fc-$name: " "${PROF_CAUSE[$name]}" 1
        [[ $(cat "$W/err") == *"$W/layer.json"* ]] || fail "the layer is not named: $(cat "$W/err")"
        assert_no_filters "$W/b/oci-seccomp-tsync"
        assert_no_temp "$W"
}

testHookCreateRuntimeSecondLayerBrokenLeavesNoFirstFilter() {
        bundle "$W/b"
        cp "$GOOD" "$W/layer.json" && cp "$GOOD" "$W/layer2.json"
        "$OCI" inject --compile-at-start --cache-dir "$W/cache" --profile "$W/layer.json" --profile "$W/layer2.json" "$W/b" ||
                fail "inject"
        echo '{"defaultAction": "SCMP_ACT_NEVER"}' >"$W/layer2.json"
        state fc-second "$W/b" | hook createRuntime --cache-dir "$W/cache"
        assert_refused "oci-seccomp-tsync: fc-second: layer '$W/layer2.json': " "action 'SCMP_ACT_NEVER' is unknown" 1
        # The first layer compiled and was written before the second failed: it must be gone.
        assert_no_filters "$W/b/oci-seccomp-tsync"
        assert_no_temp "$W"
}

testHookCreateRuntimeWithAFullStateDir() {
        injected
        full_tmpfs "$W/b/oci-seccomp-tsync" mode=0755
        state fc-full "$W/b" | hook createRuntime --cache-dir "$W/cache"
        assert_refused "oci-seccomp-tsync: fc-full: $W/b/oci-seccomp-tsync/00.bpf: " "No space left on device" 1
        assert_no_filters "$W/b/oci-seccomp-tsync"
        assert_no_temp "$W"
}

testHookCreateRuntimeWithAFullCache() {
        injected
        full_tmpfs "$W/full" mode=0700 # a cache directory must be ours alone
        state fc-cache "$W/b" | hook createRuntime --cache-dir "$W/full"
        assert_refused "oci-seccomp-tsync: fc-cache: layer '$W/layer.json': cache store: " "No space left on device" 1
        assertEquals "left in the cache" "filler" "$(ls -A "$W/full")"
        assert_no_filters "$W/b/oci-seccomp-tsync"
}

testHookCreateRuntimeWithACacheDirThatIsASymlink() {
        injected
        mkdir "$W/real"
        ln -s real "$W/link"
        state fc-link "$W/b" | hook createRuntime --cache-dir "$W/link"
        assert_refused "oci-seccomp-tsync: fc-link: " "cache directory $W/link is a symbolic link" 1
        assertEquals "written through the link" "" "$(ls -A "$W/real")"
        assert_no_filters "$W/b/oci-seccomp-tsync"
}

# ---------------------------------------------------------------------------------------------
# Host files (issue 11): the cache directory must be ours alone, as the state root is, and a
# swapped cache entry is rebuilt, never loaded.

# K NAME SETUP: a cache directory $W/c (made by the row) that SETUP makes not ours alone.
K() {
        row "CompileWithACacheDir$1" "mkdir \"\$W/c\"; $2;" \
                "\"\$OCI\" compile --cache-dir \"\$W/c\" \"\$GOOD\" -o \"\$W/f.bpf\" >\"\$W/out\" 2>\"\$W/err\"; rc=\$?;" \
                "assert_refused 'oci-seccomp-tsync: ' \"cache directory \$W/c: must be a directory owned by uid 0 and writable by it alone\" 1;" \
                "assertEquals 'cache written' '' \"\$(ls -A \"\$W/c\")\"; assertFalse 'output written' \"[ -e \$W/f.bpf ]\""
        row "HookCreateRuntimeWithACacheDir$1" "injected; mkdir \"\$W/c\"; $2;" \
                "state fc-cache \"\$W/b\" | hook createRuntime --cache-dir \"\$W/c\";" \
                "assert_refused 'oci-seccomp-tsync: fc-cache: ' \"cache directory \$W/c: must be a directory owned by uid 0 and writable by it alone\" 1;" \
                "assertEquals 'cache written' '' \"\$(ls -A \"\$W/c\")\"; assert_no_filters \"\$W/b/oci-seccomp-tsync\"; assert_no_temp \"\$W\""
}
K GroupWritable 'chmod 0770 "$W/c"'
K WorldWritable 'chmod 0777 "$W/c"'
K StickyWorldWritable 'chmod 1777 "$W/c"'
K OwnedByNobody 'chown 65534 "$W/c"'

# new_entry BEFORE: the cache entry in $W/cache that is not in the list BEFORE.
new_entry() {
        comm -13 <(printf '%s\n' "$1" | LC_ALL=C sort) <(LC_ALL=C ls "$W/cache" | LC_ALL=C sort) | grep .
}

# swap_entries STRONG WEAK: compiles both through $W/cache, then renames WEAK's entry over STRONG's
# (what anyone who can write the directory could do); echoes STRONG's entry name.
swap_entries() {
        local strong weak
        "$OCI" compile --cache-dir "$W/cache" "$1" -o "$W/strong.bpf" 2>/dev/null || return 1
        strong=$(new_entry "") || return 1
        "$OCI" compile --cache-dir "$W/cache" "$2" -o "$W/weak.bpf" 2>/dev/null || return 1
        weak=$(new_entry "$strong") || return 1
        cp "$W/cache/$weak" "$W/weak.entry" && mv "$W/cache/$weak" "$W/cache/$strong" && echo "$strong"
}

testCompileWithASwappedCacheEntryRebuildsIt() {
        local strong
        echo '{"defaultAction": "SCMP_ACT_ALLOW"}' >"$W/weak.json"
        strong=$(swap_entries "$GOOD" "$W/weak.json") || fail "setup"
        "$OCI" compile --cache-dir "$W/cache" "$GOOD" -o "$W/out.bpf" 2>"$W/err"
        last_rc=$?
        assertEquals "exit status: $(cat "$W/err")" 0 "$last_rc"
        cmp -s "$W/strong.bpf" "$W/out.bpf" || fail "the swapped entry's program was returned"
        cmp -s "$W/weak.entry" "$W/cache/$strong" && fail "the swapped entry was left in place"
        "$OCI" compile --cache-dir "$W/cache" "$GOOD" -o "$W/again.bpf" || fail "compile from the repaired entry"
        cmp -s "$W/strong.bpf" "$W/again.bpf" || fail "the repaired entry holds another program"
        assert_no_temp "$W"
}

testHookCreateRuntimeWithASwappedCacheEntryDeliversTheLayersOwnFilter() {
        local strong
        injected
        echo '{"defaultAction": "SCMP_ACT_ALLOW"}' >"$W/weak.json"
        strong=$(swap_entries "$W/layer.json" "$W/weak.json") || fail "setup"
        "$OCI" compile -O tsync --no-cache "$W/layer.json" -o "$W/want.bpf" || fail "compile"
        state fc-swap "$W/b" | hook createRuntime --cache-dir "$W/cache"
        assertEquals "exit status: $(cat "$W/err")" 0 "$rc"
        cmp -s "$W/want.bpf" "$W/b/oci-seccomp-tsync/00.bpf" || fail "the delivered filter is not the layer's"
        cmp -s "$W/weak.entry" "$W/cache/$strong" && fail "the swapped entry was left in place"
        assert_no_temp "$W"
}

testHookUnknownStage() {
        hook poststart </dev/null
        assert_refused "oci-seccomp-tsync: hook: " "'poststart' is not a stage" 2
}

# ---------------------------------------------------------------------------------------------
# hook precreate: the config on stdin, the layers by name from a profile directory

precreate() { # precreate [OPTIONS]: the config on stdin, options after the defaults
        hook precreate --state-root "$W/run" --profile-dir "$W/profiles" --cache-dir "$W/cache" "$@"
}

# annotated LAYERS [MODE]: a runc config carrying our annotations.
annotated() {
        [ -f "$W/spec/config.json" ] || { mkdir -p "$W/spec" && runc spec --bundle "$W/spec"; }
        jq -c --arg l "$1" --arg m "${2:-layer}" \
                '.annotations = {"io.oci-seccomp-tsync.layers": $l, "io.oci-seccomp-tsync.mode": $m}' "$W/spec/config.json"
}

# The line names the container by its hostname (runc spec's "runc") once the config could be read.
assert_precreate_refused() {
        assert_refused "oci-seccomp-tsync: precreate" "$1" 1
        [[ $(cat "$W/err") =~ ^oci-seccomp-tsync:\ precreate(\ \(hostname\ runc\))?:\  ]] ||
                fail "not precreate's line: $(cat "$W/err")"
        assertEquals "config written to stdout" "" "$(cat "$W/out")"
        assert_no_filters "$W/run" # no state directory left
        assert_no_temp "$W"
}

precreate_profile_row() {
        local name=$1
        mkdir -p "$W/profiles"
        make_profile "$W/profiles/bad.json" "${PROF_GEN[$name]}"
        annotated "deny-mkdir,bad" | precreate --profile-dir "$PROFILES"
        assert_precreate_refused "layer 'bad'"
        [[ $(cat "$W/err") == *"${PROF_CAUSE[$name]}"* ]] || fail "no '${PROF_CAUSE[$name]}' in: $(cat "$W/err")"
}

# C NAME CAUSE GENERATOR [OPTIONS]: GENERATOR prints the config precreate reads.
C() {
        row "HookPrecreate$1" "cp \"\$GOOD\" \"\$W/profiles/good.json\";" \
                "{ $3; } | precreate $4; assert_precreate_refused $(qq "$2")"
}
C NotJson "the config on stdin: (root): invalid JSON at byte 1" 'echo "not json"'
C Truncated "the config on stdin: process.cwd: invalid JSON at byte 200: premature EOF" 'annotated good | head -c 200'
C Empty "the config on stdin: empty document" ':'
C Deep "nesting is deeper than the limit of 32 levels" 'python3 -c "print(\"{\\\"x\\\": \" + \"[\" * 100 + \"]\" * 100 + \"}\")"'
C Huge "the config on stdin: input is more than the limit of 16777216 bytes" 'annotated good | jq -c ".annotations.pad = (\"x\" * (17 * 1048576))"'
C ModeUnknown "annotations.io.oci-seccomp-tsync.mode: 'sometimes' is not layer or replace" 'annotated good sometimes'
C ModeWrongType "annotations.io.oci-seccomp-tsync.mode: expected string" 'annotated good | jq -c ".annotations[\"io.oci-seccomp-tsync.mode\"] = 1"'
C LayersWrongType "annotations.io.oci-seccomp-tsync.layers: expected string" 'annotated good | jq -c ".annotations[\"io.oci-seccomp-tsync.layers\"] = [\"good\"]"'
C LayerDotDot "'../../etc/passwd' is not a profile name" 'annotated "good,../../etc/passwd"'
C LayerAbsolute "'/etc/shadow' is not a profile name" 'annotated "good /etc/shadow"'
C LayerHidden "'.good' is not a profile name" 'annotated ".good"'
C LayerUnknown "layer 'no-such-layer': no such profile in \$W/profiles" 'annotated "good,no-such-layer"'
C LayerSymlinkInProfileDir "layer 'link': \$W/profiles/link.json is not a regular file" 'ln -s "$GOOD" "$W/profiles/link.json"; annotated link'
C TooManyLayers "at most 16 layers" 'annotated "$(printf "good,%.0s" $(seq 17))"'
C NoLayersNoReplace "no layers and not replace mode" 'annotated ""'
C ReplaceWithoutSeccompAndNoLayers "replace mode: linux.seccomp: missing: there is no profile to move to the init" 'annotated "" replace'
C InitMissing "cannot find seccomp-tsync-init" 'annotated good' '--init "$W/no-init"'
# Precreate compiles through the cache (issue 15): a cache that is not ours alone is refused.
C CacheDirWorldWritable "must be a directory owned by uid 0 and writable by it alone" 'chmod 0777 "$W/cache"; annotated good'
C CacheDirSymlink "$W/cache-link" 'mkdir -m 0700 "$W/real-cache"; ln -s real-cache "$W/cache-link"; annotated good' '--cache-dir "$W/cache-link"'
# Plan trust (issue 11, wip-execparity): an engine's config never carries our plan or running record.
C ForgedPlan "annotations.io.oci-seccomp-tsync.plan: set by oci-seccomp-tsync itself and never by an engine" 'annotated good | jq -c ".annotations[\"io.oci-seccomp-tsync.plan\"] = (\$p | tojson)" --argjson p "{\"version\": 1, \"mode\": \"replace\", \"stateDir\": \"$W/run/x\", \"layersByName\": true, \"layers\": [], \"args\": [\"sh\"], \"noNewPrivileges\": false, \"seccomp\": {\"defaultAction\": \"SCMP_ACT_ALLOW\"}}"'
# Exec once (issue 12): the annotation takes once or once:ERRNO, nothing else; with a layer that
# denies the supervisor's ioctl, precreate refuses rather than run the workload in place.
C ExecAnnotationUnknownValue "annotations.io.oci-seccomp-tsync.exec: 'twice' is not once or once:ERRNO" 'annotated good | jq -c ".annotations[\"io.oci-seccomp-tsync.exec\"] = \"twice\""'
C ExecAnnotationUnknownErrno "annotations.io.oci-seccomp-tsync.exec: 'once:EWHATEVER' is not once or once:ERRNO" 'annotated good | jq -c ".annotations[\"io.oci-seccomp-tsync.exec\"] = \"once:EWHATEVER\""'
C ExecAnnotationNotAString "annotations.io.oci-seccomp-tsync.exec: expected string" 'annotated good | jq -c ".annotations[\"io.oci-seccomp-tsync.exec\"] = true"'
C MisspeltAnnotation "annotations.io.oci-seccomp-tsync.exe: not an annotation of oci-seccomp-tsync" 'annotated good | jq -c ".annotations[\"io.oci-seccomp-tsync.exe\"] = \"once\""'
C ExecOnceLayerDeniesTheSupervisor "exec-once needs the init to supervise the workload" 'J "{\"names\": [\"ioctl\"], \"action\": \"SCMP_ACT_ERRNO\"}" >"$W/profiles/deny-ioctl.json"; annotated deny-ioctl | jq -c ".annotations[\"io.oci-seccomp-tsync.exec\"] = \"once\""'
C ExecOnceWithSysPtrace "exec once: process.capabilities.inheritable has CAP_SYS_PTRACE" 'annotated good | jq -c ".annotations[\"io.oci-seccomp-tsync.exec\"] = \"once\" | .process.capabilities.inheritable = [\"CAP_SYS_PTRACE\"]"'
C ExecOnceBesideANotifyLayer "the init's command line: --exec-once cannot be combined with --relay: the kernel allows one listener among a process's filters" 'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/run/a.sock\", \"syscalls\": [{\"names\": [\"getppid\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}" >"$W/profiles/notify.json"; annotated notify | jq -c ".annotations[\"io.oci-seccomp-tsync.exec\"] = \"once\""'
C ForgedRunningRecord "annotations.io.oci-seccomp-tsync.running: set by oci-seccomp-tsync itself" 'annotated good | jq -c ".annotations[\"io.oci-seccomp-tsync.running\"] = \"x\""'
# The hook's own start (issue 15, wip-hookstart): the runtime's own profile, which precreate compiles
# to judge the init's calls, goes through the cache too, with the same refusals, named as such.
C BaselineCacheDirWorldWritable "linux.seccomp (the runtime's own profile): cache directory \$W/cache: must be a directory owned by uid 0" 'chmod 0777 "$W/cache"; annotated good | jq -c ".linux.seccomp = {defaultAction: \"SCMP_ACT_ALLOW\", syscalls: [{names: [\"mkdir\"], action: \"SCMP_ACT_ERRNO\"}]}"'

testHookPrecreateWithAFullCache() {
        # Precreate stores what it compiles: a cache without a free inode is refused, not skipped.
        full_tmpfs "$W/full" "nr_inodes=4,mode=0700"
        for i in 1 2 3 4 5; do touch "$W/full/i$i" 2>/dev/null || break; done
        mkdir -p "$W/profiles" && cp "$GOOD" "$W/profiles/good.json"
        annotated good | precreate --cache-dir "$W/full"
        assert_refused "oci-seccomp-tsync: precreate (hostname runc): " "No space left on device" 1
        assertEquals "config written to stdout" "" "$(cat "$W/out")"
        assert_no_temp "$W/full"
}

# Precreate keeps nothing on the host (issue 15): the filters travel in the init's arguments, so
# there is no state directory to leak when the config never runs, and createRuntime compiles
# nothing (a profile broken after precreate does not matter: the filters were fixed then).
precreate_bundle() {
        mkdir -p "$W/profiles" "$W/b/rootfs" && cp "$GOOD" "$W/profiles/good.json"
        annotated good | precreate
        assertEquals "precreate: $(cat "$W/err")" 0 "$rc"
        cp "$W/out" "$W/b/config.json"
        assertEquals "state directories" "" "$(ls -A "$W/run")"
        assertEquals "filters in the init's arguments" 1 \
                "$(jq '[.process.args[] | select(. == "--filter-data")] | length' "$W/b/config.json")"
}

testHookPrecreateLeavesNoStateAndCreateRuntimeCompilesNothing() {
        precreate_bundle
        echo '{"defaultAction": "SCMP_ACT_NEVER"}' >"$W/profiles/good.json"
        state fc-pre "$W/b" | hook createRuntime --profile-dir "$W/profiles" --state-root "$W/run" --cache-dir "$W/cache"
        assertEquals "createRuntime: $(cat "$W/err")" 0 "$rc"
        state fc-pre "$W/b" | hook poststop --profile-dir "$W/profiles" --state-root "$W/run"
        assertEquals "poststop: $(cat "$W/err")" 0 "$rc"
        assertEquals "state left" "" "$(ls -A "$W/run")"
}

testHookCreateRuntimeRefusesAConfigPrecreateNeverSaw() {
        # An engine that runs the hooks.d createRuntime stage but not precreate (CRI-O) must not
        # start the container without the filters its annotations ask for.
        mkdir -p "$W/b/rootfs"
        annotated good >"$W/b/config.json"
        state fc-nopre "$W/b" | hook createRuntime --profile-dir "$W/profiles" --state-root "$W/run" --cache-dir "$W/cache"
        assert_refused "oci-seccomp-tsync: fc-nopre: " "no io.oci-seccomp-tsync.plan" 1
}

# The filters in the init's arguments count against what execve takes (issue 15: oversized
# arguments). A config that runs under runc alone but would not with the filters added is refused
# by inject with its own line, rather than failing later in the runtime's execve with E2BIG; one
# that still fits runs, which shows the limit inject computes is the kernel's.
testInjectRefusesACommandLineExecveWouldNotTake() {
        local id big
        ROOTFS_TOO=1 bundle "$W/b" sh -c 'echo ran >/tmp/marker'
        # RLIMIT_STACK 1 MiB: execve takes 256 KiB. Four 62 KiB variables leave about 8 KiB, less
        # than Podman's whole profile needs in base64 (about 15 KiB), more than a small layer does.
        big=$(head -c 63488 /dev/zero | tr '\0' x)
        tsync_json_edit "$W/b/config.json" '.process.rlimits = [{type: "RLIMIT_STACK", soft: 1048576, hard: 1048576}]
                | .process.env += [range(4) as $i | "BIG\($i)=\($big)"]' --arg big "$big" || fail "edit"
        cp "$W/b/config.json" "$W/before.json"
        id=$(tsync_unique_id fc-e2big)
        run_runc "$id" "$W/b" >"$W/out" 2>"$W/err"
        last_rc=$?
        assertEquals "runc alone: $(cat "$W/err")" 0 "$last_rc"
        assertEquals "runc alone" ran "$(cat "$W/b/rootfs/tmp/marker" 2>/dev/null)"
        rm -f "$W/b/rootfs/tmp/marker"

        timeout -s KILL 30 "$OCI" inject --cache-dir "$W/cache" --profile /usr/share/containers/seccomp.json \
                "$W/b" >"$W/out" 2>"$W/err"
        rc=$?
        assert_refused "oci-seccomp-tsync: " "more than execve takes (262144 bytes, from RLIMIT_STACK in process.rlimits)" 1
        assertTrue "config.json changed" "cmp -s $W/before.json $W/b/config.json"

        timeout -s KILL 30 "$OCI" inject --cache-dir "$W/cache" --profile "$GOOD" "$W/b" >"$W/out" 2>"$W/err"
        last_rc=$?
        assertEquals "inject of a small layer: $(cat "$W/err")" 0 "$last_rc"
        run_runc "$id" "$W/b" >"$W/out" 2>"$W/err"
        last_rc=$?
        assertEquals "runc with the small layer: $(cat "$W/err")" 0 "$last_rc"
        assertEquals "runc with the small layer" ran "$(cat "$W/b/rootfs/tmp/marker" 2>/dev/null)"
}

# ---------------------------------------------------------------------------------------------
# seccomp-tsync-init, called directly as PID 1 of a new pid namespace

init_run() { # init_run ARGS...: status in $rc; the workload would touch $W/marker
        timeout -s KILL 30 unshare --pid --fork --kill-child --mount-proc "$INIT" "$@" >"$W/out" 2>"$W/err"
        rc=$?
}

# N NAME STATUS CAUSE SETUP ARGS: the init refuses with STATUS before running `touch $W/marker`.
N() {
        row "Init$1" "$4; init_run $5 -- touch \"\$W/marker\";" \
                "assert_refused 'seccomp-tsync-init: ' $(qq "$3") $2;" \
                "assertFalse 'the workload ran' \"[ -e \$W/marker ]\""
}
N UnknownOption 121 "command line: unknown option '--sometimes'" ':' '--sometimes -f "$SUITE/good.bpf"'
N TooManyFilters 121 "" ':' "$(printf -- '-f "$SUITE/good.bpf" %.0s' $(seq 17))"
N BadCapabilityName 121 "CAP_TELEKINESIS" ':' '-f "$SUITE/good.bpf" --bounding CAP_KILL,CAP_TELEKINESIS'
N FilterMissing 122 "\$W/none.bpf: cannot read the filter file: No such file or directory" ':' '-f "$W/none.bpf"'
N FilterEmpty 122 "\$W/f.bpf: bad filter file" ': >"$W/f.bpf"' '-f "$W/f.bpf"'
N FilterGarbage 122 "\$W/f.bpf: bad filter file: bad magic" 'head -c 4096 /dev/urandom >"$W/f.bpf"' '-f "$SUITE/good.bpf" -f "$W/f.bpf"'
N FilterTruncated 122 "\$W/f.bpf: bad filter file" 'head -c -8 "$SUITE/good.bpf" >"$W/f.bpf"' '-f "$W/f.bpf"'
N FilterChecksum 122 "\$W/f.bpf: bad filter file: checksum mismatch" 'cp "$SUITE/good.bpf" "$W/f.bpf"; printf "\\x28" | dd of="$W/f.bpf" bs=1 seek=32 conv=notrunc 2>/dev/null; ! cmp -s "$W/f.bpf" "$SUITE/good.bpf" || fail "unchanged"' '-f "$W/f.bpf"'
N FilterHuge 122 "\$W/f.bpf: bad filter file: larger than" 'head -c 40000 /dev/zero >"$W/f.bpf"' '-f "$W/f.bpf"'
N FilterSymlink 122 "\$W/f.bpf: refused: a symbolic link in its path" 'ln -s "$SUITE/allow.bpf" "$W/f.bpf"' '-f "$W/f.bpf"'
N FilterInSymlinkedDir 122 "d/good.bpf: refused: a symbolic link in its path" 'ln -s "$SUITE" "$W/d"' '-f "$W/d/good.bpf"'
N FilterDotDot 122 "cannot read the filter file: the path has a '..' component" ':' '-f "$W/../$(basename "$W")/../none.bpf"'
N FilterDirectory 122 "\$W: not a regular file" ':' '-f "$W"'
N FilterDevZero 122 "/dev/zero: not a regular file" ':' '-f /dev/zero'
N FilterFifo 122 "\$W/f.bpf: not a regular file" 'mkfifo "$W/f.bpf"' '-f "$W/f.bpf"'
# Privilege parity (issue 11, init): the init takes exactly the names runc honours (the host
# leaves every other spelling out, so one reaching the init did not come through us), and a thread
# it cannot bring to the workload's capabilities is named, whether the proof comes after the load
# (capabilities changed after it, no NO_NEW_PRIVS) or before it (--no-new-privs).
N CapNameLowerCase 121 "--bounding: 'sys_admin' is not a capability" ':' '-f "$SUITE/good.bpf" --bounding sys_admin'
N CapNameLibcapSpelling 121 "--effective: 'cap_sys_admin' is not a capability" ':' '-f "$SUITE/good.bpf" --effective cap_sys_admin'
N CapNameMixedCase 121 "--permitted: 'Sys_Admin' is not a capability" ':' '-f "$SUITE/good.bpf" --permitted Sys_Admin'
N CapNameWithASpace 121 "--ambient: 'CAP_SYS_ADMIN ' is not a capability" ':' '-f "$SUITE/good.bpf" --ambient "CAP_KILL,CAP_SYS_ADMIN "'
N CapNameNumber 121 "--inheritable: '21' is not a capability" ':' '-f "$SUITE/good.bpf" --inheritable 21'
N CapNameEmptyEntry 121 "--bounding: '' is not a capability" ':' '-f "$SUITE/good.bpf" --bounding CAP_KILL,,CAP_CHOWN'
# Issue 17: a thread of the init killed before the workload runs ends the whole init; filters that
# deny what every way of starting the workload needs are refused before anything is applied.
N MainThreadKilledBeforeTheWorkload 124 "init: the main thread" ':' '-f "$SUITE/kill-read.bpf"'
N FiltersDenyWhatEveryRouteNeeds 126 "touch: cannot be started: the filters answer execve with ERRNO(1)" ':' '-f "$SUITE/deny-execve.bpf"'
stray_row() { # stray_row NAME INIT-OPTIONS: a thread the init does not know of keeps every capability
        row "Init$1" "timeout -s KILL 30 unshare --pid --fork --kill-child --mount-proc \"\$TSYNC_TOOLS/init_harness\" --stray -- $2 -- touch \"\$W/marker\" >\"\$W/out\" 2>\"\$W/err\"; rc=\$?;" \
                "assert_refused 'seccomp-tsync-init: capabilities: thread ' '(stray) shows CapBnd ' 123;" \
                "grep -q '; the workload gets 0000000000000020\$' \"\$W/err\" || fail \"\$(cat \"\$W/err\")\";" \
                "assertFalse 'the workload ran' \"[ -e \$W/marker ]\""
}
stray_row AThreadWithOtherCapabilitiesIsNamedAfterTheLoad '-f "$SUITE/good.bpf" --bounding CAP_KILL'
stray_row AThreadWithOtherCapabilitiesIsNamedBeforeTheLoad '--no-new-privs -f "$SUITE/good.bpf" --bounding CAP_KILL'
# issue 15: --filter-data. A filter in the init's arguments (base64 of the filter file) gets every
# check a file gets, and is named by its place among all filters, never by its data.
N DataWrappedLines 122 "filter 2 (--filter-data): not base64: byte 76 (0x0a)" ':' '-f "$SUITE/good.bpf" --filter-data "$(base64 -w76 "$SUITE/good.bpf")"'
N DataUrlSafeAlphabet 122 "filter 1 (--filter-data): not base64: byte 0 (0x2d)" ':' '--filter-data "-$(base64 -w0 "$SUITE/good.bpf" | cut -c 2-)"'
N DataLength 122 "filter 1 (--filter-data): not base64: its length" ':' '--filter-data "$(base64 -w0 "$SUITE/good.bpf" | cut -c 2-)"'
N DataEmpty 122 "filter 1 (--filter-data): bad filter file: truncated" ':' '--filter-data ""'
N DataTruncated 122 "filter 2 (--filter-data): bad filter file" ':' '-f "$SUITE/good.bpf" --filter-data "$(head -c -8 "$SUITE/good.bpf" | base64 -w0)"'
N DataHeaderOnly 122 "filter 1 (--filter-data): bad filter file: truncated" ':' '--filter-data "$(head -c 24 "$SUITE/good.bpf" | base64 -w0)"'
N DataChecksum 122 "filter 1 (--filter-data): bad filter file: checksum mismatch" 'cp "$SUITE/good.bpf" "$W/f.bpf"; printf "\\x28" | dd of="$W/f.bpf" bs=1 seek=32 conv=notrunc 2>/dev/null; ! cmp -s "$W/f.bpf" "$SUITE/good.bpf" || fail "unchanged"' '--filter-data "$(base64 -w0 "$W/f.bpf")"'
N DataHuge 122 "filter 1 (--filter-data): bad filter file: larger than 36896 bytes" ':' '--filter-data "$(head -c 40000 /dev/zero | base64 -w0)"'
N DataAfterABadFile 122 "\$W/none.bpf: cannot read the filter file" ':' '--filter-data "$(base64 -w0 "$SUITE/good.bpf")" -f "$W/none.bpf"'
N DataTooManyFilters 121 "more than 16 filters" ':' "$(printf -- '-f "$SUITE/good.bpf" %.0s' $(seq 16)) --filter-data \"\$(base64 -w0 \"\$SUITE/good.bpf\")\""
# Exec once (issue 12): a forged or inconsistent listener, and the option without its filter (or
# the reverse), stop the init before anything is loaded. exec_once_file LISTENER RET FILE: a filter
# file with header listener LISTENER whose program returns RET for execve and allows the rest.
# The host's root holds CAP_SYS_PTRACE, which the init refuses beside --exec-once: rows that must
# get past the capability plan give the workload none.
NO_PTRACE='--bounding none --permitted none --effective none'
exec_once_file() {
        python3 "$TSYNC_TOP/tests/tools/filter_file.py" --listener "$1" "$3" \
                0x20,0,0,0 0x15,0,1,59 0x06,0,0,"$2" 0x06,0,0,0x7fff0000
}
N ExecOnceForgedListener 122 "\$W/f.bpf: bad filter file: unknown listener" 'exec_once_file 4 0x7fc00000 "$W/f.bpf"' '--exec-once 1 -f "$W/f.bpf"'
N ExecOnceListenerWithoutUserNotif 122 "\$W/f.bpf: bad filter file: a listener, but no USER_NOTIF return" 'exec_once_file 1 0x00050001 "$W/f.bpf"' '--exec-once 1 -f "$W/f.bpf"'
N UserNotifWithoutListener 122 "\$W/f.bpf: instruction 2 returns SECCOMP_RET_USER_NOTIF, but the filter has no listener" 'exec_once_file 0 0x7fc00000 "$W/f.bpf"' '-f "$W/f.bpf"'
N ExecOnceWithExec 121 "command line: --exec-once cannot be combined with --exec: the init must stay to answer the workload's execs" 'exec_once_file 1 0x7fc00000 "$W/f.bpf"' '--exec --exec-once 1 -f "$W/f.bpf"'
N ExecOnceTwice 121 "command line: --exec-once is given twice" 'exec_once_file 1 0x7fc00000 "$W/f.bpf"' '--exec-once 1 --exec-once 13 -f "$W/f.bpf"'
N VerifyTwice 121 "command line: --verify is given twice" ':' '--verify proc --verify probe -f "$SUITE/good.bpf"'
N ExecOnceTwoListenerFilters 122 "\$W/g.bpf: a second filter with a listener (the first is \$W/f.bpf): the kernel allows one listener" 'exec_once_file 1 0x7fc00000 "$W/f.bpf"; cp "$W/f.bpf" "$W/g.bpf"' '--exec-once 1 -f "$W/f.bpf" -f "$W/g.bpf"'
N ExecOnceWithoutItsFilter 122 "exec-once: --exec-once is given, but no filter has the exec-once listener" ':' '--exec-once 1 -f "$SUITE/good.bpf"'
N ExecOnceFilterWithoutTheOption 122 "\$W/f.bpf: the filter has the exec-once listener, but --exec-once is not given" 'exec_once_file 1 0x7fc00000 "$W/f.bpf"' '-f "$W/f.bpf"'
N ExecOnceErrnoByName 121 "command line: --exec-once 'EPERM' is not an errno number (1 to 4095)" ':' '--exec-once EPERM -f "$SUITE/good.bpf"'
# A filter that denies the supervisor's ioctl on any fd but 0 passes the simulation (which cannot
# know the listener's fd) and then stops the supervisor: it says so, the workload is killed.
N ExecOnceSupervisorDenied 1 "exec-once: the supervisor cannot receive a notification (ioctl SECCOMP_IOCTL_NOTIF_RECV): Operation not permitted: the workload is killed" \
        'exec_once_file 1 0x7fc00000 "$W/f.bpf"; python3 "$TSYNC_TOP/tests/tools/filter_file.py" "$W/ioctl.bpf" 0x20,0,0,0 0x15,0,3,16 0x20,0,0,16 0x15,1,0,0 0x06,0,0,0x00050001 0x06,0,0,0x7fff0000' \
        '--exec-once 1 $NO_PTRACE -f "$W/ioctl.bpf" -f "$W/f.bpf"'
# issue 12: notify (the init's half; issue 23: through createRuntime's relay). An agent filter's
# trailer is checked like the rest of the file; the relay must be there, or the workload never runs
# (test_notify.sh has the relay's refusals, with a stand-in relay); the init's own calls after the
# load must not go to the agent (it would wait for itself); --relay comes with the filter or not at
# all. agent_file FILE SOCKET: getppid to the agent (trailer SOCKET), the rest allowed.
agent_file() {
        python3 "$TSYNC_TOP/tests/tools/filter_file.py" --agent "$2" m "$1" \
                0x20,0,0,0 0x15,0,1,110 0x06,0,0,0x7fc00000 0x06,0,0,0x7fff0000
}
N AgentForgedTrailer 122 "\$W/f.bpf: bad filter file: trailer: the agent's path is not absolute" 'python3 "$TSYNC_TOP/tests/tools/filter_file.py" --listener 2 --trailer 72756e2f612e736f636b006d00000000 "$W/f.bpf" 0x20,0,0,0 0x15,0,1,110 0x06,0,0,0x7fc00000 0x06,0,0,0x7fff0000' '-f "$W/f.bpf"'
N AgentTrailerOnAnotherListener 122 "\$W/f.bpf: bad filter file: a trailer, but not an agent's listener" 'python3 "$TSYNC_TOP/tests/tools/filter_file.py" --listener 1 --trailer 2f612e736f636b006d00000000000000 "$W/f.bpf" 0x20,0,0,0 0x15,0,1,59 0x06,0,0,0x7fc00000 0x06,0,0,0x7fff0000' '--exec-once 1 -f "$W/f.bpf"'
N AgentRelayAbsent 126 "\$W/none.sock: cannot reach the relay of the createRuntime hook, which hands the seccomp agent (listenerPath) its listener: No such file or directory; the workload is not started" 'agent_file "$W/f.bpf" /r' '-f "$W/f.bpf" --relay "$W/none.sock"'
N AgentWithoutRelay 122 "\$W/f.bpf: the filter has an agent's listener (listenerPath), but --relay is not given" 'agent_file "$W/f.bpf" /r' '-f "$W/f.bpf"'
N RelayWithoutAgent 122 "agent: --relay is given, but no filter needs it (an agent's listener, or a recording without --record)" ':' '-f "$SUITE/good.bpf" --relay "$W/r.sock"'
# --relay beside --exec-once is refused on the command line (issue 36: the table's conflict, which
# the host checks before writing); the two listeners' files alone are refused as they are read.
N AgentBesideExecOnce 122 "\$W/f.bpf: a second filter with a listener (the first is \$W/e.bpf): the kernel allows one listener among a process's filters" 'exec_once_file 1 0x7fc00000 "$W/e.bpf"; agent_file "$W/f.bpf" /r' '--exec-once 1 -f "$W/e.bpf" -f "$W/f.bpf"'
N ExecOnceWithRelay 121 "command line: --exec-once cannot be combined with --relay: the kernel allows one listener among a process's filters" 'exec_once_file 1 0x7fc00000 "$W/e.bpf"; agent_file "$W/f.bpf" /r' '--exec-once 1 -f "$W/e.bpf" -f "$W/f.bpf" --relay "$W/r.sock"'
# The hand-over's two calls run before the agent holds the listener (every later one it answers).
N AgentNotifyOnSendmsg 126 "touch: cannot be started: the filters answer sendmsg with USER_NOTIF, and the init needs it to send the relay the seccomp agent's listener" \
        'python3 "$TSYNC_TOP/tests/tools/filter_file.py" --agent /r m "$W/f.bpf" 0x20,0,0,0 0x15,0,1,46 0x06,0,0,0x7fc00000 0x06,0,0,0x7fff0000' '-f "$W/f.bpf" --relay "$W/r.sock"'
N AgentNotifyOnCloseRange 126 "touch: cannot be started: the filters answer close_range with USER_NOTIF, and the init needs it to close its copy of the agent's listener" \
        'python3 "$TSYNC_TOP/tests/tools/filter_file.py" --agent /r m "$W/f.bpf" 0x20,0,0,0 0x15,0,1,436 0x06,0,0,0x7fc00000 0x06,0,0,0x7fff0000' '-f "$W/f.bpf" --relay "$W/r.sock"'
# The probe cannot ask the supervisor thread: --verify probe is refused on the command line (issue
# 36), where the host's writer sees it too; a kernel without the counts stays flow.c's (125).
N ExecOnceProbeProof 121 "command line: --exec-once cannot be combined with --verify probe: the supervisor thread can be proven only by /proc's Seccomp_filters counts, not by the probe" 'exec_once_file 1 0x7fc00000 "$W/f.bpf"' '--verify probe --exec-once 1 $NO_PTRACE -f "$SUITE/good.bpf" -f "$W/f.bpf"'
# issue 23: the init refuses CAP_SYS_PTRACE in any set the workload would start with, given or
# kept from the runtime (here: the host's root, whose bounding set has it). The rows above that
# get past the capability plan run with $NO_PTRACE.
N ExecOnceWithSysPtraceKept 123 "--exec-once: the workload would hold CAP_SYS_PTRACE in its bounding set (the init's own: no --bounding is given), with which it could open the exec-once supervisor's /proc/1/task/N/mem" 'exec_once_file 1 0x7fc00000 "$W/f.bpf"' '--exec-once 1 -f "$W/f.bpf"'
N ExecOnceWithSysPtraceGiven 123 "--exec-once: the workload would hold CAP_SYS_PTRACE in its ambient set, with which" 'exec_once_file 1 0x7fc00000 "$W/f.bpf"' '--exec-once 1 $NO_PTRACE --ambient CAP_SYS_PTRACE -f "$W/f.bpf"'
# issue 13: recording (the init). --record and the recording filter (listener 3) come together,
# the filter last and alone with a listener; nothing it could hide from a tracer; the file is a
# regular file reached without a symlink; the route must let the recorder work. record_file FILE:
# every call to the listener, as the host writes it.
record_file() {
        python3 "$TSYNC_TOP/tests/tools/filter_file.py" --listener 3 "$1" 0x06,0,0,0x7fc00000
}
N RecordWithExec 121 "command line: --record cannot be combined with --exec: the init must stay" 'record_file "$W/r.bpf"' '--exec -f "$W/r.bpf" --record "$W/calls"'
N RecordWithExecOnce 121 "command line: --record cannot be combined with --exec-once: the kernel allows one listener" 'record_file "$W/r.bpf"' '--exec-once 1 -f "$W/r.bpf" --record "$W/calls"'
N RecordWithVerifyProbe 121 "command line: --record cannot be combined with --verify probe" 'record_file "$W/r.bpf"' '--verify probe -f "$W/r.bpf" --record "$W/calls"'
N RecordTwice 121 "command line: --record is given twice" 'record_file "$W/r.bpf"' '-f "$W/r.bpf" --record "$W/calls" --record "$W/calls2"'
N RecordEmptyPath 121 "command line: --record needs a file name" 'record_file "$W/r.bpf"' '-f "$W/r.bpf" --record ""'
N RecordWithoutItsFilter 122 "record: --record is given, but no filter is a recording filter" ':' '-f "$SUITE/good.bpf" --record "$W/calls"'
N RecordFilterWithoutTheOption 122 "\$W/r.bpf: a recording filter, but --record is not given: nobody would answer its notifications" 'record_file "$W/r.bpf"' '-f "$SUITE/good.bpf" -f "$W/r.bpf"'
N RecordTwoRecordingFilters 122 "\$W/s.bpf: a second filter with a listener (the first is \$W/r.bpf)" 'record_file "$W/r.bpf"; cp "$W/r.bpf" "$W/s.bpf"' '-f "$W/r.bpf" -f "$W/s.bpf" --record "$W/calls"'
N RecordBesideAnAgent 122 "\$W/r.bpf: a second filter with a listener (the first is \$W/f.bpf)" 'record_file "$W/r.bpf"; agent_file "$W/f.bpf" /r' '-f "$W/f.bpf" -f "$W/r.bpf" --record "$W/calls"'
N RecordWithRelay 121 "command line: --record cannot be combined with --relay: the recording's file is either named or the relay's" 'record_file "$W/r.bpf"' '-f "$W/r.bpf" --relay "$W/r.sock" --record "$W/calls"'
N RecordRelayAbsent 126 "\$W/none.sock: cannot reach the relay of the createRuntime hook, which hands the recording its file: No such file or directory; the workload is not started" 'record_file "$W/r.bpf"' '-f "$W/r.bpf" --relay "$W/none.sock"'
N RecordFilterNotLast 122 "\$W/r.bpf: the recording filter must be the last filter" 'record_file "$W/r.bpf"' '-f "$W/r.bpf" -f "$SUITE/good.bpf" --record "$W/calls"'
N RecordBesideTrace 122 "\$W/t.bpf: instruction 2 returns SECCOMP_RET_TRACE, which cannot be recorded" 'record_file "$W/r.bpf"; python3 "$TSYNC_TOP/tests/tools/filter_file.py" "$W/t.bpf" 0x20,0,0,0 0x15,0,1,110 0x06,0,0,0x7ff00000 0x06,0,0,0x7fff0000' '-f "$W/t.bpf" -f "$W/r.bpf" --record "$W/calls"'
N RecordFileFifo 126 "\$W/calls: cannot record into it: not a regular file" 'record_file "$W/r.bpf"; mkfifo "$W/calls"' '-f "$W/r.bpf" --record "$W/calls"'
N RecordFileDevice 126 "/dev/null: cannot record into it: not a regular file" 'record_file "$W/r.bpf"' '-f "$W/r.bpf" --record /dev/null'
N RecordFileDirectory 126 "\$W/calls: cannot open the record file: Is a directory" 'record_file "$W/r.bpf"; mkdir "$W/calls"' '-f "$W/r.bpf" --record "$W/calls"'
N RecordFileSymlink 126 "\$W/calls: cannot open the record file: a symbolic link in its path" 'record_file "$W/r.bpf"; ln -s "$W/real" "$W/calls"' '-f "$W/r.bpf" --record "$W/calls"'
N RecordFileSymlinkedDirectory 126 "\$W/d/calls: cannot open the record file: a symbolic link in its path" 'record_file "$W/r.bpf"; mkdir "$W/real"; ln -s "$W/real" "$W/d"' '-f "$W/r.bpf" --record "$W/d/calls"'
N RecordFileNoDirectory 126 "\$W/none/calls: cannot open the record file: No such file or directory" 'record_file "$W/r.bpf"' '-f "$W/r.bpf" --record "$W/none/calls"'
N RecordRouteDeniesTheRecorder 126 "touch: cannot be started: the filters answer pwrite64 with ERRNO(1), and the init needs it to append to the record file" 'record_file "$W/r.bpf"; python3 "$TSYNC_TOP/tests/tools/filter_file.py" "$W/p.bpf" 0x20,0,0,0 0x15,0,1,18 0x06,0,0,0x00050001 0x06,0,0,0x7fff0000' '-f "$W/p.bpf" -f "$W/r.bpf" --record "$W/calls"'

testInitNoCommand() {
        init_run -f "$SUITE/good.bpf" --
        assert_refused "seccomp-tsync-init: " "" 121
}

# ---------------------------------------------------------------------------------------------
# Under runc: prestart refusing, and the filter files replaced between the hook and the init

# runc_bundle: $W/b with a rootfs, injected with $W/layer.json; hooks at STAGE (createRuntime or prestart).
runc_bundle() {
        ROOTFS_TOO=1 injected
        if [ "${1:-createRuntime}" = prestart ]; then
                tsync_json_edit "$W/b/config.json" \
                        '.hooks = {prestart: (.hooks.createRuntime | map(.args[2] = "prestart")), poststop: .hooks.poststop}'
        fi
}

# runc_run_refused ID CAUSE: runc run of $W/b as ID fails, and our hook's one line (quoted by runc)
# names ID and CAUSE; the workload never ran and nothing of ours is left.
runc_run_refused() {
        local id=$1 cause=$2 err
        run_runc "$id" "$W/b" >"$W/out" 2>"$W/err"
        rc=$?
        err=$(cat "$W/err")
        assertNotEquals "runc run: $err" 0 "$rc"
        assertFalse "the workload ran" "[ -e $W/b/rootfs/tmp/marker ]"
        assertEquals "lines of ours in: $err" 1 "$(grep -o 'oci-seccomp-tsync: ' "$W/err" | wc -l)"
        [[ $err == *"oci-seccomp-tsync: $id: "* ]] || fail "no line naming $id: $err"
        [[ $err == *"$cause"* ]] || fail "no '$cause' in: $err"
        assert_names_its_subject "$(grep 'oci-seccomp-tsync: ' "$W/err")"
        assert_no_filters "$W/b/oci-seccomp-tsync"
        assert_no_temp "$W/b" "$W/cache"
        assertEquals "container left" "" "$(runc list -q | grep -x "$id")"
}

runc_prestart_row() {
        local name=$1 id
        id=$(tsync_unique_id "$name")
        runc_bundle prestart
        make_profile "$W/layer.json" "${PROF_GEN[$name]}"
        runc_run_refused "$id" "${PROF_CAUSE[$name]}"
}

testRuncCreateRuntimeWithAFullStateDir() {
        local id
        id=$(tsync_unique_id full)
        runc_bundle
        full_tmpfs "$W/b/oci-seccomp-tsync" mode=0755
        runc_run_refused "$id" "No space left on device"
}

testRuncPrestartWithAFullCache() {
        local id
        id=$(tsync_unique_id cache)
        runc_bundle prestart
        full_tmpfs "$W/full" mode=0700 # a cache directory must be ours alone
        tsync_json_edit "$W/b/config.json" '.hooks.prestart[0].args |= map(if . == $c then $f else . end)' \
                --arg c "$W/cache" --arg f "$W/full"
        runc_run_refused "$id" "No space left on device"
        assertEquals "left in the cache" "filler" "$(ls -A "$W/full")"
}

# runc_create ID: runc create of $W/b as ID (removed at the test's end if the test does not).
runc_create() {
        _tsync_register runc "$1"
        runc create --bundle "$W/b" "$1" </dev/null >"$W/out" 2>"$W/err" || fail "runc create: $(cat "$W/err")"
}

# runc_start_until_stopped ID: runc start, then until the container stopped (10 s at most); its
# last status in $status.
runc_start_until_stopped() {
        runc start "$1" 2>>"$W/err" || fail "runc start: $(cat "$W/err")"
        for _ in $(seq 200); do
                status=$(runc state "$1" 2>/dev/null | jq -r .status)
                [ "$status" = stopped ] && break
                sleep 0.05
        done
}

# swap_row NAME CAUSE CHANGE: runc create (the hook delivers 00.bpf), CHANGE the file, runc start:
# the init must refuse with one line naming the file and CAUSE, and the workload never runs.
swap_row() {
        local name=$1 cause=$2 change=$3 id f status
        id=$(tsync_unique_id "$name")
        runc_bundle
        runc_create "$id"
        f="$W/b/oci-seccomp-tsync/00.bpf"
        [ -f "$f" ] || fail "the hook delivered no filter"
        eval "$change"
        runc_start_until_stopped "$id"
        assertEquals "the container stopped" stopped "$status"
        assertFalse "the workload ran" "[ -e $W/b/rootfs/tmp/marker ]"
        assertEquals "lines of the init in: $(cat "$W/err")" 1 "$(grep -c '^seccomp-tsync-init: ' "$W/err")"
        grep -qF "seccomp-tsync-init: /.oci-seccomp-tsync/filters/00.bpf: $cause" "$W/err" ||
                fail "no '$cause' for 00.bpf in: $(cat "$W/err")"
        runc delete "$id" >/dev/null 2>&1 || fail "runc delete"
        _tsync_unregister runc "$id"
        assert_no_filters "$W/b/oci-seccomp-tsync"
}

R() { row "RuncFilterReplacedBeforeTheInit$1" "swap_row $(q "$1") $(q "$2") $(q "$3")"; }
R WithGarbage "bad filter file: bad magic" 'rm -f "$f"; head -c 4096 /dev/urandom >"$f"'
R Truncated "bad filter file" 'head -c -8 "$f" >"$W/t" && rm -f "$f" && cp "$W/t" "$f"'
R Emptied "bad filter file" ': >"$f"'
R ByAPermissiveFilter "bad filter file: checksum mismatch" 'python3 -c "import sys; d = bytearray(open(sys.argv[1], \"rb\").read()); d[-4:] = (0x7fff0000).to_bytes(4, \"little\"); open(sys.argv[1], \"wb\").write(d)" "$f"'
R ByASymlink "refused: a symbolic link in its path" 'cp "$SUITE/allow.bpf" "$W/b/oci-seccomp-tsync/allow.bpf"; rm -f "$f"; ln -s allow.bpf "$f"'
R ByADirectory "not a regular file" 'rm -f "$f"; mkdir "$f"'
R ByAFifo "not a regular file" 'rm -f "$f"; mkfifo "$f"'
R Removed "cannot read the filter file: No such file or directory" 'rm -f "$f"'

testRuncFilterDirectorySwappedAfterTheHookKeepsTheDeliveredFilters() {
        # The directory is bind-mounted before the hook runs: a new directory put in its place on
        # the host is not what the container sees, so the workload runs under the delivered layer.
        local id status
        id=$(tsync_unique_id swapdir)
        cp "$GOOD" "$W/layer.json"
        ROOTFS_TOO=1 bundle "$W/b" sh -c 'mkdir /tmp/d 2>/tmp/err; touch /tmp/marker'
        "$OCI" inject --compile-at-start --cache-dir "$W/cache" --profile "$W/layer.json" "$W/b" || fail inject
        runc_create "$id"
        mv "$W/b/oci-seccomp-tsync" "$W/b/old" && mkdir "$W/b/oci-seccomp-tsync" &&
                cp "$SUITE/allow.bpf" "$W/b/oci-seccomp-tsync/00.bpf"
        runc_start_until_stopped "$id"
        assertTrue "the workload did not run: $(cat "$W/err")" "[ -e $W/b/rootfs/tmp/marker ]"
        assertFalse "mkdir was not denied by the delivered layer" "[ -d $W/b/rootfs/tmp/d ]"
        grep -q "Disk quota exceeded" "$W/b/rootfs/tmp/err" || fail "mkdir: $(cat "$W/b/rootfs/tmp/err")"
        runc delete "$id" >/dev/null 2>&1
        _tsync_unregister runc "$id"
}

testRuncDeleteWithAnUnreadableConfigReportsItAndStillDeletes() {
        local id
        id=$(tsync_unique_id garbled)
        runc_bundle
        runc_create "$id"
        echo garbage >"$W/b/config.json"
        runc delete "$id" >"$W/out" 2>"$W/err"
        last_rc=$?
        assertEquals "runc delete: $(cat "$W/err")" 0 "$last_rc"
        assertEquals "lines of ours in: $(cat "$W/err")" 1 "$(grep -o 'oci-seccomp-tsync: ' "$W/err" | wc -l)"
        grep -qF "oci-seccomp-tsync: $id: $W/b/config.json: (root): invalid JSON" "$W/err" || fail "$(cat "$W/err")"
        assertEquals "container left" "" "$(runc list -q | grep -x "$id")"
        _tsync_unregister runc "$id"
        assertFalse "the workload ran" "[ -e $W/b/rootfs/tmp/marker ]"
}

testRuncDeleteWorksWhenTheBundleIsGoneBeforePoststop() {
        local id
        id=$(tsync_unique_id gone)
        runc_bundle
        runc_create "$id"
        mv "$W/b/config.json" "$W/b/config.json.moved"
        runc delete --force "$id" >"$W/out" 2>"$W/err"
        last_rc=$?
        assertEquals "runc delete: $(cat "$W/err")" 0 "$last_rc"
        assertEquals "poststop said something: $(cat "$W/err")" "" "$(grep 'oci-seccomp-tsync' "$W/err")"
        assertEquals "container left" "" "$(runc list -q | grep -x "$id")"
        _tsync_unregister runc "$id"
        assertFalse "the workload ran" "[ -e $W/b/rootfs/tmp/marker ]"
}

# ---------------------------------------------------------------------------------------------
# oci-seccomp-tsync-runtime (the runc-compatible runtime of issue 14; its own block)
#
# RT NAME CAUSE SETUP: SETUP (shell text, run in the row) may edit $W/b (a runc bundle running
# `touch /tmp/marker`), $W/profiles and $W/runtime.conf, and add to RT_ARGS (our options, before
# the command word) and RT_RUN (run's own options). `oci-seccomp-tsync-runtime RT_ARGS run RT_RUN
# -b $W/b ID` must refuse with one line naming CAUSE, leave config.json byte for byte, and leave
# no container and no workload.
# cause_row TABLE NAME CAUSE SETUP: a row of the RT and RX tables: NAME appended to TABLE_NAMES,
# CAUSE and SETUP kept in TABLE_CAUSE[NAME] and TABLE_SETUP[NAME].
cause_row() {
        local -n names=$1_NAMES causes=$1_CAUSE setups=$1_SETUP
        names+=("$2")
        causes[$2]=$3
        setups[$2]=$4
}
RUNTIME="$TSYNC_BUILD/bin/oci-seccomp-tsync-runtime"
RT_NAMES=()
declare -A RT_CAUSE RT_SETUP
RT() { cause_row RT "$@"; }
annotate() { # annotate KEY VALUE: an annotation in $W/b/config.json
        tsync_json_edit "$W/b/config.json" '.annotations[$k] = $v' --arg k "$1" --arg v "$2"
}
RT MissingLayer "layer 'nope': no such profile in" 'RT_ARGS+=(--layers=nope)'
RT BrokenLayer "invalid JSON at byte 1" 'echo "not json" >"$W/profiles/broken.json"; RT_ARGS+=(--layers=broken)'
RT LayerNameIsAPath "runtime option layers: '../profiles/x' is not a profile name" 'RT_ARGS+=(--layers=../profiles/x)'
RT AnnotationLayerIsAPath "'/etc/passwd' is not a profile name" 'annotate io.oci-seccomp-tsync.layers /etc/passwd'
RT AnnotationLayerMissing "layer 'nope': no such profile in" 'annotate io.oci-seccomp-tsync.layers nope'
RT TooManyLayers "at most 16" 'RT_ARGS+=(--layers=$(printf "l%d," $(seq 17)))'
RT TooManyLayersTogether "at most 16" 'RT_ARGS+=(--layers=$(printf "l%d," $(seq 9)))
        annotate io.oci-seccomp-tsync.layers "$(printf "a%d," $(seq 9))"'
RT BadMode "runtime option mode: 'sometimes' is not layer or replace" 'RT_ARGS+=(--mode=sometimes)'
RT BadModeAnnotation "'sometimes' is not layer or replace" 'annotate io.oci-seccomp-tsync.mode sometimes'
# exec alone asks for us (issue 24: it was passed to runc unread).
RT BadExecAnnotationAlone "annotations.io.oci-seccomp-tsync.exec: 'twice' is not once or once:ERRNO" 'annotate io.oci-seccomp-tsync.exec twice'
RT MisspeltAnnotation "annotations.io.oci-seccomp-tsync.layer: not an annotation of oci-seccomp-tsync" 'annotate io.oci-seccomp-tsync.layer good'
RT ModeConflict "but this runtime is set to mode 'layer'" 'RT_ARGS+=(--mode=layer)
        annotate io.oci-seccomp-tsync.mode replace'
RT ForgedPlan "io.oci-seccomp-tsync.plan" 'annotate io.oci-seccomp-tsync.plan "{}"'
RT ForgedRunning "io.oci-seccomp-tsync.running" 'annotate io.oci-seccomp-tsync.running someone'
RT ConfigIsASymlink "config.json: not a regular file" 'mv "$W/b/config.json" "$W/real.json"
        ln -s "$W/real.json" "$W/b/config.json"; RT_ARGS+=(--layers=good)'
RT ConfigNotJson "invalid JSON" 'echo "{" >"$W/b/config.json"; RT_ARGS+=(--layers=good)'
RT CrunConfigOption "crun's --config other.json: not supported" 'cp "$W/b/config.json" "$W/b/other.json"
        RT_ARGS+=(--layers=good); RT_RUN+=(--config other.json)'
RT RealRuntimeMissing "the real runtime '/nonexistent/runc': not found" 'RT_ARGS+=(--runtime=/nonexistent/runc)'
RT RealRuntimeIsItself "is this program" 'RT_ARGS+=(--runtime="$RUNTIME")'
RT ConfUnknownKey "line 2: 'layer' is not a setting" 'printf "# x\nlayer = good\n" >"$W/runtime.conf"'
RT ConfNoEquals "line 1: expected 'key = value'" 'echo "layers good" >"$W/runtime.conf"'
RT ConfWritableByGroup "must belong to root and be writable by root alone" 'chmod 0664 "$W/runtime.conf"'
RT ConfMissing "runtime.conf.missing: No such file or directory" 'RT_ARGS=("${RT_ARGS[@]/runtime.conf/runtime.conf.missing}")'
RT UnparseableConfigNamingUs "duplicate key 'ociVersion'" 'annotate io.oci-seccomp-tsync.layers good
        sed -i "1s/^{/{\"ociVersion\": \"1.0.2\",/" "$W/b/config.json"'
RT UnknownGlobalOption "'--foo' is not a global option of runc 1.1 or crun 1.8" 'RT_ARGS+=(--foo)'
RT OurOptionWithoutValue "--layers needs a value: --layers=VALUE" 'RT_ARGS+=(--layers)'

# issue 25: the runtime that creates a container is recorded for its teardown; no record, no create.
RT RecordNotWritable "recording which runtime created it: /run/oci-seccomp-tsync/runtime/" 'mkdir -p "$W/root"
        RT_ARGS+=(--root "$W/root") && mkdir -p -m 0777 "/run/oci-seccomp-tsync/runtime/$(fnv1a "$W/root")"
        chmod 0777 "/run/oci-seccomp-tsync/runtime/$(fnv1a "$W/root")"
        : >"/run/oci-seccomp-tsync/runtime/$(fnv1a "$W/root")/not-a-record"; annotate io.oci-seccomp-tsync.layers good'

runtime_row() {
        local name=$1 id before
        id=$(tsync_unique_id fc-rt)
        ROOTFS_TOO=1 bundle "$W/b"
        cp "$GOOD" "$W/profiles/good.json"
        : >"$W/runtime.conf"
        RT_ARGS=(--runtime-config="$W/runtime.conf" --profile-dir="$W/profiles" --cache-dir="$W/cache")
        RT_RUN=()
        eval "${RT_SETUP[$name]}"
        before=$(snap "$W/b/config.json")
        _tsync_register runc "$id"
        timeout -s KILL 30 "$RUNTIME" "${RT_ARGS[@]}" run "${RT_RUN[@]}" -b "$W/b" "$id" </dev/null >"$W/out" 2>"$W/err"
        rc=$?
        assert_refused "oci-seccomp-tsync: " "${RT_CAUSE[$name]}"
        assertEquals "config.json" "$before" "$(snap "$W/b/config.json")"
        assertFalse "a container was created" "runc state $id >/dev/null 2>&1"
        assertFalse "the workload ran" "[ -e $W/b/rootfs/tmp/marker ]"
        assert_no_temp "$W/b" "$W/cache"
}

# exec through oci-seccomp-tsync-runtime (issue 23): a container of ours (runc, `--layers=good`,
# sleeping) gets `oci-seccomp-tsync-runtime exec EX_ARGS ID EX_CMD` after SETUP, which may edit $W/p.json
# (a process file running `touch /tmp/marker`), $W/b/config.json (as the wrapper wrote it), EX_ARGS
# (exec's options, default --process $W/p.json) and EX_CMD. Refused with one line naming CAUSE, and
# nothing runs in the container.
RX_NAMES=()
declare -A RX_CAUSE RX_SETUP
RX() { cause_row RX "$@"; }
RX WithoutProcess "exec without --process: the container runs under our layers" 'EX_ARGS=(); EX_CMD=(/bin/touch /tmp/marker)'
RX CapBesideProcess "exec --process with '--cap'" 'EX_ARGS+=(--cap CAP_SYS_ADMIN)'
RX EnvBesideProcess "exec --process with '-e'" 'EX_ARGS=(-e A=1 "${EX_ARGS[@]}")'
RX ProcessNotJson "p.json: (root): invalid JSON" 'echo "{" >"$W/p.json"'
RX ProcessArgsEmpty "the exec'd process: process.args: empty" 'tsync_json_edit "$W/p.json" ".args = []"'
RX ProcessCapsNotObject "the exec'd process: process.capabilities: expected object" \
        'tsync_json_edit "$W/p.json" ".capabilities = [\"CAP_KILL\"]"'
RX ConfigWritableByGroup "config.json: owned by uid 0 with mode 0664: only a file of uid 0" 'chmod 0664 "$W/b/config.json"'
RX BundleWritableByOthers "/b: owned by uid 0 with mode 0777" 'chmod 0777 "$W/b"'
RX ConfigOwnedBySomeoneElse "config.json: owned by uid 1000" 'chown 1000 "$W/b/config.json"'
RX ConfigEditedAfterCreate "the container's config: process.args[" \
        'tsync_json_edit "$W/b/config.json" ".process.args += [\"extra\"]"'
RX ConfigGone "runs under our init: /tmp/tsync-it." \
        'rm "$W/b/config.json"'
RX UnknownContainer "cannot tell whether the container runs under our init: \`$(command -v runc) state" 'EX_ID=nosuch-$$'

runtime_exec_row() {
        local name=$1 id
        id=$(tsync_unique_id fc-rx)
        ROOTFS_TOO=1 bundle "$W/b" sleep 300
        cp "$GOOD" "$W/profiles/good.json"
        : >"$W/runtime.conf"
        RT_ARGS=(--runtime-config="$W/runtime.conf" --profile-dir="$W/profiles" --cache-dir="$W/cache")
        _tsync_register runc "$id"
        "$RUNTIME" "${RT_ARGS[@]}" --layers=good run -d -b "$W/b" "$id" </dev/null >"$W/out" 2>&1 ||
                fail "run -d: $(cat "$W/out")"
        jq -n '{args: ["/bin/touch", "/tmp/marker"], cwd: "/", user: {uid: 0, gid: 0}, noNewPrivileges: true}' \
                >"$W/p.json"
        EX_ARGS=(--process "$W/p.json")
        EX_CMD=()
        EX_ID=$id
        eval "${RX_SETUP[$name]}"
        timeout -s KILL 30 "$RUNTIME" "${RT_ARGS[@]}" exec "${EX_ARGS[@]}" "$EX_ID" "${EX_CMD[@]}" </dev/null \
                >"$W/out" 2>"$W/err"
        rc=$?
        assert_refused "oci-seccomp-tsync: $EX_ID: " "${RX_CAUSE[$name]}"
        assertFalse "the process ran" "[ -e $W/b/rootfs/tmp/marker ]"
        _tsync_remove_container runc "$id"
}

testRuntimeRefusalReachesTheJsonLogAsItsLastError() {
        local id
        id=$(tsync_unique_id fc-rt)
        ROOTFS_TOO=1 bundle "$W/b"
        : >"$W/runtime.conf"
        _tsync_register runc "$id"
        "$RUNTIME" --runtime-config="$W/runtime.conf" --profile-dir="$W/profiles" --layers=nope \
                --log "$W/log.json" --log-format json create -b "$W/b" "$id" </dev/null >"$W/out" 2>"$W/err"
        rc=$?
        assert_refused "oci-seccomp-tsync: $id: " "layer 'nope'"
        assertEquals "$(cat "$W/err")" "$(jq -r 'select(.level == "error") | .msg' "$W/log.json" | tail -n 1)"
}

# ---------------------------------------------------------------------------------------------
# issue 12: agent state. A notify agent's state (the host pid, the bundle, the annotations) goes
# from createRuntime into the agent's private tmpfs in the container and nowhere else: inject
# never leaves that hook out, and createRuntime writes only into the very tmpfs the rewrite
# mounted, at the plan's agent. The hook is called directly, with the pid of this shell (a
# process whose root holds no such tmpfs) unless a row mounts one.

NOTIFY_LAYER='{"defaultAction": "SCMP_ACT_ALLOW", "listenerPath": "/run/agent.sock", "syscalls": [{"names": ["mkdir"], "action": "SCMP_ACT_NOTIFY"}]}'
I NotifyWithoutHooks "--no-hooks: a profile has a notify agent (listenerPath), which only the relay our createRuntime hook starts can reach" \
        'tsync_json_edit "$W/b/config.json" ".process.noNewPrivileges = true" && echo "$NOTIFY_LAYER" >"$W/n.json"' \
        '--no-hooks --profile "$W/n.json"'

# agent_injected [INJECT-OPTIONS...]: $W/b injected with the notify layer $W/n.json.
agent_injected() {
        bundle "$W/b"
        echo "$NOTIFY_LAYER" >"$W/n.json"
        "$OCI" inject --cache-dir "$W/cache" "$@" --profile "$W/n.json" "$W/b" >/dev/null || fail "inject"
}
agent_state() { # agent_state ID: the OCI state, with this shell's pid
        jq -cn --arg id "$1" --arg b "$W/b" --argjson pid $$ \
                '{ociVersion: "1.0.2", id: $id, status: "creating", pid: $pid, bundle: $b}'
}
# A NAME CAUSE SETUP [INJECT-OPTIONS]: createRuntime refuses the agent bundle broken by SETUP, and
# leaves no relay's socket anywhere in the root directory.
A() {
        row "HookCreateRuntimeAgent$1" "agent_injected ${4:-}; $3;" \
                "agent_state fc-$1 | hook createRuntime --cache-dir \"\$W/cache\";" \
                "assert_refused $(q "oci-seccomp-tsync: fc-$1: ") $(qq "$2") 1;" \
                "assertEquals 'a socket was left' '' \"\$(find \"\$W/b/rootfs\" -type s)\";" \
                "assert_no_filters \"\$W/b/oci-seccomp-tsync\""
}
A AgentSocketMounted "]: the notify agent's socket '/run/agent.sock' is mounted into the container at '/.oci-seccomp-tsync/agent.sock'" \
        'tsync_json_edit "$W/b/config.json" ".mounts += [{destination: \"/.oci-seccomp-tsync/agent.sock\", type: \"bind\", source: \"/run/agent.sock\", options: [\"bind\"]}]"'
A NoRelayTmpfs "mounts: no /.oci-seccomp-tsync/agent mount for the relay's socket" \
        'tsync_json_edit "$W/b/config.json" "del(.mounts[] | select(.destination == \"/.oci-seccomp-tsync/agent\"))"'
A RelayMountNotATmpfs "/.oci-seccomp-tsync/agent is a 'bind' mount, not the relay's tmpfs" \
        'tsync_json_edit "$W/b/config.json" "(.mounts[] | select(.destination == \"/.oci-seccomp-tsync/agent\") | .type) = \"bind\""'
# issue 23, recordings: createRuntime refuses a config that still mounts a recording directory of the
# host (an older inject's), and a recording directory that is gone or not root's alone, before its
# relay listens: no socket is left.
R() {
        row "HookCreateRuntimeRecord$1" "bundle \"\$W/b\"; \"\$OCI\" inject --cache-dir \"\$W/cache\" --record \"\$W/p.json\" \"\$W/b\" >/dev/null || fail inject; $3;" \
                "agent_state fc-$1 | hook createRuntime --cache-dir \"\$W/cache\";" \
                "assert_refused $(q "oci-seccomp-tsync: fc-$1: ") $(qq "$2") 1;" \
                "assertEquals 'a socket was left' '' \"\$(find \"\$W/b/rootfs\" -type s)\""
}
R HostDirMounted "]: a directory of the host ('\$W/b/oci-seccomp-tsync-record') is mounted into the container for the recording" \
        'tsync_json_edit "$W/b/config.json" ".mounts += [{destination: \"/.oci-seccomp-tsync/record\", type: \"bind\", source: \"$W/b/oci-seccomp-tsync-record\", options: [\"bind\", \"rw\"]}]"'
R DirGone "recording: \$W/b/oci-seccomp-tsync-record: No such file or directory" 'rmdir "$W/b/oci-seccomp-tsync-record"'
R DirOpened "recording: \$W/b/oci-seccomp-tsync-record: owned by 0, mode 0777" 'chmod 0777 "$W/b/oci-seccomp-tsync-record"'
A PlanListenerPathRelative "plan.listenerPath: 'run/agent.sock' is not an absolute path" \
        'tsync_json_edit "$W/b/config.json" ".annotations[\"io.oci-seccomp-tsync.plan\"] |= (fromjson | .listenerPath = \"run/agent.sock\" | tojson)"'
A NoContainer "the relay's directory /.oci-seccomp-tsync/agent in the container (pid $$): No such file or directory" ':'
A SymlinkInTheImage "in the container (pid $$): Too many levels of symbolic links" \
        'mkdir -p "$W/b/rootfs/.oci-seccomp-tsync" && ln -s /dev/shm "$W/b/rootfs/.oci-seccomp-tsync/agent"'
A DirectoryInTheImage "mount, not a tmpfs" 'mkdir -p "$W/b/rootfs/.oci-seccomp-tsync/agent"'
A ProfileLostItsAgent "listenerPath: the profiles now name no agent, the config was written for '/run/agent.sock': inject again" \
        'cp "$GOOD" "$W/n.json"' --compile-at-start
A ProfileNamesAnotherAgent "listenerPath: the profiles now name '/run/other.sock', the config was written for '/run/agent.sock'" \
        'sed -i "s|/run/agent.sock|/run/other.sock|" "$W/n.json"' --compile-at-start
# issue 13: recording (the host). What a recording cannot be combined with is refused before
# anything is written (inject, precreate, the runtime); a bad of: or if: path is refused before
# the workload runs. poststop never follows the plan outside our directories, never blocks on what
# the container left in the recording's directory, and keeps that directory (nothing recorded is
# lost) whenever the profile is not written; an empty or missing record (the init refused the
# start) is said, and overwrites nothing.
TRACE_LAYER='J "{\"names\": [\"getppid\"], \"action\": \"SCMP_ACT_TRACE\"}" >"$W/trace.json"'
I RecordRelativeOutput "--record out.json: not an absolute path" 'local INJECT_STATUS=2' '--record out.json'
I RecordWithExecOnce "recording and exec once" 'local INJECT_STATUS=2' '--record "$W/p.json" --exec-once'
I RecordWithExec "recording and --exec" 'local INJECT_STATUS=2' '--record "$W/p.json" --exec'
I RecordWithoutHooks "--no-hooks and --record: the recording is written by the poststop hook" 'local INJECT_STATUS=2' '--record "$W/p.json" --no-hooks'
I RecordOptionsWithoutRecord "--record-input, --record-format and --record-errno go with --record OUT" 'local INJECT_STATUS=2' '--record-format docker --profile "$GOOD"'
I RecordUnknownFormat "--record-format yaml: not oci or docker" 'local INJECT_STATUS=2' '--record "$W/p.json" --record-format yaml'
I RecordUnknownErrno "--record-errno EACCES: not EPERM or ENOSYS" 'local INJECT_STATUS=2' '--record "$W/p.json" --record-errno EACCES'
I RecordTraceLayer "layer '\$W/trace.json': SCMP_ACT_TRACE and a recording" "$TRACE_LAYER" '--record "$W/p.json" --profile "$W/trace.json"'
I RecordTraceInLinuxSeccomp "linux.seccomp (the runtime's own profile): SCMP_ACT_TRACE and a recording" \
        'tsync_json_edit "$W/b/config.json" ".linux.seccomp = {defaultAction: \"SCMP_ACT_ALLOW\", syscalls: [{names: [\"getppid\"], action: \"SCMP_ACT_TRACE\"}]}"' '--record "$W/p.json"'
I RecordNotifyAgentLayer "SCMP_ACT_NOTIFY (a notify agent's listener) and a recording" \
        'echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/run/a.sock\", \"syscalls\": [{\"names\": [\"getppid\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}" >"$W/n.json"' \
        '--compile-at-start --record "$W/p.json" --profile "$W/n.json"'
I RecordBesideTheRuntimesNotifyProfile "the kernel allows one listener among a process's filters: a recording cannot be added to it" \
        'tsync_json_edit "$W/b/config.json" ".linux.seccomp = {defaultAction: \"SCMP_ACT_ALLOW\", listenerPath: \"/run/agent.sock\", syscalls: [{names: [\"mkdir\"], action: \"SCMP_ACT_NOTIFY\"}]}"' '--record "$W/p.json"'
I RecordLayerDeniesTheRecorder "a recording needs the init to stay beside the workload" \
        'J "{\"names\": [\"wait4\"], \"action\": \"SCMP_ACT_ERRNO\"}" >"$W/deny-wait4.json"' '--record "$W/p.json" --profile "$W/deny-wait4.json"'
I RecordOutputUnderTheRootfs "of: '\$W/b/rootfs/p.json'" ':' '--record "$W/b/rootfs/p.json"'
I RecordOutputThroughASymlink "of: '\$W/link/p.json'" 'mkdir "$W/real" && ln -s real "$W/link"' '--record "$W/link/p.json"'
I RecordInputMissing "if: '\$W/none.json'" ':' '--record "$W/p.json" --record-input "$W/none.json"'
# issue 25: if: is read and judged before anything starts (any profile we parse; not what a
# recorded profile cannot carry).
I RecordInputNotAProfile "if: \$W/in.json: syscalls[0].action: action 'SCMP_ACT_BLOCK' is unknown" \
        'echo "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_BLOCK\"}]}" >"$W/in.json"' \
        '--record "$W/p.json" --record-input "$W/in.json"'
I RecordInputWithTrace "if: \$W/in.json: syscalls[0]: SCMP_ACT_TRACE: a recording cannot hold it" \
        'echo "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_TRACE\"}]}" >"$W/in.json"' \
        '--record "$W/p.json" --record-input "$W/in.json"'
I RecordDirIsASymlink "oci-seccomp-tsync-record: not a directory (a symlink?)" 'mkdir "$W/elsewhere" && ln -s "$W/elsewhere" "$W/b/oci-seccomp-tsync-record"' '--record "$W/p.json"'
# issue 23: the recording's directory is root's alone (0700): one the container's user was given by
# an older inject, or another mode, is refused; and CAP_SYS_PTRACE, the one way to the init's file.
I RecordDirOfAnotherOwner "oci-seccomp-tsync-record: owned by 1000, mode 0700: not a directory of its own that only 0 may enter" 'mkdir -m 0700 "$W/b/oci-seccomp-tsync-record" && chown 1000:1000 "$W/b/oci-seccomp-tsync-record"' '--record "$W/p.json"'
I RecordDirOfAnotherMode "oci-seccomp-tsync-record: owned by 0, mode 0755" 'mkdir -m 0755 "$W/b/oci-seccomp-tsync-record"' '--record "$W/p.json"'
I RecordWithCapSysPtrace "process.capabilities.effective[0]: CAP_SYS_PTRACE and a recording: the record file is the init's alone" 'tsync_json_edit "$W/b/config.json" ".process.capabilities.effective = [\"CAP_SYS_PTRACE\"]"' '--record "$W/p.json"'

# RC NAME CAUSE GENERATOR: precreate refuses the config GENERATOR prints, leaving no recording
# directory under --record-root.
RC() {
        row "HookPrecreateRecord$1" "cp \"\$GOOD\" \"\$W/profiles/good.json\";" \
                "{ $3; } | precreate --record-root \"\$W/rec\"; assert_precreate_refused $(qq "$2");" \
                "assertEquals 'recording directories' '' \"\$(ls -A \"\$W/rec\" 2>/dev/null)\""
}
recorded() { # recorded VALUE [LAYERS]: a runc config asking for a recording
        annotated "${2:-good}" | jq -c --arg v "$1" '.annotations["io.oci-seccomp-tsync.record"] = $v'
}
RC AnnotationRelative "annotations.io.oci-seccomp-tsync.record: '[if:IN;]of:OUT[;format:oci|docker][;errno:EPERM|ENOSYS]': of: 'p.json' is not an absolute path on the host" 'recorded "of:p.json"'
RC AnnotationUnknownKey "'to' is not a key (if, of, format, errno)" 'recorded "to:/tmp/p.json"'
RC AnnotationWithoutOf "no of:OUTPUT" 'recorded "if:/tmp/p.json"'
RC AnnotationTwice "of: given twice" 'recorded "of:/tmp/a.json;of:/tmp/b.json"'
RC AnnotationUnknownFormat "format: 'yaml' is not oci or docker" 'recorded "of:/tmp/p.json;format:yaml"'
RC AnnotationNotAString "annotations.io.oci-seccomp-tsync.record: expected string" 'annotated good | jq -c ".annotations[\"io.oci-seccomp-tsync.record\"] = 1"'
RC WithExecOnce "recording and exec once" 'recorded "of:/tmp/p.json" | jq -c ".annotations[\"io.oci-seccomp-tsync.exec\"] = \"once\""'
RC TraceLayer "layer 'trace': SCMP_ACT_TRACE and a recording" "$TRACE_LAYER"'; mv "$W/trace.json" "$W/profiles/trace.json"; recorded "of:/tmp/p.json" trace'
RC OutputUnderTheRootfs "of: '/x/rootfs/p.json'" 'recorded "of:/x/rootfs/p.json" | jq -c ".root.path = \"/x/rootfs\""'
RC InputNotJson "if: \$W/in.json: " 'echo "{\"defaultAction\": " >"$W/in.json"; recorded "if:$W/in.json;of:$W/p.json"'
RC InputWithNotify "if: \$W/in.json: SCMP_ACT_NOTIFY or listenerPath: a recorded profile hands no listener on" \
        'echo "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"listenerPath\": \"/run/a.sock\", \"syscalls\": [{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}" >"$W/in.json"; recorded "if:$W/in.json;of:$W/p.json"'

RT RecordOff "annotations.io.oci-seccomp-tsync.record: recordings through oci-seccomp-tsync-runtime are off on this host" \
        'annotate io.oci-seccomp-tsync.record "of:$W/p.json"'
RT RecordOutsideTheRecordDir "/p.json' is not a file directly in this host's record-dir" \
        'echo "record-dir = $W/rec" >>"$W/runtime.conf"; annotate io.oci-seccomp-tsync.record "of:$W/p.json"'
RT RecordBelowTheRecordDir "/rec/../p.json' is not a file directly in this host's record-dir" \
        'echo "record-dir = $W/rec" >>"$W/runtime.conf"; annotate io.oci-seccomp-tsync.record "of:$W/rec/../p.json"'
RT RecordInputOutsideTheRecordDir "if: '/etc/passwd' is not a file directly in this host's record-dir" \
        'echo "record-dir = $W/rec" >>"$W/runtime.conf"; annotate io.oci-seccomp-tsync.record "if:/etc/passwd;of:$W/rec/p.json"'
RT RecordUnderRun "annotations.io.oci-seccomp-tsync.record: a recording is written at \`delete\`, which \`run\` does inside the runtime without oci-seccomp-tsync-runtime: use create, start and delete" \
        'echo "record-dir = $W/rec" >>"$W/runtime.conf"; annotate io.oci-seccomp-tsync.record "of:$W/rec/p.json"'

# rec_injected: $W/b injected (injected) with a recording in its plan, its directory holding a
# valid record file; the profile would go to $W/prof/p.json.
rec_injected() {
        injected
        mkdir -p "$W/prof" && mkdir -m 0700 "$W/b/oci-seccomp-tsync-record"
        printf 'oci-seccomp-tsync-record 1\nc000003e 59\nc000003e 0\n' >"$W/b/oci-seccomp-tsync-record/calls"
        plan_edit ".record = {output: \"$W/prof/p.json\", format: \"oci\", errno: \"EPERM\", dir: \"$W/b/oci-seccomp-tsync-record\"}"
}

assert_recording_kept() {
        assertTrue "the recording's directory is kept" "[ -d $W/b/oci-seccomp-tsync-record ]"
        assertEquals "no profile written" "" "$(ls -A "$W/prof")"
}

# RP NAME CAUSE SETUP: poststop of rec_injected's bundle, broken by SETUP, reports CAUSE, exits 1,
# writes no profile and keeps the recording.
RP() {
        row "HookPoststopRecord$1" "rec_injected; victim; $3;" \
                "state fc-rec \"\$W/b\" | hook poststop --cache-dir \"\$W/cache\" --state-root \"\$W/run\" --profile-dir \"\$W/profiles\";" \
                "assert_refused 'oci-seccomp-tsync: fc-rec: ' $(qq "$2") 1; assert_victim_intact; assert_recording_kept; assert_no_temp \"\$W\""
}
RP DirNotOurs "plan.record.dir: '\$W/victim' is neither" 'plan_edit ".record.dir = \"$W/victim\""'
RP CallsMissing "nothing was recorded in \$W/b/oci-seccomp-tsync-record (the workload never started): \$W/prof/p.json is left as it was" 'rm "$W/b/oci-seccomp-tsync-record/calls"'
RP CallsEmptied "nothing was recorded in \$W/b/oci-seccomp-tsync-record (the workload never started)" ': >"$W/b/oci-seccomp-tsync-record/calls"'
RP CallsASymlink "calls: Too many levels of symbolic links" 'rm "$W/b/oci-seccomp-tsync-record/calls"; ln -s "$W/victim/precious" "$W/b/oci-seccomp-tsync-record/calls"'
RP CallsAFifo "calls: not a regular file" 'rm "$W/b/oci-seccomp-tsync-record/calls"; mkfifo "$W/b/oci-seccomp-tsync-record/calls"'
RP CallsTooBig "calls: more than 1048576 bytes" 'head -c 1048577 /dev/zero >"$W/b/oci-seccomp-tsync-record/calls"'
RP CallsNotARecord "$W/b/oci-seccomp-tsync-record/calls" 'echo "not a record" >"$W/b/oci-seccomp-tsync-record/calls"'
RP DirIsASymlink "oci-seccomp-tsync-record: not a directory (a symlink?)" 'mv "$W/b/oci-seccomp-tsync-record" "$W/rec-real"; ln -s "$W/rec-real" "$W/b/oci-seccomp-tsync-record"'
RP OutputUnderTheRootfs "writing \$W/b/rootfs/p.json" 'plan_edit ".record.output = \"$W/b/rootfs/p.json\""'
RP OutputDirMissing "writing \$W/prof/none/p.json" 'plan_edit ".record.output = \"$W/prof/none/p.json\""'
RP PlanOutputRelative "plan.record.output: 'p.json' is not an absolute path" 'plan_edit ".record.output = \"p.json\""'

# ---------------------------------------------------------------------------------------------
# Rows from the profile table

for _n in "${PROF_NAMES[@]}"; do
        [ -n "$_n" ] || continue
        case "${PROF_WHERE[$_n]}" in *c*) row "Compile$_n" "compile_row $_n" ;; esac
        case "${PROF_WHERE[$_n]}" in *i*) row "InjectProfile$_n" "inject_profile_row $_n" ;; esac
        case "${PROF_WHERE[$_n]}" in *h*) row "HookCreateRuntimeLayer$_n" "hook_profile_row $_n" ;; esac
        case "${PROF_WHERE[$_n]}" in *r*) row "RuncPrestartLayer$_n" "runc_prestart_row $_n" ;; esac
        case "${PROF_WHERE[$_n]}" in *p*) row "HookPrecreateLayer$_n" "precreate_profile_row $_n" ;; esac
done
unset _n
for _n in "${RT_NAMES[@]}"; do
        row "Runtime$_n" "runtime_row $_n"
done
unset _n
for _n in "${RX_NAMES[@]}"; do
        row "RuntimeExec$_n" "runtime_exec_row $_n"
done
unset _n

# ---------------------------------------------------------------------------------------------
# lockdown: refusals before anything is touched (the container cases are test_lockdown.sh's)

lockdown_cmd() { # lockdown_cmd ARGS...: status in $rc, stdout in $W/out, stderr in $W/err
        timeout -s KILL 30 "$OCI" lockdown "$@" >"$W/out" 2>"$W/err"
        rc=$?
}

testLockdownOfAHostProcess() {
        sleep 60 &
        local pid=$!
        lockdown_cmd --no-cache --pid "$pid" --profile "$PROFILES/deny-mkdir.json"
        assert_refused "oci-seccomp-tsync: $pid: " "pid namespace" 1
        assertEquals "filters added to a host process" "0" \
                "$(awk '/^Seccomp_filters:/ {print $2}' "/proc/$pid/status")"
        kill "$pid"
        wait "$pid" 2>/dev/null || :
}

testLockdownWithAnUnknownLayer() {
        lockdown_cmd --no-cache --pid 1 --profile-dir "$W" --layers no-such-layer
        assert_refused "oci-seccomp-tsync: lockdown: " "layer 'no-such-layer': no such profile in $W" 1
}

testLockdownOfNoSuchContainer() {
        lockdown_cmd --no-cache --profile "$PROFILES/deny-mkdir.json" "tsync-no-such-$$"
        assert_refused "oci-seccomp-tsync: tsync-no-such-$$: " "runc state" 1
}

# gVisor's containers have no host tasks of the workload's (test_lockdown_targets.sh refuses them
# by their processes too): named by their runtime, refused before runsc is even asked.
testLockdownOfAGvisorContainerByItsRuntime() {
        lockdown_cmd --no-cache --profile "$PROFILES/deny-mkdir.json" --runtime runsc "tsync-no-such-$$"
        assert_refused "oci-seccomp-tsync: tsync-no-such-$$: " "--runtime runsc is gVisor: its container's tasks are not host tasks but run inside its sentry" 1
}

# After a lockdown (its record, issue 26): oci-seccomp-tsync-runtime refuses to exec into a
# container that does not run under our init (the layers could not reach the process), and a
# record others may read or write is refused by lockdown and status alike.
testLockdownThenAnExecThroughTheWrapperIntoAContainerNotOurs() {
        local id pid rec
        id=$(tsync_unique_id fc-ld)
        ROOTFS_TOO=1 bundle "$W/b" sleep 300
        start_runc "$id" "$W/b" || fail "start"
        pid=$(runc_pid "$id")
        rec="/run/oci-seccomp-tsync/lockdown/$pid-$(sed 's/.*) //' "/proc/$pid/stat" | awk '{print $20}').json"
        lockdown_cmd --no-cache --profile "$PROFILES/deny-mkdir.json" "$id"
        assertEquals "lockdown: $(cat "$W/err")" 0 "$rc"
        : >"$W/runtime.conf"
        jq -n '{args: ["/bin/touch", "/tmp/marker"], cwd: "/", user: {uid: 0, gid: 0}, noNewPrivileges: true}' \
                >"$W/p.json"
        timeout -s KILL 30 "$RUNTIME" --runtime-config="$W/runtime.conf" exec --process "$W/p.json" "$id" \
                </dev/null >"$W/out" 2>"$W/err"
        rc=$?
        assert_refused "oci-seccomp-tsync: $id: " "exec: lockdown added 1 layer(s) to the container (first '$PROFILES/deny-mkdir.json'), and a process exec'd into it can carry them only through our init"
        assertFalse "the process ran" "[ -e $W/b/rootfs/tmp/marker ]"

        chmod 0644 "$rec"
        lockdown_cmd --no-cache --profile "$PROFILES/deny-mkdir.json" "$id"
        assert_refused "oci-seccomp-tsync: $id: " "$rec: must be a regular file of uid 0 that no one else may read or write"
        assertEquals "filters added although refused" "1" "$(awk '/^Seccomp_filters:/ {print $2}' "/proc/$pid/status")"
        timeout -s KILL 30 "$OCI" status "$id" >"$W/out" 2>"$W/err"
        rc=$?
        assertEquals "status: $(cat "$W/err")" 4 "$rc"
        assertContains "$(cat "$W/err")" "no one else may read or write"
        rm -f "$rec"
        stop_runc "$id"
}

suite() {
        tsync_add_declared_tests
}

. shunit2
