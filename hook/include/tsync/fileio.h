#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tsync/error.h"

/* Writes all of buf to fd, retrying short writes and EINTR; 0 or -errno. */
int tsync_write_all(int fd, const void *buf, size_t len);

/* Replaces path with buf[0..len) atomically: a temp file beside it, fsync when
 * durable, rename. On any failure the temp file is removed and path is untouched.
 * Readers see the old file or the new one, never a mix, either way; durable adds
 * that a crash cannot leave an empty file behind the new name (the user's files).
 * Filter files delivered at every start need not pay for that: a crash ends the
 * container they were for, and an empty file fails the init closed. */
int tsync_write_atomic(const char *path, const void *buf, size_t len, mode_t mode, bool durable,
                       struct tsync_err *err);
