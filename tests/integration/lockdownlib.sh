#!/bin/bash
# What test_lockdown.sh and test_lockdown_targets.sh share: the probe's bundle, the container's
# tasks as the kernel shows them, its freezer state, and the lockdown records a test made.
# shellcheck disable=SC2016 # jq's variables in single quotes

PROBE=$TSYNC_BUILD/tests/static/lockdown_probe
RECORDS=/run/oci-seccomp-tsync/lockdown

# lockdown_setup: hooklib's set-up ($T), an id for the test's container, no record of its yet;
# tearDown removes the test's containers, then only the records of the test's containers.
lockdown_setup() {
        tsync_test_begin || exit 1
        T=$TSYNC_TMP
        ID=$(tsync_unique_id lockdown)
        MY_RECORDS=()
}

# lockdown_forget: removes only the records of the test's containers.
lockdown_forget() {
        [ ${#MY_RECORDS[@]} -eq 0 ] || rm -f -- "${MY_RECORDS[@]}"
        MY_RECORDS=()
        tsync_lockdown_dir_remove
}

# A suite with set-up of its own (test_hostile.sh) sources the helpers alone.
if [ -z "${LOCKDOWNLIB_HELPERS_ONLY:-}" ]; then
        setUp() {
                lockdown_setup
        }

        tearDown() {
                tsync_test_end
                lockdown_forget
        }
fi

# record_of PID: REC, the lockdown record of the container whose PID 1 is PID (its pid and start
# time), remembered in MY_RECORDS for tearDown (not in a subshell: MY_RECORDS is the suite's).
record_of() {
        [ -r "/proc/$1/stat" ] || return 0
        REC="$RECORDS/$1-$(sed 's/.*) //' "/proc/$1/stat" | awk '{print $20}').json"
        MY_RECORDS+=("$REC")
}

# bundle NNP [PROBE ARGS]: $T/b running lockdown_probe, noNewPrivileges NNP, runc's default
# capabilities (no CAP_SYS_ADMIN), no seccomp of the runtime's.
bundle() {
        local nnp=$1
        shift
        rm -rf "$T/b"
        make_rootfs "$T/b/rootfs" "$PROBE" || return 1
        make_bundle "$T/b" /bin/lockdown_probe "$@" || return 1
        tsync_json_edit "$T/b/config.json" '.process.noNewPrivileges = $nnp | del(.linux.seccomp)' \
                --argjson nnp "$nnp"
}

# Every process in the container's pid namespace (host pids).
procs_of() {
        local ns p
        ns=$(readlink "/proc/$1/ns/pid")
        for p in /proc/[0-9]*; do
                [ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$ns" ] && echo "${p#/proc/}"
        done
}

# "pid tid Seccomp_filters TracerPid" of every live task of the container (zombies run nothing).
all_tasks() {
        local p t
        for p in $(procs_of "$1"); do
                for t in /proc/"$p"/task/*; do
                        awk -v p="$p" -v t="${t##*/}" '/^Seccomp_filters:/ {f=$2} /^TracerPid:/ {tr=$2}
                                /^State:/ {s=$2} END {if (f != "" && s != "Z") print p, t, f, tr}' "$t/status" \
                                2>/dev/null
                done
        done
}

# freezer_dir PID: the directory of PID's freezer cgroup (v1 freezer, else cgroup2).
freezer_dir() {
        if grep -q freezer "/proc/$1/cgroup"; then
                echo "/sys/fs/cgroup/freezer$(awk -F: '$2 ~ /freezer/ {print $3}' "/proc/$1/cgroup")"
        else
                echo "/sys/fs/cgroup$(awk -F: '$1 == "0" {print $3}' "/proc/$1/cgroup")"
        fi
}

cgroup_frozen() {
        local dir
        dir=$(freezer_dir "$1")
        if [ -f "$dir/freezer.state" ]; then
                cat "$dir/freezer.state"
        else
                grep '^frozen' "$dir/cgroup.events"
        fi
}

# "pid tid Seccomp_filters TracerPid" of every task of every process in PID's freezer cgroup (a
# gVisor container's processes are runsc's, in no pid namespace of the container's own).
cgroup_tasks() {
        local p t
        for p in $(cat "$(freezer_dir "$1")/cgroup.procs"); do
                for t in /proc/"$p"/task/*; do
                        awk -v p="$p" -v t="${t##*/}" '/^Seccomp_filters:/ {f=$2} /^TracerPid:/ {tr=$2}
                                END {if (f != "") print p, t, f, tr}' "$t/status" 2>/dev/null
                done
        done
}

# start_runsc ID BUNDLE: a gVisor container (`runsc --network=none run --detach`), removed at
# tsync_test_end; runsc's output in $TSYNC_TMP/ID.log. Its stdin is an empty pipe and its output
# a file of ours: runsc fchowns its stdio to the sandbox's user (never the host's /dev/null).
start_runsc() {
        _tsync_register runsc "$1"
        tsync_no_devnull runsc --network=none run --detach --bundle "$(realpath "$2")" "$1" < <(:) \
                >"$TSYNC_TMP/$1.log" 2>&1 || {
                tsync_log "start_runsc $1: $(tail -n 1 "$TSYNC_TMP/$1.log")"
                _tsync_stop runsc "$1"
                return 1
        }
}

# assert_untouched WHAT CHANGED: after a refused lockdown, no task of $pid's container shows
# CHANGED, an awk condition on all_tasks' "pid tid filters tracer" lines (WHAT: the failure).
assert_untouched() {
        all_tasks "$pid" >"$T/after"
        assertEquals "$1" "" "$(awk "$2" "$T/after")"
}
