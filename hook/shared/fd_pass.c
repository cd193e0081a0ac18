/* SCM_RIGHTS, sent and received (shared/fd_pass.h). The init makes these
 * calls around its filters' load, so each is exactly one sendmsg or recvmsg
 * with the flags the route names (shared/init_calls.c): MSG_NOSIGNAL,
 * MSG_CMSG_CLOEXEC. Repeated on EINTR, which never comes to the init (it
 * blocks every signal). */
#include "shared/fd_pass.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

union control {
        char buf[CMSG_SPACE(sizeof(int) * TSYNC_FD_PASS_MAX)];
        struct cmsghdr align;
};

ssize_t tsync_fd_send(int sock, const struct iovec *iov, size_t n_iov, const int *fds, size_t n_fds)
{
        if (n_fds > TSYNC_FD_PASS_MAX)
                return -EINVAL;
        union control control;
        /* Zeroed: the padding after the descriptors goes out too. */
        memset(&control, 0, sizeof(control));
        struct msghdr msg = { .msg_iov = (struct iovec *)iov, .msg_iovlen = n_iov };
        if (n_fds > 0) {
                msg.msg_control = control.buf;
                msg.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
                struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
                cm->cmsg_level = SOL_SOCKET;
                cm->cmsg_type = SCM_RIGHTS;
                cm->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
                memcpy(CMSG_DATA(cm), fds, sizeof(int) * n_fds);
        }
        ssize_t n;
        do
                n = sendmsg(sock, &msg, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        return n < 0 ? -errno : n;
}

/* Room for every descriptor the largest control buffer can carry. */
#define RIGHTS_ROOM ((sizeof(union control) - CMSG_LEN(0)) / sizeof(int))

/* Copies the descriptors that came into fds (room of them; any further one
 * is closed at once) and returns how many came. *ret_other: a control
 * message of another kind came too. */
static size_t take_rights(struct msghdr *msg, int *fds, size_t room, bool *ret_other)
{
        size_t k = 0;
        *ret_other = false;
        for (struct cmsghdr *cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
                if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) {
                        *ret_other = true;
                        continue;
                }
                size_t n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < n; i++, k++) {
                        int fd;
                        memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
                        if (k < room)
                                fds[k] = fd;
                        else
                                (void)close(fd);
                }
        }
        return k;
}

ssize_t tsync_fd_recv(int sock, void *buf, size_t len, int *fds, size_t max_fds, size_t *ret_n_fds)
{
        if (max_fds > TSYNC_FD_PASS_MAX)
                return -EINVAL;
        union control control;
        struct iovec iov = { .iov_base = buf, .iov_len = len };
        /* Room for max_fds: the kernel closes what does not fit and says so
         * (MSG_CTRUNC); with none, any descriptor is such. */
        struct msghdr msg = { .msg_iov = &iov,
                              .msg_iovlen = 1,
                              .msg_control = max_fds ? control.buf : NULL,
                              .msg_controllen = max_fds ? CMSG_SPACE(sizeof(int) * max_fds) : 0 };
        ssize_t n;
        do
                n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        /* The space's alignment may hold more than max_fds: taken here, so
         * that they are closed rather than left to the caller. */
        int got[RIGHTS_ROOM];
        bool other;
        size_t k = take_rights(&msg, got, RIGHTS_ROOM, &other);
        if ((msg.msg_flags & MSG_CTRUNC) || other || k > max_fds) {
                for (size_t i = 0; i < k && i < RIGHTS_ROOM; i++)
                        (void)close(got[i]);
                return -EPROTO;
        }
        if (k > 0)
                memcpy(fds, got, k * sizeof(int));
        *ret_n_fds = k;
        return n;
}
