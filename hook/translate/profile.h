/* The normalised seccomp profile: what both input formats (OCI linux.seccomp
 * and the Docker/containers-common file) are turned into before compiling. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/error.h"
#include "util/json.h"

enum tsync_act {
        TSYNC_ACT_KILL_THREAD, /* SCMP_ACT_KILL and SCMP_ACT_KILL_THREAD */
        TSYNC_ACT_KILL_PROCESS,
        TSYNC_ACT_TRAP,
        TSYNC_ACT_ERRNO,
        TSYNC_ACT_TRACE,
        TSYNC_ACT_ALLOW,
        TSYNC_ACT_LOG,
        TSYNC_ACT_NOTIFY,
};

struct tsync_action {
        enum tsync_act kind;
        uint16_t data; /* errno for ERRNO, message for TRACE; 0 otherwise */
};

enum tsync_op {
        TSYNC_OP_NE,
        TSYNC_OP_LT,
        TSYNC_OP_LE,
        TSYNC_OP_EQ,
        TSYNC_OP_GE,
        TSYNC_OP_GT,
        TSYNC_OP_MASKED_EQ, /* (arg & value) == value_two */
};

struct tsync_arg {
        unsigned index; /* 0..5 */
        uint64_t value;
        uint64_t value_two;
        enum tsync_op op;
};

struct tsync_rule {
        char **names;
        size_t n_names;
        struct tsync_action action;
        struct tsync_arg *args;
        size_t n_args;
        char *origin; /* where it came from, for messages: "syscalls[12]" */
};

/* Every member of these structs that shapes the compiled program must reach
 * tsync_profile_canonical (the cache key), or the cache serves the program of
 * another profile. tests/unit/test_cache_key.c changes each member in turn and
 * breaks the build when one is added here: give it a value and a change there. */
struct tsync_profile {
        struct tsync_action default_action;
        uint32_t *arches; /* SCMP_ARCH_* tokens, as listed (native not necessarily included) */
        size_t n_arches;
        uint32_t flags; /* SECCOMP_FILTER_FLAG_* requested (LOG, SPEC_ALLOW, WAIT_KILLABLE_RECV) */
        char *listener_path;
        char *listener_metadata;
        struct tsync_rule *rules;
        size_t n_rules;
};

void tsync_profile_free(struct tsync_profile *p);
static inline void tsync_profile_freep(struct tsync_profile **p)
{
        tsync_profile_free(*p);
}
#define _cleanup_profile_ __attribute__((cleanup(tsync_profile_freep)))

/* Parses an OCI runtime-spec linux.seccomp object. Errors name the JSON path
 * relative to seccomp ("syscalls[3].args[0].op: 'SCMP_CMP_FOO' is unknown");
 * the caller prefixes where the object lives. */
int tsync_profile_from_oci(const struct tsync_json *seccomp, struct tsync_profile **ret, struct tsync_err *err);

/* What a Docker-format profile's includes/excludes are judged against. */
struct tsync_docker_ctx {
        uint32_t native_arch; /* SCMP_ARCH_* of the machine the container runs on */
        uint64_t caps;        /* bit n set: capability n (as in linux/capability.h) is in the set */
        unsigned kernel_major, kernel_minor;
};

/* Parses a Docker/containers-common profile (archMap, name/names,
 * includes/excludes with caps, arches and minKernel, defaultErrnoRet) and
 * resolves it for ctx, the way containers/common and moby do. */
int tsync_profile_from_docker(const struct tsync_json *doc, const struct tsync_docker_ctx *ctx,
                              struct tsync_profile **ret, struct tsync_err *err);

/* True if doc looks like the Docker format (archMap, or a syscall with
 * name/includes/excludes, or defaultErrno). */
bool tsync_profile_is_docker(const struct tsync_json *doc);

/* Checks doc's keys against those its format defines (docker: the
 * Docker/containers-common profile, else the runtime-spec's linux.seccomp): at
 * the top, in each syscalls[] rule, in each args[] entry, and for Docker in
 * includes/excludes and archMap[]. An unknown key is an error naming its JSON
 * path, with "did you mean" when a known key is a slip away (warn false: a
 * layer, where a typo would silently drop rules); or, warn true, a warning in w
 * with the path under prefix, and ignored (a config's own linux.seccomp, where
 * runc ignores unknown keys). */
int tsync_profile_check_keys(const struct tsync_json *doc, bool docker, bool warn, const char *prefix,
                             struct tsync_warnings *w, struct tsync_err *err);

/* True if p has an SCMP_ACT_NOTIFY action, as default or in a rule: loading it
 * needs a notification listener (SECCOMP_FILTER_FLAG_NEW_LISTENER). */
bool tsync_profile_has_notify_action(const struct tsync_profile *p);

/* True if p asks for seccomp user notification in any way: a NOTIFY action or
 * a listenerPath. */
bool tsync_profile_uses_notify(const struct tsync_profile *p);

/* The rules a profile using notify must keep, runc's and ours, each -EINVAL
 * with "<what>: <why>": runc's own "SCMP_ACT_NOTIFY cannot be used as default
 * action" and "SCMP_ACT_NOTIFY cannot be used for the write syscall" (the
 * runtime would deadlock on its own write; the init has the same kind of rule
 * for its calls, in the route, shared/init_calls.h); NOTIFY actions without a
 * listenerPath (nobody to send the listener to); a listenerPath that is not
 * absolute (it is bind-mounted from the host); and a listenerPath plus
 * listenerMetadata too long for the filter file's trailer. A listenerPath
 * without NOTIFY actions is no agent filter (runc sends nothing then): fine. */
int tsync_profile_check_notify(const struct tsync_profile *p, const char *what, struct tsync_err *err);

/* Name tables (strings as in the runtime-spec). Return -EINVAL if unknown. */
int tsync_action_parse(const char *name, enum tsync_act *ret);
const char *tsync_action_name(enum tsync_act kind);
int tsync_op_parse(const char *name, enum tsync_op *ret);
const char *tsync_op_name(enum tsync_op op);
/* "SCMP_ARCH_X86_64" -> SCMP_ARCH_X86_64 token; also accepts the short forms libseccomp knows ("x86_64"). */
int tsync_arch_parse(const char *name, uint32_t *ret);
const char *tsync_arch_name(uint32_t token);
int tsync_flag_parse(const char *name, uint32_t *ret);

/* A canonical text of p (stable across runs, independent of JSON key order
 * and whitespace), used as the cache key's input. Caller frees *ret. */
int tsync_profile_canonical(const struct tsync_profile *p, char **ret, size_t *ret_len);
