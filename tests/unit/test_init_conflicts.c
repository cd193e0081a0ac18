/* The host refuses exactly what the init would (issue 36). For every
 * combination of the init's options, the host's writer
 * (tsync_init_args_write) succeeds exactly when the init's parser
 * (tsync_init_args_parse, which init/options.c calls) takes the same command
 * line followed by "-- CMD", and a refusal is the same line from both, naming
 * the same pair. Then the host's own path from a plan to those options
 * (rewrite.c, tsync_rewrite_check_init_args, which tsync_plan_prepare calls)
 * over every plan the front ends can make, against the init's parser again.
 *
 * No front end writes --verify, --record, --pgroup or --allow-nnp: a plan
 * carries exec and exec once alone (struct tsync_init_opts), and a recording
 * reaches the init through --relay. So `--exec-once N --verify probe` cannot
 * come from inject, precreate or the runtime wrapper; it is tested through the
 * writer directly, and the exhaustive walk takes those options too, so that a
 * front end that learns to write them meets the same table. The refusal a
 * front end can reach, --exec-once beside a notify agent's --relay, is
 * test_prepare.c's row test_prepare_refuses_exec_once_beside_a_notify_agents_layer.
 *
 * The writer and the parser walk one table, so what this holds them to is
 * their own work around it: the writer's value checks, its order and words,
 * and the host's mapping from a plan to options. That the init refuses
 * nothing more on its command line alone after parsing is kept by the table's
 * rows and by test_failclosed.sh, which runs the init itself on each of them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/error.h"
#include "shared/init_args.h"
#include "tap.h"
#include "unit.h"

#define MAX_ARGS 128

/* A command line: its words point into text (what the writer emits is copied there). */
struct line {
        char *v[MAX_ARGS + 1];
        int n;
        char text[16384];
        size_t used;
};

static int add(void *ctx, const char *arg)
{
        struct line *l = ctx;
        size_t len = strlen(arg) + 1;
        if (l->n == MAX_ARGS || l->used + len > sizeof(l->text))
                return -E2BIG;
        l->v[l->n] = memcpy(l->text + l->used, arg, len);
        l->used += len;
        l->v[++l->n] = NULL;
        return 0;
}

static bool same_words(const struct line *a, const struct line *b, int n)
{
        for (int i = 0; i < n; i++)
                if (strcmp(a->v[i], b->v[i]) != 0)
                        return false;
        return true;
}

/* What the host would write for a, built here by hand in the table's order
 * (the order the writer keeps, test_init_args.c), every value as given, valid
 * or not: the init's view of a command line the writer may refuse to write. */
static void by_hand(const struct tsync_init_args *a, struct line *l)
{
        char e[16];
        l->n = 0;
        l->used = 0;
        (void)add(l, "seccomp-tsync-init");
        if (a->exec)
                (void)add(l, "--exec");
        if (a->exec_once) {
                (void)snprintf(e, sizeof(e), "%d", a->exec_once);
                (void)add(l, "--exec-once");
                (void)add(l, e);
        }
        for (size_t i = 0; i < a->n_filters; i++) {
                (void)add(l, tsync_init_opt(a->filters[i].opt)->name);
                (void)add(l, a->filters[i].text);
        }
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++) {
                if (!a->caps[s])
                        continue;
                (void)add(l, tsync_capset(s)->option);
                (void)add(l, a->caps[s]);
        }
        const struct {
                bool given;
                const char *name, *value;
        } rest[] = {
                { a->no_new_privs, "--no-new-privs", NULL },  { a->relay != NULL, "--relay", a->relay },
                { a->record != NULL, "--record", a->record }, { a->pgroup, "--pgroup", NULL },
                { a->verify != NULL, "--verify", a->verify }, { a->allow_nnp, "--allow-nnp", NULL },
        };
        for (size_t i = 0; i < ARRAY_SIZE(rest); i++) {
                if (!rest[i].given)
                        continue;
                (void)add(l, rest[i].name);
                if (rest[i].value)
                        (void)add(l, rest[i].value);
        }
}

/* The init's parser on l followed by "-- true"; l keeps its options only. */
static int init_parse(struct line *l, struct tsync_init_args *ret, struct tsync_err *err)
{
        int n = l->n;
        size_t used = l->used;
        (void)add(l, "--");
        (void)add(l, "true");
        int r = tsync_init_args_parse(l->n, l->v, 0, ret, err);
        l->n = n;
        l->v[n] = NULL;
        l->used = used;
        return r;
}

/* The table's pairs, "<row> cannot be combined with <with>[ <value>]", and how often each was refused. */
static int pair_index(const char *msg)
{
        int k = 0;
        for (int o = 0; o < TSYNC_INIT_OPT_COUNT; o++) {
                const struct tsync_init_opt_def *d = tsync_init_opt(o);
                for (const struct tsync_init_conflict *c = d->conflicts; c->why; c++, k++) {
                        char want[256];
                        (void)snprintf(want, sizeof(want), "%s cannot be combined with %s%s%s: %s", d->name,
                                       tsync_init_opt(c->with)->name, c->value ? " " : "", c->value ? c->value : "",
                                       c->why);
                        if (strcmp(msg, want) == 0)
                                return k;
                }
        }
        return -1;
}

#define MAX_PAIRS                                                                                                      \
        (TSYNC_INIT_OPT_COUNT *                                                                                        \
         (sizeof(((struct tsync_init_opt_def){ 0 }).conflicts) / sizeof(struct tsync_init_conflict)))

/* Every combination: exec; exec once off, at both ends of its range and past
 * it; 0 to 16 filters (the most the record holds; 17 below, through the
 * host) of both kinds; each capability set given or not; the flags; --relay;
 * --record absent, named or empty; --verify absent, each choice, or none of
 * them. */
static void test_init_conflicts_the_writer_refuses_exactly_what_the_init_refuses(void)
{
        static const int once[] = { 0, 1, 4095, 4096 };
        static const char *const records[] = { NULL, "/rec", "" };
        static const char *const verify[] = { NULL, "auto", "proc", "probe", "sometimes" };
        static struct line hand, written, again;
        unsigned long combos = 0, taken = 0, refused = 0, bad = 0;
        int seen[MAX_PAIRS] = { 0 };
        char why[768] = "";

        /* One number a combination, its digits the choices: ten yes-or-no bits
         * (exec, noNewPrivileges, --relay, --pgroup, --allow-nnp, five sets),
         * then exec once, the number of filters, --record and --verify. */
        const unsigned long n_once = ARRAY_SIZE(once), n_filters = TSYNC_INIT_MAX_FILTERS + 1,
                            n_records = ARRAY_SIZE(records), n_verify = ARRAY_SIZE(verify);
        const unsigned long total = (1ul << 10) * n_once * n_filters * n_records * n_verify;
        for (unsigned long x = 0; x < total; x++) {
                unsigned long d = x;
                unsigned bits = (unsigned)(d & 1023);
                d >>= 10;
                int e = once[d % n_once];
                d /= n_once;
                size_t nf = d % n_filters;
                d /= n_filters;
                const char *rec = records[d % n_records];
                d /= n_records;
                struct tsync_init_args in = {
                        .exec = bits & 1,
                        .no_new_privs = bits & 2,
                        .relay = bits & 4 ? "/relay" : NULL,
                        .pgroup = bits & 8,
                        .allow_nnp = bits & 16,
                        .exec_once = e,
                        .record = rec,
                        .verify = verify[d % n_verify],
                };
                for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                        if (bits & (32u << s))
                                in.caps[s] = s % 2 ? "none" : "CAP_KILL";
                for (size_t i = 0; i < nf; i++)
                        in.filters[in.n_filters++] = (struct tsync_init_filter_arg){
                                i % 3 == 1 ? TSYNC_INIT_OPT_FILTER_DATA : TSYNC_INIT_OPT_FILTER, "/f"
                        };
                combos++;
                struct tsync_err werr = { 0 }, perr = { 0 };
                struct tsync_init_args back;
                by_hand(&in, &hand);
                written.n = 0;
                written.used = 0;
                int w = tsync_init_args_write(&in, add, &written, &werr);
                int p = init_parse(&hand, &back, &perr);
                if (w == 0 && p == 0) {
                        /* The same words, and read back they are written again as they were. */
                        taken++;
                        bool ok = written.n + 1 == hand.n;
                        for (int i = 0; ok && i < written.n; i++)
                                ok = strcmp(written.v[i], hand.v[i + 1]) == 0;
                        again.n = 0;
                        again.used = 0;
                        ok = ok && tsync_init_args_write(&back, add, &again, NULL) == 0 && again.n == written.n &&
                             same_words(&again, &written, written.n);
                        if (!ok && !bad++)
                                (void)snprintf(why, sizeof(why), "written and read back differ (%d words)", written.n);
                } else if (w < 0 && p < 0) {
                        refused++;
                        int k = pair_index(perr.msg);
                        if (k >= 0)
                                seen[k]++;
                        if ((w != -EINVAL || strcmp(werr.msg, perr.msg) != 0 || written.n) && !bad++)
                                (void)snprintf(why, sizeof(why), "the writer said '%.300s', the init '%.300s'",
                                               werr.msg, perr.msg);
                } else if (!bad++) {
                        (void)snprintf(why, sizeof(why), "the writer %s ('%.300s'), the init %s ('%.300s')",
                                       w ? "refused" : "wrote", werr.msg, p ? "refused" : "took", perr.msg);
                }
        }
        tap_ok(!bad && taken && refused,
               "test_init_conflicts_the_writer_writes_exactly_what_the_init_takes (%lu combinations: %lu taken, %lu "
               "refused by both in the same words; %lu differ) %s",
               combos, taken, refused, bad, why);
        /* Each pair of the table is met, refused, by the walk. */
        int k = 0;
        for (int o = 0; o < TSYNC_INIT_OPT_COUNT; o++) {
                const struct tsync_init_opt_def *d = tsync_init_opt(o);
                for (const struct tsync_init_conflict *c = d->conflicts; c->why; c++, k++)
                        tap_ok(seen[k] > 0, "test_init_conflicts_the_walk_refuses_%s_with_%s%s%s (%d times)",
                               d->name + 2, tsync_init_opt(c->with)->name + 2, c->value ? "_" : "",
                               c->value ? c->value : "", seen[k]);
        }
}

/* Exec once and the probe: the init's refusal at start (flow.c) is now the
 * table's, on the command line, from the writer and the parser alike; the
 * probe chosen because the kernel shows no counts stays flow.c's (exit 125). */
static void test_init_conflicts_exec_once_and_verify_probe(void)
{
        static struct line l;
        struct tsync_init_args a = { .exec_once = EPERM, .verify = "probe" }, back;
        struct tsync_err werr = { 0 }, perr = { 0 };
        l.n = 0;
        l.used = 0;
        int w = tsync_init_args_write(&a, add, &l, &werr);
        by_hand(&a, &l);
        int p = init_parse(&l, &back, &perr);
        const char *want = "--exec-once cannot be combined with --verify probe: the supervisor thread can be proven "
                           "only by /proc's Seccomp_filters counts, not by the probe";
        tap_ok(w == -EINVAL && p == -EINVAL && strcmp(werr.msg, want) == 0 && strcmp(perr.msg, want) == 0,
               "test_init_conflicts_exec_once_with_verify_probe_is_refused_on_the_command_line (%s | %s)", werr.msg,
               perr.msg);
        a.verify = "auto";
        tap_ok(tsync_init_args_write(&a, add, &l, NULL) == 0,
               "test_init_conflicts_exec_once_with_verify_auto_is_taken");
}

/* A plan of the front ends: exec, exec once, its layers, capabilities or
 * none, noNewPrivileges, a notify agent and a recording (each reached
 * through --relay, and a recording's filter is one more). What the host
 * checks before writing is what the init's parser says of the same command
 * line; past 16 filters both refuse, the host first (E2BIG). */
static void test_init_conflicts_the_host_s_plans_against_the_init(void)
{
        static struct line l;
        unsigned long plans = 0, refused = 0, bad = 0;
        char why[768] = "";
        for (unsigned bits = 0; bits < 1u << 6; bits++) {
                for (size_t layers = 0; layers <= TSYNC_INIT_MAX_FILTERS + 1; layers++) {
                        struct tsync_plan plan = {
                                .init = { .exec = bits & 1, .exec_once = bits & 2 ? 13 : 0 },
                                .n_layers = layers,
                                .no_new_privileges = bits & 4,
                                .record = { .req = { .output = bits & 32 ? (char *)"/out.json" : NULL } },
                        };
                        size_t n = tsync_plan_filter_count(&plan);
                        if (n > TSYNC_INIT_MAX_FILTERS + 1)
                                continue;
                        plans++;
                        if (bits & 8)
                                plan.capabilities = unit_parse("{\"bounding\": [\"CAP_KILL\"]}");
                        bool relay = bits & 16 || plan.record.req.output;
                        /* The command line the rewrite writes (init_opts in rewrite.c), by
                         * hand; the filters last, where the order changes nothing the
                         * parser says of these options, and past the record's 16. */
                        struct tsync_init_args a = { .exec = plan.init.exec,
                                                     .exec_once = plan.init.exec_once,
                                                     .no_new_privs = plan.no_new_privileges,
                                                     .relay = relay ? "/.oci-seccomp-tsync/agent/relay" : NULL };
                        for (int s = 0; plan.capabilities && s < TSYNC_CAPSET_COUNT; s++)
                                a.caps[s] = s == TSYNC_CAPSET_BOUNDING ? "CAP_KILL" : "none";
                        by_hand(&a, &l);
                        for (size_t i = 0; i < n; i++) {
                                (void)add(&l, "--filter");
                                (void)add(&l, "/.oci-seccomp-tsync/filters/00.bpf");
                        }
                        struct tsync_err herr = { 0 }, perr = { 0 };
                        struct tsync_init_args back;
                        int h = tsync_rewrite_check_init_args(&plan, relay, &herr);
                        int p = init_parse(&l, &back, &perr);
                        tsync_json_free(plan.capabilities);
                        const char *prefix = "the init's command line: ";
                        bool ok = (h == 0) == (p == 0);
                        if (ok && h == -E2BIG)
                                ok = n > TSYNC_INIT_MAX_FILTERS && strstr(perr.msg, "more than 16 filters");
                        else if (ok && h < 0)
                                ok = h == -EINVAL && strncmp(herr.msg, prefix, strlen(prefix)) == 0 &&
                                     strcmp(herr.msg + strlen(prefix), perr.msg) == 0;
                        refused += h < 0;
                        if (!ok && !bad++)
                                (void)snprintf(why, sizeof(why),
                                               "exec %d, exec once %d, %zu filters, relay %d: the host %d '%.300s', "
                                               "the init %d '%.300s'",
                                               plan.init.exec, plan.init.exec_once, n, relay, h, herr.msg, p, perr.msg);
                }
        }
        tap_ok(!bad && refused,
               "test_init_conflicts_the_host_refuses_a_plan_exactly_when_the_init_would (%lu plans, "
               "%lu refused) %s",
               plans, refused, why);
}

int main(void)
{
        test_init_conflicts_the_writer_refuses_exactly_what_the_init_refuses();
        test_init_conflicts_exec_once_and_verify_probe();
        test_init_conflicts_the_host_s_plans_against_the_init();
        return tap_done();
}
