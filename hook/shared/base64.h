/* Base64 (RFC 4648, standard alphabet, '=' padding, no line breaks): how
 * filter files travel in the init's arguments. Compiled into the static init
 * as well as the library: libc only, no heap. */
#pragma once

#include <stddef.h>

/* Characters tsync_base64_encode writes for n bytes, without the NUL. */
size_t tsync_base64_encoded_len(size_t n);

/* Writes n bytes of in as base64 into out (tsync_base64_encoded_len(n) + 1
 * bytes, NUL-terminated). */
void tsync_base64_encode(const void *in, size_t n, char *out);

/* Decodes the NUL-terminated text into out (size bytes). Returns the number of
 * bytes, -EINVAL for text that is not canonical base64 (a character outside
 * the alphabet, bad padding, non-zero bits after the last byte, a length not
 * a multiple of 4), or -ENOSPC when out is too small. */
long tsync_base64_decode(const char *text, void *out, size_t size);
