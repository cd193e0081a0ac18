/* A worker thread of the init: the signal thread, the exec-once supervisor
 * and the recorder, every thread of the init but the main one.
 *
 * All are started before the first filter (TSYNC and the proofs must see
 * every thread the init will ever have), and all make their capability
 * transition on their own thread when the main thread asks (init_worker_run;
 * the probe's calls too, on the signal thread). The main thread drives a
 * worker through one futex word: idle, run a job, or any later command,
 * which the worker's serve() handles (and which normally never returns).
 * Only plain futex calls pass between the threads: after the load they are
 * in the route's table (shared/init_calls.h); the signal thread's wake-up,
 * a tgkill, comes after the load only for the probe (--help lists it).
 *
 * The signal thread is idle in its own way: it waits for signals, not on the
 * word, from its start on (so that it forwards and watches the main thread
 * while the others set up), and takes jobs only. Its idle() is one such wait;
 * a job wakes it with a signal (wake_signal, by tgkill) rather than the
 * futex, and then runs through the same loop as any other.
 *
 * The supervisor and the recorder serve their listener with the one loop
 * here (init_listener_serve): receive, let the listener decide, answer, and
 * what the kernel's errors mean; each listener brings only its decision and
 * its way of giving up. */
#include <errno.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "init.h"

/* How long the main thread waits for a job: 50 times 100 ms. */
#define RUN_WAIT_NS    (100 * 1000 * 1000)
#define RUN_WAIT_TRIES 50

long init_futex_wait(uint32_t *word, uint32_t val, const struct timespec *ts)
{
        return syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, ts, NULL, 0);
}

void init_futex_wake(uint32_t *word)
{
        (void)syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *worker_thread(void *arg)
{
        struct init_worker *w = arg;

        /* libc's own signals came unblocked with the thread (sigmask.c). */
        (void)init_sigmask_block();
        /* Named by itself: prctl(PR_SET_NAME) under either libc (musl names
         * another thread with open, not openat, which a profile may lack). */
        (void)pthread_setname_np(pthread_self(), w->thread_name);
        __atomic_store_n(&w->tid, gettid(), __ATOMIC_RELEASE);
        (void)sem_post(&w->ready);
        for (;;) {
                uint32_t c = __atomic_load_n(&w->command, __ATOMIC_ACQUIRE);
                if (c == INIT_WORKER_IDLE) {
                        if (!w->idle)
                                (void)init_futex_wait(&w->command, INIT_WORKER_IDLE, NULL);
                        else if (!w->idle())
                                return NULL;
                } else if (c == INIT_WORKER_RUN) {
                        w->run_fn(w->run_arg);
                        __atomic_store_n(&w->command, INIT_WORKER_IDLE, __ATOMIC_RELEASE);
                        __atomic_store_n(&w->run_done, 1, __ATOMIC_RELEASE);
                        init_futex_wake(&w->run_done);
                } else {
                        w->serve();
                }
        }
        return NULL;
}

int init_worker_start(struct init_worker *w)
{
        pthread_attr_t attr;
        pthread_t thread;

        if (sem_init(&w->ready, 0, 0) < 0) {
                init_log(w->what, "sem_init: %s", init_strerror(errno));
                return -1;
        }
        /* A job, a wait and a kill need little stack; the default is 8 MiB of address space. */
        (void)pthread_attr_init(&attr);
        (void)pthread_attr_setstacksize(&attr, 64 * 1024);
        int r = pthread_create(&thread, &attr, worker_thread, w);
        (void)pthread_attr_destroy(&attr);
        if (r != 0) {
                init_log(w->what, "cannot start %s: %s", w->thread_what, init_strerror(r));
                return -1;
        }
        while (sem_wait(&w->ready) < 0 && errno == EINTR)
                ;
        return init_sigmask_block();
}

pid_t init_worker_tid(struct init_worker *w)
{
        return __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE);
}

void init_worker_command(struct init_worker *w, uint32_t command)
{
        __atomic_store_n(&w->command, command, __ATOMIC_RELEASE);
        init_futex_wake(&w->command);
}

int init_worker_run(struct init_worker *w, void (*fn)(void *arg), void *arg)
{
        pid_t tid = init_worker_tid(w);

        if (tid <= 0) {
                init_log(w->what, "%s is not running", w->thread_what);
                return -1;
        }
        w->run_fn = fn;
        w->run_arg = arg;
        __atomic_store_n(&w->run_done, 0, __ATOMIC_RELAXED);
        if (!w->wake_signal) {
                init_worker_command(w, INIT_WORKER_RUN);
        } else {
                __atomic_store_n(&w->command, INIT_WORKER_RUN, __ATOMIC_RELEASE);
                /* The worker reads the command once this signal ends its wait. */
                if (syscall(SYS_tgkill, w->pid, tid, w->wake_signal) < 0) {
                        init_log(w->what, "cannot ask %s (%d): tgkill: %s", w->thread_what, (int)tid,
                                 init_strerror(errno));
                        return -1;
                }
        }
        for (int i = 0; i < RUN_WAIT_TRIES; i++) {
                struct timespec ts = { .tv_sec = 0, .tv_nsec = RUN_WAIT_NS };
                if (__atomic_load_n(&w->run_done, __ATOMIC_ACQUIRE))
                        return 0;
                if (init_futex_wait(&w->run_done, 0, &ts) < 0 && errno != EAGAIN && errno != EINTR &&
                    errno != ETIMEDOUT) {
                        init_log(w->what, "cannot wait for %s (%d): futex: %s", w->thread_what, (int)tid,
                                 init_strerror(errno));
                        return -1;
                }
        }
        if (__atomic_load_n(&w->run_done, __ATOMIC_ACQUIRE))
                return 0;
        init_log(w->what, "%s (%d) did not answer within %d ms", w->thread_what, (int)tid,
                 RUN_WAIT_TRIES * (RUN_WAIT_NS / 1000000));
        return -1;
}

_Noreturn void init_listener_serve(int fd, const struct init_listener *l)
{
        for (;;) {
                struct seccomp_notif req;
                /* The kernel refuses a request that is not zeroed. */
                memset(&req, 0, sizeof(req));
                if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
                        /* ENOENT: the caller went away between the wake-up and the read. */
                        if (errno == EINTR || errno == ENOENT)
                                continue;
                        l->give_up("receive a notification (ioctl SECCOMP_IOCTL_NOTIF_RECV)", errno);
                }
                struct seccomp_notif_resp resp = { .id = req.id };
                if (!l->answer(fd, &req, &resp))
                        continue;
                if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0) {
                        /* ENOENT: the caller is gone, or a signal interrupted its
                         * call (a restarted call comes back as a new notification). */
                        if (errno == ENOENT)
                                continue;
                        int e = errno;
                        if (l->send_failed)
                                l->send_failed(e);
                        l->give_up("answer a notification (ioctl SECCOMP_IOCTL_NOTIF_SEND)", e);
                }
                if (l->answered)
                        l->answered(&resp);
        }
}
