#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""dissector_test.py LUA HEADER PCAP COUNTS [BAD]: the dissector's test (TAP).

1. Every constant of tools/wireshark/wren.lua that names a C constant in
   a trailing "-- WREN_WIRE_..." comment has that constant's value in
   include/linux/wren/wren_wire.h, every enum of the header appears in
   the Lua tables in the header's order, and each name shown is the C
   name without its prefix: the tables are kept by hand, this keeps them
   honest.
2. tshark with the dissector decodes every frame of PCAP (written by
   wren_capture, which counted its frames into COUNTS) as Wren, raises no
   malformed-packet or error expert info and no Lua error, and finds per
   packet type, and for retransmissions, trimmed and CE-marked packets,
   RDMA headers and ACK bitmap words, the numbers COUNTS gives, and
   links every ACK to the DATA packet it answers.
3. Every packet of BAD, malformed on purpose, raises an error.

With --fabric-json FILE instead of COUNTS, PCAP is the fabric's
--pcap-in capture and the counts are checked against the fabric's own
counters of the frames it received (tools/fabric/README.rst, "Stats"):
frames, Wren frames, each packet type and RETX.
"""
import collections
import os
import re
import subprocess
import sys

TYPES = ["DATA", "ACK", "NACK", "CONNECT", "CONNECT_ACK", "CLOSE", "GRANT",
         "UD"]
tests = failed = 0


def ok(cond, what):
    global tests, failed
    tests += 1
    if not cond:
        failed += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", tests, what))
    sys.stdout.flush()


def header_constants(path):
    """The header's enums, in order, and its numeric #defines."""
    text = open(path).read()
    enums = []
    for body in re.findall(r"enum wren_wire_\w+ \{(.*?)\};", text, re.S):
        enums += [(n, int(v, 0)) for n, v in
                  re.findall(r"^\s*(WREN_WIRE_\w+)\s*=\s*(\w+),", body,
                             re.M)]
    defines = {n: int(v, 0) for n, v in
               re.findall(r"^#define\s+(WREN_WIRE_\w+)\s+(0x[0-9a-fA-F]+|\d+)U?\s",
                          text, re.M)}
    defines.update((n, 1 << int(b)) for n, b in
                   re.findall(r"^#define\s+(WREN_WIRE_\w+)\s+BIT\((\d+)\)",
                              text, re.M))
    defines.update((n, (1 << int(h) + 1) - (1 << int(l))) for n, h, l in
                   re.findall(r"^#define\s+(WREN_WIRE_\w+)\s+"
                              r"GENMASK\((\d+), (\d+)\)", text, re.M))
    defines.update(("sizeof(struct %s)" % n, int(v)) for n, v in
                   re.findall(r"static_assert\(sizeof\(struct (\w+)\) == (\d+)\)",
                              text))
    defines.update(enums)
    return enums, defines


def check_tables(lua, header):
    enums, defines = header_constants(header)
    src = open(lua).read()
    entries = re.findall(
        r'^\s*\[(\d+)\]\s*=\s*"(\w+)",\s*--\s*(WREN_WIRE_\w+)\s*$', src, re.M)
    got = [(c, int(v)) for v, _, c in entries]
    ok(got == enums, "the Lua enum tables are the header's enums, in order "
       "(%d entries)" % len(enums))
    if got != enums:
        for a, b in zip(got + [None] * len(enums), enums):
            if a != b:
                print("#   first difference: lua %s, header %s" % (a, b))
                break
    bad = [(c, n) for _, n, c in entries if not c.endswith("_" + n)]
    ok(not bad, "every name shown is its C name without the prefix %s"
       % (bad or ""))
    consts = re.findall(
        r"^local\s+\w+\s*=\s*(0x[0-9a-fA-F]+|\d+)\s*--\s*"
        r"(WREN_WIRE_\w+|sizeof\(struct \w+\))\s*$",
        src, re.M)
    wrong = [(c, v) for v, c in consts if defines.get(c) != int(v, 0)]
    ok(consts and not wrong, "%d constants equal the header's %s"
       % (len(consts), wrong or ""))


def installed_copies(lua):
    """Copies of the dissector in tshark's Lua plugin folders that are
    not @lua's contents: tshark would load them instead (wren.lua steps
    aside when loaded twice), so the tree's would go untested."""
    r = subprocess.run(["tshark", "-G", "folders"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, universal_newlines=True)
    mine = open(lua, "rb").read()
    stale = []
    for line in r.stdout.splitlines():
        if "Lua Plugins" not in line:
            continue
        top = line.split("\t")[-1].strip()
        for root, _, files in os.walk(top):
            for f in files:
                p = os.path.join(root, f)
                if f.endswith(".lua") and b'Proto("wren"' in \
                   open(p, "rb").read() and open(p, "rb").read() != mine:
                    stale.append(p)
    return stale


def tshark(lua, pcap, *args):
    cmd = ["tshark", "-n", "-X", "lua_script:" + lua, "-r", pcap] + \
        list(args)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    err = [l for l in r.stderr.splitlines()
           if "Running as user" not in l and l.strip()]
    ok(r.returncode == 0 and not err, "tshark %s ran cleanly %s"
       % (" ".join(args[:2]), err[:3] or ""))
    return r.stdout.splitlines()


def decode_counts(lua, pcap):
    fields = ["frame.number", "wren.type", "wren.analysis.retransmission",
              "wren.flags.trimmed", "wren.ce", "wren.rdma.rkey",
              "wren.ack.bitmap_words", "_ws.malformed", "_ws.lua.text",
              "wren.analysis.data_frame"]
    args = ["-T", "fields", "-E", "separator=|", "-E", "occurrence=l"]
    for f in fields:
        args += ["-e", f]
    c = collections.Counter()
    for line in tshark(lua, pcap, *args):
        num, wtype, retx, trim, ce, rkey, words, malf, luaerr, data = \
            line.split("|")
        c["frames"] += 1
        if not wtype:
            c["not_wren"] += 1
            continue
        t = int(wtype)
        c[TYPES[t - 1] if 1 <= t <= len(TYPES) else "type%d" % t] += 1
        c["RETX"] += retx in ("1", "True")
        c["TRIMMED"] += trim in ("1", "True")
        c["CE"] += ce in ("1", "True")
        c["RDMA"] += rkey != ""
        c["SACK_WORDS"] += int(words or 0)
        c["malformed"] += malf != "" or luaerr != ""
        c["unlinked_acks"] += t == 2 and data == ""
    # Errors the dissector reports as expert info rather than exceptions.
    errs = tshark(lua, pcap, "-Y",
                  "_ws.malformed || _ws.expert.severity == error")
    c["expert_errors"] = len(errs)
    for l in errs[:5]:
        print("#   " + l)
    return c


def main():
    argv = sys.argv[1:]
    fabric = None
    if argv and argv[0] == "--fabric-json":
        fabric = argv[1]
        argv = argv[2:]
    if len(argv) not in ((3,) if fabric else (4, 5)):
        sys.exit(__doc__)
    lua, header, pcap = argv[:3]

    stale = installed_copies(lua)
    ok(not stale, "no other copy of the dissector installed %s "
       "(make install again, or make uninstall)" % (stale or ""))
    check_tables(lua, header)
    got = decode_counts(lua, pcap)
    if fabric is None:
        ok(got["frames"] > 0 and got["not_wren"] == 0,
           "every one of the %d frames is decoded as Wren" % got["frames"])
    ok(got["malformed"] == 0 and got["expert_errors"] == 0,
       "no malformed packet, no error (%d, %d)"
       % (got["malformed"], got["expert_errors"]))
    # Every ACK answers a DATA packet that crossed the capture point
    # before it: in the transports' own capture.  A fabric reads its ports
    # in turn, so a replayed ACK may enter it before the DATA it answers,
    # which came in on another port.
    if fabric is None:
        ok(got["ACK"] > 0 and got["unlinked_acks"] == 0,
           "every ACK is linked to the DATA it answers (%d of %d are not)"
           % (got["unlinked_acks"], got["ACK"]))
    if fabric is None:
        want = {}
        for line in open(argv[3]):
            k, v = line.split()
            want[k] = int(v)
        nbad = want.pop("BAD", 0)
        if len(argv) > 4:
            # The malformed packets must each raise an error.
            bad = tshark(lua, argv[4], "-Y",
                         "_ws.malformed || _ws.expert.severity == error")
            allbad = tshark(lua, argv[4])
            ok(nbad > 0 and len(bad) == nbad == len(allbad),
               "each of the %d malformed packets is flagged (%d)"
               % (nbad, len(bad)))
            for l in allbad:
                print("#   " + l)
        for k, v in want.items():
            ok(got[k] == v, "%s: tshark %d, wren_capture %d" % (k, got[k], v))
        for t in TYPES:
            ok(got[t] > 0, "the capture has %s packets" % t)
    else:
        # A --pcap-in capture holds every frame the fabric received.
        import json
        ports = json.load(open(fabric))["ports"]

        def total(key):
            return sum(p[key] for p in ports)
        pairs = [("frames", "rx_frames"),
                 ("wren", "rx_wren")] + \
            [(t, "rx_wren_" + t.lower()) for t in TYPES] + \
            [("RETX", "rx_wren_retx")]
        got["wren"] = got["frames"] - got["not_wren"]
        for k, key in pairs:
            ok(got[k] == total(key), "%s: tshark %d, fabric %s %d"
               % (k, got[k], key, total(key)))
    print("%d passed, %d failed" % (tests - failed, failed))
    sys.exit(1 if failed else 0)


main()
