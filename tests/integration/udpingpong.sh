#!/bin/bash
# ibv_ud_pingpong -g 0 between two processes, several sizes up to the MTU,
# with and without completion events.
# Usage: udpingpong.sh BUILD ABI SERVER_PROVIDER CLIENT_PROVIDER
. "$(dirname "$0")/lib.sh" "$1"
ABI=$2 SP=$3 CP=$4
PORT=$(pick_port)
start_host --abi "$ABI"

n=0
for size in 1 1024 4096; do
	for ev in "" -e; do
		pair "$SP" "$CP" ibv_ud_pingpong -g 0 -p "$PORT" -s "$size" -n 200 $ev ||
			fail "ibv_ud_pingpong at size $size $ev"
		for side in server client; do
			grep -q "200 iters in" "$RUN/$side.out" ||
				fail "$side at size $size $ev: $(cat "$RUN/$side.out")"
		done
		n=$((n + 1))
	done
done

# Every message sent arrived: 2 x 200 per run, nothing dropped.
expect_eq tx_pkts "$(stat_field efa_0 tx_pkts)" $((n * 400))
expect_eq rx_pkts "$(stat_field efa_0 rx_pkts)" $((n * 400))
expect_eq rx_drops "$(stat_field efa_0 rx_drops)" 0
expect_eq contexts "$(status_field contexts)" 0
echo "ok: $ABI $SP/$CP"
