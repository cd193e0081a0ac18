/* Base64: RFC 4648's vectors, round trips of every length 0..300 against a
 * bit-by-bit reference encoder, and every refusal of the strict decoder (the
 * init reads filters from its command line through it). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shared/base64.h"
#include "tap.h"

#define MAX_LEN 300

static const char ref_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* RFC 4648 section 4 from its definition, one bit at a time: a different way
 * to the same text than the encoder's 24-bit groups. */
static void ref_encode(const unsigned char *in, size_t n, char *out)
{
        size_t bits = n * 8, o = 0;

        for (size_t b = 0; b < bits; b += 6) {
                unsigned v = 0;
                for (size_t k = 0; k < 6; k++) {
                        size_t at = b + k;
                        unsigned bit = at < bits ? (in[at / 8] >> (7 - at % 8)) & 1u : 0u;
                        v = v << 1 | bit;
                }
                out[o++] = ref_alphabet[v];
        }
        while (o % 4 != 0)
                out[o++] = '=';
        out[o] = '\0';
}

static void test_base64_rfc4648_vectors(void)
{
        static const struct {
                const char *plain, *coded;
        } v[] = {
                { "", "" },
                { "f", "Zg==" },
                { "fo", "Zm8=" },
                { "foo", "Zm9v" },
                { "foob", "Zm9vYg==" },
                { "fooba", "Zm9vYmE=" },
                { "foobar", "Zm9vYmFy" },
        };
        for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
                char enc[16], dec[16];
                size_t n = strlen(v[i].plain);

                memset(enc, 'X', sizeof(enc));
                tsync_base64_encode(v[i].plain, n, enc);
                tap_ok(strcmp(enc, v[i].coded) == 0 && tsync_base64_encoded_len(n) == strlen(v[i].coded),
                       "test_base64_rfc4648_vectors: encode \"%s\" -> \"%s\" (want \"%s\")", v[i].plain, enc,
                       v[i].coded);
                long r = tsync_base64_decode(v[i].coded, dec, sizeof(dec));
                tap_ok(r == (long)n && memcmp(dec, v[i].plain, n) == 0,
                       "test_base64_rfc4648_vectors: decode \"%s\" -> %ld bytes", v[i].coded, r);
        }
}

/* Every length 0..MAX_LEN with random bytes: the encoder agrees with the
 * reference and its own length, decode gives the bytes back with an exact
 * buffer, and one byte less is -ENOSPC with nothing written. */
static void test_base64_round_trips_every_length(void)
{
        static unsigned char in[MAX_LEN], out[MAX_LEN + 8];
        static char enc[MAX_LEN * 2], ref[MAX_LEN * 2];
        int bad = 0;

        srand(4648);
        for (size_t n = 0; n <= MAX_LEN; n++) {
                for (size_t i = 0; i < n; i++)
                        in[i] = (unsigned char)rand();
                tsync_base64_encode(in, n, enc);
                ref_encode(in, n, ref);
                if (strcmp(enc, ref) != 0 || strlen(enc) != tsync_base64_encoded_len(n)) {
                        tap_diag("length %zu: encoded \"%s\", reference \"%s\"", n, enc, ref);
                        bad++;
                        continue;
                }
                memset(out, 0xa5, sizeof(out));
                long r = tsync_base64_decode(enc, out, n);
                if (r != (long)n || memcmp(out, in, n) != 0 || out[n] != 0xa5) {
                        tap_diag("length %zu: decode gave %ld", n, r);
                        bad++;
                }
                if (n > 0) {
                        memset(out, 0xa5, sizeof(out));
                        r = tsync_base64_decode(enc, out, n - 1);
                        if (r != -ENOSPC || out[0] != 0xa5) {
                                tap_diag("length %zu into %zu bytes: %ld, want -ENOSPC and nothing written", n, n - 1,
                                         r);
                                bad++;
                        }
                }
        }
        tap_ok(bad == 0, "test_base64_round_trips_every_length: 0..%d, %d failures", MAX_LEN, bad);
}

static void refuses(const char *text, const char *why)
{
        unsigned char out[64];

        memset(out, 0xa5, sizeof(out));
        long r = tsync_base64_decode(text, out, sizeof(out));
        tap_ok(r == -EINVAL && out[0] == 0xa5, "test_base64_refuses: %s: %ld", why, r);
}

static void test_base64_refuses(void)
{
        refuses("Zm9v\n", "a trailing newline");
        refuses(" Zm9v", "a leading space");
        refuses("Zm9v Yg==", "a space inside");
        refuses("Zm9v\r\nYg==", "a line break inside");
        refuses("Zm9vYg==\t", "a tab after the padding");
        refuses("Zm9", "a length of 3");
        refuses("Zm9vY", "a length of 5");
        refuses("Zg=", "a length of 3 with padding");
        refuses("Zg===", "three padding characters after two");
        refuses("Z===", "three padding characters");
        refuses("====", "padding alone");
        refuses("=Zg=", "padding first");
        refuses("Zm=v", "padding inside a quantum");
        refuses("Zg==Zm9v", "padding before the last quantum");
        refuses("Zg==Zg==", "two padded quanta");
        refuses("Zh==", "non-zero bits after one byte");
        refuses("Zm9=", "non-zero bits after two bytes");
        refuses("Zm/=", "non-zero bits after two bytes ('/')");
        refuses("Zm9-", "the URL-safe '-'");
        refuses("Zm9_", "the URL-safe '_'");
        refuses("Zm9\x80", "a byte over 0x7f");
        refuses("Zm9.", "a '.'");
}

/* Each byte value in the last position of a quantum: accepted exactly when it
 * is one of the 64 characters. */
static void test_base64_accepts_only_the_alphabet(void)
{
        int wrong = 0, accepted = 0;

        for (int c = 1; c < 256; c++) {
                char text[] = { 'Z', 'm', '9', (char)c, '\0' };
                unsigned char out[3];
                long r = tsync_base64_decode(text, out, sizeof(out));
                bool in_alphabet = strchr(ref_alphabet, c) != NULL;
                if (r == 3)
                        accepted++;
                if ((r == 3) != in_alphabet || (r != 3 && r != -EINVAL)) {
                        tap_diag("byte %#x: %ld", (unsigned)c, r);
                        wrong++;
                }
        }
        tap_ok(wrong == 0 && accepted == 64, "test_base64_accepts_only_the_alphabet: %d accepted, %d wrong", accepted,
               wrong);
}

/* Canonical: every text the decoder accepts is exactly what the encoder writes
 * for its bytes, so one filter has one spelling. Random short texts over the
 * alphabet and '=' (short, so that many are accepted). */
static void test_base64_accepts_only_canonical_text(void)
{
        static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";
        int wrong = 0, accepted = 0, refused = 0;

        srand(4686);
        for (int i = 0; i < 200000; i++) {
                char text[13], again[13];
                unsigned char out[9];
                size_t len = (size_t)(rand() % 13);
                for (size_t k = 0; k < len; k++)
                        text[k] = chars[rand() % (int)(sizeof(chars) - 1)];
                text[len] = '\0';
                long r = tsync_base64_decode(text, out, sizeof(out));
                if (r < 0) {
                        refused++;
                        wrong += r != -EINVAL;
                        continue;
                }
                accepted++;
                tsync_base64_encode(out, (size_t)r, again);
                if (strcmp(again, text) != 0) {
                        if (wrong < 5)
                                tap_diag("\"%s\" decodes to %ld bytes that encode as \"%s\"", text, r, again);
                        wrong++;
                }
        }
        tap_ok(wrong == 0 && accepted > 1000 && refused > 1000,
               "test_base64_accepts_only_canonical_text: %d accepted, %d refused, %d wrong", accepted, refused, wrong);
}

/* Text that is not base64 is -EINVAL even when it would not fit: the init
 * names what is wrong, not a size. */
static void test_base64_invalid_before_too_big(void)
{
        unsigned char out[2];
        tap_ok(tsync_base64_decode("Zm9vYmFy!", out, sizeof(out)) == -EINVAL,
               "test_base64_invalid_before_too_big: invalid and too long is -EINVAL");
        tap_ok(tsync_base64_decode("Zm9vYmFy", out, sizeof(out)) == -ENOSPC,
               "test_base64_invalid_before_too_big: valid and too long is -ENOSPC");
        tap_ok(tsync_base64_decode("", out, 0) == 0, "test_base64_invalid_before_too_big: empty text is 0 bytes");
}

int main(void)
{
        test_base64_rfc4648_vectors();
        test_base64_round_trips_every_length();
        test_base64_refuses();
        test_base64_accepts_only_the_alphabet();
        test_base64_accepts_only_canonical_text();
        test_base64_invalid_before_too_big();
        return tap_done();
}
