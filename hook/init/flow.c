/* The init's whole flow, in the order the style guide asks for: decide
 * everything, then act. First of all PID 1 becomes non-dumpable, for its whole
 * life: a workload without CAP_SYS_PTRACE can then neither ptrace it nor open
 * /proc/1/mem (the workload itself is dumpable again after its execve, as in a
 * plain run). Before the first filter: parse, read and check every filter
 * file, plan the capability sets, find CMD, ask the kernel about the flags,
 * start the signal thread, and bring every thread to the workload's
 * capability sets (the main thread keeps a lent CAP_SYS_ADMIN until it has
 * loaded, when it has no NO_NEW_PRIVS). Then load every filter with TSYNC
 * (a notify agent gets its listener right after its filter's load, and
 * answers every later call of the init that filter notifies), verify every
 * thread, finish the main thread's capabilities, prove every
 * thread's and run CMD. Any failure before CMD runs exits with one of enum
 * init_exit and one line on stderr. */
#include <errno.h>
#include <limits.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "apply.h"
#include "init.h"
#include "shared/filterfile.h"
#include "shared/init_calls.h"
#include "shared/seccomp_flags.h"

/* Static: no heap. */
static struct init_config cfg;
static struct init_filter filters[INIT_MAX_FILTERS];
static struct init_caps caps;
static struct init_proof proof;
static char path[PATH_MAX];

static struct init_probe_plan probes;
/* The exec-once filter's listener once loaded, else -1. */
static int listener = -1;
/* A recording filter is served (--record FILE, or the relay's file). */
static bool recording;

/* The flags a filter is loaded with besides TSYNC: a listener needs
 * NEW_LISTENER, and TSYNC_ESRCH so that TSYNC's failure and the listener's fd
 * do not share the return value. */
static uint32_t load_flags(const struct init_filter *f)
{
        if (f->listener == TSYNC_LISTENER_NONE)
                return f->flags;
        return f->flags | SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
}

/* --exec-once and the exec-once filter come together or not at all: a filter
 * nobody answers would hang every exec, and the option without the filter
 * would promise what nothing enforces. */
static int check_exec_once(size_t n)
{
        const struct init_filter *found = NULL;

        for (size_t i = 0; i < n; i++)
                if (filters[i].listener == TSYNC_LISTENER_EXEC_ONCE)
                        found = &filters[i];
        if (cfg.exec_once && !found) {
                init_log("exec-once", "--exec-once is given, but no filter has the exec-once listener (run "
                                      "'oci-seccomp-tsync inject --exec-once' again)");
                return INIT_EXIT_FILTER;
        }
        if (found && !cfg.exec_once) {
                init_log(found->name, "the filter has the exec-once listener, but --exec-once is not given: nobody "
                                      "would answer its notifications");
                return INIT_EXIT_FILTER;
        }
        return 0;
}

/* Supervising the workload needs calls (clone, wait4, rt_sigtimedwait, kill)
 * that a plain runtime start never makes after its load, and a profile the
 * runtime runs may deny them. Then the workload runs in place of the init, as
 * PID 1, as it would under the runtime alone. Decided by simulating the
 * filters, before anything is applied. */
static int choose_route(size_t n)
{
        struct tsync_stack_prog stack[INIT_MAX_FILTERS];
        const struct tsync_init_call *denied;
        enum tsync_init_route route;
        struct tsync_err err = { 0 };
        uint32_t action;
        char why[256];

        for (size_t i = 0; i < n; i++)
                stack[i] = (struct tsync_stack_prog){ .insns = filters[i].prog,
                                                      .len = filters[i].len,
                                                      .listener = filters[i].listener };
        int r = tsync_init_route(stack, n, 0, caps.plan.caps_after_filter, &route, &denied, &action, &err);
        if (r == -EOPNOTSUPP)
                return 0; /* no numbering for this architecture: the calls decide for themselves */
        if (r < 0) {
                init_log("route", "%s", err.msg);
                return INIT_EXIT_FILTER;
        }
        if (route == TSYNC_ROUTE_SUPERVISE || (route == TSYNC_ROUTE_IN_PLACE && cfg.exec))
                return 0;
        if (route == TSYNC_ROUTE_NONE || cfg.exec_once || recording) {
                init_log(cfg.cmd[0], "cannot be started: %s%s",
                         tsync_init_route_explain("the filters answer", denied, action, true, why, sizeof(why)),
                         cfg.exec_once ? " (exec-once needs the init to supervise: it never runs in place)"
                         : recording   ? " (recording needs the init to supervise: it never runs in place)"
                                       : "");
                return INIT_EXIT_CANNOT_EXEC;
        }
        init_warn("route",
                  "%s: the workload runs in place of the init, as PID 1, as in a plain runtime start (the init "
                  "neither reaps nor forwards signals)",
                  tsync_init_route_explain("the filters answer", denied, action, false, why, sizeof(why)));
        cfg.exec = true;
        cfg.pgroup = false;
        return 0;
}

/* Loads the filters; the proof comes after the capabilities' last change
 * (finish_caps). Where the kernel shows no Seccomp_filters (gVisor), or with
 * --verify probe, the filters are proven by their effect (verify_probe.c). No
 * proof at all is a refusal, never a silent pass. */
static int apply_filters(size_t n, bool *ret_probe)
{
        struct tsync_err err = { 0 };
        int code;

        if (!proof.counts && cfg.verify == INIT_VERIFY_PROC) {
                init_log("verify",
                         "/proc/self/task/%d/status has no Seccomp_filters line (Linux < 5.9 or gVisor): "
                         "the filters could not be verified",
                         (int)gettid());
                return INIT_EXIT_VERIFY;
        }
        bool probe = !proof.counts || cfg.verify == INIT_VERIFY_PROBE;
        if (probe) {
                code = init_probe_prepare(filters, n, &probes);
                if (code)
                        return code;
        }
        for (size_t i = 0; i < n; i++) {
                int r = init_apply_load(filters[i].prog, filters[i].len, load_flags(&filters[i]), &err);
                if (r < 0) {
                        init_log(filters[i].name, "%s", err.msg);
                        return INIT_EXIT_KERNEL;
                }
                if (filters[i].listener == TSYNC_LISTENER_EXEC_ONCE)
                        listener = r;
                /* The agent holds its listener before the init's next call:
                 * a profile may send any later one to it (agent.c). */
                if (filters[i].listener == TSYNC_LISTENER_AGENT) {
                        code = init_agent_send(&filters[i], r);
                        if (code)
                                return code;
                }
        }
        *ret_probe = probe;
        return 0;
}

static int flow(int argc, char **argv)
{
        struct tsync_err err = { 0 };
        size_t n = 0;
        int r, code;

        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0) {
                init_log("dumpable", "cannot make the init non-dumpable: %s", init_strerror(errno));
                return INIT_EXIT_PRIVS;
        }
        if (init_sigmask_block() < 0)
                return INIT_EXIT_CANNOT_EXEC;
        r = init_parse_options(argc, argv, &cfg);
        if (r != 0)
                return r < 0 ? INIT_EXIT_USAGE : 0;
        if (init_filters_read(&cfg, filters, &n) < 0)
                return INIT_EXIT_FILTER;
        code = check_exec_once(n);
        if (code)
                return code;
        code = init_agent_prepare(cfg.relay, cfg.record != NULL, filters, n);
        if (code)
                return code;
        code = init_record_prepare(cfg.record, cfg.relay != NULL, filters, n);
        if (code)
                return code;
        recording = init_record_active();
        if (code)
                return code;
        if (init_caps_plan(&cfg, &caps, &code) < 0)
                return code;
        code = init_resolve(cfg.cmd[0], path, sizeof(path));
        if (code)
                return code;
        /* A flag the kernel refuses is found before anything is applied. */
        for (size_t i = 0; i < n; i++) {
                if (filters[i].listener == TSYNC_LISTENER_RECORD)
                        continue; /* without TSYNC: init_record_prepare asked */
                if (init_apply_probe_flags(load_flags(&filters[i]), &err) < 0) {
                        init_log(filters[i].name, "%s", err.msg);
                        return INIT_EXIT_KERNEL;
                }
        }
        code = choose_route(n);
        if (code)
                return code;
        /* Before any filter, which might not let a write through. */
        if (cfg.warn_replace)
                init_warn("replace mode", "linux.seccomp applies only to this container's init and its children; "
                                          "processes an engine's exec starts (podman exec) run without it");
        /* Decided to start: the relay learns it (and hands a recording's
         * file over), the agent nothing yet. */
        code = init_agent_connect();
        if (code)
                return code;
        code = init_record_open();
        if (code)
                return code;
        bool tty = cfg.pgroup && isatty(STDIN_FILENO);
        if (!cfg.exec && getpid() != 1 && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
                init_log("subreaper", "cannot become the workload's subreaper: %s", init_strerror(errno));
                return INIT_EXIT_CANNOT_EXEC;
        }
        /* In place the init needs no thread of its own, and a runtime's profile
         * that denies clone (or getdents64) before our load cannot stop it. */
        if (cfg.exec)
                init_signals_defaults();
        else if (init_signals_start(cfg.pgroup, init_record_abandon) < 0)
                return INIT_EXIT_CANNOT_EXEC;
        /* Beside the signal thread, before the load: TSYNC and the proofs see it. */
        if (cfg.exec_once && init_execonce_start(cfg.exec_once) < 0)
                return INIT_EXIT_CANNOT_EXEC;
        if (recording && init_record_start() < 0)
                return INIT_EXIT_CANNOT_EXEC;
        code = init_privs_threads(&caps);
        if (code)
                return code;
        /* Final already (NO_NEW_PRIVS loads without CAP_SYS_ADMIN): proven
         * before the load too, in the same reading of /proc that prepares the
         * proof after it, so that a refusal comes before any filter. */
        code = init_proof_prepare(&proof, !cfg.exec, !caps.plan.caps_after_filter && !cfg.exec ? &caps : NULL);
        if (code)
                return code;
        /* The probe asks the main and signal threads only. The command line
         * refuses --verify probe already (init_args.c); a kernel that shows no
         * counts (gVisor), which leaves the probe as the only proof, only the
         * kernel can tell. */
        if (cfg.exec_once && !proof.counts) {
                init_log("exec-once", "the supervisor thread can be proven only by /proc's Seccomp_filters counts, "
                                      "which this kernel does not show");
                return INIT_EXIT_VERIFY;
        }
        if (recording && !proof.counts) {
                init_log("record", "the recorder thread and the main thread's recording filter can be proven only by "
                                   "/proc's Seccomp_filters counts, which this kernel does not show");
                return INIT_EXIT_VERIFY;
        }

        /* The recording filter is the last (filters.c) and is not loaded with TSYNC. */
        size_t n_tsync = recording ? n - 1 : n;
        bool probe = false;
        if (n_tsync > 0) {
                code = apply_filters(n_tsync, &probe);
                if (code)
                        return code;
        }
        /* From here on: only what the route needs (shared/init_calls.h). The
         * recording filter still needs a lent CAP_SYS_ADMIN, and from its load
         * on each call of this thread waits for the recorder's CONTINUE. */
        if (recording) {
                code = init_record_load(&filters[n - 1]);
                if (code)
                        return code;
        }
        if (caps.plan.caps_after_filter && init_caps_apply(&caps) < 0)
                return INIT_EXIT_PRIVS;
        /* With an agent the reads may be its answers: a thread "gone" is
         * then no reason to skip it. */
        code = init_proof_check(&proof, (unsigned)n_tsync, recording, &caps, cfg.relay && !recording);
        if (code)
                return code;
        if (probe) {
                code = init_probe_verify(filters, &probes, proof.counts);
                if (code)
                        return code;
        }
        if (cfg.exec) {
                init_signals_handoff();
                return init_exec(path, cfg.cmd);
        }
        if (listener >= 0)
                init_execonce_serve(listener);
        return init_supervise(path, cfg.cmd, cfg.pgroup, tty);
}

int init_flow_run(int argc, char **argv)
{
        int code = flow(argc, argv);

        /* A start refused before the workload ran records nothing: the file
         * must not pass for a recording of a workload that did nothing. */
        init_record_abandon();
        return code;
}
