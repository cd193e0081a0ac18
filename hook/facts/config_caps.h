/* Capability sets as 64-bit masks (bit n = capability n), named from the one
 * table of shared/capnames.h. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "shared/error.h"
#include "util/json.h"

/* Parses a list a user typed (--caps): "CAP_CHOWN,CAP_KILL", also lower case
 * and without the CAP_ prefix, "all" (every capability this kernel knows) and
 * "none" / "", and the engines' default sets "docker-default" (moby's
 * oci/caps/defaults.go, 14 capabilities) and "podman-default" (containers.conf
 * default_capabilities, 11). Not for configs: those are read by runc's rule below. */
int tsync_caps_parse_list(const char *list, uint64_t *ret, struct tsync_err *err);

/* The capability one entry of a config's process.capabilities names as runc
 * 1.1.5 reads it: an exact name of the table that this kernel has; -1 for any
 * entry runc ignores. */
int tsync_cap_runc(const char *name, size_t len);

/* A JSON array of capability names (as in process.capabilities.bounding) as
 * runc reads it: entries runc ignores are left out (tsync_caps_warn_ignored
 * says which); an entry that is not a string is an error. */
int tsync_caps_from_json(const struct tsync_json *arr, const char *path, uint64_t *ret, struct tsync_err *err);

/* The bounding set a runtime gives a process whose config has this
 * process.capabilities object: NULL (no object) leaves it every capability, an
 * object without "bounding" none. Docker-format conditions are judged on it. */
int tsync_caps_bounding_of(const struct tsync_json *capabilities, const char *path, uint64_t *ret,
                           struct tsync_err *err);

/* One warning in w, in runc's words, listing (sorted, each once) the entries
 * of the five sets of process.capabilities that runc ignores and that are
 * therefore left out; nothing when there are none. -ENOMEM only. */
int tsync_caps_warn_ignored(const struct tsync_json *capabilities, struct tsync_warnings *w, struct tsync_err *err);

/* Resolves one name a user typed ("CAP_SYS_ADMIN", "sys_admin"); -EINVAL if
 * the table does not know it. */
int tsync_cap_from_name(const char *name, unsigned *ret);
