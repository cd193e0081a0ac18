#include "plan/exec_view.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/capsets.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/json_build.h"

int tsync_exec_view_lend_sets(struct tsync_json *caps, struct tsync_err *err)
{
        /* SETPCAP is lent even when the bounding set has it: for a non-root user
         * only the ambient set reaches the init's effective set. */
        bool lend_setpcap = !tsync_json_array_has_string(
                tsync_json_get(caps, tsync_capset(TSYNC_CAPSET_BOUNDING)->json), "CAP_SYS_ADMIN");
        const char *lend[] = { "CAP_SYS_ADMIN", lend_setpcap ? "CAP_SETPCAP" : NULL };
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++) {
                const char *name = tsync_capset(s)->json;
                struct tsync_json *set = tsync_json_get_mut(caps, name);
                if (!set) {
                        if (tsync_json_set(caps, name, tsync_json_new_array()) < 0)
                                return tsync_error(err, ENOMEM, "process.capabilities.%s: out of memory", name);
                        set = tsync_json_get_mut(caps, name);
                }
                if (set->type != TSYNC_JSON_ARRAY)
                        return tsync_error(err, EINVAL, "process.capabilities.%s: expected array, got %s", name,
                                           tsync_json_type_name(set->type));
                for (size_t i = 0; i < ARRAY_SIZE(lend) && lend[i]; i++)
                        if (!tsync_json_array_has_string(set, lend[i]) &&
                            tsync_json_append(set, tsync_json_new_string(lend[i])) < 0)
                                return tsync_error(err, ENOMEM, "process.capabilities.%s: out of memory", name);
        }
        return 0;
}

int tsync_exec_view_lent_capabilities(const struct tsync_plan *plan, struct tsync_json **ret, struct tsync_err *err)
{
        *ret = NULL;
        if (!plan->capabilities || plan->no_new_privileges)
                return 0;
        _cleanup_json_ struct tsync_json *lent = tsync_json_copy(plan->capabilities);
        if (!lent)
                return tsync_error(err, ENOMEM, "out of memory");
        int r = tsync_exec_view_lend_sets(lent, err);
        if (r < 0)
                return r;
        if (!tsync_json_equal(lent, plan->capabilities, NULL, 0))
                *ret = TAKE_PTR(lent);
        return 0;
}

static const char *running_id(const struct tsync_json *config)
{
        const struct tsync_json *v = tsync_json_get(tsync_json_get(config, "annotations"), TSYNC_ANNOTATION_RUNNING);
        if (!v)
                return NULL;
        return v->type == TSYNC_JSON_STRING ? v->u.string.ptr : "(not a string)";
}

static int set_capabilities(struct tsync_json *config, const struct tsync_json *caps)
{
        struct tsync_json *process = tsync_json_get_object(config, "process");
        if (!process)
                return -EINVAL;
        if (!caps) {
                tsync_json_remove(process, "capabilities");
                return 0;
        }
        return tsync_json_set(process, "capabilities", tsync_json_copy(caps));
}

static int expect_capabilities(const struct tsync_json *config, const struct tsync_json *want, const char *form,
                               struct tsync_err *err)
{
        char path[128];
        const struct tsync_json *caps = tsync_json_get(tsync_json_get(config, "process"), "capabilities");
        if (tsync_json_equal(caps, want, path, sizeof(path)))
                return 0;
        return tsync_error(err, EPERM, "process.capabilities%s%s: not %s: the config was edited after inject: refused",
                           path[0] ? "." : "", path, form);
}

int tsync_exec_view_lends(const struct tsync_plan *plan, struct tsync_err *err)
{
        _cleanup_json_ struct tsync_json *lent = NULL;
        int r = tsync_exec_view_lent_capabilities(plan, &lent, err);
        if (r < 0)
                return r;
        return lent != NULL;
}

int tsync_exec_view_restore(struct tsync_json *config, const struct tsync_plan *plan, const char *id,
                            struct tsync_err *err)
{
        _cleanup_json_ struct tsync_json *lent = NULL;
        int r = tsync_exec_view_lent_capabilities(plan, &lent, err);
        return r < 0 ? r : tsync_exec_view_restore_lent(config, plan, lent, id, err);
}

int tsync_exec_view_restore_lent(struct tsync_json *config, const struct tsync_plan *plan,
                                 const struct tsync_json *lent, const char *id, struct tsync_err *err)
{
        int r;
        if (!lent)
                return 0;
        const char *holder = running_id(config);
        if (holder)
                return tsync_error(err, EBUSY,
                                   "annotations.%s: container '%s' started from this config and has not run its "
                                   "poststop hook: its exec'd processes read their capabilities here, so no other "
                                   "container may start from it until then (if '%s' is gone, give its id and bundle "
                                   "to `oci-seccomp-tsync hook poststop` as the OCI state on stdin)",
                                   TSYNC_ANNOTATION_RUNNING, holder, holder);
        r = expect_capabilities(config, lent, "the sets inject lent the init", err);
        if (r < 0)
                return r;
        r = set_capabilities(config, plan->capabilities);
        if (r < 0)
                return tsync_error(err, -r, "restoring process.capabilities: %s", tsync_errtext(-r));
        return id ? tsync_exec_view_mark(config, id, err) : 0;
}

int tsync_exec_view_mark(struct tsync_json *config, const char *id, struct tsync_err *err)
{
        struct tsync_json *annotations = tsync_json_get_object(config, "annotations");
        if (!annotations)
                return tsync_error(err, EINVAL, "annotations: expected object");
        int r = tsync_json_set(annotations, TSYNC_ANNOTATION_RUNNING, tsync_json_new_string(id));
        if (r < 0)
                return tsync_error(err, -r, "annotations.%s: %s", TSYNC_ANNOTATION_RUNNING, tsync_errtext(-r));
        return 0;
}

int tsync_exec_view_lend(struct tsync_json *config, const struct tsync_plan *plan, const char *id, bool *ret_changed,
                         struct tsync_err *err)
{
        *ret_changed = false;
        _cleanup_json_ struct tsync_json *lent = NULL;
        int r = tsync_exec_view_lent_capabilities(plan, &lent, err);
        return r < 0 ? r : tsync_exec_view_lend_lent(config, plan, lent, id, ret_changed, err);
}

int tsync_exec_view_lend_lent(struct tsync_json *config, const struct tsync_plan *plan, const struct tsync_json *lent,
                              const char *id, bool *ret_changed, struct tsync_err *err)
{
        int r;
        *ret_changed = false;
        const char *holder = running_id(config);
        if (!lent || !holder || strcmp(holder, id) != 0)
                return 0; /* not ours to give back */
        r = expect_capabilities(config, plan->capabilities, "the original sets its createRuntime hook put back", err);
        if (r < 0)
                return r;
        r = set_capabilities(config, lent);
        if (r < 0)
                return tsync_error(err, -r, "lending process.capabilities again: %s", tsync_errtext(-r));
        tsync_json_remove(tsync_json_get_mut(config, "annotations"), TSYNC_ANNOTATION_RUNNING);
        *ret_changed = true;
        return 0;
}

void tsync_exec_view_spans(const struct tsync_json *config, struct tsync_exec_view_spans *ret)
{
        *ret = (struct tsync_exec_view_spans){ 0 };
        const struct tsync_json *caps = tsync_json_get(tsync_json_get(config, "process"), "capabilities");
        const struct tsync_json *ann = tsync_json_get(config, "annotations");
        if (!caps || caps->type != TSYNC_JSON_OBJECT || !caps->src_end || !ann || ann->type != TSYNC_JSON_OBJECT ||
            !ann->src_end || ann->u.object.len == 0)
                return;
        for (size_t i = 0; i < ann->u.object.len; i++) {
                if (strcmp(ann->u.object.keys[i], TSYNC_ANNOTATION_RUNNING) != 0)
                        continue;
                /* Removed with the separator before it: there must be a value before it. */
                if (i == 0 || !ann->u.object.values[i - 1]->src_end || !ann->u.object.values[i]->src_end)
                        return;
                ret->running_begin = ann->u.object.values[i - 1]->src_end;
                ret->running_end = ann->u.object.values[i]->src_end;
        }
        ret->caps_begin = caps->src_begin;
        ret->caps_end = caps->src_end;
        const struct tsync_json *last = ann->u.object.values[ann->u.object.len - 1];
        if (!last->src_end)
                return;
        ret->annotations_end = last->src_end;
        ret->ok = true;
}

struct piece {
        size_t begin, end; /* what of the source it replaces */
        char *text;
        size_t len;
};

/* caps as text to put at src[at]: in a file of many lines, pretty, each of
 * its lines indented as the line at starts on (as tsync_json_write's pretty
 * form nests it there); else compact. */
static int caps_text(const char *src, size_t at, const struct tsync_json *caps, char **ret, size_t *ret_len,
                     struct tsync_err *err)
{
        size_t line = at;
        while (line > 0 && src[line - 1] != '\n')
                line--;
        size_t indent = 0;
        while (line + indent < at && (src[line + indent] == ' ' || src[line + indent] == '\t'))
                indent++;
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = tsync_json_write(caps, line > 0, &text, &len, err);
        if (r < 0)
                return r;
        size_t lines = 0;
        for (size_t i = 0; i < len; i++)
                lines += text[i] == '\n';
        /* yajl's pretty form ends in a newline the nesting does not have. */
        if (len > 0 && text[len - 1] == '\n') {
                text[--len] = '\0';
                lines--;
        }
        char *out = malloc(len + lines * indent + 1);
        if (!out)
                return tsync_error(err, ENOMEM, "out of memory");
        size_t o = 0;
        for (size_t i = 0; i < len; i++) {
                out[o++] = text[i];
                if (text[i] == '\n') {
                        memcpy(out + o, src + line, indent);
                        o += indent;
                }
        }
        out[o] = '\0';
        *ret = out;
        *ret_len = o;
        return 0;
}

static int write_whole(const struct tsync_exec_view_spans *spans, const struct tsync_json *config, char **ret,
                       size_t *ret_len, struct tsync_err *err)
{
        /* A partial tree is not the config: writing it would lose the rest. */
        if (spans->partial)
                return tsync_error(err, EINVAL, "the exec view's change cannot be spliced into the config's text");
        return tsync_json_write(config, true, ret, ret_len, err);
}

void tsync_exec_view_pieces_clear(struct tsync_exec_view_pieces *p)
{
        for (size_t i = 0; i < ARRAY_SIZE(p->owned); i++)
                free(p->owned[i]);
        *p = (struct tsync_exec_view_pieces){ 0 };
}

/* The whole of config as the one piece. */
static int whole_piece(const struct tsync_exec_view_spans *spans, const struct tsync_json *config,
                       struct tsync_exec_view_pieces *ret, struct tsync_err *err)
{
        char *text;
        size_t len;
        int r = write_whole(spans, config, &text, &len, err);
        if (r < 0)
                return r;
        *ret = (struct tsync_exec_view_pieces){ .iov = { { text, len } }, .n = 1, .owned = { text } };
        return 0;
}

int tsync_exec_view_pieces(const char *src, size_t len, const struct tsync_exec_view_spans *spans,
                           const struct tsync_json *config, struct tsync_exec_view_pieces *ret, struct tsync_err *err)
{
        *ret = (struct tsync_exec_view_pieces){ 0 };
        const struct tsync_json *caps = tsync_json_get(tsync_json_get(config, "process"), "capabilities");
        const char *running = running_id(config);
        if (!spans->ok || !caps || spans->caps_end > len || spans->annotations_end > len)
                return whole_piece(spans, config, ret, err);
        struct piece p[2] = { { spans->caps_begin, spans->caps_end, NULL, 0 } };
        size_t n = 1;
        int r = caps_text(src, spans->caps_begin, caps, &p[0].text, &p[0].len, err);
        if (r < 0)
                return r;
        if (running && !spans->running_end) {
                /* Added: the new last member of annotations. */
                _cleanup_json_ struct tsync_json *id = tsync_json_new_string(running);
                _cleanup_free_ char *quoted = NULL;
                size_t qlen = 0;
                r = id ? tsync_json_write(id, false, &quoted, &qlen, err) : tsync_error(err, ENOMEM, "out of memory");
                if (r == 0 && asprintf(&p[1].text, ",\"%s\":%s", TSYNC_ANNOTATION_RUNNING, quoted) < 0)
                        r = tsync_error(err, ENOMEM, "out of memory");
                p[1] = (struct piece){ spans->annotations_end, spans->annotations_end, p[1].text,
                                       p[1].text ? strlen(p[1].text) : 0 };
                n = 2;
        } else if (!running && spans->running_end) {
                /* Removed, with the separator before it. */
                p[1] = (struct piece){ spans->running_begin, spans->running_end, strdup(""), 0 };
                n = 2;
                if (!p[1].text)
                        r = tsync_error(err, ENOMEM, "out of memory");
        } else if (running) {
                /* There before and still: a change of holder is not a splice (and never ours to make). */
                free(p[0].text);
                return whole_piece(spans, config, ret, err);
        }
        if (r == 0 && n == 2 && p[1].begin < p[0].begin) {
                struct piece t = p[0];
                p[0] = p[1];
                p[1] = t;
        }
        if (r == 0 && n == 2 && p[0].end > p[1].begin)
                r = tsync_error(err, EINVAL, "process.capabilities and annotations overlap in the config's text");
        if (r < 0) {
                for (size_t i = 0; i < n; i++)
                        free(p[i].text);
                return r;
        }
        /* src up to each piece, the piece, then the rest of src. */
        size_t from = 0;
        for (size_t i = 0; i < n; i++) {
                ret->iov[ret->n++] = (struct iovec){ (char *)(uintptr_t)src + from, p[i].begin - from };
                ret->iov[ret->n++] = (struct iovec){ p[i].text, p[i].len };
                ret->owned[i] = p[i].text;
                from = p[i].end;
        }
        ret->iov[ret->n++] = (struct iovec){ (char *)(uintptr_t)src + from, len - from };
        return 0;
}

int tsync_exec_view_text(const char *src, size_t len, const struct tsync_exec_view_spans *spans,
                         const struct tsync_json *config, char **ret, size_t *ret_len, struct tsync_err *err)
{
        _cleanup_(tsync_exec_view_pieces_clear) struct tsync_exec_view_pieces pieces = { 0 };
        int r = tsync_exec_view_pieces(src, len, spans, config, &pieces, err);
        if (r < 0)
                return r;
        size_t out_len = 0;
        for (size_t i = 0; i < pieces.n; i++)
                out_len += pieces.iov[i].iov_len;
        char *out = malloc(out_len + 1);
        if (!out)
                return tsync_error(err, ENOMEM, "out of memory");
        size_t at = 0;
        for (size_t i = 0; i < pieces.n; i++) {
                memcpy(out + at, pieces.iov[i].iov_base, pieces.iov[i].iov_len);
                at += pieces.iov[i].iov_len;
        }
        out[out_len] = '\0';
        *ret = out;
        *ret_len = out_len;
        return 0;
}
