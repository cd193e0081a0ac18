/* Starting createRuntime's relay (agent/relay.h) as a process of its own
 * that outlives the hook: the runtime waits for the hook to exit and for its
 * stdout and stderr to close, and the relay waits for `start`. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/relay.h"
#include "cli.h"

#include <sys/syscall.h>

static int cmp_int(const void *a, const void *b)
{
        return *(const int *)a - *(const int *)b;
}

/* Every descriptor but keep[] closed: the runtime's pipes above all. */
static int close_all_but(int *keep, size_t n)
{
        qsort(keep, n, sizeof(*keep), cmp_int);
        unsigned from = 3;
        for (size_t i = 0; i < n; i++) {
                if ((unsigned)keep[i] > from && syscall(SYS_close_range, from, (unsigned)keep[i] - 1, 0) < 0)
                        return -errno;
                from = (unsigned)keep[i] + 1;
        }
        return syscall(SYS_close_range, from, ~0u, 0) < 0 ? -errno : 0;
}

static _Noreturn void relay_main(struct tsync_relay *r)
{
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0)
                _exit(1);
        int keep[4] = { r->listen_fd, r->dir_fd, r->pidfd };
        size_t n = 3;
        if (r->record_fd >= 0)
                keep[n++] = r->record_fd;
        if (close_all_but(keep, n) < 0)
                _exit(1);
        struct tsync_err err = { 0 };
        int e = tsync_relay_serve(r, &err);
        tsync_relay_clear(r);
        _exit(e < 0 ? 1 : 0);
}

int cli_relay_start(struct tsync_relay *r, struct tsync_err *err)
{
        pid_t child = fork();
        if (child < 0)
                return tsync_error_errno(err, "cannot start the relay");
        if (child == 0) {
                /* Detached: no terminal, and not the runtime's child to wait for. */
                if (setsid() < 0)
                        _exit(1);
                pid_t relay = fork();
                if (relay == 0)
                        relay_main(r);
                _exit(relay < 0 ? 1 : 0);
        }
        int status = 0;
        while (waitpid(child, &status, 0) < 0)
                if (errno != EINTR)
                        return tsync_error_errno(err, "cannot start the relay");
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return tsync_error(err, ECHILD, "cannot start the relay: its first process failed");
        /* The relay owns the socket's name now: close without removing it. */
        (void)close(r->listen_fd);
        r->listen_fd = -1;
        tsync_relay_clear(r);
        return 0;
}
