/* Writes that never replace what is not ours (see util/fileio.h for the rule). */
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/errnos.h"

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

int tsync_write_allv(int fd, const struct iovec *iov, size_t n)
{
        struct iovec left[TSYNC_WRITE_MAX_PIECES];
        if (n > TSYNC_WRITE_MAX_PIECES)
                return -EINVAL;
        memcpy(left, iov, n * sizeof(*iov));
        struct iovec *v = left;
        for (;;) {
                while (n > 0 && v->iov_len == 0)
                        v++, n--;
                if (n == 0)
                        return 0;
                ssize_t w = writev(fd, v, (int)n);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                /* Past what was written (all of it, or a short write's part). */
                for (size_t done = (size_t)w; done > 0;) {
                        if (done >= v->iov_len) {
                                done -= v->iov_len;
                                v++, n--;
                        } else {
                                v->iov_base = (char *)v->iov_base + done;
                                v->iov_len -= done;
                                done = 0;
                        }
                }
        }
}

int tsync_check_private_dir(const char *path, const struct stat *st, struct tsync_err *err)
{
        if (!S_ISDIR(st->st_mode) || st->st_uid != geteuid() || (st->st_mode & 022))
                return tsync_error(err, EPERM, "%s: must be a directory owned by uid %u and writable by it alone", path,
                                   (unsigned)geteuid());
        return 0;
}

static const char *kind_of(mode_t m)
{
        if (S_ISLNK(m))
                return "a symbolic link";
        if (S_ISDIR(m))
                return "a directory";
        if (S_ISCHR(m))
                return "a character device";
        if (S_ISBLK(m))
                return "a block device";
        if (S_ISFIFO(m))
                return "a FIFO";
        if (S_ISSOCK(m))
                return "a socket";
        return "not a regular file";
}

/* A device or FIFO the user named: written as `>` would, but never waiting
 * for a FIFO's reader (O_NONBLOCK makes the open fail with ENXIO instead). */
static int write_in_place(int dfd, const char *path, const char *name, const struct stat *st, const struct iovec *iov,
                          size_t n, struct tsync_err *err)
{
        _cleanup_close_ int fd = openat(dfd, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
                if (errno == ENXIO && S_ISFIFO(st->st_mode))
                        return tsync_error(err, ENXIO, "%s: a FIFO without a reader: refusing to wait for one", path);
                return tsync_error_errno(err, "%s", path);
        }
        struct stat now;
        if (fstat(fd, &now) < 0)
                return tsync_error_errno(err, "%s", path);
        if ((now.st_mode & S_IFMT) != (st->st_mode & S_IFMT) || now.st_rdev != st->st_rdev)
                return tsync_error(err, EAGAIN, "%s: replaced while being opened", path);
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
                return tsync_error_errno(err, "%s", path);
        int r = tsync_write_allv(fd, iov, n);
        if (r < 0)
                return tsync_error(err, -r, "%s: writing failed: %s", path, tsync_errtext(-r));
        return 0;
}

static int temp_name(const char *name, char tmp[NAME_MAX + 1])
{
        uint64_t rnd;
        if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
                return errno ? -errno : -EIO;
        int n = snprintf(tmp, NAME_MAX + 1, ".%s.%016llx.tmp", name, (unsigned long long)rnd);
        return n < 0 || n > NAME_MAX ? -ENAMETOOLONG : 0;
}

/* Gives the unnamed O_TMPFILE file a name in dfd. AT_EMPTY_PATH needs
 * CAP_DAC_READ_SEARCH; /proc/self/fd works without it. */
static int link_tmpfile(int fd, int dfd, const char *name)
{
        char proc[64];
        if (linkat(fd, "", dfd, name, AT_EMPTY_PATH) == 0)
                return 0;
        if (errno == EEXIST)
                return -EEXIST;
        (void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        if (linkat(AT_FDCWD, proc, dfd, name, AT_SYMLINK_FOLLOW) == 0)
                return 0;
        return -errno;
}

int tsync_renameat2(int olddfd, const char *oldname, int newdfd, const char *newname, unsigned flags)
{
        return syscall(SYS_renameat2, olddfd, oldname, newdfd, newname, flags) < 0 ? -errno : 0;
}

int tsync_statx(int dfd, const char *path, int flags, unsigned mask, struct statx *buf)
{
        return (int)syscall(SYS_statx, dfd, path, flags, mask, buf);
}

/* Moves tmp to name, failing with -EEXIST if name appeared meanwhile. */
static int rename_noreplace(int dfd, const char *tmp, const char *name)
{
        int r = tsync_renameat2(dfd, tmp, dfd, name, TSYNC_RENAME_NOREPLACE);
        if (r == 0)
                return 0;
        if (r != -EINVAL && r != -ENOSYS)
                return r;
        /* A filesystem without RENAME_NOREPLACE: link refuses an existing name too. */
        if (linkat(dfd, tmp, dfd, name, 0) < 0)
                return -errno;
        (void)unlinkat(dfd, tmp, 0);
        return 0;
}

/* The new content under name: a regular file of ours (exists) or nothing. */
static int replace(int dfd, const char *path, const char *name, bool exists, const struct iovec *iov, size_t n,
                   mode_t mode, unsigned flags, struct tsync_err *err)
{
        char tmp[NAME_MAX + 1];
        bool named = false; /* tmp exists in dfd and must go on failure */
        const char *what = "creating a temporary file beside it";
        int r = 0;

        /* O_TMPFILE: nothing has a name until the content is complete, so a
         * crash leaves no debris. Filesystems without it get a named temp. */
        _cleanup_close_ int fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0) {
                if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
                        r = -errno;
                else if ((r = temp_name(name, tmp)) == 0) {
                        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
                        r = fd < 0 ? -errno : 0;
                        named = fd >= 0;
                }
        }
        if (r == 0) {
                what = "fchmod"; /* exactly mode, whatever the umask */
                r = fchmod(fd, mode) < 0 ? -errno : 0;
        }
        if (r == 0) {
                what = "writing";
                r = tsync_write_allv(fd, iov, n);
        }
        if (r == 0 && (flags & (TSYNC_WRITE_DURABLE | TSYNC_WRITE_CONTENT))) {
                what = "fsync";
                r = fsync(fd) < 0 ? -errno : 0;
        }
        bool linked = false; /* the unnamed file went straight to name */
        if (r == 0 && !named && !exists) {
                /* linkat refuses an existing name: nothing that appeared meanwhile is replaced. */
                what = "linking";
                r = link_tmpfile(fd, dfd, name);
                linked = r == 0;
        } else if (r == 0 && !named) {
                what = "linking the temporary file";
                r = temp_name(name, tmp);
                if (r == 0)
                        r = link_tmpfile(fd, dfd, tmp);
                named = r == 0;
        }
        if (r == 0 && !linked) {
                what = "renaming the temporary file";
                r = exists ? (renameat(dfd, tmp, dfd, name) < 0 ? -errno : 0) : rename_noreplace(dfd, tmp, name);
                if (r == 0)
                        named = false;
        }
        if (r < 0) {
                if (named)
                        (void)unlinkat(dfd, tmp, 0);
                if (r == -EEXIST)
                        return tsync_error(err, EEXIST, "%s: appeared while being written", path);
                return tsync_error(err, -r, "%s: %s: %s", path, what, tsync_errtext(-r));
        }
        /* The new name is durable once the directory is synced. */
        if ((flags & TSYNC_WRITE_DURABLE) && fsync(dfd) < 0)
                return tsync_error_errno(err, "%s: fsync of its directory", path);
        return 0;
}

int tsync_write_at(int dfd, const char *path, const char *name, const void *buf, size_t len, mode_t mode,
                   unsigned flags, struct tsync_err *err)
{
        struct iovec iov = { .iov_base = (void *)(uintptr_t)buf, .iov_len = len };
        return tsync_write_atv(dfd, path, name, &iov, 1, mode, flags, err);
}

int tsync_write_atv(int dfd, const char *path, const char *name, const struct iovec *iov, size_t n, mode_t mode,
                    unsigned flags, struct tsync_err *err)
{
        if (n > TSYNC_WRITE_MAX_PIECES)
                return tsync_error(err, EINVAL, "%s: more than %d pieces to write", path, TSYNC_WRITE_MAX_PIECES);
        for (int attempt = 0;; attempt++) {
                struct stat st;
                bool exists = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
                if (!exists && errno != ENOENT)
                        return tsync_error_errno(err, "%s", path);
                if (exists && (flags & TSYNC_WRITE_NEW))
                        return tsync_error(err, EEXIST, "%s: exists (%s): refusing to replace it", path,
                                           S_ISREG(st.st_mode) ? "a file" : kind_of(st.st_mode));
                if (exists && S_ISLNK(st.st_mode))
                        return tsync_error(err, ELOOP,
                                           "%s: is a symbolic link: refusing to write through or replace it", path);
                if (exists && !S_ISREG(st.st_mode)) {
                        if ((flags & TSYNC_WRITE_IN_PLACE) && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
                                return write_in_place(dfd, path, name, &st, iov, n, err);
                        return tsync_error(err, S_ISDIR(st.st_mode) ? EISDIR : EINVAL,
                                           "%s: is %s: refusing to replace it", path, kind_of(st.st_mode));
                }
                if (exists && st.st_uid != geteuid())
                        return tsync_error(err, EPERM,
                                           "%s: owned by uid %u, not by us (uid %u): refusing to replace it", path,
                                           (unsigned)st.st_uid, (unsigned)geteuid());
                int r = replace(dfd, path, name, exists, iov, n, mode, flags, err);
                /* -EEXIST: the name appeared between the look and the link; look
                 * again, unless nothing may be replaced. */
                if (r != -EEXIST || attempt == 2 || (flags & TSYNC_WRITE_NEW))
                        return r;
        }
}

/* Splits path at its last '/': the directory ("." or "/" when none) and the last component. */
static int split(const char *path, char **ret_dir, const char **ret_name, struct tsync_err *err)
{
        const char *slash = strrchr(path, '/');
        const char *name = slash ? slash + 1 : path;
        if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                return tsync_error(err, EISDIR, "%s: names a directory, not a file", path);
        char *dir = !slash ? strdup(".") : slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
        if (!dir)
                return tsync_error(err, ENOMEM, "%s: out of memory", path);
        *ret_dir = dir;
        *ret_name = name;
        return 0;
}

static int open_dir(const char *path, bool nofollow, struct tsync_err *err)
{
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
        if (fd >= 0)
                return fd;
        int saved = errno;
        struct stat st;
        /* O_DIRECTORY|O_NOFOLLOW on a symlink says ENOTDIR; name the real problem. */
        if (nofollow && (saved == ELOOP || saved == ENOTDIR) && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
                return tsync_error(err, ELOOP, "%s: is a symbolic link: refusing to write into it", path);
        return tsync_error(err, saved, "%s: %s", path, tsync_errtext(saved));
}

int tsync_write_atomic(const char *path, const void *buf, size_t len, mode_t mode, bool durable, struct tsync_err *err)
{
        _cleanup_free_ char *dir = NULL;
        const char *name;
        int r = split(path, &dir, &name, err);
        if (r < 0)
                return r;
        _cleanup_close_ int dfd = open_dir(dir, true, err);
        if (dfd < 0)
                return dfd;
        return tsync_write_at(dfd, path, name, buf, len, mode, durable ? TSYNC_WRITE_DURABLE : 0, err);
}

int tsync_write_over(const char *path, const struct stat *was, const void *buf, size_t len, struct tsync_err *err)
{
        _cleanup_close_ int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return tsync_error_errno(err, "%s", path);
        struct stat st;
        if (fstat(fd, &st) < 0)
                return tsync_error_errno(err, "%s", path);
        if (!S_ISREG(st.st_mode) || st.st_dev != was->st_dev || st.st_ino != was->st_ino)
                return tsync_error(err, ESTALE, "%s: replaced since it was read: not written", path);
        if (st.st_nlink != 1)
                return -EMLINK;
        /* From offset 0, the open's. */
        int r = tsync_write_all(fd, buf, len);
        if (r < 0)
                return tsync_error(err, -r, "%s: writing: %s", path, tsync_errtext(-r));
        /* Not to 0 first: ext4 would flush the text at close, as after a rename. */
        if (ftruncate(fd, (off_t)len) < 0)
                return tsync_error_errno(err, "%s: truncating", path);
        return 0;
}

int tsync_write_output(const char *path, const void *buf, size_t len, mode_t mode, struct tsync_err *err)
{
        if (strcmp(path, "-") == 0) {
                int r = tsync_write_all(STDOUT_FILENO, buf, len);
                if (r < 0)
                        return tsync_error(err, -r, "writing to standard output: %s", tsync_errtext(-r));
                return 0;
        }
        _cleanup_free_ char *dir = NULL;
        const char *name;
        int r = split(path, &dir, &name, err);
        if (r < 0)
                return r;
        _cleanup_close_ int dfd = open_dir(dir, false, err);
        if (dfd < 0)
                return dfd;
        return tsync_write_at(dfd, path, name, buf, len, mode, TSYNC_WRITE_DURABLE | TSYNC_WRITE_IN_PLACE, err);
}

void tsync_read_last_line(int fd, char *buf, size_t size)
{
        buf[0] = '\0';
        struct stat st;
        if (size < 2 || fstat(fd, &st) < 0 || st.st_size <= 0)
                return;
        off_t end = st.st_size;
        off_t from = end > (off_t)size - 1 ? end - (off_t)size + 1 : 0;
        ssize_t n = pread(fd, buf, size - 1, from);
        if (n <= 0)
                return;
        buf[n] = '\0';
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
                buf[--n] = '\0';
        char *line = strrchr(buf, '\n');
        if (line)
                memmove(buf, line + 1, strlen(line + 1) + 1);
}

int tsync_read_all(int fd, size_t max, size_t size_hint, char **ret, size_t *ret_len, struct tsync_err *err)
{
        /* one byte past the limit tells "exactly at the limit" from "more" */
        size_t want = max < SIZE_MAX - 1 ? max + 1 : SIZE_MAX - 1;
        size_t cap = size_hint && size_hint < want ? size_hint + 1 : (want < 65536 ? want : 65536);
        _cleanup_free_ char *buf = malloc(cap + 1);
        size_t len = 0;
        if (!buf)
                return tsync_error(err, ENOMEM, "out of memory");
        for (;;) {
                if (len == cap) {
                        if (cap >= want)
                                break;
                        size_t n = cap > want / 2 ? want : cap * 2;
                        char *b = realloc(buf, n + 1);
                        if (!b)
                                return tsync_error(err, ENOMEM, "out of memory");
                        buf = b;
                        cap = n;
                }
                ssize_t r = read(fd, buf + len, cap - len);
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        return tsync_error_errno(err, "read failed");
                }
                if (r == 0)
                        break;
                len += (size_t)r;
        }
        if (len > max)
                return tsync_error(err, EFBIG, "input is more than the limit of %zu bytes", max);
        buf[len] = '\0';
        *ret = TAKE_PTR(buf);
        *ret_len = len;
        return 0;
}

/* "<what>: " before a message, or nothing. */
#define WHAT_FMT        "%s%s"
#define WHAT_ARGS(what) (what) ? (what) : "", (what) ? ": " : ""

int tsync_read_file_at(int dfd, const char *name, const char *what, unsigned flags, size_t max, char **ret,
                       size_t *ret_len, struct stat *ret_st, struct tsync_err *err)
{
        int oflags = O_RDONLY | O_CLOEXEC | O_NOCTTY;
        if (flags & TSYNC_READ_NOFOLLOW)
                oflags |= O_NOFOLLOW;
        if (flags & TSYNC_READ_OPEN_NONBLOCK)
                oflags |= O_NONBLOCK;
        _cleanup_close_ int fd = openat(dfd, name, oflags);
        if (fd < 0)
                return tsync_error(err, errno, WHAT_FMT "%s", WHAT_ARGS(what), tsync_errtext(errno));
        if (flags & TSYNC_READ_OPEN_NONBLOCK) {
                int fl = fcntl(fd, F_GETFL);
                if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
                        return tsync_error(err, errno, WHAT_FMT "%s", WHAT_ARGS(what), tsync_errtext(errno));
        }
        struct stat st;
        if (fstat(fd, &st) < 0)
                return tsync_error(err, errno, WHAT_FMT "%s", WHAT_ARGS(what), tsync_errtext(errno));
        if (S_ISDIR(st.st_mode))
                return tsync_error(err, EISDIR, WHAT_FMT "is a directory", WHAT_ARGS(what));
        if ((flags & TSYNC_READ_REGULAR) && !S_ISREG(st.st_mode))
                return tsync_error(err, EINVAL, WHAT_FMT "not a regular file", WHAT_ARGS(what));
        /* pipes, character devices and /proc files report no useful size: tsync_read_all bounds them */
        if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > max)
                return tsync_error(err, EFBIG, WHAT_FMT "%jd bytes is more than the limit of %zu bytes",
                                   WHAT_ARGS(what), (intmax_t)st.st_size, max);
        int r = tsync_read_all(fd, max, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, ret, ret_len, err);
        if (r < 0)
                return what && err ? tsync_error_prefix(err, "%s", what) : r;
        if (ret_st)
                *ret_st = st;
        return 0;
}
