#include "plan/exec_path.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/nsfs.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/fileio.h"

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

static bool same(const struct stat *a, const struct stat *b)
{
        return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The namespace an nsfs ioctl (NS_GET_USERNS, NS_GET_PARENT) of fd names,
 * as an fd, and stat'ed. */
static int ns_get(int fd, unsigned long request, int *ret_fd, struct stat *ret)
{
        _cleanup_close_ int ns = ioctl(fd, request);
        if (ns < 0 || fstat(ns, ret) < 0)
                return -errno;
        if (ret_fd)
                *ret_fd = TAKE_FD(ns);
        return 0;
}

static int check_namespaces(const char *proc, bool config_userns, struct tsync_err *err)
{
        struct stat own, owner, parent, pid_user;
        char path[96];
        if (stat("/proc/self/ns/user", &own) < 0)
                return tsync_error_errno(err, "/proc/self/ns/user");
        (void)snprintf(path, sizeof(path), "%s/ns/mnt", proc);
        _cleanup_close_ int mnt = open(path, O_RDONLY | O_CLOEXEC);
        if (mnt < 0)
                return tsync_error_errno(err, "%s", path);
        _cleanup_close_ int owner_fd = -EBADF;
        int r = ns_get(mnt, NS_GET_USERNS, &owner_fd, &owner);
        if (r < 0)
                return tsync_error(err, -r, "%s: its user namespace: %s", path, tsync_errtext(-r));
        if (same(&owner, &own))
                return 0;
        /* The config's own user namespace is made by the runtime, as a child
         * of ours, and PID 1 stays in it. */
        bool child = ns_get(owner_fd, NS_GET_PARENT, NULL, &parent) == 0 && same(&parent, &own);
        (void)snprintf(path, sizeof(path), "%s/ns/user", proc);
        bool pid_in_owner = stat(path, &pid_user) == 0 && same(&pid_user, &owner);
        if (config_userns && child && pid_in_owner)
                return 0;
        return tsync_error(err, EPERM,
                           "PID 1's mount namespace belongs to a user namespace %s: a workload may mount over "
                           "anything there, %s among it",
                           config_userns ? "that is not the container's" : "of its own (the config names none)",
                           TSYNC_CONTAINER_INIT);
}

/* name under dir, never through a symbolic link, as an O_PATH fd. */
static int open_beneath(int dir, const char *name, bool in_root, int *ret)
{
        struct open_how how = { .flags = O_PATH | O_CLOEXEC | O_NOFOLLOW,
                                .resolve = (in_root ? RESOLVE_IN_ROOT : RESOLVE_BENEATH) | RESOLVE_NO_SYMLINKS |
                                           RESOLVE_NO_MAGICLINKS };
        long fd = syscall(SYS_openat2, dir, name, &how, sizeof(how));
        if (fd < 0)
                return -errno;
        *ret = (int)fd;
        return 0;
}

/* fd is the root of a read-only mount (and, with fs_type, of that type). */
static int check_mount(int fd, const char *what, unsigned long fs_type, struct tsync_err *err)
{
        struct statx stx;
        struct statfs sfs;
        if (tsync_statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &stx) < 0 ||
            fstatfs(fd, &sfs) < 0)
                return tsync_error_errno(err, "%s", what);
        if (!(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
                return tsync_error(err, EOPNOTSUPP, "%s: this kernel does not say whether it is a mount point", what);
        if (!(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
                return tsync_error(err, EPERM, "%s: not a mount point: the workload could rename or replace it", what);
        if (fs_type && (unsigned long)sfs.f_type != fs_type)
                return tsync_error(err, EPERM, "%s: not the tmpfs the rewrite mounts there", what);
        if (!(sfs.f_flags & ST_RDONLY))
                return tsync_error(err, EPERM, "%s: mounted read-write", what);
        return 0;
}

int tsync_exec_path_check(pid_t pid, const char *init_source, bool config_userns, struct tsync_err *err)
{
        char proc[64];
        (void)snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
        int r = check_namespaces(proc, config_userns, err);
        if (r < 0)
                return r;
        char path[96];
        (void)snprintf(path, sizeof(path), "%s/root", proc);
        _cleanup_close_ int root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (root < 0)
                return tsync_error_errno(err, "%s", path);
        _cleanup_close_ int dir = -EBADF, init = -EBADF;
        r = open_beneath(root, TSYNC_CONTAINER_DIR, true, &dir);
        if (r < 0)
                return tsync_error(err, -r, "%s in the container: %s", TSYNC_CONTAINER_DIR, tsync_errtext(-r));
        r = check_mount(dir, TSYNC_CONTAINER_DIR " in the container", TMPFS_MAGIC, err);
        if (r < 0)
                return r;
        r = open_beneath(dir, strrchr(TSYNC_CONTAINER_INIT, '/') + 1, false, &init);
        if (r < 0)
                return tsync_error(err, -r, "%s in the container: %s", TSYNC_CONTAINER_INIT, tsync_errtext(-r));
        r = check_mount(init, TSYNC_CONTAINER_INIT " in the container", 0, err);
        if (r < 0)
                return r;
        struct stat in, host;
        if (fstat(init, &in) < 0)
                return tsync_error_errno(err, "%s in the container", TSYNC_CONTAINER_INIT);
        if (stat(init_source, &host) < 0)
                return tsync_error_errno(err, "the init the config mounts, %s", init_source);
        if (!S_ISREG(in.st_mode) || !same(&in, &host))
                return tsync_error(err, EPERM, "%s in the container is not %s, the init the config mounts there",
                                   TSYNC_CONTAINER_INIT, init_source);
        return 0;
}

int tsync_exec_path_check_config(pid_t pid, const struct tsync_json *config, struct tsync_err *err)
{
        const char *source = tsync_rewrite_init_source(config);
        if (!source)
                return tsync_error(err, EINVAL, "mounts: no mount of the init at %s", TSYNC_CONTAINER_INIT);
        bool userns = false;
        const struct tsync_json *ns = tsync_json_get(tsync_json_get(config, "linux"), "namespaces");
        for (size_t i = 0; ns && ns->type == TSYNC_JSON_ARRAY && i < ns->u.array.len; i++) {
                const struct tsync_json *t = tsync_json_get(ns->u.array.items[i], "type");
                if (t && t->type == TSYNC_JSON_STRING && strcmp(t->u.string.ptr, "user") == 0)
                        userns = true;
        }
        return tsync_exec_path_check(pid, source, userns, err);
}
