#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-sockfuzz: random sequences of socket calls with random arguments
# on shoal.ko's sockets, by tools/testing/selftests/shoal_sockfuzz.c
# (built by scripts/check): SIRD and PL2, IPv4 and IPv6, every call of
# the socket API with valid and faulty arguments, messages flowing
# between the pool's sockets.  Each run is in a namespace of its own
# (the driver's -n); every call must return what it may, the paths the
# driver names must be reached, messages read must be intact and read
# once, and shoal.ko's objects must be back to 0 once it closed its
# sockets.  Two runs of SOCKFUZZ_OPS (5000) calls in a memory cgroup (so
# that SO_RESERVE_MEM and the cgroup's socket charges are exercised): a
# fixed seed, one thread; and a seed from the clock, printed, with
# SOCKFUZZ_THREADS (2) other threads making calls on the same sockets at
# once (the driver's -tN: sends, receives, binds, buffer sizes, closes
# and sockets replaced under the main thread's calls), whose main thread
# makes a quarter of the calls (the others make about four times as
# many).  SOCKFUZZ_SEEDS
# replaces the seeds: odd runs are the first kind, even runs the second.  Then every object count, sird_peers too, is 0 once
# the namespaces are gone, no Shoal socket is left
# (/proc/net/protocols) and the module unloads.
# shellcheck source-path=SCRIPTDIR
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

BIN=$TREE/build/selftests/shoal_sockfuzz
OPS=${SOCKFUZZ_OPS:-5000}
THREADS=${SOCKFUZZ_THREADS:-2}
SEEDS=${SOCKFUZZ_SEEDS:-"24005 $(($(date +%s) % 1000000))"}
CG_ROOT=/sys/fs/cgroup
CG=

[ -x "$BIN" ] || topo_die "missing $BIN (scripts/check builds it)"
shoal_module
topo_init shfz
cleanup()
{
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	topo_teardown
	rmmod shoal 2>/dev/null
}
trap cleanup EXIT

# a memory cgroup (v2) for the first run, if the guest has one
if [ -e "$CG_ROOT/cgroup.controllers" ] &&
   grep -qw memory "$CG_ROOT/cgroup.controllers"; then
	grep -qw memory "$CG_ROOT/cgroup.subtree_control" ||
		echo +memory >"$CG_ROOT/cgroup.subtree_control" 2>/dev/null
	CG=$CG_ROOT/shoal-sockfuzz-$$
	mkdir "$CG" 2>/dev/null || CG=
fi

run=0
for seed in $SEEDS; do
	run=$((run + 1))
	where=
	cg=
	opts=(-n)
	ops=$OPS
	if [ $((run % 2)) = 0 ]; then
		opts+=("-t$THREADS")
		ops=$((OPS / 4))
		where=" with $THREADS other threads on the same sockets"
	fi
	if [ -n "$CG" ]; then
		cg=$CG
		where="$where, in a memory cgroup"
	fi
	echo "# run $run: seed $seed, $ops operations$where"
	start=$SECONDS
	# the driver's own TAP goes into its log, its verdict is one line here
	sh -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs" || exit 1; shift; exec "$@"' \
		sh "$cg" "$BIN" "${opts[@]}" "$ops" "$seed" >"$TOPO_TMP/run$run.log" 2>&1
	status=$?
	sed 's/^/# /' "$TOPO_TMP/run$run.log"
	grep -E '^not ok' "$TOPO_TMP/run$run.log" | sed 's/^not ok [0-9]* - /# FAILED: /'
	tap_ok "$status == 0" \
		"seed $seed$where: $ops calls, each returned what it may, every path reached, messages intact, objects back to 0 ($((SECONDS - start)) s)"
done

shoal_objects_zero "once the namespaces are gone"
left=$(awk '$1 ~ /^(SIRD|SIRDv6|PL2|PL2v6)$/ && $3 != 0 { printf "%s %s ", $1, $3 }' \
	/proc/net/protocols)
tap_ok "$([ -z "$left" ] && echo 1 || echo 0)" \
	"no Shoal socket left (/proc/net/protocols)${left:+: $left}"
rmmod shoal
tap_ok "$? == 0" "shoal.ko unloads after the campaign"
tap_done
