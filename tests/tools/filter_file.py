#!/usr/bin/env python3
"""Writes a filter file (the format of hook/include/tsync/filterfile.h) from
hand-made BPF, for tests that need a program no profile compiles to (one that
reads the instruction pointer, say).

    filter_file.py [--listener N] OUT CODE,JT,JF,K ...     (numbers in C notation: 0x20, 8, ...)

--listener sets the header's listener field (1: exec-once), to forge one.
"""
import struct
import sys


def fnv1a(data, h=0x811c9dc5):
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xffffffff
    return h


def main():
    argv = sys.argv[1:]
    listener = 0
    if argv[0] == '--listener':
        listener, argv = int(argv[1], 0), argv[2:]
    out, insns = argv[0], argv[1:]
    prog = b''.join(struct.pack('=HBBI', *(int(v, 0) for v in i.split(','))) for i in insns)
    # version 2: magic, version, flags, count, checksum, listener, reserved
    head = bytearray(b'TSYNCBPF' + struct.pack('=IIIIII', 2, 0, len(prog) // 8, 0, listener, 0))
    head[20:24] = struct.pack('=I', fnv1a(bytes(head) + prog))
    with open(out, 'wb') as f:
        f.write(bytes(head) + prog)


if __name__ == '__main__':
    main()
