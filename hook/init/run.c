/* Running the workload: the path is found before the first filter (as runc
 * does with exec.LookPath), so that after it only clone, execve and wait4
 * remain. In supervise mode the init stays PID 1 (or a subreaper), reaps
 * every child the kernel gives it and exits with the workload's status. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init.h"

/* runc's default when the config sets no PATH. */
#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* 0 if path is an executable regular file, else a positive errno. */
static int executable(const char *path)
{
        struct stat st;

        /* newfstatat, as glibc's stat makes it (musl's makes stat on x86-64). */
        if (syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) < 0)
                return errno;
        if (S_ISDIR(st.st_mode))
                return EISDIR;
        if (!S_ISREG(st.st_mode))
                return EACCES;
        if (faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) < 0)
                return errno;
        return 0;
}

/* The exit code for a command execve refuses with e: 127 when it is not there. */
static int not_runnable_code(int e)
{
        return e == ENOENT || e == ENOTDIR ? INIT_EXIT_NOT_FOUND : INIT_EXIT_CANNOT_EXEC;
}

static int not_runnable(const char *cmd, int e)
{
        if (not_runnable_code(e) == INIT_EXIT_NOT_FOUND)
                init_log(cmd, "not found");
        else
                init_log(cmd, "cannot be executed: %s", init_strerror(e));
        return not_runnable_code(e);
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
        if (init_sigmask_unblock() < 0)
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

/* What the workload's child and the init share while the child runs in the
 * init's memory (CLONE_VM): the child writes only here and on its own stack. */
enum spawn_step {
        SPAWN_OK,
        SPAWN_PGROUP,  /* setpgid */
        SPAWN_UNBLOCK, /* sigprocmask */
        SPAWN_EXEC,    /* execve */
};
struct spawn {
        const char *path;
        char **argv;
        bool pgroup;
        bool tty;
        enum spawn_step failed;
        int err;   /* its errno */
        pid_t pid; /* the child's, written by the kernel before it runs (CLONE_PARENT_SETTID) */
};

/* The child until its execve: the init's thread that started it is suspended
 * (CLONE_VFORK) and the signal thread touches nothing of this, so plain calls
 * are safe; no heap, no stdio, and the messages are the parent's to print. */
static int spawn_child(void *arg)
{
        struct spawn *sp = arg;
        sigset_t none;

        if (sp->pgroup) {
                /* Without its own group the forwarding would miss it. */
                if (setpgid(0, 0) < 0) {
                        sp->failed = SPAWN_PGROUP;
                        sp->err = errno;
                        _exit(INIT_EXIT_CANNOT_EXEC);
                }
                /* Still with every signal blocked, so no SIGTTOU stops us here. */
                if (sp->tty)
                        (void)tcsetpgrp(STDIN_FILENO, sp->pid);
        }
        (void)sigemptyset(&none);
        if (sigprocmask(SIG_SETMASK, &none, NULL) < 0) {
                sp->failed = SPAWN_UNBLOCK;
                sp->err = errno;
                _exit(INIT_EXIT_CANNOT_EXEC);
        }
        /* Exec once: the supervisor lets exactly this pid's execve through.
         * The parent is suspended until the execve is done, so the child says
         * who it is itself. */
        init_execonce_workload(sp->pid);
        /* Recording: from here on this process's calls are the workload's
         * (a store, no call: the child's calls wait for the recorder). */
        init_record_workload(sp->pid);
        execve(sp->path, sp->argv, environ);
        sp->failed = SPAWN_EXEC;
        sp->err = errno;
        _exit(not_runnable_code(sp->err));
}

/* Starts the workload with clone(CLONE_VM | CLONE_VFORK), as posix_spawn
 * does, rather than fork: nothing of the init's memory is copied or
 * write-protected for a child that only execs, which in a process with two
 * threads also spares a TLB shootdown (about 0.8 ms of a start here; see
 * tests/bench/bench_init_start.sh). The public clone() makes the clone system
 * call, never clone3, so the route's table (shared/init_calls.h) names it with
 * these flags. When it returns the child has exec'd or exited. */
static pid_t spawn(struct spawn *sp)
{
        /* The child's stack: this thread's own, unused while it is suspended. */
        _Alignas(16) char stack[64 * 1024];

        return clone(spawn_child, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | CLONE_PARENT_SETTID | SIGCHLD, sp,
                     &sp->pid);
}

int init_supervise(const char *path, char **argv, bool pgroup, bool tty)
{
        struct spawn sp = { .path = path, .argv = argv, .pgroup = pgroup, .tty = tty };
        pid_t pid = spawn(&sp);

        /* Exec once: no child at all is -1, so the supervisor stops waiting. */
        init_execonce_workload(pid);
        if (pid < 0) {
                init_log(path, "cannot start it: clone: %s", init_strerror(errno));
                return INIT_EXIT_CANNOT_EXEC;
        }
        switch (sp.failed) {
        case SPAWN_OK:
                break;
        case SPAWN_PGROUP:
                init_log(path, "cannot start it in its own process group: %s", init_strerror(sp.err));
                break;
        case SPAWN_UNBLOCK:
                init_log("signals", "cannot unblock signals for the workload: %s", init_strerror(sp.err));
                break;
        case SPAWN_EXEC:
                (void)not_runnable(path, sp.err);
                break;
        }
        /* The child has exited then: the loop below reaps it and returns its code. */
        /* The group exists already: the child made it before its execve. */
        init_signals_workload(pid);

        /* From here on: no exit but the workload's. Every child the kernel
         * hands us (orphans, as PID 1 or subreaper) is reaped on the way. */
        for (;;) {
                int st;
                pid_t r = wait4(-1, &st, __WALL, NULL);
                if (r == pid) {
                        init_signals_workload(-1);
                        /* The supervisor or recorder killed it and exits 1:
                         * the same code here, not the workload's 137. */
                        if (init_execonce_gave_up() || init_record_gave_up())
                                return 1;
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
