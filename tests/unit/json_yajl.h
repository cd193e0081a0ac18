/* yajl's callback parser building our tree, as util/json.c did before it had
 * a parser of its own: the oracle that test_json_yajl and fuzz_json_yajl hold
 * that parser to. Only the tree and the verdict: no paths in messages. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util/json.h"

/* 0 with *ret, or -EINVAL (not JSON we take) or -ENOMEM. max_depth as the limits'. */
int json_yajl_parse(const char *buf, size_t len, unsigned max_depth, struct tsync_json **ret);

/* Whether a and b are the same tree, offsets into their text included; why
 * says where they differ. */
bool json_same_tree(const struct tsync_json *a, const struct tsync_json *b, char *why, size_t size);

/* Whether tsync_json_parse and the oracle agree on buf: both take it as the
 * same tree, or both refuse it, or the oracle takes what tsync_json_parse
 * refuses only for a \f or \v where JSON allows white space (named by the
 * refusal's byte). Also that a premature EOF is reported at the length.
 * why says how they disagree. */
bool json_parsers_agree(const char *buf, size_t len, unsigned max_depth, char *why, size_t size);
