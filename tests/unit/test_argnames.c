/* explain's argument names (hook/facts/argnames.c), held against libc's and the
 * kernel's headers, and the precedence rule across a stack of filters
 * (tsync_explain_stack) against the order of kernel/seccomp.c. */
#include <errno.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/socket.h>

#include "facts/argnames.h"
#include "facts/config_caps.h"
#include "tap.h"
#include "translate/analysis.h"

static void check_format(const struct tsync_argtable *t, uint64_t v, const char *want)
{
        char buf[256];
        tsync_argtable_format(t, v, buf, sizeof(buf));
        tap_ok(strcmp(buf, want) == 0, "%s 0x%llx is %s (got %s)", t->what, (unsigned long long)v, want, buf);
        uint64_t back = ~(uint64_t)0;
        tap_ok(tsync_argtable_parse(t, buf, &back) == 0 && back == v, "'%s' reads back as 0x%llx", buf,
               (unsigned long long)v);
}

/* Every name of a table: its value is the header's. */
struct named {
        const char *name;
        uint64_t value;
};

static void check_names(const struct tsync_argtable *t, const struct named *want, size_t n)
{
        size_t ok = 0;
        for (size_t i = 0; i < n; i++) {
                uint64_t v;
                if (tsync_argtable_parse(t, want[i].name, &v) == 0 && v == want[i].value)
                        ok++;
                else
                        tap_diag("%s: %s is not 0x%llx", t->what, want[i].name, (unsigned long long)want[i].value);
        }
        tap_ok(ok == n, "%s: %zu names hold the headers' values", t->what, n);
}

#define N(x)                                                                                                           \
        {                                                                                                              \
#x, (uint64_t)(x)                                                                                      \
        }

static void test_argnames_hold_the_headers_values(void)
{
        static const struct named clone_flags[] = {
                N(CLONE_VM),
                N(CLONE_FS),
                N(CLONE_FILES),
                N(CLONE_SIGHAND),
                N(CLONE_PIDFD),
                N(CLONE_PTRACE),
                N(CLONE_VFORK),
                N(CLONE_PARENT),
                N(CLONE_THREAD),
                N(CLONE_NEWNS),
                N(CLONE_SYSVSEM),
                N(CLONE_SETTLS),
                N(CLONE_PARENT_SETTID),
                N(CLONE_CHILD_CLEARTID),
                N(CLONE_DETACHED),
                N(CLONE_UNTRACED),
                N(CLONE_CHILD_SETTID),
                N(CLONE_NEWCGROUP),
                N(CLONE_NEWUTS),
                N(CLONE_NEWIPC),
                N(CLONE_NEWUSER),
                N(CLONE_NEWPID),
                N(CLONE_NEWNET),
                N(CLONE_IO),
        };
        check_names(tsync_argtable_find("clone", 0, SCMP_ARCH_X86_64), clone_flags,
                    sizeof(clone_flags) / sizeof(clone_flags[0]));
        static const struct named unshare_flags[] = { N(CLONE_NEWTIME), N(CLONE_NEWNS), N(CLONE_FILES) };
        check_names(tsync_argtable_find("unshare", 0, SCMP_ARCH_X86_64), unshare_flags, 3);
        static const struct named families[] = {
                N(AF_UNSPEC), N(AF_UNIX), N(AF_INET),    N(AF_INET6), N(AF_NETLINK),   N(AF_PACKET),
                N(AF_KEY),    N(AF_ALG),  N(AF_VSOCK),   N(AF_CAN),   N(AF_BLUETOOTH), N(AF_XDP),
                N(AF_TIPC),   N(AF_RDS),  N(AF_QIPCRTR), N(AF_SMC),   N(AF_KCM),       N(AF_MCTP),
        };
        check_names(tsync_argtable_find("socket", 0, SCMP_ARCH_X86_64), families,
                    sizeof(families) / sizeof(families[0]));
        static const struct named personas[] = {
                N(PER_LINUX),      N(PER_LINUX32),        N(UNAME26),           N(ADDR_NO_RANDOMIZE), N(FDPIC_FUNCPTRS),
                N(MMAP_PAGE_ZERO), N(ADDR_COMPAT_LAYOUT), N(READ_IMPLIES_EXEC), N(ADDR_LIMIT_32BIT),  N(SHORT_INODE),
                N(WHOLE_SECONDS),  N(STICKY_TIMEOUTS),    N(ADDR_LIMIT_3GB),
        };
        check_names(tsync_argtable_find("personality", 0, SCMP_ARCH_X86_64), personas,
                    sizeof(personas) / sizeof(personas[0]));
}

static void test_argnames_format_and_read_back(void)
{
        const struct tsync_argtable *clone = tsync_argtable_find("clone", 0, SCMP_ARCH_X86_64);
        check_format(clone, CLONE_NEWUSER | SIGCHLD, "CLONE_NEWUSER|SIGCHLD");
        check_format(clone,
                     CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |
                             CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID,
                     "CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|"
                     "CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID");
        check_format(clone, 0, "0");
        /* bits no name covers: one hex number at the end */
        check_format(clone, CLONE_NEWNS | 0x100000000ull, "CLONE_NEWNS|0x100000000");
        /* CLONE_NEWTIME is unshare's: in clone that bit is the exit signal's */
        check_format(tsync_argtable_find("unshare", 0, SCMP_ARCH_X86_64), CLONE_NEWTIME | CLONE_NEWNS,
                     "CLONE_NEWNS|CLONE_NEWTIME");
        check_format(tsync_argtable_find("setns", 1, SCMP_ARCH_X86_64), CLONE_NEWNET, "CLONE_NEWNET");
        const struct tsync_argtable *pers = tsync_argtable_find("personality", 0, SCMP_ARCH_X86_64);
        /* Docker's profile allows these five */
        check_format(pers, 0, "PER_LINUX");
        check_format(pers, 8, "PER_LINUX32");
        check_format(pers, 0x20000, "PER_LINUX|UNAME26");
        check_format(pers, 0x20008, "PER_LINUX32|UNAME26");
        check_format(pers, 0xffffffff, "PER_QUERY(0xffffffff)");
        check_format(pers, 0x3, "0x3");
        const struct tsync_argtable *af = tsync_argtable_find("socketpair", 0, SCMP_ARCH_X86_64);
        check_format(af, AF_NETLINK, "AF_NETLINK");
        check_format(af, 200, "0xc8");
        uint64_t v;
        tap_ok(tsync_argtable_parse(af, "AF_NOPE", &v) == -EINVAL, "an unknown name is refused");
        tap_ok(tsync_argtable_parse(af, "", &v) == -EINVAL, "an empty word is refused");
}

static void test_argnames_only_where_a_filter_sees_them(void)
{
        tap_ok(tsync_argtable_find("clone3", 0, SCMP_ARCH_X86_64) == NULL,
               "clone3: no table (its flags are in memory a filter cannot read)");
        tap_ok(tsync_argtable_find("clone", 1, SCMP_ARCH_X86_64) == NULL, "clone's second argument is no flag set");
        tap_ok(tsync_argtable_find("clone", 1, SCMP_ARCH_S390X) == tsync_argtable_find("clone", 0, SCMP_ARCH_X86_64),
               "s390x's clone takes its flags second");
        tap_ok(tsync_argtable_find("read", 0, SCMP_ARCH_X86_64) == NULL, "read: no table");
}

/* The order of kernel/seccomp.c: the lowest action as s32 wins, a tie goes
 * to the newest filter (the last loaded), all ALLOW: none decides. */
static void test_explain_stack_takes_the_kernels_precedence(void)
{
        static const uint32_t order[] = { SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_KILL_THREAD, SECCOMP_RET_TRAP,
                                          SECCOMP_RET_ERRNO | 1,    SECCOMP_RET_USER_NOTIF,  SECCOMP_RET_TRACE,
                                          SECCOMP_RET_LOG,          SECCOMP_RET_ALLOW };
        size_t n = sizeof(order) / sizeof(order[0]), d, wrong = 0;
        for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++) {
                        uint32_t rets[2] = { order[i], order[j] };
                        uint32_t r = tsync_explain_stack(rets, 2, &d);
                        size_t want = i <= j ? (i == j ? 1 : 0) : 1;
                        if (order[i] == SECCOMP_RET_ALLOW && order[j] == SECCOMP_RET_ALLOW)
                                want = 2;
                        if (r != order[i < j ? i : j] || d != want) {
                                tap_diag("%#x then %#x: got %#x from %zu", order[i], order[j], r, d);
                                wrong++;
                        }
                }
        tap_ok(wrong == 0, "every pair of actions: the more severe decides, a tie the newer filter");
        uint32_t errnos[3] = { SECCOMP_RET_ERRNO | 13, SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | 1 };
        tap_ok(tsync_explain_stack(errnos, 3, &d) == (SECCOMP_RET_ERRNO | 1) && d == 2,
               "ERRNO(13) then ERRNO(1): the newest filter's errno");
        uint32_t trap_errno[2] = { SECCOMP_RET_TRAP | 5, SECCOMP_RET_ERRNO | 1 };
        tap_ok(tsync_explain_stack(trap_errno, 2, &d) == (SECCOMP_RET_TRAP | 5) && d == 0,
               "an older TRAP beats a newer ERRNO");
        uint32_t allow[2] = { SECCOMP_RET_ALLOW, SECCOMP_RET_ALLOW | 7 };
        tap_ok(tsync_explain_stack(allow, 2, &d) == SECCOMP_RET_ALLOW && d == 2, "all allow: none decides");
        uint32_t kill[2] = { SECCOMP_RET_KILL_THREAD, SECCOMP_RET_KILL_PROCESS };
        tap_ok(tsync_explain_stack(kill, 2, &d) == SECCOMP_RET_KILL_PROCESS && d == 1,
               "KILL_PROCESS (0x80000000, negative as s32) beats KILL_THREAD (0)");
}

static void test_caps_presets_are_the_engines_defaults(void)
{
        uint64_t docker = 0, podman = 0, want = 0;
        struct tsync_err err = { 0 };
        tap_ok(tsync_caps_parse_list("docker-default", &docker, &err) == 0, "docker-default: %s", err.msg);
        tap_ok(tsync_caps_parse_list("CAP_CHOWN,CAP_DAC_OVERRIDE,CAP_FSETID,CAP_FOWNER,CAP_MKNOD,CAP_NET_RAW,"
                                     "CAP_SETGID,CAP_SETUID,CAP_SETFCAP,CAP_SETPCAP,CAP_NET_BIND_SERVICE,"
                                     "CAP_SYS_CHROOT,CAP_KILL,CAP_AUDIT_WRITE",
                                     &want, &err) == 0 &&
                       docker == want && __builtin_popcountll(docker) == 14,
               "docker-default: moby's 14");
        tap_ok(tsync_caps_parse_list("podman-default", &podman, &err) == 0 && __builtin_popcountll(podman) == 11,
               "podman-default: containers.conf's 11");
        FILE *f = fopen("/usr/share/containers/containers.conf", "re");
        if (!f) {
                tap_skip("no /usr/share/containers/containers.conf", "podman-default is the installed default");
                return;
        }
        /* default_capabilities = [ "CHOWN", ... ]: one name a line */
        char line[256];
        bool in = false;
        uint64_t conf = 0;
        while (fgets(line, sizeof(line), f)) {
                if (strncmp(line, "default_capabilities", 20) == 0) {
                        in = true;
                        continue;
                }
                if (!in)
                        continue;
                if (line[0] == ']')
                        break;
                char *q = strchr(line, '"'), *e = q ? strchr(q + 1, '"') : NULL;
                unsigned c;
                if (q && e) {
                        *e = '\0';
                        if (tsync_cap_from_name(q + 1, &c) == 0)
                                conf |= (uint64_t)1 << c;
                }
        }
        fclose(f);
        tap_ok(conf == podman, "podman-default is the installed containers.conf's default_capabilities");
}

/* clone's exit signal is named as glibc's sigabbrev_np names it (argnames.c
 * keeps its own table: musl has none), every number of CSIGNAL. */
static void test_argnames_name_signals_as_glibc_does(void)
{
        const struct tsync_argtable *clone = tsync_argtable_find("clone", 0, SCMP_ARCH_X86_64);
        int same = 0, named = 0;
        for (int sig = 1; sig <= 0xff; sig++) {
                const char *abbrev = sig < NSIG ? sigabbrev_np(sig) : NULL;
                char want[32], got[256];
                if (abbrev)
                        (void)snprintf(want, sizeof(want), "SIG%s", abbrev);
                else
                        (void)snprintf(want, sizeof(want), "%d", sig);
                tsync_argtable_format(clone, (uint64_t)sig, got, sizeof(got));
                uint64_t back = 0;
                if (strcmp(got, want) == 0 &&
                    (!abbrev || (tsync_argtable_parse(clone, want, &back) == 0 && back == (uint64_t)sig)))
                        same++;
                else
                        tap_diag("signal %d: %s, glibc's %s", sig, got, want);
                named += abbrev != NULL;
        }
        tap_ok(same == 0xff && named == 31, "clone's exit signals 1 to 255 are named as glibc names them (%d named)",
               named);
}

int main(void)
{
        test_argnames_hold_the_headers_values();
        test_argnames_format_and_read_back();
        test_argnames_name_signals_as_glibc_does();
        test_argnames_only_where_a_filter_sees_them();
        test_explain_stack_takes_the_kernels_precedence();
        test_caps_presets_are_the_engines_defaults();
        return tap_done();
}
