#!/bin/bash
# status= on real clients: the client's last send of an ibv_ud_pingpong or
# ibv_rc_pingpong run completes with the status the rule names, which the
# client prints by ibv_wc_status_str(); the UD server, whose traffic the
# rule does not match, completes its run, the RC one finds the client's QP
# gone to error.  Through our provider and the stock
# one, which map EFA completion statuses to ibv_wc_status each their way
# (an older libefa reports statuses it does not know as general errors).
# With op=recv the client's last receive completes with the status
# instead: the UD server, which hears nothing of it, completes its run;
# the RC client's QP goes to error and the server's last send gets
# InfiniBand's NAK for it (remote operation error, or remote invalid
# request for a length error).
# Usage: inject_status.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"
PORT=$(pick_port)
N=10
start_host --profile extended --devices 2

# forced PROGRAM PROVIDER STATUS TEXT [SERVER_TEXT]: the client on efa_1
# fails its last send (with OP=recv: its last receive) with STATUS and says
# TEXT; the server on efa_0 does all N rounds, or says SERVER_TEXT
forced() {
	local prog=$1 provider=$2 status=$3 text=$4 server=${5:-} id

	id=$(sefa inject add "status=$status" dev=efa_1 "op=${OP:-send}" nth=$N |
		awk '{ print $2 }')
	if SERVER_ARGS="-d efa_0" CLIENT_ARGS="-d efa_1" PAIR_TIMEOUT=30 \
		pair ours "$provider" "$prog" -g 0 -p "$PORT" -n $N 2>/dev/null; then
		fail "$prog with status=$status: the client did not fail"
	fi
	grep -qF "Failed status $text for wr_id" "$RUN/client.out" ||
		fail "$prog, $provider, status=$status: $(cat "$RUN/client.out")"
	if [ -n "$server" ]; then
		grep -qF "Failed status $server for wr_id" "$RUN/server.out"
	else
		grep -q "$N iters in" "$RUN/server.out"
	fi || fail "$prog, status=$status, server: $(cat "$RUN/server.out")"
	sefa inject list | grep -Eq "^$id +1 +yes " ||
		fail "rule $id: $(sefa inject list)"
	sefa inject clear "$id" >/dev/null
	n=$((n + 1))
}

n=0
forced ibv_ud_pingpong ours rem-access "remote access error (10)"
# Debian's rdma-core 44 libefa knows no remote bad address: general
forced ibv_ud_pingpong stock rem-access "general error (21)"
forced ibv_ud_pingpong ours loc-len "local length error (1)"
forced ibv_ud_pingpong stock rnr-retry-exc "RNR retry counter exceeded (13)"
forced ibv_ud_pingpong ours general "general error (21)"
OP=recv forced ibv_ud_pingpong ours loc-prot "local protection error (4)"
OP=recv forced ibv_ud_pingpong stock loc-len "local length error (1)"
# UD goes on after an error completion: one error each, no flush
expect_eq "error completions on efa_1" "$(stat_field efa_1 errors)" $n

# RC: the client's QP went to error with its last send, so the server's
# last reply finds no one to answer it and runs out of retries.
forced ibv_rc_pingpong ours retry-exc "transport retry counter exceeded (12)" \
	"transport retry counter exceeded (12)"
forced ibv_rc_pingpong ours rem-op "remote operation error (11)" \
	"transport retry counter exceeded (12)"
# RC: a receive's error takes the receiver's QP to error, and the sender
# hears of it by a NAK
OP=recv forced ibv_rc_pingpong ours loc-prot "local protection error (4)" \
	"remote operation error (11)"
OP=recv forced ibv_rc_pingpong ours loc-len "local length error (1)" \
	"remote invalid request error (9)"

# Without a rule the same runs succeed: the failures were the rules'.
SERVER_ARGS="-d efa_0" CLIENT_ARGS="-d efa_1" \
	pair ours ours ibv_rc_pingpong -g 0 -p "$PORT" -n $N ||
	fail "ibv_rc_pingpong with the rules cleared"
faults() {
	sefa stats | awk -v d="$1" '$1 == "faults" && $2 == d { print $4 }'
}
expect_eq "faults injected on efa_1" "$(faults efa_1)" $n
expect_eq "faults injected on efa_0" "$(faults efa_0)" 0
echo "ok: $n sends and receives completed with the status their rule named"
