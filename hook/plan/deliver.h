/* Handing the compiled filters to the container: filter files in the plan's
 * state directory, which the init finds bind-mounted at TSYNC_CONTAINER_FILTERS. */
#pragma once

#include "plan/plan.h"
#include "shared/error.h"

/* Both do nothing for TSYNC_DELIVERY_ARGS, whose filters are in the config. */

/* Writes the plan's compiled filters (progs, as tsync_plan_compile made them;
 * the baseline is not the init's to apply) as NN.bpf filter files (mode 0444)
 * into the plan's state directory, after checking it is one of ours. */
int tsync_deliver(const struct tsync_plan *plan, const struct tsync_plan_paths *o,
                  const struct tsync_plan_programs *progs, struct tsync_err *err);

/* Removes the filter files; removes the directory too when it is a
 * per-container one in the state root. Missing files are fine. */
int tsync_deliver_clean(const struct tsync_plan *plan, const struct tsync_plan_paths *o, struct tsync_err *err);
