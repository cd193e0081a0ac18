/* seccomp_agent SOCKET LOG [CALLS]: a seccomp notify agent for the tests, the kind a
 * runtime-spec `listenerPath` names (issue 12).
 *
 * Listens on the UNIX stream socket SOCKET (made by it, mode 0600). Each
 * connection is one container: the runtime (or our init) sends the container
 * process state as JSON with the listener fd attached (SCM_RIGHTS), then closes
 * the connection. The agent appends the JSON as one line to LOG, followed by a
 * line "fds=N" (how many descriptors came with it), and from then on answers
 * that listener's notifications:
 *   mkdir, mkdirat   success (0), without creating anything
 *   getppid          4242
 *   anything else    SECCOMP_USER_NOTIF_FLAG_CONTINUE (the call runs)
 * Names come from libseccomp for the notification's own architecture, so a
 * 32-bit call is answered as its 64-bit twin is. With CALLS, each notification
 * appends a line "pid=PID call=NAME" to it (who asked what, before the answer).
 * With SECCOMP_AGENT_READ_ERRNO=N in the environment, read fails with errno N
 * instead (an agent that answers the init's proof otherwise than CONTINUE).
 * Runs until SIGTERM or SIGINT,
 * then removes SOCKET. Prints "ready" on stdout once it listens.
 * Exit: 0 after a signal, 1 on failure, 2 on bad usage. */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "shared/cleanup.h"

#define PROG      "seccomp_agent"
#define MAX_FDS   64
#define MAX_STATE (256 * 1024)
#define FAKE_PPID 4242

static int fail(const char *what, int e)
{
        fprintf(stderr, "%s: %s: %s\n", PROG, what, strerror(e));
        return -e;
}

static int listen_on(const char *path)
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };

        if (strlen(path) >= sizeof(addr.sun_path))
                return fail(path, ENAMETOOLONG);
        memcpy(addr.sun_path, path, strlen(path) + 1);
        (void)unlink(path);
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return fail("socket", errno);
        mode_t old = umask(0177);
        int r = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
        (void)umask(old);
        if (r < 0)
                return fail(path, errno);
        if (listen(fd, 16) < 0)
                return fail("listen", errno);
        return TAKE_FD(fd);
}

/* Whether buf[0..len) is one whole JSON object: the sender may keep the
 * connection open after it (runc does), so the end of the state is where its
 * braces balance, outside strings. */
static bool json_complete(const char *buf, size_t len)
{
        int depth = 0;
        bool in_string = false, escaped = false;

        for (size_t i = 0; i < len; i++) {
                char c = buf[i];
                if (in_string) {
                        if (escaped)
                                escaped = false;
                        else if (c == '\\')
                                escaped = true;
                        else if (c == '"')
                                in_string = false;
                } else if (c == '"') {
                        in_string = true;
                } else if (c == '{') {
                        depth++;
                } else if (c == '}' && --depth == 0) {
                        return true;
                }
        }
        return false;
}

/* Reads one connection: the state (one JSON object, or until the sender
 * closes) and the fds of its first message. Appends the state and the fd count to log. Returns the
 * first fd received, or -1 when none came. */
static int take_state(int conn, FILE *log)
{
        _cleanup_free_ char *state = malloc(MAX_STATE + 1);
        size_t len = 0;
        int fds[MAX_FDS], nfds = 0;

        if (!state)
                return fail("malloc", ENOMEM);
        for (;;) {
                union {
                        char buf[CMSG_SPACE(sizeof(int) * MAX_FDS)];
                        struct cmsghdr align;
                } control;
                struct iovec iov = { .iov_base = state + len, .iov_len = MAX_STATE - len };
                struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
                if (nfds == 0) {
                        msg.msg_control = control.buf;
                        msg.msg_controllen = sizeof(control.buf);
                }
                ssize_t n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return fail("recvmsg", errno);
                for (struct cmsghdr *c = nfds == 0 ? CMSG_FIRSTHDR(&msg) : NULL; c; c = CMSG_NXTHDR(&msg, c)) {
                        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                                continue;
                        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                        for (size_t i = 0; i < k && nfds < MAX_FDS; i++)
                                memcpy(&fds[nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                }
                len += (size_t)n;
                if (n == 0 || len == MAX_STATE || json_complete(state, len))
                        break;
        }
        state[len] = '\0';
        for (size_t i = 0; i < len; i++)
                if (state[i] == '\n')
                        state[i] = ' ';
        fprintf(log, "%s\nfds=%d\n", state, nfds);
        (void)fflush(log);
        for (int i = 1; i < nfds; i++)
                (void)close(fds[i]);
        return nfds > 0 ? fds[0] : -1;
}

static FILE *calls;    /* CALLS, or NULL */
static int read_errno; /* SECCOMP_AGENT_READ_ERRNO, or 0 */

/* Answers one notification of listener. Returns 0, or -errno when the
 * listener is finished with (every task of its filter is gone). */
static int answer(int listener, struct seccomp_notif *req, struct seccomp_notif_resp *resp,
                  const struct seccomp_notif_sizes *sizes)
{
        memset(req, 0, sizes->seccomp_notif);
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
                return errno == EINTR || errno == ENOENT ? 0 : -errno;
        memset(resp, 0, sizes->seccomp_notif_resp);
        resp->id = req->id;
        char *name = seccomp_syscall_resolve_num_arch(req->data.arch, req->data.nr);
        if (calls) {
                fprintf(calls, "pid=%u call=%s\n", req->pid, name ? name : "?");
                (void)fflush(calls);
        }
        if (name && (strcmp(name, "mkdir") == 0 || strcmp(name, "mkdirat") == 0)) {
                resp->val = 0;
        } else if (name && strcmp(name, "getppid") == 0) {
                resp->val = FAKE_PPID;
        } else if (name && read_errno > 0 && strcmp(name, "read") == 0) {
                resp->error = -read_errno;
        } else {
                resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        }
        free(name);
        /* ENOENT: the task died or the call was interrupted meanwhile. */
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

int main(int argc, char **argv)
{
        struct seccomp_notif_sizes sizes;
        struct pollfd p[2 + MAX_FDS];
        size_t n = 2;
        sigset_t stop;

        if (argc != 3 && argc != 4) {
                fprintf(stderr, "usage: %s SOCKET LOG [CALLS]\n", PROG);
                return 2;
        }
        if (argc == 4 && !(calls = fopen(argv[3], "ae")))
                return fail(argv[3], errno), 1;
        if (getenv("SECCOMP_AGENT_READ_ERRNO"))
                read_errno = atoi(getenv("SECCOMP_AGENT_READ_ERRNO"));
        if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
                return fail("SECCOMP_GET_NOTIF_SIZES", errno), 1;
        _cleanup_free_ struct seccomp_notif *req = calloc(1, sizes.seccomp_notif);
        _cleanup_free_ struct seccomp_notif_resp *resp = calloc(1, sizes.seccomp_notif_resp);
        if (!req || !resp)
                return fail("calloc", ENOMEM), 1;
        FILE *log = fopen(argv[2], "ae");
        if (!log)
                return fail(argv[2], errno), 1;
        (void)sigemptyset(&stop);
        (void)sigaddset(&stop, SIGTERM);
        (void)sigaddset(&stop, SIGINT);
        (void)sigprocmask(SIG_BLOCK, &stop, NULL);
        _cleanup_close_ int sfd = signalfd(-1, &stop, SFD_CLOEXEC);
        _cleanup_close_ int lfd = listen_on(argv[1]);
        if (sfd < 0 || lfd < 0) {
                (void)fclose(log);
                return 1;
        }
        p[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
        p[1] = (struct pollfd){ .fd = lfd, .events = POLLIN };
        printf("ready\n");
        (void)fflush(stdout);

        int code = 0;
        for (;;) {
                if (poll(p, n, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        code = fail("poll", errno) < 0;
                        break;
                }
                if (p[0].revents)
                        break;
                if (p[1].revents & POLLIN) {
                        _cleanup_close_ int conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
                        int listener = conn >= 0 ? take_state(conn, log) : -1;
                        if (listener >= 0 && n < ARRAY_SIZE(p))
                                p[n++] = (struct pollfd){ .fd = listener, .events = POLLIN };
                        else if (listener >= 0)
                                (void)close(listener);
                }
                for (size_t i = 2; i < n; i++) {
                        if (!p[i].revents)
                                continue;
                        /* POLLHUP: every task of that filter is gone. */
                        int r = (p[i].revents & POLLIN) ? answer(p[i].fd, req, resp, &sizes) : -ENOENT;
                        if (r < 0 || !(p[i].revents & POLLIN)) {
                                if (r < 0 && r != -ENOENT)
                                        (void)fail("a listener", -r);
                                (void)close(p[i].fd);
                                p[i--] = p[--n];
                        }
                }
        }
        for (size_t i = 2; i < n; i++)
                (void)close(p[i].fd);
        (void)unlink(argv[1]);
        (void)fclose(log);
        return code;
}
