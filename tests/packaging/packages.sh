#!/bin/bash
# The .deb and .rpm packages, built the way distributions build them, once
# per CI run (test.sh runs this after both ctest runs).
# Usage: packages.sh BUILD_DIR
#
# 1. the source tarball: "cmake --build BUILD_DIR --target dist";
# 2. from it, in a scratch directory: dpkg-buildpackage -us -uc -b (which
#    checks the symbols file against the library), and lintian, which
#    must report no errors; dpkg-shlibdeps of a program linked to us;
# 3. every file of ours that an installed package owns too is one our
#    package diverts, to a path nobody owns;
# 4. the diversions at work in a scratch dpkg root: stand-ins of the stock
#    packages, ours installed over them, the stock ones upgraded, ours
#    removed again;
# 5. rpmbuild -bb --nodeps with the spec from the tarball.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?build directory}" && pwd)
work=$(mktemp -d /tmp/softefa-pkg.XXXXXX)
trap 'rm -rf "$work"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# quiet NAME CMD...: CMD's output goes to $work/NAME.log, shown on failure.
quiet() {
	local log=$work/$1.log
	shift
	"$@" >"$log" 2>&1 || {
		tail -n 80 "$log" >&2
		fail "$*"
	}
}

timed() {
	local t0=$SECONDS
	"$@"
	echo "   ($((SECONDS - t0)) s)"
}

arch=$(dpkg --print-architecture)
version=$(sed -n 's/^project([^ ]* VERSION \([0-9.]*\).*/\1/p' \
	"$top/CMakeLists.txt")
name=softefa-provider-$version
deb_version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
rpm_version=$(awk '$1 == "Version:" { print $2 }' \
	"$top/redhat/softefa-provider.spec")
[ "${deb_version%-*}" = "$version" ] ||
	fail "debian/changelog is at $deb_version, CMakeLists.txt at $version"
[ "$rpm_version" = "$version" ] ||
	fail "the spec file is at $rpm_version, CMakeLists.txt at $version"

echo "-- source tarball (cmake --target dist)"
quiet dist cmake --build "$build" --target dist
tarball=$build/$name.tar.gz

build_deb() {
	mkdir "$work/deb"
	tar xzf "$tarball" -C "$work/deb"
	(cd "$work/deb/$name" &&
	 quiet dpkg-buildpackage dpkg-buildpackage -us -uc -b -j"$(nproc)")
	ls "$work"/deb/*.deb | sed 's,.*/,   ,'
}
echo "-- dpkg-buildpackage -us -uc -b"
timed build_deb

lint() {
	local rc=0

	lintian --fail-on error \
		"$work/deb/softefa-provider_${deb_version}_$arch.changes" \
		>"$work/lintian.log" 2>&1 || rc=$?
	grep -v "running with root privileges" "$work/lintian.log" |
		sed 's/^/   /' || echo "   (no tags)"
	[ "$rc" -eq 0 ] || fail "lintian reports errors"
}
echo "-- lintian"
timed lint

# A program built against the packages, which calls the newest upstream
# efadv call and one of ours: dpkg-shlibdeps, which reads the symbols file
# of the package being built, asks for libefa1-softefa at the version the
# symbols file gives the newer of the two.
shlibdeps() {
	local src=$work/deb/$name ma want got

	ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	cat >"$work/user.c" <<-'EOF'
	#include <infiniband/efadv.h>
	#include <infiniband/verbs_exp.h>

	int main(void)
	{
		void *volatile used[] = { efadv_query_mr, ibv_exp_query_device };

		return used[0] == used[1];
	}
	EOF
	quiet user cc -I"$src/debian/libefa-softefa-dev/usr/include" \
		-o "$src/debian/user" "$work/user.c" \
		-L"$src/debian/libefa1-softefa/usr/lib/$ma" -l:libefa.so.1
	want=$(awk '$1 ~ /^(efadv_query_mr|ibv_exp_query_device)@/ { print $2 }' \
		"$src/debian/libefa1-softefa.symbols" | sort -V | tail -n 1)
	(cd "$src" && quiet shlibdeps dpkg-shlibdeps -v -O debian/user)
	got=$(grep "^shlibs:Depends=" "$work/shlibdeps.log" || true)
	echo "   $got"
	grep -q "libefa1-softefa (>= $want)" <<<"$got" ||
		fail "not libefa1-softefa (>= $want): $got"
	grep -q "Using symbols file debian/libefa1-softefa/DEBIAN/symbols" \
		"$work/shlibdeps.log" ||
		fail "dpkg-shlibdeps read no symbols file of ours: $(cat "$work/shlibdeps.log")"
}
echo "-- dpkg-shlibdeps of a program linked to libefa.so.1"
shlibdeps

# Our packages and the diversions their preinst makes ("path aside").
ours=()
mkdir "$work/ctl" "$work/files"
for deb in "$work"/deb/*.deb; do
	pkg=$(dpkg-deb -f "$deb" Package)
	case $pkg in *-dbgsym) continue ;; esac
	ours+=("$pkg")
	dpkg-deb -e "$deb" "$work/ctl/$pkg"
	dpkg-deb -x "$deb" "$work/files/$pkg"
	if [ -f "$work/ctl/$pkg/preinst" ]; then
		sed -n 's/^[[:space:]]*--divert \([^ ]*\) \([^ ]*\)$/\2 \1/p' \
			"$work/ctl/$pkg/preinst"
	fi >"$work/$pkg.diversions"
done

# diverted PKG PATH: PKG's preinst diverts PATH
diverted() {
	awk -v f="$2" '$1 == f { found = 1 } END { exit !found }' \
		"$work/$1.diversions"
}

# owner PATH: the installed package that owns PATH, if any
owner() {
	{ dpkg-query -S "$1" 2>/dev/null || true; } |
		sed -n '/^diversion by/d; s/^\([^:,]*\)\(:[^:,]*\)\{0,1\}[:,] .*/\1/p' |
		head -n 1
}

collisions() {
	local pkg f who aside n=0

	for pkg in "${ours[@]}"; do
		while read -r f; do
			who=$(owner "$f")
			[ -n "$who" ] || continue
			diverted "$pkg" "$f" ||
				fail "$pkg ships $f, which $who owns, without diverting it"
			n=$((n + 1))
		done < <(cd "$work/files/$pkg" && find . ! -type d | sed 's,^\.,,')
		while read -r f aside; do
			who=$(owner "$aside")
			[ -z "$who" ] || fail "$pkg diverts $f onto $aside of $who"
		done <"$work/$pkg.diversions"
	done
	# libibverbs-dev brings the stock provider: no collision means a
	# broken check, not a clean package.
	[ "$n" -gt 0 ] || fail "no file of ours collides with the stock EFA files?"
	echo "   $n files of installed stock packages, each diverted"
}
echo "-- our files against the installed packages"
collisions

# A scratch dpkg root: maintainer scripts run outside it with DPKG_ROOT
# set, which dpkg-divert honours.  The host's own diversions must not move.
in_root() {
	dpkg --root="$work/root" --force-script-chrootless --force-depends \
		"$@"
}

# stand_in PACKAGE: a package of that name and installed version holding
# what it owns of the paths we divert (and the files its links point to).
stand_in() {
	local pkg=$1 d=$work/stock/$1 f

	mkdir -p "$d/DEBIAN"
	cat "$work"/*.diversions | while read -r f _; do
		[ "$(owner "$f")" = "$pkg" ] || continue
		for f in "$f" "$(readlink -f "$f")"; do
			[ "$(owner "$f")" = "$pkg" ] || continue
			mkdir -p "$d$(dirname "$f")"
			cp -a "$f" "$d$f"
		done
	done
	cat >"$d/DEBIAN/control" <<-EOF
	Package: $pkg
	Version: $(dpkg-query -W -f='${Version}' "$pkg")
	Architecture: $arch
	Maintainer: nobody <nobody@softefa.invalid>
	Description: stand-in for $pkg
	EOF
	quiet "stand-in-$pkg" dpkg-deb -Zgzip --build "$d" "$work/stock/$pkg.deb"
}

# expect_files: ours at the diverted paths, the stand-ins' files aside
expect_files() {
	local pkg f aside stock

	for pkg in "${ours[@]}"; do
		while read -r f aside; do
			stock=$(owner "$f")
			same "$work/root$f" "$work/files/$pkg$f" ||
				fail "$1: $f is not ours"
			same "$work/root$aside" "$work/stock/$stock$f" ||
				fail "$1: the stock $f is not at $aside"
		done <"$work/$pkg.diversions"
	done
}

# same A B: the same link target or the same contents
same() {
	if [ -L "$2" ]; then
		[ -L "$1" ] && [ "$(readlink "$1")" = "$(readlink "$2")" ]
	else
		[ -f "$1" ] && [ ! -L "$1" ] && cmp -s "$1" "$2"
	fi
}

divert_in_root() {
	local host stocks pkg f aside n

	host=$(dpkg-divert --list)
	mkdir -p "$work/root/var/lib/dpkg/"{info,updates,triggers}
	touch "$work/root/var/lib/dpkg/status"
	stocks=$(cat "$work"/*.diversions | while read -r f _; do
		owner "$f"; done | sort -u)
	for pkg in $stocks; do
		stand_in "$pkg"
	done
	quiet stock-install in_root -i "$work"/stock/*.deb

	quiet ours-install in_root -i $(for pkg in "${ours[@]}"; do
		ls "$work"/deb/"${pkg}"_*.deb; done)
	n=$(cat "$work"/*.diversions | wc -l)
	[ "$(dpkg-divert --root="$work/root" --list | wc -l)" -eq "$n" ] ||
		fail "not $n diversions: $(dpkg-divert --root="$work/root" --list)"
	expect_files "installed"

	# An upgrade of the stock packages leaves ours in place.
	quiet stock-upgrade in_root -i "$work"/stock/*.deb
	expect_files "stock upgraded"

	quiet ours-purge in_root --purge "${ours[@]}"
	[ -z "$(dpkg-divert --root="$work/root" --list)" ] ||
		fail "diversions left: $(dpkg-divert --root="$work/root" --list)"
	for pkg in "${ours[@]}"; do
		while read -r f aside; do
			same "$work/root$f" "$work/stock/$(owner "$f")$f" ||
				fail "removed: the stock $f is not back"
			if [ -e "$work/root$aside" ] || [ -L "$work/root$aside" ]; then
				fail "removed: $aside is left"
			fi
		done <"$work/$pkg.diversions"
	done
	for pkg in "${ours[@]}"; do
		while read -r f; do
			diverted "$pkg" "$f" && continue
			if [ -e "$work/root$f" ] || [ -L "$work/root$f" ]; then
				fail "removed: $f is left"
			fi
		done < <(cd "$work/files/$pkg" && find . ! -type d | sed 's,^\.,,')
	done
	[ "$(dpkg-divert --list)" = "$host" ] ||
		fail "the host's diversions changed"
	echo "   $n diversions made, kept over a stock upgrade, undone on purge"
}
echo "-- diversions in a scratch dpkg root"
timed divert_in_root

build_rpm() {
	mkdir -p "$work/rpm/SOURCES"
	cp "$tarball" "$work/rpm/SOURCES/"
	tar xzf "$tarball" -C "$work/rpm" "$name/redhat/softefa-provider.spec"
	quiet rpmbuild rpmbuild -bb --nodeps -D "_topdir $work/rpm" \
		"$work/rpm/$name/redhat/softefa-provider.spec"
	ls "$work"/rpm/RPMS/*/*.rpm | sed 's,.*/,   ,'
}
echo "-- rpmbuild -bb --nodeps"
timed build_rpm

echo "== packages built and checked"
