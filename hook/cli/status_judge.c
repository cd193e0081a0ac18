/* status's judgement of one container, for `status TARGET` and `status
 * --all` alike: its pid and config found (status_target.c), the kernel's
 * view read and decided (hook/status/), the layers lockdown added, PID 1's
 * programs against its filter files and the plan compiled now. Prints
 * nothing: the caller says the result or the error. */
#include <errno.h>
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

void status_result_clear(struct status_result *res)
{
        tsync_status_clear(&res->st);
        tsync_lockdown_record_clear(&res->rec);
        tsync_warnings_clear(&res->shortfalls);
}

int status_judge(struct target *t, bool programs, struct status_result *res, struct tsync_err *err)
{
        int r = status_target_resolve(t, err);
        if (r < 0)
                return r;
        struct tsync_status *st = &res->st;
        r = tsync_status_read(t->pid, st, err);
        if (r < 0)
                return r;
        /* An engine's pid is the container's own process: elsewhere than at
         * 1 in its namespace, the namespace is shared (a pod, --pid
         * container:...) and holds others' processes too. */
        if (strcmp(t->kind, "pid") != 0 && st->target_ns_pid != 1)
                return tsync_error(err, EINVAL,
                                   "its process (pid %d) is %d in its pid namespace, not 1: the namespace is shared (a "
                                   "pod?), so its processes cannot be told from the others'",
                                   (int)t->pid, (int)st->target_ns_pid);
        /* A pid alone: its runtime's state names its config, or nothing is
         * said about what it asked (never "asks nothing" unread). */
        if (!t->config_path && (r = status_target_find_config(t, st->init_pid, err)) < 0)
                return r;
        _cleanup_json_ struct tsync_json *config = NULL;
        r = tsync_json_parse_file(t->config_path, TSYNC_CONFIG_LIMITS, &config, err);
        if (r < 0)
                return r;
        judge_init(config, st);
        struct tsync_status_expect *e = &res->e;
        r = expectations(t, st, e, config, err);
        if (r < 0)
                return r;
        /* The layers lockdown added: asked of every task on top of the rest.
         * lockdown's records are root's: another user's status reads none
         * (and says so in the table). */
        char key[64];
        r = geteuid() == 0 ? tsync_lockdown_record_key(st->init_pid, key, sizeof(key), err) : 0;
        if (r == 0 && geteuid() == 0)
                r = tsync_lockdown_record_read(TSYNC_LOCKDOWN_ROOT, key, &res->rec, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < res->rec.n; i++)
                memcpy(res->sha[i], res->rec.layers[i].sha256, sizeof(res->sha[i]));
        st->added_sha256 = (const char(*)[65])res->sha;
        st->n_added = res->rec.n;
        e->n_lockdown = (unsigned)res->rec.n;
        /* A container that asks nothing of us is not stopped, not even for a moment. */
        if (programs && (e->plan || st->init_ours || res->rec.n) && tsync_status_compare_programs(st) < 0)
                return tsync_error(err, ENOMEM, "out of memory");
        if (!st->programs.compared && !st->programs.what[0])
                (void)snprintf(st->programs.what, sizeof(st->programs.what), "%s",
                               !programs ? "--no-programs" : "no plan of ours runs in it");
        if (st->programs.compared && e->plan)
                compare_plan(t, config, st);
        res->v = tsync_status_decide(st, e, &res->shortfalls);
        res->code = res->v == TSYNC_VERDICT_PROTECTED    ? STATUS_EXIT_PROTECTED
                    : res->v == TSYNC_VERDICT_NOT_ASKED  ? STATUS_EXIT_NOT_ASKED
                    : res->v == TSYNC_VERDICT_UNVERIFIED ? STATUS_EXIT_UNKNOWN
                                                         : STATUS_EXIT_SHORT;
        return 0;
}
