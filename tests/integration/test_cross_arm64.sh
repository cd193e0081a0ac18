#!/bin/bash
# The arm64 cross build (issue 38), in a copy of the tree: `scons arch=arm64` puts aarch64 programs
# in build/arm64/bin, the init static and musl's, the hook and the runtime wrapper static-pie; the
# hook, run under qemu-user, refuses lockdown on aarch64 by name in one line; packaging/build-deb.sh
# --arch arm64 builds the arm64 .deb and lintian finds no error in it. Without the cross toolchain
# (tools/install-deps.sh --arch arm64) each test is skipped, saying what is missing. Nothing here
# runs against an aarch64 kernel: the unit tests under qemu-user are `scons arch=arm64 check-unit`.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
TOP=$TSYNC_TOP
PKG=oci-seccomp-tsync
PROGRAMS="oci-seccomp-tsync oci-seccomp-tsync-runtime seccomp-tsync-init seccomp-tsync-view-hook"

oneTimeSetUp() {
        SUITE_TMP=$(mktemp -d "${TMPDIR:-/tmp}/tsync-cross.XXXXXX")
        SRC="$SUITE_TMP/src"
        BIN="$SRC/build/arm64/bin"
        VERSION=$(sed -n "s/^VERSION = '\(.*\)'$/\1/p" "$TOP/SConstruct")
        MISSING=
        local tool
        for tool in aarch64-linux-gnu-gcc aarch64-linux-musl-gcc qemu-aarch64-static readelf; do
                command -v "$tool" >/dev/null || MISSING="$MISSING $tool"
        done
        [ -z "$MISSING" ] || return 0
        tsync_copy_tree "$SRC" || return 1
        # The programs alone: the unit tests are check-unit's.
        if ! (cd "$SRC" && scons -Q arch=arm64 build/arm64/bin) >"$SUITE_TMP/scons.log" 2>&1; then
                cat "$SUITE_TMP/scons.log"
                echo "scons arch=arm64 failed in the copy of the tree"
                return 1
        fi
}

oneTimeTearDown() {
        rm -rf "$SUITE_TMP"
}

setUp() {
        tsync_test_begin
}

tearDown() {
        tsync_test_end
}

# need_cross || return 0: each test's first line; without the cross toolchain the test is skipped,
# saying what is missing, and runs nothing.
need_cross() {
        [ -z "$MISSING" ] && return 0
        startSkipping
        fail "the cross toolchain is not installed (missing:$MISSING; tools/install-deps.sh --arch arm64)"
        return 1
}

# elf_field FILE FIELD: FIELD's value in readelf -h (Class, Machine, Type).
elf_field() {
        LC_ALL=C readelf -hW "$1" | sed -n "s/^ *$2: *//p"
}

# has_interp FILE: whether FILE asks for a program interpreter (a dynamic loader).
has_interp() {
        LC_ALL=C readelf -lW "$1" | grep -q 'INTERP'
}

testEveryProgramOfTheArm64BuildIsAnAarch64Elf() {
        need_cross || return 0
        local p
        for p in $PROGRAMS; do
                assertTrue "$p is built" "[ -x $BIN/$p ]" || continue
                assertEquals "$p's class" ELF64 "$(elf_field "$BIN/$p" Class)"
                assertEquals "$p's machine" AArch64 "$(elf_field "$BIN/$p" Machine)"
        done
        assertEquals "build/arm64/bin holds the programs and nothing else" \
                "$(printf '%s\n' $PROGRAMS | sort)" "$(ls "$BIN" | sort)"
}

testTheArm64InitIsStaticAndMusls() {
        need_cross || return 0
        local init=$BIN/seccomp-tsync-init
        assertFalse "the init asks for no dynamic loader" "has_interp $init"
        assertEquals "the init is an executable, not a PIE" "EXEC (Executable file)" "$(elf_field "$init" Type)"
        # glibc leaves its ABI-tag note and "glibc" strings in every static program; musl neither.
        assertFalse "no glibc ABI tag in the init" "LC_ALL=C readelf -nW $init | grep -q NT_GNU_ABI_TAG"
        assertFalse "no glibc in the init" "grep -qai glibc $init"
}

testTheArm64HookAndRuntimeAreStaticPie() {
        need_cross || return 0
        local p
        for p in oci-seccomp-tsync oci-seccomp-tsync-runtime; do
                assertFalse "$p asks for no dynamic loader" "has_interp $BIN/$p"
                assertEquals "$p is position-independent" "DYN (Position-Independent Executable file)" \
                        "$(elf_field "$BIN/$p" Type)"
        done
}

testLockdownRefusesAarch64ByNameInOneLine() {
        need_cross || return 0
        qemu-aarch64-static "$BIN/oci-seccomp-tsync" lockdown --layers default --pid 1 >"$TSYNC_TMP/out" 2>"$TSYNC_TMP/err"
        assertEquals "exit status" 1 $?
        assertEquals "stdout" "" "$(cat "$TSYNC_TMP/out")"
        assertEquals "oci-seccomp-tsync: lockdown: not supported on aarch64 yet: the syscall injection is written for x86_64 only" \
                "$(cat "$TSYNC_TMP/err")"
}

testTheArm64DebianPackageBuildsAndLintianFindsNoErrors() {
        need_cross || return 0
        tsync_need_packaging_tools || return 0
        "$SRC/packaging/build-deb.sh" --arch arm64 "$SUITE_TMP/debs" >"$TSYNC_TMP/out" 2>&1
        local rc=$?
        assertEquals "$(tail -40 "$TSYNC_TMP/out")" 0 "$rc"
        local deb="$SUITE_TMP/debs/${PKG}_${VERSION}-1_arm64.deb"
        assertTrue "no $deb" "[ -f $deb ]" || return
        assertEquals "its Architecture" arm64 "$(dpkg-deb -f "$deb" Architecture)"
        dpkg-deb -x "$deb" "$TSYNC_TMP/root" || fail "dpkg-deb -x"
        local f
        for f in usr/bin/oci-seccomp-tsync usr/bin/oci-seccomp-tsync-runtime \
                usr/libexec/oci-seccomp-tsync/seccomp-tsync-init usr/libexec/oci-seccomp-tsync/seccomp-tsync-view-hook; do
                assertEquals "$f's machine" AArch64 "$(elf_field "$TSYNC_TMP/root/$f" Machine)"
                assertFalse "$f asks for no dynamic loader" "has_interp $TSYNC_TMP/root/$f"
        done
        # Every program is static: the sources of what they carry, the cross toolchain's libc too.
        local built_using src
        built_using=$(dpkg-deb -f "$deb" Built-Using)
        for src in cross-toolchain-base libseccomp musl; do
                echo "$built_using" | grep -qw -- "$src" || fail "Built-Using lacks $src: $built_using"
        done
        lintian --fail-on error "$deb" >"$TSYNC_TMP/lintian" 2>&1
        local rc=$?
        cat "$TSYNC_TMP/lintian"
        assertEquals "lintian errors" "" "$(grep '^E: ' "$TSYNC_TMP/lintian")"
        assertEquals "lintian exit status" 0 $rc
}

. shunit2
