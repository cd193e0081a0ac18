#include "tsync/exec_view.h"

#include <errno.h>
#include <string.h>

#include "tsync/cleanup.h"
#include "tsync/json_build.h"
#include "tsync/rewrite.h"

static const char *running_id(const struct tsync_json *config)
{
        const struct tsync_json *v = tsync_json_get(tsync_json_get(config, "annotations"), TSYNC_ANNOTATION_RUNNING);
        if (!v)
                return NULL;
        return v->type == TSYNC_JSON_STRING ? v->u.string.ptr : "(not a string)";
}

static int set_capabilities(struct tsync_json *config, const struct tsync_json *caps)
{
        struct tsync_json *process = tsync_json_get_object(config, "process");
        if (!process)
                return -EINVAL;
        if (!caps) {
                tsync_json_remove(process, "capabilities");
                return 0;
        }
        return tsync_json_set(process, "capabilities", tsync_json_copy(caps));
}

static int expect_capabilities(const struct tsync_json *config, const struct tsync_json *want, const char *form,
                               struct tsync_err *err)
{
        char path[128];
        const struct tsync_json *caps = tsync_json_get(tsync_json_get(config, "process"), "capabilities");
        if (tsync_json_equal(caps, want, path, sizeof(path)))
                return 0;
        return tsync_error(err, EPERM, "process.capabilities%s%s: not %s: the config was edited after inject: refused",
                           path[0] ? "." : "", path, form);
}

int tsync_exec_view_lends(const struct tsync_plan *plan, struct tsync_err *err)
{
        _cleanup_json_ struct tsync_json *lent = NULL;
        int r = tsync_rewrite_lent_capabilities(plan, &lent, err);
        if (r < 0)
                return r;
        return lent != NULL;
}

int tsync_exec_view_restore(struct tsync_json *config, const struct tsync_plan *plan, const char *id,
                            struct tsync_err *err)
{
        _cleanup_json_ struct tsync_json *lent = NULL;
        int r = tsync_rewrite_lent_capabilities(plan, &lent, err);
        if (r < 0)
                return r;
        if (!lent)
                return 0;
        const char *holder = running_id(config);
        if (holder)
                return tsync_error(err, EBUSY,
                                   "annotations.%s: container '%s' started from this config and has not run its "
                                   "poststop hook: its exec'd processes read their capabilities here, so no other "
                                   "container may start from it until then (if '%s' is gone, give its id and bundle "
                                   "to `oci-seccomp-tsync hook poststop` as the OCI state on stdin)",
                                   TSYNC_ANNOTATION_RUNNING, holder, holder);
        r = expect_capabilities(config, lent, "the sets inject lent the init", err);
        if (r < 0)
                return r;
        r = set_capabilities(config, plan->capabilities);
        if (r < 0)
                return tsync_error(err, -r, "restoring process.capabilities: %s", strerror(-r));
        return id ? tsync_exec_view_mark(config, id, err) : 0;
}

int tsync_exec_view_mark(struct tsync_json *config, const char *id, struct tsync_err *err)
{
        struct tsync_json *annotations = tsync_json_get_object(config, "annotations");
        if (!annotations)
                return tsync_error(err, EINVAL, "annotations: expected object");
        int r = tsync_json_set(annotations, TSYNC_ANNOTATION_RUNNING, tsync_json_new_string(id));
        if (r < 0)
                return tsync_error(err, -r, "annotations.%s: %s", TSYNC_ANNOTATION_RUNNING, strerror(-r));
        return 0;
}

int tsync_exec_view_lend(struct tsync_json *config, const struct tsync_plan *plan, const char *id, bool *ret_changed,
                         struct tsync_err *err)
{
        *ret_changed = false;
        _cleanup_json_ struct tsync_json *lent = NULL;
        int r = tsync_rewrite_lent_capabilities(plan, &lent, err);
        if (r < 0)
                return r;
        const char *holder = running_id(config);
        if (!lent || !holder || strcmp(holder, id) != 0)
                return 0; /* not ours to give back */
        r = expect_capabilities(config, plan->capabilities, "the original sets its createRuntime hook put back", err);
        if (r < 0)
                return r;
        r = set_capabilities(config, lent);
        if (r < 0)
                return tsync_error(err, -r, "lending process.capabilities again: %s", strerror(-r));
        tsync_json_remove(tsync_json_get_mut(config, "annotations"), TSYNC_ANNOTATION_RUNNING);
        *ret_changed = true;
        return 0;
}
