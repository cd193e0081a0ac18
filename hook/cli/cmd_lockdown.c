/* lockdown TARGET and lockdown --all: adds layers to every task of a
 * running container without a restart (issue 26), or the node's layers to
 * every container (issue 37). The container is found as status finds it
 * (status_target.c); here: options, the node's policy and compiling; one
 * container's run is lockdown_one.c's, every container's lockdown_all.c's. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lockdown_cli.h"
#include "node/node_conf.h"
#include "plan/plan.h"
#include "shared/cleanup.h"
#include "status_cli.h"

static void help(FILE *f)
{
        fprintf(f,
                "Usage: %s lockdown [OPTIONS] (--profile FILE | --layers NAMES)... TARGET\n"
                "       %s lockdown --all [--dry-run | --json | --watch] [--jobs N] [--or-kill] [--node-conf FILE]\n"
                "                 [--root DIR]... [--containerd-root DIR]... [--only-roots]\n"
                "Adds the layers to every thread of every process of a running container, without a restart:\n"
                "its cgroup is frozen, every task taken under ptrace, one thread of each process made to load\n"
                "the filters with SECCOMP_FILTER_FLAG_TSYNC, and every task checked before it is let go.\n"
                "Exit 0 when every task carries them; 1 naming each task that does not. A gVisor (runsc)\n"
                "container is refused: its workload's tasks run inside its sentry, not on the host. A second\n"
                "lockdown of the same container waits for the first.\n\n" TARGET_HELP "\n"
                "Options:\n"
                "  -p, --profile FILE     a profile to add (repeatable; in order, after --layers)\n"
                "  -l, --layers NAMES     profiles by name (comma-separated) in the profile directories\n"
                "      --profile-dir DIR  where names are looked up (repeatable; default /etc/oci-seccomp-tsync/\n"
                "                         profiles, then %s/share/oci-seccomp-tsync/profiles)\n"
                "      --set-no-new-privs set NO_NEW_PRIVS first in processes that have neither it nor\n"
                "                         CAP_SYS_ADMIN (setuid programs then stop gaining privilege);\n"
                "                         without it (or the node's no-new-privs = set) such a container\n"
                "                         is refused\n"
                "      --node-conf FILE   the node's policy (default %s, which may be absent): its\n"
                "                         no-new-privs = set acts as --set-no-new-privs\n"
                "      --or-kill          if any task could not be covered, kill the container\n"
                "      --cache-dir DIR    reuse and keep compiled programs in DIR\n"
                "      --no-cache         compile afresh\n\n"
                "--all: the node's layers (node.conf's layers) added to every running container the node's\n"
                "state roots name (as status --all finds them) that does not carry them yet; node.conf's\n"
                "exclude lines leave containers out. One line per container (covered, already covered,\n"
                "left out, refused or incomplete with why, gone) and a summary; exit 1 when any container is\n"
                "not covered. Each container is taken as `lockdown TARGET` takes it, in a process of its own.\n"
                "      --dry-run          judge each container, change nothing (exit 1: some would be covered\n"
                "                         or refused)\n"
                "      --json             one JSON object (schema/lockdown-all.schema.json)\n"
                "      --jobs N           containers taken at once (default %d, at most 64)\n"
                "      --root DIR         also a runtime's state root DIR (DIR/ID); repeatable\n"
                "      --containerd-root DIR  also a containerd shim's root DIR (DIR/NAMESPACE/ID); repeatable\n"
                "      --only-roots       only the roots given, not the node's\n"
                "      --watch            keep at it: a pass again whenever node.conf or a profile directory\n"
                "                         changes (read and compiled again first; a policy that cannot be read\n"
                "                         keeps the layers in force) or a state root gains a container (inotify;\n"
                "                         a pass each minute all the same); each action in the system log;\n"
                "                         until SIGINT, SIGTERM or SIGHUP (exit 0)\n",
                PROGRAM, PROGRAM, TSYNC_PREFIX, TSYNC_NODE_CONF, LOCKDOWN_ALL_JOBS);
}

static int compile(struct lockdown *l, char **names, size_t n_names, char **files, size_t n_files,
                   const char *const *dirs, size_t n_dirs, const char *cache_dir)
{
        struct tsync_plan_paths o = { .cache_dir = cache_dir, .profile_dirs = dirs, .n_profile_dirs = n_dirs };
        for (int pass = 0; pass < 2; pass++) {
                struct tsync_plan plan = { .mode = TSYNC_MODE_LAYER,
                                           .layers_by_name = pass == 0,
                                           .layers = pass == 0 ? names : files,
                                           .n_layers = pass == 0 ? n_names : n_files };
                if (!plan.n_layers)
                        continue;
                struct tsync_warnings w = { 0 };
                struct tsync_err err = { 0 };
                int r = tsync_plan_compile(&plan, &o, NULL, &l->progs[pass], &w, &err);
                frontend_warnings("lockdown", &w);
                if (r < 0) {
                        frontend_error("lockdown", &err);
                        return -1;
                }
                for (size_t i = 0; i < l->progs[pass].n; i++) {
                        const struct tsync_program *p = l->progs[pass].progs[i];
                        if (p->flags & SECCOMP_FILTER_FLAG_NEW_LISTENER || l->progs[pass].agent_host_path) {
                                frontend_errorf("lockdown",
                                                "%s: a profile with a notify listener cannot be added to a "
                                                "running container",
                                                plan.layers[i]);
                                return -1;
                        }
                        l->prog_name[l->n_prog] = plan.layers[i];
                        l->prog[l->n_prog++] = p;
                }
        }
        return 0;
}

/* What the watch needs to read the policy again. */
struct reload_ctx {
        struct tsync_node_policy *node; /* in force; replaced by a new one that compiles */
        const char *node_conf;
        const char *const *dirs;
        size_t n_dirs;
        const char *cache_dir;
        bool set_nnp; /* --set-no-new-privs was given */
};

/* node.conf again, and its layers compiled: in force only when both work,
 * so that a policy half written or broken keeps what was in force (said). */
static int reload(void *ctx, struct lockdown *l, struct lockdown_all_opts *o)
{
        struct reload_ctx *rc = ctx;
        struct tsync_node_policy next = { 0 };
        struct tsync_err err = { 0 };
        if (tsync_node_policy_read(rc->node_conf, &next, &err) < 0 || !next.n_layers) {
                if (!err.msg[0])
                        (void)tsync_error(&err, EINVAL, "%s names no layers", rc->node_conf);
                frontend_errorf("lockdown --watch", "%s; %s", err.msg,
                                l->n_prog ? "the layers in force stay" : "waiting for it to name layers");
                tsync_node_policy_clear(&next);
                return -1;
        }
        struct lockdown nl = { .n_prog = 0 };
        if (compile(&nl, next.layers, next.n_layers, NULL, 0, rc->dirs, rc->n_dirs, rc->cache_dir) < 0) {
                frontend_errorf("lockdown --watch", "%s: its layers do not compile; the layers in force stay",
                                rc->node_conf);
                tsync_plan_programs_clear(&nl.progs[0]);
                tsync_node_policy_clear(&next);
                return -1;
        }
        tsync_plan_programs_clear(&l->progs[0]);
        tsync_plan_programs_clear(&l->progs[1]);
        l->progs[0] = nl.progs[0];
        l->progs[1] = (struct tsync_plan_programs){ 0 };
        memcpy(l->prog, nl.prog, sizeof(l->prog));
        memcpy(l->prog_name, nl.prog_name, sizeof(l->prog_name));
        l->n_prog = nl.n_prog;
        l->set_nnp = rc->set_nnp || next.nnp == TSYNC_NODE_NNP_SET;
        tsync_node_policy_clear(rc->node);
        *rc->node = next;
        o->policy = rc->node;
        return 0;
}

int cmd_lockdown(int argc, char **argv)
{
        enum {
                OPT_PROFILE_DIR = TARGET_OPT_END,
                OPT_NNP,
                OPT_OR_KILL,
                OPT_CACHE,
                OPT_NO_CACHE,
                OPT_NODE_CONF,
                OPT_ALL,
                OPT_DRY_RUN,
                OPT_JSON,
                OPT_JOBS,
                OPT_ONLY_ROOTS,
                OPT_WATCH,
        };
        static const struct option options[] = { TARGET_OPTIONS,
                                                 { "profile", required_argument, NULL, 'p' },
                                                 { "layers", required_argument, NULL, 'l' },
                                                 { "profile-dir", required_argument, NULL, OPT_PROFILE_DIR },
                                                 { "set-no-new-privs", no_argument, NULL, OPT_NNP },
                                                 { "or-kill", no_argument, NULL, OPT_OR_KILL },
                                                 { "cache-dir", required_argument, NULL, OPT_CACHE },
                                                 { "no-cache", no_argument, NULL, OPT_NO_CACHE },
                                                 { "node-conf", required_argument, NULL, OPT_NODE_CONF },
                                                 { "all", no_argument, NULL, OPT_ALL },
                                                 { "dry-run", no_argument, NULL, OPT_DRY_RUN },
                                                 { "json", no_argument, NULL, OPT_JSON },
                                                 { "jobs", required_argument, NULL, OPT_JOBS },
                                                 { "only-roots", no_argument, NULL, OPT_ONLY_ROOTS },
                                                 { "watch", no_argument, NULL, OPT_WATCH },
                                                 { "help", no_argument, NULL, 'h' },
                                                 {} };
        struct lockdown l = { .t = { .kind = NULL }, .lock = -1, .dog = { .sock = -1 } };
        char *names[TSYNC_MAX_LAYERS], *files[TSYNC_MAX_LAYERS];
        size_t n_names = 0, n_files = 0, n_dirs = 0;
        const char *dirs[TSYNC_MAX_LAYERS];
        char cache_buf[PATH_MAX];
        const char *cache_dir = frontend_default_cache_dir(cache_buf, sizeof(cache_buf));
        const char *node_conf = NULL;
        /* Before any goto: the cleanup runs at out. */
        _cleanup_(tsync_node_policy_clear) struct tsync_node_policy node = { 0 };
        int opt, code = CLI_EXIT_USAGE;
        _cleanup_free_ char *layer_arg = NULL;
        bool all = false, json = false, only_roots = false, watch = false, set_nnp_given = false;
        unsigned jobs = LOCKDOWN_ALL_JOBS;
        while ((opt = getopt_long(argc, argv, "p:l:h", options, NULL)) != -1) {
                int taken = target_option(&l.t, opt, optarg);
                if (taken < 0)
                        goto out;
                if (taken)
                        continue;
                switch (opt) {
                case 'p': {
                        if (n_files == TSYNC_MAX_LAYERS) {
                                frontend_errorf("--profile", "more than %d", TSYNC_MAX_LAYERS);
                                goto out;
                        }
                        char *abs = realpath(optarg, NULL);
                        if (!abs) {
                                frontend_errorf(optarg, "%s", strerror(errno));
                                code = CLI_EXIT_FAILED;
                                goto out;
                        }
                        files[n_files++] = abs;
                        break;
                }
                case 'l':
                        free(layer_arg);
                        layer_arg = strdup(optarg);
                        if (!layer_arg) {
                                frontend_errorf("--layers", "out of memory");
                                goto out;
                        }
                        n_names = 0;
                        for (char *s, *tok = strtok_r(layer_arg, ",", &s); tok; tok = strtok_r(NULL, ",", &s)) {
                                if (n_names == TSYNC_MAX_LAYERS) {
                                        frontend_errorf("--layers", "more than %d", TSYNC_MAX_LAYERS);
                                        goto out;
                                }
                                names[n_names++] = tok;
                        }
                        break;
                case OPT_PROFILE_DIR:
                        if (n_dirs == TSYNC_MAX_LAYERS) {
                                frontend_errorf("--profile-dir", "more than %d", TSYNC_MAX_LAYERS);
                                goto out;
                        }
                        dirs[n_dirs++] = optarg;
                        break;
                case OPT_NNP:
                        l.set_nnp = set_nnp_given = true;
                        break;
                case OPT_OR_KILL:
                        l.or_kill = true;
                        break;
                case OPT_CACHE:
                        cache_dir = optarg;
                        break;
                case OPT_NO_CACHE:
                        cache_dir = NULL;
                        break;
                case OPT_NODE_CONF:
                        node_conf = optarg;
                        break;
                case OPT_ALL:
                        all = true;
                        break;
                case OPT_DRY_RUN:
                        l.dry_run = true;
                        break;
                case OPT_JSON:
                        json = true;
                        break;
                case OPT_ONLY_ROOTS:
                        only_roots = true;
                        break;
                case OPT_WATCH:
                        watch = true;
                        break;
                case OPT_JOBS: {
                        char *end;
                        unsigned long v = strtoul(optarg, &end, 10);
                        if (*optarg < '0' || *optarg > '9' || *end || v < 1 || v > 64) {
                                frontend_errorf("--jobs", "'%s': a number from 1 to 64", optarg);
                                goto out;
                        }
                        jobs = (unsigned)v;
                        break;
                }
                case 'h':
                        help(stdout);
                        code = CLI_EXIT_OK;
                        goto out;
                default:
                        help(stderr);
                        goto out;
                }
        }
        if (all) {
                if (l.t.n_given || optind < argc || l.t.runtime || n_names + n_files) {
                        frontend_errorf("lockdown", "--all adds the node's layers (node.conf's layers): it takes no "
                                                    "TARGET, --runtime, --layers or --profile");
                        goto out;
                }
                if (only_roots && l.t.n_roots == 0) {
                        frontend_errorf("lockdown", "--only-roots needs --root or --containerd-root");
                        goto out;
                }
                if (watch && (l.dry_run || json)) {
                        frontend_errorf("lockdown", "--watch keeps the node covered: not with --dry-run or --json");
                        goto out;
                }
        } else if (l.t.n_roots > l.t.n_runtime_roots || only_roots || l.dry_run || json || watch ||
                   jobs != LOCKDOWN_ALL_JOBS) {
                frontend_errorf("lockdown",
                                "--containerd-root, --only-roots, --dry-run, --json, --jobs and --watch go with --all");
                goto out;
        }
        /* The watch says every action in the system log, from its first line on. */
        if (watch)
                frontend_syslog_enable(0);
        if (!all && target_finish(&l.t, "lockdown", argc, argv, optind) < 0)
                goto out;
        if (!all && n_names + n_files == 0) {
                frontend_errorf("lockdown", "nothing to add: give --profile FILE or --layers NAMES");
                goto out;
        }
        if (n_dirs == 0)
                for (size_t i = 0; i < frontend_n_default_profile_dirs; i++)
                        dirs[n_dirs++] = frontend_default_profile_dirs[i];
        code = CLI_EXIT_FAILED;
        struct tsync_err err = { 0 };
        /* A machine the injection is not written for: refused before the
         * node's policy, the layers or any container is read. */
        if (tsync_lockdown_supported(&err) < 0) {
                frontend_error("lockdown", &err);
                goto out;
        }
        /* What the node wants for a process that cannot take a filter as it
         * is; a policy that cannot be read is never "no policy". */
        l.node_conf = node_conf ? node_conf : TSYNC_NODE_CONF;
        if (tsync_node_policy_read(l.node_conf, &node, &err) < 0) {
                frontend_errorf("node policy", "%s", err.msg);
                goto out;
        }
        if (node.nnp == TSYNC_NODE_NNP_SET)
                l.set_nnp = true;
        if (all) {
                /* The watch waits for a policy that names layers (a node's
                 * DaemonSet may start it before the policy is in place). */
                if (!node.n_layers && watch) {
                        frontend_warnf("lockdown --watch", "%s names no layers (%s): waiting for it to", l.node_conf,
                                       node.present ? "no layers line" : "it does not exist");
                } else if (!node.n_layers) {
                        frontend_errorf("lockdown --all", "%s names no layers: nothing to add (%s)", l.node_conf,
                                        node.present ? "write layers = NAME[,NAME...]" : "it does not exist");
                        goto out;
                }
                for (size_t i = 0; i < node.n_layers; i++)
                        names[i] = node.layers[i];
                n_names = node.n_layers;
        }
        if (compile(&l, names, n_names, files, n_files, dirs, n_dirs, cache_dir) < 0)
                goto out;
        if (all) {
                l.only_missing = true;
                struct lockdown_all_opts o = {
                        .json = json,
                        .jobs = jobs,
                        .find = { .roots = l.t.roots, .n_roots = l.t.n_roots, .only_roots = only_roots },
                        .node_conf = l.node_conf,
                        .policy = &node,
                };
                if (watch) {
                        struct reload_ctx rc = { .node = &node,
                                                 .node_conf = o.node_conf,
                                                 .dirs = dirs,
                                                 .n_dirs = n_dirs,
                                                 .cache_dir = cache_dir,
                                                 .set_nnp = set_nnp_given };
                        o.quiet = true;
                        code = lockdown_watch(&l, &o, dirs, n_dirs, reload, &rc);
                } else {
                        code = lockdown_all(&l, &o);
                }
        } else {
                code = lockdown_container(&l);
        }
out:
        for (size_t i = 0; i < n_files; i++)
                free(files[i]);
        tsync_plan_programs_clear(&l.progs[0]);
        tsync_plan_programs_clear(&l.progs[1]);
        free(l.t.config_path);
        free(l.t.config_shown);
        return code;
}
