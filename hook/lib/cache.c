/* The compiled-filter cache: <dir>/<sha256 of the inputs>.bpf, in the filter
 * file format. An entry is only ever replaced whole (temp file, fsync, rename),
 * and anything that fails to decode is removed and rebuilt rather than trusted. */
#include "tsync/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tsync/cleanup.h"
#include "tsync/filterfile.h"
#include "tsync/sha256.h"

#ifndef TSYNC_VERSION
#define TSYNC_VERSION "dev"
#endif

#define ENTRY_SUFFIX ".bpf"
/* "<key>.bpf" and ".<key>.<16 hex>.tmp" */
#define NAME_MAX_LEN (1 + TSYNC_CACHE_KEY_LEN + 1 + 16 + 4 + 1)

/* Each field is preceded by its length, so no field can run into the next. */
static void key_field(struct tsync_sha256 *s, const void *data, size_t len)
{
        unsigned char n[8];

        for (unsigned i = 0; i < 8; i++)
                n[i] = (unsigned char)((uint64_t)len >> (8 * i));
        tsync_sha256_update(s, n, sizeof(n));
        tsync_sha256_update(s, data, len);
}

static void key_number(struct tsync_sha256 *s, const char *label, unsigned long long v)
{
        char b[64];
        int n = snprintf(b, sizeof(b), "%s %llu", label, v);

        key_field(s, b, (size_t)n);
}

int tsync_cache_key(const struct tsync_profile *p, const struct tsync_compile_opts *opts, uint64_t caps,
                    char ret[TSYNC_CACHE_KEY_LEN + 1], struct tsync_err *err)
{
        static const char hex[] = "0123456789abcdef";
        _cleanup_free_ char *canon = NULL;
        size_t canon_len = 0;
        struct tsync_sha256 s;
        unsigned char md[32];
        char version[64];
        int r;

        if (!p)
                return tsync_error(err, EINVAL, "cache key: no profile");
        r = tsync_profile_canonical(p, &canon, &canon_len);
        if (r < 0)
                return tsync_error(err, -r, "cache key: canonical profile: %s", strerror(-r));

        /* Resolve the native arch as tsync_compile does: 0 and the explicit
         * native token give the same program, so they share an entry. */
        uint32_t native = opts && opts->native_arch ? opts->native_arch : seccomp_arch_native();
        const struct scmp_version *v = seccomp_version();
        if (!v)
                return tsync_error(err, EINVAL, "cache key: libseccomp did not report its version");
        (void)snprintf(version, sizeof(version), "%u.%u.%u", v->major, v->minor, v->micro);

        tsync_sha256_init(&s);
        key_field(&s, "oci-seccomp-tsync cache key", 27);
        key_field(&s, canon, canon_len);
        key_number(&s, "native_arch", native);
        key_number(&s, "strict", opts && opts->strict);
        key_number(&s, "caps", caps);
        key_field(&s, version, strlen(version));
        /* libseccomp shapes the program by what it found the kernel supports (actions,
         * flags): a kernel that gains or loses support must not be served an old entry. */
        key_number(&s, "libseccomp api", seccomp_api_get());
        key_field(&s, TSYNC_VERSION, strlen(TSYNC_VERSION));
        key_number(&s, "filter file", TSYNC_FILTER_VERSION);
        tsync_sha256_final(&s, md);

        for (unsigned i = 0; i < 32; i++) {
                ret[2 * i] = hex[md[i] >> 4];
                ret[2 * i + 1] = hex[md[i] & 0xf];
        }
        ret[TSYNC_CACHE_KEY_LEN] = '\0';
        return 0;
}

/* Keys become file names: only what tsync_cache_key produces is accepted. */
static int check_key(const char *key, struct tsync_err *err)
{
        size_t i;

        if (!key)
                return tsync_error(err, EINVAL, "cache key missing");
        for (i = 0; key[i] && i <= TSYNC_CACHE_KEY_LEN; i++)
                if (!((key[i] >= '0' && key[i] <= '9') || (key[i] >= 'a' && key[i] <= 'f')))
                        return tsync_error(err, EINVAL, "cache key '%.80s' is not lowercase hex", key);
        if (i != TSYNC_CACHE_KEY_LEN)
                return tsync_error(err, EINVAL, "cache key '%.80s' is not %d hex digits", key, TSYNC_CACHE_KEY_LEN);
        return 0;
}

/* Removes a bad entry, unless the name now refers to another file (a
 * concurrent store may just have replaced it with a good one). */
static int remove_entry(int dfd, const char *name, int fd)
{
        struct stat a, b;

        if (fd >= 0 && fstat(fd, &a) == 0) {
                if (fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) < 0)
                        return errno == ENOENT ? 0 : -errno;
                if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
                        return 0;
        }
        if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

static int bad_entry(int dfd, const char *dir, const char *name, int fd, const char *why, struct tsync_err *err)
{
        int r = remove_entry(dfd, name, fd);

        if (r < 0)
                return tsync_error(err, -r, "cache entry %s/%s: %s, and removing it failed: %s", dir, name, why,
                                   strerror(-r));
        return tsync_error(err, ENOENT, "cache entry %s/%s: %s; removed", dir, name, why);
}

/* Reads the whole file, at most max bytes; *ret_len > max means it is bigger. */
static int read_bounded(int fd, unsigned char *buf, size_t max, size_t *ret_len)
{
        size_t len = 0;

        while (len <= max) {
                ssize_t n = read(fd, buf + len, max + 1 - len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        *ret_len = len;
        return 0;
}

int tsync_cache_load(const char *dir, const char *key, struct tsync_program **ret, struct tsync_err *err)
{
        _cleanup_close_ int dfd = -1, fd = -1;
        _cleanup_free_ unsigned char *buf = NULL;
        const struct sock_filter *insns;
        char name[NAME_MAX_LEN];
        const char *why;
        struct stat st;
        size_t len, n = 0;
        uint32_t flags;
        int r;

        r = check_key(key, err);
        if (r < 0)
                return r;
        if (!dir || !ret)
                return tsync_error(err, EINVAL, "cache load: no directory or result");
        (void)snprintf(name, sizeof(name), "%s" ENTRY_SUFFIX, key);

        /* O_NOFOLLOW: store refuses a symlinked directory, so load does too. */
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0) {
                if (errno == ENOENT)
                        return tsync_error(err, ENOENT, "cache directory %s does not exist", dir);
                /* O_DIRECTORY|O_NOFOLLOW on a symlink says ENOTDIR; name the real problem. */
                int saved = errno;
                struct stat lst;
                if ((saved == ELOOP || saved == ENOTDIR) && lstat(dir, &lst) == 0 && S_ISLNK(lst.st_mode))
                        return tsync_error(err, ELOOP, "cache directory %s is a symbolic link", dir);
                return tsync_error(err, saved, "cache directory %s: %s", dir, strerror(saved));
        }
        /* O_NONBLOCK: a FIFO planted under the name must not hang us. */
        fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0) {
                if (errno == ENOENT)
                        return tsync_error(err, ENOENT, "%s/%s: not in the cache", dir, name);
                if (errno == ELOOP)
                        return bad_entry(dfd, dir, name, -1, "is a symbolic link", err);
                return tsync_error(err, errno, "cache entry %s/%s: %s", dir, name, strerror(errno));
        }
        if (fstat(fd, &st) < 0)
                return tsync_error(err, errno, "cache entry %s/%s: %s", dir, name, strerror(errno));
        if (!S_ISREG(st.st_mode))
                return bad_entry(dfd, dir, name, fd, "not a regular file", err);
        /* We write entries 0600 as ourselves; anything else was not written by us. */
        if (st.st_uid != geteuid() || (st.st_mode & 0077))
                return bad_entry(dfd, dir, name, fd, "wrong owner or mode", err);
        if (st.st_size > (off_t)TSYNC_FILTER_MAX_SIZE)
                return bad_entry(dfd, dir, name, fd, "too large", err);

        buf = malloc(TSYNC_FILTER_MAX_SIZE + 1); /* malloc's alignment suits struct sock_filter */
        if (!buf)
                return tsync_error(err, ENOMEM, "cache entry %s/%s: out of memory", dir, name);
        r = read_bounded(fd, buf, TSYNC_FILTER_MAX_SIZE, &n);
        if (r < 0)
                return tsync_error(err, -r, "cache entry %s/%s: reading: %s", dir, name, strerror(-r));
        if (n > TSYNC_FILTER_MAX_SIZE)
                return bad_entry(dfd, dir, name, fd, "too large", err);
        r = tsync_filter_decode(buf, n, &insns, &len, &flags, &why);
        if (r < 0)
                return bad_entry(dfd, dir, name, fd, why, err);

        struct tsync_program *prog = calloc(1, sizeof(*prog));
        if (!prog)
                return tsync_error(err, ENOMEM, "cache entry %s/%s: out of memory", dir, name);
        prog->insns = malloc(len * sizeof(*insns));
        if (!prog->insns) {
                free(prog);
                return tsync_error(err, ENOMEM, "cache entry %s/%s: out of memory", dir, name);
        }
        memcpy(prog->insns, insns, len * sizeof(*insns));
        prog->len = len;
        prog->flags = flags;
        *ret = prog;
        return 0;
}

/* mkdir -p, every directory it creates 0700. */
static int mkdir_parents(const char *dir)
{
        char path[PATH_MAX];
        size_t len = strlen(dir);

        if (len == 0)
                return -EINVAL;
        if (len >= sizeof(path))
                return -ENAMETOOLONG;
        memcpy(path, dir, len + 1);
        for (char *p = path + 1; *p; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                if (mkdir(path, 0700) < 0 && errno != EEXIST)
                        return -errno;
                *p = '/';
        }
        if (mkdir(path, 0700) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

/* Opens dir, creating it if missing; a symlink or non-directory is refused. */
static int open_cache_dir(const char *dir, struct tsync_err *err)
{
        struct stat st;
        int dfd, r;

        if (lstat(dir, &st) < 0) {
                if (errno != ENOENT)
                        return tsync_error(err, errno, "cache directory %s: %s", dir, strerror(errno));
                r = mkdir_parents(dir);
                if (r < 0)
                        return tsync_error(err, -r, "creating cache directory %s: %s", dir, strerror(-r));
                if (lstat(dir, &st) < 0)
                        return tsync_error(err, errno, "cache directory %s: %s", dir, strerror(errno));
        }
        if (S_ISLNK(st.st_mode))
                return tsync_error(err, ELOOP, "cache directory %s is a symbolic link", dir);
        if (!S_ISDIR(st.st_mode))
                return tsync_error(err, ENOTDIR, "cache directory %s is not a directory", dir);
        /* O_NOFOLLOW as well: it may have been swapped since lstat. */
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                return tsync_error(err, errno, "cache directory %s: %s", dir, strerror(errno));
        return dfd;
}

static int write_all(int fd, const void *data, size_t len)
{
        const unsigned char *p = data;

        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

static int temp_name(const char *key, char name[NAME_MAX_LEN])
{
        uint64_t rnd;

        if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
                return errno ? -errno : -EIO;
        (void)snprintf(name, NAME_MAX_LEN, ".%s.%016llx.tmp", key, (unsigned long long)rnd);
        return 0;
}

/* Gives the unnamed O_TMPFILE file a name in dfd. AT_EMPTY_PATH needs
 * CAP_DAC_READ_SEARCH; /proc/self/fd works without it. */
static int link_tmpfile(int fd, int dfd, const char *name)
{
        char proc[64];

        if (linkat(fd, "", dfd, name, AT_EMPTY_PATH) == 0)
                return 0;
        (void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        if (linkat(AT_FDCWD, proc, dfd, name, AT_SYMLINK_FOLLOW) == 0)
                return 0;
        return -errno;
}

int tsync_cache_store(const char *dir, const char *key, const struct tsync_program *prog, struct tsync_err *err)
{
        _cleanup_close_ int dfd = -1, fd = -1;
        _cleanup_free_ unsigned char *buf = NULL;
        char name[NAME_MAX_LEN], tmp[NAME_MAX_LEN];
        bool named = false; /* tmp exists in dfd and must go on failure */
        const char *what;
        long n;
        int r;

        r = check_key(key, err);
        if (r < 0)
                return r;
        if (!dir || !prog || !prog->insns)
                return tsync_error(err, EINVAL, "cache store: no directory or program");
        if (prog->len == 0 || prog->len > TSYNC_FILTER_MAX_INSNS)
                return tsync_error(err, EINVAL, "cache store: program of %zu instructions", prog->len);
        (void)snprintf(name, sizeof(name), "%s" ENTRY_SUFFIX, key);

        size_t size = TSYNC_FILTER_HEADER_SIZE + prog->len * sizeof(struct sock_filter);
        buf = malloc(size);
        if (!buf)
                return tsync_error(err, ENOMEM, "cache store: out of memory");
        n = tsync_filter_encode(prog->insns, prog->len, prog->flags, buf, size);
        if (n < 0)
                return tsync_error(err, (int)-n, "cache store: encoding the filter (flags %#x): %s", prog->flags,
                                   strerror((int)-n));

        dfd = open_cache_dir(dir, err);
        if (dfd < 0)
                return dfd;

        r = temp_name(key, tmp);
        if (r < 0)
                return tsync_error(err, -r, "cache store: getrandom: %s", strerror(-r));

        /* O_TMPFILE: nothing has a name until the content is complete and synced,
         * so a crash leaves no debris. Filesystems without it get a named temp. */
        fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0) {
                if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
                        return tsync_error(err, errno, "cache store: temp file in %s: %s", dir, strerror(errno));
                fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
                if (fd < 0)
                        return tsync_error(err, errno, "cache store: %s/%s: %s", dir, tmp, strerror(errno));
                named = true;
        }

        what = "writing";
        r = write_all(fd, buf, (size_t)n);
        if (r == 0) {
                /* Exactly 0600 whatever the umask; load refuses anything looser. */
                what = "fchmod";
                r = fchmod(fd, 0600) < 0 ? -errno : 0;
        }
        if (r == 0) {
                what = "fsync";
                r = fsync(fd) < 0 ? -errno : 0;
        }
        if (r == 0 && !named) {
                what = "linking the temp file";
                r = link_tmpfile(fd, dfd, tmp);
                named = r == 0;
        }
        if (r == 0) {
                what = "renaming the temp file";
                r = renameat(dfd, tmp, dfd, name) < 0 ? -errno : 0;
                if (r == 0)
                        named = false;
        }
        if (r < 0) {
                if (named)
                        (void)unlinkat(dfd, tmp, 0);
                return tsync_error(err, -r, "cache store: %s/%s: %s: %s", dir, name, what, strerror(-r));
        }
        /* The rename is durable once the directory is synced. */
        if (fsync(dfd) < 0)
                return tsync_error(err, errno, "cache store: %s: fsync: %s", dir, strerror(errno));
        return 0;
}

int tsync_cache_compile(const char *cache_dir, const struct tsync_profile *p, const struct tsync_compile_opts *opts,
                        uint64_t caps, struct tsync_program **ret, struct tsync_warnings *warnings,
                        struct tsync_err *err)
{
        _cleanup_program_ struct tsync_program *prog = NULL;
        char key[TSYNC_CACHE_KEY_LEN + 1];
        int r;

        if (!cache_dir)
                return tsync_compile(p, opts, ret, warnings, err);

        r = tsync_compile_check_names(p, opts, warnings, err);
        if (r < 0)
                return r;
        r = tsync_cache_key(p, opts, caps, key, err);
        if (r < 0)
                return r;
        r = tsync_cache_load(cache_dir, key, &prog, err);
        if (r == 0) {
                *ret = TAKE_PTR(prog);
                return 0;
        }
        if (r != -ENOENT)
                return r;

        r = tsync_compile(p, opts, &prog, warnings, err);
        if (r < 0)
                return r;
        /* A store failure fails the call: the caller asked for a cache, and a
         * cache that silently stops working (full disk, wrong permissions)
         * would go unnoticed. Callers that prefer to run uncached pass NULL. */
        r = tsync_cache_store(cache_dir, key, prog, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(prog);
        return 0;
}
