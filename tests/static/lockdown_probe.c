/* A workload for lockdown's tests: tasks blocked in read (a pipe fed now and
 * then), nanosleep and futex (a condition variable with a timeout), a
 * thread storm and a fork storm, all at once, forever. With no signal
 * handler, none of these calls may ever fail with EINTR: a stop and a resume
 * (ptrace, the freezer) restart them. Once /tmp/go exists, every long-lived
 * thread and every new child tries mkdir once and prints
 *   "probe tid=T kind=K rc=R errno=E"
 * and any call that failed unexpectedly prints "probe ERROR ...".
 *   lockdown_probe
 * Static (it runs in any root filesystem). */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

static int pipefd[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

static void try_call(const char *kind)
{
        char path[64];
        long tid = syscall(SYS_gettid);
        (void)snprintf(path, sizeof(path), "/tmp/d.%s.%ld", kind, tid);
        int rc = mkdir(path, 0700);
        int e = rc < 0 ? errno : 0;
        printf("probe tid=%ld kind=%s rc=%d errno=%d\n", tid, kind, rc, e);
        (void)fflush(stdout);
}

static void fail(const char *what, int e)
{
        printf("probe ERROR %s: %s\n", what, strerror(e));
        (void)fflush(stdout);
}

static int go(void)
{
        return access("/tmp/go", F_OK) == 0;
}

static void *reader(void *arg)
{
        (void)arg;
        bool done = false;
        for (;;) {
                char c;
                ssize_t n = read(pipefd[0], &c, 1);
                if (n < 0)
                        fail("read", errno);
                if (!done && go()) {
                        try_call("read");
                        done = true;
                }
        }
        return NULL;
}

static void *sleeper(void *arg)
{
        (void)arg;
        bool done = false;
        for (;;) {
                struct timespec ts = { .tv_sec = 0, .tv_nsec = 200 * 1000 * 1000 };
                if (nanosleep(&ts, NULL) < 0)
                        fail("nanosleep", errno);
                if (!done && go()) {
                        try_call("nanosleep");
                        done = true;
                }
        }
        return NULL;
}

static void *waiter(void *arg)
{
        (void)arg;
        bool done = false;
        for (;;) {
                struct timespec ts;
                (void)clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_sec += 1;
                (void)pthread_mutex_lock(&lock);
                int r = pthread_cond_timedwait(&cond, &lock, &ts);
                (void)pthread_mutex_unlock(&lock);
                if (r != 0 && r != ETIMEDOUT)
                        fail("pthread_cond_timedwait", r);
                if (!done && go()) {
                        try_call("futex");
                        done = true;
                }
        }
        return NULL;
}

static void *feeder(void *arg)
{
        (void)arg;
        for (;;) {
                struct timespec ts = { .tv_sec = 0, .tv_nsec = 300 * 1000 * 1000 };
                (void)nanosleep(&ts, NULL);
                (void)write(pipefd[1], "x", 1);
                (void)pthread_cond_signal(&cond);
        }
        return NULL;
}

int main(void)
{
        if (pipe(pipefd) < 0) {
                perror("lockdown_probe: pipe");
                return 1;
        }
        void *(*fns[])(void *) = { reader, sleeper, waiter, probe_thread_storm, feeder };
        for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
                pthread_t t;
                if (pthread_create(&t, NULL, fns[i], NULL) != 0) {
                        perror("lockdown_probe: pthread_create");
                        return 1;
                }
        }
        printf("probe ready\n");
        (void)fflush(stdout);
        bool reported = false;
        for (;;) {
                pid_t c = fork();
                if (c == 0) {
                        if (go())
                                try_call("child");
                        _exit(0);
                }
                if (c < 0)
                        fail("fork", errno);
                else if (waitpid(c, NULL, 0) < 0)
                        fail("waitpid", errno);
                if (!reported && go()) {
                        try_call("main");
                        reported = true;
                }
                struct timespec ts = { .tv_sec = 0, .tv_nsec = 20 * 1000 * 1000 };
                if (nanosleep(&ts, NULL) < 0)
                        fail("nanosleep (main)", errno);
        }
}
