#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "shared/cleanup.h"
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

static int gen(yajl_gen g, const struct tsync_json *v)
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
                        s = gen(g, v->u.array.items[i]) == 0 ? yajl_gen_status_ok : yajl_gen_invalid_string;
                if (s == yajl_gen_status_ok)
                        s = yajl_gen_array_close(g);
                break;
        case TSYNC_JSON_OBJECT:
                s = yajl_gen_map_open(g);
                for (size_t i = 0; s == yajl_gen_status_ok && i < v->u.object.len; i++) {
                        const char *k = v->u.object.keys[i];
                        s = yajl_gen_string(g, (const unsigned char *)k, strlen(k));
                        if (s == yajl_gen_status_ok)
                                s = gen(g, v->u.object.values[i]) == 0 ? yajl_gen_status_ok : yajl_gen_invalid_string;
                }
                if (s == yajl_gen_status_ok)
                        s = yajl_gen_map_close(g);
                break;
        }
        return s == yajl_gen_status_ok ? 0 : -EINVAL;
}

int tsync_json_write(const struct tsync_json *v, bool pretty, char **ret, size_t *ret_len, struct tsync_err *err)
{
        yajl_gen g = yajl_gen_alloc(NULL);
        if (!g)
                return tsync_error(err, ENOMEM, "out of memory");
        (void)yajl_gen_config(g, yajl_gen_beautify, pretty ? 1 : 0);
        (void)yajl_gen_config(g, yajl_gen_validate_utf8, 1);
        int r = gen(g, v);
        if (r < 0) {
                yajl_gen_free(g);
                return tsync_error(err, EINVAL, "cannot write the JSON document (invalid UTF-8?)");
        }
        const unsigned char *buf;
        size_t len;
        (void)yajl_gen_get_buf(g, &buf, &len);
        char *out = malloc(len + 1);
        if (!out) {
                yajl_gen_free(g);
                return tsync_error(err, ENOMEM, "out of memory");
        }
        memcpy(out, buf, len);
        out[len] = '\0';
        yajl_gen_free(g);
        *ret = out;
        *ret_len = len;
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
