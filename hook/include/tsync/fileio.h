/* Writing files as root without harming what is not ours.
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

#include "tsync/error.h"

/* Writes all of buf to fd, retrying short writes and EINTR; 0 or -errno. */
int tsync_write_all(int fd, const void *buf, size_t len);

enum {
        TSYNC_WRITE_DURABLE = 1 << 0,  /* fsync the file and the directory: a crash cannot leave an empty file */
        TSYNC_WRITE_IN_PLACE = 1 << 1, /* a character device or a FIFO with a reader is written in place */
};

/* Writes buf[0..len) to name in the directory dfd by the rule above; dir names
 * dfd in messages. A new file gets mode (whatever the umask). On failure a
 * temp file is removed and name is untouched. */
int tsync_write_at(int dfd, const char *dir, const char *name, const void *buf, size_t len, mode_t mode, unsigned flags,
                   struct tsync_err *err);

/* tsync_write_at for a path whose directory we trust but whose last directory
 * component must not be a symbolic link (a bundle's, a state directory's).
 * Readers see the old file or the new one, never a mix, either way; durable adds
 * that a crash cannot leave an empty file behind the new name (the user's files).
 * Filter files delivered at every start need not pay for that: a crash ends the
 * container they were for, and an empty file fails the init closed. */
int tsync_write_atomic(const char *path, const void *buf, size_t len, mode_t mode, bool durable, struct tsync_err *err);

/* An output the user named: "-" is standard output; otherwise
 * tsync_write_at with TSYNC_WRITE_DURABLE | TSYNC_WRITE_IN_PLACE (directories
 * on the way are followed, the last component is not). */
int tsync_write_output(const char *path, const void *buf, size_t len, mode_t mode, struct tsync_err *err);

/* 0 if st is a directory owned by the effective uid that neither group nor
 * others can write; otherwise -EPERM with "<path>: must be a directory owned by
 * uid N and writable by it alone". The one check for the state root, state
 * directories and the cache directory. */
int tsync_check_private_dir(const char *path, const struct stat *st, struct tsync_err *err);
