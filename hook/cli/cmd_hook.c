/* The OCI hook stages. Messages: "oci-seccomp-tsync: <container id>: <what>: <why>". */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/agent_deliver.h"
#include "agent/relay.h"
#include "cli.h"
#include "frontend/pipeline.h"
#include "node/node_conf.h"
#include "node/node_layers.h"
#include "plan/deliver.h"
#include "plan/exec_view_bundle.h"
#include "plan/oci_state.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "plan/stage.h"
#include "shared/cleanup.h"
#include "translate/cache.h"
#include "util/fileio.h"
#include "util/json_build.h"

struct hook_opts {
        enum tsync_stage stage;
        const char *cache_dir;
        const char *profile_dirs[8];
        size_t n_profile_dirs;
        const char *state_root;
        const char *init;
        bool no_sync;
        const char *record_root; /* precreate's recording directories (plan_record.h) */
        const char *node_conf;   /* precreate: the node's policy (--node-conf), or NULL: TSYNC_NODE_CONF */
        bool record_at_delete;   /* poststop: the runtime wrapper's delete writes the recording */
};

static void help(FILE *f)
{
        fprintf(f,
                "Usage: %s hook STAGE [OPTIONS]\n"
                "The OCI hook. STAGE is one of:\n"
                "  precreate       the runtime config on stdin, the rewritten config on stdout (Podman, CRI-O);\n"
                "                  the request comes from the annotations below; the filters travel in the\n"
                "                  init's arguments\n"
                "  prestart, createRuntime\n"
                "                  the OCI state on stdin: compile the filters the config's plan names and hand\n"
                "                  them to the container\n"
                "  poststop        the OCI state on stdin: remove the container's filter files\n\n"
                "  --cache-dir DIR    compiled-filter cache (default %s for root, else\n"
                "                     $XDG_CACHE_HOME/oci-seccomp-tsync or ~/.cache/oci-seccomp-tsync;\n"
                "                     rootless Podman's hooks run as the user, in its namespace)\n"
                "  --no-cache         compile every time\n"
                "  --profile-dir DIR  where layer names are looked up (repeatable; default %s, then %s;\n"
                "                     a rootless engine's hooks then also look in the user's\n"
                "                     ~/.config/oci-seccomp-tsync/profiles, or $XDG_CONFIG_HOME's)\n"
                "  --state-root DIR   per-container filter directories an older precreate made (default %s)\n"
                "  --init PATH        the static seccomp-tsync-init to mount (precreate)\n"
                "  --no-sync          createRuntime, poststop: rewrite config.json for the exec view without\n"
                "                     fsync, for an engine that writes it anew at every start (Podman, CRI-O;\n"
                "                     the hooks.d files pass it)\n"
                "  --record-root DIR  precreate, poststop: where recordings asked for by the annotation\n"
                "                     %s wait for poststop (default %s; a rootless\n"
                "                     engine's: ~/.local/share/oci-seccomp-tsync/record)\n"
                "  --record-at-delete poststop: leave the recording to %s's delete, which\n"
                "                     writes it once the runtime has deleted the container (it adds this)\n"
                "  --node-conf FILE   precreate: the node's policy (default %s, which may be absent):\n"
                "                     its layers come first, before the annotation's\n\n"
                "The annotations precreate reads (see oci-seccomp-tsync(5)):\n",
                PROGRAM, TSYNC_CACHE_DEFAULT_DIR, frontend_default_profile_dirs[0], frontend_default_profile_dirs[1],
                TSYNC_STATE_ROOT, TSYNC_ANNOTATION_RECORD, TSYNC_RECORD_ROOT, "oci-seccomp-tsync-runtime",
                TSYNC_NODE_CONF);
        /* From the one table, so that help and parser never disagree. */
        for (size_t i = 0; i < tsync_annotation_count; i++) {
                const struct tsync_annotation_def *a = &tsync_annotation_table[i];
                if (a->setter == TSYNC_ANNOTATION_BY_USER && !a->refused[TSYNC_FRONTEND_PRECREATE])
                        fprintf(f, "  %-37s %s\n", a->name, a->value);
        }
}

/* The bundle's config.json, read once under the bundle's lock (c), and its plan. */
static int load_plan(const struct tsync_oci_state *st, struct tsync_bundle_config *c, struct tsync_plan **ret,
                     struct tsync_err *err)
{
        int r = tsync_bundle_config_read(st->bundle, c, err);
        if (r < 0)
                return r;
        r = tsync_plan_from_config(c->doc, ret, err);
        if (r < 0 && r != -ENOENT)
                return tsync_error_prefix(err, "%s/config.json", st->bundle);
        return r;
}

static void plan_paths(const struct hook_opts *h, const struct tsync_oci_state *st, struct tsync_plan_paths *o)
{
        *o = (struct tsync_plan_paths){ .cache_dir = h->cache_dir,
                                        .profile_dirs = h->profile_dirs,
                                        .n_profile_dirs = h->n_profile_dirs,
                                        .state_root = h->state_root,
                                        .bundle = st ? st->bundle : NULL,
                                        .record_root = h->record_root };
}

/* What every stage after precreate starts from: the OCI state on stdin, the
 * bundle's config.json (c, read once under its lock) and its plan, the host
 * paths. 0; 1 when the config has no plan and that is fine (missing_ok); 2
 * when the bundle has inject's views and the stage is done with them
 * (nothing else read); -1 after printing why not. */
static int stage_begin(const struct hook_opts *h, bool missing_ok, struct tsync_oci_state *st,
                       struct tsync_json **ret_doc, struct tsync_bundle_config *c, struct tsync_plan **ret,
                       struct tsync_plan_paths *o)
{
        struct tsync_err err = { 0 };
        if (tsync_oci_state_read(STDIN_FILENO, st, ret_doc, &err) < 0) {
                frontend_error(tsync_stage_name(h->stage), &err);
                return -1;
        }
        frontend_log_subject(st->id);
        int r = frontend_views_stage(st->id, st->bundle, h->stage);
        if (r != 0)
                return r < 0 ? -1 : 2;
        r = load_plan(st, c, ret, &err);
        if (r == -ENOENT && missing_ok)
                return 1;
        if (r < 0) {
                frontend_error(st->id, &err);
                return -1;
        }
        plan_paths(h, st, o);
        return 0;
}

/* Only this stage knows what a notify agent is told about the container
 * (the host pid above all), and it runs before the container's init: a
 * relay (agent/relay.h) listens in the container's private tmpfs for the
 * init alone and hands its listener to the agent from the host, or hands the
 * init a recording's file. Opened here (so that it listens before the hook
 * returns) and started last. */
static int open_relay(const struct tsync_plan *plan, const struct tsync_plan_programs *progs,
                      struct tsync_bundle_config *c, const struct tsync_oci_state *st, const struct tsync_json *state,
                      struct tsync_relay *ret, struct tsync_err *err)
{
        /* Filter files are compiled now: a profile changed since the rewrite
         * must still name the agent the plan was written for. */
        const char *compiled = plan->delivery == TSYNC_DELIVERY_FILES ? progs->agent_host_path : plan->listener_path;
        if ((compiled == NULL) != (plan->listener_path == NULL) ||
            (compiled && strcmp(compiled, plan->listener_path) != 0))
                return tsync_error(err, EINVAL,
                                   "listenerPath: the profiles now name %s%s%s, the config was written for %s%s%s: "
                                   "inject again",
                                   compiled ? "'" : "", compiled ? compiled : "no agent", compiled ? "'" : "",
                                   plan->listener_path ? "'" : "",
                                   plan->listener_path ? plan->listener_path : "no agent",
                                   plan->listener_path ? "'" : "");
        if (!plan->listener_path && !plan->record.req.output)
                return 0;
        /* The relay reads the whole config. */
        int r = tsync_bundle_config_full(c, st->bundle, err);
        const struct tsync_json *config = c->doc;
        if (r == 0)
                r = tsync_agent_check_config(config, plan, err);
        if (r == 0)
                r = tsync_relay_open(state, config, st->bundle, plan->listener_path,
                                     plan->record.req.output ? plan->record.dir : NULL, ret, err);
        return r;
}

static int stage_create(const struct hook_opts *h)
{
        struct tsync_err err = { 0 };
        struct tsync_oci_state st;
        struct tsync_plan_paths o;
        _cleanup_plan_ struct tsync_plan *plan = NULL;
        _cleanup_json_ struct tsync_json *state = NULL;
        _cleanup_(tsync_bundle_config_clear) struct tsync_bundle_config config = TSYNC_BUNDLE_CONFIG_INIT;
        int r = stage_begin(h, false, &st, &state, &config, &plan, &o);
        if (r < 0)
                return CLI_EXIT_FAILED;
        if (r == 2)
                return CLI_EXIT_OK;
        struct tsync_warnings w = { 0 };
        struct tsync_plan_programs progs = { 0 };
        /* Filters in the init's arguments were compiled when the config was written. */
        if (plan->delivery == TSYNC_DELIVERY_FILES)
                r = tsync_plan_compile(plan, &o, NULL, &progs, &w, &err);
        frontend_warnings(st.id, &w);
        if (r == 0)
                r = tsync_deliver(plan, &o, &progs, &err);
        struct tsync_relay relay = TSYNC_RELAY_INIT;
        if (r == 0)
                r = open_relay(plan, &progs, &config, &st, state, &relay, &err);
        tsync_plan_programs_clear(&progs);
        bool delivered = r == 0;
        /* The sets lent to the init, built once: for the exec view and the log line. */
        _cleanup_json_ struct tsync_json *lent = NULL;
        if (delivered)
                r = tsync_exec_view_lent_capabilities(plan, &lent, &err);
        /* Last: a refused start must not leave the exec view changed. */
        if (r == 0 && delivered)
                r = tsync_exec_view_start(plan, lent, &config, st.id, st.bundle, !h->no_sync, &err);
        /* Listening already; from here on it serves on its own. */
        if (r == 0 && relay.pidfd >= 0) {
                r = cli_relay_start(&relay, &err);
                if (r < 0) {
                        struct tsync_err ignored = { 0 };
                        (void)tsync_exec_view_stop(plan, lent, &config, st.id, st.bundle, !h->no_sync, &ignored);
                }
        }
        tsync_relay_clear(&relay);
        if (r < 0) {
                frontend_error(st.id, &err);
                /* Leave nothing half-written behind: the container will not start
                 * (but never clean a directory delivery refused as not ours). */
                struct tsync_err ignored = { 0 };
                if (delivered || r != -EPERM)
                        (void)tsync_deliver_clean(plan, &o, &ignored);
                return CLI_EXIT_FAILED;
        }
        frontend_log_applied_lent(st.id, tsync_stage_name(h->stage), plan, lent);
        return CLI_EXIT_OK;
}

static int stage_poststop(const struct hook_opts *h)
{
        struct tsync_err err = { 0 };
        struct tsync_oci_state st;
        struct tsync_plan_paths o;
        _cleanup_plan_ struct tsync_plan *plan = NULL;
        _cleanup_(tsync_bundle_config_clear) struct tsync_bundle_config config = TSYNC_BUNDLE_CONFIG_INIT;
        int r = stage_begin(h, true, &st, NULL, &config, &plan, &o);
        /* inject's views exchanged back (inject writes them only for a plan
         * whose hooks keep the exec view alone), or the bundle or its plan
         * gone already: nothing of ours is left. */
        if (r > 0)
                return CLI_EXIT_OK;
        if (r < 0)
                return CLI_EXIT_FAILED;
        _cleanup_json_ struct tsync_json *lent = NULL;
        r = tsync_exec_view_lent_capabilities(plan, &lent, &err);
        if (r == 0)
                r = tsync_exec_view_stop(plan, lent, &config, st.id, st.bundle, !h->no_sync, &err);
        if (r < 0)
                frontend_error(st.id, &err);
        /* The bundle's lock is for its config.json alone: not held while a recording is written. */
        tsync_bundle_config_clear(&config);
        if (tsync_deliver_clean(plan, &o, &err) < 0) {
                frontend_error(st.id, &err);
                r = -1;
        }
        /* A recording becomes its profile (record_stop.c), here or, for a
         * container the runtime wrapper started, at its delete (which sees
         * whether the runtime's delete succeeded, and says it in one line). */
        if (!h->record_at_delete && frontend_record_stop(plan, &o, st.id, st.bundle) < 0)
                r = -1;
        return r < 0 ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

/* Whether an annotation of the config is under our prefix (one that asks,
 * one misspelt, or a plan, which only we may write). */
static bool names_us(const struct tsync_json *config)
{
        const struct tsync_json *a = tsync_json_get(config, "annotations");
        size_t n = strlen(TSYNC_ANNOTATION_PREFIX);
        for (size_t i = 0; a && a->type == TSYNC_JSON_OBJECT && i < a->u.object.len; i++)
                if (strncmp(a->u.object.keys[i], TSYNC_ANNOTATION_PREFIX, n) == 0)
                        return true;
        return false;
}

static int write_stdout(const struct tsync_json *config, struct tsync_err *err)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        if (tsync_json_write(config, false, &text, &len, err) < 0)
                return -1;
        if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
                return tsync_error_errno(err, "writing the config to stdout");
        return 0;
}

/* Precreate once the config is read and the init found. The filters travel
 * in the init's arguments, so nothing is kept on the host: the createRuntime
 * and poststop stages (hooks.d files too) only keep the exec view, and
 * createRuntime refuses a config without a plan (an engine that does not run
 * precreate must not start the container without its filters). */
static int precreate(const struct hook_opts *h, struct tsync_json *config, const char *init_path, const char *where)
{
        struct tsync_err err = { 0 };
        struct tsync_request req = { 0 };
        /* The node's layers go to every container: Podman gives the hook
         * neither the container's name nor its id, so no exclude line can
         * name it here. */
        _cleanup_(tsync_node_policy_clear) struct tsync_node_policy node = { 0 };
        if (tsync_node_policy_read(h->node_conf ? h->node_conf : TSYNC_NODE_CONF, &node, &err) < 0) {
                frontend_errorf("node policy", "%s", err.msg);
                return -1;
        }
        /* Under a hooks.d entry that runs for every container (the node's,
         * docs/node-policy.md): one that asks nothing of us goes on as it is. */
        if (!node.n_layers && !names_us(config)) {
                if (write_stdout(config, &err) == 0)
                        return 0;
                frontend_error(where, &err);
                return -1;
        }
        if (tsync_request_from_annotations(config, TSYNC_FRONTEND_PRECREATE, &req, &err) < 0 ||
            tsync_node_layers_prepend(&req, node.layers, node.n_layers, &err) < 0) {
                frontend_error(where, &err);
                tsync_request_clear(&req);
                return -1;
        }
        /* Podman hides this hook's stderr: the init says replace mode's warning on the container's. */
        req.init.warn_replace = req.mode == TSYNC_MODE_REPLACE;
        struct tsync_plan_paths o;
        plan_paths(h, NULL, &o);
        /* An engine's config: a plan in it is forged (tsync_rewrite_undo), our
         * hooks are the engine's (hooks.d), a recording waits for poststop in
         * a directory of its own under h->record_root. */
        struct tsync_prepare_opts po = { .fe = TSYNC_FRONTEND_PRECREATE, .req = &req, .paths = &o };
        struct tsync_rewrite_opts ro = { .init_path = init_path };
        _cleanup_(tsync_prepared_clear) struct tsync_prepared p = { 0 };
        int r = frontend_prepare(config, &po, &ro, where, &p);
        tsync_request_clear(&req);
        if (r < 0)
                return -1;
        /* The engine put its hooks.d createRuntime entry in the config before
         * this stage: a plan that needs nothing of it (nothing lent, no relay)
         * spares the start that hook's run. An engine that never runs
         * precreate keeps it, and it refuses the config without a plan. */
        if (p.hooks == 0)
                tsync_rewrite_drop_hooks(config);
        if (write_stdout(config, &err) < 0)
                return frontend_unwritten(&p, where, &err);
        frontend_written(&p, config, where);
        return 0;
}

static int stage_precreate(const struct hook_opts *h)
{
        struct tsync_err err = { 0 };
        struct tsync_json_limits lim = { .max_bytes = TSYNC_CONFIG_MAX_BYTES };
        _cleanup_json_ struct tsync_json *config = NULL;
        if (tsync_json_parse_fd(STDIN_FILENO, &lim, &config, &err) < 0) {
                frontend_errorf("precreate", "the config on stdin: %s", err.msg);
                return CLI_EXIT_FAILED;
        }
        /* No container id yet at precreate: Podman's hostname is its short
         * id, unless the user named one. Every line names it. */
        char where[128];
        const char *hostname = NULL;
        if (tsync_json_str(tsync_json_get(config, "hostname"), "hostname", &hostname, &err) == 0 && *hostname)
                (void)snprintf(where, sizeof(where), "precreate (hostname %.64s)", hostname);
        else
                (void)snprintf(where, sizeof(where), "precreate");
        /* The user's --hostname: one line, whatever it holds. */
        for (char *c = where; *c; c++)
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                        *c = '?';
        frontend_log_subject(where);
        char init_path[PATH_MAX];
        if (h->init ? !realpath(h->init, init_path) : frontend_find_init(init_path, sizeof(init_path)) < 0) {
                frontend_errorf(where, "cannot find seccomp-tsync-init; give --init PATH");
                return CLI_EXIT_FAILED;
        }
        return precreate(h, config, init_path, where) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILED;
}

int cmd_hook(int argc, char **argv)
{
        static const struct option options[] = { { "cache-dir", required_argument, NULL, 'D' },
                                                 { "no-cache", no_argument, NULL, 'N' },
                                                 { "profile-dir", required_argument, NULL, 'P' },
                                                 { "state-root", required_argument, NULL, 'S' },
                                                 { "init", required_argument, NULL, 'I' },
                                                 { "no-sync", no_argument, NULL, 'Y' },
                                                 { "record-root", required_argument, NULL, 'R' },
                                                 { "record-at-delete", no_argument, NULL, 'A' },
                                                 { "node-conf", required_argument, NULL, 'n' },
                                                 { "help", no_argument, NULL, 'h' },
                                                 {} };
        char cache_buf[PATH_MAX], record_buf[PATH_MAX];
        struct hook_opts h = { .cache_dir = frontend_default_cache_dir(cache_buf, sizeof(cache_buf)),
                               .state_root = TSYNC_STATE_ROOT,
                               .record_root = frontend_default_record_root(record_buf, sizeof(record_buf)) };
        bool no_cache = false;
        int opt;

        /* Engines hide a hook's stderr (Podman keeps only its exit status). */
        frontend_syslog_enable(FRONTEND_SYSLOG_SAY_UNREACHABLE);
        if (argc < 2 || argv[1][0] == '-') {
                if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
                        help(stdout);
                        return CLI_EXIT_OK;
                }
                help(stderr);
                return CLI_EXIT_USAGE;
        }
        if (tsync_stage_from_name(argv[1], &h.stage) < 0) {
                char stages[128];
                tsync_stage_list(stages, sizeof(stages));
                frontend_errorf("hook", "'%s' is not a stage (%s)", argv[1], stages);
                return CLI_EXIT_USAGE;
        }
        optind = 2;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (opt) {
                case 'D':
                        h.cache_dir = optarg;
                        break;
                case 'N':
                        no_cache = true;
                        break;
                case 'P':
                        if (h.n_profile_dirs == ARRAY_SIZE(h.profile_dirs)) {
                                frontend_errorf("hook", "at most %zu --profile-dir", ARRAY_SIZE(h.profile_dirs));
                                return CLI_EXIT_USAGE;
                        }
                        h.profile_dirs[h.n_profile_dirs++] = optarg;
                        break;
                case 'S':
                        h.state_root = optarg;
                        break;
                case 'I':
                        h.init = optarg;
                        break;
                case 'Y':
                        h.no_sync = true;
                        break;
                case 'R':
                        if (optarg[0] != '/') {
                                frontend_errorf("hook", "--record-root %s: not an absolute path", optarg);
                                return CLI_EXIT_USAGE;
                        }
                        h.record_root = optarg;
                        break;
                case 'A':
                        h.record_at_delete = true;
                        break;
                case 'n':
                        h.node_conf = optarg;
                        break;
                case 'h':
                        help(stdout);
                        return CLI_EXIT_OK;
                default:
                        help(stderr);
                        return CLI_EXIT_USAGE;
                }
        }
        if (optind != argc) {
                help(stderr);
                return CLI_EXIT_USAGE;
        }
        if (no_cache)
                h.cache_dir = NULL;
        char user_profiles[PATH_MAX];
        if (h.n_profile_dirs == 0) {
                for (size_t i = 0; i < frontend_n_default_profile_dirs; i++)
                        h.profile_dirs[h.n_profile_dirs++] = frontend_default_profile_dirs[i];
                const char *mine = frontend_user_profile_dir(user_profiles, sizeof(user_profiles));
                if (mine)
                        h.profile_dirs[h.n_profile_dirs++] = mine;
        }

        switch (h.stage) {
        case TSYNC_STAGE_PRECREATE:
                return stage_precreate(&h);
        case TSYNC_STAGE_PRESTART:
        case TSYNC_STAGE_CREATE_RUNTIME:
                return stage_create(&h);
        case TSYNC_STAGE_POSTSTOP:
        case TSYNC_STAGE_COUNT:
                break;
        }
        return stage_poststop(&h);
}
