/* The runtimes we know (facts/runtimes.h), one record each. */
#include "facts/runtimes.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "shared/cleanup.h"

/* runc 1.1 (urfave/cli): its global options. */
static const char *const runc_value_opts[] = { "log", "log-format", "root", "criu", "rootless", NULL };
static const char *const runc_flag_opts[] = { "debug", "systemd-cgroup", "help", "h", "version", "v", NULL };
static const char *const runc_root_opts[] = { "root", NULL };

/* runc after its load, the thread that loaded the filter (runc loads it
 * without TSYNC: its other threads stay unfiltered). */
static const char *const runc_calls[] = {
        /* the sync pipes, the exec fifo, exec */
        "close", "execve", "read", "write", "openat", "exit_group",
        /* without noNewPrivileges the filter comes before the capabilities and
         * the user: the bounding set, keepcaps, ambient capabilities, Go's
         * setgid/setuid */
        "prctl", "capget", "capset", "setgroups", "setgid", "setuid",
        /* closing inherited fds (/proc/self/fd; close_range in newer runc), the
         * working directory, the program's lookup in PATH, the parent check */
        "getdents64", "fcntl", "close_range", "chdir", "getcwd", "newfstatat", "fstat", "fstatfs", "faccessat",
        "faccessat2", "getpid", "getppid",
        /* newer runc (read in its source, not run here): the exec fifo and
         * /proc/self/fd reopened through pathrs-lite, which checks the fd's
         * path; its fsopen and open_tree have fallbacks and stay refused */
        "openat2", "readlinkat",
        /* Go's runtime: scheduling, preemption signals, memory */
        "futex", "epoll_ctl", "epoll_pwait", "nanosleep", "sched_yield", "rt_sigreturn", "rt_sigprocmask",
        "sigaltstack", "mmap", "munmap", "madvise", "gettid", "tgkill", NULL
};

/* crun 1.8 (argp): its global options, and newer crun's --log-level;
 * --rootless sets the state root in 1.8. */
static const char *const crun_value_opts[] = { "log",       "log-format", "root", "rootless", "cgroup-manager",
                                               "log-level", NULL };
static const char *const crun_flag_opts[] = {
        "debug", "systemd-cgroup", "help", "version", "v", "V", "?", "usage", NULL
};
static const char *const crun_root_opts[] = { "root", "rootless", NULL };

/* crun's own ways to a filter: precompiled BPF, a notify receiver, plugins. */
static const char *const crun_seccomp_annotations[] = { "run.oci.seccomp_bpf_data", "run.oci.seccomp.receiver",
                                                        "run.oci.seccomp.plugins", NULL };

static const char *const crun_calls[] = {
        /* the sync socket, exec */
        "close", "execve", "read", "write", "openat", "exit_group",
        /* without noNewPrivileges: capabilities and the user (setresuid) */
        "prctl", "capget", "capset", "setgroups", "setresgid", "setresuid",
        /* signal dispositions reset to default before exec */
        "rt_sigaction", NULL
};

/* gVisor's host processes: runsc names them so (its sandbox, which runs the
 * sentry, and its gofer; the ptrace platform's stub processes are the
 * sandbox's children, running runsc with an empty command line). */
static const char *const runsc_processes[] = { "runsc-sandbox", "runsc-gofer", NULL };

static const struct tsync_runtime runtimes[] = {
        {
                .name = "runc",
                .global_value_opts = runc_value_opts,
                .global_flag_opts = runc_flag_opts,
                .state_root_opts = runc_root_opts,
                .state_root = "/run/runc",
                .state_root_env = "XDG_RUNTIME_DIR",
                .state_root_env_unprivileged = true,
                .exec_caps = TSYNC_EXEC_CAPS_BUNDLE,
                .calls_after_load = runc_calls,
                .sigsys_status = 128 + SIGSYS,
                .exe_in_container = true,
        },
        {
                .name = "crun",
                .global_value_opts = crun_value_opts,
                .global_flag_opts = crun_flag_opts,
                .state_root_opts = crun_root_opts,
                .state_root = "/run/crun",
                .state_root_env = "XDG_RUNTIME_DIR",
                .exec_caps = TSYNC_EXEC_CAPS_STATE_COPY,
                .calls_after_load = crun_calls,
                .sigsys_status = 128 + SIGSYS,
                .exe_in_container = true,
                .seccomp_annotations = crun_seccomp_annotations,
        },
        /* gVisor: its seccomp is its own (runsc --oci-seccomp), it is not
         * wrapped and its exec view is unknown to us; SCMP_ACT_KILL, not
         * KILL_PROCESS, reaches this status (it refuses KILL_PROCESS). Its
         * workload's tasks live in its sentry, not on the host: no lockdown. */
        {
                .name = "runsc",
                .state_root = "/var/run/runsc",
                .exec_caps = TSYNC_EXEC_CAPS_UNKNOWN,
                .sigsys_status = 128 + SIGSYS,
                .sandbox = "gVisor",
                .host_processes = runsc_processes,
        },
};

const struct tsync_runtime *tsync_runtimes(size_t *n_ret)
{
        *n_ret = ARRAY_SIZE(runtimes);
        return runtimes;
}

const struct tsync_runtime *tsync_runtime_by_name(const char *name)
{
        for (size_t i = 0; i < ARRAY_SIZE(runtimes); i++)
                if (strcmp(runtimes[i].name, name) == 0)
                        return &runtimes[i];
        return NULL;
}

int tsync_runtime_default_root(const struct tsync_runtime *rt, const char *env_value, unsigned euid, char *buf,
                               size_t size)
{
        int n;
        if (!rt->state_root)
                return -ENOENT;
        if (rt->state_root_env && env_value && env_value[0] && !(rt->state_root_env_unprivileged && euid == 0))
                n = snprintf(buf, size, "%s/%s", env_value, rt->name);
        else
                n = snprintf(buf, size, "%s", rt->state_root);
        return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

bool tsync_runtime_list_has(const char *const *list, const char *name, size_t len)
{
        for (size_t i = 0; list && list[i]; i++)
                if (strlen(list[i]) == len && strncmp(list[i], name, len) == 0)
                        return true;
        return false;
}
