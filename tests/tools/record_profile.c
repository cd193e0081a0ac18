/* record_profile: a record file (record/record_file.h) into a profile, the way
 * poststop does it, for the integration suites.
 *
 *   record_profile [--format oci|docker] [--errno EPERM|ENOSYS] [--input PROFILE]
 *                  [--output PATH [--rootfs DIR]] RECORD
 *   record_profile --check-path PATH [--input-path] [--rootfs DIR]
 *
 * The profile goes to standard output unless --output names a file (then it is
 * written with tsync_record_write). Exit 0, or 1 with one line on stderr. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/record_file.h"
#include "shared/cleanup.h"
#include "util/fileio.h"

static int fail(const char *where, const struct tsync_err *err)
{
        fprintf(stderr, "record_profile: %s: %s\n", where, err->msg);
        return 1;
}

/* Reads one byte more than a recording may hold, so the parser sees a file too large. */
static int read_record(const char *path, char **ret, size_t *ret_len, struct tsync_err *err)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return tsync_error(err, errno, "%s", strerror(errno));
        size_t cap = TSYNC_RECORD_MAX_BYTES + 1, len = 0;
        _cleanup_free_ char *buf = malloc(cap);
        if (!buf)
                return tsync_error(err, ENOMEM, "out of memory");
        while (len < cap) {
                ssize_t n = read(fd, buf + len, cap - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return tsync_error(err, errno, "%s", strerror(errno));
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        *ret = TAKE_PTR(buf);
        *ret_len = len;
        return 0;
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "format", required_argument, NULL, 'f' }, { "errno", required_argument, NULL, 'e' },
                { "input", required_argument, NULL, 'i' },  { "output", required_argument, NULL, 'o' },
                { "rootfs", required_argument, NULL, 'r' }, { "check-path", required_argument, NULL, 'c' },
                { "input-path", no_argument, NULL, 'I' },   { NULL, 0, NULL, 0 },
        };
        struct tsync_record_request req = { .format = TSYNC_RECORD_FORMAT_OCI, .errno_ret = EPERM };
        const char *rootfs = NULL, *check = NULL;
        bool input_path = false;
        struct tsync_err err = { 0 };
        int c;

        while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (c) {
                case 'f':
                        if (strcmp(optarg, "oci") == 0)
                                req.format = TSYNC_RECORD_FORMAT_OCI;
                        else if (strcmp(optarg, "docker") == 0)
                                req.format = TSYNC_RECORD_FORMAT_DOCKER;
                        else
                                return fprintf(stderr, "record_profile: --format: '%s' is unknown\n", optarg), 2;
                        break;
                case 'e':
                        req.errno_ret = strcmp(optarg, "ENOSYS") == 0  ? ENOSYS
                                        : strcmp(optarg, "EPERM") == 0 ? EPERM
                                                                       : atoi(optarg);
                        break;
                case 'i':
                        req.input = optarg;
                        break;
                case 'o':
                        req.output = optarg;
                        break;
                case 'r':
                        rootfs = optarg;
                        break;
                case 'c':
                        check = optarg;
                        break;
                case 'I':
                        input_path = true;
                        break;
                default:
                        return 2;
                }
        }
        if (check) {
                if (tsync_record_check_path(check, !input_path, rootfs, &err) < 0)
                        return fail("check-path", &err);
                return 0;
        }
        if (optind != argc - 1) {
                fprintf(stderr, "usage: record_profile [options] RECORD\n");
                return 2;
        }
        const char *record = argv[optind];
        _cleanup_free_ char *text = NULL, *profile = NULL;
        size_t len = 0, profile_len = 0;
        struct tsync_record_set *set = NULL;
        if (read_record(record, &text, &len, &err) < 0 || tsync_record_parse(text, len, &set, &err) < 0)
                return fail(record, &err);
        _cleanup_free_ char *unnamed = NULL;
        int r = tsync_record_unnamed(set, &unnamed, &err);
        if (r == 0)
                r = tsync_record_profile(set, &req, &profile, &profile_len, &err);
        tsync_record_set_free(set);
        if (r < 0)
                return fail(record, &err);
        if (unnamed)
                fprintf(stderr, "record_profile: %s: left out, with no name in libseccomp (denied): %s\n", record,
                        unnamed);
        if (req.output) {
                if (tsync_record_write(req.output, profile, profile_len, rootfs, 0, &err) < 0)
                        return fail(req.output, &err);
                return 0;
        }
        if (tsync_write_all(STDOUT_FILENO, profile, profile_len) < 0) {
                perror("record_profile: standard output");
                return 1;
        }
        return 0;
}
