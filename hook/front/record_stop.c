/* A recording's end, said: the work is tsync_record_stop's (hook/lib/record_stop.c). */
#include "tsync/record_stop.h"
#include "front.h"
#include "tsync/plan.h"

int cli_record_stop(const struct tsync_plan *plan, const struct tsync_plan_paths *o, const char *id, const char *bundle)
{
        struct tsync_err err = { 0 };
        struct tsync_warnings w = { 0 };
        int r = tsync_record_stop(plan, o, bundle, &w, &err);
        cli_warnings(id, &w);
        if (r < 0) {
                cli_error(id, &err);
                return -1;
        }
        return 0;
}
