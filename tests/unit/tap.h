/* Minimal TAP producer for the C unit tests: one "ok N - name" line per check. */
#pragma once

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_count;
static int tap_failed;

__attribute__((format(printf, 2, 3))) static inline int tap_ok(int cond, const char *fmt, ...)
{
        va_list ap;
        tap_count++;
        if (!cond)
                tap_failed++;
        printf("%sok %d - ", cond ? "" : "not ", tap_count);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
        fflush(stdout);
        return cond;
}

/* A check that cannot run on this machine: counted as skipped, never as passed. */
__attribute__((format(printf, 2, 3))) static inline void tap_skip(const char *why, const char *fmt, ...)
{
        va_list ap;
        tap_count++;
        printf("ok %d - ", tap_count);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf(" # SKIP %s\n", why);
        fflush(stdout);
}

__attribute__((format(printf, 1, 2))) static inline void tap_diag(const char *fmt, ...)
{
        va_list ap;
        printf("# ");
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
}

static inline int tap_done(void)
{
        printf("1..%d\n", tap_count);
        return tap_failed ? 1 : 0;
}
