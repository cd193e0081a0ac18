/* The init's errno words (hook/shared/errtext.c) are glibc's: each number glibc
 * describes, described alike; each it does not, "unknown error"; -e as e. The
 * init built with musl prints these, so its messages read as the hook's. */
#include <stdbool.h>
#include <string.h>

#include "shared/errtext.h"
#include "tap.h"

static void test_errtext_is_glibcs(void)
{
        int differ = 0, known = 0;

        for (int e = 0; e < 4096; e++) {
                const char *want = strerrordesc_np(e);
                const char *got = tsync_errtext(e);
                if (want)
                        known++;
                if (strcmp(got, want ? want : "unknown error") != 0 || strcmp(tsync_errtext(-e), got) != 0) {
                        differ++;
                        tap_ok(false, "errno %d: '%s', glibc says '%s'", e, got, want ? want : "(none)");
                }
        }
        tap_ok(differ == 0 && known > 130, "every errno 0..4095 reads as glibc's strerrordesc_np (%d known)", known);
}

int main(void)
{
        test_errtext_is_glibcs();
        return tap_done();
}
