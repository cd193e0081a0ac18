#!/usr/bin/env python3
"""A container start seen whole, from `perf script` text of tests/bench/bench_start_whole.sh.

  start_whole.py [--base MODE] [--unit MODE] DIR RUNTIME MODE[=YARDSTICK]...

For each MODE, DIR/RUNTIME-MODE.R.txt is round R's start, recorded system-wide (perf record -a)
with the events bench_start_whole.sh names and printed by `perf script -F
comm,pid,tid,cpu,time,event,trace`; DIR/RUNTIME-MODE.R.txt.pid holds the pid of the process perf
started; DIR/RUNTIME-MODE.ms holds the same mode's untraced starts, timed as a user times them
(ms, a line per round, round 0 first), and DIR/RUNTIME-MODE.cpu the CPU time (user and system) of
their processes, ms. Prints three tables, medians in ms:

  1. the phases of every start, which add up to its total:
     wrapper  the runtime wrapper's exec to the runtime's (runc's, crun's): its own time (0
              without it); the shells and unshare in front (the pid file's, crun's cgroup2 mount)
              are left out
     rt>fork  the runtime's exec to its fork of the container's first process: reading the config,
              the cgroup
     fork>hk  that fork to the first createRuntime hook's fork, or to PID 1's execve if none: the
              namespaces, the mounts
     crhook   the createRuntime hooks, from the runtime's fork of the first to its wait4 reaping
              the last
     hk>exec  the last hook reaped to PID 1's execve (0 without hooks): the runtime's set-up after
              the hooks (masked paths, pivot_root, its seccomp filter, ...)
     execve   PID 1's execve call to its program's exec (the runtime's other threads killed)
     pid1>sh  the exec of PID 1's program (our init, catatonit, or sh itself) to the workload's
     sh       the workload (sh -c :), exec to exit_group
     sh>pid1  that to the exit of PID 1's last thread
     pid1>end that to the runtime's exit, less poststop
     pshook   the poststop hooks, from the fork of the first to the reaping of the last
     total    the wrapper's or the runtime's exec to the runtime's exit
     over     total less the base mode's (--base, default podman), difference of medians
  2. each mode against the base: the paired median (over rounds, mode - base within a round) of
     the timed starts (t-over) and of the traced totals (tr-over), their gap and whether it is
     within twice its noise (a standard error of the median from the IQR of the per-round gaps),
     the CPU time (cpu, c-over), and what the trace shows beside: the hooks' own time (exec to
     exit), the runtime's mount calls before PID 1's exec (count, time in them)
  3. each mode's own cost, beyond its YARDSTICK (what that path needs of hooks) or the base:
     paired medians of the traced totals, the timed starts and the CPU time, the first two as a
     multiple of the --unit mode's cost over the base (default catatonit), and by phase
     (differences of medians), with fork>exec (fork>hk and hk>exec together: the container's
     set-up but the createRuntime hooks) in place of the two; "phases": the same cost counted
     by the phases that are the path's own and the time in the runtime's mount calls alone
     (OWN_PHASES: not the runtime's set-up around them, where the noise is), and "x ph" that as
     a multiple of the --unit mode's
Only the processes of that start count: the pid file's process and what descends from it (fork
events); the trace is system-wide. A start whose events lack a phase is left out of that phase
(n says how many starts each mode has); asserts nothing."""
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from start_phases import FORK, LINE, PID1_PROGRAMS  # noqa: E402

PHASES = ("wrapper", "rt>fork", "fork>hk", "crhook", "hk>exec", "execve", "pid1>sh", "sh", "sh>pid1",
          "pid1>end", "pshook")
# Table 3's: the set-up in the container whole (fork>hk and hk>exec), which compares a mode with a
# createRuntime hook to one without.
BY_PHASE = ("wrapper", "rt>fork", "fork>exec", "crhook", "execve", "pid1>sh", "sh", "sh>pid1", "pid1>end", "pshook")
# Table 3's own cost by phases: those that are the path's own (the wrapper, the hooks, PID 1's exec
# and its time around the workload, the ends) and the time in the runtime's mount calls, but not
# the runtime's set-up around them (rt>fork, fork>hk, hk>exec: 18 to 50 ms that vary by several ms
# from start to start) nor the workload: less noisy than whole totals, and blind to what a path
# costs inside the runtime's set-up beside its mounts (a longer config to read, mount points).
OWN_PHASES = ("wrapper", "crhook", "execve", "pid1>sh", "sh>pid1", "pid1>end", "pshook", "mount ms")
HARNESS = ("sh", "dash", "bash", "unshare")
RUNTIMES = ("runc", "crun")


def read_events(path, top):
    """The events of one start's processes: (time ms, tgid, tid, event, rest), in time order."""
    family = {top}
    events = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            tgid, tid, when = int(m.group(2)), int(m.group(3)), float(m.group(4)) * 1000
            event, rest = m.group(5).rstrip(":"), m.group(6)
            if event == "sched:sched_process_fork":
                fm = FORK.search(rest)
                if fm and int(fm.group(1)) in family:
                    family.add(int(fm.group(2)))
                    events.append((when, tgid, tid, event, int(fm.group(2))))
                continue
            if tid in family or tgid in family:
                events.append((when, tgid, tid, event, rest))
    return events


def start(path):
    """The phases of one start (ms), its hooks' own time and its mount calls; None if no end."""
    with open(path + ".pid", encoding="utf-8") as f:
        top = int(f.read())
    events = read_events(path, top)
    fork = {}  # child pid -> (time, the forking process)
    execs = {}  # tgid -> [(time, filename)]
    execve_enter = {}  # tgid -> the last execve call's time
    exit_group = {}  # tgid -> [time]
    exits = {}  # tgid -> the last exit of any of its threads
    group_dead = {}  # tgid -> the exit of its last thread
    reaped = {}  # pid -> the time the top process's wait4 returned it
    mounts = []  # (enter, exit) of every mount call
    pending = {}
    for when, tgid, tid, event, rest in events:
        if event == "sched:sched_process_fork":
            fork.setdefault(rest, (when, tgid))
        elif event == "sched:sched_process_exec":
            fm = re.search(r"filename=(\S+) pid=", rest)
            execs.setdefault(tgid, []).append((when, fm.group(1) if fm else ""))
        elif event == "syscalls:sys_enter_execve":
            execve_enter[tgid] = when
        elif event == "syscalls:sys_enter_exit_group":
            exit_group.setdefault(tgid, []).append(when)
        elif event == "sched:sched_process_exit":
            exits[tgid] = when
            if "group_dead=true" in rest:
                group_dead[tgid] = when
        elif event == "syscalls:sys_exit_wait4" and tgid == top:
            ret = int(rest.split()[0], 16) if rest else 0
            if 0 < ret < 1 << 31:
                reaped.setdefault(ret, when)
        elif event == "syscalls:sys_enter_mount":
            pending[tid] = when
        elif event == "syscalls:sys_exit_mount" and tid in pending:
            mounts.append((pending.pop(tid), when))

    # The start: the runtime's exec, or the wrapper's that execs it, but not the shells and unshare
    # in front of them (the pid file's, crun's cgroup2 mount).
    t0 = rt = None
    for t, name in execs.get(top, []):
        if os.path.basename(name) in HARNESS:
            t0 = None
        elif t0 is None:
            t0 = t
        if os.path.basename(name) in RUNTIMES:
            rt = t
            break
    pid1 = t_exec = None
    for tgid, lst in sorted(execs.items(), key=lambda kv: kv[1][0][0]):
        for t, name in lst:
            if name in PID1_PROGRAMS and (t_exec is None or t < t_exec):
                pid1, t_exec = tgid, t
    if None in (t0, rt, pid1) or top not in group_dead:
        return None
    t_execve = execve_enter.get(pid1, t_exec)
    if t_execve > t_exec:
        t_execve = t_exec
    # The container's first process: PID 1 or its ancestor that the runtime forked.
    chain, p = {pid1}, pid1
    while p in fork and fork[p][1] != top:
        p = fork[p][1]
        chain.add(p)
    if p not in fork:
        return None
    t_cfork = fork[p][0]
    # The workload: the first exec of /bin/sh from PID 1's exec on (PID 1 itself in a plain run).
    sh = t_sh = None
    for tgid, lst in execs.items():
        for t, name in lst:
            if name == "/bin/sh" and t >= t_exec and (t_sh is None or t < t_sh):
                sh, t_sh = tgid, t
    t_shexit = next((t for t in exit_group.get(sh, []) if t_sh is not None and t >= t_sh), None)
    t_gone = exits.get(pid1)
    t_end = group_dead[top]
    # Hooks: the runtime's children (after its exec) that exec a program of their own.
    hooks = []
    for child, (t, parent) in fork.items():
        if parent != top or t < rt or child in chain or child not in execs:
            continue
        name = execs[child][0][1]
        if name == "/proc/self/exe" or name.startswith("/dev/fd/"):
            continue
        end = reaped.get(child, exits.get(child))
        if end is None:
            continue
        own = group_dead.get(child, exits.get(child, end)) - execs[child][0][0]
        hooks.append((t, end, own))
    cr = [h for h in hooks if h[0] < t_execve]
    ps = [h for h in hooks if t_gone is not None and h[0] >= t_gone]
    out = {"wrapper": rt - t0, "rt>fork": t_cfork - rt, "execve": t_exec - t_execve, "total": t_end - t0}
    if cr:
        out["fork>hk"] = min(h[0] for h in cr) - t_cfork
        out["crhook"] = max(h[1] for h in cr) - min(h[0] for h in cr)
        out["hk>exec"] = t_execve - max(h[1] for h in cr)
    else:
        out["fork>hk"] = t_execve - t_cfork
        out["crhook"] = out["hk>exec"] = 0.0
    out["fork>exec"] = out["fork>hk"] + out["hk>exec"]
    if t_sh is not None:
        out["pid1>sh"] = t_sh - t_exec
    if t_sh is not None and t_shexit is not None:
        out["sh"] = t_shexit - t_sh
    if t_shexit is not None and t_gone is not None:
        out["sh>pid1"] = t_gone - t_shexit
    if t_gone is not None:
        out["pshook"] = max(h[1] for h in ps) - min(h[0] for h in ps) if ps else 0.0
        out["pid1>end"] = t_end - t_gone - out["pshook"]
    out["hook own"] = sum(h[2] for h in cr + ps)
    early = [(a, b) for a, b in mounts if rt <= a < t_execve]
    out["mounts"] = float(len(early))
    out["mount ms"] = sum(b - a for a, b in early)
    return out


def median(vals):
    return statistics.median(vals) if vals else None


def fmt(v, width=7, sign=False):
    if v is None:
        return "%*s" % (width, "-")
    return ("%+*.2f" if sign else "%*.2f") % (width, v)


def paired(a, b):
    """Round -> a - b, over the rounds both have."""
    return {r: a[r] - b[r] for r in a if r in b and a[r] is not None and b[r] is not None}


def per_line(path):
    """Round -> the number on that line of path (round 0 first); empty if there is no such file."""
    try:
        with open(path, encoding="utf-8") as f:
            return {r: float(v) for r, v in enumerate(f.read().split())}
    except OSError:
        return {}


def times(v, unit):
    """v as a multiple of unit, e.g. " 1.40x"; "-" unless unit is above 0."""
    return "%5.2fx" % (v / unit) if v is not None and unit and unit > 0 else "%6s" % "-"


def noise(diffs):
    """A rough standard error of the median of diffs (from their IQR), ms."""
    if len(diffs) < 4:
        return None
    q = statistics.quantiles(diffs, n=4)
    return 1.2533 * (q[2] - q[0]) / 1.349 / len(diffs) ** 0.5


def main():
    args = sys.argv[1:]
    base, unit = "podman", "catatonit"
    while args and args[0] in ("--base", "--unit") and len(args) > 1:
        if args[0] == "--base":
            base = args[1]
        else:
            unit = args[1]
        args = args[2:]
    if len(args) < 3:
        sys.exit(__doc__)
    top, rt = args[0], args[1]
    modes, yard = [], {}
    for a in args[2:]:
        m, _, y = a.partition("=")
        modes.append(m)
        if y:
            yard[m] = y
    missing = sorted({base, unit, *yard.values()} - set(modes))
    if missing:
        sys.exit("start_whole.py: not among the modes: %s" % " ".join(missing))
    runs = {}  # mode -> round -> phases
    timed, cpu = {}, {}  # mode -> round -> ms
    for mode in modes:
        runs[mode] = {}
        for p in glob.glob("%s/%s-%s.*[0-9].txt" % (top, rt, mode)):
            runs[mode][int(p.rsplit(".", 2)[1])] = start(p)
        timed[mode] = per_line("%s/%s-%s.ms" % (top, rt, mode))
        cpu[mode] = per_line("%s/%s-%s.cpu" % (top, rt, mode))

    def col(mode, c):
        return [s[c] for s in runs[mode].values() if s is not None and c in s]

    def per_round(mode, c):
        return {r: (s or {}).get(c) for r, s in runs[mode].items()}

    def pmed(a, b):
        return median(list(paired(a, b).values()))

    med = {(m, c): median(col(m, c)) for m in modes
           for c in PHASES + ("fork>exec", "total", "hook own", "mounts", "mount ms")}

    print("%s: the phases of a start, ms (medians over rounds; n = starts traced whole)" % rt)
    print("%-9s %2s " % ("mode", "n") + " ".join("%7s" % c for c in PHASES + ("total",)) + " %7s" % "over")
    for m in modes:
        over = med[(m, "total")] - med[(base, "total")] if None not in (med[(m, "total")], med[(base, "total")]) \
            else None
        print("%-9s %2d " % (m, len(col(m, "total"))) + " ".join(fmt(med[(m, c)]) for c in PHASES + ("total",)) +
              " " + fmt(over, sign=True))

    print()
    print("%s: against %s, paired medians over rounds (ms): timed untraced, traced total, CPU time untraced" %
          (rt, base))
    print("%-9s %7s %7s %7s %7s  %-13s %6s %6s %8s %6s %8s" %
          ("mode", "timed", "t-over", "tr-over", "gap", "", "cpu", "c-over", "hook own", "mounts", "mount ms"))
    for m in modes:
        d_t = paired(timed[m], timed[base])
        d_tr = paired(per_round(m, "total"), per_round(base, "total"))
        a, b = median(list(d_t.values())), median(list(d_tr.values()))
        gap = a - b if None not in (a, b) else None
        se = noise(list(paired(d_t, d_tr).values()))
        if m == base or gap is None:
            verdict = ""
        elif se is None:
            verdict = "(too few)"
        else:
            verdict = "%s +-%.1f" % ("agree" if abs(gap) <= 2 * se else "DIFFER", 2 * se)
        mounts = med[(m, "mounts")]
        print("%-9s %7s %7s %7s %7s  %-13s %6s %6s %8s %6s %8s" %
              (m, fmt(median(list(timed[m].values()))), fmt(a, sign=True), fmt(b, sign=True), fmt(gap, sign=True),
               verdict, fmt(median(list(cpu[m].values())), 6), fmt(pmed(cpu[m], cpu[base]), 6, sign=True),
               fmt(med[(m, "hook own")], 8), "%6.1f" % mounts if mounts is not None else "-",
               fmt(med[(m, "mount ms")], 8)))

    unit_tr = pmed(per_round(unit, "total"), per_round(base, "total"))
    unit_t = pmed(timed[unit], timed[base])

    def own_phases(m, y):
        cells = [med[(m, c)] - med[(y, c)] for c in OWN_PHASES if None not in (med[(m, c)], med[(y, c)])]
        return sum(cells) if len(cells) == len(OWN_PHASES) else None

    unit_ph = own_phases(unit, base)
    print()
    print("%s: each mode's own cost, beyond %s or its yardstick (paired medians, ms; x: as a multiple of %s's, "
          "%s ms traced, %s ms timed, %s ms by its own phases), and by phase (differences of medians)" %
          (rt, base, unit, fmt(unit_tr, 0), fmt(unit_t, 0), fmt(unit_ph, 0)))
    print("%-19s %7s %7s %6s %6s %6s %7s %6s " % ("mode - yardstick", "traced", "timed", "cpu", "x tr", "x tm",
                                                  "phases", "x ph") +
          " ".join("%9s" % c for c in BY_PHASE))
    for m in modes:
        y = yard.get(m, base)
        if m == base:
            continue
        cells = [med[(m, c)] - med[(y, c)] if None not in (med[(m, c)], med[(y, c)]) else None for c in BY_PHASE]
        ours_tr = pmed(per_round(m, "total"), per_round(y, "total"))
        ours_t = pmed(timed[m], timed[y])
        ours_ph = own_phases(m, y)
        print("%-19s %7s %7s %6s %6s %6s %7s %6s " %
              ("%s - %s" % (m, y), fmt(ours_tr, sign=True), fmt(ours_t, sign=True),
               fmt(pmed(cpu[m], cpu[y]), 6, sign=True), times(ours_tr, unit_tr), times(ours_t, unit_t),
               fmt(ours_ph, sign=True), times(ours_ph, unit_ph)) +
              " ".join(fmt(c, 9, sign=True) for c in cells))


if __name__ == "__main__":
    main()
