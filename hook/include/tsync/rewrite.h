/* The config rewrite behind `inject` and the precreate hook: the container
 * starts under seccomp-tsync-init with the compiled filters mounted beside it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "tsync/error.h"
#include "tsync/json.h"

struct tsync_rewrite_opts {
        bool replace;               /* move linux.seccomp from the runtime to the init */
        bool layers_by_name;        /* layers are profile names (precreate), not host paths (inject) */
        bool exec;                  /* the init execs the workload (PID 1 as in a plain run) instead of
                                     * staying PID 1 to reap and forward signals */
        const char *const *layers;  /* applied in order, after the moved section */
        size_t n_layers;
        const char *state_dir;      /* host directory the hook fills with filter files */
        const char *init_path;      /* host path of the static seccomp-tsync-init */
        const char *hook_path;      /* inject: our binary, added as createRuntime and poststop hooks; NULL: none */
        const char *const *hook_args; /* options passed to those hooks (after "hook STAGE") */
        size_t n_hook_args;
};

/* Rewrites config in place. A config rewritten before is first restored from
 * its plan, so running the rewrite twice does not wrap twice. */
int tsync_rewrite(struct tsync_json *config, const struct tsync_rewrite_opts *o, struct tsync_err *err);
