#include "plan/deliver.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/filterfile.h"
#include "util/fileio.h"

int tsync_deliver(const struct tsync_plan *plan, const struct tsync_plan_paths *o,
                  const struct tsync_plan_programs *progs, struct tsync_err *err)
{
        if (plan->delivery == TSYNC_DELIVERY_ARGS)
                return 0; /* the rewrite wrote them into the init's arguments */
        int r = tsync_plan_check_state_dir(plan, o, err);
        if (r < 0)
                return r;
        size_t n = tsync_plan_filter_count(plan);
        if (progs->n != progs->n_baseline + n)
                return tsync_error(err, EINVAL, "%zu compiled filters for a plan of %zu", progs->n - progs->n_baseline,
                                   n);
        for (size_t k = 0; k < n; k++) {
                _cleanup_free_ void *buf = NULL;
                size_t written;
                r = tsync_plan_encode_filter(progs, k, &buf, &written, err);
                if (r < 0)
                        return r;
                _cleanup_free_ char *path = NULL;
                if (asprintf(&path, "%s/%02zu.bpf", plan->state_dir, k) < 0)
                        return tsync_error(err, ENOMEM, "out of memory");
                r = tsync_write_atomic(path, buf, (size_t)written, 0444, false, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

int tsync_deliver_clean(const struct tsync_plan *plan, const struct tsync_plan_paths *o, struct tsync_err *err)
{
        if (plan->delivery == TSYNC_DELIVERY_ARGS)
                return 0;
        enum tsync_state_dir_kind kind;
        if (tsync_plan_state_dir_kind(plan, o, &kind, err) < 0)
                return -EPERM;
        _cleanup_close_ int dfd = open(plan->state_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0) {
                if (errno == ENOENT)
                        return 0;
                return tsync_error_errno(err, "%s", plan->state_dir);
        }
        DIR *d = fdopendir(dup(dfd));
        if (!d)
                return tsync_error_errno(err, "%s", plan->state_dir);
        int r = 0;
        for (struct dirent *e; (e = readdir(d));) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                        continue;
                if (unlinkat(dfd, e->d_name, 0) == 0 || errno == ENOENT)
                        continue;
                /* Only filter files belong here; an empty directory put in their
                 * place would keep the state (and precreate's directory) behind. */
                if (errno == EISDIR && unlinkat(dfd, e->d_name, AT_REMOVEDIR) == 0)
                        continue;
                if (r == 0)
                        r = tsync_error_errno(err, "%s/%s", plan->state_dir, e->d_name);
        }
        closedir(d);
        if (r == 0 && kind == TSYNC_STATE_DIR_PRECREATE && rmdir(plan->state_dir) < 0 && errno != ENOENT)
                r = tsync_error_errno(err, "%s", plan->state_dir);
        return r;
}
