/* Every front end's messages: one line on stderr, and in the system log
 * once it is enabled (syslog.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include "facts/plain_exec.h"
#include "frontend/frontend.h"
#include "plan/plan.h"
#include "shared/cleanup.h"
#include "util/json.h"

/* Every line goes to stderr and, once frontend_syslog_enable was
 * called, to the system log (syslog.c): text is what follows "PROGRAM: ". */
static void say(int priority, const char *text)
{
        /* The logger first: where there is none, that is said before the line. */
        frontend_syslog(priority, text);
        fprintf(stderr, "%s: %s\n", PROGRAM, text);
}

static void sayf(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sayf(int priority, const char *fmt, ...)
{
        _cleanup_free_ char *text = NULL;
        va_list ap;
        va_start(ap, fmt);
        int n = vasprintf(&text, fmt, ap);
        va_end(ap);
        if (n < 0) {
                /* Out of memory: at least the format's words, on stderr. */
                fprintf(stderr, "%s: %s\n", PROGRAM, fmt);
                text = NULL;
                return;
        }
        say(priority, text);
}

void frontend_error(const char *where, const struct tsync_err *err)
{
        sayf(LOG_ERR, "%s: %s", where, err->msg);
}

char *frontend_vformat(const char *fmt, va_list ap)
{
        char *msg = NULL;
        return vasprintf(&msg, fmt, ap) < 0 ? NULL : msg;
}

/* One line, where: TAG MESSAGE; the format itself when memory ran out. */
static void say_v(int priority, const char *where, const char *tag, const char *fmt, va_list ap)
        __attribute__((format(printf, 4, 0)));
static void say_v(int priority, const char *where, const char *tag, const char *fmt, va_list ap)
{
        _cleanup_free_ char *msg = frontend_vformat(fmt, ap);
        sayf(priority, "%s: %s%s", where, tag, msg ? msg : fmt);
}

void frontend_errorf(const char *where, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        say_v(LOG_ERR, where, "", fmt, ap);
        va_end(ap);
}

void frontend_warnf(const char *where, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        say_v(LOG_WARNING, where, "warning: ", fmt, ap);
        va_end(ap);
}

void frontend_warnings(const char *where, struct tsync_warnings *w)
{
        for (size_t i = 0; i < w->len; i++)
                sayf(LOG_WARNING, "%s: warning: %s", where, w->msgs[i]);
        tsync_warnings_clear(w);
}

void frontend_warn_replace(const char *where, const struct tsync_json *config, const char *exec)
{
        sayf(LOG_WARNING,
             "%s: replace mode: linux.seccomp now applies only to the container's init and its children; "
             "processes started with `%s` run without it",
             where, exec);
        const struct tsync_json *hooks = tsync_json_get(tsync_json_get(config, "hooks"), "startContainer");
        if (hooks && hooks->type == TSYNC_JSON_ARRAY && hooks->u.array.len > 0)
                sayf(LOG_WARNING,
                     "%s: replace mode: the config's %zu startContainer hook%s run%s in the container before "
                     "the init loads linux.seccomp, so without it (the runtime alone runs them under it)",
                     where, hooks->u.array.len, hooks->u.array.len == 1 ? "" : "s", hooks->u.array.len == 1 ? "s" : "");
}

size_t frontend_warn_plain_exec(const char *where, size_t n_layers, int exec_once)
{
        struct tsync_warnings w = { 0 };
        /* -ENOMEM only: a warning lost to it changes nothing the container gets. */
        (void)tsync_warn_plain_exec(n_layers, exec_once, TSYNC_YAMA_PTRACE_SCOPE, &w);
        size_t n = w.len;
        frontend_warnings(where, &w);
        return n;
}
