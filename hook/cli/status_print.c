/* status: its output. The table and the JSON document (schema/
 * status.schema.json) say the same; the shortfalls go to stderr (cmd_status.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "shared/cleanup.h"
#include "status_cli.h"
#include "util/json.h"
#include "util/json_build.h"
#include "util/quote.h"

static struct tsync_json *caps_json(const uint64_t *caps)
{
        struct tsync_json *o = tsync_json_new_object();
        for (size_t s = 0; o && s < TSYNC_CAPSET_COUNT; s++) {
                char hex[24];
                (void)snprintf(hex, sizeof(hex), "%016" PRIx64, caps[s]);
                if (tsync_json_set(o, tsync_capset(s)->json, tsync_json_new_string(hex)) < 0) {
                        tsync_json_free(o);
                        return NULL;
                }
        }
        return o;
}

static struct tsync_json *int_or_null(long v)
{
        if (v < 0) {
                struct tsync_json *n = calloc(1, sizeof(*n));
                if (n)
                        n->type = TSYNC_JSON_NULL;
                return n;
        }
        return tsync_json_new_u64((uint64_t)v);
}

/* Each set's failure is ENOMEM: checked once, at the end. */
static int set(struct tsync_json *o, const char *key, struct tsync_json *v, int *r)
{
        if (*r == 0)
                *r = tsync_json_set(o, key, v);
        else
                tsync_json_free(v);
        return *r;
}

/* seconds since the epoch as UTC, "YYYY-MM-DDTHH:MM:SSZ" */
static void utc(uint64_t t, char *buf, size_t size)
{
        time_t tt = (time_t)t;
        struct tm tm;
        if (!gmtime_r(&tt, &tm) || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
                (void)snprintf(buf, size, "@%" PRIu64, t);
}

static struct tsync_json *lockdown_json(const struct tsync_status *st, const struct tsync_lockdown_record *rec)
{
        int r = 0;
        struct tsync_json *o = tsync_json_new_object();
        struct tsync_json *layers = tsync_json_new_array();
        if (!o || !layers) {
                tsync_json_free(o);
                tsync_json_free(layers);
                return NULL;
        }
        set(o, "layers", layers, &r);
        for (size_t i = 0; r == 0 && i < rec->n; i++) {
                const struct tsync_lockdown_layer *l = &rec->layers[i];
                struct tsync_json *x = tsync_json_new_object();
                char when[32];
                utc(l->added, when, sizeof(when));
                r = x ? tsync_json_append(layers, x) : -ENOMEM;
                set(x, "name", tsync_json_new_string(l->name), &r);
                set(x, "sha256", tsync_json_new_string(l->sha256), &r);
                set(x, "added", tsync_json_new_string(when), &r);
        }
        set(o, "differ", int_or_null(st->programs.compared ? st->programs.added_differ : -1), &r);
        if (r < 0) {
                tsync_json_free(o);
                return NULL;
        }
        return o;
}

struct tsync_json *status_json(const struct target *t, const struct tsync_status *st,
                               const struct tsync_status_expect *e, const struct tsync_lockdown_record *rec,
                               const struct tsync_warnings *shortfalls, enum tsync_verdict v, int code)
{
        int r = 0;
        struct tsync_json *doc = tsync_json_new_object();
        if (!doc)
                return NULL;
        struct tsync_json *target = tsync_json_new_object();
        set(doc, "target", target, &r);
        if (r == 0) {
                set(target, "kind", tsync_json_new_string(t->kind), &r);
                set(target, "name", tsync_json_new_string(t->what), &r);
                set(target, "pid", tsync_json_new_u64((uint64_t)t->pid), &r);
                set(target, "config", t->config_path ? tsync_json_new_string(t->config_path) : int_or_null(-1), &r);
        }
        struct tsync_json *init = tsync_json_new_object();
        set(doc, "init", init, &r);
        if (r == 0) {
                set(init, "pid", tsync_json_new_u64((uint64_t)st->init_pid), &r);
                set(init, "exe", tsync_json_new_string(st->init_exe), &r);
                set(init, "ours", tsync_json_new_bool(st->init_ours), &r);
        }
        struct tsync_json *asked = tsync_json_new_object();
        set(doc, "asked", asked, &r);
        if (r == 0) {
                set(asked, "source", tsync_json_new_string(e->source), &r);
                set(asked, "asked", tsync_json_new_bool(e->asked), &r);
                set(asked, "plan", tsync_json_new_bool(e->plan), &r);
                set(asked, "in_place", tsync_json_new_bool(e->in_place), &r);
                set(asked, "runtime_filters", int_or_null(e->baseline_known ? (long)e->baseline : -1), &r);
                set(asked, "our_filters", tsync_json_new_u64(e->n_tsync), &r);
                set(asked, "record", tsync_json_new_bool(e->record), &r);
                set(asked, "exec_once", tsync_json_new_u64((uint64_t)e->exec_once), &r);
                set(asked, "no_new_privileges", tsync_json_new_bool(e->no_new_privs), &r);
                set(asked, "capabilities", e->have_caps ? caps_json(e->caps) : int_or_null(-1), &r);
        }
        struct tsync_json *progs = tsync_json_new_object();
        set(doc, "programs", progs, &r);
        if (r == 0) {
                set(progs, "compared", tsync_json_new_bool(st->programs.compared), &r);
                set(progs, "filters", tsync_json_new_u64(st->programs.n), &r);
                set(progs, "differ", int_or_null(st->programs.differ), &r);
                set(progs, "note", tsync_json_new_string(st->programs.what), &r);
                set(progs, "plan_compared", tsync_json_new_bool(st->programs.plan_compared), &r);
                set(progs, "drift", int_or_null(st->programs.drift), &r);
                set(progs, "plan_note", tsync_json_new_string(st->programs.drift_what), &r);
        }
        struct tsync_json *added = lockdown_json(st, rec);
        if (!added && r == 0)
                r = -ENOMEM;
        set(doc, "lockdown", added, &r);
        struct tsync_json *tasks = tsync_json_new_array();
        set(doc, "tasks", tasks, &r);
        for (size_t i = 0; r == 0 && i < st->n; i++) {
                const struct tsync_status_task *k = &st->tasks[i];
                struct tsync_json *o = tsync_json_new_object();
                r = o ? tsync_json_append(tasks, o) : -ENOMEM;
                set(o, "pid", tsync_json_new_u64((uint64_t)k->pid), &r);
                set(o, "tid", tsync_json_new_u64((uint64_t)k->tid), &r);
                set(o, "ns_pid", int_or_null(k->ns_pid), &r);
                set(o, "comm", tsync_json_new_string(k->comm), &r);
                set(o, "role", tsync_json_new_string(tsync_status_role_name(k->role)), &r);
                set(o, "seccomp", tsync_json_new_u64((uint64_t)k->seccomp), &r);
                set(o, "filters", int_or_null(k->filters), &r);
                set(o, "expected", int_or_null(k->expected), &r);
                set(o, "no_new_privs", tsync_json_new_bool(k->no_new_privs == 1), &r);
                set(o, "capabilities", caps_json(k->caps), &r);
                set(o, "dead", tsync_json_new_bool(k->dead), &r);
                set(o, "short", tsync_json_new_bool(k->short_of), &r);
                set(o, "unverified", tsync_json_new_bool(k->unverified), &r);
                static const char *const chains[] = { [TSYNC_CHAIN_NOT_READ] = "not-read",
                                                      [TSYNC_CHAIN_READ] = "read",
                                                      [TSYNC_CHAIN_FAILED] = "failed" };
                set(o, "programs", tsync_json_new_string(chains[k->chain]), &r);
                set(o, "matched", int_or_null(k->chain == TSYNC_CHAIN_READ ? k->matched : -1), &r);
                if (k->chain == TSYNC_CHAIN_FAILED)
                        set(o, "why", tsync_json_new_string(k->why), &r);
                set(o, "io_uring_fd", int_or_null(k->io_uring_fd), &r);
        }
        struct tsync_json *lines = tsync_json_new_array();
        set(doc, "shortfalls", lines, &r);
        for (size_t i = 0; r == 0 && i < shortfalls->len; i++)
                r = tsync_json_append(lines, tsync_json_new_string(shortfalls->msgs[i]));
        set(doc, "verdict", tsync_json_new_string(tsync_verdict_name(v)), &r);
        set(doc, "exit", tsync_json_new_u64((uint64_t)code), &r);
        if (r < 0) {
                tsync_json_free(doc);
                return NULL;
        }
        return doc;
}

int status_print_json(const struct target *t, const struct tsync_status *st, const struct tsync_status_expect *e,
                      const struct tsync_lockdown_record *rec, const struct tsync_warnings *shortfalls,
                      enum tsync_verdict v, int code)
{
        _cleanup_json_ struct tsync_json *doc = status_json(t, st, e, rec, shortfalls, v, code);
        if (!doc)
                return -ENOMEM;
        int r;
        _cleanup_free_ char *text = NULL;
        size_t len;
        struct tsync_err err = { 0 };
        r = tsync_json_write(doc, true, &text, &len, &err);
        if (r < 0)
                return r;
        printf("%s\n", text);
        return 0;
}

void status_print_text(const struct target *t, const struct tsync_status *st, const struct tsync_status_expect *e,
                       const struct tsync_lockdown_record *rec, enum tsync_verdict v)
{
        printf("container: %s (%s%s%s, pid %d)\n", t->what, t->kind, t->runtime ? " " : "",
               t->runtime ? t->runtime : "", (int)t->pid);
        if (t->config_shown)
                printf("config:    %s (read through %s)\n", t->config_shown, t->config_path);
        else
                printf("config:    %s\n", t->config_path ? t->config_path : "(none: what our init was told)");
        /* PID 1's exe path and every comm are the container's bytes. */
        char q[TSYNC_QUOTED_MAX(sizeof(st->init_exe)) + 1];
        (void)tsync_quote(q, sizeof(q), st->init_exe, strlen(st->init_exe));
        printf("PID 1:     pid %d, %s%s\n", (int)st->init_pid, st->init_exe[0] ? q : "(exe unreadable)",
               st->init_ours ? " (oci-seccomp-tsync's init, by device and inode)" : "");
        if (e->asked && (e->plan || st->init_ours)) {
                printf("asked:     from the %s: ", e->source);
                if (e->baseline_known)
                        printf("%u runtime filter + ", e->baseline);
                printf("%u of ours on every thread%s%s", e->n_tsync, e->record ? ", the recording on the workload" : "",
                       e->in_place ? ", the workload as PID 1" : "");
                if (e->exec_once)
                        printf(", exec once (errno %d)", e->exec_once);
                if (e->no_new_privs)
                        printf(", noNewPrivileges");
                printf("%s\n", e->have_caps ? ", the config's capabilities" : "");
                /* Layers only take away: without the runtime's own profile under
                 * them, everything they do not name is allowed. */
                if (e->baseline_known && e->baseline == 0 && !e->replace)
                        printf("baseline:  none: the config has no linux.seccomp, so the layers are all there is "
                               "(give the runtime its profile: ctr run --seccomp; no seccomp=unconfined)\n");
        } else if (e->asked) {
                (void)tsync_quote(q, sizeof(q), e->asked_by ? e->asked_by : "?",
                                  strlen(e->asked_by ? e->asked_by : "?"));
                printf("asked:     by annotations.%s%s, but the config has no plan\n", q,
                       e->asked_by_unknown ? " (not a key of ours: misspelt?)" : "");
        } else if (rec->n) {
                printf("asked:     only the layers lockdown added\n");
        } else {
                printf("asked:     nothing of oci-seccomp-tsync\n");
        }
        if (st->programs.compared && !st->init_ours)
                printf("programs:  read (PID 1 runs in place of our init: no filter files of its own)\n");
        else if (st->programs.compared && st->programs.files_failed)
                printf("programs:  read; PID 1's filter files were not (%s)\n",
                       (tsync_quote(q, sizeof(q), st->programs.what, strlen(st->programs.what)), q));
        else if (st->programs.compared && st->programs.differ < 0)
                if (st->programs.n == 1)
                        printf("programs:  PID 1's filter from us is the program its filter file holds\n");
                else
                        printf("programs:  PID 1's %zu filters from us are the programs its filter files hold\n",
                               st->programs.n);
        else if (st->programs.compared)
                printf("programs:  PID 1's filter %d (%s) differs from its file\n", st->programs.differ,
                       (tsync_quote(q, sizeof(q), st->programs.what, strlen(st->programs.what)), q));
        else
                printf("programs:  not compared (%s)\n", st->programs.what);
        if (st->programs.plan_compared && st->programs.drift < 0)
                printf("plan:      they are what the plan compiles to now\n");
        else if (st->programs.plan_compared)
                printf("plan:      filter %d (%s) is not what the plan compiles to now\n", st->programs.drift,
                       st->programs.drift_what);
        else if (st->programs.drift_what[0])
                printf("plan:      not compared (%s)\n", st->programs.drift_what);
        if (geteuid() != 0)
                printf("lockdown:  not read (its records are root's)\n");
        for (size_t i = 0; i < rec->n; i++) {
                char when[32];
                utc(rec->layers[i].added, when, sizeof(when));
                printf("lockdown:  %s (sha256 %.16s), added %s\n", rec->layers[i].name, rec->layers[i].sha256, when);
        }
        if (rec->n && st->programs.compared && st->programs.added_differ < 0)
                printf("lockdown:  %s\n", rec->n == 1 ? "PID 1's newest program is this layer"
                                                      : "PID 1's newest programs are these layers, in order");
        else if (rec->n && st->programs.compared)
                printf("lockdown:  PID 1's program for layer %d is not the one the record names\n",
                       st->programs.added_differ);
        printf("\n%7s %7s %6s  %-16s %-11s %3s %7s %5s %3s  %-16s %s\n", "PID", "TID", "NSPID", "COMM", "ROLE", "SEC",
               "FILTERS", "ASKED", "NNP", "CAPEFF", "");
        for (size_t i = 0; i < st->n; i++) {
                const struct tsync_status_task *k = &st->tasks[i];
                char filters[16], asked[16], comm[TSYNC_QUOTED_MAX(sizeof(k->comm)) + 1];
                (void)tsync_quote(comm, sizeof(comm), k->comm, strlen(k->comm));
                (void)snprintf(filters, sizeof(filters), "%d", k->filters);
                (void)snprintf(asked, sizeof(asked), "%d", k->expected);
                printf("%7d %7d %6d  %-16s %-11s %3d %7s %5s %3d  %016" PRIx64 " %s\n", (int)k->pid, (int)k->tid,
                       (int)k->ns_pid, comm, tsync_status_role_name(k->role), k->seccomp,
                       k->filters < 0 ? "?" : filters, k->expected < 0 ? "-" : asked, k->no_new_privs,
                       k->caps[TSYNC_CAPSET_EFFECTIVE],
                       k->short_of     ? "SHORT"
                       : k->unverified ? "UNVERIFIED"
                       : k->dead       ? "dead"
                                       : "");
        }
        static const char *const said[] = {
                [TSYNC_VERDICT_PROTECTED] = "protected: every task carries what was asked",
                [TSYNC_VERDICT_SHORT] = "SHORT: some tasks carry less than was asked (see the lines on stderr)",
                [TSYNC_VERDICT_UNPROTECTED] = "UNPROTECTED: oci-seccomp-tsync was asked for, but its init never ran",
                [TSYNC_VERDICT_NOT_ASKED] = "not asked: the container asks nothing of oci-seccomp-tsync",
                [TSYNC_VERDICT_UNVERIFIED] = "UNVERIFIED: the counts agree, but some tasks' programs were not read",
        };
        printf("\nverdict:   %s\n", said[v]);
}

void status_print_shortfalls(const char *what, const struct status_result *res)
{
        for (size_t i = 0; i < res->shortfalls.len; i++)
                fprintf(stderr, "%s: %s: %s%s\n", PROGRAM, what,
                        res->v == TSYNC_VERDICT_UNPROTECTED ? "UNPROTECTED: " : "", res->shortfalls.msgs[i]);
}

void status_print_all_header(void)
{
        printf("%-10s %-7s %8s  %-4s  %-11s  %s\n", "ENGINE", "STATE", "PID", "INIT", "VERDICT", "CONTAINER");
}

void status_print_all_row(const struct status_all_row *row)
{
        const struct tsync_node_container *c = row->c;
        /* Names and ids are what the engines' and runtimes' files say: quoted. */
        char what[TSYNC_QUOTED_MAX(512) + 1], id[TSYNC_QUOTED_MAX(64) + 1] = "";
        (void)tsync_quote(what, sizeof(what), row->what, strlen(row->what));
        if (strcmp(row->what, c->id) != 0)
                (void)tsync_quote(id, sizeof(id), c->id, strnlen(c->id, 12));
        printf("%-10s %-7s %8d  %-4s  %-11s  %s%s%s%s\n", tsync_node_engine_name(c->engine),
               tsync_node_state_name(c->state), (int)c->pid,
               !row->res                ? "?"
               : row->res->st.init_ours ? "ours"
                                        : "-",
               row->verdict, what, id[0] ? " (" : "", id, id[0] ? ")" : "");
        /* A ring's requests are not system calls: no layer reaches them, and
         * only a restart ends the ring (docs/lockdown.md). */
        for (size_t i = 0; row->res && i < row->res->st.n; i++) {
                const struct tsync_status_task *k = &row->res->st.tasks[i];
                if (k->pid != k->tid || k->io_uring_fd < 0 || k->dead)
                        continue;
                char comm[TSYNC_QUOTED_MAX(sizeof(k->comm)) + 1];
                (void)tsync_quote(comm, sizeof(comm), k->comm, strlen(k->comm));
                printf("    io_uring: pid %d (%s) holds a ring (fd %d): its requests pass no seccomp filter; restart "
                       "the container to cover it fully\n",
                       (int)k->pid, comm, k->io_uring_fd);
        }
        /* The node's layers, under the line: the reason is root's text (node.conf), shown as written. */
        const struct status_all_node *n = row->node;
        if (!n)
                return;
        if (n->left_out)
                printf("    the node's layers: left out by %s, line %u: %s\n", n->conf, n->left_out->line,
                       n->left_out->reason);
        else if (!n->read)
                printf("    the node's layers: not verified (its programs were not read)\n");
        else if (n->held < n->n)
                printf("    the node's layers: MISSING: it holds %zu of the %zu (%s): oci-seccomp-tsync lockdown adds "
                       "them\n",
                       n->held, n->n, n->conf);
        else
                printf("    the node's layers: carried (%zu)\n", n->n);
}

/* The node's layers against one container, or null when no policy names any. */
static struct tsync_json *node_json(const struct status_all_node *n)
{
        if (!n)
                return int_or_null(-1);
        struct tsync_json *o = tsync_json_new_object(), *names = tsync_json_new_array(), *left = NULL;
        int r = o && names ? 0 : -ENOMEM;
        for (size_t i = 0; r == 0 && i < n->n; i++)
                r = tsync_json_append(names, tsync_json_new_string(n->names[i]));
        if (n->left_out) {
                left = tsync_json_new_object();
                r = r == 0 && left ? 0 : -ENOMEM;
                set(left, "line", tsync_json_new_u64(n->left_out->line), &r);
                set(left, "reason", tsync_json_new_string(n->left_out->reason), &r);
        }
        set(o, "conf", tsync_json_new_string(n->conf), &r);
        set(o, "layers", names, &r);
        set(o, "read", tsync_json_new_bool(n->read), &r);
        set(o, "held", tsync_json_new_u64(n->held), &r);
        set(o, "left_out", left ? left : int_or_null(-1), &r);
        if (r < 0) {
                tsync_json_free(o);
                return NULL;
        }
        return o;
}

static struct tsync_json *string_or_null(const char *s)
{
        return s ? tsync_json_new_string(s) : int_or_null(-1);
}

int status_all_json_append(struct tsync_json *arr, const struct status_all_row *row)
{
        const struct tsync_node_container *c = row->c;
        struct tsync_json *o = tsync_json_new_object();
        int r = o ? tsync_json_append(arr, o) : -ENOMEM;
        set(o, "engine", tsync_json_new_string(tsync_node_engine_name(c->engine)), &r);
        set(o, "id", tsync_json_new_string(c->id), &r);
        set(o, "name", string_or_null(c->name), &r);
        set(o, "namespace", string_or_null(c->namespace), &r);
        set(o, "pod", string_or_null(c->pod), &r);
        set(o, "pod_namespace", string_or_null(c->pod_namespace), &r);
        set(o, "runtime", tsync_json_new_string(c->format == TSYNC_NODE_FORMAT_RUNC ? "runc" : "crun"), &r);
        set(o, "root", tsync_json_new_string(c->root), &r);
        set(o, "owner", tsync_json_new_u64((uint64_t)c->owner), &r);
        set(o, "state", tsync_json_new_string(tsync_node_state_name(c->state)), &r);
        set(o, "pid", tsync_json_new_u64((uint64_t)c->pid), &r);
        set(o, "start_time", tsync_json_new_u64(c->start_time), &r);
        set(o, "bundle", tsync_json_new_string(c->bundle), &r);
        set(o, "config", tsync_json_new_string(c->config), &r);
        if (row->res)
                set(o, "init_ours", tsync_json_new_bool(row->res->st.init_ours), &r);
        else
                set(o, "init_ours", int_or_null(-1), &r);
        set(o, "verdict", tsync_json_new_string(row->verdict), &r);
        set(o, "error", string_or_null(row->error), &r);
        struct tsync_json *doc = NULL;
        if (row->res && r == 0) {
                const struct status_result *res = row->res;
                doc = status_json(row->t, &res->st, &res->e, &res->rec, &res->shortfalls, res->v, res->code);
                if (!doc)
                        r = -ENOMEM;
        }
        set(o, "status", row->res ? doc : int_or_null(-1), &r);
        struct tsync_json *node = r == 0 ? node_json(row->node) : NULL;
        if (r == 0 && !node)
                r = -ENOMEM;
        set(o, "node", node, &r);
        return r;
}
