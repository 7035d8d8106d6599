#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The sqr part of `make demo`, inside the VM: the switch's port to the
# receiver fails under traffic, and the traffic fails over to a backup
# link.  Once by sqr's fault injector (10 ms, found after 1 ms), once for
# real (the receiver's end of the link goes down for a third of a second).
# A sequenced UDP stream counts what was lost; then short TCP flows across
# repeated outages count retransmission timeouts.  Each without copies
# (hold 0: the failover alone) and with sqr holding them for 10 ms.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../../tools/testing/lib/sqr.sh
source "$TREE/tools/testing/lib/sqr.sh"

DIR=${VM_OUT:-/tmp}/demo-sqr
COUNT=3000
mkdir -p "$DIR"

topo_modules sch_sqr
topo_init demosqr
topo_build 1 >/dev/null
sqr_backup_link
s1=$(topo_sender_ns 1)
ip netns exec "$s1" ethtool -K eth0 tso off gso off >/dev/null
backup="backup b0 dmac $SQR_BACKUP_MAC failback 5ms poll 200us"

# stream HOLD OUTAGE_CMD: COUNT UDP packets at 2000/s, the outage 0.8 s
# in; prints one row
stream()
{
	sw tc qdisc replace dev r0 root handle 1: sqr hold "$1" $backup || topo_die "sqr"
	sqr_stream "udp-$1" "$COUNT" 2000 "$2"
	eval "$(sqr_counters)"
	printf '%-6s %9s %9s %11s %8s %8s\n' "$1" "$distinct" "$((COUNT - distinct))" \
		"$reordered" "$resent" "$dups"
	LOST[$outage-$1]=$((COUNT - distinct)) REORD[$outage-$1]=$reordered RESENT[$outage-$1]=$resent
	sw tc qdisc del dev r0 root
}

declare -A LOST REORD RESENT TIMEOUTS

echo
echo "== sqr: a failing link, with and without copies held"
echo "   ($COUNT UDP packets at 2000/s; the backup link takes over at detection)"
for outage in injected real; do
	if [ $outage = injected ]; then
		echo "one outage of 10 ms, found after 1 ms (sqr's fault injector):"
		cmd="sw tc qdisc change dev r0 root sqr fault_len 10ms fault_detect 1ms fault_count 1"
	else
		echo "the receiver's end of the link down for 0.3 s (carrier lost):"
		cmd="sqr_rx_down 0.3"
	fi
	printf '%-6s %9s %9s %11s %8s %8s\n' hold arrived lost "out of order" resent duplicates
	for hold in 0 10ms; do
		stream "$hold" "$cmd"
		for _ in $(seq 1 50); do
			sw ip link show r0 | grep -q LOWER_UP && break
			topo_nap 0.1
		done
	done
done

sqr_rpc_server "$DIR"
echo
echo "60 short TCP flows (up to 100 KB) across outages of 6 ms every 40 ms,"
echo "found after 2 ms:"
printf '%-6s %8s %14s %12s %12s\n' hold flows "RTO timeouts" "p99 FCT ms" "max FCT ms"
for hold in 0 10ms; do
	sw tc qdisc replace dev r0 root handle 1: sqr hold "$hold" $backup &&
		sw tc qdisc change dev r0 root sqr fault_len 6ms fault_detect 2ms fault_period 40ms ||
		topo_die "sqr"
	t0=$(sqr_timeouts)
	sqr_rpc_call --flows 60 --seed 3 --json "$DIR/tcp-$hold.json" 2>/dev/null
	TIMEOUTS[$hold]=$(($(sqr_timeouts) - t0))
	python3 "$TREE/scripts/lib/demo_sqr_fct.py" "$DIR/tcp-$hold.json" "$hold" "${TIMEOUTS[$hold]}"
	sw tc qdisc del dev r0 root
done

# the sentences follow from the rows above
echo
for outage in injected real; do
	if [ $outage = injected ]; then
		what="The injected outage"
	else
		what="The link down"
	fi
	l0=${LOST[$outage-0]} l1=${LOST[$outage-10ms]}
	if ((l0 > 0)); then
		echo "$what lost $l0 packets without copies (those on the link until it was found);"
	else
		echo "$what lost nothing without copies in this run;"
	fi
	if ((l1 == 0 && ${RESENT[$outage-10ms]} > 0)); then
		line="  with copies none: sqr resent ${RESENT[$outage-10ms]} from its ring"
		((${REORD[$outage-10ms]} == 0)) && line+=", in order"
	else
		line="  with copies $l1, ${RESENT[$outage-10ms]} resent"
	fi
	echo "$line."
done
t0=${TIMEOUTS[0]} t1=${TIMEOUTS[10ms]}
if ((t0 > t1)); then
	echo "TCP waited for $t0 retransmission timeouts (200 ms, a second for a SYN) without"
	echo "copies and $t1 with them."
else
	echo "TCP waited for $t0 retransmission timeouts without copies and $t1 with them:"
	echo "copies did not spare any in this run."
fi
