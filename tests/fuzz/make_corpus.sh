#!/bin/bash
# make_corpus.sh [PODMAN_CONFIG]
#
# Rebuilds the seed corpus in tests/fuzz/corpus/<target>/ from the project's
# fixtures and profiles, containers-common's seccomp.json, a `runc spec`
# config, a config rewritten by `oci-seccomp-tsync inject`, and filter files
# written by `oci-seccomp-tsync compile -O tsync` (build first: scons).
# PODMAN_CONFIG: a config.json captured from `podman run`
# (tests/integration/capture_podman_config.sh OUT), added when given.
# The seeds are small on purpose (the whole corpus stays under 1 MB): the
# fuzzers grow their own corpus in build/fuzz/corpus/.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cli=${TSYNC_BUILD:-$top/build}/bin/oci-seccomp-tsync
out=$top/tests/fuzz/corpus
podman_config=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$cli" ] || { echo "make_corpus: $cli is missing: run scons first" >&2; exit 1; }
command -v runc >/dev/null || { echo "make_corpus: runc is missing" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"/{fuzz_json,fuzz_profile_oci,fuzz_profile_docker,fuzz_config,fuzz_state,fuzz_filterfile,fuzz_exec_view}

# OCI linux.seccomp objects.
oci_profiles=("$top"/tests/unit/fixtures/compile/*.json "$top"/configs/profiles/*.json
        "$top"/tests/integration/profiles/*.json)
for f in "${oci_profiles[@]}"; do
        cp "$f" "$out/fuzz_profile_oci/$(basename "$(dirname "$f")")-$(basename "$f")"
done

# Flags and the rarer actions (the kernel refuses WAIT_KILLABLE_RECV without a listener).
cat >"$out/fuzz_profile_oci/flags-actions.json" <<'EOF'
{"defaultAction": "SCMP_ACT_ALLOW", "flags": ["SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"],
 "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86"],
 "syscalls": [{"names": ["mkdir"], "action": "SCMP_ACT_TRACE", "errnoRet": 7},
              {"names": ["rmdir"], "action": "SCMP_ACT_TRAP"}, {"names": ["getcwd"], "action": "SCMP_ACT_LOG"},
              {"names": ["kcmp"], "action": "SCMP_ACT_KILL_PROCESS"}, {"names": ["bpf"], "action": "SCMP_ACT_NOTIFY"},
              {"names": ["socket"], "action": "SCMP_ACT_ERRNO", "errnoRet": 4094,
               "args": [{"index": 0, "value": 16, "op": "SCMP_CMP_EQ"}]}]}
EOF

# A runc spec config with a profile, and the same after inject (it carries a plan).
(cd "$tmp" && runc spec)
python3 - "$tmp/config.json" "$top/tests/unit/fixtures/compile/basic.json" "$out" <<'EOF'
import json, sys
spec, profile, out = sys.argv[1:]
c = json.load(open(spec))
c['linux']['seccomp'] = json.load(open(profile))
c['process']['args'] = ['sh', '-c', 'echo hi']
json.dump(c, open(spec, 'w'), indent=2)
json.dump(c, open(out + '/fuzz_config/runc-spec.json', 'w'), indent=1)
small = {'ociVersion': '1.0.2', 'process': {'args': ['true'], 'noNewPrivileges': True},
         'linux': {'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW',
                               'syscalls': [{'names': ['mkdir'], 'action': 'SCMP_ACT_ERRNO', 'errnoRet': 1}]}}}
json.dump(small, open(out + '/fuzz_config/small.json', 'w'))
EOF
mkdir -p "$tmp/rootfs"
touch "$tmp/fake-init"
"$cli" inject --init "$tmp/fake-init" --no-cache -p "$top/configs/profiles/deny-ptrace.json" "$tmp" 2>/dev/null
# The temporary bundle's path, as a fixed one: the seeds stay the same from run to run.
sed "s|$tmp|/run/bundle|g" "$tmp/config.json" >"$out/fuzz_config/runc-spec-injected.json"
"$cli" inject --init "$tmp/fake-init" --no-cache --replace "$tmp" 2>/dev/null
sed "s|$tmp|/run/bundle|g" "$tmp/config.json" >"$out/fuzz_config/runc-spec-injected-replace.json"

# The exec view's configs (fuzz_exec_view): capabilities lent (noNewPrivileges false), as inject writes
# them, compact, indented by two (as Podman writes config.json) and as Go's encoder escapes; and the
# exec view of each (the plan's sets back, a running container).
mkdir -p "$tmp/ev/rootfs"
cat >"$tmp/ev/config.json" <<'EOF'
{"ociVersion": "1.0.2", "process": {"args": ["sh", "-c", "echo hi"], "cwd": "/", "user": {"uid": 0, "gid": 0},
 "noNewPrivileges": false, "capabilities": {"bounding": ["CAP_CHOWN", "CAP_KILL"], "effective": ["CAP_KILL"],
 "permitted": ["CAP_KILL"], "inheritable": [], "ambient": ["CAP_KILL"]}},
 "root": {"path": "rootfs", "readonly": true}, "annotations": {"keep": "me \u00e9\ud83d\ude00"},
 "linux": {"namespaces": [{"type": "mount"}, {"type": "pid"}], "seccomp": {"defaultAction": "SCMP_ACT_ALLOW",
 "syscalls": [{"names": ["mkdir"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]}}}
EOF
"$cli" inject --init "$tmp/fake-init" --no-cache -p "$top/tests/integration/profiles/deny-mkdir.json" "$tmp/ev" 2>/dev/null
sed "s|$tmp/ev|/run/bundle|g; s|$top|/src|g" "$tmp/ev/config.json" >"$out/fuzz_exec_view/lent-pretty.json"
python3 - "$out/fuzz_exec_view" <<'EOF'
import json, sys
out = sys.argv[1]
lent = json.load(open(out + '/lent-pretty.json'))
exec_view = json.loads(json.dumps(lent))
exec_view['process']['capabilities'] = json.loads(lent['annotations']['io.oci-seccomp-tsync.plan'])['capabilities']
exec_view['annotations']['io.oci-seccomp-tsync.running'] = 'seed-1'
for name, c in (('lent', lent), ('exec', exec_view)):
    json.dump(c, open('%s/%s-compact.json' % (out, name), 'w'), separators=(',', ':'), ensure_ascii=False)
    json.dump(c, open('%s/%s-indent2.json' % (out, name), 'w'), indent=2, ensure_ascii=False)
json.dump(exec_view, open(out + '/exec-pretty.json', 'w'), indent=4, ensure_ascii=False)
go = json.loads(json.dumps(lent))
go['annotations']['x<y>&'] = '\u00e9\U0001F600<>&\u2028'
s = json.dumps(go, separators=(',', ':'), ensure_ascii=False)
s = s.replace('<', '\\u003c').replace('>', '\\u003e').replace('&', '\\u0026').replace('\u2028', '\\u2028')
open(out + '/lent-go.json', 'w').write(s)
EOF

if [ -n "$podman_config" ]; then
        cp "$podman_config" "$out/fuzz_config/podman-run.json"
        python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["linux"]["seccomp"], open(sys.argv[2], "w"))' \
                "$podman_config" "$out/fuzz_profile_oci/podman-run-seccomp.json"
fi

# Docker-format profiles: containers-common's, and small ones for each feature.
cp /usr/share/containers/seccomp.json "$out/fuzz_profile_docker/containers-common.json"
cat >"$out/fuzz_profile_docker/features.json" <<'EOF'
{"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 38,
 "archMap": [{"architecture": "SCMP_ARCH_X86_64", "subArchitectures": ["SCMP_ARCH_X86", "SCMP_ARCH_X32"]}],
 "syscalls": [
  {"names": ["read", "write", "exit_group"], "action": "SCMP_ACT_ALLOW"},
  {"name": "personality", "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 8, "op": "SCMP_CMP_EQ"}]},
  {"names": ["clone"], "action": "SCMP_ACT_ALLOW",
   "args": [{"index": 0, "value": 2114060288, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}],
   "excludes": {"caps": ["CAP_SYS_ADMIN"], "arches": ["s390", "s390x"]}},
  {"names": ["bpf"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_ADMIN"]}},
  {"names": ["landlock_create_ruleset"], "action": "SCMP_ACT_ALLOW", "includes": {"minKernel": "5.13"}},
  {"names": ["arch_prctl"], "action": "SCMP_ACT_ALLOW", "includes": {"arches": ["amd64", "x32"]}},
  {"names": ["chown"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_CHOWN"]}},
  {"names": ["socket"], "action": "SCMP_ACT_ERRNO", "errnoRet": 22, "args": [{"index": 0, "value": 40, "op": "SCMP_CMP_EQ"}]}
 ]}
EOF
cat >"$out/fuzz_profile_docker/minimal.json" <<'EOF'
{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"name": "ptrace", "action": "SCMP_ACT_ERRNO"}]}
EOF

# States as the runtime hands them to hooks.
printf '%s' '{"ociVersion":"1.0.2","id":"3f1c2b","status":"creating","pid":4242,"bundle":"/run/containers/3f1c2b/userdata","annotations":{"io.oci-seccomp-tsync.layers":"deny-ptrace"}}' \
        >"$out/fuzz_state/creating.json"
printf '%s' '{"ociVersion":"1.0.2","id":"x","status":"stopped","bundle":"/b"}' >"$out/fuzz_state/stopped.json"
printf '%s' '{"id":"a\u0000b","bundle":"relative"}' >"$out/fuzz_state/nul-in-id.json"

# Generic JSON: the profiles above, and the parser's corners.
cp "$top/tests/unit/fixtures/compile/masked.json" "$out/fuzz_json/masked.json"
cp "$out/fuzz_state/creating.json" "$out/fuzz_json/state.json"
printf '%s' '{"n":[0,-0,18446744073709551615,18446744073709551616,1.5e300,-1E-2],"s":"\u00e9\ud83d\ude00\u0000\"\\","b":[true,false,null]}' \
        >"$out/fuzz_json/corners.json"
printf '%s' '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]' >"$out/fuzz_json/depth-32.json"
printf '%s' '{"a":1,"a":2}' >"$out/fuzz_json/duplicate-key.json"

# Filter files the init reads, and damaged ones.
"$cli" compile -O tsync "$top/tests/unit/fixtures/compile/basic.json" -o "$out/fuzz_filterfile/basic.bpf"
"$cli" compile -O tsync "$top/configs/profiles/deny-ptrace.json" -o "$out/fuzz_filterfile/deny-ptrace.bpf"
"$cli" compile -O tsync "$top/tests/unit/fixtures/compile/masked.json" -o "$out/fuzz_filterfile/masked.bpf"
python3 - "$out/fuzz_filterfile" <<'EOF'
import sys
d = sys.argv[1]
good = open(d + '/deny-ptrace.bpf', 'rb').read()
open(d + '/truncated.bpf', 'wb').write(good[:len(good) - 8])
bad = bytearray(good); bad[40] ^= 1
open(d + '/bad-checksum.bpf', 'wb').write(bytes(bad))
EOF

# Record files (record/record_file.h): x86_64 and its other ABIs, numbers without a
# name, a damaged one; busybox.rec is what `sh -c 'ls /; cat /etc/hostname'`
# calls (test_record_profile.sh's record_of).
mkdir -p "$out/fuzz_record"
m='oci-seccomp-tsync-record 1'
printf '%s\nc000003e 59\nc000003e 0\nc000003e 1\nc000003e 231\n' "$m" >"$out/fuzz_record/basic.rec"
printf '%s\nc000003e 59\n40000003 11\n40000003 4\nc000003e 1073742344\nc000003e 1073741825\n' "$m" \
        >"$out/fuzz_record/abis.rec"
printf '%s\nc000003e 462\nc000003e 4294967295\nc000003e 0\n' "$m" >"$out/fuzz_record/unnamed.rec"
printf '%s\nc000003e 4294967295\n' "$m" >"$out/fuzz_record/only-unnamed.rec"
printf '%s\n' "$m" >"$out/fuzz_record/magic-only.rec"
printf '%s\nc000003e 59\nc000003e 6' "$m" >"$out/fuzz_record/cut-short.rec"
{
        echo "$m"
        for n in 1 3 10 12 13 15 16 39 40 56 59 61 63 79 89 102 110 157 158 217 218 231 257 262 273 302 318 334; do
                echo "c000003e $n"
        done
} >"$out/fuzz_record/busybox.rec"

du -sh "$out"
