#!/bin/sh
# Builds the Debian package from the tarball `scons dist` makes (the tracked
# files of this checkout), as a clean checkout would: unpack it in a temporary
# directory, put packaging/debian in place as debian/, dpkg-buildpackage.
#   packaging/build-deb.sh [OUTDIR]      default OUTDIR: build/packages
# Needs the Build-Depends of packaging/debian/control plus dpkg-dev and
# debhelper (tools/install-deps.sh installs them).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/packages}
mkdir -p "$out"
out=$(cd "$out" && pwd)

version=$(sed -n "s/^VERSION = '\(.*\)'$/\1/p" "$top/SConstruct")
[ -n "$version" ] || { echo "build-deb: no VERSION in SConstruct" >&2; exit 1; }
(cd "$top" && scons -Q dist) >/dev/null
tarball="$top/build/oci-seccomp-tsync-$version.tar.gz"

work=$(mktemp -d "${TMPDIR:-/tmp}/tsync-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -xzf "$tarball" -C "$work"
src="$work/oci-seccomp-tsync-$version"
cp -r "$src/packaging/debian" "$src/debian"
(
        cd "$src"
        DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=$(nproc)} dpkg-buildpackage -us -uc -b
) >"$work/build.log" 2>&1 || {
        cat "$work/build.log" >&2
        echo "build-deb: dpkg-buildpackage failed (log above)" >&2
        exit 1
}
for f in "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo; do
        [ -e "$f" ] && cp "$f" "$out/"
done
ls "$work"/*.deb | sed "s|^$work|$out|"
