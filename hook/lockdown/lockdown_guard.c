/* lockdown: what makes a run all or nothing whatever the workload does.
 * A listener served inside the container is found before anything is
 * frozen (the injected seccomp() would wait on a task we hold stopped), and
 * the container is killed by descriptor and namespace, never by a pid that
 * may have been reused (the watchdog, lockdown_watchdog.c, covers lockdown's
 * own death). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lockdown/lockdown.h"
#include "shared/cleanup.h"
#include "status/status.h"

int tsync_lockdown_listener_fd(pid_t pid, int *ret_fd)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
        _cleanup_closedir_ DIR *d = opendir(path);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        struct dirent *e;
        while ((e = readdir(d))) {
                if (e->d_name[0] == '.')
                        continue;
                char link[384], target[64];
                (void)snprintf(link, sizeof(link), "%s/%s", path, e->d_name);
                ssize_t n = readlink(link, target, sizeof(target) - 1);
                if (n <= 0)
                        continue;
                target[n] = '\0';
                /* The kernel names a listener's anonymous inode "seccomp notify". */
                if (strstr(target, "seccomp notify")) {
                        *ret_fd = atoi(e->d_name);
                        return 1;
                }
        }
        return 0;
}

static int pidfd_open_(pid_t pid)
{
        return (int)syscall(SYS_pidfd_open, pid, 0);
}

static int pidfd_kill(int pidfd)
{
        return syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) < 0 ? -errno : 0;
}

/* Kills p when it is still in the namespace ns (a pid read earlier may
 * belong to another process by now). */
static void kill_in_ns(pid_t p, const struct stat *ns)
{
        _cleanup_close_ int fd = pidfd_open_(p);
        if (fd < 0)
                return;
        char path[64];
        struct stat st;
        (void)snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)p);
        if (stat(path, &st) < 0 || st.st_dev != ns->st_dev || st.st_ino != ns->st_ino)
                return;
        (void)pidfd_kill(fd);
}

void tsync_lockdown_kill_now(int pidfd, pid_t pid, const struct tsync_status *st)
{
        char path[64];
        struct stat ns;
        (void)snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
        bool have_ns = syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0 && stat(path, &ns) == 0;
        (void)pidfd_kill(pidfd);
        if (have_ns && st)
                for (size_t i = 0; i < st->n; i++)
                        if (st->tasks[i].pid == st->tasks[i].tid)
                                kill_in_ns(st->tasks[i].pid, &ns);
}

int tsync_lockdown_kill(int pidfd, pid_t pid, const struct tsync_status *st, struct tsync_err *err)
{
        /* The process named is still the one resolved: its pidfd says so. */
        if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0)
                return errno == ESRCH ? 0 : tsync_error_errno(err, "pid %d", (int)pid);
        char path[64];
        struct stat ns;
        (void)snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
        if (stat(path, &ns) < 0)
                return tsync_error_errno(err, "%s", path);
        /* Frozen first where the cgroup is the container's own: nothing
         * forks past the kill. */
        _cleanup_free_ pid_t *pids = calloc(st && st->n ? st->n : 1, sizeof(*pids));
        size_t n = 0;
        if (pids && st)
                for (size_t i = 0; i < st->n; i++)
                        pids[n++] = st->tasks[i].pid;
        struct tsync_lockdown_cgroup cg = { .watchdog = -1 };
        struct tsync_err e = { 0 };
        bool own = pids && tsync_lockdown_cgroup_find(pid, pids, n, &cg, &e) == 0 &&
                   tsync_lockdown_cgroup_frozen(&cg) == 0 && tsync_lockdown_freeze(&cg, &e) == 0;
        if (own) {
                _cleanup_free_ pid_t *tids = NULL;
                size_t nt = 0;
                if (tsync_lockdown_cgroup_tids(&cg, &tids, &nt) == 0)
                        for (size_t i = 0; i < nt; i++)
                                kill_in_ns(tids[i], &ns);
        }
        (void)pidfd_kill(pidfd); /* PID 1 of its namespace: the kernel kills the rest */
        if (st)
                for (size_t i = 0; i < st->n; i++)
                        if (st->tasks[i].pid == st->tasks[i].tid)
                                kill_in_ns(st->tasks[i].pid, &ns);
        if (own)
                (void)tsync_lockdown_thaw(&cg, &e);
        struct pollfd p = { .fd = pidfd, .events = POLLIN };
        int r = poll(&p, 1, 5000);
        if (r <= 0)
                return tsync_error(err, ETIMEDOUT, "pid %d: still running 5 s after SIGKILL", (int)pid);
        return 0;
}
