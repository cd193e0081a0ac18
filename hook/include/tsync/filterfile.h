/* The compiled-filter file shared by the hook (writer, cache) and the init (reader).
 *
 * Layout, little-endian host order (the file never leaves the machine):
 *   offset 0  char     magic[8]   "TSYNCBPF"
 *          8  uint32_t version    TSYNC_FILTER_VERSION
 *         12  uint32_t flags      SECCOMP_FILTER_FLAG_* to pass with TSYNC (never TSYNC itself)
 *         16  uint32_t count      number of struct sock_filter that follow (1..BPF_MAXINSNS)
 *         20  uint32_t checksum   FNV-1a 32 of the header with checksum = 0, then the program
 *         24  uint64_t reserved   0
 *         32  struct sock_filter  program[count]
 * The size is therefore always 32 + 8 * count, a multiple of 8.
 *
 * This file must stay usable from the static init: libc only, no heap. */
#pragma once

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>

#include "tsync/seccomp_flags.h"

#define TSYNC_FILTER_MAGIC "TSYNCBPF"
/* 2: the listener field (version 1 had 8 reserved bytes there). A new version
 * changes the cache key too (cache.c), so no entry of another one is reused. */
#define TSYNC_FILTER_VERSION     2u
#define TSYNC_FILTER_HEADER_SIZE 32u
#define TSYNC_FILTER_MAX_INSNS   4096u /* BPF_MAXINSNS */
#define TSYNC_FILTER_MAX_SIZE    (TSYNC_FILTER_HEADER_SIZE + 8u * TSYNC_FILTER_MAX_INSNS)

/* SECCOMP_FILTER_FLAG_* bits a filter file may carry: those a profile may ask for. */
#define TSYNC_FILTER_ALLOWED_FLAGS TSYNC_SECCOMP_PROFILE_FLAGS

/* Whether the init loads the filter with a notification listener
 * (SECCOMP_FILTER_FLAG_NEW_LISTENER, with TSYNC_ESRCH) and what it does with
 * it. A filter with a listener must return USER_NOTIF somewhere; the init
 * refuses USER_NOTIF in a filter without one. */
enum tsync_listener {
        TSYNC_LISTENER_NONE = 0,
        /* The init's supervisor lets the workload child's first execve through
         * and answers every other notification with an errno (--exec-once). */
        TSYNC_LISTENER_EXEC_ONCE = 1,
        /* 2 is kept for a notify agent's listener (listenerPath). */
        TSYNC_LISTENER_MAX = TSYNC_LISTENER_EXEC_ONCE,
};

struct tsync_filter_header {
        char magic[8];
        uint32_t version;
        uint32_t flags;
        uint32_t count;
        uint32_t checksum;
        uint32_t listener;
        uint32_t reserved;
};

/* Serialises into buf (size >= TSYNC_FILTER_HEADER_SIZE + 8 * len). Returns the
 * number of bytes written, or -EINVAL (len 0 or too long, flags not allowed,
 * listener unknown, or a listener for a program without USER_NOTIF) / -ENOSPC. */
long tsync_filter_encode(const struct sock_filter *prog, size_t len, uint32_t flags, uint32_t listener, void *buf,
                         size_t size);

/* The index of the first instruction that returns SECCOMP_RET_USER_NOTIF, or -1. */
long tsync_filter_find_user_notif(const struct sock_filter *prog, size_t len);

/* Reads fd into buf until size bytes or the end of the file, retrying on
 * EINTR (a filter file, or a cache entry holding one). Returns the number
 * of bytes read, or -errno. No allocation: the init uses it too. */
long tsync_filter_read(int fd, void *buf, size_t size);

/* Checks buf[0..size) is one complete filter file of this version. On success
 * sets *ret_prog to point into buf, *ret_len and *ret_flags. On failure returns
 * a negative errno and sets *ret_why to a static string naming the problem
 * ("bad magic", "version 7, expected 1", "truncated", "size is not 32 + 8 * count",
 * "checksum mismatch", "too many instructions", "unknown flags", "unknown
 * listener", "a listener, but no USER_NOTIF return"). Outputs untouched on failure. */
int tsync_filter_decode(const void *buf, size_t size, const struct sock_filter **ret_prog, size_t *ret_len,
                        uint32_t *ret_flags, uint32_t *ret_listener, const char **ret_why);
