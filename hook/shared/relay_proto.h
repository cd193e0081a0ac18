/* The conversation between the init and createRuntime's relay (relay.h) on
 * the relay's SOCK_STREAM UNIX socket, shared by both sides:
 *   relay -> init  TSYNC_RELAY_READY, once it accepted the init (the peer's
 *                  pid is the container's), with a recording's file attached
 *                  (SCM_RIGHTS) when there is one; the init waits for it
 *                  before its first filter. Without an agent, the relay is
 *                  done then.
 *   init -> relay  TSYNC_RELAY_LISTENER, a uint32_t (host order) length and
 *                  that many bytes of listenerMetadata, in one sendmsg with
 *                  the agent filter's listener attached (SCM_RIGHTS)
 *   relay -> init  TSYNC_RELAY_OK once the agent has the state and the
 *                  listener; or TSYNC_RELAY_REFUSED and one line (no newline,
 *                  at most TSYNC_RELAY_REASON_MAX bytes) saying why not.
 *                  Then the relay closes and exits. */
#pragma once

#define TSYNC_RELAY_READY      'R'
#define TSYNC_RELAY_LISTENER   'L'
#define TSYNC_RELAY_OK         'K'
#define TSYNC_RELAY_REFUSED    'E'
#define TSYNC_RELAY_HEADER     5 /* the kind and the length */
#define TSYNC_RELAY_REASON_MAX 480
