/* What the C benchmarks (bench_compile, bench_spawn, bench_tsync) share: a
 * monotonic clock, the figures of a sample and the end of an option loop.
 * Header-only: SConscript builds every .c here as a program of its own. */
#pragma once

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct bench_figures {
        double median, p90, min;
};

static inline double bench_now_ms(void)
{
        struct timespec ts;

        (void)clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

/* s as a whole decimal number from min to max: 0, or -EINVAL. */
static inline int bench_parse_long(const char *s, long min, long max, long *ret)
{
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);

        if (errno || end == s || *end || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

/* Sorts v[0..n) (n > 0) and says its median, p90 and minimum. */
static inline struct bench_figures bench_summarise(double *v, size_t n)
{
        qsort(v, n, sizeof(*v), bench_cmp_double);
        /* p90 by nearest rank: the smallest sample at or above 90% of them. */
        size_t rank = (n * 9 + 9) / 10;
        return (struct bench_figures){
                .median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2,
                .p90 = v[rank - 1],
                .min = v[0],
        };
}

/* The end of an option loop: -h prints the usage to stdout and succeeds
 * (0), any other option prints it to stderr and fails (2). The exit status. */
static inline int bench_usage_status(void (*usage)(FILE *), int opt)
{
        usage(opt == 'h' ? stdout : stderr);
        return opt == 'h' ? 0 : 2;
}
