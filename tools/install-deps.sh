#!/bin/sh
# Installs everything the build, the tests and the demo need on Debian 12 (run as root).
set -eu
export DEBIAN_FRONTEND=noninteractive
packages="
  gcc libc6-dev pkg-config scons musl-tools
  libseccomp-dev libyajl-dev libcap-dev seccomp
  python3 python3-jsonschema jq shunit2
  busybox-static runc crun runsc podman golang-github-containers-common uidmap
  scdoc groff-base man-db bash-completion git build-essential dpkg-dev debhelper lintian rpm
  valgrind clang clang-format libclang-rt-14-dev catatonit
  docker.io containerd python3-yaml python3-grpcio python3-grpc-tools
"
missing=""
for p in $packages; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $missing
fi
