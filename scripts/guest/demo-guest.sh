#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The `make demo` fabric, run inside the VM by scripts/demo: N senders, a
# switch namespace and a receiver, with a 100 Mbit/s switch port (tbf).  The
# same incast goes through three queues on that port: a shallow drop-tail
# FIFO, a deep one, and trim.  Prints a short report with the numbers.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# counters arrive by eval
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"

SENDERS=${DEMO_SENDERS:-8}
COUNT=${DEMO_COUNT:-200}	# packets per sender
SIZE=8000		# jumbo payloads: TCG senders are slow (see trim-incast.sh)
RATE=100mbit
# shellcheck disable=SC2034	# read by topo_build
TOPO_MTU=9000
BURST=$((2 * (SIZE + 32 + 8 + 40 + 14)))
DIR=${VM_OUT:-/tmp}/demo
mkdir -p "$DIR"

topo_modules
topo_init demo
topo_build "$SENDERS" >/dev/null

# incast TAG CHILD...: one incast through tbf + CHILD; one report row
incast()
{
	local tag=$1 lost

	shift
	topo_link_qdisc "$RATE" "$BURST" 1000000 "$@" || topo_die "cannot set up $*"
	topo_run "$DIR/$tag" "$SENDERS" 4 --idle 1500 --timeout 120 -- \
		--count "$COUNT" --size "$SIZE" >/dev/null 2>&1
	eval "$(topo_qstats r0)"
	topo_link_qdisc_del
	lost=$((sent - s_whole - s_trimmed))
	printf '%-18s %6d %6d %8d %6d %6.1f%% %9s %9s %9s\n' "$*" "$sent" "$s_whole" \
		"$s_trimmed" "$lost" "$(awk -v l="$lost" -v s="$sent" 'BEGIN { print 100 * l / (s ? s : 1) }')" \
		"$(ms "$d_whole_p50")" "$(ms "$d_whole_p99")" \
		"$( ((s_trimmed > 0)) && ms "$d_trim_p50" || echo -)"
	eval "${tag}_lost=$lost ${tag}_sent=$sent ${tag}_trimmed=$s_trimmed"
	eval "${tag}_p99=$d_whole_p99 ${tag}_hdr=$d_trim_p50 ${tag}_data=$d_whole_p50"
	eval "${tag}_jumps=$s_jumps ${tag}_lead=$s_jump_lead_p50_us"
	hsoj=${child_hdr_sojourn_avg_us:-0} dsoj=${child_data_sojourn_avg_us:-0}
	eval "${tag}_hsoj=${hsoj%.*} ${tag}_dsoj=${dsoj%.*}"
	unset child_hdr_sojourn_avg_us child_data_sojourn_avg_us
}

# ms MICROSECONDS: "12.3ms", or "-" when there was nothing to measure
ms()
{
	if [ "$1" -lt 0 ]; then
		echo "-"
	else
		awk -v us="$1" 'BEGIN { printf "%.1fms\n", us / 1000 }'
	fi
}

echo
echo "Shoal demo: $SENDERS senders -> 1 receiver, switch port at $RATE (tbf),"
echo "each sender blasts $COUNT packets of $SIZE bytes at once (an incast)."
echo "Delays are one-way, sender to receiver, from the packets' own timestamps."
echo
printf '%-18s %6s %6s %8s %6s %7s %9s %9s %9s\n' queue sent whole trimmed lost lost \
	"data p50" "data p99" "hdr p50"
incast fifo pfifo limit 12
incast deep pfifo limit 1000
incast trim trim limit 12

# Every sentence below follows from the numbers above: which one is
# printed depends on them.
echo
echo "What this shows:"
if ((fifo_lost > 0)); then
	echo "- A 12-packet drop-tail queue lost $fifo_lost of $fifo_sent packets: each loss costs the"
	echo "  sender a timeout before it even knows."
else
	echo "- A 12-packet drop-tail queue lost none of $fifo_sent packets in this run."
fi
echo "- A 1000-packet queue lost $deep_lost; its data waited up to $(ms "$deep_p99") (p99)" \
	"against $(ms "$trim_p99")"
echo "  through trim's 12 packets: the latency every other flow through that port pays."
if ((trim_lost == 0 && trim_trimmed > 0)); then
	echo "- trim, with the same 12-packet queue, lost nothing: $trim_trimmed packets arrived as"
	echo "  headers, so the receiver knows exactly what to ask for again."
else
	echo "- trim, with the same 12-packet queue, lost $trim_lost; $trim_trimmed packets arrived as"
	echo "  headers, so the receiver knows what to ask for again."
fi
# A header jumped the queue when it arrived before older data of its own
# sender (shoal-sink's jumps), by the time to the last of that data's
# arrival (its jump_lead): that is what the header queue is for.  Delays
# count from the send, so a header trimmed off the data queue's tail
# brings the wait it had there, and whole and trimmed packets are
# different packets: the delays alone cannot say it.
if ((trim_trimmed > 0)); then
	if ((trim_jumps > 0)); then
		echo "- $trim_jumps of the $trim_trimmed headers arrived before older data of their own"
		echo "  sender, $(ms "$trim_lead") (p50) before the last of it: they jumped the data queue."
	else
		echo "- None of the $trim_trimmed headers arrived before older data of its sender:"
		echo "  no header jumped the data queue in this run."
	fi
	if ((trim_hdr < trim_data)); then
		cmp=sooner
	else
		cmp="no sooner"
	fi
	echo "  One-way, headers arrived $cmp than data: $(ms "$trim_hdr") against $(ms "$trim_data")" \
		"(p50);"
	echo "  in the qdisc (from entering it: a header trimmed off the data queue's tail"
	echo "  counts its wait there) headers spent ${trim_hsoj} us, data ${trim_dsoj} us on average."
fi
echo
echo "Raw results: $DIR"

# the afq, sqr, Shoal transport and PL2 parts run their own fabrics
"$TREE/scripts/guest/demo-afq.sh"
"$TREE/scripts/guest/demo-sqr.sh"
"$TREE/scripts/guest/demo-shoal.sh"
"$TREE/scripts/guest/demo-pl2.sh"
