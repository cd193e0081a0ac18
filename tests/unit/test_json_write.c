/* tsync_json_write writes the text yajl's generator wrote before it, byte for
 * byte, compact and pretty (the files users and engines read, the exec view's
 * splices), checked against yajl's generator itself: every JSON file of the
 * tree and documents made for the corners (control characters, NUL, empty
 * containers, a scalar alone). What it writes, the parser reads back as the
 * same tree. A string that is not valid UTF-8 is refused. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "shared/cleanup.h"
#include "tap.h"
#include "unit.h"
#include "util/json.h"
#include "util/json_build.h"

/* yajl's generator, driven as tsync_json_write drove it. */
static int reference(yajl_gen g, const struct tsync_json *v)
{
        yajl_gen_status s = yajl_gen_status_ok;
        switch (v->type) {
        case TSYNC_JSON_NULL:
                s = yajl_gen_null(g);
                break;
        case TSYNC_JSON_BOOL:
                s = yajl_gen_bool(g, v->u.boolean);
                break;
        case TSYNC_JSON_NUMBER:
                s = yajl_gen_number(g, v->u.number, strlen(v->u.number));
                break;
        case TSYNC_JSON_STRING:
                s = yajl_gen_string(g, (const unsigned char *)v->u.string.ptr, v->u.string.len);
                break;
        case TSYNC_JSON_ARRAY:
                s = yajl_gen_array_open(g);
                for (size_t i = 0; s == yajl_gen_status_ok && i < v->u.array.len; i++)
                        s = reference(g, v->u.array.items[i]) == 0 ? yajl_gen_status_ok : yajl_gen_invalid_string;
                if (s == yajl_gen_status_ok)
                        s = yajl_gen_array_close(g);
                break;
        case TSYNC_JSON_OBJECT:
                s = yajl_gen_map_open(g);
                for (size_t i = 0; s == yajl_gen_status_ok && i < v->u.object.len; i++) {
                        const char *k = v->u.object.keys[i];
                        s = yajl_gen_string(g, (const unsigned char *)k, strlen(k));
                        if (s == yajl_gen_status_ok)
                                s = reference(g, v->u.object.values[i]) == 0 ? yajl_gen_status_ok
                                                                             : yajl_gen_invalid_string;
                }
                if (s == yajl_gen_status_ok)
                        s = yajl_gen_map_close(g);
                break;
        }
        return s == yajl_gen_status_ok ? 0 : -EINVAL;
}

/* 1 when both writers give the same text for v, pretty or not, and it parses back to v. */
static int same_as_yajl(const struct tsync_json *v, bool pretty, char *why, size_t size)
{
        yajl_gen g = yajl_gen_alloc(NULL);
        if (!g)
                return 0;
        (void)yajl_gen_config(g, yajl_gen_beautify, pretty ? 1 : 0);
        (void)yajl_gen_config(g, yajl_gen_validate_utf8, 1);
        const unsigned char *want = NULL;
        size_t want_len = 0;
        int ok = reference(g, v) == 0 && yajl_gen_get_buf(g, &want, &want_len) == yajl_gen_status_ok;
        _cleanup_free_ char *got = NULL;
        size_t got_len = 0;
        struct tsync_err err = { 0 };
        if (ok && tsync_json_write(v, pretty, &got, &got_len, &err) < 0) {
                (void)snprintf(why, size, "refused: %.200s", err.msg);
                ok = 0;
        }
        if (ok && (got_len != want_len || memcmp(got, want, want_len) != 0 || strlen(got) != got_len)) {
                size_t at = 0;
                while (at < got_len && at < want_len && got[at] == (char)want[at])
                        at++;
                (void)snprintf(why, size, "differs at byte %zu of %zu (yajl's %zu)", at, got_len, want_len);
                ok = 0;
        }
        _cleanup_json_ struct tsync_json *back = NULL;
        char path[256] = "";
        if (ok &&
            (tsync_json_parse(got, got_len, NULL, &back, &err) < 0 || !tsync_json_equal(v, back, path, sizeof(path)))) {
                (void)snprintf(why, size, "does not read back: %.200s %.100s", err.msg, path);
                ok = 0;
        }
        yajl_gen_free(g);
        return ok;
}

static void check(const char *name, const struct tsync_json *v)
{
        char why[512] = "";
        tap_ok(same_as_yajl(v, false, why, sizeof(why)), "test_json_write_compact_as_yajl_%s %s", name, why);
        tap_ok(same_as_yajl(v, true, why, sizeof(why)), "test_json_write_pretty_as_yajl_%s %s", name, why);
}

static void test_json_write_made_documents(void)
{
        static const struct {
                const char *name, *text;
        } docs[] = {
                { "scalars", "[null, true, false, 0, -1.5e+300, \"\", \"x\"]" },
                { "a_scalar_alone", "\"alone\"" },
                { "a_number_alone", "12345678901234567890123" },
                { "empty_object", "{}" },
                { "empty_array", "[]" },
                { "empties_nested", "{\"a\": {}, \"b\": [], \"c\": [[], {}, [{}]], \"d\": {\"e\": {\"f\": []}}}" },
                { "control_characters", "\"\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001f \\\" \\\\ / \\u007f\"" },
                { "keys_escaped", "{\"a\\nb\": 1, \"\\\"\": 2, \"\\\\\": 3, \"\\t\\u0001\": 4}" },
                { "unicode", "[\"\\u00e9\", \"\xc3\xa9\", \"\\ud83d\\ude00\", \"\xe2\x82\xac\", \"\\u2028\"]" },
                { "deep", "[[[[[[{\"k\": [1, [2, {\"l\": {}}]]}]]]]]]" },
                { "number_spellings", "[1.0, 1e5, 1E-5, -0, 0.000, 10e+10]" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(docs); i++) {
                struct tsync_err err = { 0 };
                _cleanup_json_ struct tsync_json *v = NULL;
                if (tsync_json_parse(docs[i].text, strlen(docs[i].text), NULL, &v, &err) < 0) {
                        tap_ok(0, "test_json_write_%s: setup: %s", docs[i].name, err.msg);
                        continue;
                }
                check(docs[i].name, v);
        }
}

/* A JSON file of the tree, checked; fixtures that must not parse are the
 * parser's tests, not the writer's. */
static void check_file(const char *path, void *ctx)
{
        size_t *checked = ctx;
        struct tsync_err err = { 0 };
        _cleanup_json_ struct tsync_json *v = NULL;
        if (tsync_json_parse_file(path, NULL, &v, &err) < 0)
                return;
        check(path, v);
        (*checked)++;
}

static void test_json_write_files_of_the_tree(void)
{
        size_t checked = 0;
        (void)unit_each_tree_json(check_file, &checked);
        tap_ok(checked >= 10, "test_json_write_found_the_trees_json_files: %zu", checked);
}

static void test_json_write_refuses_invalid_utf8(void)
{
        static const char *const bad[] = { "\xc0\xaf", "\xed\xa0\x80", "\xff", "a\xe2\x82" };
        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                _cleanup_json_ struct tsync_json *v = tsync_json_new_string(bad[i]);
                _cleanup_free_ char *text = NULL;
                size_t len = 0;
                struct tsync_err err = { 0 };
                int r = v ? tsync_json_write(v, i % 2, &text, &len, &err) : -ENOMEM;
                tap_ok(r == -EINVAL && text == NULL && strstr(err.msg, "UTF-8"),
                       "test_json_write_refuses_invalid_utf8_%zu: %d %s", i, r, err.msg);
        }
}

int main(void)
{
        test_json_write_made_documents();
        test_json_write_files_of_the_tree();
        test_json_write_refuses_invalid_utf8();
        return tap_done();
}
