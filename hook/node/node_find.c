/* Every container on the node (node_find.h): the state roots, walked in
 * order, each container kept once; and the names the engines give them,
 * where a file of the engine's beside the container's bundle says it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts/runtimes.h"
#include "node/node_find.h"
#include "plan/plan.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/fileio.h"
#include "util/json.h"

/* A root holding more entries is read no further (a hostile root's flood). */
#define ENTRIES_MAX 65536
/* The roots the wrapper's records may add: each one a scan. */
#define RECORD_ROOTS_MAX 64
/* The wrapper's record: a program's path and a root (creator.c's RECORD_MAX). */
#define RECORD_MAX 8192
/* Docker's config.v2.json of one container; Podman's containers.json of them all. */
#define DOCKER_CONFIG_MAX     (4u << 20)
#define PODMAN_CONTAINERS_MAX (64u << 20)

/* The node's engines' roots, each namespace a directory. */
static const char *const containerd_root = "/run/containerd/runc";
static const char *const docker_root = "/run/docker/runtime-runc";

struct scan {
        struct tsync_node_container *c;
        size_t n, cap;
        char **roots; /* every root scanned, so that none is scanned twice */
        size_t n_roots;
        struct tsync_warnings *w;
        /* The last containers.json of Podman read, for its neighbours. */
        char *podman_path;
        struct tsync_json *podman;
};

static void container_clear(struct tsync_node_container *c)
{
        free(c->id);
        free(c->name);
        free(c->namespace);
        free(c->pod);
        free(c->pod_namespace);
        free(c->root);
        free(c->bundle);
        free(c->config);
        *c = (struct tsync_node_container){ 0 };
}

void tsync_node_containers_free(struct tsync_node_container *c, size_t n)
{
        for (size_t i = 0; c && i < n; i++)
                container_clear(&c[i]);
        free(c);
}

static int warn_oom(int r)
{
        return r < 0 ? -ENOMEM : 0;
}

/* A JSON file of an engine's, named by a path the state gave: read only
 * when the root's owner owns it, no symbolic link at its end, bounded. */
static struct tsync_json *engine_file(const char *path, uid_t owner, size_t max)
{
        _cleanup_free_ char *text = NULL;
        size_t len;
        struct stat st;
        struct tsync_json *doc = NULL;
        if (tsync_read_file_at(AT_FDCWD, path, NULL, TSYNC_READ_NOFOLLOW | TSYNC_READ_REGULAR, max, &text, &len, &st,
                               NULL) < 0 ||
            st.st_uid != owner)
                return NULL;
        return tsync_json_parse(text, len, &(const struct tsync_json_limits){ .max_bytes = max }, &doc, NULL) == 0
                       ? doc
                       : NULL;
}

static char *json_string(const struct tsync_json *v)
{
        return v && v->type == TSYNC_JSON_STRING && !memchr(v->u.string.ptr, '\0', v->u.string.len)
                       ? strdup(v->u.string.ptr)
                       : NULL;
}

/* Docker's data root by default. */
static const char *const docker_data_root = "/var/lib/docker";

/* Docker 20.10's bundle, with the containerd it runs itself
 * (EXEC_ROOT/containerd/daemon/io.containerd.runtime.v2.task/moby/ID), links
 * its work directory into the data root (DATA_ROOT/containerd/daemon/...),
 * whose containers/ID/config.v2.json names the container ("/NAME"); with the
 * node's containerd, the data root is the default one. */
static char *docker_name(const struct tsync_node_container *c)
{
        static const char tail[] = "/containerd/daemon/io.containerd.runtime.v2.task/";
        char work[PATH_MAX], target[PATH_MAX];
        if (snprintf(work, sizeof(work), "%s/work", c->bundle) >= (int)sizeof(work))
                return NULL;
        ssize_t n = readlink(work, target, sizeof(target) - 1);
        char *at = NULL;
        if (n > 0) {
                target[n] = '\0';
                at = strstr(target, tail);
        }
        if (at && target[0] == '/')
                *at = '\0';
        else
                (void)snprintf(target, sizeof(target), "%s", docker_data_root);
        char path[PATH_MAX];
        if (snprintf(path, sizeof(path), "%s/containers/%s/config.v2.json", target, c->id) >= (int)sizeof(path))
                return NULL;
        _cleanup_json_ struct tsync_json *doc = engine_file(path, c->owner, DOCKER_CONFIG_MAX);
        char *name = json_string(tsync_json_get(doc, "Name"));
        if (name && name[0] == '/')
                memmove(name, name + 1, strlen(name));
        return name;
}

/* Podman's bundle is STORAGE/<driver>-containers/ID/userdata; its
 * containers.json there lists every container's id and names. */
static char *podman_name(struct scan *s, const struct tsync_node_container *c)
{
        size_t len = strlen(c->bundle), idlen = strlen(c->id);
        static const char userdata[] = "/userdata";
        if (len < sizeof(userdata) + idlen || strcmp(c->bundle + len - (sizeof(userdata) - 1), userdata) != 0)
                return NULL;
        const char *id = c->bundle + len - (sizeof(userdata) - 1) - idlen;
        if (id[-1] != '/' || strncmp(id, c->id, idlen) != 0)
                return NULL;
        _cleanup_free_ char *path = NULL;
        if (asprintf(&path, "%.*scontainers.json", (int)(id - c->bundle), c->bundle) < 0)
                return NULL;
        if (!s->podman_path || strcmp(s->podman_path, path) != 0) {
                tsync_json_free(s->podman);
                free(s->podman_path);
                s->podman = engine_file(path, c->owner, PODMAN_CONTAINERS_MAX);
                s->podman_path = TAKE_PTR(path);
        }
        for (size_t i = 0; s->podman && s->podman->type == TSYNC_JSON_ARRAY && i < s->podman->u.array.len; i++) {
                const struct tsync_json *e = s->podman->u.array.items[i];
                const struct tsync_json *v = tsync_json_get(e, "id"), *names = tsync_json_get(e, "names");
                if (v && v->type == TSYNC_JSON_STRING && strcmp(v->u.string.ptr, c->id) == 0 && names &&
                    names->type == TSYNC_JSON_ARRAY && names->u.array.len > 0)
                        return json_string(names->u.array.items[0]);
        }
        return NULL;
}

static bool known_pid(const struct scan *s, pid_t pid)
{
        for (size_t i = 0; i < s->n; i++)
                if (s->c[i].pid == pid)
                        return true;
        return false;
}

/* One container directory of a root: read, believed, named, kept. */
static int take(struct scan *s, int root_fd, const char *root, uid_t owner, const char *ns, const char *id)
{
        struct tsync_node_container c = { 0 };
        int r = tsync_node_state_read(root_fd, root, owner, id, &c, s->w);
        if (r <= 0 || known_pid(s, c.pid)) {
                container_clear(&c);
                return r < 0 ? r : 0;
        }
        if (ns) {
                c.engine = strcmp(ns, "k8s.io") == 0 ? TSYNC_NODE_KUBERNETES
                           : strcmp(ns, "moby") == 0 ? TSYNC_NODE_DOCKER
                                                     : TSYNC_NODE_CONTAINERD;
                c.namespace = strdup(ns);
        }
        c.root = strdup(root);
        if (!c.name && c.engine == TSYNC_NODE_DOCKER)
                c.name = docker_name(&c);
        else if (!c.name && c.engine == TSYNC_NODE_PODMAN)
                c.name = podman_name(s, &c);
        if (!c.root || (ns && !c.namespace)) {
                container_clear(&c);
                return -ENOMEM;
        }
        if (s->n == s->cap) {
                struct tsync_node_container *grown = reallocarray(s->c, s->cap * 2 + 8, sizeof(*s->c));
                if (!grown) {
                        container_clear(&c);
                        return -ENOMEM;
                }
                s->c = grown;
                s->cap = s->cap * 2 + 8;
        }
        s->c[s->n++] = c;
        return 0;
}

static int by_name(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_free(char **names, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
}

/* The entries of the directory open as fd, sorted (a stable output), at
 * most ENTRIES_MAX; fd stays the caller's. 0 (none when it cannot be read),
 * or -ENOMEM. */
static int entries(int fd, const char *where, char ***ret, size_t *ret_n, struct tsync_warnings *w)
{
        *ret = NULL;
        *ret_n = 0;
        int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (dup_fd < 0)
                return 0;
        _cleanup_closedir_ DIR *d = fdopendir(dup_fd);
        if (!d) {
                (void)close(dup_fd);
                return 0;
        }
        char **names = NULL;
        size_t n = 0;
        for (struct dirent *e; (e = readdir(d));) {
                if (e->d_name[0] == '.')
                        continue;
                if (n == ENTRIES_MAX) {
                        (void)tsync_warn(w, "%s: more than %d entries: the rest not read", where, ENTRIES_MAX);
                        break;
                }
                if (n % 64 == 0) {
                        char **grown = reallocarray(names, n + 64, sizeof(*names));
                        if (!grown) {
                                names_free(names, n);
                                return -ENOMEM;
                        }
                        names = grown;
                }
                if (!(names[n] = strdup(e->d_name))) {
                        names_free(names, n);
                        return -ENOMEM;
                }
                n++;
        }
        if (n)
                qsort(names, n, sizeof(*names), by_name);
        *ret = names;
        *ret_n = n;
        return 0;
}

/* A directory of the root's, open without following a symbolic link, and
 * its owner; -1 (with a warning for a link or a directory others can write
 * into) when it is not read. */
static int open_dir(int at, const char *name, const char *where, struct stat *st, struct tsync_warnings *w, int *r)
{
        int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                /* O_DIRECTORY is checked first: a link is ENOTDIR, as a file is. */
                if ((errno == ELOOP || errno == ENOTDIR) && fstatat(at, name, st, AT_SYMLINK_NOFOLLOW) == 0 &&
                    S_ISLNK(st->st_mode))
                        *r = warn_oom(tsync_warn(w, "%s: a symbolic link: not followed", where));
                return -1;
        }
        if (fstat(fd, st) < 0 || (st->st_mode & (S_IWGRP | S_IWOTH))) {
                *r = warn_oom(tsync_warn(w, "%s: writable by others than its owner: not read", where));
                (void)close(fd);
                return -1;
        }
        return fd;
}

/* Every container of a root of the layout; a namespace's containers under
 * ns (NULL: a runtime's root). */
static int scan_dir(struct scan *s, int fd, const char *root, uid_t owner, enum tsync_node_layout layout)
{
        char **names = NULL;
        size_t n = 0;
        int r = entries(fd, root, &names, &n, s->w);
        for (size_t i = 0; r == 0 && i < n; i++) {
                if (layout == TSYNC_NODE_LAYOUT_RUNTIME) {
                        r = take(s, fd, root, owner, NULL, names[i]);
                        continue;
                }
                char where[PATH_MAX];
                struct stat st;
                if (snprintf(where, sizeof(where), "%s/%s", root, names[i]) >= (int)sizeof(where))
                        continue;
                _cleanup_close_ int ns = open_dir(fd, names[i], where, &st, s->w, &r);
                if (ns < 0)
                        continue;
                if (st.st_uid != owner) {
                        r = warn_oom(tsync_warn(s->w, "%s: not owned by the root's owner (uid %u): not read", where,
                                                (unsigned)owner));
                        continue;
                }
                char **ids = NULL;
                size_t n_ids = 0;
                r = entries(ns, where, &ids, &n_ids, s->w);
                for (size_t k = 0; r == 0 && k < n_ids; k++)
                        r = take(s, ns, where, owner, names[i], ids[k]);
                names_free(ids, n_ids);
        }
        names_free(names, n);
        return r;
}

/* One root, unless it was scanned already. A root that is not there is no
 * error: most nodes have only some engines. */
static int scan_root(struct scan *s, const char *path, enum tsync_node_layout layout)
{
        for (size_t i = 0; i < s->n_roots; i++)
                if (strcmp(s->roots[i], path) == 0)
                        return 0;
        char **grown = reallocarray(s->roots, s->n_roots + 1, sizeof(*s->roots));
        if (!grown)
                return -ENOMEM;
        s->roots = grown;
        if (!(s->roots[s->n_roots] = strdup(path)))
                return -ENOMEM;
        s->n_roots++;
        struct stat st;
        int r = 0;
        _cleanup_close_ int fd = open_dir(AT_FDCWD, path, path, &st, s->w, &r);
        if (fd < 0)
                return r;
        return scan_dir(s, fd, path, st.st_uid, layout);
}

/* The roots the wrapper's records under base name (BASE/HASH/ID: the real
 * runtime's path, then its --root, empty for its default), each a runtime's
 * root. A record is believed only as creator.c believes it: its owner's, 0600,
 * no symbolic link. user_dir: the owner's XDG_RUNTIME_DIR for a rootless
 * runtime's default root (NULL: root's). */
static int record_roots(struct scan *s, const char *base, uid_t owner, const char *user_dir)
{
        int r = 0;
        struct stat st;
        _cleanup_close_ int fd = open_dir(AT_FDCWD, base, base, &st, s->w, &r);
        if (fd < 0 || st.st_uid != owner)
                return r;
        char **hashes = NULL;
        size_t n = 0;
        r = entries(fd, base, &hashes, &n, s->w);
        char *found[RECORD_ROOTS_MAX];
        size_t n_found = 0;
        for (size_t i = 0; r == 0 && i < n; i++) {
                char where[PATH_MAX];
                (void)snprintf(where, sizeof(where), "%s/%s", base, hashes[i]);
                _cleanup_close_ int h = open_dir(fd, hashes[i], where, &st, s->w, &r);
                char **ids = NULL;
                size_t n_ids = 0;
                if (h < 0 || st.st_uid != owner || (r = entries(h, where, &ids, &n_ids, s->w)) < 0)
                        continue;
                for (size_t k = 0; r == 0 && k < n_ids && n_found < RECORD_ROOTS_MAX; k++) {
                        _cleanup_free_ char *text = NULL;
                        size_t len;
                        if (tsync_read_file_at(h, ids[k], NULL, TSYNC_READ_REGULAR | TSYNC_READ_NOFOLLOW, RECORD_MAX,
                                               &text, &len, &st, NULL) < 0 ||
                            st.st_uid != owner || (st.st_mode & 07777) != 0600)
                                continue;
                        char *nl = strchr(text, '\n');
                        if (!nl)
                                continue;
                        *nl = '\0';
                        char *root = nl + 1, def[PATH_MAX];
                        root[strcspn(root, "\n")] = '\0';
                        const char *prog = strrchr(text, '/');
                        const struct tsync_runtime *rt = tsync_runtime_by_name(prog ? prog + 1 : text);
                        if (!root[0] && rt && tsync_runtime_default_root(rt, user_dir, owner, def, sizeof(def)) == 0)
                                root = def;
                        bool seen = root[0] != '/';
                        for (size_t j = 0; !seen && j < n_found; j++)
                                seen = strcmp(found[j], root) == 0;
                        if (!seen && !(found[n_found++] = strdup(root)))
                                r = -ENOMEM;
                }
                names_free(ids, n_ids);
        }
        names_free(hashes, n);
        for (size_t i = 0; i < n_found; i++) {
                if (r == 0 && found[i])
                        r = scan_root(s, found[i], TSYNC_NODE_LAYOUT_RUNTIME);
                free(found[i]);
        }
        return r;
}

/* Rootless users' roots: /run/user/UID/NAME of each runtime whose default
 * moves under XDG_RUNTIME_DIR, and the wrapper's records there. Only a
 * directory owned by the UID it is named after is that user's. */
static int rootless_roots(struct scan *s)
{
        _cleanup_closedir_ DIR *d = opendir("/run/user");
        int r = 0;
        size_t n_rt;
        const struct tsync_runtime *rt = tsync_runtimes(&n_rt);
        for (struct dirent *e; r == 0 && d && (e = readdir(d));) {
                char *end;
                unsigned long uid = strtoul(e->d_name, &end, 10);
                struct stat st;
                char dir[PATH_MAX], path[PATH_MAX];
                if (e->d_name[0] == '.' || *end || uid == 0 || uid > UINT_MAX ||
                    snprintf(dir, sizeof(dir), "/run/user/%s", e->d_name) >= (int)sizeof(dir) || lstat(dir, &st) < 0 ||
                    !S_ISDIR(st.st_mode) || st.st_uid != (uid_t)uid)
                        continue;
                for (size_t i = 0; r == 0 && i < n_rt; i++)
                        if (rt[i].state_root_env && !rt[i].sandbox &&
                            tsync_runtime_default_root(&rt[i], dir, (unsigned)uid, path, sizeof(path)) == 0 &&
                            strncmp(path, dir, strlen(dir)) == 0)
                                r = scan_root(s, path, TSYNC_NODE_LAYOUT_RUNTIME);
                if (r == 0 && snprintf(path, sizeof(path), "%s/oci-seccomp-tsync/runtime", dir) < (int)sizeof(path))
                        r = record_roots(s, path, (uid_t)uid, dir);
        }
        return r;
}

static int node_roots(struct scan *s)
{
        int r = scan_root(s, containerd_root, TSYNC_NODE_LAYOUT_NAMESPACES);
        if (r == 0)
                r = scan_root(s, docker_root, TSYNC_NODE_LAYOUT_NAMESPACES);
        size_t n_rt;
        const struct tsync_runtime *rt = tsync_runtimes(&n_rt);
        char path[PATH_MAX];
        /* gVisor's containers have no host tasks to judge: its root is not read. */
        for (size_t i = 0; r == 0 && i < n_rt; i++)
                if (!rt[i].sandbox && tsync_runtime_default_root(&rt[i], NULL, 0, path, sizeof(path)) == 0)
                        r = scan_root(s, path, TSYNC_NODE_LAYOUT_RUNTIME);
        if (r == 0 && snprintf(path, sizeof(path), "%s/runtime", TSYNC_STATE_ROOT) < (int)sizeof(path))
                r = record_roots(s, path, 0, NULL);
        if (r == 0)
                r = rootless_roots(s);
        return r;
}

static int by_engine(const void *a, const void *b)
{
        const struct tsync_node_container *x = a, *y = b;
        if (x->engine != y->engine)
                return x->engine < y->engine ? -1 : 1;
        int c = strcmp(x->namespace ? x->namespace : "", y->namespace ? y->namespace : "");
        return c ? c : strcmp(x->id, y->id);
}

int tsync_node_find(const struct tsync_node_find_opts *o, struct tsync_node_container **ret, size_t *ret_n,
                    struct tsync_warnings *w, struct tsync_err *err)
{
        struct scan s = { .w = w };
        int r = 0;
        for (size_t i = 0; r == 0 && o && i < o->n_roots; i++)
                r = scan_root(&s, o->roots[i].path, o->roots[i].layout);
        if (r == 0 && !(o && o->only_roots))
                r = node_roots(&s);
        if (r == 0 && o && o->ret_roots) {
                *o->ret_roots = s.roots;
                *o->ret_n_roots = s.n_roots;
        } else {
                names_free(s.roots, s.n_roots);
        }
        tsync_json_free(s.podman);
        free(s.podman_path);
        if (r < 0) {
                tsync_node_containers_free(s.c, s.n);
                return tsync_error(err, -r, "finding the node's containers: %s", tsync_errtext(-r));
        }
        if (s.n)
                qsort(s.c, s.n, sizeof(*s.c), by_engine);
        *ret = s.c;
        *ret_n = s.n;
        return 0;
}
