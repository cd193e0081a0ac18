/* The signal thread. It is started before the first filter (TSYNC filters it
 * with the rest) so that a signal sent while the init sets up is not lost:
 * every thread blocks every signal (sigmask.c), and this one takes the
 * forwarded ones with sigwaitinfo. Until the workload exists they are
 * remembered, then forwarded the moment it starts. It is a worker of the
 * init's one job loop (worker.c) whose idle is that wait: it runs jobs on
 * request (init_signals_run) like the other workers, the probe's calls, so
 * that the proof by effect covers this thread as well, and its own
 * capability transition (privs.c), so that it ends with exactly what the
 * workload gets, like the main thread. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "init.h"
#include "shared/init_threads.h"

static const int forwarded[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t workload;   /* > 0 once it runs; -1 once it is reaped */
static bool handoff;     /* exec mode: send to the main thread instead */
static uint64_t pending; /* bit n: signal n arrived before the workload */
static bool group;
static pid_t main_pid, main_tid;
/* The kernel writes 0 here when the main thread exits (set_tid_address), so
 * that the signal thread sees a main thread a filter killed (KILL_THREAD)
 * before the workload ran: the init then ends, instead of living on without
 * a workload in a container that looks stopped. */
static pid_t main_alive;
#define WATCH_NS (50 * 1000 * 1000)
/* What a job's wake-up is (init_worker_run sends it with tgkill): never
 * forwarded, whoever sends it, as the job itself is the command word's. */
#define RUN_SIGNAL (SIGRTMIN + 2)
/* The forwarded signals and RUN_SIGNAL. */
static sigset_t waited;
/* What a main thread dead before the workload ran leaves to undo (flow.c's choice). */
static void (*main_died)(void);

static void deliver(int sig)
{
        if (workload > 0)
                (void)kill(group ? -workload : workload, sig);
        else if (handoff)
                (void)syscall(SYS_tgkill, main_pid, main_tid, sig);
        else if (workload == 0)
                pending |= UINT64_C(1) << sig;
}

/* The signal thread between jobs: one wait for a signal, which it forwards;
 * until the workload runs at most WATCH_NS, to see that the main thread
 * lives. false when it cannot wait any more: the thread ends. */
static bool wait_signal(void)
{
        siginfo_t info;
        bool watching = __atomic_load_n(&workload, __ATOMIC_ACQUIRE) == 0;
        struct timespec watch = { .tv_sec = 0, .tv_nsec = WATCH_NS };
        int sig = watching ? sigtimedwait(&waited, &info, &watch) : sigwaitinfo(&waited, &info);

        if (sig < 0 && errno == EAGAIN) {
                if (__atomic_load_n(&main_alive, __ATOMIC_ACQUIRE) == 0) {
                        init_log("init",
                                 "the main thread (%d) died before the workload ran (a filter's "
                                 "KILL_THREAD action?): the init stops",
                                 (int)main_tid);
                        if (main_died)
                                main_died();
                        _exit(INIT_EXIT_KERNEL);
                }
                return true;
        }
        /* A filter that denies the wait while the main thread goes on to
         * run the workload in place: nothing to say, nothing to forward. */
        if (sig < 0 && errno != EINTR && watching)
                return false;
        if (sig < 0 && errno != EINTR) {
                /* A profile that denies rt_sigtimedwait: say so once
                 * rather than spin. Signals stay pending, unforwarded. */
                init_log("signals",
                         "cannot wait for signals any more, they are no longer forwarded: %s "
                         "(the profile must allow rt_sigtimedwait)",
                         init_strerror(errno));
                return false;
        }
        if (sig <= 0 || sig == RUN_SIGNAL || sig >= 64)
                return true;
        (void)pthread_mutex_lock(&lock);
        deliver(sig);
        (void)pthread_mutex_unlock(&lock);
        return true;
}

/* A worker of the one job loop whose idle is the wait above. */
static struct init_worker signaller = {
        .what = "signals",
        .thread_what = "the signal thread",
        .thread_name = TSYNC_INIT_THREAD_SIGNALS,
        .idle = wait_signal,
};

/* The kernel's struct sigaction (x86-64, and every architecture without
 * SA_RESTORER quirks for SIG_DFL): what rt_sigaction reads and writes. */
struct kernel_sigaction {
        void (*handler)(int);
        unsigned long flags;
        void (*restorer)(void);
        uint64_t mask;
};

void init_signals_defaults(void)
{
        struct sigaction dfl = { .sa_handler = SIG_DFL };

        /* Dispositions back to default: an ignored SIGCHLD inherited from our
         * parent would make the kernel reap children before we can see them,
         * and ignored signals would be inherited by the workload. */
        for (int sig = 1; sig < NSIG; sig++) {
                if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, &dfl, NULL) == 0)
                        continue;
                /* A signal libc keeps for itself (EINVAL: musl's 32-34, glibc's
                 * 32-33): ignored by our parent, it would stay ignored through
                 * the workload's execve. Only that is undone, through the
                 * kernel: a handler there is glibc's own and stays. */
                struct kernel_sigaction old, kdfl = { .handler = SIG_DFL };
                if (syscall(SYS_rt_sigaction, sig, NULL, &old, sizeof(old.mask)) == 0 && old.handler == SIG_IGN)
                        (void)syscall(SYS_rt_sigaction, sig, &kdfl, NULL, sizeof(kdfl.mask));
        }
}

int init_signals_start(bool pgroup, void (*on_main_death)(void))
{
        init_signals_defaults();
        group = pgroup;
        main_died = on_main_death;
        main_pid = getpid();
        main_tid = gettid();
        __atomic_store_n(&main_alive, main_tid, __ATOMIC_RELEASE);
        (void)syscall(SYS_set_tid_address, &main_alive);
        (void)sigemptyset(&waited);
        for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
                (void)sigaddset(&waited, forwarded[i]);
        (void)sigaddset(&waited, RUN_SIGNAL);
        signaller.wake_signal = RUN_SIGNAL;
        signaller.pid = main_pid;
        return init_worker_start(&signaller);
}

pid_t init_signals_tid(void)
{
        return init_worker_tid(&signaller);
}

int init_signals_run(void (*fn)(void *arg), void *arg)
{
        return init_worker_run(&signaller, fn, arg);
}

/* With the lock held, once deliver() has somewhere to send them. */
static void deliver_pending(void)
{
        for (int sig = 1; sig < 64; sig++)
                if (pending & (UINT64_C(1) << sig))
                        deliver(sig);
        pending = 0;
}

void init_signals_workload(pid_t pid)
{
        (void)pthread_mutex_lock(&lock);
        __atomic_store_n(&workload, pid, __ATOMIC_RELEASE);
        deliver_pending();
        (void)pthread_mutex_unlock(&lock);
}

void init_signals_handoff(void)
{
        (void)pthread_mutex_lock(&lock);
        handoff = true;
        deliver_pending();
        (void)pthread_mutex_unlock(&lock);
}
