#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-giveup: a receiver whose memory is all held by messages it has
# only part of gives some of them up, so that the others complete.
# N sender hosts, their uplinks paced (sird_tx_rate_mbps), each send one
# message at once, small enough to go unscheduled, to one socket whose
# SO_RCVBUF holds about two of them and which reads as they complete.
# The hosts' packets interleave, so every message arrives in part and
# the room credit would need is gone.  Without shoal_in_give_up() none
# of the messages arrived: they failed when the receiver stopped waiting
# after a minute.  Each run:
#   1. every message arrives intact and once, and none failed;
#   2. within LIMIT_S seconds (it takes about half a second);
#   3. the receiver gave messages up (rx_gave_up) and their senders sent
#      them again from the first byte (tx_restarted), no more often than
#      the receiver gave up;
# and after both, shoal.ko's messages are back to 0.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

N=4
PORT=7300
LIMIT_S=15
RATE=2			# Mbit/s, each sender's uplink

shoal_module
topo_init sgive
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
topo_build "$N" >/dev/null
for ((i = 1; i <= N; i++)); do
	ip netns exec "$(topo_sender_ns "$i")" sysctl -qw \
		net.shoal.sird_tx_rate_mbps=$RATE || topo_die "the senders' sysctls"
done

# stats_all: every sender's /proc/net/shoal/stats, summed
stats_all()
{
	local i

	for ((i = 1; i <= N; i++)); do
		ip netns exec "$(topo_sender_ns "$i")" cat /proc/net/shoal/stats
	done | awk '{ v[$1] += $2 } END { for (k in v) print k, v[k] }'
}

# one_run FAMILY SIZE RCVBUF: the checks above for N messages of SIZE
# bytes into an SO_RCVBUF of RCVBUF (doubled by the kernel)
one_run()
{
	local fam=$1 size=$2 rcvbuf=$3 addr what rx_before rx_after tx_before
	local tx_after rx_vars tx_vars good bad dups acked failed errs elapsed

	addr=$(topo_rx_addr "$fam")
	what="IPv$fam, $N x $size B into $((2 * rcvbuf / 1024)) KB"
	rx_before=$(ip netns exec "$TOPO_RX" cat /proc/net/shoal/stats)
	tx_before=$(stats_all)
	SHOAL_RCVBUF=$rcvbuf shoal_recv "$TOPO_RX" $PORT "$N" "$TOPO_TMP/rx.json"
	shoal_fan "$addr" $PORT 1 "$size" "$TOPO_TMP/tx" "$N"
	wait "$recv_pid"
	rx_after=$(ip netns exec "$TOPO_RX" cat /proc/net/shoal/stats)
	tx_after=$(stats_all)
	rx_vars=$(shoal_stats_vars "$rx_before" "$rx_after" | grep -v '=0$')
	tx_vars=$(shoal_stats_vars "$tx_before" "$tx_after" | grep -v '=0$')
	# shellcheck disable=SC2086	# a line of name=value words
	echo "# $what: receiver" $rx_vars
	# shellcheck disable=SC2086
	echo "# $what: senders" $tx_vars
	eval "$(sed 's/^/rx_/' <<<"$rx_vars")"
	eval "$(sed 's/^/tx_/' <<<"$tx_vars")"
	read -r good bad dups acked failed errs elapsed < <(python3 -c '
import glob, json, sys
def load(p):
    try:
        return json.load(open(p))
    except (OSError, ValueError):
        return {}
r = load(sys.argv[1])
s = [load(p) for p in sorted(glob.glob(sys.argv[2] + "*.json"))]
print(r.get("good", -1), r.get("bad", -1), r.get("duplicates", -1),
      sum(x.get("tx_acked", 0) for x in s),
      sum(x.get("tx_failed", 0) for x in s),
      sum(sum(x.get("errors", {}).values()) for x in s),
      max([x.get("elapsed", -1) for x in s] or [-1]))' "$TOPO_TMP/rx.json" "$TOPO_TMP/tx")
	rm -f "$TOPO_TMP"/tx*.json
	tap_ok "$good == $N && $bad == 0 && $dups == 0 && $acked == $N && $failed == 0 && $errs == 0" \
		"$what: every message arrives intact, once, none failed (good $good, bad $bad, dup $dups, acked $acked, failed $failed, errors reported $errs)"
	tap_ok "$(echo "$elapsed >= 0 && $elapsed < $LIMIT_S" | bc)" \
		"$what: all acknowledged within $LIMIT_S s ($elapsed s)"
	tap_ok "${rx_rx_gave_up:-0} > 0 && ${tx_tx_restarted:-0} > 0 && ${tx_tx_restarted:-0} <= ${rx_rx_gave_up:-0}" \
		"$what: the receiver gave messages up and their senders started them again (rx_gave_up ${rx_rx_gave_up:-0}, tx_restarted ${tx_tx_restarted:-0})"
	unset rx_rx_gave_up tx_tx_restarted
	PORT=$((PORT + 1))
}

one_run 4 60000 131072
one_run 6 40000 49152
shoal_objects_zero "after both runs" in_msgs out_msgs
tap_done
