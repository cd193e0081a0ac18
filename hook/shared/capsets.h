/* The five capability sets, one record each, for the host and the init: the
 * key in process.capabilities, the init's option, the /proc/PID/status line
 * and the word of capget(2) that holds it. The order is the runtime-spec's (and runc's), which is
 * the order of the init's arguments and of every message that walks the sets.
 *
 * No library, no heap: the static init includes it. */
#pragma once

#include <stddef.h>

enum tsync_capset {
        TSYNC_CAPSET_BOUNDING,
        TSYNC_CAPSET_EFFECTIVE,
        TSYNC_CAPSET_INHERITABLE,
        TSYNC_CAPSET_PERMITTED,
        TSYNC_CAPSET_AMBIENT,
        TSYNC_CAPSET_COUNT,
};

/* The three sets capget(2) and capset(2) carry (struct __user_cap_data_struct's
 * fields); the bounding and ambient sets are prctl's. */
enum tsync_capword {
        TSYNC_CAPWORD_NONE = -1,
        TSYNC_CAPWORD_EFFECTIVE,
        TSYNC_CAPWORD_PERMITTED,
        TSYNC_CAPWORD_INHERITABLE,
};

struct tsync_capset_def {
        const char *json;           /* process.capabilities.<json>, and the set's name in messages */
        const char *option;         /* the init's option ("--" + json) */
        const char *status;         /* its line in /proc/PID/status, without the colon */
        enum tsync_capword capword; /* capget's field; TSYNC_CAPWORD_NONE for bounding and ambient */
};

/* The record of set s (s < TSYNC_CAPSET_COUNT). */
static inline const struct tsync_capset_def *tsync_capset(enum tsync_capset s)
{
        static const struct tsync_capset_def sets[TSYNC_CAPSET_COUNT] = {
                [TSYNC_CAPSET_BOUNDING] = { "bounding", "--bounding", "CapBnd", TSYNC_CAPWORD_NONE },
                [TSYNC_CAPSET_EFFECTIVE] = { "effective", "--effective", "CapEff", TSYNC_CAPWORD_EFFECTIVE },
                [TSYNC_CAPSET_INHERITABLE] = { "inheritable", "--inheritable", "CapInh", TSYNC_CAPWORD_INHERITABLE },
                [TSYNC_CAPSET_PERMITTED] = { "permitted", "--permitted", "CapPrm", TSYNC_CAPWORD_PERMITTED },
                [TSYNC_CAPSET_AMBIENT] = { "ambient", "--ambient", "CapAmb", TSYNC_CAPWORD_NONE },
        };
        return &sets[s];
}
