/* oci-seccomp-tsync status --all: every container on the node (hook/node's
 * tsync_node_find), each judged as `status TARGET` judges one
 * (status_judge.c), one line each or one JSON array, and one exit status for
 * the node. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "node/node_conf.h"
#include "node/node_find.h"
#include "shared/cleanup.h"
#include "status_cli.h"
#include "util/json.h"
#include "util/json_build.h"

/* What one container counted for the summary line. */
enum tally { TALLY_PROTECTED, TALLY_NOT_ASKED, TALLY_SHORT, TALLY_UNKNOWN, TALLY_GONE, TALLY_COUNT };

/* How the container is named in lines: its engine's name, Kubernetes' with
 * its pod, else its id. */
char *node_display_name(const struct tsync_node_container *c)
{
        char *s = NULL;
        if (c->engine == TSYNC_NODE_KUBERNETES && c->pod && c->pod_namespace)
                return asprintf(&s, "%s/%s/%s", c->pod_namespace, c->pod, c->name ? c->name : c->id) < 0 ? NULL : s;
        return strdup(c->name ? c->name : c->id);
}

/* The node's policy and its layers compiled, to judge each container by. */
struct node_policy {
        const char *conf;
        struct tsync_node_policy policy;
        struct tsync_plan_programs progs;
};

static void node_policy_clear(struct node_policy *np)
{
        tsync_node_policy_clear(&np->policy);
        tsync_plan_programs_clear(&np->progs);
}

/* node.conf read and its layers compiled as lockdown compiles them (no
 * config: the same programs lockdown --all adds). 0, or -1 after saying why. */
static int node_policy_load(const struct status_all_opts *o, struct node_policy *np)
{
        struct tsync_err err = { 0 };
        np->conf = o->node_conf ? o->node_conf : TSYNC_NODE_CONF;
        if (tsync_node_policy_read(np->conf, &np->policy, &err) < 0) {
                frontend_errorf("node policy", "%s", err.msg);
                return -1;
        }
        if (!np->policy.n_layers)
                return 0;
        char cache_buf[PATH_MAX];
        const struct target *t = o->like;
        struct tsync_plan_paths paths = {
                .cache_dir = frontend_default_cache_dir(cache_buf, sizeof(cache_buf)),
                .profile_dirs = t->n_profile_dirs ? t->profile_dirs : frontend_default_profile_dirs,
                .n_profile_dirs = t->n_profile_dirs ? t->n_profile_dirs : frontend_n_default_profile_dirs,
        };
        struct tsync_plan plan = { .mode = TSYNC_MODE_LAYER,
                                   .layers_by_name = true,
                                   .layers = np->policy.layers,
                                   .n_layers = np->policy.n_layers };
        struct tsync_warnings w = { 0 };
        int r = tsync_plan_compile(&plan, &paths, NULL, &np->progs, &w, &err);
        frontend_warnings("node policy", &w);
        if (r < 0) {
                frontend_errorf("node policy", "%s: %s", np->conf, err.msg);
                return -1;
        }
        return 0;
}

const struct tsync_node_exclude *node_left_out(const struct tsync_node_policy *p, const struct tsync_node_container *c)
{
        const char *engine = tsync_node_engine_name(c->engine);
        if (c->engine == TSYNC_NODE_KUBERNETES && c->pod && c->pod_namespace) {
                _cleanup_free_ char *k8s = NULL;
                if (asprintf(&k8s, "%s/%s%s%s", c->pod_namespace, c->pod, c->name ? "/" : "", c->name ? c->name : "") <
                    0)
                        return NULL;
                return tsync_node_policy_excluded(p, engine, c->id, k8s);
        }
        return tsync_node_policy_excluded(p, engine, c->id, c->name);
}

/* One container judged and said; its tally. */
static enum tally one(const struct status_all_opts *o, const struct node_policy *np,
                      const struct tsync_node_container *c, struct tsync_json *arr, int *ret_r)
{
        _cleanup_free_ char *what = node_display_name(c);
        struct target t = *o->like;
        t.what = what ? what : c->id;
        t.kind = "node";
        t.runtime = c->format == TSYNC_NODE_FORMAT_RUNC ? "runc" : "crun";
        t.root = c->root;
        t.pid = c->pid;
        t.config_path = strdup(c->config);
        struct status_all_row row = { .c = c, .what = t.what, .t = &t };
        struct tsync_err err = { 0 };
        _cleanup_(status_result_clear) struct status_result res = { 0 };
        enum tally tally;
        if (!t.config_path) {
                (void)tsync_error(&err, ENOMEM, "out of memory");
                row.verdict = "unknown";
                row.error = err.msg;
                tally = TALLY_UNKNOWN;
        } else if (status_judge(&t, o->programs, &res, &err) < 0) {
                /* A container that stopped while it was read was running
                 * when found: said, not a failure. */
                bool gone = !tsync_node_container_runs(c);
                row.verdict = gone ? "gone" : "unknown";
                row.error = err.msg;
                tally = gone ? TALLY_GONE : TALLY_UNKNOWN;
                if (!gone)
                        frontend_error(t.what, &err);
        } else if (res.code != STATUS_EXIT_PROTECTED && res.code != STATUS_EXIT_NOT_ASKED &&
                   !tsync_node_container_runs(c)) {
                /* Its tasks died under the read: what is missing is no shortfall. */
                row.verdict = "gone";
                row.error = "it stopped while it was read";
                tally = TALLY_GONE;
        } else {
                row.res = &res;
                row.verdict = tsync_verdict_name(res.v);
                tally = res.code == STATUS_EXIT_PROTECTED   ? TALLY_PROTECTED
                        : res.code == STATUS_EXIT_NOT_ASKED ? TALLY_NOT_ASKED
                        : res.code == STATUS_EXIT_SHORT     ? TALLY_SHORT
                                                            : TALLY_UNKNOWN;
        }
        /* The node's layers, where the container was read: less than the
         * node asks is short, whatever the container asked itself. */
        struct status_all_node node = { .n = np->progs.n,
                                        .names = np->policy.layers,
                                        .conf = np->conf,
                                        .left_out = np->progs.n ? node_left_out(&np->policy, c) : NULL };
        if (row.res && node.n) {
                row.node = &node;
                /* A container that asks nothing of us had its programs left
                 * unread by status: the node's layers need them. */
                if (o->programs && !node.left_out && !res.st.programs.compared &&
                    tsync_status_compare_programs(&res.st) == -ENOMEM)
                        tally = TALLY_UNKNOWN;
                node.read = res.st.programs.compared;
                node.held = tsync_status_programs_held(&res.st, (const struct tsync_program *const *)np->progs.progs,
                                                       np->progs.n);
                if (!node.left_out && !node.read && tally != TALLY_SHORT)
                        tally = TALLY_UNKNOWN;
                else if (!node.left_out && node.held < node.n && tally != TALLY_UNKNOWN)
                        tally = TALLY_SHORT;
        }
        if (o->json && *ret_r == 0)
                *ret_r = status_all_json_append(arr, &row);
        else if (!o->json)
                status_print_all_row(&row);
        (void)fflush(stdout);
        if (row.res)
                status_print_shortfalls(t.what, &res);
        free(t.config_path);
        return tally;
}

int status_all(const struct status_all_opts *o)
{
        struct tsync_node_container *c = NULL;
        size_t n = 0;
        struct tsync_warnings w = { 0 };
        struct tsync_err err = { 0 };
        /* A policy that cannot be read is never "no policy". */
        _cleanup_(node_policy_clear) struct node_policy np = { 0 };
        if (node_policy_load(o, &np) < 0)
                return STATUS_EXIT_UNKNOWN;
        if (tsync_node_find(&o->find, &c, &n, &w, &err) < 0) {
                frontend_warnings("status --all", &w);
                frontend_error("status --all", &err);
                return STATUS_EXIT_UNKNOWN;
        }
        /* What was not believed is said first: the lines below are what was. */
        frontend_warnings("status --all", &w);
        _cleanup_json_ struct tsync_json *arr = o->json ? tsync_json_new_array() : NULL;
        int r = o->json && !arr ? -ENOMEM : 0;
        size_t tally[TALLY_COUNT] = { 0 };
        if (!o->json)
                status_print_all_header();
        for (size_t i = 0; i < n; i++)
                tally[one(o, &np, &c[i], arr, &r)]++;
        tsync_node_containers_free(c, n);
        if (o->json && r == 0) {
                _cleanup_free_ char *text = NULL;
                size_t len;
                r = tsync_json_write(arr, true, &text, &len, &err);
                if (r == 0)
                        printf("%s\n", text);
        }
        if (r < 0) {
                frontend_errorf("status --all", "writing JSON: %s", strerror(-r));
                return STATUS_EXIT_UNKNOWN;
        }
        if (!o->json)
                printf("\n%zu container%s: %zu protected, %zu not asking for us, %zu short or unprotected, %zu "
                       "unverified or unreadable, %zu gone while read\n",
                       n, n == 1 ? "" : "s", tally[TALLY_PROTECTED], tally[TALLY_NOT_ASKED], tally[TALLY_SHORT],
                       tally[TALLY_UNKNOWN], tally[TALLY_GONE]);
        return tally[TALLY_SHORT] || tally[TALLY_UNKNOWN] ? STATUS_EXIT_SHORT : STATUS_EXIT_PROTECTED;
}
