/* The filter cache on a real filesystem: keys, store/load, damaged entries,
 * temp files, modes, a full disk (a 64 KiB tmpfs), and compile-through-cache. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/filterfile.h"
#include "tap.h"
#include "translate/cache.h"
#include "unit.h"
#include "util/json.h"

static char top[] = "/tmp/test_cache.XXXXXX";

static const struct sock_filter small_insns[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 39, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 42),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

static const char key_a[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char key_b[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

static struct tsync_program small_prog(void)
{
        return (struct tsync_program){ .insns = (struct sock_filter *)small_insns,
                                       .len = sizeof(small_insns) / sizeof(small_insns[0]),
                                       .flags = 1u << 1 };
}

/* A hand-built profile: default ALLOW, one ERRNO(42) rule for the given name. */
struct test_profile {
        struct tsync_profile p;
        struct tsync_rule rule;
        char *names[1];
        uint32_t arches[1];
};

static void make_profile(struct test_profile *t, const char *name)
{
        memset(t, 0, sizeof(*t));
        t->names[0] = (char *)name;
        t->rule = (struct tsync_rule){
                .names = t->names, .n_names = 1, .action = { TSYNC_ACT_ERRNO, 42 }, .origin = (char *)"syscalls[0]"
        };
        t->arches[0] = SCMP_ARCH_X86_64;
        t->p = (struct tsync_profile){ .default_action = { TSYNC_ACT_ALLOW, 0 },
                                       .arches = t->arches,
                                       .n_arches = 1,
                                       .rules = &t->rule,
                                       .n_rules = 1 };
}

static int path_of(char *out, size_t size, const char *dir, const char *name)
{
        return snprintf(out, size, "%s/%s", dir, name) < (int)size ? 0 : -1;
}

static int entry_path(char *out, size_t size, const char *dir, const char *key)
{
        return snprintf(out, size, "%s/%s.bpf", dir, key) < (int)size ? 0 : -1;
}

/* Names in dir that are not "<64 hex>.bpf" and not `allowed`; first one in *odd. */
static int count_strays(const char *dir, const char *allowed, char odd[256])
{
        DIR *d = opendir(dir);
        int n = 0;

        odd[0] = '\0';
        if (!d)
                return -1;
        for (struct dirent *e; (e = readdir(d));) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                        continue;
                if (allowed && strcmp(e->d_name, allowed) == 0)
                        continue;
                size_t len = strlen(e->d_name);
                if (len == 68 && strcmp(e->d_name + 64, ".bpf") == 0 && strspn(e->d_name, "0123456789abcdef") == 64)
                        continue;
                if (n++ == 0)
                        (void)snprintf(odd, 256, "%s", e->d_name);
        }
        (void)closedir(d);
        return n;
}

static int same_prog(const struct tsync_program *a, const struct tsync_program *b)
{
        return a && b && a->len == b->len && a->flags == b->flags &&
               memcmp(a->insns, b->insns, a->len * sizeof(*a->insns)) == 0;
}

static void test_cache_key(void)
{
        struct test_profile t, u;
        struct tsync_compile_opts o = { 0 };
        struct tsync_err err = { 0 };
        char k1[65], k2[65];

        make_profile(&t, "getppid");
        int r = tsync_cache_key(&t.p, &o, 0, k1, &err);
        tap_ok(r == 0 && strlen(k1) == 64 && strspn(k1, "0123456789abcdef") == 64,
               "test_cache_key_is_64_lowercase_hex: %s", r == 0 ? k1 : err.msg);
        r = tsync_cache_key(&t.p, &o, 0, k2, &err);
        tap_ok(r == 0 && strcmp(k1, k2) == 0, "test_cache_key_is_deterministic");

        make_profile(&u, "getppid");
        r = tsync_cache_key(&u.p, NULL, 0, k2, &err);
        tap_ok(r == 0 && strcmp(k1, k2) == 0, "test_cache_key_same_for_equal_profiles_and_null_opts");

        o.native_arch = seccomp_arch_native();
        r = tsync_cache_key(&t.p, &o, 0, k2, &err);
        tap_ok(r == 0 && strcmp(k1, k2) == 0, "test_cache_key_native_arch_0_is_the_native_arch");
        o.native_arch = 0;

        /* Each input on its own changes the key. */
        struct {
                const char *name;
                int changed;
        } cases[9];
        size_t n = 0;

        make_profile(&u, "getpid");
        cases[n].name = "syscall_name";
        cases[n++].changed = tsync_cache_key(&u.p, &o, 0, k2, &err) == 0 && strcmp(k1, k2) != 0;

        make_profile(&u, "getppid");
        u.rule.action.data = 43;
        cases[n].name = "rule_errno";
        cases[n++].changed = tsync_cache_key(&u.p, &o, 0, k2, &err) == 0 && strcmp(k1, k2) != 0;

        make_profile(&u, "getppid");
        u.p.default_action.kind = TSYNC_ACT_LOG;
        cases[n].name = "default_action";
        cases[n++].changed = tsync_cache_key(&u.p, &o, 0, k2, &err) == 0 && strcmp(k1, k2) != 0;

        make_profile(&u, "getppid");
        u.p.flags = 1u << 1;
        cases[n].name = "profile_flags";
        cases[n++].changed = tsync_cache_key(&u.p, &o, 0, k2, &err) == 0 && strcmp(k1, k2) != 0;

        cases[n].name = "caps";
        cases[n++].changed = tsync_cache_key(&t.p, &o, 1ull << 21, k2, &err) == 0 && strcmp(k1, k2) != 0;

        struct tsync_compile_opts o2 = { .native_arch = seccomp_arch_native() == SCMP_ARCH_X86 ? SCMP_ARCH_X86_64
                                                                                               : SCMP_ARCH_X86 };
        cases[n].name = "native_arch";
        cases[n++].changed = tsync_cache_key(&t.p, &o2, 0, k2, &err) == 0 && strcmp(k1, k2) != 0;

        struct tsync_compile_opts o3 = { .strict = true };
        cases[n].name = "strict";
        cases[n++].changed = tsync_cache_key(&t.p, &o3, 0, k2, &err) == 0 && strcmp(k1, k2) != 0;

        /* As under valgrind, which answers seccomp(2) with ENOSYS: libseccomp then
         * believes in fewer actions. */
        const unsigned int api = seccomp_api_get();
        cases[n].name = "libseccomp_api_level";
        cases[n++].changed = seccomp_api_set(api > 1 ? 1 : 2) == 0 && tsync_cache_key(&t.p, &o, 0, k2, &err) == 0 &&
                             strcmp(k1, k2) != 0;
        (void)seccomp_api_set(api);

        for (size_t i = 0; i < n; i++)
                tap_ok(cases[i].changed, "test_cache_key_changes_with_%s", cases[i].name);
}

/* tsync_cache_key_json: the document itself, as parsed, and this build. */
static void test_cache_key_json(void)
{
        static const char base[] = "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"getppid\"], "
                                   "\"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1}]}";
        struct tsync_compile_opts o = { 0 };
        struct tsync_err err = { 0 };
        char k1[65], k2[65], kc[65];
        _cleanup_json_ struct tsync_json *a = unit_parse(base), *b = unit_parse(base);
        int r = tsync_cache_key_json(a, &o, 0, k1, &err);
        tap_ok(r == 0 && strlen(k1) == 64 && strspn(k1, "0123456789abcdef") == 64,
               "test_cache_key_json_is_64_lowercase_hex: %s", r == 0 ? k1 : err.msg);
        r = tsync_cache_key_json(b, &o, 0, k2, &err);
        tap_ok(r == 0 && strcmp(k1, k2) == 0, "test_cache_key_json_same_for_the_same_document");

        /* Never the canonical key of the same profile: two entries, each of its own kind. */
        struct test_profile t;
        make_profile(&t, "getppid");
        r = tsync_cache_key(&t.p, &o, 0, kc, &err);
        tap_ok(r == 0 && strcmp(k1, kc) != 0, "test_cache_key_json_is_not_the_canonical_key");

        /* Any change to the document, even one the profile does not see (a
         * key's order, a number's spelling, an unknown key), is another key. */
        static const struct {
                const char *name, *text;
        } changes[] = {
                { "a_name", "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"getpid\"], "
                            "\"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1}]}" },
                { "the_order_of_keys", "{\"syscalls\": [{\"names\": [\"getppid\"], \"action\": \"SCMP_ACT_ERRNO\", "
                                       "\"errnoRet\": 1}], \"defaultAction\": \"SCMP_ACT_ALLOW\"}" },
                { "a_numbers_spelling", "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": "
                                        "[\"getppid\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1.0}]}" },
                { "a_number_as_a_string", "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": "
                                          "[\"getppid\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": \"1\"}]}" },
                { "an_unknown_key", "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"x\": null, \"syscalls\": [{\"names\": "
                                    "[\"getppid\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1}]}" },
                { "a_name_split_in_two", "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": "
                                         "[\"getp\", \"pid\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1}]}" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(changes); i++) {
                _cleanup_json_ struct tsync_json *c = unit_parse(changes[i].text);
                r = c ? tsync_cache_key_json(c, &o, 0, k2, &err) : -EINVAL;
                tap_ok(r == 0 && strcmp(k1, k2) != 0, "test_cache_key_json_changes_with_%s", changes[i].name);
        }
        r = tsync_cache_key_json(a, &o, 1ull << 21, k2, &err);
        tap_ok(r == 0 && strcmp(k1, k2) != 0, "test_cache_key_json_changes_with_caps");
        struct tsync_compile_opts strict = { .strict = true };
        r = tsync_cache_key_json(a, &strict, 0, k2, &err);
        tap_ok(r == 0 && strcmp(k1, k2) != 0, "test_cache_key_json_changes_with_the_compile_options");
}

static void test_cache_bad_keys(void)
{
        static const char *const bad[] = {
                "",
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",   /* 63 */
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", /* 65 */
                "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                "../aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                "gaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        };
        struct tsync_program prog = small_prog(), *out = NULL;
        struct tsync_err err = { 0 };
        int ok = 1;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                int r1 = tsync_cache_load(top, bad[i], &out, &err);
                int r2 = tsync_cache_store(top, bad[i], &prog, &err);
                if (r1 != -EINVAL || r2 != -EINVAL) {
                        tap_diag("key '%s': load %d store %d", bad[i], r1, r2);
                        ok = 0;
                }
        }
        tap_ok(ok && out == NULL, "test_cache_refuses_keys_that_are_not_64_lowercase_hex");
}

static void test_cache_store_load(void)
{
        char dir[256], path[512], odd[256];
        struct tsync_program prog = small_prog();
        struct tsync_program *out = NULL;
        struct tsync_err err = { 0 };
        struct stat st;
        int r;

        (void)snprintf(dir, sizeof(dir), "%s/a/b/cache", top);
        r = tsync_cache_load(dir, key_a, &out, &err);
        tap_ok(r == -ENOENT && out == NULL, "test_cache_load_missing_dir_is_enoent: %d %s", r, err.msg);

        mode_t old = umask(0);
        r = tsync_cache_store(dir, key_a, &prog, &err);
        (void)umask(old);
        tap_ok(r == 0, "test_cache_store_creates_dirs: %s", r == 0 ? "" : err.msg);
        memset(&st, 0, sizeof(st));
        r = stat(dir, &st);
        tap_ok(r == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700, "test_cache_store_dir_mode_0700: %o",
               (unsigned)(st.st_mode & 07777));

        (void)entry_path(path, sizeof(path), dir, key_a);
        memset(&st, 0, sizeof(st));
        r = lstat(path, &st);
        tap_ok(r == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600,
               "test_cache_entry_mode_0600_even_with_umask_0: %o", (unsigned)(st.st_mode & 07777));

        /* The file is its own key, then exactly the filter file encoding of the program. */
        static union {
                struct sock_filter f;
                unsigned char b[TSYNC_CACHE_ENTRY_HEADER_SIZE + TSYNC_FILTER_MAX_SIZE + 1];
        } want, got;
        long wn = tsync_filter_encode(prog.insns, prog.len, prog.flags, prog.listener, want.b, sizeof(want.b));
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t gn = fd >= 0 ? read(fd, got.b, sizeof(got.b)) : -1;
        if (fd >= 0)
                (void)close(fd);
        tap_ok(wn > 0 && gn == wn + TSYNC_CACHE_ENTRY_HEADER_SIZE &&
                       memcmp(want.b, got.b + TSYNC_CACHE_ENTRY_HEADER_SIZE, (size_t)wn) == 0,
               "test_cache_entry_bytes_are_the_encoding");
        tap_ok(gn > 88 && memcmp(got.b + 24, key_a, TSYNC_CACHE_KEY_LEN) == 0, "test_cache_entry_carries_its_key");

        r = tsync_cache_load(dir, key_a, &out, &err);
        tap_ok(r == 0 && same_prog(out, &prog), "test_cache_store_then_load_identical: %d %s", r, r ? err.msg : "");
        tsync_program_free(out);
        out = NULL;

        r = tsync_cache_load(dir, key_b, &out, &err);
        tap_ok(r == -ENOENT && out == NULL, "test_cache_load_absent_key_is_enoent");

        /* Replacing an entry: the new content wins. */
        struct tsync_program other = prog;
        other.flags = 0;
        other.len = 2;
        static const struct sock_filter two[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        };
        other.insns = (struct sock_filter *)two;
        r = tsync_cache_store(dir, key_a, &other, &err);
        int r2 = tsync_cache_load(dir, key_a, &out, &err);
        tap_ok(r == 0 && r2 == 0 && same_prog(out, &other), "test_cache_store_replaces_entry");
        tsync_program_free(out);
        out = NULL;
        r = tsync_cache_store(dir, key_b, &prog, &err);
        tap_ok(r == 0 && count_strays(dir, NULL, odd) == 0, "test_cache_no_temp_files_after_stores: %s", odd);
}

/* Damages the entry for key_a in dir with `damage`, then expects -ENOENT, removal, and a working rebuild. */
static void check_damage(const char *dir, const char *what, int (*damage)(const char *path))
{
        struct tsync_program prog = small_prog(), *out = NULL;
        struct tsync_err err = { 0 };
        char path[512];
        struct stat st;

        (void)entry_path(path, sizeof(path), dir, key_a);
        if (tsync_cache_store(dir, key_a, &prog, &err) < 0 || damage(path) < 0) {
                tap_ok(0, "test_cache_detects_%s: setup: %s", what, err.msg);
                return;
        }
        int r = tsync_cache_load(dir, key_a, &out, &err);
        int gone = lstat(path, &st) < 0 && errno == ENOENT;
        tap_ok(r == -ENOENT && out == NULL && gone, "test_cache_detects_%s: r=%d removed=%d (%s)", what, r, gone,
               err.msg);
        tsync_program_free(out);
        out = NULL;
        r = tsync_cache_store(dir, key_a, &prog, &err);
        int r2 = tsync_cache_load(dir, key_a, &out, &err);
        tap_ok(r == 0 && r2 == 0 && same_prog(out, &prog), "test_cache_rebuilt_after_%s", what);
        tsync_program_free(out);
}

static int truncate_by_one(const char *path)
{
        struct stat st;
        return stat(path, &st) < 0 ? -1 : truncate(path, st.st_size - 1);
}
static int truncate_to_header(const char *path)
{
        return truncate(path, TSYNC_CACHE_ENTRY_HEADER_SIZE + TSYNC_FILTER_HEADER_SIZE);
}
static int truncate_into_header(const char *path)
{
        return truncate(path, TSYNC_CACHE_ENTRY_HEADER_SIZE - 1);
}
static int flip_digest_byte(const char *path)
{
        int fd = open(path, O_RDWR | O_CLOEXEC);
        unsigned char c;
        int r = -1;
        if (fd < 0)
                return -1;
        if (pread(fd, &c, 1, 100) == 1) {
                c ^= 0x80;
                r = pwrite(fd, &c, 1, 100) == 1 ? 0 : -1;
        }
        (void)close(fd);
        return r;
}
/* What version 1 wrote: the bare filter file, bound to no key. */
static int older_format(const char *path)
{
        struct tsync_program prog = small_prog();
        unsigned char buf[TSYNC_FILTER_MAX_SIZE];
        long n = tsync_filter_encode(prog.insns, prog.len, prog.flags, prog.listener, buf, sizeof(buf));
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        int r = fd >= 0 && n > 0 && write(fd, buf, (size_t)n) == n ? 0 : -1;
        if (fd >= 0)
                (void)close(fd);
        return r;
}
static int truncate_to_zero(const char *path)
{
        return truncate(path, 0);
}
static int flip_program_byte(const char *path)
{
        int fd = open(path, O_RDWR | O_CLOEXEC);
        unsigned char c;
        int r = -1;
        if (fd < 0)
                return -1;
        off_t at = TSYNC_CACHE_ENTRY_HEADER_SIZE + TSYNC_FILTER_HEADER_SIZE + 12;
        if (pread(fd, &c, 1, at) == 1) {
                c ^= 0x01;
                r = pwrite(fd, &c, 1, at) == 1 ? 0 : -1;
        }
        (void)close(fd);
        return r;
}
static int append_byte(const char *path)
{
        int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        int r = fd >= 0 && write(fd, "", 1) == 1 ? 0 : -1;
        if (fd >= 0)
                (void)close(fd);
        return r;
}
static int make_group_writable(const char *path)
{
        return chmod(path, 0620);
}
static int replace_with_symlink(const char *path)
{
        char target[512];
        (void)snprintf(target, sizeof(target), "%s/symlink-target", top);
        int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
                return -1;
        (void)close(fd);
        return unlink(path) < 0 ? -1 : symlink(target, path);
}
static int replace_with_fifo(const char *path)
{
        return unlink(path) < 0 ? -1 : mkfifo(path, 0600);
}

static void test_cache_damaged_entries(void)
{
        char dir[256], target[512];
        struct stat st;

        (void)snprintf(dir, sizeof(dir), "%s/damage", top);
        check_damage(dir, "truncated_by_one_byte", truncate_by_one);
        check_damage(dir, "truncated_to_the_header", truncate_to_header);
        check_damage(dir, "truncated_into_the_entry_header", truncate_into_header);
        check_damage(dir, "corrupted_digest_byte", flip_digest_byte);
        check_damage(dir, "entry_of_the_older_format", older_format);
        check_damage(dir, "empty_entry", truncate_to_zero);
        check_damage(dir, "corrupted_program_byte", flip_program_byte);
        check_damage(dir, "appended_byte", append_byte);
        check_damage(dir, "group_writable_entry", make_group_writable);
        check_damage(dir, "symlinked_entry", replace_with_symlink);
        check_damage(dir, "fifo_entry", replace_with_fifo);

        (void)snprintf(target, sizeof(target), "%s/symlink-target", top);
        tap_ok(stat(target, &st) == 0 && S_ISREG(st.st_mode), "test_cache_symlinked_entry_target_untouched");
}

static void test_cache_refuses_bad_dirs(void)
{
        struct tsync_program prog = small_prog(), *out = NULL;
        struct tsync_err err = { 0 };
        char real[256], link[256], file[256];

        (void)snprintf(real, sizeof(real), "%s/real", top);
        (void)snprintf(link, sizeof(link), "%s/link", top);
        (void)snprintf(file, sizeof(file), "%s/file", top);
        (void)mkdir(real, 0700);
        (void)symlink(real, link);
        int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0)
                (void)close(fd);

        int r = tsync_cache_store(link, key_a, &prog, &err);
        char p[512];
        (void)entry_path(p, sizeof(p), real, key_a);
        tap_ok(r == -ELOOP && access(p, F_OK) < 0, "test_cache_store_refuses_symlinked_dir: %d %s", r, err.msg);
        r = tsync_cache_load(link, key_a, &out, &err);
        tap_ok(r == -ELOOP && out == NULL, "test_cache_load_refuses_symlinked_dir: %d", r);
        r = tsync_cache_store(file, key_a, &prog, &err);
        tap_ok(r == -ENOTDIR, "test_cache_store_refuses_file_as_dir: %d %s", r, err.msg);

        /* rename fails (the entry name is a non-empty directory): the named temp must go. */
        char odd[256], blocker[512], inner[600];
        (void)entry_path(blocker, sizeof(blocker), real, key_b);
        (void)mkdir(blocker, 0700);
        (void)path_of(inner, sizeof(inner), blocker, "x");
        (void)mkdir(inner, 0700);
        r = tsync_cache_store(real, key_b, &prog, &err);
        char base[80];
        (void)snprintf(base, sizeof(base), "%s.bpf", key_b);
        int strays = count_strays(real, base, odd);
        tap_ok(r < 0 && strays == 0, "test_cache_failed_rename_leaves_no_temp: r=%d (%s) strays=%d %s", r, err.msg,
               strays, odd);
        /* load of a directory under the entry name: reported, not trusted. */
        r = tsync_cache_load(real, key_b, &out, &err);
        tap_ok(r < 0 && out == NULL, "test_cache_load_directory_entry_refused: %d %s", r, err.msg);
}

/* A cache directory anyone else can write is refused by store and load, and nothing is written into it. */
static void check_bad_dir(const char *what, mode_t mode, uid_t owner)
{
        struct tsync_program prog = small_prog(), *out = NULL;
        struct tsync_err err = { 0 };
        char dir[256], p[512];

        (void)snprintf(dir, sizeof(dir), "%s/dir-%s", top, what);
        if (mkdir(dir, 0700) < 0 || chmod(dir, mode) < 0 || chown(dir, owner, (gid_t)-1) < 0) {
                tap_ok(0, "test_cache_refuses_%s_dir: setup: %s", what, strerror(errno));
                return;
        }
        int r = tsync_cache_store(dir, key_a, &prog, &err);
        (void)entry_path(p, sizeof(p), dir, key_a);
        tap_ok(r == -EPERM && access(p, F_OK) < 0 && strstr(err.msg, "must be a directory owned by uid"),
               "test_cache_store_refuses_%s_dir: %d %s", what, r, err.msg);
        memset(&err, 0, sizeof(err));
        r = tsync_cache_load(dir, key_a, &out, &err);
        tap_ok(r == -EPERM && out == NULL && strstr(err.msg, "writable by it alone"),
               "test_cache_load_refuses_%s_dir: %d %s", what, r, err.msg);
        tsync_program_free(out);
}

static void test_cache_dir_must_be_ours_alone(void)
{
        check_bad_dir("group_writable", 0770, geteuid());
        check_bad_dir("world_writable", 0777, geteuid());
        check_bad_dir("sticky_world_writable", 01777, geteuid());
        /* Only root can give a directory away; as another user the case cannot be made. */
        if (geteuid() == 0)
                check_bad_dir("foreign_owned", 0700, 65534);
        else
                tap_ok(1, "test_cache_refuses_foreign_owned_dir # skip needs root to chown");

        /* Readable by others is fine: only writing lets one swap entries. */
        struct tsync_program prog = small_prog(), *out = NULL;
        struct tsync_err err = { 0 };
        char dir[256];
        (void)snprintf(dir, sizeof(dir), "%s/dir-0755", top);
        (void)mkdir(dir, 0700);
        (void)chmod(dir, 0755);
        int r = tsync_cache_store(dir, key_a, &prog, &err);
        int r2 = r == 0 ? tsync_cache_load(dir, key_a, &out, &err) : r;
        tap_ok(r2 == 0 && same_prog(out, &prog), "test_cache_accepts_0755_dir_of_ours: %d %s", r2, err.msg);
        tsync_program_free(out);
}

/* In a directory whose owner renamed one entry over another (what a second
 * writer could do): the victim's compile must return its own program and
 * repair its entry, never load the other one. */
static void test_cache_swapped_entries(void)
{
        struct test_profile weak, strong;
        struct tsync_compile_opts o = { 0 };
        struct tsync_program *weak_direct = NULL, *strong_direct = NULL, *got = NULL, *again = NULL;
        struct tsync_warnings w = { 0 };
        struct tsync_err err = { 0 };
        char dir[256], kw[TSYNC_CACHE_KEY_LEN + 1], ks[TSYNC_CACHE_KEY_LEN + 1], pw[512], ps[512];

        make_profile(&weak, "getcwd");
        make_profile(&strong, "ptrace");
        strong.rule.action = (struct tsync_action){ TSYNC_ACT_KILL_PROCESS, 0 };
        (void)snprintf(dir, sizeof(dir), "%s/swap", top);
        if (tsync_compile(&weak.p, &o, &weak_direct, &w, &err) < 0 ||
            tsync_compile(&strong.p, &o, &strong_direct, &w, &err) < 0 ||
            tsync_cache_key(&weak.p, &o, 0, kw, &err) < 0 || tsync_cache_key(&strong.p, &o, 0, ks, &err) < 0 ||
            tsync_cache_compile(dir, &weak.p, &o, 0, &got, &w, &err) < 0) {
                tap_ok(0, "test_cache_swapped_entry: setup: %s", err.msg);
                goto out;
        }
        tsync_program_free(got);
        got = NULL;
        (void)entry_path(pw, sizeof(pw), dir, kw);
        (void)entry_path(ps, sizeof(ps), dir, ks);
        if (tsync_cache_compile(dir, &strong.p, &o, 0, &got, &w, &err) < 0 || rename(pw, ps) < 0) {
                tap_ok(0, "test_cache_swapped_entry: setup: %s", err.msg);
                goto out;
        }
        tsync_program_free(got);
        got = NULL;
        tap_ok(!same_prog(weak_direct, strong_direct), "test_cache_swapped_entry_programs_differ");
        int r = tsync_cache_load(dir, ks, &got, &err);
        tap_ok(r == -ENOENT && got == NULL && strstr(err.msg, "another key"),
               "test_cache_swapped_entry_detected: %d %s", r, err.msg);
        tsync_program_free(got);
        got = NULL;
        /* Once more, through compile: the swapped entry is back in place. */
        (void)entry_path(ps, sizeof(ps), dir, ks);
        if (tsync_cache_compile(dir, &weak.p, &o, 0, &got, &w, &err) < 0 || rename(pw, ps) < 0) {
                tap_ok(0, "test_cache_swapped_entry: re-setup: %s", err.msg);
                goto out;
        }
        tsync_program_free(got);
        got = NULL;
        r = tsync_cache_compile(dir, &strong.p, &o, 0, &got, &w, &err);
        tap_ok(r == 0 && same_prog(got, strong_direct), "test_cache_swapped_entry_compiles_its_own_program: %d %s", r,
               r ? err.msg : "");
        r = tsync_cache_load(dir, ks, &again, &err);
        tap_ok(r == 0 && same_prog(again, strong_direct), "test_cache_swapped_entry_repaired: %d %s", r,
               r ? err.msg : "");
out:
        tsync_program_free(weak_direct);
        tsync_program_free(strong_direct);
        tsync_program_free(got);
        tsync_program_free(again);
        tsync_warnings_clear(&w);
}

/* Child: private mount namespace, a 64 KiB tmpfs, and two 32 KiB entries that cannot both fit.
 * Exit 0 pass, 77 mount not possible, anything else a failure (the code says which). */
static int full_disk_child(const char *mnt)
{
        static struct sock_filter big[TSYNC_FILTER_MAX_INSNS];
        struct tsync_program prog = { .insns = big, .len = TSYNC_FILTER_MAX_INSNS, .flags = 0 }, *out = NULL;
        struct tsync_err err = { 0 };
        char odd[256];

        for (size_t i = 0; i < TSYNC_FILTER_MAX_INSNS; i++)
                big[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(i % 16) * 4);
        big[TSYNC_FILTER_MAX_INSNS - 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);

        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
            mount("tmpfs", mnt, "tmpfs", 0, "size=64k,mode=0700") < 0)
                return 77;
        if (tsync_cache_store(mnt, key_a, &prog, &err) < 0) {
                printf("# first store failed: %s\n", err.msg);
                return 1;
        }
        int r = tsync_cache_store(mnt, key_b, &prog, &err);
        printf("# second store: %d %s\n", r, err.msg);
        if (r != -ENOSPC)
                return 2;
        if (count_strays(mnt, NULL, odd) != 0) {
                printf("# stray file %s\n", odd);
                return 3;
        }
        char path[512];
        (void)entry_path(path, sizeof(path), mnt, key_b);
        if (access(path, F_OK) == 0)
                return 4;
        /* The entry already there survived intact. */
        if (tsync_cache_load(mnt, key_a, &out, &err) < 0 || !same_prog(out, &prog))
                return 5;
        tsync_program_free(out);
        return 0;
}

static void test_cache_full_disk(void)
{
        char mnt[256];

        (void)snprintf(mnt, sizeof(mnt), "%s/tmpfs", top);
        (void)mkdir(mnt, 0700);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
                int code = full_disk_child(mnt);
                fflush(stdout);
                _exit(code);
        }
        int status = 0;
        (void)waitpid(pid, &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
                tap_ok(1, "test_cache_full_disk_leaves_no_temp # skip cannot mount a tmpfs here");
                return;
        }
        tap_ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
               "test_cache_full_disk_leaves_no_temp: status %#x", status);
}

static void test_cache_compile(void)
{
        struct test_profile t;
        struct tsync_compile_opts o = { 0 };
        struct tsync_program *direct = NULL, *first = NULL, *second = NULL, *third = NULL;
        struct tsync_warnings w = { 0 };
        struct tsync_err err = { 0 };
        char dir[256], key[65], path[512], odd[256];
        struct stat st1, st2, st3;
        int r;

        make_profile(&t, "getppid");
        (void)snprintf(dir, sizeof(dir), "%s/compile", top);

        r = tsync_compile(&t.p, &o, &direct, &w, &err);
        if (r < 0 || tsync_cache_key(&t.p, &o, 0, key, &err) < 0) {
                tap_ok(0, "test_cache_compile: setup: %s", err.msg);
                return;
        }
        (void)entry_path(path, sizeof(path), dir, key);

        r = tsync_cache_compile(NULL, &t.p, &o, 0, &first, &w, &err);
        tap_ok(r == 0 && same_prog(first, direct) && access(dir, F_OK) < 0, "test_cache_compile_without_cache_dir");
        tsync_program_free(first);
        first = NULL;

        r = tsync_cache_compile(dir, &t.p, &o, 0, &first, &w, &err);
        int stored = stat(path, &st1) == 0;
        tap_ok(r == 0 && same_prog(first, direct) && stored, "test_cache_compile_miss_compiles_and_stores: %d %s", r,
               r ? err.msg : "");

        /* A hit reads the entry: make it distinguishable by rewriting it with other (valid) flags. */
        struct tsync_program marked = *direct;
        marked.flags = 1u << 2;
        (void)tsync_cache_store(dir, key, &marked, &err);
        (void)stat(path, &st2);
        r = tsync_cache_compile(dir, &t.p, &o, 0, &second, &w, &err);
        tap_ok(r == 0 && same_prog(second, &marked), "test_cache_compile_hit_reads_the_entry");

        /* Truncated: detected, removed, rebuilt by compiling again. */
        (void)truncate(path, st2.st_size - 3);
        r = tsync_cache_compile(dir, &t.p, &o, 0, &third, &w, &err);
        int rebuilt = stat(path, &st3) == 0 && st3.st_size == st1.st_size;
        tap_ok(r == 0 && same_prog(third, direct) && rebuilt, "test_cache_compile_rebuilds_truncated_entry: %d %s", r,
               r ? err.msg : "");
        tap_ok(count_strays(dir, NULL, odd) == 0, "test_cache_compile_no_temp_files: %s", odd);

        /* The kernel runs what came out of the cache. */
        pid_t pid = fork();
        if (pid == 0) {
                struct sock_fprog fp = { .len = (unsigned short)third->len, .filter = third->insns };
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
                    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, third->flags, &fp) < 0)
                        _exit(2);
                /* syscall(): glibc's getppid() assumes it cannot fail and skips errno. */
                long ppid = syscall(SYS_getppid);
                _exit(ppid == -1 && errno == 42 ? 0 : 3);
        }
        int status = 0;
        (void)waitpid(pid, &status, 0);
        tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "test_cache_compile_program_runs: status %#x", status);

        /* A store failure is the call's failure, and *ret is left alone. */
        char file[256];
        struct tsync_program *untouched = (struct tsync_program *)&t;
        (void)snprintf(file, sizeof(file), "%s/not-a-dir", top);
        int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0)
                (void)close(fd);
        r = tsync_cache_compile(file, &t.p, &o, 0, &untouched, &w, &err);
        tap_ok(r < 0 && untouched == (struct tsync_program *)&t, "test_cache_compile_store_failure_is_an_error: %d %s",
               r, err.msg);

        tsync_program_free(direct);
        tsync_program_free(first);
        tsync_program_free(second);
        tsync_program_free(third);
        tsync_warnings_clear(&w);
}

int main(void)
{
        static void (*const tests[])(void) = {
                test_cache_key,
                test_cache_key_json,
                test_cache_bad_keys,
                test_cache_store_load,
                test_cache_damaged_entries,
                test_cache_refuses_bad_dirs,
                test_cache_dir_must_be_ours_alone,
                test_cache_swapped_entries,
                test_cache_full_disk,
                test_cache_compile,
        };
        return unit_main_in_tmpdir(top, tests, ARRAY_SIZE(tests));
}
