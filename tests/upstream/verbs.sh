#!/bin/bash
# rdma-core v64's own tools and libefa on SoftEFA: ibv_devinfo -v finds the
# device through v64's libibverbs and its libefa-rdmav64.so plugin, and
# ibv_ud_pingpong -c moves data that its check finds at offset 40 (behind
# the GRH area, as on EFA), counted by the device, also sleeping on
# completion events (-e).
# Usage: verbs.sh BUILD PROFILE
. "$(dirname "$0")/lib.sh" "$1" rdma-core
PROFILE=$2
PORT=$(pick_port)
start_host --profile "$PROFILE"

out=$(up_run env LD_DEBUG=files ibv_devinfo -v 2>"$RUN/ld.out") ||
	fail "ibv_devinfo -v: $out $(grep -v 'calling\|^ *[0-9]*: *$' "$RUN/ld.out")"
# the last process is ibv_devinfo itself
grep -q "file=$P/rdma-core/lib/libibverbs/libefa-rdmav64.so " "$RUN/ld.out" ||
	fail "ibv_devinfo did not load v64's plugin: $(grep 'file=' "$RUN/ld.out")"
! grep -q "file=/usr/lib/[^ ]*libefa" "$RUN/ld.out" ||
	fail "Debian's libefa was loaded too: $(grep 'file=' "$RUN/ld.out")"
expect_eq hca_id "$(devinfo_field hca_id <<<"$out")" efa_0
expect_eq vendor_id "$(devinfo_field vendor_id <<<"$out")" 0x1d0f
expect_eq state "$(devinfo_field state <<<"$out")" "PORT_ACTIVE (4)"
expect_eq max_msg_sz "$(devinfo_field max_msg_sz <<<"$out")" 0x22e0
part=$(printf %#x "$(devinfo_field vendor_part_id <<<"$out")")
# the profile's generation (softefa start --profile list), also as the
# efa driver's hw_ver
want=$("$SOFTEFA" start --profile list | awk -v p="$PROFILE" '$1 == p { print $2 }')
expect_eq vendor_part_id "$part" "$want"
expect_eq hw_ver "$(devinfo_field hw_ver <<<"$out" | tr A-F a-f)" "$part"
for f in "max_qp 256" "max_qp_wr 4096" "max_sge 2" "max_cqe 32768" \
	"max_ah 1024" "link_layer Unspecified"; do
	read -r k v <<<"$f"
	[ "$PROFILE" != extended ] || [ "$k" != link_layer ] || v=InfiniBand
	expect_eq "$k" "$(devinfo_field "$k" <<<"$out")" "$v"
done
# the link, width times lane speed, is the generation's, as sysfs rate
# has it ("400 Gb/sec (8X HDR)")
rate=$(cat "$RUN/sys/class/infiniband/efa_0/ports/1/rate")
width=$(devinfo_field active_width <<<"$out" | awk '{ print $1 }')
speed=$(devinfo_field active_speed <<<"$out" | awk '{ print $1 }')
expect_eq link "$(awk -v w="${width%X}" -v s="$speed" \
	'BEGIN { printf "%g Gb/sec (%dX", w * s, w }')" "${rate% *}"
echo "ibv_devinfo -v (v64): efa_0, part $part, $width x $speed Gb/s, PORT_ACTIVE"

# ibv_ud_pingpong -c: the server finds the client's bytes behind the GRH
# area, or prints "invalid data in page N".  With -e (the last run) both
# sides sleep on completion events for every message: v64's libefa arms
# the CQ through its doorbell (arm bit and command sequence number), and a
# completion must raise the event, or the pair waits until it is killed.
n=0
for run in "1" "1024" "4096" "1024 -e"; do
	read -r size ev <<<"$run"
	# shellcheck disable=SC2086
	up_pair ibv_ud_pingpong -g 0 -p "$PORT" -n 200 -c -s "$size" $ev ||
		fail "ibv_ud_pingpong -c -s $size${ev:+ $ev}"
	for side in server client; do
		grep -q "200 iters in" "$RUN/$side.out" ||
			fail "$side, size $size: $(cat "$RUN/$side.out")"
	done
	! grep -q "invalid data" "$RUN/server.out" ||
		fail "size $size: $(cat "$RUN/server.out")"
	n=$((n + 1))
	echo "ibv_ud_pingpong -c -s $size${ev:+ $ev}: $(grep "iters in" "$RUN/client.out")"
done
expect_eq tx_pkts "$(stat_field efa_0 tx_pkts)" $((n * 400))
expect_eq rx_pkts "$(stat_field efa_0 rx_pkts)" $((n * 400))
expect_eq rx_drops "$(stat_field efa_0 rx_drops)" 0
echo "ok: $PROFILE, rdma-core v64's ibv_devinfo and ibv_ud_pingpong ($((n * 400)) packets)"
