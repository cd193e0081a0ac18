/* The plan: what inject/precreate decided for a container, kept in the
 * config's annotations so that the hook stages (and a second inject) find it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "tsync/error.h"
#include "tsync/json.h"

/* Annotations. Users set LAYERS (comma-separated profile names) and MODE
 * ("layer", the default, or "replace"); PLAN is ours, written by inject and precreate. */
#define TSYNC_ANNOTATION_LAYERS "io.oci-seccomp-tsync.layers"
#define TSYNC_ANNOTATION_MODE "io.oci-seccomp-tsync.mode"
#define TSYNC_ANNOTATION_PLAN "io.oci-seccomp-tsync.plan"
/* crun's: any value but "0" makes an unknown syscall name in the profile an
 * error instead of a skipped rule. Honoured for every filter we compile. */
#define TSYNC_ANNOTATION_CRUN_FAIL_UNKNOWN "run.oci.seccomp_fail_unknown_syscall"
/* Ours too: the id of the container whose exec'd processes read the original
 * capability sets from this config (exec_view.h). */
#define TSYNC_ANNOTATION_RUNNING "io.oci-seccomp-tsync.running"

/* Inside the container: a directory the runtime creates as mount points. */
#define TSYNC_CONTAINER_DIR "/.oci-seccomp-tsync"
#define TSYNC_CONTAINER_INIT TSYNC_CONTAINER_DIR "/init"
#define TSYNC_CONTAINER_FILTERS TSYNC_CONTAINER_DIR "/filters"

/* On the host: per-container filter directories of precreate; inject keeps
 * them in the bundle (BUNDLE/oci-seccomp-tsync) so the bundle can run again. */
#define TSYNC_STATE_ROOT "/run/oci-seccomp-tsync"
#define TSYNC_BUNDLE_STATE "oci-seccomp-tsync"

#define TSYNC_PLAN_VERSION 1
#define TSYNC_MAX_LAYERS 16

struct tsync_plan {
        bool replace;
        bool layers_by_name; /* precreate: names in the profile directories; inject: absolute paths */
        char *state_dir;
        char **layers;
        size_t n_layers;
        /* What the config said before the rewrite. */
        struct tsync_json *args;         /* array */
        struct tsync_json *capabilities; /* object, or NULL when the config had none */
        bool no_new_privileges;
        struct tsync_json *seccomp; /* replace mode: the section moved out of linux.seccomp */
        /* From the config's annotations, not the plan: compile strictly. */
        bool fail_unknown_syscall;
};

void tsync_plan_free(struct tsync_plan *p);
static inline void tsync_plan_freep(struct tsync_plan **p)
{
        tsync_plan_free(*p);
}
#define _cleanup_plan_ __attribute__((cleanup(tsync_plan_freep)))

/* Filters the init applies, in order: the moved section first, then the layers. */
size_t tsync_plan_filter_count(const struct tsync_plan *p);

/* The plan annotation of a config, parsed; -ENOENT when the config has none. */
int tsync_plan_from_config(const struct tsync_json *config, struct tsync_plan **ret, struct tsync_err *err);

/* The plan as the annotation's JSON text. */
int tsync_plan_to_json(const struct tsync_plan *p, char **ret, struct tsync_err *err);

/* Checks a layer name from an annotation: [A-Za-z0-9_.-], not starting with '.', at most 64 bytes. */
bool tsync_layer_name_valid(const char *name);
