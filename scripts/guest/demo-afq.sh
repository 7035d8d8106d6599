#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The afq part of `make demo`, inside the VM: an aggressive sender (UDP
# that never slows down, offering 1.5x the link) and a polite one (one TCP
# cubic flow) share a 20 Mbit/s switch port.  Through a FIFO the UDP
# sender takes the link; through afq both get half.  A second round pits
# a host with 8 TCP flows against a host with one: afq keyed by flow gives
# every flow the same, keyed by source host every host the same.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../../tools/testing/lib/flows.sh
source "$TREE/tools/testing/lib/flows.sh"

DUR=${DEMO_AFQ_SECONDS:-10}
DIR=${VM_OUT:-/tmp}/demo-afq
mkdir -p "$DIR"

topo_modules sch_afq
topo_init demoafq
topo_build 2 >/dev/null

# round TAG AGGRESSIVE_ARGS -- QDISC...: host 1 runs AGGRESSIVE_ARGS, host 2
# one TCP flow; prints one row: per-host goodput and Jain's index over hosts
round()
{
	local tag=$1 aggr=() t0 a b

	shift
	while [ "$1" != -- ]; do
		aggr+=("$1")
		shift
	done
	shift
	topo_link_qdisc 20mbit 20k 10m "$@" || topo_die "qdisc $*"
	flows_recv "$DIR/$tag" --idle-ms 2000 --timeout $((DUR + 30))
	t0=$(flows_now_plus 2)
	flows_send 1 --id 100 --duration "$DUR" --start-at "$t0" "${aggr[@]}"
	flows_send 2 --id 200 --cc cubic --duration "$DUR" --start-at "$t0"
	flows_wait || topo_log "a flow endpoint failed"
	eval "$(python3 "$TREE/scripts/lib/demo_afq_share.py" "$FLOWS_JSON" "$t0" "$DUR")"
	printf '%-34s %10s %10s %8s\n' "$*" "$a" "$b" "$j"
	GA[$tag]=$a GB[$tag]=$b
}
declare -A GA GB

# near X Y: X and Y (Mbit/s) within 25% of each other
near()
{
	awk -v x="$1" -v y="$2" 'BEGIN { exit !(x > 0 && y > 0 && x <= 1.25 * y && y <= 1.25 * x) }'
}

echo
echo "== afq: fair shares at a 20 Mbit/s port ($DUR s per row, goodput in Mbit/s)"
printf '%-34s %10s %10s %8s\n' "queue" "aggressive" "polite" "Jain"
printf '%-34s %10s %10s %8s\n' "" "(UDP 30M)" "(1 TCP)" "(hosts)"
for q in "pfifo limit 1000" "afq limit 1000"; do
	# shellcheck disable=SC2086	# the qdisc spec is a word list
	round udp-${q%% *} --udp 30000000 --size 1400 -- $q
done
echo
printf '%-34s %10s %10s %8s\n' "" "(8 TCP)" "(1 TCP)" ""
for q in "pfifo limit 1000" "afq limit 1000" "afq limit 1000 flow_key src"; do
	# shellcheck disable=SC2086
	round "tcp-${q// /_}" --flows 8 --cc cubic -- $q
done

# the sentences follow from the rows above
echo
f=udp-pfifo a=udp-afq
if near "${GA[$a]}" "${GB[$a]}"; then
	echo "Against UDP at 30 Mbit/s, afq gave both hosts about the same share" \
		"(${GA[$a]} and ${GB[$a]} Mbit/s);"
else
	echo "Against UDP at 30 Mbit/s, afq did not give both hosts the same share" \
		"(${GA[$a]} and ${GB[$a]} Mbit/s);"
fi
if awk -v x="${GA[$f]}" -v y="${GB[$f]}" 'BEGIN { exit !(x > 2 * y) }'; then
	echo "the FIFO gave the link to the one that sends most (${GA[$f]} against ${GB[$f]})."
else
	echo "the FIFO gave ${GA[$f]} and ${GB[$f]} Mbit/s."
fi
a=tcp-afq_limit_1000 k=tcp-afq_limit_1000_flow_key_src
per=$(awk -v x="${GA[$a]}" 'BEGIN { printf "%.1f", x / 8 }')
if near "$per" "${GB[$a]}"; then
	echo "8 TCP flows against 1: afq gave every flow about the same share ($per Mbit/s each"
	echo "of the 8, ${GB[$a]} for the lone one),"
else
	echo "8 TCP flows against 1: afq did not give every flow the same share ($per Mbit/s each"
	echo "of the 8, ${GB[$a]} for the lone one),"
fi
if near "${GA[$k]}" "${GB[$k]}"; then
	echo "and with flow_key src every sending host about the same (${GA[$k]} and ${GB[$k]})."
else
	echo "and with flow_key src the hosts did not get the same (${GA[$k]} and ${GB[$k]})."
fi
