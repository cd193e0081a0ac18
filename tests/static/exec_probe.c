/* A workload that tries to exec, for test_exec_once.sh. Static (it runs in a
 * busybox root filesystem). Every attempt runs PROG (with the single argument
 * "exec_probe-ran") in a child and prints one line of key=value words:
 * exec=ran (PROG ran and exited 0), exec=errno:N (the exec failed with N),
 * exec=signal:N, or exec=status:N.
 *   exec_probe threads N PROG    N threads, each forks a child that execs PROG
 *   exec_probe grandchild PROG   a child forks a grandchild that execs PROG
 *   exec_probe execveat PROG     a child execs PROG through execveat(AT_FDCWD)
 *   exec_probe int80 PROG        x86-64 only: a child execs PROG through
 *                                int 0x80 (i386's execve, 11), after checking
 *                                that int 0x80 is offered at all (its getpid
 *                                returns our pid): offered=yes|no
 *   exec_probe self PROG         this process itself execs PROG (no fork)
 *   exec_probe loop N PROG       this process execs PROG N times, each expected
 *                                to fail (for tests/bench): loop n=N
 *                                ns_per_call=T errno=E (the last errno)
 * Exits 0 unless the probe itself cannot run. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

/* A failed exec exits with this plus its errno. */
#define FAILED_BASE 100

static const char *prog;

static void outcome(int st, char *buf, size_t size)
{
        if (WIFSIGNALED(st))
                (void)snprintf(buf, size, "signal:%d", WTERMSIG(st));
        else if (WEXITSTATUS(st) == 0)
                (void)snprintf(buf, size, "ran");
        else if (WEXITSTATUS(st) > FAILED_BASE)
                (void)snprintf(buf, size, "errno:%d", WEXITSTATUS(st) - FAILED_BASE);
        else
                (void)snprintf(buf, size, "status:%d", WEXITSTATUS(st));
}

static _Noreturn void do_exec(void)
{
        char *argv[] = { (char *)prog, "exec_probe-ran", NULL };
        execve(prog, argv, environ);
        _exit(FAILED_BASE + (errno < 100 ? errno : 99));
}

/* fn in a child; the child's fate into buf. */
static int in_child(void (*fn)(void), char *buf, size_t size)
{
        pid_t pid = fork();
        if (pid < 0)
                return -1;
        if (pid == 0) {
                fn();
                _exit(99);
        }
        int st;
        if (waitpid(pid, &st, 0) != pid)
                return -1;
        outcome(st, buf, size);
        return 0;
}

static void *thread_main(void *arg)
{
        char got[32];
        if (in_child((void (*)(void))do_exec, got, sizeof(got)) < 0)
                (void)snprintf(got, sizeof(got), "probe-error");
        say("thread=%ld exec=%s", (long)(intptr_t)arg, got);
        return NULL;
}

static int cmd_threads(int n)
{
        pthread_t t[64];
        if (n < 1 || n > 64)
                return 2;
        for (int i = 0; i < n; i++)
                if (pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)i) != 0)
                        return 2;
        for (int i = 0; i < n; i++)
                (void)pthread_join(t[i], NULL);
        return 0;
}

static void grandchild(void)
{
        char got[32];
        if (in_child((void (*)(void))do_exec, got, sizeof(got)) < 0)
                _exit(98);
        say("grandchild exec=%s", got);
        _exit(0);
}

static void via_execveat(void)
{
        char *argv[] = { (char *)prog, "exec_probe-ran", NULL };
        (void)syscall(SYS_execveat, AT_FDCWD, prog, argv, environ, 0);
        _exit(FAILED_BASE + (errno < 100 ? errno : 99));
}

#if defined(__x86_64__)
#define I386_EXECVE 11
#define I386_GETPID 20
static void int80_getpid(void)
{
        _exit(probe_int80(I386_GETPID, 0, 0, 0) == getpid() ? 0 : 1);
}

static void int80_execve(void)
{
        /* int 0x80 passes 32-bit pointers: path, argv and envp live below 4 GiB. */
        char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
        if (low == MAP_FAILED)
                _exit(97);
        uint32_t *vec = (uint32_t *)(void *)low;
        char *path = low + 64, *arg = low + 2048;
        (void)snprintf(path, 1024, "%s", prog);
        (void)snprintf(arg, 64, "exec_probe-ran");
        vec[0] = (uint32_t)(uintptr_t)path;
        vec[1] = (uint32_t)(uintptr_t)arg;
        vec[2] = 0; /* end of argv */
        vec[3] = 0; /* envp: empty */
        long r = probe_int80(I386_EXECVE, (long)(uintptr_t)path, (long)(uintptr_t)vec, (long)(uintptr_t)&vec[3]);
        _exit(r < 0 && r > -100 ? FAILED_BASE + (int)-r : 99);
}

static int cmd_int80(void)
{
        char offered[32], got[32];
        if (in_child(int80_getpid, offered, sizeof(offered)) < 0)
                return 2;
        if (strcmp(offered, "ran") != 0) {
                say("int80 offered=no (%s)", offered);
                return 0;
        }
        if (in_child(int80_execve, got, sizeof(got)) < 0)
                return 2;
        say("int80 offered=yes exec=%s", got);
        return 0;
}
#else
static int cmd_int80(void)
{
        say("int80 offered=no (not x86-64)");
        return 0;
}
#endif

int main(int argc, char **argv)
{
        char got[32];

        if (argc < 3)
                return 2;
        prog = argv[argc - 1];
        if (strcmp(argv[1], "threads") == 0 && argc == 4)
                return cmd_threads(atoi(argv[2]));
        if (strcmp(argv[1], "grandchild") == 0) {
                if (in_child(grandchild, got, sizeof(got)) < 0)
                        return 2;
                return 0;
        }
        if (strcmp(argv[1], "execveat") == 0) {
                if (in_child(via_execveat, got, sizeof(got)) < 0)
                        return 2;
                say("execveat exec=%s", got);
                return 0;
        }
        if (strcmp(argv[1], "int80") == 0)
                return cmd_int80();
        if (strcmp(argv[1], "loop") == 0 && argc == 4) {
                char *args[] = { (char *)prog, "exec_probe-ran", NULL };
                long n = atol(argv[2]);
                struct timespec a, b;
                int e = 0;
                (void)clock_gettime(CLOCK_MONOTONIC, &a);
                for (long i = 0; i < n; i++) {
                        execve(prog, args, environ);
                        e = errno;
                }
                (void)clock_gettime(CLOCK_MONOTONIC, &b);
                double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n;
                say("loop n=%ld ns_per_call=%.0f errno=%d", n, ns, e);
                return 0;
        }
        if (strcmp(argv[1], "self") == 0) {
                char *args[] = { (char *)prog, "exec_probe-ran", NULL };
                execve(prog, args, environ);
                say("self exec=errno:%d", errno);
                return 0;
        }
        return 2;
}
