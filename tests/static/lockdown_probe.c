/* A workload for lockdown's tests: in each of its processes, tasks blocked in
 * read (a pipe fed now and then), nanosleep, futex (a condition variable
 * with a timeout), accept (a unix socket connected to now and then) and wait4
 * (a child that sleeps), a thread storm and a fork storm, all at once,
 * forever. A signaller sends SIGUSR1 (handler with SA_RESTART) and SIGUSR2
 * (handler without) to the blocked threads: a call may fail with EINTR only
 * when a handler that allows it ran in its thread meanwhile; each blocked
 * thread keeps a signal mask of its own and checks it after every call; one
 * thread makes its read with the raw instruction and checks every register
 * the kernel keeps. A stop and a resume (ptrace, the freezer) must change
 * none of this. Once /tmp/go exists, every long-lived thread and every new
 * child tries mkdir once and prints
 *   "probe proc=P tid=T kind=K rc=R errno=E"
 * and anything unexpected prints "probe ERROR ...".
 *   lockdown_probe [-p PROCS] [-d] [-x] [-z]
 *   lockdown_probe -i [-p PROCS] [-t THREADS]
 * -p: PROCS processes (PID 1 and PROCS-1 children), each with all of the
 * above; -d: one thread of each process loads a filter of its own first (its
 * filters diverge from its process's); -x: the main thread of each process
 * but PID 1 exits once the others run (a runtime takes a PID 1 whose main
 * thread exited for a stopped container); -z: each process leaves a zombie child; -i: idle
 * (the bench): THREADS threads per process (10) asleep, nothing else.
 * Static (it runs in any root filesystem). x86_64. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

static int proc_no;
static int pipefd[2], regpipe[2], listener;
static struct sockaddr_un addr;
static socklen_t addr_len;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
/* The blocked threads, for the signaller. */
static pthread_t blocked[8];
static int n_blocked;
static pthread_mutex_t blocked_lock = PTHREAD_MUTEX_INITIALIZER;
/* Handlers run in this thread: with SA_RESTART, without. */
static __thread volatile unsigned long ran_restart, ran_norestart;

static void on_restart(int sig)
{
        (void)sig;
        ran_restart++;
}

static void on_norestart(int sig)
{
        (void)sig;
        ran_norestart++;
}

static void try_call(const char *kind)
{
        char path[64];
        long tid = syscall(SYS_gettid);
        (void)snprintf(path, sizeof(path), "/tmp/d.%s.%ld", kind, tid);
        int rc = mkdir(path, 0700);
        int e = rc < 0 ? errno : 0;
        printf("probe proc=%d tid=%ld kind=%s rc=%d errno=%d\n", proc_no, tid, kind, rc, e);
        (void)fflush(stdout);
}

static void fail(const char *what, int e)
{
        printf("probe ERROR proc=%d %s: %s\n", proc_no, what, strerror(e));
        (void)fflush(stdout);
}

static int go(void)
{
        return access("/tmp/go", F_OK) == 0;
}

/* A blocked thread: registered for the signaller, with a mask of its own
 * (SIGRTMIN+n and SIGWINCH blocked). */
struct blocked_self {
        sigset_t mask;
        unsigned long restart, norestart;
        bool reported;
};

static void blocked_begin(struct blocked_self *b)
{
        (void)pthread_mutex_lock(&blocked_lock);
        int n = n_blocked;
        if (n_blocked < (int)(sizeof(blocked) / sizeof(blocked[0])))
                blocked[n_blocked++] = pthread_self();
        (void)pthread_mutex_unlock(&blocked_lock);
        sigemptyset(&b->mask);
        sigaddset(&b->mask, SIGRTMIN + 1 + n);
        sigaddset(&b->mask, SIGWINCH);
        (void)pthread_sigmask(SIG_SETMASK, &b->mask, NULL);
        b->reported = false;
}

/* Before each call. */
static void blocked_mark(struct blocked_self *b)
{
        b->restart = ran_restart;
        b->norestart = ran_norestart;
}

/* After each call: r < 0 with errno e. EINTR only after a handler that
 * allows it (any handler for nanosleep, which never restarts; one without
 * SA_RESTART for the others); the mask as it was. */
static void blocked_check(struct blocked_self *b, const char *kind, long r, int e, bool any_handler)
{
        if (r < 0 && e == EINTR) {
                bool allowed = ran_norestart != b->norestart || (any_handler && ran_restart != b->restart);
                if (!allowed) {
                        char what[96];
                        (void)snprintf(what, sizeof(what), "%s: EINTR without a handler that allows it", kind);
                        fail(what, e);
                }
        } else if (r < 0) {
                fail(kind, e);
        }
        sigset_t now;
        (void)pthread_sigmask(SIG_BLOCK, NULL, &now);
        for (int s = 1; s < SIGRTMAX; s++)
                if (sigismember(&now, s) != sigismember(&b->mask, s)) {
                        char what[96];
                        (void)snprintf(what, sizeof(what), "%s: signal mask changed (signal %d)", kind, s);
                        fail(what, EINVAL);
                        break;
                }
        if (!b->reported && go()) {
                try_call(kind);
                b->reported = true;
        }
}

static void *reader(void *arg)
{
        (void)arg;
        struct blocked_self b;
        blocked_begin(&b);
        for (;;) {
                char c;
                blocked_mark(&b);
                ssize_t n = read(pipefd[0], &c, 1);
                blocked_check(&b, "read", n, errno, false);
        }
        return NULL;
}

static void *sleeper(void *arg)
{
        (void)arg;
        struct blocked_self b;
        blocked_begin(&b);
        for (;;) {
                struct timespec ts = { .tv_sec = 0, .tv_nsec = 200 * 1000 * 1000 };
                blocked_mark(&b);
                int r = nanosleep(&ts, NULL);
                blocked_check(&b, "nanosleep", r, errno, true);
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

static void *accepter(void *arg)
{
        (void)arg;
        struct blocked_self b;
        blocked_begin(&b);
        for (;;) {
                blocked_mark(&b);
                int c = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
                blocked_check(&b, "accept", c, errno, false);
                if (c >= 0)
                        (void)close(c);
        }
        return NULL;
}

static void *waiter4(void *arg)
{
        (void)arg;
        struct blocked_self b;
        blocked_begin(&b);
        for (;;) {
                pid_t c = fork();
                if (c == 0) {
                        struct timespec ts = { .tv_sec = 0, .tv_nsec = 300 * 1000 * 1000 };
                        while (nanosleep(&ts, &ts) < 0)
                                ;
                        _exit(7);
                }
                if (c < 0) {
                        fail("fork (wait4)", errno);
                        continue;
                }
                int st = 0;
                long r;
                int e;
                do {
                        blocked_mark(&b);
                        r = wait4(c, &st, 0, NULL);
                        e = errno;
                        blocked_check(&b, "wait4", r, e, false);
                } while (r < 0 && e == EINTR);
                if (r == c && !(WIFEXITED(st) && WEXITSTATUS(st) == 7))
                        fail("wait4: the child's status is not exit 7", EINVAL);
        }
        return NULL;
}

/* read(2) with the raw instruction, every register the kernel keeps set to
 * a known value and checked afterwards. */
static long raw_read(int fd, void *buf, bool *bad)
{
        register long r8 asm("r8") = 0x0808080808080808L;
        register long r9 asm("r9") = 0x0909090909090909L;
        register long r10 asm("r10") = 0x1010101010101010L;
        register long r12 asm("r12") = 0x1212121212121212L;
        register long r13 asm("r13") = 0x1313131313131313L;
        register long r14 asm("r14") = 0x1414141414141414L;
        register long r15 asm("r15") = 0x1515151515151515L;
        long rbx = 0x0b0b0b0b0b0b0b0bL, rax = SYS_read, rdi = fd, rsi = (long)buf, rdx = 1;
        __asm__ volatile("syscall"
                         : "+a"(rax), "+D"(rdi), "+S"(rsi), "+d"(rdx), "+r"(r8), "+r"(r9), "+r"(r10), "+r"(r12),
                           "+r"(r13), "+r"(r14), "+r"(r15), "+b"(rbx)
                         :
                         : "rcx", "r11", "memory");
        *bad = rdi != fd || rsi != (long)buf || rdx != 1 || r8 != 0x0808080808080808L || r9 != 0x0909090909090909L ||
               r10 != 0x1010101010101010L || r12 != 0x1212121212121212L || r13 != 0x1313131313131313L ||
               r14 != 0x1414141414141414L || r15 != 0x1515151515151515L || rbx != 0x0b0b0b0b0b0b0b0bL;
        return rax;
}

static void *regs(void *arg)
{
        (void)arg;
        struct blocked_self b;
        blocked_begin(&b);
        for (;;) {
                char c;
                bool bad;
                blocked_mark(&b);
                long r = raw_read(regpipe[0], &c, &bad);
                if (bad)
                        fail("regs: a register changed across read", EINVAL);
                blocked_check(&b, "regs", r < 0 ? -1 : r, r < 0 ? (int)-r : 0, false);
        }
        return NULL;
}

static void *signaller(void *arg)
{
        (void)arg;
        for (unsigned long i = 0;; i++) {
                struct timespec ts = { .tv_sec = 0, .tv_nsec = 70 * 1000 * 1000 };
                (void)nanosleep(&ts, NULL);
                (void)pthread_mutex_lock(&blocked_lock);
                if (n_blocked)
                        (void)pthread_kill(blocked[i % (unsigned long)n_blocked], i % 3 ? SIGUSR1 : SIGUSR2);
                (void)pthread_mutex_unlock(&blocked_lock);
        }
        return NULL;
}

static void *forker(void *arg)
{
        (void)arg;
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
                struct timespec ts = { .tv_sec = 0, .tv_nsec = 20 * 1000 * 1000 };
                (void)nanosleep(&ts, NULL);
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
                (void)write(regpipe[1], "x", 1);
                (void)pthread_cond_signal(&cond);
                int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (s >= 0) {
                        (void)connect(s, (struct sockaddr *)&addr, addr_len);
                        (void)close(s);
                }
        }
        return NULL;
}

/* A thread whose filters diverge from its process's: it loads one of its
 * own (allow everything) without TSYNC, then sleeps. */
static void *diverged(void *arg)
{
        (void)arg;
        struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
        struct sock_fprog prog = { .len = 1, .filter = allow };
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
                fail("diverged: seccomp", errno);
        bool done = false;
        for (;;) {
                struct timespec ts = { .tv_sec = 0, .tv_nsec = 200 * 1000 * 1000 };
                (void)nanosleep(&ts, NULL);
                if (!done && go()) {
                        try_call("diverged");
                        done = true;
                }
        }
        return NULL;
}

static void *idle(void *arg)
{
        (void)arg;
        for (;;)
                (void)pause();
        return NULL;
}

static void start(void *(*fn)(void *))
{
        pthread_t t;
        if (pthread_create(&t, NULL, fn, NULL) != 0) {
                perror("lockdown_probe: pthread_create");
                exit(1);
        }
}

static void workload(bool diverge, bool leader_exit, bool zombie)
{
        if (zombie && fork() == 0)
                _exit(0); /* never reaped */
        if (pipe2(pipefd, O_CLOEXEC) < 0 || pipe2(regpipe, O_CLOEXEC) < 0) {
                perror("lockdown_probe: pipe");
                exit(1);
        }
        listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        addr.sun_family = AF_UNIX;
        int n = snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1, "lockdown_probe.%d", (int)getpid());
        addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
        if (listener < 0 || bind(listener, (struct sockaddr *)&addr, addr_len) < 0 || listen(listener, 16) < 0) {
                perror("lockdown_probe: socket");
                exit(1);
        }
        struct sigaction sa = { .sa_handler = on_restart, .sa_flags = SA_RESTART };
        (void)sigaction(SIGUSR1, &sa, NULL);
        sa = (struct sigaction){ .sa_handler = on_norestart };
        (void)sigaction(SIGUSR2, &sa, NULL);
        void *(*fns[])(void *) = { reader, sleeper, waiter, accepter, waiter4, regs, signaller, probe_thread_storm,
                                   forker, feeder };
        for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
                start(fns[i]);
        if (diverge)
                start(diverged);
        printf("probe proc=%d ready\n", proc_no);
        (void)fflush(stdout);
        if (leader_exit && proc_no > 0)
                pthread_exit(NULL);
        for (;;) {
                struct timespec ts = { .tv_sec = 0, .tv_nsec = 50 * 1000 * 1000 };
                if (nanosleep(&ts, NULL) < 0)
                        fail("nanosleep (main)", errno);
                static bool reported;
                if (!reported && go()) {
                        try_call("main");
                        reported = true;
                }
        }
}

int main(int argc, char **argv)
{
        int procs = 1, threads = 10, opt;
        bool idle_mode = false, diverge = false, leader_exit = false, zombie = false;
        while ((opt = getopt(argc, argv, "p:t:idxz")) != -1) {
                switch (opt) {
                case 'p':
                        procs = atoi(optarg);
                        break;
                case 't':
                        threads = atoi(optarg);
                        break;
                case 'i':
                        idle_mode = true;
                        break;
                case 'd':
                        diverge = true;
                        break;
                case 'x':
                        leader_exit = true;
                        break;
                case 'z':
                        zombie = true;
                        break;
                default:
                        fprintf(stderr, "usage: lockdown_probe [-p PROCS] [-t THREADS] [-i] [-d] [-x] [-z]\n");
                        return 2;
                }
        }
        for (int i = 1; i < procs; i++) {
                pid_t c = fork();
                if (c < 0) {
                        perror("lockdown_probe: fork");
                        return 1;
                }
                if (c == 0) {
                        proc_no = i;
                        break;
                }
        }
        if (idle_mode) {
                for (int i = 1; i < threads; i++)
                        start(idle);
                if (proc_no == 0) {
                        printf("probe ready\n");
                        (void)fflush(stdout);
                }
                for (;;)
                        (void)pause();
        }
        workload(diverge, leader_exit, zombie);
        return 0;
}
