/* Before a config with a recording is written: its paths checked for the
 * container and its directory made (plan/plan_record.h). Apart from
 * plan_record.c because judging the recording's input reads it as a
 * profile (record/record_profile.c, libseccomp): what reads a plan back at
 * each start (plan_record.c) needs none of that. */
#include "plan/plan_record.h"

#include <stdlib.h>

#include "plan/plan.h"
#include "shared/cleanup.h"

int tsync_record_check_paths(const struct tsync_record_request *req, const struct tsync_json *config,
                             const char *bundle, unsigned flags, struct tsync_err *err)
{
        _cleanup_free_ char *rootfs = NULL;
        if (!req->output)
                return 0;
        int r = tsync_record_rootfs(config, bundle, &rootfs, err);
        if (r < 0)
                return r;
        r = tsync_record_check_path(req->output, TSYNC_RECORD_OUTPUT | flags, rootfs, err);
        if (r < 0)
                return tsync_error_prefix(err, "of: '%s'", req->output);
        if (req->input) {
                r = tsync_record_check_path(req->input, 0, rootfs, err);
                if (r < 0)
                        return tsync_error_prefix(err, "if: '%s'", req->input);
                /* Judged now, not at poststop, where an engine drops what is said. */
                r = tsync_record_check_input(req, err);
                if (r < 0)
                        return tsync_error_prefix(err, "if");
        }
        return 0;
}

int tsync_plan_record_prepare(const struct tsync_plan *plan, const struct tsync_json *config, const char *bundle,
                              const char *parent_root, struct tsync_err *err)
{
        if (!plan->record.req.output)
                return 0;
        int r = tsync_record_check_paths(&plan->record.req, config, bundle,
                                         plan->record.no_replace ? TSYNC_RECORD_NEW : 0, err);
        if (r == 0)
                r = tsync_record_check_caps(config, err);
        if (r == 0)
                r = tsync_record_make_dir(plan->record.dir, parent_root, err);
        return r < 0 ? tsync_error_prefix(err, "recording") : 0;
}
