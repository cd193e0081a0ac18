/* lockdown: the container's freezer. Freezing first means no task forks,
 * clones or execs while the others are being seized; a cgroup shared with
 * anything outside the container is refused rather than frozen. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lockdown/lockdown.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/fileio.h"

/* Where a hierarchy is mounted in our mount namespace: cgroup2, or the v1
 * one with the freezer controller. Line by line up to the first match: a
 * host's mountinfo can run to thousands of lines. */
static int mount_point(bool v1, char *buf, size_t size)
{
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        if (!f)
                return -errno;
        char line[4096];
        while (fgets(line, sizeof(line), f)) {
                char root[1024], mnt[1024], fstype[64], opts[1024];
                const char *sep = strstr(line, " - ");
                if (!sep || sscanf(line, "%*s %*s %*s %1023s %1023s", root, mnt) != 2 ||
                    sscanf(sep + 3, "%63s %*s %1023s", fstype, opts) != 2)
                        continue;
                if (strcmp(root, "/") != 0)
                        continue;
                if (!v1 && strcmp(fstype, "cgroup2") == 0) {
                        (void)snprintf(buf, size, "%s", mnt);
                        return 0;
                }
                if (v1 && strcmp(fstype, "cgroup") == 0 && strstr(opts, "freezer")) {
                        (void)snprintf(buf, size, "%s", mnt);
                        return 0;
                }
        }
        return -ENOENT;
}

static bool in_list(pid_t p, const pid_t *pids, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (pids[i] == p)
                        return true;
        return false;
}

/* The container: the pids read, and its pid namespace, where a process that
 * started since they were read (a fork storm) is the container's too. */
struct container {
        const pid_t *pids;
        size_t n_pids;
        struct stat ns;
};

static bool in_container(const struct container *c, pid_t p)
{
        if (in_list(p, c->pids, c->n_pids))
                return true;
        char path[64];
        struct stat st;
        (void)snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)p);
        if (stat(path, &st) < 0)
                return errno == ENOENT || errno == ESRCH; /* gone: it is in nothing any more */
        return st.st_dev == c->ns.st_dev && st.st_ino == c->ns.st_ino;
}

/* Every process in dir and in every cgroup below it (a freeze reaches them
 * all) must be the container's: 0, or -EPERM with why. cgroup.procs is
 * scanned pid by pid up to the first stranger: it has no bound of its own. */
static int only_container(const char *dir, const struct container *c, int depth, struct tsync_err *err)
{
        char path[4200];
        (void)snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
        _cleanup_fclose_ FILE *p = fopen(path, "re");
        if (!p)
                return tsync_error_errno(err, "%s", path);
        int other;
        while (fscanf(p, "%d", &other) == 1)
                if (!in_container(c, other))
                        return tsync_error(err, EPERM, "%s holds pid %d, which is not in the container", dir, other);
        if (depth > 64)
                return tsync_error(err, ELOOP, "%s: cgroups nested too deep", dir);
        _cleanup_closedir_ DIR *d = opendir(dir);
        if (!d)
                return tsync_error_errno(err, "%s", dir);
        struct dirent *e;
        while ((e = readdir(d))) {
                if (e->d_type != DT_DIR || e->d_name[0] == '.')
                        continue;
                char sub[4200];
                int n = snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
                if (n < 0 || (size_t)n >= sizeof(sub))
                        return tsync_error(err, ENAMETOOLONG, "%s: path too long", dir);
                int r = only_container(sub, c, depth + 1, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The freezer of one hierarchy (cg: pid's path in it) when it is the
 * container's alone; else -EPERM with why. */
static int try_hierarchy(bool v1, const char *cg, const struct container *c, struct tsync_lockdown_cgroup *ret,
                         struct tsync_err *err)
{
        const char *name = v1 ? "the v1 freezer hierarchy" : "cgroup2";
        char mnt[2048];
        if (!cg[0] || mount_point(v1, mnt, sizeof(mnt)) < 0)
                return tsync_error(err, ENOENT, "%s: not mounted", name);
        if (strcmp(cg, "/") == 0 || strstr(cg, "(deleted)"))
                return tsync_error(err, EPERM, "%s: the container has no cgroup of its own (it is in %s)", name, cg);
        int n = snprintf(ret->dir, sizeof(ret->dir), "%s%s", mnt, cg);
        if (n < 0 || (size_t)n >= sizeof(ret->dir))
                return tsync_error(err, ENAMETOOLONG, "%s: path too long", cg);
        int r = only_container(ret->dir, c, 0, err);
        if (r < 0)
                return tsync_error_prefix(err, "%s: shared", name);
        ret->v1 = v1;
        return 0;
}

/* pid's paths in the v1 freezer hierarchy and in cgroup2 ("" when it is in
 * none), from /proc/PID/cgroup. */
static int cgroup_paths(pid_t pid, char *v1path, char *v2path, size_t size, struct tsync_err *err)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
        _cleanup_free_ char *text = NULL;
        size_t len;
        /* A line per v1 hierarchy and cgroup2's, each a path of at most PATH_MAX. */
        int r = tsync_read_file_at(AT_FDCWD, path, path, 0, 64 * PATH_MAX, &text, &len, NULL, err);
        if (r < 0)
                return r;
        v1path[0] = v2path[0] = '\0';
        for (char *lines, *line = strtok_r(text, "\n", &lines); line; line = strtok_r(NULL, "\n", &lines)) {
                char *c1 = strchr(line, ':');
                char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                if (!c2)
                        continue;
                *c1 = '\0';
                *c2 = '\0';
                const char *ctl = c1 + 1;
                if (strcmp(line, "0") == 0 && *ctl == '\0')
                        (void)snprintf(v2path, size, "%s", c2 + 1);
                else {
                        for (char *save, *tok = strtok_r(c1 + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
                                if (strcmp(tok, "freezer") == 0)
                                        (void)snprintf(v1path, size, "%s", c2 + 1);
                }
        }
        return 0;
}

/* The v1 freezer's cgroup is taken first (on a hybrid host the v2 one may be
 * an engine's whole tree, or /), then cgroup2's: the first that holds the
 * container alone, with everything below it. None: refused, with each
 * hierarchy's reason, never something larger frozen (crun run with
 * --cgroup-manager=disabled stays in its caller's cgroup). */
int tsync_lockdown_cgroup_find(pid_t pid, const pid_t *pids, size_t n_pids, struct tsync_lockdown_cgroup *ret,
                               struct tsync_err *err)
{
        char path[64], v1path[4096], v2path[4096];
        int r = cgroup_paths(pid, v1path, v2path, sizeof(v1path), err);
        if (r < 0)
                return r;
        (void)snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
        ret->frozen = false;
        struct container c = { .pids = pids, .n_pids = n_pids };
        char ns[64];
        (void)snprintf(ns, sizeof(ns), "/proc/%d/ns/pid", (int)pid);
        if (stat(ns, &c.ns) < 0)
                return tsync_error_errno(err, "%s", ns);
        struct tsync_err e1 = { 0 }, e2 = { 0 };
        if (try_hierarchy(true, v1path, &c, ret, &e1) == 0 || try_hierarchy(false, v2path, &c, ret, &e2) == 0)
                return 0;
        return tsync_error(err, EPERM, "%s: it cannot be frozen alone: %s; %s", path, e1.msg, e2.msg);
}

static int write_file(const char *path, const char *value)
{
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = write(fd, value, strlen(value));
        if (n < 0)
                return -errno;
        return 0;
}

/* v2: cgroup.events says "frozen 1"; v1: freezer.state says FROZEN (or
 * FREEZING: on its way, by someone). */
static int is_frozen(const struct tsync_lockdown_cgroup *cg, bool or_freezing)
{
        char path[4200];
        (void)snprintf(path, sizeof(path), "%s/%s", cg->dir, cg->v1 ? "freezer.state" : "cgroup.events");
        _cleanup_free_ char *buf = NULL;
        size_t len;
        /* "populated 1\nfrozen 0\n", or "THAWED\n" */
        int r = tsync_read_file_at(AT_FDCWD, path, NULL, 0, 4096, &buf, &len, NULL, NULL);
        if (r < 0)
                return r;
        if (cg->v1)
                return strncmp(buf, "FROZEN", 6) == 0 || (or_freezing && strncmp(buf, "FREEZING", 8) == 0);
        return strstr(buf, "frozen 1") != NULL;
}

int tsync_lockdown_cgroup_frozen(const struct tsync_lockdown_cgroup *cg)
{
        int r = is_frozen(cg, true);
        if (r < 0)
                return r;
        if (!r && !cg->v1) {
                /* v2: asked to freeze (cgroup.freeze 1) but not there yet counts too */
                char path[4200];
                _cleanup_free_ char *buf = NULL;
                size_t len;
                (void)snprintf(path, sizeof(path), "%s/cgroup.freeze", cg->dir);
                if (tsync_read_file_at(AT_FDCWD, path, NULL, 0, 64, &buf, &len, NULL, NULL) == 0 && buf[0] == '1')
                        r = 1;
        }
        return r ? -EBUSY : 0;
}

int tsync_lockdown_freeze(struct tsync_lockdown_cgroup *cg, struct tsync_err *err)
{
        char path[4200];
        (void)snprintf(path, sizeof(path), "%s/%s", cg->dir, cg->v1 ? "freezer.state" : "cgroup.freeze");
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return tsync_error_errno(err, "%s", path);
        /* The watchdog holds the descriptor before the cgroup is frozen: if
         * lockdown dies from here on, it thaws what lockdown froze. */
        int r = tsync_lockdown_watchdog_frozen(cg->watchdog, fd, cg->v1);
        if (r < 0)
                return tsync_error(err, -r, "the watchdog that thaws the cgroup should lockdown die: %s; not frozen",
                                   tsync_errtext(-r));
        cg->frozen = true;
        if (write(fd, cg->v1 ? "FROZEN" : "1", cg->v1 ? 6 : 1) < 0)
                return tsync_error_errno(err, "%s", path);
        /* cgroup.events is pollable (POLLPRI on change); freezer.state is
         * not: both are read again after a short sleep, up to 10 s. */
        for (int i = 0; i < TSYNC_LOCKDOWN_FREEZE_MS; i++) {
                r = is_frozen(cg, false);
                if (r < 0)
                        return tsync_error(err, -r, "%s: %s", cg->dir, tsync_errtext(-r));
                if (r > 0)
                        return 0;
                if (tsync_lockdown_cancelled)
                        return tsync_error(err, EINTR, "%s: lockdown was interrupted while the cgroup froze", cg->dir);
                (void)poll(NULL, 0, 1);
        }
        return tsync_error(err, ETIMEDOUT, "%s: not frozen after %d ms", cg->dir, TSYNC_LOCKDOWN_FREEZE_MS);
}

int tsync_lockdown_thaw(struct tsync_lockdown_cgroup *cg, struct tsync_err *err)
{
        if (!cg->frozen)
                return 0;
        char path[4200];
        (void)snprintf(path, sizeof(path), "%s/%s", cg->dir, cg->v1 ? "freezer.state" : "cgroup.freeze");
        int r = write_file(path, cg->v1 ? "THAWED" : "0");
        if (r < 0)
                return tsync_error(err, -r, "%s: %s", path, tsync_errtext(-r));
        cg->frozen = false;
        (void)tsync_lockdown_watchdog_thawed(cg->watchdog);
        return 0;
}

/* The tids in dir's file and below, read number by number: a cgroup's task list has no bound of its own. */
static int add_tids(const char *dir, const char *file, pid_t **tids, size_t *n, size_t *cap)
{
        char path[4200];
        (void)snprintf(path, sizeof(path), "%s/%s", dir, file);
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return -errno;
        int t;
        while (fscanf(f, "%d", &t) == 1) {
                if (*n == *cap) {
                        size_t c = *cap ? *cap * 2 : 256;
                        pid_t *p = realloc(*tids, c * sizeof(*p));
                        if (!p)
                                return -ENOMEM;
                        *tids = p;
                        *cap = c;
                }
                (*tids)[(*n)++] = (pid_t)t;
        }
        /* Its sub-cgroups are frozen with it: their tasks are the container's too. */
        _cleanup_closedir_ DIR *d = opendir(dir);
        if (!d)
                return -errno;
        struct dirent *e;
        while ((e = readdir(d)))
                if (e->d_type == DT_DIR && e->d_name[0] != '.') {
                        char sub[4200];
                        int w = snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
                        if (w < 0 || (size_t)w >= sizeof(sub))
                                return -ENAMETOOLONG;
                        int r = add_tids(sub, file, tids, n, cap);
                        if (r < 0)
                                return r;
                }
        return 0;
}

int tsync_lockdown_cgroup_tids(const struct tsync_lockdown_cgroup *cg, pid_t **ret, size_t *n)
{
        size_t cap = 0;
        *ret = NULL;
        *n = 0;
        int r = add_tids(cg->dir, cg->v1 ? "tasks" : "cgroup.threads", ret, n, &cap);
        if (r < 0) {
                free(*ret);
                *ret = NULL;
                *n = 0;
        }
        return r;
}

int tsync_lockdown_cgroup_procs(pid_t pid, pid_t **ret, size_t *n, struct tsync_err *err)
{
        char v1path[4096], v2path[4096];
        int r = cgroup_paths(pid, v1path, v2path, sizeof(v1path), err);
        if (r < 0)
                return r;
        size_t cap = 0;
        *ret = NULL;
        *n = 0;
        for (int v1 = 1; v1 >= 0; v1--) {
                const char *cg = v1 ? v1path : v2path;
                char mnt[2048], dir[4096];
                /* The root is never frozen (try_hierarchy): its processes are not the container's. */
                if (!cg[0] || strcmp(cg, "/") == 0 || strstr(cg, "(deleted)") || mount_point(v1, mnt, sizeof(mnt)) < 0)
                        continue;
                int w = snprintf(dir, sizeof(dir), "%s%s", mnt, cg);
                if (w < 0 || (size_t)w >= sizeof(dir))
                        r = -ENAMETOOLONG;
                else
                        r = add_tids(dir, "cgroup.procs", ret, n, &cap);
                if (r < 0) {
                        free(*ret);
                        *ret = NULL;
                        *n = 0;
                        return tsync_error(err, -r, "%s: listing its processes: %s", dir, tsync_errtext(-r));
                }
        }
        return 0;
}
