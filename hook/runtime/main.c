/* oci-seccomp-tsync-runtime: registered with an engine in runc's place
 * (Docker's runtimes, containerd's BinaryName, CRI-O's runtime table). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "runtime.h"
#include "shared/errnos.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static bool executable(const char *path)
{
        struct stat st;
        return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* A name is looked up in PATH as a shell would; a path is taken as it is. */
static int find_runtime(const char *name, char *buf, size_t size)
{
        if (strchr(name, '/')) {
                if (!executable(name))
                        return -ENOENT;
                return snprintf(buf, size, "%s", name) < (int)size ? 0 : -ENAMETOOLONG;
        }
        const char *path = getenv("PATH");
        if (!path || !*path)
                path = DEFAULT_PATH;
        for (const char *p = path; *p;) {
                size_t n = strcspn(p, ":");
                if (n > 0 && snprintf(buf, size, "%.*s/%s", (int)n, p, name) < (int)size && executable(buf))
                        return 0;
                p += n + (p[n] == ':');
        }
        return -ENOENT;
}

static int choose_runtime(const char *name, char *buf, size_t size)
{
        int r = find_runtime(name, buf, size);
        if (r < 0) {
                frontend_errorf("runtime", "the real runtime '%s': %s (set runtime = PATH in %s, or --runtime=PATH)",
                                name, r == -ENOENT ? "not found, or not an executable file" : tsync_errtext(-r),
                                RT_DEFAULT_CONF);
                return -1;
        }
        /* Installed as "runc" on PATH, we would call ourselves for ever. */
        struct stat me, it;
        if (stat("/proc/self/exe", &me) == 0 && stat(buf, &it) == 0 && me.st_dev == it.st_dev &&
            me.st_ino == it.st_ino) {
                frontend_errorf("runtime", "the real runtime '%s' (%s) is this program: name runc or crun by its path",
                                name, buf);
                return -1;
        }
        return 0;
}

static bool same_file(const char *a, const char *b)
{
        struct stat sa, sb;
        return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The commands that inspect or tear down a container the wrapper passes through. */
static bool inspects(const struct rt_cmdline *cl)
{
        static const char *const words[] = { "state", "kill",   "delete", "ps", "events",
                                             "pause", "resume", "update", NULL };
        if (cl->command < 0 || !cl->id)
                return false;
        for (const char *const *w = words; *w; w++)
                if (strcmp(cl->argv[cl->command], *w) == 0)
                        return true;
        return false;
}

int main(int argc, char **argv)
{
        struct rt_settings s = { 0 };
        struct rt_cmdline cl;
        char runtime[PATH_MAX];
        /* containerd's shim gives the runtime the container's stdio: the system log keeps our lines too. */
        frontend_syslog_enable(0);
        if (rt_parse_cmdline(argc, argv, &s, &cl) < 0)
                return CLI_EXIT_USAGE;
        bool ours = cl.rewrite || cl.exec;
        frontend_log_subject(cl.id);
        if (ours)
                rt_log_begin(&cl);
        /* A broken config file refuses what creates a container, never its
         * teardown (state, kill, delete, ...): those take what could be read
         * (the runtime's line, if any), else the command line's, else runc. */
        bool creates = cl.command >= 0 &&
                       (strcmp(cl.argv[cl.command], "create") == 0 || strcmp(cl.argv[cl.command], "run") == 0);
        int r = rt_read_conf(s.conf ? s.conf : RT_DEFAULT_CONF, !s.conf, creates, &s);
        bool conf_broken = r < 0;
        if (!creates)
                r = 0;
        /* The node's policy decides what a new container gets: a bad one refuses it. */
        if (r == 0 && cl.rewrite)
                r = rt_read_node_conf(&s);
        /* Who inspects or tears a container down: the runtime that created it
         * (creator.c), whatever runtime.conf says since. */
        char recorded[PATH_MAX];
        int have = inspects(&cl) ? rt_record_read(&cl, recorded, sizeof(recorded)) : 0;
        if (r == 0)
                r = choose_runtime(have > 0 && conf_broken ? recorded
                                   : s.runtime             ? s.runtime
                                                           : "runc",
                                   runtime, sizeof(runtime));
        if (r == 0 && have > 0 && !conf_broken && !same_file(runtime, recorded)) {
                rt_warn(&cl, "%s: uses the runtime that created it, %s, not %s as configured now", cl.argv[cl.command],
                        recorded, runtime);
                r = choose_runtime(recorded, runtime, sizeof(runtime));
        }
        /* Before the rewrite: a create refused here leaves the bundle untouched. */
        bool recorded_now = false;
        if (r == 0 && cl.rewrite) {
                r = rt_record_write(&cl, runtime);
                recorded_now = r > 0;
                r = r < 0 ? -1 : 0;
        }
        if (r == 0 && cl.rewrite)
                r = rt_rewrite_bundle(&s, &cl);
        /* Refused: no container, so no record of its runtime either. */
        if (r < 0 && recorded_now)
                rt_record_remove(&cl);
        if (r == 0 && cl.exec)
                r = rt_rewrite_exec(&cl, runtime);
        /* delete of a container that records: done by rt_delete (delete.c). */
        int status = 0;
        bool deleted = r == 0 && cl.deleting && rt_delete(&cl, runtime, &status) > 0;
        if (deleted) {
                rt_cmdline_clear(&cl);
                rt_settings_clear(&s);
                return status;
        }
        if (ours)
                rt_log_end(&cl, r < 0);
        if (r == 0) {
                rt_about(&cl, runtime);
                cl.argv[0] = runtime;
                execv(runtime, cl.argv);
                frontend_errorf("runtime", "%s: cannot execute it: %s", runtime, tsync_errtext(errno));
        }
        rt_cmdline_clear(&cl);
        rt_settings_clear(&s);
        return r < 0 ? CLI_EXIT_FAILED : 127;
}
