/* The argument tables of facts/argnames.h. Values are the kernel's ABI
 * (include/uapi/linux/sched.h, personality.h, socket.h), the same on every
 * architecture for these; the unit test holds them against libc's headers. */
#include "facts/argnames.h"

#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/cleanup.h"

#define FLAG(n, v)                                                                                                     \
        {                                                                                                              \
#n, (v), (v)                                                                                           \
        }

/* The signals by the names glibc's sigabbrev_np gives them (which musl
 * lacks); the unit test holds the two to each other. */
static const struct {
        int sig;
        const char *abbrev;
} signals[] = { { SIGHUP, "HUP" },   { SIGINT, "INT" },       { SIGQUIT, "QUIT" }, { SIGILL, "ILL" },
                { SIGTRAP, "TRAP" }, { SIGABRT, "ABRT" },     { SIGBUS, "BUS" },   { SIGFPE, "FPE" },
                { SIGKILL, "KILL" }, { SIGUSR1, "USR1" },     { SIGSEGV, "SEGV" }, { SIGUSR2, "USR2" },
                { SIGPIPE, "PIPE" }, { SIGALRM, "ALRM" },     { SIGTERM, "TERM" }, { SIGSTKFLT, "STKFLT" },
                { SIGCHLD, "CHLD" }, { SIGCONT, "CONT" },     { SIGSTOP, "STOP" }, { SIGTSTP, "TSTP" },
                { SIGTTIN, "TTIN" }, { SIGTTOU, "TTOU" },     { SIGURG, "URG" },   { SIGXCPU, "XCPU" },
                { SIGXFSZ, "XFSZ" }, { SIGVTALRM, "VTALRM" }, { SIGPROF, "PROF" }, { SIGWINCH, "WINCH" },
                { SIGPOLL, "POLL" }, { SIGPWR, "PWR" },       { SIGSYS, "SYS" } };

static const char *signal_abbrev(int sig)
{
        for (size_t i = 0; i < ARRAY_SIZE(signals); i++)
                if (signals[i].sig == sig)
                        return signals[i].abbrev;
        return NULL;
}

/* clone(2)'s flags; CLONE_NEWTIME shares its bit with the exit signal and is
 * unshare's (and clone3's) alone. */
#define CLONE_COMMON                                                                                                   \
        FLAG(CLONE_VM, 0x100), FLAG(CLONE_FS, 0x200), FLAG(CLONE_FILES, 0x400), FLAG(CLONE_SIGHAND, 0x800),            \
                FLAG(CLONE_PIDFD, 0x1000), FLAG(CLONE_PTRACE, 0x2000), FLAG(CLONE_VFORK, 0x4000),                      \
                FLAG(CLONE_PARENT, 0x8000), FLAG(CLONE_THREAD, 0x10000), FLAG(CLONE_NEWNS, 0x20000),                   \
                FLAG(CLONE_SYSVSEM, 0x40000), FLAG(CLONE_SETTLS, 0x80000), FLAG(CLONE_PARENT_SETTID, 0x100000),        \
                FLAG(CLONE_CHILD_CLEARTID, 0x200000), FLAG(CLONE_DETACHED, 0x400000), FLAG(CLONE_UNTRACED, 0x800000),  \
                FLAG(CLONE_CHILD_SETTID, 0x1000000), FLAG(CLONE_NEWCGROUP, 0x2000000), FLAG(CLONE_NEWUTS, 0x4000000),  \
                FLAG(CLONE_NEWIPC, 0x8000000), FLAG(CLONE_NEWUSER, 0x10000000), FLAG(CLONE_NEWPID, 0x20000000),        \
                FLAG(CLONE_NEWNET, 0x40000000), FLAG(CLONE_IO, 0x80000000)

static const struct tsync_argname clone_names[] = { CLONE_COMMON };
static const struct tsync_argname unshare_names[] = { CLONE_COMMON, FLAG(CLONE_NEWTIME, 0x80) };
/* setns(2)'s nstype: 0 is any namespace the fd refers to. */
static const struct tsync_argname setns_names[] = {
        FLAG(CLONE_NEWNS, 0x20000),     FLAG(CLONE_NEWCGROUP, 0x2000000), FLAG(CLONE_NEWUTS, 0x4000000),
        FLAG(CLONE_NEWIPC, 0x8000000),  FLAG(CLONE_NEWUSER, 0x10000000),  FLAG(CLONE_NEWPID, 0x20000000),
        FLAG(CLONE_NEWNET, 0x40000000), FLAG(CLONE_NEWTIME, 0x80),
};
/* personality(2): a type in the low byte (PER_MASK) plus flags; 0xffffffff
 * only asks for the current one. Docker's profile allows 0, 8, 0x20000,
 * 0x20008 and that query. */
static const struct tsync_argname personality_names[] = {
        { "PER_QUERY(0xffffffff)", 0xffffffff, 0xffffffff },
        { "PER_LINUX", 0x0000, 0xff },
        { "PER_LINUX32", 0x0008, 0xff },
        FLAG(UNAME26, 0x0020000),
        FLAG(ADDR_NO_RANDOMIZE, 0x0040000),
        FLAG(FDPIC_FUNCPTRS, 0x0080000),
        FLAG(MMAP_PAGE_ZERO, 0x0100000),
        FLAG(ADDR_COMPAT_LAYOUT, 0x0200000),
        FLAG(READ_IMPLIES_EXEC, 0x0400000),
        FLAG(ADDR_LIMIT_32BIT, 0x0800000),
        FLAG(SHORT_INODE, 0x1000000),
        FLAG(WHOLE_SECONDS, 0x2000000),
        FLAG(STICKY_TIMEOUTS, 0x4000000),
        FLAG(ADDR_LIMIT_3GB, 0x8000000),
};
/* socket(2)'s and socketpair(2)'s domain: an int, so the low 32 bits. */
#define AF(n, v)                                                                                                       \
        {                                                                                                              \
#n, (v), 0xffffffff                                                                                    \
        }
static const struct tsync_argname family_names[] = {
        AF(AF_UNSPEC, 0),    AF(AF_UNIX, 1),        AF(AF_INET, 2),     AF(AF_AX25, 3),     AF(AF_IPX, 4),
        AF(AF_APPLETALK, 5), AF(AF_NETROM, 6),      AF(AF_BRIDGE, 7),   AF(AF_ATMPVC, 8),   AF(AF_X25, 9),
        AF(AF_INET6, 10),    AF(AF_ROSE, 11),       AF(AF_DECnet, 12),  AF(AF_NETBEUI, 13), AF(AF_SECURITY, 14),
        AF(AF_KEY, 15),      AF(AF_NETLINK, 16),    AF(AF_PACKET, 17),  AF(AF_ASH, 18),     AF(AF_ECONET, 19),
        AF(AF_ATMSVC, 20),   AF(AF_RDS, 21),        AF(AF_SNA, 22),     AF(AF_IRDA, 23),    AF(AF_PPPOX, 24),
        AF(AF_WANPIPE, 25),  AF(AF_LLC, 26),        AF(AF_IB, 27),      AF(AF_MPLS, 28),    AF(AF_CAN, 29),
        AF(AF_TIPC, 30),     AF(AF_BLUETOOTH, 31),  AF(AF_IUCV, 32),    AF(AF_RXRPC, 33),   AF(AF_ISDN, 34),
        AF(AF_PHONET, 35),   AF(AF_IEEE802154, 36), AF(AF_CAIF, 37),    AF(AF_ALG, 38),     AF(AF_NFC, 39),
        AF(AF_VSOCK, 40),    AF(AF_KCM, 41),        AF(AF_QIPCRTR, 42), AF(AF_SMC, 43),     AF(AF_XDP, 44),
        AF(AF_MCTP, 45),
};

#define TABLE(w, a, sig)                                                                                               \
        {                                                                                                              \
                .what = (w), .names = (a), .n_names = ARRAY_SIZE(a), .signal_mask = (sig)                              \
        }
static const struct tsync_argtable clone_table = TABLE("clone flags", clone_names, 0xff);
static const struct tsync_argtable unshare_table = TABLE("unshare flags", unshare_names, 0);
static const struct tsync_argtable setns_table = TABLE("namespace type", setns_names, 0);
static const struct tsync_argtable personality_table = TABLE("personality", personality_names, 0);
static const struct tsync_argtable family_table = TABLE("address family", family_names, 0);

static const struct {
        const char *syscall;
        unsigned index;
        const struct tsync_argtable *table;
} by_call[] = {
        { "clone", 0, &clone_table },   { "unshare", 0, &unshare_table },
        { "setns", 1, &setns_table },   { "personality", 0, &personality_table },
        { "socket", 0, &family_table }, { "socketpair", 0, &family_table },
};

const struct tsync_argtable *tsync_argtable_find(const char *syscall, unsigned index, uint32_t abi)
{
        /* s390's clone is clone(newsp, flags, ...) (CONFIG_CLONE_BACKWARDS2). */
        if (strcmp(syscall, "clone") == 0 && (abi == SCMP_ARCH_S390 || abi == SCMP_ARCH_S390X) && index <= 1)
                index = 1 - index;
        for (size_t i = 0; i < ARRAY_SIZE(by_call); i++)
                if (by_call[i].index == index && strcmp(by_call[i].syscall, syscall) == 0)
                        return by_call[i].table;
        return NULL;
}

static void put(char *buf, size_t size, size_t *len, const char *s)
{
        int n = snprintf(buf + *len, size - *len, "%s%s", *len ? "|" : "", s);
        if (n > 0)
                *len = *len + (size_t)n < size ? *len + (size_t)n : size - 1;
}

void tsync_argtable_format(const struct tsync_argtable *t, uint64_t v, char *buf, size_t size)
{
        uint64_t consumed = 0, rest = v;
        size_t len = 0;
        if (size == 0)
                return;
        buf[0] = '\0';
        for (size_t i = 0; i < t->n_names; i++) {
                const struct tsync_argname *e = &t->names[i];
                /* A field is named once: PER_LINUX (0) does not match again
                 * after PER_LINUX32 took the type byte. */
                if ((e->mask & consumed) || (v & e->mask) != e->value)
                        continue;
                if (e->value == e->mask && !(rest & e->mask))
                        continue;
                put(buf, size, &len, e->name);
                consumed |= e->mask;
                rest &= ~e->mask;
        }
        if (t->signal_mask && (rest & t->signal_mask)) {
                unsigned sig = (unsigned)(rest & t->signal_mask);
                const char *abbrev = signal_abbrev((int)sig);
                char name[32];
                if (abbrev)
                        (void)snprintf(name, sizeof(name), "SIG%s", abbrev);
                else
                        (void)snprintf(name, sizeof(name), "%u", sig);
                put(buf, size, &len, name);
                rest &= ~t->signal_mask;
        }
        if (rest || len == 0) {
                char hex[24];
                (void)snprintf(hex, sizeof(hex), rest ? "0x%llx" : "0", (unsigned long long)rest);
                put(buf, size, &len, hex);
        }
}

static int parse_word(const struct tsync_argtable *t, const char *w, uint64_t *ret)
{
        for (size_t i = 0; i < t->n_names; i++)
                if (strcmp(t->names[i].name, w) == 0) {
                        *ret = t->names[i].value;
                        return 0;
                }
        if (t->signal_mask && strncmp(w, "SIG", 3) == 0)
                for (size_t i = 0; i < ARRAY_SIZE(signals); i++)
                        if (strcmp(signals[i].abbrev, w + 3) == 0) {
                                *ret = (uint64_t)signals[i].sig;
                                return 0;
                        }
        char *end;
        if (*w && *w != '-') {
                errno = 0;
                unsigned long long v = strtoull(w, &end, 0);
                if (!errno && !*end) {
                        *ret = v;
                        return 0;
                }
        }
        return -EINVAL;
}

int tsync_argtable_parse(const struct tsync_argtable *t, const char *s, uint64_t *ret)
{
        _cleanup_free_ char *copy = strdup(s);
        uint64_t v = 0;
        if (!copy)
                return -ENOMEM;
        char *save = NULL;
        size_t words = 0;
        for (char *w = strtok_r(copy, "|", &save); w; w = strtok_r(NULL, "|", &save), words++) {
                uint64_t one;
                if (parse_word(t, w, &one) < 0)
                        return -EINVAL;
                v |= one;
        }
        if (words == 0)
                return -EINVAL;
        *ret = v;
        return 0;
}
