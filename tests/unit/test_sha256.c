/* SHA-256 against the FIPS 180-4 / NIST example vectors, then against
 * coreutils' sha256sum on random data of lengths around the block boundaries,
 * then the CPU's SHA instructions (where used) against the portable rounds. */
#include <errno.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "util/sha256.h"

static void hex_of(const unsigned char md[32], char out[65])
{
        for (unsigned i = 0; i < 32; i++)
                (void)snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static void test_sha256_vectors(void)
{
        static const struct {
                const char *msg;
                const char *hex;
        } v[] = {
                { "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
                { "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
                { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
                { "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnop"
                  "qrstnopqrstu",
                  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
        };
        char out[65];

        for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
                tsync_sha256_hex(v[i].msg, strlen(v[i].msg), out);
                tap_ok(strcmp(out, v[i].hex) == 0, "test_sha256_vector_%zu (%zu bytes): %s", i, strlen(v[i].msg), out);
        }
}

/* One million 'a', fed in uneven pieces so the buffering is exercised too. */
static void test_sha256_million_a(void)
{
        static const char expect[] = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
        struct tsync_sha256 s;
        unsigned char md[32];
        char chunk[1000], out[65];
        size_t done = 0, step = 1;

        memset(chunk, 'a', sizeof(chunk));
        tsync_sha256_init(&s);
        while (done < 1000000) {
                size_t n = step;
                if (n > 1000000 - done)
                        n = 1000000 - done;
                tsync_sha256_update(&s, chunk, n);
                done += n;
                step = step % 987 + 13; /* 1, 14, 27, ... : crosses block edges at every offset */
        }
        tsync_sha256_final(&s, md);
        hex_of(md, out);
        tap_ok(strcmp(out, expect) == 0, "test_sha256_million_a: %s", out);

        char *big = malloc(1000000);
        if (!big) {
                tap_ok(0, "test_sha256_million_a_one_shot: malloc");
                return;
        }
        memset(big, 'a', 1000000);
        tsync_sha256_hex(big, 1000000, out);
        free(big);
        tap_ok(strcmp(out, expect) == 0, "test_sha256_million_a_one_shot: %s", out);
}

/* sha256sum of buf[0..len), via a temp file. Returns 0 and fills out[65]. */
static int sha256sum_of(const unsigned char *buf, size_t len, char out[65])
{
        char path[] = "/tmp/test_sha256.XXXXXX", cmd[128];
        int fd = mkostemp(path, O_CLOEXEC);
        int r = -1;

        if (fd < 0)
                return -1;
        if (write(fd, buf, len) != (ssize_t)len) {
                (void)close(fd);
                goto out;
        }
        (void)close(fd);
        (void)snprintf(cmd, sizeof(cmd), "sha256sum < %s", path);
        FILE *f = popen(cmd, "r");
        if (!f)
                goto out;
        if (fscanf(f, "%64s", out) == 1 && strlen(out) == 64)
                r = 0;
        if (pclose(f) != 0)
                r = -1;
out:
        (void)unlink(path);
        return r;
}

static void test_sha256_matches_sha256sum(void)
{
        static const size_t lens[] = { 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 65536 + 7 };
        size_t max = 65536 + 7;
        unsigned char *buf = malloc(max);
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

        if (!buf || fd < 0 || read(fd, buf, max) != (ssize_t)max) {
                tap_ok(0, "test_sha256_matches_sha256sum: cannot read /dev/urandom: %s", strerror(errno));
                free(buf);
                if (fd >= 0)
                        (void)close(fd);
                return;
        }
        (void)close(fd);

        for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
                char ours[65], theirs[65] = "";
                struct tsync_sha256 s;
                unsigned char md[32];
                char split[65];

                tsync_sha256_hex(buf, lens[i], ours);
                int r = sha256sum_of(buf, lens[i], theirs);
                tap_ok(r == 0 && strcmp(ours, theirs) == 0,
                       "test_sha256_matches_sha256sum (%zu random bytes): ours %s, sha256sum %s", lens[i], ours,
                       r == 0 ? theirs : "(failed to run)");

                /* Same data in two updates split in the middle: same digest. */
                tsync_sha256_init(&s);
                tsync_sha256_update(&s, buf, lens[i] / 2);
                tsync_sha256_update(&s, buf + lens[i] / 2, lens[i] - lens[i] / 2);
                tsync_sha256_final(&s, md);
                hex_of(md, split);
                tap_ok(strcmp(split, ours) == 0, "test_sha256_split_update (%zu bytes)", lens[i]);
        }
        free(buf);
}

/* The fast path (the CPU's SHA instructions) and the portable rounds agree
 * on random messages of every length up to a few blocks, fed whole and in
 * pieces; where the CPU has them (CPUID), the fast path is the one taken, so
 * that this compares two implementations. */
static void test_sha256_fast_path_matches_portable(void)
{
        bool sha = false;
#if defined(__x86_64__)
        /* The CPU as this program sees it (valgrind's own CPUID has no SHA). */
        unsigned eax, ebx, ecx, edx;
        bool sse41 = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_SSE4_1);
        sha = sse41 && __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & bit_SHA);
#endif
#if defined(__x86_64__) && defined(__GLIBC__)
        tap_ok(tsync_sha256_accelerated() == sha, "test_sha256_fast_path_taken_where_the_cpu_has_it (SHA %s)",
               sha ? "yes: the two paths compared below" : "no: the portable rounds alone");
#else
        tap_ok(!tsync_sha256_accelerated(), "test_sha256_portable_alone_off_x86_64_glibc (SHA %s)", sha ? "yes" : "no");
#endif
        unsigned char msg[300];
        unsigned seed = 12345;
        size_t bad = 0;
        for (size_t len = 0; len <= sizeof(msg); len++) {
                for (size_t i = 0; i < len; i++)
                        msg[i] = (unsigned char)((seed = seed * 1103515245u + 12345u) >> 16);
                struct tsync_sha256 fast, slow, pieces;
                unsigned char a[32], b[32], c[32];
                tsync_sha256_init(&fast);
                tsync_sha256_init_portable(&slow);
                tsync_sha256_init(&pieces);
                tsync_sha256_update(&fast, msg, len);
                tsync_sha256_update(&slow, msg, len);
                for (size_t at = 0; at < len; at += 7)
                        tsync_sha256_update(&pieces, msg + at, len - at < 7 ? len - at : 7);
                tsync_sha256_final(&fast, a);
                tsync_sha256_final(&slow, b);
                tsync_sha256_final(&pieces, c);
                if (memcmp(a, b, 32) != 0 || memcmp(a, c, 32) != 0)
                        bad++;
        }
        tap_ok(bad == 0, "test_sha256_fast_path_matches_portable: %zu of %zu lengths differ", bad, sizeof(msg) + 1);

        /* The portable rounds alone still give the NIST digest. */
        static const char abc[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        struct tsync_sha256 s;
        unsigned char md[32];
        char out[65];
        tsync_sha256_init_portable(&s);
        tsync_sha256_update(&s, "abc", 3);
        tsync_sha256_final(&s, md);
        hex_of(md, out);
        tap_ok(strcmp(out, abc) == 0, "test_sha256_portable_vector_abc: %s", out);
}

int main(void)
{
        test_sha256_vectors();
        test_sha256_million_a();
        test_sha256_matches_sha256sum();
        test_sha256_fast_path_matches_portable();
        return tap_done();
}
