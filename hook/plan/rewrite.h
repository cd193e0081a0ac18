/* The config rewrite behind `inject` and the precreate hook: the container
 * starts under seccomp-tsync-init with the compiled filters mounted beside it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "shared/error.h"
#include "util/json.h"

struct tsync_plan;
struct tsync_plan_programs;
struct tsync_request;

/* What the rewrite needs beyond the plan: host paths it writes into the config. */
struct tsync_rewrite_opts {
        const char *init_path;        /* host path of the static seccomp-tsync-init */
        const char *hook_path;        /* inject: our binary, added as createRuntime and poststop hooks; NULL: none */
        const char *const *hook_args; /* options passed to those hooks (after "hook STAGE") */
        size_t n_hook_args;
        bool from_engine; /* precreate: the engine chose the annotations (a plan among them is
                           * forged) and runs our createRuntime hook from its hooks directory */
        /* Our createRuntime hook alone: the engine writes config.json anew at
         * every start, so there is no lent view for a poststop hook to give
         * back (the runtime wrapper, whose delete writes a recording). */
        bool no_poststop;
        /* TSYNC_DELIVERY_ARGS: the plan's filters compiled (tsync_plan_compile),
         * written into the init's arguments. */
        const struct tsync_plan_programs *progs;
};

/* Undoes an earlier rewrite, so that the rewrite never wraps twice: the
 * config comes back from its plan, but only when it is exactly what the
 * rewrite wrote from that plan (-EPERM naming the first JSON path that
 * differs otherwise), and never for an engine's config (from_engine).
 * *ret_running: the id of a container from this config that has not
 * stopped (its exec view is kept), or NULL. Nothing changes without a plan. */
int tsync_rewrite_undo(struct tsync_json *config, bool from_engine, char **ret_running, struct tsync_err *err);

/* Removes our hooks from every stage of config.hooks (a stage that held only
 * ours goes). */
void tsync_rewrite_drop_hooks(struct tsync_json *config);

/* Our hooks of every stage of config.hooks run path instead, with what it
 * takes: "hook STAGE" after our marker, and --no-sync when they had it (every
 * other option is oci-seccomp-tsync's). For a plan whose hooks keep the exec
 * view alone, the exec view's hook (hook/viewhook). 0 or -ENOMEM. */
int tsync_rewrite_hooks_to(struct tsync_json *config, const char *path, struct tsync_err *err);

/* Rewrites config (carrying no plan) for plan (tsync_plan_new of it): the
 * init with the filters mounted beside it, the init's arguments, lent
 * capabilities, our hooks, the plan annotation. running: from
 * tsync_rewrite_undo; its exec view is kept. */
int tsync_rewrite_apply(struct tsync_json *config, const struct tsync_plan *plan, const struct tsync_rewrite_opts *o,
                        const char *running, struct tsync_err *err);

/* Whether the init would take the command line the rewrite writes for plan
 * (relay: it reaches createRuntime's relay, for a notify agent or a
 * recording): the table's rules (shared/init_args.h), so that a combination
 * the init refuses on its command line alone is refused before anything is
 * written. 0, or -EINVAL / -E2BIG with err naming the options. */
int tsync_rewrite_check_init_args(const struct tsync_plan *plan, bool relay, struct tsync_err *err);

/* An exec'd process (`runc exec --process FILE`) of a container of ours: its
 * process object runs through the init as the container's did. plan is the
 * exec'd process's own (tsync_plan_new of a config holding this process, with
 * the container's request): its args, capabilities and noNewPrivileges are
 * this process's. data: the container's --filter-data texts
 * (TSYNC_DELIVERY_ARGS, n_data of them; tsync_rewrite_filter_data), or none
 * for filter files, which stay mounted for the container's life. Never a
 * notify agent or a recording (-EINVAL). */
int tsync_rewrite_process(struct tsync_json *process, const struct tsync_plan *plan, const char *const *data,
                          size_t n_data, struct tsync_err *err);

/* The --filter-data texts of the init's arguments in config's process.args,
 * as the rewrite wrote them, at most max into ret (pointers into config):
 * their count. */
size_t tsync_rewrite_filter_data(const struct tsync_json *config, const char **ret, size_t max);

/* The host path the config mounts at TSYNC_CONTAINER_INIT (the source of
 * its last mount there: the init the host delivered to the container), or
 * NULL when there is none or its source is not a string (a pointer into
 * config). */
const char *tsync_rewrite_init_source(const struct tsync_json *config);

/* `runc exec --process FILE` of the container whose config (BUNDLE/config.json,
 * as the rewrite wrote it) is config: process (FILE's object) is rewritten to
 * run through the init with the container's filters (tsync_rewrite_process).
 * 1 when rewritten, 0 when config is not ours (no plan: process untouched),
 * -errno when it is ours and the process cannot carry its filters (a config
 * that is not exactly what the rewrite wrote, a notify agent, a recording). */
int tsync_rewrite_exec(struct tsync_json *process, const struct tsync_json *config, struct tsync_err *err);

/* After tsync_rewrite_exec: the exec'd process's init also loads data (n
 * filter files in base64: the layers lockdown added to the container, its
 * record), after the container's own filters, as the running tasks carry
 * them. 0 or -errno. */
int tsync_rewrite_exec_add(struct tsync_json *process, const char *const *data, size_t n, struct tsync_err *err);

/* Whether config was rewritten by us (our plan, or the running container's
 * record, in its annotations): then an exec'd process must carry its filters. */
bool tsync_rewrite_is_ours(const struct tsync_json *config);
