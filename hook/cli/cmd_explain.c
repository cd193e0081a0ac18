#include <errno.h>
#include <getopt.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tsync/analysis.h"
#include "tsync/bpf.h"

static void help(FILE *f)
{
        fprintf(f,
                "Usage: %s explain [OPTIONS] PROFILE SYSCALL [ARG0 [ARG1 ... ARG5]]\n"
                "Compiles PROFILE, runs the program on one call as the kernel would, and prints the action\n"
                "and the rule that decided it. SYSCALL is a name or a number; ARGs are numbers (0x.. for "
                "hex).\n\n" CLI_INPUT_HELP
                "  -A, --abi ABI         the ABI the call is made through (x86_64, x86 for int 0x80, x32, ...);\n"
                "                        default: the compiled architecture\n",
                PROGRAM);
}

static int parse_u64(const char *s, uint64_t *ret)
{
        char *end;
        if (!*s || *s == '-')
                return -EINVAL;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 0);
        if (errno || *end)
                return -EINVAL;
        *ret = v;
        return 0;
}

static const char *decider_text(const struct tsync_profile *p, const struct tsync_explanation *e, char *buf,
                                size_t size)
{
        switch (e->decider) {
        case TSYNC_DECIDED_BY_RULE:
                (void)snprintf(buf, size, "rule %s (%s)", p->rules[e->rule].origin,
                               tsync_action_name(p->rules[e->rule].action.kind));
                return buf;
        case TSYNC_DECIDED_BY_DEFAULT:
                (void)snprintf(buf, size, "the default action (%s)", tsync_action_name(p->default_action.kind));
                return buf;
        case TSYNC_DECIDED_BY_ENOSYS_STUB:
                return "the ENOSYS stub: the number is above every syscall the profile names";
        case TSYNC_DECIDED_BY_BAD_ARCH:
                return "the bad-architecture action: the profile does not list this ABI";
        case TSYNC_DECIDED_UNEXPLAINED:
                break;
        }
        return "nothing in the profile asks for this result";
}

int cmd_explain(int argc, char **argv)
{
        static const struct option options[] = {
                CLI_INPUT_OPTIONS, { "abi", required_argument, NULL, 'A' }, { "help", no_argument, NULL, 'h' }, {}
        };
        struct cli_input in = { 0 };
        const char *abi_name = NULL;
        int opt;

        while ((opt = getopt_long(argc, argv, "+" CLI_INPUT_SHORT "A:h", options, NULL)) != -1) {
                int r = cli_input_option(&in, opt, optarg);
                if (r < 0)
                        return CLI_EXIT_USAGE;
                if (r > 0)
                        continue;
                if (opt == 'A') {
                        abi_name = optarg;
                        continue;
                }
                help(opt == 'h' ? stdout : stderr);
                return opt == 'h' ? CLI_EXIT_OK : CLI_EXIT_USAGE;
        }
        if (argc - optind < 2 || argc - optind > 8) {
                help(stderr);
                return CLI_EXIT_USAGE;
        }
        const char *path = argv[optind], *syscall_name = argv[optind + 1];
        uint64_t args[6] = { 0 };
        for (int i = optind + 2; i < argc; i++)
                if (parse_u64(argv[i], &args[i - optind - 2]) < 0) {
                        cli_errorf("explain", "argument '%s' is not a number from 0 to 18446744073709551615", argv[i]);
                        return CLI_EXIT_USAGE;
                }

        uint32_t native = in.compile.native_arch ? in.compile.native_arch : seccomp_arch_native();
        uint32_t abi = native;
        if (abi_name && tsync_arch_parse(abi_name, &abi) < 0) {
                cli_errorf("--abi", "architecture '%s' is unknown", abi_name);
                return CLI_EXIT_USAGE;
        }

        int nr;
        uint64_t number;
        if (parse_u64(syscall_name, &number) == 0) {
                if (number > UINT32_MAX) {
                        cli_errorf("explain", "syscall number %s is above 32 bits", syscall_name);
                        return CLI_EXIT_USAGE;
                }
                nr = (int)(uint32_t)number;
        } else {
                nr = seccomp_syscall_resolve_name_arch(abi, syscall_name);
                if (nr < 0) {
                        cli_errorf("explain", "syscall '%s' does not exist on %s", syscall_name, tsync_arch_name(abi));
                        return CLI_EXIT_USAGE;
                }
        }

        _cleanup_profile_ struct tsync_profile *profile = NULL;
        _cleanup_program_ struct tsync_program *prog = NULL;
        struct tsync_err err = { 0 };
        if (cli_load_compiled(&in, "explain", path, &profile, &prog) < 0)
                return CLI_EXIT_FAILED;
        struct tsync_explanation e;
        if (tsync_explain(profile, prog, native, abi, nr, args, &e, &err) < 0) {
                cli_error(path, &err);
                return CLI_EXIT_FAILED;
        }
        char action[32], why[512];
        tsync_bpf_ret_name(e.ret, action, sizeof(action));
        char *name = seccomp_syscall_resolve_num_arch(abi, nr);
        printf("%s (%s, nr %d) -> %s\n", name ? name : syscall_name, tsync_arch_name(abi), nr, action);
        if (e.abi != abi)
                printf("seen by the filter as: %s (the number has no x32 bit 0x40000000)\n", tsync_arch_name(e.abi));
        printf("decided by: %s\n", decider_text(profile, &e, why, sizeof(why)));
        if ((e.ret & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF)
                printf("answered by: %s%s\n",
                       profile->listener_path ? "the seccomp agent at " : "nobody: the profile has no listenerPath",
                       profile->listener_path ? profile->listener_path : "");
        printf("instructions executed: %zu%s\n", e.executed,
               e.read_args ? " (reads arguments: not cacheable by the kernel)" : "");
        free(name);
        return CLI_EXIT_OK;
}
