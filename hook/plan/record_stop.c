/* poststop's part of a recording (record/record_file.h): the calls file the init
 * wrote (through the fd createRuntime's relay handed it) in the recording's
 * directory becomes the profile at the user's path. The directory is root's
 * alone (0700) and was never in the container; the file is still opened
 * without following links or blocking, read up to TSYNC_RECORD_MAX_BYTES and
 * parsed strictly (the workload decides which calls it holds). Only the
 * parsed profile leaves; on a failure the raw calls stay in the directory,
 * root's alone, and nothing else. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/plan.h"
#include "plan/plan_record.h"
#include "plan/record_place.h"
#include "plan/record_stop.h"
#include "record/record_file.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/fileio.h"

/* The calls file's name in the recording's directory. */
static const char *calls_name(void)
{
        return TSYNC_RECORD_CALLS;
}

static int read_calls(int dfd, const char *dir, char **ret, size_t *ret_len, struct tsync_err *err)
{
        char what[PATH_MAX + 64];
        (void)snprintf(what, sizeof(what), "%s/%s", dir, calls_name());
        /* The workload can write to the file, not replace it: still no link, no FIFO. */
        int r = tsync_read_file_at(dfd, calls_name(), what,
                                   TSYNC_READ_NOFOLLOW | TSYNC_READ_OPEN_NONBLOCK | TSYNC_READ_REGULAR,
                                   TSYNC_RECORD_MAX_BYTES, ret, ret_len, NULL, err);
        if (r == -ENOENT)
                return tsync_error(err, ENOENT, "%s: %s (the workload never started?)", what, tsync_errtext(ENOENT));
        if (r == -EFBIG)
                return tsync_error(err, EFBIG, "%s: more than %u bytes, more than any recording holds", what,
                                   TSYNC_RECORD_MAX_BYTES);
        return r;
}

/* Removes what dfd holds but keep (NULL: nothing kept), directories too,
 * never following a link. */
static int remove_contents(int dfd, unsigned depth, const char *keep)
{
        int dup_fd = dup(dfd);
        if (dup_fd < 0)
                return -errno;
        DIR *d = fdopendir(dup_fd);
        if (!d) {
                (void)close(dup_fd);
                return -errno;
        }
        int r = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
                    (keep && strcmp(e->d_name, keep) == 0))
                        continue;
                if (unlinkat(dfd, e->d_name, 0) == 0)
                        continue;
                if ((errno != EISDIR && errno != EPERM) || depth >= 16) {
                        r = -errno;
                        continue;
                }
                int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub < 0) {
                        r = -errno;
                        continue;
                }
                int s = remove_contents(sub, depth + 1, NULL);
                (void)close(sub);
                if (s < 0 || unlinkat(dfd, e->d_name, AT_REMOVEDIR) < 0)
                        r = s < 0 ? s : -errno;
        }
        (void)closedir(d);
        return r;
}

/* Calls libseccomp cannot name are left out of the profile (denied): said once. */
static void warn_unnamed(const struct tsync_record_set *set, const char *output, struct tsync_warnings *w)
{
        _cleanup_free_ char *unnamed = NULL;
        struct tsync_err err = { 0 };
        /* -ENOMEM only: a warning lost to it changes nothing written. */
        if (tsync_record_unnamed(set, &unnamed, &err) == 0 && unnamed)
                (void)tsync_warn(w,
                                 "recording: calls this libseccomp has no name for are left out of %s (so denied): %s",
                                 output, unnamed);
}

/* 1 when there is nothing to write: no record file, or the empty one the
 * init leaves when it refused the start before the workload ran. */
static int make_profile(const struct tsync_plan *plan, const struct tsync_plan_paths *paths, int dfd,
                        const char *rootfs, struct tsync_warnings *w, struct tsync_err *err)
{
        const struct tsync_plan_record *rec = &plan->record;
        _cleanup_free_ char *calls = NULL, *text = NULL;
        size_t len = 0, text_len = 0;
        _cleanup_record_set_ struct tsync_record_set *set = NULL;
        int r = read_calls(dfd, rec->dir, &calls, &len, err);
        if (r == -ENOENT || (r == 0 && len == 0))
                return 1;
        if (r == 0 && (r = tsync_record_parse(calls, len, &set, err)) < 0)
                (void)tsync_error_prefix(err, "%s/%s", rec->dir, calls_name());
        if (r == 0)
                warn_unnamed(set, rec->req.output, w);
        if (r == 0)
                r = tsync_record_profile(set, &rec->req, &text, &text_len, err);
        if (r == 0 && (r = tsync_record_check_output_place(rec->req.output, paths, err)) < 0)
                (void)tsync_error_prefix(err, "writing %s", rec->req.output);
        if (r == 0 && (r = tsync_record_write(rec->req.output, text, text_len, rootfs,
                                              rec->no_replace ? TSYNC_RECORD_NEW : 0, err)) < 0)
                (void)tsync_error_prefix(err, "writing %s", rec->req.output);
        return r;
}

static int rootfs_of(const char *bundle, char **ret, struct tsync_err *err)
{
        char path[PATH_MAX + 16];
        _cleanup_json_ struct tsync_json *config = NULL;
        (void)snprintf(path, sizeof(path), "%s/config.json", bundle);
        int r = tsync_json_parse_file(path, NULL, &config, err);
        return r < 0 ? r : tsync_record_rootfs(config, bundle, ret, err);
}

int tsync_record_stop(const struct tsync_plan *plan, const struct tsync_plan_paths *paths, const char *bundle,
                      struct tsync_warnings *w, struct tsync_err *err)
{
        const char *record_root = paths->record_root;
        const struct tsync_plan_record *rec = &plan->record;
        int kind;
        if (!rec->req.output)
                return 0;
        int r = tsync_record_dir_kind(rec->dir, bundle, record_root ? record_root : TSYNC_RECORD_ROOT, &kind, err);
        char why[sizeof(err->msg)];
        if (r < 0) {
                memcpy(why, err->msg, sizeof(why));
                return tsync_error(err, -r, "recording: %s: refused", why);
        }
        _cleanup_close_ int dfd = open(rec->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                return tsync_error(err, errno, "recording: %s: %s", rec->dir,
                                   errno == ENOTDIR || errno == ELOOP ? "not a directory (a symlink?)"
                                                                      : tsync_errtext(errno));
        _cleanup_free_ char *rootfs = NULL;
        int made = rootfs_of(bundle, &rootfs, err);
        if (made == 0)
                made = make_profile(plan, paths, dfd, rootfs, w, err);
        if (made < 0) {
                /* Only the raw calls stay, where only root can read them. */
                (void)remove_contents(dfd, 0, calls_name());
                memcpy(why, err->msg, sizeof(why));
                return tsync_error(err, -made, "recording: %s; the raw calls stay in %s/%s (root's alone)", why,
                                   rec->dir, calls_name());
        }
        /* Written, or nothing to write: the directory goes (inject's is only
         * emptied, for the bundle's next run). */
        r = remove_contents(dfd, 0, NULL);
        if (r == 0 && kind == 1 && rmdir(rec->dir) < 0)
                r = -errno;
        if (r < 0)
                return tsync_error(err, -r, "recording: %s %s, but cleaning %s up: %s",
                                   made ? "nothing written to" : "written to", rec->req.output, rec->dir,
                                   tsync_errtext(-r));
        /* Nothing recorded: said (the directory is cleaned all the same). */
        if (made > 0)
                return tsync_error(err, ENODATA,
                                   "recording: nothing was recorded in %s (the workload never started): %s is left "
                                   "as it was",
                                   rec->dir, rec->req.output);
        return 0;
}
