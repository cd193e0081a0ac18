/* The signal thread. It is started before the first filter (TSYNC filters it
 * with the rest) so that a signal sent while the init sets up is not lost:
 * every thread blocks every signal, and this one takes the forwarded ones
 * with sigwaitinfo. Until the workload exists they are remembered, then
 * forwarded the moment it starts. It runs functions on request
 * (init_signals_run): the probe's calls, so that the proof by effect covers
 * this thread as well, and its own capability transition (privs.c), so that
 * it ends with exactly what the workload gets, like the main thread. */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
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
static sem_t ready;
/* init_signals_run: the main thread sends RUN_SIGNAL to the signal thread,
 * which calls run_fn and sets run_done (a futex word). */
#define RUN_SIGNAL     (SIGRTMIN + 2)
#define RUN_WAIT_NS    (100 * 1000 * 1000)
#define RUN_WAIT_TRIES 50
static pid_t signal_tid;
/* What a main thread dead before the workload ran leaves to undo (flow.c's choice). */
static void (*main_died)(void);
static void (*run_fn)(void *);
static void *run_arg;
static uint32_t run_done;

/* The run request, if this signal is one: sent by our own process with tgkill. */
static bool run_request(int sig, const siginfo_t *info)
{
        if (sig != RUN_SIGNAL)
                return false;
        void (*fn)(void *) = __atomic_exchange_n(&run_fn, NULL, __ATOMIC_ACQUIRE);
        /* glibc's sigwaitinfo reports tgkill's SI_TKILL as SI_USER. */
        if ((info->si_code == SI_TKILL || info->si_code == SI_USER) && info->si_pid == main_pid && fn) {
                fn(run_arg);
                __atomic_store_n(&run_done, 1, __ATOMIC_RELEASE);
                (void)syscall(SYS_futex, &run_done, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        }
        return true;
}

static void deliver(int sig)
{
        if (workload > 0)
                (void)kill(group ? -workload : workload, sig);
        else if (handoff)
                (void)syscall(SYS_tgkill, main_pid, main_tid, sig);
        else if (workload == 0)
                pending |= UINT64_C(1) << sig;
}

static void *signal_thread(void *arg)
{
        sigset_t set;
        (void)arg;

        (void)sigemptyset(&set);
        for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
                (void)sigaddset(&set, forwarded[i]);
        (void)sigaddset(&set, RUN_SIGNAL);
        /* libc's own signals (init_signals_block) came unblocked with the thread. */
        (void)init_signals_block();
        /* Named by itself: prctl(PR_SET_NAME) under either libc (musl names
         * another thread with open, not openat, which a profile may lack). */
        (void)pthread_setname_np(pthread_self(), TSYNC_INIT_THREAD_SIGNALS);
        __atomic_store_n(&signal_tid, gettid(), __ATOMIC_RELEASE);
        (void)sem_post(&ready);
        for (;;) {
                siginfo_t info;
                /* Until the workload runs, wake up now and then to see that the main thread lives. */
                bool watching = __atomic_load_n(&workload, __ATOMIC_ACQUIRE) == 0;
                struct timespec watch = { .tv_sec = 0, .tv_nsec = WATCH_NS };
                int sig = watching ? sigtimedwait(&set, &info, &watch) : sigwaitinfo(&set, &info);
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
                        continue;
                }
                /* A filter that denies the wait while the main thread goes on to
                 * run the workload in place: nothing to say, nothing to forward. */
                if (sig < 0 && errno != EINTR && watching)
                        return NULL;
                if (sig < 0 && errno != EINTR) {
                        /* A profile that denies rt_sigtimedwait: say so once
                         * rather than spin. Signals stay pending, unforwarded. */
                        init_log("signals",
                                 "cannot wait for signals any more, they are no longer forwarded: %s "
                                 "(the profile must allow rt_sigtimedwait)",
                                 init_strerror(errno));
                        return NULL;
                }
                if (sig > 0 && run_request(sig, &info))
                        continue;
                if (sig <= 0 || sig >= 64)
                        continue;
                (void)pthread_mutex_lock(&lock);
                deliver(sig);
                (void)pthread_mutex_unlock(&lock);
        }
        return NULL;
}

int init_signals_block(void)
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
        pthread_attr_t attr;
        pthread_t thread;
        int r;

        init_signals_defaults();
        group = pgroup;
        main_died = on_main_death;
        main_pid = getpid();
        main_tid = gettid();
        __atomic_store_n(&main_alive, main_tid, __ATOMIC_RELEASE);
        (void)syscall(SYS_set_tid_address, &main_alive);
        if (sem_init(&ready, 0, 0) < 0) {
                init_log("signals", "sem_init: %s", init_strerror(errno));
                return -1;
        }
        /* sigwaitinfo and kill need little stack; the default is 8 MiB of address space. */
        (void)pthread_attr_init(&attr);
        (void)pthread_attr_setstacksize(&attr, 64 * 1024);
        r = pthread_create(&thread, &attr, signal_thread, NULL);
        (void)pthread_attr_destroy(&attr);
        if (r != 0) {
                init_log("signals", "cannot start the signal thread: %s", init_strerror(r));
                return -1;
        }
        while (sem_wait(&ready) < 0 && errno == EINTR)
                ;
        return init_signals_block();
}

pid_t init_signals_tid(void)
{
        return __atomic_load_n(&signal_tid, __ATOMIC_ACQUIRE);
}

int init_signals_run(void (*fn)(void *arg), void *arg)
{
        pid_t tid = init_signals_tid();

        if (tid <= 0) {
                init_log("signals", "the signal thread is not running");
                return -1;
        }
        run_arg = arg;
        __atomic_store_n(&run_done, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&run_fn, fn, __ATOMIC_RELEASE);
        /* The signal thread reads run_fn only after this signal reaches it. */
        if (syscall(SYS_tgkill, main_pid, tid, RUN_SIGNAL) < 0) {
                init_log("signals", "cannot ask the signal thread (%d): tgkill: %s", (int)tid, init_strerror(errno));
                return -1;
        }
        for (int i = 0; i < RUN_WAIT_TRIES; i++) {
                struct timespec ts = { .tv_sec = 0, .tv_nsec = RUN_WAIT_NS };
                if (__atomic_load_n(&run_done, __ATOMIC_ACQUIRE))
                        return 0;
                if (syscall(SYS_futex, &run_done, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0) < 0 && errno != EAGAIN &&
                    errno != EINTR && errno != ETIMEDOUT) {
                        init_log("signals", "cannot wait for the signal thread (%d): futex: %s", (int)tid,
                                 init_strerror(errno));
                        return -1;
                }
        }
        if (__atomic_load_n(&run_done, __ATOMIC_ACQUIRE))
                return 0;
        init_log("signals", "the signal thread (%d) did not answer within %d ms", (int)tid,
                 RUN_WAIT_TRIES * (RUN_WAIT_NS / 1000000));
        return -1;
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

int init_signals_unblock(void)
{
        sigset_t none;

        (void)sigemptyset(&none);
        if (sigprocmask(SIG_SETMASK, &none, NULL) < 0) {
                init_log("signals", "cannot unblock signals for the workload: %s", init_strerror(errno));
                return -1;
        }
        return 0;
}
