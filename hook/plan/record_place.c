/* Where a recording may be written (plan/record_place.h): apart from every
 * directory whose files we trust. */
#include "plan/record_place.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/plan.h"
#include "plan/plan_record.h"
#include "shared/cleanup.h"
#include "translate/cache.h"

/* Deeper than any path PATH_MAX can spell: a walk up that goes on is a loop. */
#define MAX_DEPTH (PATH_MAX / 2)

struct dir_id {
        dev_t dev;
        ino_t ino;
};

/* A directory as far as it exists: its path with symbolic links resolved
 * where it exists and the rest as written (".", "..", "//" read lexically),
 * and the device and inode of the deepest existing directory and each one
 * above it, up to "/". */
struct place {
        char *path;
        struct dir_id *chain;
        size_t n;
        bool exists; /* chain[0] is the directory itself, not an ancestor */
};

static void place_clear(struct place *p)
{
        free(p->path);
        free(p->chain);
        *p = (struct place){ 0 };
}

/* Appends path's components to buf (an absolute path of size PATH_MAX), "."
 * dropped and ".." taking off the last one. */
static int append_lexical(char *buf, const char *path)
{
        for (const char *c = path; *c;) {
                while (*c == '/')
                        c++;
                size_t n = strcspn(c, "/");
                if (n == 0)
                        break;
                if (n == 2 && c[0] == '.' && c[1] == '.') {
                        char *slash = strrchr(buf, '/');
                        slash[slash == buf ? 1 : 0] = '\0';
                } else if (!(n == 1 && c[0] == '.')) {
                        size_t len = strlen(buf);
                        bool root = len == 1;
                        if (len + !root + n >= PATH_MAX)
                                return -ENAMETOOLONG;
                        if (!root)
                                buf[len++] = '/';
                        memcpy(buf + len, c, n);
                        buf[len + n] = '\0';
                }
                c += n;
        }
        return 0;
}

/* place's path: realpath of its longest existing prefix, the rest lexically. */
static int resolve(const char *dir, char **ret, size_t *ret_existing, struct tsync_err *err)
{
        if (dir[0] != '/')
                return tsync_error(err, EINVAL, "'%s' is not an absolute path", dir);
        if (strlen(dir) >= PATH_MAX)
                return tsync_error(err, ENAMETOOLONG, "'%.64s...' is longer than %d bytes", dir, PATH_MAX - 1);
        _cleanup_free_ char *prefix = strdup(dir);
        if (!prefix)
                return tsync_error(err, ENOMEM, "out of memory");
        size_t cut = strlen(prefix);
        for (;;) {
                _cleanup_free_ char *real = realpath(cut ? prefix : "/", NULL);
                if (real) {
                        /* Past what exists no link can bend the path, but a
                         * ".." there could climb out of what was resolved. */
                        for (const char *c = dir + cut; *c; c += strcspn(c, "/")) {
                                c += strspn(c, "/");
                                if (strncmp(c, "..", 2) == 0 && (c[2] == '/' || c[2] == '\0'))
                                        return tsync_error(err, EINVAL,
                                                           "'%s': '..' below '%s', the last directory of it that "
                                                           "exists",
                                                           dir, real);
                        }
                        char *out = malloc(PATH_MAX);
                        if (!out)
                                return tsync_error(err, ENOMEM, "out of memory");
                        (void)strcpy(out, real);
                        size_t existing = strlen(out);
                        if (append_lexical(out, dir + cut) < 0) {
                                free(out);
                                return tsync_error(err, ENAMETOOLONG, "'%.64s...' is too long", dir);
                        }
                        *ret = out;
                        *ret_existing = existing;
                        return 0;
                }
                if (errno != ENOENT)
                        return tsync_error_errno(err, "'%s'", dir);
                /* Off with the last component; "/" itself always exists. */
                while (cut > 0 && prefix[cut - 1] == '/')
                        cut--;
                while (cut > 0 && prefix[cut - 1] != '/')
                        cut--;
                prefix[cut] = '\0';
        }
}

/* The device and inode of path's deepest existing directory and of each one
 * above it, walked by ".." (the way the kernel goes up, whatever the path
 * said). */
static int walk_up(const char *path, size_t existing, bool stop_where_denied, struct place *p, struct tsync_err *err)
{
        _cleanup_free_ char *top = strndup(path, existing);
        if (!top)
                return tsync_error(err, ENOMEM, "out of memory");
        _cleanup_close_ int fd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return tsync_error_errno(err, "'%s'", top);
        p->exists = path[existing] == '\0';
        for (;;) {
                struct stat st;
                if (fstat(fd, &st) < 0)
                        return tsync_error_errno(err, "'%s'", top);
                struct dir_id id = { st.st_dev, st.st_ino };
                if (p->n > 0 && p->chain[p->n - 1].dev == id.dev && p->chain[p->n - 1].ino == id.ino)
                        return 0; /* ".." of "/" is "/" */
                if (p->n == MAX_DEPTH)
                        return tsync_error(err, ELOOP, "'%s': more than %d directories above it", top, MAX_DEPTH);
                if (p->n % 32 == 0) {
                        struct dir_id *more = realloc(p->chain, (p->n + 32) * sizeof(*more));
                        if (!more)
                                return tsync_error(err, ENOMEM, "out of memory");
                        p->chain = more;
                }
                p->chain[p->n++] = id;
                int up = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (up < 0 && errno == EACCES && stop_where_denied)
                        return 0; /* see place_read_ours */
                if (up < 0)
                        return tsync_error_errno(err, "'%s': the directory above", top);
                (void)close(fd);
                fd = up;
        }
}

static int place_read_as(const char *dir, bool stop_where_denied, struct place *p, struct tsync_err *err)
{
        size_t existing = 0;
        *p = (struct place){ 0 };
        int r = resolve(dir, &p->path, &existing, err);
        if (r == 0)
                r = walk_up(p->path, existing, stop_where_denied, p, err);
        if (r < 0)
                place_clear(p);
        return r;
}

static int place_read(const char *dir, struct place *p, struct tsync_err *err)
{
        return place_read_as(dir, false, p, err);
}

/* One of our directories as far as this process may look: a rootless hook
 * cannot search the system's 0700 directories (/var/cache/oci-seccomp-tsync),
 * and what it cannot search it cannot write into either, so where the look
 * stops only the path, read lexically, and the directories already seen are
 * compared. */
static int place_read_ours(const char *dir, struct place *p, struct tsync_err *err)
{
        struct tsync_err inner = { 0 };
        int r = place_read_as(dir, true, p, &inner);
        if (r == 0 || inner.code != EACCES) {
                if (r < 0)
                        *err = inner;
                return r;
        }
        *p = (struct place){ .path = malloc(PATH_MAX) };
        if (!p->path)
                return tsync_error(err, ENOMEM, "out of memory");
        (void)strcpy(p->path, "/");
        /* resolve refused a relative or overlong path before any EACCES. */
        if (append_lexical(p->path, dir) < 0) {
                place_clear(p);
                return tsync_error(err, ENAMETOOLONG, "'%.64s...' is too long", dir);
        }
        return 0;
}

static bool in_chain(const struct place *p, size_t from, struct dir_id id)
{
        for (size_t i = from; i < p->n; i++)
                if (p->chain[i].dev == id.dev && p->chain[i].ino == id.ino)
                        return true;
        return false;
}

/* a lies inside b, by path. */
static bool path_inside(const char *a, const char *b)
{
        size_t n = strlen(b);
        if (strcmp(b, "/") == 0)
                return strcmp(a, "/") != 0;
        return strncmp(a, b, n) == 0 && a[n] == '/';
}

/* *ret_by_id: told by device and inode alone (a bind mount), not by the paths. */
static enum tsync_place_overlap overlap(const struct place *a, const struct place *b, bool *ret_by_id)
{
        *ret_by_id = false;
        if (strcmp(a->path, b->path) == 0)
                return TSYNC_PLACE_IS;
        if (path_inside(a->path, b->path))
                return TSYNC_PLACE_INSIDE;
        if (path_inside(b->path, a->path))
                return TSYNC_PLACE_HOLDS;
        *ret_by_id = true;
        if (a->exists && b->exists && a->chain[0].dev == b->chain[0].dev && a->chain[0].ino == b->chain[0].ino)
                return TSYNC_PLACE_IS;
        /* b, where it exists, above a (or above a's deepest existing directory). */
        if (b->exists && in_chain(a, a->exists ? 1 : 0, b->chain[0]))
                return TSYNC_PLACE_INSIDE;
        if (a->exists && in_chain(b, b->exists ? 1 : 0, a->chain[0]))
                return TSYNC_PLACE_HOLDS;
        *ret_by_id = false;
        return TSYNC_PLACE_APART;
}

int tsync_record_place_overlap(const char *dir, const char *place, enum tsync_place_overlap *ret, struct tsync_err *err)
{
        struct place a, b;
        int r = place_read(dir, &a, err);
        if (r < 0)
                return r;
        r = place_read(place, &b, err);
        if (r < 0) {
                place_clear(&a);
                return r;
        }
        bool by_id;
        *ret = overlap(&a, &b, &by_id);
        place_clear(&a);
        place_clear(&b);
        return 0;
}

int tsync_record_place_check(const char *dir, const char *what, const struct tsync_record_place *places, size_t n,
                             bool holds, struct tsync_err *err)
{
        struct place a;
        int r = place_read(dir, &a, err);
        if (r < 0)
                return tsync_error_prefix(err, "%s", what);
        for (size_t i = 0; r == 0 && i < n; i++) {
                struct place b;
                if (!places[i].dir)
                        continue;
                r = place_read_ours(places[i].dir, &b, err);
                if (r < 0) {
                        (void)tsync_error_prefix(err, "%s %s", places[i].what, places[i].dir);
                        break;
                }
                bool by_id;
                enum tsync_place_overlap o = overlap(&a, &b, &by_id);
                bool a_moved = strcmp(a.path, dir) != 0, b_moved = strcmp(b.path, places[i].dir) != 0;
                if (o == TSYNC_PLACE_IS || o == TSYNC_PLACE_INSIDE || (holds && o == TSYNC_PLACE_HOLDS))
                        r = tsync_error(err, EPERM,
                                        "%s%s%s%s %s %s %s%s%s%s%s: a recording there would be trusted as one of "
                                        "our own files",
                                        what, a_moved ? " (" : "", a_moved ? a.path : "", a_moved ? ")" : "",
                                        o == TSYNC_PLACE_IS       ? "is"
                                        : o == TSYNC_PLACE_INSIDE ? "lies inside"
                                                                  : "holds",
                                        places[i].what, places[i].dir, b_moved ? " (" : "", b_moved ? b.path : "",
                                        b_moved ? ")" : "",
                                        by_id ? " (the same directory by device and inode: a bind mount?)" : "");
                place_clear(&b);
        }
        place_clear(&a);
        return r;
}

size_t tsync_record_places(const struct tsync_plan_paths *paths, struct tsync_record_place *ret)
{
        size_t n = 0;
        for (size_t i = 0; paths && i < paths->n_profile_dirs && n < TSYNC_RECORD_PLACES_MAX - 8; i++)
                ret[n++] = (struct tsync_record_place){ paths->profile_dirs[i], "the profile directory" };
        if (paths && paths->cache_dir)
                ret[n++] = (struct tsync_record_place){ paths->cache_dir, "the cache directory" };
        if (paths && paths->hooks_cache_dir)
                ret[n++] = (struct tsync_record_place){ paths->hooks_cache_dir, "the cache directory" };
        if (paths && paths->record_root)
                ret[n++] = (struct tsync_record_place){ paths->record_root, "the record root" };
        ret[n++] = (struct tsync_record_place){ TSYNC_PROFILE_DIR_ETC, "the profile directory" };
        ret[n++] = (struct tsync_record_place){ TSYNC_PROFILE_DIR_SHARE, "the profile directory" };
        ret[n++] = (struct tsync_record_place){ TSYNC_CACHE_DEFAULT_DIR, "the cache directory" };
        ret[n++] = (struct tsync_record_place){ TSYNC_RECORD_ROOT, "the record root" };
        ret[n++] = (struct tsync_record_place){ TSYNC_STATE_ROOT, "the state root" };
        return n;
}

int tsync_record_check_output_place(const char *output, const struct tsync_plan_paths *paths, struct tsync_err *err)
{
        struct tsync_record_place places[TSYNC_RECORD_PLACES_MAX];
        size_t n = tsync_record_places(paths, places);
        const char *slash = strrchr(output, '/');
        if (output[0] != '/' || !slash)
                return tsync_error(err, EINVAL, "'%s' is not an absolute path", output);
        _cleanup_free_ char *dir = slash == output ? strdup("/") : strndup(output, (size_t)(slash - output));
        if (!dir)
                return tsync_error(err, ENOMEM, "out of memory");
        /* A file's directory may hold one of them (/var/lib beside the
         * record root): only the file's own directory counts. */
        return tsync_record_place_check(dir, "its directory", places, n, false, err);
}
