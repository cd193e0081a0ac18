/* status: the kernel's view of a container's tasks (status.h). Everything
 * comes from /proc; a task that ends while it is read is left out, since it
 * no longer runs anything. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts/runtimes.h"
#include "plan/plan.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "status/status.h"
#include "util/fileio.h"

void tsync_status_clear(struct tsync_status *s)
{
        tsync_status_programs_free(&s->programs);
        free(s->tasks);
        *s = (struct tsync_status){ 0 };
}

/* The last number of a "NStgid:\t12\t1" line: the innermost namespace's. */
static pid_t last_number(const char *v)
{
        long n = -1;
        for (const char *p = v; *p;) {
                char *end;
                long x = strtol(p, &end, 10);
                if (end == p)
                        break;
                n = x;
                p = end;
        }
        return (pid_t)n;
}

int tsync_proc_stat_read(pid_t pid, char **ret_line, const char **ret_fields, struct tsync_err *err)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        size_t len;
        int r = tsync_read_file_at(AT_FDCWD, path, err ? path : NULL, 0, TSYNC_PROC_STAT_MAX, ret_line, &len, NULL,
                                   err);
        if (r < 0)
                return r;
        const char *p = strrchr(*ret_line, ')');
        if (!p) {
                free(*ret_line);
                *ret_line = NULL;
                return err ? tsync_error(err, EIO, "%s: no ')' after the command name", path) : -EIO;
        }
        *ret_fields = p + 1;
        return 0;
}

int tsync_proc_parent(pid_t pid, pid_t *ret, struct tsync_err *err)
{
        _cleanup_free_ char *line = NULL;
        const char *fields = NULL;
        int ppid = 0;
        int r = tsync_proc_stat_read(pid, &line, &fields, err);
        if (r < 0)
                return r;
        /* the state, then the parent */
        if (sscanf(fields, " %*c %d", &ppid) != 1 || ppid <= 0)
                return err ? tsync_error(err, EIO, "/proc/%d/stat: no parent", (int)pid) : -EIO;
        *ret = (pid_t)ppid;
        return 0;
}

int tsync_status_read_task(pid_t pid, pid_t tid, struct tsync_status_task *t)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r = tsync_read_file_at(AT_FDCWD, path, NULL, 0, TSYNC_STATUS_FILE_MAX, &text, &len, NULL, NULL);
        if (r < 0)
                return r == -ESRCH ? -ENOENT : r;
        *t = (struct tsync_status_task){
                .pid = pid, .tid = tid, .ns_pid = -1, .filters = -1, .expected = -1, .io_uring_fd = -1
        };
        bool seen_seccomp = false;
        for (char *lines, *line = strtok_r(text, "\n", &lines); line; line = strtok_r(NULL, "\n", &lines)) {
                char *colon = strchr(line, ':');
                if (!colon)
                        continue;
                *colon = '\0';
                const char *v = colon + 1;
                v += strspn(v, " \t");
                if (strcmp(line, "Name") == 0) {
                        (void)snprintf(t->comm, sizeof(t->comm), "%s", v);
                } else if (strcmp(line, "State") == 0) {
                        t->dead = *v == 'Z' || *v == 'X';
                        t->state = *v;
                } else if (strcmp(line, "Tgid") == 0) {
                        t->pid = (pid_t)strtol(v, NULL, 10);
                } else if (strcmp(line, "PPid") == 0) {
                        t->ppid = (pid_t)strtol(v, NULL, 10);
                } else if (strcmp(line, "TracerPid") == 0) {
                        t->tracer = (pid_t)strtol(v, NULL, 10);
                } else if (strcmp(line, "NStgid") == 0) {
                        t->ns_pid = last_number(v);
                } else if (strcmp(line, "Seccomp") == 0) {
                        t->seccomp = (int)strtol(v, NULL, 10);
                        seen_seccomp = true;
                } else if (strcmp(line, "Seccomp_filters") == 0) {
                        t->filters = (int)strtol(v, NULL, 10);
                } else if (strcmp(line, "NoNewPrivs") == 0) {
                        t->no_new_privs = (int)strtol(v, NULL, 10);
                } else {
                        for (size_t s = 0; s < TSYNC_CAPSET_COUNT; s++)
                                if (strcmp(line, tsync_capset(s)->status) == 0)
                                        t->caps[s] = strtoull(v, NULL, 16);
                }
        }
        /* A task reaped between open and read shows an empty file; one whose
         * pid the kernel has already detached while it exits shows its ids
         * as 0 (NStgid 0): gone too, not a task of pid 0. */
        if (!seen_seccomp || t->ns_pid == 0)
                return -ENOENT;
        return 0;
}

static int add_task(struct tsync_status *st, size_t *cap, const struct tsync_status_task *t)
{
        if (st->n == *cap) {
                size_t n = *cap ? *cap * 2 : 64;
                struct tsync_status_task *p = reallocarray(st->tasks, n, sizeof(*p));
                if (!p)
                        return -ENOMEM;
                st->tasks = p;
                *cap = n;
        }
        st->tasks[st->n++] = *t;
        return 0;
}

/* Whether exe is a runtime's own binary, as /proc shows it while a runtime
 * sets up a process in the container (facts/runtimes.h: exe_in_container;
 * runc 1.1 runs a sealed memfd copy of itself). */
static bool runtime_exe(const char *exe)
{
        if (strncmp(exe, "/memfd:", 7) == 0)
                return true;
        const char *base = strrchr(exe, '/');
        base = base ? base + 1 : exe;
        size_t n_rt;
        const struct tsync_runtime *rt = tsync_runtimes(&n_rt);
        for (size_t i = 0; i < n_rt; i++) {
                size_t n = strlen(rt[i].name);
                if (rt[i].exe_in_container && strncmp(base, rt[i].name, n) == 0 &&
                    (!base[n] || strcmp(base + n, " (deleted)") == 0))
                        return true;
        }
        return false;
}

/* The lowest fd of process pid that is an io_uring ring, else -1. Its fd
 * links name the kernel's objects, not files the container named. */
static int io_uring_fd(pid_t pid)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
        DIR *d = opendir(path);
        if (!d)
                return -1;
        int found = -1;
        struct dirent *e;
        while ((e = readdir(d))) {
                char *end, link[64], target[32];
                long fd = strtol(e->d_name, &end, 10);
                if (end == e->d_name || *end || fd < 0 || fd > INT_MAX || (found >= 0 && fd >= found))
                        continue;
                (void)snprintf(link, sizeof(link), "/proc/%d/fd/%ld", (int)pid, fd);
                ssize_t n = readlink(link, target, sizeof(target) - 1);
                if (n > 0) {
                        target[n] = '\0';
                        if (strcmp(target, "anon_inode:[io_uring]") == 0)
                                found = (int)fd;
                }
        }
        (void)closedir(d);
        return found;
}

/* Every thread of process pid, its main thread first. */
static int read_process(pid_t pid, struct tsync_status *st, size_t *cap)
{
        struct tsync_status_task t;
        int r = tsync_status_read_task(pid, pid, &t);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        char path[64], exe[256];
        (void)snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
        ssize_t n = readlink(path, exe, sizeof(exe) - 1);
        exe[n > 0 ? n : 0] = '\0';
        bool rt = runtime_exe(exe);
        t.runtime_exe = rt;
        t.io_uring_fd = io_uring_fd(pid);
        r = add_task(st, cap, &t);
        if (r < 0)
                return r;
        (void)snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
        DIR *d = opendir(path);
        if (!d)
                return 0; /* gone meanwhile */
        struct dirent *e;
        while (r == 0 && (e = readdir(d))) {
                char *end;
                long tid = strtol(e->d_name, &end, 10);
                if (end == e->d_name || *end || tid == pid)
                        continue;
                r = tsync_status_read_task(pid, (pid_t)tid, &t);
                t.runtime_exe = rt;
                if (r == -ENOENT) {
                        r = 0;
                        continue;
                }
                if (r == 0)
                        r = add_task(st, cap, &t);
        }
        (void)closedir(d);
        return r;
}

static int ns_of(pid_t pid, struct stat *ret)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
        return stat(path, ret) < 0 ? -errno : 0;
}

int tsync_status_task_cmp(const void *a, const void *b)
{
        const struct tsync_status_task *x = a, *y = b;
        if (x->pid != y->pid)
                return x->pid < y->pid ? -1 : 1;
        if ((x->tid == x->pid) != (y->tid == y->pid))
                return x->tid == x->pid ? -1 : 1;
        return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int read_namespace(const struct stat *ns, struct tsync_status *st)
{
        size_t cap = 0;
        DIR *d = opendir("/proc");
        if (!d)
                return -errno;
        int r = 0;
        struct dirent *e;
        while (r == 0 && (e = readdir(d))) {
                char *end;
                long pid = strtol(e->d_name, &end, 10);
                if (end == e->d_name || *end || pid <= 0 || pid > INT_MAX)
                        continue;
                struct stat s;
                if (ns_of((pid_t)pid, &s) < 0 || s.st_ino != ns->st_ino || s.st_dev != ns->st_dev)
                        continue;
                r = read_process((pid_t)pid, st, &cap);
        }
        (void)closedir(d);
        if (r == 0 && st->n > 1)
                qsort(st->tasks, st->n, sizeof(st->tasks[0]), tsync_status_task_cmp);
        return r;
}

int tsync_status_read(pid_t pid, struct tsync_status *ret, struct tsync_err *err)
{
        struct stat ns, self;
        int r = ns_of(pid, &ns);
        if (r < 0)
                return tsync_error(err, r == -ENOENT ? ESRCH : -r, "pid %d: %s", (int)pid,
                                   r == -ENOENT ? "no such process" : tsync_errtext(-r));
        if (ns_of(getpid(), &self) == 0 && self.st_ino == ns.st_ino && self.st_dev == ns.st_dev)
                return tsync_error(
                        err, EPERM,
                        "pid %d: runs in our own pid namespace (the host's?): a container's processes can be "
                        "told apart only in a pid namespace of its own",
                        (int)pid);
        struct tsync_status st = { 0 };
        r = read_namespace(&ns, &st);
        if (r < 0) {
                tsync_status_clear(&st);
                return tsync_error(err, -r, "reading /proc: %s", tsync_errtext(-r));
        }
        st.target_ns_pid = -1;
        st.programs = (struct tsync_status_programs){ .differ = -1, .drift = -1 };
        for (size_t i = 0; i < st.n; i++) {
                if (st.tasks[i].tid != st.tasks[i].pid)
                        continue;
                if (st.tasks[i].ns_pid == 1)
                        st.init_pid = st.tasks[i].pid;
                if (st.tasks[i].pid == pid)
                        st.target_ns_pid = st.tasks[i].ns_pid;
        }
        if (st.init_pid == 0) {
                tsync_status_clear(&st);
                return tsync_error(err, EPERM, "pid %d: its pid namespace has no PID 1 (it ended?)", (int)pid);
        }
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/exe", (int)st.init_pid);
        ssize_t n = readlink(path, st.init_exe, sizeof(st.init_exe) - 1);
        st.init_exe[n > 0 ? n : 0] = '\0';
        /* The file PID 1 runs, whatever path it has there. */
        struct stat exe;
        if (stat(path, &exe) == 0) {
                st.init_exe_known = true;
                st.init_dev = exe.st_dev;
                st.init_ino = exe.st_ino;
        }
        /* Until a caller that knows the config judges again (status): the
         * init installed beside the running program, where the front ends
         * find it (hook/frontend/paths.c frontend_find_init: the same two places). */
        char me[PATH_MAX], beside[2][PATH_MAX + 64];
        ssize_t m = readlink("/proc/self/exe", me, sizeof(me) - 1);
        char *slash = m > 0 ? memrchr(me, '/', (size_t)m) : NULL;
        if (slash) {
                *slash = '\0';
                (void)snprintf(beside[0], sizeof(beside[0]), "%s/seccomp-tsync-init", me);
                (void)snprintf(beside[1], sizeof(beside[1]), "%s/../libexec/oci-seccomp-tsync/seccomp-tsync-init", me);
                const char *paths[] = { beside[0], beside[1] };
                tsync_status_judge_init(&st, paths, 2);
        }
        *ret = st;
        return 0;
}

void tsync_status_judge_init(struct tsync_status *st, const char *const *paths, size_t n)
{
        st->init_ours = false;
        for (size_t i = 0; st->init_exe_known && i < n; i++) {
                struct stat s;
                if (paths[i] && paths[i][0] && stat(paths[i], &s) == 0 && S_ISREG(s.st_mode) &&
                    s.st_dev == st->init_dev && s.st_ino == st->init_ino)
                        st->init_ours = true;
        }
}
