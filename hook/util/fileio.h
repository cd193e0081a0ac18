/* Reading and writing files as root without harming what is not ours.
 *
 * Every file we read whole goes through tsync_read_file_at (or tsync_read_all
 * for an fd we hold): bounded, NUL-terminated, with the open options the
 * caller's file needs.
 *
 * The rule for every file the hook, inject, compile or the cache writes: a
 * regular file owned by us (the effective uid), or a name that does not exist
 * yet, is written atomically (a temp file beside it, optionally fsync, rename).
 * Anything else under the name is never replaced: a symbolic link, a regular
 * file of another uid, a directory, a device, a FIFO or a socket is refused.
 * The one exception is an output the user named (tsync_write_output): a
 * character device or a FIFO with a reader is written in place, as a shell's
 * redirection would (`compile -o /dev/null` validates and writes nothing). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#ifndef __GLIBC__
#include <linux/stat.h> /* struct statx, which musl 1.2.3 lacks */
#endif

#include "shared/error.h"

enum {
        TSYNC_READ_NOFOLLOW = 1 << 0,      /* O_NOFOLLOW: a symbolic link as the last component is refused */
        TSYNC_READ_OPEN_NONBLOCK = 1 << 1, /* open with O_NONBLOCK (a FIFO without a writer cannot hang us), then read
                                              blocking (a pipe with a writer still works) */
        TSYNC_READ_REGULAR = 1 << 2,       /* anything but a regular file is refused (EINVAL) */
};

/* Reads fd to its end into a NUL-terminated buffer (a pipe is fine): at most
 * max bytes, EFBIG past that ("input is more than the limit of N bytes").
 * size_hint (0: unknown) sizes the first allocation. */
int tsync_read_all(int fd, size_t max, size_t size_hint, char **ret, size_t *ret_len, struct tsync_err *err);

/* Opens name in dfd (AT_FDCWD: a path) read-only, O_CLOEXEC | O_NOCTTY with
 * flags' options, and reads it whole as tsync_read_all does. A directory is
 * EISDIR; a regular file larger than max is EFBIG before anything is read.
 * what names the file in messages ("<what>: ..."; NULL: no name). ret_st
 * (optional) gets the open file's stat. err may be NULL (a caller that needs
 * only the -errno). A /proc file (size 0 to stat) is read to its end, bounded
 * by max like a pipe. */
int tsync_read_file_at(int dfd, const char *name, const char *what, unsigned flags, size_t max, char **ret,
                       size_t *ret_len, struct stat *ret_st, struct tsync_err *err);

/* The last non-empty line of the regular file open as fd, for a message (a
 * runtime's log or standard error): only its last size - 1 bytes are read
 * (pread, so the file offset does not move), so of a longer line its end;
 * trailing newlines dropped. buf gets "" when there is nothing to read. */
void tsync_read_last_line(int fd, char *buf, size_t size);

/* renameat2(2) by its system call: glibc has had a wrapper since 2.28, musl
 * 1.2.3 (Debian 12's) none. 0 or -errno. */
#define TSYNC_RENAME_NOREPLACE (1u << 0)
#define TSYNC_RENAME_EXCHANGE  (1u << 1)
int tsync_renameat2(int olddfd, const char *oldname, int newdfd, const char *newname, unsigned flags);

/* statx(2) by its system call, as glibc's wrapper does (musl 1.2.3 has none):
 * 0, or -1 with errno set. */
int tsync_statx(int dfd, const char *path, int flags, unsigned mask, struct statx *buf);

/* Writes all of buf to fd, retrying short writes and EINTR; 0 or -errno. */
int tsync_write_all(int fd, const void *buf, size_t len);

/* The most pieces tsync_write_allv and tsync_write_atv take. */
#define TSYNC_WRITE_MAX_PIECES 8
struct iovec;
struct stat;
/* tsync_write_all of iov[0..n) one after the other, in one writev where the
 * kernel takes it all (-EINVAL past TSYNC_WRITE_MAX_PIECES). */
int tsync_write_allv(int fd, const struct iovec *iov, size_t n);

enum {
        TSYNC_WRITE_DURABLE = 1 << 0,  /* fsync the file and the directory: a crash cannot leave an empty file */
        TSYNC_WRITE_IN_PLACE = 1 << 1, /* a character device or a FIFO with a reader is written in place */
        TSYNC_WRITE_CONTENT = 1 << 2,  /* fsync the file before it takes the name, not the directory: a crash
                                        * leaves the old file or the whole new one, never an empty one (the
                                        * new name itself may be lost) */
        TSYNC_WRITE_NEW = 1 << 3,      /* name must not exist: -EEXIST, also when it appears while the file is
                                        * written (linked or renamed without replacing, never over it) */
};

/* Writes buf[0..len) to name in the directory dfd by the rule above; dir names
 * dfd in messages. A new file gets mode (whatever the umask). On failure a
 * temp file is removed and name is untouched. */
int tsync_write_at(int dfd, const char *dir, const char *name, const void *buf, size_t len, mode_t mode, unsigned flags,
                   struct tsync_err *err);
/* tsync_write_at of the pieces iov[0..n) as one content: a text spliced
 * from parts is written without first being copied whole (the exec view's
 * config.json). */
int tsync_write_atv(int dfd, const char *dir, const char *name, const struct iovec *iov, size_t n, mode_t mode,
                    unsigned flags, struct tsync_err *err);

/* tsync_write_at for a path whose directory we trust but whose last directory
 * component must not be a symbolic link (a bundle's, a state directory's).
 * Readers see the old file or the new one, never a mix, either way; durable adds
 * that a crash cannot leave an empty file behind the new name (the user's files).
 * Filter files delivered at every start need not pay for that: a crash ends the
 * container they were for, and an empty file fails the init closed. */
int tsync_write_atomic(const char *path, const void *buf, size_t len, mode_t mode, bool durable, struct tsync_err *err);

/* Replaces the text of the regular file at path in place (no new inode, no
 * rename): for a file nobody reads until the call returns, and whose torn text
 * (a crash midway leaves the new text's start over the old one) fails to
 * parse, as a bundle's config.json before the runtime is started. On ext4 a
 * rename over a file starts writeback of the new one (auto_da_alloc): this
 * does not. path must still name the file of was (its device and inode, read
 * under the caller's lock): -ESTALE otherwise. -EMLINK, writing nothing, when
 * it has another name, which would see the new text too (the caller writes a
 * new file instead). The last component is not followed. */
int tsync_write_over(const char *path, const struct stat *was, const void *buf, size_t len, struct tsync_err *err);

/* An output the user named: "-" is standard output; otherwise
 * tsync_write_at with TSYNC_WRITE_DURABLE | TSYNC_WRITE_IN_PLACE (directories
 * on the way are followed, the last component is not). */
int tsync_write_output(const char *path, const void *buf, size_t len, mode_t mode, struct tsync_err *err);

/* 0 if st is a directory owned by the effective uid that neither group nor
 * others can write; otherwise -EPERM with "<path>: must be a directory owned by
 * uid N and writable by it alone". The one check for the state root, state
 * directories and the cache directory. */
int tsync_check_private_dir(const char *path, const struct stat *st, struct tsync_err *err);
