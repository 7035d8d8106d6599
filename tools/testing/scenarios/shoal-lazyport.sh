#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-lazyport: a namespace's UDP port opens with its first Shoal
# socket and closes with its last (issue 24, item 4).  Loading the module
# touches no namespace's ports: it loads while another program holds
# 4797 in a namespace, where socket() then fails with EADDRINUSE.  A
# write of net.shoal.udp_port with no socket open checks the port and
# records it.  Messages to a namespace without a Shoal socket (so without
# a port: it answers ICMP port unreachable) fail at once with
# ECONNREFUSED, over SIRD and PL2, IPv4 and IPv6, where they would
# otherwise wait for their timeout (a minute here); with the peer's
# default ICMP rate limit too, where one ICMP gives up all the messages
# to its host.  Then the objects are 0 and the module unloads.
# shellcheck source-path=SCRIPTDIR
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

LIB=$HERE/../lib
rmmod shoal 2>/dev/null
grep -q '^shoal ' /proc/modules && topo_die "shoal.ko is in use: cannot load it afresh"
topo_init shlz
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
A=$TOPO_PREFIX-a
B=$TOPO_PREFIX-b
ip netns add "$A" && ip netns add "$B" || topo_die "namespaces"
ip link add va netns "$A" type veth peer name vb netns "$B" || topo_die "veth"
ip -n "$A" addr add 10.78.0.1/24 dev va && ip -n "$B" addr add 10.78.0.2/24 dev vb &&
	ip -n "$A" addr add fd78::1/64 dev va nodad &&
	ip -n "$B" addr add fd78::2/64 dev vb nodad &&
	ip -n "$A" link set va up && ip -n "$B" link set vb up &&
	ip -n "$A" link set lo up && ip -n "$B" link set lo up || topo_die "addresses"

# port_users NS PORT: the UDP sockets of NS bound to PORT (kernel ones too)
port_users()
{
	ip netns exec "$1" awk -v p="$(printf ':%04X' "$2")" \
		'FNR > 1 && substr($2, length($2) - 4) == p { n++ } END { print n + 0 }' \
		/proc/net/udp /proc/net/udp6
}

# hold NS FAMILY PORT SECONDS PROTO: a datagram socket held in NS
# (udp_hold.py), its pid in held once it is bound
hold()
{
	local out=$TOPO_TMP/hold.$RANDOM

	ip netns exec "$1" python3 "$LIB/udp_hold.py" "$2" "$3" "$4" "$5" >"$out" 2>&1 &
	held=$!
	TOPO_PIDS+=("$held")
	for _ in $(seq 300); do
		grep -q bound "$out" 2>/dev/null && break
		kill -0 "$held" 2>/dev/null || break
		topo_nap 0.1
	done
	grep -q bound "$out" || topo_die "no socket $5 on port $3 in $1: $(cat "$out")"
}

unhold()
{
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# try_socket NS PROTO: "ok", or the errno name socket() failed with
try_socket()
{
	ip netns exec "$1" python3 -c '
import errno, socket, sys
try:
    socket.socket(socket.AF_INET6, socket.SOCK_DGRAM, int(sys.argv[1])).close()
    print("ok")
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))' "$2"
}

# 1. loading touches no namespace's port
hold "$A" 6 4797 120 0
plain=$held
shoal_module
tap_ok "$(grep -c '^shoal ' /proc/modules) == 1" \
	"the module loads while a plain UDP socket holds 4797 in a namespace"
tap_ok "$(port_users "$A" 4797) == 1 && $(port_users "$B" 4797) == 0" \
	"loading opened no port (4797: $(port_users "$A" 4797) socket in $A, the plain one; $(port_users "$B" 4797) in $B)"
got=$(try_socket "$A" 253)
tap_ok "$([ "$got" = EADDRINUSE ] && echo 1 || echo 0)" \
	"a Shoal socket where 4797 is taken fails with EADDRINUSE (got $got)"
unhold "$plain"
got=$(try_socket "$A" 253)
tap_ok "$([ "$got" = ok ] && echo 1 || echo 0)" "once it is free, socket() works (got $got)"
tap_ok "$(port_users "$A" 4797) == 0" "and its close closed the port again"

# 2. the first socket opens the port, the last closes it
hold "$B" 4 7000 120 253
s1=$held
open1=$(port_users "$B" 4797)
hold "$B" 6 7001 120 254
s2=$held
open2=$(port_users "$B" 4797)
unhold "$s1"
open3=$(port_users "$B" 4797)
unhold "$s2"
topo_nap 0.2
open4=$(port_users "$B" 4797)
tap_ok "open1 == 1 && open2 == 1 && open3 == 1 && open4 == 0" \
	"UDP 4797 in $B: $open1 with a SIRD socket, $open2 with a PL2 one too, $open3 once the SIRD one closed, $open4 after the last"

# 3. net.shoal.udp_port with no socket: checked and recorded, not held
ip netns exec "$B" sysctl -qw net.shoal.udp_port=5000
tap_ok "$? == 0 && $(port_users "$B" 5000) == 0 && $(ip netns exec "$B" sysctl -n net.shoal.udp_port) == 5000" \
	"udp_port 5000 without a socket: taken, no port held"
hold "$B" 6 5001 120 0
plain=$held
ip netns exec "$B" sysctl -qw net.shoal.udp_port=5001 2>/dev/null
tap_ok "$? != 0 && $(ip netns exec "$B" sysctl -n net.shoal.udp_port) == 5000" \
	"udp_port 5001, in use, without a socket: refused, 5000 kept"
unhold "$plain"
hold "$B" 4 7000 120 253
s1=$held
tap_ok "$(port_users "$B" 5000) == 1 && $(port_users "$B" 4797) == 0" \
	"the first socket opens 5000"
unhold "$s1"
ip netns exec "$B" sysctl -qw net.shoal.udp_port=4797 || topo_die "udp_port 4797"

# 4. messages to a namespace without a Shoal socket fail at once with
#    ECONNREFUSED: their timeout would take a minute (3000 probes)
ip netns exec "$A" sysctl -qw net.shoal.timeout_resends=3000 || topo_die "timeout_resends"
# refused_run PROTO ADDR COUNT SIZE MAX_SECONDS
refused_run()
{
	local before after out

	before=$(ip netns exec "$A" cat /proc/net/shoal/stats)
	out=$(ip netns exec "$A" env SHOAL_PROTO="$1" python3 "$LIB/shoal_msgs.py" send "$2" 7000 "$3" "$4" 1)
	after=$(ip netns exec "$A" cat /proc/net/shoal/stats)
	eval "$(shoal_stats_vars "$before" "$after")"
	# shellcheck disable=SC2034	# failed and refused: read by tap_ok
	read -r failed refused elapsed < <(python3 -c '
import json, sys
r = json.loads(sys.argv[1])
print(r["tx_failed"], r["errors"].get("111", 0), r["elapsed"])' "$out")
	# shellcheck disable=SC2154	# from shoal_stats_vars
	tap_ok "failed == $3 && refused == $3 && tx_refused == $3 && rx_icmp_unreach >= 1 &&
		$(awk -v e="$elapsed" -v m="$5" 'BEGIN { print (e < m) }')" \
		"$1 to $2, no Shoal socket there: $refused of $3 x $4 B refused (ECONNREFUSED) in ${elapsed}s (< $5), $rx_icmp_unreach ICMP port unreachable taken, $rx_host_gone more messages given up with them"
}
for k in "net.ipv4.icmp_ratelimit" "net.ipv6.icmp.ratelimit"; do
	ip netns exec "$B" sysctl -qw "$k=0" || topo_die "$k"
done
for proto in sird pl2; do
	for addr in 10.78.0.2 fd78::2; do
		refused_run "$proto" "$addr" 4 1000 3
	done
done
refused_run sird 10.78.0.2 2 200000 3
# with the peer's default ICMP rate limit (6 at once, then one a second
# for each destination) the next ICMP, a second later, fails the rest:
# it says the host has no Shoal socket at all (4 s when each message
# waited for an ICMP of its own)
for k in "net.ipv4.icmp_ratelimit" "net.ipv6.icmp.ratelimit"; do
	ip netns exec "$B" sysctl -qw "$k=1000" || topo_die "$k"
done
topo_nap 6		# the peer's bucket full again
refused_run sird 10.78.0.2 10 1000 3
tap_ok "rx_host_gone >= 1" \
	"one ICMP port unreachable gave up $rx_host_gone more messages to its host"

# 5. nothing left
ip netns del "$A"
ip netns del "$B"
shoal_objects_zero "the namespaces went"
rmmod shoal
tap_ok "$? == 0" "the module unloads"
tap_done
