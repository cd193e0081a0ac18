/* Names for the arguments explain shows: the flag sets and enums of a few
 * calls profiles condition on (clone, unshare, setns, personality, socket),
 * one small table each, read and printed as the kernel's headers name them. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct tsync_argname {
        const char *name;
        uint64_t value;
        uint64_t mask; /* a flag: mask == value; a value of an enum field: the field's bits */
};

struct tsync_argtable {
        const char *what; /* "clone flags", "address family", ... */
        const struct tsync_argname *names;
        size_t n_names;
        uint64_t signal_mask; /* clone: the exit signal's bits (CSIGNAL), named SIGxxx; else 0 */
};

/* The table for argument index of syscall as made through ABI abi (a
 * SCMP_ARCH_* token: s390's clone takes its flags second), or NULL when we
 * name none. clone3 has none: its flags are in memory a filter cannot read. */
const struct tsync_argtable *tsync_argtable_find(const char *syscall, unsigned index, uint32_t abi);

/* v as names joined by '|' ("CLONE_NEWUSER|SIGCHLD", "PER_LINUX32|UNAME26",
 * "AF_INET"); bits no name covers end it as one hex number; 0 with no name
 * for it is "0". Truncated to size like snprintf. */
void tsync_argtable_format(const struct tsync_argtable *t, uint64_t v, char *buf, size_t size);

/* The reverse: names (and numbers) joined by '|', ORed; -EINVAL for a word
 * the table does not know. */
int tsync_argtable_parse(const struct tsync_argtable *t, const char *s, uint64_t *ret);
