/* The kernel's error numbers by name and in words, glibc's under any libc
 * (hook/shared/errnos.c). Static strings, no heap: the init calls them after
 * its filters. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Which names tsync_errno_from_name takes. */
enum tsync_errno_names {
        TSYNC_ERRNO_NAMES_ALL,    /* every name of the table */
        TSYNC_ERRNO_NAMES_COMMON, /* containers/common's: a Docker-format profile's "errno" */
};

/* e or -e in words; "unknown error" for a number the table does not know. */
const char *tsync_errtext(int e);
/* e or -e by name ("EPERM"); NULL for a number the table does not name, 0 included. */
const char *tsync_errno_name(int e);
/* The number name stands for, among names: its row's name or alias, exactly
 * (case counts). 0, or -EINVAL for a name not among them; *ret untouched then. */
int tsync_errno_from_name(const char *name, enum tsync_errno_names names, int *ret);

/* s[0..len) as a decimal number no larger than max, nothing else (Go's
 * strconv.ParseUint with base 10: no sign, no spaces, no "0x"): 0, -EINVAL,
 * or -ERANGE above max. */
int tsync_parse_decimal(const char *s, size_t len, uint64_t max, uint64_t *ret);

/* An errno as a Docker-format profile's "errno" names it: containers/common's
 * names (EPERM, ...) or a decimal number up to UINT32_MAX. -EINVAL otherwise. */
int tsync_errno_parse(const char *s, uint64_t *ret);
