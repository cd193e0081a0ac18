/* lockdown: a layer added to every task of a running container
 * (hook/lib/lockdown_cgroup.c, lockdown_inject.c; the CLI is
 * hook/cli/cmd_lockdown.c). The container's cgroup is frozen so nothing
 * forks, clones or execs; every task is taken under ptrace (seize +
 * interrupt); one thread of each process runs seccomp(TSYNC) with the program
 * written into its own stack (syscall injection, registers and memory
 * restored exactly); every task is checked to carry it before it is let go.
 * Nothing here prints. x86_64 only. */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tsync/error.h"

/* A container's freezer: cgroup v2 cgroup.freeze or v1 freezer.state. */
struct tsync_lockdown_cgroup {
        bool v1;
        char dir[4096]; /* the cgroup's directory */
        bool frozen;    /* we froze it (and must thaw it) */
};

/* Finds pid's cgroup to freeze (/proc/PID/cgroup): the v1 freezer's, else
 * cgroup2's, the first that is the container's own, that is, neither the
 * root nor holding, itself or in any cgroup below it, a process that is not
 * the container's (in pids, or in pid's pid namespace: one forked since). None: -EPERM with each hierarchy's reason; a
 * shared cgroup is never frozen. */
int tsync_lockdown_cgroup_find(pid_t pid, const pid_t *pids, size_t n_pids, struct tsync_lockdown_cgroup *ret,
                               struct tsync_err *err);
/* Freezes it and waits until the kernel says it is frozen. */
int tsync_lockdown_freeze(struct tsync_lockdown_cgroup *cg, struct tsync_err *err);
/* Thaws it if we froze it. */
int tsync_lockdown_thaw(struct tsync_lockdown_cgroup *cg, struct tsync_err *err);

/* Seizes tid and asks it to stop (PTRACE_SEIZE + PTRACE_INTERRUPT). A task
 * in a frozen cgroup takes the stop once thawed, before it runs any code of
 * its own. 0, or -errno with why. */
int tsync_lockdown_seize(pid_t tid, char *why, size_t size);
/* Waits up to timeout_ms for a seized task's stop. */
int tsync_lockdown_wait_stop(pid_t tid, int timeout_ms, char *why, size_t size);
/* Lets a seized task go (the signal it held back, if any). */
int tsync_lockdown_detach(pid_t tid, int sig);

/* Runs seccomp(SECCOMP_SET_MODE_FILTER, flags, prog) in the seized, stopped
 * thread tid of process pid, first prctl(PR_SET_NO_NEW_PRIVS) when set_nnp.
 * *ret: the syscall's result (a tid when TSYNC names a diverged thread,
 * -errno). *held_sig: a signal that arrived meanwhile, for the detach.
 * 0 when the call ran and everything was restored, else -errno with why. */
int tsync_lockdown_inject(pid_t pid, pid_t tid, const struct sock_filter *insns, size_t len, unsigned flags,
                          bool set_nnp, long *ret, int *held_sig, char *why, size_t size);

/* Whether tid's filter at index (0: the oldest) is insns. 1 yes, 0 no,
 * -errno (why) when it cannot be read. tid must be seized and stopped. */
int tsync_lockdown_filter_is(pid_t tid, int index, const struct sock_filter *insns, size_t len, char *why, size_t size);
