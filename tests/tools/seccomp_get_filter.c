/* seccomp_get_filter PID OUTDIR: reads the seccomp filters the kernel holds
 * for a running process, so tests can compare what a runtime really installed
 * with what we compile.
 *
 * Writes OUTDIR/filter.N.bpf (raw struct sock_filter arrays as the kernel
 * keeps them; N=0 is the most recently installed filter, the first one the
 * kernel runs, N=count-1 the oldest) and prints the number of filters on stdout. A process without
 * seccomp has 0 filters. Needs CAP_SYS_ADMIN and CAP_SYS_PTRACE, must not run
 * under seccomp itself, and needs a kernel with CONFIG_CHECKPOINT_RESTORE.
 *
 * Exit: 0 on success, 1 on failure, 2 on bad usage. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/cleanup.h"

#define PROG "seccomp_get_filter"

/* The kernel caps one filter at BPF_MAXINSNS and a process's filters at
 * MAX_INSNS_PER_PATH (32768 instructions counted with a 4-instruction
 * penalty each), so more filters than this cannot exist. */
#define MAX_FILTERS 8192

static long get_filter(pid_t pid, unsigned long index, struct sock_filter *buf)
{
        return ptrace(PTRACE_SECCOMP_GET_FILTER, pid, (void *)index, buf);
}

/* Reads the "Seccomp:" mode of pid: 0 disabled, 1 strict, 2 filter; -errno on failure. */
static int seccomp_mode(pid_t pid)
{
        char path[64], line[256];
        int mode = -ENOENT;

        snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
        FILE *f = fopen(path, "re");
        if (!f)
                return -errno;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "Seccomp: %d", &mode) == 1)
                        break;
        fclose(f);
        return mode;
}

static int write_all(int fd, const void *buf, size_t len)
{
        const char *p = buf;

        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

static int save_filter(const char *outdir, unsigned long index, const struct sock_filter *prog, size_t len)
{
        char path[PATH_MAX];

        if (snprintf(path, sizeof(path), "%s/filter.%lu.bpf", outdir, index) >= (int)sizeof(path)) {
                fprintf(stderr, PROG ": %s: path too long\n", outdir);
                return -ENAMETOOLONG;
        }
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) {
                int r = -errno;
                fprintf(stderr, PROG ": %s: %s\n", path, strerror(-r));
                return r;
        }
        int r = write_all(fd, prog, len * sizeof(*prog));
        if (r == 0 && close(TAKE_FD(fd)) < 0)
                r = -errno;
        if (r < 0)
                fprintf(stderr, PROG ": %s: write: %s\n", path, strerror(-r));
        return r;
}

/* Removes filter.N.bpf files left over from an earlier run with more filters,
 * so OUTDIR never mixes two processes' filters. */
static void remove_stale(const char *outdir, unsigned long from)
{
        char path[PATH_MAX];

        for (unsigned long i = from; i < MAX_FILTERS; i++) {
                if (snprintf(path, sizeof(path), "%s/filter.%lu.bpf", outdir, i) >= (int)sizeof(path))
                        return;
                if (unlink(path) < 0)
                        return;
        }
}

/* Counts the filters of a ptrace-stopped pid. Returns the count or -errno. */
static long count_filters(pid_t pid)
{
        unsigned long index;

        for (index = 0; index < MAX_FILTERS; index++) {
                if (get_filter(pid, index, NULL) >= 0)
                        continue;
                if (errno == ENOENT)
                        break; /* past the last filter */
                if (errno == EINVAL && index == 0) {
                        /* EINVAL at index 0 means "not in filter mode"; tell
                         * "no seccomp" (0 filters) from strict mode. */
                        int mode = seccomp_mode(pid);
                        if (mode == 0)
                                break;
                        fprintf(stderr, PROG ": %d: not in seccomp filter mode (Seccomp: %d)\n", (int)pid, mode);
                        return -EINVAL;
                }
                int r = -errno;
                fprintf(stderr, PROG ": %d: PTRACE_SECCOMP_GET_FILTER %lu: %s%s\n", (int)pid, index, strerror(-r),
                        r == -EACCES ? " (needs CAP_SYS_ADMIN and no seccomp on the caller)"
                        : r == -EIO  ? " (kernel without CONFIG_CHECKPOINT_RESTORE?)"
                                     : "");
                return r;
        }
        return (long)index;
}

/* Dumps every filter of a ptrace-stopped pid. Returns the count or -errno.
 *
 * The kernel's index 0 is the OLDEST filter (get_nth_filter walks back from
 * the newest count - index - 1 steps), while our files number from the
 * newest, the one the kernel runs first: filter.N.bpf is index count-1-N. */
/* get_filter, saying on stderr why it failed: its length, or -errno. */
static long get_filter_or_say(pid_t pid, unsigned long index, struct sock_filter *prog)
{
        long n = get_filter(pid, index, prog);
        if (n < 0) {
                int r = -errno;
                fprintf(stderr, PROG ": %d: PTRACE_SECCOMP_GET_FILTER %lu: %s\n", (int)pid, index, strerror(-r));
                return r;
        }
        return n;
}

static long dump_filters(pid_t pid, const char *outdir)
{
        long count = count_filters(pid);
        if (count < 0)
                return count;

        for (unsigned long index = 0; index < (unsigned long)count; index++) {
                long len = get_filter_or_say(pid, index, NULL);
                if (len < 0)
                        return len;
                if (len == 0 || len > BPF_MAXINSNS) {
                        fprintf(stderr, PROG ": %d: filter %lu has %ld instructions\n", (int)pid, index, len);
                        return -EPROTO;
                }

                _cleanup_free_ struct sock_filter *prog = calloc((size_t)len, sizeof(*prog));
                if (!prog) {
                        fprintf(stderr, PROG ": out of memory\n");
                        return -ENOMEM;
                }
                long got = get_filter_or_say(pid, index, prog);
                if (got < 0)
                        return got;
                /* The tracee is stopped and filters are immutable, so the length cannot change. */
                if (got != len) {
                        fprintf(stderr, PROG ": %d: filter %lu changed length (%ld, then %ld)\n", (int)pid, index, len,
                                got);
                        return -EPROTO;
                }
                int r = save_filter(outdir, (unsigned long)count - 1 - index, prog, (size_t)len);
                if (r < 0)
                        return r;
        }
        remove_stale(outdir, (unsigned long)count);
        return count;
}

/* Waits for the stop PTRACE_INTERRUPT asked for. A signal arriving first
 * shows up as a signal-delivery stop instead: that is a ptrace stop too, and
 * *ret_sig keeps the signal so detaching can deliver it. */
static int wait_for_stop(pid_t pid, int *ret_sig)
{
        int status;

        for (;;) {
                if (waitpid(pid, &status, __WALL) < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (WIFEXITED(status) || WIFSIGNALED(status))
                        return -ESRCH;
                if (!WIFSTOPPED(status))
                        continue;
                int event = status >> 16;
                int sig = WSTOPSIG(status);
                /* PTRACE_EVENT_STOP: our interrupt, or a group stop; both carry no signal to pass on. */
                *ret_sig = event == PTRACE_EVENT_STOP ? 0 : sig;
                return 0;
        }
}

static int parse_pid(const char *s, pid_t *ret)
{
        char *end;

        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || end == s || *end || v <= 0 || v > INT_MAX)
                return -EINVAL;
        *ret = (pid_t)v;
        return 0;
}

int main(int argc, char **argv)
{
        pid_t pid;
        struct stat st;

        if (argc != 3 || parse_pid(argv[1], &pid) < 0) {
                fprintf(stderr, "usage: " PROG " PID OUTDIR\n");
                return 2;
        }
        const char *outdir = argv[2];
        if (stat(outdir, &st) < 0 || !S_ISDIR(st.st_mode)) {
                fprintf(stderr, PROG ": %s: not a directory\n", outdir);
                return 1;
        }

        /* PTRACE_SEIZE + INTERRUPT stops the tracee without sending it a
         * SIGSTOP that could leak into its job control. */
        if (ptrace(PTRACE_SEIZE, pid, NULL, NULL) < 0) {
                fprintf(stderr, PROG ": %d: PTRACE_SEIZE: %s\n", (int)pid, strerror(errno));
                return 1;
        }
        if (ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) < 0) {
                fprintf(stderr, PROG ": %d: PTRACE_INTERRUPT: %s\n", (int)pid, strerror(errno));
                (void)ptrace(PTRACE_DETACH, pid, NULL, NULL);
                return 1;
        }
        int sig = 0;
        int r = wait_for_stop(pid, &sig);
        if (r < 0) {
                fprintf(stderr, PROG ": %d: waiting for the ptrace stop: %s\n", (int)pid, strerror(-r));
                (void)ptrace(PTRACE_DETACH, pid, NULL, NULL);
                return 1;
        }

        long count = dump_filters(pid, outdir);

        if (ptrace(PTRACE_DETACH, pid, NULL, (void *)(long)sig) < 0) {
                fprintf(stderr, PROG ": %d: PTRACE_DETACH: %s\n", (int)pid, strerror(errno));
                return 1;
        }
        if (count < 0)
                return 1;
        printf("%ld\n", count);
        return fflush(stdout) == 0 ? 0 : 1;
}
