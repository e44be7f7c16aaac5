#!/bin/bash
# Faults on demand on the one-host path (softefa inject): between two
# devices of one host, and between two processes on one device.
#  - loss, dup, reorder, delay: wire_verbs srd delivers every message once
#    and intact, and 1 MiB by RDMA write and read; each rule fired, as
#    softefa inject list counts;
#  - loss and reorder under libfabric's efa provider: fi_pingpong -c
#    between two processes on efa_0 checks every message's data;
#  - blackhole dev=efa_0 peer-dev=efa_1, and peer-gid= efa_1's GID: an
#    SRD send from efa_0 to efa_1 ends in the unreachable remote's error
#    (vendor error 15), as on EFA when nothing ever answers;
#  - freeze: no message moves while the host is frozen; once thawed, the
#    transfer completes, all of it.
# Usage: inject_path.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"
WV=$BUILD/bin/wire_verbs
PORT=$(pick_port)
N=500

# wv SERVER_DEV CLIENT_DEV: wire_verbs srd between them, all checked
wv() {
	SERVER_ARGS="-d $1" CLIENT_ARGS="-d $2" PAIR_TIMEOUT=120 \
		pair ours ours "$WV" srd -n "$N" -p "$PORT" ||
		fail "wire_verbs $1 <- $2: $(cat "$RUN/server.out" "$RUN/client.out")"
	grep -q "received $N of $N, 0 duplicates, 0 corrupt" "$RUN/server.out" ||
		fail "wire_verbs $1 <- $2: $(cat "$RUN/server.out")"
}

# hits ID: how often rule ID fired, as softefa inject list says
hits() {
	sefa inject list | awk -v id="$1" '$1 == id { print $2 }'
}

# rule RULE...: add it; its id
rule() {
	sefa inject add "$@" | awk '{ print $NF }'
}

start_host --devices 2

for r in "loss share=10" "dup share=10" "reorder share=20" "delay usec=300"; do
	# shellcheck disable=SC2086
	id=$(rule $r)
	t0=$SECONDS
	wv efa_1 efa_0
	wv efa_0 efa_0
	h=$(hits "$id")
	[ "${h:-0}" -gt 0 ] || fail "$r: the rule never fired"
	echo "$r: 2 x $N messages intact, fired $h times, $((SECONDS - t0)) s"
	sefa inject clear all >/dev/null
done

# libfabric's RDM endpoint over the same path, its own data checks on
command -v fi_pingpong >/dev/null || fail "libfabric-bin is not installed"
loss=$(rule loss share=5)
reorder=$(rule reorder share=10)
t0=$SECONDS
# one host: without this, libfabric takes its shm provider, not the device
FI_EFA_ENABLE_SHM_TRANSFER=0 SERVER_ARGS="-B $PORT" CLIENT_ARGS="-P $PORT" \
	PAIR_TIMEOUT=120 pair ours ours fi_pingpong -p efa -e rdm -c -I 200 \
	-S 4096 || fail "fi_pingpong under loss and reorder"
for side in server client; do
	grep -Eq '^4k +200 +=200 ' "$RUN/$side.out" ||
		fail "fi_pingpong $side: $(cat "$RUN/$side.out")"
done
[ "$(hits "$loss")" -gt 0 ] && [ "$(hits "$reorder")" -gt 0 ] ||
	fail "fi_pingpong: a rule never fired: $(sefa inject list)"
echo "fi_pingpong: 200 x 4k checked, loss fired $(hits "$loss"), reorder $(hits "$reorder"), $((SECONDS - t0)) s"
sefa inject clear all >/dev/null

# a black hole between the two devices
gid1=$(sx -- ibv_devinfo -v -d efa_1 | awk '$1 == "GID[" { print $3; exit }')
[ -n "$gid1" ] || fail "no GID for efa_1"
id=$(rule blackhole dev=efa_0 peer-dev=efa_1)
sx -- "$WV" srd -d efa_0 -u "$gid1" | tee "$RUN/hole.out" ||
	fail "SRD into a black hole: $(cat "$RUN/hole.out")"
[ "$(hits "$id")" -gt 1 ] || fail "blackhole: it did not take every resend"
sefa inject clear all >/dev/null
# the same by the peer's GID
id=$(rule blackhole peer-gid="$gid1")
sx -- "$WV" srd -d efa_0 -u "$gid1" | tee "$RUN/hole.out" ||
	fail "SRD into a black hole by GID: $(cat "$RUN/hole.out")"
[ "$(hits "$id")" -gt 1 ] || fail "blackhole by GID: it did not take every resend"
sefa inject clear all >/dev/null

# frozen: nothing moves until thawed
id=$(rule freeze)
p0=$(stat_field efa_0 tx_pkts)
SERVER_ARGS="-d efa_1" CLIENT_ARGS="-d efa_0" PAIR_TIMEOUT=120 \
	pair ours ours "$WV" srd -n "$N" -p "$PORT" >"$RUN/pair.out" 2>&1 &
pairpid=$!
wait_for 30 "the client to connect" grep -q '^qpn' "$RUN/client.out" ||
	fail "client: $(cat "$RUN/client.out")"
sleep 1
expect_eq "packets sent while frozen" "$(stat_field efa_0 tx_pkts)" "$p0"
sefa inject clear "$id" >/dev/null
wait "$pairpid" || fail "after the thaw: $(cat "$RUN/pair.out")"
grep -q "received $N of $N, 0 duplicates, 0 corrupt" "$RUN/server.out" ||
	fail "after the thaw: $(cat "$RUN/server.out")"
echo "freeze: nothing sent in 1 s frozen, $N messages intact after the thaw"
echo ok
