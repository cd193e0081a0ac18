/* The container process state a notify agent gets with its listener, as runc
 * sends it: built by the createRuntime hook (which alone knows the host pid,
 * the id, the bundle and the annotations) and sent by its relay (relay.h),
 * which adds the filter's listenerMetadata. */
#pragma once

#include <stddef.h>

#include "shared/error.h"
#include "util/json.h"

/* From the OCI state on a hook's stdin: {"ociVersion", "fds": ["seccompFd"],
 * "pid", "state": {"ociVersion", "id", "status": "creating", "pid", "bundle",
 * "annotations"}} as compact JSON into *ret (malloc'd). -EINVAL naming the
 * state's member when one is missing or of the wrong type; pid must be > 0. */
int tsync_agent_state(const struct tsync_json *oci_state, char **ret, size_t *ret_len, struct tsync_err *err);

/* state (len bytes, a JSON object as tsync_agent_state writes it) with
 * "metadata" (mlen bytes, JSON-escaped) as its first member, left out when
 * mlen is 0 (runc's omitempty), into *ret (malloc'd, not NUL-terminated).
 * -EINVAL for metadata with a NUL byte. */
int tsync_agent_state_metadata(const char *state, size_t len, const char *metadata, size_t mlen, char **ret,
                               size_t *ret_len, struct tsync_err *err);
