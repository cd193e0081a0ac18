/* Escaping a container's text: every byte outside printable ASCII and the
 * backslash become \xNN, the result is one line, it reads back to the bytes
 * it came from, and a short buffer never holds half an escape. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "util/quote.h"

/* The escaped text read back: the inverse a reader of our output applies. */
static size_t unescape(const char *s, char *out)
{
        size_t n = 0;
        while (*s) {
                if (s[0] == '\\' && s[1] == 'x') {
                        unsigned v;
                        if (sscanf(s + 2, "%2x", &v) != 1)
                                return (size_t)-1;
                        out[n++] = (char)v;
                        s += 4;
                } else {
                        out[n++] = *s++;
                }
        }
        return n;
}

static void test_quote_every_byte_reads_back_and_stays_one_line(void)
{
        char src[256], out[TSYNC_QUOTED_MAX(256) + 1], back[256];
        for (int i = 0; i < 256; i++)
                src[i] = (char)i;
        size_t need = tsync_quote(out, sizeof(out), src, sizeof(src));
        tap_ok(need == strlen(out), "the length returned is the length written (%zu)", need);
        bool printable = true;
        for (const char *p = out; *p; p++)
                if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
                        printable = false;
        tap_ok(printable, "only printable ASCII comes out (no newline, no ESC, no byte above 0x7e)");
        tap_ok(unescape(out, back) == 256 && memcmp(back, src, 256) == 0,
               "the escaped text reads back to all 256 bytes");
}

static void test_quote_plain_text_is_unchanged(void)
{
        char out[64];
        (void)tsync_quote(out, sizeof(out), "/usr/bin/sleep 1", 16);
        tap_ok(strcmp(out, "/usr/bin/sleep 1") == 0, "plain text stays as it was: '%s'", out);
}

static void test_quote_forged_line_and_terminal_sequence(void)
{
        char *s = tsync_quote_dup("init\nPID 1  protected\x1b[2K\\");
        tap_ok(s && strcmp(s, "init\\x0aPID 1  protected\\x1b[2K\\x5c") == 0,
               "newline, ESC and backslash escaped: '%s'", s ? s : "(null)");
        free(s);
}

static void test_quote_short_buffer_holds_no_half_escape(void)
{
        char out[6];
        size_t need = tsync_quote(out, sizeof(out), "ab\ncd", 5);
        tap_ok(need == 8, "the whole text would need 8 bytes (%zu)", need);
        tap_ok(strcmp(out, "ab") == 0, "what fits is whole escapes only: '%s'", out);
}

int main(void)
{
        test_quote_every_byte_reads_back_and_stays_one_line();
        test_quote_plain_text_is_unchanged();
        test_quote_forged_line_and_terminal_sequence();
        test_quote_short_buffer_holds_no_half_escape();
        return tap_done();
}
