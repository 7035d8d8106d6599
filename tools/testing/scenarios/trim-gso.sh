#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trim-gso: GSO packets are segmented before any trimming decision, and the
# accounting stays exact under an htb parent.  A sender sends UDP GSO
# buffers (UDP_SEGMENT: one skb, many datagrams) through its own eth0,
# where `trim limit 4` sits under an htb class of 10 Mbit/s.  Every
# datagram must reach the receiver whole or trimmed with a valid checksum
# (the receiving kernel checks it), the qdisc must report each GSO split,
# and htb's qlen and backlog must come back to exactly zero.
#
# usage: trim-gso.sh [-f "4 6"]
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# counters arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"

FAMILIES="4 6"
BUFFERS=20		# GSO sends
SEGS=8			# datagrams per send
SEG=1000		# bytes per datagram
PORT=5001

while getopts "f:h" opt; do
	case $opt in
	f) FAMILIES=$OPTARG ;;
	*) echo "usage: $0 [-f \"4 6\"]"
	   exit 2 ;;
	esac
done

topo_modules
modprobe sch_htb || topo_die "modprobe sch_htb failed"
topo_init gso
topo_build 1 >/dev/null
tx=$(topo_sender_ns 1)
# GSO for UDP needs checksum offload on the sending device
ip netns exec "$tx" ethtool -K eth0 tx on >/dev/null || topo_die "ethtool"

# receive DATAGRAMS on PORT for up to 20 s; print "count short long"
receiver()
{
	ip netns exec "$TOPO_RX" python3 "$HERE/../lib/gso_recv.py" "$1" "$PORT" "$2"
}

for fam in $FAMILIES; do
	tag="v$fam"
	total=$((BUFFERS * SEGS))
	ip netns exec "$tx" tc qdisc add dev eth0 root handle 1: htb default 1 &&
		ip netns exec "$tx" tc class add dev eth0 parent 1: classid 1:1 htb rate 10mbit &&
		ip netns exec "$tx" tc qdisc add dev eth0 parent 1:1 handle 10: trim limit 4 ||
		topo_die "qdisc setup"
	rm -f "/tmp/gso-ready-$fam"
	receiver "$fam" "$total" >"$TOPO_TMP/rx-$fam" &
	rx_pid=$!
	for _ in $(seq 1 100); do
		[ -e "/tmp/gso-ready-$fam" ] && break
		topo_nap 0.1
	done
	ip netns exec "$tx" python3 "$HERE/../lib/gso_send.py" "$fam" "$(topo_rx_addr "$fam")" "$PORT" \
		"$BUFFERS" "$SEGS" "$SEG"
	wait "$rx_pid"
	read -r got short full <"$TOPO_TMP/rx-$fam"
	eval "$(ip netns exec "$tx" tc -s -j qdisc show dev eth0 | python3 "$HERE/../lib/gso_qdisc_values.py")"
	ip netns exec "$tx" tc qdisc del dev eth0 root
	echo "# $tag: received $got ($short trimmed, $full whole) of $total; gso_split $trim_gso_split;" \
		"trim_arrival $trim_trim_arrival trim_tail $trim_trim_tail; htb qlen $htb_qlen backlog $htb_backlog"
	tap_ok "trim_gso_split == BUFFERS" "$tag: every GSO send split on enqueue ($trim_gso_split of $BUFFERS)"
	tap_ok "got == total" "$tag: every datagram arrived, with a valid checksum ($got of $total)"
	tap_ok "short > 0 && short == trim_trim_arrival + trim_trim_tail" \
		"$tag: segments were trimmed one by one ($short short, $((trim_trim_arrival + trim_trim_tail)) trims)"
	tap_ok "htb_qlen == 0 && htb_backlog == 0 && trim_qlen == 0 && trim_backlog == 0" \
		"$tag: htb and trim qlen/backlog back to 0 (htb $htb_qlen/$htb_backlog, trim $trim_qlen/$trim_backlog)"
	tap_ok "htb_packets == trim_packets" \
		"$tag: htb and trim agree on packets sent ($htb_packets vs $trim_packets)"
	unset trim_gso_split htb_qlen htb_backlog
done
tap_done
