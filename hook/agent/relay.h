/* createRuntime's one-shot relay between the init and a notify agent, or a
 * recording's file (issue 23): the agent's socket, and the recording's
 * directory, are never in the container. The relay
 * listens in the container's private tmpfs (agent_deliver.h) before the hook
 * returns, accepts exactly the container's first process (SO_PEERCRED
 * against the state's pid, while a pidfd shows it alive), then removes its
 * name and stops listening; it takes the listener from the init, connects to
 * the agent from the host, sends runc's state with the metadata and the
 * listener in one sendmsg, and acks (relay_proto.h). It is gone once done,
 * or once the container's process died. It never prints: the init says why
 * it failed. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "shared/error.h"
#include "util/json.h"

struct tsync_relay {
        int listen_fd; /* -1 once the init connected */
        int dir_fd;    /* the tmpfs, where the socket's name is */
        int pidfd;     /* the container's process */
        pid_t pid;
        int record_fd;    /* a recording's file on the host, or -1 */
        char *agent_path; /* the agent's listenerPath on the host, or NULL */
        char *state;      /* runc's state for the agent, without metadata */
        size_t state_len;
};
#define TSYNC_RELAY_INIT                                                                                               \
        {                                                                                                              \
                .listen_fd = -1, .dir_fd = -1, .pidfd = -1                                                             \
        }

/* Everything before the relay serves, in the hook: the agent's state from
 * oci_state, the container's tmpfs (tsync_agent_open_dir), a pidfd of its
 * pid, and the socket TSYNC_RELAY_NAME bound in the tmpfs (mode 0600, owned
 * by the tmpfs's owner, process.user) and listening. agent_path: the plan's
 * listenerPath, or NULL. record_dir: the plan's recording directory (root's,
 * 0700, checked), or NULL: the record file TSYNC_RECORD_CALLS is created
 * (emptied) there, and the relay hands its fd to the init with its greeting.
 * On failure nothing is left (no name in the tmpfs). */
int tsync_relay_open(const struct tsync_json *oci_state, const struct tsync_json *config, const char *bundle,
                     const char *agent_path, const char *record_dir, struct tsync_relay *ret, struct tsync_err *err);

/* The relay's whole life after tsync_relay_open, in its own process: 0 when
 * the agent has the listener, or when the container's process died first;
 * -errno (with err) when the init was told why not. */
int tsync_relay_serve(struct tsync_relay *r, struct tsync_err *err);

/* Closes r's descriptors; removes the socket's name while it still listens. */
void tsync_relay_clear(struct tsync_relay *r);
