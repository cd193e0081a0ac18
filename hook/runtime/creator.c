/* Which runtime created a container: written at create/run, read by the
 * commands that inspect and tear it down (state, kill, delete, ps, events,
 * pause, resume, update), removed at delete. A runtime.conf broken or changed
 * after the start must never leave an engine unable to stop its container
 * with the runtime that holds its state.
 *
 * One file a container: BASE/<hash of --root>/<id>, the real runtime's
 * absolute path and the --root it was given, one a line. BASE is root's
 * (TSYNC_STATE_ROOT/runtime) or, rootless, $XDG_RUNTIME_DIR/oci-seccomp-tsync/runtime.
 * The path names a program root executes, so a record is believed only when
 * it is ours, 0600 and no symbolic link. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "facts/runtimes.h"
#include "frontend/frontend.h"
#include "plan/plan.h"
#include "runtime.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/fileio.h"

#define RECORD_MAX 8192
/* Times a record is written again after its directory vanished under it. */
#define RECORD_WRITE_TRIES 8

static int base_dir(char *buf, size_t size)
{
        if (geteuid() == 0)
                return snprintf(buf, size, "%s/runtime", TSYNC_STATE_ROOT) < (int)size ? 0 : -ENAMETOOLONG;
        const char *xdg = getenv("XDG_RUNTIME_DIR");
        if (!xdg || xdg[0] != '/')
                return -ENOENT;
        return snprintf(buf, size, "%s/oci-seccomp-tsync/runtime", xdg) < (int)size ? 0 : -ENAMETOOLONG;
}

void rt_warn(const struct rt_cmdline *cl, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *msg = frontend_vformat(fmt, ap);
        va_end(ap);
        const char *cmd = cl->command >= 0 ? cl->argv[cl->command] : "";
        /* An engine reads what these print as JSON, stderr included (go-runc's
         * combined output): our line goes to the system log alone. */
        if (strcmp(cmd, "state") != 0 && strcmp(cmd, "ps") != 0 && strcmp(cmd, "events") != 0) {
                frontend_errorf(cl->id, "warning: %s", msg ? msg : fmt);
                return;
        }
        _cleanup_free_ char *text = NULL;
        if (asprintf(&text, "%s: warning: %s", cl->id, msg ? msg : fmt) >= 0)
                frontend_syslog(LOG_WARNING, text);
}

/* The --root before the command word, as the wrapper passes it on, or "". */
static const char *state_root(const struct rt_cmdline *cl)
{
        for (int i = 1; i < cl->command; i++) {
                const char *a = cl->argv[i];
                if (a[0] != '-')
                        continue;
                const char *n = a + 1 + (a[1] == '-');
                if (strncmp(n, "root", 4) != 0)
                        continue;
                if (n[4] == '=')
                        return n + 5;
                if (n[4] == '\0' && i + 1 < cl->command)
                        return cl->argv[i + 1];
        }
        return "";
}

/* FNV-1a: a directory name for any root, not a secret. */
static void hash_dir(const char *root, char out[17])
{
        uint64_t h = 14695981039346656037ull;
        for (const unsigned char *p = (const unsigned char *)root; *p; p++)
                h = (h ^ *p) * 1099511628211ull;
        snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* BASE/<hash>, and the record's path in it. An id with a '/' has no record. */
static int record_path(const struct rt_cmdline *cl, char dir[PATH_MAX], char file[PATH_MAX])
{
        if (!cl->id || !*cl->id || strchr(cl->id, '/') || strcmp(cl->id, ".") == 0 || strcmp(cl->id, "..") == 0)
                return -EINVAL;
        char base[PATH_MAX], h[17];
        int r = base_dir(base, sizeof(base));
        if (r < 0)
                return r;
        hash_dir(state_root(cl), h);
        if (snprintf(dir, PATH_MAX, "%s/%s", base, h) >= PATH_MAX ||
            snprintf(file, PATH_MAX, "%s/%s", dir, cl->id) >= PATH_MAX)
                return -ENAMETOOLONG;
        return 0;
}

/* mkdir for each of BASE's missing components down from the state root, 0700. */
static int make_private(const char *path, struct tsync_err *err)
{
        char buf[PATH_MAX];
        snprintf(buf, sizeof(buf), "%s", path);
        for (char *p = buf + 1;; p++) {
                if (*p != '/' && *p != '\0')
                        continue;
                char c = *p;
                *p = '\0';
                if (mkdir(buf, 0700) < 0 && errno != EEXIST)
                        return tsync_error_errno(err, "%s", buf);
                *p = c;
                if (c == '\0')
                        break;
        }
        struct stat st;
        if (lstat(path, &st) < 0)
                return tsync_error_errno(err, "%s", path);
        return tsync_check_private_dir(path, &st, err);
}

/* Whether DIR is gone, or is no longer the directory was. */
static bool vanished(const char *dir, const struct stat *was)
{
        struct stat now;
        if (lstat(dir, &now) < 0)
                return errno == ENOENT;
        return now.st_dev != was->st_dev || now.st_ino != was->st_ino;
}

/* Where a runtime we know (facts/runtimes.h, by its program's name) keeps
 * its containers without --root, as it reads our environment (we run it with
 * ours), or NULL. */
static const char *default_root(const char *runtime, char *buf, size_t size)
{
        const char *name = strrchr(runtime, '/');
        const struct tsync_runtime *rt = tsync_runtime_by_name(name ? name + 1 : runtime);
        if (!rt || !rt->global_value_opts)
                return NULL; /* not one whose command line we read */
        const char *env = rt->state_root_env ? getenv(rt->state_root_env) : NULL;
        return tsync_runtime_default_root(rt, env, (unsigned)geteuid(), buf, size) == 0 ? buf : NULL;
}

/* Records whose container its runtime no longer holds (ROOT/ID gone) are
 * removed: a delete that did not come through us (runc delete by hand, or
 * the runtime's own at the end of a `run`). At a delete, never a create: it
 * reads every record of the node, and a start must not cost more the more
 * containers run. */
static void prune(const char *base)
{
        _cleanup_closedir_ DIR *d = opendir(base);
        if (!d)
                return;
        for (struct dirent *e; (e = readdir(d));) {
                if (e->d_name[0] == '.')
                        continue;
                char sub[PATH_MAX];
                if (snprintf(sub, sizeof(sub), "%s/%s", base, e->d_name) >= (int)sizeof(sub))
                        continue;
                _cleanup_closedir_ DIR *s = opendir(sub);
                if (!s)
                        continue;
                for (struct dirent *f; (f = readdir(s));) {
                        if (f->d_name[0] == '.')
                                continue;
                        struct tsync_err err = { 0 };
                        _cleanup_free_ char *text = NULL;
                        size_t len;
                        if (tsync_read_file_at(dirfd(s), f->d_name, NULL, TSYNC_READ_REGULAR | TSYNC_READ_NOFOLLOW,
                                               RECORD_MAX, &text, &len, NULL, &err) < 0)
                                continue;
                        char *nl = strchr(text, '\n');
                        const char *root = nl ? nl + 1 : "";
                        size_t n = strcspn(root, "\n");
                        if (nl)
                                *nl = '\0';
                        char def[PATH_MAX];
                        if (n == 0)
                                root = default_root(text, def, sizeof(def));
                        if (!root)
                                continue; /* no --root, and not a runtime whose default we know */
                        if (n == 0)
                                n = strlen(root);
                        char state[PATH_MAX];
                        if (snprintf(state, sizeof(state), "%.*s/%s", (int)n, root, f->d_name) >= (int)sizeof(state))
                                continue;
                        struct stat st;
                        if (lstat(state, &st) < 0 && errno == ENOENT)
                                unlinkat(dirfd(s), f->d_name, 0);
                }
                rmdir(sub); /* fails while it holds a record */
        }
}

int rt_record_write(const struct rt_cmdline *cl, const char *runtime)
{
        char dir[PATH_MAX], file[PATH_MAX];
        struct tsync_err err = { 0 };
        int r = record_path(cl, dir, file);
        if (r == -ENOENT)
                return 0; /* rootless without XDG_RUNTIME_DIR: nowhere of the user's own to keep it */
        if (r == -EINVAL)
                return 0; /* no id: the runtime refuses the command itself */
        if (r < 0) {
                frontend_errorf(cl->id, "recording which runtime created it: %s", tsync_errtext(-r));
                return -1;
        }
        char abs[PATH_MAX];
        if (!realpath(runtime, abs)) {
                frontend_errorf(cl->id, "recording which runtime created it: %s: %s", runtime, tsync_errtext(errno));
                return -1;
        }
        /* A container of this id the runtime still holds keeps its record:
         * the runtime refuses this create itself. */
        char state[PATH_MAX];
        char def[PATH_MAX];
        const char *root = *state_root(cl) ? state_root(cl) : default_root(abs, def, sizeof(def));
        struct stat st;
        if (root && snprintf(state, sizeof(state), "%s/%s", root, cl->id) < (int)sizeof(state) &&
            lstat(state, &st) == 0)
                return 0;
        _cleanup_free_ char *text = NULL;
        int len = asprintf(&text, "%s\n%s\n", abs, state_root(cl));
        if (len < 0) {
                frontend_errorf(cl->id, "recording which runtime created it: %s", tsync_errtext(ENOMEM));
                return -1;
        }
        /* A delete beside this create prunes a directory it finds empty,
         * which may be ours between its mkdir and our write (the kernel then
         * answers ENOENT or EPERM): while the directory written into is no
         * longer there, it is made again. */
        for (int tries = 0;; tries++) {
                err = (struct tsync_err){ 0 };
                struct stat before;
                bool made = false; /* before holds the directory written into */
                r = make_private(dir, &err);
                if (r == 0 && lstat(dir, &before) < 0)
                        r = tsync_error_errno(&err, "%s", dir);
                else if (r == 0)
                        made = true;
                if (r == 0)
                        r = tsync_write_atomic(file, text, (size_t)len, 0600, false, &err);
                bool again = r == -ENOENT || (made && vanished(dir, &before));
                if (r == 0 || tries == RECORD_WRITE_TRIES || !again)
                        break;
        }
        if (r < 0) {
                frontend_errorf(cl->id, "recording which runtime created it: %s", err.msg);
                return -1;
        }
        return 1;
}

int rt_record_read(const struct rt_cmdline *cl, char *buf, size_t size)
{
        char dir[PATH_MAX], file[PATH_MAX];
        if (record_path(cl, dir, file) < 0)
                return 0;
        struct stat st;
        if (lstat(file, &st) < 0)
                return 0;
        if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 07777) != 0600) {
                rt_warn(cl,
                        "%s: %s, owned by uid %u with mode %04o: not believed (must be a file of uid %u, "
                        "0600): the runtime is chosen as if there were none",
                        file, S_ISLNK(st.st_mode) ? "a symbolic link" : "the record of its runtime",
                        (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), (unsigned)geteuid());
                return -1;
        }
        struct tsync_err err = { 0 };
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r = tsync_read_file_at(AT_FDCWD, file, NULL, TSYNC_READ_REGULAR | TSYNC_READ_NOFOLLOW, RECORD_MAX, &text,
                                   &len, &st, &err);
        /* Gone since the lstat: a delete beside this command pruned it (its
         * container was gone) or removed its own. As if there were none. */
        if (r == -ENOENT)
                return 0;
        if (r < 0 || st.st_uid != geteuid() || (st.st_mode & 07777) != 0600) {
                rt_warn(cl, "%s: not believed: %s", file, err.msg[0] ? err.msg : "changed under us");
                return -1;
        }
        size_t n = strcspn(text, "\n");
        if (n == 0 || text[0] != '/' || n >= size) {
                rt_warn(cl, "%s: not believed: no absolute path on its first line", file);
                return -1;
        }
        memcpy(buf, text, n);
        buf[n] = '\0';
        return 1;
}

void rt_record_remove(const struct rt_cmdline *cl)
{
        char dir[PATH_MAX], file[PATH_MAX];
        if (record_path(cl, dir, file) < 0)
                return;
        if (unlink(file) == 0)
                rmdir(dir); /* fails while other containers of this root have theirs */
        char base[PATH_MAX];
        if (base_dir(base, sizeof(base)) == 0)
                prune(base);
}
