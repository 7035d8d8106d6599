#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Completion times of short flows hit by failures, with and without sqr
# (the paper's Figs. 9-12 scaled to this platform), inside the VM.
#
# BENCH_SQR_FLOWS (2000) TCP flows, one after the other, a connection
# each, web-search sizes up to 100 KB (tools/testing/lib/rpc.py), cross the
# switch's port r0 while sqr's injector fails it as in the paper: 760 us
# outages every 20 ms, found after 30 us.  Two failovers: ShareBackup (the
# same port back 730 us after the detection) and local rerouting to the
# backup link b0; each without copies (hold 0) and with sqr (hold 10 ms:
# the detection runs at the first packet after it is due, but a timer on
# this host may be milliseconds late).  Reports the percentiles, the flows
# slower than the 200 ms minimum RTO, the sender's retransmission timeouts,
# and an SVG plot of the distributions.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# counters arrive by eval
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../../tools/testing/lib/sqr.sh
source "$TREE/tools/testing/lib/sqr.sh"

FLOWS=${BENCH_SQR_FLOWS:-2000}
DIR=${VM_OUT:-/tmp}/bench-sqr-fct
FAULT="fault_len 760us fault_detect 30us fault_period 20ms"
mkdir -p "$DIR"

topo_modules sch_sqr
topo_init bsqrf
topo_build 1 >/dev/null
sqr_backup_link
s1=$(topo_sender_ns 1)
ip netns exec "$s1" ethtool -K eth0 tso off gso off >/dev/null
sqr_rpc_server "$DIR"

: >"$DIR/runs"
sb="reconf 730us"
lrr="backup b0 dmac $SQR_BACKUP_MAC failback 1ms"
for cfg in "sb-nosqr|hold 0 $sb" "sb-sqr|hold 10ms $sb" \
	"lrr-nosqr|hold 0 $lrr" "lrr-sqr|hold 10ms $lrr"; do
	name=${cfg%%|*}
	echo "sqr fct: $name, $FLOWS flows" >&2
	# shellcheck disable=SC2086	# option lists
	sw tc qdisc replace dev r0 root handle 1: sqr poll 200us ${cfg#*|} &&
		sw tc qdisc change dev r0 root sqr $FAULT || topo_die "sqr ${cfg#*|}"
	t0=$(sqr_timeouts)
	sqr_rpc_call --flows "$FLOWS" --seed 11 --json "$DIR/$name.json" 2>>"$DIR/rpc.log"
	eval "$(sqr_counters)"
	echo "$name $(($(sqr_timeouts) - t0)) $fault_outages $fault_drops $resent $lost" >>"$DIR/runs"
	sw tc qdisc del dev r0 root
done

python3 "$TREE/scripts/lib/bench_sqr_fct_report.py" "$DIR" "$TREE/tools/testing/lib"
