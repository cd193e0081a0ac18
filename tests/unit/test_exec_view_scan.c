/* The exec view's fast read (tsync_exec_view_scan): sure only of what the
 * full parse accepts, with the same spans and values; a hook through it
 * writes what it writes through the full tree; never a refusal of its own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/exec_view.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/cleanup.h"
#include "tap.h"
#include "unit.h"
#include "util/json.h"
#include "util/json_build.h"

static const struct tsync_json_limits *const lim = TSYNC_CONFIG_LIMITS;

/* "@" stands for the value under linux.x. */
static const char *frame = "{\"process\": {\"capabilities\": {\"bounding\": [\"CAP_KILL\"]}, \"args\": [\"a\"]},\n"
                           " \"annotations\": {\"k\": \"v\", \"" TSYNC_ANNOTATION_RUNNING "\": \"c1\"},\n"
                           " \"linux\": {\"x\": @}}";

static char *framed(const char *x)
{
        const char *at = strchr(frame, '@');
        char *out = NULL;
        if (asprintf(&out, "%.*s%s%s", (int)(at - frame), frame, x, at + 1) < 0)
                abort();
        return out;
}

/* 1 scan sure, 0 not sure; full: whether the full parse accepts. */
static int scan(const char *text, size_t len, bool *ret_full)
{
        struct tsync_err err = { 0 };
        struct tsync_json *part = NULL, *full = NULL;
        struct tsync_exec_view_spans spans;
        int r = tsync_exec_view_scan(text, len, lim, &part, &spans, &err);
        *ret_full = tsync_json_parse(text, len, lim, &full, &err) == 0;
        tsync_json_free(part);
        tsync_json_free(full);
        return r;
}

static void test_exec_view_scan_is_sure_of_valid_json_and_finds_what_the_full_parse_finds(void)
{
        const char *values[] = { "[1, 2.5e3, -0, 0.5E-7, true, false, null, {}, []]",
                                 "\"s \\u00e9\\ud83d\\ude00 \\\" \\\\ \\/ \\b\\f\\n\\r\\t \xc3\xa9 \xf0\x9f\x98\x80\"",
                                 "{\"a\": {\"b\": {\"c\": [[[\"deep\"]]]}}, \"b\": 1}",
                                 "\"          sixteen bytes and more, plain, then \xe2\x82\xac\"" };
        for (size_t i = 0; i < ARRAY_SIZE(values); i++) {
                char *text = framed(values[i]);
                struct tsync_err err = { 0 };
                struct tsync_json *part = NULL, *full = NULL;
                struct tsync_exec_view_spans ps = { 0 }, fs = { 0 };
                int r = tsync_exec_view_scan(text, strlen(text), lim, &part, &ps, &err);
                int rf = tsync_json_parse(text, strlen(text), lim, &full, &err);
                if (rf == 0)
                        tsync_exec_view_spans(full, &fs);
                const struct tsync_json *pc = tsync_json_get(tsync_json_get(part, "process"), "capabilities");
                const struct tsync_json *fc = tsync_json_get(tsync_json_get(full, "process"), "capabilities");
                tap_ok(r == 1 && rf == 0 && ps.ok && ps.partial && fs.ok && ps.caps_begin == fs.caps_begin &&
                               ps.caps_end == fs.caps_end && ps.annotations_end == fs.annotations_end &&
                               ps.running_begin == fs.running_begin && ps.running_end == fs.running_end &&
                               tsync_json_equal(pc, fc, NULL, 0) &&
                               tsync_json_equal(tsync_json_get(part, "annotations"),
                                                tsync_json_get(full, "annotations"), NULL, 0) &&
                               !tsync_json_get(part, "linux"),
                       "test_exec_view_scan_is_sure_of_valid_json_and_finds_what_the_full_parse_finds (%zu)", i);
                tsync_json_free(part);
                tsync_json_free(full);
                free(text);
        }
}

/* Each refused by the full parse: the scan must never be sure of it. */
static void test_exec_view_scan_is_never_sure_of_what_the_full_parse_refuses(void)
{
        const char *values[] = {
                "{\"a\": 1, \"a\": 2}", /* duplicate key */
                "{\"a\": 1, \"b\": 2, \"c\": 3, \"d\": 4, \"e\": 5, \"f\": 6, \"g\": 7, \"h\": 8, \"i\": 9, \"j\": 10, "
                "\"k\": 11, \"l\": 12, \"m\": 13, \"n\": 14, \"o\": 15, \"p\": 16, \"q\": 17, \"c\": 18}",
                "\"\\ud800\"",        /* a lone high surrogate */
                "\"\\udc00\"",        /* a lone low one */
                "\"\\ud800\\u0041\"", /* a high one before no low one */
                "\"\\uzzzz\"",
                "\"\\x\"",              /* not escapes */
                "\"\xc3\x28\"",         /* not UTF-8 */
                "\"\xc0\xaf\"",         /* overlong */
                "\"\xed\xa0\x80\"",     /* a surrogate in UTF-8 */
                "\"\xf4\x90\x80\x80\"", /* above U+10FFFF */
                "\"\x01\"",
                "\"a\tb\"", /* control bytes */
                "01",
                "1.",
                "-",
                "1e",
                ".5",
                "+1",
                "[1,]",
                "{\"a\": 1,}",
                "tru",
                "nul",
                "[1 2]",
                "{\"a\" 1}",
                "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", /* deeper than 32 */
        };
        for (size_t i = 0; i < ARRAY_SIZE(values); i++) {
                char *text = framed(values[i]);
                bool full;
                int r = scan(text, strlen(text), &full);
                tap_ok(!full && r == 0, "test_exec_view_scan_is_never_sure_of_what_the_full_parse_refuses (%zu: %s)", i,
                       values[i]);
                free(text);
        }
        /* Around the document. */
        char *text = framed("1");
        size_t n = strlen(text);
        const char *tails[] = { "x", "{}", " ,", "\0" };
        for (size_t i = 0; i < ARRAY_SIZE(tails); i++) {
                char *t = malloc(n + 2);
                memcpy(t, text, n);
                t[n] = tails[i][0];
                t[n + 1] = tails[i][0] ? tails[i][1] : '\0';
                bool full;
                int r = scan(t, n + (tails[i][0] && tails[i][1] ? 2 : 1), &full);
                tap_ok(!full && r == 0, "test_exec_view_scan_is_never_sure_of_text_after_the_document (%zu)", i);
                free(t);
        }
        free(text);
}

/* Valid, but not what the scan is sure of: the full parse decides (and accepts). */
static void test_exec_view_scan_leaves_what_it_is_unsure_of_to_the_full_parse(void)
{
        const char *texts[] = {
                "{\"process\": {\"capabilities\": {}}, \"annotations\": {\"\\u0061\": \"v\"}}", /* an escaped key */
                "{\"process\": {\"capabilities\": {}}, \"annotations\": {\"a\": 1}}",     /* a number annotation */
                "{\"process\": {}, \"annotations\": {\"a\": \"v\"}}",                     /* no capabilities */
                "{\"process\": {\"capabilities\": {}}, \"annotations\": {}}",             /* no annotation */
                "{\"process\": {\"capabilities\": []}, \"annotations\": {\"a\": \"v\"}}", /* not an object */
                "{\"process\": {\"capabilities\": {}}, \"annotations\": {\"" TSYNC_ANNOTATION_RUNNING "\": \"c\"}}",
                "{\"process\": {\"capabilities\": {}},\f\"annotations\": {\"a\": \"v\"}}", /* yajl's own whitespace */
                "[{\"process\": {\"capabilities\": {}}, \"annotations\": {\"a\": \"v\"}}]",
        };
        for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
                bool full;
                int r = scan(texts[i], strlen(texts[i]), &full);
                tap_ok(r == 0, "test_exec_view_scan_leaves_what_it_is_unsure_of_to_the_full_parse (%zu, full parse %s)",
                       i, full ? "accepts" : "refuses");
        }
}

/* A partial tree is never written whole: a change the text cannot take is an error. */
static void test_exec_view_text_refuses_to_write_a_partial_tree_whole(void)
{
        char *text = framed("1");
        struct tsync_err err = { 0 };
        struct tsync_json *part = NULL;
        struct tsync_exec_view_spans spans;
        int r = tsync_exec_view_scan(text, strlen(text), lim, &part, &spans, &err);
        /* Another holder in place of the running one: not a splice. */
        struct tsync_json *ann = tsync_json_get_mut(part, "annotations");
        if (r == 1)
                r = tsync_json_set(ann, TSYNC_ANNOTATION_RUNNING, tsync_json_new_string("c2"));
        char *out = NULL;
        size_t len;
        int rt = r == 0 ? tsync_exec_view_text(text, strlen(text), &spans, part, &out, &len, &err) : 0;
        tap_ok(r == 0 && rt == -EINVAL && !out, "test_exec_view_text_refuses_to_write_a_partial_tree_whole (%s)",
               err.msg);
        free(out);
        tsync_json_free(part);
        free(text);
}

/* The config the scan tests inject. */
static const char *const scan_base =
        "{\"ociVersion\": \"1.0.2\", \"process\": {\"args\": [\"sh\"], \"noNewPrivileges\": false,"
        " \"capabilities\": {\"bounding\": [\"CAP_KILL\"], \"effective\": [\"CAP_KILL\"],"
        " \"permitted\": [\"CAP_KILL\"]}}, \"root\": {\"path\": \"rootfs\"}, \"annotations\": {\"keep\": "
        "\"me\"},"
        " \"linux\": {\"seccomp\": {\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": []}}}";

/* One hook through the scan (as the hooks read a config): its text, NULL if it failed. */
static char *scanned_hook(const char *src, bool start, const char *id)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = NULL;
        struct tsync_exec_view_spans spans;
        struct tsync_plan *plan = NULL;
        char *out = NULL;
        size_t len;
        bool changed = true;
        int r = tsync_exec_view_scan(src, strlen(src), lim, &c, &spans, &err) == 1 ? 0 : -1;
        r = r ?: tsync_plan_from_config(c, &plan, &err);
        r = r ?: start ? tsync_exec_view_restore(c, plan, id, &err) : tsync_exec_view_lend(c, plan, id, &changed, &err);
        if (r == 0 && changed)
                r = tsync_exec_view_text(src, strlen(src), &spans, c, &out, &len, &err);
        if (r < 0)
                tap_diag("%s: %s", start ? "restore" : "lend", err.msg);
        tsync_plan_free(plan);
        tsync_json_free(c);
        return out;
}

static void test_exec_view_scan_start_then_stop_gives_back_the_file_byte_for_byte(void)
{
        for (int pretty = 0; pretty <= 1; pretty++) {
                char *lent = unit_injected_text(scan_base, pretty);
                char *view = lent ? scanned_hook(lent, true, "ctr-a") : NULL;
                char *back = view ? scanned_hook(view, false, "ctr-a") : NULL;
                struct tsync_json *v = view ? unit_parse(view) : NULL;
                const struct tsync_json *held =
                        tsync_json_get(tsync_json_get(v, "annotations"), TSYNC_ANNOTATION_RUNNING);
                tap_ok(held && held->type == TSYNC_JSON_STRING && strcmp(held->u.string.ptr, "ctr-a") == 0 && back &&
                               strcmp(back, lent) == 0,
                       "test_exec_view_scan_start_then_stop_gives_back_the_%s_file_byte_for_byte",
                       pretty ? "pretty" : "compact");
                tsync_json_free(v);
                free(back);
                free(view);
                free(lent);
        }
}

int main(void)
{
        test_exec_view_scan_is_sure_of_valid_json_and_finds_what_the_full_parse_finds();
        test_exec_view_scan_is_never_sure_of_what_the_full_parse_refuses();
        test_exec_view_scan_leaves_what_it_is_unsure_of_to_the_full_parse();
        test_exec_view_text_refuses_to_write_a_partial_tree_whole();
        test_exec_view_scan_start_then_stop_gives_back_the_file_byte_for_byte();
        return tap_done();
}
