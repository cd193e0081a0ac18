/* Every member of a profile reaches the cache key: a profile with every field
 * set is changed one member at a time, and each change must give another key
 * (tsync_cache_key, over tsync_profile_canonical). A member left out of the
 * canonical text would let the cache serve the program of another profile.
 *
 * The fixtures below are built with positional initializers on purpose: adding
 * a member to struct tsync_profile, tsync_rule, tsync_arg or tsync_action
 * breaks the build here (-Wmissing-field-initializers under -Wextra -Werror)
 * until the initializer has a value for it, and a static assertion then
 * requires one more row in that struct's table of changes. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>

#include "shared/cleanup.h"
#include "shared/seccomp_flags.h"
#include "tap.h"
#include "translate/cache.h"
#include "translate/profile.h"

/* The number of arguments, up to 16 (parenthesised arguments count as one). */
#define NARGS(...)                                                                            NARGS_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define NARGS_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, n, ...) n

/* Positional initializers, one value per member in declaration order, so that
 * a member added to the struct is a member missing here. The counts below go
 * through the same macros: a parameter added to one of them breaks the count's
 * line too, and the count then asks for a row in the tables of changes. */
#define ACTION(kind, data)                                 kind, data
#define ARG(index, value, value_two, op)                   index, value, value_two, op
#define RULE(names, n_names, action, args, n_args, origin) names, n_names, action, args, n_args, origin
#define PROFILE(default_action, arches, n_arches, flags, listener_path, listener_metadata, rules, n_rules)             \
        default_action, arches, n_arches, flags, listener_path, listener_metadata, rules, n_rules

#define ACTION_MEMBERS  NARGS(ACTION(0, 0))
#define ARG_MEMBERS     NARGS(ARG(0, 0, 0, 0))
#define RULE_MEMBERS    NARGS(RULE(0, 0, 0, 0, 0, 0))
#define PROFILE_MEMBERS NARGS(PROFILE(0, 0, 0, 0, 0, 0, 0, 0))

static struct tsync_action act(enum tsync_act kind, uint16_t data)
{
        return (struct tsync_action){ ACTION(kind, data) };
}

/* A profile with every member set, and spare storage for the changes. */
struct fixture {
        struct tsync_profile p;
        struct tsync_rule rules[2], spare_rules[2];
        char *names0[3], *names1[1];
        struct tsync_arg args0[2], spare_args[2];
        uint32_t arches[2], spare_arches[2];
};

static void fixture_init(struct fixture *f)
{
        memset(f, 0, sizeof(*f));
        f->names0[0] = (char *)"read";
        f->names0[1] = (char *)"write";
        f->names0[2] = (char *)"close";
        f->names1[0] = (char *)"ptrace";
        f->args0[0] = (struct tsync_arg){ ARG(0, 3, 0, TSYNC_OP_EQ) };
        f->args0[1] = (struct tsync_arg){ ARG(2, 0xff00000000000001ull, 0x0f, TSYNC_OP_MASKED_EQ) };
        f->rules[0] =
                (struct tsync_rule){ RULE(f->names0, 3, act(TSYNC_ACT_ERRNO, 1), f->args0, 2, (char *)"syscalls[0]") };
        f->rules[1] =
                (struct tsync_rule){ RULE(f->names1, 1, act(TSYNC_ACT_TRACE, 7), NULL, 0, (char *)"syscalls[1]") };
        f->arches[0] = SCMP_ARCH_X86_64;
        f->arches[1] = SCMP_ARCH_X86;
        f->p = (struct tsync_profile){ PROFILE(act(TSYNC_ACT_ERRNO, 38), f->arches, 2, SECCOMP_FILTER_FLAG_LOG,
                                               (char *)"/run/listener.sock", (char *)"metadata", f->rules, 2) };
}

/* ---- struct tsync_profile ---- */

static void profile_default_action(struct fixture *f)
{
        f->p.default_action = act(TSYNC_ACT_KILL_PROCESS, 0);
}
static void profile_arches(struct fixture *f)
{
        /* the same architectures in another order: libseccomp lays the program out in this order */
        f->spare_arches[0] = f->arches[1];
        f->spare_arches[1] = f->arches[0];
        f->p.arches = f->spare_arches;
}
static void profile_arch_token(struct fixture *f)
{
        f->arches[1] = SCMP_ARCH_X32;
}
static void profile_n_arches(struct fixture *f)
{
        f->p.n_arches = 1;
}
static void profile_flags(struct fixture *f)
{
        f->p.flags = SECCOMP_FILTER_FLAG_SPEC_ALLOW;
}
static void profile_flags_none(struct fixture *f)
{
        f->p.flags = 0;
}
static void profile_listener_path(struct fixture *f)
{
        f->p.listener_path = (char *)"/run/other.sock";
}
static void profile_listener_path_absent(struct fixture *f)
{
        f->p.listener_path = NULL;
}
static void profile_listener_path_empty(struct fixture *f)
{
        f->p.listener_path = (char *)"";
}
static void profile_listener_metadata(struct fixture *f)
{
        f->p.listener_metadata = (char *)"metadatb";
}
static void profile_listener_metadata_absent(struct fixture *f)
{
        f->p.listener_metadata = NULL;
}
static void profile_listener_moved(struct fixture *f)
{
        /* one string's end moved into the next: the text must keep them apart */
        f->p.listener_path = (char *)"/run/listener.sockmeta";
        f->p.listener_metadata = (char *)"data";
}
static void profile_rules(struct fixture *f)
{
        /* the same rules in another order */
        f->spare_rules[0] = f->rules[1];
        f->spare_rules[1] = f->rules[0];
        f->p.rules = f->spare_rules;
}
static void profile_n_rules(struct fixture *f)
{
        f->p.n_rules = 1;
}

static const struct {
        const char *name;
        void (*change)(struct fixture *f);
} profile_changes[] = {
        { "default_action", profile_default_action },
        { "arches_order", profile_arches },
        { "arches_token", profile_arch_token },
        { "n_arches", profile_n_arches },
        { "flags", profile_flags },
        { "flags_none", profile_flags_none },
        { "listener_path", profile_listener_path },
        { "listener_path_absent", profile_listener_path_absent },
        { "listener_path_empty", profile_listener_path_empty },
        { "listener_metadata", profile_listener_metadata },
        { "listener_metadata_absent", profile_listener_metadata_absent },
        { "listener_path_and_metadata_boundary", profile_listener_moved },
        { "rules_order", profile_rules },
        { "n_rules", profile_n_rules },
};
_Static_assert(ARRAY_SIZE(profile_changes) >= PROFILE_MEMBERS,
               "struct tsync_profile has a member without a change here: add one (and make sure "
               "tsync_profile_canonical covers it)");

/* ---- struct tsync_rule, applied to each rule ---- */

static void rule_names(struct tsync_rule *r, struct fixture *f)
{
        (void)f;
        r->names[0] = (char *)"openat2";
}
static void rule_names_boundary(struct tsync_rule *r, struct fixture *f)
{
        /* two names run together, or one name split, must not look alike */
        (void)f;
        if (r->n_names >= 2) {
                r->names[0] = (char *)"readwrite";
                r->names[1] = (char *)"";
        } else {
                r->names[0] = (char *)"ptrace ptrace";
        }
}
static void rule_n_names(struct tsync_rule *r, struct fixture *f)
{
        (void)f;
        r->n_names--;
}
static void rule_action(struct tsync_rule *r, struct fixture *f)
{
        (void)f;
        r->action = act(TSYNC_ACT_KILL_THREAD, 0);
}
static void rule_args(struct tsync_rule *r, struct fixture *f)
{
        /* as many conditions, one of them another (a rule without any gets one) */
        f->spare_args[0] = (struct tsync_arg){ ARG(1, 3, 0, TSYNC_OP_EQ) };
        f->spare_args[1] = f->args0[1];
        r->args = f->spare_args;
        if (r->n_args == 0)
                r->n_args = 1;
}
static void rule_n_args(struct tsync_rule *r, struct fixture *f)
{
        if (r->n_args > 0) {
                r->n_args--;
                return;
        }
        f->spare_args[0] = f->args0[0];
        r->args = f->spare_args;
        r->n_args = 1;
}
static void rule_origin(struct tsync_rule *r, struct fixture *f)
{
        (void)f;
        r->origin = (char *)"syscalls[99]";
}

static const struct {
        const char *name;
        void (*change)(struct tsync_rule *r, struct fixture *f);
        bool in_key; /* false: for messages only, the program does not depend on it */
} rule_changes[] = {
        { "names", rule_names, true },     { "names_boundary", rule_names_boundary, true },
        { "n_names", rule_n_names, true }, { "action", rule_action, true },
        { "args", rule_args, true },       { "n_args", rule_n_args, true },
        { "origin", rule_origin, false },
};
_Static_assert(ARRAY_SIZE(rule_changes) >= RULE_MEMBERS,
               "struct tsync_rule has a member without a change here: add one (and make sure "
               "tsync_profile_canonical covers it)");

/* ---- struct tsync_arg, applied to each argument of each rule ---- */

static void arg_index(struct tsync_arg *a)
{
        a->index = (a->index + 1) % 6;
}
static void arg_value(struct tsync_arg *a)
{
        a->value ^= 1ull << 63;
}
static void arg_value_two(struct tsync_arg *a)
{
        a->value_two ^= 1ull << 62;
}
static void arg_op(struct tsync_arg *a)
{
        a->op = a->op == TSYNC_OP_EQ ? TSYNC_OP_NE : TSYNC_OP_EQ;
}

static const struct {
        const char *name;
        void (*change)(struct tsync_arg *a);
} arg_changes[] = {
        { "index", arg_index },
        { "value", arg_value },
        { "value_two", arg_value_two },
        { "op", arg_op },
};
_Static_assert(ARRAY_SIZE(arg_changes) >= ARG_MEMBERS,
               "struct tsync_arg has a member without a change here: add one (and make sure "
               "tsync_profile_canonical covers it)");

/* ---- struct tsync_action, applied to the default action and each rule's ---- */

static void action_kind(struct tsync_action *a)
{
        a->kind = a->kind == TSYNC_ACT_LOG ? TSYNC_ACT_ALLOW : TSYNC_ACT_LOG;
}
static void action_data(struct tsync_action *a)
{
        a->data ^= 0x100;
}

static const struct {
        const char *name;
        void (*change)(struct tsync_action *a);
} action_changes[] = {
        { "kind", action_kind },
        { "data", action_data },
};
_Static_assert(ARRAY_SIZE(action_changes) >= ACTION_MEMBERS,
               "struct tsync_action has a member without a change here: add one (and make sure "
               "tsync_profile_canonical covers it)");

/* ---- the checks ---- */

static char base_key[TSYNC_CACHE_KEY_LEN + 1];

static int key_of(const struct fixture *f, char key[TSYNC_CACHE_KEY_LEN + 1])
{
        struct tsync_compile_opts o = { .native_arch = SCMP_ARCH_X86_64 };
        struct tsync_err err = { 0 };
        int r = tsync_cache_key(&f->p, &o, 0, key, &err);
        if (r < 0)
                tap_diag("tsync_cache_key: %s", err.msg);
        return r;
}

/* The key after the change: different when in_key, the same otherwise. */
static void check(const struct fixture *f, bool in_key, const char *what)
{
        char key[TSYNC_CACHE_KEY_LEN + 1];
        int r = key_of(f, key);
        if (in_key)
                tap_ok(r == 0 && strcmp(key, base_key) != 0, "test_cache_key_changes_with_%s", what);
        else
                tap_ok(r == 0 && strcmp(key, base_key) == 0, "test_cache_key_ignores_%s (messages only)", what);
}

static void test_cache_key_base_is_stable(void)
{
        struct fixture f;
        char again[TSYNC_CACHE_KEY_LEN + 1];
        fixture_init(&f);
        int r = key_of(&f, base_key);
        fixture_init(&f);
        tap_ok(r == 0 && key_of(&f, again) == 0 && strcmp(base_key, again) == 0,
               "test_cache_key_same_profile_same_key (the control for the checks below)");
        tap_ok(PROFILE_MEMBERS == 8 && RULE_MEMBERS == 6 && ARG_MEMBERS == 4 && ACTION_MEMBERS == 2,
               "test_cache_key_member_counts_are_read_from_the_initializers: %d %d %d %d", PROFILE_MEMBERS,
               RULE_MEMBERS, ARG_MEMBERS, ACTION_MEMBERS);
}

static void test_cache_key_profile_members(void)
{
        for (size_t i = 0; i < ARRAY_SIZE(profile_changes); i++) {
                struct fixture f;
                char what[128];
                fixture_init(&f);
                profile_changes[i].change(&f);
                (void)snprintf(what, sizeof(what), "profile_%s", profile_changes[i].name);
                check(&f, true, what);
        }
}

static void test_cache_key_rule_members(void)
{
        for (size_t i = 0; i < ARRAY_SIZE(rule_changes); i++)
                for (size_t k = 0; k < 2; k++) {
                        struct fixture f;
                        char what[128];
                        fixture_init(&f);
                        rule_changes[i].change(&f.rules[k], &f);
                        (void)snprintf(what, sizeof(what), "rules_%zu_%s", k, rule_changes[i].name);
                        check(&f, rule_changes[i].in_key, what);
                }
}

static void test_cache_key_arg_members(void)
{
        for (size_t i = 0; i < ARRAY_SIZE(arg_changes); i++)
                for (size_t k = 0; k < 2; k++) {
                        struct fixture f;
                        char what[128];
                        fixture_init(&f);
                        arg_changes[i].change(&f.args0[k]);
                        (void)snprintf(what, sizeof(what), "rules_0_args_%zu_%s", k, arg_changes[i].name);
                        check(&f, true, what);
                }
}

static void test_cache_key_action_members(void)
{
        for (size_t i = 0; i < ARRAY_SIZE(action_changes); i++)
                for (size_t k = 0; k < 3; k++) {
                        struct fixture f;
                        char what[128];
                        fixture_init(&f);
                        struct tsync_action *a = k == 0 ? &f.p.default_action : &f.rules[k - 1].action;
                        action_changes[i].change(a);
                        if (k == 0)
                                (void)snprintf(what, sizeof(what), "default_action_%s", action_changes[i].name);
                        else
                                (void)snprintf(what, sizeof(what), "rules_%zu_action_%s", k - 1,
                                               action_changes[i].name);
                        check(&f, true, what);
                }
}

int main(void)
{
        test_cache_key_base_is_stable();
        test_cache_key_profile_members();
        test_cache_key_rule_members();
        test_cache_key_arg_members();
        test_cache_key_action_members();
        return tap_done();
}
