/* oci-seccomp-tsync lockdown --all --watch: the node's policy kept on every
 * container, running and new, as they come.
 *
 * A pass of lockdown --all, then a wait on inotify for what could change
 * its outcome: node.conf's directory and the profile directories (the policy
 * is read and compiled again first; one that cannot be read keeps the layers
 * in force and says so), and the state roots and each directory in them (a
 * container's directory appears at create, its exec.fifo goes at start;
 * containerd's namespaces hold its containers). No busy poll: while a
 * container waits created, a pass each second until it starts; otherwise a
 * pass every LOCKDOWN_WATCH_RESCAN_S seconds all the same, for roots that
 * did not exist at the last pass. A container no front end of ours started
 * runs without the layers from its first instruction until the pass that
 * follows its start: the window is the time events take to arrive plus one
 * pass (docs/node-policy.md). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/syslog.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "lockdown_cli.h"
#include "shared/cleanup.h"

/* What watching one more directory asks of the kernel. */
#define WATCH_DIR_MASK (IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_ONLYDIR)
/* Events that come in a burst (a create, its files, a start) make one pass. */
#define SETTLE_MS 100

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
        stop_sig = sig;
}

/* Watch descriptors of the policy's directories: an event there reloads. */
struct policy_wds {
        int wd[TSYNC_MAX_LAYERS + 1];
        size_t n;
};

static bool is_policy(const struct policy_wds *p, int wd)
{
        for (size_t i = 0; i < p->n; i++)
                if (p->wd[i] == wd)
                        return true;
        return false;
}

/* node.conf's directory and the profile directories; one that is not there
 * is watched from the next pass on, if it appears. */
static void watch_policy(int fd, const struct lockdown_all_opts *o, const char *const *dirs, size_t n_dirs,
                         struct policy_wds *p)
{
        char dir[PATH_MAX];
        (void)snprintf(dir, sizeof(dir), "%s", o->node_conf);
        char *slash = strrchr(dir, '/');
        if (slash)
                *(slash == dir ? slash + 1 : slash) = '\0';
        else
                (void)snprintf(dir, sizeof(dir), ".");
        p->n = 0;
        int wd = inotify_add_watch(fd, dir, WATCH_DIR_MASK);
        if (wd >= 0)
                p->wd[p->n++] = wd;
        for (size_t i = 0; i < n_dirs && p->n < TSYNC_MAX_LAYERS + 1; i++)
                if ((wd = inotify_add_watch(fd, dirs[i], WATCH_DIR_MASK)) >= 0)
                        p->wd[p->n++] = wd;
}

/* Each root and each directory in it (a runtime's containers, containerd's
 * namespaces); the wrapper's records, which name new roots. Watching a
 * directory again is no new watch. */
static void watch_roots(int fd, const struct lockdown_all_seen *seen)
{
        char path[PATH_MAX];
        (void)snprintf(path, sizeof(path), "%s/runtime", TSYNC_STATE_ROOT);
        (void)inotify_add_watch(fd, path, WATCH_DIR_MASK);
        for (size_t i = 0; i < seen->n_roots; i++) {
                if (inotify_add_watch(fd, seen->roots[i], WATCH_DIR_MASK) < 0)
                        continue;
                _cleanup_closedir_ DIR *d = opendir(seen->roots[i]);
                struct dirent *e;
                while (d && (e = readdir(d)))
                        if (e->d_type == DT_DIR && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
                            snprintf(path, sizeof(path), "%s/%s", seen->roots[i], e->d_name) < (int)sizeof(path))
                                (void)inotify_add_watch(fd, path, WATCH_DIR_MASK);
        }
}

/* Reads every event there is: whether one was in a policy directory. */
static bool drain(int fd, const struct policy_wds *p)
{
        bool policy = false;
        char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
        ssize_t n;
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                for (char *at = buf; at < buf + n;) {
                        const struct inotify_event *e = (const struct inotify_event *)at;
                        policy |= is_policy(p, e->wd) || (e->mask & IN_Q_OVERFLOW);
                        at += sizeof(*e) + e->len;
                }
        return policy;
}

int lockdown_watch(struct lockdown *l, struct lockdown_all_opts *o, const char *const *profile_dirs, size_t n_dirs,
                   lockdown_reload_fn reload, void *ctx)
{
        _cleanup_close_ int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (fd < 0) {
                frontend_errorf("lockdown --watch", "inotify: %s", strerror(errno));
                return CLI_EXIT_FAILED;
        }
        struct sigaction sa = { .sa_handler = on_stop };
        (void)sigemptyset(&sa.sa_mask);
        (void)sigaction(SIGINT, &sa, NULL);
        (void)sigaction(SIGTERM, &sa, NULL);
        (void)sigaction(SIGHUP, &sa, NULL);
        frontend_syslog_enable(0);
        char line[512];
        (void)snprintf(line, sizeof(line), "lockdown --watch: watching the node's containers for %s's %zu layer(s)",
                       o->node_conf, l->n_prog);
        printf("%s\n", line);
        frontend_syslog(LOG_INFO, line);
        _cleanup_(lockdown_all_seen_clear) struct lockdown_all_seen seen = { 0 };
        struct policy_wds p = { 0 };
        bool reread = false;
        while (!stop_sig) {
                /* Watched before the pass: nothing that changes during it is missed. */
                watch_policy(fd, o, profile_dirs, n_dirs, &p);
                watch_roots(fd, &seen);
                if (reread || !l->n_prog)
                        (void)reload(ctx, l, o);
                /* No layers yet: nothing to add until node.conf names some. */
                if (l->n_prog)
                        (void)lockdown_all_pass(l, o, &seen);
                watch_roots(fd, &seen);
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                int r = poll(&pfd, 1, seen.created ? 1000 : LOCKDOWN_WATCH_RESCAN_S * 1000);
                if (r < 0 && errno != EINTR) {
                        frontend_errorf("lockdown --watch", "poll: %s", strerror(errno));
                        return CLI_EXIT_FAILED;
                }
                reread = false;
                if (r > 0) {
                        reread = drain(fd, &p);
                        struct timespec settle = { .tv_nsec = SETTLE_MS * 1000000L };
                        (void)nanosleep(&settle, NULL);
                        reread |= drain(fd, &p);
                }
        }
        (void)snprintf(line, sizeof(line), "lockdown --watch: stopped (signal %d)", (int)stop_sig);
        printf("%s\n", line);
        frontend_syslog(LOG_INFO, line);
        return CLI_EXIT_OK;
}
