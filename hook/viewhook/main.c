/* seccomp-tsync-view-hook: the createRuntime and poststop hook of a plan
 * whose hooks keep the exec view and nothing else (the filters travel in the
 * init's arguments; no notify agent, no recording). Linked statically with
 * musl, without libseccomp: it starts in a fraction of the time the glibc
 * oci-seccomp-tsync takes (docs/performance.md, issue 40), which it replaces
 * in the hook entries the front ends write for such plans. It takes the
 * entry's arguments as oci-seccomp-tsync takes them ("oci-seccomp-tsync hook
 * STAGE [--no-sync]") and does what that program's stage does for such a
 * plan, with the same library code and the same lines. A plan that needs
 * more is refused, never served in part. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "plan/exec_view.h"
#include "plan/exec_view_bundle.h"
#include "plan/oci_state.h"
#include "plan/plan.h"
#include "plan/stage.h"
#include "shared/cleanup.h"

static void usage(void)
{
        fprintf(stderr,
                "Usage: seccomp-tsync-view-hook hook createRuntime|poststop [--no-sync]\n"
                "The exec view's hook, as a hook entry the front ends write runs it: the OCI state on stdin.\n");
}

/* Whether this program serves plan's hooks: they keep the exec view alone. */
static int check_served(const struct tsync_plan *plan, const char *stage, struct tsync_err *err)
{
        const char *what = plan->delivery == TSYNC_DELIVERY_FILES ? "filter files"
                           : plan->listener_path                  ? "a notify agent"
                           : plan->record.req.output              ? "a recording"
                                                                  : NULL;
        if (!what)
                return 0;
        return tsync_error(err, EINVAL,
                           "%s: the plan needs %s, which only 'oci-seccomp-tsync hook %s' serves, not "
                           "seccomp-tsync-view-hook: write the config again (inject, or the engine's start)",
                           stage, what, stage);
}

static int run(enum tsync_stage stage, bool sync)
{
        const char *name = tsync_stage_name(stage);
        struct tsync_err err = { 0 };
        struct tsync_oci_state st;
        if (tsync_oci_state_read(STDIN_FILENO, &st, NULL, &err) < 0) {
                frontend_error(name, &err);
                return CLI_EXIT_FAILED;
        }
        frontend_log_subject(st.id);
        /* inject's prepared views: exchanged, nothing else read. */
        int r = frontend_views_stage(st.id, st.bundle, stage);
        if (r != 0)
                return r < 0 ? CLI_EXIT_FAILED : CLI_EXIT_OK;

        _cleanup_(tsync_bundle_config_clear) struct tsync_bundle_config config = TSYNC_BUNDLE_CONFIG_INIT;
        _cleanup_plan_ struct tsync_plan *plan = NULL;
        r = tsync_bundle_config_read(st.bundle, &config, &err);
        if (r == 0) {
                r = tsync_plan_from_config(config.doc, &plan, &err);
                if (r < 0 && r != -ENOENT)
                        r = tsync_error_prefix(&err, "%s/config.json", st.bundle);
        }
        /* No plan at poststop: nothing of ours is left. At createRuntime the
         * container would start without its filters: refused. */
        if (r == -ENOENT && stage == TSYNC_STAGE_POSTSTOP)
                return CLI_EXIT_OK;
        if (r == 0)
                r = check_served(plan, name, &err);
        _cleanup_json_ struct tsync_json *lent = NULL;
        if (r == 0)
                r = tsync_exec_view_lent_capabilities(plan, &lent, &err);
        if (r == 0)
                r = stage == TSYNC_STAGE_POSTSTOP
                            ? tsync_exec_view_stop(plan, lent, &config, st.id, st.bundle, sync, &err)
                            : tsync_exec_view_start(plan, lent, &config, st.id, st.bundle, sync, &err);
        if (r < 0) {
                frontend_error(st.id, &err);
                return CLI_EXIT_FAILED;
        }
        if (stage != TSYNC_STAGE_POSTSTOP)
                frontend_log_applied_lent(st.id, name, plan, lent);
        return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
        /* Engines hide a hook's stderr (Podman keeps only its exit status). */
        frontend_syslog_enable(FRONTEND_SYSLOG_SAY_UNREACHABLE);
        enum tsync_stage stage;
        bool sync = true;
        if (argc < 3 || strcmp(argv[1], "hook") != 0 || tsync_stage_from_name(argv[2], &stage) < 0 ||
            stage == TSYNC_STAGE_PRECREATE) {
                usage();
                return CLI_EXIT_USAGE;
        }
        for (int i = 3; i < argc; i++) {
                if (strcmp(argv[i], "--no-sync") != 0) {
                        frontend_errorf(argv[2], "seccomp-tsync-view-hook takes no option '%s'", argv[i]);
                        return CLI_EXIT_USAGE;
                }
                sync = false;
        }
        return run(stage, sync);
}
