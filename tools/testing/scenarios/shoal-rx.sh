#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-rx: what shoal.ko does with the packets that reach its UDP port.
# Two namespaces joined by a veth pair; from one, packets go to the
# other's Shoal port (IPv4 and IPv6): well-formed ones of every type, and
# one for each reason the parser has to drop a packet, then a flood of
# random bytes.  /proc/net/shoal/stats must account for every one: each
# arrival counted once, by type or by the reason it was dropped.  Packets
# the UDP layer refuses first (a bad checksum, a length past the end),
# sent from a raw socket, are counted there and never reach us.  Then
# net.shoal.udp_port moves the socket (a port in use is refused, the old
# one kept), a namespace goes away with the module loaded (its last Shoal
# socket closed after), and the module unloads.  A Shoal socket is held
# in the receiving namespace throughout: its first opens the UDP port.
# shellcheck source-path=SCRIPTDIR
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

shoal_module
topo_init shrx
# the module goes too: other tests want UDP port 4797 in new namespaces
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
A=$TOPO_PREFIX-a
B=$TOPO_PREFIX-b
ip netns add "$A" && ip netns add "$B" || topo_die "namespaces"
ip link add va netns "$A" type veth peer name vb netns "$B" || topo_die "veth"
ip -n "$A" addr add 10.77.0.1/24 dev va && ip -n "$B" addr add 10.77.0.2/24 dev vb &&
	ip -n "$A" addr add fd77::1/64 dev va nodad &&
	ip -n "$B" addr add fd77::2/64 dev vb nodad &&
	ip -n "$A" link set va up && ip -n "$B" link set vb up &&
	ip -n "$A" link set lo up && ip -n "$B" link set lo up || topo_die "addresses"

tap_ok "$(ip netns exec "$B" sysctl -n net.shoal.udp_port) == 4797" \
	"a new namespace's Shoal port is the default, 4797"

# a namespace's first Shoal socket opens its UDP port (scenario/
# shoal-lazyport tests that): one on a port no case names is held open
# in each, B's until it goes; A hears B's answers and its own broadcasts
declare -A port_holder
for ns in "$A" "$B"; do
	ip netns exec "$ns" python3 "$HERE/../lib/udp_hold.py" 4 40999 600 253 >"$TOPO_TMP/hold.$ns" &
	port_holder[$ns]=$!
	TOPO_PIDS+=("$!")
	for _ in $(seq 200); do
		grep -q bound "$TOPO_TMP/hold.$ns" 2>/dev/null && break
		topo_nap 0.1
	done
	grep -q bound "$TOPO_TMP/hold.$ns" || topo_die "no Shoal socket in $ns"
done

# 1. every case of the packet generator, one at a time: the counters that
#    move are exactly the ones the case names
ip netns exec "$B" cat /proc/net/shoal/stats >/dev/null || topo_die "no /proc/net/shoal/stats"
shoal_craft cases "$A" "$B" 10.77.0.2 4797 >"$TOPO_TMP/cases" ||
	topo_die "the packet generator"
[ "$(wc -l <"$TOPO_TMP/cases")" = "$(shoal_craft list | wc -l)" ] ||
	topo_die "the packet generator sent $(wc -l <"$TOPO_TMP/cases") of its cases"
while IFS=$'\t' read -r c want got; do
	tap_ok "$([ "$got" = "$want" ] && echo 1 || echo 0)" \
		"case $c: counted as '$want' (got '$got')"
done <"$TOPO_TMP/cases"

# 2. the same over IPv6
before=$(ip netns exec "$B" cat /proc/net/shoal/stats)
ip netns exec "$A" "$SHOAL_CRAFT" send data fd77::2 4797 || topo_die "IPv6 send"
topo_nap 0.2
got=$(shoal_stats_delta "$before" "$(ip netns exec "$B" cat /proc/net/shoal/stats)")
want=$(shoal_craft expect data)
tap_ok "$([ "$got" = "$want" ] && echo 1 || echo 0)" \
	"IPv6: a DATA packet counted as '$want' (got '$got')"

# 2b. nothing sent to a broadcast or multicast address is answered:
#     every host would, for one forged source (the sender hears its own
#     broadcast too)
for c in rsv data; do
	for to in 10.77.0.255 ff02::1%va; do
		before_a=$(ip netns exec "$A" cat /proc/net/shoal/stats)
		before=$(ip netns exec "$B" cat /proc/net/shoal/stats)
		ip netns exec "$A" "$SHOAL_CRAFT" send "$c" "$to" 4797 ||
			topo_die "cannot send $c to $to"
		topo_nap 0.2
		got=$(shoal_stats_delta "$before" "$(ip netns exec "$B" cat /proc/net/shoal/stats)")
		got_a=$(shoal_stats_delta "$before_a" "$(ip netns exec "$A" cat /proc/net/shoal/stats)")
		tap_ok "$([ "$got" = rx_drop_not_unicast+1 ] &&
			[ "$got_a" = rx_drop_not_unicast+1 ] && echo 1 || echo 0)" \
			"$c to $to: dropped unanswered by both hosts (got '$got' and '$got_a')"
	done
done

# 2c. a forged GRT (msg_id, offset and slots of no exchange) finds the
#     socket it names by its source port: a PL2 socket's counts it stale
#     and changes nothing; a SIRD socket takes no GRT
for pw in "254 pl2_grt_stale+1 rx_grt+1" "253 rx_drop_no_socket+1 rx_grt+1"; do
	ip netns exec "$B" python3 "$HERE/../lib/udp_hold.py" 4 $((0x1234)) 30 "${pw%% *}" >"$TOPO_TMP/grt" &
	holder=$!
	# python starts slowly in a guest on a busy host
	for _ in $(seq 200); do
		grep -q bound "$TOPO_TMP/grt" 2>/dev/null && break
		topo_nap 0.1
	done
	grep -q bound "$TOPO_TMP/grt" || topo_die "no socket on port 0x1234"
	before=$(ip netns exec "$B" cat /proc/net/shoal/stats)
	ip netns exec "$A" "$SHOAL_CRAFT" send grt 10.77.0.2 4797 || topo_die "forged GRT"
	topo_nap 0.2
	got=$(shoal_stats_delta "$before" "$(ip netns exec "$B" cat /proc/net/shoal/stats)")
	tap_ok "$([ "$got" = "${pw#* }" ] && echo 1 || echo 0)" \
		"a forged GRT to an IPPROTO ${pw%% *} socket: '${pw#* }' (got '$got')"
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	rm -f "$TOPO_TMP/grt"
done

# 3. a flood of random bytes and random headers: every packet UDP hands
#    over (a veth backlog may drop some before) counted once
udp_before=$(ip netns exec "$B" "$SHOAL_CRAFT" udp InDatagrams)
before=$(ip netns exec "$B" cat /proc/net/shoal/stats)
ip netns exec "$A" "$SHOAL_CRAFT" flood 3000 10.77.0.2 4797 || topo_die "flood"
topo_nap 0.5
after=$(ip netns exec "$B" cat /proc/net/shoal/stats)
udp_after=$(ip netns exec "$B" "$SHOAL_CRAFT" udp InDatagrams)
eval "$(shoal_stats_vars "$before" "$after")"
# shellcheck disable=SC2154	# from shoal_stats_vars
tap_ok "rx_packets == udp_after - udp_before && rx_packets >= 2700" \
	"flood: $rx_packets of 3000 arrived, as many as UDP delivered ($((udp_after - udp_before)))"
# shellcheck disable=SC2154
tap_ok "by_type + by_reason == rx_packets && by_reason > 0 && by_type > 0" \
	"flood: each counted once, by type ($by_type) or drop reason ($by_reason)"

# 4. what UDP refuses never reaches us, and UDP counts it
udp_before=$(ip netns exec "$B" "$SHOAL_CRAFT" udp InErrors)
before=$(ip netns exec "$B" cat /proc/net/shoal/stats)
ip netns exec "$A" "$SHOAL_CRAFT" raw 10.77.0.1 10.77.0.2 4797 || topo_die "raw send"
topo_nap 0.3
after=$(ip netns exec "$B" cat /proc/net/shoal/stats)
udp_after=$(ip netns exec "$B" "$SHOAL_CRAFT" udp InErrors)
eval "$(shoal_stats_vars "$before" "$after")"
tap_ok "rx_packets == 0 && udp_after - udp_before == 2" \
	"raw: a bad checksum and a UDP length past the end dropped by UDP ($((udp_after - udp_before))), none by us ($rx_packets)"

# 5. the port moves; a port in use is refused and the old one stays
ip netns exec "$B" sysctl -qw net.shoal.udp_port=5000 || topo_die "udp_port 5000"
before=$(ip netns exec "$B" cat /proc/net/shoal/stats)
ip netns exec "$A" "$SHOAL_CRAFT" send data 10.77.0.2 4797
ip netns exec "$A" "$SHOAL_CRAFT" send data 10.77.0.2 5000
topo_nap 0.2
eval "$(shoal_stats_vars "$before" "$(ip netns exec "$B" cat /proc/net/shoal/stats)")"
tap_ok "rx_packets == 1" "udp_port 5000: only the packet to 5000 arrives ($rx_packets)"
ip netns exec "$B" python3 "$HERE/../lib/udp_hold.py" 6 5001 5 >"$TOPO_TMP/holder" &
holder=$!
for _ in $(seq 50); do
	grep -q bound "$TOPO_TMP/holder" 2>/dev/null && break
	topo_nap 0.1
done
if ip netns exec "$B" sysctl -qw net.shoal.udp_port=5001 2>"$TOPO_TMP/err"; then
	refused=0
else
	refused=1
fi
tap_ok "$refused && $(ip netns exec "$B" sysctl -n net.shoal.udp_port) == 5000" \
	"udp_port 5001 in use: refused ($(tr -d '\n' <"$TOPO_TMP/err")), 5000 kept"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
for bad in 0 65536 -1; do
	ip netns exec "$B" sysctl -qw "net.shoal.udp_port=$bad" 2>/dev/null
	tap_ok "$? != 0 && $(ip netns exec "$B" sysctl -n net.shoal.udp_port) == 5000" \
		"udp_port $bad refused, 5000 kept"
done

# 6. the port moved back and forth while packets stream to both ports:
#    no packet is lost to the move itself (each one UDP delivers is
#    counted once), and nothing breaks
# both counts before the first packet, so that they cover the same ones
udp_before=$(ip netns exec "$B" "$SHOAL_CRAFT" udp InDatagrams)
before=$(ip netns exec "$B" cat /proc/net/shoal/stats)
ip netns exec "$A" "$SHOAL_CRAFT" flood 4000 10.77.0.2 5000 &
f1=$!
ip netns exec "$A" "$SHOAL_CRAFT" flood 4000 10.77.0.2 5002 &
f2=$!
moves=0
for _ in $(seq 20); do
	ip netns exec "$B" sh -c 'sysctl -qw net.shoal.udp_port=5002 &&
		sysctl -qw net.shoal.udp_port=5000' && moves=$((moves + 2))
done
wait "$f1" "$f2"
topo_nap 0.3
after=$(ip netns exec "$B" cat /proc/net/shoal/stats)
udp_after=$(ip netns exec "$B" "$SHOAL_CRAFT" udp InDatagrams)
eval "$(shoal_stats_vars "$before" "$after")"
tap_ok "moves == 40 && rx_packets > 0 && rx_packets == udp_after - udp_before &&
	by_type + by_reason == rx_packets" \
	"$moves moves under traffic: $rx_packets packets, UDP delivered $((udp_after - udp_before)), $by_type by type and $by_reason by drop reason"

# 7. a namespace deleted under traffic, then the module unloads
ip netns exec "$A" "$SHOAL_CRAFT" flood 100000 10.77.0.2 5000 &
flood=$!
base=$(shoal_stat "$B" rx_packets)
for _ in $(seq 50); do
	[ "$(shoal_stat "$B" rx_packets)" -gt $((base + 100)) ] && break
	topo_nap 0.1
done
tap_ok "$(shoal_stat "$B" rx_packets) > base + 100" "packets arriving when the namespace goes"
ip netns del "$B"
wait "$flood" 2>/dev/null
# its last socket keeps it until now
kill "${port_holder[$B]}" 2>/dev/null
wait "${port_holder[$B]}" 2>/dev/null
ip netns del "$A"
kill "${port_holder[$A]}" 2>/dev/null
wait "${port_holder[$A]}" 2>/dev/null
topo_nap 0.5
rmmod shoal
tap_ok "$? == 0" "the module unloads once its namespaces are gone"
tap_done
