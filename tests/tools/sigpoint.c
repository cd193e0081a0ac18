/* Signals a container's init at an exact point of its set-up, for test_escape.sh.
 *   sigpoint PID COMM N SIGNAL -- CMD [ARG...]
 * PID is a created, not yet started container process (the runtime's init,
 * waiting to exec). sigpoint attaches to every thread of it with ptrace, runs
 * CMD (e.g. `runc start ID`), and when the process has exec'd a program whose
 * comm is COMM, counts the system calls its main thread enters (but futex:
 * how often the main thread waits for its signal thread depends on timing,
 * and the points must be the same calls in every run). On entering
 * the Nth one it sends SIGNAL to the process and lets go of it; for SIGSTOP it
 * then waits until the process is stopped, prints the Seccomp_filters of each
 * of its threads as they are at that moment, and sends SIGCONT.
 * Prints one line: "point=N syscall=NR signal=SIG [stopped_filters=A,B]", or
 * "point=none entered=K syscalls=NR,NR,..." when the process went on past its
 * exec and exited (or was let go at N = 0) before its Nth call: the list is
 * every call it entered, which is how a test learns the points there are.
 * Exits 0 if CMD exited 0; 1 on a failure of its own; 2 on bad usage. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG         "sigpoint"
#define MAX_RECORDED 4096

struct run {
        pid_t pid;        /* the traced process (its main thread after the exec) */
        const char *comm; /* the program we wait for */
        long point;       /* the system call to stop at, 1-based */
        int sig;
        bool counting; /* past the exec of comm */
        long entered;
        long recorded[MAX_RECORDED];
};

static int read_line(const char *path, char *buf, size_t size)
{
        FILE *f = fopen(path, "re");
        if (!f)
                return -1;
        if (!fgets(buf, (int)size, f))
                buf[0] = '\0';
        fclose(f);
        buf[strcspn(buf, "\n")] = '\0';
        return 0;
}

static int seize_all(pid_t pid)
{
        char path[64];
        int n = 0;
        long opts = PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE | PTRACE_O_TRACESYSGOOD;

        (void)snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
        DIR *d = opendir(path);
        if (!d) {
                fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
                return -1;
        }
        for (struct dirent *e; (e = readdir(d));) {
                pid_t tid = atoi(e->d_name);
                if (tid <= 0)
                        continue;
                /* A thread may be gone by now; the main one must not be. */
                if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)opts) < 0) {
                        if (tid == pid) {
                                fprintf(stderr, PROG ": seize %d: %s\n", (int)tid, strerror(errno));
                                closedir(d);
                                return -1;
                        }
                        continue;
                }
                n++;
        }
        closedir(d);
        return n;
}

/* Seccomp_filters of every thread of pid, comma-separated. */
static void thread_filters(pid_t pid, char *out, size_t size)
{
        char path[320], line[256];
        out[0] = '\0';
        (void)snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
        DIR *d = opendir(path);
        if (!d)
                return;
        for (struct dirent *e; (e = readdir(d));) {
                if (e->d_name[0] == '.')
                        continue;
                (void)snprintf(path, sizeof(path), "/proc/%d/task/%s/status", (int)pid, e->d_name);
                FILE *f = fopen(path, "re");
                if (!f)
                        continue;
                while (fgets(line, sizeof(line), f)) {
                        int n;
                        if (sscanf(line, "Seccomp_filters: %d", &n) == 1) {
                                size_t used = strlen(out);
                                (void)snprintf(out + used, size - used, "%s%d", used ? "," : "", n);
                                break;
                        }
                }
                fclose(f);
        }
        closedir(d);
}

static char proc_state(pid_t pid)
{
        char path[64], buf[512];
        (void)snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        if (read_line(path, buf, sizeof(buf)) < 0)
                return '?';
        char *p = strrchr(buf, ')');
        return p && p[1] == ' ' ? p[2] : '?';
}

static void sleep_ms(long ms)
{
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* At the point: signal, let go, and for SIGSTOP look at the stopped process. */
static void strike(struct run *r, long nr)
{
        char filters[256] = "";
        (void)kill(r->pid, r->sig);
        (void)ptrace(PTRACE_DETACH, r->pid, NULL, NULL);
        if (r->sig == SIGSTOP) {
                for (int i = 0; i < 2000 && proc_state(r->pid) != 'T'; i++)
                        sleep_ms(1);
                thread_filters(r->pid, filters, sizeof(filters));
                printf("point=%ld syscall=%ld signal=%d state=%c stopped_filters=%s\n", r->point, nr, r->sig,
                       proc_state(r->pid), filters);
                sleep_ms(100);
                (void)kill(r->pid, SIGCONT);
        } else {
                printf("point=%ld syscall=%ld signal=%d\n", r->point, nr, r->sig);
        }
        fflush(stdout);
}

/* One ptrace stop of tid. Returns 1 once the process is let go. */
static int on_stop(struct run *r, pid_t tid, int st)
{
        int sig = WSTOPSIG(st), event = st >> 16;
        char path[64], comm[64];

        if (event == PTRACE_EVENT_EXEC) {
                /* After an exec tid is the process's main thread again. */
                (void)snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
                if (read_line(path, comm, sizeof(comm)) == 0 && strcmp(comm, r->comm) == 0) {
                        r->counting = true;
                        r->pid = tid;
                        /* No more threads to follow: the point counts the main thread's calls. */
                        (void)ptrace(PTRACE_SETOPTIONS, tid, NULL, (void *)(long)PTRACE_O_TRACESYSGOOD);
                }
                return ptrace(r->counting ? PTRACE_SYSCALL : PTRACE_CONT, tid, NULL, NULL) < 0 ? 1 : 0;
        }
        if (sig == (SIGTRAP | 0x80)) {
                struct __ptrace_syscall_info info;
                memset(&info, 0, sizeof(info));
                if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof(info), &info) > 0 &&
                    info.op == PTRACE_SYSCALL_INFO_ENTRY && tid == r->pid && info.entry.nr != SYS_futex) {
                        if (r->entered < MAX_RECORDED)
                                r->recorded[r->entered] = (long)info.entry.nr;
                        if (++r->entered == r->point) {
                                strike(r, (long)info.entry.nr);
                                return 1;
                        }
                }
                (void)ptrace(PTRACE_SYSCALL, tid, NULL, NULL);
                return 0;
        }
        if (event) {
                /* clone events, group-stops of PTRACE_SEIZE: nothing to deliver. */
                (void)ptrace(r->counting && tid == r->pid ? PTRACE_SYSCALL : PTRACE_CONT, tid, NULL, NULL);
                return 0;
        }
        /* A signal for the tracee: pass it on. */
        (void)ptrace(r->counting && tid == r->pid ? PTRACE_SYSCALL : PTRACE_CONT, tid, NULL, (void *)(long)sig);
        return 0;
}

int main(int argc, char **argv)
{
        static struct run r;

        if (argc < 7 || strcmp(argv[5], "--") != 0) {
                fprintf(stderr, "usage: " PROG " PID COMM N SIGNAL -- CMD [ARG...]\n");
                return 2;
        }
        r.pid = atoi(argv[1]);
        r.comm = argv[2];
        r.point = atol(argv[3]);
        r.sig = atoi(argv[4]);
        if (r.pid <= 0 || r.point < 0 || r.sig < 0 || r.sig >= NSIG) {
                fprintf(stderr, PROG ": bad PID, N or SIGNAL\n");
                return 2;
        }
        /* Never hang a test: the container is killed by the test's cleanup. */
        alarm(60);
        if (seize_all(r.pid) < 0)
                return 1;
        pid_t cmd = fork();
        if (cmd < 0) {
                fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
                return 1;
        }
        if (cmd == 0) {
                execvp(argv[6], argv + 6);
                fprintf(stderr, PROG ": %s: %s\n", argv[6], strerror(errno));
                _exit(127);
        }
        int cmd_status = -1, st;
        bool released = false;
        for (;;) {
                pid_t w = waitpid(-1, &st, __WALL);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        break; /* ECHILD: CMD reaped, every tracee gone or let go */
                }
                if (w == cmd) {
                        cmd_status = st;
                        continue;
                }
                if (WIFSTOPPED(st)) {
                        if (released) {
                                (void)ptrace(PTRACE_DETACH, w, NULL, NULL);
                                continue;
                        }
                        if (on_stop(&r, w, st))
                                released = true;
                        /* N = 0: let go right at the exec. */
                        if (!released && r.counting && r.point == 0) {
                                (void)ptrace(PTRACE_DETACH, r.pid, NULL, NULL);
                                released = true;
                        }
                }
        }
        if (!released || r.point == 0) {
                printf("point=none entered=%ld syscalls=", r.entered);
                for (long i = 0; i < r.entered && i < MAX_RECORDED; i++)
                        printf("%s%ld", i ? "," : "", r.recorded[i]);
                printf("\n");
        }
        if (!r.counting)
                fprintf(stderr, PROG ": the process never exec'd '%s'\n", r.comm);
        return WIFEXITED(cmd_status) && WEXITSTATUS(cmd_status) == 0 && r.counting ? 0 : 1;
}
