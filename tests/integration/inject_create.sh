#!/bin/bash
# Fault rules from the command line and at start, and fail-create on a real
# client: inject_create makes a context, PD, CQ, MR, QP and AH and prints
# the errno text of the create that failed.  Each object kind fails with
# the rule's errno, through our provider and the stock one, only as often
# as count= and nth= say; the device's admin counters and softefa stats
# count what was injected; bad rules are refused with the word named.
# Usage: inject_create.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"
PROG=$BUILD/bin/inject_create

# create PROVIDER: the last line inject_create printed
create() {
	sx --provider "$1" -- "$PROG" | tail -n 1 || true
}

rule_hits() {
	sefa inject list | awk -v id="$1" '$1 == id { print $2 }'
}

printf '# made at start\nfail-create obj=qp dev=efa_1\n\n' >"$RUN/rules"
start_host --devices 2 --inject "$RUN/rules"
expect_eq "rule from --inject" "$(sefa inject list | awk '$1 == 1 { $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print }')" \
	"fail-create obj=qp dev=efa_1"
# the rule is about efa_1: efa_0's client makes everything
expect_eq "efa_1's rule on efa_0" "$(create ours)" "ah ok"

n=0
for obj in ctx pd cq mr qp ah; do
	for provider in ours stock; do
		id=$(sefa inject add fail-create obj=$obj count=1 | awk '{ print $2 }')
		expect_eq "$obj on $provider" "$(create $provider)" \
			"$obj: Cannot allocate memory (errno 12)"
		expect_eq "hits of rule $id" "$(rule_hits "$id")" 1
		# count=1: spent, and the next client makes everything
		sefa inject list | grep -Eq "^$id +1 +yes " ||
			fail "rule $id not spent: $(sefa inject list)"
		expect_eq "after rule $id" "$(create $provider)" "ah ok"
		n=$((n + 1))
	done
done

# errno= and nth=: the second AH fails, with EIO, and only it
id=$(sefa inject add fail-create obj=ah errno=EIO nth=2 | awk '{ print $2 }')
expect_eq "1st AH of nth=2" "$(create ours)" "ah ok"
expect_eq "2nd AH of nth=2" "$(create ours)" "ah: Input/output error (errno 5)"
expect_eq "3rd AH of nth=2" "$(create ours)" "ah ok"
n=$((n + 1))

# What was injected is counted, as the admin commands that failed.
expect_eq "faults injected" "$(sefa stats | awk '$1 == "faults" && $2 == "efa_0" { print $4 }')" $n
admin=$(sefa stats | awk '$1 == "admin" && $2 == "efa_0"')
for k in alloc_ucontext_err alloc_pd_err create_cq_err reg_mr_err create_qp_err; do
	v=$(awk -v k=$k '{ for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }' <<<"$admin")
	expect_eq "$k" "$v" 2
done
v=$(awk '{ for (i = 3; i < NF; i += 2) if ($i == "create_ah_err") print $(i + 1) }' <<<"$admin")
expect_eq create_ah_err "$v" 3
sefa stats | grep -q "^fault rule $id hits 1$" ||
	fail "stats of rule $id: $(sefa stats | grep fault)"
grep -q "fault rule $id: fail-create obj=ah errno=EIO nth=2 (seed $id)" \
	"$RUN/softefad.log" || fail "rule $id not logged with its seed"

# Bad rules: exit 2, the word named, nothing added.
before=$(sefa inject list | wc -l)
bad() {
	local out rc=0

	out=$(sefa inject add "$@" 2>&1) || rc=$?
	expect_eq "exit of inject add $*" "$rc" 2
	grep -qF "$BAD_WORD" <<<"$out" || fail "inject add $*: '$out' does not name $BAD_WORD"
}
BAD_WORD="obj=srq" bad fail-create obj=srq
BAD_WORD="errno=EWHAT" bad fail-create obj=ah errno=EWHAT
BAD_WORD="dev=efa_2" bad fail-create obj=ah dev=efa_2
BAD_WORD="'boom'" bad boom
BAD_WORD="one action" bad rnr status=general
expect_eq "rules after refusals" "$(sefa inject list | wc -l)" "$before"
rc=0; sefa inject clear 999 2>/dev/null || rc=$?
expect_eq "clear of no rule" $rc 2
sefa inject clear all >/dev/null
expect_eq "rules after clear all" "$(sefa inject list | wc -l)" 1
stop_host

# A bad line in --inject: the start is refused with the line and the word.
printf 'rnr\nrnr tries=0\n' >"$RUN/rules"
rc=0; out=$(sefa start --inject "$RUN/rules" 2>&1) || rc=$?
expect_eq "start with a bad rule" $rc 2
grep -qF "$RUN/rules:2: bad value in 'tries=0'" <<<"$out" ||
	fail "start with a bad rule said: $out"

# Events at start: a port's and a device's act on the host as it starts
# (efa_0's port down, efa_1 dead: its commands fail with EIO, opening it
# too); a QP's or CQ's would act on nothing, and is refused.
printf 'event type=port-down dev=efa_0\nevent type=device-fatal dev=efa_1\n' \
	>"$RUN/rules"
start_host --devices 2 --inject "$RUN/rules"
state=$(sx --provider ours -- ibv_devinfo -d efa_0 | devinfo_field state)
expect_eq "efa_0's port after a port-down at start" "$state" "PORT_DOWN (1)"
rc=0; out=$(sx --provider ours -- ibv_devinfo -d efa_1 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "efa_1 opened after a device-fatal at start: $out"
grep -q "Failed to open device" <<<"$out" ||
	fail "efa_1 after a device-fatal at start: $out"
stop_host
for ev in qp-fatal cq-error; do
	printf 'event type=%s\n' "$ev" >"$RUN/rules"
	rc=0; out=$(sefa start --inject "$RUN/rules" 2>&1) || rc=$?
	expect_eq "start with event type=$ev" $rc 2
	grep -qF "$RUN/rules:1: 'type=$ev' at start: no QP or CQ exists yet" \
		<<<"$out" || fail "start with event type=$ev said: $out"
done
echo "ok: $n creates failed as the rules said, bad rules refused, events at start"
