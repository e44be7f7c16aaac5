#!/bin/bash
# ibv_ud_pingpong -g 0 -c between two processes, several sizes up to the MTU,
# with and without completion events.  With -c the client puts a known
# byte at the start of each page of its payload and the server, after the
# run, reads it back at offset 40 of its receive buffer, behind the GRH
# area, printing "invalid data in page N" (and exiting 0) where it differs.
# A client without -c sends other bytes there: that run must be caught,
# which proves the check runs and this test sees what it prints.
# Usage: udpingpong.sh BUILD PROFILE ABI SERVER_PROVIDER CLIENT_PROVIDER
. "$(dirname "$0")/lib.sh" "$1"
PROFILE=$2 ABI=$3 SP=$4 CP=$5
PORT=$(pick_port)
start_host --profile "$PROFILE" --abi "$ABI"

# pingpong WHAT ARGS...: 200 round trips, which both sides must complete
pingpong() {
	local what=$1
	shift

	pair "$SP" "$CP" ibv_ud_pingpong -g 0 -p "$PORT" -n 200 "$@" ||
		fail "ibv_ud_pingpong $what"
	both_iterated 200 "$what"
	n=$((n + 1))
}

n=0
for size in 1 1024 4096; do
	for ev in "" -e; do
		pingpong "-c at size $size $ev" -c -s "$size" $ev
		! grep -q "invalid data" "$RUN/server.out" ||
			fail "payload not at offset 40, size $size $ev: $(cat "$RUN/server.out")"
	done
done

SERVER_ARGS=-c pingpong "with -c on the server alone" -s 1024
grep -q "invalid data in page 0" "$RUN/server.out" ||
	fail "the server's -c check did not catch a client without -c"

# Every message sent arrived: 2 x 200 per run, nothing dropped.
expect_eq tx_pkts "$(stat_field efa_0 tx_pkts)" $((n * 400))
expect_eq rx_pkts "$(stat_field efa_0 rx_pkts)" $((n * 400))
expect_eq rx_drops "$(stat_field efa_0 rx_drops)" 0
expect_eq contexts "$(status_field contexts)" 0
echo "ok: $PROFILE $ABI $SP/$CP, payload checked at offset 40 in $((n - 1)) runs"
