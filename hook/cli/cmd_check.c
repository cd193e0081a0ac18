#include <getopt.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "plan/plan.h"
#include "plan/plan_record.h"
#include "shared/filterfile.h"
#include "shared/init_calls.h"
#include "translate/analysis.h"

static void help(FILE *f)
{
        fprintf(f,
                "Usage: %s check [OPTIONS] PROFILE\n"
                "       %s check --runtime RUNTIME [--runtime-arg ARG]...  (see check --runtime X --help)\n"
                "Lints PROFILE: unknown syscall names, names listed twice, rules equal to the default action,\n"
                "conditions that can never match, and rules shadowed by others in the compiled program.\n"
                "Exits 1 if PROFILE does not compile or there are errors (with --strict, unknown names are "
                "errors).\n\n" CLI_INPUT_HELP,
                PROGRAM, PROGRAM);
}

/* How seccomp-tsync-init would run a workload under this profile alone, in
 * words: "supervises it", or in place and why, or not at all and why. Returns
 * 1 for not at all, 0 otherwise, -1 if it cannot be told. */
static int describe_route(const struct tsync_program *prog, uint32_t listener, bool caps_after, char *buf, size_t size)
{
        struct tsync_stack_prog stack = { .insns = prog->insns, .len = prog->len, .listener = listener };
        const struct tsync_init_call *denied;
        enum tsync_init_route route;
        struct tsync_err err = { 0 };
        uint32_t action;
        char why[512];

        if (tsync_init_route(&stack, 1, 0, caps_after, &route, &denied, &action, &err) < 0) {
                (void)snprintf(buf, size, "cannot be told: %s", err.msg);
                return -1;
        }
        if (route == TSYNC_ROUTE_SUPERVISE) {
                (void)snprintf(buf, size,
                               "supervises the workload as PID 1 (every call it makes after its load is "
                               "allowed)");
                return 0;
        }
        if (route == TSYNC_ROUTE_IN_PLACE) {
                (void)snprintf(
                        buf, size, "runs the workload in place, as PID 1, as the runtime alone would: %s",
                        tsync_init_route_explain("the profile answers", denied, action, false, why, sizeof(why)));
                return 0;
        }
        (void)snprintf(buf, size, "cannot start a workload under this profile: %s",
                       tsync_init_route_explain("it answers", denied, action, false, why, sizeof(why)));
        return 1;
}

/* A config asking for a recording (TSYNC_ANNOTATION_RECORD): one line saying
 * what would be recorded where, or why it would be refused. Returns the
 * errors found (0 or 1). Nothing for a file that is not a config with it. */
static size_t describe_recording(const char *path, const struct tsync_program *prog)
{
        _cleanup_json_ struct tsync_json *doc = NULL;
        struct tsync_record_request rec = { 0 };
        struct tsync_err err = { 0 };
        if (tsync_json_parse_file(path, TSYNC_CONFIG_LIMITS, &doc, &err) < 0 ||
            !tsync_json_get(tsync_json_get(doc, "annotations"), TSYNC_ANNOTATION_RECORD))
                return 0;
        if (tsync_record_request_from_config(doc, &rec, &err) < 0) {
                printf("%s: error: %s\n", path, err.msg);
                return 1;
        }
        bool trace = false;
        for (size_t i = 0; i < prog->len; i++)
                trace |= prog->insns[i].code == (BPF_RET | BPF_K) &&
                         (prog->insns[i].k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_TRACE;
        size_t errors = trace ? 1 : 0;
        if (trace)
                printf("%s: error: record: linux.seccomp has SCMP_ACT_TRACE, which a recording refuses (its "
                       "notification would take the tracer's calls)\n",
                       path);
        else
                printf("%s: record: every call the workload makes (every thread, child and ABI) is recorded, and "
                       "poststop writes it to %s in the %s format (defaultErrnoRet %s%s%s); not with exec once, a "
                       "notify agent, SCMP_ACT_TRACE or oci-seccomp-tsync-runtime\n",
                       path, rec.output, rec.format == TSYNC_RECORD_FORMAT_DOCKER ? "Docker" : "OCI",
                       tsync_record_errno_name(rec.errno_ret), rec.input ? ", merging " : "",
                       rec.input ? rec.input : "");
        tsync_record_request_clear(&rec);
        return errors;
}

/* What a plain runtime exec misses (frontend_warn_plain_exec): a profile checked
 * here is one meant as a layer; a config asks through its annotations
 * (layers, exec once), read as an engine's precreate reads them (the runtime
 * wrapper honours the same two), and one whose annotations cannot be read is
 * left to the front ends to refuse. */
static size_t warn_plain_exec(const char *path, enum tsync_format format)
{
        (void)fflush(stdout); /* in order with the lines above when both go to one terminal */
        if (format != TSYNC_FORMAT_CONFIG)
                return frontend_warn_plain_exec(path, 1, 0);
        _cleanup_json_ struct tsync_json *doc = NULL;
        struct tsync_request req = { 0 };
        struct tsync_err err = { 0 };
        if (tsync_json_parse_file(path, TSYNC_CONFIG_LIMITS, &doc, &err) < 0 ||
            tsync_request_from_annotations(doc, TSYNC_FRONTEND_PRECREATE, &req, &err) < 0)
                return 0;
        size_t n = frontend_warn_plain_exec(path, req.n_layers, req.init.exec_once);
        tsync_request_clear(&req);
        return n;
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

        /* No options of its own: any but the shared ones ends it. */
        if ((opt = cli_input_getopt(argc, argv, CLI_INPUT_SHORT "h", options, &in)) != -1)
                return cli_help(help, opt);
        if (optind + 1 != argc)
                return cli_help(help, '?');
        const char *path = argv[optind];
        struct tsync_err err = { 0 };
        _cleanup_profile_ struct tsync_profile *profile = NULL;
        struct tsync_source_info info;
        in.keep_warnings = true; /* counted below with the lint's */
        if (cli_load(&in, path, &profile, &info, &err) < 0) {
                tsync_warnings_clear(&in.warnings);
                frontend_error("check", &err);
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
                frontend_error(path, &err);
                return CLI_EXIT_FAILED;
        }
        uint32_t native = in.compile.native_arch ? in.compile.native_arch : seccomp_arch_native();
        bool foreign = native != seccomp_arch_native();
        /* Another machine's architecture: the names it lacks are said. */
        if (foreign && tsync_compile_check_arch_names(profile, native, &in.warnings, &err) < 0) {
                tsync_warnings_clear(&in.warnings);
                frontend_error(path, &err);
                return CLI_EXIT_FAILED;
        }
        struct tsync_lint lint = { 0 };
        if (tsync_lint(profile, prog, native, in.compile.strict, &lint, &err) < 0) {
                tsync_warnings_clear(&in.warnings);
                frontend_error(path, &err);
                return CLI_EXIT_FAILED;
        }
        for (size_t i = 0; i < in.warnings.len; i++)
                printf("%s: warning: %s\n", path, in.warnings.msgs[i]);
        lint.warnings += in.warnings.len;
        tsync_warnings_clear(&in.warnings);
        for (size_t i = 0; i < lint.len; i++)
                printf("%s: %s: %s\n", path, lint.findings[i].severity == TSYNC_LINT_ERROR ? "error" : "warning",
                       lint.findings[i].msg);
        /* What the init does under it as a layer, with and without NO_NEW_PRIVS:
         * information for the profile's author, not a finding of the profile's own. */
        /* A notify profile: the rules runc and the init need, and who gets the listener. */
        uint32_t listener = TSYNC_LISTENER_NONE;
        if (tsync_profile_uses_notify(profile)) {
                if (tsync_profile_check_notify(profile, "notify", &err) < 0) {
                        printf("%s: error: %s\n", path, err.msg);
                        lint.errors++;
                } else if (tsync_profile_has_notify_action(profile)) {
                        listener = TSYNC_LISTENER_AGENT;
                        printf("%s: notify: the listener goes to the seccomp agent at %s%s%s%s (the init hands it "
                               "over, under inject, the hook and oci-seccomp-tsync-runtime alike)\n",
                               path, profile->listener_path,
                               profile->listener_metadata ? " with listenerMetadata '" : "",
                               profile->listener_metadata ? profile->listener_metadata : "",
                               profile->listener_metadata ? "'" : "");
                } else {
                        printf("%s: notify: listenerPath without SCMP_ACT_NOTIFY rules: nothing is sent to an agent\n",
                               path);
                }
        }
        char with_nnp[1536], without_nnp[1536];
        /* The init's calls are this machine's: a program for another is not
         * judged by them (issue 38: the init on that machine, its own). */
        if (foreign) {
                printf("%s: init: not judged for %s (the init's calls known here are %s's)\n", path,
                       tsync_arch_name(native), tsync_arch_name(seccomp_arch_native()));
        } else {
                /* Notify on a call the init makes after its load would wait for an agent
                 * without its listener: for a notify profile, an error of the profile. */
                if (describe_route(prog, listener, false, with_nnp, sizeof(with_nnp)) == 1 &&
                    listener != TSYNC_LISTENER_NONE)
                        lint.errors++;
                (void)describe_route(prog, listener, true, without_nnp, sizeof(without_nnp));
                printf("%s: init: %s\n", path, with_nnp);
                if (strcmp(with_nnp, without_nnp) != 0)
                        printf("%s: init, with noNewPrivileges false: %s\n", path, without_nnp);
                lint.errors += describe_recording(path, prog);
        }
        /* Not a finding of the profile's: counted apart, so that the count
         * stays the profile's and the line still says one was given. */
        size_t host = warn_plain_exec(path, info.format);
        printf("%s: %zu error%s, %zu warning%s%s\n", path, lint.errors, lint.errors == 1 ? "" : "s", lint.warnings,
               lint.warnings == 1 ? "" : "s", host ? " (and one about this host, above)" : "");
        int rc = lint.errors ? CLI_EXIT_FAILED : CLI_EXIT_OK;
        tsync_lint_clear(&lint);
        return rc;
}
