/* The command line, in the style of catatonit and tini:
 *   seccomp-tsync-init [OPTIONS] -- CMD [ARG...]
 * The options, their repeats and conflicts are the rows of hook/shared/init_args.c
 * (the host writes them from the same table, status reads them back). Only the
 * syntax is checked here; the filter files and capability names are checked by
 * filters.c and caps.c, still before anything is applied. */
#include <stdio.h>
#include <string.h>

#include "init.h"
#include "shared/error.h"
#include "shared/init_args.h"

#ifndef TSYNC_VERSION
#define TSYNC_VERSION "dev"
#endif

static void help(FILE *f)
{
        fprintf(f, "Usage: " INIT_PROGRAM " [OPTIONS] -- CMD [ARG...]\n"
                   "Applies compiled seccomp filters to every thread of this process with\n"
                   "SECCOMP_FILTER_FLAG_TSYNC, checks in /proc/self/task that each thread carries them,\n"
                   "sets the capability sets and NO_NEW_PRIVS the container config asks for on every\n"
                   "thread and checks them there too, then runs CMD (as PID 1: it reaps zombies and\n"
                   "forwards signals). PID 1 is non-dumpable all its life: without CAP_SYS_PTRACE the\n"
                   "workload can neither ptrace it nor open /proc/1/mem.\n\n"
                   "  -f, --filter FILE     a filter file (oci-seccomp-tsync compile -O tsync); repeatable,\n"
                   "                        applied in order, each with TSYNC and the flags it carries.\n"
                   "                        All are read and checked before the first is applied.\n"
                   "      --filter-data B64 a filter file in base64 (RFC 4648, '=' padding, one line):\n"
                   "                        the same as --filter without a file; repeatable, and applied\n"
                   "                        in command-line order together with --filter. While the init\n"
                   "                        lives, /proc/1/cmdline shows the data to whoever may read it.\n"
                   "      --bounding CAPS   the bounding set to end with (needs CAP_SETPCAP to drop)\n"
                   "      --permitted CAPS  the permitted set\n"
                   "      --effective CAPS  the effective set\n"
                   "      --inheritable CAPS the inheritable set\n"
                   "      --ambient CAPS    the ambient set (a capability the kernel will not raise, not\n"
                   "                        being permitted and inheritable, is a warning, as in runc)\n"
                   "                        CAPS: CAP_CHOWN,CAP_KILL,... (exact names, as runc reads them)\n"
                   "                        or \"\" or none. A set not given is left as it is. The uid and\n"
                   "                        gid are never changed.\n"
                   "      --no-new-privs    end with NO_NEW_PRIVS set (noNewPrivileges: true). Without it\n"
                   "                        NO_NEW_PRIVS must not be set already, and the init does not set it.\n"
                   "      --allow-nnp       without CAP_SYS_ADMIN, set NO_NEW_PRIVS to be able to load\n"
                   "                        (otherwise that situation is refused)\n"
                   "      --exec            replace the init with CMD once the filters are on (default:\n"
                   "                        stay PID 1, run CMD as a child, exit with its status)\n"
                   "      --exec-once ERRNO let CMD's own start exec, and answer every later execve and\n"
                   "                        execveat (of CMD, its threads, its children, anyone under the\n"
                   "                        filters) with ERRNO (a number, 1 to 4095). Needs exactly one\n"
                   "                        filter file with the exec-once listener (inject --exec-once\n"
                   "                        writes it), Linux 5.7 (SECCOMP_FILTER_FLAG_TSYNC_ESRCH), and\n"
                   "                        the supervise route: never with --exec, --verify probe or\n"
                   "                        --relay (the kernel allows one listener). A supervisor thread\n"
                   "                        holds the filter's listener; the decision uses the caller's\n"
                   "                        pid only, never the call's arguments. If the init dies, the\n"
                   "                        kernel answers ENOSYS. If the supervisor fails, it kills CMD\n"
                   "                        and the init exits 1. A plain `runc exec` process carries none\n"
                   "                        of our filters; through oci-seccomp-tsync-runtime it runs under\n"
                   "                        an init of its own, with --exec-once too.\n"
                   "      --relay SOCKET    where createRuntime's relay listens (a UNIX socket in the\n"
                   "                        container's private tmpfs), for the filter with an agent's\n"
                   "                        listener (listenerPath; one at most, never beside exec-once: the\n"
                   "                        kernel allows one listener). The init connects before its first\n"
                   "                        filter and waits until the relay accepted it (the relay accepts\n"
                   "                        the container's first process alone); after the load and the\n"
                   "                        proof it sends the listener with the filter's listenerMetadata\n"
                   "                        (SCM_RIGHTS), closes its copy, and waits for the relay's answer:\n"
                   "                        the relay hands state and listener to the agent from the host.\n"
                   "                        Only then does CMD start. Needed exactly when such a filter is\n"
                   "                        given, or a recording filter without --record: the relay then\n"
                   "                        hands the init the record file (an fd) with its greeting\n"
                   "      --record FILE     record the (ABI, syscall) pairs CMD makes into FILE: needs\n"
                   "                        exactly one recording filter (listener 3, the last filter),\n"
                   "                        which the main thread loads alone, without TSYNC, after the\n"
                   "                        others; CMD inherits it, the init's other threads never carry\n"
                   "                        it. A recorder thread answers every notification with CONTINUE\n"
                   "                        (observation only: a call the other filters deny stays denied\n"
                   "                        and unrecorded) and appends each new pair of CMD, its threads\n"
                   "                        and its descendants, never the init's own, as one line\n"
                   "                        (\"c000003e 59\") after the magic line, before letting the call\n"
                   "                        through: a CMD killed with SIGKILL leaves every pair it made.\n"
                   "                        FILE: a regular file (created 0644, emptied), no symlink in\n"
                   "                        its path. A write that fails or is cut short empties it (no\n"
                   "                        magic: not a recording), with one warning, and CMD goes on;\n"
                   "                        so does a start refused before CMD runs.\n"
                   "                        Linux 5.5; never with --exec, --exec-once, --relay or\n"
                   "                        --verify probe, nor beside another listener, nor with a filter\n"
                   "                        that returns TRACE (the recording would hide the call from the\n"
                   "                        tracer)\n"
                   "  -g, --pgroup          run CMD in its own process group and signal the whole group\n"
                   "      --warn-replace    say on stderr, before the first filter, that in replace mode\n"
                   "                        processes an engine's exec starts run without linux.seccomp\n"
                   "                        (the precreate hook's, whose own stderr Podman hides)\n"
                   "      --verify HOW      how to prove every thread carries the filters: auto (default):\n"
                   "                        /proc's Seccomp_filters counts where the kernel shows them, else\n"
                   "                        the probe; proc: the counts only; probe: the probe, and the counts\n"
                   "                        too where shown. The probe (gVisor shows no counts): each thread\n"
                   "                        makes, for each filter, a harmless call that filter alone denies\n"
                   "                        with an errno, and must get that errno (see PROBE below)\n"
                   "  -h, --help            this text\n"
                   "      --version         the version\n\n"
                   "Forwarded signals: SIGTERM SIGINT SIGHUP SIGQUIT SIGUSR1 SIGUSR2 SIGWINCH SIGCONT.\n\n"
                   "Exit status: CMD's, or 128+N when signal N killed it (SIGSYS from its filter: 159).\n"
                   "When CMD never started:\n"
                   "  121  bad command line\n"
                   "  122  a filter file is missing, malformed (version, size, checksum, flags, over\n"
                   "       4096 instructions, a bad agent trailer) or returns USER_NOTIF without a\n"
                   "       listener; or --filter-data is not base64; or --exec-once without exactly one\n"
                   "       exec-once filter, or such a filter without --exec-once; or two filters with\n"
                   "       a listener (exec-once and an agent); or an agent filter\n"
                   "       without --relay, or --relay without one; or --record without\n"
                   "       exactly one recording filter, the last, or such a filter without --record;\n"
                   "       or a filter returning TRACE with --record\n"
                   "  123  the capability sets or NO_NEW_PRIVS cannot be arranged, or a thread's\n"
                   "       capability sets, securebits or NO_NEW_PRIVS differ from what the workload\n"
                   "       is handed (thread and set named), or PID 1 cannot be made non-dumpable\n"
                   "  124  the kernel refused a filter: a flag (named), the program, or a thread that\n"
                   "       runs another filter (TID and name given); or a filter killed the main thread\n"
                   "       before CMD ran; or (--record) no USER_NOTIF, NEW_LISTENER or CONTINUE\n"
                   "  125  verification failed: a thread does not carry the filters, or the proof is not\n"
                   "       possible (no Seccomp_filters in /proc and a filter that denies no probe call)\n"
                   "  126  CMD cannot be executed; or a seccomp agent (listenerPath) is absent, refuses\n"
                   "       the listener; or the relay (--relay) cannot be reached, refuses the init or goes away;\n"
                   "       or the --record file cannot be opened or is not a regular file\n"
                   "  127  CMD not found\n\n"
                   "After the first filter the init makes only these system calls (everything else,\n"
                   "including opening the /proc files the proof reads, happens before it):\n"
                   "  always     read (the proof), rt_sigprocmask execve (starting CMD)\n"
                   "  supervise  clone wait4 exit_group (CMD as a child), rt_sigtimedwait kill (forwarding\n"
                   "             signals)\n"
                   "  sometimes  seccomp (each filter after the first), capset prctl (capability sets\n"
                   "             changed after loading with CAP_SYS_ADMIN, i.e. without NO_NEW_PRIVS),\n"
                   "             futex (signals), tgkill (--exec: a signal before the exec), setpgid getpid\n"
                   "             ioctl (--pgroup), write (messages), set_robust_list (the child)\n"
                   "  exec-once  ioctl (SECCOMP_IOCTL_NOTIF_RECV, _SEND, _ID_VALID) futex (the supervisor\n"
                   "             thread), seccomp with NEW_LISTENER and TSYNC_ESRCH (loading its filter)\n"
                   "  agent      sendmsg close_range (handing the relay the listener, right after its\n"
                   "             filter's load), recvmsg close (the relay's answer); from then on the\n"
                   "             agent answers what that filter notifies, up to CMD's start\n"
                   "  record     seccomp with NEW_LISTENER (the recording filter), futex, ioctl\n"
                   "             (SECCOMP_IOCTL_NOTIF_RECV, _SEND) pwrite64 ftruncate (the recorder)\n"
                   "  probe      tgkill futex (the signal thread makes the probe calls too), and the\n"
                   "             probe calls themselves, which the filters deny\n"
                   "Before loading, the init simulates its filters on these calls. If they deny one that\n"
                   "only supervising needs, CMD runs in place of the init (as with --exec: PID 1, as in a\n"
                   "plain runtime start), with one warning; if they deny one that every route needs,\n"
                   "the init refuses (126). If a filter kills the main thread anyway before CMD runs, the\n"
                   "signal thread notices and the init exits 124. If wait4 fails later the init says so,\n"
                   "kills CMD and exits 1.\n\n"
                   "PROBE: a filter is proven by a call it answers with an errno while the other filters\n"
                   "allow it, and which gives another result in every thread before loading. The calls\n"
                   "are harmless if they do execute: NULL pointers, fd -1 or invalid flags make them fail\n"
                   "before they act (mkdir(NULL), keyctl(-1), unshare(~0), nfsservctl, ...).\n");
}

int init_parse_options(int argc, char **argv, struct init_config *cfg)
{
        struct tsync_init_args a;
        struct tsync_err err = { 0 };

        memset(cfg, 0, sizeof(*cfg));
        /* The one reader of the table the host's writer and status use too. */
        int r = tsync_init_args_parse(argc, argv, 0, &a, &err);
        if (r == TSYNC_INIT_ARGS_HELP) {
                help(stdout);
                (void)fflush(stdout);
                return 1;
        }
        if (r == TSYNC_INIT_ARGS_VERSION) {
                printf("%s %s\n", INIT_PROGRAM, TSYNC_VERSION);
                (void)fflush(stdout);
                return 1;
        }
        if (r < 0) {
                init_log("command line", "%s", err.msg);
                return -1;
        }
        for (size_t i = 0; i < a.n_filters; i++)
                cfg->filters[i] = a.filters[i].opt == TSYNC_INIT_OPT_FILTER
                                          ? (struct init_filter_source){ .file = a.filters[i].text }
                                          : (struct init_filter_source){ .data = a.filters[i].text };
        cfg->nfilters = a.n_filters;
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                cfg->caps[s] = a.caps[s];
        cfg->no_new_privs = a.no_new_privs;
        cfg->allow_nnp = a.allow_nnp;
        cfg->exec = a.exec;
        cfg->exec_once = a.exec_once;
        cfg->relay = a.relay;
        cfg->record = a.record;
        cfg->pgroup = a.pgroup;
        cfg->warn_replace = a.warn_replace;
        cfg->verify = !a.verify || strcmp(a.verify, "auto") == 0 ? INIT_VERIFY_AUTO
                      : strcmp(a.verify, "proc") == 0            ? INIT_VERIFY_PROC
                                                                 : INIT_VERIFY_PROBE;
        cfg->cmd = (char **)a.cmd;
        return 0;
}
