#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# fake_test.sh BIN: wren_rd_stress linked with tests/fakeverbs.c instead
# of libibverbs and libwren, run as 2 to 4 processes on this host (the
# rendezvous on 127.0.0.1, the "RD QPs" UNIX sockets), clean and with
# faults injected on one sender, with and without one-sided transactions
# (--rdma-ops); checks what each participant reports and its exit status.
# TAP, then "N passed, N failed".

# env_I, e and rc are written and read through eval.
# shellcheck disable=SC2034,SC2154
set -u

bin=${1:?usage: fake_test.sh PATH/TO/wren_rd_stress_fake}
dir=$(mktemp -d /tmp/rdfake.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
port=$((20000 + $$ % 20000))
tests=0
failed=0

result() {
	tests=$((tests + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tests - $2"
	else
		failed=$((failed + 1))
		echo "not ok $tests - $2"
	fi
}

# run PEERS ARGS...: participant I runs with the environment in $env_I
# (VAR=VALUE words, may be unset); its output lands in $dir/outI, its
# figures in $dir/outI.json, its exit status in $rc_I.
run() {
	peers=$1
	i=0
	shift
	port=$((port + 1))
	while [ $i -lt "$peers" ]; do
		eval "e=\${env_$i:-}"
		# shellcheck disable=SC2086
		env FAKERD_DIR="$dir" $e "$bin" --peers "$peers" --index $i \
			--hub 127.0.0.1 --port $port --json "$dir/out$i.json" \
			"$@" >"$dir/out$i" 2>&1 &
		eval "pid_$i=$!"
		i=$((i + 1))
	done
	i=0
	while [ $i -lt "$peers" ]; do
		eval "wait \$pid_$i"
		eval "rc_$i=$?"
		i=$((i + 1))
	done
	unset env_0 env_1 env_2 env_3
}

# expect WHAT I RC REGEX...: participant I exited RC and its output has
# a line matching each REGEX.
expect() {
	what=$1
	i=$2
	want=$3
	bad=0
	shift 3
	eval "rc=\$rc_$i"
	[ "$rc" -eq "$want" ] || bad=1
	for re in "$@"; do
		grep -Eq -- "$re" "$dir/out$i" || bad=1
	done
	if [ $bad -ne 0 ]; then
		echo "# participant $i exited $rc (expected $want); output:"
		sed 's/^/#   /' "$dir/out$i"
	fi
	result $bad "$what"
}

zeros='duplicates 0 lost 0 corrupt 0 rnr_resends [0-9]+ in [0-9.]+ s$'
rdma_zeros='bytes [1-9][0-9]* corrupt 0 duplicates 0$'

run 3 --messages 3000 --max-size 256K
for i in 0 1 2; do
	expect "3 participants, clean: participant $i passes" $i 0 \
		"^wren_rd_stress: index $i sent 3000 received 3000 bytes [0-9]+ $zeros" \
		"^wren_rd_stress: index $i PASSED$"
done
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["passed"] and d["received"] == 3000 and d["lost"] == 0 else 1)' \
		"$dir/out0.json"
	result $? "--json writes valid JSON with the figures"
fi

# 2000 over 3: the first two of each sender's others (in index order)
# get 667, the last 666; so 0 and 1 receive 2001, 2 2000, 3 1998.
run 4 --messages 2000 --max-size 64K --window 16 --recv-depth 4 --ordered
rnr=0
for i in 0 1 2 3; do
	case $i in 0 | 1) n=2001 ;; 2) n=2000 ;; 3) n=1998 ;; esac
	expect "4 participants, --ordered, 4 receives: participant $i passes" \
		$i 0 "^wren_rd_stress: index $i sent 2000 received $n bytes [0-9]+ $zeros" \
		"misordered 0, receive errors 0"
	grep -Eq 'rnr_resends [1-9]' "$dir/out$i" && rnr=1
done
[ $rnr -eq 1 ]
result $? "4 receives for 3 senders: receiver-not-ready resends happen"

env_1="FAKERD_DUP_EVERY=50"
run 2 --messages 1000 --max-size 16K
expect "a duplicate is counted and fails the receiver" 0 1 \
	"DUPLICATE: message [0-9]+ from participant 1 arrived again" \
	"^wren_rd_stress: index 0 sent 1000 received 1000 bytes [0-9]+ duplicates [1-9][0-9]* lost 0 corrupt 0" \
	"^wren_rd_stress: index 0 FAILED: [1-9][0-9]* duplicates"
expect "the duplicating sender itself passes" 1 0 "PASSED"

env_1="FAKERD_CORRUPT_EVERY=40"
run 2 --messages 1000 --max-size 16K
expect "a flipped byte is counted and fails the receiver" 0 1 \
	"CORRUPT: message [0-9]+ from participant 1 \([0-9]+ bytes\): byte [0-9]+ is 0x" \
	"duplicates 0 lost 0 corrupt [1-9][0-9]* "

env_1="FAKERD_DROP_EVERY=100"
run 2 --messages 1000 --max-size 16K --timeout 5
expect "a lost message times the receiver out, saying which" 0 1 \
	"timed out after 5 s" \
	"from participant 1: [0-9]+ of 1000; missing k = [0-9]" \
	"duplicates 0 lost [1-9][0-9]* corrupt 0"
expect "the others are aborted with the reason" 1 1 \
	"FAILED: aborted by the hub: participant 0 \(the hub\) failed: timed out after 5 s"

env_1="FAKERD_SWAP_EVERY=25"
run 2 --messages 1000 --max-size 16K --ordered
expect "--ordered: an overtaken message is MISORDERED" 0 1 \
	"MISORDERED: message [0-9]+ from participant 1 arrived after its message" \
	"FAILED: 0 duplicates, 0 lost, 0 corrupt, [1-9][0-9]* misordered"

env_1="FAKERD_SWAP_EVERY=25"
run 2 --messages 1000 --max-size 16K
expect "without --ordered, order is not checked" 0 0 "PASSED" \
	"not checked: no --ordered"

env_2="FAKERD_SEND_ERROR_AT=10"
run 3 --messages 600 --max-size 16K
expect "a send error fails the sender" 2 1 \
	"send of message [0-9]+ \([0-9]+ bytes\) to participant [01] completed with remote operation error"
expect "a send error elsewhere aborts the hub" 0 1 \
	"FAILED: participant 2 failed: send of message"
expect "a send error elsewhere aborts the others, naming the cause" 1 1 \
	"FAILED: aborted by the hub: participant 2 failed: send of message"

# 150 transactions with each of 2 others: 300 WRITEs and READs, and 75
# WRITE_WITH_IMM arrivals from each other.
run 3 --messages 1500 --max-size 64K --rdma-ops 150
for i in 0 1 2; do
	expect "--rdma-ops 150, 3 participants: participant $i passes" $i 0 \
		"^wren_rd_stress: index $i sent 1500 received 1500 bytes [0-9]+ $zeros" \
		"^wren_rd_stress: index $i rdma writes 300 reads 300 imm_arrivals 150 $rdma_zeros" \
		"^wren_rd_stress: index $i PASSED$"
done
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rdma"]; sys.exit(0 if r["ops"] == 150 and r["transactions"] == 300 and r["imm_arrivals"] == r["imm_expected"] == 150 and r["corrupt"] == 0 else 1)' \
		"$dir/out1.json"
	result $? "--json has the RDMA figures"
fi

env_1="FAKERD_RDMA_CORRUPT_EVERY=7"
run 2 --messages 500 --max-size 16K --rdma-ops 100
expect "a byte flipped in a WRITE is found in what the writer reads back" \
	1 1 "RDMA CORRUPT: transaction [0-9]+ with participant 0 \([0-9]+ bytes\) read back: byte [0-9]+ is 0x" \
	"^wren_rd_stress: index 1 rdma writes 100 reads 100 imm_arrivals 50 bytes [0-9]+ corrupt [1-9][0-9]* duplicates 0$" \
	"FAILED: 0 duplicates, 0 lost, 0 corrupt, 0 misordered, 0 receive errors, [1-9][0-9]* RDMA corrupt"
expect "... and by the window's owner when it writes with immediate" 0 1 \
	"RDMA CORRUPT: transaction [0-9]*[13579] of participant 1 \([0-9]+ bytes\) as it arrived in our window: byte [0-9]+ is 0x"

env_1="FAKERD_RDMA_DUP_EVERY=3"
run 2 --messages 500 --max-size 16K --rdma-ops 100
expect "a WRITE_WITH_IMM arriving twice is a duplicate at the window's owner" \
	0 1 "RDMA DUPLICATE: transaction [0-9]+ of participant 1 arrived again" \
	"^wren_rd_stress: index 0 rdma writes 100 reads 100 imm_arrivals 50 bytes [0-9]+ corrupt 0 duplicates [1-9][0-9]*$"
expect "the writer itself passes" 1 0 "PASSED"

env_1="FAKERD_RDMA_BADKEY_AT=30"
run 2 --messages 500 --max-size 16K --rdma-ops 100
expect "a refused RDMA operation fails the requester" 1 1 \
	"FAILED: RDMA (WRITE|READ|READ of the header) of transaction [0-9]+ \([0-9]+ bytes\) with participant 0 completed with remote access error" \
	"RDMA: 1 failed"
expect "... and aborts the others, naming the cause" 0 1 \
	"FAILED: participant 1 failed: RDMA .* remote access error"

# Participant 1 without --rdma-ops: the hub refuses it.
port=$((port + 1))
FAKERD_DIR="$dir" "$bin" --peers 2 --index 0 --port $port --rdma-ops 10 \
	>"$dir/out0" 2>&1 &
pid_0=$!
FAKERD_DIR="$dir" "$bin" --peers 2 --index 1 --hub 127.0.0.1 --port $port \
	>"$dir/out1" 2>&1
rc_1=$?
wait $pid_0
rc_0=$?
expect "an --rdma-ops mismatch is refused by the hub" 0 1 \
	"FAILED: participant 1 says --rdma-ops 0, the hub 10"
expect "... and the participant is told why" 1 1 \
	"FAILED: aborted by the hub: participant 1 says --rdma-ops 0, the hub 10"

"$bin" --peers 2 --index 2 >"$dir/usage" 2>&1
[ $? -eq 2 ] && grep -q "must be below --peers" "$dir/usage"
result $? "a bad --index is a usage error (exit 2)"

echo "$((tests - failed)) passed, $failed failed"
[ $failed -eq 0 ]
