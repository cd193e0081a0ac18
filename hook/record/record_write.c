/* Where a recorded profile may be read from and written to on the host.
 *
 * poststop writes as root, to a path a container's annotation named, and the
 * container's processes may still have files open or own directories on the
 * way. So: an absolute path, no symbolic link at any component (each directory
 * is opened with O_NOFOLLOW from the one before it, so a link swapped in after
 * the check is refused too), no "." or ".." (the path as written is then the
 * path reached), and nothing under the container's rootfs, which the workload
 * can change. */
#include "record/record_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/fileio.h"

/* path's last component, after checking every component's spelling. */
static int check_spelling(const char *path, const char **ret_name, struct tsync_err *err)
{
        if (!path || !*path)
                return tsync_error(err, EINVAL, "no path");
        if (path[0] != '/')
                return tsync_error(err, EINVAL, "'%s' is not an absolute path", path);
        if (strlen(path) >= PATH_MAX)
                return tsync_error(err, ENAMETOOLONG, "'%.64s...' is longer than %d bytes", path, PATH_MAX - 1);
        const char *name = strrchr(path, '/') + 1;
        if (!*name)
                return tsync_error(err, EISDIR, "'%s' names a directory, not a file", path);
        for (const char *c = path; *c;) {
                while (*c == '/')
                        c++;
                size_t n = strcspn(c, "/");
                if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
                        return tsync_error(err, EINVAL, "'%s': '.' and '..' are refused in this path", path);
                c += n;
        }
        *ret_name = name;
        return 0;
}

/* True if path (no symlinks, no dot components) is rootfs or under it. */
static int under_rootfs(const char *path, const char *rootfs, bool *ret, struct tsync_err *err)
{
        if (rootfs[0] != '/')
                return tsync_error(err, EINVAL, "rootfs '%s' is not an absolute path", rootfs);
        _cleanup_free_ char *canon = realpath(rootfs, NULL);
        if (!canon)
                return tsync_error_errno(err, "rootfs '%s'", rootfs);
        size_t n = strlen(canon);
        /* "//a//b" is "/a/b" here, as the walk below reads it. */
        _cleanup_free_ char *squeezed = malloc(strlen(path) + 1);
        if (!squeezed)
                return tsync_error(err, ENOMEM, "out of memory");
        size_t k = 0;
        for (const char *c = path; *c; c++)
                if (*c != '/' || k == 0 || squeezed[k - 1] != '/')
                        squeezed[k++] = *c;
        squeezed[k] = '\0';
        *ret = strcmp(canon, "/") == 0 ||
               (strncmp(squeezed, canon, n) == 0 && (squeezed[n] == '/' || squeezed[n] == '\0'));
        return 0;
}

/* Opens the directory path's last component is in, one component at a time,
 * refusing symbolic links. */
static int open_parent(const char *path, const char *name, struct tsync_err *err)
{
        _cleanup_close_ int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return tsync_error_errno(err, "/");
        for (const char *c = path;;) {
                while (*c == '/')
                        c++;
                if (c >= name)
                        break;
                size_t n = strcspn(c, "/");
                int len = (int)(c + n - path); /* the path up to this component */
                char comp[NAME_MAX + 1];
                if (n > NAME_MAX)
                        return tsync_error(err, ENAMETOOLONG, "'%s': a component is longer than %d bytes", path,
                                           NAME_MAX);
                memcpy(comp, c, n);
                comp[n] = '\0';
                int next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0) {
                        int e = errno;
                        struct stat st;
                        if ((e == ELOOP || e == ENOTDIR) && fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                            S_ISLNK(st.st_mode))
                                return tsync_error(err, ELOOP, "'%s': '%.*s' is a symbolic link", path, len, path);
                        if (e == ENOENT)
                                return tsync_error(err, ENOENT, "'%s': the directory '%.*s' does not exist", path, len,
                                                   path);
                        return tsync_error(err, e, "'%s': '%.*s': %s", path, len, path, tsync_errtext(e));
                }
                (void)close(fd);
                fd = next;
                c += n;
        }
        /* Readable, for the directory's fsync after the rename. */
        int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return tsync_error_errno(err, "'%s': its directory", path);
        return dfd;
}

/* check_path's work, handing out the parent directory for a write. */
static int check(const char *path, unsigned flags, const char *rootfs, int *ret_dfd, const char **ret_name,
                 struct tsync_err *err)
{
        bool output = flags & TSYNC_RECORD_OUTPUT;
        const char *name = NULL;
        int r = check_spelling(path, &name, err);
        if (r < 0)
                return r;
        if (rootfs) {
                bool under = false;
                r = under_rootfs(path, rootfs, &under, err);
                if (r < 0)
                        return r;
                if (under)
                        return tsync_error(err, EPERM,
                                           "'%s' is under the container's rootfs '%s', which the container can change",
                                           path, rootfs);
        }
        _cleanup_close_ int dfd = open_parent(path, name, err);
        if (dfd < 0)
                return dfd;
        struct stat st;
        bool exists = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
        if (!exists && (errno != ENOENT || !output))
                return tsync_error_errno(err, "'%s'", path);
        if (exists && output && (flags & TSYNC_RECORD_NEW))
                return tsync_error(err, EEXIST,
                                   "'%s' exists: a recording never replaces a file already in the record-dir "
                                   "(name a new file)",
                                   path);
        if (exists && S_ISLNK(st.st_mode))
                return tsync_error(err, ELOOP, "'%s' is a symbolic link", path);
        if (exists && !S_ISREG(st.st_mode))
                return tsync_error(err, S_ISDIR(st.st_mode) ? EISDIR : EINVAL, "'%s' is not a regular file", path);
        /* tsync_write_at's rule, said before the workload runs rather than after. */
        if (exists && output && st.st_uid != geteuid())
                return tsync_error(err, EPERM, "'%s' is owned by uid %u, not by us (uid %u): refusing to replace it",
                                   path, (unsigned)st.st_uid, (unsigned)geteuid());
        if (ret_dfd)
                *ret_dfd = TAKE_FD(dfd);
        if (ret_name)
                *ret_name = name;
        return 0;
}

int tsync_record_check_path(const char *path, unsigned flags, const char *rootfs, struct tsync_err *err)
{
        return check(path, flags, rootfs, NULL, NULL, err);
}

int tsync_record_write(const char *path, const char *text, size_t len, const char *rootfs, unsigned flags,
                       struct tsync_err *err)
{
        _cleanup_close_ int dfd = -1;
        const char *name = NULL;
        flags |= TSYNC_RECORD_OUTPUT;
        int r = check(path, flags, rootfs, &dfd, &name, err);
        if (r < 0)
                return r;
        /* A temp file beside it (O_TMPFILE or O_EXCL), fsync, rename (or,
         * for a new file, a link that refuses an existing name), fsync of the
         * directory. */
        r = tsync_write_at(dfd, path, name, text, len, 0644,
                           TSYNC_WRITE_DURABLE | ((flags & TSYNC_RECORD_NEW) ? TSYNC_WRITE_NEW : 0), err);
        if (r == -EEXIST && (flags & TSYNC_RECORD_NEW))
                return tsync_error(err, EEXIST,
                                   "'%s' appeared before the profile was written: a recording never replaces a file "
                                   "already in the record-dir",
                                   path);
        return r;
}
