/* status and lockdown (cmd_status.c, cmd_lockdown.c): the container a
 * command line names, parsed and found through its runtime or engine
 * (status_target.c: one parser for both), and status's output
 * (status_print.c). */
#pragma once

#include <getopt.h>
#include <stdbool.h>
#include <sys/types.h>

#include "lockdown/lockdown_record.h"
#include "node/node_conf.h"
#include "node/node_find.h"
#include "plan/plan.h"
#include "shared/error.h"
#include "status/status.h"

/* status's own codes: documented in its help and the man page. */
enum status_exit {
        STATUS_EXIT_PROTECTED = 0,
        STATUS_EXIT_SHORT = 1, /* some task carries less than asked, or nothing of ours ran although asked */
        STATUS_EXIT_USAGE = 2,
        STATUS_EXIT_NOT_ASKED = 3, /* the container asks nothing of oci-seccomp-tsync */
        STATUS_EXIT_UNKNOWN = 4,   /* the container or its processes could not be read */
};

/* The most state roots --all takes from the command line. */
#define TARGET_ROOTS_MAX 16

struct target {
        const char *what;    /* for messages: the ID, NAME or "pid N" */
        const char *kind;    /* "pid", "runtime", "podman", "docker"; "node": found by status --all (pid and
                                config known) */
        const char *runtime; /* kind runtime */
        const char *root;
        pid_t pid;
        char *config_path;  /* owned; NULL: none known */
        char *config_shown; /* owned; the config's path as its runtime names it, when config_path
                               reaches it another way (through /proc: Docker's shim's bundle) */
        const char *profile_dirs[TSYNC_MAX_LAYERS]; /* where the plan's layer names are (--profile-dir) */
        size_t n_profile_dirs;
        int n_given; /* TARGETs given (exactly one is taken) */
        /* --all's state roots: every --root (a TARGET's --root is the last
         * of them) and every --containerd-root, in the order given. */
        struct tsync_node_root roots[TARGET_ROOTS_MAX];
        size_t n_roots, n_runtime_roots;
};

/* The options that name a TARGET, for a command's getopt_long table; its own
 * option values start at TARGET_OPT_END. */
enum {
        TARGET_OPT_PID = 0x100,
        TARGET_OPT_RUNTIME,
        TARGET_OPT_ROOT,
        TARGET_OPT_PODMAN,
        TARGET_OPT_DOCKER,
        TARGET_OPT_CONTAINERD_ROOT, /* --all's alone */
        TARGET_OPT_END,
};
/* clang-format off */
#define TARGET_OPTIONS                                                  \
        { "pid", required_argument, NULL, TARGET_OPT_PID },             \
        { "runtime", required_argument, NULL, TARGET_OPT_RUNTIME },     \
        { "root", required_argument, NULL, TARGET_OPT_ROOT },           \
        { "podman", required_argument, NULL, TARGET_OPT_PODMAN },       \
        { "docker", required_argument, NULL, TARGET_OPT_DOCKER },       \
        { "containerd-root", required_argument, NULL, TARGET_OPT_CONTAINERD_ROOT }
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

/* One container judged (status_judge.c): what status says of it. */
struct status_result {
        struct tsync_status st;
        struct tsync_status_expect e;
        struct tsync_lockdown_record rec; /* the layers lockdown added */
        char sha[TSYNC_LOCKDOWN_MAX_LAYERS][65];
        struct tsync_warnings shortfalls;
        enum tsync_verdict v;
        int code; /* status's exit code for it alone */
};
void status_result_clear(struct status_result *res);

/* Finds t's pid and config (status_target_resolve; a pid alone, its
 * runtime's state), reads the kernel's view of its tasks, decides what it
 * asked and judges it, programs included unless !programs (PID 1 is stopped
 * for a moment). res must stay where it is while it is used (st points into
 * it). 0, or -errno with err: the container could not be read. */
int status_judge(struct target *t, bool programs, struct status_result *res, struct tsync_err *err);

/* The shortfalls on stderr, one line each, as "PROGRAM: what: ...". */
void status_print_shortfalls(const char *what, const struct status_result *res);

/* The JSON document of one container's status (schema/status.schema.json),
 * or NULL when memory ran out. */
struct tsync_json *status_json(const struct target *t, const struct tsync_status *st,
                               const struct tsync_status_expect *e, const struct tsync_lockdown_record *rec,
                               const struct tsync_warnings *shortfalls, enum tsync_verdict v, int code);

/* status --all (status_all.c): every container tsync_node_find finds, each
 * judged by status_judge. */
struct status_all_opts {
        bool json, programs;
        const struct target *like; /* its profile directories */
        struct tsync_node_find_opts find;
        const char *node_conf; /* --node-conf, or NULL: TSYNC_NODE_CONF */
};
/* 0: every container protected or asking nothing of us (or gone while it
 * was read), and carrying the node's layers (node.conf) unless it leaves the
 * container out; 1: some container short, unprotected, unverified or
 * unreadable, or without the node's layers; 4: the node's roots or its
 * policy could not be read. */
int status_all(const struct status_all_opts *o);

/* How a container of the node is named in lines (status --all, lockdown
 * --all): its engine's name, Kubernetes' with its pod, else its id. NULL:
 * out of memory. */
char *node_display_name(const struct tsync_node_container *c);
/* Which exclude line of the node's policy, if any, leaves c out, by the
 * names its engine gives it. */
const struct tsync_node_exclude *node_left_out(const struct tsync_node_policy *p, const struct tsync_node_container *c);

/* One container against the node's layers. */
struct status_all_node {
        size_t n;                                  /* the node's layers; 0: no policy to judge by */
        char *const *names;                        /* their names */
        const char *conf;                          /* node.conf's path */
        const struct tsync_node_exclude *left_out; /* the line that leaves it out, or NULL */
        bool read;                                 /* PID 1's programs were read */
        size_t held;                               /* how many of them PID 1 holds, in order */
};

/* One container of status --all (status_print.c). judged: res and verdict
 * hold; else verdict is "gone" or "unknown". */
struct status_all_row {
        const struct tsync_node_container *c;
        const char *what; /* its name, else its id (Kubernetes': NAMESPACE/POD/NAME) */
        const struct target *t;
        const struct status_result *res; /* NULL: not judged */
        const char *verdict;
        const char *error; /* why it was not judged, or NULL */
        const struct status_all_node *node;
};
void status_print_all_header(void);
void status_print_all_row(const struct status_all_row *row);
/* The row as an object appended to arr (schema/status-all.schema.json). 0 or -ENOMEM. */
int status_all_json_append(struct tsync_json *arr, const struct status_all_row *row);
