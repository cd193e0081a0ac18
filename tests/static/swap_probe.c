/* A hostile workload for test_hostile.sh's exec path (issue 35): it tries to
 * put a program of its own where the runtime will execute something for a
 * process exec'd into its container. It knows none of our file names: it
 * looks for regular files that are mount points (what a hook or a runtime
 * bind-mounts into a container to run there) in /proc/self/mountinfo.
 *   swap_probe [-w] rename   for each such file F in directory D: rename D
 *                      away and make D anew holding a copy of this program
 *                      as F; else rename F, unlink it, open it for writing,
 *                      create a file beside it
 *   swap_probe [-w] userns   unshare a user and a mount namespace of its own
 *                      (it is then root there, with every capability), and
 *                      bind-mount this program over each F (the in-place workload as PID 1: the
 *                      runtime joins PID 1's mount namespace)
 * One line per attempt, "door=swap" first; an errno is errno:N, success ok;
 * then "door=swap done". -w: after that, sleep until killed.
 * Run under any other name than swap_probe (as the copy it put in place), it
 * says "door=swap evil" with its capabilities and writes the same line to
 * /swap-evil-ran, then exits 0: the test looks for either. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe.h"

#define MAX_FILES 16

static const char *res(long rc, int e, char *buf, size_t size)
{
        if (rc >= 0)
                return "ok";
        (void)snprintf(buf, size, "errno:%d", e);
        return buf;
}

/* The value of a /proc/self/status line ("CapEff:"), "?" when absent. */
static void status_field(const char *key, char *out, size_t size)
{
        char buf[8192];
        int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
        if (fd >= 0)
                (void)close(fd);
        (void)snprintf(out, size, "?");
        if (n <= 0)
                return;
        buf[n] = '\0';
        char *p = strstr(buf, key);
        if (!p)
                return;
        p += strlen(key);
        p += strspn(p, " \t");
        (void)snprintf(out, size, "%.*s", (int)strcspn(p, "\n"), p);
}

static int evil(void)
{
        char eff[64], nnp[16], filters[16];
        status_field("CapEff:", eff, sizeof(eff));
        status_field("NoNewPrivs:", nnp, sizeof(nnp));
        status_field("Seccomp_filters:", filters, sizeof(filters));
        char line[256];
        int n = snprintf(line, sizeof(line), "door=swap evil uid=%d capeff=%s nnp=%s filters=%s\n", (int)getuid(), eff,
                         nnp, filters);
        (void)write(STDOUT_FILENO, line, (size_t)n);
        int fd = open("/swap-evil-ran", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0) {
                (void)write(fd, line, (size_t)n);
                (void)close(fd);
        }
        return 0;
}

/* Mount points that are regular files, from mountinfo's fifth field (octal
 * escapes as the kernel writes them). */
static size_t file_mounts(char files[][512])
{
        FILE *f = fopen("/proc/self/mountinfo", "re");
        char line[4096];
        size_t n = 0;
        while (f && n < MAX_FILES && fgets(line, sizeof(line), f)) {
                char point[512];
                if (sscanf(line, "%*s %*s %*s %*s %511s", point) != 1)
                        continue;
                char *w = point;
                for (const char *r = point; *r; r++) {
                        unsigned v;
                        if (r[0] == '\\' && sscanf(r + 1, "%3o", &v) == 1) {
                                *w++ = (char)v;
                                r += 3;
                        } else {
                                *w++ = *r;
                        }
                }
                *w = '\0';
                struct stat st;
                if (lstat(point, &st) == 0 && S_ISREG(st.st_mode) && strcmp(point, "/") != 0)
                        (void)snprintf(files[n++], 512, "%s", point);
        }
        if (f)
                (void)fclose(f);
        return n;
}

static int copy_self(const char *to)
{
        int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
        char buf[65536];
        ssize_t n = 0;
        while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
                if (write(out, buf, (size_t)n) != n) {
                        n = -1;
                        break;
                }
        int e = errno;
        if (in >= 0)
                (void)close(in);
        if (out >= 0)
                (void)close(out);
        errno = e;
        return in < 0 || out < 0 || n < 0 ? -1 : 0;
}

static void split(const char *path, char *dir, char *base)
{
        const char *slash = strrchr(path, '/');
        (void)snprintf(dir, 512, "%.*s", slash == path ? 1 : (int)(slash - path), path);
        (void)snprintf(base, 256, "%s", slash + 1);
}

static void try_rename(const char *file)
{
        char dir[512], base[256], moved[600], put[800], beside[800], e1[32], e2[32], e3[32], e4[32], e5[32];
        split(file, dir, base);
        (void)snprintf(moved, sizeof(moved), "%.500s.moved-away", dir);
        long r = rename(dir, moved);
        say("door=swap file=%s rename_dir=%s", file, res(r, errno, e1, sizeof(e1)));
        if (r == 0) {
                (void)snprintf(put, sizeof(put), "%.500s/%.250s", dir, base);
                long m = mkdir(dir, 0755);
                int me = errno;
                long c = m == 0 ? copy_self(put) : -1;
                say("door=swap file=%s mkdir=%s put=%s", file, res(m, me, e1, sizeof(e1)),
                    res(c, errno, e2, sizeof(e2)));
                return;
        }
        char away[600];
        (void)snprintf(away, sizeof(away), "%.500s.moved-away", file);
        long rf = rename(file, away);
        int rfe = errno;
        long ul = unlink(file);
        int ule = errno;
        int fd = open(file, O_WRONLY | O_CLOEXEC);
        int fde = errno;
        if (fd >= 0)
                (void)close(fd);
        (void)snprintf(beside, sizeof(beside), "%.500s/swap-beside", dir);
        long cb = copy_self(beside);
        int cbe = errno;
        char self[512] = { 0 }, e6[32];
        (void)readlink("/proc/self/exe", self, sizeof(self) - 1);
        long b = mount(self, file, NULL, MS_BIND, NULL);
        say("door=swap file=%s rename=%s unlink=%s write=%s create_beside=%s bind=%s", file,
            res(rf, rfe, e2, sizeof(e2)), res(ul, ule, e3, sizeof(e3)), res(fd, fde, e4, sizeof(e4)),
            res(cb, cbe, e5, sizeof(e5)), res(b, errno, e6, sizeof(e6)));
}

static long write_file(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        ssize_t n = write(fd, text, strlen(text));
        int e = errno;
        (void)close(fd);
        errno = e;
        return n < 0 ? -1 : 0;
}

static void try_userns(char files[][512], size_t n)
{
        char e1[32], e2[32];
        uid_t uid = getuid();
        gid_t gid = getgid();
        long r = unshare(CLONE_NEWUSER | CLONE_NEWNS);
        say("door=swap unshare=%s", res(r, errno, e1, sizeof(e1)));
        if (r < 0)
                return;
        /* Root of the new namespace is its creator outside: then the files
         * it makes there have an owner. */
        char map[64];
        (void)snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
        long m1 = write_file("/proc/self/setgroups", "deny\n");
        long m2 = m1 < 0 ? -1 : write_file("/proc/self/uid_map", map);
        (void)snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)gid);
        long m3 = m2 < 0 ? -1 : write_file("/proc/self/gid_map", map);
        say("door=swap maps=%s", res(m3, errno, e1, sizeof(e1)));
        /* A bind mount makes no file, so it needs no mapping of its owner. */
        char self[512] = { 0 };
        (void)readlink("/proc/self/exe", self, sizeof(self) - 1);
        for (size_t i = 0; i < n; i++) {
                long b = mount(self, files[i], NULL, MS_BIND, NULL);
                say("door=swap file=%s overmount=%s", files[i], res(b, errno, e2, sizeof(e2)));
        }
}

int main(int argc, char **argv)
{
        const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
        if (strcmp(name, "swap_probe") != 0)
                return evil();
        bool wait = argc > 1 && strcmp(argv[1], "-w") == 0;
        argv += wait ? 2 : 1;
        argc -= wait ? 2 : 1;
        if (argc != 1 || (strcmp(argv[0], "rename") != 0 && strcmp(argv[0], "userns") != 0)) {
                fprintf(stderr, "usage: swap_probe [-w] rename|userns\n");
                return 2;
        }
        char files[MAX_FILES][512];
        size_t n = file_mounts(files);
        say("door=swap found=%zu", n);
        if (strcmp(argv[0], "rename") == 0)
                for (size_t i = 0; i < n; i++)
                        try_rename(files[i]);
        else
                try_userns(files, n);
        say("door=swap done");
        while (wait)
                (void)pause();
        return 0;
}
