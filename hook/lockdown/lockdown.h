/* lockdown: a layer added to every task of a running container
 * (hook/lockdown/lockdown_cgroup.c, lockdown_inject.c; the CLI is
 * hook/cli/cmd_lockdown.c). The container's cgroup is frozen so nothing
 * forks, clones or execs; every task is taken under ptrace (seize +
 * interrupt); one thread of each process runs seccomp(TSYNC) with the program
 * written into its own stack (syscall injection, registers and memory
 * restored exactly); every task is checked to carry it before it is let go.
 * Nothing here prints. x86_64 only (tsync_lockdown_supported). */
#pragma once

#include <linux/filter.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "shared/error.h"

/* A container's freezer: cgroup v2 cgroup.freeze or v1 freezer.state. */
struct tsync_lockdown_cgroup {
        bool v1;
        char dir[4096]; /* the cgroup's directory */
        bool frozen;    /* we froze it (and must thaw it) */
        int watchdog;   /* the watchdog's socket (tsync_lockdown_watchdog_start), -1 none */
};
/* How long a freeze may take before the run is refused. */
#define TSYNC_LOCKDOWN_FREEZE_MS 10000
/* -EBUSY when it is frozen, or freezing, already (a paused container: our
 * thaw would resume it), else 0. */
int tsync_lockdown_cgroup_frozen(const struct tsync_lockdown_cgroup *cg);

/* Finds pid's cgroup to freeze (/proc/PID/cgroup): the v1 freezer's, else
 * cgroup2's, the first that is the container's own, that is, neither the
 * root nor holding, itself or in any cgroup below it, a process that is not
 * the container's (in pids, or in pid's pid namespace: one forked since). None: -EPERM with each hierarchy's reason; a
 * shared cgroup is never frozen. */
int tsync_lockdown_cgroup_find(pid_t pid, const pid_t *pids, size_t n_pids, struct tsync_lockdown_cgroup *ret,
                               struct tsync_err *err);
/* Freezes it and waits until the kernel says it is frozen. */
int tsync_lockdown_freeze(struct tsync_lockdown_cgroup *cg, struct tsync_err *err);
/* Every task (tid) in it and its sub-cgroups (v1 tasks, v2 cgroup.threads),
 * malloc'd: a frozen container's list without a scan of every process of
 * the host. 0 or -errno. */
int tsync_lockdown_cgroup_tids(const struct tsync_lockdown_cgroup *cg, pid_t **ret, size_t *n);
/* Every process (host pid) in pid's cgroups that a freeze could take, the
 * v1 freezer's and cgroup2's (the root excepted), and below them, malloc'd,
 * duplicates possible. 0 or -errno (err). */
int tsync_lockdown_cgroup_procs(pid_t pid, pid_t **ret, size_t *n, struct tsync_err *err);
/* Thaws it if we froze it. */
int tsync_lockdown_thaw(struct tsync_lockdown_cgroup *cg, struct tsync_err *err);

/* Whether lockdown runs on this machine: its syscall injection (registers,
 * the syscall instruction, the restart rules) is written for x86_64 alone.
 * 0, or -EOPNOTSUPP with err naming the machine, for tsync_lockdown_run and
 * the CLI to refuse before anything is read or touched. */
int tsync_lockdown_supported(struct tsync_err *err);

/* Seizes tid and, with interrupt, asks it to stop (PTRACE_SEIZE +
 * PTRACE_INTERRUPT). A task in a frozen cgroup takes the stop once thawed,
 * before it runs any code of its own. A job-control-stopped task needs no
 * interrupt (the seize turns its stop into a ptrace stop) and must not be
 * frozen: the seize would wait for the thaw. 0, or -errno with why. */
int tsync_lockdown_seize(pid_t tid, bool interrupt, char *why, size_t size);
/* Waits up to timeout_ms for a seized task's stop. */
int tsync_lockdown_wait_stop(pid_t tid, int timeout_ms, char *why, size_t size);
/* Waits up to timeout_ms for the stops of the seized tasks tids[] (0
 * entries skipped), whichever comes first: ret[i] 0 stopped, -ESRCH ended,
 * -ETIMEDOUT. 0, or -errno when waiting failed. */
int tsync_lockdown_wait_stops(const pid_t *tids, int *ret, size_t n, int timeout_ms);
/* Lets a seized task go (the signal it held back, if any). */
int tsync_lockdown_detach(pid_t tid, int sig);

/* Runs seccomp(SECCOMP_SET_MODE_FILTER, flags, prog) in the seized, stopped
 * thread tid of process pid, first prctl(PR_SET_NO_NEW_PRIVS) when set_nnp,
 * with every signal blocked meanwhile (registers, signal mask and the stack
 * below the red zone are put back).
 * *ret: the syscall's result (a tid when TSYNC names a diverged thread,
 * -errno). *held_sig: a signal that arrived meanwhile, for the detach.
 * 0 when the call ran and everything was restored, else -errno with why. */
int tsync_lockdown_inject(pid_t pid, pid_t tid, const struct sock_filter *insns, size_t len, unsigned flags,
                          bool set_nnp, long *ret, int *held_sig, char *why, size_t size);

/* One injection in flight, for injecting into many processes at once
 * (each step waits for the target to be scheduled: doing them side by side
 * costs one wait, not one per process). */
struct tsync_lockdown_call {
        pid_t pid, tid;
        int mem; /* /proc/PID/task/TID/mem */
        struct user_regs_struct saved;
        uint64_t mask;          /* its signal mask */
        unsigned long insn, at; /* the syscall instruction; where the program is written */
        unsigned char *backup;  /* what was there */
        size_t need;
        long nr[2];
        unsigned long args[2][3];
        int n, cur; /* the calls (prctl NO_NEW_PRIVS, seccomp), the one running */
        long res;   /* the last call's result */
        int *held_sig;
        char why[224];
};
/* Starts the calls of tsync_lockdown_inject in tid: 0 (a step is in
 * flight: wait for tid's stop, then call tsync_lockdown_call_stopped), or
 * -errno with c->why and everything put back. */
int tsync_lockdown_call_start(struct tsync_lockdown_call *c, pid_t pid, pid_t tid, const struct sock_filter *insns,
                              size_t len, unsigned flags, bool set_nnp, int *held_sig);
/* With the status of tid's stop: 1 another step is in flight, 0 done
 * (c->res the seccomp result, everything put back), -errno with c->why
 * (everything put back, unless the task ended). */
int tsync_lockdown_call_stopped(struct tsync_lockdown_call *c, int status);

/* The deadline of an injected call, and of the stop that unwinds one that
 * missed it. */
#define TSYNC_LOCKDOWN_CALL_MS   10000
#define TSYNC_LOCKDOWN_UNWIND_MS 2000
/* Asks tid, running an injected call, to stop (PTRACE_INTERRUPT). */
int tsync_lockdown_call_interrupt(struct tsync_lockdown_call *c);
/* Unwinds a call that missed its deadline or was cancelled: interrupts it,
 * waits (TSYNC_LOCKDOWN_UNWIND_MS) for its stop and puts everything back
 * there, never leaving it mid-call. Returns -ETIMEDOUT with c->why (what,
 * and that it was put back), or another -errno when it could not be. */
int tsync_lockdown_call_unwind(struct tsync_lockdown_call *c, const char *what);
/* Whether every filter of the seized, stopped tid lets the calls we would
 * inject through (seccomp(SET_MODE_FILTER, flags), and prctl(NO_NEW_PRIVS)
 * when set_nnp): ALLOW or LOG. 0, or -EPERM with why naming the filter and
 * its answer (a USER_NOTIF listener, ERRNO, KILL, TRACE, TRAP). */
int tsync_lockdown_check_calls(pid_t tid, unsigned flags, bool set_nnp, char *why, size_t size);

/* Set by the caller's handler of SIGINT, SIGTERM and SIGHUP: every wait of
 * a run then stops, and the run puts everything back (in-flight calls
 * unwound, tasks detached, the cgroup thawed) and fails with -EINTR. */
extern volatile sig_atomic_t tsync_lockdown_cancelled;

/* Whether tid's filter at index (0: the oldest) is insns. 1 yes, 0 no,
 * -errno (why) when it cannot be read. With insns NULL: whether there is
 * no filter at index (1: none, the stack is shorter). tid must be seized
 * and stopped. */
int tsync_lockdown_filter_is(pid_t tid, int index, const struct sock_filter *insns, size_t len, char *why, size_t size);

/* lockdown_sandbox.c: refuses a container whose workload has no host tasks
 * (a sandbox runtime's, gVisor: the runtime table's `sandbox` rows), by name,
 * before anything is touched: pid, one of its ancestors, or any process of
 * the cgroups a freeze would take (tsync_lockdown_cgroup_procs) is the
 * runtime's (its argv[0] or its program). 0, or -EPERM naming the process,
 * the runtime and why. */
int tsync_lockdown_check_sandbox(pid_t pid, struct tsync_err *err);
/* The same for a runtime named on the command line (its base name): 0, or
 * -EPERM when it is a sandbox runtime. */
int tsync_lockdown_check_runtime(const char *runtime, struct tsync_err *err);

/* lockdown_guard.c. 1 and *ret_fd when process pid holds a seccomp
 * listener (a filter's USER_NOTIF goes to a task of the container), 0 none,
 * -errno. */
int tsync_lockdown_listener_fd(pid_t pid, int *ret_fd);

struct tsync_status;
/* Kills the container of pid (pidfd: its descriptor, taken when it was
 * found): every process of its cgroup when that is its own (frozen first)
 * and of st that is still in its pid namespace, and pid. 0 once pid has
 * ended, else -errno (err). */
int tsync_lockdown_kill(int pidfd, pid_t pid, const struct tsync_status *st, struct tsync_err *err);
/* The signals alone, at once (the run's tasks are held or frozen): pid and
 * every process of st still in its namespace. */
void tsync_lockdown_kill_now(int pidfd, pid_t pid, const struct tsync_status *st);

/* A child that outlives lockdown only to undo what lockdown leaves if it
 * dies, SIGKILL included: it thaws the cgroup lockdown said it froze (by
 * the descriptor lockdown opened, never a path: it cannot thaw another) and
 * runs undo(data) when the record was said to be lockdown's. Its own
 * session, SIGINT, SIGTERM and SIGHUP ignored; it ends when lockdown's end
 * of the socket closes, so it cannot be left running. keep_fd (the record's
 * lock, -1 none) stays open in it: the lock is held until it is done. */
struct tsync_lockdown_watchdog {
        int sock;
        pid_t pid;
};
int tsync_lockdown_watchdog_start(struct tsync_lockdown_watchdog *w, void (*undo)(void *), void *data, int keep_fd,
                                  struct tsync_err *err);
/* Messages (sock -1: no watchdog, 0): before a freeze, after a thaw, the
 * record lockdown's (dirty) or final. Each waits for the watchdog's ack. */
int tsync_lockdown_watchdog_frozen(int sock, int freeze_fd, bool v1);
int tsync_lockdown_watchdog_thawed(int sock);
int tsync_lockdown_watchdog_record(int sock, bool dirty);
/* Closes lockdown's end (the watchdog then ends) and reaps it. */
void tsync_lockdown_watchdog_stop(struct tsync_lockdown_watchdog *w);

/* One program to add, as compiled. */
struct tsync_lockdown_prog {
        const struct sock_filter *insns;
        size_t len;
        unsigned flags; /* the profile's seccomp flags; TSYNC is added */
};

/* A task named in the result: one not covered, or one handled specially. */
struct tsync_lockdown_task {
        pid_t pid, tid; /* host */
        char comm[17];
        char why[224];
        bool no_nnp; /* refused as tsync_lockdown_takes_no_filter says: setting NO_NEW_PRIVS is the fix */
};

/* Whether the kernel takes no filter from task k as it is: neither
 * NO_NEW_PRIVS nor CAP_SYS_ADMIN (Podman's and Docker's default), until
 * NO_NEW_PRIVS is set in it. */
struct tsync_status_task;
bool tsync_lockdown_takes_no_filter(const struct tsync_status_task *k);

struct tsync_lockdown_req {
        pid_t pid;            /* any process of the container */
        bool must_be_ns_init; /* pid must be 1 in its pid namespace (a runtime's container) */
        const struct tsync_lockdown_prog *progs;
        size_t n_progs;
        bool set_nnp; /* set NO_NEW_PRIVS in processes with neither it nor CAP_SYS_ADMIN */
        bool or_kill; /* if any task is not covered, SIGKILL every process of the container */
        int pidfd;    /* pid's descriptor, for or_kill */
        int watchdog; /* the watchdog's socket, -1 none */
};

struct tsync_lockdown_result {
        struct tsync_lockdown_task *failed; /* not covered, each with why */
        size_t n_failed;
        struct tsync_lockdown_task *notes; /* covered or skipped, with how (zombie, stopped, diverged) */
        size_t n_notes;
        bool touched;        /* a call was injected: filters may have been added (else nothing was changed) */
        bool killed;         /* or_kill did */
        size_t tasks, procs; /* covered */
        size_t zombies, stopped, diverged;
        long frozen_us; /* from the freeze to the last detach: the workload ran nothing */
        long cgroup_us; /* of which the cgroup itself was frozen */
};
void tsync_lockdown_result_clear(struct tsync_lockdown_result *r);
/* How many tasks ret->failed names (a task may be named more than once). */
size_t tsync_lockdown_result_tasks(const struct tsync_lockdown_result *r);

/* lockdown_tasks.c: the whole run. Judges every task before touching
 * anything (traced, ABI, NO_NEW_PRIVS or CAP_SYS_ADMIN); seizes
 * job-control-stopped tasks; freezes; seizes every other task; thaws;
 * injects once per process (in each thread on its own when TSYNC names a
 * thread with diverged filters); proves every task carries the programs;
 * detaches (stopped tasks go back to their stop). 0 when every live task is
 * covered; -ECANCELED when some are not (ret->failed names them, err says
 * how many); other -errno (err) when the container could not be worked on
 * at all. Zombies are skipped and counted: they run no more code. */
int tsync_lockdown_run(const struct tsync_lockdown_req *req, struct tsync_lockdown_result *ret, struct tsync_err *err);
