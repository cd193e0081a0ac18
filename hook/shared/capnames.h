/* The capability names, one table for the host and the init: exactly the names
 * runc 1.1.5 accepts in process.capabilities ("CAP_" + the upper-case name of
 * each capability its gocapability knows, CAP_CHOWN .. CAP_CHECKPOINT_RESTORE).
 * runc ignores, with a warning, any other spelling ("sys_admin",
 * "cap_sys_admin", "CAP_KILL,CAP_SYS_ADMIN", "CAP_SYS_ADMIN ") and any name
 * past the kernel's last capability. No libc beyond string compares, no heap:
 * the init uses it after its first filter. */
#pragma once

#include <stddef.h>

/* The last capability the table names (CAP_CHECKPOINT_RESTORE). */
#define TSYNC_CAPNAME_LAST 40

/* "CAP_CHOWN" for 0, ...; NULL past the table. */
const char *tsync_capname(unsigned cap);

/* The capability an exact name of len bytes (which may hold NUL bytes) names,
 * or -1: only the table's spelling, nothing around it. */
int tsync_capname_lookup(const char *name, size_t len);
