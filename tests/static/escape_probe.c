/* A workload that tries to get around its seccomp filter, for test_escape.sh.
 * Static (it runs in a busybox root filesystem). Each attempt prints one line
 * of key=value words; a mkdir attempt always says whether the directory now
 * exists (created=yes|no), which is the side effect the tests look at.
 *   escape_probe abi DIR      mkdir DIR/<abi> through every system-call ABI of
 *                             x86-64: the 64-bit `syscall`, `int 0x80` (i386
 *                             numbering) and x32 numbering (nr | 0x40000000);
 *                             each also says whether the ABI is offered (getpid
 *                             through it returns our pid). Each attempt runs in
 *                             a child: an ABI the kernel lacks may kill it.
 *   escape_probe loosen DIR   installs filters that would loosen the current
 *                             ones (RET_ALLOW, with and without TSYNC, a user
 *                             notification answered CONTINUE, RET_ERRNO(0)),
 *                             tries to leave seccomp (mode 0, strict mode) and to
 *                             clear NO_NEW_PRIVS, and after each step tries
 *                             mkdir DIR/<step> again
 *   escape_probe threads DIR  mkdir DIR/<who> from a thread started first thing,
 *                             one started last, a thread of a thread and a thread
 *                             of a forked child
 * Result words: ok (the call returned 0), errno:N, signal:N (the attempt was
 * killed by signal N). Exits 0 unless the probe itself cannot run. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

#define X32_BIT     0x40000000L
#define I386_MKDIR  39
#define I386_GETPID 20

static const char *dir;

static const char *result(long rc, int e, char *buf, size_t size)
{
        if (rc == 0)
                return "ok";
        (void)snprintf(buf, size, "errno:%d", rc < 0 ? e : 0);
        return buf;
}

static const char *exists(const char *path)
{
        struct stat st;
        return lstat(path, &st) == 0 ? "yes" : "no";
}

/* Seccomp_filters of the calling thread. */
static int filter_count(void)
{
        char buf[4096];
        int n = -1;
        FILE *f = fopen("/proc/thread-self/status", "re");
        if (!f)
                return -1;
        while (fgets(buf, sizeof(buf), f))
                if (sscanf(buf, "Seccomp_filters: %d", &n) == 1)
                        break;
        fclose(f);
        return n;
}

#if defined(__x86_64__)
static long raw_syscall64(long nr, long a, long b)
{
        long ret;
        __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory");
        return ret;
}

static long raw_int80(long nr, long a, long b)
{
        return probe_int80(nr, a, b, 0);
}

struct abi {
        const char *name;
        long (*call)(long nr, long a, long b);
        long mkdir_nr, getpid_nr;
};

static const struct abi abis[] = {
        { "x86_64", raw_syscall64, SYS_mkdir, SYS_getpid },
        { "i386", raw_int80, I386_MKDIR, I386_GETPID },
        { "x32", raw_syscall64, SYS_mkdir | X32_BIT, SYS_getpid | X32_BIT },
};

/* Runs call(nr, a, b) in a child: "ok", "errno:N" or "signal:N" in buf; with want
 * (getpid), "yes" if the call returned the child's pid. */
static const char *in_child(const struct abi *abi, long nr, long a, long b, bool want, char *buf, size_t size)
{
        int fds[2];
        long rc = 0;
        if (pipe(fds) < 0)
                return "probe-error";
        pid_t pid = fork();
        if (pid == 0) {
                (void)close(fds[0]);
                rc = abi->call(nr, a, b);
                /* For getpid: whether it returned this child's pid. */
                if (want && rc > 0)
                        rc = rc == getpid() ? 1 : 2;
                (void)write(fds[1], &rc, sizeof(rc));
                _exit(0);
        }
        (void)close(fds[1]);
        int st = 0;
        ssize_t got = pid > 0 ? read(fds[0], &rc, sizeof(rc)) : -1;
        (void)close(fds[0]);
        if (pid < 0 || waitpid(pid, &st, 0) < 0)
                return "probe-error";
        if (WIFSIGNALED(st))
                (void)snprintf(buf, size, "signal:%d", WTERMSIG(st));
        else if (got != (ssize_t)sizeof(rc))
                (void)snprintf(buf, size, "probe-error");
        else if (rc < 0 && rc > -4096)
                (void)snprintf(buf, size, "errno:%ld", -rc);
        else if (want)
                (void)snprintf(buf, size, "%s", rc == 1 ? "yes" : "wrong");
        else
                (void)snprintf(buf, size, rc == 0 ? "ok" : "rc:%ld", rc);
        return buf;
}

static int cmd_abi(void)
{
        /* int 0x80 passes 32-bit pointers: the path must live below 4 GiB. */
        char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
        if (low == MAP_FAILED) {
                perror("escape_probe: mmap MAP_32BIT");
                return 1;
        }
        for (size_t i = 0; i < sizeof(abis) / sizeof(abis[0]); i++) {
                char offered[64], made[64];
                (void)snprintf(low, 4096, "%s/%s", dir, abis[i].name);
                in_child(&abis[i], abis[i].getpid_nr, 0, 0, true, offered, sizeof(offered));
                in_child(&abis[i], abis[i].mkdir_nr, (long)low, 0700, false, made, sizeof(made));
                say("abi=%s offered=%s mkdir=%s created=%s", abis[i].name, offered, made, exists(low));
        }
        return 0;
}
#else
static int cmd_abi(void)
{
        say("abi=native offered=unknown mkdir=probe-not-built-for-this-cpu created=%s", exists(dir));
        return 0;
}
#endif

static int install(unsigned int flags, struct sock_filter *insns, unsigned short len)
{
        struct sock_fprog prog = { .len = len, .filter = insns };
        return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

/* A filter that returns ret for mkdir and mkdirat and allows everything else. */
static int install_for_mkdir(unsigned int flags, unsigned int ret)
{
        struct sock_filter f[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mkdir, 1, 0),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mkdirat, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, ret),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        return install(flags, f, sizeof(f) / sizeof(f[0]));
}

/* mkdir DIR/step after a loosening attempt whose own result was rc/e. */
static void after(const char *step, long rc, int e)
{
        char path[512], r1[32], r2[32];
        (void)snprintf(path, sizeof(path), "%s/%s", dir, step);
        errno = 0;
        long m = mkdir(path, 0700);
        int me = errno;
        say("step=%s rc=%s mode=%d filters=%d nnp=%d mkdir=%s created=%s", step, result(rc, e, r1, sizeof(r1)),
            prctl(PR_GET_SECCOMP, 0, 0, 0, 0), filter_count(), prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0),
            result(m, me, r2, sizeof(r2)), exists(path));
}

struct notify_args {
        int fd;
        int notified;
};

/* Answers every notification with CONTINUE (run the call as asked) for up to a second. */
static void *notify_answerer(void *arg)
{
        struct notify_args *na = arg;
        struct pollfd p = { .fd = na->fd, .events = POLLIN };
        while (poll(&p, 1, 1000) > 0) {
                struct seccomp_notif req;
                struct seccomp_notif_resp resp;
                memset(&req, 0, sizeof(req));
                if (ioctl(na->fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
                        break;
                na->notified++;
                memset(&resp, 0, sizeof(resp));
                resp.id = req.id;
                resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
                (void)ioctl(na->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
        }
        return NULL;
}

static int cmd_loosen(void)
{
        struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
        long rc;

        after("start", 0, 0);
        /* Anyone may set it, and a filter without CAP_SYS_ADMIN needs it. */
        rc = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        after("set-nnp", rc, errno);
        rc = prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0);
        after("clear-nnp", rc, errno);
        rc = prctl(PR_SET_SECCOMP, SECCOMP_MODE_DISABLED, 0, 0, 0);
        after("mode-disabled", rc, errno);

        /* Strict mode in a child: if it were granted, only read, write, exit and sigreturn would remain. */
        int fds[2];
        if (pipe(fds) < 0)
                return 1;
        pid_t pid = fork();
        if (pid == 0) {
                long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL);
                long w[2] = { r, r < 0 ? errno : 0 };
                (void)write(fds[1], w, sizeof(w));
                syscall(SYS_exit, 0);
        }
        long w[2] = { -1, EIO };
        (void)close(fds[1]);
        if (pid < 0 || read(fds[0], w, sizeof(w)) != (ssize_t)sizeof(w))
                w[1] = EIO;
        (void)close(fds[0]);
        if (pid > 0)
                (void)waitpid(pid, NULL, 0);
        after("strict", w[0], (int)w[1]);

        rc = install(0, allow, 1);
        after("allow-filter", rc, errno);
        rc = install(SECCOMP_FILTER_FLAG_TSYNC, allow, 1);
        after("allow-filter-tsync", rc, errno);
        rc = install_for_mkdir(0, SECCOMP_RET_ALLOW);
        after("allow-mkdir-filter", rc, errno);
        rc = install_for_mkdir(0, SECCOMP_RET_TRACE);
        after("trace-filter", rc, errno);

        /* A listener that lets the call through: it only ever hears of calls
         * no stricter filter has decided already. */
        struct notify_args na = { .fd = -1 };
        na.fd = install_for_mkdir(SECCOMP_FILTER_FLAG_NEW_LISTENER, SECCOMP_RET_USER_NOTIF);
        int ne = errno;
        pthread_t t;
        if (na.fd >= 0 && pthread_create(&t, NULL, notify_answerer, &na) == 0) {
                after("notify-continue", 0, 0);
                (void)pthread_join(t, NULL);
                say("step=listener notified=%d", na.notified);
        } else {
                after("notify-continue", -1, ne);
        }

        /* Same precedence as a denying RET_ERRNO: the newest filter's errno wins,
         * so mkdir may "return 0", but the call must still not run. */
        rc = install_for_mkdir(0, SECCOMP_RET_ERRNO | 0);
        after("errno0-filter", rc, errno);
        return 0;
}

static sem_t early_go;

static void mkdir_as(const char *who)
{
        char path[512], r[32];
        (void)snprintf(path, sizeof(path), "%s/%s", dir, who);
        errno = 0;
        long rc = mkdir(path, 0700);
        int e = errno;
        say("who=%s tid=%d mode=%d filters=%d mkdir=%s created=%s", who, (int)gettid(),
            prctl(PR_GET_SECCOMP, 0, 0, 0, 0), filter_count(), result(rc, e, r, sizeof(r)), exists(path));
}

static void *early(void *arg)
{
        (void)arg;
        /* Exists from the start; makes its call only after every other thread. */
        while (sem_wait(&early_go) < 0 && errno == EINTR)
                ;
        mkdir_as("early");
        return NULL;
}

static void *run_named(void *arg)
{
        mkdir_as(arg);
        return NULL;
}

static void *parent_thread(void *arg)
{
        pthread_t t;
        (void)arg;
        if (pthread_create(&t, NULL, run_named, "thread-of-thread") == 0)
                (void)pthread_join(t, NULL);
        mkdir_as("parent-thread");
        return NULL;
}

static int cmd_threads(void)
{
        pthread_t te, tp, tl;
        if (sem_init(&early_go, 0, 0) < 0 || pthread_create(&te, NULL, early, NULL) != 0)
                return 1;
        mkdir_as("main");
        if (pthread_create(&tp, NULL, parent_thread, NULL) != 0)
                return 1;
        (void)pthread_join(tp, NULL);
        pid_t pid = fork();
        if (pid == 0) {
                pthread_t tc;
                if (pthread_create(&tc, NULL, run_named, "thread-of-child") == 0)
                        (void)pthread_join(tc, NULL);
                _exit(0);
        }
        if (pid > 0)
                (void)waitpid(pid, NULL, 0);
        if (pthread_create(&tl, NULL, run_named, "late") != 0)
                return 1;
        (void)pthread_join(tl, NULL);
        (void)sem_post(&early_go);
        (void)pthread_join(te, NULL);
        return 0;
}

int main(int argc, char **argv)
{
        if (argc != 3) {
                fprintf(stderr, "usage: escape_probe abi|loosen|threads DIR\n");
                return 2;
        }
        dir = argv[2];
        if (strcmp(argv[1], "abi") == 0)
                return cmd_abi();
        if (strcmp(argv[1], "loosen") == 0)
                return cmd_loosen();
        if (strcmp(argv[1], "threads") == 0)
                return cmd_threads();
        fprintf(stderr, "escape_probe: unknown command '%s'\n", argv[1]);
        return 2;
}
