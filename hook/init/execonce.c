/* Exec once: the supervisor of the exec-once filter's listener.
 *
 * The filter sends every execve and execveat of every thread of the
 * container's processes (they all inherit it) to a listener that only the
 * init holds. The supervisor thread answers CONTINUE exactly once: to the
 * first notification of the workload child the init forked, which has run
 * nothing but our code before its execve, so the call is ours (path and argv
 * the init resolved). Every other notification, from any process or thread,
 * gets the configured errno, for as long as the init lives. The decision uses
 * the notification's pid alone: the call's arguments are never read from the
 * caller's memory, so there is nothing a racing thread could change under it.
 *
 * The thread is started before the first filter, beside the signal thread,
 * since TSYNC (and the proofs) must see every thread the init will ever have;
 * it makes its capability transition like the signal thread
 * (init_execonce_run), and receives the listener once the filters are loaded.
 * When the init dies the kernel answers every pending and later notification
 * with ENOSYS: the workload still cannot exec. */
#include <errno.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "init.h"

#define RUN_WAIT_NS    (100 * 1000 * 1000)
#define RUN_WAIT_TRIES 50

/* What the main thread asks of the supervisor thread (a futex word). */
enum { CMD_IDLE, CMD_RUN, CMD_SERVE };

static uint32_t command;
static void (*run_fn)(void *);
static void *run_arg;
static uint32_t run_done;
static int listener = -1;
static int answer_errno;
static pid_t supervisor_tid;
static sem_t ready;
/* The workload child: 0 until the child announces itself right before its
 * execve (run.c's spawn: the main thread is suspended until that execve is
 * done, so it could not say it in time), -1 if there is none (clone failed).
 * A futex word: the supervisor waits on it. */
static int32_t workload;
/* Set by give_up before it kills the workload: the main thread, woken by that
 * death, must not exit with the workload's 137 before give_up's 1. */
static bool gave_up;

static long futex_wait(uint32_t *word, uint32_t val, const struct timespec *ts)
{
        return syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, ts, NULL, 0);
}

static void futex_wake(uint32_t *word)
{
        (void)syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* The supervisor cannot go on: a workload nobody answers must not run on
 * silently (its execs would wait forever), so it is killed and the init
 * exits. The whole container goes with PID 1. */
static _Noreturn void give_up(const char *what, int e)
{
        pid_t w = __atomic_load_n(&workload, __ATOMIC_ACQUIRE);

        /* The main thread starts the child right after handing over the
         * listener: give it a moment to say whom to kill. (Should it never,
         * the kernel answers the child's exec with ENOSYS once the init is
         * gone.) */
        for (int i = 0; w == 0 && i < 10; i++) {
                struct timespec ts = { .tv_sec = 0, .tv_nsec = 100 * 1000 * 1000 };
                (void)futex_wait((uint32_t *)&workload, 0, &ts);
                w = __atomic_load_n(&workload, __ATOMIC_ACQUIRE);
        }
        init_log("exec-once", "the supervisor cannot %s: %s: the workload is killed", what, init_strerror(e));
        __atomic_store_n(&gave_up, true, __ATOMIC_RELEASE);
        if (w > 0)
                (void)kill(w, SIGKILL);
        _exit(1);
}

/* The workload's pid, waiting for its announcement if need be: a notification
 * that comes before it must wait for the answer, not get the errno. */
static pid_t wait_for_workload(bool *ret_waited)
{
        for (;;) {
                int32_t w = __atomic_load_n(&workload, __ATOMIC_ACQUIRE);
                if (w != 0)
                        return w;
                *ret_waited = true;
                if (futex_wait((uint32_t *)&workload, 0, NULL) < 0 && errno != EAGAIN && errno != EINTR)
                        give_up("wait for the workload's pid (futex)", errno);
        }
}

static _Noreturn void serve(int fd)
{
        bool spent = false;

        for (;;) {
                struct seccomp_notif req;
                /* The kernel refuses a request that is not zeroed. */
                memset(&req, 0, sizeof(req));
                if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
                        /* ENOENT: the caller went away between the wake-up and the read. */
                        if (errno == EINTR || errno == ENOENT)
                                continue;
                        give_up("receive a notification (ioctl SECCOMP_IOCTL_NOTIF_RECV)", errno);
                }
                bool waited = false, cont = false;
                if (!spent) {
                        pid_t w = wait_for_workload(&waited);
                        cont = w > 0 && (pid_t)req.pid == w;
                }
                /* After a wait of unknown length: a caller killed meanwhile
                 * needs no answer (and its pid tells nothing any more). */
                if (waited && ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) < 0) {
                        if (errno == ENOENT)
                                continue;
                        give_up("check a notification (ioctl SECCOMP_IOCTL_NOTIF_ID_VALID)", errno);
                }
                struct seccomp_notif_resp resp = {
                        .id = req.id,
                        .val = 0,
                        .error = cont ? 0 : -answer_errno,
                        .flags = cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0,
                };
                if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0) {
                        /* ENOENT: the caller is gone, or a signal interrupted its
                         * call; a restarted execve comes back as a new
                         * notification from the same pid, so the one CONTINUE
                         * counts only once the kernel took it. */
                        if (errno == ENOENT)
                                continue;
                        give_up("answer a notification (ioctl SECCOMP_IOCTL_NOTIF_SEND)", errno);
                }
                if (cont)
                        spent = true;
        }
}

static void *supervisor_thread(void *arg)
{
        (void)arg;
        __atomic_store_n(&supervisor_tid, gettid(), __ATOMIC_RELEASE);
        (void)sem_post(&ready);
        for (;;) {
                uint32_t c = __atomic_load_n(&command, __ATOMIC_ACQUIRE);
                if (c == CMD_IDLE) {
                        (void)futex_wait(&command, CMD_IDLE, NULL);
                } else if (c == CMD_RUN) {
                        run_fn(run_arg);
                        __atomic_store_n(&command, CMD_IDLE, __ATOMIC_RELEASE);
                        __atomic_store_n(&run_done, 1, __ATOMIC_RELEASE);
                        futex_wake(&run_done);
                } else {
                        serve(__atomic_load_n(&listener, __ATOMIC_ACQUIRE));
                }
        }
        return NULL;
}

int init_execonce_start(int errno_value)
{
        pthread_attr_t attr;
        pthread_t thread;

        answer_errno = errno_value;
        if (sem_init(&ready, 0, 0) < 0) {
                init_log("exec-once", "sem_init: %s", init_strerror(errno));
                return -1;
        }
        (void)pthread_attr_init(&attr);
        (void)pthread_attr_setstacksize(&attr, 64 * 1024);
        int r = pthread_create(&thread, &attr, supervisor_thread, NULL);
        (void)pthread_attr_destroy(&attr);
        if (r != 0) {
                init_log("exec-once", "cannot start the supervisor thread: %s", init_strerror(r));
                return -1;
        }
        (void)pthread_setname_np(thread, "tsync-exec-once");
        while (sem_wait(&ready) < 0 && errno == EINTR)
                ;
        return 0;
}

pid_t init_execonce_tid(void)
{
        return __atomic_load_n(&supervisor_tid, __ATOMIC_ACQUIRE);
}

int init_execonce_run(void (*fn)(void *arg), void *arg)
{
        pid_t tid = init_execonce_tid();

        if (tid <= 0) {
                init_log("exec-once", "the supervisor thread is not running");
                return -1;
        }
        run_fn = fn;
        run_arg = arg;
        __atomic_store_n(&run_done, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&command, CMD_RUN, __ATOMIC_RELEASE);
        futex_wake(&command);
        for (int i = 0; i < RUN_WAIT_TRIES; i++) {
                struct timespec ts = { .tv_sec = 0, .tv_nsec = RUN_WAIT_NS };
                if (__atomic_load_n(&run_done, __ATOMIC_ACQUIRE))
                        return 0;
                if (futex_wait(&run_done, 0, &ts) < 0 && errno != EAGAIN && errno != EINTR && errno != ETIMEDOUT) {
                        init_log("exec-once", "cannot wait for the supervisor thread (%d): futex: %s", (int)tid,
                                 init_strerror(errno));
                        return -1;
                }
        }
        if (__atomic_load_n(&run_done, __ATOMIC_ACQUIRE))
                return 0;
        init_log("exec-once", "the supervisor thread (%d) did not answer within %d ms", (int)tid,
                 RUN_WAIT_TRIES * (RUN_WAIT_NS / 1000000));
        return -1;
}

void init_execonce_serve(int fd)
{
        __atomic_store_n(&listener, fd, __ATOMIC_RELEASE);
        __atomic_store_n(&command, CMD_SERVE, __ATOMIC_RELEASE);
        futex_wake(&command);
}

bool init_execonce_gave_up(void)
{
        return __atomic_load_n(&gave_up, __ATOMIC_ACQUIRE);
}

void init_execonce_workload(pid_t pid)
{
        if (init_execonce_tid() <= 0)
                return;
        __atomic_store_n(&workload, pid > 0 ? pid : -1, __ATOMIC_RELEASE);
        futex_wake((uint32_t *)&workload);
}
