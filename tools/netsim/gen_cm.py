#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# gen_cm.py: write the connection matrices (htsim's format, read by
# netsim's app = matrix) of the workloads that no other app expresses:
#
#   alltoall  every host of the group sends one message of --size to every
#             other host, all at time 0; host i's flows are listed (and so
#             posted) to i + 1, i + 2, ... in turn, as collective
#             libraries stagger an all-to-all, so no host is everybody's
#             first target
#   incast    --senders hosts (--first, --first + 1, ...) send one
#             message of --size each to host 0, and hosts that are not
#             host 0 run a background among themselves: --bg-rounds
#             rounds, --bg-period-us apart, of a permutation of --bg-size
#             messages (a fresh random derangement across leaves each
#             round, --leaf hosts a leaf; seeded, so the file is the same
#             for the same arguments); with --bg-hosts rest, the hosts
#             that are neither host 0 nor a sender, with all, every host
#             but host 0 (a sender then also carries background flows)
#
# Nothing targets host 0 but the incast.  The scenario files that read
# these name them under build/netsim/cm/; bench.py writes them before it
# runs (gen_cm.py --all), and so does one call by hand:
#
#   python3 tools/netsim/gen_cm.py --all
#
# A line per flow, in flow order: "SRC->DST id ID start PS size B".

import argparse
import os
import random
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CMDIR = os.path.join(TOP, "build", "netsim", "cm")

# The files the scenarios read: name -> (kind, arguments).  The incast
# files list the incast first, then the background; bench.py tells them
# apart by their target (host 0 or not).
FILES = {
    "a2a_128x64k.cm": ("alltoall", {"hosts": 128, "size": 64 << 10}),
    "incast32_bg.cm": ("incast", {"hosts": 128, "senders": 32,
                                  "first": 16, "size": 2 << 20,
                                  "bg_size": 1 << 20, "bg_rounds": 16,
                                  "bg_period_us": 344, "bg_hosts": "rest",
                                  "leaf": 16}),
    "incast127_bg.cm": ("incast", {"hosts": 128, "senders": 127,
                                   "first": 1, "size": 512 << 10,
                                   "bg_size": 1 << 20, "bg_rounds": 16,
                                   "bg_period_us": 344, "bg_hosts": "all",
                                   "leaf": 16}),
}


def alltoall(hosts, size):
    return [(i, (i + k) % hosts, size) for k in range(1, hosts)
            for i in range(hosts)]


def derangement(nodes, leaf, rng):
    """A random permutation of @nodes with every pair on two leaves."""
    for _ in range(10000):
        p = nodes[:]
        rng.shuffle(p)
        if all(a // leaf != b // leaf for a, b in zip(nodes, p)):
            return dict(zip(nodes, p))
    # Too constrained for rejection: shift by a leaf, then swap at random.
    n = len(nodes)
    p = [nodes[(i + leaf) % n] for i in range(n)]
    for _ in range(32 * n):
        x, y = rng.randrange(n), rng.randrange(n)
        if (p[y] // leaf != nodes[x] // leaf and
                p[x] // leaf != nodes[y] // leaf):
            p[x], p[y] = p[y], p[x]
    assert all(a // leaf != b // leaf for a, b in zip(nodes, p))
    return dict(zip(nodes, p))


def incast(hosts, senders, first, size, bg_size, bg_hosts, leaf,
           bg_rounds=1, bg_period_us=0, seed=1):
    inc = range(first, first + senders)
    flows = [(i, 0, size, 0) for i in inc]
    bg = [h for h in range(1, hosts)
          if bg_hosts == "all" or h not in inc]
    rng = random.Random(seed)
    if bg_size and len(bg) > 1:
        for r in range(bg_rounds):
            p = derangement(bg, leaf, rng)
            t = int(r * bg_period_us * 1e6)
            flows += [(h, p[h], bg_size, t) for h in bg]
    return flows


def write(path, hosts, flows, why):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("# %s\n# written by tools/netsim/gen_cm.py\n" % why)
        f.write("Nodes %d\nConnections %d\n" % (hosts, len(flows)))
        for i, fl in enumerate(flows):
            s, d, b = fl[:3]
            t = fl[3] if len(fl) > 3 else 0
            f.write("%d->%d id %d start %d size %d\n" % (s, d, i + 1, t, b))
    os.replace(tmp, path)


def make(name, kind, args):
    path = os.path.join(CMDIR, name)
    if kind == "alltoall":
        flows = alltoall(args["hosts"], args["size"])
    else:
        flows = incast(**args)
    write(path, args["hosts"], flows, "%s %s" % (kind, " ".join(
        "%s=%s" % kv for kv in sorted(args.items()))))
    return path


def make_all():
    return [make(name, kind, args) for name, (kind, args) in FILES.items()]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--all", action="store_true",
                    help="the files the scenarios read, in build/netsim/cm")
    ap.add_argument("kind", nargs="?", choices=("alltoall", "incast"))
    ap.add_argument("--out")
    ap.add_argument("--hosts", type=int, default=128)
    ap.add_argument("--size", type=int, default=64 << 10)
    ap.add_argument("--senders", type=int, default=32)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--bg-size", type=int, default=0)
    ap.add_argument("--bg-hosts", choices=("rest", "all"), default="rest")
    ap.add_argument("--bg-rounds", type=int, default=1)
    ap.add_argument("--bg-period-us", type=float, default=0)
    ap.add_argument("--leaf", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.all:
        for p in make_all():
            print(os.path.relpath(p, TOP))
        return 0
    if not a.kind or not a.out:
        ap.error("--all, or a kind and --out")
    if a.kind == "alltoall":
        flows = alltoall(a.hosts, a.size)
    else:
        flows = incast(a.hosts, a.senders, a.first, a.size, a.bg_size,
                       a.bg_hosts, a.leaf, a.bg_rounds, a.bg_period_us,
                       a.seed)
    write(a.out, a.hosts, flows, " ".join(sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
