/* lockdown's watchdog: a process that thaws the cgroup and puts the record
 * back if lockdown itself dies (SIGKILL) while the cgroup is frozen, and the
 * flag a signal sets to cancel a run. */
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
#include "shared/errnos.h"
#include "shared/fd_pass.h"

volatile sig_atomic_t tsync_lockdown_cancelled;

/* The watchdog's messages: 'F' + the freeze file's descriptor (v2), 'f'
 * (v1) before a freeze, 'T' after the thaw, 'D' the record is lockdown's
 * (undo it if lockdown dies), 'C' the record is final. */
static int send_msg(int sock, char c, int fd)
{
        if (sock < 0)
                return 0;
        /* The watchdog answers each message, so that lockdown freezes only
         * once the watchdog holds the descriptor. */
        ssize_t sent = tsync_fd_send(sock, &(struct iovec){ &c, 1 }, 1, &fd, fd >= 0);
        if (sent < 0)
                return (int)sent;
        if (sent != 1)
                return -EPIPE;
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

/* The child: one loop, then _exit. */
static void __attribute__((noreturn)) watchdog(int sock, void (*undo)(void *), void *data)
{
        int freeze = -1;
        bool v1 = false, dirty = false;
        for (;;) {
                char c;
                int fd = -1;
                size_t nfd = 0;
                /* Control data lockdown never sends (-EPROTO) end the loop as
                 * lockdown's end would: the watchdog thaws and undoes, and
                 * lockdown, never answered, stops. */
                ssize_t n = tsync_fd_recv(sock, &c, 1, &fd, 1, &nfd);
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
                return tsync_error_errno(err, "the watchdog's socket");
        pid_t p = fork();
        if (p < 0) {
                int e = errno;
                (void)close(sv[0]);
                (void)close(sv[1]);
                return tsync_error(err, e, "starting the watchdog: %s", tsync_errtext(e));
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
