#!/bin/bash
# Escape attempts against running runc containers whose workload starts under our init (inject):
# every system-call ABI of the CPU, a workload that installs looser filters of its own, threads
# of the init and of the workload, signals to the init at chosen points of its set-up, and a root
# filesystem whose mount points are symlinks to host paths. The side effect is what is judged:
# the profile denies mkdir, and the directory a probe tries to create must never exist.
# About 1 minute on 2 cores.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"

ESCAPE=$TSYNC_BUILD/tests/static/escape_probe
SIGPOINT=$TSYNC_TOOLS/sigpoint
GETFILTER=$TSYNC_TOOLS/seccomp_get_filter
# deny-mkdir.json: mkdir and mkdirat get EDQUOT (122); it lists x86_64, x86 and x32.
DENIED=errno:122
# A process killed by a filter's KILL_THREAD/KILL_PROCESS (the bad-architecture action).
SIGSYS=signal:31

# setUp and tearDown: hooklib.sh's (a temp dir $T, the test's containers removed after it).
oneTimeSetUp() {
        tsync_need_built "$INIT" "$OCI" "$ESCAPE" "$SIGPOINT" "$GETFILTER"
}

# bundle DIR ARG...: a runc bundle running ARGS with escape_probe in its rootfs (lib.sh's
# tsync_probe_bundle) and an empty /tmp/d for the probes' mkdirs.
bundle() {
        tsync_probe_bundle "$1" "$ESCAPE" "${@:2}" && mkdir "$1/rootfs/tmp/d"
}

# probe_field KEY=VALUE FIELD FILE: FIELD of the line of FILE that has KEY=VALUE.
probe_field() {
        grep -E "^(.* )?$1( |$)" "$3" | head -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# abi_run PROFILE: escape_probe abi on the host (unfiltered: what each ABI does here) into
# $T/host.out, then in a container under PROFILE into $T/abi-$$.out.
abi_run() {
        mkdir "$T/hostdir"
        "$ESCAPE" abi "$T/hostdir" >"$T/host.out" || fail "escape_probe on the host"
        bundle "$T/b" /bin/escape_probe abi /tmp/d || fail "bundle"
        inject --profile "$1" "$T/b" || fail "inject"
        rt_run abi-$$ "$T/b"
        assertEquals "$(cat "$T/abi-$$.err")" 0 "$rc"
        echo "  host:      $(tr '\n' ';' <"$T/host.out")"
        echo "  container: $(tr '\n' ';' <"$T/abi-$$.out")"
        # The control: unfiltered, the 64-bit mkdir works, so the probe can see a mkdir take effect.
        assertEquals "x86_64 mkdir on the host" yes "$(probe_field abi=x86_64 created "$T/host.out")"
}

# assertAbi ABI DENIED_RESULT: in the container, mkdir through ABI never took effect, and it
# got DENIED_RESULT; or, when the host does not offer the ABI, what the host got.
assertAbi() {
        local abi=$1 want=$2 offered host got
        offered=$(probe_field "abi=$abi" offered "$T/host.out")
        host=$(probe_field "abi=$abi" mkdir "$T/host.out")
        got=$(probe_field "abi=$abi" mkdir "$T/abi-$$.out")
        assertEquals "$abi: created in the container" no "$(probe_field "abi=$abi" created "$T/abi-$$.out")"
        if [ "$offered" = yes ]; then
                echo "  ABI $abi: offered; in the container mkdir got $got"
                assertEquals "$abi is offered: the host's mkdir through it takes effect" yes \
                        "$(probe_field "abi=$abi" created "$T/host.out")"
                assertEquals "$abi is offered: the filter decides" "$want" "$got"
        else
                echo "  ABI $abi: not offered here (getpid through it: $offered); in the container mkdir got $got"
                assertEquals "$abi is not offered: the host's mkdir did nothing" no \
                        "$(probe_field "abi=$abi" created "$T/host.out")"
                case "$got" in
                "$want" | "$host") ;;
                *) fail "$abi: mkdir got $got: neither the filter's $want nor the host's $host" ;;
                esac
        fi
        assertEquals "$abi: nothing in the container's /tmp/d" "" "$(ls -A "$T/b/rootfs/tmp/d")"
}

testMkdirThroughEveryAbiOfTheCpuTakesNoEffect() {
        abi_run "$PROFILES/deny-mkdir.json"
        assertEquals "x86_64" "$DENIED" "$(probe_field abi=x86_64 mkdir "$T/abi-$$.out")"
        assertAbi i386 "$DENIED"
        assertAbi x32 "$DENIED"
}

testAnAbiTheProfileDoesNotListGetsTheBadArchitectureAction() {
        jq '.architectures = ["SCMP_ARCH_X86_64"]' "$PROFILES/deny-mkdir.json" >"$T/native.json"
        abi_run "$T/native.json"
        assertEquals "x86_64" "$DENIED" "$(probe_field abi=x86_64 mkdir "$T/abi-$$.out")"
        assertAbi i386 "$SIGSYS"
        assertAbi x32 "$SIGSYS"
        # x32 numbering goes through the filter whether or not the kernel has x32: always killed.
        assertEquals "x32" "$SIGSYS" "$(probe_field abi=x32 mkdir "$T/abi-$$.out")"
}

testNewFiltersOnlyAddRestrictions() {
        local step steps=0
        mkdir "$T/hostdir"
        "$ESCAPE" loosen "$T/hostdir" >"$T/host.out"
        # The control: unfiltered, the first mkdir works and strict mode is granted.
        assertEquals "host mkdir" yes "$(probe_field step=start created "$T/host.out")"
        assertEquals "host strict" ok "$(probe_field step=strict rc "$T/host.out")"
        bundle "$T/b" /bin/escape_probe loosen /tmp/d || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject"
        rt_run loosen-$$ "$T/b"
        assertEquals "$(cat "$T/loosen-$$.err")" 0 "$rc"
        sed 's/^/  /' "$T/loosen-$$.out"
        out=$T/loosen-$$.out
        # Every step: still filtered, the directory never made. Only errno0-filter may change
        # what mkdir returns (a newer RET_ERRNO of the same precedence gives its errno), not what it does.
        for step in start set-nnp clear-nnp mode-disabled strict allow-filter allow-filter-tsync \
                allow-mkdir-filter trace-filter notify-continue errno0-filter; do
                assertEquals "$step: mode" 2 "$(probe_field "step=$step" mode "$out")"
                assertEquals "$step: created" no "$(probe_field "step=$step" created "$out")"
                [ "$step" = errno0-filter ] ||
                        assertEquals "$step: mkdir" "$DENIED" "$(probe_field "step=$step" mkdir "$out")"
                steps=$((steps + 1))
        done
        assertEquals 11 "$steps"
        assertEquals "NO_NEW_PRIVS cannot be cleared" errno:22 "$(probe_field step=clear-nnp rc "$out")"
        assertEquals "seccomp cannot be switched off" errno:22 "$(probe_field step=mode-disabled rc "$out")"
        assertEquals "no strict mode from filter mode" errno:22 "$(probe_field step=strict rc "$out")"
        # The looser filters really were installed: the count went up by one each time.
        assertEquals "filters before" 1 "$(probe_field step=start filters "$out")"
        assertEquals "allow-filter installed" ok "$(probe_field step=allow-filter rc "$out")"
        assertEquals "filters after allow-filter" 2 "$(probe_field step=allow-filter filters "$out")"
        assertEquals "filters after errno0-filter" 7 "$(probe_field step=errno0-filter filters "$out")"
        assertEquals "the listener never heard of mkdir" 0 "$(probe_field step=listener notified "$out")"
        assertEquals "nothing in /tmp/d" "" "$(ls -A "$T/b/rootfs/tmp/d")"
}

testThreadsOfTheInitAndOfTheWorkloadCarryTheSameFilter() {
        local id=threads-$$ pid wpid tid n=0 who
        bundle "$T/b" /bin/sh -c '/bin/escape_probe threads /tmp/d >/tmp/threads.out; exec sleep 60' || fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" --profile "$PROFILES/deny-getcwd.json" "$T/b" || fail "inject"
        rt_start "$id" "$T/b" || fail "start"
        for _ in $(seq 200); do
                grep -q '^who=early ' "$T/b/rootfs/tmp/threads.out" 2>/dev/null && break
                sleep 0.05
        done
        # The workload's threads: started first (and calling last), last, of a thread, of a child.
        for who in main early late parent-thread thread-of-thread thread-of-child; do
                assertEquals "$who: $(cat "$T/b/rootfs/tmp/threads.out")" "$DENIED" \
                        "$(probe_field "who=$who" mkdir "$T/b/rootfs/tmp/threads.out")"
                assertEquals "$who" 2 "$(probe_field "who=$who" filters "$T/b/rootfs/tmp/threads.out")"
                assertEquals "$who" no "$(probe_field "who=$who" created "$T/b/rootfs/tmp/threads.out")"
        done
        # The init's threads existed before the filter; read each one's filters from the kernel and
        # compare them with the workload's (the sleep, a child of the init).
        pid=$(runc_pid "$id") || fail "no pid"
        wpid=$(cat "/proc/$pid/task/$pid/children")
        wpid=${wpid%% *}
        mkdir "$T/w"
        assertEquals "workload filters" 2 "$("$GETFILTER" "$wpid" "$T/w")"
        grep -q tsync-signals /proc/"$pid"/task/*/comm || fail "no signal thread in the init"
        for tid in /proc/"$pid"/task/*; do
                tid=${tid##*/}
                echo "  init thread $tid ($(cat "/proc/$pid/task/$tid/comm")): $(grep -E '^Seccomp_filters' "/proc/$pid/task/$tid/status" | tr '\t' ' ')"
                mkdir "$T/t$tid"
                assertEquals "thread $tid filters" 2 "$("$GETFILTER" "$tid" "$T/t$tid")"
                cmp -s "$T/w/filter.0.bpf" "$T/t$tid/filter.0.bpf" || fail "thread $tid: newest filter differs"
                cmp -s "$T/w/filter.1.bpf" "$T/t$tid/filter.1.bpf" || fail "thread $tid: older filter differs"
                n=$((n + 1))
        done
        assertEquals "init threads" 2 "$n"
        # The two layers are two different programs (so the comparison means something).
        cmp -s "$T/w/filter.0.bpf" "$T/w/filter.1.bpf" && fail "the two layers are the same program"
        rt_stop "$id"
        assertEquals "nothing in /tmp/d" "" "$(ls -A "$T/b/rootfs/tmp/d")"
}

# sigpoint_run N SIG: creates a container from $T/b, starts it under sigpoint, which sends SIG to
# the init on entering its Nth system call, waits for the container to stop and deletes it.
# sigpoint's line in $T/point, the container's marker (or nothing) in $T/marker.
sigpoint_run() {
        local n=$1 sig=$2 id=sp-$1-$2-$$ pid
        rm -f "$T/b/rootfs/tmp/marker" "$T/point" "$T/marker"
        _tsync_register runc "$id"
        runc create --bundle "$T/b" "$id" </dev/null >"$T/create.log" 2>&1 || {
                fail "runc create: $(cat "$T/create.log")"
                return 1
        }
        pid=$(runc_pid "$id") || return 1
        "$SIGPOINT" "$pid" init "$n" "$sig" -- runc start "$id" >"$T/point" 2>"$T/point.err" ||
                fail "sigpoint $n $sig: $(cat "$T/point.err")"
        for _ in $(seq 200); do
                [ "$(runc state "$id" 2>/dev/null | jq -r .status)" = stopped ] && break
                sleep 0.05
        done
        assertEquals "container $id stopped" stopped "$(runc state "$id" 2>/dev/null | jq -r .status)"
        stop_runc "$id"
        cp "$T/b/rootfs/tmp/marker" "$T/marker" 2>/dev/null || : >"$T/marker"
}

testSignalsAtEveryPointOfTheInitsSetUpNeverLetAnUnfilteredWorkloadRun() {
        local calls points=() i n sig nr last ran=0 stopped_zero=0 stopped_full=0 filters
        bundle "$T/b" /bin/sh -c 'grep "^Seccomp_filters:" /proc/self/status >/tmp/marker; mkdir /tmp/d/x' ||
                fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" --profile "$PROFILES/deny-getcwd.json" "$T/b" || fail "inject"
        # Calibration: every system call the init's main thread makes, undisturbed.
        sigpoint_run 999999 0
        calls=$(sed -n 's/^point=none entered=[0-9]* syscalls=//p' "$T/point")
        assertNotEquals "no calls seen: $(cat "$T/point")" "" "$calls"
        assertEquals "undisturbed run" "Seccomp_filters:	2" "$(cat "$T/marker")"
        # The points: the first call, every seccomp (317) and clone/clone3 (56/435) and the call after
        # each, and every 20th. The last clone is the fork of the workload.
        i=0
        for nr in ${calls//,/ }; do
                i=$((i + 1))
                case "$nr" in
                317 | 56 | 435) points+=("$i" "$((i + 1))") ;;
                *) [ $((i % 20)) -eq 1 ] && points+=("$i") ;;
                esac
                [ "$nr" = 56 ] && last=$i
        done
        mapfile -t points < <(printf '%s\n' "${points[@]}" | sort -un | awk -v l="${last:-0}" '$1 <= l')
        echo "  the init's main thread made ${i} calls, ${last} until the workload's fork; points: ${points[*]}"
        assertTrue "too few points: ${points[*]}" "[ ${#points[@]} -ge 8 ]"
        for n in "${points[@]}"; do
                for sig in 9 15 19; do
                        sigpoint_run "$n" "$sig"
                        grep -q "^point=$n " "$T/point" || fail "point $n signal $sig not reached: $(cat "$T/point")"
                        if [ -s "$T/marker" ]; then
                                ran=$((ran + 1))
                                assertEquals "point $n signal $sig: the workload ran with" \
                                        "Seccomp_filters:	2" "$(cat "$T/marker")"
                        fi
                        assertEquals "point $n signal $sig: /tmp/d" "" "$(ls -A "$T/b/rootfs/tmp/d")"
                        assertEquals "point $n signal $sig: filter files left" "" "$(ls -A "$T/b/oci-seccomp-tsync")"
                        [ "$sig" = 9 ] && assertFalse "point $n: SIGKILL, yet the workload ran" "[ -s $T/marker ]"
                        if [ "$sig" = 19 ]; then
                                # Stopped mid-set-up: every thread shows the same count (TSYNC), and
                                # after SIGCONT the workload runs filtered.
                                filters=$(sed -n 's/.* stopped_filters=//p' "$T/point")
                                assertEquals "point $n: stopped" T "$(sed -n 's/.* state=\([A-Z?]\) .*/\1/p' "$T/point")"
                                assertEquals "point $n: threads differ: $filters" 1 \
                                        "$(tr ',' '\n' <<<"$filters" | sort -u | wc -l)"
                                case "$filters" in 0 | 0,*) stopped_zero=$((stopped_zero + 1)) ;; 2 | 2,*) stopped_full=$((stopped_full + 1)) ;; esac
                                assertTrue "point $n: SIGSTOP/SIGCONT, the workload did not run" "[ -s $T/marker ]"
                        fi
                done
        done
        echo "  $((${#points[@]} * 3)) signalled starts: the workload ran in $ran, always filtered;" \
                "stopped before the filters $stopped_zero times, after them $stopped_full times"
        assertTrue "never stopped before the filters" "[ $stopped_zero -gt 0 ]"
        assertTrue "never stopped after the filters" "[ $stopped_full -gt 0 ]"
}

# symlink_run: runs $T/b (its rootfs already holds the planted symlinks) and checks that the
# host's $T/victim is exactly as it was and that a workload that ran was filtered.
symlink_run() {
        local before after
        before=$(cd "$T/victim" && find . -printf '%p %y %m %s %l\n' | sort && find . -type f -exec sha256sum {} + | sort)
        rt_run symlink-$$ "$T/b"
        after=$(cd "$T/victim" && find . -printf '%p %y %m %s %l\n' | sort && find . -type f -exec sha256sum {} + | sort)
        echo "  runc: status $rc $(head -c 300 "$T/symlink-$$.err" | tr '\n' ' ')"
        assertEquals "the host's files changed" "$before" "$after"
        if [ -s "$T/b/rootfs/tmp/marker" ]; then
                echo "  the workload ran: $(tr '\t\n' '  ' <"$T/b/rootfs/tmp/marker")"
                assertEquals "the workload ran with" "Seccomp_filters:	1" "$(cat "$T/b/rootfs/tmp/marker")"
        else
                assertNotEquals "the workload did not run, yet the container succeeded" 0 "$rc"
        fi
        assertEquals "/tmp/d" "" "$(ls -A "$T/b/rootfs/tmp/d")"
        # Nothing was mounted on the host either.
        assertEquals "host mounts under the victim" "" "$(grep -F " $T/victim" /proc/self/mountinfo)"
}

# victim: host files a hijacked mount point would touch: an init, a filter directory.
victim() {
        mkdir -p "$T/victim/filters" "$T/victim/dir" || return 1
        echo "host init, do not overwrite" >"$T/victim/init"
        echo "host file" >"$T/victim/file"
        echo "host filter" >"$T/victim/filters/00.bpf"
        echo "host data" >"$T/victim/dir/data"
        chmod 640 "$T/victim/file"
}

symlink_bundle() {
        victim || fail "victim"
        bundle "$T/b" /bin/sh -c 'grep "^Seccomp_filters:" /proc/self/status >/tmp/marker; mkdir /tmp/d/x' ||
                fail "bundle"
        inject --profile "$PROFILES/deny-mkdir.json" "$T/b" || fail "inject"
}

testMountPointDirectoryIsASymlinkToAHostDirectory() {
        symlink_bundle
        ln -s "$T/victim" "$T/b/rootfs/.oci-seccomp-tsync"
        symlink_run
}

testMountPointFilesAreSymlinksToHostFiles() {
        symlink_bundle
        mkdir "$T/b/rootfs/.oci-seccomp-tsync"
        ln -s "$T/victim/file" "$T/b/rootfs/.oci-seccomp-tsync/init"
        ln -s "$T/victim/dir" "$T/b/rootfs/.oci-seccomp-tsync/filters"
        symlink_run
}

testMountPointsAreRelativeSymlinksClimbingOutOfTheRoot() {
        local up
        symlink_bundle
        up=$(sed 's#[^/][^/]*#..#g' <<<"${T#/}/b/rootfs")
        mkdir "$T/b/rootfs/.oci-seccomp-tsync"
        ln -s "../$up/${T#/}/victim/init" "$T/b/rootfs/.oci-seccomp-tsync/init"
        ln -s "../$up/${T#/}/victim/filters" "$T/b/rootfs/.oci-seccomp-tsync/filters"
        # The link resolves to the host's file when followed outside the container.
        assertEquals "host init, do not overwrite" "$(cat "$T/b/rootfs/.oci-seccomp-tsync/init")"
        symlink_run
}

# shellcheck disable=SC1091
. shunit2
