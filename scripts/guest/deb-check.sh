#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/guest/deb-check.sh ROOT: inside the VM, part of `make check-deb`.
# ROOT is a Debian bookworm root with Shoal's packages installed (DKMS
# built the modules for the guest's kernel there).  Everything runs from
# ROOT's files: its modprobe and module tree, its tc with the packaged
# plugin, its shoal-perf over a Shoal socket.  TAP on stdout; the exit
# status is 0 whatever the verdicts, so that scripts/vm's own (a problem in
# the kernel log) stands apart.
set -uo pipefail

R=${1:?usage: deb-check.sh ROOT}
# shellcheck source=tools/testing/lib/tap-check.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/testing/lib/tap-check.sh"




in_root() {
	chroot "$R" "$@"
}

mounted() {
	mount -t proc proc "$R/proc" && mount -t sysfs sysfs "$R/sys" &&
		mount --bind /dev "$R/dev" && mount -t tmpfs tmpfs "$R/tmp"
}

loaded() {
	grep -q "^$1 " /proc/modules
}

# a Shoal RPC exchange over loopback: every request answered, none failed
rpc_exchange() {
	local out

	# chroot itself in the background, not a function's subshell: $! is
	# then the server, which the kill below must reach
	chroot "$R" shoal-perf server --proto sird --port 4800 --ready /tmp/ready \
		2>/dev/null &
	server=$!
	for _ in $(seq 50); do
		[ -e "$R/tmp/ready" ] && break
		sleep 0.1
	done
	out=$(in_root shoal-perf client --server 127.0.0.1:4800 --proto sird \
		--workload fixed:20000 --load 0.05 --link-mbps 100 --duration 2 --drain 5 --json)
	status=$?
	kill "$server" 2>/dev/null
	wait "$server" 2>/dev/null
	echo "$out" | python3 -c '
import json, sys
m = json.load(sys.stdin)["messages"]
done, failed = m["completed"], m["failed"] + m["unanswered"]
print("# %d RPCs completed, %d failed or unanswered" % (done, failed))
sys.exit(0 if done > 0 and failed == 0 else 1)' && [ "$status" = 0 ]
}

check "proc, sys, dev, tmp mounted in the root" mounted
check "the root's modprobe loads sch_trim from its DKMS tree" in_root modprobe sch_trim
check "sch_trim is loaded" loaded sch_trim
check "its module is the one DKMS installed" \
	test -n "$(in_root modinfo -n sch_trim | grep '/updates/dkms/sch_trim.ko$')"
ip link set lo up
check "the packaged tc plugin adds a trim qdisc" \
	in_root tc qdisc add dev lo root handle 1: trim limit 12
check "tc shows it with its options" \
	test -n "$(in_root tc qdisc show dev lo | grep 'qdisc trim 1: root.*limit 12')"
check "the trim qdisc is deleted" in_root tc qdisc del dev lo root
check "the root's modprobe loads shoal" in_root modprobe shoal
check "a Shoal socket RPC exchange with the packaged shoal-perf" rpc_exchange
check "shoal-stat reads the counters" \
	test -n "$(in_root shoal-stat -a 2>/dev/null | grep -w tx_msgs)"
# a closed socket's last references may go after an RCU grace period
unloaded() {
	for _ in $(seq 50); do
		in_root modprobe -r shoal sch_trim 2>/dev/null && return 0
		sleep 0.1
	done
	in_root modprobe -r shoal sch_trim
}

check "modprobe -r unloads shoal and sch_trim" unloaded
check "neither is loaded" test -z "$(grep -E '^(shoal|sch_trim) ' /proc/modules)"
umount "$R/tmp" "$R/dev" "$R/sys" "$R/proc" 2>/dev/null
echo "1..$TAP_N"
[ "$TAP_FAIL" = 0 ] || echo "# $TAP_FAIL check(s) failed"
exit 0
