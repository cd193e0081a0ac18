#include "shared/init_calls.h"

#include <errno.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "shared/bpf.h"
#include "shared/filterfile.h"

#define SUPERVISE (1u << TSYNC_ROUTE_SUPERVISE)
#define IN_PLACE  (1u << TSYNC_ROUTE_IN_PLACE)
#define BOTH      (SUPERVISE | IN_PLACE)
#define NEG1      UINT64_MAX /* -1 as a register holds it */

/* The clone flags of a thread: glibc's (when clone3 is ENOSYS), and musl's,
 * which adds the kernel-ignored CLONE_DETACHED. */
#define THREAD_FLAGS                                                                                                   \
        (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |             \
         CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)
#define MUSL_THREAD_FLAGS (THREAD_FLAGS | CLONE_DETACHED)

/* What the init does after its first filter (hook/init: flow.c, proof.c,
 * caps.c, run.c, signals.c), with the arguments it passes where a profile may
 * look at them. Everything else happens before: the status files the proof
 * reads are opened then. Keep it in step with the init. */
const struct tsync_init_call tsync_init_calls[] = {
        /* Before the load, under the runtime's profile only. The signal
         * thread's start, as either libc makes it: glibc's pthread_create
         * with clone3, or clone where clone3 is ENOSYS (stack_answer); musl's
         * (the init's libc unless built with musl_init=0) with clone. */
        { "clone3",
          SYS_clone3,
          { 0 },
          SUPERVISE,
          TSYNC_CALL_BEFORE_LOAD | TSYNC_CALL_THREAD,
          "start its signal thread" },
        { "clone",
          SYS_clone,
          { MUSL_THREAD_FLAGS },
          SUPERVISE,
          TSYNC_CALL_BEFORE_LOAD | TSYNC_CALL_THREAD,
          "start its signal thread" },
        { "getdents64", SYS_getdents64, { 0 }, SUPERVISE, TSYNC_CALL_BEFORE_LOAD, "list its threads for the proof" },
        { "openat", SYS_openat, { 0 }, BOTH, TSYNC_CALL_BEFORE_LOAD, "open the /proc files its proof reads" },
        { "socket",
          SYS_socket,
          { AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0 },
          BOTH,
          TSYNC_CALL_BEFORE_LOAD | TSYNC_CALL_AGENT,
          "reach createRuntime's relay to the seccomp agent" },
        { "connect",
          SYS_connect,
          { 0 },
          BOTH,
          TSYNC_CALL_BEFORE_LOAD | TSYNC_CALL_AGENT,
          "reach createRuntime's relay to the seccomp agent" },
        { "recvmsg",
          SYS_recvmsg,
          { 0, 0, MSG_CMSG_CLOEXEC },
          BOTH,
          TSYNC_CALL_BEFORE_LOAD | TSYNC_CALL_AGENT,
          "wait until the relay accepted it" },
        { "socket",
          SYS_socket,
          { AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0 },
          SUPERVISE,
          TSYNC_CALL_BEFORE_LOAD | TSYNC_CALL_RECORD,
          "reach createRuntime's relay for the record file" },
        { "connect",
          SYS_connect,
          { 0 },
          SUPERVISE,
          TSYNC_CALL_BEFORE_LOAD | TSYNC_CALL_RECORD,
          "reach createRuntime's relay for the record file" },
        { "recvmsg",
          SYS_recvmsg,
          { 0, 0, MSG_CMSG_CLOEXEC },
          SUPERVISE,
          TSYNC_CALL_BEFORE_LOAD | TSYNC_CALL_RECORD,
          "receive the record file from the relay" },
        /* After it. */
        { "seccomp",
          SYS_seccomp,
          { SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC },
          BOTH,
          TSYNC_CALL_MORE_FILTERS,
          "load the next filter" },
        { "read", SYS_read, { 0 }, BOTH, TSYNC_CALL_ALWAYS, "prove every thread carries the filters" },
        { "capset", SYS_capset, { 0 }, BOTH, TSYNC_CALL_CAPS_AFTER, "drop the capabilities lent for the load" },
        { "prctl",
          SYS_prctl,
          { PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL },
          BOTH,
          TSYNC_CALL_CAPS_AFTER,
          "set the ambient capabilities" },
        /* run.c's spawn, with libc's clone() (glibc's and musl's), which never tries clone3. */
        { "clone",
          SYS_clone,
          { CLONE_VM | CLONE_VFORK | CLONE_PARENT_SETTID | SIGCHLD },
          SUPERVISE,
          TSYNC_CALL_ALWAYS,
          "start the workload as a child" },
        { "rt_sigprocmask",
          SYS_rt_sigprocmask,
          { SIG_SETMASK },
          BOTH,
          TSYNC_CALL_ALWAYS,
          "unblock signals for the workload" },
        { "execve", SYS_execve, { 0 }, BOTH, TSYNC_CALL_WORKLOAD_EXEC, "run the workload" },
        { "wait4",
          SYS_wait4,
          { NEG1, 0, __WALL },
          SUPERVISE,
          TSYNC_CALL_WORKLOAD_RUNS,
          "reap the workload and orphans" },
        { "rt_sigtimedwait", SYS_rt_sigtimedwait, { 0 }, SUPERVISE, TSYNC_CALL_WORKLOAD_RUNS, "forward signals" },
        { "kill", SYS_kill, { 0 }, SUPERVISE, TSYNC_CALL_WORKLOAD_RUNS, "forward signals" },
        { "exit_group", SYS_exit_group, { 0 }, SUPERVISE, TSYNC_CALL_WORKLOAD_RUNS, "exit with the workload's status" },
        /* The exec-once supervisor (init/execonce.c); the listener's fd is not
         * known here, only the request. */
        { "futex",
          SYS_futex,
          { 0, FUTEX_WAIT_PRIVATE },
          SUPERVISE,
          TSYNC_CALL_EXEC_ONCE,
          "wait for the listener and the workload's pid (exec-once)" },
        { "futex",
          SYS_futex,
          { 0, FUTEX_WAKE_PRIVATE },
          SUPERVISE,
          TSYNC_CALL_EXEC_ONCE,
          "hand the listener and the workload's pid to its supervisor (exec-once)" },
        { "ioctl",
          SYS_ioctl,
          { 0, SECCOMP_IOCTL_NOTIF_RECV },
          SUPERVISE,
          TSYNC_CALL_EXEC_ONCE,
          "receive exec notifications (exec-once)" },
        { "ioctl",
          SYS_ioctl,
          { 0, SECCOMP_IOCTL_NOTIF_ID_VALID },
          SUPERVISE,
          TSYNC_CALL_EXEC_ONCE,
          "check an exec notification (exec-once)" },
        { "ioctl",
          SYS_ioctl,
          { 0, SECCOMP_IOCTL_NOTIF_SEND },
          SUPERVISE,
          TSYNC_CALL_EXEC_ONCE,
          "answer exec notifications (exec-once)" },
        /* agent.c: the agent filter's listener to its agent (listenerPath),
         * right after that filter's load. The hand-over's two calls run while
         * the listener is the init's alone; from the relay's answer on, the
         * agent answers (flow.c). */
        { "sendmsg",
          SYS_sendmsg,
          { 0, 0, MSG_NOSIGNAL },
          BOTH,
          TSYNC_CALL_AGENT | TSYNC_CALL_HANDOVER,
          "send the relay the seccomp agent's listener" },
        { "close_range",
          SYS_close_range,
          { 0, 0, 0 },
          BOTH,
          TSYNC_CALL_AGENT | TSYNC_CALL_HANDOVER,
          "close its copy of the agent's listener" },
        { "recvmsg", SYS_recvmsg, { 0 }, BOTH, TSYNC_CALL_AGENT, "read the relay's answer" },
        { "close", SYS_close, { 0 }, BOTH, TSYNC_CALL_AGENT, "close its connection to the relay" },
        /* init/recorder.c: the recording filter and its recorder thread. */
        { "seccomp",
          SYS_seccomp,
          { SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER },
          SUPERVISE,
          TSYNC_CALL_RECORD | TSYNC_CALL_MORE_FILTERS,
          "load the recording filter" },
        { "futex",
          SYS_futex,
          { 0, FUTEX_WAKE_PRIVATE },
          SUPERVISE,
          TSYNC_CALL_RECORD,
          "wake its recorder thread before loading the recording filter" },
        { "futex",
          SYS_futex,
          { 0, FUTEX_WAIT_PRIVATE },
          SUPERVISE,
          TSYNC_CALL_RECORD,
          "wait for the recording filter's listener (recording)" },
        { "ioctl",
          SYS_ioctl,
          { 0, SECCOMP_IOCTL_NOTIF_RECV },
          SUPERVISE,
          TSYNC_CALL_RECORD,
          "receive the workload's calls (recording)" },
        { "ioctl",
          SYS_ioctl,
          { 0, SECCOMP_IOCTL_NOTIF_SEND },
          SUPERVISE,
          TSYNC_CALL_RECORD,
          "let the workload's calls go on (recording)" },
        { "pwrite64", SYS_pwrite64, { 0 }, SUPERVISE, TSYNC_CALL_RECORD, "append to the record file (recording)" },
        { "ftruncate",
          SYS_ftruncate,
          { 0 },
          SUPERVISE,
          TSYNC_CALL_RECORD,
          "empty the record file when a write fails (recording)" },
};
const size_t tsync_init_ncalls = sizeof(tsync_init_calls) / sizeof(tsync_init_calls[0]);

const char *tsync_init_route_name(enum tsync_init_route route)
{
        switch (route) {
        case TSYNC_ROUTE_SUPERVISE:
                return "supervise";
        case TSYNC_ROUTE_IN_PLACE:
                return "in place";
        case TSYNC_ROUTE_NONE:
                break;
        }
        return "none";
}

const char *tsync_init_route_explain(const char *who, const struct tsync_init_call *denied, uint32_t action,
                                     bool and_clause, char *buf, size_t size)
{
        char answer[32];

        tsync_bpf_ret_name(action, answer, sizeof(answer));
        (void)snprintf(buf, size,
                       and_clause ? "%s %s with %s, and the init needs it to %s"
                                  : "%s %s with %s, which the init needs to %s",
                       who, denied->name, answer, denied->why);
        return buf;
}

#ifdef TSYNC_NATIVE_AUDIT_ARCH

/* Whether a USER_NOTIF of a program with listener is answered when the init
 * makes a call of when: the recorder answers every call (CONTINUE), the
 * exec-once supervisor the workload's execve alone, the agent every call from
 * the hand-over to the workload's start (it holds the listener; later, its
 * failure could only break the supervision); nobody answers an unmarked
 * program. */
static bool notify_answered(uint32_t listener, unsigned when)
{
        switch (listener) {
        case TSYNC_LISTENER_RECORD:
                return true;
        case TSYNC_LISTENER_EXEC_ONCE:
                return (when & TSYNC_CALL_WORKLOAD_EXEC) != 0;
        case TSYNC_LISTENER_AGENT:
                return !(when & (TSYNC_CALL_HANDOVER | TSYNC_CALL_BEFORE_LOAD | TSYNC_CALL_WORKLOAD_RUNS));
        default:
                return false;
        }
}

/* The most restrictive answer of the stack to nr with args, as the kernel
 * picks it: the lowest action wins; ALLOW and LOG let the call through. */
static int answer_of(const struct tsync_stack_prog *progs, size_t n, long nr, const uint64_t args[6], unsigned when,
                     uint32_t *ret, struct tsync_err *err)
{
        struct tsync_bpf_input in = { .nr = (int32_t)nr, .arch = TSYNC_NATIVE_AUDIT_ARCH };
        uint32_t worst = SECCOMP_RET_ALLOW;

        for (size_t i = 0; i < 6; i++)
                in.args[i] = args[i];
        for (size_t i = 0; i < n; i++) {
                struct tsync_bpf_result res;
                int r = tsync_bpf_simulate_valid(progs[i].insns, progs[i].len, &in, &res, err);
                if (r < 0)
                        return tsync_error_prefix(err, "filter %zu", i + 1);
                /* Answered (the supervisor's one CONTINUE, the agent's answer,
                 * the recorder's CONTINUE): the other filters still judge the
                 * call. */
                if (notify_answered(progs[i].listener, when) &&
                    (res.ret & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF)
                        res.ret = SECCOMP_RET_ALLOW;
                if ((int32_t)(res.ret & SECCOMP_RET_ACTION_FULL) < (int32_t)(worst & SECCOMP_RET_ACTION_FULL))
                        worst = res.ret;
        }
        *ret = worst;
        return 0;
}

static bool lets_through(uint32_t ret)
{
        uint32_t action = ret & SECCOMP_RET_ACTION_FULL;
        return action == SECCOMP_RET_ALLOW || action == SECCOMP_RET_LOG;
}

static int stack_answer(const struct tsync_stack_prog *progs, size_t n, const struct tsync_init_call *c, uint32_t *ret,
                        struct tsync_err *err)
{
        int r = answer_of(progs, n, c->nr, c->args, c->when, ret, err);
        /* glibc falls back to clone when clone3 is ENOSYS (Docker's and Podman's profiles). */
        if (r == 0 && c->nr == SYS_clone3 && (c->when & TSYNC_CALL_THREAD) && *ret == (SECCOMP_RET_ERRNO | ENOSYS)) {
                const uint64_t args[6] = { THREAD_FLAGS };
                r = answer_of(progs, n, SYS_clone, args, c->when, ret, err);
        }
        return r;
}

static bool has_listener(const struct tsync_stack_prog *progs, size_t n, uint32_t listener)
{
        for (size_t i = 0; i < n; i++)
                if (progs[i].listener == listener)
                        return true;
        return false;
}

/* The programs loaded up to and including the agent's (its hand-over comes
 * right after its load), or n. */
static size_t up_to_agent(const struct tsync_stack_prog *progs, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (progs[i].listener == TSYNC_LISTENER_AGENT)
                        return i + 1;
        return n;
}

static bool has_exec_once(const struct tsync_stack_prog *progs, size_t n)
{
        return has_listener(progs, n, TSYNC_LISTENER_EXEC_ONCE);
}

/* The first call of route the stack refuses, or NULL. */
static int first_refused(const struct tsync_stack_prog *progs, size_t n, size_t n_before, bool caps_after,
                         enum tsync_init_route route, const struct tsync_init_call **ret, uint32_t *ret_action,
                         struct tsync_err *err)
{
        bool exec_once = has_exec_once(progs, n), agent = has_listener(progs, n, TSYNC_LISTENER_AGENT);
        bool record = has_listener(progs, n, TSYNC_LISTENER_RECORD);
        for (size_t i = 0; i < tsync_init_ncalls; i++) {
                const struct tsync_init_call *c = &tsync_init_calls[i];
                uint32_t answer = SECCOMP_RET_ALLOW;
                size_t judges = n;
                if (!(c->routes & (1u << route)) || ((c->when & TSYNC_CALL_CAPS_AFTER) && !caps_after) ||
                    ((c->when & TSYNC_CALL_EXEC_ONCE) && !exec_once) || ((c->when & TSYNC_CALL_AGENT) && !agent) ||
                    ((c->when & TSYNC_CALL_RECORD) && !record))
                        continue;
                /* The last filter is loaded under all the others, never under
                 * itself; the recording program, the last, is loaded without
                 * TSYNC (its own entry), so the TSYNC loads end one earlier. */
                if (c->when & TSYNC_CALL_MORE_FILTERS) {
                        size_t loaded = record && !(c->when & TSYNC_CALL_RECORD) ? n - 1 : n;
                        if (loaded < 2)
                                continue;
                        judges = loaded - 1;
                }
                if (c->when & TSYNC_CALL_HANDOVER)
                        judges = up_to_agent(progs, n);
                if (c->when & TSYNC_CALL_BEFORE_LOAD) {
                        if (n_before == 0)
                                continue;
                        judges = n_before;
                }
                int r = stack_answer(progs, judges, c, &answer, err);
                if (r < 0)
                        return r;
                if (!lets_through(answer)) {
                        *ret = c;
                        *ret_action = answer;
                        return 0;
                }
        }
        *ret = NULL;
        return 0;
}

int tsync_init_route(const struct tsync_stack_prog *progs, size_t n, size_t n_before, bool caps_after,
                     enum tsync_init_route *ret_route, const struct tsync_init_call **ret_denied, uint32_t *ret_action,
                     struct tsync_err *err)
{
        const struct tsync_init_call *supervise, *in_place;
        uint32_t supervise_action = SECCOMP_RET_ALLOW, in_place_action = SECCOMP_RET_ALLOW;

        /* Each program once here, not at each of the many calls judged. */
        for (size_t i = 0; i < n; i++)
                if (tsync_bpf_validate(progs[i].insns, progs[i].len, err) < 0)
                        return tsync_error_prefix(err, "filter %zu", i + 1);
        int r = first_refused(progs, n, n_before, caps_after, TSYNC_ROUTE_SUPERVISE, &supervise, &supervise_action,
                              err);
        if (r < 0)
                return r;
        if (!supervise) {
                *ret_route = TSYNC_ROUTE_SUPERVISE;
                *ret_denied = NULL;
                *ret_action = SECCOMP_RET_ALLOW;
                return 0;
        }
        /* Exec once: nobody could tell the workload's start from a later
         * exec in place. Recording: nobody would answer the workload's calls. */
        if (has_exec_once(progs, n) || has_listener(progs, n, TSYNC_LISTENER_RECORD)) {
                *ret_route = TSYNC_ROUTE_NONE;
                *ret_denied = supervise;
                *ret_action = supervise_action;
                return 0;
        }
        r = first_refused(progs, n, n_before, caps_after, TSYNC_ROUTE_IN_PLACE, &in_place, &in_place_action, err);
        if (r < 0)
                return r;
        *ret_route = in_place ? TSYNC_ROUTE_NONE : TSYNC_ROUTE_IN_PLACE;
        *ret_denied = in_place ? in_place : supervise;
        *ret_action = in_place ? in_place_action : supervise_action;
        return 0;
}
#else
int tsync_init_route(const struct tsync_stack_prog *progs, size_t n, size_t n_before, bool caps_after,
                     enum tsync_init_route *ret_route, const struct tsync_init_call **ret_denied, uint32_t *ret_action,
                     struct tsync_err *err)
{
        (void)progs, (void)n, (void)n_before, (void)caps_after, (void)ret_route, (void)ret_denied, (void)ret_action;
        return tsync_error(err, EOPNOTSUPP, "the init's calls are not known for this architecture");
}
#endif
