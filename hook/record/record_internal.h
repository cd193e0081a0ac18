/* The record set, shared by record_file.c (parsing), record_profile.c and
 * record_merge.c (not installed). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/record_file.h"
#include "shared/error.h"
#include "translate/profile.h"

struct tsync_record_call {
        uint32_t abi; /* SCMP_ARCH_* token: AUDIT_ARCH_*, or SCMP_ARCH_X32 for an x86_64 number with the x32 bit */
        uint32_t nr;  /* as seccomp_data.nr has it (x32 keeps its bit) */
};

struct tsync_record_set {
        struct tsync_record_call *calls; /* sorted by (abi, nr), without duplicates */
        size_t n;
};

/* A sorted list of distinct strings (syscall names). */
struct tsync_names {
        char **v;
        size_t n, cap;
};

void tsync_names_clear(struct tsync_names *names);
/* Adds a copy of name unless it is there; keeps the order. 0 or -ENOMEM. */
int tsync_names_add(struct tsync_names *names, const char *name);
/* True if name is in names. */
bool tsync_names_has(const struct tsync_names *names, const char *name);

/* The SCMP_ARCH_* tokens of a profile: the native ABI first, then the others
 * in the order of their SCMP_ARCH_ names. */
struct tsync_abis {
        uint32_t v[32];
        size_t n;
};

/* Adds abi unless it is there. -E2BIG past the table's size (cannot happen
 * with the architectures profile.c knows). */
int tsync_abis_add(struct tsync_abis *abis, uint32_t abi);

/* True if a filter for this machine's native ABI can hold abi too: libseccomp
 * puts ABIs of one byte order only in a filter (EDOM otherwise). */
bool tsync_record_abi_fits(uint32_t abi);

/* What a previous profile (req->input) adds. One of our recordings: its ABIs
 * and its recorded names (syscalls[0], and in later rules the names that are
 * not among extra_names, the rule this build adds itself), *ret_base NULL.
 * Any other profile: its ABIs, the profile itself in *ret_base, whose rules
 * the output keeps, and in named every name any of its rules names (those the
 * output must not add: record_merge.c says why and what is refused). Errors
 * name the JSON path; the caller prefixes the file. */
int tsync_record_merge_input(const char *path, const struct tsync_names *extra_names, struct tsync_abis *abis,
                             struct tsync_names *names, struct tsync_profile **ret_base, struct tsync_names *named,
                             struct tsync_err *err);
