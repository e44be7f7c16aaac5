#!/bin/bash
# The benchmark program still runs (briefly, no figures judged) with both
# providers, so bench/run.sh does not rot between the times it is used.
. "$(dirname "$0")/lib.sh" "$1"
start_host
B="$BUILD/bin/efa_bench"
for p in ours stock; do
	grep -q '^rate ' <<<"$(sx --provider "$p" -- "$B" rate 2000)" || fail "$p rate"
	grep -q '^rtt ' <<<"$(sx --provider "$p" -- "$B" lat 200)" || fail "$p lat"
	grep -q '^pairs 20 ' <<<"$(sx --provider "$p" -- "$B" pair 20)" || fail "$p pair"
done
grep -q '^wbw ' <<<"$(sx -- "$B" wbw 100)" || fail "wbw"
grep -q '^memcpy ' <<<"$("$B" memcpy 100)" || fail "memcpy"
grep -q '^nap ' <<<"$("$B" nap 10)" || fail "nap"
expect_eq errors "$(stat_field efa_0 errors)" 0
stop_host

# rates with its pairs spread over the devices: each device carries one
start_host --devices 2
out=$(sx -- env EFA_BENCH_SPREAD=1 "$B" rates 2 2000)
grep -q '^aggregate .* pairs 2 ' <<<"$out" || fail "rates, spread: $out"
for d in efa_0 efa_1; do
	expect_eq "$d rx_pkts" "$(stat_field "$d" rx_pkts)" 2000
done
echo ok
