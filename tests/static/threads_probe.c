/* A multi-threaded workload for the init's tests: starts N threads, waits
 * until all of them exist, then each thread (the main one included) prints
 * one line with its tid, its Seccomp, Seccomp_filters, NoNewPrivs and Cap*
 * lines from /proc/thread-self/status, and the result of a system call the
 * test chooses:
 *   threads_probe [-n N] [mkdir PATH | getcwd | getppid | none]
 * (getppid: rc is what it returns, for a notify agent's answer)
 * Line: "tid=12 main=0 Uid=0,0,0,0 Seccomp=2 Seccomp_filters=1 NoNewPrivs=0 CapInh=... call=mkdir rc=-1 errno=71"
 * Static (it runs in any root filesystem); exits 0 unless it cannot run. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_THREADS 256

static const char *fields[] = { "Uid",    "Seccomp", "Seccomp_filters", "NoNewPrivs", "CapInh",
                                "CapPrm", "CapEff",  "CapBnd",          "CapAmb" };
static const char *call = "none", *call_arg;
static pthread_barrier_t barrier;

static void status_fields(char *out, size_t size)
{
        char buf[8192];
        size_t len = 0;
        ssize_t n;
        int fd = open("/proc/thread-self/status", O_RDONLY | O_CLOEXEC);

        out[0] = '\0';
        if (fd < 0) {
                (void)snprintf(out, size, " status=%s", strerror(errno));
                return;
        }
        while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
                len += (size_t)n;
        (void)close(fd);
        buf[len] = '\0';
        for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
                size_t flen = strlen(fields[f]);
                const char *value = "missing";
                size_t vlen = strlen(value);
                for (char *line = buf; line && *line;) {
                        char *nl = strchr(line, '\n');
                        if (strncmp(line, fields[f], flen) == 0 && line[flen] == ':') {
                                value = line + flen + 1;
                                value += strspn(value, " \t");
                                vlen = nl ? (size_t)(nl - value) : strlen(value);
                                break;
                        }
                        line = nl ? nl + 1 : NULL;
                }
                size_t used = strlen(out);
                (void)snprintf(out + used, size - used, " %s=%.*s", fields[f], (int)vlen, value);
                /* "Uid:\t0\t0\t0\t0" becomes Uid=0,0,0,0: one word per field. */
                for (char *c = out + used + 1; *c; c++)
                        if (*c == '\t' || *c == ' ')
                                *c = ',';
        }
}

static void probe(int is_main)
{
        char line[1024], st[768], cwd[256];
        long rc = 0;
        int e = 0;

        status_fields(st, sizeof(st));
        errno = 0;
        if (strcmp(call, "mkdir") == 0) {
                rc = mkdir(call_arg, 0700);
        } else if (strcmp(call, "getcwd") == 0) {
                rc = getcwd(cwd, sizeof(cwd)) ? 0 : -1;
        } else if (strcmp(call, "getppid") == 0) {
                rc = (int)getppid();
        }
        e = rc < 0 ? errno : 0;
        int n = snprintf(line, sizeof(line), "tid=%d main=%d%s call=%s rc=%ld errno=%d\n", (int)gettid(), is_main, st,
                         call, rc, e);
        /* One write per line: lines of different threads never mix. */
        if (n > 0)
                (void)write(STDOUT_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static void *thread(void *arg)
{
        (void)arg;
        (void)pthread_barrier_wait(&barrier);
        probe(0);
        return NULL;
}

int main(int argc, char **argv)
{
        pthread_t threads[MAX_THREADS];
        int n = 4, i = 1;

        if (argc > 2 && strcmp(argv[1], "-n") == 0) {
                n = atoi(argv[2]);
                i = 3;
        }
        if (n < 0 || n > MAX_THREADS) {
                fprintf(stderr, "threads_probe: -n: 0..%d\n", MAX_THREADS);
                return 2;
        }
        if (i < argc)
                call = argv[i++];
        if (strcmp(call, "mkdir") == 0) {
                if (i >= argc) {
                        fprintf(stderr, "threads_probe: mkdir needs a path\n");
                        return 2;
                }
                call_arg = argv[i];
        } else if (strcmp(call, "getcwd") != 0 && strcmp(call, "getppid") != 0 && strcmp(call, "none") != 0) {
                fprintf(stderr, "threads_probe: unknown call '%s' (mkdir PATH, getcwd, getppid, none)\n", call);
                return 2;
        }
        if (pthread_barrier_init(&barrier, NULL, (unsigned)n + 1) != 0)
                return 1;
        for (int t = 0; t < n; t++) {
                int r = pthread_create(&threads[t], NULL, thread, NULL);
                if (r != 0) {
                        fprintf(stderr, "threads_probe: pthread_create: %s\n", strerror(r));
                        return 1;
                }
        }
        /* All threads exist at once before any of them looks at itself. */
        (void)pthread_barrier_wait(&barrier);
        probe(1);
        for (int t = 0; t < n; t++)
                (void)pthread_join(threads[t], NULL);
        return 0;
}
