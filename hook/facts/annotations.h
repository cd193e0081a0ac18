/* Our annotations: one record each, with who may set it, whether it asks for
 * us, and which front ends honour it. Read by the request parser (plan.c),
 * the runtime wrapper's "does this config ask for us" (hook/runtime/bundle.c),
 * inject, the hook's help text; tests/unit/test_annotations.c ties the hooks.d
 * `when` regexes and the man page's list to it. A new annotation is a row
 * here (its name below), then what those readers and that test say. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct tsync_json;
struct tsync_err;

/* Every annotation under this prefix is ours: one that is not in the table
 * is refused (a typo must not run the container without what it asked). */
#define TSYNC_ANNOTATION_PREFIX "io.oci-seccomp-tsync."

/* The user's: comma-separated profile names; "layer" or "replace"; exec once;
 * a recording (plan_record.h). */
#define TSYNC_ANNOTATION_LAYERS "io.oci-seccomp-tsync.layers"
#define TSYNC_ANNOTATION_MODE   "io.oci-seccomp-tsync.mode"
#define TSYNC_ANNOTATION_EXEC   "io.oci-seccomp-tsync.exec"
#define TSYNC_ANNOTATION_RECORD "io.oci-seccomp-tsync.record"
/* Ours alone: the plan inject and precreate write (plan.h), and the id of the
 * container whose exec'd processes read the original capability sets from
 * this config (exec_view.h). */
#define TSYNC_ANNOTATION_PLAN    "io.oci-seccomp-tsync.plan"
#define TSYNC_ANNOTATION_RUNNING "io.oci-seccomp-tsync.running"
/* crun's: any value but "0" makes an unknown syscall name in the profile an
 * error instead of a skipped rule. Honoured for every filter we compile. */
#define TSYNC_ANNOTATION_CRUN_FAIL_UNKNOWN "run.oci.seccomp_fail_unknown_syscall"

/* The engines' own marks of a pod's sandbox (its pause container): name and
 * value, one row per engine (annotations.c). A mark counts only for the
 * engine that runs us (issue 35: a pod under CRI-O could carry containerd's
 * mark, which CRI-O passes as any other annotation), known by the program
 * that runs the runtime (its comm, which begins with runner), and only when
 * the engine's other fact agrees: the sandbox id it writes (id_name) is the
 * container's own id. */
struct tsync_sandbox_mark {
        const char *engine;
        const char *name;
        const char *value;
        const char *id_name;
        const char *runner;
};
extern const struct tsync_sandbox_mark tsync_sandbox_marks[];
extern const size_t tsync_sandbox_mark_count;

/* Where a config's annotations reach us. */
enum tsync_frontend {
        TSYNC_FRONTEND_PRECREATE, /* the hook's precreate stage (Podman, CRI-O: hooks.d) */
        TSYNC_FRONTEND_RUNTIME,   /* oci-seccomp-tsync-runtime's create and run */
        TSYNC_FRONTEND_INJECT,    /* inject, on a bundle's config.json */
        TSYNC_FRONTEND_COUNT,
};

enum tsync_annotation_setter {
        TSYNC_ANNOTATION_BY_USER, /* set through an engine (podman --annotation, a pod's annotations) */
        TSYNC_ANNOTATION_BY_US,   /* written by inject, precreate or a hook; refused from an engine */
};

struct tsync_annotation_def {
        const char *name;
        enum tsync_annotation_setter setter;
        /* Its presence makes a config ours to rewrite: the precreate and
         * createRuntime hooks.d files' `when` regexes name exactly the user's
         * rows with it, and the runtime wrapper rewrites a config that has
         * any row with it. */
        bool asks_for_us;
        /* Under an engine, it needs our poststop hook: the poststop hooks.d
         * file's `when` names exactly these rows. An engine writes config.json
         * anew at every start, so the exec view needs no poststop there. */
        bool needs_poststop;
        /* What its value is, for help text ("once or once:ERRNO"); NULL for ours. */
        const char *value;
        /* A user's row: for each front end, NULL when it honours the
         * annotation, else why it cannot and what to use instead (the refusal
         * reads "annotations.NAME: <this>"). Unused in ours, whose refusal
         * is tsync_rewrite_undo's. */
        const char *refused[TSYNC_FRONTEND_COUNT];
};

extern const struct tsync_annotation_def tsync_annotation_table[];
extern const size_t tsync_annotation_count;

/* The row called name, or NULL. */
const struct tsync_annotation_def *tsync_annotation_find(const char *name);

/* For messages: "precreate", "oci-seccomp-tsync-runtime", "inject". */
const char *tsync_frontend_name(enum tsync_frontend fe);

/* Whether front end fe can act on the config's annotations: -EINVAL (err set)
 * for one under TSYNC_ANNOTATION_PREFIX that is not in the table, or a
 * user's that fe does not honour; else 0, with *ret_asks (may be NULL) true
 * when an annotation in the config asks for us. Ours (plan, running) pass:
 * tsync_rewrite_undo decides whether they may be there. */
int tsync_annotations_check(const struct tsync_json *config, enum tsync_frontend fe, bool *ret_asks,
                            struct tsync_err *err);

/* The mark of a pod's sandbox in the config's annotations, or NULL: the
 * pause container, which runs no workload, of the engine whose program
 * (runner_comm, the comm of the process that runs the runtime) runs us, for
 * the container id. containerd copies the pod's allowed annotations onto it
 * too, so ours there ask nothing of us: the pod's containers carry them (and
 * containerd sets the mark itself, after the pod's annotations, so a pod
 * cannot claim it). Node layers (the runtime's own settings) are for every
 * container, the pause's included: the mark never skips them. */
const struct tsync_sandbox_mark *tsync_annotations_sandbox(const struct tsync_json *config, const char *runner_comm,
                                                           const char *id);

/* The engine whose pod mark (its container-type annotation, any value) the
 * config carries, or NULL: a pod's container, whose author is not the node's
 * user. A config may forge a mark, which only makes it held to a pod's rules. */
const struct tsync_sandbox_mark *tsync_annotations_pod(const struct tsync_json *config);
