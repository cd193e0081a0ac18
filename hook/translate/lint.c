/* `check`: what in a profile is probably not what its author meant. */
#include <errno.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "shared/bpf.h"
#include "shared/cleanup.h"
#include "translate/analysis.h"

void tsync_lint_clear(struct tsync_lint *l)
{
        for (size_t i = 0; i < l->len; i++)
                free(l->findings[i].msg);
        free(l->findings);
        memset(l, 0, sizeof(*l));
}

__attribute__((format(printf, 3, 4))) static int add(struct tsync_lint *l, enum tsync_severity sev, const char *fmt,
                                                     ...)
{
        char *msg;
        va_list ap;
        va_start(ap, fmt);
        struct tsync_finding *grown = tsync_grow_vformat(l->findings, l->len, sizeof(*grown), &msg, fmt, ap);
        va_end(ap);
        if (!grown)
                return -ENOMEM;
        grown[l->len++] = (struct tsync_finding){ sev, msg };
        l->findings = grown;
        if (sev == TSYNC_LINT_ERROR)
                l->errors++;
        else
                l->warnings++;
        return 0;
}

/* Why a single condition can never hold, or NULL. */
static const char *impossible(const struct tsync_arg *a)
{
        switch (a->op) {
        case TSYNC_OP_LT:
                return a->value == 0 ? "no value is below 0" : NULL;
        case TSYNC_OP_GT:
                return a->value == UINT64_MAX ? "no value is above 18446744073709551615" : NULL;
        default:
                return NULL;
        }
}

/* Why a condition does not mean what it seems to, or NULL. */
static const char *misleading(const struct tsync_arg *a)
{
        switch (a->op) {
        case TSYNC_OP_MASKED_EQ:
                return (a->value_two & ~a->value) ? "valueTwo has bits outside the mask in value: libseccomp drops "
                                                    "them and compares against valueTwo & value"
                                                  : NULL;
        default:
                return NULL;
        }
}

/* Arguments that satisfy condition a (or all of r's conditions when and_all). */
static void witness_one(const struct tsync_arg *a, uint64_t args[6])
{
        uint64_t v = a->value;
        switch (a->op) {
        case TSYNC_OP_NE:
                args[a->index] = v == UINT64_MAX ? 0 : v + 1;
                break;
        case TSYNC_OP_LT:
                args[a->index] = v - 1;
                break;
        case TSYNC_OP_GT:
                args[a->index] = v + 1;
                break;
        case TSYNC_OP_LE:
        case TSYNC_OP_EQ:
        case TSYNC_OP_GE:
                args[a->index] = v;
                break;
        case TSYNC_OP_MASKED_EQ:
                args[a->index] = a->value_two;
                break;
        }
}

static bool repeats_index(const struct tsync_rule *r)
{
        unsigned seen[6] = { 0 };
        for (size_t i = 0; i < r->n_args; i++)
                if (++seen[r->args[i].index] > 1)
                        return true;
        return false;
}

static bool unconditional_earlier(const struct tsync_profile *p, size_t upto, const char *name, size_t *ret)
{
        for (size_t i = 0; i < upto; i++) {
                if (p->rules[i].n_args)
                        continue;
                for (size_t j = 0; j < p->rules[i].n_names; j++)
                        if (strcmp(p->rules[i].names[j], name) == 0) {
                                *ret = i;
                                return true;
                        }
        }
        return false;
}

static int check_shadowed(const struct tsync_profile *p, const struct tsync_program *prog, uint32_t native, size_t i,
                          const char *name, struct tsync_lint *l, struct tsync_err *err)
{
        const struct tsync_rule *r = &p->rules[i];
        int nr = seccomp_syscall_resolve_name_arch(native, name);
        if (nr < 0)
                return 0;
        /* One witness per condition when they OR, one for all when they AND. */
        size_t n_witness = repeats_index(r) ? r->n_args : 1;
        for (size_t w = 0; w < n_witness; w++) {
                uint64_t args[6] = { 0 };
                if (repeats_index(r))
                        witness_one(&r->args[w], args);
                else
                        for (size_t k = 0; k < r->n_args; k++)
                                witness_one(&r->args[k], args);
                if (!tsync_rule_matches(r, args, false))
                        continue; /* reported as impossible already */
                struct tsync_explanation e;
                int rc = tsync_explain(p, prog, native, native, nr, args, &e, err);
                if (rc < 0)
                        return rc;
                if (e.ret == tsync_compile_action(r->action))
                        continue;
                char got[32];
                tsync_bpf_ret_name(e.ret, got, sizeof(got));
                if (e.decider == TSYNC_DECIDED_BY_RULE)
                        rc = add(l, TSYNC_LINT_WARNING, "%s: '%s' never gets %s here: %s decides it first (%s)",
                                 r->origin, name, tsync_action_name(r->action.kind), p->rules[e.rule].origin, got);
                else
                        rc = add(l, TSYNC_LINT_WARNING, "%s: '%s' matching this rule gets %s, not %s", r->origin, name,
                                 got, tsync_action_name(r->action.kind));
                if (rc < 0)
                        return tsync_error(err, ENOMEM, "out of memory");
                return 0;
        }
        return 0;
}

int tsync_lint(const struct tsync_profile *p, const struct tsync_program *prog, uint32_t native, bool strict,
               struct tsync_lint *ret, struct tsync_err *err)
{
        struct tsync_lint l = { 0 };
        int rc = 0;

        for (size_t i = 0; i < p->n_rules && rc >= 0; i++) {
                const struct tsync_rule *r = &p->rules[i];
                bool no_effect = tsync_compile_action(r->action) == tsync_compile_action(p->default_action);
                if (no_effect)
                        rc = add(&l, TSYNC_LINT_WARNING, "%s: has no effect: %s is also the default action", r->origin,
                                 tsync_action_name(r->action.kind));
                for (size_t k = 0; k < r->n_args && rc >= 0; k++) {
                        const char *why = impossible(&r->args[k]);
                        if (why)
                                rc = add(&l, TSYNC_LINT_ERROR, "%s.args[%zu]: can never match: %s", r->origin, k, why);
                        else if ((why = misleading(&r->args[k])))
                                rc = add(&l, TSYNC_LINT_WARNING, "%s.args[%zu]: %s", r->origin, k, why);
                }
                for (size_t j = 0; j < r->n_names && rc >= 0; j++) {
                        const char *name = r->names[j];
                        size_t earlier;
                        if (seccomp_syscall_resolve_name_arch(native, name) == __NR_SCMP_ERROR) {
                                rc = add(&l, strict ? TSYNC_LINT_ERROR : TSYNC_LINT_WARNING,
                                         "%s.names[%zu]: syscall '%s' is unknown", r->origin, j, name);
                                continue;
                        }
                        for (size_t k = 0; k < j && rc >= 0; k++)
                                if (strcmp(r->names[k], name) == 0) {
                                        rc = add(&l, TSYNC_LINT_WARNING, "%s.names[%zu]: '%s' is listed twice",
                                                 r->origin, j, name);
                                        break;
                                }
                        if (rc >= 0 && r->n_args == 0 && unconditional_earlier(p, i, name, &earlier))
                                rc = add(&l, TSYNC_LINT_WARNING, "%s: '%s' is already named without conditions by %s",
                                         r->origin, name, p->rules[earlier].origin);
                        if (rc >= 0 && !no_effect)
                                rc = check_shadowed(p, prog, native, i, name, &l, err);
                }
        }
        if (rc < 0) {
                tsync_lint_clear(&l);
                return rc == -ENOMEM ? tsync_error(err, ENOMEM, "out of memory") : rc;
        }
        *ret = l;
        return 0;
}
