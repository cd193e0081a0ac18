/* A front end's run around the host decision (frontend/pipeline.h): the
 * steps inject, precreate and the runtime wrapper each used to spell, said
 * in their one-line messages. The decision itself is prepare.c's, which
 * prints nothing. */
#include <stdio.h>

#include "frontend/frontend.h"
#include "frontend/pipeline.h"
#include "plan/plan.h"

int frontend_prepare(struct tsync_json *config, const struct tsync_prepare_opts *o, const struct tsync_rewrite_opts *ro,
                     const char *where, struct tsync_prepared *ret)
{
        struct tsync_err err = { 0 };
        struct tsync_warnings w = { 0 };
        struct tsync_prepared p = { 0 };
        int r = tsync_plan_prepare(config, o, &p, &w, &err);
        frontend_warnings(where, &w);
        if (r == 0)
                r = tsync_plan_apply(config, &p, ro, &err);
        if (r < 0) {
                frontend_error(where, &err);
                tsync_prepared_abandon(&p);
                tsync_prepared_clear(&p);
                return -1;
        }
        *ret = p;
        return 0;
}

int frontend_unwritten(const struct tsync_prepared *p, const char *where, const struct tsync_err *err)
{
        frontend_error(where, err);
        /* A refused start keeps no recording directory (a fresh, empty one). */
        tsync_prepared_abandon(p);
        return -1;
}

/* Replace mode leaves processes the init does not start without
 * linux.seccomp: each front end names the exec that starts them. The
 * wrapper's own exec'd processes carry the moved profile (runtime/exec.c). */
static void warn_replace(enum tsync_frontend fe, const struct tsync_json *config, const char *where)
{
        char wrapper[128];
        (void)snprintf(wrapper, sizeof(wrapper), "runc exec` or `crun exec` without `%s",
                       tsync_frontend_name(TSYNC_FRONTEND_RUNTIME));
        const char *exec = fe == TSYNC_FRONTEND_INJECT      ? "runc exec"
                           : fe == TSYNC_FRONTEND_PRECREATE ? "exec"
                                                            : wrapper;
        frontend_warn_replace(where, config, exec);
}

void frontend_written(const struct tsync_prepared *p, const struct tsync_json *config, const char *where)
{
        const struct tsync_plan *plan = p->plan;
        if (plan->mode == TSYNC_MODE_REPLACE)
                warn_replace(p->fe, config, where);
        if (p->fe != TSYNC_FRONTEND_RUNTIME)
                frontend_warn_plain_exec(where, plan->n_layers, plan->init.exec_once);
        frontend_log_applied(where, "applied", plan);
}
