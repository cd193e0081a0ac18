/* The compiled-filter cache: <dir>/<sha256 of the inputs>.bpf. An entry is a
 * small header binding it to its key, then a filter file:
 *   offset 0   char     magic[16]   ENTRY_MAGIC
 *          16  uint32_t version     ENTRY_VERSION
 *          20  uint32_t reserved    0
 *          24  char     key[64]     the hex key the file is named after
 *          88  uint8_t  digest[32]  SHA-256 of the key and the filter file
 *          120 the filter file (shared/filterfile.h)
 * An entry is only ever replaced whole (tsync_write_at), and anything that
 * fails to decode, or names another key (a renamed or swapped entry), is
 * removed and rebuilt rather than trusted. The directory itself is trusted
 * only when it is ours alone, as the state root is. */
#include "translate/cache.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "shared/filterfile.h"
#include "util/fileio.h"
#include "util/json.h"
#include "util/sha256.h"

#ifndef TSYNC_VERSION
#define TSYNC_VERSION "dev"
#endif

#define ENTRY_SUFFIX      ".bpf"
#define NAME_MAX_LEN      (TSYNC_CACHE_KEY_LEN + sizeof(ENTRY_SUFFIX))
#define ENTRY_MAGIC       "oci-tsync-cache" /* 15 characters and a NUL */
#define ENTRY_VERSION     2u                /* 1: a bare filter file, bound to nothing */
#define ENTRY_HEADER_SIZE TSYNC_CACHE_ENTRY_HEADER_SIZE
_Static_assert(TSYNC_CACHE_ENTRY_HEADER_SIZE == 16 + 4 + 4 + TSYNC_CACHE_KEY_LEN + 32, "entry header layout");
#define ENTRY_MAX_SIZE (ENTRY_HEADER_SIZE + TSYNC_FILTER_MAX_SIZE)

/* The GNU build ID of this program (a SHA-1 from ld, or longer). */
struct build_id {
        unsigned char bytes[64];
        size_t len;
};

/* A length (or a count), as 8 bytes. */
static void key_length(struct tsync_sha256 *s, size_t len)
{
        unsigned char n[8];

        for (unsigned i = 0; i < 8; i++)
                n[i] = (unsigned char)((uint64_t)len >> (8 * i));
        tsync_sha256_update(s, n, sizeof(n));
}

/* Each field is preceded by its length, so no field can run into the next. */
static void key_field(struct tsync_sha256 *s, const void *data, size_t len)
{
        key_length(s, len);
        tsync_sha256_update(s, data, len);
}

static void key_number(struct tsync_sha256 *s, const char *label, unsigned long long v)
{
        char b[64];
        int n = snprintf(b, sizeof(b), "%s %llu", label, v);

        key_field(s, b, (size_t)n);
}

/* What both keys hold besides the profile: how it is compiled, and by which
 * libseccomp and which of our versions. */
static int key_inputs(struct tsync_sha256 *s, const struct tsync_compile_opts *opts, uint64_t caps,
                      struct tsync_err *err)
{
        /* Resolve the native arch as tsync_compile does: 0 and the explicit
         * native token give the same program, so they share an entry. */
        uint32_t native = opts && opts->native_arch ? opts->native_arch : seccomp_arch_native();
        const struct scmp_version *v = seccomp_version();
        if (!v)
                return tsync_error(err, EINVAL, "cache key: libseccomp did not report its version");
        char version[64];
        (void)snprintf(version, sizeof(version), "%u.%u.%u", v->major, v->minor, v->micro);
        key_number(s, "native_arch", native);
        key_number(s, "strict", opts && opts->strict);
        key_number(s, "caps", caps);
        key_field(s, version, strlen(version));
        /* libseccomp shapes the program by what it found the kernel supports (actions,
         * flags): a kernel that gains or loses support must not be served an old entry. */
        key_number(s, "libseccomp api", seccomp_api_get());
        key_field(s, TSYNC_VERSION, strlen(TSYNC_VERSION));
        key_number(s, "filter file", TSYNC_FILTER_VERSION);
        /* The compiler's own generation: 2 since a foreign --arch's rules are
         * added by this machine's numbers (before, its entries were wrong). */
        key_number(s, "compiler", 2);
        return 0;
}

static void key_hex(struct tsync_sha256 *s, char ret[TSYNC_CACHE_KEY_LEN + 1])
{
        static const char hex[] = "0123456789abcdef";
        unsigned char md[32];
        tsync_sha256_final(s, md);
        for (unsigned i = 0; i < 32; i++) {
                ret[2 * i] = hex[md[i] >> 4];
                ret[2 * i + 1] = hex[md[i] & 0xf];
        }
        ret[TSYNC_CACHE_KEY_LEN] = '\0';
}

int tsync_cache_key(const struct tsync_profile *p, const struct tsync_compile_opts *opts, uint64_t caps,
                    char ret[TSYNC_CACHE_KEY_LEN + 1], struct tsync_err *err)
{
        _cleanup_free_ char *canon = NULL;
        size_t canon_len = 0;
        struct tsync_sha256 s;

        if (!p)
                return tsync_error(err, EINVAL, "cache key: no profile");
        int r = tsync_profile_canonical(p, &canon, &canon_len);
        if (r < 0)
                return tsync_error(err, -r, "cache key: canonical profile: %s", tsync_errtext(-r));
        tsync_sha256_init(&s);
        key_field(&s, "oci-seccomp-tsync cache key", 27);
        key_field(&s, canon, canon_len);
        r = key_inputs(&s, opts, caps, err);
        if (r < 0)
                return r;
        key_hex(&s, ret);
        return 0;
}

/* Every node with its type and every string and list with its length: two
 * documents that differ anywhere feed different bytes. */
static void key_json(struct tsync_sha256 *s, const struct tsync_json *v)
{
        unsigned char type = (unsigned char)v->type;
        tsync_sha256_update(s, &type, 1);
        switch (v->type) {
        case TSYNC_JSON_NULL:
                break;
        case TSYNC_JSON_BOOL:
                type = v->u.boolean;
                tsync_sha256_update(s, &type, 1);
                break;
        case TSYNC_JSON_NUMBER:
                key_field(s, v->u.number, strlen(v->u.number));
                break;
        case TSYNC_JSON_STRING:
                key_field(s, v->u.string.ptr, v->u.string.len);
                break;
        case TSYNC_JSON_ARRAY:
                key_length(s, v->u.array.len);
                for (size_t i = 0; i < v->u.array.len; i++)
                        key_json(s, v->u.array.items[i]);
                break;
        case TSYNC_JSON_OBJECT:
                key_length(s, v->u.object.len);
                for (size_t i = 0; i < v->u.object.len; i++) {
                        key_field(s, v->u.object.keys[i], strlen(v->u.object.keys[i]));
                        key_json(s, v->u.object.values[i]);
                }
                break;
        }
}

static int build_id_note(struct dl_phdr_info *info, size_t size, void *data)
{
        (void)size;
        struct build_id *id = data;
        /* The first object is the program itself. */
        for (size_t i = 0; i < info->dlpi_phnum && !id->len; i++) {
                const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
                if (ph->p_type != PT_NOTE)
                        continue;
                const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
                size_t align = ph->p_align == 8 ? 8 : 4;
                while (!id->len && end - p >= (ptrdiff_t)sizeof(ElfW(Nhdr))) {
                        const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
                        const unsigned char *name = p + sizeof(*n),
                                            *desc = name + ((n->n_namesz + align - 1) & ~(align - 1));
                        const unsigned char *next = desc + ((n->n_descsz + align - 1) & ~(align - 1));
                        if (next > end)
                                break;
                        if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
                            n->n_descsz > 0 && n->n_descsz <= sizeof(id->bytes)) {
                                memcpy(id->bytes, desc, n->n_descsz);
                                id->len = n->n_descsz;
                        }
                        p = next;
                }
        }
        return 1;
}

int tsync_cache_key_json(const struct tsync_json *profile, const struct tsync_compile_opts *opts, uint64_t caps,
                         char ret[TSYNC_CACHE_KEY_LEN + 1], struct tsync_err *err)
{
        struct build_id id = { .len = 0 };
        (void)dl_iterate_phdr(build_id_note, &id);
        if (!id.len)
                return tsync_error(err, ENOENT, "cache key: this program has no build ID");
        struct tsync_sha256 s;
        tsync_sha256_init(&s);
        key_field(&s, "oci-seccomp-tsync cache key of a JSON profile", 45);
        key_field(&s, id.bytes, id.len);
        key_json(&s, profile);
        int r = key_inputs(&s, opts, caps, err);
        if (r < 0)
                return r;
        key_hex(&s, ret);
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
                                   tsync_errtext(-r));
        return tsync_error(err, ENOENT, "cache entry %s/%s: %s; removed", dir, name, why);
}

/* Reads the whole file, at most max bytes; *ret_len > max means it is bigger. */
static int read_bounded(int fd, unsigned char *buf, size_t max, size_t *ret_len)
{
        long len = tsync_filter_read(fd, buf, max + 1);
        if (len < 0)
                return (int)len;
        *ret_len = (size_t)len;
        return 0;
}

static void entry_digest(const char *key, const unsigned char *file, size_t len, unsigned char md[32])
{
        struct tsync_sha256 s;

        tsync_sha256_init(&s);
        tsync_sha256_update(&s, key, TSYNC_CACHE_KEY_LEN);
        tsync_sha256_update(&s, file, len);
        tsync_sha256_final(&s, md);
}

/* Why buf[0..n) is not the entry of key, or NULL; *ret_file is its filter file. */
static const char *check_entry(const unsigned char *buf, size_t n, const char *key, const unsigned char **ret_file,
                               size_t *ret_len)
{
        unsigned char md[32];
        uint32_t version;

        if (n >= sizeof(TSYNC_FILTER_MAGIC) - 1 && memcmp(buf, TSYNC_FILTER_MAGIC, sizeof(TSYNC_FILTER_MAGIC) - 1) == 0)
                return "an entry of an older format (version 1)";
        if (n < ENTRY_HEADER_SIZE)
                return "truncated";
        if (memcmp(buf, ENTRY_MAGIC, sizeof(ENTRY_MAGIC)) != 0)
                return "not a cache entry";
        memcpy(&version, buf + 16, sizeof(version));
        if (version != ENTRY_VERSION)
                return "an entry of another format version";
        if (memcmp(buf + 24, key, TSYNC_CACHE_KEY_LEN) != 0)
                return "holds the entry of another key (renamed or swapped)";
        entry_digest(key, buf + ENTRY_HEADER_SIZE, n - ENTRY_HEADER_SIZE, md);
        if (memcmp(buf + 24 + TSYNC_CACHE_KEY_LEN, md, sizeof(md)) != 0)
                return "checksum mismatch";
        *ret_file = buf + ENTRY_HEADER_SIZE;
        *ret_len = n - ENTRY_HEADER_SIZE;
        return NULL;
}

/* The directory must be ours alone: whoever can write it can swap entries. */
static int check_dir(int dfd, const char *dir, struct tsync_err *err)
{
        char what[PATH_MAX + 32];
        struct stat st;

        if (fstat(dfd, &st) < 0)
                return tsync_error_errno(err, "cache directory %s", dir);
        (void)snprintf(what, sizeof(what), "cache directory %s", dir);
        return tsync_check_private_dir(what, &st, err);
}

int tsync_cache_load(const char *dir, const char *key, struct tsync_program **ret, struct tsync_err *err)
{
        _cleanup_close_ int dfd = -1, fd = -1;
        _cleanup_free_ unsigned char *buf = NULL;
        const struct sock_filter *insns;
        const unsigned char *file = NULL;
        char name[NAME_MAX_LEN];
        const char *why;
        struct stat st;
        size_t len, file_len = 0, n = 0;
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
                return tsync_error(err, saved, "cache directory %s: %s", dir, tsync_errtext(saved));
        }
        r = check_dir(dfd, dir, err);
        if (r < 0)
                return r;
        /* O_NONBLOCK: a FIFO planted under the name must not hang us. */
        fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0) {
                if (errno == ENOENT)
                        return tsync_error(err, ENOENT, "%s/%s: not in the cache", dir, name);
                if (errno == ELOOP)
                        return bad_entry(dfd, dir, name, -1, "is a symbolic link", err);
                return tsync_error_errno(err, "cache entry %s/%s", dir, name);
        }
        if (fstat(fd, &st) < 0)
                return tsync_error_errno(err, "cache entry %s/%s", dir, name);
        if (!S_ISREG(st.st_mode))
                return bad_entry(dfd, dir, name, fd, "not a regular file", err);
        /* We write entries 0600 as ourselves; anything else was not written by us. */
        if (st.st_uid != geteuid() || (st.st_mode & 0077))
                return bad_entry(dfd, dir, name, fd, "wrong owner or mode", err);
        if (st.st_size > (off_t)ENTRY_MAX_SIZE)
                return bad_entry(dfd, dir, name, fd, "too large", err);

        buf = malloc(ENTRY_MAX_SIZE + 1);
        if (!buf)
                return tsync_error(err, ENOMEM, "cache entry %s/%s: out of memory", dir, name);
        r = read_bounded(fd, buf, ENTRY_MAX_SIZE, &n);
        if (r < 0)
                return tsync_error(err, -r, "cache entry %s/%s: reading: %s", dir, name, tsync_errtext(-r));
        if (n > ENTRY_MAX_SIZE)
                return bad_entry(dfd, dir, name, fd, "too large", err);
        why = check_entry(buf, n, key, &file, &file_len);
        if (why)
                return bad_entry(dfd, dir, name, fd, why, err);
        /* The filter file starts at an offset a multiple of 8, so its program stays aligned. */
        uint32_t listener;
        r = tsync_filter_decode(file, file_len, &insns, &len, &flags, &listener, &why);
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
        prog->listener = listener;
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

/* Opens dir, creating it if missing; a symlink, a non-directory or a
 * directory that is not ours alone is refused. */
static int open_cache_dir(const char *dir, struct tsync_err *err)
{
        _cleanup_close_ int dfd = -1;
        struct stat st;
        int r;

        if (lstat(dir, &st) < 0) {
                if (errno != ENOENT)
                        return tsync_error_errno(err, "cache directory %s", dir);
                r = mkdir_parents(dir);
                if (r < 0)
                        return tsync_error(err, -r, "creating cache directory %s: %s", dir, tsync_errtext(-r));
                if (lstat(dir, &st) < 0)
                        return tsync_error_errno(err, "cache directory %s", dir);
        }
        if (S_ISLNK(st.st_mode))
                return tsync_error(err, ELOOP, "cache directory %s is a symbolic link", dir);
        if (!S_ISDIR(st.st_mode))
                return tsync_error(err, ENOTDIR, "cache directory %s is not a directory", dir);
        /* O_NOFOLLOW as well, and the checks on what was opened: it may have been swapped since lstat. */
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                return tsync_error_errno(err, "cache directory %s", dir);
        r = check_dir(dfd, dir, err);
        if (r < 0)
                return r;
        return TAKE_FD(dfd);
}

int tsync_cache_store(const char *dir, const char *key, const struct tsync_program *prog, struct tsync_err *err)
{
        _cleanup_close_ int dfd = -1;
        _cleanup_free_ unsigned char *buf = NULL;
        char name[NAME_MAX_LEN], path[PATH_MAX + NAME_MAX_LEN + 16];
        uint32_t version = ENTRY_VERSION;
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

        size_t size = ENTRY_HEADER_SIZE + TSYNC_FILTER_HEADER_SIZE + prog->len * sizeof(struct sock_filter);
        buf = calloc(1, size);
        if (!buf)
                return tsync_error(err, ENOMEM, "cache store: out of memory");
        n = tsync_filter_encode(prog->insns, prog->len, prog->flags, prog->listener, buf + ENTRY_HEADER_SIZE,
                                size - ENTRY_HEADER_SIZE);
        if (n < 0)
                return tsync_error(err, (int)-n, "cache store: encoding the filter (flags %#x): %s", prog->flags,
                                   tsync_errtext((int)-n));
        memcpy(buf, ENTRY_MAGIC, sizeof(ENTRY_MAGIC));
        memcpy(buf + 16, &version, sizeof(version));
        memcpy(buf + 24, key, TSYNC_CACHE_KEY_LEN);
        entry_digest(key, buf + ENTRY_HEADER_SIZE, (size_t)n, buf + 24 + TSYNC_CACHE_KEY_LEN);

        dfd = open_cache_dir(dir, err);
        if (dfd < 0)
                return dfd;
        (void)snprintf(path, sizeof(path), "%s/%s", dir, name);
        /* Exactly 0600 and durable: load refuses anything looser. */
        r = tsync_write_at(dfd, path, name, buf, ENTRY_HEADER_SIZE + (size_t)n, 0600, TSYNC_WRITE_DURABLE, err);
        if (r < 0)
                return tsync_error_prefix(err, "cache store");
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

        /* A hit says what a compile would of the names, unless nobody
         * listens and nothing is strict (the runtime's own profile). */
        r = warnings || (opts && opts->strict) ? tsync_compile_check_names(p, opts, warnings, err) : 0;
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
