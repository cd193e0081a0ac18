/* poststop's part of a recording (hook/plan/record_stop.c): the calls file
 * the init wrote becomes the profile at the user's path. */
#pragma once

#include "shared/error.h"

struct tsync_plan;
struct tsync_plan_paths;

/* The plan's recording, if any, becomes its profile at the user's path;
 * its directory goes once the profile is written (emptied only, for
 * inject's, which the bundle's next run mounts again) and stays when it is
 * not, so nothing recorded is lost. paths->record_root: where precreate's
 * and the wrapper's directories live (NULL: TSYNC_RECORD_ROOT); the output's
 * directory is judged again against paths' places (plan/record_place.h)
 * before the write. Warnings (calls without a name, left out) go into w. 0;
 * -ENODATA when nothing was recorded (the workload never started); -errno;
 * err's message starts "recording: ". */
int tsync_record_stop(const struct tsync_plan *plan, const struct tsync_plan_paths *paths, const char *bundle,
                      struct tsync_warnings *w, struct tsync_err *err);
