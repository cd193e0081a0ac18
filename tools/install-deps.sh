#!/bin/sh
# Installs everything the build, the tests and the demo need on Debian 12 (run as root).
#   tools/install-deps.sh               the native (x86_64) build and every test
#   tools/install-deps.sh --arch arm64  also the cross build for arm64 (scons arch=arm64): Debian's
#                                       cross toolchain, the arm64 libraries (multiarch) and
#                                       qemu-user, which runs its unit tests (scons arch=arm64 check-unit)
set -eu
export DEBIAN_FRONTEND=noninteractive
arch=
while [ $# -gt 0 ]; do
        case $1 in
        --arch) [ $# -ge 2 ] || { echo "install-deps: --arch needs an architecture (arm64)" >&2; exit 2; }
                arch=$2; shift 2 ;;
        --arch=*) arch=${1#--arch=}; shift ;;
        *) echo "install-deps: unknown option '$1' (--arch arm64)" >&2; exit 2 ;;
        esac
done
packages="
  gcc libc6-dev pkg-config scons musl-tools
  libseccomp-dev libyajl-dev libcap-dev seccomp
  python3 python3-jsonschema jq shunit2
  busybox-static runc crun runsc podman golang-github-containers-common uidmap
  scdoc groff-base man-db bash-completion git build-essential dpkg-dev debhelper lintian rpm
  valgrind clang clang-format libclang-rt-14-dev catatonit time
  docker.io containerd python3-yaml python3-grpcio python3-grpc-tools
"
case $arch in
"") ;;
arm64)
        # Multiarch: the arm64 libraries install beside the host's (/usr/lib/aarch64-linux-gnu);
        # musl-dev:arm64 brings /usr/lib/aarch64-linux-musl/musl-gcc.specs, which the cross gcc
        # drives as musl-gcc drives the host's (SConstruct's musl_init). binutils-aarch64-linux-gnu
        # comes with the compiler; the host's readelf and nm read aarch64 ELF files as well.
        # qemu-system-arm (qemu-system-aarch64) boots Debian's arm64 kernel for
        # test_aarch64_vm.sh, which fetches that kernel and busybox-static:arm64 itself.
        dpkg --print-foreign-architectures | grep -qx arm64 || { dpkg --add-architecture arm64 && apt-get update -qq; }
        packages="$packages
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross crossbuild-essential-arm64
  libc6-dev:arm64 libseccomp-dev:arm64 libyajl-dev:arm64 libcap-dev:arm64 musl-dev:arm64 linux-libc-dev:arm64
  qemu-user-static qemu-system-arm
"
        ;;
*) echo "install-deps: --arch $arch: only arm64 is built besides the host's architecture" >&2; exit 2 ;;
esac
missing=""
for p in $packages; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $missing
fi
