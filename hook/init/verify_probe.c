/* The proof by effect, for kernels whose /proc shows no Seccomp_filters (gVisor
 * shows "Seccomp: 2" but no count). Each filter gets a probe: a harmless call
 * (probe_calls.c) that the filter answers with ERRNO(e) while every other
 * filter we load allows it, so that only this filter can make it fail with e.
 * Before loading, every thread makes each candidate and a candidate that
 * already gives e anywhere (on its own, or through a filter the runtime
 * loaded) is passed over. After loading every thread makes each probe and must
 * get e. The init's threads are its main thread and the signal thread; any
 * other thread in /proc/self/task cannot be asked, and is a refusal.
 *
 * The filters are simulated (shared/bpf.h) with the call's exact arguments and
 * an instruction pointer of 0: a filter that reads the instruction pointer
 * (libseccomp never does) may be simulated wrongly, and then fails the proof. */
#include <errno.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apply.h"
#include "init.h"
#include "shared/bpf.h"
#include "shared/init_calls.h"

/* Candidates tried per filter before it is called unprovable. */
#define TRIES_PER_FILTER 8
#define MAX_TRIES        (INIT_MAX_FILTERS * TRIES_PER_FILTER)

struct outcome {
        long rc;
        int err;
};

/* One batch of calls made by one thread. */
struct batch {
        const size_t *calls;
        size_t n;
        struct outcome *out;
};

static void run_batch(void *arg)
{
        struct batch *b = arg;

        for (size_t i = 0; i < b->n; i++) {
                const struct init_probe_call *c = &init_probe_calls[b->calls[i]];
                errno = 0;
                long rc = syscall(c->nr, c->args[0], c->args[1], c->args[2], c->args[3], c->args[4], c->args[5]);
                b->out[i] = (struct outcome){ .rc = rc, .err = rc < 0 ? errno : 0 };
        }
}

/* The batch on the main thread (out_main) and on the signal thread (out_sig). */
static int run_everywhere(const size_t *calls, size_t n, struct outcome *out_main, struct outcome *out_sig)
{
        /* Static: a signal thread that answers after we gave up must not write into a dead stack. */
        static struct batch theirs;
        struct batch mine = { .calls = calls, .n = n, .out = out_main };

        theirs = (struct batch){ .calls = calls, .n = n, .out = out_sig };
        run_batch(&mine);
        /* In place (--exec) the init has no signal thread: the main thread is all there is. */
        if (init_signals_tid() <= 0) {
                memcpy(out_sig, out_main, n * sizeof(*out_sig));
                return 0;
        }
        return init_signals_run(run_batch, &theirs);
}

static bool denied_with(const struct outcome *o, int e)
{
        return o->rc == -1 && o->err == e;
}

static void describe(const struct outcome *o, char *buf, size_t size)
{
        if (o->rc < 0)
                (void)snprintf(buf, size, "%s", init_strerror(o->err));
        else
                (void)snprintf(buf, size, "success (%ld)", o->rc);
}

#ifdef TSYNC_NATIVE_AUDIT_ARCH
/* The SECCOMP_RET_* value filter f gives call c; -1 if it cannot be simulated. */
static long simulate(const struct init_filter *f, const struct init_probe_call *c)
{
        struct tsync_bpf_input in = { .nr = (int32_t)c->nr, .arch = TSYNC_NATIVE_AUDIT_ARCH };
        struct tsync_bpf_result res;
        struct tsync_err err = { 0 };

        memcpy(in.args, c->args, sizeof(in.args));
        /* filters.c validated every program it loaded. */
        if (tsync_bpf_simulate_valid(f->prog, f->len, &in, &res, &err) < 0)
                return -1;
        return (long)res.ret;
}

/* The errno filter i alone gives call c (the others allow or only log it), or 0. */
static int sole_errno(const struct init_filter *filters, size_t n, size_t i, const struct init_probe_call *c)
{
        int e = 0;

        for (size_t j = 0; j < n; j++) {
                long r = simulate(&filters[j], c);
                if (r < 0)
                        return 0;
                uint32_t action = (uint32_t)r & SECCOMP_RET_ACTION_FULL;
                if (j == i) {
                        uint32_t data = (uint32_t)r & SECCOMP_RET_DATA;
                        /* ERRNO(0) looks like success, and the kernel caps data at 4095. */
                        if (action != SECCOMP_RET_ERRNO || data == 0 || data > 4095)
                                return 0;
                        e = (int)data;
                } else if (action != SECCOMP_RET_ALLOW && action != SECCOMP_RET_LOG) {
                        return 0;
                }
        }
        return e;
}
#endif

int init_probe_prepare(const struct init_filter *filters, size_t n, struct init_probe_plan *ret)
{
#ifndef TSYNC_NATIVE_AUDIT_ARCH
        (void)filters;
        (void)n;
        (void)ret;
        init_log("verify", "/proc shows no Seccomp_filters, and the probe does not know this architecture: the "
                           "filters cannot be verified");
        return INIT_EXIT_VERIFY;
#else
        static size_t calls[MAX_TRIES];
        static int expect[MAX_TRIES];
        static size_t owner[MAX_TRIES];
        static struct outcome before_main[MAX_TRIES], before_sig[MAX_TRIES];
        size_t ntries = 0;

        for (size_t i = 0; i < n; i++) {
                size_t found = 0;
                for (size_t c = 0; c < init_probe_ncalls && found < TRIES_PER_FILTER; c++) {
                        int e = sole_errno(filters, n, i, &init_probe_calls[c]);
                        if (!e)
                                continue;
                        calls[ntries] = c;
                        expect[ntries] = e;
                        owner[ntries] = i;
                        ntries++;
                        found++;
                }
                if (!found) {
                        init_log(filters[i].name,
                                 "/proc shows no Seccomp_filters (gVisor?) and this filter answers none of the "
                                 "harmless calls the init can probe with an errno that the other filters leave "
                                 "alone (see --help, PROBE): its presence on every thread cannot be proven");
                        return INIT_EXIT_VERIFY;
                }
        }
        if (run_everywhere(calls, ntries, before_main, before_sig) < 0)
                return INIT_EXIT_VERIFY;

        ret->n = n;
        for (size_t i = 0; i < n; i++) {
                bool chosen = false;
                size_t last = 0;
                for (size_t t = 0; t < ntries && !chosen; t++) {
                        if (owner[t] != i)
                                continue;
                        last = t;
                        if (denied_with(&before_main[t], expect[t]) || denied_with(&before_sig[t], expect[t]))
                                continue;
                        ret->probes[i] = (struct init_probe){ .call = calls[t], .expect = expect[t] };
                        chosen = true;
                }
                if (!chosen) {
                        init_log(filters[i].name,
                                 "every call it denies that the init can probe (%s the last) already fails with "
                                 "%s before loading: its effect cannot be told apart",
                                 init_probe_calls[calls[last]].name, init_strerror(expect[last]));
                        return INIT_EXIT_VERIFY;
                }
        }
        return 0;
#endif
}

struct walk {
        pid_t main_tid, sig_tid;
        bool counts_shown;
        struct tsync_err *err;
};

static int walk_one(const struct init_thread_status *st, void *data)
{
        struct walk *w = data;
        pid_t tid = st->tid;
        int mode = st->mode, filters = st->filters;

        /* The probe asks the threads of the table it can reach (threads.c). */
        const struct init_thread_def *th = init_thread_by_tid(tid);
        if (!th || !th->probe)
                return tsync_error(w->err, EPERM,
                                   "thread %d is not one of the init's (main %d, signals %d): the probe cannot ask "
                                   "it, so its filters cannot be proven",
                                   (int)tid, (int)w->main_tid, (int)w->sig_tid);
        if (mode >= 0 && mode != SECCOMP_MODE_FILTER)
                return tsync_error(w->err, EPERM, "thread %d shows Seccomp %d after loading; expected 2", (int)tid,
                                   mode);
        /* Counts are either shown by every thread or by none. */
        if (!w->counts_shown && filters >= 0)
                return tsync_error(w->err, EPERM,
                                   "thread %d shows Seccomp_filters although another thread did not: /proc is "
                                   "inconsistent",
                                   (int)tid);
        return 0;
}

int init_probe_verify(const struct init_filter *filters, const struct init_probe_plan *plan, bool counts_shown)
{
        static size_t calls[INIT_MAX_FILTERS];
        static struct outcome after_main[INIT_MAX_FILTERS], after_sig[INIT_MAX_FILTERS];
        struct tsync_err err = { 0 };
        struct walk w = {
                .main_tid = gettid(), .sig_tid = init_signals_tid(), .counts_shown = counts_shown, .err = &err
        };

        if (init_apply_threads(walk_one, &w, &err) < 0) {
                init_log("verify", "%s", err.msg);
                return INIT_EXIT_VERIFY;
        }
        for (size_t i = 0; i < plan->n; i++)
                calls[i] = plan->probes[i].call;
        if (run_everywhere(calls, plan->n, after_main, after_sig) < 0)
                return INIT_EXIT_VERIFY;
        for (size_t i = 0; i < plan->n; i++) {
                const struct init_probe *p = &plan->probes[i];
                const struct outcome *got[2] = { &after_main[i], &after_sig[i] };
                pid_t tid[2] = { w.main_tid, w.sig_tid };
                for (int t = 0; t < (w.sig_tid > 0 ? 2 : 1); t++) {
                        if (denied_with(got[t], p->expect))
                                continue;
                        char what[96];
                        describe(got[t], what, sizeof(what));
                        init_log(filters[i].name,
                                 "thread %d (%s): the probe %s() got %s, not the filter's errno %d (%s): the thread "
                                 "does not carry the filter",
                                 (int)tid[t], t ? "signals" : "main", init_probe_calls[p->call].name, what, p->expect,
                                 init_strerror(p->expect));
                        return INIT_EXIT_VERIFY;
                }
        }
        return 0;
}
