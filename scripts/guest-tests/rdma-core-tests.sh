#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rdma-core-tests.sh MODULE...: rdma-core's own Python tests (tests.MODULE,
# from the private prefix) on wren_0, verbosely, then their counts.  Every
# test must pass, or skip because the device said EOPNOTSUPP (the tests
# then skip with "... not supported"); any other skip -- no port up, no
# GID, a missing tool -- counts as a failure, and so does an error.  Three
# skips are decided by the tests before they reach the device, on what
# Wren is, and are counted apart as not applicable: raw packet QPs and
# RoCE tests (they need an Ethernet link layer; Wren's, like EFA's, is
# unspecified) and the bad flow of an empty GID slot (Wren's one GID slot
# is always populated).
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

[ $# -gt 0 ] || { echo "usage: rdma-core-tests.sh MODULE..." >&2; exit 2; }
runner=$WREN_BUILD/rdma-core/share/doc/rdma-core/tests/run_tests.py

check "modules load" load_wren
# The huge-page traffic tests need some 2 MiB pages.
echo 64 >/proc/sys/vm/nr_hugepages
check "rdma-core's test runner is installed" test -f "$runner"

mods=
for m in "$@"; do
	mods="$mods tests.$m"
done
# shellcheck disable=SC2086 # the modules are words
out=$(timeout 1200 /usr/bin/python3 "$runner" --dev wren_0 --port 1 --gid "$WREN_GID" -v $mods 2>&1)
rc=$?
printf '%s\n' "$out"

# unittest -v: "name (module.Class.name) ... ok|skipped 'why'|FAIL|ERROR";
# a docstring may put the verdict on the next line.
printf '%s\n' "$out" | /usr/bin/python3 -c '
import re, sys
passed = skipped = na = 0
bad = []
not_applicable = (r"must be done by root on Ethernet link layer",
                  r"Link layer of port=1 is Unspecified , skip RoCE test",
                  r"All gid indices populated, cannot check bad flow")
for line in sys.stdin:
    m = re.search(r"\.\.\. (ok|skipped (.*)|FAIL|ERROR|expected failure|unexpected success)$",
                  line.rstrip())
    if not m:
        continue
    name = line.split(" ... ")[0].strip()
    verdict = m.group(1)
    if verdict == "ok":
        passed += 1
    elif verdict.startswith("skipped"):
        why = m.group(2)
        if re.search(r"not supported|Operation not supported|EOPNOTSUPP", why, re.I):
            skipped += 1
        elif any(re.search(p, why) for p in not_applicable):
            na += 1
            print("not applicable: %s: %s" % (name, why))
        else:
            bad.append("%s: skipped for another reason: %s" % (name, why))
    else:
        bad.append("%s: %s" % (name, verdict))
for b in bad:
    print("bad: " + b)
print("rdma-core tests: %d passed, %d skipped (unsupported), "
      "%d not applicable, %d failed" % (passed, skipped, na, len(bad)))
sys.exit(1 if bad or passed == 0 else 0)
'
verdict=$?
check "rdma-core tests: no failure, no error, no skip but EOPNOTSUPP" test $verdict -eq 0
check "rdma-core test runner exit status ($rc)" test $rc -eq 0

check "modules unload" unload_wren
finish
