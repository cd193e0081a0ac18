/* A recording's end, said (frontend.h). Apart from messages.c: writing the
 * profile reads the record with libseccomp, and the view hook
 * (hook/viewhook), linked with musl, says its lines with messages.c alone. */
#include "frontend/frontend.h"
#include "plan/plan.h"
#include "plan/record_stop.h"

/* A recording's end, said: the work is tsync_record_stop's (hook/plan/record_stop.c). */
int frontend_record_stop(const struct tsync_plan *plan, const struct tsync_plan_paths *o, const char *id,
                         const char *bundle)
{
        struct tsync_err err = { 0 };
        struct tsync_warnings w = { 0 };
        int r = tsync_record_stop(plan, o, bundle, &w, &err);
        frontend_warnings(id, &w);
        if (r < 0) {
                frontend_error(id, &err);
                return -1;
        }
        return 0;
}
