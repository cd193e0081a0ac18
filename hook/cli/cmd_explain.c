/* explain: one call against one profile, or against the whole stack a
 * container's process meets (a config's linux.seccomp and its layers, or
 * --baseline and --profile), decided as the kernel decides it. */
#include <errno.h>
#include <getopt.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "facts/argnames.h"
#include "plan/plan.h"
#include "shared/bpf.h"
#include "shared/cleanup.h"
#include "translate/analysis.h"
#include "translate/cache.h"
#include "util/json.h"

static void help(FILE *f)
{
        fprintf(f,
                "Usage: %s explain [OPTIONS] PROFILE SYSCALL [ARG0 [ARG1 ... ARG5]]\n"
                "       %s explain [OPTIONS] --config CONFIG SYSCALL [ARG0 ...]\n"
                "       %s explain [OPTIONS] [--baseline PROFILE] --profile LAYER... SYSCALL [ARG0 ...]\n"
                "Compiles PROFILE, runs the program on one call as the kernel would, and prints the action\n"
                "and the rule that decided it. With a stack (a config.json's linux.seccomp and the layers its\n"
                "annotations or plan name, or --baseline and --profile), every filter's answer and the one\n"
                "the kernel takes. SYSCALL is a name or a number; ARGs are numbers (0x.. for hex) or, for\n"
                "clone, unshare, setns, personality and socket, names joined by '|' "
                "(CLONE_NEWUSER|SIGCHLD).\n"
                "With --config, an operand with no '/' or '.' is SYSCALL: no PROFILE, the config's "
                "stack.\n\n" CLI_INPUT_HELP
                "  -b, --baseline FILE   the profile the runtime applies (linux.seccomp), loaded first\n"
                "  -p, --profile FILE    a layer, loaded after the baseline and earlier layers (repeat)\n"
                "      --profile-dir DIR where a config's layer names are looked up (repeat; default\n"
                "                        /etc/oci-seccomp-tsync/profiles, then the installed ones)\n"
                "  -A, --abi ABI         the ABI the call is made through (x86_64, x86 for int 0x80, x32, ...);\n"
                "                        default: the compiled architecture\n"
                "  -q, --quiet           only the verdict line; no warnings\n",
                PROGRAM, PROGRAM, PROGRAM);
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

/* One filter of what the call meets, in the order it is loaded. */
struct filter {
        char label[192];
        struct tsync_profile *profile;
        struct tsync_program *prog;
        struct tsync_explanation e;
};

struct stack {
        struct filter f[TSYNC_MAX_LAYERS + 2];
        size_t n;
        /* Every warning of every filter: said once, on one line, at the end. */
        struct tsync_warnings w;
};

static void stack_clear(struct stack *s)
{
        for (size_t i = 0; i < s->n; i++) {
                tsync_profile_free(s->f[i].profile);
                tsync_program_free(s->f[i].prog);
        }
        s->n = 0;
        tsync_warnings_clear(&s->w);
}

/* Each warning once, named by where it comes from: a file given twice (as
 * baseline and layer) warns once. */
static void take_warnings(struct stack *s, struct tsync_warnings *from, const char *where)
{
        for (size_t i = 0; i < from->len; i++) {
                _cleanup_free_ char *msg = NULL;
                if (asprintf(&msg, "%s: %s", where, from->msgs[i]) < 0)
                        break; /* out of memory: a warning lost changes no answer */
                bool seen = false;
                for (size_t j = 0; j < s->w.len && !seen; j++)
                        seen = strcmp(s->w.msgs[j], msg) == 0;
                if (!seen)
                        (void)tsync_warn(&s->w, "%s", msg);
        }
        tsync_warnings_clear(from);
}

/* A profile file, its warnings kept for the one line at the end. */
static int add_file(struct stack *s, struct cli_input *in, const char *path, const char *label)
{
        struct tsync_err err = { 0 };
        struct tsync_source_info info;
        struct tsync_warnings w = { 0 };
        struct filter *f = &s->f[s->n];
        if (s->n == ARRAY_SIZE(s->f)) {
                frontend_errorf("explain", "at most %zu filters", ARRAY_SIZE(s->f));
                return -1;
        }
        in->keep_warnings = true;
        int r = cli_load(in, path, &f->profile, &info, &err);
        take_warnings(s, &in->warnings, path);
        if (r < 0) {
                frontend_error("explain", &err);
                return -1;
        }
        r = tsync_cache_compile(in->no_cache ? NULL : in->cache_dir, f->profile, &in->compile, info.caps, &f->prog, &w,
                                &err);
        take_warnings(s, &w, path);
        if (r < 0) {
                tsync_profile_free(TAKE_PTR(f->profile));
                frontend_error(path, &err);
                return -1;
        }
        (void)snprintf(f->label, sizeof(f->label), "%s", label);
        s->n++;
        return 0;
}

static int add_compiled(struct stack *s, const struct cli_input *in, struct tsync_profile *p, uint64_t caps,
                        bool strict, const char *label, const char *where)
{
        struct tsync_err err = { 0 };
        struct tsync_warnings w = { 0 };
        struct tsync_compile_opts co = in->compile;
        co.strict = co.strict || strict;
        struct filter *f = &s->f[s->n];
        int r = tsync_cache_compile(in->no_cache ? NULL : in->cache_dir, p, &co, caps, &f->prog, &w, &err);
        take_warnings(s, &w, label);
        if (r < 0) {
                tsync_profile_free(p);
                frontend_errorf(where, "%s: %s", label, err.msg);
                return -1;
        }
        f->profile = p;
        (void)snprintf(f->label, sizeof(f->label), "%s", label);
        s->n++;
        return 0;
}

/* The stack of a config.json as the kernel will hold it on the workload:
 * the runtime's own linux.seccomp first (layer mode), then the plan's
 * filters in its order (tsync_plan_filter_count). A config that was
 * rewritten carries its plan; one that was not is planned here as an
 * engine's precreate would plan it from the annotations. */
static int add_config(struct stack *s, const struct cli_input *in, const char *path, const struct tsync_plan_paths *o)
{
        struct tsync_err err = { 0 };
        _cleanup_json_ struct tsync_json *doc = NULL;
        _cleanup_plan_ struct tsync_plan *plan = NULL;
        if (tsync_json_parse_file(path, TSYNC_CONFIG_LIMITS, &doc, &err) < 0) {
                frontend_error("explain", &err);
                return -1;
        }
        int r = tsync_plan_from_config(doc, &plan, &err);
        if (r == -ENOENT) {
                struct tsync_request req = { 0 };
                r = tsync_request_from_annotations(doc, TSYNC_FRONTEND_PRECREATE, &req, &err);
                /* Nothing is written: no state directory, and the recording's
                 * directory is only named (precreate's default), never made. */
                req.delivery = TSYNC_DELIVERY_ARGS;
                req.record_dir = TSYNC_RECORD_ROOT;
                if (r == 0)
                        r = tsync_plan_new(doc, &req, NULL, &plan, &err);
                tsync_request_clear(&req);
        }
        if (r < 0) {
                frontend_error(path, &err);
                return -1;
        }
        if (plan->mode == TSYNC_MODE_LAYER && tsync_json_get(tsync_json_get(doc, "linux"), "seccomp")) {
                struct tsync_warnings w = { 0 };
                struct tsync_source_opts so = { .format = TSYNC_FORMAT_CONFIG,
                                                .keys = TSYNC_KEYS_WARN,
                                                .native_arch = in->compile.native_arch,
                                                .warnings = &w };
                struct tsync_source_info info;
                struct tsync_profile *p = NULL;
                r = tsync_source_from_json(doc, &so, &p, &info, &err);
                take_warnings(s, &w, path);
                if (r < 0) {
                        frontend_error(path, &err);
                        return -1;
                }
                if (add_compiled(s, in, p, info.caps, plan->fail_unknown_syscall, "linux.seccomp (the runtime's)",
                                 path) < 0)
                        return -1;
        }
        size_t n = tsync_plan_filter_count(plan);
        for (size_t k = 0; k < n; k++) {
                struct tsync_warnings w = { 0 };
                struct tsync_profile *p = NULL;
                uint64_t caps = 0;
                char label[160];
                tsync_plan_filter_label(plan, k, label, sizeof(label));
                if (s->n == ARRAY_SIZE(s->f)) {
                        frontend_errorf(path, "at most %zu filters", ARRAY_SIZE(s->f));
                        return -1;
                }
                r = tsync_plan_load_filter(plan, k, o, &p, &caps, &w, &err);
                take_warnings(s, &w, label);
                if (r < 0) { /* err names the filter */
                        frontend_error(path, &err);
                        return -1;
                }
                if (add_compiled(s, in, p, caps, plan->fail_unknown_syscall, label, path) < 0)
                        return -1;
        }
        if (s->n == 0) {
                frontend_errorf(path,
                                "no filter to explain: no linux.seccomp (or it moves in replace mode) and no layer");
                return -1;
        }
        return 0;
}

/* Every warning said once, on one line: a profile with thirty names this
 * libseccomp does not know would otherwise bury the answer. check says
 * them all. */
static void say_warnings(const struct stack *s)
{
        if (s->w.len == 0)
                return;
        const char *first = s->w.msgs[0];
        size_t len = strlen(first), max = 100;
        fprintf(stderr, "%s: explain: warning: %.*s%s", PROGRAM, (int)(len > max ? max : len), first,
                len > max ? "..." : "");
        if (s->w.len > 1)
                fprintf(stderr, " (and %zu more)", s->w.len - 1);
        fprintf(stderr, "%s\n", len > max || s->w.len > 1 ? "; `oci-seccomp-tsync check` says them in full" : "");
}

/* Who answers a USER_NOTIF. */
static void say_listener(const struct filter *f)
{
        if (f->profile->listener_path)
                printf("answered by: the seccomp agent at %s\n", f->profile->listener_path);
        else if (strcmp(f->label, "exec-once") == 0)
                printf("answered by: the init's exec-once supervisor: the workload's own start passes, every other "
                       "exec gets its errno\n");
        else if (strcmp(f->label, "recording") == 0)
                printf("answered by: the init's recorder, which lets the call continue\n");
        else
                printf("answered by: nobody: the profile has no listenerPath\n");
}

static void say_arguments(const char *name, uint32_t abi, const char *const *argv, int argc, const uint64_t *args)
{
        if (argc == 0)
                return;
        printf("arguments:");
        for (int i = 0; i < argc; i++) {
                const struct tsync_argtable *t = tsync_argtable_find(name, (unsigned)i, abi);
                char names[256];
                if (t) {
                        tsync_argtable_format(t, args[i], names, sizeof(names));
                        printf("%s arg%d %s (0x%llx)", i ? "," : "", i, names, (unsigned long long)args[i]);
                } else {
                        printf("%s arg%d %s", i ? "," : "", i, argv[i]);
                }
        }
        printf("\n");
}

static void say_single(const struct filter *f, const char *name, uint32_t abi, int nr, bool quiet,
                       const char *const *argv, int argc, const uint64_t *args)
{
        char action[32], why[512];
        tsync_bpf_ret_name(f->e.ret, action, sizeof(action));
        printf("%s (%s, nr %d) -> %s\n", name, tsync_arch_name(abi), nr, action);
        if (quiet)
                return;
        say_arguments(name, abi, argv, argc, args);
        if (f->e.abi != abi)
                printf("seen by the filter as: %s (the number has no x32 bit 0x40000000)\n", tsync_arch_name(f->e.abi));
        printf("decided by: %s\n", decider_text(f->profile, &f->e, why, sizeof(why)));
        if ((f->e.ret & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF)
                say_listener(f);
        printf("instructions executed: %zu%s\n", f->e.executed,
               f->e.read_args ? " (reads arguments: not cacheable by the kernel)" : "");
}

static void say_stack(const struct stack *s, const char *name, uint32_t abi, int nr, bool quiet,
                      const char *const *argv, int argc, const uint64_t *args)
{
        uint32_t rets[ARRAY_SIZE(s->f)];
        for (size_t i = 0; i < s->n; i++)
                rets[i] = s->f[i].e.ret;
        size_t d;
        uint32_t ret = tsync_explain_stack(rets, s->n, &d);
        char action[32], why[512];
        tsync_bpf_ret_name(ret, action, sizeof(action));
        if (d == s->n)
                printf("%s (%s, nr %d) -> %s (every filter allows)\n", name, tsync_arch_name(abi), nr, action);
        else
                printf("%s (%s, nr %d) -> %s from filter %zu, %s\n", name, tsync_arch_name(abi), nr, action, d + 1,
                       s->f[d].label);
        if (quiet)
                return;
        say_arguments(name, abi, argv, argc, args);
        if (s->f[0].e.abi != abi)
                printf("seen by the filters as: %s (the number has no x32 bit 0x40000000)\n",
                       tsync_arch_name(s->f[0].e.abi));
        for (size_t i = 0; i < s->n; i++) {
                tsync_bpf_ret_name(s->f[i].e.ret, action, sizeof(action));
                printf("filter %zu, %s: %s, by %s%s\n", i + 1, s->f[i].label, action,
                       decider_text(s->f[i].profile, &s->f[i].e, why, sizeof(why)), i == d ? " <- decides" : "");
        }
        /* A tie: the kernel keeps the first of the most severe it meets,
         * walking from the newest filter down, so an older one's data (its
         * errno) is never seen. */
        for (size_t i = 0; d < s->n && i < d; i++)
                if ((s->f[i].e.ret & SECCOMP_RET_ACTION_FULL) == (ret & SECCOMP_RET_ACTION_FULL)) {
                        tsync_bpf_ret_name(s->f[i].e.ret, action, sizeof(action));
                        printf("tie: filter %zu also answers %s; the newest filter's answer counts\n", i + 1, action);
                }
        if (d < s->n && (ret & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF)
                say_listener(&s->f[d]);
        printf("order: the kernel runs every filter, newest first, and takes the most severe action "
               "(KILL_PROCESS, KILL_THREAD, TRAP, ERRNO, USER_NOTIF, TRACE, LOG, ALLOW)\n");
}

/* A PROFILE operand and not a syscall: a syscall's name or number has
 * neither '/' nor '.'. Asked only with --config, which can stand alone. */
static bool looks_like_a_file(const char *s)
{
        return strchr(s, '/') || strchr(s, '.');
}

int cmd_explain(int argc, char **argv)
{
        enum { OPT_PROFILE_DIR = 0x100 };
        static const struct option options[] = { CLI_INPUT_OPTIONS,
                                                 { "abi", required_argument, NULL, 'A' },
                                                 { "quiet", no_argument, NULL, 'q' },
                                                 { "baseline", required_argument, NULL, 'b' },
                                                 { "profile", required_argument, NULL, 'p' },
                                                 { "profile-dir", required_argument, NULL, OPT_PROFILE_DIR },
                                                 { "help", no_argument, NULL, 'h' },
                                                 {} };
        struct cli_input in = { 0 };
        const char *abi_name = NULL, *baseline = NULL, *layers[TSYNC_MAX_LAYERS];
        const char *profile_dirs[8];
        size_t n_layers = 0, n_profile_dirs = 0;
        bool quiet = false;
        int opt;

        while ((opt = cli_input_getopt(argc, argv, "+" CLI_INPUT_SHORT "A:qb:p:h", options, &in)) != -1) {
                switch (opt) {
                case 'A':
                        abi_name = optarg;
                        continue;
                case 'q':
                        quiet = true;
                        continue;
                case 'b':
                        baseline = optarg;
                        continue;
                case 'p':
                        if (n_layers == ARRAY_SIZE(layers)) {
                                frontend_errorf("--profile", "at most %zu layers", ARRAY_SIZE(layers));
                                return CLI_EXIT_USAGE;
                        }
                        layers[n_layers++] = optarg;
                        continue;
                case OPT_PROFILE_DIR:
                        if (n_profile_dirs == ARRAY_SIZE(profile_dirs)) {
                                frontend_errorf("--profile-dir", "at most %zu", ARRAY_SIZE(profile_dirs));
                                return CLI_EXIT_USAGE;
                        }
                        profile_dirs[n_profile_dirs++] = optarg;
                        continue;
                }
                return cli_help(help, opt);
        }
        bool by_options = baseline || n_layers;
        if (by_options && in.config) {
                frontend_errorf("explain",
                                "--config and --baseline/--profile each give the whole stack: one at a time");
                return CLI_EXIT_USAGE;
        }
        bool by_config = in.config && optind < argc && !looks_like_a_file(argv[optind]);
        const char *path = by_options || by_config ? NULL : argv[optind];
        int first = path ? optind + 1 : optind; /* SYSCALL */
        if (optind >= argc || argc - first < 1 || argc - first > 7)
                return cli_help(help, '?');
        const char *syscall_name = argv[first];

        uint32_t native = in.compile.native_arch ? in.compile.native_arch : seccomp_arch_native();
        uint32_t abi = native;
        if (abi_name && tsync_arch_parse(abi_name, &abi) < 0) {
                frontend_errorf("--abi", "architecture '%s' is unknown", abi_name);
                return CLI_EXIT_USAGE;
        }

        int nr;
        uint64_t number;
        if (parse_u64(syscall_name, &number) == 0) {
                if (number > UINT32_MAX) {
                        frontend_errorf("explain", "syscall number %s is above 32 bits", syscall_name);
                        return CLI_EXIT_USAGE;
                }
                nr = (int)(uint32_t)number;
        } else {
                nr = seccomp_syscall_resolve_name_arch(abi, syscall_name);
                if (nr < 0) {
                        frontend_errorf("explain", "syscall '%s' does not exist on %s", syscall_name,
                                        tsync_arch_name(abi));
                        return CLI_EXIT_USAGE;
                }
        }
        _cleanup_free_ char *resolved = seccomp_syscall_resolve_num_arch(abi, nr);
        const char *name = resolved ? resolved : syscall_name;

        const char *const *arg_words = (const char *const *)argv + first + 1;
        int n_args = argc - first - 1;
        uint64_t args[6] = { 0 };
        for (int i = 0; i < n_args; i++) {
                if (parse_u64(arg_words[i], &args[i]) == 0)
                        continue;
                const struct tsync_argtable *t = tsync_argtable_find(name, (unsigned)i, abi);
                if (t && tsync_argtable_parse(t, arg_words[i], &args[i]) == 0)
                        continue;
                if (t)
                        frontend_errorf("explain", "argument %d '%s' is neither a number nor %s names joined by '|'", i,
                                        arg_words[i], t->what);
                else
                        frontend_errorf("explain", "argument %d '%s' is not a number from 0 to 18446744073709551615", i,
                                        arg_words[i]);
                return CLI_EXIT_USAGE;
        }

        struct stack s = { 0 };
        int r = 0;
        if (path) {
                r = add_file(&s, &in, path, path);
        } else if (by_config) {
                struct tsync_plan_paths o = {
                        .cache_dir = in.no_cache ? NULL : in.cache_dir,
                        .profile_dirs = n_profile_dirs ? profile_dirs : frontend_default_profile_dirs,
                        .n_profile_dirs = n_profile_dirs ? n_profile_dirs : frontend_n_default_profile_dirs,
                };
                r = add_config(&s, &in, in.config, &o);
        } else {
                char label[192];
                if (baseline) {
                        (void)snprintf(label, sizeof(label), "baseline %s", baseline);
                        r = add_file(&s, &in, baseline, label);
                }
                for (size_t i = 0; r == 0 && i < n_layers; i++) {
                        (void)snprintf(label, sizeof(label), "layer %s", layers[i]);
                        r = add_file(&s, &in, layers[i], label);
                }
        }
        for (size_t i = 0; r == 0 && i < s.n; i++) {
                struct tsync_err err = { 0 };
                r = tsync_explain(s.f[i].profile, s.f[i].prog, native, abi, nr, args, &s.f[i].e, &err);
                if (r < 0)
                        frontend_errorf("explain", "%s: %s", s.f[i].label, err.msg);
        }
        if (r < 0) {
                stack_clear(&s);
                return CLI_EXIT_FAILED;
        }
        if (path)
                say_single(&s.f[0], name, abi, nr, quiet, arg_words, n_args, args);
        else
                say_stack(&s, name, abi, nr, quiet, arg_words, n_args, args);
        if (!quiet && strcmp(name, "clone3") == 0)
                printf("note: clone3's flags are in its struct clone_args, which no filter can read: a filter "
                       "sees only the pointer\n");
        (void)fflush(stdout);
        if (!quiet)
                say_warnings(&s);
        stack_clear(&s);
        return CLI_EXIT_OK;
}
