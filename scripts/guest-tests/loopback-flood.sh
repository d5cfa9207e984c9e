#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# loopback-flood.sh: an unprivileged user floods the adapter's loopback
# and the VM stays responsive.  One guest: nobody runs perftest's
# ib_write_bw with both ends in this guest (RD, 4 KiB WRITEs, 64 posted
# with each doorbell, 256 outstanding), so every frame the adapter sends
# comes straight back to it; the device model must count those frames
# against its transmit budget and let the guest's CPU run between them
# (Documentation/device-model.rst, "Sharing the adapter").  A ticker that
# sleeps 20 ms at a time measures the longest gap between its wake-ups,
# first alone, then during the flood.  Prints
# "loopback-flood: B MiB/s, longest gap G ms (alone A ms)"; passes when
# the flood ran to its end and G is at most MAX_GAP ms (the argument).
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

max=${1:?usage: loopback-flood.sh MAX_GAP_MS}
port=18530

# ticker SECONDS: the longest gap between two wake-ups, in ms.
ticker() {
	python3 -c '
import sys, time
end = time.monotonic() + float(sys.argv[1])
last = time.monotonic()
worst = 0.0
while last < end:
    time.sleep(0.02)
    now = time.monotonic()
    worst = max(worst, now - last)
    last = now
print(round(worst * 1000))' "$1"
}

# as_nobody COMMAND...: COMMAND as nobody, no capabilities.
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		--inh-caps=-all -- "$@"
}

check "modules load" load_wren
dev=$(ls /dev/infiniband/uverbs* 2>/dev/null | head -n 1)
check "a uverbs device for wren_0" test -c "${dev:-/nonexistent}"
chmod 0666 "$dev"
# perftest and rdma-core's private prefixes are in the cache under the
# host's root home (0700): let nobody through, in this guest's overlay.
chmod o+x "$HOME"

alone=$(ticker 5)
echo "# ticker alone: longest gap $alone ms"

flood="ib_write_bw -d wren_0 -x $WREN_GID -c RD -s 65536 -t 1024 -l 256 -D 20 -p $port -F"
# shellcheck disable=SC2086
as_nobody timeout 120 $flood >/tmp/flood-server.out 2>&1 &
server=$!
# shellcheck disable=SC2086
retry 20 as_nobody timeout 120 $flood 127.0.0.1 >/tmp/flood-client.out 2>&1 &
client=$!
# The ticker over the flood's middle.
sleep 4
gap=$(ticker 12)
wait $client
crc=$?
wait $server
src=$?
cat /tmp/flood-client.out
check "the flood ran as nobody to its end" test $crc -eq 0 -a $src -eq 0
bw=$(awk '$1 == 65536 && NF >= 5 { v = $4 } END { print v }' /tmp/flood-client.out)
check "the flood reported its bandwidth" test -n "$bw"
echo "loopback-flood: ${bw:-?} MiB/s, longest gap $gap ms (alone $alone ms)"
check "the longest gap during the flood is at most $max ms ($gap)" \
	test "$gap" -le "$max"
check "the loopback still answers" loopback_pingpong
check "modules unload" unload_wren
finish
