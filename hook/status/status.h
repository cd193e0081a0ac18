/* status: what protects a running container, task by task. status.c reads
 * the kernel's view (/proc), status_decide.c says what the container asked
 * (its config's plan or annotations, or the init's own command line) and
 * compares; neither prints: hook/cli/cmd_status.c does.
 *
 * A container's processes are those of its pid namespace: every engine gives
 * a container one of its own by default, and it is there even where the
 * container has no cgroup of its own (crun --cgroup-manager=disabled, a
 * rootless engine without delegation), while a process moved out of the
 * container's cgroup (or a nested one) would still be in it. A container
 * that shares a pid namespace (the host's, a pod's) is refused, since its
 * processes cannot be told from the others'. */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shared/capsets.h"
#include "shared/error.h"

struct tsync_json;

/* The capability sets, by enum tsync_capset: shared/capsets.h's records (the
 * config's key, also our JSON's; /proc's line). */

enum tsync_status_role {
        TSYNC_ROLE_INIT,      /* the main thread of the namespace's PID 1 */
        TSYNC_ROLE_INIT_TASK, /* another thread of PID 1 (our init's signal, exec-once, recorder threads) */
        TSYNC_ROLE_WORKLOAD,  /* a process PID 1 started (or one of theirs), any of its threads */
        TSYNC_ROLE_OTHER,     /* in the namespace but not started by PID 1: `runc exec`, `podman exec`, ... */
        /* Such a process while it still runs the runtime's own binary (runc's
         * or crun's init setting up an exec): it loads its profile before it
         * runs anything of the container's, so it is not judged yet. Never
         * a process PID 1 started: the workload cannot pass for one. */
        TSYNC_ROLE_STARTING,
};
const char *tsync_status_role_name(enum tsync_status_role r);

enum tsync_status_chain {
        TSYNC_CHAIN_NOT_READ, /* not asked for (--no-programs, nothing to judge) */
        TSYNC_CHAIN_READ,
        TSYNC_CHAIN_FAILED, /* asked for, not read: why says why */
};

/* One task, as /proc/PID/task/TID/status shows it. */
struct tsync_status_task {
        pid_t pid;    /* host: the process (Tgid) */
        pid_t tid;    /* host */
        pid_t ns_pid; /* the process in the container's pid namespace (NStgid's last) */
        pid_t ppid;   /* host */
        pid_t tracer; /* TracerPid: the process that ptraces it, 0 none */
        char comm[17];
        bool runtime_exe; /* the process runs a runtime's binary (runc, crun, runc's memfd copy) */
        bool dead;        /* State Z or X: it runs nothing any more (a main thread that exited before its
                           * process's other threads, a child not reaped yet), so it is not judged */
        char state;       /* State's letter (T: a job-control stop; D also when a v1 freezer froze it) */
        int seccomp;      /* Seccomp: 0 none, 1 strict, 2 filter */
        int filters;      /* Seccomp_filters, -1 when the kernel does not show it */
        int no_new_privs; /* NoNewPrivs */
        uint64_t caps[TSYNC_CAPSET_COUNT];
        /* The lowest fd of an io_uring ring the process holds (its main
         * thread's entry only), else -1: a ring's requests are not system
         * calls, so no seccomp filter sees them. */
        int io_uring_fd;
        /* Its programs (PTRACE_SECCOMP_GET_FILTER), set by
         * tsync_status_compare_programs: read, and how many of PID 1's
         * programs it carries too, in their order (matched); or why they
         * could not be read (why, from the kernel: ours). */
        enum tsync_status_chain chain;
        int matched;
        uint32_t holds; /* bit j: its chain holds st->want[j] */
        char why[96];
        /* Set by tsync_status_decide. */
        enum tsync_status_role role;
        int expected;    /* the filters it should carry at least; -1 when nothing is asked */
        bool short_of;   /* it carries less than asked (a shortfall names it) */
        bool unverified; /* it should carry filters, and its programs were not read: never "protected" */
};

struct tsync_status_prog {
        struct sock_filter *insns;
        size_t len;
};

/* PID 1's programs against its filter files and against what the plan
 * compiles to now (status_programs.c). */
struct tsync_status_programs {
        bool compared;     /* the kernel's programs were read */
        size_t n;          /* the init's filters compared */
        int differ;        /* the first of them whose program is not its file's, else -1 */
        char what[160];    /* differ's file, or why nothing was compared */
        bool files_failed; /* PID 1's were read, its filter files were not (what says why) */
        /* PID 1's main thread's programs, oldest first (the kernel's index 0). */
        struct tsync_status_prog *kernel;
        size_t n_kernel;
        /* Against the plan compiled now: drift is the first plan filter whose
         * program is not the kernel's (a profile changed since the start),
         * else -1; drift_what its label, or why no comparison was made. */
        bool plan_compared;
        int drift;
        char drift_what[160];
        /* The newest n_added programs against lockdown's record: the first
         * that is not the layer it names, else -1. */
        int added_differ;
};

struct tsync_program;

/* What the kernel shows of a container. */
struct tsync_status {
        pid_t init_pid; /* host pid of the namespace's PID 1 */
        /* PID 1 runs our init: the file /proc/PID/exe opens is, by device
         * and inode, an init the host delivered (tsync_status_judge_init),
         * never by its path, which the container chooses. */
        bool init_ours;
        bool init_exe_known; /* init_dev and init_ino were read */
        dev_t init_dev;
        ino_t init_ino;
        char init_exe[256]; /* PID 1's exe as /proc shows it ("" when unreadable): the container's text */
        /* The pid read from, in its namespace: a container's own process (an
         * engine's pid) that is not 1 there shares the namespace (a pod). */
        pid_t target_ns_pid;
        struct tsync_status_task *tasks; /* processes in pid order, each main thread first */
        size_t n;
        struct tsync_status_programs programs;
        /* Set by the caller before tsync_status_compare_programs: the layers
         * lockdown added on top of everything (its record's sha256 of each
         * program, oldest first). */
        const char (*added_sha256)[65];
        size_t n_added;
        /* Set by the caller before tsync_status_compare_programs: programs
         * (at most 32) each read task is searched for, anywhere in its
         * chain (lockdown --all: which layers each task lacks); holds. */
        const struct tsync_program *const *want;
        size_t n_want;
};
void tsync_status_clear(struct tsync_status *s);

/* The most a task's status file may hold: Groups alone can list 65536 gids. */
#define TSYNC_STATUS_FILE_MAX (1u << 20)
/* The most /proc/PID/stat may hold: one line, a comm of 16 bytes and some 50 numbers. */
#define TSYNC_PROC_STAT_MAX 4096

/* /proc/PID/stat, whole, into *ret_line (the caller frees it), and
 * *ret_fields past the comm's closing ")" (the comm may hold any byte): the
 * state first, then the numbers. -errno, with err (may be NULL) naming the
 * file; -EIO when there is no ")". */
int tsync_proc_stat_read(pid_t pid, char **ret_line, const char **ret_fields, struct tsync_err *err);
/* pid's parent, from /proc/PID/stat: 0, or -errno with err (may be NULL) naming the file. */
int tsync_proc_parent(pid_t pid, pid_t *ret, struct tsync_err *err);

/* Parses one task's status file (/proc/PID/task/TID/status; pid may be
 * any task of its process: t->pid is its Tgid). -ENOENT when it is gone.
 * For lockdown, which lists a frozen cgroup's tasks without a namespace
 * scan. */
int tsync_status_read_task(pid_t pid, pid_t tid, struct tsync_status_task *t);

/* Reads every task of the pid namespace that pid is in. -ESRCH when pid is
 * gone, -EPERM (with the reason) when the namespace is ours (the host's) or
 * has no PID 1 we can see. Tasks that end while being read are left out.
 * init_ours is judged against the init installed beside the running
 * program alone; a caller with the config judges again
 * (tsync_status_judge_init). */
int tsync_status_read(pid_t pid, struct tsync_status *ret, struct tsync_err *err);
/* Whether PID 1's exe is, by device and inode, one of the n files at paths
 * (the host's: the source of the config's mount at TSYNC_CONTAINER_INIT, the
 * init installed beside us); sets st->init_ours. A path that cannot be
 * stat'ed is skipped. */
void tsync_status_judge_init(struct tsync_status *st, const char *const *paths, size_t n);

/* The order tsync_status_read leaves tasks in (qsort): by process, its
 * main thread first, then by tid. */
int tsync_status_task_cmp(const void *a, const void *b);

/* How long a task may take to reach its ptrace stop before it is let go
 * and reported unverified (a task in vfork, a frozen one, ...). */
#define TSYNC_STATUS_STOP_DEADLINE_MS 2000

/* Stops every live task but a runtime's (st's, one at a time, each for a
 * moment) and reads its seccomp programs (PTRACE_SECCOMP_GET_FILTER:
 * CAP_SYS_ADMIN, and no filter on the caller). The stops are made by a child
 * process, which is killed when a task misses its deadline, so that no task
 * is ever left traced; each task gets chain and matched against PID 1's.
 * The newest n_added of PID 1's must be lockdown's layers (added_differ);
 * when PID 1 is our init, those below them must be, one for one, the filter
 * files on its command line (--filter PATH opened inside its root with
 * openat2(RESOLVE_IN_ROOT), regular files only; --filter-data).
 * Fills st->programs; when they cannot be read, compared stays false and
 * what says why. -ENOMEM only. */
int tsync_status_compare_programs(struct tsync_status *st);

/* After tsync_status_compare_programs: the newest of PID 1's programs must
 * be the plan's filters as compiled now (progs from tsync_plan_compile):
 * sets st->programs.plan_compared and drift. */
struct tsync_plan;
struct tsync_plan_programs;
/* How many of progs[0..n), in order, PID 1's programs hold, each after the
 * one before it (the node's layers: added at the start among the plan's, or
 * by lockdown on top, with the container's own between them). 0 when
 * tsync_status_compare_programs read nothing; every other task is held to
 * PID 1's programs by that comparison. */
struct tsync_program;
size_t tsync_status_programs_held(const struct tsync_status *st, const struct tsync_program *const *progs, size_t n);

/* Frees the kernel's programs kept in c (tsync_status_clear does it). */
void tsync_status_programs_free(struct tsync_status_programs *c);
void tsync_status_compare_plan(struct tsync_status *st, const struct tsync_plan *plan,
                               const struct tsync_plan_programs *progs);

/* What the container asked for. */
struct tsync_status_expect {
        bool asked;            /* something of ours asks for us (a plan, or the user's annotations) */
        bool plan;             /* the config carries our plan: inject, precreate or the wrapper rewrote it */
        const char *source;    /* "plan", "annotations", "init command line" or "nothing" */
        const char *asked_by;  /* the first annotation that asks, for messages (no plan), or NULL */
        bool asked_by_unknown; /* asked_by is a name under our prefix that no front end knows (a typo?) */
        bool in_place;         /* the plan runs the workload as PID 1 (--exec) */
        bool baseline_known;
        unsigned baseline; /* the runtime's own linux.seccomp (layer mode): 0 or 1 */
        unsigned n_tsync;  /* the plan's filters the init loads with TSYNC on every thread */
        bool record;       /* + the recording filter on the init's main thread (and its children) */
        int exec_once;     /* exec once's errno, 0 when not asked */
        size_t n_layers;
        bool replace; /* replace mode: the config's linux.seccomp is one of the n_tsync */
        bool no_new_privs;
        bool have_caps; /* the original process.capabilities (a config without it keeps the runtime's) */
        uint64_t caps[TSYNC_CAPSET_COUNT];
        /* Layers `lockdown` added (its record, lockdown_record.h): every
         * task carries them on top of the rest, a process exec'd since as
         * well. Set by the caller; enough alone to ask. */
        unsigned n_lockdown;
        /* Set by the caller: how PID 1's command line (which PID 1 can
         * write, by an exec of the init) differs from the plan, "" when it
         * does not; a line of its own, never what is asked. */
        char disagree[128];
};

/* From a container's config.json (as the runtime got it: rewritten when our
 * hooks ran). */
int tsync_status_expect_from_config(const struct tsync_json *config, struct tsync_status_expect *ret,
                                    struct tsync_err *err);

/* Our init's command line (NUL-separated, as /proc/PID/cmdline, len bytes
 * with the last NUL) read by the init's own parser (shared/init_args.h): *ret
 * points into cmdline through *ret_argv, which the caller frees. -EINVAL
 * when the init would not have run with it. */
struct tsync_init_args;
int tsync_status_init_args(const char *cmdline, size_t len, struct tsync_init_args *ret, char ***ret_argv,
                           struct tsync_err *err);

/* From our init's command line (NUL-separated, as /proc/PID/cmdline), when
 * no config is at hand: the runtime's own filter is then unknown. */
int tsync_status_expect_from_cmdline(const char *cmdline, size_t len, struct tsync_status_expect *ret,
                                     struct tsync_err *err);

enum tsync_verdict {
        TSYNC_VERDICT_PROTECTED,   /* every task carries what was asked */
        TSYNC_VERDICT_SHORT,       /* some task carries less (the shortfalls say which) */
        TSYNC_VERDICT_UNPROTECTED, /* asked for us, but our init never ran: the hooks were not found */
        TSYNC_VERDICT_NOT_ASKED,   /* nothing of ours was asked for, nor runs */
        TSYNC_VERDICT_UNVERIFIED,  /* the counts agree, but some task's programs could not be read */
};
const char *tsync_verdict_name(enum tsync_verdict v);

/* Compares st with e: sets each task's role, expected count and short_of,
 * and adds one line to shortfalls (the CLI prints them) for each thing that
 * carries less than asked, naming pid, tid and comm. Pure: reads nothing. */
enum tsync_verdict tsync_status_decide(struct tsync_status *st, const struct tsync_status_expect *e,
                                       struct tsync_warnings *shortfalls);
