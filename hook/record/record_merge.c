/* Reading a previous profile back (the `if:` of the record annotation), so
 * that several runs add up, and so that any profile can be the base of a
 * recording, as oci-seccomp-bpf-hook's `if:` is.
 *
 * One of our own recordings (the shape tsync_record_profile writes, in either
 * format: defaultAction SCMP_ACT_ERRNO, architectures or archMap, and rules
 * that are names with SCMP_ACT_ALLOW and, in Docker's, a comment) is merged by
 * name: its names and the recorded ones make one sorted allow-list.
 *
 * Any other profile we can parse (linux.seccomp or the Docker/containers-common
 * format, as layers are read) is kept as it is, oci-seccomp-bpf-hook's rule: its
 * rules stay, in order, with their actions and conditions; the default becomes
 * SCMP_ACT_ERRNO; a recorded call that no rule of it names is added, allowed.
 * So a call it blocks (or allows only on a condition) stays so in the output
 * even when the workload made it. A Docker-format base is resolved for this
 * machine and kernel as for a container without capabilities (the narrowest
 * reading: its rules for a capability are left out). What a recorded profile
 * cannot carry is refused: SCMP_ACT_NOTIFY or listenerPath (nobody to hand a
 * listener to), SCMP_ACT_TRACE (a recording refuses it), flags, and an
 * architecture that cannot share a filter with this machine's. */
#include <errno.h>
#include <seccomp.h>
#include <string.h>

#include "record_internal.h"
#include "shared/cleanup.h"
#include "translate/profile.h"
#include "translate/profile_internal.h"
#include "translate/source.h"
#include "util/json.h"

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

static int merge_own(const struct tsync_json *doc, const struct tsync_names *extra_names, struct tsync_abis *abis,
                     struct tsync_names *names, struct tsync_err *err)
{
        static const char *const oci_top[] = { "defaultAction", "defaultErrnoRet", "architectures", "syscalls" };
        static const char *const docker_top[] = { "defaultAction", "defaultErrnoRet", "archMap", "syscalls" };
        const struct tsync_json *v;
        const char *s;
        uint64_t errno_ret;

        int r = tsync_json_expect(doc, "the profile", TSYNC_JSON_OBJECT, err);
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

/* Every name a rule of doc names, whatever its action, conditions, includes
 * or excludes: a Docker-format rule resolved away (a capability the base is
 * not read with) still names a call the base does not allow unconditionally,
 * so the recording does not add it either (oci-seccomp-bpf-hook's
 * syscallInProfile also looks at every rule). The parser has checked the types. */
static int raw_names(const struct tsync_json *doc, struct tsync_names *named)
{
        const struct tsync_json *calls = tsync_json_get(doc, "syscalls");
        for (size_t i = 0; calls && calls->type == TSYNC_JSON_ARRAY && i < calls->u.array.len; i++) {
                const struct tsync_json *rule = calls->u.array.items[i], *v;
                if ((v = tsync_json_get(rule, "name")) && v->type == TSYNC_JSON_STRING &&
                    tsync_names_add(named, v->u.string.ptr) < 0)
                        return -ENOMEM;
                v = tsync_json_get(rule, "names");
                for (size_t j = 0; v && v->type == TSYNC_JSON_ARRAY && j < v->u.array.len; j++)
                        if (v->u.array.items[j]->type == TSYNC_JSON_STRING &&
                            tsync_names_add(named, v->u.array.items[j]->u.string.ptr) < 0)
                                return -ENOMEM;
        }
        return 0;
}

/* Any other profile, kept whole as the base of the output (see the top). */
static int read_base(const struct tsync_json *doc, struct tsync_abis *abis, struct tsync_profile **ret,
                     struct tsync_names *named, struct tsync_err *err)
{
        struct tsync_source_opts opts = {
                .format = TSYNC_FORMAT_AUTO, .have_caps = true, .caps = 0, .keys = TSYNC_KEYS_ERROR
        };
        _cleanup_profile_ struct tsync_profile *p = NULL;
        int r = tsync_source_from_json(doc, &opts, &p, NULL, err);
        if (r < 0)
                return r;
        if (tsync_profile_uses_notify(p))
                return tsync_error(err, EINVAL,
                                   "SCMP_ACT_NOTIFY or listenerPath: a recorded profile hands no listener on");
        if (p->flags)
                return tsync_error(err, EINVAL, "flags: a recorded profile carries no flags");
        for (size_t i = 0; i < p->n_rules; i++)
                if (p->rules[i].action.kind == TSYNC_ACT_TRACE)
                        return tsync_error(err, EINVAL, "%s: SCMP_ACT_TRACE: a recording cannot hold it",
                                           p->rules[i].origin ? p->rules[i].origin : "syscalls");
        for (size_t i = 0; i < p->n_arches; i++) {
                if (!tsync_record_abi_fits(p->arches[i]))
                        return tsync_error(err, EINVAL,
                                           "architectures: %s cannot be in one filter with this "
                                           "machine's %s",
                                           tsync_arch_name(p->arches[i]), tsync_arch_name(seccomp_arch_native()));
                if (tsync_abis_add(abis, p->arches[i]) < 0)
                        return tsync_error(err, E2BIG, "architectures: too many");
        }
        const struct tsync_json *seccomp = tsync_json_get(tsync_json_get(doc, "linux"), "seccomp");
        if (raw_names(seccomp ? seccomp : doc, named) < 0)
                return tsync_error(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(p);
        return 0;
}

int tsync_record_merge_input(const char *path, const struct tsync_names *extra_names, struct tsync_abis *abis,
                             struct tsync_names *names, struct tsync_profile **ret_base, struct tsync_names *named,
                             struct tsync_err *err)
{
        _cleanup_json_ struct tsync_json *doc = NULL;
        struct tsync_names own = { 0 };
        struct tsync_abis own_abis = *abis;
        struct tsync_err own_err = { 0 };

        *ret_base = NULL;
        /* Its errors name the file already. */
        int r = tsync_json_parse_file(path, NULL, &doc, err);
        if (r < 0)
                return r;
        /* One of ours first (merged by name); what is not is read as a base. */
        r = merge_own(doc, extra_names, &own_abis, &own, &own_err);
        if (r == 0) {
                for (size_t i = 0; i < own.n; i++)
                        if (tsync_names_add(names, own.v[i]) < 0) {
                                tsync_names_clear(&own);
                                return tsync_error(err, ENOMEM, "out of memory");
                        }
                tsync_names_clear(&own);
                *abis = own_abis;
                return 0;
        }
        tsync_names_clear(&own);
        return read_base(doc, abis, ret_base, named, err);
}
