/* The init's route under a stack of filters: the profiles runc's and crun's own
 * seccomp tests run, compiled by us and simulated against the calls the init
 * makes after its load. Each answer is also checked against the real kernel:
 * the call that decides the route is made by a child under the compiled stack. */
#include <errno.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/filterfile.h"
#include "shared/init_calls.h"
#include "tap.h"
#include "translate/compile.h"
#include "translate/source.h"

/* A profile's JSON text, or "@path" for a file under the source tree. */
static struct tsync_program *compile_text(const char *text)
{
        struct tsync_err err = { 0 };
        struct tsync_source_opts so = { .format = TSYNC_FORMAT_AUTO };
        struct tsync_source_info info;
        _cleanup_json_ struct tsync_json *doc = NULL;
        _cleanup_profile_ struct tsync_profile *p = NULL;
        struct tsync_program *prog = NULL;
        struct tsync_compile_opts co = { 0 };
        struct tsync_warnings w = { 0 };
        char path[4096];
        int r;

        if (text[0] == '@') {
                (void)snprintf(path, sizeof(path), "%s/%s", getenv("TSYNC_TOP") ? getenv("TSYNC_TOP") : ".", text + 1);
                r = tsync_source_load(path, &so, &p, &info, &err);
        } else {
                r = tsync_json_parse(text, strlen(text), NULL, &doc, &err);
                if (r == 0)
                        r = tsync_source_from_json(doc, &so, &p, &info, &err);
        }
        if (r < 0 || tsync_compile(p, &co, &prog, &w, &err) < 0) {
                tap_diag("compile: %s", err.msg);
                return NULL;
        }
        tsync_warnings_clear(&w);
        return prog;
}

/* Whether the kernel lets call c through a child that loads progs (-1: could not tell). */
static int kernel_lets_through(struct tsync_program *const *progs, size_t n, const struct tsync_init_call *c)
{
        pid_t pid = fork();
        if (pid < 0)
                return -1;
        if (pid == 0) {
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                        _exit(3);
                for (size_t i = 0; i < n; i++) {
                        struct sock_fprog f = { .len = (unsigned short)progs[i]->len, .filter = progs[i]->insns };
                        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &f) < 0)
                                _exit(3);
                }
                /* Only calls that are harmless here: the ones that would act get args that fail. */
                long r = syscall(c->nr, c->nr == SYS_execve ? 0 : c->args[0], c->nr == SYS_clone ? 0 : c->args[1],
                                 c->args[2], c->args[3], c->args[4], c->args[5]);
                _exit(r < 0 && (errno == EPERM || errno == 6 || errno == ENOSYS) ? 1 : 0);
        }
        int st;
        if (waitpid(pid, &st, 0) != pid)
                return -1;
        if (WIFSIGNALED(st))
                return 0; /* KILL actions */
        return WIFEXITED(st) && WEXITSTATUS(st) <= 1 ? WEXITSTATUS(st) == 0 : -1;
}

struct row {
        const char *name;
        const char *profiles[2];
        bool caps_after;
        enum tsync_init_route route;
        const char *denied; /* NULL for SUPERVISE */
        size_t n_before;    /* the first profiles are the runtime's own, in place before the init starts */
};

/* runc's tests/integration/testdata errnoRet-style allow-list: no clone. */
#define ALLOW_LIST_NO_CLONE                                                                                            \
        "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"defaultErrnoRet\":6,\"syscalls\":[{\"names\":[\"read\","              \
        "\"write\",\"openat\",\"getdents64\",\"close\",\"execve\",\"rt_sigprocmask\",\"exit_group\",\"brk\","          \
        "\"mmap\",\"arch_prctl\",\"set_tid_address\",\"capset\",\"prctl\"],\"action\":\"SCMP_ACT_ALLOW\"}]}"
/* crun's test_seccomp_errno_default list: no clone, no getdents64. */
#define CRUN_ERRNO_DEFAULT                                                                                             \
        "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"defaultErrnoRet\":1,\"syscalls\":[{\"names\":[\"read\","              \
        "\"write\",\"exit\",\"exit_group\",\"rt_sigreturn\",\"brk\",\"mmap\",\"munmap\",\"mprotect\","                 \
        "\"arch_prctl\",\"set_tid_address\",\"set_robust_list\",\"rseq\",\"prlimit64\",\"futex\",\"getrandom\","       \
        "\"close\",\"execve\",\"openat\",\"newfstatat\",\"fstat\",\"access\",\"readlink\",\"getuid\",\"getgid\","      \
        "\"geteuid\",\"getegid\",\"prctl\",\"uname\",\"readlinkat\",\"fcntl\",\"dup\",\"dup2\",\"dup3\",\"lseek\","    \
        "\"ioctl\",\"getcwd\",\"chdir\",\"rt_sigaction\",\"rt_sigprocmask\",\"sigaltstack\",\"clock_gettime\","        \
        "\"gettid\",\"tgkill\",\"getpid\",\"getppid\",\"wait4\"],\"action\":\"SCMP_ACT_ALLOW\"}]}"
#define DENY(call)                                                                                                     \
        "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[\"" call "\"],"                               \
        "\"action\":\"SCMP_ACT_ERRNO\"}]}"
/* clone with CLONE_THREAD (0x10000) set: EPERM; any other clone, and clone3, allowed. */
#define DENY_CLONE_THREAD                                                                                              \
        "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[\"clone\"],\"action\":"                       \
        "\"SCMP_ACT_ERRNO\",\"args\":[{\"index\":0,\"value\":65536,\"valueTwo\":65536,"                                \
        "\"op\":\"SCMP_CMP_MASKED_EQ\"}]}]}"
#define KILL_DEFAULT_NO_GETDENTS                                                                                       \
        "{\"defaultAction\":\"SCMP_ACT_KILL\",\"syscalls\":[{\"names\":[\"read\",\"write\",\"openat\",\"close\","      \
        "\"execve\",\"clone\",\"wait4\",\"rt_sigprocmask\",\"rt_sigtimedwait\",\"kill\",\"exit_group\"],"              \
        "\"action\":\"SCMP_ACT_ALLOW\"}]}"

static const struct row rows[] = {
        { "allow-all", { "{\"defaultAction\":\"SCMP_ACT_ALLOW\"}" }, false, TSYNC_ROUTE_SUPERVISE, NULL, 0 },
        { "deny-namespaces' clone rule lets fork through",
          { "@configs/profiles/deny-namespaces.json" },
          false,
          TSYNC_ROUTE_SUPERVISE,
          NULL,
          0 },
        { "allow-list without clone", { ALLOW_LIST_NO_CLONE }, false, TSYNC_ROUTE_IN_PLACE, "clone", 0 },
        { "crun's errno-default list", { CRUN_ERRNO_DEFAULT }, false, TSYNC_ROUTE_IN_PLACE, "clone", 0 },
        { "KILL_THREAD default without getdents64",
          { KILL_DEFAULT_NO_GETDENTS },
          false,
          TSYNC_ROUTE_SUPERVISE,
          NULL,
          0 },
        { "read denied", { DENY("read") }, false, TSYNC_ROUTE_NONE, "read", 0 },
        { "wait4 denied in the second filter",
          { "{\"defaultAction\":\"SCMP_ACT_ALLOW\"}", DENY("wait4") },
          false,
          TSYNC_ROUTE_IN_PLACE,
          "wait4",
          0 },
        { "execve denied", { DENY("execve") }, false, TSYNC_ROUTE_NONE, "execve", 0 },
        { "capset denied, NO_NEW_PRIVS", { DENY("capset") }, false, TSYNC_ROUTE_SUPERVISE, NULL, 0 },
        { "capset denied, caps after the load", { DENY("capset") }, true, TSYNC_ROUTE_NONE, "capset", 0 },
        { "kill denied", { DENY("kill") }, false, TSYNC_ROUTE_IN_PLACE, "kill", 0 },
        { "seccomp denied, one filter", { DENY("seccomp") }, false, TSYNC_ROUTE_SUPERVISE, NULL, 0 },
        { "seccomp denied by the first of two",
          { DENY("seccomp"), "{\"defaultAction\":\"SCMP_ACT_ALLOW\"}" },
          false,
          TSYNC_ROUTE_NONE,
          "seccomp",
          0 },
        { "a runtime's profile without getdents64",
          { DENY("getdents64"), "{\"defaultAction\":\"SCMP_ACT_ALLOW\"}" },
          false,
          TSYNC_ROUTE_IN_PLACE,
          "getdents64",
          1 },
        { "getdents64 denied by a layer only",
          { "{\"defaultAction\":\"SCMP_ACT_ALLOW\"}", DENY("getdents64") },
          false,
          TSYNC_ROUTE_SUPERVISE,
          NULL,
          1 },
        { "a runtime's profile: clone3 ENOSYS, clone allowed",
          { "@configs/profiles/deny-namespaces.json" },
          false,
          TSYNC_ROUTE_SUPERVISE,
          NULL,
          1 },
        { "a runtime's profile: clone3 EPERM", { DENY("clone3") }, false, TSYNC_ROUTE_IN_PLACE, "clone3", 1 },
        /* musl's pthread_create makes clone with a thread's flags (the init's
         * default libc); run.c's spawn, without CLONE_THREAD, is let through. */
        { "a runtime's profile: clone with CLONE_THREAD EPERM, clone3 allowed",
          { DENY_CLONE_THREAD },
          false,
          TSYNC_ROUTE_IN_PLACE,
          "clone",
          1 },
        { "seccomp denied by the last of two",
          { "{\"defaultAction\":\"SCMP_ACT_ALLOW\"}", DENY("seccomp") },
          false,
          TSYNC_ROUTE_SUPERVISE,
          NULL,
          0 },
};

static void test_init_calls_route(const struct row *row)
{
        struct tsync_program *progs[2] = { NULL, NULL };
        struct tsync_stack_prog stack[2];
        size_t n = 0;
        struct tsync_err err = { 0 };

        for (; n < 2 && row->profiles[n]; n++) {
                progs[n] = compile_text(row->profiles[n]);
                if (!progs[n]) {
                        tap_ok(0, "test_init_calls_route %s: compiles", row->name);
                        goto out;
                }
                stack[n] = (struct tsync_stack_prog){ .insns = progs[n]->insns, .len = progs[n]->len };
        }
        enum tsync_init_route route;
        const struct tsync_init_call *denied;
        uint32_t action;
        int r = tsync_init_route(stack, n, row->n_before, row->caps_after, &route, &denied, &action, &err);
        tap_ok(r == 0 && route == row->route, "test_init_calls_route %s: %s (got %s%s%s)", row->name,
               tsync_init_route_name(row->route), r < 0 ? err.msg : tsync_init_route_name(route),
               denied ? ", denied " : "", denied ? denied->name : "");
        tap_ok(r == 0 && (row->denied ? denied && strcmp(denied->name, row->denied) == 0 : !denied),
               "test_init_calls_route %s: names %s", row->name, row->denied ? row->denied : "no call");
        if (r == 0 && denied) {
                /* The next filter is loaded under the ones before it only. */
                size_t judges = denied->when & TSYNC_CALL_MORE_FILTERS  ? n - 1
                                : denied->when & TSYNC_CALL_BEFORE_LOAD ? row->n_before
                                                                        : n;
                int k = kernel_lets_through(progs, judges, denied);
                tap_ok(k == 0, "test_init_calls_route %s: the kernel refuses %s too (%d)", row->name, denied->name, k);
        }
out:
        for (size_t i = 0; i < 2; i++)
                tsync_program_free(progs[i]);
}

static void test_init_calls_table_is_native(void)
{
        bool ok = tsync_init_ncalls > 0;
        for (size_t i = 0; i < tsync_init_ncalls; i++)
                ok = ok && tsync_init_calls[i].nr >= 0 && tsync_init_calls[i].routes != 0 && tsync_init_calls[i].why;
        tap_ok(ok, "test_init_calls_table_is_native: every call has a number, a route and a reason");
}

static const struct tsync_init_call *call_named(const char *name)
{
        for (size_t i = 0; i < tsync_init_ncalls; i++)
                if (strcmp(tsync_init_calls[i].name, name) == 0)
                        return &tsync_init_calls[i];
        return NULL;
}

/* run.c's spawn: the clone entry with CLONE_VFORK (the other one starts a thread). */
static const struct tsync_init_call *spawn_clone(void)
{
        for (size_t i = 0; i < tsync_init_ncalls; i++)
                if (tsync_init_calls[i].nr == SYS_clone && (tsync_init_calls[i].args[0] & CLONE_VFORK))
                        return &tsync_init_calls[i];
        return NULL;
}

/* The words the init, check and inject print (tests/integration grep them). */
static void test_init_calls_explain(void)
{
        const struct tsync_init_call *clone = spawn_clone(), *execve = call_named("execve");
        char buf[256], small[10];

        if (!clone || !execve) {
                tap_ok(0, "test_init_calls_explain: clone and execve are in the table");
                return;
        }
        const char *got =
                tsync_init_route_explain("the profile answers", clone, SECCOMP_RET_ERRNO | 6, false, buf, sizeof(buf));
        tap_ok(got == buf && strcmp(buf, "the profile answers clone with ERRNO(6), which the init needs to start "
                                         "the workload as a child") == 0,
               "test_init_calls_explain: which-clause (got '%s')", buf);
        tsync_init_route_explain("the filters answer", execve, SECCOMP_RET_KILL_PROCESS, true, buf, sizeof(buf));
        tap_ok(strcmp(buf, "the filters answer execve with KILL_PROCESS, and the init needs it to run the workload") ==
                       0,
               "test_init_calls_explain: and-clause (got '%s')", buf);
        tsync_init_route_explain("the filters answer", execve, SECCOMP_RET_ERRNO | 1, false, small, sizeof(small));
        tap_ok(strcmp(small, "the filte") == 0, "test_init_calls_explain: cut at the buffer's size (got '%s')", small);
}

/* One row of the listener tables below: notify_text (a program whose
 * USER_NOTIF has listener) loaded after other_text (or alone), and the route
 * and first refused call tsync_init_route must give for that stack. */
static void check_listener_route(const char *test, const char *name, const char *notify_text, uint32_t listener,
                                 const char *other_text, enum tsync_init_route want_route, const char *want_denied)
{
        struct tsync_program *notify = compile_text(notify_text);
        struct tsync_program *other = other_text ? compile_text(other_text) : NULL;
        struct tsync_stack_prog stack[2];
        size_t n = 0;
        struct tsync_err err = { 0 };

        if (!notify || (other_text && !other)) {
                tap_ok(0, "%s_%s: compiles", test, name);
                tsync_program_free(notify);
                tsync_program_free(other);
                return;
        }
        if (other)
                stack[n++] = (struct tsync_stack_prog){ .insns = other->insns, .len = other->len };
        stack[n++] = (struct tsync_stack_prog){ .insns = notify->insns, .len = notify->len, .listener = listener };
        enum tsync_init_route route;
        const struct tsync_init_call *denied = NULL;
        uint32_t action;
        int r = tsync_init_route(stack, n, 0, false, &route, &denied, &action, &err);
        tap_ok(r == 0 && route == want_route &&
                       (want_denied ? denied && strcmp(denied->name, want_denied) == 0 : !denied),
               "%s_%s: %s, denied %s (got %s, %s)", test, name, tsync_init_route_name(want_route),
               want_denied ? want_denied : "nothing", r < 0 ? err.msg : tsync_init_route_name(route),
               denied ? denied->name : "nothing");
        tsync_program_free(notify);
        tsync_program_free(other);
}

/* The exec-once filter in the stack: its USER_NOTIF passes for the workload's
 * execve only, its supervisor's calls count, and there is no in-place route. */
static void test_init_calls_exec_once(void)
{
        static const struct {
                const char *name;
                const char *other; /* a second program, or NULL */
                uint32_t listener; /* of the notify program */
                enum tsync_init_route route;
                const char *denied;
        } cases[] = {
                { "alone", NULL, TSYNC_LISTENER_EXEC_ONCE, TSYNC_ROUTE_SUPERVISE, NULL },
                { "unmarked_notify_is_a_refusal", NULL, TSYNC_LISTENER_NONE, TSYNC_ROUTE_NONE, "execve" },
                { "a_profile_denying_ioctl",
                  "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"ioctl\"], "
                  "\"action\": \"SCMP_ACT_ERRNO\"}]}",
                  TSYNC_LISTENER_EXEC_ONCE, TSYNC_ROUTE_NONE, "ioctl" },
                { "a_profile_denying_wait4_has_no_in_place",
                  "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"wait4\"], "
                  "\"action\": \"SCMP_ACT_ERRNO\"}]}",
                  TSYNC_LISTENER_EXEC_ONCE, TSYNC_ROUTE_NONE, "wait4" },
                { "a_profile_denying_execve_wins",
                  "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"execve\"], "
                  "\"action\": \"SCMP_ACT_ERRNO\"}]}",
                  TSYNC_LISTENER_EXEC_ONCE, TSYNC_ROUTE_NONE, "execve" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                check_listener_route("test_init_calls_exec_once", cases[i].name,
                                     "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": "
                                     "[\"execve\", \"execveat\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}",
                                     cases[i].listener, cases[i].other, cases[i].route, cases[i].denied);
}

/* An agent's filter (listenerPath) in the stack: handing its listener to the
 * relay right after its load (sendmsg, close_range) counts, judged by the
 * programs up to it, with its USER_NOTIF a refusal there; reaching the relay
 * (socket, connect, recvmsg) comes before the load; from the hand-over to the
 * workload's start the agent answers the init's calls (runc's "important
 * syscalls": execve, openat, open, read, close, and the relay's answer, the
 * proof, the capabilities); the calls made while the workload runs it does not
 * (wait4: in place); without an agent those calls do not count. */
static void test_init_calls_agent(void)
{
#define AGENT_NOTIFY(names)                                                                                            \
        "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [" names                                   \
        "], \"action\": \"SCMP_ACT_NOTIFY\"}]}"
#define AGENT_DENY(names)                                                                                              \
        "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [" names                                   \
        "], \"action\": \"SCMP_ACT_ERRNO\"}]}"
        static const struct {
                const char *name;
                const char *notify; /* the agent's (or, listener NONE, a plain) program */
                uint32_t listener;
                const char *other; /* loaded before it, or NULL */
                enum tsync_init_route route;
                const char *denied;
        } cases[] = {
                { "the_workloads_calls", AGENT_NOTIFY("\"getppid\", \"mkdir\""), TSYNC_LISTENER_AGENT, NULL,
                  TSYNC_ROUTE_SUPERVISE, NULL },
                { "execve_goes_to_the_agent", AGENT_NOTIFY("\"execve\""), TSYNC_LISTENER_AGENT, NULL,
                  TSYNC_ROUTE_SUPERVISE, NULL },
                { "notify_on_connect_is_before_the_load", AGENT_NOTIFY("\"connect\", \"socket\""), TSYNC_LISTENER_AGENT,
                  NULL, TSYNC_ROUTE_SUPERVISE, NULL },
                { "notify_on_recvmsg_is_answered", AGENT_NOTIFY("\"recvmsg\""), TSYNC_LISTENER_AGENT, NULL,
                  TSYNC_ROUTE_SUPERVISE, NULL },
                { "notify_on_sendmsg", AGENT_NOTIFY("\"sendmsg\""), TSYNC_LISTENER_AGENT, NULL, TSYNC_ROUTE_NONE,
                  "sendmsg" },
                { "notify_on_close_range", AGENT_NOTIFY("\"close_range\""), TSYNC_LISTENER_AGENT, NULL,
                  TSYNC_ROUTE_NONE, "close_range" },
                { "notify_on_close_is_answered", AGENT_NOTIFY("\"close\""), TSYNC_LISTENER_AGENT, NULL,
                  TSYNC_ROUTE_SUPERVISE, NULL },
                { "notify_on_read_is_answered", AGENT_NOTIFY("\"read\""), TSYNC_LISTENER_AGENT, NULL,
                  TSYNC_ROUTE_SUPERVISE, NULL },
                { "runcs_important_syscalls",
                  AGENT_NOTIFY("\"execve\", \"openat\", \"open\", \"read\", \"close\", \"fcntl\""),
                  TSYNC_LISTENER_AGENT, NULL, TSYNC_ROUTE_SUPERVISE, NULL },
                { "the_init_before_the_workload",
                  AGENT_NOTIFY("\"capset\", \"prctl\", \"rt_sigprocmask\", \"clone\", \"seccomp\""),
                  TSYNC_LISTENER_AGENT, NULL, TSYNC_ROUTE_SUPERVISE, NULL },
                { "notify_on_wait4_runs_in_place", AGENT_NOTIFY("\"wait4\""), TSYNC_LISTENER_AGENT, NULL,
                  TSYNC_ROUTE_IN_PLACE, "wait4" },
                { "notify_on_rt_sigtimedwait_runs_in_place", AGENT_NOTIFY("\"rt_sigtimedwait\""), TSYNC_LISTENER_AGENT,
                  NULL, TSYNC_ROUTE_IN_PLACE, "rt_sigtimedwait" },
                { "a_profile_denying_sendmsg", AGENT_NOTIFY("\"getppid\""), TSYNC_LISTENER_AGENT,
                  AGENT_DENY("\"sendmsg\""), TSYNC_ROUTE_NONE, "sendmsg" },
                { "a_profile_denying_read_wins", AGENT_NOTIFY("\"read\""), TSYNC_LISTENER_AGENT, AGENT_DENY("\"read\""),
                  TSYNC_ROUTE_NONE, "read" },
                { "a_profile_denying_execve_wins", AGENT_NOTIFY("\"execve\""), TSYNC_LISTENER_AGENT,
                  AGENT_DENY("\"execve\""), TSYNC_ROUTE_NONE, "execve" },
                { "without_an_agent_connect_does_not_count", AGENT_DENY("\"connect\", \"socket\", \"sendmsg\""),
                  TSYNC_LISTENER_NONE, NULL, TSYNC_ROUTE_SUPERVISE, NULL },
                { "unmarked_notify_on_execve_is_a_refusal", AGENT_NOTIFY("\"execve\""), TSYNC_LISTENER_NONE, NULL,
                  TSYNC_ROUTE_NONE, "execve" },
        };
#undef AGENT_NOTIFY
#undef AGENT_DENY
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                check_listener_route("test_init_calls_agent", cases[i].name, cases[i].notify, cases[i].listener,
                                     cases[i].other, cases[i].route, cases[i].denied);
}

/* The hand-over comes right after the agent filter's load: a layer loaded
 * after it does not judge sendmsg and close_range (one before it does), and
 * without NO_NEW_PRIVS the agent answers the capability calls too. */
static void test_init_calls_agent_handover(void)
{
        static const char agent_text[] = "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": "
                                         "[\"capset\", \"prctl\", \"read\", \"close\"], \"action\": "
                                         "\"SCMP_ACT_NOTIFY\"}]}";
        static const char deny_text[] = "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": "
                                        "[\"close_range\"], \"action\": \"SCMP_ACT_ERRNO\"}]}";
        struct tsync_program *agent = compile_text(agent_text), *deny = compile_text(deny_text);
        if (!agent || !deny) {
                tap_ok(0, "test_init_calls_agent_handover: compiles");
                tsync_program_free(agent);
                tsync_program_free(deny);
                return;
        }
        const struct tsync_stack_prog a = { .insns = agent->insns,
                                            .len = agent->len,
                                            .listener = TSYNC_LISTENER_AGENT };
        const struct tsync_stack_prog d = { .insns = deny->insns, .len = deny->len };
        static const struct {
                const char *name;
                bool deny_first;
                bool caps_after;
                enum tsync_init_route route;
                const char *denied;
        } cases[] = {
                { "a_layer_after_the_agent_does_not_judge_it", false, false, TSYNC_ROUTE_SUPERVISE, NULL },
                { "a_layer_before_the_agent_does", true, false, TSYNC_ROUTE_NONE, "close_range" },
                { "capabilities_after_the_load_are_answered", false, true, TSYNC_ROUTE_SUPERVISE, NULL },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct tsync_stack_prog stack[2] = { cases[i].deny_first ? d : a, cases[i].deny_first ? a : d };
                enum tsync_init_route route;
                const struct tsync_init_call *denied = NULL;
                uint32_t action;
                struct tsync_err err = { 0 };
                int r = tsync_init_route(stack, 2, 0, cases[i].caps_after, &route, &denied, &action, &err);
                tap_ok(r == 0 && route == cases[i].route &&
                               (cases[i].denied ? denied && strcmp(denied->name, cases[i].denied) == 0 : !denied),
                       "test_init_calls_agent_handover_%s: %s, denied %s (got %s, %s)", cases[i].name,
                       tsync_init_route_name(cases[i].route), cases[i].denied ? cases[i].denied : "nothing",
                       r < 0 ? err.msg : tsync_init_route_name(route), denied ? denied->name : "nothing");
        }
        tsync_program_free(agent);
        tsync_program_free(deny);
}

/* The recording filter (the last of the stack): its USER_NOTIF lets every
 * call of the init through (the recorder answers CONTINUE), the recorder's
 * and the recording's own calls count, there is no in-place route, and
 * without a recording those calls do not count. */
static void test_init_calls_record(void)
{
#define RECORD_ALL                                                                                                     \
        "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\", \"execve\", \"wait4\", "        \
        "\"clone\", \"capset\", \"exit_group\", \"futex\", \"rt_sigprocmask\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}"
#define RECORD_DENY(names)                                                                                             \
        "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [" names                                   \
        "], \"action\": \"SCMP_ACT_ERRNO\"}]}"
        static const struct {
                const char *name;
                const char *notify;
                uint32_t listener;
                const char *other; /* loaded before it, or NULL */
                enum tsync_init_route route;
                const char *denied;
        } cases[] = {
                { "alone", RECORD_ALL, TSYNC_LISTENER_RECORD, NULL, TSYNC_ROUTE_SUPERVISE, NULL },
                { "under_a_layer", RECORD_ALL, TSYNC_LISTENER_RECORD, RECORD_DENY("\"mkdir\""), TSYNC_ROUTE_SUPERVISE,
                  NULL },
                { "unmarked_notify_is_a_refusal", RECORD_ALL, TSYNC_LISTENER_NONE, NULL, TSYNC_ROUTE_NONE, "read" },
                { "a_profile_denying_pwrite64", RECORD_ALL, TSYNC_LISTENER_RECORD, RECORD_DENY("\"pwrite64\""),
                  TSYNC_ROUTE_NONE, "pwrite64" },
                { "a_profile_denying_ioctl", RECORD_ALL, TSYNC_LISTENER_RECORD, RECORD_DENY("\"ioctl\""),
                  TSYNC_ROUTE_NONE, "ioctl" },
                { "a_profile_denying_seccomp", RECORD_ALL, TSYNC_LISTENER_RECORD, RECORD_DENY("\"seccomp\""),
                  TSYNC_ROUTE_NONE, "seccomp" },
                { "a_profile_denying_wait4_has_no_in_place", RECORD_ALL, TSYNC_LISTENER_RECORD,
                  RECORD_DENY("\"wait4\""), TSYNC_ROUTE_NONE, "wait4" },
                { "a_profile_denying_execve_wins", RECORD_ALL, TSYNC_LISTENER_RECORD, RECORD_DENY("\"execve\""),
                  TSYNC_ROUTE_NONE, "execve" },
                { "without_a_recording_pwrite64_does_not_count", RECORD_DENY("\"pwrite64\", \"ftruncate\""),
                  TSYNC_LISTENER_NONE, NULL, TSYNC_ROUTE_SUPERVISE, NULL },
        };
#undef RECORD_ALL
#undef RECORD_DENY
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                check_listener_route("test_init_calls_record", cases[i].name, cases[i].notify, cases[i].listener,
                                     cases[i].other, cases[i].route, cases[i].denied);
}

int main(void)
{
        test_init_calls_table_is_native();
        test_init_calls_explain();
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
                test_init_calls_route(&rows[i]);
        test_init_calls_exec_once();
        test_init_calls_agent();
        test_init_calls_agent_handover();
        test_init_calls_record();
        return tap_done();
}
