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

# shoal_rx_packets NS: rx_packets of namespace NS
shoal_rx_packets()
{
	ip netns exec "$1" awk '$1 == "rx_packets" { print $2 }' /proc/net/shoal/stats
}
