#!/bin/bash
# The arm64 build against a real aarch64 kernel (issue 38): Debian's arm64 cloud kernel boots under
# qemu-system-aarch64 (TCG, 2 CPUs; about 10 s from start to power-off here) with an initramfs this
# suite makes from build/arm64/bin and busybox-static:arm64. In the VM, the arm64 oci-seccomp-tsync
# compiles tests/integration/profiles/deny-mkdir.json, the arm64 seccomp-tsync-init runs as PID 1
# of a new pid namespace with that filter, and its workload (busybox sh) reports the init's threads
# and its own from /proc and tries mkdir; then `oci-seccomp-tsync lockdown` refuses, as it does on
# aarch64. One boot serves every test. Skipped, saying what is missing, without build/arm64
# (scons arch=arm64), qemu-system-aarch64 (tools/install-deps.sh --arch arm64), the host's busybox
# (its cpio makes the initramfs), or an arm64 kernel or busybox that apt-get download can fetch.
# What apt fetched is kept in $TSYNC_VM_CACHE (default /var/cache/oci-seccomp-tsync-test/arm64;
# remove it to fetch the current packages again).
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$HERE/lib.sh"
BIN=$TSYNC_BUILD/arm64/bin
CACHE=${TSYNC_VM_CACHE:-/var/cache/oci-seccomp-tsync-test/arm64}
PROFILE=$TSYNC_TOP/tests/integration/profiles/deny-mkdir.json
# The kernel: whatever Debian's cloud flavour depends on now (PL011 console, initramfs, PSCI
# power-off and seccomp are built in, so no module is needed).
KERNEL_META=linux-image-cloud-arm64:arm64
BOOT_TIMEOUT=300
LOCKDOWN_REFUSAL="oci-seccomp-tsync: lockdown: not supported on aarch64 yet: the syscall injection is written for x86_64 only"

# The VM's /init: every line worth reading starts with "@@ ", between "@@ BEGIN" and "@@ END".
# The workload exits 7, which the init passes through when it started it.
# shellcheck disable=SC2016 # expanded in the VM
VM_INIT='#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t tmpfs tmp /tmp
echo "@@ BEGIN"
echo "@@ uname $(uname -m)"
echo "@@ cpus $(nproc)"
oci-seccomp-tsync compile -O tsync /deny-mkdir.json -o /tmp/deny-mkdir.tsync 2>&1 | sed "s/^/@@ compile-out /"
[ -s /tmp/deny-mkdir.tsync ] && echo "@@ compiled yes"
unshare -p -f --mount-proc seccomp-tsync-init -f /tmp/deny-mkdir.tsync -- sh -c "
grep -H -E \"^(Name|Seccomp|Seccomp_filters):\" /proc/1/task/*/status | sed \"s/^/@@ init-thread /\"
grep -E \"^(Seccomp|Seccomp_filters):\" /proc/self/status | sed \"s/^/@@ workload /\"
mkdir /tmp/denied 2>&1 | sed \"s/^/@@ mkdir /\"
[ -d /tmp/denied ] && echo \"@@ mkdir made /tmp/denied\"
exit 7" 2>/tmp/init.err
echo "@@ init $?"
sed "s/^/@@ init-out /" /tmp/init.err
oci-seccomp-tsync lockdown --layers default --pid 1 >/tmp/lockdown.out 2>/tmp/lockdown.err
echo "@@ lockdown $?"
sed "s/^/@@ lockdown-stdout /" /tmp/lockdown.out
sed "s/^/@@ lockdown-stderr /" /tmp/lockdown.err
echo "@@ END"
poweroff -f
'

oneTimeSetUp() {
        SUITE_TMP=$(mktemp -d "${TMPDIR:-/tmp}/tsync-vm.XXXXXX") || return 1
        MISSING=
        BOOT_ERROR=
        if [ ! -x "$BIN/seccomp-tsync-init" ] || [ ! -x "$BIN/oci-seccomp-tsync" ]; then
                MISSING="the arm64 build ($BIN has no seccomp-tsync-init or oci-seccomp-tsync: scons arch=arm64)"
        elif ! command -v qemu-system-aarch64 >/dev/null; then
                MISSING="qemu-system-aarch64 (tools/install-deps.sh --arch arm64)"
        elif ! "$TSYNC_BUSYBOX" cpio --help >/dev/null 2>&1; then
                MISSING="$TSYNC_BUSYBOX cpio, which makes the initramfs (apt-get install busybox-static)"
        elif ! cached vmlinuz "$(kernel_package)" boot/vmlinuz-; then
                MISSING="an arm64 kernel: $FETCH_ERROR"
        elif ! cached busybox busybox-static:arm64 bin/busybox; then
                MISSING="busybox for arm64: $FETCH_ERROR"
        fi
        if [ -n "$MISSING" ]; then
                # run_tests.py shows a skipped suite's lines that say "skipped".
                echo "  skipped: no aarch64 VM: missing $MISSING"
                return 0
        fi
        make_initramfs "$SUITE_TMP/initrd.cpio.gz" || {
                BOOT_ERROR="the initramfs could not be made"
                return 0
        }
        boot
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

# kernel_package: the arm64 kernel package the cloud flavour's meta-package depends on now.
kernel_package() {
        apt-cache depends "$KERNEL_META" 2>/dev/null |
                sed -n 's/^ *Depends: \(linux-image-[^ ]*\).*/\1/p' | head -n 1
}

# cached NAME PACKAGE PATH: $CACHE/NAME exists, or is PATH (a prefix of a path in the package)
# taken from PACKAGE, which apt-get download fetches. Non-zero with FETCH_ERROR set when not.
cached() {
        local name=$1 pkg=$2 path=$3 dir file
        [ -s "$CACHE/$name" ] && return 0
        if [ -z "$pkg" ]; then
                FETCH_ERROR="apt knows no $KERNEL_META (dpkg --add-architecture arm64; apt-get update)"
                return 1
        fi
        dir="$SUITE_TMP/fetch-$name"
        mkdir -p "$dir" "$CACHE" || {
                FETCH_ERROR="cannot make $dir or $CACHE"
                return 1
        }
        # As root apt-get would hand the download to _apt, who cannot write into our temp dir.
        if ! (cd "$dir" && apt-get download -q -o APT::Sandbox::User=root "$pkg") >"$dir/log" 2>&1; then
                FETCH_ERROR="apt-get download $pkg failed: $(tail -n 1 "$dir/log")"
                return 1
        fi
        dpkg-deb -x "$dir"/*.deb "$dir/root" 2>"$dir/log" || {
                FETCH_ERROR="dpkg-deb -x of $pkg failed: $(cat "$dir/log")"
                return 1
        }
        for file in "$dir/root/$path"*; do
                break
        done
        if [ ! -s "$file" ]; then
                FETCH_ERROR="$pkg holds no /$path"
                return 1
        fi
        # Whole or not at all: a later run reads what is there.
        if ! cp "$file" "$CACHE/$name.new" || ! mv "$CACHE/$name.new" "$CACHE/$name"; then
                FETCH_ERROR="cannot write $CACHE/$name"
                return 1
        fi
        basename "$dir"/*.deb >"$CACHE/$name.source"
}

# make_initramfs FILE: a gzipped newc cpio of busybox, the arm64 programs, the profile and /init.
make_initramfs() {
        local root="$SUITE_TMP/root" a
        mkdir -p "$root/bin" "$root/proc" "$root/tmp" "$root/dev" || return 1
        cp "$CACHE/busybox" "$BIN/seccomp-tsync-init" "$BIN/oci-seccomp-tsync" "$root/bin/" || return 1
        chmod 755 "$root/bin/busybox"
        for a in sh mount mkdir grep sed nproc uname unshare poweroff; do
                ln -s busybox "$root/bin/$a" || return 1
        done
        cp "$PROFILE" "$root/deny-mkdir.json" || return 1
        printf '%s' "$VM_INIT" >"$root/init" && chmod 755 "$root/init" || return 1
        (cd "$root" && find . | "$TSYNC_BUSYBOX" cpio -o -H newc 2>/dev/null) | gzip -1 >"$1"
}

# boot: the VM runs /init and powers off; $SUITE_TMP/console holds its console, RESULT the "@@"
# lines between the markers (without "@@ "), BOOT_SECONDS how long it took; BOOT_ERROR says why
# there is no RESULT.
boot() {
        local start rc
        start=$(date +%s)
        timeout -s KILL "$BOOT_TIMEOUT" qemu-system-aarch64 -M virt -cpu max -smp 2 -m 512 -nographic -nic none \
                -no-reboot -kernel "$CACHE/vmlinuz" -initrd "$SUITE_TMP/initrd.cpio.gz" \
                -append 'console=ttyAMA0 panic=-1 quiet' </dev/null >"$SUITE_TMP/console" 2>&1
        rc=$?
        BOOT_SECONDS=$(($(date +%s) - start))
        tr -d '\r' <"$SUITE_TMP/console" >"$SUITE_TMP/console.txt"
        RESULT=$(sed -n '/^@@ BEGIN$/,/^@@ END$/s/^@@ //p' "$SUITE_TMP/console.txt")
        echo "booted $(cat "$CACHE/vmlinuz.source") in ${BOOT_SECONDS}s"
        if [ "$rc" -eq 137 ]; then
                BOOT_ERROR="the VM was still running after ${BOOT_TIMEOUT}s"
        elif [ "$rc" -ne 0 ]; then
                BOOT_ERROR="qemu-system-aarch64 exited $rc after ${BOOT_SECONDS}s"
        elif ! echo "$RESULT" | grep -qx END; then
                BOOT_ERROR="the VM powered off before /init's end"
        fi
        [ -z "$BOOT_ERROR" ] || BOOT_ERROR="$BOOT_ERROR; its console's end: $(tail -n 30 "$SUITE_TMP/console.txt")"
}

# need_vm || return 0: each test's first line. Skipped without the means to boot (oneTimeSetUp
# said what is missing); failed, saying why, when the VM did not run /init to its end.
need_vm() {
        if [ -n "$MISSING" ]; then
                startSkipping
                fail "no aarch64 VM: missing $MISSING"
                return 1
        fi
        if [ -n "$BOOT_ERROR" ]; then
                fail "$BOOT_ERROR"
                return 1
        fi
}

# result KEY: the values of RESULT's lines "KEY value", one a line.
result() {
        echo "$RESULT" | sed -n "s/^$1 //p"
}

testTheVmRunsAnAarch64KernelOnTwoCpus() {
        need_vm || return 0
        assertEquals "uname -m" aarch64 "$(result uname)"
        assertEquals "CPUs" 2 "$(result cpus)"
        assertEquals "the arm64 compile printed: $(result compile-out)" "" "$(result compile-out)"
        assertEquals "the arm64 compile wrote a filter" yes "$(result compiled)"
}

testTheInitLoadedTheFilterOnEachOfItsThreadsAndStartedTheWorkload() {
        need_vm || return 0
        local threads
        threads=$(result init-thread)
        # The init refuses (125) when its proof fails; 7 is the workload's own status.
        assertEquals "the init's status (it said: $(result init-out))" 7 "$(result init)"
        assertEquals "the init said: $(result init-out)" "" "$(result init-out)"
        # Its main thread and its signal thread, both in filter mode with the one filter.
        assertEquals "$threads" 2 "$(echo "$threads" | grep -c ':Name:')"
        echo "$threads" | grep -q ':Name:.tsync-signals$' || fail "no signal thread: $threads"
        assertEquals "$threads" 2 "$(echo "$threads" | grep -c -P ':Seccomp:\t2$')"
        assertEquals "$threads" 2 "$(echo "$threads" | grep -c -P ':Seccomp_filters:\t1$')"
}

testMkdirIsDeniedWithTheProfilesErrnoInTheWorkload() {
        need_vm || return 0
        assertEquals "the workload's filters" "$(printf 'Seccomp:\t2\nSeccomp_filters:\t1')" "$(result workload)"
        # errnoRet 122: EDQUOT, the same number on aarch64 (its mkdir is mkdirat).
        assertEquals "mkdir: can't create directory '/tmp/denied': Disk quota exceeded" "$(result mkdir)"
}

testLockdownRefusesAarch64ByNameInOneLineOnAnAarch64Kernel() {
        need_vm || return 0
        assertEquals "lockdown's status" 1 "$(result lockdown)"
        assertEquals "lockdown's stdout" "" "$(result lockdown-stdout)"
        assertEquals "lockdown's stderr" "$LOCKDOWN_REFUSAL" "$(result lockdown-stderr)"
}

. shunit2
