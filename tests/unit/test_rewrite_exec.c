/* An exec'd process of a container of ours (tsync_rewrite_exec): the init's
 * arguments with the container's filters and the process's own privileges,
 * the container's original sets for a process that names none, exec once,
 * and the refusals (a config edited after the rewrite, a bad process). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/exec_view.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/cleanup.h"
#include "shared/filterfile.h"
#include "tap.h"
#include "unit.h"
#include "util/json.h"
#include "util/json_build.h"

static const char *base_config =
        "{\"ociVersion\": \"1.0.2\","
        " \"process\": {\"args\": [\"sleep\", \"60\"], \"user\": {\"uid\": 0, \"gid\": 0},"
        "   \"noNewPrivileges\": false,"
        "   \"capabilities\": {\"bounding\": [\"CAP_CHOWN\", \"CAP_KILL\"], \"effective\": [\"CAP_KILL\"],"
        "                      \"permitted\": [\"CAP_KILL\"], \"inheritable\": [], \"ambient\": []}},"
        " \"root\": {\"path\": \"rootfs\"},"
        " \"linux\": {\"seccomp\": {\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": []}}}";

/* The container's config as inject writes it: two layers in filter files,
 * exec once when asked. */
static struct tsync_json *container(int exec_once)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = unit_parse(base_config);
        struct tsync_request req = { .n_layers = 2, .init = { .exec_once = exec_once } };
        req.layers[0] = "/etc/p/a.json";
        req.layers[1] = "/etc/p/b.json";
        struct tsync_rewrite_opts o = { .init_path = "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init",
                                        .hook_path = "/usr/bin/oci-seccomp-tsync" };
        if (!c || unit_rewrite(c, &req, "/bundle/oci-seccomp-tsync", &o, &err) < 0) {
                tap_diag("container: %s", err.msg);
                tsync_json_free(c);
                return NULL;
        }
        return c;
}

static char *exec_args(const char *process_text, const struct tsync_json *config, int *ret_r,
                       struct tsync_json **ret_process, struct tsync_err *err)
{
        struct tsync_json *p = unit_parse(process_text);
        *ret_r = p && config ? tsync_rewrite_exec(p, config, err) : -EINVAL;
        char *t = *ret_r >= 0 ? unit_text(tsync_json_get(p, "args")) : NULL;
        if (ret_process)
                *ret_process = p;
        else
                tsync_json_free(p);
        return t;
}

static void test_rewrite_exec_not_ours_is_untouched(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = unit_parse(base_config);
        int r;
        char *t = exec_args("{\"args\": [\"ls\"]}", c, &r, NULL, &err);
        tap_ok(r == 0 && t && strcmp(t, "[\"ls\"]") == 0, "test_rewrite_exec_of_a_container_not_ours_changes_nothing");
        free(t);
        tsync_json_free(c);
}

static void test_rewrite_exec_in_place_with_its_own_privileges(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = container(0);
        int r;
        char *t = exec_args("{\"args\": [\"ls\", \"-l\"], \"noNewPrivileges\": true,"
                            " \"capabilities\": {\"bounding\": [\"CAP_KILL\"], \"effective\": [],"
                            "   \"permitted\": [], \"inheritable\": [], \"ambient\": []}}",
                            c, &r, NULL, &err);
        tap_ok(r == 1 && t &&
                       strcmp(t, "[\"/.oci-seccomp-tsync/init\",\"--exec\",\"--filter\","
                                 "\"/.oci-seccomp-tsync/filters/00.bpf\",\"--filter\","
                                 "\"/.oci-seccomp-tsync/filters/01.bpf\",\"--bounding\",\"CAP_KILL\",\"--effective\","
                                 "\"none\",\"--inheritable\",\"none\",\"--permitted\",\"none\",\"--ambient\",\"none\","
                                 "\"--no-new-privs\",\"--\",\"ls\",\"-l\"]") == 0,
               "test_rewrite_exec_runs_the_init_in_place_with_the_process_privileges (%s%s)", t ? t : "", err.msg);
        free(t);

        struct tsync_json *p = NULL;
        t = exec_args("{\"args\": [\"id\"], \"capabilities\": {\"bounding\": [\"CAP_KILL\"]}}", c, &r, &p, &err);
        const struct tsync_json *caps = tsync_json_get(p, "capabilities");
        bool lent = r == 1;
        const char *sets[] = { "bounding", "effective", "permitted", "inheritable", "ambient" };
        for (size_t i = 0; i < 5; i++) {
                char *s = unit_text(tsync_json_get(caps, sets[i]));
                lent = lent && s && strstr(s, "CAP_SYS_ADMIN") && strstr(s, "CAP_SETPCAP");
                free(s);
        }
        tap_ok(lent && t && !strstr(t, "--no-new-privs") && strstr(t, "\"--bounding\",\"CAP_KILL\","),
               "test_rewrite_exec_lends_the_init_what_it_needs_without_no_new_privs (%s)", t ? t : err.msg);
        free(t);
        tsync_json_free(p);

        t = exec_args("{\"args\": [\"id\"]}", c, &r, &p, &err);
        tap_ok(r == 1 && t && strstr(t, "\"--bounding\",\"CAP_CHOWN,CAP_KILL\",\"--effective\",\"CAP_KILL\""),
               "test_rewrite_exec_without_capabilities_gets_the_containers_original_sets (%s)", t ? t : err.msg);
        free(t);
        tsync_json_free(p);
        tsync_json_free(c);
}

static void test_rewrite_exec_once_supervises(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = container(13);
        int r;
        char *t = exec_args("{\"args\": [\"sh\"], \"noNewPrivileges\": true}", c, &r, NULL, &err);
        tap_ok(r == 1 && t && !strstr(t, "\"--exec\"") && strstr(t, "\"--exec-once\",\"13\"") &&
                       strstr(t, "filters/02.bpf"),
               "test_rewrite_exec_once_makes_the_init_supervise_with_the_exec_once_filter (%s)", t ? t : err.msg);
        free(t);
        tsync_json_free(c);
}

static void test_rewrite_exec_accepts_the_exec_view_of_a_running_container(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = container(0);
        struct tsync_plan *plan = NULL;
        int r = c ? tsync_plan_from_config(c, &plan, &err) : -1;
        r = r ?: tsync_exec_view_restore(c, plan, "ctr-a", &err);
        char *t = r == 0 ? exec_args("{\"args\": [\"id\"]}", c, &r, NULL, &err) : NULL;
        tap_ok(r == 1 && t && strstr(t, "--exec"), "test_rewrite_exec_accepts_the_exec_view (%s)", err.msg);
        free(t);
        tsync_plan_free(plan);
        tsync_json_free(c);
}

static void test_rewrite_exec_refusals(void)
{
        static const struct {
                const char *name, *edit_path, *process, *want;
        } cases[] = {
                { "config_edited_after_the_rewrite", "process.args", "{\"args\": [\"id\"]}",
                  "the container's config: process.args[18]: not what inject wrote from the recorded plan" },
                { "process_without_args", NULL, "{\"cwd\": \"/\"}", "the exec'd process: process.args: missing" },
                { "process_args_empty", NULL, "{\"args\": []}", "the exec'd process: process.args: empty" },
                { "process_caps_not_an_object", NULL, "{\"args\": [\"id\"], \"capabilities\": []}",
                  "the exec'd process: process.capabilities: expected object" },
                { "process_not_an_object", NULL, "[\"id\"]", "the exec'd process: process: expected object" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct tsync_err err = { 0 };
                struct tsync_json *c = container(0);
                if (c && cases[i].edit_path) {
                        struct tsync_json *args = tsync_json_get_mut(tsync_json_get_mut(c, "process"), "args");
                        (void)tsync_json_append(args, tsync_json_new_string("extra"));
                }
                int r;
                char *t = exec_args(cases[i].process, c, &r, NULL, &err);
                tap_ok(r < 0 && strstr(err.msg, cases[i].want), "test_rewrite_exec_refuses_%s (%s)", cases[i].name,
                       err.msg);
                free(t);
                tsync_json_free(c);
        }
}

/* A notify agent's layer: the exec'd process could not reach the agent (its
 * state is the container init's alone), so the exec is refused, never run
 * without the layer. */
static void test_rewrite_exec_refuses_a_notify_agent(void)
{
        struct tsync_err err = { 0 };
        struct sock_filter insns[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
                                       BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF) };
        struct tsync_program a = { .insns = insns, .len = 2, .listener = TSYNC_LISTENER_AGENT };
        struct tsync_plan_programs progs = { .progs = { &a }, .n = 1, .agent_host_path = (char *)"/run/agent.sock" };
        struct tsync_request req = { .layers = { "/etc/p/notify.json" },
                                     .n_layers = 1,
                                     .delivery = TSYNC_DELIVERY_FILES };
        struct tsync_rewrite_opts o = { .init_path = "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init",
                                        .hook_path = "/usr/bin/oci-seccomp-tsync",
                                        .progs = &progs };
        struct tsync_json *c = unit_parse(base_config);
        int r = c ? unit_rewrite(c, &req, "/bundle/oci-seccomp-tsync", &o, &err) : -EINVAL;
        char *t = r == 0 ? exec_args("{\"args\": [\"id\"]}", c, &r, NULL, &err) : NULL;
        tap_ok(r == -EOPNOTSUPP && strstr(err.msg, "notify agent (listenerPath /run/agent.sock)"),
               "test_rewrite_exec_refuses_a_notify_agent (%s)", err.msg);
        free(t);
        tsync_json_free(c);
}

int main(void)
{
        test_rewrite_exec_not_ours_is_untouched();
        test_rewrite_exec_in_place_with_its_own_privileges();
        test_rewrite_exec_once_supervises();
        test_rewrite_exec_accepts_the_exec_view_of_a_running_container();
        test_rewrite_exec_refusals();
        test_rewrite_exec_refuses_a_notify_agent();
        return tap_done();
}
