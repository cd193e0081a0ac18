# Shared by the hook suites (test_hook_*.sh): bundles built from the config of a
# real `podman run` (Podman's default profile as the baseline), the workload's
# probe script, and runtime-neutral run helpers. Source after lib.sh.
HERE=${HERE:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
OCI="$TSYNC_BUILD/bin/oci-seccomp-tsync"
INIT="$TSYNC_BUILD/bin/seccomp-tsync-init"
RUNTIME="$TSYNC_BUILD/bin/oci-seccomp-tsync-runtime"
THREADS="$TSYNC_BUILD/tests/static/threads_probe"
EXAMPLES="$TSYNC_TOP/packaging/examples"
PROFILES="$TSYNC_TOP/tests/integration/profiles"
TSYNC_APPLETS="sh sleep cat mkdir ls touch echo grep kill id basename tr rmdir"
RT=${RT:-runc}

# The set-up of most suites: a temp dir of the test's own ($T, lib.sh's $TSYNC_TMP), and every
# container the helpers started removed after it. A suite that needs more defines its own.
setUp() {
        tsync_test_begin || exit 1
        T=$TSYNC_TMP
}

tearDown() {
        tsync_test_end
}

# The probe every test workload runs: PID 1's threads (our init), then the
# workload's own state, then what a mkdir gets. One fact per line.
PROBE='for t in /proc/1/task/*; do
  echo "init $(basename $t) $(grep -E "^(Seccomp|Seccomp_filters):" $t/status | tr "\t\n" "  ")"
done
grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp|Seccomp_filters):" /proc/self/status | tr "\t" " "
if mkdir /tmp/probe-dir 2>/tmp/err; then echo "mkdir: ok"; else echo "mkdir: $(cat /tmp/err)"; fi'

# Once per suite: the config of a real podman run (Podman's default seccomp profile and capabilities).
hook_suite_setup() {
        SUITE_TMP=$(mktemp -d)
        PODMAN_CONFIG="$SUITE_TMP/podman.json"
        if ! bash "$HERE/capture_podman_config.sh" "$PODMAN_CONFIG" >"$SUITE_TMP/capture.log" 2>&1; then
                cat "$SUITE_TMP/capture.log"
                PODMAN_CONFIG=
        fi
}

hook_suite_teardown() {
        rm -rf "$SUITE_TMP"
}

# podman_hooks_dir DIR PROFILE_DIR STATE_ROOT CACHE_DIR [RECORD_ROOT]: our hooks.d files for
# `podman --hooks-dir DIR`, running this build with those directories (an empty STATE_ROOT or
# CACHE_DIR, or no RECORD_ROOT: the hook's default).
podman_hooks_dir() {
        local dir=$1 profiles=$2 state=$3 cache=$4 record=${5:-} f bindir
        bindir=$(cd "$TSYNC_BUILD/bin" && pwd) || return 1
        mkdir -p "$dir" || return 1
        for f in "$TSYNC_TOP"/configs/hooks.d/*.json.in; do
                sed -e "s|@BINDIR@|$bindir|" "$f" |
                        jq --arg p "$profiles" --arg s "$state" --arg c "$cache" --arg r "$record" \
                                '.hook.args += ["--profile-dir", $p]
                                 + (if $s != "" then ["--state-root", $s] else [] end)
                                 + (if $c != "" then ["--cache-dir", $c] else [] end)
                                 + (if $r != "" then ["--record-root", $r] else [] end)' \
                                >"$dir/$(basename "${f%.in}")" || return 1
        done
}

# podman_bundle DIR SCRIPT: a bundle with Podman's default settings that runs `sh -c SCRIPT`.
podman_bundle() {
        local dir=$1 script=$2
        [ -n "$PODMAN_CONFIG" ] || {
                tsync_log "no config from a real podman run"
                return 1
        }
        tsync_bundle_from_config "$PODMAN_CONFIG" "$dir" || return 1
        local extra=()
        [ -x "$TSYNC_BUILD/tests/static/threads_probe" ] && extra+=("$TSYNC_BUILD/tests/static/threads_probe")
        rm -rf "$dir/rootfs" && make_rootfs "$dir/rootfs" "${extra[@]}" || return 1
        tsync_json_edit "$dir/config.json" '.process.args = ["/bin/sh", "-c", $s] | .root.readonly = false' \
                --arg s "$script"
}

# each_runtime FN: FN under runc, then under crun ($RT set, $ID unique for each).
each_runtime() {
        local fn=$1
        for RT in runc crun; do
                # shellcheck disable=SC2034 # $ID is for FN
                ID=$fn-$RT-$$
                "$fn"
        done
        RT=runc
}

# rt_run ID BUNDLE: runs in the foreground with $RT; output in $TSYNC_TMP/ID.out and .err; status in $rc.
rt_run() {
        run_runtime "$RT" "$1" "$2" "$TSYNC_TMP/$1.out" "$TSYNC_TMP/$1.err"
}

rt_start() {
        case "$RT" in
        runc) start_runc "$@" ;;
        crun) start_crun "$@" ;;
        esac
}

rt_stop() {
        case "$RT" in
        runc) stop_runc "$@" ;;
        crun) stop_crun "$@" ;;
        esac
}

rt() {
        case "$RT" in
        runc) runc "$@" ;;
        crun) crun_cmd "$@" ;;
        esac
}

inject() {
        "$OCI" inject --cache-dir "$TSYNC_TMP/cache" "$@"
}

# Lines of the probe output for PID 1's threads that do not show want_filters filters in mode 2.
init_threads_without() {
        local out=$1 want=$2
        grep '^init ' "$out" | grep -v "Seccomp: 2 Seccomp_filters: $want " || true
}

# The probe's capability and NoNewPrivs lines of a run.
cap_lines() {
        grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' "$1"
}

# assert_threads_denied OUT N: threads_probe's lines in OUT, one for each of N threads, each thread
# under two filters (baseline and layer) and its mkdir denied with EDQUOT (deny-mkdir.json).
assert_threads_denied() {
        local out=$1 n=$2
        assertEquals "threads reported" "$n" "$(grep -c '^tid=' "$out")"
        assertEquals "threads not filtered" "" "$(grep '^tid=' "$out" | grep -v ' Seccomp=2 Seccomp_filters=2 ' || true)"
        assertEquals "threads where mkdir did not fail with EDQUOT" "" \
                "$(grep '^tid=' "$out" | grep -v 'call=mkdir rc=-1 errno=122' || true)"
}

# assert_agents_getppid: `threads_probe -n 4 getppid` printed, in $TSYNC_TMP/out, 5 threads (the
# main one and 4) whose getppid the test agent answered (seccomp_agent's 4242).
assert_agents_getppid() {
        assertEquals "threads whose getppid was the agent's: $(cat "$TSYNC_TMP/out")" 5 \
                "$(grep -c '^tid=.* call=getppid rc=4242 errno=0$' "$TSYNC_TMP/out")"
}

# assert_agent_tmpfs_empty: the workload's `ls -a /.oci-seccomp-tsync/agent` (its other lines in
# $TSYNC_TMP/out) found nothing there but . and ..
assert_agent_tmpfs_empty() {
        assertEquals "the workload found the agent's tmpfs empty" ".
.." "$(grep -v '^tid=' "$TSYNC_TMP/out")"
}

# assert_started WHAT PREFIX: WHAT, just started in the background with its stdout in PREFIX.out
# and its stderr in PREFIX.err, said "ready" (tsync_wait_ready); else a failed assert with its
# stderr, and 1.
assert_started() {
        tsync_wait_ready "$2.out" && return 0
        fail "the $1 did not start: $(cat "$2.err")"
        return 1
}
