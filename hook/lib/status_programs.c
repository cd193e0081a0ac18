/* status: PID 1's seccomp programs as the kernel holds them
 * (PTRACE_SECCOMP_GET_FILTER, which returns each program exactly as it was
 * loaded) against the filter files our init was given on its command line
 * (--filter PATH, read through /proc/PID/root, or --filter-data). Only PID
 * 1's main thread is stopped, for as long as the reads take: its other
 * threads got the same chain by TSYNC and the workload inherited it, which
 * their counts confirm. The counts say how many filters a task carries;
 * this says that the init's are the programs it was given. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tsync/base64.h"
#include "tsync/cleanup.h"
#include "tsync/fileio.h"
#include "tsync/filterfile.h"
#include "tsync/init_args.h"
#include "tsync/plan.h"
#include "tsync/sha256.h"
#include "tsync/status.h"

/* The kernel bounds a chain at 32768 instructions counted with a penalty
 * of 4 each, so no task holds more programs than this. */
#define MAX_KERNEL_FILTERS 8192
/* An init's command line: 16 --filter-data of at most 48 KiB each fit many times. */
#define CMDLINE_MAX (16u << 20)

#define prog tsync_status_prog

static void progs_free(struct prog *p, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(p[i].insns);
        free(p);
}

/* Filter file text (a container path or base64) to its program. */
static int load_file(pid_t init, const char *opt, const char *arg, struct prog *ret, char *why, size_t size)
{
        _cleanup_free_ unsigned char *buf = malloc(TSYNC_FILTER_MAX_SIZE);
        if (!buf)
                return -ENOMEM;
        long n;
        if (strcmp(opt, "--filter-data") == 0) {
                n = tsync_base64_decode(arg, buf, TSYNC_FILTER_MAX_SIZE);
                if (n < 0) {
                        (void)snprintf(why, size, "--filter-data: not base64");
                        return -EINVAL;
                }
        } else {
                char path[4200];
                (void)snprintf(path, sizeof(path), "/proc/%d/root%s", (int)init, arg);
                _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
                if (fd < 0) {
                        int e = errno;
                        (void)snprintf(why, size, "%s: %s", arg, strerror(e));
                        return -e;
                }
                n = tsync_filter_read(fd, buf, TSYNC_FILTER_MAX_SIZE);
                if (n < 0) {
                        (void)snprintf(why, size, "%s: %s", arg, strerror((int)-n));
                        return (int)n;
                }
        }
        const struct sock_filter *insns;
        size_t len;
        uint32_t flags, listener;
        const char *bad;
        int r = tsync_filter_decode(buf, (size_t)n, &insns, &len, &flags, &listener, &bad);
        if (r < 0) {
                (void)snprintf(why, size, "%s: %s", strcmp(opt, "--filter-data") == 0 ? opt : arg, bad);
                return r;
        }
        ret->insns = malloc(len * sizeof(*insns));
        if (!ret->insns)
                return -ENOMEM;
        memcpy(ret->insns, insns, len * sizeof(*insns));
        ret->len = len;
        return 0;
}

/* The filter files our init was given, in load order, and a label for each. */
static int init_files(pid_t init, struct prog **ret, char (**ret_labels)[64], size_t *ret_n, char *why, size_t size)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)init);
        _cleanup_free_ char *cmd = NULL;
        size_t len = 0;
        struct tsync_err err = { 0 };
        /* The kernel bounds a command line by the exec's stack limit; we by CMDLINE_MAX. */
        int rr = tsync_read_file_at(AT_FDCWD, path, path, 0, CMDLINE_MAX, &cmd, &len, NULL, &err);
        struct tsync_init_args a;
        _cleanup_free_ char **argv = NULL;
        if (rr == 0)
                rr = tsync_status_init_args(cmd, len, &a, &argv, &err);
        if (rr < 0) {
                size_t m = strnlen(err.msg, size - 1); /* cut to why's size, as any message here is */
                memcpy(why, err.msg, m);
                why[m] = '\0';
                return rr;
        }
        struct prog *progs = a.n_filters ? calloc(a.n_filters, sizeof(*progs)) : NULL;
        char(*labels)[64] = a.n_filters ? calloc(a.n_filters, sizeof(*labels)) : NULL;
        size_t n = 0;
        int r = a.n_filters && (!progs || !labels) ? -ENOMEM : 0;
        for (; r == 0 && n < a.n_filters; n++) {
                const char *opt = tsync_init_opt(a.filters[n].opt)->name;
                if (a.filters[n].opt == TSYNC_INIT_OPT_FILTER)
                        (void)snprintf(labels[n], sizeof(labels[n]), "%s", a.filters[n].text);
                else
                        (void)snprintf(labels[n], sizeof(labels[n]), "%s #%zu", opt, n);
                r = load_file(init, opt, a.filters[n].text, &progs[n], why, size);
        }
        if (r < 0) {
                progs_free(progs, n);
                free(labels);
                return r;
        }
        *ret = progs;
        *ret_labels = labels;
        *ret_n = n;
        return 0;
}

/* Every program of a ptrace-stopped task, oldest first (the kernel's index 0). */
static int kernel_progs(pid_t tid, struct prog **ret, size_t *ret_n, char *why, size_t size)
{
        size_t n = 0;
        while (n < MAX_KERNEL_FILTERS && ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)n, NULL) >= 0)
                n++;
        if (n == 0 && errno != ENOENT && errno != EINVAL) {
                int e = errno;
                (void)snprintf(why, size, "PTRACE_SECCOMP_GET_FILTER: %s%s", strerror(e),
                               e == EACCES ? " (needs CAP_SYS_ADMIN, and no seccomp filter on status itself)" : "");
                return -e;
        }
        struct prog *p = calloc(n ? n : 1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                long len = ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)i, NULL);
                p[i].insns = len > 0 && len <= BPF_MAXINSNS ? calloc((size_t)len, sizeof(struct sock_filter)) : NULL;
                if (!p[i].insns || ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)i, p[i].insns) != len) {
                        (void)snprintf(why, size, "PTRACE_SECCOMP_GET_FILTER %zu: %s", i,
                                       len < 0 ? strerror(errno) : "unexpected length");
                        progs_free(p, n);
                        return -EIO;
                }
                p[i].len = (size_t)len;
        }
        *ret = p;
        *ret_n = n;
        return 0;
}

/* Stops tid (PTRACE_SEIZE + INTERRUPT: no SIGSTOP that job control could
 * see), reads its programs and lets it go, passing on a signal that arrived
 * meanwhile. */
static int read_stopped(pid_t tid, struct prog **ret, size_t *ret_n, char *why, size_t size)
{
        if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0) {
                int e = errno;
                (void)snprintf(why, size, "PTRACE_SEIZE: %s%s", strerror(e),
                               e == EPERM ? " (another tracer, or no CAP_SYS_PTRACE)" : "");
                return -e;
        }
        int r = 0, sig = 0, st;
        if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0) {
                r = -errno;
                (void)snprintf(why, size, "PTRACE_INTERRUPT: %s", strerror(-r));
        }
        while (r == 0) {
                if (waitpid(tid, &st, __WALL) < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        (void)snprintf(why, size, "waitpid: %s", strerror(-r));
                } else if (WIFEXITED(st) || WIFSIGNALED(st)) {
                        (void)snprintf(why, size, "it ended");
                        return -ESRCH;
                } else if (WIFSTOPPED(st)) {
                        sig = (st >> 16) == PTRACE_EVENT_STOP ? 0 : WSTOPSIG(st);
                        break;
                }
        }
        if (r == 0)
                r = kernel_progs(tid, ret, ret_n, why, size);
        (void)ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)sig);
        return r;
}

int tsync_status_compare_programs(struct tsync_status *st)
{
        struct tsync_status_programs *c = &st->programs;
        progs_free(c->kernel, c->n_kernel);
        *c = (struct tsync_status_programs){ .differ = -1, .drift = -1, .added_differ = -1 };
        struct prog *files = NULL, *kernel = NULL;
        char(*labels)[64] = NULL;
        size_t n_files = 0, n_kernel = 0;
        /* PID 1 running in place of our init (--exec) has no filter files,
         * but its programs still meet the plan's (tsync_status_compare_plan). */
        int r = st->init_ours ? init_files(st->init_pid, &files, &labels, &n_files, c->what, sizeof(c->what)) : 0;
        if (r == 0)
                r = read_stopped(st->init_pid, &kernel, &n_kernel, c->what, sizeof(c->what));
        if (r == 0 && n_kernel < n_files + st->n_added) {
                (void)snprintf(c->what, sizeof(c->what),
                               "PID 1 holds %zu programs, fewer than its %zu filter files + %zu added by lockdown",
                               n_kernel, n_files, st->n_added);
                c->compared = true;
                c->differ = n_kernel < n_files ? (int)n_kernel : -1;
                c->added_differ = n_kernel >= n_files ? (int)(n_kernel - n_files) : 0;
        } else if (r == 0) {
                /* lockdown's layers are the newest; below them the init's,
                 * after the runtime's own. */
                for (size_t k = 0; k < st->n_added && c->added_differ < 0; k++) {
                        const struct prog *a = &kernel[n_kernel - st->n_added + k];
                        char hex[65];
                        tsync_sha256_hex(a->insns, a->len * sizeof(*a->insns), hex);
                        if (strcmp(hex, st->added_sha256[k]) != 0)
                                c->added_differ = (int)k;
                }
                size_t base = n_kernel - st->n_added - n_files;
                c->compared = true;
                c->n = n_files;
                for (size_t k = 0; k < n_files && c->differ < 0; k++) {
                        const struct prog *a = &kernel[base + k], *b = &files[k];
                        if (a->len != b->len || memcmp(a->insns, b->insns, a->len * sizeof(*a->insns)) != 0) {
                                c->differ = (int)k;
                                (void)snprintf(c->what, sizeof(c->what), "%s", labels[k]);
                        }
                }
        }
        progs_free(files, n_files);
        if (r == 0) {
                c->kernel = kernel;
                c->n_kernel = n_kernel;
        }
        free(labels);
        return r == -ENOMEM ? r : 0;
}

void tsync_status_programs_free(struct tsync_status_programs *c)
{
        progs_free(c->kernel, c->n_kernel);
        c->kernel = NULL;
        c->n_kernel = 0;
}

void tsync_status_compare_plan(struct tsync_status *st, const struct tsync_plan *plan,
                               const struct tsync_plan_programs *progs)
{
        struct tsync_status_programs *c = &st->programs;
        size_t n = progs->n - progs->n_baseline;
        c->drift = -1;
        if (!c->compared || c->n_kernel < n + st->n_added) {
                (void)snprintf(c->drift_what, sizeof(c->drift_what), "%s",
                               c->compared ? "PID 1 holds fewer programs than the plan has filters"
                                           : "PID 1's programs were not read");
                return;
        }
        c->plan_compared = true;
        size_t base = c->n_kernel - st->n_added - n;
        for (size_t k = 0; k < n; k++) {
                const struct prog *a = &c->kernel[base + k];
                const struct tsync_program *b = progs->progs[progs->n_baseline + k];
                if (a->len != b->len || memcmp(a->insns, b->insns, a->len * sizeof(*a->insns)) != 0) {
                        c->drift = (int)k;
                        tsync_plan_filter_label(plan, k, c->drift_what, sizeof(c->drift_what));
                        return;
                }
        }
}
