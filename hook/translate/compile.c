/* profile -> BPF: libseccomp's binary-tree program behind a small ENOSYS stub. */
#include "translate/compile.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "shared/arches.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "shared/filterfile.h"

void tsync_program_free(struct tsync_program *p)
{
        if (!p)
                return;
        free(p->insns);
        free(p);
}

static void seccomp_releasep(scmp_filter_ctx *ctx)
{
        if (*ctx)
                seccomp_release(*ctx);
}
#define _cleanup_seccomp_ _cleanup_(seccomp_releasep)

uint32_t tsync_audit_arch(uint32_t scmp_arch)
{
        /* libseccomp's tokens are audit arches, except x32, which the kernel
         * reports as x86_64 with TSYNC_X32_SYSCALL_BIT set in the syscall number. */
        const struct tsync_arch_def *row = tsync_arch_by_token(scmp_arch);
        return row ? row->audit : scmp_arch;
}

uint32_t tsync_compile_action(struct tsync_action a)
{
        switch (a.kind) {
        case TSYNC_ACT_KILL_THREAD:
                return SCMP_ACT_KILL_THREAD;
        case TSYNC_ACT_KILL_PROCESS:
                return SCMP_ACT_KILL_PROCESS;
        case TSYNC_ACT_TRAP:
                return SCMP_ACT_TRAP;
        case TSYNC_ACT_ERRNO:
                return SCMP_ACT_ERRNO(a.data);
        case TSYNC_ACT_TRACE:
                return SCMP_ACT_TRACE(a.data);
        case TSYNC_ACT_ALLOW:
                return SCMP_ACT_ALLOW;
        case TSYNC_ACT_LOG:
                return SCMP_ACT_LOG;
        case TSYNC_ACT_NOTIFY:
                return SCMP_ACT_NOTIFY;
        }
        return SCMP_ACT_KILL_PROCESS;
}

static enum scmp_compare scmp_op(enum tsync_op op)
{
        static const enum scmp_compare map[] = {
                [TSYNC_OP_NE] = SCMP_CMP_NE,
                [TSYNC_OP_LT] = SCMP_CMP_LT,
                [TSYNC_OP_LE] = SCMP_CMP_LE,
                [TSYNC_OP_EQ] = SCMP_CMP_EQ,
                [TSYNC_OP_GE] = SCMP_CMP_GE,
                [TSYNC_OP_GT] = SCMP_CMP_GT,
                [TSYNC_OP_MASKED_EQ] = SCMP_CMP_MASKED_EQ,
        };
        return map[op];
}

static bool same_action(struct tsync_action a, struct tsync_action b)
{
        return tsync_compile_action(a) == tsync_compile_action(b);
}

/* Adds one syscall of a rule. Like runc and crun: all conditions AND together
 * in one libseccomp rule, unless an argument index repeats, in which case each
 * condition becomes a rule of its own (OR). */
static int add_syscall(scmp_filter_ctx ctx, const struct tsync_rule *r, int nr, const char *name, struct tsync_err *err)
{
        uint32_t act = tsync_compile_action(r->action);
        struct scmp_arg_cmp conds[6 * 8];
        unsigned seen[6] = { 0 };
        bool repeated = false;
        int rc;

        if (r->n_args > ARRAY_SIZE(conds))
                return tsync_error(err, E2BIG, "%s: %zu argument conditions are more than libseccomp takes", r->origin,
                                   r->n_args);
        for (size_t i = 0; i < r->n_args; i++) {
                conds[i] = (struct scmp_arg_cmp){ .arg = r->args[i].index,
                                                  .op = scmp_op(r->args[i].op),
                                                  .datum_a = r->args[i].value,
                                                  .datum_b = r->args[i].value_two };
                if (++seen[r->args[i].index] > 1)
                        repeated = true;
        }
        if (!repeated) {
                rc = seccomp_rule_add_array(ctx, act, nr, (unsigned)r->n_args, conds);
        } else {
                rc = 0;
                for (size_t i = 0; i < r->n_args && rc == 0; i++)
                        rc = seccomp_rule_add_array(ctx, act, nr, 1, &conds[i]);
        }
        if (rc < 0)
                return tsync_error(err, -rc, "%s: syscall '%s': libseccomp refused the rule: %s", r->origin, name,
                                   tsync_errtext(-rc));
        return 0;
}

/* The highest syscall number (as the filter sees it) that the profile names for arch, or -1. */
long tsync_compile_highest_named(const struct tsync_profile *p, uint32_t arch)
{
        long max = -1;
        for (size_t i = 0; i < p->n_rules; i++)
                for (size_t j = 0; j < p->rules[i].n_names; j++) {
                        int nr = seccomp_syscall_resolve_name_arch(arch, p->rules[i].names[j]);
                        if (nr >= 0 && nr > max)
                                max = nr;
                }
        return max;
}

/* A tiny assembler for the stub: jump targets are labels resolved at the end. */
enum { L_NEXT = -1, L_END = -2, L_ENOSYS = -3 };
struct stub {
        struct sock_filter insn[64];
        int jt[64], jf[64]; /* label: instruction index, or L_* */
        size_t len;
};

static void emit(struct stub *s, uint16_t code, uint32_t k, int jt, int jf)
{
        s->insn[s->len] = (struct sock_filter)BPF_STMT(code, k);
        s->jt[s->len] = jt;
        s->jf[s->len] = jf;
        s->len++;
}

static int resolve(size_t at, int label, size_t enosys, size_t end)
{
        size_t target = label == L_NEXT ? at + 1 : label == L_END ? end : label == L_ENOSYS ? enosys : (size_t)label;
        return (int)(target - at - 1);
}

/* Builds the ENOSYS stub runc also installs: for each ABI in the filter, a
 * syscall number above the highest one the profile names returns ENOSYS, so
 * that programs probing a newer syscall (clone3...) fall back instead of
 * seeing EPERM. Everything else falls through to libseccomp's program. */
static int build_stub(const struct tsync_profile *p, const uint32_t *arches, size_t n_arches, struct stub *s)
{
        long max64 = -1, max32x = -1;
        bool have64 = false, havex32 = false;
        struct {
                uint32_t audit;
                long max;
        } others[16];
        size_t n_others = 0;

        for (size_t i = 0; i < n_arches; i++) {
                long m = tsync_compile_highest_named(p, arches[i]);
                if (arches[i] == SCMP_ARCH_X86_64) {
                        have64 = m >= 0;
                        max64 = m;
                } else if (arches[i] == SCMP_ARCH_X32) {
                        havex32 = m >= 0;
                        max32x = m;
                } else if (m >= 0 && n_others < ARRAY_SIZE(others)) {
                        others[n_others].audit = tsync_audit_arch(arches[i]);
                        others[n_others++].max = m;
                }
        }
        if (!have64 && !havex32 && n_others == 0)
                return 0;

        /* Header: one compare per ABI block; block starts are patched below. */
        size_t head = 0, block_jump[17];
        emit(s, BPF_LD | BPF_W | BPF_ABS, 4 /* arch */, 0, 0);
        if (have64 || havex32) {
                block_jump[head++] = s->len;
                emit(s, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, L_NEXT);
        }
        for (size_t i = 0; i < n_others; i++) {
                block_jump[head++] = s->len;
                emit(s, BPF_JMP | BPF_JEQ | BPF_K, others[i].audit, 0, L_NEXT);
        }
        emit(s, BPF_JMP | BPF_JA, 0, L_END, L_END);

        size_t b = 0;
        if (have64 || havex32) {
                s->jt[block_jump[b++]] = (int)s->len;
                emit(s, BPF_LD | BPF_W | BPF_ABS, 0 /* nr */, 0, 0);
                if (have64 && havex32) {
                        size_t split = s->len;
                        emit(s, BPF_JMP | BPF_JGE | BPF_K, TSYNC_X32_SYSCALL_BIT, 0, L_NEXT);
                        emit(s, BPF_JMP | BPF_JGT | BPF_K, (uint32_t)max64, L_ENOSYS, L_END);
                        s->jt[split] = (int)s->len;
                        emit(s, BPF_JMP | BPF_JGT | BPF_K, (uint32_t)max32x, L_ENOSYS, L_END);
                } else if (have64) {
                        /* x32 numbers are not ours to judge here: libseccomp's program
                         * sends them to the bad-arch action. */
                        emit(s, BPF_JMP | BPF_JGE | BPF_K, TSYNC_X32_SYSCALL_BIT, L_END, L_NEXT);
                        emit(s, BPF_JMP | BPF_JGT | BPF_K, (uint32_t)max64, L_ENOSYS, L_END);
                } else {
                        emit(s, BPF_JMP | BPF_JGE | BPF_K, TSYNC_X32_SYSCALL_BIT, L_NEXT, L_END);
                        emit(s, BPF_JMP | BPF_JGT | BPF_K, (uint32_t)max32x, L_ENOSYS, L_END);
                }
        }
        for (size_t i = 0; i < n_others; i++) {
                s->jt[block_jump[b++]] = (int)s->len;
                emit(s, BPF_LD | BPF_W | BPF_ABS, 0 /* nr */, 0, 0);
                emit(s, BPF_JMP | BPF_JGT | BPF_K, (uint32_t)others[i].max, L_ENOSYS, L_END);
        }
        size_t enosys = s->len;
        emit(s, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS, 0, 0);
        size_t end = s->len;

        for (size_t i = 0; i < s->len; i++) {
                struct sock_filter *in = &s->insn[i];
                if (BPF_CLASS(in->code) != BPF_JMP)
                        continue;
                if (BPF_OP(in->code) == BPF_JA) {
                        in->k = (uint32_t)resolve(i, s->jt[i], enosys, end);
                        continue;
                }
                in->jt = (uint8_t)resolve(i, s->jt[i], enosys, end);
                in->jf = (uint8_t)resolve(i, s->jf[i], enosys, end);
        }
        return 0;
}

bool tsync_compile_has_stub(const struct tsync_profile *p)
{
        struct tsync_action def = p->default_action;
        /* As runc: permissive defaults need no stub, and ENOSYS as the default is the stub already. */
        switch (def.kind) {
        case TSYNC_ACT_ALLOW:
        case TSYNC_ACT_LOG:
        case TSYNC_ACT_TRACE:
        case TSYNC_ACT_NOTIFY:
                return false;
        case TSYNC_ACT_ERRNO:
                return def.data != ENOSYS;
        default:
                return true;
        }
}

static int export_bpf(scmp_filter_ctx ctx, struct sock_filter **ret, size_t *ret_len, struct tsync_err *err)
{
        _cleanup_close_ int fd = memfd_create("tsync-bpf", MFD_CLOEXEC);
        if (fd < 0)
                return tsync_error_errno(err, "memfd_create");
        int rc = seccomp_export_bpf(ctx, fd);
        if (rc < 0)
                return tsync_error(err, -rc, "libseccomp could not export the program: %s", tsync_errtext(-rc));
        struct stat st;
        if (fstat(fd, &st) < 0)
                return tsync_error_errno(err, "fstat");
        size_t size = (size_t)st.st_size;
        if (size == 0 || size % sizeof(struct sock_filter) != 0)
                return tsync_error(err, EIO, "libseccomp exported %zu bytes, not whole instructions", size);
        _cleanup_free_ struct sock_filter *insns = malloc(size);
        if (!insns)
                return tsync_error(err, ENOMEM, "out of memory");
        /* From 0: libseccomp left the offset at the end; the size is exact, so not tsync_read_all. */
        ssize_t n = pread(fd, insns, size, 0);
        if (n != (ssize_t)size)
                return tsync_error(err, EIO, "reading the exported program back failed");
        *ret = TAKE_PTR(insns);
        *ret_len = size / sizeof(struct sock_filter);
        return 0;
}

/* Whether a profile's name is one to list (the predicates below). */
typedef bool (*name_pick_fn)(uint32_t arch, const char *name);

/* The names of p that pick() takes, as "'name' (origin), ..." in *ret (NULL when none). */
static int names_list(const struct tsync_profile *p, uint32_t arch, name_pick_fn pick, char **ret, size_t *ret_count,
                      struct tsync_err *err)
{
        _cleanup_free_ char *list = NULL;
        size_t list_len = 0, count = 0;
        FILE *f = open_memstream(&list, &list_len);
        if (!f)
                return tsync_error(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < p->n_rules; i++)
                for (size_t j = 0; j < p->rules[i].n_names; j++)
                        if (pick(arch, p->rules[i].names[j]))
                                fprintf(f, "%s'%s' (%s)", count++ ? ", " : "", p->rules[i].names[j],
                                        p->rules[i].origin);
        if (fclose(f) != 0)
                return tsync_error(err, ENOMEM, "out of memory");
        *ret = count ? TAKE_PTR(list) : NULL;
        *ret_count = count;
        return 0;
}

static bool name_unknown(uint32_t arch, const char *name)
{
        return seccomp_syscall_resolve_name_arch(arch, name) == __NR_SCMP_ERROR;
}

int tsync_compile_check_names(const struct tsync_profile *p, const struct tsync_compile_opts *opts,
                              struct tsync_warnings *warnings, struct tsync_err *err)
{
        uint32_t native = opts && opts->native_arch ? opts->native_arch : seccomp_arch_native();
        bool strict = opts && opts->strict;
        _cleanup_free_ char *list = NULL;
        size_t count = 0;
        int rc = names_list(p, native, name_unknown, &list, &count, err);
        if (rc < 0)
                return rc;
        if (count == 0)
                return 0;
        if (strict)
                return tsync_error(err, EINVAL, "%zu syscall name%s unknown to libseccomp %u.%u.%u: %s", count,
                                   count == 1 ? " is" : "s are", seccomp_version()->major, seccomp_version()->minor,
                                   seccomp_version()->micro, list);
        if (tsync_warn(warnings, "skipped %zu syscall name%s unknown to libseccomp %u.%u.%u: %s", count,
                       count == 1 ? "" : "s", seccomp_version()->major, seccomp_version()->minor,
                       seccomp_version()->micro, list) < 0)
                return tsync_error(err, ENOMEM, "out of memory");
        return 0;
}

/* libseccomp's pseudo-numbers: the socket and IPC calls some architectures
 * reach through socketcall(2) and ipc(2) lie above this (-101, -201, ...),
 * and a rule for them is made there; below it, a syscall the architecture
 * does not have at all (-10000 and less). */
#define PSEUDO_ABSENT_BELOW (-300)

/* A name arch lacks: libseccomp knows it (else tsync_compile_check_names says so), arch has no
 * number for it, and it is not a socket or IPC call arch makes through its multiplexer. */
static bool name_absent(uint32_t arch, const char *name)
{
        int nr = seccomp_syscall_resolve_name_arch(arch, name);
        if (nr == __NR_SCMP_ERROR || nr >= 0)
                return false;
        return nr < PSEUDO_ABSENT_BELOW ||
               seccomp_syscall_resolve_name_arch(arch, nr > -200 ? "socketcall" : "ipc") < 0;
}

int tsync_compile_check_arch_names(const struct tsync_profile *p, uint32_t arch, struct tsync_warnings *warnings,
                                   struct tsync_err *err)
{
        _cleanup_free_ char *list = NULL;
        size_t count = 0;
        int rc = names_list(p, arch, name_absent, &list, &count, err);
        if (rc < 0)
                return rc;
        if (count > 0 && tsync_warn(warnings, "left out %zu syscall name%s %s does not have: %s", count,
                                    count == 1 ? "" : "s", tsync_arch_name(arch), list) < 0)
                return tsync_error(err, ENOMEM, "out of memory");
        return 0;
}

int tsync_compile(const struct tsync_profile *p, const struct tsync_compile_opts *opts, struct tsync_program **ret,
                  struct tsync_warnings *warnings, struct tsync_err *err)
{
        uint32_t native = opts && opts->native_arch ? opts->native_arch : seccomp_arch_native();
        int rc;

        /* libseccomp 2.5.4 exports a program for the other byte order with
         * some of its returns (the copies it makes for long jumps) left in
         * this machine's order: a program that would answer them wrongly
         * there. Found by test_compile_arches; refused until that holds. */
        if (tsync_audit_big_endian(tsync_audit_arch(native)) != tsync_audit_big_endian(TSYNC_NATIVE_AUDIT_ARCH))
                return tsync_error(err, EOPNOTSUPP,
                                   "%s: its byte order is not this machine's, and libseccomp %u.%u.%u exports "
                                   "such programs with some returns in this machine's order: compile it on a "
                                   "machine of that byte order",
                                   tsync_arch_name(native), seccomp_version()->major, seccomp_version()->minor,
                                   seccomp_version()->micro);

        rc = tsync_compile_check_names(p, opts, warnings, err);
        /* Asked for another machine's architecture: what it lacks is said. For
         * this machine's, as runc and crun, a profile's names of other
         * machines' calls are left out without a word (Podman's profile names
         * dozens). */
        if (rc == 0 && native != seccomp_arch_native())
                rc = tsync_compile_check_arch_names(p, native, warnings, err);
        if (rc < 0)
                return rc;

        _cleanup_seccomp_ scmp_filter_ctx ctx = seccomp_init(tsync_compile_action(p->default_action));
        if (!ctx)
                return tsync_error(err, EINVAL, "libseccomp refused the default action %s",
                                   tsync_action_name(p->default_action.kind));
        /* The program is exported, never loaded by libseccomp: no NNP, and the
         * binary tree keeps the cost per syscall logarithmic. */
        if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0)) < 0 ||
            (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2)) < 0)
                return tsync_error(err, -rc, "libseccomp: setting filter attributes: %s", tsync_errtext(-rc));

        uint32_t arches[32];
        size_t n_arches = 0;
        arches[n_arches++] = native;
        if (native != seccomp_arch_native()) {
                /* This machine's architecture goes first: a filter holds one
                 * byte order, and the target's may be the other (s390x, ppc64). */
                if ((rc = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE)) < 0 || (rc = seccomp_arch_add(ctx, native)) < 0)
                        return tsync_error(err, -rc, "architecture %s: %s", tsync_arch_name(native),
                                           tsync_errtext(-rc));
        }
        for (size_t i = 0; i < p->n_arches; i++) {
                if (p->arches[i] == native)
                        continue;
                rc = seccomp_arch_add(ctx, p->arches[i]);
                if (rc < 0 && rc != -EEXIST)
                        return tsync_error(err, -rc, "architectures: %s: %s", tsync_arch_name(p->arches[i]),
                                           tsync_errtext(-rc));
                if (n_arches < ARRAY_SIZE(arches))
                        arches[n_arches++] = p->arches[i];
        }

        for (size_t i = 0; i < p->n_rules; i++) {
                const struct tsync_rule *r = &p->rules[i];
                if (same_action(r->action, p->default_action))
                        continue;
                for (size_t j = 0; j < r->n_names; j++) {
                        /* A rule names its syscall by this machine's number (or
                         * libseccomp's pseudo-number where it has none): libseccomp
                         * translates it for each architecture of the filter. The
                         * target's own number would be read as this machine's. */
                        if (seccomp_syscall_resolve_name_arch(native, r->names[j]) == __NR_SCMP_ERROR)
                                continue;
                        int nr = seccomp_syscall_resolve_name(r->names[j]);
                        if (nr == __NR_SCMP_ERROR)
                                continue;
                        rc = add_syscall(ctx, r, nr, r->names[j], err);
                        if (rc < 0)
                                return rc;
                }
        }

        _cleanup_free_ struct sock_filter *body = NULL;
        size_t body_len = 0;
        rc = export_bpf(ctx, &body, &body_len, err);
        if (rc < 0)
                return rc;

        struct stub stub = { .len = 0 };
        if (tsync_compile_has_stub(p))
                (void)build_stub(p, arches, n_arches, &stub);

        size_t total = stub.len + body_len;
        if (total > TSYNC_FILTER_MAX_INSNS)
                return tsync_error(err, E2BIG, "the compiled program has %zu instructions, more than the kernel's %u",
                                   total, TSYNC_FILTER_MAX_INSNS);
        _cleanup_free_ struct tsync_program *prog = calloc(1, sizeof(*prog));
        if (!prog || !(prog->insns = malloc(total * sizeof(struct sock_filter))))
                return tsync_error(err, ENOMEM, "out of memory");
        memcpy(prog->insns, stub.insn, stub.len * sizeof(struct sock_filter));
        memcpy(prog->insns + stub.len, body, body_len * sizeof(struct sock_filter));
        prog->len = total;
        prog->flags = p->flags;
        *ret = TAKE_PTR(prog);
        return 0;
}
