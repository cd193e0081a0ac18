/* oci-seccomp-tsync: seccomp profiles to BPF, and the OCI hook that hands them to the init. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
        const char *summary;
} commands[] = {
        { "compile", cmd_compile, "translate a profile into a BPF program" },
        { "check", cmd_check,
          "lint a profile (unknown names, duplicates, shadowed rules, impossible conditions),\n"
          "             or with --runtime R: does runtime R apply linux.seccomp itself?" },
        { "explain", cmd_explain, "which action a syscall gets, and the rule that decides it" },
        { "dump", cmd_dump, "the compiled program, one instruction a line" },
        { "inject", cmd_inject, "rewrite a bundle's config.json so the workload starts under seccomp-tsync-init" },
        { "hook", cmd_hook, "the OCI hook stages: precreate, prestart, createRuntime, poststop" },
        { "status", cmd_status, "what protects a running container, thread by thread (exit 1 when it carries less)" },
        { "lockdown", cmd_lockdown, "add layers to every thread of a running container, without a restart" },
};

static void usage(FILE *f)
{
        fprintf(f, "Usage: %s COMMAND [OPTIONS] ...\n\nCommands:\n", PROGRAM);
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
        fprintf(f, "\n'%s COMMAND --help' describes each. '%s --version' prints the version.\n", PROGRAM, PROGRAM);
}

int main(int argc, char **argv)
{
        if (argc < 2) {
                usage(stderr);
                return CLI_EXIT_USAGE;
        }
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
                usage(stdout);
                return CLI_EXIT_OK;
        }
        if (strcmp(argv[1], "--version") == 0) {
                printf("%s %s\n", PROGRAM, TSYNC_VERSION);
                return CLI_EXIT_OK;
        }
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                if (strcmp(argv[1], commands[i].name) == 0)
                        return commands[i].run(argc - 1, argv + 1);
        fprintf(stderr, "%s: '%s' is not a command; see '%s --help'\n", PROGRAM, argv[1], PROGRAM);
        return CLI_EXIT_USAGE;
}
