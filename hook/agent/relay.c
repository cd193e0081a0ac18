#include "agent/relay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent/agent_deliver.h"
#include "agent/agent_state.h"
#include "plan/plan.h"
#include "plan/plan_record.h"
#include "record/record_file.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "shared/fd_pass.h"
#include "shared/filterfile.h"
#include "shared/relay_proto.h"

void tsync_relay_clear(struct tsync_relay *r)
{
        if (r->listen_fd >= 0) {
                (void)unlinkat(r->dir_fd, TSYNC_RELAY_NAME, 0);
                (void)close(r->listen_fd);
        }
        if (r->dir_fd >= 0)
                (void)close(r->dir_fd);
        if (r->pidfd >= 0)
                (void)close(r->pidfd);
        if (r->record_fd >= 0)
                (void)close(r->record_fd);
        free(r->agent_path);
        free(r->state);
        *r = (struct tsync_relay)TSYNC_RELAY_INIT;
}

/* bind(2) takes a path of at most 107 bytes, and the tmpfs as the host
 * reaches it (/proc/PID/root/BUNDLE/rootfs/...) may be longer: the socket is
 * bound by a name relative to the directory, from within it. */
static int bind_in(int dfd, int fd, const char *name)
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        memcpy(addr.sun_path, name, strlen(name) + 1);
        _cleanup_close_ int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (cwd < 0)
                return -errno;
        if (fchdir(dfd) < 0)
                return -errno;
        /* 0600 from the start: nobody but root connects before the chown. */
        mode_t old = umask(0177);
        int r = bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ? -errno : 0;
        (void)umask(old);
        if (fchdir(cwd) < 0 && r == 0) {
                r = -errno;
                (void)unlinkat(dfd, name, 0);
        }
        return r;
}

/* The record file, created (or emptied) in the recording's directory on the
 * host, which must be root's alone: the init gets its fd, nobody a path. */
static int open_record(const char *dir, int *ret, struct tsync_err *err)
{
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                return tsync_error(err, errno, "recording: %s: %s", dir,
                                   errno == ENOTDIR || errno == ELOOP ? "not a directory (a symlink?)"
                                                                      : tsync_errtext(errno));
        int e = tsync_record_check_dir(dfd, dir, err);
        if (e < 0)
                return tsync_error_prefix(err, "recording");
        int fd = openat(dfd, TSYNC_RECORD_CALLS, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                        0600);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                e = fd < 0 ? errno : EINVAL;
                if (fd >= 0)
                        (void)close(fd);
                return tsync_error(err, e, "recording: %s/%s: %s", dir, TSYNC_RECORD_CALLS,
                                   e == EINVAL ? "not a regular file" : tsync_errtext(e));
        }
        *ret = fd;
        return 0;
}

int tsync_relay_open(const struct tsync_json *oci_state, const struct tsync_json *config, const char *bundle,
                     const char *agent_path, const char *record_dir, struct tsync_relay *ret, struct tsync_err *err)
{
        struct tsync_relay r = TSYNC_RELAY_INIT;
        _cleanup_free_ char *point = NULL;
        int e = 0;
        if (agent_path) {
                e = tsync_agent_state(oci_state, &r.state, &r.state_len, err);
                if (e < 0) {
                        tsync_error_prefix(err, "the OCI state on stdin, for the notify agent");
                        goto out;
                }
                if (!(r.agent_path = strdup(agent_path))) {
                        e = tsync_error(err, ENOMEM, "out of memory");
                        goto out;
                }
        }
        if (record_dir) {
                e = open_record(record_dir, &r.record_fd, err);
                if (e < 0)
                        goto out;
        }
        e = tsync_agent_open_dir(oci_state, config, bundle, &r.dir_fd, &r.pid, &point, err);
        if (e < 0)
                goto out;
        struct stat st;
        e = tsync_agent_check_dir(r.dir_fd, point, &st, err);
        if (e < 0)
                goto out;
        /* The pid alone could be another process's once the container's is
         * gone: the pidfd tells, for as long as the relay lives. */
        r.pidfd = (int)syscall(SYS_pidfd_open, r.pid, 0);
        if (r.pidfd < 0) {
                e = tsync_error_errno(err, "the container's process %d", (int)r.pid);
                goto out;
        }
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
                e = tsync_error_errno(err, "the relay's socket");
                goto out;
        }
        e = bind_in(r.dir_fd, fd, TSYNC_RELAY_NAME);
        if (e < 0) {
                (void)close(fd);
                e = tsync_error(err, -e, "%s/%s: %s", point, TSYNC_RELAY_NAME, tsync_errtext(-e));
                goto out;
        }
        r.listen_fd = fd; /* from here on, clearing removes the name */
        /* The init runs as process.user, who owns the tmpfs (its uid as the
         * host sees it, whatever user namespace the container has). */
        if (fchownat(r.dir_fd, TSYNC_RELAY_NAME, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) < 0 || listen(fd, 4) < 0) {
                e = tsync_error_errno(err, "%s/%s", point, TSYNC_RELAY_NAME);
                goto out;
        }
        *ret = r;
        return 0;
out:
        tsync_relay_clear(&r);
        return e;
}

static bool process_gone(int pidfd)
{
        struct pollfd p = { .fd = pidfd, .events = POLLIN };
        return poll(&p, 1, 0) != 0;
}

/* Waits for fd to be readable: 1, or 0 when the container's process died
 * first. */
static int wait_for(const struct tsync_relay *r, int fd)
{
        for (;;) {
                struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = r->pidfd, .events = POLLIN } };
                if (poll(p, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (p[1].revents)
                        return 0;
                if (p[0].revents)
                        return 1;
        }
}

/* The init's connection, or -ENOENT when the container's process died. Any
 * other peer (an exec'd process, a process on the host reaching the tmpfs)
 * is closed at once, never read from: the agent never hears of it. */
static int accept_init(struct tsync_relay *r)
{
        for (;;) {
                int w = wait_for(r, r->listen_fd);
                if (w <= 0)
                        return w < 0 ? w : -ENOENT;
                _cleanup_close_ int c = accept4(r->listen_fd, NULL, NULL, SOCK_CLOEXEC);
                if (c < 0)
                        continue; /* EINTR, ECONNABORTED: the next one */
                struct ucred cred;
                socklen_t len = sizeof(cred);
                if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.pid != r->pid)
                        continue;
                /* Alive now, so the pid was not yet another process's when it
                 * connected. */
                if (process_gone(r->pidfd))
                        return -ENOENT;
                /* Nothing else can ever connect. */
                (void)unlinkat(r->dir_fd, TSYNC_RELAY_NAME, 0);
                (void)close(r->listen_fd);
                r->listen_fd = -1;
                return TAKE_FD(c);
        }
}

static int send_all(int fd, const void *buf, size_t len)
{
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0)
                return -errno;
        return (size_t)n == len ? 0 : -EPIPE;
}

/* The greeting, with the record file when there is one. */
static int send_ready(int c, int record_fd)
{
        char ready = TSYNC_RELAY_READY;
        ssize_t n = tsync_fd_send(c, &(struct iovec){ &ready, 1 }, 1, &record_fd, record_fd >= 0);
        if (n < 0)
                return (int)n;
        return n == 1 ? 0 : -EPIPE;
}

/* The init's TSYNC_RELAY_LISTENER message: the listener into *ret_fd, the
 * metadata into meta (NUL-terminated, *ret_len bytes). */
static int receive_listener(const struct tsync_relay *r, int c, char *meta, size_t size, size_t *ret_len, int *ret_fd,
                            struct tsync_err *err)
{
        char head[TSYNC_RELAY_HEADER];
        size_t got = 0, want = sizeof(head);
        _cleanup_close_ int listener = -1;
        while (got < want) {
                int w = wait_for(r, c);
                if (w < 0)
                        return tsync_error(err, -w, "waiting for the init: %s", tsync_errtext(-w));
                if (w == 0)
                        return tsync_error(err, ESRCH, "the container's process died");
                bool first = got == 0;
                char *at = got < sizeof(head) ? head + got : meta + got - sizeof(head);
                size_t room = got < sizeof(head) ? sizeof(head) - got : want - got;
                /* The listener comes with the first bytes, and only then. */
                size_t nfd = 0;
                ssize_t n = tsync_fd_recv(c, at, room, &listener, first ? 1 : 0, &nfd);
                if (n == -EPROTO)
                        return tsync_error(err, EPROTO, "the init sent more than one descriptor");
                if (n < 0)
                        return tsync_error(err, (int)-n, "reading the init's listener: %s", tsync_errtext((int)-n));
                if (n == 0)
                        return tsync_error(err, EPIPE, "the init went away before it sent its listener");
                got += (size_t)n;
                if (first && head[0] != TSYNC_RELAY_LISTENER)
                        return tsync_error(err, EPROTO, "the init sent no listener");
                if (got == sizeof(head)) {
                        uint32_t mlen;
                        memcpy(&mlen, head + 1, sizeof(mlen));
                        if (mlen >= size)
                                return tsync_error(err, EPROTO, "listenerMetadata of %u bytes: at most %zu",
                                                   (unsigned)mlen, size - 1);
                        want = sizeof(head) + mlen;
                }
        }
        if (listener < 0)
                return tsync_error(err, EPROTO, "the init's message came without its listener");
        meta[want - sizeof(head)] = '\0';
        *ret_len = want - sizeof(head);
        *ret_fd = TAKE_FD(listener);
        return 0;
}

/* Connects to the agent from the host and sends it the state with the
 * listener, in one sendmsg, as runc does. */
static int hand_to_agent(const struct tsync_relay *r, const char *meta, size_t mlen, int listener,
                         struct tsync_err *err)
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        size_t plen = strlen(r->agent_path);
        if (plen >= sizeof(addr.sun_path))
                return tsync_error(err, ENAMETOOLONG, "%s: the agent's socket path is too long", r->agent_path);
        memcpy(addr.sun_path, r->agent_path, plen + 1);
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int e = tsync_agent_state_metadata(r->state, r->state_len, meta, mlen, &text, &len, err);
        if (e < 0)
                return e;
        _cleanup_close_ int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (sock < 0)
                return tsync_error_errno(err, "a socket for the agent");
        if (connect(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0)
                return tsync_error_errno(err, "%s: cannot reach the seccomp agent (listenerPath)", r->agent_path);
        ssize_t sent = tsync_fd_send(sock, &(struct iovec){ text, len }, 1, &listener, 1);
        /* A short send on a blocking stream socket means the agent went away. */
        if (sent < 0 || (size_t)sent != len)
                return tsync_error(err, sent < 0 ? (int)-sent : EPIPE,
                                   "%s: cannot send the listener to the seccomp agent: %s", r->agent_path,
                                   sent < 0 ? tsync_errtext((int)-sent) : "short write");
        return 0;
}

int tsync_relay_serve(struct tsync_relay *r, struct tsync_err *err)
{
        int fd = accept_init(r);
        if (fd == -ENOENT)
                return 0; /* deleted without a start: nobody to serve */
        if (fd < 0)
                return tsync_error(err, -fd, "waiting for the init: %s", tsync_errtext(-fd));
        _cleanup_close_ int c = fd;
        int e = send_ready(c, r->record_fd);
        if (e < 0)
                return tsync_error(err, -e, "the init went away: %s", tsync_errtext(-e));
        if (!r->agent_path)
                return 0; /* a recording: the init has its file */
        static char meta[TSYNC_FILTER_MAX_TRAILER + 1];
        size_t mlen = 0;
        _cleanup_close_ int listener = -1;
        e = receive_listener(r, c, meta, sizeof(meta), &mlen, &listener, err);
        if (e == 0)
                e = hand_to_agent(r, meta, mlen, listener, err);
        char reply[1 + TSYNC_RELAY_REASON_MAX];
        size_t rlen = 1;
        reply[0] = e == 0 ? TSYNC_RELAY_OK : TSYNC_RELAY_REFUSED;
        if (e < 0) {
                size_t m = strnlen(err->msg, TSYNC_RELAY_REASON_MAX);
                memcpy(reply + 1, err->msg, m);
                rlen += m;
        }
        (void)send_all(c, reply, rlen);
        return e;
}
