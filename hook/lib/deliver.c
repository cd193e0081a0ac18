#include "tsync/deliver.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tsync/cache.h"
#include "tsync/caps.h"
#include "tsync/cleanup.h"
#include "tsync/fileio.h"
#include "tsync/filterfile.h"
#include "tsync/source.h"

static int refuse_notify(const struct tsync_profile *p, const char *what, struct tsync_err *err)
{
        bool notify = p->default_action.kind == TSYNC_ACT_NOTIFY;
        for (size_t i = 0; i < p->n_rules && !notify; i++)
                notify = p->rules[i].action.kind == TSYNC_ACT_NOTIFY;
        if (notify || p->listener_path)
                return tsync_error(err, EOPNOTSUPP, "%s: SCMP_ACT_NOTIFY and listenerPath are not supported yet", what);
        return 0;
}

static int open_named_layer(const struct tsync_deliver_opts *o, const char *name, char **ret_path,
                            struct tsync_err *err)
{
        if (!tsync_layer_name_valid(name))
                return tsync_error(err, EINVAL, "layer '%s': not a profile name (letters, digits, '_', '-', '.')", name);
        for (size_t d = 0; d < o->n_profile_dirs; d++) {
                const char *suffixes[] = { ".json", "" };
                for (size_t s = 0; s < ARRAY_SIZE(suffixes); s++) {
                        _cleanup_free_ char *path = NULL;
                        if (asprintf(&path, "%s/%s%s", o->profile_dirs[d], name, suffixes[s]) < 0)
                                return tsync_error(err, ENOMEM, "out of memory");
                        struct stat st;
                        /* The name is one component; refuse a symlink planted in a profile directory. */
                        if (lstat(path, &st) < 0)
                                continue;
                        if (!S_ISREG(st.st_mode))
                                return tsync_error(err, EINVAL, "layer '%s': %s is not a regular file", name, path);
                        *ret_path = TAKE_PTR(path);
                        return 0;
                }
        }
        return tsync_error(err, ENOENT, "layer '%s': no such profile in %s%s", name,
                           o->n_profile_dirs ? o->profile_dirs[0] : "(no profile directory)",
                           o->n_profile_dirs > 1 ? " or the other profile directories" : "");
}

int tsync_plan_load_profile(const struct tsync_plan *plan, long i, const struct tsync_deliver_opts *o,
                            struct tsync_profile **ret, uint64_t *ret_caps, struct tsync_warnings *w,
                            struct tsync_err *err)
{
        /* A layer must say exactly what it means; the moved linux.seccomp is read as runc would. */
        struct tsync_source_opts so = { .format = TSYNC_FORMAT_AUTO,
                                        .have_caps = true,
                                        .keys = i < 0 ? TSYNC_KEYS_WARN : TSYNC_KEYS_ERROR,
                                        .warnings = w };
        struct tsync_source_info info = { 0 };
        int r = tsync_caps_bounding_of(plan->capabilities, "plan.capabilities.bounding", &so.caps, err);
        if (r < 0)
                return r;
        if (i < 0) {
                so.format = TSYNC_FORMAT_OCI;
                r = tsync_source_from_json(plan->seccomp, &so, ret, &info, err);
                if (r < 0)
                        return tsync_error_prefix(err, "linux.seccomp (replace mode)");
                r = refuse_notify(*ret, "linux.seccomp", err);
        } else {
                _cleanup_free_ char *path = NULL;
                if (plan->layers_by_name) {
                        r = open_named_layer(o, plan->layers[i], &path, err);
                        if (r < 0)
                                return r;
                } else if (plan->layers[i][0] != '/') {
                        return tsync_error(err, EINVAL, "layer %ld: '%s' is not an absolute path", i, plan->layers[i]);
                } else if (!(path = strdup(plan->layers[i]))) {
                        return tsync_error(err, ENOMEM, "out of memory");
                }
                r = tsync_source_load(path, &so, ret, &info, err);
                if (r < 0)
                        return tsync_error_prefix(err, "layer '%s'", plan->layers[i]);
                r = refuse_notify(*ret, path, err);
                if (r < 0)
                        (void)tsync_error_prefix(err, "layer '%s'", plan->layers[i]);
        }
        if (r < 0) {
                tsync_profile_free(*ret);
                *ret = NULL;
                return r;
        }
        *ret_caps = info.caps;
        return 0;
}

static bool is_hex_token(const char *s)
{
        size_t n = strlen(s);
        if (n != 32)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        return true;
}

/* 1: precreate's directory (remove it at poststop), 0: the bundle's, <0: neither. */
static int state_dir_kind(const struct tsync_plan *plan, const struct tsync_deliver_opts *o)
{
        const char *d = plan->state_dir;
        size_t rl = strlen(o->state_root);
        if (strncmp(d, o->state_root, rl) == 0 && d[rl] == '/' && is_hex_token(d + rl + 1))
                return 1;
        if (o->bundle) {
                size_t bl = strlen(o->bundle);
                while (bl > 1 && o->bundle[bl - 1] == '/')
                        bl--;
                if (strncmp(d, o->bundle, bl) == 0 && d[bl] == '/' && strcmp(d + bl + 1, TSYNC_BUNDLE_STATE) == 0)
                        return 0;
        }
        return -1;
}

int tsync_plan_check_state_dir(const struct tsync_plan *plan, const struct tsync_deliver_opts *o, struct tsync_err *err)
{
        if (state_dir_kind(plan, o) < 0)
                return tsync_error(err, EPERM, "plan.stateDir: '%s' is neither %s/<token> nor in the bundle",
                                   plan->state_dir, o->state_root);
        struct stat st;
        if (lstat(plan->state_dir, &st) < 0)
                return tsync_error(err, errno, "%s: %s", plan->state_dir, strerror(errno));
        if (!S_ISDIR(st.st_mode))
                return tsync_error(err, ENOTDIR, "%s: not a directory (a symlink?)", plan->state_dir);
        return tsync_check_private_dir(plan->state_dir, &st, err);
}

int tsync_deliver(const struct tsync_plan *plan, const struct tsync_deliver_opts *o, struct tsync_warnings *w,
                  struct tsync_err *err)
{
        int r = tsync_plan_check_state_dir(plan, o, err);
        if (r < 0)
                return r;
        size_t n = tsync_plan_filter_count(plan);
        long first = plan->replace && plan->seccomp ? -1 : 0;
        for (size_t k = 0; k < n; k++) {
                long i = first + (long)k;
                _cleanup_profile_ struct tsync_profile *p = NULL;
                uint64_t caps = 0;
                r = tsync_plan_load_profile(plan, i, o, &p, &caps, w, err);
                if (r < 0)
                        return r;
                _cleanup_program_ struct tsync_program *prog = NULL;
                struct tsync_compile_opts co = { .strict = plan->fail_unknown_syscall };
                r = tsync_cache_compile(o->cache_dir, p, &co, caps, &prog, w, err);
                if (r < 0)
                        return i < 0 ? tsync_error_prefix(err, "linux.seccomp") : tsync_error_prefix(err, "layer '%s'", plan->layers[i]);
                size_t size = TSYNC_FILTER_HEADER_SIZE + prog->len * sizeof(struct sock_filter);
                _cleanup_free_ void *buf = malloc(size);
                if (!buf)
                        return tsync_error(err, ENOMEM, "out of memory");
                long written = tsync_filter_encode(prog->insns, prog->len, prog->flags, buf, size);
                if (written < 0)
                        return tsync_error(err, (int)-written, "encoding filter %zu: %s", k, strerror((int)-written));
                _cleanup_free_ char *path = NULL;
                if (asprintf(&path, "%s/%02zu.bpf", plan->state_dir, k) < 0)
                        return tsync_error(err, ENOMEM, "out of memory");
                r = tsync_write_atomic(path, buf, (size_t)written, 0444, false, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

int tsync_deliver_clean(const struct tsync_plan *plan, const struct tsync_deliver_opts *o, struct tsync_err *err)
{
        int kind = state_dir_kind(plan, o);
        if (kind < 0)
                return tsync_error(err, EPERM, "plan.stateDir: '%s' is neither %s/<token> nor in the bundle",
                                   plan->state_dir, o->state_root);
        _cleanup_close_ int dfd = open(plan->state_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0) {
                if (errno == ENOENT)
                        return 0;
                return tsync_error(err, errno, "%s: %s", plan->state_dir, strerror(errno));
        }
        DIR *d = fdopendir(dup(dfd));
        if (!d)
                return tsync_error(err, errno, "%s: %s", plan->state_dir, strerror(errno));
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
                        r = tsync_error(err, errno, "%s/%s: %s", plan->state_dir, e->d_name, strerror(errno));
        }
        closedir(d);
        if (r == 0 && kind == 1 && rmdir(plan->state_dir) < 0 && errno != ENOENT)
                r = tsync_error(err, errno, "%s: %s", plan->state_dir, strerror(errno));
        return r;
}
