/* The steps each fuzz target runs on one input, and the properties it checks.
 *
 * Shared by the libFuzzer targets (tests/fuzz/fuzz_<name>.c, clang with
 * ASan+UBSan+coverage) and by tests/unit/test_fuzz_regressions.c (gcc, the
 * ordinary build), which runs every saved crash and every seed through the same
 * steps. A broken property is reported on stderr and ends in abort(), which
 * libFuzzer records as a crash with the input that caused it. */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* When the profile targets load their BPF into the real kernel. */
enum fuzz_kernel_mode {
        FUZZ_KERNEL_OFF,     /* seccomp(2) is not usable here (valgrind does not emulate it) */
        FUZZ_KERNEL_SAMPLED, /* each new program length, then every FUZZ_KERNEL_EVERY-th program */
        FUZZ_KERNEL_ALWAYS,  /* every program (regression runs) */
};
#define FUZZ_KERNEL_EVERY 64u

extern enum fuzz_kernel_mode fuzz_kernel_mode;

/* What the steps saw, printed by the fuzz targets when they finish. */
struct fuzz_stats {
        unsigned long inputs;
        unsigned long parsed;            /* JSON accepted */
        unsigned long profiles;          /* profile accepted */
        unsigned long programs;          /* compiled, validated */
        unsigned long kernel_loads;      /* loaded in a child with NO_NEW_PRIVS */
        unsigned long flag_refusals;     /* the kernel refused the program's own flags (flags 0 loaded) */
        uint32_t refused_flags;          /* the flag sets refused, or'ed */
        unsigned long rewrites;          /* config rewrites checked (each of the two modes counts) */
        unsigned long decoded;           /* filter files accepted by tsync_filter_decode */
        unsigned long decoded_invalid;   /* accepted by decode, then rejected by tsync_bpf_validate */
        unsigned long validate_stricter; /* validate rejected, the kernel loaded it anyway */
};
extern struct fuzz_stats fuzz_stats;

void fuzz_print_stats(const char *target);

struct tsync_err;
/* A broken property: "fuzz: property broken: ..." on stderr, then abort(). */
__attribute__((noreturn, format(printf, 1, 2))) void fuzz_fail(const char *fmt, ...);
/* A failure must say why (STYLE.md, rule 1): when r < 0, err carries -r and a
 * terminated, non-empty message; what names the call. */
void fuzz_check_err(int r, const struct tsync_err *err, const char *what);
struct tsync_json;
/* Counts the input and parses it as JSON (a refusal must say why, then is
 * fine): the tree, counted as parsed, or NULL. */
struct tsync_json *fuzz_parse_input(const uint8_t *data, size_t size);

/* Loads prog in a forked child (NO_NEW_PRIVS, seccomp(SECCOMP_SET_MODE_FILTER, flags)).
 * Returns 0 if the kernel accepted it, the errno it gave otherwise, -1 if the
 * child could not be run or died before answering. */
int fuzz_kernel_load(const struct sock_filter *insns, size_t len, uint32_t flags);

/* One function per target; each takes any bytes. */
void fuzz_json(const uint8_t *data, size_t size);
void fuzz_profile_oci(const uint8_t *data, size_t size);
void fuzz_profile_docker(const uint8_t *data, size_t size);
void fuzz_config(const uint8_t *data, size_t size);
void fuzz_state(const uint8_t *data, size_t size);
void fuzz_filterfile(const uint8_t *data, size_t size);
void fuzz_record(const uint8_t *data, size_t size);    /* fuzz_steps_record.c */
void fuzz_exec_view(const uint8_t *data, size_t size); /* fuzz_steps_exec_view.c */
/* The exec view's fast read agrees with the full parse on data (fuzz_json runs it on its inputs too);
 * with_hooks: and each exec-view hook does the same on both trees. */
void fuzz_exec_view_check(const uint8_t *data, size_t size, bool with_hooks);

struct fuzz_target {
        const char *name; /* also the directory under tests/fuzz/corpus/ and tests/fuzz/crashes/ */
        void (*run)(const uint8_t *data, size_t size);
};
extern const struct fuzz_target fuzz_targets[];
extern const size_t fuzz_n_targets;

/* libFuzzer's entry points, defined by each target. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Defines the libFuzzer entry points of the target whose step is fn. */
#define FUZZ_DEFINE_TARGET(fn)                                                                                         \
        static void print_stats(void)                                                                                  \
        {                                                                                                              \
                fuzz_print_stats(#fn);                                                                                 \
        }                                                                                                              \
        int LLVMFuzzerInitialize(int *argc, char ***argv)                                                              \
        {                                                                                                              \
                (void)argc;                                                                                            \
                (void)argv;                                                                                            \
                (void)atexit(print_stats);                                                                             \
                return 0;                                                                                              \
        }                                                                                                              \
        int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                                                   \
        {                                                                                                              \
                fn(data, size);                                                                                        \
                return 0;                                                                                              \
        }
