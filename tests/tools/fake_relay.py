#!/usr/bin/env python3
"""fake_relay.py SOCKET AGENT STATE MODE: createRuntime's relay (hook/agent/relay.c)
as the init sees it, for running the init alone (no container, no pid check).
Listens on SOCKET, prints "ready", takes one connection and follows the
conversation of hook/shared/relay_proto.h:
  relay   greet, take the listener and the metadata, hand them to the agent
          on AGENT with STATE (JSON) and the metadata first, answer OK
  refuse  greet, take the listener, answer REFUSED "the agent said no"
  close   close the connection at once (a peer the relay does not accept)
  vanish  greet, then close without an answer
  record  greet with AGENT, a file opened (created, emptied) here, attached
          as a recording's file, then close (the relay's part is done)
Then removes SOCKET and exits 0 (1 on a failure, said on stderr)."""
import json
import os
import socket
import struct
import sys


def take_listener(conn):
    data, fds, _, _ = socket.recv_fds(conn, 5, 1)
    while len(data) < 5:
        more = conn.recv(5 - len(data))
        if not more:
            raise SystemExit("fake_relay: the init went away")
        data += more
    if data[:1] != b"L" or len(fds) != 1:
        raise SystemExit("fake_relay: no listener: %r %r" % (data, fds))
    (mlen,) = struct.unpack("=I", data[1:5])
    meta = b""
    while len(meta) < mlen:
        more = conn.recv(mlen - len(meta))
        if not more:
            raise SystemExit("fake_relay: the init went away")
        meta += more
    return fds[0], meta.decode()


def main():
    path, agent, state, mode = sys.argv[1:5]
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    print("ready", flush=True)
    conn, _ = srv.accept()
    srv.close()
    os.unlink(path)
    if mode == "close":
        conn.close()
        return 0
    if mode == "record":
        fd = os.open(agent, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        socket.send_fds(conn, [b"R"], [fd])
        os.close(fd)
        conn.close()
        return 0
    conn.sendall(b"R")
    if mode == "vanish":
        conn.close()
        return 0
    fd, meta = take_listener(conn)
    if mode == "refuse":
        conn.sendall(b"Ethe agent said no")
        conn.close()
        return 0
    doc = json.loads(state)
    if meta:
        doc = {"metadata": meta, **doc}
    a = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        a.connect(agent)
    except OSError as e:
        conn.sendall(("E%s: cannot reach the seccomp agent (listenerPath): %s" % (agent, e.strerror)).encode())
        conn.close()
        return 0
    socket.send_fds(a, [json.dumps(doc, separators=(",", ":")).encode()], [fd])
    a.close()
    os.close(fd)
    conn.sendall(b"K")
    conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
