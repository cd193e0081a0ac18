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
        bool from_engine;           /* precreate: the engine chose the annotations (a plan among them is
                                     * forged) and runs our createRuntime hook from its hooks directory */
};

/* Rewrites config in place. A config rewritten before is first restored from
 * its plan, so running the rewrite twice does not wrap twice; but only when
 * it is exactly what the rewrite wrote from that plan (-EPERM naming the first
 * JSON path that differs otherwise), and never for an engine's config. */
int tsync_rewrite(struct tsync_json *config, const struct tsync_rewrite_opts *o, struct tsync_err *err);

struct tsync_plan;
/* The capability sets the rewrite lends the init for plan (process.capabilities
 * as written), or *ret = NULL when it lends nothing: noNewPrivileges, no
 * capabilities, or the sets hold what it lends already. 0 or -errno. */
int tsync_rewrite_lent_capabilities(const struct tsync_plan *plan, struct tsync_json **ret);

/* Makes a config tsync_rewrite wrote run the workload in place of the init
 * (process.args gains the init's --exec), as tsync_rewrite with o->exec would
 * have written it: for a route decided after the rewrite, once the filters
 * are compiled. Nothing changes when --exec is there already. 0 or -errno
 * with a message. */
int tsync_rewrite_set_exec(struct tsync_json *config, struct tsync_err *err);
