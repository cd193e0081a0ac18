/* seccomp-tsync-init: what its parts share. Static binary, libc only
 * (capabilities by the kernel's interface, shared/cap_kernel.h), no heap after start-up. Only this
 * directory's code prints, one line at a time. */
#pragma once

#include <linux/filter.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "shared/capsets.h"
#include "shared/init_args.h"
#include "shared/init_caps.h"

#define INIT_PROGRAM     "seccomp-tsync-init"
#define INIT_MAX_FILTERS TSYNC_INIT_MAX_FILTERS

/* Exit codes of the init when the workload never started (documented in
 * --help). Otherwise it exits with the workload's status, or 128+signal. */
enum init_exit {
        INIT_EXIT_USAGE = 121,       /* bad command line */
        INIT_EXIT_FILTER = 122,      /* a filter file is missing, malformed or refused */
        INIT_EXIT_PRIVS = 123,       /* capabilities or NO_NEW_PRIVS cannot be arranged, or a thread differs */
        INIT_EXIT_KERNEL = 124,      /* the kernel refused a filter (flag, program, divergent thread) */
        INIT_EXIT_VERIFY = 125,      /* a thread does not show the filters, or they cannot be verified */
        INIT_EXIT_CANNOT_EXEC = 126, /* CMD cannot be executed (or the init cannot start it) */
        INIT_EXIT_NOT_FOUND = 127,   /* CMD not found */
};

struct init_filter {
        const char *name;               /* for messages: its path, or "filter N (--filter-data)" */
        const struct sock_filter *prog; /* points into the file's static buffer */
        size_t len;
        uint32_t flags;
        uint32_t listener;          /* enum tsync_listener: loaded with NEW_LISTENER and TSYNC_ESRCH when set */
        const char *agent_path;     /* TSYNC_LISTENER_AGENT: the agent's socket, from the file's trailer */
        const char *agent_metadata; /* and the listenerMetadata ("" when none) */
};

/* How the init proves that every thread carries the filters (--verify). */
enum init_verify {
        INIT_VERIFY_AUTO,  /* /proc's Seccomp_filters counts when the kernel shows them, else the probe */
        INIT_VERIFY_PROC,  /* the counts only: no Seccomp_filters is a refusal */
        INIT_VERIFY_PROBE, /* the probe, and the counts too when the kernel shows them */
};

/* Where one filter comes from, in command-line order: exactly one is set. The
 * data is the filter file in base64, carried in the init's own arguments so
 * that the host keeps no per-container file for it (issue 15). */
struct init_filter_source {
        const char *file; /* --filter */
        const char *data; /* --filter-data */
};

struct init_config {
        struct init_filter_source filters[INIT_MAX_FILTERS];
        size_t nfilters;
        const char *caps[TSYNC_CAPSET_COUNT]; /* the option's text; NULL when not given */
        bool no_new_privs;
        bool allow_nnp;
        bool exec;
        int exec_once;      /* --exec-once ERRNO: the errno for every exec but the workload's; 0: not given */
        const char *relay;  /* --relay SOCKET: createRuntime's relay, for a notify agent */
        const char *record; /* --record FILE: where the recorder appends the workload's calls */
        bool pgroup;
        bool warn_replace; /* --warn-replace: replace mode's warning on stderr before the filters */
        enum init_verify verify;
        char **cmd; /* NULL-terminated */
};

/* log.c: "seccomp-tsync-init: <what>: <why>" on stderr in one write. Keep errno. */
void init_log(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void init_warn(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* msg is "<what>: <why>" already (a library's refusal, tsync_err's message). */
void init_log_msg(const char *msg);
/* The errno (or -errno) in glibc's words under any libc (shared/errnos.h): never NULL, never allocating. */
const char *init_strerror(int e);

/* options.c: fills *cfg from argv. Returns -1 after printing (exit 121), 1
 * after printing help or version (exit 0), 0 to go on. */
int init_parse_options(int argc, char **argv, struct init_config *cfg);

/* filters.c: reads every file of cfg, or decodes its base64, into static
 * buffers, decodes and validates the filter file, and refuses USER_NOTIF
 * returns in a filter without a listener, and a second filter with one. Prints and returns -1 on the first bad filter.
 */
int init_filters_read(const struct init_config *cfg, struct init_filter *ret, size_t *ret_n);
/* Opens path without following a symlink in any component (the last one
 * opened with last_flags | O_NOFOLLOW | O_CLOEXEC, and mode): a directory the
 * runtime mounts in the container's root filesystem may hold a planted
 * symlink, which must stop the container, not redirect the init. ".." is
 * refused (-EINVAL, as is a component over 255 bytes); a symlink anywhere on
 * the way is -ELOOP. Returns the fd or -errno. */
int init_open_no_symlinks(const char *path, int last_flags, mode_t mode);

/* caps.c: the capability and NO_NEW_PRIVS plan, decided before the first
 * filter: the decision itself is tsync_init_caps_decide (shared/init_caps.h,
 * pure, table-tested); this adds what acting and proving need of the read. */
struct init_caps {
        struct tsync_init_caps_plan plan; /* what to drop, set, raise, and every thread's end */
        int last_cap;
        int securebits;  /* at start, never changed; -1: the kernel has none (gVisor) */
        bool nnp_shown;  /* /proc shows NoNewPrivs (gVisor does not) */
        bool no_ambient; /* the kernel has no ambient set (gVisor): no CapAmb either */
};

/* Parses the lists (exact names of shared/capnames.h only) and checks the
 * kernel will accept the transition; an ambient capability the kernel will not
 * raise is a warning, here. Prints and returns -1 (exit 121 for a bad name,
 * 123 otherwise, in *ret_exit). */
int init_caps_plan(const struct init_config *cfg, struct init_caps *ret, int *ret_exit);
/* These act on the calling thread only, as Linux keeps all of it per thread.
 * Drops the bounding set: before the first filter. Prints and returns -1. */
int init_caps_bounding(const struct init_caps *caps);
/* Sets NO_NEW_PRIVS if planned: before the first filter. Prints and returns -1. */
int init_caps_nnp(const struct init_caps *caps);
/* capset P/E/I, then the ambient set as planned. Prints and returns -1. */
int init_caps_apply(const struct init_caps *caps);
/* "CAP_KILL", or "capability N" in buf; never allocates. */
const char *init_cap_name(int cap, char *buf, size_t size);

/* threads.c: every thread the init ever has, one row each (its comment says
 * what each must carry). tid: its TID, 0 when this run did not start it;
 * run: runs fn(arg) on it and waits (prints and returns -1), NULL for the
 * main thread (the caller). */
enum init_thread {
        INIT_THREAD_MAIN,
        INIT_THREAD_SIGNALS,
        INIT_THREAD_EXEC_ONCE,
        INIT_THREAD_RECORDER,
        INIT_THREAD_COUNT,
};
struct init_thread_def {
        const char *who;        /* in messages: "the <who> thread" */
        const char *comm;       /* its name in /proc (shared/init_threads.h); NULL: the process's */
        const char *started_by; /* where, and when */
        bool probe;             /* the proof by effect (verify_probe.c) can ask it; else /proc's counts alone */
        bool record_filter;     /* loads the recording filter (no TSYNC): carries one filter more */
        pid_t (*tid)(void);
        int (*run)(void (*fn)(void *arg), void *arg);
};
const struct init_thread_def *init_thread(enum init_thread t);
/* The row of a TID, or NULL: a thread the init did not start. */
const struct init_thread_def *init_thread_by_tid(pid_t tid);

/* privs.c: the same on every thread, and the proof. init_privs_threads: the
 * main thread drops its bounding set and sets NO_NEW_PRIVS (and changes P/E/I/A
 * too unless caps_after_filter); the signal thread makes its whole transition
 * (it loads nothing); each then checks its own securebits and NO_NEW_PRIVS.
 * Before the first filter. Prints and returns INIT_EXIT_PRIVS, or 0. */
int init_privs_threads(const struct init_caps *caps);
/* One thread's status against caps->plan.expect and expect_nnp: -EPERM naming the
 * thread and the line that differs. */
struct init_thread_status;
struct tsync_err;
int init_privs_check(const struct init_caps *caps, const struct init_thread_status *st, struct tsync_err *err);

/* proof.c: the proof after the load, with reads alone. init_proof_prepare,
 * before the load: lists /proc/self/task and opens each thread's status file;
 * counts is false where the kernel shows no Seccomp_filters (gVisor, Linux <
 * 5.9); every thread of threads.c's table this run started must be listed. With final_caps, the capabilities are final
 * already: every thread must show exactly final_caps->plan.expect and expect_nnp in that same reading, before any
 * filter. init_proof_check, after the load and the last capability change: reads each once; every live thread must show
 * Seccomp 2 and its count up by nfilters (where counts are shown), with recording the table's thread that loaded the
 * recording filter (the main thread) by nfilters + 1, and exactly caps->plan.expect and expect_nnp. A thread of the
 * table gone meanwhile is a refusal (none exits before the workload starts); another one is skipped, but not with
 * every_thread (a notify agent may answer the reads, so "gone" may be its answer). Both print and return an exit code
 * (125, or 123 for capabilities) or 0. */
#define INIT_PROOF_MAX_THREADS 64
struct init_proof_thread {
        pid_t tid;
        int fd;      /* its status file, O_CLOEXEC */
        int filters; /* Seccomp_filters before the load; -1 where not shown */
};
struct init_proof {
        size_t n;
        bool counts;
        struct init_proof_thread threads[INIT_PROOF_MAX_THREADS];
};
int init_proof_prepare(struct init_proof *ret, bool list, const struct init_caps *final_caps);
int init_proof_check(const struct init_proof *p, unsigned nfilters, bool recording, const struct init_caps *caps,
                     bool every_thread);

/* sigmask.c: the init's signal mask. init_sigmask_block blocks every signal
 * in the calling thread: the main thread first thing, so that none is lost or
 * kills the init while it sets up, and each worker again (worker.c), as a new
 * thread gets libc's own unblocked. init_sigmask_unblock unblocks every
 * signal in the calling thread, for the workload. Both print and return -1 on
 * failure: the workload must not start with signals blocked. */
int init_sigmask_block(void);
int init_sigmask_unblock(void);

/* signals.c: the signal thread, a worker (worker.c) that waits for signals
 * between its jobs and forwards them to the workload (the main thread reaps:
 * run.c). init_signals_start resets every disposition to default and starts
 * the signal thread; on_main_death (or NULL) runs on it if the main thread
 * dies before the workload runs, right before the init exits. Prints and
 * returns -1 on failure. */
int init_signals_start(bool pgroup, void (*on_main_death)(void));
/* What init_signals_start does but the thread: in place (--exec) the init
 * starts no thread, since a runtime's profile may deny clone before our load;
 * signals that come meanwhile stay pending, blocked, and take their default
 * action when the mask is cleared right before the execve, as they would on a
 * workload that has not started yet. */
void init_signals_defaults(void);
/* The workload runs as pid: forward the signals that came before, and the
 * next ones. -1 once it is reaped: signals are dropped from then on. */
void init_signals_workload(pid_t pid);
/* Exec mode: from now on signals go to the main thread; those that came
 * before are re-raised there. They take their default action once the mask
 * is cleared, as they would have on a workload that has not started yet. */
void init_signals_handoff(void);

/* Runs fn(arg) on the signal thread and waits for it to return (5 s at most,
 * init_worker_run), so that the probe can be made by that thread too. Prints
 * and returns -1 if the thread does not answer. init_signals_tid: its TID
 * once started, else 0. */
int init_signals_run(void (*fn)(void *arg), void *arg);
pid_t init_signals_tid(void);

/* agent.c: notify agents, through createRuntime's relay (shared/relay_proto.h).
 * init_agent_prepare: --relay (path) with an agent filter, or with a
 * recording filter and no --record FILE (record_file), and only then.
 * init_agent_connect, the last thing before the first filter: connects to the
 * relay and waits until it accepted the init (0 without an agent).
 * init_agent_send, right after the agent filter's load (before any other
 * call of the init under it): sends the relay f's metadata and the listener in
 * one sendmsg, closes the listener (close_range: the two calls the agent
 * cannot answer), waits for the relay's answer (the agent answers from here
 * on) and closes the connection. Each prints and returns an exit code, or 0. */
int init_agent_prepare(const char *path, bool record_file, const struct init_filter *filters, size_t n);
int init_agent_connect(void);
/* The record file the relay sent with its greeting (taken: -1 after), or -1. */
int init_agent_record_fd(void);
int init_agent_send(const struct init_filter *f, int listener);

/* worker.c: a thread that runs jobs for the main thread: the signal thread,
 * which waits for signals in between, and the threads that then serve a
 * listener (the exec-once supervisor, the recorder). init_worker_start starts
 * it (prints and returns -1); init_worker_run runs fn(arg) on it and waits
 * (5 s at most; prints and returns -1); init_worker_command hands it
 * INIT_WORKER_SERVE (or another command of its own), which its serve()
 * handles. Plain futex calls on the threads' words: init_futex_wait/_wake. */
enum { INIT_WORKER_IDLE, INIT_WORKER_RUN, INIT_WORKER_SERVE };
struct init_worker {
        const char *what;        /* the messages' subject: "exec-once" */
        const char *thread_what; /* "the supervisor thread" */
        const char *thread_name; /* its name in /proc: "tsync-exec-once" */
        void (*serve)(void);     /* for any command past INIT_WORKER_RUN; NULL: jobs only */
        /* Idle other than on the command word (the signal thread's signals):
         * waits once and returns true to look at the command again, false to
         * end the thread. A job then wakes it with wake_signal, sent with
         * tgkill to pid (the process's, so that no getpid is made after the
         * load); both are set by its owner before init_worker_start, as a
         * real-time signal's number is known only at run time. */
        bool (*idle)(void);
        int wake_signal;
        pid_t pid;
        uint32_t command;
        void (*run_fn)(void *arg);
        void *run_arg;
        uint32_t run_done;
        pid_t tid;
        sem_t ready;
};
int init_worker_start(struct init_worker *w);
pid_t init_worker_tid(struct init_worker *w);
int init_worker_run(struct init_worker *w, void (*fn)(void *arg), void *arg);
void init_worker_command(struct init_worker *w, uint32_t command);
long init_futex_wait(uint32_t *word, uint32_t val, const struct timespec *ts);
/* A listener's part of the one USER_NOTIF serve loop, init_listener_serve:
 * receive (zeroed; EINTR and ENOENT retried), answer (ENOENT: the caller is
 * gone), forever. answer fills resp's error and flags (its id is set) and
 * returns false when the request needs no answer; answered (or NULL) learns
 * that the kernel took it; send_failed (or NULL) sees an answer's error
 * other than ENOENT first, and may end the init itself; give_up ends it. */
struct seccomp_notif;
struct seccomp_notif_resp;
struct init_listener {
        bool (*answer)(int fd, const struct seccomp_notif *req, struct seccomp_notif_resp *resp);
        void (*answered)(const struct seccomp_notif_resp *resp);
        void (*send_failed)(int e);
        void (*give_up)(const char *what, int e) __attribute__((noreturn));
};
_Noreturn void init_listener_serve(int fd, const struct init_listener *l);
void init_futex_wake(uint32_t *word);

/* execonce.c: the exec-once supervisor. init_execonce_start starts its thread
 * (before the first filter, after the signal thread; prints and returns -1);
 * init_execonce_run runs fn(arg) on it and waits (5 s at most), for its
 * capability transition (prints and returns -1). init_execonce_serve hands it
 * the listener after the load: from then on it answers CONTINUE to the first
 * notification of the workload child and errno to every other one, forever;
 * if it cannot, it kills the workload and the init exits 1.
 * init_execonce_workload: the workload child's pid from fork, or -1 when
 * there is none; notifications that come before wait for it.
 * init_execonce_gave_up: the supervisor has given up (the init exits 1). */
int init_execonce_start(int errno_value);
pid_t init_execonce_tid(void);
int init_execonce_run(void (*fn)(void *arg), void *arg);
void init_execonce_serve(int fd);
void init_execonce_workload(pid_t pid);
bool init_execonce_gave_up(void);

/* recorder.c: the recorder (--record; the file's format in shared/record_format.h).
 * init_record_prepare, before the first filter: with a recording filter
 * (which must come with --record, and --record with it; no filter may return
 * TRACE, which the recording's USER_NOTIF would override), asks the kernel
 * whether it takes that filter's flags with NEW_LISTENER and without TSYNC
 * (prints and returns 122 or 124, or 0). init_record_open, the last thing
 * before the init starts acting: opens the file (no symlink in its path, a
 * regular file only), empties it and writes the magic (prints and returns 126,
 * or 0; 0 without --record). init_record_start starts the recorder thread (after the signal thread,
 * before the first filter: TSYNC and the proofs see it; prints and returns
 * -1); init_record_run runs fn(arg) on it and waits (5 s at most), for its
 * capability transition. init_record_load, after every TSYNC load and before
 * a lent CAP_SYS_ADMIN is given up: the calling (main) thread alone loads f,
 * with NEW_LISTENER and without TSYNC, and hands the listener to the recorder
 * without a system call of its own (every one now waits for the recorder):
 * from then on the recorder answers every notification with CONTINUE and
 * appends the workload's new (ABI, syscall) pairs to the file. Prints and
 * returns 124, or 0. init_record_workload: the workload child announces
 * itself, right before its execve, with a store and no system call; from
 * then on every notification but the main thread's is the workload's. */
int init_record_prepare(const char *path, bool relay, const struct init_filter *filters, size_t n);
/* Whether a recording filter is served (after init_record_prepare). */
bool init_record_active(void);
int init_record_open(void);
int init_record_start(void);
pid_t init_record_tid(void);
int init_record_run(void (*fn)(void *arg), void *arg);
int init_record_load(const struct init_filter *f);
void init_record_workload(pid_t pid);
/* When the init gives up before the workload announced itself: empties the
 * file (no magic), so that poststop takes it for no recording at all. */
void init_record_abandon(void);
/* The recorder has given up (the init exits 1). */
bool init_record_gave_up(void);

/* probe_calls.c: system calls that are harmless when they do execute (bad
 * pointers, fd -1, invalid flags: they fail before doing anything, or only
 * query), for proving a filter by its effect. */
struct init_probe_call {
        const char *name;
        long nr;
        uint64_t args[6];
};
extern const struct init_probe_call init_probe_calls[];
extern const size_t init_probe_ncalls;

/* verify_probe.c: the proof by effect, for kernels whose /proc shows no
 * Seccomp_filters (gVisor). Before loading, init_probe_prepare picks for each
 * filter a harmless call that this filter alone answers with an errno (the
 * others allow it) and that gives something else in every thread before
 * loading; after loading, init_probe_verify makes every thread of the init make
 * each call and requires that filter's errno, and "Seccomp: 2" where /proc
 * shows the mode. Both print and return an exit code (125) or 0. */
struct init_probe {
        size_t call; /* index into init_probe_calls */
        int expect;  /* the errno the filter returns */
};
struct init_probe_plan {
        size_t n;
        struct init_probe probes[INIT_MAX_FILTERS];
};
int init_probe_prepare(const struct init_filter *filters, size_t n, struct init_probe_plan *ret);
int init_probe_verify(const struct init_filter *filters, const struct init_probe_plan *plan, bool counts_shown);

/* run.c: the command. */
/* Resolves cmd[0] along PATH (like execvp, before the filter). Prints and
 * returns INIT_EXIT_NOT_FOUND / INIT_EXIT_CANNOT_EXEC, or 0. */
int init_resolve(const char *cmd, char *ret_path, size_t size);
/* execve in place; returns only on failure (prints, returns 126 or 127). */
int init_exec(const char *path, char **argv);
/* Forks the workload, supervises it as PID 1 (or subreaper) and returns its
 * exit status or 128+signal; 126/127 if the child cannot execve. Returns
 * before the workload exits only if wait4 fails (a profile denying it): then
 * it says so, kills the workload and returns 1. */
int init_supervise(const char *path, char **argv, bool pgroup, bool tty);

/* flow.c: the whole init; main() calls it (and test tools, after arranging
 * the process they want to test). */
int init_flow_run(int argc, char **argv);
