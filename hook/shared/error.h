/* Errors travel up as a negative errno plus a message that gains context on the way. */
#pragma once

#include <stdarg.h>
#include <stddef.h>

#define TSYNC_ERR_MSG_MAX 1024

struct tsync_err {
        int code; /* positive errno */
        char msg[TSYNC_ERR_MSG_MAX];
};

/* Records code and message in err (which may be NULL) and returns -code. */
int tsync_error(struct tsync_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* tsync_error with errno, the message ending ": <errno in words>" (as
 * tsync_errtext words it): the one way a failed call's errno is told. */
int tsync_error_errno(struct tsync_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prepends "<prefix>: " to err->msg and returns -err->code. */
int tsync_error_prefix(struct tsync_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How every list of messages grows, whatever else its elements hold (struct
 * tsync_warnings, a lint's findings): fmt formatted into a new message, and
 * list, len elements of size bytes, reallocated to len + 1. Returns the grown
 * list, whose element [len] the caller fills with *ret_msg; NULL when memory
 * ran out, list and *ret_msg untouched. The host's: it allocates. */
void *tsync_grow_vformat(void *list, size_t len, size_t size, char **ret_msg, const char *fmt, va_list ap)
        __attribute__((format(printf, 5, 0)));

/* A growing list of warnings: the library never prints, the CLI does. */
struct tsync_warnings {
        char **msgs;
        size_t len;
};

/* Adds a formatted warning; returns 0 or -ENOMEM. w may be NULL (the warning is dropped). */
int tsync_warn(struct tsync_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tsync_warnings_clear(struct tsync_warnings *w);
