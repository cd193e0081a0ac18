/* Descriptors over a UNIX socket (SCM_RIGHTS): the relay's greeting and the
 * listener's hand-over (relay_proto.h, both sides), the listener to a notify
 * agent, the freeze file to lockdown's watchdog. One pair, so that every
 * receiver refuses the same malformed control data and leaks nothing. Linked
 * into the static init too: libc only, no heap. 0 or more bytes, or -errno. */
#pragma once

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

/* The most descriptors one message carries. */
#define TSYNC_FD_PASS_MAX 4

/* One sendmsg (MSG_NOSIGNAL; retried on EINTR) of the n_iov buffers with the
 * n_fds descriptors of fds attached (none when n_fds is 0). Returns the bytes
 * sent, which a stream socket may make fewer than asked (the peer went away),
 * -EINVAL for more than TSYNC_FD_PASS_MAX descriptors, or -errno of
 * sendmsg(2). */
ssize_t tsync_fd_send(int sock, const struct iovec *iov, size_t n_iov, const int *fds, size_t n_fds);

/* One recvmsg (MSG_CMSG_CLOEXEC; retried on EINTR) of at most len bytes into
 * buf, with at most max_fds descriptors (up to TSYNC_FD_PASS_MAX), put in
 * fds[0 .. *ret_n_fds). Returns the bytes read, 0 when the peer closed,
 * -EINVAL for a max_fds over TSYNC_FD_PASS_MAX, or -errno of recvmsg(2).
 * -EPROTO when the control data were truncated, were anything but
 * SCM_RIGHTS, or carried more than max_fds descriptors: the bytes are
 * consumed all the same, and every descriptor that came is closed. On any failure fds and *ret_n_fds are
 * untouched. */
ssize_t tsync_fd_recv(int sock, void *buf, size_t len, int *fds, size_t max_fds, size_t *ret_n_fds);
