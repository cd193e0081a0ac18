#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/cleanup.h"
#include "util/json.h"
#include "util/json_build.h"

static struct tsync_json *node(enum tsync_json_type t)
{
        struct tsync_json *v = calloc(1, sizeof(*v));
        if (v)
                v->type = t;
        return v;
}

struct tsync_json *tsync_json_new_object(void)
{
        return node(TSYNC_JSON_OBJECT);
}

struct tsync_json *tsync_json_new_array(void)
{
        return node(TSYNC_JSON_ARRAY);
}

struct tsync_json *tsync_json_new_bool(bool b)
{
        struct tsync_json *v = node(TSYNC_JSON_BOOL);
        if (v)
                v->u.boolean = b;
        return v;
}

static struct tsync_json *new_string_len(const char *s, size_t len)
{
        struct tsync_json *v = node(TSYNC_JSON_STRING);
        if (!v)
                return NULL;
        v->u.string.ptr = malloc(len + 1);
        if (!v->u.string.ptr) {
                free(v);
                return NULL;
        }
        memcpy(v->u.string.ptr, s, len);
        v->u.string.ptr[len] = '\0';
        v->u.string.len = len;
        return v;
}

struct tsync_json *tsync_json_new_string(const char *s)
{
        return new_string_len(s, strlen(s));
}

static struct tsync_json *new_number_text(const char *text)
{
        struct tsync_json *v = node(TSYNC_JSON_NUMBER);
        if (v && !(v->u.number = strdup(text))) {
                free(v);
                return NULL;
        }
        return v;
}

struct tsync_json *tsync_json_new_u64(uint64_t value)
{
        char buf[24];
        (void)snprintf(buf, sizeof(buf), "%" PRIu64, value);
        return new_number_text(buf);
}

struct tsync_json *tsync_json_copy(const struct tsync_json *v)
{
        if (!v)
                return NULL;
        switch (v->type) {
        case TSYNC_JSON_NULL:
                return node(TSYNC_JSON_NULL);
        case TSYNC_JSON_BOOL:
                return tsync_json_new_bool(v->u.boolean);
        case TSYNC_JSON_NUMBER:
                return new_number_text(v->u.number);
        case TSYNC_JSON_STRING:
                return new_string_len(v->u.string.ptr, v->u.string.len);
        case TSYNC_JSON_ARRAY: {
                /* Recursion is bounded by the depth limit every parsed tree obeys. */
                struct tsync_json *a = tsync_json_new_array();
                for (size_t i = 0; a && i < v->u.array.len; i++)
                        if (tsync_json_append(a, tsync_json_copy(v->u.array.items[i])) < 0) {
                                tsync_json_free(a);
                                return NULL;
                        }
                return a;
        }
        case TSYNC_JSON_OBJECT: {
                struct tsync_json *o = tsync_json_new_object();
                for (size_t i = 0; o && i < v->u.object.len; i++)
                        if (tsync_json_set(o, v->u.object.keys[i], tsync_json_copy(v->u.object.values[i])) < 0) {
                                tsync_json_free(o);
                                return NULL;
                        }
                return o;
        }
        }
        return NULL;
}

struct tsync_json *tsync_json_get_mut(struct tsync_json *obj, const char *key)
{
        return (struct tsync_json *)tsync_json_get(obj, key);
}

int tsync_json_set(struct tsync_json *obj, const char *key, struct tsync_json *value)
{
        if (!value)
                return -ENOMEM;
        if (!obj || obj->type != TSYNC_JSON_OBJECT) {
                tsync_json_free(value);
                return -EINVAL;
        }
        for (size_t i = 0; i < obj->u.object.len; i++)
                if (strcmp(obj->u.object.keys[i], key) == 0) {
                        tsync_json_free(obj->u.object.values[i]);
                        obj->u.object.values[i] = value;
                        return 0;
                }
        size_t n = obj->u.object.len;
        char **keys = realloc(obj->u.object.keys, (n + 1) * sizeof(*keys));
        if (keys)
                obj->u.object.keys = keys;
        struct tsync_json **values = realloc(obj->u.object.values, (n + 1) * sizeof(*values));
        if (values)
                obj->u.object.values = values;
        char *k = strdup(key);
        if (!keys || !values || !k) {
                free(k);
                tsync_json_free(value);
                return -ENOMEM;
        }
        obj->u.object.keys[n] = k;
        obj->u.object.values[n] = value;
        obj->u.object.len = n + 1;
        return 0;
}

struct tsync_json *tsync_json_get_object(struct tsync_json *obj, const char *key)
{
        struct tsync_json *v = tsync_json_get_mut(obj, key);
        if (v)
                return v->type == TSYNC_JSON_OBJECT ? v : NULL;
        if (tsync_json_set(obj, key, tsync_json_new_object()) < 0)
                return NULL;
        return tsync_json_get_mut(obj, key);
}

void tsync_json_remove(struct tsync_json *obj, const char *key)
{
        if (!obj || obj->type != TSYNC_JSON_OBJECT)
                return;
        for (size_t i = 0; i < obj->u.object.len; i++)
                if (strcmp(obj->u.object.keys[i], key) == 0) {
                        free(obj->u.object.keys[i]);
                        tsync_json_free(obj->u.object.values[i]);
                        size_t rest = obj->u.object.len - i - 1;
                        memmove(&obj->u.object.keys[i], &obj->u.object.keys[i + 1], rest * sizeof(char *));
                        memmove(&obj->u.object.values[i], &obj->u.object.values[i + 1],
                                rest * sizeof(struct tsync_json *));
                        obj->u.object.len--;
                        return;
                }
}

int tsync_json_append(struct tsync_json *arr, struct tsync_json *value)
{
        if (!value)
                return -ENOMEM;
        if (!arr || arr->type != TSYNC_JSON_ARRAY) {
                tsync_json_free(value);
                return -EINVAL;
        }
        struct tsync_json **items = realloc(arr->u.array.items, (arr->u.array.len + 1) * sizeof(*items));
        if (!items) {
                tsync_json_free(value);
                return -ENOMEM;
        }
        items[arr->u.array.len++] = value;
        arr->u.array.items = items;
        return 0;
}

int tsync_json_insert(struct tsync_json *arr, size_t at, struct tsync_json *value)
{
        if (arr && arr->type == TSYNC_JSON_ARRAY && at > arr->u.array.len) {
                tsync_json_free(value);
                return -EINVAL;
        }
        int r = tsync_json_append(arr, value);
        if (r < 0)
                return r;
        struct tsync_json **items = arr->u.array.items;
        memmove(items + at + 1, items + at, (arr->u.array.len - 1 - at) * sizeof(*items));
        items[at] = value;
        return 0;
}

/* The text being written: grown by doubling; failed once it could not grow. */
struct text {
        char *buf;
        size_t len, cap;
        bool failed;
};

/* Room for n more bytes (and the final NUL), or false (t->failed). */
static bool reserve(struct text *t, size_t n)
{
        if (t->failed)
                return false;
        if (t->cap - t->len > n)
                return true;
        size_t cap = t->cap ? t->cap : 4096;
        while (cap - t->len <= n) {
                if (cap > SIZE_MAX / 2) {
                        t->failed = true;
                        return false;
                }
                cap *= 2;
        }
        char *grown = realloc(t->buf, cap);
        if (!grown) {
                t->failed = true;
                return false;
        }
        t->buf = grown;
        t->cap = cap;
        return true;
}

static void put(struct text *t, const char *s, size_t n)
{
        if (!reserve(t, n))
                return;
        memcpy(t->buf + t->len, s, n);
        t->len += n;
}

static void put_indent(struct text *t, unsigned depth)
{
        for (unsigned i = 0; i < depth; i++)
                put(t, "    ", 4);
}

/* Escaped as yajl's generator escapes (the text stays what it wrote):
 * quote, backslash and the control characters, "/" and DEL as they are.
 * false: not valid UTF-8 (tsync_json_utf8_valid). */
static bool put_string(struct text *t, const char *s, size_t len)
{
        /* Each byte takes at most six ("\u0001"), the quotes two. */
        if (len > (SIZE_MAX - 3) / 6) {
                t->failed = true;
                return true;
        }
        if (!reserve(t, 6 * len + 2))
                return true;
        char *o = t->buf + t->len;
        *o++ = '"';
        for (size_t i = 0; i < len;) {
                unsigned char c = (unsigned char)s[i];
                if (c >= 0x80) {
                        /* A run of multi-byte characters: no ASCII byte is part of one. */
                        size_t j = i + 1;
                        while (j < len && (unsigned char)s[j] >= 0x80)
                                j++;
                        if (!tsync_json_utf8_valid(s + i, j - i))
                                return false;
                        memcpy(o, s + i, j - i);
                        o += j - i;
                        i = j;
                        continue;
                }
                i++;
                if (c >= 0x20 && c != '"' && c != '\\') {
                        *o++ = (char)c;
                        continue;
                }
                static const char hex[] = "0123456789ABCDEF";
                *o++ = '\\';
                switch (c) {
                case '"':
                case '\\':
                        *o++ = (char)c;
                        break;
                case '\b':
                        *o++ = 'b';
                        break;
                case '\f':
                        *o++ = 'f';
                        break;
                case '\n':
                        *o++ = 'n';
                        break;
                case '\r':
                        *o++ = 'r';
                        break;
                case '\t':
                        *o++ = 't';
                        break;
                default:
                        memcpy(o, "u00", 3);
                        o[3] = hex[c >> 4];
                        o[4] = hex[c & 0xf];
                        o += 5;
                }
        }
        *o++ = '"';
        t->len = (size_t)(o - t->buf);
        return true;
}

/* v at nesting depth depth; pretty as yajl's beautify writes it: each
 * member on a line of its own, indented four spaces a level, ": " after a
 * key, and an empty object or array as an empty line between its brackets. */
static bool put_value(struct text *t, const struct tsync_json *v, bool pretty, unsigned depth)
{
        switch (v->type) {
        case TSYNC_JSON_NULL:
                put(t, "null", 4);
                return true;
        case TSYNC_JSON_BOOL:
                put(t, v->u.boolean ? "true" : "false", v->u.boolean ? 4 : 5);
                return true;
        case TSYNC_JSON_NUMBER:
                put(t, v->u.number, strlen(v->u.number));
                return true;
        case TSYNC_JSON_STRING:
                return put_string(t, v->u.string.ptr, v->u.string.len);
        case TSYNC_JSON_ARRAY:
        case TSYNC_JSON_OBJECT:
                break;
        }
        bool object = v->type == TSYNC_JSON_OBJECT;
        size_t n = object ? v->u.object.len : v->u.array.len;
        put(t, object ? "{" : "[", 1);
        if (pretty)
                put(t, "\n", 1);
        for (size_t i = 0; i < n; i++) {
                if (i > 0)
                        put(t, pretty ? ",\n" : ",", pretty ? 2 : 1);
                if (pretty)
                        put_indent(t, depth + 1);
                if (object) {
                        const char *k = v->u.object.keys[i];
                        if (!put_string(t, k, strlen(k)))
                                return false;
                        put(t, pretty ? ": " : ":", pretty ? 2 : 1);
                }
                if (!put_value(t, object ? v->u.object.values[i] : v->u.array.items[i], pretty, depth + 1))
                        return false;
        }
        if (pretty) {
                put(t, "\n", 1);
                put_indent(t, depth);
        }
        put(t, object ? "}" : "]", 1);
        return true;
}

int tsync_json_write(const struct tsync_json *v, bool pretty, char **ret, size_t *ret_len, struct tsync_err *err)
{
        struct text t = { 0 };
        bool ok = put_value(&t, v, pretty, 0);
        if (pretty)
                put(&t, "\n", 1);
        put(&t, "", 1);
        if (!ok || t.failed) {
                free(t.buf);
                return ok ? tsync_error(err, ENOMEM, "out of memory")
                          : tsync_error(err, EINVAL, "cannot write the JSON document: a string is not valid UTF-8");
        }
        *ret = t.buf;
        *ret_len = t.len - 1;
        return 0;
}

/* Appends ".key" or "[i]" to path; a path too long for the buffer ends in "...". */
static void path_push(char *path, size_t size, const char *key, size_t index)
{
        size_t n = strlen(path);
        if (n + 4 >= size)
                return;
        int w = key ? snprintf(path + n, size - n, "%s%s", n ? "." : "", key)
                    : snprintf(path + n, size - n, "[%zu]", index);
        if (w < 0 || (size_t)w >= size - n)
                (void)snprintf(path + size - 4, 4, "...");
}

/* path: where a and b are, grown to where they differ; NULL: not tracked. */
static bool equal_at(const struct tsync_json *a, const struct tsync_json *b, char *path, size_t size)
{
        if (!a || !b || a->type != b->type)
                return !a && !b;
        switch (a->type) {
        case TSYNC_JSON_NULL:
                return true;
        case TSYNC_JSON_BOOL:
                return a->u.boolean == b->u.boolean;
        case TSYNC_JSON_NUMBER:
                return strcmp(a->u.number, b->u.number) == 0;
        case TSYNC_JSON_STRING:
                return a->u.string.len == b->u.string.len &&
                       memcmp(a->u.string.ptr, b->u.string.ptr, a->u.string.len) == 0;
        case TSYNC_JSON_ARRAY:
                for (size_t i = 0; i < a->u.array.len || i < b->u.array.len; i++) {
                        size_t n = path ? strlen(path) : 0;
                        if (path)
                                path_push(path, size, NULL, i);
                        if (i >= a->u.array.len || i >= b->u.array.len ||
                            !equal_at(a->u.array.items[i], b->u.array.items[i], path, size))
                                return false;
                        if (path)
                                path[n] = '\0';
                }
                return true;
        case TSYNC_JSON_OBJECT:
                /* Keys of a first, in a's order, then keys only b has. */
                for (size_t pass = 0; pass < 2; pass++) {
                        const struct tsync_json *x = pass ? b : a, *y = pass ? a : b;
                        for (size_t i = 0; i < x->u.object.len; i++) {
                                const struct tsync_json *other = tsync_json_get(y, x->u.object.keys[i]);
                                if (pass && other)
                                        continue;
                                size_t n = path ? strlen(path) : 0;
                                if (path)
                                        path_push(path, size, x->u.object.keys[i], 0);
                                if (!equal_at(x->u.object.values[i], other, path, size))
                                        return false;
                                if (path)
                                        path[n] = '\0';
                        }
                }
                return true;
        }
        return false;
}

bool tsync_json_equal(const struct tsync_json *a, const struct tsync_json *b, char *ret_path, size_t size)
{
        /* The path only once they differ: tracking it costs more than the
         * comparison (the exec view's hooks compare the capability sets at
         * every start and stop). */
        bool track = ret_path && size >= 8;
        if (track)
                ret_path[0] = '\0';
        if (equal_at(a, b, NULL, 0))
                return true;
        if (track)
                (void)equal_at(a, b, ret_path, size);
        return false;
}
