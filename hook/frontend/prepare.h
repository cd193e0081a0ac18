/* The host decision, one entry point for every front end (inject,
 * precreate, the runtime wrapper): from a config and what the user asked, the
 * plan the init gets, its compiled filters, how the init runs the workload
 * and which of our hooks the config needs (tsync_plan_prepare); then the one
 * rewrite (tsync_plan_apply). What differs between the front ends is an
 * input here (struct tsync_prepare_opts), never a path of their own: they
 * read, call both through frontend_prepare (frontend/pipeline.h, which says
 * the warnings and the error), and write. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "facts/annotations.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/error.h"
#include "util/json.h"

/* What the front end's situation changes. */
enum tsync_prepare_flags {
        /* inject --no-hooks: the config gets none of our hooks; what needs
         * one (a notify agent's relay) is refused, and lent capabilities are
         * refused by the rewrite (nothing would take them back from exec'd
         * processes). */
        TSYNC_PREPARE_NO_HOOKS = 1u << 0,
        /* The runtime wrapper's `run`: the runtime deletes the container
         * itself, never through our delete, which writes a recording. */
        TSYNC_PREPARE_NO_DELETE = 1u << 1,
        /* A pod's sandbox (tsync_annotations_sandbox): the pod's annotations
         * the engine copied onto it ask nothing and are not judged; only the
         * request (the node's layers) counts. */
        TSYNC_PREPARE_SANDBOX = 1u << 2,
};

struct tsync_prepare_opts {
        /* Who asks: which annotations it honours (tsync_annotations_check);
         * whether the config may carry a plan of ours (inject re-does its own
         * rewrite; precreate and the wrapper get an engine's config, where a
         * plan is forged); whether our hooks go into the config (inject, the
         * wrapper) or come from the engine's hooks directory (precreate); where
         * a recording's directory is made (inject: BUNDLE/TSYNC_BUNDLE_RECORD,
         * kept for the bundle's next run; else a fresh one under
         * paths->record_root, TSYNC_RECORD_ROOT when NULL). */
        enum tsync_frontend fe;
        /* What the user asked, as the front end read it (inject's options, the
         * annotations). Its record_dir and, for an engine's front end, its
         * delivery are prepare's to decide: whatever they hold is not read. */
        const struct tsync_request *req;
        /* TSYNC_DELIVERY_FILES (inject --compile-at-start): the bundle's state directory. */
        const char *state_dir;
        /* Profile directories, the cache (NULL cache_dir: compiled uncached),
         * the bundle (NULL for precreate, which has none yet). */
        const struct tsync_plan_paths *paths;
        unsigned flags; /* enum tsync_prepare_flags */
        /* The runtime wrapper's record-dir: a recording's paths (of, if) must
         * name files directly in it; NULL: recordings through the wrapper are
         * off. Read for TSYNC_FRONTEND_RUNTIME only. */
        const char *record_dir;
};

/* Why the config needs our createRuntime and poststop hooks (0: it does not). */
enum tsync_prepare_hook {
        TSYNC_HOOK_FILES = 1u << 0,     /* filter files, compiled at every start */
        TSYNC_HOOK_EXEC_VIEW = 1u << 1, /* the init is lent capabilities: the exec view takes them back */
        TSYNC_HOOK_AGENT = 1u << 2,     /* a notify agent gets its listener from createRuntime's relay */
        TSYNC_HOOK_RECORD = 1u << 3,    /* a recording: its file from the relay, its profile at poststop */
};

struct tsync_prepared {
        enum tsync_frontend fe;
        struct tsync_plan *plan;
        /* The compiled stack (the runtime's own profile first in layer mode). */
        struct tsync_plan_programs progs;
        /* From tsync_rewrite_undo: a container of the config that has not stopped. */
        char *running;
        /* The route: the init runs the workload in place, as PID 1
         * (plan->init.exec set, and said in a warning). */
        bool in_place;
        unsigned hooks; /* enum tsync_prepare_hook */
        /* Where the recording's directory goes (tsync_plan_record_prepare's parent_root). */
        const char *record_parent;
        const char *bundle;
        /* The recording's directory (plan->record.dir) is this run's: a fresh
         * name, or inject's bundle had none. tsync_prepared_abandon removes it. */
        bool own_record_dir;
        /* inject may write its bundle with both views (plan/views.h): our hooks
         * are there for the exec view alone, and no container of the config
         * runs (whose hooks hold config.json as its exec view). Whether the
         * bundle's file system can take them is the writer's to find out. */
        bool views;
};

/* Takes the host decision for config (which it changes only by undoing an
 * earlier rewrite of inject's): the front end's annotation rules, its trust
 * rules for a recording, tsync_rewrite_undo, tsync_plan_new,
 * tsync_plan_check_state_dir, tsync_plan_compile (through paths->cache_dir),
 * then what the compiled stack allows: one listener among a process's
 * filters (the runtime's notify profile has one), what a recording can be
 * made under (tsync_record_check_programs), the route (refused when no
 * workload could start; in place, with a warning, when the init cannot
 * supervise it), and which of our hooks the config needs. Warnings go into w
 * (never printed: the front end prints them, also on a failure). 0 with *ret
 * filled (tsync_prepared_clear), or -errno with err set and *ret untouched. */
int tsync_plan_prepare(struct tsync_json *config, const struct tsync_prepare_opts *o, struct tsync_prepared *ret,
                       struct tsync_warnings *w, struct tsync_err *err);

/* The rewrite of what p decided: the recording's directory checked and made
 * (tsync_plan_record_prepare), then tsync_rewrite_apply with p's programs
 * and running container. ro gives the host paths: the init, and our binary
 * with its hook options, added as hooks only when p->hooks says they are
 * needed and the front end adds them (never precreate's); -ENOENT when they
 * are needed and ro->hook_path is NULL (the wrapper found none beside it). */
int tsync_plan_apply(struct tsync_json *config, const struct tsync_prepared *p, const struct tsync_rewrite_opts *ro,
                     struct tsync_err *err);

/* After a refused apply, or a config that could not be written: removes
 * what tsync_plan_apply made on the host for it, the recording's directory
 * when it is p's own (own_record_dir) and still empty. */
void tsync_prepared_abandon(const struct tsync_prepared *p);

void tsync_prepared_clear(struct tsync_prepared *p);

/* For messages: why p needs our hooks ("a notify agent is reached by our
 * createRuntime hook's relay", ...), the first reason of agent, recording,
 * exec view, filter files; NULL when it needs none. */
const char *tsync_prepared_hooks_why(const struct tsync_prepared *p);
