# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the `make bench` and `make demo` parts that drive
# tools/shoal-perf/shoal-perf over a topo.sh fabric (source after topo.sh).  The
# caller sets PERF_DIR (servers' logs and ready files go there) and
# PERF_HOSTS (the end hosts' namespaces: server and clients).

PERF=$TREE/tools/shoal-perf/shoal-perf
PL2SW=$TREE/tools/pl2-switch/pl2-switch
PERF_DIR=${PERF_DIR:-/tmp}
PERF_HOSTS=()
PERF_SPIDS=()

# perf_fabric NAME N: a fresh results directory ${VM_OUT:-/tmp}/NAME (DIR,
# PERF_DIR), shoal.ko and sch_trim loaded, N senders -> switch -> receiver
# built and torn down at exit; SRV the receiver's IPv4 address, PERF_HOSTS
# the receiver then the senders
perf_fabric()
{
	local i

	DIR=${VM_OUT:-/tmp}/$1
	PERF_DIR=$DIR
	rm -rf "$DIR"
	mkdir -p "$DIR"
	[ -x "$PERF" ] || topo_die "missing $PERF (make tools)"
	shoal_module
	topo_modules sch_trim
	topo_init "${1//-/}"
	trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
	topo_build "$2" >/dev/null
	# shellcheck disable=SC2034	# for the caller
	SRV=$(topo_rx_addr 4)
	PERF_HOSTS=("$TOPO_RX")
	for ((i = 1; i <= $2; i++)); do
		PERF_HOSTS+=("$(topo_sender_ns "$i")")
	done
}

# perf_on_hosts CMD...: CMD in every namespace of PERF_HOSTS at once
perf_on_hosts()
{
	local ns pids=() p rc=0

	for ns in "${PERF_HOSTS[@]}"; do
		ip netns exec "$ns" "$@" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || rc=1
	done
	return $rc
}

# perf_burst RATE_MBIT [MS]: a tbf burst of MS ms (4) at RATE, at least
# 4000 bytes: a TCG guest's timers fire milliseconds late on a busy host,
# and a tbf sends at most its burst a firing, so a stall longer than the
# burst is capacity the emulated link loses for good.  Scenarios that
# check how busy a port stays ask for 10 ms (a slower host's stalls
# outlast 4); the benches keep 4, which lets fewer packets pass a
# shallow queue at once after an idle spell
perf_burst()
{
	awk -v r="$1" -v ms="${2:-4}" \
		'BEGIN { b = r * 1e6 / 8 * ms / 1000; printf "%d", b < 4000 ? 4000 : b }'
}

# perf_fifo RATE_MBIT QLIMIT [ECN_BYTES|off [CTRL_DSCP]]: the switch port
# r0 at RATE over one drop-tail FIFO of QLIMIT full packets' bytes for
# every transport: sch_trim with nothing eligible for trimming, which keeps
# its peak length in packets and bytes exactly (data_qlen_max,
# data_backlog_max) and, with ECN_BYTES, sets CE on ECT packets leaving
# while more wait.  Without CTRL_DSCP there is no header queue (control
# packets get no priority TCP's ACKs do not get); with it, packets of that
# DSCP go to a band served first (strict), as PL2's RSVs and GRTs on the
# paper's switch (802.1Q priority)
perf_fifo()
{
	local opts=()

	[ "${3:-off}" != off ] && opts+=(ecn_thresh "$3")
	if [ -n "${4:-}" ]; then
		opts+=(ctrl_dscp "$4" sched strict)
	else
		opts+=(ctrl_dscp none)
	fi
	topo_link_qdisc "${1}mbit" "$(perf_burst "$1")" 10000000 trim limit 100000 \
		limit_bytes $(($2 * 1514)) "${opts[@]}" elig_dscp 63 ||
		topo_die "cannot set up the switch port at $1 Mbit/s"
}

# perf_shape_edges RATE_MBIT: every other link at RATE too, both ways: the
# switch's ports towards the senders and every host's uplink (eth0), each
# a tbf over its default FIFO, deep enough never to drop (a host's own
# queue is its socket's business, as on a NIC)
perf_shape_edges()
{
	local burst ns i n=$((${#PERF_HOSTS[@]} - 1)) tbf

	burst=$(perf_burst "$1")
	tbf="tbf rate ${1}mbit burst $burst limit 4000000"
	for ((i = 1; i <= n; i++)); do
		echo "qdisc replace dev s$i root $tbf"
	done >"$PERF_DIR/shape.batch"
	tc -n "$TOPO_SW" -batch "$PERF_DIR/shape.batch" || topo_die "shaping the switch's ports"
	for ns in "${PERF_HOSTS[@]}"; do
		# shellcheck disable=SC2086	# a word list
		tc -n "$ns" qdisc replace dev eth0 root $tbf || topo_die "shaping $ns's uplink"
	done
}

# perf_cc NAME: TCP congestion control of every host
perf_cc()
{
	perf_on_hosts sysctl -qw net.ipv4.tcp_congestion_control="$1" ||
		topo_die "tcp_congestion_control=$1"
}

# perf_server NAME PROTO PORT [ARGS...]: a shoal-perf server on the
# receiver (TOPO_RX), its log in PERF_DIR/server-NAME.log; returns once it
# listens
perf_server()
{
	local name=$1 proto=$2 port=$3 i

	shift 3
	rm -f "$PERF_DIR/$name.ready"
	ip netns exec "$TOPO_RX" "$PERF" server --proto "$proto" --port "$port" \
		--ready "$PERF_DIR/$name.ready" "$@" 2>"$PERF_DIR/server-$name.log" &
	PERF_SPIDS+=($!)
	TOPO_PIDS+=($!)
	for ((i = 0; i < 400; i++)); do
		[ -e "$PERF_DIR/$name.ready" ] && return
		topo_nap 0.05
	done
	topo_die "the $name server did not start"
}

# perf_servers_stop: stop every server perf_server started, their counts
# (the logs) as comments on stderr
perf_servers_stop()
{
	local p

	for p in "${PERF_SPIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
		wait "$p"
		TOPO_PIDS=("${TOPO_PIDS[@]/$p}")
	done
	PERF_SPIDS=()
	sed 's/^/# /' "$PERF_DIR"/server-*.log >&2
}

# perf_shoal_stats FILE: every host's /proc/net/shoal/stats, as lines
# "<namespace> <counter> <value>"
perf_shoal_stats()
{
	local ns

	for ns in "${PERF_HOSTS[@]}"; do
		# shellcheck disable=SC2016	# awk's own variables
		ip netns exec "$ns" awk -v ns="$ns" '{ print ns, $0 }' /proc/net/shoal/stats
	done >"$1"
}

# perf_pl2_attach ARGS...: pl2-switch on every port of the switch
# namespace (s1..sN, r0), with ARGS (its mode and settings); the BPF
# filesystem its maps are pinned in is mounted if need be
perf_pl2_attach()
{
	local ports=(r0) i n=$((${#PERF_HOSTS[@]} - 1))

	[ -x "$PL2SW" ] || topo_die "missing $PL2SW (make tools)"
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf ||
		topo_die "cannot mount the BPF filesystem"
	for ((i = 1; i <= n; i++)); do
		ports+=("s$i")
	done
	ip netns exec "$TOPO_SW" "$PL2SW" attach "$@" "${ports[@]}" ||
		topo_die "pl2-switch attach $*"
}

perf_pl2_detach()
{
	ip netns exec "$TOPO_SW" "$PL2SW" detach -a || topo_die "pl2-switch detach -a"
}

# perf_pl2_show FILE: the switch's ports and counters (show -j)
perf_pl2_show()
{
	ip netns exec "$TOPO_SW" "$PL2SW" show -j >"$1"
}

# perf_port_sample FILE: append "<ns> <bytes>": the wall clock and the
# bytes the switch port r0's root qdisc sent.  Two samples while a load
# runs give the rate the emulated link really delivered (a tbf whose
# timer fires late on a loaded guest delivers less than its rate).
perf_port_sample()
{
	local t0 t1 bytes

	t0=$(date +%s%N)
	bytes=$(tc -n "$TOPO_SW" -s qdisc show dev r0 | awk '/Sent/ { print $2; exit }')
	t1=$(date +%s%N)
	echo "$(((t0 + t1) / 2)) $bytes" >>"$1"
}
