/* Parsing helpers both profile readers (OCI and Docker format) use: JSON paths
 * for messages, actions, arguments, syscall names, architectures, flags. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"
#include "shared/cleanup.h"
#include "shared/seccomp_flags.h"

void tsync_path(char buf[TSYNC_PATH_MAX], const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        /* A path longer than the buffer is cut short: it only ever feeds messages. */
        (void)vsnprintf(buf, TSYNC_PATH_MAX, fmt, ap);
        va_end(ap);
}

int tsync_parse_action(const struct tsync_json *obj, const char *path, const char *action_key, const char *errno_key,
                       struct tsync_action *ret, struct tsync_err *err)
{
        char at[TSYNC_PATH_MAX];
        const char *name;
        int r;

        tsync_path(at, "%s%s%s", path, *path ? "." : "", action_key);
        r = tsync_json_str(tsync_json_get(obj, action_key), at, &name, err);
        if (r < 0)
                return r;
        struct tsync_action act = { 0 };
        if (tsync_action_parse(name, &act.kind) < 0)
                return tsync_error(err, EINVAL, "%s: action '%s' is unknown", at, name);

        const struct tsync_json *e = errno_key ? tsync_json_get(obj, errno_key) : NULL;
        if (e && e->type != TSYNC_JSON_NULL) {
                uint64_t v;
                tsync_path(at, "%s%s%s", path, *path ? "." : "", errno_key);
                if (act.kind != TSYNC_ACT_ERRNO && act.kind != TSYNC_ACT_TRACE)
                        return tsync_error(err, EINVAL,
                                           "%s: only SCMP_ACT_ERRNO and SCMP_ACT_TRACE take an errno, not %s", at,
                                           name);
                r = tsync_json_u64(e, at, &v, err);
                if (r < 0)
                        return r;
                r = tsync_check_action_data(act.kind, v, at, err);
                if (r < 0)
                        return r;
                act.data = (uint16_t)v;
        } else if (act.kind == TSYNC_ACT_ERRNO || act.kind == TSYNC_ACT_TRACE) {
                act.data = EPERM;
        }
        *ret = act;
        return 0;
}

int tsync_check_action_data(enum tsync_act kind, uint64_t v, const char *path, struct tsync_err *err)
{
        if (kind == TSYNC_ACT_ERRNO && v > TSYNC_MAX_ERRNO_RET)
                return tsync_error(err, EINVAL,
                                   "%s: %llu is above the largest errno a filter can return, %u (the kernel caps "
                                   "errno at MAX_ERRNO 4095 and libseccomp refuses 4095)",
                                   path, (unsigned long long)v, TSYNC_MAX_ERRNO_RET);
        if (kind == TSYNC_ACT_TRACE && v > UINT16_MAX)
                return tsync_error(err, EINVAL, "%s: %llu does not fit the 16 bits of SECCOMP_RET_DATA (at most %u)",
                                   path, (unsigned long long)v, (unsigned)UINT16_MAX);
        return 0;
}

/* Refuses flags the kernel would refuse for this profile: WAIT_KILLABLE_RECV
 * needs a notification listener (NEW_LISTENER), which only SCMP_ACT_NOTIFY asks for. */
static int check_flags(const struct tsync_profile *p, struct tsync_err *err)
{
        if ((p->flags & SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV) && !tsync_profile_has_notify_action(p))
                return tsync_error(err, EINVAL,
                                   "flags: SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV needs a notification listener "
                                   "(an SCMP_ACT_NOTIFY action), which this profile does not use; the kernel would "
                                   "refuse the filter");
        return 0;
}

int tsync_parse_args(const struct tsync_json *args, const char *path, struct tsync_arg **ret, size_t *ret_n,
                     struct tsync_err *err)
{
        int r = tsync_json_expect(args, path, TSYNC_JSON_ARRAY, err);
        if (r < 0)
                return r;
        size_t n = args->u.array.len;
        _cleanup_free_ struct tsync_arg *out = calloc(n ? n : 1, sizeof(*out));
        if (!out)
                return tsync_error(err, ENOMEM, "%s: out of memory", path);

        for (size_t i = 0; i < n; i++) {
                const struct tsync_json *a = args->u.array.items[i];
                char at[TSYNC_PATH_MAX], field[TSYNC_PATH_MAX];
                uint64_t v;
                const char *op;

                tsync_path(at, "%s[%zu]", path, i);
                r = tsync_json_expect(a, at, TSYNC_JSON_OBJECT, err);
                if (r < 0)
                        return r;

                tsync_path(field, "%s.index", at);
                r = tsync_json_u64(tsync_json_get(a, "index"), field, &v, err);
                if (r < 0)
                        return r;
                if (v > 5)
                        return tsync_error(err, EINVAL, "%s: %llu is past the last argument (5)", field,
                                           (unsigned long long)v);
                out[i].index = (unsigned)v;

                tsync_path(field, "%s.value", at);
                r = tsync_json_u64(tsync_json_get(a, "value"), field, &out[i].value, err);
                if (r < 0)
                        return r;

                const struct tsync_json *two = tsync_json_get(a, "valueTwo");
                if (two && two->type != TSYNC_JSON_NULL) {
                        tsync_path(field, "%s.valueTwo", at);
                        r = tsync_json_u64(two, field, &out[i].value_two, err);
                        if (r < 0)
                                return r;
                }

                tsync_path(field, "%s.op", at);
                r = tsync_json_str(tsync_json_get(a, "op"), field, &op, err);
                if (r < 0)
                        return r;
                if (tsync_op_parse(op, &out[i].op) < 0)
                        return tsync_error(err, EINVAL, "%s: op '%s' is unknown", field, op);
                /* libseccomp (and so runc) compares against one value except for
                 * MASKED_EQ; a second value elsewhere would be silently unused. */
                if (out[i].op != TSYNC_OP_MASKED_EQ && out[i].value_two != 0)
                        return tsync_error(err, EINVAL, "%s.valueTwo: only SCMP_CMP_MASKED_EQ uses a second value", at);
        }
        *ret = TAKE_PTR(out);
        *ret_n = n;
        return 0;
}

int tsync_parse_names(const struct tsync_json *names, const char *path, char ***ret, size_t *ret_n,
                      struct tsync_err *err)
{
        int r = tsync_json_expect(names, path, TSYNC_JSON_ARRAY, err);
        if (r < 0)
                return r;
        size_t n = names->u.array.len;
        if (n == 0)
                return tsync_error(err, EINVAL, "%s: must name at least one syscall", path);
        char **out = calloc(n, sizeof(*out));
        if (!out)
                return tsync_error(err, ENOMEM, "%s: out of memory", path);
        for (size_t i = 0; i < n && r >= 0; i++) {
                const char *s;
                /* A profile names hundreds: the JSON path, only for a message,
                 * is made when there is one to give. */
                struct tsync_err quiet = { 0 };
                if (tsync_json_str(names->u.array.items[i], NULL, &s, &quiet) == 0 && (out[i] = strdup(s)))
                        continue;
                char at[TSYNC_PATH_MAX];
                tsync_path(at, "%s[%zu]", path, i);
                r = tsync_json_str(names->u.array.items[i], at, &s, err);
                if (r >= 0)
                        r = tsync_error(err, ENOMEM, "%s: out of memory", at);
        }
        if (r < 0) {
                for (size_t i = 0; i < n; i++)
                        free(out[i]);
                free(out);
                return r;
        }
        *ret = out;
        *ret_n = n;
        return 0;
}

int tsync_profile_add_arch(struct tsync_profile *p, uint32_t arch)
{
        for (size_t i = 0; i < p->n_arches; i++)
                if (p->arches[i] == arch)
                        return 0;
        uint32_t *grown = realloc(p->arches, (p->n_arches + 1) * sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        grown[p->n_arches++] = arch;
        p->arches = grown;
        return 0;
}

int tsync_parse_strings(const struct tsync_json *array, const char *path,
                        int (*each)(const char *s, const char *at, void *ctx, struct tsync_err *err), void *ctx,
                        struct tsync_err *err)
{
        int r = tsync_json_expect(array, path, TSYNC_JSON_ARRAY, err);
        for (size_t i = 0; r >= 0 && i < array->u.array.len; i++) {
                char at[TSYNC_PATH_MAX];
                const char *s;
                tsync_path(at, "%s[%zu]", path, i);
                r = tsync_json_str(array->u.array.items[i], at, &s, err);
                if (r >= 0)
                        r = each(s, at, ctx, err);
        }
        return r < 0 ? r : 0;
}

static int add_arch(const char *s, const char *at, void *ctx, struct tsync_err *err)
{
        struct tsync_profile *p = ctx;
        uint32_t token;
        if (tsync_arch_parse(s, &token) < 0)
                return tsync_error(err, EINVAL, "%s: architecture '%s' is unknown", at, s);
        if (tsync_profile_add_arch(p, token) < 0)
                return tsync_error(err, ENOMEM, "%s: out of memory", at);
        return 0;
}

int tsync_parse_arches(const struct tsync_json *arches, const char *path, struct tsync_profile *p,
                       struct tsync_err *err)
{
        return tsync_parse_strings(arches, path, add_arch, p, err);
}

static int add_flag(const char *s, const char *at, void *ctx, struct tsync_err *err)
{
        struct tsync_profile *p = ctx;
        uint32_t bit;
        if (tsync_flag_parse(s, &bit) < 0)
                return tsync_error(err, EINVAL, "%s: flag '%s' is unknown", at, s);
        p->flags |= bit;
        return 0;
}

int tsync_parse_flags(const struct tsync_json *flags, const char *path, struct tsync_profile *p, struct tsync_err *err)
{
        return tsync_parse_strings(flags, path, add_flag, p, err);
}

void tsync_rule_clear(struct tsync_rule *r)
{
        for (size_t j = 0; j < r->n_names; j++)
                free(r->names[j]);
        free(r->names);
        free(r->args);
        free(r->origin);
        memset(r, 0, sizeof(*r));
}

int tsync_profile_add_rule(struct tsync_profile *p, struct tsync_rule *r)
{
        struct tsync_rule *grown = realloc(p->rules, (p->n_rules + 1) * sizeof(*grown));
        if (!grown) {
                tsync_rule_clear(r);
                return -ENOMEM;
        }
        grown[p->n_rules++] = *r;
        p->rules = grown;
        memset(r, 0, sizeof(*r));
        return 0;
}

int tsync_parse_optional_string(const struct tsync_json *obj, const char *key, char **ret, struct tsync_err *err)
{
        const struct tsync_json *v = tsync_json_get(obj, key);
        const char *s;
        if (!v || v->type == TSYNC_JSON_NULL)
                return 0;
        int r = tsync_json_str(v, key, &s, err);
        if (r < 0)
                return r;
        if (!(*ret = strdup(s)))
                return tsync_error(err, ENOMEM, "%s: out of memory", key);
        return 0;
}

int tsync_profile_start(const struct tsync_json *obj, struct tsync_profile **ret, struct tsync_err *err)
{
        int r = tsync_json_expect(obj, "", TSYNC_JSON_OBJECT, err);
        if (r < 0)
                return r;
        if (!(*ret = calloc(1, sizeof(**ret))))
                return tsync_error(err, ENOMEM, "out of memory");
        return 0;
}

int tsync_parse_profile_rest(const struct tsync_json *obj, tsync_syscall_reader read_syscall, const void *ctx,
                             struct tsync_profile *p, struct tsync_err *err)
{
        const struct tsync_json *v = tsync_json_get(obj, "flags");
        int r;

        if (v && v->type != TSYNC_JSON_NULL) {
                r = tsync_parse_flags(v, "flags", p, err);
                if (r < 0)
                        return r;
        }
        r = tsync_parse_optional_string(obj, "listenerPath", &p->listener_path, err);
        if (r < 0)
                return r;
        r = tsync_parse_optional_string(obj, "listenerMetadata", &p->listener_metadata, err);
        if (r < 0)
                return r;
        if ((v = tsync_json_get(obj, "syscalls")) && v->type != TSYNC_JSON_NULL) {
                r = tsync_json_expect(v, "syscalls", TSYNC_JSON_ARRAY, err);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < v->u.array.len; i++) {
                        r = read_syscall(v->u.array.items[i], i, ctx, p, err);
                        if (r < 0)
                                return r;
                }
        }
        return check_flags(p, err);
}
