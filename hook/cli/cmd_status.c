/* oci-seccomp-tsync status TARGET: what protects a running container, task
 * by task. Finds the container's pid and config through its runtime or
 * engine (status_target.c), reads the kernel's view and decides (hook/status/
 * status*.c), then prints: a table or JSON on stdout (status_print.c,
 * schema/status.schema.json), one line per shortfall on stderr, and an exit
 * code a script can act on. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/cleanup.h"
#include "status/status.h"
#include "status_cli.h"
#include "util/json.h"

/* status's own codes: documented in its help and the man page. */
enum status_exit {
        STATUS_EXIT_PROTECTED = 0,
        STATUS_EXIT_SHORT = 1, /* some task carries less than asked, or nothing of ours ran although asked */
        STATUS_EXIT_USAGE = 2,
        STATUS_EXIT_NOT_ASKED = 3, /* the container asks nothing of oci-seccomp-tsync */
        STATUS_EXIT_UNKNOWN = 4,   /* the container or its processes could not be read */
};

static void help(FILE *f)
{
        fprintf(f,
                "Usage: %s status [OPTIONS] TARGET\n"
                "Says what protects a running container, task by task: whether its PID 1 is our init, which\n"
                "seccomp filters every thread of every process carries against what its plan (or its\n"
                "annotations) asked, NoNewPrivs and capabilities against the config's, the exec-once\n"
                "supervisor and the recorder. Processes are those of the container's pid namespace.\n\n" TARGET_HELP
                "\n"
                "Options:\n"
                "      --config FILE     with --pid: its config.json (without, what our init was told, less\n"
                "                        the runtime's own filter)\n"
                "      --json            one JSON document on stdout (schema/status.schema.json)\n"
                "      --no-programs     do not stop PID 1 for a moment to read its seccomp programs\n"
                "                        (PTRACE_SECCOMP_GET_FILTER) and compare them with its filter files\n"
                "                        and with what the plan compiles to now\n"
                "      --profile-dir DIR where the plan's layer names are, as the hook's --profile-dir\n"
                "                        (repeatable; default: the hook's own default directories)\n"
                "  -h, --help            this text\n\n"
                "Exit status: 0 every task carries what was asked; 1 something carries less (one line per\n"
                "shortfall on stderr), or the container asked for oci-seccomp-tsync and our init never ran\n"
                "(\"unprotected\": hooks.d not found, or not our runtime wrapper); 2 bad command line; 3 the\n"
                "container asks nothing of oci-seccomp-tsync; 4 the container could not be read.\n",
                PROGRAM);
}

/* PID 1 is our init when the file it runs is, by device and inode, one the
 * host delivered: the config's init mount, or the init installed beside us. */
static void judge_init(const struct tsync_json *config, struct tsync_status *st)
{
        char beside[PATH_MAX] = "";
        (void)frontend_find_init(beside, sizeof(beside));
        const char *paths[] = { config ? tsync_rewrite_init_source(config) : NULL, beside };
        tsync_status_judge_init(st, paths, ARRAY_SIZE(paths));
}

/* What our init was told, against what the config's plan asked: the command
 * line is PID 1's to write (an init exec'd again with other arguments), so
 * it never decides; a difference is a finding. */
static void cmdline_against_plan(const struct tsync_status *st, struct tsync_status_expect *e)
{
        _cleanup_free_ char *cmdline = NULL;
        size_t len = 0;
        struct tsync_err err = { 0 };
        struct tsync_status_expect c;
        if (status_read_cmdline(st->init_pid, &cmdline, &len) < 0 ||
            tsync_status_expect_from_cmdline(cmdline, len, &c, &err) < 0) {
                (void)snprintf(e->disagree, sizeof(e->disagree), "it is not one our init would run with");
                return;
        }
        if (c.n_tsync + c.record != e->n_tsync + e->record)
                (void)snprintf(e->disagree, sizeof(e->disagree), "%u filter%s, the plan %u", c.n_tsync + c.record,
                               c.n_tsync + c.record == 1 ? "" : "s", e->n_tsync + e->record);
        else if (c.exec_once != e->exec_once || c.in_place != e->in_place || c.no_new_privs != e->no_new_privs)
                (void)snprintf(e->disagree, sizeof(e->disagree), "exec once, --exec or NoNewPrivs not as the plan's");
}

/* What the container asked: its config's plan or annotations. Our init's
 * command line only where the config has no plan although our init runs
 * (an engine may keep the config it wrote before the hooks rewrote it). */
static int expectations(const struct target *t, const struct tsync_status *st, struct tsync_status_expect *e,
                        const struct tsync_json *config, struct tsync_err *err)
{
        int r = tsync_status_expect_from_config(config, e, err);
        if (r < 0)
                return tsync_error_prefix(err, "%s", t->config_path);
        if (e->plan && st->init_ours && !e->in_place)
                cmdline_against_plan(st, e);
        if (e->plan || !st->init_ours)
                return 0;
        _cleanup_free_ char *cmdline = NULL;
        size_t len = 0;
        r = status_read_cmdline(st->init_pid, &cmdline, &len);
        if (r < 0)
                return tsync_error(err, -r, "pid %d: cmdline: %s", (int)st->init_pid, strerror(-r));
        struct tsync_status_expect from_init;
        r = tsync_status_expect_from_cmdline(cmdline, len, &from_init, err);
        if (r < 0)
                return tsync_error_prefix(err, "pid %d", (int)st->init_pid);
        /* The runtime's own filter is known from the config. */
        from_init.baseline_known = e->baseline_known;
        from_init.baseline = e->baseline;
        *e = from_init;
        return 0;
}

/* The plan's filters compiled now (no cache: nothing of the host changes)
 * against PID 1's programs; a plan that does not compile says why. */
static void compare_plan(const struct target *t, const struct tsync_json *config, struct tsync_status *st)
{
        struct tsync_err err = { 0 };
        _cleanup_plan_ struct tsync_plan *plan = NULL;
        struct tsync_plan_programs progs = { 0 };
        struct tsync_warnings w = { 0 };
        struct tsync_plan_paths o = { .profile_dirs =
                                              t->n_profile_dirs ? t->profile_dirs : frontend_default_profile_dirs,
                                      .n_profile_dirs =
                                              t->n_profile_dirs ? t->n_profile_dirs : frontend_n_default_profile_dirs,
                                      .state_root = TSYNC_STATE_ROOT };
        int r = tsync_plan_from_config(config, &plan, &err);
        if (r == 0)
                r = tsync_plan_compile(plan, &o, NULL, &progs, &w, &err);
        tsync_warnings_clear(&w);
        if (r < 0)
                (void)snprintf(st->programs.drift_what, sizeof(st->programs.drift_what), "not compiled: %.130s",
                               err.msg);
        else
                tsync_status_compare_plan(st, plan, &progs);
        tsync_plan_programs_clear(&progs);
}

static int status(struct target *t, bool json, bool programs)
{
        struct tsync_err err = { 0 };
        int r = 0;
        r = status_target_resolve(t, &err);
        if (r < 0) {
                frontend_error(t->what, &err);
                return STATUS_EXIT_UNKNOWN;
        }
        _cleanup_(tsync_status_clear) struct tsync_status st = { 0 };
        if (tsync_status_read(t->pid, &st, &err) < 0) {
                frontend_error(t->what, &err);
                return STATUS_EXIT_UNKNOWN;
        }
        /* An engine's pid is the container's own process: elsewhere than at
         * 1 in its namespace, the namespace is shared (a pod, --pid
         * container:...) and holds others' processes too. */
        if (strcmp(t->kind, "pid") != 0 && st.target_ns_pid != 1) {
                frontend_errorf(
                        t->what,
                        "its process (pid %d) is %d in its pid namespace, not 1: the namespace is shared (a pod?), "
                        "so its processes cannot be told from the others'",
                        (int)t->pid, (int)st.target_ns_pid);
                return STATUS_EXIT_UNKNOWN;
        }
        /* A pid alone: its runtime's state names its config, or nothing is
         * said about what it asked (never "asks nothing" unread). */
        if (!t->config_path && status_target_find_config(t, st.init_pid, &err) < 0) {
                frontend_error(t->what, &err);
                return STATUS_EXIT_UNKNOWN;
        }
        _cleanup_json_ struct tsync_json *config = NULL;
        if (tsync_json_parse_file(t->config_path, TSYNC_CONFIG_LIMITS, &config, &err) < 0) {
                frontend_error(t->what, &err);
                return STATUS_EXIT_UNKNOWN;
        }
        judge_init(config, &st);
        struct tsync_status_expect e;
        if (expectations(t, &st, &e, config, &err) < 0) {
                frontend_error(t->what, &err);
                return STATUS_EXIT_UNKNOWN;
        }
        /* The layers lockdown added: asked of every task on top of the rest. */
        _cleanup_(tsync_lockdown_record_clear) struct tsync_lockdown_record rec = { 0 };
        char key[64];
        /* lockdown's records are root's: another user's status reads none
         * (and says so in the table). */
        r = geteuid() == 0 ? tsync_lockdown_record_key(st.init_pid, key, sizeof(key), &err) : 0;
        if (r == 0 && geteuid() == 0)
                r = tsync_lockdown_record_read(TSYNC_LOCKDOWN_ROOT, key, &rec, &err);
        if (r < 0) {
                frontend_error(t->what, &err);
                return STATUS_EXIT_UNKNOWN;
        }
        char sha[TSYNC_LOCKDOWN_MAX_LAYERS][65];
        for (size_t i = 0; i < rec.n; i++)
                memcpy(sha[i], rec.layers[i].sha256, sizeof(sha[i]));
        st.added_sha256 = (const char(*)[65])sha;
        st.n_added = rec.n;
        e.n_lockdown = (unsigned)rec.n;
        /* A container that asks nothing of us is not stopped, not even for a moment. */
        if (programs && (e.plan || st.init_ours || rec.n) && tsync_status_compare_programs(&st) < 0) {
                frontend_errorf(t->what, "out of memory");
                return STATUS_EXIT_UNKNOWN;
        }
        if (!st.programs.compared && !st.programs.what[0])
                (void)snprintf(st.programs.what, sizeof(st.programs.what), "%s",
                               !programs ? "--no-programs" : "no plan of ours runs in it");
        if (st.programs.compared && e.plan)
                compare_plan(t, config, &st);
        struct tsync_warnings shortfalls = { 0 };
        enum tsync_verdict v = tsync_status_decide(&st, &e, &shortfalls);
        int code = v == TSYNC_VERDICT_PROTECTED    ? STATUS_EXIT_PROTECTED
                   : v == TSYNC_VERDICT_NOT_ASKED  ? STATUS_EXIT_NOT_ASKED
                   : v == TSYNC_VERDICT_UNVERIFIED ? STATUS_EXIT_UNKNOWN
                                                   : STATUS_EXIT_SHORT;
        if (json) {
                r = status_print_json(t, &st, &e, &rec, &shortfalls, v, code);
                if (r < 0) {
                        frontend_errorf(t->what, "writing JSON: %s", strerror(-r));
                        code = STATUS_EXIT_UNKNOWN;
                }
        } else {
                status_print_text(t, &st, &e, &rec, v);
        }
        (void)fflush(stdout);
        for (size_t i = 0; i < shortfalls.len; i++)
                fprintf(stderr, "%s: %s: %s%s\n", PROGRAM, t->what,
                        v == TSYNC_VERDICT_UNPROTECTED ? "UNPROTECTED: " : "", shortfalls.msgs[i]);
        tsync_warnings_clear(&shortfalls);
        return code;
}

int cmd_status(int argc, char **argv)
{
        enum { OPT_CONFIG = TARGET_OPT_END, OPT_JSON, OPT_NO_PROGRAMS, OPT_PROFILE_DIR };
        static const struct option options[] = { TARGET_OPTIONS,
                                                 { "config", required_argument, NULL, OPT_CONFIG },
                                                 { "json", no_argument, NULL, OPT_JSON },
                                                 { "no-programs", no_argument, NULL, OPT_NO_PROGRAMS },
                                                 { "profile-dir", required_argument, NULL, OPT_PROFILE_DIR },
                                                 { "help", no_argument, NULL, 'h' },
                                                 {} };
        struct target t = { .kind = NULL };
        const char *config = NULL;
        bool json = false, programs = true;
        int opt;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                int taken = target_option(&t, opt, optarg);
                if (taken < 0)
                        return STATUS_EXIT_USAGE;
                if (taken)
                        continue;
                switch (opt) {
                case OPT_CONFIG:
                        config = optarg;
                        break;
                case OPT_JSON:
                        json = true;
                        break;
                case OPT_NO_PROGRAMS:
                        programs = false;
                        break;
                case OPT_PROFILE_DIR:
                        if (t.n_profile_dirs == TSYNC_MAX_LAYERS) {
                                frontend_errorf("--profile-dir", "more than %d", TSYNC_MAX_LAYERS);
                                return STATUS_EXIT_USAGE;
                        }
                        t.profile_dirs[t.n_profile_dirs++] = optarg;
                        break;
                case 'h':
                        help(stdout);
                        return STATUS_EXIT_PROTECTED;
                default:
                        help(stderr);
                        return STATUS_EXIT_USAGE;
                }
        }
        if (target_finish(&t, "status", argc, argv, optind) < 0)
                return STATUS_EXIT_USAGE;
        if (config && strcmp(t.kind, "pid") != 0) {
                frontend_errorf("status", "--config goes with --pid (the runtime or engine names the config)");
                return STATUS_EXIT_USAGE;
        }
        if (config && !(t.config_path = strdup(config))) {
                frontend_errorf("status", "out of memory");
                return STATUS_EXIT_UNKNOWN;
        }
        int code = status(&t, json, programs);
        free(t.config_path);
        return code;
}
