#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""dataplane_seeds.py DIR: write dataplane_fuzz's seed inputs into DIR.

Each seed is a real driver's sequence in the target's input language
(fuzz/dataplane_fuzz.c): receives posted, a SEND, RDMA WRITE, READ and
atomics on the RD, UD and RC QPs to the adapter itself or to the peer,
whose frames come back; completions polled; a QP taken to ERR and back,
a fast-register region.  libFuzzer mutates from there, so that the
first inputs already reach the transport and the completion path.
"""
import os
import struct
import sys

NQP = 3
OP_SEND, OP_RAW, OP_RECV, OP_DB, OP_POLL, OP_MEM, OP_PUMP, OP_ADMIN, \
    OP_TIME = range(9)
RD, UD, RC = 0, 1, 2
SEND, SEND_IMM, WRITE, WRITE_IMM, READ, CMP_SWP, FETCH_ADD, REG_MR, \
    LOCAL_INV, SEND_INV = range(1, 11)
SIGNALED, INLINE = 1, 4


def sel_for(qp, bits=0, mask=0xc0):
    """A selector byte naming @qp (sel % NQP) with the high @bits set."""
    for s in range(256):
        if s % NQP == qp and s & mask == bits:
            return s
    raise ValueError


def sge(key=0, off=0, length=64, second=False):
    # key selector: bit 2 picks the second region's IOVA window
    k = key | (4 if second else 0)
    return struct.pack('<BHH', k, off // 2, length)


def send(qp, opcode, sges=(), flags=SIGNALED, peer=False, dest=None,
         raddr=0, rkey=3, extra=b''):
    sel = sel_for(qp, 0x80 if peer else 0, 0xc0)
    if dest is not None:
        sel = [s for s in range(256) if s % NQP == qp and
               (s & 0x80) == (0x80 if peer else 0) and not s & 0x40 and
               (s >> 3) % NQP == dest][0]
    b = struct.pack('<BBBBBI', OP_SEND, sel, opcode - 1, flags, len(sges),
                    0x1234)  # flags bit 7 clear: a clean entry
    b += struct.pack('<HB', raddr // 4, rkey)
    return b + extra + b''.join(sges)


def recv(qp, sges, srq=False):
    sel = [s for s in range(256) if s % NQP == qp and
           (s >> 2) % 5 == len(sges) and bool(s & 0x80) == srq][0]
    return struct.pack('<BBH', OP_RECV, sel, 0x100) + b''.join(sges)


def pump(n=20, reflect=False):
    return struct.pack('<BBB', OP_PUMP, n, 1 if reflect else 0)


def poll(cq=0):
    return struct.pack('<BB', OP_POLL, cq)


def admin(sel, *rest):
    return struct.pack('<BB', OP_ADMIN, sel) + bytes(rest)


SEEDS = {
    'rd-send-self': recv(RD, [sge(0, 0, 4096)]) +
    send(RD, SEND_IMM, [sge(0, 0x2000, 100)], dest=RD) + pump() + poll(),
    'ud-send-peer': send(UD, SEND, [sge(0, 0x1000, 200)], peer=True) +
    recv(UD, [sge(0, 0, 1024)]) + pump(reflect=True) + poll() + poll(1),
    'rd-send-peer': recv(RD, [sge(0, 0, 4096)]) +
    send(RD, SEND, [sge(0, 0x1000, 3000)], peer=True) +
    pump(reflect=True) + pump(reflect=True) + poll(),
    'rc-send-srq': recv(RC, [sge(0, 0, 4096)], srq=True) +
    send(RC, SEND, [sge(0, 0x3000, 500)]) + pump() + poll() + poll(1),
    'rc-write-read': send(RC, WRITE, [sge(0, 0x1000, 256)], raddr=0x100) +
    send(RC, READ, [sge(0, 0x4000, 256)], raddr=0x100) + pump() +
    poll(),
    'rc-write-imm': recv(RC, [sge(0, 0, 64)], srq=True) +
    send(RC, WRITE_IMM, [sge(0, 0x1000, 64)], raddr=0x40) + pump() +
    poll(),
    'rc-atomics': send(RC, CMP_SWP, [], raddr=0x80,
                       extra=sge(0, 0x800, 8) + struct.pack('<II', 0, 7)) +
    send(RC, FETCH_ADD, [], raddr=0x80,
         extra=sge(0, 0x808, 8) + struct.pack('<II', 1, 0)) + pump() +
    poll(),
    'rd-write-self': send(RD, WRITE, [sge(0, 0x1000, 5000)], dest=RD,
                          raddr=0x200) + pump() + poll(),
    'ud-inline': struct.pack('<BBBBBI', OP_SEND, sel_for(UD), SEND - 1,
                             SIGNALED | INLINE, 40, 0) +
    struct.pack('<HB', 0, 0) + bytes(range(40)) +
    recv(UD, [sge(0, 0, 128)]) + pump() + poll() + poll(1),
    'qp-err-and-back': admin([s for s in range(256) if s % 10 == 2 and
                              (s >> 4) % NQP == RC][0]) +
    send(RC, SEND, [sge(0, 0, 64)]) + pump() + poll(),
    # REG_MR of 4 pages, fast (flags 0x90: its keys become the second
    # region's), then the entry that makes it valid and one that
    # invalidates it.
    'fast-reg': admin(4, 4, 0x90, 0, 1, 2, 3, 4, 0, 0x40, 0, 0, 15) +
    send(RC, REG_MR, [], extra=struct.pack('<HBB', 1024, 4, 15)) +
    send(RC, LOCAL_INV, []) + pump() + poll(),
    'time-passes': send(RD, SEND, [sge(0, 0, 64)], peer=True) + pump() +
    struct.pack('<BB', OP_TIME, 255) * 8 + pump() + poll(),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, 'seed-' + name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
