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
#include <linux/seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "init.h"
#include "shared/init_threads.h"

static void serve_listener(void);
static struct init_worker supervisor = {
        .what = "exec-once",
        .thread_what = "the supervisor thread",
        .thread_name = TSYNC_INIT_THREAD_EXEC_ONCE,
        .serve = serve_listener,
};
static int listener = -1;
static int answer_errno;
/* The workload child: 0 until the child announces itself right before its
 * execve (run.c's spawn: the main thread is suspended until that execve is
 * done, so it could not say it in time), -1 if there is none (clone failed).
 * A futex word: the supervisor waits on it. */
static int32_t workload;
/* Set by give_up before it kills the workload: the main thread, woken by that
 * death, must not exit with the workload's 137 before give_up's 1. */
static bool gave_up;

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
                (void)init_futex_wait((uint32_t *)&workload, 0, &ts);
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
                if (init_futex_wait((uint32_t *)&workload, 0, NULL) < 0 && errno != EAGAIN && errno != EINTR)
                        give_up("wait for the workload's pid (futex)", errno);
        }
}

/* The first notification of the workload child is its execve of CMD:
 * CONTINUE, once; every other one gets the errno. */
static bool spent;

static bool answer(int fd, const struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
        bool waited = false, cont = false;

        if (!spent) {
                pid_t w = wait_for_workload(&waited);
                cont = w > 0 && (pid_t)req->pid == w;
        }
        /* After a wait of unknown length: a caller killed meanwhile
         * needs no answer (and its pid tells nothing any more). */
        uint64_t id = req->id;
        if (waited && ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0) {
                if (errno == ENOENT)
                        return false;
                give_up("check a notification (ioctl SECCOMP_IOCTL_NOTIF_ID_VALID)", errno);
        }
        resp->error = cont ? 0 : -answer_errno;
        resp->flags = cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0;
        return true;
}

/* A signal may interrupt the execve after the answer was sent (ENOENT): the
 * restarted call comes back as a new notification from the same pid, so the
 * one CONTINUE counts only once the kernel took it. */
static void answered(const struct seccomp_notif_resp *resp)
{
        if (resp->flags & SECCOMP_USER_NOTIF_FLAG_CONTINUE)
                spent = true;
}

static const struct init_listener exec_once_listener = {
        .answer = answer,
        .answered = answered,
        .give_up = give_up,
};

static void serve_listener(void)
{
        init_listener_serve(__atomic_load_n(&listener, __ATOMIC_ACQUIRE), &exec_once_listener);
}

int init_execonce_start(int errno_value)
{
        answer_errno = errno_value;
        return init_worker_start(&supervisor);
}

pid_t init_execonce_tid(void)
{
        return init_worker_tid(&supervisor);
}

int init_execonce_run(void (*fn)(void *arg), void *arg)
{
        return init_worker_run(&supervisor, fn, arg);
}

void init_execonce_serve(int fd)
{
        __atomic_store_n(&listener, fd, __ATOMIC_RELEASE);
        init_worker_command(&supervisor, INIT_WORKER_SERVE);
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
        init_futex_wake((uint32_t *)&workload);
}
