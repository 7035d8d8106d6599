# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for scenarios and benches on fabrics built by fabric.py.
# Source after topo.sh and shoal.sh.
#
#   fab_init NAME            the modules a fabric needs (shoal.ko, trim, sqr,
#                            afq, netem), topo_init NAME, the raised backlog,
#                            and a teardown of the fabric on exit
#   fab_build FILE           build the fabric FILE describes (fabric.py)
#                            and set its names (fab_hosts, fab_hN, ...)
#   fab_ns H                 host H's namespace
#   fab_ip H                 host H's address
#   fab_ready FILE...        wait until every FILE exists (a server's ready
#                            file), at most 20 s for each
#   fab_rpc_serve H...       lib/rpc.py servers on port 5001 of hosts H...,
#                            listening when this returns
#   fab_rpc_call FROM TO FLOWS SEED NAME
#                            FLOWS short TCP flows from host FROM to TO's
#                            server in the background (pid in fab_rpc_pid),
#                            their times in $TOPO_TMP/NAME.json
#   fab_cpu                  "BUSY IDLE": the guest's CPU time so far (ticks)
#   fab_busy BEFORE AFTER    percent busy between two fab_cpu readings
#   fab_sqr_vars NS DEV PFX  sqr's counters on DEV in NS as shell assignments
#                            PFX_NAME=VALUE, for eval
#   fab_qdiscs               every switch's qdiscs with their counters, a
#                            line each: "fab_leafN JSON" or "fab_spineN JSON"

FAB=$TREE/tools/testing/lib/fabric.py
FAB_RPC=$TREE/tools/testing/lib/rpc.py

fab_init()
{
	shoal_module
	topo_modules sch_trim sch_sqr sch_afq
	modprobe sch_netem || topo_die "modprobe sch_netem"
	topo_init "$1"
	topo_backlog
	trap 'python3 "$FAB" teardown "$TOPO_PREFIX"; topo_teardown; rmmod shoal 2>/dev/null' EXIT
}

fab_build()
{
	local out

	out=$(python3 "$FAB" build "$1" "$TOPO_PREFIX") || topo_die "building $1"
	eval "$out"
}

fab_ns() { eval echo "\$fab_h$1"; }
fab_ip() { eval echo "\$fab_h${1}_ip"; }
# fab_leaf_ns H: the namespace of host H's leaf
fab_leaf_ns() { eval echo "\$fab_leaf$(eval echo "\$fab_h${1}_leaf")"; }

fab_rpc_serve()
{
	local h

	for h in "$@"; do
		rm -f "$TOPO_TMP/rpc$h.ready"
		ip netns exec "$(fab_ns "$h")" python3 "$FAB_RPC" serve --port 5001 \
			--ready "$TOPO_TMP/rpc$h.ready" &
		TOPO_PIDS+=($!)
	done
	for h in "$@"; do
		fab_ready "$TOPO_TMP/rpc$h.ready"
	done
}

fab_ready()
{
	local f

	for f in "$@"; do
		for _ in $(seq 1 200); do
			[ -e "$f" ] && continue 2
			topo_nap 0.1
		done
		topo_die "not ready: $f"
	done
}

fab_rpc_call()
{
	ip netns exec "$(fab_ns "$1")" python3 "$FAB_RPC" call --dst "$(fab_ip "$2")" \
		--port 5001 --flows "$3" --seed "$4" --json "$TOPO_TMP/$5.json" \
		2>"$TOPO_TMP/$5.log" &
	# shellcheck disable=SC2034	# the caller waits for it
	fab_rpc_pid=$!
}

fab_cpu()
{
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat
}

fab_busy()
{
	local b0 i0 b1 i1

	read -r b0 i0 <<<"$1"
	read -r b1 i1 <<<"$2"
	echo $(((b1 - b0) * 100 / (b1 - b0 + i1 - i0 + (b1 == b0 && i1 == i0))))
}

fab_sqr_vars()
{
	tc -n "$1" -s -j qdisc show dev "$2" |
		python3 "$TREE/tools/testing/lib/sqr_counters.py" | sed "s/^/$3_/"
}

# shellcheck disable=SC2154	# fab_build sets the counts by eval
fab_qdiscs()
{
	local n

	for n in $(seq -f "fab_leaf%g" 1 "$fab_leaves") $(seq -f "fab_spine%g" 1 "$fab_spines"); do
		echo "$n $(tc -n "${!n}" -s -j qdisc show)"
	done
}
