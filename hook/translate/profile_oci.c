/* OCI runtime-spec linux.seccomp -> normalised profile, with runc's semantics. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"
#include "shared/cleanup.h"

static int parse_oci_syscall(const struct tsync_json *sc, size_t i, const void *ctx, struct tsync_profile *p,
                             struct tsync_err *err)
{
        (void)ctx; /* the format has none */
        char at[TSYNC_PATH_MAX], field[TSYNC_PATH_MAX];
        struct tsync_rule rule = { 0 };
        int r;

        tsync_path(at, "syscalls[%zu]", i);
        r = tsync_json_expect(sc, at, TSYNC_JSON_OBJECT, err);
        if (r < 0)
                return r;
        tsync_path(field, "%s.names", at);
        r = tsync_parse_names(tsync_json_get(sc, "names"), field, &rule.names, &rule.n_names, err);
        if (r >= 0)
                r = tsync_parse_action(sc, at, "action", "errnoRet", &rule.action, err);
        const struct tsync_json *args = tsync_json_get(sc, "args");
        if (r >= 0 && args && args->type != TSYNC_JSON_NULL) {
                tsync_path(field, "%s.args", at);
                r = tsync_parse_args(args, field, &rule.args, &rule.n_args, err);
        }
        if (r >= 0 && !(rule.origin = strdup(at)))
                r = tsync_error(err, ENOMEM, "%s: out of memory", at);
        if (r < 0) {
                tsync_rule_clear(&rule);
                return r;
        }
        if (tsync_profile_add_rule(p, &rule) < 0)
                return tsync_error(err, ENOMEM, "%s: out of memory", at);
        return 0;
}

int tsync_profile_from_oci(const struct tsync_json *seccomp, struct tsync_profile **ret, struct tsync_err *err)
{
        _cleanup_profile_ struct tsync_profile *p = NULL;
        const struct tsync_json *v;
        int r;

        r = tsync_profile_start(seccomp, &p, err);
        if (r < 0)
                return r;

        r = tsync_parse_action(seccomp, "", "defaultAction", "defaultErrnoRet", &p->default_action, err);
        if (r < 0)
                return r;
        if ((v = tsync_json_get(seccomp, "architectures")) && v->type != TSYNC_JSON_NULL) {
                r = tsync_parse_arches(v, "architectures", p, err);
                if (r < 0)
                        return r;
        }
        r = tsync_parse_profile_rest(seccomp, parse_oci_syscall, NULL, p, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(p);
        return 0;
}
