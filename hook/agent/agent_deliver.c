#include "agent/agent_deliver.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record/record_file.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/fileio.h"

/* /proc/PID/mountinfo of a container with many mounts stays far below this. */
#define MOUNTINFO_MAX (4u << 20)

static const char *string_or(const struct tsync_json *v, const char *fallback)
{
        return v && v->type == TSYNC_JSON_STRING ? v->u.string.ptr : fallback;
}

int tsync_agent_check_config(const struct tsync_json *config, const struct tsync_plan *plan, struct tsync_err *err)
{
        if (!plan->listener_path && !plan->record.req.output)
                return tsync_error(err, EINVAL, "the plan has neither a notify agent nor a recording");
        const struct tsync_json *mounts = tsync_json_get(config, "mounts");
        bool tmpfs = false;
        for (size_t i = 0; mounts && mounts->type == TSYNC_JSON_ARRAY && i < mounts->u.array.len; i++) {
                const struct tsync_json *m = mounts->u.array.items[i];
                const char *dest = string_or(tsync_json_get(m, "destination"), "");
                const char *source = string_or(tsync_json_get(m, "source"), "");
                const char *type = string_or(tsync_json_get(m, "type"), "");
                /* The agent is reached from the host alone (issue 23): its
                 * socket in the container is a side door, whoever put it there. */
                if (plan->listener_path && strcmp(source, plan->listener_path) == 0)
                        return tsync_error(err, EPERM,
                                           "mounts[%zu]: the notify agent's socket '%s' is mounted into the container "
                                           "at '%s': the relay reaches it from the host, the workload must not: "
                                           "inject again",
                                           i, source, dest);
                /* An older rewrite's recording directory: the host's, writable. */
                if (strcmp(dest, TSYNC_CONTAINER_RECORD_DIR) == 0)
                        return tsync_error(err, EPERM,
                                           "mounts[%zu]: a directory of the host ('%s') is mounted into the container "
                                           "for the recording: the relay hands the init the record file instead: "
                                           "inject again",
                                           i, source);
                if (strcmp(dest, TSYNC_CONTAINER_AGENT_DIR) == 0) {
                        if (strcmp(type, "tmpfs") != 0)
                                return tsync_error(err, EINVAL,
                                                   "mounts[%zu]: %s is a '%s' mount, not the relay's tmpfs", i, dest,
                                                   type);
                        tmpfs = true;
                }
        }
        if (!tmpfs)
                return tsync_error(err, EINVAL, "mounts: no %s mount for the relay's socket",
                                   TSYNC_CONTAINER_AGENT_DIR);
        return 0;
}

int tsync_agent_rootfs(const struct tsync_json *config, const char *bundle, char **ret, struct tsync_err *err)
{
        const char *path;
        int r = tsync_json_str(tsync_json_get(tsync_json_get(config, "root"), "path"), "root.path", &path, err);
        if (r < 0)
                return r;
        if (!path[0])
                return tsync_error(err, EINVAL, "root.path: empty");
        _cleanup_free_ char *joined = NULL;
        if (asprintf(&joined, "%s%s%s", path[0] == '/' ? "" : bundle, path[0] == '/' ? "" : "/", path) < 0)
                return tsync_error(err, ENOMEM, "out of memory");
        /* The runtime mounts under the resolved path; mountinfo shows that one. */
        char *real = realpath(joined, NULL);
        *ret = real ? real : TAKE_PTR(joined);
        return 0;
}

/* mountinfo writes ' ', '\t', '\n' and '\\' as \ooo. */
static void unescape(char *s)
{
        char *o = s;
        for (const char *p = s; *p; p++) {
                if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' && p[3] >= '0' &&
                    p[3] <= '7') {
                        *o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
                        p += 3;
                } else {
                        *o++ = *p;
                }
        }
        *o = '\0';
}

int tsync_agent_mountinfo_check(const char *mountinfo, uint64_t mnt_id, const char *point, struct tsync_err *err)
{
        for (const char *line = mountinfo; line && *line;) {
                const char *end = strchr(line, '\n');
                size_t len = end ? (size_t)(end - line) : strlen(line);
                _cleanup_free_ char *copy = strndup(line, len);
                line = end ? end + 1 : NULL;
                if (!copy)
                        return tsync_error(err, ENOMEM, "out of memory");
                /* id parent major:minor root point options [optional...] - fstype source super */
                char *save = NULL, *f[5] = { NULL };
                f[0] = strtok_r(copy, " ", &save);
                for (size_t i = 1; i < 5 && f[i - 1]; i++)
                        f[i] = strtok_r(NULL, " ", &save);
                char *end_id = NULL;
                if (!f[4] || strtoull(f[0], &end_id, 10) != mnt_id || *end_id)
                        continue;
                char *fstype = NULL;
                for (char *t; (t = strtok_r(NULL, " ", &save));)
                        if (strcmp(t, "-") == 0) {
                                fstype = strtok_r(NULL, " ", &save);
                                break;
                        }
                unescape(f[3]);
                unescape(f[4]);
                if (!fstype || strcmp(fstype, "tmpfs") != 0)
                        return tsync_error(err, EINVAL, "%s: a '%s' mount, not a tmpfs", f[4], fstype ? fstype : "?");
                if (strcmp(f[3], "/") != 0)
                        return tsync_error(err, EINVAL, "%s: a bind mount of '%s', not a tmpfs of its own", f[4], f[3]);
                if (strcmp(f[4], point) != 0)
                        return tsync_error(err, EINVAL, "mount %llu is at '%s', not at '%s'",
                                           (unsigned long long)mnt_id, f[4], point);
                return 0;
        }
        return -ENOENT;
}

int tsync_agent_check_dir(int dfd, const char *dir, struct stat *ret, struct tsync_err *err)
{
        struct statfs sfs;
        struct stat st;
        if (fstatfs(dfd, &sfs) < 0 || fstat(dfd, &st) < 0)
                return tsync_error_errno(err, "%s", dir);
        if (sfs.f_type != TMPFS_MAGIC)
                return tsync_error(err, EPERM, "%s: not a tmpfs: refusing to put the relay's socket there", dir);
        /* Runtimes may give the tmpfs the mode of the directory it was mounted
         * on; a directory others can write to could hold their file under the
         * relay's name. */
        if (!S_ISDIR(st.st_mode) || (st.st_mode & S_IWOTH))
                return tsync_error(err, EPERM, "%s: mode %04o: others can write to it: refusing", dir,
                                   (unsigned)(st.st_mode & 07777));
        *ret = st;
        return 0;
}

/* The agent's directory at point inside /proc/PID/root, without following a
 * symbolic link anywhere (the container's image chose what lies under its
 * root), as a directory fd. */
static int open_point(int root, const char *point, int *ret)
{
        struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
        long fd = syscall(SYS_openat2, root, point, &how, sizeof(how));
        if (fd < 0)
                return -errno;
        *ret = (int)fd;
        return 0;
}

int tsync_agent_open_dir(const struct tsync_json *oci_state, const struct tsync_json *config, const char *bundle,
                         int *ret_fd, pid_t *ret_pid, char **ret_point, struct tsync_err *err)
{
        uint64_t pid = 0;
        int r = tsync_json_u64(tsync_json_get(oci_state, "pid"), "state.pid", &pid, err);
        if (r < 0)
                return tsync_error_prefix(err, "the OCI state on stdin");
        if (pid == 0 || pid > INT32_MAX)
                return tsync_error(err, EINVAL, "the OCI state on stdin: state.pid: %llu is no process",
                                   (unsigned long long)pid);
        _cleanup_free_ char *rootfs = NULL;
        r = tsync_agent_rootfs(config, bundle, &rootfs, err);
        if (r < 0)
                return r;

        char proc[64];
        (void)snprintf(proc, sizeof(proc), "/proc/%llu", (unsigned long long)pid);
        _cleanup_close_ int pfd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int root = pfd < 0 ? -1 : openat(pfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (root < 0)
                return tsync_error_errno(err, "%s/root", proc);
        /* createRuntime runs before the container's pivot_root (the
         * runtime-spec's order; runc and crun keep it): the tmpfs is mounted
         * under the root directory, in the container's mount namespace. */
        _cleanup_free_ char *point = NULL;
        if (asprintf(&point, "%s%s", strcmp(rootfs, "/") == 0 ? "" : rootfs, TSYNC_CONTAINER_AGENT_DIR) < 0)
                return tsync_error(err, ENOMEM, "out of memory");
        _cleanup_close_ int dfd = -1;
        r = open_point(root, point, &dfd);
        if (r < 0)
                return tsync_error(err, -r, "the relay's directory %s in the container (pid %llu): %s",
                                   TSYNC_CONTAINER_AGENT_DIR, (unsigned long long)pid, tsync_errtext(-r));

        /* That it is the mount the rewrite asked for, and not the image's own
         * directory or another mount: its id in the container's mountinfo. */
        struct statx stx;
        if (tsync_statx(dfd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0)
                return tsync_error_errno(err, "%s: cannot read its mount id", point);
        if (!(stx.stx_mask & STATX_MNT_ID))
                return tsync_error(err, ENOSYS, "%s: this kernel gives no mount id (Linux 5.8)", point);
        _cleanup_free_ char *mountinfo = NULL;
        size_t mountinfo_len;
        r = tsync_read_file_at(pfd, "mountinfo", "mountinfo", 0, MOUNTINFO_MAX, &mountinfo, &mountinfo_len, NULL, err);
        if (r < 0)
                return tsync_error_prefix(err, "%s", proc);
        r = tsync_agent_mountinfo_check(mountinfo, stx.stx_mnt_id, point, err);
        if (r == -ENOENT)
                return tsync_error(err, ENOENT, "%s: mount %llu is not in %s/mountinfo", point,
                                   (unsigned long long)stx.stx_mnt_id, proc);
        if (r < 0)
                return tsync_error_prefix(err, "the relay's directory");
        *ret_fd = TAKE_FD(dfd);
        *ret_pid = (pid_t)pid;
        *ret_point = TAKE_PTR(point);
        return 0;
}
