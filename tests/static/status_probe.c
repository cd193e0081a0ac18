/* status_probe: a hostile workload against `oci-seccomp-tsync status`
 * (tests/integration/test_hostile.sh, "status against a hostile PID 1").
 * Each mode plays one attack, says "door=MODE ready" once it is in place,
 * then waits to be judged (killed by the test). It knows none of status's
 * code: only what a workload can do.
 *
 *   forge PATH [ARG...]   copy itself to PATH (a file the container may
 *                         write, e.g. /.oci-seccomp-tsync/init) and exec it
 *                         with argv ARG... (a forged command line; "@BIG"
 *                         stands for 2 MiB of 'x'), then wait
 *   dummy N               load N seccomp filters that allow everything
 *   comm TEXT             name itself TEXT (control bytes and all)
 *   vfork                 vfork a child that waits for ever: the parent is
 *                         in vfork until then
 *   uring                 hold an io_uring ring
 *   memfd                 exec a copy of itself from a memfd named like
 *                         runc's own copy, then wait
 *   traced                fork a child and trace it (the child waits)
 *   churn                 start short-lived children without end
 *   stop                  stop itself (SIGSTOP) once ready
 *   zmain                 end its main thread (pthread_exit), a second
 *                         thread waiting on: a process that looks dead
 *   plant LINK TARGET     rename the directory LINK's parent is in away
 *                         when it holds our files, and put a symbolic link
 *                         LINK -> TARGET in its place (issue 35, 6) */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

static void wait_forever(void)
{
        for (;;)
                (void)pause();
}

static int copy_self(const char *path, int mode)
{
        int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        if (in < 0 || out < 0)
                return -1;
        char buf[65536];
        ssize_t n;
        while ((n = read(in, buf, sizeof(buf))) > 0)
                if (write(out, buf, (size_t)n) != n)
                        return -1;
        (void)close(in);
        return close(out);
}

/* mkdir -p of path's parent */
static void parents(const char *path)
{
        char dir[4096];
        (void)snprintf(dir, sizeof(dir), "%s", path);
        for (char *p = dir + 1; *p; p++)
                if (*p == '/') {
                        *p = '\0';
                        (void)mkdir(dir, 0755);
                        *p = '/';
                }
}

static int cmd_forge(int argc, char **argv)
{
        const char *path = argv[1];
        parents(path);
        if (copy_self(path, 0755) < 0) {
                say("door=forge copy=%s errno:%d", path, errno);
                return 1;
        }
        char **args = calloc((size_t)argc + 1, sizeof(*args));
        for (int i = 2; i < argc; i++) {
                if (strcmp(argv[i], "@BIG") == 0) {
                        /* An argument may hold 128 KiB at most. */
                        size_t n = 100000;
                        args[i - 2] = malloc(n + 1);
                        memset(args[i - 2], 'x', n);
                        args[i - 2][n] = '\0';
                } else {
                        args[i - 2] = argv[i];
                }
        }
        (void)setenv("STATUS_PROBE_FORGED", "1", 1);
        execv(path, args);
        say("door=forge exec=%s errno:%d", path, errno);
        return 1;
}

static int cmd_dummy(int n)
{
        struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
        struct sock_fprog prog = { .len = 1, .filter = allow };
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return 1;
        for (int i = 0; i < n; i++)
                if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
                        say("door=dummy load errno:%d", errno);
                        return 1;
                }
        return 0;
}

static int cmd_uring(void)
{
        struct io_uring_params p = { 0 };
        long fd = syscall(SYS_io_uring_setup, 8, &p);
        if (fd < 0) {
                say("door=uring setup errno:%d", errno);
                return 1;
        }
        return 0;
}

static int cmd_memfd(char **argv)
{
        if (getenv("STATUS_PROBE_MEMFD"))
                return 0;
        int fd = (int)syscall(SYS_memfd_create, "runc_cloned:/proc/self/exe", 0);
        int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        char buf[65536];
        ssize_t n;
        while (fd >= 0 && in >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
                if (write(fd, buf, (size_t)n) != n)
                        return 1;
        (void)setenv("STATUS_PROBE_MEMFD", "1", 1);
        char *const args[] = { argv[0], (char *)"memfd", NULL };
        (void)syscall(SYS_execveat, fd, "", args, environ, AT_EMPTY_PATH);
        say("door=memfd exec errno:%d", errno);
        return 1;
}

static void *zmain_thread(void *arg)
{
        (void)arg;
        (void)usleep(200000); /* the main thread is gone by then */
        say("door=zmain ready");
        wait_forever();
        return NULL;
}

static int cmd_plant(const char *link, const char *target)
{
        char dir[4096], away[4200];
        (void)snprintf(dir, sizeof(dir), "%s", link);
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
                return 1;
        *slash = '\0';
        /* The directory our files are in: renamed away, a directory of the
         * workload's in its place (refused where it is a mount point). */
        char *parent = strrchr(dir, '/');
        if (parent && parent != dir) {
                *parent = '\0';
                (void)snprintf(away, sizeof(away), "%s.away", dir);
                int r = rename(dir, away);
                say("door=plant rename=%s %s", dir, r == 0 ? "ok" : strerror(errno));
                *parent = '/';
        }
        parents(link);
        (void)unlink(link);
        int r = symlink(target, link);
        say("door=plant link=%s %s", link, r == 0 ? "ok" : strerror(errno));
        return 0;
}

int main(int argc, char **argv)
{
        if (getenv("STATUS_PROBE_FORGED")) {
                say("door=forge ready");
                wait_forever();
        }
        if (argc < 2) {
                fprintf(stderr, "usage: status_probe MODE [ARG...]\n");
                return 2;
        }
        const char *mode = argv[1];
        int r = 0;
        if (strcmp(mode, "forge") == 0 && argc >= 3) {
                return cmd_forge(argc - 1, argv + 1);
        } else if (strcmp(mode, "dummy") == 0 && argc == 3) {
                r = cmd_dummy(atoi(argv[2]));
        } else if (strcmp(mode, "comm") == 0 && argc == 3) {
                r = prctl(PR_SET_NAME, argv[2], 0, 0, 0);
        } else if (strcmp(mode, "vfork") == 0) {
                say("door=vfork ready");
                pid_t pid = vfork();
                if (pid == 0) {
                        struct timespec ts = { .tv_sec = 100000 };
                        for (;;)
                                (void)syscall(SYS_nanosleep, &ts, NULL);
                }
                wait_forever();
        } else if (strcmp(mode, "uring") == 0) {
                r = cmd_uring();
        } else if (strcmp(mode, "memfd") == 0) {
                r = cmd_memfd(argv);
        } else if (strcmp(mode, "traced") == 0) {
                pid_t child = fork();
                if (child == 0)
                        wait_forever();
                if (ptrace(PTRACE_SEIZE, child, NULL, NULL) < 0) {
                        say("door=traced seize errno:%d", errno);
                        return 1;
                }
        } else if (strcmp(mode, "churn") == 0) {
                say("door=churn ready");
                for (;;) {
                        pid_t c = fork();
                        if (c == 0)
                                _exit(0);
                        if (c > 0)
                                (void)waitpid(c, NULL, 0);
                }
        } else if (strcmp(mode, "stop") == 0) {
                say("door=stop ready");
                (void)raise(SIGSTOP);
                wait_forever();
        } else if (strcmp(mode, "zmain") == 0) {
                pthread_t t;
                if (pthread_create(&t, NULL, zmain_thread, NULL) != 0)
                        return 1;
                pthread_exit(NULL);
        } else if (strcmp(mode, "plant") == 0 && argc == 4) {
                r = cmd_plant(argv[2], argv[3]);
        } else {
                fprintf(stderr, "status_probe: bad mode or arguments\n");
                return 2;
        }
        if (r != 0)
                return 1;
        say("door=%s ready", mode);
        wait_forever();
}
