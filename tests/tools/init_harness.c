/* Runs the real init flow (init_flow_run) after arranging the process the way a
 * test needs it, which the init itself would never do:
 *   init_harness [--diverge TIDFILE] [--stray] [--pending-signal SIG] -- INIT-OPTIONS -- CMD [ARG...]
 *   --diverge TIDFILE     a sibling thread named "diverger" first installs a filter of
 *                         its own (plain, no TSYNC) and writes its TID to TIDFILE, so
 *                         the init's TSYNC must fail naming it
 *   --stray               a sibling thread named "stray" that the init does not know of
 *                         (it only waits) keeps the capabilities the process started with:
 *                         the init's proof of every thread's capabilities must name it
 *   --pending-signal SIG  SIG (a number) is sent to the process before the init starts,
 *                         so it is pending when the signal thread comes up: the init
 *                         must remember it and forward it to the workload
 *   --late-pid MS         every announcement of the workload's pid to the exec-once
 *                         supervisor (the child's own, right before its execve, and
 *                         the main thread's after clone) comes MS milliseconds late
 *                         (linked with --wrap=init_execonce_workload): the
 *                         supervisor must wait for it, then let that execve through
 * Exits with init_flow_run's status. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../hook/init/init.h"

static sem_t ready;
static const char *tid_file;
static int diverge_error;

static void *diverger(void *arg)
{
        struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
        struct sock_fprog prog = { .len = 1, .filter = allow };
        sigset_t all;
        (void)arg;

        /* Signals are for the init's threads, not for this one. */
        (void)sigfillset(&all);
        (void)pthread_sigmask(SIG_SETMASK, &all, NULL);
        (void)prctl(PR_SET_NAME, "diverger", 0, 0, 0);
        /* This thread alone: no TSYNC. Its filter is no ancestor of the init's. */
        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
                diverge_error = errno;
        } else {
                FILE *f = fopen(tid_file, "we");
                if (!f || fprintf(f, "%d\n", (int)gettid()) < 0 || fclose(f) != 0)
                        diverge_error = errno ? errno : EIO;
        }
        (void)sem_post(&ready);
        for (;;)
                pause();
        return NULL;
}

static void *stray(void *arg)
{
        sigset_t all;
        (void)arg;

        (void)sigfillset(&all);
        (void)pthread_sigmask(SIG_SETMASK, &all, NULL);
        (void)prctl(PR_SET_NAME, "stray", 0, 0, 0);
        (void)sem_post(&ready);
        for (;;)
                pause();
        return NULL;
}

/* Starts a thread running fn and waits until fn posts ready; -1 (said on
 * stderr) if the thread cannot be made. */
static int start_and_wait(void *(*fn)(void *))
{
        pthread_t t;
        (void)sem_init(&ready, 0, 0);
        if (pthread_create(&t, NULL, fn, NULL) != 0) {
                fprintf(stderr, "init_harness: pthread_create failed\n");
                return -1;
        }
        while (sem_wait(&ready) < 0 && errno == EINTR)
                ;
        return 0;
}

static long late_pid_ms;

void __real_init_execonce_workload(pid_t pid);
void __wrap_init_execonce_workload(pid_t pid);
void __wrap_init_execonce_workload(pid_t pid)
{
        if (late_pid_ms > 0 && pid > 0) {
                struct timespec ts = { .tv_sec = late_pid_ms / 1000, .tv_nsec = (late_pid_ms % 1000) * 1000000L };
                while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                        ;
        }
        __real_init_execonce_workload(pid);
}

int main(int argc, char **argv)
{
        int i = 1, pending = 0;
        bool with_stray = false;

        for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
                if (strcmp(argv[i], "--diverge") == 0 && i + 1 < argc) {
                        tid_file = argv[++i];
                } else if (strcmp(argv[i], "--stray") == 0) {
                        with_stray = true;
                } else if (strcmp(argv[i], "--pending-signal") == 0 && i + 1 < argc) {
                        pending = atoi(argv[++i]);
                } else if (strcmp(argv[i], "--late-pid") == 0 && i + 1 < argc) {
                        late_pid_ms = atol(argv[++i]);
                } else {
                        fprintf(stderr, "init_harness: usage: init_harness [--diverge TIDFILE] [--stray] "
                                        "[--pending-signal SIG] [--late-pid MS] -- INIT-OPTIONS -- CMD [ARG...]\n");
                        return 2;
                }
        }
        if (i >= argc) {
                fprintf(stderr, "init_harness: no -- before the init's options\n");
                return 2;
        }
        if (pending > 0) {
                sigset_t set;
                (void)sigemptyset(&set);
                (void)sigaddset(&set, pending);
                (void)sigprocmask(SIG_BLOCK, &set, NULL);
                if (kill(getpid(), pending) != 0) {
                        perror("init_harness: kill");
                        return 2;
                }
        }
        if (tid_file) {
                if (start_and_wait(diverger) < 0)
                        return 2;
                if (diverge_error) {
                        fprintf(stderr, "init_harness: diverger: %s\n", strerror(diverge_error));
                        return 2;
                }
        }
        if (with_stray) {
                if (start_and_wait(stray) < 0)
                        return 2;
        }
        /* argv[i] is "--": it becomes the init's argv[0]. */
        argv[i] = (char *)INIT_PROGRAM;
        return init_flow_run(argc - i, argv + i);
}
