/* The exec view's fast read (plan/exec_view.h): the hooks of a container
 * whose init is lent capabilities need, of a 30 KiB config, only the
 * annotations (the plan, the running container) and process.capabilities.
 * Building the whole tree was most of each hook process's work. Here one
 * pass checks the whole text and finds where those two values are; only they
 * are parsed into a tree.
 *
 * It must never accept what tsync_json_parse refuses, nor find other values
 * than the tree has (tests/fuzz: fuzz_json and fuzz_exec_view check both on
 * every input): so it is stricter, and anything it is not sure of is "not
 * sure", for the full parse to decide (and to word any refusal). What
 * tsync_json_parse accepts, and this too: one object; JSON's grammar with
 * only its four whitespace bytes; strings of strict UTF-8 (no overlong forms,
 * no surrogates, nothing above U+10FFFF), escapes as JSON has them, a UTF-16
 * high surrogate escape always followed by a low one and a low one never
 * alone (json.c's surrogates_paired), no \u0000; keys without any escape
 * (so that their bytes are the key), distinct in each object; nesting up to
 * the limit; annotations' values strings. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "facts/annotations.h"
#include "plan/exec_view.h"
#include "shared/cleanup.h"
#include "util/json_build.h"

/* Results inside: 1 on, 0 not sure, -ENOMEM. */
#define NOT_SURE 0

/* Where a value is, for the members the exec view reads. */
enum where {
        W_OTHER,
        W_ROOT,        /* the document's object */
        W_PROCESS,     /* its process */
        W_CAPS,        /* process.capabilities */
        W_ANNOTATIONS, /* its annotations */
};

struct key {
        size_t begin, len;
};

struct scan {
        const unsigned char *s;
        size_t len, at;
        unsigned depth, max_depth;
        struct key *keys; /* the keys of every open object, innermost last */
        size_t n_keys, cap_keys;
        /* found */
        size_t caps_begin, caps_end, ann_begin, ann_end;
        size_t ann_count, ann_last_end, running_begin, running_end;
};

/* 1: a byte a string holds as itself (printable ASCII but '"' and '\\'). */
static const unsigned char plain[256] = {
        /* 0x00 to 0x7f; from 0x80 all 0 */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

#define ONES  0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

static inline uint64_t load8(const unsigned char *p)
{
        uint64_t v;
        memcpy(&v, p, sizeof(v));
        return v;
}

static inline uint32_t load4(const unsigned char *p)
{
        uint32_t v;
        memcpy(&v, p, sizeof(v));
        return v;
}

/* A pretty config is mostly indentation: eight spaces at a time. */
static inline void skip_space(struct scan *sc)
{
        const unsigned char *s = sc->s;
        size_t at = sc->at, len = sc->len;
        while (at < len) {
                if (len - at >= 8 && load8(s + at) == ONES * ' ') {
                        at += 8;
                        continue;
                }
                if (len - at >= 4 && load4(s + at) == 0x20202020u) {
                        at += 4;
                        continue;
                }
                unsigned char c = s[at];
                if (c != ' ' && c != '\n' && c != '\t' && c != '\r')
                        break;
                at++;
        }
        sc->at = at;
}

/* Whether all of p[0..8) are plain: no byte >= 0x80 nor < 0x20 (and then
 * no borrow crosses a byte), none '"' or '\\' (a zero byte once xor'ed). */
static inline bool plain8(const unsigned char *p)
{
        uint64_t v = load8(p), q = v ^ (ONES * '"'), b = v ^ (ONES * '\\');
        return !(v & HIGHS) && !(((v - ONES * 0x20) | (q - ONES) | (b - ONES)) & HIGHS);
}

static inline int peek(const struct scan *sc)
{
        return sc->at < sc->len ? sc->s[sc->at] : -1;
}

static bool hex4(const unsigned char *p, unsigned *ret)
{
        unsigned v = 0;
        for (int i = 0; i < 4; i++) {
                unsigned c = p[i];
                if (c >= '0' && c <= '9')
                        v = v << 4 | (c - '0');
                else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
                        v = v << 4 | ((c | 0x20) - 'a' + 10);
                else
                        return false;
        }
        *ret = v;
        return true;
}

/* One strict UTF-8 sequence at sc->at (its lead byte >= 0x80): json.c's valid_utf8. */
static bool utf8_char(struct scan *sc)
{
        const unsigned char *p = sc->s + sc->at;
        size_t left = sc->len - sc->at;
        unsigned char c = p[0];
        size_t n;
        uint32_t cp, min;
        if ((c & 0xe0) == 0xc0)
                n = 1, cp = c & 0x1f, min = 0x80;
        else if ((c & 0xf0) == 0xe0)
                n = 2, cp = c & 0x0f, min = 0x800;
        else if ((c & 0xf8) == 0xf0)
                n = 3, cp = c & 0x07, min = 0x10000;
        else
                return false;
        if (left - 1 < n)
                return false;
        for (size_t k = 1; k <= n; k++) {
                if ((p[k] & 0xc0) != 0x80)
                        return false;
                cp = cp << 6 | (p[k] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return false;
        sc->at += n + 1;
        return true;
}

/* A string at sc->at (its opening quote); past its closing one. *ret_escaped:
 * whether it holds an escape (a key must not). */
static int string(struct scan *sc, bool *ret_escaped)
{
        const unsigned char *s = sc->s;
        bool escaped = false;
        sc->at++;
        for (;;) {
                size_t at = sc->at;
                while (sc->len - at >= 8 && plain8(s + at))
                        at += 8;
                while (at < sc->len && plain[s[at]])
                        at++;
                sc->at = at;
                if (sc->at >= sc->len)
                        return NOT_SURE;
                unsigned char c = s[sc->at];
                if (c == '"') {
                        sc->at++;
                        *ret_escaped = escaped;
                        return 1;
                }
                if (c >= 0x80) {
                        if (!utf8_char(sc))
                                return NOT_SURE;
                        continue;
                }
                if (c != '\\' || sc->at + 1 >= sc->len)
                        return NOT_SURE; /* a control byte */
                escaped = true;
                c = s[sc->at + 1];
                if (c && strchr("\"\\/bfnrt", c)) {
                        sc->at += 2;
                        continue;
                }
                unsigned cp, lo;
                if (c != 'u' || sc->len - sc->at < 6 || !hex4(s + sc->at + 2, &cp) || cp == 0 ||
                    (cp >= 0xdc00 && cp <= 0xdfff))
                        return NOT_SURE;
                sc->at += 6;
                if (cp >= 0xd800 && cp <= 0xdbff) {
                        if (sc->len - sc->at < 6 || s[sc->at] != '\\' || s[sc->at + 1] != 'u' ||
                            !hex4(s + sc->at + 2, &lo) || lo < 0xdc00 || lo > 0xdfff)
                                return NOT_SURE;
                        sc->at += 6;
                }
        }
}

static bool digits(struct scan *sc)
{
        size_t from = sc->at;
        while (sc->at < sc->len && sc->s[sc->at] >= '0' && sc->s[sc->at] <= '9')
                sc->at++;
        return sc->at > from;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number(struct scan *sc)
{
        if (peek(sc) == '-')
                sc->at++;
        if (peek(sc) == '0')
                sc->at++;
        else if (!digits(sc))
                return NOT_SURE;
        if (peek(sc) == '.') {
                sc->at++;
                if (!digits(sc))
                        return NOT_SURE;
        }
        if (peek(sc) == 'e' || peek(sc) == 'E') {
                sc->at++;
                if (peek(sc) == '+' || peek(sc) == '-')
                        sc->at++;
                if (!digits(sc))
                        return NOT_SURE;
        }
        /* What ends a number in a container: after anything else the parser refuses the text. */
        int c = peek(sc);
        return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

static int literal(struct scan *sc, const char *word)
{
        size_t n = strlen(word);
        if (sc->len - sc->at < n || memcmp(sc->s + sc->at, word, n) != 0)
                return NOT_SURE;
        sc->at += n;
        return 1;
}

static int key_cmp(const void *a, const void *b, void *arg)
{
        const struct key *x = a, *y = b;
        const unsigned char *s = arg;
        int c = memcmp(s + x->begin, s + y->begin, x->len < y->len ? x->len : y->len);
        return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* No two of keys[from..] the same (json.c's on_end_map). */
static int distinct_keys(struct scan *sc, size_t from)
{
        struct key *k = sc->keys + from;
        size_t n = sc->n_keys - from;
        if (n <= 16) {
                for (size_t i = 1; i < n; i++)
                        for (size_t j = 0; j < i; j++)
                                if (k[i].len == k[j].len &&
                                    memcmp(sc->s + k[i].begin, sc->s + k[j].begin, k[i].len) == 0)
                                        return NOT_SURE;
                return 1;
        }
        /* Sorted in place: the keys are not needed in order after this. */
        qsort_r(k, n, sizeof(*k), key_cmp, (void *)sc->s);
        for (size_t i = 1; i < n; i++)
                if (key_cmp(&k[i - 1], &k[i], (void *)sc->s) == 0)
                        return NOT_SURE;
        return 1;
}

static int value(struct scan *sc, enum where where);

static enum where member_where(const struct scan *sc, enum where where, const struct key *k)
{
        const char *key = (const char *)sc->s + k->begin;
#define IS(name) (k->len == strlen(name) && memcmp(key, name, k->len) == 0)
        if (where == W_ROOT && IS("process"))
                return W_PROCESS;
        if (where == W_ROOT && IS("annotations"))
                return W_ANNOTATIONS;
        if (where == W_PROCESS && IS("capabilities"))
                return W_CAPS;
        return W_OTHER;
#undef IS
}

static int object(struct scan *sc, enum where where)
{
        size_t from = sc->n_keys;
        size_t prev_end = 0; /* the end of the value before this member's */
        int r;
        sc->at++;
        skip_space(sc);
        if (peek(sc) == '}') {
                sc->at++;
                return 1;
        }
        for (;;) {
                bool escaped;
                if (peek(sc) != '"')
                        return NOT_SURE;
                struct key k = { sc->at + 1, 0 };
                r = string(sc, &escaped);
                if (r <= 0)
                        return r;
                if (escaped)
                        return NOT_SURE;
                k.len = sc->at - 1 - k.begin;
                if (sc->n_keys == sc->cap_keys) {
                        size_t cap = sc->cap_keys ? sc->cap_keys * 2 : 64;
                        struct key *keys = reallocarray(sc->keys, cap, sizeof(*keys));
                        if (!keys)
                                return -ENOMEM;
                        sc->keys = keys;
                        sc->cap_keys = cap;
                }
                sc->keys[sc->n_keys++] = k;
                skip_space(sc);
                if (peek(sc) != ':')
                        return NOT_SURE;
                sc->at++;
                skip_space(sc);
                size_t begin = sc->at;
                enum where child = member_where(sc, where, &k);
                if (where == W_ANNOTATIONS && peek(sc) != '"')
                        return NOT_SURE; /* an annotation is a string */
                r = value(sc, child);
                if (r <= 0)
                        return r;
                if (child == W_CAPS) {
                        sc->caps_begin = begin;
                        sc->caps_end = sc->at;
                } else if (child == W_ANNOTATIONS) {
                        sc->ann_begin = begin;
                        sc->ann_end = sc->at;
                } else if (where == W_ANNOTATIONS) {
                        if (k.len == strlen(TSYNC_ANNOTATION_RUNNING) &&
                            memcmp(sc->s + k.begin, TSYNC_ANNOTATION_RUNNING, k.len) == 0) {
                                sc->running_begin = prev_end;
                                sc->running_end = sc->at;
                        }
                        sc->ann_count++;
                        sc->ann_last_end = sc->at;
                        prev_end = sc->at;
                }
                skip_space(sc);
                if (peek(sc) == ',') {
                        sc->at++;
                        skip_space(sc);
                        continue;
                }
                if (peek(sc) != '}')
                        return NOT_SURE;
                sc->at++;
                break;
        }
        r = distinct_keys(sc, from);
        sc->n_keys = from;
        return r;
}

static int array(struct scan *sc)
{
        sc->at++;
        skip_space(sc);
        if (peek(sc) == ']') {
                sc->at++;
                return 1;
        }
        for (;;) {
                int r = value(sc, W_OTHER);
                if (r <= 0)
                        return r;
                skip_space(sc);
                if (peek(sc) == ',') {
                        sc->at++;
                        skip_space(sc);
                        continue;
                }
                if (peek(sc) != ']')
                        return NOT_SURE;
                sc->at++;
                return 1;
        }
}

/* A value at sc->at (no space before it); where: what it is in the config
 * (the exec view's members must be objects). */
static int value(struct scan *sc, enum where where)
{
        int c = peek(sc), r;
        bool escaped;
        if (where != W_OTHER && c != '{')
                return NOT_SURE;
        switch (c) {
        case '{':
        case '[':
                /* json.c refuses to open one more at the limit. */
                if (sc->depth >= sc->max_depth)
                        return NOT_SURE;
                sc->depth++;
                r = c == '{' ? object(sc, where) : array(sc);
                sc->depth--;
                return r;
        case '"':
                return string(sc, &escaped);
        case 't':
                return literal(sc, "true");
        case 'f':
                return literal(sc, "false");
        case 'n':
                return literal(sc, "null");
        default:
                return c == '-' || (c >= '0' && c <= '9') ? number(sc) : NOT_SURE;
        }
}

/* The tree of src[begin..end), one value tsync_json_parse accepted within the whole. */
static int subtree(const char *src, size_t begin, size_t end, const struct tsync_json_limits *lim,
                   struct tsync_json **ret, struct tsync_err *err)
{
        return tsync_json_parse(src + begin, end - begin, lim, ret, err);
}

int tsync_exec_view_scan(const char *src, size_t len, const struct tsync_json_limits *lim, struct tsync_json **ret,
                         struct tsync_exec_view_spans *ret_spans, struct tsync_err *err)
{
        struct scan sc = {
                .s = (const unsigned char *)src,
                .len = len,
                .max_depth = lim && lim->max_depth ? lim->max_depth : TSYNC_JSON_DEFAULT_MAX_DEPTH,
        };
        size_t max_bytes = lim && lim->max_bytes ? lim->max_bytes : TSYNC_JSON_DEFAULT_MAX_BYTES;
        if (len > max_bytes)
                return NOT_SURE;
        skip_space(&sc);
        int r = value(&sc, W_ROOT);
        free(sc.keys);
        if (r <= 0)
                return r == -ENOMEM ? tsync_error(err, ENOMEM, "out of memory") : NOT_SURE;
        skip_space(&sc);
        /* Found, and spliceable as tsync_exec_view_spans has it: a running
         * annotation is taken out with the separator before it. */
        if (sc.at != len || !sc.caps_end || !sc.ann_count || (sc.running_end && !sc.running_begin))
                return NOT_SURE;

        /* The two values; a refusal here would be our bug: the full parse decides. */
        struct tsync_err ignored = { 0 };
        _cleanup_json_ struct tsync_json *caps = NULL, *ann = NULL;
        if (subtree(src, sc.caps_begin, sc.caps_end, lim, &caps, &ignored) < 0 ||
            subtree(src, sc.ann_begin, sc.ann_end, lim, &ann, &ignored) < 0)
                return ignored.code == ENOMEM ? tsync_error(err, ENOMEM, "out of memory") : NOT_SURE;
        _cleanup_json_ struct tsync_json *doc = tsync_json_new_object();
        struct tsync_json *process = doc ? tsync_json_new_object() : NULL;
        if (!process || tsync_json_set(doc, "process", process) < 0 ||
            tsync_json_set(process, "capabilities", TAKE_PTR(caps)) < 0 ||
            tsync_json_set(doc, "annotations", TAKE_PTR(ann)) < 0)
                return tsync_error(err, ENOMEM, "out of memory");
        *ret_spans = (struct tsync_exec_view_spans){
                .ok = true,
                .partial = true,
                .caps_begin = sc.caps_begin,
                .caps_end = sc.caps_end,
                .annotations_end = sc.ann_last_end,
                .running_begin = sc.running_begin,
                .running_end = sc.running_end,
        };
        *ret = TAKE_PTR(doc);
        return 1;
}
