#!/usr/bin/env python3
"""The phases of container starts, from `perf script` text of tests/bench/bench_start_trace.sh.

  start_phases.py DIR RUNTIME MODE...   one line per MODE: the median over DIR/RUNTIME-MODE.*.txt
                                        of each phase, ms, and of the whole, against the first MODE

Each file is one `RUNTIME run` recorded system-wide (perf record -a) with the events
bench_start_trace.sh names, printed by `perf script -F comm,pid,tid,cpu,time,event,trace`.
The phases, all from events of the processes of that start:
  exec->load  the exec of PID 1's program to its first filter load (our init only)
  exec->sh    the exec of PID 1's program (our init, catatonit, or sh itself) to sh's exec
  sh          sh's exec to its exit_group
  sh->pid1    sh's exit_group to the exit of PID 1's last thread (0 when sh is PID 1)
  pid1->end   that exit to the exit of the runtime's process (the one perf started); with
              capabilities lent, poststop runs in it
  exec->end   the sum: what a start costs from the exec of PID 1's program on, which leaves out
              the runtime's own set-up before it (tens of ms, varying by several)
  hookN       each hook process (ours or dd), its exec to its exit, in the order they ran
  +hooks      exec->end plus the hooks that ran before PID 1's exec (createRuntime), whose time
              exec->end leaves out: a start's cost from the first hook's exec on, but for what
              the runtime spends around that hook's process
Only the processes of that start count (the process whose pid FILE.pid holds, the runtime perf
started, and what descends from it, by fork events): the trace is system-wide, and other programs,
hooks of ours and other runtimes among them, may run meanwhile. Prints nothing it cannot find in every file; asserts nothing."""
import glob
import re
import statistics
import sys

PID1_PROGRAMS = ("/.oci-seccomp-tsync/init", "/run/podman-init", "/bin/sh")
FORK = re.compile(r"\bpid=(\d+) child_comm=.* child_pid=(\d+)")
LINE = re.compile(r"^\s*(.*?)\s+(\d+)/(-?\d+)\s+\[\d+\]\s+([\d.]+):\s+(\S+):?\s*(.*)$")


def phases(path):
    """The phase times (ms) of one start."""
    t = {}
    hooks = {}
    pid1 = None
    with open(path + ".pid", encoding="utf-8") as f:
        top = int(f.read())
    family = {top}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            comm, pid, when, event, rest = m.group(1), int(m.group(2)), float(m.group(4)) * 1000, m.group(5), m.group(6)
            event = event.rstrip(":")
            if event == "sched:sched_process_fork":
                fm = FORK.search(rest)
                if fm and int(fm.group(1)) in family:
                    family.add(int(fm.group(2)))
                continue
            if pid not in family:
                continue
            if event == "sched:sched_process_exec":
                fm = re.search(r"filename=(\S+) pid=", rest)
                name = fm.group(1) if fm else ""
                if pid == top:
                    pass  # the runtime (or unshare, sh) starting
                elif pid1 is None and name in PID1_PROGRAMS:
                    pid1 = pid
                    t["exec"] = when
                elif name == "/bin/sh" and pid1 is not None and "sh" not in t:
                    t["sh"] = when
                elif name.endswith("/oci-seccomp-tsync") or name.endswith("/dd"):
                    hooks[pid] = [when, None]
                if name == "/bin/sh" and pid == pid1:
                    t["sh"] = when
            elif event == "syscalls:sys_enter_seccomp" and pid == pid1 and "load" not in t and "sh" not in t:
                if "op: 0x00000001" in rest and "uargs: 0x0000" not in rest:
                    t["load"] = when
            elif event == "syscalls:sys_enter_exit_group" and comm == "sh" and "sh" in t and "shexit" not in t:
                t["shexit"] = when
            elif event == "sched:sched_process_exit":
                if pid == pid1 and "shexit" in t:
                    t["pid1"] = when  # the last of its threads wins
                elif pid == top and "group_dead=true" in rest and "pid1" in t:
                    t["end"] = when
                elif pid in hooks and "group_dead=true" in rest:
                    hooks[pid][1] = when
    t["pre"] = 0.0
    for i, (start, end) in enumerate(sorted(hooks.values())):
        if end is not None:
            t["hook%d" % i] = end - start
            if "exec" in t and start < t["exec"]:
                t["pre"] += end - start
    out = {}
    for name, a, b in (("exec->load", "exec", "load"), ("exec->sh", "exec", "sh"), ("sh", "sh", "shexit"),
                       ("sh->pid1", "shexit", "pid1"), ("pid1->end", "pid1", "end"), ("exec->end", "exec", "end")):
        if a in t and b in t:
            out[name] = t[b] - t[a]
    if "exec->end" in out:
        out["+hooks"] = out["exec->end"] + t["pre"]
    if "exec->sh" not in out and "exec" in t and t.get("sh") == t["exec"]:
        out["exec->sh"] = 0.0
    for k, v in t.items():
        if k.startswith("hook"):
            out[k] = v
    return out


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    top, rt, modes = sys.argv[1], sys.argv[2], sys.argv[3:]
    cols = ("exec->load", "exec->sh", "sh", "sh->pid1", "pid1->end", "exec->end", "hook0", "hook1", "+hooks")
    med = {}
    print("%s, ms (medians over the traced starts; n = starts):" % rt)
    print("%-10s %3s " % ("mode", "n") + " ".join("%10s" % c for c in cols) + " %10s" % ("vs " + modes[0]))
    for mode in modes:
        rows = [phases(p) for p in sorted(glob.glob("%s/%s-%s.*[0-9].txt" % (top, rt, mode)))]
        cells = []
        for c in cols:
            vals = [r[c] for r in rows if c in r]
            if len(vals) == len(rows) and vals:
                med[(mode, c)] = statistics.median(vals)
                cells.append("%10.3f" % med[(mode, c)])
            else:
                cells.append("%10s" % "-")
        base = med.get((modes[0], "+hooks"))
        this = med.get((mode, "+hooks"))
        diff = "%+10.3f" % (this - base) if base is not None and this is not None else "%10s" % "-"
        print("%-10s %3d " % (mode, len(rows)) + " ".join(cells) + " " + diff)
    # Our own part with capabilities lent, against catatonit's whole cost (issue 24's yardstick).
    cost = {m: med[(m, "+hooks")] - base for m in modes if (m, "+hooks") in med and base is not None}
    if cost.get("catatonit", 0) > 0:
        for mode in ("layer", "layer-rw", "layer-eng"):
            for trivial in ("hooks0", "hooks1"):
                if mode in cost and trivial in cost:
                    ours = cost[mode] - cost[trivial]
                    print("%s beyond %s: %+.3f ms, %.2fx catatonit's %.3f ms" %
                          (mode, trivial, ours, ours / cost["catatonit"], cost["catatonit"]))


if __name__ == "__main__":
    main()
