/* The OCI hook stages the hook runs at: one name table for the dispatcher,
 * the rewrite (which adds hooks) and the help text. */
#pragma once

#include <stddef.h>

enum tsync_stage {
        TSYNC_STAGE_PRECREATE,      /* Podman: rewrites the config on stdin */
        TSYNC_STAGE_PRESTART,       /* deprecated alias of createRuntime, for old engines */
        TSYNC_STAGE_CREATE_RUNTIME, /* compiles and delivers the filters, keeps the exec view */
        TSYNC_STAGE_POSTSTOP,       /* removes what createRuntime left */
        TSYNC_STAGE_COUNT,
};

/* The runtime-spec's name of stage s ("createRuntime"). */
const char *tsync_stage_name(enum tsync_stage s);

/* The stage called name; -EINVAL for any other string. */
int tsync_stage_from_name(const char *name, enum tsync_stage *ret);

/* "precreate, prestart, createRuntime, poststop" into buf, for help and messages. */
void tsync_stage_list(char *buf, size_t size);
