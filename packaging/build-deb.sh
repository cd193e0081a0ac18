#!/bin/sh
# Builds the Debian package from the tarball `scons dist` makes (the tracked
# files of this checkout), as a clean checkout would: unpack it in a temporary
# directory, put packaging/debian in place as debian/, dpkg-buildpackage.
#   packaging/build-deb.sh [--arch ARCH] [OUTDIR]   default OUTDIR: build/packages
# --arch arm64 cross-builds the arm64 package (dpkg-buildpackage -a arm64
# -Pcross; the rules run SConstruct's arch=arm64).
# Needs the Build-Depends of packaging/debian/control plus dpkg-dev and
# debhelper (tools/install-deps.sh installs them; tools/install-deps.sh --arch
# arm64 the cross build's).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cross=
if [ "${1:-}" = --arch ]; then
        [ $# -ge 2 ] || { echo "build-deb: --arch needs an architecture (arm64)" >&2; exit 2; }
        [ "$2" = "$(dpkg --print-architecture)" ] || cross="-a $2 -Pcross"
        shift 2
fi
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
        # shellcheck disable=SC2086
        DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=$(nproc)} dpkg-buildpackage -us -uc -b $cross
) >"$work/build.log" 2>&1 || {
        cat "$work/build.log" >&2
        echo "build-deb: dpkg-buildpackage failed (log above)" >&2
        exit 1
}
for f in "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo; do
        [ -e "$f" ] && cp "$f" "$out/"
done
ls "$work"/*.deb | sed "s|^$work|$out|"
