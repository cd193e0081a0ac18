/* The exec view's fast read (tsync_exec_view_scan, hook/plan/exec_view_scan.c)
 * against the full parse it stands in for. Whenever the scan is sure of a text:
 * the full parse accepts the same bytes, finds the same spans, and has the same
 * annotations and process.capabilities; and each hook (createRuntime's restore,
 * poststop's lend) on the scan's partial tree says and writes exactly what it
 * does on the full tree, a text that parses to the full tree so changed. */
#include "fuzz_steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/exec_view.h"
#include "plan/plan.h"
#include "shared/cleanup.h"
#include "util/json.h"
#include "util/json_build.h"

static const struct tsync_json *ev_caps_of(const struct tsync_json *c)
{
        return tsync_json_get(tsync_json_get(c, "process"), "capabilities");
}

/* Both results the same: codes and messages. */
static void ev_same_result(const char *what, int ra, const struct tsync_err *ea, int rb, const struct tsync_err *eb)
{
        fuzz_check_err(ra, ea, what);
        fuzz_check_err(rb, eb, what);
        if (ra != rb || (ra < 0 && strcmp(ea->msg, eb->msg) != 0))
                fuzz_fail("%s: the scan's tree gives %d (%s), the full tree %d (%s)", what, ra, ra < 0 ? ea->msg : "",
                          rb, rb < 0 ? eb->msg : "");
}

/* One hook on both trees (each a fresh copy): start (restore with id) or stop (lend). */
static void ev_same_hook(const char *src, size_t len, const struct tsync_json *part,
                         const struct tsync_exec_view_spans *part_spans, const struct tsync_json *full,
                         const struct tsync_exec_view_spans *full_spans, bool start)
{
        struct tsync_err ea = { 0 }, eb = { 0 };
        _cleanup_plan_ struct tsync_plan *pa = NULL, *pb = NULL;
        int ra = tsync_plan_from_config(part, &pa, &ea), rb = tsync_plan_from_config(full, &pb, &eb);
        ev_same_result("tsync_plan_from_config", ra, &ea, rb, &eb);
        if (ra < 0)
                return;
        _cleanup_json_ struct tsync_json *a = tsync_json_copy(part), *b = tsync_json_copy(full);
        if (!a || !b)
                fuzz_fail("tsync_json_copy failed");
        const struct tsync_json *held = tsync_json_get(tsync_json_get(full, "annotations"), TSYNC_ANNOTATION_RUNNING);
        const char *id = held && held->type == TSYNC_JSON_STRING && !start ? held->u.string.ptr : "fuzz-id";
        bool ca = true, cb = true;
        if (start) {
                /* createRuntime writes only when something is lent (tsync_exec_view_start). */
                ra = tsync_exec_view_lends(pa, &ea);
                rb = tsync_exec_view_lends(pb, &eb);
                ev_same_result("tsync_exec_view_lends", ra, &ea, rb, &eb);
                if (ra <= 0)
                        return;
                ra = tsync_exec_view_restore(a, pa, id, &ea);
                rb = tsync_exec_view_restore(b, pb, id, &eb);
        } else {
                ra = tsync_exec_view_lend(a, pa, id, &ca, &ea);
                rb = tsync_exec_view_lend(b, pb, id, &cb, &eb);
        }
        ev_same_result(start ? "tsync_exec_view_restore" : "tsync_exec_view_lend", ra, &ea, rb, &eb);
        if (ra < 0 || ca != cb || !ca)
                return;
        _cleanup_free_ char *ta = NULL, *tb = NULL;
        size_t la = 0, lb = 0;
        ra = tsync_exec_view_text(src, len, part_spans, a, &ta, &la, &ea);
        rb = tsync_exec_view_text(src, len, full_spans, b, &tb, &lb, &eb);
        ev_same_result("tsync_exec_view_text", ra, &ea, rb, &eb);
        if (ra < 0)
                return;
        if (la != lb || memcmp(ta, tb, la) != 0)
                fuzz_fail("the exec view's text from the scan's tree differs from the full tree's");
        _cleanup_json_ struct tsync_json *back = NULL;
        rb = tsync_json_parse(ta, la, NULL, &back, &eb);
        if (rb < 0)
                fuzz_fail("the spliced text does not parse: %s", eb.msg);
        char path[128];
        if (!tsync_json_equal(back, b, path, sizeof(path)))
                fuzz_fail("the spliced text is not the changed config (at %s)", path);
        fuzz_stats.rewrites++;
}

/* The property on any bytes (fuzz_json's inputs too); with_hooks: and the hooks'. */
void fuzz_exec_view_check(const uint8_t *data, size_t size, bool with_hooks)
{
        struct tsync_err err = { 0 }, ferr = { 0 };
        const struct tsync_json_limits *lim = TSYNC_CONFIG_LIMITS;
        _cleanup_json_ struct tsync_json *part = NULL, *full = NULL;
        struct tsync_exec_view_spans ps = { 0 }, fs = { 0 };
        const char *src = (const char *)data;
        int r = tsync_exec_view_scan(src, size, lim, &part, &ps, &err);
        fuzz_check_err(r, &err, "tsync_exec_view_scan");
        if (r <= 0)
                return;
        int rf = tsync_json_parse(src, size, lim, &full, &ferr);
        if (rf < 0)
                fuzz_fail("the scan is sure of a text the full parse refuses: %s", ferr.msg);
        tsync_exec_view_spans(full, &fs);
        if (!fs.ok || !ps.ok || !ps.partial || fs.partial || ps.caps_begin != fs.caps_begin ||
            ps.caps_end != fs.caps_end || ps.annotations_end != fs.annotations_end ||
            ps.running_begin != fs.running_begin || ps.running_end != fs.running_end)
                fuzz_fail("spans differ: scan ok %d caps %zu-%zu ann %zu running %zu-%zu, full ok %d caps %zu-%zu ann "
                          "%zu running %zu-%zu",
                          ps.ok, ps.caps_begin, ps.caps_end, ps.annotations_end, ps.running_begin, ps.running_end,
                          fs.ok, fs.caps_begin, fs.caps_end, fs.annotations_end, fs.running_begin, fs.running_end);
        char path[128];
        if (!tsync_json_equal(ev_caps_of(part), ev_caps_of(full), path, sizeof(path)) ||
            !tsync_json_equal(tsync_json_get(part, "annotations"), tsync_json_get(full, "annotations"), path,
                              sizeof(path)))
                fuzz_fail("the scan's tree differs from the full tree at %s", path);
        fuzz_stats.profiles++;
        if (!with_hooks)
                return;
        ev_same_hook(src, size, part, &ps, full, &fs, true);
        ev_same_hook(src, size, part, &ps, full, &fs, false);
}

void fuzz_exec_view(const uint8_t *data, size_t size)
{
        fuzz_stats.inputs++;
        fuzz_exec_view_check(data, size, true);
}
