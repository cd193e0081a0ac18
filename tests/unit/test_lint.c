/* tsync_lint (hook/translate/lint.c): each kind of finding, its severity and its
 * words, on profiles compiled by the real libseccomp for x86_64; and a clean
 * profile that reports nothing. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>

#include "shared/cleanup.h"
#include "tap.h"
#include "translate/analysis.h"
#include "translate/compile.h"
#include "translate/profile.h"
#include "unit.h"

struct expect {
        enum tsync_severity severity;
        const char *msg;
};

/* Lints the OCI profile text with strict as given; 0 and the findings in *ret, or -1 after a failed TAP line. */
static int lint_of(const char *name, const char *json, bool strict, struct tsync_lint *ret)
{
        struct tsync_err err = { 0 };
        struct tsync_warnings w = { 0 };
        struct tsync_compile_opts o = { .native_arch = SCMP_ARCH_X86_64 };
        _cleanup_json_ struct tsync_json *doc = unit_parse(json);
        _cleanup_profile_ struct tsync_profile *p = NULL;
        _cleanup_program_ struct tsync_program *prog = NULL;

        if (!doc || tsync_profile_from_oci(doc, &p, &err) < 0 || tsync_compile(p, &o, &prog, &w, &err) < 0 ||
            tsync_lint(p, prog, SCMP_ARCH_X86_64, strict, ret, &err) < 0) {
                tap_ok(0, "%s: %s", name, err.msg);
                tsync_warnings_clear(&w);
                return -1;
        }
        tsync_warnings_clear(&w);
        return 0;
}

/* Exactly the findings in want, in order. */
static void check(const char *name, const char *json, bool strict, const struct expect *want, size_t n_want)
{
        struct tsync_lint l = { 0 };
        size_t errors = 0;
        if (lint_of(name, json, strict, &l) < 0)
                return;
        bool same = l.len == n_want;
        for (size_t i = 0; i < n_want; i++)
                errors += want[i].severity == TSYNC_LINT_ERROR;
        for (size_t i = 0; same && i < n_want; i++)
                same = l.findings[i].severity == want[i].severity && strcmp(l.findings[i].msg, want[i].msg) == 0;
        same = same && l.errors == errors && l.warnings == n_want - errors;
        tap_ok(same, "%s", name);
        if (!same)
                for (size_t i = 0; i < l.len; i++)
                        tap_diag("got %s: %s", l.findings[i].severity == TSYNC_LINT_ERROR ? "error" : "warning",
                                 l.findings[i].msg);
        tsync_lint_clear(&l);
}

#define CHECK(name, json, strict, ...)                                                                                 \
        do {                                                                                                           \
                static const struct expect want_[] = { __VA_ARGS__ };                                                  \
                check(name, json, strict, want_, ARRAY_SIZE(want_));                                                   \
        } while (0)

#define W TSYNC_LINT_WARNING
#define E TSYNC_LINT_ERROR

static void test_lint_clean_profile_reports_nothing(void)
{
        struct tsync_lint l = { 0 };
        const char *clean =
                "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_X86_64\"], \"syscalls\": ["
                " {\"names\": [\"read\", \"write\", \"exit_group\"], \"action\": \"SCMP_ACT_ALLOW\"},"
                " {\"names\": [\"openat\"], \"action\": \"SCMP_ACT_ALLOW\","
                "  \"args\": [{\"index\": 2, \"value\": 3, \"valueTwo\": 1, \"op\": \"SCMP_CMP_MASKED_EQ\"}]},"
                " {\"names\": [\"kill\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 13,"
                "  \"args\": [{\"index\": 1, \"value\": 9, \"op\": \"SCMP_CMP_EQ\"}]},"
                " {\"names\": [\"kill\"], \"action\": \"SCMP_ACT_ALLOW\","
                "  \"args\": [{\"index\": 1, \"value\": 9, \"op\": \"SCMP_CMP_NE\"}]}]}";
        if (lint_of("test_lint_clean_profile_reports_nothing", clean, true, &l) < 0)
                return;
        tap_ok(l.len == 0 && l.errors == 0 && l.warnings == 0 && l.findings == NULL,
               "test_lint_clean_profile_reports_nothing: %zu findings, first: %s", l.len,
               l.len ? l.findings[0].msg : "-");
        tsync_lint_clear(&l);
}

static void test_lint_findings(void)
{
        CHECK("test_lint_rule_equal_to_the_default_has_no_effect",
              "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": ["
              " {\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\"},"
              " {\"names\": [\"write\"], \"action\": \"SCMP_ACT_ERRNO\"}]}",
              false, { W, "syscalls[1]: has no effect: SCMP_ACT_ERRNO is also the default action" });
        check("test_lint_same_action_other_errno_has_an_effect",
              "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": ["
              " {\"names\": [\"write\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 38}]}",
              false, NULL, 0);
        CHECK("test_lint_below_zero_can_never_match",
              "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": ["
              " {\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\","
              "  \"args\": [{\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"},"
              "             {\"index\": 2, \"value\": 0, \"op\": \"SCMP_CMP_LT\"}]}]}",
              false, { E, "syscalls[0].args[1]: can never match: no value is below 0" });
        CHECK("test_lint_above_the_largest_can_never_match",
              "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": ["
              " {\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\","
              "  \"args\": [{\"index\": 0, \"value\": 18446744073709551615, \"op\": \"SCMP_CMP_GT\"}]}]}",
              false, { E, "syscalls[0].args[0]: can never match: no value is above 18446744073709551615" });
        CHECK("test_lint_masked_eq_with_bits_outside_the_mask",
              "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": ["
              " {\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\","
              "  \"args\": [{\"index\": 0, \"value\": 3, \"valueTwo\": 5, \"op\": \"SCMP_CMP_MASKED_EQ\"}]}]}",
              false,
              { W, "syscalls[0].args[0]: valueTwo has bits outside the mask in value: libseccomp drops them and "
                   "compares against valueTwo & value" });
        CHECK("test_lint_unknown_syscall_is_a_warning",
              "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": ["
              " {\"names\": [\"read\", \"no_such_call\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
              false, { W, "syscalls[0].names[1]: syscall 'no_such_call' is unknown" });
        CHECK("test_lint_listed_twice",
              "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": ["
              " {\"names\": [\"read\", \"write\", \"read\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
              false, { W, "syscalls[0].names[2]: 'read' is listed twice" });
        CHECK("test_lint_named_twice_without_conditions",
              "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": ["
              " {\"names\": [\"read\", \"write\"], \"action\": \"SCMP_ACT_ALLOW\"},"
              " {\"names\": [\"close\", \"write\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
              false, { W, "syscalls[1]: 'write' is already named without conditions by syscalls[0]" });
        CHECK("test_lint_conditional_rule_shadowed_by_an_unconditional_one",
              "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": ["
              " {\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1},"
              " {\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 2,"
              "  \"args\": [{\"index\": 0, \"value\": 5, \"op\": \"SCMP_CMP_EQ\"}]}]}",
              false,
              { W, "syscalls[1]: 'read' never gets SCMP_ACT_ERRNO here: syscalls[0] decides it first (ERRNO(1))" });
        CHECK("test_lint_shadowed_by_a_later_unconditional_rule",
              "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": ["
              " {\"names\": [\"close\"], \"action\": \"SCMP_ACT_KILL_PROCESS\","
              "  \"args\": [{\"index\": 0, \"value\": 5, \"op\": \"SCMP_CMP_GE\"}]},"
              " {\"names\": [\"close\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 6}]}",
              false,
              { W, "syscalls[0]: 'close' never gets SCMP_ACT_KILL_PROCESS here: syscalls[1] decides it first "
                   "(ERRNO(6))" });
}

static void test_lint_strict_makes_unknown_syscalls_errors(void)
{
        struct tsync_err err = { 0 };
        struct tsync_lint l = { 0 };
        struct tsync_compile_opts o = { .native_arch = SCMP_ARCH_X86_64 };
        struct tsync_warnings w = { 0 };
        _cleanup_json_ struct tsync_json *doc =
                unit_parse("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": ["
                           " {\"names\": [\"no_such_call\", \"read\"], \"action\": \"SCMP_ACT_ALLOW\"}]}");
        _cleanup_profile_ struct tsync_profile *p = NULL;
        _cleanup_program_ struct tsync_program *prog = NULL;

        /* A strict compile refuses the profile outright; lint it against the lenient program. */
        if (!doc || tsync_profile_from_oci(doc, &p, &err) < 0 || tsync_compile(p, &o, &prog, &w, &err) < 0) {
                tap_ok(0, "test_lint_strict_makes_unknown_syscalls_errors: %s", err.msg);
                tsync_warnings_clear(&w);
                return;
        }
        int r = tsync_lint(p, prog, SCMP_ARCH_X86_64, true, &l, &err);
        tap_ok(r == 0 && l.len == 1 && l.errors == 1 && l.warnings == 0 && l.findings[0].severity == TSYNC_LINT_ERROR &&
                       strcmp(l.findings[0].msg, "syscalls[0].names[0]: syscall 'no_such_call' is unknown") == 0,
               "test_lint_strict_makes_unknown_syscalls_errors: %s", l.len ? l.findings[0].msg : "-");
        tsync_lint_clear(&l);
        tap_ok(l.len == 0 && l.findings == NULL && l.errors == 0, "test_lint_clear_empties_the_list");
        tsync_warnings_clear(&w);
}

static void test_lint_several_findings_in_order(void)
{
        CHECK("test_lint_several_findings_in_rule_order",
              "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": ["
              " {\"names\": [\"read\", \"read\"], \"action\": \"SCMP_ACT_ALLOW\"},"
              " {\"names\": [\"write\"], \"action\": \"SCMP_ACT_ERRNO\"},"
              " {\"names\": [\"close\"], \"action\": \"SCMP_ACT_ALLOW\","
              "  \"args\": [{\"index\": 1, \"value\": 0, \"op\": \"SCMP_CMP_LT\"}]}]}",
              false, { W, "syscalls[0].names[1]: 'read' is listed twice" },
              { W, "syscalls[1]: has no effect: SCMP_ACT_ERRNO is also the default action" },
              { E, "syscalls[2].args[0]: can never match: no value is below 0" });
}

int main(void)
{
        test_lint_clean_profile_reports_nothing();
        test_lint_findings();
        test_lint_strict_makes_unknown_syscalls_errors();
        test_lint_several_findings_in_order();
        return tap_done();
}
