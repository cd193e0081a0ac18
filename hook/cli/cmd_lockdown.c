/* lockdown TARGET: adds layers to every task of a running container without
 * a restart (issue 26). The container is found as status finds it
 * (status_target.c); the run is hook/lockdown's (tsync_lockdown_run in
 * lockdown_tasks.c: judge, freeze, seize, thaw, inject, prove, detach);
 * here: options, compiling, and saying what the result holds. All or
 * nothing, said plainly: a task not covered is named and the run fails
 * (or, with --or-kill, the container is killed). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "facts/runtimes.h"
#include "lockdown/lockdown.h"
#include "lockdown/lockdown_record.h"
#include "node/node_conf.h"
#include "plan/plan.h"
#include "shared/cleanup.h"
#include "status_cli.h"
#include "util/fileio.h"
#include "util/quote.h"

static void help(FILE *f)
{
        fprintf(f,
                "Usage: %s lockdown [OPTIONS] (--profile FILE | --layers NAMES)... TARGET\n"
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
                "      --no-cache         compile afresh\n",
                PROGRAM, TSYNC_PREFIX, TSYNC_NODE_CONF);
}

struct lockdown {
        struct target t;
        struct tsync_plan_programs progs[2]; /* --layers's, then --profile's */
        const struct tsync_program *prog[TSYNC_MAX_LAYERS * 2];
        const char *prog_name[TSYNC_MAX_LAYERS * 2]; /* the layer's name or file, for the record */
        size_t n_prog;
        bool set_nnp, or_kill;
        /* The container's lockdown record (lockdown_record.h): as found, and
         * whether ours, with the new layers, was written (record_begin). */
        char key[64];
        int lock; /* the container's lockdown lock (tsync_lockdown_record_lock), -1 when not held */
        struct tsync_lockdown_record before;
        bool recorded;
        bool init_ours; /* PID 1 is our init: the runtime wrapper can give exec'd processes the layers */
        pid_t parent;   /* the target process's parent (host pid), as status read it */
        /* Thaws and puts the record back should lockdown die (lockdown_guard.c). */
        struct tsync_lockdown_watchdog dog;
};

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

/* The comm and anything in why came from the container: quoted. */
static void print_task(const struct lockdown *l, FILE *f, const struct tsync_lockdown_task *k)
{
        char comm[TSYNC_QUOTED_MAX(sizeof(k->comm)) + 1], why[TSYNC_QUOTED_MAX(sizeof(k->why)) + 1];
        (void)tsync_quote(comm, sizeof(comm), k->comm, strlen(k->comm));
        (void)tsync_quote(why, sizeof(why), k->why, strlen(k->why));
        fprintf(f, "%s: %s: pid %d tid %d (%s): %s\n", PROGRAM, l->t.what, (int)k->pid, (int)k->tid, comm, why);
}

/* An error whose text may hold what the container named (an exe, a comm): quoted. */
static void say_error(const struct lockdown *l, const struct tsync_err *err)
{
        _cleanup_free_ char *q = tsync_quote_dup(err->msg);
        frontend_errorf(l->t.what, "%s", q ? q : "out of memory");
}

/* What the watchdog does if lockdown dies with its layers in the record:
 * the record as lockdown found it, then the lock let go. */
static void record_undo(void *data)
{
        struct lockdown *l = data;
        struct tsync_err err = { 0 };
        (void)tsync_lockdown_record_write(TSYNC_LOCKDOWN_ROOT, l->key, &l->before, &err);
        tsync_lockdown_record_unlock(TSYNC_LOCKDOWN_ROOT, l->key, l->lock);
}

/* The record gets the new layers before anything is frozen: a process the
 * runtime wrapper execs into the container from then on carries them too
 * (more than the tasks being covered is never less safe). */
static int record_begin(struct lockdown *l, const struct tsync_status *st)
{
        struct tsync_err err = { 0 };
        l->init_ours = st->init_ours;
        for (size_t i = 0; i < st->n; i++)
                if (st->tasks[i].tid == l->t.pid)
                        l->parent = st->tasks[i].ppid;
        int r = tsync_lockdown_record_read(TSYNC_LOCKDOWN_ROOT, l->key, &l->before, &err);
        if (r < 0) {
                frontend_error(l->t.what, &err);
                return -1;
        }
        /* From here on, a lockdown that dies is undone by its watchdog. */
        if (tsync_lockdown_watchdog_start(&l->dog, record_undo, l, l->lock, &err) < 0 ||
            tsync_lockdown_watchdog_record(l->dog.sock, true) < 0) {
                if (!err.msg[0])
                        (void)tsync_error(&err, EPIPE, "the watchdog did not answer");
                frontend_error(l->t.what, &err);
                return -1;
        }
        struct tsync_lockdown_record now = { 0 };
        uint64_t t = (uint64_t)time(NULL);
        for (size_t i = 0; r == 0 && i < l->before.n; i++) {
                const struct tsync_lockdown_layer *b = &l->before.layers[i];
                now.layers[i] =
                        (struct tsync_lockdown_layer){ .name = b->name, .added = b->added, .filter = b->filter };
                memcpy(now.layers[i].sha256, b->sha256, sizeof(b->sha256));
        }
        now.n = l->before.n;
        size_t borrowed = now.n;
        for (size_t p = 0; r == 0 && p < l->n_prog; p++)
                r = tsync_lockdown_record_add(&now, l->prog_name[p], l->prog[p]->insns, l->prog[p]->len,
                                              l->prog[p]->flags, t, &err);
        if (r == 0)
                r = tsync_lockdown_record_write(TSYNC_LOCKDOWN_ROOT, l->key, &now, &err);
        /* The layers read before are l->before's: only the new ones are freed here. */
        for (size_t i = borrowed; i < now.n; i++) {
                free(now.layers[i].name);
                free(now.layers[i].filter);
        }
        if (r < 0) {
                frontend_error(l->t.what, &err);
                return -1;
        }
        l->recorded = true;
        return 0;
}

/* A run that failed leaves the record as it found it: it lists what was
 * added to every task. Then the next lockdown of the container may start. */
static void record_end(struct lockdown *l, int code)
{
        if (l->recorded && code != CLI_EXIT_OK) {
                struct tsync_err err = { 0 };
                if (tsync_lockdown_record_write(TSYNC_LOCKDOWN_ROOT, l->key, &l->before, &err) < 0)
                        frontend_error(l->t.what, &err);
        }
        /* The record is final (the run's, or as found): the watchdog has
         * nothing left to undo, and ends. */
        (void)tsync_lockdown_watchdog_record(l->dog.sock, false);
        tsync_lockdown_watchdog_stop(&l->dog);
        tsync_lockdown_record_clear(&l->before);
        tsync_lockdown_record_unlock(TSYNC_LOCKDOWN_ROOT, l->key, l->lock);
        l->lock = -1;
}

/* One lockdown of a container at a time, from the record's read to its last
 * write: a second one waits (a run is bounded by its stop timeouts, and
 * both are wanted: the second then adds its layers on top of the first's,
 * proving and recording both), saying so. */
static int lock_container(struct lockdown *l, const struct tsync_status *st)
{
        struct tsync_err err = { 0 };
        int r = tsync_lockdown_record_key(st->init_pid, l->key, sizeof(l->key), &err);
        if (r == 0)
                r = tsync_lockdown_record_lock(TSYNC_LOCKDOWN_ROOT, l->key, false, &l->lock, &err);
        if (r == -EWOULDBLOCK) {
                fprintf(stderr, "%s: %s: another lockdown of this container is under way: waiting for it to end\n",
                        PROGRAM, l->t.what);
                err = (struct tsync_err){ 0 };
                r = tsync_lockdown_record_lock(TSYNC_LOCKDOWN_ROOT, l->key, true, &l->lock, &err);
        }
        if (r < 0) {
                frontend_error(l->t.what, &err);
                return -1;
        }
        return 0;
}

/* What runs a Podman container's execs: `podman exec` has conmon run its
 * runtime's exec, the same program conmon was given as -r (conmon is the
 * container process's parent, ppid). */
enum podman_exec { PODMAN_EXEC_UNKNOWN, PODMAN_EXEC_PLAIN, PODMAN_EXEC_OURS };

static enum podman_exec podman_exec_runtime(pid_t ppid, char *prog, size_t size)
{
        char path[64];
        if (ppid <= 1)
                return PODMAN_EXEC_UNKNOWN;
        (void)snprintf(path, sizeof(path), "/proc/%d/comm", (int)ppid);
        _cleanup_free_ char *comm = NULL;
        size_t len = 0;
        /* 15 bytes at most and a newline */
        if (tsync_read_file_at(AT_FDCWD, path, NULL, 0, 64, &comm, &len, NULL, NULL) < 0 ||
            strcmp(comm, "conmon\n") != 0)
                return PODMAN_EXEC_UNKNOWN;
        _cleanup_free_ char *args = NULL;
        if (status_read_cmdline(ppid, &args, &len) < 0)
                return PODMAN_EXEC_UNKNOWN;
        /* The first: later ones are podman's own, as --exit-command-arg values. */
        prog[0] = '\0';
        for (size_t i = 0; i < len && !prog[0]; i += strlen(args + i) + 1) {
                const char *a = args + i, *next = i + strlen(a) + 1 < len ? a + strlen(a) + 1 : NULL;
                if ((strcmp(a, "-r") == 0 || strcmp(a, "--runtime") == 0) && next)
                        (void)snprintf(prog, size, "%s", next);
                else if (strncmp(a, "--runtime=", 10) == 0)
                        (void)snprintf(prog, size, "%s", a + 10);
        }
        if (!prog[0])
                return PODMAN_EXEC_UNKNOWN;
        const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
        char self[PATH_MAX], beside[PATH_MAX + 32];
        struct stat a, b;
        if (strcmp(base, PROGRAM "-runtime") == 0)
                return PODMAN_EXEC_OURS;
        if (frontend_self_path(self, sizeof(self)) == 0 && strrchr(self, '/')) {
                *strrchr(self, '/') = '\0';
                (void)snprintf(beside, sizeof(beside), "%s/%s-runtime", self, PROGRAM);
                if (stat(prog, &a) == 0 && stat(beside, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
                        return PODMAN_EXEC_OURS;
        }
        const struct tsync_runtime *rt = tsync_runtime_by_name(base);
        return rt && !rt->sandbox ? PODMAN_EXEC_PLAIN : PODMAN_EXEC_UNKNOWN;
}

/* What later exec'd processes get: one line. For a Podman container, what
 * `podman exec` will do, where its runtime says. */
static void exec_note(const struct lockdown *l)
{
        char prog[PATH_MAX];
        enum podman_exec pe = strcmp(l->t.kind, "podman") == 0 ? podman_exec_runtime(l->parent, prog, sizeof(prog))
                                                               : PODMAN_EXEC_UNKNOWN;
        if (pe == PODMAN_EXEC_PLAIN)
                printf("%s: `podman exec` runs `%s exec` itself (conmon's runtime), not through %s-runtime: the "
                       "processes it starts will not carry the added layers (status names such processes)\n",
                       l->t.what, prog, PROGRAM);
        else if (pe == PODMAN_EXEC_OURS && l->init_ours)
                printf("%s: `podman exec` goes through %s-runtime (conmon's runtime, %s): the processes it starts get "
                       "the added layers too\n",
                       l->t.what, PROGRAM, prog);
        else if (pe == PODMAN_EXEC_OURS)
                printf("%s: `podman exec` goes through %s-runtime (conmon's runtime, %s), which refuses it: the "
                       "container does not run under our init, so the added layers could not reach the process\n",
                       l->t.what, PROGRAM, prog);
        else if (l->init_ours)
                printf("%s: processes exec'd through %s-runtime get the added layers too; a plain `runc exec`, "
                       "`crun exec` or `podman exec` without it will not carry them (status names such processes)\n",
                       l->t.what, PROGRAM);
        else
                printf("%s: later exec'd processes will not carry the added layers: the container does not run under "
                       "our init, so %s-runtime refuses such execs and a runtime without it runs them without the "
                       "layers (status names such processes)\n",
                       l->t.what, PROGRAM);
}

static void on_signal(int sig)
{
        (void)sig;
        tsync_lockdown_cancelled = 1;
}

/* SIGINT, SIGTERM and SIGHUP end the run the way a failure does: calls
 * unwound, tasks detached, the cgroup thawed, the record as it was. No
 * SA_RESTART: a wait for another lockdown's lock ends too. */
static void catch_signals(void)
{
        struct sigaction sa = { .sa_handler = on_signal };
        (void)sigemptyset(&sa.sa_mask);
        (void)sigaction(SIGINT, &sa, NULL);
        (void)sigaction(SIGTERM, &sa, NULL);
        (void)sigaction(SIGHUP, &sa, NULL);
}

/* --or-kill, whatever made the run fail: the container's processes are
 * killed and its PID 1 seen gone, or it says why not. */
static void or_kill(const struct lockdown *l, int pidfd, const struct tsync_status *st)
{
        struct tsync_err err = { 0 };
        if (pidfd < 0) {
                frontend_errorf(l->t.what, "--or-kill: nothing was killed: %s",
                                l->t.pid > 0 ? "its process could not be held (pidfd_open)"
                                             : "the container was not found");
                return;
        }
        if (tsync_lockdown_kill(pidfd, l->t.pid, st, &err) < 0) {
                frontend_errorf(l->t.what, "--or-kill: killing the container failed: %s", err.msg);
                return;
        }
        fprintf(stderr, "%s: %s: --or-kill: the container's processes were killed\n", PROGRAM, l->t.what);
}

static int run(struct lockdown *l, int pidfd, struct tsync_status *st)
{
        struct tsync_err err = { 0 };
        /* A sandbox runtime's container (gVisor) has no host tasks of its
         * workload's: refused by name, and by its processes' identity. */
        if ((strcmp(l->t.kind, "runtime") == 0 && tsync_lockdown_check_runtime(l->t.runtime, &err) < 0) ||
            tsync_lockdown_check_sandbox(l->t.pid, &err) < 0) {
                say_error(l, &err);
                return CLI_EXIT_FAILED;
        }
        /* The record names the layers before anything is frozen (record_begin). */
        if (tsync_status_read(l->t.pid, st, &err) < 0) {
                say_error(l, &err);
                return CLI_EXIT_FAILED;
        }
        if (lock_container(l, st) < 0 || record_begin(l, st) < 0)
                return CLI_EXIT_FAILED;
        struct tsync_lockdown_prog progs[TSYNC_MAX_LAYERS * 2];
        for (size_t i = 0; i < l->n_prog; i++)
                progs[i] = (struct tsync_lockdown_prog){ .insns = l->prog[i]->insns,
                                                         .len = l->prog[i]->len,
                                                         .flags = l->prog[i]->flags };
        struct tsync_lockdown_req req = { .pid = l->t.pid,
                                          .must_be_ns_init = strcmp(l->t.kind, "pid") != 0,
                                          .progs = progs,
                                          .n_progs = l->n_prog,
                                          .set_nnp = l->set_nnp,
                                          .or_kill = l->or_kill,
                                          .pidfd = pidfd,
                                          .watchdog = l->dog.sock };
        _cleanup_(tsync_lockdown_result_clear) struct tsync_lockdown_result res = { 0 };
        int r = tsync_lockdown_cancelled ? tsync_error(&err, EINTR, "lockdown was interrupted before it began")
                                         : tsync_lockdown_run(&req, &res, &err);
        /* What was done, on stdout: zombies skipped, stops kept, threads given the layer on their own. */
        for (size_t i = 0; i < res.n_notes; i++)
                print_task(l, stdout, &res.notes[i]);
        if (r == 0) {
                printf("%s: %zu filter(s) added to %zu task(s) of %zu process(es); held %ld us (cgroup frozen %ld "
                       "us)%s\n",
                       l->t.what, l->n_prog, res.tasks, res.procs, res.frozen_us, res.cgroup_us,
                       res.zombies ? "; zombies skipped" : "");
                exec_note(l);
                return CLI_EXIT_OK;
        }
        for (size_t i = 0; i < res.n_failed; i++)
                print_task(l, stderr, &res.failed[i]);
        if (!res.n_failed) {
                say_error(l, &err);
                return CLI_EXIT_FAILED;
        }
        /* Counts as they are: the tasks named (once each), the tasks the
         * proof saw carry every layer (none when it did not run). */
        size_t named = tsync_lockdown_result_tasks(&res);
        if (!res.touched)
                fprintf(stderr, "%s: %s: lockdown refused: %zu task(s) named above; nothing was changed\n", PROGRAM,
                        l->t.what, named);
        else if (res.tasks)
                fprintf(stderr,
                        "%s: %s: lockdown incomplete: %zu task(s) named above failed; %zu task(s) were proven to "
                        "carry the layers%s\n",
                        PROGRAM, l->t.what, named, res.tasks, l->or_kill ? "" : " (they keep them)");
        else
                fprintf(stderr,
                        "%s: %s: lockdown incomplete: %zu task(s) named above failed; no task was proven to carry "
                        "the layers%s\n",
                        PROGRAM, l->t.what, named, l->or_kill ? "" : " (some may carry part of them, and keep it)");
        return CLI_EXIT_FAILED;
}

static int lockdown(struct lockdown *l)
{
        struct tsync_err err = { 0 };
        catch_signals();
        /* gVisor by the name given, before its `runsc state` is asked: said as
         * gVisor whether or not the container exists (--or-kill needs it found). */
        if (!l->or_kill && strcmp(l->t.kind, "runtime") == 0 && tsync_lockdown_check_runtime(l->t.runtime, &err) < 0) {
                say_error(l, &err);
                return CLI_EXIT_FAILED;
        }
        if (status_target_resolve(&l->t, &err) < 0) {
                say_error(l, &err);
                if (l->or_kill)
                        or_kill(l, -1, NULL);
                return CLI_EXIT_FAILED;
        }
        /* Held by descriptor from here: --or-kill never kills a process
         * that took the pid over since. */
        _cleanup_close_ int pidfd = (int)syscall(SYS_pidfd_open, l->t.pid, 0);
        _cleanup_(tsync_status_clear) struct tsync_status st = { 0 };
        int code = run(l, pidfd, &st);
        if (code != CLI_EXIT_OK && l->or_kill)
                or_kill(l, pidfd, st.n ? &st : NULL);
        return code;
}

int cmd_lockdown(int argc, char **argv)
{
        enum { OPT_PROFILE_DIR = TARGET_OPT_END, OPT_NNP, OPT_OR_KILL, OPT_CACHE, OPT_NO_CACHE, OPT_NODE_CONF };
        static const struct option options[] = { TARGET_OPTIONS,
                                                 { "profile", required_argument, NULL, 'p' },
                                                 { "layers", required_argument, NULL, 'l' },
                                                 { "profile-dir", required_argument, NULL, OPT_PROFILE_DIR },
                                                 { "set-no-new-privs", no_argument, NULL, OPT_NNP },
                                                 { "or-kill", no_argument, NULL, OPT_OR_KILL },
                                                 { "cache-dir", required_argument, NULL, OPT_CACHE },
                                                 { "no-cache", no_argument, NULL, OPT_NO_CACHE },
                                                 { "node-conf", required_argument, NULL, OPT_NODE_CONF },
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
                        l.set_nnp = true;
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
                case 'h':
                        help(stdout);
                        code = CLI_EXIT_OK;
                        goto out;
                default:
                        help(stderr);
                        goto out;
                }
        }
        if (target_finish(&l.t, "lockdown", argc, argv, optind) < 0)
                goto out;
        if (n_names + n_files == 0) {
                frontend_errorf("lockdown", "nothing to add: give --profile FILE or --layers NAMES");
                goto out;
        }
        if (n_dirs == 0)
                for (size_t i = 0; i < frontend_n_default_profile_dirs; i++)
                        dirs[n_dirs++] = frontend_default_profile_dirs[i];
        code = CLI_EXIT_FAILED;
        /* What the node wants for a process that cannot take a filter as it
         * is; a policy that cannot be read is never "no policy". */
        struct tsync_err err = { 0 };
        if (tsync_node_policy_read(node_conf ? node_conf : TSYNC_NODE_CONF, &node, &err) < 0) {
                frontend_errorf("node policy", "%s", err.msg);
                goto out;
        }
        if (node.nnp == TSYNC_NODE_NNP_SET)
                l.set_nnp = true;
        if (compile(&l, names, n_names, files, n_files, dirs, n_dirs, cache_dir) < 0)
                goto out;
        code = lockdown(&l);
        record_end(&l, code);
out:
        for (size_t i = 0; i < n_files; i++)
                free(files[i]);
        tsync_plan_programs_clear(&l.progs[0]);
        tsync_plan_programs_clear(&l.progs[1]);
        free(l.t.config_path);
        return code;
}
