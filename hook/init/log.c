/* One line per message, written with a single write(2) so that lines from the
 * init and its workload never interleave mid-line; no stdio buffers, no heap. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "init.h"
#include "shared/errnos.h"

const char *init_strerror(int e)
{
        return tsync_errtext(e);
}

static void vlog(const char *what, const char *kind, const char *fmt, va_list ap)
{
        char line[1280];
        int saved = errno;
        /* what NULL: the message names its subject already. */
        int n = what ? snprintf(line, sizeof(line), "%s: %s: %s", INIT_PROGRAM, what, kind)
                     : snprintf(line, sizeof(line), "%s: %s", INIT_PROGRAM, kind);
        size_t len;

        if (n < 0)
                goto out;
        len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
        n = vsnprintf(line + len, sizeof(line) - len, fmt, ap);
        if (n > 0)
                len += (size_t)n < sizeof(line) - len ? (size_t)n : sizeof(line) - len - 1;
        /* Keep it one line whatever the arguments held. */
        for (size_t i = 0; i < len; i++)
                if (line[i] == '\n')
                        line[i] = ' ';
        if (len > sizeof(line) - 2)
                len = sizeof(line) - 2;
        line[len++] = '\n';
        for (size_t off = 0; off < len;) {
                ssize_t w = write(STDERR_FILENO, line + off, len - off);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        break;
                off += (size_t)w;
        }
out:
        errno = saved;
}

void init_log(const char *what, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vlog(what, "", fmt, ap);
        va_end(ap);
}

static void log_plain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_plain(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vlog(NULL, "", fmt, ap);
        va_end(ap);
}

void init_log_msg(const char *msg)
{
        log_plain("%s", msg);
}

void init_warn(const char *what, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vlog(what, "warning: ", fmt, ap);
        va_end(ap);
}
