#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-drops: drop monitors see Shoal's drops and only those.  The
# skb:kfree_skb tracepoint is counted by a hist trigger, keyed by where
# the packet was freed and why (what dropwatch and `perf trace` see).
#   1. a clean exchange (one client, a 100 Mbit/s port with a 1000
#      packet pfifo: nothing is lost): SIRD and PL2 RPCs (shoal-perf, W1
#      at 20% for 2 s each) and 20 SIRD messages of 200 KB, which go
#      under credit: every RPC answered, every message intact, and no
#      packet is freed as a drop anywhere in shoal.ko (ACKs, credit,
#      grants, read data and an unsolicited PL2 burst's copies are
#      consumed, not dropped) but DATA that came twice (reason
#      TCP_OLD_DATA, the closest 6.1 has), at most rx_dup_packets;
#   2. 5 DATA to a port with no socket and 3 headers too short: freed in
#      shoal.ko as drops with reason NO_SOCKET and PKT_TOO_SMALL, exactly
#      as many as rx_drop_no_socket and rx_drop_short count.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

PORT=7000
PERF_PORT=7100
EVENT=/sys/kernel/tracing/events/skb/kfree_skb
# enum skb_drop_reason in 6.1 (include/net/dropreason.h)
R_NO_SOCKET=2
R_PKT_TOO_SMALL=3
R_OLD_DATA=23

[ -x "$SHOAL_PERF" ] || topo_die "missing $SHOAL_PERF (make tools)"
[ -e "$EVENT/trigger" ] || topo_die "no $EVENT/trigger (tracefs, CONFIG_HIST_TRIGGERS)"
shoal_module
topo_init sdrop
trap 'echo "!hist:keys=location.sym,reason" >"$EVENT/trigger" 2>/dev/null;
	topo_teardown; rmmod shoal 2>/dev/null' EXIT
topo_build 1 >/dev/null
RXADDR=$(topo_rx_addr 4)
CLI_NS=$(topo_sender_ns 1)
topo_link_qdisc 100mbit 16k 2m pfifo limit 1000 || topo_die "qdisc"

hist_on()
{
	echo "!hist:keys=location.sym,reason" >"$EVENT/trigger" 2>/dev/null
	echo "hist:keys=location.sym,reason" >"$EVENT/trigger" ||
		topo_die "cannot set a hist trigger on skb:kfree_skb"
}

# hist_count [REASON]: drops freed in shoal.ko (with REASON only)
hist_count()
{
	awk -v r="${1:-}" '/\[shoal\]/ {
		match($0, /reason: *[0-9]+/); why = substr($0, RSTART, RLENGTH)
		sub(/reason: */, "", why)
		match($0, /hitcount: *[0-9]+/); n = substr($0, RSTART, RLENGTH)
		sub(/hitcount: */, "", n)
		if (r == "" || why == r) total += n
	} END { print total + 0 }' "$EVENT/hist"
}

perf_run()
{
	local proto=$1 port=$2 rc

	shoal_perf_server "$TOPO_RX" "$proto" "$port"
	ip netns exec "$CLI_NS" "$SHOAL_PERF" client --proto "$proto" --server "$RXADDR:$port" \
		--workload W1 --load 0.2 --link-mbps 100 --duration 2 --seed 3 \
		>"$TOPO_TMP/$proto.txt" 2>&1
	rc=$?
	kill -TERM "$perf_pid" 2>/dev/null
	wait "$perf_pid"
	return $rc
}

# 1. a clean exchange
hist_on
perf_run sird $PERF_PORT
sird_rc=$?
perf_run pl2 $((PERF_PORT + 1))
pl2_rc=$?
shoal_recv "$TOPO_RX" $PORT 20 "$TOPO_TMP/rx.json"
ip netns exec "$CLI_NS" "$SHOAL_MSGS" send "$RXADDR" $PORT 20 200000 >"$TOPO_TMP/tx.json"
wait "$recv_pid"
eval "$(shoal_verdict "$TOPO_TMP/rx.json" "$TOPO_TMP/tx.json")"
clean=$(hist_count)
old_data=$(hist_count $R_OLD_DATA)
dups=$(($(shoal_stat "$TOPO_RX" rx_dup_packets) + $(shoal_stat "$CLI_NS" rx_dup_packets)))
echo "# drops freed in shoal.ko during the clean exchange:"
grep '\[shoal\]' "$EVENT/hist" | sed 's/^/#   /'

tap_ok "sird_rc == 0 && pl2_rc == 0" \
	"part 1: every SIRD and PL2 RPC answered (shoal-perf exit $sird_rc, $pl2_rc)"
tap_ok "good == 20 && bad == 0 && acked == 20" \
	"part 1: 20 messages of 200 KB intact and acknowledged ($good, $acked)"
tap_ok "clean - old_data == 0 && old_data <= dups" \
	"part 1: no packet freed as a drop in shoal.ko ($clean) but DATA that came twice ($old_data, rx_dup_packets $dups)"

# 2. drops that are drops
hist_on
before_ns=$(shoal_stat "$TOPO_RX" rx_drop_no_socket)
before_short=$(shoal_stat "$TOPO_RX" rx_drop_short)
# a socket, so that the namespace's Shoal port is open (it closes with
# the last socket); killed once the packets are in
ip netns exec "$TOPO_RX" "$SHOAL_MSGS" recv $PORT 1 120 "$TOPO_TMP/hold.ready" \
	>/dev/null 2>&1 &
hold=$!
for ((i = 0; i < 200; i++)); do
	[ -e "$TOPO_TMP/hold.ready" ] && break
	topo_nap 0.05
done
for ((i = 0; i < 5; i++)); do
	ip netns exec "$CLI_NS" "$SHOAL_CRAFT" send data "$RXADDR" 4797
done
for ((i = 0; i < 3; i++)); do
	ip netns exec "$CLI_NS" "$SHOAL_CRAFT" send short "$RXADDR" 4797
done
topo_nap 0.5
kill "$hold" 2>/dev/null
wait "$hold" 2>/dev/null
no_socket=$(($(shoal_stat "$TOPO_RX" rx_drop_no_socket) - before_ns))
short=$(($(shoal_stat "$TOPO_RX" rx_drop_short) - before_short))
h_no_socket=$(hist_count $R_NO_SOCKET)
h_short=$(hist_count $R_PKT_TOO_SMALL)
tap_ok "no_socket == 5 && h_no_socket == no_socket" \
	"part 2: DATA to no socket: $h_no_socket drops of reason NO_SOCKET, rx_drop_no_socket $no_socket"
tap_ok "short == 3 && h_short == short" \
	"part 2: short headers: $h_short drops of reason PKT_TOO_SMALL, rx_drop_short $short"
tap_done
