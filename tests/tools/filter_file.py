#!/usr/bin/env python3
"""Writes a filter file (the format of hook/shared/filterfile.h) from
hand-made BPF, for tests that need a program no profile compiles to (one that
reads the instruction pointer, say).

    filter_file.py [--listener N] [--agent PATH META | --trailer HEX] OUT CODE,JT,JF,K ...
                                                    (numbers in C notation: 0x20, 8, ...)

--listener sets the header's listener field (1: exec-once, 2: an agent's), to forge one.
--agent writes an agent's trailer (PATH NUL META NUL, zero-padded to 8) and sets listener 2;
--trailer writes the given bytes (hex) as the trailer as they are, to forge one.
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
    trailer = b''
    while argv[0].startswith('--'):
        if argv[0] == '--listener':
            listener, argv = int(argv[1], 0), argv[2:]
        elif argv[0] == '--agent':
            trailer = argv[1].encode() + b'\0' + argv[2].encode() + b'\0'
            trailer += b'\0' * (-len(trailer) % 8)
            listener, argv = 2, argv[3:]
        elif argv[0] == '--trailer':
            trailer, argv = bytes.fromhex(argv[1]), argv[2:]
        else:
            sys.exit('filter_file.py: unknown option ' + argv[0])
    out, insns = argv[0], argv[1:]
    prog = b''.join(struct.pack('=HBBI', *(int(v, 0) for v in i.split(','))) for i in insns)
    # version 2: magic, version, flags, count, checksum, listener, trailer's length
    head = bytearray(b'TSYNCBPF' + struct.pack('=IIIIII', 2, 0, len(prog) // 8, 0, listener, len(trailer)))
    head[20:24] = struct.pack('=I', fnv1a(bytes(head) + prog + trailer))
    with open(out, 'wb') as f:
        f.write(bytes(head) + prog + trailer)


if __name__ == '__main__':
    main()
