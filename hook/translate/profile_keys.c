/* Unknown keys in a profile. The readers look keys up by name, so a misspelt
 * one ("syscall") would be skipped and a layer would silently lose its rules.
 * These are the keys each format defines: the runtime-spec's linux.seccomp,
 * and the Docker/containers-common profile (moby's profiles/seccomp and
 * containers/common's pkg/seccomp types). */
#include <errno.h>
#include <string.h>

#include "profile_internal.h"
#include "shared/cleanup.h"
#include "util/nearest.h"

struct keyset {
        const char *const *keys;
        size_t n;
};
#define KEYSET(a) ((struct keyset){ (a), ARRAY_SIZE(a) })

static const char *const oci_top[] = { "defaultAction", "defaultErrnoRet",  "architectures", "flags",
                                       "listenerPath",  "listenerMetadata", "syscalls" };
static const char *const oci_rule[] = { "names", "action", "errnoRet", "args" };
static const char *const arg_keys[] = { "index", "value", "valueTwo", "op" };
static const char *const docker_top[] = { "defaultAction", "defaultErrnoRet",  "defaultErrno",
                                          "architectures", "archMap",          "flags",
                                          "listenerPath",  "listenerMetadata", "syscalls" };
static const char *const docker_rule[] = { "name", "names",   "action",   "errnoRet", "errno",
                                           "args", "comment", "includes", "excludes" };
static const char *const docker_filter[] = { "caps", "arches", "minKernel" };
static const char *const docker_arch_map[] = { "architecture", "subArchitectures" };

struct walk {
        bool warn;
        const char *prefix; /* "" or "linux.seccomp" */
        struct tsync_warnings *w;
        struct tsync_err *err;
};

static int unknown(const struct walk *k, const char *path, const char *key, struct keyset set)
{
        char at[TSYNC_PATH_MAX], hint[TSYNC_PATH_MAX] = "";
        const char *near = tsync_nearest_word(key, set.keys, set.n);

        if (near)
                tsync_path(hint, " (did you mean '%s'?)", near);
        tsync_path(at, "%s%s%s%s%.80s", k->prefix, *k->prefix && *path ? "." : "", path, *k->prefix || *path ? "." : "",
                   key);
        if (!k->warn)
                return tsync_error(k->err, EINVAL, "%s: unknown key%s", at, hint);
        if (tsync_warn(k->w, "%s: unknown key, ignored as runc ignores it%s", at, hint) < 0)
                return tsync_error(k->err, ENOMEM, "out of memory");
        return 0;
}

/* Checks the keys of obj (when it is an object: types are the readers' business). */
static int check_object(const struct walk *k, const struct tsync_json *obj, const char *path, struct keyset set)
{
        if (!obj || obj->type != TSYNC_JSON_OBJECT)
                return 0;
        for (size_t i = 0; i < obj->u.object.len; i++) {
                const char *key = obj->u.object.keys[i];
                bool known = false;
                for (size_t j = 0; j < set.n && !known; j++)
                        known = strcmp(key, set.keys[j]) == 0;
                if (!known) {
                        int r = unknown(k, path, key, set);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static const struct tsync_json *array_of(const struct tsync_json *v)
{
        return v && v->type == TSYNC_JSON_ARRAY ? v : NULL;
}

static int check_rule(const struct walk *k, const struct tsync_json *rule, const char *at, bool docker)
{
        char path[TSYNC_PATH_MAX];
        int r = check_object(k, rule, at, docker ? KEYSET(docker_rule) : KEYSET(oci_rule));
        if (r < 0)
                return r;
        const struct tsync_json *args = array_of(tsync_json_get(rule, "args"));
        for (size_t j = 0; args && j < args->u.array.len; j++) {
                tsync_path(path, "%s.args[%zu]", at, j);
                r = check_object(k, args->u.array.items[j], path, KEYSET(arg_keys));
                if (r < 0)
                        return r;
        }
        if (!docker)
                return 0;
        static const char *const filters[] = { "includes", "excludes" };
        for (size_t f = 0; f < ARRAY_SIZE(filters); f++) {
                tsync_path(path, "%s.%s", at, filters[f]);
                r = check_object(k, tsync_json_get(rule, filters[f]), path, KEYSET(docker_filter));
                if (r < 0)
                        return r;
        }
        return 0;
}

int tsync_profile_check_keys(const struct tsync_json *doc, bool docker, bool warn, const char *prefix,
                             struct tsync_warnings *w, struct tsync_err *err)
{
        struct walk k = { .warn = warn, .prefix = prefix ? prefix : "", .w = w, .err = err };
        char at[TSYNC_PATH_MAX];
        int r = check_object(&k, doc, "", docker ? KEYSET(docker_top) : KEYSET(oci_top));
        if (r < 0)
                return r;
        const struct tsync_json *calls = array_of(tsync_json_get(doc, "syscalls"));
        for (size_t i = 0; calls && i < calls->u.array.len; i++) {
                tsync_path(at, "syscalls[%zu]", i);
                r = check_rule(&k, calls->u.array.items[i], at, docker);
                if (r < 0)
                        return r;
        }
        const struct tsync_json *map = docker ? array_of(tsync_json_get(doc, "archMap")) : NULL;
        for (size_t i = 0; map && i < map->u.array.len; i++) {
                tsync_path(at, "archMap[%zu]", i);
                r = check_object(&k, map->u.array.items[i], at, KEYSET(docker_arch_map));
                if (r < 0)
                        return r;
        }
        return 0;
}
