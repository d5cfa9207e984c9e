#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""fabric_replay.py FABRIC PCAP OUTDIR [FABRIC OPTIONS...]

Plays the frames of PCAP (the capture wren_capture wrote) into a real
tools/fabric on loopback, each from the port of the guest that owns its
IPv4 source address (198.18.0.N is port N-1), with the FABRIC OPTIONS
(loss, duplication...), and lets the fabric capture them: OUTDIR gets
in.pcap (--pcap-in), out.pcap (--pcap) and fabric.json (--stats), for
dissector_test.py --fabric-json.  No guest needed: the frames are the
transport's own, so the fabric counts real Wren traffic.
"""
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

GUESTS = 3


def frames(path):
    """The frames of a classic pcap file, either byte order."""
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    fabric, pcap, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    ports_file = os.path.join(out, "ports")
    if os.path.exists(ports_file):
        os.unlink(ports_file)
    guests = []
    for _ in range(GUESTS):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        s.setblocking(False)
        guests.append(s)
    args = [fabric, "--quiet", "--ports-file", ports_file,
            "--pcap-in", os.path.join(out, "in.pcap"),
            "--pcap", os.path.join(out, "out.pcap"),
            "--stats", os.path.join(out, "fabric.json")]
    for i, s in enumerate(guests):
        args += ["--port", "%d:0:%d" % (i, s.getsockname()[1]),
                 "--route", "198.18.0.%d=%d" % (i + 1, i)]
    fab = subprocess.Popen(args + sys.argv[4:])
    deadline = time.time() + 10
    while not os.path.exists(ports_file):
        if fab.poll() is not None or time.time() > deadline:
            sys.exit("fabric_replay: the fabric did not start")
        time.sleep(0.05)
    listen = {}
    for line in open(ports_file):
        pid, port = line.split()[:2]
        listen[int(pid)] = int(port)

    def drain():
        r, _, _ = select.select(guests, [], [], 0)
        for s in r:
            try:
                while True:
                    s.recv(65536)
            except BlockingIOError:
                pass

    def rx_queue(port):
        """Bytes waiting in the fabric's socket on @port (/proc/net/udp)."""
        for line in open("/proc/net/udp"):
            w = line.split()
            if w[1].endswith(":%04X" % port):
                return int(w[4].split(":")[1], 16)
        return 0

    def wait_read(port):
        end = time.time() + 2
        while port is not None and rx_queue(port) and time.time() < end:
            time.sleep(0.0001)

    sent = 0
    last = None
    for f in frames(pcap):
        src = f[26:30]		# the IPv4 source address
        i = src[3] - 1 if src[:3] == bytes([198, 18, 0]) else 0
        guests[i].sendto(f, ("127.0.0.1", listen[i]))
        sent += 1
        # The fabric reads its ports in turn, 64 frames at a time; for
        # it to read the frames in the capture's order (an ACK after
        # the DATA it answers, as from guests), a frame to another port
        # waits until the last port's socket is empty.
        if i != last:
            wait_read(listen[last] if last is not None else None)
            last = i
        if sent % 32 == 0:
            drain()
    time.sleep(0.3)
    drain()
    fab.send_signal(signal.SIGTERM)
    rc = fab.wait(10)
    print("# fabric_replay: %d frames sent, fabric exit %d" % (sent, rc))
    sys.exit(rc)


main()
