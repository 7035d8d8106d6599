#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-dissect: tshark with tools/wireshark/shoal.lua decodes a capture
# of real Shoal traffic as shoal.ko counted it.  tcpdump records the
# receiver's link (headers only, -s 160) while
#   1. 4 senders x 4 SIRD messages of 60 KB go at once into a 100 Mbit/s
#      port under `trim limit 12`: DATA is trimmed, and RESEND, CREDIT
#      and ACK come back;
#   2. one client sends PL2 RPCs (shoal-perf, W1 at 30% of the link) for
#      2 s: requests, responses, RSVs answered by the receiving host with
#      GRTs, and responses' ACKs folded into the next request.
# Then, from the receiver's /proc/net/shoal/stats before and after, for
# every packet type: the packets the dissector decodes to the receiver
# are its rx_<type>, and from it its tx_<type>; the DATA it marks trimmed
# are rx_trimmed (more than 0); the DATA carrying the folded ACK option
# are rx_acks_folded (more than 0); every message of part 1 is seen by
# its name, and every request of part 2 by its REQUEST flag, with a
# response from the receiver that names it by its id; nothing is
# decoded as malformed; tcpdump dropped nothing.  And shoal-stat -n, from
# its history file, says each counter that grew meanwhile, by as much.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

N=4
MSGS=4
SIZE=60000
PORT=7000
PERF_PORT=7100
CAPTURE=$TREE/tools/testing/lib/shoal_capture.py

command -v tshark >/dev/null || topo_die "no tshark (scripts/setup installs it)"
command -v tcpdump >/dev/null || topo_die "no tcpdump (scripts/setup installs it)"
[ -x "$SHOAL_PERF" ] || topo_die "missing $SHOAL_PERF (make tools)"
SHOAL_STAT=$TREE/tools/shoal-stat/shoal-stat
[ -x "$SHOAL_STAT" ] || topo_die "missing $SHOAL_STAT (make tools)"
topo_modules sch_trim
shoal_module
topo_init sdis
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
topo_build "$N" >/dev/null
RXADDR=$(topo_rx_addr 4)
CLI_NS=$(topo_sender_ns 1)

stats()
{
	ip netns exec "$1" cat /proc/net/shoal/stats
}

topo_link_qdisc 100mbit 3000 1000000 trim limit 12 || topo_die "qdisc"
before=$(stats "$TOPO_RX")
# shoal-stat keeps its history from here: what it says after must be
# what /proc/net/shoal/stats says grew
"$SHOAL_STAT" -n "$TOPO_RX" --history "$TOPO_TMP/stat.hist" -r >/dev/null ||
	topo_die "shoal-stat"
# -U: each packet written as it comes, so the file is whole once
# tcpdump ends; its counts (captured, dropped by kernel) on stderr
ip netns exec "$TOPO_RX" tcpdump -i eth0 -n -U -s 160 -B 32768 \
	-w "$TOPO_TMP/shoal.pcap" udp >/dev/null 2>"$TOPO_TMP/tcpdump.err" &
tcpdump_pid=$!
TOPO_PIDS+=("$tcpdump_pid")
for ((i = 0; i < 200; i++)); do
	grep -q "listening on" "$TOPO_TMP/tcpdump.err" && break
	topo_nap 0.05
done
grep -q "listening on" "$TOPO_TMP/tcpdump.err" || topo_die "tcpdump did not start"

# 1. the SIRD incast through trim
shoal_recv "$TOPO_RX" $PORT $((N * MSGS)) "$TOPO_TMP/rx.json"
shoal_fan "$RXADDR" $PORT "$MSGS" "$SIZE" "$TOPO_TMP/tx" $N
wait "$recv_pid"
eval "$(python3 "$HERE/../lib/shoal_incast_check.py" "$TOPO_TMP" "$N")"

# 2. PL2 RPCs
shoal_perf_server "$TOPO_RX" pl2 $PERF_PORT
ip netns exec "$CLI_NS" "$SHOAL_PERF" client --proto pl2 --server "$RXADDR:$PERF_PORT" \
	--workload W1 --load 0.3 --link-mbps 100 --duration 2 --seed 7 --json \
	>"$TOPO_TMP/perf.json" 2>"$TOPO_TMP/perf.txt"
perf_rc=$?
issued=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["messages"]["issued"])' \
	"$TOPO_TMP/perf.json" 2>/dev/null)
issued=${issued:--1}
kill -TERM "$perf_pid" 2>/dev/null
wait "$perf_pid"
topo_nap 0.5
after=$(stats "$TOPO_RX")
"$SHOAL_STAT" -n "$TOPO_RX" --history "$TOPO_TMP/stat.hist" -j >"$TOPO_TMP/stat.json"
stat_rc=$?
kill -INT "$tcpdump_pid"
wait "$tcpdump_pid"
dropped=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel.*/\1/p' "$TOPO_TMP/tcpdump.err")
captured=$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured.*/\1/p' "$TOPO_TMP/tcpdump.err")

eval "$(shoal_stats_vars "$before" "$after" | sed 's/^/st_/')"
eval "$(python3 "$CAPTURE" vars "$TOPO_TMP/shoal.pcap" "$RXADDR" "$SIZE")" ||
	topo_die "tshark could not read the capture"
echo "# tcpdump: ${captured:-?} captured, ${dropped:-?} dropped by the kernel"
echo "# part 1: $rx_good of $((N * MSGS)) messages good ($rx_bad bad), $tx_acked acknowledged"
echo "# part 2: shoal-perf exit $perf_rc: $(tail -n 3 "$TOPO_TMP/perf.txt" | tr '\n' ' ')"
echo "# decoded: $cap_shoal Shoal packets, $cap_malformed malformed"

tap_ok "${dropped:--1} == 0 && ${captured:-0} > 0" \
	"tcpdump captured ${captured:-?} packets and dropped ${dropped:-?}"
tap_ok "rx_good == N * MSGS && rx_bad == 0 && tx_acked == N * MSGS" \
	"part 1: all $((N * MSGS)) messages arrived intact and were acknowledged ($rx_good, $tx_acked)"
tap_ok "perf_rc == 0" "part 2: every PL2 RPC was answered (shoal-perf exit $perf_rc)"
for t in data credit_req credit resend busy unknown ack abort rsv grt; do
	for way in rx tx; do
		eval "c=\$cap_${way}_$t s=\${st_${way}_$t:-0}"
		[ "$c" = 0 ] && [ "$s" = 0 ] && continue
		tap_ok "c == s" "$way $t: the dissector decodes $c, shoal.ko counted $s"
	done
done
tap_ok "cap_rx_data > 0 && cap_tx_credit > 0 && cap_tx_ack > 0 && cap_rx_rsv > 0 && cap_tx_grt > 0" \
	"the capture holds DATA, CREDIT, ACK, RSV and GRT ($cap_rx_data, $cap_tx_credit, $cap_tx_ack, $cap_rx_rsv, $cap_tx_grt)"
tap_ok "cap_rx_trimmed > 0 && cap_rx_trimmed == st_rx_trimmed" \
	"trimmed DATA: the dissector marks $cap_rx_trimmed, shoal.ko counted $st_rx_trimmed"
tap_ok "cap_rx_acks_folded > 0 && cap_rx_acks_folded == st_rx_acks_folded" \
	"folded ACKs: the dissector decodes $cap_rx_acks_folded, shoal.ko counted $st_rx_acks_folded"
tap_ok "cap_rx_msgs_size == N * MSGS" \
	"part 1's $((N * MSGS)) messages each named in the capture ($cap_rx_msgs_size of msg_len $SIZE)"
tap_ok "issued > 0 && cap_rx_requests >= issued && cap_rx_answered == cap_rx_requests" \
	"PL2 requests named by their REQUEST flag, each answered by a response of its id: $cap_rx_answered of $cap_rx_requests (the client issued $issued, and its RTT probes)"
tap_ok "cap_malformed == 0" "no packet decoded as malformed ($cap_malformed)"
# every counter shoal-stat says grew, by as much as /proc says; and none
# that grew left out
stat_diff=$(shoal_stats_vars "$before" "$after" | python3 -c '
import json, sys
said = json.load(open(sys.argv[1]))["counters"]
grew = {}
for line in sys.stdin:
    k, v = line.strip().split("=")
    if k not in ("by_type", "by_reason") and int(v):
        grew[k] = int(v)
print(sum(1 for k in set(said) | set(grew) if said.get(k) != grew.get(k)),
      len(grew))' "$TOPO_TMP/stat.json" 2>/dev/null)
read -r stat_bad stat_grew <<<"${stat_diff:-1 0}"
tap_ok "stat_rc == 0 && stat_bad == 0 && stat_grew > 10" \
	"shoal-stat -n: the $stat_grew counters that grew, each by what /proc/net/shoal/stats says ($stat_bad differ, exit $stat_rc)"
tap_done
