/* What a workload can reach of PID 1 (the container's init): for PID 1 and
 * each of its threads, whether /proc/1/task/TID/mem opens for writing and a
 * write through it goes in (the bytes written are the ones read there, so
 * nothing changes), and whether PTRACE_ATTACH and PTRACE_SEIZE succeed (an
 * attached thread is detached and PID 1 continued at once; a seized one is let
 * go when this program exits). Then the workload's own state, to compare with
 * a plain run: its dumpability, the owner of its /proc files, whether its own
 * status is readable. One line per fact:
 *   task tid=1 comm=seccomp-tsync-i mem_open=EACCES mem_write=- attach=EPERM seize=EPERM
 *   self uid=1000 dumpable=1 procowner=1000 status=ok
 * Static (it runs in a busybox root filesystem); exits 0 unless it cannot run. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *err_name(int e)
{
        const char *n = strerrorname_np(e);
        return n ? n : "E?";
}

static void comm_of(int tid, char *buf, size_t size)
{
        char path[64];
        (void)snprintf(path, sizeof(path), "/proc/1/task/%d/comm", tid);
        (void)snprintf(buf, size, "?");
        FILE *f = fopen(path, "re");
        if (!f)
                return;
        if (fgets(buf, (int)size, f))
                buf[strcspn(buf, "\n")] = '\0';
        fclose(f);
}

/* The start of TID's first mapping, from its maps (readable when mem opened). */
static unsigned long first_mapping(int tid)
{
        char path[64];
        unsigned long start = 0;
        (void)snprintf(path, sizeof(path), "/proc/1/task/%d/maps", tid);
        FILE *f = fopen(path, "re");
        if (!f)
                return 0;
        if (fscanf(f, "%lx-", &start) != 1)
                start = 0;
        fclose(f);
        return start;
}

static void try_mem(int tid, char *open_r, char *write_r, size_t size)
{
        char path[64], bytes[8];
        (void)snprintf(path, sizeof(path), "/proc/1/task/%d/mem", tid);
        (void)snprintf(write_r, size, "-");
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
                (void)snprintf(open_r, size, "%s", err_name(errno));
                return;
        }
        (void)snprintf(open_r, size, "ok");
        unsigned long at = first_mapping(tid);
        if (!at) {
                (void)snprintf(write_r, size, "nomaps");
        } else if (pread(fd, bytes, sizeof(bytes), (off_t)at) != (ssize_t)sizeof(bytes)) {
                (void)snprintf(write_r, size, "read-%s", err_name(errno));
        } else if (pwrite(fd, bytes, sizeof(bytes), (off_t)at) != (ssize_t)sizeof(bytes)) {
                (void)snprintf(write_r, size, "%s", err_name(errno));
        } else {
                (void)snprintf(write_r, size, "ok");
        }
        close(fd);
}

static void try_attach(int tid, char *r, size_t size)
{
        if (ptrace(PTRACE_ATTACH, tid, NULL, NULL) < 0) {
                (void)snprintf(r, size, "%s", err_name(errno));
                return;
        }
        (void)snprintf(r, size, "ok");
        int st;
        (void)waitpid(tid, &st, __WALL);
        (void)ptrace(PTRACE_DETACH, tid, NULL, NULL);
        /* The SIGSTOP of the attach stopped the whole init: let it go on. */
        (void)kill(1, SIGCONT);
}

static void try_seize(int tid, char *r, size_t size)
{
        if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0)
                (void)snprintf(r, size, "%s", err_name(errno));
        else
                (void)snprintf(r, size, "ok");
}

int main(void)
{
        DIR *d = opendir("/proc/1/task");
        if (!d) {
                perror("privesc_probe: /proc/1/task");
                return 1;
        }
        int tids[64], n = 0;
        for (struct dirent *e; (e = readdir(d)) && n < 64;)
                if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
                        tids[n++] = atoi(e->d_name);
        closedir(d);
        for (int i = 0; i < n; i++) {
                char comm[32], mo[32], mw[32], at[32], sz[32];
                comm_of(tids[i], comm, sizeof(comm));
                try_mem(tids[i], mo, mw, sizeof(mo));
                try_attach(tids[i], at, sizeof(at));
                try_seize(tids[i], sz, sizeof(sz));
                printf("task tid=%d comm=%s mem_open=%s mem_write=%s attach=%s seize=%s\n", tids[i], comm, mo, mw, at,
                       sz);
        }
        struct stat st;
        /* Not /proc/self itself, whose owner is always the euid: its files are root's when not dumpable. */
        int own = stat("/proc/self/environ", &st) == 0 ? (int)st.st_uid : -1;
        int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
        char buf[64];
        bool readable = fd >= 0 && read(fd, buf, sizeof(buf)) > 0;
        if (fd >= 0)
                close(fd);
        printf("self uid=%d dumpable=%d procowner=%d status=%s\n", (int)getuid(), prctl(PR_GET_DUMPABLE, 0, 0, 0, 0),
               own, readable ? "ok" : "unreadable");
        fflush(stdout);
        return 0;
}
