/* The node's layers (node.conf) put in front of what a container asked for:
 * the one rule every front end shares (the runtime wrapper and precreate by
 * name, inject by path). */
#pragma once

#include <stddef.h>

#include "plan/plan.h"
#include "shared/error.h"

/* node[0..n_node) first in req->layers, then the layers req held that the
 * node does not name (a layer is added once, at its first place). node's
 * entries are of req's kind: names when req->layers_by_name (the wrapper's,
 * precreate's), else absolute paths (inject's); its strings must outlive
 * req. 0, or -E2BIG with err set and req unchanged. */
int tsync_node_layers_prepend(struct tsync_request *req, char *const *node, size_t n_node, struct tsync_err *err);
