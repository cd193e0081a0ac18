/* check --runtime RUNTIME: does this runtime apply a config's linux.seccomp
 * itself? gVisor's runsc, for one, ignores it unless started with
 * --oci-seccomp, without a word. We run a tiny container whose profile kills
 * exit_group: its workload (our static init, printing its version) can only
 * end normally if the runtime did not apply the profile.
 *
 * The bundle lives in a fresh directory under $TMPDIR (or /tmp) and is
 * removed afterwards, and so is the container (RUNTIME delete --force). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "facts/runtimes.h"
#include "shared/cleanup.h"
#include "util/fileio.h"

extern char **environ;

#define MAX_RUNTIME_ARGS 32
/* The status a runtime reports for a process SIGSYS killed (facts/runtimes.h;
 * SCMP_ACT_KILL, not KILL_PROCESS: runsc --oci-seccomp refuses KILL_PROCESS).
 * One we do not know by its program's name is taken to report it as runc does. */
static int killed_by_sigsys(const char *program)
{
        const char *base = strrchr(program, '/');
        const struct tsync_runtime *rt = tsync_runtime_by_name(base ? base + 1 : program);
        return (rt ? rt : tsync_runtime_by_name("runc"))->sigsys_status;
}

static const char config_json[] =
        "{\n"
        "  \"ociVersion\": \"1.0.2\",\n"
        "  \"process\": {\n"
        "    \"terminal\": false,\n"
        "    \"user\": {\"uid\": 0, \"gid\": 0},\n"
        "    \"args\": [\"/init\", \"--version\"],\n"
        "    \"env\": [\"PATH=/\"],\n"
        "    \"cwd\": \"/\",\n"
        "    \"noNewPrivileges\": true\n"
        "  },\n"
        "  \"root\": {\"path\": \"rootfs\", \"readonly\": true},\n"
        "  \"hostname\": \"oci-seccomp-tsync-check\",\n"
        "  \"mounts\": [\n"
        "    {\"destination\": \"/proc\", \"type\": \"proc\", \"source\": \"proc\"},\n"
        "    {\"destination\": \"/dev\", \"type\": \"tmpfs\", \"source\": \"tmpfs\",\n"
        "     \"options\": [\"nosuid\", \"strictatime\", \"mode=755\", \"size=65536k\"]}\n"
        "  ],\n"
        "  \"linux\": {\n"
        "    \"namespaces\": [{\"type\": \"pid\"}, {\"type\": \"ipc\"}, {\"type\": \"uts\"}, {\"type\": \"mount\"},\n"
        "                   {\"type\": \"network\"}],\n"
        "    \"seccomp\": {\n"
        "      \"defaultAction\": \"SCMP_ACT_ALLOW\",\n"
        "      \"syscalls\": [{\"names\": [\"exit_group\"], \"action\": \"SCMP_ACT_KILL\"}]\n"
        "    }\n"
        "  }\n"
        "}\n";

struct runtime {
        const char *argv0;
        const char *args[MAX_RUNTIME_ARGS];
        size_t nargs;
};

static void help(FILE *f)
{
        fprintf(f,
                "Usage: %s check --runtime RUNTIME [--runtime-arg ARG]...\n"
                "Runs a tiny container with RUNTIME (as `RUNTIME [ARG...] run --bundle DIR ID`, then\n"
                "`delete --force`) whose linux.seccomp kills exit_group, and reports whether the runtime\n"
                "applied the profile itself. A runtime that ignores it (gVisor's runsc without\n"
                "--oci-seccomp) needs replace mode (inject --replace) for the profile to hold at all.\n"
                "  -r, --runtime RUNTIME      the runtime's program (runc, crun, runsc, or a path)\n"
                "  -A, --runtime-arg ARG      a global option for it, before 'run' (repeatable), e.g.\n"
                "                             --runtime-arg=--network=none for runsc\n"
                "Needs what the runtime needs (root). Exit status: 0 it applies linux.seccomp, 3 it ignores\n"
                "it, 1 the test container did not run (the runtime's last words are shown).\n",
                PROGRAM);
}

/* buf = a "/" b; -ENAMETOOLONG if it does not fit. */
static int join(char *buf, size_t size, const char *a, const char *b)
{
        int n = snprintf(buf, size, "%s/%s", a, b);
        return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Streamed: a program, of any size, copied as it is read. */
static int copy_file(const char *from, const char *to, mode_t mode)
{
        char buf[65536];
        _cleanup_close_ int in = open(from, O_RDONLY | O_CLOEXEC);
        if (in < 0)
                return -errno;
        _cleanup_close_ int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (out < 0)
                return -errno;
        for (;;) {
                ssize_t n = read(in, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return 0;
                int r = tsync_write_all(out, buf, (size_t)n);
                if (r < 0)
                        return r;
        }
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
        (void)st;
        (void)ftw;
        if (type == FTW_DP)
                (void)rmdir(path);
        else
                (void)unlink(path);
        return 0;
}

/* The bundle: DIR/config.json and DIR/rootfs with the init at /init. */
static int make_bundle(const char *dir, const char *init, const char **ret_what)
{
        char path[PATH_MAX];
        static const char *const subdirs[] = { "rootfs", "rootfs/proc", "rootfs/dev", "rootfs/tmp" };

        for (size_t i = 0; i < ARRAY_SIZE(subdirs); i++) {
                *ret_what = subdirs[i];
                if (join(path, sizeof(path), dir, subdirs[i]) < 0)
                        return -ENAMETOOLONG;
                if (mkdir(path, 0755) < 0)
                        return -errno;
        }
        if (join(path, sizeof(path), dir, "rootfs/init") < 0)
                return -ENAMETOOLONG;
        int r = copy_file(init, path, 0755);
        if (r < 0) {
                *ret_what = init;
                return r;
        }
        *ret_what = "config.json";
        if (join(path, sizeof(path), dir, "config.json") < 0)
                return -ENAMETOOLONG;
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        r = tsync_write_all(fd, config_json, sizeof(config_json) - 1);
        if (r < 0)
                return r;
        return 0;
}

/* Runs RUNTIME [ARGS...] VERB... with an empty stdin and stdout+stderr to log
 * (or discarded); returns its wait status, or -errno if it could not start.
 * Never the host's /dev/null as its stdio: crun and runsc fchown their stdio
 * to the container's user, and the host's /dev is not ours to change. */
static int run_runtime(const struct runtime *rt, const char *const *verb, size_t nverb, const char *log)
{
        const char *argv[1 + MAX_RUNTIME_ARGS + 8];
        size_t n = 0;
        posix_spawn_file_actions_t fa;
        pid_t pid;
        int st, r;

        argv[n++] = rt->argv0;
        for (size_t i = 0; i < rt->nargs; i++)
                argv[n++] = rt->args[i];
        for (size_t i = 0; i < nverb; i++)
                argv[n++] = verb[i];
        argv[n] = NULL;
        /* stdin: a pipe whose write end is closed (EOF at once); output
         * nobody reads: an anonymous file. */
        int in[2];
        if (pipe2(in, O_CLOEXEC) < 0)
                return -errno;
        (void)close(in[1]);
        _cleanup_close_ int in_fd = in[0];
        _cleanup_close_ int sink = log ? -1 : memfd_create("runtime-output", MFD_CLOEXEC);
        if (!log && sink < 0)
                return -errno;
        if ((r = posix_spawn_file_actions_init(&fa)) != 0)
                return -r;
        (void)posix_spawn_file_actions_adddup2(&fa, in_fd, STDIN_FILENO);
        if (log)
                (void)posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        else
                (void)posix_spawn_file_actions_adddup2(&fa, sink, STDOUT_FILENO);
        (void)posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
        r = posix_spawnp(&pid, rt->argv0, &fa, NULL, (char *const *)argv, environ);
        (void)posix_spawn_file_actions_destroy(&fa);
        if (r != 0)
                return -r;
        while (waitpid(pid, &st, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        return st;
}

/* The last line of the runtime's output, for a message: of a long line, its start. */
static void last_line(const char *log, char *buf, size_t size)
{
        char tail[4096];
        buf[0] = '\0';
        _cleanup_close_ int fd = open(log, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return;
        tsync_read_last_line(fd, tail, sizeof(tail));
        (void)snprintf(buf, size, "%.*s", (int)(size - 1), tail);
}

static int verdict(const char *name, int st, const char *log)
{
        char last[512];

        if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
                printf("%s: ignores linux.seccomp: a container whose profile kills exit_group exited normally.\n"
                       "Its profiles do not hold unless something else enforces them: use replace mode\n"
                       "(%s inject --replace BUNDLE, or the annotation io.oci-seccomp-tsync.mode=replace).\n",
                       name, PROGRAM);
                return 3;
        }
        if (WIFEXITED(st) && WEXITSTATUS(st) == killed_by_sigsys(name)) {
                printf("%s: applies linux.seccomp: the container's profile killed it with SIGSYS as asked.\n"
                       "Layer mode (the default) adds to it; replace mode is not needed.\n",
                       name);
                return 0;
        }
        last_line(log, last, sizeof(last));
        if (WIFEXITED(st))
                frontend_errorf("check --runtime", "%s run exited %d, neither 0 (profile ignored) nor %d (applied): %s",
                                name, WEXITSTATUS(st), killed_by_sigsys(name), last[0] ? last : "(no output)");
        else
                frontend_errorf("check --runtime", "%s run was killed by signal %d: %s", name,
                                WIFSIGNALED(st) ? WTERMSIG(st) : 0, last[0] ? last : "(no output)");
        return CLI_EXIT_FAILED;
}

static int check_runtime(const struct runtime *rt)
{
        char init[PATH_MAX], dir[PATH_MAX - 64], bundle[PATH_MAX], log[PATH_MAX], id[64];
        const char *tmp = getenv("TMPDIR");
        const char *what = NULL;
        int r, rc;

        r = frontend_find_init(init, sizeof(init));
        if (r < 0) {
                frontend_errorf("check --runtime", "cannot find seccomp-tsync-init beside this program: %s",
                                strerror(-r));
                return CLI_EXIT_FAILED;
        }
        if (join(dir, sizeof(dir), tmp && *tmp ? tmp : "/tmp", "oci-seccomp-tsync-check.XXXXXX") < 0 || !mkdtemp(dir)) {
                frontend_errorf("check --runtime", "cannot make a directory for the bundle: %s: %s", dir,
                                strerror(errno));
                return CLI_EXIT_FAILED;
        }
        (void)join(bundle, sizeof(bundle), dir, "bundle"); /* dir is 64 shorter */
        (void)join(log, sizeof(log), dir, "runtime.log");
        (void)snprintf(id, sizeof(id), "oci-seccomp-tsync-check-%d", (int)getpid());
        if (mkdir(bundle, 0700) < 0) {
                r = -errno;
                what = "bundle";
        } else {
                r = make_bundle(bundle, init, &what);
        }
        if (r < 0) {
                frontend_errorf("check --runtime", "cannot make the bundle in %s: %s: %s", dir, what, strerror(-r));
                rc = CLI_EXIT_FAILED;
                goto out;
        }
        const char *run[] = { "run", "--bundle", bundle, id };
        int st = run_runtime(rt, run, ARRAY_SIZE(run), log);
        const char *del[] = { "delete", "--force", id };
        (void)run_runtime(rt, del, ARRAY_SIZE(del), NULL);
        if (st < 0) {
                frontend_errorf("check --runtime", "cannot run %s: %s", rt->argv0, strerror(-st));
                rc = CLI_EXIT_FAILED;
                goto out;
        }
        rc = verdict(rt->argv0, st, log);
out:
        (void)nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
        return rc;
}

int cmd_check_runtime(int argc, char **argv)
{
        static const struct option options[] = { { "runtime", required_argument, NULL, 'r' },
                                                 { "runtime-arg", required_argument, NULL, 'A' },
                                                 { "help", no_argument, NULL, 'h' },
                                                 {} };
        struct runtime rt = { 0 };
        int opt;

        optind = 1;
        while ((opt = getopt_long(argc, argv, "r:A:h", options, NULL)) != -1) {
                switch (opt) {
                case 'r':
                        rt.argv0 = optarg;
                        break;
                case 'A':
                        if (rt.nargs == MAX_RUNTIME_ARGS) {
                                frontend_errorf("check --runtime", "more than %d --runtime-arg", MAX_RUNTIME_ARGS);
                                return CLI_EXIT_USAGE;
                        }
                        rt.args[rt.nargs++] = optarg;
                        break;
                default:
                        return cli_help(help, opt);
                }
        }
        if (!rt.argv0 || !*rt.argv0 || optind != argc)
                return cli_help(help, '?');
        return check_runtime(&rt);
}
