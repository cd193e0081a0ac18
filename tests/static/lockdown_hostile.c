/* A hostile workload for lockdown (issue 35): each mode plays one attack,
 * then waits for the test, printing what it sees:
 *   lockdown_hostile sleep          nothing but sleeping (any argv[0], comm)
 *   lockdown_hostile selftrace      a child it traces itself (PTRACE_SEIZE)
 *   lockdown_hostile names          comm "runsc-sandbox", and a child whose
 *                                   argv[0] is "runsc-gofer" (the test names
 *                                   the binaries runsc-sandbox and runsc)
 *   lockdown_hostile listener       a thread with a filter of its own whose
 *                                   seccomp() goes to a listener another
 *                                   thread of the process serves
 *   lockdown_hostile ctrl           comm with terminal control bytes
 *   lockdown_hostile vfork          a parent held in vfork by a child that
 *                                   never execs
 *   lockdown_hostile masked         every signal blocked; once /tmp/go
 *                                   exists, mkdir once and print
 *                                   "hostile mkdir errno=E mask=M"
 *   lockdown_hostile killseccomp    a filter (every thread) that kills the
 *                                   process on seccomp()
 *   lockdown_hostile uring          an io_uring made before; once /tmp/go
 *                                   exists, IORING_OP_MKDIRAT through it and
 *                                   a new io_uring_setup, printing
 *                                   "hostile uring-mkdirat res=R" and
 *                                   "hostile uring-setup errno=E"
 *   lockdown_hostile stall          seccomp() goes to a listener no one
 *                                   serves (held by the process itself), so
 *                                   an injected call never returns; then
 *                                   echoes each byte of stdin plus one
 *                                   (tests/unit/test_lockdown_unwind.c)
 * Static (it runs in any root filesystem). x86_64. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void forever(void)
{
        for (;;)
                pause();
}

static void wait_go(void)
{
        struct stat st;
        while (stat("/tmp/go", &st) < 0)
                usleep(20000);
}

/* A filter on the calling thread: seccomp() -> ret, anything else allowed. */
static int load(uint32_t ret, unsigned flags)
{
        struct sock_filter f[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, ret),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog p = { .len = 4, .filter = f };
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return -1;
        return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &p);
}

static int listener_fd = -1;
static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *filtered(void *arg)
{
        (void)arg;
        int fd = load(SECCOMP_RET_USER_NOTIF, SECCOMP_FILTER_FLAG_NEW_LISTENER);
        pthread_mutex_lock(&lk);
        listener_fd = fd < 0 ? -2 : fd;
        pthread_cond_signal(&cv);
        pthread_mutex_unlock(&lk);
        forever();
        return NULL;
}

/* Answers every notification: the call goes on. */
static void serve(int fd)
{
        struct seccomp_notif req;
        struct seccomp_notif_resp resp;
        for (;;) {
                memset(&req, 0, sizeof(req));
                if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
                        continue;
                memset(&resp, 0, sizeof(resp));
                resp.id = req.id;
                resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
                (void)ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
        }
}

static int uring(void)
{
        struct io_uring_params p;
        memset(&p, 0, sizeof(p));
        int fd = (int)syscall(SYS_io_uring_setup, 4, &p);
        if (fd < 0) {
                printf("hostile ERROR io_uring_setup errno=%d\n", errno);
                return 1;
        }
        size_t sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
        size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
        char *sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
        char *cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_CQ_RING);
        struct io_uring_sqe *sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
                                         MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
        if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
                printf("hostile ERROR io_uring mmap errno=%d\n", errno);
                return 1;
        }
        printf("hostile uring ready\n");
        fflush(stdout);
        wait_go();
        unsigned *tail = (unsigned *)(sq + p.sq_off.tail), *array = (unsigned *)(sq + p.sq_off.array);
        unsigned idx = *tail & *(unsigned *)(sq + p.sq_off.ring_mask);
        memset(&sqes[idx], 0, sizeof(sqes[idx]));
        sqes[idx].opcode = IORING_OP_MKDIRAT;
        sqes[idx].fd = AT_FDCWD;
        sqes[idx].addr = (uint64_t)(uintptr_t) "/tmp/d.uring";
        sqes[idx].len = 0755;
        array[idx] = idx;
        __atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
        long n = syscall(SYS_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
        if (n < 0) {
                printf("hostile uring-mkdirat enter-errno=%d\n", errno);
        } else {
                unsigned head = *(unsigned *)(cq + p.cq_off.head);
                struct io_uring_cqe *cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
                printf("hostile uring-mkdirat res=%d\n", cqes[head & *(unsigned *)(cq + p.cq_off.ring_mask)].res);
        }
        memset(&p, 0, sizeof(p));
        int again = (int)syscall(SYS_io_uring_setup, 4, &p);
        printf("hostile uring-setup errno=%d\n", again < 0 ? errno : 0);
        fflush(stdout);
        forever();
        return 0;
}

int main(int argc, char **argv)
{
        setvbuf(stdout, NULL, _IOLBF, 0);
        const char *mode = argc > 1 ? argv[1] : "sleep";
        if (strcmp(mode, "sleep") == 0) {
                forever();
        } else if (strcmp(mode, "selftrace") == 0) {
                pid_t c = fork();
                if (c == 0)
                        forever();
                if (ptrace(PTRACE_SEIZE, c, NULL, NULL) < 0) {
                        printf("hostile ERROR PTRACE_SEIZE errno=%d\n", errno);
                        return 1;
                }
                printf("hostile traces %d\n", (int)c);
                forever();
        } else if (strcmp(mode, "names") == 0) {
                (void)prctl(PR_SET_NAME, "runsc-sandbox", 0, 0, 0);
                pid_t c = fork();
                if (c == 0) {
                        execl("/bin/runsc", "runsc-gofer", "sleep", (char *)NULL);
                        _exit(127);
                }
                forever();
        } else if (strcmp(mode, "listener") == 0) {
                pthread_t t;
                pthread_create(&t, NULL, filtered, NULL);
                pthread_mutex_lock(&lk);
                while (listener_fd == -1)
                        pthread_cond_wait(&cv, &lk);
                pthread_mutex_unlock(&lk);
                if (listener_fd < 0) {
                        printf("hostile ERROR listener errno=%d\n", errno);
                        return 1;
                }
                printf("hostile listener ready\n");
                serve(listener_fd);
        } else if (strcmp(mode, "ctrl") == 0) {
                (void)prctl(PR_SET_NAME, "\x1b[2J\nforged\x07", 0, 0, 0);
                forever();
        } else if (strcmp(mode, "vfork") == 0) {
                /* The child shares the parent's memory: raw calls only. */
                pid_t c = vfork();
                if (c == 0) {
                        for (;;)
                                (void)syscall(SYS_pause);
                }
                forever();
        } else if (strcmp(mode, "masked") == 0) {
                sigset_t all;
                sigfillset(&all);
                sigprocmask(SIG_BLOCK, &all, NULL);
                wait_go();
                int r = mkdir("/tmp/d.masked", 0755);
                sigset_t now;
                sigprocmask(SIG_BLOCK, NULL, &now);
                printf("hostile mkdir errno=%d mask=%s\n", r < 0 ? errno : 0,
                       sigismember(&now, SIGTERM) && sigismember(&now, SIGUSR1) ? "all" : "changed");
                forever();
        } else if (strcmp(mode, "killseccomp") == 0) {
                if (load(SECCOMP_RET_KILL_PROCESS, SECCOMP_FILTER_FLAG_TSYNC) < 0) {
                        printf("hostile ERROR filter errno=%d\n", errno);
                        return 1;
                }
                printf("hostile kills on seccomp\n");
                forever();
        } else if (strcmp(mode, "uring") == 0) {
                return uring();
        } else if (strcmp(mode, "stall") == 0) {
                if (load(SECCOMP_RET_USER_NOTIF, SECCOMP_FILTER_FLAG_NEW_LISTENER) < 0) {
                        printf("hostile ERROR listener errno=%d\n", errno);
                        return 1;
                }
                printf("hostile stall ready\n");
                unsigned char c;
                while (read(0, &c, 1) == 1) {
                        c++;
                        if (write(1, &c, 1) != 1)
                                return 1;
                }
                return 0;
        }
        printf("hostile ERROR unknown mode %s\n", mode);
        return 2;
}
