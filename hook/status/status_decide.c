/* status: what a container asked for, and whether every task carries it
 * (status.h). The decision is pure, so that its table of cases is a unit test
 * (tests/unit/test_status.c). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts/annotations.h"
#include "facts/config_caps.h"
#include "plan/plan.h"
#include "shared/capnames.h"
#include "shared/cleanup.h"
#include "shared/init_args.h"
#include "status/status.h"
#include "util/json.h"
#include "util/quote.h"

const char *tsync_status_role_name(enum tsync_status_role r)
{
        static const char *const names[] = {
                [TSYNC_ROLE_INIT] = "init",         [TSYNC_ROLE_INIT_TASK] = "init-thread",
                [TSYNC_ROLE_WORKLOAD] = "workload", [TSYNC_ROLE_OTHER] = "other",
                [TSYNC_ROLE_STARTING] = "starting",
        };
        return (unsigned)r < ARRAY_SIZE(names) ? names[r] : "?";
}

const char *tsync_verdict_name(enum tsync_verdict v)
{
        static const char *const names[] = {
                [TSYNC_VERDICT_PROTECTED] = "protected",     [TSYNC_VERDICT_SHORT] = "short",
                [TSYNC_VERDICT_UNPROTECTED] = "unprotected", [TSYNC_VERDICT_NOT_ASKED] = "not-asked",
                [TSYNC_VERDICT_UNVERIFIED] = "unverified",
        };
        return (unsigned)v < ARRAY_SIZE(names) ? names[v] : "?";
}

/* The first name under our prefix that no row knows (a typo: no front end
 * honours it, and precreate or the wrapper refuses it where they see it),
 * else the first of the user's annotations that asks for us. */
static const char *asking_annotation(const struct tsync_json *config, bool *ret_unknown)
{
        const struct tsync_json *a = tsync_json_get(config, "annotations");
        const char *asking = NULL;
        for (size_t i = 0; a && a->type == TSYNC_JSON_OBJECT && i < a->u.object.len; i++) {
                const char *key = a->u.object.keys[i];
                const struct tsync_annotation_def *def = tsync_annotation_find(key);
                if (!def && strncmp(key, TSYNC_ANNOTATION_PREFIX, strlen(TSYNC_ANNOTATION_PREFIX)) == 0) {
                        *ret_unknown = true;
                        return key;
                }
                if (def && def->asks_for_us && !asking)
                        asking = key;
        }
        return asking;
}

static int caps_of_plan(const struct tsync_json *capabilities, struct tsync_status_expect *e, struct tsync_err *err)
{
        if (!capabilities)
                return 0;
        for (size_t s = 0; s < TSYNC_CAPSET_COUNT; s++) {
                char path[64];
                (void)snprintf(path, sizeof(path), "plan.capabilities.%s", tsync_capset(s)->json);
                const struct tsync_json *set = tsync_json_get(capabilities, tsync_capset(s)->json);
                if (set) {
                        int r = tsync_caps_from_json(set, path, &e->caps[s], err);
                        if (r < 0)
                                return r;
                }
        }
        e->have_caps = true;
        return 0;
}

int tsync_status_expect_from_config(const struct tsync_json *config, struct tsync_status_expect *ret,
                                    struct tsync_err *err)
{
        struct tsync_status_expect e = { .source = "nothing", .baseline_known = true };
        const struct tsync_json *seccomp = tsync_json_get(tsync_json_get(config, "linux"), "seccomp");
        /* The runtime loads the config's own profile before it starts the
         * init (in replace mode the rewrite moved it into the plan). */
        e.baseline = seccomp && seccomp->type == TSYNC_JSON_OBJECT ? 1 : 0;

        _cleanup_plan_ struct tsync_plan *plan = NULL;
        int r = tsync_plan_from_config(config, &plan, err);
        if (r == -ENOENT) {
                e.asked_by = asking_annotation(config, &e.asked_by_unknown);
                e.asked = e.asked_by != NULL;
                if (e.asked)
                        e.source = "annotations";
                *ret = e;
                return 0;
        }
        if (r < 0)
                return r;
        e.asked = e.plan = true;
        e.source = "plan";
        e.in_place = plan->init.exec;
        size_t n = tsync_plan_filter_count(plan);
        e.record = plan->record.req.output != NULL;
        e.n_tsync = (unsigned)(n - (e.record ? 1 : 0));
        e.exec_once = plan->init.exec_once;
        e.n_layers = plan->n_layers;
        e.replace = plan->mode == TSYNC_MODE_REPLACE;
        e.no_new_privs = plan->no_new_privileges;
        r = caps_of_plan(plan->capabilities, &e, err);
        if (r < 0)
                return r;
        *ret = e;
        return 0;
}

int tsync_status_init_args(const char *cmdline, size_t len, struct tsync_init_args *ret, char ***ret_argv,
                           struct tsync_err *err)
{
        if (len == 0 || cmdline[len - 1] != '\0')
                return tsync_error(err, EINVAL, "the init's command line is not NUL-terminated");
        size_t argc = 0;
        for (size_t i = 0; i < len; i++)
                argc += cmdline[i] == '\0';
        if (argc > INT_MAX)
                return tsync_error(err, E2BIG, "the init's command line has too many arguments");
        _cleanup_free_ char **argv = calloc(argc + 1, sizeof(*argv));
        if (!argv)
                return tsync_error(err, ENOMEM, "out of memory");
        size_t n = 0;
        for (const char *p = cmdline; p < cmdline + len; p += strlen(p) + 1)
                argv[n++] = (char *)(uintptr_t)p;
        /* The init's own parser and rules (init_args.c): what it runs with, it accepted. */
        int r = tsync_init_args_parse((int)argc, argv, TSYNC_INIT_ARGS_RETIRED, ret, err);
        if (r > 0)
                return tsync_error(err, EINVAL, "the init's command line asks for its help or version");
        if (r < 0)
                return tsync_error_prefix(err, "the init's command line");
        *ret_argv = TAKE_PTR(argv);
        return 0;
}

int tsync_status_expect_from_cmdline(const char *cmdline, size_t len, struct tsync_status_expect *ret,
                                     struct tsync_err *err)
{
        struct tsync_status_expect e = { .asked = true, .source = "init command line" };
        struct tsync_init_args a;
        _cleanup_free_ char **argv = NULL;
        int r = tsync_status_init_args(cmdline, len, &a, &argv, err);
        if (r < 0)
                return r;
        e.in_place = a.exec;
        e.no_new_privs = a.no_new_privs;
        e.exec_once = a.exec_once;
        e.record = a.record != NULL;
        e.n_tsync = (unsigned)(a.n_filters - (e.record && a.n_filters > 0 ? 1 : 0));
        for (size_t s = 0; s < TSYNC_CAPSET_COUNT; s++)
                if (a.caps[s] && tsync_caps_parse_list(a.caps[s], &e.caps[s], NULL) == 0)
                        e.have_caps = true;
        *ret = e;
        return 0;
}

/* "CAP_SYS_ADMIN,CAP_NET_ADMIN" for a mask (the number past the table). */
static void cap_names(uint64_t mask, char *buf, size_t size)
{
        size_t n = 0;
        buf[0] = '\0';
        for (unsigned c = 0; c < 64 && n < size; c++) {
                if (!(mask & ((uint64_t)1 << c)))
                        continue;
                const char *name = tsync_capname(c);
                int w = name ? snprintf(buf + n, size - n, "%s%s", n ? "," : "", name)
                             : snprintf(buf + n, size - n, "%s%u", n ? "," : "", c);
                if (w < 0)
                        return;
                n += (size_t)w;
        }
}

static const struct tsync_status_task *process_of(const struct tsync_status *st, pid_t pid)
{
        for (size_t i = 0; i < st->n; i++)
                if (st->tasks[i].tid == pid)
                        return &st->tasks[i];
        return NULL;
}

/* Whether process pid was started by PID 1 (or by one of its own): its
 * parent chain, inside the namespace, reaches PID 1. A process a runtime
 * starts in the container later (`runc exec`) has a parent outside it. */
static bool descends_from_init(const struct tsync_status *st, pid_t pid)
{
        for (size_t steps = 0; steps <= st->n; steps++) {
                const struct tsync_status_task *t = process_of(st, pid);
                if (!t)
                        return false;
                if (t->ppid == st->init_pid)
                        return true;
                pid = t->ppid;
        }
        return false;
}

static enum tsync_status_role role_of(const struct tsync_status *st, const struct tsync_status_task *t)
{
        if (t->pid == st->init_pid)
                return t->tid == t->pid ? TSYNC_ROLE_INIT : TSYNC_ROLE_INIT_TASK;
        if (descends_from_init(st, t->pid))
                return TSYNC_ROLE_WORKLOAD;
        return t->runtime_exe ? TSYNC_ROLE_STARTING : TSYNC_ROLE_OTHER;
}

/* The comm, exe path and annotation names in a line are the container's (or
 * a pod author's) bytes: quoted (util/quote.h), so that none forges a line. */
static const char *quoted(char *buf, size_t size, const char *s)
{
        (void)tsync_quote(buf, size, s, strlen(s));
        return buf;
}
#define QCOMM(buf, t) quoted(buf, sizeof(buf), (t)->comm)
typedef char comm_quoted[TSYNC_QUOTED_MAX(sizeof(((struct tsync_status_task *)0)->comm)) + 1];

#define SHORT(t, fmt, ...)                                                                                             \
        do {                                                                                                           \
                comm_quoted qc_;                                                                                       \
                (t)->short_of = true;                                                                                  \
                (void)tsync_warn(out, "pid %d tid %d (%s, %s): " fmt, (int)(t)->pid, (int)(t)->tid, QCOMM(qc_, t),     \
                                 tsync_status_role_name((t)->role), __VA_ARGS__);                                      \
        } while (0)

/* The capabilities beyond what the config allowed: our init's threads were
 * given exactly the config's sets (and may only have dropped some since);
 * every other task's sets come from an execve, which the kernel bounds by
 * the bounding and inheritable sets. */
static void check_caps(struct tsync_status_task *t, const struct tsync_status_expect *e, bool init_task,
                       struct tsync_warnings *out)
{
        uint64_t allowed = e->caps[TSYNC_CAPSET_BOUNDING] | e->caps[TSYNC_CAPSET_INHERITABLE];
        for (size_t s = 0; s < TSYNC_CAPSET_COUNT; s++) {
                uint64_t limit = init_task || s == TSYNC_CAPSET_BOUNDING ? e->caps[s] : allowed;
                uint64_t extra = t->caps[s] & ~limit;
                if (!extra)
                        continue;
                char names[512];
                cap_names(extra, names, sizeof(names));
                SHORT(t, "%s holds %s, beyond the config's %s", tsync_capset(s)->status, names,
                      init_task || s == TSYNC_CAPSET_BOUNDING ? tsync_capset(s)->json
                                                              : "bounding and inheritable sets");
        }
}

static bool has_thread(const struct tsync_status *st, const char *comm)
{
        for (size_t i = 0; i < st->n; i++)
                if (st->tasks[i].role == TSYNC_ROLE_INIT_TASK && strcmp(st->tasks[i].comm, comm) == 0)
                        return true;
        return false;
}

/* A task that must carry filters: its programs against PID 1's (read for it
 * by tsync_status_compare_programs). Counts alone are what the task can
 * forge (a filter that allows everything counts as one); a task whose
 * programs were not read is unverified, never protected. */
static void check_programs(struct tsync_status_task *t, struct tsync_warnings *out, bool *unverified,
                           size_t *unverified_lines)
{
        if (t->expected <= 0 || t->short_of)
                return;
        if (t->chain != TSYNC_CHAIN_READ) {
                comm_quoted qc;
                t->unverified = true;
                *unverified = true;
                if (t->chain == TSYNC_CHAIN_FAILED &&
                    tsync_warn(out, "pid %d tid %d (%s, %s): unverified: its programs were not read: %s", (int)t->pid,
                               (int)t->tid, QCOMM(qc, t), tsync_status_role_name(t->role), t->why) == 0)
                        ++*unverified_lines;
                return;
        }
        if (t->matched < t->expected)
                SHORT(t,
                      "%d seccomp filter%s, but only %d of them PID 1's programs, %d asked: the others are programs "
                      "of its own, which count but are not what was asked",
                      t->filters, t->filters == 1 ? "" : "s", t->matched, t->expected);
}

enum tsync_verdict tsync_status_decide(struct tsync_status *st, const struct tsync_status_expect *e,
                                       struct tsync_warnings *out)
{
        const struct tsync_status_task *init = process_of(st, st->init_pid);
        comm_quoted qinit;
        char qexe[TSYNC_QUOTED_MAX(sizeof(st->init_exe)) + 1], qkey[1024], qwhat[TSYNC_QUOTED_MAX(160) + 1];
        const char *icomm = init ? QCOMM(qinit, init) : "?";
        const char *iexe = quoted(qexe, sizeof(qexe), st->init_exe[0] ? st->init_exe : "exe unreadable");
        for (size_t i = 0; i < st->n; i++) {
                st->tasks[i].role = role_of(st, &st->tasks[i]);
                st->tasks[i].expected = -1;
                st->tasks[i].short_of = false;
                st->tasks[i].unverified = false;
        }
        if (!e->asked && !st->init_ours && !e->n_lockdown)
                return TSYNC_VERDICT_NOT_ASKED;
        if (e->asked && !e->plan && !st->init_ours) {
                const char *key = quoted(qkey, sizeof(qkey), e->asked_by ? e->asked_by : "?");
                if (e->asked_by_unknown)
                        /* Under Podman the hooks.d `when` regexes name only
                         * our keys, so a misspelt one ran nothing of ours. */
                        (void)tsync_warn(out,
                                         "pid %d (%s): the container's PID 1 is not oci-seccomp-tsync's init (%s): "
                                         "annotations.%s is not a key of oci-seccomp-tsync (misspelt? `%s hook --help` "
                                         "lists them), so no front end applied anything it was meant to ask",
                                         (int)st->init_pid, icomm, iexe, key, "oci-seccomp-tsync");
                else
                        /* The user's annotations ask, but nothing of ours ran:
                         * no hook rewrote the config (Podman without our
                         * hooks.d, a runtime that is not the wrapper). */
                        (void)tsync_warn(out,
                                         "pid %d (%s): the container's PID 1 is not oci-seccomp-tsync's init (%s), "
                                         "although annotations.%s asks for it: our hooks never ran (hooks.d not "
                                         "found, or the runtime is not oci-seccomp-tsync-runtime), so nothing of what "
                                         "it asked was applied",
                                         (int)st->init_pid, icomm, iexe, key);
                return TSYNC_VERDICT_UNPROTECTED;
        }
        /* The init may also choose to run the workload in place when it
         * starts (the route): then PID 1 is the workload, under the filters. */
        bool in_place = e->in_place || !st->init_ours;
        unsigned base = (e->baseline_known ? e->baseline : 0) + e->n_tsync + e->n_lockdown;
        bool unprotected = false, unverified = false;
        size_t unverified_lines = 0;
        for (size_t i = 0; i < st->n; i++) {
                struct tsync_status_task *t = &st->tasks[i];
                if (t->dead)
                        continue;
                if (t->role == TSYNC_ROLE_STARTING) {
                        /* A runtime setting up an exec loads its profile
                         * before it runs the container's program; but its
                         * exe is known by name, which a process can borrow
                         * (a memfd, a file named runc): short of what every
                         * other task carries, it is unverified, never passed. */
                        t->expected = (int)base;
                        if ((t->filters >= 0 && t->filters < t->expected) || t->chain != TSYNC_CHAIN_READ ||
                            t->matched < t->expected) {
                                comm_quoted qc;
                                t->unverified = unverified = true;
                                if (tsync_warn(out,
                                               "pid %d tid %d (%s, starting): unverified: it runs a runtime's binary "
                                               "by its name, with %d of the %d filters asked; judged once it runs "
                                               "the container's program",
                                               (int)t->pid, (int)t->tid, QCOMM(qc, t), t->filters, t->expected) == 0)
                                        unverified_lines++;
                        }
                        continue;
                }
                bool recorded =
                        e->record && !in_place && t->role != TSYNC_ROLE_INIT_TASK && t->role != TSYNC_ROLE_OTHER;
                t->expected = (int)(base + (recorded ? 1 : 0));
                if (t->filters >= 0 && t->filters < t->expected) {
                        char added[48] = "";
                        if (e->n_lockdown)
                                (void)snprintf(added, sizeof(added), " + %u added by lockdown", e->n_lockdown);
                        SHORT(t, "%d seccomp filter%s, %d asked (%s%u of the plan's%s%s)%s", t->filters,
                              t->filters == 1 ? "" : "s", t->expected,
                              !e->baseline_known ? ""
                              : e->baseline      ? "the runtime's linux.seccomp + "
                                                 : "",
                              e->n_tsync, recorded ? " + the recording" : "", added,
                              t->role == TSYNC_ROLE_OTHER ? ": not started by the container's PID 1 (`runc exec`, "
                                                            "`podman exec`?), so only the runtime's own profile "
                                                            "reaches it"
                                                          : "");
                        if (t->role == TSYNC_ROLE_INIT && !st->init_ours && e->asked &&
                            t->filters < (int)(base - e->n_lockdown))
                                unprotected = true;
                } else if (t->filters < 0 && t->expected > 0 && t->seccomp != 2) {
                        SHORT(t, "Seccomp %d: no filter at all, %d asked", t->seccomp, t->expected);
                }
                check_programs(t, out, &unverified, &unverified_lines);
                if (t->io_uring_fd >= 0)
                        SHORT(t,
                              "holds an io_uring ring (fd %d): its requests are not system calls, so no seccomp "
                              "filter sees them, a layer added since (lockdown) least of all",
                              t->io_uring_fd);
                if (e->no_new_privs && t->no_new_privs != 1)
                        SHORT(t, "NoNewPrivs %d, the config asked noNewPrivileges", t->no_new_privs);
                if (e->have_caps)
                        check_caps(t, e, !in_place && (t->role == TSYNC_ROLE_INIT || t->role == TSYNC_ROLE_INIT_TASK),
                                   out);
        }
        if (st->programs.compared && st->programs.differ >= 0 && init)
                (void)tsync_warn(out,
                                 "pid %d tid %d (%s, init): the kernel's program for the init's filter %d (%s) is not "
                                 "the one its filter file holds",
                                 (int)init->pid, (int)init->tid, icomm, st->programs.differ,
                                 quoted(qwhat, sizeof(qwhat), st->programs.what));
        if (st->programs.compared && st->programs.added_differ >= 0 && init)
                (void)tsync_warn(out,
                                 "pid %d tid %d (%s, init): the kernel's program for lockdown's layer %d is not the "
                                 "one its record names (sha256 %.12s...)",
                                 (int)init->pid, (int)init->tid, icomm, st->programs.added_differ,
                                 (size_t)st->programs.added_differ < st->n_added
                                         ? st->added_sha256[st->programs.added_differ]
                                         : "?");
        if (st->programs.plan_compared && st->programs.drift >= 0 && init)
                (void)tsync_warn(out,
                                 "pid %d tid %d (%s, init): the kernel's program for the plan's filter %d (%s) is not "
                                 "what the plan compiles to now: the profile changed since the container started, "
                                 "which runs the old one until it starts again",
                                 (int)init->pid, (int)init->tid, icomm, st->programs.drift, st->programs.drift_what);
        if (e->disagree[0])
                (void)tsync_warn(out,
                                 "pid %d (%s): PID 1's command line is not what the config's plan gave our init: %s",
                                 (int)st->init_pid, icomm, e->disagree);
        if (in_place && (e->exec_once || e->record))
                (void)tsync_warn(out,
                                 "pid %d (%s): PID 1 is not oci-seccomp-tsync's init (%s): %s needs it to supervise",
                                 (int)st->init_pid, icomm, iexe, e->exec_once ? "exec once" : "the recording");
        else if (e->exec_once && !has_thread(st, "tsync-exec-once"))
                (void)tsync_warn(out,
                                 "pid %d (%s): no exec-once supervisor thread (tsync-exec-once): nobody answers the "
                                 "workload's exec calls",
                                 (int)st->init_pid, icomm);
        if (!in_place && e->record && !has_thread(st, "tsync-record"))
                (void)tsync_warn(out, "pid %d (%s): no recorder thread (tsync-record)", (int)st->init_pid, icomm);
        if (unverified && !unverified_lines && init &&
            tsync_warn(out, "pid %d (%s): unverified: no task's programs were read (%s), only counted", (int)init->pid,
                       icomm, quoted(qwhat, sizeof(qwhat), st->programs.what)) == 0)
                unverified_lines++;
        if (unprotected)
                return TSYNC_VERDICT_UNPROTECTED;
        bool short_of = false;
        for (size_t i = 0; i < st->n; i++)
                short_of |= st->tasks[i].short_of;
        if (short_of || out->len > unverified_lines)
                return TSYNC_VERDICT_SHORT;
        return unverified ? TSYNC_VERDICT_UNVERIFIED : TSYNC_VERDICT_PROTECTED;
}
