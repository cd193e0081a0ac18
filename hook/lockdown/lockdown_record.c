/* lockdown's record of the layers it added (lockdown/lockdown_record.h). The
 * filters are kept whole (base64 filter files, as the init's --filter-data
 * takes them) so that an exec'd process gets exactly what the container's
 * tasks got, without the profiles being read again. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lockdown/lockdown_record.h"
#include "shared/base64.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "shared/filterfile.h"
#include "status/status.h"
#include "util/fileio.h"
#include "util/json.h"
#include "util/json_build.h"
#include "util/sha256.h"

#define RECORD_MAX_BYTES (TSYNC_LOCKDOWN_MAX_LAYERS * (TSYNC_FILTER_MAX_SIZE / 3 * 4 + 8192))

void tsync_lockdown_record_clear(struct tsync_lockdown_record *r)
{
        for (size_t i = 0; i < r->n; i++) {
                free(r->layers[i].name);
                free(r->layers[i].filter);
        }
        r->n = 0;
}

int tsync_lockdown_record_key(pid_t init_pid, char *buf, size_t size, struct tsync_err *err)
{
        _cleanup_free_ char *line = NULL;
        const char *fields = NULL;
        int r = tsync_proc_stat_read(init_pid, &line, &fields, err);
        if (r < 0)
                return r;
        /* State is field 3, starttime field 22. */
        unsigned long long start;
        if (sscanf(fields, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                   &start) != 1)
                return tsync_error(err, EIO, "/proc/%d/stat: no start time", (int)init_pid);
        (void)snprintf(buf, size, "%d-%llu", (int)init_pid, start);
        return 0;
}

static int check_private(int fd, const char *what, bool dir, struct tsync_err *err)
{
        struct stat st;
        if (fstat(fd, &st) < 0)
                return tsync_error_errno(err, "%s", what);
        if (dir)
                return tsync_check_private_dir(what, &st, err);
        if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
                return tsync_error(err, EPERM,
                                   "%s: must be a regular file of uid %u that no one else may read or write", what,
                                   (unsigned)geteuid());
        return 0;
}

static int read_layer(const struct tsync_json *v, size_t i, struct tsync_lockdown_layer *l, struct tsync_err *err)
{
        const char *name, *hash, *filter;
        char path[64];
        (void)snprintf(path, sizeof(path), "layers[%zu]", i);
        int r = tsync_json_str(tsync_json_get(v, "name"), "name", &name, err);
        if (r == 0)
                r = tsync_json_str(tsync_json_get(v, "sha256"), "sha256", &hash, err);
        if (r == 0)
                r = tsync_json_u64(tsync_json_get(v, "added"), "added", &l->added, err);
        if (r == 0)
                r = tsync_json_str(tsync_json_get(v, "filter"), "filter", &filter, err);
        if (r == 0 && strlen(hash) != 64)
                r = tsync_error(err, EINVAL, "sha256: not 64 hexadecimal digits");
        if (r < 0)
                return tsync_error_prefix(err, "%s", path);
        (void)snprintf(l->sha256, sizeof(l->sha256), "%s", hash);
        l->name = strdup(name);
        l->filter = strdup(filter);
        if (!l->name || !l->filter) {
                free(l->name);
                free(l->filter);
                return tsync_error(err, ENOMEM, "out of memory");
        }
        return 0;
}

int tsync_lockdown_record_read(const char *root, const char *key, struct tsync_lockdown_record *ret,
                               struct tsync_err *err)
{
        *ret = (struct tsync_lockdown_record){ 0 };
        _cleanup_close_ int dir = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (dir < 0 && errno == ENOENT)
                return 0;
        if (dir < 0)
                return tsync_error_errno(err, "%s", root);
        int r = check_private(dir, root, true, err);
        if (r < 0)
                return r;
        char name[128], what[4200];
        (void)snprintf(name, sizeof(name), "%s.json", key);
        (void)snprintf(what, sizeof(what), "%s/%s", root, name);
        _cleanup_close_ int fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
        if (fd < 0 && errno == ENOENT)
                return 0;
        if (fd < 0)
                return tsync_error_errno(err, "%s", what);
        r = check_private(fd, what, false, err);
        if (r < 0)
                return r;
        struct tsync_json_limits lim = { .max_bytes = RECORD_MAX_BYTES };
        _cleanup_json_ struct tsync_json *doc = NULL;
        r = tsync_json_parse_fd(fd, &lim, &doc, err);
        const struct tsync_json *layers = doc ? tsync_json_get(doc, "layers") : NULL;
        if (r == 0)
                r = tsync_json_expect(layers, "layers", TSYNC_JSON_ARRAY, err);
        if (r == 0 && layers->u.array.len > TSYNC_LOCKDOWN_MAX_LAYERS)
                r = tsync_error(err, E2BIG, "layers: more than %d", TSYNC_LOCKDOWN_MAX_LAYERS);
        for (size_t i = 0; r == 0 && i < layers->u.array.len; i++) {
                r = read_layer(layers->u.array.items[i], i, &ret->layers[i], err);
                if (r == 0)
                        ret->n++;
        }
        if (r < 0) {
                tsync_lockdown_record_clear(ret);
                return tsync_error_prefix(err, "%s", what);
        }
        return 0;
}

int tsync_lockdown_record_add(struct tsync_lockdown_record *r, const char *name, const struct sock_filter *insns,
                              size_t len, uint32_t flags, uint64_t now, struct tsync_err *err)
{
        if (r->n == TSYNC_LOCKDOWN_MAX_LAYERS)
                return tsync_error(err, E2BIG,
                                   "the container already has %d layers added by lockdown, the most an exec'd "
                                   "process can be given",
                                   TSYNC_LOCKDOWN_MAX_LAYERS);
        _cleanup_free_ void *buf = malloc(TSYNC_FILTER_MAX_SIZE);
        if (!buf)
                return tsync_error(err, ENOMEM, "out of memory");
        long n = tsync_filter_encode(insns, len, flags, 0, buf, TSYNC_FILTER_MAX_SIZE);
        if (n < 0)
                return tsync_error(err, (int)-n, "%s: cannot be kept as a filter file: %s", name,
                                   tsync_errtext((int)-n));
        struct tsync_lockdown_layer *l = &r->layers[r->n];
        *l = (struct tsync_lockdown_layer){ .added = now };
        tsync_sha256_hex(insns, len * sizeof(*insns), l->sha256);
        l->name = strdup(name);
        l->filter = malloc(tsync_base64_encoded_len((size_t)n) + 1);
        if (!l->name || !l->filter) {
                free(l->name);
                free(l->filter);
                return tsync_error(err, ENOMEM, "out of memory");
        }
        tsync_base64_encode(buf, (size_t)n, l->filter);
        r->n++;
        return 0;
}

static int to_json(const char *key, const struct tsync_lockdown_record *r, struct tsync_json **ret)
{
        _cleanup_json_ struct tsync_json *doc = tsync_json_new_object();
        struct tsync_json *layers = tsync_json_new_array();
        int e = doc && layers ? 0 : -ENOMEM;
        if (e == 0)
                e = tsync_json_set(doc, "container", tsync_json_new_string(key));
        if (e == 0)
                e = tsync_json_set(doc, "layers", layers);
        else
                tsync_json_free(layers);
        for (size_t i = 0; e == 0 && i < r->n; i++) {
                const struct tsync_lockdown_layer *l = &r->layers[i];
                struct tsync_json *o = tsync_json_new_object();
                e = o ? tsync_json_set(o, "name", tsync_json_new_string(l->name)) : -ENOMEM;
                if (e == 0)
                        e = tsync_json_set(o, "sha256", tsync_json_new_string(l->sha256));
                if (e == 0)
                        e = tsync_json_set(o, "added", tsync_json_new_u64(l->added));
                if (e == 0)
                        e = tsync_json_set(o, "filter", tsync_json_new_string(l->filter));
                if (e == 0)
                        e = tsync_json_append(layers, o);
                else
                        tsync_json_free(o);
        }
        if (e < 0)
                return e;
        *ret = TAKE_PTR(doc);
        return 0;
}

/* Records of containers whose PID 1 is gone (a pid and start time never
 * come back while the machine runs), and the lock files a killed lockdown
 * left of them: removed as another is written. */
static void prune(int dir)
{
        int fd = fcntl(dir, F_DUPFD_CLOEXEC, 0);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        if (!d) {
                if (fd >= 0)
                        (void)close(fd);
                return;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
                int pid;
                unsigned long long start;
                char tail[8], key[64];
                struct tsync_err ignored = { 0 };
                if (sscanf(e->d_name, "%d-%llu%7s", &pid, &start, tail) != 3 ||
                    (strcmp(tail, ".json") != 0 && strcmp(tail, ".lock") != 0))
                        continue;
                if (tsync_lockdown_record_key(pid, key, sizeof(key), &ignored) == 0 &&
                    strncmp(key, e->d_name, strlen(key)) == 0 && e->d_name[strlen(key)] == '.')
                        continue;
                (void)unlinkat(dirfd(d), e->d_name, 0);
        }
        (void)closedir(d);
}

/* root, made as the hooks would make the state root (their state
 * directories in it are 0700 each), then ours, 0700; root's alone, or
 * refused. */
static int open_root(const char *root, int *ret, struct tsync_err *err)
{
        char parent[4096];
        (void)snprintf(parent, sizeof(parent), "%s", root);
        char *slash = strrchr(parent, '/');
        if (slash && slash != parent) {
                *slash = '\0';
                if (mkdir(parent, 0755) < 0 && errno != EEXIST)
                        return tsync_error_errno(err, "%s", parent);
        }
        if (mkdir(root, 0700) < 0 && errno != EEXIST)
                return tsync_error_errno(err, "%s", root);
        _cleanup_close_ int dir = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (dir < 0)
                return tsync_error_errno(err, "%s", root);
        int e = check_private(dir, root, true, err);
        if (e < 0)
                return e;
        *ret = TAKE_FD(dir);
        return 0;
}

int tsync_lockdown_record_write(const char *root, const char *key, const struct tsync_lockdown_record *r,
                                struct tsync_err *err)
{
        char path[4200];
        (void)snprintf(path, sizeof(path), "%s/%s.json", root, key);
        if (r->n == 0) {
                if (unlink(path) < 0 && errno != ENOENT)
                        return tsync_error_errno(err, "%s", path);
                return 0;
        }
        _cleanup_close_ int dir = -1;
        int e = open_root(root, &dir, err);
        if (e < 0)
                return e;
        prune(dir);
        _cleanup_json_ struct tsync_json *doc = NULL;
        e = to_json(key, r, &doc);
        if (e < 0)
                return tsync_error(err, -e, "%s: %s", path, tsync_errtext(-e));
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        e = tsync_json_write(doc, true, &text, &len, err);
        if (e < 0)
                return tsync_error_prefix(err, "%s", path);
        char name[128];
        (void)snprintf(name, sizeof(name), "%s.json", key);
        return tsync_write_at(dir, root, name, text, len, 0600, TSYNC_WRITE_DURABLE, err);
}

/* How often root is made again when it vanished before the lock file was in
 * it, and how often the lock is taken again when its file was removed between
 * our open and our flock (its holder let it go): each time someone else got it. */
#define ROOT_ATTEMPTS 1000
#define LOCK_ATTEMPTS 1000

/* root, opened as open_root does, and the lock file name opened in it
 * (what: its path). root may go between the two, removed while empty (a
 * clean-up of /run): no lock was held in it, so it is made again. */
static int open_lock_file(const char *root, const char *name, const char *what, int *ret_dir, int *ret_fd,
                          struct tsync_err *err)
{
        for (int attempt = 0;; attempt++) {
                _cleanup_close_ int dir = -1;
                int e = open_root(root, &dir, err);
                if (e == -ENOENT && attempt < ROOT_ATTEMPTS)
                        continue;
                if (e < 0)
                        return e;
                int fd = openat(dir, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
                if (fd >= 0) {
                        *ret_dir = TAKE_FD(dir);
                        *ret_fd = fd;
                        return 0;
                }
                if (errno != ENOENT || attempt == ROOT_ATTEMPTS)
                        return tsync_error_errno(err, "%s", what);
        }
}

int tsync_lockdown_record_lock(const char *root, const char *key, bool wait, int *ret_fd, struct tsync_err *err)
{
        char name[128], what[4200];
        (void)snprintf(name, sizeof(name), "%s.lock", key);
        (void)snprintf(what, sizeof(what), "%s/%s", root, name);
        for (int attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
                _cleanup_close_ int dir = -1, fd = -1;
                int e = open_lock_file(root, name, what, &dir, &fd, err);
                if (e < 0)
                        return e;
                e = check_private(fd, what, false, err);
                if (e < 0)
                        return e;
                while ((e = flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB))) < 0 && errno == EINTR)
                        ;
                if (e < 0 && errno == EWOULDBLOCK)
                        return tsync_error(err, EWOULDBLOCK, "%s: another lockdown of the container holds it", what);
                if (e < 0)
                        return tsync_error_errno(err, "%s: flock", what);
                /* Its holder removes the file before it lets go: the lock
                 * is ours only if the file is still the one at the path. */
                struct stat held, now;
                if (fstat(fd, &held) < 0)
                        return tsync_error_errno(err, "%s", what);
                if (fstatat(dir, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == held.st_dev &&
                    now.st_ino == held.st_ino) {
                        *ret_fd = TAKE_FD(fd);
                        return 0;
                }
        }
        return tsync_error(err, EAGAIN, "%s: taken by others %d times in a row", what, LOCK_ATTEMPTS);
}

void tsync_lockdown_record_unlock(const char *root, const char *key, int fd)
{
        if (fd < 0)
                return;
        char path[4200];
        (void)snprintf(path, sizeof(path), "%s/%s.lock", root, key);
        /* Removed while held: a lockdown that opens it later makes a new one
         * (and one that opened this one finds it gone and opens again). */
        (void)unlink(path);
        (void)close(fd);
}
