/* The signal thread. It is started before the first filter (TSYNC filters it
 * with the rest) so that a signal sent while the init sets up is not lost:
 * every thread blocks every signal, and this one takes the forwarded ones
 * with sigwaitinfo. Until the workload exists they are remembered, then
 * forwarded the moment it starts. The thread drops all its capabilities
 * first: it only ever sends signals to a process of its own uid. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "init.h"

static const int forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t workload;   /* > 0 once it runs; -1 once it is reaped */
static bool handoff;     /* exec mode: send to the main thread instead */
static uint64_t pending; /* bit n: signal n arrived before the workload */
static bool group;
static pid_t main_pid, main_tid;
static sem_t ready;

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
        cap_t none = cap_init();
        if (none) {
                (void)cap_set_proc(none);
                (void)cap_free(none);
        }
        (void)sem_post(&ready);
        for (;;) {
                int sig = sigwaitinfo(&set, NULL);
                if (sig < 0 && errno != EINTR) {
                        /* A profile that denies rt_sigtimedwait: say so once
                         * rather than spin. Signals stay pending, unforwarded. */
                        init_log("signals",
                                 "cannot wait for signals any more, they are no longer forwarded: %s "
                                 "(the profile must allow rt_sigtimedwait)",
                                 init_strerror(errno));
                        return NULL;
                }
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
        sigset_t all;
        int r;

        (void)sigfillset(&all);
        r = pthread_sigmask(SIG_SETMASK, &all, NULL);
        if (r != 0) {
                init_log("signals", "cannot block signals: %s", init_strerror(r));
                return -1;
        }
        return 0;
}

int init_signals_start(bool pgroup)
{
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        pthread_attr_t attr;
        pthread_t thread;
        int r;

        /* Dispositions back to default: an ignored SIGCHLD inherited from our
         * parent would make the kernel reap children before we can see them,
         * and ignored signals would be inherited by the workload. */
        for (int sig = 1; sig < NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void)sigaction(sig, &dfl, NULL);
        group = pgroup;
        main_pid = getpid();
        main_tid = gettid();
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
        (void)pthread_setname_np(thread, "tsync-signals");
        while (sem_wait(&ready) < 0 && errno == EINTR)
                ;
        return 0;
}

void init_signals_workload(pid_t pid)
{
        (void)pthread_mutex_lock(&lock);
        workload = pid;
        for (int sig = 1; sig < 64; sig++)
                if (pending & (UINT64_C(1) << sig))
                        deliver(sig);
        pending = 0;
        (void)pthread_mutex_unlock(&lock);
}

void init_signals_handoff(void)
{
        (void)pthread_mutex_lock(&lock);
        handoff = true;
        for (int sig = 1; sig < 64; sig++)
                if (pending & (UINT64_C(1) << sig))
                        deliver(sig);
        pending = 0;
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
