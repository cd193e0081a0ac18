#include "util/quote.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool plain(unsigned char c)
{
        return c >= 0x20 && c <= 0x7e && c != '\\';
}

size_t tsync_quote(char *dst, size_t size, const char *src, size_t len)
{
        static const char hex[] = "0123456789abcdef";
        size_t need = 0, at = 0;
        bool full = size == 0;
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)src[i];
                char piece[4] = { c };
                size_t n = 1;
                if (!plain(c)) {
                        piece[0] = '\\';
                        piece[1] = 'x';
                        piece[2] = hex[c >> 4];
                        piece[3] = hex[c & 0xf];
                        n = 4;
                }
                need += n;
                if (!full && at + n < size) {
                        memcpy(dst + at, piece, n);
                        at += n;
                } else {
                        full = true;
                }
        }
        if (size > 0)
                dst[at] = '\0';
        return need;
}

char *tsync_quote_dup(const char *src)
{
        if (!src)
                src = "";
        size_t len = strlen(src);
        size_t need = tsync_quote(NULL, 0, src, len);
        char *out = malloc(need + 1);
        if (out)
                (void)tsync_quote(out, need + 1, src, len);
        return out;
}
