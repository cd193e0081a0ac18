/* lockdown: ptrace mechanics. A task is seized and interrupted (no SIGSTOP
 * that job control or the workload could see); one of its process's threads
 * is made to run a system call by pointing its registers at a `syscall`
 * instruction (0f 05) found in its own executable mappings, with the
 * arguments written below the red zone of its stack; everything is put back
 * exactly afterwards. When the thread was stopped inside an interrupted
 * system call, its saved orig_rax and -ERESTART* rax are restored too, so the
 * kernel restarts that call when the thread resumes, as after any stop.
 * The way CRIU's compel does it, written anew. x86_64 only: on any other
 * machine tsync_lockdown_supported refuses, by name, before anything is
 * touched, and every entry point below answers -EOPNOTSUPP. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lockdown/lockdown.h"
#include "shared/arches.h"
#include "shared/bpf.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "status/status.h"
#include "util/fileio.h"

#ifndef PTRACE_SECCOMP_GET_FILTER
#define PTRACE_SECCOMP_GET_FILTER 0x420c
#endif

#if defined(__x86_64__)

int tsync_lockdown_supported(struct tsync_err *err)
{
        (void)err;
        return 0;
}

/* The System V ABI's red zone: the stopped code may keep data there. */
#define RED_ZONE 128

/* Waits up to timeout_ms for tid's next stop; *st its status. -ETIMEDOUT,
 * -EINTR when the run was cancelled (tsync_lockdown_cancelled), -ESRCH when
 * it ended. */
static int wait_stop_for(pid_t tid, int *st, int timeout_ms, bool cancellable)
{
        for (long waited = 0;; waited++) {
                pid_t w = waitpid(tid, st, __WALL | WNOHANG);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0)
                        return -errno;
                if (w == tid)
                        return WIFSTOPPED(*st) ? 0 : -ESRCH;
                if (cancellable && tsync_lockdown_cancelled)
                        return -EINTR;
                if (waited >= timeout_ms * 4L)
                        return -ETIMEDOUT;
                (void)usleep(250);
        }
}

int tsync_lockdown_seize(pid_t tid, bool interrupt, char *why, size_t size)
{
        if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0) {
                int e = errno;
                (void)snprintf(why, size, "PTRACE_SEIZE: %s%s", tsync_errtext(e),
                               e == EPERM ? " (traced by another process, or ptrace not allowed)" : "");
                return -e;
        }
        if (interrupt && ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0) {
                int e = errno;
                (void)ptrace(PTRACE_DETACH, tid, NULL, NULL);
                (void)snprintf(why, size, "PTRACE_INTERRUPT: %s", tsync_errtext(e));
                return -e;
        }
        return 0;
}

int tsync_lockdown_wait_stop(pid_t tid, int timeout_ms, char *why, size_t size)
{
        for (int waited = 0;; waited++) {
                int st;
                pid_t w = waitpid(tid, &st, __WALL | WNOHANG);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0) {
                        int e = errno;
                        (void)snprintf(why, size, "waiting for its stop: %s", tsync_errtext(e));
                        return -e;
                }
                if (w == tid && WIFSTOPPED(st))
                        return 0;
                if (w == tid) {
                        (void)snprintf(why, size, "it ended while being seized");
                        return -ESRCH;
                }
                if (waited >= timeout_ms) {
                        (void)snprintf(why, size, "it did not stop within %d ms", timeout_ms);
                        return -ETIMEDOUT;
                }
                if (tsync_lockdown_cancelled) {
                        (void)snprintf(why, size, "lockdown was interrupted while it waited for its stop");
                        return -EINTR;
                }
                (void)usleep(1000);
        }
}

int tsync_lockdown_detach(pid_t tid, int sig)
{
        return ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)sig) < 0 ? -errno : 0;
}

int tsync_lockdown_wait_stops(const pid_t *tids, int *ret, size_t n, int timeout_ms)
{
        size_t left = 0;
        for (size_t i = 0; i < n; i++) {
                ret[i] = -ETIMEDOUT;
                left += tids[i] > 0;
        }
        /* Whatever stops first is collected first: one short sleep serves
         * every task still on its way, not one sleep per task. */
        for (int waited = 0; left;) {
                int st;
                pid_t w = waitpid(-1, &st, __WALL | WNOHANG);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0)
                        return -errno;
                if (w == 0) {
                        if (waited++ >= timeout_ms * 4 || tsync_lockdown_cancelled)
                                break;
                        (void)usleep(250);
                        continue;
                }
                for (size_t i = 0; i < n; i++)
                        if (tids[i] == w && ret[i] == -ETIMEDOUT) {
                                ret[i] = WIFSTOPPED(st) ? 0 : -ESRCH;
                                left--;
                                break;
                        }
        }
        return 0;
}

static int mem_rw(int fd, bool write, void *buf, size_t len, unsigned long addr)
{
        ssize_t n = write ? pwrite(fd, buf, len, (off_t)addr) : pread(fd, buf, len, (off_t)addr);
        if (n < 0)
                return -errno;
        return (size_t)n == len ? 0 : -EIO;
}

/* The address of a `syscall` instruction (0f 05) in the task's executable
 * mappings. Through the thread's own /proc entry: a process whose main thread
 * has exited shows no mappings under /proc/PID. The maps are read line by
 * line up to the first mapping that has one: they can run to thousands. */
static int find_syscall(pid_t pid, pid_t tid, int mem, unsigned long *ret)
{
        char path[80], line[1024];
        (void)snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", (int)pid, (int)tid);
        FILE *f = fopen(path, "re");
        if (!f)
                return -errno;
        int r = -ENOEXEC;
        static unsigned char buf[65536];
        while (r < 0 && fgets(line, sizeof(line), f)) {
                unsigned long lo, hi;
                char perms[8];
                if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[2] != 'x')
                        continue;
                if (strstr(line, "[vsyscall]"))
                        continue; /* reading it through /proc/PID/mem fails, and it traps */
                for (unsigned long a = lo; a < hi && r < 0; a += sizeof(buf) - 1) {
                        size_t len = hi - a < sizeof(buf) ? hi - a : sizeof(buf);
                        ssize_t n = pread(mem, buf, len, (off_t)a);
                        if (n < 2)
                                break;
                        for (ssize_t i = 0; i + 1 < n; i++)
                                if (buf[i] == 0x0f && buf[i + 1] == 0x05) {
                                        *ret = a + (unsigned long)i;
                                        r = 0;
                                        break;
                                }
                }
        }
        (void)fclose(f);
        return r;
}

/* Points the stopped thread at the call's next system call (registers from
 * saved, rip at the instruction, no restart pending) and lets it step over
 * it. */
static int step_call(struct tsync_lockdown_call *c)
{
        struct user_regs_struct regs = c->saved;
        regs.rip = c->insn;
        regs.rax = (unsigned long)c->nr[c->cur];
        regs.orig_rax = (unsigned long)-1; /* not in a system call: nothing to restart first */
        regs.rdi = c->args[c->cur][0];
        regs.rsi = c->args[c->cur][1];
        regs.rdx = c->args[c->cur][2];
        regs.r10 = 0;
        regs.r8 = 0;
        regs.r9 = 0;
        if (ptrace(PTRACE_SETREGS, c->tid, NULL, &regs) < 0) {
                int e = errno;
                (void)snprintf(c->why, sizeof(c->why), "PTRACE_SETREGS: %s", tsync_errtext(e));
                return -e;
        }
        if (ptrace(PTRACE_SINGLESTEP, c->tid, NULL, NULL) < 0) {
                int e = errno;
                (void)snprintf(c->why, sizeof(c->why), "PTRACE_SINGLESTEP: %s", tsync_errtext(e));
                return -e;
        }
        return 0;
}

/* Puts back the stack, the registers and the signal mask, whatever
 * happened; r the outcome so far. */
static int finish(struct tsync_lockdown_call *c, int r)
{
        int rm = mem_rw(c->mem, true, c->backup, c->need, c->at);
        int rr = ptrace(PTRACE_SETREGS, c->tid, NULL, &c->saved) < 0 ? -errno : 0;
        if (rr == 0 && ptrace(PTRACE_SETSIGMASK, c->tid, (void *)sizeof(c->mask), &c->mask) < 0)
                rr = -errno;
        if (c->mem >= 0)
                (void)close(c->mem);
        c->mem = -1;
        free(c->backup);
        c->backup = NULL;
        if (r == 0 && (rm < 0 || rr < 0)) {
                (void)snprintf(c->why, sizeof(c->why), "restoring its %s: %s",
                               rm < 0 ? "stack" : "registers or signal mask", tsync_errtext(rm < 0 ? -rm : -rr));
                r = rm < 0 ? rm : rr;
        }
        return r;
}

int tsync_lockdown_call_start(struct tsync_lockdown_call *c, pid_t pid, pid_t tid, const struct sock_filter *insns,
                              size_t len, unsigned flags, bool set_nnp, int *held_sig)
{
        *c = (struct tsync_lockdown_call){ .pid = pid, .tid = tid, .mem = -1, .held_sig = held_sig };
        _cleanup_free_ unsigned char *image = NULL;
        char path[80];
        (void)snprintf(path, sizeof(path), "/proc/%d/task/%d/mem", (int)pid, (int)tid);
        c->mem = open(path, O_RDWR | O_CLOEXEC);
        if (c->mem < 0) {
                int e = errno;
                (void)snprintf(c->why, sizeof(c->why), "%s: %s", path, tsync_errtext(e));
                return -e;
        }
        int r = 0;
        if (ptrace(PTRACE_GETREGS, tid, NULL, &c->saved) < 0) {
                r = -errno;
                (void)snprintf(c->why, sizeof(c->why), "PTRACE_GETREGS: %s", tsync_errtext(-r));
                goto fail;
        }
        if (c->saved.cs != 0x33) {
                (void)snprintf(c->why, sizeof(c->why), "not an x86_64 process (cs %#llx): not supported yet",
                               (unsigned long long)c->saved.cs);
                r = -EOPNOTSUPP;
                goto fail;
        }
        r = find_syscall(pid, tid, c->mem, &c->insn);
        if (r < 0) {
                (void)snprintf(c->why, sizeof(c->why), "no syscall instruction found in its executable mappings: %s",
                               tsync_errtext(-r));
                goto fail;
        }
        /* struct sock_fprog, then the program, below the red zone, 16-aligned. */
        size_t prog_bytes = len * sizeof(struct sock_filter);
        c->need = sizeof(struct sock_fprog) + prog_bytes;
        c->at = (c->saved.rsp - RED_ZONE - c->need) & ~15UL;
        c->backup = malloc(c->need);
        image = malloc(c->need);
        if (!c->backup || !image) {
                (void)snprintf(c->why, sizeof(c->why), "out of memory");
                r = -ENOMEM;
                goto fail;
        }
        r = mem_rw(c->mem, false, c->backup, c->need, c->at);
        if (r < 0) {
                (void)snprintf(c->why, sizeof(c->why), "reading its stack at %#lx: %s", c->at, tsync_errtext(-r));
                goto fail;
        }
        struct sock_fprog fprog = { .len = (unsigned short)len,
                                    .filter = (struct sock_filter *)(c->at + sizeof(struct sock_fprog)) };
        memcpy(image, &fprog, sizeof(fprog));
        memcpy(image + sizeof(fprog), insns, prog_bytes);
        /* Every signal blocked while the injected calls run: one that arrives
         * stays pending and is delivered after the detach, to the registers
         * and mask put back, as after any stop. */
        uint64_t all = ~0ULL;
        if (ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(c->mask), &c->mask) < 0) {
                r = -errno;
                (void)snprintf(c->why, sizeof(c->why), "PTRACE_GETSIGMASK: %s", tsync_errtext(-r));
                goto fail;
        }
        /* From here on, finish() puts things back. */
        r = mem_rw(c->mem, true, image, c->need, c->at);
        if (r < 0) {
                (void)snprintf(c->why, sizeof(c->why), "writing its stack at %#lx: %s", c->at, tsync_errtext(-r));
                return finish(c, r);
        }
        if (ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(all), &all) < 0) {
                r = -errno;
                (void)snprintf(c->why, sizeof(c->why), "PTRACE_SETSIGMASK: %s", tsync_errtext(-r));
                return finish(c, r);
        }
        if (set_nnp) {
                c->nr[c->n] = SYS_prctl;
                c->args[c->n][0] = PR_SET_NO_NEW_PRIVS;
                c->args[c->n][1] = 1;
                c->args[c->n++][2] = 0;
        }
        c->nr[c->n] = SYS_seccomp;
        c->args[c->n][0] = SECCOMP_SET_MODE_FILTER;
        c->args[c->n][1] = flags;
        c->args[c->n++][2] = c->at;
        r = step_call(c);
        return r < 0 ? finish(c, r) : 0;
fail:
        (void)close(c->mem);
        c->mem = -1;
        free(c->backup);
        c->backup = NULL;
        return r;
}

int tsync_lockdown_call_stopped(struct tsync_lockdown_call *c, int status)
{
        if (!WIFSTOPPED(status)) {
                (void)snprintf(c->why, sizeof(c->why), "it ended while it ran the injected call");
                return -ESRCH; /* nothing left to restore */
        }
        struct user_regs_struct regs;
        if (ptrace(PTRACE_GETREGS, c->tid, NULL, &regs) < 0) {
                int e = errno;
                (void)snprintf(c->why, sizeof(c->why), "PTRACE_GETREGS: %s", tsync_errtext(e));
                return finish(c, -e);
        }
        if (regs.rip == c->insn + 2) {
                c->res = (long)regs.rax;
                if (c->nr[c->cur] == SYS_prctl && c->res != 0) {
                        (void)snprintf(c->why, sizeof(c->why), "prctl(PR_SET_NO_NEW_PRIVS): %s",
                                       tsync_errtext((int)-c->res));
                        return finish(c, (int)c->res);
                }
                if (++c->cur == c->n)
                        return finish(c, 0);
                int r = step_call(c);
                return r < 0 ? finish(c, r) : 1;
        }
        /* Not there yet: an unblockable signal (SIGSTOP, held for the
         * detach) or a ptrace event stop came first; step again from where
         * it is, which must still be the instruction. */
        if (status >> 16 == 0 && WSTOPSIG(status) != SIGTRAP && !*c->held_sig)
                *c->held_sig = WSTOPSIG(status);
        if (regs.rip != c->insn) {
                (void)snprintf(c->why, sizeof(c->why), "the injected call did not run (rip %#llx, stop %#x)",
                               (unsigned long long)regs.rip, status);
                return finish(c, -EIO);
        }
        if (ptrace(PTRACE_SINGLESTEP, c->tid, NULL, NULL) < 0) {
                int e = errno;
                (void)snprintf(c->why, sizeof(c->why), "PTRACE_SINGLESTEP: %s", tsync_errtext(e));
                return finish(c, -e);
        }
        return 1;
}

int tsync_lockdown_call_interrupt(struct tsync_lockdown_call *c)
{
        return ptrace(PTRACE_INTERRUPT, c->tid, NULL, NULL) < 0 ? -errno : 0;
}

/* Whether SIGTRAP is pending for thread tid alone (a single step's is). */
static bool trap_pending(pid_t pid, pid_t tid)
{
        char path[80];
        (void)snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
        _cleanup_free_ char *text = NULL;
        size_t len;
        unsigned long long pending = 0;
        if (tsync_read_file_at(AT_FDCWD, path, NULL, 0, TSYNC_STATUS_FILE_MAX, &text, &len, NULL, NULL) < 0)
                return false;
        const char *at = strstr(text, "\nSigPnd:");
        return at && sscanf(at, "\nSigPnd: %llx", &pending) == 1 && (pending & (1ULL << (SIGTRAP - 1)));
}

/* A call that missed its deadline (waiting on a listener, a lock, a task we
 * hold) is never left as it is: PTRACE_INTERRUPT makes the kernel abandon
 * the wait (the call returns -ERESTART*) for a ptrace stop, where the
 * registers, the signal mask and the stack are put back as after any other
 * stop. Whichever stop comes first (the call may have just returned) is the
 * one restored at; the interrupt still pending is dropped at the detach. */
int tsync_lockdown_call_unwind(struct tsync_lockdown_call *c, const char *what)
{
        int e = tsync_lockdown_call_interrupt(c);
        int st = 0;
        if (e == 0)
                e = wait_stop_for(c->tid, &st, TSYNC_LOCKDOWN_UNWIND_MS, false);
        /* The interrupted call left the kernel single-stepping, which queued
         * a SIGTRAP behind the interrupt's stop: taken at its own delivery
         * stop, which comes before any of the task's code runs and whose
         * signal the detach drops; left pending, it would kill the task once
         * let go. */
        if (e == 0 && st >> 16 == PTRACE_EVENT_STOP && trap_pending(c->pid, c->tid)) {
                e = ptrace(PTRACE_CONT, c->tid, NULL, NULL) < 0 ? -errno : 0;
                if (e == 0)
                        e = wait_stop_for(c->tid, &st, TSYNC_LOCKDOWN_UNWIND_MS, false);
        }
        if (e == -ESRCH) {
                (void)snprintf(c->why, sizeof(c->why), "%s; it ended meanwhile", what);
                return -ESRCH;
        }
        if (e < 0) {
                (void)snprintf(c->why, sizeof(c->why),
                               "%s; interrupted, it did not stop within %d ms either (%s): its registers could not "
                               "be put back",
                               what, TSYNC_LOCKDOWN_UNWIND_MS, tsync_errtext(-e));
                return e;
        }
        if (st >> 16 == 0 && WSTOPSIG(st) != SIGTRAP && !*c->held_sig)
                *c->held_sig = WSTOPSIG(st);
        (void)snprintf(c->why, sizeof(c->why), "%s: interrupted and put back as it was", what);
        return finish(c, -ETIMEDOUT);
}

int tsync_lockdown_inject(pid_t pid, pid_t tid, const struct sock_filter *insns, size_t len, unsigned flags,
                          bool set_nnp, long *ret, int *held_sig, char *why, size_t size)
{
        struct tsync_lockdown_call c;
        int r = tsync_lockdown_call_start(&c, pid, tid, insns, len, flags, set_nnp, held_sig);
        while (r > 0 || (r == 0 && c.cur < c.n)) {
                int st;
                r = wait_stop_for(tid, &st, TSYNC_LOCKDOWN_CALL_MS, true);
                if (r == -ETIMEDOUT || r == -EINTR) {
                        char what[96];
                        (void)snprintf(what, sizeof(what), "%s",
                                       r == -EINTR ? "lockdown was interrupted while it ran the injected call"
                                                   : "the injected call did not return within "
                                                     "the deadline");
                        r = tsync_lockdown_call_unwind(&c, what);
                        break;
                }
                if (r < 0) {
                        (void)snprintf(c.why, sizeof(c.why), "while it ran the injected call: %s", tsync_errtext(-r));
                        break;
                }
                r = tsync_lockdown_call_stopped(&c, st);
                if (r == 0)
                        break;
        }
        if (r < 0) {
                (void)snprintf(why, size, "%s", c.why);
                return r;
        }
        *ret = c.res;
        return 0;
}

/* What each of tid's filters answers to the calls we would inject: anything
 * but ALLOW or LOG (a listener's USER_NOTIF above all: a listener served by
 * a task we hold stopped never answers) is refused before a call is made. */
int tsync_lockdown_check_calls(pid_t tid, unsigned flags, bool set_nnp, char *why, size_t size)
{
        struct tsync_bpf_input in[2] = {
                { .nr = SYS_seccomp, .arch = AUDIT_ARCH_X86_64, .args = { SECCOMP_SET_MODE_FILTER, flags } },
                { .nr = SYS_prctl, .arch = AUDIT_ARCH_X86_64, .args = { PR_SET_NO_NEW_PRIVS, 1 } },
        };
        for (long i = 0;; i++) {
                long n = ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)i, NULL);
                /* ENOENT: past the last; EINVAL at 0: no filter at all */
                if (n < 0 && (errno == ENOENT || (errno == EINVAL && i == 0)))
                        return 0;
                if (n < 0) {
                        int e = errno;
                        (void)snprintf(why, size, "PTRACE_SECCOMP_GET_FILTER %ld: %s", i, tsync_errtext(e));
                        return -e;
                }
                _cleanup_free_ struct sock_filter *prog = calloc((size_t)n ? (size_t)n : 1, sizeof(*prog));
                if (!prog)
                        return -ENOMEM;
                if (ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)i, prog) != n) {
                        int e = errno;
                        (void)snprintf(why, size, "PTRACE_SECCOMP_GET_FILTER %ld: %s", i, tsync_errtext(e));
                        return -e;
                }
                for (size_t k = 0; k < (set_nnp ? 2u : 1u); k++) {
                        struct tsync_bpf_result res;
                        struct tsync_err err = { 0 };
                        if (tsync_bpf_simulate(prog, (size_t)n, &in[k], &res, &err) < 0) {
                                (void)snprintf(why, size, "its filter %ld: %s", i, err.msg);
                                return -EINVAL;
                        }
                        uint32_t action = res.ret & SECCOMP_RET_ACTION_FULL;
                        if (action == SECCOMP_RET_ALLOW || action == SECCOMP_RET_LOG)
                                continue;
                        char name[32];
                        tsync_bpf_ret_name(res.ret, name, sizeof(name));
                        (void)snprintf(why, size,
                                       "its filter %ld answers %s() with %s%s: the layer cannot be injected there "
                                       "(refused before any call was made)",
                                       i, k ? "prctl" : "seccomp", name,
                                       action == SECCOMP_RET_USER_NOTIF
                                               ? " (a listener that may be a task held stopped by lockdown)"
                                               : "");
                        return -EPERM;
                }
        }
}

#else

/* This machine's name (uname -m), from the architectures' table. */
static const char *machine(void)
{
#ifdef TSYNC_NATIVE_AUDIT_ARCH
        const struct tsync_arch_def *a = tsync_arch_by_audit(TSYNC_NATIVE_AUDIT_ARCH);
        if (a)
                return a->kernel_name;
#endif
        return "this architecture";
}

static int unsupported(char *why, size_t size)
{
        (void)snprintf(why, size, "not supported on %s yet: the syscall injection is written for x86_64 only",
                       machine());
        return -EOPNOTSUPP;
}

int tsync_lockdown_supported(struct tsync_err *err)
{
        char why[128];
        int r = unsupported(why, sizeof(why));
        return tsync_error(err, -r, "%s", why);
}

/* Never reached (tsync_lockdown_run refuses first); here so that nothing
 * built for this machine can seize or inject. */
int tsync_lockdown_seize(pid_t tid, bool interrupt, char *why, size_t size)
{
        (void)tid, (void)interrupt;
        return unsupported(why, size);
}

int tsync_lockdown_wait_stop(pid_t tid, int timeout_ms, char *why, size_t size)
{
        (void)tid, (void)timeout_ms;
        return unsupported(why, size);
}

int tsync_lockdown_wait_stops(const pid_t *tids, int *ret, size_t n, int timeout_ms)
{
        (void)tids, (void)ret, (void)n, (void)timeout_ms;
        return -EOPNOTSUPP;
}

int tsync_lockdown_detach(pid_t tid, int sig)
{
        return ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)sig) < 0 ? -errno : 0;
}

int tsync_lockdown_call_start(struct tsync_lockdown_call *c, pid_t pid, pid_t tid, const struct sock_filter *insns,
                              size_t len, unsigned flags, bool set_nnp, int *held_sig)
{
        (void)pid, (void)tid, (void)insns, (void)len, (void)flags, (void)set_nnp, (void)held_sig;
        return unsupported(c->why, sizeof(c->why));
}

int tsync_lockdown_call_stopped(struct tsync_lockdown_call *c, int status)
{
        (void)status;
        return unsupported(c->why, sizeof(c->why));
}

int tsync_lockdown_inject(pid_t pid, pid_t tid, const struct sock_filter *insns, size_t len, unsigned flags,
                          bool set_nnp, long *ret, int *held_sig, char *why, size_t size)
{
        (void)pid, (void)tid, (void)insns, (void)len, (void)flags, (void)set_nnp, (void)ret, (void)held_sig;
        return unsupported(why, size);
}

int tsync_lockdown_call_interrupt(struct tsync_lockdown_call *c)
{
        (void)c;
        return -EOPNOTSUPP;
}

int tsync_lockdown_call_unwind(struct tsync_lockdown_call *c, const char *what)
{
        (void)what;
        return unsupported(c->why, sizeof(c->why));
}

int tsync_lockdown_check_calls(pid_t tid, unsigned flags, bool set_nnp, char *why, size_t size)
{
        (void)tid, (void)flags, (void)set_nnp;
        return unsupported(why, size);
}

#endif

int tsync_lockdown_filter_is(pid_t tid, int index, const struct sock_filter *insns, size_t len, char *why, size_t size)
{
        long n = ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)(long)index, NULL);
        if (n < 0) {
                int e = errno;
                if (insns == NULL && e == ENOENT)
                        return 1; /* asked for its absence */
                (void)snprintf(why, size, "PTRACE_SECCOMP_GET_FILTER %d: %s", index, tsync_errtext(e));
                return -e;
        }
        if ((size_t)n != len)
                return 0;
        _cleanup_free_ struct sock_filter *got = calloc((size_t)n ? (size_t)n : 1, sizeof(*got));
        if (!got)
                return -ENOMEM;
        if (ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)(long)index, got) != n) {
                int e = errno;
                (void)snprintf(why, size, "PTRACE_SECCOMP_GET_FILTER %d: %s", index, tsync_errtext(e));
                return -e;
        }
        return memcmp(got, insns, len * sizeof(*got)) == 0;
}
