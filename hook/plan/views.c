/* inject's prepared views of a bundle's config and their exchange at a start
 * (plan/views.h has the layout and the crash model). */
#include "plan/views.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/rewrite.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/fileio.h"

#define LENT        "lent.json"
#define EXEC        "exec.json"
#define SWAP        "swap.json"
#define SUMMARY     "summary"
#define SUMMARY_MAX 4096
#define PROBE_A     ".probe-a"
#define PROBE_B     ".probe-b"

/* All a views directory holds but the record (a probe only after a crash in inject). */
static const char *const files[] = { LENT, EXEC, SWAP, SUMMARY, PROBE_A, PROBE_B };

int tsync_views_present(int bundle_fd)
{
        struct stat st;
        if (fstatat(bundle_fd, TSYNC_BUNDLE_VIEWS, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        return S_ISDIR(st.st_mode) ? 1 : -ENOTDIR;
}

int tsync_views_held(int bundle_fd)
{
        return faccessat(bundle_fd, TSYNC_BUNDLE_VIEWS "/" TSYNC_VIEWS_RUNNING, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

static bool same(const char *a, size_t alen, const char *b, size_t blen)
{
        return a && b && alen == blen && memcmp(a, b, alen) == 0;
}

static void classify(struct tsync_views *v)
{
        if (same(v->config, v->config_len, v->lent, v->lent_len) && same(v->swap, v->swap_len, v->exec, v->exec_len))
                v->state = TSYNC_VIEWS_LENT;
        else if (same(v->config, v->config_len, v->exec, v->exec_len) &&
                 same(v->swap, v->swap_len, v->lent, v->lent_len))
                v->state = TSYNC_VIEWS_EXEC;
        else
                v->state = TSYNC_VIEWS_OTHER;
}

/* The record's target, or "" when there is none. */
static int read_holder(struct tsync_views *v, const char *bundle, struct tsync_err *err)
{
        ssize_t n = readlinkat(v->dir_fd, TSYNC_VIEWS_RUNNING, v->holder, sizeof(v->holder));
        if (n < 0 && errno == ENOENT) {
                v->holder[0] = '\0';
                return 0;
        }
        if (n < 0 || (size_t)n >= sizeof(v->holder) || n == 0)
                return tsync_error(err, n < 0 ? errno : EINVAL, "%s/%s/%s: %s", bundle, TSYNC_BUNDLE_VIEWS,
                                   TSYNC_VIEWS_RUNNING, n < 0 ? tsync_errtext(errno) : "not a container's id");
        v->holder[n] = '\0';
        return 0;
}

int tsync_views_read(int bundle_fd, const char *bundle, struct tsync_views *v, struct tsync_err *err)
{
        v->bundle_fd = bundle_fd;
        v->dir_fd = openat(bundle_fd, TSYNC_BUNDLE_VIEWS, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (v->dir_fd < 0) {
                if (errno == ENOENT)
                        return -ENOENT;
                return tsync_error_errno(err, "%s/%s", bundle, TSYNC_BUNDLE_VIEWS);
        }
        struct stat st;
        int r = tsync_read_file_at(bundle_fd, "config.json", "config.json", TSYNC_READ_NOFOLLOW | TSYNC_READ_REGULAR,
                                   TSYNC_CONFIG_MAX_BYTES, &v->config, &v->config_len, &st, err);
        if (r < 0)
                return tsync_error_prefix(err, "%s", bundle);
        v->config_mode = st.st_mode & 07777;
        struct {
                const char *name;
                size_t max;
                char **text;
                size_t *len;
        } const want[] = {
                { SWAP, TSYNC_CONFIG_MAX_BYTES, &v->swap, &v->swap_len },
                { LENT, TSYNC_CONFIG_MAX_BYTES, &v->lent, &v->lent_len },
                { EXEC, TSYNC_CONFIG_MAX_BYTES, &v->exec, &v->exec_len },
                { SUMMARY, SUMMARY_MAX, &v->summary, NULL },
        };
        for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
                size_t len;
                r = tsync_read_file_at(v->dir_fd, want[i].name, want[i].name, TSYNC_READ_NOFOLLOW | TSYNC_READ_REGULAR,
                                       want[i].max, want[i].text, &len, NULL, err);
                if (r < 0)
                        return tsync_error_prefix(err, "%s/%s", bundle, TSYNC_BUNDLE_VIEWS);
                if (want[i].len)
                        *want[i].len = len;
        }
        r = read_holder(v, bundle, err);
        if (r < 0)
                return r;
        classify(v);
        return 0;
}

void tsync_views_clear(struct tsync_views *v)
{
        if (v->dir_fd >= 0)
                (void)close(v->dir_fd);
        free(v->config);
        free(v->swap);
        free(v->lent);
        free(v->exec);
        free(v->summary);
        *v = (struct tsync_views)TSYNC_VIEWS_INIT;
}

static int busy(const char *bundle, const char *holder, struct tsync_err *err)
{
        return tsync_error(err, EBUSY,
                           "%s/%s/%s: container '%s' started from this config and has not run its poststop hook: its "
                           "exec'd processes read their capabilities from config.json, so no other container may "
                           "start from it until then (if '%s' is gone, give its id and bundle to `oci-seccomp-tsync "
                           "hook poststop` as the OCI state on stdin)",
                           bundle, TSYNC_BUNDLE_VIEWS, TSYNC_VIEWS_RUNNING, holder, holder);
}

int tsync_views_hold(struct tsync_views *v, const char *bundle, const char *id, struct tsync_err *err)
{
        if (v->holder[0])
                return busy(bundle, v->holder, err);
        if (strlen(id) >= sizeof(v->holder))
                return tsync_error(err, ENAMETOOLONG, "container id '%s': too long", id);
        if (symlinkat(id, v->dir_fd, TSYNC_VIEWS_RUNNING) < 0) {
                int e = errno;
                if (e == EEXIST && read_holder(v, bundle, err) == 0 && v->holder[0])
                        return busy(bundle, v->holder, err);
                return tsync_error(err, e, "%s/%s/%s: %s", bundle, TSYNC_BUNDLE_VIEWS, TSYNC_VIEWS_RUNNING,
                                   tsync_errtext(e));
        }
        (void)snprintf(v->holder, sizeof(v->holder), "%s", id);
        return 0;
}

int tsync_views_release(struct tsync_views *v, const char *bundle, struct tsync_err *err)
{
        if (unlinkat(v->dir_fd, TSYNC_VIEWS_RUNNING, 0) < 0 && errno != ENOENT)
                return tsync_error_errno(err, "%s/%s/%s", bundle, TSYNC_BUNDLE_VIEWS, TSYNC_VIEWS_RUNNING);
        v->holder[0] = '\0';
        return 0;
}

int tsync_views_exchange(struct tsync_views *v, const char *bundle, struct tsync_err *err)
{
        if (tsync_renameat2(v->bundle_fd, "config.json", v->dir_fd, SWAP, TSYNC_RENAME_EXCHANGE) < 0)
                return tsync_error_errno(err, "%s: exchanging config.json and %s/%s", bundle, TSYNC_BUNDLE_VIEWS, SWAP);
        char *t = v->config;
        size_t n = v->config_len;
        v->config = v->swap;
        v->config_len = v->swap_len;
        v->swap = t;
        v->swap_len = n;
        classify(v);
        return 0;
}

/* Makes the views directory (0755: the hooks of a rootless runtime run as
 * the bundle's user) and opens it. */
static int open_dir(int bundle_fd, const char *bundle, bool create, struct tsync_err *err)
{
        if (create && mkdirat(bundle_fd, TSYNC_BUNDLE_VIEWS, 0755) < 0 && errno != EEXIST)
                return tsync_error_errno(err, "%s/%s", bundle, TSYNC_BUNDLE_VIEWS);
        int fd = openat(bundle_fd, TSYNC_BUNDLE_VIEWS, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return tsync_error_errno(err, "%s/%s", bundle, TSYNC_BUNDLE_VIEWS);
        return fd;
}

int tsync_views_supported(int bundle_fd, const char *bundle, struct tsync_err *err)
{
        static const char *const probe[] = { PROBE_A, PROBE_B };
        int present = tsync_views_present(bundle_fd);
        if (present < 0)
                return tsync_error(err, -present, "%s/%s: %s", bundle, TSYNC_BUNDLE_VIEWS, tsync_errtext(-present));
        _cleanup_close_ int dir = open_dir(bundle_fd, bundle, true, err);
        if (dir < 0)
                return dir;
        int r = 0;
        for (size_t i = 0; r == 0 && i < 2; i++) {
                int fd = openat(dir, probe[i], O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
                if (fd < 0)
                        r = tsync_error_errno(err, "%s/%s/%s", bundle, TSYNC_BUNDLE_VIEWS, probe[i]);
                else
                        (void)close(fd);
        }
        int supported = 0;
        if (r == 0)
                supported = tsync_renameat2(dir, probe[0], dir, probe[1], TSYNC_RENAME_EXCHANGE) == 0;
        for (size_t i = 0; i < 2; i++)
                (void)unlinkat(dir, probe[i], 0);
        /* A directory made only for the probe does not stay. */
        if (!present && (r < 0 || !supported))
                (void)unlinkat(bundle_fd, TSYNC_BUNDLE_VIEWS, AT_REMOVEDIR);
        return r < 0 ? r : supported;
}

/* name in dfd (dir names it in messages), durable. */
static int write_durable(int dfd, const char *dir, const char *name, const char *text, size_t len, mode_t mode,
                         struct tsync_err *err)
{
        char path[4096 + 64];
        (void)snprintf(path, sizeof(path), "%s/%s", dir, name);
        return tsync_write_at(dfd, path, name, text, len, mode, TSYNC_WRITE_DURABLE, err);
}

int tsync_views_write(int bundle_fd, const char *bundle, const struct tsync_views_text *t, mode_t mode,
                      struct tsync_err *err)
{
        char dir[4096];
        (void)snprintf(dir, sizeof(dir), "%s/%s", bundle, TSYNC_BUNDLE_VIEWS);
        struct tsync_views v = TSYNC_VIEWS_INIT;
        v.dir_fd = open_dir(bundle_fd, bundle, true, err);
        if (v.dir_fd < 0)
                return v.dir_fd;
        int r = read_holder(&v, bundle, err);
        bool running = r == 0 && v.holder[0];
        const char *config = running ? t->exec : t->lent, *swap = running ? t->lent : t->exec;
        size_t config_len = running ? t->exec_len : t->lent_len, swap_len = running ? t->lent_len : t->exec_len;
        if (r == 0)
                r = write_durable(v.dir_fd, dir, LENT, t->lent, t->lent_len, mode, err);
        if (r == 0)
                r = write_durable(v.dir_fd, dir, EXEC, t->exec, t->exec_len, mode, err);
        if (r == 0)
                r = write_durable(v.dir_fd, dir, SWAP, swap, swap_len, mode, err);
        if (r == 0)
                r = write_durable(v.dir_fd, dir, SUMMARY, t->summary, strlen(t->summary), 0644, err);
        if (r == 0)
                r = write_durable(bundle_fd, bundle, "config.json", config, config_len, mode, err);
        tsync_views_clear(&v);
        return r;
}

int tsync_views_remove(int bundle_fd, const char *bundle, struct tsync_err *err)
{
        struct tsync_views v = TSYNC_VIEWS_INIT;
        int present = tsync_views_present(bundle_fd);
        if (present <= 0)
                return present < 0 ? tsync_error(err, -present, "%s/%s: %s", bundle, TSYNC_BUNDLE_VIEWS,
                                                 tsync_errtext(-present))
                                   : 0;
        v.dir_fd = open_dir(bundle_fd, bundle, false, err);
        if (v.dir_fd < 0)
                return v.dir_fd;
        int r = read_holder(&v, bundle, err);
        if (r == 0 && v.holder[0])
                r = busy(bundle, v.holder, err);
        for (size_t i = 0; r == 0 && i < ARRAY_SIZE(files); i++)
                if (unlinkat(v.dir_fd, files[i], 0) < 0 && errno != ENOENT)
                        r = tsync_error_errno(err, "%s/%s/%s", bundle, TSYNC_BUNDLE_VIEWS, files[i]);
        if (r == 0 && unlinkat(bundle_fd, TSYNC_BUNDLE_VIEWS, AT_REMOVEDIR) < 0)
                r = tsync_error_errno(err, "%s/%s", bundle, TSYNC_BUNDLE_VIEWS);
        tsync_views_clear(&v);
        return r;
}

int tsync_views_open(const char *bundle, int *ret_fd, struct tsync_err *err)
{
        _cleanup_close_ int fd = open(bundle, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return 0;
        int r = tsync_views_present(fd);
        if (r <= 0)
                return r < 0 ? tsync_error(err, -r, "%s/%s: %s", bundle, TSYNC_BUNDLE_VIEWS, tsync_errtext(-r)) : 0;
        if (flock(fd, LOCK_EX) < 0)
                return tsync_error_errno(err, "%s: cannot lock", bundle);
        *ret_fd = TAKE_FD(fd);
        return 1;
}
