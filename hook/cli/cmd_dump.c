#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "shared/bpf.h"
#include "shared/filterfile.h"

static void help(FILE *f)
{
        fprintf(f,
                "Usage: %s dump [OPTIONS] PROFILE\n"
                "Compiles PROFILE and prints the program, one instruction a line.\n\n" CLI_INPUT_HELP,
                PROGRAM);
}

int cmd_dump(int argc, char **argv)
{
        static const struct option options[] = { CLI_INPUT_OPTIONS, { "help", no_argument, NULL, 'h' }, {} };
        struct cli_input in = { 0 };
        int opt;

        /* No options of its own: any but the shared ones ends it. */
        if ((opt = cli_input_getopt(argc, argv, CLI_INPUT_SHORT "h", options, &in)) != -1)
                return cli_help(help, opt);
        if (optind + 1 != argc)
                return cli_help(help, '?');
        const char *path = argv[optind];
        _cleanup_program_ struct tsync_program *prog = NULL;
        _cleanup_profile_ struct tsync_profile *profile = NULL;
        if (cli_load_compiled(&in, "dump", path, &profile, &prog) < 0)
                return CLI_EXIT_FAILED;
        if (tsync_bpf_disassemble(prog->insns, prog->len, stdout) < 0)
                return CLI_EXIT_FAILED;
        /* Who answers USER_NOTIF is not in the program: said after it. */
        if (tsync_filter_find_user_notif(prog->insns, prog->len) >= 0)
                printf("; USER_NOTIF: %s%s%s%s\n",
                       profile->listener_path ? "the seccomp agent at " : "nobody (no listenerPath)",
                       profile->listener_path ? profile->listener_path : "",
                       profile->listener_metadata ? ", listenerMetadata " : "",
                       profile->listener_metadata ? profile->listener_metadata : "");
        return CLI_EXIT_OK;
}
