/* Capability sets as 64-bit masks (bit n = capability n), named with libcap. */
#pragma once

#include <stdint.h>

#include "tsync/error.h"
#include "tsync/json.h"

/* Parses "CAP_CHOWN,CAP_KILL", also lower case and without the CAP_ prefix,
 * "all" (every capability this kernel knows) and "none" / "". */
int tsync_caps_parse_list(const char *list, uint64_t *ret, struct tsync_err *err);

/* Parses a JSON array of capability names (as in process.capabilities.bounding). */
int tsync_caps_from_json(const struct tsync_json *arr, const char *path, uint64_t *ret, struct tsync_err *err);

/* The bounding set a runtime gives a process whose config has this
 * process.capabilities object: NULL (no object) leaves it every capability, an
 * object without "bounding" none. Docker-format conditions are judged on it. */
int tsync_caps_bounding_of(const struct tsync_json *capabilities, const char *path, uint64_t *ret,
                           struct tsync_err *err);

/* Resolves one name ("CAP_SYS_ADMIN"); -EINVAL if libcap does not know it. */
int tsync_cap_from_name(const char *name, unsigned *ret);
