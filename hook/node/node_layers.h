/* The node's layers (node.conf) put in front of what a container asked for:
 * the one rule the front ends that take layers by name share (the runtime
 * wrapper, precreate). */
#pragma once

#include <stddef.h>

#include "plan/plan.h"
#include "shared/error.h"

/* node[0..n_node) first in req->layers, then the layers req held that the
 * node does not name (a name is added once, at its first place). req's
 * layers must be names (layers_by_name, as the annotations' are); node's
 * strings must outlive req. 0, or -E2BIG / -EINVAL with err set and req
 * unchanged. */
int tsync_node_layers_prepend(struct tsync_request *req, char *const *node, size_t n_node, struct tsync_err *err);
