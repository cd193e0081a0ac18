/* A small JSON tree, read by a parser of our own (util/json.c), which
 * replaced yajl's callback parser (and yajl_tree before it) for these reasons:
 *  - errors name the JSON path ("linux.seccomp.syscalls[3].names: ..."),
 *    which is what a user can fix, not a parser's text and an offset;
 *  - duplicate keys are refused: yajl_tree kept them and answered with the
 *    first, while Go's encoding/json (runc, Podman) takes the last: one
 *    document, two readings;
 *  - a depth limit (and a size limit) holds while parsing, and neither the
 *    parse nor tsync_json_free recurses, so a deeply nested document cannot
 *    exhaust the stack;
 *  - each string keeps its length, and NUL is refused in keys;
 *  - an unpaired UTF-16 surrogate escape is refused (yajl 2.1 decoded it into
 *    '?' and dropped the character after it, silently changing a name), as is
 *    any invalid UTF-8;
 *  - only what Go's reader takes is taken: yajl also skipped \f and \v as
 *    white space and ignored a string opened after the document;
 *  - no library: the hook and the runtime wrapper carry no yajl, and read a
 *    config in about two thirds of yajl's time (docs/performance.md). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/error.h"

enum tsync_json_type {
        TSYNC_JSON_NULL,
        TSYNC_JSON_BOOL,
        TSYNC_JSON_NUMBER,
        TSYNC_JSON_STRING,
        TSYNC_JSON_ARRAY,
        TSYNC_JSON_OBJECT,
};

struct tsync_json {
        enum tsync_json_type type;
        union {
                bool boolean;
                char *number; /* the literal as written, NUL-terminated */
                struct {
                        char *ptr; /* NUL-terminated; may contain NUL bytes before len */
                        size_t len;
                } string;
                struct {
                        struct tsync_json **items;
                        size_t len;
                } array;
                struct {
                        char **keys; /* never contain NUL */
                        struct tsync_json **values;
                        size_t len;
                } object;
        } u;
        /* Where tsync_json_parse found it in its text: the offset just past its
         * last byte (0 for a node made or changed since), and for an object or
         * an array the offset of its '{' or '['. For splicing a small change
         * into that text instead of writing the whole document anew. */
        size_t src_begin, src_end;
};

struct tsync_json_limits {
        size_t max_bytes;   /* 0: TSYNC_JSON_DEFAULT_MAX_BYTES */
        unsigned max_depth; /* 0: TSYNC_JSON_DEFAULT_MAX_DEPTH */
};

#define TSYNC_JSON_DEFAULT_MAX_BYTES (4u << 20)
#define TSYNC_JSON_DEFAULT_MAX_DEPTH 32u

/* A container's config.json as an engine or runtime hands it to us (precreate's
 * stdin, the wrapper's bundle, an exec'd process's config, the exec view):
 * larger than a profile may be, since engines write long env and mount lists. */
#define TSYNC_CONFIG_MAX_BYTES (16u << 20)
/* The limits every reader of such a config passes (inject, check, explain,
 * status): a config one front end reads, every other reads too. */
#define TSYNC_CONFIG_LIMITS (&(const struct tsync_json_limits){ .max_bytes = TSYNC_CONFIG_MAX_BYTES })

/* Strict UTF-8, as the parser takes a string: no overlong forms, no
 * surrogates, nothing above U+10FFFF. NUL is allowed. */
bool tsync_json_utf8_valid(const void *text, size_t len);

/* Parses exactly one JSON value (no comments, no trailing garbage).
 * Errors name the JSON path where parsing stopped ("syscalls[3].names: ...")
 * and the byte offset. limits may be NULL. */
int tsync_json_parse(const char *buf, size_t len, const struct tsync_json_limits *limits, struct tsync_json **ret,
                     struct tsync_err *err);

/* Reads path (O_CLOEXEC, refusing files larger than the limit before reading them all) and parses it. */
int tsync_json_parse_file(const char *path, const struct tsync_json_limits *limits, struct tsync_json **ret,
                          struct tsync_err *err);

/* Reads all of fd (a pipe is fine) up to the limit and parses it. */
int tsync_json_parse_fd(int fd, const struct tsync_json_limits *limits, struct tsync_json **ret, struct tsync_err *err);

void tsync_json_free(struct tsync_json *v);
static inline void tsync_json_freep(struct tsync_json **v)
{
        tsync_json_free(*v);
}
#define _cleanup_json_ __attribute__((cleanup(tsync_json_freep)))

/* The value under key, or NULL if v is not an object or has no such key. */
const struct tsync_json *tsync_json_get(const struct tsync_json *v, const char *key);

/* Whether arr is an array holding the string s. */
bool tsync_json_array_has_string(const struct tsync_json *arr, const char *s);

const char *tsync_json_type_name(enum tsync_json_type t);

/* Typed reads. path names the value in error messages. A missing value
 * (v == NULL) is an error "<path>: missing" in each of these. */

/* An integer literal 0..UINT64_MAX: no sign, fraction or exponent. */
int tsync_json_u64(const struct tsync_json *v, const char *path, uint64_t *ret, struct tsync_err *err);
/* As tsync_json_u64, with an upper bound (inclusive). */
int tsync_json_uint_max(const struct tsync_json *v, const char *path, uint64_t max, uint64_t *ret,
                        struct tsync_err *err);
/* A string without NUL bytes; *ret points into the tree. */
int tsync_json_str(const struct tsync_json *v, const char *path, const char **ret, struct tsync_err *err);
int tsync_json_bool(const struct tsync_json *v, const char *path, bool *ret, struct tsync_err *err);
/* Checks the type; returns 0 or an error "<path>: expected <type>, got <type>". */
int tsync_json_expect(const struct tsync_json *v, const char *path, enum tsync_json_type t, struct tsync_err *err);
