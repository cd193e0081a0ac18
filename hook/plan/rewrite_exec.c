/* An exec'd process of a container of ours runs through the init too: the
 * same filters the container's init got (its --filter-data, or the filter
 * files mounted for the container's life), with this process's own arguments,
 * capabilities and noNewPrivileges, which the init ends with exactly. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan/exec_view.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/json_build.h"

/* A config carrying process (a copy) and, in replace mode, the moved
 * linux.seccomp: what tsync_plan_new reads to make the exec'd process's plan,
 * with every check the container's process had. */
static int exec_config(const struct tsync_json *process, const struct tsync_plan *plan, struct tsync_json **ret)
{
        _cleanup_json_ struct tsync_json *c = tsync_json_new_object();
        int r = c ? tsync_json_set(c, "process", tsync_json_copy(process)) : -ENOMEM;
        if (r == 0 && plan->seccomp) {
                struct tsync_json *linux_ = tsync_json_new_object();
                r = linux_ ? tsync_json_set(linux_, "seccomp", tsync_json_copy(plan->seccomp)) : -ENOMEM;
                if (r == 0)
                        r = tsync_json_set(c, "linux", linux_);
                else
                        tsync_json_free(linux_);
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}

static int exec_plan(const struct tsync_json *process, const struct tsync_plan *plan, struct tsync_plan **ret,
                     struct tsync_err *err)
{
        /* In place when it can: the exec'd program is then the process the
         * runtime started, with its pid and terminal. Exec once needs the
         * init to stay and answer: the exec'd process starts its own program
         * once, as the container's workload does. */
        struct tsync_request req = { .mode = plan->mode,
                                     .layers_by_name = plan->layers_by_name,
                                     .n_layers = plan->n_layers,
                                     .init = { .exec = !plan->init.exec_once, .exec_once = plan->init.exec_once },
                                     .delivery = plan->delivery };
        for (size_t i = 0; i < plan->n_layers && i < TSYNC_MAX_LAYERS; i++)
                req.layers[i] = plan->layers[i];
        _cleanup_json_ struct tsync_json *config = NULL;
        int r = exec_config(process, plan, &config);

        if (r < 0)
                return tsync_error(err, -r, "%s", tsync_errtext(-r));
        return tsync_plan_new(config, &req, plan->state_dir, ret, err);
}

bool tsync_rewrite_is_ours(const struct tsync_json *config)
{
        const struct tsync_json *annotations = tsync_json_get(config, "annotations");
        return tsync_json_get(annotations, TSYNC_ANNOTATION_PLAN) ||
               tsync_json_get(annotations, TSYNC_ANNOTATION_RUNNING);
}

int tsync_rewrite_exec(struct tsync_json *process, const struct tsync_json *config, struct tsync_err *err)
{
        if (!tsync_rewrite_is_ours(config))
                return 0;
        /* Believed only as the rewrite wrote it (with the exec view of a
         * running container): undo checks every byte against the plan. */
        _cleanup_json_ struct tsync_json *copy = tsync_json_copy(config);
        _cleanup_free_ char *running = NULL;
        int r = copy ? tsync_rewrite_undo(copy, false, &running, err) : tsync_error(err, ENOMEM, "out of memory");
        if (r < 0)
                return tsync_error_prefix(err, "the container's config");
        _cleanup_plan_ struct tsync_plan *plan = NULL;
        r = tsync_plan_from_config(config, &plan, err);
        if (r < 0)
                return tsync_error_prefix(err, "the container's config");
        if (plan->listener_path)
                return tsync_error(err, EOPNOTSUPP,
                                   "the container's layers hand a listener to a notify agent (listenerPath %s), which "
                                   "exec'd processes cannot reach: refused",
                                   plan->listener_path);
        if (plan->record.req.output)
                return tsync_error(err, EOPNOTSUPP,
                                   "the container is being recorded, and exec'd processes are not part of the "
                                   "recording: refused");
        /* A process without capabilities gets the container's from runc
         * (its setns init takes the config runc keeps from create), which for
         * a container of ours are the sets lent to its init: it gets the
         * original ones, as on a container without us. */
        const struct tsync_json *caps = tsync_json_get(process, "capabilities");
        if (process->type == TSYNC_JSON_OBJECT && (!caps || caps->type == TSYNC_JSON_NULL) && plan->capabilities &&
            tsync_json_set(process, "capabilities", tsync_json_copy(plan->capabilities)) < 0)
                return tsync_error(err, ENOMEM, "out of memory");
        _cleanup_plan_ struct tsync_plan *mine = NULL;
        r = exec_plan(process, plan, &mine, err);
        if (r < 0)
                return tsync_error_prefix(err, "the exec'd process");
        /* With the container's workload as its PID 1 (the init ran it in
         * place), PID 1 may move to namespaces of its own at any moment, and
         * the runtime joins them: nothing keeps TSYNC_CONTAINER_INIT ours
         * between the wrapper's check (plan/exec_path.h) and the runtime's
         * execve, so no capability is lent to what runs there. */
        _cleanup_json_ struct tsync_json *lent = NULL;
        r = plan->init.exec ? tsync_exec_view_lent_capabilities(mine, &lent, err) : 0;
        if (r < 0)
                return tsync_error_prefix(err, "the exec'd process");
        if (lent)
                return tsync_error(err, EPERM,
                                   "the exec'd process: its init would be lent CAP_SYS_ADMIN (noNewPrivileges is "
                                   "false), and the container's PID 1 is its workload (run in place), which can move "
                                   "the mount namespace the runtime execs the init in: refused (set "
                                   "noNewPrivileges true in the process, or run the container supervised)");
        const char *data[TSYNC_MAX_LAYERS + 1];
        size_t n = 0;
        if (plan->delivery == TSYNC_DELIVERY_ARGS) {
                n = tsync_rewrite_filter_data(config, data, ARRAY_SIZE(data));
                if (n != tsync_plan_filter_count(plan))
                        return tsync_error(err, EINVAL,
                                           "the container's config: process.args: %zu --filter-data, but the plan has "
                                           "%zu filters",
                                           n, tsync_plan_filter_count(plan));
        }
        r = tsync_rewrite_process(process, mine, data, n, err);
        return r < 0 ? r : 1;
}

int tsync_rewrite_exec_add(struct tsync_json *process, const char *const *data, size_t n, struct tsync_err *err)
{
        struct tsync_json *args = tsync_json_get_mut(process, "args");
        if (!args || args->type != TSYNC_JSON_ARRAY)
                return tsync_error(err, EINVAL, "process.args: not the init's arguments");
        /* The init's options end at its first "--" (init_args). */
        size_t at = 1;
        while (at < args->u.array.len && (args->u.array.items[at]->type != TSYNC_JSON_STRING ||
                                          strcmp(args->u.array.items[at]->u.string.ptr, "--") != 0))
                at++;
        if (at == args->u.array.len)
                return tsync_error(err, EINVAL, "process.args: no '--' after the init's options");
        for (size_t i = 0; i < n; i++) {
                int r = tsync_json_insert(args, at++, tsync_json_new_string("--filter-data"));
                if (r == 0)
                        r = tsync_json_insert(args, at++, tsync_json_new_string(data[i]));
                if (r < 0)
                        return tsync_error(err, -r, "process.args: %s", tsync_errtext(-r));
        }
        return 0;
}
