/* The command-line tool: shared option handling and messages. Only the CLI prints. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tsync/compile.h"
#include "tsync/error.h"
#include "tsync/profile.h"
#include "tsync/source.h"

enum cli_exit {
        CLI_EXIT_OK = 0,
        CLI_EXIT_FAILED = 1, /* bad input, translation failed, check found errors */
        CLI_EXIT_USAGE = 2,  /* bad command line */
};

#define PROGRAM "oci-seccomp-tsync"

/* Options shared by the translating subcommands. */
struct cli_input {
        struct tsync_source_opts source;
        struct tsync_compile_opts compile;
        const char *config; /* --config: capabilities from its bounding set */
        const char *cache_dir;
        bool no_cache;
        /* Unknown keys in a config's linux.seccomp (warnings): cli_load prints
         * them unless keep_warnings, then they stay here for the caller. */
        bool keep_warnings;
        struct tsync_warnings warnings;
};

/* Prints "oci-seccomp-tsync: <where>: <message>" on one line. */
void cli_error(const char *where, const struct tsync_err *err);
/* vasprintf's text, or NULL when memory ran out (the caller frees it). */
char *cli_vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
void cli_errorf(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_warnings(const char *where, struct tsync_warnings *w);
/* "oci-seccomp-tsync: <where>: warning: <message>". */
void cli_warnf(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The system log (syslog.c): once enabled (by the hook stages, inject and the
 * runtime wrapper, which engines run with stderr hidden), every line above
 * goes to syslog(3)'s socket too, ident "oci-seccomp-tsync", facility daemon:
 * errors at LOG_ERR, warnings at LOG_WARNING. The socket is /dev/log, or
 * $TSYNC_SYSLOG_SOCKET (empty: none); without a logger stderr alone has it. */
#define CLI_SYSLOG_SOCKET_ENV "TSYNC_SYSLOG_SOCKET"
void cli_syslog_enable(void);
/* One message (text: what follows "oci-seccomp-tsync: ") at a LOG_* priority. */
void cli_syslog(int priority, const char *text);
struct tsync_plan;
/* One LOG_INFO line for a container's plan: "<where>: <what>: mode M; layers
 * A,B; lent to the init: CAPS; exec once (ERRNO); recording to PATH; notify
 * agent PATH" (the parts that apply). The system log alone gets it. */
void cli_log_applied(const char *where, const char *what, const struct tsync_plan *plan);

/* What replace mode leaves without linux.seccomp, said where it is chosen
 * (inject, precreate): processes started with `EXEC` (e.g. "runc exec"), and
 * the config's startContainer hooks, which run in the container before the
 * init loads anything (runc runs them under the profile). */
void cli_warn_replace(const char *where, const struct tsync_json *config, const char *exec);

/* Processes a plain runtime exec starts carry neither the layers nor exec
 * once, and where Yama does not stop it the workload can take them over
 * (tsync/plain_exec.h): one warning, said where the user decides (inject,
 * check, precreate), never by the runtime wrapper, whose execs pass the init. */
void cli_warn_plain_exec(const char *where, size_t n_layers, int exec_once);

/* Handles one shared option; returns 1 if it was one, 0 if not, -1 after printing an error. */
int cli_input_option(struct cli_input *in, int opt, const char *arg);
struct option;
/* What cli_input_getopt returns for a shared option whose value is wrong
 * (said already); never one of getopt's own returns. */
#define CLI_INPUT_BAD (-2)
/* getopt_long over a command's options and the shared ones (CLI_INPUT_OPTIONS
 * and CLI_INPUT_SHORT among them), which go into in: the next of the
 * command's own options, CLI_INPUT_BAD, or -1 at the end. */
int cli_input_getopt(int argc, char **argv, const char *shortopts, const struct option *options, struct cli_input *in);
/* A command's answer to an option it does not take itself: for -h its help on
 * stdout and CLI_EXIT_OK; after CLI_INPUT_BAD, CLI_EXIT_USAGE; for anything
 * else (getopt said what) its help on stderr and CLI_EXIT_USAGE. */
int cli_help(void (*help)(FILE *), int opt);
/* One option per line: clang-format makes a staircase of a macro's list. */
/* clang-format off */
#define CLI_INPUT_OPTIONS                               \
        { "format", required_argument, NULL, 'f' },    \
        { "caps", required_argument, NULL, 'C' },      \
        { "config", required_argument, NULL, 'c' },    \
        { "arch", required_argument, NULL, 'a' },      \
        { "strict", no_argument, NULL, 's' },          \
        { "cache-dir", required_argument, NULL, 'D' }, \
        { "no-cache", no_argument, NULL, 'N' }
/* clang-format on */
#define CLI_INPUT_SHORT "f:C:c:a:sD:N"
#define CLI_INPUT_HELP                                                                                                 \
        "  -f, --format FORMAT   auto (default), config (an OCI config.json), oci (a linux.seccomp object),\n"         \
        "                        docker (a Docker/containers-common profile)\n"                                        \
        "      --caps LIST       capabilities for Docker-format includes/excludes: CAP_CHOWN,CAP_KILL,...,\n"          \
        "                        'all', 'none', 'docker-default' or 'podman-default' (the engines' default sets)\n"    \
        "  -c, --config FILE     take those capabilities from FILE's process.capabilities.bounding\n"                  \
        "  -a, --arch ARCH       compile for ARCH (SCMP_ARCH_X86_64, x86_64, ...) instead of this machine's\n"         \
        "  -s, --strict          unknown syscall names are errors, not warnings\n"

/* Loads the profile at path with in's options (resolving --config first). */
int cli_load(struct cli_input *in, const char *path, struct tsync_profile **ret, struct tsync_source_info *ret_info,
             struct tsync_err *err);

/* cli_load, then compiles (through the cache unless --no-cache or no
 * --cache-dir), printing warnings and errors (cmd names a load failure, path
 * a compile failure); 0 or -1. ret_profile may be NULL. */
int cli_load_compiled(struct cli_input *in, const char *cmd, const char *path, struct tsync_profile **ret_profile,
                      struct tsync_program **ret_prog);

/* /proc/self/exe, and the static init found beside it or in ../libexec/oci-seccomp-tsync. */
int cli_self_path(char *buf, size_t size);
int cli_find_init(char *buf, size_t size);
/* The compiled-filter cache when none is given: TSYNC_CACHE_DEFAULT_DIR for
 * root (uid 0 of the parent user namespace, not root of a rootless engine's);
 * for anyone else $XDG_CACHE_HOME/oci-seccomp-tsync, else
 * ~/.cache/oci-seccomp-tsync ($HOME, else the passwd entry's home; in buf),
 * else NULL: no cache. */
const char *cli_default_cache_dir(char *buf, size_t size);
/* Where precreate's recordings wait when no --record-root is given:
 * TSYNC_RECORD_ROOT for root (as above); for a rootless engine's hooks
 * $XDG_DATA_HOME/oci-seccomp-tsync/record, else
 * ~/.local/share/oci-seccomp-tsync/record (home as above; in buf). */
const char *cli_default_record_root(char *buf, size_t size);
extern const char *const cli_default_profile_dirs[];
extern const size_t cli_n_default_profile_dirs;

struct tsync_plan;
struct tsync_plan_paths;
struct tsync_plan_programs;
/* Compiles everything a plan names (tsync_plan_compile), printing warnings
 * and what fails; 0 or -1. Then judges, with the config's own linux.seccomp
 * in layer mode (the runtime loads it on the init too), how the init can run
 * the workload: refused when it could not start it at all; plan->init.exec set
 * (with one warning) when it must run it in place, as PID 1. ret: NULL, or
 * the compiled stack (the caller clears it). */
int cli_check_plan(struct tsync_plan *plan, const struct tsync_plan_paths *o, const struct tsync_json *config,
                   struct tsync_plan_programs *ret, const char *where);

/* The exec view (exec_view.c): at createRuntime, the original capability sets
 * go where the runtime's exec reads them (refused for a runtime we do not
 * know, when something is lent); at poststop they are lent again. durable:
 * the bundle's config.json is synced to disk when rewritten (false only for an
 * engine that writes it anew at every start: hook --no-sync). */
int cli_exec_view_start(const struct tsync_plan *plan, const char *id, const char *bundle, bool durable,
                        struct tsync_err *err);
int cli_exec_view_stop(const struct tsync_plan *plan, const char *id, const char *bundle, bool durable,
                       struct tsync_err *err);

/* poststop (record_stop.c): the plan's recording, if any, becomes its
 * profile at the user's path; its directory goes once the profile is written
 * (emptied only, for inject's, which the bundle's next run mounts again) and
 * stays when it is not, so nothing recorded is lost. 0, or -1 after printing. */
int cli_record_stop(const struct tsync_plan *plan, const struct tsync_plan_paths *o, const char *id,
                    const char *bundle);

/* createRuntime's relay (relay_start.c): r, opened by tsync_relay_open,
 * serves in a detached process of its own (double fork, setsid, stdio on
 * /dev/null, every other descriptor closed) that the runtime never waits
 * for; r is cleared here, the socket's name left to the relay. */
struct tsync_relay;
int cli_relay_start(struct tsync_relay *r, struct tsync_err *err);

int cmd_compile(int argc, char **argv);
int cmd_inject(int argc, char **argv);
int cmd_hook(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_check(int argc, char **argv);
/* status TARGET: what protects a running container (cmd_status.c, hook/lib/status*.c). */
int cmd_status(int argc, char **argv);
/* lockdown TARGET: layers added to a running container (cmd_lockdown.c, hook/lib/lockdown_*.c). */
int cmd_lockdown(int argc, char **argv);
/* check --runtime RUNTIME: whether a runtime applies linux.seccomp itself (cmd_check_runtime.c). */
int cmd_check_runtime(int argc, char **argv);
