/* The host's half of a recording: the request, the plan's part, the
 * directory the recording leaves the container through. */
#include "plan/plan_record.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/plan.h"
#include "shared/capsets.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "shared/filterfile.h"
#include "util/fileio.h"
#include "util/json_build.h"

void tsync_record_request_clear(struct tsync_record_request *r)
{
        free(r->output);
        free(r->input);
        *r = (struct tsync_record_request){ 0 };
}

int tsync_record_request_copy(const struct tsync_record_request *src, struct tsync_record_request *ret,
                              struct tsync_err *err)
{
        struct tsync_record_request c = { .format = src->format, .errno_ret = src->errno_ret };
        if ((src->output && !(c.output = strdup(src->output))) || (src->input && !(c.input = strdup(src->input)))) {
                tsync_record_request_clear(&c);
                return tsync_error(err, ENOMEM, "out of memory");
        }
        *ret = c;
        return 0;
}

int tsync_record_errno_parse(const char *s, int *ret)
{
        int e;
        if (tsync_errno_from_name(s, TSYNC_ERRNO_NAMES_ALL, &e) < 0 || (e != EPERM && e != ENOSYS))
                return -EINVAL;
        *ret = e;
        return 0;
}

const char *tsync_record_errno_name(int e)
{
        return tsync_errno_name(e == ENOSYS ? ENOSYS : EPERM);
}

int tsync_record_format_parse(const char *s, enum tsync_record_format *ret)
{
        if (strcmp(s, "oci") == 0)
                *ret = TSYNC_RECORD_FORMAT_OCI;
        else if (strcmp(s, "docker") == 0)
                *ret = TSYNC_RECORD_FORMAT_DOCKER;
        else
                return -EINVAL;
        return 0;
}

const char *tsync_record_format_name(enum tsync_record_format f)
{
        return f == TSYNC_RECORD_FORMAT_DOCKER ? "docker" : "oci";
}

/* An "if:PATH" or "of:PATH" part of the annotation. */
static int record_part(char *part, struct tsync_record_request *r, struct tsync_err *err)
{
        char *colon = strchr(part, ':');
        if (!colon)
                return tsync_error(err, EINVAL, "'%s' is not KEY:VALUE (if, of, format, errno)", part);
        *colon = '\0';
        const char *key = part, *value = colon + 1;
        bool input = strcmp(key, "if") == 0;
        if (!input && strcmp(key, "of") != 0)
                return tsync_error(err, EINVAL, "'%s' is not a key (if, of, format, errno)", key);
        char **slot = input ? &r->input : &r->output;
        if (*slot)
                return tsync_error(err, EINVAL, "%s: given twice", key);
        if (value[0] != '/')
                return tsync_error(err, EINVAL, "%s: '%s' is not an absolute path on the host", key, value);
        if (!(*slot = strdup(value)))
                return tsync_error(err, ENOMEM, "out of memory");
        return 0;
}

int tsync_record_request_parse(const char *value, struct tsync_record_request *ret, struct tsync_err *err)
{
        struct tsync_record_request r = { .format = TSYNC_RECORD_FORMAT_OCI, .errno_ret = EPERM };
        _cleanup_free_ char *copy = strdup(value);
        bool have_format = false, have_errno = false;
        int rc = copy ? 0 : tsync_error(err, ENOMEM, "out of memory");
        *ret = (struct tsync_record_request){ 0 };
        char *p = copy;
        while (rc == 0 && p) {
                char *semi = strchr(p, ';');
                if (semi)
                        *semi = '\0';
                if (strncmp(p, "format:", 7) == 0) {
                        if (have_format)
                                rc = tsync_error(err, EINVAL, "format: given twice");
                        else if (tsync_record_format_parse(p + 7, &r.format) < 0)
                                rc = tsync_error(err, EINVAL, "format: '%s' is not oci or docker", p + 7);
                        have_format = true;
                } else if (strncmp(p, "errno:", 6) == 0) {
                        if (have_errno)
                                rc = tsync_error(err, EINVAL, "errno: given twice");
                        else if (tsync_record_errno_parse(p + 6, &r.errno_ret) < 0)
                                rc = tsync_error(err, EINVAL, "errno: '%s' is not EPERM or ENOSYS", p + 6);
                        have_errno = true;
                } else {
                        rc = record_part(p, &r, err);
                }
                p = semi ? semi + 1 : NULL;
        }
        if (rc == 0 && !r.output)
                rc = tsync_error(err, EINVAL, "no of:OUTPUT: where the profile goes on the host");
        if (rc < 0) {
                tsync_record_request_clear(&r);
                return rc;
        }
        *ret = r;
        return 0;
}

int tsync_record_request_from_config(const struct tsync_json *config, struct tsync_record_request *ret,
                                     struct tsync_err *err)
{
        const struct tsync_json *v = tsync_json_get(tsync_json_get(config, "annotations"), TSYNC_ANNOTATION_RECORD);
        const char *s;
        *ret = (struct tsync_record_request){ 0 };
        if (!v)
                return 0;
        int r = tsync_json_str(v, "annotations." TSYNC_ANNOTATION_RECORD, &s, err);
        if (r == 0)
                r = tsync_record_request_parse(s, ret, err);
        if (r < 0)
                return tsync_error_prefix(err,
                                          "annotations.%s: '[if:IN;]of:OUT[;format:oci|docker][;errno:EPERM|"
                                          "ENOSYS]'",
                                          TSYNC_ANNOTATION_RECORD);
        return 0;
}

int tsync_record_check_request(const struct tsync_record_request *req, bool exec, int exec_once, struct tsync_err *err)
{
        if (!req->output)
                return 0;
        if (exec_once)
                return tsync_error(err, EINVAL,
                                   "recording and exec once: each needs the process's one seccomp listener, and the "
                                   "kernel gives one per filter chain: record first, then run with exec once");
        if (exec)
                return tsync_error(err, EINVAL,
                                   "recording and --exec: the init must stay beside the workload to answer its "
                                   "calls, which running the workload in place gives up");
        return 0;
}

int tsync_record_check_caps(const struct tsync_json *config, struct tsync_err *err)
{
        const struct tsync_json *caps = tsync_json_get(tsync_json_get(config, "process"), "capabilities");
        for (int s = 0; caps && s < TSYNC_CAPSET_COUNT; s++) {
                const struct tsync_json *list = tsync_json_get(caps, tsync_capset(s)->json);
                for (size_t i = 0; list && list->type == TSYNC_JSON_ARRAY && i < list->u.array.len; i++) {
                        const struct tsync_json *c = list->u.array.items[i];
                        if (c->type == TSYNC_JSON_STRING && strcmp(c->u.string.ptr, "CAP_SYS_PTRACE") == 0)
                                return tsync_error(err, EPERM,
                                                   "process.capabilities.%s[%zu]: CAP_SYS_PTRACE and a recording: "
                                                   "the record file is the init's alone, and only ptrace could reach "
                                                   "it from the workload: record without CAP_SYS_PTRACE",
                                                   tsync_capset(s)->json, i);
                }
        }
        return 0;
}

int tsync_record_rootfs(const struct tsync_json *config, const char *bundle, char **ret, struct tsync_err *err)
{
        const struct tsync_json *p = tsync_json_get(tsync_json_get(config, "root"), "path");
        const char *s;
        *ret = NULL;
        if (!p)
                return 0;
        int r = tsync_json_str(p, "root.path", &s, err);
        if (r < 0)
                return r;
        if (s[0] != '/' && !bundle)
                return 0;
        if (s[0] == '/' ? !(*ret = strdup(s)) : asprintf(ret, "%s/%s", bundle, s) < 0) {
                *ret = NULL;
                return tsync_error(err, ENOMEM, "out of memory");
        }
        return 0;
}

/* id through an OCI mapping list (containerID, hostID, size); the id itself without one. */
static int map_id(const struct tsync_json *maps, const char *what, uint64_t id, uint64_t *ret, struct tsync_err *err)
{
        if (!maps || maps->type == TSYNC_JSON_NULL || (maps->type == TSYNC_JSON_ARRAY && maps->u.array.len == 0)) {
                *ret = id;
                return 0;
        }
        int r = tsync_json_expect(maps, what, TSYNC_JSON_ARRAY, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < maps->u.array.len; i++) {
                const struct tsync_json *m = maps->u.array.items[i];
                uint64_t c, h, n;
                char path[96];
                (void)snprintf(path, sizeof(path), "%s[%zu]", what, i);
                if (tsync_json_u64(tsync_json_get(m, "containerID"), path, &c, err) < 0 ||
                    tsync_json_u64(tsync_json_get(m, "hostID"), path, &h, err) < 0 ||
                    tsync_json_u64(tsync_json_get(m, "size"), path, &n, err) < 0)
                        return -EINVAL;
                if (id >= c && id - c < n) {
                        *ret = h + (id - c);
                        return 0;
                }
        }
        return tsync_error(err, EINVAL, "%s: id %llu of process.user is not mapped", what, (unsigned long long)id);
}

int tsync_record_owner(const struct tsync_json *config, uid_t *ret_uid, gid_t *ret_gid, struct tsync_err *err)
{
        const struct tsync_json *user = tsync_json_get(tsync_json_get(config, "process"), "user");
        const struct tsync_json *linux_ = tsync_json_get(config, "linux");
        uint64_t uid = 0, gid = 0, huid, hgid;
        if (user && tsync_json_get(user, "uid") &&
            tsync_json_u64(tsync_json_get(user, "uid"), "process.user.uid", &uid, err) < 0)
                return -EINVAL;
        if (user && tsync_json_get(user, "gid") &&
            tsync_json_u64(tsync_json_get(user, "gid"), "process.user.gid", &gid, err) < 0)
                return -EINVAL;
        int r = map_id(tsync_json_get(linux_, "uidMappings"), "linux.uidMappings", uid, &huid, err);
        if (r == 0)
                r = map_id(tsync_json_get(linux_, "gidMappings"), "linux.gidMappings", gid, &hgid, err);
        if (r < 0)
                return r;
        if (huid > UINT32_MAX - 1 || hgid > UINT32_MAX - 1)
                return tsync_error(err, EINVAL, "process.user: id out of range");
        *ret_uid = (uid_t)huid;
        *ret_gid = (gid_t)hgid;
        return 0;
}

/* mkdir -p of root's own directories, 0700, for the path up to dir's parent. */
static int make_parents(const char *dir, const char *parent_root, struct tsync_err *err)
{
        if (!parent_root)
                return 0;
        size_t rl = strlen(parent_root);
        if (strncmp(dir, parent_root, rl) != 0 || dir[rl] != '/')
                return tsync_error(err, EINVAL, "%s: not under %s", dir, parent_root);
        _cleanup_free_ char *p = strdup(parent_root);
        if (!p)
                return tsync_error(err, ENOMEM, "out of memory");
        for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                if (mkdir(p, 0700) < 0 && errno != EEXIST)
                        return tsync_error_errno(err, "%s", p);
                *s = '/';
        }
        if (mkdir(p, 0700) < 0 && errno != EEXIST)
                return tsync_error_errno(err, "%s", p);
        struct stat st;
        if (lstat(parent_root, &st) < 0)
                return tsync_error_errno(err, "%s", parent_root);
        if (!S_ISDIR(st.st_mode))
                return tsync_error(err, ENOTDIR, "%s: not a directory (a symlink?)", parent_root);
        return tsync_check_private_dir(parent_root, &st, err);
}

int tsync_record_check_dir(int fd, const char *dir, struct tsync_err *err)
{
        struct stat st;
        if (fstat(fd, &st) < 0)
                return tsync_error_errno(err, "%s", dir);
        /* Only root (the hook's user) may reach the record file: the
         * workload never gets a way to it, nor does anyone on the host. */
        if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 07777) != 0700)
                return tsync_error(err, EPERM,
                                   "%s: owned by %u, mode %04o: not a directory of its own that only %u may enter "
                                   "(an older inject gave it to the container's user): remove it",
                                   dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), (unsigned)geteuid());
        return 0;
}

int tsync_record_make_dir(const char *dir, const char *parent_root, struct tsync_err *err)
{
        int r = make_parents(dir, parent_root, err);
        if (r < 0)
                return r;
        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
                return tsync_error_errno(err, "%s", dir);
        _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return tsync_error(err, errno, "%s: %s", dir,
                                   errno == ENOTDIR || errno == ELOOP ? "not a directory (a symlink?)"
                                                                      : tsync_errtext(errno));
        return tsync_record_check_dir(fd, dir, err);
}

int tsync_record_new_dir_name(const char *root, char **ret, struct tsync_err *err)
{
        unsigned char raw[16];
        char hex[33];
        if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
                return tsync_error(err, EIO, "getrandom: %s", tsync_errtext(errno));
        for (size_t i = 0; i < sizeof(raw); i++)
                (void)snprintf(hex + 2 * i, 3, "%02x", raw[i]);
        if (asprintf(ret, "%s/%s", root, hex) < 0) {
                *ret = NULL;
                return tsync_error(err, ENOMEM, "out of memory");
        }
        return 0;
}

static bool is_token(const char *s)
{
        size_t n = strlen(s);
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        return n == 32;
}

int tsync_record_dir_kind(const char *dir, const char *bundle, const char *record_root, int *ret, struct tsync_err *err)
{
        size_t rl = record_root ? strlen(record_root) : 0;
        if (record_root && strncmp(dir, record_root, rl) == 0 && dir[rl] == '/' && is_token(dir + rl + 1)) {
                *ret = 1;
                return 0;
        }
        if (bundle) {
                size_t bl = strlen(bundle);
                while (bl > 1 && bundle[bl - 1] == '/')
                        bl--;
                if (strncmp(dir, bundle, bl) == 0 && dir[bl] == '/' && strcmp(dir + bl + 1, TSYNC_BUNDLE_RECORD) == 0) {
                        *ret = 0;
                        return 0;
                }
        }
        return tsync_error(err, EPERM, "plan.record.dir: '%s' is neither %s/<token> nor %s in the bundle", dir,
                           record_root ? record_root : TSYNC_RECORD_ROOT, TSYNC_BUNDLE_RECORD);
}

int tsync_plan_record_to_json(const struct tsync_plan_record *rec, struct tsync_json **ret)
{
        *ret = NULL;
        if (!rec->req.output)
                return 0;
        _cleanup_json_ struct tsync_json *o = tsync_json_new_object();
        int r = o ? tsync_json_set(o, "output", tsync_json_new_string(rec->req.output)) : -ENOMEM;
        if (r == 0 && rec->req.input)
                r = tsync_json_set(o, "input", tsync_json_new_string(rec->req.input));
        if (r == 0)
                r = tsync_json_set(o, "format", tsync_json_new_string(tsync_record_format_name(rec->req.format)));
        if (r == 0)
                r = tsync_json_set(o, "errno", tsync_json_new_string(tsync_record_errno_name(rec->req.errno_ret)));
        if (r == 0 && rec->dir)
                r = tsync_json_set(o, "dir", tsync_json_new_string(rec->dir));
        if (r == 0 && rec->no_replace)
                r = tsync_json_set(o, "noReplace", tsync_json_new_bool(true));
        if (r < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

static int record_string(const struct tsync_json *v, const char *key, bool optional, char **ret, struct tsync_err *err)
{
        const struct tsync_json *m = tsync_json_get(v, key);
        const char *s;
        char path[64];
        if (!m && optional)
                return 0;
        (void)snprintf(path, sizeof(path), "plan.record.%s", key);
        int r = tsync_json_str(m, path, &s, err);
        if (r < 0)
                return r;
        if (s[0] != '/')
                return tsync_error(err, EINVAL, "%s: '%s' is not an absolute path", path, s);
        if (!(*ret = strdup(s)))
                return tsync_error(err, ENOMEM, "out of memory");
        return 0;
}

static int plan_record_read(const struct tsync_json *v, struct tsync_plan_record *rec, struct tsync_err *err)
{
        const char *s;
        int r = tsync_json_expect(v, "plan.record", TSYNC_JSON_OBJECT, err);
        if (r == 0)
                r = record_string(v, "output", false, &rec->req.output, err);
        if (r == 0)
                r = record_string(v, "input", true, &rec->req.input, err);
        if (r == 0)
                r = record_string(v, "dir", false, &rec->dir, err);
        const struct tsync_json *nr = tsync_json_get(v, "noReplace");
        if (r == 0 && nr && (nr->type != TSYNC_JSON_BOOL || !nr->u.boolean))
                r = tsync_error(err, EINVAL, "plan.record.noReplace: not true (absent when a file may be replaced)");
        rec->no_replace = nr != NULL;
        if (r == 0)
                r = tsync_json_str(tsync_json_get(v, "format"), "plan.record.format", &s, err);
        if (r == 0 && tsync_record_format_parse(s, &rec->req.format) < 0)
                r = tsync_error(err, EINVAL, "plan.record.format: '%s' is not oci or docker", s);
        if (r == 0)
                r = tsync_json_str(tsync_json_get(v, "errno"), "plan.record.errno", &s, err);
        if (r == 0 && tsync_record_errno_parse(s, &rec->req.errno_ret) < 0)
                r = tsync_error(err, EINVAL, "plan.record.errno: '%s' is not EPERM or ENOSYS", s);
        return r;
}

int tsync_plan_record_from_json(const struct tsync_json *v, struct tsync_plan_record *ret, struct tsync_err *err)
{
        struct tsync_plan_record rec = { 0 };
        *ret = rec;
        if (!v)
                return 0;
        int r = plan_record_read(v, &rec, err);
        if (r < 0) {
                tsync_plan_record_clear(&rec);
                return r;
        }
        *ret = rec;
        return 0;
}

void tsync_plan_record_clear(struct tsync_plan_record *rec)
{
        tsync_record_request_clear(&rec->req);
        free(rec->dir);
        rec->dir = NULL;
}
