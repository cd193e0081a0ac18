/* An errno in words, as glibc words it, under any libc (hook/shared/errtext.c). */
#pragma once

/* e or -e; "unknown error" for a number the table does not know. A static string. */
const char *tsync_errtext(int e);
