# Shared by demo.sh and test.sh: install what is missing, configure, build;
# and, with the integration tests' lib.sh too, waits bounded by the clock.
# Sourced with "set -euo pipefail" in effect.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Debian 12 packages the build, the tests and the demo need.
PACKAGES=(
	gcc make cmake pkg-config
	libibverbs-dev ibverbs-utils ibverbs-providers
	libnl-3-dev libnl-route-3-dev
	check libsubunit-dev
	pandoc man-db perftest infiniband-diags
	iproute2 iputils-ping tshark tcpdump
	libfabric1 libfabric-bin openmpi-bin libopenmpi-dev
	valgrind strace jq
)

# What test.sh needs on top, to build and check the .deb and .rpm packages.
PACKAGING_PACKAGES=(
	build-essential debhelper dpkg-dev lintian rpm
)

# What building the current upstream stack (tests/upstream) needs on top.
UPSTREAM_PACKAGES=(
	libudev-dev autoconf automake libtool
	libcmocka-dev
	cython3 python3-dev
	python3-pytest python3-yaml python3-retrying python3-junitparser
)

# install_packages [extra package...]: PACKAGES and these, where missing.
install_packages() {
	local missing=() p

	for p in "${PACKAGES[@]}" "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "missing packages: ${missing[*]}; run as root or install them" >&2
		return 1
	fi
	echo "== installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# tshark asks whether non-root users may capture: they may not
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		debconf-set-selections
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# wait_for SECONDS WHAT CMD [ARG...]: run CMD until it succeeds, for at
# most SECONDS (whole) by the clock: how long a count of tries lasts on a
# loaded or freshly booted machine nobody knows.  Tries come quickly at
# first, then every 0.2 s.  When time is up, it says on stderr what it
# waited for and for how long, and returns 1.  CMD runs as a condition,
# where set -e does not apply: it must return non-zero itself.  Only CMD
# runs again at each try: what changes belongs inside it (a function), not
# in an argument's $(...), which the shell expands once, before the wait.
wait_for() {
	local limit=$1 what=$2 t0 us tries=1 p=0
	local -a pause=(0.01 0.02 0.05 0.1 0.2)
	shift 2

	[[ $limit =~ ^[0-9]+$ ]] || {
		echo "wait_for: '$limit' is not a number of seconds" >&2
		return 2
	}
	# microseconds; the locale may put a comma in EPOCHREALTIME
	t0=${EPOCHREALTIME//[!0-9]/}
	until "$@"; do
		us=$((${EPOCHREALTIME//[!0-9]/} - t0))
		if [ "$us" -ge $((limit * 1000000)) ]; then
			printf "gave up waiting %s s for %s (%d tries in %d.%d s)\n" \
				"$limit" "$what" "$tries" $((us / 1000000)) \
				$((us / 100000 % 10)) >&2
			return 1
		fi
		sleep "${pause[p]}"
		[ "$p" -eq $((${#pause[@]} - 1)) ] || p=$((p + 1))
		tries=$((tries + 1))
	done
}

# tcp_listens PORT [NETNS]: something listens on TCP port PORT (in network
# namespace NETNS).  Only look: a test connection would be taken for the
# client.
tcp_listens() {
	[ -n "$(${2:+ip netns exec "$2"} ss -Hltn "sport = :$1")" ]
}

# build DIR [cmake options...]
build() {
	local dir=$1
	shift
	cmake -S "$TOP" -B "$dir" -DENABLE_WERROR=ON "$@" >/dev/null
	cmake --build "$dir" -j"$(nproc)" >/dev/null
}
