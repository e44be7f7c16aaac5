#!/bin/bash
# softefad's log of refused requests (softefad(8), LOG): libibverbs' probes
# are no refusals, a refusal names its request, errno and reason, and
# without --verbose the first of each kind is logged, up to a bound.
. "$(dirname "$0")/lib.sh" "$1"
LOG=$RUN/softefad.log

# expect_line TEXT: the log has a line ending in TEXT
expect_line() {
	grep -qF -- "$1" "$LOG" || fail "no log line '$1' in: $(cat "$LOG")"
}

# count TEXT: how many log lines hold TEXT
count() {
	grep -cF -- "$1" "$LOG" || true
}

for abi in ioctl write; do
	start_host --abi "$abi" --verbose
	for provider in ours stock; do
		sx --provider "$provider" -- ibv_devinfo -v >/dev/null ||
			fail "ibv_devinfo -v, $provider provider, --abi $abi"
	done
	grep -F ': refused ' "$LOG" &&
		fail "ibv_devinfo on --abi $abi was refused something"

	sx -- "$BUILD/bin/refusals" verbs "$abi" || fail "refusals verbs $abi"
	expect_line "refused write CREATE_QP: EINVAL (Invalid argument): unknown PD handle"
	expect_line "refused write ex CREATE_CQ: EINVAL (Invalid argument): comp_mask or reserved field set"
	if [ "$abi" = ioctl ]; then
		expect_line "refused ioctl CQ/CQ_DESTROY: ENOENT (No such file or directory): unknown CQ handle 999"
		expect_line "refused ioctl CQ/CQ_DESTROY: EINVAL (Invalid argument): attribute 0x1 missing"
		expect_line "refused ioctl DEVICE/INVOKE_WRITE DEALLOC_PD: EINVAL (Invalid argument): unknown PD handle 12345"
		expect_line "refused ioctl 0x77/0x3: EPROTONOSUPPORT (Protocol not supported): method not implemented"
	else
		# the first of its five ioctls is how libibverbs learns
		expect_eq "ENOTTY lines" \
			"$(count "ENOTTY (Inappropriate ioctl for device): no ioctl ABI (softefad --abi write)")" 4
		expect_line "refused ioctl DEVICE/INVOKE_WRITE: ENOTTY"
	fi
	stop_host
	: >"$LOG"
done

# Without --verbose: nothing for ibv_devinfo, then the first refusal of
# each kind, up to 8 kinds a file, and a line saying the rest are not.
start_host
sx -- ibv_devinfo -v >/dev/null || fail "ibv_devinfo -v"
sx -- "$BUILD/bin/refusals" kinds 1 || fail "refusals kinds 1"
expect_eq "one kind twice" "$(count ': refused write 0x60: EOPNOTSUPP')" 1
expect_eq "all lines" "$(wc -l <"$LOG")" 1
sx -- "$BUILD/bin/refusals" kinds 12 || fail "refusals kinds 12"
expect_eq "kinds logged" "$(count ': refused write 0x6')" 9
expect_line "further refusals not logged (softefad --verbose logs them all)"
expect_eq "all lines" "$(wc -l <"$LOG")" 10
echo ok
