/* Reading the filter files: every one is read whole into a static buffer (or
 * decoded there from the base64 of --filter-data), decoded (shared/filterfile.h)
 * and checked like the kernel would check it (shared/bpf.h) before the first is
 * applied, so a bad second file never leaves the process half filtered. */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "init.h"
#include "shared/base64.h"
#include "shared/bpf.h"
#include "shared/cleanup.h"
#include "shared/filterfile.h"

/* One instruction more than the format allows, so that an oversized file is
 * seen as such rather than cut at the limit. uint64_t: 8-byte alignment, as
 * tsync_filter_decode requires. Zero pages cost nothing until read into. */
#define BUF_WORDS ((TSYNC_FILTER_MAX_SIZE + 8) / 8)
static uint64_t buffers[INIT_MAX_FILTERS][BUF_WORDS];

/* "filter N (--filter-data)": the data itself is never printed (it may be
 * 44 KiB on one line, and says nothing to a reader). */
static char labels[INIT_MAX_FILTERS][32];

/* Opens path without following a symlink in any component: the filter
 * directory is a mount point in the container's root filesystem, and a
 * symlink planted there must stop the container, not redirect the init.
 * (A walk with O_NOFOLLOW rather than openat2, which not every kernel or
 * sandbox offers.) ".." is refused; a symlink anywhere on the way is -ELOOP,
 * whatever errno the kernel chose for it (ENOTDIR for a directory component). */
int init_open_no_symlinks(const char *path, int last_flags, mode_t mode)
{
        char component[256];
        const char *p = path;
        int dir = openat(AT_FDCWD, *p == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0)
                return -errno;
        for (;;) {
                while (*p == '/')
                        p++;
                size_t n = strcspn(p, "/");
                if (n == 0 || n >= sizeof(component) || (n == 2 && p[0] == '.' && p[1] == '.')) {
                        (void)close(dir);
                        return n == 0 ? -EISDIR : -EINVAL;
                }
                memcpy(component, p, n);
                component[n] = '\0';
                p += n;
                while (*p == '/')
                        p++;
                bool last = *p == '\0';
                int next = openat(dir, component, (last ? last_flags : O_PATH | O_DIRECTORY) | O_NOFOLLOW | O_CLOEXEC,
                                  mode);
                int saved = errno;
                struct stat st;
                if (next < 0 && (saved == ENOTDIR || saved == ELOOP) &&
                    fstatat(dir, component, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
                        saved = ELOOP;
                (void)close(dir);
                if (next < 0)
                        return -saved;
                if (last)
                        return next;
                dir = next;
        }
}

/* read_all's answer for a path that opens but is no regular file. */
#define NOT_REGULAR 1

/* Reads up to size bytes; *ret_more tells whether the file goes on. Returns 0,
 * NOT_REGULAR, or -errno (-EINVAL: a ".." or overlong component in the path). */
static int read_all(const char *path, void *buf, size_t size, size_t *ret_len, bool *ret_more)
{
        struct stat st;

        /* O_NONBLOCK: a FIFO planted as a filter file must be refused as
         * not regular, not block the init forever in open. */
        _cleanup_close_ int fd = init_open_no_symlinks(path, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0);
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return NOT_REGULAR;
        long len = tsync_filter_read(fd, buf, size);
        if (len < 0)
                return (int)len;
        char c;
        *ret_more = (size_t)len == size && tsync_filter_read(fd, &c, 1) > 0;
        *ret_len = (size_t)len;
        return 0;
}

/* The file into buf. Prints and returns -1, or 0 with *ret_size. */
static int load_file(const char *path, void *buf, size_t *ret_size)
{
        size_t size = 0;
        bool more = false;

        int r = read_all(path, buf, BUF_WORDS * 8, &size, &more);
        if (r == NOT_REGULAR) {
                init_log(path, "not a regular file");
                return -1;
        }
        if (r == -ELOOP) {
                init_log(path, "refused: a symbolic link in its path (the filter directory must be the runtime's "
                               "read-only mount, not a link planted in the root filesystem)");
                return -1;
        }
        if (r == -EINVAL) {
                init_log(path, "cannot read the filter file: the path has a '..' component or one longer than 255 "
                               "bytes");
                return -1;
        }
        if (r < 0) {
                init_log(path, "cannot read the filter file: %s", init_strerror(r));
                return -1;
        }
        if (more) {
                init_log(path, "bad filter file: larger than %u bytes (over %u instructions)", TSYNC_FILTER_MAX_SIZE,
                         TSYNC_FILTER_MAX_INSNS);
                return -1;
        }
        *ret_size = size;
        return 0;
}

/* The base64 text decoded into buf. Prints and returns -1, or 0 with
 * *ret_size. The decoder says only -EINVAL; the reason is found here, without
 * echoing the text. */
static int load_data(const char *name, const char *text, void *buf, size_t *ret_size)
{
        static const char accepted[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";

        long n = tsync_base64_decode(text, buf, TSYNC_FILTER_MAX_SIZE);
        if (n == -ENOSPC) {
                init_log(name, "bad filter file: larger than %u bytes (over %u instructions)", TSYNC_FILTER_MAX_SIZE,
                         TSYNC_FILTER_MAX_INSNS);
                return -1;
        }
        if (n < 0) {
                size_t len = strlen(text), ok = strspn(text, accepted);
                if (ok < len)
                        init_log(name,
                                 "not base64: byte %zu (%#04x) is outside A-Z a-z 0-9 + / and '=' (one line, no "
                                 "spaces)",
                                 ok, (unsigned)(unsigned char)text[ok]);
                else if (len % 4 != 0)
                        init_log(name, "not base64: its length (%zu) is not a multiple of 4", len);
                else
                        init_log(name, "not base64: misplaced '=' padding, or bits set after the last byte");
                return -1;
        }
        *ret_size = (size_t)n;
        return 0;
}

/* The same checks for a filter from a file or from --filter-data. */
static int check_one(const char *name, void *buf, size_t size, struct init_filter *ret)
{
        struct tsync_err err = { 0 };
        const struct sock_filter *prog;
        const char *why = NULL;
        size_t len;
        uint32_t flags;
        int r;

        if (size % 8 != 0) {
                init_log(name, "bad filter file: its size (%zu bytes) is not a multiple of 8", size);
                return -1;
        }
        uint32_t listener;
        r = tsync_filter_decode(buf, size, &prog, &len, &flags, &listener, &why);
        if (r < 0) {
                init_log(name, "bad filter file: %s", why ? why : init_strerror(r));
                return -1;
        }
        r = tsync_bpf_validate(prog, len, &err);
        if (r < 0) {
                init_log(name, "bad filter program: %s", err.msg);
                return -1;
        }
        /* A USER_NOTIF return needs a listener: exec-once's supervisor, an
         * agent, or the recorder (decode refused the reverse). */
        long at = tsync_filter_find_user_notif(prog, len);
        if (at >= 0 && listener == TSYNC_LISTENER_NONE) {
                init_log(name,
                         "instruction %ld returns SECCOMP_RET_USER_NOTIF, but the filter has no listener (neither "
                         "exec-once, an agent's nor a recording's)",
                         at);
                return -1;
        }
        struct tsync_filter_agent agent = { NULL, NULL };
        if (listener == TSYNC_LISTENER_AGENT && tsync_filter_decode_agent(buf, size, &agent) < 0) {
                init_log(name, "bad filter file: the agent's trailer");
                return -1;
        }
        *ret = (struct init_filter){ .name = name,
                                     .prog = prog,
                                     .len = len,
                                     .flags = flags,
                                     .listener = listener,
                                     .agent_path = agent.path,
                                     .agent_metadata = agent.metadata };
        return 0;
}

int init_filters_read(const struct init_config *cfg, struct init_filter *ret, size_t *ret_n)
{
        for (size_t i = 0; i < cfg->nfilters; i++) {
                const struct init_filter_source *src = &cfg->filters[i];
                const char *name = src->file;
                size_t size = 0;
                int r;

                if (src->data) {
                        (void)snprintf(labels[i], sizeof(labels[i]), "filter %zu (--filter-data)", i + 1);
                        name = labels[i];
                        r = load_data(name, src->data, buffers[i], &size);
                } else {
                        r = load_file(name, buffers[i], &size);
                }
                if (r < 0 || check_one(name, buffers[i], size, &ret[i]) < 0)
                        return -1;
                /* The kernel takes one listener among a task's filters (a second
                 * NEW_LISTENER load is EBUSY): exec-once and an agent, or two
                 * agents, cannot be had together. Said before anything is loaded. */
                for (size_t j = 0; ret[i].listener != TSYNC_LISTENER_NONE && j < i; j++) {
                        if (ret[j].listener != TSYNC_LISTENER_NONE) {
                                init_log(name,
                                         "a second filter with a listener (the first is %s): the kernel allows one "
                                         "listener among a process's filters",
                                         ret[j].name);
                                return -1;
                        }
                }
        }
        /* The recording filter is loaded after every other one, by the main
         * thread alone: the command line says so in the same order. */
        for (size_t i = 0; i + 1 < cfg->nfilters; i++) {
                if (ret[i].listener == TSYNC_LISTENER_RECORD) {
                        init_log(ret[i].name, "the recording filter must be the last filter (it is loaded after "
                                              "the others, by the init's main thread alone)");
                        return -1;
                }
        }
        *ret_n = cfg->nfilters;
        return 0;
}
