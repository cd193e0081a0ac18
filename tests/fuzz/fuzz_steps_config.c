/* The config target's steps: a whole config.json through the profile reader,
 * the front ends' path (tsync_plan_prepare, tsync_plan_apply) and the plan it
 * leaves (see fuzz_steps.h). */
#include "fuzz_steps.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontend/prepare.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/bpf.h"
#include "shared/cleanup.h"
#include "translate/compile.h"
#include "translate/profile.h"
#include "translate/source.h"
#include "util/json.h"
#include "util/json_build.h"

static char *text_of(const struct tsync_json *v)
{
        struct tsync_err err = { 0 };
        char *text = NULL;
        size_t len;
        if (!v)
                return strdup("(none)");
        if (tsync_json_write(v, false, &text, &len, &err) < 0)
                fuzz_fail("tsync_json_write: %s", err.msg);
        return text;
}

/* The plan as its annotation text; NULL when there is none. */
static char *plan_text(const struct tsync_json *config, struct tsync_plan **ret_plan)
{
        struct tsync_err err = { 0 };
        struct tsync_plan *plan = NULL;
        int r = tsync_plan_from_config(config, &plan, &err);
        fuzz_check_err(r, &err, "tsync_plan_from_config");
        if (r < 0)
                return NULL;
        char *text = NULL;
        r = tsync_plan_to_json(plan, &text, &err);
        fuzz_check_err(r, &err, "tsync_plan_to_json");
        if (r < 0)
                fuzz_fail("tsync_plan_to_json refused a plan tsync_plan_from_config read: %s", err.msg);
        if (ret_plan)
                *ret_plan = plan;
        else
                tsync_plan_free(plan);
        return text;
}

static bool arg_is(const struct tsync_json *args, size_t i, const char *want)
{
        const struct tsync_json *a = i < args->u.array.len ? args->u.array.items[i] : NULL;
        return a && a->type == TSYNC_JSON_STRING && strcmp(a->u.string.ptr, want) == 0;
}

/* process.args after a rewrite: the init, --exec (the route in place) and
 * --exec-once ERRNO when the plan has them (the init-args table's order),
 * then "--filter PATH" once per filter, ... */
static void check_init_args(const struct tsync_json *config, size_t filters)
{
        const struct tsync_json *args = tsync_json_get(tsync_json_get(config, "process"), "args");
        if (!args || args->type != TSYNC_JSON_ARRAY || args->u.array.len < 2 + 2 * filters)
                fuzz_fail("process.args after the rewrite is not the init's command line");
        if (!arg_is(args, 0, TSYNC_CONTAINER_INIT))
                fuzz_fail("process.args[0] after the rewrite is not the init");
        size_t at = 1;
        if (arg_is(args, at, "--exec"))
                at++;
        if (arg_is(args, at, "--exec-once"))
                at += 2;
        if (args->u.array.len < at + 1 + 2 * filters)
                fuzz_fail("process.args after the rewrite is too short for %zu filters", filters);
        for (size_t i = 0; i < filters; i++) {
                const struct tsync_json *o = args->u.array.items[at + 2 * i], *v = args->u.array.items[at + 1 + 2 * i];
                char want[64];
                (void)snprintf(want, sizeof(want), TSYNC_CONTAINER_FILTERS "/%02zu.bpf", i);
                if (o->type != TSYNC_JSON_STRING || strcmp(o->u.string.ptr, "--filter") != 0 ||
                    v->type != TSYNC_JSON_STRING || strcmp(v->u.string.ptr, want) != 0)
                        fuzz_fail("process.args[%zu] is not --filter %s", at + 2 * i, want);
        }
        const struct tsync_json *next = args->u.array.items[at + 2 * filters];
        if (next->type == TSYNC_JSON_STRING && strcmp(next->u.string.ptr, "--filter") == 0)
                fuzz_fail("process.args has more than %zu filters", filters);
}

/* What the front ends' path reads on the host: a profile directory with one
 * layer, and a bundle with inject's state directory (tsync_plan_check_state_dir
 * looks at it). Made for each input and removed after it: the regression test
 * runs each input in a child that never reaches atexit. */
static char host_dir[64];
static char host_profiles[128], host_layer[192], host_bundle[128], host_state[192];

static void host_remove(void)
{
        if (!host_dir[0])
                return;
        (void)unlink(host_layer);
        (void)rmdir(host_profiles);
        (void)rmdir(host_state);
        (void)rmdir(host_bundle);
        (void)rmdir(host_dir);
        host_dir[0] = '\0';
}

static void host_setup(void)
{
        static const char layer[] = "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"ptrace\"], "
                                    "\"action\": \"SCMP_ACT_ERRNO\"}]}";
        (void)snprintf(host_dir, sizeof(host_dir), "/tmp/fuzz_config.XXXXXX");
        if (!mkdtemp(host_dir))
                fuzz_fail("mkdtemp: %s", strerror(errno));
        (void)snprintf(host_profiles, sizeof(host_profiles), "%s/profiles", host_dir);
        (void)snprintf(host_layer, sizeof(host_layer), "%s/deny-ptrace.json", host_profiles);
        (void)snprintf(host_bundle, sizeof(host_bundle), "%s/bundle", host_dir);
        (void)snprintf(host_state, sizeof(host_state), "%s/" TSYNC_BUNDLE_STATE, host_bundle);
        FILE *f = NULL;
        if (mkdir(host_profiles, 0700) < 0 || mkdir(host_bundle, 0700) < 0 || mkdir(host_state, 0755) < 0 ||
            !(f = fopen(host_layer, "we")) || fputs(layer, f) < 0 || fclose(f) != 0)
                fuzz_fail("setting up %s: %s", host_dir, strerror(errno));
}

/* One front end's way to rewrite: what is asked, where the filters go, the host paths. */
struct rewrite_case {
        enum tsync_frontend fe;
        struct tsync_request req;
        bool state_dir; /* inject's filter files in the bundle */
        struct tsync_rewrite_opts opts;
};

/* tsync_plan_prepare, then tsync_plan_apply: what every front end runs. */
static int prepare_apply(struct tsync_json *config, const struct rewrite_case *rc, bool *ret_in_place,
                         struct tsync_err *err)
{
        static const char *const dirs[] = { host_profiles };
        struct tsync_plan_paths paths = { .profile_dirs = dirs,
                                          .n_profile_dirs = 1,
                                          .state_root = "/run/oci-seccomp-tsync",
                                          .bundle = rc->fe == TSYNC_FRONTEND_PRECREATE ? NULL : host_bundle,
                                          .record_root = host_dir };
        struct tsync_prepare_opts po = {
                .fe = rc->fe, .req = &rc->req, .state_dir = rc->state_dir ? host_state : NULL, .paths = &paths
        };
        struct tsync_warnings w = { 0 };
        struct tsync_prepared p = { 0 };
        int r = tsync_plan_prepare(config, &po, &p, &w, err);
        fuzz_check_err(r, err, "tsync_plan_prepare");
        for (size_t i = 0; i < w.len; i++)
                if (!w.msgs[i] || !w.msgs[i][0])
                        fuzz_fail("tsync_plan_prepare gave an empty warning");
        tsync_warnings_clear(&w);
        if (r < 0)
                return r;
        if (p.in_place != p.plan->init.exec && !rc->req.init.exec)
                fuzz_fail("the route says %s, the plan's init.exec %d", p.in_place ? "in place" : "supervise",
                          p.plan->init.exec);
        if (((p.hooks & TSYNC_HOOK_FILES) != 0) != rc->state_dir)
                fuzz_fail("filter files and the hooks they need disagree (hooks %#x)", p.hooks);
        *ret_in_place = p.in_place;
        r = tsync_plan_apply(config, &p, &rc->opts, err);
        fuzz_check_err(r, err, "tsync_plan_apply");
        tsync_prepared_clear(&p);
        return r;
}

/* Whether any hook of doc names our program first, as our own hooks do: an
 * engine's config may carry one (Podman's hooks.d), and undo takes each for
 * ours. */
static bool has_hook_like_ours(const struct tsync_json *doc)
{
        const struct tsync_json *hooks = tsync_json_get(doc, "hooks");
        for (size_t s = 0; hooks && hooks->type == TSYNC_JSON_OBJECT && s < hooks->u.object.len; s++) {
                const struct tsync_json *list = hooks->u.object.values[s];
                for (size_t i = 0; list->type == TSYNC_JSON_ARRAY && i < list->u.array.len; i++) {
                        const struct tsync_json *args = tsync_json_get(list->u.array.items[i], "args");
                        const struct tsync_json *first = args && args->type == TSYNC_JSON_ARRAY && args->u.array.len
                                                                 ? args->u.array.items[0]
                                                                 : NULL;
                        if (first && first->type == TSYNC_JSON_STRING &&
                            strcmp(first->u.string.ptr, "oci-seccomp-tsync") == 0)
                                return true;
                }
        }
        return false;
}

static void check_rewrite(const struct tsync_json *doc, const struct rewrite_case *rc)
{
        const struct tsync_request *o = &rc->req;
        struct tsync_err err = { 0 };
        _cleanup_json_ struct tsync_json *config = tsync_json_copy(doc);
        _cleanup_plan_ struct tsync_plan *plan = NULL;
        if (!config)
                fuzz_fail("tsync_json_copy failed");

        bool in_place = false;
        int r = prepare_apply(config, rc, &in_place, &err);
        if (r < 0)
                return;
        fuzz_stats.rewrites++;

        /* The plan read back says what we asked for, and what the route decided. */
        _cleanup_free_ char *text1 = plan_text(config, &plan);
        if (!text1)
                fuzz_fail("a rewritten config has no plan we can read");
        size_t want = (o->mode == TSYNC_MODE_REPLACE ? 1 : 0) + o->n_layers + (o->init.exec_once ? 1 : 0);
        if (plan->mode != o->mode || plan->layers_by_name != o->layers_by_name ||
            (plan->state_dir != NULL) != rc->state_dir || plan->n_layers != o->n_layers ||
            tsync_plan_filter_count(plan) != want || plan->init.exec != (o->init.exec || in_place))
                fuzz_fail("the plan read back has %zu filters and %zu layers, not %zu and %zu: %s",
                          tsync_plan_filter_count(plan), plan->n_layers, want, o->n_layers, text1);
        for (size_t i = 0; i < o->n_layers; i++)
                if (strcmp(plan->layers[i], o->layers[i]) != 0)
                        fuzz_fail("layer %zu read back as '%s', not '%s'", i, plan->layers[i], o->layers[i]);
        if (rc->state_dir)
                check_init_args(config, want);

        /* The config as written to disk and read again holds the same plan. */
        _cleanup_free_ char *written = text_of(config);
        _cleanup_json_ struct tsync_json *reread = NULL;
        r = tsync_json_parse(written, strlen(written), NULL, &reread, &err);
        if (r < 0)
                fuzz_fail("a rewritten config does not parse: %s", err.msg);
        _cleanup_free_ char *text2 = plan_text(reread, NULL);
        if (!text2 || strcmp(text1, text2) != 0)
                fuzz_fail("the plan changed on the way through the file:\n%s\n%s", text1, text2 ? text2 : "(none)");

        /* An engine's config carrying our plan is forged: refused. But the
         * wrapper's exec believes the config it wrote (tsync_rewrite_exec),
         * through undo, with the one createRuntime hook it wrote (a hook
         * like ours already there is a forgery undo refuses). */
        if (rc->fe != TSYNC_FRONTEND_INJECT) {
                if (rc->fe == TSYNC_FRONTEND_RUNTIME && !has_hook_like_ours(doc)) {
                        _cleanup_json_ struct tsync_json *copy = tsync_json_copy(reread);
                        _cleanup_free_ char *running = NULL;
                        if (!copy || tsync_rewrite_undo(copy, false, &running, &err) < 0)
                                fuzz_fail("the wrapper's own config is not one undo believes: %s",
                                          copy ? err.msg : "out of memory");
                }
                r = prepare_apply(reread, rc, &in_place, &err);
                if (r == 0)
                        fuzz_fail("%s took a config that carries our plan", tsync_frontend_name(rc->fe));
                return;
        }
        /* inject again restores first, so it does not wrap twice: the same plan, the same command line. */
        r = prepare_apply(reread, rc, &in_place, &err);
        if (r < 0)
                fuzz_fail("injecting into an injected config fails: %s", err.msg);
        _cleanup_free_ char *text3 = plan_text(reread, NULL);
        _cleanup_free_ char *args1 = text_of(tsync_json_get(tsync_json_get(config, "process"), "args"));
        _cleanup_free_ char *args3 = text_of(tsync_json_get(tsync_json_get(reread, "process"), "args"));
        if (!text3 || strcmp(text1, text3) != 0 || strcmp(args1, args3) != 0)
                fuzz_fail("a second rewrite wraps again:\n%s\n%s\n%s\n%s", text1, text3 ? text3 : "(none)", args1,
                          args3);
}

static void check_profile_of_config(const struct tsync_json *doc)
{
        struct tsync_err err = { 0 };
        struct tsync_source_opts opts = { .format = TSYNC_FORMAT_AUTO,
                                          .have_caps = true,
                                          .caps = (1ull << 0) | (1ull << 5) | (1ull << 21),
                                          .native_arch = SCMP_ARCH_X86_64 };
        struct tsync_source_info info;
        _cleanup_profile_ struct tsync_profile *p = NULL;
        int r = tsync_source_from_json(doc, &opts, &p, &info, &err);
        fuzz_check_err(r, &err, "tsync_source_from_json");
        if (r < 0)
                return;
        if (info.format == TSYNC_FORMAT_AUTO)
                fuzz_fail("tsync_source_from_json did not say which format it found");
        fuzz_stats.profiles++;
        struct tsync_compile_opts co = { .native_arch = SCMP_ARCH_X86_64 };
        struct tsync_warnings w = { 0 };
        _cleanup_program_ struct tsync_program *prog = NULL;
        r = tsync_compile(p, &co, &prog, &w, &err);
        tsync_warnings_clear(&w);
        fuzz_check_err(r, &err, "tsync_compile");
        if (r < 0)
                return;
        r = tsync_bpf_validate(prog->insns, prog->len, &err);
        if (r < 0)
                fuzz_fail("a compiled program fails tsync_bpf_validate: %s", err.msg);
        fuzz_stats.programs++;
}

void fuzz_config(const uint8_t *data, size_t size)
{
        _cleanup_json_ struct tsync_json *doc = fuzz_parse_input(data, size);
        if (!doc)
                return;
        check_profile_of_config(doc);

        /* A plan already in the input (a config rewritten before, or a forged one) round-trips. */
        _cleanup_plan_ struct tsync_plan *plan = NULL;
        _cleanup_free_ char *text = plan_text(doc, &plan);
        if (text) {
                _cleanup_json_ struct tsync_json *holder = tsync_json_new_object();
                struct tsync_json *ann = holder ? tsync_json_get_object(holder, "annotations") : NULL;
                if (!ann || tsync_json_set(ann, TSYNC_ANNOTATION_PLAN, tsync_json_new_string(text)) < 0)
                        fuzz_fail("out of memory");
                _cleanup_free_ char *again = plan_text(holder, NULL);
                if (!again || strcmp(again, text) != 0)
                        fuzz_fail("a plan does not survive its own JSON:\n%s\n%s", text, again ? again : "(none)");
        }

        /* What the front ends run (tsync_plan_prepare, tsync_plan_apply):
         * precreate and the wrapper with a layer by name, alone or with exec
         * once, the filters in the init's arguments; inject with a layer by
         * path, replace mode, filter files and hooks. */
        host_setup();
        const char *hook_args[] = { "--cache-dir", "/var/cache/oci-seccomp-tsync" };
        const char *init = "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init";
        const struct rewrite_case modes[] = {
                { .fe = TSYNC_FRONTEND_PRECREATE,
                  .req = { .layers_by_name = true,
                           .layers = { "deny-ptrace" },
                           .n_layers = 1,
                           .delivery = TSYNC_DELIVERY_ARGS },
                  .opts = { .init_path = init } },
                { .fe = TSYNC_FRONTEND_RUNTIME,
                  .req = { .init = { .exec_once = EPERM }, .delivery = TSYNC_DELIVERY_ARGS },
                  .opts = { .init_path = init, .hook_path = "/usr/bin/oci-seccomp-tsync" } },
                { .fe = TSYNC_FRONTEND_INJECT,
                  .req = { .mode = TSYNC_MODE_REPLACE, .layers = { host_layer }, .n_layers = 1 },
                  .state_dir = true,
                  .opts = { .init_path = init,
                            .hook_path = "/usr/bin/oci-seccomp-tsync",
                            .hook_args = hook_args,
                            .n_hook_args = 2 } },
        };
        for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
                check_rewrite(doc, &modes[i]);
        host_remove();
}

const struct fuzz_target fuzz_targets[] = {
        { "fuzz_json", fuzz_json },
        { "fuzz_profile_oci", fuzz_profile_oci },
        { "fuzz_profile_docker", fuzz_profile_docker },
        { "fuzz_config", fuzz_config },
        { "fuzz_state", fuzz_state },
        { "fuzz_filterfile", fuzz_filterfile },
        { "fuzz_record", fuzz_record },
        { "fuzz_exec_view", fuzz_exec_view },
};
const size_t fuzz_n_targets = sizeof(fuzz_targets) / sizeof(fuzz_targets[0]);
