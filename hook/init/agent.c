/* Notify agents (listenerPath): the init hands each agent filter's listener to
 * its agent as runc does, with the container process state, in one sendmsg
 * with SCM_RIGHTS, then closes its own copy. Only then does the workload
 * start: no workload ever runs under a filter nobody answers.
 *
 * The kernel takes one listener among a task's filters, so there is one agent
 * filter at most, and never beside exec-once (filters.c refuses both).
 *
 * The state is the hook's (createRuntime knows the host pid, the id, the
 * bundle and the annotations; the init knows none of them): a JSON object,
 * read from --agent-state and removed before the first filter so that the only calls
 * after the load are the four in tsync/init_calls.h (socket, connect,
 * sendmsg, close). The filter's listenerMetadata is inserted as its
 * "metadata" member, left out when empty (runc's omitempty). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "init.h"
#include "tsync/filterfile.h"

/* Annotations make the state as large as a config's; 128 KiB is far above
 * any seen and still one sendmsg on a UNIX stream socket. */
#define STATE_MAX (128 * 1024)

static char state[STATE_MAX + 1];
static size_t state_len;
/* "metadata":"<escaped>", each byte escaped to at most 6. */
static char member[sizeof("\"metadata\":\"\",") + 6 * TSYNC_FILTER_MAX_TRAILER];

static bool needs_agent(const struct init_filter *filters, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (filters[i].listener == TSYNC_LISTENER_AGENT)
                        return true;
        return false;
}

int init_agent_prepare(const char *path, const struct init_filter *filters, size_t n)
{
        if (!needs_agent(filters, n)) {
                if (path) {
                        init_log("agent", "--agent-state is given, but no filter has an agent's listener");
                        return INIT_EXIT_FILTER;
                }
                return 0;
        }
        if (!path) {
                for (size_t i = 0; i < n; i++)
                        if (filters[i].listener == TSYNC_LISTENER_AGENT)
                                init_log(filters[i].name,
                                         "the filter has an agent's listener (listenerPath), but --agent-state is not "
                                         "given: the agent could not be told which container it serves");
                return INIT_EXIT_FILTER;
        }
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) {
                init_log(path, "cannot open the container state for the agent: %s", init_strerror(errno));
                return INIT_EXIT_CANNOT_EXEC;
        }
        long got = tsync_filter_read(fd, state, sizeof(state));
        (void)close(fd);
        if (got < 0) {
                init_log(path, "cannot read the container state for the agent: %s", init_strerror((int)-got));
                return INIT_EXIT_CANNOT_EXEC;
        }
        /* The state (the host pid, the bundle, the annotations) is the
         * agent's, never the workload's: gone before the first filter. */
        if (unlinkat(AT_FDCWD, path, 0) < 0) {
                init_log(path, "cannot remove the container state for the agent: %s", init_strerror(errno));
                return INIT_EXIT_CANNOT_EXEC;
        }
        state_len = (size_t)got;
        while (state_len > 0 && (state[state_len - 1] == '\n' || state[state_len - 1] == ' '))
                state_len--;
        if ((size_t)got > STATE_MAX || state_len < 2 || state[0] != '{' || state[state_len - 1] != '}' ||
            memchr(state, '\0', state_len)) {
                init_log(path, "the container state for the agent is not one JSON object of at most %d bytes",
                         STATE_MAX);
                return INIT_EXIT_CANNOT_EXEC;
        }
        return 0;
}

/* JSON string escaping of the metadata (UTF-8 passes as it is). */
static size_t metadata_member(const char *metadata)
{
        static const char hex[] = "0123456789abcdef";
        size_t o = 0;

        if (!metadata[0])
                return 0;
        memcpy(member, "\"metadata\":\"", 12);
        o = 12;
        for (const unsigned char *p = (const unsigned char *)metadata; *p; p++) {
                if (*p == '"' || *p == '\\') {
                        member[o++] = '\\';
                        member[o++] = (char)*p;
                } else if (*p < 0x20) {
                        memcpy(member + o, "\\u00", 4);
                        member[o + 4] = hex[*p >> 4];
                        member[o + 5] = hex[*p & 15];
                        o += 6;
                } else {
                        member[o++] = (char)*p;
                }
        }
        member[o++] = '"';
        member[o++] = ',';
        return o;
}

int init_agent_send(const struct init_filter *f, int listener)
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        size_t plen = strlen(f->agent_path);

        /* The file format bounds it; a second check costs nothing. */
        if (plen >= sizeof(addr.sun_path)) {
                init_log(f->agent_path, "the agent's socket path is too long");
                return INIT_EXIT_CANNOT_EXEC;
        }
        memcpy(addr.sun_path, f->agent_path, plen + 1);
        int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (sock < 0) {
                init_log(f->name, "cannot make a socket for the agent: %s", init_strerror(errno));
                return INIT_EXIT_CANNOT_EXEC;
        }
        /* The main thread blocks every signal: no EINTR here. */
        if (connect(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
                init_log(f->agent_path,
                         "cannot reach the seccomp agent (listenerPath): %s; the workload is not started",
                         init_strerror(errno));
                (void)close(sock);
                return INIT_EXIT_CANNOT_EXEC;
        }

        size_t mlen = metadata_member(f->agent_metadata);
        struct iovec iov[3] = {
                { .iov_base = state, .iov_len = 1 },
                { .iov_base = member, .iov_len = mlen },
                { .iov_base = state + 1, .iov_len = state_len - 1 },
        };
        union {
                char buf[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
        } control;
        memset(&control, 0, sizeof(control));
        struct msghdr msg = {
                .msg_iov = iov, .msg_iovlen = 3, .msg_control = control.buf, .msg_controllen = sizeof(control.buf)
        };
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &listener, sizeof(int));

        size_t want = 1 + mlen + state_len - 1;
        ssize_t sent = sendmsg(sock, &msg, MSG_NOSIGNAL);
        int e = errno;
        (void)close(sock);
        (void)close(listener);
        /* A short send on a blocking stream socket means the agent went away. */
        if (sent < 0 || (size_t)sent != want) {
                init_log(f->agent_path,
                         "cannot send the listener to the seccomp agent: %s; the workload is not started",
                         sent < 0 ? init_strerror(e) : "short write");
                return INIT_EXIT_CANNOT_EXEC;
        }
        return 0;
}
