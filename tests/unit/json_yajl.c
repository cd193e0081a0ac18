/* The oracle of json_yajl.h: yajl 2.1's callback parser, with the checks
 * util/json.c made on what yajl let through (strict UTF-8 after decoding,
 * escaped surrogates paired, no NUL in keys, no duplicate keys, a depth limit). */
#include "json_yajl.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "shared/cleanup.h"

struct oracle {
        yajl_handle handle;
        const char *input;
        size_t len;
        unsigned max_depth;
        struct tsync_json *root;
        struct tsync_json *open[4096];
        size_t depth;
        int error;
};

static int stop(struct oracle *o, int error)
{
        o->error = error;
        return 0;
}

static size_t consumed(const struct oracle *o)
{
        return yajl_get_bytes_consumed(o->handle);
}

static int attach(struct oracle *o, struct tsync_json *v)
{
        if (o->depth == 0) {
                o->root = v;
                return 1;
        }
        struct tsync_json *top = o->open[o->depth - 1];
        if (top->type == TSYNC_JSON_OBJECT) {
                top->u.object.values[top->u.object.len - 1] = v;
                return 1;
        }
        struct tsync_json **items = reallocarray(top->u.array.items, top->u.array.len + 1, sizeof(*items));
        if (!items) {
                tsync_json_free(v);
                return stop(o, -ENOMEM);
        }
        top->u.array.items = items;
        items[top->u.array.len++] = v;
        return 1;
}

static struct tsync_json *leaf(struct oracle *o, enum tsync_json_type type)
{
        struct tsync_json *v = calloc(1, sizeof(*v));
        if (v) {
                v->type = type;
                v->src_end = consumed(o);
        }
        return v;
}

static int on_null(void *ctx)
{
        struct tsync_json *v = leaf(ctx, TSYNC_JSON_NULL);
        return v ? attach(ctx, v) : stop(ctx, -ENOMEM);
}

static int on_boolean(void *ctx, int b)
{
        struct tsync_json *v = leaf(ctx, TSYNC_JSON_BOOL);
        if (!v)
                return stop(ctx, -ENOMEM);
        v->u.boolean = b != 0;
        return attach(ctx, v);
}

static int on_number(void *ctx, const char *s, size_t len)
{
        struct oracle *o = ctx;
        struct tsync_json *v = leaf(o, TSYNC_JSON_NUMBER);
        /* A number alone is only known to end at yajl_complete_parse, whose
         * offset is 0: it ends where its text does. */
        if (v && o->depth == 0)
                v->src_end = strspn(o->input, " \t\r\n") + len;
        if (v && !(v->u.number = strndup(s, len))) {
                free(v);
                v = NULL;
        }
        return v ? attach(ctx, v) : stop(ctx, -ENOMEM);
}

static unsigned hex4(const char *s)
{
        unsigned v = 0;
        for (int i = 0; i < 4; i++)
                v = v << 4 | (unsigned)(s[i] <= '9' ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10);
        return v;
}

/* yajl pairs a high surrogate with any \u after it and turns a lone one into
 * '?': the raw text of the string just read (yajl's offset is past its
 * closing quote) is checked instead. */
static bool surrogates_paired(const struct oracle *o)
{
        size_t end = consumed(o);
        if (end < 2 || end > o->len || o->input[end - 1] != '"')
                return true;
        size_t start = end - 1;
        for (;;) {
                if (start == 0)
                        return true;
                start--;
                if (o->input[start] != '"')
                        continue;
                size_t bs = 0;
                while (start - bs > 0 && o->input[start - bs - 1] == '\\')
                        bs++;
                if (bs % 2 == 0)
                        break;
        }
        const char *s = o->input + start + 1, *e = o->input + end - 1;
        while (s < e) {
                if (*s != '\\') {
                        s++;
                        continue;
                }
                if (s[1] != 'u') {
                        s += 2;
                        continue;
                }
                unsigned cp = hex4(s + 2);
                s += 6;
                if (cp >= 0xdc00 && cp <= 0xdfff)
                        return false;
                if (cp >= 0xd800 && cp <= 0xdbff) {
                        if (e - s < 6 || s[0] != '\\' || s[1] != 'u')
                                return false;
                        unsigned lo = hex4(s + 2);
                        if (lo < 0xdc00 || lo > 0xdfff)
                                return false;
                        s += 6;
                }
        }
        return true;
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
        struct oracle *o = ctx;
        if (!tsync_json_utf8_valid(s, len) || !surrogates_paired(o))
                return stop(o, -EINVAL);
        struct tsync_json *v = leaf(o, TSYNC_JSON_STRING);
        if (v && !(v->u.string.ptr = malloc(len + 1))) {
                free(v);
                v = NULL;
        }
        if (!v)
                return stop(o, -ENOMEM);
        memcpy(v->u.string.ptr, s, len);
        v->u.string.ptr[len] = '\0';
        v->u.string.len = len;
        return attach(o, v);
}

static int on_map_key(void *ctx, const unsigned char *s, size_t len)
{
        struct oracle *o = ctx;
        struct tsync_json *obj = o->open[o->depth - 1];
        if (memchr(s, '\0', len) || !tsync_json_utf8_valid(s, len) || !surrogates_paired(o))
                return stop(o, -EINVAL);
        size_t n = obj->u.object.len;
        char **keys = reallocarray(obj->u.object.keys, n + 1, sizeof(*keys));
        if (keys)
                obj->u.object.keys = keys;
        struct tsync_json **values = keys ? reallocarray(obj->u.object.values, n + 1, sizeof(*values)) : NULL;
        if (values)
                obj->u.object.values = values;
        char *key = values ? strndup((const char *)s, len) : NULL;
        if (!key)
                return stop(o, -ENOMEM);
        keys[n] = key;
        values[n] = NULL; /* a value that never comes is freed with the tree */
        obj->u.object.len++;
        return 1;
}

static int open_container(struct oracle *o, enum tsync_json_type type)
{
        if (o->depth >= o->max_depth || o->depth >= sizeof(o->open) / sizeof(o->open[0]))
                return stop(o, -EINVAL);
        struct tsync_json *v = calloc(1, sizeof(*v));
        if (!v)
                return stop(o, -ENOMEM);
        v->type = type;
        v->src_begin = consumed(o) - 1;
        if (!attach(o, v))
                return 0;
        o->open[o->depth++] = v;
        return 1;
}

static int on_start_map(void *ctx)
{
        return open_container(ctx, TSYNC_JSON_OBJECT);
}

static int on_start_array(void *ctx)
{
        return open_container(ctx, TSYNC_JSON_ARRAY);
}

static int on_end(void *ctx)
{
        struct oracle *o = ctx;
        struct tsync_json *top = o->open[o->depth - 1];
        if (top->type == TSYNC_JSON_OBJECT)
                for (size_t i = 0; i < top->u.object.len; i++)
                        for (size_t k = i + 1; k < top->u.object.len; k++)
                                if (strcmp(top->u.object.keys[i], top->u.object.keys[k]) == 0)
                                        return stop(o, -EINVAL);
        top->src_end = consumed(o);
        o->depth--;
        return 1;
}

static const yajl_callbacks callbacks = {
        .yajl_null = on_null,
        .yajl_boolean = on_boolean,
        .yajl_number = on_number,
        .yajl_string = on_string,
        .yajl_start_map = on_start_map,
        .yajl_map_key = on_map_key,
        .yajl_end_map = on_end,
        .yajl_start_array = on_start_array,
        .yajl_end_array = on_end,
};

int json_yajl_parse(const char *buf, size_t len, unsigned max_depth, struct tsync_json **ret)
{
        size_t i = 0;
        while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
                i++;
        if (i == len)
                return -EINVAL;
        struct oracle o = { .input = buf,
                            .len = len,
                            .max_depth = max_depth ? max_depth : TSYNC_JSON_DEFAULT_MAX_DEPTH };
        o.handle = yajl_alloc(&callbacks, NULL, &o);
        if (!o.handle)
                return -ENOMEM;
        yajl_status st = yajl_parse(o.handle, (const unsigned char *)buf, len);
        if (st == yajl_status_ok && !o.error)
                st = yajl_complete_parse(o.handle);
        yajl_free(o.handle);
        int r = o.error ? o.error : st != yajl_status_ok || !o.root ? -EINVAL : 0;
        if (r < 0) {
                tsync_json_free(o.root);
                return r;
        }
        *ret = o.root;
        return 0;
}

bool json_same_tree(const struct tsync_json *a, const struct tsync_json *b, char *why, size_t size)
{
        if (a->type != b->type || a->src_begin != b->src_begin || a->src_end != b->src_end) {
                (void)snprintf(why, size, "%s [%zu,%zu) against %s [%zu,%zu)", tsync_json_type_name(a->type),
                               a->src_begin, a->src_end, tsync_json_type_name(b->type), b->src_begin, b->src_end);
                return false;
        }
        bool same = true;
        switch (a->type) {
        case TSYNC_JSON_NULL:
                break;
        case TSYNC_JSON_BOOL:
                same = a->u.boolean == b->u.boolean;
                break;
        case TSYNC_JSON_NUMBER:
                same = strcmp(a->u.number, b->u.number) == 0;
                break;
        case TSYNC_JSON_STRING:
                same = a->u.string.len == b->u.string.len &&
                       memcmp(a->u.string.ptr, b->u.string.ptr, a->u.string.len + 1) == 0;
                break;
        case TSYNC_JSON_ARRAY:
                if (a->u.array.len != b->u.array.len) {
                        (void)snprintf(why, size, "arrays at %zu: %zu and %zu items", a->src_begin, a->u.array.len,
                                       b->u.array.len);
                        return false;
                }
                for (size_t i = 0; i < a->u.array.len; i++)
                        if (!json_same_tree(a->u.array.items[i], b->u.array.items[i], why, size))
                                return false;
                return true;
        case TSYNC_JSON_OBJECT:
                if (a->u.object.len != b->u.object.len) {
                        (void)snprintf(why, size, "objects at %zu: %zu and %zu members", a->src_begin, a->u.object.len,
                                       b->u.object.len);
                        return false;
                }
                for (size_t i = 0; i < a->u.object.len; i++) {
                        if (strcmp(a->u.object.keys[i], b->u.object.keys[i]) != 0) {
                                (void)snprintf(why, size, "object at %zu: key %zu differs", a->src_begin, i);
                                return false;
                        }
                        if (!json_same_tree(a->u.object.values[i], b->u.object.values[i], why, size))
                                return false;
                }
                return true;
        }
        if (!same)
                (void)snprintf(why, size, "%s at [%zu,%zu) differs", tsync_json_type_name(a->type), a->src_begin,
                               a->src_end);
        return same;
}

/* The byte a syntax refusal names ("invalid JSON at byte N: why", after the
 * path, which may hold any text: the last such words), 0 if none; *why after it. */
static size_t refused_at(const char *msg, const char **why)
{
        static const char words[] = "invalid JSON at byte ";
        const char *at = NULL;
        for (const char *s = strstr(msg, words); s; s = strstr(s + 1, words))
                at = s;
        if (!at)
                return 0;
        char *end;
        size_t n = strtoul(at + strlen(words), &end, 10);
        *why = end;
        return n;
}

/* Whether a string whose text starts at s has no closing quote. */
static bool never_closed(const char *s, size_t len)
{
        for (size_t i = 0; i < len; i += s[i] == '\\' ? 2 : 1)
                if (s[i] == '"')
                        return false;
        return true;
}

bool json_parsers_agree(const char *buf, size_t len, unsigned max_depth, char *why, size_t size)
{
        struct tsync_err err = { 0 };
        struct tsync_json_limits lim = { .max_bytes = len ? len : 1, .max_depth = max_depth };
        _cleanup_json_ struct tsync_json *ours = NULL, *theirs = NULL;
        int r = tsync_json_parse(buf, len, &lim, &ours, &err);
        int o = json_yajl_parse(buf, len, max_depth, &theirs);
        if (r == -ENOMEM || o == -ENOMEM) {
                (void)snprintf(why, size, "out of memory");
                return false;
        }
        if (r == 0 && o == 0)
                return json_same_tree(ours, theirs, why, size);
        if (r == 0) {
                (void)snprintf(why, size, "taken by tsync_json_parse, refused by yajl");
                return false;
        }
        const char *reason = "";
        size_t at = refused_at(err.msg, &reason);
        if (strcmp(reason, ": premature EOF") == 0 && at != len) {
                (void)snprintf(why, size, "a premature EOF at byte %zu of %zu: %s", at, len, err.msg);
                return false;
        }
        /* yajl's two: \f and \v as white space, and a string opened after
         * the document and never closed (yajl waits for its end, then
         * forgets it), as in '{}"abc'. */
        bool yajl_alone =
                at >= 1 && at <= len &&
                (buf[at - 1] == '\f' || buf[at - 1] == '\v' ||
                 (strcmp(reason, ": trailing garbage") == 0 && buf[at - 1] == '"' && never_closed(buf + at, len - at)));
        if (o == 0 && !yajl_alone) {
                (void)snprintf(why, size, "taken by yajl, refused by tsync_json_parse: %s", err.msg);
                return false;
        }
        return true;
}
