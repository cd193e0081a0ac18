/* The architectures, one record each: every name we read or print for one,
 * its values for the kernel and for libseccomp, and what the other parts ask
 * of it (its width, the native ABI a process may switch it from).
 *
 * libseccomp's SCMP_ARCH_* tokens are the kernel's AUDIT_ARCH_* values but
 * for x32, which the kernel reports as x86_64 with the x32 bit in the number.
 * tests/unit/test_profile_tables.c holds every row against libseccomp.
 *
 * linux/audit.h only, no heap: the static init may include it. */
#pragma once

#include <linux/audit.h>
#include <linux/elf-em.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The AUDIT_ARCH_* of the calls this program makes (the init is built for the host; test_profile_tables
 * asks the kernel). */
#if defined(__x86_64__)
#define TSYNC_NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TSYNC_NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define TSYNC_NATIVE_AUDIT_ARCH AUDIT_ARCH_RISCV64
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TSYNC_NATIVE_AUDIT_ARCH AUDIT_ARCH_PPC64LE
#elif defined(__s390x__)
#define TSYNC_NATIVE_AUDIT_ARCH AUDIT_ARCH_S390X
#endif

/* An x32 call's number has this bit; its seccomp_data.arch is x86_64's. */
#define TSYNC_X32_SYSCALL_BIT 0x40000000u

/* libseccomp's SCMP_ARCH_X32, which no AUDIT_ARCH_* names. */
#define TSYNC_ARCH_X32_TOKEN ((uint32_t)(EM_X86_64 | __AUDIT_ARCH_LE))

struct tsync_arch_def {
        uint32_t token;          /* libseccomp's SCMP_ARCH_* */
        uint32_t audit;          /* seccomp_data.arch of its calls (x32: x86_64's) */
        const char *name;        /* libseccomp's (seccomp_arch_resolve_name), a profile's short form; NULL: no
                                    profile may name it */
        const char *spec_name;   /* the runtime-spec's, "SCMP_ARCH_" + name upper-cased: the long form, printed */
        const char *go_name;     /* libseccomp-golang's ScmpArch.String(): Docker-format includes/excludes.arches */
        const char *kernel_name; /* the kernel's (audit's, uname -m): the disassembler's comment */
        uint32_t companion_of;   /* the native token whose kernel also runs this ABI (int 0x80 on x86_64), or 0 */
        unsigned bits;           /* 32 or 64: the width of its arguments */
};

/* Every architecture we know; n_ret gets the count. */
static inline const struct tsync_arch_def *tsync_arches(size_t *n_ret)
{
        static const struct tsync_arch_def arches[] = {
                { AUDIT_ARCH_I386, AUDIT_ARCH_I386, "x86", "SCMP_ARCH_X86", "x86", "i386", AUDIT_ARCH_X86_64, 32 },
                { AUDIT_ARCH_X86_64, AUDIT_ARCH_X86_64, "x86_64", "SCMP_ARCH_X86_64", "amd64", "x86_64", 0, 64 },
                { TSYNC_ARCH_X32_TOKEN, AUDIT_ARCH_X86_64, "x32", "SCMP_ARCH_X32", "x32", "x32", AUDIT_ARCH_X86_64,
                  64 },
                { AUDIT_ARCH_ARM, AUDIT_ARCH_ARM, "arm", "SCMP_ARCH_ARM", "arm", "arm", AUDIT_ARCH_AARCH64, 32 },
                { AUDIT_ARCH_AARCH64, AUDIT_ARCH_AARCH64, "aarch64", "SCMP_ARCH_AARCH64", "arm64", "aarch64", 0, 64 },
                { AUDIT_ARCH_MIPS, AUDIT_ARCH_MIPS, "mips", "SCMP_ARCH_MIPS", "mips", "mips", 0, 32 },
                { AUDIT_ARCH_MIPS64, AUDIT_ARCH_MIPS64, "mips64", "SCMP_ARCH_MIPS64", "mips64", "mips64", 0, 64 },
                { AUDIT_ARCH_MIPS64N32, AUDIT_ARCH_MIPS64N32, "mips64n32", "SCMP_ARCH_MIPS64N32", "mips64n32",
                  "mips64n32", 0, 64 },
                { AUDIT_ARCH_MIPSEL, AUDIT_ARCH_MIPSEL, "mipsel", "SCMP_ARCH_MIPSEL", "mipsel", "mipsel", 0, 32 },
                { AUDIT_ARCH_MIPSEL64, AUDIT_ARCH_MIPSEL64, "mipsel64", "SCMP_ARCH_MIPSEL64", "mipsel64", "mipsel64", 0,
                  64 },
                { AUDIT_ARCH_MIPSEL64N32, AUDIT_ARCH_MIPSEL64N32, "mipsel64n32", "SCMP_ARCH_MIPSEL64N32", "mipsel64n32",
                  "mipsel64n32", 0, 64 },
                { AUDIT_ARCH_PPC, AUDIT_ARCH_PPC, "ppc", "SCMP_ARCH_PPC", "ppc", "ppc", AUDIT_ARCH_PPC64, 32 },
                { AUDIT_ARCH_PPC64, AUDIT_ARCH_PPC64, "ppc64", "SCMP_ARCH_PPC64", "ppc64", "ppc64", 0, 64 },
                { AUDIT_ARCH_PPC64LE, AUDIT_ARCH_PPC64LE, "ppc64le", "SCMP_ARCH_PPC64LE", "ppc64le", "ppc64le", 0, 64 },
                { AUDIT_ARCH_S390, AUDIT_ARCH_S390, "s390", "SCMP_ARCH_S390", "s390", "s390", AUDIT_ARCH_S390X, 32 },
                { AUDIT_ARCH_S390X, AUDIT_ARCH_S390X, "s390x", "SCMP_ARCH_S390X", "s390x", "s390x", 0, 64 },
                { AUDIT_ARCH_PARISC, AUDIT_ARCH_PARISC, "parisc", "SCMP_ARCH_PARISC", "parisc", "parisc", 0, 32 },
                { AUDIT_ARCH_PARISC64, AUDIT_ARCH_PARISC64, "parisc64", "SCMP_ARCH_PARISC64", "parisc64", "parisc64", 0,
                  64 },
                { AUDIT_ARCH_RISCV64, AUDIT_ARCH_RISCV64, "riscv64", "SCMP_ARCH_RISCV64", "riscv64", "riscv64", 0, 64 },
#ifdef AUDIT_ARCH_LOONGARCH64
                /* Only disassembled: the libseccomp we build with does not know it. */
                { AUDIT_ARCH_LOONGARCH64, AUDIT_ARCH_LOONGARCH64, NULL, NULL, NULL, "loongarch64", 0, 64 },
#endif
        };
        *n_ret = sizeof(arches) / sizeof(arches[0]);
        return arches;
}

/* Whether a program for the architecture of this AUDIT_ARCH_* value (a
 * token's audit) is big-endian: its instructions, and the seccomp_data its
 * loads read (s390x, ppc64, mips, ...). */
static inline int tsync_audit_big_endian(uint32_t audit)
{
        return !(audit & __AUDIT_ARCH_LE);
}

/* The row of a libseccomp token, or NULL. */
static inline const struct tsync_arch_def *tsync_arch_by_token(uint32_t token)
{
        size_t n;
        const struct tsync_arch_def *a = tsync_arches(&n);
        for (size_t i = 0; i < n; i++)
                if (a[i].token == token)
                        return &a[i];
        return NULL;
}

/* The row of the calls whose seccomp_data.arch is audit (x86_64's for
 * AUDIT_ARCH_X86_64: only the number tells x32 apart), or NULL. */
static inline const struct tsync_arch_def *tsync_arch_by_audit(uint32_t audit)
{
        return audit == TSYNC_ARCH_X32_TOKEN ? NULL : tsync_arch_by_token(audit);
}
