/* The home a rootless user's own directories fall back on when HOME is not
 * set (hook/frontend/paths.c: frontend_passwd_home, our own reader of the
 * passwd file, which the musl-linked wrapper needs), held to glibc's
 * fgetpwent: every entry of this machine's /etc/passwd, and a file of the
 * lines a reader may stumble on. */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "tap.h"

/* glibc's home for uid in the file: the first entry of that uid, or NULL. */
static char *glibc_home(const char *path, uid_t uid)
{
        FILE *f = fopen(path, "re");
        char *home = NULL;
        for (struct passwd *pw; f && !home && (pw = fgetpwent(f));)
                if (pw->pw_uid == uid)
                        home = strdup(pw->pw_dir);
        if (f)
                fclose(f);
        return home;
}

/* Every uid of the file's entries (and one none has): 0 when ours says what glibc's says. */
static size_t differ(const char *path, size_t *checked)
{
        uid_t uids[256];
        size_t n = 0, bad = 0;
        FILE *f = fopen(path, "re");
        for (struct passwd *pw; f && n < 255 && (pw = fgetpwent(f));)
                uids[n++] = pw->pw_uid;
        if (f)
                fclose(f);
        uids[n++] = 4242424;
        for (size_t i = 0; i < n; i++) {
                char buf[4096];
                char *want = glibc_home(path, uids[i]);
                const char *got = frontend_passwd_home(path, uids[i], buf, sizeof(buf));
                if (!(want ? got && strcmp(got, want) == 0 : !got)) {
                        tap_diag("%s, uid %u: ours %s, glibc's %s", path, (unsigned)uids[i], got ? got : "(none)",
                                 want ? want : "(none)");
                        bad++;
                }
                free(want);
        }
        *checked = n;
        return bad;
}

static void test_home_is_glibcs_for_every_entry_of_etc_passwd(void)
{
        size_t n;
        size_t bad = differ("/etc/passwd", &n);
        tap_ok(n > 1 && bad == 0, "/etc/passwd: %zu uids, the same home as glibc's for each (%zu differ)", n, bad);
}

static void test_home_is_glibcs_for_odd_lines(void)
{
        char path[] = "/tmp/tsync-passwd-XXXXXX";
        int fd = mkstemp(path);
        FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
        if (!f) {
                tap_ok(0, "a passwd file of odd lines: cannot make it");
                return;
        }
        fputs("root:x:0:0:root:/root:/bin/bash\n"
              "empty:x:1001:1001::/home/empty:\n"
              "nohome:x:1002:1002:gecos::/bin/sh\n"
              "dup:x:1003:1003::/home/first:/bin/sh\n"
              "dup2:x:1003:1003::/home/second:/bin/sh\n"
              "spaced:x:1004:1004:a b c:/home/with space:/bin/sh\n"
              "short:x:1005:1005\n"
              "big:x:4294967294:1::/home/big:/bin/sh\n"
              "last:x:1006:1006::/home/last:/bin/sh",
              f);
        fclose(f);
        size_t n;
        size_t bad = differ(path, &n);
        tap_ok(bad == 0,
               "odd lines (empty fields, duplicates, a short entry, no final newline): %zu uids, "
               "%zu differ",
               n, bad);
        char buf[4096], small[24];
        const char *got = frontend_passwd_home(path, 1006, small, sizeof(small));
        tap_ok(!got, "an entry longer than the buffer is not read in part (%s)", got ? got : "none");
        got = frontend_passwd_home(path, 1003, buf, sizeof(buf));
        tap_ok(got && strcmp(got, "/home/first") == 0, "the first of two entries of a uid (%s)", got ? got : "none");
        tap_ok(!frontend_passwd_home("/nonexistent/passwd", 0, buf, sizeof(buf)), "no file: no home");
        unlink(path);
}

int main(void)
{
        test_home_is_glibcs_for_every_entry_of_etc_passwd();
        test_home_is_glibcs_for_odd_lines();
        return tap_done();
}
