/* The node's policy, /etc/oci-seccomp-tsync/node.conf (issue 37): the one
 * policy every container on the node gets, whichever engine started it.
 *
 *   layers = deny-io-uring, deny-bpf     # profiles by name, in the profile directories
 *   no-new-privs = set                   # or refuse (the default)
 *   exclude = db1: runs io_uring for its storage engine (ticket 42)
 *   exclude = kubernetes/prod/db-0: reviewed 2026-11
 *
 * "key = value" lines, '#' comments and blank lines, as runtime.conf. A '#'
 * ends the value of layers and no-new-privs; an exclude's reason runs to the
 * end of its line, '#' included (a ticket number is a reason's usual text).
 *
 * The file decides what every container gets, so it must be a regular file
 * (not a symbolic link) owned by root and writable by root alone. A missing
 * file is no policy; any other problem is an error, never a silent "no
 * policy": every front end and command that reads it refuses. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "plan/plan.h"
#include "shared/error.h"

#define TSYNC_NODE_CONF           "/etc/oci-seccomp-tsync/node.conf"
#define TSYNC_NODE_CONF_MAX_BYTES (64u << 10)
#define TSYNC_NODE_MAX_EXCLUDES   256
/* The longest reason, in bytes: status shows it on a container's line. */
#define TSYNC_NODE_REASON_MAX 200
/* The shortest id prefix that names a container, as docker's short ids. */
#define TSYNC_NODE_ID_PREFIX_MIN 12

/* A process with neither NO_NEW_PRIVS nor CAP_SYS_ADMIN cannot take a
 * filter: whether NO_NEW_PRIVS may be set in it first (lockdown's
 * --set-no-new-privs; setuid programs then stop gaining privilege). */
enum tsync_node_nnp {
        TSYNC_NODE_NNP_REFUSE, /* the default: such a container is refused, never changed unasked */
        TSYNC_NODE_NNP_SET,
};

/* A container left out of the policy: `exclude = TARGET: REASON`. */
struct tsync_node_exclude {
        /* The engine TARGET was qualified with (ENGINE/NAME): "runc", "crun",
         * "containerd", "docker", "podman" or "kubernetes", a static string;
         * NULL: any engine. */
        const char *engine;
        /* A container's name or id as its engine shows it; for kubernetes
         * NAMESPACE/POD (every container of the pod) or NAMESPACE/POD/CONTAINER. */
        char *target;
        char *reason; /* as written, trimmed */
        unsigned line;
};

struct tsync_node_policy {
        bool present; /* false: there is no node.conf, and nothing below is set */
        char *layers[TSYNC_MAX_LAYERS];
        size_t n_layers;
        enum tsync_node_nnp nnp;
        bool nnp_given; /* no-new-privs was written (nnp is REFUSE when it was not) */
        struct tsync_node_exclude *excludes;
        size_t n_excludes;
};

/* Reads the node's policy from path (TSYNC_NODE_CONF on a node) into ret,
 * which need not be initialised (what it held is not freed). 0, also when the
 * file does not exist (ret->present false); or -errno with one line in err
 * naming path, the line and the fix ("PATH: line 3: 'layer' is not a setting
 * (layers, no-new-privs, exclude): did you mean 'layers'?"), ret cleared.
 * Layer names are checked as names (tsync_layer_name_valid); whether each
 * profile exists is for the caller, which looks them up when it compiles. */
int tsync_node_policy_read(const char *path, struct tsync_node_policy *ret, struct tsync_err *err);

/* Frees what p holds and clears it (present false); p may be NULL. Also a
 * cleanup: _cleanup_(tsync_node_policy_clear) struct tsync_node_policy p. */
void tsync_node_policy_clear(struct tsync_node_policy *p);

/* The first exclusion, in the file's order, that covers a container, or
 * NULL. engine is "runc", "crun", "containerd", "docker", "podman" or
 * "kubernetes" (NULL: only exclusions of any engine apply); id and name as
 * the engine shows them (name may be NULL); for kubernetes, name is
 * "NAMESPACE/POD/CONTAINER". An exclusion of a name covers a container whose
 * id or name is that name; one of at least TSYNC_NODE_ID_PREFIX_MIN lowercase
 * hex digits also covers an id it begins (a short id). The matcher sees one
 * container: that a short id is unique on the node is for the caller, who
 * sees them all. kubernetes/NAMESPACE/POD covers every container of the pod. */
const struct tsync_node_exclude *tsync_node_policy_excluded(const struct tsync_node_policy *p, const char *engine,
                                                            const char *id, const char *name);
