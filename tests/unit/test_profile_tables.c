/* The name tables of the profile (architectures, seccomp filter flags) and the
 * questions about notification: which spellings are taken, what is printed,
 * and that the flag bits are the kernel's. */
#include <ctype.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/arches.h"
#include "shared/cleanup.h"
#include "shared/filterfile.h"
#include "shared/seccomp_flags.h"
#include "tap.h"
#include "translate/profile.h"

static void test_profile_tables_arches(void)
{
        static const struct {
                const char *name;
                uint32_t token; /* 0: refused */
        } cases[] = {
                { "SCMP_ARCH_X86_64", SCMP_ARCH_X86_64 },
                { "x86_64", SCMP_ARCH_X86_64 },
                { "SCMP_ARCH_X86", SCMP_ARCH_X86 },
                { "x86", SCMP_ARCH_X86 },
                { "SCMP_ARCH_X32", SCMP_ARCH_X32 },
                { "SCMP_ARCH_AARCH64", SCMP_ARCH_AARCH64 },
                { "aarch64", SCMP_ARCH_AARCH64 },
                { "SCMP_ARCH_MIPSEL64N32", SCMP_ARCH_MIPSEL64N32 },
                { "SCMP_ARCH_RISCV64", SCMP_ARCH_RISCV64 },
                { "ppc64le", SCMP_ARCH_PPC64LE },
                { "X86_64", 0 },           /* the short form is lower case */
                { "SCMP_ARCH_x86_64", 0 }, /* the long form upper case */
                { "scmp_arch_x86_64", 0 },
                { "SCMP_ARCH_Aarch64", 0 },
                { "amd64", 0 }, /* Go's names only in Docker includes/excludes */
                { "SCMP_ARCH_AMD64", 0 },
                { "SCMP_ARCH_NATIVE", 0 },
                { "SCMP_ARCH_", 0 },
                { "", 0 },
                { "x86_64 ", 0 },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                uint32_t token = 7;
                int r = tsync_arch_parse(cases[i].name, &token);
                if (cases[i].token == 0)
                        tap_ok(r == -EINVAL && token == 7, "test_profile_tables_arch_refuses_'%s'", cases[i].name);
                else
                        tap_ok(r == 0 && token == cases[i].token, "test_profile_tables_arch_takes_'%s'", cases[i].name);
        }

        /* Every long name parses to libseccomp's token for its short form, which
         * parses alike, and the token prints as the long name again. */
        static const char *const spec[] = {
                "SCMP_ARCH_X86",     "SCMP_ARCH_X86_64",   "SCMP_ARCH_X32",         "SCMP_ARCH_ARM",
                "SCMP_ARCH_AARCH64", "SCMP_ARCH_MIPS",     "SCMP_ARCH_MIPS64",      "SCMP_ARCH_MIPS64N32",
                "SCMP_ARCH_MIPSEL",  "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC",
                "SCMP_ARCH_PPC64",   "SCMP_ARCH_PPC64LE",  "SCMP_ARCH_S390",        "SCMP_ARCH_S390X",
                "SCMP_ARCH_PARISC",  "SCMP_ARCH_PARISC64", "SCMP_ARCH_RISCV64",
        };
        size_t round_trips = 0;
        for (size_t i = 0; i < ARRAY_SIZE(spec); i++) {
                char lower[32];
                uint32_t token = 0, short_token = 1;
                size_t k = 0;
                for (const char *c = spec[i] + 10; *c && k + 1 < sizeof(lower); c++)
                        lower[k++] = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
                lower[k] = '\0';
                if (tsync_arch_parse(spec[i], &token) == 0 && tsync_arch_parse(lower, &short_token) == 0 &&
                    token == short_token && token == seccomp_arch_resolve_name(lower) &&
                    strcmp(tsync_arch_name(token), spec[i]) == 0)
                        round_trips++;
                else
                        tap_diag("%s (%s) does not round-trip", spec[i], lower);
        }
        tap_ok(round_trips == ARRAY_SIZE(spec), "test_profile_tables_arch_names_round_trip: %zu of %zu", round_trips,
               ARRAY_SIZE(spec));
        tap_ok(strcmp(tsync_arch_name(0), "SCMP_ARCH_UNKNOWN") == 0 &&
                       strcmp(tsync_arch_name(12345), "SCMP_ARCH_UNKNOWN") == 0,
               "test_profile_tables_arch_unknown_token_prints_unknown");
}

static void test_profile_tables_flags(void)
{
        /* The values are kernel ABI: compare with the literal bits, not our own macros. */
        tap_ok(SECCOMP_FILTER_FLAG_TSYNC == 1 && SECCOMP_FILTER_FLAG_LOG == 2 && SECCOMP_FILTER_FLAG_SPEC_ALLOW == 4 &&
                       SECCOMP_FILTER_FLAG_NEW_LISTENER == 8 && SECCOMP_FILTER_FLAG_TSYNC_ESRCH == 16 &&
                       SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV == 32,
               "test_profile_tables_flag_bits_are_the_kernels");
        tap_ok(TSYNC_FILTER_ALLOWED_FLAGS == (2u | 4u | 32u) &&
                       TSYNC_SECCOMP_PROFILE_FLAGS == TSYNC_FILTER_ALLOWED_FLAGS,
               "test_profile_tables_filter_file_carries_what_a_profile_may_ask: %#x", TSYNC_FILTER_ALLOWED_FLAGS);

        static const struct {
                const char *name;
                int r;
                uint32_t bit;
        } cases[] = {
                { "SECCOMP_FILTER_FLAG_TSYNC", 0, 0 }, /* always ours: naming it changes nothing */
                { "SECCOMP_FILTER_FLAG_LOG", 0, 2 },
                { "SECCOMP_FILTER_FLAG_SPEC_ALLOW", 0, 4 },
                { "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", 0, 32 },
                { "SECCOMP_FILTER_FLAG_NEW_LISTENER", -EINVAL, 0 }, /* ours to choose, not the profile's */
                { "SECCOMP_FILTER_FLAG_TSYNC_ESRCH", -EINVAL, 0 },
                { "SECCOMP_FILTER_FLAG_", -EINVAL, 0 },
                { "LOG", -EINVAL, 0 },
                { "seccomp_filter_flag_log", -EINVAL, 0 },
                { "SECCOMP_FILTER_FLAG_log", -EINVAL, 0 },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                uint32_t bit = 99;
                int r = tsync_flag_parse(cases[i].name, &bit);
                tap_ok(r == cases[i].r && bit == (r == 0 ? cases[i].bit : 99u), "test_profile_tables_flag_'%s': %d %u",
                       cases[i].name, r, bit);
        }

        size_t n;
        const struct tsync_seccomp_flag *all = tsync_seccomp_flags(&n);
        bool round = n == 6;
        for (size_t i = 0; round && i < n; i++) {
                char full[64];
                uint32_t bit;
                (void)snprintf(full, sizeof(full), "SECCOMP_FILTER_FLAG_%s", all[i].name);
                round = all[i].bit == 1u << i && tsync_seccomp_flag_parse(full, &bit) == 0 && bit == all[i].bit &&
                        strcmp(tsync_seccomp_flag_name(bit), all[i].name) == 0;
        }
        tap_ok(round, "test_profile_tables_flag_table_in_bit_order_and_names_round_trip");
        tap_ok(tsync_seccomp_flag_name(1u << 6) == NULL && tsync_seccomp_flag_name(0) == NULL &&
                       tsync_seccomp_flag_name(3) == NULL,
               "test_profile_tables_flag_name_of_unknown_bits_is_null");
}

static void test_profile_tables_notify(void)
{
        struct tsync_rule rules[2] = {
                { .action = { TSYNC_ACT_ALLOW, 0 } },
                { .action = { TSYNC_ACT_ERRNO, 1 } },
        };
        struct tsync_profile p = { .default_action = { TSYNC_ACT_ERRNO, 1 }, .rules = rules, .n_rules = 2 };
        struct tsync_err err = { 0 };

        tap_ok(!tsync_profile_has_notify_action(&p) && !tsync_profile_uses_notify(&p) &&
                       tsync_profile_check_notify(&p, "layer 'x'", &err) == 0,
               "test_profile_tables_notify_none");
        p.listener_metadata = (char *)"meta";
        tap_ok(!tsync_profile_uses_notify(&p), "test_profile_tables_notify_metadata_alone_asks_for_nothing");

        rules[1].action.kind = TSYNC_ACT_NOTIFY;
        tap_ok(tsync_profile_has_notify_action(&p) && tsync_profile_uses_notify(&p),
               "test_profile_tables_notify_in_the_last_rule");
        p.n_rules = 1;
        tap_ok(!tsync_profile_has_notify_action(&p), "test_profile_tables_notify_rules_past_n_rules_do_not_count");
        p.default_action.kind = TSYNC_ACT_NOTIFY;
        tap_ok(tsync_profile_has_notify_action(&p), "test_profile_tables_notify_as_default");

        p.default_action.kind = TSYNC_ACT_ERRNO;
        p.listener_path = (char *)"/run/l.sock";
        tap_ok(!tsync_profile_has_notify_action(&p) && tsync_profile_uses_notify(&p),
               "test_profile_tables_notify_listener_path_alone_uses_notify");
}

/* The rules a notify profile keeps (runc's words where runc has them), each
 * and a clean profile passing. */
static void test_profile_tables_notify_rules(void)
{
        static char *write_names[] = { (char *)"mkdir", (char *)"write" };
        static char *mkdir_names[] = { (char *)"mkdir" };
        static char long_meta[TSYNC_FILTER_MAX_TRAILER];
        memset(long_meta, 'm', sizeof(long_meta) - 1);
        static const struct {
                const char *name;
                enum tsync_act def;
                char **names;
                enum tsync_act act;
                const char *path, *meta;
                const char *want; /* NULL: passes */
        } cases[] = {
                { "clean", TSYNC_ACT_ALLOW, mkdir_names, TSYNC_ACT_NOTIFY, "/run/a.sock", "m", NULL },
                { "path_without_notify_is_no_agent", TSYNC_ACT_ALLOW, mkdir_names, TSYNC_ACT_ERRNO, "run/a.sock", NULL,
                  NULL },
                { "notify_default", TSYNC_ACT_NOTIFY, mkdir_names, TSYNC_ACT_ALLOW, "/run/a.sock", NULL,
                  "p: SCMP_ACT_NOTIFY cannot be used as default action" },
                { "notify_on_write", TSYNC_ACT_ALLOW, write_names, TSYNC_ACT_NOTIFY, "/run/a.sock", NULL,
                  "p: syscalls[0]: SCMP_ACT_NOTIFY cannot be used for the write syscall" },
                { "notify_without_path", TSYNC_ACT_ALLOW, mkdir_names, TSYNC_ACT_NOTIFY, NULL, NULL,
                  "p: SCMP_ACT_NOTIFY needs a listenerPath: the agent that answers the notifications" },
                { "notify_with_empty_path", TSYNC_ACT_ALLOW, mkdir_names, TSYNC_ACT_NOTIFY, "", NULL,
                  "p: SCMP_ACT_NOTIFY needs a listenerPath: the agent that answers the notifications" },
                { "relative_path", TSYNC_ACT_ALLOW, mkdir_names, TSYNC_ACT_NOTIFY, "run/a.sock", NULL,
                  "p: listenerPath 'run/a.sock' is not an absolute path" },
                { "metadata_too_long", TSYNC_ACT_ALLOW, mkdir_names, TSYNC_ACT_NOTIFY, "/run/a.sock", long_meta,
                  "p: listenerMetadata is 4095 bytes, more than the 4032 this version carries" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct tsync_rule rule = { .names = cases[i].names,
                                           .n_names = cases[i].names == write_names ? 2 : 1,
                                           .action = { cases[i].act, 0 },
                                           .origin = (char *)"syscalls[0]" };
                struct tsync_profile p = { .default_action = { cases[i].def, 0 },
                                           .rules = &rule,
                                           .n_rules = 1,
                                           .listener_path = (char *)cases[i].path,
                                           .listener_metadata = (char *)cases[i].meta };
                struct tsync_err err = { 0 };
                int r = tsync_profile_check_notify(&p, "p", &err);
                tap_ok(cases[i].want ? r == -EINVAL && strcmp(err.msg, cases[i].want) == 0 : r == 0,
                       "test_profile_tables_notify_rule_%s: r=%d %s", cases[i].name, r, r < 0 ? err.msg : "");
        }
}

/* 1 when a filter comparing seccomp_data.arch with audit matches this
 * process's own calls (the kernel's word), 0 when not, -1 on failure. */
static int kernel_sees_arch(uint32_t audit)
{
        struct sock_filter insns[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 3),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, audit, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 42),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = { .len = sizeof(insns) / sizeof(insns[0]), .filter = insns };
        pid_t pid = fork();
        if (pid < 0)
                return -1;
        if (pid == 0) {
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
                    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
                        _exit(3);
                /* getppid under the filter: 42 when the arch matched. */
                _exit(syscall(SYS_getppid) < 0 && errno == 42 ? 1 : 0);
        }
        int status;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) > 1)
                return -1;
        return WEXITSTATUS(status);
}

/* Every row of shared/arches.h against libseccomp and the kernel: the short
 * name resolves to the row's token (where this libseccomp knows it), the long
 * name is "SCMP_ARCH_" + the short one upper-cased, the audit value is the
 * token's but for x32 (x86_64's), the width and the companion are the
 * AUDIT_ARCH_* bits' own, and the native row is the one the init's calls
 * carry. Tokens and audit-named rows are unique. */
static void test_profile_tables_arch_rows_are_libseccomps_and_the_kernels(void)
{
        size_t n;
        const struct tsync_arch_def *rows = tsync_arches(&n);

        tap_ok(TSYNC_ARCH_X32_TOKEN == SCMP_ARCH_X32, "x32's token is libseccomp's");
        for (size_t i = 0; i < n; i++) {
                const struct tsync_arch_def *a = &rows[i];
                const char *label = a->name ? a->name : a->kernel_name;
                uint32_t resolved = a->name ? seccomp_arch_resolve_name(a->name) : 0;
                char upper[64] = "SCMP_ARCH_";
                for (size_t c = 0; a->name && a->name[c] && c < 40; c++)
                        upper[10 + c] = (char)toupper((unsigned char)a->name[c]);
                bool x32 = a->token == SCMP_ARCH_X32;
                tap_ok(!a->name || resolved == 0 || resolved == a->token,
                       "%s: libseccomp resolves it to %#x, the row says %#x", label, resolved, a->token);
                tap_ok(!a->name || (a->spec_name && strcmp(a->spec_name, upper) == 0), "%s: long form %s", label,
                       a->spec_name ? a->spec_name : "(none)");
                tap_ok(a->audit == (x32 ? AUDIT_ARCH_X86_64 : a->token), "%s: seccomp_data.arch %#x", label, a->audit);
                tap_ok(a->bits == ((a->audit & __AUDIT_ARCH_64BIT) ? 64 : 32), "%s: %u-bit, as AUDIT_ARCH_64BIT says",
                       label, a->bits);
                /* The ABIs a kernel runs beside its own (compat syscalls, x32). */
                static const struct {
                        uint32_t abi, native;
                } companions[] = { { SCMP_ARCH_X86, SCMP_ARCH_X86_64 },
                                   { SCMP_ARCH_X32, SCMP_ARCH_X86_64 },
                                   { SCMP_ARCH_ARM, SCMP_ARCH_AARCH64 },
                                   { SCMP_ARCH_PPC, SCMP_ARCH_PPC64 },
                                   { SCMP_ARCH_S390, SCMP_ARCH_S390X } };
                uint32_t want = 0;
                for (size_t c = 0; c < sizeof(companions) / sizeof(companions[0]); c++)
                        if (companions[c].abi == a->token)
                                want = companions[c].native;
                tap_ok(a->companion_of == want, "%s: companion of %#x", label, a->companion_of);
                tap_ok(tsync_arch_by_token(a->token) == a && (x32 || tsync_arch_by_audit(a->audit) == a),
                       "%s: its token and audit value find this row", label);
        }
        tap_ok(tsync_arch_by_audit(AUDIT_ARCH_X86_64) &&
                       tsync_arch_by_audit(AUDIT_ARCH_X86_64)->token == SCMP_ARCH_X86_64,
               "AUDIT_ARCH_X86_64 is x86_64's, not x32's");
        const struct tsync_arch_def *nat = tsync_arch_by_token(seccomp_arch_native());
        tap_ok(nat && nat->name && strcmp(tsync_arch_name(seccomp_arch_native()), nat->spec_name) == 0,
               "the native architecture (%s) has a row", nat && nat->name ? nat->name : "?");
        tap_ok(nat && kernel_sees_arch(nat->audit) == 1, "the kernel's seccomp_data.arch of this process is %s's %#x",
               nat ? nat->name : "?", nat ? nat->audit : 0);
        tap_ok(nat && kernel_sees_arch(nat->audit ^ 1) == 0, "and not another value");
}

int main(void)
{
        test_profile_tables_arches();
        test_profile_tables_arch_rows_are_libseccomps_and_the_kernels();
        test_profile_tables_flags();
        test_profile_tables_notify();
        test_profile_tables_notify_rules();
        return tap_done();
}
