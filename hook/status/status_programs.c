/* status: every task's seccomp programs as the kernel holds them
 * (PTRACE_SECCOMP_GET_FILTER, which returns each program exactly as it was
 * loaded): PID 1's against the filter files our init was given on its command
 * line (--filter PATH, opened inside its root, or --filter-data), every other
 * task's against PID 1's. The counts say how many filters a task carries,
 * which a task can forge with filters of its own; this says which.
 *
 * Each task is stopped for as long as its reads take, one at a time, by a
 * child process (stop_reader): a task that does not reach its stop in time
 * (PID 1 in vfork, a frozen task) is not waited for, the child is killed,
 * and the kernel detaches every task it traced, so no task stays traced (and
 * lockdown is not refused) because status ran. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plan/plan.h"
#include "shared/base64.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "shared/filterfile.h"
#include "shared/init_args.h"
#include "status/status.h"
#include "util/fileio.h"
#include "util/sha256.h"

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

/* Whether two programs are the same, instruction for instruction (the
 * kernel returns a program exactly as it was loaded). */
static bool same_program(const struct sock_filter *a, size_t a_len, const struct sock_filter *b, size_t b_len)
{
        return a_len == b_len && memcmp(a, b, a_len * sizeof(*a)) == 0;
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
                /* The path and everything on it are the container's: resolved
                 * inside its root (an absolute symbolic link stays in it), no
                 * magic link, and never a FIFO or device that could block or
                 * answer for a file. */
                char path[64];
                (void)snprintf(path, sizeof(path), "/proc/%d/root", (int)init);
                _cleanup_close_ int root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
                struct open_how how = { .flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                                        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
                _cleanup_close_ int fd = root < 0 ? -1 : (int)syscall(SYS_openat2, root, arg, &how, sizeof(how));
                struct stat fst;
                if (fd >= 0 && fstat(fd, &fst) < 0)
                        (void)close(TAKE_FD(fd));
                if (fd < 0) {
                        int e = errno;
                        (void)snprintf(why, size, "%s: %s", arg, tsync_errtext(e));
                        return -e;
                }
                if (!S_ISREG(fst.st_mode)) {
                        (void)snprintf(why, size, "%s: not a regular file", arg);
                        return -EINVAL;
                }
                n = tsync_filter_read(fd, buf, TSYNC_FILTER_MAX_SIZE);
                if (n < 0) {
                        (void)snprintf(why, size, "%s: %s", arg, tsync_errtext((int)-n));
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
                (void)snprintf(why, size, "PTRACE_SECCOMP_GET_FILTER: %s%s", tsync_errtext(e),
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
                                       len < 0 ? tsync_errtext(errno) : "unexpected length");
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
 * meanwhile. In stop_reader's child: a tid that never stops keeps this
 * waiting until the parent kills the child. */
static int read_stopped(pid_t tid, struct prog **ret, size_t *ret_n, char *why, size_t size)
{
        if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0) {
                int e = errno;
                (void)snprintf(why, size, "PTRACE_SEIZE: %s%s", tsync_errtext(e),
                               e == EPERM ? " (another tracer, or no CAP_SYS_PTRACE)" : "");
                return -e;
        }
        int r = 0, sig = 0, st;
        if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0) {
                r = -errno;
                (void)snprintf(why, size, "PTRACE_INTERRUPT: %s", tsync_errtext(-r));
        }
        while (r == 0) {
                if (waitpid(tid, &st, __WALL) < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        (void)snprintf(why, size, "waitpid: %s", tsync_errtext(-r));
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

/* Whether a task whose programs could not be read has ended since: gone, or
 * a zombie not yet reaped, which PTRACE_SEIZE refuses with EPERM and tgkill
 * still finds (a workload forking short-lived children meets it often on a
 * loaded machine). The state is the kernel's; a live task traced by another
 * tracer, also EPERM, is none of these and stays unread. */
static bool task_ended(pid_t pid, pid_t tid)
{
        if (syscall(SYS_tgkill, pid, tid, 0) < 0 && errno == ESRCH)
                return true;
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r = tsync_read_file_at(AT_FDCWD, path, NULL, 0, 4096, &text, &len, NULL, NULL);
        if (r == -ENOENT || r == -ESRCH)
                return true;
        /* The state follows the command name's last ')', whatever the name holds. */
        const char *close = r == 0 ? strrchr(text, ')') : NULL;
        return close && (close[1] == ' ') && (close[2] == 'Z' || close[2] == 'X');
}

/* What stop_reader's child sends per task, then each program as its length
 * (uint32_t) and its instructions. */
struct record {
        int32_t err; /* 0, or -errno with why */
        uint32_t n;
        char why[96];
};

static int write_all(int fd, const void *buf, size_t len)
{
        for (const char *p = buf; len > 0;) {
                ssize_t n = write(fd, p, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return -1;
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

static int64_t now_ms(void)
{
        struct timespec ts;
        (void)clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* len bytes from fd before deadline (CLOCK_MONOTONIC ms): 0, -ETIMEDOUT, -EPIPE at the end. */
static int read_by(int fd, void *buf, size_t len, int64_t deadline)
{
        for (char *p = buf; len > 0;) {
                int64_t left = deadline - now_ms();
                if (left <= 0)
                        return -ETIMEDOUT;
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                int r = poll(&pfd, 1, (int)left);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        return -errno;
                if (r == 0)
                        return -ETIMEDOUT;
                ssize_t n = read(fd, p, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return -EPIPE;
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

struct chain_out {
        int err; /* 0 read, else -errno with why */
        char why[96];
        struct prog *p;
        size_t n;
};

/* One record from the child into o, the task's deadline counted from now. */
static int read_record(int fd, struct chain_out *o)
{
        int64_t deadline = now_ms() + TSYNC_STATUS_STOP_DEADLINE_MS;
        struct record rec;
        int r = read_by(fd, &rec, sizeof(rec), deadline);
        if (r < 0)
                return r;
        rec.why[sizeof(rec.why) - 1] = '\0';
        o->err = rec.err < 0 ? rec.err : 0;
        memcpy(o->why, rec.why, sizeof(o->why));
        if (o->err < 0 || rec.n == 0)
                return 0;
        if (rec.n > MAX_KERNEL_FILTERS)
                return -EIO;
        o->p = calloc(rec.n, sizeof(*o->p));
        if (!o->p)
                return -ENOMEM;
        for (; o->n < rec.n; o->n++) {
                uint32_t len;
                r = read_by(fd, &len, sizeof(len), deadline);
                if (r == 0 && (len == 0 || len > BPF_MAXINSNS))
                        r = -EIO;
                struct sock_filter *insns = r == 0 ? calloc(len, sizeof(*insns)) : NULL;
                if (r == 0 && !insns)
                        r = -ENOMEM;
                if (r == 0)
                        r = read_by(fd, insns, len * sizeof(*insns), deadline);
                if (r < 0) {
                        free(insns);
                        return r;
                }
                o->p[o->n] = (struct prog){ .insns = insns, .len = len };
        }
        return 0;
}

static void chain_clear(struct chain_out *o)
{
        progs_free(o->p, o->n);
        o->p = NULL;
        o->n = 0;
}

/* One task to read: its tid, its place in st->tasks, what was read. */
struct task_read {
        pid_t tid;
        size_t task;
        struct chain_out out;
};

static void task_reads_free(struct task_read *reads, size_t n)
{
        for (size_t k = 0; reads && k < n; k++)
                chain_clear(&reads[k].out);
        free(reads);
}

/* The child's exit status: 0 when every task's record was sent. */
static int reader_child(int fd, const struct task_read *reads, size_t n, pid_t parent)
{
        /* Ends with status (also when status ended before this was set):
         * its tracees are let go with it. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
                return 1;
        for (size_t i = 0; i < n; i++) {
                struct record rec = { 0 };
                struct prog *p = NULL;
                size_t np = 0;
                int r = read_stopped(reads[i].tid, &p, &np, rec.why, sizeof(rec.why));
                rec.err = r;
                rec.n = r < 0 ? 0 : (uint32_t)np;
                int w = write_all(fd, &rec, sizeof(rec));
                for (size_t k = 0; w == 0 && k < rec.n; k++) {
                        uint32_t len = (uint32_t)p[k].len;
                        w = write_all(fd, &len, sizeof(len));
                        if (w == 0)
                                w = write_all(fd, p[k].insns, len * sizeof(*p[k].insns));
                }
                progs_free(p, np);
                if (w < 0)
                        return 1;
        }
        return 0;
}

/* Reads the programs of reads[0..n) into their out, each task given its
 * deadline: a task that misses it (or makes the child fail) gets -ETIMEDOUT
 * (-EIO) and the child is killed, which detaches it; the next task goes to a
 * new child. -ENOMEM only. */
static int stop_reader(struct task_read *reads, size_t n)
{
        size_t i = 0;
        while (i < n) {
                int fds[2];
                if (pipe2(fds, O_CLOEXEC) < 0) {
                        for (; i < n; i++) {
                                reads[i].out.err = -errno;
                                (void)snprintf(reads[i].out.why, sizeof(reads[i].out.why), "pipe: %s",
                                               tsync_errtext(errno));
                        }
                        return 0;
                }
                pid_t self = getpid(), child = fork();
                if (child == 0) {
                        (void)close(fds[0]);
                        int status = reader_child(fds[1], reads + i, n - i, self);
                        /* This copy of the parent's blocks is the child's to
                         * free: the caller's pointers to them may live in
                         * registers the child reuses, and memcheck then calls
                         * them lost at its exit (test_memcheck). */
                        task_reads_free(reads, n);
                        _exit(status);
                }
                (void)close(fds[1]);
                _cleanup_close_ int fd = fds[0];
                if (child < 0) {
                        int e = errno;
                        for (; i < n; i++) {
                                reads[i].out.err = -e;
                                (void)snprintf(reads[i].out.why, sizeof(reads[i].out.why), "fork: %s",
                                               tsync_errtext(e));
                        }
                        return 0;
                }
                int r = 0;
                for (; i < n; i++) {
                        r = read_record(fd, &reads[i].out);
                        if (r < 0)
                                break;
                }
                if (r < 0) {
                        chain_clear(&reads[i].out);
                        reads[i].out.err = r == -ENOMEM ? -ENOMEM : r == -ETIMEDOUT ? -ETIMEDOUT : -EIO;
                        (void)snprintf(reads[i].out.why, sizeof(reads[i].out.why), "%s",
                                       r == -ETIMEDOUT ? "it did not stop within the deadline (in vfork? frozen?), "
                                                         "so it was let go"
                                                       : "the reader failed");
                        (void)kill(child, SIGKILL);
                }
                while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
                        ;
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        i++;
        }
        return 0;
}

/* How many of ref's programs, in order, chain holds (greedy: the programs a
 * task loaded on its own may lie between them). */
static int matched(const struct prog *ref, size_t n_ref, const struct prog *chain, size_t n)
{
        size_t k = 0;
        for (size_t j = 0; j < n && k < n_ref; j++)
                if (same_program(chain[j].insns, chain[j].len, ref[k].insns, ref[k].len))
                        k++;
        return (int)k;
}

/* Which of st->want the chain holds, anywhere in it. */
static uint32_t holds(const struct tsync_status *st, const struct chain_out *out)
{
        uint32_t bits = 0;
        for (size_t j = 0; j < st->n_want && j < 32; j++)
                for (size_t i = 0; i < out->n; i++)
                        if (same_program(out->p[i].insns, out->p[i].len, st->want[j]->insns, st->want[j]->len)) {
                                bits |= 1u << j;
                                break;
                        }
        return bits;
}

/* Every live task's programs, PID 1's main thread's first, into *ret_kernel; the others' chain
 * and matched. 0 when PID 1's were read, else -errno with why; -ENOMEM. */
static int read_tasks(struct tsync_status *st, struct prog **ret_kernel, size_t *ret_n, char *why, size_t size)
{
        struct task_read *reads = calloc(st->n + 1, sizeof(*reads));
        if (!reads)
                return -ENOMEM;
        size_t n = 0;
        reads[n++].tid = st->init_pid;
        for (size_t i = 0; i < st->n; i++) {
                struct tsync_status_task *t = &st->tasks[i];
                t->chain = TSYNC_CHAIN_NOT_READ;
                if (t->dead)
                        continue;
                if (t->tid == st->init_pid) {
                        reads[0].task = i;
                        continue;
                }
                reads[n].task = i;
                reads[n++].tid = t->tid;
        }
        int r = stop_reader(reads, n);
        struct chain_out *init = &reads[0].out;
        for (size_t k = 0; r == 0 && k < n; k++) {
                struct tsync_status_task *t = &st->tasks[reads[k].task];
                const struct chain_out *out = &reads[k].out;
                if (k == 0 && t->tid != st->init_pid)
                        continue; /* PID 1's main thread is not among the tasks read (gone meanwhile) */
                /* A task that ended since /proc was read runs nothing any more. */
                if (k > 0 && (out->err == -ESRCH || out->err == -EPERM) && task_ended(t->pid, t->tid)) {
                        t->dead = true;
                        continue;
                }
                if (out->err < 0 || init->err < 0) {
                        t->chain = TSYNC_CHAIN_FAILED;
                        (void)snprintf(t->why, sizeof(t->why), "%s",
                                       out->err < 0 ? out->why : "PID 1's programs were not read");
                        continue;
                }
                t->chain = TSYNC_CHAIN_READ;
                t->matched = matched(init->p, init->n, out->p, out->n);
                t->holds = holds(st, out);
        }
        if (r == 0 && init->err < 0) {
                (void)snprintf(why, size, "%s", init->why);
                r = init->err == -ENOMEM ? -ENOMEM : init->err;
        } else if (r == 0) {
                *ret_kernel = init->p;
                *ret_n = init->n;
                init->p = NULL;
                init->n = 0;
        }
        task_reads_free(reads, n);
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
        char files_why[sizeof(c->what)] = "";
        int rf = st->init_ours ? init_files(st->init_pid, &files, &labels, &n_files, files_why, sizeof(files_why)) : 0;
        if (rf == -ENOMEM)
                return rf;
        int r = read_tasks(st, &kernel, &n_kernel, c->what, sizeof(c->what));
        if (r == 0 && rf < 0) {
                /* Its files are the container's to break (or to point
                 * elsewhere): PID 1 is then unverified, the rest still
                 * judged against its programs. */
                for (size_t i = 0; i < st->n; i++)
                        if (st->tasks[i].tid == st->init_pid) {
                                st->tasks[i].chain = TSYNC_CHAIN_FAILED;
                                (void)snprintf(st->tasks[i].why, sizeof(st->tasks[i].why), "its filter files: %.70s",
                                               files_why);
                        }
                (void)snprintf(c->what, sizeof(c->what), "its filter files: %.120s", files_why);
                c->files_failed = true;
        }
        /* PID 1 may have exec'd another program meanwhile: what was read
         * is then not what was judged to be ours. */
        char path[64];
        struct stat now;
        (void)snprintf(path, sizeof(path), "/proc/%d/exe", (int)st->init_pid);
        if (r == 0 && (stat(path, &now) < 0 || now.st_dev != st->init_dev || now.st_ino != st->init_ino)) {
                (void)snprintf(c->what, sizeof(c->what), "PID 1 ran another program while it was read");
                for (size_t i = 0; i < st->n; i++)
                        if (st->tasks[i].chain == TSYNC_CHAIN_READ) {
                                st->tasks[i].chain = TSYNC_CHAIN_FAILED;
                                (void)snprintf(st->tasks[i].why, sizeof(st->tasks[i].why), "%.90s", c->what);
                        }
                progs_free(kernel, n_kernel);
                kernel = NULL;
                r = -ESTALE;
        }
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
                        if (!same_program(a->insns, a->len, b->insns, b->len)) {
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

size_t tsync_status_programs_held(const struct tsync_status *st, const struct tsync_program *const *progs, size_t n)
{
        const struct tsync_status_programs *c = &st->programs;
        size_t k = 0;
        for (size_t j = 0; c->compared && j < c->n_kernel && k < n; j++)
                if (same_program(c->kernel[j].insns, c->kernel[j].len, progs[k]->insns, progs[k]->len))
                        k++;
        return k;
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
                if (!same_program(a->insns, a->len, b->insns, b->len)) {
                        c->drift = (int)k;
                        tsync_plan_filter_label(plan, k, c->drift_what, sizeof(c->drift_what));
                        return;
                }
        }
}
