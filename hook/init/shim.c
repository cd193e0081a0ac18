/* The init's whole flow, in the order the style guide asks for: decide
 * everything, then act. First of all PID 1 becomes non-dumpable, for its whole
 * life: a workload without CAP_SYS_PTRACE can then neither ptrace it nor open
 * /proc/1/mem (the workload itself is dumpable again after its execve, as in a
 * plain run). Before the first filter: parse, read and check every filter
 * file, plan the capability sets, find CMD, ask the kernel about the flags,
 * start the signal thread, and bring every thread to the workload's
 * capability sets (the main thread keeps a lent CAP_SYS_ADMIN until it has
 * loaded, when it has no NO_NEW_PRIVS). Then load every filter with TSYNC,
 * verify every thread, finish the main thread's capabilities, prove every
 * thread's and run CMD. Any failure before CMD runs exits with one of enum
 * init_exit and one line on stderr. */
#include <errno.h>
#include <limits.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "apply.h"
#include "init.h"

/* Static: no heap, and libcap's objects stay reachable (no leak reports
 * when a test tool built with sanitizers runs this). */
static struct init_config cfg;
static struct init_filter filters[INIT_MAX_FILTERS];
static struct init_caps caps;
static struct tsync_census census;
static char path[PATH_MAX];

static struct init_probe_plan probes;

/* Loads the filters and proves every thread carries them: by /proc's
 * Seccomp_filters counts where the kernel shows them (they are then always
 * required), by the probe (verify_probe.c) where it does not, or both with
 * --verify probe. No proof at all is a refusal, never a silent pass. */
static int apply_filters(size_t n)
{
        struct tsync_verify_result result;
        struct tsync_err err = {0};
        int code;

        int r = tsync_apply_census(&census, &err);
        bool counts = r == 0;
        if (r < 0 && (r != -EOPNOTSUPP || cfg.verify == INIT_VERIFY_PROC)) {
                init_log("verify", "%s", err.msg);
                return INIT_EXIT_VERIFY;
        }
        bool probe = !counts || cfg.verify == INIT_VERIFY_PROBE;
        if (probe) {
                code = init_probe_prepare(filters, n, &probes);
                if (code)
                        return code;
        }
        for (size_t i = 0; i < n; i++) {
                if (tsync_apply_load(filters[i].prog, filters[i].len, filters[i].flags, &err) < 0) {
                        init_log(filters[i].path, "%s", err.msg);
                        return INIT_EXIT_KERNEL;
                }
        }
        if (counts && tsync_apply_verify(&census, (unsigned)n, &result, &err) < 0) {
                init_log("verify", "%s", err.msg);
                return INIT_EXIT_VERIFY;
        }
        if (probe)
                return init_probe_verify(filters, &probes, counts);
        return 0;
}

int shim_main(int argc, char **argv)
{
        struct tsync_err err = {0};
        size_t n = 0;
        int r, code;

        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0) {
                init_log("dumpable", "cannot make the init non-dumpable: %s", init_strerror(errno));
                return INIT_EXIT_PRIVS;
        }
        if (init_signals_block() < 0)
                return INIT_EXIT_CANNOT_EXEC;
        r = init_parse_options(argc, argv, &cfg);
        if (r != 0)
                return r < 0 ? INIT_EXIT_USAGE : 0;
        if (init_filters_read(&cfg, filters, &n) < 0)
                return INIT_EXIT_FILTER;
        if (init_caps_plan(&cfg, &caps, &code) < 0)
                return code;
        code = init_resolve(cfg.cmd[0], path, sizeof(path));
        if (code)
                return code;
        /* A flag the kernel refuses is found before anything is applied. */
        for (size_t i = 0; i < n; i++) {
                if (tsync_apply_probe_flags(filters[i].flags, &err) < 0) {
                        init_log(filters[i].path, "%s", err.msg);
                        return INIT_EXIT_KERNEL;
                }
        }
        bool tty = cfg.pgroup && isatty(STDIN_FILENO);
        if (!cfg.exec && getpid() != 1 && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
                init_log("subreaper", "cannot become the workload's subreaper: %s", init_strerror(errno));
                return INIT_EXIT_CANNOT_EXEC;
        }
        if (init_signals_start(cfg.pgroup) < 0)
                return INIT_EXIT_CANNOT_EXEC;
        code = init_privs_threads(&caps);
        if (code)
                return code;
        /* Final already (NO_NEW_PRIVS loads without CAP_SYS_ADMIN): proven
         * before the load, so that nothing of it comes after the filter. */
        if (!caps.caps_after_filter) {
                code = init_privs_prove(&caps);
                if (code)
                        return code;
        }

        if (n > 0) {
                code = apply_filters(n);
                if (code)
                        return code;
        }

        if (caps.caps_after_filter) {
                if (init_caps_apply(&caps) < 0)
                        return INIT_EXIT_PRIVS;
                code = init_privs_prove(&caps);
                if (code)
                        return code;
        }
        if (cfg.exec) {
                init_signals_handoff();
                return init_exec(path, cfg.cmd);
        }
        return init_supervise(path, cfg.cmd, cfg.pgroup, tty);
}
