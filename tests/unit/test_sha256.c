/* SHA-256 against the FIPS 180-4 / NIST example vectors, then against
 * coreutils' sha256sum on random data of lengths around the block boundaries. */
#include <errno.h>
#include <fcntl.h>
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

int main(void)
{
        test_sha256_vectors();
        test_sha256_million_a();
        test_sha256_matches_sha256sum();
        return tap_done();
}
