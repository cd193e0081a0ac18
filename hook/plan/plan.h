/* The plan: what inject/precreate decided for a container, kept in the
 * config's annotations so that the hook stages (and a second inject) find it. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "facts/annotations.h"
#include "plan/plan_record.h"
#include "shared/error.h"
#include "translate/compile.h"
#include "translate/profile.h"
#include "util/json.h"

/* The errno exec-once answers with when none is named. */
#define TSYNC_EXEC_ONCE_DEFAULT_ERRNO EPERM

/* Inside the container: a read-only tmpfs of our own (issue 35), holding
 * only the mount points below. A directory of the rootfs could be renamed by
 * a workload without any capability (Linux refuses to rename a mount point,
 * not its parent), and a program of its own put in its place would then be
 * what an exec'd process runs; a mount point cannot be renamed or removed,
 * and a read-only tmpfs holds nothing the workload made. */
#define TSYNC_CONTAINER_DIR            "/.oci-seccomp-tsync"
#define TSYNC_CONTAINER_DIR_TMPFS_SIZE "4k"
#define TSYNC_CONTAINER_INIT           TSYNC_CONTAINER_DIR "/init"
#define TSYNC_CONTAINER_FILTERS        TSYNC_CONTAINER_DIR "/filters"
/* The relay's private tmpfs (issue 23): the rewrite mounts it (mode 0700,
 * owned by process.user) for a notify agent; createRuntime's one-shot
 * relay (relay.h) listens in it, as TSYNC_RELAY_NAME, for the init alone,
 * and removes the name once the init connected. Nothing of the host is
 * mounted for the agent: the relay reaches it from the host. */
#define TSYNC_CONTAINER_AGENT_DIR TSYNC_CONTAINER_DIR "/agent"
#define TSYNC_RELAY_NAME          "relay"
#define TSYNC_CONTAINER_RELAY     TSYNC_CONTAINER_AGENT_DIR "/" TSYNC_RELAY_NAME
#define TSYNC_AGENT_TMPFS_SIZE    "256k"

/* On the host: per-container filter directories of precreate; inject keeps
 * them in the bundle (BUNDLE/oci-seccomp-tsync) so the bundle can run again. */
#define TSYNC_STATE_ROOT   "/run/oci-seccomp-tsync"
#define TSYNC_BUNDLE_STATE "oci-seccomp-tsync"

#define TSYNC_PLAN_VERSION 1
#define TSYNC_MAX_LAYERS   16

enum tsync_mode {
        TSYNC_MODE_LAYER,   /* the runtime keeps applying linux.seccomp; layers go on top */
        TSYNC_MODE_REPLACE, /* linux.seccomp moves from the runtime to the init */
};

/* "layer" or "replace"; -EINVAL for anything else. */
int tsync_mode_from_name(const char *name, enum tsync_mode *ret);
const char *tsync_mode_name(enum tsync_mode m);

/* The init's own options, which the rewrite writes into its arguments: asked
 * for in a request, kept in the plan (so a second inject and the hook stages
 * know them). A new one is a member here, its JSON key in plan.c, its row in
 * init_args.c (the init's option) and one line in rewrite.c's init_args
 * (HACKING.md, "How to add"). */
struct tsync_init_opts {
        bool exec; /* the init execs the workload in its place instead of staying PID 1 */
        /* Exec once: 0 off, else the errno (1..4095) every exec but the
         * workload's own start gets. Adds the exec-once filter as the plan's
         * last (tsync_plan_filter_count) and --exec-once ERRNO to the init's
         * arguments. Never with exec. */
        int exec_once;
        /* Replace mode's warning said by the init on the container's stderr,
         * before the workload runs (--warn-replace): precreate's, whose own
         * stderr Podman hides. */
        bool warn_replace;
};

/* How the compiled filters reach the init. */
enum tsync_delivery {
        /* Filter files (NN.bpf) in the plan's state directory on the host, written
         * by the createRuntime hook at every start and bind-mounted read-only at
         * TSYNC_CONTAINER_FILTERS: a changed profile counts at the next start. */
        TSYNC_DELIVERY_FILES,
        /* In the init's own arguments (--filter-data, base64 of the filter file),
         * compiled when the config is written: no host state, no hook at start
         * unless capabilities are lent (the exec view). */
        TSYNC_DELIVERY_ARGS,
};

/* What the user asked for (inject's options, or the annotations an engine
 * passes on), before anything was checked against the config. */
struct tsync_request {
        enum tsync_mode mode;
        bool layers_by_name; /* names in the profile directories (annotations), or absolute host paths (inject) */
        const char *layers[TSYNC_MAX_LAYERS]; /* the caller's, or in names */
        size_t n_layers;
        struct tsync_init_opts init;
        enum tsync_delivery delivery;
        char *names; /* owned: the annotation's layer list, split in place, or NULL */
        /* A recording (plan_record.h): record.output NULL when none; owned.
         * record_dir: where inject or precreate put its host directory. */
        struct tsync_record_request record;
        const char *record_dir;
};

/* Frees names and the recording's request (and nothing a caller put in layers). */
void tsync_request_clear(struct tsync_request *r);

/* Parses an exec-once errno: a name (EPERM, EACCES, ... as containers/common's
 * errno table, the names the profiles' "errno" takes) or a decimal number, 1
 * to 4095. -EINVAL otherwise. */
int tsync_exec_once_errno_parse(const char *s, int *ret);

/* The request an engine's config makes with our annotations (LAYERS, MODE,
 * EXEC, RECORD), as front end fe reads it: first tsync_annotations_check, so
 * an annotation of ours fe does not honour, or one misspelt, is refused.
 * Names are split at ',', ';', ':' and blanks (Podman's --annotation splits
 * its argument at commas) and must be profile names. */
int tsync_request_from_annotations(const struct tsync_json *config, enum tsync_frontend fe, struct tsync_request *ret,
                                   struct tsync_err *err);

struct tsync_plan {
        enum tsync_mode mode;
        bool layers_by_name;         /* precreate: names in the profile directories; inject: absolute paths */
        struct tsync_init_opts init; /* as asked; init.exec also when the route decides it */
        enum tsync_delivery delivery;
        char *state_dir; /* TSYNC_DELIVERY_FILES: where the filter files go; else NULL */
        char **layers;
        size_t n_layers;
        /* What the config said before the rewrite. */
        struct tsync_json *args;         /* array */
        struct tsync_json *capabilities; /* object, or NULL when the config had none */
        bool no_new_privileges;
        struct tsync_json *seccomp; /* replace mode: the section moved out of linux.seccomp */
        /* From the config's annotations, not the plan: compile strictly. */
        bool fail_unknown_syscall;
        /* The notify agent's listenerPath on the host (the profile's, as
         * compiled when the config was rewritten), or NULL without an agent:
         * the rewrite records it, createRuntime delivers the agent's state
         * when it is set and checks the socket's mount against it. */
        char *listener_path;
        /* A recording: the plan's last filter (record.req.output NULL: none). */
        struct tsync_plan_record record;
};

void tsync_plan_free(struct tsync_plan *p);
static inline void tsync_plan_freep(struct tsync_plan **p)
{
        tsync_plan_free(*p);
}
#define _cleanup_plan_ __attribute__((cleanup(tsync_plan_freep)))

/* The plan for config (as the user wrote it, or as an earlier rewrite is
 * undone to) and request, with the init's filter files in state_dir on the
 * host (TSYNC_DELIVERY_FILES; NULL otherwise). Checks what the plan takes from the config (process.args,
 * capabilities, noNewPrivileges, linux.seccomp in replace mode). */
int tsync_plan_new(const struct tsync_json *config, const struct tsync_request *req, const char *state_dir,
                   struct tsync_plan **ret, struct tsync_err *err);

/* The plan annotation of a config, parsed; -ENOENT when the config has none. */
int tsync_plan_from_config(const struct tsync_json *config, struct tsync_plan **ret, struct tsync_err *err);

/* The plan as the annotation's JSON text. */
int tsync_plan_to_json(const struct tsync_plan *p, char **ret, struct tsync_err *err);

/* Checks a layer name from an annotation: [A-Za-z0-9_.-], not starting with '.', at most 64 bytes. */
bool tsync_layer_name_valid(const char *name);

/* The profile a layer name names: NAME.json (or NAME) in the first of
 * o->profile_dirs that has it, a regular file, never a symbolic link, into
 * *ret_path (malloc'd). -ENOENT naming every directory looked in. */
struct tsync_plan_paths;
int tsync_layer_find(const struct tsync_plan_paths *o, const char *name, char **ret_path, struct tsync_err *err);

/* The filters the init applies, in order: in replace mode the moved
 * linux.seccomp, then the layers, then the exec-once filter when asked for,
 * then the recording filter (never with exec once).
 * Filter k (0 <= k < count) is NN.bpf. */
size_t tsync_plan_filter_count(const struct tsync_plan *p);
/* "linux.seccomp", "layer 'NAME'" or "exec-once", for messages about filter k. */
void tsync_plan_filter_label(const struct tsync_plan *p, size_t k, char *buf, size_t size);

/* Where the plan's inputs and outputs are on the host. */
struct tsync_plan_paths {
        const char *cache_dir;           /* NULL: no cache */
        const char *const *profile_dirs; /* where layers named by annotation are looked up, in order */
        size_t n_profile_dirs;
        const char *state_root;      /* precreate's per-container directories live here */
        const char *bundle;          /* the container's bundle (inject keeps its directory there) */
        const char *record_root;     /* precreate's recording directories live here (NULL: TSYNC_RECORD_ROOT) */
        const char *hooks_cache_dir; /* the cache our hooks will use when not cache_dir (inject's --cache-dir) */
};

/* Loads filter k of the plan with Docker-format capability conditions judged
 * against the plan's original bounding set (*ret_caps: the set it was
 * resolved against). Refuses profiles with NOTIFY actions or a listenerPath.
 * The exec-once filter is a profile made here: default ALLOW, execve and
 * execveat SCMP_ACT_NOTIFY, for the native architecture and every other ABI
 * its kernel runs (x86_64: x86 and x32; aarch64: arm; ...), so that it is never
 * narrower than the other filters.
 * An unknown key is an error in a layer and a warning (into w) in the moved
 * linux.seccomp, which runc would have read ignoring it. */
int tsync_plan_load_filter(const struct tsync_plan *plan, size_t k, const struct tsync_plan_paths *o,
                           struct tsync_profile **ret, uint64_t *ret_caps, struct tsync_warnings *w,
                           struct tsync_err *err);

/* The compiled stack, in the order the kernel runs it on the init: the
 * runtime's own linux.seccomp first when it applies one (layer mode), then
 * the plan's filters. */
struct tsync_plan_programs {
        struct tsync_program *progs[TSYNC_MAX_LAYERS + 2];
        size_t n;
        size_t n_baseline; /* 0 or 1: progs[0] is the runtime's own profile */
        /* The one filter with an agent (TSYNC_LISTENER_AGENT), if any: its
         * profile's listenerPath on the host and listenerMetadata ("" when
         * absent). Both NULL when no filter has an agent. */
        char *agent_host_path;
        char *agent_metadata;
};
void tsync_plan_programs_clear(struct tsync_plan_programs *p);

/* Refuses, for a plan with a recording, compiled filters it cannot be
 * recorded under: a notify agent's listener (one listener per filter chain),
 * SCMP_ACT_TRACE in any of them, the runtime's own profile included (the
 * recording's USER_NOTIF takes precedence over TRACE). */
int tsync_record_check_programs(const struct tsync_plan *plan, const struct tsync_plan_programs *progs,
                                struct tsync_err *err);

/* The filter file of the plan's filter k (progs->progs[progs->n_baseline + k]),
 * with the agent's trailer (TSYNC_CONTAINER_RELAY and the metadata) for the
 * agent filter. *ret_buf is malloc'd. */
int tsync_plan_encode_filter(const struct tsync_plan_programs *progs, size_t k, void **ret_buf, size_t *ret_size,
                             struct tsync_err *err);

/* Compiles every filter of the plan through the cache (o->cache_dir), and,
 * when config is not NULL, the runtime's own profile in layer mode (never
 * cached: only the route is judged by it). Unknown names are errors when the
 * config asked crun to fail on them. Warnings go into w. */
int tsync_plan_compile(const struct tsync_plan *plan, const struct tsync_plan_paths *o, const struct tsync_json *config,
                       struct tsync_plan_programs *ret, struct tsync_warnings *w, struct tsync_err *err);

/* Refuses annotations that change how crun applies linux.seccomp in replace
 * mode, where the section is ours to apply and we cannot do what they ask. */
int tsync_plan_check_annotations(const struct tsync_plan *plan, const struct tsync_json *config, struct tsync_err *err);

enum tsync_state_dir_kind {
        TSYNC_STATE_DIR_BUNDLE,    /* BUNDLE/oci-seccomp-tsync: inject's, kept for the next run */
        TSYNC_STATE_DIR_PRECREATE, /* STATE_ROOT/<32 hex digits>: precreate's, removed at poststop */
};

/* Which of ours plan->state_dir is for o; -EPERM with a message when neither. */
int tsync_plan_state_dir_kind(const struct tsync_plan *plan, const struct tsync_plan_paths *o,
                              enum tsync_state_dir_kind *ret, struct tsync_err *err);

/* Checks plan->state_dir is one of ours for this container and a real
 * directory owned by us alone (nothing to check for TSYNC_DELIVERY_ARGS). */
int tsync_plan_check_state_dir(const struct tsync_plan *plan, const struct tsync_plan_paths *o, struct tsync_err *err);
