/* The fuzz targets' steps and the properties they check (see fuzz_steps.h).
 *
 * Every step treats a refusal as fine and checks what must hold anyway: a
 * failure carries an errno and a message; a value read back from a JSON tree
 * agrees with the tree; a written tree parses back to the same text; a
 * compiled program passes our validator, simulates without error, is
 * explained by the profile, survives the filter file, and loads in the kernel. */
#include "fuzz_steps.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../unit/json_yajl.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/bpf.h"
#include "shared/cleanup.h"
#include "shared/filterfile.h"
#include "translate/analysis.h"
#include "translate/compile.h"
#include "translate/profile.h"
#include "translate/source.h"
#include "util/json.h"
#include "util/json_build.h"

enum fuzz_kernel_mode fuzz_kernel_mode = FUZZ_KERNEL_SAMPLED;
struct fuzz_stats fuzz_stats;

/* Capability numbers of Podman's default_capabilities (containers.conf):
 * CHOWN DAC_OVERRIDE FOWNER FSETID KILL SETGID SETUID SETPCAP NET_BIND_SERVICE SYS_CHROOT SETFCAP. */
#define PODMAN_CAPS                                                                                                    \
        ((1ull << 0) | (1ull << 1) | (1ull << 3) | (1ull << 4) | (1ull << 5) | (1ull << 6) | (1ull << 7) |             \
         (1ull << 8) | (1ull << 10) | (1ull << 18) | (1ull << 31))

void fuzz_fail(const char *fmt, ...)
{
        va_list ap;
        fputs("fuzz: property broken: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        abort();
}

void fuzz_check_err(int r, const struct tsync_err *err, const char *what)
{
        if (r >= 0)
                return;
        if (err->code != -r || err->msg[0] == '\0')
                fuzz_fail("%s returned %d but the error says code %d, message '%s'", what, r, err->code, err->msg);
        if (!memchr(err->msg, '\0', sizeof(err->msg)))
                fuzz_fail("%s: the error message is not terminated", what);
}

struct tsync_json *fuzz_parse_input(const uint8_t *data, size_t size)
{
        struct tsync_err err = { 0 };
        struct tsync_json *doc = NULL;

        fuzz_stats.inputs++;
        int r = tsync_json_parse((const char *)data, size, NULL, &doc, &err);
        fuzz_check_err(r, &err, "tsync_json_parse");
        if (r < 0)
                return NULL;
        fuzz_stats.parsed++;
        return doc;
}

void fuzz_print_stats(const char *target)
{
        const struct fuzz_stats *s = &fuzz_stats;
        const struct {
                const char *what;
                unsigned long n;
        } counts[] = {
                { "JSON accepted", s->parsed },
                { "profiles (or states) accepted", s->profiles },
                { "programs compiled and validated", s->programs },
                { "programs loaded in the kernel", s->kernel_loads },
                { "rewrites checked", s->rewrites },
                { "filter files decoded", s->decoded },
                { "decoded, then rejected by validate", s->decoded_invalid },
                { "rejected by validate, loaded by the kernel", s->validate_stricter },
        };
        fprintf(stderr, "fuzz: %s: %lu inputs", target, s->inputs);
        for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
                if (counts[i].n)
                        fprintf(stderr, ", %lu %s", counts[i].n, counts[i].what);
        fputc('\n', stderr);
        if (s->flag_refusals)
                fprintf(stderr,
                        "fuzz: %s: the kernel refused %lu programs with their own flags (%#x); flags 0 loaded\n",
                        target, s->flag_refusals, s->refused_flags);
}

/* --- the kernel ------------------------------------------------------------------------- */

struct load_answer {
        int done;
        int err;
};

int fuzz_kernel_load(const struct sock_filter *insns, size_t len, uint32_t flags)
{
        /* The child answers through shared memory: after the filter is loaded any
         * syscall may be denied, a write to a pipe included. */
        static struct load_answer *answer;
        if (!answer) {
                void *m = mmap(NULL, sizeof(*answer), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
                if (m == MAP_FAILED)
                        return -1;
                answer = m;
        }
        __atomic_store_n(&answer->done, 0, __ATOMIC_SEQ_CST);
        answer->err = -1;
        struct sock_fprog fp = { .len = (unsigned short)len, .filter = (struct sock_filter *)insns };

        pid_t pid = fork();
        if (pid < 0)
                return -1;
        if (pid == 0) {
                /* Raw syscalls only: a sanitizer's exit path makes calls of its own
                 * that the new filter may deny. A TRAP on exit_group must not dump core. */
                struct rlimit no_core = { 0, 0 };
                (void)syscall(SYS_setrlimit, RLIMIT_CORE, &no_core);
                long r = syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L);
                if (r == 0)
                        r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, (unsigned long)flags, &fp);
                answer->err = r == 0 ? 0 : errno;
                __atomic_store_n(&answer->done, 1, __ATOMIC_SEQ_CST);
                /* The filter may deny exit_group as well: the parent kills us. */
                for (;;)
                        (void)syscall(SYS_exit_group, 0);
        }
        bool reaped = false;
        while (!__atomic_load_n(&answer->done, __ATOMIC_SEQ_CST)) {
                if (waitpid(pid, NULL, WNOHANG) == pid) {
                        reaped = true;
                        break;
                }
                struct timespec ts = { 0, 20000 };
                (void)nanosleep(&ts, NULL);
        }
        if (!reaped) {
                (void)kill(pid, SIGKILL);
                (void)waitpid(pid, NULL, 0);
        }
        return __atomic_load_n(&answer->done, __ATOMIC_SEQ_CST) ? answer->err : -1;
}

/* Whether to load a program of len instructions now. A fork of a sanitized
 * process costs milliseconds: each length once, then a sample. */
static bool sample_kernel(size_t len, unsigned char seen[TSYNC_FILTER_MAX_INSNS + 1], unsigned long *count,
                          unsigned long every)
{
        switch (fuzz_kernel_mode) {
        case FUZZ_KERNEL_OFF:
                return false;
        case FUZZ_KERNEL_ALWAYS:
                return true;
        case FUZZ_KERNEL_SAMPLED:
                break;
        }
        ++*count;
        if (len <= TSYNC_FILTER_MAX_INSNS && !seen[len]) {
                seen[len] = 1;
                return true;
        }
        return *count % every == 0;
}

/* Programs that passed validate: the kernel must take them. */
static bool want_kernel(size_t len)
{
        static unsigned char seen[TSYNC_FILTER_MAX_INSNS + 1];
        static unsigned long count;
        return sample_kernel(len, seen, &count, FUZZ_KERNEL_EVERY);
}

/* Programs validate refused: only counted when the kernel takes them (validate may be stricter). */
static bool want_kernel_rejected(size_t len)
{
        static unsigned char seen[TSYNC_FILTER_MAX_INSNS + 1];
        static unsigned long count;
        return sample_kernel(len, seen, &count, 16 * FUZZ_KERNEL_EVERY);
}

/* A program we produced must load: with flags 0 always (abort otherwise), and
 * with its own flags when it has some (counted when the kernel refuses those). */
static void kernel_check(const struct sock_filter *insns, size_t len, uint32_t flags)
{
        int e = fuzz_kernel_load(insns, len, 0);
        if (e != 0)
                fuzz_fail("the kernel refuses a %zu-instruction program that passed tsync_bpf_validate: %s", len,
                          e > 0 ? strerror(e) : "the child died before answering");
        fuzz_stats.kernel_loads++;
        if (flags) {
                e = fuzz_kernel_load(insns, len, flags);
                if (e != 0) {
                        fuzz_stats.flag_refusals++;
                        fuzz_stats.refused_flags |= flags;
                }
        }
}

/* --- JSON ------------------------------------------------------------------------------- */

static void check_node(const struct tsync_json *v)
{
        struct tsync_err err = { 0 };
        uint64_t u;
        const char *s;
        bool b;
        int r;

        if (!tsync_json_type_name(v->type))
                fuzz_fail("type %d has no name", (int)v->type);
        for (int t = TSYNC_JSON_NULL; t <= TSYNC_JSON_OBJECT; t++) {
                r = tsync_json_expect(v, "v", (enum tsync_json_type)t, &err);
                fuzz_check_err(r, &err, "tsync_json_expect");
                if ((r == 0) != (v->type == (enum tsync_json_type)t))
                        fuzz_fail("tsync_json_expect(%d) on a %s returned %d", t, tsync_json_type_name(v->type), r);
        }
        r = tsync_json_u64(v, "v", &u, &err);
        fuzz_check_err(r, &err, "tsync_json_u64");
        if (r == 0) {
                /* Only a plain decimal literal is a u64, so printing it back gives the literal. */
                char buf[32];
                (void)snprintf(buf, sizeof(buf), "%" PRIu64, u);
                if (v->type != TSYNC_JSON_NUMBER || strcmp(buf, v->u.number) != 0)
                        fuzz_fail("tsync_json_u64 read %s from '%s'", buf,
                                  v->type == TSYNC_JSON_NUMBER ? v->u.number : tsync_json_type_name(v->type));
                uint64_t capped;
                r = tsync_json_uint_max(v, "v", 4095, &capped, &err);
                fuzz_check_err(r, &err, "tsync_json_uint_max");
                if ((r == 0) != (u <= 4095) || (r == 0 && capped != u))
                        fuzz_fail("tsync_json_uint_max(4095) on %s returned %d", buf, r);
        }
        r = tsync_json_str(v, "v", &s, &err);
        fuzz_check_err(r, &err, "tsync_json_str");
        if (r == 0 && (v->type != TSYNC_JSON_STRING || strlen(s) != v->u.string.len))
                fuzz_fail("tsync_json_str accepted a value with a NUL byte or of another type");
        if (r < 0 && v->type == TSYNC_JSON_STRING && strlen(v->u.string.ptr) == v->u.string.len)
                fuzz_fail("tsync_json_str refused a string without NUL: %s", err.msg);
        r = tsync_json_bool(v, "v", &b, &err);
        fuzz_check_err(r, &err, "tsync_json_bool");
        if ((r == 0) != (v->type == TSYNC_JSON_BOOL) || (r == 0 && b != v->u.boolean))
                fuzz_fail("tsync_json_bool disagrees with the tree");

        switch (v->type) {
        case TSYNC_JSON_ARRAY:
                for (size_t i = 0; i < v->u.array.len; i++)
                        check_node(v->u.array.items[i]);
                break;
        case TSYNC_JSON_OBJECT:
                for (size_t i = 0; i < v->u.object.len; i++) {
                        /* Duplicate keys are refused, so each key finds its own value. */
                        if (tsync_json_get(v, v->u.object.keys[i]) != v->u.object.values[i])
                                fuzz_fail("tsync_json_get('%s') does not find member %zu", v->u.object.keys[i], i);
                        check_node(v->u.object.values[i]);
                }
                if (tsync_json_get(v, "\x01no such key\x02"))
                        fuzz_fail("tsync_json_get found a key that is not there");
                break;
        default:
                if (tsync_json_get(v, "x"))
                        fuzz_fail("tsync_json_get found a member in a %s", tsync_json_type_name(v->type));
                break;
        }
}

static char *write_json(const struct tsync_json *v, bool pretty)
{
        struct tsync_err err = { 0 };
        char *text = NULL;
        size_t len;
        int r = tsync_json_write(v, pretty, &text, &len, &err);
        fuzz_check_err(r, &err, "tsync_json_write");
        if (r < 0)
                fuzz_fail("tsync_json_write refused a tree the parser built: %s", err.msg);
        if (strlen(text) != len)
                fuzz_fail("tsync_json_write: length %zu, text of %zu bytes", len, strlen(text));
        return text;
}

/* Writing a parsed tree and parsing the text again gives the same text: the
 * config rewrite keeps every field it does not touch. A copy writes the same too. */
static void check_round_trip(const struct tsync_json *v)
{
        struct tsync_err err = { 0 };
        _cleanup_json_ struct tsync_json *again = NULL, *copy = NULL;

        for (int pretty = 0; pretty <= 1; pretty++) {
                _cleanup_free_ char *text = write_json(v, pretty);
                int r = tsync_json_parse(text, strlen(text), NULL, &again, &err);
                fuzz_check_err(r, &err, "tsync_json_parse");
                if (r < 0)
                        fuzz_fail("the parser refuses what tsync_json_write wrote: %s\n%s", err.msg, text);
                _cleanup_free_ char *text2 = write_json(again, pretty);
                if (strcmp(text, text2) != 0)
                        fuzz_fail("write(parse(write(v))) differs from write(v):\n%s\n%s", text, text2);
                tsync_json_free(again);
                again = NULL;
        }
        copy = tsync_json_copy(v);
        if (!copy)
                fuzz_fail("tsync_json_copy failed");
        _cleanup_free_ char *a = write_json(v, false), *b = write_json(copy, false);
        if (strcmp(a, b) != 0)
                fuzz_fail("a copy writes differently:\n%s\n%s", a, b);
}

void fuzz_json(const uint8_t *data, size_t size)
{
        struct tsync_err err = { 0 };
        /* The hooks' fast read never accepts what the parse refuses. */
        fuzz_exec_view_check(data, size, false);
        /* Our parser takes what yajl's took, as the same tree, and no more (json_yajl.h). */
        char why[512] = "";
        if (!json_parsers_agree((const char *)data, size, 0, why, sizeof(why)))
                fuzz_fail("tsync_json_parse and yajl disagree: %s", why);
        _cleanup_json_ struct tsync_json *doc = fuzz_parse_input(data, size);
        if (!doc)
                return;
        check_node(doc);
        check_round_trip(doc);

        /* The same bytes with tight limits: refused or the same tree. */
        struct tsync_json_limits tight = { .max_bytes = size ? size : 1, .max_depth = 2 };
        _cleanup_json_ struct tsync_json *small = NULL;
        int r = tsync_json_parse((const char *)data, size, &tight, &small, &err);
        fuzz_check_err(r, &err, "tsync_json_parse (depth 2)");
        if (r == 0) {
                _cleanup_free_ char *a = write_json(doc, false), *b = write_json(small, false);
                if (strcmp(a, b) != 0)
                        fuzz_fail("the same bytes parse differently under a depth limit");
        }
        if (size > 1) {
                struct tsync_json_limits shorter = { .max_bytes = size - 1 };
                _cleanup_json_ struct tsync_json *none = NULL;
                r = tsync_json_parse((const char *)data, size, &shorter, &none, &err);
                fuzz_check_err(r, &err, "tsync_json_parse (max_bytes)");
                if (r != -EFBIG)
                        fuzz_fail("an input one byte over max_bytes gave %d, not -EFBIG", r);
        }
}

/* The hook's OCI state reader (static in hook/cli/cmd_hook.c): the same steps. */
void fuzz_state(const uint8_t *data, size_t size)
{
        struct tsync_err err = { 0 };
        struct tsync_json_limits lim = { .max_bytes = 1u << 20 };
        _cleanup_json_ struct tsync_json *doc = NULL;
        const char *id = NULL, *bundle = NULL;

        fuzz_stats.inputs++;
        /* Read through a file descriptor, as the hook reads stdin. */
        int fd = memfd_create("state", MFD_CLOEXEC);
        if (fd < 0)
                fuzz_fail("memfd_create: %s", strerror(errno));
        if (size && write(fd, data, size) != (ssize_t)size)
                fuzz_fail("writing the memfd: %s", strerror(errno));
        (void)lseek(fd, 0, SEEK_SET);
        int r = tsync_json_parse_fd(fd, &lim, &doc, &err);
        (void)close(fd);
        fuzz_check_err(r, &err, "tsync_json_parse_fd");
        if (r < 0)
                return;
        fuzz_stats.parsed++;
        r = tsync_json_str(tsync_json_get(doc, "id"), "state.id", &id, &err);
        fuzz_check_err(r, &err, "tsync_json_str(id)");
        if (r == 0) {
                r = tsync_json_str(tsync_json_get(doc, "bundle"), "state.bundle", &bundle, &err);
                fuzz_check_err(r, &err, "tsync_json_str(bundle)");
        }
        if (r < 0)
                return;
        /* The strings point into the tree and hold no NUL before their end. */
        const struct tsync_json *idv = tsync_json_get(doc, "id"), *bv = tsync_json_get(doc, "bundle");
        if (id != idv->u.string.ptr || strlen(id) != idv->u.string.len || bundle != bv->u.string.ptr ||
            strlen(bundle) != bv->u.string.len)
                fuzz_fail("tsync_json_str returned a string that is not the tree's");
        fuzz_stats.profiles++;
}

/* --- profiles and programs -------------------------------------------------------------- */

static void check_disassembly(const struct sock_filter *insns, size_t len)
{
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        if (!f)
                fuzz_fail("open_memstream: %s", strerror(errno));
        int r = tsync_bpf_disassemble(insns, len, f);
        (void)fclose(f);
        /* One line per instruction. */
        size_t lines = 0;
        for (size_t i = 0; i < n; i++)
                lines += buf[i] == '\n';
        free(buf);
        if (r == 0 && lines != len)
                fuzz_fail("disassembly of %zu instructions has %zu lines", len, lines);
}

/* A program that passed validate (from the compiler or a filter file). */
static void check_valid_program(const struct sock_filter *insns, size_t len, uint32_t flags)
{
        static const int32_t nrs[] = { 0, 39, 59, 231, 435, 1000, -1, 0x40000000 + 39 };
        static const uint32_t arches[] = { 0xc000003e /* x86_64 */, 0x40000003 /* i386 */, 0xc00000b7 /* aarch64 */,
                                           0 };
        struct tsync_err err = { 0 };

        for (size_t a = 0; a < sizeof(arches) / sizeof(arches[0]); a++)
                for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
                        struct tsync_bpf_input in = { .nr = nrs[i], .arch = arches[a], .instruction_pointer = 0x1000 };
                        for (int k = 0; k < 6; k++)
                                in.args[k] = (uint64_t)(i + 1) << (k * 8);
                        struct tsync_bpf_result res;
                        int r = tsync_bpf_simulate(insns, len, &in, &res, &err);
                        fuzz_check_err(r, &err, "tsync_bpf_simulate");
                        if (r < 0)
                                fuzz_fail("validate accepted a program simulate fails on: %s", err.msg);
                        if (res.executed == 0 || res.executed > len)
                                fuzz_fail("simulate says %zu instructions executed of %zu", res.executed, len);
                        char name[64];
                        tsync_bpf_ret_name(res.ret, name, sizeof(name));
                }
        check_disassembly(insns, len);
        if (want_kernel(len))
                kernel_check(insns, len, flags);
}

/* The compiled program, through the filter file the init reads. */
static void check_filter_file(const struct tsync_program *prog)
{
        size_t size = TSYNC_FILTER_HEADER_SIZE + prog->len * sizeof(struct sock_filter);
        _cleanup_free_ void *buf = malloc(size);
        if (!buf)
                fuzz_fail("out of memory");
        long n = tsync_filter_encode(prog->insns, prog->len, prog->flags, prog->listener, buf, size);
        if (n != (long)size)
                fuzz_fail("tsync_filter_encode of a compiled program (flags %#x) returned %ld", prog->flags, n);
        const struct sock_filter *back;
        size_t len;
        uint32_t flags;
        const char *why = NULL;
        uint32_t listener;
        int r = tsync_filter_decode(buf, size, &back, &len, &flags, &listener, &why);
        if (r < 0)
                fuzz_fail("a filter file we wrote does not decode: %s", why);
        if (len != prog->len || flags != prog->flags || listener != prog->listener ||
            memcmp(back, prog->insns, len * sizeof(*back)) != 0)
                fuzz_fail("a filter file decodes to another program");
}

/* Every syscall a rule names is explained by the profile (a rule, the default,
 * the ENOSYS stub); a call through an ABI the profile does not list by the
 * bad-architecture action. */
static void check_explained(const struct tsync_profile *p, const struct tsync_program *prog)
{
        struct tsync_err err = { 0 };
        uint32_t abis[4] = { SCMP_ARCH_X86_64, SCMP_ARCH_X86, SCMP_ARCH_X32, SCMP_ARCH_AARCH64 };
        size_t probes = 0;

        for (size_t i = 0; i < p->n_rules && probes < 64; i++) {
                const struct tsync_rule *rule = &p->rules[i];
                for (size_t j = 0; j < rule->n_names && j < 2; j++)
                        for (size_t a = 0; a < sizeof(abis) / sizeof(abis[0]); a++) {
                                int nr = seccomp_syscall_resolve_name_arch(abis[a], rule->names[j]);
                                if (nr < 0)
                                        continue;
                                /* Arguments that satisfy the rule's first condition, and zeros. */
                                uint64_t args[2][6] = { { 0 } };
                                if (rule->n_args) {
                                        const struct tsync_arg *c = &rule->args[0];
                                        args[1][c->index] = c->op == TSYNC_OP_MASKED_EQ ? c->value_two : c->value;
                                }
                                for (int k = 0; k < 2; k++) {
                                        struct tsync_explanation e;
                                        int r = tsync_explain(p, prog, SCMP_ARCH_X86_64, abis[a], nr, args[k], &e,
                                                              &err);
                                        fuzz_check_err(r, &err, "tsync_explain");
                                        if (r < 0)
                                                fuzz_fail("tsync_explain failed on a compiled program: %s", err.msg);
                                        if (e.decider == TSYNC_DECIDED_UNEXPLAINED)
                                                fuzz_fail("%s (%s nr %d, args[%d]=%#" PRIx64 ") returned %#x, which "
                                                          "nothing in the profile asks for",
                                                          rule->names[j], tsync_arch_name(abis[a]), nr,
                                                          rule->n_args ? (int)rule->args[0].index : 0,
                                                          args[k][rule->n_args ? rule->args[0].index : 0], e.ret);
                                        probes++;
                                }
                        }
        }
}

static void check_profile(const struct tsync_profile *p)
{
        struct tsync_err err = { 0 };
        struct tsync_warnings warnings = { 0 };
        _cleanup_program_ struct tsync_program *prog = NULL;

        fuzz_stats.profiles++;
        /* The cache key's input: the same profile always gives the same text. */
        char *c1 = NULL, *c2 = NULL;
        size_t l1, l2;
        if (tsync_profile_canonical(p, &c1, &l1) < 0 || tsync_profile_canonical(p, &c2, &l2) < 0)
                fuzz_fail("tsync_profile_canonical failed");
        if (l1 != l2 || memcmp(c1, c2, l1) != 0)
                fuzz_fail("tsync_profile_canonical is not stable");
        free(c1);
        free(c2);

        struct tsync_compile_opts strict = { .native_arch = SCMP_ARCH_X86_64, .strict = true };
        int r = tsync_compile_check_names(p, &strict, NULL, &err);
        fuzz_check_err(r, &err, "tsync_compile_check_names");

        struct tsync_compile_opts opts = { .native_arch = SCMP_ARCH_X86_64 };
        r = tsync_compile(p, &opts, &prog, &warnings, &err);
        tsync_warnings_clear(&warnings);
        fuzz_check_err(r, &err, "tsync_compile");
        if (r < 0)
                return;
        if (!prog || !prog->insns || prog->len == 0 || prog->len > TSYNC_FILTER_MAX_INSNS)
                fuzz_fail("tsync_compile returned a program of %zu instructions", prog ? prog->len : 0);
        r = tsync_bpf_validate(prog->insns, prog->len, &err);
        fuzz_check_err(r, &err, "tsync_bpf_validate");
        if (r < 0)
                fuzz_fail("a compiled program fails tsync_bpf_validate: %s", err.msg);
        if (prog->flags & ~TSYNC_FILTER_ALLOWED_FLAGS)
                fuzz_fail("a compiled program carries flags %#x the filter file refuses", prog->flags);
        fuzz_stats.programs++;
        check_filter_file(prog);
        check_explained(p, prog);
        check_valid_program(prog->insns, prog->len, prog->flags);
}

/* The key check: strict fails exactly when warn finds something, with a message naming it. */
static void check_keys(const struct tsync_json *doc, bool docker)
{
        struct tsync_err err = { 0 };
        struct tsync_warnings w = { 0 };
        int strict = tsync_profile_check_keys(doc, docker, false, "", NULL, &err);
        fuzz_check_err(strict, &err, "tsync_profile_check_keys");
        if (strict < 0 && (strict != -EINVAL || !strstr(err.msg, "unknown key")))
                fuzz_fail("tsync_profile_check_keys: strict check failed with %d '%s'", strict, err.msg);
        int warn = tsync_profile_check_keys(doc, docker, true, "linux.seccomp", &w, &err);
        if (warn < 0 && warn != -ENOMEM)
                fuzz_fail("tsync_profile_check_keys: the warning check failed with %d '%s'", warn, err.msg);
        if (warn == 0 && (strict < 0) != (w.len > 0))
                fuzz_fail("tsync_profile_check_keys: strict says %d but %zu warnings", strict, w.len);
        tsync_warnings_clear(&w);
}

/* One profile format's parser on the input as JSON: a refusal carries a
 * message, a profile it takes holds up (check_profile). */
static void parse_profile(const uint8_t *data, size_t size, bool docker)
{
        struct tsync_err err = { 0 };
        _cleanup_profile_ struct tsync_profile *p = NULL;
        const struct tsync_docker_ctx ctx = {
                .native_arch = SCMP_ARCH_X86_64, .caps = PODMAN_CAPS, .kernel_major = 6, .kernel_minor = 1
        };

        _cleanup_json_ struct tsync_json *doc = fuzz_parse_input(data, size);
        if (!doc)
                return;
        if (docker)
                (void)tsync_profile_is_docker(doc);
        check_keys(doc, docker);
        int r = docker ? tsync_profile_from_docker(doc, &ctx, &p, &err) : tsync_profile_from_oci(doc, &p, &err);
        fuzz_check_err(r, &err, docker ? "tsync_profile_from_docker" : "tsync_profile_from_oci");
        if (r == 0)
                check_profile(p);
}

void fuzz_profile_oci(const uint8_t *data, size_t size)
{
        parse_profile(data, size, false);
}

void fuzz_profile_docker(const uint8_t *data, size_t size)
{
        parse_profile(data, size, true);
}

/* --- the init's filter file ------------------------------------------------------------- */

void fuzz_filterfile(const uint8_t *data, size_t size)
{
        struct tsync_err err = { 0 };
        const struct sock_filter *prog = NULL;
        size_t len = 0;
        uint32_t flags = 0, listener = 0;
        const char *why = NULL;

        fuzz_stats.inputs++;
        /* The init reads into a buffer aligned for struct sock_filter; exactly size bytes, so ASan sees any overrun. */
        _cleanup_free_ uint8_t *buf = malloc(size ? size : 1);
        if (!buf)
                fuzz_fail("out of memory");
        memcpy(buf, data, size);
        int r = tsync_filter_decode(buf, size, &prog, &len, &flags, &listener, &why);
        if (r < 0) {
                if (r != -EBADMSG || !why || !*why)
                        fuzz_fail("tsync_filter_decode refused with %d and reason '%s'", r, why ? why : "(none)");
        } else {
                fuzz_stats.decoded++;
                struct tsync_filter_agent agent = { NULL, NULL };
                int ra = tsync_filter_decode_agent(buf, size, &agent);
                if ((ra == 0) != (listener == TSYNC_LISTENER_AGENT) || (ra < 0 && ra != -ENOENT))
                        fuzz_fail("tsync_filter_decode_agent disagrees with tsync_filter_decode (%d)", ra);
                size_t want = tsync_filter_file_size(len, ra == 0 ? &agent : NULL);
                if (len == 0 || len > TSYNC_FILTER_MAX_INSNS || size != want || (flags & ~TSYNC_FILTER_ALLOWED_FLAGS) ||
                    (const uint8_t *)prog != buf + TSYNC_FILTER_HEADER_SIZE)
                        fuzz_fail("tsync_filter_decode accepted a file that breaks its own layout");
                if (ra == 0 && (agent.path[0] != '/' || strlen(agent.path) > TSYNC_FILTER_MAX_AGENT_PATH ||
                                agent.path < (const char *)buf || agent.metadata >= (const char *)buf + size))
                        fuzz_fail("tsync_filter_decode_agent accepted a trailer that breaks its own rules");
                /* Re-encoding gives the same bytes. */
                _cleanup_free_ uint8_t *again = malloc(size);
                long n = !again    ? -ENOMEM
                         : ra == 0 ? tsync_filter_encode_agent(prog, len, flags, &agent, again, size)
                                   : tsync_filter_encode(prog, len, flags, listener, again, size);
                if (n != (long)size || memcmp(again, buf, size) != 0)
                        fuzz_fail("re-encoding a decoded filter file gives other bytes");
                r = tsync_bpf_validate(prog, len, &err);
                fuzz_check_err(r, &err, "tsync_bpf_validate");
                if (r == 0) {
                        check_valid_program(prog, len, flags);
                } else {
                        /* The init validates after decoding: it would stop here. */
                        fuzz_stats.decoded_invalid++;
                        if (want_kernel_rejected(len) && fuzz_kernel_load(prog, len, 0) == 0)
                                fuzz_stats.validate_stricter++;
                }
        }

        /* The program part of any input, wrapped in a correct header: the
         * accepting path with arbitrary instructions, which a checksum keeps
         * the mutator from reaching often. */
        size_t n = size / sizeof(struct sock_filter);
        if (n == 0 || n > TSYNC_FILTER_MAX_INSNS)
                return;
        _cleanup_free_ struct sock_filter *insns = malloc(n * sizeof(*insns));
        size_t fsize = TSYNC_FILTER_HEADER_SIZE + n * sizeof(*insns);
        _cleanup_free_ uint8_t *file = malloc(fsize);
        if (!insns || !file)
                fuzz_fail("out of memory");
        memcpy(insns, data, n * sizeof(*insns));
        uint32_t f = (uint32_t)size & TSYNC_FILTER_ALLOWED_FLAGS;
        if (tsync_filter_encode(insns, n, f, TSYNC_LISTENER_NONE, file, fsize) != (long)fsize)
                fuzz_fail("tsync_filter_encode refused %zu instructions, flags %#x", n, f);
        r = tsync_filter_decode(file, fsize, &prog, &len, &flags, NULL, &why);
        if (r < 0 || len != n || flags != f || memcmp(prog, insns, n * sizeof(*insns)) != 0)
                fuzz_fail("a filter file tsync_filter_encode wrote does not decode back: %s", r < 0 ? why : "differs");
        /* One flipped byte anywhere is refused (the checksum covers the header and the program). */
        size_t at = (size * 2654435761u) % fsize;
        file[at] ^= 0x01;
        if (tsync_filter_decode(file, fsize, &prog, &len, &flags, NULL, &why) == 0)
                fuzz_fail("a filter file with byte %zu flipped still decodes", at);
        file[at] ^= 0x01;
        /* A misaligned buffer is a caller's bug, refused as such. */
        _cleanup_free_ uint8_t *shifted = malloc(fsize + 1);
        if (!shifted)
                fuzz_fail("out of memory");
        memcpy(shifted + 1, file, fsize);
        if (tsync_filter_decode(shifted + 1, fsize, &prog, &len, &flags, NULL, &why) != -EINVAL)
                fuzz_fail("tsync_filter_decode accepted a misaligned buffer");
        r = tsync_bpf_validate(insns, n, &err);
        fuzz_check_err(r, &err, "tsync_bpf_validate");
        if (r == 0)
                check_valid_program(insns, n, 0);
        else if (want_kernel_rejected(n) && fuzz_kernel_load(insns, n, 0) == 0)
                fuzz_stats.validate_stricter++;
}
