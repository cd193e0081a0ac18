/* The JSON tree: exact numbers, limits, duplicate keys, NUL bytes, errors that
 * name the path and stay on one line, files and pipes. Run under ASan the
 * error paths double as leak checks. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "tap.h"
#include "unit.h"
#include "util/json.h"

static char tmpdir[] = "/tmp/test_json.XXXXXX";

static bool one_line(const char *msg)
{
        return strchr(msg, '\n') == NULL && strchr(msg, '\r') == NULL;
}

/* Parses text (len, or strlen when len is SIZE_MAX); NULL when it fails. */
static struct tsync_json *parse(const char *text, size_t len, const struct tsync_json_limits *lim,
                                struct tsync_err *err)
{
        struct tsync_json *v = NULL;
        memset(err, 0, sizeof(*err));
        int r = tsync_json_parse(text, len == SIZE_MAX ? strlen(text) : len, lim, &v, err);
        if (r < 0 && (v != NULL || r != -err->code))
                tap_diag("parse returned %d with tree %p and err->code %d", r, (void *)v, err->code);
        return r < 0 ? NULL : v;
}

/* Expects text to be refused with code, and a one-line message containing each non-NULL needle. */
static void refused(const char *name, const char *text, size_t len, const struct tsync_json_limits *lim, int code,
                    const char *needle1, const char *needle2)
{
        struct tsync_err err;
        struct tsync_json *v = parse(text, len, lim, &err);
        bool ok = v == NULL && err.code == code && one_line(err.msg) && (!needle1 || strstr(err.msg, needle1)) &&
                  (!needle2 || strstr(err.msg, needle2));
        tap_ok(ok, "%s: %s", name, v ? "(parsed)" : err.msg);
        tsync_json_free(v);
}

static void test_json_u64(void)
{
        struct tsync_err err;
        uint64_t n = 0;
        _cleanup_json_ struct tsync_json *v =
                parse("{\"max\": 18446744073709551615, \"zero\": 0, \"neg\": -1, \"big\": 18446744073709551616,"
                      " \"huge\": 99999999999999999999999, \"frac\": 1.5, \"exp\": 1e3, \"negzero\": -0,"
                      " \"text\": \"1\", \"kept\": 1.50E+02}",
                      SIZE_MAX, NULL, &err);
        if (!tap_ok(v != NULL, "test_json_u64_document_parses: %s", v ? "" : err.msg))
                return;

        int r = tsync_json_u64(tsync_json_get(v, "max"), "max", &n, &err);
        tap_ok(r == 0 && n == UINT64_MAX, "test_json_u64_round_trips_uint64_max: %" PRIu64, n);
        tap_ok(strcmp(tsync_json_get(v, "max")->u.number, "18446744073709551615") == 0,
               "test_json_number_keeps_literal_text_of_uint64_max");
        tap_ok(strcmp(tsync_json_get(v, "kept")->u.number, "1.50E+02") == 0, "test_json_number_keeps_literal_text: %s",
               tsync_json_get(v, "kept")->u.number);
        r = tsync_json_u64(tsync_json_get(v, "zero"), "zero", &n, &err);
        tap_ok(r == 0 && n == 0, "test_json_u64_reads_zero");

        static const struct {
                const char *key, *msg;
        } bad[] = {
                { "neg", "a.neg: -1 is negative" },
                { "negzero", "a.neg: -0 is negative" },
                { "big", "a.neg: 18446744073709551616 is above the largest 64-bit value" },
                { "huge", "a.neg: 99999999999999999999999 is above the largest 64-bit value" },
                { "frac", "a.neg: 1.5 is not a whole number" },
                { "exp", "a.neg: 1e3 is not a whole number" },
                { "text", "a.neg: expected number, got string" },
                { "absent", "a.neg: missing" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                n = 12345;
                memset(&err, 0, sizeof(err));
                r = tsync_json_u64(tsync_json_get(v, bad[i].key), "a.neg", &n, &err);
                tap_ok(r == -EINVAL && n == 12345 && strcmp(err.msg, bad[i].msg) == 0, "test_json_u64_refuses_%s: %s",
                       bad[i].key, err.msg);
        }

        r = tsync_json_uint_max(tsync_json_get(v, "max"), "x", UINT64_MAX, &n, &err);
        tap_ok(r == 0 && n == UINT64_MAX, "test_json_uint_max_accepts_the_bound");
        r = tsync_json_uint_max(tsync_json_get(v, "max"), "x", UINT64_MAX - 1, &n, &err);
        tap_ok(r == -EINVAL && strstr(err.msg, "x: 18446744073709551615 is above the maximum of 18446744073709551614"),
               "test_json_uint_max_refuses_one_above: %s", err.msg);

        /* an empty path leaves the prefix to the caller */
        r = tsync_json_u64(tsync_json_get(v, "neg"), "", &n, &err);
        tap_ok(r == -EINVAL && strcmp(err.msg, "-1 is negative") == 0, "test_json_u64_empty_path_has_no_prefix: %s",
               err.msg);
}

static char *nested(size_t depth, const char *open, const char *close, const char *inner)
{
        size_t lo = strlen(open), lc = strlen(close), li = strlen(inner);
        char *s = malloc(depth * (lo + lc) + li + 1), *p = s;
        if (!s)
                abort();
        for (size_t i = 0; i < depth; i++, p += lo)
                memcpy(p, open, lo);
        memcpy(p, inner, li);
        p += li;
        for (size_t i = 0; i < depth; i++, p += lc)
                memcpy(p, close, lc);
        *p = '\0';
        return s;
}

static void test_json_depth(void)
{
        struct tsync_err err;
        struct tsync_json_limits lim = { 0 };
        char *s = nested(200, "[", "]", "1");
        char expect[256] = "";
        for (int i = 0; i < 32; i++)
                strcat(expect, "[0]");
        strcat(expect, ": nesting is deeper than the limit of 32 levels");
        refused("test_json_depth_200_refused_by_default_limit", s, SIZE_MAX, NULL, EINVAL, expect, NULL);

        lim.max_depth = 200;
        struct tsync_json *v = parse(s, SIZE_MAX, &lim, &err);
        tap_ok(v != NULL, "test_json_depth_200_accepted_at_limit_200: %s", v ? "" : err.msg);
        size_t depth = 0;
        for (const struct tsync_json *w = v; w && w->type == TSYNC_JSON_ARRAY; w = w->u.array.items[0])
                depth++;
        tap_ok(depth == 200, "test_json_depth_200_tree_is_200_deep: %zu", depth);
        tsync_json_free(v);
        free(s);

        s = nested(201, "[", "]", "");
        refused("test_json_depth_201_refused_at_limit_200", s, SIZE_MAX, &lim, EINVAL, "of 200 levels", NULL);
        free(s);

        /* exactly at the boundary, with objects and a path through keys */
        lim.max_depth = 3;
        v = parse("{\"a\":[{\"b\":1}]}", SIZE_MAX, &lim, &err);
        tap_ok(v != NULL, "test_json_depth_boundary_3_of_3_accepted: %s", v ? "" : err.msg);
        tsync_json_free(v);
        refused("test_json_depth_boundary_4_of_3_names_path", "{\"a\":[{\"x\":2,\"b\":[]}]}", SIZE_MAX, &lim, EINVAL,
                "a[0].b: nesting is deeper than the limit of 3 levels", NULL);
        lim.max_depth = 1;
        refused("test_json_depth_boundary_second_array_element", "[1,[]]", SIZE_MAX, &lim, EINVAL, "[1]: nesting",
                NULL);
        v = parse("7", SIZE_MAX, &lim, &err);
        tap_ok(v && v->type == TSYNC_JSON_NUMBER, "test_json_depth_scalar_root_is_depth_0");
        tsync_json_free(v);
}

/* Deep documents parsed and freed on a 512 KiB thread stack: any recursion
 * per level (in yajl, the tree builder or tsync_json_free) would overflow it
 * long before 100000 levels. Kept at 100000 because yajl grows its own
 * state stack 128 bytes at a time, which is slow for millions of levels. */
struct deep_result {
        bool arrays_ok, truncated_ok, objects_ok;
        char msg[TSYNC_ERR_MSG_MAX];
};

static void *deep_worker(void *arg)
{
        struct deep_result *res = arg;
        struct tsync_json_limits lim = { .max_depth = UINT_MAX };
        struct tsync_err err;
        struct tsync_json *v;

        char *s = nested(100000, "[", "]", "");
        v = parse(s, SIZE_MAX, &lim, &err);
        res->arrays_ok = v != NULL;
        tsync_json_free(v);
        s[100000 + 10] = '\0';
        v = parse(s, SIZE_MAX, &lim, &err);
        res->truncated_ok = v == NULL && strstr(err.msg, "[1]: invalid JSON at byte 100010: premature EOF");
        (void)snprintf(res->msg, sizeof(res->msg), "%s", err.msg);
        tsync_json_free(v);
        free(s);

        s = nested(50000, "{\"k\":[", "]}", "null");
        v = parse(s, SIZE_MAX, &lim, &err);
        res->objects_ok = v != NULL;
        tsync_json_free(v);
        free(s);
        return NULL;
}

static void test_json_deep_on_small_stack(void)
{
        struct deep_result res = { 0 };
        pthread_attr_t attr;
        pthread_t t;
        if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, 512 << 10) != 0 ||
            pthread_create(&t, &attr, deep_worker, &res) != 0 || pthread_join(t, NULL) != 0) {
                tap_ok(0, "test_json_deep_on_small_stack: cannot run the thread");
                return;
        }
        (void)pthread_attr_destroy(&attr);
        tap_ok(res.arrays_ok, "test_json_free_100000_deep_arrays_on_small_stack");
        tap_ok(res.truncated_ok, "test_json_truncated_100000_deep_is_freed: %.200s", res.msg);
        tap_ok(res.objects_ok, "test_json_free_100000_deep_objects_on_small_stack");
}

static void test_json_max_bytes(void)
{
        size_t big = 64u << 20;
        char *s = malloc(big);
        if (!s)
                abort();
        memset(s, '[', big); /* would be a depth bomb if it were ever parsed */
        refused("test_json_max_bytes_refuses_64MiB_by_default", s, big, NULL, EFBIG, "67108864", "4194304");
        struct tsync_json_limits lim = { .max_bytes = 10 };
        refused("test_json_max_bytes_refuses_one_over", "[1,2,3,4,5]", SIZE_MAX, &lim, EFBIG, "11 bytes",
                "limit of 10 bytes");
        struct tsync_err err;
        struct tsync_json *v = parse("[1,2,3,4]", SIZE_MAX, &lim, &err);
        tap_ok(v != NULL, "test_json_max_bytes_accepts_under_limit: %s", v ? "" : err.msg);
        tsync_json_free(v);
        v = parse("[1,2,3,45]", SIZE_MAX, &lim, &err);
        tap_ok(v != NULL, "test_json_max_bytes_accepts_exactly_limit: %s", v ? "" : err.msg);
        tsync_json_free(v);
        free(s);
}

static void test_json_syntax(void)
{
        static const struct {
                const char *name, *text, *needle;
        } bad[] = {
                { "truncated_object", "{", "(root): invalid JSON at byte 1: premature EOF" },
                { "truncated_after_key", "{\"linux\":", "linux: invalid JSON at byte 9: premature EOF" },
                { "truncated_array", "{\"a\":{\"names\":[\"x\",",
                  "a.names[1]: invalid JSON at byte 19: premature EOF" },
                { "truncated_string", "[\"abc", "[0]: invalid JSON at byte 5" },
                { "truncated_literal", "[tru", "[0]: invalid JSON at byte 4" },
                { "trailing_garbage", "{} x", "(root): invalid JSON at byte 4: trailing garbage" },
                { "second_value", "1 2", "(root): invalid JSON at byte 3: trailing garbage" },
                { "extra_brace", "{\"a\":1}}", "(root): invalid JSON at byte 8: trailing garbage" },
                { "not_json", "hello", "(root): invalid JSON at byte 1" },
                { "misspelt_literal", "[nul1]", "[0]: invalid JSON at byte 2: invalid literal" },
                { "form_feed_as_space", "[1,\f2]", "[1]: invalid JSON at byte 4: invalid character" },
                { "string_after_the_value", "{}\"abc", "(root): invalid JSON at byte 3: trailing garbage" },
                { "comment", "/* c */ {}", "(root): invalid JSON at byte" },
                { "nan", "[NaN]", "[0]: invalid JSON" },
                { "plus_sign", "[+1]", "[0]: invalid JSON" },
                { "leading_zero", "[01]", "[1]: invalid JSON" },
                { "trailing_comma", "{\"a\":1,}", "a: invalid JSON at byte 8" },
                { "single_quotes", "{'a':1}", "(root): invalid JSON at byte 2" },
                { "bad_char_deep", "{\"linux\":{\"seccomp\":{\"syscalls\":[{},{\"names\":[x]}]}}}",
                  "linux.seccomp.syscalls[1].names[0]: invalid JSON at byte 47" },
                { "odd_key_quoted_in_path", "{\"io.seccomp\":[1,x]}", "[\"io.seccomp\"][1]: invalid JSON" },
                { "raw_control_char", "[\"a\tb\"]", "[0]: invalid JSON" },
                { "raw_newline_in_string", "[\"a\nb\"]", "[0]: invalid JSON" },
                { "empty_document", "", "empty document" },
                { "blank_document", " \n\t ", "empty document" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                char name[128];
                (void)snprintf(name, sizeof(name), "test_json_refuses_%s", bad[i].name);
                refused(name, bad[i].text, SIZE_MAX, NULL, EINVAL, bad[i].needle, NULL);
        }
        refused("test_json_refuses_raw_nul_byte", "[1,\0]", 5, NULL, EINVAL, "[1]: invalid JSON at byte 4", NULL);
        refused("test_json_refuses_invalid_utf8", "[\"\xff\"]", SIZE_MAX, NULL, EINVAL, "[0]", NULL);
        refused("test_json_refuses_overlong_utf8", "[\"\xc0\xaf\"]", SIZE_MAX, NULL, EINVAL, "[0]", NULL);
        refused("test_json_refuses_raw_surrogate", "[\"\xed\xa0\x80\"]", SIZE_MAX, NULL, EINVAL, "[0]", NULL);
}

static void test_json_duplicates(void)
{
        refused("test_json_duplicate_key_top_level", "{\"a\":1,\"b\":2,\"a\":3}", SIZE_MAX, NULL, EINVAL,
                "(root): duplicate key 'a'", NULL);
        refused("test_json_duplicate_key_nested",
                "{\"linux\":{\"seccomp\":{\"syscalls\":[],\"defaultAction\":\"x\",\"syscalls\":[]}}}", SIZE_MAX, NULL,
                EINVAL, "linux.seccomp: duplicate key 'syscalls'", NULL);
        refused("test_json_duplicate_key_in_array_element", "{\"s\":[{\"a\":1},{\"n\":1,\"n\":1}]}", SIZE_MAX, NULL,
                EINVAL, "s[1]: duplicate key 'n'", NULL);

        /* many keys: the sorted check, with the duplicate far apart */
        char *s = malloc(300 * 16 + 64), *p = s;
        p += sprintf(p, "{\"o\":{");
        for (int i = 0; i < 300; i++)
                p += sprintf(p, "\"k%d\":%d,", i, i);
        sprintf(p, "\"k7\":0}}");
        refused("test_json_duplicate_key_among_300", s, SIZE_MAX, NULL, EINVAL, "o: duplicate key 'k7'", NULL);
        p[-1] = '}';
        p[0] = '}';
        p[1] = '\0';
        struct tsync_err err;
        struct tsync_json *v = parse(s, SIZE_MAX, NULL, &err);
        const struct tsync_json *o = tsync_json_get(v, "o");
        tap_ok(o && o->u.object.len == 300 && strcmp(o->u.object.keys[299], "k299") == 0 &&
                       strcmp(tsync_json_get(o, "k150")->u.number, "150") == 0,
               "test_json_300_distinct_keys_keep_order: %s", v ? "" : err.msg);
        tsync_json_free(v);
        free(s);

        v = parse("[{\"a\":1},{\"a\":2}]", SIZE_MAX, NULL, &err);
        tap_ok(v != NULL, "test_json_same_key_in_sibling_objects_is_fine");
        tsync_json_free(v);
        /* a dotted key and the nested one it looks like are different keys */
        v = parse("{\"a.b\":1,\"a\":{\"b\":2}}", SIZE_MAX, NULL, &err);
        tap_ok(v != NULL, "test_json_dotted_key_is_not_a_duplicate");
        tsync_json_free(v);
}

static void test_json_nul(void)
{
        struct tsync_err err;
        refused("test_json_nul_in_key_refused", "{\"linux\":{\"a\\u0000b\":1}}", SIZE_MAX, NULL, EINVAL,
                "linux: key 'a\\u0000b' contains a NUL byte", NULL);

        _cleanup_json_ struct tsync_json *v = parse("{\"name\":\"a\\u0000b\"}", SIZE_MAX, NULL, &err);
        const struct tsync_json *s = tsync_json_get(v, "name");
        tap_ok(s && s->type == TSYNC_JSON_STRING && s->u.string.len == 3 && memcmp(s->u.string.ptr, "a\0b", 4) == 0,
               "test_json_nul_in_string_kept_with_len: %s", v ? "" : err.msg);
        const char *str = "untouched";
        int r = tsync_json_str(s, "syscalls[2].names[0]", &str, &err);
        tap_ok(r == -EINVAL && strcmp(err.msg, "syscalls[2].names[0]: contains a NUL byte") == 0 &&
                       strcmp(str, "untouched") == 0,
               "test_json_str_refuses_nul: %s", err.msg);
}

static void test_json_types(void)
{
        struct tsync_err err;
        _cleanup_json_ struct tsync_json *v =
                parse("{\"o\":{},\"a\":[true,null],\"s\":\"x\",\"b\":false,\"n\":3}", SIZE_MAX, NULL, &err);
        if (!tap_ok(v != NULL, "test_json_types_document_parses: %s", v ? "" : err.msg))
                return;
        int r = tsync_json_expect(tsync_json_get(v, "a"), "linux.seccomp", TSYNC_JSON_OBJECT, &err);
        tap_ok(r == -EINVAL && strcmp(err.msg, "linux.seccomp: expected object, got array") == 0,
               "test_json_expect_names_both_types: %s", err.msg);
        r = tsync_json_expect(tsync_json_get(v, "o"), "o", TSYNC_JSON_OBJECT, &err);
        tap_ok(r == 0, "test_json_expect_accepts_right_type");
        r = tsync_json_expect(tsync_json_get(v, "nope"), "x.nope", TSYNC_JSON_ARRAY, &err);
        tap_ok(r == -EINVAL && strcmp(err.msg, "x.nope: missing") == 0, "test_json_expect_missing: %s", err.msg);

        const char *str = NULL;
        r = tsync_json_str(tsync_json_get(v, "n"), "n", &str, &err);
        tap_ok(r == -EINVAL && strcmp(err.msg, "n: expected string, got number") == 0,
               "test_json_str_refuses_number: %s", err.msg);
        r = tsync_json_str(tsync_json_get(v, "s"), "s", &str, &err);
        tap_ok(r == 0 && strcmp(str, "x") == 0, "test_json_str_reads_string");

        bool b = true;
        r = tsync_json_bool(tsync_json_get(v, "b"), "b", &b, &err);
        tap_ok(r == 0 && !b, "test_json_bool_reads_false");
        r = tsync_json_bool(tsync_json_get(v, "s"), "s", &b, &err);
        tap_ok(r == -EINVAL && strcmp(err.msg, "s: expected boolean, got string") == 0,
               "test_json_bool_refuses_string: %s", err.msg);

        const struct tsync_json *a = tsync_json_get(v, "a");
        tap_ok(a->u.array.len == 2 && a->u.array.items[0]->type == TSYNC_JSON_BOOL && a->u.array.items[0]->u.boolean &&
                       a->u.array.items[1]->type == TSYNC_JSON_NULL,
               "test_json_array_items_in_order");
        tap_ok(tsync_json_get(a, "x") == NULL && tsync_json_get(NULL, "x") == NULL,
               "test_json_get_on_non_object_is_null");
}

static void test_json_unicode(void)
{
        struct tsync_err err;
        /* é, €, U+1F600 as a surrogate pair, and escapes next to escaped quotes and backslashes */
        _cleanup_json_ struct tsync_json *v =
                parse("[\"\\u00e9\",\"\\u20AC\",\"\\ud83d\\ude00\",\"\\\\\\\"\\u0041\\\\\",\"\\/\\b\\f\\n\\r\\t\","
                      "\"caf\xc3\xa9\"]",
                      SIZE_MAX, NULL, &err);
        static const char *const want[] = { "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                                            "\\\"A\\",  "/\b\f\n\r\t",  "caf\xc3\xa9" };
        bool ok = v && v->u.array.len == ARRAY_SIZE(want);
        for (size_t i = 0; ok && i < ARRAY_SIZE(want); i++)
                ok = strcmp(v->u.array.items[i]->u.string.ptr, want[i]) == 0 &&
                     v->u.array.items[i]->u.string.len == strlen(want[i]);
        tap_ok(ok, "test_json_unicode_escapes_decode_to_utf8: %s", v ? "" : err.msg);

        refused("test_json_unicode_lone_high_surrogate", "{\"n\":[\"x\",\"\\ud800abc\"]}", SIZE_MAX, NULL, EINVAL,
                "n[1]: invalid UTF-8 or unpaired UTF-16 surrogate", NULL);
        refused("test_json_unicode_high_surrogate_then_other_escape", "[\"\\ud800\\u0041\"]", SIZE_MAX, NULL, EINVAL,
                "[0]: invalid UTF-8 or unpaired", NULL);
        refused("test_json_unicode_lone_low_surrogate", "{\"k\":\"\\udc00\"}", SIZE_MAX, NULL, EINVAL,
                "k: invalid UTF-8 or unpaired", NULL);
        refused("test_json_unicode_lone_surrogate_in_key", "{\"o\":{\"\\\\\\ud800\":1}}", SIZE_MAX, NULL, EINVAL,
                "o: a key has invalid UTF-8", NULL);
        /* an escaped backslash before "u" is not an escape */
        struct tsync_json *w = parse("[\"\\\\ud800\"]", SIZE_MAX, NULL, &err);
        tap_ok(w && strcmp(w->u.array.items[0]->u.string.ptr, "\\ud800") == 0,
               "test_json_unicode_escaped_backslash_is_not_an_escape: %s", w ? "" : err.msg);
        tsync_json_free(w);
}

static void test_json_files(void)
{
        char path[256], missing[256];
        struct tsync_err err;
        struct tsync_json *v = NULL;

        (void)snprintf(missing, sizeof(missing), "%s/missing.json", tmpdir);
        memset(&err, 0, sizeof(err));
        int r = tsync_json_parse_file(missing, NULL, &v, &err);
        tap_ok(r == -ENOENT && v == NULL && strncmp(err.msg, missing, strlen(missing)) == 0 &&
                       strstr(err.msg, "No such file or directory"),
               "test_json_parse_file_missing: %s", err.msg);

        r = tsync_json_parse_file(tmpdir, NULL, &v, &err);
        tap_ok(r == -EISDIR && v == NULL && strncmp(err.msg, tmpdir, strlen(tmpdir)) == 0 &&
                       strstr(err.msg, "directory"),
               "test_json_parse_file_directory: %s", err.msg);

        (void)snprintf(path, sizeof(path), "%s/ok.json", tmpdir);
        if (unit_write_file(path, "{\"ociVersion\":\"1.0.2\"}\n") < 0)
                tap_diag("cannot write %s", path);
        r = tsync_json_parse_file(path, NULL, &v, &err);
        const char *s = NULL;
        tap_ok(r == 0 && tsync_json_str(tsync_json_get(v, "ociVersion"), "ociVersion", &s, &err) == 0 &&
                       strcmp(s, "1.0.2") == 0,
               "test_json_parse_file_reads_file: %s", r ? err.msg : "");
        tsync_json_free(v);
        v = NULL;

        if (unit_write_file(path, "{\"linux\":{\"seccomp\":{\"a\":1,\"a\":2}}}") < 0)
                tap_diag("cannot write %s", path);
        r = tsync_json_parse_file(path, NULL, &v, &err);
        char want[300];
        (void)snprintf(want, sizeof(want), "%s: linux.seccomp: duplicate key 'a'", path);
        tap_ok(r == -EINVAL && v == NULL && strcmp(err.msg, want) == 0, "test_json_parse_file_error_names_file: %s",
               err.msg);

        /* a sparse 64 MiB file: refused from its size, before any read */
        (void)snprintf(path, sizeof(path), "%s/big.json", tmpdir);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0 || ftruncate(fd, 64 << 20) < 0)
                tap_diag("cannot make %s", path);
        if (fd >= 0)
                (void)close(fd);
        r = tsync_json_parse_file(path, NULL, &v, &err);
        tap_ok(r == -EFBIG && v == NULL && strstr(err.msg, path) && strstr(err.msg, "67108864") &&
                       strstr(err.msg, "4194304"),
               "test_json_parse_file_refuses_64MiB: %s", err.msg);
        (void)unlink(path);
        (void)unlink(missing);
        (void)snprintf(path, sizeof(path), "%s/ok.json", tmpdir);
        (void)unlink(path);
}

static void test_json_pipes(void)
{
        struct tsync_err err;
        struct tsync_json *v = NULL;
        struct tsync_json_limits lim = { .max_bytes = 1000 };
        int p[2];

        /* 1001 bytes fit in a pipe's buffer: no writer process needed */
        if (pipe2(p, O_CLOEXEC) < 0)
                abort();
        char buf[1001];
        memset(buf, ' ', sizeof(buf));
        buf[0] = '1';
        if (write(p[1], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
                tap_diag("short write to pipe");
        (void)close(p[1]);
        int r = tsync_json_parse_fd(p[0], &lim, &v, &err);
        tap_ok(r == -EFBIG && v == NULL && strstr(err.msg, "limit of 1000 bytes"),
               "test_json_parse_fd_refuses_over_limit: %s", err.msg);
        (void)close(p[0]);

        if (pipe2(p, O_CLOEXEC) < 0)
                abort();
        if (write(p[1], buf, 1000) != 1000)
                tap_diag("short write to pipe");
        (void)close(p[1]);
        r = tsync_json_parse_fd(p[0], &lim, &v, &err);
        tap_ok(r == 0 && v && v->type == TSYNC_JSON_NUMBER && strcmp(v->u.number, "1") == 0,
               "test_json_parse_fd_reads_exactly_limit: %s", r ? err.msg : "");
        tsync_json_free(v);
        (void)close(p[0]);

        /* A FIFO nobody writes to: opening it used to block forever (a hook
         * that never returns). alarm: a regression fails here instead of hanging. */
        char fifo[PATH_MAX];
        (void)snprintf(fifo, sizeof(fifo), "%s/fifo.json", tmpdir);
        if (mkfifo(fifo, 0600) < 0)
                tap_diag("mkfifo %s: %m", fifo);
        alarm(10);
        v = NULL;
        r = tsync_json_parse_file(fifo, NULL, &v, &err);
        alarm(0);
        tap_ok(r == -EINVAL && v == NULL && strstr(err.msg, fifo) && strstr(err.msg, "empty document"),
               "test_json_parse_file_fifo_without_writer_does_not_block: %s", err.msg);
        (void)unlink(fifo);
}

int main(void)
{
        if (!mkdtemp(tmpdir)) {
                perror("mkdtemp");
                return 1;
        }
        test_json_u64();
        test_json_depth();
        test_json_deep_on_small_stack();
        test_json_max_bytes();
        test_json_syntax();
        test_json_duplicates();
        test_json_nul();
        test_json_types();
        test_json_unicode();
        test_json_files();
        test_json_pipes();
        tsync_json_free(NULL);
        tap_ok(tsync_json_type_name(TSYNC_JSON_BOOL) && strcmp(tsync_json_type_name(TSYNC_JSON_BOOL), "boolean") == 0,
               "test_json_type_name_boolean");
        if (rmdir(tmpdir) < 0)
                tap_diag("rmdir %s: %m", tmpdir);
        return tap_done();
}
