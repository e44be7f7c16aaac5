# Several SoftEFA hosts on one L2 segment: a network namespace per host,
# each with one veth "eth0", joined by a Linux bridge that lives in a
# namespace of its own.  Needs root.  Usage, after lib.sh:
#	. "$(dirname "$0")/lib.sh" "$1"
#	. "$(dirname "$0")/hosts.sh"
#	hosts_up 2 --wire --profile extended
#
# hosts_up N [START_OPTION...]	N hosts; host I (1..N) runs softefa start
#		--netdev eth0 --host-id I START_OPTION... ${HOST_OPTS[I]}
# hosts_restart [START_OPTION...]	the same daemons again, other options
# on_host I CMD...	CMD with lib.sh's helpers (sefa, sx, stat_field,
#		status_field, check_provider, ...) pointed at host I
# hsefa I ARGS...	softefa ARGS on host I (status, stats, ...)
# hx I ARGS...		softefa exec ARGS on host I, as sx
# hgid I [DEV]		GID of DEV (efa_0) on host I, as softefa status shows it
# hlid I [DEV]		its LID (0 on the efa profile)
# hstat I [DEV] FIELD	a stats counter of DEV (efa_0) on host I, as stat_field
# hstatus I FIELD	a status field of host I, as status_field
# hns I, hdir I		host I's network namespace, run directory
# haddr I		host I's IPv4 address on eth0, for out-of-band exchanges
# hll I			eth0's own IPv6 link-local address on host I
# gid_full ADDR	an IPv6 address written out in full, as GIDs are shown
# hosts_bare		adds a host with no daemon, numbered after the others
#		(its number is then ${HOSTS_BARE[-1]}), for plain sockets
#		that play a stranger on the link (tests/integration/wire_forge)
# hosts_pair SP CP PROGRAM ARGS...	lib.sh's pair with the server on host
#		${PAIR_SERVER_HOST:-1} and the client on ${PAIR_CLIENT_HOST:-2},
#		given the server's haddr; output in $RUN/server.out, client.out
#
# Names carry the test's pid: namespaces sefa-PID-hI and sefa-PID-br (the
# bridge, br0), run directories $RUN/hI.  On exit every daemon is stopped
# (its log shown if the test failed, a sanitizer report fails it), what
# still runs in a host's namespace is killed, the namespaces go and with
# them the veths and the bridge; then lib.sh's cleanup.

# shellcheck shell=bash
# (the helpers set lib.sh's variables for the functions they call)
# shellcheck disable=SC2034

declare -F pair >/dev/null || {
	echo "hosts.sh: source lib.sh first" >&2
	exit 1
}

HOSTS_N=0
HOSTS_BRNS=
# hosts with no daemon (hosts_bare), numbered after the others
HOSTS_BARE=()
# eth0's link-local address per host, before any daemon adds its GIDs
HOSTS_LL=()
# options for one host alone, e.g. HOST_OPTS[1]="--sm"
HOST_OPTS=()
# Room for an EFA MTU (8928) behind IPv6, UDP and the transport headers.
HOSTS_MTU=${HOSTS_MTU:-9000}

hns() { echo "sefa-$$-h$1"; }
hdir() { echo "$RUN/h$1"; }
haddr() { echo "10.90.0.$1"; }
hll() { echo "${HOSTS_LL[$1]}"; }

on_host() {
	local dir ns

	dir=$(hdir "$1")
	ns=$(hns "$1")
	shift
	local RUN=$dir NETNS=$ns
	"$@"
}

hsefa() { on_host "$1" sefa "${@:2}"; }
hx() { on_host "$1" sx "${@:2}"; }
hstatus() { on_host "$1" status_field "$2"; }

hgid() {
	hsefa "$1" status | awk -v d="${2:-efa_0}" '$1 == "device" && $2 == d {
		for (i = 3; i < NF; i++) if ($i == "gid") print $(i + 1) }'
}

# LID of DEV (efa_0) on host I: 0 on the efa profile
hlid() {
	hsefa "$1" status | awk -v d="${2:-efa_0}" '$1 == "device" && $2 == d {
		for (i = 3; i < NF; i++) if ($i == "lid") print $(i + 1) }'
}

# gid_full ADDR: an IPv6 address (fe80::fc:ff:fe00:1) as softefa status
# and ibv_devinfo print a GID (fe80:0000:0000:0000:00fc:00ff:fe00:0001)
gid_full() {
	local head=$1 tail= g n out=()
	local -a h t

	if [[ $1 == *::* ]]; then
		head=${1%%::*}
		tail=${1#*::}
	fi
	IFS=: read -ra h <<<"$head"
	IFS=: read -ra t <<<"$tail"
	for g in "${h[@]}"; do out+=("$(printf %04x "0x$g")"); done
	for ((n = ${#h[@]} + ${#t[@]}; n < 8; n++)); do out+=(0000); done
	for g in "${t[@]}"; do out+=("$(printf %04x "0x$g")"); done
	(IFS=:; echo "${out[*]}")
}

hstat() {
	if [ $# -eq 2 ]; then
		on_host "$1" stat_field efa_0 "$2"
	else
		on_host "$1" stat_field "$2" "$3"
	fi
}

# hdrops I REASON: what host I's wire dropped for REASON (softefa stats)
hdrops() {
	hsefa "$1" stats | awk -v r="$2" '$1 == "wire" && $2 == "drops" {
		for (i = 3; i < NF; i++) if ($i == r) print $(i + 1) }'
}

# hdaemon_kb I FIELD: a figure in kB (VmHWM, VmRSS) of host I's softefad
hdaemon_kb() {
	awk -v k="$2:" '$1 == k { print $2 }' \
		"/proc/$(cat "$(hdir "$1")/softefad.pid")/status"
}

# hgrew_less I BEFORE LIMIT WHAT: host I's softefad's peak RSS grew by less
# than LIMIT kB since it was BEFORE kB.  A sanitizer's allocator keeps
# freed memory in quarantine, so its figure says nothing of the daemon's
# tables: there it is only printed.
hgrew_less() {
	local now

	now=$(hdaemon_kb "$1" VmHWM)
	echo "$4: host $1's softefad peak RSS $2 -> $now kB"
	if sanitized; then
		echo "($4: a sanitizer build; the bound of $3 kB is checked without it)"
		return 0
	fi
	[ $((now - $2)) -lt "$3" ] ||
		fail "$4: host $1's softefad grew from $2 to $now kB, by $3 kB or more"
}

# hosts_ll_ready I: eth0 of host I has a link-local address that DAD is
# done with, now kept in HOSTS_LL[I]
hosts_ll_ready() {
	local out

	out=$(ip -n "$(hns "$1")" -6 -o addr show dev eth0 scope link)
	! grep -q dadfailed <<<"$out" || fail "$(hns "$1"): DAD failed: $out"
	[ -n "$out" ] && ! grep -q tentative <<<"$out" || return 1
	HOSTS_LL[$1]=$(awk '{ sub(/\/.*/, "", $4); print $4; exit }' <<<"$out")
}

# Wait until eth0 of host $1 has its link-local address (DAD takes a
# second or two, more on a loaded machine).
hosts_wait_ll() {
	wait_for 30 "DAD on eth0 of $(hns "$1")" hosts_ll_ready "$1" ||
		fail "$(hns "$1"): eth0: $(ip -n "$(hns "$1")" -6 addr show dev eth0)"
}

# Start the daemon of every host; on a wire, host 1 runs the SM.
hosts_start() {
	local i sm

	for i in $(seq "$HOSTS_N"); do
		mkdir -p "$(hdir "$i")"
		sm=
		[ "$i" -eq 1 ] && [[ " $* " == *" --wire "* ]] && sm=--sm
		# shellcheck disable=SC2086
		on_host "$i" sefa start --netdev eth0 --host-id "$i" "$@" $sm \
			${HOST_OPTS[$i]:-} >/dev/null ||
			fail "host $i: softefa start --netdev eth0 --host-id $i $* $sm"
	done
}

# hosts_link I: host I's namespace, its eth0 on the bridge
hosts_link() {
	local ns

	ns=$(hns "$1")
	ip netns add "$ns"
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
		net.ipv6.conf.default.disable_ipv6=0
	ip -n "$ns" link set lo up
	ip -n "$HOSTS_BRNS" link add "h$1" mtu "$HOSTS_MTU" type veth \
		peer name eth0 netns "$ns"
	ip -n "$HOSTS_BRNS" link set "h$1" master br0 up
	ip -n "$ns" link set eth0 mtu "$HOSTS_MTU" up
	ip -n "$ns" addr add "$(haddr "$1")/24" dev eth0
}

hosts_up() {
	local n=$1 i ns br
	shift

	[ "$HOSTS_N" -eq 0 ] || fail "hosts_up: the hosts are up already"
	[ "$(id -u)" -eq 0 ] || fail "hosts.sh needs root for network namespaces"
	br=sefa-$$-br
	ip netns add "$br"
	HOSTS_BRNS=$br
	ip netns exec "$br" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n "$br" link add br0 mtu "$HOSTS_MTU" type bridge stp_state 0 \
		mcast_snooping 0
	ip -n "$br" link set br0 up
	for i in $(seq "$n"); do
		HOSTS_N=$i
		hosts_link "$i"
	done
	for i in $(seq "$n"); do
		hosts_wait_ll "$i"
	done
	hosts_start "$@"
}

# A host on the bridge with no daemon, after the others: a plain socket
# there plays a stranger on the link.
hosts_bare() {
	local i=$((HOSTS_N + ${#HOSTS_BARE[@]} + 1))

	[ "$HOSTS_N" -gt 0 ] || fail "hosts_bare: hosts_up first"
	HOSTS_BARE+=("$i")
	hosts_link "$i"
	hosts_wait_ll "$i"
}

# Every daemon stopped (a sanitizer report fails the test), then started
# again with these options.
hosts_restart() {
	local i

	for i in $(seq "$HOSTS_N"); do
		on_host "$i" host_down 0 || fail "host $i: softefad reported errors"
	done
	hosts_start "$@"
}

hosts_pair() {
	local s=${PAIR_SERVER_HOST:-1} c=${PAIR_CLIENT_HOST:-2}
	local PAIR_OUT=$RUN PORT=${PORT:-18515}
	local PAIR_ADDR PAIR_CLIENT_RUN PAIR_CLIENT_NETNS

	PAIR_ADDR=$(haddr "$s")
	PAIR_CLIENT_RUN=$(hdir "$c")
	PAIR_CLIENT_NETNS=$(hns "$c")
	on_host "$s" pair "$@"
}

hosts_cleanup() {
	local rc=$? i ns pids

	set +e
	for ((i = HOSTS_N; i >= 1; i--)); do
		ns=$(hns "$i")
		on_host "$i" host_down "$rc" || rc=1
		# only this test's processes live there
		pids=$(ip netns pids "$ns" 2>/dev/null)
		if [ -n "$pids" ]; then
			echo "hosts.sh: killing what still runs in $ns:" >&2
			# shellcheck disable=SC2086
			ps -o pid=,args= -p "$(echo $pids | tr ' ' ,)" >&2
			# shellcheck disable=SC2086
			kill -KILL $pids 2>/dev/null
		fi
		ip netns del "$ns" 2>/dev/null
	done
	for i in "${HOSTS_BARE[@]}"; do
		ns=$(hns "$i")
		pids=$(ip netns pids "$ns" 2>/dev/null)
		# shellcheck disable=SC2086
		[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	[ -z "$HOSTS_BRNS" ] || ip netns del "$HOSTS_BRNS" 2>/dev/null
	cleanup "$rc"
}
trap hosts_cleanup EXIT
