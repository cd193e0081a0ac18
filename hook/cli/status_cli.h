/* status and lockdown (cmd_status.c, cmd_lockdown.c): the container a
 * command line names, parsed and found through its runtime or engine
 * (status_target.c: one parser for both), and status's output
 * (status_print.c). */
#pragma once

#include <getopt.h>
#include <stdbool.h>
#include <sys/types.h>

#include "lockdown/lockdown_record.h"
#include "plan/plan.h"
#include "shared/error.h"
#include "status/status.h"

struct target {
        const char *what;    /* for messages: the ID, NAME or "pid N" */
        const char *kind;    /* "pid", "runtime", "podman", "docker" */
        const char *runtime; /* kind runtime */
        const char *root;
        pid_t pid;
        char *config_path;                          /* owned; NULL: none known */
        const char *profile_dirs[TSYNC_MAX_LAYERS]; /* where the plan's layer names are (--profile-dir) */
        size_t n_profile_dirs;
        int n_given; /* TARGETs given (exactly one is taken) */
};

/* The options that name a TARGET, for a command's getopt_long table; its own
 * option values start at TARGET_OPT_END. */
enum {
        TARGET_OPT_PID = 0x100,
        TARGET_OPT_RUNTIME,
        TARGET_OPT_ROOT,
        TARGET_OPT_PODMAN,
        TARGET_OPT_DOCKER,
        TARGET_OPT_END,
};
/* clang-format off */
#define TARGET_OPTIONS                                                  \
        { "pid", required_argument, NULL, TARGET_OPT_PID },             \
        { "runtime", required_argument, NULL, TARGET_OPT_RUNTIME },     \
        { "root", required_argument, NULL, TARGET_OPT_ROOT },           \
        { "podman", required_argument, NULL, TARGET_OPT_PODMAN },       \
        { "docker", required_argument, NULL, TARGET_OPT_DOCKER }
/* clang-format on */

/* The TARGET paragraph of a command's --help. */
#define TARGET_HELP                                                                                                    \
        "TARGET:\n"                                                                                                    \
        "      --pid PID         any process of the container\n"                                                       \
        "  [--runtime R] [--root DIR] ID\n"                                                                            \
        "                        a container of runc (default), crun or another runc-compatible\n"                     \
        "                        runtime: `R [--root DIR] state ID` gives its pid and bundle\n"                        \
        "      --podman NAME     `podman inspect NAME` gives its pid and config\n"                                     \
        "      --docker NAME     `docker inspect NAME` gives its pid; the config is the bundle's\n"                    \
        "                        (the directory its containerd shim runs in)\n"

/* Takes opt (a getopt_long value) when it is one of TARGET_OPTIONS: 1 taken,
 * 0 not a target option, -1 refused (said on stderr). */
int target_option(struct target *t, int opt, const char *arg);

/* After the options: argv[optind], if any, is a runtime's ID; exactly one
 * TARGET, --runtime and --root only with an ID. 0, or -1 (said, as cmd). */
int target_finish(struct target *t, const char *cmd, int argc, char **argv, int optind);

/* Fills t->pid and t->config_path for kinds runtime, podman and docker
 * (`R state ID`, `podman inspect`, `docker inspect` and the shim's bundle). */
int status_target_resolve(struct target *t, struct tsync_err *err);

/* With --pid alone: the config of the container whose PID 1 is init_pid,
 * from the runtime state that names it (runc's state.json, crun's status:
 * the pid and its start time) under the runtimes' default roots and
 * containerd's and Docker's; t->config_path. ENOENT (said) when none does:
 * what it asked cannot be told. */
int status_target_find_config(struct target *t, pid_t init_pid, struct tsync_err *err);

/* /proc/PID/cmdline, NUL-separated, malloc'd. 0 or -errno. */
int status_read_cmdline(pid_t pid, char **ret, size_t *ret_len);

/* The table (text) or the JSON document (schema/status.schema.json) on stdout. */
/* rec: the layers lockdown added (its record). */
void status_print_text(const struct target *t, const struct tsync_status *st, const struct tsync_status_expect *e,
                       const struct tsync_lockdown_record *rec, enum tsync_verdict v);
int status_print_json(const struct target *t, const struct tsync_status *st, const struct tsync_status_expect *e,
                      const struct tsync_lockdown_record *rec, const struct tsync_warnings *shortfalls,
                      enum tsync_verdict v, int code);
