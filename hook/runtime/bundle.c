/* create/run: the bundle's config.json, rewritten through the one entry
 * point inject and precreate use (frontend_prepare: tsync_plan_prepare,
 * tsync_plan_apply), with the filters in the init's arguments and our hooks
 * only where the plan needs them (exec view, agent, recording). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts/annotations.h"
#include "frontend/frontend.h"
#include "frontend/pipeline.h"
#include "node/node_layers.h"
#include "plan/plan.h"
#include "plan/plan_record.h"
#include "plan/rewrite.h"
#include "runtime.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "translate/cache.h"
#include "util/fileio.h"
#include "util/json_build.h"

/* Whether a layer of this name is among layers[0..n). */
static bool listed(const char *const *layers, size_t n, const char *name)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(layers[i], name) == 0)
                        return true;
        return false;
}

/* The node's layers (node.conf), the runtime's own, then the annotation's:
 * every layer only takes permissions away, so the container gets them all,
 * each name once. The runtime's mode, when it names one, must agree with the
 * annotation's. n_node: how many of the node's layers this container gets
 * (none when node.conf leaves it out). */
static int merge_settings(const struct rt_settings *s, size_t n_node, const struct tsync_json *config, char *names,
                          struct tsync_request *req, struct tsync_err *err)
{
        if (s->mode) {
                enum tsync_mode m;
                if (tsync_mode_from_name(s->mode, &m) < 0)
                        return tsync_error(err, EINVAL, "runtime option mode: '%s' is not layer or replace", s->mode);
                if (tsync_json_get(tsync_json_get(config, "annotations"), TSYNC_ANNOTATION_MODE) && m != req->mode)
                        return tsync_error(err, EPERM,
                                           "annotations.%s: '%s', but this runtime is set to mode '%s': refused",
                                           TSYNC_ANNOTATION_MODE, tsync_mode_name(req->mode), s->mode);
                req->mode = m;
        }
        const char *theirs[TSYNC_MAX_LAYERS];
        size_t n_theirs = req->n_layers, n = 0;
        memcpy(theirs, req->layers, sizeof(theirs));
        char *save = NULL;
        for (char *t = names ? strtok_r(names, ",;: \t", &save) : NULL; t; t = strtok_r(NULL, ",;: \t", &save)) {
                if (!tsync_layer_name_valid(t))
                        return tsync_error(err, EINVAL,
                                           "runtime option layers: '%s' is not a profile name (letters, digits, "
                                           "'_', '-', '.'; no paths)",
                                           t);
                if (listed(req->layers, n, t))
                        continue;
                if (n == TSYNC_MAX_LAYERS)
                        return tsync_error(err, E2BIG, "at most %d layers", TSYNC_MAX_LAYERS);
                req->layers[n++] = t;
        }
        size_t ours = n;
        for (size_t i = 0; i < n_theirs; i++) {
                if (listed(req->layers, ours, theirs[i]))
                        continue;
                if (n == TSYNC_MAX_LAYERS)
                        return tsync_error(err, E2BIG, "the runtime's %zu layers and annotations.%s's %zu: at most %d",
                                           ours, TSYNC_ANNOTATION_LAYERS, n_theirs, TSYNC_MAX_LAYERS);
                req->layers[n++] = theirs[i];
        }
        req->n_layers = n;
        return tsync_node_layers_prepend(req, s->node.layers, n_node, err);
}

static const char *annotation(const struct tsync_json *config, const char *key)
{
        const struct tsync_json *v = tsync_json_get(tsync_json_get(config, "annotations"), key);
        return v && v->type == TSYNC_JSON_STRING ? v->u.string.ptr : NULL;
}

/* Whether containerd's shim runs us (runner: its comm), by the row of
 * containerd's sandbox mark (facts/annotations.h). */
static bool run_by_containerd(const char *runner)
{
        for (size_t i = 0; i < tsync_sandbox_mark_count; i++) {
                const struct tsync_sandbox_mark *m = &tsync_sandbox_marks[i];
                if (strcmp(m->engine, "containerd") == 0 && strncmp(runner, m->runner, strlen(m->runner)) == 0)
                        return true;
        }
        return false;
}

/* How many of the node's layers the container gets: all, or none when
 * node.conf leaves it out (said once, with its reason). A Kubernetes
 * container is also named as its pod's author knows it, from the CRI's
 * annotations (NAMESPACE/POD/CONTAINER; a pod's sandbox NAMESPACE/POD), when
 * containerd's shim runs us: containerd sets them after the pod's own, so a
 * pod cannot claim another's name; another engine (CRI-O) passes a pod's
 * annotations of those names as they are, so there the id alone counts. */
static size_t node_layers(const struct rt_settings *s, const struct tsync_json *config, const struct rt_cmdline *cl,
                          const char *runner)
{
        if (!s->node.n_layers)
                return 0;
        const char *ns = annotation(config, "io.kubernetes.cri.sandbox-namespace"),
                   *pod = annotation(config, "io.kubernetes.cri.sandbox-name"),
                   *name = annotation(config, "io.kubernetes.cri.container-name");
        const struct tsync_node_exclude *x = NULL;
        if (ns && pod && run_by_containerd(runner)) {
                _cleanup_free_ char *k8s = NULL;
                if (asprintf(&k8s, "%s/%s%s%s", ns, pod, name ? "/" : "", name ? name : "") >= 0)
                        x = tsync_node_policy_excluded(&s->node, "kubernetes", cl->id, k8s);
        }
        if (!x)
                x = tsync_node_policy_excluded(&s->node, NULL, cl->id, NULL);
        if (!x)
                return s->node.n_layers;
        rt_warn(cl, "left out of the node's layers by %s, line %u: %s", s->node_conf ? s->node_conf : TSYNC_NODE_CONF,
                x->line, x->reason);
        return 0;
}

/* Docker's --init: its init (tini, as docker-init) would start under ours as
 * PID 2 and warn that it is not PID 1, nor a subreaper, so that zombies
 * orphaned below it reach our init instead. Told -s, it registers as a child
 * subreaper and does all it does as PID 1: it reaps what is orphaned below
 * it, forwards every signal it gets (ours forwards the usual ones to it),
 * and exits with the workload's status (128+N for signal N). Kept rather
 * than dropped: the workload then sees what `docker run --init` gives it
 * without us (tini its parent, no variable added to its environment, every
 * signal forwarded as tini does). Recognised only as dockerd writes it:
 * process.args "/sbin/docker-init", "--", ... and its bind mount there. */
#define DOCKER_INIT "/sbin/docker-init"

static bool is_string(const struct tsync_json *v, const char *s)
{
        return v && v->type == TSYNC_JSON_STRING && strcmp(v->u.string.ptr, s) == 0;
}

static int docker_init_subreaper(struct tsync_json *config, struct tsync_err *err)
{
        struct tsync_json *args = tsync_json_get_mut(tsync_json_get_mut(config, "process"), "args");
        if (!args || args->type != TSYNC_JSON_ARRAY || args->u.array.len < 2 ||
            !is_string(args->u.array.items[0], DOCKER_INIT) || !is_string(args->u.array.items[1], "--"))
                return 0;
        const struct tsync_json *mounts = tsync_json_get(config, "mounts");
        bool mounted = false;
        for (size_t i = 0; mounts && mounts->type == TSYNC_JSON_ARRAY && i < mounts->u.array.len; i++)
                mounted = mounted || is_string(tsync_json_get(mounts->u.array.items[i], "destination"), DOCKER_INIT);
        if (!mounted)
                return 0;
        if (tsync_json_insert(args, 1, tsync_json_new_string("-s")) < 0)
                return tsync_error(err, ENOMEM, "process.args: out of memory");
        return 0;
}

/* oci-seccomp-tsync, beside us: the hooks that keep the exec view. */
static int find_hook(char *buf, size_t size)
{
        char self[PATH_MAX];
        if (frontend_self_path(self, sizeof(self)) < 0)
                return -1;
        char *slash = strrchr(self, '/');
        if (!slash)
                return -1;
        *slash = '\0';
        int n = snprintf(buf, size, "%s/%s", self, PROGRAM);
        return n > 0 && (size_t)n < size && access(buf, X_OK) == 0 ? 0 : -1;
}

struct target {
        const char *where; /* the container id, for messages */
        char bundle[PATH_MAX];
        char config_path[PATH_MAX + 16];
        struct stat st; /* config.json's, as read */
};

/* run: the command is `run` (which deletes inside the runtime, never through
 * our delete, which writes a recording). */
static int rewrite_config(const struct rt_settings *s, const struct target *t, struct tsync_json *config,
                          const struct tsync_request *req, bool run, bool sandbox)
{
        struct tsync_err err = { 0 };
        char init_path[PATH_MAX], hook_path[PATH_MAX], cache_buf[PATH_MAX];
        if (frontend_find_init(init_path, sizeof(init_path)) < 0) {
                frontend_errorf(t->where, "cannot find seccomp-tsync-init beside %s or in ../libexec/oci-seccomp-tsync",
                                RT_PROGRAM);
                return -1;
        }
        struct tsync_plan_paths paths = {
                .cache_dir = s->no_cache    ? NULL
                             : s->cache_dir ? s->cache_dir
                                            : frontend_default_cache_dir(cache_buf, sizeof(cache_buf)),
                .profile_dirs = s->n_profile_dirs ? s->profile_dirs : frontend_default_profile_dirs,
                .n_profile_dirs = s->n_profile_dirs ? s->n_profile_dirs : frontend_n_default_profile_dirs,
                .state_root = TSYNC_STATE_ROOT,
                .bundle = t->bundle,
                .record_root = TSYNC_RECORD_ROOT,
        };
        /* Precreate's rewrite (an engine's config: a plan in it is forged)
         * with our hooks in the config, and this host's record-dir. A
         * recording waits for our delete (delete.c) in a directory of its own
         * under TSYNC_RECORD_ROOT. */
        struct tsync_prepare_opts po = { .fe = TSYNC_FRONTEND_RUNTIME,
                                         .req = req,
                                         .paths = &paths,
                                         .flags = (run ? TSYNC_PREPARE_NO_DELETE : 0) |
                                                  (sandbox ? TSYNC_PREPARE_SANDBOX : 0),
                                         .record_dir = s->record_dir };
        /* Our hooks, when the plan needs them, are the program beside us
         * (without it, tsync_plan_apply says why they were needed). */
        struct tsync_rewrite_opts ro = { .init_path = init_path,
                                         .hook_path = find_hook(hook_path, sizeof(hook_path)) == 0 ? hook_path : NULL };
        if (docker_init_subreaper(config, &err) < 0) {
                frontend_error(t->where, &err);
                return -1;
        }
        _cleanup_(tsync_prepared_clear) struct tsync_prepared p = { 0 };
        if (frontend_prepare(config, &po, &ro, t->where, &p) < 0)
                return -1;
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = tsync_json_write(config, false, &text, &len, &err);
        /* In place: nobody reads it before the runtime we start, and a torn
         * text (we were killed) parses for none. Another name of the file
         * keeps the engine's text. */
        if (r >= 0)
                r = tsync_write_over(t->config_path, &t->st, text, len, &err);
        if (r == -EMLINK)
                r = tsync_write_atomic(t->config_path, text, len, t->st.st_mode & 07777, false, &err);
        if (r < 0)
                return frontend_unwritten(&p, t->where, &err);
        frontend_written(&p, config, t->where);
        return 0;
}

/* Whether the file's bytes name our annotations' prefix anywhere: for a
 * config we cannot parse, which the runtime might still read. The engines
 * write JSON keys literally. 1, 0, or -errno (the file cannot be read).
 * Streamed, not read whole: the config may be past the limit that made the parse fail. */
static int mentions_us(const char *path)
{
        static const char needle[] = TSYNC_ANNOTATION_PREFIX;
        const size_t n = sizeof(needle) - 1;
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        char buf[65536];
        size_t kept = 0;
        for (;;) {
                ssize_t got = read(fd, buf + kept, sizeof(buf) - kept);
                if (got < 0 && errno == EINTR)
                        continue;
                if (got < 0)
                        return -errno;
                if (got == 0)
                        return 0;
                size_t len = kept + (size_t)got;
                if (memmem(buf, len, needle, n))
                        return 1;
                /* A match may straddle two reads. */
                kept = len < n - 1 ? len : n - 1;
                memmove(buf, buf + len - kept, kept);
        }
}

/* The config as the runtime will read it, or NULL when it is not there to
 * read: then the runtime says why, unless we were asked for something
 * (*ret_required, which a config that names us sets too). */
static struct tsync_json *read_config(struct target *t, bool *ret_required)
{
        struct tsync_err err = { 0 };
        struct tsync_json *config = NULL;
        struct stat *st = &t->st;
        int r = lstat(t->config_path, st) < 0 ? tsync_error_errno(&err, "%s", t->config_path) : 0;
        if (r == 0 && !S_ISREG(st->st_mode))
                r = tsync_error(&err, EINVAL, "%s: not a regular file: refusing to read or replace it", t->config_path);
        /* As precreate reads an engine's config. */
        struct tsync_json_limits lim = { .max_bytes = TSYNC_CONFIG_MAX_BYTES };
        if (r == 0)
                r = tsync_json_parse_file(t->config_path, &lim, &config, &err);
        /* What we cannot parse but names us must not run without us; nor what
         * the runtime reads through a link or from a FIFO or device, which we
         * cannot judge. A missing config is the runtime's to report. */
        struct stat target;
        if (r < 0 && !*ret_required && stat(t->config_path, &target) == 0 &&
            (!S_ISREG(target.st_mode) || mentions_us(t->config_path) != 0))
                *ret_required = true;
        if (r < 0) {
                if (*ret_required)
                        frontend_error(t->where, &err);
                return NULL;
        }
        return config;
}

/* The comm of the process that runs us (an engine's shim or conmon, a
 * shell): "" when it cannot be read. Root's engines run the runtime; a
 * container cannot choose it. */
static void runner_comm(char *buf, size_t size)
{
        char path[64];
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        buf[0] = '\0';
        (void)snprintf(path, sizeof(path), "/proc/%d/comm", (int)getppid());
        if (tsync_read_file_at(AT_FDCWD, path, NULL, 0, 64, &text, &len, NULL, NULL) == 0)
                (void)snprintf(buf, size, "%.*s", (int)strcspn(text, "\n"), text);
}

int rt_rewrite_bundle(const struct rt_settings *s, const struct rt_cmdline *cl)
{
        struct target t = { .where = cl->id ? cl->id : "runtime" };
        /* Our settings ask when they name layers or replace mode; mode
         * layer alone adds nothing (it only refuses an annotation asking to
         * replace), so a container that asks nothing else runs as it is.
         * The node's layers ask until node.conf is seen to leave it out. */
        bool replace = s->mode && strcmp(s->mode, tsync_mode_name(TSYNC_MODE_LAYER)) != 0;
        bool asked = s->layers || s->node.n_layers || replace;
        if (!realpath(cl->bundle ? cl->bundle : ".", t.bundle)) {
                if (!asked)
                        return 0;
                frontend_errorf(t.where, "bundle %s: %s", cl->bundle ? cl->bundle : ".", tsync_errtext(errno));
                return -1;
        }
        /* crun's --config is read from the bundle when relative. */
        const char *file = cl->config_file ? cl->config_file : "config.json";
        if (file[0] == '/')
                (void)snprintf(t.config_path, sizeof(t.config_path), "%s", file);
        else
                (void)snprintf(t.config_path, sizeof(t.config_path), "%s/%s", t.bundle, file);
        /* The hooks of a running container change config.json too (the exec view), under this lock. */
        _cleanup_close_ int lock = open(t.bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (lock < 0 || flock(lock, LOCK_EX) < 0) {
                /* Not even to look: whether it asks for us is unknown, so it does not run. */
                frontend_errorf(t.where, "%s: cannot lock: %s", t.bundle, tsync_errtext(errno));
                return -1;
        }
        bool required = asked;
        _cleanup_json_ struct tsync_json *config = read_config(&t, &required);
        if (!config && required)
                return -1;
        if (!config)
                return 0;
        /* A pod's sandbox (pause) runs no workload: the pod's annotations
         * containerd copies onto it are honoured on the pod's containers,
         * which carry them too; layering the pause for them would put our
         * init (and a recording or notify agent) on it, and a refusal there
         * would fail the whole pod instead of the container that asked. Our
         * settings' layers are the node's, for every container: they stay.
         * Only the running engine's mark counts (facts/annotations.h). */
        char runner[64];
        runner_comm(runner, sizeof(runner));
        bool sandbox = tsync_annotations_sandbox(config, runner, cl->id) != NULL;
        /* Whether it asks for us, from the one table (annotations.c): one
         * of ours we cannot honour here (a recording), or one misspelt, is
         * refused, never passed to the runtime as if it were not there. */
        struct tsync_err err = { 0 };
        bool asks = false;
        if (!sandbox && tsync_annotations_check(config, TSYNC_FRONTEND_RUNTIME, &asks, &err) < 0) {
                frontend_error(t.where, &err);
                return -1;
        }
        size_t n_node = node_layers(s, config, cl, runner);
        if (!s->layers && !n_node && !replace && !asks)
                return 0;
        if (cl->config_file) {
                /* The exec view and our hooks read BUNDLE/config.json. */
                frontend_errorf(t.where, "crun's --config %s: not supported by %s: use the bundle's config.json",
                                cl->config_file, RT_PROGRAM);
                return -1;
        }
        /* The settings' layers are names, as the annotations' are. */
        struct tsync_request req = { .layers_by_name = true };
        _cleanup_free_ char *names = s->layers ? strdup(s->layers) : NULL;
        int r = s->layers && !names ? tsync_error(&err, ENOMEM, "out of memory") : 0;
        if (r == 0 && !sandbox)
                r = tsync_request_from_annotations(config, TSYNC_FRONTEND_RUNTIME, &req, &err);
        if (r == 0)
                r = merge_settings(s, n_node, sandbox ? NULL : config, names, &req, &err);
        /* What a recording may write is prepare's to judge (the host's
         * record-dir, never through `run`). */
        if (r == 0)
                r = rewrite_config(s, &t, config, &req, strcmp(cl->argv[cl->command], "run") == 0, sandbox);
        else
                frontend_error(t.where, &err);
        tsync_request_clear(&req);
        return r;
}
