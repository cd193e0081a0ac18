#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "shared/bpf.h"
#include "shared/cleanup.h"
#include "shared/filterfile.h"
#include "util/fileio.h"

static void help(FILE *f)
{
        fprintf(f,
                "Usage: %s compile [OPTIONS] PROFILE\n"
                "Translates PROFILE (an OCI config.json, a linux.seccomp object or a Docker-format profile)\n"
                "into a BPF program.\n\n" CLI_INPUT_HELP
                "  -o, --output FILE     write there instead of standard output ('-'): a new or regular file of ours\n"
                "                        is replaced atomically, a character device or a FIFO with a reader is\n"
                "                        written in place; a symbolic link or anything else is refused\n"
                "  -O, --output-format F raw (default: struct sock_filter[], as seccomp_export_bpf writes)\n"
                "                        or tsync (the filter file seccomp-tsync-init reads)\n"
                "      --cache-dir DIR   reuse and keep compiled programs in DIR\n"
                "      --no-cache        ignore --cache-dir\n",
                PROGRAM);
}

int cmd_compile(int argc, char **argv)
{
        static const struct option options[] = { CLI_INPUT_OPTIONS,
                                                 { "output", required_argument, NULL, 'o' },
                                                 { "output-format", required_argument, NULL, 'O' },
                                                 { "help", no_argument, NULL, 'h' },
                                                 {} };
        struct cli_input in = { 0 };
        const char *output = NULL;
        bool tsync_format = false;
        int opt;

        while ((opt = cli_input_getopt(argc, argv, CLI_INPUT_SHORT "o:O:h", options, &in)) != -1) {
                switch (opt) {
                case 'o':
                        output = optarg;
                        break;
                case 'O':
                        if (strcmp(optarg, "raw") != 0 && strcmp(optarg, "tsync") != 0) {
                                frontend_errorf("--output-format", "'%s' is not raw or tsync", optarg);
                                return CLI_EXIT_USAGE;
                        }
                        tsync_format = strcmp(optarg, "tsync") == 0;
                        break;
                default:
                        return cli_help(help, opt);
                }
        }
        if (optind + 1 != argc)
                return cli_help(help, '?');
        const char *path = argv[optind];

        _cleanup_program_ struct tsync_program *prog = NULL;
        struct tsync_err err = { 0 };
        if (cli_load_compiled(&in, "compile", path, NULL, &prog) < 0)
                return CLI_EXIT_FAILED;

        size_t size = prog->len * sizeof(struct sock_filter);
        _cleanup_free_ void *encoded = NULL;
        const void *bytes = prog->insns;
        if (tsync_format) {
                size += TSYNC_FILTER_HEADER_SIZE;
                encoded = malloc(size);
                long n = encoded ? tsync_filter_encode(prog->insns, prog->len, prog->flags, prog->listener, encoded,
                                                       size)
                                 : -ENOMEM;
                if (n < 0) {
                        frontend_errorf(path, "encoding the filter file: %s", strerror((int)-n));
                        return CLI_EXIT_FAILED;
                }
                bytes = encoded;
        }
        if (output && strcmp(output, "-") == 0)
                output = NULL;
        if (output) {
                if (tsync_write_output(output, bytes, size, 0644, &err) < 0) {
                        frontend_error("compile", &err);
                        return CLI_EXIT_FAILED;
                }
        } else if (isatty(STDOUT_FILENO)) {
                frontend_errorf("compile", "refusing to write a binary program to a terminal; use -o FILE or 'dump'");
                return CLI_EXIT_FAILED;
        } else {
                int r = tsync_write_all(STDOUT_FILENO, bytes, size);
                if (r < 0) {
                        frontend_errorf("compile", "writing to standard output: %s", strerror(-r));
                        return CLI_EXIT_FAILED;
                }
        }
        return CLI_EXIT_OK;
}
