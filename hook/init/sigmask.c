/* The init's signal mask: every signal blocked on every thread from the first
 * thing the init does until the workload's execve, so that none is lost or
 * kills the init while it sets up. The signal thread (signals.c) takes the
 * forwarded ones with sigwaitinfo; the others stay pending. Its own file
 * because the main thread and every worker (worker.c) set it, and the signal
 * thread is one of those workers. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "init.h"

int init_sigmask_block(void)
{
        /* Every signal, libc's own too (the kernel's 64-bit mask, through the
         * kernel: sigfillset and glibc's pthread_sigmask leave out what a libc
         * keeps for itself, glibc 32-33, musl 32-34). A libc uses them for
         * set*id, setgroups and setrlimit on every thread (glibc's SIGSETXID,
         * musl's __synccall), pthread_cancel, SIGEV_THREAD timers and musl's
         * membarrier fallback: the init calls none of them (SConscript's
         * check_init_libc: it links none). Left unblocked with their default
         * action, a 32-34 sent to an init that is not PID 1 of its namespace
         * (a pod's shared one; the kernel drops them for PID 1) would end it
         * and the workload's supervision with it. A new thread gets them
         * unblocked again (glibc's pthread_create clears them, musl's first
         * one unblocks 33-34): each thread we start, and the main thread once
         * it started one, calls this again. */
        uint64_t all = UINT64_MAX;

        if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, sizeof(all)) < 0) {
                init_log("signals", "cannot block signals: %s", init_strerror(errno));
                return -1;
        }
        return 0;
}

int init_sigmask_unblock(void)
{
        sigset_t none;

        (void)sigemptyset(&none);
        if (sigprocmask(SIG_SETMASK, &none, NULL) < 0) {
                init_log("signals", "cannot unblock signals for the workload: %s", init_strerror(errno));
                return -1;
        }
        return 0;
}
