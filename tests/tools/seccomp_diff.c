/* seccomp_diff [--allow-enosys] [--limit N] A.bpf B.bpf: the differential
 * check between two classic-BPF seccomp programs (raw struct sock_filter
 * arrays, as seccomp_get_filter writes them or as we export them).
 *
 * Both programs run in tsync_bpf_simulate on the same inputs: x86_64, x32
 * (0x40000000|n under AUDIT_ARCH_X86_64) and i386 syscall numbers 0..1023,
 * numbers far out of range, a few foreign architectures, and for every
 * syscall whose path reads arguments, argument samples: each argument alone
 * over fixed values plus every constant the programs compare that argument
 * with (k-1, k, k+1 in either 32-bit half, masks and their complements),
 * pairs and triples of the arguments the programs look at, and seeded random
 * ones. A syscall whose zero-argument path reads no argument in either
 * program has the same result for every argument, so it is run once.
 *
 * Prints one line per difference, "ARCH NR (name) args=...: A=<ret> B=<ret>",
 * then per program the mean and max instructions executed over the
 * 3 x 1024 (arch, nr) grid with zero arguments, then a summary line.
 *
 * --allow-enosys: a difference where one side returns ERRNO(38) (ENOSYS) and
 * the other ERRNO(1) (EPERM) is printed with "(allowed)" and does not fail.
 *
 * Exit: 0 no difference (or only allowed ones), 1 differences, 2 error. */
#include <errno.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "shared/bpf.h"
#include "shared/cleanup.h"
#include "shared/error.h"

#define PROG           "seccomp_diff"
#define X32_BIT        0x40000000u
#define GRID_NR        1024
#define NARGS          6
#define RANDOM_SAMPLES 64
#define RET_EPERM      (SECCOMP_RET_ERRNO | 1u)
#define RET_ENOSYS     (SECCOMP_RET_ERRNO | 38u)

struct program {
        const char *path;
        struct sock_filter *insns;
        size_t len;
};

/* A growing set of 64-bit values, kept unique. */
struct valset {
        uint64_t *v;
        size_t len, cap;
};

static int valset_add(struct valset *s, uint64_t x)
{
        for (size_t i = 0; i < s->len; i++)
                if (s->v[i] == x)
                        return 0;
        if (s->len == s->cap) {
                size_t cap = s->cap ? s->cap * 2 : 32;
                uint64_t *v = realloc(s->v, cap * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                s->v = v;
                s->cap = cap;
        }
        s->v[s->len++] = x;
        return 0;
}

static void valset_free(struct valset *s)
{
        free(s->v);
        *s = (struct valset){ 0 };
}

/* Constants the programs compare each argument half with. */
struct arg_consts {
        struct valset lo[NARGS], hi[NARGS];           /* compared with JEQ/JGT/JGE */
        struct valset lo_mask[NARGS], hi_mask[NARGS]; /* JSET and AND masks */
        bool used[NARGS];
};

static void arg_consts_free(struct arg_consts *c)
{
        for (int i = 0; i < NARGS; i++) {
                valset_free(&c->lo[i]);
                valset_free(&c->hi[i]);
                valset_free(&c->lo_mask[i]);
                valset_free(&c->hi_mask[i]);
        }
}

static int load_program(const char *path, struct program *ret)
{
        struct stat st;

        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f || fstat(fileno(f), &st) < 0) {
                fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
                return -errno;
        }
        size_t size = (size_t)st.st_size;
        if (size == 0 || size % sizeof(struct sock_filter) || size / sizeof(struct sock_filter) > BPF_MAXINSNS) {
                fprintf(stderr, PROG ": %s: %zu bytes is not 1..%d struct sock_filter\n", path, size, BPF_MAXINSNS);
                return -EINVAL;
        }
        _cleanup_free_ struct sock_filter *insns = malloc(size);
        if (!insns) {
                fprintf(stderr, PROG ": out of memory\n");
                return -ENOMEM;
        }
        if (fread(insns, 1, size, f) != size) {
                fprintf(stderr, PROG ": %s: short read\n", path);
                return -EIO;
        }
        ret->path = path;
        ret->len = size / sizeof(struct sock_filter);
        ret->insns = TAKE_PTR(insns);
        return 0;
}

/* Bit 2*i+h in the source mask: A holds args[i], low (h=0) or high (h=1) half. */
#define SRC_OTHER (1u << 31)

static int add_const(struct arg_consts *c, uint32_t src, uint32_t k, bool mask)
{
        int r = 0;

        for (int i = 0; i < NARGS && r == 0; i++) {
                if (src & (1u << (2 * i))) {
                        c->used[i] = true;
                        r = valset_add(mask ? &c->lo_mask[i] : &c->lo[i], k);
                }
                if (r == 0 && (src & (1u << (2 * i + 1)))) {
                        c->used[i] = true;
                        r = valset_add(mask ? &c->hi_mask[i] : &c->hi[i], k);
                }
        }
        return r;
}

/* Forward data flow over the program (classic BPF jumps only forward): what
 * A may hold at each instruction, and so which constants each argument half
 * is compared with. Scratch memory and X make the source "other". */
static int collect_consts(const struct program *p, struct arg_consts *c)
{
        _cleanup_free_ uint32_t *in = calloc(p->len + 1, sizeof(*in));
        _cleanup_free_ bool *reached = calloc(p->len + 1, sizeof(*reached));
        if (!in || !reached)
                return -ENOMEM;
        reached[0] = true;
        in[0] = SRC_OTHER;

        for (size_t pc = 0; pc < p->len; pc++) {
                if (!reached[pc])
                        continue;
                const struct sock_filter *f = &p->insns[pc];
                uint32_t a = in[pc];
                uint16_t cls = BPF_CLASS(f->code);
                int r = 0;

                if (cls == BPF_RET)
                        continue;
                if (cls == BPF_LD) {
                        a = SRC_OTHER;
                        if (BPF_MODE(f->code) == BPF_ABS && f->k >= 16 && f->k < 64 && f->k % 4 == 0)
                                a = 1u << ((f->k - 16) / 4); /* 2*arg + half */
                } else if (cls == BPF_ALU) {
                        if (BPF_SRC(f->code) == BPF_K && (BPF_OP(f->code) == BPF_AND || BPF_OP(f->code) == BPF_OR))
                                r = add_const(c, a, f->k, true);
                        else if (BPF_OP(f->code) != BPF_NEG && BPF_SRC(f->code) == BPF_K)
                                r = add_const(c, a, f->k, false);
                } else if (cls == BPF_MISC && BPF_MISCOP(f->code) == BPF_TXA) {
                        a = SRC_OTHER;
                }
                if (r < 0)
                        return r;

                if (cls == BPF_JMP && BPF_OP(f->code) == BPF_JA) {
                        size_t t = pc + 1 + f->k;
                        if (t < p->len) {
                                in[t] |= a;
                                reached[t] = true;
                        }
                        continue;
                }
                if (cls == BPF_JMP) {
                        if (BPF_SRC(f->code) == BPF_K)
                                r = add_const(c, a, f->k, BPF_OP(f->code) == BPF_JSET);
                        if (r < 0)
                                return r;
                        size_t targets[2] = { pc + 1 + f->jt, pc + 1 + f->jf };
                        for (int t = 0; t < 2; t++)
                                if (targets[t] < p->len) {
                                        in[targets[t]] |= a;
                                        reached[targets[t]] = true;
                                }
                        continue;
                }
                in[pc + 1] |= a;
                reached[pc + 1] = true;
        }
        return 0;
}

/* To out, a half's constants with their neighbours: each compared value and
 * the ones either side of it, each mask with its lowest bit and its complement. */
static int add_neighbours(struct valset *out, const struct valset *cmp, const struct valset *masks)
{
        int r = 0;
        for (size_t j = 0; j < cmp->len && r == 0; j++) {
                uint32_t k = (uint32_t)cmp->v[j];
                r = valset_add(out, k);
                r = r ?: valset_add(out, k - 1);
                r = r ?: valset_add(out, k + 1);
        }
        for (size_t j = 0; j < masks->len && r == 0; j++) {
                uint32_t k = (uint32_t)masks->v[j];
                r = valset_add(out, k);
                r = r ?: valset_add(out, k & -k);
                r = r ?: valset_add(out, ~k);
        }
        return r;
}

/* Candidate values for argument i alone (all) and in combinations (pairs). */
static int make_values(const struct arg_consts *c, int i, struct valset *all, struct valset *pair)
{
        static const uint32_t fixed_lo[] = { 0, 1, 2, 3, 8, 0x10, 40, 0x10000000, 0x7e020000, 0x80000000, 0xffffffff };
        static const uint32_t fixed_hi[] = { 0, 1, 0x80000000, 0xffffffff };
        struct valset lo = { 0 }, hi = { 0 };
        int r = 0;

        for (size_t j = 0; j < ARRAY_SIZE(fixed_lo) && r == 0; j++)
                r = valset_add(&lo, fixed_lo[j]);
        for (size_t j = 0; j < ARRAY_SIZE(fixed_hi) && r == 0; j++)
                r = valset_add(&hi, fixed_hi[j]);
        r = r ?: add_neighbours(&lo, &c->lo[i], &c->lo_mask[i]);
        r = r ?: add_neighbours(&hi, &c->hi[i], &c->hi_mask[i]);
        for (size_t h = 0; h < hi.len && r == 0; h++)
                for (size_t l = 0; l < lo.len && r == 0; l++)
                        r = valset_add(all, hi.v[h] << 32 | lo.v[l]);
        for (size_t l = 0; l < lo.len && r == 0; l++)
                r = valset_add(pair, lo.v[l]);
        r = r ?: valset_add(pair, 0x100000000ull);
        r = r ?: valset_add(pair, UINT64_MAX);
        valset_free(&lo);
        valset_free(&hi);
        return r;
}

/* Argument vectors to try on a syscall whose path reads arguments. */
struct samples {
        uint64_t (*args)[NARGS];
        size_t len, cap;
};

static int samples_add(struct samples *s, const uint64_t args[NARGS])
{
        if (s->len == s->cap) {
                size_t cap = s->cap ? s->cap * 2 : 256;
                uint64_t(*a)[NARGS] = realloc(s->args, cap * sizeof(*a));
                if (!a)
                        return -ENOMEM;
                s->args = a;
                s->cap = cap;
        }
        memcpy(s->args[s->len++], args, sizeof(uint64_t) * NARGS);
        return 0;
}

static uint64_t xorshift64(uint64_t *state)
{
        uint64_t x = *state;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return *state = x;
}

static int make_samples(const struct arg_consts *c, struct samples *s)
{
        struct valset all[NARGS] = { 0 }, pair[NARGS] = { 0 };
        uint64_t a[NARGS];
        int r = 0;

        for (int i = 0; i < NARGS && r == 0; i++)
                r = make_values(c, i, &all[i], &pair[i]);

        /* Each argument alone. */
        for (int i = 0; i < NARGS && r == 0; i++)
                for (size_t j = 0; j < all[i].len && r == 0; j++) {
                        memset(a, 0, sizeof(a));
                        a[i] = all[i].v[j];
                        r = samples_add(s, a);
                }
        /* Pairs and triples of the arguments the programs compare, for
         * rules with several conditions (socket(AF_NETLINK, *, NETLINK_AUDIT)). */
        for (int i = 0; i < NARGS && r == 0; i++)
                for (int j = i + 1; j < NARGS && r == 0; j++) {
                        if (!c->used[i] || !c->used[j])
                                continue;
                        for (size_t x = 0; x < pair[i].len && r == 0; x++)
                                for (size_t y = 0; y < pair[j].len && r == 0; y++) {
                                        memset(a, 0, sizeof(a));
                                        a[i] = pair[i].v[x];
                                        a[j] = pair[j].v[y];
                                        r = samples_add(s, a);
                                }
                }
        for (int i = 0; i < NARGS && r == 0; i++)
                for (int j = i + 1; j < NARGS && r == 0; j++)
                        for (int k = j + 1; k < NARGS && r == 0; k++) {
                                if (!c->used[i] || !c->used[j] || !c->used[k])
                                        continue;
                                for (size_t x = 0; x < c->lo[i].len && r == 0; x++)
                                        for (size_t y = 0; y < c->lo[j].len && r == 0; y++)
                                                for (size_t z = 0; z < c->lo[k].len && r == 0; z++) {
                                                        memset(a, 0, sizeof(a));
                                                        a[i] = c->lo[i].v[x];
                                                        a[j] = c->lo[j].v[y];
                                                        a[k] = c->lo[k].v[z];
                                                        r = samples_add(s, a);
                                                }
                        }
        /* Every argument at once set to each fixed value, then seeded random mixes. */
        for (size_t j = 0; j < pair[0].len && r == 0; j++) {
                for (int i = 0; i < NARGS; i++)
                        a[i] = pair[0].v[j];
                r = samples_add(s, a);
        }
        uint64_t seed = 0x9e3779b97f4a7c15ull;
        for (int n = 0; n < RANDOM_SAMPLES && r == 0; n++) {
                for (int i = 0; i < NARGS; i++) {
                        uint64_t x = xorshift64(&seed);
                        a[i] = (x & 3) == 0 ? xorshift64(&seed) : all[i].v[(x >> 2) % all[i].len];
                }
                r = samples_add(s, a);
        }
        for (int i = 0; i < NARGS; i++) {
                valset_free(&all[i]);
                valset_free(&pair[i]);
        }
        return r;
}

struct arch_range {
        const char *name;
        uint32_t arch;
        uint32_t scmp_arch; /* for syscall names; 0 if none */
        uint32_t nr_base;
        bool grid; /* part of the 3 x 1024 grid the statistics cover */
};

static const struct arch_range grid_arches[] = {
        { "x86_64", AUDIT_ARCH_X86_64, SCMP_ARCH_X86_64, 0, true },
        { "x32", AUDIT_ARCH_X86_64, SCMP_ARCH_X32, X32_BIT, true },
        { "i386", AUDIT_ARCH_I386, SCMP_ARCH_X86, 0, true },
};

/* Numbers past every table: the x32 bit in odd places, sign bits, -1. */
static const uint32_t far_nrs[] = {
        1024,       4095,       4096,       0x3fffffff, X32_BIT | 0x3ff, X32_BIT | 0x400, X32_BIT | 0x3fffffff,
        0x7fffffff, 0x80000000, 0xc0000000, 0xfffffffe, 0xffffffff,
};

static const struct arch_range far_arches[] = {
        { "x86_64", AUDIT_ARCH_X86_64, SCMP_ARCH_X86_64, 0, false },
        { "i386", AUDIT_ARCH_I386, SCMP_ARCH_X86, 0, false },
};

/* Architectures the programs should refuse wholesale. */
static const struct arch_range foreign_arches[] = {
        { "aarch64", AUDIT_ARCH_AARCH64, 0, 0, false }, { "arm", AUDIT_ARCH_ARM, 0, 0, false },
        { "ppc64le", AUDIT_ARCH_PPC64LE, 0, 0, false }, { "arch0", 0, 0, 0, false },
        { "archffffffff", 0xffffffff, 0, 0, false },
};
static const uint32_t foreign_nrs[] = { 0, 1, 59, 0x40000000, 0xffffffff };

struct stats {
        uint64_t sum;
        size_t max, n;
};

struct diff_state {
        const struct program *a, *b;
        const struct samples *samples;
        bool allow_enosys;
        long limit; /* lines to print, <0 unlimited */
        size_t inputs, diffs, allowed, printed;
        size_t nrs, nrs_with_args;
        struct stats stats[2][ARRAY_SIZE(grid_arches) + 1]; /* per program, per grid arch + all */
};

static int simulate(const struct program *p, const struct tsync_bpf_input *in, struct tsync_bpf_result *res)
{
        struct tsync_err err = { 0 };

        int r = tsync_bpf_simulate(p->insns, p->len, in, res, &err);
        if (r < 0)
                fprintf(stderr, PROG ": %s: arch 0x%x nr %" PRId32 ": %s\n", p->path, in->arch, in->nr, err.msg);
        return r;
}

static void report(struct diff_state *st, const struct arch_range *ar, const struct tsync_bpf_input *in, uint32_t ra,
                   uint32_t rb)
{
        bool allowed =
                st->allow_enosys && ((ra == RET_ENOSYS && rb == RET_EPERM) || (ra == RET_EPERM && rb == RET_ENOSYS));
        char na[64], nb[64];

        st->diffs++;
        if (allowed)
                st->allowed++;
        if (st->limit >= 0 && st->printed >= (size_t)st->limit)
                return;
        st->printed++;
        tsync_bpf_ret_name(ra, na, sizeof(na));
        tsync_bpf_ret_name(rb, nb, sizeof(nb));
        _cleanup_free_ char *name = ar->scmp_arch ? seccomp_syscall_resolve_num_arch(ar->scmp_arch, in->nr) : NULL;
        uint32_t nr = (uint32_t)in->nr;
        char nrbuf[16];
        if (ar->grid)
                snprintf(nrbuf, sizeof(nrbuf), "%" PRIu32, nr & ~ar->nr_base);
        else
                snprintf(nrbuf, sizeof(nrbuf), "0x%" PRIx32, nr);
        printf("%s %s (%s) args=0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64
               ": A=%s B=%s%s\n",
               ar->name, nrbuf, name ? name : "?", in->args[0], in->args[1], in->args[2], in->args[3], in->args[4],
               in->args[5], na, nb, allowed ? " (allowed)" : "");
}

static void stats_add(struct stats *s, size_t executed)
{
        s->sum += executed;
        s->n++;
        if (executed > s->max)
                s->max = executed;
}

/* Compares one (arch, nr): zero arguments first, then every sample if
 * either program's path looked at the arguments. */
static int compare_nr(struct diff_state *st, const struct arch_range *ar, size_t grid_index, uint32_t nr)
{
        struct tsync_bpf_input in = { .nr = (int32_t)nr, .arch = ar->arch };
        struct tsync_bpf_result ra, rb;

        if (simulate(st->a, &in, &ra) < 0 || simulate(st->b, &in, &rb) < 0)
                return -EINVAL;
        st->nrs++;
        st->inputs++;
        if (ar->grid) {
                stats_add(&st->stats[0][grid_index], ra.executed);
                stats_add(&st->stats[1][grid_index], rb.executed);
                stats_add(&st->stats[0][ARRAY_SIZE(grid_arches)], ra.executed);
                stats_add(&st->stats[1][ARRAY_SIZE(grid_arches)], rb.executed);
        }
        if (ra.ret != rb.ret)
                report(st, ar, &in, ra.ret, rb.ret);
        if (!ra.read_args && !rb.read_args)
                return 0;

        st->nrs_with_args++;
        for (size_t i = 0; i < st->samples->len; i++) {
                memcpy(in.args, st->samples->args[i], sizeof(in.args));
                if (simulate(st->a, &in, &ra) < 0 || simulate(st->b, &in, &rb) < 0)
                        return -EINVAL;
                st->inputs++;
                if (ra.ret != rb.ret)
                        report(st, ar, &in, ra.ret, rb.ret);
        }
        return 0;
}

static int compare_all(struct diff_state *st)
{
        int r;

        for (size_t g = 0; g < ARRAY_SIZE(grid_arches); g++)
                for (uint32_t n = 0; n < GRID_NR; n++)
                        if ((r = compare_nr(st, &grid_arches[g], g, grid_arches[g].nr_base | n)) < 0)
                                return r;
        for (size_t g = 0; g < ARRAY_SIZE(far_arches); g++)
                for (size_t n = 0; n < ARRAY_SIZE(far_nrs); n++)
                        if ((r = compare_nr(st, &far_arches[g], 0, far_nrs[n])) < 0)
                                return r;
        /* i386 has no x32 bit: its 0x40000000|n must not be taken for x32. */
        for (uint32_t n = 0; n < GRID_NR; n += 37)
                if ((r = compare_nr(st, &far_arches[1], 0, X32_BIT | n)) < 0)
                        return r;
        for (size_t g = 0; g < ARRAY_SIZE(foreign_arches); g++)
                for (size_t n = 0; n < ARRAY_SIZE(foreign_nrs); n++)
                        if ((r = compare_nr(st, &foreign_arches[g], 0, foreign_nrs[n])) < 0)
                                return r;
        return 0;
}

static double mean(const struct stats *s)
{
        return s->n ? (double)s->sum / (double)s->n : 0.0;
}

static void print_stats(const struct diff_state *st, int which)
{
        const struct program *p = which ? st->b : st->a;
        const struct stats *s = st->stats[which];
        const struct stats *all = &s[ARRAY_SIZE(grid_arches)];

        printf("%c: %s: %zu instructions; executed with zero args over %zu (arch, nr): mean %.2f max %zu",
               which ? 'B' : 'A', p->path, p->len, all->n, mean(all), all->max);
        for (size_t g = 0; g < ARRAY_SIZE(grid_arches); g++)
                printf("; %s mean %.2f max %zu", grid_arches[g].name, mean(&s[g]), s[g].max);
        printf("\n");
}

static void usage(void)
{
        fprintf(stderr, "usage: " PROG " [--allow-enosys] [--limit N] A.bpf B.bpf\n");
}

int main(int argc, char **argv)
{
        struct diff_state st = { .limit = -1 };
        const char *paths[2];
        int npaths = 0;

        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--allow-enosys") == 0) {
                        st.allow_enosys = true;
                } else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc) {
                        char *end;
                        st.limit = strtol(argv[++i], &end, 10);
                        if (*end || st.limit < 0) {
                                usage();
                                return 2;
                        }
                } else if (argv[i][0] == '-' && argv[i][1]) {
                        usage();
                        return 2;
                } else if (npaths < 2) {
                        paths[npaths++] = argv[i];
                } else {
                        usage();
                        return 2;
                }
        }
        if (npaths != 2) {
                usage();
                return 2;
        }

        struct program a = { 0 }, b = { 0 };
        struct arg_consts consts = { 0 };
        struct samples samples = { 0 };
        int r = load_program(paths[0], &a);
        r = r ?: load_program(paths[1], &b);
        r = r ?: collect_consts(&a, &consts);
        r = r ?: collect_consts(&b, &consts);
        r = r ?: make_samples(&consts, &samples);
        if (r == -ENOMEM)
                fprintf(stderr, PROG ": out of memory\n");
        if (r == 0) {
                st.a = &a;
                st.b = &b;
                st.samples = &samples;
                r = compare_all(&st);
        }
        if (r == 0) {
                print_stats(&st, 0);
                print_stats(&st, 1);
                printf("%zu inputs over %zu (arch, nr), %zu of them with %zu argument samples each: %zu differences, "
                       "%zu allowed, %zu failing\n",
                       st.inputs, st.nrs, st.nrs_with_args, samples.len, st.diffs, st.allowed, st.diffs - st.allowed);
        }
        free(a.insns);
        free(b.insns);
        free(samples.args);
        arg_consts_free(&consts);
        if (r < 0)
                return 2;
        if (fflush(stdout) != 0)
                return 2;
        return st.diffs > st.allowed ? 1 : 0;
}
