/* The SECCOMP_FILTER_FLAG_* bits, one table for the hook and the init.
 *
 * linux/seccomp.h of the build host may be older than the kernel the filters
 * run on (WAIT_KILLABLE_RECV came with 5.19), so the bits we use are defined
 * here when it lacks them; their values are kernel ABI and never change.
 *
 * libc only, no heap: the static init includes it. */
#pragma once

#include <errno.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef SECCOMP_FILTER_FLAG_TSYNC
#define SECCOMP_FILTER_FLAG_TSYNC (1UL << 0)
#endif
#ifndef SECCOMP_FILTER_FLAG_LOG
#define SECCOMP_FILTER_FLAG_LOG (1UL << 1)
#endif
#ifndef SECCOMP_FILTER_FLAG_SPEC_ALLOW
#define SECCOMP_FILTER_FLAG_SPEC_ALLOW (1UL << 2)
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_FILTER_FLAG_TSYNC_ESRCH
#define SECCOMP_FILTER_FLAG_TSYNC_ESRCH (1UL << 4)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/* The flags a profile may ask for and a filter file may carry: what is loaded
 * together with TSYNC. TSYNC itself is always passed (a profile may name it,
 * which changes nothing); NEW_LISTENER and TSYNC_ESRCH are ours to choose, never
 * the profile's. */
#define TSYNC_SECCOMP_PROFILE_FLAGS                                                                                    \
        ((uint32_t)(SECCOMP_FILTER_FLAG_LOG | SECCOMP_FILTER_FLAG_SPEC_ALLOW | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV))

struct tsync_seccomp_flag {
        uint32_t bit;
        const char *name; /* after "SECCOMP_FILTER_FLAG_", as the runtime-spec spells it */
};

/* Every SECCOMP_FILTER_FLAG_* bit we know, in bit order; n_ret gets the count. */
static inline const struct tsync_seccomp_flag *tsync_seccomp_flags(size_t *n_ret)
{
        static const struct tsync_seccomp_flag flags[] = {
                { SECCOMP_FILTER_FLAG_TSYNC, "TSYNC" },
                { SECCOMP_FILTER_FLAG_LOG, "LOG" },
                { SECCOMP_FILTER_FLAG_SPEC_ALLOW, "SPEC_ALLOW" },
                { SECCOMP_FILTER_FLAG_NEW_LISTENER, "NEW_LISTENER" },
                { SECCOMP_FILTER_FLAG_TSYNC_ESRCH, "TSYNC_ESRCH" },
                { SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, "WAIT_KILLABLE_RECV" },
        };
        *n_ret = sizeof(flags) / sizeof(flags[0]);
        return flags;
}

/* "LOG", "SPEC_ALLOW", ... for one bit; NULL if unknown. */
static inline const char *tsync_seccomp_flag_name(uint32_t bit)
{
        size_t n;
        const struct tsync_seccomp_flag *f = tsync_seccomp_flags(&n);
        for (size_t i = 0; i < n; i++)
                if (f[i].bit == bit)
                        return f[i].name;
        return NULL;
}

/* The bit named "SECCOMP_FILTER_FLAG_<name>"; -EINVAL if unknown. */
static inline int tsync_seccomp_flag_parse(const char *full_name, uint32_t *ret)
{
        static const char prefix[] = "SECCOMP_FILTER_FLAG_";
        size_t n;
        const struct tsync_seccomp_flag *f = tsync_seccomp_flags(&n);
        if (strncmp(full_name, prefix, sizeof(prefix) - 1) != 0)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (strcmp(full_name + sizeof(prefix) - 1, f[i].name) == 0) {
                        *ret = f[i].bit;
                        return 0;
                }
        return -EINVAL;
}
