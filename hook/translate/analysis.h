/* Questions about a compiled profile, answered by simulating its BPF. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "shared/error.h"
#include "translate/compile.h"
#include "translate/profile.h"

enum tsync_decider {
        TSYNC_DECIDED_BY_RULE,
        TSYNC_DECIDED_BY_DEFAULT,
        TSYNC_DECIDED_BY_ENOSYS_STUB, /* number above every syscall the profile names */
        TSYNC_DECIDED_BY_BAD_ARCH,    /* an ABI the profile does not list */
        TSYNC_DECIDED_UNEXPLAINED,    /* the program returned something no rule asks for */
};

struct tsync_explanation {
        uint32_t ret;    /* SECCOMP_RET_* the program returned */
        size_t executed; /* instructions executed */
        bool read_args;  /* the path read arguments (not cacheable by the kernel) */
        enum tsync_decider decider;
        size_t rule;  /* index into p->rules when decider is RULE */
        uint32_t abi; /* the ABI the filter sees: x32 asked for a number without
                       * X32_SYSCALL_BIT is an x86_64 call to the kernel */
};

/* Simulates prog for syscall nr made through ABI abi (a SCMP_ARCH_* token; x32
 * numbers include X32_SYSCALL_BIT, and one without it is judged as the x86_64
 * call the kernel would see) with args, then names what decided the
 * result: the first rule whose syscall, conditions and action all match it,
 * the default action, the ENOSYS stub, or the bad-architecture action. */
int tsync_explain(const struct tsync_profile *p, const struct tsync_program *prog, uint32_t native, uint32_t abi,
                  int nr, const uint64_t args[6], struct tsync_explanation *ret, struct tsync_err *err);

/* Whether args satisfy rule r's conditions with runc's semantics (AND, or OR
 * when an index repeats). abi_32bit: compare the low 32 bits only. */
bool tsync_rule_matches(const struct tsync_rule *r, const uint64_t args[6], bool abi_32bit);

enum tsync_severity { TSYNC_LINT_WARNING, TSYNC_LINT_ERROR };

struct tsync_finding {
        enum tsync_severity severity;
        char *msg; /* "syscalls[3]: ..." */
};

struct tsync_lint {
        struct tsync_finding *findings;
        size_t len;
        size_t errors, warnings;
};

void tsync_lint_clear(struct tsync_lint *l);

/* Lints p: unknown syscall names (errors when strict), names repeated in a rule,
 * syscalls named unconditionally by two rules, rules equal to the default
 * action, conditions that can never match, and rules shadowed in the compiled
 * program (a call that satisfies the rule gets another action). prog is p
 * compiled for native. Returns 0 or -ENOMEM; findings go to ret. */
int tsync_lint(const struct tsync_profile *p, const struct tsync_program *prog, uint32_t native, bool strict,
               struct tsync_lint *ret, struct tsync_err *err);

/* The kernel's answer for a stack of filters that each answered rets[i]
 * (rets in the order they were loaded, oldest first), as kernel/seccomp.c's
 * seccomp_run_filters takes it: every filter runs, newest first, and one
 * replaces the answer so far only when its action (ret & SECCOMP_RET_ACTION_FULL,
 * compared as a signed 32-bit number: KILL_PROCESS < KILL_THREAD < TRAP <
 * ERRNO < USER_NOTIF < TRACE < LOG < ALLOW) is strictly lower. So on a tie the
 * newest filter's answer, with its data (the errno), counts, and when every
 * filter allows none decides: *ret_decider is the deciding index, or n. */
uint32_t tsync_explain_stack(const uint32_t *rets, size_t n, size_t *ret_decider);
