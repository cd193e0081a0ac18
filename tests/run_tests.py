#!/usr/bin/env python3
"""Runs every test of the project and prints one closing line: 'N passed, N failed'.

C unit tests (build/tests/unit/test_*) speak TAP; each 'ok'/'not ok' line is one test.
Integration suites (tests/integration/test_*.sh) are shunit2; each test function is one test.
A test binary or suite that crashes, or whose output has no result lines, counts as a failure.

Suites run side by side, --jobs at a time (default: the machine's cores): each cleans up only what
it made and names what it starts uniquely. A suite that must have the host to itself says so in a
comment among its first lines, `# tests: alone: <why>`; those run one at a time after the others.
Each suite's line is printed when it ends; the slowest of the last run (build/test-times.json)
start first, so that a long suite does not end the run alone.

--run-with EMULATOR runs each C unit test under it (a cross build's, under qemu-user: scons arch=arm64
check-unit), less those tests/unit/qemu-user.excluded names, each with its reason: they are counted
and printed as skipped, never left out unsaid. The integration suites are the host's alone.
"""
import concurrent.futures
import json
import threading
import argparse
import fnmatch
import glob
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEARDOWN_GRACE = 120
ALONE = re.compile(r'^# tests: alone: (.+)$', re.M)


def run(cmd, env, timeout):
    # A suite that times out is sent SIGTERM first, with its whole process group: shunit2 traps it and
    # runs tearDown and oneTimeTearDown, so the containers, mounts and daemons it started go with it
    # (a SIGKILL alone once left a test container running for hours). What still runs after the grace
    # period is killed. Output goes to a file, not a pipe: a process left behind holding the pipe would
    # otherwise keep the runner waiting after the suite itself has exited.
    start = time.monotonic()
    with tempfile.TemporaryFile() as log:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        note = ''
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            note = '\n*** timed out after %ds: sent SIGTERM to its process group' % timeout
            signal_group(p, signal.SIGTERM)
            try:
                p.wait(timeout=TEARDOWN_GRACE)
            except subprocess.TimeoutExpired:
                note += '; still running %ds later: SIGKILL' % TEARDOWN_GRACE
            rc = -1
        # Nothing the suite started in its own group outlives it; that it left something is said (a
        # suite must leave nothing behind).
        left = group_members(p.pid)
        signal_group(p, signal.SIGKILL)
        if left:
            note += '\n*** %s left processes in its process group: killed: %s' % (os.path.basename(cmd[-1]), left)
            print(note.strip().splitlines()[-1], flush=True)
        p.wait()
        log.seek(0)
        out = log.read().decode(errors='replace') + (note + '\n' if note else '')
    return out, rc, time.monotonic() - start


def group_members(pgid):
    found = []
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open('/proc/%s/stat' % pid) as f:
                stat = f.read()
            with open('/proc/%s/cmdline' % pid, 'rb') as f:
                argv = f.read().replace(b'\0', b' ').decode(errors='replace').strip()
        except OSError:
            continue
        fields = stat[stat.rindex(')') + 2:].split()
        # A zombie is only waiting for init to reap it, now that the suite is gone.
        if int(fields[2]) == pgid and fields[0] != 'Z':
            found.append('%s (%s)' % (pid, argv[:80]))
    return ', '.join(found)


def signal_group(p, sig):
    try:
        os.killpg(p.pid, sig)
    except ProcessLookupError:
        pass


def devnull():
    st = os.stat('/dev/null')
    return (st.st_uid, st.st_gid, st.st_mode & 0o7777)


def tap(path, env, args):
    out, rc, secs = run(args.run_with + [path], env, args.timeout)
    out, excused = exclude_lines(path, out, args)
    oks = re.findall(r'^ok \d+.*$', out, re.M)
    skipped = len([l for l in oks if re.search(r'#\s*SKIP', l, re.I)])
    passed = len(oks) - skipped
    failed = len(re.findall(r'^not ok \d+', out, re.M))
    plan = re.search(r'^1\.\.(\d+)', out, re.M)
    # A program whose only failures were excluded lines exits 1 (tap_done) all the same.
    broken = rc != 0 and failed == 0 and not (excused and rc == 1) or plan is None or int(plan.group(1)) != passed + failed + skipped
    if broken:
        failed += 1
    return out, passed, failed, skipped, secs


def shunit(path, env, args):
    out, rc, secs = run(['bash', path], env, args.timeout)
    ran = re.search(r'^Ran (\d+) tests?\.', out, re.M)
    if not ran:
        return out, 0, 1, 0, secs
    total = int(ran.group(1))
    failed = 0
    m = re.search(r'^FAILED \((.*)\)', out, re.M)
    if m:
        for key in ('failures', 'errors'):
            f = re.search(key + r'=(\d+)', m.group(1))
            if f:
                failed += int(f.group(1))
    skipped = 0
    s = re.search(r'skipped=(\d+)', out)
    if s:
        skipped = int(s.group(1))
    if rc != 0 and failed == 0:
        failed = 1
    return out, total - failed - skipped, failed, skipped, secs


def alone(path):
    """The reason a suite gives for having the host to itself, or None."""
    if not path.endswith('.sh'):
        return None
    with open(path, errors='replace') as f:
        head = ''.join(f.readline() for _ in range(40))
    m = ALONE.search(head)
    return m.group(1) if m else None


class Report:
    """Totals and the printing of each suite's lines, one suite at a time."""

    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.passed = self.failed = self.skipped = 0
        self.times = {}

    def suite(self, path, out, passed, failed, skipped, secs, note):
        with self.lock:
            self.passed += passed
            self.failed += failed
            self.skipped += skipped
            name = os.path.relpath(path, TOP) if path.startswith(TOP) else path
            self.times[os.path.basename(path)] = round(secs, 1)
            if note:
                print(note, flush=True)
            print('%-50s %4d passed %3d failed %3d skipped %6.1fs' % (name, passed, failed, skipped, secs), flush=True)
            if failed or self.args.verbose:
                for line in out.splitlines():
                    print('    ' + line)
            elif skipped:
                for line in out.splitlines():
                    if re.search(r'#\s*SKIP|^SKIP|skipp', line, re.I):
                        print('    ' + line)
            sys.stdout.flush()


def excluded_under_emulation():
    """tests/unit/qemu-user.excluded as {test binary: [(pattern or None, why)]}. A line is
    'BINARY -- why' (the whole binary is not run) or 'BINARY PATTERN -- why' (its TAP lines whose
    description matches the fnmatch PATTERN are counted as skipped, whatever their result)."""
    found = {}
    with open(os.path.join(TOP, 'tests/unit/qemu-user.excluded')) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            what, sep, why = line.partition(' -- ')
            if not sep or not why.strip() or not what.strip():
                sys.exit('tests/unit/qemu-user.excluded:%d: "BINARY [PATTERN] -- why" expected' % n)
            name, _, pattern = what.strip().partition(' ')
            found.setdefault(name, []).append((pattern.strip() or None, why.strip()))
    return found


def exclude_lines(path, out, args):
    """out with each TAP line the exclusions name turned into a skip that says why, and how many
    of them had failed; a pattern that names no line is a stale exclusion, and a failure."""
    rules = [(p, why) for p, why in args.excluded.get(os.path.basename(path), []) if p]
    if not rules:
        return out, 0
    used = set()
    excused = []

    def judge(m):
        for pattern, why in rules:
            if fnmatch.fnmatchcase(m.group(3), pattern):
                used.add(pattern)
                if m.group(1):
                    excused.append(m.group(2))
                return 'ok %s - %s # SKIP not run under %s (was: %s): %s' % (
                    m.group(2), m.group(3), args.run_with[0], 'not ok' if m.group(1) else 'ok', why)
        return m.group(0)
    out = re.sub(r'^(not )?ok (\d+) - (.*)$', judge, out, flags=re.M)
    for pattern, _ in rules:
        if pattern not in used:
            out += 'not ok 0 - tests/unit/qemu-user.excluded: "%s" names no test of %s\n' % (
                pattern, os.path.basename(path))
    return out, len(excused)


def seccomp_api_of_this_kernel():
    """libseccomp's API level for this host's kernel, as the host's libseccomp probes it."""
    import ctypes
    try:
        level = ctypes.CDLL('libseccomp.so.2').seccomp_api_get()
    except OSError as e:
        sys.exit('--run-with: the host\'s libseccomp.so.2 tells the kernel\'s seccomp API level: %s' % e)
    if level < 1:
        sys.exit('--run-with: this kernel has no seccomp (libseccomp API level %d)' % level)
    return level


def excluded(path, env, args):
    why = next(why for pattern, why in args.excluded[os.path.basename(path)] if not pattern)
    return 'SKIP: not run under %s: %s\n' % (args.run_with[0], why), 0, 0, 1, 0.0


def run_one(path, kind, env, args, report):
    before = devnull()
    out, passed, failed, skipped, secs = kind(path, env, args)
    after = devnull()
    note = None
    if after != before:
        # The host's /dev is not ours (crun fchowns its stdio: lib.sh's tsync_no_devnull). Said,
        # and undone for what runs after; not a failure, since another tenant's container on
        # this host (or a suite beside this one) may have done it while the suite ran.
        note = ('*** the host\'s /dev/null changed from %s to %s (uid, gid, mode) while %s ran: made root\'s, '
                '0666 again' % (before, after, os.path.basename(path)))
        os.chown('/dev/null', 0, 0)
        os.chmod('/dev/null', 0o666)
    report.suite(path, out, passed, failed, skipped, secs, note)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default=os.path.join(TOP, 'build'))
    ap.add_argument('--timeout', type=int, default=900)
    ap.add_argument('--only', help='run only tests whose path contains this')
    ap.add_argument('-j', '--jobs', type=int, default=int(os.environ.get('TSYNC_TEST_JOBS') or os.cpu_count() or 1),
                    help='suites run side by side (default: TSYNC_TEST_JOBS, else the number of cores)')
    ap.add_argument('-v', '--verbose', action='store_true')
    ap.add_argument('--run-with', default='',
                    help='run each unit test under this emulator (qemu-aarch64-static), less '
                         'tests/unit/qemu-user.excluded; no integration suite')
    args = ap.parse_args()
    args.run_with = args.run_with.split()
    args.excluded = excluded_under_emulation() if args.run_with else {}
    if args.run_with:
        # qemu-user answers seccomp() with ENOSYS: the unit tests compile for the API level of the
        # kernel it runs on, this host's (tests/unit/emulated.c).
        env_api = seccomp_api_of_this_kernel()

    env = dict(os.environ)
    env['TSYNC_BUILD'] = args.build
    env['TSYNC_TOP'] = TOP
    env['SHUNIT_COLOR'] = 'none'
    # No system log for what the suites run themselves: their lines stay out of the host's
    # journal, and stderr is the same on a host with /dev/log and one without (where the hook
    # stages say once that no logger listens). test_syslog binds a socket of its own.
    env['TSYNC_SYSLOG_SOCKET'] = ''
    env['PATH'] = os.path.join(args.build, 'bin') + ':' + env.get('PATH', '')
    if args.run_with:
        env['TSYNC_TEST_SECCOMP_API'] = str(env_api)

    suites = sorted(glob.glob(os.path.join(args.build, 'tests/unit/test_*')))
    suites = [(p, tap) for p in suites if os.access(p, os.X_OK) and not p.endswith('.o')]
    if args.run_with:
        unknown = sorted(set(args.excluded) - {os.path.basename(p) for p, _ in suites})
        if unknown:
            sys.exit('tests/unit/qemu-user.excluded names no unit test of %s: %s' % (args.build, ', '.join(unknown)))
        whole = {name for name, rules in args.excluded.items() if any(p is None for p, _ in rules)}
        suites = [(p, excluded if os.path.basename(p) in whole else kind) for p, kind in suites]
    else:
        suites += [(p, shunit) for p in sorted(glob.glob(os.path.join(TOP, 'tests/integration/test_*.sh')))]
    if args.only:
        suites = [s for s in suites if args.only in s[0]]

    times_path = os.path.join(args.build, 'test-times.json')
    try:
        with open(times_path) as f:
            last = json.load(f)
    except (OSError, ValueError):
        last = {}
    side = [s for s in suites if not alone(s[0])]
    side.sort(key=lambda s: -float(last.get(os.path.basename(s[0]), 0)))
    lone = [s for s in suites if alone(s[0])]

    report = Report(args)
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for f in [pool.submit(run_one, p, kind, env, args, report) for p, kind in side]:
            f.result()
    for p, kind in lone:
        run_one(p, kind, env, args, report)
    if not args.only:
        with open(times_path, 'w') as f:
            json.dump(report.times, f, indent=1, sort_keys=True)
    print('%.0fs, up to %d suites at a time' % (time.monotonic() - start, max(1, args.jobs)))
    print('%d passed, %d failed, %d skipped' % (report.passed, report.failed, report.skipped))
    return 1 if report.failed else 0


if __name__ == '__main__':
    sys.exit(main())
