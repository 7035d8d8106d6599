#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sqr-failover: the switch's port r0 to the receiver fails under a
# sequenced UDP stream; a second link (b0 -> the receiver's eth1) is the
# backup.  Outages of 1x, 5x and 30x the detection bound come from sqr's
# fault injector (exact onset and detection), with local rerouting to b0
# (copies in the ring buffer, and once as clones) and ShareBackup-style
# (the same port back after a reconfiguration);
# then the receiver's end of r0 really goes down and comes back.
#
# With sqr holding copies: nothing that went through the port is lost, no
# packet arrives out of order, duplicates stay few.  Without (hold 0, the
# same failover otherwise): exactly the packets the outage swallowed are
# lost.  When the veth goes down Linux detaches the port's qdisc before
# it moves the route: what it routes to the port in between, and for the
# whole outage when routes through a link that is down are kept, is taken
# by sqr's guard; without copies it is dropped there.  The test traces
# the kernel's drops to tell the wire's from the detached port's.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# counters arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/sqr.sh
source "$HERE/../lib/sqr.sh"

RATE=2000		# packets per second
COUNT=3000		# 1.5 s of stream
DETECT_US=1000		# the detection bound the injector models
HOLD="hold 10ms poll 200us"

topo_modules sch_sqr
topo_init sqrf
topo_build 1 >/dev/null

sqr_backup_link
bmac_rx=$SQR_BACKUP_MAC

# injected NAME LEN_US SQR_OPTS [DETECT]: under sqr with SQR_OPTS, one
# outage of LEN_US, found DETECT us (DETECT_US) after its start, injected
# once the stream flows
injected()
{
	local name=$1 len=$2 detect=${4:-$DETECT_US}

	sw tc qdisc replace dev r0 root handle 1: sqr $3 || topo_die "sqr $3"
	sqr_stream "$name" "$COUNT" "$RATE" "sw tc qdisc change dev r0 root sqr fault_len ${len}us \
		fault_detect ${detect}us fault_count 1"
	eval "$(sqr_counters)"
	echo "# $name: $distinct of $COUNT arrived, $dups duplicates, $reordered out of order;" \
		"sqr: fault_drops $fault_drops committed $committed resent $resent" \
		"dup_avoided $dup_avoided diverted $diverted detect_latency ${detect_latency_last}ns"
	sw tc qdisc del dev r0 root
}

backup="backup b0 dmac $bmac_rx failback 5ms"
lost_plain=0
wire_sqr=0
for k in 1 5 30; do
	len=$((k * DETECT_US))
	injected "lrr-${k}x" "$len" "$HOLD $backup"
	tap_ok "fault_outages == 1 && failures == 1" \
		"${k}x outage, local reroute: one outage, one failure found (after ${detect_latency_last} ns)"
	tap_ok "distinct == COUNT && lost == 0" \
		"${k}x outage, local reroute, sqr: none lost ($distinct of $COUNT arrived)"
	tap_ok "reordered == 0" "${k}x outage, local reroute, sqr: order kept ($reordered out of order)"
	tap_ok "dups <= 5 && resent >= fault_drops" \
		"${k}x outage, local reroute, sqr: $dups duplicates, $resent resent for $fault_drops lost on the wire"
	wire_sqr=$((wire_sqr + fault_drops))

	injected "lrr-${k}x-nosqr" "$len" "hold 0 $backup"
	tap_ok "COUNT - distinct == fault_drops" \
		"${k}x outage, local reroute, no copies: the $fault_drops packets the outage took are lost ($((COUNT - distinct)))"
	lost_plain=$((lost_plain + COUNT - distinct))
done

# copies held as clones (copy_max 0: what GSO and large frames get)
injected "lrr-5x-clones" $((5 * DETECT_US)) "$HOLD $backup copy_max 0"
tap_ok "distinct == COUNT && reordered == 0 && lost == 0 && cloned == cached && cloned > 0" \
	"5x outage, local reroute, copies as clones: none lost, order kept ($distinct of $COUNT, $reordered out of order, $cloned clones)"
wire_sqr=$((wire_sqr + fault_drops))

# found 300 ms late: some 600 copies committed, made packets again as they
# go and released to the backup 256 at a time, in order
injected "lrr-slow" 320000 "hold 400ms poll 200us $backup" 300000
tap_ok "distinct == COUNT && reordered == 0 && lost == 0 && dups <= 5 && committed > 2 * 256" \
	"300 ms to detection: none lost, order kept over $committed committed copies ($distinct of $COUNT, $reordered out of order, $dups duplicates)"
wire_sqr=$((wire_sqr + fault_drops))

# ShareBackup: the same port, released reconf after detection, when the
# outage is over (the paper's SB': 760 us outages found after 30 us)
len=$((10 * DETECT_US))
injected "sb-10x" "$len" "$HOLD reconf $((len - DETECT_US + 500))us"
tap_ok "distinct == COUNT && reordered == 0 && dups <= 5 && failures == 1" \
	"10x outage, same port after reconfiguration, sqr: $distinct of $COUNT, $reordered out of order, $dups duplicates"
wire_sqr=$((wire_sqr + fault_drops))
tap_ok "wire_sqr > 0" "the injected outages under sqr lost $wire_sqr packets on the wire, all made up for"
injected "sb-10x-nosqr" "$len" "hold 0 reconf $((len - DETECT_US + 500))us"
tap_ok "COUNT - distinct == fault_drops" \
	"10x outage, same port, no copies: the $fault_drops packets it took are lost ($((COUNT - distinct)))"
lost_plain=$((lost_plain + COUNT - distinct))
# a run may see no packet in the detection window; four together do
tap_ok "lost_plain > 0" "the injected outages without copies lost $lost_plain packets in all"

# a real failure: the receiver's end of r0 goes down for OUT seconds.
# Where the kernel drops packets meanwhile is traced (sqr_drops): a packet
# r0 sends after the receiver began closing eth0 (its "running" bit goes
# first, its carrier, and so r0's, only after eth0's own queues are torn
# down, an RCU grace period later) is dropped on delivery, lost on the
# wire: sqr's copies make up for those.  Then linkwatch swaps r0's qdisc
# for noop_qdisc and only after that marks the route through r0 down:
# packets the FIB sends to r0 in between would be dropped by noop_qdisc,
# before any qdisc.  sqr's guard (an egress hook) takes them behind the
# held packets.  So with sqr nothing is lost, and nothing is dropped at
# the detached port; without copies (hold 0: no guard either) both the
# wire's and the detached port's drops are lost.
plain_wire=0
plain_lost=0

# down_run NAME MODE SECS: the stream under sqr (MODE sqr) or without
# copies (nosqr), the receiver's end of r0 down for SECS once it flows;
# sets the kernel's drops (sqr_drops), sqr's counters and lost
down_run()
{
	local opts="$HOLD $backup"

	[ "$2" = nosqr ] && opts="hold 0 $backup"
	sw tc qdisc replace dev r0 root handle 1: sqr $opts || topo_die "sqr $opts"
	sqr_drops_start
	sqr_stream "$1" "$COUNT" "$RATE" "sqr_rx_down $3"
	sqr_drops
	eval "$(sqr_counters)"
	lost=$((COUNT - distinct))
}

for out in 0.05 0.3; do
	for mode in sqr nosqr; do
		down_run "down-$out-$mode" $mode $out
		# what reached sqr: sent on r0 (bstats) or diverted to the
		# backup (copies come on top; of those, guarded came while r0
		# was detached); the rest took the backup route once the FIB
		# saw the link down
		took=$((packets + diverted))
		echo "# down ${out}s, $mode: $distinct of $COUNT arrived ($lost lost), $dups" \
			"duplicates, $reordered out of order; sqr took $took (failures $failures" \
			"committed $committed resent $resent diverted $diverted guarded $guarded" \
			"window_lost $window_lost); kernel drops: $drop_stopped on the wire," \
			"$drop_detached at the detached port, $drop_other elsewhere"
		if [ $mode = sqr ]; then
			# (took counts the ARP and ND packets too: no bound)
			tap_ok "failures >= 1 && drop_other == 0 && lost == 0 && drop_detached == 0" \
				"eth0 down ${out}s, sqr: none lost ($lost), none dropped at the detached port ($drop_detached; $guarded taken there by the guard)"
			tap_ok "resent >= drop_stopped && window_lost == 0" \
				"eth0 down ${out}s, sqr: the $drop_stopped lost on the wire resent ($resent resent), found within hold (window_lost $window_lost)"
			# the FIB moves new packets to b0 once the route is
			# down, while sqr's timer sends the copies, and then the
			# packets it diverted (its fail queue), a softirq later:
			# each of those may arrive behind new packets, and
			# nothing else is out of order
			tap_ok "reordered <= resent + diverted" \
				"eth0 down ${out}s, sqr: out of order only resent copies and diverted packets at most ($reordered of $resent + $diverted)"
			# the onset is unknown: the whole ring is resent, about
			# hold x rate = 20 packets, some of which got through;
			# under TCG packets come in bursts, so up to twice that
			# beyond the copies that replaced a packet lost on the
			# wire (a guest whose timers run late finds the cut
			# later and loses more: 74 lost and 74 resent in one run)
			tap_ok "dups <= committed && committed - drop_stopped <= 40" \
				"eth0 down ${out}s, sqr: $dups duplicates of $committed resent copies, $((committed - drop_stopped)) beyond the $drop_stopped lost on the wire (bound: what hold covers, 40)"
		else
			tap_ok "failures >= 1 && drop_other == 0 && lost == drop_detached + drop_stopped" \
				"eth0 down ${out}s, no copies: $lost lost, $drop_stopped on the wire and $drop_detached at the detached port"
			plain_wire=$((plain_wire + drop_stopped))
			plain_lost=$((plain_lost + lost))
		fi
		sw tc qdisc del dev r0 root
		sqr_r0_wait LOWER_UP
	done
done
# a real outage loses packets only if some are on their way at its
# instant, or reach r0 before the FIB moves: likely at RATE, not certain
# (a full make check once saw none in both): up to 4 more outages
# without copies, to show that they lose what sqr saves
for ((extra = 1; plain_lost == 0 && extra <= 4; extra++)); do
	down_run "down-again-$extra" nosqr 0.05
	echo "# down 0.05s, nosqr, again ($extra): $lost lost," \
		"$drop_stopped on the wire, $drop_detached at the detached port"
	plain_wire=$((plain_wire + drop_stopped))
	plain_lost=$((plain_lost + lost))
	sw tc qdisc del dev r0 root
	sqr_r0_wait LOWER_UP
done
tap_ok "plain_lost > 0" "the real outages without copies lost $plain_lost packets, $plain_wire of them on the wire (sqr resends those)"

# Routes left through r0 (ignore_routes_with_linkdown 0, the kernel's
# default): the FIB sends to the detached port for the whole outage, and
# only sqr's guard moves those packets to the backup.  r0's neighbour is
# pinned so that no ARP probe of the dead link fails it meanwhile.
sqr_keep_routes
# the outage is 0.3 s at RATE: about 600 packets routed to r0 in it
for mode in sqr nosqr; do
	down_run "stay-$mode" $mode 0.3
	echo "# down 0.3s, routes kept, $mode: $distinct of $COUNT arrived ($lost lost)," \
		"$reordered out of order, $dups duplicates; guarded $guarded diverted $diverted" \
		"resent $resent; kernel drops: $drop_stopped on the wire, $drop_detached at the" \
		"detached port, $drop_other elsewhere"
	if [ $mode = sqr ]; then
		tap_ok "lost == 0 && drop_detached == 0 && drop_other == 0 && guarded >= 200" \
			"routes kept, eth0 down 0.3s, sqr: none lost ($lost); the guard took the $guarded the FIB sent to the detached port"
		tap_ok "reordered <= resent + diverted && dups <= committed" \
			"routes kept, sqr: $reordered out of order (bound $resent + $diverted), $dups duplicates of $committed"
	else
		tap_ok "drop_detached >= 200 && lost == drop_detached + drop_stopped" \
			"routes kept, eth0 down 0.3s, no copies: the detached port dropped $drop_detached, $lost lost in all"
	fi
	sw tc qdisc del dev r0 root
	sqr_r0_wait LOWER_UP
done
sw sysctl -qw net.ipv4.conf.all.ignore_routes_with_linkdown=1 \
	net.ipv4.conf.r0.ignore_routes_with_linkdown=1 &&
	sw ip neigh del 10.200.0.1 dev r0 || topo_die "routes back as they were"
sqr_drops_off
tap_ok "$(cat /sys/module/sch_sqr/parameters/held_pkts) == 0 && $(cat /sys/module/sch_sqr/parameters/buffers) == 0" \
	"no packet and no copy buffer held once the qdiscs are gone"
tap_done
