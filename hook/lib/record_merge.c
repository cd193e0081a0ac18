/* Reading a previous recording back (the `if:` of the record annotation), so
 * that several runs add up.
 *
 * Only the shape tsync_record_profile writes is read, in either format:
 * defaultAction SCMP_ACT_ERRNO, architectures or archMap, and rules that are
 * names with SCMP_ACT_ALLOW (and, in Docker's, a comment). Anything else
 * (a condition on arguments, another action, an unknown key) is refused:
 * merged into one unconditional allow-list it would allow more than it did. */
#include <errno.h>
#include <seccomp.h>
#include <string.h>

#include "profile_internal.h"
#include "record_internal.h"
#include "tsync/cleanup.h"
#include "tsync/json.h"
#include "tsync/profile.h"

static int check_keys(const struct tsync_json *obj, const char *at, const char *const *keys, size_t n,
                      struct tsync_err *err)
{
        for (size_t i = 0; i < obj->u.object.len; i++) {
                bool known = false;
                for (size_t j = 0; j < n && !known; j++)
                        known = strcmp(obj->u.object.keys[i], keys[j]) == 0;
                if (!known)
                        return tsync_error(err, EINVAL, "%s%s'%s': not a key of a recorded profile", at,
                                           *at ? ": " : "", obj->u.object.keys[i]);
        }
        return 0;
}

static int add_arch(const struct tsync_json *v, const char *at, struct tsync_abis *abis, struct tsync_err *err)
{
        const char *name;
        uint32_t token;
        int r = tsync_json_str(v, at, &name, err);
        if (r < 0)
                return r;
        if (tsync_arch_parse(name, &token) < 0)
                return tsync_error(err, EINVAL, "%s: architecture '%s' is unknown", at, name);
        if (!tsync_record_abi_fits(token))
                return tsync_error(err, EINVAL, "%s: %s cannot be in one filter with this machine's %s", at, name,
                                   tsync_arch_name(seccomp_arch_native()));
        if (tsync_abis_add(abis, token) < 0)
                return tsync_error(err, E2BIG, "%s: too many architectures", at);
        return 0;
}

static int add_arch_array(const struct tsync_json *arr, const char *at, struct tsync_abis *abis, struct tsync_err *err)
{
        int r = tsync_json_expect(arr, at, TSYNC_JSON_ARRAY, err);
        for (size_t i = 0; r == 0 && i < arr->u.array.len; i++) {
                char item[TSYNC_PATH_MAX];
                tsync_path(item, "%s[%zu]", at, i);
                r = add_arch(arr->u.array.items[i], item, abis, err);
        }
        return r;
}

static int read_arch_map(const struct tsync_json *map, struct tsync_abis *abis, struct tsync_err *err)
{
        static const char *const keys[] = { "architecture", "subArchitectures" };
        int r = tsync_json_expect(map, "archMap", TSYNC_JSON_ARRAY, err);
        for (size_t i = 0; r == 0 && i < map->u.array.len; i++) {
                const struct tsync_json *entry = map->u.array.items[i], *subs;
                char at[TSYNC_PATH_MAX], field[TSYNC_PATH_MAX];
                tsync_path(at, "archMap[%zu]", i);
                r = tsync_json_expect(entry, at, TSYNC_JSON_OBJECT, err);
                if (r == 0)
                        r = check_keys(entry, at, keys, ARRAY_SIZE(keys), err);
                tsync_path(field, "%s.architecture", at);
                if (r == 0)
                        r = add_arch(tsync_json_get(entry, "architecture"), field, abis, err);
                tsync_path(field, "%s.subArchitectures", at);
                if (r == 0 && (subs = tsync_json_get(entry, "subArchitectures")))
                        r = add_arch_array(subs, field, abis, err);
        }
        return r;
}

/* A name this libseccomp knows on one of the ABIs. */
static bool known_name(const char *name, const struct tsync_abis *abis)
{
        for (size_t i = 0; i < abis->n; i++)
                if (seccomp_syscall_resolve_name_arch(abis->v[i], name) != __NR_SCMP_ERROR)
                        return true;
        return false;
}

static int read_rule(const struct tsync_json *rule, size_t i, bool docker, const struct tsync_names *extra_names,
                     const struct tsync_abis *abis, struct tsync_names *names, struct tsync_err *err)
{
        static const char *const oci_keys[] = { "names", "action" };
        static const char *const docker_keys[] = { "names", "action", "comment" };
        char at[TSYNC_PATH_MAX], field[TSYNC_PATH_MAX];
        const struct tsync_json *v;
        const char *s;

        tsync_path(at, "syscalls[%zu]", i);
        int r = tsync_json_expect(rule, at, TSYNC_JSON_OBJECT, err);
        if (r == 0)
                r = docker ? check_keys(rule, at, docker_keys, ARRAY_SIZE(docker_keys), err)
                           : check_keys(rule, at, oci_keys, ARRAY_SIZE(oci_keys), err);
        tsync_path(field, "%s.action", at);
        if (r == 0)
                r = tsync_json_str(tsync_json_get(rule, "action"), field, &s, err);
        if (r < 0)
                return r;
        if (strcmp(s, "SCMP_ACT_ALLOW") != 0)
                return tsync_error(err, EINVAL, "%s: '%s': a recorded profile allows, with SCMP_ACT_ALLOW", field, s);
        tsync_path(field, "%s.comment", at);
        if ((v = tsync_json_get(rule, "comment")) && (r = tsync_json_str(v, field, &s, err)) < 0)
                return r;

        tsync_path(field, "%s.names", at);
        v = tsync_json_get(rule, "names");
        r = tsync_json_expect(v, field, TSYNC_JSON_ARRAY, err);
        if (r < 0)
                return r;
        if (v->u.array.len == 0)
                return tsync_error(err, EINVAL, "%s: empty", field);
        for (size_t j = 0; j < v->u.array.len; j++) {
                char item[TSYNC_PATH_MAX];
                tsync_path(item, "%s[%zu]", field, j);
                r = tsync_json_str(v->u.array.items[j], item, &s, err);
                if (r < 0)
                        return r;
                if (!known_name(s, abis))
                        return tsync_error(err, EINVAL, "%s: '%s' is no system call libseccomp %u.%u.%u knows", item, s,
                                           seccomp_version()->major, seccomp_version()->minor,
                                           seccomp_version()->micro);
                /* A later rule is the one this build adds (record_profile.c); what
                 * an older build added and this one does not is kept as recorded. */
                if (i > 0 && tsync_names_has(extra_names, s))
                        continue;
                if (tsync_names_add(names, s) < 0)
                        return tsync_error(err, ENOMEM, "out of memory");
        }
        return 0;
}

int tsync_record_merge_input(const char *path, const struct tsync_names *extra_names, struct tsync_abis *abis,
                             struct tsync_names *names, struct tsync_err *err)
{
        static const char *const oci_top[] = { "defaultAction", "defaultErrnoRet", "architectures", "syscalls" };
        static const char *const docker_top[] = { "defaultAction", "defaultErrnoRet", "archMap", "syscalls" };
        _cleanup_json_ struct tsync_json *doc = NULL;
        const struct tsync_json *v;
        const char *s;
        uint64_t errno_ret;

        /* Its errors name the file already. */
        int r = tsync_json_parse_file(path, NULL, &doc, err);
        if (r < 0)
                return r;
        r = tsync_json_expect(doc, "the profile", TSYNC_JSON_OBJECT, err);
        if (r < 0)
                return r;
        bool docker = tsync_json_get(doc, "archMap") != NULL;
        r = docker ? check_keys(doc, "", docker_top, ARRAY_SIZE(docker_top), err)
                   : check_keys(doc, "", oci_top, ARRAY_SIZE(oci_top), err);
        if (r == 0)
                r = tsync_json_str(tsync_json_get(doc, "defaultAction"), "defaultAction", &s, err);
        if (r < 0)
                return r;
        if (strcmp(s, "SCMP_ACT_ERRNO") != 0)
                return tsync_error(err, EINVAL, "defaultAction: '%s': a recorded profile refuses with SCMP_ACT_ERRNO",
                                   s);
        /* The request decides the errno of the new profile; this one need only be one. */
        if ((v = tsync_json_get(doc, "defaultErrnoRet")) &&
            (r = tsync_json_uint_max(v, "defaultErrnoRet", TSYNC_MAX_ERRNO_RET, &errno_ret, err)) < 0)
                return r;

        if (docker)
                r = read_arch_map(tsync_json_get(doc, "archMap"), abis, err);
        else if ((v = tsync_json_get(doc, "architectures")))
                r = add_arch_array(v, "architectures", abis, err);
        if (r < 0)
                return r;

        v = tsync_json_get(doc, "syscalls");
        r = tsync_json_expect(v, "syscalls", TSYNC_JSON_ARRAY, err);
        if (r < 0)
                return r;
        if (v->u.array.len == 0)
                return tsync_error(err, EINVAL, "syscalls: empty: a recorded profile allows what was recorded");
        for (size_t i = 0; i < v->u.array.len; i++) {
                r = read_rule(v->u.array.items[i], i, docker, extra_names, abis, names, err);
                if (r < 0)
                        return r;
        }
        return 0;
}
