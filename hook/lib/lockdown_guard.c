/* lockdown: what makes a run all or nothing whatever the workload does.
 * A listener served inside the container is found before anything is
 * frozen (the injected seccomp() would wait on a task we hold stopped); the
 * container is killed by descriptor and namespace, never by a pid that may
 * have been reused; and a watchdog process thaws the cgroup and puts the
 * record back if lockdown itself dies (SIGKILL) while the cgroup is frozen. */
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

#include "tsync/cleanup.h"
#include "tsync/lockdown.h"
#include "tsync/status.h"

volatile sig_atomic_t tsync_lockdown_cancelled;

static void closedirp(DIR **d)
{
        if (*d)
                (void)closedir(*d);
}

int tsync_lockdown_listener_fd(pid_t pid, int *ret_fd)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
        _cleanup_(closedirp) DIR *d = opendir(path);
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
                return errno == ESRCH ? 0 : tsync_error(err, errno, "pid %d: %s", (int)pid, strerror(errno));
        char path[64];
        struct stat ns;
        (void)snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
        if (stat(path, &ns) < 0)
                return tsync_error(err, errno, "%s: %s", path, strerror(errno));
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

/* The watchdog's messages: 'F' + the freeze file's descriptor (v2), 'f'
 * (v1) before a freeze, 'T' after the thaw, 'D' the record is lockdown's
 * (undo it if lockdown dies), 'C' the record is final. */
static int send_msg(int sock, char c, int fd)
{
        if (sock < 0)
                return 0;
        struct iovec iov = { .iov_base = &c, .iov_len = 1 };
        union {
                char buf[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
        } u;
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
        if (fd >= 0) {
                m.msg_control = u.buf;
                m.msg_controllen = sizeof(u.buf);
                struct cmsghdr *h = CMSG_FIRSTHDR(&m);
                h->cmsg_level = SOL_SOCKET;
                h->cmsg_type = SCM_RIGHTS;
                h->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(h), &fd, sizeof(int));
        }
        /* The watchdog answers each message, so that lockdown freezes only
         * once the watchdog holds the descriptor. */
        if (sendmsg(sock, &m, MSG_NOSIGNAL) != 1)
                return -errno;
        char ack;
        ssize_t n;
        do
                n = read(sock, &ack, 1);
        while (n < 0 && errno == EINTR);
        return n == 1 ? 0 : -EPIPE;
}

int tsync_lockdown_watchdog_frozen(int sock, int freeze_fd, bool v1)
{
        return send_msg(sock, v1 ? 'f' : 'F', freeze_fd);
}

int tsync_lockdown_watchdog_thawed(int sock)
{
        return send_msg(sock, 'T', -1);
}

int tsync_lockdown_watchdog_record(int sock, bool dirty)
{
        return send_msg(sock, dirty ? 'D' : 'C', -1);
}

static ssize_t recv_msg(int sock, char *c, int *fd)
{
        struct iovec iov = { .iov_base = c, .iov_len = 1 };
        union {
                char buf[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
        } u;
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
        ssize_t n;
        do
                n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        *fd = -1;
        for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
                if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS)
                        memcpy(fd, CMSG_DATA(h), sizeof(int));
        return n;
}

/* The child: one loop, then _exit. */
static void __attribute__((noreturn)) watchdog(int sock, void (*undo)(void *), void *data)
{
        int freeze = -1;
        bool v1 = false, dirty = false;
        for (;;) {
                char c;
                int fd;
                ssize_t n = recv_msg(sock, &c, &fd);
                if (n <= 0)
                        break; /* lockdown's end closed: it ended, however */
                if (c == 'F' || c == 'f') {
                        if (freeze >= 0)
                                (void)close(freeze);
                        freeze = fd;
                        v1 = c == 'f';
                } else if (fd >= 0) {
                        (void)close(fd);
                }
                if (c == 'T' && freeze >= 0) {
                        (void)close(freeze);
                        freeze = -1;
                }
                if (c == 'D' || c == 'C')
                        dirty = c == 'D';
                (void)write(sock, "k", 1);
        }
        /* Only a cgroup lockdown said it froze, by the descriptor it opened. */
        if (freeze >= 0)
                (void)write(freeze, v1 ? "THAWED" : "0", v1 ? 6 : 1);
        if (dirty && undo)
                undo(data);
        _exit(0);
}

int tsync_lockdown_watchdog_start(struct tsync_lockdown_watchdog *w, void (*undo)(void *), void *data, int keep_fd,
                                  struct tsync_err *err)
{
        int sv[2];
        w->sock = -1;
        w->pid = 0;
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
                return tsync_error(err, errno, "the watchdog's socket: %s", strerror(errno));
        pid_t p = fork();
        if (p < 0) {
                int e = errno;
                (void)close(sv[0]);
                (void)close(sv[1]);
                return tsync_error(err, e, "starting the watchdog: %s", strerror(e));
        }
        if (p == 0) {
                /* Its own session: a signal to lockdown's process group
                 * (Ctrl-C, timeout(1)) does not reach it; it ends when
                 * lockdown's end of the socket closes, never before. */
                (void)setsid();
                struct sigaction sa = { .sa_handler = SIG_IGN };
                (void)sigaction(SIGINT, &sa, NULL);
                (void)sigaction(SIGTERM, &sa, NULL);
                (void)sigaction(SIGHUP, &sa, NULL);
                (void)sigaction(SIGPIPE, &sa, NULL);
                (void)close(sv[0]);
                for (int fd = 3; fd < 1024; fd++)
                        if (fd != sv[1] && fd != keep_fd)
                                (void)close(fd);
                int null = open("/dev/null", O_RDWR | O_CLOEXEC);
                if (null >= 0) {
                        (void)dup2(null, 0);
                        (void)dup2(null, 1);
                        (void)dup2(null, 2);
                }
                watchdog(sv[1], undo, data);
        }
        (void)close(sv[1]);
        w->sock = sv[0];
        w->pid = p;
        return 0;
}

void tsync_lockdown_watchdog_stop(struct tsync_lockdown_watchdog *w)
{
        if (w->sock >= 0)
                (void)close(w->sock);
        w->sock = -1;
        if (w->pid > 0)
                while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
                        ;
        w->pid = 0;
}
