#include "plan/plan.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts/config_caps.h"
#include "shared/capsets.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/json_build.h"

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
        free(p->listener_path);
        tsync_plan_record_clear(&p->record);
        free(p);
}

int tsync_mode_from_name(const char *name, enum tsync_mode *ret)
{
        if (strcmp(name, "layer") == 0)
                *ret = TSYNC_MODE_LAYER;
        else if (strcmp(name, "replace") == 0)
                *ret = TSYNC_MODE_REPLACE;
        else
                return -EINVAL;
        return 0;
}

const char *tsync_mode_name(enum tsync_mode m)
{
        return m == TSYNC_MODE_REPLACE ? "replace" : "layer";
}

void tsync_request_clear(struct tsync_request *r)
{
        free(r->names);
        tsync_record_request_clear(&r->record);
        *r = (struct tsync_request){ 0 };
}

/* Whether the plan's first filter is the linux.seccomp moved from the runtime. */
static bool moved_seccomp(const struct tsync_plan *p)
{
        return p->mode == TSYNC_MODE_REPLACE && p->seccomp;
}

size_t tsync_plan_filter_count(const struct tsync_plan *p)
{
        return (moved_seccomp(p) ? 1 : 0) + p->n_layers + (p->init.exec_once ? 1 : 0) + (p->record.req.output ? 1 : 0);
}

void tsync_plan_filter_label(const struct tsync_plan *p, size_t k, char *buf, size_t size)
{
        size_t moved = moved_seccomp(p) ? 1 : 0;
        if (k < moved)
                (void)snprintf(buf, size, "linux.seccomp");
        else if (k - moved < p->n_layers)
                (void)snprintf(buf, size, "layer '%s'", p->layers[k - moved]);
        else if (k - moved == p->n_layers && p->init.exec_once)
                (void)snprintf(buf, size, "exec-once");
        else if (k + 1 == tsync_plan_filter_count(p) && p->record.req.output)
                (void)snprintf(buf, size, "recording");
        else
                (void)snprintf(buf, size, "filter %zu", k);
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

/* crun's annotation: any value but "0" asks for it. */
static bool fail_unknown_syscall(const struct tsync_json *config)
{
        const struct tsync_json *v =
                tsync_json_get(tsync_json_get(config, "annotations"), TSYNC_ANNOTATION_CRUN_FAIL_UNKNOWN);
        return v && !(v->type == TSYNC_JSON_STRING && strcmp(v->u.string.ptr, "0") == 0);
}

int tsync_exec_once_errno_parse(const char *s, int *ret)
{
        uint64_t v;
        if (tsync_errno_parse(s, &v) < 0 || v < 1 || v > 4095)
                return -EINVAL;
        *ret = (int)v;
        return 0;
}

/* "once" or "once:ERRNO". */
static int exec_annotation(const struct tsync_json *v, int *ret, struct tsync_err *err)
{
        const char *s;
        int r = tsync_json_str(v, "annotations." TSYNC_ANNOTATION_EXEC, &s, err);
        if (r < 0)
                return r;
        if (strcmp(s, "once") == 0) {
                *ret = TSYNC_EXEC_ONCE_DEFAULT_ERRNO;
                return 0;
        }
        if (strncmp(s, "once:", 5) == 0 && tsync_exec_once_errno_parse(s + 5, ret) == 0)
                return 0;
        return tsync_error(err, EINVAL,
                           "annotations.%s: '%s' is not once or once:ERRNO (an errno name such as EPERM, or a number "
                           "from 1 to 4095)",
                           TSYNC_ANNOTATION_EXEC, s);
}

int tsync_request_from_annotations(const struct tsync_json *config, enum tsync_frontend fe, struct tsync_request *ret,
                                   struct tsync_err *err)
{
        const struct tsync_json *annotations = tsync_json_get(config, "annotations");
        const struct tsync_json *layers = tsync_json_get(annotations, TSYNC_ANNOTATION_LAYERS);
        const struct tsync_json *mode = tsync_json_get(annotations, TSYNC_ANNOTATION_MODE);
        const struct tsync_json *exec = tsync_json_get(annotations, TSYNC_ANNOTATION_EXEC);
        const char *s;

        *ret = (struct tsync_request){ .layers_by_name = true };
        /* What this front end cannot honour is refused, never left out. */
        int r = tsync_annotations_check(config, fe, NULL, err);
        if (r < 0)
                return r;
        if (exec) {
                r = exec_annotation(exec, &ret->init.exec_once, err);
                if (r < 0)
                        return r;
        }
        if (mode) {
                r = tsync_json_str(mode, "annotations." TSYNC_ANNOTATION_MODE, &s, err);
                if (r < 0)
                        return r;
                if (tsync_mode_from_name(s, &ret->mode) < 0)
                        return tsync_error(err, EINVAL, "annotations.%s: '%s' is not layer or replace",
                                           TSYNC_ANNOTATION_MODE, s);
        }
        /* A recording (plan_record.c). */
        r = tsync_record_request_from_config(config, &ret->record, err);
        if (r < 0)
                return r;
        if (!layers)
                return 0;
        r = tsync_json_str(layers, "annotations." TSYNC_ANNOTATION_LAYERS, &s, err);
        if (r < 0)
                return r;
        if (!(ret->names = strdup(s)))
                return tsync_error(err, ENOMEM, "out of memory");
        char *save = NULL;
        for (char *t = strtok_r(ret->names, ",;: \t", &save); t; t = strtok_r(NULL, ",;: \t", &save)) {
                if (ret->n_layers == TSYNC_MAX_LAYERS)
                        r = tsync_error(err, E2BIG, "annotations.%s: at most %d layers", TSYNC_ANNOTATION_LAYERS,
                                        TSYNC_MAX_LAYERS);
                else if (!tsync_layer_name_valid(t))
                        r = tsync_error(err, EINVAL,
                                        "annotations.%s: '%s' is not a profile name (letters, digits, '_', '-', "
                                        "'.'; no paths)",
                                        TSYNC_ANNOTATION_LAYERS, t);
                if (r < 0) {
                        tsync_request_clear(ret);
                        return r;
                }
                ret->layers[ret->n_layers++] = t;
        }
        return 0;
}

/* Exec once's supervisor is a thread of PID 1, which the init keeps
 * non-dumpable: only CAP_SYS_PTRACE lets the workload open its
 * /proc/1/task/N/mem (or ptrace it) and answer its own execs. Every set can
 * bring the capability to the workload: effective and permitted directly,
 * ambient across execve, bounding through a setuid-root or file-capability
 * program, inheritable through a program whose file inheritable set has it
 * (the bounding set does not limit that one). So any set with it is refused,
 * and so is a config without process.capabilities, whose bounding set the
 * runtime leaves whole (tsync_caps_bounding_of). what: "process" or "plan". */
static int check_exec_once_caps(const struct tsync_plan *p, const char *what, struct tsync_err *err)
{
        static const char fix[] = "drop CAP_SYS_PTRACE from every set (e.g. --cap-drop SYS_PTRACE) or do without "
                                  "exec once";

        if (!p->init.exec_once)
                return 0;
        if (!p->capabilities)
                return tsync_error(err, EPERM,
                                   "exec once: %s.capabilities is absent, so the runtime leaves the bounding set "
                                   "whole, CAP_SYS_PTRACE with it, with which the workload could open the exec-once "
                                   "supervisor's /proc/1/task/N/mem: give process.capabilities without it, or do "
                                   "without exec once",
                                   what);
        for (int i = 0; i < TSYNC_CAPSET_COUNT; i++) {
                const char *set = tsync_capset(i)->json;
                const struct tsync_json *arr = tsync_json_get(p->capabilities, set);
                char path[64];
                uint64_t mask = 0;
                if (!arr || arr->type == TSYNC_JSON_NULL)
                        continue;
                (void)snprintf(path, sizeof(path), "%s.capabilities.%s", what, set);
                int r = tsync_caps_from_json(arr, path, &mask, err);
                if (r < 0)
                        return r;
                if (mask & (UINT64_C(1) << CAP_SYS_PTRACE))
                        return tsync_error(err, EPERM,
                                           "exec once: %s has CAP_SYS_PTRACE, with which the workload could open the "
                                           "exec-once supervisor's /proc/1/task/N/mem and answer its own execs: %s",
                                           path, fix);
        }
        return 0;
}

int tsync_plan_new(const struct tsync_json *config, const struct tsync_request *req, const char *state_dir,
                   struct tsync_plan **ret, struct tsync_err *err)
{
        const struct tsync_json *process = tsync_json_get(config, "process");
        int r = tsync_json_expect(process, "process", TSYNC_JSON_OBJECT, err);
        if (r < 0)
                return r;
        const struct tsync_json *args = tsync_json_get(process, "args");
        r = tsync_json_expect(args, "process.args", TSYNC_JSON_ARRAY, err);
        if (r < 0)
                return r;
        if (args->u.array.len == 0)
                return tsync_error(err, EINVAL, "process.args: empty: there is no workload to run");
        for (size_t i = 0; i < args->u.array.len; i++) {
                char path[64];
                const char *s;
                (void)snprintf(path, sizeof(path), "process.args[%zu]", i);
                r = tsync_json_str(args->u.array.items[i], path, &s, err);
                if (r < 0)
                        return r;
        }
        if (req->n_layers > TSYNC_MAX_LAYERS)
                return tsync_error(err, E2BIG, "%zu layers, at most %d", req->n_layers, TSYNC_MAX_LAYERS);

        _cleanup_plan_ struct tsync_plan *plan = calloc(1, sizeof(*plan));
        if (!plan)
                return tsync_error(err, ENOMEM, "out of memory");
        plan->mode = req->mode;
        plan->layers_by_name = req->layers_by_name;
        plan->init = req->init;
        if (req->init.exec && req->init.exec_once)
                return tsync_error(err, EINVAL,
                                   "exec once needs the init to stay and answer the workload's execs: it cannot be "
                                   "combined with --exec");
        if (req->init.exec_once < 0 || req->init.exec_once > 4095)
                return tsync_error(err, EINVAL, "exec once: errno %d is not from 1 to 4095", req->init.exec_once);
        /* A recording: refused with what it cannot be combined with; its
         * directory is the caller's to give. */
        r = tsync_record_check_request(&req->record, req->init.exec, req->init.exec_once, err);
        if (r == 0 && req->record.output && (!req->record_dir || req->record_dir[0] != '/'))
                r = tsync_error(err, EINVAL, "recording: no directory on the host for it");
        if (r == 0)
                r = tsync_record_request_copy(&req->record, &plan->record.req, err);
        if (r == 0 && req->record.output && !(plan->record.dir = strdup(req->record_dir)))
                r = tsync_error(err, ENOMEM, "out of memory");
        if (r < 0)
                return r;
        plan->delivery = req->delivery;
        if (req->delivery == TSYNC_DELIVERY_FILES && !state_dir)
                return tsync_error(err, EINVAL, "filter files need a state directory");
        plan->args = tsync_json_copy(args);
        plan->state_dir = req->delivery == TSYNC_DELIVERY_FILES ? strdup(state_dir) : NULL;
        plan->layers = calloc(req->n_layers ? req->n_layers : 1, sizeof(char *));
        if (!plan->args || (req->delivery == TSYNC_DELIVERY_FILES && !plan->state_dir) || !plan->layers)
                return tsync_error(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < req->n_layers; i++) {
                if (req->layers_by_name && !tsync_layer_name_valid(req->layers[i]))
                        return tsync_error(err, EINVAL,
                                           "layer '%s': a profile name is letters, digits, '_', '-' "
                                           "and '.', not starting with '.'",
                                           req->layers[i]);
                if (!(plan->layers[i] = strdup(req->layers[i])))
                        return tsync_error(err, ENOMEM, "out of memory");
                plan->n_layers++;
        }
        const struct tsync_json *caps = tsync_json_get(process, "capabilities");
        if (caps && caps->type != TSYNC_JSON_NULL) {
                r = tsync_json_expect(caps, "process.capabilities", TSYNC_JSON_OBJECT, err);
                if (r < 0)
                        return r;
                if (!(plan->capabilities = tsync_json_copy(caps)))
                        return tsync_error(err, ENOMEM, "out of memory");
        }
        r = check_exec_once_caps(plan, "process", err);
        if (r < 0)
                return r;
        const struct tsync_json *nnp = tsync_json_get(process, "noNewPrivileges");
        if (nnp && nnp->type != TSYNC_JSON_NULL) {
                r = tsync_json_bool(nnp, "process.noNewPrivileges", &plan->no_new_privileges, err);
                if (r < 0)
                        return r;
        }
        if (req->mode == TSYNC_MODE_REPLACE) {
                const struct tsync_json *seccomp = tsync_json_get(tsync_json_get(config, "linux"), "seccomp");
                if (!seccomp || seccomp->type == TSYNC_JSON_NULL)
                        return tsync_error(
                                err, EINVAL,
                                "replace mode: linux.seccomp: missing: there is no profile to move to the init");
                if (!(plan->seccomp = tsync_json_copy(seccomp)))
                        return tsync_error(err, ENOMEM, "out of memory");
        }
        if (tsync_plan_filter_count(plan) == 0)
                return tsync_error(err, EINVAL,
                                   "no layers and not replace mode: there is nothing for the init to apply");
        /* The init's argument list and the stack hold this many (a recording's filter counts). */
        if (tsync_plan_filter_count(plan) > TSYNC_MAX_LAYERS + 1)
                return tsync_error(err, E2BIG, "%zu filters, at most %d", tsync_plan_filter_count(plan),
                                   TSYNC_MAX_LAYERS + 1);
        plan->fail_unknown_syscall = fail_unknown_syscall(config);
        *ret = TAKE_PTR(plan);
        return 0;
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
                r = tsync_json_set(o, "mode", tsync_json_new_string(tsync_mode_name(p->mode)));
        if (r == 0 && p->init.exec)
                r = tsync_json_set(o, "exec", tsync_json_new_bool(true));
        if (r == 0 && p->init.exec_once)
                r = tsync_json_set(o, "execOnce", tsync_json_new_u64((uint64_t)p->init.exec_once));
        if (r == 0 && p->init.warn_replace)
                r = tsync_json_set(o, "warnReplace", tsync_json_new_bool(true));
        if (r == 0 && p->delivery == TSYNC_DELIVERY_ARGS)
                r = tsync_json_set(o, "delivery", tsync_json_new_string("args"));
        if (r == 0 && p->state_dir)
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
        if (r == 0 && p->listener_path)
                r = tsync_json_set(o, "listenerPath", tsync_json_new_string(p->listener_path));
        if (r == 0 && p->record.req.output) {
                struct tsync_json *rec = NULL;
                r = tsync_plan_record_to_json(&p->record, &rec);
                if (r == 0)
                        r = tsync_json_set(o, "record", rec);
        }
        tsync_json_free(layers);
        if (r < 0)
                return tsync_error(err, -r, "writing the plan: %s", tsync_errtext(-r));
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
                return tsync_error(err, ENOENT,
                                   "annotations: no %s: the config was not prepared by "
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
                return tsync_error(err, EINVAL, "plan.version: %llu, this is version %u", (unsigned long long)version,
                                   TSYNC_PLAN_VERSION);

        _cleanup_plan_ struct tsync_plan *p = calloc(1, sizeof(*p));
        if (!p)
                return tsync_error(err, ENOMEM, "out of memory");
        p->fail_unknown_syscall = fail_unknown_syscall(config);
        const char *mode;
        r = tsync_json_str(tsync_json_get(o, "mode"), "plan.mode", &mode, err);
        if (r < 0)
                return r;
        if (tsync_mode_from_name(mode, &p->mode) < 0)
                return tsync_error(err, EINVAL, "plan.mode: '%s' is not layer or replace", mode);
        /* Absent in plans written before the init's options were recorded. */
        const struct tsync_json *exec = tsync_json_get(o, "exec");
        if (exec) {
                r = tsync_json_bool(exec, "plan.exec", &p->init.exec, err);
                if (r < 0)
                        return r;
        }
        /* Absent when not asked for. */
        const struct tsync_json *exec_once = tsync_json_get(o, "execOnce");
        if (exec_once) {
                uint64_t e;
                r = tsync_json_u64(exec_once, "plan.execOnce", &e, err);
                if (r < 0)
                        return r;
                if (e < 1 || e > 4095)
                        return tsync_error(err, EINVAL, "plan.execOnce: %llu is not an errno from 1 to 4095",
                                           (unsigned long long)e);
                if (p->init.exec)
                        return tsync_error(err, EINVAL, "plan.execOnce: set together with plan.exec");
                p->init.exec_once = (int)e;
        }
        /* Absent when not asked for (and in plans written before it was). */
        const struct tsync_json *warn_replace = tsync_json_get(o, "warnReplace");
        if (warn_replace) {
                r = tsync_json_bool(warn_replace, "plan.warnReplace", &p->init.warn_replace, err);
                if (r < 0)
                        return r;
                if (p->init.warn_replace && p->mode != TSYNC_MODE_REPLACE)
                        return tsync_error(err, EINVAL, "plan.warnReplace: set in %s mode", mode);
        }
        /* Absent in plans written before the filters could travel in arguments. */
        const struct tsync_json *delivery = tsync_json_get(o, "delivery");
        if (delivery) {
                const char *d;
                r = tsync_json_str(delivery, "plan.delivery", &d, err);
                if (r < 0)
                        return r;
                if (strcmp(d, "args") != 0 && strcmp(d, "files") != 0)
                        return tsync_error(err, EINVAL, "plan.delivery: '%s' is not args or files", d);
                p->delivery = strcmp(d, "args") == 0 ? TSYNC_DELIVERY_ARGS : TSYNC_DELIVERY_FILES;
        }
        if (p->delivery == TSYNC_DELIVERY_FILES) {
                r = plan_string(o, "stateDir", &p->state_dir, err);
                if (r < 0)
                        return r;
        } else if (tsync_json_get(o, "stateDir")) {
                return tsync_error(err, EINVAL, "plan.stateDir: set, but the filters travel in the init's arguments");
        }
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
        /* Absent when not asked for. */
        r = tsync_plan_record_from_json(tsync_json_get(o, "record"), &p->record, err);
        if (r < 0)
                return r;
        if (tsync_record_check_request(&p->record.req, p->init.exec, p->init.exec_once, err) < 0)
                return tsync_error_prefix(err, "plan.record");
        if (!p->args || (caps && caps->type != TSYNC_JSON_NULL && !p->capabilities) ||
            (seccomp && seccomp->type != TSYNC_JSON_NULL && !p->seccomp))
                return tsync_error(err, ENOMEM, "out of memory");
        /* A plan edited by hand after inject must not get past the rule either. */
        r = check_exec_once_caps(p, "plan", err);
        if (r < 0)
                return r;
        /* Absent without a notify agent. */
        if (tsync_json_get(o, "listenerPath")) {
                r = plan_string(o, "listenerPath", &p->listener_path, err);
                if (r < 0)
                        return r;
                if (p->listener_path[0] != '/')
                        return tsync_error(err, EINVAL, "plan.listenerPath: '%s' is not an absolute path",
                                           p->listener_path);
        }
        *ret = TAKE_PTR(p);
        return 0;
}
