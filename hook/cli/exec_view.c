/* The exec view on the host (tsync/exec_view.h has the why): at createRuntime,
 * after the runtime has read the config, the original capability sets go
 * wherever an exec reads them from; poststop lends them again in the bundle.
 *   runc 1.1:   `runc exec` loads BUNDLE/config.json at exec time.
 *   Podman 4.3: `podman exec` builds the process from BUNDLE/config.json too
 *               (libpod's specFromState), whatever the runtime.
 *   crun 1.8:   `crun exec` loads <root>/<id>/config.json, the copy crun made
 *               of the bundle's file before any hook ran.
 * The runtime is the hook's parent (both run hooks themselves), named by its
 * command name. Any other
 * runtime, when something is lent, is refused: we do not know where its exec
 * reads from. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "tsync/cleanup.h"
#include "tsync/exec_view.h"
#include "tsync/fileio.h"
#include "tsync/json_build.h"
#include "tsync/plan.h"
#include "tsync/rewrite.h"
#include "tsync/runtimes.h"

/* Reads all of path (a regular file, at most TSYNC_CONFIG_MAX_BYTES), NUL-terminated. */
static int read_whole(const char *path, char **ret, size_t *ret_len, mode_t *ret_mode, struct tsync_err *err)
{
        struct stat st;
        int r = tsync_read_file_at(AT_FDCWD, path, path, TSYNC_READ_REGULAR, TSYNC_CONFIG_MAX_BYTES, ret, ret_len, &st,
                                   err);
        if (r == 0)
                *ret_mode = st.st_mode & 07777;
        return r;
}

/* Reads /proc/PID/NAME (NUL-separated) into buf; the length, or -errno. */
static ssize_t read_proc(pid_t pid, const char *name, char *buf, size_t size)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        size_t len = 0;
        for (ssize_t n; len + 1 < size; len += (size_t)n) {
                n = read(fd, buf + len, size - 1 - len);
                if (n < 0 && errno == EINTR)
                        n = 0;
                else if (n < 0)
                        return -errno;
                else if (n == 0)
                        break;
        }
        if (len + 1 >= size)
                return -E2BIG;
        buf[len] = '\0';
        return (ssize_t)len;
}

/* The runtime running this hook: its parent's command name. Not the
 * executable's path: crun runs from a copy of itself on a detached mount
 * (/proc/PID/exe reads "/"); the name is what it was started as. */
static int parent_runtime(pid_t ppid, char *ret, size_t size, struct tsync_err *err)
{
        ssize_t n = read_proc(ppid, "comm", ret, size);
        if (n < 0)
                return tsync_error(err, (int)-n, "/proc/%d/comm: cannot tell which runtime runs this hook: %s",
                                   (int)ppid, strerror((int)-n));
        if (n > 0 && ret[n - 1] == '\n')
                ret[n - 1] = '\0';
        return 0;
}

/* The runtime's state root as its command line and environment chose it
 * (tsync/runtimes.h): the last of its root options before the command, else
 * $<state_root_env>/<name>, else its default. Long options may be
 * abbreviated, as argp allows. Anything we cannot read exactly is an error. */
static int runtime_state_root(const struct tsync_runtime *rt, pid_t ppid, char *ret, size_t size, struct tsync_err *err)
{
        _cleanup_free_ char *cmd = malloc(65536);
        if (!cmd)
                return tsync_error(err, ENOMEM, "out of memory");
        ssize_t len = read_proc(ppid, "cmdline", cmd, 65536);
        if (len < 0)
                return tsync_error(err, (int)-len, "%s's command line (/proc/%d/cmdline): %s", rt->name, (int)ppid,
                                   strerror((int)-len));
        const char *root = NULL;
        const char *a = cmd + strlen(cmd) + 1; /* past argv[0] */
        while (a < cmd + len && a[0] == '-') {
                if (a[1] != '-' || a[2] == '\0')
                        return tsync_error(err, EINVAL, "%s's command line: option '%s' is not one we can read",
                                           rt->name, a);
                const char *name = a + 2, *eq = strchr(name, '=');
                size_t n = eq ? (size_t)(eq - name) : strlen(name);
                /* The one option name starts (argp: an exact name wins), and whether it takes a value. */
                const char *match = NULL;
                bool arg = false;
                int prefixes = 0; /* -1 once an exact name is found */
                for (int v = 0; v < 2 && prefixes >= 0; v++) {
                        const char *const *list = v ? rt->global_value_opts : rt->global_flag_opts;
                        for (size_t i = 0; list && list[i]; i++) {
                                if (strncmp(list[i], name, n) != 0)
                                        continue;
                                bool exact = list[i][n] == '\0';
                                if (exact || prefixes++ == 0) {
                                        match = list[i];
                                        arg = v;
                                }
                                if (exact) {
                                        prefixes = -1;
                                        break;
                                }
                        }
                }
                if (!match || prefixes > 1)
                        return tsync_error(err, EINVAL, "%s's command line: option '%s' is not one we can read",
                                           rt->name, a);
                const char *value = eq ? eq + 1 : NULL;
                a += strlen(a) + 1;
                if (arg && !value) {
                        if (a >= cmd + len)
                                return tsync_error(err, EINVAL, "%s's command line: --%s without its value", rt->name,
                                                   match);
                        value = a;
                        a += strlen(a) + 1;
                }
                if (tsync_runtime_list_has(rt->state_root_opts, match, strlen(match)))
                        root = value;
        }
        if (root) {
                if (root[0] != '/')
                        return tsync_error(err, EINVAL, "%s's state root '%s' is a relative path", rt->name, root);
                if (strlen(root) >= size)
                        return tsync_error(err, ENAMETOOLONG, "%s's state root: too long", rt->name);
                strcpy(ret, root);
                return 0;
        }
        size_t env_len = rt->state_root_env ? strlen(rt->state_root_env) : 0;
        ssize_t elen = env_len ? read_proc(ppid, "environ", cmd, 65536) : 0;
        if (elen < 0)
                return tsync_error(err, (int)-elen, "%s's environment (/proc/%d/environ): %s", rt->name, (int)ppid,
                                   strerror((int)-elen));
        for (const char *e = cmd; env_len && e < cmd + elen; e += strlen(e) + 1)
                if (strncmp(e, rt->state_root_env, env_len) == 0 && e[env_len] == '=' && e[env_len + 1] != '\0') {
                        if ((size_t)snprintf(ret, size, "%s/%s", e + env_len + 1, rt->name) >= size)
                                return tsync_error(err, ENAMETOOLONG, "%s's state root: too long", rt->name);
                        return 0;
                }
        (void)snprintf(ret, size, "%s", rt->state_root);
        return 0;
}

/* A runtime that keeps its own copy of the config (TSYNC_EXEC_CAPS_STATE_COPY,
 * crun): the copy, byte for byte the bundle's file as the runtime copied it
 * (bundle[0..len), still lent; anything else and we cannot know what its exec
 * reads), gets the original sets. It goes with the container. */
static int restore_state_copy(const struct tsync_runtime *rt, pid_t ppid, const char *id, const char *bundle,
                              const char *lent, size_t lent_len, struct tsync_err *err)
{
        char root[PATH_MAX], copy[PATH_MAX * 2 + 32];
        int r = runtime_state_root(rt, ppid, root, sizeof(root), err);
        if (r < 0)
                return r;
        (void)snprintf(copy, sizeof(copy), "%s/%s/config.json", root, id);
        _cleanup_free_ char *theirs = NULL;
        size_t theirs_len;
        mode_t mode = 0;
        r = read_whole(copy, &theirs, &theirs_len, &mode, err);
        if (r < 0)
                return tsync_error_prefix(err, "%s's copy of the config", rt->name);
        if (lent_len != theirs_len || memcmp(lent, theirs, lent_len) != 0)
                return tsync_error(err, EINVAL,
                                   "%s: not %s/config.json as %s read it: cannot tell what `%s exec` gives", copy,
                                   bundle, rt->name, rt->name);
        _cleanup_json_ struct tsync_json *doc = NULL;
        _cleanup_plan_ struct tsync_plan *plan = NULL;
        struct tsync_json_limits lim = { .max_bytes = TSYNC_CONFIG_MAX_BYTES };
        r = tsync_json_parse(theirs, theirs_len, &lim, &doc, err);
        if (r == 0)
                r = tsync_plan_from_config(doc, &plan, err);
        if (r == 0)
                r = tsync_exec_view_restore(doc, plan, NULL, err);
        _cleanup_free_ char *text = NULL;
        size_t len;
        if (r == 0)
                r = tsync_json_write(doc, true, &text, &len, err);
        if (r == 0)
                r = tsync_write_atomic(copy, text, len, mode, false, err);
        return r < 0 ? tsync_error_prefix(err, "%s", copy) : 0;
}

/* The bundle's config.json under a lock on the bundle directory (other
 * containers' hooks change it too): at start the original sets and our id
 * (and the runtime's own copy when copy_rt, whose pid is ppid, keeps one), at
 * stop the lent sets again if the id is ours. */
static int bundle_view(const char *bundle, const char *id, bool start, const struct tsync_runtime *copy_rt, pid_t ppid,
                       bool durable, struct tsync_err *err)
{
        _cleanup_close_ int dir = open(bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0)
                return tsync_error(err, errno, "%s: %s", bundle, strerror(errno));
        if (flock(dir, LOCK_EX) < 0)
                return tsync_error(err, errno, "%s: cannot lock: %s", bundle, strerror(errno));
        char path[PATH_MAX + 16];
        (void)snprintf(path, sizeof(path), "%s/config.json", bundle);
        _cleanup_free_ char *buf = NULL;
        size_t buf_len;
        mode_t mode = 0;
        _cleanup_json_ struct tsync_json *doc = NULL;
        _cleanup_plan_ struct tsync_plan *plan = NULL;
        struct tsync_json_limits lim = { .max_bytes = TSYNC_CONFIG_MAX_BYTES };
        bool changed = start;
        int r = read_whole(path, &buf, &buf_len, &mode, err);
        if (r == 0)
                r = tsync_json_parse(buf, buf_len, &lim, &doc, err);
        if (r == 0)
                r = tsync_plan_from_config(doc, &plan, err);
        if (r == 0)
                r = start ? tsync_exec_view_restore(doc, plan, id, err)
                          : tsync_exec_view_lend(doc, plan, id, &changed, err);
        if (r < 0)
                return tsync_error_prefix(err, "%s", path);
        if (copy_rt) {
                r = restore_state_copy(copy_rt, ppid, id, bundle, buf, buf_len, err);
                if (r < 0)
                        return r;
        }
        _cleanup_free_ char *text = NULL;
        size_t len;
        if (changed)
                r = tsync_json_write(doc, true, &text, &len, err);
        if (r == 0 && changed)
                r = tsync_write_atomic(path, text, len, mode, durable, err);
        return r < 0 ? tsync_error_prefix(err, "%s", path) : 0;
}

/* "runc and crun": the runtimes whose exec view we know. */
static void known_exec_views(char *buf, size_t size)
{
        size_t n, count = 0, seen = 0;
        const struct tsync_runtime *rt = tsync_runtimes(&n);
        for (size_t i = 0; i < n; i++)
                count += rt[i].exec_caps != TSYNC_EXEC_CAPS_UNKNOWN;
        for (size_t i = 0, len = 0; i < n && len < size; i++) {
                if (rt[i].exec_caps == TSYNC_EXEC_CAPS_UNKNOWN)
                        continue;
                seen++;
                len += (size_t)snprintf(buf + len, size - len, "%s%s", rt[i].name,
                                        seen == count       ? ""
                                        : seen + 1 == count ? " and "
                                                            : ", ");
        }
}

int cli_exec_view_start(const struct tsync_plan *plan, const char *id, const char *bundle, bool durable,
                        struct tsync_err *err)
{
        int r = tsync_exec_view_lends(plan, err);
        if (r <= 0)
                return r;
        pid_t ppid = getppid();
        char runtime[64];
        r = parent_runtime(ppid, runtime, sizeof(runtime), err);
        if (r < 0)
                return r;
        const struct tsync_runtime *rt = tsync_runtime_by_name(runtime);
        if (!rt || rt->exec_caps == TSYNC_EXEC_CAPS_UNKNOWN) {
                char known[256] = "";
                known_exec_views(known, sizeof(known));
                return tsync_error(err, EPERM,
                                   "runtime '%s': process.noNewPrivileges is false, so the init is lent CAP_SYS_ADMIN "
                                   "in process.capabilities, and oci-seccomp-tsync knows where %s give "
                                   "exec'd processes their capabilities from, not where '%s' does: set "
                                   "process.noNewPrivileges to true",
                                   runtime, known, runtime);
        }
        return bundle_view(bundle, id, true, rt->exec_caps == TSYNC_EXEC_CAPS_STATE_COPY ? rt : NULL, ppid, durable,
                           err);
}

int cli_exec_view_stop(const struct tsync_plan *plan, const char *id, const char *bundle, bool durable,
                       struct tsync_err *err)
{
        int r = tsync_exec_view_lends(plan, err);
        if (r <= 0)
                return r;
        return bundle_view(bundle, id, false, NULL, 0, durable, err);
}
