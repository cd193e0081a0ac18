/* The exec view on the host (plan/exec_view.h has the why): at createRuntime,
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

#include "facts/runtimes.h"
#include "plan/exec_view.h"
#include "plan/exec_view_bundle.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "plan/views.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/fileio.h"
#include "util/json_build.h"

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

/* The bounds the runtime's /proc files were always read within: its
 * command line and environment 64 KiB, its status 16 KiB (each less the
 * byte a NUL took in the fixed buffers they had). */
#define PROC_LIST_MAX   (65536 - 2)
#define PROC_STATUS_MAX (16384 - 2)

/* /proc/PID/NAME whole (NUL-terminated; its own NULs kept) into *ret, at
 * most max bytes: 0, -E2BIG past max, or -errno. */
static int read_proc(pid_t pid, const char *name, size_t max, char **ret, size_t *ret_len)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
        int r = tsync_read_file_at(AT_FDCWD, path, NULL, 0, max, ret, ret_len, NULL, NULL);
        return r == -EFBIG ? -E2BIG : r;
}

/* The runtime running this hook: its parent's command name. Not the
 * executable's path: crun runs from a copy of itself on a detached mount
 * (/proc/PID/exe reads "/"); the name is what it was started as. */
static int parent_runtime(pid_t ppid, char *ret, size_t size, struct tsync_err *err)
{
        _cleanup_free_ char *comm = NULL;
        size_t n;
        int r = read_proc(ppid, "comm", size - 2, &comm, &n);
        if (r < 0)
                return tsync_error(err, -r, "/proc/%d/comm: cannot tell which runtime runs this hook: %s", (int)ppid,
                                   tsync_errtext(-r));
        if (n > 0 && comm[n - 1] == '\n')
                comm[n - 1] = '\0';
        (void)snprintf(ret, size, "%s", comm);
        return 0;
}

/* The runtime's state root as its command line and environment chose it
 * (facts/runtimes.h): the last of its root options before the command, else
 * $<state_root_env>/<name>, else its default. Long options may be
 * abbreviated, as argp allows. Anything we cannot read exactly is an error. */
static int runtime_state_root(const struct tsync_runtime *rt, pid_t ppid, char *ret, size_t size, struct tsync_err *err)
{
        _cleanup_free_ char *cmd = NULL;
        size_t len;
        int r = read_proc(ppid, "cmdline", PROC_LIST_MAX, &cmd, &len);
        if (r < 0)
                return tsync_error(err, -r, "%s's command line (/proc/%d/cmdline): %s", rt->name, (int)ppid,
                                   tsync_errtext(-r));
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
        /* Without --root, where the runtime itself looks: the runtime table's
         * rule, on the runtime's own environment and effective uid. */
        const char *env_value = NULL;
        size_t env_len = rt->state_root_env ? strlen(rt->state_root_env) : 0;
        _cleanup_free_ char *env = NULL;
        size_t elen = 0;
        r = env_len ? read_proc(ppid, "environ", PROC_LIST_MAX, &env, &elen) : 0;
        if (r < 0)
                return tsync_error(err, -r, "%s's environment (/proc/%d/environ): %s", rt->name, (int)ppid,
                                   tsync_errtext(-r));
        for (const char *e = env; env_len && e < env + elen; e += strlen(e) + 1)
                if (strncmp(e, rt->state_root_env, env_len) == 0 && e[env_len] == '=')
                        env_value = e + env_len + 1;
        _cleanup_free_ char *status = NULL;
        size_t slen = 0;
        r = read_proc(ppid, "status", PROC_STATUS_MAX, &status, &slen);
        const char *uid_line = r == 0 && slen > 0 ? strstr(status, "\nUid:") : NULL;
        unsigned ruid, euid;
        if (!uid_line || sscanf(uid_line, "\nUid: %u %u", &ruid, &euid) != 2)
                return tsync_error(err, EINVAL, "%s's effective uid (/proc/%d/status): not found", rt->name, (int)ppid);
        r = tsync_runtime_default_root(rt, env_value, euid, ret, size);
        return r < 0 ? tsync_error(err, -r, "%s's state root: %s", rt->name, tsync_errtext(-r)) : 0;
}

/* A runtime that keeps its own copy of the config (TSYNC_EXEC_CAPS_STATE_COPY,
 * crun): the copy, byte for byte the bundle's file as the runtime copied it
 * (lent, still lent; anything else and we cannot know what its exec reads),
 * gets exec, the original sets without our id. Not synced: it goes with the
 * container. */
static int write_state_copy(const struct tsync_runtime *rt, pid_t ppid, const char *id, const char *bundle,
                            const char *lent, size_t lent_len, const char *exec, size_t exec_len, struct tsync_err *err)
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
        r = tsync_write_atomic(copy, exec, exec_len, mode, false, err);
        return r < 0 ? tsync_error_prefix(err, "%s", copy) : 0;
}

/* The same from the config as read (c, still lent) and c->doc, already restored. */
static int restore_state_copy(const struct tsync_runtime *rt, pid_t ppid, const char *id, const char *bundle,
                              const struct tsync_bundle_config *c, struct tsync_err *err)
{
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r = tsync_exec_view_text(c->text, c->len, &c->spans, c->doc, &text, &len, err);
        return r < 0 ? tsync_error_prefix(err, "%s/config.json", bundle)
                     : write_state_copy(rt, ppid, id, bundle, c->text, c->len, text, len, err);
}

/* Crash model of the bundle's config.json when it is rewritten: a bundle
 * without inject's views (plan/views.h has theirs, where a start writes
 * nothing). The bundle is the user's with inject's hooks; an engine that
 * writes config.json anew at every start runs them with --no-sync, and then
 * nothing here is synced:
 *   createRuntime rewrites it as the exec view (original sets, our id),
 *   poststop as the lent view again. Each rewrite is a new file, synced
 *   (TSYNC_WRITE_CONTENT) before it takes the name by a rename: a crash never
 *   leaves an empty or torn config.json, only the old text or the new one.
 *   The directory is not synced: a lost rename leaves the view before it.
 *     createRuntime's lost: the lent view, as inject wrote it; the crash ended
 *       the container, so no exec reads it, and the next start begins from
 *       exactly what it expects.
 *     poststop's lost: the exec view with our id, as after a crash while the
 *       container ran (which no sync prevents): `runc delete` (a runc root that
 *       survived) runs poststop, which lends the sets again from the plan in
 *       that very file; otherwise the next start is refused, naming the
 *       container, and `hook poststop` with its id repairs it.
 * So everything a repair needs is in config.json itself: nothing else of ours
 * is kept for it, and nothing else is synced (not crun's copy, which goes
 * with the container, nor the directory). */
static int write_config(const struct tsync_bundle_config *c, const char *bundle, bool durable, struct tsync_err *err)
{
        char path[PATH_MAX + 16];
        (void)snprintf(path, sizeof(path), "%s/config.json", bundle);
        /* Written from the text read and the spliced pieces: no copy of the whole. */
        _cleanup_(tsync_exec_view_pieces_clear) struct tsync_exec_view_pieces pieces = { 0 };
        int r = tsync_exec_view_pieces(c->text, c->len, &c->spans, c->doc, &pieces, err);
        if (r == 0)
                r = tsync_write_atv(c->dir, path, "config.json", pieces.iov, pieces.n, c->mode,
                                    durable ? TSYNC_WRITE_CONTENT : 0, err);
        return r < 0 ? tsync_error_prefix(err, "%s", path) : 0;
}

/* The lock is only needed when something is lent: its failure is ours to report then. */
static int need_lock(const struct tsync_bundle_config *c, const char *bundle, struct tsync_err *err)
{
        if (c->dir == -ELOOP)
                return tsync_error(err, ELOOP, "%s: is a symbolic link: refusing to write into it", bundle);
        if (c->dir < 0)
                return tsync_error(err, -c->dir, "%s: cannot lock: %s", bundle, tsync_errtext(-c->dir));
        return 0;
}

int tsync_bundle_config_read(const char *bundle, struct tsync_bundle_config *c, struct tsync_err *err)
{
        c->dir = open(bundle, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (c->dir < 0) {
                struct stat st;
                c->dir = -errno;
                if ((c->dir == -ELOOP || c->dir == -ENOTDIR) && lstat(bundle, &st) == 0 && S_ISLNK(st.st_mode))
                        c->dir = -ELOOP;
        } else if (flock(c->dir, LOCK_EX) < 0) {
                int r = -errno;
                (void)close(c->dir);
                c->dir = r;
        }
        char path[PATH_MAX + 16];
        (void)snprintf(path, sizeof(path), "%s/config.json", bundle);
        struct stat st;
        /* A FIFO nobody writes to must not hang a hook: opened without blocking. */
        int r = tsync_read_file_at(AT_FDCWD, path, path, TSYNC_READ_OPEN_NONBLOCK, TSYNC_CONFIG_MAX_BYTES, &c->text,
                                   &c->len, &st, err);
        if (r < 0)
                return r;
        c->mode = st.st_mode & 07777;
        /* Of the whole config, the hooks read the annotations and the sets:
         * only they become a tree when the text is one the fast read is sure
         * of (a relay asks for the rest: tsync_bundle_config_full). */
        r = tsync_exec_view_scan(c->text, c->len, TSYNC_CONFIG_LIMITS, &c->doc, &c->spans, err);
        if (r != 0)
                return r < 0 ? tsync_error_prefix(err, "%s", path) : 0;
        return tsync_bundle_config_full(c, bundle, err);
}

int tsync_bundle_config_full(struct tsync_bundle_config *c, const char *bundle, struct tsync_err *err)
{
        if (c->doc && !c->spans.partial)
                return 0;
        tsync_json_free(c->doc);
        c->doc = NULL;
        int r = tsync_json_parse(c->text, c->len, TSYNC_CONFIG_LIMITS, &c->doc, err);
        if (r < 0)
                return tsync_error_prefix(err, "%s/config.json", bundle);
        tsync_exec_view_spans(c->doc, &c->spans);
        return 0;
}

void tsync_bundle_config_clear(struct tsync_bundle_config *c)
{
        if (c->dir >= 0)
                (void)close(c->dir);
        free(c->text);
        tsync_json_free(c->doc);
        *c = (struct tsync_bundle_config)TSYNC_BUNDLE_CONFIG_INIT;
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

/* The runtime running this hook, when it is one whose exec view we know. */
static int exec_view_runtime(pid_t ppid, const struct tsync_runtime **ret, struct tsync_err *err)
{
        char runtime[64];
        int r = parent_runtime(ppid, runtime, sizeof(runtime), err);
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
        *ret = rt;
        return 0;
}

int tsync_exec_view_start(const struct tsync_plan *plan, const struct tsync_json *lent, struct tsync_bundle_config *c,
                          const char *id, const char *bundle, bool durable, struct tsync_err *err)
{
        if (!lent)
                return 0;
        pid_t ppid = getppid();
        const struct tsync_runtime *rt;
        int r = exec_view_runtime(ppid, &rt, err);
        if (r < 0)
                return r;
        r = need_lock(c, bundle, err);
        if (r < 0)
                return r;
        /* The runtime's copy first (the original sets without our id): it must
         * be the bundle's file as read, still lent. */
        bool copy = rt->exec_caps == TSYNC_EXEC_CAPS_STATE_COPY;
        r = tsync_exec_view_restore_lent(c->doc, plan, lent, copy ? NULL : id, err);
        if (r == 0 && copy) {
                r = restore_state_copy(rt, ppid, id, bundle, c, err);
                if (r < 0)
                        return r;
                r = tsync_exec_view_mark(c->doc, id, err);
        }
        if (r < 0)
                return tsync_error_prefix(err, "%s/config.json", bundle);
        return write_config(c, bundle, durable, err);
}

int tsync_exec_view_stop(const struct tsync_plan *plan, const struct tsync_json *lent, struct tsync_bundle_config *c,
                         const char *id, const char *bundle, bool durable, struct tsync_err *err)
{
        if (!lent)
                return 0;
        int r = need_lock(c, bundle, err);
        if (r < 0)
                return r;
        bool changed;
        r = tsync_exec_view_lend_lent(c->doc, plan, lent, id, &changed, err);
        if (r < 0)
                return tsync_error_prefix(err, "%s/config.json", bundle);
        return changed ? write_config(c, bundle, durable, err) : 0;
}

int tsync_views_start(int bundle_fd, const char *id, const char *bundle, char **ret_summary, struct tsync_err *err)
{
        _cleanup_(tsync_views_clear) struct tsync_views v = TSYNC_VIEWS_INIT;
        int r = tsync_views_read(bundle_fd, bundle, &v, err);
        if (r < 0)
                return r;
        /* Either refusal first names a holder: its poststop repairs the rest. */
        if (v.holder[0])
                return tsync_views_hold(&v, bundle, id, err);
        if (v.state != TSYNC_VIEWS_LENT)
                return tsync_error(err, EPERM,
                                   "%s/config.json: not the config inject wrote (%s/%s/lent.json): changed since? "
                                   "run `oci-seccomp-tsync inject` again",
                                   bundle, bundle, TSYNC_BUNDLE_VIEWS);
        pid_t ppid = getppid();
        const struct tsync_runtime *rt;
        r = exec_view_runtime(ppid, &rt, err);
        if (r == 0 && rt->exec_caps == TSYNC_EXEC_CAPS_STATE_COPY)
                r = write_state_copy(rt, ppid, id, bundle, v.config, v.config_len, v.swap, v.swap_len, err);
        if (r == 0)
                r = tsync_views_hold(&v, bundle, id, err);
        if (r < 0)
                return r;
        r = tsync_views_exchange(&v, bundle, err);
        if (r < 0) {
                struct tsync_err ignored = { 0 };
                (void)tsync_views_release(&v, bundle, &ignored);
                return r;
        }
        *ret_summary = TAKE_PTR(v.summary);
        return 0;
}

int tsync_views_stop(int bundle_fd, const char *id, const char *bundle, struct tsync_err *err)
{
        _cleanup_(tsync_views_clear) struct tsync_views v = TSYNC_VIEWS_INIT;
        int r = tsync_views_read(bundle_fd, bundle, &v, err);
        if (r < 0)
                return r;
        if (v.holder[0] && strcmp(v.holder, id) != 0)
                return 0; /* another container's: not ours to give back */
        if (v.state == TSYNC_VIEWS_OTHER) {
                if (!v.holder[0])
                        return 0; /* a start refused before the exchange */
                return tsync_error(err, EPERM,
                                   "%s/config.json: neither view inject wrote (%s/%s): changed while '%s' ran? "
                                   "run `oci-seccomp-tsync inject` again, then this stage by hand with its id",
                                   bundle, bundle, TSYNC_BUNDLE_VIEWS, id);
        }
        /* Without a record too: a crash that kept the exchange but lost the link. */
        if (v.state == TSYNC_VIEWS_EXEC)
                r = tsync_views_exchange(&v, bundle, err);
        if (r == 0)
                r = tsync_views_release(&v, bundle, err);
        return r;
}
