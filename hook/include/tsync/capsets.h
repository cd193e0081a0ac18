/* The five capability sets, one record each, for the host and the init: the
 * key in process.capabilities, the init's option, the /proc/PID/status line
 * and libcap's flag. The order is the runtime-spec's (and runc's), which is
 * the order of the init's arguments and of every message that walks the sets.
 *
 * libc and libcap's header only, no heap: the static init includes it. */
#pragma once

#include <stddef.h>
#include <sys/capability.h>

enum tsync_capset {
        TSYNC_CAPSET_BOUNDING,
        TSYNC_CAPSET_EFFECTIVE,
        TSYNC_CAPSET_INHERITABLE,
        TSYNC_CAPSET_PERMITTED,
        TSYNC_CAPSET_AMBIENT,
        TSYNC_CAPSET_COUNT,
};

struct tsync_capset_def {
        const char *json;   /* process.capabilities.<json>, and the set's name in messages */
        const char *option; /* the init's option ("--" + json) */
        const char *status; /* its line in /proc/PID/status, without the colon */
        int libcap_flag;    /* cap_flag_t of the sets a cap_t holds; -1 for bounding and ambient */
};

/* The record of set s (s < TSYNC_CAPSET_COUNT). */
static inline const struct tsync_capset_def *tsync_capset(enum tsync_capset s)
{
        static const struct tsync_capset_def sets[TSYNC_CAPSET_COUNT] = {
                [TSYNC_CAPSET_BOUNDING] = { "bounding", "--bounding", "CapBnd", -1 },
                [TSYNC_CAPSET_EFFECTIVE] = { "effective", "--effective", "CapEff", CAP_EFFECTIVE },
                [TSYNC_CAPSET_INHERITABLE] = { "inheritable", "--inheritable", "CapInh", CAP_INHERITABLE },
                [TSYNC_CAPSET_PERMITTED] = { "permitted", "--permitted", "CapPrm", CAP_PERMITTED },
                [TSYNC_CAPSET_AMBIENT] = { "ambient", "--ambient", "CapAmb", -1 },
        };
        return &sets[s];
}
