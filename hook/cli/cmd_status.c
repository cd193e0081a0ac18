/* oci-seccomp-tsync status TARGET: what protects a running container, task
 * by task. Finds the container's pid and config through its runtime or
 * engine (their CLIs), reads the kernel's view and decides (hook/lib/
 * status*.c), then prints: a table or JSON on stdout (schema/
 * status.schema.json), one line per shortfall on stderr, and an exit code a
 * script can act on. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "tsync/cleanup.h"
#include "tsync/json.h"
#include "tsync/json_build.h"
#include "tsync/plan.h"
#include "tsync/status.h"

extern char **environ;

/* status's own codes: documented in its help and the man page. */
enum status_exit {
        STATUS_EXIT_PROTECTED = 0,
        STATUS_EXIT_SHORT = 1, /* some task carries less than asked, or nothing of ours ran although asked */
        STATUS_EXIT_USAGE = 2,
        STATUS_EXIT_NOT_ASKED = 3, /* the container asks nothing of oci-seccomp-tsync */
        STATUS_EXIT_UNKNOWN = 4,   /* the container or its processes could not be read */
};

/* An engine's output is a few kilobytes; a config at most the JSON limit. */
#define OUTPUT_MAX (TSYNC_JSON_DEFAULT_MAX_BYTES)

static void help(FILE *f)
{
        fprintf(f,
                "Usage: %s status [OPTIONS] TARGET\n"
                "Says what protects a running container, task by task: whether its PID 1 is our init, which\n"
                "seccomp filters every thread of every process carries against what its plan (or its\n"
                "annotations) asked, NoNewPrivs and capabilities against the config's, the exec-once\n"
                "supervisor and the recorder. Processes are those of the container's pid namespace.\n\n"
                "TARGET:\n"
                "      --pid PID         any process of the container (with --config FILE: its config.json;\n"
                "                        without, what our init was told, less the runtime's own filter)\n"
                "  [--runtime R] [--root DIR] ID\n"
                "                        a container of runc (default), crun or another runc-compatible\n"
                "                        runtime: `R [--root DIR] state ID` gives its pid and bundle\n"
                "      --podman NAME     `podman inspect NAME` gives its pid and config\n"
                "      --docker NAME     `docker inspect NAME` gives its pid; the config is the bundle's\n"
                "                        (the directory its containerd shim runs in)\n\n"
                "Options:\n"
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
                "container asks nothing of oci-seccomp-tsync; 4 the container could not be read.\n",
                PROGRAM);
}

struct target {
        const char *what;    /* for messages: the ID, NAME or "pid N" */
        const char *kind;    /* "pid", "runtime", "podman", "docker" */
        const char *runtime; /* kind runtime */
        const char *root;
        pid_t pid;
        char *config_path;                          /* owned; NULL: none known */
        const char *profile_dirs[TSYNC_MAX_LAYERS]; /* where the plan's layer names are (--profile-dir) */
        size_t n_profile_dirs;
};

/* Reads fd to its end into *buf (NUL-terminated). */
static int drain(int fd, char **buf, size_t *len)
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
                        rr = i == 0 ? drain(*fd, &obuf, &olen) : drain(*fd, &ebuf, &elen);
                        if (rr == 0) {
                                (void)close(*fd);
                                *fd = -1;
                        }
                }
        }
        int st;
        while (waitpid(pid, &st, 0) < 0)
                if (errno != EINTR)
                        return tsync_error(err, errno, "%s: waitpid: %s", argv[0], strerror(errno));
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
        char path[64], parent[32], cwd[PATH_MAX];
        (void)snprintf(path, sizeof(path), "/proc/%d/stat", (int)t->pid);
        FILE *f = fopen(path, "re");
        if (!f)
                return tsync_error(err, errno, "%s: %s", path, strerror(errno));
        char line[1024];
        bool ok = fgets(line, sizeof(line), f) != NULL;
        (void)fclose(f);
        const char *p = ok ? strrchr(line, ')') : NULL;
        int ppid = 0;
        if (!p || sscanf(p, ") %*c %d", &ppid) != 1 || ppid <= 0)
                return tsync_error(err, EIO, "%s: no parent", path);
        (void)snprintf(parent, sizeof(parent), "/proc/%d/cwd", ppid);
        ssize_t n = readlink(parent, cwd, sizeof(cwd) - 1);
        if (n < 0)
                return tsync_error(err, errno, "%s: %s", parent, strerror(errno));
        cwd[n] = '\0';
        const char *base = strrchr(cwd, '/');
        if (!base || strcmp(base + 1, id) != 0)
                return tsync_error(err, ENOENT,
                                   "the container's parent (pid %d, its shim) runs in %s, not in a bundle named by the "
                                   "container's id",
                                   ppid, cwd);
        /* Through /proc: the bundle may lie in the engine's own mount
         * namespace (a dockerd with a /run of its own). */
        if (asprintf(&t->config_path, "%s/config.json", parent) < 0)
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

/* /proc/PID/cmdline, NUL-separated. */
static int read_cmdline(pid_t pid, char **ret, size_t *ret_len)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        char *buf = NULL;
        size_t len = 0;
        int r;
        while ((r = drain(fd, &buf, &len)) > 0)
                ;
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret = buf;
        *ret_len = len;
        return 0;
}

/* What the container asked: its config's plan or annotations; our init's
 * command line where there is no config, or where the config at hand has no
 * plan although our init runs (an engine may keep the config it wrote before
 * the hooks rewrote it). */
static int expectations(const struct target *t, const struct tsync_status *st, struct tsync_status_expect *e,
                        struct tsync_json **config, struct tsync_err *err)
{
        int r;
        if (t->config_path) {
                r = tsync_json_parse_file(t->config_path, NULL, config, err);
                if (r < 0)
                        return r;
                r = tsync_status_expect_from_config(*config, e, err);
                if (r < 0)
                        return tsync_error_prefix(err, "%s", t->config_path);
                if (e->plan || !st->init_ours)
                        return 0;
        } else if (!st->init_ours) {
                *e = (struct tsync_status_expect){ .source = "nothing" };
                return 0;
        }
        _cleanup_free_ char *cmdline = NULL;
        size_t len = 0;
        r = read_cmdline(st->init_pid, &cmdline, &len);
        if (r < 0)
                return tsync_error(err, -r, "pid %d: cmdline: %s", (int)st->init_pid, strerror(-r));
        struct tsync_status_expect from_init;
        r = tsync_status_expect_from_cmdline(cmdline, len, &from_init, err);
        if (r < 0)
                return tsync_error_prefix(err, "pid %d", (int)st->init_pid);
        if (t->config_path) {
                /* The runtime's own filter is known from the config. */
                from_init.baseline_known = e->baseline_known;
                from_init.baseline = e->baseline;
        }
        *e = from_init;
        return 0;
}

/* The plan's filters compiled now (no cache: nothing of the host changes)
 * against PID 1's programs; a plan that does not compile says why. */
static void compare_plan(const struct target *t, const struct tsync_json *config, struct tsync_status *st)
{
        struct tsync_err err = { 0 };
        _cleanup_plan_ struct tsync_plan *plan = NULL;
        struct tsync_plan_programs progs = { 0 };
        struct tsync_warnings w = { 0 };
        struct tsync_plan_paths o = { .profile_dirs = t->n_profile_dirs ? t->profile_dirs : cli_default_profile_dirs,
                                      .n_profile_dirs =
                                              t->n_profile_dirs ? t->n_profile_dirs : cli_n_default_profile_dirs,
                                      .state_root = TSYNC_STATE_ROOT };
        int r = tsync_plan_from_config(config, &plan, &err);
        if (r == 0)
                r = tsync_plan_compile(plan, &o, NULL, &progs, &w, &err);
        tsync_warnings_clear(&w);
        if (r < 0)
                (void)snprintf(st->programs.drift_what, sizeof(st->programs.drift_what), "not compiled: %.130s",
                               err.msg);
        else
                tsync_status_compare_plan(st, plan, &progs);
        tsync_plan_programs_clear(&progs);
}

static struct tsync_json *caps_json(const uint64_t *caps)
{
        struct tsync_json *o = tsync_json_new_object();
        for (size_t s = 0; o && s < TSYNC_CAPSET_COUNT; s++) {
                char hex[24];
                (void)snprintf(hex, sizeof(hex), "%016" PRIx64, caps[s]);
                if (tsync_json_set(o, tsync_status_capset_name(s), tsync_json_new_string(hex)) < 0) {
                        tsync_json_free(o);
                        return NULL;
                }
        }
        return o;
}

static struct tsync_json *int_or_null(long v)
{
        if (v < 0) {
                struct tsync_json *n = calloc(1, sizeof(*n));
                if (n)
                        n->type = TSYNC_JSON_NULL;
                return n;
        }
        return tsync_json_new_u64((uint64_t)v);
}

/* Each set's failure is ENOMEM: checked once, at the end. */
static int set(struct tsync_json *o, const char *key, struct tsync_json *v, int *r)
{
        if (*r == 0)
                *r = tsync_json_set(o, key, v);
        else
                tsync_json_free(v);
        return *r;
}

static int print_json(const struct target *t, const struct tsync_status *st, const struct tsync_status_expect *e,
                      const struct tsync_warnings *shortfalls, enum tsync_verdict v, int code)
{
        int r = 0;
        _cleanup_json_ struct tsync_json *doc = tsync_json_new_object();
        if (!doc)
                return -ENOMEM;
        struct tsync_json *target = tsync_json_new_object();
        set(doc, "target", target, &r);
        if (r == 0) {
                set(target, "kind", tsync_json_new_string(t->kind), &r);
                set(target, "name", tsync_json_new_string(t->what), &r);
                set(target, "pid", tsync_json_new_u64((uint64_t)t->pid), &r);
                set(target, "config", t->config_path ? tsync_json_new_string(t->config_path) : int_or_null(-1), &r);
        }
        struct tsync_json *init = tsync_json_new_object();
        set(doc, "init", init, &r);
        if (r == 0) {
                set(init, "pid", tsync_json_new_u64((uint64_t)st->init_pid), &r);
                set(init, "exe", tsync_json_new_string(st->init_exe), &r);
                set(init, "ours", tsync_json_new_bool(st->init_ours), &r);
        }
        struct tsync_json *asked = tsync_json_new_object();
        set(doc, "asked", asked, &r);
        if (r == 0) {
                set(asked, "source", tsync_json_new_string(e->source), &r);
                set(asked, "asked", tsync_json_new_bool(e->asked), &r);
                set(asked, "plan", tsync_json_new_bool(e->plan), &r);
                set(asked, "in_place", tsync_json_new_bool(e->in_place), &r);
                set(asked, "runtime_filters", int_or_null(e->baseline_known ? (long)e->baseline : -1), &r);
                set(asked, "our_filters", tsync_json_new_u64(e->n_tsync), &r);
                set(asked, "record", tsync_json_new_bool(e->record), &r);
                set(asked, "exec_once", tsync_json_new_u64((uint64_t)e->exec_once), &r);
                set(asked, "no_new_privileges", tsync_json_new_bool(e->no_new_privs), &r);
                set(asked, "capabilities", e->have_caps ? caps_json(e->caps) : int_or_null(-1), &r);
        }
        struct tsync_json *progs = tsync_json_new_object();
        set(doc, "programs", progs, &r);
        if (r == 0) {
                set(progs, "compared", tsync_json_new_bool(st->programs.compared), &r);
                set(progs, "filters", tsync_json_new_u64(st->programs.n), &r);
                set(progs, "differ", int_or_null(st->programs.differ), &r);
                set(progs, "note", tsync_json_new_string(st->programs.what), &r);
                set(progs, "plan_compared", tsync_json_new_bool(st->programs.plan_compared), &r);
                set(progs, "drift", int_or_null(st->programs.drift), &r);
                set(progs, "plan_note", tsync_json_new_string(st->programs.drift_what), &r);
        }
        struct tsync_json *tasks = tsync_json_new_array();
        set(doc, "tasks", tasks, &r);
        for (size_t i = 0; r == 0 && i < st->n; i++) {
                const struct tsync_status_task *k = &st->tasks[i];
                struct tsync_json *o = tsync_json_new_object();
                r = o ? tsync_json_append(tasks, o) : -ENOMEM;
                set(o, "pid", tsync_json_new_u64((uint64_t)k->pid), &r);
                set(o, "tid", tsync_json_new_u64((uint64_t)k->tid), &r);
                set(o, "ns_pid", int_or_null(k->ns_pid), &r);
                set(o, "comm", tsync_json_new_string(k->comm), &r);
                set(o, "role", tsync_json_new_string(tsync_status_role_name(k->role)), &r);
                set(o, "seccomp", tsync_json_new_u64((uint64_t)k->seccomp), &r);
                set(o, "filters", int_or_null(k->filters), &r);
                set(o, "expected", int_or_null(k->expected), &r);
                set(o, "no_new_privs", tsync_json_new_bool(k->no_new_privs == 1), &r);
                set(o, "capabilities", caps_json(k->caps), &r);
                set(o, "short", tsync_json_new_bool(k->short_of), &r);
        }
        struct tsync_json *lines = tsync_json_new_array();
        set(doc, "shortfalls", lines, &r);
        for (size_t i = 0; r == 0 && i < shortfalls->len; i++)
                r = tsync_json_append(lines, tsync_json_new_string(shortfalls->msgs[i]));
        set(doc, "verdict", tsync_json_new_string(tsync_verdict_name(v)), &r);
        set(doc, "exit", tsync_json_new_u64((uint64_t)code), &r);
        if (r < 0)
                return r;
        _cleanup_free_ char *text = NULL;
        size_t len;
        struct tsync_err err = { 0 };
        r = tsync_json_write(doc, true, &text, &len, &err);
        if (r < 0)
                return r;
        printf("%s\n", text);
        return 0;
}

static void print_text(const struct target *t, const struct tsync_status *st, const struct tsync_status_expect *e,
                       enum tsync_verdict v)
{
        printf("container: %s (%s%s%s, pid %d)\n", t->what, t->kind, t->runtime ? " " : "",
               t->runtime ? t->runtime : "", (int)t->pid);
        printf("config:    %s\n", t->config_path ? t->config_path : "(none: what our init was told)");
        printf("PID 1:     pid %d, %s%s\n", (int)st->init_pid, st->init_exe[0] ? st->init_exe : "(exe unreadable)",
               st->init_ours ? " (oci-seccomp-tsync's init)" : "");
        if (e->asked && (e->plan || st->init_ours)) {
                printf("asked:     from the %s: ", e->source);
                if (e->baseline_known)
                        printf("%u runtime filter + ", e->baseline);
                printf("%u of ours on every thread%s%s", e->n_tsync, e->record ? ", the recording on the workload" : "",
                       e->in_place ? ", the workload as PID 1" : "");
                if (e->exec_once)
                        printf(", exec once (errno %d)", e->exec_once);
                if (e->no_new_privs)
                        printf(", noNewPrivileges");
                printf("%s\n", e->have_caps ? ", the config's capabilities" : "");
        } else if (e->asked) {
                printf("asked:     by annotations.%s, but the config has no plan\n", e->asked_by ? e->asked_by : "?");
        } else {
                printf("asked:     nothing of oci-seccomp-tsync\n");
        }
        if (st->programs.compared && st->programs.differ < 0)
                printf("programs:  PID 1's %zu filter%s of ours are the programs of its filter files\n", st->programs.n,
                       st->programs.n == 1 ? "" : "s");
        else if (st->programs.compared)
                printf("programs:  PID 1's filter %d (%s) differs from its file\n", st->programs.differ,
                       st->programs.what);
        else
                printf("programs:  not compared (%s)\n", st->programs.what);
        if (st->programs.plan_compared && st->programs.drift < 0)
                printf("plan:      they are what the plan compiles to now\n");
        else if (st->programs.plan_compared)
                printf("plan:      filter %d (%s) is not what the plan compiles to now\n", st->programs.drift,
                       st->programs.drift_what);
        else if (st->programs.drift_what[0])
                printf("plan:      not compared (%s)\n", st->programs.drift_what);
        printf("\n%7s %7s %6s  %-16s %-11s %3s %7s %5s %3s  %-16s %s\n", "PID", "TID", "NSPID", "COMM", "ROLE", "SEC",
               "FILTERS", "ASKED", "NNP", "CAPEFF", "");
        for (size_t i = 0; i < st->n; i++) {
                const struct tsync_status_task *k = &st->tasks[i];
                char filters[16], asked[16];
                (void)snprintf(filters, sizeof(filters), "%d", k->filters);
                (void)snprintf(asked, sizeof(asked), "%d", k->expected);
                printf("%7d %7d %6d  %-16s %-11s %3d %7s %5s %3d  %016" PRIx64 " %s\n", (int)k->pid, (int)k->tid,
                       (int)k->ns_pid, k->comm, tsync_status_role_name(k->role), k->seccomp,
                       k->filters < 0 ? "?" : filters, k->expected < 0 ? "-" : asked, k->no_new_privs,
                       k->caps[TSYNC_CAPSET_EFFECTIVE], k->short_of ? "SHORT" : "");
        }
        static const char *const said[] = {
                [TSYNC_VERDICT_PROTECTED] = "protected: every task carries what was asked",
                [TSYNC_VERDICT_SHORT] = "SHORT: some tasks carry less than was asked (see the lines on stderr)",
                [TSYNC_VERDICT_UNPROTECTED] = "UNPROTECTED: oci-seccomp-tsync was asked for, but its init never ran",
                [TSYNC_VERDICT_NOT_ASKED] = "not asked: the container asks nothing of oci-seccomp-tsync",
        };
        printf("\nverdict:   %s\n", said[v]);
}

static int status(struct target *t, bool json, bool programs)
{
        struct tsync_err err = { 0 };
        int r = 0;
        if (strcmp(t->kind, "runtime") == 0)
                r = resolve_runtime(t, &err);
        else if (strcmp(t->kind, "podman") == 0 || strcmp(t->kind, "docker") == 0)
                r = resolve_engine(t, &err);
        if (r < 0) {
                cli_error(t->what, &err);
                return STATUS_EXIT_UNKNOWN;
        }
        _cleanup_(tsync_status_clear) struct tsync_status st = { 0 };
        if (tsync_status_read(t->pid, &st, &err) < 0) {
                cli_error(t->what, &err);
                return STATUS_EXIT_UNKNOWN;
        }
        /* An engine's pid is the container's own process: elsewhere than at
         * 1 in its namespace, the namespace is shared (a pod, --pid
         * container:...) and holds others' processes too. */
        if (strcmp(t->kind, "pid") != 0 && st.target_ns_pid != 1) {
                cli_errorf(t->what,
                           "its process (pid %d) is %d in its pid namespace, not 1: the namespace is shared (a pod?), "
                           "so its processes cannot be told from the others'",
                           (int)t->pid, (int)st.target_ns_pid);
                return STATUS_EXIT_UNKNOWN;
        }
        if (programs && tsync_status_compare_programs(&st) < 0) {
                cli_errorf(t->what, "out of memory");
                return STATUS_EXIT_UNKNOWN;
        }
        if (!programs)
                (void)snprintf(st.programs.what, sizeof(st.programs.what), "--no-programs");
        _cleanup_json_ struct tsync_json *config = NULL;
        struct tsync_status_expect e;
        if (expectations(t, &st, &e, &config, &err) < 0) {
                cli_error(t->what, &err);
                return STATUS_EXIT_UNKNOWN;
        }
        if (st.programs.compared && e.plan)
                compare_plan(t, config, &st);
        struct tsync_warnings shortfalls = { 0 };
        enum tsync_verdict v = tsync_status_decide(&st, &e, &shortfalls);
        int code = v == TSYNC_VERDICT_PROTECTED   ? STATUS_EXIT_PROTECTED
                   : v == TSYNC_VERDICT_NOT_ASKED ? STATUS_EXIT_NOT_ASKED
                                                  : STATUS_EXIT_SHORT;
        if (json) {
                r = print_json(t, &st, &e, &shortfalls, v, code);
                if (r < 0) {
                        cli_errorf(t->what, "writing JSON: %s", strerror(-r));
                        code = STATUS_EXIT_UNKNOWN;
                }
        } else {
                print_text(t, &st, &e, v);
        }
        (void)fflush(stdout);
        for (size_t i = 0; i < shortfalls.len; i++)
                fprintf(stderr, "%s: %s: %s%s\n", PROGRAM, t->what,
                        v == TSYNC_VERDICT_UNPROTECTED ? "UNPROTECTED: " : "", shortfalls.msgs[i]);
        tsync_warnings_clear(&shortfalls);
        return code;
}

int cmd_status(int argc, char **argv)
{
        enum {
                OPT_PID = 256,
                OPT_RUNTIME,
                OPT_ROOT,
                OPT_PODMAN,
                OPT_DOCKER,
                OPT_CONFIG,
                OPT_JSON,
                OPT_NO_PROGRAMS,
                OPT_PROFILE_DIR
        };
        static const struct option options[] = { { "pid", required_argument, NULL, OPT_PID },
                                                 { "runtime", required_argument, NULL, OPT_RUNTIME },
                                                 { "root", required_argument, NULL, OPT_ROOT },
                                                 { "podman", required_argument, NULL, OPT_PODMAN },
                                                 { "docker", required_argument, NULL, OPT_DOCKER },
                                                 { "config", required_argument, NULL, OPT_CONFIG },
                                                 { "json", no_argument, NULL, OPT_JSON },
                                                 { "no-programs", no_argument, NULL, OPT_NO_PROGRAMS },
                                                 { "profile-dir", required_argument, NULL, OPT_PROFILE_DIR },
                                                 { "help", no_argument, NULL, 'h' },
                                                 {} };
        struct target t = { .kind = NULL };
        const char *config = NULL;
        bool json = false, programs = true;
        int opt, ntargets = 0;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (opt) {
                case OPT_PID: {
                        char *end;
                        errno = 0;
                        long v = strtol(optarg, &end, 10);
                        if (errno || end == optarg || *end || v <= 0 || v > INT_MAX) {
                                cli_errorf("--pid", "'%s' is not a process id", optarg);
                                return STATUS_EXIT_USAGE;
                        }
                        t.pid = (pid_t)v;
                        t.kind = "pid";
                        t.what = optarg;
                        ntargets++;
                        break;
                }
                case OPT_RUNTIME:
                        t.runtime = optarg;
                        break;
                case OPT_ROOT:
                        t.root = optarg;
                        break;
                case OPT_PODMAN:
                case OPT_DOCKER:
                        t.kind = opt == OPT_PODMAN ? "podman" : "docker";
                        t.what = optarg;
                        ntargets++;
                        break;
                case OPT_CONFIG:
                        config = optarg;
                        break;
                case OPT_JSON:
                        json = true;
                        break;
                case OPT_NO_PROGRAMS:
                        programs = false;
                        break;
                case OPT_PROFILE_DIR:
                        if (t.n_profile_dirs == TSYNC_MAX_LAYERS) {
                                cli_errorf("--profile-dir", "more than %d", TSYNC_MAX_LAYERS);
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
        if (optind < argc) {
                t.kind = "runtime";
                t.what = argv[optind++];
                ntargets++;
                if (!t.runtime)
                        t.runtime = "runc";
        }
        if (ntargets != 1 || optind != argc) {
                cli_errorf("status", "give exactly one TARGET: --pid PID, [--runtime R] [--root DIR] ID, --podman "
                                     "NAME or --docker NAME");
                return STATUS_EXIT_USAGE;
        }
        if ((t.runtime || t.root) && strcmp(t.kind, "runtime") != 0) {
                cli_errorf("status", "--runtime and --root go with an ID");
                return STATUS_EXIT_USAGE;
        }
        if (config && strcmp(t.kind, "pid") != 0) {
                cli_errorf("status", "--config goes with --pid (the runtime or engine names the config)");
                return STATUS_EXIT_USAGE;
        }
        if (config && !(t.config_path = strdup(config))) {
                cli_errorf("status", "out of memory");
                return STATUS_EXIT_UNKNOWN;
        }
        int code = status(&t, json, programs);
        free(t.config_path);
        return code;
}
