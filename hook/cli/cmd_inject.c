#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "frontend/pipeline.h"
#include "node/node_conf.h"
#include "node/node_layers.h"
#include "plan/deliver.h"
#include "plan/exec_view.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "plan/views.h"
#include "shared/cleanup.h"
#include "translate/cache.h"
#include "util/fileio.h"
#include "util/json_build.h"

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
                "The filters are compiled now and carried in the init's own arguments: the bundle holds no\n"
                "state, and a changed profile takes effect at the next inject. Hooks (createRuntime,\n"
                "poststop) are added only when the init is lent capabilities (noNewPrivileges false), to\n"
                "keep them from processes started with `runc exec` or `crun exec`, and for a notify agent\n"
                "(listenerPath), whose container state createRuntime writes.\n\n"
                "      --compile-at-start  compile at every start instead, in a createRuntime hook, into\n"
                "                        BUNDLE/oci-seccomp-tsync: a changed profile takes effect at the next\n"
                "                        start (two hook processes per start)\n"
                "      --no-hooks        never add hooks; refused when capabilities would be lent to the\n"
                "                        init (set process.noNewPrivileges to true), and for a notify agent\n"
                "      --exec            the init execs the workload once the filters hold, so the workload is\n"
                "                        PID 1 as in a plain run (no reaping or signal forwarding by the init)\n"
                "      --exec-once[=ERRNO]  the workload's own start is the only execve or execveat allowed:\n"
                "                        every later one, by any process or thread under the filters, fails\n"
                "                        with ERRNO (a name such as EPERM, the default, or a number). The\n"
                "                        init supervises a filter's listener for it (Linux 5.7); not with\n"
                "                        --exec. The annotation io.oci-seccomp-tsync.exec=once[:ERRNO] asks\n"
                "                        for it under Podman and oci-seccomp-tsync-runtime; inject refuses\n"
                "                        a config that carries it (or any annotation a user sets for us)\n"
                "      --node-conf FILE  the node's policy (default %s, which may be absent): its layers\n"
                "                        come first, found by name in the profile directories\n"
                "      --profile-dir DIR where the node's layer names are looked up (repeatable; default\n"
                "                        %s, then %s)\n"
                "      --record OUT      record the calls the workload makes (every thread, child and ABI) and\n"
                "                        write them at the container's end as a profile to OUT (an absolute\n"
                "                        host path, outside the container's rootfs); the bundle keeps the\n"
                "                        recording in BUNDLE/oci-seccomp-tsync-record until then. Not with\n"
                "                        --exec-once, --exec, --no-hooks, notify agents or SCMP_ACT_TRACE\n"
                "      --record-input IN   start OUT from IN, any profile: its blocks stay\n"
                "      --record-format oci|docker  OUT's format (default oci: linux.seccomp's shape)\n"
                "      --record-errno EPERM|ENOSYS  OUT's defaultErrnoRet (default EPERM)\n"
                "      --init PATH       the static seccomp-tsync-init to mount (default: beside this program,\n"
                "                        or ../libexec/oci-seccomp-tsync/)\n"
                "      --cache-dir DIR   where the hook keeps compiled filters (default %s)\n"
                "      --no-cache        the hook compiles every time\n",
                PROGRAM, TSYNC_NODE_CONF, frontend_default_profile_dirs[0], frontend_default_profile_dirs[1],
                TSYNC_CACHE_DEFAULT_DIR);
}

/* Filters in the init's arguments: filter files an earlier
 * inject (with hooks) left in the bundle are stale now. */
static void remove_old_files(const char *bundle, const char *state_dir)
{
        struct tsync_plan old = { .delivery = TSYNC_DELIVERY_FILES, .state_dir = (char *)state_dir };
        struct tsync_plan_paths paths = { .state_root = TSYNC_STATE_ROOT, .bundle = bundle };
        struct tsync_err ignored = { 0 };
        if (tsync_deliver_clean(&old, &paths, &ignored) == 0)
                (void)rmdir(state_dir);
}

struct inject_opts {
        const char *bundle_arg;
        const char *node_conf; /* --node-conf, or NULL: TSYNC_NODE_CONF */
        const char *profile_dirs[TSYNC_MAX_LAYERS];
        size_t n_profile_dirs;
        const char *init;
        const char *cache_dir;
        bool no_cache;
        bool no_hooks;
        bool at_start;
};

/* The bundle's config.json, read only when it is a regular file: a bundle may
 * belong to whoever made it, and its config.json must not lead root's read
 * or write anywhere else. */
static int read_config(const char *path, struct tsync_json **ret, mode_t *ret_mode)
{
        struct tsync_err err = { 0 };
        struct stat st;
        if (lstat(path, &st) < 0) {
                frontend_errorf("inject", "%s: %s", path, strerror(errno));
                return -1;
        }
        if (!S_ISREG(st.st_mode)) {
                frontend_errorf("inject", "%s: %s: refusing to read or replace it", path,
                                S_ISLNK(st.st_mode)   ? "is a symbolic link"
                                : S_ISDIR(st.st_mode) ? "is a directory"
                                                      : "is not a regular file");
                return -1;
        }
        if (tsync_json_parse_file(path, TSYNC_CONFIG_LIMITS, ret, &err) < 0) {
                frontend_error("inject", &err);
                return -1;
        }
        *ret_mode = st.st_mode & 07777;
        return 0;
}

/* A bundle whose views a container holds (plan/views.h): config.json is the
 * exec view then (or an edit of it), and what inject wrote from the plan is
 * lent.json. */
static int read_held_config(int bundle_fd, const char *bundle, struct tsync_json **ret, mode_t *ret_mode,
                            bool *ret_held)
{
        struct tsync_err err = { 0 };
        _cleanup_(tsync_views_clear) struct tsync_views v = TSYNC_VIEWS_INIT;
        *ret_held = false;
        /* Views no container holds are written anew whatever is left of them. */
        if (!tsync_views_held(bundle_fd))
                return 0;
        int r = tsync_views_read(bundle_fd, bundle, &v, &err);
        if (r == 0)
                r = tsync_json_parse(v.lent, v.lent_len, TSYNC_CONFIG_LIMITS, ret, &err);
        if (r < 0) {
                frontend_error("inject", &err);
                return -1;
        }
        *ret_mode = v.config_mode;
        *ret_held = true;
        return 0;
}

/* The exec view's text (the same config with the original sets) and the
 * plan's summary, for the views (plan/views.h). */
static int views_text(const struct tsync_prepared *p, const struct tsync_json *config, char **ret_exec,
                      size_t *ret_exec_len, char **ret_summary, struct tsync_err *err)
{
        _cleanup_json_ struct tsync_json *lent = NULL, *exec = tsync_json_copy(config);
        if (!exec)
                return tsync_error(err, ENOMEM, "out of memory");
        int r = tsync_exec_view_lent_capabilities(p->plan, &lent, err);
        if (r == 0)
                r = tsync_exec_view_restore_lent(exec, p->plan, lent, NULL, err);
        if (r == 0)
                r = tsync_json_write(exec, true, ret_exec, ret_exec_len, err);
        if (r == 0 && !(*ret_summary = frontend_applied_text(p->plan, lent, NULL)))
                r = tsync_error(err, ENOMEM, "out of memory");
        return r;
}

/* Writes the rewritten config: with views (plan/views.h) when prepare says
 * the plan may have them (p->views) and the bundle's file system can
 * exchange two names; else config.json alone, and views of an earlier inject
 * go first (a crash between leaves the earlier config, which works without
 * them). */
static int write_config(int bundle_fd, const char *bundle, const struct tsync_prepared *p,
                        const struct tsync_json *config, mode_t mode, struct tsync_err *err)
{
        char config_path[PATH_MAX + 16];
        (void)snprintf(config_path, sizeof(config_path), "%s/config.json", bundle);
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r = tsync_json_write(config, true, &text, &len, err);
        if (r < 0)
                return r;
        int views = p->views;
        int had = tsync_views_present(bundle_fd);
        if (views)
                views = tsync_views_supported(bundle_fd, bundle, err);
        if (views < 0)
                return views;
        if (!views) {
                /* Refused while a container holds them: -EBUSY, naming it. */
                r = tsync_views_remove(bundle_fd, bundle, err);
                return r < 0 ? r : tsync_write_atomic(config_path, text, len, mode, true, err);
        }
        _cleanup_free_ char *exec = NULL, *summary = NULL;
        size_t exec_len = 0;
        r = views_text(p, config, &exec, &exec_len, &summary, err);
        if (r == 0) {
                struct tsync_views_text t = {
                        .lent = text, .lent_len = len, .exec = exec, .exec_len = exec_len, .summary = summary
                };
                r = tsync_views_write(bundle_fd, bundle, &t, mode, err);
        }
        /* Views this inject began are not left behind: with them the hooks would refuse the config. */
        if (r < 0 && had == 0) {
                struct tsync_err ignored = { 0 };
                (void)tsync_views_remove(bundle_fd, bundle, &ignored);
        }
        return r;
}

/* Everything after the bundle is locked and (for filter files) its state directory exists. */
static int inject_locked(const struct inject_opts *io, const struct tsync_request *req, int bundle_fd,
                         const char *bundle, const char *state_dir)
{
        bool files = req->delivery == TSYNC_DELIVERY_FILES;
        char init_path[PATH_MAX], self[PATH_MAX], config_path[PATH_MAX + 16];
        struct tsync_err err = { 0 };

        if (io->init ? !realpath(io->init, init_path) : frontend_find_init(init_path, sizeof(init_path)) < 0) {
                frontend_errorf("inject", "cannot find seccomp-tsync-init%s%s; give --init PATH",
                                io->init ? " at " : "", io->init ? io->init : "");
                return -1;
        }
        if (frontend_self_path(self, sizeof(self)) < 0) {
                frontend_errorf("inject", "cannot read /proc/self/exe: %s", strerror(errno));
                return -1;
        }
        (void)snprintf(config_path, sizeof(config_path), "%s/config.json", bundle);
        _cleanup_json_ struct tsync_json *config = NULL;
        mode_t mode;
        bool held;
        if (read_held_config(bundle_fd, bundle, &config, &mode, &held) < 0 ||
            (!held && read_config(config_path, &config, &mode) < 0))
                return -1;

        const char *hook_args[2];
        size_t n_hook_args = 0;
        if (io->no_cache)
                hook_args[n_hook_args++] = "--no-cache";
        else if (io->cache_dir) {
                hook_args[n_hook_args++] = "--cache-dir";
                hook_args[n_hook_args++] = io->cache_dir;
        }
        /* Our hooks go in only where the plan needs them (tsync_plan_apply). */
        struct tsync_rewrite_opts ro = {
                .init_path = init_path, .hook_path = self, .hook_args = hook_args, .n_hook_args = n_hook_args
        };
        /* No cache_dir: the plan is compiled uncached, so a refused inject (even
         * at the config's write) leaves the cache as it found it; createRuntime
         * fills it for filter files. Its request is the options': an
         * annotation asking for us is refused (tsync_annotations_check). */
        struct tsync_plan_paths paths = { .state_root = TSYNC_STATE_ROOT,
                                          .bundle = bundle,
                                          .hooks_cache_dir = io->no_cache ? NULL : io->cache_dir };
        struct tsync_prepare_opts po = { .fe = TSYNC_FRONTEND_INJECT,
                                         .req = req,
                                         .state_dir = state_dir,
                                         .paths = &paths,
                                         .flags = io->no_hooks ? TSYNC_PREPARE_NO_HOOKS : 0 };
        _cleanup_(tsync_prepared_clear) struct tsync_prepared p = { 0 };
        if (frontend_prepare(config, &po, &ro, config_path, &p) < 0)
                return -1;
        if (write_config(bundle_fd, bundle, &p, config, mode, &err) < 0)
                return frontend_unwritten(&p, "inject", &err);
        if (!files)
                remove_old_files(bundle, state_dir);
        frontend_written(&p, config, bundle);
        return 0;
}

static int inject(const struct inject_opts *io, const struct tsync_request *req)
{
        char bundle[PATH_MAX], state_dir[PATH_MAX + 32];
        if (!realpath(io->bundle_arg, bundle)) {
                frontend_errorf("inject", "%s: %s", io->bundle_arg, strerror(errno));
                return CLI_EXIT_FAILED;
        }
        (void)snprintf(state_dir, sizeof(state_dir), "%s/%s", bundle, TSYNC_BUNDLE_STATE);
        /* The hooks of a running container change config.json too (the exec view), under this lock. */
        _cleanup_close_ int lock = open(bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (lock < 0 || flock(lock, LOCK_EX) < 0) {
                frontend_errorf("inject", "%s: cannot lock: %s", bundle, strerror(errno));
                return CLI_EXIT_FAILED;
        }
        bool made_state_dir = req->delivery == TSYNC_DELIVERY_FILES && mkdir(state_dir, 0755) == 0;
        if (req->delivery == TSYNC_DELIVERY_FILES && !made_state_dir && errno != EEXIST) {
                frontend_errorf("inject", "%s: %s", state_dir, strerror(errno));
                return CLI_EXIT_FAILED;
        }
        if (inject_locked(io, req, lock, bundle, state_dir) == 0)
                return CLI_EXIT_OK;
        /* A refused inject leaves the bundle as it found it (the recording's
         * directory, when this inject made it: frontend_prepare, frontend_unwritten). */
        if (made_state_dir)
                (void)rmdir(state_dir);
        return CLI_EXIT_FAILED;
}

/* The node's layers (node.conf) go first, each profile once: found by
 * name in the profile directories, as absolute paths (what inject's layers
 * are) into node_paths, which must outlive req, and said in one line, since
 * inject's user did not name them. -1, or an exit code after saying why. */
static int add_node_layers(const struct inject_opts *io, struct tsync_request *req, char **node_paths)
{
        const char *path = io->node_conf ? io->node_conf : TSYNC_NODE_CONF;
        _cleanup_(tsync_node_policy_clear) struct tsync_node_policy node = { 0 };
        struct tsync_err err = { 0 };
        if (tsync_node_policy_read(path, &node, &err) < 0) {
                frontend_errorf("node policy", "%s", err.msg);
                return CLI_EXIT_FAILED;
        }
        struct tsync_plan_paths o = {
                .profile_dirs = io->n_profile_dirs ? io->profile_dirs : frontend_default_profile_dirs,
                .n_profile_dirs = io->n_profile_dirs ? io->n_profile_dirs : frontend_n_default_profile_dirs,
        };
        for (size_t i = 0; i < node.n_layers; i++) {
                _cleanup_free_ char *found = NULL;
                if (tsync_layer_find(&o, node.layers[i], &found, &err) < 0) {
                        frontend_errorf("node policy", "%s: %s", path, err.msg);
                        return CLI_EXIT_FAILED;
                }
                if (!(node_paths[i] = realpath(found, NULL))) {
                        frontend_errorf("node policy", "%s: %s", found, strerror(errno));
                        return CLI_EXIT_FAILED;
                }
        }
        if (tsync_node_layers_prepend(req, node_paths, node.n_layers, &err) < 0) {
                frontend_error("inject", &err);
                return CLI_EXIT_FAILED;
        }
        if (node.n_layers) {
                fprintf(stderr, "%s: inject: the node's layers (%s) come first:", PROGRAM, path);
                for (size_t i = 0; i < node.n_layers; i++)
                        fprintf(stderr, "%s %s", i ? "," : "", node.layers[i]);
                fputc('\n', stderr);
        }
        return -1;
}

/* --record and its companions: -1 when taken, else an exit code. */
static int record_option(struct tsync_record_request *rec, int opt, const char *arg)
{
        char **slot = opt == 'r' ? &rec->output : &rec->input;
        switch (opt) {
        case 'r':
        case 'i':
                free(*slot);
                if (!(*slot = strdup(arg))) {
                        frontend_errorf("inject", "out of memory");
                        return CLI_EXIT_FAILED;
                }
                if (arg[0] != '/') {
                        frontend_errorf("inject", "--%s %s: not an absolute path",
                                        opt == 'r' ? "record" : "record-input", arg);
                        return CLI_EXIT_USAGE;
                }
                return -1;
        case 'F':
                if (tsync_record_format_parse(arg, &rec->format) == 0)
                        return -1;
                frontend_errorf("inject", "--record-format %s: not oci or docker", arg);
                return CLI_EXIT_USAGE;
        default:
                if (tsync_record_errno_parse(arg, &rec->errno_ret) == 0)
                        return -1;
                frontend_errorf("inject", "--record-errno %s: not EPERM or ENOSYS", arg);
                return CLI_EXIT_USAGE;
        }
}

static int record_options_check(struct tsync_request *req, bool no_hooks)
{
        struct tsync_record_request *rec = &req->record;
        if (!rec->output && (rec->input || rec->format || rec->errno_ret)) {
                frontend_errorf("inject", "--record-input, --record-format and --record-errno go with --record OUT");
                return CLI_EXIT_USAGE;
        }
        if (!rec->output)
                return -1;
        if (!rec->errno_ret)
                rec->errno_ret = EPERM;
        struct tsync_err err = { 0 };
        if (tsync_record_check_request(rec, req->init.exec, req->init.exec_once, &err) < 0) {
                frontend_error("inject", &err);
                return CLI_EXIT_USAGE;
        }
        if (no_hooks) {
                frontend_errorf("inject", "--no-hooks and --record: the recording is written by the poststop hook");
                return CLI_EXIT_USAGE;
        }
        return -1;
}

int cmd_inject(int argc, char **argv)
{
        static const struct option options[] = { { "profile", required_argument, NULL, 'p' },
                                                 { "replace", no_argument, NULL, 'R' },
                                                 { "init", required_argument, NULL, 'I' },
                                                 { "cache-dir", required_argument, NULL, 'D' },
                                                 { "no-cache", no_argument, NULL, 'N' },
                                                 { "no-hooks", no_argument, NULL, 'H' },
                                                 { "compile-at-start", no_argument, NULL, 'S' },
                                                 { "exec", no_argument, NULL, 'E' },
                                                 { "exec-once", optional_argument, NULL, 'O' },
                                                 { "record", required_argument, NULL, 'r' },
                                                 { "record-input", required_argument, NULL, 'i' },
                                                 { "record-format", required_argument, NULL, 'F' },
                                                 { "record-errno", required_argument, NULL, 'e' },
                                                 { "node-conf", required_argument, NULL, 'n' },
                                                 { "profile-dir", required_argument, NULL, 'P' },
                                                 { "help", no_argument, NULL, 'h' },
                                                 {} };
        struct tsync_request req = { .delivery = TSYNC_DELIVERY_ARGS };
        struct inject_opts io = { 0 };
        /* What req.layers points at: --profile's files, the node's layers. */
        char *layers[TSYNC_MAX_LAYERS] = { NULL }, *node_paths[TSYNC_MAX_LAYERS] = { NULL };
        int opt, rc = -1;

        /* What inject wrote decides what a container gets: kept where it can be found later. */
        frontend_syslog_enable(0);
        while (rc < 0 && (opt = getopt_long(argc, argv, "p:h", options, NULL)) != -1) {
                switch (opt) {
                case 'p':
                        if (req.n_layers == TSYNC_MAX_LAYERS) {
                                frontend_errorf("inject", "at most %d layers", TSYNC_MAX_LAYERS);
                                rc = CLI_EXIT_FAILED;
                        } else if (!(layers[req.n_layers] = realpath(optarg, NULL))) {
                                frontend_errorf("inject", "--profile %s: %s", optarg, strerror(errno));
                                rc = CLI_EXIT_FAILED;
                        } else {
                                req.layers[req.n_layers] = layers[req.n_layers];
                                req.n_layers++;
                        }
                        break;
                case 'R':
                        req.mode = TSYNC_MODE_REPLACE;
                        break;
                case 'n':
                        io.node_conf = optarg;
                        break;
                case 'P':
                        if (io.n_profile_dirs == TSYNC_MAX_LAYERS) {
                                frontend_errorf("inject", "at most %d --profile-dir", TSYNC_MAX_LAYERS);
                                rc = CLI_EXIT_USAGE;
                        } else
                                io.profile_dirs[io.n_profile_dirs++] = optarg;
                        break;
                case 'I':
                        io.init = optarg;
                        break;
                case 'D':
                        io.cache_dir = optarg;
                        break;
                case 'N':
                        io.no_cache = true;
                        break;
                case 'H':
                        io.no_hooks = true;
                        break;
                case 'S':
                        io.at_start = true;
                        req.delivery = TSYNC_DELIVERY_FILES;
                        break;
                case 'E':
                        req.init.exec = true;
                        break;
                case 'O':
                        req.init.exec_once = TSYNC_EXEC_ONCE_DEFAULT_ERRNO;
                        if (optarg && tsync_exec_once_errno_parse(optarg, &req.init.exec_once) < 0) {
                                frontend_errorf("inject",
                                                "--exec-once=%s: not an errno name (EPERM, EACCES, ...) or a number "
                                                "from 1 to 4095",
                                                optarg);
                                rc = CLI_EXIT_USAGE;
                        }
                        break;
                case 'r':
                case 'i':
                case 'F':
                case 'e':
                        rc = record_option(&req.record, opt, optarg);
                        break;
                case 'h':
                        help(stdout);
                        rc = CLI_EXIT_OK;
                        break;
                default:
                        help(stderr);
                        rc = CLI_EXIT_USAGE;
                        break;
                }
        }
        if (rc < 0 && req.init.exec && req.init.exec_once) {
                frontend_errorf("inject", "--exec and --exec-once: exec once needs the init to stay and answer the "
                                          "workload's execs, which --exec gives up");
                rc = CLI_EXIT_USAGE;
        }
        if (rc < 0)
                rc = record_options_check(&req, io.no_hooks);
        if (rc < 0 && io.no_hooks && io.at_start) {
                frontend_errorf("inject", "--no-hooks and --compile-at-start: compiling at start needs the hooks");
                rc = CLI_EXIT_USAGE;
        }
        if (rc < 0 && optind + 1 != argc) {
                help(stderr);
                rc = CLI_EXIT_USAGE;
        }
        /* Every line logged from here on names the container's bundle. */
        char subject[PATH_MAX];
        if (rc < 0)
                frontend_log_subject(realpath(argv[optind], subject) ? subject : argv[optind]);
        if (rc < 0)
                rc = add_node_layers(&io, &req, node_paths);
        if (rc < 0) {
                io.bundle_arg = argv[optind];
                rc = inject(&io, &req);
        }
        for (size_t i = 0; i < TSYNC_MAX_LAYERS; i++) {
                free(layers[i]);
                free(node_paths[i]);
        }
        tsync_record_request_clear(&req.record);
        return rc;
}
