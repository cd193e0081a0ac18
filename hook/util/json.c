/* The JSON tree of util/json.h, read by a parser of our own: RFC 8259 as
 * Go's encoding/json (runc, Podman, containerd) reads it, and no more: JSON's
 * four white-space bytes, strict UTF-8, no comments, one value. It replaced
 * yajl's callback parser (tests/unit/json_yajl.c keeps that as the oracle
 * the tests hold this one to: the same trees, the same refusals, but for
 * \f and \v between tokens, which yajl skipped).
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

#include "shared/cleanup.h"
#include "util/fileio.h"

/* One open array or object. cap is the allocated length of its item arrays:
 * kept here, not in the public struct, because only open containers grow. */
struct frame {
        struct tsync_json *node;
        size_t cap;
};

struct parser {
        const char *input;
        size_t len;
        size_t pos; /* the next byte to read */
        unsigned max_depth;
        struct tsync_json *root; /* owns every node made so far, also on errors */
        struct frame *frames;
        size_t depth;
        size_t frames_cap;
        struct tsync_err *err;
        int error; /* -errno of the first failure */
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

/* Records "<path>: <message>" and returns its -errno. */
__attribute__((format(printf, 4, 5))) static int fail(struct parser *p, bool at_value, int code, const char *fmt, ...)
{
        char path[TSYNC_ERR_MSG_MAX], msg[TSYNC_ERR_MSG_MAX];
        render_path(p, at_value, path, sizeof(path));
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        p->error = tsync_error(p->err, code, "%s: %s", path, msg);
        return p->error;
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

/* A string's bytes once decoded: its raw bytes and what its escapes made. */
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
                /* add_key added the key with an empty value slot */
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

/* A scalar that ends just before p->pos. */
static int add_leaf(struct parser *p, struct tsync_json *node)
{
        if (!node)
                return fail_nomem(p);
        node->src_end = p->pos;
        if (attach(p, node) < 0) {
                tsync_json_free(node);
                return fail_nomem(p);
        }
        return 0;
}

/* The text is not JSON: at is the offending byte (reported 1-based) or the
 * end of the input (reported as the length: premature EOF). */
static int syntax(struct parser *p, size_t at, const char *why)
{
        if (at >= p->len)
                return fail(p, true, EINVAL, "invalid JSON at byte %zu: premature EOF", p->len);
        return fail(p, true, EINVAL, "invalid JSON at byte %zu: %s", at + 1, why);
}

static bool is_space(char c)
{
        /* JSON's four, as Go's encoding/json (the runtimes' reader) takes them:
         * not \f or \v, which yajl also skipped. */
        return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static void skip_space(struct parser *p)
{
        while (p->pos < p->len && is_space(p->input[p->pos]))
                p->pos++;
}

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

static int hex_digit(char c)
{
        if (is_digit(c))
                return c - '0';
        c = (char)(c | 0x20);
        return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The 4 hex digits at s, which lex_string checked. */
static unsigned hex4(const char *s)
{
        unsigned v = 0;
        for (int i = 0; i < 4; i++)
                v = v << 4 | (unsigned)hex_digit(s[i]);
        return v;
}

static size_t put_utf8(char *out, unsigned long cp)
{
        if (cp < 0x80) {
                out[0] = (char)cp;
                return 1;
        }
        if (cp < 0x800) {
                out[0] = (char)(0xc0 | cp >> 6);
                out[1] = (char)(0x80 | (cp & 0x3f));
                return 2;
        }
        if (cp < 0x10000) {
                out[0] = (char)(0xe0 | cp >> 12);
                out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
                out[2] = (char)(0x80 | (cp & 0x3f));
                return 3;
        }
        out[0] = (char)(0xf0 | cp >> 18);
        out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
        out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[3] = (char)(0x80 | (cp & 0x3f));
        return 4;
}

/* A string's text decoded. valid is false when it is not Unicode text (invalid
 * UTF-8, an escaped surrogate without its pair), which the caller refuses in
 * words that say whether it was a key. */
struct lexed {
        char *s; /* NUL-terminated, len bytes before it */
        size_t len;
        bool valid;
};

/* The string from start (past its quote) to end (its closing quote), whose
 * escapes lex_string checked. */
static int decode_escaped(struct parser *p, size_t start, size_t end, struct lexed *out)
{
        static const char letters[] = "\"\\/bfnrt", bytes[] = "\"\\/\b\f\n\r\t";
        const char *s = p->input;
        /* Decoding never lengthens: \uXXXX is at most 3 bytes, a pair 4 of 12. */
        char *d = malloc(end - start + 1);
        if (!d)
                return fail_nomem(p);
        size_t n = 0;
        bool valid = true;
        for (size_t i = start; i < end;) {
                if (s[i] != '\\') {
                        d[n++] = s[i++];
                        continue;
                }
                if (s[i + 1] != 'u') {
                        d[n++] = bytes[strchr(letters, s[i + 1]) - letters];
                        i += 2;
                        continue;
                }
                unsigned long cp = hex4(s + i + 2);
                i += 6;
                if (cp >= 0xd800 && cp <= 0xdbff && i < end && s[i] == '\\' && s[i + 1] == 'u') {
                        unsigned long lo = hex4(s + i + 2);
                        if (lo >= 0xdc00 && lo <= 0xdfff) {
                                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                                i += 6;
                        }
                }
                if (cp >= 0xd800 && cp <= 0xdfff) {
                        valid = false; /* alone; nothing is written for it */
                        continue;
                }
                n += put_utf8(d + n, cp);
        }
        d[n] = '\0';
        *out = (struct lexed){ .s = d, .len = n, .valid = valid && tsync_json_utf8_valid(d, n) };
        return 0;
}

/* The escape whose backslash is at i: its length, or -1 after saying what is wrong. */
static long escape_length(struct parser *p, size_t i)
{
        if (i + 1 >= p->len)
                return syntax(p, p->len, "");
        char c = p->input[i + 1];
        if (c != 'u')
                return c && strchr("\"\\/bfnrt", c) ? 2 : syntax(p, i + 1, "invalid escape in a string");
        for (size_t k = i + 2; k < i + 6; k++)
                if (k >= p->len || hex_digit(p->input[k]) < 0)
                        return syntax(p, k, "\\u must be followed by four hex digits");
        return 6;
}

/* The string whose opening quote is at p->pos; p->pos ends past its closing quote. */
static int lex_string(struct parser *p, struct lexed *out)
{
        const unsigned char *s = (const unsigned char *)p->input;
        size_t start = p->pos + 1, i = start;
        unsigned char high = 0;
        bool escaped = false;
        for (;;) {
                /* The common run: plain bytes up to the closing quote. */
                while (i < p->len && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\')
                        high |= s[i++];
                if (i >= p->len)
                        return syntax(p, i, "");
                if (s[i] == '"')
                        break;
                if (s[i] < 0x20)
                        return syntax(p, i, "a control character in a string");
                long n = escape_length(p, i);
                if (n < 0)
                        return (int)n;
                escaped = true;
                i += (size_t)n;
        }
        p->pos = i + 1;
        if (escaped)
                return decode_escaped(p, start, i, out);
        char *d = malloc(i - start + 1);
        if (!d)
                return fail_nomem(p);
        memcpy(d, s + start, i - start);
        d[i - start] = '\0';
        *out = (struct lexed){ .s = d,
                               .len = i - start,
                               .valid = !(high & 0x80) || tsync_json_utf8_valid(d, i - start) };
        return 0;
}

static int add_string(struct parser *p)
{
        struct lexed t;
        int r = lex_string(p, &t);
        if (r < 0)
                return r;
        if (!t.valid) {
                free(t.s);
                return fail(p, true, EINVAL, "invalid UTF-8 or unpaired UTF-16 surrogate in string");
        }
        struct tsync_json *v = new_node(TSYNC_JSON_STRING);
        if (!v) {
                free(t.s);
                return fail_nomem(p);
        }
        v->u.string.ptr = t.s;
        v->u.string.len = t.len;
        return add_leaf(p, v);
}

/* A member's name, whose quote is at p->pos, added with an empty value slot. */
static int add_key(struct parser *p)
{
        struct frame *f = &p->frames[p->depth - 1];
        struct tsync_json *obj = f->node;
        struct lexed t;
        int r = lex_string(p, &t);
        if (r < 0)
                return r;
        _cleanup_free_ char *key = t.s;
        if (memchr(key, '\0', t.len)) {
                char shown[TSYNC_ERR_MSG_MAX];
                struct strbuf sb = { shown, sizeof(shown), 0 };
                sb_quoted(&sb, key, t.len, '\'');
                return fail(p, false, EINVAL, "key %s contains a NUL byte", shown);
        }
        /* the key is not shown: it is not valid text */
        if (!t.valid)
                return fail(p, false, EINVAL, "a key has invalid UTF-8 or an unpaired UTF-16 surrogate");
        /* keys and values grow together: cap counts both */
        size_t cap = f->cap;
        void *keys = obj->u.object.keys, *values = obj->u.object.values;
        r = grow(&keys, &cap, obj->u.object.len, sizeof(char *));
        obj->u.object.keys = keys;
        if (r == 0) {
                cap = f->cap;
                r = grow(&values, &cap, obj->u.object.len, sizeof(struct tsync_json *));
                obj->u.object.values = values;
        }
        if (r < 0)
                return fail_nomem(p);
        f->cap = cap;
        obj->u.object.keys[obj->u.object.len] = TAKE_PTR(key);
        obj->u.object.values[obj->u.object.len] = NULL;
        obj->u.object.len++;
        return 0;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, kept as written. */
static int add_number(struct parser *p)
{
        const char *s = p->input;
        size_t start = p->pos, i = start, n = p->len;
        if (s[i] == '-')
                i++;
        if (i < n && s[i] == '0')
                i++;
        else if (i < n && is_digit(s[i]))
                while (i < n && is_digit(s[i]))
                        i++;
        else
                return syntax(p, i, "a number needs a digit here");
        if (i < n && s[i] == '.') {
                if (++i >= n || !is_digit(s[i]))
                        return syntax(p, i, "a digit must follow a number's decimal point");
                while (i < n && is_digit(s[i]))
                        i++;
        }
        if (i < n && (s[i] == 'e' || s[i] == 'E')) {
                if (++i < n && (s[i] == '+' || s[i] == '-'))
                        i++;
                if (i >= n || !is_digit(s[i]))
                        return syntax(p, i, "a digit must follow a number's exponent");
                while (i < n && is_digit(s[i]))
                        i++;
        }
        p->pos = i;
        struct tsync_json *v = new_node(TSYNC_JSON_NUMBER);
        if (v && !(v->u.number = strndup(s + start, i - start))) {
                free(v);
                v = NULL;
        }
        return add_leaf(p, v);
}

/* true, false or null; a misspelt one is reported at its first byte. */
static int add_literal(struct parser *p, const char *word, struct tsync_json *v)
{
        for (size_t k = 0; word[k]; k++) {
                if (p->pos + k >= p->len || p->input[p->pos + k] != word[k]) {
                        tsync_json_free(v);
                        return syntax(p, p->pos + k >= p->len ? p->len : p->pos, "invalid literal");
                }
        }
        p->pos += strlen(word);
        return add_leaf(p, v);
}

static int open_container(struct parser *p, enum tsync_json_type type)
{
        if (p->depth >= p->max_depth)
                return fail(p, true, EINVAL, "nesting is deeper than the limit of %u levels", p->max_depth);
        struct tsync_json *v = new_node(type);
        if (!v)
                return fail_nomem(p);
        v->src_begin = p->pos++;
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
        return 0;
}

/* One value from p->pos: a scalar whole, a container opened (its members
 * are parse()'s). */
static int parse_value(struct parser *p)
{
        skip_space(p);
        if (p->pos >= p->len)
                return syntax(p, p->pos, "");
        switch (p->input[p->pos]) {
        case '{':
                return open_container(p, TSYNC_JSON_OBJECT);
        case '[':
                return open_container(p, TSYNC_JSON_ARRAY);
        case '"':
                return add_string(p);
        case 't':
        case 'f': {
                struct tsync_json *v = new_node(TSYNC_JSON_BOOL);
                if (!v)
                        return fail_nomem(p);
                v->u.boolean = p->input[p->pos] == 't';
                return add_literal(p, v->u.boolean ? "true" : "false", v);
        }
        case 'n': {
                struct tsync_json *v = new_node(TSYNC_JSON_NULL);
                return v ? add_literal(p, "null", v) : fail_nomem(p);
        }
        default:
                if (p->input[p->pos] == '-' || is_digit(p->input[p->pos]))
                        return add_number(p);
                return syntax(p, p->pos, "invalid character");
        }
}

/* A member: its name, the colon, its value. */
static int parse_member(struct parser *p)
{
        skip_space(p);
        if (p->pos < p->len && p->input[p->pos] != '"')
                return syntax(p, p->pos, "a member's name must be a string");
        int r = p->pos < p->len ? add_key(p) : syntax(p, p->pos, "");
        if (r < 0)
                return r;
        skip_space(p);
        if (p->pos < p->len && p->input[p->pos] != ':')
                return syntax(p, p->pos, "a ':' must follow a member's name");
        if (p->pos >= p->len)
                return syntax(p, p->pos, "");
        p->pos++;
        return parse_value(p);
}

static int cmp_keys(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Closes the innermost container at p->pos. An object's keys are checked
 * once it is complete: sorting a copy keeps a large object O(n log n) where
 * a check per key would be quadratic. */
static int close_container(struct parser *p)
{
        const struct tsync_json *obj = p->frames[p->depth - 1].node;
        size_t n = obj->type == TSYNC_JSON_OBJECT ? obj->u.object.len : 0;
        if (n >= 2) {
                _cleanup_free_ char **sorted = reallocarray(NULL, n, sizeof(*sorted));
                if (!sorted)
                        return fail_nomem(p);
                memcpy(sorted, obj->u.object.keys, n * sizeof(*sorted));
                qsort(sorted, n, sizeof(*sorted), cmp_keys);
                for (size_t i = 1; i < n; i++) {
                        if (strcmp(sorted[i - 1], sorted[i]) != 0)
                                continue;
                        char shown[TSYNC_ERR_MSG_MAX];
                        struct strbuf sb = { shown, sizeof(shown), 0 };
                        sb_quoted(&sb, sorted[i], strlen(sorted[i]), '\'');
                        return fail(p, false, EINVAL, "duplicate key %s", shown);
                }
        }
        p->frames[p->depth - 1].node->src_end = ++p->pos;
        p->depth--;
        return 0;
}

/* The document: one value, then only white space. Containers are walked
 * with p->frames, not the C stack, so depth costs no recursion. */
static int parse(struct parser *p)
{
        int r = parse_value(p);
        while (r == 0 && p->depth > 0) {
                const struct tsync_json *top = p->frames[p->depth - 1].node;
                bool object = top->type == TSYNC_JSON_OBJECT;
                bool first = (object ? top->u.object.len : top->u.array.len) == 0;
                skip_space(p);
                if (p->pos >= p->len)
                        return syntax(p, p->pos, "");
                char c = p->input[p->pos];
                if (c == (object ? '}' : ']'))
                        r = close_container(p);
                else if (first)
                        r = object ? parse_member(p) : parse_value(p);
                else if (c == ',')
                        r = (p->pos++, object ? parse_member(p) : parse_value(p));
                else
                        r = syntax(p, p->pos,
                                   object ? "a ',' or '}' must follow a member"
                                          : "a ',' or ']' must follow an element");
        }
        if (r < 0)
                return r;
        skip_space(p);
        if (p->pos < p->len)
                return syntax(p, p->pos, "trailing garbage");
        return 0;
}

static void parser_done(struct parser *p)
{
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
        while (i < len && is_space(buf[i]))
                i++;
        if (i == len)
                return tsync_error(err, EINVAL, "empty document");

        _cleanup_(parser_done) struct parser p = {
                .input = buf,
                .len = len,
                .max_depth = limits && limits->max_depth ? limits->max_depth : TSYNC_JSON_DEFAULT_MAX_DEPTH,
                .err = err,
        };
        int r = parse(&p);
        if (r < 0)
                return r;
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
