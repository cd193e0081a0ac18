#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "tsync/error.h"

/* Writes all of buf to fd, retrying short writes and EINTR; 0 or -errno. */
int tsync_write_all(int fd, const void *buf, size_t len);

/* Replaces path with buf[0..len) atomically: a temp file beside it, fsync,
 * rename. On any failure the temp file is removed and path is untouched. */
int tsync_write_atomic(const char *path, const void *buf, size_t len, mode_t mode, struct tsync_err *err);
