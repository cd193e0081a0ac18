/* lockdown: containers whose workload has no host tasks. gVisor's runsc runs
 * a container's processes inside its sentry, a kernel of its own: on the host
 * a container is runsc's processes (the sandbox, which runs the sentry, its
 * gofer and the platform's stubs), all running runsc's own binary. Seizing
 * and injecting into those would put the filter on the sentry, which is not
 * what was asked, and would not reach the workload's calls, which the sentry
 * serves itself. So a target is refused when the process named, one of its
 * ancestors or any process of the cgroups a freeze would take runs a
 * sandbox runtime's binary, before anything is touched.
 *
 * By identity, never by a name: a workload chooses its argv[0], its comm
 * and the name of its own executable, so "runsc-sandbox" in any of them
 * decides nothing. What it cannot choose is which file the host's kernel
 * runs for it: /proc/PID/exe's device and inode are compared with the
 * runtime's binary on the host (found in PATH and the usual bin
 * directories). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts/runtimes.h"
#include "lockdown/lockdown.h"
#include "shared/cleanup.h"
#include "status/status.h"
#include "util/fileio.h"

/* Why, after the runtime's name: what lockdown would reach there. */
static const char why[] = "its container's tasks are not host tasks but run inside its sentry, a kernel of its own, "
                          "and a filter on the sentry itself is not what was asked: refused, nothing touched";

/* The deepest process tree walked up from the target. */
#define MAX_ANCESTORS 64

static const char *base_name(const char *path)
{
        const char *s = strrchr(path, '/');
        return s ? s + 1 : path;
}

/* A runtime's binary on the host, by device and inode. */
struct binary {
        const struct tsync_runtime *rt;
        dev_t dev;
        ino_t ino;
        char path[PATH_MAX];
};

/* Every sandbox runtime's binary found on the host: lockdown's PATH, then
 * the usual directories (a PATH without them must not hide one). */
static size_t host_binaries(struct binary *ret, size_t max)
{
        static const char usual[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
        const char *env = getenv("PATH");
        char dirs[8192];
        (void)snprintf(dirs, sizeof(dirs), "%s:%s", env ? env : "", usual);
        size_t count, n = 0;
        const struct tsync_runtime *rts = tsync_runtimes(&count);
        for (size_t i = 0; i < count; i++) {
                if (!rts[i].sandbox)
                        continue;
                char copy[8192];
                (void)snprintf(copy, sizeof(copy), "%s", dirs);
                for (char *save, *d = strtok_r(copy, ":", &save); d && n < max; d = strtok_r(NULL, ":", &save)) {
                        if (d[0] != '/')
                                continue; /* a relative PATH entry names nothing fixed */
                        struct binary b = { .rt = &rts[i] };
                        struct stat st;
                        (void)snprintf(b.path, sizeof(b.path), "%s/%s", d, rts[i].name);
                        if (stat(b.path, &st) < 0 || !S_ISREG(st.st_mode))
                                continue;
                        b.dev = st.st_dev;
                        b.ino = st.st_ino;
                        bool seen = false;
                        for (size_t k = 0; k < n && !seen; k++)
                                seen = ret[k].dev == b.dev && ret[k].ino == b.ino;
                        if (!seen)
                                ret[n++] = b;
                }
        }
        return n;
}

/* The sandbox runtime whose binary pid runs, or NULL. name: its path on the host. */
static const struct binary *sandbox_of(pid_t pid, const struct binary *bins, size_t n)
{
        char path[64];
        struct stat st;
        (void)snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
        /* stat follows the kernel's own link to the file it runs, whatever
         * its mount namespace calls it. A kernel thread or an ended process
         * has none. */
        if (stat(path, &st) < 0)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (bins[i].dev == st.st_dev && bins[i].ino == st.st_ino)
                        return &bins[i];
        return NULL;
}

static pid_t parent_of(pid_t pid)
{
        pid_t ppid = 0;
        return tsync_proc_parent(pid, &ppid, NULL) == 0 ? ppid : 0;
}

static int refuse(const struct binary *b, pid_t pid, struct tsync_err *err)
{
        return tsync_error(err, EPERM,
                           "pid %d is %s's (%s), not the workload's: it runs %s (the same device and inode): %s",
                           (int)pid, b->rt->sandbox, b->rt->name, b->path, why);
}

#define MAX_BINARIES 16

int tsync_lockdown_check_sandbox(pid_t pid, struct tsync_err *err)
{
        struct binary bins[MAX_BINARIES];
        size_t nb = host_binaries(bins, MAX_BINARIES);
        const struct binary *b;
        /* The target and its ancestors (a stub's parent is the sandbox). */
        pid_t p = pid;
        for (int depth = 0; p > 1 && depth < MAX_ANCESTORS; depth++, p = parent_of(p))
                if ((b = sandbox_of(p, bins, nb)))
                        return refuse(b, p, err);
        /* Everything a freeze would take. */
        _cleanup_free_ pid_t *procs = NULL;
        size_t n = 0;
        int r = tsync_lockdown_cgroup_procs(pid, &procs, &n, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if ((b = sandbox_of(procs[i], bins, nb)))
                        return refuse(b, procs[i], err);
        return 0;
}

int tsync_lockdown_check_runtime(const char *runtime, struct tsync_err *err)
{
        const struct tsync_runtime *rt = tsync_runtime_by_name(base_name(runtime));
        if (rt && rt->sandbox)
                return tsync_error(err, EPERM, "--runtime %s is %s: %s", runtime, rt->sandbox, why);
        return 0;
}
