#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-lifecycle: shoal.ko and the qdiscs while a running system changes
# under their traffic.  One sender host, one switch, one receiver (SIRD,
# the hosts at 100 Mbit/s, 20 ms resend interval).  Each part checks its
# messages with the numbers; the test bed fails the run on any oops, WARN
# or memory-debug report in the guest's log.
#   1. sysctl churn: while 40 messages of 256 KB go, each host writes
#      random valid values to mss, bdp, unsch_thresh, sird_b, resend_ms,
#      link_mbps, fold_acks and sird_rx_fifo_permille 40 times; then the
#      old values again: every message arrives intact and is acknowledged;
#   2. qdisc churn: while 40 messages of 256 KB go, the switch's port to
#      the receiver gets trim, afq, calq, sqr and pfifo in turn, each
#      replaced under traffic and then deleted, 3 rounds: every message
#      intact and acknowledged, sqr holds no packet and no copy buffer
#      after;
#   3. the path changes mid-message: while 8 messages of 2 MB go, the
#      sender's link goes to MTU 1280 and back, then down for 300 ms and
#      up: every message intact and acknowledged;
#   4. thousands of sockets: 1000 sockets in one process each send a 1000
#      byte message: all 1000 arrive intact and are acknowledged;
#   5. a namespace deleted with messages in flight: a receiver that reads
#      nothing holds part of 10 messages of 1 MB when its namespace is
#      deleted and its process killed (which takes the link with it): the
#      sender's messages all end (acknowledged, or failed with ETIMEDOUT,
#      ECONNRESET or ECONNREFUSED: the port closed) within the test's
#      time, and once both namespaces are gone shoal.ko holds no message,
#      name or error report;
#   6. the module unloaded around traffic, ROUNDS times: while a sender
#      and a receiver run and another process opens and closes sockets,
#      rmmod is refused; once they end, rmmod succeeds while the other
#      process still opens sockets (each socket() either works or fails
#      with EPROTONOSUPPORT or ESOCKTNOSUPPORT: no other error), and the
#      module loads again.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

PORT=7300
ROUNDS=3
SQR=/sys/module/sch_sqr/parameters

topo_modules sch_trim sch_afq sch_calq sch_sqr
shoal_module
topo_init shlc
NA=$TOPO_PREFIX-na
NB=$TOPO_PREFIX-nb
cleanup()
{
	ip netns del "$NA" 2>/dev/null
	ip netns del "$NB" 2>/dev/null
	topo_teardown
	grep -q '^shoal ' /proc/modules || insmod "$TREE/net/transport/shoal.ko"
	rmmod shoal 2>/dev/null
}
trap cleanup EXIT
topo_build 1 >/dev/null
S=$(topo_sender_ns 1)
RXADDR=$(topo_rx_addr 4)

# hosts_setup: both hosts' sysctls (again after a reload of the module)
hosts_setup()
{
	local ns

	for ns in "$S" "$TOPO_RX"; do
		ip netns exec "$ns" sysctl -qw net.shoal.link_mbps=100 \
			net.shoal.resend_ms=20 || topo_die "sysctls in $ns"
	done
}
hosts_setup

# transfer TAG COUNT SIZE [RECV_NS SEND_NS ADDR]: a receiver of COUNT
# messages and a sender of them, in the background (recv_pid, send_pid);
# their JSON in $TOPO_TMP/TAG.{recv,send}
transfer()
{
	local tag=$1 count=$2 size=$3 rns=${4:-$TOPO_RX} sns=${5:-$S}
	local addr=${6:-$RXADDR}

	shoal_recv "$rns" $PORT "$count" "$TOPO_TMP/$tag.recv"
	ip netns exec "$sns" "$SHOAL_MSGS" send "$addr" $PORT "$count" "$size" 1 \
		>"$TOPO_TMP/$tag.send" &
	send_pid=$!
}

# verdict TAG: shoal_verdict of TAG's receiver and sender
verdict()
{
	shoal_verdict "$TOPO_TMP/$1.recv" "$TOPO_TMP/$1.send"
}

# all_through TAG COUNT WHAT: the check that TAG's COUNT messages arrived
# intact and were acknowledged
all_through()
{
	eval "$(verdict "$1")"
	tap_ok "good == $2 && bad == 0 && acked == $2 && failed == 0" \
		"$3: every message arrived intact ($good of $2, $bad bad) and was acknowledged ($acked, $failed failed: $errors)"
}

# 1. sysctl churn on both hosts
CHURN='
names="mss bdp unsch_thresh sird_b resend_ms link_mbps fold_acks sird_rx_fifo_permille"
old=""
for n in $names; do old="$old $(cat /proc/sys/net/shoal/$n)"; done
for i in $(seq 40); do
	echo $((576 + RANDOM % 825)) >/proc/sys/net/shoal/mss
	echo $((16384 + RANDOM * 4)) >/proc/sys/net/shoal/bdp
	echo $((RANDOM * 4)) >/proc/sys/net/shoal/unsch_thresh
	echo $((16384 + RANDOM * 4)) >/proc/sys/net/shoal/sird_b
	echo $((5 + RANDOM % 46)) >/proc/sys/net/shoal/resend_ms
	echo $(((RANDOM % 4) * (20 + RANDOM % 980))) >/proc/sys/net/shoal/link_mbps
	echo $((RANDOM % 2)) >/proc/sys/net/shoal/fold_acks
	echo $((RANDOM % 1001)) >/proc/sys/net/shoal/sird_rx_fifo_permille
	sleep 0.05
done
set -- $old
for n in $names; do echo "$1" >/proc/sys/net/shoal/$n; shift; done
'
transfer churn 40 262144
ip netns exec "$S" bash -c "$CHURN" 2>"$TOPO_TMP/churn-s.err" &
c1=$!
ip netns exec "$TOPO_RX" bash -c "$CHURN" 2>"$TOPO_TMP/churn-r.err" &
c2=$!
wait "$c1" "$c2"
churn_err=$(cat "$TOPO_TMP"/churn-*.err | head -c 300)
wait "$recv_pid" "$send_pid"
tap_ok "$([ -z "$churn_err" ] && echo 1 || echo 0)" \
	"sysctl churn: 40 rounds of writes on each host were taken${churn_err:+: $churn_err}"
all_through churn 40 "sysctl churn"

# 2. the receiver's port: each qdisc replaced under traffic, then deleted
QCHURN='
for r in 1 2 3; do
	for q in "trim limit 100" "afq limit 1000" "calq" "sqr hold 4ms poll 1ms" "pfifo limit 100"; do
		tc qdisc replace dev r0 root handle 1: $q 2>/dev/null ||
			echo "replace $q failed"
		sleep 0.2
		tc qdisc del dev r0 root 2>/dev/null || echo "delete $q failed"
		sleep 0.05
	done
done
'
transfer qchurn 40 262144
qerr=$(ip netns exec "$TOPO_SW" bash -c "$QCHURN" 2>&1)
wait "$recv_pid" "$send_pid"
tap_ok "$([ -z "$qerr" ] && echo 1 || echo 0)" \
	"qdisc churn: trim, afq, calq, sqr and pfifo each replaced and deleted under traffic, 3 rounds${qerr:+: $(echo "$qerr" | head -c 300)}"
all_through qchurn 40 "qdisc churn"
held=$(cat "$SQR/held_pkts") bufs=$(cat "$SQR/buffers")
tap_ok "held == 0 && bufs == 0" "qdisc churn: sqr holds nothing after ($held packets, $bufs copy buffers)"

# 3. the sender's link: MTU down and up, then down for 300 ms and up
transfer path 8 2000000
topo_nap 0.5
link_errs=""
for change in "mtu 1280" "mtu $TOPO_MTU" down up; do
	# shellcheck disable=SC2086	# the change is words
	ip -n "$S" link set eth0 $change || link_errs="$link_errs $change"
	topo_nap 0.3
done
[ -z "$link_errs" ] || topo_die "link changes:$link_errs"
# the routes via a link that went down are gone with it
ip -n "$S" route replace default via 10.100.1.254 2>/dev/null
wait "$recv_pid" "$send_pid"
all_through path 8 "MTU 1280 and back, then the link down 300 ms, mid-message"

# 4. a thousand sockets
shoal_recv "$TOPO_RX" $PORT 1000 "$TOPO_TMP/many.recv"
ip netns exec "$S" "$SHOAL_MSGS" many "$RXADDR" $PORT 1000 1000 \
	>"$TOPO_TMP/many.send"
wait "$recv_pid"
all_through many 1000 "1000 sockets at once"

# 5. a receiver's namespace deleted with messages in flight
ip netns add "$NA" && ip netns add "$NB" &&
	ip -n "$NA" link add v0 type veth peer name v1 netns "$NB" &&
	ip -n "$NA" addr add 10.77.0.1/24 dev v0 && ip -n "$NA" link set v0 up &&
	ip -n "$NB" addr add 10.77.0.2/24 dev v1 && ip -n "$NB" link set v1 up &&
	ip -n "$NA" link set lo up && ip -n "$NB" link set lo up ||
	topo_die "namespaces $NA $NB"
for ns in "$NA" "$NB"; do
	ip netns exec "$ns" sysctl -qw net.shoal.link_mbps=100 net.shoal.resend_ms=20 ||
		topo_die "sysctls in $ns"
done
SHOAL_READ_DELAY=60 transfer gone 10 1000000 "$NB" "$NA" 10.77.0.2
topo_nap 1
ip netns del "$NB"
kill "$recv_pid"
start=$SECONDS
wait "$send_pid"
took=$((SECONDS - start))
wait "$recv_pid"
eval "$(verdict gone)"
tap_ok "acked + failed == 10 && failed >= 1 && other_errors == 0" \
	"a receiver's namespace deleted mid-transfer: the sender's 10 messages all ended within ${took} s ($acked acknowledged, $failed failed: $errors)"
ip netns del "$NA"
shoal_objects_zero "once both namespaces are gone" out_msgs in_msgs done_names send_errors

# 6. the module unloaded around traffic
ok_busy=0 ok_unload=0 ok_load=0 bad_errs=""
for ((r = 1; r <= ROUNDS; r++)); do
	transfer "unload$r" 100 10000
	ip netns exec "$S" "$SHOAL_MSGS" hammer 2 >"$TOPO_TMP/hammer$r.a" &
	hpid=$!
	rmmod shoal 2>/dev/null || ok_busy=$((ok_busy + 1))
	wait "$recv_pid" "$send_pid" "$hpid"
	eval "$(verdict "unload$r")"
	((good == 100 && acked == 100)) || bad_errs="$bad_errs round $r: $good received, $acked acknowledged ($errors);"
	# now unload while sockets still come and go
	ip netns exec "$S" "$SHOAL_MSGS" hammer 3 >"$TOPO_TMP/hammer$r.b" &
	hpid=$!
	for ((i = 0; i < 100; i++)); do
		rmmod shoal 2>/dev/null && { ok_unload=$((ok_unload + 1)); break; }
		topo_nap 0.02
	done
	wait "$hpid"
	odd=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(",".join("%s:%d" % kv for kv in d["errors"].items()
               if kv[0] not in ("EPROTONOSUPPORT", "ESOCKTNOSUPPORT")))' "$TOPO_TMP/hammer$r.b")
	[ -n "$odd" ] && bad_errs="$bad_errs round $r: socket() failed with $odd;"
	insmod "$TREE/net/transport/shoal.ko" && ok_load=$((ok_load + 1))
	hosts_setup
done
tap_ok "ok_busy == ROUNDS" "rmmod was refused while sockets were open, in $ok_busy of $ROUNDS rounds"
tap_ok "ok_unload == ROUNDS && ok_load == ROUNDS" \
	"rmmod succeeded while another process opened sockets, and the module loaded again, in $ok_unload and $ok_load of $ROUNDS rounds"
tap_ok "$([ -z "$bad_errs" ] && echo 1 || echo 0)" \
	"every round's messages arrived and were acknowledged, and socket() failed only with EPROTONOSUPPORT or ESOCKTNOSUPPORT${bad_errs:+:$bad_errs}"
tap_done
