/* inject's prepared views at a hook stage, said (frontend.h): the step
 * oci-seccomp-tsync's hook stages and the view hook both begin with. */
#include <errno.h>
#include <stdlib.h>

#include "frontend/frontend.h"
#include "plan/exec_view_bundle.h"
#include "plan/views.h"
#include "shared/cleanup.h"

int frontend_views_stage(const char *id, const char *bundle, enum tsync_stage stage)
{
        struct tsync_err err = { 0 };
        /* Locked until the exchange is done (tsync_views_open). */
        _cleanup_close_ int fd = -EBADF;
        int r = tsync_views_open(bundle, &fd, &err);
        if (r > 0) {
                _cleanup_free_ char *summary = NULL;
                r = stage == TSYNC_STAGE_POSTSTOP ? tsync_views_stop(fd, id, bundle, &err)
                                                  : tsync_views_start(fd, id, bundle, &summary, &err);
                if (r == 0 && summary)
                        frontend_log_text(id, tsync_stage_name(stage), summary);
                if (r == 0)
                        return 1;
        }
        if (r < 0) {
                frontend_error(id, &err);
                return -1;
        }
        return 0;
}
