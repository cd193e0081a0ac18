/* status (cmd_status.c): the container a command line names, found through
 * its runtime or engine (status_target.c), and the output (status_print.c). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "tsync/error.h"
#include "tsync/plan.h"
#include "tsync/status.h"

struct target {
        const char *what;    /* for messages: the ID, NAME or "pid N" */
        const char *kind;    /* "pid", "runtime", "podman", "docker" */
        const char *runtime; /* kind runtime */
        const char *root;
        pid_t pid;
        char *config_path;                          /* owned; NULL: none known */
        const char *profile_dirs[TSYNC_MAX_LAYERS]; /* where the plan's layer names are (--profile-dir) */
        size_t n_profile_dirs;
};

/* --pid ARG (status, lockdown): t becomes that process, of kind "pid"; -1
 * after saying ARG is not a process id. */
int status_target_pid(struct target *t, const char *arg);

/* Fills t->pid and t->config_path for kinds runtime, podman and docker
 * (`R state ID`, `podman inspect`, `docker inspect` and the shim's bundle). */
int status_target_resolve(struct target *t, struct tsync_err *err);

/* /proc/PID/cmdline, NUL-separated, malloc'd. 0 or -errno. */
int status_read_cmdline(pid_t pid, char **ret, size_t *ret_len);

/* The table (text) or the JSON document (schema/status.schema.json) on stdout. */
void status_print_text(const struct target *t, const struct tsync_status *st, const struct tsync_status_expect *e,
                       enum tsync_verdict v);
int status_print_json(const struct target *t, const struct tsync_status *st, const struct tsync_status_expect *e,
                      const struct tsync_warnings *shortfalls, enum tsync_verdict v, int code);
