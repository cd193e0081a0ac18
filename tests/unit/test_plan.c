/* The plan module (hook/plan/plan.c, plan_filters.c) and delivery
 * (deliver.c): what the annotations ask, the plan's round trip through its
 * annotation, which filter is which, where filters may go, and what the
 * filter files hold. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/deliver.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/bpf.h"
#include "shared/filterfile.h"
#include "tap.h"
#include "translate/cache.h"
#include "unit.h"
#include "util/json_build.h"

/* The temporary directory the tests share, removed at exit. */
static char tmp[] = "/tmp/test_plan.XXXXXX";

static const char *const deny_getpid =
        "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"getpid\"], \"action\": "
        "\"SCMP_ACT_ERRNO\"}]}";

static struct tsync_json *config_with_annotations(const char *annotations)
{
        char buf[1024];
        (void)snprintf(buf, sizeof(buf),
                       "{\"process\": {\"args\": [\"sh\", \"-c\", \":\"], \"noNewPrivileges\": true, "
                       "\"capabilities\": {\"bounding\": [\"CAP_KILL\"]}}, \"linux\": {\"seccomp\": %s}, "
                       "\"annotations\": %s}",
                       deny_getpid, annotations);
        return unit_parse(buf);
}

/* The config's plan annotation set to text, and the plan read back from it. */
static int annotate_and_read(struct tsync_json *c, const char *text, struct tsync_plan **ret, struct tsync_err *err)
{
        int r = unit_annotate_plan(c, text);
        return r ?: tsync_plan_from_config(c, ret, err);
}

/* The plan text with its first FROM replaced by TO is refused, naming WANT. */
static void refused_after_edit(struct tsync_json *c, const char *text, const char *from, const char *to,
                               const char *want, const char *name)
{
        struct tsync_err err = { 0 };
        struct tsync_plan *back = NULL;
        const char *at = text ? strstr(text, from) : NULL;
        char edited[4096] = "";
        if (at)
                (void)snprintf(edited, sizeof(edited), "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
        int r = at ? annotate_and_read(c, edited, &back, &err) : -1;
        tap_ok(r < 0 && strstr(err.msg, want), "test_plan_refuses_%s (%s)", name, at ? err.msg : "nothing to edit");
        tsync_plan_free(back);
}

static void test_request(void)
{
        struct tsync_err err = { 0 };
        struct tsync_request req;
        struct tsync_json *c = config_with_annotations(
                "{\"io.oci-seccomp-tsync.layers\": \"a,b c;d:e\", \"io.oci-seccomp-tsync.mode\": \"replace\"}");
        int r = tsync_request_from_annotations(c, TSYNC_FRONTEND_PRECREATE, &req, &err);
        tap_ok(r == 0 && req.n_layers == 5 && strcmp(req.layers[0], "a") == 0 && strcmp(req.layers[4], "e") == 0 &&
                       req.mode == TSYNC_MODE_REPLACE && req.layers_by_name && !req.init.exec,
               "test_request_splits_layer_names_at_commas_blanks_semicolons_and_colons (%s)", err.msg);
        tsync_request_clear(&req);
        tsync_json_free(c);

        c = config_with_annotations("{}");
        r = tsync_request_from_annotations(c, TSYNC_FRONTEND_PRECREATE, &req, &err);
        tap_ok(r == 0 && req.n_layers == 0 && req.mode == TSYNC_MODE_LAYER,
               "test_request_without_annotations_asks_for_nothing_in_layer_mode");
        tsync_request_clear(&req);
        tsync_json_free(c);

        static const struct {
                const char *annotations, *want, *name;
        } bad[] = {
                { "{\"io.oci-seccomp-tsync.mode\": \"stack\"}",
                  "annotations.io.oci-seccomp-tsync.mode: 'stack' is not layer or replace", "an_unknown_mode" },
                { "{\"io.oci-seccomp-tsync.mode\": 1}", "annotations.io.oci-seccomp-tsync.mode",
                  "a_mode_not_a_string" },
                { "{\"io.oci-seccomp-tsync.layers\": \"../etc/x\"}", "'../etc/x' is not a profile name", "a_path" },
                { "{\"io.oci-seccomp-tsync.layers\": \".hidden\"}", "'.hidden' is not a profile name", "a_dot_name" },
                { "{\"io.oci-seccomp-tsync.layers\": \"a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q\"}", "at most 16 layers",
                  "seventeen_layers" },
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                c = config_with_annotations(bad[i].annotations);
                err.msg[0] = '\0';
                r = tsync_request_from_annotations(c, TSYNC_FRONTEND_PRECREATE, &req, &err);
                tap_ok(r < 0 && strstr(err.msg, bad[i].want) && req.n_layers == 0 && !req.names,
                       "test_request_refuses_%s (%s)", bad[i].name, err.msg);
                tsync_json_free(c);
        }
}

/* Everything a plan holds survives its annotation, field by field. */
static void test_round_trip(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = config_with_annotations("{\"run.oci.seccomp_fail_unknown_syscall\": \"1\"}");
        struct tsync_request req = { .mode = TSYNC_MODE_REPLACE,
                                     .layers_by_name = true,
                                     .layers = { "deny-ptrace", "x.v2" },
                                     .n_layers = 2,
                                     .init = { .exec = true, .warn_replace = true } };
        struct tsync_plan *plan = NULL, *back = NULL;
        char *text = NULL;
        int r = tsync_plan_new(c, &req, "/run/oci-seccomp-tsync/00112233445566778899aabbccddeeff", &plan, &err);
        r = r ?: tsync_plan_to_json(plan, &text, &err);
        r = r ?: annotate_and_read(c, text, &back, &err);
        tap_ok(r == 0 && back->mode == plan->mode && back->layers_by_name && back->init.exec &&
                       back->init.warn_replace && strcmp(back->state_dir, plan->state_dir) == 0 &&
                       back->n_layers == 2 && strcmp(back->layers[1], "x.v2") == 0 &&
                       tsync_json_equal(back->args, plan->args, NULL, 0) &&
                       tsync_json_equal(back->capabilities, plan->capabilities, NULL, 0) && back->no_new_privileges &&
                       tsync_json_equal(back->seccomp, plan->seccomp, NULL, 0) && back->fail_unknown_syscall,
               "test_plan_survives_its_annotation_field_by_field (%s)", err.msg);
        tap_ok(r == 0 && tsync_plan_filter_count(back) == 3, "test_plan_in_replace_mode_has_the_moved_section_first");
        char label[64] = "";
        if (r == 0)
                tsync_plan_filter_label(back, 0, label, sizeof(label));
        tap_ok(strcmp(label, "linux.seccomp") == 0, "test_plan_names_filter_0_linux_seccomp (%s)", label);
        if (r == 0)
                tsync_plan_filter_label(back, 2, label, sizeof(label));
        tap_ok(strcmp(label, "layer 'x.v2'") == 0, "test_plan_names_filter_2_after_its_layer (%s)", label);
        tsync_plan_free(back);
        back = NULL;

        /* A plan written without "exec" (before the init's options were recorded) reads as false. */
        struct tsync_json *doc = NULL;
        if (r == 0 && tsync_json_parse(text, strlen(text), NULL, &doc, &err) == 0) {
                tsync_json_remove(doc, "exec");
                char *again = NULL;
                size_t len;
                r = tsync_json_write(doc, false, &again, &len, &err);
                r = r ?: annotate_and_read(c, again, &back, &err);
                tap_ok(r == 0 && !back->init.exec, "test_plan_without_exec_reads_as_false (%s)", err.msg);
                free(again);
                tsync_plan_free(back);
                back = NULL;
        } else {
                tap_ok(0, "test_plan_without_exec_reads_as_false: %s", err.msg);
        }
        tsync_json_free(doc);

        static const struct {
                const char *from, *to, *want, *name;
        } bad[] = {
                { "\"version\":1", "\"version\":2", "plan.version: 2, this is version 1", "another_version" },
                { "\"mode\":\"replace\"", "\"mode\":\"both\"", "plan.mode: 'both' is not layer or replace",
                  "an_unknown_mode" },
                { "\"exec\":true", "\"exec\":\"yes\"", "plan.exec", "an_exec_not_a_bool" },
                { "\"layers\":[", "\"layers\":3,\"x\":[", "plan.layers", "layers_not_an_array" },
                { "\"warnReplace\":true", "\"warnReplace\":1", "plan.warnReplace", "a_warn_replace_not_a_bool" },
                { "\"mode\":\"replace\"", "\"mode\":\"layer\"", "plan.warnReplace: set in layer mode",
                  "a_warn_replace_in_layer_mode" },
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                refused_after_edit(c, text, bad[i].from, bad[i].to, bad[i].want, bad[i].name);
        tsync_json_remove(tsync_json_get_mut(c, "annotations"), TSYNC_ANNOTATION_PLAN);
        err.msg[0] = '\0';
        r = tsync_plan_from_config(c, &back, &err);
        tap_ok(r == -ENOENT && strstr(err.msg, "no " TSYNC_ANNOTATION_PLAN),
               "test_plan_from_a_config_without_one_is_enoent (%s)", err.msg);
        free(text);
        tsync_plan_free(plan);
        tsync_json_free(c);
}

/* Filters in the init's arguments: the plan names no state directory, says
 * so, and reads back the same; a plan that mixes the two is refused. */
static void test_args_delivery(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = config_with_annotations("{}");
        struct tsync_request req = { .layers = { "/a.json" }, .n_layers = 1, .delivery = TSYNC_DELIVERY_ARGS };
        struct tsync_plan *plan = NULL, *back = NULL;
        char *text = NULL;
        int r = tsync_plan_new(c, &req, NULL, &plan, &err);
        r = r ?: tsync_plan_to_json(plan, &text, &err);
        r = r ?: annotate_and_read(c, text, &back, &err);
        tap_ok(r == 0 && back->delivery == TSYNC_DELIVERY_ARGS && !back->state_dir &&
                       strstr(text, "\"delivery\":\"args\"") && !strstr(text, "stateDir"),
               "test_plan_with_filters_in_arguments_has_no_state_directory (%s)", err.msg);
        tsync_plan_free(back);
        back = NULL;
        struct tsync_plan_paths paths = { .state_root = "/run/oci-seccomp-tsync" };
        tap_ok(r == 0 && tsync_plan_check_state_dir(plan, &paths, &err) == 0,
               "test_plan_with_filters_in_arguments_has_no_directory_to_check (%s)", err.msg);
        static const struct {
                const char *from, *to, *want, *name;
        } bad[] = {
                { "\"delivery\":\"args\"", "\"delivery\":\"args\",\"stateDir\":\"/tmp\"",
                  "plan.stateDir: set, but the filters travel in the init's arguments", "a_state_dir_with_args" },
                { "\"delivery\":\"args\"", "\"delivery\":\"mail\"", "plan.delivery: 'mail' is not args or files",
                  "an_unknown_delivery" },
                { "\"delivery\":\"args\",", "", "plan.stateDir", "files_without_a_state_dir" },
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                refused_after_edit(c, text, bad[i].from, bad[i].to, bad[i].want, bad[i].name);
        struct tsync_request files = { .layers = { "/a.json" }, .n_layers = 1 };
        struct tsync_plan *none = NULL;
        err.msg[0] = '\0';
        r = tsync_plan_new(c, &files, NULL, &none, &err);
        tap_ok(r < 0 && !none, "test_plan_with_filter_files_needs_a_state_directory (%s)", err.msg);
        free(text);
        tsync_plan_free(plan);
        tsync_json_free(c);
}

static void test_plan_new_refusals(void)
{
        static const struct {
                const char *config, *want, *name;
                enum tsync_mode mode;
                size_t n_layers;
        } cases[] = {
                { "{\"process\": {\"args\": []}}", "process.args: empty", "empty_args", TSYNC_MODE_LAYER, 1 },
                { "{\"process\": {\"args\": [\"sh\", 1]}}", "process.args[1]", "a_number_in_args", TSYNC_MODE_LAYER,
                  1 },
                { "{\"process\": {\"args\": [\"sh\"], \"capabilities\": []}}", "process.capabilities",
                  "capabilities_not_an_object", TSYNC_MODE_LAYER, 1 },
                { "{\"process\": {\"args\": [\"sh\"], \"noNewPrivileges\": \"yes\"}}", "process.noNewPrivileges",
                  "a_string_for_noNewPrivileges", TSYNC_MODE_LAYER, 1 },
                { "{\"process\": {\"args\": [\"sh\"]}}", "replace mode: linux.seccomp: missing",
                  "replace_mode_without_a_profile", TSYNC_MODE_REPLACE, 0 },
                { "{\"process\": {\"args\": [\"sh\"]}}", "nothing for the init to apply", "nothing_to_apply",
                  TSYNC_MODE_LAYER, 0 },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct tsync_err err = { 0 };
                struct tsync_json *c = unit_parse(cases[i].config);
                struct tsync_request req = { .mode = cases[i].mode,
                                             .layers = { "/a.json" },
                                             .n_layers = cases[i].n_layers };
                struct tsync_plan *plan = NULL;
                int r = tsync_plan_new(c, &req, "/bundle/oci-seccomp-tsync", &plan, &err);
                tap_ok(r < 0 && !plan && strstr(err.msg, cases[i].want), "test_plan_new_refuses_%s (%s)", cases[i].name,
                       err.msg);
                tsync_plan_free(plan);
                tsync_json_free(c);
        }
}

static int write_file(const char *dir, const char *name, const char *text)
{
        char path[4400];
        (void)snprintf(path, sizeof(path), "%s/%s", dir, name);
        return unit_write_file(path, text);
}

/* Filters loaded from profile directories, compiled, delivered and cleaned. */
static void test_filters_and_delivery(void)
{
        char profiles[4200], state_root[4200], bundle[4200], state_dir[4300];
        (void)snprintf(profiles, sizeof(profiles), "%s/profiles", tmp);
        (void)snprintf(state_root, sizeof(state_root), "%s/run", tmp);
        (void)snprintf(bundle, sizeof(bundle), "%s/bundle", tmp);
        (void)snprintf(state_dir, sizeof(state_dir), "%s/run/00112233445566778899aabbccddeeff", tmp);
        if (mkdir(profiles, 0755) < 0 || mkdir(state_root, 0700) < 0 || mkdir(bundle, 0755) < 0 ||
            mkdir(state_dir, 0755) < 0 || write_file(profiles, "deny-getpid.json", deny_getpid) < 0 ||
            write_file(profiles, "notify.json",
                       "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/run/agent.sock\", "
                       "\"syscalls\": [{\"names\": [\"mount\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}") < 0) {
                tap_ok(0, "test setup: %s", strerror(errno));
                return;
        }
        char link[4300];
        (void)snprintf(link, sizeof(link), "%s/linked.json", profiles);
        if (symlink("deny-getpid.json", link) < 0) {
                tap_ok(0, "symlink: %s", strerror(errno));
                return;
        }
        const char *dirs[] = { profiles };
        struct tsync_plan_paths paths = {
                .profile_dirs = dirs, .n_profile_dirs = 1, .state_root = state_root, .bundle = bundle
        };
        struct tsync_err err = { 0 };
        struct tsync_json *c = config_with_annotations("{}");
        struct tsync_request req = { .layers_by_name = true, .layers = { "deny-getpid" }, .n_layers = 1 };
        struct tsync_plan *plan = NULL;
        struct tsync_plan_programs progs = { 0 };
        struct tsync_warnings w = { 0 };
        int r = tsync_plan_new(c, &req, state_dir, &plan, &err);
        r = r ?: tsync_plan_compile(plan, &paths, c, &progs, &w, &err);
        tap_ok(r == 0 && progs.n == 2 && progs.n_baseline == 1,
               "test_compile_in_layer_mode_puts_the_runtimes_own_profile_first (%s)", err.msg);
        enum tsync_state_dir_kind kind = TSYNC_STATE_DIR_BUNDLE;
        r = r ?: tsync_plan_state_dir_kind(plan, &paths, &kind, &err);
        tap_ok(r == 0 && kind == TSYNC_STATE_DIR_PRECREATE, "test_a_token_in_the_state_root_is_precreates (%s)",
               err.msg);
        r = r ?: tsync_deliver(plan, &paths, &progs, &err);
        char file[4400];
        (void)snprintf(file, sizeof(file), "%s/00.bpf", state_dir);
        struct stat st;
        bool written = r == 0 && stat(file, &st) == 0 && (st.st_mode & 07777) == 0444;
        (void)snprintf(file, sizeof(file), "%s/01.bpf", state_dir);
        tap_ok(written && stat(file, &st) < 0,
               "test_deliver_writes_one_read_only_file_per_filter_not_the_baseline (%s)", err.msg);
        r = r ?: tsync_deliver_clean(plan, &paths, &err);
        tap_ok(r == 0 && stat(state_dir, &st) < 0 && errno == ENOENT,
               "test_clean_removes_precreates_directory_with_its_files (%s)", err.msg);
        tsync_plan_programs_clear(&progs);
        tsync_plan_free(plan);
        plan = NULL;

        /* The bundle's directory stays for the next run. */
        char bundle_state[4300];
        (void)snprintf(bundle_state, sizeof(bundle_state), "%s/%s", bundle, TSYNC_BUNDLE_STATE);
        r = mkdir(bundle_state, 0755) < 0 ? -errno : 0;
        r = r ?: tsync_plan_new(c, &req, bundle_state, &plan, &err);
        r = r ?: tsync_plan_compile(plan, &paths, NULL, &progs, &w, &err);
        tap_ok(r == 0 && progs.n == 1 && progs.n_baseline == 0, "test_compile_without_a_config_has_no_baseline (%s)",
               err.msg);
        r = r ?: tsync_plan_state_dir_kind(plan, &paths, &kind, &err);
        tap_ok(r == 0 && kind == TSYNC_STATE_DIR_BUNDLE, "test_the_bundles_directory_is_injects (%s)", err.msg);
        r = r ?: tsync_deliver(plan, &paths, &progs, &err);
        r = r ?: tsync_deliver_clean(plan, &paths, &err);
        tap_ok(r == 0 && stat(bundle_state, &st) == 0, "test_clean_keeps_the_bundles_directory (%s)", err.msg);
        tsync_plan_programs_clear(&progs);
        tsync_plan_free(plan);
        plan = NULL;

        /* Directories that are not ours, and layers that may not load. */
        static const struct {
                const char *state_dir, *layer, *want, *name;
        } bad[] = {
                { "/tmp", "deny-getpid", "plan.stateDir: '/tmp' is neither", "a_state_dir_not_ours" },
                { NULL, "absent", "layer 'absent': no such profile in", "a_missing_layer" },
                { NULL, "linked", "is not a regular file", "a_symlinked_layer" },
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct tsync_request one = { .layers_by_name = true, .layers = { bad[i].layer }, .n_layers = 1 };
                err.msg[0] = '\0';
                r = tsync_plan_new(c, &one, bad[i].state_dir ? bad[i].state_dir : bundle_state, &plan, &err);
                if (r == 0 && bad[i].state_dir)
                        r = tsync_plan_check_state_dir(plan, &paths, &err);
                else if (r == 0)
                        r = tsync_plan_compile(plan, &paths, NULL, &progs, &w, &err);
                tap_ok(r < 0 && strstr(err.msg, bad[i].want) && progs.n == 0, "test_plan_refuses_%s (%s)", bad[i].name,
                       err.msg);
                tsync_plan_programs_clear(&progs);
                tsync_plan_free(plan);
                plan = NULL;
        }

        /* A missing layer names every directory it was looked for in. */
        const char *three[] = { profiles, "/nonexistent/a", "/nonexistent/b" };
        struct tsync_plan_paths in_three = paths;
        in_three.profile_dirs = three;
        in_three.n_profile_dirs = 3;
        struct tsync_request absent = { .layers_by_name = true, .layers = { "absent" }, .n_layers = 1 };
        char want[4400];
        (void)snprintf(want, sizeof(want), "layer 'absent': no such profile in %s, /nonexistent/a or /nonexistent/b",
                       profiles);
        err.msg[0] = '\0';
        r = tsync_plan_new(c, &absent, bundle_state, &plan, &err);
        r = r ?: tsync_plan_compile(plan, &in_three, NULL, &progs, &w, &err);
        tap_ok(r < 0 && strcmp(err.msg, want) == 0, "test_a_missing_layer_names_every_profile_directory (%s)", err.msg);
        tsync_plan_programs_clear(&progs);
        tsync_plan_free(plan);
        plan = NULL;

        /* A notify layer: its filter is the agent's, with the profile's socket and metadata kept. */
        struct tsync_request agent = { .layers_by_name = true, .layers = { "notify" }, .n_layers = 1 };
        r = tsync_plan_new(c, &agent, bundle_state, &plan, &err);
        r = r ?: tsync_plan_compile(plan, &paths, NULL, &progs, &w, &err);
        tap_ok(r == 0 && progs.n == 1 && progs.progs[0]->listener == TSYNC_LISTENER_AGENT &&
                       strcmp(progs.agent_host_path, "/run/agent.sock") == 0 && strcmp(progs.agent_metadata, "") == 0,
               "test_compile_marks_a_notify_layer_as_the_agents (%s)", err.msg);
        tsync_plan_programs_clear(&progs);
        tsync_plan_free(plan);
        plan = NULL;
        struct tsync_request two = { .layers_by_name = true, .layers = { "notify", "notify" }, .n_layers = 2 };
        err.msg[0] = '\0';
        r = tsync_plan_new(c, &two, bundle_state, &plan, &err);
        r = r ?: tsync_plan_compile(plan, &paths, NULL, &progs, &w, &err);
        tap_ok(r < 0 && strstr(err.msg, "a second filter with SCMP_ACT_NOTIFY") && progs.n == 0,
               "test_compile_refuses_a_second_agent (%s)", err.msg);
        tsync_plan_free(plan);
        plan = NULL;
        tsync_warnings_clear(&w);
        tsync_json_free(c);
}

static bool same_program(const struct tsync_program *a, const struct tsync_program *b)
{
        return a && b && a->len == b->len && memcmp(a->insns, b->insns, a->len * sizeof(*a->insns)) == 0;
}

/* The runtime's own profile through the cache: stored under its canonical
 * key and under the key of the document as parsed, which a later start
 * takes without reading the profile; a damaged entry of that key is
 * rebuilt, never believed. */
static void test_baseline_through_the_cache(void)
{
        char profiles[4200], cache[4200], state_dir[4200], entry[4400];
        (void)snprintf(profiles, sizeof(profiles), "%s/cache-profiles", tmp);
        (void)snprintf(cache, sizeof(cache), "%s/cache", tmp);
        (void)snprintf(state_dir, sizeof(state_dir), "%s/cache-state", tmp);
        if (mkdir(profiles, 0755) < 0 || mkdir(cache, 0700) < 0 || mkdir(state_dir, 0755) < 0 ||
            write_file(profiles, "deny-getpid.json", deny_getpid) < 0) {
                tap_ok(0, "test setup: %s", strerror(errno));
                return;
        }
        const char *dirs[] = { profiles };
        struct tsync_plan_paths paths = {
                .cache_dir = cache, .profile_dirs = dirs, .n_profile_dirs = 1, .state_root = tmp, .bundle = tmp
        };
        struct tsync_err err = { 0 };
        _cleanup_json_ struct tsync_json *c = config_with_annotations("{}");
        struct tsync_request req = { .layers_by_name = true, .layers = { "deny-getpid" }, .n_layers = 1 };
        struct tsync_plan *plan = NULL;
        struct tsync_plan_programs first = { 0 }, again = { 0 };
        struct tsync_warnings w = { 0 };
        int r = tsync_plan_new(c, &req, state_dir, &plan, &err);
        r = r ?: tsync_plan_compile(plan, &paths, c, &first, &w, &err);
        char key[TSYNC_CACHE_KEY_LEN + 1];
        r = r ?: tsync_cache_key_json(tsync_json_get(tsync_json_get(c, "linux"), "seccomp"), NULL, 0, key, &err);
        (void)snprintf(entry, sizeof(entry), "%s/%s.bpf", cache, key);
        struct stat st;
        tap_ok(r == 0 && first.n_baseline == 1 && stat(entry, &st) == 0,
               "test_the_baseline_is_stored_under_the_key_of_its_document (%s)", err.msg);

        r = r ?: tsync_plan_compile(plan, &paths, c, &again, &w, &err);
        tap_ok(r == 0 && again.n_baseline == 1 && same_program(first.progs[0], again.progs[0]),
               "test_the_baseline_from_the_key_of_its_document_is_the_same_program (%s)", err.msg);
        tsync_plan_programs_clear(&again);

        r = r ?: unit_write_file(entry, "not an entry");
        r = r ?: chmod(entry, 0600);
        r = r ?: tsync_plan_compile(plan, &paths, c, &again, &w, &err);
        struct tsync_program *stored = NULL;
        r = r ?: tsync_cache_load(cache, key, &stored, &err);
        tap_ok(r == 0 && same_program(first.progs[0], again.progs[0]) && same_program(first.progs[0], stored),
               "test_a_damaged_entry_of_that_key_is_rebuilt_not_believed (%s)", err.msg);
        tsync_program_free(stored);
        tsync_plan_programs_clear(&again);
        tsync_plan_programs_clear(&first);
        tsync_warnings_clear(&w);
        tsync_plan_free(plan);
}

static void test_check_annotations(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = config_with_annotations("{\"run.oci.seccomp_bpf_data\": \"AAAA\"}");
        struct tsync_request req = { .mode = TSYNC_MODE_REPLACE };
        struct tsync_plan *plan = NULL;
        int r = tsync_plan_new(c, &req, "/b/oci-seccomp-tsync", &plan, &err);
        r = r ?: tsync_plan_check_annotations(plan, c, &err);
        tap_ok(r < 0 && strstr(err.msg, "annotations.run.oci.seccomp_bpf_data: crun's own way"),
               "test_replace_mode_refuses_cruns_seccomp_annotations (%s)", err.msg);
        tsync_plan_free(plan);
        plan = NULL;
        struct tsync_request layer = { .layers = { "/a.json" }, .n_layers = 1 };
        err.msg[0] = '\0';
        r = tsync_plan_new(c, &layer, "/b/oci-seccomp-tsync", &plan, &err);
        r = r ?: tsync_plan_check_annotations(plan, c, &err);
        tap_ok(r == 0, "test_layer_mode_leaves_cruns_seccomp_annotations_to_crun (%s)", err.msg);
        tsync_plan_free(plan);
        tsync_json_free(c);
}

/* Exec once: the annotation, the plan's round trip, the extra filter (last,
 * marked with the listener, USER_NOTIF for execve and execveat on every ABI
 * of this machine), the init's argument, and the refusals. */
static void test_exec_once(void)
{
        struct tsync_err err = { 0 };
        struct tsync_request req;
        static const struct {
                const char *value;
                int want; /* 0: refused */
        } values[] = {
                { "once", EPERM },  { "once:EACCES", EACCES }, { "once:38", 38 }, { "twice", 0 }, { "once:", 0 },
                { "once:EFOO", 0 }, { "once:4096", 0 },        { "once:0", 0 },   { "ONCE", 0 },  { "once:-1", 0 },
        };
        for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
                char annotations[128];
                (void)snprintf(annotations, sizeof(annotations), "{\"%s\": \"%s\"}", TSYNC_ANNOTATION_EXEC,
                               values[i].value);
                struct tsync_json *c = config_with_annotations(annotations);
                err.msg[0] = '\0';
                int r = tsync_request_from_annotations(c, TSYNC_FRONTEND_PRECREATE, &req, &err);
                if (values[i].want)
                        tap_ok(r == 0 && req.init.exec_once == values[i].want,
                               "test_request_exec_annotation_%s_asks_errno_%d (%s)", values[i].value, values[i].want,
                               err.msg);
                else
                        tap_ok(r < 0 && strstr(err.msg, "is not once or once:ERRNO"),
                               "test_request_exec_annotation_refuses_%s (%s)", values[i].value, err.msg);
                if (r == 0)
                        tsync_request_clear(&req);
                tsync_json_free(c);
        }

        err.msg[0] = '\0';
        struct tsync_json *c = config_with_annotations("{}");
        struct tsync_request asked = { .init = { .exec_once = EACCES }, .delivery = TSYNC_DELIVERY_ARGS };
        struct tsync_plan *plan = NULL, *back = NULL;
        char *text = NULL;
        int r = tsync_plan_new(c, &asked, NULL, &plan, &err);
        r = r ?: tsync_plan_to_json(plan, &text, &err);
        r = r ?: annotate_and_read(c, text, &back, &err);
        tap_ok(r == 0 && back->init.exec_once == EACCES && strstr(text, "\"execOnce\":13") &&
                       tsync_plan_filter_count(back) == 1,
               "test_plan_exec_once_alone_is_one_filter_and_survives_its_annotation (%s)", err.msg);
        char label[64] = "";
        if (r == 0)
                tsync_plan_filter_label(back, 0, label, sizeof(label));
        tap_ok(strcmp(label, "exec-once") == 0, "test_plan_names_the_exec_once_filter (%s)", label);
        static const struct {
                const char *from, *to, *want, *name;
        } bad[] = {
                { "\"execOnce\":13", "\"execOnce\":0", "plan.execOnce: 0 is not an errno", "exec_once_0" },
                { "\"execOnce\":13", "\"execOnce\":5000", "plan.execOnce: 5000", "exec_once_too_big" },
                { "\"execOnce\":13", "\"execOnce\":13,\"exec\":true", "set together with plan.exec",
                  "an_exec_once_beside_exec" },
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                refused_after_edit(c, text, bad[i].from, bad[i].to, bad[i].want, bad[i].name);

        struct tsync_plan_programs progs = { 0 };
        struct tsync_warnings w = { 0 };
        struct tsync_plan_paths paths = { .state_root = "/run/oci-seccomp-tsync" };
        r = r ?: tsync_plan_compile(back, &paths, c, &progs, &w, &err);
        tsync_warnings_clear(&w);
        bool marked = r == 0 && progs.n == 2 && progs.n_baseline == 1 &&
                      progs.progs[1]->listener == TSYNC_LISTENER_EXEC_ONCE &&
                      progs.progs[0]->listener == TSYNC_LISTENER_NONE;
        tap_ok(marked, "test_compile_marks_the_exec_once_filter_and_nothing_else (%s)", err.msg);
        if (marked) {
                static const struct {
                        uint32_t arch;
                        int32_t nr;
                        uint32_t want;
                } calls[] = {
                        { AUDIT_ARCH_X86_64, 59, SECCOMP_RET_USER_NOTIF },               /* execve */
                        { AUDIT_ARCH_X86_64, 322, SECCOMP_RET_USER_NOTIF },              /* execveat */
                        { AUDIT_ARCH_X86_64, 57, SECCOMP_RET_ALLOW },                    /* fork */
                        { AUDIT_ARCH_X86_64, 0x40000000 | 520, SECCOMP_RET_USER_NOTIF }, /* x32 execve */
                        { AUDIT_ARCH_I386, 11, SECCOMP_RET_USER_NOTIF },                 /* int 0x80 execve */
                        { AUDIT_ARCH_I386, 358, SECCOMP_RET_USER_NOTIF },                /* int 0x80 execveat */
                        { AUDIT_ARCH_I386, 59, SECCOMP_RET_ALLOW },                      /* i386's 59 is olduname */
                };
                int bad_calls = 0;
                for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
                        struct tsync_bpf_input in = { .nr = calls[i].nr, .arch = calls[i].arch };
                        struct tsync_bpf_result res;
                        if (tsync_bpf_simulate(progs.progs[1]->insns, progs.progs[1]->len, &in, &res, &err) < 0 ||
                            (res.ret & SECCOMP_RET_ACTION_FULL) != calls[i].want) {
                                tap_diag("arch %#x nr %d: got %#x, want %#x", calls[i].arch, calls[i].nr, res.ret,
                                         calls[i].want);
                                bad_calls++;
                        }
                }
#if defined(__x86_64__)
                tap_ok(bad_calls == 0, "test_exec_once_filter_sends_execve_and_execveat_of_every_abi_to_the_listener");
#else
                tap_skip("the ABI table of this test is x86_64's",
                         "test_exec_once_filter_sends_execve_and_execveat_of_every_abi_to_the_listener");
                (void)bad_calls;
#endif
        }
        tsync_plan_programs_clear(&progs);
        free(text);
        tsync_plan_free(plan);
        tsync_plan_free(back);

        struct tsync_request both = { .init = { .exec = true, .exec_once = EPERM }, .delivery = TSYNC_DELIVERY_ARGS };
        plan = NULL;
        err.msg[0] = '\0';
        r = tsync_plan_new(c, &both, NULL, &plan, &err);
        tap_ok(r < 0 && strstr(err.msg, "cannot be combined with --exec"), "test_plan_refuses_exec_once_with_exec (%s)",
               err.msg);
        tsync_plan_free(plan);
        tsync_json_free(c);
}

/* The agent's filter file names the fixed in-container socket, never the
 * host's listenerPath, and carries the profile's metadata. */
static void test_agent_filter_encoding(void)
{
        struct sock_filter insns[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF) };
        struct tsync_program prog = { insns, 1, 0, TSYNC_LISTENER_AGENT };
        struct tsync_plan_programs progs = { .progs = { &prog }, .n = 1 };
        struct tsync_err err = { 0 };
        void *buf = NULL;
        size_t size = 0;
        int r = tsync_plan_encode_filter(&progs, 0, &buf, &size, &err);
        tap_ok(r < 0 && strstr(err.msg, "without the agent"),
               "test_plan_refuses_to_encode_an_agent_filter_without_its_agent (%s)", err.msg);

        progs.agent_host_path = (char *)"/run/host/agent.sock";
        progs.agent_metadata = (char *)"meta=1";
        struct tsync_filter_agent agent = { NULL, NULL };
        r = tsync_plan_encode_filter(&progs, 0, &buf, &size, &err);
        r = r ?: tsync_filter_decode_agent(buf, size, &agent);
        tap_ok(r == 0 && strcmp(agent.path, TSYNC_CONTAINER_RELAY) == 0 && strcmp(agent.metadata, "meta=1") == 0,
               "test_plan_encodes_the_agent_filter_with_the_container_socket_and_metadata (%d %s)", r, err.msg);
        free(buf);
        buf = NULL;

        prog.listener = TSYNC_LISTENER_NONE;
        r = tsync_plan_encode_filter(&progs, 0, &buf, &size, &err);
        tap_ok(r == 0 && size == tsync_filter_file_size(1, NULL) && tsync_filter_decode_agent(buf, size, &agent) < 0,
               "test_plan_encodes_other_filters_without_a_trailer (%d %s)", r, err.msg);
        free(buf);
}

/* Exec once with CAP_SYS_PTRACE in any set of process.capabilities (or no
 * process.capabilities: the whole bounding set) is refused, naming the set;
 * without exec once, or without the capability, the plan is made. A plan
 * edited to carry it is refused when read back. */
static void test_exec_once_refuses_sys_ptrace(void)
{
        static const struct {
                const char *caps; /* process.capabilities, or NULL for none */
                int exec_once;
                const char *want; /* NULL: accepted */
                const char *name;
        } cases[] = {
                { "{\"bounding\": [\"CAP_KILL\"]}", EPERM, NULL, "without_it" },
                { "{\"bounding\": [\"CAP_SYS_PTRACE\"]}", 0, NULL, "without_exec_once" },
                { "{\"bounding\": [\"CAP_KILL\", \"CAP_SYS_PTRACE\"]}", EPERM,
                  "process.capabilities.bounding has CAP_SYS_PTRACE", "in_bounding" },
                { "{\"effective\": [\"CAP_SYS_PTRACE\"]}", EPERM, "process.capabilities.effective has CAP_SYS_PTRACE",
                  "in_effective" },
                { "{\"permitted\": [\"CAP_SYS_PTRACE\"]}", EPERM, "process.capabilities.permitted has CAP_SYS_PTRACE",
                  "in_permitted" },
                { "{\"inheritable\": [\"CAP_SYS_PTRACE\"]}", EPERM,
                  "process.capabilities.inheritable has CAP_SYS_PTRACE", "in_inheritable" },
                { "{\"bounding\": [], \"ambient\": [\"CAP_SYS_PTRACE\"]}", EPERM,
                  "process.capabilities.ambient has CAP_SYS_PTRACE", "in_ambient" },
                { "{\"bounding\": [\"cap_sys_ptrace\"]}", EPERM, NULL, "spelt_as_runc_ignores_it" },
                { NULL, EPERM, "process.capabilities is absent, so the runtime leaves the bounding set whole",
                  "without_capabilities" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char buf[512];
                (void)snprintf(buf, sizeof(buf),
                               "{\"process\": {\"args\": [\"sh\"], \"noNewPrivileges\": true%s%s}, \"linux\": {}}",
                               cases[i].caps ? ", \"capabilities\": " : "", cases[i].caps ? cases[i].caps : "");
                struct tsync_json *c = unit_parse(buf);
                struct tsync_request req = { .init = { .exec_once = cases[i].exec_once },
                                             .delivery = TSYNC_DELIVERY_ARGS };
                const char *layers[] = { "/l.json" };
                if (!cases[i].exec_once) {
                        req.layers[0] = layers[0];
                        req.n_layers = 1;
                }
                struct tsync_plan *plan = NULL;
                struct tsync_err err = { 0 };
                int r = c ? tsync_plan_new(c, &req, NULL, &plan, &err) : -EINVAL;
                if (cases[i].want)
                        tap_ok(r == -EPERM && !plan && strstr(err.msg, cases[i].want) &&
                                       strstr(err.msg, "exec-once supervisor's /proc/1/task/N/mem") &&
                                       !strchr(err.msg, '\n'),
                               "test_plan_refuses_exec_once_with_sys_ptrace_%s (%s)", cases[i].name, err.msg);
                else
                        tap_ok(r == 0 && plan, "test_plan_allows_%s (%s)", cases[i].name, err.msg);
                tsync_plan_free(plan);
                tsync_json_free(c);
        }

        struct tsync_json *c = config_with_annotations("{}");
        struct tsync_request asked = { .init = { .exec_once = EPERM }, .delivery = TSYNC_DELIVERY_ARGS };
        struct tsync_plan *plan = NULL;
        struct tsync_err err = { 0 };
        char *text = NULL;
        int r = tsync_plan_new(c, &asked, NULL, &plan, &err);
        r = r ?: tsync_plan_to_json(plan, &text, &err);
        tap_ok(r == 0, "test_plan_exec_once_with_cap_kill (%s)", err.msg);
        refused_after_edit(c, text, "\"CAP_KILL\"", "\"CAP_KILL\",\"CAP_SYS_PTRACE\"",
                           "plan.capabilities.bounding has CAP_SYS_PTRACE", "an_edited_plan_with_sys_ptrace");
        free(text);
        tsync_plan_free(plan);
        tsync_json_free(c);
}

int main(void)
{
        static void (*const tests[])(void) = {
                test_request,
                test_round_trip,
                test_plan_new_refusals,
                test_args_delivery,
                test_filters_and_delivery,
                test_baseline_through_the_cache,
                test_check_annotations,
                test_exec_once,
                test_exec_once_refuses_sys_ptrace,
                test_agent_filter_encoding,
        };
        return unit_main_in_tmpdir(tmp, tests, ARRAY_SIZE(tests));
}
