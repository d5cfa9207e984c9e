#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perftest.sh ITERS SECS REPS SPEC...: perftest between two guests (scripts/vm
# --guests 2 --lan): guest 0 serves, guest 1 connects.  A SPEC is
# DEVICE:CONN:TEST:SIZES -- DEVICE wren_0, or rxe0 for the baseline (rxe
# is then set up on the LAN NIC), CONN UD, RC or RD (Wren's reliable
# datagram, through scripts/perftest's patch), TEST ib_send_lat,
# ib_send_bw, ib_write_lat, ib_write_bw, ib_read_lat or ib_read_bw (the
# one-sided ones on RD or RC), SIZES comma-separated message sizes -- and
# each size runs REPS times: ITERS iterations (scaled down above 64 KiB
# to move the same bytes, at least 10), or ib_send_bw for SECS seconds.  Passes when every run reports its
# figures; guest 1 prints one "perftest: DEVICE CONN TEST SIZE VALUE UNIT"
# line per run: the median latency (t_typical) in usec, or the average
# bandwidth in MiB/s.
set -u
. "$WREN_TOP/scripts/guest-tests/lib.sh"

iters=${1:?usage: perftest.sh ITERS SECS REPS SPEC...}
secs=${2:?usage: perftest.sh ITERS SECS REPS SPEC...}
reps=${3:?usage: perftest.sh ITERS SECS REPS SPEC...}
shift 3
specs=$*
index=${WREN_GUEST_INDEX:-0}

check "LAN up" lan_up
case " $specs " in
*" wren_0:"*) check "modules load" load_wren ;;
esac
case " $specs " in
*" rxe0:"*)
	nic=$(ip -o -4 addr show | awk '$4 ~ /^10\.0\.0\./ { print $2 }')
	check "rxe on $nic" sh -c \
		"modprobe rdma_rxe && rdma link add rxe0 type rxe netdev $nic"
	;;
esac

port=18515
for spec in $specs; do
	IFS=: read -r dev conn test sizes <<-EOF
	$spec
	EOF
	# GID 0 of a RoCE port is link-local; rxe's 1 is the IPv4-mapped
	# LAN address, Wren's the one wren_ip_up found.
	case $dev in rxe*) gid=1 ;; *) gid=${WREN_GID:-0} ;; esac
	for size in $(echo "$sizes" | tr ',' ' '); do
		rep=0
		while [ $rep -lt "$reps" ]; do
			# Bandwidth over a fixed time: a UD datagram the
			# receiver had no buffer for is gone, and a run that
			# counted iterations would wait for it for ever.
			# Above 64 KiB, fewer iterations: the same bytes.
			n=$iters
			if [ "$size" -gt 65536 ]; then
				n=$((iters * 65536 / size))
				[ "$n" -lt 10 ] && n=10
			fi
			case $test in
			ib_send_bw) run="-D $secs" ;;
			*) run="-n $n" ;;
			esac
			# An atomic is 8 bytes: perftest takes no size for it.
			case $test in
			ib_atomic_*) sz= ;;
			*) sz="-s $size" ;;
			esac
			# perftest 25.01 asks mlx5dv about out-of-order receives
			# for RC and gives up on any other device (rxe too)
			# unless told not to use them.
			case $conn in
			RC) sz="$sz --no_ddp" ;;
			esac
			# RD has no RNR retry: a SEND that finds no receive
			# posted fails (IBV_WC_RNR_RETRY_EXC_ERR), and a TCG
			# guest whose vCPU the loaded host leaves unscheduled
			# stops reposting while the other sends on.  The
			# deepest receive queue (4096, not perftest's 512)
			# rides out such a stall (seen once in make check at
			# load average 8, 64-byte sends).
			case $test:$conn in
			ib_send_bw:RD) sz="$sz -r 4096" ;;
			esac
			args="-d $dev -x $gid -c $conn $sz $run -p $port -F"
			# shellcheck disable=SC2086 # words on purpose
			out=$(serve_or_connect timeout 300 $test $args 2>&1)
			rc=$?
			port=$((port + 1))
			rep=$((rep + 1))
			what="$test -c $conn -s $size on $dev"
			if [ $rc -ne 0 ]; then
				printf '%s\n' "$out"
				fail "$what (exit status $rc)"
				continue
			fi
			# The result line starts with the size and the iterations.
			line=$(printf '%s\n' "$out" |
				awk -v s="$size" '$1 == s && NF >= 5 { l = $0 } END { print l }')
			# A READ or atomic latency server is passive: it
			# reports nothing.
			if [ -z "$line" ] && [ "$index" -eq 0 ] &&
				{ [ "$test" = ib_read_lat ] ||
				  [ "$test" = ib_atomic_lat ]; }; then
				pass "$what (the passive side)"
				continue
			fi
			if [ -z "$line" ]; then
				printf '%s\n' "$out"
				fail "$what: no result line"
				continue
			fi
			pass "$what"
			[ "$index" -eq 0 ] && continue
			case $test in
			*_lat) value=$(echo "$line" | awk '{ print $5 }') unit=usec ;;
			*) value=$(echo "$line" | awk '{ print $4 }') unit=MiB/s ;;
			esac
			echo "perftest: $dev $conn $test $size $value $unit"
		done
	done
done

case " $specs " in *" rxe0:"*) check "rxe removed" rdma link delete rxe0 ;; esac
[ -e /sys/module/wren_ib ] && check "modules unload" unload_wren
finish
