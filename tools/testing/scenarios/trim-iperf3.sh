#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trim-iperf3: what iperf3 reports for UDP through a trimming port, against
# what the receiving kernel delivered (Documentation/sch_trim.md, "What
# common tools see").  iperf3 -u offers 3x a 10 Mbit/s port whose queue is
# `trim limit 12 mark_mask 0` (plain UDP: iperf3's header is not Shoal's);
# the port trims what does not fit instead of dropping it.
# Checks: the port dropped no datagram and trimmed most of them; the
# receiver's UDP (nstat UdpInDatagrams) took every datagram iperf3 sent,
# none lost to its buffer; and iperf3 reports loss all the same, every
# "lost" datagram one that was delivered (its UDP read loop fills a whole
# block, so a trimmed datagram swallows the one after it).  If iperf3
# stopped counting trimmed datagrams as loss, that check fails and
# sch_trim.md's note is out of date.
#
# usage: trim-iperf3.sh
# Results: ${OUT:-/tmp}/trim-iperf3.json, raw files in ${OUT:-/tmp}/trim-iperf3.d/
# shellcheck source-path=SCRIPTDIR
# Counters arrive by eval (topo_qstats):
# shellcheck disable=SC2154
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"

LINK=10mbit
OFFER=30M	# 3x the link
SIZE=1400	# iperf3's datagram payload
SECS=4
PORT=5201

OUTDIR=${OUT:-/tmp}
RESULTS=$OUTDIR/trim-iperf3.json
RAW=$OUTDIR/trim-iperf3.d
mkdir -p "$RAW" || topo_die "cannot write $RAW"
command -v iperf3 >/dev/null || topo_die "iperf3 missing (scripts/setup installs it)"

topo_modules
topo_init iperf3
topo_build 1
CASES=()

# nstat_get NS COUNTER: the counter's value in NS (0 if not shown)
nstat_get()
{
	ip netns exec "$1" nstat -a -z "$2" 2>/dev/null | awk -v k="$2" '$1 == k { print $2; exit }'
}

rx_udp()
{
	local v

	v=$(nstat_get "$TOPO_RX" "$1")
	echo "${v:-0}"
}

# two frames of bucket: the link, not a burst allowance
topo_link_qdisc "$LINK" 3000 1000000 trim limit 12 mark_mask 0 ||
	topo_die "cannot set up trim on the port"
in0=$(rx_udp UdpInDatagrams)
err0=$(rx_udp UdpInErrors)
buf0=$(rx_udp UdpRcvbufErrors)
ip netns exec "$TOPO_RX" iperf3 -s -1 -p "$PORT" >"$RAW/server.txt" 2>&1 &
srv=$!
sleep 1
ip netns exec "$(topo_sender_ns 1)" iperf3 -c "$(topo_rx_addr 4)" -p "$PORT" -u -b "$OFFER" \
	-l "$SIZE" -t "$SECS" -J >"$RAW/client.json" 2>"$RAW/client.err"
rc=$?
wait "$srv"
in1=$(rx_udp UdpInDatagrams)
err1=$(rx_udp UdpInErrors)
buf1=$(rx_udp UdpRcvbufErrors)
topo_qdisc_save "$RAW/qdisc.json"
eval "$(topo_qstats)"
topo_link_qdisc_del

tap_ok "rc == 0" "iperf3 ran (exit $rc)"
read -r sent lost lost_pct mbps <<<"$(python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["end"]
s, r = e["sum_sent"], e["sum_received"]
print(s["packets"], r["lost_packets"], "%.1f" % r["lost_percent"], "%.2f" % (r["bits_per_second"] / 1e6))
' "$RAW/client.json" 2>/dev/null || echo "0 0 0 0")"
# iperf3 sends one datagram a block and its control connection is TCP:
# every UDP datagram the receiver took is the test's or its connect message
delivered=$((in1 - in0))
trims=$((child_trim_arrival + child_trim_tail))
echo "# iperf3: $sent datagrams sent, $lost reported lost ($lost_pct%), $mbps Mbit/s received;" \
	"the receiver's UDP took $delivered (errors $((err1 - err0)), buffer full $((buf1 - buf0)));" \
	"the port trimmed $trims, dropped $child_drops ($child_inelig_drop not eligible; tbf $tbf_drops)"
tap_ok "sent > 0 && 2 * trims > sent" "the port trimmed most datagrams ($trims of $sent)"
# trim tail-drops what it may not trim: a segment of iperf3's TCP control
# connection arriving at the full data queue
tap_ok "child_hdr_drop == 0 && child_trim_err == 0 && child_drops == child_inelig_drop" \
	"the port dropped no datagram (drops $child_drops, all TCP: inelig_drop $child_inelig_drop)"
# one datagram more than the test's: iperf3's UDP connect message
tap_ok "delivered >= sent && delivered <= sent + 1 && err1 == err0 && buf1 == buf0" \
	"the receiver's UDP took every datagram sent ($delivered of $sent and iperf3's connect message, $((err1 - err0)) errors)"
tap_ok "lost > 0 && lost <= trims" \
	"iperf3 reports loss although none was lost: $lost ($lost_pct%), at most the $trims trimmed"
CASES+=("{\"case\": \"udp-3x\", \"sent\": $sent, \"delivered\": $delivered, \"trimmed\": $trims,
  \"port_drops\": $child_drops, \"iperf3_lost\": $lost, \"iperf3_lost_percent\": $lost_pct,
  \"iperf3_mbps\": $mbps}")

topo_write_results "$RESULTS" "\"scenario\": \"trim-iperf3\""
tap_done
