/* oci-seccomp-tsync-runtime's reading of runc's command line: the command
 * word past global options with and without values (as containerd's shim and
 * Docker's runtimeArgs wrapper call it), our options taken out, the bundle and
 * container id of create/run in every spelling runc 1.1 and crun 1.8 accept,
 * and the refusals that keep the command word from being a guess. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../hook/runtime/runtime.h"
#include "tap.h"

#define MAX_ARGS 32

struct parsed {
        int r;
        struct rt_settings s;
        struct rt_cmdline cl;
};

/* Parses a NULL-terminated list (argv[0] first) with stderr silenced. */
static struct parsed parse(const char *const *args)
{
        static char *argv[MAX_ARGS];
        int argc = 0;
        while (args[argc]) {
                argv[argc] = (char *)args[argc];
                argc++;
        }
        argv[argc] = NULL;
        struct parsed p = { 0 };
        fflush(stderr);
        int saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (saved >= 0 && null >= 0)
                (void)dup2(null, STDERR_FILENO);
        p.r = rt_parse_cmdline(argc, argv, &p.s, &p.cl);
        fflush(stderr);
        if (saved >= 0 && null >= 0)
                (void)dup2(saved, STDERR_FILENO);
        if (saved >= 0)
                close(saved);
        if (null >= 0)
                close(null);
        return p;
}

static bool str_eq(const char *a, const char *b)
{
        return a == b || (a && b && strcmp(a, b) == 0);
}

/* The argv the real runtime gets, from argv[1], joined by spaces. */
static const char *passed(const struct parsed *p)
{
        static char buf[1024];
        buf[0] = '\0';
        for (int i = 1; i < p->cl.argc; i++)
                snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i > 1 ? " " : "", p->cl.argv[i]);
        return buf;
}

static const char *command(const struct parsed *p)
{
        return p->cl.command >= 0 ? p->cl.argv[p->cl.command] : NULL;
}

static void test_runtime_args_containerd_shim_create(void)
{
        const char *a[] = { "rt",
                            "--root",
                            "/run/containerd/runc/k8s.io",
                            "--log",
                            "/b/log.json",
                            "--log-format",
                            "json",
                            "--systemd-cgroup",
                            "create",
                            "--bundle",
                            "/b",
                            "--pid-file",
                            "/b/init.pid",
                            "--console-socket",
                            "/tmp/s",
                            "abc123",
                            NULL };
        struct parsed p = parse(a);
        tap_ok(p.r == 0 && str_eq(command(&p), "create") && p.cl.rewrite, "shim create: the command word is create");
        tap_ok(str_eq(p.cl.bundle, "/b") && str_eq(p.cl.id, "abc123"), "shim create: bundle /b, id abc123");
        tap_ok(str_eq(p.cl.log, "/b/log.json") && str_eq(p.cl.log_format, "json"), "shim create: --log and its format");
        tap_ok(p.cl.argc == 16 && strcmp(passed(&p), "--root /run/containerd/runc/k8s.io --log /b/log.json "
                                                     "--log-format json --systemd-cgroup create --bundle /b "
                                                     "--pid-file /b/init.pid --console-socket /tmp/s abc123") == 0,
               "shim create: everything goes to the runtime as given");
        rt_cmdline_clear(&p.cl);
}

static void test_runtime_args_docker_runtime_args_come_first_and_are_taken_out(void)
{
        const char *a[] = { "rt",
                            "--layers=deny-ptrace,deny-namespaces",
                            "--mode=layer",
                            "--runtime=/usr/bin/crun",
                            "--runtime-config=/x.conf",
                            "--profile-dir=/p1",
                            "--profile-dir=/p2",
                            "--cache-dir=/c",
                            "--root",
                            "/r",
                            "create",
                            "-b",
                            "/b",
                            "id1",
                            NULL };
        struct parsed p = parse(a);
        tap_ok(p.r == 0 && str_eq(p.s.layers, "deny-ptrace,deny-namespaces") && str_eq(p.s.mode, "layer"),
               "runtimeArgs: layers and mode");
        tap_ok(str_eq(p.s.runtime, "/usr/bin/crun") && str_eq(p.s.conf, "/x.conf") && str_eq(p.s.cache_dir, "/c"),
               "runtimeArgs: runtime, config file, cache");
        tap_ok(p.s.n_profile_dirs == 2 && str_eq(p.s.profile_dirs[1], "/p2"), "runtimeArgs: two profile dirs");
        tap_ok(strcmp(passed(&p), "--root /r create -b /b id1") == 0, "runtimeArgs: none of ours reaches the runtime");
        tap_ok(str_eq(p.cl.bundle, "/b") && str_eq(p.cl.id, "id1"), "runtimeArgs: bundle and id");

        const char *nc[] = { "rt", "--cache-dir=/c", "--no-cache", "state", "x", NULL };
        rt_cmdline_clear(&p.cl);
        p = parse(nc);
        tap_ok(p.r == 0 && p.s.no_cache && !p.s.cache_dir && strcmp(passed(&p), "state x") == 0,
               "--no-cache: taken out, no cache");
        rt_cmdline_clear(&p.cl);
}

static void test_runtime_args_bundle_spellings(void)
{
        static const struct {
                const char *args[8];
                const char *bundle, *id;
        } cases[] = {
                { { "run", "-b", "/b1", "id", NULL }, "/b1", "id" },
                { { "run", "--bundle=/b2", "id", NULL }, "/b2", "id" },
                { { "run", "-bundle", "/b3", "id", NULL }, "/b3", "id" },
                { { "run", "-b=/b4", "id", NULL }, "/b4", "id" },
                { { "run", "-b/b5", "id", NULL }, "/b5", "id" },
                { { "run", "id", "--bundle", "/b6", NULL }, "/b6", "id" },
                { { "run", "-d", "--keep", "id", NULL }, NULL, "id" },
                { { "run", "-b", "/b7", "-b", "/b8", "id", NULL }, "/b8", "id" },
                { { "run", "--preserve-fds", "3", "id", NULL }, NULL, "id" },
                { { "run", "--", "-id", NULL }, NULL, "-id" },
                /* runc: an empty bundle is the current directory. */
                { { "run", "--bundle=", "id", NULL }, NULL, "id" },
                { { "run", "--bundle", "", "id", NULL }, NULL, "id" },
                { { "run", "-b", "", "id", NULL }, NULL, "id" },
                { { "run", "-b=", "id", NULL }, NULL, "id" },
                { { "run", "-b", "/b9", "--bundle=", "id", NULL }, NULL, "id" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const char *a[10] = { "rt" };
                for (size_t k = 0; cases[i].args[k]; k++)
                        a[k + 1] = cases[i].args[k];
                struct parsed p = parse(a);
                tap_ok(p.r == 0 && p.cl.rewrite && str_eq(p.cl.bundle, cases[i].bundle) && str_eq(p.cl.id, cases[i].id),
                       "run %s %s %s: bundle %s, id %s", cases[i].args[1], cases[i].args[2] ? cases[i].args[2] : "",
                       cases[i].args[3] ? cases[i].args[3] : "", cases[i].bundle ? cases[i].bundle : "(cwd)",
                       cases[i].id);
                rt_cmdline_clear(&p.cl);
        }
        const char *f[] = { "rt", "create", "-f", "other.json", "id", NULL };
        struct parsed p = parse(f);
        tap_ok(p.r == 0 && str_eq(p.cl.config_file, "other.json") && str_eq(p.cl.id, "id"), "crun's -f FILE");
        rt_cmdline_clear(&p.cl);
}

static void test_runtime_args_what_is_not_rewritten(void)
{
        static const char *const cases[][6] = {
                { "rt", "start", "id", NULL },
                { "rt", "--version", NULL },
                { "rt", "create", "--help", NULL },
                { "rt", "run", "-h", "id", NULL },
                { "rt", "exec", "id", "create", NULL },
                { "rt", "--root", "run", "state", "x", NULL },
                { "rt", NULL },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct parsed p = parse(cases[i]);
                tap_ok(p.r == 0 && !p.cl.rewrite, "%s %s %s: not rewritten", cases[i][1] ? cases[i][1] : "(nothing)",
                       cases[i][1] && cases[i][2] ? cases[i][2] : "",
                       cases[i][1] && cases[i][2] && cases[i][3] ? cases[i][3] : "");
                rt_cmdline_clear(&p.cl);
        }
        const char *root_named_run[] = { "rt", "--root", "run", "state", "x", NULL };
        struct parsed p = parse(root_named_run);
        tap_ok(str_eq(command(&p), "state"), "--root's value 'run' is not the command word");
        const char *eq[] = { "rt", "--rootless=true", "--debug", "--cgroup-manager", "disabled", "run", "x", NULL };
        rt_cmdline_clear(&p.cl);
        p = parse(eq);
        tap_ok(p.r == 0 && str_eq(command(&p), "run") && p.cl.rewrite, "crun's --cgroup-manager VALUE, then run");
        rt_cmdline_clear(&p.cl);
}

static void test_runtime_args_refusals(void)
{
        const char *unknown[] = { "rt", "--foo", "create", "x", NULL };
        tap_ok(parse(unknown).r < 0, "an unknown global option without =VALUE is refused");
        const char *unknown_eq[] = { "rt", "--foo=1", "create", "x", NULL };
        struct parsed p = parse(unknown_eq);
        tap_ok(p.r == 0 && str_eq(command(&p), "create"), "an unknown global option with =VALUE goes to the runtime");
        const char *novalue[] = { "rt", "--layers", "run", "x", NULL };
        tap_ok(parse(novalue).r < 0, "--layers without =VALUE is refused (run is not its value)");
        const char *dirs[] = { "rt",
                               "--profile-dir=/1",
                               "--profile-dir=/2",
                               "--profile-dir=/3",
                               "--profile-dir=/4",
                               "--profile-dir=/5",
                               "--profile-dir=/6",
                               "--profile-dir=/7",
                               "--profile-dir=/8",
                               "--profile-dir=/9",
                               "run",
                               "x",
                               NULL };
        tap_ok(parse(dirs).r < 0, "a ninth --profile-dir is refused");
        rt_cmdline_clear(&p.cl);
}

/* exec: the process file in every spelling, the argument that names it (which
 * the runtime replaces), the id, and what shapes the process beside it. */
static void test_runtime_args_exec(void)
{
        static const struct {
                const char *args[10];
                const char *process, *id, *shaping;
                int process_arg; /* index in the runtime's argv */
        } cases[] = {
                /* containerd's shim (go-runc): exec --process FILE --detach --pid-file P ID */
                { { "exec", "--process", "/p1", "--detach", "--pid-file", "/pid", "id", NULL }, "/p1", "id", NULL, 3 },
                { { "exec", "--process=/p2", "id", NULL }, "/p2", "id", NULL, 2 },
                { { "exec", "-p", "/p3", "id", NULL }, "/p3", "id", NULL, 3 },
                { { "exec", "-p/p4", "id", NULL }, "/p4", "id", NULL, 2 },
                { { "exec", "-process", "/p5", "id", NULL }, "/p5", "id", NULL, 3 },
                { { "exec", "--console-socket", "/s", "--tty", "-p", "/p6", "id", NULL }, "/p6", "id", NULL, 6 },
                { { "exec", "--cap", "CAP_KILL", "-p", "/p7", "id", NULL }, "/p7", "id", "--cap", 5 },
                { { "exec", "-e", "A=1", "--process", "/p8", "id", NULL }, "/p8", "id", "-e", 5 },
                { { "exec", "--no-new-privs", "-p", "/p9", "id", NULL }, "/p9", "id", "--no-new-privs", 4 },
                { { "exec", "id", "sh", "-c", "true", NULL }, NULL, "id", NULL, -1 },
                { { "exec", "-t", "id", "--process", "/x", NULL }, NULL, "id", NULL, -1 },
                { { "exec", "--", "id", "ls", NULL }, NULL, "id", NULL, -1 },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const char *a[12] = { "rt", "--root", "/r" };
                for (size_t k = 0; cases[i].args[k]; k++)
                        a[k + 3] = cases[i].args[k];
                struct parsed p = parse(a);
                tap_ok(p.r == 0 && p.cl.exec && !p.cl.rewrite && str_eq(p.cl.process, cases[i].process) &&
                               str_eq(p.cl.id, cases[i].id) && str_eq(p.cl.shaping, cases[i].shaping) &&
                               p.cl.process_arg == (cases[i].process_arg < 0 ? -1 : cases[i].process_arg + 2),
                       "exec %s %s %s: process %s, id %s, shaping %s", cases[i].args[1], cases[i].args[2],
                       cases[i].args[3] ? cases[i].args[3] : "", cases[i].process ? cases[i].process : "(none)",
                       cases[i].id, cases[i].shaping ? cases[i].shaping : "(none)");
                rt_cmdline_clear(&p.cl);
        }
        const char *help[] = { "rt", "exec", "--help", NULL };
        struct parsed p = parse(help);
        tap_ok(p.r == 0 && !p.cl.exec, "exec --help: nothing to rewrite");
        rt_cmdline_clear(&p.cl);
}

/* delete: the id, for the recording written there (delete.c); crun's --regex
 * names many containers and passes through, as --help does. */
static void test_runtime_args_delete(void)
{
        static const struct {
                const char *args[6];
                bool deleting;
                const char *id;
                const char *record_dir;
        } cases[] = {
                /* containerd's shim (go-runc): delete [--force] ID */
                { { "delete", "id1", NULL }, true, "id1", NULL },
                { { "delete", "--force", "id2", NULL }, true, "id2", NULL },
                { { "delete", "-f", "id3", NULL }, true, "id3", NULL },
                { { "delete", "--", "id4", NULL }, true, "id4", NULL },
                { { "delete", "--regex", "id.*", NULL }, false, "id.*", NULL },
                { { "delete", "-r", "id.*", NULL }, false, "id.*", NULL },
                { { "delete", "--help", NULL }, false, NULL, NULL },
                { { "--record-dir=/rec", "delete", "id5", NULL }, true, "id5", "/rec" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const char *a[10] = { "rt", "--root", "/r" };
                for (size_t k = 0; cases[i].args[k]; k++)
                        a[k + 3] = cases[i].args[k];
                struct parsed p = parse(a);
                tap_ok(p.r == 0 && p.cl.deleting == cases[i].deleting && !p.cl.rewrite && !p.cl.exec &&
                               str_eq(p.cl.id, cases[i].id) && str_eq(p.s.record_dir, cases[i].record_dir) &&
                               !strstr(passed(&p), "record-dir"),
                       "%s %s %s: %s, id %s", cases[i].args[0], cases[i].args[1] ? cases[i].args[1] : "",
                       cases[i].args[1] && cases[i].args[2] ? cases[i].args[2] : "",
                       cases[i].deleting ? "ours to look at" : "passed through", cases[i].id ? cases[i].id : "(none)");
                rt_cmdline_clear(&p.cl);
        }
}

/* The commands that inspect and tear down: the id, past their options, names
 * the record of the runtime that created the container (creator.c). */
static void test_runtime_args_inspect_ids(void)
{
        static const struct {
                const char *args[8];
                const char *id;
        } cases[] = {
                { { "state", "id1", NULL }, "id1" },
                { { "kill", "id2", "KILL", NULL }, "id2" },
                { { "kill", "--all", "id3", "9", NULL }, "id3" },
                { { "ps", "--format", "json", "id4", NULL }, "id4" },
                { { "ps", "-f", "table", "id5", NULL }, "id5" },
                { { "events", "--interval", "5s", "id6", NULL }, "id6" },
                { { "events", "--stats", "id7", NULL }, "id7" },
                { { "update", "--memory", "1M", "--pids-limit=9", "id8", NULL }, "id8" },
                { { "pause", "--", "id9", NULL }, "id9" },
                { { "resume", "id10", NULL }, "id10" },
                { { "state", "--help", NULL }, NULL },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const char *a[12] = { "rt", "--root", "/r" };
                for (size_t k = 0; cases[i].args[k]; k++)
                        a[k + 3] = cases[i].args[k];
                struct parsed p = parse(a);
                tap_ok(p.r == 0 && !p.cl.rewrite && !p.cl.exec && !p.cl.deleting && str_eq(p.cl.id, cases[i].id),
                       "%s %s: id %s", cases[i].args[0], cases[i].args[1], cases[i].id ? cases[i].id : "(none)");
                rt_cmdline_clear(&p.cl);
        }
}

int main(void)
{
        test_runtime_args_containerd_shim_create();
        test_runtime_args_docker_runtime_args_come_first_and_are_taken_out();
        test_runtime_args_bundle_spellings();
        test_runtime_args_what_is_not_rewritten();
        test_runtime_args_refusals();
        test_runtime_args_exec();
        test_runtime_args_delete();
        test_runtime_args_inspect_ids();
        return tap_done();
}
