/* A rootless user's own directories (hook/frontend/paths.c): with neither
 * HOME nor XDG_* set, the home /etc/passwd gives the user, read by our own
 * reader and held here to glibc's getpwent for every entry of this machine's
 * /etc/passwd. Each check runs in a child that became that user. */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "tap.h"

/* In a child of uid: 0 when frontend_default_cache_dir names want (NULL: none). */
static int cache_dir_as(uid_t uid, const char *want, char *got, size_t size)
{
        int fds[2];
        if (pipe(fds) < 0)
                return -1;
        pid_t pid = fork();
        if (pid == 0) {
                close(fds[0]);
                if (unsetenv("HOME") < 0 || unsetenv("XDG_CACHE_HOME") < 0 || setresgid(65534, 65534, 65534) < 0 ||
                    setresuid(uid, uid, uid) < 0)
                        _exit(2);
                char buf[4096];
                const char *dir = frontend_default_cache_dir(buf, sizeof(buf));
                const char *text = dir ? dir : "(none)";
                _exit(write(fds[1], text, strlen(text)) < 0 ? 2 : 0);
        }
        close(fds[1]);
        ssize_t n = pid < 0 ? -1 : read(fds[0], got, size - 1);
        close(fds[0]);
        got[n > 0 ? n : 0] = '\0';
        int status;
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return -1;
        char expected[4096];
        (void)snprintf(expected, sizeof(expected), "%s/.cache/oci-seccomp-tsync", want ? want : "");
        return strcmp(got, want && want[0] == '/' ? expected : "(none)") == 0 ? 0 : -1;
}

static void test_home_is_passwds_when_home_is_unset(void)
{
        if (geteuid() != 0) {
                tap_skip("not root", "the home of each user of /etc/passwd");
                return;
        }
        size_t users = 0, same = 0;
        setpwent();
        for (struct passwd *pw; (pw = getpwent());) {
                if (pw->pw_uid == 0)
                        continue; /* root's cache is the system's */
                char got[4096];
                users++;
                if (cache_dir_as(pw->pw_uid, pw->pw_dir, got, sizeof(got)) == 0)
                        same++;
                else
                        tap_diag("uid %u (%s): %s, glibc's home %s", (unsigned)pw->pw_uid, pw->pw_name, got,
                                 pw->pw_dir);
        }
        endpwent();
        tap_ok(users > 0 && same == users, "each of %zu users of /etc/passwd has the home glibc reads (%zu)", users,
               same);
        char got[4096];
        tap_ok(cache_dir_as(4242424, NULL, got, sizeof(got)) == 0, "a uid /etc/passwd does not hold has none (%s)",
               got);
}

int main(void)
{
        test_home_is_passwds_when_home_is_unset();
        return tap_done();
}
