# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the shoal.ko scenarios (source after topo.sh).

SHOAL_CRAFT=$TREE/tools/testing/lib/shoal_craft.py

# shoal_module: load the tree's shoal.ko unless it is loaded
shoal_module()
{
	modprobe udp_tunnel 2>/dev/null
	modprobe ip6_udp_tunnel 2>/dev/null
	grep -q '^shoal ' /proc/modules && return 0
	insmod "$TREE/net/transport/shoal.ko" ||
		topo_die "insmod $TREE/net/transport/shoal.ko failed (make modules?)"
}

# shoal_craft ARGS...: the packet generator (list, expect CASE, send ...)
shoal_craft()
{
	"$SHOAL_CRAFT" "$@"
}

# shoal_stats_delta BEFORE AFTER: the counters of /proc/net/shoal/stats
# that moved, as "name+N" sorted by name, rx_packets and rx_bytes left out
shoal_stats_delta()
{
	"$SHOAL_CRAFT" delta "$1" "$2"
}

# shoal_stats_vars BEFORE AFTER: shell assignments of every counter's
# change, plus by_type (packets counted by type) and by_reason (dropped
# by the parser)
shoal_stats_vars()
{
	"$SHOAL_CRAFT" vars "$1" "$2"
}

# shoal_recv NS PORT COUNT OUT: tools/testing/lib/shoal_msgs.py receiving
# COUNT messages on PORT in namespace NS (60 s at most), its JSON to OUT,
# in the background; returns once its socket is bound, its pid in recv_pid
shoal_recv()
{
	local i

	rm -f "$TOPO_TMP/recv.ready"
	ip netns exec "$1" "$TREE/tools/testing/lib/shoal_msgs.py" recv "$2" "$3" 60 \
		"$TOPO_TMP/recv.ready" >"$4" &
	# shellcheck disable=SC2034	# the caller waits for it
	recv_pid=$!
	for ((i = 0; i < 600; i++)); do
		[ -e "$TOPO_TMP/recv.ready" ] && return 0
		topo_nap 0.05
	done
	topo_die "the receiver in $1 did not bind port $2"
}

# shoal_rx_packets NS: rx_packets of namespace NS
shoal_rx_packets()
{
	ip netns exec "$1" awk '$1 == "rx_packets" { print $2 }' /proc/net/shoal/stats
}
