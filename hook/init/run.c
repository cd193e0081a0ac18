/* Running the workload: the path is found before the first filter (as runc
 * does with exec.LookPath), so that after it only clone, execve and wait4
 * remain. In supervise mode the init stays PID 1 (or a subreaper), reaps
 * every child the kernel gives it and exits with the workload's status. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init.h"

/* runc's default when the config sets no PATH. */
#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* 0 if path is an executable regular file, else a positive errno. */
static int executable(const char *path)
{
        struct stat st;

        if (stat(path, &st) < 0)
                return errno;
        if (S_ISDIR(st.st_mode))
                return EISDIR;
        if (!S_ISREG(st.st_mode))
                return EACCES;
        if (faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) < 0)
                return errno;
        return 0;
}

static int not_runnable(const char *cmd, int e)
{
        if (e == ENOENT || e == ENOTDIR) {
                init_log(cmd, "not found");
                return INIT_EXIT_NOT_FOUND;
        }
        init_log(cmd, "cannot be executed: %s", init_strerror(e));
        return INIT_EXIT_CANNOT_EXEC;
}

int init_resolve(const char *cmd, char *ret_path, size_t size)
{
        int e;

        if (strchr(cmd, '/')) {
                e = executable(cmd);
                if (e)
                        return not_runnable(cmd, e);
                if (strlen(cmd) >= size)
                        return not_runnable(cmd, ENAMETOOLONG);
                memcpy(ret_path, cmd, strlen(cmd) + 1);
                return 0;
        }
        const char *path = getenv("PATH");
        if (!path || !*path)
                path = DEFAULT_PATH;
        int seen = ENOENT;
        for (const char *p = path;;) {
                size_t len = strcspn(p, ":");
                /* An empty entry is the current directory, as for execvp. */
                int n = len ? snprintf(ret_path, size, "%.*s/%s", (int)len, p, cmd)
                            : snprintf(ret_path, size, "%s", cmd);
                if (n > 0 && (size_t)n < size) {
                        e = executable(ret_path);
                        if (e == 0)
                                return 0;
                        /* execvp's rule: remember a file we may not run, keep looking. */
                        if (e != ENOENT && e != ENOTDIR && e != ELOOP && e != ENAMETOOLONG)
                                seen = e;
                }
                if (p[len] == '\0')
                        break;
                p += len + 1;
        }
        return not_runnable(cmd, seen);
}

int init_exec(const char *path, char **argv)
{
        if (init_signals_unblock() < 0)
                return INIT_EXIT_CANNOT_EXEC;
        execve(path, argv, environ);
        return not_runnable(path, errno);
}

static int status_code(int st)
{
        if (WIFEXITED(st))
                return WEXITSTATUS(st);
        if (WIFSIGNALED(st))
                return 128 + WTERMSIG(st);
        return 1;
}

int init_supervise(const char *path, char **argv, bool pgroup, bool tty)
{
        pid_t pid = fork();

        /* Exec once: the supervisor lets exactly this pid's execve through. */
        if (pid != 0)
                init_execonce_workload(pid);
        if (pid < 0) {
                init_log(path, "cannot start it: fork: %s", init_strerror(errno));
                return INIT_EXIT_CANNOT_EXEC;
        }
        if (pid == 0) {
                if (pgroup) {
                        /* Without its own group the forwarding would miss it. */
                        if (setpgid(0, 0) < 0) {
                                init_log(path, "cannot start it in its own process group: %s", init_strerror(errno));
                                _exit(INIT_EXIT_CANNOT_EXEC);
                        }
                        /* Still with every signal blocked, so no SIGTTOU stops us here. */
                        if (tty)
                                (void)tcsetpgrp(STDIN_FILENO, getpid());
                }
                if (init_signals_unblock() < 0)
                        _exit(INIT_EXIT_CANNOT_EXEC);
                execve(path, argv, environ);
                _exit(not_runnable(path, errno));
        }
        /* Both sides set the group, so that it exists before the first forward. */
        if (pgroup)
                (void)setpgid(pid, pid);
        init_signals_workload(pid);

        /* From here on: no exit but the workload's. Every child the kernel
         * hands us (orphans, as PID 1 or subreaper) is reaped on the way. */
        for (;;) {
                int st;
                pid_t r = wait4(-1, &st, __WALL, NULL);
                if (r == pid) {
                        init_signals_workload(-1);
                        return status_code(st);
                }
                if (r < 0 && errno != EINTR) {
                        /* ECHILD cannot happen (SIGCHLD is not ignored); anything
                         * else is a profile that denies wait4. Spinning or hanging
                         * would hide it: say so, take the workload down, exit 1. */
                        init_log(path,
                                 "cannot wait for the workload (pid %d): wait4: %s (the profile must allow wait4)",
                                 (int)pid, init_strerror(errno));
                        (void)kill(pid, SIGKILL);
                        return 1;
                }
        }
}
