/* The exec view: where the processes a runtime's `exec` starts in a running
 * container read their capability sets, and how the lent ones are kept out.
 *
 * The rewrite lends the init CAP_SYS_ADMIN and CAP_SETPCAP in
 * process.capabilities (noNewPrivileges false), and exec'd processes get the
 * sets of a config too: runc exec and podman exec read BUNDLE/config.json at
 * exec time, crun exec the copy in its state directory. So the createRuntime
 * hook, after the runtime has read the config, puts the original sets back
 * there; in the bundle it also records the container's id (annotation
 * TSYNC_ANNOTATION_RUNNING) so that its poststop hook, and only its own,
 * lends them again for the next start. */
#pragma once

#include <stdbool.h>

#include "tsync/error.h"
#include "tsync/json.h"
#include "tsync/plan.h"

/* 1 when the rewrite lends the init capabilities for plan (so exec'd
 * processes must be kept from them), 0 when not, -errno. */
int tsync_exec_view_lends(const struct tsync_plan *plan, struct tsync_err *err);

/* config (as inject or precreate wrote it from plan) -> the original sets, and,
 * when id is not NULL, id as the running container. Nothing changes when the
 * rewrite lends nothing. -EBUSY when another container holds the config
 * already, -EPERM when process.capabilities is not what the rewrite wrote. */
int tsync_exec_view_restore(struct tsync_json *config, const struct tsync_plan *plan, const char *id,
                            struct tsync_err *err);

/* id as the container running from config (annotation TSYNC_ANNOTATION_RUNNING),
 * after tsync_exec_view_restore without one. */
int tsync_exec_view_mark(struct tsync_json *config, const char *id, struct tsync_err *err);

/* The reverse, when container id is the one recorded: the lent sets come back
 * and the record goes; *ret_changed tells whether config changed. */
int tsync_exec_view_lend(struct tsync_json *config, const struct tsync_plan *plan, const char *id, bool *ret_changed,
                         struct tsync_err *err);
