# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Long-running TCP/UDP flows over the topo.sh fabric with shoal-flows:
# goodput per flow in time bins, for fairness and convergence tests.
# Source after topo.sh.
#
#   flows_recv DIR            receiver on the receiver netns (port 5500),
#                             counting bytes by kernel arrival time
#   flows_send SENDER ARGS..  one shoal-flows sender in sender netns SENDER
#   flows_wait                wait for the senders, then the receiver
#   flows_eval ARGS...        tools/testing/lib/flows.py, values into the shell

FLOWS=$TREE/tools/traffic/shoal-flows
FLOWS_PY=$TREE/tools/testing/lib/flows.py
FLOWS_SENDERS=()
FLOWS_RECV_PID=
FLOWS_JSON=

# flows_recv DIR [ARGS...]: start the receiver, return once it listens
flows_recv()
{
	local dir=$1 i

	shift
	mkdir -p "$dir"
	FLOWS_JSON=$dir/flows.json
	rm -f "$FLOWS_JSON" "$dir/recv.ready"
	ip netns exec "$TOPO_RX" "$FLOWS" recv --capture eth0 --json "$FLOWS_JSON" \
		--ready "$dir/recv.ready" "$@" 2>"$dir/recv.log" &
	FLOWS_RECV_PID=$!
	TOPO_PIDS+=("$FLOWS_RECV_PID")
	for ((i = 0; i < 1200; i++)); do
		[ -e "$dir/recv.ready" ] && return 0
		kill -0 "$FLOWS_RECV_PID" 2>/dev/null || break
		topo_nap 0.05
	done
	topo_die "shoal-flows recv did not start"
}

# flows_send I ARGS...: a sender in sender netns I, in the background
flows_send()
{
	local i=$1

	shift
	ip netns exec "$(topo_sender_ns "$i")" "$FLOWS" send --dst 10.200.0.1 "$@" &
	FLOWS_SENDERS+=($!)
	TOPO_PIDS+=($!)
}

flows_wait()
{
	local p rc=0

	for p in "${FLOWS_SENDERS[@]}"; do
		wait "$p" || rc=1
	done
	FLOWS_SENDERS=()
	wait "$FLOWS_RECV_PID" || rc=1
	return $rc
}

# flows_now_plus SECONDS: a BOOTTIME instant SECONDS from now (for --start-at)
flows_now_plus()
{
	local up _

	read -r up _ </proc/uptime
	echo "$up $1" | awk '{ printf "%.2f", $1 + $2 }'
}

# flows_eval share|converge ARGS...: evaluate FLOWS_JSON into shell variables
flows_eval()
{
	local mode=$1

	shift
	eval "$(python3 "$FLOWS_PY" "$mode" "$FLOWS_JSON" "$@")"
}
