/* poststop's part of a recording (hook/lib/record_stop.c): the calls file
 * the init wrote becomes the profile at the user's path. */
#pragma once

#include "tsync/error.h"

struct tsync_plan;

/* The plan's recording, if any, becomes its profile at the user's path;
 * its directory goes once the profile is written (emptied only, for
 * inject's, which the bundle's next run mounts again) and stays when it is
 * not, so nothing recorded is lost. record_root: where precreate's and the
 * wrapper's directories live (NULL: TSYNC_RECORD_ROOT). Warnings (calls
 * without a name, left out) go into w. 0; -ENODATA when nothing was recorded
 * (the workload never started); -errno; err's message starts "recording: ". */
int tsync_record_stop(const struct tsync_plan *plan, const char *record_root, const char *bundle,
                      struct tsync_warnings *w, struct tsync_err *err);
