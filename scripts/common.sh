# Shared by demo.sh and test.sh: install what is missing, configure, build.
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
	valgrind strace
)

# What test.sh needs on top, to build and check the .deb and .rpm packages.
PACKAGING_PACKAGES=(
	build-essential debhelper dpkg-dev lintian rpm
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

# build DIR [cmake options...]
build() {
	local dir=$1
	shift
	cmake -S "$TOP" -B "$dir" -DENABLE_WERROR=ON "$@" >/dev/null
	cmake --build "$dir" -j"$(nproc)" >/dev/null
}
