#!/bin/bash
# Users kept apart as the kernel keeps them (softefad(8), USERS): root's
# system-wide host in /run/softefa serves two other users, who find it by
# default; neither may stop it or open its umad nodes, and one reaches none
# of the other's objects: not its memory keys, handles, mmap keys, channel
# or device file.  A user's own host is the one its commands use, and
# another user's is not trusted; a run directory another user made is
# refused.  With no host, each is told where it looked.  Runs in a mount namespace of its own, with a /run of its own.
if [ -z "${SEFA_USERS_NS:-}" ]; then
	command -v unshare >/dev/null && command -v setpriv >/dev/null ||
		{ echo "SKIP: unshare and setpriv (util-linux) needed"; exit 77; }
	SEFA_USERS_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi
. "$(dirname "$0")/lib.sh" "$1"
mount -t tmpfs -o mode=755 softefa-users /run
rmdir "$RUN"
RUN=/run/softefa

# The programs other users run, where they may read them whatever the
# build directory's own permissions.
T=/run/softefa-test
mkdir -p "$T/bin" "$T/lib" "$T/sock"
chmod 1777 "$T/sock"
cp -a "$BUILD/bin/softefa" "$BUILD/bin/softefad" "$BUILD/bin/users_probe" "$T/bin/"
cp -a "$BUILD"/lib/*.so* "$T/lib/"
chmod -R a+rX "$T"

# as UID CMD...: a user with a runtime directory in /run/user if it has
# one there, as a login gives it, else none
as() {
	local uid=$1 xdg=(-u XDG_RUNTIME_DIR)
	shift
	[ ! -d "/run/user/$uid" ] || xdg=(XDG_RUNTIME_DIR="/run/user/$uid")
	setpriv --reuid="$uid" --regid="$uid" --clear-groups \
		env "${xdg[@]}" HOME=/ "$@"
}
A=4101
B=4102
C=4103		# with no runtime directory: its host would be in /tmp
for uid in $A $B; do
	mkdir -p "/run/user/$uid"
	chown "$uid:$uid" "/run/user/$uid"
done

# Stop the users' own hosts too: the mount namespace ends with its last
# process.
users_down() {
	local rc=$?

	[ -z "${OWNER_PID:-}" ] || kill "$OWNER_PID" 2>/dev/null || true
	as $A "$T/bin/softefa" stop >/dev/null 2>&1 || true
	as $C "$T/bin/softefa" stop >/dev/null 2>&1 || true
	rm -rf "/tmp/softefa-$C"
	cleanup "$rc"
}
trap users_down EXIT

"$SOFTEFA" start --profile extended >/dev/null || fail "root's host did not start"

echo "== the system-wide host, found by default"
out=$(as $A "$T/bin/softefa" status) || fail "status as uid $A: $out"
grep -qx "run-dir: /run/softefa" <<<"$out" || fail "uid $A found: $out"
as $A "$T/bin/softefa" exec -- ibv_devinfo -l | grep -q efa_0 ||
	fail "uid $A sees no device"

echo "== root's to stop, and umad nodes are root's"
out=$(as $A "$T/bin/softefa" stop 2>&1) && fail "uid $A stopped root's host"
grep -q "only root or the user who started it" <<<"$out" || fail "stop said: $out"
sefa status >/dev/null || fail "the host went away after a refused stop"
out=$(as $A "$T/bin/softefa" exec -- stat -c '%a %n' /dev/infiniband/umad0 \
	/dev/infiniband/issm0 /dev/infiniband/uverbs0)
expect_eq "node modes" "$out" "600 /dev/infiniband/umad0
600 /dev/infiniband/issm0
666 /dev/infiniband/uverbs0"
as $A "$T/bin/softefa" exec -- perfquery >/dev/null 2>&1 &&
	fail "uid $A opened umad0"
sx -- perfquery >/dev/null || fail "root's perfquery failed"

echo "== one user's objects, another user's tries"
for provider in ours stock; do
	sock=$T/sock/owner-$provider
	coproc OWNER { as $A "$T/bin/softefa" exec --provider "$provider" -- \
		"$T/bin/users_probe" owner "$sock" 2>&1; }
	read -r -t 20 word names <&"${OWNER[0]}" || fail "$provider: owner did not start"
	[ "$word" = ready ] || fail "$provider: owner said: $word $names"
	# shellcheck disable=SC2086 # the names are words
	out=$(as $B "$T/bin/softefa" exec --provider "$provider" -- \
		"$T/bin/users_probe" intrude "$sock" $names 2>&1) ||
		fail "$provider: uid $B got through: $out"
	echo "$out"
	echo check >&"${OWNER[1]}"
	read -r -t 20 word <&"${OWNER[0]}" || word="(nothing)"
	[ "$word" = intact ] || fail "$provider: the owner's objects: $word"
	wait "$OWNER_PID" || fail "$provider: owner failed"
done

echo "== a user's own host"
out=$(as $A "$T/bin/softefa" start 2>&1) || fail "uid $A start: $out"
out=$(as $A "$T/bin/softefa" status) || fail "uid $A status of its own: $out"
grep -qx "run-dir: /run/user/$A/softefa" <<<"$out" || fail "uid $A found: $out"
as $A "$T/bin/softefa" exec -- ibv_devinfo -l | grep -q efa_0 ||
	fail "uid $A's own host shows no device"
out=$(as $B "$T/bin/softefa" --run-dir "/run/user/$A/softefa" status 2>&1) &&
	fail "uid $B used uid $A's host"
grep -q "not trusted" <<<"$out" || fail "uid $B was told: $out"
# the shim itself, pointed at it: open(2) of the node
out=$(as $B "$T/bin/softefa" exec -- env SOFTEFA_RUN_DIR="/run/user/$A/softefa" \
	sh -c 'exec 3</dev/infiniband/uverbs0' 2>&1) &&
	fail "uid $B opened uid $A's device"
grep -q "Permission denied" <<<"$out" || fail "uid $B's open said: $out"
as $A "$T/bin/softefa" stop >/dev/null || fail "uid $A could not stop its own host"

echo "== a run directory another user made"
as $B mkdir -m 755 "/tmp/softefa-$C"
out=$(as $C "$T/bin/softefa" start 2>&1) && fail "uid $C served uid $B's directory"
grep -q "belongs to another user" <<<"$out" || fail "start said: $out"
mkdir -m 777 /run/softefa-open
out=$(timeout 10 "$BUILD/bin/softefad" --run-dir /run/softefa-open 2>&1) ||
	[ $? -ne 124 ] || fail "softefad served a directory anyone may write"
grep -q "others may write it" <<<"$out" || fail "softefad said: $out"

echo "== no host: the hint names where each looked and how to start one"
stop_host
out=$(as $A "$T/bin/softefa" status 2>&1) && fail "uid $A found a host: $out"
grep -qF "no softefad is running in /run/softefa, root's system-wide host, nor in your own, /run/user/$A/softefa" \
	<<<"$out" || fail "uid $A was told: $out"
grep -qF "'softefa start' starts your own there; another host: --run-dir DIR or SOFTEFA_RUN_DIR=DIR" \
	<<<"$out" || fail "uid $A was told: $out"
out=$(env -u SOFTEFA_RUN_DIR "$SOFTEFA" status 2>&1) && fail "root found a host: $out"
grep -qx "softefa: no softefad is running in /run/softefa" <<<"$out" ||
	fail "root was told: $out"
grep -qF "'softefa start' starts one there" <<<"$out" || fail "root was told: $out"
echo "PASS"
