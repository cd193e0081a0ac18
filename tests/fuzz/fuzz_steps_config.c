/* The config target's steps: a whole config.json through the profile reader,
 * the rewrite of inject/precreate and the plan it leaves (see fuzz_steps.h). */
#include "fuzz_steps.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsync/bpf.h"
#include "tsync/cleanup.h"
#include "tsync/compile.h"
#include "tsync/json.h"
#include "tsync/json_build.h"
#include "tsync/plan.h"
#include "tsync/profile.h"
#include "tsync/rewrite.h"
#include "tsync/source.h"

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

/* process.args after a rewrite: the init, "--filter PATH" once per filter, ... */
static void check_init_args(const struct tsync_json *config, size_t filters)
{
        const struct tsync_json *args = tsync_json_get(tsync_json_get(config, "process"), "args");
        if (!args || args->type != TSYNC_JSON_ARRAY || args->u.array.len < 2 + 2 * filters)
                fuzz_fail("process.args after the rewrite is not the init's command line");
        const struct tsync_json *a0 = args->u.array.items[0];
        if (a0->type != TSYNC_JSON_STRING || strcmp(a0->u.string.ptr, TSYNC_CONTAINER_INIT) != 0)
                fuzz_fail("process.args[0] after the rewrite is not the init");
        for (size_t i = 0; i < filters; i++) {
                const struct tsync_json *o = args->u.array.items[1 + 2 * i], *v = args->u.array.items[2 + 2 * i];
                char want[64];
                (void)snprintf(want, sizeof(want), TSYNC_CONTAINER_FILTERS "/%02zu.bpf", i);
                if (o->type != TSYNC_JSON_STRING || strcmp(o->u.string.ptr, "--filter") != 0 ||
                    v->type != TSYNC_JSON_STRING || strcmp(v->u.string.ptr, want) != 0)
                        fuzz_fail("process.args[%zu] is not --filter %s", 1 + 2 * i, want);
        }
        const struct tsync_json *next = args->u.array.items[1 + 2 * filters];
        if (next->type == TSYNC_JSON_STRING && strcmp(next->u.string.ptr, "--filter") == 0)
                fuzz_fail("process.args has more than %zu filters", filters);
}

/* One way to rewrite: what is asked, where the filters go, the host paths. */
struct rewrite_case {
        struct tsync_request req;
        const char *state_dir;
        struct tsync_rewrite_opts opts;
};

static void check_rewrite(const struct tsync_json *doc, const struct rewrite_case *rc)
{
        const struct tsync_request *o = &rc->req;
        struct tsync_err err = { 0 };
        _cleanup_json_ struct tsync_json *config = tsync_json_copy(doc);
        _cleanup_plan_ struct tsync_plan *plan = NULL;
        if (!config)
                fuzz_fail("tsync_json_copy failed");

        int r = tsync_rewrite(config, o, rc->state_dir, &rc->opts, &err);
        fuzz_check_err(r, &err, "tsync_rewrite");
        if (r < 0)
                return;
        fuzz_stats.rewrites++;

        /* The plan read back says what we asked for. */
        _cleanup_free_ char *text1 = plan_text(config, &plan);
        if (!text1)
                fuzz_fail("a rewritten config has no plan we can read");
        size_t want = (o->mode == TSYNC_MODE_REPLACE ? 1 : 0) + o->n_layers + (o->init.exec_once ? 1 : 0);
        if (plan->mode != o->mode || plan->layers_by_name != o->layers_by_name ||
            strcmp(plan->state_dir, rc->state_dir) != 0 || plan->n_layers != o->n_layers ||
            tsync_plan_filter_count(plan) != want)
                fuzz_fail("the plan read back has %zu filters and %zu layers, not %zu and %zu: %s",
                          tsync_plan_filter_count(plan), plan->n_layers, want, o->n_layers, text1);
        for (size_t i = 0; i < o->n_layers; i++)
                if (strcmp(plan->layers[i], o->layers[i]) != 0)
                        fuzz_fail("layer %zu read back as '%s', not '%s'", i, plan->layers[i], o->layers[i]);
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

        /* A second rewrite restores first, so it does not wrap twice: the same plan, the same command line. */
        r = tsync_rewrite(reread, o, rc->state_dir, &rc->opts, &err);
        fuzz_check_err(r, &err, "tsync_rewrite (again)");
        if (r < 0)
                fuzz_fail("rewriting a rewritten config fails: %s", err.msg);
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

        /* precreate: layers by name, layer mode; inject: paths, replace mode, with hooks. */
        const char *hook_args[] = { "--cache-dir", "/var/cache/oci-seccomp-tsync" };
        const struct rewrite_case modes[] = {
                { .req = { .layers_by_name = true, .layers = { "deny-ptrace", "custom_1.v2" }, .n_layers = 2 },
                  .state_dir = "/run/oci-seccomp-tsync/0123456789abcdef",
                  .opts = { .init_path = "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init" } },
                { .req = { .mode = TSYNC_MODE_REPLACE,
                           .layers = { "/etc/oci-seccomp-tsync/extra.json" },
                           .n_layers = 1 },
                  .state_dir = "/bundle/oci-seccomp-tsync",
                  .opts = { .init_path = "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init",
                            .hook_path = "/usr/bin/oci-seccomp-tsync",
                            .hook_args = hook_args,
                            .n_hook_args = 2 } },
        };
        for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
                check_rewrite(doc, &modes[i]);
}

const struct fuzz_target fuzz_targets[] = {
        { "fuzz_json", fuzz_json },
        { "fuzz_profile_oci", fuzz_profile_oci },
        { "fuzz_profile_docker", fuzz_profile_docker },
        { "fuzz_config", fuzz_config },
        { "fuzz_state", fuzz_state },
        { "fuzz_filterfile", fuzz_filterfile },
        { "fuzz_record", fuzz_record },
};
const size_t fuzz_n_targets = sizeof(fuzz_targets) / sizeof(fuzz_targets[0]);
