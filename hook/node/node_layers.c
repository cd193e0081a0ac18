#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "node/node_layers.h"

int tsync_node_layers_prepend(struct tsync_request *req, char *const *node, size_t n_node, struct tsync_err *err)
{
        if (n_node == 0)
                return 0;
        const char *rest[TSYNC_MAX_LAYERS];
        size_t n_rest = 0;
        for (size_t i = 0; i < req->n_layers; i++) {
                bool named = false;
                for (size_t k = 0; k < n_node && !named; k++)
                        named = strcmp(node[k], req->layers[i]) == 0;
                if (!named)
                        rest[n_rest++] = req->layers[i];
        }
        if (n_node + n_rest > TSYNC_MAX_LAYERS)
                return tsync_error(err, E2BIG, "the node's %zu layers and the container's %zu: at most %d", n_node,
                                   n_rest, TSYNC_MAX_LAYERS);
        for (size_t i = 0; i < n_node; i++)
                req->layers[i] = node[i];
        memcpy(req->layers + n_node, rest, n_rest * sizeof(*rest));
        req->n_layers = n_node + n_rest;
        return 0;
}
