/* SHA-256 as specified in FIPS 180-4, with no dependency (no OpenSSL). It
 * keys the filter cache and checks each entry read: every hook and wrapper
 * start hashes the runtime's profile and the entries it loads (about 25 KB
 * for Podman's), so where the CPU has the SHA extensions (x86-64: told by
 * glibc's own CPU feature record, or under musl, which keeps none, by three
 * CPUIDs once a process) the blocks go through them, about twenty times
 * fewer instructions; the portable rounds stay the reference, which
 * tests/unit/test_sha256.c holds both to. */
#include "util/sha256.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define SHA256_NI 1
#ifdef __GLIBC__
#include <sys/platform/x86.h>
#else
#include <cpuid.h>
#include <stdatomic.h>
#endif
#endif

static const uint32_t K[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t ror(uint32_t x, unsigned n)
{
        return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t h[8], const unsigned char block[64])
{
        uint32_t w[64];
        uint32_t a, b, c, d, e, f, g, hh;

        /* The message is big-endian regardless of the host. */
        for (unsigned i = 0; i < 16; i++)
                w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
                       (uint32_t)block[4 * i + 2] << 8 | (uint32_t)block[4 * i + 3];
        for (unsigned i = 16; i < 64; i++) {
                uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
                uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
                w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }

        a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
        for (unsigned i = 0; i < 64; i++) {
                uint32_t S1 = ror(e, 6) ^ ror(e, 11) ^ ror(e, 25);
                uint32_t ch = (e & f) ^ (~e & g);
                uint32_t t1 = hh + S1 + ch + K[i] + w[i];
                uint32_t S0 = ror(a, 2) ^ ror(a, 13) ^ ror(a, 22);
                uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
                uint32_t t2 = S0 + maj;
                hh = g;
                g = f;
                f = e;
                e = d + t1;
                d = c;
                c = b;
                b = a;
                a = t1 + t2;
        }
        h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

#ifdef SHA256_NI
/* The 64 rounds of one block, four at a time: sha256rnds2 does two rounds on
 * the state held as ABEF and CDGH, sha256msg1/msg2 extend the schedule. */
__attribute__((target("sha,sse4.1"))) static void compress_ni(uint32_t h[8], const unsigned char block[64])
{
        const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
        __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1);    /* CDAB */
        __m128i state1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B); /* EFGH */
        __m128i state0 = _mm_alignr_epi8(tmp, state1, 8);                                  /* ABEF */
        state1 = _mm_blend_epi16(state1, tmp, 0xF0);                                       /* CDGH */
        const __m128i abef = state0, cdgh = state1;
        __m128i msg[4];

        for (unsigned i = 0; i < 16; i++) {
                __m128i w;
                if (i < 4) {
                        w = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 16 * i)), bswap);
                } else {
                        /* W[t..t+3] from W[t-16..t-1], held as msg[(i-4)&3] .. msg[(i-1)&3]. */
                        __m128i x = _mm_sha256msg1_epu32(msg[(i - 4) & 3], msg[(i - 3) & 3]);
                        x = _mm_add_epi32(x, _mm_alignr_epi8(msg[(i - 1) & 3], msg[(i - 2) & 3], 4));
                        w = _mm_sha256msg2_epu32(x, msg[(i - 1) & 3]);
                }
                msg[i & 3] = w;
                __m128i kw = _mm_add_epi32(w, _mm_loadu_si128((const __m128i *)&K[4 * i]));
                state1 = _mm_sha256rnds2_epu32(state1, state0, kw);
                state0 = _mm_sha256rnds2_epu32(state0, state1, _mm_shuffle_epi32(kw, 0x0E));
        }
        state0 = _mm_add_epi32(state0, abef);
        state1 = _mm_add_epi32(state1, cdgh);

        tmp = _mm_shuffle_epi32(state0, 0x1B);       /* FEBA */
        state1 = _mm_shuffle_epi32(state1, 0xB1);    /* DCHG */
        state0 = _mm_blend_epi16(tmp, state1, 0xF0); /* DCBA */
        state1 = _mm_alignr_epi8(state1, tmp, 8);    /* HGFE */
        _mm_storeu_si128((__m128i *)&h[0], state0);
        _mm_storeu_si128((__m128i *)&h[4], state1);
}
#endif

bool tsync_sha256_accelerated(void)
{
#if defined(SHA256_NI) && defined(__GLIBC__)
        return CPU_FEATURE_ACTIVE(SHA) && CPU_FEATURE_ACTIVE(SSE4_1);
#elif defined(SHA256_NI)
        /* A fact of the machine, asked once a process: each CPUID is a VM exit
         * (about 6 us here), and a start hashes several times. 0: not asked yet,
         * 1: no, 2: yes; threads that race ask alike and store the same. */
        static atomic_int known;
        int k = atomic_load_explicit(&known, memory_order_relaxed);
        if (k == 0) {
                unsigned a, b, c, d;
                bool yes = false;
                if (__get_cpuid_max(0, NULL) >= 7) {
                        __cpuid(1, a, b, c, d);
                        yes = c & bit_SSE4_1;
                        __cpuid_count(7, 0, a, b, c, d);
                        yes = yes && (b & bit_SHA);
                }
                k = yes ? 2 : 1;
                atomic_store_explicit(&known, k, memory_order_relaxed);
        }
        return k == 2;
#else
        return false;
#endif
}

/* One block into s->h, by the path tsync_sha256_init chose. */
static void compress_block(struct tsync_sha256 *s, const unsigned char block[64])
{
#ifdef SHA256_NI
        if (s->fast) {
                compress_ni(s->h, block);
                return;
        }
#endif
        compress(s->h, block);
}

void tsync_sha256_init_portable(struct tsync_sha256 *s)
{
        tsync_sha256_init(s);
        s->fast = false;
}

void tsync_sha256_init(struct tsync_sha256 *s)
{
        static const uint32_t iv[8] = {
                0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
        };
        memcpy(s->h, iv, sizeof(iv));
        s->total = 0;
        s->used = 0;
        s->fast = tsync_sha256_accelerated();
}

void tsync_sha256_update(struct tsync_sha256 *s, const void *data, size_t len)
{
        const unsigned char *p = data;

        s->total += len;
        if (s->used > 0) {
                size_t n = sizeof(s->buf) - s->used;
                if (n > len)
                        n = len;
                memcpy(s->buf + s->used, p, n);
                s->used += n;
                p += n;
                len -= n;
                if (s->used < sizeof(s->buf))
                        return;
                compress_block(s, s->buf);
                s->used = 0;
        }
        for (; len >= 64; p += 64, len -= 64)
                compress_block(s, p);
        if (len > 0) {
                memcpy(s->buf, p, len);
                s->used = len;
        }
}

void tsync_sha256_final(struct tsync_sha256 *s, unsigned char out[32])
{
        uint64_t bits = s->total * 8;

        /* Padding: 0x80, zeros up to 56 mod 64, then the length in bits, big-endian. */
        s->buf[s->used++] = 0x80;
        if (s->used > 56) {
                memset(s->buf + s->used, 0, sizeof(s->buf) - s->used);
                compress_block(s, s->buf);
                s->used = 0;
        }
        memset(s->buf + s->used, 0, 56 - s->used);
        for (unsigned i = 0; i < 8; i++)
                s->buf[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
        compress_block(s, s->buf);

        for (unsigned i = 0; i < 8; i++) {
                out[4 * i] = (unsigned char)(s->h[i] >> 24);
                out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
                out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
                out[4 * i + 3] = (unsigned char)s->h[i];
        }
        /* Leave no message bytes behind in the caller's struct. */
        memset(s->buf, 0, sizeof(s->buf));
        s->used = 0;
}

void tsync_sha256_hex(const void *data, size_t len, char out[65])
{
        static const char digits[] = "0123456789abcdef";
        struct tsync_sha256 s;
        unsigned char md[32];

        tsync_sha256_init(&s);
        tsync_sha256_update(&s, data, len);
        tsync_sha256_final(&s, md);
        for (unsigned i = 0; i < 32; i++) {
                out[2 * i] = digits[md[i] >> 4];
                out[2 * i + 1] = digits[md[i] & 0xf];
        }
        out[64] = '\0';
}
