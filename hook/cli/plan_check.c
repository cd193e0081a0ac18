/* What inject and precreate say about a plan before the config is written:
 * every filter compiles, and the init can run the workload under them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tsync/caps.h"
#include "tsync/filterfile.h"
#include "tsync/init_calls.h"
#include "tsync/plan.h"

/* Whether the init can supervise the workload under the stack it will run
 * under, decided now so that the config says it (--exec) and the user hears
 * it once, here. */
static int check_route(const struct tsync_plan_programs *progs, bool caps_after, bool *ret_in_place, const char *where)
{
        struct tsync_stack_prog stack[TSYNC_MAX_LAYERS + 2];
        const struct tsync_init_call *denied;
        enum tsync_init_route route;
        struct tsync_err err = { 0 };
        uint32_t action;
        char why[512];

        for (size_t i = 0; i < progs->n; i++)
                stack[i] = (struct tsync_stack_prog){ .insns = progs->progs[i]->insns,
                                                      .len = progs->progs[i]->len,
                                                      .listener = progs->progs[i]->listener };
        int r = tsync_init_route(stack, progs->n, progs->n_baseline, caps_after, &route, &denied, &action, &err);
        *ret_in_place = false;
        if (r == -EOPNOTSUPP || (r == 0 && route == TSYNC_ROUTE_SUPERVISE))
                return 0;
        if (r < 0) {
                cli_error(where, &err);
                return -1;
        }
        const char *who = progs->n_baseline ? "the layers and the config's own linux.seccomp (which the runtime "
                                              "applies to the init too) answer"
                                            : "the filters answer";
        tsync_init_route_explain(who, denied, action, false, why, sizeof(why));
        bool exec_once = false;
        for (size_t i = 0; i < progs->n; i++)
                exec_once |= progs->progs[i]->listener == TSYNC_LISTENER_EXEC_ONCE;
        /* A recording's listener is the init's to hold beside the workload. */
        for (size_t i = 0; i < progs->n; i++) {
                if (progs->progs[i]->listener != TSYNC_LISTENER_RECORD)
                        continue;
                cli_errorf(where,
                           "%s: a recording needs the init to stay beside the workload, never to run it in place", why);
                return -1;
        }
        if (route == TSYNC_ROUTE_NONE && exec_once) {
                cli_errorf(where, "%s: exec-once needs the init to supervise the workload, never to run it in place",
                           why);
                return -1;
        }
        if (route == TSYNC_ROUTE_NONE) {
                cli_errorf(where, "%s: no workload could start under them", why);
                return -1;
        }
        cli_warnf(where, "%s: the init runs the workload in place, as PID 1, as the runtime alone would (--exec)", why);
        *ret_in_place = true;
        return 0;
}

int cli_check_plan(struct tsync_plan *plan, const struct tsync_plan_paths *o, const struct tsync_json *config,
                   struct tsync_plan_programs *ret, const char *where)
{
        struct tsync_err err = { 0 };
        struct tsync_warnings w = { 0 };
        struct tsync_plan_programs progs = { 0 };

        /* Said once, here (inject and precreate): the hook's later stages and the init stay quiet. */
        int r = tsync_caps_warn_ignored(plan->capabilities, &w, &err);
        cli_warnings(where, &w);
        if (r == 0)
                r = tsync_plan_check_annotations(plan, config, &err);
        if (r == 0)
                r = tsync_plan_compile(plan, o, config, &progs, &w, &err);
        cli_warnings(where, &w);
        if (r < 0) {
                cli_error(where, &err);
                return -1;
        }
        /* The runtime loads its own notify profile with a listener, and the
         * kernel allows one listener among a process's filters: ours would be
         * refused (EBUSY) at every start. */
        for (size_t i = 0; i < progs.n_baseline; i++) {
                for (size_t j = progs.n_baseline; j < progs.n; j++) {
                        if (progs.progs[j]->listener == TSYNC_LISTENER_NONE ||
                            tsync_filter_find_user_notif(progs.progs[i]->insns, progs.progs[i]->len) < 0)
                                continue;
                        cli_errorf(where,
                                   "linux.seccomp has SCMP_ACT_NOTIFY rules, so the runtime loads it with a "
                                   "notification listener, and the kernel allows one listener among a process's "
                                   "filters: %s cannot be added to it",
                                   progs.progs[j]->listener == TSYNC_LISTENER_AGENT
                                           ? "a layer with SCMP_ACT_NOTIFY (a notify agent's)"
                                   : progs.progs[j]->listener == TSYNC_LISTENER_RECORD ? "a recording"
                                                                                       : "exec once");
                        tsync_plan_programs_clear(&progs);
                        return -1;
                }
        }
        /* What a recording cannot be made under (plan_record.h). */
        if (tsync_record_check_programs(plan, &progs, &err) < 0) {
                cli_error(where, &err);
                tsync_plan_programs_clear(&progs);
                return -1;
        }
        bool in_place = false;
        r = check_route(&progs, !plan->no_new_privileges, &in_place, where);
        if (r == 0 && in_place)
                plan->init.exec = true;
        if (r == 0 && ret)
                *ret = progs;
        else
                tsync_plan_programs_clear(&progs);
        return r;
}
