/* lockdown: the run over every task of a container (tsync_lockdown_run).
 * Order: judge every task before touching anything; seize the tasks in a
 * job-control stop (a frozen stopped task cannot be seized until the thaw);
 * freeze, so nothing forks, clones or execs; judge the final list again (a
 * task that entered a stop meanwhile: thaw, seize it, freeze again); seize
 * and interrupt every other task; thaw (the ptrace stops hold them, taken
 * before any code of theirs runs); inject once per process; prove every task
 * carries our programs; detach. Stopped tasks go back to their stop at the
 * detach (the kernel reinstates a group stop still in effect); zombies are
 * skipped (they run no more code). Nothing here prints: the CLI
 * (cmd_lockdown.c) says what the result holds. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "facts/plain_exec.h"
#include "lockdown/lockdown.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "status/status.h"
#include "util/fileio.h"

#include <linux/seccomp.h>

#define CAP_SYS_ADMIN_BIT 21
#define STOP_TIMEOUT_MS   10000
#define FREEZE_ATTEMPTS   5

/* A task we seized. */
struct held {
        pid_t pid, tid;
        int sig;      /* a signal held back while it ran our calls, for the detach */
        bool waited;  /* its ptrace stop was collected */
        bool gone;    /* it ended instead of stopping */
        bool stopped; /* it was in a job-control stop: it goes back to it at the detach */
};

struct run {
        const struct tsync_lockdown_req *req;
        struct tsync_lockdown_result *res;
        struct held *held;
        size_t n_held;
};

size_t tsync_lockdown_result_tasks(const struct tsync_lockdown_result *r)
{
        size_t n = 0;
        for (size_t i = 0; i < r->n_failed; i++) {
                bool seen = false;
                for (size_t j = 0; j < i && !seen; j++)
                        seen = r->failed[j].tid == r->failed[i].tid;
                n += !seen;
        }
        return n;
}

void tsync_lockdown_result_clear(struct tsync_lockdown_result *r)
{
        free(r->failed);
        free(r->notes);
        *r = (struct tsync_lockdown_result){ 0 };
}

static void name_task(struct tsync_lockdown_task **list, size_t *n, const struct tsync_status_task *k, const char *fmt,
                      ...) __attribute__((format(printf, 4, 5)));
static void name_task(struct tsync_lockdown_task **list, size_t *n, const struct tsync_status_task *k, const char *fmt,
                      ...)
{
        struct tsync_lockdown_task *l = realloc(*list, (*n + 1) * sizeof(**list));
        if (!l)
                abort(); /* a few hundred bytes: nothing sensible is left to do */
        *list = l;
        struct tsync_lockdown_task *t = &l[(*n)++];
        *t = (struct tsync_lockdown_task){ .pid = k->pid, .tid = k->tid };
        (void)snprintf(t->comm, sizeof(t->comm), "%s", k->comm);
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(t->why, sizeof(t->why), fmt, ap);
        va_end(ap);
}
#define FAIL(r, k, ...) name_task(&(r)->res->failed, &(r)->res->n_failed, (k), __VA_ARGS__)
#define NOTE(r, k, ...) name_task(&(r)->res->notes, &(r)->res->n_notes, (k), __VA_ARGS__)

static long now_us(void)
{
        struct timespec ts;
        (void)clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

/* Whether a task is in a job-control stop (SIGSTOP, SIGTSTP, ...). A task
 * the v1 freezer froze shows State D whatever it was doing, and the frozen
 * list keeps the State read before the freeze; the wait channel says
 * do_signal_stop when it is stopped. */
static bool stopped_now(const struct tsync_status_task *k)
{
        pid_t pid = k->pid, tid = k->tid;
        if (k->state == 'T')
                return true;
        char path[80];
        (void)snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", (int)pid, (int)tid);
        _cleanup_free_ char *w = NULL;
        size_t len;
        /* A kernel symbol's name, no newline */
        if (tsync_read_file_at(AT_FDCWD, path, NULL, 0, 512, &w, &len, NULL, NULL) < 0)
                return false;
        return strcmp(w, "do_signal_stop") == 0;
}

/* 1 when pid's executable is an x86_64 ELF, 0 when another, -errno. */
static int is_x86_64(pid_t pid)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        Elf64_Ehdr h;
        if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
                return 0;
        return h.e_ident[EI_CLASS] == ELFCLASS64 && h.e_machine == EM_X86_64;
}

static struct held *find_held(struct run *r, pid_t tid)
{
        for (size_t i = 0; i < r->n_held; i++)
                if (r->held[i].tid == tid)
                        return &r->held[i];
        return NULL;
}

bool tsync_lockdown_takes_no_filter(const struct tsync_status_task *k)
{
        return !k->no_new_privs && !(k->caps[TSYNC_CAPSET_EFFECTIVE] & (1ULL << CAP_SYS_ADMIN_BIT));
}

static bool needs_nnp(const struct run *r, const struct tsync_status_task *k)
{
        return r->req->set_nnp && tsync_lockdown_takes_no_filter(k);
}

/* Everything that would stop us, judged before anything is touched, and
 * again once frozen (new tasks). */
static void judge(struct run *r, const struct tsync_status *st, bool frozen)
{
        for (size_t i = 0; i < st->n; i++) {
                const struct tsync_status_task *k = &st->tasks[i];
                if (k->dead)
                        continue;
                /* Once frozen, a tracer that came meanwhile makes the seize
                 * fail, naming the task: the frozen list's TracerPid is not judged. */
                if (!frozen && k->tracer > 0) {
                        FAIL(r, k, "traced by pid %d: ptrace allows one tracer", (int)k->tracer);
                        continue;
                }
                if (k->pid == k->tid && is_x86_64(k->pid) == 0)
                        FAIL(r, k, "not an x86_64 process: lockdown supports x86_64 processes only");
                int fd;
                if (!frozen && k->pid == k->tid && tsync_lockdown_listener_fd(k->pid, &fd) > 0)
                        FAIL(r, k,
                             "holds a seccomp listener (fd %d): a filter's USER_NOTIF (a recording's, a notify "
                             "agent's, its own) would send the injected seccomp() to a task lockdown holds "
                             "stopped: refused before anything is frozen",
                             fd);
                if (tsync_lockdown_takes_no_filter(k) && !r->req->set_nnp) {
                        FAIL(r, k,
                             "neither NO_NEW_PRIVS nor CAP_SYS_ADMIN: the kernel takes no filter from it "
                             "(--set-no-new-privs sets NO_NEW_PRIVS first)");
                        r->res->failed[r->res->n_failed - 1].no_nnp = true;
                }
        }
}

static int hold(struct run *r, const struct tsync_status_task *k, bool waited)
{
        struct held *h = realloc(r->held, (r->n_held + 1) * sizeof(*h));
        if (!h)
                return -ENOMEM;
        r->held = h;
        h[r->n_held++] = (struct held){ .pid = k->pid, .tid = k->tid, .waited = waited };
        return 0;
}

/* Seizes the tasks of st in a job-control stop. Not frozen: the seize turns
 * the stop into a ptrace stop at once. */
static void seize_stopped(struct run *r, struct tsync_status *st)
{
        for (size_t i = 0; i < st->n; i++) {
                struct tsync_status_task *k = &st->tasks[i];
                if (k->dead || find_held(r, k->tid) || !stopped_now(k))
                        continue;
                char why[160];
                int e = tsync_lockdown_seize(k->tid, false, why, sizeof(why));
                if (e == 0)
                        e = tsync_lockdown_wait_stop(k->tid, STOP_TIMEOUT_MS, why, sizeof(why));
                if (e == -ESRCH)
                        k->dead = true;
                else if (e < 0)
                        FAIL(r, k, "%s", why);
                else if (hold(r, k, true) < 0)
                        FAIL(r, k, "out of memory");
                else
                        r->held[r->n_held - 1].stopped = true;
        }
}

static const struct tsync_status_task *find_task(const struct tsync_status *st, pid_t tid)
{
        for (size_t i = 0; i < st->n; i++)
                if (st->tasks[i].tid == tid)
                        return &st->tasks[i];
        return NULL;
}

/* The frozen list: every task in the cgroup, a known one as st read it
 * (what matters of it is read again: its ABI, its stop, its filters by
 * the proof through ptrace), a new one read now; st's zombies are kept, to
 * be named. Processes in pid order, each main thread first. Reading the
 * cgroup rather than scanning every process of the host for the
 * namespace keeps the frozen time short. */
static int list_frozen(const struct tsync_lockdown_cgroup *cg, const struct tsync_status *st, struct tsync_status *fz,
                       struct tsync_err *err)
{
        _cleanup_free_ pid_t *tids = NULL;
        size_t n = 0;
        int e = tsync_lockdown_cgroup_tids(cg, &tids, &n);
        if (e < 0)
                return tsync_error(err, -e, "%s: listing its tasks: %s", cg->dir, tsync_errtext(-e));
        tsync_status_clear(fz);
        fz->tasks = calloc(n + st->n + 1, sizeof(*fz->tasks));
        if (!fz->tasks)
                return tsync_error(err, ENOMEM, "out of memory");
        fz->target_ns_pid = st->target_ns_pid;
        for (size_t i = 0; i < st->n; i++)
                if (st->tasks[i].dead)
                        fz->tasks[fz->n++] = st->tasks[i];
        for (size_t i = 0; i < n; i++) {
                const struct tsync_status_task *k = find_task(st, tids[i]);
                if (k && k->dead)
                        continue;
                if (k) {
                        fz->tasks[fz->n++] = *k;
                        continue;
                }
                e = tsync_status_read_task(tids[i], tids[i], &fz->tasks[fz->n]);
                if (e == -ENOENT)
                        continue; /* it ended */
                if (e < 0)
                        return tsync_error(err, -e, "task %d: %s", (int)tids[i], tsync_errtext(-e));
                fz->n++;
        }
        qsort(fz->tasks, fz->n, sizeof(*fz->tasks), tsync_status_task_cmp);
        return 0;
}

/* Every task is stopped now: one in the cgroup that is not held appeared
 * between the thaw and its creator's stop. */
static void newcomers(struct run *r, const struct tsync_lockdown_cgroup *cg, const struct tsync_status *fz)
{
        _cleanup_free_ pid_t *tids = NULL;
        size_t n = 0;
        int e = tsync_lockdown_cgroup_tids(cg, &tids, &n);
        if (e < 0) {
                struct tsync_status_task k = { .pid = r->req->pid, .tid = r->req->pid };
                FAIL(r, &k, "listing its tasks again: %s", tsync_errtext(-e));
                return;
        }
        for (size_t i = 0; i < n; i++) {
                const struct held *h = find_held(r, tids[i]);
                if (h && !h->gone)
                        continue;
                const struct tsync_status_task *k = find_task(fz, tids[i]);
                if (k && k->dead)
                        continue;
                struct tsync_status_task t = { .pid = tids[i], .tid = tids[i] };
                if (tsync_status_read_task(tids[i], tids[i], &t) < 0 || t.dead)
                        continue; /* it ended, or is ending: it runs nothing */
                FAIL(r, &t, "appeared while the container was being seized: not held");
        }
}

/* Runs program p in one thread; 0 or why (filled). *res the call's result. */
static int inject_one(struct run *r, const struct tsync_status_task *k, const struct tsync_lockdown_prog *p,
                      unsigned flags, bool nnp, long *res, char *why, size_t size)
{
        struct held *h = find_held(r, k->tid);
        if (!h) {
                (void)snprintf(why, size, "not held");
                return -ESRCH;
        }
        return tsync_lockdown_inject(k->pid, k->tid, p->insns, p->len, flags, nnp, res, &h->sig, why, size);
}

/* Program p given to every live thread of the process whose first live
 * thread is st->tasks[first], each on its own (no TSYNC): for a process
 * whose threads' filters diverge. False when one failed (named). */
static bool cover_threads(struct run *r, const struct tsync_status *st, size_t first, size_t p)
{
        const struct tsync_lockdown_prog *prog = &r->req->progs[p];
        for (size_t i = first; i < st->n && st->tasks[i].pid == st->tasks[first].pid; i++) {
                const struct tsync_status_task *t = &st->tasks[i];
                if (t->dead)
                        continue;
                char why[224] = "";
                long res = 0;
                int e = inject_one(r, t, prog, prog->flags & ~SECCOMP_FILTER_FLAG_TSYNC, needs_nnp(r, t) && p == 0,
                                   &res, why, sizeof(why));
                if (e < 0) {
                        FAIL(r, t, "%s", why);
                        return false;
                }
                if (res != 0) {
                        FAIL(r, t, "seccomp in this thread: %s", tsync_errtext((int)-res));
                        return false;
                }
        }
        return true;
}

/* Collects the stops of the calls in flight until each is done. A call
 * still in flight at the deadline (or when the run is cancelled) is
 * unwound, never left mid-call: every one is interrupted first, so their
 * stops overlap. */
static void collect(struct run *r, const struct tsync_status *st, const size_t *first,
                    struct tsync_lockdown_call *calls, int *state, size_t n)
{
        size_t inflight = 0;
        for (size_t i = 0; i < n; i++)
                inflight += state[i] == 1;
        for (long waited = 0; inflight;) {
                int status;
                pid_t w = waitpid(-1, &status, __WALL | WNOHANG);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0) {
                        if (w < 0 || waited++ > TSYNC_LOCKDOWN_CALL_MS * 10L || tsync_lockdown_cancelled)
                                break;
                        (void)usleep(100);
                        continue;
                }
                for (size_t i = 0; i < n; i++) {
                        if (state[i] != 1 || calls[i].tid != w)
                                continue;
                        int e = tsync_lockdown_call_stopped(&calls[i], status);
                        if (e == 1)
                                break;
                        inflight--;
                        state[i] = e < 0 ? -1 : 0;
                        if (e < 0)
                                FAIL(r, &st->tasks[first[i]], "%s", calls[i].why);
                        if (e == -ESRCH)
                                find_held(r, w)->gone = true;
                        break;
                }
        }
        for (size_t i = 0; i < n; i++)
                if (state[i] == 1)
                        (void)tsync_lockdown_call_interrupt(&calls[i]);
        for (size_t i = 0; i < n; i++)
                if (state[i] == 1) {
                        state[i] = -1;
                        char what[96];
                        (void)snprintf(what, sizeof(what), "%s",
                                       tsync_lockdown_cancelled
                                               ? "lockdown was interrupted while it ran the injected call"
                                               : "the injected call did not return within the "
                                                 "deadline");
                        int e = tsync_lockdown_call_unwind(&calls[i], what);
                        FAIL(r, &st->tasks[first[i]], "%s", calls[i].why);
                        if (e == -ESRCH)
                                find_held(r, calls[i].tid)->gone = true;
                }
}

/* Every process: one TSYNC call per program in its first live thread, the
 * calls of all processes side by side (each step waits for its target to
 * be scheduled: side by side, those waits overlap). When TSYNC names a
 * thread with filters of its own (a diverged stack it cannot sync),
 * nothing was applied, and every thread of that process is given the
 * program on its own instead. */
static void cover(struct run *r, const struct tsync_status *st)
{
        _cleanup_free_ size_t *first = calloc(st->n ? st->n : 1, sizeof(*first));
        _cleanup_free_ struct tsync_lockdown_call *calls = calloc(st->n ? st->n : 1, sizeof(*calls));
        _cleanup_free_ int *state = calloc(st->n ? st->n : 1, sizeof(*state));
        _cleanup_free_ bool *diverged = calloc(st->n ? st->n : 1, sizeof(*diverged));
        if (!first || !calls || !state || !diverged) {
                struct tsync_status_task k = { .pid = r->req->pid, .tid = r->req->pid };
                FAIL(r, &k, "out of memory");
                return;
        }
        size_t n = 0;
        for (size_t i = 0; i < st->n; i++) {
                if (st->tasks[i].dead)
                        continue;
                bool earlier = false; /* only the process's first live thread injects */
                for (size_t j = i; j-- > 0 && st->tasks[j].pid == st->tasks[i].pid;)
                        earlier |= !st->tasks[j].dead;
                if (!earlier)
                        first[n++] = i;
        }
        r->res->procs = n;
        for (size_t p = 0; p < r->req->n_progs && !r->res->n_failed; p++) {
                const struct tsync_lockdown_prog *prog = &r->req->progs[p];
                for (size_t i = 0; i < n; i++) {
                        const struct tsync_status_task *k = &st->tasks[first[i]];
                        state[i] = 2; /* not started */
                        if (diverged[i])
                                continue;
                        struct held *h = find_held(r, k->tid);
                        int e = h ? tsync_lockdown_call_start(&calls[i], k->pid, k->tid, prog->insns, prog->len,
                                                              prog->flags | SECCOMP_FILTER_FLAG_TSYNC,
                                                              needs_nnp(r, k) && p == 0, &h->sig)
                                  : -ESRCH;
                        state[i] = e < 0 ? -1 : 1;
                        if (e < 0)
                                FAIL(r, k, "%s", h ? calls[i].why : "not held");
                }
                collect(r, st, first, calls, state, n);
                for (size_t i = 0; i < n; i++) {
                        const struct tsync_status_task *k = &st->tasks[first[i]];
                        if (state[i] == 0 && calls[i].res > 0) {
                                diverged[i] = true;
                                r->res->diverged++;
                                NOTE(r, k,
                                     "thread %ld (its tid in the container) has filters of its own, so one TSYNC call "
                                     "cannot cover the process: each thread was given the layer on its own",
                                     calls[i].res);
                        } else if (state[i] == 0 && calls[i].res < 0) {
                                FAIL(r, k, "seccomp: %s", tsync_errtext((int)-calls[i].res));
                        }
                        if (diverged[i] && !cover_threads(r, st, first[i], p))
                                return;
                }
        }
}

/* The proof: every live task carries exactly n_progs more filters, ours,
 * newest last, and none after them (PTRACE_SECCOMP_GET_FILTER against what
 * we compiled; through ptrace, not /proc: a thousand tasks are read fast). */
static void prove(struct run *r, const struct tsync_status *st)
{
        size_t n = r->req->n_progs;
        for (size_t i = 0; i < st->n; i++) {
                const struct tsync_status_task *k = &st->tasks[i];
                if (k->dead)
                        continue;
                bool ok = true;
                for (size_t p = 0; p <= n && ok; p++) {
                        char why[224] = "";
                        const struct sock_filter *insns = p < n ? r->req->progs[p].insns : NULL;
                        int e = tsync_lockdown_filter_is(k->tid, k->filters + (int)p, insns,
                                                         p < n ? r->req->progs[p].len : 0, why, sizeof(why));
                        if (e == -ENOENT)
                                FAIL(r, k, "carries %d filters, not %d", k->filters + (int)p, k->filters + (int)n);
                        else if (e == 0 && p == n)
                                FAIL(r, k, "carries more than %d filters", k->filters + (int)n);
                        else if (e == 0)
                                FAIL(r, k, "its filter %d is not the one we compiled", k->filters + (int)p);
                        else if (e < 0)
                                FAIL(r, k, "%s", why);
                        ok = e == 1;
                }
                if (ok)
                        r->res->tasks++;
        }
}

/* Yama's scope 3: no process may be traced, whoever asks. */
static int yama_refuses(void)
{
        long v;
        return tsync_yama_scope(TSYNC_YAMA_PTRACE_SCOPE, &v) == 0 && v == 3;
}

/* Freezes, with every task that is in a job-control stop seized first; a
 * task that entered one meanwhile is seized after a thaw, then the cgroup
 * is frozen again. *fz: the final list. */
static int freeze_all(struct run *r, struct tsync_lockdown_cgroup *cg, struct tsync_status *st, struct tsync_status *fz,
                      long *t0, struct tsync_err *err)
{
        for (int attempt = 0;; attempt++) {
                seize_stopped(r, st);
                if (r->res->n_failed)
                        return 0;
                if (!*t0)
                        *t0 = now_us();
                if (tsync_lockdown_freeze(cg, err) < 0)
                        return -err->code;
                if (list_frozen(cg, st, fz, err) < 0)
                        return -err->code;
                judge(r, fz, true);
                if (r->res->n_failed)
                        return 0;
                size_t late = 0;
                for (size_t i = 0; i < fz->n; i++) {
                        const struct tsync_status_task *k = &fz->tasks[i];
                        if (!k->dead && !find_held(r, k->tid) && stopped_now(k)) {
                                late++;
                                if (attempt + 1 == FREEZE_ATTEMPTS)
                                        FAIL(r, k, "entered a job-control stop during each of %d freezes",
                                             FREEZE_ATTEMPTS);
                        }
                }
                if (!late || r->res->n_failed)
                        return 0;
                if (tsync_lockdown_thaw(cg, err) < 0)
                        return -err->code;
                tsync_status_clear(st);
                *st = *fz;
                *fz = (struct tsync_status){ 0 };
        }
}

/* Killed tasks that were still ours when SIGKILL woke them (the detach
 * then fails) report their end to us, their tracer, first: until we
 * collect it, their PID 1 waits for them and never ends. */
static void reap(struct run *r)
{
        for (long waited = 0; waited < 5000L * 4;) {
                size_t left = 0;
                for (size_t i = 0; i < r->n_held; i++) {
                        struct held *h = &r->held[i];
                        if (h->gone)
                                continue;
                        int st;
                        pid_t w = waitpid(h->tid, &st, __WALL | WNOHANG);
                        if (w < 0 || (w == h->tid && !WIFSTOPPED(st)))
                                h->gone = true;
                        else
                                left++;
                }
                if (!left)
                        return;
                waited++;
                (void)usleep(250);
        }
}

int tsync_lockdown_run(const struct tsync_lockdown_req *req, struct tsync_lockdown_result *ret, struct tsync_err *err)
{
        *ret = (struct tsync_lockdown_result){ 0 };
        struct run r = { .req = req, .res = ret };
        if (tsync_lockdown_supported(err) < 0)
                return -err->code;
        /* The CLI asked before its record; asked again for every caller. */
        if (tsync_lockdown_check_sandbox(req->pid, err) < 0)
                return -err->code;
        _cleanup_(tsync_status_clear) struct tsync_status st = { 0 };
        if (tsync_status_read(req->pid, &st, err) < 0)
                return -err->code;
        if (req->must_be_ns_init && st.target_ns_pid != 1)
                return tsync_error(err, EPERM,
                                   "its process (pid %d) is %d in its pid namespace, not 1: the namespace is shared",
                                   (int)req->pid, (int)st.target_ns_pid);
        if (yama_refuses())
                return tsync_error(err, EPERM,
                                   "Yama ptrace_scope is 3: no process may be traced, so none can be locked down");
        judge(&r, &st, false);
        if (ret->n_failed)
                return tsync_error(err, ECANCELED, "refused before anything was touched: %zu task(s)", ret->n_failed);
        _cleanup_free_ pid_t *pids = calloc(st.n ? st.n : 1, sizeof(*pids));
        if (!pids)
                return tsync_error(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < st.n; i++)
                pids[i] = st.tasks[i].pid;
        struct tsync_lockdown_cgroup cg = { .watchdog = -1 };
        if (tsync_lockdown_cgroup_find(req->pid, pids, st.n, &cg, err) < 0)
                return -err->code;
        cg.watchdog = req->watchdog;
        if (tsync_lockdown_cgroup_frozen(&cg) < 0)
                return tsync_error(err, EBUSY,
                                   "%s: frozen already (the container is paused): lockdown's thaw would resume it; "
                                   "resume it first",
                                   cg.dir);

        _cleanup_(tsync_status_clear) struct tsync_status fz = { 0 };
        long t0 = 0, thawed = 0;
        int code = freeze_all(&r, &cg, &st, &fz, &t0, err);
        if (code < 0 || ret->n_failed)
                goto out;
        /* Frozen, the list final: seize and interrupt every other task. */
        for (size_t i = 0; i < fz.n && !ret->n_failed; i++) {
                struct tsync_status_task *k = &fz.tasks[i];
                if (k->dead || find_held(&r, k->tid))
                        continue;
                char why[160];
                int e = tsync_lockdown_seize(k->tid, true, why, sizeof(why));
                if (e == -ESRCH)
                        k->dead = true; /* it was ending as the cgroup froze: it runs nothing */
                else if (e < 0)
                        FAIL(&r, k, "%s", why);
                else if (hold(&r, k, false) < 0)
                        FAIL(&r, k, "out of memory");
        }
        /* A frozen task takes its ptrace stop only once thawed, and before
         * it runs anything of its own: thaw, then wait for every stop. */
        if (tsync_lockdown_thaw(&cg, err) < 0) {
                code = -err->code;
                goto out;
        }
        thawed = now_us();
        {
                _cleanup_free_ pid_t *tids = calloc(r.n_held ? r.n_held : 1, sizeof(*tids));
                _cleanup_free_ int *got = calloc(r.n_held ? r.n_held : 1, sizeof(*got));
                if (!tids || !got) {
                        code = tsync_error(err, ENOMEM, "out of memory");
                        goto out;
                }
                for (size_t i = 0; i < r.n_held; i++)
                        tids[i] = r.held[i].waited ? 0 : r.held[i].tid;
                int e = tsync_lockdown_wait_stops(tids, got, r.n_held, STOP_TIMEOUT_MS);
                if (e < 0) {
                        code = tsync_error(err, -e, "waiting for the tasks' stops: %s", tsync_errtext(-e));
                        goto out;
                }
                for (size_t i = 0; i < r.n_held; i++) {
                        struct held *h = &r.held[i];
                        if (!tids[i])
                                continue;
                        h->waited = got[i] == 0;
                        if (got[i] == -ESRCH)
                                h->gone = true;
                        else if (got[i] < 0)
                                for (size_t j = 0; j < fz.n; j++)
                                        if (fz.tasks[j].tid == h->tid)
                                                FAIL(&r, &fz.tasks[j], "%s",
                                                     tsync_lockdown_cancelled
                                                             ? "lockdown was interrupted before it stopped"
                                                             : "it did not stop within the deadline (10 s)");
                }
        }
        for (size_t i = 0; i < fz.n; i++) {
                const struct held *h = find_held(&r, fz.tasks[i].tid);
                if (h && h->gone)
                        fz.tasks[i].dead = true; /* it ended instead of stopping: it runs nothing */
        }
        if (!ret->n_failed)
                newcomers(&r, &cg, &fz);
        /* Every filter of every task lets our calls through, or nothing is
         * injected anywhere: a task whose filter sends seccomp() to a
         * listener (that we may hold stopped), kills or traces it. */
        for (size_t i = 0; i < fz.n && !ret->n_failed; i++) {
                const struct tsync_status_task *k = &fz.tasks[i];
                if (k->dead)
                        continue;
                char why[224];
                for (size_t p = 0; p < req->n_progs; p++)
                        if (tsync_lockdown_check_calls(k->tid, req->progs[p].flags | SECCOMP_FILTER_FLAG_TSYNC,
                                                       needs_nnp(&r, k) && p == 0, why, sizeof(why)) < 0) {
                                FAIL(&r, k, "%s", why);
                                break;
                        }
        }
        if (!ret->n_failed && !tsync_lockdown_cancelled) {
                ret->touched = true; /* from the first injected call on */
                cover(&r, &fz);
        }
        if (!ret->n_failed && !tsync_lockdown_cancelled)
                prove(&r, &fz);
        for (size_t i = 0; i < fz.n; i++) {
                const struct tsync_status_task *k = &fz.tasks[i];
                if (k->dead && k->pid == k->tid) {
                        bool threads = i + 1 < fz.n && fz.tasks[i + 1].pid == k->pid;
                        if (!threads) {
                                ret->zombies++;
                                NOTE(&r, k,
                                     "a zombie (it exited, its parent has not reaped it): skipped, it runs "
                                     "no more code");
                        }
                }
                const struct held *h = find_held(&r, k->tid);
                if (!k->dead && h && h->stopped)
                        ret->stopped++;
        }
        if (ret->stopped) {
                struct tsync_status_task k = { .pid = req->pid, .tid = req->pid };
                (void)snprintf(k.comm, sizeof(k.comm), "%s", fz.n ? fz.tasks[0].comm : "");
                NOTE(&r, &k, "%zu task(s) in a job-control stop (SIGSTOP, SIGTSTP, ...) covered; they stay stopped",
                     ret->stopped);
        }
out:
        if (code == 0 && tsync_lockdown_cancelled && !ret->n_failed) {
                struct tsync_status_task k = { .pid = req->pid, .tid = req->pid };
                FAIL(&r, &k, "lockdown was interrupted (SIGINT, SIGTERM or SIGHUP)");
        }
        /* All or nothing: killed while every task is still held or frozen,
         * before one runs a single instruction uncovered. */
        if (req->or_kill && (code < 0 || ret->n_failed)) {
                tsync_lockdown_kill_now(req->pidfd, req->pid, fz.n ? &fz : &st);
                ret->killed = true;
        }
        for (size_t i = 0; i < r.n_held; i++)
                if (!r.held[i].gone)
                        (void)tsync_lockdown_detach(r.held[i].tid, r.held[i].sig);
        if (cg.frozen) {
                struct tsync_err e2 = { 0 };
                if (tsync_lockdown_thaw(&cg, &e2) < 0 && code == 0)
                        code = tsync_error(err, e2.code, "%s", e2.msg);
                thawed = now_us();
        }
        if (t0) {
                ret->frozen_us = now_us() - t0;
                ret->cgroup_us = thawed - t0;
        }
        if (ret->killed)
                reap(&r);
        free(r.held);
        if (code == 0 && ret->n_failed)
                code = tsync_error(err, ECANCELED, "%zu task(s) named", tsync_lockdown_result_tasks(ret));
        return code;
}
