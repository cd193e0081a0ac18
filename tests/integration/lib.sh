# Helpers for the integration suites (bash; sourced by tests/integration/test_*.sh
# and capture_podman_config.sh). Needs root, runc, crun, jq, busybox-static.
#
# Temp dirs and containers belong to one test:
#   shunit2 suites:     setUp() { tsync_test_begin; }  tearDown() { tsync_test_end; }
#                       (shunit2 owns the EXIT/INT/TERM traps and calls tearDown from them)
#   standalone scripts: tsync_test_begin; tsync_cleanup_on_exit
# tsync_test_end kills and deletes every container the helpers started and
# removes $TSYNC_TMP, so an interrupted test leaves nothing running.
#
# Functions return non-zero and print one "lib.sh: ..." line on stderr on failure.

TSYNC_TOP=${TSYNC_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
TSYNC_BUILD=${TSYNC_BUILD:-$TSYNC_TOP/build}
TSYNC_TOOLS=${TSYNC_TOOLS:-$TSYNC_BUILD/tests/tools}
TSYNC_BUSYBOX=${TSYNC_BUSYBOX:-/bin/busybox}
TSYNC_APPLETS="sh sleep cat mkdir ls touch echo"
TSYNC_TMP=${TSYNC_TMP:-}
# "runtime id" pairs of the containers to remove at tsync_test_end; the runtime runc, crun, runsc,
# or runc:ROOT / crun:ROOT for a state root of the test's own.
TSYNC_CONTAINERS=()

tsync_log() {
        echo "lib.sh: $*" >&2
}

tsync_test_begin() {
        TSYNC_TMP=$(mktemp -d "${TMPDIR:-/tmp}/tsync-it.XXXXXX") || {
                tsync_log "mktemp failed"
                return 1
        }
        TSYNC_CONTAINERS=()
}

tsync_test_end() {
        local entry runtime id
        for entry in "${TSYNC_CONTAINERS[@]}"; do
                read -r runtime id <<<"${entry}"
                _tsync_remove_container "${runtime}" "${id}"
        done
        TSYNC_CONTAINERS=()
        if [ -n "${TSYNC_TMP}" ] && [ -d "${TSYNC_TMP}" ]; then
                rm -rf -- "${TSYNC_TMP}"
        fi
        TSYNC_TMP=
        tsync_lockdown_dir_remove
        return 0
}

# tsync_lockdown_dir_remove: lockdown's record directory, once nothing is left in it (rmdir: never
# a record or a lock of anyone's). lockdown makes it again when it needs it, also when it goes
# between its mkdir and its lock (hook/lockdown/lockdown_record.c).
tsync_lockdown_dir_remove() {
        rmdir /run/oci-seccomp-tsync/lockdown 2>/dev/null
        return 0
}

# For scripts that are not shunit2 suites.
tsync_cleanup_on_exit() {
        trap tsync_test_end EXIT
        trap 'exit 130' INT
        trap 'exit 143' TERM
}

# tsync_add_declared_tests: for a suite(): every function named test* this shell has, those a
# helper defined with eval included (shunit2's own search reads only the suite's file).
tsync_add_declared_tests() {
        local t
        for t in $(declare -F | awk '$3 ~ /^test/ { print $3 }'); do
                suite_addTest "$t"
        done
}

# tsync_need_built FILE...: exits the suite (a failure, not a skip) when one is not built.
tsync_need_built() {
        local f
        for f in "$@"; do
                if [ ! -x "$f" ]; then
                        echo "$(basename "$0"): $f is not built (run scons)" >&2
                        exit 1
                fi
        done
}

# tsync_wait_ready FILE...: waits (5 s at most) until each FILE holds a line "ready", as the test
# agent and relays print once they listen; non-zero if one never does.
tsync_wait_ready() {
        local i f missing
        for ((i = 0; i < 100; i++)); do
                missing=
                for f in "$@"; do
                        grep -qx ready "$f" 2>/dev/null || missing=$f
                done
                [ -z "${missing}" ] && return 0
                sleep 0.05
        done
        return 1
}

# tsync_split_dashes OPTION... -- ARG...: OPTS=(OPTION...) and ARGS=(ARG...), for the helpers
# that take options for a command, "--", then what the container runs. Declare them local
# (`local OPTS ARGS`) in the caller first, so that nested helpers keep their own.
tsync_split_dashes() {
        OPTS=()
        while [ $# -gt 0 ] && [ "$1" != "--" ]; do
                OPTS+=("$1")
                shift
        done
        [ $# -eq 0 ] || shift
        ARGS=("$@")
}

# tsync_probe_bundle DIR PROGRAM ARG...: a fresh runc bundle at DIR running ARGS, with PROGRAM
# (a static test program) in its rootfs, and no ambient capabilities (runc spec asks for some
# the kernel will not raise without inheritable ones, each one more warning line). Extra
# applets for the rootfs in TSYNC_APPLETS, as for make_rootfs.
tsync_probe_bundle() {
        local dir=$1 program=$2
        shift 2
        rm -rf "$dir"
        make_rootfs "$dir/rootfs" "$program" || return 1
        make_bundle "$dir" "$@" || return 1
        tsync_json_edit "$dir/config.json" '.process.capabilities.ambient = []'
}

_tsync_need_tmp() {
        if [ -z "${TSYNC_TMP}" ] || [ ! -d "${TSYNC_TMP}" ]; then
                tsync_log "${FUNCNAME[1]}: call tsync_test_begin first"
                return 1
        fi
}

# A container id no other test run uses: tsync-NAME-<pid>-<random>.
tsync_unique_id() {
        echo "tsync-${1:-c}-$$-${RANDOM}${RANDOM}"
}

# Edits a JSON file in place: tsync_json_edit FILE FILTER [jq options...].
tsync_json_edit() {
        local file=$1 filter=$2
        shift 2
        if ! jq "${filter}" "${file}" "$@" >"${file}.tmp"; then
                rm -f -- "${file}.tmp"
                tsync_log "jq edit of ${file} failed: ${filter}"
                return 1
        fi
        mv -- "${file}.tmp" "${file}"
}

# tsync_json_array STRING...: prints a JSON array of the strings. (jq 1.6
# still parses options after --args, so "sh -c ..." cannot go through it.)
tsync_json_array() {
        local arr='[]' v
        for v in "$@"; do
                arr=$(jq -c --arg v "${v}" '. + [$v]' <<<"${arr}") || return 1
        done
        echo "${arr}"
}

# tsync_need_packaging_tools: dpkg-buildpackage, dh and lintian are here, or the test is skipped
# with the one missing named (status 1).
tsync_need_packaging_tools() {
        local tool
        for tool in dpkg-buildpackage dh lintian; do
                command -v $tool >/dev/null && continue
                startSkipping
                fail "$tool is not installed (apt-get install dpkg-dev debhelper lintian)"
                return 1
        done
}

# tsync_copy_tree DIR: the files of this checkout that git would commit, in a git index of their own
# (`scons dist` lists them with git ls-files).
tsync_copy_tree() {
        local dir=$1
        mkdir -p "$dir"
        if git -C "$TSYNC_TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
                # (a tracked file deleted in the work tree is not copied)
                (cd "$TSYNC_TOP" && git ls-files -co --exclude-standard -z |
                        while IFS= read -r -d '' f; do
                                if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
                        done | xargs -0 cp -P --parents -t "$dir") || return 1
        else
                tar -C "$TSYNC_TOP" --exclude=./build --exclude=./.sconsign.dblite -cf - . | tar -C "$dir" -xf - || return 1
        fi
        # A commit, as in a clone: `scons dist` and scdoc take their timestamps from it.
        (cd "$dir" && git init -q && git add -A &&
                git -c user.name=test -c user.email=test@invalid commit -q -m "a copy of the tree") || return 1
}

# True if FILE is an executable with no ELF interpreter (so it runs in a bare rootfs).
_tsync_is_static() {
        local out
        [ -x "$1" ] || return 1
        out=$(LC_ALL=C ldd "$1" 2>&1)
        case "${out}" in
        *"not a dynamic executable"* | *"statically linked"*) return 0 ;;
        esac
        return 1
}

# _tsync_libc FILE: prints glibc or musl, the C library in the static program FILE, or unknown.
# glibc leaves its ABI-tag note (from its start files) and "glibc" strings (its tunables, its
# version) in every static program, stripped or not; musl leaves neither, so a static program
# without them is taken for musl only when FILE also has no ELF interpreter.
_tsync_libc() {
        [ -f "$1" ] || { echo unknown; return; }
        if LC_ALL=C readelf -nW "$1" 2>/dev/null | grep -q NT_GNU_ABI_TAG || grep -qai glibc "$1"; then
                echo glibc
        elif _tsync_is_static "$1"; then
                echo musl
        else
                echo unknown
        fi
}

# make_rootfs DIR [PROGRAM...]: a minimal rootfs with busybox-static at
# DIR/bin/busybox, applet links for ${TSYNC_APPLETS}, /proc /sys /dev /tmp /etc
# /run, root's passwd and group entries, and each PROGRAM (static only) in DIR/bin.
make_rootfs() {
        local dir=$1 prog applet
        shift
        if [ -z "${dir}" ]; then
                tsync_log "make_rootfs: no directory"
                return 1
        fi
        if ! _tsync_is_static "${TSYNC_BUSYBOX}"; then
                tsync_log "make_rootfs: ${TSYNC_BUSYBOX} is not a static executable (apt-get install busybox-static)"
                return 1
        fi
        mkdir -p -- "${dir}/bin" "${dir}/proc" "${dir}/sys" "${dir}/dev" "${dir}/tmp" "${dir}/etc" "${dir}/run" || {
                tsync_log "make_rootfs: cannot create ${dir}"
                return 1
        }
        chmod 1777 "${dir}/tmp"
        cp -- "${TSYNC_BUSYBOX}" "${dir}/bin/busybox" || return 1
        for applet in ${TSYNC_APPLETS}; do
                ln -sf busybox "${dir}/bin/${applet}" || return 1
        done
        echo 'root:x:0:0:root:/:/bin/sh' >"${dir}/etc/passwd"
        echo 'root:x:0:' >"${dir}/etc/group"
        for prog in "$@"; do
                if ! _tsync_is_static "${prog}"; then
                        tsync_log "make_rootfs: ${prog} is not a static executable"
                        return 1
                fi
                cp -- "${prog}" "${dir}/bin/" || return 1
        done
}

# make_bundle DIR [ARG...]: DIR/config.json from `runc spec` (root, not
# rootless) running ARGS (default: sleep 3600) without a terminal in a writable
# DIR/rootfs, which is made with make_rootfs unless it exists.
make_bundle() {
        local dir=$1 args
        shift
        [ $# -gt 0 ] || set -- sleep 3600
        mkdir -p -- "${dir}" || return 1
        if [ ! -d "${dir}/rootfs" ]; then
                make_rootfs "${dir}/rootfs" || return 1
        fi
        rm -f -- "${dir}/config.json"
        runc spec --bundle "${dir}" || {
                tsync_log "make_bundle: runc spec failed"
                return 1
        }
        args=$(tsync_json_array "$@") || return 1
        # shellcheck disable=SC2016 # $args is jq's
        tsync_json_edit "${dir}/config.json" \
                '.process.args = $args | .process.terminal = false | del(.process.consoleSize)
                 | .root = {path: "rootfs", readonly: false}' --argjson args "${args}"
}

_tsync_register() {
        TSYNC_CONTAINERS+=("$1 $2")
}

_tsync_unregister() {
        local keep=() entry
        for entry in "${TSYNC_CONTAINERS[@]}"; do
                [ "${entry}" = "$1 $2" ] || keep+=("${entry}")
        done
        TSYNC_CONTAINERS=("${keep[@]}")
}

_tsync_remove_container() {
        local runtime=$1 id=$2
        case "${runtime}" in
        runc)
                runc kill "${id}" KILL >/dev/null 2>&1
                runc delete --force "${id}" >/dev/null 2>&1
                ;;
        crun)
                crun_cmd kill "${id}" KILL >/dev/null 2>&1
                crun_cmd delete --force "${id}" >/dev/null 2>&1
                ;;
        runsc)
                runsc kill "${id}" KILL >/dev/null 2>&1
                runsc delete --force "${id}" >/dev/null 2>&1
                ;;
        runc:/* | crun:/*)
                # RUNTIME:ROOT, a container of a state root of the test's own (--root ROOT).
                local root=${runtime#*:} cmd=(runc)
                [ "${runtime%%:*}" = crun ] && cmd=(crun_cmd)
                "${cmd[@]}" --root "${root}" resume "${id}" >/dev/null 2>&1
                "${cmd[@]}" --root "${root}" kill "${id}" KILL >/dev/null 2>&1
                "${cmd[@]}" --root "${root}" delete --force "${id}" >/dev/null 2>&1
                ;;
        esac
        # oci-seccomp-tsync-runtime's record of the runtime that created it (hook/runtime/creator.c),
        # left when the container was deleted without it (its ids are unique to the test).
        local rec
        for rec in /run/oci-seccomp-tsync/runtime/*/"${id}"; do
                [ -e "$rec" ] || [ -L "$rec" ] || continue
                rm -f "$rec"
                rmdir "$(dirname "$rec")" 2>/dev/null
        done
        # The record directory itself, once nothing is left in it (rmdir: never anyone else's record).
        rmdir /run/oci-seccomp-tsync/runtime 2>/dev/null
        return 0
}

# fnv1a STRING: the directory the wrapper keeps the records of a --root's containers in (creator.c).
fnv1a() {
        local h=-3750763034362895579 c i s=$1
        for ((i = 0; i < ${#s}; i++)); do
                printf -v c '%d' "'${s:i:1}"
                h=$(((h ^ c) * 1099511628211))
        done
        printf '%016x' "$h"
}

# What run_, start_, stop_ and _pid of runc and crun share; RT names the runtime (for the
# registry), COMMAND... runs it (runc, or crun_cmd).

# _tsync_run_fg RT ID BUNDLE COMMAND...: `COMMAND run` in the foreground (its stdout and stderr
# are ours, stdin is /dev/null), deletes the container, returns its exit status.
_tsync_run_fg() {
        local rt=$1 id=$2 bundle=$3 rc
        shift 3
        _tsync_register "${rt}" "${id}"
        "$@" run --bundle "${bundle}" "${id}" </dev/null
        rc=$?
        _tsync_stop "${rt}" "${id}"
        return "${rc}"
}

# _tsync_start RT ID BUNDLE COMMAND...: `COMMAND run -d`; the container's output goes to
# $TSYNC_TMP/ID.log. Returns once the container process runs its own program (not the
# runtime's init any more).
_tsync_start() {
        local rt=$1 id=$2 bundle=$3 pid
        shift 3
        _tsync_need_tmp || return 1
        _tsync_register "${rt}" "${id}"
        if ! "$@" run -d --bundle "${bundle}" "${id}" </dev/null >"${TSYNC_TMP}/${id}.log" 2>&1; then
                tsync_log "start_${rt} ${id}: ${rt} run -d failed: $(tail -n 3 "${TSYNC_TMP}/${id}.log")"
                _tsync_stop "${rt}" "${id}"
                return 1
        fi
        if ! pid=$(_tsync_pid "${rt}" "${id}" "$@") || ! tsync_wait_exec "${pid}"; then
                _tsync_stop "${rt}" "${id}"
                return 1
        fi
}

# _tsync_stop RT ID: the container killed and deleted, and forgotten.
_tsync_stop() {
        _tsync_remove_container "$1" "$2"
        _tsync_unregister "$1" "$2"
}

# _tsync_pid RT ID COMMAND...: the host pid of the container's process (`COMMAND state`).
_tsync_pid() {
        local rt=$1 id=$2 pid
        shift 2
        pid=$("$@" state "${id}" 2>/dev/null | jq -r '.pid // empty')
        if [ -z "${pid}" ] || [ "${pid}" -le 0 ] 2>/dev/null; then
                tsync_log "${rt}_pid ${id}: no such running container"
                return 1
        fi
        echo "${pid}"
}

# run_runc ID BUNDLE: runs the container in the foreground, deletes it, returns its exit status.
# start_runc ID BUNDLE: `runc run -d`, output in $TSYNC_TMP/ID.log, returns once the workload
# runs; stop it with stop_runc ID. runc_pid ID: the host pid of the container's process.
run_runc() { _tsync_run_fg runc "$1" "$2" runc; }
start_runc() { _tsync_start runc "$1" "$2" runc; }
stop_runc() { _tsync_stop runc "$1"; }
runc_pid() { _tsync_pid runc "$1" runc; }

# run_crun ID BUNDLE / start_crun ID BUNDLE / stop_crun ID / crun_pid ID: the runc ones, with crun
# (crun_cmd: in its own mount namespace, see below).
run_crun() { _tsync_run_fg crun "$1" "$2" crun_cmd; }
start_crun() { _tsync_start crun "$1" "$2" crun_cmd; }
stop_crun() { _tsync_stop crun "$1"; }
crun_pid() { _tsync_pid crun "$1" crun_cmd; }

# run_runtime RUNTIME ID BUNDLE OUT ERR: run_runc or run_crun as RUNTIME says, stdout in OUT,
# stderr in ERR, the exit status in $rc.
run_runtime() {
        case "$1" in
        runc) run_runc "$2" "$3" >"$4" 2>"$5" ;;
        crun) run_crun "$2" "$3" >"$4" 2>"$5" ;;
        esac
        rc=$?
}

# tsync_wait_exec PID [SECONDS]: waits until PID has left the runtime's init
# (runc:[2:INIT], or a crun/runc binary) for the container's program, which is
# when the runtime's seccomp filter is in place.
tsync_wait_exec() {
        local pid=$1 tries=$((${2:-10} * 20)) exe
        while [ "${tries}" -gt 0 ]; do
                exe=$(readlink "/proc/${pid}/exe" 2>/dev/null) || {
                        tsync_log "tsync_wait_exec: process ${pid} is gone"
                        return 1
                }
                case "${exe}" in
                */runc | */crun | */runc\ \(deleted\) | */crun\ \(deleted\) | /memfd:*) ;;
                *) return 0 ;;
                esac
                sleep 0.05
                tries=$((tries - 1))
        done
        tsync_log "tsync_wait_exec: process ${pid} still runs ${exe}"
        return 1
}

# crun_cmd ARGS...: crun in its own mount namespace with cgroup2 alone on
# /sys/fs/cgroup (crun refuses this host's hybrid v1+v2 layout) and
# --cgroup-manager=disabled. The mount stays private to that namespace.
crun_cmd() {
        tsync_in_cgroup2 crun --cgroup-manager=disabled "$@"
}

# tsync_in_cgroup2 CMD...: CMD in a mount namespace of its own with cgroup2 alone on /sys/fs/cgroup,
# where crun works on this host's hybrid cgroups; CMD's stdio is never the host's /dev/null
# (tsync_no_devnull). For crun, and for the runtime wrapper in front of crun.
tsync_in_cgroup2() {
        tsync_no_devnull unshare -m --propagation private -- sh -c \
                'mount -t cgroup2 none /sys/fs/cgroup && exec "$@"' sh "$@"
}

# tsync_runtime_program PATH CMD...: PATH, an executable that runs CMD with its own arguments after
# it, never with the host's /dev/null as stdio (as tsync_no_devnull). For engines that take a
# runtime by path (Podman's --runtime, containerd's BinaryName): they hand it /dev/null as stdin.
tsync_runtime_program() {
        local path=$1
        shift
        {
                echo '#!/bin/bash'
                echo '[ /proc/self/fd/0 -ef /dev/null ] && exec < <(:)'
                echo '[ /proc/self/fd/1 -ef /dev/null ] && exec > >(cat >/dev/null)'
                echo '[ /proc/self/fd/2 -ef /dev/null ] && exec 2> >(cat >/dev/null)'
                printf 'exec'
                printf ' %q' "$@"
                echo ' "$@"'
        } >"${path}" && chmod 0755 "${path}"
}

# tsync_no_devnull CMD...: CMD with each of its stdin, stdout and stderr that is the host's
# /dev/null replaced by a pipe (an empty one for stdin, one drained into /dev/null for output).
# crun fchowns its stdio to the process's user (`crun exec` with process.user 1000 makes the host's
# /dev/null uid 1000's), runsc to its sandbox's; runc skips /dev/null. The host's /dev is not ours to
# change.
tsync_no_devnull() {
        local in out err rc
        if [ "/proc/${BASHPID}/fd/0" -ef /dev/null ]; then exec {in}< <(:); else exec {in}<&0; fi
        if [ "/proc/${BASHPID}/fd/1" -ef /dev/null ]; then exec {out}> >(cat >/dev/null); else exec {out}>&1; fi
        if [ "/proc/${BASHPID}/fd/2" -ef /dev/null ]; then exec {err}> >(cat >/dev/null); else exec {err}>&2; fi
        "$@" <&"${in}" >&"${out}" 2>&"${err}" {in}<&- {out}>&- {err}>&-
        rc=$?
        exec {in}<&- {out}>&- {err}>&-
        return "${rc}"
}

# run_runsc ID BUNDLE [FLAG...]: like run_runc, with gVisor's runsc, its
# global FLAGs (e.g. --oci-seccomp) and --network=none (no network is set up
# for the sandbox here). runsc hands hooks the bundle path as given: absolute.
run_runsc() {
        local id=$1 bundle=$2
        shift 2
        # runsc fchowns its stdio to the sandbox's user, as crun does (tsync_no_devnull).
        _tsync_run_fg runsc "${id}" "$(realpath "${bundle}")" tsync_no_devnull runsc --network=none "$@"
}

# Hard limits of this shell as {"RLIMIT_NOFILE": 20000, ...} (unlimited left out).
_tsync_hard_limits() {
        prlimit --pid $$ --output RESOURCE,HARD --noheadings --raw |
                jq -R -s 'split("\n") | map(select(length > 0) | split(" ") | select(.[1] != "unlimited")
                          | {key: ("RLIMIT_" + .[0]), value: (.[1] | tonumber)}) | from_entries'
}

# tsync_bundle_from_config CONFIG_JSON DIR: a bundle in DIR that runs
# `sleep 3600` from a busybox rootfs under CONFIG_JSON's settings, less what
# cannot work here: bind mounts (podman's /etc/hosts, /dev/shm, ... live in
# its own storage), hooks, AppArmor/SELinux labels, namespace paths,
# cgroupsPath (runc makes its own), and rlimits above our hard limits (we
# lack CAP_SYS_RESOURCE). linux.seccomp, process.capabilities and
# process.noNewPrivileges stay exactly as given.
tsync_bundle_from_config() {
        local config=$1 dir=$2 limits
        if ! jq -e '.ociVersion' "${config}" >/dev/null 2>&1; then
                tsync_log "tsync_bundle_from_config: ${config} is not an OCI config.json"
                return 1
        fi
        mkdir -p -- "${dir}" && make_rootfs "${dir}/rootfs" || return 1
        limits=$(_tsync_hard_limits) || return 1
        jq --argjson limits "${limits}" '
                .root.path = "rootfs"
                | .process.args = ["sleep", "3600"]
                | .process.terminal = false
                | .process.cwd = "/"
                | del(.process.consoleSize, .process.apparmorProfile, .process.selinuxLabel)
                | del(.hooks, .linux.mountLabel, .linux.cgroupsPath)
                | .mounts |= map(select(.type != "bind"
                                        and ((.options // []) | any(.[]; . == "bind" or . == "rbind") | not)))
                | if .linux.namespaces then .linux.namespaces |= map(del(.path)) else . end
                | if .process.rlimits then
                        .process.rlimits |= map(
                                . as $r | ($limits[$r.type] // null) as $max
                                | if $max == null then $r
                                  else .hard = ([.hard, $max] | min) | .soft = ([.soft, .hard] | min) end)
                  else . end' "${config}" >"${dir}/config.json" || {
                tsync_log "tsync_bundle_from_config: cannot adapt ${config}"
                return 1
        }
}

# capture_runc_filter CONFIG_JSON OUTDIR: runs a container with runc under
# CONFIG_JSON (adapted by tsync_bundle_from_config), waits until its sleep
# runs (runc may install the filter right before execve), dumps the filters
# the kernel holds for it to OUTDIR/filter.N.bpf (N=0 newest) with
# seccomp_get_filter, removes the container and prints the filter count.
capture_runc_filter() {
        local config=$1 outdir=$2 work id pid count rc
        _tsync_need_tmp || return 1
        if [ ! -x "${TSYNC_TOOLS}/seccomp_get_filter" ]; then
                tsync_log "capture_runc_filter: ${TSYNC_TOOLS}/seccomp_get_filter not built (run scons)"
                return 1
        fi
        mkdir -p -- "${outdir}" || return 1
        work=$(mktemp -d "${TSYNC_TMP}/capture.XXXXXX") || return 1
        tsync_bundle_from_config "${config}" "${work}/bundle" || return 1
        id=$(tsync_unique_id capture)
        start_runc "${id}" "${work}/bundle" || return 1
        pid=$(runc_pid "${id}") || {
                stop_runc "${id}"
                return 1
        }
        count=$("${TSYNC_TOOLS}/seccomp_get_filter" "${pid}" "${outdir}")
        rc=$?
        stop_runc "${id}"
        rm -rf -- "${work}"
        if [ "${rc}" -ne 0 ]; then
                tsync_log "capture_runc_filter: seccomp_get_filter ${pid} failed"
                return 1
        fi
        echo "${count}"
}

# python3 -c "$TSYNC_SYSLOG_CATCH" SOCK OUT CMD...: binds the datagram socket SOCK, runs CMD with
# TSYNC_SYSLOG_SOCKET=SOCK (SIGTERM passed on to it), and appends every datagram it receives to
# OUT, one a line, until CMD ends; exits with CMD's status. No host journald is read.
# shellcheck disable=SC2016,SC2034 # python's text; the suites that source this use it
TSYNC_SYSLOG_CATCH='
import os, select, signal, socket, subprocess, sys
sock_path, out_path, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sock_path)
p = subprocess.Popen(cmd, env=dict(os.environ, TSYNC_SYSLOG_SOCKET=sock_path))
signal.signal(signal.SIGTERM, lambda *a: p.send_signal(signal.SIGTERM))
with open(out_path, "ab", buffering=0) as out:
    while True:
        done = p.poll() is not None
        while select.select([s], [], [], 0 if done else 0.2)[0]:
            out.write(s.recv(65536) + b"\n")
        if done:
            break
s.close()
os.unlink(sock_path)
sys.exit(p.returncode)
'
