/* Where our other parts live: the init beside us in the build tree or in libexec once installed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "plan/plan_record.h"
#include "plan/record_place.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "translate/cache.h"
#include "util/fileio.h"

int frontend_self_path(char *buf, size_t size)
{
        ssize_t n = readlink("/proc/self/exe", buf, size - 1);
        if (n < 0)
                return -errno;
        if ((size_t)n >= size - 1)
                return -ENAMETOOLONG;
        buf[n] = '\0';
        return 0;
}

int frontend_find_init(char *buf, size_t size)
{
        char self[PATH_MAX];
        int r = frontend_self_path(self, sizeof(self));
        if (r < 0)
                return r;
        char *slash = strrchr(self, '/');
        if (!slash)
                return -ENOENT;
        *slash = '\0';
        const char *candidates[] = { "/seccomp-tsync-init", "/../libexec/oci-seccomp-tsync/seccomp-tsync-init" };
        for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
                char path[PATH_MAX + 64];
                (void)snprintf(path, sizeof(path), "%s%s", self, candidates[i]);
                char *real = realpath(path, NULL);
                if (real && access(real, X_OK) == 0 && strlen(real) < size) {
                        strcpy(buf, real);
                        free(real);
                        return 0;
                }
                free(real);
        }
        return -ENOENT;
}

const char *const frontend_default_profile_dirs[] = { TSYNC_PROFILE_DIR_ETC, TSYNC_PROFILE_DIR_SHARE };
const size_t frontend_n_default_profile_dirs = 2;

/* The uid our euid stands for in the parent user namespace; our euid where
 * the map cannot be read. Rootless Podman runs hooks as root of the user's
 * namespace and with an empty environment, so euid 0 alone does not say root. */
static uid_t parent_uid(void)
{
        uid_t me = geteuid();
        _cleanup_free_ char *map = NULL;
        size_t len;
        /* At most 340 lines of three numbers */
        if (tsync_read_file_at(AT_FDCWD, "/proc/self/uid_map", NULL, 0, 65536, &map, &len, NULL, NULL) < 0)
                return me;
        unsigned long inside, outside, count;
        int used;
        for (const char *p = map; sscanf(p, "%lu %lu %lu%n", &inside, &outside, &count, &used) == 3; p += used)
                if (me >= inside && me - inside < count)
                        return (uid_t)(outside + (me - inside));
        return me;
}

/* Read as a file, line by line (name:password:uid:gid:gecos:home:shell),
 * not through NSS: the program is linked statically, and a static getpwuid
 * would load the host's NSS modules of another glibc (musl's would ask nscd).
 * Only used where HOME is not set; a user known only to a directory service
 * then has none here, and the caller says what it cannot find. */
const char *frontend_passwd_home(const char *passwd, uid_t uid, char *buf, size_t size)
{
        FILE *f = fopen(passwd, "re");
        if (!f)
                return NULL;
        const char *home = NULL;
        while (!home && fgets(buf, (int)size, f)) {
                size_t len = strcspn(buf, "\n");
                if (buf[len] != '\n' && !feof(f)) {
                        /* Longer than buf: not an entry we can read whole. */
                        for (int c = 0; c != EOF && c != '\n';)
                                c = getc(f);
                        continue;
                }
                buf[len] = '\0';
                char *field[7];
                size_t n = 0;
                for (char *p = buf; n < 7;) {
                        field[n++] = p;
                        char *colon = strchr(p, ':');
                        if (!colon)
                                break;
                        *colon = '\0';
                        p = colon + 1;
                }
                uint64_t v;
                /* An entry cut short has an empty home, as glibc reads it. */
                if (n >= 3 && tsync_parse_decimal(field[2], strlen(field[2]), UINT32_MAX, &v) == 0 && v == uid)
                        home = n >= 6 ? field[5] : "";
        }
        fclose(f);
        return home;
}

/* A directory of the user's own: $XDG_VAR/under_xdg, else HOME/under_home
 * (HOME from /etc/passwd when unset); NULL when neither is an absolute path. */
static const char *user_dir(uid_t owner, const char *xdg_var, const char *under_xdg, const char *under_home, char *buf,
                            size_t size)
{
        const char *xdg = getenv(xdg_var), *home = getenv("HOME");
        char pwbuf[4096];
        if (!home || home[0] != '/')
                home = frontend_passwd_home("/etc/passwd", owner, pwbuf, sizeof(pwbuf));
        int n = -1;
        if (xdg && xdg[0] == '/')
                n = snprintf(buf, size, "%s/%s", xdg, under_xdg);
        else if (home && home[0] == '/')
                n = snprintf(buf, size, "%s/%s", home, under_home);
        return n > 0 && (size_t)n < size ? buf : NULL;
}

const char *frontend_default_cache_dir(char *buf, size_t size)
{
        uid_t owner = parent_uid();
        if (owner == 0)
                return TSYNC_CACHE_DEFAULT_DIR;
        /* Rootless engines run hooks as the user: a cache of the user's own. */
        return user_dir(owner, "XDG_CACHE_HOME", "oci-seccomp-tsync", ".cache/oci-seccomp-tsync", buf, size);
}

const char *frontend_user_profile_dir(char *buf, size_t size)
{
        uid_t owner = parent_uid();
        if (owner == 0)
                return NULL;
        return user_dir(owner, "XDG_CONFIG_HOME", "oci-seccomp-tsync/profiles", ".config/oci-seccomp-tsync/profiles",
                        buf, size);
}

const char *frontend_default_record_root(char *buf, size_t size)
{
        uid_t owner = parent_uid();
        if (owner == 0)
                return TSYNC_RECORD_ROOT;
        /* Rootless engines run hooks as root of the user's namespace, which
         * cannot write under /var/lib: the user's own data directory. Still
         * the namespace's root's alone (0700, tsync_record_make_dir), and kept
         * across logins (unlike XDG_RUNTIME_DIR): a failed recording's raw
         * calls stay there. No home to tell: the system's, which then refuses
         * with its reason. */
        const char *dir = user_dir(owner, "XDG_DATA_HOME", "oci-seccomp-tsync/record",
                                   ".local/share/oci-seccomp-tsync/record", buf, size);
        return dir ? dir : TSYNC_RECORD_ROOT;
}
