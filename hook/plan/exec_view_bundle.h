/* The bundle's config.json as the hooks read and write it for the exec view
 * (exec_view_bundle.c has the why: where each runtime's exec reads from). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "plan/exec_view.h"
#include "shared/error.h"
#include "util/json.h"

struct tsync_plan;

/* The bundle's config.json as createRuntime and poststop read it, once: under
 * an exclusive flock of the bundle directory (other containers' hooks rewrite
 * it for their exec view too), taken before the read so that the exec view
 * changes the very document the plan came from. */
struct tsync_bundle_config {
        int dir;    /* the bundle directory, flock'ed; -errno if not (an error only for the exec view) */
        char *text; /* config.json's bytes as read under the lock */
        size_t len;
        mode_t mode;                        /* its permission bits, for the rewrite */
        struct tsync_json *doc;             /* parsed from text (only process.capabilities and annotations
                                               when spans.partial); the exec view changes it in place */
        struct tsync_exec_view_spans spans; /* where in text the exec view's changes go */
};
#define TSYNC_BUNDLE_CONFIG_INIT                                                                                       \
        {                                                                                                              \
                .dir = -EBADF                                                                                          \
        }
/* Locks bundle and reads its config.json into c (cleared by the caller); 0 or -errno. */
int tsync_bundle_config_read(const char *bundle, struct tsync_bundle_config *c, struct tsync_err *err);
void tsync_bundle_config_clear(struct tsync_bundle_config *c);
/* c->doc as the whole config (parsed again from c->text when it was partial). */
int tsync_bundle_config_full(struct tsync_bundle_config *c, const char *bundle, struct tsync_err *err);

/* The exec view (exec_view_bundle.c): at createRuntime, the original capability sets
 * go where the runtime's exec reads them (refused for a runtime we do not
 * know, when something is lent); at poststop they are lent again. lent: the
 * plan's lent sets, from tsync_exec_view_lent_capabilities (NULL: nothing is
 * lent, nothing to do), built once by the stage, which logs them too. c: the
 * bundle's config as read, changed to what is written. durable: the new text
 * is synced before it takes the name, the directory is not (the crash model in
 * exec_view_bundle.c; false only for an engine that writes config.json anew at every
 * start: hook --no-sync). Nothing of ours is left in the bundle. */
int tsync_exec_view_start(const struct tsync_plan *plan, const struct tsync_json *lent, struct tsync_bundle_config *c,
                          const char *id, const char *bundle, bool durable, struct tsync_err *err);
int tsync_exec_view_stop(const struct tsync_plan *plan, const struct tsync_json *lent, struct tsync_bundle_config *c,
                         const char *id, const char *bundle, bool durable, struct tsync_err *err);

/* The same with inject's prepared views (plan/views.h), in the bundle open
 * as bundle_fd and locked: createRuntime checks and exchanges them, nothing
 * parsed and nothing synced (*ret_summary: the plan's line for the log);
 * poststop exchanges them back for the recorded container alone. */
int tsync_views_start(int bundle_fd, const char *id, const char *bundle, char **ret_summary, struct tsync_err *err);
int tsync_views_stop(int bundle_fd, const char *id, const char *bundle, struct tsync_err *err);
