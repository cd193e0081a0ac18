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
#include <stddef.h>
#include <stdint.h>

#include "tsync/seccomp_flags.h"

#define TSYNC_FILTER_MAGIC       "TSYNCBPF"
#define TSYNC_FILTER_VERSION     1u
#define TSYNC_FILTER_HEADER_SIZE 32u
#define TSYNC_FILTER_MAX_INSNS   4096u /* BPF_MAXINSNS */
#define TSYNC_FILTER_MAX_SIZE    (TSYNC_FILTER_HEADER_SIZE + 8u * TSYNC_FILTER_MAX_INSNS)

/* SECCOMP_FILTER_FLAG_* bits a filter file may carry: those a profile may ask for. */
#define TSYNC_FILTER_ALLOWED_FLAGS TSYNC_SECCOMP_PROFILE_FLAGS

struct tsync_filter_header {
        char magic[8];
        uint32_t version;
        uint32_t flags;
        uint32_t count;
        uint32_t checksum;
        uint64_t reserved;
};

/* Serialises into buf (size >= TSYNC_FILTER_HEADER_SIZE + 8 * len). Returns the
 * number of bytes written, or -EINVAL (len 0 or too long, flags not allowed) / -ENOSPC. */
long tsync_filter_encode(const struct sock_filter *prog, size_t len, uint32_t flags, void *buf, size_t size);

/* Reads fd into buf until size bytes or the end of the file, retrying on
 * EINTR (a filter file, or a cache entry holding one). Returns the number
 * of bytes read, or -errno. No allocation: the init uses it too. */
long tsync_filter_read(int fd, void *buf, size_t size);

/* Checks buf[0..size) is one complete filter file of this version. On success
 * sets *ret_prog to point into buf, *ret_len and *ret_flags. On failure returns
 * a negative errno and sets *ret_why to a static string naming the problem
 * ("bad magic", "version 7, expected 1", "truncated", "size is not 32 + 8 * count",
 * "checksum mismatch", "too many instructions", "unknown flags"). Outputs untouched on failure. */
int tsync_filter_decode(const void *buf, size_t size, const struct sock_filter **ret_prog, size_t *ret_len,
                        uint32_t *ret_flags, const char **ret_why);
