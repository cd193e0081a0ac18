/* lockdown: containers whose workload has no host tasks. gVisor's runsc runs
 * a container's processes inside its sentry, a kernel of its own: on the host
 * a container is runsc's processes (the sandbox, which runs the sentry, its
 * gofer and the ptrace platform's stubs). Seizing and injecting into those
 * would put the filter on the sentry, which is not what was asked, and would
 * not reach the workload's calls, which the sentry serves itself. So a
 * target is refused by name when the process named, one of its ancestors or
 * any process of the cgroups a freeze would take is a sandbox runtime's
 * (the runtime table, tsync/runtimes.h), before anything is touched. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsync/cleanup.h"
#include "tsync/fileio.h"
#include "tsync/lockdown.h"
#include "tsync/runtimes.h"
#include "tsync/status.h"

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

/* The sandbox runtime pid belongs to, or NULL: its argv[0] is one the
 * runtime names its host processes by, or it runs the runtime's program (a
 * stub: an empty command line). name: what identified it. */
static const struct tsync_runtime *sandbox_of(pid_t pid, char *name, size_t size)
{
        char path[64], argv0[256] = "", exe[4096] = "";
        (void)snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
        /* argv[0] alone, one read: not the whole command line, which can be megabytes. */
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, argv0, sizeof(argv0) - 1) : -1;
        argv0[n > 0 ? n : 0] = '\0';
        (void)snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
        n = readlink(path, exe, sizeof(exe) - 1);
        exe[n > 0 ? n : 0] = '\0';
        char *deleted = strstr(exe, " (deleted)");
        if (deleted && deleted[strlen(" (deleted)")] == '\0')
                *deleted = '\0';
        size_t count;
        const struct tsync_runtime *rts = tsync_runtimes(&count);
        for (size_t i = 0; i < count; i++) {
                const struct tsync_runtime *rt = &rts[i];
                if (!rt->sandbox)
                        continue;
                const char *a = base_name(argv0);
                if (tsync_runtime_list_has(rt->host_processes, a, strlen(a))) {
                        (void)snprintf(name, size, "%s", a);
                        return rt;
                }
                if (exe[0] && strcmp(base_name(exe), rt->name) == 0) {
                        (void)snprintf(name, size, "%s", exe);
                        return rt;
                }
        }
        return NULL;
}

static pid_t parent_of(pid_t pid)
{
        _cleanup_free_ char *line = NULL;
        const char *fields = NULL;
        int ppid = 0;
        if (tsync_proc_stat_read(pid, &line, &fields, NULL) < 0 || sscanf(fields, " %*c %d", &ppid) != 1)
                return 0;
        return (pid_t)ppid;
}

static int refuse(const struct tsync_runtime *rt, pid_t pid, const char *name, struct tsync_err *err)
{
        return tsync_error(err, EPERM, "pid %d (%s) is %s's (%s), not the workload's: %s", (int)pid, name, rt->sandbox,
                           rt->name, why);
}

int tsync_lockdown_check_sandbox(pid_t pid, struct tsync_err *err)
{
        char name[256];
        const struct tsync_runtime *rt;
        /* The target and its ancestors (a stub's parent is the sandbox). */
        pid_t p = pid;
        for (int depth = 0; p > 1 && depth < MAX_ANCESTORS; depth++, p = parent_of(p))
                if ((rt = sandbox_of(p, name, sizeof(name))))
                        return refuse(rt, p, name, err);
        /* Everything a freeze would take. */
        _cleanup_free_ pid_t *procs = NULL;
        size_t n = 0;
        int r = tsync_lockdown_cgroup_procs(pid, &procs, &n, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if ((rt = sandbox_of(procs[i], name, sizeof(name))))
                        return refuse(rt, procs[i], name, err);
        return 0;
}

int tsync_lockdown_check_runtime(const char *runtime, struct tsync_err *err)
{
        const struct tsync_runtime *rt = tsync_runtime_by_name(base_name(runtime));
        if (rt && rt->sandbox)
                return tsync_error(err, EPERM, "--runtime %s is %s: %s", runtime, rt->sandbox, why);
        return 0;
}
