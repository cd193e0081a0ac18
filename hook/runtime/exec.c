/* exec: a process started in a running container never passes through the
 * container's init, so it would carry the baseline alone. For a container of
 * ours its process file (--process, as Docker, containerd/CRI and Podman
 * give it) is rewritten to start our init in place, with the container's
 * filters (tsync_rewrite_exec); any other exec goes through untouched.
 *
 * The container's config is found from the runtime itself: `RUNTIME [global
 * options] state ID` is the OCI command runc and crun both keep stable, reads
 * their state wherever their own --root, --rootless and defaults put it, and
 * names the bundle; their state directories are private formats (runc's
 * state.json holds libcontainer's config, not the OCI one) that change
 * between versions. The bundle's config.json is where the rewrite wrote the
 * plan and the init's arguments; it decides only when it is owned by us and
 * writable by no one else, in a directory that is too, and only as exactly
 * what the rewrite wrote (tsync_rewrite_undo's check). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "lockdown/lockdown_record.h"
#include "plan/exec_path.h"
#include "plan/rewrite.h"
#include "plan/views.h"
#include "runtime.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/fileio.h"
#include "util/json_build.h"

#define STATE_MAX_BYTES   (1u << 20)
#define PROCESS_MAX_BYTES (4u << 20)

/* The last line the runtime wrote on its standard error (kept in fd), for
 * our one line: runc's is a logrus line, whose msg="..." is what counts.
 * Its tail alone is read, from the end of the file. */
static void last_line(int fd, char *buf, size_t size)
{
        tsync_read_last_line(fd, buf, size);
        char *msg = strstr(buf, "msg=\"");
        if (msg) {
                char *line = msg + 5, *q = strrchr(line, '"');
                if (q)
                        *q = '\0';
                memmove(buf, line, strlen(line) + 1);
        }
}

/* `runtime [global options] state id`'s standard output (what it says on
 * standard error ends our message); 0, or -errno with a message in err. */
static int runtime_state(const char *runtime, const struct rt_cmdline *cl, char **ret, size_t *ret_len,
                         struct tsync_err *err)
{
        int n_globals = cl->command - 1;
        _cleanup_free_ char **argv = calloc((size_t)n_globals + 4, sizeof(*argv));
        if (!argv)
                return tsync_error(err, ENOMEM, "out of memory");
        argv[0] = (char *)runtime;
        memcpy(argv + 1, cl->argv + 1, (size_t)n_globals * sizeof(*argv));
        argv[n_globals + 1] = "state";
        argv[n_globals + 2] = (char *)cl->id;
        _cleanup_close_ int errfd = memfd_create("oci-seccomp-tsync-state-stderr", MFD_CLOEXEC);
        if (errfd < 0)
                return tsync_error_errno(err, "memfd_create");
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) < 0)
                return tsync_error_errno(err, "pipe");
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
                int e = errno;
                close(fds[0]);
                close(fds[1]);
                return tsync_error(err, e, "fork: %s", tsync_errtext(e));
        }
        if (pid == 0) {
                int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
                if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(fds[1], STDOUT_FILENO) < 0 ||
                    dup2(errfd, STDERR_FILENO) < 0)
                        _exit(127);
                execv(runtime, argv);
                _exit(127);
        }
        close(fds[1]);
        /* Read to its end (or past the limit) before the exit status: a
         * runtime that fails says why, whatever it printed. */
        _cleanup_free_ char *out = NULL;
        size_t len = 0;
        struct tsync_err read_err = { 0 };
        int read_r = tsync_read_all(fds[0], STATE_MAX_BYTES - 1, 0, &out, &len, &read_err);
        close(fds[0]);
        int status;
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return tsync_error_errno(err, "waitpid");
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                char said[512];
                last_line(errfd, said, sizeof(said));
                return tsync_error(err, ESRCH, "`%s state %s` %s %d%s%s", runtime, cl->id,
                                   WIFEXITED(status) ? "exited with" : "was killed by signal",
                                   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), said[0] ? ": " : "",
                                   said);
        }
        if (read_r == -EFBIG)
                return tsync_error(err, E2BIG, "`%s state %s`: more than %u bytes", runtime, cl->id, STATE_MAX_BYTES);
        if (read_r < 0)
                return tsync_error(err, -read_r, "`%s state %s`: %s", runtime, cl->id, read_err.msg);
        *ret = TAKE_PTR(out);
        *ret_len = len;
        return 0;
}

/* The bundle and (ret_pid, optional) the container's PID 1 `state` names. */
static int state_read(const char *runtime, const struct rt_cmdline *cl, char **ret, pid_t *ret_pid,
                      struct tsync_err *err)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = runtime_state(runtime, cl, &text, &len, err);
        if (r < 0)
                return r;
        _cleanup_json_ struct tsync_json *state = NULL;
        r = tsync_json_parse(text, len, NULL, &state, err);
        if (r < 0)
                return tsync_error_prefix(err, "`%s state %s`", runtime, cl->id);
        const char *bundle;
        r = tsync_json_str(tsync_json_get(state, "bundle"), "bundle", &bundle, err);
        if (r == 0 && bundle[0] != '/')
                r = tsync_error(err, EINVAL, "bundle: '%s' is not an absolute path", bundle);
        uint64_t pid = 0;
        if (r == 0 && ret_pid)
                r = tsync_json_uint_max(tsync_json_get(state, "pid"), "pid", INT_MAX, &pid, err);
        if (r < 0)
                return tsync_error_prefix(err, "`%s state %s`", runtime, cl->id);
        if (!(*ret = strdup(bundle)))
                return tsync_error(err, ENOMEM, "out of memory");
        if (ret_pid)
                *ret_pid = (pid_t)pid;
        return 0;
}

int rt_state_bundle(const char *runtime, const struct rt_cmdline *cl, char **ret, struct tsync_err *err)
{
        return state_read(runtime, cl, ret, NULL, err);
}

/* The layers lockdown added to the container whose PID 1 is pid (its
 * record); none when the container runs no process (the runtime then says
 * what is wrong with the exec). */
static int added_layers(pid_t pid, struct tsync_lockdown_record *ret, struct tsync_err *err)
{
        char key[64];
        struct tsync_err ignored = { 0 };
        *ret = (struct tsync_lockdown_record){ 0 };
        /* The records are root's (lockdown runs as root): a rootless
         * engine's wrapper has none to read. */
        if (geteuid() != 0 || pid <= 0 || tsync_lockdown_record_key(pid, key, sizeof(key), &ignored) < 0)
                return 0;
        return tsync_lockdown_record_read(TSYNC_LOCKDOWN_ROOT, key, ret, err);
}

/* Owned by us and writable by no one else: what the workload, or any other
 * user, cannot have shaped. */
static int trusted(int fd, const char *path, bool dir, struct tsync_err *err)
{
        struct stat st;
        if (fstat(fd, &st) < 0)
                return tsync_error_errno(err, "%s", path);
        if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
                return tsync_error(err, EINVAL, "%s: not a %s", path, dir ? "directory" : "regular file");
        if (st.st_uid != geteuid() || (st.st_mode & 022))
                return tsync_error(err, EPERM,
                                   "%s: owned by uid %u with mode %04o: only a file of uid %u that no one else may "
                                   "write decides what an exec'd process gets",
                                   path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), (unsigned)geteuid());
        return 0;
}

/* BUNDLE/config.json, read under the bundle's lock (shared: the hooks of a
 * running container change it under the exclusive one, see bundle.c). With
 * inject's views held by a running container (plan/views.h) config.json is
 * the exec view, and the config inject wrote is the views' lent.json. */
int rt_read_config(const char *bundle, struct tsync_json **ret, struct tsync_err *err)
{
        _cleanup_close_ int dir = open(bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (dir < 0)
                return tsync_error_errno(err, "bundle %s", bundle);
        int r = trusted(dir, bundle, true, err);
        if (r < 0)
                return r;
        if (flock(dir, LOCK_SH) < 0)
                return tsync_error_errno(err, "%s: cannot lock", bundle);
        char path[PATH_MAX + 64];
        (void)snprintf(path, sizeof(path), "%s/config.json", bundle);
        int at = dir;
        const char *name = "config.json";
        _cleanup_close_ int views = -EBADF;
        if (tsync_views_held(dir)) {
                (void)snprintf(path, sizeof(path), "%s/%s", bundle, TSYNC_BUNDLE_VIEWS);
                views = openat(dir, TSYNC_BUNDLE_VIEWS, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
                r = views < 0 ? tsync_error_errno(err, "%s", path) : trusted(views, path, true, err);
                if (r < 0)
                        return r;
                (void)snprintf(path, sizeof(path), "%s/%s/lent.json", bundle, TSYNC_BUNDLE_VIEWS);
                at = views;
                name = "lent.json";
        }
        _cleanup_close_ int fd = openat(at, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
        if (fd < 0)
                return tsync_error_errno(err, "%s", path);
        r = trusted(fd, path, false, err);
        if (r < 0)
                return r;
        struct tsync_json_limits lim = { .max_bytes = TSYNC_CONFIG_MAX_BYTES };
        r = tsync_json_parse_fd(fd, &lim, ret, err);
        return r < 0 ? tsync_error_prefix(err, "%s", path) : 0;
}

/* The rewritten process file: a sealed memfd the runtime reads as
 * /proc/self/fd/N. Nothing is left on disk, and the engine's file is not
 * touched. The fd is left open across our execve of the runtime on purpose
 * (the one fd that is): runc and crun close what the container's process
 * does not get before its execve. */
static int process_memfd(const struct tsync_json *process, struct tsync_err *err)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = tsync_json_write(process, false, &text, &len, err);
        if (r < 0)
                return r;
        _cleanup_close_ int fd = memfd_create("oci-seccomp-tsync-process", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0)
                return tsync_error_errno(err, "memfd_create");
        for (size_t done = 0; done < len;) {
                ssize_t n = write(fd, text + done, len - done);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return tsync_error_errno(err, "writing the process file");
                done += (size_t)n;
        }
        if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0 ||
            lseek(fd, 0, SEEK_SET) < 0 || fcntl(fd, F_SETFD, 0) < 0)
                return tsync_error_errno(err, "the process file");
        return TAKE_FD(fd);
}

static int read_process(const char *path, struct tsync_json **ret, struct tsync_err *err)
{
        struct tsync_json_limits lim = { .max_bytes = PROCESS_MAX_BYTES };
        int r = tsync_json_parse_file(path, &lim, ret, err);
        return r < 0 ? tsync_error_prefix(err, "--process") : 0;
}

/* argv's --process argument, now naming fd: "--process=FILE" and "-pFILE"
 * keep their option, a separate FILE is replaced. */
static void name_memfd(struct rt_cmdline *cl, int fd)
{
        static char buf[PATH_MAX + 64];
        const char *arg = cl->argv[cl->process_arg];
        size_t prefix = cl->process >= arg && cl->process < arg + strlen(arg) ? (size_t)(cl->process - arg) : 0;
        (void)snprintf(buf, sizeof(buf), "%.*s/proc/self/fd/%d", (int)prefix, arg, fd);
        cl->argv[cl->process_arg] = buf;
}

static int rewrite(const char *runtime, struct rt_cmdline *cl, struct tsync_err *err)
{
        _cleanup_free_ char *bundle = NULL;
        pid_t pid = 0;
        int r = state_read(runtime, cl, &bundle, &pid, err);
        if (r < 0)
                return tsync_error_prefix(err, "cannot tell whether the container runs under our init");
        _cleanup_(tsync_lockdown_record_clear) struct tsync_lockdown_record added = { 0 };
        r = added_layers(pid, &added, err);
        if (r < 0)
                return tsync_error_prefix(err, "the layers lockdown added to the container");
        _cleanup_json_ struct tsync_json *config = NULL;
        r = rt_read_config(bundle, &config, err);
        if (r < 0)
                return tsync_error_prefix(err, "cannot tell whether the container runs under our init");
        bool ours = tsync_rewrite_is_ours(config);
        if (!ours && added.n)
                return tsync_error(err, EPERM,
                                   "exec: lockdown added %zu layer(s) to the container (first '%s'), and a process "
                                   "exec'd into it can carry them only through our init, which the container does not "
                                   "run: refused",
                                   added.n, added.layers[0].name);
        if (!ours)
                return 0;
        if (!cl->process)
                return tsync_error(err, EINVAL,
                                   "exec without --process: the container runs under our layers, and %s rewrites "
                                   "only a process given by --process FILE (as Docker, containerd and Podman give it)",
                                   RT_PROGRAM);
        if (cl->shaping)
                return tsync_error(err, EINVAL,
                                   "exec --process with '%s': the process must be the file's alone, which %s "
                                   "rewrites: put it in the file",
                                   cl->shaping, RT_PROGRAM);
        _cleanup_json_ struct tsync_json *process = NULL;
        r = read_process(cl->process, &process, err);
        if (r == 0)
                r = tsync_rewrite_exec(process, config, err);
        /* What the runtime will execute is checked in the container, not
         * assumed from the config (plan/exec_path.h): the config was
         * believed by tsync_rewrite_exec's check above. */
        if (r >= 0 && tsync_exec_path_check_config(pid, config, err) < 0)
                return tsync_error_prefix(err, "exec: what the runtime would run for the process cannot be "
                                               "trusted, so nothing runs");
        const char *data[TSYNC_LOCKDOWN_MAX_LAYERS];
        for (size_t i = 0; i < added.n; i++)
                data[i] = added.layers[i].filter;
        if (r >= 0 && added.n)
                r = tsync_rewrite_exec_add(process, data, added.n, err);
        if (r < 0)
                return r;
        int fd = process_memfd(process, err);
        if (fd < 0)
                return fd;
        name_memfd(cl, fd);
        return 0;
}

int rt_rewrite_exec(struct rt_cmdline *cl, const char *runtime)
{
        /* Without an id the runtime says what is wrong. */
        if (!cl->exec || !cl->id)
                return 0;
        struct tsync_err err = { 0 };
        if (rewrite(runtime, cl, &err) < 0) {
                frontend_error(cl->id, &err);
                return -1;
        }
        return 0;
}
