/* SCM_RIGHTS (hook/shared/fd_pass.c), over socketpairs of the kinds its
 * callers use (the relay's stream, the watchdog's seqpacket): descriptors and
 * bytes arrive as sent; a descriptor nobody asked for, control data that do
 * not fit or are not SCM_RIGHTS are refused with every descriptor closed (no
 * leak into the relay or the init); the peer's close reads as 0; a signal
 * does not end a wait. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/fd_pass.h"
#include "tap.h"

/* How many descriptors this process holds. */
static int open_fds(void)
{
        DIR *d = opendir("/proc/self/fd");
        if (!d)
                return -1;
        int n = 0;
        while (readdir(d))
                n++;
        (void)closedir(d);
        return n;
}

static bool same_file(int a, int b)
{
        struct stat sa, sb;
        return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* A failure to set up is a failed test, not a silent pass. */
static bool pair(int type, int sv[2])
{
        if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) == 0)
                return true;
        return tap_ok(false, "socketpair: %s", strerror(errno));
}

static bool make_pipe(int p[2])
{
        if (pipe2(p, O_CLOEXEC) == 0)
                return true;
        return tap_ok(false, "pipe2: %s", strerror(errno));
}

static void close_pair(int sv[2])
{
        (void)close(sv[0]);
        (void)close(sv[1]);
}

static ssize_t send_bytes(int sock, const void *buf, size_t len, const int *fds, size_t n_fds)
{
        return tsync_fd_send(sock, &(struct iovec){ (void *)buf, len }, 1, fds, n_fds);
}

static void test_fd_pass_one_fd_round_trips(int type, const char *kind)
{
        int sv[2], p[2];
        if (!pair(type, sv) || !make_pipe(p))
                return;
        ssize_t sent = send_bytes(sv[0], "R", 1, &p[1], 1);
        char c = 0;
        int fd = -1;
        size_t nfd = 0;
        ssize_t got = tsync_fd_recv(sv[1], &c, 1, &fd, 1, &nfd);
        tap_ok(sent == 1 && got == 1 && c == 'R' && nfd == 1,
               "test_fd_pass_one_fd_round_trips (%s): sent %zd, got %zd '%c' with %zu descriptors", kind, sent, got, c,
               nfd);
        tap_ok(fd >= 0 && fd != p[1] && same_file(fd, p[1]) && (fcntl(fd, F_GETFD) & FD_CLOEXEC),
               "test_fd_pass_one_fd_round_trips (%s): a new descriptor of the same pipe, close-on-exec", kind);
        if (fd >= 0)
                (void)close(fd);
        close_pair(p);
        close_pair(sv);
}

/* The init's shape: a header and the metadata in two buffers, one message. */
static void test_fd_pass_payload_without_fd(void)
{
        int sv[2];
        if (!pair(SOCK_STREAM, sv))
                return;
        struct iovec iov[2] = { { "L1234", 5 }, { "meta", 4 } };
        ssize_t sent = tsync_fd_send(sv[0], iov, 2, NULL, 0);
        char buf[16] = { 0 };
        int fd = -7;
        size_t nfd = 99;
        ssize_t got = tsync_fd_recv(sv[1], buf, sizeof(buf) - 1, &fd, 1, &nfd);
        tap_ok(sent == 9 && got == 9 && strcmp(buf, "L1234meta") == 0 && nfd == 0 && fd == -7,
               "test_fd_pass_payload_without_fd: sent %zd, got %zd '%s', %zu descriptors", sent, got, buf, nfd);
        close_pair(sv);
}

static void test_fd_pass_several_fds(void)
{
        int sv[2], p[2][2];
        if (!pair(SOCK_STREAM, sv) || !make_pipe(p[0]) || !make_pipe(p[1]))
                return;
        int out[4] = { p[0][0], p[0][1], p[1][0], p[1][1] }, in[4] = { -1, -1, -1, -1 };
        size_t nfd = 0;
        char c = 0;
        ssize_t sent = send_bytes(sv[0], "n", 1, out, 4);
        ssize_t got = tsync_fd_recv(sv[1], &c, 1, in, TSYNC_FD_PASS_MAX, &nfd);
        bool same = nfd == 4;
        for (size_t i = 0; same && i < 4; i++)
                same = same_file(in[i], out[i]);
        tap_ok(sent == 1 && got == 1 && same, "test_fd_pass_several_fds: %zu of 4 descriptors, in their order", nfd);
        for (size_t i = 0; i < 4; i++) {
                (void)close(out[i]);
                if (i < nfd)
                        (void)close(in[i]);
        }
        close_pair(sv);
}

/* Descriptors the receiver did not ask for: refused, none left open, and the
 * bytes consumed. fit: how many the sender attaches; want: the receiver's
 * max. */
static void unexpected(int type, size_t fit, size_t want, const char *what)
{
        int sv[2], p[2];
        if (!pair(type, sv) || !make_pipe(p))
                return;
        int out[TSYNC_FD_PASS_MAX] = { p[0], p[1], p[0], p[1] };
        int before = open_fds();
        ssize_t sent = send_bytes(sv[0], "x", 1, out, fit);
        (void)send_bytes(sv[0], "y", 1, NULL, 0);
        char c = 0;
        int fds[TSYNC_FD_PASS_MAX] = { -7, -7, -7, -7 };
        size_t nfd = 99;
        ssize_t got = tsync_fd_recv(sv[1], &c, 1, fds, want, &nfd);
        tap_ok(sent == 1 && got == -EPROTO && nfd == 99 && fds[0] == -7 && open_fds() == before,
               "test_fd_pass_unexpected_fd_is_closed_and_refused: %s: %zd (%s), %d descriptors open, %d before", what,
               got, got < 0 ? strerror((int)-got) : "bytes", open_fds(), before);
        got = tsync_fd_recv(sv[1], &c, 1, fds, want, &nfd);
        tap_ok(got == 1 && c == 'y' && nfd == 0,
               "test_fd_pass_unexpected_fd_is_closed_and_refused: %s: the next message reads alone", what);
        close_pair(p);
        close_pair(sv);
}

/* SCM_CREDENTIALS (SO_PASSCRED on the receiver) is not what a caller reads. */
static void test_fd_pass_other_control_refused(void)
{
        int sv[2], on = 1;
        if (!pair(SOCK_STREAM, sv))
                return;
        if (setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) < 0) {
                tap_ok(false, "SO_PASSCRED: %s", strerror(errno));
                close_pair(sv);
                return;
        }
        (void)send_bytes(sv[0], "c", 1, NULL, 0);
        char c = 0;
        int fd = -7;
        size_t nfd = 99;
        ssize_t got = tsync_fd_recv(sv[1], &c, 1, &fd, 1, &nfd);
        tap_ok(got == -EPROTO && fd == -7 && nfd == 99,
               "test_fd_pass_other_control_refused: credentials instead of descriptors: %zd", got);
        close_pair(sv);
}

static void test_fd_pass_peer_closed(int type, const char *kind)
{
        int sv[2];
        if (!pair(type, sv))
                return;
        (void)close(sv[0]);
        char c = 0;
        int fd = -7;
        size_t nfd = 99;
        ssize_t got = tsync_fd_recv(sv[1], &c, 1, &fd, 1, &nfd);
        tap_ok(got == 0 && fd == -7 && nfd == 0, "test_fd_pass_peer_closed (%s): end of file reads as %zd", kind, got);
        /* Sending to it: EPIPE, and no SIGPIPE kills this test. */
        ssize_t sent = send_bytes(sv[1], "z", 1, &sv[1], 1);
        tap_ok(sent == -EPIPE, "test_fd_pass_peer_closed (%s): sending to it: %zd", kind, sent);
        (void)close(sv[1]);
}

static void test_fd_pass_too_many(void)
{
        int sv[2];
        if (!pair(SOCK_STREAM, sv))
                return;
        int fds[TSYNC_FD_PASS_MAX + 1] = { sv[0], sv[0], sv[0], sv[0], sv[0] };
        size_t nfd = 0;
        char c;
        tap_ok(send_bytes(sv[0], "x", 1, fds, TSYNC_FD_PASS_MAX + 1) == -EINVAL &&
                       tsync_fd_recv(sv[1], &c, 1, fds, TSYNC_FD_PASS_MAX + 1, &nfd) == -EINVAL,
               "test_fd_pass_too_many: more than TSYNC_FD_PASS_MAX descriptors are EINVAL either way");
        close_pair(sv);
}

static volatile sig_atomic_t alarms;
static pid_t sender;

/* The sender waits for this: the data come only after the signal has
 * interrupted the wait, however slow the machine. */
static void on_alarm(int sig)
{
        (void)sig;
        alarms++;
        (void)kill(sender, SIGUSR1);
}

/* A signal without SA_RESTART while waiting: the wait goes on. */
static void test_fd_pass_eintr_retried(void)
{
        int sv[2];
        if (!pair(SOCK_STREAM, sv))
                return;
        sigset_t usr1, old_mask;
        (void)sigemptyset(&usr1);
        (void)sigaddset(&usr1, SIGUSR1);
        (void)sigprocmask(SIG_BLOCK, &usr1, &old_mask);
        struct sigaction sa = { .sa_handler = on_alarm }, old;
        (void)sigaction(SIGALRM, &sa, &old);
        sender = fork();
        if (sender == 0) {
                int sig;
                (void)sigwait(&usr1, &sig);
                _exit(send_bytes(sv[0], "i", 1, NULL, 0) == 1 ? 0 : 1);
        }
        (void)sigprocmask(SIG_SETMASK, &old_mask, NULL);
        struct itimerval t = { .it_value = { 0, 50 * 1000 } };
        (void)setitimer(ITIMER_REAL, &t, NULL);
        char c = 0;
        int fd = -1;
        size_t nfd = 0;
        ssize_t got = sender > 0 ? tsync_fd_recv(sv[1], &c, 1, &fd, 1, &nfd) : -ECHILD;
        int status = -1;
        if (sender > 0)
                (void)waitpid(sender, &status, 0);
        (void)sigaction(SIGALRM, &old, NULL);
        tap_ok(got == 1 && c == 'i' && alarms == 1 && status == 0,
               "test_fd_pass_eintr_retried: got %zd after %d signals", got, (int)alarms);
        close_pair(sv);
}

int main(void)
{
        test_fd_pass_one_fd_round_trips(SOCK_STREAM, "stream");
        test_fd_pass_one_fd_round_trips(SOCK_SEQPACKET, "seqpacket");
        test_fd_pass_payload_without_fd();
        test_fd_pass_several_fds();
        unexpected(SOCK_STREAM, 1, 0, "one where none is asked");
        unexpected(SOCK_SEQPACKET, 1, 0, "one where none is asked (seqpacket)");
        /* Two fit the space of one (its alignment) and are seen; three do not. */
        unexpected(SOCK_STREAM, 2, 1, "two where one is asked");
        unexpected(SOCK_STREAM, 3, 1, "three where one is asked (truncated)");
        unexpected(SOCK_STREAM, 4, 3, "four where three are asked");
        test_fd_pass_other_control_refused();
        test_fd_pass_peer_closed(SOCK_STREAM, "stream");
        test_fd_pass_peer_closed(SOCK_SEQPACKET, "seqpacket");
        test_fd_pass_too_many();
        test_fd_pass_eintr_retried();
        return tap_done();
}
