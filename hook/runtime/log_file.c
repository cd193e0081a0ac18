/* Our messages in the runtime's --log as well as on stderr. containerd's
 * runc shim hands the runtime the container's own stdio, so what we print on
 * stderr lands in the container's output; the shim reports the last "error"
 * line of the --log file (JSON lines) as the reason a create failed, which
 * `docker run` and `ctr run` then print. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"
#include "shared/cleanup.h"
#include "util/fileio.h"

#define LOG_MAX_BYTES (64u << 10)

static int saved_stderr = -1, captured = -1;

void rt_log_begin(const struct rt_cmdline *cl)
{
        if (!cl->log)
                return;
        fflush(stderr);
        captured = memfd_create("oci-seccomp-tsync-runtime-stderr", MFD_CLOEXEC);
        saved_stderr = captured < 0 ? -1 : fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
        if (saved_stderr < 0 || dup2(captured, STDERR_FILENO) < 0) {
                /* Then stderr alone carries our messages. */
                if (saved_stderr >= 0)
                        close(saved_stderr);
                if (captured >= 0)
                        close(captured);
                saved_stderr = captured = -1;
        }
}

static void json_line(FILE *f, const char *level, const char *msg, size_t len)
{
        char when[32];
        time_t now = time(NULL);
        struct tm tm;
        (void)strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
        fprintf(f, "{\"level\":\"%s\",\"msg\":\"", level);
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)msg[i];
                if (c == '"' || c == '\\')
                        fprintf(f, "\\%c", c);
                else if (c < 0x20)
                        fprintf(f, "\\u%04x", c);
                else
                        fputc(c, f);
        }
        fprintf(f, "\",\"time\":\"%s\"}\n", when);
}

void rt_log_end(const struct rt_cmdline *cl, bool failed)
{
        if (captured < 0)
                return;
        fflush(stderr);
        (void)dup2(saved_stderr, STDERR_FILENO);
        close(saved_stderr);
        _cleanup_close_ int fd = captured;
        saved_stderr = captured = -1;
        off_t size = lseek(fd, 0, SEEK_END);
        if (size <= 0)
                return;
        /* Not tsync_read_all: our own memfd, its offset at the end we wrote, and
         * a log past the limit is cut, not refused. */
        size_t len = size > (off_t)LOG_MAX_BYTES ? LOG_MAX_BYTES : (size_t)size;
        _cleanup_free_ char *text = malloc(len);
        if (!text || pread(fd, text, len, 0) != (ssize_t)len)
                return;
        (void)tsync_write_all(STDERR_FILENO, text, len);
        int log_fd = open(cl->log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
        FILE *log = log_fd < 0 ? NULL : fdopen(log_fd, "a");
        if (!log) {
                if (log_fd >= 0)
                        close(log_fd);
                return;
        }
        bool json = cl->log_format && strcmp(cl->log_format, "json") == 0;
        for (size_t at = 0; at < len;) {
                const char *line = text + at, *nl = memchr(line, '\n', len - at);
                size_t n = nl ? (size_t)(nl - line) : len - at;
                at += n + 1;
                const char *level = memmem(line, n, ": warning: ", 11) ? "warning" : failed ? "error" : "info";
                if (json)
                        json_line(log, level, line, n);
                else
                        fprintf(log, "%.*s\n", (int)n, line);
        }
        fclose(log);
}
