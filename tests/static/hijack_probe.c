/* A workload taking over a process started with `exec` in its container, as
 * issue 23 did: hijack_probe PID PATH seizes PID by ptrace, interrupts it,
 * and makes it call mkdir(PATH, 0755) from its own `syscall` instruction,
 * then puts its registers back and lets it go. Whatever that process's
 * filters deny, the call is denied; whatever they allow, it does. One line:
 *   hijack pid=PID seize=ok mkdir=ok|errno:N
 * (seize=EPERM and no mkdir when ptrace is refused). x86-64 only: elsewhere
 * it prints "hijack unsupported" and exits 0. Static (busybox root
 * filesystems); exits 0 unless it cannot run. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <sys/user.h>

static int stop(pid_t pid)
{
        int status;
        if (waitpid(pid, &status, __WALL) < 0)
                return -errno;
        return WIFSTOPPED(status) ? 0 : -ESRCH;
}

/* Writes s (with its NUL) at addr in pid, a word at a time. */
static int poke_string(pid_t pid, unsigned long addr, const char *s)
{
        size_t len = strlen(s) + 1;
        for (size_t off = 0; off < len; off += sizeof(long)) {
                long word = 0;
                memcpy(&word, s + off, len - off < sizeof(long) ? len - off : sizeof(long));
                if (ptrace(PTRACE_POKEDATA, pid, addr + off, word) < 0)
                        return -errno;
        }
        return 0;
}

static int hijack(pid_t pid, const char *path, long *ret)
{
        struct user_regs_struct saved, regs;
        if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0 || stop(pid) < 0 || ptrace(PTRACE_GETREGS, pid, 0, &saved) < 0)
                return -errno;
        /* Its own `syscall` instruction (0f 05): just before rip when it
         * stopped in a call (sleep's nanosleep), or at rip. */
        errno = 0;
        long before = ptrace(PTRACE_PEEKTEXT, pid, saved.rip - 2, 0);
        unsigned long insn = (before & 0xffff) == 0x050f ? saved.rip - 2 : saved.rip;
        if (errno)
                return -errno;
        /* The path goes well below its stack pointer (past the red zone). */
        unsigned long str = (saved.rsp - 4096) & ~15ul;
        int r = poke_string(pid, str, path);
        if (r < 0)
                return r;
        regs = saved;
        regs.orig_rax = (unsigned long)-1; /* no restart of the interrupted call */
        regs.rip = insn;
        regs.rax = SYS_mkdir;
        regs.rdi = str;
        regs.rsi = 0755;
        if (ptrace(PTRACE_SETREGS, pid, 0, &regs) < 0 || ptrace(PTRACE_SYSCALL, pid, 0, 0) < 0 || stop(pid) < 0 ||
            ptrace(PTRACE_SYSCALL, pid, 0, 0) < 0 || stop(pid) < 0 || ptrace(PTRACE_GETREGS, pid, 0, &regs) < 0)
                return -errno;
        *ret = (long)regs.rax;
        /* Back as it was: the interrupted call restarts or returns EINTR. */
        if (ptrace(PTRACE_SETREGS, pid, 0, &saved) < 0)
                return -errno;
        return 0;
}

int main(int argc, char **argv)
{
        if (argc != 3) {
                fprintf(stderr, "usage: hijack_probe PID PATH\n");
                return 2;
        }
        pid_t pid = (pid_t)atoi(argv[1]);
        if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0) {
                printf("hijack pid=%d seize=%s\n", (int)pid, strerrorname_np(errno));
                return 0;
        }
        long ret = 0;
        int r = hijack(pid, argv[2], &ret);
        if (r < 0) {
                printf("hijack pid=%d seize=ok mkdir=- ptrace=%s\n", (int)pid, strerrorname_np(-r));
                return 1;
        }
        if (ret == 0)
                printf("hijack pid=%d seize=ok mkdir=ok\n", (int)pid);
        else
                printf("hijack pid=%d seize=ok mkdir=errno:%ld\n", (int)pid, -ret);
        (void)ptrace(PTRACE_DETACH, pid, 0, 0);
        return 0;
}
#else
int main(void)
{
        puts("hijack unsupported");
        return 0;
}
#endif
