/* Shared by the unit tests: where fixtures live, and reading a fixture profile. */
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline const char *fixture_dir(void)
{
        const char *top = getenv("TSYNC_TOP");
        static char buf[4096];
        (void)snprintf(buf, sizeof(buf), "%s/tests/unit/fixtures", top ? top : ".");
        return buf;
}

static inline const char *fixture_path(const char *rel)
{
        static char buf[8192];
        const char *dir = fixture_dir();
        size_t a = strlen(dir), b = strlen(rel);
        if (a + 1 + b >= sizeof(buf))
                abort();
        memcpy(buf, dir, a);
        buf[a] = '/';
        memcpy(buf + a + 1, rel, b + 1);
        return buf;
}
