#!/bin/bash
# What cq_ext_mem.c must print, and the lines softefad must log for the
# buffers it refused (softefad(8), CQS ON EXTERNAL MEMORY); shared by the
# runs through rdma-core v64's libefa (uapi_v64.sh) and ours
# (cq_ext_mem.sh).
# Usage: cq_ext_mem_check.sh OUTPUT LOGFILE
set -euo pipefail
out=$1
log=$2
rc=0

v() { awk -v k="$1" '$1 == k { print $2 }' <<<"$out"; }
want() {
	if [ "$2" != "$3" ]; then
		echo "cq_ext_mem: $1 is '$2', not '$3'" >&2
		rc=1
	fi
}
logged() {
	if ! grep -F -- "$1" "$log" >/dev/null; then
		echo "cq_ext_mem: no log line '$1'" >&2
		rc=1
	fi
}

want ext_mem_cap "$(v ext_mem_cap)" 1
# efadv_query_cq: our provider's has no one ring for sub-CQs (0xefa0)
if [ "$(v ring_query)" != EOPNOTSUPP ]; then
	want ring_is_buffer "$(v ring_is_buffer)" 1
	want ring_entries "$(v ring_entries)" 40
fi
want completions "$(v completions)" 240
want refused "$(grep '^refused ' <<<"$out" | tr '\n' ' ')" \
	"refused bad_fd EBADF refused pipe EINVAL refused too_small EINVAL refused zero_length EINVAL refused misaligned EINVAL refused overflow EINVAL refused beyond_file EINVAL "
want done "$(tail -n1 <<<"$out")" done

logged "EBADF (Bad file descriptor): CQ buffer fd 1000: no such descriptor"
logged "is not a dma-buf, nor a memfd or file in its place"
logged "EINVAL (Invalid argument): CQ buffer of 1024 bytes, the CQ needs"
logged "EINVAL (Invalid argument): CQ buffer of length 0"
logged "EINVAL (Invalid argument): CQ buffer offset 4099 not 8-byte aligned"
logged "EINVAL (Invalid argument): CQ buffer offset 18446744073709551515 + length 8192 overflows"
logged "holds 65536 bytes, not offset + length 69632"
exit $rc
