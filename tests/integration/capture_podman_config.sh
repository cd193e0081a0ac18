#!/bin/bash
# capture_podman_config.sh [--runtime runc|crun] [--keep] OUTFILE
#
# Writes to OUTFILE the config.json that a real `podman run` hands its OCI
# runtime, with Podman's own default seccomp profile (containers-common's
# seccomp.json) in linux.seccomp. No image is pulled: the container runs
# `sh -c :` from a busybox rootfs given with --rootfs. Podman keeps the file in
# the container's userdata dir (podman inspect's OCIConfigPath, e.g.
# /var/lib/containers/storage/overlay-containers/ID/userdata/config.json).
#
# --runtime runc (default): Podman drives runc with the cgroupfs manager.
# --runtime crun: Podman runs inside a mount namespace with cgroup2 alone on
#   /sys/fs/cgroup and --cgroups=disabled (crun refuses this hybrid host).
# --keep: leave the exited container and print its config.json path too.
#
# Fails (exit 1) unless linux.seccomp looks like the default profile:
# defaultAction SCMP_ACT_ERRNO and more than 300 syscall names.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
        echo "usage: $0 [--runtime runc|crun] [--keep] OUTFILE" >&2
        exit 2
}

runtime=runc
keep_container=false
out=
while [ $# -gt 0 ]; do
        case "$1" in
        --runtime)
                [ $# -ge 2 ] || usage
                runtime=$2
                shift 2
                ;;
        --keep)
                keep_container=true
                shift
                ;;
        -*) usage ;;
        *)
                [ -z "${out}" ] || usage
                out=$1
                shift
                ;;
        esac
done
[ -n "${out}" ] || usage
case "${runtime}" in runc | crun) ;; *) usage ;; esac

fail() {
        echo "capture_podman_config.sh: $*" >&2
        exit 1
}

name=tsync-podman-$$-${RANDOM}${RANDOM}
# shellcheck disable=SC2317 # called from the EXIT trap
remove_container() {
        podman rm --force "${name}" >/dev/null 2>&1
        return 0
}

tsync_test_begin || exit 1
tsync_cleanup_on_exit
${keep_container} || trap 'remove_container; tsync_test_end' EXIT

make_rootfs "${TSYNC_TMP}/rootfs" || fail "cannot make the rootfs"

# The --ulimit values stay under this host's hard limits: we lack
# CAP_SYS_RESOURCE, and Podman's defaults (nofile 1048576) would fail.
opts=(--name "${name}" --ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
if [ "${runtime}" = runc ]; then
        podman --cgroup-manager=cgroupfs run --runtime runc "${opts[@]}" --rootfs "${TSYNC_TMP}/rootfs" sh -c : \
                </dev/null >"${TSYNC_TMP}/podman.log" 2>&1
else
        unshare -m --propagation private -- sh -c \
                'mount -t cgroup2 none /sys/fs/cgroup && exec podman "$@"' podman \
                --cgroup-manager=cgroupfs run --cgroups=disabled --runtime crun "${opts[@]}" --rootfs "${TSYNC_TMP}/rootfs" sh -c : \
                </dev/null >"${TSYNC_TMP}/podman.log" 2>&1
fi
rc=$?
[ "${rc}" -eq 0 ] || fail "podman run --runtime ${runtime} failed (${rc}): $(tail -n 3 "${TSYNC_TMP}/podman.log")"

config=$(podman container inspect --format '{{.OCIConfigPath}}' "${name}") || fail "podman inspect ${name} failed"
[ -f "${config}" ] || fail "${config}: no such file"

names=$(jq '[.linux.seccomp.syscalls[]?.names[]?] | length' "${config}") || fail "${config}: not JSON"
action=$(jq -r '.linux.seccomp.defaultAction // "none"' "${config}")
[ "${action}" = SCMP_ACT_ERRNO ] || fail "${config}: linux.seccomp.defaultAction is ${action}, not SCMP_ACT_ERRNO"
[ "${names}" -gt 300 ] || fail "${config}: linux.seccomp names only ${names} syscalls"

cp -- "${config}" "${out}" || fail "cannot write ${out}"
${keep_container} && echo "${config}"
exit 0
