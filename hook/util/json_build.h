/* Building, changing and writing the JSON trees of json.h (the config rewrite
 * keeps every field it does not touch, numbers exactly as written). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/error.h"
#include "util/json.h"

/* Constructors: NULL when out of memory. */
struct tsync_json *tsync_json_new_object(void);
struct tsync_json *tsync_json_new_array(void);
struct tsync_json *tsync_json_new_string(const char *s);
struct tsync_json *tsync_json_new_bool(bool b);
struct tsync_json *tsync_json_new_u64(uint64_t v);

/* A deep copy (iterative over arrays and objects up to the parse depth). */
struct tsync_json *tsync_json_copy(const struct tsync_json *v);

/* Takes ownership of value (freed on failure). Replaces an existing key in place. */
int tsync_json_set(struct tsync_json *obj, const char *key, struct tsync_json *value);
/* Returns the member under key for changing, or NULL. */
struct tsync_json *tsync_json_get_mut(struct tsync_json *obj, const char *key);
/* The object under key, created empty if absent; NULL if it exists with another type or on ENOMEM. */
struct tsync_json *tsync_json_get_object(struct tsync_json *obj, const char *key);
/* Removes and frees key; 0 if it was not there. */
void tsync_json_remove(struct tsync_json *obj, const char *key);
/* Takes ownership of value (freed on failure). */
int tsync_json_append(struct tsync_json *arr, struct tsync_json *value);
/* The same at index at (0..len), moving the later items up. */
int tsync_json_insert(struct tsync_json *arr, size_t at, struct tsync_json *value);

/* Writes v as JSON text (pretty with indentation when pretty). Caller frees *ret. */
int tsync_json_write(const struct tsync_json *v, bool pretty, char **ret, size_t *ret_len, struct tsync_err *err);

/* Deep equality: objects as sets of keys (order ignored), arrays in order, numbers by their text.
 * When they differ, ret_path (size bytes; may be NULL) names the first difference, as
 * "process.capabilities.bounding[2]" ("" for the roots themselves). */
bool tsync_json_equal(const struct tsync_json *a, const struct tsync_json *b, char *ret_path, size_t size);
