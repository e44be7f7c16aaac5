#!/bin/bash
# The current upstream stack on one EFA generation (softefad(8),
# GENERATIONS): verbs.sh (rdma-core v64's ibv_devinfo -v with the
# generation's part id and link, ibv_ud_pingpong -c), then the fabtests
# cases that show what libfabric 2.6 does on that generation:
#  - pingpong-direct: efa-direct, which reads the CQ ring itself on every
#    part id but 0xefa0, whose CQs still have sub-CQs;
#  - rdm-pingpong up to 1 MiB: the efa fabric's protocols, long messages
#    moved by RDMA read where the device has it, by sends on 0xefa0;
#  - rma-read-efa-direct: the device's own RDMA, which efa-direct offers
#    only with both read and write; on 0xefa0 rma-write-efa-direct, not
#    offered (fi_info says so, and the efa fabric offers RMA over sends);
#  - rma-writedata-unsolicited-efa-direct: RDMA write with immediate data
#    that takes no receive, offered only from 0xefa2 (unsolicited write
#    receive; 0xefa1 is the one generation with RDMA but without it, and
#    runs rma-write-efa-direct instead, a write that takes no immediate).
# The profiles efa and extended (0xefa2) run every case (tests/CMakeLists.txt).
# One ctest per generation, a few seconds a case; each part's time is printed.
# Usage: generation.sh BUILD PROFILE [ARG...]
# ARGs go to the end of each script's command line.
. "$(dirname "$0")/lib.sh" "$1" all
PROFILE=$2
shift 2

cases=(pingpong-direct rdm-pingpong)
case $PROFILE in
efa0) cases+=(rma-write-efa-direct) ;;
efa1) cases+=(rma-read-efa-direct rma-write-efa-direct
	rma-writedata-unsolicited-efa-direct) ;;
*) cases+=(rma-read-efa-direct rma-writedata-unsolicited-efa-direct) ;;
esac

times=()
for c in verbs "${cases[@]}"; do
	start=$SECONDS
	if [ "$c" = verbs ]; then
		"$UPSTREAM/verbs.sh" "$BUILD" "$PROFILE" "$@" ||
			fail "$PROFILE: verbs.sh $*"
	else
		"$UPSTREAM/fabtests.sh" "$BUILD" "$PROFILE" "$c" "$@" ||
			fail "$PROFILE: fabtests.sh $c $*"
	fi
	times+=("$c $((SECONDS - start)) s")
done
printf '%s\n' "${times[@]}"
echo "ok: $PROFILE, verbs.sh and ${#cases[@]} fabtests cases"
