/* Recording (--record): the recorder thread and the recording filter.
 *
 * The recording filter sends the workload's calls to a listener that only
 * the init holds. It is loaded last, by the main thread alone and without
 * TSYNC, so that the workload child inherits it through clone while the
 * init's other threads (the signal thread, the recorder itself) never carry
 * it: the recorder's own calls can never wait on the recorder. The main
 * thread does carry it from its load on; each of its calls then waits for the
 * recorder's CONTINUE, which is why it hands the listener over with a plain
 * store (any system call would wait for an answer nobody could give yet) and
 * the recorder, armed right before the load, polls for it.
 *
 * The recorder answers every notification with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE: recording observes, it decides nothing
 * (the other filters have judged the call already: a call they deny never
 * comes here, as their answer takes precedence). It notes a pair only when it
 * is the workload's: never the main thread's (its tid is the process's pid),
 * and nothing before the child announces itself right before its execve (the
 * child's calls until then are the init's code). Each new pair is one line
 * appended with one pwrite, before the answer, so that a workload killed with
 * SIGKILL still leaves every pair of every call it made; a write that fails
 * or is cut short empties the file (void_recording).
 *
 * The seen-set is static: a bit per (ABI, syscall) for the ABIs Linux runs
 * (1024 numbers each, x32's without __X32_SYSCALL_BIT) and a short list for
 * anything else; no heap after the load. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "init.h"
#include "shared/arches.h"
#include "shared/filterfile.h"
#include "shared/init_threads.h"
#include "shared/record_format.h"

/* How often the armed recorder looks for the listener: the main thread's
 * first call after its load waits at most this long for an answer. */
#define POLL_NS (50 * 1000)

#define KNOWN_NRS 1024u
#define OTHERS    256u

/* The listener word, besides an fd. */
enum { LISTENER_WAITING = -1, LISTENER_FAILED = -2 };

/* Armed (INIT_WORKER_SERVE): the main thread is about to load the
 * recording filter. */
static void wait_for_listener(void);
static struct init_worker recorder = {
        .what = "record",
        .thread_what = "the recorder thread",
        .thread_name = TSYNC_INIT_THREAD_RECORDER,
        .serve = wait_for_listener,
};
static int32_t listener = LISTENER_WAITING;
static pid_t main_tid;
/* The workload child once it announced itself (0 until then). */
static int32_t workload;
/* Set by give_up before it kills the workload (see run.c's reaping). */
static bool gave_up;

static const char *record_path;
static bool from_relay; /* the file is the relay's fd, not record_path */
static int record_fd = -1;
static off_t record_end; /* the end of the last full line */
static bool record_void; /* a write failed: the file was emptied, nothing more is noted */

/* The bit table: a row for each architecture of shared/arches.h (x32 its own,
 * although its calls carry x86_64's AUDIT_ARCH), by its place there. */
#define NKNOWN 32u
static uint64_t seen[NKNOWN][KNOWN_NRS / 64];
static struct {
        uint32_t arch;
        uint32_t nr;
} others[OTHERS];
static size_t nothers;
static bool others_full;

/* The recorder cannot answer any more: a workload nobody answers would hang
 * at its next call, so it is killed and the init exits (the container goes
 * with PID 1). Before the workload ran, the main thread waits for an answer
 * that never comes: the exit ends it too. */
static _Noreturn void give_up(const char *what, int e)
{
        pid_t w = __atomic_load_n(&workload, __ATOMIC_ACQUIRE);

        init_log("record", "the recorder cannot %s: %s: the workload is killed", what, init_strerror(e));
        __atomic_store_n(&gave_up, true, __ATOMIC_RELEASE);
        if (w > 0)
                (void)kill(w, SIGKILL);
        init_record_abandon();
        _exit(1);
}

/* The slot of a pair in the bit table, or -1. */
static int known_slot(uint32_t arch, uint32_t nr, uint32_t *ret_index)
{
        bool x32 = arch == AUDIT_ARCH_X86_64 && (nr & TSYNC_X32_SYSCALL_BIT);
        size_t n;
        const struct tsync_arch_def *rows = tsync_arches(&n);
        const struct tsync_arch_def *row = x32 ? tsync_arch_by_token(TSYNC_ARCH_X32_TOKEN) : tsync_arch_by_audit(arch);

        if (x32)
                nr &= ~TSYNC_X32_SYSCALL_BIT;
        if (!row || nr >= KNOWN_NRS || (size_t)(row - rows) >= NKNOWN)
                return -1;
        *ret_index = nr;
        return (int)(row - rows);
}

/* "c000003e 59\n" into buf (TSYNC_RECORD_LINE_MAX bytes); by hand, as the
 * recorder runs after the load (printf's machinery may allocate). */
static size_t format_line(uint32_t arch, uint32_t nr, char *buf)
{
        static const char hex[] = "0123456789abcdef";
        char digits[10];
        size_t o = 0, nd = 0;

        for (int shift = 28; shift >= 0; shift -= 4)
                buf[o++] = hex[(arch >> shift) & 15];
        buf[o++] = ' ';
        do {
                digits[nd++] = (char)('0' + nr % 10);
                nr /= 10;
        } while (nr);
        while (nd)
                buf[o++] = digits[--nd];
        buf[o++] = '\n';
        return o;
}

/* A write that fails, or is cut short (a file size limit, a full disk),
 * voids the recording rather than leave one that misses calls, from which
 * poststop would make a profile that breaks the workload later: the file
 * loses its magic, so poststop refuses it, and the init says why. */
static void void_recording(int e)
{
        record_void = true;
        (void)ftruncate(record_fd, 0);
        init_warn("record", "cannot write to %s: %s: the recording is void (emptied); the workload goes on",
                  record_path, e ? init_strerror(e) : "a short write");
}

/* Appends the line; true once it is in the file. */
static bool append(uint32_t arch, uint32_t nr)
{
        char line[TSYNC_RECORD_LINE_MAX];
        size_t len = format_line(arch, nr, line);

        for (;;) {
                ssize_t w = pwrite(record_fd, line, len, record_end);
                if (w == (ssize_t)len) {
                        record_end += (off_t)len;
                        return true;
                }
                if (w < 0 && errno == EINTR)
                        continue;
                void_recording(w < 0 ? errno : 0);
                return false;
        }
}

static void note(uint32_t arch, uint32_t nr)
{
        uint32_t index;

        if (record_void)
                return;
        int slot = known_slot(arch, nr, &index);
        if (slot >= 0) {
                uint64_t bit = 1ull << (index % 64);
                if (seen[slot][index / 64] & bit)
                        return;
                if (append(arch, nr))
                        seen[slot][index / 64] |= bit;
                return;
        }
        for (size_t i = 0; i < nothers; i++)
                if (others[i].arch == arch && others[i].nr == nr)
                        return;
        if (nothers == OTHERS) {
                if (!others_full)
                        init_warn("record",
                                  "more than %u calls outside the known numbers: %08x %u and later ones are not "
                                  "recorded",
                                  OTHERS, arch, nr);
                others_full = true;
                return;
        }
        if (append(arch, nr))
                others[nothers++] = (typeof(others[0])){ .arch = arch, .nr = nr };
}

/* The first answer is to the main thread, before the workload exists. */
static bool answered_once;

/* CONTINUE, always: recording observes, it decides nothing. */
static bool answer(int fd, const struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
        (void)fd;
        /* The announcement is a store made before the call that brought
         * this notification: the kernel's queue orders the two. */
        pid_t w = __atomic_load_n(&workload, __ATOMIC_ACQUIRE);
        if (w > 0 && (pid_t)req->pid != main_tid)
                note(req->data.arch, (uint32_t)req->data.nr);
        resp->error = 0;
        resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        return true;
}

static void answered(const struct seccomp_notif_resp *resp)
{
        (void)resp;
        answered_once = true;
}

/* A kernel without CONTINUE (Linux < 5.5) refuses the first answer, to the
 * main thread: said as such, before any workload. */
static void send_failed(int e)
{
        if (e != EINVAL || answered_once)
                return;
        init_log("record",
                 "the kernel refuses SECCOMP_USER_NOTIF_FLAG_CONTINUE: %s (Linux 5.5 or later is needed to record)",
                 init_strerror(e));
        init_record_abandon();
        _exit(INIT_EXIT_KERNEL);
}

static const struct init_listener record_listener = {
        .answer = answer,
        .answered = answered,
        .send_failed = send_failed,
        .give_up = give_up,
};

/* Armed: the main thread is about to load the recording filter. After its
 * load it makes no call before the listener is ours (each would wait for us),
 * so we look for it rather than wait to be woken. */
static void wait_for_listener(void)
{
        for (;;) {
                int32_t fd = __atomic_load_n(&listener, __ATOMIC_ACQUIRE);
                if (fd >= 0)
                        init_listener_serve(fd, &record_listener);
                if (fd == LISTENER_FAILED) {
                        __atomic_store_n(&recorder.command, INIT_WORKER_IDLE, __ATOMIC_RELEASE);
                        return;
                }
                struct timespec ts = { .tv_sec = 0, .tv_nsec = POLL_NS };
                (void)init_futex_wait((uint32_t *)&listener, (uint32_t)LISTENER_WAITING, &ts);
        }
}

/* Whether a filter returns TRACE anywhere: the recording's USER_NOTIF takes
 * precedence over it, so the tracer would never see the calls it asked for. */
static long find_trace(const struct sock_filter *prog, size_t len)
{
        for (size_t i = 0; i < len; i++)
                if (prog[i].code == (BPF_RET | BPF_K) && (prog[i].k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_TRACE)
                        return (long)i;
        return -1;
}

/* The kernel's part, asked before anything is loaded. */
static int probe_kernel(const struct init_filter *f)
{
        uint32_t action = SECCOMP_RET_USER_NOTIF;

        if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) < 0) {
                init_log(f->name,
                         "the kernel does not offer SECCOMP_RET_USER_NOTIF: %s (Linux 5.5 or later is "
                         "needed to record)",
                         init_strerror(errno));
                return INIT_EXIT_KERNEL;
        }
        /* A NULL program stops the kernel right after its flag checks (EFAULT). */
        uint32_t flags = f->flags | SECCOMP_FILTER_FLAG_NEW_LISTENER;
        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, NULL) == 0 || errno != EFAULT) {
                init_log(f->name,
                         "the kernel refuses flags 0x%x (SECCOMP_FILTER_FLAG_NEW_LISTENER and the filter's) "
                         "without TSYNC: %s (Linux 5.5 or later is needed to record)",
                         flags, init_strerror(errno));
                return INIT_EXIT_KERNEL;
        }
        return 0;
}

/* The record file as an fd (the path's, or the relay's): a regular file,
 * emptied, with the magic line. */
static int use_fd(const char *path, int fd)
{
        struct stat st;

        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                init_log(path, "cannot record into it: not a regular file");
                (void)close(fd);
                return INIT_EXIT_CANNOT_EXEC;
        }
        size_t mlen = sizeof(TSYNC_RECORD_MAGIC) - 1;
        if (ftruncate(fd, 0) < 0 || pwrite(fd, TSYNC_RECORD_MAGIC, mlen, 0) != (ssize_t)mlen) {
                init_log(path, "cannot write the record file: %s", errno ? init_strerror(errno) : "short write");
                (void)close(fd);
                return INIT_EXIT_CANNOT_EXEC;
        }
        record_fd = fd;
        record_end = (off_t)mlen;
        return 0;
}

static int open_file(const char *path)
{

        /* O_NONBLOCK: a FIFO planted there must be refused, not block the
         * init in open; O_NOCTTY: nor may a terminal become ours. */
        int fd = init_open_no_symlinks(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY, 0644);
        if (fd == -ELOOP) {
                init_log(path, "cannot open the record file: a symbolic link in its path");
                return INIT_EXIT_CANNOT_EXEC;
        }
        if (fd == -EINVAL) {
                init_log(path, "cannot open the record file: the path has a '..' component or one longer than 255 "
                               "bytes");
                return INIT_EXIT_CANNOT_EXEC;
        }
        /* ENXIO: a FIFO without a reader (or a device without its driver). */
        if (fd == -ENXIO) {
                init_log(path, "cannot record into it: not a regular file");
                return INIT_EXIT_CANNOT_EXEC;
        }
        if (fd < 0) {
                init_log(path, "cannot open the record file: %s", init_strerror(-fd));
                return INIT_EXIT_CANNOT_EXEC;
        }
        return use_fd(path, fd);
}

int init_record_prepare(const char *path, bool relay, const struct init_filter *filters, size_t n)
{
        const struct init_filter *found = NULL;

        for (size_t i = 0; i < n; i++)
                if (filters[i].listener == TSYNC_LISTENER_RECORD)
                        found = &filters[i];
        if (path && !found) {
                init_log("record", "--record is given, but no filter is a recording filter");
                return INIT_EXIT_FILTER;
        }
        if (!path && !(found && relay)) {
                if (found) {
                        init_log(found->name, "a recording filter, but --record is not given: nobody would answer "
                                              "its notifications");
                        return INIT_EXIT_FILTER;
                }
                return 0;
        }
        /* Without a path the relay hands the file over (init_agent_connect);
         * the command line never has both (init_args.c). */
        if (!path)
                path = "record";
        from_relay = relay;
        for (size_t i = 0; i < n; i++) {
                long at = find_trace(filters[i].prog, filters[i].len);
                if (at >= 0) {
                        init_log(filters[i].name,
                                 "instruction %ld returns SECCOMP_RET_TRACE, which cannot be recorded: the "
                                 "recording's USER_NOTIF takes precedence, and the tracer would never see the call",
                                 at);
                        return INIT_EXIT_FILTER;
                }
        }
        main_tid = getpid();
        record_path = path;
        return probe_kernel(found);
}

int init_record_open(void)
{
        if (!record_path)
                return 0;
        if (!from_relay)
                return open_file(record_path);
        int fd = init_agent_record_fd();
        if (fd < 0) {
                init_log(record_path, "the relay of the createRuntime hook sent no record file");
                return INIT_EXIT_CANNOT_EXEC;
        }
        return use_fd("the record file from the relay", fd);
}

bool init_record_active(void)
{
        return record_path != NULL;
}

int init_record_start(void)
{
        return init_worker_start(&recorder);
}

pid_t init_record_tid(void)
{
        return init_worker_tid(&recorder);
}

int init_record_run(void (*fn)(void *arg), void *arg)
{
        return init_worker_run(&recorder, fn, arg);
}

int init_record_load(const struct init_filter *f)
{
        struct sock_fprog fprog = { .len = (unsigned short)f->len, .filter = (struct sock_filter *)f->prog };

        if (init_record_tid() <= 0) {
                init_log("record", "the recorder thread is not running");
                return INIT_EXIT_CANNOT_EXEC;
        }
        __atomic_store_n(&listener, LISTENER_WAITING, __ATOMIC_RELEASE);
        init_worker_command(&recorder, INIT_WORKER_SERVE);
        long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, f->flags | SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
        if (r < 0) {
                int e = errno;
                __atomic_store_n(&listener, LISTENER_FAILED, __ATOMIC_RELEASE);
                init_futex_wake((uint32_t *)&listener);
                init_log(f->name, "the kernel refused the recording filter: %s%s", init_strerror(e),
                         e == EACCES ? " (no NO_NEW_PRIVS and no CAP_SYS_ADMIN)" : "");
                return INIT_EXIT_KERNEL;
        }
        /* No system call from here until the recorder holds the listener:
         * this thread's calls now wait for its answers. */
        __atomic_store_n(&listener, (int32_t)r, __ATOMIC_RELEASE);
        return 0;
}

void init_record_workload(pid_t pid)
{
        if (pid > 0)
                __atomic_store_n(&workload, pid, __ATOMIC_RELEASE);
}

void init_record_abandon(void)
{
        if (record_fd >= 0 && __atomic_load_n(&workload, __ATOMIC_ACQUIRE) == 0)
                (void)ftruncate(record_fd, 0);
}

bool init_record_gave_up(void)
{
        return __atomic_load_n(&gave_up, __ATOMIC_ACQUIRE);
}
