/* The command-line tool: shared option handling; its messages and paths are every front end's (hook/frontend). */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "frontend/frontend.h"
#include "plan/exec_view.h"
#include "shared/error.h"
#include "translate/compile.h"
#include "translate/profile.h"
#include "translate/source.h"

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

struct tsync_plan;

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
/* status TARGET: what protects a running container (cmd_status.c, hook/status/). */
int cmd_status(int argc, char **argv);
/* lockdown TARGET: layers added to a running container (cmd_lockdown.c, hook/lockdown/). */
int cmd_lockdown(int argc, char **argv);
/* check --runtime RUNTIME: whether a runtime applies linux.seccomp itself (cmd_check_runtime.c). */
int cmd_check_runtime(int argc, char **argv);
