/* The proof after the load, made of reads alone. A profile a plain runtime
 * start works with may deny openat or getdents64 (the runtime makes neither
 * after its own load), so everything that needs them happens before: the
 * threads are listed and each one's status file opened. After the filters and
 * the last capability change, each file is read once: the thread must show
 * Seccomp 2 and its count up by the number of filters (where the kernel shows
 * counts), and exactly the capability sets and NO_NEW_PRIVS the workload gets.
 * The init's threads are threads.c's table, all started before this and none
 * after, so the list cannot grow meanwhile. Each thread of the table must be
 * in it, and still there after the load (none of them exits before the
 * workload starts); any other thread (none, unless something beside the init
 * made one) is proven like them, but one gone by then was exiting and runs no
 * more code. */
#include <errno.h>
#include <linux/seccomp.h>
#include <unistd.h>

#include "apply.h"
#include "init.h"

struct prepare_ctx {
        struct init_proof *proof;
        const struct init_caps *final_caps; /* or NULL */
        bool privs_failed;
        struct tsync_err *err;
};

static int prepare_one(const struct init_thread_status *st, void *data)
{
        struct prepare_ctx *ctx = data;
        struct init_proof *p = ctx->proof;

        if (p->n == INIT_PROOF_MAX_THREADS)
                return tsync_error(ctx->err, E2BIG, "more than %d threads: the init starts %d at most",
                                   INIT_PROOF_MAX_THREADS, INIT_THREAD_COUNT);
        if (st->mode < 0)
                return tsync_error(ctx->err, EOPNOTSUPP, "/proc/self/task/%d/status has no Seccomp line", (int)st->tid);
        if (ctx->final_caps) {
                int r = init_privs_check(ctx->final_caps, st, ctx->err);
                if (r < 0) {
                        ctx->privs_failed = true;
                        return r;
                }
        }
        int fd = init_apply_status_open(st->tid, ctx->err);
        if (fd < 0)
                return fd;
        p->threads[p->n++] = (struct init_proof_thread){ .tid = st->tid, .fd = fd, .filters = st->filters };
        if (st->filters < 0)
                p->counts = false;
        return 0;
}

/* The calling thread's status now, read through a descriptor of its own. */
static int read_self(struct init_thread_status *ret, struct tsync_err *err)
{
        pid_t tid = gettid();
        int fd = init_apply_status_open(tid, err);
        if (fd < 0)
                return fd;
        int r = init_apply_status_read(fd, tid, ret, err);
        (void)close(fd);
        return r;
}

/* Every thread of the table that this run started is among those listed. */
static int check_listed(const struct init_proof *p)
{
        for (int t = 0; t < INIT_THREAD_COUNT; t++) {
                const struct init_thread_def *th = init_thread(t);
                pid_t tid = th->tid();
                size_t i = 0;
                if (tid <= 0)
                        continue;
                while (i < p->n && p->threads[i].tid != tid)
                        i++;
                if (i == p->n) {
                        init_log("verify", "the %s thread (%d) is not in /proc/self/task: it could not be proven",
                                 th->who, (int)tid);
                        return INIT_EXIT_VERIFY;
                }
        }
        return 0;
}

int init_proof_prepare(struct init_proof *ret, bool list, const struct init_caps *final_caps)
{
        struct tsync_err err = { 0 };
        int r;

        *ret = (struct init_proof){ .counts = true };
        struct prepare_ctx ctx = { .proof = ret, .final_caps = final_caps, .err = &err };
        if (!list) {
                struct init_thread_status st;
                r = read_self(&st, &err);
                if (r == 0)
                        r = prepare_one(&st, &ctx);
        } else {
                r = init_apply_threads(prepare_one, &ctx, &err);
        }
        if (r < 0 && ctx.privs_failed) {
                init_log("capabilities", "%s", err.msg);
                return INIT_EXIT_PRIVS;
        }
        if (r < 0) {
                init_log("verify", "%s", err.msg);
                return INIT_EXIT_VERIFY;
        }
        if (ret->n == 0) {
                init_log("verify", "no thread was seen in /proc/self/task: nothing could be verified");
                return INIT_EXIT_VERIFY;
        }
        return list ? check_listed(ret) : 0;
}

int init_proof_check(const struct init_proof *p, unsigned nfilters, bool recording, const struct init_caps *caps,
                     bool every_thread)
{
        struct tsync_err err = { 0 };
        size_t seen = 0;

        for (size_t i = 0; i < p->n; i++) {
                const struct init_proof_thread *t = &p->threads[i];
                const struct init_thread_def *th = init_thread_by_tid(t->tid);
                struct init_thread_status st;
                if (init_apply_status_read(t->fd, t->tid, &st, &err) < 0) {
                        if ((err.code == ESRCH || err.code == ENOENT) && !every_thread && !th)
                                continue;
                        init_log("verify", "%s", err.msg);
                        return INIT_EXIT_VERIFY;
                }
                /* A zombie thread shows no more than its last state. */
                if (st.state == 'Z' || st.state == 'X')
                        continue;
                /* The recording filter: one more where the table says it is loaded. */
                unsigned want = nfilters + (recording && th && th->record_filter ? 1u : 0u);
                if (p->counts && want > 0 && (st.mode != SECCOMP_MODE_FILTER || st.filters != t->filters + (int)want)) {
                        init_log("verify",
                                 "thread %d (%s) shows Seccomp %d, Seccomp_filters %d; expected 2, %d (%d before)",
                                 (int)t->tid, st.name, st.mode, st.filters, t->filters + (int)want, t->filters);
                        return INIT_EXIT_VERIFY;
                }
                if (init_privs_check(caps, &st, &err) < 0) {
                        init_log("capabilities", "%s", err.msg);
                        return INIT_EXIT_PRIVS;
                }
                seen++;
        }
        /* The thread making this check is always there: nothing seen is no proof. */
        if (seen == 0) {
                init_log("verify", "no thread could be read after the load: nothing is verified");
                return INIT_EXIT_VERIFY;
        }
        return 0;
}
