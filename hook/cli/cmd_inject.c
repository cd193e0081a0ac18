#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "tsync/bpf.h"
#include "tsync/init_calls.h"
#include "tsync/cache.h"
#include "tsync/caps.h"
#include "tsync/cleanup.h"
#include "tsync/deliver.h"
#include "tsync/fileio.h"
#include "tsync/json_build.h"
#include "tsync/plan.h"
#include "tsync/rewrite.h"

static void help(FILE *f)
{
        fprintf(f,
                "Usage: %s inject [OPTIONS] BUNDLE\n"
                "Rewrites BUNDLE/config.json so that `runc run` or `crun run` in BUNDLE starts the workload under\n"
                "seccomp-tsync-init, which applies the filters with TSYNC to all its threads first. Running it\n"
                "again re-does the rewrite from the original settings (it never wraps twice), provided the\n"
                "config is exactly what inject wrote.\n\n"
                "  -p, --profile FILE    add a layer: a profile (OCI or Docker format) applied on top of the\n"
                "                        config's own linux.seccomp; repeatable, applied in order\n"
                "      --replace         move the config's linux.seccomp from the runtime to the init (for runtimes\n"
                "                        that cannot apply seccomp). Processes started with `runc exec` then run\n"
                "                        WITHOUT it.\n"
                "      --no-hooks        compile the filters now, into BUNDLE/oci-seccomp-tsync, and add no hooks:\n"
                "                        each start then skips two hook processes; a changed profile takes\n"
                "                        effect at the next inject, not at the next start. Needs\n"
                "                        process.noNewPrivileges true when capabilities would be lent to\n"
                "                        the init: no hook would take them back from exec'd processes\n"
                "      --exec            the init execs the workload once the filters hold, so the workload is\n"
                "                        PID 1 as in a plain run (no reaping or signal forwarding by the init)\n"
                "      --init PATH       the static seccomp-tsync-init to mount (default: beside this program,\n"
                "                        or ../libexec/oci-seccomp-tsync/)\n"
                "      --cache-dir DIR   where the hook keeps compiled filters (default %s)\n"
                "      --no-cache        the hook compiles every time\n",
                PROGRAM, "/var/cache/oci-seccomp-tsync");
}

/* Compiles everything the plan names now, so that a broken layer is reported
 * here and not at the container's start. */
/* The runtime's own profile (layer mode): the runtime loads it on the init
 * before the init starts, so the init's calls after its load are judged by
 * it too. *ret NULL when the config has none, or in replace mode (then it is
 * one of the plan's filters). */
static int compile_baseline(const struct tsync_json *config, const struct tsync_plan *plan,
                            struct tsync_program **ret, struct tsync_err *err)
{
        *ret = NULL;
        if (plan->replace || !tsync_json_get(tsync_json_get(config, "linux"), "seccomp"))
                return 0;
        struct tsync_source_opts so = { .format = TSYNC_FORMAT_CONFIG, .keys = TSYNC_KEYS_WARN };
        struct tsync_source_info info;
        struct tsync_warnings ignored = { 0 };
        struct tsync_compile_opts co = { 0 };
        _cleanup_profile_ struct tsync_profile *p = NULL;
        int r = tsync_source_from_json(config, &so, &p, &info, err);
        if (r == 0)
                r = tsync_compile(p, &co, ret, &ignored, err);
        tsync_warnings_clear(&ignored);
        return r;
}

/* Whether the init can supervise the workload under the stack it will run
 * under, decided now so that the config says it (--exec) and the user hears
 * it once, here. */
static int check_route(struct tsync_program *const *progs, size_t n, bool caps_after, bool with_baseline,
                       bool *ret_in_place, const char *where)
{
        struct tsync_stack_prog stack[TSYNC_MAX_LAYERS + 2];
        const struct tsync_init_call *denied;
        enum tsync_init_route route;
        struct tsync_err err = { 0 };
        uint32_t action;
        char answer[32];

        for (size_t i = 0; i < n; i++)
                stack[i] = (struct tsync_stack_prog){ .insns = progs[i]->insns, .len = progs[i]->len };
        int r = tsync_init_route(stack, n, with_baseline ? 1 : 0, caps_after, &route, &denied, &action, &err);
        *ret_in_place = false;
        if (r == -EOPNOTSUPP || (r == 0 && route == TSYNC_ROUTE_SUPERVISE))
                return 0;
        if (r < 0) {
                cli_error(where, &err);
                return -1;
        }
        tsync_bpf_ret_name(action, answer, sizeof(answer));
        const char *whose = with_baseline ? "the layers and the config's own linux.seccomp (which the runtime "
                                            "applies to the init too)"
                                          : "the filters";
        if (route == TSYNC_ROUTE_NONE) {
                cli_errorf(where, "%s answer %s with %s, which the init needs to %s: no workload could start under them",
                           whose, denied->name, answer, denied->why);
                return -1;
        }
        fprintf(stderr,
                "%s: %s: warning: %s answer %s with %s, which the init needs to %s: the init runs the workload in "
                "place, as PID 1, as the runtime alone would (--exec)\n",
                PROGRAM, where, whose, denied->name, answer, denied->why);
        *ret_in_place = true;
        return 0;
}

int cli_check_plan(const struct tsync_plan *plan, const struct tsync_deliver_opts *o, const struct tsync_json *config,
                   bool *ret_in_place, const char *where)
{
        struct tsync_err err = { 0 };
        struct tsync_warnings ignored = { 0 };
        struct tsync_program *progs[TSYNC_MAX_LAYERS + 2] = { NULL };
        size_t n_progs = 0;
        int rc = -1;
        /* Said once, here (inject and precreate): the hook's later stages and the init stay quiet. */
        if (tsync_caps_warn_ignored(plan->capabilities, &ignored, &err) < 0) {
                cli_error(where, &err);
                return -1;
        }
        cli_warnings(where, &ignored);
        /* crun's annotations that change what it makes of linux.seccomp: in replace mode the
         * section is ours to apply, and we cannot do what they ask. */
        static const char *const crun_only[] = { "run.oci.seccomp_bpf_data", "run.oci.seccomp.receiver",
                                                 "run.oci.seccomp.plugins" };
        for (size_t i = 0; plan->replace && i < ARRAY_SIZE(crun_only); i++) {
                if (tsync_json_get(tsync_json_get(config, "annotations"), crun_only[i])) {
                        cli_errorf(where,
                                   "annotations.%s: crun's own way of applying linux.seccomp, which replace mode "
                                   "cannot honour: use layer mode under crun, or remove the annotation",
                                   crun_only[i]);
                        return -1;
                }
        }
        if (compile_baseline(config, plan, &progs[0], &err) < 0) {
                cli_error(where, &err);
                return -1;
        }
        bool with_baseline = progs[0] != NULL;
        n_progs = with_baseline ? 1 : 0;
        size_t n = tsync_plan_filter_count(plan);
        long first = plan->replace && plan->seccomp ? -1 : 0;
        for (size_t k = 0; k < n; k++) {
                _cleanup_profile_ struct tsync_profile *p = NULL;
                struct tsync_warnings w = { 0 };
                struct tsync_compile_opts co = { .strict = plan->fail_unknown_syscall };
                uint64_t caps;
                int r = tsync_plan_load_profile(plan, first + (long)k, o, &p, &caps, &w, &err);
                if (r == 0)
                        r = tsync_compile(p, &co, &progs[n_progs], &w, &err);
                cli_warnings(where, &w);
                if (r < 0) {
                        cli_error(where, &err);
                        goto out;
                }
                n_progs++;
        }
        rc = check_route(progs, n_progs, !plan->no_new_privileges, with_baseline, ret_in_place, where);
out:
        for (size_t i = 0; i < n_progs + 1 && i < ARRAY_SIZE(progs); i++)
                tsync_program_free(progs[i]);
        return rc;
}

/* --no-hooks: the filters go into the bundle now, replacing whatever an earlier
 * inject left there (fewer layers leave no stale file behind). Everything is
 * compiled before the first old file goes, so a refused layer changes nothing. */
static int deliver_now(const struct tsync_plan *plan, const struct tsync_deliver_opts *o,
                       const struct tsync_json *config, bool *ret_in_place, const char *where)
{
        if (cli_check_plan(plan, o, config, ret_in_place, where) < 0)
                return -1;
        struct tsync_err err = { 0 };
        struct tsync_warnings w = { 0 };
        int r = tsync_deliver_clean(plan, o, &err);
        if (r == 0)
                r = tsync_deliver(plan, o, &w, &err);
        cli_warnings(where, &w);
        if (r < 0) {
                cli_error(where, &err);
                struct tsync_err ignored = { 0 };
                (void)tsync_deliver_clean(plan, o, &ignored);
        }
        return r;
}

int cmd_inject(int argc, char **argv)
{
        static const struct option options[] = { { "profile", required_argument, NULL, 'p' },
                                                 { "replace", no_argument, NULL, 'R' },
                                                 { "init", required_argument, NULL, 'I' },
                                                 { "cache-dir", required_argument, NULL, 'D' },
                                                 { "no-cache", no_argument, NULL, 'N' },
                                                 { "no-hooks", no_argument, NULL, 'H' },
                                                 { "exec", no_argument, NULL, 'E' },
                                                 { "help", no_argument, NULL, 'h' },
                                                 {} };
        char *layers[TSYNC_MAX_LAYERS];
        size_t n_layers = 0;
        bool replace = false, no_cache = false, no_hooks = false, exec = false, made_state_dir = false;
        const char *init = NULL, *cache_dir = NULL;
        int opt, rc = CLI_EXIT_FAILED, lock = -1;

        while ((opt = getopt_long(argc, argv, "p:h", options, NULL)) != -1) {
                switch (opt) {
                case 'p':
                        if (n_layers == TSYNC_MAX_LAYERS) {
                                cli_errorf("inject", "at most %d layers", TSYNC_MAX_LAYERS);
                                goto out;
                        }
                        if (!(layers[n_layers] = realpath(optarg, NULL))) {
                                cli_errorf("inject", "--profile %s: %s", optarg, strerror(errno));
                                goto out;
                        }
                        n_layers++;
                        break;
                case 'R':
                        replace = true;
                        break;
                case 'I':
                        init = optarg;
                        break;
                case 'D':
                        cache_dir = optarg;
                        break;
                case 'N':
                        no_cache = true;
                        break;
                case 'H':
                        no_hooks = true;
                        break;
                case 'E':
                        exec = true;
                        break;
                case 'h':
                        help(stdout);
                        rc = CLI_EXIT_OK;
                        goto out;
                default:
                        help(stderr);
                        rc = CLI_EXIT_USAGE;
                        goto out;
                }
        }
        if (optind + 1 != argc) {
                help(stderr);
                rc = CLI_EXIT_USAGE;
                goto out;
        }
        rc = CLI_EXIT_FAILED;
        char bundle[PATH_MAX], init_path[PATH_MAX], self[PATH_MAX], config_path[PATH_MAX + 16],
                state_dir[PATH_MAX + 32];
        if (!realpath(argv[optind], bundle)) {
                cli_errorf("inject", "%s: %s", argv[optind], strerror(errno));
                goto out;
        }
        if (init ? !realpath(init, init_path) : cli_find_init(init_path, sizeof(init_path)) < 0) {
                cli_errorf("inject", "cannot find seccomp-tsync-init%s%s; give --init PATH", init ? " at " : "",
                           init ? init : "");
                goto out;
        }
        if (cli_self_path(self, sizeof(self)) < 0) {
                cli_errorf("inject", "cannot read /proc/self/exe: %s", strerror(errno));
                goto out;
        }
        (void)snprintf(config_path, sizeof(config_path), "%s/config.json", bundle);
        (void)snprintf(state_dir, sizeof(state_dir), "%s/%s", bundle, TSYNC_BUNDLE_STATE);

        struct tsync_err err = { 0 };
        /* The hooks of a running container change config.json too (the exec view), under this lock. */
        lock = open(bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (lock < 0 || flock(lock, LOCK_EX) < 0) {
                cli_errorf("inject", "%s: cannot lock: %s", bundle, strerror(errno));
                goto out;
        }
        _cleanup_json_ struct tsync_json *config = NULL;
        struct stat st;
        if (lstat(config_path, &st) < 0) {
                cli_errorf("inject", "%s: %s", config_path, strerror(errno));
                goto out;
        }
        /* A bundle may belong to whoever made it: its config.json must not
         * lead root's read or write anywhere else. */
        if (!S_ISREG(st.st_mode)) {
                cli_errorf("inject", "%s: %s: refusing to read or replace it", config_path,
                           S_ISLNK(st.st_mode)   ? "is a symbolic link"
                           : S_ISDIR(st.st_mode) ? "is a directory"
                                                 : "is not a regular file");
                goto out;
        }
        if (tsync_json_parse_file(config_path, NULL, &config, &err) < 0) {
                cli_error("inject", &err);
                goto out;
        }
        if (mkdir(state_dir, 0755) == 0)
                made_state_dir = true;
        else if (errno != EEXIST) {
                cli_errorf("inject", "%s: %s", state_dir, strerror(errno));
                goto out;
        }
        const char *hook_args[2];
        size_t n_hook_args = 0;
        if (no_cache)
                hook_args[n_hook_args++] = "--no-cache";
        else if (cache_dir) {
                hook_args[n_hook_args++] = "--cache-dir";
                hook_args[n_hook_args++] = cache_dir;
        }
        struct tsync_rewrite_opts ro = { .replace = replace,
                                         .exec = exec,
                                         .layers = (const char *const *)layers,
                                         .n_layers = n_layers,
                                         .state_dir = state_dir,
                                         .init_path = init_path,
                                         .hook_path = no_hooks ? NULL : self,
                                         .hook_args = hook_args,
                                         .n_hook_args = n_hook_args };
        if (tsync_rewrite(config, &ro, &err) < 0) {
                cli_error(config_path, &err);
                goto out;
        }
        _cleanup_plan_ struct tsync_plan *plan = NULL;
        if (tsync_plan_from_config(config, &plan, &err) < 0) {
                cli_error(config_path, &err);
                goto out;
        }
        struct tsync_deliver_opts dopts = { .cache_dir = no_cache ? NULL : cache_dir ? cache_dir : TSYNC_CACHE_DEFAULT_DIR,
                                            .state_root = TSYNC_STATE_ROOT,
                                            .bundle = bundle };
        if (tsync_plan_check_state_dir(plan, &dopts, &err) < 0) {
                cli_error(config_path, &err);
                goto out;
        }
        bool in_place = false;
        if (no_hooks ? deliver_now(plan, &dopts, config, &in_place, config_path) < 0
                     : cli_check_plan(plan, &dopts, config, &in_place, config_path) < 0)
                goto out;
        if (in_place && !exec && tsync_rewrite_set_exec(config, &err) < 0) {
                cli_error(config_path, &err);
                goto out;
        }
        _cleanup_free_ char *text = NULL;
        size_t len;
        if (tsync_json_write(config, true, &text, &len, &err) < 0 ||
            tsync_write_atomic(config_path, text, len, st.st_mode & 07777, true, &err) < 0) {
                cli_error("inject", &err);
                if (no_hooks) /* the old config must not meet filters it did not ask for */
                        (void)tsync_deliver_clean(plan, &dopts, &err);
                goto out;
        }
        if (replace)
                cli_warn_replace(bundle, config, "runc exec");
        rc = CLI_EXIT_OK;
out:
        /* A refused inject leaves the bundle as it found it. */
        if (rc != CLI_EXIT_OK && made_state_dir)
                (void)rmdir(state_dir);
        for (size_t i = 0; i < n_layers; i++)
                free(layers[i]);
        if (lock >= 0)
                (void)close(lock);
        return rc;
}
