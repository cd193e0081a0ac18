/* Base64 (RFC 4648, section 4). Compiled into the static init as well as the
 * library: libc only, no heap, no state. Decoding is strict so that one filter
 * has exactly one spelling on the init's command line: what the init accepts
 * is precisely what tsync_base64_encode writes. */
#include "shared/base64.h"

#include <errno.h>
#include <stdint.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t tsync_base64_encoded_len(size_t n)
{
        return (n + 2) / 3 * 4;
}

void tsync_base64_encode(const void *in, size_t n, char *out)
{
        const unsigned char *p = in;
        size_t i = 0;

        for (; i + 3 <= n; i += 3) {
                uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
                *out++ = alphabet[v >> 18];
                *out++ = alphabet[v >> 12 & 63];
                *out++ = alphabet[v >> 6 & 63];
                *out++ = alphabet[v & 63];
        }
        if (n - i == 1) {
                uint32_t v = (uint32_t)p[i] << 16;
                *out++ = alphabet[v >> 18];
                *out++ = alphabet[v >> 12 & 63];
                *out++ = '=';
                *out++ = '=';
        } else if (n - i == 2) {
                uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
                *out++ = alphabet[v >> 18];
                *out++ = alphabet[v >> 12 & 63];
                *out++ = alphabet[v >> 6 & 63];
                *out++ = '=';
        }
        *out = '\0';
}

/* The character's 6 bits, or -1 outside the alphabet ('=' included). A switch
 * on ranges rather than a 256-entry table: no locale, no signed-char pitfalls. */
static int sextet(char c)
{
        if (c >= 'A' && c <= 'Z')
                return c - 'A';
        if (c >= 'a' && c <= 'z')
                return c - 'a' + 26;
        if (c >= '0' && c <= '9')
                return c - '0' + 52;
        if (c == '+')
                return 62;
        if (c == '/')
                return 63;
        return -1;
}

/* Checks the whole text before a byte is written, so that text which is not
 * base64 is -EINVAL whatever its length, and -ENOSPC means only "too big".
 * Sets *ret_len (the text's length) and *ret_pad (0, 1 or 2 '='). */
static int check(const char *text, size_t *ret_len, size_t *ret_pad)
{
        size_t len = 0, pad = 0;

        for (; text[len]; len++) {
                if (text[len] == '=') {
                        pad++;
                        continue;
                }
                /* Nothing but '=' may follow the first '='. */
                if (pad > 0 || sextet(text[len]) < 0)
                        return -EINVAL;
        }
        if (len % 4 != 0 || pad > 2)
                return -EINVAL;
        if (pad > 0) {
                /* The bits after the last byte must be zero: 4 of the
                 * quantum's second character ("xx=="), 2 of its third ("xxx="). */
                int last = sextet(text[len - pad - 1]);
                if ((pad == 2 && (last & 15) != 0) || (pad == 1 && (last & 3) != 0))
                        return -EINVAL;
        }
        *ret_len = len;
        *ret_pad = pad;
        return 0;
}

long tsync_base64_decode(const char *text, void *out, size_t size)
{
        unsigned char *o = out;
        size_t len, pad;

        if (check(text, &len, &pad) < 0)
                return -EINVAL;
        size_t n = len / 4 * 3 - pad;
        if (n > size)
                return -ENOSPC;
        for (size_t i = 0, j = 0; i < len; i += 4) {
                uint32_t v = 0;
                for (size_t k = 0; k < 4; k++)
                        v = v << 6 | (text[i + k] == '=' ? 0u : (uint32_t)sextet(text[i + k]));
                o[j++] = (unsigned char)(v >> 16);
                if (j < n)
                        o[j++] = (unsigned char)(v >> 8);
                if (j < n)
                        o[j++] = (unsigned char)v;
        }
        return (long)n;
}
