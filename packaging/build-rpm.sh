#!/bin/sh
# Builds the RPM from the tarball `scons dist` makes, with rpmbuild in a
# temporary _topdir.
#   packaging/build-rpm.sh [OUTDIR]      default OUTDIR: build/packages
# --nodeps: on Debian the build dependencies are Debian packages that the rpm
# database does not know; they are the ones packaging/debian/control names.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/packages}
mkdir -p "$out"
out=$(cd "$out" && pwd)

version=$(sed -n "s/^VERSION = '\(.*\)'$/\1/p" "$top/SConstruct")
[ -n "$version" ] || { echo "build-rpm: no VERSION in SConstruct" >&2; exit 1; }
(cd "$top" && scons -Q dist) >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/tsync-rpm.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/SOURCES"
cp "$top/build/oci-seccomp-tsync-$version.tar.gz" "$work/SOURCES/"
rpmbuild --define "_topdir $work" --define "_smp_mflags -j$(nproc)" --nodeps \
        -bb "$top/packaging/rpm/oci-seccomp-tsync.spec" >"$work/build.log" 2>&1 || {
        cat "$work/build.log" >&2
        echo "build-rpm: rpmbuild failed (log above)" >&2
        exit 1
}
find "$work/RPMS" -name '*.rpm' -exec cp {} "$out/" \;
find "$work/RPMS" -name '*.rpm' -printf "$out/%f\n"
