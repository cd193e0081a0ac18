/* bench_tsync [-n N] [THREADS...]: what SECCOMP_FILTER_FLAG_TSYNC and the
 * /proc/self/task census cost the init as the number of threads grows. A
 * benchmark, not a test: it prints figures and asserts no timing. It fails
 * (exit 1) only when a step fails, since the figures would then be wrong.
 *
 * For each thread count T (default 1 16 256 4096) and each of N repetitions
 * (default 15) a fresh child is forked, so filters never stack and every load
 * is the first one, as in the init. The child starts T-1 threads that block
 * in FUTEX_WAIT, sets NO_NEW_PRIVS, then times, with CLOCK_MONOTONIC:
 *   census  opendir /proc/self/task, open and read every status file, pick
 *           out Seccomp: and Seccomp_filters: (what the init's census and
 *           verification each do once);
 *   load    seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC) of a
 *           one-instruction allow-all program.
 * The census after the load must find T threads each with one filter: that
 * is checked (a load that did not reach every thread is an error), and its
 * time is reported too ("verify"). Median and p90 (nearest rank) in µs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"

#define PROG        "bench_tsync"
#define MAX_THREADS 16384
#define STACK_SIZE  (64 * 1024)

static atomic_int started;
static atomic_int release_word;

static double now_us(void)
{
        return bench_now_ms() * 1e3;
}

static void *blocker(void *arg)
{
        (void)arg;
        atomic_fetch_add(&started, 1);
        /* Blocked in the kernel, as a runtime's or workload's idle threads are. */
        while (atomic_load(&release_word) == 0)
                (void)syscall(SYS_futex, &release_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
        return NULL;
}

struct census_result {
        int threads;
        int min_filters, max_filters; /* Seccomp_filters over the threads */
        int unfiltered;               /* threads not in mode 2 */
};

/* Reads every /proc/self/task/TID/status, as the init's census does. */
static int census(struct census_result *ret)
{
        DIR *d = opendir("/proc/self/task");
        struct dirent *de;
        char path[sizeof(de->d_name) + 32], buf[4096];

        if (!d)
                return -errno;
        *ret = (struct census_result){ .min_filters = INT_MAX, .max_filters = -1 };
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof(path), "/proc/self/task/%s/status", de->d_name);
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0) {
                        if (errno == ENOENT)
                                continue; /* exited meanwhile: none of ours do */
                        int e = -errno;
                        (void)closedir(d);
                        return e;
                }
                ssize_t n = read(fd, buf, sizeof(buf) - 1);
                (void)close(fd);
                if (n < 0) {
                        int e = -errno;
                        (void)closedir(d);
                        return e;
                }
                buf[n] = '\0';
                const char *m = strstr(buf, "\nSeccomp:"), *f = strstr(buf, "\nSeccomp_filters:");
                if (!m || !f) {
                        (void)closedir(d);
                        return -EOPNOTSUPP;
                }
                int mode = atoi(m + strlen("\nSeccomp:")), filters = atoi(f + strlen("\nSeccomp_filters:"));
                ret->threads++;
                if (mode != SECCOMP_MODE_FILTER)
                        ret->unfiltered++;
                if (filters < ret->min_filters)
                        ret->min_filters = filters;
                if (filters > ret->max_filters)
                        ret->max_filters = filters;
        }
        (void)closedir(d);
        return 0;
}

struct sample {
        double census_us, load_us, verify_us;
        int err;       /* 0 or a positive errno */
        char what[96]; /* the failing step */
};

/* The step that failed, and why, for the parent to print. */
__attribute__((format(printf, 3, 4))) static void failed(struct sample *s, int err, const char *fmt, ...)
{
        va_list ap;

        s->err = err;
        va_start(ap, fmt);
        (void)vsnprintf(s->what, sizeof(s->what), fmt, ap);
        va_end(ap);
}

/* In the child: the threads, then one timed census, load and verification. */
static void one_run(int threads, struct sample *s)
{
        static const struct sock_filter insns[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
        const struct sock_fprog prog = { .len = 1, .filter = (struct sock_filter *)insns };
        struct census_result before, after;
        pthread_attr_t attr;
        pthread_t tid;
        int r;

        if ((r = pthread_attr_init(&attr)) || (r = pthread_attr_setstacksize(&attr, STACK_SIZE))) {
                failed(s, r, "pthread_attr");
                return;
        }
        for (int i = 1; i < threads; i++) {
                if ((r = pthread_create(&tid, &attr, blocker, NULL))) {
                        failed(s, r, "pthread_create #%d", i);
                        return;
                }
        }
        while (atomic_load(&started) < threads - 1)
                (void)sched_yield();
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
                failed(s, errno, "prctl(PR_SET_NO_NEW_PRIVS)");
                return;
        }

        double t0 = now_us();
        r = census(&before);
        double t1 = now_us();
        if (r < 0) {
                failed(s, -r, "census before");
                return;
        }
        long l = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
        double t2 = now_us();
        if (l != 0) {
                /* TSYNC returns the TID of a diverged thread as a positive value. */
                failed(s, l < 0 ? errno : ESRCH, "seccomp TSYNC (returned %ld)", l);
                return;
        }
        r = census(&after);
        double t3 = now_us();
        if (r < 0) {
                failed(s, -r, "census after");
                return;
        }
        if (before.threads != threads || after.threads != threads || after.unfiltered || after.min_filters != 1 ||
            after.max_filters != 1) {
                failed(s, EPROTO, "verify: %d/%d threads, %d unfiltered, filters %d..%d", after.threads, threads,
                       after.unfiltered, after.min_filters, after.max_filters);
                return;
        }
        s->census_us = t1 - t0;
        s->load_us = t2 - t1;
        s->verify_us = t3 - t2;
}

/* Forks a child for one run and collects its sample through a pipe. */
static int run_child(int threads, struct sample *s)
{
        int fds[2], status;

        if (pipe(fds) < 0)
                return -errno;
        pid_t pid = fork();
        if (pid < 0) {
                int e = -errno;
                (void)close(fds[0]);
                (void)close(fds[1]);
                return e;
        }
        if (pid == 0) {
                struct sample mine = { 0 };
                (void)close(fds[0]);
                one_run(threads, &mine);
                /* One small write to a pipe is atomic; exit_group ends the blocked threads. */
                _exit(write(fds[1], &mine, sizeof(mine)) == (ssize_t)sizeof(mine) ? 0 : 1);
        }
        (void)close(fds[1]);
        ssize_t n = read(fds[0], s, sizeof(*s));
        (void)close(fds[0]);
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        if (n != (ssize_t)sizeof(*s) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                failed(s, EPIPE, "child died (status 0x%x)", status);
        }
        return 0;
}

static int parse_int(const char *s, int min, int max, int *ret)
{
        long v;
        int r = bench_parse_long(s, min, max, &v);
        if (r == 0)
                *ret = (int)v;
        return r;
}

static void usage(FILE *f)
{
        fprintf(f, "usage: " PROG " [-n N] [THREADS...]\n"
                   "  -n N      repetitions per thread count, each in a fresh child (default 15)\n"
                   "  THREADS   thread counts, the caller included (default 1 16 256 4096)\n");
}

int main(int argc, char **argv)
{
        static const int default_counts[] = { 1, 16, 256, 4096 };
        int reps = 15, opt;

        while ((opt = getopt(argc, argv, "n:h")) != -1) {
                switch (opt) {
                case 'n':
                        if (parse_int(optarg, 1, 100000, &reps) < 0) {
                                usage(stderr);
                                return 2;
                        }
                        break;
                default: /* -h, or an option we do not know */
                        return bench_usage_status(usage, opt);
                }
        }
        int ncounts = argc > optind ? argc - optind : (int)(sizeof(default_counts) / sizeof(default_counts[0]));
        int *counts = calloc((size_t)ncounts, sizeof(*counts));
        double *census_us = calloc((size_t)reps, sizeof(double));
        double *load_us = calloc((size_t)reps, sizeof(double));
        double *verify_us = calloc((size_t)reps, sizeof(double));
        int rc = 0;

        if (!counts || !census_us || !load_us || !verify_us) {
                fprintf(stderr, PROG ": out of memory\n");
                rc = 1;
                goto out;
        }
        for (int i = 0; i < ncounts; i++) {
                if (argc > optind) {
                        if (parse_int(argv[optind + i], 1, MAX_THREADS, &counts[i]) < 0) {
                                usage(stderr);
                                rc = 2;
                                goto out;
                        }
                } else {
                        counts[i] = default_counts[i];
                }
        }

        printf("TSYNC load and /proc/self/task census, %d runs per thread count, each in a fresh child\n", reps);
        printf("(allow-all filter, 1 instruction; threads blocked in FUTEX_WAIT; times in microseconds)\n\n");
        printf("%8s  %21s  %21s  %21s  %12s\n", "threads", "load TSYNC med / p90", "census med / p90",
               "verify med / p90", "load/thread");
        fflush(stdout);
        for (int i = 0; i < ncounts; i++) {
                for (int k = 0; k < reps; k++) {
                        struct sample s = { 0 };
                        int r = run_child(counts[i], &s);
                        if (r < 0) {
                                fprintf(stderr, PROG ": %d threads: fork/pipe: %s\n", counts[i], strerror(-r));
                                rc = 1;
                                goto out;
                        }
                        if (s.err) {
                                s.what[sizeof(s.what) - 1] = '\0';
                                fprintf(stderr, PROG ": %d threads: %s: %s\n", counts[i], s.what, strerror(s.err));
                                rc = 1;
                                goto out;
                        }
                        census_us[k] = s.census_us;
                        load_us[k] = s.load_us;
                        verify_us[k] = s.verify_us;
                }
                struct bench_figures l = bench_summarise(load_us, (size_t)reps),
                                     c = bench_summarise(census_us, (size_t)reps),
                                     v = bench_summarise(verify_us, (size_t)reps);
                printf("%8d  %9.1f / %9.1f  %9.1f / %9.1f  %9.1f / %9.1f  %12.3f\n", counts[i], l.median, l.p90,
                       c.median, c.p90, v.median, v.p90, l.median / counts[i]);
                fflush(stdout);
        }
out:
        free(counts);
        free(census_us);
        free(load_us);
        free(verify_us);
        return rc;
}
