/* Parsing pieces shared by the OCI and the Docker-format readers (not installed). */
#pragma once

#include "tsync/json.h"
#include "tsync/profile.h"

/* Longest JSON path we build for messages. */
#define TSYNC_PATH_MAX 256

/* Formats a JSON path for messages into buf (TSYNC_PATH_MAX bytes). */
void tsync_path(char buf[TSYNC_PATH_MAX], const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reads obj[action_key] and obj[errno_key] (errno_key may be absent).
 * ERRNO without an errno means EPERM and TRACE without one means 1, as in runc;
 * an errno with any other action is an error; errnos above 4095 are refused
 * because the kernel would silently cap them. */
int tsync_parse_action(const struct tsync_json *obj, const char *path, const char *action_key, const char *errno_key,
                       struct tsync_action *ret, struct tsync_err *err);

/* Reads an array of {index, value, valueTwo, op}. */
int tsync_parse_args(const struct tsync_json *args, const char *path, struct tsync_arg **ret, size_t *ret_n,
                     struct tsync_err *err);

/* Reads an array of syscall names (strings without NUL). Empty arrays are an error. */
int tsync_parse_names(const struct tsync_json *names, const char *path, char ***ret, size_t *ret_n,
                      struct tsync_err *err);

/* Reads an array of architecture names into p->arches (appending, without duplicates). */
int tsync_parse_arches(const struct tsync_json *arches, const char *path, struct tsync_profile *p,
                       struct tsync_err *err);

/* Reads an array of SECCOMP_FILTER_FLAG_* names into p->flags. */
int tsync_parse_flags(const struct tsync_json *flags, const char *path, struct tsync_profile *p, struct tsync_err *err);

/* Appends arch to p->arches unless it is already there. */
int tsync_profile_add_arch(struct tsync_profile *p, uint32_t arch);

/* Appends *r to p->rules, taking ownership of its members (r is zeroed) even on failure. */
int tsync_profile_add_rule(struct tsync_profile *p, struct tsync_rule *r);

/* Frees the members of r (not r itself) and zeroes it. */
void tsync_rule_clear(struct tsync_rule *r);
