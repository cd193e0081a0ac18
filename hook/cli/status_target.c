/* status and lockdown: the container a TARGET names, parsed once for both. A runtime's `state` and an engine's
 * `inspect` give its pid and config; Docker's inspect names no config, so it
 * is the bundle its containerd shim runs in. Their stderr's last line goes
 * into the message when they fail. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "facts/runtimes.h"
#include "shared/cleanup.h"
#include "status_cli.h"
#include "util/fileio.h"
#include "util/json.h"

extern char **environ;

/* An engine's output is a few kilobytes; a config at most the JSON limit. */
#define OUTPUT_MAX (TSYNC_JSON_DEFAULT_MAX_BYTES)

/* Reads what fd has now into *buf (NUL-terminated): 1 more to come, 0 at the end, -errno.
 * Not tsync_read_all: a child's stdout and stderr are drained side by side as poll
 * says, since reading one to its end could wait forever on a child blocked on the other. */
static int status_drain(int fd, char **buf, size_t *len)
{
        char tmp[4096];
        ssize_t n = read(fd, tmp, sizeof(tmp));
        if (n < 0)
                return errno == EINTR ? 1 : -errno;
        if (n == 0)
                return 0;
        if (*len + (size_t)n > OUTPUT_MAX)
                return -EFBIG;
        char *p = realloc(*buf, *len + (size_t)n + 1);
        if (!p)
                return -ENOMEM;
        memcpy(p + *len, tmp, (size_t)n);
        *len += (size_t)n;
        p[*len] = '\0';
        *buf = p;
        return 1;
}

/* Runs argv with stdin /dev/null; its stdout in *ret_out, the last line of its
 * stderr in errline. 0 when it exited 0; -1 with a message in err otherwise. */
static int run_capture(const char *const *argv, char **ret_out, char *errline, size_t size, struct tsync_err *err)
{
        int out[2] = { -1, -1 }, errp[2] = { -1, -1 };
        if (pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
                int e = errno;
                if (out[0] >= 0) {
                        (void)close(out[0]);
                        (void)close(out[1]);
                }
                return tsync_error(err, e, "pipe: %s", strerror(e));
        }
        posix_spawn_file_actions_t fa;
        (void)posix_spawn_file_actions_init(&fa);
        (void)posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        (void)posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
        (void)posix_spawn_file_actions_adddup2(&fa, errp[1], STDERR_FILENO);
        pid_t pid;
        int r = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
        (void)posix_spawn_file_actions_destroy(&fa);
        (void)close(out[1]);
        (void)close(errp[1]);
        _cleanup_close_ int fo = out[0], fe = errp[0];
        if (r != 0)
                return tsync_error(err, r, "%s: cannot be run: %s", argv[0], strerror(r));
        _cleanup_free_ char *obuf = NULL, *ebuf = NULL;
        size_t olen = 0, elen = 0;
        int rr = 0;
        while (rr >= 0 && (fo >= 0 || fe >= 0)) {
                struct pollfd p[2] = { { .fd = fo, .events = POLLIN }, { .fd = fe, .events = POLLIN } };
                if (poll(p, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        rr = -errno;
                        break;
                }
                for (int i = 0; i < 2 && rr >= 0; i++) {
                        int *fd = i == 0 ? &fo : &fe;
                        if (*fd < 0 || !p[i].revents)
                                continue;
                        rr = i == 0 ? status_drain(*fd, &obuf, &olen) : status_drain(*fd, &ebuf, &elen);
                        if (rr == 0) {
                                (void)close(*fd);
                                *fd = -1;
                        }
                }
        }
        int st;
        while (waitpid(pid, &st, 0) < 0)
                if (errno != EINTR)
                        return tsync_error_errno(err, "%s: waitpid", argv[0]);
        errline[0] = '\0';
        if (ebuf) {
                size_t n = strlen(ebuf);
                while (n > 0 && (ebuf[n - 1] == '\n' || ebuf[n - 1] == '\r'))
                        ebuf[--n] = '\0';
                const char *last = strrchr(ebuf, '\n');
                (void)snprintf(errline, size, "%s", last ? last + 1 : ebuf);
        }
        if (rr < 0)
                return tsync_error(err, -rr, "%s: reading its output: %s", argv[0], strerror(-rr));
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                return tsync_error(err, EIO, "`%s %s` failed%s%s", argv[0], argv[1], errline[0] ? ": " : "", errline);
        *ret_out = obuf ? TAKE_PTR(obuf) : strdup("");
        return *ret_out ? 0 : tsync_error(err, ENOMEM, "out of memory");
}

/* The document an engine or runtime printed, from run_capture. */
static int run_json(const char *const *argv, struct tsync_json **ret, struct tsync_err *err)
{
        _cleanup_free_ char *out = NULL;
        char errline[512];
        int r = run_capture(argv, &out, errline, sizeof(errline), err);
        if (r < 0)
                return r;
        r = tsync_json_parse(out, strlen(out), NULL, ret, err);
        if (r < 0)
                return tsync_error_prefix(err, "the output of `%s %s`", argv[0], argv[1]);
        return 0;
}

static int pid_of(const struct tsync_json *v, const char *path, pid_t *ret, struct tsync_err *err)
{
        uint64_t pid;
        int r = tsync_json_uint_max(v, path, INT_MAX, &pid, err);
        if (r < 0)
                return r;
        if (pid == 0)
                return tsync_error(err, ESRCH, "%s: 0: the container is not running", path);
        *ret = (pid_t)pid;
        return 0;
}

static int resolve_runtime(struct target *t, struct tsync_err *err)
{
        const char *argv[8];
        size_t n = 0;
        argv[n++] = t->runtime;
        if (t->root) {
                argv[n++] = "--root";
                argv[n++] = t->root;
        }
        argv[n++] = "state";
        argv[n++] = t->what;
        argv[n] = NULL;
        _cleanup_json_ struct tsync_json *state = NULL;
        int r = run_json(argv, &state, err);
        if (r < 0)
                return r;
        const char *bundle;
        r = pid_of(tsync_json_get(state, "pid"), "state.pid", &t->pid, err);
        if (r == 0)
                r = tsync_json_str(tsync_json_get(state, "bundle"), "state.bundle", &bundle, err);
        if (r < 0)
                return r;
        if (asprintf(&t->config_path, "%s/config.json", bundle) < 0)
                return tsync_error(err, ENOMEM, "out of memory");
        return 0;
}

/* docker inspect names no config: it is the bundle of the container's task,
 * the directory its containerd shim (the container process's parent, its
 * subreaper) runs in, named by the container's id. */
static int docker_config(struct target *t, const char *id, struct tsync_err *err)
{
        char parent[32], cwd[PATH_MAX];
        pid_t ppid = 0;
        int r = tsync_proc_parent(t->pid, &ppid, err);
        if (r < 0)
                return r;
        (void)snprintf(parent, sizeof(parent), "/proc/%d/cwd", (int)ppid);
        ssize_t n = readlink(parent, cwd, sizeof(cwd) - 1);
        if (n < 0)
                return tsync_error_errno(err, "%s", parent);
        cwd[n] = '\0';
        const char *base = strrchr(cwd, '/');
        if (!base || strcmp(base + 1, id) != 0)
                return tsync_error(err, ENOENT,
                                   "the container's parent (pid %d, its shim) runs in %s, not in a bundle named by the "
                                   "container's id",
                                   (int)ppid, cwd);
        /* Through /proc: the bundle may lie in the engine's own mount
         * namespace (a dockerd with a /run of its own). */
        if (asprintf(&t->config_path, "%s/config.json", parent) < 0 ||
            asprintf(&t->config_shown, "%s/config.json", cwd) < 0)
                return tsync_error(err, ENOMEM, "out of memory");
        return 0;
}

static int resolve_engine(struct target *t, struct tsync_err *err)
{
        const char *argv[] = { t->kind, "inspect", "--type", "container", t->what, NULL };
        _cleanup_json_ struct tsync_json *doc = NULL;
        int r = run_json(argv, &doc, err);
        if (r < 0)
                return r;
        if (doc->type != TSYNC_JSON_ARRAY || doc->u.array.len != 1)
                return tsync_error(err, EINVAL, "`%s inspect`: expected one container", t->kind);
        const struct tsync_json *c = doc->u.array.items[0];
        r = pid_of(tsync_json_get(tsync_json_get(c, "State"), "Pid"), "State.Pid", &t->pid, err);
        if (r < 0)
                return r;
        const char *path;
        if (strcmp(t->kind, "podman") == 0) {
                r = tsync_json_str(tsync_json_get(c, "OCIConfigPath"), "OCIConfigPath", &path, err);
                if (r == 0 && !(t->config_path = strdup(path)))
                        r = tsync_error(err, ENOMEM, "out of memory");
                return r;
        }
        r = tsync_json_str(tsync_json_get(c, "Id"), "Id", &path, err);
        if (r < 0)
                return r;
        return docker_config(t, path, err);
}

int target_option(struct target *t, int opt, const char *arg)
{
        switch (opt) {
        case TARGET_OPT_PID: {
                char *end;
                errno = 0;
                long v = strtol(arg, &end, 10);
                if (errno || end == arg || *end || v <= 0 || v > INT_MAX) {
                        frontend_errorf("--pid", "'%s' is not a process id", arg);
                        return -1;
                }
                t->pid = (pid_t)v;
                t->kind = "pid";
                t->what = arg;
                t->n_given++;
                return 1;
        }
        case TARGET_OPT_RUNTIME:
                t->runtime = arg;
                return 1;
        case TARGET_OPT_ROOT:
        case TARGET_OPT_CONTAINERD_ROOT:
                if (t->n_roots == TARGET_ROOTS_MAX) {
                        frontend_errorf(opt == TARGET_OPT_ROOT ? "--root" : "--containerd-root", "more than %d roots",
                                        TARGET_ROOTS_MAX);
                        return -1;
                }
                t->roots[t->n_roots++] = (struct tsync_node_root){
                        .path = arg,
                        .layout = opt == TARGET_OPT_ROOT ? TSYNC_NODE_LAYOUT_RUNTIME : TSYNC_NODE_LAYOUT_NAMESPACES,
                };
                if (opt == TARGET_OPT_ROOT) {
                        t->n_runtime_roots++;
                        t->root = arg;
                }
                return 1;
        case TARGET_OPT_PODMAN:
        case TARGET_OPT_DOCKER:
                t->kind = opt == TARGET_OPT_PODMAN ? "podman" : "docker";
                t->what = arg;
                t->n_given++;
                return 1;
        default:
                return 0;
        }
}

int target_finish(struct target *t, const char *cmd, int argc, char **argv, int optind)
{
        if (optind < argc) {
                t->kind = "runtime";
                t->what = argv[optind++];
                t->n_given++;
                if (!t->runtime)
                        t->runtime = "runc";
        }
        if (t->n_given != 1 || optind != argc) {
                frontend_errorf(cmd,
                                "give exactly one TARGET: --pid PID, [--runtime R] [--root DIR] ID, --podman NAME or "
                                "--docker NAME");
                return -1;
        }
        if ((t->runtime || t->root) && strcmp(t->kind, "runtime") != 0) {
                frontend_errorf(cmd, "--runtime and --root go with an ID");
                return -1;
        }
        return 0;
}

int status_target_resolve(struct target *t, struct tsync_err *err)
{
        if (strcmp(t->kind, "runtime") == 0)
                return resolve_runtime(t, err);
        if (strcmp(t->kind, "podman") == 0 || strcmp(t->kind, "docker") == 0)
                return resolve_engine(t, err);
        return 0;
}

/* /proc/PID/cmdline, NUL-separated. */
int status_read_cmdline(pid_t pid, char **ret, size_t *ret_len)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
        return tsync_read_file_at(AT_FDCWD, path, NULL, 0, OUTPUT_MAX, ret, ret_len, NULL, NULL);
}

/* The starttime of /proc/PID/stat (its 22nd field), 0 when unreadable. */
static unsigned long long start_time(pid_t pid)
{
        _cleanup_free_ char *line = NULL;
        const char *fields = NULL;
        if (tsync_proc_stat_read(pid, &line, &fields, NULL) < 0)
                return 0;
        unsigned long long v = 0;
        /* fields starts at the 3rd (the state): 19 more before the 22nd */
        if (sscanf(fields, " %*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu", &v) !=
            1)
                return 0;
        return v;
}

/* A runtime's state of one container (runc's state.json, crun's status):
 * whether it names init_pid, started at start, and then its bundle. */
static int state_names(const char *file, bool runc, pid_t init_pid, unsigned long long start, char **ret_bundle)
{
        _cleanup_json_ struct tsync_json *doc = NULL;
        struct tsync_err err = { 0 };
        if (tsync_json_parse_file(file, TSYNC_CONFIG_LIMITS, &doc, &err) < 0)
                return 0;
        uint64_t pid = 0, when = 0;
        if (tsync_json_u64(tsync_json_get(doc, runc ? "init_process_pid" : "pid"), "pid", &pid, &err) < 0 ||
            pid != (uint64_t)init_pid)
                return 0;
        /* A pid the kernel gave again since: the start times differ. */
        if (tsync_json_u64(tsync_json_get(doc, runc ? "init_process_start" : "process-start-time"), "start", &when,
                           &err) == 0 &&
            start && when != start)
                return 0;
        const char *bundle = NULL;
        if (runc) {
                const struct tsync_json *labels = tsync_json_get(tsync_json_get(doc, "config"), "labels");
                for (size_t i = 0; labels && labels->type == TSYNC_JSON_ARRAY && i < labels->u.array.len; i++) {
                        const struct tsync_json *l = labels->u.array.items[i];
                        if (l->type == TSYNC_JSON_STRING && strncmp(l->u.string.ptr, "bundle=", 7) == 0)
                                bundle = l->u.string.ptr + 7;
                }
        } else {
                const struct tsync_json *b = tsync_json_get(doc, "bundle");
                bundle = b && b->type == TSYNC_JSON_STRING ? b->u.string.ptr : NULL;
        }
        if (!bundle || bundle[0] != '/')
                return 0;
        return asprintf(ret_bundle, "%s", bundle) < 0 ? -ENOMEM : 1;
}

/* Every container directory under root (and, for an engine's root, under
 * each namespace directory in it: depth 2) whose state names init_pid. */
static int scan_root(const char *root, int depth, pid_t init_pid, unsigned long long start, char **ret_bundle)
{
        DIR *d = opendir(root);
        if (!d)
                return 0;
        int r = 0;
        struct dirent *e;
        while (r == 0 && (e = readdir(d))) {
                if (e->d_name[0] == '.')
                        continue;
                char path[PATH_MAX];
                if (snprintf(path, sizeof(path), "%s/%s/state.json", root, e->d_name) < (int)sizeof(path))
                        r = state_names(path, true, init_pid, start, ret_bundle);
                if (r == 0 && snprintf(path, sizeof(path), "%s/%s/status", root, e->d_name) < (int)sizeof(path))
                        r = state_names(path, false, init_pid, start, ret_bundle);
                if (r == 0 && depth > 1 && snprintf(path, sizeof(path), "%s/%s", root, e->d_name) < (int)sizeof(path))
                        r = scan_root(path, depth - 1, init_pid, start, ret_bundle);
        }
        (void)closedir(d);
        return r;
}

int status_target_find_config(struct target *t, pid_t init_pid, struct tsync_err *err)
{
        /* The runtimes' own default roots, and those the engines give runc
         * (containerd's and Docker's, one directory per namespace). */
        static const char *const engine_roots[] = { "/run/containerd/runc", "/run/docker/runtime-runc" };
        char roots[8][PATH_MAX];
        size_t n = 0, n_rt;
        const struct tsync_runtime *rt = tsync_runtimes(&n_rt);
        for (size_t i = 0; i < n_rt && n < ARRAY_SIZE(roots) - ARRAY_SIZE(engine_roots); i++)
                if (tsync_runtime_default_root(&rt[i], rt[i].state_root_env ? getenv(rt[i].state_root_env) : NULL,
                                               (unsigned)geteuid(), roots[n], sizeof(roots[n])) == 0)
                        n++;
        unsigned long long start = start_time(init_pid);
        _cleanup_free_ char *bundle = NULL;
        int r = 0;
        for (size_t i = 0; r == 0 && i < n + ARRAY_SIZE(engine_roots); i++)
                r = i < n ? scan_root(roots[i], 1, init_pid, start, &bundle)
                          : scan_root(engine_roots[i - n], 2, init_pid, start, &bundle);
        if (r < 0)
                return tsync_error(err, -r, "out of memory");
        if (r == 0) {
                char list[1024] = "";
                size_t len = 0;
                for (size_t i = 0; i < n + ARRAY_SIZE(engine_roots) && len < sizeof(list); i++) {
                        int w = snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
                                         i < n ? roots[i] : engine_roots[i - n]);
                        if (w < 0)
                                break;
                        len += (size_t)w;
                }
                return tsync_error(err, ENOENT,
                                   "cannot tell what the container asked: no runtime's state under %s names its PID 1 "
                                   "(pid %d); give its config with --config, or name it by ID, --podman or --docker",
                                   list, (int)init_pid);
        }
        if (asprintf(&t->config_path, "%s/config.json", bundle) < 0)
                return tsync_error(err, ENOMEM, "out of memory");
        return 0;
}
