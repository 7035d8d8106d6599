#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric: leaf-spine fabrics built from description files
# (tools/testing/lib/fabric.py, tools/testing/fabrics/).
#   1. (Bad descriptions, refused naming the line: on the host, by
#      unit/fabric-check, tools/testing/lib/test_fabric_check.py.)
#   2. tools/testing/fabrics/four-leaves.fab (16 hosts, 4 leaves, 2
#      spines): every host reaches a host on another leaf; SIRD messages
#      from a host on leaf 1 to one on leaf 2 are sprayed over both spines
#      (Shoal's random source port per packet, ecmp spray), each carrying
#      at least a quarter of them; teardown leaves no namespace.
#   3. Two leaves, two spines, ecmp flow, 2 ms on every fabric link, trim
#      on the leaves' host ports and pfifo on one leaf's uplinks: each
#      port has the qdiscs its lines ask for, a round trip takes at least
#      the four delays, and the same messages take one spine.
#   4. The cable of the link the flow took is cut under 600 messages
#      (fail ... at 1s for 1s, run by `fabric.py events`): leaf 1 sends
#      over the other spine meanwhile, the link is up again at the end,
#      and every message arrives intact.
#   5. sqr on a link (both ends) and two tenants keyed by afq at the
#      spines' ports: the link's cable is cut for 1 s under SIRD messages
#      and TCP flows both ways, routing converging 300 ms after the cut
#      and the mend.  The leaf's sqr resends its copies over the other
#      spine, the spine's sends what was routed to the dead port round
#      the other leaf; every message arrives, every TCP flow completes,
#      sqr gives up on nothing, and each tenant's packets carry its mark
#      in the spine.  The TCP flows' retransmission timeouts are reported
#      with the guest's CPU load: 0 in most runs, up to 3 (a SYN's 1 s)
#      in some, when the guest's CPUs are saturated; scenario/fabric-
#      composed checks them at a load the guest carries.
#   6. The PL2 switch on both leaves, their ports towards the spines
#      attached as uplinks (pl2 leafN uplinks): PL2 messages from h1 to
#      h3 and back arrive intact, each direction's reservations granted
#      by the receiver's leaf and passed on by the sender's, and teardown
#      unpins the maps.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"
# shellcheck source=../lib/fabric.sh
source "$HERE/../lib/fabric.sh"

FABRICS=$TREE/tools/testing/fabrics
MSGS_PY=$TREE/tools/testing/lib/shoal_msgs.py
PORT=7200

fab_init fabric

# send_start NAME FROM TO COUNT: COUNT SIRD messages of 30 KB from host
# FROM to host TO, in the background; send_wait NAME then sets good
# (intact at TO) and acked (at FROM).  The receiver holds its socket
# until the sender is done: across a cut an ACK is lost, and a socket
# closed could not answer the sender asking again.
send_start()
{
	local name=$1 from=$2 to=$3 count=$4

	rm -f "$TOPO_TMP/$name.held"
	SHOAL_HOLD=$TOPO_TMP/$name.held shoal_recv "$(eval echo "\$fab_h$to")" $PORT "$count" "$TOPO_TMP/$name.rx"
	ip netns exec "$(eval echo "\$fab_h$from")" "$MSGS_PY" send \
		"$(eval echo "\$fab_h${to}_ip")" $PORT "$count" 30000 >"$TOPO_TMP/$name.tx" &
	spid=$!
}

send_wait()
{
	wait "$spid"
	touch "$TOPO_TMP/$1.held"
	wait "$recv_pid"
	good=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["good"])' \
		"$TOPO_TMP/$1.rx")
	acked=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["tx_acked"])' \
		"$TOPO_TMP/$1.tx")
}

send()
{
	send_start "$@"
	send_wait "$1"
}

# spread NAME FROM TO COUNT: send, and set s1 and s2, the packets leaf 1
# sent meanwhile to spine 1 and spine 2
spread()
{
	read -r a1 a2 <<<"$(uplinks 1)"
	send "$@"
	read -r b1 b2 <<<"$(uplinks 1)"
	s1=$((b1 - a1)) s2=$((b2 - a2))
}

# uplinks LEAF: "SP1 SP2" packets sent so far on the leaf's uplinks
uplinks()
{
	ip -n "$(eval echo "\$fab_leaf$1")" -s -j link show | python3 -c '
import json, sys
tx = {l["ifname"]: l["stats64"]["tx"]["packets"] for l in json.load(sys.stdin)}
print(tx.get("sp1", 0), tx.get("sp2", 0))'
}

# 2. the 16-host fabric, sprayed
t0=$(date +%s.%N)
fab_build "$FABRICS/four-leaves.fab"
built=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "# four-leaves.fab: $fab_hosts hosts, $fab_leaves leaves, $fab_spines spines," \
	"oversubscription $fab_oversub:1, built in $built s"
tap_ok "$fab_hosts == 16 && $fab_leaves == 4 && $fab_spines == 2 && $(ip netns list |
	grep -c "^$TOPO_PREFIX-")== 22" \
	"four-leaves.fab: 16 hosts, 4 leaves, 2 spines in 22 namespaces"
pids=()
for ((h = 1; h <= fab_hosts; h++)); do
	to=$(((h + 3) % fab_hosts + 1))	# a host on the next leaf
	ip netns exec "$(eval echo "\$fab_h$h")" ping -c 1 -W 5 \
		"$(eval echo "\$fab_h${to}_ip")" >/dev/null &
	pids+=($!)
done
reached=0
for p in "${pids[@]}"; do
	wait "$p" && reached=$((reached + 1))
done
tap_ok "$reached == $fab_hosts" \
	"every host reaches a host on the next leaf ($reached of $fab_hosts)"
spread spray 1 5 20
echo "# spray: leaf 1 sent $s1 packets to spine 1, $s2 to spine 2; $good intact, $acked acknowledged"
tap_ok "$good == 20 && $acked == 20" "spray: 20 messages across the fabric intact and acknowledged"
tap_ok "$s1 * 4 >= $s1 + $s2 && $s2 * 4 >= $s1 + $s2 && $s1 + $s2 >= 400" \
	"spray: each spine carries at least a quarter of leaf 1's packets ($s1, $s2)"
python3 "$FAB" teardown "$TOPO_PREFIX"
tap_ok "$(ip netns list | grep -c "^$TOPO_PREFIX-") == 0" "teardown leaves no namespace"

# 3. and 4. two leaves, two spines, one host each; by flow, and a failure
cat >"$TOPO_TMP/flow.fab" <<'EOF'
leaves 2
spines 2
hosts_per_leaf 1
host_link 50mbit
fabric_link 50mbit delay 2ms
ecmp flow
qdisc leaf-down trim limit 12
qdisc leaf-up@leaf1 pfifo limit 100
# cables for both of leaf 1's links: step 4 cuts the one the flow takes
fail leaf1 spine1 at 1s for 1s
fail leaf1 spine2 at 1s for 1s
EOF
fab_build "$TOPO_TMP/flow.fab"

# stack NS DEV: its egress qdiscs' kinds by handle ("netem tbf pfifo")
stack()
{
	tc -n "$1" -j qdisc show dev "$2" | python3 -c '
import json, sys
q = sorted((q for q in json.load(sys.stdin) if q["kind"] not in ("clsact", "ingress")),
           key=lambda q: int(q["handle"].split(":")[0] or 0, 16))
print(" ".join(x["kind"] for x in q))'
}
down=$(stack "$fab_leaf1" h1)
up1=$(stack "$fab_leaf1" sp1)
up2=$(stack "$fab_leaf2" sp1)
spine=$(stack "$fab_spine1" lf1)
echo "# ports: leaf1 h1 [$down], leaf1 sp1 [$up1], leaf2 sp1 [$up2], spine1 lf1 [$spine]"
tap_ok "$([ "$down" = "tbf trim" ] && [ "$up1" = "netem tbf pfifo" ] &&
	[ "$up2" = "netem tbf" ] && [ "$spine" = "netem tbf" ] && echo 1 || echo 0) == 1" \
	"ports: a rate is a tbf, a delay a netem above it, a qdisc its child, where its line says"
rtt=$(ip netns exec "$fab_h1" ping -c 3 -i 0.2 -W 5 "$fab_h2_ip" |
	awk -F/ '/^rtt/ { sub(/.*= /, "", $4); print int($4 * 1000) }')	# the min
tap_ok "${rtt:-0} >= 8000" \
	"ports: four delayed fabric hops make the round trip at least 8 ms (${rtt:-none} us)"
spread flow 1 2 20
echo "# flow: leaf 1 sent $s1 packets to spine 1, $s2 to spine 2"
tap_ok "$good == 20 && $acked == 20" "flow: 20 messages intact and acknowledged"
tap_ok "$s1 + $s2 >= 400 && ($s1 * 100 >= ($s1 + $s2) * 99 || $s2 * 100 >= ($s1 + $s2) * 99)" \
	"flow: one spine carries at least 99% of the packets ($s1, $s2)"

# the cable of the link the flow took is cut under it: leaf 1 skips the
# dead uplink at once, what was on it is sent again, and the spine drops
# what it gets for leaf 1 until the other leaf's routes follow (as fast as
# `events` can write them, about a second under TCG), so the hosts wait
# 4 s of silence before a message fails, not 0.5.
busy=1 idle=2
[ "$s2" -gt "$s1" ] && busy=2 idle=1
for h in 1 2; do
	ip netns exec "$(eval echo "\$fab_h$h")" sysctl -qw net.shoal.timeout_resends=400 ||
		topo_die "timeout_resends"
done
grep -v '^fail' "$TOPO_TMP/flow.fab" >"$TOPO_TMP/fail.fab"
echo "fail leaf1 spine$busy at 1s for 1s" >>"$TOPO_TMP/fail.fab"
read -r a1 a2 <<<"$(uplinks 1)"
python3 "$FAB" events "$TOPO_TMP/fail.fab" "$TOPO_PREFIX" >"$TOPO_TMP/events" &
epid=$!
send_start fail 1 2 600
wait "$epid"
erc=$?
send_wait fail
read -r b1 b2 <<<"$(uplinks 1)"
moved=$((idle == 1 ? b1 - a1 : b2 - a2))
end=$(ip -n "$fab_leaf1" -j link show dev "sp$busy" | python3 -c '
import json, sys; print(json.load(sys.stdin)[0]["operstate"])')
echo "# fail: events $(tr '\n' ';' <"$TOPO_TMP/events") sp$busy $end after;" \
	"$moved packets on the other spine; $good intact, $acked acknowledged"
tap_ok "$erc == 0 && $(grep -c " leaf1-spine$busy cable down$" "$TOPO_TMP/events") == 1 &&
	$(grep -c " leaf1-spine$busy cable up$" "$TOPO_TMP/events") == 1 && $([ "$end" = UP ] &&
	echo 1 || echo 0) == 1" \
	"fail: the flow's link went down and came up again ($end)"
tap_ok "$moved >= 20" \
	"fail: while it was down, leaf 1 sent the flow over the other spine ($moved packets)"
tap_ok "$good == 600 && $acked == 600" \
	"fail: 600 messages across the failure arrive intact ($good) and are acknowledged ($acked)"
python3 "$FAB" teardown "$TOPO_PREFIX"

# 5. sqr on leaf1-spine1 and two tenants, h1 and h3 against h2 and h4
cat >"$TOPO_TMP/sqr.fab" <<'EOF'
leaves 2
spines 2
hosts_per_leaf 2
host_link 20mbit
fabric_link 20mbit delay 1ms
ecmp spray
qdisc spine-down afq limit 1000 flow_key mark
tenant 1 h1 h3
tenant 2 h2 h4
sqr leaf1 spine1 hold 20ms poll 200us max_hold 2s
fail leaf1 spine1 at 1s for 1s
converge 300ms
EOF
fab_build "$TOPO_TMP/sqr.fab"
up1=$(stack "$fab_leaf1" sp1)
up2=$(stack "$fab_leaf2" sp1)
spine=$(stack "$fab_spine1" lf1)
echo "# ports: leaf1 sp1 [$up1], leaf2 sp1 [$up2], spine1 lf1 [$spine]"
tap_ok "$([ "$up1" = "netem tbf sqr" ] && [ "$up2" = "netem tbf" ] &&
	[ "$spine" = "netem tbf afq sqr" ] && echo 1 || echo 0) == 1" \
	"sqr: the root of both ends of leaf1-spine1, the port's qdiscs below it"
for h in 1 2 3 4; do
	ip netns exec "$(eval echo "\$fab_h$h")" sysctl -qw net.shoal.timeout_resends=400 ||
		topo_die "timeout_resends"
done
fab_rpc_serve 2 4
for h in 2 4; do
	ip netns exec "$(eval echo "\$fab_h$h")" nstat -n
done
# TCP both ways across the cut: h2 (leaf 1) calls h4, h4 calls h2
fab_rpc_call 2 4 80 5 up
up_pid=$fab_rpc_pid
fab_rpc_call 4 2 80 6 down
down_pid=$fab_rpc_pid
cpu0=$(fab_cpu)
send_start sqr 1 3 600
# the cut 2 s from now, once the senders' processes run: their start
# takes the guest's CPUs for most of a second
topo_nap 1
python3 "$FAB" events "$TOPO_TMP/sqr.fab" "$TOPO_PREFIX" >"$TOPO_TMP/events" &
epid=$!
wait "$epid"
erc=$?
send_wait sqr
wait "$up_pid" "$down_pid"
busy=$(fab_busy "$cpu0" "$(fab_cpu)")
read -r up_ok _ up_max < <(python3 "$TREE/tools/testing/lib/fct_p99.py" "$TOPO_TMP/up.json")
read -r down_ok _ down_max < <(python3 "$TREE/tools/testing/lib/fct_p99.py" "$TOPO_TMP/down.json")
rto=0
for h in 2 4; do
	# every timer that fired, a SYN's and a SYN-ACK's included
	n=$(ip netns exec "$(eval echo "\$fab_h$h")" nstat -a TcpExtTCPTimeouts |
		awk '$1 == "TcpExtTCPTimeouts" { n += $2 } END { print n + 0 }')
	rto=$((rto + n))
done
# sqr's counters at each end, leaf_NAME and spine_NAME
eval "$(fab_sqr_vars "$fab_leaf1" sp1 leaf)"
eval "$(fab_sqr_vars "$fab_spine1" lf1 spine)"
echo "# sqr: events $(tr '\n' ';' <"$TOPO_TMP/events")"
echo "# sqr: leaf end failures $leaf_failures committed $leaf_committed resent $leaf_resent" \
	"diverted $leaf_diverted gave_up $leaf_gave_up; spine end failures $spine_failures" \
	"committed $spine_committed resent $spine_resent diverted $spine_diverted" \
	"guarded $spine_guarded gave_up $spine_gave_up"
echo "# sqr: TCP $up_ok + $down_ok flows (slowest $up_max, $down_max us), $rto timeouts;" \
	"SIRD $good intact, $acked acknowledged; the guest's CPUs $busy% busy meanwhile"
tap_ok "$erc == 0 && $(grep -c " leaf1-spine1 cable down$" "$TOPO_TMP/events") == 1 &&
	$(grep -c " leaf1-spine1 routes up$" "$TOPO_TMP/events") == 1" \
	"sqr: the cable was cut and mended, and routing converged on both"
tap_ok "$leaf_failures == 1 && $leaf_committed >= 1 && $leaf_resent == $leaf_committed &&
	$leaf_gave_up == 0 && $leaf_commit_nomem == 0" \
	"sqr: the leaf's end found the cut and resent all $leaf_committed copies over spine 2"
tap_ok "$spine_failures == 1 && $spine_diverted >= 1 && $spine_resent == $spine_committed &&
	$spine_gave_up == 0 && $spine_failq_drops == 0" \
	"sqr: the spine's end sent $spine_resent copies and $spine_diverted packets routed to the dead port round leaf 2"
tap_ok "$good == 600 && $acked == 600" \
	"sqr: 600 messages across the cut arrive intact ($good) and are acknowledged ($acked)"
tap_ok "$up_ok == 80 && $down_ok == 80" "sqr: 160 TCP flows across the cut complete"
# the packets each host's tenant filter marked in the spines, "IP=N ..."
marks=$(for sp in 1 2; do
	tc -n "$(eval echo "\$fab_spine$sp")" -s -j filter show block 1 | python3 -c '
import json, sys
for f in json.load(sys.stdin):
    o = f.get("options", {})
    ip = o.get("keys", {}).get("src_ip")
    if ip:
        print(ip, sum(a.get("stats", {}).get("packets", 0) for a in o.get("actions", [])))'
done | awk '{ n[$1] += $2 } END { for (ip in n) printf "%s=%d ", ip, n[ip] }')
echo "# tenants: packets marked in the spines: $marks"
tap_ok "$(for h in 1 2 3 4; do ip=$(eval echo "\$fab_h${h}_ip"); grep -qE "(^| )$ip=[1-9]" <<<"$marks" &&
	echo 1; done | wc -l) == 4" \
	"tenants: every host's packets were marked with its tenant in the spines"
python3 "$FAB" teardown "$TOPO_PREFIX"

# 6. the PL2 switch on both leaves, their uplinks passing RSVs on: each
# direction's reservations are granted by the receiver's leaf (hashed per
# host pair, so that an RSV and its burst take one spine)
cat >"$TOPO_TMP/pl2.fab" <<'EOF'
leaves 2
spines 2
hosts_per_leaf 2
host_link 20mbit
fabric_link 20mbit
ecmp flow
pl2 leaf1 uplinks --kmax 4
pl2 leaf2 uplinks --kmax 4
EOF
fab_build "$TOPO_TMP/pl2.fab"
for h in 1 3; do
	ip netns exec "$(eval echo "\$fab_h$h")" sysctl -qw net.shoal.link_mbps=20 net.shoal.pl2_k=4 ||
		topo_die "PL2 sysctls"
done
pins1=/sys/fs/bpf/pl2-switch/net$(stat -c %i "/run/netns/$fab_leaf1")
pins2=/sys/fs/bpf/pl2-switch/net$(stat -c %i "/run/netns/$fab_leaf2")

# pl2_sum LEAF FIELD: FIELD of pl2-switch show -j summed over the leaf's ports
pl2_sum()
{
	ip netns exec "$(eval echo "\$fab_leaf$1")" "$TREE/tools/pl2-switch/pl2-switch" show -j |
		grep -oE "\"$2\": ?[0-9]+" | awk -F: '{ s += $2 } END { print s + 0 }'
}

export SHOAL_PROTO=pl2
send pl2 1 3 100
rsv2=$(pl2_sum 2 rsv) transit1=$(pl2_sum 1 transit) rsv1=$(pl2_sum 1 rsv)
echo "# pl2 h1 -> h3: $good of 100 intact, $acked acknowledged; leaf 2 answered $rsv2 RSVs," \
	"leaf 1 $rsv1 and passed $transit1 RSVs on to its uplinks"
tap_ok "$good == 100 && $acked == 100 && $rsv2 >= 100 && $rsv1 == 0 && $transit1 >= 100" \
	"pl2: 100 PL2 messages leaf 1 -> leaf 2, granted by leaf 2 ($rsv2), not leaf 1 ($rsv1)," \
	"passed on by leaf 1 ($transit1)"
send pl2r 3 1 100
unset SHOAL_PROTO
rsv1=$(pl2_sum 1 rsv) transit2=$(pl2_sum 2 transit)
echo "# pl2 h3 -> h1: $good of 100 intact, $acked acknowledged; leaf 1 answered $rsv1 RSVs," \
	"leaf 2 passed $transit2 on"
tap_ok "$good == 100 && $acked == 100 && $rsv1 >= 100 && $transit2 >= 100" \
	"pl2: 100 PL2 messages leaf 2 -> leaf 1, granted by leaf 1 ($rsv1), passed on by leaf 2 ($transit2)"
python3 "$FAB" teardown "$TOPO_PREFIX"
tap_ok "$([ -e "$pins1" ] || [ -e "$pins2" ] && echo 1 || echo 0) == 0" \
	"pl2: teardown unpinned both leaves' switches"

tap_done
