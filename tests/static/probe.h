/* What the static test programs (the *_probe.c here) share. Header-only:
 * each program is one file, linked static, run inside a container. */
#pragma once

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

/* One line on stdout (cut at 1 KiB), in one write: lines of threads never mix. */
static inline void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void say(const char *fmt, ...)
{
        char line[1024];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        if ((size_t)n > sizeof(line) - 2)
                n = (int)sizeof(line) - 2;
        line[n++] = '\n';
        (void)write(STDOUT_FILENO, line, (size_t)n);
}

static inline void *probe_nothing(void *arg)
{
        return arg;
}

/* A thread body that creates and joins short-lived threads until the process
 * is killed: a task list that never stops changing. */
static inline void *probe_thread_storm(void *arg)
{
        (void)arg;
        for (;;) {
                pthread_t t;
                if (pthread_create(&t, NULL, probe_nothing, NULL) == 0)
                        (void)pthread_join(t, NULL);
        }
        return NULL;
}
