/* The host decision for every front end (frontend/prepare.h): what inject,
 * precreate and the runtime wrapper each used to spell out, in one order,
 * with their differences as inputs. Never prints: warnings and the one error
 * go back to the front end. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts/config_caps.h"
#include "frontend/frontend.h"
#include "frontend/prepare.h"
#include "plan/exec_view.h"
#include "plan/plan_record.h"
#include "plan/record_place.h"
#include "shared/cleanup.h"
#include "shared/filterfile.h"
#include "shared/init_calls.h"

/* The runtime wrapper's trust rule: a recording's path (what: "of" or "if")
 * must name a file directly in the host's record-dir. Whoever sets a pod's
 * annotations is not the node's root, and the profile is written (and an
 * earlier one read) as root. */
static int record_path_allowed(const char *record_dir, const char *what, const char *path, struct tsync_err *err)
{
        if (!record_dir)
                return tsync_error(err, EPERM,
                                   "annotations.%s: recordings through %s are off on this host: its record-dir "
                                   "(runtime.conf, or --record-dir=DIR) names the one directory they may write",
                                   TSYNC_ANNOTATION_RECORD, tsync_frontend_name(TSYNC_FRONTEND_RUNTIME));
        size_t n = strlen(record_dir);
        while (n > 1 && record_dir[n - 1] == '/')
                n--;
        bool in_dir = record_dir[0] == '/' && strncmp(path, record_dir, n) == 0 && path[n] == '/';
        const char *name = in_dir ? path + n + 1 : "";
        if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                return tsync_error(err, EPERM,
                                   "annotations.%s: %s: '%s' is not a file directly in this host's record-dir "
                                   "%s: refused",
                                   TSYNC_ANNOTATION_RECORD, what, path, record_dir);
        return 0;
}

/* What the front end may ask for a recording, before anything is read. */
static int check_record_request(const struct tsync_prepare_opts *o, struct tsync_err *err)
{
        const struct tsync_record_request *rec = &o->req->record;
        bool wrapper = o->fe == TSYNC_FRONTEND_RUNTIME;
        int r = 0;
        if (!rec->output)
                return 0;
        if (wrapper)
                r = record_path_allowed(o->record_dir, "of", rec->output, err);
        if (wrapper && r == 0 && rec->input)
                r = record_path_allowed(o->record_dir, "if", rec->input, err);
        if (wrapper && r == 0 && (o->flags & TSYNC_PREPARE_NO_DELETE))
                r = tsync_error(err, EINVAL,
                                "annotations.%s: a recording is written at `delete`, which `run` does inside the "
                                "runtime without %s: use create, start and delete",
                                TSYNC_ANNOTATION_RECORD, tsync_frontend_name(TSYNC_FRONTEND_RUNTIME));
        /* Every front end's: never where we read our own files from. */
        if (r == 0 && tsync_record_check_output_place(rec->output, o->paths, err) < 0)
                r = tsync_error_prefix(err, "recording: of: '%s'", rec->output);
        return r;
}

/* The runtime loads its own notify profile with a listener, and the kernel
 * allows one listener among a process's filters: ours would be refused
 * (EBUSY) at every start. */
static int check_one_listener(const struct tsync_plan_programs *progs, struct tsync_err *err)
{
        for (size_t i = 0; i < progs->n_baseline; i++) {
                if (tsync_filter_find_user_notif(progs->progs[i]->insns, progs->progs[i]->len) < 0)
                        continue;
                for (size_t j = progs->n_baseline; j < progs->n; j++) {
                        enum tsync_listener l = progs->progs[j]->listener;
                        if (l == TSYNC_LISTENER_NONE)
                                continue;
                        return tsync_error(err, EBUSY,
                                           "linux.seccomp has SCMP_ACT_NOTIFY rules, so the runtime loads it with a "
                                           "notification listener, and the kernel allows one listener among a "
                                           "process's filters: %s cannot be added to it",
                                           l == TSYNC_LISTENER_AGENT ? "a layer with SCMP_ACT_NOTIFY (a notify agent's)"
                                           : l == TSYNC_LISTENER_RECORD ? "a recording"
                                                                        : "exec once");
                }
        }
        return 0;
}

/* Whether the init can supervise the workload under the stack it will run
 * under, decided now so that the config says it (--exec) and the user hears
 * it once, from the front end. */
static int check_route(const struct tsync_plan_programs *progs, bool caps_after, bool *ret_in_place,
                       struct tsync_warnings *w, struct tsync_err *err)
{
        struct tsync_stack_prog stack[TSYNC_MAX_LAYERS + 2];
        const struct tsync_init_call *denied;
        enum tsync_init_route route;
        uint32_t action;
        char why[512];

        for (size_t i = 0; i < progs->n; i++)
                stack[i] = (struct tsync_stack_prog){ .insns = progs->progs[i]->insns,
                                                      .len = progs->progs[i]->len,
                                                      .listener = progs->progs[i]->listener };
        int r = tsync_init_route(stack, progs->n, progs->n_baseline, caps_after, &route, &denied, &action, err);
        *ret_in_place = false;
        if (r == -EOPNOTSUPP || (r == 0 && route == TSYNC_ROUTE_SUPERVISE))
                return 0;
        if (r < 0)
                return r;
        const char *who = progs->n_baseline ? "the layers and the config's own linux.seccomp (which the runtime "
                                              "applies to the init too) answer"
                                            : "the filters answer";
        tsync_init_route_explain(who, denied, action, false, why, sizeof(why));
        bool exec_once = false, record = false;
        for (size_t i = 0; i < progs->n; i++) {
                exec_once |= progs->progs[i]->listener == TSYNC_LISTENER_EXEC_ONCE;
                record |= progs->progs[i]->listener == TSYNC_LISTENER_RECORD;
        }
        /* A recording's listener is the init's to hold beside the workload. */
        if (record)
                return tsync_error(err, EINVAL,
                                   "%s: a recording needs the init to stay beside the workload, never to run it in "
                                   "place",
                                   why);
        if (route == TSYNC_ROUTE_NONE && exec_once)
                return tsync_error(err, EINVAL,
                                   "%s: exec-once needs the init to supervise the workload, never to run it in place",
                                   why);
        if (route == TSYNC_ROUTE_NONE)
                return tsync_error(err, EPERM, "%s: no workload could start under them", why);
        r = tsync_warn(w, "%s: the init runs the workload in place, as PID 1, as the runtime alone would (--exec)",
                       why);
        if (r < 0)
                return tsync_error(err, -r, "out of memory");
        *ret_in_place = true;
        return 0;
}

/* Compiles the plan and judges the stack: what cli_check_plan said before. */
static int check_programs(struct tsync_plan *plan, const struct tsync_plan_paths *paths,
                          const struct tsync_json *config, struct tsync_plan_programs *progs, bool *ret_in_place,
                          struct tsync_warnings *w, struct tsync_err *err)
{
        /* Said once, here: the hook's later stages and the init stay quiet. */
        int r = tsync_caps_warn_ignored(plan->capabilities, w, err);
        if (r == 0)
                r = tsync_plan_check_annotations(plan, config, err);
        if (r == 0)
                r = tsync_plan_compile(plan, paths, config, progs, w, err);
        if (r == 0)
                r = check_one_listener(progs, err);
        /* What a recording cannot be made under (plan_record.h). */
        if (r == 0)
                r = tsync_record_check_programs(plan, progs, err);
        if (r == 0)
                r = check_route(progs, !plan->no_new_privileges, ret_in_place, w, err);
        if (r == 0 && *ret_in_place)
                plan->init.exec = true;
        return r;
}

/* Where a recording leaves the container (plan_record.h): inject's bundle
 * keeps BUNDLE/TSYNC_BUNDLE_RECORD for its next run, so only one this inject
 * makes is its own; an engine's container gets a fresh one under parent, its
 * own. *ret stays NULL without a recording, or for inject without a bundle
 * (tsync_plan_new then refuses the recording). */
static int record_dir_name(const struct tsync_prepare_opts *o, const char *parent, char **ret, bool *ret_own,
                           struct tsync_err *err)
{
        *ret = NULL;
        *ret_own = false;
        if (!o->req->record.output)
                return 0;
        if (o->fe != TSYNC_FRONTEND_INJECT) {
                *ret_own = true;
                return tsync_record_new_dir_name(parent, ret, err);
        }
        if (!o->paths->bundle)
                return 0;
        if (asprintf(ret, "%s/%s", o->paths->bundle, TSYNC_BUNDLE_RECORD) < 0) {
                *ret = NULL;
                return tsync_error(err, ENOMEM, "out of memory");
        }
        *ret_own = access(*ret, F_OK) != 0;
        return 0;
}

/* Which of our hooks the config needs, and what a front end without hooks refuses. */
static int decide_hooks(const struct tsync_prepare_opts *o, const struct tsync_plan *plan,
                        const struct tsync_plan_programs *progs, unsigned *ret, struct tsync_err *err)
{
        unsigned hooks = 0;
        if (plan->delivery == TSYNC_DELIVERY_FILES)
                hooks |= TSYNC_HOOK_FILES;
        /* Without hooks, lent capabilities are the rewrite's to refuse. */
        if (!(o->flags & TSYNC_PREPARE_NO_HOOKS)) {
                int r = tsync_exec_view_lends(plan, err);
                if (r < 0)
                        return r;
                if (r > 0)
                        hooks |= TSYNC_HOOK_EXEC_VIEW;
        }
        if (progs->agent_host_path && (o->flags & TSYNC_PREPARE_NO_HOOKS))
                return tsync_error(err, EINVAL,
                                   "--no-hooks: a profile has a notify agent (listenerPath), which only the relay our "
                                   "createRuntime hook starts can reach: inject without --no-hooks");
        if (progs->agent_host_path)
                hooks |= TSYNC_HOOK_AGENT;
        if (plan->record.req.output)
                hooks |= TSYNC_HOOK_RECORD;
        *ret = hooks;
        return 0;
}

int tsync_plan_prepare(struct tsync_json *config, const struct tsync_prepare_opts *o, struct tsync_prepared *ret,
                       struct tsync_warnings *w, struct tsync_err *err)
{
        bool from_engine = o->fe != TSYNC_FRONTEND_INJECT;
        /* inject's recording directory is in the bundle (plan_record.h). */
        const char *record_parent = !from_engine            ? NULL
                                    : o->paths->record_root ? o->paths->record_root
                                                            : TSYNC_RECORD_ROOT;
        _cleanup_free_ char *running = NULL, *record_dir = NULL;
        _cleanup_plan_ struct tsync_plan *plan = NULL;
        struct tsync_plan_programs progs = { 0 };
        bool in_place = false, own_record_dir = false;
        unsigned hooks = 0;

        /* The request with what is ours to decide: an engine's filters travel
         * in the init's arguments (nothing kept on the host), and a
         * recording's directory is named here (named first: nothing is
         * judged yet that its name could change). */
        struct tsync_request req = *o->req;
        if (from_engine)
                req.delivery = TSYNC_DELIVERY_ARGS;
        bool files = req.delivery == TSYNC_DELIVERY_FILES;
        int r = record_dir_name(o, record_parent, &record_dir, &own_record_dir, err);
        req.record_dir = record_dir;
        if (r == 0 && !(o->flags & TSYNC_PREPARE_SANDBOX))
                r = tsync_annotations_check(config, o->fe, NULL, err);
        if (r == 0)
                r = check_record_request(o, err);
        if (r == 0)
                r = tsync_rewrite_undo(config, from_engine, &running, err);
        if (r == 0)
                r = tsync_plan_new(config, &req, files ? o->state_dir : NULL, &plan, err);
        /* A pod names a file in a directory that may hold others' recordings
         * (the wrapper's record-dir; any path under a pod engine's precreate):
         * never one replaced (docs/recording.md). A Podman user's own
         * container, marked by no pod engine, names the user's own file. */
        bool pod = o->fe == TSYNC_FRONTEND_RUNTIME ||
                   (o->fe == TSYNC_FRONTEND_PRECREATE && tsync_annotations_pod(config) != NULL);
        if (r == 0 && pod)
                plan->record.no_replace = plan->record.req.output != NULL;
        if (r == 0)
                r = tsync_plan_check_state_dir(plan, o->paths, err);
        if (r == 0)
                r = check_programs(plan, o->paths, config, &progs, &in_place, w, err);
        if (r == 0)
                r = decide_hooks(o, plan, &progs, &hooks, err);
        /* Last, on the plan as decided (the route's --exec included): what
         * the init would refuse on its command line alone. */
        if (r == 0)
                r = tsync_rewrite_check_init_args(plan, hooks & (TSYNC_HOOK_AGENT | TSYNC_HOOK_RECORD), err);
        if (r < 0) {
                tsync_plan_programs_clear(&progs);
                return r;
        }
        bool views = o->fe == TSYNC_FRONTEND_INJECT && hooks == TSYNC_HOOK_EXEC_VIEW && !running;
        *ret = (struct tsync_prepared){
                .fe = o->fe,
                .plan = TAKE_PTR(plan),
                .progs = progs,
                .running = TAKE_PTR(running),
                .in_place = in_place,
                .hooks = hooks,
                .record_parent = record_parent,
                .bundle = o->paths->bundle,
                .own_record_dir = own_record_dir,
                .views = views,
        };
        return 0;
}

/* The exec view's hook (hook/viewhook, linked with musl) beside the init:
 * buf holds its path when it is there, a file we may run. */
static bool view_hook_beside(const char *init_path, char *buf, size_t size)
{
        const char *slash = init_path ? strrchr(init_path, '/') : NULL;
        if (!slash)
                return false;
        int n = snprintf(buf, size, "%.*s/%s", (int)(slash - init_path), init_path, TSYNC_VIEW_HOOK);
        struct stat st;
        return n > 0 && (size_t)n < size && stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0;
}

int tsync_plan_apply(struct tsync_json *config, const struct tsync_prepared *p, const struct tsync_rewrite_opts *ro,
                     struct tsync_err *err)
{
        /* The wrapper's hooks are the program beside it, looked for before
         * anyone knew whether the config needs them. */
        if (p->fe != TSYNC_FRONTEND_PRECREATE && p->hooks && !ro->hook_path)
                return tsync_error(err, ENOENT, "%s, and the hook, %s, is not beside %s", tsync_prepared_hooks_why(p),
                                   PROGRAM, tsync_frontend_name(p->fe));
        struct tsync_rewrite_opts o = *ro;
        o.from_engine = p->fe != TSYNC_FRONTEND_INJECT;
        o.progs = &p->progs;
        /* An engine's hooks come from its hooks directory; anyone else's only when needed. */
        if (p->fe == TSYNC_FRONTEND_PRECREATE || !p->hooks)
                o.hook_path = NULL;
        /* The wrapper's config is the engine's, written anew at every start
         * (a config with our plan is refused): createRuntime's exec view needs
         * no sync and no poststop to lend the sets again, and our delete
         * writes a recording. Only inject's bundle, the user's, outlives a
         * start. */
        static const char *const engine_hook_args[] = { "--no-sync" };
        if (p->fe == TSYNC_FRONTEND_RUNTIME) {
                o.no_poststop = true;
                o.hook_args = engine_hook_args;
                o.n_hook_args = ARRAY_SIZE(engine_hook_args);
        }
        int r = tsync_plan_record_prepare(p->plan, config, p->bundle, p->record_parent, err);
        if (r == 0)
                r = tsync_rewrite_apply(config, p->plan, &o, p->running, err);
        /* Hooks that keep the exec view alone are the view hook's, where it
         * is: a start then runs no glibc program of ours (issue 40). Our
         * hooks.d entries in an engine's config too. */
        char view_hook[PATH_MAX];
        if (r == 0 && p->hooks == TSYNC_HOOK_EXEC_VIEW && view_hook_beside(ro->init_path, view_hook, sizeof(view_hook)))
                r = tsync_rewrite_hooks_to(config, view_hook, err);
        return r;
}

void tsync_prepared_abandon(const struct tsync_prepared *p)
{
        /* rmdir: only while empty, so never a recording a run left in it. */
        if (p->own_record_dir && p->plan && p->plan->record.dir)
                (void)rmdir(p->plan->record.dir);
}

void tsync_prepared_clear(struct tsync_prepared *p)
{
        tsync_plan_free(p->plan);
        tsync_plan_programs_clear(&p->progs);
        free(p->running);
        *p = (struct tsync_prepared){ 0 };
}

const char *tsync_prepared_hooks_why(const struct tsync_prepared *p)
{
        if (p->hooks & TSYNC_HOOK_AGENT)
                return "a notify agent is reached by our createRuntime hook's relay";
        if (p->hooks & TSYNC_HOOK_RECORD)
                return "a recording's file is handed to the init by our createRuntime hook's relay";
        if (p->hooks & TSYNC_HOOK_EXEC_VIEW)
                return "the init is lent capabilities (process.noNewPrivileges is false), and the hook takes them "
                       "back from exec'd processes";
        if (p->hooks & TSYNC_HOOK_FILES)
                return "the filters are compiled at every start by our createRuntime hook";
        return NULL;
}
