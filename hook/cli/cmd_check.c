#include <getopt.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tsync/analysis.h"

static void help(FILE *f)
{
        fprintf(f,
                "Usage: %s check [OPTIONS] PROFILE\n"
                "       %s check --runtime RUNTIME [--runtime-arg ARG]...  (see check --runtime X --help)\n"
                "Lints PROFILE: unknown syscall names, names listed twice, rules equal to the default action,\n"
                "conditions that can never match, and rules shadowed by others in the compiled program.\n"
                "Exits 1 if PROFILE does not compile or there are errors (with --strict, unknown names are errors).\n\n"
                CLI_INPUT_HELP,
                PROGRAM, PROGRAM);
}

int cmd_check(int argc, char **argv)
{
        static const struct option options[] = { CLI_INPUT_OPTIONS, { "help", no_argument, NULL, 'h' }, {} };
        struct cli_input in = { 0 };
        int opt;

        /* check --runtime tests a runtime, not a profile: its own options. */
        for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
                if (strcmp(argv[i], "--runtime") == 0 || strncmp(argv[i], "--runtime=", 10) == 0 ||
                    strcmp(argv[i], "-r") == 0)
                        return cmd_check_runtime(argc, argv);

        while ((opt = getopt_long(argc, argv, CLI_INPUT_SHORT "h", options, NULL)) != -1) {
                int r = cli_input_option(&in, opt, optarg);
                if (r < 0)
                        return CLI_EXIT_USAGE;
                if (r > 0)
                        continue;
                help(opt == 'h' ? stdout : stderr);
                return opt == 'h' ? CLI_EXIT_OK : CLI_EXIT_USAGE;
        }
        if (optind + 1 != argc) {
                help(stderr);
                return CLI_EXIT_USAGE;
        }
        const char *path = argv[optind];
        struct tsync_err err = { 0 };
        _cleanup_profile_ struct tsync_profile *profile = NULL;
        struct tsync_source_info info;
        in.keep_warnings = true; /* counted below with the lint's */
        if (cli_load(&in, path, &profile, &info, &err) < 0) {
                tsync_warnings_clear(&in.warnings);
                cli_error("check", &err);
                return CLI_EXIT_FAILED;
        }
        /* Unknown names are reported by the lint, one line each; compile quietly. */
        struct tsync_compile_opts quiet = in.compile;
        quiet.strict = false;
        _cleanup_program_ struct tsync_program *prog = NULL;
        struct tsync_warnings ignored = { 0 };
        int r = tsync_compile(profile, &quiet, &prog, &ignored, &err);
        tsync_warnings_clear(&ignored);
        if (r < 0) {
                tsync_warnings_clear(&in.warnings);
                cli_error(path, &err);
                return CLI_EXIT_FAILED;
        }
        uint32_t native = in.compile.native_arch ? in.compile.native_arch : seccomp_arch_native();
        struct tsync_lint lint = { 0 };
        if (tsync_lint(profile, prog, native, in.compile.strict, &lint, &err) < 0) {
                tsync_warnings_clear(&in.warnings);
                cli_error(path, &err);
                return CLI_EXIT_FAILED;
        }
        for (size_t i = 0; i < in.warnings.len; i++)
                printf("%s: warning: %s\n", path, in.warnings.msgs[i]);
        lint.warnings += in.warnings.len;
        tsync_warnings_clear(&in.warnings);
        for (size_t i = 0; i < lint.len; i++)
                printf("%s: %s: %s\n", path, lint.findings[i].severity == TSYNC_LINT_ERROR ? "error" : "warning",
                       lint.findings[i].msg);
        printf("%s: %zu error%s, %zu warning%s\n", path, lint.errors, lint.errors == 1 ? "" : "s", lint.warnings,
               lint.warnings == 1 ? "" : "s");
        int rc = lint.errors ? CLI_EXIT_FAILED : CLI_EXIT_OK;
        tsync_lint_clear(&lint);
        return rc;
}
