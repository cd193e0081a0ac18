/* oci-seccomp-tsync status TARGET: what protects a running container, task
 * by task. Finds the container's pid and config through its runtime or
 * engine (status_target.c), reads the kernel's view and decides (hook/status/
 * status*.c), then prints: a table or JSON on stdout (status_print.c,
 * schema/status.schema.json), one line per shortfall on stderr, and an exit
 * code a script can act on. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/cleanup.h"
#include "status/status.h"
#include "status_cli.h"
#include "util/json.h"

static void help(FILE *f)
{
        fprintf(f,
                "Usage: %s status [OPTIONS] TARGET\n"
                "       %s status --all [OPTIONS] [--root DIR]... [--containerd-root DIR]... [--only-roots]\n"
                "Says what protects a running container, task by task: whether its PID 1 is our init, which\n"
                "seccomp filters every thread of every process carries against what its plan (or its\n"
                "annotations) asked, NoNewPrivs and capabilities against the config's, the exec-once\n"
                "supervisor and the recorder. Processes are those of the container's pid namespace.\n\n" TARGET_HELP
                "\n"
                "Every container of the node:\n"
                "      --all             every running, paused or created container whose runtime keeps its\n"
                "                        state where we look, judged as one TARGET is, one line each (engine,\n"
                "                        state, pid, our init or not, verdict, name or id): runc's and crun's\n"
                "                        roots (/run/runc, /run/crun; Podman's too), containerd's\n"
                "                        (/run/containerd/runc/NAMESPACE: k8s.io is Kubernetes', moby\n"
                "                        Docker's), Docker's (/run/docker/runtime-runc), the roots the runtime\n"
                "                        wrapper's records name, rootless users' (/run/user/UID/runc, crun).\n"
                "                        An entry is believed only when its pid started when it says; what\n"
                "                        is not believed is one warning line on stderr\n"
                "      --root DIR        with --all: also a runtime's state root DIR (DIR/ID); repeatable\n"
                "      --containerd-root DIR\n"
                "                        with --all: also a containerd shim's root DIR (DIR/NAMESPACE/ID);\n"
                "                        repeatable\n"
                "      --only-roots      with --all: only the roots given, not the node's\n"
                "      --node-conf FILE  with --all: the node's policy (default %s, which may be\n"
                "                        absent): each container must carry its layers unless it leaves it out\n"
                "\n"
                "Options:\n"
                "      --config FILE     with --pid: its config.json (without, what our init was told, less\n"
                "                        the runtime's own filter)\n"
                "      --json            one JSON document on stdout (schema/status.schema.json)\n"
                "      --no-programs     do not stop PID 1 for a moment to read its seccomp programs\n"
                "                        (PTRACE_SECCOMP_GET_FILTER) and compare them with its filter files\n"
                "                        and with what the plan compiles to now\n"
                "      --profile-dir DIR where the plan's layer names are, as the hook's --profile-dir\n"
                "                        (repeatable; default: the hook's own default directories)\n"
                "  -h, --help            this text\n\n"
                "Exit status: 0 every task carries what was asked; 1 something carries less (one line per\n"
                "shortfall on stderr), or the container asked for oci-seccomp-tsync and our init never ran\n"
                "(\"unprotected\": hooks.d not found, or not our runtime wrapper); 2 bad command line; 3 the\n"
                "container asks nothing of oci-seccomp-tsync; 4 the container could not be read.\n"
                "With --all: 0 every container carries what it asked, or asks nothing of us, or stopped\n"
                "while it was read, and carries the node's layers unless node.conf leaves it out; 1 some\n"
                "container is short, unprotected, unverified or could not be read, or lacks the node's\n"
                "layers; 2 bad command line; 4 the node's state roots or its policy could not be read.\n",
                PROGRAM, PROGRAM, TSYNC_NODE_CONF);
}

static int status(struct target *t, bool json, bool programs)
{
        struct tsync_err err = { 0 };
        _cleanup_(status_result_clear) struct status_result res = { 0 };
        if (status_judge(t, programs, &res, &err) < 0) {
                frontend_error(t->what, &err);
                return STATUS_EXIT_UNKNOWN;
        }
        int code = res.code;
        if (json) {
                int r = status_print_json(t, &res.st, &res.e, &res.rec, &res.shortfalls, res.v, code);
                if (r < 0) {
                        frontend_errorf(t->what, "writing JSON: %s", strerror(-r));
                        code = STATUS_EXIT_UNKNOWN;
                }
        } else {
                status_print_text(t, &res.st, &res.e, &res.rec, res.v);
        }
        (void)fflush(stdout);
        status_print_shortfalls(t->what, &res);
        return code;
}

int cmd_status(int argc, char **argv)
{
        enum {
                OPT_CONFIG = TARGET_OPT_END,
                OPT_JSON,
                OPT_NO_PROGRAMS,
                OPT_PROFILE_DIR,
                OPT_ALL,
                OPT_ONLY_ROOTS,
                OPT_NODE_CONF
        };
        static const struct option options[] = { TARGET_OPTIONS,
                                                 { "all", no_argument, NULL, OPT_ALL },
                                                 { "only-roots", no_argument, NULL, OPT_ONLY_ROOTS },
                                                 { "node-conf", required_argument, NULL, OPT_NODE_CONF },
                                                 { "config", required_argument, NULL, OPT_CONFIG },
                                                 { "json", no_argument, NULL, OPT_JSON },
                                                 { "no-programs", no_argument, NULL, OPT_NO_PROGRAMS },
                                                 { "profile-dir", required_argument, NULL, OPT_PROFILE_DIR },
                                                 { "help", no_argument, NULL, 'h' },
                                                 {} };
        struct target t = { .kind = NULL };
        const char *config = NULL, *node_conf = NULL;
        bool json = false, programs = true, all = false, only_roots = false;
        int opt;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                int taken = target_option(&t, opt, optarg);
                if (taken < 0)
                        return STATUS_EXIT_USAGE;
                if (taken)
                        continue;
                switch (opt) {
                case OPT_CONFIG:
                        config = optarg;
                        break;
                case OPT_ALL:
                        all = true;
                        break;
                case OPT_ONLY_ROOTS:
                        only_roots = true;
                        break;
                case OPT_NODE_CONF:
                        node_conf = optarg;
                        break;
                case OPT_JSON:
                        json = true;
                        break;
                case OPT_NO_PROGRAMS:
                        programs = false;
                        break;
                case OPT_PROFILE_DIR:
                        if (t.n_profile_dirs == TSYNC_MAX_LAYERS) {
                                frontend_errorf("--profile-dir", "more than %d", TSYNC_MAX_LAYERS);
                                return STATUS_EXIT_USAGE;
                        }
                        t.profile_dirs[t.n_profile_dirs++] = optarg;
                        break;
                case 'h':
                        help(stdout);
                        return STATUS_EXIT_PROTECTED;
                default:
                        help(stderr);
                        return STATUS_EXIT_USAGE;
                }
        }
        if (all) {
                if (t.n_given || optind < argc || t.runtime || config) {
                        frontend_errorf("status", "--all takes no TARGET, --runtime or --config");
                        return STATUS_EXIT_USAGE;
                }
                if (only_roots && t.n_roots == 0) {
                        frontend_errorf("status", "--only-roots needs --root or --containerd-root");
                        return STATUS_EXIT_USAGE;
                }
                struct status_all_opts o = {
                        .json = json,
                        .programs = programs,
                        .like = &t,
                        .find = { .roots = t.roots, .n_roots = t.n_roots, .only_roots = only_roots },
                        .node_conf = node_conf,
                };
                return status_all(&o);
        }
        if (t.n_roots > t.n_runtime_roots || only_roots || node_conf) {
                frontend_errorf("status", "--containerd-root, --only-roots and --node-conf go with --all");
                return STATUS_EXIT_USAGE;
        }
        if (target_finish(&t, "status", argc, argv, optind) < 0)
                return STATUS_EXIT_USAGE;
        if (config && strcmp(t.kind, "pid") != 0) {
                frontend_errorf("status", "--config goes with --pid (the runtime or engine names the config)");
                return STATUS_EXIT_USAGE;
        }
        if (config && !(t.config_path = strdup(config))) {
                frontend_errorf("status", "out of memory");
                return STATUS_EXIT_UNKNOWN;
        }
        int code = status(&t, json, programs);
        free(t.config_path);
        free(t.config_shown);
        return code;
}
