/* The exec view's text (plan/exec_view.h): spliced into the text the config
 * was parsed from, it must be the document, and a restore then a lend must
 * give back the very bytes; where no splice is possible, the whole document. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/exec_view.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "tap.h"
#include "unit.h"
#include "util/json.h"
#include "util/json_build.h"

/* One hook: parse src, restore (id) or lend, and the text to write; NULL on failure. */
static char *hook_text(const char *src, bool start, const char *id, bool *ret_spliced)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = unit_parse(src);
        struct tsync_plan *plan = NULL;
        struct tsync_exec_view_spans spans;
        char *out = NULL;
        size_t len;
        bool changed = true;
        int r = c ? tsync_plan_from_config(c, &plan, &err) : -1;
        if (c)
                tsync_exec_view_spans(c, &spans);
        if (r == 0)
                r = start ? tsync_exec_view_restore(c, plan, id, &err)
                          : tsync_exec_view_lend(c, plan, id, &changed, &err);
        if (r == 0 && changed)
                r = tsync_exec_view_text(src, strlen(src), &spans, c, &out, &len, &err);
        /* The text must be the document the hook changed. */
        struct tsync_json *back = out ? unit_parse(out) : NULL;
        char where[128] = "";
        if (r < 0 || !back || !tsync_json_equal(back, c, where, sizeof(where))) {
                tap_diag("%s: %s %s", start ? "restore" : "lend", err.msg, where);
                free(out);
                out = NULL;
        }
        *ret_spliced = spans.ok;
        tsync_json_free(back);
        tsync_plan_free(plan);
        tsync_json_free(c);
        return out;
}

static void round_trip(bool pretty)
{
        const char *form = pretty ? "pretty" : "compact";
        char *lent = unit_injected_text(unit_base_config, pretty);
        bool spliced_start = false, spliced_stop = false;
        char *view = lent ? hook_text(lent, true, "ctr-a", &spliced_start) : NULL;
        char *back = view ? hook_text(view, false, "ctr-a", &spliced_stop) : NULL;
        tap_ok(view && spliced_start && strstr(view, "\"" TSYNC_ANNOTATION_RUNNING "\":\"ctr-a\""),
               "test_exec_view_text_splices_the_exec_view_into_a_%s_file", form);
        tap_ok(back && spliced_stop && strcmp(back, lent) == 0,
               "test_exec_view_text_restore_then_lend_gives_back_the_%s_file_byte_for_byte", form);
        free(back);
        free(view);
        free(lent);
}

/* A document not fresh from the parser (or without the parts a splice needs)
 * is written whole. */
static void test_exec_view_text_writes_the_whole_document_when_it_cannot_splice(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = unit_parse(unit_base_config);
        struct tsync_json *made = tsync_json_copy(c);
        struct tsync_exec_view_spans spans;
        tsync_exec_view_spans(made, &spans);
        char *out = NULL, *whole = NULL;
        size_t len, whole_len;
        int r = tsync_exec_view_text(unit_base_config, strlen(unit_base_config), &spans, made, &out, &len, &err);
        r = r ?: tsync_json_write(made, true, &whole, &whole_len, &err);
        tap_ok(r == 0 && !spans.ok && strcmp(out, whole) == 0,
               "test_exec_view_text_writes_the_whole_document_when_it_cannot_splice (%s)", err.msg);
        free(out);
        free(whole);
        tsync_json_free(made);
        tsync_json_free(c);
}

/* The parser's offsets: just past each value, and at an object's or array's opening. */
static void test_json_parse_records_where_each_value_is(void)
{
        const char *t = "{\"a\": [1, 2], \"b\": {\"c\": \"x\"}}";
        struct tsync_json *c = unit_parse(t);
        const struct tsync_json *a = tsync_json_get(c, "a"), *b = tsync_json_get(c, "b");
        const struct tsync_json *x = tsync_json_get(b, "c");
        tap_ok(c && c->src_begin == 0 && c->src_end == strlen(t) && a && a->src_begin == 6 && a->src_end == 12 && b &&
                       b->src_begin == 19 && b->src_end == 29 && x && x->src_end == 28 &&
                       a->u.array.items[1]->src_end == 11,
               "test_json_parse_records_where_each_value_is");
        tsync_json_free(c);
}

/* The restore's refusal names the member that differs (the comparison tracks
 * the path only once it has found a difference). */
static void test_json_equal_names_where_they_differ(void)
{
        struct tsync_json *a = unit_parse("{\"bounding\": [\"A\"], \"x\": [1, {\"y\": \"a\"}]}");
        struct tsync_json *b = unit_parse("{\"bounding\": [\"A\"], \"x\": [1, {\"y\": \"b\"}]}");
        struct tsync_json *c = unit_parse("{\"bounding\": [\"A\"], \"x\": [1, {\"y\": \"a\"}], \"z\": null}");
        char path[64] = "junk", same[64] = "junk", extra[64] = "junk";
        bool differ = !tsync_json_equal(a, b, path, sizeof(path));
        bool equal = tsync_json_equal(a, a, same, sizeof(same));
        bool more = !tsync_json_equal(a, c, extra, sizeof(extra));
        tap_ok(differ && strcmp(path, "x[1].y") == 0 && equal && same[0] == '\0' && more && strcmp(extra, "z") == 0 &&
                       !tsync_json_equal(a, b, NULL, 0),
               "test_json_equal_names_where_they_differ (%s, %s)", path, extra);
        tsync_json_free(a);
        tsync_json_free(b);
        tsync_json_free(c);
}

int main(void)
{
        test_json_equal_names_where_they_differ();
        round_trip(true);
        round_trip(false);
        test_exec_view_text_writes_the_whole_document_when_it_cannot_splice();
        test_json_parse_records_where_each_value_is();
        return tap_done();
}
