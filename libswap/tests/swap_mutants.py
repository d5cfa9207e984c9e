#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""swap_mutants.py BUILD_DIR: the unit test catches each of libswap's
deliberate bugs.

Each mutant below breaks one rule of the protocol in the library's
sources (the one-READ rule, the sequence window, pool room, credits,
buffer size, the source QP check, spilling, resending, RC's flushed
sends at removal, RD's header before its WRITE completed, RC's
header held back...); the sources
are patched, swap_unit built in BUILD_DIR/mutant and run, and the
sources restored.  Passes when every mutant makes the unit test fail.
The two halves of the one-READ rule are each redundant with the other,
so they are one mutant.  Last line: "mutants: N of M caught".
"""
import os
import shutil
import subprocess
import sys

MUTANTS = [
 ("swap_wire.c", 'return "released a message count it never received";', 'return NULL;'),
 ("swap_wire.c", '\t\treturn "a piece not where the previous one ended";', '\t\treturn NULL;'),
 ("swap_tx.c", "\t\tif (!p->write_refused)\n\t\t\tp->write_refused = wc->status;\n", ""),
 ("swap_tx.c", "\t    resend_later(ep, p, idx))\n\t\treturn;", "\t    0 && resend_later(ep, p, idx))\n\t\treturn;"),
 ("swap_rx.c", "if (s->state != S_READY || (!s->assembled &&", "if (s->state != S_READY || (1 &&"),
 ("swap_tx.c", "\t\tswap_rx_spill(ep);\n", ""),
 ("swap_poll.c", "if (p->state != P_CONNECTED || p->read_busy)", "if (p->state != P_CONNECTED)", "swap_tx.c", "if (p->read_busy || p->state != P_CONNECTED)", "if (p->state != P_CONNECTED)"),
 ("swap_rx.c", "if ((uint32_t)(h.seq - p->rx_check) >=", "if (0 && (uint32_t)(h.seq - p->rx_check) >="),
 ("swap_wire.c", "if (s + len - released > pool_size)", "if (0 && s + len - released > pool_size)"),
 ("swap_rx.c", "if (h->len > ep->a.buf_size)", "if (0 && h->len > ep->a.buf_size)"),
 ("swap_tx.c", "if ((uint32_t)(p->tx_seq - p->tx_released) >= p->ra.buf_count)", "if (0 && p->ra.buf_count)"),
 ("swap_rx.c", "\t\trbuf_return(ep, s->rbuf);\n\t\tif (s->h.type", "\t\tif (s->h.type"),
 ("swap_wire.c", "if (f->pool_released > pos)", "if (0 && f->pool_released > pos)"),
 ("swap_rx.c", "if (!p || p->state != P_CONNECTED || wc->src_qp != p->ra.qpn)", "if (!p || p->state != P_CONNECTED)"),
 ("swap_partner.c", "\t\tswap_tx_drain(ep, p);\n", ""),
 ("swap_tx.c", "while (ep->tp == SWAP_TRANSPORT_RD && p->writes_out)", "while (0 && p->writes_out)"),
 ("swap_tx.c", "while (ep->tp == SWAP_TRANSPORT_RD && p->writes_out)", "while (p->writes_out)"),
]


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = os.path.join(sys.argv[1] if len(sys.argv) > 1 else "/tmp",
                         "mutant")
    os.chdir(here)
    caught = 0
    for m in MUTANTS:
        edits = [m[i:i + 3] for i in range(0, len(m), 3)]
        saved = {}
        try:
            for f, a, b in edits:
                saved.setdefault(f, open(f).read())
                s = open(f).read()
                assert a in s, (f, a)
                open(f, "w").write(s.replace(a, b, 1))
            shutil.rmtree(build, ignore_errors=True)
            mk = subprocess.run(["make", "-s", "O=" + build,
                                 os.path.join(build, "swap_unit")],
                                capture_output=True, text=True)
            if mk.returncode:
                print("mutant %s: does not build" % edits[0][1][:50])
                continue
            r = subprocess.run(["timeout", "60",
                                os.path.join(build, "swap_unit")],
                               capture_output=True, text=True)
            first = [l for l in r.stdout.splitlines()
                     if l.startswith("not ok")][:1]
            ok = r.returncode != 0
            caught += ok
            print("mutant %-10s %-50s %s %s" %
                  (edits[0][0], edits[0][1][:50].replace("\n", " "),
                   "caught" if ok else "MISSED", first[0] if first else ""))
        finally:
            for f, s in saved.items():
                open(f, "w").write(s)
    shutil.rmtree(build, ignore_errors=True)
    print("mutants: %d of %d caught" % (caught, len(MUTANTS)))
    return 0 if caught == len(MUTANTS) else 1


if __name__ == "__main__":
    sys.exit(main())
