/* The BPF simulator, validator and disassembler, checked against the real kernel.
 *
 * The oracle is the running kernel: a forked child loads a program with
 * seccomp(SECCOMP_SET_MODE_FILTER) and makes a system call; what happens
 * (an errno, the unfiltered result, a SIGSYS trap, death by SIGSYS, or a
 * refused load) must be what tsync_bpf_simulate / tsync_bpf_validate
 * predicted. The child reports through a shared anonymous mapping, because
 * after the load any system call (a write to a pipe included) may be the one
 * the filter refuses. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/bpf.h"
#include "shared/cleanup.h"
#include "shared/error.h"
#include "tap.h"

static void test_bpf_ret_name(void)
{
        static const struct {
                uint32_t ret;
                const char *name;
        } cases[] = {
                { SECCOMP_RET_KILL_PROCESS, "KILL_PROCESS" },
                { SECCOMP_RET_KILL_THREAD, "KILL_THREAD" },
                { SECCOMP_RET_TRAP, "TRAP" },
                { SECCOMP_RET_TRAP | 7, "TRAP(7)" },
                { SECCOMP_RET_ERRNO | 1, "ERRNO(1)" },
                { SECCOMP_RET_ERRNO | 38, "ERRNO(38)" },
                { SECCOMP_RET_ERRNO, "ERRNO(0)" },
                { SECCOMP_RET_USER_NOTIF, "USER_NOTIF" },
                { SECCOMP_RET_TRACE, "TRACE(0)" },
                { SECCOMP_RET_TRACE | 5, "TRACE(5)" },
                { SECCOMP_RET_LOG, "LOG" },
                { SECCOMP_RET_ALLOW, "ALLOW" },
                { 0x12345678, "0x12345678" },
                { 0xffff0000, "0xffff0000" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                char buf[32];
                tsync_bpf_ret_name(cases[i].ret, buf, sizeof(buf));
                tap_ok(strcmp(buf, cases[i].name) == 0, "test_bpf_ret_name_decodes_0x%08x (got '%s', want '%s')",
                       cases[i].ret, buf, cases[i].name);
        }
        char small[4];
        tsync_bpf_ret_name(SECCOMP_RET_ALLOW, small, sizeof(small));
        tap_ok(strcmp(small, "ALL") == 0, "test_bpf_ret_name_truncates_to_the_buffer (got '%s')", small);
}

static char *disassemble(const struct sock_filter *prog, size_t len, int *ret_r)
{
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        if (!f) {
                *ret_r = -errno;
                return NULL;
        }
        *ret_r = tsync_bpf_disassemble(prog, len, f);
        (void)fclose(f);
        return text;
}

static void test_bpf_disassemble(void)
{
        const struct sock_filter prog[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 2),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16 + 8 * 1),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 20 + 8 * 1),
                BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff),
                BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0),
                BPF_STMT(BPF_ALU | BPF_NEG, 0),
                BPF_STMT(BPF_MISC | BPF_TAX, 0),
                BPF_STMT(BPF_MISC | BPF_TXA, 0),
                BPF_STMT(BPF_ST, 3),
                BPF_STMT(BPF_LDX | BPF_MEM, 3),
                BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
                BPF_STMT(BPF_LDX | BPF_IMM, 0x10),
                BPF_JUMP(BPF_JMP | BPF_JSET | BPF_X, 0, 0, 1),
                BPF_STMT(BPF_JMP | BPF_JA, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 8),
                BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 2),
                BPF_STMT(0xff, 7),
                BPF_STMT(BPF_RET | BPF_A, 0),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        /* 0004 compares the i386 constant with nr, not arch: no comment. */
        const char *want = "0000: ld  [arch]\n"
                           "0001: jeq #0xc000003e jt 3 jf 2 ; x86_64\n"
                           "0002: ret KILL_PROCESS\n"
                           "0003: ld  [nr]\n"
                           "0004: jeq #0x40000003 jt 5 jf 7\n"
                           "0005: ld  [args[1].lo]\n"
                           "0006: ld  [args[1].hi]\n"
                           "0007: and #0xff\n"
                           "0008: add x\n"
                           "0009: neg\n"
                           "0010: tax\n"
                           "0011: txa\n"
                           "0012: st  M[3]\n"
                           "0013: ldx M[3]\n"
                           "0014: ld  #len\n"
                           "0015: ldx #0x10\n"
                           "0016: jset x jt 17 jf 18\n"
                           "0017: ja  19\n"
                           "0018: ret ERRNO(1)\n"
                           "0019: ld  [ip.lo]\n"
                           "0020: ldh [2]\n"
                           "0021: unknown code 0x00ff jt 0 jf 0 k 0x7\n"
                           "0022: ret a\n"
                           "0023: ret ALLOW\n";
        int r;
        _cleanup_free_ char *text = disassemble(prog, ARRAY_SIZE(prog), &r);
        tap_ok(r == 0 && text && strcmp(text, want) == 0, "test_bpf_disassemble_known_program");
        if (!text || strcmp(text, want) != 0)
                tap_diag("got:\n%s", text ? text : "(null)");

        /* The arch comment follows A through a merge only when every path
         * brings the arch word. */
        const struct sock_filter merged[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_AARCH64, 2, 0),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 1, 0),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 0),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        const char *want_merged = "0000: ld  [arch]\n"
                                  "0001: jeq #0xc00000b7 jt 4 jf 2 ; aarch64\n"
                                  "0002: jeq #0x40000003 jt 4 jf 3 ; i386\n"
                                  "0003: ld  [nr]\n"
                                  "0004: jeq #0xc000003e jt 5 jf 5\n"
                                  "0005: ret ALLOW\n";
        _cleanup_free_ char *text2 = disassemble(merged, ARRAY_SIZE(merged), &r);
        tap_ok(r == 0 && text2 && strcmp(text2, want_merged) == 0,
               "test_bpf_disassemble_names_arch_only_where_a_holds_it");
        if (!text2 || strcmp(text2, want_merged) != 0)
                tap_diag("got:\n%s", text2 ? text2 : "(null)");
}

static void test_bpf_simulate_counts(void)
{
        const struct sock_filter prog[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 39, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
                BPF_STMT(BPF_RET | BPF_A, 0),
        };
        struct tsync_bpf_input in = { .nr = 39, .arch = AUDIT_ARCH_X86_64, .args = { 0x50001 } };
        struct tsync_bpf_result res = { 0 };
        struct tsync_err err = { 0 };
        int r = tsync_bpf_simulate(prog, ARRAY_SIZE(prog), &in, &res, &err);
        tap_ok(r == 0 && res.ret == SECCOMP_RET_ALLOW && res.executed == 3 && !res.read_args,
               "test_bpf_simulate_counts_a_short_path (r %d ret 0x%x executed %zu read_args %d)", r, res.ret,
               res.executed, res.read_args);
        in.nr = 1;
        r = tsync_bpf_simulate(prog, ARRAY_SIZE(prog), &in, &res, &err);
        tap_ok(r == 0 && res.ret == 0x50001 && res.executed == 4 && res.read_args,
               "test_bpf_simulate_counts_a_path_reading_args (r %d ret 0x%x executed %zu read_args %d)", r, res.ret,
               res.executed, res.read_args);

        /* Each seccomp_data word, in the kernel's little-endian halves. */
        static const struct {
                uint32_t k, word;
        } words[] = {
                { 0, 1 },  { 4, AUDIT_ARCH_X86_64 }, { 8, 0 },           { 12, 0x12345678 }, { 16, 0x50001 },
                { 20, 0 }, { 56, 0x11223344 },       { 60, 0xaabbccdd },
        };
        in.instruction_pointer = 0x1234567800000000ull;
        in.args[5] = 0xaabbccdd11223344ull;
        for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
                const struct sock_filter ld[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, words[i].k),
                                                  BPF_STMT(BPF_RET | BPF_A, 0) };
                r = tsync_bpf_simulate(ld, ARRAY_SIZE(ld), &in, &res, &err);
                tap_ok(r == 0 && res.ret == words[i].word && res.read_args == (words[i].k >= 8) && res.executed == 2,
                       "test_bpf_simulate_loads_seccomp_data_offset_%u (ret 0x%x read_args %d)", words[i].k, res.ret,
                       res.read_args);
        }

        const struct sock_filter bad[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 6),
                BPF_STMT(BPF_RET | BPF_A, 0),
        };
        struct tsync_bpf_result untouched = { .ret = 0xdeadbeef, .executed = 42 };
        r = tsync_bpf_simulate(bad, ARRAY_SIZE(bad), &in, &untouched, &err);
        tap_ok(r == -EINVAL && strstr(err.msg, "instruction 1") && untouched.ret == 0xdeadbeef &&
                       untouched.executed == 42,
               "test_bpf_simulate_refuses_a_bad_program_naming_the_instruction ('%s')", err.msg);
}

#if defined(__x86_64__)
/* ---- The kernel as the oracle ------------------------------------------ */

#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define X32_BIT     0x40000000L

/* What the child saw; written to shared memory with plain stores. */
struct report {
        int stage; /* 1: the load was tried, 2: the filtered call returned */
        int load_errno;
        long r0, r1; /* the call before and after the load, -1 meaning failure */
        int e0, e1;
        int trapped, trap_errno, trap_nr;
        uint32_t trap_arch;
};

static struct report *shared;

enum abi {
        ABI_NONE,   /* only load the program */
        ABI_NATIVE, /* syscall(2) */
        ABI_I386,   /* int $0x80 from 64-bit code */
};

struct call {
        enum abi abi;
        long nr;
        unsigned long args[6];
};

struct outcome {
        struct report rep;
        int status;
};

static int kernel_tests_setup(void)
{
        void *p = mmap(NULL, sizeof(struct report), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
                return -errno;
        shared = p;
        return 0;
}

/* The i386 entry point takes its arguments in ebx, ecx, edx, esi, edi, ebp.
 * rbp may be the frame pointer, so it is saved around the call, below the
 * red zone. */
static long int80(long nr, const unsigned long *a)
{
        long ret;
        register unsigned long a5 __asm__("r12") = a[5];
        __asm__ volatile("sub $128, %%rsp\n\t"
                         "push %%rbp\n\t"
                         "mov %[a5], %%rbp\n\t"
                         "int $0x80\n\t"
                         "pop %%rbp\n\t"
                         "add $128, %%rsp"
                         : "=a"(ret)
                         : "a"(nr), "b"(a[0]), "c"(a[1]), "d"(a[2]), "S"(a[3]), "D"(a[4]), [a5] "r"(a5)
                         : "memory", "cc", "r8", "r9", "r10", "r11");
        return (int)ret; /* the 32-bit ABI returns in eax */
}

static void do_call(const struct call *c, long *ret_r, int *ret_e)
{
        long r;
        int e = 0;

        if (c->abi == ABI_I386) {
                r = int80(c->nr, c->args);
                if (r < 0 && r >= -4095) {
                        e = (int)-r;
                        r = -1;
                }
        } else {
                errno = 0;
                r = syscall(c->nr, c->args[0], c->args[1], c->args[2], c->args[3], c->args[4], c->args[5]);
                if (r == -1)
                        e = errno;
        }
        *ret_r = r;
        *ret_e = e;
}

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
        (void)sig;
        (void)uc;
        shared->trapped = 1;
        shared->trap_errno = si->si_errno;
        shared->trap_nr = si->si_syscall;
        shared->trap_arch = si->si_arch;
        _exit(0);
}

static _Noreturn void child(const struct sock_filter *prog, size_t len, const struct call *c)
{
        struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
        struct sock_fprog fp = { .len = (unsigned short)len, .filter = (struct sock_filter *)prog };
        long r;
        int e;

        (void)sigaction(SIGSYS, &sa, NULL);
        /* A program that refuses exit_group would leave us spinning. */
        (void)alarm(5);
        if (c->abi != ABI_NONE) {
                do_call(c, &r, &e);
                shared->r0 = r;
                shared->e0 = e;
        }
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                _exit(2);
        r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp);
        shared->load_errno = r == 0 ? 0 : errno;
        shared->stage = 1;
        if (r == 0 && c->abi != ABI_NONE) {
                do_call(c, &r, &e);
                shared->r1 = r;
                shared->e1 = e;
                shared->stage = 2;
        }
        _exit(0);
}

static int kernel_run(const struct sock_filter *prog, size_t len, const struct call *c, struct outcome *o)
{
        int status;
        pid_t pid;

        memset(shared, 0, sizeof(*shared));
        (void)fflush(stdout);
        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0)
                child(prog, len, c);
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        o->rep = *shared;
        o->status = status;
        return 0;
}

/* 0 when the kernel accepted prog, else the errno of the refusal. */
static int kernel_load_errno(const struct sock_filter *prog, size_t len)
{
        const struct call none = { .abi = ABI_NONE };
        struct outcome o;
        int r = kernel_run(prog, len, &none, &o);
        if (r < 0)
                return -r;
        if (o.rep.stage != 1)
                return -1; /* the child did not get as far as the load */
        return o.rep.load_errno;
}

static void describe(const struct outcome *o, char *buf, size_t n)
{
        const struct report *p = &o->rep;
        if (p->stage == 0)
                (void)snprintf(buf, n, "child failed before the load (status 0x%x)", o->status);
        else if (p->load_errno)
                (void)snprintf(buf, n, "load refused: %s", strerror(p->load_errno));
        else if (p->trapped)
                (void)snprintf(buf, n, "SIGSYS trap errno %d nr %d arch 0x%x", p->trap_errno, p->trap_nr, p->trap_arch);
        else if (p->stage == 2)
                (void)snprintf(buf, n, "returned %ld errno %d (unfiltered: %ld errno %d)", p->r1, p->e1, p->r0, p->e0);
        else if (WIFSIGNALED(o->status))
                (void)snprintf(buf, n, "killed by signal %d", WTERMSIG(o->status));
        else
                (void)snprintf(buf, n, "call did not return (status 0x%x)", o->status);
}

static bool outcome_matches(uint32_t ret, const struct tsync_bpf_input *in, const struct outcome *o)
{
        const struct report *p = &o->rep;
        uint32_t data = ret & SECCOMP_RET_DATA;

        if (p->stage < 1 || p->load_errno != 0)
                return false;
        switch (ret & SECCOMP_RET_ACTION_FULL) {
        case SECCOMP_RET_ALLOW:
        case SECCOMP_RET_LOG:
                return p->stage == 2 && p->r1 == p->r0 && p->e1 == p->e0;
        case SECCOMP_RET_ERRNO:
                if (data > 4095) /* the kernel caps it at MAX_ERRNO */
                        data = 4095;
                return p->stage == 2 && (data == 0 ? p->r1 == 0 : p->r1 == -1 && p->e1 == (int)data);
        case SECCOMP_RET_TRACE: /* no tracer: the call fails with ENOSYS */
                return p->stage == 2 && p->r1 == -1 && p->e1 == ENOSYS;
        case SECCOMP_RET_TRAP:
                return p->stage == 1 && p->trapped && p->trap_errno == (int)data && p->trap_nr == in->nr &&
                       p->trap_arch == in->arch;
        default: /* KILL_THREAD, KILL_PROCESS, and unknown actions (killed as KILL_PROCESS) */
                return p->stage == 1 && !p->trapped && WIFSIGNALED(o->status) && WTERMSIG(o->status) == SIGSYS;
        }
}

/* Runs c under prog in the simulator and in the kernel; true when they
 * agree. A program the simulator refuses must be one the kernel refuses
 * with EINVAL. *ret_action gets the simulated return (or ~0 if refused). */
static bool sim_matches_kernel(const struct sock_filter *prog, size_t len, const struct call *c, uint32_t *ret_action,
                               char *why, size_t n)
{
        struct tsync_bpf_input in = { .nr = (int32_t)c->nr,
                                      .arch = c->abi == ABI_I386 ? AUDIT_ARCH_I386 : NATIVE_ARCH };
        struct tsync_bpf_result res = { 0 };
        struct tsync_err err = { 0 };
        struct outcome o;
        char got[192], want[32];
        int v, r;

        memcpy(in.args, c->args, sizeof(in.args));
        v = tsync_bpf_simulate(prog, len, &in, &res, &err);
        r = kernel_run(prog, len, c, &o);
        if (r < 0) {
                (void)snprintf(why, n, "fork: %s", strerror(-r));
                return false;
        }
        describe(&o, got, sizeof(got));
        if (v < 0) {
                *ret_action = ~0u;
                (void)snprintf(why, n, "simulator refused (%.200s); kernel: %s", err.msg, got);
                return o.rep.stage >= 1 && o.rep.load_errno == EINVAL;
        }
        *ret_action = res.ret;
        tsync_bpf_ret_name(res.ret, want, sizeof(want));
        (void)snprintf(why, n, "simulator %s after %zu instructions; kernel: %s", want, res.executed, got);
        return outcome_matches(res.ret, &in, &o);
}

/* ---- Validation: the kernel's verdict on hand-built programs ---------- */

#define RET_ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define LD_ABS(k) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (k))

struct named_prog {
        const char *name;
        bool bad; /* what we mean it to be; validate and the kernel must both agree */
        size_t len;
        struct sock_filter insn[8];
};

static void check_verdict(const char *name, bool bad, const struct sock_filter *prog, size_t len)
{
        struct tsync_err err = { 0 };
        int v = tsync_bpf_validate(prog, len, &err);
        int k = kernel_load_errno(prog, len);
        bool ok = bad ? v == -EINVAL && k == EINVAL : v == 0 && k == 0;
        tap_ok(ok, "test_bpf_validate_%s_%s (validate %d '%s', kernel load errno %d)", bad ? "rejects" : "accepts",
               name, v, v < 0 ? err.msg : "", k);
}

static void test_bpf_validate_hand_built_programs(void)
{
        static const struct named_prog progs[] = {
                { "jump_past_end", true, 2, { BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0), RET_ALLOW } },
                { "jf_past_end", true, 2, { BPF_JUMP(BPF_JMP | BPF_JGT | BPF_X, 0, 0, 1), RET_ALLOW } },
                { "ja_past_end", true, 2, { BPF_STMT(BPF_JMP | BPF_JA, 1), RET_ALLOW } },
                { "ja_huge", true, 2, { BPF_STMT(BPF_JMP | BPF_JA, 0xffffffff), RET_ALLOW } },
                { "no_trailing_ret", true, 2, { RET_ALLOW, LD_ABS(0) } },
                { "single_load", true, 1, { LD_ABS(0) } },
                { "ld_abs_offset_64", true, 2, { LD_ABS(64), RET_ALLOW } },
                { "ld_abs_misaligned_2", true, 2, { LD_ABS(2), RET_ALLOW } },
                { "ld_abs_ancillary", true, 2, { LD_ABS(0xfffff000), RET_ALLOW } },
                { "ldh_abs", true, 2, { BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0), RET_ALLOW } },
                { "ldb_abs", true, 2, { BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0), RET_ALLOW } },
                { "ld_ind", true, 2, { BPF_STMT(BPF_LD | BPF_W | BPF_IND, 0), RET_ALLOW } },
                { "ldx_msh", true, 2, { BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0), RET_ALLOW } },
                { "unknown_opcode_0xff", true, 2, { BPF_STMT(0xff, 0), RET_ALLOW } },
                { "unknown_opcode_0x1006", true, 2, { BPF_STMT(0x1006, 0), RET_ALLOW } },
                { "div_by_constant_zero", true, 2, { BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0), RET_ALLOW } },
                { "mod_by_constant", true, 2, { BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, 3), RET_ALLOW } },
                { "mod_by_x", true, 2, { BPF_STMT(BPF_ALU | BPF_MOD | BPF_X, 0), RET_ALLOW } },
                { "lsh_by_32", true, 2, { BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 32), RET_ALLOW } },
                { "rsh_by_32", true, 2, { BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 32), RET_ALLOW } },
                { "st_slot_16", true, 2, { BPF_STMT(BPF_ST, 16), RET_ALLOW } },
                { "ld_mem_unwritten", true, 2, { BPF_STMT(BPF_LD | BPF_MEM, 0), RET_ALLOW } },
                { "ldx_mem_written_elsewhere",
                  true,
                  3,
                  { BPF_STMT(BPF_ST, 1), BPF_STMT(BPF_LDX | BPF_MEM, 0), RET_ALLOW } },
                { "ld_mem_written_on_one_branch",
                  true,
                  5,
                  { BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1), BPF_STMT(BPF_ST, 2),
                    BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 1), BPF_STMT(BPF_LD | BPF_MEM, 2), RET_ALLOW } },
                { "ld_mem_reached_only_by_a_ja_over_the_store",
                  true,
                  5,
                  { BPF_STMT(BPF_ST, 4), BPF_STMT(BPF_JMP | BPF_JA, 1), BPF_STMT(BPF_ST, 5),
                    BPF_STMT(BPF_LD | BPF_MEM, 5), RET_ALLOW } },
                /* The kernel's walk carries its mask across a return into
                 * the (unreachable) next instruction. */
                { "unreachable_ld_mem_after_ret",
                  false,
                  4,
                  { BPF_STMT(BPF_ST, 0), RET_ALLOW, BPF_STMT(BPF_LD | BPF_MEM, 0), BPF_STMT(BPF_RET | BPF_A, 0) } },
                /* The kernel's walk resets its mask after a jump: what holds
                 * at the next instruction comes only from jumps to it. */
                { "ld_mem_after_ja_reached_only_by_a_jump_that_stored",
                  false,
                  6,
                  { BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2), BPF_STMT(BPF_ST, 0),
                    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 1), BPF_STMT(BPF_JMP | BPF_JA, 1),
                    BPF_STMT(BPF_LD | BPF_MEM, 0), RET_ALLOW } },
                { "ld_mem_after_jeq_reached_only_by_a_jump_that_stored",
                  false,
                  6,
                  { BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2), BPF_STMT(BPF_ST, 0),
                    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 1), BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 0, 1, 1),
                    BPF_STMT(BPF_LD | BPF_MEM, 0), RET_ALLOW } },
                { "ld_mem_written_on_both_branches",
                  false,
                  6,
                  { BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2), BPF_STMT(BPF_ST, 2), BPF_STMT(BPF_JMP | BPF_JA, 1),
                    BPF_STMT(BPF_STX, 2), BPF_STMT(BPF_LD | BPF_MEM, 2), RET_ALLOW } },
                { "every_seccomp_load",
                  false,
                  8,
                  { LD_ABS(0), LD_ABS(4), LD_ABS(8), LD_ABS(60), BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
                    BPF_STMT(BPF_LDX | BPF_W | BPF_LEN, 0), BPF_STMT(BPF_LDX | BPF_IMM, 3), RET_ALLOW } },
                { "shift_by_31_and_div_by_x",
                  false,
                  4,
                  { BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 31), BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 31),
                    BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0), RET_ALLOW } },
                { "ret_a_alone", false, 1, { BPF_STMT(BPF_RET | BPF_A, 0) } },
        };
        for (size_t i = 0; i < ARRAY_SIZE(progs); i++)
                check_verdict(progs[i].name, progs[i].bad, progs[i].insn, progs[i].len);

        check_verdict("empty_program", true, progs[0].insn, 0);

        /* BPF_MAXINSNS is the limit, inclusive. */
        _cleanup_free_ struct sock_filter *big = calloc(BPF_MAXINSNS + 1, sizeof(*big));
        if (!big) {
                tap_ok(0, "test_bpf_validate_program_length: out of memory");
                return;
        }
        for (size_t i = 0; i < BPF_MAXINSNS + 1; i++)
                big[i] = (struct sock_filter)LD_ABS(0);
        big[BPF_MAXINSNS - 1] = (struct sock_filter)RET_ALLOW;
        check_verdict("4096_instructions", false, big, BPF_MAXINSNS);
        big[BPF_MAXINSNS] = (struct sock_filter)RET_ALLOW;
        check_verdict("4097_instructions", true, big, BPF_MAXINSNS + 1);
}

/* Every 8-bit opcode (and a few wider codes) with a handful of k values, in
 * front of a return: the validator and the kernel must agree on each. */
static void test_bpf_validate_every_opcode(void)
{
        static const uint32_t ks[] = { 0, 1, 4, 32, 64 };
        size_t runs = 0, accepted = 0, mismatches = 0;

        for (unsigned code = 0; code <= 0x100 + 2; code++) {
                uint16_t c = code <= 0xff ? (uint16_t)code : code == 0x100 ? 0x100 : code == 0x101 ? 0x1000 : 0xffff;
                for (size_t i = 0; i < ARRAY_SIZE(ks); i++) {
                        struct sock_filter prog[] = { BPF_JUMP(c, ks[i], 0, 0), RET_ALLOW };
                        struct tsync_err err = { 0 };
                        int v = tsync_bpf_validate(prog, ARRAY_SIZE(prog), &err);
                        int k = kernel_load_errno(prog, ARRAY_SIZE(prog));
                        runs++;
                        if (k == 0)
                                accepted++;
                        if ((v == 0 && k == 0) || (v == -EINVAL && k == EINVAL))
                                continue;
                        mismatches++;
                        tap_diag("code 0x%04x k %u: validate %d '%s', kernel load errno %d", c, ks[i], v,
                                 v < 0 ? err.msg : "", k);
                }
        }
        /* Guard against a harness that never loads or never refuses. */
        tap_ok(mismatches == 0 && accepted > 50 && accepted < runs / 2,
               "test_bpf_validate_agrees_with_kernel_on_every_opcode (%zu programs, %zu accepted, %zu mismatches)",
               runs, accepted, mismatches);
}

/* ---- Simulation: hand-built programs, simulator against kernel --------- */

struct pbuf {
        struct sock_filter insn[32];
        size_t len;
};

struct stats {
        size_t runs, mismatches;
};

static void emit(struct pbuf *b, struct sock_filter f)
{
        if (b->len < ARRAY_SIZE(b->insn))
                b->insn[b->len++] = f;
}

/* Every call but getppid is allowed, so the child can report and exit. */
static void prelude(struct pbuf *b)
{
        b->len = 0;
        emit(b, (struct sock_filter)LD_ABS(0));
        emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 1, 0));
        emit(b, (struct sock_filter)RET_ALLOW);
}

/* Returns ERRNO(12 bits of A): part 0 the low bits, 1 the middle, 2 the top
 * 8; three runs expose all 32 bits of A to the kernel's verdict. */
static void tail(struct pbuf *b, int part)
{
        if (part > 0)
                emit(b, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, part == 1 ? 12 : 24));
        emit(b, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xfff));
        emit(b, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_OR | BPF_K, SECCOMP_RET_ERRNO));
        emit(b, (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0));
}

static void run_case(struct stats *st, const char *label, const struct pbuf *b, const struct call *c)
{
        char why[512];
        uint32_t action;

        st->runs++;
        if (!sim_matches_kernel(b->insn, b->len, c, &action, why, sizeof(why))) {
                st->mismatches++;
                tap_diag("%s, args 0x%lx 0x%lx: %s", label, c->args[0], c->args[1], why);
        }
}

static const unsigned long pairs[][2] = {
        { 7, 3 },
        { 0xfffffff0, 0x20 },
        { 0x12345678, 31 },
        { 0x80000001, 33 },
        { 5, 0 },
        { 0xffffffff, 0xffffffff },
        { 0xdeadbeef, 0x10001 },
        { 0x1ffffffffUL, 2 }, /* the high words must not leak into 32-bit A */
};

static void test_bpf_simulate_alu(void)
{
        static const struct {
                uint16_t op;
                const char *name;
        } ops[] = {
                { BPF_ADD, "add" }, { BPF_SUB, "sub" }, { BPF_MUL, "mul" }, { BPF_DIV, "div" },
                { BPF_MOD, "mod" }, { BPF_AND, "and" }, { BPF_OR, "or" },   { BPF_XOR, "xor" },
                { BPF_LSH, "lsh" }, { BPF_RSH, "rsh" }, { BPF_NEG, "neg" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(ops); i++) {
                for (int src = 0; src < 2; src++) {
                        struct stats st = { 0 };
                        for (size_t j = 0; j < ARRAY_SIZE(pairs); j++) {
                                for (int part = 0; part < 3; part++) {
                                        struct call c = { ABI_NATIVE, __NR_getppid, { pairs[j][0], pairs[j][1] } };
                                        struct pbuf b;
                                        prelude(&b);
                                        emit(&b, (struct sock_filter)LD_ABS(24));
                                        emit(&b, (struct sock_filter)BPF_STMT(BPF_MISC | BPF_TAX, 0));
                                        emit(&b, (struct sock_filter)LD_ABS(16));
                                        emit(&b,
                                             (struct sock_filter)BPF_STMT(BPF_ALU | ops[i].op | (src ? BPF_X : BPF_K),
                                                                          (uint32_t)pairs[j][1]));
                                        tail(&b, part);
                                        run_case(&st, ops[i].name, &b, &c);
                                }
                        }
                        tap_ok(st.mismatches == 0, "test_bpf_simulate_matches_kernel_alu_%s_%s (%zu runs)", ops[i].name,
                               src ? "x" : "k", st.runs);
                }
        }
}

static void test_bpf_simulate_jumps(void)
{
        static const struct {
                uint16_t op;
                const char *name;
        } ops[] = { { BPF_JEQ, "jeq" }, { BPF_JGT, "jgt" }, { BPF_JGE, "jge" }, { BPF_JSET, "jset" } };
        static const unsigned long jpairs[][2] = {
                { 5, 5 },       { 5, 6 },       { 6, 5 }, { 0x80000000, 0x7fffffff },
                { 0xf0, 0x0f }, { 0xf0, 0x10 }, { 0, 0 }, { 0x100000005UL, 5 },
        };
        for (size_t i = 0; i < ARRAY_SIZE(ops); i++) {
                for (int src = 0; src < 2; src++) {
                        struct stats st = { 0 };
                        for (size_t j = 0; j < ARRAY_SIZE(jpairs); j++) {
                                struct call c = { ABI_NATIVE, __NR_getppid, { jpairs[j][0], jpairs[j][1] } };
                                struct pbuf b;
                                prelude(&b);
                                emit(&b, (struct sock_filter)LD_ABS(24));
                                emit(&b, (struct sock_filter)BPF_STMT(BPF_MISC | BPF_TAX, 0));
                                emit(&b, (struct sock_filter)LD_ABS(16));
                                emit(&b, (struct sock_filter)BPF_JUMP(BPF_JMP | ops[i].op | (src ? BPF_X : BPF_K),
                                                                      (uint32_t)jpairs[j][1], 1, 0));
                                emit(&b, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 3100));
                                emit(&b, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 3101));
                                run_case(&st, ops[i].name, &b, &c);
                        }
                        tap_ok(st.mismatches == 0, "test_bpf_simulate_matches_kernel_%s_%s (%zu runs)", ops[i].name,
                               src ? "x" : "k", st.runs);
                }
        }
}

/* Programs of a body after the prelude and a tail, run on a few inputs. */
static void run_body(const char *name, const struct sock_filter *body, size_t n, bool with_tail)
{
        static const unsigned long inputs[][6] = {
                { 0, 0, 0, 0, 0, 0 },
                { 1, 2, 3, 4, 5, 6 },
                { 0x0123456789abcdefUL, 0xfedcba9876543210UL, 0, 0, 0x1122334455667788UL, 0x99aabbccddeeff00UL },
                { 0x7fff0000, 0x00030009, 0x7ff00001, 0x80000000, 0x12345678, 0x7ffc0000 },
                { 0x00050007, 0, 0, 0, 0, 0 },
        };
        struct stats st = { 0 };
        for (size_t i = 0; i < ARRAY_SIZE(inputs); i++) {
                for (int part = 0; part < (with_tail ? 3 : 1); part++) {
                        struct call c = { ABI_NATIVE, __NR_getppid, { 0 } };
                        struct pbuf b;
                        memcpy(c.args, inputs[i], sizeof(c.args));
                        prelude(&b);
                        for (size_t j = 0; j < n; j++)
                                emit(&b, body[j]);
                        if (with_tail)
                                tail(&b, part);
                        run_case(&st, name, &b, &c);
                }
        }
        tap_ok(st.mismatches == 0, "test_bpf_simulate_matches_kernel_%s (%zu runs)", name, st.runs);
}

static void test_bpf_simulate_hand_built_programs(void)
{
        test_bpf_simulate_alu();
        test_bpf_simulate_jumps();

        /* Offsets are relative to the body's first instruction, index 3. */
        const struct sock_filter ja[] = {
                LD_ABS(16),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
                BPF_STMT(BPF_JMP | BPF_JA, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 3102),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 3103),
        };
        run_body("ja", ja, ARRAY_SIZE(ja), false);

        const struct sock_filter words[][1] = {
                { LD_ABS(0) },  { LD_ABS(4) },  { LD_ABS(16) }, { LD_ABS(20) },
                { LD_ABS(24) }, { LD_ABS(28) }, { LD_ABS(48) }, { LD_ABS(60) },
        };
        static const char *const word_names[] = { "ld_nr",       "ld_arch",     "ld_args0_lo", "ld_args0_hi",
                                                  "ld_args1_lo", "ld_args1_hi", "ld_args4_lo", "ld_args5_hi" };
        for (size_t i = 0; i < ARRAY_SIZE(words); i++)
                run_body(word_names[i], words[i], 1, true);

        const struct sock_filter memory[] = {
                LD_ABS(16),
                BPF_STMT(BPF_ST, 3),
                LD_ABS(24),
                BPF_STMT(BPF_MISC | BPF_TAX, 0),
                BPF_STMT(BPF_LD | BPF_IMM, 0x55),
                BPF_STMT(BPF_STX, 15),
                BPF_STMT(BPF_LD | BPF_IMM, 0x1234),
                BPF_STMT(BPF_LDX | BPF_IMM, 7),
                BPF_STMT(BPF_LD | BPF_MEM, 3),
                BPF_STMT(BPF_LDX | BPF_MEM, 15),
                BPF_STMT(BPF_ALU | BPF_SUB | BPF_X, 0),
        };
        run_body("scratch_memory", memory, ARRAY_SIZE(memory), true);

        const struct sock_filter branches[] = {
                LD_ABS(16),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3),
                BPF_STMT(BPF_LD | BPF_IMM, 0x111),
                BPF_STMT(BPF_ST, 2),
                BPF_STMT(BPF_JMP | BPF_JA, 2),
                BPF_STMT(BPF_LD | BPF_IMM, 0x222),
                BPF_STMT(BPF_ST, 2),
                BPF_STMT(BPF_LD | BPF_MEM, 2),
        };
        run_body("scratch_memory_across_branches", branches, ARRAY_SIZE(branches), true);

        const struct sock_filter len[] = {
                BPF_STMT(BPF_LDX | BPF_W | BPF_LEN, 0), BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
                BPF_STMT(BPF_ALU | BPF_MUL | BPF_K, 3), BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0),
                BPF_STMT(BPF_MISC | BPF_TAX, 0),        BPF_STMT(BPF_LD | BPF_IMM, 5),
                BPF_STMT(BPF_MISC | BPF_TXA, 0),
        };
        run_body("ld_len_ldx_len_txa", len, ARRAY_SIZE(len), true);

        /* RET A with every action class: the inputs' args carry ALLOW,
         * TRAP(9), TRACE(1), KILL_PROCESS, an unknown action and LOG. */
        for (uint32_t i = 0; i < 6; i++) {
                const struct sock_filter ret_a[] = { LD_ABS(16 + 8 * i), BPF_STMT(BPF_RET | BPF_A, 0) };
                char name[32];
                (void)snprintf(name, sizeof(name), "ret_a_from_args%u", i);
                run_body(name, ret_a, ARRAY_SIZE(ret_a), false);
        }
}

/* ---- Simulation: libseccomp's filters, simulator against kernel -------- */

/* clang-format off */
#define CMP(a, o, x, y) { .arg = (a), .op = (o), .datum_a = (x), .datum_b = (y) }
/* clang-format on */

struct rule {
        int nr; /* x86_64 number; libseccomp maps it to the other arches by name */
        uint32_t action;
        unsigned int cnt;
        struct scmp_arg_cmp cmp[2];
};

/* Each rule has an outcome the child can tell apart: its own errno, a trap,
 * death, ENOSYS from TRACE without a tracer, or the unfiltered result. */
static const struct rule rules[] = {
        { __NR_uname, SCMP_ACT_ERRNO(3000), 0, { { 0 } } },
        { __NR_getpid, SCMP_ACT_ERRNO(3030), 0, { { 0 } } },
        { __NR_getppid, SCMP_ACT_ERRNO(3002), 1, { CMP(0, SCMP_CMP_EQ, 5, 0) } },
        { __NR_getppid, SCMP_ACT_ERRNO(3003), 1, { CMP(1, SCMP_CMP_GT, 100, 0) } },
        { __NR_getppid, SCMP_ACT_ERRNO(3004), 1, { CMP(2, SCMP_CMP_MASKED_EQ, 0xff, 0x42) } },
        { __NR_getppid, SCMP_ACT_ERRNO(3005), 1, { CMP(3, SCMP_CMP_EQ, 0x100000001ULL, 0) } },
        { __NR_getppid, SCMP_ACT_KILL_PROCESS, 1, { CMP(0, SCMP_CMP_EQ, 666, 0) } },
        { __NR_getppid, SCMP_ACT_TRAP, 1, { CMP(0, SCMP_CMP_EQ, 777, 0) } },
        { __NR_getppid, SCMP_ACT_ERRNO(3006), 2, { CMP(0, SCMP_CMP_EQ, 8, 0), CMP(1, SCMP_CMP_LE, 3, 0) } },
        { __NR_getpgrp, SCMP_ACT_ERRNO(3007), 1, { CMP(4, SCMP_CMP_GE, 0x8000000000000000ULL, 0) } },
        { __NR_getppid, SCMP_ACT_ERRNO(3008), 2, { CMP(4, SCMP_CMP_EQ, 0xdead, 0), CMP(5, SCMP_CMP_LT, 10, 0) } },
        { __NR_personality, SCMP_ACT_ERRNO(3010), 1, { CMP(0, SCMP_CMP_NE, 0xffffffff, 0) } },
        { __NR_gettid, SCMP_ACT_LOG, 0, { { 0 } } },
        { __NR_getuid, SCMP_ACT_TRACE(5), 0, { { 0 } } },
        { __NR_getgid, SCMP_ACT_ERRNO(3011), 1, { CMP(0, SCMP_CMP_EQ, 7, 0) } },
};

static struct utsname uts;

/* clang-format off */
#define N(nr, ...) { ABI_NATIVE, (nr), { __VA_ARGS__ } }
#define I(nr, ...) { ABI_I386, (nr), { __VA_ARGS__ } }
/* clang-format on */

static const struct call native_calls[] = {
        N(__NR_getpid, 0),
        N(__NR_uname, (unsigned long)&uts),
        N(__NR_getppid, 0),
        N(__NR_getppid, 5),
        N(__NR_getppid, 5 | 1UL << 32),
        N(__NR_getppid, 0, 101),
        N(__NR_getppid, 0, 100),
        N(__NR_getppid, 0, 1UL << 32),
        N(__NR_getppid, 0, 0, 0x1042),
        N(__NR_getppid, 0, 0, 0x1043),
        N(__NR_getppid, 0, 0, 0, 0x100000001UL),
        N(__NR_getppid, 0, 0, 0, 1),
        N(__NR_getppid, 0, 0, 0, 0x100000000UL),
        N(__NR_getppid, 666),
        N(__NR_getppid, 777),
        N(__NR_getppid, 8, 3),
        N(__NR_getppid, 8, 4),
        N(__NR_getppid, 8, 0xffffffff00000000UL),
        N(__NR_getpgrp, 0, 0, 0, 0, 0x8000000000000000UL),
        N(__NR_getpgrp, 0, 0, 0, 0, 0x7fffffffffffffffUL),
        N(__NR_getpgrp, 0, 0, 0, 0, 0xffffffffffffffffUL),
        N(__NR_getppid, 0, 0, 0, 0, 0xdead, 9),
        N(__NR_getppid, 0, 0, 0, 0, 0xdead, 10),
        N(__NR_personality, 0xffffffff),
        N(__NR_personality, 0),
        N(__NR_personality, 0xffffffffffffffffUL),
        N(__NR_gettid, 0),
        N(__NR_getuid, 0),
        N(__NR_getgid, 7),
        N(__NR_getgid, 8),
        N(__NR_getgid, 0x100000007UL),
        N(1000, 0),
        N(-1, 0),
        N(512, 0),
        N(X32_BIT | __NR_getpid, 0),
        N(X32_BIT | __NR_getppid, 5),
        N(X32_BIT | __NR_getppid, 0),
        N(X32_BIT | __NR_uname, 0),
        N(X32_BIT | 512, 0),
        N(X32_BIT | 1000, 0),
};

/* i386 numbers: getpid 20, uname 122, getppid 64, personality 136,
 * gettid 224, getuid 24, getgid 47, getpgrp 65. Pointers would be
 * truncated, so none. */
static const struct call i386_calls[] = {
        I(20, 0),           I(122, 0), I(64, 0),  I(64, 5), I(64, 666), I(64, 777), I(64, 8, 3), I(64, 8, 4),
        I(136, 0xffffffff), I(136, 0), I(224, 0), I(24, 0), I(47, 7),   I(47, 8),   I(1000, 0),  I(65, 0),
};

/* What the rules above mean for each i386 call, read off the table by hand:
 * the check for machines where int $0x80 cannot ask the kernel. On a 32-bit
 * arch libseccomp compares only the low word of a datum, so getpgrp's
 * "args[4] >= 0x8000000000000000" becomes "args[4] >= 0": always true. */
static const uint32_t i386_expected[] = {
        SECCOMP_RET_ERRNO | 3030, SECCOMP_RET_ERRNO | 3000, SECCOMP_RET_ALLOW,        SECCOMP_RET_ERRNO | 3002,
        SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_TRAP,         SECCOMP_RET_ERRNO | 3006, SECCOMP_RET_ALLOW,
        SECCOMP_RET_ALLOW,        SECCOMP_RET_ERRNO | 3010, SECCOMP_RET_LOG,          SECCOMP_RET_TRACE | 5,
        SECCOMP_RET_ERRNO | 3011, SECCOMP_RET_ALLOW,        SECCOMP_RET_ALLOW,        SECCOMP_RET_ERRNO | 3007,
};
_Static_assert(ARRAY_SIZE(i386_expected) == ARRAY_SIZE(i386_calls), "one expectation per i386 call");

static void check_i386_rules(const char *variant, bool multi, const struct sock_filter *prog, size_t len)
{
        size_t mismatches = 0;
        for (size_t i = 0; i < ARRAY_SIZE(i386_calls); i++) {
                struct tsync_bpf_input in = { .nr = (int32_t)i386_calls[i].nr, .arch = AUDIT_ARCH_I386 };
                struct tsync_bpf_result res = { 0 };
                struct tsync_err err = { 0 };
                /* Without the x86 arch libseccomp's filter kills other arches. */
                uint32_t want = multi ? i386_expected[i] : SECCOMP_RET_KILL_THREAD;
                memcpy(in.args, i386_calls[i].args, sizeof(in.args));
                if (tsync_bpf_simulate(prog, len, &in, &res, &err) == 0 && res.ret == want)
                        continue;
                mismatches++;
                tap_diag("%s i386 nr %ld arg0 0x%lx: simulator 0x%08x (%s), rules say 0x%08x", variant,
                         i386_calls[i].nr, i386_calls[i].args[0], res.ret, err.msg, want);
        }
        tap_ok(mismatches == 0, "test_bpf_simulate_follows_the_rules_libseccomp_%s_i386 (%zu calls)", variant,
               ARRAY_SIZE(i386_calls));
}

static int export_filter(scmp_filter_ctx ctx, struct sock_filter **ret_prog, size_t *ret_len)
{
        _cleanup_close_ int fd = memfd_create("tsync-test-bpf", MFD_CLOEXEC);
        _cleanup_free_ struct sock_filter *prog = NULL;
        struct stat st;
        int r;

        if (fd < 0)
                return -errno;
        r = seccomp_export_bpf(ctx, fd);
        if (r < 0)
                return r;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (st.st_size == 0 || st.st_size % sizeof(*prog) != 0)
                return -EINVAL;
        prog = malloc(st.st_size);
        if (!prog)
                return -ENOMEM;
        if (pread(fd, prog, st.st_size, 0) != st.st_size)
                return -EIO;
        *ret_len = st.st_size / sizeof(*prog);
        *ret_prog = TAKE_PTR(prog);
        return 0;
}

static int build_filter(bool multi, bool tree, struct sock_filter **ret_prog, size_t *ret_len, char *why, size_t n)
{
        scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
        int r = 0;

        if (!ctx) {
                (void)snprintf(why, n, "seccomp_init failed");
                return -ENOMEM;
        }
        if (multi &&
            ((r = seccomp_arch_add(ctx, SCMP_ARCH_X86)) < 0 || (r = seccomp_arch_add(ctx, SCMP_ARCH_X32)) < 0)) {
                (void)snprintf(why, n, "seccomp_arch_add: %s", strerror(-r));
                goto out;
        }
        if (tree && (r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2)) < 0) {
                (void)snprintf(why, n, "SCMP_FLTATR_CTL_OPTIMIZE: %s", strerror(-r));
                goto out;
        }
        for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
                r = seccomp_rule_add_array(ctx, rules[i].action, rules[i].nr, rules[i].cnt, rules[i].cmp);
                if (r < 0) {
                        (void)snprintf(why, n, "rule %zu (syscall %d): %s", i, rules[i].nr, strerror(-r));
                        goto out;
                }
        }
        r = export_filter(ctx, ret_prog, ret_len);
        if (r < 0)
                (void)snprintf(why, n, "seccomp_export_bpf: %s", strerror(-r));
out:
        seccomp_release(ctx);
        return r;
}

static bool int80_available(void)
{
        const struct call c = I(20, 0);
        pid_t pid;
        int status;

        memset(shared, 0, sizeof(*shared));
        (void)fflush(stdout);
        pid = fork();
        if (pid < 0)
                return false;
        if (pid == 0) {
                long r;
                int e;
                /* Where the kernel refuses int $0x80 it raises SIGSEGV;
                 * die of it quietly, without a sanitizer's report. */
                (void)signal(SIGSEGV, SIG_DFL);
                (void)alarm(5);
                do_call(&c, &r, &e);
                shared->r0 = r;
                shared->stage = 1;
                _exit(0);
        }
        if (waitpid(pid, &status, 0) < 0)
                return false;
        return shared->stage == 1 && shared->r0 == pid;
}

/* Which kinds of outcome the calls produced: a run that never sees, say, a
 * trap proves nothing about traps. */
enum { SEEN_ALLOW = 1, SEEN_ERRNO = 2, SEEN_KILL = 4, SEEN_TRAP = 8, SEEN_TRACE = 16 };

static unsigned seen_kind(uint32_t ret)
{
        switch (ret & SECCOMP_RET_ACTION_FULL) {
        case SECCOMP_RET_ALLOW:
        case SECCOMP_RET_LOG:
                return SEEN_ALLOW;
        case SECCOMP_RET_ERRNO:
                return SEEN_ERRNO;
        case SECCOMP_RET_TRAP:
                return SEEN_TRAP;
        case SECCOMP_RET_TRACE:
                return SEEN_TRACE;
        default:
                return SEEN_KILL;
        }
}

static void run_calls(const char *variant, const char *abi, const struct sock_filter *prog, size_t len,
                      const struct call *calls, size_t n, unsigned want_seen)
{
        struct stats st = { 0 };
        unsigned seen = 0;

        for (size_t i = 0; i < n; i++) {
                char why[512];
                uint32_t action;
                st.runs++;
                if (!sim_matches_kernel(prog, len, &calls[i], &action, why, sizeof(why))) {
                        st.mismatches++;
                        tap_diag("%s %s nr 0x%lx args 0x%lx 0x%lx: %s", variant, abi, calls[i].nr, calls[i].args[0],
                                 calls[i].args[1], why);
                } else {
                        seen |= seen_kind(action);
                }
        }
        tap_ok(st.mismatches == 0 && (seen & want_seen) == want_seen,
               "test_bpf_simulate_matches_kernel_libseccomp_%s_%s (%zu calls, %zu instructions, outcomes 0x%x)",
               variant, abi, st.runs, len, seen);
}

static void test_bpf_simulate_libseccomp_filters(void)
{
        static const struct {
                const char *name;
                bool multi, tree;
        } variants[] = {
                { "native", false, false },
                { "native_tree", false, true },
                { "x86_64_x86_x32", true, false },
                { "x86_64_x86_x32_tree", true, true },
        };
        const unsigned all = SEEN_ALLOW | SEEN_ERRNO | SEEN_KILL | SEEN_TRAP | SEEN_TRACE;
        bool i386 = int80_available();

        if (!i386)
                tap_diag("int $0x80 does not work here: the i386 comparisons are skipped");
        for (size_t v = 0; v < ARRAY_SIZE(variants); v++) {
                _cleanup_free_ struct sock_filter *prog = NULL;
                struct tsync_err err = { 0 };
                char why[256] = "";
                size_t len = 0;
                int r = build_filter(variants[v].multi, variants[v].tree, &prog, &len, why, sizeof(why));
                if (r < 0) {
                        tap_ok(0, "test_bpf_libseccomp_%s_builds: %s", variants[v].name, why);
                        continue;
                }
                r = tsync_bpf_validate(prog, len, &err);
                tap_ok(r == 0, "test_bpf_validate_accepts_libseccomp_%s (%zu instructions) %s", variants[v].name, len,
                       r < 0 ? err.msg : "");

                _cleanup_free_ char *text = disassemble(prog, len, &r);
                size_t lines = 0;
                for (const char *p = text; p && (p = strchr(p, '\n')); p++)
                        lines++;
                tap_ok(r == 0 && text && lines == len && !strstr(text, "unknown") && strstr(text, "; x86_64") &&
                               (!variants[v].multi || strstr(text, "; i386")),
                       "test_bpf_disassemble_libseccomp_%s (%zu lines)", variants[v].name, lines);

                run_calls(variants[v].name, "x86_64", prog, len, native_calls, ARRAY_SIZE(native_calls), all);
                check_i386_rules(variants[v].name, variants[v].multi, prog, len);
                if (i386)
                        /* Without the x86 arch the filter kills i386 calls. */
                        run_calls(variants[v].name, "i386", prog, len, i386_calls, ARRAY_SIZE(i386_calls),
                                  variants[v].multi ? all : SEEN_KILL);
                else
                        tap_ok(1, "test_bpf_simulate_matches_kernel_libseccomp_%s_i386 # SKIP int $0x80 unavailable",
                               variants[v].name);
        }
}

#else /* !__x86_64__ */

static int kernel_tests_setup(void)
{
        return 0;
}

static void test_bpf_kernel_skipped(void)
{
        tap_ok(1, "test_bpf_kernel_comparisons # SKIP written for x86_64 system call numbers");
}
#define test_bpf_validate_hand_built_programs   test_bpf_kernel_skipped
#define test_bpf_validate_every_opcode()        ((void)0)
#define test_bpf_simulate_hand_built_programs() ((void)0)
#define test_bpf_simulate_libseccomp_filters()  ((void)0)

#endif

/* A big-endian architecture's seccomp_data, as its kernel lays it out: a program for s390x reads
 * args[0]'s low half at offset 20 (the word after the high half), its nr and arch whole; and the
 * disassembler names the halves so. */
static void test_bpf_simulate_big_endian_data(void)
{
        const struct sock_filter prog[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4), /* arch */
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_S390X, 0, 5),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0), /* nr */
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 303, 0, 3),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 20), /* args[0]: its low half there */
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x20000, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct tsync_bpf_input in = { .nr = 303, .arch = AUDIT_ARCH_S390X, .args = { 0x20000 } };
        struct tsync_bpf_result res = { 0 };
        struct tsync_err err = { 0 };
        int r = tsync_bpf_simulate(prog, ARRAY_SIZE(prog), &in, &res, &err);
        tap_ok(r == 0 && res.ret == (SECCOMP_RET_ERRNO | 1),
               "test_bpf_simulate_reads_a_big_endian_args_low_half (%#x %s)", res.ret, err.msg);
        in.args[0] = 0x2000000000000ULL; /* the same bits in the high half: not a match */
        r = tsync_bpf_simulate(prog, ARRAY_SIZE(prog), &in, &res, &err);
        tap_ok(r == 0 && res.ret == SECCOMP_RET_ALLOW, "test_bpf_simulate_keeps_a_big_endian_high_half_apart (%#x)",
               res.ret);
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        bool named = f && tsync_bpf_disassemble(prog, ARRAY_SIZE(prog), f) == 0 && fclose(f) == 0 &&
                     strstr(text, "ld  [args[0].lo]") && strstr(text, "; s390x");
        tap_ok(named, "test_bpf_disassemble_names_a_big_endian_programs_halves");
        free(text);
}

int main(void)
{
        test_bpf_ret_name();
        test_bpf_simulate_big_endian_data();
        test_bpf_disassemble();
        test_bpf_simulate_counts();
        if (kernel_tests_setup() < 0) {
                tap_ok(0, "test_bpf_kernel_setup: cannot map shared memory: %m");
                return tap_done();
        }
        test_bpf_validate_hand_built_programs();
        test_bpf_validate_every_opcode();
        test_bpf_simulate_hand_built_programs();
        test_bpf_simulate_libseccomp_filters();
        return tap_done();
}
