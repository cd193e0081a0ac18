#include "plan/stage.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const names[TSYNC_STAGE_COUNT] = {
        [TSYNC_STAGE_PRECREATE] = "precreate",
        [TSYNC_STAGE_PRESTART] = "prestart",
        [TSYNC_STAGE_CREATE_RUNTIME] = "createRuntime",
        [TSYNC_STAGE_POSTSTOP] = "poststop",
};

const char *tsync_stage_name(enum tsync_stage s)
{
        return (unsigned)s < TSYNC_STAGE_COUNT ? names[s] : "?";
}

int tsync_stage_from_name(const char *name, enum tsync_stage *ret)
{
        for (unsigned s = 0; s < TSYNC_STAGE_COUNT; s++) {
                if (strcmp(name, names[s]) == 0) {
                        *ret = (enum tsync_stage)s;
                        return 0;
                }
        }
        return -EINVAL;
}

void tsync_stage_list(char *buf, size_t size)
{
        size_t off = 0;
        for (unsigned s = 0; s < TSYNC_STAGE_COUNT && off < size; s++) {
                int n = snprintf(buf + off, size - off, "%s%s", s ? ", " : "", names[s]);
                if (n < 0)
                        break;
                off += (size_t)n;
        }
}
