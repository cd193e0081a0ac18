#!/bin/bash
# run.sh [--seconds N] [--build DIR] [--fresh] [TARGET...]
#
# Runs each libFuzzer target (build/fuzz/fuzz_*; `scons fuzz` builds them)
# for N seconds (default $FUZZ_SECONDS or 60), one at a time, on a working copy
# of its seed corpus (build/fuzz/corpus/<target>/: seeds from
# tests/fuzz/corpus/<target>/ plus what earlier runs found; --fresh starts
# from the seeds alone). Crash inputs land in build/fuzz/artifacts/<target>/;
# move a reproducer to tests/fuzz/crashes/<target>/ and
# tests/unit/test_fuzz_regressions.c runs it in every `scons check`.
# Prints one line per target (executions, coverage, corpus) and exits 1 if
# any target found a crash, a leak, a timeout or a broken property.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build
seconds=${FUZZ_SECONDS:-60}
fresh=false
targets=()
while [ $# -gt 0 ]; do
        case "$1" in
        --seconds) seconds=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        --fresh) fresh=true; shift ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
        esac
done
case "$seconds" in
''|*[!0-9]*) echo "run.sh: --seconds/FUZZ_SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;;
esac
if [ ${#targets[@]} -eq 0 ]; then
        for d in "$top"/tests/fuzz/corpus/*/; do
                targets+=("$(basename "$d")")
        done
fi

# A smaller quarantine keeps the process small, so the forks that load
# filters into the kernel stay cheap; leaks are crashes too (but for libseccomp's own,
# see lsan.supp).
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64:detect_leaks=1:abort_on_error=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$top/tests/fuzz/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=0
printf '%-22s %10s %8s %8s %8s %6s  %s\n' target executions exec/s cov ft corpus result
for t in "${targets[@]}"; do
        bin=$build/fuzz/$t
        seeds=$top/tests/fuzz/corpus/$t
        work=$build/fuzz/corpus/$t
        art=$build/fuzz/artifacts/$t
        log=$build/fuzz/$t.log
        if [ ! -x "$bin" ] || [ ! -d "$seeds" ]; then
                echo "run.sh: $t: $bin or $seeds is missing (scons fuzz builds the targets)" >&2
                failed=1
                continue
        fi
        $fresh && rm -rf "$work"
        mkdir -p "$work" "$art"
        cp -n "$seeds"/* "$work"/ 2>/dev/null || true
        dict=()
        case "$t" in
        fuzz_filterfile | fuzz_record) ;;
        *) dict=(-dict="$top/tests/fuzz/seccomp.dict") ;;
        esac
        "$bin" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
                -artifact_prefix="$art/" "${dict[@]}" "$work" >"$log" 2>&1
        rc=$?
        done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
        cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")
        ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done_line")
        corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$done_line")
        result=ok
        if [ $rc -ne 0 ]; then
                result="FAILED (exit $rc): see $log and $art/"
                failed=1
        fi
        printf '%-22s %10s %8s %8s %8s %6s  %s\n' "$t" "${execs:--}" "${rate:--}" "${cov:--}" "${ft:--}" \
                "${corp:--}" "$result"
        grep '^fuzz: ' "$log" | sed 's/^/    /'
        if [ $rc -ne 0 ]; then
                grep -E 'ERROR|property broken|^    #[0-9]+ ' "$log" | head -25 | sed 's/^/    /'
                ls "$art" | sed 's/^/    artifact: /'
        fi
done
exit $failed
