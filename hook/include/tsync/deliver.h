/* The hook's work: compile what a plan names and hand it to the container. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "tsync/error.h"
#include "tsync/plan.h"
#include "tsync/profile.h"

struct tsync_deliver_opts {
        const char *cache_dir;            /* NULL: no cache */
        const char *const *profile_dirs;  /* where layers named by annotation are looked up, in order */
        size_t n_profile_dirs;
        const char *state_root;           /* precreate's per-container directories live here */
        const char *bundle;               /* the container's bundle (inject keeps its directory there) */
};

/* Loads layer i of the plan (or, for i == -1, the moved linux.seccomp) with
 * Docker-format capability conditions judged against the plan's original
 * bounding set. Refuses profiles with NOTIFY actions or a listenerPath. An
 * unknown key is an error in a layer and a warning (into w) in the moved
 * linux.seccomp, which runc would have read ignoring it. */
int tsync_plan_load_profile(const struct tsync_plan *plan, long i, const struct tsync_deliver_opts *o,
                            struct tsync_profile **ret, uint64_t *ret_caps, struct tsync_warnings *w,
                            struct tsync_err *err);

/* Checks plan->state_dir is one of ours for this container (o->bundle's, or a
 * 32-hex-digit directory in o->state_root), a real directory owned by root. */
int tsync_plan_check_state_dir(const struct tsync_plan *plan, const struct tsync_deliver_opts *o, struct tsync_err *err);

/* Compiles every filter of the plan (through the cache) and writes them as
 * NN.bpf filter files (mode 0444) into the state directory. */
int tsync_deliver(const struct tsync_plan *plan, const struct tsync_deliver_opts *o, struct tsync_warnings *w,
                  struct tsync_err *err);

/* Removes the filter files; removes the directory too when it is a
 * per-container one in the state root. Missing files are fine. */
int tsync_deliver_clean(const struct tsync_plan *plan, const struct tsync_deliver_opts *o, struct tsync_err *err);
