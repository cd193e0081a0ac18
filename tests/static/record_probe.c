/* A workload for the recording's tests (issue 13). Static (it runs in a
 * busybox root filesystem too). Each call below is made in one place only,
 * so that a recording showing it proves that place was recorded:
 *   sysinfo (x86-64: 99)    only by a second thread of this process
 *   times (x86-64: 100)     only by a grandchild (a child's child)
 *   getpid with x32's number (x86-64: __X32_SYSCALL_BIT | 39), only in a
 *                           child, whether or not the kernel runs x32 (ENOSYS
 *                           then; a filter without x32 kills it): x32=...
 *   system call 1500 (no such call: ENOSYS), twice, by the main thread:
 *                           a number past the recorder's bit table
 *   getpid through int 0x80 (i386: 20), only in a child, only where the
 *                           kernel offers IA-32 emulation (found out by a
 *                           first child whose int 0x80 either answers or
 *                           dies): int80=yes, or int80=no and the reason
 * It prints one line per part (thread=ok grandchild=ok int80=yes|no ...) and
 * exits with STATUS (default 0); with "kill" as the last argument it ends
 * with SIGKILL instead, after everything above.
 *   record_probe [STATUS] [kill]
 *   record_probe loop N CALL    N calls of CALL (getppid) for tests/bench:
 *                               loop n=N ns_per_call=T */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void say(const char *line)
{
        /* One write per line: no stdio buffer to lose to SIGKILL. */
        (void)write(STDOUT_FILENO, line, strlen(line));
}

static void *thread_main(void *arg)
{
        (void)arg;
        (void)syscall(SYS_sysinfo, NULL);
        return NULL;
}

/* A child runs fn and exits with its result; the child's status. */
static int in_child(int (*fn)(void))
{
        pid_t pid = fork();
        if (pid < 0)
                return -1;
        if (pid == 0)
                _exit(fn());
        int st;
        if (waitpid(pid, &st, 0) != pid)
                return -1;
        return st;
}

static int grandchild(void)
{
        (void)syscall(SYS_times, NULL);
        return 0;
}

static int child(void)
{
        int st = in_child(grandchild);
        return st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

#if defined(__x86_64__)
#define I386_GETPID 20
static int int80_getpid(void)
{
        long ret;
        /* The kernel clears r8-r11 on the way back from int 0x80. */
        __asm__ volatile("int $0x80" : "=a"(ret) : "a"(I386_GETPID) : "r8", "r9", "r10", "r11", "memory");
        return ret == getpid() ? 0 : 1;
}
#endif

static int x32_getpid(void)
{
#if defined(__x86_64__)
        return syscall(0x40000000L | SYS_getpid) == getpid() ? 0 : 1;
#else
        return 2;
#endif
}

static void x32(void)
{
        int st = in_child(x32_getpid);
        if (st >= 0 && WIFEXITED(st))
                say(WEXITSTATUS(st) == 0 ? "x32=ran\n" : WEXITSTATUS(st) == 1 ? "x32=refused\n" : "x32=no\n");
        else if (st >= 0 && WIFSIGNALED(st))
                say("x32=killed\n");
        else
                say("x32=failed\n");
}

static void int80(void)
{
#if defined(__x86_64__)
        int st = in_child(int80_getpid);
        if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
                say("int80=yes\n");
        else if (st >= 0 && WIFSIGNALED(st))
                say("int80=no (int 0x80 killed the child: no IA-32 emulation)\n");
        else
                say("int80=no (int 0x80 did not give the pid)\n");
#else
        say("int80=no (not x86-64)\n");
#endif
}

static int loop(long n)
{
        struct timespec a, b;
        (void)clock_gettime(CLOCK_MONOTONIC, &a);
        for (long i = 0; i < n; i++)
                (void)syscall(SYS_getppid);
        (void)clock_gettime(CLOCK_MONOTONIC, &b);
        double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
        printf("loop n=%ld ns_per_call=%.0f\n", n, n > 0 ? ns / (double)n : 0.0);
        return 0;
}

int main(int argc, char **argv)
{
        int status = 0;
        bool kill_self = false;

        if (argc == 4 && strcmp(argv[1], "loop") == 0 && strcmp(argv[3], "getppid") == 0)
                return loop(atol(argv[2]));
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "kill") == 0)
                        kill_self = true;
                else
                        status = atoi(argv[i]);
        }
        pthread_t t;
        if (pthread_create(&t, NULL, thread_main, NULL) != 0 || pthread_join(t, NULL) != 0) {
                say("thread=failed\n");
                return 2;
        }
        say("thread=ok\n");
        int st = in_child(child);
        say(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "grandchild=ok\n" : "grandchild=failed\n");
        x32();
        int80();
        (void)syscall(1500);
        (void)syscall(1500);
        if (kill_self) {
                say("kill\n");
                (void)raise(SIGKILL);
        }
        return status;
}
