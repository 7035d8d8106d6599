#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pl2-order: the order in which a PL2 socket's messages to one host fill
# its bursts.  One socket sends a long message and then short ones to the
# same host at once; no switch is on the path (the receiving host answers
# each RSV), so the bursts go one exchange after another, in the order the
# sender picks their packets.
#   1. At the defaults, the message with the fewest bytes left goes first:
#      every short message arrives before the long one, which does not
#      hold them up (a FIFO would make each wait for all of it).
#   2. With net.shoal.pl2_fifo_permille 1000 every pick goes to the oldest
#      message: the long one arrives first, as a FIFO's would.
# Every message arrives intact in both.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

PORT=7100
LONG=300000		# bytes: about 54 bursts of 4 packets
SHORT=3000		# bytes: a burst each
NR_SHORT=6

shoal_module
topo_init pl2order
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
topo_build 1 >/dev/null
MSGS_PY=$TREE/tools/testing/lib/shoal_msgs.py
S=$(topo_sender_ns 1)
RXADDR=$(topo_rx_addr 4)
export SHOAL_PROTO=pl2

# run NAME FIFO_PERMILLE: the long message, then the short ones; sets
# good (messages intact at the receiver), acked (at the sender) and pos
# (how many short messages arrived before the long one, -1: it did not)
run()
{
	ip netns exec "$S" sysctl -qw net.shoal.pl2_fifo_permille="$2" ||
		topo_die "pl2_fifo_permille"
	shoal_recv "$TOPO_RX" $PORT $((NR_SHORT + 1)) "$TOPO_TMP/$1.rx"
	ip netns exec "$S" "$MSGS_PY" mix "$RXADDR" $PORT $LONG $NR_SHORT $SHORT \
		>"$TOPO_TMP/$1.tx"
	wait "$recv_pid"
	eval "$(python3 - "$TOPO_TMP/$1.rx" "$TOPO_TMP/$1.tx" <<'EOF'
import json, sys
rx = json.load(open(sys.argv[1]))
tx = json.load(open(sys.argv[2]))
order = rx.get("order", [])
print("good=%d acked=%d pos=%d" % (rx["good"], tx["tx_acked"],
                                   order.index(1) if 1 in order else -1))
EOF
)"
	echo "# $1 (pl2_fifo_permille $2): arrival order" \
		"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["order"])' \
			"$TOPO_TMP/$1.rx"); $good intact, $acked acknowledged"
	tap_ok "$good == $NR_SHORT + 1 && $acked == $NR_SHORT + 1" \
		"$1: all $((NR_SHORT + 1)) messages arrive intact and are acknowledged ($good, $acked)"
}

run srpt 100
tap_ok "$pos == $NR_SHORT" \
	"srpt: the $NR_SHORT short messages arrive before the long one sent ahead of them ($pos before it)"
run fifo 1000
tap_ok "$pos == 0" \
	"fifo: every pick to the oldest sends the long message first ($pos short ones before it)"

tap_done
