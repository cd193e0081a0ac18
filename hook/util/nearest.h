/* "Did you mean": the known word a misspelt one is a slip away from. A key
 * read by name and spelt wrong would otherwise be skipped, or refused without
 * a hint; both the profile readers (translate/profile_keys.c) and the node's
 * policy (node/node_conf.c) name the word that was meant. */
#pragma once

#include <stddef.h>

/* The word of words[0..n) closest to word by case-insensitive edit distance,
 * if close enough to be a slip (at most 1 edit for a word of up to 4
 * characters, else 2); NULL when none is, or word is longer than 63. */
const char *tsync_nearest_word(const char *word, const char *const *words, size_t n);
