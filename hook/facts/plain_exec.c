#include "facts/plain_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/fileio.h"

enum yama {
        YAMA_BLOCKS,  /* 1 or more: a process can ptrace only its descendants (or nothing) */
        YAMA_CLASSIC, /* 0: same uid and capabilities are enough */
        YAMA_ABSENT,
        YAMA_UNKNOWN, /* unreadable or not a number: nothing can be promised */
};

/* The sysctl holds a number and a newline; past that it is no number we know. */
#define SCOPE_MAX 64

int tsync_yama_scope(const char *path, long *ret_scope)
{
        _cleanup_free_ char *buf = NULL;
        size_t len;
        int r = tsync_read_file_at(AT_FDCWD, path, NULL, 0, SCOPE_MAX, &buf, &len, NULL, NULL);
        if (r < 0)
                return r;
        char *end;
        errno = 0;
        long v = strtol(buf, &end, 10);
        if (end == buf || (*end != '\0' && *end != '\n') || errno || v < 0)
                return -EBADMSG;
        *ret_scope = v;
        return 0;
}

static enum yama read_scope(const char *path, int *ret_errno)
{
        long v;
        int r = tsync_yama_scope(path, &v);
        *ret_errno = r < 0 && r != -EBADMSG ? -r : 0;
        if (r < 0)
                return r == -ENOENT ? YAMA_ABSENT : YAMA_UNKNOWN;
        return v == 0 ? YAMA_CLASSIC : YAMA_BLOCKS;
}

int tsync_warn_plain_exec(size_t n_layers, int exec_once, const char *ptrace_scope_path, struct tsync_warnings *w)
{
        char why[128];
        int e;

        if (n_layers == 0 && !exec_once)
                return 0;
        switch (read_scope(ptrace_scope_path, &e)) {
        case YAMA_BLOCKS:
                return 0;
        case YAMA_CLASSIC:
                (void)snprintf(why, sizeof(why), "%s is 0", ptrace_scope_path);
                break;
        case YAMA_ABSENT:
                (void)snprintf(why, sizeof(why), "this kernel has no Yama (no %s)", ptrace_scope_path);
                break;
        case YAMA_UNKNOWN:
                (void)snprintf(why, sizeof(why), "%s cannot be read%s%s", ptrace_scope_path, e ? ": " : "",
                               e ? tsync_errtext(e) : " as a number");
                break;
        }
        return tsync_warn(w,
                          "processes started by a plain `runc exec`, `crun exec` or `podman exec` carry only the "
                          "runtime's own linux.seccomp, without %s, and %s, so the workload can take them over "
                          "by ptrace or /proc/PID/mem: set kernel.yama.ptrace_scope to 1 or more, or run the "
                          "container with oci-seccomp-tsync-runtime",
                          n_layers && exec_once ? "the layers or exec once"
                          : n_layers            ? "the layers"
                                                : "exec once",
                          why);
}
