#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-dupresp: a response is read once, even when a copy of it comes
# after the client has forgotten its name.  A client remembers a read
# response's name for 2 x (timeout_resends + 1) resend intervals; a copy
# that comes later (held in an overloaded queue, or sent again by a
# server that missed the ACK) used to start the response anew, and the
# client read it twice (2000 peers in waves of 500: 241 of 2000 SIRD
# responses).  A response answers a request of the client's that still
# waits for it; one for none is refused (rx_drop_no_msg) and
# acknowledged, so that its server stops.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

shoal_module
topo_init shdr
trap 'topo_teardown' EXIT
C=$TOPO_PREFIX-c
S=$TOPO_PREFIX-s
ip netns add "$C" && ip netns add "$S" || topo_die "namespaces"
ip link add vc netns "$C" type veth peer name vs netns "$S" || topo_die "veth"
ip -n "$C" addr add 10.79.0.1/24 dev vc && ip -n "$S" addr add 10.79.0.2/24 dev vs &&
	ip -n "$C" link set vc up && ip -n "$S" link set vs up &&
	ip -n "$C" link set lo up && ip -n "$S" link set lo up || topo_die "addresses"
# the client forgets a read response's name after 2 x 6 x 10 ms
ip netns exec "$C" sysctl -qw net.shoal.timeout_resends=5 net.shoal.resend_ms=10 ||
	topo_die "sysctls"

before=$(ip netns exec "$C" cat /proc/net/shoal/stats)
out=$(python3 "$HERE/../lib/shoal_dupresp.py" "$C" "$S" 10.79.0.1 10.79.0.2 1) ||
	topo_die "shoal_dupresp.py: $out"
after=$(ip netns exec "$C" cat /proc/net/shoal/stats)
eval "$(shoal_stats_vars "$before" "$after")"
read -r responses read_all < <(python3 -c '
import json, sys
r = json.loads(sys.argv[1])
print(r["responses"], r["read"])' "$out")
tap_ok "responses == 1 && read_all == 1" \
	"the response read once, its copy 1 s later not taken as a new one ($responses of $read_all messages read were the response)"
tap_ok "rx_drop_no_msg >= 1" \
	"the copy refused (rx_drop_no_msg $rx_drop_no_msg)"

ip netns del "$C"
ip netns del "$S"
shoal_objects_zero "the namespaces went"
tap_done
