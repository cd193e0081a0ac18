/* Errors travel up as a negative errno plus a message that gains context on the way. */
#pragma once

#include <stddef.h>

#define TSYNC_ERR_MSG_MAX 1024

struct tsync_err {
        int code; /* positive errno */
        char msg[TSYNC_ERR_MSG_MAX];
};

/* Records code and message in err (which may be NULL) and returns -code. */
int tsync_error(struct tsync_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prepends "<prefix>: " to err->msg and returns -err->code. */
int tsync_error_prefix(struct tsync_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A growing list of warnings: the library never prints, the CLI does. */
struct tsync_warnings {
        char **msgs;
        size_t len;
};

/* Adds a formatted warning; returns 0 or -ENOMEM. w may be NULL (the warning is dropped). */
int tsync_warn(struct tsync_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tsync_warnings_clear(struct tsync_warnings *w);
