/* Classic-BPF seccomp programs as text, one instruction a line.
 *
 * The format (stable: tests and users compare it as text):
 *
 *   "%04zu: " index, then the mnemonic padded to three columns and a space,
 *   then the operands:
 *     ld  [nr]  ld  [arch]  ld  [ip.lo]  ld  [args[1].hi]   seccomp_data words
 *     ld  [<offset>]        any other LD W ABS offset (the kernel rejects them)
 *     ldh [<k>]  ldb [<k>]  ld  [x+<k>]  ldh [x+<k>]  ldx 4*([<k>]&0xf)
 *                           packet loads that seccomp rejects, shown anyway
 *     ld  #len  ldx #len    LD/LDX W LEN (the kernel makes them #64)
 *     ld  #0x<k>  ldx #0x<k>  ld  M[<k>]  ldx M[<k>]  st  M[<k>]  stx M[<k>]
 *     add #0x<k>  add x  (sub mul div mod and or xor lsh rsh the same)  neg
 *     tax  txa
 *     ja  <target>
 *     jeq #0x<k> jt <target> jf <target>   (jgt jge jset; "x" for BPF_X)
 *     ret <action>  as tsync_bpf_ret_name() spells it;  ret a
 *     unknown code 0x<code> jt <jt> jf <jf> k 0x<k>
 *
 *   Jump targets are absolute instruction indices (pc + 1 + offset).
 *   A conditional jump comparing A with a known AUDIT_ARCH_* constant while A
 *   holds the word loaded from [arch] on every path reaching it gets the
 *   architecture's name as a trailing comment: " ; x86_64". */
#include "shared/bpf.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdlib.h>

#include "shared/arches.h"
#include "shared/cleanup.h"

static const char *arch_name(uint32_t arch)
{
        const struct tsync_arch_def *row = tsync_arch_by_audit(arch);
        return row ? row->kernel_name : NULL;
}

/* What A holds on entry to an instruction, merged over every path. */
enum a_state {
        A_UNREACHED = 0,
        A_ARCH,
        A_OTHER,
};

static void merge(enum a_state *states, size_t len, size_t target, enum a_state s)
{
        if (target >= len)
                return;
        if (states[target] == A_UNREACHED)
                states[target] = s;
        else if (states[target] != s)
                states[target] = A_OTHER;
}

static bool writes_a(uint16_t code)
{
        switch (BPF_CLASS(code)) {
        case BPF_LD:
        case BPF_ALU:
                return true;
        case BPF_MISC:
                return BPF_MISCOP(code) == BPF_TXA;
        default:
                return false;
        }
}

/* Classic BPF only jumps forward, so one pass in order sees every
 * predecessor of an instruction before the instruction itself. */
static void track_arch(const struct sock_filter *prog, size_t len, enum a_state *states)
{
        states[0] = A_OTHER;
        for (size_t pc = 0; pc < len; pc++) {
                const struct sock_filter *f = &prog[pc];
                enum a_state s = states[pc];

                if (s == A_UNREACHED)
                        continue;
                if (f->code == (BPF_LD | BPF_W | BPF_ABS))
                        s = f->k == offsetof(struct seccomp_data, arch) ? A_ARCH : A_OTHER;
                else if (writes_a(f->code))
                        s = A_OTHER;

                if (BPF_CLASS(f->code) == BPF_RET)
                        continue;
                if (BPF_CLASS(f->code) != BPF_JMP) {
                        merge(states, len, pc + 1, s);
                } else if (BPF_OP(f->code) == BPF_JA) {
                        merge(states, len, pc + 1 + (size_t)f->k, s);
                } else {
                        merge(states, len, pc + 1 + f->jt, s);
                        merge(states, len, pc + 1 + f->jf, s);
                }
        }
}

/* Names the 32-bit word of seccomp_data at offset k, as the kernel's load
 * sees it on an architecture of that byte order (big: the high half of a
 * 64-bit field comes first). */
static void data_name(uint32_t k, bool big, char *buf, size_t size)
{
        static const char *const little[2] = { "lo", "hi" }, *const bigs[2] = { "hi", "lo" };
        const char *const *half = big ? bigs : little;
        if (k >= sizeof(struct seccomp_data) || (k & 3))
                (void)snprintf(buf, size, "%u", k);
        else if (k == offsetof(struct seccomp_data, nr))
                (void)snprintf(buf, size, "nr");
        else if (k == offsetof(struct seccomp_data, arch))
                (void)snprintf(buf, size, "arch");
        else if (k < offsetof(struct seccomp_data, args))
                (void)snprintf(buf, size, "ip.%s", half[(k / 4) & 1]);
        else
                (void)snprintf(buf, size, "args[%u].%s", (k - 16) / 8, half[(k / 4) & 1]);
}

static const char *alu_name(uint16_t op)
{
        switch (op) {
        case BPF_ADD:
                return "add";
        case BPF_SUB:
                return "sub";
        case BPF_MUL:
                return "mul";
        case BPF_DIV:
                return "div";
        case BPF_MOD:
                return "mod";
        case BPF_AND:
                return "and";
        case BPF_OR:
                return "or";
        case BPF_XOR:
                return "xor";
        case BPF_LSH:
                return "lsh";
        case BPF_RSH:
                return "rsh";
        case BPF_NEG:
                return "neg";
        default:
                return NULL;
        }
}

static const char *jmp_name(uint16_t op)
{
        switch (op) {
        case BPF_JEQ:
                return "jeq";
        case BPF_JGT:
                return "jgt";
        case BPF_JGE:
                return "jge";
        case BPF_JSET:
                return "jset";
        default:
                return NULL;
        }
}

static const char *size_suffix(uint16_t size)
{
        switch (size) {
        case BPF_W:
                return "";
        case BPF_H:
                return "h";
        case BPF_B:
                return "b";
        default:
                return NULL;
        }
}

/* Formats one instruction (without index and newline) into buf; returns
 * false for an encoding that has no mnemonic. */
static bool format_insn(const struct sock_filter *f, size_t pc, enum a_state a, bool big, char *buf, size_t size)
{
        uint16_t code = f->code;
        char name[32], mnem[8];
        const char *s;

        switch (BPF_CLASS(code)) {
        case BPF_LD:
                s = size_suffix(BPF_SIZE(code));
                if (!s)
                        return false;
                (void)snprintf(mnem, sizeof(mnem), "ld%s", s);
                switch (BPF_MODE(code)) {
                case BPF_ABS:
                        if (BPF_SIZE(code) == BPF_W)
                                data_name(f->k, big, name, sizeof(name));
                        else
                                (void)snprintf(name, sizeof(name), "%u", f->k);
                        (void)snprintf(buf, size, "%-3s [%s]", mnem, name);
                        return true;
                case BPF_IND:
                        (void)snprintf(buf, size, "%-3s [x+%u]", mnem, f->k);
                        return true;
                case BPF_LEN:
                        if (BPF_SIZE(code) != BPF_W)
                                return false;
                        (void)snprintf(buf, size, "ld  #len");
                        return true;
                case BPF_IMM:
                        if (BPF_SIZE(code) != BPF_W)
                                return false;
                        (void)snprintf(buf, size, "ld  #0x%x", f->k);
                        return true;
                case BPF_MEM:
                        if (BPF_SIZE(code) != BPF_W)
                                return false;
                        (void)snprintf(buf, size, "ld  M[%u]", f->k);
                        return true;
                default:
                        return false;
                }
        case BPF_LDX:
                if (code == (BPF_LDX | BPF_B | BPF_MSH)) {
                        (void)snprintf(buf, size, "ldx 4*([%u]&0xf)", f->k);
                        return true;
                }
                if (BPF_SIZE(code) != BPF_W)
                        return false;
                switch (BPF_MODE(code)) {
                case BPF_IMM:
                        (void)snprintf(buf, size, "ldx #0x%x", f->k);
                        return true;
                case BPF_LEN:
                        (void)snprintf(buf, size, "ldx #len");
                        return true;
                case BPF_MEM:
                        (void)snprintf(buf, size, "ldx M[%u]", f->k);
                        return true;
                default:
                        return false;
                }
        case BPF_ST:
        case BPF_STX:
                if (code & ~0x7)
                        return false;
                (void)snprintf(buf, size, "%-3s M[%u]", code == BPF_ST ? "st" : "stx", f->k);
                return true;
        case BPF_ALU:
                s = alu_name(BPF_OP(code));
                if (!s)
                        return false;
                if (BPF_OP(code) == BPF_NEG)
                        (void)snprintf(buf, size, "neg");
                else if (BPF_SRC(code) == BPF_X)
                        (void)snprintf(buf, size, "%-3s x", s);
                else
                        (void)snprintf(buf, size, "%-3s #0x%x", s, f->k);
                return true;
        case BPF_JMP:
                if (BPF_OP(code) == BPF_JA) {
                        (void)snprintf(buf, size, "ja  %zu", pc + 1 + (size_t)f->k);
                        return true;
                }
                s = jmp_name(BPF_OP(code));
                if (!s)
                        return false;
                if (BPF_SRC(code) == BPF_X) {
                        (void)snprintf(buf, size, "%-3s x jt %zu jf %zu", s, pc + 1 + f->jt, pc + 1 + f->jf);
                } else {
                        const char *arch = a == A_ARCH ? arch_name(f->k) : NULL;
                        (void)snprintf(buf, size, "%-3s #0x%x jt %zu jf %zu%s%s", s, f->k, pc + 1 + f->jt,
                                       pc + 1 + f->jf, arch ? " ; " : "", arch ? arch : "");
                }
                return true;
        case BPF_RET:
                if (BPF_RVAL(code) == BPF_A) {
                        (void)snprintf(buf, size, "ret a");
                } else {
                        tsync_bpf_ret_name(f->k, name, sizeof(name));
                        (void)snprintf(buf, size, "ret %s", name);
                }
                return true;
        case BPF_MISC:
        default:
                if (BPF_MISCOP(code) == BPF_TAX)
                        (void)snprintf(buf, size, "tax");
                else
                        (void)snprintf(buf, size, "txa");
                return true;
        }
}

/* True when code is exactly one of the encodings format_insn names (its
 * class-level decoding ignores bits some classes do not use). */
static bool code_is_canonical(uint16_t code)
{
        if (code > 0xff)
                return false;
        switch (BPF_CLASS(code)) {
        case BPF_ALU:
                return BPF_OP(code) == BPF_NEG ? code == (BPF_ALU | BPF_NEG) : true;
        case BPF_JMP:
                return BPF_OP(code) == BPF_JA ? code == (BPF_JMP | BPF_JA) : true;
        case BPF_RET:
                return code == (BPF_RET | BPF_K) || code == (BPF_RET | BPF_A);
        case BPF_MISC:
                return code == (BPF_MISC | BPF_TAX) || code == (BPF_MISC | BPF_TXA);
        default:
                return true;
        }
}

int tsync_bpf_disassemble(const struct sock_filter *prog, size_t len, FILE *out)
{
        _cleanup_free_ enum a_state *states = NULL;

        if (!out || (!prog && len > 0))
                return -EINVAL;
        if (len == 0)
                return 0;

        states = calloc(len, sizeof(*states));
        if (!states)
                return -ENOMEM;
        track_arch(prog, len, states);
        /* A filter holds one byte order (libseccomp refuses to mix them): that
         * of the first architecture it compares against, else this machine's. */
        bool big = tsync_audit_big_endian(TSYNC_NATIVE_AUDIT_ARCH);
        for (size_t pc = 0; pc < len; pc++)
                if (states[pc] == A_ARCH && prog[pc].code == (BPF_JMP | BPF_JEQ | BPF_K) && arch_name(prog[pc].k)) {
                        big = tsync_audit_big_endian(prog[pc].k);
                        break;
                }

        for (size_t pc = 0; pc < len; pc++) {
                const struct sock_filter *f = &prog[pc];
                char line[128];

                if (!code_is_canonical(f->code) || !format_insn(f, pc, states[pc], big, line, sizeof(line)))
                        (void)snprintf(line, sizeof(line), "unknown code 0x%04x jt %u jf %u k 0x%x", f->code, f->jt,
                                       f->jf, f->k);
                if (fprintf(out, "%04zu: %s\n", pc, line) < 0)
                        return -EIO;
        }
        return ferror(out) ? -EIO : 0;
}
