/* lockdown of one container (lockdown TARGET, and each container of
 * lockdown --all in a child of its own): the run is hook/lockdown's
 * (tsync_lockdown_run in lockdown_tasks.c: judge, freeze, seize, thaw,
 * inject, prove, detach); here: the record, the lock, --or-kill, and saying
 * what the result holds. All or nothing, said plainly: a task not covered is
 * named and the run fails (or, with --or-kill, the container is killed). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdarg.h>
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
#include "lockdown_cli.h"
#include "plan/plan.h"
#include "shared/cleanup.h"
#include "status_cli.h"
#include "util/fileio.h"
#include "util/quote.h"

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

/* The container's outcome for lockdown --all (l->outcome: shared with the
 * parent); nothing for a lockdown of one container. */
__attribute__((format(printf, 3, 4))) static void outcome(const struct lockdown *l, enum lockdown_outcome_kind kind,
                                                          const char *fmt, ...)
{
        if (!l->outcome)
                return;
        l->outcome->kind = kind;
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(l->outcome->detail, sizeof(l->outcome->detail), fmt, ap);
        va_end(ap);
}

/* lockdown --all: l's layers cut down to those some live task lacks, in
 * their order (a layer every task holds already is not added again, so a
 * pass after a policy grew adds only what is new): how many are left, or -1
 * when the programs could not be read (why). */
static int keep_missing(struct lockdown *l, struct tsync_status *st, char *why, size_t size)
{
        st->want = l->prog;
        st->n_want = l->n_prog;
        if (tsync_status_compare_programs(st) < 0) {
                (void)snprintf(why, size, "out of memory");
                return -1;
        }
        if (!st->programs.compared) {
                (void)snprintf(why, size, "%s", st->programs.what);
                return -1;
        }
        uint32_t everyone = l->n_prog >= 32 ? ~0u : (1u << l->n_prog) - 1;
        const struct tsync_status_task *unread = NULL;
        size_t n_unread = 0;
        for (size_t i = 0; i < st->n; i++) {
                const struct tsync_status_task *k = &st->tasks[i];
                if (k->dead)
                        continue;
                if (k->chain == TSYNC_CHAIN_READ) {
                        everyone &= k->holds;
                } else if (n_unread++ == 0) {
                        unread = k;
                }
        }
        size_t n = 0;
        for (size_t j = 0; j < l->n_prog; j++)
                if (!(everyone & (1u << j))) {
                        l->prog[n] = l->prog[j];
                        l->prog_name[n++] = l->prog_name[j];
                }
        /* Every task read holds them all: a task that could not be read
         * (one that would not stop in time) is not known to lack them, and
         * adding them all again would stack them on every other task. */
        if (n == 0 && unread) {
                (void)snprintf(why, size, "%zu task(s) could not be read (pid %d tid %d: %s)", n_unread,
                               (int)unread->pid, (int)unread->tid, unread->why);
                return -1;
        }
        l->n_prog = n;
        return (int)n;
}

/* st's live tasks, all or only those the kernel takes no filter from as
 * they are (tsync_lockdown_takes_no_filter): how many, and of how many
 * processes (tasks come in process order). */
static size_t live_tasks(const struct tsync_status *st, bool only_no_filter, size_t *ret_procs)
{
        size_t n = 0, procs = 0;
        pid_t last = 0;
        for (size_t i = 0; i < st->n; i++) {
                const struct tsync_status_task *k = &st->tasks[i];
                if (k->dead || (only_no_filter && !tsync_lockdown_takes_no_filter(k)))
                        continue;
                n++;
                procs += k->pid != last;
                last = k->pid;
        }
        *ret_procs = procs;
        return n;
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
        if (l->outcome)
                l->outcome->killed = true;
}

static int run(struct lockdown *l, int pidfd, struct tsync_status *st)
{
        struct tsync_err err = { 0 };
        /* A sandbox runtime's container (gVisor) has no host tasks of its
         * workload's: refused by name, and by its processes' identity. */
        if ((strcmp(l->t.kind, "runtime") == 0 && tsync_lockdown_check_runtime(l->t.runtime, &err) < 0) ||
            tsync_lockdown_check_sandbox(l->t.pid, &err) < 0) {
                say_error(l, &err);
                outcome(l, l->dry_run ? LOCKDOWN_WOULD_REFUSE : LOCKDOWN_REFUSED, "%s", err.msg);
                return CLI_EXIT_FAILED;
        }
        /* The record names the layers before anything is frozen (record_begin). */
        if (tsync_status_read(l->t.pid, st, &err) < 0) {
                say_error(l, &err);
                outcome(l,
                        err.code == ESRCH ? LOCKDOWN_GONE
                        : l->dry_run      ? LOCKDOWN_WOULD_REFUSE
                                          : LOCKDOWN_REFUSED,
                        "%s", err.msg);
                return CLI_EXIT_FAILED;
        }
        /* lockdown --all: under the container's lock, so that two runs side
         * by side add the layers once. */
        if (!l->dry_run && lock_container(l, st) < 0) {
                outcome(l, LOCKDOWN_REFUSED, "another lockdown of it could not be waited for");
                return CLI_EXIT_FAILED;
        }
        if (l->only_missing) {
                char why[256];
                size_t asked = l->n_prog;
                int c = keep_missing(l, st, why, sizeof(why));
                if (c < 0) {
                        frontend_errorf(l->t.what,
                                        "its filters could not be read to tell whether it carries the "
                                        "layers: %s",
                                        why);
                        outcome(l, l->dry_run ? LOCKDOWN_WOULD_REFUSE : LOCKDOWN_REFUSED,
                                "its filters could not be read to tell whether it carries the layers: %s", why);
                        return CLI_EXIT_FAILED;
                }
                if (c == 0) {
                        outcome(l, LOCKDOWN_ALREADY, "every task carries the %zu layer(s)", asked);
                        return CLI_EXIT_OK;
                }
        }
        if (l->dry_run) {
                size_t nnp_procs = 0, procs, live = live_tasks(st, false, &procs);
                size_t nnp = l->set_nnp ? 0 : live_tasks(st, true, &nnp_procs);
                if (nnp)
                        outcome(l, LOCKDOWN_WOULD_REFUSE,
                                "%zu task(s) of %zu process(es) have neither NO_NEW_PRIVS nor CAP_SYS_ADMIN "
                                "(Podman's and Docker's default): the kernel takes no filter from them; "
                                "no-new-privs = set in node.conf, or --set-no-new-privs, sets it first",
                                nnp, nnp_procs);
                else
                        outcome(l, LOCKDOWN_WOULD_COVER, "%zu layer(s) to %zu task(s) of %zu process(es)", l->n_prog,
                                live, procs);
                return nnp ? CLI_EXIT_FAILED : CLI_EXIT_OK;
        }
        if (record_begin(l, st) < 0) {
                outcome(l, LOCKDOWN_REFUSED, "its lockdown record could not be written");
                return CLI_EXIT_FAILED;
        }
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
                outcome(l, LOCKDOWN_COVERED, "%zu layer(s) added to %zu task(s) of %zu process(es), held %ld us%s",
                        l->n_prog, res.tasks, res.procs, res.frozen_us, res.zombies ? ", zombies skipped" : "");
                exec_note(l);
                return CLI_EXIT_OK;
        }
        if (!res.n_failed) {
                say_error(l, &err);
                outcome(l, res.touched ? LOCKDOWN_INCOMPLETE : LOCKDOWN_REFUSED, "%s", err.msg);
                return CLI_EXIT_FAILED;
        }
        /* Counts as they are: the tasks named (once each), the tasks the
         * proof saw carry every layer (none when it did not run). */
        size_t named = tsync_lockdown_result_tasks(&res);
        /* Every task refused a filter for want of NO_NEW_PRIVS (a default
         * Podman or Docker container): one line, with the fix. */
        size_t nnp = 0, nnp_procs = 0;
        for (size_t i = 0; i < res.n_failed; i++)
                if (res.failed[i].no_nnp) {
                        nnp++;
                        nnp_procs += i == 0 || res.failed[i].pid != res.failed[i - 1].pid;
                }
        if (!res.touched && nnp == res.n_failed) {
                /* The first task named, its comm quoted: the container chose it. */
                char comm[TSYNC_QUOTED_MAX(sizeof(res.failed[0].comm)) + 1];
                (void)tsync_quote(comm, sizeof(comm), res.failed[0].comm, strlen(res.failed[0].comm));
                fprintf(stderr,
                        "%s: %s: lockdown refused: %zu task(s) of %zu process(es) (pid %d tid %d (%s) the first) have "
                        "neither NO_NEW_PRIVS nor CAP_SYS_ADMIN (Podman's and Docker's default), and the kernel takes "
                        "no filter from them: give --set-no-new-privs (or set no-new-privs = set in %s) to set it "
                        "first; nothing was changed\n",
                        PROGRAM, l->t.what, nnp, nnp_procs, (int)res.failed[0].pid, (int)res.failed[0].tid, comm,
                        l->node_conf);
                outcome(l, LOCKDOWN_REFUSED,
                        "%zu task(s) of %zu process(es) have neither NO_NEW_PRIVS nor CAP_SYS_ADMIN (Podman's and "
                        "Docker's default): no-new-privs = set in node.conf, or --set-no-new-privs, sets it first; "
                        "nothing was changed",
                        nnp, nnp_procs);
                return CLI_EXIT_FAILED;
        }
        for (size_t i = 0; i < res.n_failed; i++)
                print_task(l, stderr, &res.failed[i]);
        /* Raw: lockdown --all quotes what it prints, and JSON escapes. */
        const char *first = res.failed[0].why;
        if (!res.touched) {
                fprintf(stderr, "%s: %s: lockdown refused: %zu task(s) named above; nothing was changed\n", PROGRAM,
                        l->t.what, named);
                outcome(l, LOCKDOWN_REFUSED, "%zu task(s) (pid %d tid %d: %s); nothing was changed", named,
                        (int)res.failed[0].pid, (int)res.failed[0].tid, first);
        } else if (res.tasks) {
                fprintf(stderr,
                        "%s: %s: lockdown incomplete: %zu task(s) named above failed; %zu task(s) were proven to "
                        "carry the layers%s\n",
                        PROGRAM, l->t.what, named, res.tasks, l->or_kill ? "" : " (they keep them)");
                outcome(l, LOCKDOWN_INCOMPLETE, "%zu task(s) failed (pid %d tid %d: %s); %zu carry the layers", named,
                        (int)res.failed[0].pid, (int)res.failed[0].tid, first, res.tasks);
        } else {
                fprintf(stderr,
                        "%s: %s: lockdown incomplete: %zu task(s) named above failed; no task was proven to carry "
                        "the layers%s\n",
                        PROGRAM, l->t.what, named, l->or_kill ? "" : " (some may carry part of them, and keep it)");
                outcome(l, LOCKDOWN_INCOMPLETE,
                        "%zu task(s) failed (pid %d tid %d: %s); none proven to carry the "
                        "layers",
                        named, (int)res.failed[0].pid, (int)res.failed[0].tid, first);
        }
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
        if (strcmp(l->t.kind, "node") != 0 && status_target_resolve(&l->t, &err) < 0) {
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
        if (code != CLI_EXIT_OK && l->or_kill && !l->dry_run)
                or_kill(l, pidfd, st.n ? &st : NULL);
        return code;
}

int lockdown_container(struct lockdown *l)
{
        int code = lockdown(l);
        record_end(l, code);
        return code;
}
