/* delete: where a container the wrapper started ends for the engine
 * (containerd's shim, dockerd, the CRI's RemoveContainer all call it once the
 * container stopped, or with --force), so where its recording becomes the
 * profile, the job poststop does under Podman and inject (record_stop.c).
 * The rewrite adds no poststop hook to the wrapper's configs (prepare.c;
 * those of an earlier version pass it --record-at-delete): only here is it
 * known whether the runtime's delete succeeded, and our one line reaches the
 * engine's log.
 *
 * The bundle is found as exec finds it (`RUNTIME state ID`, exec.c) before
 * the runtime forgets the container, and its config.json believed only when
 * ours and writable by no one else; the runtime's delete then runs as our
 * child, and only after it succeeded is the record read: the workload, and
 * every process that could still write the record file, is gone. A delete
 * that is not of one of our recording containers goes to the runtime by
 * execve, untouched. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "plan/plan.h"
#include "plan/plan_record.h"
#include "plan/rewrite.h"
#include "runtime.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"

/* The plan of a container of ours that records; NULL for anything else (not
 * ours, no recording, or a container the runtime does not know: then the
 * runtime says so). A config that cannot be believed is said, and the delete
 * still goes through: the workload has ended, only the recording is lost (its
 * raw calls stay in the root-only directory). */
static struct tsync_plan *recording_plan(const char *runtime, const struct rt_cmdline *cl, char **ret_bundle)
{
        struct tsync_err err = { 0 };
        _cleanup_free_ char *bundle = NULL;
        if (rt_state_bundle(runtime, cl, &bundle, &err) < 0)
                return NULL;
        _cleanup_json_ struct tsync_json *config = NULL;
        struct tsync_plan *plan = NULL;
        int r = rt_read_config(bundle, &config, &err);
        if (r == 0 && !tsync_rewrite_is_ours(config))
                return NULL;
        if (r == 0)
                r = tsync_plan_from_config(config, &plan, &err);
        if (r < 0) {
                frontend_errorf(cl->id,
                                "warning: recording: cannot read the container's plan: %s: no profile is written",
                                err.msg);
                return NULL;
        }
        if (!plan->record.req.output) {
                tsync_plan_free(plan);
                return NULL;
        }
        *ret_bundle = TAKE_PTR(bundle);
        return plan;
}

/* The runtime's delete, as our child with our stdio: its exit status, as a
 * shell gives it (128 + the signal that killed it). */
int rt_run_child(const char *runtime, const struct rt_cmdline *cl)
{
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
                frontend_errorf(cl->id, "fork: %s", tsync_errtext(errno));
                return CLI_EXIT_FAILED;
        }
        if (pid == 0) {
                execv(runtime, cl->argv);
                frontend_errorf(cl->id, "%s: cannot execute it: %s", runtime, tsync_errtext(errno));
                _exit(127);
        }
        int status;
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR) {
                        frontend_errorf(cl->id, "waitpid: %s", tsync_errtext(errno));
                        return CLI_EXIT_FAILED;
                }
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int rt_delete(struct rt_cmdline *cl, const char *runtime, int *ret_status)
{
        if (!cl->deleting || !cl->id)
                return 0;
        _cleanup_free_ char *bundle = NULL;
        /* Our lines reach the engine's log too (log_file.c); the runtime's own
         * are its to write. */
        rt_log_begin(cl);
        _cleanup_plan_ struct tsync_plan *plan = recording_plan(runtime, cl, &bundle);
        rt_log_end(cl, false);
        if (!plan) {
                /* The record of its runtime goes once the runtime let the container go. */
                char recorded[4096];
                if (rt_record_read(cl, recorded, sizeof(recorded)) == 0)
                        return 0;
                cl->argv[0] = (char *)runtime;
                *ret_status = rt_run_child(runtime, cl);
                if (*ret_status == 0)
                        rt_record_remove(cl);
                return 1;
        }
        cl->argv[0] = (char *)runtime;
        *ret_status = rt_run_child(runtime, cl);
        if (*ret_status == 0)
                rt_record_remove(cl);
        /* Not deleted: the workload may still run, and the record is kept
         * for the delete that succeeds. */
        if (*ret_status != 0)
                return 1;
        rt_log_begin(cl);
        struct tsync_plan_paths paths = { .state_root = TSYNC_STATE_ROOT,
                                          .bundle = bundle,
                                          .record_root = TSYNC_RECORD_ROOT };
        if (frontend_record_stop(plan, &paths, cl->id, bundle) < 0)
                *ret_status = CLI_EXIT_FAILED;
        rt_log_end(cl, *ret_status != 0);
        return 1;
}
