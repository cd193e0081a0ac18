#!/bin/bash
# Privilege parity of the init (issue 11): a workload that tries to reach PID 1, our init, through
# /proc/1/task/TID/mem (open for writing, then a write of the bytes already there) and through
# PTRACE_ATTACH / PTRACE_SEIZE, on every thread of PID 1 (the main and the signal thread), for
# noNewPrivileges true and false, process.user root and uid 1000, under runc and crun, with the
# deny-ptrace layer (ptrace denied, /proc/PID/mem not a system call a filter sees) and with a layer
# that leaves ptrace alone. Each run reports what it reached; the test asserts nothing beyond the
# workload's own privileges:
#   - without CAP_SYS_PTRACE the workload reaches nothing of PID 1 (the init is non-dumpable);
#   - every thread of PID 1 shows the same Cap* and NoNewPrivs lines, with the workload's
#     bounding, inheritable and ambient sets and NoNewPrivs (the lent CAP_SYS_ADMIN and
#     CAP_SETPCAP are gone from every thread), so whatever reaches PID 1 holds nothing more;
#   - where it does reach PID 1 (a config granting CAP_SYS_PTRACE), no thread of PID 1 has a
#     permitted or effective capability the workload lacks;
#   - the workload's own Cap*/NoNewPrivs lines, dumpability, owner of /proc/self and readable
#     status are those of the same config run by the runtime alone, without oci-seccomp-tsync.
# Together these cover the issue's escape (code written into the signal thread through
# /proc/1/mem, woken by a forwarded signal, exec'ing a program with the lent capabilities)
# without rebuilding it: PID 1 is not writable, and no thread of it holds more than the workload.
# About a minute on 2 cores.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"

PRIVESC=$TSYNC_BUILD/tests/static/privesc_probe
DENY_PTRACE=$TSYNC_TOP/configs/profiles/deny-ptrace.json
# A layer that leaves ptrace and /proc/PID/mem to the kernel (it denies mkdir only).
ALLOW_PTRACE=$PROFILES/deny-mkdir.json
CAP_SYS_PTRACE=19
DEFAULT_CAPS='["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"]'
# Spellings runc 1.1.5 ignores (with a warning), beside names it honours.
ODD_CAPS='["CAP_KILL", "sys_admin", "cap_sys_admin", "Sys_Admin", "CAP_KILL,CAP_SYS_ADMIN", "CAP_SYS_ADMIN ",
           "", "CAP_BOGUS", "CAP_CHECKPOINT_RESTORE", "CAP_NET_BIND_SERVICE"]'

# The workload: the probe, then every thread of PID 1 and itself, one line each.
SCRIPT='privesc_probe
for t in /proc/1/task/*; do
  echo "initthread tid=$(basename $t) $(grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):" $t/status | tr -d "\t" | tr ":\n" "= ")"
done
echo "workload $(grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):" /proc/self/status | tr -d "\t" | tr ":\n" "= ")"'

# setUp and tearDown: hooklib.sh's (a temp dir $T, the test's containers removed after it).
oneTimeSetUp() {
        tsync_need_built "$OCI" "$INIT" "$PRIVESC"
}

# config DIR UID NNP [ptrace]: a runc-spec bundle in DIR running $SCRIPT as UID with
# noNewPrivileges NNP. A non-root user gets the default capabilities inheritable too, so that
# they reach it through the ambient set; "ptrace" adds CAP_SYS_PTRACE to every set.
config() {
        local dir=$1 uid=$2 nnp=$3 extra=$4 caps
        make_rootfs "$dir/rootfs" "$PRIVESC" || return 1
        make_bundle "$dir" sh -c "$SCRIPT" || return 1
        caps=$DEFAULT_CAPS
        [ "$extra" = ptrace ] && caps=$(jq -c '. + ["CAP_SYS_PTRACE"]' <<<"$caps")
        [ "$extra" = odd ] && caps=$ODD_CAPS
        tsync_json_edit "$dir/config.json" '.process.user = {uid: $uid, gid: $uid}
                | .process.noNewPrivileges = $nnp
                | .process.capabilities = {bounding: $caps, effective: $caps, permitted: $caps,
                                           inheritable: (if $uid == 0 then [] else $caps end), ambient: $caps}' \
                --argjson uid "$uid" --argjson nnp "$nnp" --argjson caps "$caps"
}

# field LINE NAME: the value of NAME=... in LINE.
field() {
        tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"
}

# privesc_case UID NNP LAYER [ptrace]: the same config run by $RT alone (plain) and injected with
# LAYER; the assertions of the header on both outputs.
privesc_case() {
        local uid=$1 nnp=$2 layer=$3 extra=$4 what ours plain line w wl first reached=0 threads=0 s
        what="$RT uid=$uid noNewPrivileges=$nnp layer=$(basename "$layer") $extra"
        config "$T/plain" "$uid" "$nnp" "$extra" || fail "$what: bundle"
        cp -a "$T/plain" "$T/ours"
        inject --profile "$layer" "$T/ours" 2>"$T/inject.err" || fail "$what: inject: $(cat "$T/inject.err")"
        rt_run "$(tsync_unique_id plain)" "$T/plain"
        assertEquals "$what: plain run: $(cat "$TSYNC_TMP"/tsync-plain-*.err)" 0 "$rc"
        plain=$(cat "$TSYNC_TMP"/tsync-plain-*.out)
        rt_run "$(tsync_unique_id ours)" "$T/ours"
        assertEquals "$what: run: $(cat "$TSYNC_TMP"/tsync-ours-*.err)" 0 "$rc"
        ours=$(cat "$TSYNC_TMP"/tsync-ours-*.out)
        rm -rf "$T/plain" "$T/ours" "$TSYNC_TMP"/tsync-plain-* "$TSYNC_TMP"/tsync-ours-*
        echo "  $what:"
        grep -E '^(task|self)' <<<"$ours" | sed 's/^/    /'

        w=$(grep '^workload ' <<<"$ours")
        assertNotEquals "$what: no workload line in: $ours" "" "$w"
        assertEquals "$what: the workload's own sets, with and without us" \
                "$(grep '^workload ' <<<"$plain")" "$w"
        assertEquals "$what: the workload's dumpability and /proc/self, with and without us" \
                "$(grep '^self ' <<<"$plain")" "$(grep '^self ' <<<"$ours")"
        [ "$(field "$(grep '^self ' <<<"$ours")" status)" = ok ] || fail "$what: own status unreadable"

        # Every thread of PID 1 alike, with the workload's bounding/inheritable/ambient and NNP.
        first=$(grep '^initthread ' <<<"$ours" | head -n 1 | cut -d' ' -f3- | sed 's/ *$//')
        while read -r line; do
                threads=$((threads + 1))
                for s in CapBnd CapInh CapAmb NoNewPrivs; do
                        assertEquals "$what: $s of PID 1's $(field "$line" tid)" "$(field "$w" $s)" "$(field "$line" $s)"
                done
                assertEquals "$what: PID 1's threads alike" "$first" "$(cut -d' ' -f3- <<<"$line")"
        done < <(grep '^initthread ' <<<"$ours")
        assertEquals "$what: PID 1's threads (main and signals)" 2 "$threads"
        grep -q '^task .* comm=tsync-signals ' <<<"$ours" || fail "$what: the signal thread was not probed: $ours"

        wl=$((16#$(field "$w" CapEff)))
        while read -r line; do
                for s in mem_open mem_write attach seize; do
                        [ "$(field "$line" $s)" = ok ] && reached=1
                done
        done < <(grep '^task ' <<<"$ours")
        if [ $((wl >> CAP_SYS_PTRACE & 1)) -eq 0 ]; then
                assertEquals "$what: without CAP_SYS_PTRACE the workload reached PID 1" 0 "$reached"
                while read -r line; do
                        assertEquals "$what: $line" - "$(field "$line" mem_write)"
                done < <(grep '^task ' <<<"$ours")
        else
                # The control: with CAP_SYS_PTRACE and ptrace allowed, the probe does reach PID 1.
                assertEquals "$what: with CAP_SYS_PTRACE the probe reached PID 1" 1 "$reached"
                while read -r line; do
                        for s in CapPrm CapEff; do
                                assertEquals "$what: PID 1's $(field "$line" tid) $s beyond the workload's" 0 \
                                        $((16#$(field "$line" $s) & ~16#$(field "$w" $s)))
                        done
                done < <(grep '^initthread ' <<<"$ours")
        fi
        return 0
}

# matrix: privesc_case for uid 0 and 1000, noNewPrivileges true and false, both layers.
matrix() {
        local uid nnp layer
        for uid in 0 1000; do
                for nnp in false true; do
                        for layer in "$DENY_PTRACE" "$ALLOW_PTRACE"; do
                                privesc_case "$uid" "$nnp" "$layer"
                        done
                done
        done
}

testWithoutCapSysPtraceTheWorkloadReachesNothingOfPid1UnderRunc() {
        RT=runc matrix
}

testWithoutCapSysPtraceTheWorkloadReachesNothingOfPid1UnderCrun() {
        RT=crun matrix
}

testWithCapSysPtraceTheWorkloadReachesPid1ButNothingMoreThanItHasUnderRunc() {
        RT=runc privesc_case 0 false "$ALLOW_PTRACE" ptrace
        RT=runc privesc_case 0 true "$ALLOW_PTRACE" ptrace
        RT=runc privesc_case 1000 false "$ALLOW_PTRACE" ptrace
}

testWithCapSysPtraceTheWorkloadReachesPid1ButNothingMoreThanItHasUnderCrun() {
        RT=crun privesc_case 0 false "$ALLOW_PTRACE" ptrace
        RT=crun privesc_case 1000 false "$ALLOW_PTRACE" ptrace
}

# runc's rule for names, not crun's: crun 1.8 also takes "cap_sys_admin" and "Sys_Admin" (libcap's
# cap_from_name), so under crun such a container gets less with us than without.
testOddCapabilityNamesGiveTheWorkloadWhatRuncAloneGives() {
        RT=runc privesc_case 0 false "$DENY_PTRACE" odd
        RT=runc privesc_case 1000 false "$DENY_PTRACE" odd
        grep -q "warning: process.capabilities: ignoring unknown or unavailable capabilities: \[ CAP_BOGUS CAP_KILL,CAP_SYS_ADMIN CAP_SYS_ADMIN  Sys_Admin cap_sys_admin sys_admin\]" \
                "$T/inject.err" || fail "inject's warning: $(cat "$T/inject.err")"
}

# shellcheck disable=SC1091
. shunit2
