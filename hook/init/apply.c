/* The TSYNC core: census of /proc/self/task, loading with TSYNC, verification.
 *
 * Everything here may run after the first filter is in place, so it keeps to
 * the syscalls a profile must allow for the init anyway (openat, read, close,
 * getdents64, seccomp, and clock_nanosleep on the failure path) and
 * to stack buffers. /proc status files are scanned line by line through a
 * fixed window: a "Groups:" line can be far longer than any buffer we would
 * want, and the lines we need are short. */
#include "apply.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "shared/filterfile.h"
#include "shared/seccomp_flags.h"

/* The kernel answers the flag probe this way when it got past the flag checks. */
#define PROBE_PASSED EFAULT

/* How long a thread that fails verification may take to finish exiting. */
#define EXIT_POLL_TRIES 50
#define EXIT_POLL_NS    (2 * 1000 * 1000)

static const char *errstr(int e)
{
        return tsync_errtext(e);
}

/* One record of getdents64(2), the kernel's layout (struct linux_dirent64): the
 * call is made raw, as glibc's getdents64 makes it; musl names it getdents and
 * its struct dirent, and hides the 64 names unless _LARGEFILE64_SOURCE (1.2.4). */
struct task_dirent {
        uint64_t d_ino;
        int64_t d_off;
        unsigned short d_reclen;
        unsigned char d_type;
        char d_name[];
};

static int parse_int(const char *s, int *ret)
{
        char *end;
        long v;

        while (*s == ' ' || *s == '\t')
                s++;
        errno = 0;
        v = strtol(s, &end, 10);
        if (errno || end == s || v < 0 || v > 1000000)
                return -EINVAL;
        *ret = (int)v;
        return 0;
}

/* A status line's 16 hex digits; anything else leaves the set unshown (a refusal where it is needed). */
static int parse_mask(const char *s, uint64_t *ret)
{
        char *end;

        while (*s == ' ' || *s == '\t')
                s++;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 16);
        if (errno || end == s || (*end != '\0' && *end != ' '))
                return -EINVAL;
        *ret = v;
        return 0;
}

static void status_line(const char *line, struct init_thread_status *st)
{
        if (strncmp(line, "Seccomp:", 8) == 0) {
                (void)parse_int(line + 8, &st->mode);
        } else if (strncmp(line, "Seccomp_filters:", 16) == 0) {
                (void)parse_int(line + 16, &st->filters);
        } else if (strncmp(line, "NoNewPrivs:", 11) == 0) {
                (void)parse_int(line + 11, &st->nnp);
        } else if (strncmp(line, "Name:", 5) == 0) {
                const char *p = line + 5;
                while (*p == ' ' || *p == '\t')
                        p++;
                (void)snprintf(st->name, sizeof(st->name), "%s", p);
        } else if (strncmp(line, "State:", 6) == 0) {
                const char *p = line + 6;
                while (*p == ' ' || *p == '\t')
                        p++;
                st->state = *p;
        } else if (strncmp(line, "Cap", 3) == 0) {
                for (int c = 0; c < TSYNC_CAPSET_COUNT; c++) {
                        const char *name = tsync_capset(c)->status;
                        size_t n = strlen(name);
                        if (strncmp(line, name, n) == 0 && line[n] == ':' &&
                            parse_mask(line + n + 1, &st->caps[c]) == 0)
                                st->cap_shown[c] = true;
                }
        }
}

/* Parses a status file from fd, read to its end with read(2) alone. */
static int parse_status(int fd, pid_t tid, struct init_thread_status *ret)
{
        char buf[4096];
        struct init_thread_status st = { .tid = tid, .name = "?", .mode = -1, .filters = -1, .nnp = -1 };
        size_t have = 0;
        bool skipping = false;

        for (;;) {
                long n = tsync_read_once(fd, buf + have, sizeof(buf) - 1 - have);
                if (n < 0)
                        return (int)n;
                if (n == 0)
                        break;
                have += (size_t)n;
                buf[have] = '\0';

                char *line = buf, *nl;
                while ((nl = strchr(line, '\n'))) {
                        *nl = '\0';
                        if (!skipping)
                                status_line(line, &st);
                        skipping = false;
                        line = nl + 1;
                }
                have = (size_t)(buf + have - line);
                memmove(buf, line, have);
                if (have == sizeof(buf) - 1) {
                        /* A line longer than the window: none we need, drop it. */
                        skipping = true;
                        have = 0;
                }
        }
        if (have > 0 && !skipping) {
                buf[have] = '\0';
                status_line(buf, &st);
        }
        *ret = st;
        return 0;
}

/* Reads /proc/self/task/<tid>/status relative to the task directory. -ENOENT
 * or -ESRCH when the thread is gone. */
static int read_status(int taskdir, pid_t tid, struct init_thread_status *ret)
{
        char path[32];

        (void)snprintf(path, sizeof(path), "%d/status", (int)tid);
        _cleanup_close_ int fd = openat(taskdir, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        return parse_status(fd, tid, ret);
}

int init_apply_status_open(pid_t tid, struct tsync_err *err)
{
        char path[48];

        (void)snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
        int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return tsync_error_errno(err, "cannot open %s", path);
        return fd;
}

int init_apply_status_read(int fd, pid_t tid, struct init_thread_status *ret, struct tsync_err *err)
{
        int r = parse_status(fd, tid, ret);
        if (r < 0)
                return tsync_error(err, -r, "cannot read /proc/self/task/%d/status: %s", (int)tid, errstr(-r));
        return 0;
}

static void read_comm(int taskdir, pid_t tid, char *buf, size_t size)
{
        char path[32];
        ssize_t n;

        (void)snprintf(buf, size, "?");
        (void)snprintf(path, sizeof(path), "%d/comm", (int)tid);
        _cleanup_close_ int fd = openat(taskdir, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return;
        n = read(fd, buf, size - 1);
        if (n <= 0) {
                (void)snprintf(buf, size, "?");
                return;
        }
        buf[n] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
}

static int open_taskdir(struct tsync_err *err)
{
        int fd = openat(AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return tsync_error_errno(err, "cannot open /proc/self/task");
        return fd;
}

/* Calls fn(taskdir, tid, status, data) for every thread listed in the task
 * directory, which must be freshly opened (a listing is never rewound: one
 * syscall less). A thread that exits while we list is skipped; a status that
 * cannot be read is an error. */
static int for_each_task(int taskdir,
                         int (*fn)(int taskdir, pid_t tid, const struct init_thread_status *st, void *data), void *data,
                         struct tsync_err *err)
{
        char buf[8192] __attribute__((aligned(8)));

        for (;;) {
                ssize_t n = syscall(SYS_getdents64, taskdir, buf, sizeof(buf));
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return tsync_error_errno(err, "cannot list /proc/self/task");
                }
                if (n == 0)
                        return 0;
                for (ssize_t off = 0; off < n;) {
                        struct task_dirent *d = (struct task_dirent *)(void *)(buf + off);
                        off += d->d_reclen;
                        char *end;
                        long tid = strtol(d->d_name, &end, 10);
                        if (*end != '\0' || tid <= 0)
                                continue; /* "." and ".." */
                        struct init_thread_status st;
                        int r = read_status(taskdir, (pid_t)tid, &st);
                        if (r == -ENOENT || r == -ESRCH)
                                continue;
                        if (r < 0)
                                return tsync_error(err, r, "cannot read /proc/self/task/%ld/status: %s", tid,
                                                   errstr(-r));
                        r = fn(taskdir, (pid_t)tid, &st, data);
                        if (r < 0)
                                return r;
                }
        }
}

struct census_ctx {
        struct init_census *census;
        struct tsync_err *err;
};

static int census_one(int taskdir, pid_t tid, const struct init_thread_status *status, void *data)
{
        struct census_ctx *ctx = data;
        struct init_census *c = ctx->census;
        const struct init_thread_status st = *status;

        (void)taskdir;
        if (st.mode < 0)
                return tsync_error(ctx->err, EOPNOTSUPP, "/proc/self/task/%d/status has no Seccomp line", (int)tid);
        if (st.filters < 0)
                return tsync_error(ctx->err, EOPNOTSUPP,
                                   "/proc/self/task/%d/status has no Seccomp_filters line (Linux < 5.9 or gVisor): "
                                   "the filters could not be verified",
                                   (int)tid);
        if (c->len == INIT_CENSUS_MAX)
                return tsync_error(ctx->err, E2BIG, "more than %u threads", INIT_CENSUS_MAX);
        c->tasks[c->len++] = (struct init_task){ .tid = tid, .mode = st.mode, .filters = st.filters };
        if (tid == c->caller)
                c->caller_filters = st.filters;
        return 0;
}

int init_apply_census(struct init_census *ret, struct tsync_err *err)
{
        _cleanup_close_ int taskdir = open_taskdir(err);
        if (taskdir < 0)
                return taskdir;

        ret->caller = gettid();
        ret->caller_filters = -1;
        ret->len = 0;
        struct census_ctx ctx = { .census = ret, .err = err };
        int r = for_each_task(taskdir, census_one, &ctx, err);
        if (r < 0)
                return r;
        if (ret->caller_filters < 0)
                return tsync_error(err, ESRCH, "the calling thread %d is not in /proc/self/task", (int)ret->caller);
        return 0;
}

struct threads_ctx {
        int (*fn)(const struct init_thread_status *st, void *data);
        void *data;
};

static int threads_one(int taskdir, pid_t tid, const struct init_thread_status *st, void *data)
{
        struct threads_ctx *ctx = data;

        (void)taskdir;
        (void)tid;
        return ctx->fn(st, ctx->data);
}

int init_apply_threads(int (*fn)(const struct init_thread_status *st, void *data), void *data, struct tsync_err *err)
{
        _cleanup_close_ int taskdir = open_taskdir(err);
        if (taskdir < 0)
                return taskdir;
        struct threads_ctx ctx = { .fn = fn, .data = data };
        return for_each_task(taskdir, threads_one, &ctx, err);
}

/* TSYNC_ESRCH alone: a kernel without it (before 5.7) cannot load a listener
 * together with TSYNC, and the filter is never loaded without TSYNC. */
static int probe_one(uint32_t f, struct tsync_err *err)
{
        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC | f, NULL) == 0)
                return tsync_error(err, EPROTO, "the flag probe loaded a NULL program");
        if (errno == PROBE_PASSED)
                return 0;
        return tsync_error(err, errno,
                           "the kernel refuses flag SECCOMP_FILTER_FLAG_TSYNC_ESRCH with TSYNC: %s (Linux 5.7 or "
                           "later is needed to load a filter with a listener on every thread; it is never loaded "
                           "without TSYNC)",
                           errstr(errno));
}

/* The bits the kernel takes a flag only together with, as the filter has
 * them: with TSYNC a listener needs TSYNC_ESRCH, and WAIT_KILLABLE_RECV needs
 * a listener (so with TSYNC, TSYNC_ESRCH too). A flag probed without them
 * would be refused although the real combination is taken. */
static uint32_t companions(uint32_t f, uint32_t flags)
{
        if (f == SECCOMP_FILTER_FLAG_NEW_LISTENER)
                return flags & SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
        if (f == SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
                return flags & (SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_TSYNC_ESRCH);
        return 0;
}

int init_apply_probe_flags(uint32_t flags, struct tsync_err *err)
{
        /* Each flag with its companions first, so that the message can name
         * the one refused; then all together, for refusals that depend on
         * the combination. */
        for (unsigned bit = 0; bit < 32; bit++) {
                uint32_t f = flags & (1u << bit);
                if (!f)
                        continue;
                /* TSYNC_ESRCH is a later bit than NEW_LISTENER: asked about
                 * alone first, so that its refusal is named as its own. */
                uint32_t with = companions(f, flags);
                int r = f == SECCOMP_FILTER_FLAG_NEW_LISTENER && with ? probe_one(with, err) : 0;
                if (r < 0)
                        return r;
                if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC | f | with, NULL) == 0)
                        return tsync_error(err, EPROTO, "the flag probe loaded a NULL program");
                if (errno == PROBE_PASSED)
                        continue;
                const char *name = tsync_seccomp_flag_name(f);
                /* The kernel takes WAIT_KILLABLE_RECV only with NEW_LISTENER. */
                const char *hint =
                        f == SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV && !(with & SECCOMP_FILTER_FLAG_NEW_LISTENER)
                                ? " (it needs a notification listener)"
                                : "";
                if (name)
                        return tsync_error(err, errno,
                                           "the kernel refuses flag SECCOMP_FILTER_FLAG_%s with TSYNC: %s%s", name,
                                           errstr(errno), hint);
                return tsync_error_errno(err, "the kernel refuses flag bit %u with TSYNC", bit);
        }
        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC | flags, NULL) == 0)
                return tsync_error(err, EPROTO, "the flag probe loaded a NULL program");
        if (errno != PROBE_PASSED)
                return tsync_error_errno(err, "the kernel refuses flags 0x%x with TSYNC", flags);
        return 0;
}

int init_apply_load(const struct sock_filter *prog, size_t len, uint32_t flags, struct tsync_err *err)
{
        struct sock_fprog fprog = { .len = (unsigned short)len, .filter = (struct sock_filter *)prog };
        long r;

        if (len == 0 || len > BPF_MAXINSNS)
                return tsync_error(err, EINVAL, "program of %zu instructions", len);
        r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC | flags, &fprog);
        if (r == 0)
                return 0;
        /* With TSYNC_ESRCH the kernel reports a thread it cannot synchronise
         * as ESRCH, and a positive value is the listener. */
        if (r > 0 && (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER))
                return (int)r;
        if (r > 0) {
                /* TSYNC names the first thread it could not synchronise. */
                char comm[64];
                _cleanup_close_ int taskdir = openat(AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (taskdir >= 0)
                        read_comm(taskdir, (pid_t)r, comm, sizeof(comm));
                else
                        (void)snprintf(comm, sizeof(comm), "?");
                return tsync_error(err, ESRCH,
                                   "thread %ld (%s) runs a seccomp filter that is not an ancestor of ours "
                                   "(or is in strict mode): TSYNC cannot synchronise it",
                                   r, comm);
        }
        int e = errno;
        switch (e) {
        case ESRCH:
                if (flags & SECCOMP_FILTER_FLAG_TSYNC_ESRCH)
                        return tsync_error(err, e,
                                           "a thread runs a seccomp filter that is not an ancestor of ours (or is "
                                           "in strict mode): TSYNC cannot synchronise it");
                return tsync_error(err, e, "the kernel refused the filter: %s", errstr(e));
        case EACCES:
                return tsync_error(err, e, "the kernel refused the filter: %s (no NO_NEW_PRIVS and no CAP_SYS_ADMIN)",
                                   errstr(e));
        case EINVAL:
                if (flags)
                        return tsync_error(err, e,
                                           "the kernel refused the filter with flags 0x%x: %s (program or flags)",
                                           flags, errstr(e));
                return tsync_error(err, e, "the kernel refused the program: %s", errstr(e));
        default:
                return tsync_error(err, e, "the kernel refused the filter: %s", errstr(e));
        }
}

static const struct init_task *census_find(const struct init_census *c, pid_t tid)
{
        for (size_t i = 0; i < c->len; i++)
                if (c->tasks[i].tid == tid)
                        return &c->tasks[i];
        return NULL;
}

struct verify_ctx {
        const struct init_census *before;
        int expect;
        struct init_verify_result result;
        struct tsync_err *err;
};

static bool carries(const struct init_thread_status *st, int expect)
{
        return st->mode == SECCOMP_MODE_FILTER && st->filters == expect;
}

static bool dead(const struct init_thread_status *st)
{
        return st->state == 'Z' || st->state == 'X';
}

/* A thread the kernel skipped because it was already exiting never runs user
 * code again; give it a moment to disappear before calling it a miss. */
static int recheck(int taskdir, pid_t tid, int expect, struct init_thread_status *st)
{
        for (int i = 0; i < EXIT_POLL_TRIES; i++) {
                struct timespec ts = { .tv_sec = 0, .tv_nsec = EXIT_POLL_NS };
                (void)clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
                int r = read_status(taskdir, tid, st);
                if (r == -ENOENT || r == -ESRCH || (r == 0 && dead(st)))
                        return 1;
                if (r < 0)
                        return r;
                if (carries(st, expect))
                        return 0;
        }
        return -EPERM;
}

static int verify_one(int taskdir, pid_t tid, const struct init_thread_status *status, void *data)
{
        struct verify_ctx *ctx = data;
        const struct init_task *was = census_find(ctx->before, tid);
        struct init_thread_status st = *status;
        int r;

        if (!was)
                ctx->result.appeared++;
        if (!carries(&st, ctx->expect) && !dead(&st)) {
                r = recheck(taskdir, tid, ctx->expect, &st);
                if (r == 1) {
                        ctx->result.exited++;
                        return 0;
                }
                if (r < 0) {
                        char comm[64], before[48];
                        read_comm(taskdir, tid, comm, sizeof(comm));
                        if (was)
                                (void)snprintf(before, sizeof(before), "Seccomp %d, Seccomp_filters %d before",
                                               was->mode, was->filters);
                        else
                                (void)snprintf(before, sizeof(before), "not there before");
                        return tsync_error(ctx->err, EPERM,
                                           "thread %d (%s) shows Seccomp %d, Seccomp_filters %d; expected 2, %d (%s)",
                                           (int)tid, comm, st.mode, st.filters, ctx->expect, before);
                }
        } else if (dead(&st)) {
                ctx->result.exited++;
                return 0;
        }
        ctx->result.checked++;
        return 0;
}

int init_apply_verify(const struct init_census *before, unsigned n, struct init_verify_result *ret,
                      struct tsync_err *err)
{
        if (before->caller_filters < 0)
                return tsync_error(err, EINVAL, "no census was taken");
        _cleanup_close_ int taskdir = open_taskdir(err);
        if (taskdir < 0)
                return taskdir;

        struct verify_ctx ctx = { .before = before, .expect = before->caller_filters + (int)n, .err = err };
        int r = for_each_task(taskdir, verify_one, &ctx, err);
        if (r < 0)
                return r;
        /* The caller itself can never be "exiting": it must have been checked. */
        if (ctx.result.checked == 0)
                return tsync_error(err, EPERM, "no thread was seen carrying the filters");
        if (ret)
                *ret = ctx.result;
        return 0;
}
