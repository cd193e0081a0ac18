#include "shared/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/errnos.h"

int tsync_error(struct tsync_err *err, int code, const char *fmt, ...)
{
        if (code < 0)
                code = -code;
        if (code == 0)
                code = EINVAL;
        if (err) {
                va_list ap;
                va_start(ap, fmt);
                (void)vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
                va_end(ap);
                err->code = code;
        }
        return -code;
}

int tsync_error_errno(struct tsync_err *err, const char *fmt, ...)
{
        int e = errno, code = e > 0 ? e : EINVAL;
        if (err) {
                va_list ap;
                va_start(ap, fmt);
                int n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
                va_end(ap);
                size_t at = n < 0 ? 0 : (size_t)n < sizeof(err->msg) ? (size_t)n : sizeof(err->msg) - 1;
                (void)snprintf(err->msg + at, sizeof(err->msg) - at, ": %s", tsync_errtext(e));
                err->code = code;
        }
        return -code;
}

int tsync_error_prefix(struct tsync_err *err, const char *fmt, ...)
{
        if (!err)
                return -EINVAL;
        char prefix[TSYNC_ERR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(prefix, sizeof(prefix), fmt, ap);
        va_end(ap);

        /* Shift the message right and put "<prefix>: " before it, cutting the tail if it no longer fits. */
        size_t plen = strnlen(prefix, sizeof(prefix) - 1), mlen = strnlen(err->msg, sizeof(err->msg) - 1);
        size_t room = sizeof(err->msg) - 1;
        if (plen + 2 > room)
                plen = room - 2;
        if (plen + 2 + mlen > room)
                mlen = room - plen - 2;
        memmove(err->msg + plen + 2, err->msg, mlen);
        memcpy(err->msg, prefix, plen);
        err->msg[plen] = ':';
        err->msg[plen + 1] = ' ';
        err->msg[plen + 2 + mlen] = '\0';
        if (err->code <= 0)
                err->code = EINVAL;
        return -err->code;
}

void *tsync_grow_vformat(void *list, size_t len, size_t size, char **ret_msg, const char *fmt, va_list ap)
{
        char *msg;
        if (vasprintf(&msg, fmt, ap) < 0)
                return NULL;
        void *grown = realloc(list, (len + 1) * size);
        if (!grown) {
                free(msg);
                return NULL;
        }
        *ret_msg = msg;
        return grown;
}

int tsync_warn(struct tsync_warnings *w, const char *fmt, ...)
{
        if (!w)
                return 0;
        char *msg;
        va_list ap;
        va_start(ap, fmt);
        char **grown = tsync_grow_vformat(w->msgs, w->len, sizeof(*grown), &msg, fmt, ap);
        va_end(ap);
        if (!grown)
                return -ENOMEM;
        grown[w->len++] = msg;
        w->msgs = grown;
        return 0;
}

void tsync_warnings_clear(struct tsync_warnings *w)
{
        if (!w)
                return;
        for (size_t i = 0; i < w->len; i++)
                free(w->msgs[i]);
        free(w->msgs);
        w->msgs = NULL;
        w->len = 0;
}
