/* Scope-bound cleanup helpers (gcc/clang cleanup attribute). Destructors accept NULL. */
#pragma once

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void freep(void *p)
{
        free(*(void **)p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd)
{
        if (*fd >= 0)
                (void)close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f)
{
        if (*f)
                (void)fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

static inline void closedirp(DIR **d)
{
        if (*d)
                (void)closedir(*d);
}
#define _cleanup_closedir_ _cleanup_(closedirp)

/* Hands ownership out of a cleanup-managed variable. */
#define TAKE_PTR(p)                                                                                                    \
        ({                                                                                                             \
                __typeof__(p) _tmp_ = (p);                                                                             \
                (p) = NULL;                                                                                            \
                _tmp_;                                                                                                 \
        })

#define TAKE_FD(fd)                                                                                                    \
        ({                                                                                                             \
                int _tmp_ = (fd);                                                                                      \
                (fd) = -1;                                                                                             \
                _tmp_;                                                                                                 \
        })

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
