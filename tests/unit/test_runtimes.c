/* The runtime table (facts/runtimes.h), row by row: each record is whole and
 * consistent, its calls are calls libseccomp knows, its global options are
 * read by the wrapper's command-line parser, and they are exactly the real
 * program's (its --help, where it is installed). A new runtime's row passes
 * these, and gets its own cases below. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../hook/runtime/runtime.h"
#include "facts/runtimes.h"
#include "tap.h"

static bool has(const char *const *list, const char *name)
{
        return tsync_runtime_list_has(list, name, strlen(name));
}

static bool unique(const char *const *list)
{
        for (size_t i = 0; list && list[i]; i++)
                for (size_t j = i + 1; list[j]; j++)
                        if (strcmp(list[i], list[j]) == 0)
                                return false;
        return true;
}

static void test_runtimes_every_row_is_whole(void)
{
        size_t n;
        const struct tsync_runtime *rt = tsync_runtimes(&n);

        tap_ok(n >= 3 && tsync_runtime_by_name("runc") && tsync_runtime_by_name("crun") &&
                       tsync_runtime_by_name("runsc") && !tsync_runtime_by_name("no-such-runtime"),
               "test_runtimes_knows_runc_crun_and_runsc");
        for (size_t i = 0; i < n; i++) {
                const struct tsync_runtime *r = &rt[i];
                size_t len = strlen(r->state_root ? r->state_root : "");
                bool roots = true, calls = true;
                for (size_t k = 0; r->state_root_opts && r->state_root_opts[k]; k++)
                        roots = roots && has(r->global_value_opts, r->state_root_opts[k]);
                for (size_t k = 0; r->calls_after_load && r->calls_after_load[k]; k++)
                        if (seccomp_syscall_resolve_name(r->calls_after_load[k]) == __NR_SCMP_ERROR) {
                                tap_diag("%s: '%s' is no call libseccomp knows", r->name, r->calls_after_load[k]);
                                calls = false;
                        }
                tap_ok(r->name && tsync_runtime_by_name(r->name) == r, "test_runtimes_%s_is_found_by_its_name",
                       r->name);
                tap_ok(r->state_root && r->state_root[0] == '/' && len > strlen(r->name) &&
                               strcmp(r->state_root + len - strlen(r->name), r->name) == 0 &&
                               r->state_root[len - strlen(r->name) - 1] == '/',
                       "test_runtimes_%s_state_root_is_absolute_and_its_own (%s)", r->name, r->state_root);
                tap_ok(unique(r->global_value_opts) && unique(r->global_flag_opts) && unique(r->calls_after_load) &&
                               unique(r->seccomp_annotations),
                       "test_runtimes_%s_lists_each_name_once", r->name);
                bool disjoint = true;
                for (size_t k = 0; r->global_flag_opts && r->global_flag_opts[k]; k++)
                        disjoint = disjoint && !has(r->global_value_opts, r->global_flag_opts[k]);
                tap_ok(disjoint && roots, "test_runtimes_%s_options_take_a_value_or_not_and_roots_take_one", r->name);
                /* Its exec view needs its state root, so its command line. */
                tap_ok(r->exec_caps != TSYNC_EXEC_CAPS_STATE_COPY || (r->global_value_opts && r->state_root_opts),
                       "test_runtimes_%s_state_copy_can_be_found", r->name);
                tap_ok(calls, "test_runtimes_%s_calls_after_load_are_calls", r->name);
                tap_ok(r->sigsys_status == 128 + SIGSYS, "test_runtimes_%s_reports_sigsys_as_128_plus_it", r->name);
                tap_ok(!r->sandbox == !r->host_processes && unique(r->host_processes),
                       "test_runtimes_%s_a_sandbox_names_its_host_processes", r->name);
        }
        /* What we know of each one's exec. */
        tap_ok(tsync_runtime_by_name("runc")->exec_caps == TSYNC_EXEC_CAPS_BUNDLE &&
                       tsync_runtime_by_name("crun")->exec_caps == TSYNC_EXEC_CAPS_STATE_COPY &&
                       tsync_runtime_by_name("runsc")->exec_caps == TSYNC_EXEC_CAPS_UNKNOWN,
               "test_runtimes_exec_views");
        /* gVisor's workload has no host tasks: lockdown knows its processes by these. */
        tap_ok(!tsync_runtime_by_name("runc")->sandbox && !tsync_runtime_by_name("crun")->sandbox &&
                       tsync_runtime_by_name("runsc")->sandbox &&
                       has(tsync_runtime_by_name("runsc")->host_processes, "runsc-sandbox") &&
                       has(tsync_runtime_by_name("runsc")->host_processes, "runsc-gofer"),
               "test_runtimes_only_runsc_is_a_sandbox_and_names_its_host_processes");
        /* runc's and crun's init run their own binary in the container until
         * their exec; gVisor's processes are the sandbox's. */
        tap_ok(tsync_runtime_by_name("runc")->exe_in_container && tsync_runtime_by_name("crun")->exe_in_container &&
                       !tsync_runtime_by_name("runsc")->exe_in_container,
               "test_runtimes_whose_binary_runs_in_the_container");
        tap_ok(has(tsync_runtime_by_name("runc")->calls_after_load, "execve") &&
                       has(tsync_runtime_by_name("crun")->calls_after_load, "execve"),
               "test_runtimes_both_exec_after_their_load");
}

/* The state root without --root, as each runtime reads its environment:
 * crun takes $XDG_RUNTIME_DIR/crun whenever it is set and not empty (root
 * too: get_run_directory), runc only when not root (shouldHonorXDGRuntimeDir). */
static void test_runtimes_default_roots(void)
{
        static const struct {
                const char *runtime, *env;
                unsigned euid;
                const char *root;
        } rows[] = {
                { "runc", NULL, 0, "/run/runc" },
                { "runc", "/run/user/0", 0, "/run/runc" },
                { "runc", "/run/user/1000", 1000, "/run/user/1000/runc" },
                { "runc", "", 1000, "/run/runc" },
                { "crun", NULL, 0, "/run/crun" },
                { "crun", "/run/user/0", 0, "/run/user/0/crun" },
                { "crun", "/run/user/1000", 1000, "/run/user/1000/crun" },
                { "crun", "", 0, "/run/crun" },
                { "runsc", "/run/user/1000", 1000, "/var/run/runsc" },
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                char buf[64] = "";
                int r = tsync_runtime_default_root(tsync_runtime_by_name(rows[i].runtime), rows[i].env, rows[i].euid,
                                                   buf, sizeof(buf));
                tap_ok(r == 0 && strcmp(buf, rows[i].root) == 0,
                       "test_runtimes_%s_root_as_uid_%u_with_xdg_%s_is_%s (%s)", rows[i].runtime, rows[i].euid,
                       rows[i].env ? rows[i].env : "unset", rows[i].root, buf);
        }
        char small[8];
        tap_ok(tsync_runtime_default_root(tsync_runtime_by_name("crun"), "/run/user/1000", 1000, small,
                                          sizeof(small)) == -ENAMETOOLONG,
               "test_runtimes_default_root_too_long");
}

/* The wrapper reads every row's global options: a value option's value is
 * not taken for the command word, a flag takes none. */
static void test_runtimes_the_wrapper_reads_every_rows_options(void)
{
        size_t n;
        const struct tsync_runtime *rt = tsync_runtimes(&n);
        int saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3), null = open("/dev/null", O_WRONLY | O_CLOEXEC);

        for (size_t i = 0; i < n; i++) {
                for (int v = 0; v < 2; v++) {
                        const char *const *list = v ? rt[i].global_value_opts : rt[i].global_flag_opts;
                        for (size_t k = 0; list && list[k]; k++) {
                                /* help and version end the reading, as in the runtime */
                                if (!v && (strcmp(list[k], "?") == 0 || strcmp(list[k], "usage") == 0 ||
                                           strcmp(list[k], "help") == 0 || strcmp(list[k], "h") == 0 ||
                                           strcmp(list[k], "version") == 0 || strcmp(list[k], "v") == 0 ||
                                           strcmp(list[k], "V") == 0))
                                        continue;
                                char opt[64];
                                (void)snprintf(opt, sizeof(opt), "--%s", list[k]);
                                char *argv[] = {
                                        "oci-seccomp-tsync-runtime", opt, v ? "VALUE" : "state", "state", "id", NULL
                                };
                                struct rt_settings s = { 0 };
                                struct rt_cmdline cl = { 0 };
                                if (saved >= 0 && null >= 0)
                                        (void)dup2(null, STDERR_FILENO);
                                int r = rt_parse_cmdline(5 - !v, argv, &s, &cl);
                                if (saved >= 0 && null >= 0)
                                        (void)dup2(saved, STDERR_FILENO);
                                tap_ok(r == 0 && cl.command >= 0 && strcmp(cl.argv[cl.command], "state") == 0,
                                       "test_runtimes_wrapper_reads_%s_%s", rt[i].name, opt);
                                rt_cmdline_clear(&cl);
                                rt_settings_clear(&s);
                        }
                }
        }
        if (saved >= 0)
                (void)close(saved);
        if (null >= 0)
                (void)close(null);
}

/* The options the program's --help lists: runc's under "GLOBAL OPTIONS:",
 * crun's on lines that start with '-'. Each line's names up to the first
 * that is not followed by ", ". */
static size_t help_options(const char *program, char names[][32], size_t max)
{
        char cmd[128], line[512];
        (void)snprintf(cmd, sizeof(cmd), "%s --help 2>/dev/null", program);
        FILE *f = popen(cmd, "r");
        size_t n = 0;
        bool runc_style = false, in_globals = false;
        while (f && fgets(line, sizeof(line), f)) {
                if (strncmp(line, "GLOBAL OPTIONS:", 15) == 0) {
                        runc_style = in_globals = true;
                        continue;
                }
                const char *p = line;
                while (*p == ' ' || *p == '\t')
                        p++;
                if (*p != '-' || (runc_style && !in_globals))
                        continue;
                while (*p == '-' && n < max) {
                        while (*p == '-')
                                p++;
                        size_t len = 0;
                        while (p[len] && (isalnum((unsigned char)p[len]) || p[len] == '-' || p[len] == '?') && len < 31)
                                len++;
                        (void)snprintf(names[n++], 32, "%.*s", (int)len, p);
                        p += len;
                        if (strncmp(p, ", ", 2) != 0)
                                break;
                        p += 2;
                }
        }
        if (f)
                (void)pclose(f);
        return n;
}

/* runc's and crun's rows hold every global option their --help lists, each
 * as taking a value or not as the help shows ("--log value", "--log=FILE"). */
static void test_runtimes_options_are_the_real_programs(void)
{
        static const char *const programs[] = { "runc", "crun" };
        for (size_t p = 0; p < sizeof(programs) / sizeof(programs[0]); p++) {
                char path[64], names[64][32];
                (void)snprintf(path, sizeof(path), "/usr/bin/%s", programs[p]);
                if (access(path, X_OK) != 0 &&
                    (snprintf(path, sizeof(path), "/usr/sbin/%s", programs[p]), access(path, X_OK) != 0)) {
                        tap_skip("not installed", "test_runtimes_%s_options_are_its_help's", programs[p]);
                        continue;
                }
                const struct tsync_runtime *rt = tsync_runtime_by_name(programs[p]);
                size_t n = help_options(path, names, 64);
                bool all = n > 5;
                for (size_t i = 0; i < n; i++)
                        if (!has(rt->global_value_opts, names[i]) && !has(rt->global_flag_opts, names[i])) {
                                tap_diag("%s --help lists --%s, which its row does not", programs[p], names[i]);
                                all = false;
                        }
                tap_ok(all, "test_runtimes_%s_options_are_its_help's (%zu listed)", programs[p], n);
        }
}

int main(void)
{
        test_runtimes_every_row_is_whole();
        test_runtimes_default_roots();
        test_runtimes_the_wrapper_reads_every_rows_options();
        test_runtimes_options_are_the_real_programs();
        return tap_done();
}
