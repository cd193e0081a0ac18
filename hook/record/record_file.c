/* The record file the init writes (record/record_file.h): a strict reader, and the
 * small sets record_profile.c builds a profile from.
 *
 * The file is written by the init, but it lives in a directory the container's
 * user owns, so the workload can write to it too. It may add calls (it could
 * make them as well), but nothing it writes may make poststop read past its
 * limit, misread a line, or name an ABI libseccomp cannot compile: every line
 * is exactly "%08x %u\n", and anything else refuses the whole file. */
#include "record/record_file.h"

#include <errno.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "record_internal.h"
#include "shared/cleanup.h"
#include "translate/compile.h"
#include "translate/profile.h"

void tsync_record_set_free(struct tsync_record_set *set)
{
        if (!set)
                return;
        free(set->calls);
        free(set);
}

void tsync_names_clear(struct tsync_names *names)
{
        for (size_t i = 0; i < names->n; i++)
                free(names->v[i]);
        free(names->v);
        *names = (struct tsync_names){ 0 };
}

/* The index of name, or of where it would go. */
static size_t names_find(const struct tsync_names *names, const char *name, bool *found)
{
        size_t lo = 0, hi = names->n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                int c = strcmp(names->v[mid], name);
                if (c == 0) {
                        *found = true;
                        return mid;
                }
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        *found = false;
        return lo;
}

bool tsync_names_has(const struct tsync_names *names, const char *name)
{
        bool found;
        (void)names_find(names, name, &found);
        return found;
}

int tsync_names_add(struct tsync_names *names, const char *name)
{
        bool found;
        size_t at = names_find(names, name, &found);
        if (found)
                return 0;
        if (names->n == names->cap) {
                size_t cap = names->cap ? names->cap * 2 : 64;
                char **v = realloc(names->v, cap * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                names->v = v;
                names->cap = cap;
        }
        char *copy = strdup(name);
        if (!copy)
                return -ENOMEM;
        memmove(&names->v[at + 1], &names->v[at], (names->n - at) * sizeof(*names->v));
        names->v[at] = copy;
        names->n++;
        return 0;
}

int tsync_abis_add(struct tsync_abis *abis, uint32_t abi)
{
        for (size_t i = 0; i < abis->n; i++)
                if (abis->v[i] == abi)
                        return 0;
        if (abis->n == sizeof(abis->v) / sizeof(abis->v[0]))
                return -E2BIG;
        abis->v[abis->n++] = abi;
        return 0;
}

/* The ABI of a recorded call, if this libseccomp knows it: the AUDIT_ARCH_*
 * value is libseccomp's token for every ABI but x32, which the kernel reports
 * as x86_64 with the x32 bit in the number. */
static int abi_of(uint32_t audit_arch, uint32_t nr, uint32_t *ret)
{
        uint32_t abi = audit_arch, known;
        /* SCMP_ARCH_X32 is no AUDIT_ARCH_* value: seccomp_data never carries it. */
        if (audit_arch == SCMP_ARCH_X32)
                return -EINVAL;
        if (audit_arch == SCMP_ARCH_X86_64 && (nr & TSYNC_X32_SYSCALL_BIT))
                abi = SCMP_ARCH_X32;
        /* The one architecture table (profile.c), and the libseccomp we run with. */
        if (tsync_arch_parse(tsync_arch_name(abi), &known) < 0 || known != abi)
                return -EINVAL;
        *ret = abi;
        return 0;
}

bool tsync_record_abi_fits(uint32_t abi)
{
        uint32_t native = seccomp_arch_native();
        if (abi == native)
                return true;
        scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
        if (!ctx)
                return false;
        int r = seccomp_arch_add(ctx, abi);
        seccomp_release(ctx);
        return r == 0 || r == -EEXIST;
}

static bool is_lower_hex(char c)
{
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* One line without its newline: "%08x %u" exactly (no sign, no leading zero). */
static int parse_line(const char *s, size_t len, size_t lineno, struct tsync_abis *fit, struct tsync_record_call *ret,
                      struct tsync_err *err)
{
        uint32_t arch = 0;
        uint64_t nr = 0;

        if (len < 10 || s[8] != ' ')
                return tsync_error(err, EINVAL, "line %zu: not \"<8 hex digits> <number>\"", lineno);
        for (size_t i = 0; i < 8; i++) {
                if (!is_lower_hex(s[i]))
                        return tsync_error(err, EINVAL, "line %zu: the architecture is not 8 lowercase hex digits",
                                           lineno);
                arch = arch << 4 | (uint32_t)(s[i] <= '9' ? s[i] - '0' : s[i] - 'a' + 10);
        }
        const char *d = s + 9;
        size_t nd = len - 9;
        /* At most 10 digits: TSYNC_RECORD_LINE_MAX leaves no room for more. */
        for (size_t i = 0; i < nd; i++) {
                if (d[i] < '0' || d[i] > '9')
                        return tsync_error(err, EINVAL, "line %zu: the syscall number is not a decimal number", lineno);
                nr = nr * 10 + (uint64_t)(d[i] - '0');
        }
        if (nd > 1 && d[0] == '0')
                return tsync_error(err, EINVAL, "line %zu: the syscall number has a leading zero", lineno);
        if (nr > UINT32_MAX)
                return tsync_error(err, ERANGE, "line %zu: syscall number %llu is above %u", lineno,
                                   (unsigned long long)nr, UINT32_MAX);
        uint32_t abi;
        if (abi_of(arch, (uint32_t)nr, &abi) < 0)
                return tsync_error(err, EINVAL, "line %zu: architecture %08x is not one libseccomp %u.%u.%u knows",
                                   lineno, arch, seccomp_version()->major, seccomp_version()->minor,
                                   seccomp_version()->micro);
        /* Asked once per ABI: fit holds those that fit. */
        bool seen = false;
        for (size_t i = 0; i < fit->n && !seen; i++)
                seen = fit->v[i] == abi;
        if (!seen) {
                if (!tsync_record_abi_fits(abi))
                        return tsync_error(err, EINVAL, "line %zu: %s cannot be in one filter with this machine's %s",
                                           lineno, tsync_arch_name(abi), tsync_arch_name(seccomp_arch_native()));
                if (tsync_abis_add(fit, abi) < 0)
                        return tsync_error(err, E2BIG, "line %zu: too many architectures", lineno);
        }
        *ret = (struct tsync_record_call){ .abi = abi, .nr = (uint32_t)nr };
        return 0;
}

static int call_cmp(const void *a, const void *b)
{
        const struct tsync_record_call *x = a, *y = b;
        if (x->abi != y->abi)
                return x->abi < y->abi ? -1 : 1;
        if (x->nr != y->nr)
                return x->nr < y->nr ? -1 : 1;
        return 0;
}

int tsync_record_parse(const char *text, size_t len, struct tsync_record_set **ret, struct tsync_err *err)
{
        const size_t magic_len = sizeof(TSYNC_RECORD_MAGIC) - 1;

        if (len > TSYNC_RECORD_MAX_BYTES)
                return tsync_error(err, EFBIG, "%zu bytes is more than a recording may hold (%u bytes)", len,
                                   TSYNC_RECORD_MAX_BYTES);
        if (len < magic_len || memcmp(text, TSYNC_RECORD_MAGIC, magic_len) != 0)
                return tsync_error(err, EINVAL, "line 1: not a record file (it starts with \"%.*s\")",
                                   (int)(magic_len - 1), TSYNC_RECORD_MAGIC);

        _cleanup_record_set_ struct tsync_record_set *set = calloc(1, sizeof(*set));
        /* Every line takes at least 11 bytes: this many calls at most. */
        size_t cap = (len - magic_len) / 11 + 1;
        if (!set || !(set->calls = calloc(cap, sizeof(*set->calls))))
                return tsync_error(err, ENOMEM, "out of memory");

        struct tsync_abis fit = { 0 };
        size_t lineno = 1;
        for (size_t at = magic_len; at < len;) {
                lineno++;
                size_t rest = len - at;
                size_t window = rest < TSYNC_RECORD_LINE_MAX ? rest : TSYNC_RECORD_LINE_MAX;
                const char *nl = memchr(text + at, '\n', window);
                if (!nl) {
                        if (rest < TSYNC_RECORD_LINE_MAX)
                                return tsync_error(err, EINVAL, "line %zu: no newline at its end (cut short?)", lineno);
                        return tsync_error(err, EINVAL, "line %zu: longer than %u bytes", lineno,
                                           TSYNC_RECORD_LINE_MAX);
                }
                size_t line_len = (size_t)(nl - (text + at));
                if (set->n == cap)
                        return tsync_error(err, EINVAL, "line %zu: more lines than the file can hold", lineno);
                int r = parse_line(text + at, line_len, lineno, &fit, &set->calls[set->n], err);
                if (r < 0)
                        return r;
                set->n++;
                at += line_len + 1;
        }

        /* The init writes each pair once; a duplicate (the workload can write
         * here too) is harmless and dropped. */
        qsort(set->calls, set->n, sizeof(*set->calls), call_cmp);
        size_t kept = 0;
        for (size_t i = 0; i < set->n; i++)
                if (kept == 0 || call_cmp(&set->calls[kept - 1], &set->calls[i]) != 0)
                        set->calls[kept++] = set->calls[i];
        set->n = kept;
        *ret = TAKE_PTR(set);
        return 0;
}
