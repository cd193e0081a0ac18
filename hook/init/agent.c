/* Notify agents (listenerPath): the agent gets its filter's listener with the
 * container process state, as under runc, but never through anything in the
 * container (issue 23): createRuntime's one-shot relay listens in the
 * container's private tmpfs (--relay), for the init alone, and reaches the
 * agent from the host. Only once the relay answers that the agent has the
 * listener does the workload start: no workload ever runs under a filter
 * nobody answers. The conversation is in shared/relay_proto.h.
 *
 * The kernel takes one listener among a task's filters, so there is one agent
 * filter at most, and never beside exec-once (filters.c refuses both).
 *
 * The connection is made before the first filter, and the relay has accepted
 * it by then. The hand-over comes right after the agent filter's load (flow.c),
 * before anything else of the init runs under it: a profile may send the init's
 * later calls (read for the proof, capset, close, execve, ...) to the agent, as
 * under runc, and only an agent holding the listener can answer them. Two calls
 * run before it does, sendmsg and close_range (TSYNC_CALL_HANDOVER in
 * shared/init_calls.h): the route refuses a profile that notifies them. The
 * listener's copy is closed before the init waits for anything: were it still
 * open, a relay or agent gone with the other copy would leave a notified call
 * waiting for ever, where the kernel now fails it (ENOSYS). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "init.h"
#include "shared/fd_pass.h"
#include "shared/filterfile.h"
#include "shared/relay_proto.h"

static const char *relay_path;
static bool agent; /* an agent filter: the relay takes its listener */
static int record_fd = -1;
static int relay = -1;
static char reply[1 + TSYNC_RELAY_REASON_MAX + 1];

static bool needs_agent(const struct init_filter *filters, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (filters[i].listener == TSYNC_LISTENER_AGENT)
                        return true;
        return false;
}

static bool has_recording(const struct init_filter *filters, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (filters[i].listener == TSYNC_LISTENER_RECORD)
                        return true;
        return false;
}

int init_agent_prepare(const char *path, bool record_file, const struct init_filter *filters, size_t n)
{
        agent = needs_agent(filters, n);
        if (!agent) {
                if (path && !(has_recording(filters, n) && !record_file)) {
                        init_log("agent", "--relay is given, but no filter needs it (an agent's listener, or a "
                                          "recording without --record)");
                        return INIT_EXIT_FILTER;
                }
                relay_path = path;
                return 0;
        }
        if (!path) {
                for (size_t i = 0; i < n; i++)
                        if (filters[i].listener == TSYNC_LISTENER_AGENT)
                                init_log(filters[i].name,
                                         "the filter has an agent's listener (listenerPath), but --relay is not "
                                         "given: nothing would hand the agent its listener");
                return INIT_EXIT_FILTER;
        }
        relay_path = path;
        return 0;
}

int init_agent_connect(void)
{
        if (!relay_path)
                return 0;
        const char *path = relay_path;
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        size_t plen = strlen(path);
        if (plen >= sizeof(addr.sun_path)) {
                init_log(path, "the relay's socket path is too long");
                return INIT_EXIT_USAGE;
        }
        memcpy(addr.sun_path, path, plen + 1);
        relay = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (relay < 0) {
                init_log("agent", "cannot make a socket for the relay: %s", init_strerror(errno));
                return INIT_EXIT_CANNOT_EXEC;
        }
        /* The main thread blocks every signal: no EINTR here. */
        if (connect(relay, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
                init_log(path,
                         "cannot reach the relay of the createRuntime hook, which hands %s: %s; the workload is not "
                         "started",
                         agent ? "the seccomp agent (listenerPath) its listener" : "the recording its file",
                         init_strerror(errno));
                return INIT_EXIT_CANNOT_EXEC;
        }
        char ready = 0;
        size_t nfd = 0;
        /* More than the record file, or other control data: not a greeting
         * (-EPROTO). */
        ssize_t got = tsync_fd_recv(relay, &ready, 1, &record_fd, 1, &nfd);
        if (got != 1 || ready != TSYNC_RELAY_READY) {
                init_log(path, "the relay %s; the workload is not started",
                         got < 0 && got != -EPROTO ? init_strerror((int)-got)
                         : got == 0 ? "closed the connection (it accepts the container's first process alone)"
                                    : "sent something else than its greeting");
                return INIT_EXIT_CANNOT_EXEC;
        }
        /* A recording: the relay's part is done. */
        if (!agent) {
                (void)close(relay);
                relay = -1;
        }
        return 0;
}

int init_agent_record_fd(void)
{
        int fd = record_fd;
        record_fd = -1;
        return fd;
}

int init_agent_send(const struct init_filter *f, int listener)
{
        uint32_t mlen = (uint32_t)strlen(f->agent_metadata);
        char head[TSYNC_RELAY_HEADER] = { TSYNC_RELAY_LISTENER };
        memcpy(head + 1, &mlen, sizeof(mlen));
        struct iovec iov[2] = {
                { .iov_base = head, .iov_len = sizeof(head) },
                { .iov_base = (void *)f->agent_metadata, .iov_len = mlen },
        };
        ssize_t sent = tsync_fd_send(relay, iov, 2, &listener, 1);
        /* Not close(): runc's own list of notified calls has it (see above). */
        /* Raw: musl (1.2.3) has no close_range wrapper; the same one syscall. */
        (void)syscall(SYS_close_range, (unsigned)listener, (unsigned)listener, 0);
        if (sent < 0 || (size_t)sent != sizeof(head) + mlen) {
                init_log(f->name,
                         "the relay went away before the seccomp agent had the listener (sending it: %s); the "
                         "workload is not started",
                         sent < 0 ? init_strerror((int)-sent) : "short write");
                (void)close(relay);
                return INIT_EXIT_CANNOT_EXEC;
        }
        /* The answer, up to the relay's close. */
        size_t len = 0;
        for (;;) {
                struct iovec in = { .iov_base = reply + len, .iov_len = sizeof(reply) - 1 - len };
                struct msghdr rmsg = { .msg_iov = &in, .msg_iovlen = 1 };
                ssize_t n = in.iov_len ? recvmsg(relay, &rmsg, 0) : 0;
                if (n <= 0)
                        break;
                len += (size_t)n;
        }
        (void)close(relay);
        if (len > 0 && reply[0] == TSYNC_RELAY_OK)
                return 0;
        reply[len] = '\0';
        init_log(f->name, "%s; the workload is not started",
                 len == 0                          ? "the relay went away before the seccomp agent had the listener"
                 : reply[0] == TSYNC_RELAY_REFUSED ? reply + 1
                                                   : "the relay's answer is garbled");
        return INIT_EXIT_CANNOT_EXEC;
}
