#include "tsync/plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsync/cleanup.h"
#include "tsync/json_build.h"

void tsync_plan_free(struct tsync_plan *p)
{
        if (!p)
                return;
        free(p->state_dir);
        for (size_t i = 0; i < p->n_layers; i++)
                free(p->layers[i]);
        free(p->layers);
        tsync_json_free(p->args);
        tsync_json_free(p->capabilities);
        tsync_json_free(p->seccomp);
        free(p);
}

size_t tsync_plan_filter_count(const struct tsync_plan *p)
{
        return (p->replace && p->seccomp ? 1 : 0) + p->n_layers;
}

bool tsync_layer_name_valid(const char *name)
{
        size_t n = strlen(name);
        if (n == 0 || n > 64 || name[0] == '.')
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = name[i];
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                      c == '-' || c == '.'))
                        return false;
        }
        return true;
}

int tsync_plan_to_json(const struct tsync_plan *p, char **ret, struct tsync_err *err)
{
        _cleanup_json_ struct tsync_json *o = tsync_json_new_object();
        struct tsync_json *layers = tsync_json_new_array();
        int r = o ? 0 : -ENOMEM;
        for (size_t i = 0; r == 0 && layers && i < p->n_layers; i++)
                r = tsync_json_append(layers, tsync_json_new_string(p->layers[i]));
        if (r == 0)
                r = tsync_json_set(o, "version", tsync_json_new_u64(TSYNC_PLAN_VERSION));
        if (r == 0)
                r = tsync_json_set(o, "mode", tsync_json_new_string(p->replace ? "replace" : "layer"));
        if (r == 0)
                r = tsync_json_set(o, "stateDir", tsync_json_new_string(p->state_dir));
        if (r == 0)
                r = tsync_json_set(o, "layersByName", tsync_json_new_bool(p->layers_by_name));
        if (r == 0) {
                r = tsync_json_set(o, "layers", layers);
                layers = NULL;
        }
        if (r == 0)
                r = tsync_json_set(o, "args", tsync_json_copy(p->args));
        if (r == 0 && p->capabilities)
                r = tsync_json_set(o, "capabilities", tsync_json_copy(p->capabilities));
        if (r == 0)
                r = tsync_json_set(o, "noNewPrivileges", tsync_json_new_bool(p->no_new_privileges));
        if (r == 0 && p->seccomp)
                r = tsync_json_set(o, "seccomp", tsync_json_copy(p->seccomp));
        tsync_json_free(layers);
        if (r < 0)
                return tsync_error(err, -r, "writing the plan: %s", strerror(-r));
        size_t len;
        return tsync_json_write(o, false, ret, &len, err);
}

static int plan_string(const struct tsync_json *o, const char *key, char **ret, struct tsync_err *err)
{
        const char *s;
        char path[64];
        (void)snprintf(path, sizeof(path), "plan.%s", key);
        int r = tsync_json_str(tsync_json_get(o, key), path, &s, err);
        if (r < 0)
                return r;
        if (!(*ret = strdup(s)))
                return tsync_error(err, ENOMEM, "out of memory");
        return 0;
}

int tsync_plan_from_config(const struct tsync_json *config, struct tsync_plan **ret, struct tsync_err *err)
{
        const struct tsync_json *text = tsync_json_get(tsync_json_get(config, "annotations"), TSYNC_ANNOTATION_PLAN);
        const char *s;
        int r;

        if (!text)
                return tsync_error(err, ENOENT, "annotations: no %s: the config was not prepared by "
                                                "'oci-seccomp-tsync inject' or the precreate hook",
                                   TSYNC_ANNOTATION_PLAN);
        r = tsync_json_str(text, "annotations." TSYNC_ANNOTATION_PLAN, &s, err);
        if (r < 0)
                return r;
        _cleanup_json_ struct tsync_json *o = NULL;
        r = tsync_json_parse(s, strlen(s), NULL, &o, err);
        if (r < 0)
                return tsync_error_prefix(err, "annotations.%s", TSYNC_ANNOTATION_PLAN);
        r = tsync_json_expect(o, "plan", TSYNC_JSON_OBJECT, err);
        if (r < 0)
                return r;
        uint64_t version;
        r = tsync_json_u64(tsync_json_get(o, "version"), "plan.version", &version, err);
        if (r < 0)
                return r;
        if (version != TSYNC_PLAN_VERSION)
                return tsync_error(err, EINVAL, "plan.version: %llu, this is version %u",
                                   (unsigned long long)version, TSYNC_PLAN_VERSION);

        _cleanup_plan_ struct tsync_plan *p = calloc(1, sizeof(*p));
        if (!p)
                return tsync_error(err, ENOMEM, "out of memory");
        const struct tsync_json *strict =
                tsync_json_get(tsync_json_get(config, "annotations"), TSYNC_ANNOTATION_CRUN_FAIL_UNKNOWN);
        p->fail_unknown_syscall = strict && !(strict->type == TSYNC_JSON_STRING && strcmp(strict->u.string.ptr, "0") == 0);
        const char *mode;
        r = tsync_json_str(tsync_json_get(o, "mode"), "plan.mode", &mode, err);
        if (r < 0)
                return r;
        if (strcmp(mode, "layer") != 0 && strcmp(mode, "replace") != 0)
                return tsync_error(err, EINVAL, "plan.mode: '%s' is not layer or replace", mode);
        p->replace = strcmp(mode, "replace") == 0;
        r = plan_string(o, "stateDir", &p->state_dir, err);
        if (r < 0)
                return r;
        r = tsync_json_bool(tsync_json_get(o, "layersByName"), "plan.layersByName", &p->layers_by_name, err);
        if (r < 0)
                return r;
        const struct tsync_json *layers = tsync_json_get(o, "layers");
        r = tsync_json_expect(layers, "plan.layers", TSYNC_JSON_ARRAY, err);
        if (r < 0)
                return r;
        if (layers->u.array.len > TSYNC_MAX_LAYERS)
                return tsync_error(err, E2BIG, "plan.layers: %zu layers, at most %d", layers->u.array.len,
                                   TSYNC_MAX_LAYERS);
        p->layers = calloc(layers->u.array.len ? layers->u.array.len : 1, sizeof(char *));
        if (!p->layers)
                return tsync_error(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < layers->u.array.len; i++) {
                char path[64];
                (void)snprintf(path, sizeof(path), "plan.layers[%zu]", i);
                r = tsync_json_str(layers->u.array.items[i], path, &s, err);
                if (r < 0)
                        return r;
                if (!(p->layers[i] = strdup(s)))
                        return tsync_error(err, ENOMEM, "out of memory");
                p->n_layers++;
        }
        const struct tsync_json *args = tsync_json_get(o, "args");
        r = tsync_json_expect(args, "plan.args", TSYNC_JSON_ARRAY, err);
        if (r < 0)
                return r;
        p->args = tsync_json_copy(args);
        const struct tsync_json *caps = tsync_json_get(o, "capabilities");
        if (caps && caps->type != TSYNC_JSON_NULL) {
                r = tsync_json_expect(caps, "plan.capabilities", TSYNC_JSON_OBJECT, err);
                if (r < 0)
                        return r;
                p->capabilities = tsync_json_copy(caps);
        }
        r = tsync_json_bool(tsync_json_get(o, "noNewPrivileges"), "plan.noNewPrivileges", &p->no_new_privileges, err);
        if (r < 0)
                return r;
        const struct tsync_json *seccomp = tsync_json_get(o, "seccomp");
        if (seccomp && seccomp->type != TSYNC_JSON_NULL)
                p->seccomp = tsync_json_copy(seccomp);
        if (!p->args || (caps && caps->type != TSYNC_JSON_NULL && !p->capabilities) ||
            (seccomp && seccomp->type != TSYNC_JSON_NULL && !p->seccomp))
                return tsync_error(err, ENOMEM, "out of memory");
        *ret = TAKE_PTR(p);
        return 0;
}
