/* tsync_json_parse against yajl's parser as util/json.c drove it before
 * (json_yajl.c): every JSON file of the tree, documents made for the corners,
 * and each file cut short at every byte and changed byte by byte. The same
 * trees (values and the offsets the exec view splices at) and the same
 * refusals, but for \f and \v between tokens, which yajl skipped and Go's
 * encoding/json (the runtimes') refuses as we do now. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_yajl.h"
#include "shared/cleanup.h"
#include "tap.h"
#include "unit.h"
#include "util/fileio.h"
#include "util/json.h"

static const struct {
        const char *name, *text;
} corners[] = {
        { "scalars", "[null,true,false,0,-0,1.5,-1e10,2E+3,3e-0,123456789012345678901234567890,\"\"]" },
        { "escapes", "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\",\"\\u0041\\u00e9\\u20ac\\ud83d\\ude00\"]" },
        { "nul_escape", "[\"a\\u0000b\"]" },
        { "nul_in_key", "{\"a\\u0000\":1}" },
        { "lone_high", "[\"\\ud800\"]" },
        { "lone_high_then_char", "[\"\\ud800x\"]" },
        { "lone_low", "[\"\\udc00\"]" },
        { "high_high", "[\"\\ud800\\ud800\"]" },
        { "high_then_escape", "[\"\\ud800\\n\"]" },
        { "high_then_bmp", "[\"\\ud800\\u0041\"]" },
        { "surrogate_key", "{\"\\udfff\":1}" },
        { "bad_hex", "[\"\\u12g4\"]" },
        { "short_hex", "[\"\\u12\"]" },
        { "bad_escape", "[\"\\x\"]" },
        { "escaped_control", "[\"\\\x01\"]" },
        { "utf8", "[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]" },
        { "utf8_bad", "[\"\xc3\"]" },
        { "utf8_overlong", "[\"\xe0\x80\xaf\"]" },
        { "utf8_above", "[\"\xf4\x90\x80\x80\"]" },
        { "utf8_outside", "[1]\xc3\xa9" },
        { "bom", "\xef\xbb\xbf[]" },
        { "form_feed", "[1,\f2]" },
        { "vertical_tab", "{\v}" },
        { "spaces", " \t\r\n{ \"a\" : [ 1 , 2 ] } \n" },
        { "numbers_bad", "[01]" },
        { "minus_alone", "[-]" },
        { "dot_alone", "[1.]" },
        { "exp_alone", "[1e]" },
        { "exp_sign_alone", "[1e+]" },
        { "leading_dot", "[.5]" },
        { "plus", "[+1]" },
        { "hex_number", "[0x10]" },
        { "number_then_letter", "[1a]" },
        { "top_number", "42" },
        { "top_string", "\"s\"" },
        { "top_literal_cut", "nul" },
        { "literal_wrong", "[trUe]" },
        { "duplicate", "{\"a\":1,\"b\":2,\"a\":3}" },
        { "duplicate_deep", "{\"x\":[{\"a\":1,\"a\":1}]}" },
        { "empty_key", "{\"\":1}" },
        { "empties", "[{},[],{\"a\":{}},[[]]]" },
        { "missing_colon", "{\"a\" 1}" },
        { "missing_value", "{\"a\":}" },
        { "missing_comma", "[1 2]" },
        { "leading_comma", "[,1]" },
        { "double_comma", "[1,,2]" },
        { "key_not_string", "{1:2}" },
        { "trailing", "{} {}" },
        { "comment", "[1 // c\n]" },
        { "raw_tab", "[\"a\tb\"]" },
        { "raw_del", "[\"a\x7f\"]" },
        { "deep", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]" },
        { "deeper", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]" },
        { "unclosed", "{\"a\":[1,{\"b\":" },
        { "backslash_end", "[\"\\" },
        { "escaped_quote_end", "[\"\\\"]" },
};

static void test_json_yajl_corners(void)
{
        for (size_t i = 0; i < ARRAY_SIZE(corners); i++) {
                char why[512] = "";
                const char *t = corners[i].text;
                tap_ok(json_parsers_agree(t, strlen(t), 0, why, sizeof(why)), "test_json_yajl_%s: %s", corners[i].name,
                       why);
        }
        /* NUL bytes in the text, which strlen would hide. */
        static const char nul_in_string[] = "[\"a\0b\"]", nul_outside[] = "[1,\0 2]";
        char why[512] = "";
        tap_ok(json_parsers_agree(nul_in_string, sizeof(nul_in_string) - 1, 0, why, sizeof(why)),
               "test_json_yajl_raw_nul_in_string: %s", why);
        tap_ok(json_parsers_agree(nul_outside, sizeof(nul_outside) - 1, 0, why, sizeof(why)),
               "test_json_yajl_raw_nul_outside: %s", why);
        /* A depth limit: one under, at and over it. */
        tap_ok(json_parsers_agree("[[[1]]]", 7, 3, why, sizeof(why)) &&
                       json_parsers_agree("[[[1]]]", 7, 2, why, sizeof(why)),
               "test_json_yajl_depth_limit: %s", why);
}

/* The refusals the two differ on are ours alone: yajl's \f and \v. */
static void test_json_yajl_white_space(void)
{
        struct tsync_err err = { 0 };
        _cleanup_json_ struct tsync_json *ours = NULL, *theirs = NULL;
        int r = tsync_json_parse("[1,\f2]", 6, NULL, &ours, &err);
        int o = json_yajl_parse("[1,\f2]", 6, 0, &theirs);
        tap_ok(r == -EINVAL && strstr(err.msg, "[1]: invalid JSON at byte 4: invalid character") && o == 0,
               "test_json_yajl_form_feed_is_not_white_space: %d %s, yajl %d", r, err.msg, o);
}

/* Every prefix of text, every byte of it changed to each of a few bytes that
 * matter to a JSON lexer, and removed. */
static size_t mutations_disagreeing(const char *text, size_t len, char *why, size_t size)
{
        static const char bytes[] = { '"',    '\\',   '{',        '}',        '[',        ']',       ',',  ':',
                                      '0',    '-',    'e',        '.',        'u',        ' ',       '\f', '\0',
                                      '\x01', '\x7f', (char)0x80, (char)0xc3, (char)0xed, (char)0xff };
        _cleanup_free_ char *m = malloc(len + 1);
        size_t bad = 0;
        if (!m)
                return 1;
        for (size_t cut = 0; cut < len; cut++)
                bad += !json_parsers_agree(text, cut, 0, why, size);
        for (size_t at = 0; at < len; at++) {
                for (size_t b = 0; b < sizeof(bytes); b++) {
                        memcpy(m, text, len);
                        m[at] = bytes[b];
                        bad += !json_parsers_agree(m, len, 0, why, size);
                }
                memcpy(m, text, at);
                memcpy(m + at, text + at + 1, len - at - 1);
                bad += !json_parsers_agree(m, len - 1, 0, why, size);
        }
        return bad;
}

static void test_json_yajl_mutations(void)
{
        for (size_t i = 0; i < ARRAY_SIZE(corners); i++) {
                char why[512] = "";
                size_t bad = mutations_disagreeing(corners[i].text, strlen(corners[i].text), why, sizeof(why));
                tap_ok(bad == 0, "test_json_yajl_mutations_of_%s: %zu disagree, the last: %s", corners[i].name, bad,
                       why);
        }
}

/* A JSON file of the tree: agreed on whole; the small ones (most fixtures)
 * mutated too. */
static void check_file(const char *path, void *ctx)
{
        (void)ctx;
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        struct tsync_err err = { 0 };
        if (tsync_read_file_at(AT_FDCWD, path, path, 0, TSYNC_CONFIG_MAX_BYTES, &text, &len, NULL, &err) < 0) {
                tap_ok(0, "test_json_yajl_file %s: %s", path, err.msg);
                return;
        }
        char why[512] = "";
        bool same = json_parsers_agree(text, len, 0, why, sizeof(why));
        size_t bad = len <= 600 ? mutations_disagreeing(text, len, why, sizeof(why)) : 0;
        tap_ok(same && bad == 0, "test_json_yajl_file %s%s: %zu mutations disagree: %s", path,
               len <= 600 ? " and its mutations" : "", bad, why);
}

static void test_json_yajl_files_of_the_tree(void)
{
        size_t n = unit_each_tree_json(check_file, NULL);
        tap_ok(n >= 10, "test_json_yajl_found_the_trees_json_files: %zu", n);
}

int main(void)
{
        test_json_yajl_corners();
        test_json_yajl_white_space();
        test_json_yajl_mutations();
        test_json_yajl_files_of_the_tree();
        return tap_done();
}
