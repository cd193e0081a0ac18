/* The OCI state a hook stage reads on its stdin (runtime-spec's "state"):
 * the container's id and bundle, which every later step names. */
#pragma once

#include <limits.h>

#include "shared/error.h"
#include "util/json.h"

struct tsync_oci_state {
        char id[256];
        char bundle[PATH_MAX];
};

/* Reads the state from fd (at most 1 MiB): id printable ASCII, bundle an
 * absolute path. ret_doc: the whole state, for a notify agent's (NULL: not
 * kept). Errors begin "the OCI state on stdin". */
int tsync_oci_state_read(int fd, struct tsync_oci_state *st, struct tsync_json **ret_doc, struct tsync_err *err);
