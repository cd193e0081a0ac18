/* Privilege on every thread. Linux keeps the capability sets, the bounding and
 * ambient sets, securebits and NO_NEW_PRIVS per thread, so a change made by
 * the main thread leaves the signal thread as it was: with whatever was lent
 * to the init (CAP_SYS_ADMIN, CAP_SETPCAP), in a process the workload may reach
 * (ptrace, /proc/1/mem, if it ever could). So each thread makes the whole
 * transition itself, and the result is proven from /proc for every thread in
 * /proc/self/task, the way the filters are: each must show exactly what the
 * workload is handed. Which threads there are is threads.c's table; the init
 * starts none after them, and the workload is forked from the main thread
 * once that is final. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "apply.h"
#include "init.h"

/* What /proc does not show everywhere (gVisor has no NoNewPrivs line), each
 * thread checks on itself; securebits are never shown. */
static int check_self(const struct init_caps *caps, const char *who)
{
        int bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
        if (bits != caps->securebits || (bits < 0 && errno != EINVAL)) {
                init_log("capabilities", "the %s thread (%d) has securebits 0x%x, not 0x%x as at start%s%s", who,
                         (int)gettid(), bits, caps->securebits, bits < 0 ? ": " : "",
                         bits < 0 ? init_strerror(errno) : "");
                return -1;
        }
        int nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
        if (nnp != (int)caps->plan.expect_nnp) {
                init_log("no_new_privs", "the %s thread (%d) has NO_NEW_PRIVS %d, the workload would get %d%s%s", who,
                         (int)gettid(), nnp, (int)caps->plan.expect_nnp, nnp < 0 ? ": " : "",
                         nnp < 0 ? init_strerror(errno) : "");
                return -1;
        }
        return 0;
}

struct job {
        const struct init_caps *caps;
        const char *who;
        int rc;
};

static void thread_job(void *arg)
{
        struct job *j = arg;

        j->rc = -1;
        if (init_caps_bounding(j->caps) < 0 || init_caps_nnp(j->caps) < 0 || init_caps_apply(j->caps) < 0 ||
            check_self(j->caps, j->who) < 0)
                return;
        j->rc = 0;
}

int init_privs_threads(const struct init_caps *caps)
{
        /* Static: a signal thread that answers after we gave up must not write into a dead stack. */
        static struct job job;

        if (init_caps_bounding(caps) < 0 || init_caps_nnp(caps) < 0)
                return INIT_EXIT_PRIVS;
        if (!caps->plan.caps_after_filter && init_caps_apply(caps) < 0)
                return INIT_EXIT_PRIVS;
        if (check_self(caps, init_thread(INIT_THREAD_MAIN)->who) < 0)
                return INIT_EXIT_PRIVS;
        /* Every other thread of the table this run started (none in place). */
        for (int t = 0; t < INIT_THREAD_COUNT; t++) {
                const struct init_thread_def *th = init_thread(t);
                if (!th->run || th->tid() <= 0)
                        continue;
                job = (struct job){ .caps = caps, .who = th->who, .rc = -1 };
                if (th->run(thread_job, &job) < 0 || job.rc < 0)
                        return INIT_EXIT_PRIVS;
        }
        return 0;
}

int init_privs_check(const struct init_caps *caps, const struct init_thread_status *st, struct tsync_err *err)
{
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++) {
                if (!st->cap_shown[s]) {
                        /* gVisor: no ambient set, and no line for it. */
                        if (s == TSYNC_CAPSET_AMBIENT && caps->no_ambient)
                                continue;
                        return tsync_error(err, EPERM,
                                           "thread %d (%s) shows no %s line: its capabilities cannot "
                                           "be verified",
                                           (int)st->tid, st->name, tsync_capset(s)->status);
                }
                if (st->caps[s] != caps->plan.expect[s])
                        return tsync_error(
                                err, EPERM, "thread %d (%s) shows %s %016" PRIx64 "; the workload gets %016" PRIx64,
                                (int)st->tid, st->name, tsync_capset(s)->status, st->caps[s], caps->plan.expect[s]);
        }
        if (st->nnp < 0 && caps->nnp_shown)
                return tsync_error(err, EPERM, "thread %d (%s) shows no NoNewPrivs line", (int)st->tid, st->name);
        if (st->nnp >= 0 && st->nnp != (int)caps->plan.expect_nnp)
                return tsync_error(err, EPERM, "thread %d (%s) shows NoNewPrivs %d; the workload gets %d", (int)st->tid,
                                   st->name, st->nnp, (int)caps->plan.expect_nnp);
        return 0;
}
