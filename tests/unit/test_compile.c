/* The translator against fixture tables: profile -> (ABI, syscall, args) -> expected action.
 * Every row is judged on the simulated program; rows that expect an errno are also run
 * through the real kernel with the program loaded (int 0x80 for the i386 ABI). */
#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../static/probe.h"
#include "fixture.h"
#include "shared/bpf.h"
#include "tap.h"
#include "translate/compile.h"
#include "translate/source.h"

/* Whether int 0x80 reaches the kernel's i386 entry here (IA-32 emulation can be off). */
static bool int80_probe(void)
{
#if !defined(__x86_64__)
        return false; /* the i386 ABI is x86_64's companion alone */
#else
        pid_t pid = fork();
        if (pid == 0) {
                /* Without IA-32 emulation int 0x80 faults; die of it plainly, not in a sanitizer's handler. */
                (void)signal(SIGSEGV, SIG_DFL);
                /* ASan keeps its own SIGSEGV handler, which spins on the fault: bound it. */
                (void)alarm(2);
                _exit(probe_int80(20 /* i386 getpid */, 0, 0, 0) == getpid() ? 0 : 1);
        }
        int status;
        return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
#endif
}

static bool int80_works(void)
{
        static int known = -1;
        if (known < 0)
                known = int80_probe();
        return known;
}

/* Loads prog in a child and returns the errno the call gets (0 if it succeeded), or -1. */
static int kernel_errno(const struct tsync_program *prog, uint32_t abi, int nr, const uint64_t args[6])
{
        int fds[2];
        if (pipe(fds) < 0)
                return -1;
        pid_t pid = fork();
        if (pid == 0) {
                struct sock_fprog fp = { .len = (unsigned short)prog->len, .filter = prog->insns };
                int result = -1;
                (void)close(fds[0]);
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
                    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) == 0) {
                        long r;
                        if (abi == SCMP_ARCH_X86) {
#if defined(__x86_64__)
                                r = probe_int80(nr, (long)args[0], (long)args[1], (long)args[2]);
                                result = r < 0 && r > -4096 ? (int)-r : 0;
#endif
                        } else {
                                r = syscall(nr, args[0], args[1], args[2], args[3], args[4], args[5]);
                                result = r < 0 ? errno : 0;
                        }
                }
                /* Raw syscalls from here: a sanitizer's write and _exit wrappers make
                 * calls of their own that the filter may deny. */
                (void)syscall(SYS_write, fds[1], &result, sizeof(result));
                /* The filter may deny exit_group too: stay here until the parent kills us. */
                for (;;)
                        (void)syscall(SYS_exit_group, 0);
        }
        (void)close(fds[1]);
        int result = -1;
        if (read(fds[0], &result, sizeof(result)) != sizeof(result))
                result = -1;
        (void)close(fds[0]);
        (void)kill(pid, SIGKILL);
        (void)waitpid(pid, NULL, 0);
        return result;
}

static void run_table(const char *name)
{
        char json[256], table[256];
        (void)snprintf(json, sizeof(json), "compile/%s.json", name);
        (void)snprintf(table, sizeof(table), "%s", fixture_path(json));
        (void)snprintf(json, sizeof(json), "%s", table);
        (void)snprintf(table, sizeof(table), "%.*s.table", (int)(strlen(json) - 5), json);

        struct tsync_err err = { 0 };
        struct tsync_profile *p = NULL;
        struct tsync_source_opts so = { .format = TSYNC_FORMAT_OCI };
        if (!tap_ok(tsync_source_load(json, &so, &p, NULL, &err) == 0, "test_compile_%s_parses", name)) {
                tap_diag("%s", err.msg);
                return;
        }
        struct tsync_program *prog = NULL;
        struct tsync_warnings w = { 0 };
        /* The tables are x86_64's (a profile without architectures gets the native ABI alone):
         * compiled for x86_64 on whatever machine runs them. */
        struct tsync_compile_opts co = { .native_arch = SCMP_ARCH_X86_64 };
        if (!tap_ok(tsync_compile(p, &co, &prog, &w, &err) == 0, "test_compile_%s_compiles", name)) {
                tap_diag("%s", err.msg);
                tsync_warnings_clear(&w);
                tsync_profile_free(p);
                return;
        }
        tsync_warnings_clear(&w);

        FILE *f = fopen(table, "re");
        if (!tap_ok(f != NULL, "test_compile_%s_table_exists", name)) {
                tsync_program_free(prog);
                tsync_profile_free(p);
                return;
        }
        char line[512];
        int lineno = 0;
        while (fgets(line, sizeof(line), f)) {
                lineno++;
                char *tok[10];
                int n = 0;
                for (char *s = strtok(line, " \t\n"); s && n < 10; s = strtok(NULL, " \t\n"))
                        tok[n++] = s;
                if (n == 0 || tok[0][0] == '#')
                        continue;
                const char *abi_name = tok[0], *sc = tok[1], *expect = tok[n - 1];
                uint32_t abi = seccomp_arch_resolve_name(abi_name);
                int nr = (sc[0] >= '0' && sc[0] <= '9') ? (int)strtol(sc, NULL, 0)
                                                        : seccomp_syscall_resolve_name_arch(abi, sc);
                uint64_t args[6] = { 0 };
                for (int i = 2; i < n - 1; i++)
                        args[i - 2] = strtoull(tok[i], NULL, 0);
                struct tsync_bpf_input in = { .nr = nr, .arch = tsync_audit_arch(abi) };
                memcpy(in.args, args, sizeof(args));
                struct tsync_bpf_result res;
                char got[32] = "?";
                if (tsync_bpf_simulate(prog->insns, prog->len, &in, &res, &err) == 0)
                        tsync_bpf_ret_name(res.ret, got, sizeof(got));
                tap_ok(strcmp(got, expect) == 0, "test_compile_%s_line_%d_%s_%s_gets_%s (got %s)", name, lineno,
                       abi_name, sc, expect, got);

                unsigned expected_errno;
                if (sscanf(expect, "ERRNO(%u)", &expected_errno) == 1 &&
                    (abi == SCMP_ARCH_X86_64 || abi == SCMP_ARCH_X86) && seccomp_arch_native() == SCMP_ARCH_X86_64) {
                        if (abi == SCMP_ARCH_X86 && !int80_works()) {
                                tap_skip("int 0x80 does not reach the kernel here (IA-32 emulation is off)",
                                         "test_compile_%s_line_%d_kernel_agrees", name, lineno);
                                continue;
                        }
                        int e = kernel_errno(prog, abi, nr, args);
                        tap_ok(e == (int)expected_errno, "test_compile_%s_line_%d_kernel_agrees (errno %d)", name,
                               lineno, e);
                }
        }
        fclose(f);
        tsync_program_free(prog);
        tsync_profile_free(p);
}

static int x86_64_nr(const char *name)
{
        return seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name);
}

/* The OCI profile fixtures/rel, or NULL after a failed TAP line naming test. */
static struct tsync_profile *load_fixture(const char *rel, const char *test)
{
        struct tsync_err err = { 0 };
        struct tsync_profile *p = NULL;
        struct tsync_source_opts so = { .format = TSYNC_FORMAT_OCI };
        if (tsync_source_load(fixture_path(rel), &so, &p, NULL, &err) < 0) {
                tap_ok(0, "%s: load %s: %s", test, rel, err.msg);
                return NULL;
        }
        return p;
}

static void test_compile_unknown_names_warn_or_fail(void)
{
        struct tsync_err err = { 0 };
        struct tsync_profile *p = load_fixture("compile/basic.json", "test_compile_unknown_names");
        if (!p)
                return;
        struct tsync_program *prog = NULL;
        struct tsync_warnings w = { 0 };
        struct tsync_compile_opts co = { 0 };
        int r = tsync_compile(p, &co, &prog, &w, &err);
        tap_ok(r == 0 && w.len == 1 && strstr(w.msgs[0], "'no_such_syscall_here' (syscalls[14])"),
               "test_compile_unknown_names_are_one_warning");
        tsync_warnings_clear(&w);
        tsync_program_free(prog);
        prog = NULL;
        co.strict = true;
        r = tsync_compile(p, &co, &prog, &w, &err);
        tap_ok(r == -EINVAL && strstr(err.msg, "no_such_syscall_here") && !prog,
               "test_compile_unknown_names_fail_when_strict");
        tsync_profile_free(p);
}

static void test_compile_plain_allowed_syscalls_never_read_arguments(void)
{
        struct tsync_err err = { 0 };
        struct tsync_profile *p =
                load_fixture("compile/masked.json", "test_compile_plain_allowed_syscalls_never_read_arguments");
        if (!p)
                return;
        struct tsync_program *prog = NULL;
        /* x86_64's program and numbers, on whatever machine runs it. */
        struct tsync_compile_opts co = { .native_arch = SCMP_ARCH_X86_64 };
        if (tsync_compile(p, &co, &prog, NULL, &err) < 0) {
                tap_ok(0, "test_compile_plain_allowed_syscalls_never_read_arguments: compile: %s", err.msg);
                tsync_profile_free(p);
                return;
        }
        int bad = 0;
        for (int nr = 0; nr < 512; nr++) {
                struct tsync_bpf_input in = { .nr = nr, .arch = tsync_audit_arch(SCMP_ARCH_X86_64) };
                struct tsync_bpf_result res;
                if (tsync_bpf_simulate(prog->insns, prog->len, &in, &res, &err) < 0) {
                        bad++;
                        continue;
                }
                bool conditional = nr == x86_64_nr("clone") || nr == x86_64_nr("socket") ||
                                   nr == x86_64_nr("socketpair") || nr == x86_64_nr("lseek");
                if (!conditional && res.read_args)
                        bad++;
                if (conditional && !res.read_args)
                        bad++;
        }
        tap_ok(bad == 0, "test_compile_plain_allowed_syscalls_never_read_arguments (%d wrong)", bad);
        tsync_program_free(prog);
        tsync_profile_free(p);
}

static void test_compile_conflicting_rules_name_the_rule(void)
{
        struct tsync_err err = { 0 };
        struct tsync_profile *p = load_fixture("compile/conflict.json", "test_compile_conflicting_rules_name_the_rule");
        if (!p)
                return;
        struct tsync_program *prog = NULL;
        struct tsync_compile_opts co = { 0 };
        int r = tsync_compile(p, &co, &prog, NULL, &err);
        tap_ok(r < 0 && !prog && strstr(err.msg, "syscalls[1]") && strstr(err.msg, "'socket'"),
               "test_compile_conflicting_rules_name_the_rule (%s)", err.msg);
        tsync_program_free(prog);
        tsync_profile_free(p);
}

int main(void)
{
        test_compile_conflicting_rules_name_the_rule();
        run_table("basic");
        run_table("allow_default");
        run_table("masked");
        test_compile_unknown_names_warn_or_fail();
        test_compile_plain_allowed_syscalls_never_read_arguments();
        return tap_done();
}
