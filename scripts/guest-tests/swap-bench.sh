#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# swap-bench.sh TRANSPORT... [-- ARGS...]: libswap's swap_bench between
# two guests (scripts/vm --guests 2 --lan --fabric ''), for each
# TRANSPORT (rd, rc: Wren's; rxe: RC over rxe on the LAN) in turn:
# SWAP against plain SEND/receive with pre-posted buffers on the same QP
# type, 64 B to 1 MiB.  Guest 1 prints the figures (swap_bench's lines);
# ARGS go to swap_bench (--iters, --count, --max-size...).  A benchmark:
# it fails only when a run fails.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

index=${WREN_GUEST_INDEX:-0}
bench=${WREN_BUILD:-$WREN_TOP/build}/swap/swap_bench
transports=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	transports="$transports $1"
	shift
done
[ $# -gt 0 ] && shift

check "LAN up" lan_up
check "modules load" load_wren
check "swap_bench is built (make swap)" test -x "$bench"
case " $transports " in
*" rxe "*)
	nic=$(ip -o -4 addr show | awk '$4 ~ /^10\.0\.0\./ { print $2 }')
	check "rxe on $nic" sh -c \
		"modprobe rdma_rxe && rdma link add rxe0 type rxe netdev $nic"
	;;
esac
port=18720
for t in $transports; do
	case $t in
	rxe) args="--device rxe0 --gid-index 1 --transport rc" ;;
	*) args="--device wren_0 --gid-index $WREN_GID --transport $t" ;;
	esac
	# shellcheck disable=SC2086
	out=$(timeout 1200 "$bench" --index "$index" --hub 10.0.0.1 \
		--port $port $args "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed "s/^swap_bench: /swap_bench: $t /"
	check "swap_bench $t (exit status $rc)" test "$rc" -eq 0
	port=$((port + 1))
done
case " $transports " in *" rxe "*) check "rxe removed" rdma link delete rxe0 ;; esac
check "modules unload" unload_wren
finish
