#include "tsync/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tsync/cleanup.h"

int tsync_write_all(int fd, const void *buf, size_t len)
{
        const char *p = buf;
        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

int tsync_write_atomic(const char *path, const void *buf, size_t len, mode_t mode, bool durable,
                       struct tsync_err *err)
{
        _cleanup_free_ char *tmp = NULL;
        if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0)
                return tsync_error(err, ENOMEM, "%s: out of memory", path);
        _cleanup_close_ int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return tsync_error(err, errno, "%s: cannot create a temporary file beside it: %s", path,
                                   strerror(errno));
        int r = 0;
        if (fchmod(fd, mode) < 0)
                r = -errno;
        if (r == 0)
                r = tsync_write_all(fd, buf, len);
        if (r == 0 && durable && fsync(fd) < 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0) {
                (void)unlink(tmp);
                return tsync_error(err, -r, "%s: writing failed: %s", path, strerror(-r));
        }
        return 0;
}
