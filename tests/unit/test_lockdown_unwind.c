/* lockdown's unwind of an injected call that never returns
 * (hook/lockdown/lockdown_inject.c): a seccomp() sent to a listener no one
 * serves is interrupted at its deadline or when the run is cancelled, and
 * the task is put back exactly as it was (registers, signal mask, the stack
 * below it), carries no new filter, and runs on as before once let go. The
 * task is tests/static/lockdown_hostile's `stall`, run natively (exec'd: a
 * valgrind'ed parent traces a real process). Needs ptrace of a child.
 * On any machine but x86_64 lockdown refuses by name instead, before it
 * reads or touches anything: that refusal is what is tested there. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lockdown/lockdown.h"
#include "tap.h"

#if defined(__x86_64__)

#define STACK_BYTES 8192

static const struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, 0x7fff0000u) };

struct stalled {
        pid_t pid;
        int in, out; /* its stdin (ours to write), its stdout (ours to read) */
};

/* Reads what fits in buf until a newline or a byte count, within timeout_ms. */
static ssize_t read_within(int fd, char *buf, size_t size, bool line, int timeout_ms)
{
        size_t n = 0;
        while (n + 1 < size) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                if (poll(&p, 1, timeout_ms) <= 0)
                        break;
                ssize_t r = read(fd, buf + n, 1);
                if (r <= 0)
                        break;
                n++;
                if (line && buf[n - 1] == '\n')
                        break;
                if (!line)
                        break;
        }
        buf[n] = '\0';
        return (ssize_t)n;
}

static int stall_start(struct stalled *s)
{
        char helper[4096];
        const char *build = getenv("TSYNC_BUILD");
        (void)snprintf(helper, sizeof(helper), "%s/tests/static/lockdown_hostile", build ? build : "build");
        if (access(helper, X_OK) < 0) {
                tap_diag("%s: %s (build it: scons)", helper, strerror(errno));
                return -1;
        }
        int to[2], from[2];
        if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0)
                return -1;
        s->pid = fork();
        if (s->pid < 0)
                return -1;
        if (s->pid == 0) {
                (void)dup2(to[0], 0);
                (void)dup2(from[1], 1);
                execl(helper, "lockdown_hostile", "stall", (char *)NULL);
                _exit(127);
        }
        (void)close(to[0]);
        (void)close(from[1]);
        s->in = to[1];
        s->out = from[0];
        char line[128];
        read_within(s->out, line, sizeof(line), true, 5000);
        if (strcmp(line, "hostile stall ready\n") != 0) {
                tap_diag("the stalling task said '%s'", line);
                return -1;
        }
        return 0;
}

static void stall_end(struct stalled *s)
{
        if (s->pid > 0) {
                (void)kill(s->pid, SIGKILL);
                (void)waitpid(s->pid, NULL, __WALL);
        }
        (void)close(s->in);
        (void)close(s->out);
}

/* The task's state a call must leave as it found it. */
struct snapshot {
        struct user_regs_struct regs;
        uint64_t mask;
        unsigned char stack[STACK_BYTES];
        int filters;
};

static int seccomp_filters(pid_t pid)
{
        char path[64], line[256];
        (void)snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
        FILE *f = fopen(path, "re");
        int n = -1;
        while (f && fgets(line, sizeof(line), f))
                if (sscanf(line, "Seccomp_filters: %d", &n) == 1)
                        break;
        if (f)
                (void)fclose(f);
        return n;
}

static int snapshot_take(pid_t pid, struct snapshot *s)
{
        char path[64];
        if (ptrace(PTRACE_GETREGS, pid, NULL, &s->regs) < 0 ||
            ptrace(PTRACE_GETSIGMASK, pid, (void *)sizeof(s->mask), &s->mask) < 0)
                return -errno;
        (void)snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
        FILE *f = fopen(path, "re");
        if (!f)
                return -errno;
        /* The red zone and what lies below it, where the program is written. */
        bool ok = fseek(f, (long)(s->regs.rsp - STACK_BYTES), SEEK_SET) == 0 &&
                  fread(s->stack, 1, STACK_BYTES, f) == STACK_BYTES;
        (void)fclose(f);
        s->filters = seccomp_filters(pid);
        return ok ? 0 : -EIO;
}

static bool snapshot_same(const struct snapshot *a, const struct snapshot *b, char *why, size_t size)
{
        const char *what = a->regs.rip != b->regs.rip                     ? "rip"
                           : a->regs.rsp != b->regs.rsp                   ? "rsp"
                           : a->regs.rax != b->regs.rax                   ? "rax"
                           : a->regs.orig_rax != b->regs.orig_rax         ? "orig_rax"
                           : a->regs.rdi != b->regs.rdi                   ? "rdi"
                           : a->regs.rsi != b->regs.rsi                   ? "rsi"
                           : a->regs.rdx != b->regs.rdx                   ? "rdx"
                           : a->regs.r10 != b->regs.r10                   ? "r10"
                           : a->mask != b->mask                           ? "the signal mask"
                           : memcmp(a->stack, b->stack, STACK_BYTES) != 0 ? "the stack below it"
                           : a->filters != b->filters                     ? "its filter count"
                                                                          : NULL;
        (void)snprintf(why, size, "%s", what ? what : "");
        return what == NULL;
}

/* Seized and stopped, as lockdown holds a task before it injects. */
static int hold(pid_t pid, struct snapshot *before)
{
        char why[256];
        int r = tsync_lockdown_seize(pid, true, why, sizeof(why));
        if (r == 0)
                r = tsync_lockdown_wait_stop(pid, 5000, why, sizeof(why));
        if (r < 0) {
                tap_diag("holding %d: %s", (int)pid, why);
                return r;
        }
        return snapshot_take(pid, before);
}

/* Let go, the task echoes a byte as it did before it was held. */
static bool runs_on(struct stalled *s)
{
        char c = 'a', back[4];
        if (tsync_lockdown_detach(s->pid, 0) < 0 || write(s->in, &c, 1) != 1)
                return false;
        read_within(s->out, back, sizeof(back), false, 5000);
        if (back[0] != 'b') {
                int st = 0;
                if (waitpid(s->pid, &st, __WALL | WNOHANG) != s->pid)
                        tap_diag("it did not answer, and runs");
                else {
                        tap_diag("it did not answer: %s %d", WIFSIGNALED(st) ? "killed by signal" : "exit status",
                                 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
                        s->pid = -1;
                }
        }
        return back[0] == 'b';
}

/* The stalling task started and held as lockdown holds one; false (a
 * failed check named test, the task ended) when it could not be. */
static bool stalled_and_held(struct stalled *s, struct snapshot *before, const char *test)
{
        if (stall_start(s) == 0 && hold(s->pid, before) == 0)
                return true;
        tap_ok(0, "%s: the stalling task could not be held", test);
        stall_end(s);
        return false;
}

static void test_lockdown_unwind_a_call_past_its_deadline(void)
{
        struct stalled s = { .pid = -1, .in = -1, .out = -1 };
        struct snapshot before = { 0 }, after = { 0 };
        if (!stalled_and_held(&s, &before, "test_lockdown_unwind_a_call_past_its_deadline"))
                return;
        int held = 0, st = 0;
        struct tsync_lockdown_call c;
        int r = tsync_lockdown_call_start(&c, s.pid, s.pid, allow, 1, 0, false, &held);
        tap_ok(r == 0, "test_lockdown_unwind_the_call_starts: %s", r == 0 ? "" : c.why);
        if (r < 0) {
                stall_end(&s);
                return;
        }
        /* The single step stops after the call; a call held by the listener never gets there. */
        usleep(300 * 1000);
        pid_t w = waitpid(s.pid, &st, __WALL | WNOHANG);
        tap_ok(w == 0, "test_lockdown_unwind_the_call_waits_on_the_listener: waitpid %d, status %#x", (int)w, st);
        r = tsync_lockdown_call_unwind(&c, "the injected call did not return within the deadline");
        tap_ok(r == -ETIMEDOUT && strstr(c.why, "put back as it was"),
               "test_lockdown_unwind_says_it_was_interrupted_and_put_back: %d %s", r, c.why);
        char why[64] = "";
        r = snapshot_take(s.pid, &after);
        tap_ok(r == 0 && snapshot_same(&before, &after, why, sizeof(why)),
               "test_lockdown_unwind_puts_back_registers_mask_and_stack_and_adds_no_filter: %s %s",
               r == 0 ? "" : strerror(-r), why);
        tap_ok(runs_on(&s), "test_lockdown_unwind_the_task_runs_on_as_before_once_let_go");
        stall_end(&s);
}

static void cancel(int sig)
{
        (void)sig;
        tsync_lockdown_cancelled = 1;
}

static void test_lockdown_unwind_a_cancelled_run(void)
{
        struct stalled s = { .pid = -1, .in = -1, .out = -1 };
        struct snapshot before = { 0 }, after = { 0 };
        if (!stalled_and_held(&s, &before, "test_lockdown_unwind_a_cancelled_run"))
                return;
        /* As SIGINT reaches lockdown's handler while the call waits. */
        struct sigaction sa = { .sa_handler = cancel };
        (void)sigaction(SIGALRM, &sa, NULL);
        struct itimerval t = { .it_value = { .tv_usec = 300 * 1000 } };
        (void)setitimer(ITIMER_REAL, &t, NULL);
        long ret = 0;
        int held = 0;
        char why[256] = "";
        int r = tsync_lockdown_inject(s.pid, s.pid, allow, 1, 0, false, &ret, &held, why, sizeof(why));
        tsync_lockdown_cancelled = 0;
        tap_ok(r == -ETIMEDOUT && strstr(why, "interrupted while it ran the injected call") &&
                       strstr(why, "put back as it was"),
               "test_lockdown_unwind_a_cancelled_call_is_interrupted_and_put_back: %d %s", r, why);
        char which[64] = "";
        r = snapshot_take(s.pid, &after);
        tap_ok(r == 0 && snapshot_same(&before, &after, which, sizeof(which)),
               "test_lockdown_unwind_a_cancelled_call_leaves_the_task_as_it_was: %s %s", r == 0 ? "" : strerror(-r),
               which);
        tap_ok(runs_on(&s), "test_lockdown_unwind_a_cancelled_calls_task_runs_on_once_let_go");
        stall_end(&s);
}

#endif

/* The injection is written for x86_64: elsewhere the whole run is refused,
 * by name, before any task is read, frozen or seized. */
static void test_lockdown_refuses_a_machine_its_injection_is_not_written_for(void)
{
        struct tsync_err err = { 0 };
        int r = tsync_lockdown_supported(&err);
#if defined(__x86_64__)
        tap_ok(r == 0, "test_lockdown_runs_on_x86_64 (%s)", r < 0 ? err.msg : "supported");
#else
        tap_ok(r == -EOPNOTSUPP && strstr(err.msg, "not supported on ") &&
                       strstr(err.msg, ": the syscall injection is written for x86_64 only"),
               "test_lockdown_refuses_this_machine_by_name (%s)", err.msg);
        struct tsync_lockdown_req req = { .pid = getpid(), .pidfd = -1, .watchdog = -1 };
        struct tsync_lockdown_result res;
        err = (struct tsync_err){ 0 };
        r = tsync_lockdown_run(&req, &res, &err);
        tap_ok(r == -EOPNOTSUPP && !res.touched && strstr(err.msg, "not supported on "),
               "test_lockdown_run_refuses_before_it_touches_anything (%d: %s)", r, err.msg);
        tsync_lockdown_result_clear(&res);
#endif
}

int main(void)
{
        test_lockdown_refuses_a_machine_its_injection_is_not_written_for();
#if defined(__x86_64__)
        test_lockdown_unwind_a_call_past_its_deadline();
        test_lockdown_unwind_a_cancelled_run();
#endif
        return tap_done();
}
