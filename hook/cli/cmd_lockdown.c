/* lockdown TARGET: adds layers to every task of a running container without
 * a restart (issue 26). The container is found as status finds it
 * (status_target.c, tsync_status_read); the mechanics are hook/lib's
 * (lockdown_cgroup.c, lockdown_inject.c). Order: compile; judge every task
 * (traced, ABI, NO_NEW_PRIVS or CAP_SYS_ADMIN) before touching anything;
 * freeze; judge again; seize every task; thaw (the ptrace stops hold them);
 * inject once per process; prove every task carries our programs; detach.
 * All or nothing, said plainly: a task not covered is named and the run
 * fails (or, with --or-kill, the container is killed). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "status_cli.h"
#include "tsync/cleanup.h"
#include "tsync/lockdown.h"
#include "tsync/lockdown_record.h"
#include "tsync/plan.h"

#define CAP_SYS_ADMIN_BIT 21

static void help(FILE *f)
{
        fprintf(f,
                "Usage: %s lockdown [OPTIONS] (--profile FILE | --layers NAMES)... TARGET\n"
                "Adds the layers to every thread of every process of a running container, without a restart:\n"
                "its cgroup is frozen, every task taken under ptrace, one thread of each process made to load\n"
                "the filters with SECCOMP_FILTER_FLAG_TSYNC, and every task checked before it is let go.\n"
                "Exit 0 when every task carries them; 1 naming each task that does not.\n\n" TARGET_HELP "\n"
                "Options:\n"
                "  -p, --profile FILE     a profile to add (repeatable; in order, after --layers)\n"
                "  -l, --layers NAMES     profiles by name (comma-separated) in the profile directories\n"
                "      --profile-dir DIR  where names are looked up (repeatable; default /etc/oci-seccomp-tsync/\n"
                "                         profiles, then %s/share/oci-seccomp-tsync/profiles)\n"
                "      --set-no-new-privs set NO_NEW_PRIVS first in processes that have neither it nor\n"
                "                         CAP_SYS_ADMIN (setuid programs then stop gaining privilege);\n"
                "                         without it such a container is refused\n"
                "      --or-kill          if any task could not be covered, kill the container\n"
                "      --cache-dir DIR    reuse and keep compiled programs in DIR\n"
                "      --no-cache         compile afresh\n",
                PROGRAM, TSYNC_PREFIX);
}

struct lockdown {
        struct target t;
        struct tsync_plan_programs progs[2]; /* --layers's, then --profile's */
        const struct tsync_program *prog[TSYNC_MAX_LAYERS * 2];
        const char *prog_name[TSYNC_MAX_LAYERS * 2]; /* the layer's name or file, for the record */
        size_t n_prog;
        bool set_nnp, or_kill;
        unsigned failed;
        /* The container's lockdown record (lockdown_record.h): as found, and
         * whether ours, with the new layers, was written (record_begin). */
        char key[64];
        struct tsync_lockdown_record before;
        bool recorded;
        bool init_ours; /* PID 1 is our init: the runtime wrapper can give exec'd processes the layers */
};

static void task_fail(struct lockdown *l, const struct tsync_status_task *k, const char *why)
{
        fprintf(stderr, "%s: %s: pid %d tid %d (%s): %s\n", PROGRAM, l->t.what, (int)k->pid, (int)k->tid, k->comm, why);
        l->failed++;
}

/* A number field of a task's /proc status (TracerPid, Seccomp_filters), -1
 * when unreadable. */
static int status_number(pid_t pid, pid_t tid, const char *field)
{
        char path[80], line[256];
        (void)snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
        FILE *f = fopen(path, "re");
        if (!f)
                return -1;
        size_t n = strlen(field);
        int r = -1;
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, field, n) == 0 && line[n] == ':') {
                        if (sscanf(line + n + 1, "%d", &r) != 1)
                                r = -1;
                        break;
                }
        (void)fclose(f);
        return r;
}

/* The State letter of a task ('?' when unreadable). */
static char state_of(pid_t pid, pid_t tid)
{
        char path[80], line[256];
        (void)snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
        FILE *f = fopen(path, "re");
        if (!f)
                return '?';
        char c = '?';
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "State: %c", &c) == 1)
                        break;
        (void)fclose(f);
        return c;
}

/* 1 when pid's executable is an x86_64 ELF, 0 when another, -errno. */
static int is_x86_64(pid_t pid)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        Elf64_Ehdr h;
        if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
                return 0;
        return h.e_ident[EI_CLASS] == ELFCLASS64 && h.e_machine == EM_X86_64;
}

/* Everything that would stop us, judged before anything is touched. */
static void judge(struct lockdown *l, const struct tsync_status *st)
{
        for (size_t i = 0; i < st->n; i++) {
                const struct tsync_status_task *k = &st->tasks[i];
                if (k->dead)
                        continue;
                int tr = status_number(k->pid, k->tid, "TracerPid");
                if (tr > 0) {
                        char why[96];
                        (void)snprintf(why, sizeof(why), "traced by pid %d: ptrace allows one tracer", tr);
                        task_fail(l, k, why);
                        continue;
                }
                /* A job-control stop would have to be kept across our own
                 * stops and the thaw: not handled yet, so refused. */
                if (state_of(k->pid, k->tid) == 'T') {
                        task_fail(l, k, "stopped (SIGSTOP or another stop signal): not supported yet");
                        continue;
                }
                if (k->pid == k->tid && is_x86_64(k->pid) == 0)
                        task_fail(l, k, "not an x86_64 process: lockdown supports x86_64 processes only");
                if (!k->no_new_privs && !(k->caps[TSYNC_CAPSET_EFFECTIVE] & (1ULL << CAP_SYS_ADMIN_BIT)) && !l->set_nnp)
                        task_fail(l, k,
                                  "neither NO_NEW_PRIVS nor CAP_SYS_ADMIN: the kernel takes no filter from it "
                                  "(--set-no-new-privs sets NO_NEW_PRIVS first)");
        }
}

static int yama_refuses(void)
{
        FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
        if (!f)
                return 0;
        int v = 0;
        if (fscanf(f, "%d", &v) != 1)
                v = 0;
        (void)fclose(f);
        return v == 3;
}

static long now_us(void)
{
        struct timespec ts;
        (void)clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
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
                cli_warnings("lockdown", &w);
                if (r < 0) {
                        cli_error("lockdown", &err);
                        return -1;
                }
                for (size_t i = 0; i < l->progs[pass].n; i++) {
                        const struct tsync_program *p = l->progs[pass].progs[i];
                        if (p->flags & SECCOMP_FILTER_FLAG_NEW_LISTENER || l->progs[pass].agent_host_path) {
                                cli_errorf("lockdown",
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

static void kill_container(struct lockdown *l, const struct tsync_status *st)
{
        for (size_t i = 0; i < st->n; i++)
                if (st->tasks[i].pid == st->tasks[i].tid)
                        (void)kill(st->tasks[i].pid, SIGKILL);
        fprintf(stderr, "%s: %s: --or-kill: the container's processes were killed\n", PROGRAM, l->t.what);
}

/* Injects and proves, with every task seized and stopped. */
static void cover(struct lockdown *l, const struct tsync_status *st, int *held)
{
        for (size_t i = 0; i < st->n; i++) {
                const struct tsync_status_task *k = &st->tasks[i];
                /* One live thread per process: the first in the list. */
                if (k->dead || (i > 0 && st->tasks[i - 1].pid == k->pid && !st->tasks[i - 1].dead))
                        continue;
                bool first_live = true;
                for (size_t j = 0; j < i; j++)
                        if (st->tasks[j].pid == k->pid && !st->tasks[j].dead)
                                first_live = false;
                if (!first_live)
                        continue;
                bool nnp = l->set_nnp && !k->no_new_privs &&
                           !(k->caps[TSYNC_CAPSET_EFFECTIVE] & (1ULL << CAP_SYS_ADMIN_BIT));
                for (size_t p = 0; p < l->n_prog; p++) {
                        char why[256] = "";
                        long res = 0;
                        int r = tsync_lockdown_inject(k->pid, k->tid, l->prog[p]->insns, l->prog[p]->len,
                                                      l->prog[p]->flags | SECCOMP_FILTER_FLAG_TSYNC, nnp && p == 0,
                                                      &res, &held[i], why, sizeof(why));
                        if (r == 0 && res > 0)
                                (void)snprintf(why, sizeof(why),
                                               "seccomp TSYNC: thread %ld has diverged filters: not covered", res);
                        else if (r == 0 && res < 0)
                                (void)snprintf(why, sizeof(why), "seccomp: %s", strerror((int)-res));
                        if (r < 0 || res != 0) {
                                task_fail(l, k, why);
                                break;
                        }
                }
        }
        /* The proof: every task carries exactly n_prog more, ours, newest last. */
        for (size_t i = 0; i < st->n; i++) {
                const struct tsync_status_task *k = &st->tasks[i];
                if (k->dead)
                        continue;
                int now = status_number(k->pid, k->tid, "Seccomp_filters");
                if (now != k->filters + (int)l->n_prog) {
                        char why[128];
                        (void)snprintf(why, sizeof(why), "carries %d filters, not %d", now,
                                       k->filters + (int)l->n_prog);
                        task_fail(l, k, why);
                        continue;
                }
                for (size_t p = 0; p < l->n_prog; p++) {
                        char why[256] = "";
                        int r = tsync_lockdown_filter_is(k->tid, k->filters + (int)p, l->prog[p]->insns,
                                                         l->prog[p]->len, why, sizeof(why));
                        if (r <= 0) {
                                task_fail(l, k, r == 0 ? "its newest filter is not the one we compiled" : why);
                                break;
                        }
                }
        }
}

/* Every task is stopped now: one that is not in the frozen list appeared
 * between the thaw and its creator's stop, and is not held. */
static void newcomers(struct lockdown *l, const struct tsync_status *fz)
{
        struct tsync_err err = { 0 };
        _cleanup_(tsync_status_clear) struct tsync_status now = { 0 };
        if (tsync_status_read(l->t.pid, &now, &err) < 0) {
                cli_error(l->t.what, &err);
                l->failed++;
                return;
        }
        for (size_t i = 0; i < now.n; i++) {
                if (now.tasks[i].dead)
                        continue;
                bool known = false;
                for (size_t j = 0; j < fz->n && !known; j++)
                        known = fz->tasks[j].tid == now.tasks[i].tid;
                if (!known)
                        task_fail(l, &now.tasks[i], "appeared while the container was being seized: not held");
        }
}

/* The record gets the new layers before anything is frozen: a process the
 * runtime wrapper execs into the container from then on carries them too
 * (more than the tasks being covered is never less safe). */
static int record_begin(struct lockdown *l, const struct tsync_status *st)
{
        struct tsync_err err = { 0 };
        l->init_ours = st->init_ours;
        int r = tsync_lockdown_record_key(st->init_pid, l->key, sizeof(l->key), &err);
        if (r == 0)
                r = tsync_lockdown_record_read(TSYNC_LOCKDOWN_ROOT, l->key, &l->before, &err);
        if (r < 0) {
                cli_error(l->t.what, &err);
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
                cli_error(l->t.what, &err);
                return -1;
        }
        l->recorded = true;
        return 0;
}

/* A run that failed leaves the record as it found it: it lists what was
 * added to every task. */
static void record_end(struct lockdown *l, int code)
{
        if (l->recorded && code != CLI_EXIT_OK) {
                struct tsync_err err = { 0 };
                if (tsync_lockdown_record_write(TSYNC_LOCKDOWN_ROOT, l->key, &l->before, &err) < 0)
                        cli_error(l->t.what, &err);
        }
        tsync_lockdown_record_clear(&l->before);
}

/* What later exec'd processes get: one line. */
static void exec_note(const struct lockdown *l)
{
        if (l->init_ours)
                printf("%s: processes exec'd through %s-runtime get the added layers too; a plain `runc exec`, "
                       "`crun exec` or `podman exec` without it will not carry them (status names such processes)\n",
                       l->t.what, PROGRAM);
        else
                printf("%s: later exec'd processes will not carry the added layers: the container does not run under "
                       "our init, so %s-runtime refuses such execs and a runtime without it runs them without the "
                       "layers (status names such processes)\n",
                       l->t.what, PROGRAM);
}

static int lockdown(struct lockdown *l)
{
        struct tsync_err err = { 0 };
        if (status_target_resolve(&l->t, &err) < 0) {
                cli_error(l->t.what, &err);
                return CLI_EXIT_FAILED;
        }
        _cleanup_(tsync_status_clear) struct tsync_status st = { 0 };
        if (tsync_status_read(l->t.pid, &st, &err) < 0) {
                cli_error(l->t.what, &err);
                return CLI_EXIT_FAILED;
        }
        if (strcmp(l->t.kind, "pid") != 0 && st.target_ns_pid != 1) {
                cli_errorf(l->t.what, "its process (pid %d) is %d in its pid namespace, not 1: the namespace is shared",
                           (int)l->t.pid, (int)st.target_ns_pid);
                return CLI_EXIT_FAILED;
        }
        if (yama_refuses()) {
                cli_errorf(l->t.what, "Yama ptrace_scope is 3: no process may be traced, so none can be locked down");
                return CLI_EXIT_FAILED;
        }
        judge(l, &st);
        if (l->failed || record_begin(l, &st) < 0)
                return CLI_EXIT_FAILED;
        _cleanup_free_ pid_t *pids = calloc(st.n ? st.n : 1, sizeof(*pids));
        if (!pids) {
                cli_errorf(l->t.what, "out of memory");
                return CLI_EXIT_FAILED;
        }
        for (size_t i = 0; i < st.n; i++)
                pids[i] = st.tasks[i].pid;
        struct tsync_lockdown_cgroup cg;
        if (tsync_lockdown_cgroup_find(l->t.pid, pids, st.n, &cg, &err) < 0) {
                cli_error(l->t.what, &err);
                return CLI_EXIT_FAILED;
        }
        long t0 = now_us();
        if (tsync_lockdown_freeze(&cg, &err) < 0) {
                cli_error(l->t.what, &err);
                struct tsync_err e2 = { 0 };
                (void)tsync_lockdown_thaw(&cg, &e2);
                return CLI_EXIT_FAILED;
        }
        /* Frozen: the list is final. Judge what appeared meanwhile. */
        _cleanup_(tsync_status_clear) struct tsync_status fz = { 0 };
        int code = CLI_EXIT_FAILED;
        _cleanup_free_ int *held = NULL;
        _cleanup_free_ bool *seized = NULL;
        if (tsync_status_read(l->t.pid, &fz, &err) < 0) {
                cli_error(l->t.what, &err);
                goto thaw;
        }
        judge(l, &fz);
        if (l->failed)
                goto thaw;
        held = calloc(fz.n ? fz.n : 1, sizeof(*held));
        seized = calloc(fz.n ? fz.n : 1, sizeof(*seized));
        if (!held || !seized) {
                cli_errorf(l->t.what, "out of memory");
                goto thaw;
        }
        for (size_t i = 0; i < fz.n && !l->failed; i++) {
                if (fz.tasks[i].dead)
                        continue;
                char why[160];
                int r = tsync_lockdown_seize(fz.tasks[i].tid, why, sizeof(why));
                if (r == -ESRCH)
                        fz.tasks[i].dead = true; /* it was ending as the cgroup froze: it runs nothing */
                else if (r < 0)
                        task_fail(l, &fz.tasks[i], why);
                else
                        seized[i] = true;
        }
        /* A frozen task takes its ptrace stop only once thawed, and before
         * it runs anything of its own: thaw, then wait for every stop. */
        if (tsync_lockdown_thaw(&cg, &err) < 0) {
                cli_error(l->t.what, &err);
                l->failed++;
        }
        for (size_t i = 0; i < fz.n; i++) {
                char why[160];
                int r = seized[i] ? tsync_lockdown_wait_stop(fz.tasks[i].tid, 10000, why, sizeof(why)) : 0;
                if (r == -ESRCH) {
                        fz.tasks[i].dead = true; /* it ended instead of stopping */
                        seized[i] = false;
                } else if (r < 0) {
                        task_fail(l, &fz.tasks[i], why);
                }
        }
        if (!l->failed)
                newcomers(l, &fz);
        if (!l->failed)
                cover(l, &fz, held);
        for (size_t i = 0; i < fz.n; i++)
                if (seized[i])
                        (void)tsync_lockdown_detach(fz.tasks[i].tid, held[i]);
        /* From the freeze to the last detach the workload ran nothing. */
        long held_us = now_us() - t0;
        if (!l->failed) {
                size_t procs = 0, tasks = 0;
                for (size_t i = 0; i < fz.n; i++) {
                        tasks += !fz.tasks[i].dead;
                        procs += fz.tasks[i].pid == fz.tasks[i].tid;
                }
                printf("%s: %zu filter(s) added to %zu task(s) of %zu process(es); held %ld us\n", l->t.what, l->n_prog,
                       tasks, procs, held_us);
                exec_note(l);
                code = CLI_EXIT_OK;
        } else if (l->or_kill) {
                kill_container(l, &fz);
        }
thaw:
        if (cg.frozen) {
                struct tsync_err e2 = { 0 };
                if (tsync_lockdown_thaw(&cg, &e2) < 0)
                        cli_error(l->t.what, &e2);
        }
        if (l->failed && code != CLI_EXIT_OK)
                fprintf(stderr, "%s: %s: lockdown incomplete: %u task(s) not covered%s\n", PROGRAM, l->t.what,
                        l->failed, l->or_kill && held ? "" : " (tasks already covered keep their filters)");
        return code;
}

int cmd_lockdown(int argc, char **argv)
{
        enum { OPT_PROFILE_DIR = TARGET_OPT_END, OPT_NNP, OPT_OR_KILL, OPT_CACHE, OPT_NO_CACHE };
        static const struct option options[] = { TARGET_OPTIONS,
                                                 { "profile", required_argument, NULL, 'p' },
                                                 { "layers", required_argument, NULL, 'l' },
                                                 { "profile-dir", required_argument, NULL, OPT_PROFILE_DIR },
                                                 { "set-no-new-privs", no_argument, NULL, OPT_NNP },
                                                 { "or-kill", no_argument, NULL, OPT_OR_KILL },
                                                 { "cache-dir", required_argument, NULL, OPT_CACHE },
                                                 { "no-cache", no_argument, NULL, OPT_NO_CACHE },
                                                 { "help", no_argument, NULL, 'h' },
                                                 {} };
        struct lockdown l = { .t = { .kind = NULL } };
        char *names[TSYNC_MAX_LAYERS], *files[TSYNC_MAX_LAYERS];
        size_t n_names = 0, n_files = 0, n_dirs = 0;
        const char *dirs[TSYNC_MAX_LAYERS];
        char cache_buf[PATH_MAX];
        const char *cache_dir = cli_default_cache_dir(cache_buf, sizeof(cache_buf));
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
                                cli_errorf("--profile", "more than %d", TSYNC_MAX_LAYERS);
                                goto out;
                        }
                        char *abs = realpath(optarg, NULL);
                        if (!abs) {
                                cli_errorf(optarg, "%s", strerror(errno));
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
                                cli_errorf("--layers", "out of memory");
                                goto out;
                        }
                        n_names = 0;
                        for (char *s, *tok = strtok_r(layer_arg, ",", &s); tok; tok = strtok_r(NULL, ",", &s)) {
                                if (n_names == TSYNC_MAX_LAYERS) {
                                        cli_errorf("--layers", "more than %d", TSYNC_MAX_LAYERS);
                                        goto out;
                                }
                                names[n_names++] = tok;
                        }
                        break;
                case OPT_PROFILE_DIR:
                        if (n_dirs == TSYNC_MAX_LAYERS) {
                                cli_errorf("--profile-dir", "more than %d", TSYNC_MAX_LAYERS);
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
                cli_errorf("lockdown", "nothing to add: give --profile FILE or --layers NAMES");
                goto out;
        }
        if (n_dirs == 0)
                for (size_t i = 0; i < cli_n_default_profile_dirs; i++)
                        dirs[n_dirs++] = cli_default_profile_dirs[i];
        code = CLI_EXIT_FAILED;
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
