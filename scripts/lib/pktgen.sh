# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# pktgen in the bench guest: UDP frames with 64-byte payloads sent by the
# kernel through dev_queue_xmit to a dummy device that frees them, so that
# the qdisc on the device is a large part of what a packet costs.
#
#   pktgen_setup DEV PACKETS   the device and pktgen's thread for it
#   pktgen_run DEV K           one run, source port round robin over K;
#                              prints packets per second
#   pktgen_done DEV            removes both

PKTGEN=/proc/net/pktgen

# pktgen_cmd FILE COMMAND: one command, which reports a bad one in the file
pktgen_cmd()
{
	echo "$2" >"$PKTGEN/$1" 2>/dev/null ||
		topo_die "pktgen refused '$2' on $1: $(sed -n 's/^Result: //p' "$PKTGEN/$1" 2>/dev/null)"
}

pktgen_setup()
{
	local dev=$1

	modprobe -a dummy pktgen || topo_die "cannot load pktgen"
	# no IPv6: its router solicitations would cross the qdisc too
	ip link add "$dev" type dummy &&
		sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1" &&
		ip link set "$dev" up || topo_die "cannot create the dummy device"
	pktgen_cmd kpktgend_0 rem_device_all
	pktgen_cmd kpktgend_0 "add_device $dev"
	pktgen_cmd "$dev" "xmit_mode queue_xmit"
	# a new skb for every packet (a reused one would sit in a queue twice)
	pktgen_cmd "$dev" "clone_skb 0"
	pktgen_cmd "$dev" "pkt_size $((14 + 20 + 8 + 64))"
	pktgen_cmd "$dev" "count $2"
	pktgen_cmd "$dev" "dst 10.250.0.2"
	pktgen_cmd "$dev" "dst_mac 02:00:00:00:00:02"
	pktgen_cmd "$dev" "flag NO_TIMESTAMP"
}

pktgen_run()
{
	pktgen_cmd "$1" "udp_src_min 1"
	pktgen_cmd "$1" "udp_src_max $2"
	pktgen_cmd pgctrl start
	sed -n 's/^ *\([0-9]*\)pps .*/\1/p' "$PKTGEN/$1"
}

pktgen_done()
{
	tc qdisc del dev "$1" root 2>/dev/null
	pktgen_cmd kpktgend_0 rem_device_all
	ip link del "$1"
}
