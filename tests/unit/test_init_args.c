/* The init's arguments (shared/init_args.h): what the host writes for a plan
 * (rewrite.c, through tsync_rewrite_process) is what the init's own parser
 * (hook/init/options.c, linked in) reads back, for many plans and for every
 * option of the table; every conflicting pair and every repeat of an option
 * that does not repeat is refused by the init with one line, and by the
 * writer; status reads a running init's command line with the table's own
 * idea of which options take a value. The command line of a fixed plan is
 * compared byte for byte with the one the host has always written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../hook/init/init.h"
#include "facts/config_caps.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/cleanup.h"
#include "shared/error.h"
#include "shared/init_args.h"
#include "status/status.h"
#include "tap.h"
#include "unit.h"
#include "util/json.h"
#include "util/json_build.h"

#define MAX_ARGS 96

/* A command line the init's parser may modify: copies of the strings. */
struct argv_buf {
        char *v[MAX_ARGS + 1];
        int n;
};

static void argv_clear(struct argv_buf *a)
{
        for (int i = 0; i < a->n; i++)
                free(a->v[i]);
        a->n = 0;
}

static int argv_add(void *ctx, const char *arg)
{
        struct argv_buf *a = ctx;
        if (a->n == MAX_ARGS)
                return -E2BIG;
        if (!(a->v[a->n] = strdup(arg)))
                return -ENOMEM;
        a->v[++a->n] = NULL;
        return 0;
}

/* The NUL-separated form /proc/PID/cmdline shows; its length in *ret_len. */
static char *cmdline_of(const struct argv_buf *a, size_t *ret_len)
{
        size_t len = 0;
        for (int i = 0; i < a->n; i++)
                len += strlen(a->v[i]) + 1;
        char *c = malloc(len ? len : 1);
        size_t off = 0;
        for (int i = 0; c && i < a->n; i++) {
                memcpy(c + off, a->v[i], strlen(a->v[i]) + 1);
                off += strlen(a->v[i]) + 1;
        }
        *ret_len = len;
        return c;
}

/* The init's parser on a, with its stderr (and stdout) caught: its result,
 * and what it printed in out, with the number of lines. */
static int run_init_parser(struct argv_buf *a, struct init_config *cfg, char *out, size_t size, int *ret_lines,
                           int fd_to_catch)
{
        (void)fflush(stdout);
        int mem = memfd_create("init-args", MFD_CLOEXEC);
        int saved = dup(fd_to_catch);
        if (mem < 0 || saved < 0 || dup2(mem, fd_to_catch) < 0) {
                tap_diag("cannot catch fd %d: %s", fd_to_catch, strerror(errno));
                exit(1);
        }
        int r = init_parse_options(a->n, a->v, cfg);
        (void)fflush(stdout);
        (void)dup2(saved, fd_to_catch);
        (void)close(saved);
        ssize_t n = pread(mem, out, size - 1, 0);
        (void)close(mem);
        out[n > 0 ? n : 0] = '\0';
        *ret_lines = 0;
        for (char *p = out; *p; p++)
                *ret_lines += *p == '\n';
        return r;
}

/* A deterministic sequence: the same plans at every run. */
static unsigned long long seed = 0x2545F4914F6CDD1DULL;
static unsigned rnd(unsigned below)
{
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        return (unsigned)((seed >> 33) % below);
}

static const char *const some_caps[] = { "CAP_KILL", "CAP_CHOWN", "CAP_NET_ADMIN", "CAP_SYS_ADMIN", "CAP_SETPCAP" };

/* A plan of the host, and what the init must read back from its arguments. */
struct case_plan {
        struct tsync_plan plan;
        char *data[TSYNC_INIT_MAX_FILTERS];
        char caps_text[TSYNC_CAPSET_COUNT][160];
};

static void case_clear(struct case_plan *c)
{
        tsync_json_free(c->plan.args);
        tsync_json_free(c->plan.capabilities);
        tsync_json_free(c->plan.seccomp);
        for (size_t i = 0; i < TSYNC_INIT_MAX_FILTERS; i++)
                free(c->data[i]);
}

static void case_random(struct case_plan *c)
{
        *c = (struct case_plan){ 0 };
        struct tsync_plan *p = &c->plan;
        p->init.exec = rnd(3) == 0;
        p->init.exec_once = !p->init.exec && rnd(3) == 0 ? 1 + (int)rnd(4095) : 0;
        p->delivery = rnd(2) ? TSYNC_DELIVERY_ARGS : TSYNC_DELIVERY_FILES;
        if (rnd(2)) {
                p->mode = TSYNC_MODE_REPLACE;
                p->seccomp = tsync_json_new_object();
                p->init.warn_replace = rnd(2);
        }
        size_t fixed = (p->seccomp ? 1 : 0) + (p->init.exec_once ? 1 : 0);
        p->n_layers = rnd((unsigned)(TSYNC_INIT_MAX_FILTERS - fixed + 1));
        p->no_new_privileges = rnd(2);
        if (rnd(3)) {
                p->capabilities = tsync_json_new_object();
                for (int s = 0; s < TSYNC_CAPSET_COUNT; s++) {
                        if (rnd(4) == 0) {
                                (void)snprintf(c->caps_text[s], sizeof(c->caps_text[s]), "none"); /* absent */
                                continue;
                        }
                        struct tsync_json *set = tsync_json_new_array();
                        size_t n = 0;
                        for (size_t k = 0; k < ARRAY_SIZE(some_caps); k++) {
                                if (rnd(2))
                                        continue;
                                (void)tsync_json_append(set, tsync_json_new_string(some_caps[k]));
                                n += (size_t)snprintf(c->caps_text[s] + n, sizeof(c->caps_text[s]) - n, "%s%s",
                                                      n ? "," : "", some_caps[k]);
                        }
                        /* A name the kernel does not know: runc ignores it, so do the init's arguments. */
                        if (rnd(4) == 0)
                                (void)tsync_json_append(set, tsync_json_new_string("CAP_NOT_A_CAP"));
                        if (n == 0)
                                (void)snprintf(c->caps_text[s], sizeof(c->caps_text[s]), "none");
                        (void)tsync_json_set(p->capabilities, tsync_capset(s)->json, set);
                }
        }
        /* The workload's own options look like ours: they are not. */
        static const char *const words[] = { "sh", "-c", "--exec", "--filter", "x", "--", "-g", "--record" };
        p->args = tsync_json_new_array();
        size_t nargs = 1 + rnd(4);
        for (size_t i = 0; i < nargs; i++)
                (void)tsync_json_append(p->args,
                                        tsync_json_new_string(i == 0 ? "sleep" : words[rnd(ARRAY_SIZE(words))]));
        for (size_t i = 0; i < tsync_plan_filter_count(p); i++) {
                if (asprintf(&c->data[i], "ZmlsdGVy%zu", i) < 0)
                        c->data[i] = NULL;
        }
}

/* The host's writer for c: process.args as tsync_rewrite_process writes it. */
static int write_plan(struct case_plan *c, struct argv_buf *out, struct tsync_err *err)
{
        _cleanup_json_ struct tsync_json *process = unit_parse("{\"args\": [\"x\"], \"capabilities\": {}}");
        size_t n = tsync_plan_filter_count(&c->plan);
        bool in_args = c->plan.delivery == TSYNC_DELIVERY_ARGS;
        int r = tsync_rewrite_process(process, &c->plan, in_args ? (const char *const *)c->data : NULL, in_args ? n : 0,
                                      err);
        if (r < 0)
                return r;
        const struct tsync_json *args = tsync_json_get(process, "args");
        for (size_t i = 0; r == 0 && i < args->u.array.len; i++)
                r = argv_add(out, args->u.array.items[i]->u.string.ptr);
        return r;
}

/* Whether cfg (the init's reading) is what plan asked. why: the first difference. */
static bool init_reads_plan(const struct case_plan *c, const struct init_config *cfg, char *why, size_t size)
{
        const struct tsync_plan *p = &c->plan;
        size_t n = tsync_plan_filter_count(p);
        if (cfg->exec != p->init.exec || cfg->exec_once != p->init.exec_once)
                return snprintf(why, size, "exec %d/%d, exec-once %d/%d", cfg->exec, p->init.exec, cfg->exec_once,
                                p->init.exec_once) < 0;
        if (cfg->nfilters != n)
                return snprintf(why, size, "%zu filters, the plan has %zu", cfg->nfilters, n) < 0;
        for (size_t i = 0; i < n; i++) {
                char path[64];
                (void)snprintf(path, sizeof(path), TSYNC_CONTAINER_FILTERS "/%02zu.bpf", i);
                bool ok = p->delivery == TSYNC_DELIVERY_ARGS ? !cfg->filters[i].file && cfg->filters[i].data &&
                                                                       !strcmp(cfg->filters[i].data, c->data[i])
                                                             : !cfg->filters[i].data && cfg->filters[i].file &&
                                                                       !strcmp(cfg->filters[i].file, path);
                if (!ok)
                        return snprintf(why, size, "filter %zu differs", i) < 0;
        }
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++) {
                const char *want = p->capabilities ? c->caps_text[s] : NULL;
                if (!want != !cfg->caps[s] || (want && strcmp(want, cfg->caps[s]) != 0))
                        return snprintf(why, size, "%s: '%s', the plan's '%s'", tsync_capset(s)->json,
                                        cfg->caps[s] ? cfg->caps[s] : "(none given)", want ? want : "(none)") < 0;
        }
        if (cfg->warn_replace != p->init.warn_replace)
                return snprintf(why, size, "warn-replace %d/%d", cfg->warn_replace, p->init.warn_replace) < 0;
        if (cfg->no_new_privs != p->no_new_privileges || cfg->allow_nnp || cfg->pgroup || cfg->relay || cfg->record ||
            cfg->verify != INIT_VERIFY_AUTO)
                return snprintf(why, size, "an option the plan did not ask for") < 0;
        size_t k = 0;
        for (; cfg->cmd[k]; k++)
                if (k >= p->args->u.array.len || strcmp(cfg->cmd[k], p->args->u.array.items[k]->u.string.ptr) != 0)
                        return snprintf(why, size, "CMD differs at %zu", k) < 0;
        if (k != p->args->u.array.len)
                return snprintf(why, size, "CMD has %zu words, the plan %zu", k, p->args->u.array.len) < 0;
        return true;
}

/* Whether status's reading of the same command line agrees with the plan. */
static bool status_reads_plan(const struct case_plan *c, const struct argv_buf *a, char *why, size_t size)
{
        size_t len;
        _cleanup_free_ char *cmd = cmdline_of(a, &len);
        struct tsync_status_expect e;
        struct tsync_err err = { 0 };
        if (!cmd || tsync_status_expect_from_cmdline(cmd, len, &e, &err) < 0)
                return snprintf(why, size, "status: %s", err.msg) < 0;
        const struct tsync_plan *p = &c->plan;
        if (e.in_place != p->init.exec || e.exec_once != p->init.exec_once || e.no_new_privs != p->no_new_privileges ||
            e.n_tsync != tsync_plan_filter_count(p) || e.record || e.have_caps != (p->capabilities != NULL))
                return snprintf(why, size, "status: exec %d, exec-once %d, nnp %d, %u filters, caps %d", e.in_place,
                                e.exec_once, e.no_new_privs, e.n_tsync, e.have_caps) < 0;
        for (int s = 0; p->capabilities && s < TSYNC_CAPSET_COUNT; s++) {
                uint64_t want = 0;
                if (tsync_caps_parse_list(c->caps_text[s], &want, NULL) < 0 || want != e.caps[s])
                        return snprintf(why, size, "status: %s differs", tsync_capset(s)->json) < 0;
        }
        return true;
}

static void test_init_args_plans_round_trip(void)
{
        int failed = 0, refused = 0, n = 0;
        char why[256] = "";
        bool written[TSYNC_INIT_OPT_COUNT] = { false };
        for (; n < 3000 && !failed; n++) {
                struct case_plan c;
                case_random(&c);
                struct argv_buf a = { 0 };
                struct tsync_err err = { 0 };
                int r = write_plan(&c, &a, &err);
                if (r < 0) {
                        (void)snprintf(why, sizeof(why), "write: %.200s", err.msg);
                        failed++;
                } else {
                        struct tsync_init_args back;
                        if (tsync_init_args_parse(a.n, a.v, 0, &back, &err) == 0)
                                for (int o = 0; o < TSYNC_INIT_OPT_COUNT; o++)
                                        written[o] = written[o] || tsync_init_args_given(&back, (enum tsync_init_opt)o);
                        struct init_config cfg;
                        char out[2048];
                        int lines;
                        struct argv_buf copy = { 0 };
                        for (int i = 0; i < a.n; i++)
                                (void)argv_add(&copy, a.v[i]);
                        r = run_init_parser(&copy, &cfg, out, sizeof(out), &lines, STDERR_FILENO);
                        if (r != 0) {
                                (void)snprintf(why, sizeof(why), "the init refused: %.200s", out);
                                refused++;
                        } else if (!init_reads_plan(&c, &cfg, why, sizeof(why)) ||
                                   !status_reads_plan(&c, &a, why, sizeof(why))) {
                                failed++;
                        }
                        argv_clear(&copy);
                }
                argv_clear(&a);
                case_clear(&c);
                if (refused)
                        break;
        }
        tap_ok(!failed && !refused, "test_init_args_write_then_parse_gives_back_the_plan (%d plans) %s", n, why);
        /* A row that says the host writes it (.plan) is written for some plan:
         * so rewrite.c's init_args and case_random cannot both forget it.
         * --relay alone is written by the container's rewrite (apply_plan, with
         * a notify agent or a recording), not by tsync_rewrite_process. */
        for (int o = 0; o < TSYNC_INIT_OPT_COUNT; o++) {
                const struct tsync_init_opt_def *d = tsync_init_opt((enum tsync_init_opt)o);
                if (!d->plan || d->retired || o == TSYNC_INIT_OPT_RELAY)
                        continue;
                tap_ok(written[o], "test_init_args_the_host_writes_%s_for_some_plan (%s)", d->name, d->plan);
        }
}

/* One plan, written as the host wrote it before the table: byte for byte. */
static void test_init_args_a_plan_s_command_line_is_unchanged(void)
{
        struct case_plan c = { 0 };
        c.plan.init.exec_once = 13;
        c.plan.n_layers = 2;
        c.plan.no_new_privileges = true;
        c.plan.capabilities = unit_parse("{\"bounding\": [\"CAP_KILL\", \"CAP_CHOWN\"], \"effective\": [],"
                                         " \"permitted\": [\"CAP_NOT_A_CAP\", \"CAP_KILL\"]}");
        c.plan.args = unit_parse("[\"sleep\", \"--\", \"1\"]");
        struct argv_buf a = { 0 };
        struct tsync_err err = { 0 };
        int r = write_plan(&c, &a, &err);
        static const char *const want[] = {
                "/.oci-seccomp-tsync/init",
                "--exec-once",
                "13",
                "--filter",
                "/.oci-seccomp-tsync/filters/00.bpf",
                "--filter",
                "/.oci-seccomp-tsync/filters/01.bpf",
                "--filter",
                "/.oci-seccomp-tsync/filters/02.bpf",
                "--bounding",
                "CAP_KILL,CAP_CHOWN",
                "--effective",
                "none",
                "--inheritable",
                "none",
                "--permitted",
                "CAP_KILL",
                "--ambient",
                "none",
                "--no-new-privs",
                "--",
                "sleep",
                "--",
                "1",
        };
        bool same = r == 0 && a.n == (int)ARRAY_SIZE(want);
        for (int i = 0; same && i < a.n; i++)
                same = strcmp(a.v[i], want[i]) == 0;
        tap_ok(same, "test_init_args_a_plan_s_command_line_is_byte_identical (%s, %d arguments)", err.msg, a.n);
        argv_clear(&a);
        case_clear(&c);

        c = (struct case_plan){ 0 };
        c.plan.init.exec = true;
        c.plan.delivery = TSYNC_DELIVERY_ARGS;
        c.plan.n_layers = 1;
        c.plan.args = unit_parse("[\"true\"]");
        c.data[0] = strdup("QUJD");
        r = write_plan(&c, &a, &err);
        static const char *const want2[] = {
                "/.oci-seccomp-tsync/init", "--exec", "--filter-data", "QUJD", "--", "true"
        };
        same = r == 0 && a.n == (int)ARRAY_SIZE(want2);
        for (int i = 0; same && i < a.n; i++)
                same = strcmp(a.v[i], want2[i]) == 0;
        tap_ok(same, "test_init_args_filter_data_in_place_is_byte_identical (%s)", err.msg);
        argv_clear(&a);
        case_clear(&c);
}

/* A value the option accepts. */
static const char *sample(enum tsync_init_opt o, const char *wanted)
{
        const struct tsync_init_opt_def *d = tsync_init_opt(o);
        switch (d->kind) {
        case TSYNC_INIT_ARG_ERRNO:
                return "1";
        case TSYNC_INIT_ARG_CHOICE:
                return wanted ? wanted : "auto";
        case TSYNC_INIT_ARG_TEXT:
        case TSYNC_INIT_ARG_FILTER:
                return "/x";
        default:
                return NULL;
        }
}

static void add_opt(struct argv_buf *a, enum tsync_init_opt o, const char *value)
{
        (void)argv_add(a, tsync_init_opt(o)->name);
        if (tsync_init_opt(o)->kind != TSYNC_INIT_ARG_FLAG)
                (void)argv_add(a, value);
}

/* Every option of the table with a random value, any mix of them; the
 * writer's output read back by the init's parser and by the table's. */
static void test_init_args_every_option_round_trips(void)
{
        int bad = 0, written = 0, refused = 0;
        char why[512] = "";
        static const char *const texts[] = { "/x", "CAP_KILL", "none", "a b", "--", "-g", "=" };
        for (int n = 0; n < 3000 && !bad; n++) {
                struct tsync_init_args in = { 0 };
                size_t nf = rnd(TSYNC_INIT_MAX_FILTERS + 1);
                for (size_t i = 0; i < nf; i++)
                        in.filters[in.n_filters++] =
                                (struct tsync_init_filter_arg){ rnd(2) ? TSYNC_INIT_OPT_FILTER
                                                                       : TSYNC_INIT_OPT_FILTER_DATA,
                                                                texts[rnd(ARRAY_SIZE(texts))] };
                for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                        in.caps[s] = rnd(2) ? texts[rnd(ARRAY_SIZE(texts))] : NULL;
                in.exec = rnd(4) == 0;
                in.exec_once = rnd(4) == 0 ? 1 + (int)rnd(4095) : 0;
                in.no_new_privs = rnd(2);
                in.allow_nnp = rnd(2);
                in.relay = rnd(2) ? texts[rnd(ARRAY_SIZE(texts))] : NULL;
                in.record = rnd(4) == 0 ? "/rec" : NULL;
                in.pgroup = rnd(4) == 0;
                in.warn_replace = rnd(2);
                static const char *const how[] = { NULL, "auto", "proc", "probe" };
                in.verify = how[rnd(4)];

                struct argv_buf a = { 0 };
                struct tsync_err err = { 0 }, werr = { 0 };
                (void)argv_add(&a, INIT_PROGRAM);
                int conflict = tsync_init_args_check(&in, &err);
                int w = tsync_init_args_write(&in, argv_add, &a, &werr);
                if (conflict < 0) {
                        /* The writer refuses what the init would, with the same words. */
                        refused++;
                        if (w != -EINVAL || strcmp(err.msg, werr.msg) != 0 || a.n != 1) {
                                (void)snprintf(why, sizeof(why), "a conflict (%.200s) written: %d %.200s", err.msg, w,
                                               werr.msg);
                                bad++;
                        }
                        argv_clear(&a);
                        continue;
                }
                written++;
                (void)argv_add(&a, "--");
                (void)argv_add(&a, "true");
                struct tsync_init_args back;
                int r = w == 0 ? tsync_init_args_parse(a.n, a.v, 0, &back, &err) : -1;
                bool same = r == 0 && back.n_filters == in.n_filters && back.exec == in.exec &&
                            back.exec_once == in.exec_once && back.no_new_privs == in.no_new_privs &&
                            back.allow_nnp == in.allow_nnp && back.pgroup == in.pgroup && back.n_cmd == 1 &&
                            !strcmp(back.cmd[0], "true");
                for (size_t i = 0; same && i < in.n_filters; i++)
                        same = back.filters[i].opt == in.filters[i].opt &&
                               !strcmp(back.filters[i].text, in.filters[i].text);
                for (int s = 0; same && s < TSYNC_CAPSET_COUNT; s++)
                        same = !in.caps[s] == !back.caps[s] && (!in.caps[s] || !strcmp(in.caps[s], back.caps[s]));
                const char *const pairs[][2] = { { in.relay, back.relay },
                                                 { in.record, back.record },
                                                 { in.verify, back.verify } };
                for (size_t i = 0; same && i < ARRAY_SIZE(pairs); i++)
                        same = !pairs[i][0] == !pairs[i][1] && (!pairs[i][0] || !strcmp(pairs[i][0], pairs[i][1]));
                /* The init's own parser takes the same. */
                struct init_config cfg;
                char out[2048];
                int lines;
                if (same && run_init_parser(&a, &cfg, out, sizeof(out), &lines, STDERR_FILENO) != 0) {
                        (void)snprintf(why, sizeof(why), "the init refused: %.200s", out);
                        same = false;
                }
                if (same)
                        same = cfg.nfilters == in.n_filters && cfg.exec == in.exec && cfg.exec_once == in.exec_once &&
                               cfg.pgroup == in.pgroup && (!in.relay || !strcmp(cfg.relay, in.relay)) &&
                               (!in.record || !strcmp(cfg.record, in.record)) &&
                               cfg.verify == (!in.verify || !strcmp(in.verify, "auto") ? INIT_VERIFY_AUTO
                                              : !strcmp(in.verify, "proc")             ? INIT_VERIFY_PROC
                                                                                       : INIT_VERIFY_PROBE);
                if (!same) {
                        if (!why[0])
                                (void)snprintf(why, sizeof(why), "%d %.200s (argument %d '%.100s')", r, err.msg,
                                               a.n > 1 ? 1 : 0, a.n > 1 ? a.v[1] : "");
                        bad++;
                }
                argv_clear(&a);
        }
        tap_ok(!bad && written > 100 && refused > 100,
               "test_init_args_every_option_written_is_read_back (%d written, %d refused as conflicts) %s", written,
               refused, why);
}

/* The init's command line with two options (a value each, for those that take
 * one) and the workload `true`; the caller clears it. */
static void two_options(struct argv_buf *a, enum tsync_init_opt o1, const char *v1, enum tsync_init_opt o2,
                        const char *v2)
{
        (void)argv_add(a, INIT_PROGRAM);
        add_opt(a, o1, v1);
        add_opt(a, o2, v2);
        (void)argv_add(a, "--");
        (void)argv_add(a, "true");
}

/* Every conflict of the table, both ways round: the init refuses with one
 * line naming both; a value the rule does not name is accepted. */
static void test_init_args_conflicts_are_refused_with_one_line(void)
{
        int pairs = 0;
        for (int o = 0; o < TSYNC_INIT_OPT_COUNT; o++) {
                const struct tsync_init_opt_def *d = tsync_init_opt(o);
                for (const struct tsync_init_conflict *c = d->conflicts; c->why; c++) {
                        for (int order = 0; order < 2; order++) {
                                struct argv_buf a = { 0 };
                                two_options(&a, order ? c->with : (enum tsync_init_opt)o,
                                            order ? sample(c->with, c->value) : sample(o, NULL),
                                            order ? (enum tsync_init_opt)o : c->with,
                                            order ? sample(o, NULL) : sample(c->with, c->value));
                                struct init_config cfg;
                                char out[2048];
                                int lines;
                                int r = run_init_parser(&a, &cfg, out, sizeof(out), &lines, STDERR_FILENO);
                                char want[256];
                                (void)snprintf(want, sizeof(want),
                                               INIT_PROGRAM ": command line: %s cannot be combined with %s%s%s: %s\n",
                                               d->name, tsync_init_opt(c->with)->name, c->value ? " " : "",
                                               c->value ? c->value : "", c->why);
                                tap_ok(r == -1 && lines == 1 && strcmp(out, want) == 0,
                                       "test_init_args_refuses_%s_with_%s%s%s (%s)", d->name + 2,
                                       tsync_init_opt(c->with)->name + 2, c->value ? "_" : "", c->value ? c->value : "",
                                       order ? "reversed" : "in order");
                                if (r != -1 || strcmp(out, want) != 0)
                                        tap_diag("got %d: %s", r, out);
                                argv_clear(&a);
                                pairs++;
                        }
                        if (!c->value)
                                continue;
                        /* Another value of the same option is no conflict. */
                        const char *other = strcmp(c->value, "auto") ? "auto" : "proc";
                        struct argv_buf a = { 0 };
                        two_options(&a, o, sample(o, NULL), c->with, other);
                        struct tsync_init_args back;
                        struct tsync_err err = { 0 };
                        tap_ok(tsync_init_args_parse(a.n, a.v, 0, &back, &err) == 0,
                               "test_init_args_%s_with_%s_%s_is_no_conflict (%s)", d->name + 2,
                               tsync_init_opt(c->with)->name + 2, other, err.msg);
                        argv_clear(&a);
                }
        }
        tap_ok(pairs >= 8, "test_init_args_the_table_has_its_conflicts (%d checked)", pairs);
}

/* An option that does not repeat, given twice, is refused with one line;
 * the filters repeat. */
static void test_init_args_repeats(void)
{
        for (int o = 0; o < TSYNC_INIT_OPT_COUNT; o++) {
                const struct tsync_init_opt_def *d = tsync_init_opt(o);
                if (d->kind == TSYNC_INIT_ARG_ACTION || d->retired)
                        continue;
                struct argv_buf a = { 0 };
                two_options(&a, o, sample(o, NULL), o, sample(o, NULL));
                struct init_config cfg;
                char out[2048];
                int lines;
                int r = run_init_parser(&a, &cfg, out, sizeof(out), &lines, STDERR_FILENO);
                char want[128];
                (void)snprintf(want, sizeof(want), INIT_PROGRAM ": command line: %s is given twice\n", d->name);
                if (d->repeat)
                        tap_ok(r == 0 && cfg.nfilters == 2, "test_init_args_%s_repeats", d->name + 2);
                else if (!tap_ok(r == -1 && lines == 1 && strcmp(out, want) == 0, "test_init_args_%s_twice_is_refused",
                                 d->name + 2))
                        tap_diag("got %d: %s", r, out);
                argv_clear(&a);
        }
}

/* The table itself: one row per name, the capability sets' names as their
 * records say, retired rows unknown to the init, every option in --help. */
static void test_init_args_table(void)
{
        bool ok = true;
        for (int o = 0; o < TSYNC_INIT_OPT_COUNT; o++) {
                const struct tsync_init_opt_def *d = tsync_init_opt(o);
                ok = ok && d->name && strncmp(d->name, "--", 2) == 0;
                for (int p = 0; ok && p < o; p++)
                        ok = strcmp(tsync_init_opt(p)->name, d->name) != 0 &&
                             (!d->short_name || tsync_init_opt(p)->short_name != d->short_name);
                for (const struct tsync_init_conflict *c = d->conflicts; ok && c->why; c++)
                        ok = c->with < TSYNC_INIT_OPT_COUNT && (int)c->with != o &&
                             (!c->value || tsync_init_opt(c->with)->kind == TSYNC_INIT_ARG_CHOICE);
                if (!ok)
                        tap_diag("row %d (%s)", o, d->name ? d->name : "?");
        }
        tap_ok(ok, "test_init_args_rows_are_unique_and_their_conflicts_name_rows");

        ok = true;
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                ok = ok && strcmp(tsync_init_opt(TSYNC_INIT_OPT_CAPSET + s)->name, tsync_capset(s)->option) == 0;
        tap_ok(ok, "test_init_args_capability_set_rows_are_the_sets_options");

        struct argv_buf a = { 0 };
        (void)argv_add(&a, INIT_PROGRAM);
        (void)argv_add(&a, "--help");
        struct init_config cfg;
        static char help[16384];
        int lines;
        int r = run_init_parser(&a, &cfg, help, sizeof(help), &lines, STDOUT_FILENO);
        argv_clear(&a);
        ok = r == 1;
        for (int o = 0; ok && o < TSYNC_INIT_OPT_COUNT; o++) {
                const struct tsync_init_opt_def *d = tsync_init_opt(o);
                if (d->retired)
                        continue;
                char shown[64];
                (void)snprintf(shown, sizeof(shown), "%s ", d->name);
                ok = strstr(help, shown) != NULL;
                if (!ok)
                        tap_diag("--help does not name %s", d->name);
        }
        tap_ok(ok, "test_init_args_help_names_every_option");

        for (int o = 0; o < TSYNC_INIT_OPT_COUNT; o++) {
                const struct tsync_init_opt_def *d = tsync_init_opt(o);
                if (!d->retired)
                        continue;
                (void)argv_add(&a, INIT_PROGRAM);
                add_opt(&a, o, sample(o, NULL));
                (void)argv_add(&a, "--");
                (void)argv_add(&a, "true");
                char out[512];
                r = run_init_parser(&a, &cfg, out, sizeof(out), &lines, STDERR_FILENO);
                tap_ok(r == -1 && lines == 1 && strstr(out, "unknown option"),
                       "test_init_args_the_init_refuses_retired_%s", d->name + 2);
                argv_clear(&a);
        }
}

/* status reads a running init's command line with the table: for each
 * option, the words after it are its value or the next option exactly as
 * the table says (a filter after it is counted, the option is seen). */
static void test_init_args_status_agrees_with_the_table(void)
{
        for (int o = 0; o < TSYNC_INIT_OPT_COUNT; o++) {
                const struct tsync_init_opt_def *d = tsync_init_opt(o);
                if (d->kind == TSYNC_INIT_ARG_ACTION)
                        continue;
                struct argv_buf a = { 0 };
                (void)argv_add(&a, TSYNC_CONTAINER_INIT);
                add_opt(&a, o, sample(o, NULL));
                (void)argv_add(&a, "--filter");
                (void)argv_add(&a, "/f/00.bpf");
                (void)argv_add(&a, "--");
                (void)argv_add(&a, "sleep");
                (void)argv_add(&a, "--filter");
                size_t len;
                _cleanup_free_ char *cmd = cmdline_of(&a, &len);
                struct tsync_init_args got;
                _cleanup_free_ char **argv = NULL;
                struct tsync_err err = { 0 };
                int r = tsync_status_init_args(cmd, len, &got, &argv, &err);
                size_t want_filters = d->kind == TSYNC_INIT_ARG_FILTER ? 2 : 1;
                tap_ok(r == 0 && got.n_filters == want_filters && tsync_init_args_given(&got, o) && got.n_cmd == 2,
                       "test_init_args_status_reads_%s_as_the_table_says (%s)", d->name + 2, err.msg);
                argv_clear(&a);
        }
}

int main(void)
{
        test_init_args_table();
        test_init_args_a_plan_s_command_line_is_unchanged();
        test_init_args_plans_round_trip();
        test_init_args_every_option_round_trips();
        test_init_args_conflicts_are_refused_with_one_line();
        test_init_args_repeats();
        test_init_args_status_agrees_with_the_table();
        return tap_done();
}
