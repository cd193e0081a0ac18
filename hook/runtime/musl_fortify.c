/* The one fortified libc call of Debian's libseccomp.a, for the runtime
 * wrapper's musl build (SConscript links this file into it alone). That
 * archive is built for glibc with _FORTIFY_SOURCE; every other libc function
 * it calls (malloc, syscall, fdopen, ...) musl serves with the same ABI, and
 * the build fails on any it does not. glibc's flag asks for its own %n
 * checks, which libseccomp's formats (its debugging output alone) never need. */
#include <stdarg.h>
#include <stdio.h>

int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);

int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
        (void)flag;
        va_list ap;
        va_start(ap, fmt);
        int r = vfprintf(f, fmt, ap);
        va_end(ap);
        return r;
}
