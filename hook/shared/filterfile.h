/* The compiled-filter file shared by the hook (writer, cache) and the init (reader).
 *
 * Layout, little-endian host order (the file never leaves the machine):
 *   offset 0  char     magic[8]   "TSYNCBPF"
 *          8  uint32_t version    TSYNC_FILTER_VERSION
 *         12  uint32_t flags      SECCOMP_FILTER_FLAG_* to pass with TSYNC (never TSYNC itself)
 *         16  uint32_t count      number of struct sock_filter that follow (1..BPF_MAXINSNS)
 *         20  uint32_t checksum   FNV-1a 32 of the header with checksum = 0, then the program
 *         24  uint32_t listener   enum tsync_listener
 *         28  uint32_t trailer    bytes after the program: 0, or for TSYNC_LISTENER_AGENT only,
 *                                 the agent's socket path and its metadata, each NUL-terminated,
 *                                 then 0 to 7 zero bytes to a multiple of 8
 *         32  struct sock_filter  program[count]
 *             char     trailer[trailer]
 * The checksum covers the header, the program and the trailer. The size is
 * therefore always 32 + 8 * count + trailer, a multiple of 8.
 *
 * This file must stay usable from the static init: libc only, no heap. */
#pragma once

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/seccomp_flags.h"

#define TSYNC_FILTER_MAGIC "TSYNCBPF"
/* 2: the listener field (version 1 had 8 reserved bytes there). A new version
 * changes the cache key too (cache.c), so no entry of another one is reused. */
#define TSYNC_FILTER_VERSION     2u
#define TSYNC_FILTER_HEADER_SIZE 32u
#define TSYNC_FILTER_MAX_INSNS   4096u /* BPF_MAXINSNS */
/* The agent's path is a sockaddr_un's sun_path (108 bytes with its NUL); the
 * rest is the metadata. 4096 keeps a filter's base64 within one argument. */
#define TSYNC_FILTER_MAX_TRAILER    4096u
#define TSYNC_FILTER_MAX_AGENT_PATH 107u
#define TSYNC_FILTER_MAX_SIZE       (TSYNC_FILTER_HEADER_SIZE + 8u * TSYNC_FILTER_MAX_INSNS + TSYNC_FILTER_MAX_TRAILER)

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
        /* The init connects to the agent's socket (the trailer's path) and
         * sends it the container's state with the listener (listenerPath). */
        TSYNC_LISTENER_AGENT = 2,
        /* Recording (record/record_file.h): loaded by the init's main thread alone,
         * without TSYNC, after the others; the workload child inherits it, and
         * the init's recorder answers every notification with CONTINUE, noting
         * the workload's (ABI, syscall) pairs. */
        TSYNC_LISTENER_RECORD = 3,
        TSYNC_LISTENER_MAX = TSYNC_LISTENER_RECORD,
};

struct tsync_filter_header {
        char magic[8];
        uint32_t version;
        uint32_t flags;
        uint32_t count;
        uint32_t checksum;
        uint32_t listener;
        uint32_t trailer;
};

/* A TSYNC_LISTENER_AGENT filter's trailer: where the init reaches the agent
 * (an absolute path, below 108 bytes) and the profile's listenerMetadata ("" when
 * absent). Decoded, both point into the file's buffer. */
struct tsync_filter_agent {
        const char *path;
        const char *metadata;
};

/* Serialises into buf (size >= TSYNC_FILTER_HEADER_SIZE + 8 * len). Returns the
 * number of bytes written, or -EINVAL (len 0 or too long, flags not allowed,
 * listener unknown or TSYNC_LISTENER_AGENT, or a listener for a program without
 * USER_NOTIF) / -ENOSPC. */
long tsync_filter_encode(const struct sock_filter *prog, size_t len, uint32_t flags, uint32_t listener, void *buf,
                         size_t size);

/* The same for a TSYNC_LISTENER_AGENT filter, with agent's trailer. -EINVAL
 * also for a path that is not absolute or too long, or a trailer over
 * TSYNC_FILTER_MAX_TRAILER. */
long tsync_filter_encode_agent(const struct sock_filter *prog, size_t len, uint32_t flags,
                               const struct tsync_filter_agent *agent, void *buf, size_t size);

/* The size of the file for len instructions and agent's trailer (NULL: none). */
size_t tsync_filter_file_size(size_t len, const struct tsync_filter_agent *agent);

/* The index of the first instruction that returns SECCOMP_RET_USER_NOTIF, or -1. */
long tsync_filter_find_user_notif(const struct sock_filter *prog, size_t len);

/* Reads fd into buf until size bytes or the end of the file, retrying on
 * EINTR (a filter file, or a cache entry holding one). Returns the number
 * of bytes read, or -errno. No allocation: the init uses it too. */
long tsync_filter_read(int fd, void *buf, size_t size);
/* One read(2) of at most size bytes, again after EINTR: the bytes read (0 at
 * the end), or -errno. For the init's readers of /proc too. */
long tsync_read_once(int fd, void *buf, size_t size);

/* Checks buf[0..size) is one complete filter file of this version. On success
 * sets *ret_prog to point into buf, *ret_len and *ret_flags. On failure returns
 * a negative errno and sets *ret_why to a static string naming the problem
 * ("bad magic", "version 7, expected 1", "truncated", "size is not 32 + 8 * count",
 * "checksum mismatch", "too many instructions", "unknown flags", "unknown
 * listener", "a listener, but no USER_NOTIF return", "trailer: ..."). Outputs
 * untouched on failure. */
int tsync_filter_decode(const void *buf, size_t size, const struct sock_filter **ret_prog, size_t *ret_len,
                        uint32_t *ret_flags, uint32_t *ret_listener, const char **ret_why);

/* The agent trailer of a file tsync_filter_decode accepts with
 * TSYNC_LISTENER_AGENT, pointing into buf. -ENOENT for another listener, or
 * tsync_filter_decode's refusal. */
int tsync_filter_decode_agent(const void *buf, size_t size, struct tsync_filter_agent *ret_agent);
