/* What the runtime executes for an exec'd process of a container of ours
 * (issue 35): the path TSYNC_CONTAINER_INIT, resolved by runc or crun in the
 * mount namespace of the container's PID 1. The init it names may be lent
 * CAP_SYS_ADMIN, so before an exec the runtime wrapper checks, in that
 * namespace, that the path can only be ours:
 *   - the mount namespace is the container's own: owned by the user
 *     namespace the container was made in (ours, or the config's own, a child
 *     of ours, which is then PID 1's too). A workload that made a user
 *     namespace of its own may mount over anything in a mount namespace it
 *     made with it, and runc and crun join PID 1's;
 *   - TSYNC_CONTAINER_DIR is a mount point (which no one can rename or
 *     remove), a read-only tmpfs (which holds nothing the workload made);
 *   - TSYNC_CONTAINER_INIT is a read-only mount point of the init the host
 *     delivered: the same device and inode as init_source on the host.
 * A workload without CAP_SYS_ADMIN in the container's user namespace can
 * change none of that afterwards: only PID 1 moving to namespaces of its own
 * could, which a PID 1 that is our supervising init never does. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "shared/error.h"
#include "util/json.h"

/* 0 when all of the above holds for the container whose PID 1 is pid (as the
 * runtime's state names it); -errno with the first thing that does not in
 * err. config_userns: the container's config names a user namespace. */
int tsync_exec_path_check(pid_t pid, const char *init_source, bool config_userns, struct tsync_err *err);

/* The same for a container of ours whose config (as the rewrite wrote it,
 * already believed) is config: the init's source from its mount at
 * TSYNC_CONTAINER_INIT, the user namespace from linux.namespaces. */
int tsync_exec_path_check_config(pid_t pid, const struct tsync_json *config, struct tsync_err *err);
