#!/bin/bash
# The translator's command line: compile, check, explain, dump, and what it does with bad input.
TOP=${TSYNC_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${TSYNC_BUILD:-$TOP/build}
OCI="$BUILD/bin/oci-seccomp-tsync"
FIXTURES="$TOP/tests/unit/fixtures/compile"
PODMAN_CAPS=CAP_CHOWN,CAP_DAC_OVERRIDE,CAP_FOWNER,CAP_FSETID,CAP_KILL,CAP_NET_BIND_SERVICE,CAP_SETFCAP,CAP_SETGID,CAP_SETPCAP,CAP_SETUID,CAP_SYS_CHROOT

setUp() {
        WORK=$(mktemp -d)
}

tearDown() {
        rm -rf "$WORK"
}

# Runs the CLI, keeping stdout in $WORK/out, stderr in $WORK/err and the status in $rc.
run() {
        "$OCI" "$@" >"$WORK/out" 2>"$WORK/err"
        rc=$?
}

assertOneLineError() {
        assertNotEquals "exit status" 0 "$rc"
        assertEquals "stderr lines: $(cat "$WORK/err")" 1 "$(wc -l <"$WORK/err")"
        grep -q "^oci-seccomp-tsync: " "$WORK/err" || fail "no program prefix: $(cat "$WORK/err")"
        grep -q -- "$1" "$WORK/err" || fail "expected '$1' in: $(cat "$WORK/err")"
}

# One name per stage (hook/plan/stage.c): every hooks.d file we ship names one stage three times
# (file name, "stages", the hook's argument) and the hook knows it; any other word is refused
# with the list of stages.
testHooksDFilesNameStagesTheHookKnows() {
        local f stage n=0
        for f in "$TOP"/configs/hooks.d/*.json.in; do
                stage=${f##*/oci-seccomp-tsync-}
                stage=${stage%.json.in}
                assertEquals "$f: stages" "[\"$stage\"]" "$(jq -c .stages "$f")"
                assertEquals "$f: the hook's stage" "$stage" "$(jq -r '.hook.args[2]' "$f")"
                run hook "$stage" --help
                assertEquals "hook $stage --help: $(cat "$WORK/err")" 0 "$rc"
                n=$((n + 1))
        done
        assertEquals "hooks.d files" 3 "$n"
        run hook preStart
        assertOneLineError "'preStart' is not a stage (precreate, prestart, createRuntime, poststop)"
}

# The exec view's rewrite of config.json (createRuntime, poststop) is synced to disk, so a crash
# cannot leave a bundle of the user's with an empty config; the hooks.d files pass --no-sync, since
# an engine writes the config anew at every start, and the sync was most of those stages' cost.
# strace, copied as "runc", is the parent: the exec view runs only under a runtime it knows.
testHookNoSyncLeavesOutTheExecViewsFsyncAndOnlyTheHooksDFilesPassIt() {
        local f stage opt n
        for stage in createRuntime poststop; do
                f="$TOP/configs/hooks.d/oci-seccomp-tsync-$stage.json.in"
                assertEquals "$f" true "$(jq '.hook.args | any(.[]; . == "--no-sync")' "$f")"
        done
        mkdir -p "$WORK/b/rootfs" && runc spec --bundle "$WORK/b" || fail "runc spec"
        jq '.process.noNewPrivileges = false' "$WORK/b/config.json" >"$WORK/c" && mv "$WORK/c" "$WORK/b/config.json"
        run inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache -p "$TOP/configs/profiles/deny-ptrace.json" "$WORK/b"
        assertEquals "inject: $(cat "$WORK/err")" 0 "$rc"
        assertEquals "inject's hooks pass --no-sync" "false false" \
                "$(jq -r '[.hooks.createRuntime[0].args, .hooks.poststop[0].args | any(.[]; . == "--no-sync")] | join(" ")' \
                        "$WORK/b/config.json")"
        cp "$WORK/b/config.json" "$WORK/lent.json"
        cp "$(command -v strace)" "$WORK/runc"
        printf '{"ociVersion":"1.0.2","id":"cli-nosync-%s","status":"created","pid":1,"bundle":"%s"}' $$ "$WORK/b" \
                >"$WORK/state"
        # views: inject's (a start writes nothing); then without them, as on a file system that
        # cannot exchange two names (each hook rewrites config.json).
        for opt in views "" --no-sync; do
                [ "$opt" = views ] || rm -rf "$WORK/b/oci-seccomp-tsync-views"
                for stage in createRuntime poststop; do
                        # shellcheck disable=SC2086 # opt is one word or none
                        "$WORK/runc" -f -e trace=fsync,fdatasync,syncfs,sync_file_range -o "$WORK/trace" \
                                "$OCI" hook "$stage" ${opt#views} <"$WORK/state" >"$WORK/out" 2>"$WORK/err"
                        last_rc=$?
                        assertEquals "$stage $opt: $(cat "$WORK/err")" 0 "$last_rc"
                        n=$(grep -c 'sync' "$WORK/trace")
                        if [ -z "$opt" ]; then
                                assertEquals "$stage: syncs (the new text only: see CRASHES in oci-seccomp-tsync(1))" 1 "$n"
                        else
                                assertEquals "$stage $opt: syncs" 0 "$n"
                        fi
                done
                # The pair put the capabilities back as they were lent.
                cmp -s "$WORK/lent.json" "$WORK/b/config.json" || fail "$opt: config.json differs after the pair"
        done
}

testCompileWritesWholeInstructions() {
        run compile "$FIXTURES/basic.json" -o "$WORK/basic.bpf"
        assertEquals 0 "$rc"
        size=$(stat -c %s "$WORK/basic.bpf")
        assertTrue "size $size" "[ $size -gt 0 ] && [ $((size % 8)) -eq 0 ]"
        grep -q "warning: skipped 1 syscall name unknown" "$WORK/err" || fail "no warning: $(cat "$WORK/err")"
}

testCompileToStdoutEqualsCompileToFile() {
        run compile "$FIXTURES/masked.json" -o "$WORK/a.bpf"
        "$OCI" compile "$FIXTURES/masked.json" >"$WORK/b.bpf"
        cmp -s "$WORK/a.bpf" "$WORK/b.bpf" || fail "stdout and -o differ"
}

testCompileTsyncFormatHasTheHeader() {
        run compile -O tsync "$FIXTURES/masked.json" -o "$WORK/a.tsync"
        "$OCI" compile "$FIXTURES/masked.json" -o "$WORK/a.bpf"
        assertEquals 0 "$rc"
        assertEquals "TSYNCBPF" "$(head -c 8 "$WORK/a.tsync")"
        assertEquals $(($(stat -c %s "$WORK/a.bpf") + 32)) "$(stat -c %s "$WORK/a.tsync")"
}

testStrictRefusesUnknownNames() {
        run compile --strict "$FIXTURES/basic.json" -o "$WORK/x.bpf"
        assertOneLineError "no_such_syscall_here"
        assertFalse "no output file" "[ -e $WORK/x.bpf ]"
}

testCompileFromConfigJsonTakesLinuxSeccomp() {
        jq -n --slurpfile s "$FIXTURES/masked.json" '{ociVersion: "1.0.2", process: {args: ["sh"]}, linux: {seccomp: $s[0]}}' \
                >"$WORK/config.json"
        run compile "$WORK/config.json" -o "$WORK/a.bpf"
        "$OCI" compile "$FIXTURES/masked.json" -o "$WORK/b.bpf"
        assertEquals 0 "$rc"
        cmp -s "$WORK/a.bpf" "$WORK/b.bpf" || fail "config and bare section differ"
}

testConfigWithoutSeccompIsAnError() {
        echo '{"ociVersion": "1.0.2", "linux": {}}' >"$WORK/config.json"
        run compile "$WORK/config.json" -o "$WORK/a.bpf"
        assertOneLineError "linux.seccomp: missing"
}

testDockerProfileNeedsACapabilitySet() {
        run compile /usr/share/containers/seccomp.json -o "$WORK/a.bpf"
        assertOneLineError "needs a capability set"
        run compile --caps "$PODMAN_CAPS" /usr/share/containers/seccomp.json -o "$WORK/a.bpf"
        assertEquals 0 "$rc"
}

testDockerCapsFromConfigBoundingSet() {
        caps_json=$(echo "$PODMAN_CAPS" | jq -R 'split(",")')
        jq -n --argjson c "$caps_json" '{ociVersion: "1.0.2", process: {capabilities: {bounding: $c}}}' >"$WORK/config.json"
        run compile --config "$WORK/config.json" /usr/share/containers/seccomp.json -o "$WORK/a.bpf"
        "$OCI" compile --caps "$PODMAN_CAPS" /usr/share/containers/seccomp.json -o "$WORK/b.bpf"
        assertEquals 0 "$rc"
        cmp -s "$WORK/a.bpf" "$WORK/b.bpf" || fail "--config and --caps differ"
        run compile --caps all /usr/share/containers/seccomp.json -o "$WORK/c.bpf"
        cmp -s "$WORK/a.bpf" "$WORK/c.bpf" && fail "all capabilities gave the same program as Podman's set"
        return 0
}

testReplaceModeSaysWhatRunsWithoutTheProfile() {
        # startContainer hooks run in the container before the init loads anything: without the
        # profile in replace mode, while the runtime alone runs them under it.
        mkdir -p "$WORK/b/rootfs"
        jq -n '{ociVersion: "1.0.2", root: {path: "rootfs"}, process: {args: ["sh"], noNewPrivileges: true},
                linux: {seccomp: {defaultAction: "SCMP_ACT_ALLOW",
                                  syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO"}]}}}' >"$WORK/b/config.json"
        run inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache --replace "$WORK/b"
        assertEquals "$(cat "$WORK/err")" 0 "$rc"
        grep -q "replace mode: .*processes started with \`runc exec\` run without it" "$WORK/err" || fail "$(cat "$WORK/err")"
        grep -q "startContainer" "$WORK/err" && fail "no startContainer hooks, yet: $(cat "$WORK/err")"
        jq '.hooks.startContainer = [{path: "/bin/true"}, {path: "/bin/true"}]' "$WORK/b/config.json" >"$WORK/c.json" &&
                mv "$WORK/c.json" "$WORK/b/config.json"
        run inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache --replace "$WORK/b"
        assertEquals "$(cat "$WORK/err")" 0 "$rc"
        grep -q "replace mode: the config's 2 startContainer hooks run in the container before the init loads linux.seccomp, so without it" \
                "$WORK/err" || fail "$(cat "$WORK/err")"
}

# issue 37: inject adds the node's layers (node.conf), found by name in the profile directories,
# before its --profile ones and each profile once, and says so; a bad policy refuses inject in one
# line and leaves the bundle as it was.
testInjectAddsTheNodesLayersFirstAndSaysSo() {
        mkdir -p "$WORK/b/rootfs" && runc spec --bundle "$WORK/b" || fail "runc spec"
        cp "$WORK/b/config.json" "$WORK/config.json"
        local p=$WORK/p c
        mkdir "$p" && cp "$TOP/configs/profiles/deny-ptrace.json" "$p/" || fail "profiles"
        for c in mkdir getcwd; do
                printf '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["%s"], "action": "SCMP_ACT_ERRNO"}]}\n' \
                        "$c" >"$p/deny-$c.json"
        done
        printf '%s\n' "layers = deny-mkdir, deny-ptrace" >"$WORK/node.conf" && chmod 0644 "$WORK/node.conf"
        run inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache --node-conf "$WORK/node.conf" \
                --profile-dir "$p" -p "$p/deny-getcwd.json" -p "$p/deny-ptrace.json" "$WORK/b"
        assertEquals "inject: $(cat "$WORK/err")" 0 "$rc"
        assertEquals "oci-seccomp-tsync: inject: the node's layers ($WORK/node.conf) come first: deny-mkdir, deny-ptrace" \
                "$(grep "node's layers" "$WORK/err")"
        assertEquals "[\"$p/deny-mkdir.json\",\"$p/deny-ptrace.json\",\"$p/deny-getcwd.json\"]" \
                "$(jq -c '.annotations["io.oci-seccomp-tsync.plan"] | fromjson | .layers' "$WORK/b/config.json")"
        cp "$WORK/config.json" "$WORK/b/config.json"
        printf '%s\n' "layers = deny-mkdir" "no-new-privs = maybe" >"$WORK/node.conf"
        run inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache --node-conf "$WORK/node.conf" \
                --profile-dir "$p" "$WORK/b"
        assertOneLineError "^oci-seccomp-tsync: node policy: $WORK/node.conf: line 2: no-new-privs: 'maybe' is neither set nor refuse"
        cmp -s "$WORK/config.json" "$WORK/b/config.json" || fail "a refused inject changed the config"
        printf '%s\n' "layers = no-such-layer" >"$WORK/node.conf"
        run inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache --node-conf "$WORK/node.conf" \
                --profile-dir "$p" "$WORK/b"
        assertOneLineError "node policy: $WORK/node.conf: layer 'no-such-layer': no such profile in $p"
        cmp -s "$WORK/config.json" "$WORK/b/config.json" || fail "a refused inject changed the config"
}

testCrunsFailUnknownSyscallAnnotationIsHonoured() {
        # crun refuses a profile with an unknown syscall name when the config carries
        # run.oci.seccomp_fail_unknown_syscall (any value but "0"); so do we, for what we compile.
        mkdir -p "$WORK/b/rootfs"
        jq -n '{ociVersion: "1.0.2", root: {path: "rootfs"}, process: {args: ["sh"], noNewPrivileges: true},
                annotations: {"run.oci.seccomp_fail_unknown_syscall": "1"},
                linux: {seccomp: {defaultAction: "SCMP_ACT_ALLOW",
                        syscalls: [{names: ["mkdir", "no_such_syscall_12345"], action: "SCMP_ACT_ERRNO"}]}}}' \
                >"$WORK/config.json"
        cp "$WORK/config.json" "$WORK/b/config.json"
        run inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache --replace "$WORK/b"
        assertOneLineError "is unknown to libseccomp .*'no_such_syscall_12345'"
        cmp -s "$WORK/config.json" "$WORK/b/config.json" || fail "a refused inject changed the config"
        echo '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["no_such_syscall_12345"], "action": "SCMP_ACT_ERRNO"}]}' \
                >"$WORK/layer.json"
        jq 'del(.linux.seccomp)' "$WORK/config.json" >"$WORK/b/config.json"
        run inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache --profile "$WORK/layer.json" "$WORK/b"
        assertOneLineError "is unknown to libseccomp .*'no_such_syscall_12345'"
        # "0" and no annotation: a warning, the rule skipped, as crun does.
        jq 'del(.linux.seccomp) | .annotations["run.oci.seccomp_fail_unknown_syscall"] = "0"' "$WORK/config.json" \
                >"$WORK/b/config.json"
        run inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache --profile "$WORK/layer.json" "$WORK/b"
        assertEquals "$(cat "$WORK/err")" 0 "$rc"
        grep -q "warning: skipped 1 syscall name unknown" "$WORK/err" || fail "$(cat "$WORK/err")"
        # crun's own ways of applying linux.seccomp cannot be honoured once the section is ours.
        jq '.annotations = {"run.oci.seccomp_bpf_data": "AAAA"} | .linux.seccomp.syscalls[0].names = ["mkdir"]' \
                "$WORK/config.json" >"$WORK/b/config.json"
        run inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache --replace "$WORK/b"
        assertOneLineError "annotations.run.oci.seccomp_bpf_data: crun's own way of applying linux.seccomp"
}

# A container's config is read with one limit (TSYNC_CONFIG_MAX_BYTES, 16 MiB: engines write long
# env and mount lists), by inject and explain --config as by precreate and the runtime wrapper: a
# config of 6 MiB is taken, one past 16 MiB refused in one line. (check and compile read a file
# as a profile, with a profile's limit.)
testInjectAndExplainTakeAConfigAsLargeAsTheEnginesFrontEndsDo() {
        mkdir -p "$WORK/b/rootfs"
        # 6 MiB in an annotation (never on a command line): past a profile's 4 MiB limit.
        head -c $((6 << 20)) /dev/zero | tr '\0' x >"$WORK/pad"
        jq -n --rawfile pad "$WORK/pad" '{ociVersion: "1.0.2", root: {path: "rootfs"},
                process: {args: ["sh"], noNewPrivileges: true},
                annotations: {"org.example.pad": $pad, "io.oci-seccomp-tsync.mode": "replace"},
                linux: {seccomp: {defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO"}]}}}' \
                >"$WORK/b/config.json"
        run explain --config "$WORK/b/config.json" mkdir
        assertEquals "explain --config: $(tail -n 3 "$WORK/err")" 0 "$rc"
        jq 'del(.annotations["io.oci-seccomp-tsync.mode"])' "$WORK/b/config.json" >"$WORK/c.json" &&
                mv "$WORK/c.json" "$WORK/b/config.json"
        run inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache --replace "$WORK/b"
        assertEquals "inject: $(tail -n 3 "$WORK/err")" 0 "$rc"
        head -c $((17 << 20)) /dev/zero | tr '\0' x >"$WORK/pad"
        jq -n --rawfile pad "$WORK/pad" '{ociVersion: "1.0.2", root: {path: "rootfs"},
                process: {args: ["sh"], noNewPrivileges: true}, annotations: {"org.example.pad": $pad}}' \
                >"$WORK/b/config.json"
        cp "$WORK/b/config.json" "$WORK/config.json"
        run inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache --replace "$WORK/b"
        assertOneLineError "more than the limit of $((16 << 20)) bytes"
        cmp -s "$WORK/config.json" "$WORK/b/config.json" || fail "a refused inject changed the config"
}

testDockerCapsFromAnInjectedConfigAreTheOriginalOnes() {
        # inject lends CAP_SYS_ADMIN to the init: judging a Docker-format profile by the rewritten
        # config would say what the workload never gets (Podman's profile allows bpf with SYS_ADMIN).
        caps_json=$(echo "$PODMAN_CAPS" | jq -R 'split(",")')
        mkdir -p "$WORK/b/rootfs"
        jq -n --argjson c "$caps_json" '{ociVersion: "1.0.2", root: {path: "rootfs"},
                process: {args: ["sh"], capabilities: {bounding: $c, effective: $c, permitted: $c}}}' \
                >"$WORK/b/config.json"
        "$OCI" inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache -p "$TOP/configs/profiles/deny-ptrace.json" "$WORK/b" ||
                fail "inject"
        jq -e '.process.capabilities.bounding | index("CAP_SYS_ADMIN")' "$WORK/b/config.json" >/dev/null ||
                fail "inject lent no CAP_SYS_ADMIN: this test shows nothing"
        run explain --config "$WORK/b/config.json" /usr/share/containers/seccomp.json bpf
        assertEquals "$(cat "$WORK/err")" 0 "$rc"
        "$OCI" explain --caps "$PODMAN_CAPS" /usr/share/containers/seccomp.json bpf >"$WORK/want" 2>&1
        assertEquals "$(cat "$WORK/want")" "$(cat "$WORK/out")"
        grep -q "ALLOW" "$WORK/out" && fail "bpf allowed: judged with the lent CAP_SYS_ADMIN: $(cat "$WORK/out")"
        return 0
}

testCacheHitGivesTheSameProgram() {
        run compile --cache-dir "$WORK/cache" "$FIXTURES/masked.json" -o "$WORK/a.bpf"
        assertEquals 0 "$rc"
        assertEquals 1 "$(ls "$WORK/cache" | wc -l)"
        run compile --cache-dir "$WORK/cache" "$FIXTURES/masked.json" -o "$WORK/b.bpf"
        cmp -s "$WORK/a.bpf" "$WORK/b.bpf" || fail "cached program differs"
}

testCorruptCacheEntryIsRebuiltNotLoaded() {
        run compile --cache-dir "$WORK/cache" "$FIXTURES/masked.json" -o "$WORK/a.bpf"
        entry=$(ls "$WORK/cache"/*.bpf)
        printf '\xff' | dd of="$entry" bs=1 seek=40 conv=notrunc status=none
        run compile --cache-dir "$WORK/cache" "$FIXTURES/masked.json" -o "$WORK/b.bpf"
        assertEquals 0 "$rc"
        cmp -s "$WORK/a.bpf" "$WORK/b.bpf" || fail "corrupt entry was used"
        truncate -s 100 "$entry"
        run compile --cache-dir "$WORK/cache" "$FIXTURES/masked.json" -o "$WORK/c.bpf"
        cmp -s "$WORK/a.bpf" "$WORK/c.bpf" || fail "truncated entry was used"
        # An entry: its 120-byte header (magic, version, key, digest), the filter file's 32, the program.
        assertEquals "entry rebuilt whole" "$(stat -c %s "$WORK/a.bpf")" $(($(stat -c %s "$entry") - 120 - 32))
}

testDumpPrintsOneLinePerInstruction() {
        "$OCI" compile "$FIXTURES/basic.json" -o "$WORK/a.bpf" 2>/dev/null
        run dump "$FIXTURES/basic.json"
        assertEquals 0 "$rc"
        assertEquals $(($(stat -c %s "$WORK/a.bpf") / 8)) "$(wc -l <"$WORK/out")"
        grep -q "ret ERRNO(13)" "$WORK/out" || fail "no ERRNO(13) in the dump"
}

testExplainNamesTheDecidingRule() {
        run explain "$FIXTURES/basic.json" kill 101 15
        assertEquals 0 "$rc"
        grep -q -- "-> ALLOW" "$WORK/out" || fail "$(cat "$WORK/out")"
        grep -q "rule syscalls\[10\]" "$WORK/out" || fail "$(cat "$WORK/out")"
        run explain "$FIXTURES/basic.json" kill 100 15
        grep -q "the default action" "$WORK/out" || fail "$(cat "$WORK/out")"
        run explain "$FIXTURES/basic.json" 1000
        grep -q "ENOSYS stub" "$WORK/out" || fail "$(cat "$WORK/out")"
        run explain --abi x32 "$FIXTURES/basic.json" read
        grep -q "bad-architecture" "$WORK/out" || fail "$(cat "$WORK/out")"
        # Without the x32 bit the kernel sees an x86_64 call: the stub decides it.
        run explain --abi x32 "$FIXTURES/basic.json" 1326
        grep -q -- "-> ERRNO(38)" "$WORK/out" || fail "$(cat "$WORK/out")"
        grep -q "seen by the filter as: SCMP_ARCH_X86_64" "$WORK/out" || fail "$(cat "$WORK/out")"
        grep -q "ENOSYS stub" "$WORK/out" || fail "$(cat "$WORK/out")"
        run explain --abi x86 "$FIXTURES/basic.json" mkdir
        grep -q "nr 39) -> ERRNO(13)" "$WORK/out" || fail "$(cat "$WORK/out")"
}

# issue 25: explain shows the whole stack a call meets and which filter decides, as the kernel
# decides (kernel/seccomp.c: the most severe action; on a tie the newest filter's answer).
# stack_profile FILE ACTION [ERRNO]: default ALLOW, mkdir answered with ACTION.
stack_profile() {
        jq -n --arg a "$2" --arg e "${3:-}" '{defaultAction: "SCMP_ACT_ALLOW",
                syscalls: [{names: ["mkdir", "mkdirat"], action: $a} + if $e == "" then {} else {errnoRet: ($e | tonumber)} end]}' >"$1"
}
testExplainStackTheLayerDecides() {
        run explain --caps podman-default --baseline /usr/share/containers/seccomp.json \
                --profile "$TOP/configs/profiles/deny-namespaces.json" clone 'CLONE_NEWUSER|SIGCHLD'
        assertEquals "$(cat "$WORK/err")" 0 "$rc"
        assertEquals "clone (SCMP_ARCH_X86_64, nr 56) -> ERRNO(1) from filter 2, layer $TOP/configs/profiles/deny-namespaces.json" \
                "$(head -n 1 "$WORK/out")"
        assertContains "$(cat "$WORK/out")" "arguments: arg0 CLONE_NEWUSER|SIGCHLD (0x10000011)"
        assertContains "$(cat "$WORK/out")" "filter 1, baseline /usr/share/containers/seccomp.json: ALLOW, by rule"
        grep -q "^filter 2, layer .*: ERRNO(1), by rule syscalls\[1\] (SCMP_ACT_ERRNO) <- decides$" "$WORK/out" ||
                fail "$(cat "$WORK/out")"
        # the same call without CLONE_NEWUSER: every filter allows, none decides
        run explain -q --caps podman-default --baseline /usr/share/containers/seccomp.json \
                --profile "$TOP/configs/profiles/deny-namespaces.json" clone SIGCHLD
        assertEquals "clone (SCMP_ARCH_X86_64, nr 56) -> ALLOW (every filter allows)" "$(cat "$WORK/out")"
}
testExplainStackTheBaselineDecidesWhatItBlocks() {
        # Podman's profile answers bpf with EPERM without CAP_SYS_ADMIN; a layer allowing all cannot undo it
        run explain -q --caps podman-default --baseline /usr/share/containers/seccomp.json \
                --profile "$TOP/configs/profiles/deny-namespaces.json" bpf
        assertEquals "bpf (SCMP_ARCH_X86_64, nr 321) -> ERRNO(1) from filter 1, baseline /usr/share/containers/seccomp.json" \
                "$(cat "$WORK/out")"
        # and with Docker's default set (CAP_SYS_ADMIN in neither), the same; with all, bpf is allowed
        run explain -q --caps docker-default -b /usr/share/containers/seccomp.json bpf
        assertContains "$(cat "$WORK/out")" "-> ERRNO(1) from filter 1"
        run explain -q --caps all -b /usr/share/containers/seccomp.json bpf
        assertContains "$(cat "$WORK/out")" "-> ALLOW (every filter allows)"
        # severity beats order: an older TRAP over a newer ERRNO
        stack_profile "$WORK/trap.json" SCMP_ACT_TRAP
        stack_profile "$WORK/eperm.json" SCMP_ACT_ERRNO 1
        run explain -b "$WORK/trap.json" -p "$WORK/eperm.json" mkdir
        assertEquals "mkdir (SCMP_ARCH_X86_64, nr 83) -> TRAP from filter 1, baseline $WORK/trap.json" \
                "$(head -n 1 "$WORK/out")"
        assertNotContains "$(cat "$WORK/out")" "tie:"
}
testExplainStackATieGoesToTheNewestFilter() {
        stack_profile "$WORK/eacces.json" SCMP_ACT_ERRNO 13
        stack_profile "$WORK/eperm.json" SCMP_ACT_ERRNO 1
        run explain -b "$WORK/eacces.json" -p "$WORK/eperm.json" mkdir
        assertEquals "mkdir (SCMP_ARCH_X86_64, nr 83) -> ERRNO(1) from filter 2, layer $WORK/eperm.json" \
                "$(head -n 1 "$WORK/out")"
        assertContains "$(cat "$WORK/out")" "tie: filter 1 also answers ERRNO(13); the newest filter's answer counts"
        run explain -b "$WORK/eperm.json" -p "$WORK/eacces.json" mkdir
        assertEquals "mkdir (SCMP_ARCH_X86_64, nr 83) -> ERRNO(13) from filter 2, layer $WORK/eacces.json" \
                "$(head -n 1 "$WORK/out")"
}
testExplainConfigShowsItsLinuxSeccompAndTheLayersItsAnnotationsName() {
        mkdir -p "$WORK/pd"
        stack_profile "$WORK/pd/eperm-mkdir.json" SCMP_ACT_ERRNO 1
        cp "$TOP/configs/profiles/deny-namespaces.json" "$WORK/pd/"
        jq -n '{ociVersion: "1.0.2", root: {path: "rootfs"}, process: {args: ["sh"]},
                annotations: {"io.oci-seccomp-tsync.layers": "deny-namespaces,eperm-mkdir"},
                linux: {seccomp: {defaultAction: "SCMP_ACT_ALLOW",
                        syscalls: [{names: ["mkdir", "getcwd"], action: "SCMP_ACT_ERRNO", errnoRet: 13}]}}}' \
                >"$WORK/config.json"
        run explain --config "$WORK/config.json" --profile-dir "$WORK/pd" mkdir
        assertEquals "$(cat "$WORK/err")" 0 "$rc"
        assertEquals "mkdir (SCMP_ARCH_X86_64, nr 83) -> ERRNO(1) from filter 3, layer 'eperm-mkdir'
filter 1, linux.seccomp (the runtime's): ERRNO(13), by rule syscalls[0] (SCMP_ACT_ERRNO)
filter 2, layer 'deny-namespaces': ALLOW, by the default action (SCMP_ACT_ALLOW)
filter 3, layer 'eperm-mkdir': ERRNO(1), by rule syscalls[0] (SCMP_ACT_ERRNO) <- decides
tie: filter 1 also answers ERRNO(13); the newest filter's answer counts" "$(head -n 5 "$WORK/out")"
        run explain -q --config "$WORK/config.json" --profile-dir "$WORK/pd" getcwd
        assertEquals "getcwd (SCMP_ARCH_X86_64, nr 79) -> ERRNO(13) from filter 1, linux.seccomp (the runtime's)" \
                "$(cat "$WORK/out")"
        # replace mode: linux.seccomp is the plan's first filter, loaded by the init
        jq '.annotations["io.oci-seccomp-tsync.mode"] = "replace"' "$WORK/config.json" >"$WORK/replace.json"
        run explain -q --config "$WORK/replace.json" --profile-dir "$WORK/pd" getcwd
        assertEquals "$(cat "$WORK/err")" "getcwd (SCMP_ARCH_X86_64, nr 79) -> ERRNO(13) from filter 1, linux.seccomp" \
                "$(cat "$WORK/out")"
        # exec once: the plan's filter after the layers, answered by the init
        jq '.annotations["io.oci-seccomp-tsync.exec"] = "once" | .process.capabilities = {bounding: ["CAP_KILL"]}' \
                "$WORK/config.json" >"$WORK/once.json"
        run explain --config "$WORK/once.json" --profile-dir "$WORK/pd" execve
        assertEquals "$(cat "$WORK/err")" "execve (SCMP_ARCH_X86_64, nr 59) -> USER_NOTIF from filter 4, exec-once" \
                "$(head -n 1 "$WORK/out")"
        assertContains "$(cat "$WORK/out")" "answered by: the init's exec-once supervisor"
        # a Docker-format layer is judged against the config's own bounding set, as the hook judges it
        cp /usr/share/containers/seccomp.json "$WORK/pd/podman.json"
        jq '.annotations["io.oci-seccomp-tsync.layers"] = "podman" | del(.linux)
                | .process.capabilities = {bounding: ["CAP_KILL"]}' "$WORK/config.json" >"$WORK/docker.json"
        run explain -q --config "$WORK/docker.json" --profile-dir "$WORK/pd" bpf
        assertEquals "bpf (SCMP_ARCH_X86_64, nr 321) -> ERRNO(1) from filter 1, layer 'podman'" "$(cat "$WORK/out")"
        jq '.process.capabilities.bounding = ["CAP_SYS_ADMIN"]' "$WORK/docker.json" >"$WORK/admin.json"
        run explain -q --config "$WORK/admin.json" --profile-dir "$WORK/pd" bpf
        assertEquals "bpf (SCMP_ARCH_X86_64, nr 321) -> ALLOW (every filter allows)" "$(cat "$WORK/out")"
        # a PROFILE operand still takes only the config's capabilities
        run explain -q --config "$WORK/config.json" "$WORK/pd/eperm-mkdir.json" getcwd
        assertEquals "getcwd (SCMP_ARCH_X86_64, nr 79) -> ALLOW" "$(cat "$WORK/out")"
        # a layer that is not there: one line, no answer
        run explain --config "$WORK/config.json" mkdir
        assertOneLineError "layer 'deny-namespaces': no such profile in /etc/oci-seccomp-tsync/profiles"
        assertEquals "" "$(cat "$WORK/out")"
        run explain --config "$WORK/config.json" -p "$WORK/pd/eperm-mkdir.json" mkdir
        assertOneLineError "--config and --baseline/--profile each give the whole stack: one at a time"
}
testExplainNamesFlagsAndReadsThem() {
        run explain "$TOP/configs/profiles/deny-namespaces.json" unshare 'CLONE_NEWNS|CLONE_NEWTIME'
        assertContains "$(cat "$WORK/out")" "arguments: arg0 CLONE_NEWNS|CLONE_NEWTIME (0x20080)"
        run explain --caps none /usr/share/containers/seccomp.json personality 0x20008
        assertContains "$(cat "$WORK/out")" "arguments: arg0 PER_LINUX32|UNAME26 (0x20008)"
        assertContains "$(cat "$WORK/out")" "-> ALLOW"
        run explain --caps none /usr/share/containers/seccomp.json socket AF_NETLINK 3 9
        assertContains "$(cat "$WORK/out")" "arguments: arg0 AF_NETLINK (0x10), arg1 3, arg2 9"
        run explain --caps none /usr/share/containers/seccomp.json clone3
        assertContains "$(cat "$WORK/out")" "note: clone3's flags are in its struct clone_args, which no filter can read"
        run explain --caps none /usr/share/containers/seccomp.json socket AF_NOPE
        assertOneLineError "argument 0 'AF_NOPE' is neither a number nor address family names joined by '|'"
        run explain --caps none /usr/share/containers/seccomp.json read CLONE_NEWNS
        assertOneLineError "argument 0 'CLONE_NEWNS' is not a number"
}
testExplainSaysItsWarningsOnceOnOneLineAndQuietNone() {
        jq -n '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: (["getcwd"] + [range(30) | "no_such_call_\(.)"]),
                action: "SCMP_ACT_ERRNO"}]}' >"$WORK/p.json"
        run explain -b "$WORK/p.json" -p "$WORK/p.json" -p "$WORK/p.json" getcwd
        assertEquals "$(cat "$WORK/err")" 0 "$rc"
        assertEquals "one warning line: $(cat "$WORK/err")" 1 "$(wc -l <"$WORK/err")"
        assertContains "$(cat "$WORK/err")" "oci-seccomp-tsync: explain: warning: $WORK/p.json: skipped 30 syscall names"
        [ "$(wc -c <"$WORK/err")" -lt 220 ] || fail "a long line: $(cat "$WORK/err")"
        run explain -q "$WORK/p.json" getcwd
        assertEquals "" "$(cat "$WORK/err")"
        assertEquals "getcwd (SCMP_ARCH_X86_64, nr 79) -> ERRNO(1)" "$(cat "$WORK/out")"
}

testCheckFindsImpossibleAndShadowedRules() {
        cat >"$WORK/p.json" <<'JSON'
{ "defaultAction": "SCMP_ACT_ERRNO",
  "syscalls": [
    { "names": ["read", "read"], "action": "SCMP_ACT_ALLOW" },
    { "names": ["write"], "action": "SCMP_ACT_ERRNO" },
    { "names": ["lseek"], "action": "SCMP_ACT_ALLOW",
      "args": [ { "index": 0, "value": 0, "op": "SCMP_CMP_LT" } ] },
    { "names": ["close"], "action": "SCMP_ACT_ALLOW" },
    { "names": ["close"], "action": "SCMP_ACT_ERRNO", "errnoRet": 9,
      "args": [ { "index": 0, "value": 3, "op": "SCMP_CMP_EQ" } ] }
  ] }
JSON
        run check "$WORK/p.json"
        assertEquals 1 "$rc"
        grep -q "syscalls\[0\].names\[1\]: 'read' is listed twice" "$WORK/out" || fail "$(cat "$WORK/out")"
        grep -q "syscalls\[1\]: has no effect" "$WORK/out" || fail "$(cat "$WORK/out")"
        grep -q "error: syscalls\[2\].args\[0\]: can never match: no value is below 0" "$WORK/out" || fail "$(cat "$WORK/out")"
        grep -q "syscalls\[4\]: 'close' never gets SCMP_ACT_ERRNO here: syscalls\[3\] decides it first" "$WORK/out" ||
                fail "$(cat "$WORK/out")"
}

testCheckWarnsThatLibseccompDropsValueTwoBitsOutsideTheMask() {
        cat >"$WORK/p.json" <<'JSON'
{ "defaultAction": "SCMP_ACT_ALLOW",
  "syscalls": [ { "names": ["clone"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1,
      "args": [ { "index": 0, "value": 33554432, "valueTwo": 335912, "op": "SCMP_CMP_MASKED_EQ" } ] } ] }
JSON
        run check "$WORK/p.json"
        assertEquals 0 "$rc"
        grep -q "warning: syscalls\[0\].args\[0\]: valueTwo has bits outside the mask" "$WORK/out" || fail "$(cat "$WORK/out")"
        # and explain attributes what the program does to the rule
        run explain "$WORK/p.json" clone 0
        grep -q "decided by: rule syscalls\[0\]" "$WORK/out" || fail "$(cat "$WORK/out")"
}

testCheckPassesShippedProfiles() {
        for p in "$TOP"/configs/profiles/*.json; do
                run check --strict "$p"
                assertEquals "$p: $(cat "$WORK/out")" 0 "$rc"
        done
}

# -o: a regular file of ours (or a new name) is replaced atomically; a character device or a FIFO
# with a reader is written in place; anything else is refused and left as it was.
testCompileOutputOntoACharacterDeviceWritesInPlace() {
        mknod "$WORK/null" c 1 3 || fail "mknod"
        run compile "$FIXTURES/masked.json" -o "$WORK/null"
        assertEquals "$(cat "$WORK/err")" 0 "$rc"
        assertEquals "character special file 1:3" "$(stat -c '%F %t:%T' "$WORK/null")"
        assertEquals "no temp file" "" "$(ls -A "$WORK" | grep -v -e '^null$' -e '^out$' -e '^err$')"
}

testCompileOutputOntoAFifoWithAReaderWritesIntoIt() {
        mkfifo "$WORK/fifo"
        "$OCI" compile "$FIXTURES/masked.json" >"$WORK/want"
        # This shell holds the reading end (read-write: the open does not wait for a writer).
        exec 3<>"$WORK/fifo"
        run compile "$FIXTURES/masked.json" -o "$WORK/fifo"
        timeout 10 head -c "$(stat -c %s "$WORK/want")" <&3 >"$WORK/got"
        exec 3<&-
        assertEquals "$(cat "$WORK/err")" 0 "$rc"
        cmp -s "$WORK/want" "$WORK/got" || fail "the reader did not get the program"
        assertEquals "fifo" "$(stat -c %F "$WORK/fifo")"
}

testCompileOutputOntoAFifoWithoutAReaderIsRefusedAtOnce() {
        mkfifo "$WORK/fifo"
        timeout -s KILL 20 "$OCI" compile "$FIXTURES/masked.json" -o "$WORK/fifo" >"$WORK/out" 2>"$WORK/err"
        rc=$?
        assertNotEquals "it hung" 137 "$rc"
        assertOneLineError "$WORK/fifo: a FIFO without a reader: refusing to wait for one"
        assertEquals "fifo" "$(stat -c %F "$WORK/fifo")"
}

testCompileOutputOntoASymlinkIsRefused() {
        echo keep >"$WORK/target"
        ln -s "$WORK/target" "$WORK/link"
        run compile "$FIXTURES/masked.json" -o "$WORK/link"
        assertOneLineError "$WORK/link: is a symbolic link: refusing to write through or replace it"
        assertEquals "$WORK/target" "$(readlink "$WORK/link")"
        assertEquals keep "$(cat "$WORK/target")"
}

testCompileOutputOntoAnotherUsersFileIsRefused() {
        echo keep >"$WORK/theirs"
        chown 65534 "$WORK/theirs"
        run compile "$FIXTURES/masked.json" -o "$WORK/theirs"
        assertOneLineError "$WORK/theirs: owned by uid 65534, not by us (uid 0): refusing to replace it"
        assertEquals "keep 65534" "$(cat "$WORK/theirs") $(stat -c %u "$WORK/theirs")"
}

testCompileOutputOntoADirectoryIsRefused() {
        mkdir "$WORK/dir"
        run compile "$FIXTURES/masked.json" -o "$WORK/dir"
        assertOneLineError "$WORK/dir: is a directory: refusing to replace it"
}

testCompileOutputDashIsStandardOutput() {
        "$OCI" compile "$FIXTURES/masked.json" >"$WORK/want"
        run compile "$FIXTURES/masked.json" -o -
        assertEquals 0 "$rc"
        cmp -s "$WORK/want" "$WORK/out" || fail "-o - differs from standard output"
        assertFalse "a file named -" "[ -e ./- ] || [ -e $WORK/- ]"
}

testCompileOutputReplacesOurOwnFile() {
        echo old >"$WORK/a.bpf"
        ln "$WORK/a.bpf" "$WORK/hardlink"
        run compile "$FIXTURES/masked.json" -o "$WORK/a.bpf"
        assertEquals 0 "$rc"
        "$OCI" compile "$FIXTURES/masked.json" >"$WORK/want"
        cmp -s "$WORK/want" "$WORK/a.bpf" || fail "not replaced"
        # Replaced by rename: another name of the old file keeps the old content.
        assertEquals old "$(cat "$WORK/hardlink")"
}

# check tells how the init would run a workload under the profile as a layer (issue 17).
testCheckSaysHowTheInitRunsTheWorkloadUnderTheProfile() {
        run check "$TOP/configs/profiles/deny-ptrace.json"
        assertEquals "$(cat "$WORK/err")" 0 "$rc"
        grep -q "deny-ptrace.json: init: supervises the workload as PID 1" "$WORK/out" || fail "$(cat "$WORK/out")"
        echo '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["clone"], "action": "SCMP_ACT_ERRNO", "errnoRet": 6}]}' \
                >"$WORK/p.json"
        run check "$WORK/p.json"
        assertEquals "$(cat "$WORK/err")" 0 "$rc"
        grep -q "p.json: init: runs the workload in place, as PID 1, as the runtime alone would: the profile answers clone with ERRNO(6), which the init needs to start the workload as a child" \
                "$WORK/out" || fail "$(cat "$WORK/out")"
        echo '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["capset"], "action": "SCMP_ACT_ERRNO"}]}' \
                >"$WORK/p.json"
        run check "$WORK/p.json"
        grep -q "p.json: init: supervises" "$WORK/out" || fail "$(cat "$WORK/out")"
        grep -q "p.json: init, with noNewPrivileges false: cannot start a workload under this profile: it answers capset with ERRNO(1)" \
                "$WORK/out" || fail "$(cat "$WORK/out")"
}

# Unknown keys: an error in a profile file, a warning in a config's own linux.seccomp.
# issue 12: notify. check names the agent and refuses what runc refuses (NOTIFY on write) and
# what the init cannot do (NOTIFY on a call it makes after its load); explain and dump say who
# answers USER_NOTIF.
notify_profile() { # notify_profile FILE NAMES-JSON
        echo "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/run/agent.sock\", \"listenerMetadata\": \"m1\",
               \"syscalls\": [{\"names\": $2, \"action\": \"SCMP_ACT_NOTIFY\"}]}" >"$1"
}
testCheckExplainAndDumpShowTheNotifyAgent() {
        notify_profile "$WORK/p.json" '["mkdir", "getppid"]'
        run check "$WORK/p.json"
        assertEquals "$(cat "$WORK/out" "$WORK/err")" 0 "$rc"
        assertContains "$(cat "$WORK/out")" "notify: the listener goes to the seccomp agent at /run/agent.sock with listenerMetadata 'm1' (the init hands it over"
        assertNotContains "notify profiles work" "$(cat "$WORK/out")" "refuse"
        assertContains "$(cat "$WORK/out")" "init: supervises the workload"
        run explain "$WORK/p.json" mkdir
        assertContains "$(cat "$WORK/out")" "mkdir (SCMP_ARCH_X86_64, nr 83) -> USER_NOTIF"
        assertContains "$(cat "$WORK/out")" "answered by: the seccomp agent at /run/agent.sock"
        run explain "$WORK/p.json" read
        assertNotContains "$(cat "$WORK/out")" "answered by"
        run dump "$WORK/p.json"
        assertEquals "; USER_NOTIF: the seccomp agent at /run/agent.sock, listenerMetadata m1" "$(tail -n 1 "$WORK/out")"
}
testCheckRefusesNotifyOnWriteAsRuncDoes() {
        notify_profile "$WORK/p.json" '["write"]'
        run check "$WORK/p.json"
        assertEquals 1 "$rc"
        assertContains "$(cat "$WORK/out")" "error: notify: syscalls[0]: SCMP_ACT_NOTIFY cannot be used for the write syscall"
}
# The two calls that hand the agent its listener run before it holds it; every later call of the
# init up to the workload's start the agent answers (runc's "important syscalls" among them).
testCheckRefusesNotifyOnTheCallsThatHandTheAgentItsListener() {
        local call
        for call in sendmsg close_range; do
                notify_profile "$WORK/p.json" "[\"$call\"]"
                run check "$WORK/p.json"
                assertEquals "$call: $(cat "$WORK/out")" 1 "$rc"
                assertContains "$call" "$(cat "$WORK/out")" "cannot start a workload under this profile: it answers $call with USER_NOTIF"
        done
}
testCheckLetsTheAgentAnswerTheInitsCallsBeforeTheWorkloadStarts() {
        notify_profile "$WORK/p.json" '["execve", "openat", "open", "read", "close", "fcntl", "recvmsg", "capset", "prctl"]'
        run check "$WORK/p.json"
        assertEquals "$(cat "$WORK/out")" 0 "$rc"
        assertContains "$(cat "$WORK/out")" "init: supervises the workload"
        notify_profile "$WORK/p.json" '["wait4"]'
        run check "$WORK/p.json"
        assertEquals "$(cat "$WORK/out")" 0 "$rc"
        assertContains "$(cat "$WORK/out")" "init: runs the workload in place, as PID 1, as the runtime alone would: the profile answers wait4 with USER_NOTIF"
}

testCheckAndExplainRefuseAMisspeltKeyInAProfile() {
        echo '{"defaultAction": "SCMP_ACT_ALLOW", "syscall": [{"names": ["getcwd"], "action": "SCMP_ACT_ERRNO"}]}' \
                >"$WORK/p.json"
        run check "$WORK/p.json"
        assertOneLineError "p.json: syscall: unknown key (did you mean 'syscalls'?)"
        run explain "$WORK/p.json" getcwd
        assertOneLineError "syscall: unknown key (did you mean 'syscalls'?)"
        assertEquals "explain printed a decision" "" "$(cat "$WORK/out")"
}

testCheckWarnsAboutAnUnknownKeyInAConfigSeccomp() {
        jq -n '{ociVersion: "1.0.2", process: {args: ["sh"]}, linux: {seccomp: {defaultAction: "SCMP_ACT_ALLOW",
                syscalls: [{names: ["getcwd"], action: "SCMP_ACT_ERRNO", args: [{index: 0, value: 1, op: "SCMP_CMP_EQ", vlaue: 2}]}]}}}' \
                >"$WORK/config.json"
        run check "$WORK/config.json"
        assertEquals "$(cat "$WORK/err")" 0 "$rc"
        grep -qF "config.json: warning: linux.seccomp.syscalls[0].args[0].vlaue: unknown key, ignored as runc ignores it (did you mean 'value'?)" "$WORK/out" ||
                fail "$(cat "$WORK/out")"
        grep -q "0 errors, 1 warning$" "$WORK/out" || fail "$(cat "$WORK/out")"
}

testCheckFindsNoUnknownKeyInContainersCommonsProfile() {
        [ -f /usr/share/containers/seccomp.json ] || startSkipping
        run check --caps all /usr/share/containers/seccomp.json
        assertEquals "$(cat "$WORK/err")" 0 "$rc"
        assertEquals "unknown keys: $(cat "$WORK/out")" "" "$(grep "unknown key" "$WORK/out")"
}

# Bad input: one line naming the problem, a non-zero exit, and no output file left behind.
badInput() {
        run compile "$WORK/bad.json" -o "$WORK/out.bpf"
        assertOneLineError "$1"
        assertFalse "no output file" "[ -e $WORK/out.bpf ]"
        assertEquals "no temp file" "" "$(ls "$WORK" | grep -v -e '^bad.json$' -e '^out$' -e '^err$')"
}

testNotJson() {
        echo 'this is not json' >"$WORK/bad.json"
        badInput "bad.json"
}

testTruncatedJson() {
        head -c 200 "$FIXTURES/basic.json" >"$WORK/bad.json"
        badInput "bad.json"
}

testWrongTypes() {
        echo '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": "read", "action": "SCMP_ACT_ALLOW"}]}' >"$WORK/bad.json"
        badInput "syscalls\[0\].names: expected array"
}

testDeepNesting() {
        python3 -c 'print("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"x\": " + "[" * 200 + "]" * 200 + "}")' >"$WORK/bad.json"
        badInput "deep"
}

testHugeFile() {
        python3 -c '
import sys
sys.stdout.write("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"pad\": \"" + "x" * (64 << 20) + "\"}")' >"$WORK/bad.json"
        badInput "bad.json"
}

testNegativeNumber() {
        echo '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW", "args": [{"index": -1, "value": 0, "op": "SCMP_CMP_EQ"}]}]}' >"$WORK/bad.json"
        badInput "syscalls\[0\].args\[0\].index: -1 is negative"
}

testNumberAboveUint64() {
        echo '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 18446744073709551616, "op": "SCMP_CMP_EQ"}]}]}' >"$WORK/bad.json"
        badInput "syscalls\[0\].args\[0\].value: 18446744073709551616"
}

testNulByteInName() {
        printf '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["re\\u0000ad"], "action": "SCMP_ACT_ALLOW"}]}' >"$WORK/bad.json"
        badInput "syscalls\[0\].names\[0\]: contains a NUL byte"
}

testRawNulByte() {
        printf '{"defaultAction": "SCMP_ACT_ERRNO",\0 "syscalls": []}' >"$WORK/bad.json"
        badInput "bad.json"
}

testDuplicateKeys() {
        echo '{"defaultAction": "SCMP_ACT_ERRNO", "defaultAction": "SCMP_ACT_ALLOW"}' >"$WORK/bad.json"
        badInput "duplicate key 'defaultAction'"
}

testMissingFile() {
        run compile "$WORK/nope.json" -o "$WORK/out.bpf"
        assertOneLineError "nope.json"
}

testSchemasAcceptShippedFiles() {
        python3 "$TOP/tests/tools/validate_json.py" "$TOP/schema/oci-seccomp.schema.json" "$TOP"/configs/profiles/*.json \
                "$FIXTURES"/*.json >"$WORK/out" 2>&1
        last_rc=$?
        assertEquals "$(cat "$WORK/out")" 0 "$last_rc"
        python3 "$TOP/tests/tools/validate_json.py" "$TOP/schema/docker-seccomp.schema.json" \
                /usr/share/containers/seccomp.json >"$WORK/out" 2>&1
        last_rc=$?
        assertEquals "$(cat "$WORK/out")" 0 "$last_rc"
}

testSchemaRejectsAnUnknownAction() {
        echo '{"defaultAction": "SCMP_ACT_FOO"}' >"$WORK/bad.json"
        python3 "$TOP/tests/tools/validate_json.py" "$TOP/schema/oci-seccomp.schema.json" "$WORK/bad.json" >"$WORK/out" 2>&1
        assertEquals 1 $?
}

# Issue 23: processes a plain `runc exec` starts carry neither the layers nor exec once, and
# without Yama (or with ptrace_scope 0) the workload can take them over. inject, check and
# precreate say so once, where the user decides; nothing is said when nothing beyond the baseline
# is asked. Here (no Yama) the line is expected; with ptrace_scope 1 or more, none.
PLAIN_EXEC='carry only the runtime.s own linux.seccomp, without'
plain_exec_lines_expected() {
        local scope
        scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null) || { echo 1; return; }
        [ "$scope" = 0 ] && echo 1 || echo 0
}
assertPlainExecWarnedAsExpected() { # WHAT FILE
        local want
        want=$(plain_exec_lines_expected)
        assertEquals "$1: plain exec warnings in: $(cat "$2")" "$want" "$(grep -c "$PLAIN_EXEC" "$2")"
        [ "$want" = 0 ] && return
        grep -q "^oci-seccomp-tsync: .*: warning: processes started by a plain \`runc exec\`.*by ptrace or /proc/PID/mem: set kernel.yama.ptrace_scope to 1 or more, or run the container with oci-seccomp-tsync-runtime$" "$2" ||
                fail "$1: the warning's words: $(cat "$2")"
}
plain_exec_bundle() {
        mkdir -p "$WORK/b/rootfs" && runc spec --bundle "$WORK/b" || fail "runc spec"
}

testInjectWarnsOnceAboutPlainRuntimeExecForALayer() {
        plain_exec_bundle
        run inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache -p "$TOP/configs/profiles/deny-ptrace.json" "$WORK/b"
        assertEquals "inject: $(cat "$WORK/err")" 0 "$rc"
        assertPlainExecWarnedAsExpected "inject --profile" "$WORK/err"
}

testInjectWarnsOnceAboutPlainRuntimeExecForExecOnce() {
        plain_exec_bundle
        run inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache --exec-once "$WORK/b"
        assertEquals "inject: $(cat "$WORK/err")" 0 "$rc"
        assertPlainExecWarnedAsExpected "inject --exec-once" "$WORK/err"
        grep -q "without exec once, and" "$WORK/err" || [ "$(plain_exec_lines_expected)" = 0 ] ||
                fail "names exec once: $(cat "$WORK/err")"
}

testInjectSaysNothingAboutPlainRuntimeExecWhenNoLayerIsAsked() {
        plain_exec_bundle
        jq '.linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW"}' "$WORK/b/config.json" >"$WORK/c" &&
                mv "$WORK/c" "$WORK/b/config.json"
        run inject --init "$BUILD/bin/seccomp-tsync-init" --no-cache --replace "$WORK/b"
        assertEquals "inject: $(cat "$WORK/err")" 0 "$rc"
        assertEquals "plain exec warnings: $(cat "$WORK/err")" 0 "$(grep -c "$PLAIN_EXEC" "$WORK/err")"
}

testCheckWarnsOnceAboutPlainRuntimeExecForAProfile() {
        run check "$TOP/configs/profiles/deny-ptrace.json"
        assertEquals "check: $(cat "$WORK/out") $(cat "$WORK/err")" 0 "$rc"
        assertPlainExecWarnedAsExpected "check" "$WORK/err"
        # Not the profile's own finding: the count stays the lint's, and says one was given.
        if [ "$(grep -c "$PLAIN_EXEC" "$WORK/err")" -eq 1 ]; then
                grep -q ': 0 errors, 0 warnings (and one about this host, above)$' "$WORK/out" ||
                        fail "the lint's count: $(cat "$WORK/out")"
        else
                grep -q ': 0 errors, 0 warnings$' "$WORK/out" || fail "the lint's count: $(cat "$WORK/out")"
        fi
        # A config asks through its annotations: without them, nothing is said.
        plain_exec_bundle
        jq '.linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW"}' "$WORK/b/config.json" >"$WORK/c" &&
                mv "$WORK/c" "$WORK/b/config.json"
        run check -f config "$WORK/b/config.json"
        assertEquals "check config: $(cat "$WORK/err")" 0 "$(grep -c "$PLAIN_EXEC" "$WORK/err")"
        jq '.annotations["io.oci-seccomp-tsync.exec"] = "once"' "$WORK/b/config.json" >"$WORK/c" &&
                mv "$WORK/c" "$WORK/b/config.json"
        run check -f config "$WORK/b/config.json"
        assertPlainExecWarnedAsExpected "check, a config asking exec once" "$WORK/err"
}

testPrecreateWarnsOnceAboutPlainRuntimeExec() {
        plain_exec_bundle
        mkdir -p "$WORK/profiles" && cp "$TOP/configs/profiles/deny-ptrace.json" "$WORK/profiles/layer.json"
        jq -c '.annotations = {"io.oci-seccomp-tsync.layers": "layer"}' "$WORK/b/config.json" |
                "$OCI" hook precreate --state-root "$WORK/run" --profile-dir "$WORK/profiles" \
                        --cache-dir "$WORK/cache" >"$WORK/out" 2>"$WORK/err"
        last_rc=$?
        assertEquals "precreate: $(cat "$WORK/err")" 0 "$last_rc"
        assertPlainExecWarnedAsExpected "precreate" "$WORK/err"
}

. shunit2
