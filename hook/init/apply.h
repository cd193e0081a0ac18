/* The TSYNC core of seccomp-tsync-init: load a filter on every thread of the
 * process at once, then prove from /proc that each thread carries it.
 *
 * libc only, no heap, no printing: the init calls this after it may already
 * run under a filter, and test tools call it in the middle of a thread storm.
 * The census is large (one entry per thread): give it static storage. */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shared/capsets.h"
#include "shared/error.h"

/* Threads a census can record; a process with more is refused (fail closed). */
#define INIT_CENSUS_MAX 16384

struct init_task {
        pid_t tid;
        int mode;    /* "Seccomp:" 0 none, 1 strict, 2 filter */
        int filters; /* "Seccomp_filters:" */
};

/* Every thread of the process as /proc/self/task showed it before loading. */
struct init_census {
        pid_t caller;       /* the thread that took it; the one that loads */
        int caller_filters; /* its Seccomp_filters */
        size_t len;
        struct init_task tasks[INIT_CENSUS_MAX];
};

struct init_verify_result {
        size_t checked;  /* threads seen carrying the filters */
        size_t exited;   /* threads that failed the check but were exiting (gone on a second look) */
        size_t appeared; /* threads not in the census (created meanwhile), checked like the others */
};

/* Records the Seccomp mode and Seccomp_filters of every thread of the process
 * into *ret. -EOPNOTSUPP if the kernel does not show Seccomp_filters (before
 * Linux 5.9, gVisor): without it nothing can be verified. -E2BIG past
 * INIT_CENSUS_MAX threads; other -errno when /proc cannot be read. */
int init_apply_census(struct init_census *ret, struct tsync_err *err);

/* Asks the kernel, without loading anything, whether it accepts
 * SECCOMP_FILTER_FLAG_TSYNC | flags (a NULL program makes it stop right after
 * its flag checks). -EINVAL naming the first flag it refuses; TSYNC_ESRCH
 * (Linux 5.7) is asked about first when flags have a listener. Each flag is
 * asked about with the bits of flags the kernel needs beside it (a listener's
 * TSYNC_ESRCH, WAIT_KILLABLE_RECV's listener), as the filter is loaded. */
int init_apply_probe_flags(uint32_t flags, struct tsync_err *err);

/* seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC | flags, prog).
 * -ESRCH when another thread runs a filter that is not an ancestor of ours
 * (the message names its TID and comm); otherwise the kernel's -errno
 * (EACCES without NO_NEW_PRIVS or CAP_SYS_ADMIN, EINVAL for a refused flag or
 * program, ENOMEM). Never retries with fewer flags. With NEW_LISTENER (and
 * TSYNC_ESRCH, which the kernel then requires) the listener's fd on success,
 * O_CLOEXEC, and -ESRCH for a thread TSYNC cannot synchronise. */
int init_apply_load(const struct sock_filter *prog, size_t len, uint32_t flags, struct tsync_err *err);

/* After n filters were loaded by before->caller: every thread of the process
 * must show "Seccomp: 2" and "Seccomp_filters" equal to the caller's count
 * before plus n (TSYNC gives each thread the caller's filter chain, count
 * included). A thread failing that is looked at again a little later: if it
 * is gone it was exiting (the kernel skips exiting threads) and is counted in
 * ret->exited. -EPERM naming the first thread that lacks the filters. */
int init_apply_verify(const struct init_census *before, unsigned n, struct init_verify_result *ret,
                      struct tsync_err *err);

/* One thread as its /proc/self/task/<tid>/status shows it. */
struct init_thread_status {
        pid_t tid;
        char name[64];                      /* "Name:" (its comm), "?" when missing */
        char state;                         /* first letter of "State:", 0 when missing */
        int mode;                           /* "Seccomp:", -1 when missing */
        int filters;                        /* "Seccomp_filters:", -1 when missing (gVisor, Linux < 5.9) */
        int nnp;                            /* "NoNewPrivs:", -1 when missing (gVisor) */
        bool cap_shown[TSYNC_CAPSET_COUNT]; /* the line is there (gVisor shows no CapAmb) */
        uint64_t caps[TSYNC_CAPSET_COUNT];  /* by enum tsync_capset */
};

/* Calls fn with every thread in /proc/self/task as its status shows it.
 * Threads gone meanwhile are skipped. Stops at and returns fn's first negative
 * return. */
int init_apply_threads(int (*fn)(const struct init_thread_status *st, void *data), void *data, struct tsync_err *err);

/* A thread's status file, opened before the load so that the proof after it
 * needs no openat or getdents64, only read: a profile that a plain runtime
 * start works with may deny those. Read each descriptor once (a second read
 * starts at the end). -errno with a message. */
int init_apply_status_open(pid_t tid, struct tsync_err *err);
int init_apply_status_read(int fd, pid_t tid, struct init_thread_status *ret, struct tsync_err *err);
