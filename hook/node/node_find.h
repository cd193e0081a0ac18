/* Every running container on this node, found where the runtimes keep their
 * state, without asking an engine's daemon (node_find.c: the roots and the
 * scan; node_state.c: one container's state directory, believed or not).
 *
 * The state roots: runc's and crun's (the runtime table's defaults, where
 * Podman rootful keeps its containers too), containerd's runc shim
 * (/run/containerd/runc/NAMESPACE/ID: k8s.io is Kubernetes', moby Docker's
 * when it runs on the node's containerd, anything else ctr's or another
 * client's), Docker 20.10's own (/run/docker/runtime-runc/moby/ID), the roots
 * the runtime wrapper's records name (hook/runtime/creator.c), and rootless
 * users' (/run/user/UID/runc, /run/user/UID/crun).
 *
 * Every file there is taken for hostile: no symbolic link is followed from a
 * root on, every read is bounded, and an entry is believed only when the pid
 * it names runs now and started when the entry says (/proc/PID/stat's 22nd
 * field); a root a user owns is that user's word alone, believed only for
 * that user's processes (its real uid, or a user namespace it owns). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "shared/error.h"

/* Who keeps the container: the engine that made it, else its runtime. */
enum tsync_node_engine {
        TSYNC_NODE_RUNC,
        TSYNC_NODE_CRUN,
        TSYNC_NODE_CONTAINERD, /* a containerd namespace other than Docker's and Kubernetes' (ctr) */
        TSYNC_NODE_DOCKER,     /* Docker's own root, or containerd's namespace moby */
        TSYNC_NODE_PODMAN,     /* the annotation io.container.manager=libpod */
        TSYNC_NODE_KUBERNETES, /* containerd's namespace k8s.io */
};

enum tsync_node_state {
        TSYNC_NODE_RUNNING,
        TSYNC_NODE_PAUSED,  /* its cgroup is frozen */
        TSYNC_NODE_CREATED, /* created, not started: the runtime's exec.fifo is still there */
};

/* How a state root holds its containers. */
enum tsync_node_layout {
        TSYNC_NODE_LAYOUT_RUNTIME,    /* ROOT/ID: a runtime's --root */
        TSYNC_NODE_LAYOUT_NAMESPACES, /* ROOT/NAMESPACE/ID: containerd's runc shim, Docker's runtime-runc */
};

/* The format of a container's state directory: which runtime wrote it. */
enum tsync_node_format {
        TSYNC_NODE_FORMAT_RUNC, /* ID/state.json */
        TSYNC_NODE_FORMAT_CRUN, /* ID/status (and crun's copy of the config, ID/config.json) */
};

struct tsync_node_container {
        enum tsync_node_engine engine;
        enum tsync_node_format format;
        enum tsync_node_state state;
        char *id;        /* its directory's name in the root */
        char *name;      /* Docker's or Podman's name, Kubernetes' container name; NULL: not known */
        char *namespace; /* containerd's namespace; NULL: none */
        char *pod;       /* Kubernetes: the pod's name and namespace (the CRI's annotations); NULL: none */
        char *pod_namespace;
        char *root;                    /* the state root it was found in */
        uid_t owner;                   /* that root's owner: whose word the entry is */
        pid_t pid;                     /* its init process, checked against its start time */
        unsigned long long start_time; /* /proc/PID/stat's 22nd field, as the state recorded it */
        char *bundle;                  /* as the state names it */
        char *config; /* the config.json to read: BUNDLE/config.json, or through its shim's /proc/PID/cwd */
};

struct tsync_node_root {
        const char *path;
        enum tsync_node_layout layout;
};

struct tsync_node_find_opts {
        /* Roots scanned first (a test's own --root directories). */
        const struct tsync_node_root *roots;
        size_t n_roots;
        /* Only those: not the node's own roots. */
        bool only_roots;
        /* When set: every root scanned, there or not (malloc'd, each and
         * the array the caller's), which a watch watches. */
        char ***ret_roots;
        size_t *ret_n_roots;
};

/* Every running, paused or created container of the roots, each once (the
 * first root that names an init pid keeps it: the engines' roots come before
 * the runtimes' and the wrapper's). What is not believed (a symbolic link, a
 * file too large, not JSON, a pid that is not the process the entry recorded,
 * a user's entry naming another's process) is skipped with a warning in w
 * (may be NULL) naming the file; a stopped container (its pid gone) is
 * skipped quietly. A root that does not exist is no error. 0, or -ENOMEM. */
int tsync_node_find(const struct tsync_node_find_opts *o, struct tsync_node_container **ret, size_t *ret_n,
                    struct tsync_warnings *w, struct tsync_err *err);

void tsync_node_containers_free(struct tsync_node_container *c, size_t n);

/* Whether c's init still runs: the pid is there, alive, and started when it
 * did when it was found (a container that stopped since is gone). */
bool tsync_node_container_runs(const struct tsync_node_container *c);

/* The engine's name as the output says it ("runc", ..., "kubernetes"). */
const char *tsync_node_engine_name(enum tsync_node_engine e);
const char *tsync_node_state_name(enum tsync_node_state s);

/* What one state file says (node_state.c), before anything is believed. */
struct tsync_node_state_file {
        unsigned long long pid;
        unsigned long long start_time; /* 0: not recorded */
        char *bundle;                  /* NULL: not named */
        char *manager;                 /* the annotation io.container.manager, when the file holds annotations */
        char *k8s_container, *k8s_pod, *k8s_pod_namespace; /* the CRI's annotations */
};
void tsync_node_state_file_clear(struct tsync_node_state_file *f);

/* Parses text (len bytes) as a state file of format f: runc's state.json
 * (init_process_pid, init_process_start, config.labels' bundle= and the
 * annotations runc keeps among its labels) or crun's status (pid,
 * process-start-time, bundle). -EINVAL with the JSON path in err when it is
 * not such a file. */
int tsync_node_state_parse(enum tsync_node_format f, const char *text, size_t len, struct tsync_node_state_file *ret,
                           struct tsync_err *err);

/* Takes a config's annotations (crun's copy of the config in its state
 * directory) into f: the manager and the CRI's names. -EINVAL when text is
 * not JSON. */
int tsync_node_state_annotations(const char *text, size_t len, struct tsync_node_state_file *f, struct tsync_err *err);

/* Reads the container directory id in the root open as root_fd (owned by
 * owner) and fills c when it is believed: 1 believed, 0 skipped (stopped,
 * quietly; not believed, with a warning in w), -ENOMEM. c's root, engine and
 * namespace are the caller's. */
int tsync_node_state_read(int root_fd, const char *root, uid_t owner, const char *id, struct tsync_node_container *c,
                          struct tsync_warnings *w);
