/* profile -> BPF with libseccomp, plus the ENOSYS stub runc also installs. */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/arches.h"
#include "shared/error.h"
#include "translate/profile.h"

struct tsync_compile_opts {
        uint32_t native_arch; /* SCMP_ARCH_*; 0: seccomp_arch_native() */
        bool strict;          /* unknown syscall names are errors, not warnings */
};

struct tsync_program {
        struct sock_filter *insns;
        size_t len;
        uint32_t flags;    /* SECCOMP_FILTER_FLAG_* to load it with (besides TSYNC) */
        uint32_t listener; /* enum tsync_listener: set by the plan for its exec-once filter, never by a profile */
};

void tsync_program_free(struct tsync_program *p);
static inline void tsync_program_freep(struct tsync_program **p)
{
        tsync_program_free(*p);
}
#define _cleanup_program_ __attribute__((cleanup(tsync_program_freep)))

/* Compiles p. Unknown syscall names become one warning listing them (or an
 * error with opts->strict). Rules whose action equals the default are dropped,
 * as runc and crun drop them. Syscall numbers above the highest one the profile
 * names get ENOSYS unless the default action is ALLOW, LOG, TRACE or NOTIFY. */
int tsync_compile(const struct tsync_profile *p, const struct tsync_compile_opts *opts, struct tsync_program **ret,
                  struct tsync_warnings *warnings, struct tsync_err *err);

/* The name check tsync_compile starts with: one warning listing the syscall
 * names libseccomp does not know, or an error with opts->strict. (A cache hit
 * runs it too, so the warning is not lost.) */
int tsync_compile_check_names(const struct tsync_profile *p, const struct tsync_compile_opts *opts,
                              struct tsync_warnings *warnings, struct tsync_err *err);

/* Whether the ENOSYS stub applies to p, and the number above which it answers
 * for ABI arch (-1: no syscall of the profile exists there, no stub for it). */
bool tsync_compile_has_stub(const struct tsync_profile *p);
long tsync_compile_highest_named(const struct tsync_profile *p, uint32_t arch);

/* One warning naming every syscall of p that architecture arch (SCMP_ARCH_*)
 * does not have, which a program for it leaves out (none: no warning).
 * tsync_compile says it for an architecture not this machine's. */
int tsync_compile_check_arch_names(const struct tsync_profile *p, uint32_t arch, struct tsync_warnings *warnings,
                                   struct tsync_err *err);

/* The SCMP_ACT_* value an action compiles to (compare actions with it). */
uint32_t tsync_compile_action(struct tsync_action a);

/* AUDIT_ARCH_* for a SCMP_ARCH_* token, 0 if unknown. */
uint32_t tsync_audit_arch(uint32_t scmp_arch);
