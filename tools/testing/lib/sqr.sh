# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the sqr scenarios, on top of topo.sh's fabric: a backup link
# from the switch to the receiver, and sqr's counters.
#
#   sqr_backup_link     b0 (switch) -- eth1 (receiver), a backup route
#   sqr_counters        sqr's counters on r0 as NAME=VALUE lines for eval
#   sqr_rx_down SECS    the receiver's end of r0 down for SECS, then up
#   sqr_r0_wait STATE   until r0 shows STATE (LOWER_UP, NO-CARRIER)
#   sqr_keep_routes     routes through r0 kept while its link is down
#   sqr_stream NAME COUNT RATE [CMD]
#                       a sequenced UDP stream to the receiver, CMD run
#                       in the background once it flows
#   sqr_rpc_server DIR  lib/rpc.py serving on the receiver's port 5001
#   sqr_rpc_call ARGS   lib/rpc.py calling it from the first sender
#   sqr_timeouts        the first sender's TCP retransmission timeouts
#   sqr_drops_start, sqr_drops, sqr_drops_off
#                       where the kernel drops IPv4 packets meanwhile

SQR_BACKUP_MAC=

sw() { ip netns exec "$TOPO_SW" "$@"; }
rx() { ip netns exec "$TOPO_RX" "$@"; }

# The backup link b0 -> the receiver's eth1, with a route to the
# receiver's prefix through it at metric 100 (the primary's connected
# route through r0 wins while r0 has carrier), and the receiver's address
# moved to lo so that it stays reachable through eth1 while eth0 is down
# (its answers go back through eth0 only).
# $SQR_BACKUP_MAC is eth1's address, the dmac for sqr.
sqr_backup_link()
{
	local mac_sw

	topo_mac mac_sw 0 253
	topo_mac SQR_BACKUP_MAC 0 2
	{
		echo "link add b0 address $mac_sw type veth peer name eth1" \
			"netns $TOPO_RX address $SQR_BACKUP_MAC"
		echo "link set b0 up"
		echo "neigh replace 10.200.0.1 lladdr $SQR_BACKUP_MAC dev b0 nud permanent"
		echo "route add 10.200.0.0/24 dev b0 metric 100"
	} >"$TOPO_TMP/backup"
	sw ip -batch "$TOPO_TMP/backup" &&
		sw sysctl -qw net.ipv4.conf.all.ignore_routes_with_linkdown=1 \
			net.ipv4.conf.r0.ignore_routes_with_linkdown=1 \
			net.ipv4.conf.b0.rp_filter=0 &&
		sw ethtool -K b0 gro off gso off tso off >/dev/null &&
		rx ip link set eth1 up &&
		rx ip addr del 10.200.0.1/24 dev eth0 &&
		rx ip addr add 10.200.0.2/24 dev eth0 &&
		rx ip addr add 10.200.0.1/32 dev lo &&
		rx ip route replace default via 10.200.0.254 dev eth0 &&
		rx sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.eth1.rp_filter=0 \
			net.ipv4.conf.eth0.rp_filter=0 ||
		topo_die "backup link setup"
	# A veth delivers into the backlog of the CPU that sent: packets sent
	# one after the other from two CPUs (the sender's, a timer's; a
	# sender that moves to the other CPU) can swap places, where a wire
	# keeps them in order.  RPS to one CPU on both links of the receiver
	# and on the switch's link from the first sender gives back one order.
	# shellcheck disable=SC2016 # expanded by the inner shell
	rx sh -c 'for d in eth0 eth1; do
		echo 1 >/sys/class/net/$d/queues/rx-0/rps_cpus || exit 1; done' &&
		sw sh -c 'echo 1 >/sys/class/net/s1/queues/rx-0/rps_cpus' ||
		topo_die "RPS on the receiver and the switch"
	topo_settle
}

# sqr's counters on r0 (bstats and xstats) as NAME=VALUE lines
sqr_counters()
{
	sw tc -s -j qdisc show dev r0 | python3 "$TREE/tools/testing/lib/sqr_counters.py"
}

# The receiver's end of r0 (its eth0) down for $1 seconds, then up again
# with its default route, which going down took away
sqr_rx_down()
{
	rx ip link set eth0 down
	topo_nap "$1"
	rx ip link set eth0 up
	rx ip route replace default via 10.200.0.254 dev eth0
}

# sqr_r0_wait STATE: up to 5 s for the switch's r0 to show STATE
# (LOWER_UP, NO-CARRIER): linkwatch follows its peer a little later
sqr_r0_wait()
{
	for _ in $(seq 1 50); do
		sw ip link show r0 | grep -q "$1" && return
		topo_nap 0.1
	done
}

# Routes through r0 kept while its link is down (the kernel's default,
# ignore_routes_with_linkdown 0), and r0's neighbour pinned: a carrier
# loss flushes the others, and a dead link cannot resolve them again
sqr_keep_routes()
{
	sw sysctl -qw net.ipv4.conf.all.ignore_routes_with_linkdown=0 \
		net.ipv4.conf.r0.ignore_routes_with_linkdown=0 &&
		sw ip neigh replace 10.200.0.1 \
			lladdr "$(rx cat /sys/class/net/eth0/address)" dev r0 nud permanent ||
		topo_die "routes kept through a link that is down"
}

# sqr_stream NAME COUNT RATE [CMD]: the sink on any device of the
# receiver, one sender of COUNT packets at RATE a second; CMD runs in the
# background once the stream flows.  Sets distinct, dups and reordered
# from the sink.
# shellcheck disable=SC2034	# the results are the caller's
sqr_stream()
{
	local d=$TOPO_TMP/$1 count=$2 pid=

	mkdir -p "$d"
	topo_sink "$d/sink.json" -4 --dev any --expect "$count" --idle 1500 --timeout 60
	if [ -n "${4:-}" ]; then
		# the senders need a moment to start under TCG
		(topo_nap 0.8; eval "$4") &
		pid=$!
	fi
	topo_blast 1 4 "$d" --count "$count" --rate "$3" --size 200 >/dev/null 2>&1 ||
		topo_log "$1: the sender failed"
	[ -z "$pid" ] || wait "$pid"
	topo_sink_wait || topo_log "$1: shoal-sink failed"
	distinct=$(jget "$d/sink.json" distinct)
	dups=$(jget "$d/sink.json" duplicates)
	reordered=$(jget "$d/sink.json" reordered)
}

SQR_RPC=$(dirname "${BASH_SOURCE[0]}")/rpc.py

# sqr_rpc_server DIR: the rpc server on the receiver's port 5001, up and
# listening (its ready file in DIR) when this returns
sqr_rpc_server()
{
	rx python3 "$SQR_RPC" serve --port 5001 --ready "$1/rpc.ready" &
	TOPO_PIDS+=($!)
	for _ in $(seq 1 100); do
		[ -e "$1/rpc.ready" ] && return
		topo_nap 0.1
	done
	topo_die "the rpc server did not start"
}

# sqr_rpc_call ARGS: short TCP flows from the first sender to that server
sqr_rpc_call()
{
	ip netns exec "$(topo_sender_ns 1)" python3 "$SQR_RPC" call \
		--dst 10.200.0.1 --port 5001 "$@"
}

# The first sender's TcpExtTCPTimeouts
sqr_timeouts()
{
	ip netns exec "$(topo_sender_ns 1)" nstat -az TcpExtTCPTimeouts |
		awk '$1 == "TcpExtTCPTimeouts" { print $2 }'
}

SQR_TRACE=/sys/kernel/tracing

# Trace every IPv4 packet the kernel drops (kfree_skb, not consume_skb),
# from now on, anywhere in the guest.  The tracepoint is turned on once
# and stays on until sqr_drops_off: turning a tracepoint on or off patches
# the kernel's text on every CPU, which under TCG once livelocked a CPU
# caught in a patched call (a soft lockup); between runs only the ring
# buffer stops and starts (tracing_on).
sqr_drops_start()
{
	local ev=$SQR_TRACE/events/skb/kfree_skb

	[ -d "$ev" ] || topo_die "no kfree_skb tracepoint: tracefs missing?"
	echo 0 >"$SQR_TRACE/tracing_on" || topo_die "cannot stop tracing"
	if [ "$(cat "$ev/enable")" != 1 ]; then
		echo 'protocol == 2048' >"$ev/filter" && echo 1 >"$ev/enable" ||
			topo_die "cannot trace kfree_skb"
	fi
	: >"$SQR_TRACE/trace" && echo 1 >"$SQR_TRACE/tracing_on" ||
		topo_die "cannot trace kfree_skb"
}

# The tracepoint off again, the ring buffer running as before
sqr_drops_off()
{
	echo 0 >"$SQR_TRACE/events/skb/kfree_skb/enable"
	echo 1 >"$SQR_TRACE/tracing_on"
}

# Stop tracing; set the drops by where they happened (the drop site's
# function, as /proc/kallsyms names it):
#   drop_detached  dropped by a port's qdisc (reason QDISC_DROP): a port
#                  whose own qdisc was swapped for noop_qdisc on carrier
#                  loss (linkwatch's dev_deactivate()), before any qdisc
#                  of ours; sqr's own drops are in its counters
#   drop_stopped   delivered by a veth to a peer already stopped or down
#                  (enqueue_to_backlog: not running; __dev_forward_skb2:
#                  not up): lost "on the wire"
#   drop_other     anything else
# shellcheck disable=SC2034	# the results are the caller's
sqr_drops()
{
	echo 0 >"$SQR_TRACE/tracing_on"
	eval "$(python3 "$TREE/tools/testing/lib/sqr_drops.py" "$SQR_TRACE/trace")"
}
