/* What we know of each OCI runtime, one record each (hook/facts/runtimes.c):
 * how its command line reads, where its state lives, where its exec reads an
 * exec'd process's capabilities, what it calls after it loads
 * linux.seccomp, and how it reports a process SIGSYS killed.
 *
 * How a runtime is found: the runtime wrapper knows only the program it is
 * configured to run, and reads the command line by every row at once (any
 * row's options); the hook finds the runtime that runs it by its parent's
 * command name (/proc/PPID/comm), `check --runtime` by the program's name,
 * lockdown a sandbox's host processes by their argv[0] or program.
 * Adding a runtime is one row here and its case in tests/unit/test_runtimes.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Where `RUNTIME exec` takes an exec'd process's capabilities from when its
 * --process names none: the exec view (exec_view.c) must put the original
 * sets there while the container runs. */
enum tsync_exec_caps {
        TSYNC_EXEC_CAPS_UNKNOWN,    /* we do not know: lending the init capabilities is refused */
        TSYNC_EXEC_CAPS_BUNDLE,     /* BUNDLE/config.json, read at each exec (runc) */
        TSYNC_EXEC_CAPS_STATE_COPY, /* and its own copy of it in its state directory, made at create (crun) */
};

struct tsync_runtime {
        const char *name; /* its program's name, and its command name (comm) while it runs */
        /* Its global options (before the command word), NULL-terminated;
         * NULL: we do not read its command line. */
        const char *const *global_value_opts; /* those that take a value */
        const char *const *global_flag_opts;  /* those that take none */
        const char *const *state_root_opts;   /* those whose value is its state root (the last one counts) */
        const char *state_root;               /* its state root when no option gives one */
        const char *state_root_env;       /* when set and not empty, $VAR/name is the root instead (rootless crun) */
        bool state_root_env_unprivileged; /* ... only when not run as root (runc's shouldHonorXDGRuntimeDir) */
        enum tsync_exec_caps exec_caps;
        /* The calls it makes between its seccomp load and the workload's
         * execve, which linux.seccomp judges and no recording sees (strace -f
         * of runc 1.1.5 and crun 1.8.1 on Debian 12, with noNewPrivileges
         * true and false, and runc's standard_init_linux.go); NULL-terminated. */
        const char *const *calls_after_load;
        int sigsys_status; /* its exit status for a container process SIGSYS killed */
        /* A process it sets up in a container (its init, an exec) runs its
         * own binary, by this name, until it loads the profile and execs:
         * status does not judge such a process yet (status.c). */
        bool exe_in_container;
        /* Annotations through which it applies seccomp its own way, beside or
         * instead of linux.seccomp: replace mode cannot honour them (plan_filters.c). */
        const char *const *seccomp_annotations;
        /* Set for a runtime whose workload runs inside a kernel of its own
         * (gVisor's sentry): the product's name. Its containers have no host
         * tasks of the workload's, so lockdown refuses them (lockdown_sandbox.c). */
        const char *sandbox;
        /* Its host processes' argv[0] while a container runs (NULL-terminated),
         * and the program name they run (their exe's base name is name): how
         * lockdown tells them apart from a workload's. */
        const char *const *host_processes;
};

/* Every runtime we know; n_ret gets the count. */
const struct tsync_runtime *tsync_runtimes(size_t *n_ret);

/* The row whose name is name, or NULL. */
const struct tsync_runtime *tsync_runtime_by_name(const char *name);

/* rt's state root when its command line names none, for the runtime run with
 * effective uid euid and env_value the value of its state_root_env (NULL:
 * unset): "$VALUE/name" when the value is set and not empty (and euid is not
 * 0 for a row with state_root_env_unprivileged), else its state_root. 0, or
 * -ENOENT (a row without a state root) or -ENAMETOOLONG. */
int tsync_runtime_default_root(const struct tsync_runtime *rt, const char *env_value, unsigned euid, char *buf,
                               size_t size);

/* Whether name is in the NULL-terminated list (NULL: an empty one) by exactly
 * len bytes. */
bool tsync_runtime_list_has(const char *const *list, const char *name, size_t len);
