/* The host decision every front end takes through tsync_plan_prepare
 * (hook/frontend/prepare.c): the route (in place, with a warning; refused when no
 * workload could start), one listener among a process's filters, what a
 * recording is refused under, the front ends' own rules, and which of our
 * hooks the config needs. Real profiles compiled by libseccomp, no mocks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontend/prepare.h"
#include "tap.h"
#include "unit.h"

static char tmp[] = "/tmp/test_prepare.XXXXXX";
static char profiles[256], bundle[256], state_dir[300], record_root[256];

#define ALLOW "{\"defaultAction\": \"SCMP_ACT_ALLOW\"}"
#define DENY(call)                                                                                                     \
        "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"" call "\"], "                          \
        "\"action\": \"SCMP_ACT_ERRNO\"}]}"
#define NOTIFY_RULES "\"syscalls\": [{\"names\": [\"getppid\"], \"action\": \"SCMP_ACT_NOTIFY\"}]"

static const struct {
        const char *name, *text;
} layer_files[] = {
        { "allow", ALLOW },
        /* The init forwards signals with kill: without it, it cannot supervise (init_calls.c). */
        { "deny-kill", DENY("kill") },
        { "deny-read", DENY("read") },
        { "agent", "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/run/agent.sock\", " NOTIFY_RULES "}" },
};

static int setup(void)
{
        if (unit_tmpdir(tmp) < 0)
                return -1;
        (void)snprintf(profiles, sizeof(profiles), "%s/profiles", tmp);
        (void)snprintf(bundle, sizeof(bundle), "%s/bundle", tmp);
        (void)snprintf(state_dir, sizeof(state_dir), "%s/%s", bundle, TSYNC_BUNDLE_STATE);
        (void)snprintf(record_root, sizeof(record_root), "%s/record", tmp);
        if (mkdir(profiles, 0700) < 0 || mkdir(bundle, 0700) < 0 || mkdir(state_dir, 0755) < 0)
                return -1;
        for (size_t i = 0; i < sizeof(layer_files) / sizeof(layer_files[0]); i++) {
                char path[512];
                (void)snprintf(path, sizeof(path), "%s/%s.json", profiles, layer_files[i].name);
                if (unit_write_file(path, layer_files[i].text) < 0)
                        return -1;
        }
        return 0;
}

/* A config; nnp: process.noNewPrivileges; caps: process.capabilities (the
 * init is lent CAP_SYS_ADMIN when nnp is false); extra: more top-level keys
 * (linux, an empty object, unless extra gives it). */
static struct tsync_json *config(bool nnp, const char *extra)
{
        char buf[2048];
        (void)snprintf(buf, sizeof(buf),
                       "{\"ociVersion\": \"1.0.2\", \"process\": {\"args\": [\"sh\"], \"noNewPrivileges\": %s, "
                       "\"capabilities\": {\"bounding\": [\"CAP_KILL\"], \"effective\": [\"CAP_KILL\"], "
                       "\"permitted\": [\"CAP_KILL\"]}}, \"root\": {\"path\": \"rootfs\"}, \"mounts\": [], %s}",
                       nnp ? "true" : "false", extra ? extra : "\"linux\": {}");
        return unit_parse(buf);
}

struct row {
        const char *name;
        enum tsync_frontend fe;
        bool nnp;
        const char *extra; /* more of the config */
        const char *layer; /* a profile name in profiles/, or NULL */
        bool files;        /* inject --compile-at-start: filter files in the bundle */
        int exec_once;
        const char *record; /* a recording's output, or NULL */
        unsigned flags;
        const char *record_dir; /* the wrapper's record-dir */
        /* What prepare says: refused with this in the message, or taken. */
        const char *refusal;
        const char *warning; /* a warning that must be there, or NULL: none at all */
        bool in_place;
        unsigned hooks;
};

static const struct row rows[] = {
        { .name = "test_prepare_supervises_under_a_plain_layer",
          .fe = TSYNC_FRONTEND_PRECREATE,
          .nnp = true,
          .layer = "allow" },
        { .name = "test_prepare_runs_in_place_with_a_warning_when_the_init_cannot_supervise",
          .fe = TSYNC_FRONTEND_PRECREATE,
          .nnp = true,
          .layer = "deny-kill",
          .warning = "the init runs the workload in place, as PID 1, as the runtime alone would (--exec)",
          .in_place = true },
        { .name = "test_prepare_refuses_a_stack_no_workload_could_start_under",
          .fe = TSYNC_FRONTEND_RUNTIME,
          .nnp = true,
          .layer = "deny-read",
          .refusal = "no workload could start under them" },
        { .name = "test_prepare_refuses_exec_once_where_the_init_cannot_supervise",
          .fe = TSYNC_FRONTEND_INJECT,
          .nnp = true,
          .layer = "deny-kill",
          .exec_once = EPERM,
          .refusal = "exec-once needs the init to supervise the workload" },
        { .name = "test_prepare_refuses_exec_once_beside_the_runtimes_notify_listener",
          .fe = TSYNC_FRONTEND_PRECREATE,
          .nnp = true,
          .extra = "\"linux\": {\"seccomp\": {\"defaultAction\": \"SCMP_ACT_ALLOW\", " NOTIFY_RULES "}}",
          .exec_once = EPERM,
          .refusal = "the kernel allows one listener among a process's filters: exec once cannot be added to it" },
        /* The init's command line would be --exec-once with --relay, which it
         * refuses whatever the filters (the kernel's one listener): refused here,
         * by the same table (shared/init_args.c), before anything is written. */
        { .name = "test_prepare_refuses_exec_once_beside_a_notify_agents_layer",
          .fe = TSYNC_FRONTEND_INJECT,
          .nnp = true,
          .layer = "agent",
          .exec_once = EPERM,
          .refusal = "the init's command line: --exec-once cannot be combined with --relay: the kernel allows one "
                     "listener among a process's filters" },
        { .name = "test_prepare_refuses_a_recording_beside_the_runtimes_notify_listener",
          .fe = TSYNC_FRONTEND_PRECREATE,
          .nnp = true,
          .extra = "\"linux\": {\"seccomp\": {\"defaultAction\": \"SCMP_ACT_ALLOW\", " NOTIFY_RULES "}}",
          .record = "/tmp/out.json",
          .refusal = "filters: a recording cannot be added to it" },
        { .name = "test_prepare_refuses_a_recording_where_the_init_would_run_in_place",
          .fe = TSYNC_FRONTEND_PRECREATE,
          .nnp = true,
          .layer = "deny-kill",
          .record = "/tmp/out.json",
          .refusal = "a recording needs the init to stay beside the workload, never to run it in place" },
        { .name = "test_prepare_refuses_a_recording_through_the_wrapper_without_its_record_dir",
          .fe = TSYNC_FRONTEND_RUNTIME,
          .nnp = true,
          .layer = "allow",
          .record = "/tmp/out.json",
          .refusal = "recordings through oci-seccomp-tsync-runtime are off on this host" },
        { .name = "test_prepare_refuses_a_recording_outside_the_wrappers_record_dir",
          .fe = TSYNC_FRONTEND_RUNTIME,
          .nnp = true,
          .layer = "allow",
          .record = "/tmp/elsewhere/out.json",
          .record_dir = "/tmp/rec",
          .refusal = "of: '/tmp/elsewhere/out.json' is not a file directly in this host's record-dir /tmp/rec" },
        { .name = "test_prepare_refuses_a_recording_through_the_wrappers_run",
          .fe = TSYNC_FRONTEND_RUNTIME,
          .nnp = true,
          .layer = "allow",
          .record = "/tmp/rec/out.json",
          .record_dir = "/tmp/rec",
          .flags = TSYNC_PREPARE_NO_DELETE,
          .refusal = "which `run` does inside the runtime without oci-seccomp-tsync-runtime" },
        { .name = "test_prepare_needs_the_record_hooks_for_a_recording",
          .fe = TSYNC_FRONTEND_RUNTIME,
          .nnp = true,
          .layer = "allow",
          .record = "/tmp/rec/out.json",
          .record_dir = "/tmp/rec",
          .hooks = TSYNC_HOOK_RECORD },
        { .name = "test_prepare_needs_the_exec_view_hooks_when_capabilities_are_lent",
          .fe = TSYNC_FRONTEND_RUNTIME,
          .nnp = false,
          .layer = "allow",
          .hooks = TSYNC_HOOK_EXEC_VIEW },
        { .name = "test_prepare_adds_no_exec_view_hooks_to_inject_no_hooks",
          .fe = TSYNC_FRONTEND_INJECT,
          .nnp = false,
          .layer = "allow",
          .flags = TSYNC_PREPARE_NO_HOOKS },
        { .name = "test_prepare_needs_hooks_for_filter_files_and_an_agent",
          .fe = TSYNC_FRONTEND_INJECT,
          .nnp = true,
          .layer = "agent",
          .files = true,
          .hooks = TSYNC_HOOK_FILES | TSYNC_HOOK_AGENT },
        { .name = "test_prepare_refuses_an_agent_to_inject_no_hooks",
          .fe = TSYNC_FRONTEND_INJECT,
          .nnp = true,
          .layer = "agent",
          .files = true,
          .flags = TSYNC_PREPARE_NO_HOOKS,
          .refusal = "--no-hooks: a profile has a notify agent (listenerPath)" },
        { .name = "test_prepare_refuses_a_users_annotation_to_inject",
          .fe = TSYNC_FRONTEND_INJECT,
          .nnp = true,
          .extra = "\"linux\": {}, \"annotations\": {\"io.oci-seccomp-tsync.exec\": \"once\"}",
          .layer = "allow",
          .refusal = "annotations.io.oci-seccomp-tsync.exec" },
};

static void test_row(const struct row *row)
{
        struct tsync_err err = { 0 };
        struct tsync_warnings w = { 0 };
        struct tsync_json *c = config(row->nnp, row->extra);
        struct tsync_request req = { .layers_by_name = true,
                                     .n_layers = row->layer ? 1 : 0,
                                     .layers = { row->layer },
                                     .init = { .exec_once = row->exec_once },
                                     .delivery = row->files ? TSYNC_DELIVERY_FILES : TSYNC_DELIVERY_ARGS,
                                     .record = { .output = (char *)row->record, .errno_ret = EPERM } };
        const char *dirs[] = { profiles };
        struct tsync_plan_paths paths = { .profile_dirs = dirs,
                                          .n_profile_dirs = 1,
                                          .state_root = "/run/oci-seccomp-tsync",
                                          .bundle = row->fe == TSYNC_FRONTEND_PRECREATE ? NULL : bundle,
                                          .record_root = record_root };
        struct tsync_prepare_opts o = { .fe = row->fe,
                                        .req = &req,
                                        .state_dir = row->files ? state_dir : NULL,
                                        .paths = &paths,
                                        .flags = row->flags,
                                        .record_dir = row->record_dir };
        struct tsync_prepared p = { 0 };
        int r = c ? tsync_plan_prepare(c, &o, &p, &w, &err) : -EINVAL;
        bool warned = !row->warning ? w.len == 0 : w.len == 1 && strstr(w.msgs[0], row->warning) != NULL;
        if (row->refusal)
                tap_ok(r < 0 && err.code == -r && strstr(err.msg, row->refusal) && warned, "%s (%s)", row->name,
                       r < 0 ? err.msg : "taken");
        else
                tap_ok(r == 0 && warned && p.in_place == row->in_place && p.plan->init.exec == row->in_place &&
                               p.hooks == row->hooks,
                       "%s (%s; hooks %#x, %zu warnings)", row->name, r < 0 ? err.msg : "taken", r == 0 ? p.hooks : 0,
                       w.len);
        if (r == 0)
                tsync_prepared_clear(&p);
        tsync_warnings_clear(&w);
        tsync_json_free(c);
}

/* Apply writes what prepare decided; an engine's front end then refuses the
 * config it wrote (a plan in an engine's config is forged), inject re-does it. */
static void test_apply_then_again(void)
{
        struct tsync_err err = { 0 };
        struct tsync_warnings w = { 0 };
        struct tsync_json *c = config(true, NULL);
        const char *dirs[] = { profiles };
        struct tsync_plan_paths paths = { .profile_dirs = dirs, .n_profile_dirs = 1, .state_root = "/run/x" };
        struct tsync_request req = { .layers_by_name = true, .n_layers = 1, .layers = { "deny-kill" } };
        req.delivery = TSYNC_DELIVERY_ARGS;
        struct tsync_prepare_opts o = { .fe = TSYNC_FRONTEND_PRECREATE, .req = &req, .paths = &paths };
        struct tsync_rewrite_opts ro = { .init_path = "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init",
                                         .hook_path = "/usr/bin/oci-seccomp-tsync" };
        struct tsync_prepared p = { 0 };
        int r = c ? tsync_plan_prepare(c, &o, &p, &w, &err) : -EINVAL;
        r = r ?: tsync_plan_apply(c, &p, &ro, &err);
        struct tsync_plan *plan = NULL;
        r = r ?: tsync_plan_from_config(c, &plan, &err);
        tap_ok(r == 0 && plan->init.exec && plan->n_layers == 1 && !tsync_json_get(c, "hooks"),
               "test_prepare_apply_writes_the_route_and_no_hooks_for_precreate (%s)", r < 0 ? err.msg : "ok");
        tsync_plan_free(plan);
        tsync_prepared_clear(&p);
        tsync_warnings_clear(&w);
        r = c ? tsync_plan_prepare(c, &o, &p, &w, &err) : 0;
        tap_ok(r < 0 && strstr(err.msg, TSYNC_ANNOTATION_PLAN),
               "test_prepare_precreate_refuses_a_rewritten_config (%s)", err.msg);
        tsync_warnings_clear(&w);
        tsync_json_free(c);
}

/* Our hooks for a config that lends capabilities, per front end: the user's
 * bundle (inject) outlives the start and gets poststop to lend the sets again;
 * the wrapper's config is the engine's, written anew at every start:
 * createRuntime alone, unsynced. Undo (the wrapper's exec believes the config
 * only through it) gives back the original either way. */
static void test_apply_hooks_per_front_end(void)
{
        static const struct {
                enum tsync_frontend fe;
                const char *want;
        } cases[] = {
                { TSYNC_FRONTEND_INJECT, "createRuntime:oci-seccomp-tsync,hook,createRuntime;"
                                         "poststop:oci-seccomp-tsync,hook,poststop;" },
                { TSYNC_FRONTEND_RUNTIME, "createRuntime:oci-seccomp-tsync,hook,createRuntime,--no-sync;" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct tsync_err err = { 0 };
                struct tsync_warnings w = { 0 };
                /* Undo keeps the hooks and annotations objects the rewrite made. */
                const char *extra = "\"linux\": {}, \"hooks\": {}, \"annotations\": {}";
                struct tsync_json *c = config(false, extra), *original = config(false, extra);
                const char *dirs[] = { profiles };
                struct tsync_plan_paths paths = {
                        .profile_dirs = dirs, .n_profile_dirs = 1, .state_root = "/run/x", .bundle = bundle
                };
                struct tsync_request req = { .layers_by_name = true, .n_layers = 1, .layers = { "allow" } };
                req.delivery = TSYNC_DELIVERY_ARGS;
                struct tsync_prepare_opts o = { .fe = cases[i].fe, .req = &req, .paths = &paths };
                struct tsync_rewrite_opts ro = { .init_path = "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init",
                                                 .hook_path = "/usr/bin/oci-seccomp-tsync" };
                struct tsync_prepared p = { 0 };
                int r = c && original ? tsync_plan_prepare(c, &o, &p, &w, &err) : -EINVAL;
                r = r ?: tsync_plan_apply(c, &p, &ro, &err);
                char got[512] = "";
                const struct tsync_json *hooks = r == 0 ? tsync_json_get(c, "hooks") : NULL;
                for (size_t s = 0; hooks && s < hooks->u.object.len; s++) {
                        const struct tsync_json *list = hooks->u.object.values[s];
                        size_t len = strlen(got);
                        (void)snprintf(got + len, sizeof(got) - len, "%s:", hooks->u.object.keys[s]);
                        for (size_t h = 0; list->type == TSYNC_JSON_ARRAY && h < list->u.array.len; h++) {
                                const struct tsync_json *args = tsync_json_get(list->u.array.items[h], "args");
                                for (size_t a = 0; args && a < args->u.array.len; a++) {
                                        len = strlen(got);
                                        (void)snprintf(got + len, sizeof(got) - len, "%s%s", a ? "," : "",
                                                       args->u.array.items[a]->u.string.ptr);
                                }
                        }
                        len = strlen(got);
                        (void)snprintf(got + len, sizeof(got) - len, ";");
                }
                tap_ok(r == 0 && strcmp(got, cases[i].want) == 0, "test_prepare_apply_hooks_of_%s: %s (%s)",
                       tsync_frontend_name(cases[i].fe), got, r < 0 ? err.msg : "applied");
                char *running = NULL;
                char path[256] = "";
                if (r == 0 && cases[i].fe == TSYNC_FRONTEND_INJECT) {
                        /* inject never writes createRuntime without poststop. */
                        struct tsync_json *edited = tsync_json_copy(c);
                        struct tsync_err e2 = { 0 };
                        tsync_json_remove(tsync_json_get_mut(edited, "hooks"), "poststop");
                        int r2 = edited ? tsync_rewrite_undo(edited, false, &running, &e2) : 0;
                        tap_ok(r2 == -EPERM && strstr(e2.msg, "hooks"),
                               "test_prepare_undo_refuses_an_injected_config_without_its_poststop (%s)",
                               r2 < 0 ? e2.msg : "taken");
                        free(running);
                        running = NULL;
                        tsync_json_free(edited);
                }
                r = r ?: tsync_rewrite_undo(c, false, &running, &err);
                tap_ok(r == 0 && !running && tsync_json_equal(c, original, path, sizeof(path)),
                       "test_prepare_undo_of_%s_gives_back_the_original (%s%s)", tsync_frontend_name(cases[i].fe),
                       r < 0 ? err.msg : "differs at ", r < 0 ? "" : path);
                free(running);
                if (p.plan)
                        tsync_prepared_clear(&p);
                tsync_warnings_clear(&w);
                tsync_json_free(c);
                tsync_json_free(original);
        }
}

/* A prepared config for the recording and views tests: nnp, a layer, a
 * recording's output or NULL; 0 with *p filled, or -errno (err). */
static int prepare_one(enum tsync_frontend fe, bool nnp, const char *record, struct tsync_prepared *p,
                       struct tsync_err *err)
{
        struct tsync_warnings w = { 0 };
        struct tsync_json *c = config(nnp, NULL);
        struct tsync_request req = { .layers_by_name = true,
                                     .n_layers = 1,
                                     .layers = { "allow" },
                                     /* An engine's filters go in the init's arguments whatever it asks. */
                                     .delivery = TSYNC_DELIVERY_FILES,
                                     .record = { .output = (char *)record, .errno_ret = EPERM } };
        if (fe == TSYNC_FRONTEND_INJECT)
                req.delivery = TSYNC_DELIVERY_ARGS;
        const char *dirs[] = { profiles };
        struct tsync_plan_paths paths = { .profile_dirs = dirs,
                                          .n_profile_dirs = 1,
                                          .state_root = "/run/oci-seccomp-tsync",
                                          .bundle = fe == TSYNC_FRONTEND_PRECREATE ? NULL : bundle,
                                          .record_root = record_root };
        struct tsync_prepare_opts o = {
                .fe = fe, .req = &req, .paths = &paths, .record_dir = fe == TSYNC_FRONTEND_RUNTIME ? "/tmp/rec" : NULL
        };
        int r = c ? tsync_plan_prepare(c, &o, p, &w, err) : -EINVAL;
        tsync_warnings_clear(&w);
        tsync_json_free(c);
        return r;
}

static bool is_token(const char *s)
{
        return strlen(s) == 32 && strspn(s, "0123456789abcdef") == 32;
}

/* Where a recording leaves the container is prepare's to name: a fresh
 * directory under the record root for an engine's container, the bundle's
 * own for inject; a refused start removes it only when it is this run's. */
static void test_record_dirs(void)
{
        (void)mkdir(record_root, 0700);
        for (int fe = 0; fe < TSYNC_FRONTEND_COUNT; fe++) {
                struct tsync_err err = { 0 };
                struct tsync_prepared p = { 0 };
                const char *out = fe == TSYNC_FRONTEND_RUNTIME ? "/tmp/rec/out.json" : "/tmp/out.json";
                int r = prepare_one(fe, true, out, &p, &err);
                const char *dir = r == 0 ? p.plan->record.dir : NULL;
                char want[512];
                (void)snprintf(want, sizeof(want), "%s/%s", fe == TSYNC_FRONTEND_INJECT ? bundle : record_root,
                               fe == TSYNC_FRONTEND_INJECT ? TSYNC_BUNDLE_RECORD : "");
                bool named = dir && strncmp(dir, want, strlen(want)) == 0 &&
                             (fe == TSYNC_FRONTEND_INJECT ? dir[strlen(want)] == '\0' : is_token(dir + strlen(want)));
                tap_ok(r == 0 && named && p.own_record_dir && p.plan->delivery == TSYNC_DELIVERY_ARGS,
                       "test_prepare_names_the_recording_directory_of_%s (%s)", tsync_frontend_name(fe),
                       r < 0 ? err.msg : dir);
                /* What apply would have made, then a refused write. */
                bool made = r == 0 && mkdir(dir, 0700) == 0;
                if (r == 0)
                        tsync_prepared_abandon(&p);
                tap_ok(made && access(dir, F_OK) != 0, "test_prepare_abandon_removes_the_recording_directory_of_%s",
                       tsync_frontend_name(fe));
                if (r == 0)
                        tsync_prepared_clear(&p);
        }
        /* inject's bundle keeps its directory for the next run: one already there is not inject's to remove. */
        struct tsync_err err = { 0 };
        struct tsync_prepared p = { 0 };
        char dir[512];
        (void)snprintf(dir, sizeof(dir), "%s/%s", bundle, TSYNC_BUNDLE_RECORD);
        int r = mkdir(dir, 0700) < 0 ? -errno : prepare_one(TSYNC_FRONTEND_INJECT, true, "/tmp/out.json", &p, &err);
        if (r == 0)
                tsync_prepared_abandon(&p);
        tap_ok(r == 0 && !p.own_record_dir && access(dir, F_OK) == 0,
               "test_prepare_abandon_keeps_the_recording_directory_inject_found (%s)", r < 0 ? err.msg : "kept");
        if (r == 0)
                tsync_prepared_clear(&p);
        (void)rmdir(dir);
}

/* inject's views (plan/views.h) are decided with the hooks: for the exec
 * view alone, and only for inject. The wrapper's hooks are the program
 * beside it: needed and not found, apply says why they were needed. */
static void test_views_and_missing_hook(void)
{
        static const struct {
                enum tsync_frontend fe;
                bool nnp;
                const char *record;
                bool views;
        } cases[] = {
                { TSYNC_FRONTEND_INJECT, false, NULL, true },
                { TSYNC_FRONTEND_INJECT, true, NULL, false },
                { TSYNC_FRONTEND_INJECT, false, "/tmp/out.json", false },
                { TSYNC_FRONTEND_RUNTIME, false, NULL, false },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct tsync_err err = { 0 };
                struct tsync_prepared p = { 0 };
                int r = prepare_one(cases[i].fe, cases[i].nnp, cases[i].record, &p, &err);
                tap_ok(r == 0 && p.views == cases[i].views, "test_prepare_views_of_%s_%s%s_%s (%s; hooks %#x)",
                       tsync_frontend_name(cases[i].fe), cases[i].nnp ? "nnp" : "lent",
                       cases[i].record ? "_recording" : "", cases[i].views ? "yes" : "no", r < 0 ? err.msg : "taken",
                       r == 0 ? p.hooks : 0);
                if (r == 0)
                        tsync_prepared_clear(&p);
        }
        struct tsync_err err = { 0 };
        struct tsync_prepared p = { 0 };
        struct tsync_json *c = config(false, NULL);
        struct tsync_rewrite_opts ro = { .init_path = "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init" };
        int r = prepare_one(TSYNC_FRONTEND_RUNTIME, false, NULL, &p, &err);
        r = r ?: c ? tsync_plan_apply(c, &p, &ro, &err) : -EINVAL;
        tap_ok(r == -ENOENT && strstr(err.msg, "the init is lent capabilities") &&
                       strstr(err.msg, "and the hook, oci-seccomp-tsync, is not beside oci-seccomp-tsync-runtime"),
               "test_prepare_apply_refuses_the_wrappers_hooks_it_cannot_find (%s)", r < 0 ? err.msg : "applied");
        if (p.plan)
                tsync_prepared_clear(&p);
        tsync_json_free(c);
}

int main(void)
{
        if (setup() < 0) {
                tap_ok(0, "setup: %s", strerror(errno));
                return tap_done();
        }
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
                test_row(&rows[i]);
        test_apply_then_again();
        test_apply_hooks_per_front_end();
        test_record_dirs();
        test_views_and_missing_hook();
        return tap_done();
}
