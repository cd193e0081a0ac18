/* The init's capability decision (hook/shared/init_caps.c, shared/init_caps.h): a
 * table of what the process holds (root or not, lent CAP_SYS_ADMIN and
 * CAP_SETPCAP or not, NO_NEW_PRIVS, ambient, securebits, gVisor's missing
 * ambient set and NoNewPrivs line) and what the init was asked, each row to
 * the plan (drops, capset, raises, every thread's end) or the refusal's exact
 * line, with the warnings. Then properties every accepted row must keep. */
#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "shared/init_caps.h"
#include "tap.h"

#define C(x)      (UINT64_C(1) << (x))
#define CHOWN     C(CAP_CHOWN)
#define DAC       C(CAP_DAC_OVERRIDE)
#define FOWNER    C(CAP_FOWNER)
#define KILL      C(CAP_KILL)
#define SETGID    C(CAP_SETGID)
#define SETUID    C(CAP_SETUID)
#define SETPCAP   C(CAP_SETPCAP)
#define NET_BIND  C(CAP_NET_BIND_SERVICE)
#define NET_ADMIN C(CAP_NET_ADMIN)
#define NET_RAW   C(CAP_NET_RAW)
#define PTRACE    C(CAP_SYS_PTRACE)
#define ADMIN     C(CAP_SYS_ADMIN)
#define LAST      40
#define ALL       ((C(LAST) << 1) - 1)
/* A runtime's default set, short: enough for every rule below. */
#define DEF (CHOWN | DAC | FOWNER | KILL | SETGID | SETUID | SETPCAP | NET_BIND | NET_RAW)

/* The five sets in the runtime-spec's order (enum tsync_capset). */
#define SETS(b, e, i, p, a)                                                                                            \
        {                                                                                                              \
                b, e, i, p, a                                                                                          \
        }
#define GIVEN_ALL                                                                                                      \
        {                                                                                                              \
                true, true, true, true, true                                                                           \
        }
#define GIVEN_NONE                                                                                                     \
        {                                                                                                              \
                false, false, false, false, false                                                                      \
        }

/* Held: a root init the runtime lent CAP_SYS_ADMIN (noNewPrivileges false). */
#define ROOT_LENT .last_cap = LAST, .sets = SETS(DEF | ADMIN, DEF | ADMIN, 0, DEF | ADMIN, 0), .nnp_shown = true
/* Held: a root init under noNewPrivileges false that was lent nothing. */
#define ROOT_BARE .last_cap = LAST, .sets = SETS(DEF, DEF, 0, DEF, 0), .nnp_shown = true
/* Held: a root init under noNewPrivileges true (nothing lent). */
#define ROOT_NNP .last_cap = LAST, .sets = SETS(DEF, DEF, 0, DEF, 0), .nnp = true, .nnp_shown = true
/* Plan: a root init lent CAP_SYS_ADMIN drops it from the bounding set, sets
 * the asked sets, and gives it up (the capset) only after the filters' load. */
#define LENT_PLAN .bounding_drop = ADMIN, .capset = true, .caps_after_filter = true
/* Asked: the runtime's default sets, as the config had them. */
#define ASK_DEF .given = GIVEN_ALL, .want = SETS(DEF, DEF, 0, DEF, 0), .filters = true

/* The refusal of an init that holds neither means of loading a filter. */
#define NEITHER_ADMIN_NOR_NNP                                                                                          \
        "seccomp: loading a filter needs CAP_SYS_ADMIN (effective) or NO_NEW_PRIVS, and the init has neither: lend "   \
        "it CAP_SYS_ADMIN (it is dropped again before the workload runs), set noNewPrivileges, or pass --allow-nnp "   \
        "to set NO_NEW_PRIVS"

struct row {
        const char *name;
        struct tsync_init_caps_held held;
        struct tsync_init_caps_opts opts;
        const char *refusal; /* the whole line after "seccomp-tsync-init: ", or NULL */
        struct tsync_init_caps_plan want;
        struct tsync_init_caps_warnings warn;
};

static const struct row rows[] = {
        /* Root, lent CAP_SYS_ADMIN. */
        { "root_lent_sys_admin_drops_it_from_bounding_and_gives_it_up_after_the_load",
          { ROOT_LENT },
          { ASK_DEF },
          NULL,
          { LENT_PLAN, .expect = SETS(DEF, DEF, 0, DEF, 0) },
          { 0 } },
        { "root_lent_sys_admin_without_filters_changes_everything_first",
          { ROOT_LENT },
          { .given = GIVEN_ALL, .want = SETS(DEF, DEF, 0, DEF, 0) },
          NULL,
          { .bounding_drop = ADMIN, .capset = true, .expect = SETS(DEF, DEF, 0, DEF, 0) },
          { 0 } },
        { "root_lent_sys_admin_and_setpcap_drops_both",
          { .last_cap = LAST, .sets = SETS(DEF | ADMIN, DEF | ADMIN, 0, DEF | ADMIN, 0), .nnp_shown = true },
          { .given = GIVEN_ALL, .want = SETS(DEF & ~SETPCAP, DEF & ~SETPCAP, 0, DEF & ~SETPCAP, 0), .filters = true },
          NULL,
          { .bounding_drop = ADMIN | SETPCAP,
            .capset = true,
            .caps_after_filter = true,
            .expect = SETS(DEF & ~SETPCAP, DEF & ~SETPCAP, 0, DEF & ~SETPCAP, 0) },
          { 0 } },
        { "root_with_no_option_keeps_what_it_holds",
          { ROOT_LENT },
          { .given = GIVEN_NONE, .filters = true },
          NULL,
          { .caps_after_filter = true, .expect = SETS(DEF | ADMIN, DEF | ADMIN, 0, DEF | ADMIN, 0) },
          { 0 } },
        { "root_with_the_sets_it_holds_changes_nothing",
          { ROOT_LENT },
          { .given = GIVEN_ALL, .want = SETS(DEF | ADMIN, DEF | ADMIN, 0, DEF | ADMIN, 0), .filters = true },
          NULL,
          { .caps_after_filter = true, .expect = SETS(DEF | ADMIN, DEF | ADMIN, 0, DEF | ADMIN, 0) },
          { 0 } },
        { "an_effective_set_smaller_than_permitted_is_a_capset",
          { ROOT_LENT },
          { .given = GIVEN_ALL, .want = SETS(DEF, KILL, 0, DEF, 0), .filters = true },
          NULL,
          { LENT_PLAN, .expect = SETS(DEF, KILL, 0, DEF, 0) },
          { 0 } },

        /* NO_NEW_PRIVS. */
        { "nnp_already_set_and_asked_changes_everything_before_the_load",
          { ROOT_NNP },
          { ASK_DEF, .no_new_privs = true },
          NULL,
          { .expect = SETS(DEF, DEF, 0, DEF, 0), .expect_nnp = true },
          { 0 } },
        { "nnp_asked_but_not_set_is_set_before_the_load",
          { ROOT_BARE },
          { ASK_DEF, .no_new_privs = true },
          NULL,
          { .set_nnp = true, .expect = SETS(DEF, DEF, 0, DEF, 0), .expect_nnp = true },
          { 0 } },
        { "nnp_set_but_not_asked_is_refused",
          { ROOT_NNP },
          { ASK_DEF },
          "no_new_privs: it is already set, but the config does not ask for it (noNewPrivileges is false): pass "
          "--no-new-privs if it should be set, or start the init without it",
          { 0 },
          { 0 } },
        { "nnp_set_unasked_by_a_kernel_that_does_not_show_it_is_a_warning",
          { .last_cap = LAST, .sets = SETS(DEF, DEF, 0, DEF, 0), .nnp = true, .nnp_shown = false },
          { ASK_DEF },
          NULL,
          { .expect = SETS(DEF, DEF, 0, DEF, 0), .expect_nnp = true },
          { .nnp_unasked = true } },
        { "neither_sys_admin_nor_nnp_is_refused_with_filters",
          { ROOT_BARE },
          { ASK_DEF },
          NEITHER_ADMIN_NOR_NNP,
          { 0 },
          { 0 } },
        { "sys_admin_permitted_but_not_effective_is_not_enough",
          { .last_cap = LAST, .sets = SETS(DEF | ADMIN, DEF, 0, DEF | ADMIN, 0), .nnp_shown = true },
          { ASK_DEF },
          NEITHER_ADMIN_NOR_NNP,
          { 0 },
          { 0 } },
        { "allow_nnp_sets_it_when_nothing_else_can_load",
          { ROOT_BARE },
          { ASK_DEF, .allow_nnp = true },
          NULL,
          { .set_nnp = true, .expect = SETS(DEF, DEF, 0, DEF, 0), .expect_nnp = true },
          { 0 } },
        { "allow_nnp_is_not_used_when_sys_admin_is_lent",
          { ROOT_LENT },
          { ASK_DEF, .allow_nnp = true },
          NULL,
          { LENT_PLAN, .expect = SETS(DEF, DEF, 0, DEF, 0) },
          { 0 } },
        { "without_filters_nothing_needs_sys_admin_or_nnp",
          { ROOT_BARE },
          { .given = GIVEN_ALL, .want = SETS(DEF, DEF, 0, DEF, 0) },
          NULL,
          { .expect = SETS(DEF, DEF, 0, DEF, 0) },
          { 0 } },

        /* The bounding set. */
        { "a_capability_outside_the_bounding_set_cannot_be_added",
          { ROOT_LENT },
          { .given = GIVEN_ALL, .want = SETS(DEF | NET_ADMIN, DEF, 0, DEF, 0), .filters = true },
          "capabilities: CAP_NET_ADMIN is not in the bounding set and cannot be added to it",
          { 0 },
          { 0 } },
        { "a_bounding_drop_without_setpcap_is_refused",
          { .last_cap = LAST,
            .sets = SETS(DEF | ADMIN, (DEF | ADMIN) & ~SETPCAP, 0, DEF | ADMIN, 0),
            .nnp_shown = true },
          { ASK_DEF },
          "capabilities: dropping from the bounding set needs CAP_SETPCAP (effective), which the init lacks",
          { 0 },
          { 0 } },
        { "a_bounding_set_reduced_to_nothing_drops_every_held_bit",
          { .last_cap = LAST, .sets = SETS(ALL, ALL, 0, ALL, 0), .nnp_shown = true },
          { .given = GIVEN_ALL, .want = SETS(0, 0, 0, 0, 0), .filters = true },
          NULL,
          { .bounding_drop = ALL, .capset = true, .caps_after_filter = true, .expect = SETS(0, 0, 0, 0, 0) },
          { 0 } },

        /* Non-root users: capabilities arrive through the ambient set only. */
        { "non_root_gets_the_configs_permitted_set_cut_to_what_it_holds",
          { .last_cap = LAST,
            .sets = SETS(DEF, NET_BIND, NET_BIND, NET_BIND, NET_BIND),
            .nnp = true,
            .nnp_shown = true },
          { .given = GIVEN_ALL,
            .want = SETS(DEF, DEF, NET_BIND, DEF, NET_BIND),
            .no_new_privs = true,
            .filters = true },
          NULL,
          { .expect = SETS(DEF, NET_BIND, NET_BIND, NET_BIND, NET_BIND), .expect_nnp = true },
          { 0 } },
        { "non_root_without_capabilities_ends_with_none",
          { .last_cap = LAST, .sets = SETS(DEF, 0, 0, 0, 0), .nnp = true, .nnp_shown = true },
          { .given = GIVEN_ALL, .want = SETS(DEF, DEF, 0, DEF, 0), .no_new_privs = true, .filters = true },
          NULL,
          { .expect = SETS(DEF, 0, 0, 0, 0), .expect_nnp = true },
          { 0 } },
        { "non_root_cannot_drop_from_the_bounding_set",
          { .last_cap = LAST, .sets = SETS(ALL, 0, 0, 0, 0), .nnp = true, .nnp_shown = true },
          { .given = GIVEN_ALL, .want = SETS(DEF, DEF, 0, DEF, 0), .no_new_privs = true, .filters = true },
          "capabilities: dropping from the bounding set needs CAP_SETPCAP (effective), which the init lacks",
          { 0 },
          { 0 } },
        { "non_root_lent_sys_admin_through_ambient_gives_it_up_after_the_load",
          { .last_cap = LAST,
            .sets = SETS(DEF | ADMIN, NET_BIND | ADMIN, NET_BIND | ADMIN, NET_BIND | ADMIN, NET_BIND | ADMIN),
            .nnp_shown = true },
          { .given = GIVEN_ALL, .want = SETS(DEF | ADMIN, DEF, NET_BIND, DEF, NET_BIND), .filters = true },
          NULL,
          { .capset = true,
            .caps_after_filter = true,
            .expect = SETS(DEF | ADMIN, NET_BIND, NET_BIND, NET_BIND, NET_BIND) },
          { 0 } },
        { "non_root_cannot_add_an_unpermitted_inheritable_capability_without_setpcap",
          { .last_cap = LAST, .sets = SETS(DEF, 0, 0, 0, 0), .nnp = true, .nnp_shown = true },
          { .given = GIVEN_ALL, .want = SETS(DEF, 0, KILL, 0, 0), .no_new_privs = true, .filters = true },
          "capabilities: CAP_KILL cannot be added to the inheritable set without CAP_SETPCAP: it is not permitted",
          { 0 },
          { 0 } },

        /* Effective, permitted, inheritable. */
        { "effective_outside_permitted_is_refused",
          { ROOT_LENT },
          { .given = GIVEN_ALL, .want = SETS(DEF, DEF | KILL, 0, DEF & ~KILL, 0), .filters = true },
          "capabilities: CAP_KILL is asked for in the effective set but not in the permitted set",
          { 0 },
          { 0 } },
        { "inheritable_outside_the_bounding_set_is_refused",
          { ROOT_LENT },
          { .given = GIVEN_ALL, .want = SETS(DEF & ~NET_RAW, DEF, NET_RAW, DEF, 0), .filters = true },
          "capabilities: CAP_NET_RAW cannot be added to the inheritable set: it is not in the bounding set",
          { 0 },
          { 0 } },
        { "nothing_given_keeps_every_held_set_even_without_setpcap",
          { .last_cap = LAST,
            .sets = SETS(ALL, (DEF | ADMIN) & ~SETPCAP, 0, (DEF | ADMIN) & ~SETPCAP, 0),
            .nnp_shown = true },
          { .given = GIVEN_NONE, .want = SETS(0, 0, NET_ADMIN, 0, 0), .filters = true },
          NULL,
          { .caps_after_filter = true, .expect = SETS(ALL, (DEF | ADMIN) & ~SETPCAP, 0, (DEF | ADMIN) & ~SETPCAP, 0) },
          { 0 } },
        { "inheritable_not_permitted_without_setpcap_is_refused",
          { .last_cap = LAST,
            .sets = SETS(ALL, (DEF | ADMIN) & ~SETPCAP, 0, (DEF | ADMIN) & ~SETPCAP, 0),
            .nnp_shown = true },
          { .given = { false, false, true, false, false }, .want = SETS(0, 0, NET_ADMIN, 0, 0), .filters = true },
          "capabilities: CAP_NET_ADMIN cannot be added to the inheritable set without CAP_SETPCAP: it is not "
          "permitted",
          { 0 },
          { 0 } },
        { "inheritable_not_permitted_with_setpcap_is_added",
          { .last_cap = LAST, .sets = SETS(ALL, DEF | ADMIN, 0, DEF | ADMIN, 0), .nnp_shown = true },
          { .given = GIVEN_ALL, .want = SETS(ALL, DEF, NET_ADMIN, DEF, 0), .filters = true },
          NULL,
          { .capset = true, .caps_after_filter = true, .expect = SETS(ALL, DEF, NET_ADMIN, DEF, 0) },
          { 0 } },
        { "an_inheritable_capability_held_permitted_is_added",
          { ROOT_LENT },
          { .given = GIVEN_ALL, .want = SETS(DEF | ADMIN, DEF, ADMIN, DEF, 0), .filters = true },
          NULL,
          { .capset = true, .caps_after_filter = true, .expect = SETS(DEF | ADMIN, DEF, ADMIN, DEF, 0) },
          { 0 } },

        /* The ambient set. */
        { "an_ambient_capability_permitted_and_inheritable_is_raised",
          { ROOT_LENT },
          { .given = GIVEN_ALL, .want = SETS(DEF, DEF, NET_BIND, DEF, NET_BIND), .filters = true },
          NULL,
          { LENT_PLAN, .ambient = true, .amb_raise = NET_BIND, .expect = SETS(DEF, DEF, NET_BIND, DEF, NET_BIND) },
          { 0 } },
        { "an_ambient_capability_not_inheritable_is_a_warning",
          { ROOT_LENT },
          { .given = GIVEN_ALL, .want = SETS(DEF, DEF, 0, DEF, NET_RAW | NET_BIND), .filters = true },
          NULL,
          { LENT_PLAN, .ambient = true, .expect = SETS(DEF, DEF, 0, DEF, 0) },
          { .amb_unraisable = NET_RAW | NET_BIND } },
        { "no_cap_ambient_raise_forbids_every_raise",
          { ROOT_LENT, .securebits = SECBIT_NO_CAP_AMBIENT_RAISE },
          { .given = GIVEN_ALL, .want = SETS(DEF, DEF, NET_BIND, DEF, NET_BIND), .filters = true },
          NULL,
          { LENT_PLAN, .ambient = true, .expect = SETS(DEF, DEF, NET_BIND, DEF, 0) },
          { .amb_unraisable = NET_BIND, .amb_raise_forbidden = true } },
        { "an_ambient_set_the_capset_empties_needs_no_rebuild",
          { .last_cap = LAST,
            .sets = SETS(DEF | ADMIN, DEF | ADMIN, NET_BIND, DEF | ADMIN, NET_BIND),
            .nnp_shown = true },
          { ASK_DEF },
          NULL,
          { LENT_PLAN, .expect = SETS(DEF, DEF, 0, DEF, 0) },
          { 0 } },
        { "an_ambient_set_not_given_keeps_what_survives_the_capset",
          { .last_cap = LAST,
            .sets = SETS(DEF | ADMIN, DEF | ADMIN, NET_BIND | KILL, DEF | ADMIN, NET_BIND | KILL),
            .nnp_shown = true },
          { .given = { true, true, true, true, false },
            .want = SETS(DEF, DEF & ~KILL, NET_BIND | KILL, DEF & ~KILL, 0),
            .filters = true },
          NULL,
          { LENT_PLAN, .expect = SETS(DEF, DEF & ~KILL, NET_BIND | KILL, DEF & ~KILL, NET_BIND) },
          { 0 } },
        { "a_kernel_without_ambient_set_warns_and_leaves_it_empty",
          { ROOT_LENT, .no_ambient = true, .securebits = -1 },
          { .given = GIVEN_ALL, .want = SETS(DEF, DEF, NET_BIND, DEF, NET_BIND), .filters = true },
          NULL,
          { LENT_PLAN, .expect = SETS(DEF, DEF, NET_BIND, DEF, 0) },
          { .no_ambient = true } },
        { "a_kernel_without_ambient_set_and_an_empty_ambient_option_is_silent",
          { ROOT_LENT, .no_ambient = true, .securebits = -1 },
          { ASK_DEF },
          NULL,
          { LENT_PLAN, .expect = SETS(DEF, DEF, 0, DEF, 0) },
          { 0 } },
        { "a_kernel_without_securebits_still_raises",
          { ROOT_LENT, .securebits = -1 },
          { .given = GIVEN_ALL, .want = SETS(DEF, DEF, KILL, DEF, KILL), .filters = true },
          NULL,
          { LENT_PLAN, .ambient = true, .amb_raise = KILL, .expect = SETS(DEF, DEF, KILL, DEF, KILL) },
          { 0 } },

        /* Exec once: no set of the workload may hold CAP_SYS_PTRACE. */
        { "exec_once_refuses_ptrace_in_a_given_set",
          { .last_cap = LAST,
            .sets = SETS(DEF | ADMIN | PTRACE, DEF | ADMIN | PTRACE, 0, DEF | ADMIN | PTRACE, 0),
            .nnp_shown = true },
          { .given = GIVEN_ALL,
            .want = SETS(DEF, DEF | PTRACE, 0, DEF | PTRACE, 0),
            .exec_once = true,
            .filters = true },
          "--exec-once: the workload would hold CAP_SYS_PTRACE in its effective set, with which it could open the "
          "exec-once supervisor's /proc/1/task/N/mem: drop it from every set",
          { 0 },
          { 0 } },
        { "exec_once_refuses_ptrace_the_init_keeps_for_want_of_an_option",
          { .last_cap = LAST, .sets = SETS(ALL, DEF | ADMIN, 0, DEF | ADMIN, 0), .nnp_shown = true },
          { .given = { false, true, true, true, true },
            .want = SETS(0, DEF, 0, DEF, 0),
            .exec_once = true,
            .filters = true },
          "--exec-once: the workload would hold CAP_SYS_PTRACE in its bounding set (the init's own: no --bounding is "
          "given), with which it could open the exec-once supervisor's /proc/1/task/N/mem: drop it from every set",
          { 0 },
          { 0 } },
        { "exec_once_refuses_ptrace_asked_in_the_ambient_set",
          { ROOT_LENT },
          { .given = GIVEN_ALL, .want = SETS(DEF, DEF, 0, DEF, PTRACE), .exec_once = true, .filters = true },
          "--exec-once: the workload would hold CAP_SYS_PTRACE in its ambient set, with which it could open the "
          "exec-once supervisor's /proc/1/task/N/mem: drop it from every set",
          { 0 },
          { 0 } },
        { "exec_once_without_ptrace_goes_on",
          { ROOT_LENT },
          { ASK_DEF, .exec_once = true },
          NULL,
          { LENT_PLAN, .expect = SETS(DEF, DEF, 0, DEF, 0) },
          { 0 } },
        { "a_warning_before_a_refusal_is_kept",
          { .last_cap = LAST,
            .sets = SETS(DEF, DEF, 0, DEF, 0),
            .no_ambient = true,
            .nnp_shown = true,
            .securebits = -1 },
          { .given = GIVEN_ALL, .want = SETS(DEF, DEF, 0, DEF, KILL), .filters = true },
          NEITHER_ADMIN_NOR_NNP,
          { 0 },
          { .no_ambient = true } },
};

static bool same_plan(const struct tsync_init_caps_plan *a, const struct tsync_init_caps_plan *b)
{
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                if (a->expect[s] != b->expect[s])
                        return false;
        return a->bounding_drop == b->bounding_drop && a->capset == b->capset && a->ambient == b->ambient &&
               a->amb_raise == b->amb_raise && a->set_nnp == b->set_nnp &&
               a->caps_after_filter == b->caps_after_filter && a->expect_nnp == b->expect_nnp;
}

static bool same_warnings(const struct tsync_init_caps_warnings *a, const struct tsync_init_caps_warnings *b)
{
        return a->no_ambient == b->no_ambient && a->nnp_unasked == b->nnp_unasked &&
               a->amb_unraisable == b->amb_unraisable && a->amb_raise_forbidden == b->amb_raise_forbidden;
}

static void diag_plan(const char *which, const struct tsync_init_caps_plan *p)
{
        tap_diag("%s: drop %" PRIx64 " capset %d ambient %d raise %" PRIx64 " set_nnp %d after %d nnp %d", which,
                 p->bounding_drop, p->capset, p->ambient, p->amb_raise, p->set_nnp, p->caps_after_filter,
                 p->expect_nnp);
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                tap_diag("%s:   %s %016" PRIx64, which, tsync_capset(s)->json, p->expect[s]);
}

static void test_init_caps_table(void)
{
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                const struct row *r = &rows[i];
                struct tsync_init_caps_plan plan = { 0 }, untouched;
                struct tsync_init_caps_warnings warn;
                struct tsync_err err = { 0 };

                memset(&untouched, 0xa5, sizeof(untouched));
                plan = untouched;
                int rc = tsync_init_caps_decide(&r->held, &r->opts, &plan, &warn, &err);
                if (r->refusal) {
                        tap_ok(rc == -EPERM && err.code == EPERM && strcmp(err.msg, r->refusal) == 0,
                               "test_init_caps_%s: rc=%d", r->name, rc);
                        if (rc == 0 || strcmp(err.msg, r->refusal) != 0)
                                tap_diag("got '%s'", rc < 0 ? err.msg : "(no refusal)");
                        tap_ok(memcmp(&plan, &untouched, sizeof(plan)) == 0,
                               "test_init_caps_%s_leaves_the_plan_untouched", r->name);
                } else {
                        bool ok = rc == 0 && same_plan(&plan, &r->want);
                        tap_ok(ok, "test_init_caps_%s: rc=%d", r->name, rc);
                        if (rc < 0)
                                tap_diag("refused: %s", err.msg);
                        else if (!ok) {
                                diag_plan("got", &plan);
                                diag_plan("want", &r->want);
                        }
                }
                tap_ok(same_warnings(&warn, &r->warn), "test_init_caps_%s_warnings", r->name);
        }
}

/* What the kernel and runc promise, on every row accepted: the plan's own
 * consistency, whatever the row's figures. */
static void test_init_caps_properties(void)
{
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                const struct row *r = &rows[i];
                const struct tsync_init_caps_held *h = &r->held;
                struct tsync_init_caps_plan p;
                struct tsync_init_caps_warnings warn;

                if (r->refusal || tsync_init_caps_decide(h, &r->opts, &p, &warn, NULL) < 0)
                        continue;
                const uint64_t *e = p.expect;
                bool ok = (e[TSYNC_CAPSET_EFFECTIVE] & ~e[TSYNC_CAPSET_PERMITTED]) == 0 &&
                          (e[TSYNC_CAPSET_PERMITTED] & ~h->sets[TSYNC_CAPSET_PERMITTED]) == 0 &&
                          (e[TSYNC_CAPSET_BOUNDING] & ~h->sets[TSYNC_CAPSET_BOUNDING]) == 0 &&
                          (e[TSYNC_CAPSET_AMBIENT] & ~(e[TSYNC_CAPSET_PERMITTED] & e[TSYNC_CAPSET_INHERITABLE])) == 0 &&
                          p.bounding_drop == (h->sets[TSYNC_CAPSET_BOUNDING] & ~e[TSYNC_CAPSET_BOUNDING]) &&
                          (p.amb_raise & ~e[TSYNC_CAPSET_AMBIENT]) == 0 && (!p.set_nnp || p.expect_nnp) &&
                          (!h->nnp || p.expect_nnp) && !(p.set_nnp && h->nnp) &&
                          /* a filter loads with CAP_SYS_ADMIN or NO_NEW_PRIVS */
                          (!r->opts.filters || p.expect_nnp ||
                           (p.caps_after_filter && (h->sets[TSYNC_CAPSET_EFFECTIVE] & ADMIN))) &&
                          /* the sets given are the sets the workload gets, but for what is out of reach */
                          (!r->opts.given[TSYNC_CAPSET_BOUNDING] || e[TSYNC_CAPSET_BOUNDING] == r->opts.want[0]) &&
                          (!r->opts.given[TSYNC_CAPSET_INHERITABLE] ||
                           e[TSYNC_CAPSET_INHERITABLE] == r->opts.want[TSYNC_CAPSET_INHERITABLE]);
                for (int s = 0; r->opts.exec_once && s < TSYNC_CAPSET_COUNT; s++)
                        ok = ok && !(e[s] & PTRACE);
                tap_ok(ok, "test_init_caps_properties_%s", r->name);
        }
}

int main(void)
{
        test_init_caps_table();
        test_init_caps_properties();
        return tap_done();
}
