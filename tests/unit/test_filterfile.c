/* The filter file: round trip, the documented checksum, and that every damaged
 * file is refused (each single-byte change, each truncation, extra bytes). */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/filterfile.h"
#include "tap.h"

#define TEST_ERRNO 42

/* getppid() fails with TEST_ERRNO, everything else is allowed. */
static const struct sock_filter test_prog[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | TEST_ERRNO),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};
#define TEST_LEN  (sizeof(test_prog) / sizeof(test_prog[0]))
#define TEST_SIZE (TSYNC_FILTER_HEADER_SIZE + 8 * TEST_LEN)

/* Aligned scratch space big enough for the largest file plus slack. */
static union {
        struct sock_filter insn;
        uint64_t align;
        unsigned char b[TSYNC_FILTER_MAX_SIZE + 64];
} buf, copy;

/* FNV-1a written out again here, from its definition, to check the file's field. */
static uint32_t ref_fnv1a(const unsigned char *p, size_t len)
{
        uint32_t h = 2166136261u;
        for (size_t i = 0; i < len; i++)
                h = (h ^ p[i]) * 16777619u;
        return h;
}

static uint32_t ref_checksum(const unsigned char *file, size_t size)
{
        static unsigned char tmp[TSYNC_FILTER_MAX_SIZE];
        memcpy(tmp, file, size);
        memset(tmp + 20, 0, 4);
        return ref_fnv1a(tmp, size);
}

/* Rewrites the checksum so a change to another field reaches its own check. */
static void reseal(unsigned char *file, size_t size)
{
        uint32_t c = ref_checksum(file, size);
        memcpy(file + 20, &c, 4);
}

static void put32(unsigned char *file, size_t off, uint32_t v)
{
        memcpy(file + off, &v, 4);
}

/* Decodes and checks the outputs are untouched on failure. Returns the result, *why set. */
static int decode(const void *p, size_t size, const char **why)
{
        const struct sock_filter *prog = (const void *)1;
        size_t len = 12345;
        uint32_t flags = 0xdeadbeef;
        *why = NULL;
        int r = tsync_filter_decode(p, size, &prog, &len, &flags, NULL, why);
        if (r < 0 && (prog != (const void *)1 || len != 12345 || flags != 0xdeadbeef || !*why)) {
                tap_diag("outputs touched on failure, or no reason given");
                return 1; /* reported as an unexpected success by callers */
        }
        return r;
}

static void test_filterfile_round_trip(void)
{
        const struct sock_filter *prog = NULL;
        size_t len = 0;
        uint32_t flags = 0;
        const char *why = NULL;

        long n = tsync_filter_encode(test_prog, TEST_LEN, 1u << 1, 0, buf.b, sizeof(buf.b));
        tap_ok(n == (long)TEST_SIZE, "test_filterfile_encode_returns_size: %ld", n);
        tap_ok(memcmp(buf.b, "TSYNCBPF", 8) == 0, "test_filterfile_encode_magic");

        uint32_t f[6];
        memcpy(f, buf.b + 8, sizeof(f));
        tap_ok(f[0] == 2 && f[0] == TSYNC_FILTER_VERSION && f[1] == (1u << 1) && f[2] == TEST_LEN && f[4] == 0 &&
                       f[5] == 0,
               "test_filterfile_encode_header_fields: version %u flags %#x count %u listener %u reserved %u", f[0],
               f[1], f[2], f[4], f[5]);
        tap_ok(f[3] == ref_checksum(buf.b, TEST_SIZE), "test_filterfile_encode_checksum_is_fnv1a: %#x vs %#x", f[3],
               ref_checksum(buf.b, TEST_SIZE));
        tap_ok(memcmp(buf.b + 32, test_prog, sizeof(test_prog)) == 0, "test_filterfile_encode_program_bytes");

        int r = tsync_filter_decode(buf.b, TEST_SIZE, &prog, &len, &flags, NULL, &why);
        tap_ok(r == 0 && len == TEST_LEN && flags == (1u << 1) && prog == (const void *)(buf.b + 32) &&
                       memcmp(prog, test_prog, sizeof(test_prog)) == 0,
               "test_filterfile_round_trip: r=%d len=%zu flags=%#x why=%s", r, len, flags, why ? why : "-");

        /* Every allowed flag combination survives; each forbidden bit is refused by encode. */
        int ok = 1;
        for (uint32_t fl = 0; fl < 64; fl++) {
                int allowed = (fl & ~TSYNC_FILTER_ALLOWED_FLAGS) == 0;
                n = tsync_filter_encode(test_prog, TEST_LEN, fl, 0, buf.b, sizeof(buf.b));
                if (!allowed) {
                        ok &= n == -EINVAL;
                        continue;
                }
                r = tsync_filter_decode(buf.b, (size_t)n, &prog, &len, &flags, NULL, &why);
                ok &= n == (long)TEST_SIZE && r == 0 && flags == fl;
        }
        tap_ok(ok, "test_filterfile_flags_round_trip_and_forbidden_flags_refused");

        /* The largest program there may be. */
        static struct sock_filter big[TSYNC_FILTER_MAX_INSNS];
        for (size_t i = 0; i < TSYNC_FILTER_MAX_INSNS; i++)
                big[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(i % 16) * 4);
        big[TSYNC_FILTER_MAX_INSNS - 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        n = tsync_filter_encode(big, TSYNC_FILTER_MAX_INSNS, 0, 0, buf.b, TSYNC_FILTER_MAX_SIZE);
        r = n > 0 ? tsync_filter_decode(buf.b, (size_t)n, &prog, &len, &flags, NULL, &why) : (int)n;
        tap_ok(n == (long)(TSYNC_FILTER_MAX_SIZE - TSYNC_FILTER_MAX_TRAILER) && r == 0 &&
                       len == TSYNC_FILTER_MAX_INSNS && memcmp(prog, big, sizeof(big)) == 0,
               "test_filterfile_round_trip_max_size: n=%ld r=%d", n, r);
}

static void test_filterfile_encode_refuses(void)
{
        tap_ok(tsync_filter_encode(test_prog, 0, 0, 0, buf.b, sizeof(buf.b)) == -EINVAL,
               "test_filterfile_encode_refuses_empty");
        static struct sock_filter big[TSYNC_FILTER_MAX_INSNS + 1];
        tap_ok(tsync_filter_encode(big, TSYNC_FILTER_MAX_INSNS + 1, 0, 0, buf.b, sizeof(buf.b)) == -EINVAL,
               "test_filterfile_encode_refuses_too_long");
        tap_ok(tsync_filter_encode(test_prog, TEST_LEN, 1u /* TSYNC */, 0, buf.b, sizeof(buf.b)) == -EINVAL,
               "test_filterfile_encode_refuses_tsync_flag");
        tap_ok(tsync_filter_encode(test_prog, TEST_LEN, 0, 0, buf.b, TEST_SIZE - 1) == -ENOSPC,
               "test_filterfile_encode_refuses_small_buffer");
        tap_ok(tsync_filter_encode(test_prog, TEST_LEN, 0, 0, buf.b, TEST_SIZE) == (long)TEST_SIZE,
               "test_filterfile_encode_exact_buffer");
}

/* Every byte of a valid file, changed to each of its 255 other values: all refused. */
static void test_filterfile_refuses_every_byte_change(void)
{
        const char *why;
        size_t accepted = 0, tried = 0;

        long n = tsync_filter_encode(test_prog, TEST_LEN, 1u << 2, 0, buf.b, sizeof(buf.b));
        if (n != (long)TEST_SIZE) {
                tap_ok(0, "test_filterfile_refuses_every_byte_change: encode failed %ld", n);
                return;
        }
        for (size_t pos = 0; pos < TEST_SIZE; pos++) {
                for (unsigned v = 0; v < 256; v++) {
                        if (v == buf.b[pos])
                                continue;
                        memcpy(copy.b, buf.b, TEST_SIZE);
                        copy.b[pos] = (unsigned char)v;
                        tried++;
                        if (decode(copy.b, TEST_SIZE, &why) >= 0) {
                                if (accepted++ < 5)
                                        tap_diag("byte %zu set to %#x was accepted", pos, v);
                        }
                }
        }
        tap_ok(accepted == 0 && tried == TEST_SIZE * 255,
               "test_filterfile_refuses_every_byte_change: %zu of %zu accepted", accepted, tried);
}

static void test_filterfile_refuses_truncation_and_extra(void)
{
        const char *why;
        size_t bad = 0;

        (void)tsync_filter_encode(test_prog, TEST_LEN, 0, 0, buf.b, sizeof(buf.b));
        for (size_t len = 0; len < TEST_SIZE; len++) {
                int r = decode(buf.b, len, &why);
                if (r != -EBADMSG || !why || strcmp(why, "truncated") != 0) {
                        if (bad++ < 5)
                                tap_diag("length %zu: r=%d why=%s", len, r, why ? why : "-");
                }
        }
        tap_ok(bad == 0, "test_filterfile_refuses_every_truncation: %zu lengths not reported as truncated", bad);

        for (size_t extra = 1; extra <= 9; extra++) {
                memset(buf.b + TEST_SIZE, 0, extra);
                int r = decode(buf.b, TEST_SIZE + extra, &why);
                tap_ok(r == -EBADMSG && why && strcmp(why, "trailing bytes") == 0,
                       "test_filterfile_refuses_trailing_bytes (%zu): r=%d why=%s", extra, r, why ? why : "-");
        }
}

/* Each check on its own: change a field and fix up the checksum so only that check can fire. */
static void test_filterfile_refusal_reasons(void)
{
        static const struct {
                const char *name;
                size_t off;
                uint32_t value;
                const char *why;
        } cases[] = {
                { "magic", 0, 0 /* magic becomes "TSYNCBPG" */, "bad magic" },
                { "version_0", 8, 0, "unsupported version, expected 2" },
                { "version_1", 8, 1, "unsupported version, expected 2" },
                { "version_3", 8, 3, "unsupported version, expected 2" },
                { "count_0", 16, 0, "no instructions" },
                { "count_too_many", 16, TSYNC_FILTER_MAX_INSNS + 1, "too many instructions" },
                { "count_huge", 16, 0xffffffffu, "too many instructions" },
                { "count_more", 16, TEST_LEN + 1, "truncated" },
                { "count_fewer", 16, TEST_LEN - 1, "trailing bytes" },
                { "flags_tsync", 12, 1u, "unknown flags" },
                { "flags_new_listener", 12, 1u << 3, "unknown flags" },
                { "flags_high", 12, 1u << 31, "unknown flags" },
                { "listener_4", 24, TSYNC_LISTENER_MAX + 1, "unknown listener" },
                { "listener_agent_without_trailer", 24, TSYNC_LISTENER_AGENT, "an agent's listener, but no trailer" },
                { "listener_high", 24, 0x80000000u, "unknown listener" },
                { "listener_without_user_notif", 24, TSYNC_LISTENER_EXEC_ONCE, "a listener, but no USER_NOTIF return" },
                { "trailer_unaligned", 28, 1, "trailer is not a multiple of 8 bytes" },
                { "trailer_high", 28, 0x80000000u, "trailer too long" },
                { "trailer_beyond_the_file", 28, 8, "truncated" },
        };
        const char *why;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                (void)tsync_filter_encode(test_prog, TEST_LEN, 0, 0, buf.b, sizeof(buf.b));
                if (cases[i].off == 0)
                        memcpy(buf.b, "TSYNCBPG", 8);
                else
                        put32(buf.b, cases[i].off, cases[i].value);
                reseal(buf.b, TEST_SIZE);
                int r = decode(buf.b, TEST_SIZE, &why);
                tap_ok(r == -EBADMSG && why && strcmp(why, cases[i].why) == 0,
                       "test_filterfile_refuses_%s: r=%d why=%s", cases[i].name, r, why ? why : "-");
        }

        (void)tsync_filter_encode(test_prog, TEST_LEN, 0, 0, buf.b, sizeof(buf.b));
        buf.b[TEST_SIZE - 1] ^= 1;
        int r = decode(buf.b, TEST_SIZE, &why);
        tap_ok(r == -EBADMSG && why && strcmp(why, "checksum mismatch") == 0,
               "test_filterfile_refuses_checksum_mismatch: %s", why ? why : "-");

        /* A reseal after the same change makes it valid again: the checksum is the only thing that caught it. */
        reseal(buf.b, TEST_SIZE);
        r = decode(buf.b, TEST_SIZE, &why);
        tap_ok(r == 0, "test_filterfile_resealed_program_change_accepted: r=%d", r);

        (void)tsync_filter_encode(test_prog, TEST_LEN, 0, 0, buf.b + 1, sizeof(buf.b) - 1);
        r = tsync_filter_decode(buf.b + 1, TEST_SIZE, NULL, NULL, NULL, NULL, &why);
        tap_ok(r == -EINVAL, "test_filterfile_refuses_misaligned_buffer: r=%d", r);
}

/* getppid() goes to the listener: the exec-once filter's shape. */
static const struct sock_filter notify_prog[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};
#define NOTIFY_LEN (sizeof(notify_prog) / sizeof(notify_prog[0]))

static void test_filterfile_listener(void)
{
        const struct sock_filter *prog;
        size_t len;
        uint32_t flags, listener = 99;
        const char *why = NULL;

        long n = tsync_filter_encode(notify_prog, NOTIFY_LEN, 0, TSYNC_LISTENER_EXEC_ONCE, buf.b, sizeof(buf.b));
        int r = n > 0 ? tsync_filter_decode(buf.b, (size_t)n, &prog, &len, &flags, &listener, &why) : (int)n;
        tap_ok(r == 0 && listener == TSYNC_LISTENER_EXEC_ONCE && len == NOTIFY_LEN,
               "test_filterfile_listener_round_trip: r=%d listener=%u why=%s", r, listener, why ? why : "-");
        n = tsync_filter_encode(notify_prog, NOTIFY_LEN, 0, TSYNC_LISTENER_NONE, buf.b, sizeof(buf.b));
        r = n > 0 ? tsync_filter_decode(buf.b, (size_t)n, &prog, &len, &flags, &listener, &why) : (int)n;
        tap_ok(r == 0 && listener == TSYNC_LISTENER_NONE,
               "test_filterfile_user_notif_without_listener_decodes (the init refuses it): r=%d", r);
        tap_ok(tsync_filter_encode(test_prog, TEST_LEN, 0, TSYNC_LISTENER_EXEC_ONCE, buf.b, sizeof(buf.b)) == -EINVAL,
               "test_filterfile_encode_refuses_listener_without_user_notif");
        tap_ok(tsync_filter_encode(notify_prog, NOTIFY_LEN, 0, TSYNC_LISTENER_MAX + 1, buf.b, sizeof(buf.b)) == -EINVAL,
               "test_filterfile_encode_refuses_unknown_listener");
        tap_ok(tsync_filter_find_user_notif(notify_prog, NOTIFY_LEN) == 2 &&
                       tsync_filter_find_user_notif(test_prog, TEST_LEN) == -1,
               "test_filterfile_find_user_notif");
}

/* An agent filter's trailer: round trip, its exact bytes, each of its
 * refusals (resealed so only the trailer check can fire), and that every
 * byte of it is covered by the checksum. */
static void test_filterfile_agent_trailer(void)
{
        const struct tsync_filter_agent agent = { "/.oci-seccomp-tsync/agents/1.sock", "meta \"x\"" };
        struct tsync_filter_agent got = { NULL, NULL };
        uint32_t listener = 0, trailer;
        const char *why = NULL;

        size_t want = TSYNC_FILTER_HEADER_SIZE + 8 * NOTIFY_LEN + 48; /* 34 + 9 bytes, padded to 48 */
        long n = tsync_filter_encode_agent(notify_prog, NOTIFY_LEN, 0, &agent, buf.b, sizeof(buf.b));
        int r = n > 0 ? tsync_filter_decode(buf.b, (size_t)n, NULL, NULL, NULL, &listener, &why) : (int)n;
        int ra = n > 0 ? tsync_filter_decode_agent(buf.b, (size_t)n, &got) : (int)n;
        memcpy(&trailer, buf.b + 28, 4);
        tap_ok(n == (long)want && tsync_filter_file_size(NOTIFY_LEN, &agent) == want && r == 0 && ra == 0 &&
                       listener == TSYNC_LISTENER_AGENT && trailer == 48 && got.path &&
                       strcmp(got.path, agent.path) == 0 && got.metadata && strcmp(got.metadata, agent.metadata) == 0,
               "test_filterfile_agent_round_trip: n=%ld r=%d ra=%d trailer=%u why=%s", n, r, ra, trailer,
               why ? why : "-");
        const unsigned char *t = buf.b + TSYNC_FILTER_HEADER_SIZE + 8 * NOTIFY_LEN;
        tap_ok(memcmp(t, "/.oci-seccomp-tsync/agents/1.sock\0meta \"x\"\0\0\0\0\0\0", 48) == 0,
               "test_filterfile_agent_trailer_bytes");
        tap_ok(ref_checksum(buf.b, want) == *(const uint32_t *)(const void *)(buf.b + 20),
               "test_filterfile_agent_checksum_covers_the_trailer");

        size_t accepted = 0;
        for (size_t pos = want - 48; pos < want; pos++) {
                memcpy(copy.b, buf.b, want);
                copy.b[pos] ^= 0x20;
                if (decode(copy.b, want, &why) >= 0)
                        accepted++;
        }
        tap_ok(accepted == 0, "test_filterfile_agent_refuses_every_trailer_byte_change: %zu accepted", accepted);

        const struct tsync_filter_agent empty_meta = { "/a.sock", "" };
        n = tsync_filter_encode_agent(notify_prog, NOTIFY_LEN, 0, &empty_meta, buf.b, sizeof(buf.b));
        ra = n > 0 ? tsync_filter_decode_agent(buf.b, (size_t)n, &got) : (int)n;
        tap_ok(n == (long)(TSYNC_FILTER_HEADER_SIZE + 8 * NOTIFY_LEN + 16) && ra == 0 && strcmp(got.metadata, "") == 0,
               "test_filterfile_agent_empty_metadata: n=%ld ra=%d", n, ra);

        /* Bytes written in place of the trailer, resealed. */
        static const struct {
                const char *name;
                const char bytes[24];
                size_t len;
                const char *why;
        } cases[] = {
                { "path_unterminated", "/abcdefgh", 8, "trailer: the agent's path is not terminated" },
                { "path_relative", "a.sock\0m\0", 8, "trailer: the agent's path is not absolute" },
                { "path_empty", "\0m\0", 8, "trailer: the agent's path is not absolute" },
                { "metadata_unterminated", "/a\0metada", 8, "trailer: the metadata is not terminated" },
                { "padding_not_zero", "/a\0m\0\0x", 8, "trailer: padding is not zero" },
                { "third_string", "/a\0m\0\0\0\0\0\0\0\0\0\0\0", 16,
                  "trailer: more than the padding after the metadata" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                size_t size = TSYNC_FILTER_HEADER_SIZE + 8 * NOTIFY_LEN + cases[i].len;
                (void)tsync_filter_encode_agent(notify_prog, NOTIFY_LEN, 0, &empty_meta, buf.b, sizeof(buf.b));
                memcpy(buf.b + TSYNC_FILTER_HEADER_SIZE + 8 * NOTIFY_LEN, cases[i].bytes, cases[i].len);
                put32(buf.b, 28, (uint32_t)cases[i].len);
                reseal(buf.b, size);
                r = decode(buf.b, size, &why);
                tap_ok(r == -EBADMSG && why && strcmp(why, cases[i].why) == 0,
                       "test_filterfile_agent_refuses_%s: r=%d why=%s", cases[i].name, r, why ? why : "-");
        }

        /* A path of 108 bytes does not fit sun_path with its NUL. */
        char path[TSYNC_FILTER_MAX_AGENT_PATH + 2];
        memset(path, 'p', sizeof(path) - 1);
        path[0] = '/';
        path[sizeof(path) - 1] = '\0';
        const struct tsync_filter_agent long_path = { path, "" };
        const struct tsync_filter_agent relative = { "run/agent.sock", "" };
        tap_ok(tsync_filter_encode_agent(notify_prog, NOTIFY_LEN, 0, &long_path, buf.b, sizeof(buf.b)) == -EINVAL &&
                       tsync_filter_encode_agent(notify_prog, NOTIFY_LEN, 0, &relative, buf.b, sizeof(buf.b)) ==
                               -EINVAL,
               "test_filterfile_agent_encode_refuses_long_or_relative_path");
        path[sizeof(path) - 2] = '\0';
        tap_ok(tsync_filter_encode_agent(notify_prog, NOTIFY_LEN, 0, &long_path, buf.b, sizeof(buf.b)) > 0,
               "test_filterfile_agent_encode_takes_a_107_byte_path");
        static char meta[TSYNC_FILTER_MAX_TRAILER];
        memset(meta, 'm', sizeof(meta) - 1);
        const struct tsync_filter_agent big = { "/a", meta };
        tap_ok(tsync_filter_encode_agent(notify_prog, NOTIFY_LEN, 0, &big, buf.b, sizeof(buf.b)) == -EINVAL,
               "test_filterfile_agent_encode_refuses_a_trailer_over_the_limit");
        tap_ok(tsync_filter_encode(notify_prog, NOTIFY_LEN, 0, TSYNC_LISTENER_AGENT, buf.b, sizeof(buf.b)) == -EINVAL &&
                       tsync_filter_encode_agent(test_prog, TEST_LEN, 0, &agent, buf.b, sizeof(buf.b)) == -EINVAL,
               "test_filterfile_agent_encode_refuses_agent_listener_without_trailer_or_user_notif");
        n = tsync_filter_encode(notify_prog, NOTIFY_LEN, 0, TSYNC_LISTENER_EXEC_ONCE, buf.b, sizeof(buf.b));
        tap_ok(n > 0 && tsync_filter_decode_agent(buf.b, (size_t)n, &got) == -ENOENT,
               "test_filterfile_decode_agent_of_another_listener_is_enoent");
}

/* What comes out of decode is a program the kernel accepts and runs. */
static void test_filterfile_decoded_program_loads(void)
{
        const struct sock_filter *prog;
        size_t len;
        uint32_t flags;
        const char *why;

        long n = tsync_filter_encode(test_prog, TEST_LEN, 0, 0, buf.b, sizeof(buf.b));
        if (n < 0 || tsync_filter_decode(buf.b, (size_t)n, &prog, &len, &flags, NULL, &why) < 0) {
                tap_ok(0, "test_filterfile_decoded_program_loads: round trip failed");
                return;
        }
        pid_t pid = fork();
        if (pid == 0) {
                struct sock_fprog fprog = { .len = (unsigned short)len, .filter = (struct sock_filter *)prog };
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                        _exit(2);
                if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fprog) < 0)
                        _exit(3);
                long ppid = syscall(SYS_getppid);
                _exit(ppid == -1 && errno == TEST_ERRNO ? 0 : 4);
        }
        int status = 0;
        (void)waitpid(pid, &status, 0);
        tap_ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
               "test_filterfile_decoded_program_loads: child status %#x", status);
}

int main(void)
{
        test_filterfile_round_trip();
        test_filterfile_encode_refuses();
        test_filterfile_refuses_every_byte_change();
        test_filterfile_refuses_truncation_and_extra();
        test_filterfile_refusal_reasons();
        test_filterfile_decoded_program_loads();
        test_filterfile_listener();
        test_filterfile_agent_trailer();
        return tap_done();
}
