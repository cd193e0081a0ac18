/* One container's state directory in a runtime's root: what it says
 * (runc's state.json, crun's status), and whether it is believed. Whoever can
 * write the root wrote these files: each read is bounded, no symbolic link is
 * followed, and the pid is believed only when the process running under it
 * now started when the state says, and belongs to the root's owner. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "node/node_find.h"
#include "shared/cleanup.h"
#include "status/status.h"
#include "util/fileio.h"
#include "util/json.h"
#include "util/quote.h"

/* runc's state.json holds the whole config (Podman's: 34 KB here). */
#define STATE_MAX (1u << 20)
/* /proc/PID/cgroup: one line a hierarchy. */
#define CGROUP_MAX (64u << 10)

static const char *const engine_names[] = {
        [TSYNC_NODE_RUNC] = "runc",     [TSYNC_NODE_CRUN] = "crun",     [TSYNC_NODE_CONTAINERD] = "containerd",
        [TSYNC_NODE_DOCKER] = "docker", [TSYNC_NODE_PODMAN] = "podman", [TSYNC_NODE_KUBERNETES] = "kubernetes",
};

const char *tsync_node_engine_name(enum tsync_node_engine e)
{
        return (size_t)e < ARRAY_SIZE(engine_names) ? engine_names[e] : "?";
}

const char *tsync_node_state_name(enum tsync_node_state s)
{
        static const char *const names[] = {
                [TSYNC_NODE_RUNNING] = "running", [TSYNC_NODE_PAUSED] = "paused", [TSYNC_NODE_CREATED] = "created"
        };
        return (size_t)s < ARRAY_SIZE(names) ? names[s] : "?";
}

void tsync_node_state_file_clear(struct tsync_node_state_file *f)
{
        free(f->bundle);
        free(f->manager);
        free(f->k8s_container);
        free(f->k8s_pod);
        free(f->k8s_pod_namespace);
        *f = (struct tsync_node_state_file){ 0 };
}

/* The annotations we read, by key: where each goes. */
static char **annotation_slot(struct tsync_node_state_file *f, const char *key, size_t len)
{
        static const struct {
                const char *key;
                size_t offset;
        } keys[] = {
                { "io.container.manager", offsetof(struct tsync_node_state_file, manager) },
                { "io.kubernetes.cri.container-name", offsetof(struct tsync_node_state_file, k8s_container) },
                { "io.kubernetes.cri.sandbox-name", offsetof(struct tsync_node_state_file, k8s_pod) },
                { "io.kubernetes.cri.sandbox-namespace", offsetof(struct tsync_node_state_file, k8s_pod_namespace) },
        };
        for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
                if (strlen(keys[i].key) == len && memcmp(keys[i].key, key, len) == 0)
                        return (char **)((char *)f + keys[i].offset);
        return NULL;
}

/* One annotation into its slot; a value with a NUL in it is no name. */
static int take_annotation(struct tsync_node_state_file *f, const char *key, size_t key_len, const char *value,
                           size_t value_len)
{
        char **slot = annotation_slot(f, key, key_len);
        if (!slot || memchr(value, '\0', value_len))
                return 0;
        free(*slot);
        *slot = strndup(value, value_len);
        return *slot ? 0 : -ENOMEM;
}

/* A number the state file gives: a JSON number of digits alone. */
static int number(const struct tsync_json *doc, const char *key, bool required, unsigned long long *ret,
                  struct tsync_err *err)
{
        const struct tsync_json *v = tsync_json_get(doc, key);
        if (!v && !required) {
                *ret = 0;
                return 0;
        }
        uint64_t n;
        int r = tsync_json_u64(v, key, &n, err);
        if (r < 0)
                return r;
        *ret = n;
        return 0;
}

int tsync_node_state_parse(enum tsync_node_format f, const char *text, size_t len, struct tsync_node_state_file *ret,
                           struct tsync_err *err)
{
        _cleanup_json_ struct tsync_json *doc = NULL;
        struct tsync_node_state_file s = { 0 };
        int r = tsync_json_parse(text, len, NULL, &doc, err);
        if (r < 0)
                return r;
        if (doc->type != TSYNC_JSON_OBJECT)
                return tsync_error(err, EINVAL, "not an object");
        bool runc = f == TSYNC_NODE_FORMAT_RUNC;
        r = number(doc, runc ? "init_process_pid" : "pid", true, &s.pid, err);
        if (r == 0)
                r = number(doc, runc ? "init_process_start" : "process-start-time", false, &s.start_time, err);
        if (r < 0)
                return r;
        if (runc) {
                /* runc keeps the bundle and the config's annotations as
                 * "key=value" labels. */
                const struct tsync_json *labels = tsync_json_get(tsync_json_get(doc, "config"), "labels");
                for (size_t i = 0; r == 0 && labels && labels->type == TSYNC_JSON_ARRAY && i < labels->u.array.len;
                     i++) {
                        const struct tsync_json *l = labels->u.array.items[i];
                        const char *eq =
                                l->type == TSYNC_JSON_STRING ? memchr(l->u.string.ptr, '=', l->u.string.len) : NULL;
                        if (!eq)
                                continue;
                        size_t klen = (size_t)(eq - l->u.string.ptr), vlen = l->u.string.len - klen - 1;
                        if (klen == 6 && memcmp(l->u.string.ptr, "bundle", 6) == 0 && !memchr(eq + 1, '\0', vlen)) {
                                free(s.bundle);
                                if (!(s.bundle = strndup(eq + 1, vlen)))
                                        r = -ENOMEM;
                        } else {
                                r = take_annotation(&s, l->u.string.ptr, klen, eq + 1, vlen);
                        }
                }
        } else {
                const struct tsync_json *b = tsync_json_get(doc, "bundle");
                if (b && b->type == TSYNC_JSON_STRING && !memchr(b->u.string.ptr, '\0', b->u.string.len) &&
                    !(s.bundle = strdup(b->u.string.ptr)))
                        r = -ENOMEM;
        }
        if (r < 0) {
                tsync_node_state_file_clear(&s);
                return tsync_error(err, ENOMEM, "out of memory");
        }
        *ret = s;
        return 0;
}

int tsync_node_state_annotations(const char *text, size_t len, struct tsync_node_state_file *f, struct tsync_err *err)
{
        _cleanup_json_ struct tsync_json *doc = NULL;
        int r = tsync_json_parse(text, len, TSYNC_CONFIG_LIMITS, &doc, err);
        if (r < 0)
                return r;
        const struct tsync_json *a = tsync_json_get(doc, "annotations");
        for (size_t i = 0; r == 0 && a && a->type == TSYNC_JSON_OBJECT && i < a->u.object.len; i++) {
                const struct tsync_json *v = a->u.object.values[i];
                if (v->type == TSYNC_JSON_STRING)
                        r = take_annotation(f, a->u.object.keys[i], strlen(a->u.object.keys[i]), v->u.string.ptr,
                                            v->u.string.len);
        }
        return r < 0 ? tsync_error(err, ENOMEM, "out of memory") : 0;
}

/* The process under pid now: its state letter, its start time, its parent.
 * -ENOENT when there is none. */
static int proc_stat(pid_t pid, char *ret_state, unsigned long long *ret_start, pid_t *ret_ppid)
{
        _cleanup_free_ char *line = NULL;
        const char *fields = NULL;
        int r = tsync_proc_stat_read(pid, &line, &fields, NULL);
        if (r < 0)
                return r == -ESRCH ? -ENOENT : r;
        int ppid = 0;
        /* fields starts at the 3rd (the state); the 22nd is the start time */
        if (sscanf(fields, " %c %d %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu", ret_state,
                   &ppid, ret_start) != 3)
                return -EIO;
        *ret_ppid = (pid_t)ppid;
        return 0;
}

/* Whether the process pid is uid's: its real uid, or the owner of its user
 * namespace (a rootless container's root maps to one of the user's ids). */
static bool process_of(pid_t pid, uid_t uid)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
        _cleanup_free_ char *text = NULL;
        size_t len;
        if (tsync_read_file_at(AT_FDCWD, path, NULL, 0, TSYNC_STATUS_FILE_MAX, &text, &len, NULL, NULL) == 0) {
                const char *u = strstr(text, "\nUid:");
                unsigned long real;
                if (u && sscanf(u + 5, "%lu", &real) == 1 && real == (unsigned long)uid)
                        return true;
        }
        (void)snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        uid_t owner;
        return fd >= 0 && ioctl(fd, NS_GET_OWNER_UID, &owner) == 0 && owner == uid;
}

/* Whether pid's freezer (cgroup v1's freezer.state, v2's cgroup.events) says
 * frozen: a paused container. */
static bool frozen(pid_t pid)
{
        char path[PATH_MAX];
        (void)snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
        _cleanup_free_ char *text = NULL;
        size_t len;
        if (tsync_read_file_at(AT_FDCWD, path, NULL, 0, CGROUP_MAX, &text, &len, NULL, NULL) < 0)
                return false;
        for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                const char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                if (!c2 || c2[1] != '/' || strstr(c2, "/.."))
                        continue;
                bool v2 = c2 == c1 + 1;
                if (!v2 && strncmp(c1 + 1, "freezer:", 8) != 0)
                        continue;
                /* Each hierarchy's mount point and the file that says frozen. */
                static const struct {
                        const char *mount, *file;
                } files[] = { { "/sys/fs/cgroup/freezer", "freezer.state" },
                              { "/sys/fs/cgroup", "cgroup.events" },
                              { "/sys/fs/cgroup/unified", "cgroup.events" } };
                for (size_t i = v2 ? 1 : 0; i < (v2 ? 3 : 1); i++) {
                        _cleanup_free_ char *state = NULL;
                        if (snprintf(path, sizeof(path), "%s%s/%s", files[i].mount, c2 + 1, files[i].file) >=
                                    (int)sizeof(path) ||
                            tsync_read_file_at(AT_FDCWD, path, NULL, TSYNC_READ_REGULAR, 4096, &state, &len, NULL,
                                               NULL) < 0)
                                continue;
                        if (v2 ? strstr(state, "frozen 1") != NULL : strncmp(state, "FROZEN", 6) == 0)
                                return true;
                }
        }
        return false;
}

/* Reads the state file of the directory open as dir: 1 read, 0 none of this
 * name, -errno with err (a symbolic link, too large, not ours). */
static int read_state(int dir, const char *name, uid_t owner, char **ret, size_t *ret_len, struct tsync_err *err)
{
        struct stat st;
        int r = tsync_read_file_at(dir, name, name, TSYNC_READ_NOFOLLOW | TSYNC_READ_REGULAR | TSYNC_READ_OPEN_NONBLOCK,
                                   STATE_MAX, ret, ret_len, &st, err);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        if (st.st_uid != owner) {
                free(*ret);
                *ret = NULL;
                return tsync_error(err, EPERM, "%s: owned by uid %u, not by the root's owner (uid %u)", name,
                                   (unsigned)st.st_uid, (unsigned)owner);
        }
        return 1;
}

/* Where the config is read: BUNDLE/config.json; when that is not on this
 * mount namespace's paths (an engine with a /run of its own), the bundle its
 * shim (the init's parent) runs in, if that directory is named by the id. */
static char *config_path(const char *bundle, const char *id, pid_t ppid)
{
        char *path = NULL;
        struct stat st;
        if (asprintf(&path, "%s/config.json", bundle) < 0)
                return NULL;
        if (lstat(path, &st) == 0 || errno != ENOENT || ppid <= 1)
                return path;
        char cwd[32], where[PATH_MAX];
        (void)snprintf(cwd, sizeof(cwd), "/proc/%d/cwd", (int)ppid);
        ssize_t n = readlink(cwd, where, sizeof(where) - 1);
        if (n <= 0)
                return path;
        where[n] = '\0';
        const char *base = strrchr(where, '/');
        if (!base || strcmp(base + 1, id) != 0)
                return path;
        free(path);
        return asprintf(&path, "%s/config.json", cwd) < 0 ? NULL : path;
}

bool tsync_node_container_runs(const struct tsync_node_container *c)
{
        char state;
        unsigned long long start;
        pid_t ppid;
        return proc_stat(c->pid, &state, &start, &ppid) == 0 && state != 'Z' && state != 'X' && start == c->start_time;
}

/* The parsed state believed: the pid is the process the state recorded, and
 * the root's owner's. 1 believed, 0 skipped (a warning unless stopped). */
static int believe(const char *where, uid_t owner, const struct tsync_node_state_file *s, char *ret_state,
                   pid_t *ret_ppid, struct tsync_warnings *w)
{
        if (s->pid == 0 || s->pid > INT_MAX)
                return tsync_warn(w, "%s: pid %llu is no process id: skipped", where, s->pid) < 0 ? -ENOMEM : 0;
        pid_t pid = (pid_t)s->pid;
        unsigned long long start;
        int r = proc_stat(pid, ret_state, &start, ret_ppid);
        if (r == -ENOENT || (r == 0 && (*ret_state == 'Z' || *ret_state == 'X')))
                return 0; /* stopped: its process is gone */
        if (r < 0)
                return tsync_warn(w, "%s: pid %d: /proc/%d/stat unreadable: skipped", where, (int)pid, (int)pid) < 0
                               ? -ENOMEM
                               : 0;
        if (s->start_time == 0)
                r = tsync_warn(w,
                               "%s: records no start time for pid %d, so it cannot be told from a process that took "
                               "the pid since: skipped",
                               where, (int)pid);
        else if (start != s->start_time)
                r = tsync_warn(w, "%s: pid %d started at %llu, not at %llu as recorded (stale, or forged): skipped",
                               where, (int)pid, start, s->start_time);
        else if (owner != 0 && !process_of(pid, owner))
                r = tsync_warn(w, "%s: pid %d is not a process of uid %u, whose root this is: skipped", where, (int)pid,
                               (unsigned)owner);
        else
                return 1;
        return r < 0 ? -ENOMEM : 0;
}

int tsync_node_state_read(int root_fd, const char *root, uid_t owner, const char *id, struct tsync_node_container *c,
                          struct tsync_warnings *w)
{
        /* The id is the name the root's writer chose: quoted for a terminal. */
        char where[PATH_MAX + TSYNC_QUOTED_MAX(NAME_MAX)], qid[TSYNC_QUOTED_MAX(NAME_MAX) + 1];
        (void)tsync_quote(qid, sizeof(qid), id, strlen(id));
        (void)snprintf(where, sizeof(where), "%s/%s", root, qid);
        _cleanup_close_ int dir = openat(root_fd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        /* O_DIRECTORY is checked first: a link is ENOTDIR, as a file is. */
        if (dir < 0 && (errno == ELOOP || errno == ENOTDIR) && fstatat(root_fd, id, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISLNK(st.st_mode))
                return tsync_warn(w, "%s: a symbolic link: not followed", where) < 0 ? -ENOMEM : 0;
        if (dir < 0)
                return 0; /* a file beside the containers (a lock), or gone meanwhile */
        if (fstat(dir, &st) < 0 || st.st_uid != owner)
                return tsync_warn(w, "%s: not owned by the root's owner (uid %u): skipped", where, (unsigned)owner) < 0
                               ? -ENOMEM
                               : 0;
        struct tsync_err err = { 0 };
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        enum tsync_node_format f = TSYNC_NODE_FORMAT_RUNC;
        int r = read_state(dir, "state.json", owner, &text, &len, &err);
        if (r == 0) {
                f = TSYNC_NODE_FORMAT_CRUN;
                r = read_state(dir, "status", owner, &text, &len, &err);
        }
        if (r == 0)
                return 0; /* no state (yet): a runtime between its mkdir and its write */
        _cleanup_(tsync_node_state_file_clear) struct tsync_node_state_file s = { 0 };
        if (r > 0 && (r = tsync_node_state_parse(f, text, len, &s, &err)) < 0 && r != -ENOMEM)
                (void)tsync_error_prefix(&err, "%s", f == TSYNC_NODE_FORMAT_RUNC ? "state.json" : "status");
        if (r == -ENOMEM)
                return r;
        char qmsg[TSYNC_QUOTED_MAX(sizeof(err.msg)) + 1];
        if (r < 0)
                return tsync_warn(w, "%s: %s: skipped", where,
                                  (tsync_quote(qmsg, sizeof(qmsg), err.msg, strlen(err.msg)), qmsg)) < 0
                               ? -ENOMEM
                               : 0;
        if (!s.bundle || s.bundle[0] != '/')
                return tsync_warn(w, "%s: names no absolute bundle: skipped", where) < 0 ? -ENOMEM : 0;
        /* crun keeps the config it ran with beside its status: its annotations
         * (Podman's mark, the CRI's names) are read there. */
        _cleanup_free_ char *config = NULL;
        struct stat cst;
        if (f == TSYNC_NODE_FORMAT_CRUN &&
            tsync_read_file_at(dir, "config.json", NULL, TSYNC_READ_NOFOLLOW | TSYNC_READ_REGULAR,
                               TSYNC_CONFIG_MAX_BYTES, &config, &len, &cst, NULL) == 0 &&
            cst.st_uid == owner && tsync_node_state_annotations(config, len, &s, &err) == -ENOMEM)
                return -ENOMEM;
        char pstate;
        pid_t ppid;
        r = believe(where, owner, &s, &pstate, &ppid, w);
        if (r <= 0)
                return r;
        struct stat fifo, cfg;
        char *path = config_path(s.bundle, id, ppid);
        /* A user's state names a config status will read as root: only one
         * of the user's own. */
        if (path && owner != 0 && stat(path, &cfg) == 0 && cfg.st_uid != owner) {
                free(path);
                return tsync_warn(w, "%s: its config is owned by uid %u, not by the root's owner (uid %u): skipped",
                                  where, (unsigned)cfg.st_uid, (unsigned)owner) < 0
                               ? -ENOMEM
                               : 0;
        }
        *c = (struct tsync_node_container){
                .engine = s.manager && strcmp(s.manager, "libpod") == 0 ? TSYNC_NODE_PODMAN
                          : f == TSYNC_NODE_FORMAT_RUNC                 ? TSYNC_NODE_RUNC
                                                                        : TSYNC_NODE_CRUN,
                .format = f,
                .state = fstatat(dir, "exec.fifo", &fifo, AT_SYMLINK_NOFOLLOW) == 0 ? TSYNC_NODE_CREATED
                         : frozen((pid_t)s.pid)                                     ? TSYNC_NODE_PAUSED
                                                                                    : TSYNC_NODE_RUNNING,
                .owner = owner,
                .pid = (pid_t)s.pid,
                .start_time = s.start_time,
                .id = strdup(id),
                .name = TAKE_PTR(s.k8s_container),
                .pod = TAKE_PTR(s.k8s_pod),
                .pod_namespace = TAKE_PTR(s.k8s_pod_namespace),
                .config = path,
                .bundle = TAKE_PTR(s.bundle),
        };
        if (!c->id || !c->config)
                return -ENOMEM;
        return 1;
}
