/* Explaining an action: simulate the program, then find what in the profile asked for it. */
#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "shared/arches.h"
#include "shared/bpf.h"
#include "translate/analysis.h"

static bool cond_holds(const struct tsync_arg *a, uint64_t v, bool abi_32bit)
{
        uint64_t want = a->value, two = a->value_two;
        if (abi_32bit) {
                v &= 0xffffffffu;
                want &= 0xffffffffu;
                two &= 0xffffffffu;
        }
        switch (a->op) {
        case TSYNC_OP_NE:
                return v != want;
        case TSYNC_OP_LT:
                return v < want;
        case TSYNC_OP_LE:
                return v <= want;
        case TSYNC_OP_EQ:
                return v == want;
        case TSYNC_OP_GE:
                return v >= want;
        case TSYNC_OP_GT:
                return v > want;
        case TSYNC_OP_MASKED_EQ:
                /* libseccomp compares against valueTwo & value: bits of valueTwo
                 * outside the mask are dropped, not impossible to match. */
                return (v & want) == (two & want);
        }
        return false;
}

bool tsync_rule_matches(const struct tsync_rule *r, const uint64_t args[6], bool abi_32bit)
{
        unsigned seen[6] = { 0 };
        bool repeated = false;
        for (size_t i = 0; i < r->n_args; i++)
                if (++seen[r->args[i].index] > 1)
                        repeated = true;
        if (r->n_args == 0)
                return true;
        for (size_t i = 0; i < r->n_args; i++) {
                bool holds = cond_holds(&r->args[i], args[r->args[i].index], abi_32bit);
                if (repeated && holds)
                        return true;
                if (!repeated && !holds)
                        return false;
        }
        return !repeated;
}

static bool abi_listed(const struct tsync_profile *p, uint32_t native, uint32_t abi)
{
        if (abi == native)
                return true;
        for (size_t i = 0; i < p->n_arches; i++)
                if (p->arches[i] == abi)
                        return true;
        return false;
}

static bool names_syscall(const struct tsync_rule *r, uint32_t abi, int nr)
{
        for (size_t j = 0; j < r->n_names; j++)
                if (seccomp_syscall_resolve_name_arch(abi, r->names[j]) == nr)
                        return true;
        return false;
}

/* Whether libseccomp compares an argument's low 32 bits alone on this ABI
 * (its ARCH_SIZE_32): the 32-bit ABIs, and the ILP32 ABIs of 64-bit kernels
 * (x32, MIPS n32), whose seccomp_data still carries 64-bit registers. A
 * rule's value past 32 bits then matches by its low word. */
static bool compares_low_word(const struct tsync_arch_def *row)
{
        return row && (row->bits == 32 || row->token == TSYNC_ARCH_X32_TOKEN || row->audit == AUDIT_ARCH_MIPS64N32 ||
                       row->audit == AUDIT_ARCH_MIPSEL64N32);
}

int tsync_explain(const struct tsync_profile *p, const struct tsync_program *prog, uint32_t native, uint32_t abi,
                  int nr, const uint64_t args[6], struct tsync_explanation *ret, struct tsync_err *err)
{
        /* x32 and x86_64 share AUDIT_ARCH_X86_64; only the number's x32 bit
         * tells them apart, so a number without it is an x86_64 call. */
        if (abi == SCMP_ARCH_X32 && !((uint32_t)nr & TSYNC_X32_SYSCALL_BIT))
                abi = SCMP_ARCH_X86_64;
        struct tsync_bpf_input in = { .nr = nr, .arch = tsync_audit_arch(abi) };
        struct tsync_bpf_result res;
        bool abi_32bit = compares_low_word(tsync_arch_by_token(abi));

        memcpy(in.args, args, sizeof(in.args));
        int r = tsync_bpf_simulate(prog->insns, prog->len, &in, &res, err);
        if (r < 0)
                return r;

        struct tsync_explanation e = { .ret = res.ret,
                                       .executed = res.executed,
                                       .read_args = res.read_args,
                                       .decider = TSYNC_DECIDED_UNEXPLAINED,
                                       .abi = abi };
        if (!abi_listed(p, native, abi)) {
                e.decider = TSYNC_DECIDED_BY_BAD_ARCH;
        } else if (tsync_compile_has_stub(p) && res.ret == (SCMP_ACT_ERRNO(ENOSYS)) &&
                   tsync_compile_highest_named(p, abi) >= 0 &&
                   (uint32_t)nr > (uint32_t)tsync_compile_highest_named(p, abi)) {
                e.decider = TSYNC_DECIDED_BY_ENOSYS_STUB;
        } else {
                for (size_t i = 0; i < p->n_rules; i++) {
                        const struct tsync_rule *rule = &p->rules[i];
                        if (tsync_compile_action(rule->action) == res.ret && names_syscall(rule, abi, nr) &&
                            tsync_rule_matches(rule, in.args, abi_32bit)) {
                                e.decider = TSYNC_DECIDED_BY_RULE;
                                e.rule = i;
                                break;
                        }
                }
                if (e.decider == TSYNC_DECIDED_UNEXPLAINED && res.ret == tsync_compile_action(p->default_action))
                        e.decider = TSYNC_DECIDED_BY_DEFAULT;
        }
        *ret = e;
        return 0;
}

/* ACTION_ONLY of kernel/seccomp.c. */
static int32_t action_only(uint32_t ret)
{
        return (int32_t)(ret & SECCOMP_RET_ACTION_FULL);
}

uint32_t tsync_explain_stack(const uint32_t *rets, size_t n, size_t *ret_decider)
{
        uint32_t ret = SECCOMP_RET_ALLOW;
        size_t decider = n;
        for (size_t i = n; i-- > 0;)
                if (action_only(rets[i]) < action_only(ret)) {
                        ret = rets[i];
                        decider = i;
                }
        *ret_decider = decider;
        return ret;
}
