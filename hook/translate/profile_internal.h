/* Parsing pieces shared by the OCI and the Docker-format readers (not
 * installed), in profile_parse.c unless said otherwise. */
#pragma once

#include "translate/profile.h"
#include "util/json.h"

/* Longest JSON path we build for messages. */
#define TSYNC_PATH_MAX 256

/* The largest errno a filter can return. The kernel caps SECCOMP_RET_ERRNO
 * data at MAX_ERRNO (4095), so anything above would silently become 4095, and
 * libseccomp (2.5.4) refuses 4095 itself with a bare EINVAL; so 4094. */
#define TSYNC_MAX_ERRNO_RET 4094u

/* Refuses an errno above what the action can carry (TSYNC_MAX_ERRNO_RET for
 * ERRNO, the 16 bits of SECCOMP_RET_DATA for TRACE), naming the field at path. */
int tsync_check_action_data(enum tsync_act kind, uint64_t v, const char *path, struct tsync_err *err);

/* Reads the array of strings at path, each string by each (at: its path,
 * "path[i]", for messages); the first error stops it. */
int tsync_parse_strings(const struct tsync_json *array, const char *path,
                        int (*each)(const char *s, const char *at, void *ctx, struct tsync_err *err), void *ctx,
                        struct tsync_err *err);

/* Formats a JSON path for messages into buf (TSYNC_PATH_MAX bytes). */
void tsync_path(char buf[TSYNC_PATH_MAX], const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reads obj[action_key] and obj[errno_key] (errno_key may be absent).
 * ERRNO and TRACE without an errno both mean EPERM, as in runc;
 * an errno with any other action is an error; errnos above
 * TSYNC_MAX_ERRNO_RET are refused (tsync_check_action_data). */
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

/* libseccomp-golang's name of an architecture ("amd64"), which Docker-format
 * includes/excludes.arches use; NULL if we know none. In profile.c, beside the
 * other names of each architecture. */
const char *tsync_arch_go_name(uint32_t token);

/* obj[key] as a new string in *ret; absent or null leaves *ret alone. */
int tsync_parse_optional_string(const struct tsync_json *obj, const char *key, char **ret, struct tsync_err *err);

/* A format's reader of syscalls[i] into p (ctx: the format's own, may be NULL). */
typedef int (*tsync_syscall_reader)(const struct tsync_json *sc, size_t i, const void *ctx, struct tsync_profile *p,
                                    struct tsync_err *err);

/* The start both formats share: obj must be an object; a new empty profile in *ret. */
int tsync_profile_start(const struct tsync_json *obj, struct tsync_profile **ret, struct tsync_err *err);

/* The rest both formats share, once each has read its own members: the
 * top-level members they define alike (flags, listenerPath,
 * listenerMetadata: a new member of that kind belongs here), "syscalls"
 * (each entry through read_syscall), then the flags checked against the whole
 * profile (tsync_check_flags). */
int tsync_parse_profile_rest(const struct tsync_json *obj, tsync_syscall_reader read_syscall, const void *ctx,
                             struct tsync_profile *p, struct tsync_err *err);

/* Appends arch to p->arches unless it is already there. */
int tsync_profile_add_arch(struct tsync_profile *p, uint32_t arch);

/* Appends *r to p->rules, taking ownership of its members (r is zeroed) even on failure. */
int tsync_profile_add_rule(struct tsync_profile *p, struct tsync_rule *r);

/* Frees the members of r (not r itself) and zeroes it. */
void tsync_rule_clear(struct tsync_rule *r);
