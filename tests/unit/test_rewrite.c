/* The config rewrite of inject/precreate: what it changes, what it keeps, and that it never wraps twice. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/exec_view.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/base64.h"
#include "shared/cleanup.h"
#include "shared/filterfile.h"
#include "tap.h"
#include "unit.h"
#include "util/json.h"
#include "util/json_build.h"

static int rewrite(struct tsync_json *config, bool replace, const char *const *layers, size_t n, bool by_name,
                   struct tsync_err *err)
{
        const char *hook_args[] = { "--cache-dir", "/var/cache/x" };
        struct tsync_request req = { .mode = replace ? TSYNC_MODE_REPLACE : TSYNC_MODE_LAYER,
                                     .layers_by_name = by_name,
                                     .n_layers = n };
        for (size_t i = 0; i < n && i < TSYNC_MAX_LAYERS; i++)
                req.layers[i] = layers[i];
        struct tsync_rewrite_opts o = { .init_path = "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init",
                                        .hook_path = "/usr/bin/oci-seccomp-tsync",
                                        .hook_args = hook_args,
                                        .n_hook_args = 2 };
        return unit_rewrite(config, &req, "/bundle/oci-seccomp-tsync", &o, err);
}

static const struct tsync_json *at(const struct tsync_json *v, const char *a, const char *b)
{
        return tsync_json_get(tsync_json_get(v, a), b);
}

static bool has(const struct tsync_json *arr, const char *s)
{
        for (size_t i = 0; arr && arr->type == TSYNC_JSON_ARRAY && i < arr->u.array.len; i++)
                if (arr->u.array.items[i]->type == TSYNC_JSON_STRING &&
                    strcmp(arr->u.array.items[i]->u.string.ptr, s) == 0)
                        return true;
        return false;
}

static void test_rewrite_layer_mode(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = unit_parse(unit_base_config);
        const char *layers[] = { "/etc/p/a.json", "/etc/p/b.json" };
        int r = rewrite(c, false, layers, 2, false, &err);
        if (!tap_ok(r == 0, "test_rewrite_layer_mode_succeeds (%s)", err.msg))
                return;
        const struct tsync_json *args = at(c, "process", "args");
        char *t = unit_text(args);
        tap_ok(t && strcmp(t,
                           "[\"/.oci-seccomp-tsync/init\",\"--filter\",\"/.oci-seccomp-tsync/filters/00.bpf\","
                           "\"--filter\",\"/.oci-seccomp-tsync/filters/01.bpf\",\"--bounding\",\"CAP_CHOWN,CAP_KILL\","
                           "\"--effective\",\"CAP_KILL\",\"--inheritable\",\"none\",\"--permitted\",\"CAP_KILL\","
                           "\"--ambient\",\"CAP_KILL\",\"--\",\"sh\",\"-c\",\"echo hi\"]") == 0,
               "test_rewrite_args_wrap_the_workload_with_the_original_capabilities (%s)", t);
        free(t);
        tap_ok(at(at(c, "linux", "seccomp"), "defaultAction", NULL) == NULL && tsync_json_get(c, "linux") &&
                       at(c, "linux", "seccomp") != NULL,
               "test_rewrite_layer_mode_keeps_linux_seccomp");
        const struct tsync_json *caps = at(c, "process", "capabilities");
        bool lent = true;
        const char *sets[] = { "bounding", "effective", "permitted", "inheritable", "ambient" };
        for (size_t i = 0; i < 5; i++)
                lent = lent && has(tsync_json_get(caps, sets[i]), "CAP_SYS_ADMIN") &&
                       has(tsync_json_get(caps, sets[i]), "CAP_SETPCAP");
        tap_ok(lent, "test_rewrite_lends_sys_admin_and_setpcap_without_no_new_privs");
        const struct tsync_json *mounts = tsync_json_get(c, "mounts");
        tap_ok(mounts && mounts->u.array.len == 4, "test_rewrite_adds_three_mounts");
        /* The directory itself first: a mount point the workload cannot
         * rename, read-only, before the mount points made under it. */
        t = unit_text(mounts->u.array.items[1]);
        tap_ok(t && strstr(t, "\"destination\":\"/.oci-seccomp-tsync\"") && strstr(t, "\"type\":\"tmpfs\"") &&
                       strstr(t, "\"ro\"") && strstr(t, "\"noexec\""),
               "test_rewrite_our_directory_is_a_read_only_tmpfs_mounted_first (%s)", t);
        free(t);
        t = unit_text(mounts->u.array.items[3]);
        tap_ok(t && strstr(t, "\"source\":\"/bundle/oci-seccomp-tsync\"") && strstr(t, "\"ro\"") &&
                       strstr(t, "\"noexec\""),
               "test_rewrite_filter_mount_is_read_only (%s)", t);
        free(t);
        t = unit_text(tsync_json_get(c, "hooks"));
        tap_ok(t && strstr(t, "\"createRuntime\"") && strstr(t, "\"poststop\"") && strstr(t, "\"--cache-dir\""),
               "test_rewrite_adds_create_runtime_and_poststop_hooks (%s)", t);
        free(t);
        t = unit_text(c);
        tap_ok(t && strstr(t, "\"big\":18446744073709551615") && strstr(t, "\"keep\":\"me\"") &&
                       strstr(t, "\"readonly\":true"),
               "test_rewrite_keeps_what_it_does_not_touch");
        free(t);
        struct tsync_plan *plan = NULL;
        r = tsync_plan_from_config(c, &plan, &err);
        tap_ok(r == 0 && plan && plan->mode == TSYNC_MODE_LAYER && plan->n_layers == 2 && !plan->no_new_privileges &&
                       plan->capabilities && tsync_plan_filter_count(plan) == 2,
               "test_rewrite_plan_records_the_original (%s)", err.msg);
        tsync_plan_free(plan);
        tsync_json_free(c);
}

static void test_rewrite_twice_does_not_wrap_twice(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = unit_parse(unit_base_config);
        const char *layers[] = { "/etc/p/a.json" };
        int r = rewrite(c, false, layers, 1, false, &err);
        char *once = unit_text(c);
        r = r ?: rewrite(c, false, layers, 1, false, &err);
        char *twice = unit_text(c);
        tap_ok(r == 0 && once && twice && strcmp(once, twice) == 0, "test_rewrite_twice_gives_the_same_config (%s)",
               err.msg);
        const char *other[] = { "/etc/p/b.json", "/etc/p/c.json" };
        r = rewrite(c, true, other, 2, false, &err);
        const struct tsync_json *args = at(c, "process", "args");
        size_t dashes = 0;
        for (size_t i = 0; args && i < args->u.array.len; i++)
                dashes += strcmp(args->u.array.items[i]->u.string.ptr, "--") == 0;
        tap_ok(r == 0 && dashes == 1 && has(args, "/.oci-seccomp-tsync/filters/02.bpf") &&
                       tsync_json_get(c, "mounts")->u.array.len == 4,
               "test_rewrite_again_with_other_layers_starts_from_the_original (%s)", err.msg);
        free(once);
        free(twice);
        tsync_json_free(c);
}

/* inject, then inject --no-hooks: our hooks go, and so do stage lists that held
 * only them; the config's own hooks stay where they were. */
static void test_rewrite_without_hooks_removes_ours_only(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = unit_parse(unit_base_config);
        /* noNewPrivileges, so that nothing is lent that only a hook could take back */
        if (c)
                (void)tsync_json_set(tsync_json_get_object(c, "process"), "noNewPrivileges", tsync_json_new_bool(true));
        struct tsync_json *hooks = c ? tsync_json_new_object() : NULL;
        struct tsync_json *own = unit_parse("[{\"path\": \"/usr/bin/mine\", \"args\": [\"mine\"]}]");
        int r = hooks && own && tsync_json_set(c, "hooks", hooks) == 0 &&
                                tsync_json_set(tsync_json_get_object(c, "hooks"), "poststop", own) == 0
                        ? 0
                        : -1;
        const char *layers[] = { "/etc/p/a.json" };
        r = r ?: rewrite(c, false, layers, 1, false, &err);
        const struct tsync_json *h = tsync_json_get(c, "hooks");
        tap_ok(r == 0 && tsync_json_get(h, "createRuntime") && tsync_json_get(h, "poststop") &&
                       tsync_json_get(h, "poststop")->u.array.len == 2,
               "test_rewrite_adds_our_hooks_beside_the_configs_own (%s)", err.msg);
        struct tsync_request req = { .layers = { layers[0] }, .n_layers = 1 };
        struct tsync_rewrite_opts o = { .init_path = "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init" };
        r = r ?: unit_rewrite(c, &req, "/bundle/oci-seccomp-tsync", &o, &err);
        h = tsync_json_get(c, "hooks");
        const struct tsync_json *post = tsync_json_get(h, "poststop");
        tap_ok(r == 0 && !tsync_json_get(h, "createRuntime") && post && post->u.array.len == 1 &&
                       has(tsync_json_get(post->u.array.items[0], "args"), "mine"),
               "test_rewrite_without_hooks_removes_ours_and_their_emptied_stages (%s)", err.msg);
        tsync_json_free(c);
}

/* Our hook entries of every stage run the view hook, with what it takes (its
 * marker, "hook", the stage, --no-sync when they had it); another's entries,
 * even one that names our program, are left as they were. */
static void test_rewrite_hooks_to_the_view_hook(void)
{
        struct tsync_err err = { 0 };
        _cleanup_json_ struct tsync_json *c = unit_parse(
                "{\"hooks\": {\"createRuntime\": [{\"path\": \"/usr/bin/mine\", \"args\": [\"mine\"]},"
                " {\"path\": \"/usr/bin/oci-seccomp-tsync\", \"args\": [\"oci-seccomp-tsync\", \"hook\","
                " \"createRuntime\", \"--cache-dir\", \"/c\", \"--no-sync\"], \"timeout\": 5}],"
                " \"poststop\": [{\"path\": \"/usr/bin/oci-seccomp-tsync\", \"args\": [\"oci-seccomp-tsync\","
                " \"hook\", \"poststop\", \"--no-cache\"]}],"
                " \"prestart\": [{\"path\": \"/usr/bin/oci-seccomp-tsync\", \"args\": [\"other\", \"hook\"]}]}}");
        int r = c ? tsync_rewrite_hooks_to(c, "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-view-hook", &err) : -1;
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        if (r == 0)
                r = tsync_json_write(at(c, "hooks", "createRuntime"), false, &text, &len, &err);
        tap_ok(r == 0 && strcmp(text, "[{\"path\":\"/usr/bin/mine\",\"args\":[\"mine\"]},"
                                      "{\"path\":\"/usr/libexec/oci-seccomp-tsync/seccomp-tsync-view-hook\","
                                      "\"args\":[\"oci-seccomp-tsync\",\"hook\",\"createRuntime\",\"--no-sync\"],"
                                      "\"timeout\":5}]") == 0,
               "test_rewrite_hooks_to_keeps_the_order_the_timeout_and_no_sync_alone: %s", r == 0 ? text : err.msg);
        free(text);
        text = NULL;
        if (r == 0)
                r = tsync_json_write(at(c, "hooks", "poststop"), false, &text, &len, &err);
        tap_ok(r == 0 && strcmp(text, "[{\"path\":\"/usr/libexec/oci-seccomp-tsync/seccomp-tsync-view-hook\","
                                      "\"args\":[\"oci-seccomp-tsync\",\"hook\",\"poststop\"]}]") == 0,
               "test_rewrite_hooks_to_drops_the_full_hooks_options: %s", r == 0 ? text : err.msg);
        free(text);
        text = NULL;
        if (r == 0)
                r = tsync_json_write(at(c, "hooks", "prestart"), false, &text, &len, &err);
        tap_ok(r == 0 && strcmp(text, "[{\"path\":\"/usr/bin/oci-seccomp-tsync\",\"args\":[\"other\",\"hook\"]}]") == 0,
               "test_rewrite_hooks_to_leaves_an_entry_not_ours: %s", r == 0 ? text : err.msg);
}

static void test_rewrite_replace_moves_the_section(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = unit_parse(unit_base_config);
        int r = rewrite(c, true, NULL, 0, false, &err);
        struct tsync_plan *plan = NULL;
        if (r == 0)
                r = tsync_plan_from_config(c, &plan, &err);
        tap_ok(r == 0 && at(c, "linux", "seccomp") == NULL && plan && plan->seccomp &&
                       plan->mode == TSYNC_MODE_REPLACE && tsync_plan_filter_count(plan) == 1,
               "test_rewrite_replace_moves_linux_seccomp_into_the_plan (%s)", err.msg);
        tsync_plan_free(plan);
        plan = NULL;
        /* and back again */
        const char *layers[] = { "/etc/p/a.json" };
        r = rewrite(c, false, layers, 1, false, &err);
        tap_ok(r == 0 && at(c, "linux", "seccomp") != NULL, "test_rewrite_layer_after_replace_restores_the_section");
        tsync_json_free(c);
}

static void test_rewrite_refusals(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = unit_parse(unit_base_config);
        int r = rewrite(c, false, NULL, 0, false, &err);
        tap_ok(r < 0 && strstr(err.msg, "nothing for the init to apply"), "test_rewrite_refuses_nothing_to_do (%s)",
               err.msg);
        const char *bad[] = { "../../etc/shadow" };
        r = rewrite(c, false, bad, 1, true, &err);
        tap_ok(r < 0 && strstr(err.msg, "not starting with '.'"), "test_rewrite_refuses_a_layer_name_with_a_path (%s)",
               err.msg);
        tsync_json_free(c);
        c = unit_parse("{\"process\": {\"args\": []}}");
        const char *layers[] = { "/a.json" };
        r = rewrite(c, false, layers, 1, false, &err);
        tap_ok(r < 0 && strstr(err.msg, "process.args: empty"), "test_rewrite_refuses_no_workload (%s)", err.msg);
        tsync_json_free(c);
        c = unit_parse(
                "{\"process\": {\"args\": [\"sh\"]}, \"mounts\": [{\"destination\": \"//.oci-seccomp-tsync/init/\"}]}");
        r = rewrite(c, false, layers, 1, false, &err);
        tap_ok(r < 0 && strstr(err.msg, "mounts[0].destination: under /.oci-seccomp-tsync"),
               "test_rewrite_refuses_a_mount_where_ours_go (%s)", err.msg);
        tsync_json_free(c);
        c = unit_parse("{\"process\": {\"args\": [\"sh\"], \"capabilities\": null, \"noNewPrivileges\": null}}");
        r = rewrite(c, false, layers, 1, false, &err);
        char *once = c ? unit_text(c) : NULL;
        r = r ?: rewrite(c, false, layers, 1, false, &err);
        char *twice = c ? unit_text(c) : NULL;
        tap_ok(r == 0 && once && twice && strcmp(once, twice) == 0,
               "test_rewrite_twice_with_null_capabilities_gives_the_same_config (%s)", err.msg);
        free(once);
        free(twice);
        tsync_json_free(c);
        c = unit_parse("{\"process\": {\"args\": [\"sh\"]}}");
        r = rewrite(c, true, NULL, 0, false, &err);
        tap_ok(r < 0 && strstr(err.msg, "replace mode: linux.seccomp: missing"),
               "test_rewrite_refuses_replace_without_a_section (%s)", err.msg);
        tsync_json_free(c);
}

static void test_rewrite_no_new_privs_lends_nothing(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = unit_parse("{\"process\": {\"args\": [\"sh\"], \"noNewPrivileges\": true,"
                                          " \"capabilities\": {\"bounding\": [\"CAP_KILL\"]}}}");
        const char *layers[] = { "/a.json" };
        int r = rewrite(c, false, layers, 1, false, &err);
        const struct tsync_json *caps = at(c, "process", "capabilities");
        tap_ok(r == 0 && !has(tsync_json_get(caps, "bounding"), "CAP_SYS_ADMIN") && !tsync_json_get(caps, "ambient") &&
                       has(at(c, "process", "args"), "--no-new-privs"),
               "test_rewrite_no_new_privs_lends_nothing (%s)", err.msg);
        tsync_json_free(c);
}

/* inject --no-hooks with noNewPrivileges false: nothing would take the lent
 * capabilities back from exec'd processes, so it is refused, saying why. */
static void test_rewrite_without_hooks_refuses_lending(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = unit_parse(unit_base_config);
        const char *layers[] = { "/etc/p/a.json" };
        struct tsync_request req = { .layers = { layers[0] }, .n_layers = 1 };
        struct tsync_rewrite_opts o = { .init_path = "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init" };
        int r = unit_rewrite(c, &req, "/bundle/oci-seccomp-tsync", &o, &err);
        tap_ok(r == -EPERM && strstr(err.msg, "set process.noNewPrivileges to true"),
               "test_rewrite_without_hooks_refuses_lent_capabilities (%s)", err.msg);
        tsync_json_free(c);
        /* nothing to lend: all five sets hold both already */
        const char *all = "[\"CAP_SYS_ADMIN\", \"CAP_SETPCAP\"]";
        char buf[512];
        (void)snprintf(buf, sizeof(buf),
                       "{\"process\": {\"args\": [\"sh\"], \"capabilities\": {\"bounding\": %s, \"effective\": %s, "
                       "\"inheritable\": %s, \"permitted\": %s, \"ambient\": %s}}}",
                       all, all, all, all, all);
        c = unit_parse(buf);
        err.msg[0] = '\0';
        r = unit_rewrite(c, &req, "/bundle/oci-seccomp-tsync", &o, &err);
        tap_ok(r == 0, "test_rewrite_without_hooks_accepts_sets_that_lend_nothing (%s)", err.msg);
        tsync_json_free(c);
}

static struct tsync_json *injected(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = unit_parse(unit_base_config);
        const char *layers[] = { "/etc/p/a.json" };
        if (c && rewrite(c, false, layers, 1, false, &err) < 0) {
                tap_diag("rewrite: %s", err.msg);
                tsync_json_free(c);
                return NULL;
        }
        return c;
}

/* Replaces key in the config's plan annotation with the JSON value text. */
static bool forge_plan(struct tsync_json *c, const char *key, const char *value)
{
        struct tsync_json *annotations = tsync_json_get_object(c, "annotations");
        const struct tsync_json *t = tsync_json_get(annotations, TSYNC_ANNOTATION_PLAN);
        struct tsync_json *plan = t ? unit_parse(t->u.string.ptr) : NULL;
        struct tsync_json *v = unit_parse(value);
        char *out = NULL;
        bool ok = plan && v && tsync_json_set(plan, key, v) == 0 && (out = unit_text(plan)) &&
                  tsync_json_set(annotations, TSYNC_ANNOTATION_PLAN, tsync_json_new_string(out)) == 0;
        if (!ok && !plan)
                tsync_json_free(v);
        tsync_json_free(plan);
        free(out);
        return ok;
}

/* A plan whose every field but one is what inject wrote: the one is believed nowhere. */
static void test_rewrite_refuses_a_forged_plan(void)
{
        static const struct {
                const char *key, *value;
        } forged[] = {
                { "args", "[\"sh\", \"-c\", \"evil\"]" },
                { "capabilities", "{\"bounding\": [\"CAP_SYS_ADMIN\"], \"effective\": [\"CAP_SYS_ADMIN\"],"
                                  " \"permitted\": [\"CAP_SYS_ADMIN\"], \"ambient\": [\"CAP_SYS_ADMIN\"]}" },
                { "noNewPrivileges", "true" },
                { "seccomp", "{\"defaultAction\": \"SCMP_ACT_ALLOW\"}" },
                { "mode", "\"replace\"" },
                { "layers", "[\"/etc/p/a.json\", \"/etc/p/b.json\"]" }, /* names alone never reach the output */
                { "stateDir", "\"/elsewhere\"" },
                { "layersByName", "true" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(forged); i++) {
                struct tsync_err err = { 0 };
                struct tsync_json *c = injected();
                bool ok = c && forge_plan(c, forged[i].key, forged[i].value);
                const char *layers[] = { "/etc/p/a.json" };
                int r = ok ? rewrite(c, false, layers, 1, false, &err) : 0;
                tap_ok(ok && r < 0 &&
                               (strstr(err.msg, "not what inject wrote") || strstr(err.msg, "not a plan inject wrote")),
                       "test_rewrite_inject_refuses_a_plan_with_forged_%s (%s)", forged[i].key, err.msg);
                tsync_json_free(c);
        }
        /* the precreate hook refuses any plan, honest or not */
        struct tsync_err err = { 0 };
        struct tsync_json *c = injected();
        struct tsync_request req = { .layers_by_name = true, .layers = { "deny-ptrace" }, .n_layers = 1 };
        struct tsync_rewrite_opts o = { .from_engine = true, .init_path = "/init" };
        const char *state_dir = "/run/oci-seccomp-tsync/0";
        int r = c ? unit_rewrite(c, &req, state_dir, &o, &err) : 0;
        tap_ok(r == -EPERM && strstr(err.msg, "annotations." TSYNC_ANNOTATION_PLAN ": set by oci-seccomp-tsync itself"),
               "test_rewrite_precreate_refuses_a_config_that_carries_a_plan (%s)", err.msg);
        tsync_json_free(c);
        c = unit_parse(unit_base_config);
        struct tsync_json *a = c ? tsync_json_get_object(c, "annotations") : NULL;
        r = a && tsync_json_set(a, TSYNC_ANNOTATION_RUNNING, tsync_json_new_string("x")) == 0
                    ? unit_rewrite(c, &req, state_dir, &o, &err)
                    : 0;
        tap_ok(r == -EPERM && strstr(err.msg, TSYNC_ANNOTATION_RUNNING),
               "test_rewrite_precreate_refuses_a_config_that_carries_a_running_record (%s)", err.msg);
        tsync_json_free(c);
}

/* Edits after inject in the fields the rewrite wrote: refused, naming the path. */
static void test_rewrite_refuses_a_config_edited_after_inject(void)
{
        static const struct {
                const char *what, *path;
        } edits[] = {
                { "args", "process.args[1]" },
                { "capabilities", "process.capabilities.bounding" },
                { "noNewPrivileges", "process." },
                { "seccomp", "linux.seccomp" }, /* layer mode leaves it to the runtime: here replace mode */
                { "mounts", "mounts[2].options" },
                { "hooks", "hooks." },
        };
        for (size_t i = 0; i < ARRAY_SIZE(edits); i++) {
                struct tsync_err err = { 0 };
                const char *w = edits[i].what;
                bool replace = strcmp(w, "seccomp") == 0;
                struct tsync_json *c = unit_parse(unit_base_config);
                const char *layers[] = { "/etc/p/a.json" };
                int r = c ? rewrite(c, replace, layers, 1, false, &err) : -1;
                struct tsync_json *process = c ? tsync_json_get_object(c, "process") : NULL;
                if (r == 0 && strcmp(w, "args") == 0)
                        r = tsync_json_set(process, "args",
                                           unit_parse("[\"/.oci-seccomp-tsync/init\", \"--no-such\"]"));
                else if (r == 0 && strcmp(w, "capabilities") == 0)
                        r = tsync_json_append(
                                tsync_json_get_mut(tsync_json_get_mut(process, "capabilities"), "bounding"),
                                tsync_json_new_string("CAP_SYS_MODULE"));
                else if (r == 0 && strcmp(w, "noNewPrivileges") == 0)
                        r = tsync_json_set(process, "noNewPrivileges", tsync_json_new_bool(true));
                else if (r == 0 && strcmp(w, "seccomp") == 0)
                        r = tsync_json_set(tsync_json_get_object(c, "linux"), "seccomp",
                                           unit_parse("{\"defaultAction\": \"SCMP_ACT_ALLOW\"}"));
                else if (r == 0 && strcmp(w, "mounts") == 0)
                        r = tsync_json_set(tsync_json_get_mut(c, "mounts")->u.array.items[2], "options",
                                           unit_parse("[\"bind\", \"rw\"]"));
                else if (r == 0)
                        r = tsync_json_set(
                                tsync_json_get_mut(tsync_json_get_mut(c, "hooks"), "createRuntime")->u.array.items[0],
                                "path", tsync_json_new_string("/tmp/other"));
                r = r == 0 ? rewrite(c, replace, layers, 1, false, &err) : 0;
                tap_ok(r == -EPERM && strncmp(err.msg, edits[i].path, strlen(edits[i].path)) == 0 &&
                               strstr(err.msg, "edited after inject"),
                       "test_rewrite_inject_refuses_%s_edited_after_inject (%s)", w, err.msg);
                tsync_json_free(c);
        }
}

/* The createRuntime hook's exec view: original sets and the container's id in
 * the config, refused for a second container, given back by its own poststop
 * only; inject in between keeps it. */
static void test_exec_view_round_trip(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = injected();
        char *lent_text = c ? unit_text(c) : NULL;
        struct tsync_plan *plan = NULL;
        int r = c ? tsync_plan_from_config(c, &plan, &err) : -1;
        r = r ?: tsync_exec_view_restore(c, plan, "ctr-a", &err);
        const struct tsync_json *caps = at(c, "process", "capabilities");
        tap_ok(r == 0 && !has(tsync_json_get(caps, "bounding"), "CAP_SYS_ADMIN") &&
                       tsync_json_equal(caps, plan->capabilities, NULL, 0) &&
                       at(c, "annotations", TSYNC_ANNOTATION_RUNNING),
               "test_exec_view_restore_puts_the_original_sets_back (%s)", err.msg);
        r = tsync_exec_view_restore(c, plan, "ctr-b", &err);
        tap_ok(r == -EBUSY && strstr(err.msg, "'ctr-a'"), "test_exec_view_second_container_is_refused (%s)", err.msg);
        const char *layers[] = { "/etc/p/a.json" };
        err.msg[0] = '\0';
        r = rewrite(c, false, layers, 1, false, &err);
        caps = at(c, "process", "capabilities");
        tap_ok(r == 0 && !has(tsync_json_get(caps, "bounding"), "CAP_SYS_ADMIN") &&
                       at(c, "annotations", TSYNC_ANNOTATION_RUNNING),
               "test_rewrite_keeps_the_exec_view_of_a_running_container (%s)", err.msg);
        bool changed = true;
        r = tsync_exec_view_lend(c, plan, "ctr-b", &changed, &err);
        tap_ok(r == 0 && !changed, "test_exec_view_poststop_of_another_container_changes_nothing (%s)", err.msg);
        r = tsync_exec_view_lend(c, plan, "ctr-a", &changed, &err);
        char *back = unit_text(c);
        tap_ok(r == 0 && changed && lent_text && back && strcmp(back, lent_text) == 0,
               "test_exec_view_own_poststop_lends_again_as_inject_wrote (%s)", err.msg);
        free(back);
        free(lent_text);
        tsync_plan_free(plan);
        tsync_json_free(c);
}

/* Every refusal of the rewrite names the JSON path it is about: none says
 * only "Invalid argument" (as the old "rewriting the config: Invalid
 * argument" did for these shapes). */
static void test_rewrite_errors_name_their_path(void)
{
        static const struct {
                const char *config, *want, *name;
        } cases[] = {
                { "{\"process\": {\"args\": [\"sh\"]}, \"hooks\": {\"createRuntime\": {}}}",
                  "hooks.createRuntime: expected array, got object", "a_stage_not_a_list" },
                { "{\"process\": {\"args\": [\"sh\"]}, \"hooks\": []}", "hooks: expected object, got array",
                  "hooks_not_an_object" },
                { "{\"process\": {\"args\": [\"sh\"], \"capabilities\": {\"ambient\": \"CAP_KILL\"}}}",
                  "process.capabilities.ambient: expected array, got string", "a_capability_set_not_a_list" },
                { "{\"process\": {\"args\": [\"sh\"]}, \"annotations\": []}", "annotations: expected object, got array",
                  "annotations_not_an_object" },
                { "{\"process\": {\"args\": [\"sh\"]}, \"mounts\": {}}", "mounts: expected array, got object",
                  "mounts_not_a_list" },
        };
        const char *layers[] = { "/etc/p/a.json" };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct tsync_err err = { 0 };
                struct tsync_json *c = unit_parse(cases[i].config);
                int r = c ? rewrite(c, false, layers, 1, false, &err) : 0;
                tap_ok(r < 0 && strstr(err.msg, cases[i].want) && !strstr(err.msg, "rewriting the config"),
                       "test_rewrite_refuses_%s_naming_its_path (%s)", cases[i].name, err.msg);
                tsync_json_free(c);
        }
}

/* The arguments after "--filter-data" in process.args, decoded as filter files: how many decode. */
static size_t decodable_filter_data(const struct tsync_json *config, size_t *ret_found)
{
        const struct tsync_json *args = at(config, "process", "args");
        size_t found = 0, good = 0;
        for (size_t i = 0; args && i + 1 < args->u.array.len; i++) {
                const struct tsync_json *a = args->u.array.items[i];
                if (a->type != TSYNC_JSON_STRING || strcmp(a->u.string.ptr, "--filter-data") != 0)
                        continue;
                found++;
                static _Alignas(8) unsigned char buf[TSYNC_FILTER_MAX_SIZE];
                const struct sock_filter *prog;
                size_t len;
                uint32_t flags;
                const char *why;
                long n = tsync_base64_decode(args->u.array.items[i + 1]->u.string.ptr, buf, sizeof(buf));
                if (n > 0 && tsync_filter_decode(buf, (size_t)n, &prog, &len, &flags, NULL, &why) == 0 && len == 2)
                        good++;
        }
        *ret_found = found;
        return good;
}

/* Filters in the init's arguments (precreate, inject --no-hooks): no state
 * directory, no mount, the plan says so, and a second rewrite recomputes the
 * same config. */
static void test_rewrite_filters_in_the_init_arguments(void)
{
        struct tsync_err err = { 0 };
        struct sock_filter insns[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0), BPF_STMT(BPF_RET | BPF_K, 0x7fff0000) };
        struct tsync_program a = { .insns = insns, .len = 2 }, b = { .insns = insns, .len = 2 };
        struct tsync_plan_programs progs = { .progs = { &a, &b }, .n = 2 };
        struct tsync_request req = { .layers = { "/etc/p/a.json", "/etc/p/b.json" },
                                     .n_layers = 2,
                                     .delivery = TSYNC_DELIVERY_ARGS };
        struct tsync_rewrite_opts o = { .init_path = "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init",
                                        .progs = &progs };
        struct tsync_json *c = unit_parse(unit_base_config);
        struct tsync_json *process = c ? tsync_json_get_mut(c, "process") : NULL;
        int r = process ? tsync_json_set(process, "noNewPrivileges", tsync_json_new_bool(true)) : -EINVAL;
        r = r ?: unit_rewrite(c, &req, NULL, &o, &err);
        size_t found = 0, good = r == 0 ? decodable_filter_data(c, &found) : 0;
        tap_ok(r == 0 && found == 2 && good == 2, "test_rewrite_puts_each_filter_file_in_the_init_arguments (%s)",
               err.msg);
        const struct tsync_json *mounts = c ? tsync_json_get(c, "mounts") : NULL;
        bool filters_mount = false;
        for (size_t i = 0; mounts && i < mounts->u.array.len; i++) {
                const struct tsync_json *d = tsync_json_get(mounts->u.array.items[i], "destination");
                filters_mount |= d && strcmp(d->u.string.ptr, TSYNC_CONTAINER_FILTERS) == 0;
        }
        struct tsync_plan *plan = NULL;
        r = r ?: tsync_plan_from_config(c, &plan, &err);
        tap_ok(r == 0 && !filters_mount && plan->delivery == TSYNC_DELIVERY_ARGS && !plan->state_dir,
               "test_rewrite_with_filters_in_arguments_mounts_no_filter_directory (%s)", err.msg);
        tsync_plan_free(plan);
        char *before = c ? unit_text(c) : NULL;
        r = r ?: unit_rewrite(c, &req, NULL, &o, &err);
        char *after = c ? unit_text(c) : NULL;
        tap_ok(r == 0 && before && after && strcmp(before, after) == 0,
               "test_rewrite_twice_with_filters_in_arguments_writes_the_same_config (%s)", err.msg);
        free(before);
        free(after);
        struct tsync_plan_programs none = { 0 };
        o.progs = &none;
        struct tsync_json *fresh = unit_parse(unit_base_config);
        err.msg[0] = '\0';
        r = fresh ? unit_rewrite(fresh, &req, NULL, &o, &err) : 0;
        tap_ok(r == -EINVAL && strstr(err.msg, "not compiled"),
               "test_rewrite_refuses_filters_in_arguments_it_was_not_given (%s)", err.msg);
        tsync_json_free(fresh);
        tsync_json_free(c);
}

/* A one-filter plan whose filter hands its USER_NOTIF to listener, and the
 * request and options that rewrite it (the init at its installed path). */
struct notify_case {
        struct sock_filter insns[2];
        struct tsync_program prog;
        struct tsync_plan_programs progs;
        struct tsync_request req;
        struct tsync_rewrite_opts o;
};

static void notify_case_init(struct notify_case *k, uint32_t listener, enum tsync_delivery delivery)
{
        *k = (struct notify_case){
                .insns = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF) },
                .req = { .delivery = delivery },
                .o = { .init_path = "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init" },
        };
        k->prog = (struct tsync_program){ .insns = k->insns, .len = 2, .listener = listener };
        k->progs.progs[0] = &k->prog;
        k->progs.n = 1;
        k->o.progs = &k->progs;
}

/* A notify agent's case: its socket on the host, our hooks, one layer. */
static void agent_case_init(struct notify_case *k, enum tsync_delivery delivery)
{
        notify_case_init(k, TSYNC_LISTENER_AGENT, delivery);
        k->progs.agent_host_path = (char *)"/run/agent/host.sock";
        k->progs.agent_metadata = (char *)"m";
        k->req.layers[0] = "/etc/p/notify.json";
        k->req.n_layers = 1;
        k->o.hook_path = "/usr/bin/oci-seccomp-tsync";
}

/* unit_base_config with process.noNewPrivileges true (nothing lent to the init), or NULL. */
static struct tsync_json *nnp_config(void)
{
        struct tsync_json *c = unit_parse(unit_base_config);
        struct tsync_json *process = c ? tsync_json_get_mut(c, "process") : NULL;
        if (!process || tsync_json_set(process, "noNewPrivileges", tsync_json_new_bool(true)) < 0) {
                tsync_json_free(c);
                return NULL;
        }
        return c;
}

/* Whether the config's process.args hold name followed by value. */
static bool has_init_arg(const struct tsync_json *config, const char *name, const char *value)
{
        const struct tsync_json *args = tsync_json_get(tsync_json_get(config, "process"), "args");
        for (size_t i = 0; args && i + 1 < args->u.array.len; i++)
                if (strcmp(args->u.array.items[i]->u.string.ptr, name) == 0 &&
                    strcmp(args->u.array.items[i + 1]->u.string.ptr, value) == 0)
                        return true;
        return false;
}

/* Exec once: the init gets --exec-once ERRNO, and the plan's last filter file. */
static void test_rewrite_exec_once_argument(void)
{
        struct tsync_err err = { 0 };
        struct notify_case k;
        notify_case_init(&k, TSYNC_LISTENER_EXEC_ONCE, TSYNC_DELIVERY_ARGS);
        k.req.init.exec_once = 13;
        struct tsync_json *c = nnp_config();
        int r = c ? unit_rewrite(c, &k.req, NULL, &k.o, &err) : -EINVAL;
        tap_ok(r == 0 && has_init_arg(c, "--exec-once", "13"),
               "test_rewrite_gives_the_init_exec_once_and_its_errno (%s)", err.msg);
        tsync_json_free(c);
}

static const struct tsync_json *mount_at(const struct tsync_json *config, const char *destination)
{
        const struct tsync_json *mounts = tsync_json_get(config, "mounts");
        for (size_t i = 0; mounts && mounts->type == TSYNC_JSON_ARRAY && i < mounts->u.array.len; i++) {
                const struct tsync_json *d = tsync_json_get(mounts->u.array.items[i], "destination");
                if (d && d->type == TSYNC_JSON_STRING && strcmp(d->u.string.ptr, destination) == 0)
                        return mounts->u.array.items[i];
        }
        return NULL;
}

/* A notify agent: nothing of its host socket is mounted (issue 23), only the
 * relay's private tmpfs, and the init gets --relay; the undo takes both out
 * again. */
static void test_rewrite_agent_socket_mount(void)
{
        struct tsync_err err = { 0 };
        struct notify_case k;
        agent_case_init(&k, TSYNC_DELIVERY_FILES);
        struct tsync_json *c = nnp_config();
        int r = c ? 0 : -EINVAL;
        char *original = c ? unit_text(c) : NULL;
        r = r ?: unit_rewrite(c, &k.req, "/bundle/oci-seccomp-tsync", &k.o, &err);
        const struct tsync_json *m = r == 0 ? mount_at(c, TSYNC_CONTAINER_AGENT_DIR) : NULL;
        const struct tsync_json *type = tsync_json_get(m, "type");
        char *written = r == 0 ? unit_text(c) : NULL;
        tap_ok(m && type && strcmp(type->u.string.ptr, "tmpfs") == 0 && has(tsync_json_get(m, "options"), "nosuid") &&
                       has(tsync_json_get(m, "options"), "mode=0700") && written &&
                       !strstr(written, "\"source\":\"/run/agent/host.sock\"") &&
                       !strstr(written, "\"source\": \"/run/agent/host.sock\""),
               "test_rewrite_mounts_only_the_relays_tmpfs_never_the_agent_socket (%s)", err.msg);
        free(written);
        tap_ok(r == 0 && has_init_arg(c, "--relay", TSYNC_CONTAINER_RELAY),
               "test_rewrite_gives_the_init_the_relays_socket (%s)", err.msg);
        char *running = NULL;
        r = r ?: tsync_rewrite_undo(c, false, &running, &err);
        char *undone = c ? unit_text(c) : NULL;
        tap_ok(r == 0 && original && undone && !strstr(undone, "agent") && !strstr(undone, "relay") &&
                       !mount_at(c, TSYNC_CONTAINER_AGENT_DIR),
               "test_rewrite_undo_removes_the_relays_tmpfs_and_argument (%s)", err.msg);
        free(running);
        free(original);
        free(undone);
        tsync_json_free(c);

        k.progs.agent_host_path = (char *)"run/agent.sock";
        c = nnp_config();
        err.msg[0] = '\0';
        r = c ? unit_rewrite(c, &k.req, "/bundle/oci-seccomp-tsync", &k.o, &err) : -EINVAL;
        tap_ok(r == -EINVAL && strstr(err.msg, "not an absolute path"),
               "test_rewrite_refuses_a_relative_agent_socket (%s)", err.msg);
        tsync_json_free(c);

        k.progs.agent_host_path = (char *)"/run/agent/host.sock";
        k.req.delivery = TSYNC_DELIVERY_ARGS;
        k.o.hook_path = NULL;
        c = nnp_config();
        err.msg[0] = '\0';
        r = c ? unit_rewrite(c, &k.req, NULL, &k.o, &err) : -EINVAL;
        tap_ok(r == -EINVAL && strstr(err.msg, "our createRuntime hook starts, and this rewrite adds no hooks"),
               "test_rewrite_refuses_an_agent_without_our_hooks (%s)", err.msg);
        tsync_json_free(c);
}

/* The agent's state goes through a private tmpfs (owned by process.user) and
 * our createRuntime hook, with filters in the init's arguments too; the plan
 * records the listenerPath, and undo refuses a socket mount changed since. */
static void test_rewrite_agent_state_tmpfs(void)
{
        struct tsync_err err = { 0 };
        struct notify_case k;
        agent_case_init(&k, TSYNC_DELIVERY_ARGS);
        struct tsync_json *c = nnp_config();
        struct tsync_json *process = c ? tsync_json_get_mut(c, "process") : NULL;
        int r = process ? tsync_json_set(process, "user", unit_parse("{\"uid\": 1000, \"gid\": 100}")) : -EINVAL;
        r = r ?: unit_rewrite(c, &k.req, NULL, &k.o, &err);
        const struct tsync_json *m = r == 0 ? mount_at(c, TSYNC_CONTAINER_AGENT_DIR) : NULL;
        const struct tsync_json *opts = tsync_json_get(m, "options");
        tap_ok(m && strcmp(tsync_json_get(m, "type")->u.string.ptr, "tmpfs") == 0 && has(opts, "uid=1000") &&
                       has(opts, "gid=100") && has(opts, "mode=0700") && has(opts, "noexec") &&
                       has(opts, "size=" TSYNC_AGENT_TMPFS_SIZE),
               "test_rewrite_mounts_the_agents_private_tmpfs_for_process_user (%s)", err.msg);
        const struct tsync_json *rt = tsync_json_get(tsync_json_get(c, "hooks"), "createRuntime");
        tap_ok(rt && rt->type == TSYNC_JSON_ARRAY && rt->u.array.len == 1,
               "test_rewrite_adds_createruntime_for_an_agent_with_filters_in_arguments (%s)", err.msg);
        struct tsync_plan *plan = NULL;
        r = r ?: tsync_plan_from_config(c, &plan, &err);
        tap_ok(r == 0 && plan->listener_path && strcmp(plan->listener_path, "/run/agent/host.sock") == 0,
               "test_rewrite_records_the_listener_path_in_the_plan (%s)", err.msg);
        tsync_plan_free(plan);

        /* The relay's tmpfs edited after the rewrite. */
        struct tsync_json *mounts = c ? tsync_json_get_mut(c, "mounts") : NULL;
        for (size_t i = 0; mounts && i < mounts->u.array.len; i++)
                if (strcmp(tsync_json_get(mounts->u.array.items[i], "destination")->u.string.ptr,
                           TSYNC_CONTAINER_AGENT_DIR) == 0)
                        (void)tsync_json_set(mounts->u.array.items[i], "source", tsync_json_new_string("/etc"));
        char *running = NULL;
        err.msg[0] = '\0';
        r = c ? tsync_rewrite_undo(c, false, &running, &err) : -EINVAL;
        tap_ok(r == -EPERM && strstr(err.msg, "not what inject wrote"),
               "test_rewrite_undo_refuses_the_relays_tmpfs_changed_after_the_rewrite (%s)", err.msg);
        free(running);
        tsync_json_free(c);
}

int main(void)
{
        test_rewrite_layer_mode();
        test_rewrite_twice_does_not_wrap_twice();
        test_rewrite_hooks_to_the_view_hook();
        test_rewrite_without_hooks_removes_ours_only();
        test_rewrite_replace_moves_the_section();
        test_rewrite_refusals();
        test_rewrite_no_new_privs_lends_nothing();
        test_rewrite_without_hooks_refuses_lending();
        test_rewrite_refuses_a_forged_plan();
        test_rewrite_refuses_a_config_edited_after_inject();
        test_exec_view_round_trip();
        test_rewrite_errors_name_their_path();
        test_rewrite_filters_in_the_init_arguments();
        test_rewrite_exec_once_argument();
        test_rewrite_agent_socket_mount();
        test_rewrite_agent_state_tmpfs();
        return tap_done();
}
