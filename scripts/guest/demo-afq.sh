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
	eval "$(python3 - "$FLOWS_JSON" "$t0" "$DUR" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t0, dur = float(sys.argv[2]), float(sys.argv[3])
lo, hi, bin_s = t0 + 2, t0 + dur - 1, d["bin_ms"] / 1000.0
host = {1: 0.0, 2: 0.0}
for f in d["flows"]:
    b = sum(v for i, v in enumerate(f["bins"])
            if lo - 1e-6 <= f["first_bin_s"] + i * bin_s <= hi - bin_s + 1e-6)
    host[1 if f["id"] < 200 else 2] += b * 8 / (hi - lo) / 1e6
x = list(host.values())
jain = sum(x) ** 2 / (len(x) * sum(v * v for v in x)) if sum(x) else 0
print("a=%.1f b=%.1f j=%.2f" % (host[1], host[2], jain))
PY
)"
	printf '%-34s %10s %10s %8s\n' "$*" "$a" "$b" "$j"
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
echo
echo "afq gives every flow (or, with flow_key src, every sending host) the same"
echo "share; a FIFO gives the link to whoever sends most."
