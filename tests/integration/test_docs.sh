#!/bin/bash
# The doc test: every ```sh block of README.md and docs/*.md runs, for real, and must succeed (or end
# with the status its `<!-- doc-test: exit N -->` line names), unless a `<!-- doc-test: skip: REASON -->`
# line above it says why it cannot run here; each block is one test, a skipped one is counted as
# skipped with its reason. A block the test cannot judge (no info string, an indented code block, a
# command in a text block, an unknown marker) fails, and so does a relative link or anchor between
# the pages that resolves to nothing. tests/tools/doc_blocks.py reads the markdown.
#
# The sandbox a block runs in (sandbox_run below), so that a block runs as written and leaves nothing:
# - a mount namespace of its own, where /run is a fresh tmpfs (runc's and runsc's state: a block's
#   containers are listed there alone and deleted after it), and /etc, /var and /tmp are overlays
#   whose writes go to a tmpfs (a profile written to /etc/oci-seccomp-tsync, the hook's cache, a
#   recording's directory, a bundle made in /tmp);
# - /etc/oci-seccomp-tsync/profiles holds the shipped profiles (configs/profiles), as an install
#   puts them in PREFIX/share/oci-seccomp-tsync/profiles;
# - the working directory is /run/doc-test, where configs/ is the source tree's (a copy; the pages say
#   "from the top of the source tree");
# - the variables the pages name: $BUNDLE, an OCI bundle (`runc spec`, a busybox-static rootfs,
#   noNewPrivileges true, a linux.seccomp that denies mkdir) whose process prints a line and exits;
#   for a block that names $PID or lists runc's containers, a running container (doc-test-sleeper)
#   and $PID, its host pid; for a block that runs podman, $IMAGE is `--rootfs DIR` (a busybox-static
#   rootfs: no image can be pulled here), and the sandbox's /etc/containers holds a containers.conf
#   (the limits and runtime this host needs, as docs/podman.md says; no network; our hooks.d files,
#   naming the built program, through hooks_dir, as docs/install.md says) and a storage.conf whose
#   storage lies in the test's temp dir, so that no container, image or lock of the host's Podman is
#   touched;
# - TSYNC_SYSLOG_SOCKET is empty: the blocks' lines stay out of the host's journal.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
DOC_BLOCKS="$TSYNC_TOP/tests/tools/doc_blocks.py"
tsync_need_built "$TSYNC_BUILD/bin/oci-seccomp-tsync" "$TSYNC_BUILD/bin/seccomp-tsync-init"

setUp() {
        tsync_test_begin
}

tearDown() {
        tsync_test_end
}

testEveryRelativeLinkAndAnchorResolvesAndTheReadmeIndexesEveryPage() {
        local out
        out=$(python3 "$DOC_BLOCKS" links "$TSYNC_TOP" 2>&1)
        assertEquals "links" "0:" "$?:$out"
}

testEveryCodeBlockSaysWhatItHolds() {
        local out
        out=$(python3 "$DOC_BLOCKS" blocks "$TSYNC_TOP" "$TSYNC_TMP" 2>&1)
        assertEquals "blocks" "0:" "$?:$out"
        assertTrue "shell blocks found" "[ $(find "$TSYNC_TMP" -name '*.sh' | wc -l) -gt 20 ]"
}

# CI (.ci/run) runs the test command exactly as README.md shows it.
testCiRunsTheReadmeTestCommand() {
        local cmd
        cmd=$(grep -A1 '^# The test command, exactly as README.md shows it:' "$TSYNC_TOP/.ci/run" | sed -n 2p)
        assertNotNull ".ci/run names no test command" "$cmd"
        python3 "$DOC_BLOCKS" blocks "$TSYNC_TOP" "$TSYNC_TMP" >/dev/null 2>&1
        local where
        where=$(grep -lxF -- "$cmd" "$TSYNC_TMP"/*.sh | head -1)
        assertNotNull "README.md has no block that is exactly .ci/run's '$cmd'" "$where"
        assertEquals "README.md" "$(cut -d: -f1 "${where%.sh}.where" 2>/dev/null)"
}

# The front page's command ends in the demo (its install-deps.sh and scons cannot run here): the
# demo runs, the layer reaches every thread, and our translation of Podman's profile agrees with
# runc's program.
testTheFrontPageDemoRuns() {
        grep -qxF './tools/install-deps.sh && scons && ./tools/demo.sh' "$TSYNC_TOP/README.md" ||
                fail "README.md no longer shows the demo's command: change this test with it"
        timeout -s KILL 600 "$TSYNC_TOP/tools/demo.sh" >"$TSYNC_TMP/demo" 2>&1
        last_rc=$?
        assertEquals "$(tail -20 "$TSYNC_TMP/demo")" 0 "$last_rc"
        assertTrue "a thread of the layered run whose getcwd went through: $(cat "$TSYNC_TMP/demo")" \
                "[ $(grep -c 'getcwd: errno 123' "$TSYNC_TMP/demo") -ge 6 ]"
        grep -q ': 0 differences' "$TSYNC_TMP/demo" || fail "translation differs from runc's: $(cat "$TSYNC_TMP/demo")"
}

# sandbox_run BLOCK.sh WANT: runs the block as the header says; fails unless it exits WANT.
sandbox_run() {
        local block=$1 want=$2 s=$TSYNC_TMP rc
        local w=$s/work sleeper=0 podman=0 f
        mkdir -p "$w" "$s/ovl" || return 1
        cp -r "$TSYNC_TOP/configs" "$w/configs"
        make_bundle "$w/bundle" sh -c 'echo hello from the container' || return 1
        tsync_json_edit "$w/bundle/config.json" '.process.noNewPrivileges = true
                | .linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW",
                                    syscalls: [{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_ERRNO"}]}' ||
                return 1
        cp "$block" "$w/.block.sh"
        # shellcheck disable=SC2016 # a literal $PID
        grep -qE '\$PID|runc list' "$block" && sleeper=1 && make_bundle "$w/sleeper" sleep 3600
        if grep -qE '(^|[;&|] *)podman ' "$block"; then
                podman=1
                make_rootfs "$w/rootfs" || return 1
                mkdir -p "$w/hooks.d"
                for f in "$TSYNC_TOP"/configs/hooks.d/*.json.in; do
                        f=${f##*/}
                        sed "s|@BINDIR@|$TSYNC_BUILD/bin|" "$TSYNC_TOP/configs/hooks.d/$f" >"$w/hooks.d/${f%.in}"
                done
        fi
        # The work dir is copied onto the sandbox's /run (a tmpfs) before /tmp is overlaid: a path
        # under /tmp, this test's temp dir among them, is the overlay's afterwards.
        # shellcheck disable=SC2016 # expanded by the sandbox's shell
        S=$s TOP=$TSYNC_TOP SLEEPER=$sleeper PODMAN=$podman timeout -s KILL 600 unshare -m --propagation private -- bash -c '
                set -e
                mount -t tmpfs -o mode=0700 doc-test "$S/ovl"
                for d in etc var tmp; do
                        mkdir "$S/ovl/$d.up" "$S/ovl/$d.work"
                        mount -t overlay doc-test -o "lowerdir=/$d,upperdir=$S/ovl/$d.up,workdir=$S/ovl/$d.work" "/$d"
                done
                mkdir -p /etc/oci-seccomp-tsync/profiles
                cp "$TOP"/configs/profiles/*.json /etc/oci-seccomp-tsync/profiles/
                mount -t tmpfs -o mode=0755 doc-test /run
                cp -a "$S/work" /run/doc-test
                cd /run/doc-test
                export BUNDLE=/run/doc-test/bundle TSYNC_SYSLOG_SOCKET=
                if [ "$SLEEPER" = 1 ]; then
                        runc run -d -b /run/doc-test/sleeper doc-test-sleeper </dev/null >/run/doc-test/sleeper.log 2>&1
                        PID=$(runc state doc-test-sleeper | jq -r .pid)
                        export PID
                fi
                if [ "$PODMAN" = 1 ]; then
                        mkdir -p /etc/containers
                        printf "%s\n" "[containers]" "default_ulimits = [\"nofile=1024:1024\", \"nproc=1024:1024\"]" \
                                "netns = \"none\"" "[engine]" "runtime = \"runc\"" "cgroup_manager = \"cgroupfs\"" \
                                "events_logger = \"file\"" "hooks_dir = [\"/run/doc-test/hooks.d\"]" \
                                >/etc/containers/containers.conf
                        printf "%s\n" "[storage]" "driver = \"vfs\"" "graphroot = \"/run/doc-test/storage\"" \
                                "runroot = \"/run/containers/storage\"" >/etc/containers/storage.conf
                        export IMAGE="--rootfs /run/doc-test/rootfs"
                fi
                set +e
                # Not /dev/null: runsc and crun fchown their stdio to the user of the container (lib.sh).
                bash -e -o pipefail .block.sh < <(:)
                rc=$?
                [ "$PODMAN" = 1 ] && podman rm --all --force --time 0 >/dev/null 2>&1
                for id in $(runc list -q 2>/dev/null); do
                        runc kill "$id" KILL >/dev/null 2>&1
                        runc delete --force "$id" >/dev/null 2>&1
                done
                if [ -d /run/runsc ]; then
                        for id in $(runsc list -q 2>/dev/null); do
                                runsc delete --force "$id" >/dev/null 2>&1
                        done
                fi
                exit $rc
        ' >"$s/out" 2>&1
        rc=$?
        cat "$s/out"
        assertEquals "exit status of the block (its output is above)" "$want" "$rc"
}

# One test per shell block, testBlock_<page>_<line>, in the order of the pages.
suite() {
        local dir f name where
        dir=$(mktemp -d "${TMPDIR:-/tmp}/tsync-docs.XXXXXX") || return 1
        python3 "$DOC_BLOCKS" blocks "$TSYNC_TOP" "$dir" >/dev/null 2>&1
        for f in "$dir"/*.sh; do
                [ -e "$f" ] || continue
                where=$(cat "${f%.sh}.where")
                name=testBlock_$(echo "$where" | sed 's|^docs/||; s|\.md:|_|; s|[^A-Za-z0-9_]|_|g')
                if [ -e "${f%.sh}.skip" ]; then
                        eval "$name() { echo \"SKIP $where: \$(cat $(printf %q "${f%.sh}.skip"))\"; startSkipping; fail \"$where\"; }"
                else
                        eval "$name() { echo \"RUN $where:\"; cat $(printf %q "$f") | sed 's/^/    \$ /'; sandbox_run $(printf %q "$f") \$(cat $(printf %q "${f%.sh}.exit")); }"
                fi
                suite_addTest "$name"
        done
        suite_addTest testEveryRelativeLinkAndAnchorResolvesAndTheReadmeIndexesEveryPage
        suite_addTest testEveryCodeBlockSaysWhatItHolds
        suite_addTest testCiRunsTheReadmeTestCommand
        suite_addTest testTheFrontPageDemoRuns
        DOC_TMP=$dir
}

oneTimeTearDown() {
        [ -z "$DOC_TMP" ] || rm -rf -- "$DOC_TMP"
}

. shunit2
