/* The compiled-filter file. Compiled into the static init as well as the
 * library: libc only, no heap, no state. Header fields are copied with memcpy
 * because the caller's buffer need only be aligned for struct sock_filter. */
#include "shared/filterfile.h"

#include <errno.h>
#include <stdalign.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(struct tsync_filter_header) == TSYNC_FILTER_HEADER_SIZE, "header layout");
_Static_assert(sizeof(struct sock_filter) == 8, "sock_filter layout");
_Static_assert(sizeof(TSYNC_FILTER_MAGIC) - 1 == sizeof(((struct tsync_filter_header *)0)->magic), "magic size");

#define FNV32_OFFSET 2166136261u
#define FNV32_PRIME  16777619u

/* FNV-1a is not cryptographic; it is here to catch torn writes and bit rot.
 * Each step (xor a byte, multiply by an odd prime mod 2^32) is a bijection of
 * the running hash, so any single changed byte always changes the result. */
static uint32_t fnv1a(uint32_t h, const void *data, size_t len)
{
        const unsigned char *p = data;

        for (size_t i = 0; i < len; i++) {
                h ^= p[i];
                h *= FNV32_PRIME;
        }
        return h;
}

/* prog is followed by the trailer (hdr->trailer bytes) in the same buffer. */
static uint32_t checksum(const struct tsync_filter_header *hdr, const void *prog, size_t len)
{
        struct tsync_filter_header h = *hdr;

        h.checksum = 0;
        return fnv1a(fnv1a(FNV32_OFFSET, &h, sizeof(h)), prog, len * sizeof(struct sock_filter) + hdr->trailer);
}

/* The trailer's size for agent, or 0 when its strings do not fit the format. */
static size_t trailer_size(const struct tsync_filter_agent *agent)
{
        if (!agent->path || !agent->metadata || agent->path[0] != '/')
                return 0;
        size_t plen = strnlen(agent->path, TSYNC_FILTER_MAX_AGENT_PATH + 1);
        size_t mlen = strnlen(agent->metadata, TSYNC_FILTER_MAX_TRAILER);
        if (plen > TSYNC_FILTER_MAX_AGENT_PATH)
                return 0;
        size_t n = (plen + 1 + mlen + 1 + 7) & ~(size_t)7;
        return n <= TSYNC_FILTER_MAX_TRAILER ? n : 0;
}

size_t tsync_filter_file_size(size_t len, const struct tsync_filter_agent *agent)
{
        return TSYNC_FILTER_HEADER_SIZE + len * sizeof(struct sock_filter) + (agent ? trailer_size(agent) : 0);
}

long tsync_filter_find_user_notif(const struct sock_filter *prog, size_t len)
{
        for (size_t i = 0; i < len; i++)
                if (prog[i].code == (BPF_RET | BPF_K) &&
                    (prog[i].k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF)
                        return (long)i;
        return -1;
}

static long encode(const struct sock_filter *prog, size_t len, uint32_t flags, uint32_t listener,
                   const struct tsync_filter_agent *agent, void *buf, size_t size)
{
        struct tsync_filter_header hdr;
        size_t trailer = 0, need;

        if (!prog || len == 0 || len > TSYNC_FILTER_MAX_INSNS)
                return -EINVAL;
        if (flags & ~TSYNC_FILTER_ALLOWED_FLAGS)
                return -EINVAL;
        if (listener > TSYNC_LISTENER_MAX ||
            (listener != TSYNC_LISTENER_NONE && tsync_filter_find_user_notif(prog, len) < 0))
                return -EINVAL;
        if ((listener == TSYNC_LISTENER_AGENT) != (agent != NULL))
                return -EINVAL;
        if (agent) {
                trailer = trailer_size(agent);
                if (trailer == 0)
                        return -EINVAL;
        }
        need = TSYNC_FILTER_HEADER_SIZE + len * sizeof(struct sock_filter) + trailer;
        if (!buf || size < need)
                return -ENOSPC;

        memset(&hdr, 0, sizeof(hdr));
        memcpy(hdr.magic, TSYNC_FILTER_MAGIC, sizeof(hdr.magic));
        hdr.version = TSYNC_FILTER_VERSION;
        hdr.flags = flags;
        hdr.count = (uint32_t)len;
        hdr.listener = listener;
        hdr.trailer = (uint32_t)trailer;

        unsigned char *p = buf, *t = p + TSYNC_FILTER_HEADER_SIZE + len * sizeof(struct sock_filter);
        memcpy(p + TSYNC_FILTER_HEADER_SIZE, prog, len * sizeof(struct sock_filter));
        if (agent) {
                size_t plen = strlen(agent->path) + 1;
                memset(t, 0, trailer);
                memcpy(t, agent->path, plen);
                memcpy(t + plen, agent->metadata, strlen(agent->metadata));
        }
        hdr.checksum = checksum(&hdr, p + TSYNC_FILTER_HEADER_SIZE, len);
        memcpy(buf, &hdr, sizeof(hdr));
        return (long)need;
}

long tsync_filter_encode(const struct sock_filter *prog, size_t len, uint32_t flags, uint32_t listener, void *buf,
                         size_t size)
{
        return encode(prog, len, flags, listener, NULL, buf, size);
}

long tsync_filter_encode_agent(const struct sock_filter *prog, size_t len, uint32_t flags,
                               const struct tsync_filter_agent *agent, void *buf, size_t size)
{
        if (!agent)
                return -EINVAL;
        return encode(prog, len, flags, TSYNC_LISTENER_AGENT, agent, buf, size);
}

/* Every refusal is -EBADMSG: the bytes are not a filter file we accept. The
 * one exception is a misaligned buffer (-EINVAL), a bug in the caller. */
static int refuse(const char **ret_why, const char *why)
{
        if (ret_why)
                *ret_why = why;
        return -EBADMSG;
}

/* The trailer t[0..n): exactly the path's string, the metadata's, then fewer
 * than 8 zero bytes. Returns the refusal's reason, or NULL. */
static const char *check_trailer(const char *t, size_t n, struct tsync_filter_agent *ret)
{
        const char *end = memchr(t, '\0', n);
        if (!end)
                return "trailer: the agent's path is not terminated";
        if (t[0] != '/')
                return "trailer: the agent's path is not absolute";
        if ((size_t)(end - t) > TSYNC_FILTER_MAX_AGENT_PATH)
                return "trailer: the agent's path is too long for a socket address";
        const char *meta = end + 1, *mend = memchr(meta, '\0', n - (size_t)(meta - t));
        if (!mend)
                return "trailer: the metadata is not terminated";
        size_t used = (size_t)(mend + 1 - t);
        if (n - used >= 8)
                return "trailer: more than the padding after the metadata";
        for (size_t i = used; i < n; i++)
                if (t[i] != '\0')
                        return "trailer: padding is not zero";
        ret->path = t;
        ret->metadata = meta;
        return NULL;
}

static int decode(const void *buf, size_t size, const struct sock_filter **ret_prog, size_t *ret_len,
                  uint32_t *ret_flags, uint32_t *ret_listener, struct tsync_filter_agent *ret_agent,
                  const char **ret_why)
{
        struct tsync_filter_agent agent = { NULL, NULL };
        struct tsync_filter_header hdr;
        const unsigned char *p = buf;
        size_t expect;

        if (!buf || (uintptr_t)buf % alignof(struct sock_filter) != 0) {
                if (ret_why)
                        *ret_why = "buffer is not aligned for struct sock_filter";
                return -EINVAL;
        }
        if (size < TSYNC_FILTER_HEADER_SIZE)
                return refuse(ret_why, "truncated");
        memcpy(&hdr, p, sizeof(hdr));

        if (memcmp(hdr.magic, TSYNC_FILTER_MAGIC, sizeof(hdr.magic)) != 0)
                return refuse(ret_why, "bad magic");
        /* A constant string (not "version 7, ...") keeps this free of static buffers. */
        if (hdr.version != TSYNC_FILTER_VERSION)
                return refuse(ret_why, "unsupported version, expected 2");
        if (hdr.count == 0)
                return refuse(ret_why, "no instructions");
        if (hdr.count > TSYNC_FILTER_MAX_INSNS)
                return refuse(ret_why, "too many instructions");
        if (hdr.trailer > TSYNC_FILTER_MAX_TRAILER)
                return refuse(ret_why, "trailer too long");
        if (hdr.trailer % 8 != 0)
                return refuse(ret_why, "trailer is not a multiple of 8 bytes");
        /* count and trailer are bounded above, so this cannot overflow. */
        expect = TSYNC_FILTER_HEADER_SIZE + (size_t)hdr.count * sizeof(struct sock_filter) + hdr.trailer;
        if (size < expect)
                return refuse(ret_why, "truncated");
        if (size > expect)
                return refuse(ret_why, "trailing bytes");
        if (hdr.flags & ~TSYNC_FILTER_ALLOWED_FLAGS)
                return refuse(ret_why, "unknown flags");
        if (hdr.listener > TSYNC_LISTENER_MAX)
                return refuse(ret_why, "unknown listener");
        if (hdr.listener == TSYNC_LISTENER_AGENT && hdr.trailer == 0)
                return refuse(ret_why, "an agent's listener, but no trailer");
        if (hdr.listener != TSYNC_LISTENER_AGENT && hdr.trailer != 0)
                return refuse(ret_why, "a trailer, but not an agent's listener");
        if (hdr.checksum != checksum(&hdr, p + TSYNC_FILTER_HEADER_SIZE, hdr.count))
                return refuse(ret_why, "checksum mismatch");
        if (hdr.trailer != 0) {
                const char *why = check_trailer((const char *)p + expect - hdr.trailer, hdr.trailer, &agent);
                if (why)
                        return refuse(ret_why, why);
        }
        /* A listener nothing is ever sent to would be a supervisor (or an
         * agent's socket) waiting for nothing: a file made by hand. */
        if (hdr.listener != TSYNC_LISTENER_NONE &&
            tsync_filter_find_user_notif((const struct sock_filter *)(const void *)(p + TSYNC_FILTER_HEADER_SIZE),
                                         hdr.count) < 0)
                return refuse(ret_why, "a listener, but no USER_NOTIF return");

        if (ret_prog)
                *ret_prog = (const struct sock_filter *)(const void *)(p + TSYNC_FILTER_HEADER_SIZE);
        if (ret_len)
                *ret_len = hdr.count;
        if (ret_flags)
                *ret_flags = hdr.flags;
        if (ret_listener)
                *ret_listener = hdr.listener;
        if (ret_agent)
                *ret_agent = agent;
        return 0;
}

int tsync_filter_decode(const void *buf, size_t size, const struct sock_filter **ret_prog, size_t *ret_len,
                        uint32_t *ret_flags, uint32_t *ret_listener, const char **ret_why)
{
        return decode(buf, size, ret_prog, ret_len, ret_flags, ret_listener, NULL, ret_why);
}

int tsync_filter_decode_agent(const void *buf, size_t size, struct tsync_filter_agent *ret_agent)
{
        struct tsync_filter_agent agent;
        uint32_t listener;
        int r = decode(buf, size, NULL, NULL, NULL, &listener, &agent, NULL);

        if (r < 0)
                return r;
        if (listener != TSYNC_LISTENER_AGENT)
                return -ENOENT;
        *ret_agent = agent;
        return 0;
}

long tsync_read_once(int fd, void *buf, size_t size)
{
        for (;;) {
                ssize_t n = read(fd, buf, size);
                if (n >= 0)
                        return (long)n;
                if (errno != EINTR)
                        return -errno;
        }
}

long tsync_filter_read(int fd, void *buf, size_t size)
{
        size_t len = 0;

        while (len < size) {
                long n = tsync_read_once(fd, (char *)buf + len, size - len);
                if (n <= 0)
                        return n < 0 ? n : (long)len;
                len += (size_t)n;
        }
        return (long)len;
}
