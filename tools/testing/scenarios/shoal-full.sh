#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-full: a receiver that cannot take another message says so, and
# its senders wait instead of failing.  Two senders send 8 messages of
# 60 KB each at once to one receiving socket whose receive buffer holds
# two or three of them, and which reads nothing for its first READ_DELAY
# seconds.  The senders' namespaces give up on a message after 3 probes
# every 2 x 50 ms (net.shoal.timeout_resends 3, resend_ms 50): a receiver
# silent about a message fails it in about 0.4 s, far less than the wait.
#   1. While the socket is full it refuses new messages, and answers each
#      one's CREDIT_REQ or first DATA with BUSY NOTHELD (rx_busy_notheld);
#      the senders keep those messages and start them again under credit
#      (tx_notheld).  DATA of messages it holds but has no memory for is
#      owed, and asked for again once it reads (rx_resend_rcvbuf).
#   2. Once it reads, every message arrives intact and once; none failed
#      or timed out at the senders.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

N=2
MSGS=8			# per sender
SIZE=60000
PORT=7000
RCVBUF=131072		# doubled by the kernel: 256 KB
READ_DELAY=3		# seconds

shoal_module
topo_init sfull
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
topo_build "$N" >/dev/null
MSGS_PY=$TREE/tools/testing/lib/shoal_msgs.py
RXADDR=$(topo_rx_addr 4)
for ((i = 1; i <= N; i++)); do
	ip netns exec "$(topo_sender_ns "$i")" sysctl -qw \
		net.shoal.timeout_resends=3 net.shoal.resend_ms=50 ||
		topo_die "the senders' sysctls"
done

rx_before=$(ip netns exec "$TOPO_RX" cat /proc/net/shoal/stats)
tx_before=()
for ((i = 1; i <= N; i++)); do
	tx_before[i]=$(ip netns exec "$(topo_sender_ns "$i")" cat /proc/net/shoal/stats)
done
ip netns exec "$TOPO_RX" env SHOAL_RCVBUF=$RCVBUF SHOAL_READ_DELAY=$READ_DELAY \
	"$MSGS_PY" recv $PORT $((N * MSGS)) 60 "$TOPO_TMP/ready" >"$TOPO_TMP/rx.json" &
rx_pid=$!
for ((i = 0; i < 100; i++)); do
	[ -e "$TOPO_TMP/ready" ] && break
	topo_nap 0.05
done
pids=()
for ((i = 1; i <= N; i++)); do
	ip netns exec "$(topo_sender_ns "$i")" "$MSGS_PY" send "$RXADDR" $PORT \
		"$MSGS" "$SIZE" "$i" >"$TOPO_TMP/tx$i.json" &
	pids+=($!)
done
wait "$rx_pid" "${pids[@]}"
rx_after=$(ip netns exec "$TOPO_RX" cat /proc/net/shoal/stats)
echo "# receiver $(cat "$TOPO_TMP/rx.json")"
echo "# receiver $(shoal_stats_delta "$rx_before" "$rx_after")"
eval "$(shoal_stats_vars "$rx_before" "$rx_after" | sed 's/^/rx_/')"
# Which sender the receiver refuses depends on whose messages reach it
# first, so the senders' counters are summed.
notheld=0 timeouts=0
for ((i = 1; i <= N; i++)); do
	tx_after=$(ip netns exec "$(topo_sender_ns "$i")" cat /proc/net/shoal/stats)
	echo "# sender $i $(shoal_stats_delta "${tx_before[i]}" "$tx_after")"
	eval "$(shoal_stats_vars "${tx_before[i]}" "$tx_after" | sed 's/^/tx_/')"
	notheld=$((notheld + ${tx_tx_notheld:-0}))
	timeouts=$((timeouts + ${tx_tx_timeout:-0}))
	unset tx_tx_notheld tx_tx_timeout
done
read -r good bad dups < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["good"], r["bad"], r["duplicates"])' "$TOPO_TMP/rx.json")
acked=0 failed=0
for ((i = 1; i <= N; i++)); do
	grep -q '"errors": {}' "$TOPO_TMP/tx$i.json" ||
		echo "# sender $i $(cat "$TOPO_TMP/tx$i.json")"
	read -r a f < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["tx_acked"], r["tx_failed"] + sum(r["errors"].values()))' "$TOPO_TMP/tx$i.json")
	acked=$((acked + a)) failed=$((failed + f))
done

total=$((N * MSGS))
tap_ok "${rx_rx_busy_notheld:-0} > 0 && $notheld > 0" \
	"a full receiver refused messages and said so (rx_busy_notheld ${rx_rx_busy_notheld:-0}, senders' tx_notheld $notheld)"
tap_ok "${rx_rx_resend_rcvbuf:-0} > 0" \
	"DATA it had no memory for was owed, to be asked for again (rx_resend_rcvbuf ${rx_rx_resend_rcvbuf:-0})"
tap_ok "$good == $total && $bad == 0 && $dups == 0" \
	"every message arrives intact, once, once it reads (good $good of $total, bad $bad, dup $dups)"
tap_ok "$acked == $total && $failed == 0 && $timeouts == 0" \
	"no message failed while the receiver was alive (acked $acked, failed $failed, senders' timeouts $timeouts)"
tap_done
