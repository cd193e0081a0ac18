/* The JSON tree of util/json.h, built from yajl's callback parser.
 *
 * Paths in messages: members of the top-level object are "linux", nested ones
 * "linux.seccomp", array elements "syscalls[3]"; a key that is not made of
 * [A-Za-z0-9_-] is written ["io.containers.seccomp"] so the path stays
 * unambiguous. The document itself is "(root)", so a parse error always starts
 * with "<path>: ". The typed readers (tsync_json_u64, ...) print the path they
 * are given; an empty or NULL path leaves the prefix out, for callers that add
 * their own with tsync_error_prefix().
 *
 * Error codes: EFBIG for input over max_bytes, ENOMEM, EISDIR for a directory,
 * errno from open/fstat/read, and EINVAL for everything about the content. */
#include "util/json.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>

#include "shared/cleanup.h"
#include "util/fileio.h"

/* One open array or object. cap is the allocated length of its item arrays:
 * kept here, not in the public struct, because only open containers grow. */
struct frame {
        struct tsync_json *node;
        size_t cap;
};

struct parser {
        yajl_handle handle;
        const char *input;
        size_t input_len;
        unsigned max_depth;
        struct tsync_json *root; /* owns every node made so far, also on errors */
        struct frame *frames;
        size_t depth;
        size_t frames_cap;
        struct tsync_err *err;
        int error; /* -errno set by a callback that stopped the parse */
};

/* A fixed buffer that is filled as far as it goes: messages are capped anyway. */
struct strbuf {
        char *p;
        size_t size;
        size_t len;
};

__attribute__((format(printf, 2, 3))) static void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
        if (sb->len + 1 >= sb->size)
                return;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(sb->p + sb->len, sb->size - sb->len, fmt, ap);
        va_end(ap);
        if (n > 0)
                sb->len += (size_t)n < sb->size - sb->len ? (size_t)n : sb->size - sb->len - 1;
}

/* User text inside a one-line message: control bytes become \u00XX, quotes
 * and backslashes are escaped, at most 64 bytes are shown. */
static void sb_quoted(struct strbuf *sb, const char *s, size_t len, char quote)
{
        size_t shown = len > 64 ? 64 : len;
        sb_printf(sb, "%c", quote);
        for (size_t i = 0; i < shown; i++) {
                unsigned char c = (unsigned char)s[i];
                if (c < 0x20 || c == 0x7f)
                        sb_printf(sb, "\\u%04x", c);
                else if (c == (unsigned char)quote || c == '\\')
                        sb_printf(sb, "\\%c", c);
                else
                        sb_printf(sb, "%c", c);
        }
        sb_printf(sb, "%s%c", shown < len ? "..." : "", quote);
}

static bool plain_key(const char *key)
{
        if (!*key)
                return false;
        for (const char *k = key; *k; k++)
                if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') || *k == '_' ||
                      *k == '-'))
                        return false;
        return true;
}

/* A key step of a path: ".key" (no dot when first), or ["key"] for keys
 * that are not plain or are long (sb_quoted shortens those). */
static void sb_key(struct strbuf *sb, const char *key, bool first)
{
        if (plain_key(key) && strlen(key) <= 64) {
                sb_printf(sb, "%s%s", first ? "" : ".", key);
        } else {
                sb_printf(sb, "[");
                sb_quoted(sb, key, strlen(key), '"');
                sb_printf(sb, "]");
        }
}

static void render_step(const struct parser *p, size_t i, struct strbuf *sb)
{
        const struct tsync_json *node = p->frames[i].node;
        bool inner = i + 1 == p->depth;
        if (node->type == TSYNC_JSON_ARRAY)
                /* outer arrays already hold the child being read */
                sb_printf(sb, "[%zu]", node->u.array.len - (inner ? 0 : 1));
        else if (node->u.object.len > 0)
                sb_key(sb, node->u.object.keys[node->u.object.len - 1], i == 0);
}

/* The path being parsed. at_value: the innermost step is the value being
 * read (in an array the next index, in an object the latest key); otherwise
 * the path of the innermost container itself. A long path keeps its start
 * and its end around "...", so the message after it survives the cap. */
static void render_path(const struct parser *p, bool at_value, char *buf, size_t size)
{
        enum { HEAD = 96, TAIL = 192 };
        struct strbuf sb = { buf, size, 0 };
        size_t n = at_value || p->depth == 0 ? p->depth : p->depth - 1;
        size_t k = 0, t, tail = 0;
        char step[512];

        buf[0] = '\0';
        for (; k < n && sb.len < HEAD; k++)
                render_step(p, k, &sb);
        for (t = n; t > k; t--) {
                struct strbuf one = { step, sizeof(step), 0 };
                render_step(p, t - 1, &one);
                if (tail + one.len > TAIL)
                        break;
                tail += one.len;
        }
        if (t > k)
                sb_printf(&sb, "...");
        for (; t < n; t++)
                render_step(p, t, &sb);
        if (sb.len == 0)
                sb_printf(&sb, "(root)");
}

/* Records "<path>: <message>" and returns 0, so callbacks can `return fail(...)`
 * to stop yajl. */
__attribute__((format(printf, 4, 5))) static int fail(struct parser *p, bool at_value, int code, const char *fmt, ...)
{
        char path[TSYNC_ERR_MSG_MAX], msg[TSYNC_ERR_MSG_MAX];
        render_path(p, at_value, path, sizeof(path));
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        p->error = tsync_error(p->err, code, "%s: %s", path, msg);
        return 0;
}

static int fail_nomem(struct parser *p)
{
        return fail(p, true, ENOMEM, "out of memory");
}

/* Grows an array of elem-sized slots so that one more fits; *cap changes only on success. */
static int grow(void **arr, size_t *cap, size_t len, size_t elem)
{
        if (len < *cap)
                return 0;
        size_t n = *cap ? *cap * 2 : 4;
        void *a = reallocarray(*arr, n, elem);
        if (!a)
                return -ENOMEM;
        *arr = a;
        *cap = n;
        return 0;
}

/* yajl checks the raw text less strictly, and its \u decoding can produce
 * surrogates, so the decoded bytes are checked again. */
bool tsync_json_utf8_valid(const void *text, size_t len)
{
        const unsigned char *s = text;
        size_t i = 0;
        while (i < len) {
                unsigned char c = s[i];
                size_t n;
                uint32_t cp, min;
                if (c < 0x80) {
                        i++;
                        continue;
                } else if ((c & 0xe0) == 0xc0) {
                        n = 1, cp = c & 0x1f, min = 0x80;
                } else if ((c & 0xf0) == 0xe0) {
                        n = 2, cp = c & 0x0f, min = 0x800;
                } else if ((c & 0xf8) == 0xf0) {
                        n = 3, cp = c & 0x07, min = 0x10000;
                } else {
                        return false;
                }
                if (len - i - 1 < n)
                        return false;
                for (size_t k = 1; k <= n; k++) {
                        if ((s[i + k] & 0xc0) != 0x80)
                                return false;
                        cp = cp << 6 | (s[i + k] & 0x3f);
                }
                if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                        return false;
                i += n + 1;
        }
        return true;
}

static unsigned hex4(const char *s)
{
        unsigned v = 0;
        for (int i = 0; i < 4; i++) {
                char c = s[i];
                v = v << 4 | (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        }
        return v;
}

/* yajl 2.1 turns a high surrogate that is not followed by a low one into '?'
 * and drops the next character, and pairs a high surrogate with any \u
 * escape after it. Both would silently change a name, so the raw string is
 * checked here. It is found from yajl's offset, which during a callback is
 * just past the closing quote: the opening quote is the nearest quote before
 * it that is not escaped. Returns false only for a bad escape. */
static bool surrogates_paired(const struct parser *p)
{
        size_t end = yajl_get_bytes_consumed(p->handle);
        if (end < 2 || end > p->input_len || p->input[end - 1] != '"')
                return true; /* not in the buffer we gave yajl: nothing to check against */
        size_t start = end - 1;
        for (;;) {
                if (start == 0)
                        return true;
                start--;
                if (p->input[start] != '"')
                        continue;
                size_t bs = 0;
                while (start - bs > 0 && p->input[start - bs - 1] == '\\')
                        bs++;
                if (bs % 2 == 0)
                        break;
        }
        const char *s = p->input + start + 1, *e = p->input + end - 1;
        while (s < e) {
                if (*s != '\\') {
                        s++;
                        continue;
                }
                if (s[1] != 'u') {
                        s += 2;
                        continue;
                }
                if (e - s < 6)
                        return false;
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

/* Puts a finished node into the open container (or makes it the root). */
static int attach(struct parser *p, struct tsync_json *node)
{
        if (p->depth == 0) {
                p->root = node;
                return 0;
        }
        struct frame *f = &p->frames[p->depth - 1];
        struct tsync_json *parent = f->node;
        if (parent->type == TSYNC_JSON_OBJECT) {
                /* on_map_key added the key with an empty value slot */
                parent->u.object.values[parent->u.object.len - 1] = node;
                return 0;
        }
        void *items = parent->u.array.items;
        if (grow(&items, &f->cap, parent->u.array.len, sizeof(*parent->u.array.items)) < 0)
                return -ENOMEM;
        parent->u.array.items = items;
        parent->u.array.items[parent->u.array.len++] = node;
        return 0;
}

static struct tsync_json *new_node(enum tsync_json_type type)
{
        struct tsync_json *v = calloc(1, sizeof(*v));
        if (v)
                v->type = type;
        return v;
}

static int add_leaf(struct parser *p, struct tsync_json *node)
{
        if (!node)
                return fail_nomem(p);
        node->src_end = yajl_get_bytes_consumed(p->handle);
        if (attach(p, node) < 0) {
                tsync_json_free(node);
                return fail_nomem(p);
        }
        return 1;
}

static int on_null(void *ctx)
{
        return add_leaf(ctx, new_node(TSYNC_JSON_NULL));
}

static int on_boolean(void *ctx, int value)
{
        struct tsync_json *v = new_node(TSYNC_JSON_BOOL);
        if (v)
                v->u.boolean = value != 0;
        return add_leaf(ctx, v);
}

static int on_number(void *ctx, const char *text, size_t len)
{
        struct tsync_json *v = new_node(TSYNC_JSON_NUMBER);
        if (v && !(v->u.number = strndup(text, len))) {
                free(v);
                v = NULL;
        }
        return add_leaf(ctx, v);
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
        struct parser *p = ctx;
        if (!tsync_json_utf8_valid(s, len) || !surrogates_paired(p))
                return fail(p, true, EINVAL, "invalid UTF-8 or unpaired UTF-16 surrogate in string");
        struct tsync_json *v = new_node(TSYNC_JSON_STRING);
        if (v) {
                v->u.string.ptr = malloc(len + 1);
                if (!v->u.string.ptr) {
                        free(v);
                        return fail_nomem(p);
                }
                memcpy(v->u.string.ptr, s, len);
                v->u.string.ptr[len] = '\0';
                v->u.string.len = len;
        }
        return add_leaf(p, v);
}

static int on_map_key(void *ctx, const unsigned char *s, size_t len)
{
        struct parser *p = ctx;
        struct frame *f = &p->frames[p->depth - 1];
        struct tsync_json *obj = f->node;
        char shown[TSYNC_ERR_MSG_MAX];
        struct strbuf sb = { shown, sizeof(shown), 0 };

        if (memchr(s, '\0', len)) {
                sb_quoted(&sb, (const char *)s, len, '\'');
                return fail(p, false, EINVAL, "key %s contains a NUL byte", shown);
        }
        /* the key is not shown: it is not valid text */
        if (!tsync_json_utf8_valid(s, len) || !surrogates_paired(p))
                return fail(p, false, EINVAL, "a key has invalid UTF-8 or an unpaired UTF-16 surrogate");
        char *key = strndup((const char *)s, len);
        if (!key)
                return fail_nomem(p);
        /* keys and values grow together: cap counts both */
        size_t cap = f->cap;
        void *keys = obj->u.object.keys, *values = obj->u.object.values;
        int r = grow(&keys, &cap, obj->u.object.len, sizeof(char *));
        obj->u.object.keys = keys;
        if (r == 0) {
                cap = f->cap;
                r = grow(&values, &cap, obj->u.object.len, sizeof(struct tsync_json *));
                obj->u.object.values = values;
        }
        if (r < 0) {
                free(key);
                return fail_nomem(p);
        }
        f->cap = cap;
        obj->u.object.keys[obj->u.object.len] = key;
        obj->u.object.values[obj->u.object.len] = NULL;
        obj->u.object.len++;
        return 1;
}

static int open_container(struct parser *p, enum tsync_json_type type)
{
        if (p->depth >= p->max_depth)
                return fail(p, true, EINVAL, "nesting is deeper than the limit of %u levels", p->max_depth);
        struct tsync_json *v = new_node(type);
        if (!v)
                return fail_nomem(p);
        /* yajl has consumed the '{' or '[' */
        v->src_begin = yajl_get_bytes_consumed(p->handle) - 1;
        if (attach(p, v) < 0) {
                free(v);
                return fail_nomem(p);
        }
        /* from here v belongs to the tree and is freed with it */
        void *frames = p->frames;
        if (grow(&frames, &p->frames_cap, p->depth, sizeof(*p->frames)) < 0)
                return fail_nomem(p);
        p->frames = frames;
        p->frames[p->depth++] = (struct frame){ .node = v, .cap = 0 };
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

static int cmp_keys(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Checked once the object is complete: sorting a copy of the keys keeps a
 * large object O(n log n) where a check per key would be quadratic. */
static int on_end_map(void *ctx)
{
        struct parser *p = ctx;
        const struct tsync_json *obj = p->frames[p->depth - 1].node;
        size_t n = obj->u.object.len;
        const char *dup = NULL;

        if (n >= 2) {
                _cleanup_free_ char **sorted = reallocarray(NULL, n, sizeof(*sorted));
                if (!sorted)
                        return fail_nomem(p);
                memcpy(sorted, obj->u.object.keys, n * sizeof(*sorted));
                qsort(sorted, n, sizeof(*sorted), cmp_keys);
                for (size_t i = 1; i < n && !dup; i++)
                        if (strcmp(sorted[i - 1], sorted[i]) == 0)
                                dup = sorted[i];
                if (dup) {
                        char shown[TSYNC_ERR_MSG_MAX];
                        struct strbuf sb = { shown, sizeof(shown), 0 };
                        sb_quoted(&sb, dup, strlen(dup), '\'');
                        return fail(p, false, EINVAL, "duplicate key %s", shown);
                }
        }
        p->frames[p->depth - 1].node->src_end = yajl_get_bytes_consumed(p->handle);
        p->depth--;
        return 1;
}

static int on_end_array(void *ctx)
{
        struct parser *p = ctx;
        p->frames[p->depth - 1].node->src_end = yajl_get_bytes_consumed(p->handle);
        p->depth--;
        return 1;
}

static const yajl_callbacks callbacks = {
        .yajl_null = on_null,
        .yajl_boolean = on_boolean,
        .yajl_number = on_number, /* set, so yajl_integer/yajl_double are never used */
        .yajl_string = on_string,
        .yajl_start_map = on_start_map,
        .yajl_map_key = on_map_key,
        .yajl_end_map = on_end_map,
        .yajl_start_array = on_start_array,
        .yajl_end_array = on_end_array,
};

/* yajl's non-verbose text is "parse error: premature EOF\n" or "lexical
 * error: invalid char in json text.\n": keep the part after the kind, on one
 * line. offset is yajl's count of bytes consumed, which includes the byte it
 * stopped at: the 1-based position of that byte, or the length at the end. */
static int syntax_error(struct parser *p, size_t offset)
{
        unsigned char *text = yajl_get_error(p->handle, 0, NULL, 0);
        char why[256] = "invalid text";
        if (text) {
                const char *t = (const char *)text;
                const char *colon = strstr(t, "error: ");
                (void)snprintf(why, sizeof(why), "%s", colon ? colon + strlen("error: ") : t);
                yajl_free_error(p->handle, text);
        }
        size_t n = strlen(why);
        while (n > 0 && (why[n - 1] == '\n' || why[n - 1] == '\r' || why[n - 1] == ' ' || why[n - 1] == '.'))
                why[--n] = '\0';
        for (char *c = why; *c; c++)
                if (*c == '\n' || *c == '\r')
                        *c = ' ';
        (void)fail(p, true, EINVAL, "invalid JSON at byte %zu: %s", offset, why);
        return p->error;
}

static void parser_done(struct parser *p)
{
        if (p->handle)
                yajl_free(p->handle);
        free(p->frames);
        tsync_json_free(p->root);
}

static size_t max_bytes_of(const struct tsync_json_limits *limits)
{
        return limits && limits->max_bytes ? limits->max_bytes : TSYNC_JSON_DEFAULT_MAX_BYTES;
}

int tsync_json_parse(const char *buf, size_t len, const struct tsync_json_limits *limits, struct tsync_json **ret,
                     struct tsync_err *err)
{
        size_t max_bytes = max_bytes_of(limits);
        if (len > max_bytes)
                return tsync_error(err, EFBIG, "input is %zu bytes, more than the limit of %zu bytes", len, max_bytes);
        size_t i = 0;
        while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
                i++;
        if (i == len)
                return tsync_error(err, EINVAL, "empty document");

        _cleanup_(parser_done) struct parser p = {
                .input = buf,
                .input_len = len,
                .max_depth = limits && limits->max_depth ? limits->max_depth : TSYNC_JSON_DEFAULT_MAX_DEPTH,
                .err = err,
        };
        /* yajl's defaults are what we want: no comments, strings checked as
         * UTF-8, one value, nothing after it. */
        p.handle = yajl_alloc(&callbacks, NULL, &p);
        if (!p.handle)
                return tsync_error(err, ENOMEM, "out of memory");

        /* One call with the whole text, so yajl's offsets are offsets into buf. */
        yajl_status st = yajl_parse(p.handle, (const unsigned char *)buf, len);
        size_t offset = yajl_get_bytes_consumed(p.handle);
        if (st == yajl_status_ok) {
                st = yajl_complete_parse(p.handle);
                offset = len; /* yajl counts from the end here */
        }
        if (p.error)
                return p.error;
        if (st != yajl_status_ok || !p.root)
                return syntax_error(&p, offset);
        *ret = TAKE_PTR(p.root);
        return 0;
}

int tsync_json_parse_fd(int fd, const struct tsync_json_limits *limits, struct tsync_json **ret, struct tsync_err *err)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r = tsync_read_all(fd, max_bytes_of(limits), 0, &buf, &len, err);
        if (r < 0)
                return r;
        return tsync_json_parse(buf, len, limits, ret, err);
}

int tsync_json_parse_file(const char *path, const struct tsync_json_limits *limits, struct tsync_json **ret,
                          struct tsync_err *err)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        /* A FIFO nobody writes to must not hang a hook: opened without blocking. */
        int r = tsync_read_file_at(AT_FDCWD, path, path, TSYNC_READ_OPEN_NONBLOCK, max_bytes_of(limits), &buf, &len,
                                   NULL, err);
        if (r < 0)
                return r;
        r = tsync_json_parse(buf, len, limits, ret, err);
        if (r < 0)
                return tsync_error_prefix(err, "%s", path);
        return 0;
}

static struct tsync_json **last_slot(struct tsync_json *v)
{
        if (v->type == TSYNC_JSON_ARRAY && v->u.array.len > 0)
                return &v->u.array.items[v->u.array.len - 1];
        if (v->type == TSYNC_JSON_OBJECT && v->u.object.len > 0)
                return &v->u.object.values[v->u.object.len - 1];
        return NULL;
}

static void drop_last_slot(struct tsync_json *v)
{
        if (v->type == TSYNC_JSON_ARRAY) {
                v->u.array.len--;
        } else {
                v->u.object.len--;
                free(v->u.object.keys[v->u.object.len]);
        }
}

/* Frees without recursion or allocation, whatever the depth: going down into
 * a child stores the parent's pointer in the slot that held the child
 * (pointer reversal), and coming back up reads it from there. */
void tsync_json_free(struct tsync_json *v)
{
        struct tsync_json *up = NULL;
        while (v) {
                struct tsync_json **slot = last_slot(v);
                if (slot) {
                        struct tsync_json *child = *slot;
                        if (!child) {
                                /* a key whose value never came (parse stopped) */
                                drop_last_slot(v);
                                continue;
                        }
                        *slot = up;
                        up = v;
                        v = child;
                        continue;
                }
                switch (v->type) {
                case TSYNC_JSON_NUMBER:
                        free(v->u.number);
                        break;
                case TSYNC_JSON_STRING:
                        free(v->u.string.ptr);
                        break;
                case TSYNC_JSON_ARRAY:
                        free(v->u.array.items);
                        break;
                case TSYNC_JSON_OBJECT:
                        free(v->u.object.keys);
                        free(v->u.object.values);
                        break;
                default:
                        break;
                }
                free(v);
                if (!up)
                        break;
                v = up;
                up = *last_slot(v);
                drop_last_slot(v);
        }
}

bool tsync_json_array_has_string(const struct tsync_json *arr, const char *s)
{
        if (!arr || arr->type != TSYNC_JSON_ARRAY)
                return false;
        for (size_t i = 0; i < arr->u.array.len; i++) {
                const struct tsync_json *v = arr->u.array.items[i];
                if (v->type == TSYNC_JSON_STRING && strcmp(v->u.string.ptr, s) == 0)
                        return true;
        }
        return false;
}

const struct tsync_json *tsync_json_get(const struct tsync_json *v, const char *key)
{
        if (!v || v->type != TSYNC_JSON_OBJECT || !key)
                return NULL;
        for (size_t i = 0; i < v->u.object.len; i++)
                if (strcmp(v->u.object.keys[i], key) == 0)
                        return v->u.object.values[i];
        return NULL;
}

const char *tsync_json_type_name(enum tsync_json_type t)
{
        switch (t) {
        case TSYNC_JSON_NULL:
                return "null";
        case TSYNC_JSON_BOOL:
                return "boolean";
        case TSYNC_JSON_NUMBER:
                return "number";
        case TSYNC_JSON_STRING:
                return "string";
        case TSYNC_JSON_ARRAY:
                return "array";
        case TSYNC_JSON_OBJECT:
                return "object";
        }
        return "unknown";
}

/* "<path>: " or nothing when the caller adds the path itself. */
#define AT(path) (path) && *(path) ? (path) : "", (path) && *(path) ? ": " : ""

int tsync_json_expect(const struct tsync_json *v, const char *path, enum tsync_json_type t, struct tsync_err *err)
{
        if (!v)
                return tsync_error(err, EINVAL, "%s%smissing", AT(path));
        if (v->type != t)
                return tsync_error(err, EINVAL, "%s%sexpected %s, got %s", AT(path), tsync_json_type_name(t),
                                   tsync_json_type_name(v->type));
        return 0;
}

int tsync_json_u64(const struct tsync_json *v, const char *path, uint64_t *ret, struct tsync_err *err)
{
        int r = tsync_json_expect(v, path, TSYNC_JSON_NUMBER, err);
        if (r < 0)
                return r;
        const char *s = v->u.number;
        char shown[96];
        struct strbuf sb = { shown, sizeof(shown), 0 };
        sb_printf(&sb, "%.64s%s", s, strlen(s) > 64 ? "..." : "");

        if (s[0] == '-')
                return tsync_error(err, EINVAL, "%s%s%s is negative", AT(path), shown);
        if (strpbrk(s, ".eE"))
                return tsync_error(err, EINVAL, "%s%s%s is not a whole number", AT(path), shown);
        if (!*s || strspn(s, "0123456789") != strlen(s))
                return tsync_error(err, EINVAL, "%s%s'%s' is not a number", AT(path), shown);
        uint64_t n = 0;
        for (; *s; s++)
                if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, (uint64_t)(*s - '0'), &n))
                        return tsync_error(err, EINVAL, "%s%s%s is above the largest 64-bit value", AT(path), shown);
        *ret = n;
        return 0;
}

int tsync_json_uint_max(const struct tsync_json *v, const char *path, uint64_t max, uint64_t *ret,
                        struct tsync_err *err)
{
        uint64_t n;
        int r = tsync_json_u64(v, path, &n, err);
        if (r < 0)
                return r;
        if (n > max)
                return tsync_error(err, EINVAL, "%s%s%" PRIu64 " is above the maximum of %" PRIu64, AT(path), n, max);
        *ret = n;
        return 0;
}

int tsync_json_str(const struct tsync_json *v, const char *path, const char **ret, struct tsync_err *err)
{
        int r = tsync_json_expect(v, path, TSYNC_JSON_STRING, err);
        if (r < 0)
                return r;
        if (memchr(v->u.string.ptr, '\0', v->u.string.len))
                return tsync_error(err, EINVAL, "%s%scontains a NUL byte", AT(path));
        *ret = v->u.string.ptr;
        return 0;
}

int tsync_json_bool(const struct tsync_json *v, const char *path, bool *ret, struct tsync_err *err)
{
        int r = tsync_json_expect(v, path, TSYNC_JSON_BOOL, err);
        if (r < 0)
                return r;
        *ret = v->u.boolean;
        return 0;
}
