/* The errno table (hook/shared/errnos.c). Its words are glibc's: each number
 * glibc describes, described alike; each it does not, "unknown error"; -e as
 * e. The init built with musl prints these, so its messages read as the
 * hook's. Its names are glibc's too, and the names containers/common takes
 * are exactly the list below, copied from profile_docker.c's own table before
 * it moved into the shared one (issue 36): a profile's "errno" and exec once's
 * ERRNO take what they took then, no more, no less. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "plan/plan.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "shared/error.h"
#include "tap.h"
#include "translate/profile.h"

/* containers/common's errnoArch, as profile_docker.c listed it: each name and
 * the number <errno.h> gives it, found without the code under test. */
/* clang-format off */
#define E(x) { #x, x }
/* clang-format on */
static const struct {
        const char *name;
        int value;
} common_names[] = {
        E(EPERM),           E(ENOENT),       E(ESRCH),           E(EIO),          E(ENXIO),       E(E2BIG),
        E(ENOEXEC),         E(EBADF),        E(ECHILD),          E(EDEADLK),      E(ENOMEM),      E(EACCES),
        E(EFAULT),          E(ENOTBLK),      E(EBUSY),           E(EEXIST),       E(EXDEV),       E(ENODEV),
        E(ENOTDIR),         E(EISDIR),       E(EINVAL),          E(ENFILE),       E(EMFILE),      E(ENOTTY),
        E(ETXTBSY),         E(EFBIG),        E(ENOSPC),          E(ESPIPE),       E(EROFS),       E(EMLINK),
        E(EPIPE),           E(EDOM),         E(ERANGE),          E(EAGAIN),       E(EINPROGRESS), E(EALREADY),
        E(ENOTSOCK),        E(EDESTADDRREQ), E(EMSGSIZE),        E(EPROTOTYPE),   E(ENOPROTOOPT), E(EPROTONOSUPPORT),
        E(ESOCKTNOSUPPORT), E(EOPNOTSUPP),   E(EPFNOSUPPORT),    E(EAFNOSUPPORT), E(EADDRINUSE),  E(EADDRNOTAVAIL),
        E(ENETDOWN),        E(ENETUNREACH),  E(ENETRESET),       E(ECONNABORTED), E(ECONNRESET),  E(ENOBUFS),
        E(EISCONN),         E(ENOTCONN),     E(ESHUTDOWN),       E(ETOOMANYREFS), E(ETIMEDOUT),   E(ECONNREFUSED),
        E(ELOOP),           E(ENAMETOOLONG), E(EHOSTDOWN),       E(EHOSTUNREACH), E(ENOTEMPTY),   E(EUSERS),
        E(EDQUOT),          E(ESTALE),       E(EREMOTE),         E(ENOLCK),       E(ENOSYS),      E(EILSEQ),
        E(ENOMEDIUM),       E(EMEDIUMTYPE),  E(EOVERFLOW),       E(ECANCELED),    E(EIDRM),       E(ENOMSG),
        E(ENOTSUP),         E(EBADMSG),      E(ENOTRECOVERABLE), E(EOWNERDEAD),
};
#undef E

/* The aliases <errno.h> defines on Linux: a name of no row of glibc's. */
static const char *const aliases[] = { "ENOTSUP", "EWOULDBLOCK", "EDEADLOCK" };

static int common_value(const char *name)
{
        for (size_t i = 0; i < ARRAY_SIZE(common_names); i++)
                if (strcmp(common_names[i].name, name) == 0)
                        return common_names[i].value;
        return -1;
}

static void test_errnos_words_are_glibcs(void)
{
        int differ = 0, known = 0;

        for (int e = 0; e < 4096; e++) {
                const char *want = strerrordesc_np(e);
                const char *got = tsync_errtext(e);
                if (want)
                        known++;
                if (strcmp(got, want ? want : "unknown error") != 0 || strcmp(tsync_errtext(-e), got) != 0) {
                        differ++;
                        tap_ok(false, "errno %d: '%s', glibc says '%s'", e, got, want ? want : "(none)");
                }
        }
        tap_ok(differ == 0 && known > 130, "every errno 0..4095 reads as glibc's strerrordesc_np (%d known)", known);

        /* A few by heart, should glibc itself change its words. */
        static const struct {
                int e;
                const char *text;
        } fixed[] = {
                { 0, "Success" },
                { EPERM, "Operation not permitted" },
                { EIO, "Input/output error" },
                { ELOOP, "Too many levels of symbolic links" },
                { EOPNOTSUPP, "Operation not supported" },
                { -ENOSYS, "Function not implemented" },
                { 41, "unknown error" },
                { 134, "unknown error" },
                { 4096, "unknown error" },
                { INT_MAX, "unknown error" },
                { INT_MIN, "unknown error" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
                tap_ok(strcmp(tsync_errtext(fixed[i].e), fixed[i].text) == 0,
                       "test_errnos_text_of_%d_is_'%s' (got '%s')", fixed[i].e, fixed[i].text,
                       tsync_errtext(fixed[i].e));
}

/* By value, a name; by that name, the value back, among all names. */
static void test_errnos_names_are_glibcs(void)
{
        int differ = 0, named = 0;

        for (int e = 1; e < 4096; e++) {
                const char *want = strerrorname_np(e);
                const char *got = tsync_errno_name(e);
                const char *neg = tsync_errno_name(-e);
                int back = -1;
                bool same = want ? got && strcmp(got, want) == 0 : !got;
                if (got)
                        named++;
                if (got && (tsync_errno_from_name(got, TSYNC_ERRNO_NAMES_ALL, &back) < 0 || back != e))
                        same = false;
                if (!same || got != neg) {
                        differ++;
                        tap_ok(false, "errno %d: named '%s' (back %d), glibc says '%s'", e, got ? got : "(none)", back,
                               want ? want : "(none)");
                }
        }
        tap_ok(differ == 0 && named > 130, "test_errnos_every_name_is_glibcs_strerrorname_np_and_reads_back (%d named)",
               named);
        tap_ok(!tsync_errno_name(0) && !tsync_errno_name(4096) && !tsync_errno_name(INT_MIN),
               "test_errnos_0_and_numbers_past_the_table_have_no_name");
}

/* Each name containers/common takes, through the table and through each parser
 * that took it before: the same number. Every other name, refused where only
 * containers/common's are taken. */
static void test_errnos_common_names_are_as_before(void)
{
        int wrong = 0, others = 0;

        for (size_t i = 0; i < ARRAY_SIZE(common_names); i++) {
                const char *name = common_names[i].name;
                int want = common_names[i].value, got = -1, once = -1, all = -1;
                uint64_t parsed = 0;
                if (tsync_errno_from_name(name, TSYNC_ERRNO_NAMES_COMMON, &got) < 0 || got != want ||
                    tsync_errno_from_name(name, TSYNC_ERRNO_NAMES_ALL, &all) < 0 || all != want ||
                    tsync_errno_parse(name, &parsed) < 0 || parsed != (uint64_t)want ||
                    tsync_exec_once_errno_parse(name, &once) < 0 || once != want) {
                        wrong++;
                        tap_ok(false, "%s: %d common, %d all, %llu parsed, %d exec once; want %d", name, got, all,
                               (unsigned long long)parsed, once, want);
                }
        }
        tap_ok(wrong == 0 && ARRAY_SIZE(common_names) == 82,
               "test_errnos_each_of_containers_commons_%zu_names_is_taken_as_before", ARRAY_SIZE(common_names));

        /* Every name glibc knows, and the aliases: taken iff listed. */
        for (int e = 1; e < 4096 + (int)ARRAY_SIZE(aliases); e++) {
                const char *name = e < 4096 ? strerrorname_np(e) : aliases[e - 4096];
                int got = -1, once = -1;
                uint64_t parsed = 0;
                if (!name)
                        continue;
                bool listed = common_value(name) >= 0;
                bool taken = tsync_errno_from_name(name, TSYNC_ERRNO_NAMES_COMMON, &got) == 0;
                bool parses = tsync_errno_parse(name, &parsed) == 0;
                bool once_parses = tsync_exec_once_errno_parse(name, &once) == 0;
                if (!listed)
                        others++;
                if (taken != listed || parses != listed || once_parses != listed) {
                        wrong++;
                        tap_ok(false, "%s: listed %d, taken %d, parsed %d, exec once %d", name, listed, taken, parses,
                               once_parses);
                }
        }
        tap_ok(wrong == 0 && others >= 50, "test_errnos_no_other_name_is_taken_as_containers_commons (%d others)",
               others);
}

static void test_errnos_unknown_names_are_refused(void)
{
        static const char *const unknown[] = { "EFOO",        "",         "eperm", "EPERM ",
                                               " EPERM",      "E",        "1",     "Operation not permitted",
                                               "EWOULDBLOCK", "EDEADLOCK" };
        for (size_t i = 0; i < ARRAY_SIZE(unknown); i++) {
                int e = 12345;
                uint64_t v = 12345;
                tap_ok(tsync_errno_from_name(unknown[i], TSYNC_ERRNO_NAMES_ALL, &e) == -EINVAL &&
                               tsync_errno_from_name(unknown[i], TSYNC_ERRNO_NAMES_COMMON, &e) == -EINVAL &&
                               e == 12345 && (strcmp(unknown[i], "1") == 0 || tsync_errno_parse(unknown[i], &v) < 0),
                       "test_errnos_name_'%s'_is_refused", unknown[i]);
        }
        /* A name of the table containers/common does not take: all of them, not common. */
        int e = -1;
        tap_ok(tsync_errno_from_name("EINTR", TSYNC_ERRNO_NAMES_ALL, &e) == 0 && e == EINTR &&
                       tsync_errno_from_name("ECHRNG", TSYNC_ERRNO_NAMES_COMMON, &e) == -EINVAL,
               "test_errnos_EINTR_is_a_name_and_ECHRNG_not_containers_commons");
        tap_ok(tsync_errno_from_name("ENOTSUP", TSYNC_ERRNO_NAMES_COMMON, &e) == 0 && e == EOPNOTSUPP &&
                       strcmp(tsync_errno_name(ENOTSUP), "EOPNOTSUPP") == 0,
               "test_errnos_ENOTSUP_reads_as_EOPNOTSUPP_named_EOPNOTSUPP");
}

/* The numbers beside the names: as before, a profile's up to UINT32_MAX, exec
 * once's 1 to 4095. */
static void test_errnos_numbers_are_as_before(void)
{
        static const struct {
                const char *s;
                bool profile, once;
                uint64_t value;
        } cases[] = {
                { "1", true, true, 1 },
                { "0", true, false, 0 },
                { "4095", true, true, 4095 },
                { "4096", true, false, 4096 },
                { "007", true, true, 7 },
                { "4294967295", true, false, 4294967295u },
                { "4294967296", false, false, 0 },
                { "-1", false, false, 0 },
                { "+1", false, false, 0 },
                { "0x10", false, false, 0 },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                uint64_t v = 0;
                int once = 0;
                bool profile = tsync_errno_parse(cases[i].s, &v) == 0;
                bool o = tsync_exec_once_errno_parse(cases[i].s, &once) == 0;
                tap_ok(profile == cases[i].profile && o == cases[i].once && (!profile || v == cases[i].value) &&
                               (!o || (uint64_t)once == cases[i].value),
                       "test_errnos_number_'%s'_profile_%d_exec_once_%d", cases[i].s, cases[i].profile, cases[i].once);
        }
}

/* tsync_error_errno ends the message with errno in these words and keeps
 * errno as the code, as the hand-spelt "...: %s", strerror(errno) did. */
static void test_error_errno_ends_with_the_words(void)
{
        struct tsync_err err = { 0 };
        char big[TSYNC_ERR_MSG_MAX + 16];
        errno = ENOENT;
        int r = tsync_error_errno(&err, "%s/%d", "x", 7);
        tap_ok(r == -ENOENT && err.code == ENOENT && strcmp(err.msg, "x/7: No such file or directory") == 0,
               "test_error_errno_ends_with_the_words (%d %s)", r, err.msg);
        errno = EACCES;
        tap_ok(tsync_error_errno(NULL, "nothing kept") == -EACCES, "test_error_errno_without_an_err");
        errno = 0;
        r = tsync_error_errno(&err, "y");
        tap_ok(r == -EINVAL && err.code == EINVAL && strcmp(err.msg, "y: Success") == 0,
               "test_error_errno_of_no_errno_is_einval (%d %s)", r, err.msg);
        memset(big, 'a', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        errno = EIO;
        r = tsync_error_errno(&err, "%s", big);
        tap_ok(r == -EIO && strlen(err.msg) == TSYNC_ERR_MSG_MAX - 1, "test_error_errno_cut_to_the_message_size (%zu)",
               strlen(err.msg));
}

int main(void)
{
        test_errnos_words_are_glibcs();
        test_errnos_names_are_glibcs();
        test_errnos_common_names_are_as_before();
        test_errnos_unknown_names_are_refused();
        test_errnos_numbers_are_as_before();
        test_error_errno_ends_with_the_words();
        return tap_done();
}
