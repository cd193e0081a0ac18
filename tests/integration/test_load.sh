#!/bin/bash
# Load: 200 runc containers started through the hook (inject) in parallel batches, each workload
# checking that it and every thread of the init are filtered; then nothing may be left: no filter
# files, no cache temp files, no containers, no processes or zombies. And the thread-storm TSYNC
# test 200 times over. Prints the figures (no assertion on time). About 3 minutes on 2 cores.
# tests: alone: 200 containers in batches load the machine; a suite beside it would change its figures
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/hooklib.sh"

STORM=$TSYNC_TOOLS/thread_storm
CONTAINERS=${TSYNC_LOAD_CONTAINERS:-200}
BATCH=${TSYNC_LOAD_BATCH:-10}
STORMS=${TSYNC_LOAD_STORMS:-200}
# Every container id of this run starts with this (runc's cgroup path is /<id>).
PREFIX=load$$-
# What each workload prints: its own filters, those of each thread of the init (one line per
# distinct count), and what mkdir got. Two layers: Podman's default profile and deny-mkdir.
WORKLOAD='f=$(grep "^Seccomp_filters:" /proc/self/status | tr -d "\t ")
i=$(grep -h "^Seccomp_filters:" /proc/1/task/*/status | tr -d "\t " | sort -u | tr "\n" " ")
if mkdir /tmp/x 2>/dev/null; then m=made; else m=denied; fi
echo "$f init:$i mkdir:$m"'
FILTERED="Seccomp_filters:2 init:Seccomp_filters:2  mkdir:denied"

oneTimeSetUp() {
        tsync_need_built "$INIT" "$OCI" "$STORM"
}

# setUp: hooklib.sh's (a temp dir $T).
tearDown() {
        local id
        # Containers started in the background subshells are not in lib.sh's list.
        for id in $(runc list -q 2>/dev/null | grep -- "^$PREFIX"); do
                _tsync_remove_container runc "$id"
        done
        tsync_test_end
}

# load_bundle DIR: a bundle on the shared read-only $T/rootfs with a tmpfs on /tmp (so that an
# unfiltered mkdir would work) running $WORKLOAD. Not injected.
load_bundle() {
        local dir=$1
        mkdir -p "$dir" && cp "$T/template.json" "$dir/config.json"
}

# our_processes: every process in a cgroup of one of this run's containers, and every zombie
# among the descendants of this shell. One "pid state comm" line each.
our_processes() {
        local p
        for p in /proc/[0-9]*; do
                grep -qs ":/$PREFIX" "$p/cgroup" && echo "${p#/proc/} $(awk '{print $3, $2}' "$p/stat" 2>/dev/null)"
        done
        ps -e -o pid=,ppid=,stat=,comm= | awk -v top=$$ '
                { ppid[$1] = $2; stat[$1] = $3; comm[$1] = $4 }
                END { for (p in ppid) if (stat[p] ~ /^Z/) {
                        for (q = ppid[p]; q > 1; q = ppid[q]) if (q == top) { print p, stat[p], comm[p]; break } } }'
}

testTwoHundredContainersInParallelBatchesAreAllFilteredAndLeaveNothingBehind() {
        local i j start end pids ok=0 unfiltered=0 failed=0 leaked=0 out
        make_rootfs "$T/rootfs" || fail "rootfs"
        make_bundle "$T/template" sh -c "$WORKLOAD" || fail "template"
        # shellcheck disable=SC2016 # jq's variables
        tsync_json_edit "$T/template/config.json" \
                '.root = {path: $r, readonly: true} | .process.capabilities.ambient = []
                 | .mounts += [{destination: "/tmp", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev"]}]' \
                --arg r "$T/rootfs" || fail "template"
        cp "$T/template/config.json" "$T/template.json"
        # The control: without the hook the same workload is unfiltered and its mkdir works.
        load_bundle "$T/control"
        rt_run "${PREFIX}control" "$T/control"
        assertEquals "control: $(cat "$T/${PREFIX}control.err")" 0 "$rc"
        assertEquals "control" "Seccomp_filters:0 init:Seccomp_filters:0  mkdir:made" "$(cat "$T/${PREFIX}control.out")"

        for i in $(seq "$CONTAINERS"); do
                load_bundle "$T/c$i"
                inject --compile-at-start --profile /usr/share/containers/seccomp.json \
                        --profile "$PROFILES/deny-mkdir.json" "$T/c$i" || fail "inject $i"
        done
        # Compiled at each start: inject checks the layers without filling the cache, and the first
        # batch's createRuntime hooks race to store.
        assertEquals "cache before the first start" "" "$(ls -A "$T/cache" 2>/dev/null)"
        start=$(date +%s.%N)
        for ((i = 1; i <= CONTAINERS; i += BATCH)); do
                pids=()
                for ((j = i; j < i + BATCH && j <= CONTAINERS; j++)); do
                        (rt_run "$PREFIX$j" "$T/c$j"; echo "$rc" >"$T/c$j.rc") &
                        pids+=($!)
                done
                wait "${pids[@]}"
        done
        end=$(date +%s.%N)
        for i in $(seq "$CONTAINERS"); do
                out=$(cat "$T/$PREFIX$i.out" 2>/dev/null)
                if [ "$(cat "$T/c$i.rc" 2>/dev/null)" != 0 ]; then
                        failed=$((failed + 1))
                        [ "$failed" -le 3 ] && echo "  container $i failed: $(head -c 300 "$T/$PREFIX$i.err")"
                fi
                if [ "$out" = "$FILTERED" ]; then
                        ok=$((ok + 1))
                elif [ -n "$out" ]; then
                        # A workload that ran and printed anything else was not filtered as asked.
                        unfiltered=$((unfiltered + 1))
                        echo "  container $i: $out"
                fi
                if [ -n "$(ls -A "$T/c$i/oci-seccomp-tsync" 2>/dev/null)" ]; then
                        leaked=$((leaked + 1))
                        echo "  container $i left: $(ls -A "$T/c$i/oci-seccomp-tsync")"
                fi
        done
        echo "  $CONTAINERS containers in batches of $BATCH: $(echo "$end - $start" | bc) s;" \
                "$ok filtered, $unfiltered unfiltered, $failed failed, $leaked left filter files"
        assertEquals "unfiltered workloads" 0 "$unfiltered"
        assertEquals "containers that failed" 0 "$failed"
        assertEquals "filtered workloads" "$CONTAINERS" "$ok"
        assertEquals "state directories with files left" 0 "$leaked"
        assertEquals "cache entries (one per layer)" 2 "$(find "$T/cache" -mindepth 1 -name '*.bpf' | wc -l)"
        assertEquals "cache temp files" "" "$(find "$T/cache" -mindepth 1 ! -name '*.bpf')"
        assertEquals "containers runc still knows" "" "$(runc list -q 2>/dev/null | grep -- "^$PREFIX")"
        assertEquals "runc state directories" "" "$(ls -d /run/runc/"$PREFIX"* 2>/dev/null)"
        assertEquals "processes or zombies left" "" "$(our_processes)"
}

# storm_field NAME LINE: the number NAME=... of thread_storm's summary line (0 if absent).
storm_field() {
        local v
        v=$(tr ' ' '\n' <<<"$2" | sed -n "s/^$1=\([0-9]*\)$/\1/p")
        echo "${v:-0}"
}

testTheThreadStormTwoHundredTimesWithoutAMiss() {
        local n rc_bad=0 misses=0 created=0 checked=0 start end line
        echo '{"defaultAction": "SCMP_ACT_ALLOW",
               "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 71}]}' >"$T/deny.json"
        "$OCI" compile -O tsync "$T/deny.json" -o "$T/deny.tsync" || fail "compile"
        start=$(date +%s.%N)
        for n in $(seq "$STORMS"); do
                # As test_init.sh's thread-storm test: 64 threads spawning threads, 4 TSYNC loads.
                if ! "$STORM" --spawners 64 --rounds 4 --errno 71 "$T/deny.tsync" >"$T/out" 2>"$T/err"; then
                        rc_bad=$((rc_bad + 1))
                        echo "  run $n: $(cat "$T/out" "$T/err" | head -n 5)"
                fi
                line=$(cat "$T/out")
                misses=$((misses + $(storm_field misses "$line")))
                created=$((created + $(storm_field created "$line")))
                checked=$((checked + $(storm_field self_checked "$line")))
        done
        end=$(date +%s.%N)
        echo "  $STORMS thread storms: $(echo "$end - $start" | bc) s; $created threads created," \
                "$checked checked themselves after a load, $misses misses, $rc_bad failed runs"
        assertEquals "failed runs" 0 "$rc_bad"
        assertEquals "misses" 0 "$misses"
        # The storms really ran: thousands of threads each time, many started after a load.
        assertTrue "created=$created" "[ $created -gt $((STORMS * 1000)) ]"
        assertTrue "checked=$checked" "[ $checked -gt $((STORMS * 100)) ]"
}

# shellcheck disable=SC1091
. shunit2
