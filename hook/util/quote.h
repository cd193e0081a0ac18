/* Text that came from a container (a process's comm, its exe path, a
 * command line, a file name), made safe for a terminal and a log line.
 *
 * The container chooses those bytes: a newline forges a line of our output,
 * an escape sequence rewrites what the terminal shows. Every byte outside
 * printable ASCII (0x20..0x7e), and the backslash itself, is written as
 * \xNN, so the escaped text is one line, reversible, and shows every byte. */
#pragma once

#include <stddef.h>

/* The longest escaped form of n bytes, without the NUL. */
#define TSYNC_QUOTED_MAX(n) ((n)*4)

/* Escapes len bytes of src into dst (size bytes, NUL-terminated; a byte whose
 * escape does not fit whole is left out, with everything after it). Returns
 * the length the whole escaped text needs, without the NUL, as snprintf does. */
size_t tsync_quote(char *dst, size_t size, const char *src, size_t len);

/* src (a C string, NULL as "") escaped into a new string; NULL when out of
 * memory. */
char *tsync_quote_dup(const char *src);
