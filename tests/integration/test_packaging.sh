#!/bin/bash
# Packaging: the hooks.d files against the hooks.d 1.0.0 schema; `scons install`
# into a DESTDIR installs exactly the expected files and `scons uninstall`
# removes them; the man pages render without warnings and document what the
# programs' --help says; `scons dist`; the Debian package (lintian: no errors)
# and the RPM from the dist tarball; the installed .deb runs a Podman container
# through its own hooks.d files.
#
# Every scons run happens in a copy of the tree (its tracked and untracked,
# not ignored files), so that PREFIX changes never rebuild the build/ that
# `scons check` is running from.
# tests: alone: the .deb it installs puts hooks.d files in /usr/share/containers/oci/hooks.d, which every Podman run beside it would call
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
TOP=$TSYNC_TOP
VALIDATE="$TOP/tests/tools/validate_json.py"
HOOKS_SCHEMA="$TOP/schema/hooks-1.0.0.schema.json"
PLAN_SCHEMA="$TOP/schema/plan.schema.json"
CONFIG_SCHEMA="$TOP/schema/oci-config.schema.json"
PKG=oci-seccomp-tsync
MAN_PAGES="share/man/man1/oci-seccomp-tsync.1 share/man/man1/oci-seccomp-tsync-runtime.1 share/man/man1/seccomp-tsync-init.1 share/man/man5/oci-seccomp-tsync.5"

oneTimeSetUp() {
        SUITE_TMP=$(mktemp -d "${TMPDIR:-/tmp}/tsync-pkg.XXXXXX")
        SRC="$SUITE_TMP/src"
        DEB=
        VERSION=$(sed -n "s/^VERSION = '\(.*\)'$/\1/p" "$TOP/SConstruct")
        tsync_copy_tree "$SRC" || return 1
        # Built once, with the prefix the packages use; the install tests then only copy.
        scons_in_copy installable PREFIX=/usr || return 1
}

oneTimeTearDown() {
        purge_package
        rm -rf "$SUITE_TMP"
}

setUp() {
        tsync_test_begin
}

tearDown() {
        tsync_test_end
}

# scons_in_copy ARGS...: scons in the copy; the output goes to $SUITE_TMP/scons.log, shown on failure.
scons_in_copy() {
        if ! (cd "$SRC" && scons -Q -j"$(nproc)" "$@") >"$SUITE_TMP/scons.log" 2>&1; then
                cat "$SUITE_TMP/scons.log"
                echo "scons $* failed in the copy of the tree"
                return 1
        fi
}

# expected_files PREFIX: what `scons install` must put under DESTDIR, sorted.
expected_files() {
        local p=$1 f
        {
                echo "$p/bin/oci-seccomp-tsync"
                echo "$p/bin/oci-seccomp-tsync-runtime"
                echo "$p/libexec/oci-seccomp-tsync/seccomp-tsync-init"
                echo "$p/libexec/oci-seccomp-tsync/seccomp-tsync-view-hook"
                for f in "$SRC"/configs/hooks.d/*.json.in; do
                        f=${f##*/}
                        echo "$p/share/containers/oci/hooks.d/${f%.in}"
                done
                for f in "$SRC"/configs/profiles/*.json; do
                        echo "$p/share/oci-seccomp-tsync/profiles/${f##*/}"
                done
                for f in "$SRC"/packaging/examples/*; do
                        f=${f##*/}
                        echo "$p/share/oci-seccomp-tsync/examples/${f%.in}"
                done
                for f in $MAN_PAGES; do
                        echo "$p/$f"
                done
                for f in "$SRC"/packaging/bash-completion/*; do
                        echo "$p/share/bash-completion/completions/${f##*/}"
                done
        } | sort
}

# The files under DIR (relative, with a leading /), sorted.
files_under() {
        (cd "$1" && find . -type f -o -type l) | sed 's|^\.||' | sort
}

# The hooks.d files with @BINDIR@ as the package installs them.
substituted_hooks() {
        local f
        mkdir -p "$TSYNC_TMP/hooks.d"
        for f in "$TOP"/configs/hooks.d/*.json.in; do
                sed 's|@BINDIR@|/usr/bin|g' "$f" >"$TSYNC_TMP/hooks.d/$(basename "${f%.in}")"
        done
}

purge_package() {
        if [ -n "${INSTALLED_BY_US:-}" ]; then
                DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "$PKG" >/dev/null 2>&1
                INSTALLED_BY_US=
        fi
}

# --- the hooks.d files and the schemas ----------------------------------------------------------

testEveryHooksFileIsValidAgainstTheHooksSchema() {
        substituted_hooks
        local files=("$TSYNC_TMP"/hooks.d/*.json)
        assertEquals "hooks.d files" 3 "${#files[@]}"
        python3 "$VALIDATE" "$HOOKS_SCHEMA" "${files[@]}" >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "$(cat "$TSYNC_TMP/out")" 0 "$rc"
        assertEquals "valid lines" 3 "$(grep -c ': valid$' "$TSYNC_TMP/out")"
}

testHooksSchemaRefusesBrokenHooksFiles() {
        substituted_hooks
        local good="$TSYNC_TMP/hooks.d/oci-seccomp-tsync-poststop.json" edit n=0 edits=()
        for edit in '.version = "2.0.0"' '.hook.path = "oci-seccomp-tsync"' 'del(.when)' '.when = {}' \
                '.stages = ["prestop"]' '.stages = []' '.hook.timeout = 0' '.hook.env = ["NOEQUALS"]' \
                '.when.always = "yes"' '.hook.arg = ["x"]' '.extra = 1'; do
                n=$((n + 1))
                edits[n]=$edit
                jq "$edit" "$good" >"$TSYNC_TMP/bad$n.json"
        done
        # One run for all (the validator takes seconds to start): one line per file.
        python3 "$VALIDATE" "$HOOKS_SCHEMA" "$TSYNC_TMP"/bad{1..11}.json >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "exit status" 1 "$rc"
        for n in {1..11}; do
                grep -q "/bad$n.json: invalid at" "$TSYNC_TMP/out" ||
                        fail "accepted: ${edits[n]}: $(grep "/bad$n.json" "$TSYNC_TMP/out")"
        done
}

testHooksFilesRunTheirOwnStageAndFireOnlyOnTheUserAnnotationsPoststopOnARecording() {
        substituted_hooks
        python3 - "$TSYNC_TMP"/hooks.d/*.json >"$TSYNC_TMP/out" 2>&1 <<'EOF'
import json, os, re, sys
bad = 0
for path in sys.argv[1:]:
    stage = re.match(r'oci-seccomp-tsync-(\w+)\.json$', os.path.basename(path)).group(1)
    h = json.load(open(path))
    def check(cond, what):
        global bad
        if not cond:
            bad += 1
            print('%s: %s' % (path, what))
    check(h['stages'] == [stage], 'stages %s, not [%s]' % (h['stages'], stage))
    check(h['hook']['path'] == '/usr/bin/oci-seccomp-tsync', 'path %s' % h['hook']['path'])
    check(h['hook']['args'][:3] == ['oci-seccomp-tsync', 'hook', stage], 'args %s' % h['hook']['args'])
    ann = h['when'].get('annotations', {})
    check(not h['when'].get('always'), 'always: true would run it for every container')
    def fires(key, value):
        return any(re.search(k, key) and re.search(v, value) for k, v in ann.items())
    # poststop only for a recording (the engine writes config.json anew: no lent view to give back).
    asks = ['io.oci-seccomp-tsync.layers', 'io.oci-seccomp-tsync.mode', 'io.oci-seccomp-tsync.exec']
    for key in (asks if stage != 'poststop' else []) + ['io.oci-seccomp-tsync.record']:
        check(fires(key, 'deny-ptrace'), 'does not fire on %s' % key)
    # precreate and createRuntime: every name under our prefix, a misspelt one too (issue 35: precreate
    # refuses it); poststop: the recording alone.
    ours = ['io.oci-seccomp-tsync.plan', 'io.oci-seccomp-tsync.layers.x', 'io.oci-seccomp-tsync.layer']
    for key in (ours if stage != 'poststop' else []):
        check(fires(key, 'x'), 'does not fire on %s' % key)
    others = ['io.oci-seccomp-tsyncXlayers', 'x.io.oci-seccomp-tsync.layers', 'org.opencontainers.image.title']
    for key in (asks + ours if stage == 'poststop' else []) + others:
        check(not fires(key, 'x'), 'fires on %s' % key)
print('%d problems' % bad)
sys.exit(1 if bad else 0)
EOF
        rc=$?
        assertEquals "$(cat "$TSYNC_TMP/out")" 0 "$rc"
}

testThePlanAnnotationOfInjectIsValidAgainstThePlanSchema() {
        local bin="$SRC/build/bin"
        mkdir -p "$TSYNC_TMP/b/rootfs"
        jq -n --slurpfile s "$TOP/configs/profiles/deny-ptrace.json" \
                '{ociVersion: "1.0.2", process: {args: ["sh"], noNewPrivileges: true,
                  capabilities: {bounding: ["CAP_KILL"], effective: ["CAP_KILL"], permitted: ["CAP_KILL"]}},
                  root: {path: "rootfs"}, linux: {seccomp: $s[0]}}' >"$TSYNC_TMP/b/config.json"
        cp -r "$TSYNC_TMP/b" "$TSYNC_TMP/r"
        "$bin/oci-seccomp-tsync" inject --init "$bin/seccomp-tsync-init" \
                -p "$TOP/configs/profiles/deny-namespaces.json" "$TSYNC_TMP/b" 2>"$TSYNC_TMP/err"
        rc=$?
        assertEquals "layer: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        "$bin/oci-seccomp-tsync" inject --init "$bin/seccomp-tsync-init" --replace "$TSYNC_TMP/r" 2>"$TSYNC_TMP/err"
        rc=$?
        assertEquals "replace: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        jq -r '.annotations["io.oci-seccomp-tsync.plan"]' "$TSYNC_TMP/b/config.json" >"$TSYNC_TMP/layer.json"
        jq -r '.annotations["io.oci-seccomp-tsync.plan"]' "$TSYNC_TMP/r/config.json" >"$TSYNC_TMP/replace.json"
        python3 "$VALIDATE" "$PLAN_SCHEMA" "$TSYNC_TMP/layer.json" "$TSYNC_TMP/replace.json" >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "$(cat "$TSYNC_TMP/out")" 0 "$rc"
        # and the schema is not a blank cheque
        jq '.mode = "replace" | del(.seccomp)' "$TSYNC_TMP/layer.json" >"$TSYNC_TMP/bad.json"
        python3 "$VALIDATE" "$PLAN_SCHEMA" "$TSYNC_TMP/bad.json" >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "replace without seccomp: $(cat "$TSYNC_TMP/out")" 1 "$rc"
}

# rewritten_configs DIR: the config.json of every way we rewrite one, as DIR/NAME.json, from a config
# that has everything the rewrite touches or keeps (capabilities, a user, mounts, a hook of someone
# else, annotations, a baseline). Prints the names, one a line.
rewritten_configs() {
        local dir=$1 bin="$SRC/build/bin" profiles="$TOP/configs/profiles" name
        local -A opts=([layer]="--compile-at-start" [replace]="--replace" [no-hooks]="--no-hooks --no-cache"
                [no-hooks-exec]="--no-hooks --exec --no-cache")
        mkdir -p "$dir/base/rootfs" "$dir/state" || return 1
        jq -n --slurpfile s "$profiles/deny-ptrace.json" \
                '{ociVersion: "1.0.2",
                  process: {args: ["sh", "-c", "true"], user: {uid: 0, gid: 0}, cwd: "/",
                            capabilities: {bounding: ["CAP_KILL"], effective: ["CAP_KILL"], permitted: ["CAP_KILL"]}},
                  root: {path: "rootfs", readonly: true},
                  mounts: [{destination: "/proc", type: "proc", source: "proc"}],
                  hooks: {prestart: [{path: "/bin/true", args: ["true"], env: ["A=b"], timeout: 5}]},
                  annotations: {"org.example.x": "y"},
                  linux: {seccomp: $s[0], namespaces: [{type: "pid"}, {type: "mount"}]}}' >"$dir/base/config.json" ||
                return 1
        for name in layer replace no-hooks no-hooks-exec; do
                cp -r "$dir/base" "$dir/$name"
                # --no-hooks refuses lending the init capabilities that no hook would take back
                case "$name" in no-hooks*) jq '.process.noNewPrivileges = true' "$dir/base/config.json" >"$dir/$name/config.json" ;; esac
                # shellcheck disable=SC2086 # the options are words
                "$bin/oci-seccomp-tsync" inject --init "$bin/seccomp-tsync-init" ${opts[$name]} \
                        -p "$profiles/deny-namespaces.json" "$dir/$name" 2>"$dir/err" || {
                        echo "inject ${opts[$name]}: $(cat "$dir/err")" >&2
                        return 1
                }
                cp "$dir/$name/config.json" "$dir/$name.json"
                echo "$name"
        done
        # injected twice (it starts again from the original), the hooks passing a cache option on
        "$bin/oci-seccomp-tsync" inject --init "$bin/seccomp-tsync-init" --compile-at-start --cache-dir "$dir/cache" \
                -p "$profiles/deny-namespaces.json" "$dir/layer" 2>"$dir/err" || {
                echo "inject again: $(cat "$dir/err")" >&2
                return 1
        }
        cp "$dir/layer/config.json" "$dir/layer-twice.json"
        echo layer-twice
        # while a container runs from it (createRuntime under runc: a shell named runc stands in for it)
        cp /bin/sh "$dir/runc" || return 1
        jq -n --arg b "$dir/layer" '{ociVersion: "1.0.2", id: "pkg-running", bundle: $b}' |
                "$dir/runc" -c '"$1" hook createRuntime --no-cache' runc "$bin/oci-seccomp-tsync" 2>"$dir/err" || {
                echo "createRuntime: $(cat "$dir/err")" >&2
                return 1
        }
        cp "$dir/layer/config.json" "$dir/running.json"
        echo running
        # precreate: Podman's precreate hook gets the config on stdin; here with noNewPrivileges
        jq '.process.noNewPrivileges = true | .annotations["io.oci-seccomp-tsync.layers"] = "deny-ptrace"' \
                "$dir/base/config.json" |
                "$bin/oci-seccomp-tsync" hook precreate --state-root "$dir/state" --init "$bin/seccomp-tsync-init" \
                        --profile-dir "$profiles" --no-cache >"$dir/precreate.json" 2>"$dir/err" || {
                echo "precreate: $(cat "$dir/err")" >&2
                return 1
        }
        echo precreate
}

testTheConfigsInjectAndPrecreateWriteAreValidAgainstTheConfigSchema() {
        local d="$TSYNC_TMP/c" names name
        names=$(rewritten_configs "$d") || fail "rewritten_configs"
        assertEquals "configs" "layer replace no-hooks no-hooks-exec layer-twice running precreate" "$(echo "$names" | tr '\n' ' ' | sed 's/ $//')"
        # They differ where the options say (so each file below is what its name says).
        local ours='[.hooks // {} | .[] | .[] | select(.args[0]? == "oci-seccomp-tsync")] | length'
        assertEquals "hooks of inject" 2 "$(jq "$ours" "$d/layer.json")"
        assertEquals "hooks of inject --no-hooks" 0 "$(jq "$ours" "$d/no-hooks.json")"
        assertEquals "hooks of precreate" 0 "$(jq "$ours" "$d/precreate.json")"
        assertEquals "--exec" '"--exec"' "$(jq '.process.args[1]' "$d/no-hooks-exec.json")"
        assertEquals "replace moves linux.seccomp" null "$(jq '.linux.seccomp' "$d/replace.json")"
        assertEquals "--cache-dir passed on" '"--cache-dir"' "$(jq '.hooks.poststop[0].args[3]' "$d/layer-twice.json")"
        assertEquals "the original sets while it runs" '["CAP_KILL"]' "$(jq -c '.process.capabilities.bounding' "$d/running.json")"
        local files=() plans=()
        for name in $names; do
                files+=("$d/$name.json")
                jq -r '.annotations["io.oci-seccomp-tsync.plan"]' "$d/$name.json" >"$d/$name.plan"
                plans+=("$d/$name.plan")
        done
        python3 "$VALIDATE" "$CONFIG_SCHEMA" "${files[@]}" >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "$(cat "$TSYNC_TMP/out")" 0 "$rc"
        assertEquals "valid lines" 7 "$(grep -c ': valid$' "$TSYNC_TMP/out")"
        # and the plan in each, against its own schema (contentSchema asserts nothing)
        python3 "$VALIDATE" "$PLAN_SCHEMA" "${plans[@]}" >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "$(cat "$TSYNC_TMP/out")" 0 "$rc"
        assertEquals "valid plans" 7 "$(grep -c ': valid$' "$TSYNC_TMP/out")"
}

# The config schema is not a blank cheque: each edit of a valid inject config is refused, while
# fields the runtime-spec or a runtime adds and we do not touch stay allowed.
testConfigSchemaRefusesWhatInjectNeverWritesAndAllowsWhatItKeeps() {
        local d="$TSYNC_TMP/c" edit n=0 edits=()
        rewritten_configs "$d" >/dev/null || fail "rewritten_configs"
        local good="$d/layer.json" init='.mounts[] | select(.destination == "/.oci-seccomp-tsync/init")'
        for edit in \
                '.mounts[0] |= del(.destination)' \
                '.hooks.prestart[0].path = "true"' \
                '.hooks.createRuntime[0].path = "oci-seccomp-tsync"' \
                '.process.args[0] = "/bin/sh"' \
                '.process.args |= map(select(. != "--"))' \
                '.process.args = ["sh", "-c", "true"]' \
                'del(.annotations["io.oci-seccomp-tsync.plan"])' \
                '.annotations["io.oci-seccomp-tsync.plan"] |= fromjson' \
                '.annotations["org.example.n"] = 1' \
                '.hooks.prestart[0].timeout = 0' \
                '.hooks.prestart[0].env = ["NOEQUALS"]' \
                '.hooks.prestart[0].arg = ["x"]' \
                '.process.capabilities.bounding += ["SYS_ADMIN"]' \
                '.process.capabilities.ambient -= ["CAP_SYS_ADMIN"]' \
                '.annotations["io.oci-seccomp-tsync.running"] = ""' \
                '.process.noNewPrivileges = "yes"' \
                '.process.user.uid = -1' \
                "del($init)" \
                ".mounts += [$init]" \
                "($init | .options) += [\"noexec\"]" \
                '(.mounts[] | select(.destination == "/.oci-seccomp-tsync/filters") | .options) -= ["ro"]' \
                '(.mounts[] | select(.destination == "/.oci-seccomp-tsync/filters") | .source) = "/etc"' \
                '.hooks.prestart += .hooks.createRuntime' \
                '.hooks.createRuntime += .hooks.createRuntime' \
                '.hooks.poststop[0].args[2] = "createRuntime"' \
                '.linux.seccomp.defaultAction = "SCMP_ACT_FOO"' \
                'del(.root)'; do
                n=$((n + 1))
                edits[n]=$edit
                jq "$edit" "$good" >"$TSYNC_TMP/bad$n.json" || fail "jq $edit"
        done
        # Kept as they are: fields of the runtime-spec we do not constrain, and ones runtimes add.
        jq '.vm = {hypervisor: {path: "/usr/bin/qemu"}} | .process.terminal = true | .process.oomScoreAdj = 100 |
            .mounts[0].uidMappings = [] | .hooks.createRuntime += [{path: "/bin/true"}] | .domainname = "x" |
            .linux.sysctl = {"net.ipv4.ip_forward": "1"} | .process.user.additionalGids = [5, 6]' \
                "$good" >"$TSYNC_TMP/kept.json"
        local bad=()
        for ((n = 1; n <= ${#edits[@]}; n++)); do
                bad+=("$TSYNC_TMP/bad$n.json")
        done
        python3 "$VALIDATE" "$CONFIG_SCHEMA" "$good" "$TSYNC_TMP/kept.json" "${bad[@]}" >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "exit status" 1 "$rc"
        grep -q "^$good: valid$" "$TSYNC_TMP/out" || fail "the unedited config: $(grep "^$good" "$TSYNC_TMP/out")"
        grep -q "/kept.json: valid$" "$TSYNC_TMP/out" || fail "fields we keep: $(grep /kept.json "$TSYNC_TMP/out")"
        for ((n = 1; n <= ${#edits[@]}; n++)); do
                grep -q "/bad$n.json: invalid at" "$TSYNC_TMP/out" ||
                        fail "accepted: ${edits[n]}: $(grep "/bad$n.json" "$TSYNC_TMP/out")"
        done
}

# --- scons install / uninstall ----------------------------------------------------------------

testInstallPutsExactlyTheExpectedFilesWithTheirModes() {
        local root="$TSYNC_TMP/root"
        scons_in_copy install PREFIX=/usr DESTDIR="$root" || fail "scons install"
        assertEquals "$(expected_files /usr)" "$(files_under "$root")"
        local f mode
        while read -r f; do
                case "$f" in
                /usr/bin/* | /usr/libexec/*) mode=755 ;;
                *) mode=644 ;;
                esac
                assertEquals "$f" "$mode" "$(stat -c %a "$root$f")"
        done < <(expected_files /usr)
        # The manifest (outside DESTDIR) lists exactly what was installed.
        assertEquals "$(expected_files /usr | sed "s|^|$root|")" \
                "$(grep "^$root/" "$SRC/build/install-manifest.txt" | grep -v '/$' | sort)"
        # The hooks.d files name the installed program, not DESTDIR or the build tree.
        python3 "$VALIDATE" "$HOOKS_SCHEMA" "$root"/usr/share/containers/oci/hooks.d/*.json >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "$(cat "$TSYNC_TMP/out")" 0 "$rc"
        assertEquals "/usr/bin/oci-seccomp-tsync" \
                "$(jq -r .hook.path "$root"/usr/share/containers/oci/hooks.d/*.json | sort -u)"
        # The init is statically linked, and so is the hook (static_hook, the default), the installed
        # profiles compile.
        assertTrue "static init" "_tsync_is_static $root/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init"
        assertTrue "static hook" "_tsync_is_static $root/usr/bin/oci-seccomp-tsync"
        for f in "$root"/usr/share/oci-seccomp-tsync/profiles/*.json; do
                "$root/usr/bin/oci-seccomp-tsync" check "$f" >/dev/null 2>"$TSYNC_TMP/err"
                rc=$?
                assertEquals "check $f: $(cat "$TSYNC_TMP/err")" 0 "$rc"
        done
        scons_in_copy uninstall PREFIX=/usr DESTDIR="$root" || fail "scons uninstall"
}

testInstalledProgramFindsTheInstalledInit() {
        local root="$TSYNC_TMP/root"
        scons_in_copy install PREFIX=/usr DESTDIR="$root" || fail "scons install"
        mkdir -p "$TSYNC_TMP/b/rootfs"
        jq -n '{ociVersion: "1.0.2", process: {args: ["sh"]}, root: {path: "rootfs"}}' >"$TSYNC_TMP/b/config.json"
        # No --init: the program must find ../libexec/oci-seccomp-tsync/seccomp-tsync-init itself.
        "$root/usr/bin/oci-seccomp-tsync" inject -p "$root/usr/share/oci-seccomp-tsync/profiles/deny-ptrace.json" \
                "$TSYNC_TMP/b" 2>"$TSYNC_TMP/err"
        rc=$?
        assertEquals "$(cat "$TSYNC_TMP/err")" 0 "$rc"
        assertEquals "$root/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init" \
                "$(jq -r '.mounts[] | select(.destination == "/.oci-seccomp-tsync/init") | .source' "$TSYNC_TMP/b/config.json")"
        scons_in_copy uninstall PREFIX=/usr DESTDIR="$root" || fail "scons uninstall"
}

testUninstallRemovesEverythingItInstalledEvenFilesGoneFromTheTree() {
        local root="$TSYNC_TMP/root"
        rm -f "$SRC/build/install-manifest.txt"
        cp "$SRC/configs/profiles/deny-ptrace.json" "$SRC/configs/profiles/zz-removed-later.json"
        scons_in_copy install PREFIX=/usr DESTDIR="$root"
        rc=$?
        rm -f "$SRC/configs/profiles/zz-removed-later.json"
        assertEquals "scons install" 0 $rc
        assertTrue "installed" "[ -f $root/usr/share/oci-seccomp-tsync/profiles/zz-removed-later.json ]"
        scons_in_copy uninstall PREFIX=/usr DESTDIR="$root" || fail "scons uninstall"
        assertEquals "left in DESTDIR" "" "$(cd "$root" && find . -mindepth 1)"
        assertFalse "the manifest is gone once empty" "[ -e $SRC/build/install-manifest.txt ]"
}

testUninstallLeavesOtherFilesAlone() {
        local root="$TSYNC_TMP/root"
        scons_in_copy install PREFIX=/usr DESTDIR="$root" || fail "scons install"
        echo x >"$root/usr/bin/someone-else"
        echo '{}' >"$root/usr/share/containers/oci/hooks.d/someone-else.json"
        scons_in_copy uninstall PREFIX=/usr DESTDIR="$root" || fail "scons uninstall"
        assertEquals "$(printf '%s\n' /usr/bin/someone-else /usr/share/containers/oci/hooks.d/someone-else.json)" \
                "$(files_under "$root")"
        assertFalse "our directory" "[ -e $root/usr/share/oci-seccomp-tsync ]"
        assertFalse "our libexec directory" "[ -e $root/usr/libexec/oci-seccomp-tsync ]"
}

# Without DESTDIR (an install on the host, as `scons install` into /usr/local is): uninstall removes
# the directories the install made once empty, and none that was there before, even empty.
testUninstallRemovesTheDirectoriesItMadeAndNoOther() {
        local p=$SUITE_TMP/pfx
        rm -rf "$p"
        mkdir -p "$p/bin" "$p/share/man/man1" "$p/share/bash-completion/completions"
        echo x >"$p/share/man/man1/someone-else.1"
        scons_in_copy install PREFIX="$p" || fail "scons install"
        assertTrue "installed" "[ -x $p/bin/oci-seccomp-tsync ]"
        assertEquals "the directories it made, in the manifest" \
                "$(printf '%s/\n' "$p/libexec" "$p/libexec/oci-seccomp-tsync" "$p/share/containers" \
                        "$p/share/containers/oci" "$p/share/containers/oci/hooks.d" "$p/share/man/man5" \
                        "$p/share/oci-seccomp-tsync" "$p/share/oci-seccomp-tsync/examples" \
                        "$p/share/oci-seccomp-tsync/profiles" | sort)" \
                "$(grep "^$p/.*/\$" "$SRC/build/install-manifest.txt" | sort)"
        scons_in_copy uninstall PREFIX="$p" || fail "scons uninstall"
        assertEquals "what was there before, and nothing else" \
                "$(printf '%s\n' ./bin ./share ./share/bash-completion ./share/bash-completion/completions ./share/man \
                        ./share/man/man1 ./share/man/man1/someone-else.1)" \
                "$(cd "$p" && find . -mindepth 1 | sort)"
        assertEquals "the manifest keeps nothing under it" "" "$(grep -s "^$p/" "$SRC/build/install-manifest.txt")"
        rm -rf "$p"
}

testInstallUnderAnotherPrefixNamesThatPrefixEverywhere() {
        local root="$TSYNC_TMP/root" p=/opt/tsync
        scons_in_copy install PREFIX=$p DESTDIR="$root" || fail "scons install"
        assertEquals "$(expected_files $p)" "$(files_under "$root")"
        assertEquals "$p/bin/oci-seccomp-tsync" \
                "$(jq -r .hook.path "$root$p"/share/containers/oci/hooks.d/*.json | sort -u)"
        assertEquals "$p/bin/oci-seccomp-tsync-runtime" \
                "$(jq -r '.runtimes[].path' "$root$p"/share/oci-seccomp-tsync/examples/docker-daemon.json | sort -u)"
        # Compiled in: the hook looks for profiles where this install put them.
        "$root$p/bin/oci-seccomp-tsync" hook --help >"$TSYNC_TMP/out"
        grep -qF "$p/share/oci-seccomp-tsync/profiles" "$TSYNC_TMP/out" || fail "hook --help: $(cat "$TSYNC_TMP/out")"
        # (scdoc writes "hooks.\&d": look for paths without dots)
        grep -qF "$p/libexec/oci-seccomp-tsync/seccomp-tsync-init" "$root$p/share/man/man1/oci-seccomp-tsync.1" ||
                fail "oci-seccomp-tsync(1) does not name $p"
        grep -qF "$p/share/oci-seccomp-tsync/profiles" "$root$p/share/man/man5/oci-seccomp-tsync.5" ||
                fail "oci-seccomp-tsync(5) does not name $p"
        scons_in_copy uninstall PREFIX=$p DESTDIR="$root" || fail "scons uninstall"
        assertEquals "" "$(cd "$root" && find . -mindepth 1)"
}

testInstallWherePodmanDoesNotLookSaysHowToMakeItLook() {
        local root="$TSYNC_TMP/root" p=/opt/tsync line
        scons_in_copy install PREFIX=/usr DESTDIR="$root" || fail "scons install"
        grep -q "note" "$SUITE_TMP/scons.log" && fail "a note for /usr: $(cat "$SUITE_TMP/scons.log")"
        scons_in_copy uninstall PREFIX=/usr DESTDIR="$root" || fail "scons uninstall"
        scons_in_copy install PREFIX=$p DESTDIR="$root" || fail "scons install"
        grep -qF "install: note: Podman does not read $p/share/containers/oci/hooks.d, where the hooks.d files went:" \
                "$SUITE_TMP/scons.log" || fail "no note: $(cat "$SUITE_TMP/scons.log")"
        grep -qF "or run podman --hooks-dir $p/share/containers/oci/hooks.d" "$SUITE_TMP/scons.log" ||
                fail "no --hooks-dir: $(cat "$SUITE_TMP/scons.log")"
        line=$(grep '^    hooks_dir = ' "$SUITE_TMP/scons.log" | sed 's/^ *//')
        assertEquals "hooks_dir = [\"/usr/share/containers/oci/hooks.d\", \"/etc/containers/oci/hooks.d\", \"$p/share/containers/oci/hooks.d\"]" \
                "$line"
        # The line, as Podman reads it (with DESTDIR, where the files are here): it reads every directory named.
        printf '[engine]\n%s\n' "${line//$p/$root$p}" >"$TSYNC_TMP/containers.conf"
        make_rootfs "$TSYNC_TMP/rootfs" || fail "make_rootfs"
        CONTAINERS_CONF="$TSYNC_TMP/containers.conf" podman --log-level debug run --rm --runtime runc \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --rootfs "$TSYNC_TMP/rootfs" /bin/sh -c : \
                </dev/null >"$TSYNC_TMP/podman.log" 2>&1 || fail "podman run: $(tail -n 3 "$TSYNC_TMP/podman.log")"
        local d
        for d in /usr/share/containers/oci/hooks.d /etc/containers/oci/hooks.d "$root$p/share/containers/oci/hooks.d"; do
                grep -qF "reading hooks from $d\"" "$TSYNC_TMP/podman.log" ||
                        fail "podman did not read $d: $(grep hooks "$TSYNC_TMP/podman.log")"
        done
        scons_in_copy uninstall PREFIX=$p DESTDIR="$root" || fail "scons uninstall"
}

# --- man pages ----------------------------------------------------------------------------------

testManPagesRenderWithoutWarnings() {
        scons_in_copy man PREFIX=/usr || fail "scons man"
        local page n=0
        for page in "$SRC"/build/man/*.[15]; do
                n=$((n + 1))
                LC_ALL=C.UTF-8 groff -ww -z -man "$page" >"$TSYNC_TMP/groff" 2>&1
                assertEquals "groff $page" "0:" "$?:$(cat "$TSYNC_TMP/groff")"
                LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" >"$TSYNC_TMP/text" 2>"$TSYNC_TMP/man"
                assertEquals "man -l $page" "0:" "$?:$(cat "$TSYNC_TMP/man")"
                grep -q "^NAME" "$TSYNC_TMP/text" || fail "$page renders no NAME section"
                assertEquals "placeholders left in $page" "" "$(grep -o '@[A-Z_]*@' "$page")"
        done
        assertEquals "man pages" "$(wc -w <<<"$MAN_PAGES")" "$n"
}

# Every man page the documentation names, NAME(N) (scdoc's *NAME*(N) too), is one of ours in that
# section or a system page known here; one installed on this host must be in that section.
testEveryManPageCrossReferenceExists() {
        local known="runc(8) crun(1) podman-run(1) oci-hooks(5) containers.conf(5) crio.conf(5) seccomp(2)
                seccomp_rule_add(3) seccomp_export_bpf(3) syslog(3) journalctl(1) capabilities(7) execve(2)
                prctl(2) proc(5) ptrace(2) socket(2) socketpair(2) clone(2) clone3(2) unshare(2) setns(2)
                personality(2) flock(2) openat2(2) vfork(2)"
        local ours="" f ref name section found n=0 docs=("$TOP/README.md" "$TOP"/packaging/man/*.scd)
        [ -d "$TOP/docs" ] && docs+=("$TOP"/docs/*.md)
        for f in "$TOP"/packaging/man/*.scd; do
                f=${f##*/}
                f=${f%.scd}
                ours="$ours ${f%.*}(${f##*.})"
        done
        while read -r ref; do
                n=$((n + 1))
                name=${ref%(*}
                section=${ref#*(}
                section=${section%)}
                case " $ours " in *" $ref "*) continue ;; esac
                case " $ours " in *" $name("*) fail "$ref: ours is in another section:$ours" && continue ;; esac
                case " $(echo $known) " in *" $ref "*) ;; *) fail "$ref: neither ours nor a known system page" ;; esac
                # A name may have pages in several sections (unshare(1), unshare(2)): the host settles
                # the section only where it has that section's pages (manpages-dev for section 2).
                man -w "$section" "$name" >/dev/null 2>&1 && continue
                [ -n "$(find /usr/share/man/man"$section" -maxdepth 1 -name '*.gz' -print -quit 2>/dev/null)" ] || continue
                found=$(man -w "$name" 2>/dev/null) || continue
                fail "$ref: this host has it as $found"
        done < <(grep -ohE '\*?[a-z][a-z0-9_.+-]*\*?\([1-8]\)' "${docs[@]}" | tr -d '*' | sort -u)
        assertTrue "cross-references found" "[ $n -gt 10 ]"
}

# Every command, stage and long option the programs' --help lists is in its man page.
testManPagesDocumentWhatTheProgramsHelpLists() {
        local bin="$SRC/build/bin" man1="$TOP/packaging/man/oci-seccomp-tsync.1.scd"
        local init1="$TOP/packaging/man/seccomp-tsync-init.1.scd" cmd opt code
        local cmds
        cmds=$("$bin/oci-seccomp-tsync" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
        # Exactly the commands main.c dispatches: --help's parse missed none.
        assertEquals "commands in --help" "$(grep -cE '^        \{ "[a-z]+", cmd_' "$TOP/hook/cli/main.c")" \
                "$(echo "$cmds" | wc -l)"
        for cmd in $cmds; do
                grep -q "^\*$cmd\* " "$man1" || fail "oci-seccomp-tsync(1) does not describe '$cmd'"
                for opt in $("$bin/oci-seccomp-tsync" "$cmd" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
                        grep -qE -- "(\*|, )$opt(\*| )" "$man1" || fail "oci-seccomp-tsync(1) does not describe $cmd $opt"
                done
        done
        for cmd in precreate prestart createRuntime poststop; do
                "$bin/oci-seccomp-tsync" hook --help | grep -qw "$cmd" || fail "hook --help has no stage $cmd"
                grep -q "\*$cmd\*" "$man1" || fail "oci-seccomp-tsync(1) does not describe the stage $cmd"
        done
        for code in $(sed -n 's/^[[:space:]]*CLI_EXIT_[A-Z]* = \([0-9]*\),.*/\1/p' "$TOP/hook/cli/cli.h"); do
                grep -q "^\*$code\*$" "$man1" || fail "oci-seccomp-tsync(1) does not list exit status $code"
        done
        for opt in $("$bin/seccomp-tsync-init" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
                grep -qE -- "(\*|, )$opt(\*| )" "$init1" || fail "seccomp-tsync-init(1) does not describe $opt"
        done
        local codes
        codes=$("$bin/seccomp-tsync-init" --help | sed -n 's/^  \(1[2-9][0-9]\)  .*/\1/p')
        assertEquals "exit codes in the init's --help" 7 "$(echo "$codes" | wc -l)"
        for code in $codes; do
                grep -q "^\*$code\*$" "$init1" || fail "seccomp-tsync-init(1) does not list exit status $code"
        done
}

# --- dist and the packages ----------------------------------------------------------------------

testDistHoldsExactlyTheTrackedFilesAndIsReproducible() {
        scons_in_copy dist || fail "scons dist"
        local tarball="$SRC/build/$PKG-$VERSION.tar.gz"
        assertTrue "no $tarball" "[ -f $tarball ]"
        assertEquals "$(cd "$SRC" && git ls-files | sed "s|^|$PKG-$VERSION/|" | sort)" \
                "$(tar -tzf "$tarball" | grep -v '/$' | sort)"
        local first
        first=$(sha256sum <"$tarball")
        sleep 1
        scons_in_copy dist || fail "scons dist, again"
        assertEquals "the tarball changed between two runs" "$first" "$(sha256sum <"$tarball")"
}

testPackageVersionsAgreeWithSConstruct() {
        assertNotNull "VERSION in SConstruct" "$VERSION"
        assertEquals "debian/changelog" "$VERSION" \
                "$(dpkg-parsechangelog -l "$TOP/packaging/debian/changelog" -S Version | sed 's/-[^-]*$//')"
        assertEquals "rpm spec" "$VERSION" "$(sed -n 's/^Version:[[:space:]]*//p' "$TOP/packaging/rpm/$PKG.spec")"
}

testDebianPackageBuildsWithTheExpectedFilesAndLintianFindsNoErrors() {
        tsync_need_packaging_tools || return 0
        "$SRC/packaging/build-deb.sh" "$SUITE_TMP/debs" >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "$(tail -40 "$TSYNC_TMP/out")" 0 "$rc"
        local deb="$SUITE_TMP/debs/${PKG}_${VERSION}-1_$(dpkg --print-architecture).deb"
        assertTrue "no $deb" "[ -f $deb ]" || return
        DEB=$deb
        # exactly the install layout, plus what dh adds for Debian
        {
                expected_files /usr | sed -E 's|(/man/man[15]/.*)$|\1.gz|'
                printf '%s\n' /usr/share/doc/$PKG/README.md.gz /usr/share/doc/$PKG/changelog.Debian.gz \
                        /usr/share/doc/$PKG/copyright /usr/share/lintian/overrides/$PKG
                # The pages README.md links (debian/docs), compressed by dh_compress above 4 KiB.
                for f in "$SRC"/docs/*.md; do
                        if [ "$(stat -c %s "$f")" -gt 4096 ]; then
                                echo "/usr/share/doc/$PKG/docs/${f##*/}.gz"
                        else
                                echo "/usr/share/doc/$PKG/docs/${f##*/}"
                        fi
                done
        } | sort >"$TSYNC_TMP/want"
        dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print substr($6, 2) }' | sort >"$TSYNC_TMP/got"
        assertEquals "$(diff "$TSYNC_TMP/want" "$TSYNC_TMP/got")" "$(cat "$TSYNC_TMP/want")" "$(cat "$TSYNC_TMP/got")"
        # Every program is static: what they carry is named in Built-Using (Policy 7.8), the
        # packaged hook is the static one, and the packaged init is musl's (the default musl_init).
        local built_using
        built_using=$(dpkg-deb -f "$deb" Built-Using)
        for src in glibc libseccomp musl; do
                echo "$built_using" | grep -qw "$src" || fail "Built-Using lacks $src: $built_using"
        done
        # The JSON reader and writer and the capability names are ours: yajl and libcap are the
        # tests' oracles, in no program.
        for src in yajl libcap2; do
                echo "$built_using" | grep -qw "$src" && fail "Built-Using names $src, which no program carries: $built_using"
        done
        local prog
        for prog in oci-seccomp-tsync oci-seccomp-tsync-runtime; do
                nm "$TSYNC_BUILD/bin/$prog" | grep -qiE 'yajl|cap_max_bits|libcap' && fail "$prog links yajl or libcap"
        done
        dpkg-deb -x "$deb" "$TSYNC_TMP/deb-root" || fail "dpkg-deb -x"
        assertTrue "static hook in the .deb" "_tsync_is_static $TSYNC_TMP/deb-root/usr/bin/oci-seccomp-tsync"
        assertEquals "the .deb's init" musl \
                "$(_tsync_libc "$TSYNC_TMP/deb-root/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init")"
        assertTrue "static view hook in the .deb" \
                "_tsync_is_static $TSYNC_TMP/deb-root/usr/libexec/oci-seccomp-tsync/seccomp-tsync-view-hook"
        assertEquals "the .deb's view hook" musl \
                "$(_tsync_libc "$TSYNC_TMP/deb-root/usr/libexec/oci-seccomp-tsync/seccomp-tsync-view-hook")"
        lintian --fail-on error "$deb" >"$TSYNC_TMP/lintian" 2>&1
        rc=$?
        cat "$TSYNC_TMP/lintian"
        assertEquals "lintian errors" "" "$(grep '^E: ' "$TSYNC_TMP/lintian")"
        assertEquals "lintian exit status" 0 $rc
}

testRpmBuildsFromTheDistTarball() {
        command -v rpmbuild >/dev/null || {
                startSkipping
                fail "rpmbuild is not installed (apt-get install rpm)"
                return
        }
        "$SRC/packaging/build-rpm.sh" "$SUITE_TMP/rpms" >"$TSYNC_TMP/out" 2>&1
        rc=$?
        assertEquals "$(tail -40 "$TSYNC_TMP/out")" 0 "$rc"
        local rpm
        rpm=$(ls "$SUITE_TMP"/rpms/$PKG-$VERSION-1*.rpm 2>/dev/null | head -1)
        assertNotNull "no rpm" "$rpm" || return
        {
                expected_files /usr
                echo "/usr/share/doc/$PKG-$VERSION/README.md"
                for f in "$SRC"/docs/*.md; do # %doc docs: the pages README.md links
                        echo "/usr/share/doc/$PKG-$VERSION/docs/${f##*/}"
                done
                echo "/usr/share/licenses/$PKG-$VERSION/LICENSE" # %license
        } | sort >"$TSYNC_TMP/want"
        rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$rpm" 2>/dev/null | awk '$1 ~ /^-/ { print $2 }' |
                sed -E 's/\.gz$//' | sort >"$TSYNC_TMP/got"
        assertEquals "$(diff "$TSYNC_TMP/want" "$TSYNC_TMP/got")" "$(cat "$TSYNC_TMP/want")" "$(cat "$TSYNC_TMP/got")"
}

# The package, installed with apt-get, works through its own hooks.d files, profiles and init:
# two layers by annotation stack on Podman's default profile, and one of them denies unshare.
testInstalledDebianPackageRunsAPodmanContainerThroughItsHooksFiles() {
        [ -n "$DEB" ] || {
                fail "no .deb (the package build above failed)"
                return
        }
        if dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null | grep -q "ok installed"; then
                echo "note: $PKG was installed already; it is replaced by this build and purged at the end"
        fi
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$DEB" >"$TSYNC_TMP/apt" 2>&1
        rc=$?
        assertEquals "$(cat "$TSYNC_TMP/apt")" 0 "$rc" || return
        INSTALLED_BY_US=1
        assertEquals "/usr/share/man/man1/oci-seccomp-tsync.1.gz" "$(man -w oci-seccomp-tsync 2>&1)"
        local TSYNC_APPLETS="sh grep cat unshare true tr"
        make_rootfs "$TSYNC_TMP/rootfs" || fail "make_rootfs"
        local run=(podman run --rm --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
        local probe='grep Seccomp_filters /proc/1/status | tr -d "\t"
if unshare -U true; then echo unshare: ok; else echo unshare: refused; fi'
        # What this test's containers leave in the state root (other containers may run meanwhile).
        ls -A /run/oci-seccomp-tsync 2>/dev/null | sort >"$TSYNC_TMP/state.before"
        "${run[@]}" --rootfs "$TSYNC_TMP/rootfs" /bin/sh -c "$probe" </dev/null >"$TSYNC_TMP/plain" 2>&1
        rc=$?
        assertEquals "plain run: $(cat "$TSYNC_TMP/plain")" 0 "$rc"
        # Podman splits --annotation at commas unless the value is quoted as a CSV field.
        "${run[@]}" --annotation '"io.oci-seccomp-tsync.layers=deny-ptrace,deny-namespaces"' \
                --rootfs "$TSYNC_TMP/rootfs" /bin/sh -c "$probe" </dev/null >"$TSYNC_TMP/ours" 2>&1
        rc=$?
        assertEquals "with layers: $(cat "$TSYNC_TMP/ours")" 0 "$rc"
        local plain ours
        plain=$(sed -n 's/^Seccomp_filters://p' "$TSYNC_TMP/plain")
        ours=$(sed -n 's/^Seccomp_filters://p' "$TSYNC_TMP/ours")
        assertNotNull "$(cat "$TSYNC_TMP/plain")" "$plain"
        assertEquals "filters of PID 1: $(cat "$TSYNC_TMP/ours")" "$((plain + 2))" "$ours"
        grep -q "unshare: ok" "$TSYNC_TMP/plain" || fail "the baseline already denies unshare: $(cat "$TSYNC_TMP/plain")"
        grep -q "unshare: ok" "$TSYNC_TMP/ours" && fail "deny-namespaces did not deny unshare"
        assertEquals "state left behind" "" \
                "$(ls -A /run/oci-seccomp-tsync 2>/dev/null | sort | comm -13 "$TSYNC_TMP/state.before" -)"
        purge_package
        assertFalse "purged" "[ -e /usr/bin/oci-seccomp-tsync ]"
}

. shunit2
