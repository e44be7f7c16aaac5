#!/bin/bash
# softefad --limit: a bad list is refused before anything starts; the
# device reports the lowered values (ibv_devinfo -v); the limits hold
# across processes: one holds objects, the next finds the device full
# (ENOMEM, as the efa driver answers the device's refusal), and room comes
# back when the first lets go; memory keys up to max_mr beyond 65536; queue
# depths are refused above the limit.
# Usage: limits.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"
PORT=$(pick_port)
PROG=$BUILD/bin/limit_verbs

# refused LIST... PATTERN: softefa start with each --limit LIST exits 2
# and says PATTERN
refused() {
	local pattern=${*: -1} out rc=0 a=()

	for l in "${@:1:$#-1}"; do
		a+=(--limit "$l")
	done
	out=$(sefa start --profile efa "${a[@]}" 2>&1) || rc=$?
	expect_eq "exit status of start ${a[*]}" "$rc" 2
	grep -q -- "$pattern" <<<"$out" ||
		fail "start ${a[*]}: no '$pattern' in: $out"
	sefa status >/dev/null 2>&1 && fail "a softefad runs after ${a[*]}"
	return 0
}

refused foo=1 "unknown limit 'foo'"
refused ah=0 "limit ah takes a number from 1 up, not '0'"
refused ah=4,qp "'qp' is not NAME=N"
refused ah=1025 "limit ah=1025 is above the efa hardware's 1024"
refused qp=4 qp=257 "limit qp=257 is above the efa hardware's 256"
refused sq-depth=16 "limit sq-depth=16 is below the 32 every SQ takes"

# limit_use KIND: "used/limit" of KIND in softefa status
limit_use() {
	sefa status | awk -v k="$1" '$1 == "limits" {
		for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }'
}

# use_is KIND VALUE: a condition for wait_for
use_is() {
	[ "$(limit_use "$1")" = "$2" ]
}

# holder KIND COUNT: limit_verbs holds COUNT objects of KIND, in the
# background, until fd 3 closes; waits until the daemon counts them.
holder() {
	mkfifo "$RUN/hold"
	sx --provider ours -- "$PROG" "$1" "$2" hold <"$RUN/hold" \
		>"$RUN/holder.out" 2>&1 &
	HOLDER=$!
	exec 3>"$RUN/hold"
	rm "$RUN/hold"
	wait_for 30 "the holder's $2 ${1}s" use_is "$1" "$3" ||
		fail "holder: $(cat "$RUN/holder.out")"
}

# release: the holder lets go, and says it made all it was asked for
release() {
	exec 3>&-
	wait "$HOLDER" || fail "holder: $(cat "$RUN/holder.out")"
}

start_host --profile efa --limit ah=4,qp=2 --limit mr=3,pd=6 --limit cq=5
info=$(sx -- ibv_devinfo -v)
expect_eq max_ah "$(devinfo_field max_ah <<<"$info")" 4
expect_eq max_qp "$(devinfo_field max_qp <<<"$info")" 2
expect_eq max_mr "$(devinfo_field max_mr <<<"$info")" 3
expect_eq max_pd "$(devinfo_field max_pd <<<"$info")" 6
expect_eq max_cq "$(devinfo_field max_cq <<<"$info")" 5
expect_eq max_cqe "$(devinfo_field max_cqe <<<"$info")" 32768
expect_eq "ah use" "$(limit_use ah)" 0/4

# AHs: 3 held by one process, the second process gets 1 (its first PD's
# own AH) and then ENOMEM, through the stock provider
holder ah 3 3/4
out=$(sx --provider stock -- "$PROG" ah 2) && fail "a 5th AH: $out"
grep -q "^created 1$" <<<"$out" || fail "not 1 AH more: $out"
grep -q "failed: Cannot allocate memory (errno 12)" <<<"$out" ||
	fail "the 5th AH: $out"
release
wait_for 10 "the AHs freed" use_is ah 0/4 || fail "ah $(limit_use ah)"
out=$(sx --provider stock -- "$PROG" ah 4) || fail "4 AHs once freed: $out"

# QPs: one held, ibv_ud_pingpong's server takes the second, and its
# client finds none; once the holder lets go a pair runs
holder qp 1 1/2
# timeout, not sx: a function in the background is a subshell, whose
# child a kill would not reach
timeout 60 "$SOFTEFA" --run-dir "$RUN" exec -- ibv_ud_pingpong -g 0 \
	-p "$PORT" >"$RUN/server.out" 2>&1 &
server=$!
wait_listen "$PORT" || fail "ud_pingpong server: $(cat "$RUN/server.out")"
expect_eq "qp use with the server" "$(limit_use qp)" 2/2
timeout 30 "$SOFTEFA" --run-dir "$RUN" exec -- ibv_ud_pingpong -g 0 \
	-p "$PORT" 127.0.0.1 >"$RUN/client.out" 2>&1 &&
	fail "a third QP: $(cat "$RUN/client.out")"
grep -q "Couldn't create QP" "$RUN/client.out" ||
	fail "the client: $(cat "$RUN/client.out")"
kill "$server"
wait "$server" || true
release
wait_for 10 "the QPs freed" use_is qp 0/2 || fail "qp $(limit_use qp)"
pair ours stock ibv_ud_pingpong -g 0 -p "$PORT" -n 50 ||
	fail "ud_pingpong once the QPs were freed"
both_iterated 50 "once the QPs were freed"

# MRs, CQs and PDs: one process fills each (its setup holds a PD and a CQ)
out=$(sx -- "$PROG" mr 4) && fail "a 4th MR: $out"
grep -q "^created 3$" <<<"$out" || fail "MRs: $out"
out=$(sx -- "$PROG" cq 5) && fail "a 6th CQ: $out"
grep -q "^created 4$" <<<"$out" || fail "CQs: $out"
out=$(sx -- "$PROG" pd 6) && fail "a 7th PD: $out"
grep -q "^created 5$" <<<"$out" || fail "PDs: $out"
grep -q "errno 12" <<<"$out" || fail "the 7th PD: $out"
for k in ah qp cq mr pd; do
	expect_eq "$k use at the end" "$(limit_use "$k")" \
		"0/$(sefa status | awk -v k="$k" '$1 == "limits" {
			for (i = 3; i < NF; i += 2) if ($i == k) {
				split($(i + 1), a, "/"); print a[2] } }')"
done
stop_host

# Memory keys past 65536, up to a max_mr of 70000: one process holds
# 40000, the next gets the other 30000 (each below --max-objects), then
# ENOMEM
start_host --profile efa --limit mr=70000
t0=$SECONDS
holder mr 40000 40000/70000
out=$(sx -- "$PROG" mr 30001) && fail "MR 70001: $out"
grep -q "^created 30000$" <<<"$out" || fail "MRs past 65536: $out"
grep -q "errno 12" <<<"$out" || fail "MR 70001: $out"
release
wait_for 10 "the MRs freed" use_is mr 0/70000 || fail "mr $(limit_use mr)"
echo "70000 MRs made and freed in $((SECONDS - t0)) s"
stop_host

# Depths: reported, and the server's 200 receives are above rq-depth
start_host --profile efa --limit cq-depth=256,sq-depth=64 \
	--limit rq-depth=128,mr-pages=16
info=$(sx -- ibv_devinfo -v)
expect_eq max_cqe "$(devinfo_field max_cqe <<<"$info")" 256
expect_eq max_qp_wr "$(devinfo_field max_qp_wr <<<"$info")" 64
expect_eq max_mr_size "$(devinfo_field max_mr_size <<<"$info")" 0x10000
pair ours ours ibv_ud_pingpong -g 0 -p "$PORT" -n 20 -r 100 ||
	fail "ud_pingpong with 100 receives"
both_iterated 20 "with 100 receives"
out=$(timeout 30 "$SOFTEFA" --run-dir "$RUN" exec -- ibv_ud_pingpong \
	-g 0 -p "$PORT" -r 200 2>&1) && fail "200 receives: $out"
grep -q "Couldn't create" <<<"$out" || fail "200 receives: $out"
echo ok
