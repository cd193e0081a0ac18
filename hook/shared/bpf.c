/* Classic-BPF seccomp programs: the kernel's load-time checks and an interpreter.
 *
 * The checks mirror, in one place, the three the kernel applies when
 * seccomp(SECCOMP_SET_MODE_FILTER) loads a program: bpf_check_basics_ok
 * (length), bpf_check_classic (known opcodes, jump ranges, constant division
 * by zero, shift and scratch-slot bounds, a final return, and
 * check_load_and_stores' "no M[] read before a write on every path") and
 * seccomp_check_filter (the smaller opcode whitelist, aligned in-bounds
 * loads from struct seccomp_data). The interpreter then assumes a program
 * that passed them, as the kernel does once it has accepted one. */
#include "shared/bpf.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "shared/arches.h"
#include "shared/cleanup.h"

_Static_assert(sizeof(struct tsync_bpf_input) == sizeof(struct seccomp_data),
               "tsync_bpf_input must mirror seccomp_data");
_Static_assert(sizeof(struct seccomp_data) == 64, "seccomp_data is 64 bytes");

/* Every opcode bpf_check_classic knows (its chk_code_allowed table), and
 * whether seccomp_check_filter then allows it (its smaller whitelist: no
 * packet loads other than word-sized LD ABS, no LDX MSH and no modulo). One
 * row per opcode, so that the two lists cannot drift apart, while the error
 * message can still say which check refused. The opcodes libseccomp's
 * programs are made of come first: opcode_find looks at every instruction of
 * a program each time one is validated. */
static const struct bpf_opcode {
        uint16_t code;
        bool seccomp;
} opcodes[] = {
        { BPF_JMP | BPF_JEQ | BPF_K, true },
        { BPF_LD | BPF_W | BPF_ABS, true },
        { BPF_RET | BPF_K, true },
        { BPF_JMP | BPF_JGE | BPF_K, true },
        { BPF_JMP | BPF_JGT | BPF_K, true },
        { BPF_JMP | BPF_JSET | BPF_K, true },
        { BPF_JMP | BPF_JA, true },
        { BPF_ALU | BPF_AND | BPF_K, true },
        { BPF_LD | BPF_MEM, true },
        { BPF_ST, true },
        { BPF_ALU | BPF_ADD | BPF_K, true },
        { BPF_ALU | BPF_ADD | BPF_X, true },
        { BPF_ALU | BPF_SUB | BPF_K, true },
        { BPF_ALU | BPF_SUB | BPF_X, true },
        { BPF_ALU | BPF_MUL | BPF_K, true },
        { BPF_ALU | BPF_MUL | BPF_X, true },
        { BPF_ALU | BPF_DIV | BPF_K, true },
        { BPF_ALU | BPF_DIV | BPF_X, true },
        { BPF_ALU | BPF_MOD | BPF_K, false },
        { BPF_ALU | BPF_MOD | BPF_X, false },
        { BPF_ALU | BPF_AND | BPF_X, true },
        { BPF_ALU | BPF_OR | BPF_K, true },
        { BPF_ALU | BPF_OR | BPF_X, true },
        { BPF_ALU | BPF_XOR | BPF_K, true },
        { BPF_ALU | BPF_XOR | BPF_X, true },
        { BPF_ALU | BPF_LSH | BPF_K, true },
        { BPF_ALU | BPF_LSH | BPF_X, true },
        { BPF_ALU | BPF_RSH | BPF_K, true },
        { BPF_ALU | BPF_RSH | BPF_X, true },
        { BPF_ALU | BPF_NEG, true },
        { BPF_LD | BPF_H | BPF_ABS, false },
        { BPF_LD | BPF_B | BPF_ABS, false },
        { BPF_LD | BPF_W | BPF_LEN, true },
        { BPF_LD | BPF_W | BPF_IND, false },
        { BPF_LD | BPF_H | BPF_IND, false },
        { BPF_LD | BPF_B | BPF_IND, false },
        { BPF_LD | BPF_IMM, true },
        { BPF_LDX | BPF_W | BPF_LEN, true },
        { BPF_LDX | BPF_B | BPF_MSH, false },
        { BPF_LDX | BPF_IMM, true },
        { BPF_LDX | BPF_MEM, true },
        { BPF_STX, true },
        { BPF_MISC | BPF_TAX, true },
        { BPF_MISC | BPF_TXA, true },
        { BPF_RET | BPF_A, true },
        { BPF_JMP | BPF_JEQ | BPF_X, true },
        { BPF_JMP | BPF_JGE | BPF_X, true },
        { BPF_JMP | BPF_JGT | BPF_X, true },
        { BPF_JMP | BPF_JSET | BPF_X, true },
};

/* The opcode's row, or NULL when bpf_check_classic does not know it. */
static const struct bpf_opcode *opcode_find(uint16_t code)
{
        for (size_t i = 0; i < ARRAY_SIZE(opcodes); i++)
                if (opcodes[i].code == code)
                        return &opcodes[i];
        return NULL;
}

static bool is_cond_jump(uint16_t code)
{
        return BPF_CLASS(code) == BPF_JMP && BPF_OP(code) != BPF_JA;
}

/* bpf_check_classic's per-instruction checks plus seccomp_check_filter's. */
static int check_insn(const struct sock_filter *prog, size_t len, size_t pc, struct tsync_err *err)
{
        const struct sock_filter *f = &prog[pc];
        const struct bpf_opcode *op = opcode_find(f->code);

        if (!op)
                return tsync_error(err, EINVAL, "instruction %zu: unknown opcode 0x%04x", pc, f->code);

        switch (f->code) {
        case BPF_ALU | BPF_DIV | BPF_K:
        case BPF_ALU | BPF_MOD | BPF_K:
                if (f->k == 0)
                        return tsync_error(err, EINVAL, "instruction %zu: division by constant zero", pc);
                break;
        case BPF_ALU | BPF_LSH | BPF_K:
        case BPF_ALU | BPF_RSH | BPF_K:
                if (f->k >= 32)
                        return tsync_error(err, EINVAL, "instruction %zu: shift by %u (32 or more)", pc, f->k);
                break;
        case BPF_LD | BPF_MEM:
        case BPF_LDX | BPF_MEM:
        case BPF_ST:
        case BPF_STX:
                if (f->k >= BPF_MEMWORDS)
                        return tsync_error(err, EINVAL, "instruction %zu: scratch slot M[%u] does not exist (0..%d)",
                                           pc, f->k, BPF_MEMWORDS - 1);
                break;
        case BPF_JMP | BPF_JA:
                /* Compared as the kernel does, so that a huge k cannot wrap. */
                if (f->k >= len - pc - 1)
                        return tsync_error(err, EINVAL, "instruction %zu: ja +%u jumps past the end (%zu instructions)",
                                           pc, f->k, len);
                break;
        default:
                if (is_cond_jump(f->code) && (pc + f->jt + 1 >= len || pc + f->jf + 1 >= len))
                        return tsync_error(err, EINVAL,
                                           "instruction %zu: jump (jt %u, jf %u) past the end (%zu instructions)", pc,
                                           f->jt, f->jf, len);
                break;
        }

        if (!op->seccomp)
                return tsync_error(err, EINVAL, "instruction %zu: opcode 0x%04x is not allowed in seccomp filters", pc,
                                   f->code);
        if (f->code == (BPF_LD | BPF_W | BPF_ABS)) {
                if (f->k >= sizeof(struct seccomp_data))
                        return tsync_error(err, EINVAL,
                                           "instruction %zu: load from offset %u is past seccomp_data (%zu bytes)", pc,
                                           f->k, sizeof(struct seccomp_data));
                if (f->k & 3)
                        return tsync_error(err, EINVAL, "instruction %zu: load from offset %u is not 4-byte aligned",
                                           pc, f->k);
        }
        return 0;
}

/* The kernel's check_load_and_stores: walking the program in order, keep a
 * mask of the scratch slots written on every path reaching this point. A
 * jump narrows its targets' masks and leaves the next instruction (which it
 * does not fall into) with all bits set; the targets' masks are applied when
 * the walk gets there. */
static int check_memory(const struct sock_filter *prog, size_t len, struct tsync_err *err)
{
        _cleanup_free_ uint16_t *masks = malloc(len * sizeof(*masks));
        uint16_t memvalid = 0;

        if (!masks)
                return tsync_error(err, ENOMEM, "out of memory");
        memset(masks, 0xff, len * sizeof(*masks));

        for (size_t pc = 0; pc < len; pc++) {
                const struct sock_filter *f = &prog[pc];

                memvalid &= masks[pc];
                switch (f->code) {
                case BPF_ST:
                case BPF_STX:
                        memvalid |= (uint16_t)(1u << f->k);
                        break;
                case BPF_LD | BPF_MEM:
                case BPF_LDX | BPF_MEM:
                        if (!(memvalid & (1u << f->k)))
                                return tsync_error(err, EINVAL,
                                                   "instruction %zu: M[%u] is read before it is written on some path",
                                                   pc, f->k);
                        break;
                case BPF_JMP | BPF_JA:
                        masks[pc + 1 + f->k] &= memvalid;
                        memvalid = 0xffff;
                        break;
                default:
                        if (is_cond_jump(f->code)) {
                                masks[pc + 1 + f->jt] &= memvalid;
                                masks[pc + 1 + f->jf] &= memvalid;
                                memvalid = 0xffff;
                        }
                        break;
                }
        }
        return 0;
}

int tsync_bpf_validate(const struct sock_filter *prog, size_t len, struct tsync_err *err)
{
        int r;

        if (len == 0)
                return tsync_error(err, EINVAL, "program is empty");
        if (len > BPF_MAXINSNS)
                return tsync_error(err, EINVAL, "program has %zu instructions, more than %d", len, BPF_MAXINSNS);
        if (!prog)
                return tsync_error(err, EINVAL, "program is NULL");

        for (size_t pc = 0; pc < len; pc++) {
                r = check_insn(prog, len, pc, err);
                if (r < 0)
                        return r;
        }

        if (BPF_CLASS(prog[len - 1].code) != BPF_RET)
                return tsync_error(err, EINVAL, "instruction %zu: the last instruction is not a return", len - 1);

        return check_memory(prog, len, err);
}

static uint32_t alu(uint16_t op, uint32_t a, uint32_t operand)
{
        switch (op) {
        case BPF_ADD:
                return a + operand;
        case BPF_SUB:
                return a - operand;
        case BPF_MUL:
                return a * operand;
        case BPF_DIV:
                return a / operand;
        case BPF_MOD:
                return a % operand;
        case BPF_AND:
                return a & operand;
        case BPF_OR:
                return a | operand;
        case BPF_XOR:
                return a ^ operand;
        /* Shift counts reach here below 32: constants are checked at load
         * time, and the kernel masks a count taken from X to 5 bits (the
         * interpreter's "& 31", and the x86 shift instructions the JIT emits). */
        case BPF_LSH:
                return a << (operand & 31);
        case BPF_RSH:
                return a >> (operand & 31);
        case BPF_NEG:
        default:
                return 0u - a;
        }
}

static bool jump_taken(uint16_t op, uint32_t a, uint32_t operand)
{
        switch (op) {
        case BPF_JEQ:
                return a == operand;
        case BPF_JGT:
                return a > operand;
        case BPF_JGE:
                return a >= operand;
        case BPF_JSET:
        default:
                return (a & operand) != 0;
        }
}

int tsync_bpf_simulate_valid(const struct sock_filter *prog, size_t len, const struct tsync_bpf_input *in,
                             struct tsync_bpf_result *ret, struct tsync_err *err)
{
        struct seccomp_data sd;
        uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };
        size_t pc = 0, executed = 0;
        bool read_args = false, done = false;
        uint32_t result = 0;

        if (!in || !ret)
                return tsync_error(err, EINVAL, "no input or no result given");

        /* The kernel reads 32-bit words straight out of its seccomp_data in
         * its own byte order; building the same struct reproduces that. A
         * big-endian architecture's (a program compiled for s390x) is built
         * big-endian, and each word read back from it: its args[N].lo is
         * the word after .hi. */
        bool swap = tsync_audit_big_endian(in->arch) != tsync_audit_big_endian(TSYNC_NATIVE_AUDIT_ARCH);
        memset(&sd, 0, sizeof(sd));
        sd.nr = swap ? (int)__builtin_bswap32((uint32_t)in->nr) : in->nr;
        sd.arch = swap ? __builtin_bswap32(in->arch) : in->arch;
        sd.instruction_pointer = swap ? __builtin_bswap64(in->instruction_pointer) : in->instruction_pointer;
        for (size_t i = 0; i < 6; i++)
                sd.args[i] = swap ? __builtin_bswap64(in->args[i]) : in->args[i];

        /* Validation guarantees forward jumps within the program and a final
         * return, so pc stays in range and the loop ends. */
        while (!done) {
                const struct sock_filter *f = &prog[pc];

                executed++;
                switch (BPF_CLASS(f->code)) {
                case BPF_LD:
                        switch (BPF_MODE(f->code)) {
                        case BPF_ABS:
                                memcpy(&a, (const unsigned char *)&sd + f->k, sizeof(a));
                                if (swap)
                                        a = __builtin_bswap32(a);
                                if (f->k >= offsetof(struct seccomp_data, instruction_pointer))
                                        read_args = true;
                                break;
                        case BPF_LEN:
                                a = sizeof(struct seccomp_data);
                                break;
                        case BPF_MEM:
                                a = mem[f->k];
                                break;
                        case BPF_IMM:
                        default:
                                a = f->k;
                                break;
                        }
                        pc++;
                        break;
                case BPF_LDX:
                        if (BPF_MODE(f->code) == BPF_LEN)
                                x = sizeof(struct seccomp_data);
                        else if (BPF_MODE(f->code) == BPF_MEM)
                                x = mem[f->k];
                        else
                                x = f->k;
                        pc++;
                        break;
                case BPF_ST:
                        mem[f->k] = a;
                        pc++;
                        break;
                case BPF_STX:
                        mem[f->k] = x;
                        pc++;
                        break;
                case BPF_ALU: {
                        uint32_t operand = BPF_SRC(f->code) == BPF_X ? x : f->k;
                        uint16_t op = BPF_OP(f->code);
                        /* Classic BPF ends the program with 0 (KILL_THREAD
                         * for seccomp) on a division by a zero X. */
                        if ((op == BPF_DIV || op == BPF_MOD) && operand == 0) {
                                result = 0;
                                done = true;
                        } else {
                                a = alu(op, a, operand);
                                pc++;
                        }
                        break;
                }
                case BPF_JMP:
                        if (BPF_OP(f->code) == BPF_JA)
                                pc += 1 + (size_t)f->k;
                        else if (jump_taken(BPF_OP(f->code), a, BPF_SRC(f->code) == BPF_X ? x : f->k))
                                pc += 1 + (size_t)f->jt;
                        else
                                pc += 1 + (size_t)f->jf;
                        break;
                case BPF_RET:
                        result = BPF_RVAL(f->code) == BPF_A ? a : f->k;
                        done = true;
                        break;
                case BPF_MISC:
                default:
                        if (BPF_MISCOP(f->code) == BPF_TAX)
                                x = a;
                        else
                                a = x;
                        pc++;
                        break;
                }
                if (!done && pc >= len)
                        return tsync_error(err, EINVAL, "instruction %zu: ran past the end", len - 1);
        }

        ret->ret = result;
        ret->executed = executed;
        ret->read_args = read_args;
        return 0;
}

int tsync_bpf_simulate(const struct sock_filter *prog, size_t len, const struct tsync_bpf_input *in,
                       struct tsync_bpf_result *ret, struct tsync_err *err)
{
        int r = tsync_bpf_validate(prog, len, err);
        if (r < 0)
                return r;
        return tsync_bpf_simulate_valid(prog, len, in, ret, err);
}

void tsync_bpf_ret_name(uint32_t ret, char *buf, size_t size)
{
        uint32_t data = ret & SECCOMP_RET_DATA;
        const char *name;

        switch (ret & SECCOMP_RET_ACTION_FULL) {
        case SECCOMP_RET_KILL_PROCESS:
                name = "KILL_PROCESS";
                break;
        case SECCOMP_RET_KILL_THREAD:
                name = "KILL_THREAD";
                break;
        case SECCOMP_RET_TRAP:
                name = "TRAP";
                break;
        case SECCOMP_RET_ERRNO:
                name = "ERRNO";
                break;
        case SECCOMP_RET_USER_NOTIF:
                name = "USER_NOTIF";
                break;
        case SECCOMP_RET_TRACE:
                name = "TRACE";
                break;
        case SECCOMP_RET_LOG:
                name = "LOG";
                break;
        case SECCOMP_RET_ALLOW:
                name = "ALLOW";
                break;
        default:
                /* The kernel treats unknown actions as KILL_PROCESS; the
                 * name shows the raw value so nothing is hidden. */
                (void)snprintf(buf, size, "0x%08x", ret);
                return;
        }

        /* ERRNO and TRACE always carry their data; the others show it only
         * when set, so that a disassembly stays lossless. */
        if ((ret & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO ||
            (ret & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_TRACE || data != 0)
                (void)snprintf(buf, size, "%s(%u)", name, data);
        else
                (void)snprintf(buf, size, "%s", name);
}
