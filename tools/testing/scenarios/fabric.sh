#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric: leaf-spine fabrics built from description files
# (tools/testing/lib/fabric.py, tools/testing/fabrics/).
#   1. Bad descriptions are refused with a message naming the line.
#   2. tools/testing/fabrics/four-leaves.fab (16 hosts, 4 leaves, 2
#      spines): every host reaches a host on another leaf; SIRD messages
#      from a host on leaf 1 to one on leaf 2 are sprayed over both spines
#      (Shoal's random source port per packet, ecmp spray), each carrying
#      at least a quarter of them; teardown leaves no namespace.
#   3. Two leaves, two spines, ecmp flow, 2 ms on every fabric link, trim
#      on the leaves' host ports and pfifo on one leaf's uplinks: each
#      port has the qdiscs its lines ask for, a round trip takes at least
#      the four delays, and the same messages take one spine.
#   4. The link the flow took fails under 600 messages (fail ... at 1s
#      for 1s, run by `fabric.py events`): leaf 1 sends over the other
#      spine meanwhile, the link is up again at the end, and every message
#      arrives intact.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

FAB=$TREE/tools/testing/lib/fabric.py
FABRICS=$TREE/tools/testing/fabrics
MSGS_PY=$TREE/tools/testing/lib/shoal_msgs.py
PORT=7200

shoal_module
topo_modules sch_trim
modprobe sch_netem || topo_die "modprobe sch_netem"
topo_init fabric
trap 'python3 "$FAB" teardown "$TOPO_PREFIX"; topo_teardown; rmmod shoal 2>/dev/null' EXIT

# 1. refusals: "FILE:LINE: why", exit status 2
# bad LINE TEXT...: a description whose line LINE is wrong
bad()
{
	local line=$1 out rc

	shift
	printf '%s\n' "$@" >"$TOPO_TMP/bad.fab"
	out=$(python3 "$FAB" check "$TOPO_TMP/bad.fab" 2>&1)
	rc=$?
	tap_ok "$rc == 2 && $(grep -c "^$TOPO_TMP/bad.fab:$line: " <<<"$out") == 1" \
		"refused, naming line $line: ${out#"$TOPO_TMP"/}"
}
bad 3 "leaves 2" "spines 1" "hosts_per_leaf 40"
bad 4 "leaves 2" "spines 1" "hosts_per_leaf 4" "host_link 10mbps"
bad 2 "leaves 2" "hosts_per_leaf 4"
bad 5 "leaves 2" "spines 2" "hosts_per_leaf 4" "" "fail leaf1 spine3 at 1s"
bad 4 "leaves 1" "hosts_per_leaf 4" "# no spines" "qdisc leaf-up trim limit 12"
bad 2 "leaves 2" "leaves 3"
bad 4 "leaves 2" "spines 1" "hosts_per_leaf 2" "qdisc spine-down@leaf1 pfifo"
bad 1 "hosts 4"

# send_start NAME FROM TO COUNT: COUNT SIRD messages of 30 KB from host
# FROM to host TO, in the background; send_wait NAME then sets good
# (intact at TO) and acked (at FROM)
send_start()
{
	local name=$1 from=$2 to=$3 count=$4

	shoal_recv "$(eval echo "\$fab_h$to")" $PORT "$count" "$TOPO_TMP/$name.rx"
	ip netns exec "$(eval echo "\$fab_h$from")" "$MSGS_PY" send \
		"$(eval echo "\$fab_h${to}_ip")" $PORT "$count" 30000 >"$TOPO_TMP/$name.tx" &
	spid=$!
}

send_wait()
{
	wait "$spid"
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
out=$(python3 "$FAB" build "$FABRICS/four-leaves.fab" "$TOPO_PREFIX") ||
	topo_die "building four-leaves.fab"
eval "$out"
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
EOF
out=$(python3 "$FAB" build "$TOPO_TMP/flow.fab" "$TOPO_PREFIX") ||
	topo_die "building flow.fab"
eval "$out"

# stack NS DEV: its qdiscs' kinds by handle ("netem tbf pfifo")
stack()
{
	tc -n "$1" -j qdisc show dev "$2" | python3 -c '
import json, sys
q = sorted(json.load(sys.stdin), key=lambda q: int(q["handle"].split(":")[0] or 0, 16))
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

# the link the flow took fails under it: the leaves' routes skip it while
# it is down and what was on it is sent again.  The routes follow as fast
# as `events` can write them (about a second under TCG, an exec per
# switch), so the hosts wait 4 s of silence before a message fails, not 0.5.
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
tap_ok "$erc == 0 && $(grep -c " leaf1-spine$busy down$" "$TOPO_TMP/events") == 1 &&
	$(grep -c " leaf1-spine$busy up$" "$TOPO_TMP/events") == 1 && $([ "$end" = UP ] &&
	echo 1 || echo 0) == 1" \
	"fail: the flow's link went down and came up again ($end)"
tap_ok "$moved >= 20" \
	"fail: while it was down, leaf 1 sent the flow over the other spine ($moved packets)"
tap_ok "$good == 600 && $acked == 600" \
	"fail: 600 messages across the failure arrive intact ($good) and are acknowledged ($acked)"

tap_done
