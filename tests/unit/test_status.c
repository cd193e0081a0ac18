/* status's decision (hook/status/status_decide.c): a table of what the kernel
 * shows (tasks, their filters, NoNewPrivs, capabilities) against what the
 * container asked, each row to its verdict and shortfall lines; and what a
 * config (plan or annotations) and our init's command line ask. */
#include <errno.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plan/plan.h"
#include "shared/cleanup.h"
#include "status/status.h"
#include "tap.h"
#include "unit.h"
#include "util/json_build.h"

#define KILL  (1ull << 5)  /* CAP_KILL */
#define ADMIN (1ull << 21) /* CAP_SYS_ADMIN */

/* A container as /proc would show it: PID 1 (host 100) with its signal
 * thread, the workload (102, started by PID 1) and, in some rows, a process
 * `runc exec` started (103, its parent outside). */
enum { INIT, SIGNALS, WORKLOAD, EXECD, EXTRA, RUNC_INIT, ZOMBIE, N_TASKS };
static const struct tsync_status_task layout[N_TASKS] = {
        [INIT] = { .pid = 100, .tid = 100, .ns_pid = 1, .ppid = 50, .comm = "init" },
        [SIGNALS] = { .pid = 100, .tid = 101, .ns_pid = 1, .ppid = 50, .comm = "tsync-signals" },
        [WORKLOAD] = { .pid = 102, .tid = 102, .ns_pid = 2, .ppid = 100, .comm = "sleep" },
        [EXECD] = { .pid = 103, .tid = 103, .ns_pid = 3, .ppid = 999, .comm = "sh" },
        [EXTRA] = { .pid = 100, .tid = 104, .ns_pid = 1, .ppid = 50, .comm = "tsync-exec-once" },
        /* runc's init setting up a `runc exec`, before its profile. */
        [RUNC_INIT] = { .pid = 106,
                        .tid = 106,
                        .ns_pid = 6,
                        .ppid = 999,
                        .comm = "runc:[2:INIT]",
                        .runtime_exe = true },
        /* a child of the workload that exited and is not reaped yet */
        [ZOMBIE] = { .pid = 107, .tid = 107, .ns_pid = 7, .ppid = 102, .comm = "sh", .dead = true },
};

struct row {
        const char *name;
        bool init_ours;
        struct tsync_status_expect e;
        /* Per task of layout: present, filters (-1: no Seccomp_filters line), NoNewPrivs. */
        bool present[N_TASKS];
        int filters[N_TASKS];
        int nnp[N_TASKS];
        uint64_t eff[N_TASKS]; /* CapEff; every other set is the config's */
        enum tsync_verdict want;
        size_t want_lines;
        const char *want_text; /* in the first line, or NULL */
        /* Per task, 0 for the default: its programs (enum tsync_status_chain + 1; default read), how many of
         * PID 1's it carries (+ 1; default all its filters), an io_uring ring's fd. */
        int chain[N_TASKS];
        int matched[N_TASKS];
        int io_uring[N_TASKS];
        const char *init_exe; /* PID 1's exe as /proc shows it, when not the default */
        const char *comm;     /* the workload's comm, when not the default */
};

#define PLAN(...)                                                                                                      \
        {                                                                                                              \
                .asked = true, .plan = true, .source = "plan", .baseline_known = true, __VA_ARGS__                     \
        }
#define ALL3                                                                                                           \
        {                                                                                                              \
                true, true, true, false, false                                                                         \
        }

/* The older rows are positional and leave the per-task program fields at their defaults. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct row rows[] = {
        /* lockdown's record (issue 26): its layers on top of everything, for every task. */
        { "a_locked_down_container_of_ours_carries_the_added_layer_everywhere",
          true,
          PLAN(.baseline = 1, .n_tsync = 1, .n_lockdown = 1),
          ALL3,
          { 3, 3, 3 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_PROTECTED,
          0,
          NULL },
        { "a_task_missing_a_locked_down_layer_carries_less_than_asked",
          true,
          PLAN(.baseline = 1, .n_tsync = 1, .n_lockdown = 1),
          { true, true, true, true },
          { 3, 3, 3, 2 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_SHORT,
          1,
          "pid 103 tid 103 (sh, other): 2 seccomp filters, 3 asked (the runtime's linux.seccomp + 1 of the plan's + "
          "1 added by lockdown)" },
        { "a_container_asking_nothing_but_locked_down_is_judged_by_the_record",
          false,
          { .source = "nothing", .baseline_known = true, .baseline = 1, .n_lockdown = 2 },
          ALL3,
          { 3, 3, 1 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_SHORT,
          1,
          "pid 102 tid 102 (sleep, workload): 1 seccomp filter, 3 asked" },
        { "a_container_asking_nothing_locked_down_everywhere_is_protected",
          false,
          { .source = "nothing", .baseline_known = true, .baseline = 0, .n_lockdown = 1 },
          ALL3,
          { 1, 1, 1 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_PROTECTED,
          0,
          NULL },
        { "every_task_carries_the_baseline_and_a_layer",
          true,
          PLAN(.baseline = 1, .n_tsync = 1),
          ALL3,
          { 2, 2, 2 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_PROTECTED,
          0,
          NULL },
        { "a_workload_with_filters_of_its_own_carries_more_than_asked",
          true,
          PLAN(.baseline = 1, .n_tsync = 1),
          ALL3,
          { 2, 2, 4 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_PROTECTED,
          0,
          NULL },
        { "a_workload_short_of_a_filter_is_named",
          true,
          PLAN(.baseline = 1, .n_tsync = 1),
          ALL3,
          { 2, 2, 1 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_SHORT,
          1,
          "pid 102 tid 102 (sleep, workload): 1 seccomp filter, 2 asked" },
        { "a_thread_of_the_init_short_of_a_filter_is_named",
          true,
          PLAN(.baseline = 0, .n_tsync = 2),
          ALL3,
          { 2, 1, 2 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_SHORT,
          1,
          "pid 100 tid 101 (tsync-signals, init-thread): 1" },
        { "an_execd_process_carries_the_runtimes_profile_alone",
          true,
          PLAN(.baseline = 1, .n_tsync = 1),
          { true, true, true, true },
          { 2, 2, 2, 1 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_SHORT,
          1,
          "pid 103 tid 103 (sh, other): 1 seccomp filter, 2 asked (the runtime's linux.seccomp + 1 of the plan's): "
          "not started by the container's PID 1" },
        /* A runtime's binary is known by its name, which any process can borrow (issue 35): short of the
         * filters, it is not short (it loads its profile before it runs the container's program), but never
         * protected either. */
        { "a_process_the_runtime_still_sets_up_is_unverified_not_short",
          true,
          PLAN(.baseline = 1, .n_tsync = 1),
          { true, true, true, false, false, true },
          { 2, 2, 2, 0, 0, 0 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_UNVERIFIED,
          1,
          "pid 106 tid 106 (runc:[2:INIT], starting): unverified: it runs a runtime's binary by its name" },
        { .name = "a_process_the_runtime_sets_up_that_carries_every_filter_passes",
          .init_ours = true,
          .e = PLAN(.baseline = 1, .n_tsync = 1),
          .present = { true, true, true, false, false, true },
          .filters = { 2, 2, 2, 0, 0, 2 },
          .want = TSYNC_VERDICT_PROTECTED },
        { "a_dead_task_is_not_judged",
          true,
          PLAN(.baseline = 1, .n_tsync = 1),
          { true, true, true, false, false, false, true },
          { 2, 2, 2, 0, 0, 0, 1 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_PROTECTED,
          0,
          NULL },
        { "annotations_without_our_init_are_unprotected",
          false,
          { .asked = true,
            .source = "annotations",
            .asked_by = TSYNC_ANNOTATION_LAYERS,
            .baseline_known = true,
            .baseline = 1 },
          ALL3,
          { 1, 1, 1 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_UNPROTECTED,
          1,
          "pid 100 (init): the container's PID 1 is not oci-seccomp-tsync's init" },
        { "nothing_asked_and_nothing_of_ours_runs",
          false,
          { .source = "nothing", .baseline_known = true },
          ALL3,
          { 0, 0, 0 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_NOT_ASKED,
          0,
          NULL },
        { "a_plan_run_in_place_carries_its_filters_as_pid_1",
          false,
          PLAN(.baseline = 1, .n_tsync = 1, .in_place = true),
          { true, false, true },
          { 2, 0, 2 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_PROTECTED,
          0,
          NULL },
        { "a_plan_whose_pid_1_is_neither_our_init_nor_filtered_is_unprotected",
          false,
          PLAN(.baseline = 1, .n_tsync = 1),
          { true, false, true },
          { 1, 0, 1 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_UNPROTECTED,
          2,
          "pid 100 tid 100 (init, init): 1 seccomp filter, 2 asked" },
        { "exec_once_without_its_supervisor_thread_is_short",
          true,
          PLAN(.n_tsync = 2, .exec_once = 1),
          ALL3,
          { 2, 2, 2 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_SHORT,
          1,
          "pid 100 (init): no exec-once supervisor thread" },
        { "exec_once_with_its_supervisor_thread_is_protected",
          true,
          PLAN(.n_tsync = 2, .exec_once = 1),
          { true, true, true, false, true },
          { 2, 2, 2, 0, 2 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_PROTECTED,
          0,
          NULL },
        { "the_recording_is_asked_on_the_main_thread_and_the_workload",
          true,
          PLAN(.n_tsync = 1, .record = true),
          { true, true, true, false, false },
          { 2, 1, 2 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_SHORT,
          1,
          "pid 100 (init): no recorder thread" },
        { "a_main_thread_without_the_recording_is_short",
          true,
          PLAN(.n_tsync = 1, .record = true),
          ALL3,
          { 1, 1, 2 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_SHORT,
          2,
          "pid 100 tid 100 (init, init): 1 seccomp filter, 2 asked" },
        { "no_new_privileges_asked_and_missing_on_the_workload",
          true,
          PLAN(.n_tsync = 1, .no_new_privs = true),
          ALL3,
          { 1, 1, 1 },
          { 1, 1, 0 },
          { 0 },
          TSYNC_VERDICT_SHORT,
          1,
          "pid 102 tid 102 (sleep, workload): NoNewPrivs 0, the config asked noNewPrivileges" },
        { "a_capability_beyond_the_bounding_set_is_short",
          true,
          PLAN(.n_tsync = 1, .have_caps = true, .caps = { KILL, KILL, 0, KILL, 0 }),
          ALL3,
          { 1, 1, 1 },
          { 0 },
          { KILL, KILL, KILL | ADMIN },
          TSYNC_VERDICT_SHORT,
          1,
          "pid 102 tid 102 (sleep, workload): CapEff holds CAP_SYS_ADMIN, beyond the config's bounding and "
          "inheritable sets" },
        { "a_lent_capability_left_on_an_init_thread_is_short",
          true,
          PLAN(.n_tsync = 1, .have_caps = true, .caps = { KILL | ADMIN, KILL, 0, KILL, 0 }),
          ALL3,
          { 1, 1, 1 },
          { 0 },
          { KILL, KILL | ADMIN, KILL },
          TSYNC_VERDICT_SHORT,
          1,
          "pid 100 tid 101 (tsync-signals, init-thread): CapEff holds CAP_SYS_ADMIN, beyond the config's effective" },
        { "fewer_capabilities_than_the_config_are_no_shortfall",
          true,
          PLAN(.n_tsync = 1, .have_caps = true, .caps = { KILL | ADMIN, KILL | ADMIN, 0, KILL | ADMIN, 0 }),
          ALL3,
          { 1, 1, 1 },
          { 0 },
          { KILL, 0, 0 },
          TSYNC_VERDICT_PROTECTED,
          0,
          NULL },
        /* Issue 35: counts are what a task can forge; programs are not. */
        { .name = "a_task_whose_filters_are_its_own_programs_is_short_although_its_count_is_right",
          .init_ours = true,
          .e = PLAN(.baseline = 1, .n_tsync = 1),
          .present = ALL3,
          .filters = { 2, 2, 3 },
          .matched = { 0, 0, 1 + 1 },
          .want = TSYNC_VERDICT_SHORT,
          .want_lines = 1,
          .want_text = "pid 102 tid 102 (sleep, workload): 3 seccomp filters, but only 1 of them PID 1's programs, 2 "
                       "asked" },
        { .name = "a_task_whose_programs_were_not_read_is_unverified_never_protected",
          .init_ours = true,
          .e = PLAN(.baseline = 1, .n_tsync = 1),
          .present = ALL3,
          .filters = { 2, 2, 2 },
          .chain = { 0, 0, TSYNC_CHAIN_FAILED + 1 },
          .want = TSYNC_VERDICT_UNVERIFIED,
          .want_lines = 1,
          .want_text = "pid 102 tid 102 (sleep, workload): unverified: its programs were not read: it did not stop" },
        { .name = "programs_not_read_at_all_are_unverified_with_one_line",
          .init_ours = true,
          .e = PLAN(.baseline = 1, .n_tsync = 1),
          .present = ALL3,
          .filters = { 2, 2, 2 },
          .chain = { TSYNC_CHAIN_NOT_READ + 1, TSYNC_CHAIN_NOT_READ + 1, TSYNC_CHAIN_NOT_READ + 1 },
          .want = TSYNC_VERDICT_UNVERIFIED,
          .want_lines = 1,
          .want_text = "unverified: no task's programs were read" },
        { .name = "a_task_holding_an_io_uring_ring_is_short",
          .init_ours = true,
          .e = PLAN(.baseline = 1, .n_tsync = 1),
          .present = ALL3,
          .filters = { 2, 2, 2 },
          .io_uring = { 0, 0, 5 },
          .want = TSYNC_VERDICT_SHORT,
          .want_lines = 1,
          .want_text = "pid 102 tid 102 (sleep, workload): holds an io_uring ring (fd 5)" },
        { .name = "a_comm_with_control_bytes_is_quoted_in_its_line",
          .init_ours = true,
          .e = PLAN(.baseline = 1, .n_tsync = 1),
          .present = ALL3,
          .filters = { 2, 2, 1 },
          .comm = "a\nok\x1b[2J",
          .want = TSYNC_VERDICT_SHORT,
          .want_lines = 1,
          .want_text = "pid 102 tid 102 (a\\x0aok\\x1b[2J, workload): 1 seccomp filter, 2 asked" },
        { .name = "an_unknown_key_of_ours_is_named_as_such",
          .init_ours = false,
          .e = { .asked = true,
                 .source = "annotations",
                 .asked_by = "io.oci-seccomp-tsync.layer",
                 .asked_by_unknown = true,
                 .baseline_known = true },
          .present = ALL3,
          .filters = { 0, 0, 0 },
          .init_exe = "/bin/\x1b]0;x\x07sleep",
          .want = TSYNC_VERDICT_UNPROTECTED,
          .want_lines = 1,
          .want_text = "(/bin/\\x1b]0;x\\x07sleep): annotations.io.oci-seccomp-tsync.layer is not a key of "
                       "oci-seccomp-tsync (misspelt?" },
        { "without_seccomp_filters_counts_mode_2_is_enough",
          true,
          PLAN(.n_tsync = 1),
          ALL3,
          { -1, -1, -1 },
          { 0 },
          { 0 },
          TSYNC_VERDICT_PROTECTED,
          0,
          NULL },
};
#pragma GCC diagnostic pop

static void run_row(const struct row *w)
{
        struct tsync_status_task tasks[N_TASKS];
        struct tsync_status st = { .init_pid = 100, .init_ours = w->init_ours, .tasks = tasks };
        (void)snprintf(st.init_exe, sizeof(st.init_exe), "%s",
                       w->init_exe    ? w->init_exe
                       : w->init_ours ? TSYNC_CONTAINER_INIT
                                      : "/bin/busybox");
        for (size_t i = 0; i < N_TASKS; i++) {
                if (!w->present[i])
                        continue;
                struct tsync_status_task t = layout[i];
                if (i == WORKLOAD && w->comm)
                        (void)snprintf(t.comm, sizeof(t.comm), "%s", w->comm);
                t.filters = w->filters[i];
                t.seccomp = w->filters[i] != 0 ? 2 : 0;
                t.no_new_privs = w->nnp[i];
                for (size_t s = 0; s < TSYNC_CAPSET_COUNT; s++)
                        t.caps[s] = w->e.have_caps ? w->e.caps[s] : 0;
                t.caps[TSYNC_CAPSET_EFFECTIVE] = w->e.have_caps ? w->eff[i] : 0;
                /* Programs read, every filter one of PID 1's, unless the row says otherwise. */
                t.io_uring_fd = -1;
                t.chain = w->chain[i] ? w->chain[i] - 1 : TSYNC_CHAIN_READ;
                t.matched = w->matched[i] ? w->matched[i] - 1 : w->filters[i] < 0 ? INT_MAX : w->filters[i];
                if (t.chain == TSYNC_CHAIN_FAILED)
                        (void)snprintf(t.why, sizeof(t.why), "it did not stop within the deadline");
                if (w->io_uring[i])
                        t.io_uring_fd = w->io_uring[i];
                tasks[st.n++] = t;
        }
        struct tsync_warnings out = { 0 };
        enum tsync_verdict v = tsync_status_decide(&st, &w->e, &out);
        const char *first = out.len ? out.msgs[0] : "";
        tap_ok(v == w->want && out.len == w->want_lines && (!w->want_text || strstr(first, w->want_text)),
               "test_status_%s (%s, %zu line%s: %s)", w->name, tsync_verdict_name(v), out.len, out.len == 1 ? "" : "s",
               first);
        tsync_warnings_clear(&out);
}

static void test_roles(void)
{
        struct tsync_status_task tasks[] = { layout[INIT],
                                             layout[SIGNALS],
                                             layout[WORKLOAD],
                                             layout[EXECD],
                                             /* a grandchild of PID 1 */
                                             { .pid = 105, .tid = 105, .ppid = 102, .comm = "child" } };
        struct tsync_status st = { .init_pid = 100, .init_ours = true, .tasks = tasks, .n = ARRAY_SIZE(tasks) };
        struct tsync_status_expect e = PLAN(.n_tsync = 0);
        struct tsync_warnings out = { 0 };
        (void)tsync_status_decide(&st, &e, &out);
        tap_ok(tasks[0].role == TSYNC_ROLE_INIT && tasks[1].role == TSYNC_ROLE_INIT_TASK &&
                       tasks[2].role == TSYNC_ROLE_WORKLOAD && tasks[3].role == TSYNC_ROLE_OTHER &&
                       tasks[4].role == TSYNC_ROLE_WORKLOAD,
               "test_status_roles_follow_the_parent_chain_to_pid_1");
        tsync_warnings_clear(&out);
}

static void test_expect_from_config(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = unit_parse("{\"process\": {\"args\": [\"sleep\", \"1\"], \"noNewPrivileges\": true, "
                                          "\"capabilities\": {\"bounding\": [\"CAP_KILL\"], \"effective\": "
                                          "[\"CAP_KILL\"]}}, \"linux\": {\"seccomp\": {\"defaultAction\": "
                                          "\"SCMP_ACT_ALLOW\"}}, \"annotations\": {}}");
        struct tsync_request req = { .mode = TSYNC_MODE_LAYER,
                                     .layers = { "/l/a.json", "/l/b.json" },
                                     .n_layers = 2,
                                     .init = { .exec_once = EPERM } };
        struct tsync_plan *plan = NULL;
        char *text = NULL;
        struct tsync_status_expect e = { 0 };
        int r = tsync_status_expect_from_config(c, &e, &err);
        tap_ok(r == 0 && !e.asked && strcmp(e.source, "nothing") == 0 && e.baseline == 1,
               "test_status_a_config_without_ours_asks_nothing (%s)", err.msg);
        r = tsync_plan_new(c, &req, "/b/oci-seccomp-tsync", &plan, &err);
        r = r ?: tsync_plan_to_json(plan, &text, &err);
        r = r ?: unit_annotate_plan(c, text);
        r = r ?: tsync_status_expect_from_config(c, &e, &err);
        tap_ok(r == 0 && e.asked && e.plan && e.baseline == 1 && e.n_tsync == 3 && e.exec_once == EPERM &&
                       e.n_layers == 2 && e.no_new_privs && e.have_caps && e.caps[TSYNC_CAPSET_BOUNDING] == KILL &&
                       e.caps[TSYNC_CAPSET_PERMITTED] == 0,
               "test_status_a_plan_asks_its_layers_exec_once_and_the_original_sets (%s)", err.msg);
        tsync_plan_free(plan);
        free(text);
        tsync_json_free(c);

        c = unit_parse("{\"annotations\": {\"io.oci-seccomp-tsync.exec\": \"once\"}}");
        r = tsync_status_expect_from_config(c, &e, &err);
        tap_ok(r == 0 && e.asked && !e.plan && e.asked_by && strcmp(e.asked_by, TSYNC_ANNOTATION_EXEC) == 0 &&
                       e.baseline == 0,
               "test_status_an_annotation_alone_asks (%s)", e.asked_by ? e.asked_by : "none");
        tsync_json_free(c);
        c = unit_parse("{\"annotations\": {\"run.oci.seccomp_fail_unknown_syscall\": \"1\"}}");
        r = tsync_status_expect_from_config(c, &e, &err);
        tap_ok(r == 0 && !e.asked, "test_status_crun_s_annotation_alone_asks_nothing");
        tsync_json_free(c);
}

static void test_expect_from_cmdline(void)
{
        static const char cmd[] = "/.oci-seccomp-tsync/init\0--filter\0/f/00.bpf\0--filter\0"
                                  "/f/01.bpf\0--bounding\0CAP_KILL\0--no-new-privs\0--record\0/r\0--\0sleep\0"
                                  "--filter\0x";
        struct tsync_err err = { 0 };
        struct tsync_status_expect e;
        int r = tsync_status_expect_from_cmdline(cmd, sizeof(cmd), &e, &err);
        tap_ok(r == 0 && e.asked && !e.plan && !e.baseline_known && e.n_tsync == 1 && e.record && !e.exec_once &&
                       e.no_new_privs && e.have_caps && e.caps[TSYNC_CAPSET_BOUNDING] == KILL,
               "test_status_the_init_s_command_line_asks_what_it_names_before_its_double_dash (%s)", err.msg);
        static const char once[] = "/.oci-seccomp-tsync/init\0--exec-once\0"
                                   "13\0--filter-data\0AAAA\0--\0sleep";
        r = tsync_status_expect_from_cmdline(once, sizeof(once), &e, &err);
        tap_ok(r == 0 && e.n_tsync == 1 && !e.record && e.exec_once == 13 && !e.have_caps,
               "test_status_the_init_s_exec_once_and_filter_data (%s)", err.msg);
        static const char cut[] = "/.oci-seccomp-tsync/init\0--filter";
        r = tsync_status_expect_from_cmdline(cut, sizeof(cut), &e, &err);
        tap_ok(r < 0 && strstr(err.msg, "--filter needs an argument"), "test_status_a_cut_command_line_is_refused (%s)",
               err.msg);
        /* What the init refuses to run with is no command line of a running init. */
        static const char both[] = "/.oci-seccomp-tsync/init\0--exec\0--exec-once\0"
                                   "1\0--\0sleep";
        r = tsync_status_expect_from_cmdline(both, sizeof(both), &e, &err);
        tap_ok(r < 0 && strstr(err.msg, "--exec-once cannot be combined with --exec"),
               "test_status_reads_with_the_init_s_conflict_rules (%s)", err.msg);
        static const char older[] = "/.oci-seccomp-tsync/init\0--filter\0/f/00.bpf\0--agent-state\0/a\0--\0sleep";
        r = tsync_status_expect_from_cmdline(older, sizeof(older), &e, &err);
        tap_ok(r == 0 && e.n_tsync == 1, "test_status_reads_an_older_init_s_agent_state (%s)", err.msg);
}

/* The reader of a task's /proc status, on this process, against what we know of it. */
static void test_read_task(void)
{
        struct tsync_status_task t;
        (void)prctl(PR_SET_NAME, "tsync-unit");
        int r = tsync_status_read_task(getpid(), gettid(), &t);
        tap_ok(r == 0 && t.pid == getpid() && t.tid == gettid() && t.ppid == getppid() &&
                       strcmp(t.comm, "tsync-unit") == 0 && t.state == 'R' && !t.dead && t.seccomp >= 0 &&
                       t.ns_pid > 0 && t.caps[TSYNC_CAPSET_BOUNDING] != 0,
               "test_status_reads_this_task: %d pid %d ppid %d comm '%s' state %c ns_pid %d", r, (int)t.pid,
               (int)t.ppid, t.comm, t.state ? t.state : '?', (int)t.ns_pid);
        /* A tid no process has (beyond pid_max's largest) is gone, not an error. */
        r = tsync_status_read_task(getpid(), 1 << 30, &t);
        tap_ok(r == -ENOENT, "test_status_a_gone_task_is_enoent: %d", r);

        /* TracerPid, which lockdown refuses: a child we seize shows us. */
        pid_t child = fork();
        if (child == 0) {
                pause();
                _exit(0);
        }
        long seized = child > 0 ? ptrace(PTRACE_SEIZE, child, NULL, NULL) : -1;
        struct tsync_status_task c = { 0 };
        r = child > 0 ? tsync_status_read_task(child, child, &c) : -errno;
        tap_ok(seized == 0 && r == 0 && c.tracer == getpid(),
               "test_status_reads_the_tracer: seize %ld read %d tracer %d", seized, r, (int)c.tracer);
        if (child > 0) {
                (void)kill(child, SIGKILL);
                (void)waitpid(child, NULL, 0);
        }
}

/* A comm with ") (" in it must not move the fields. */
static void test_proc_stat(void)
{
        (void)prctl(PR_SET_NAME, "a) R 1 (b");
        char *line = NULL;
        const char *fields = NULL;
        struct tsync_err err = { 0 };
        int ppid = 0;
        char state = 0;
        int r = tsync_proc_stat_read(getpid(), &line, &fields, &err);
        bool ok = r == 0 && sscanf(fields, " %c %d", &state, &ppid) == 2;
        tap_ok(ok && state == 'R' && ppid == getppid(), "test_status_proc_stat_fields_after_the_comm: %d %c %d (%s)", r,
               state ? state : '?', ppid, r < 0 ? err.msg : "read");
        free(line);
        line = NULL;
        r = tsync_proc_stat_read(1 << 30, &line, &fields, &err);
        tap_ok(r == -ENOENT && !line && strstr(err.msg, "/proc/1073741824/stat"),
               "test_status_proc_stat_of_no_process: %d (%s)", r, err.msg);
        free(line);
        (void)prctl(PR_SET_NAME, "tsync-unit");
}

/* Waits until pid has ended, leaving it a zombie (WNOWAIT). */
static int siginfo_wait_exit(pid_t pid)
{
        siginfo_t si;
        return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
}

/* A task that ends between /proc's list and the read of its programs is
 * gone, not unread: a zombie not yet reaped, which PTRACE_SEIZE refuses with
 * EPERM while tgkill still finds it (a workload that forks short-lived
 * children, test_hostile's testStatusReadsAContainerWhoseTasksComeAndGo). */
static void test_compare_programs_skips_a_task_that_became_a_zombie(void)
{
        pid_t init = fork();
        if (init == 0) {
                struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
                struct sock_fprog prog = { .len = 1, .filter = allow };
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
                        _exit(1);
                for (;;)
                        pause();
        }
        pid_t zombie = fork();
        if (zombie == 0)
                _exit(0);
        struct tsync_status_task tasks[2] = { 0 };
        struct stat exe = { 0 };
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/exe", (int)init);
        /* As /proc was read: the zombie still alive then. */
        for (int i = 0; i < 100 && tsync_status_read_task(init, init, &tasks[0]) == 0 && tasks[0].seccomp != 2; i++)
                (void)usleep(10000);
        tasks[1] = (struct tsync_status_task){ .pid = zombie, .tid = zombie, .filters = -1, .expected = -1 };
        (void)siginfo_wait_exit(zombie);
        struct tsync_status st = { .init_pid = init, .tasks = tasks, .n = 2 };
        bool setup = init > 0 && zombie > 0 && tasks[0].seccomp == 2 && stat(path, &exe) == 0;
        st.init_exe_known = true;
        st.init_dev = exe.st_dev;
        st.init_ino = exe.st_ino;
        int r = setup ? tsync_status_compare_programs(&st) : -1;
        tap_ok(r == 0 && tasks[0].chain == TSYNC_CHAIN_READ && tasks[1].dead && tasks[1].chain != TSYNC_CHAIN_FAILED,
               "test_status_a_task_that_became_a_zombie_is_gone_not_unread (setup %d, r %d, init chain %d, zombie "
               "dead %d chain %d: %s)",
               setup, r, tasks[0].chain, tasks[1].dead, tasks[1].chain, tasks[1].why);
        st.tasks = NULL;
        st.n = 0;
        tsync_status_clear(&st);
        (void)kill(init, SIGKILL);
        (void)waitpid(init, NULL, 0);
        (void)waitpid(zombie, NULL, 0);
}

int main(void)
{
        test_read_task();
        test_compare_programs_skips_a_task_that_became_a_zombie();
        test_proc_stat();
        for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
                run_row(&rows[i]);
        test_roles();
        test_expect_from_config();
        test_expect_from_cmdline();
        return tap_done();
}
