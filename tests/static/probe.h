/* What the static test programs (the *_probe.c here) share. Header-only:
 * each program is one file, linked static, run inside a container. The unit
 * tests take probe_int80 from here too. */
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

#if defined(__x86_64__)
/* An i386 system call from x86-64 code: int 0x80, which faults where IA-32
 * emulation is off. Its pointer arguments must lie below 4 GiB. */
static inline long probe_int80(long nr, long a, long b, long c)
{
        long ret;
        /* The kernel clears r8-r11 on the way back from int 0x80. */
        __asm__ volatile("int $0x80"
                         : "=a"(ret)
                         : "a"(nr), "b"(a), "c"(b), "d"(c)
                         : "r8", "r9", "r10", "r11", "memory");
        return ret;
}
#endif
