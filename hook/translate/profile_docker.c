/* Docker / containers-common seccomp profile -> normalised profile, resolved for
 * one container the way containers/common (pkg/seccomp, as in Podman 4.3) and
 * moby (profiles/seccomp) do it:
 *
 *  - archMap: the first entry whose architecture is the native one contributes
 *    itself and its subArchitectures; without such an entry no architecture is
 *    listed, which (as in runc) means the native one only.
 *  - includes: every condition must hold (all caps held, native arch listed,
 *    kernel >= minKernel); excludes: any condition that holds drops the entry.
 *  - includes/excludes.arches use libseccomp-golang's names ("amd64", "arm64",
 *    "x86", "x32", "s390x", ...), not libseccomp's ("x86_64", "aarch64").
 *  - "errno"/"defaultErrno" (a name like "EPERM" or a decimal number) win over
 *    "errnoRet"/"defaultErrnoRet", as in containers/common's getErrno().
 *
 * Where upstream would accept a broken entry only because this container
 * happens to skip it (a bad action in an excluded entry, "name" and "names"
 * together, a minKernel that does not parse), we refuse the profile whatever
 * the container: a profile's validity should not depend on the capability set
 * it is resolved for. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"
#include "shared/capnames.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"

/* The action under action_key, its number under errno_ret_key, and the
 * containers-common "errno" string under errno_key, which wins when not empty. */
static int parse_docker_action(const struct tsync_json *obj, const char *path, const char *action_key,
                               const char *errno_ret_key, const char *errno_key, struct tsync_action *ret,
                               struct tsync_err *err)
{
        struct tsync_action act;
        char at[TSYNC_PATH_MAX];
        const char *s;
        uint64_t v;
        int r;

        r = tsync_parse_action(obj, path, action_key, errno_ret_key, &act, err);
        if (r < 0)
                return r;
        const struct tsync_json *e = tsync_json_get(obj, errno_key);
        if (!e || e->type == TSYNC_JSON_NULL) {
                *ret = act;
                return 0;
        }
        tsync_path(at, "%s%s%s", path, *path ? "." : "", errno_key);
        r = tsync_json_str(e, at, &s, err);
        if (r < 0)
                return r;
        if (!*s) {
                /* Go cannot tell "" from absent. */
                *ret = act;
                return 0;
        }
        if (tsync_errno_parse(s, &v) < 0)
                return tsync_error(err, EINVAL, "%s: errno '%s' is unknown", at, s);
        if (act.kind != TSYNC_ACT_ERRNO && act.kind != TSYNC_ACT_TRACE)
                return tsync_error(err, EINVAL, "%s: only SCMP_ACT_ERRNO and SCMP_ACT_TRACE take an errno, not %s", at,
                                   tsync_action_name(act.kind));
        r = tsync_check_action_data(act.kind, v, at, err);
        if (r < 0)
                return r;
        act.data = (uint16_t)v;
        *ret = act;
        return 0;
}

/* One includes/excludes object, reduced to what the container is judged on. */
struct docker_filter {
        uint64_t caps;      /* the capabilities listed */
        bool has_arches;    /* a non-empty arches list was given */
        bool native_listed; /* ... and it names the native architecture */
        bool has_min_kernel;
        unsigned kernel, minor; /* minKernel "5.8": kernel 5, minor 8 (moby calls the second number Major) */
};

static int add_filter_cap(const char *s, const char *at, void *ctx, struct tsync_err *err)
{
        uint64_t *caps = ctx;
        /* Upstream compares these strings with the runtime-spec's bounding set,
         * which is spelt "CAP_SYS_ADMIN"; another spelling would never match there,
         * and a name libcap does not know cannot be in our bit mask. Both are
         * refused rather than treated as "not held": a typo in a profile should be
         * loud, not quietly change which syscalls a container gets. */
        bool canonical = strncmp(s, "CAP_", 4) == 0 && s[4] != '\0';
        for (const char *p = s; canonical && *p; p++)
                canonical = (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_';
        if (!canonical)
                return tsync_error(err, EINVAL, "%s: capability '%s' is not of the form 'CAP_NAME'", at, s);
        int c = tsync_capname_lookup(s, strlen(s));
        if (c < 0)
                return tsync_error(err, EINVAL, "%s: capability '%s' is unknown", at, s);
        *caps |= (uint64_t)1 << c;
        return 0;
}

static int parse_filter_caps(const struct tsync_json *v, const char *path, uint64_t *ret, struct tsync_err *err)
{
        uint64_t caps = 0;
        int r = tsync_parse_strings(v, path, add_filter_cap, &caps, err);
        if (r < 0)
                return r;
        *ret = caps;
        return 0;
}

struct arches_seen {
        const char *native;
        struct docker_filter *f;
};

static int note_filter_arch(const char *s, const char *at, void *ctx, struct tsync_err *err)
{
        (void)at;
        (void)err;
        struct arches_seen *seen = ctx;
        /* Names we do not know are kept, not refused: profiles are shared
         * across machines and name ports this libseccomp may not have. */
        if (seen->native && strcmp(s, seen->native) == 0)
                seen->f->native_listed = true;
        return 0;
}

static int parse_filter_arches(const struct tsync_json *v, const char *path, const char *native,
                               struct docker_filter *f, struct tsync_err *err)
{
        struct arches_seen seen = { native, f };
        int r = tsync_parse_strings(v, path, note_filter_arch, &seen, err);
        if (r < 0)
                return r;
        f->has_arches = v->u.array.len > 0;
        return 0;
}

/* "<kernel>.<minor>", each 0..255, not both 0; "" means no condition (moby's
 * KernelVersion.UnmarshalJSON, whose fields are named Kernel and Major; the
 * message keeps moby's words). */
static int parse_min_kernel(const struct tsync_json *v, const char *path, struct docker_filter *f,
                            struct tsync_err *err)
{
        const char *s;
        uint64_t kernel, minor;
        int r = tsync_json_str(v, path, &s, err);
        if (r < 0)
                return r;
        if (!*s)
                return 0;
        const char *dot = strchr(s, '.');
        if (!dot || tsync_parse_decimal(s, (size_t)(dot - s), 255, &kernel) < 0 ||
            tsync_parse_decimal(dot + 1, strlen(dot + 1), 255, &minor) < 0)
                goto bad;
        if (kernel == 0 && minor == 0)
                return tsync_error(err, EINVAL, "%s: kernel version '0.0' is not a version", path);
        f->has_min_kernel = true;
        f->kernel = (unsigned)kernel;
        f->minor = (unsigned)minor;
        return 0;
bad:
        return tsync_error(err, EINVAL, "%s: '%s' is not a kernel version of the form '<kernel>.<major>' (e.g. '5.8')",
                           path, s);
}

static int parse_filter(const struct tsync_json *sc, const char *path, const char *key, const char *native,
                        struct docker_filter *ret, struct tsync_err *err)
{
        struct docker_filter f = { 0 };
        char at[TSYNC_PATH_MAX], field[TSYNC_PATH_MAX];
        const struct tsync_json *obj = tsync_json_get(sc, key), *v;
        int r;

        *ret = f;
        if (!obj || obj->type == TSYNC_JSON_NULL)
                return 0;
        tsync_path(at, "%s.%s", path, key);
        r = tsync_json_expect(obj, at, TSYNC_JSON_OBJECT, err);
        if (r < 0)
                return r;
        if ((v = tsync_json_get(obj, "caps")) && v->type != TSYNC_JSON_NULL) {
                tsync_path(field, "%s.caps", at);
                r = parse_filter_caps(v, field, &f.caps, err);
                if (r < 0)
                        return r;
        }
        if ((v = tsync_json_get(obj, "arches")) && v->type != TSYNC_JSON_NULL) {
                tsync_path(field, "%s.arches", at);
                r = parse_filter_arches(v, field, native, &f, err);
                if (r < 0)
                        return r;
        }
        if ((v = tsync_json_get(obj, "minKernel")) && v->type != TSYNC_JSON_NULL) {
                tsync_path(field, "%s.minKernel", at);
                r = parse_min_kernel(v, field, &f, err);
                if (r < 0)
                        return r;
        }
        *ret = f;
        return 0;
}

static bool kernel_at_least(const struct tsync_docker_ctx *ctx, unsigned kernel, unsigned minor)
{
        return ctx->kernel_major > kernel || (ctx->kernel_major == kernel && ctx->kernel_minor >= minor);
}

static bool entry_applies(const struct docker_filter *inc, const struct docker_filter *exc,
                          const struct tsync_docker_ctx *ctx)
{
        if (exc->has_arches && exc->native_listed)
                return false;
        if (exc->caps & ctx->caps) /* any listed capability held */
                return false;
        if (exc->has_min_kernel && kernel_at_least(ctx, exc->kernel, exc->minor))
                return false;
        if (inc->has_arches && !inc->native_listed)
                return false;
        if (inc->caps & ~ctx->caps) /* some listed capability missing */
                return false;
        if (inc->has_min_kernel && !kernel_at_least(ctx, inc->kernel, inc->minor))
                return false;
        return true;
}

/* "name" (one syscall, the older form) or "names"; not both. */
static int parse_docker_names(const struct tsync_json *sc, const char *path, struct tsync_rule *rule,
                              struct tsync_err *err)
{
        const struct tsync_json *name = tsync_json_get(sc, "name"), *names = tsync_json_get(sc, "names");
        char at[TSYNC_PATH_MAX];
        const char *s = NULL;
        int r;

        if (name && name->type != TSYNC_JSON_NULL) {
                tsync_path(at, "%s.name", path);
                r = tsync_json_str(name, at, &s, err);
                if (r < 0)
                        return r;
                if (!*s) /* Go cannot tell "" from absent */
                        s = NULL;
        }
        if (names && names->type == TSYNC_JSON_NULL)
                names = NULL;
        /* As upstream, an empty "names" beside a "name" is no conflict. */
        if (s && names && !(names->type == TSYNC_JSON_ARRAY && names->u.array.len == 0))
                return tsync_error(err, EINVAL, "%s: both 'name' and 'names' are given; use one", path);
        if (s) {
                rule->names = calloc(1, sizeof(*rule->names));
                if (!rule->names || !(rule->names[0] = strdup(s)))
                        return tsync_error(err, ENOMEM, "%s: out of memory", path);
                rule->n_names = 1;
                return 0;
        }
        if (!names)
                return tsync_error(err, EINVAL, "%s: needs 'names' (or 'name')", path);
        tsync_path(at, "%s.names", path);
        return tsync_parse_names(names, at, &rule->names, &rule->n_names, err);
}

static int parse_docker_syscall(const struct tsync_json *sc, size_t i, const void *data, struct tsync_profile *p,
                                struct tsync_err *err)
{
        const struct tsync_docker_ctx *ctx = data;
        /* Upstream compares against the Go name of the native arch; for an arch
         * without one it compares against a name no profile uses: nothing matches. */
        const char *native = tsync_arch_go_name(ctx->native_arch);
        char at[TSYNC_PATH_MAX], field[TSYNC_PATH_MAX];
        struct tsync_rule rule = { 0 };
        struct docker_filter inc, exc;
        const struct tsync_json *v;
        int r;

        tsync_path(at, "syscalls[%zu]", i);
        r = tsync_json_expect(sc, at, TSYNC_JSON_OBJECT, err);
        if (r < 0)
                return r;
        r = parse_docker_names(sc, at, &rule, err);
        if (r >= 0)
                r = parse_docker_action(sc, at, "action", "errnoRet", "errno", &rule.action, err);
        if (r >= 0 && (v = tsync_json_get(sc, "args")) && v->type != TSYNC_JSON_NULL) {
                tsync_path(field, "%s.args", at);
                r = tsync_parse_args(v, field, &rule.args, &rule.n_args, err);
        }
        if (r >= 0 && (v = tsync_json_get(sc, "comment")) && v->type != TSYNC_JSON_NULL) {
                tsync_path(field, "%s.comment", at);
                r = tsync_json_expect(v, field, TSYNC_JSON_STRING, err);
        }
        if (r >= 0)
                r = parse_filter(sc, at, "includes", native, &inc, err);
        if (r >= 0)
                r = parse_filter(sc, at, "excludes", native, &exc, err);
        if (r >= 0 && !(rule.origin = strdup(at)))
                r = tsync_error(err, ENOMEM, "%s: out of memory", at);
        if (r < 0 || !entry_applies(&inc, &exc, ctx)) {
                tsync_rule_clear(&rule);
                return r < 0 ? r : 0;
        }
        if (tsync_profile_add_rule(p, &rule) < 0)
                return tsync_error(err, ENOMEM, "%s: out of memory", at);
        return 0;
}

/* Adds the first archMap entry for the native architecture and its
 * subArchitectures. Entries for other machines are only checked for shape:
 * their names may be ones this libseccomp does not know. */
static int parse_arch_map(const struct tsync_json *map, const struct tsync_docker_ctx *ctx, struct tsync_profile *p,
                          struct tsync_err *err)
{
        bool matched = false;
        for (size_t i = 0; i < map->u.array.len; i++) {
                const struct tsync_json *entry = map->u.array.items[i], *subs;
                char at[TSYNC_PATH_MAX], field[TSYNC_PATH_MAX];
                const char *name;
                uint32_t token;
                int r;

                tsync_path(at, "archMap[%zu]", i);
                r = tsync_json_expect(entry, at, TSYNC_JSON_OBJECT, err);
                if (r < 0)
                        return r;
                tsync_path(field, "%s.architecture", at);
                r = tsync_json_str(tsync_json_get(entry, "architecture"), field, &name, err);
                if (r < 0)
                        return r;
                subs = tsync_json_get(entry, "subArchitectures");
                if (subs && subs->type == TSYNC_JSON_NULL)
                        subs = NULL;
                tsync_path(field, "%s.subArchitectures", at);

                /* Upstream matches the exact string "SCMP_ARCH_X86_64", so only the
                 * long spelling counts here (tsync_arch_parse insists on upper case). */
                if (!matched && strncmp(name, "SCMP_ARCH_", 10) == 0 && tsync_arch_parse(name, &token) == 0 &&
                    token == ctx->native_arch) {
                        matched = true;
                        if (tsync_profile_add_arch(p, token) < 0)
                                return tsync_error(err, ENOMEM, "%s: out of memory", at);
                        if (subs) {
                                r = tsync_parse_arches(subs, field, p, err);
                                if (r < 0)
                                        return r;
                        }
                        continue;
                }
                if (subs) {
                        r = tsync_json_expect(subs, field, TSYNC_JSON_ARRAY, err);
                        for (size_t j = 0; r >= 0 && j < subs->u.array.len; j++) {
                                char item[TSYNC_PATH_MAX];
                                const char *s;
                                tsync_path(item, "%s[%zu]", field, j);
                                r = tsync_json_str(subs->u.array.items[j], item, &s, err);
                        }
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static bool nonempty_array(const struct tsync_json *v)
{
        return v && v->type == TSYNC_JSON_ARRAY && v->u.array.len > 0;
}

int tsync_profile_from_docker(const struct tsync_json *doc, const struct tsync_docker_ctx *ctx,
                              struct tsync_profile **ret, struct tsync_err *err)
{
        _cleanup_profile_ struct tsync_profile *p = NULL;
        const struct tsync_json *arches, *arch_map;
        int r;

        r = tsync_profile_start(doc, &p, err);
        if (r < 0)
                return r;

        r = parse_docker_action(doc, "", "defaultAction", "defaultErrnoRet", "defaultErrno", &p->default_action, err);
        if (r < 0)
                return r;

        arches = tsync_json_get(doc, "architectures");
        arch_map = tsync_json_get(doc, "archMap");
        if (nonempty_array(arches) && nonempty_array(arch_map))
                return tsync_error(err, EINVAL, "architectures: cannot be combined with archMap; use one");
        if (arches && arches->type != TSYNC_JSON_NULL) {
                r = tsync_parse_arches(arches, "architectures", p, err);
                if (r < 0)
                        return r;
        }
        if (arch_map && arch_map->type != TSYNC_JSON_NULL) {
                r = tsync_json_expect(arch_map, "archMap", TSYNC_JSON_ARRAY, err);
                if (r < 0)
                        return r;
                r = parse_arch_map(arch_map, ctx, p, err);
                if (r < 0)
                        return r;
        }
        r = tsync_parse_profile_rest(doc, parse_docker_syscall, ctx, p, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(p);
        return 0;
}

bool tsync_profile_is_docker(const struct tsync_json *doc)
{
        if (!doc || doc->type != TSYNC_JSON_OBJECT)
                return false;
        if (tsync_json_get(doc, "archMap") || tsync_json_get(doc, "defaultErrno"))
                return true;
        const struct tsync_json *calls = tsync_json_get(doc, "syscalls");
        if (!calls || calls->type != TSYNC_JSON_ARRAY)
                return false;
        for (size_t i = 0; i < calls->u.array.len; i++) {
                const struct tsync_json *sc = calls->u.array.items[i];
                if (tsync_json_get(sc, "name") || tsync_json_get(sc, "includes") || tsync_json_get(sc, "excludes"))
                        return true;
        }
        return false;
}
