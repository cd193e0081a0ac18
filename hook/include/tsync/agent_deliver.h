/* Handing a notify agent's container process state to the init, privately:
 * the createRuntime hook writes it into the agent's tmpfs inside the
 * container (TSYNC_CONTAINER_AGENT_DIR, which the rewrite mounts), as a file
 * only process.user can read; the init reads it and removes it before its
 * first filter, so the workload never sees it. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "tsync/error.h"
#include "tsync/json.h"
#include "tsync/plan.h"

/* Checks config (the bundle's, at createRuntime) against plan's agent: the
 * mount at TSYNC_CONTAINER_AGENT binds plan->listener_path and the tmpfs at
 * TSYNC_CONTAINER_AGENT_DIR is there. -EINVAL naming the mount otherwise;
 * -EINVAL for a plan without an agent. */
int tsync_agent_check_config(const struct tsync_json *config, const struct tsync_plan *plan, struct tsync_err *err);

/* The container's root directory on the host from config's root.path
 * (relative to bundle), into *ret (malloc'd), symbolic links resolved when it
 * exists. */
int tsync_agent_rootfs(const struct tsync_json *config, const char *bundle, char **ret, struct tsync_err *err);

/* In mountinfo (the text of /proc/PID/mountinfo), the mount with id mnt_id:
 * 0 when it is a tmpfs mounted from its root at point (mountinfo's octal
 * escapes undone); -ENOENT when no line has the id; -EINVAL with the reason
 * when it is not that mount. */
int tsync_agent_mountinfo_check(const char *mountinfo, uint64_t mnt_id, const char *point, struct tsync_err *err);

/* Writes text as TSYNC_AGENT_STATE_NAME (mode 0400, owned by the directory's
 * owner, which is process.user as the host sees it) into dfd, the agent's
 * directory named dir in messages: refused unless dfd is a tmpfs directory
 * that others cannot write to, and when the name exists. */
int tsync_agent_write_state(int dfd, const char *dir, const char *text, size_t len, struct tsync_err *err);

/* createRuntime's whole job for an agent: the state for the agent
 * (tsync_agent_state of oci_state, the hook's stdin), written by
 * tsync_agent_write_state into the container's agent tmpfs, reached through
 * /proc/PID/root (PID: oci_state's, not yet pivoted) and the root directory,
 * without following symbolic links, and checked to be that very mount
 * (mountinfo). */
int tsync_agent_deliver(const struct tsync_json *oci_state, const struct tsync_json *config, const char *bundle,
                        struct tsync_err *err);
