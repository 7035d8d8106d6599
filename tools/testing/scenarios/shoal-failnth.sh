#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-failnth: every allocation of shoal.ko's system calls failed in
# turn (/proc/thread-self/fail-nth), by
# tools/testing/selftests/shoal_failnth.c: socket, bind, sends of
# messages, requests and responses, receives, the error queue and close,
# for SIRD and PL2 over IPv4 and IPv6.  Each call must succeed or
# fail with an errno an allocation failure may give, messages must be
# read once and intact (or, their send failed, never), the sockets must
# still work, and shoal.ko's objects must be back to 0 after each
# failure.  Needs a kernel with fault injection (failslab and
# fail_page_alloc): make check-debug runs it, make check does not.
# FAILNTH_STEPS names a subset of the driver's steps.
# shellcheck source-path=SCRIPTDIR
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

BIN=$TREE/build/selftests/shoal_failnth
DBG=/sys/kernel/debug
SAVED=()

[ -x "$BIN" ] || topo_die "missing $BIN (scripts/check builds it)"
[ -e /proc/self/fail-nth ] ||
	topo_die "this kernel has no fault injection (/proc/self/fail-nth): run it with make check-debug"
for a in failslab fail_page_alloc; do
	[ -d "$DBG/$a" ] || topo_die "this kernel has no $DBG/$a"
done

# knob NAME VALUE: set a fault-injection knob, its old value kept for
# cleanup
knob()
{
	SAVED+=("$1=$(cat "$DBG/$1")")
	echo "$2" >"$DBG/$1" || topo_die "cannot set $DBG/$1"
}

cleanup()
{
	local kv

	for kv in "${SAVED[@]}"; do
		echo "${kv#*=}" >"$DBG/${kv%%=*}" 2>/dev/null
	done
	topo_teardown
	rmmod shoal 2>/dev/null
}

shoal_module
topo_init shfn
trap cleanup EXIT
# fail-nth counts only the allocations these knobs let through: with
# them every allocation is a site (the sleeping ones, order 0, highmem),
# and its report names its caller (the stack: scripts/vm expects one
# after each "FAULT_INJECTION" line)
for a in failslab fail_page_alloc; do
	knob "$a/ignore-gfp-wait" N
	knob "$a/verbose" 2
done
knob fail_page_alloc/ignore-gfp-highmem N
knob fail_page_alloc/min-order 0

start=$SECONDS
# shellcheck disable=SC2086 # FAILNTH_STEPS is a list of words
"$BIN" ${FAILNTH_STEPS:-}
status=$?
echo "# the driver exited $status after $((SECONDS - start)) s"

shoal_objects_zero "once the driver's namespace is gone"
rmmod shoal
tap_ok "$? == 0" "shoal.ko unloads after the campaign"
tap_done || exit 1
exit "$status"
