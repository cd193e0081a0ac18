/* The kernel's error numbers, one row each: the name <errno.h> gives it, its
 * words as glibc words them (its strerrordesc_np), and whether
 * containers/common takes the name. One table for the init's messages, a
 * Docker-format profile's "errno", exec once's errno and a recording's
 * defaultErrnoRet, so that a name and its number cannot drift apart between
 * them (issue 36).
 *
 * The words are glibc's whatever libc the program links: the static init is
 * built with musl, whose strerror words many of them differ ("I/O error",
 * "Symbolic link loop", "Not supported"), and its messages must read as the
 * hook's do, as the man pages and docs quote them, under either libc. No
 * locale, no buffer, no heap: callable after the init's filters.
 * tests/unit/test_errnos.c holds the names and words against glibc's, and the
 * names containers/common takes against a list of its own. */
#include "shared/errnos.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "shared/cleanup.h"

struct errno_def {
        const char *name;  /* NULL: the number has no name (0) */
        const char *alias; /* a second name for the same number, taken where the name is */
        const char *text;
        /* containers/common's errnoArch (pkg/seccomp, as in Podman 4.3) holds
         * the name: what a Docker-format profile's "errno" and "defaultErrno"
         * may say, no more, so that a profile we take is one Podman takes. */
        bool common;
};

/* The name is the macro's own spelling of the index: a row cannot carry another
 * number's name. */
#define COMMON(e, words) [e] = { .name = #e, .text = (words), .common = true }
#define OTHER(e, words)  [e] = { .name = #e, .text = (words), .common = false }

/* containers/common names ENOTSUP beside EOPNOTSUPP, the same number on Linux
 * under glibc and musl; it names neither EWOULDBLOCK (EAGAIN) nor EDEADLOCK
 * (EDEADLK), which is why they are no alias here. */
_Static_assert(ENOTSUP == EOPNOTSUPP, "ENOTSUP is EOPNOTSUPP's alias");

/* clang-format off */
static const struct errno_def errnos[] = {
        [0] = { .text = "Success" },
        COMMON(EPERM, "Operation not permitted"),
        COMMON(ENOENT, "No such file or directory"),
        COMMON(ESRCH, "No such process"),
        OTHER(EINTR, "Interrupted system call"),
        COMMON(EIO, "Input/output error"),
        COMMON(ENXIO, "No such device or address"),
        COMMON(E2BIG, "Argument list too long"),
        COMMON(ENOEXEC, "Exec format error"),
        COMMON(EBADF, "Bad file descriptor"),
        COMMON(ECHILD, "No child processes"),
        COMMON(EAGAIN, "Resource temporarily unavailable"),
        COMMON(ENOMEM, "Cannot allocate memory"),
        COMMON(EACCES, "Permission denied"),
        COMMON(EFAULT, "Bad address"),
        COMMON(ENOTBLK, "Block device required"),
        COMMON(EBUSY, "Device or resource busy"),
        COMMON(EEXIST, "File exists"),
        COMMON(EXDEV, "Invalid cross-device link"),
        COMMON(ENODEV, "No such device"),
        COMMON(ENOTDIR, "Not a directory"),
        COMMON(EISDIR, "Is a directory"),
        COMMON(EINVAL, "Invalid argument"),
        COMMON(ENFILE, "Too many open files in system"),
        COMMON(EMFILE, "Too many open files"),
        COMMON(ENOTTY, "Inappropriate ioctl for device"),
        COMMON(ETXTBSY, "Text file busy"),
        COMMON(EFBIG, "File too large"),
        COMMON(ENOSPC, "No space left on device"),
        COMMON(ESPIPE, "Illegal seek"),
        COMMON(EROFS, "Read-only file system"),
        COMMON(EMLINK, "Too many links"),
        COMMON(EPIPE, "Broken pipe"),
        COMMON(EDOM, "Numerical argument out of domain"),
        COMMON(ERANGE, "Numerical result out of range"),
        COMMON(EDEADLK, "Resource deadlock avoided"),
        COMMON(ENAMETOOLONG, "File name too long"),
        COMMON(ENOLCK, "No locks available"),
        COMMON(ENOSYS, "Function not implemented"),
        COMMON(ENOTEMPTY, "Directory not empty"),
        COMMON(ELOOP, "Too many levels of symbolic links"),
        COMMON(ENOMSG, "No message of desired type"),
        COMMON(EIDRM, "Identifier removed"),
        OTHER(ECHRNG, "Channel number out of range"),
        OTHER(EL2NSYNC, "Level 2 not synchronized"),
        OTHER(EL3HLT, "Level 3 halted"),
        OTHER(EL3RST, "Level 3 reset"),
        OTHER(ELNRNG, "Link number out of range"),
        OTHER(EUNATCH, "Protocol driver not attached"),
        OTHER(ENOCSI, "No CSI structure available"),
        OTHER(EL2HLT, "Level 2 halted"),
        OTHER(EBADE, "Invalid exchange"),
        OTHER(EBADR, "Invalid request descriptor"),
        OTHER(EXFULL, "Exchange full"),
        OTHER(ENOANO, "No anode"),
        OTHER(EBADRQC, "Invalid request code"),
        OTHER(EBADSLT, "Invalid slot"),
        OTHER(EBFONT, "Bad font file format"),
        OTHER(ENOSTR, "Device not a stream"),
        OTHER(ENODATA, "No data available"),
        OTHER(ETIME, "Timer expired"),
        OTHER(ENOSR, "Out of streams resources"),
        OTHER(ENONET, "Machine is not on the network"),
        OTHER(ENOPKG, "Package not installed"),
        COMMON(EREMOTE, "Object is remote"),
        OTHER(ENOLINK, "Link has been severed"),
        OTHER(EADV, "Advertise error"),
        OTHER(ESRMNT, "Srmount error"),
        OTHER(ECOMM, "Communication error on send"),
        OTHER(EPROTO, "Protocol error"),
        OTHER(EMULTIHOP, "Multihop attempted"),
        OTHER(EDOTDOT, "RFS specific error"),
        COMMON(EBADMSG, "Bad message"),
        COMMON(EOVERFLOW, "Value too large for defined data type"),
        OTHER(ENOTUNIQ, "Name not unique on network"),
        OTHER(EBADFD, "File descriptor in bad state"),
        OTHER(EREMCHG, "Remote address changed"),
        OTHER(ELIBACC, "Can not access a needed shared library"),
        OTHER(ELIBBAD, "Accessing a corrupted shared library"),
        OTHER(ELIBSCN, ".lib section in a.out corrupted"),
        OTHER(ELIBMAX, "Attempting to link in too many shared libraries"),
        OTHER(ELIBEXEC, "Cannot exec a shared library directly"),
        COMMON(EILSEQ, "Invalid or incomplete multibyte or wide character"),
        OTHER(ERESTART, "Interrupted system call should be restarted"),
        OTHER(ESTRPIPE, "Streams pipe error"),
        COMMON(EUSERS, "Too many users"),
        COMMON(ENOTSOCK, "Socket operation on non-socket"),
        COMMON(EDESTADDRREQ, "Destination address required"),
        COMMON(EMSGSIZE, "Message too long"),
        COMMON(EPROTOTYPE, "Protocol wrong type for socket"),
        COMMON(ENOPROTOOPT, "Protocol not available"),
        COMMON(EPROTONOSUPPORT, "Protocol not supported"),
        COMMON(ESOCKTNOSUPPORT, "Socket type not supported"),
        [EOPNOTSUPP] = { .name = "EOPNOTSUPP", .alias = "ENOTSUP", .text = "Operation not supported", .common = true },
        COMMON(EPFNOSUPPORT, "Protocol family not supported"),
        COMMON(EAFNOSUPPORT, "Address family not supported by protocol"),
        COMMON(EADDRINUSE, "Address already in use"),
        COMMON(EADDRNOTAVAIL, "Cannot assign requested address"),
        COMMON(ENETDOWN, "Network is down"),
        COMMON(ENETUNREACH, "Network is unreachable"),
        COMMON(ENETRESET, "Network dropped connection on reset"),
        COMMON(ECONNABORTED, "Software caused connection abort"),
        COMMON(ECONNRESET, "Connection reset by peer"),
        COMMON(ENOBUFS, "No buffer space available"),
        COMMON(EISCONN, "Transport endpoint is already connected"),
        COMMON(ENOTCONN, "Transport endpoint is not connected"),
        COMMON(ESHUTDOWN, "Cannot send after transport endpoint shutdown"),
        COMMON(ETOOMANYREFS, "Too many references: cannot splice"),
        COMMON(ETIMEDOUT, "Connection timed out"),
        COMMON(ECONNREFUSED, "Connection refused"),
        COMMON(EHOSTDOWN, "Host is down"),
        COMMON(EHOSTUNREACH, "No route to host"),
        COMMON(EALREADY, "Operation already in progress"),
        COMMON(EINPROGRESS, "Operation now in progress"),
        COMMON(ESTALE, "Stale file handle"),
        OTHER(EUCLEAN, "Structure needs cleaning"),
        OTHER(ENOTNAM, "Not a XENIX named type file"),
        OTHER(ENAVAIL, "No XENIX semaphores available"),
        OTHER(EISNAM, "Is a named type file"),
        OTHER(EREMOTEIO, "Remote I/O error"),
        COMMON(EDQUOT, "Disk quota exceeded"),
        COMMON(ENOMEDIUM, "No medium found"),
        COMMON(EMEDIUMTYPE, "Wrong medium type"),
        COMMON(ECANCELED, "Operation canceled"),
        OTHER(ENOKEY, "Required key not available"),
        OTHER(EKEYEXPIRED, "Key has expired"),
        OTHER(EKEYREVOKED, "Key has been revoked"),
        OTHER(EKEYREJECTED, "Key was rejected by service"),
        COMMON(EOWNERDEAD, "Owner died"),
        COMMON(ENOTRECOVERABLE, "State not recoverable"),
        OTHER(ERFKILL, "Operation not possible due to RF-kill"),
        OTHER(EHWPOISON, "Memory page has hardware error"),
};
/* clang-format on */
#undef COMMON
#undef OTHER

/* What a number the table does not know reads as: no name, glibc's
 * strerrordesc_np has no words for it either. */
static const struct errno_def unknown = { .text = "unknown error" };

/* e's row, or -e's; the unknown row past the table and in its holes (41, 58).
 * In unsigned arithmetic, so that INT_MIN is past the table rather than
 * undefined. */
static const struct errno_def *row(int e)
{
        unsigned u = e < 0 ? 0u - (unsigned)e : (unsigned)e;
        return u < ARRAY_SIZE(errnos) && errnos[u].text ? &errnos[u] : &unknown;
}

const char *tsync_errtext(int e)
{
        return row(e)->text;
}

const char *tsync_errno_name(int e)
{
        return row(e)->name;
}

int tsync_errno_from_name(const char *name, enum tsync_errno_names names, int *ret)
{
        for (size_t e = 0; e < ARRAY_SIZE(errnos); e++) {
                const struct errno_def *d = &errnos[e];
                if (!d->name || (names == TSYNC_ERRNO_NAMES_COMMON && !d->common))
                        continue;
                if (strcmp(name, d->name) == 0 || (d->alias && strcmp(name, d->alias) == 0)) {
                        *ret = (int)e;
                        return 0;
                }
        }
        return -EINVAL;
}

int tsync_parse_decimal(const char *s, size_t len, uint64_t max, uint64_t *ret)
{
        uint64_t v = 0;
        if (len == 0)
                return -EINVAL;
        for (size_t i = 0; i < len; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -EINVAL;
                unsigned d = (unsigned)(s[i] - '0');
                if (v > (max - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *ret = v;
        return 0;
}

int tsync_errno_parse(const char *s, uint64_t *ret)
{
        int e;
        if (tsync_parse_decimal(s, strlen(s), UINT32_MAX, ret) == 0)
                return 0;
        /* containers/common's names, not every name: a profile we take is one Podman takes. */
        if (tsync_errno_from_name(s, TSYNC_ERRNO_NAMES_COMMON, &e) < 0)
                return -EINVAL;
        *ret = (uint64_t)e;
        return 0;
}
