/* Reaching the relay's private tmpfs in the container from the host
 * (issue 23): createRuntime's relay (relay.h) listens there for the init
 * alone. The tmpfs (TSYNC_CONTAINER_AGENT_DIR, which the rewrite mounts) is
 * reached through /proc/PID/root before the container's pivot_root, without
 * following symbolic links, and checked to be that very mount. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "plan/plan.h"
#include "shared/error.h"
#include "util/json.h"

/* Checks config (the bundle's, at createRuntime) against plan: the tmpfs at
 * TSYNC_CONTAINER_AGENT_DIR is there, and the agent's host socket
 * (plan->listener_path) is mounted nowhere (-EPERM: an older rewrite's
 * config, or a hand-made one). -EINVAL naming the mount otherwise; -EINVAL
 * for a plan with neither an agent nor a recording. */
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

/* That dfd (named dir in messages) is a tmpfs directory others cannot write
 * to (-EPERM otherwise); its stat into *ret (its owner is process.user as the
 * host sees it). */
int tsync_agent_check_dir(int dfd, const char *dir, struct stat *ret, struct tsync_err *err);

/* The relay's tmpfs of the container whose OCI state (a hook's stdin) is
 * oci_state: reached through /proc/PID/root (PID: the state's, not yet
 * pivoted) and the root directory from config (relative to bundle), without
 * following symbolic links, and checked to be that mount (mountinfo). Its
 * directory fd into *ret_fd, the state's pid into *ret_pid, its path as seen
 * through /proc/PID/root into *ret_point (malloc'd, for messages). */
int tsync_agent_open_dir(const struct tsync_json *oci_state, const struct tsync_json *config, const char *bundle,
                         int *ret_fd, pid_t *ret_pid, char **ret_point, struct tsync_err *err);
