/* Classic-BPF seccomp programs: simulation and disassembly. */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "shared/error.h"

/* The input a seccomp filter sees (same layout as the kernel's struct seccomp_data). */
struct tsync_bpf_input {
        int32_t nr;
        uint32_t arch; /* AUDIT_ARCH_* */
        uint64_t instruction_pointer;
        uint64_t args[6];
};

struct tsync_bpf_result {
        uint32_t ret;    /* the SECCOMP_RET_* value returned */
        size_t executed; /* instructions executed, including the return */
        bool read_args;  /* the path loaded args[] or instruction_pointer */
};

/* Runs prog on in as the kernel would. Fails (-EINVAL, message names the
 * instruction index) on anything the kernel's seccomp checker would reject:
 * unknown opcodes, out-of-range or misaligned loads from seccomp_data,
 * jumps past the end, falling off the end, division by zero. */
int tsync_bpf_simulate(const struct sock_filter *prog, size_t len, const struct tsync_bpf_input *in,
                       struct tsync_bpf_result *ret, struct tsync_err *err);

/* The same for a prog tsync_bpf_validate accepted: a caller that runs one
 * program on many inputs validates it once (the validation walks the whole
 * program; a run, one path through it). */
int tsync_bpf_simulate_valid(const struct sock_filter *prog, size_t len, const struct tsync_bpf_input *in,
                             struct tsync_bpf_result *ret, struct tsync_err *err);

/* Checks prog statically the way the kernel's seccomp_check_filter and
 * bpf_check_classic do: length 1..BPF_MAXINSNS, known opcodes, loads within
 * seccomp_data and 4-byte aligned, jumps in range, ends with a return. */
int tsync_bpf_validate(const struct sock_filter *prog, size_t len, struct tsync_err *err);

/* Writes one line per instruction, "%04zu: <mnemonic> <operands>", with
 * seccomp_data offsets named (nr, arch, args[2].lo) and return values decoded
 * (ERRNO(1), ALLOW, KILL_PROCESS, TRACE(5), ...). */
int tsync_bpf_disassemble(const struct sock_filter *prog, size_t len, FILE *out);

/* "ALLOW", "ERRNO(38)", "KILL_THREAD", "TRACE(1)", "USER_NOTIF", "LOG", "TRAP", "KILL_PROCESS". */
void tsync_bpf_ret_name(uint32_t ret, char *buf, size_t size);
