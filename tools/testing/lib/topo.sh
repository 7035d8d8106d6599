# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shoal scenario library: a switch fabric in network namespaces.
#
#   sender 1 (eth0) ---- (s1) \
#   sender 2 (eth0) ---- (s2)  switch netns (L3 router) (r0) ---- (eth0) receiver
#   ...                       /
#   sender N (eth0) ---- (sN)
#
# Sender i: 10.100.i.1/24 and fd00:100:<i hex>::1/64; the switch is .254 / ::fe
# on every link; receiver: 10.200.0.1/24 and fd00:200::1/64.  Neighbour entries
# are permanent and IPv6 addresses skip DAD, so no ARP/ND competes with an
# incast; links have fixed MAC addresses so those entries can be written up
# front.  The qdisc under test goes on the switch's r0 (towards the receiver).
#
# Usage: source this file, then
#   topo_init [name]          unique namespace prefix, cleanup on exit
#   topo_build N              N senders, switch, receiver
#   topo_link_qdisc ...       tbf root on r0 with a child qdisc
#   topo_qstats               qdisc counters of r0 as shell assignments
# Namespaces: $TOPO_SW, $TOPO_RX, and $TOPO_PREFIX-sI (topo_sender_ns I).

TREE=${TREE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
BLAST=$TREE/tools/traffic/shoal-blast
SINK=$TREE/tools/traffic/shoal-sink
export TC_LIB_DIR=${TC_LIB_DIR:-$TREE/tc}

TOPO_PREFIX=
TOPO_SW=
TOPO_RX=
TOPO_BACKLOG_OLD=
TOPO_PIDS=()
TOPO_MTU=${TOPO_MTU:-1500}	# of every link; set before topo_build
TOPO_TMP=
TOPO_NAP_FD=
TOPO_SOFTNET=0

topo_log()
{
	echo "# $*"
}

topo_die()
{
	echo "Bail out! $*"
	exit 1
}

topo_sender_ns()
{
	echo "${TOPO_PREFIX}-s$1"
}

# topo_mac VAR LINK SIDE: VAR = fixed MAC of one end of a link,
# 02:5e:<link>:<side>; link 0 is the receiver link.  No subshell: see topo_nap.
topo_mac()
{
	printf -v "$1" '02:5e:00:%02x:%02x:%02x' $(($2 >> 8)) $(($2 & 255)) "$3"
}

# topo_sender_addr I FAMILY
topo_sender_addr()
{
	if [ "$2" = 6 ]; then
		printf 'fd00:100:%x::1\n' "$1"
	else
		echo "10.100.$1.1"
	fi
}

# topo_rx_addr FAMILY
topo_rx_addr()
{
	if [ "$1" = 6 ]; then echo fd00:200::1; else echo 10.200.0.1; fi
}

topo_teardown()
{
	local pid ns

	for pid in "${TOPO_PIDS[@]}"; do
		kill "$pid" 2>/dev/null
	done
	TOPO_PIDS=()
	if [ -n "$TOPO_PREFIX" ]; then
		for ns in $(ip netns list | awk '{print $1}'); do
			case "$ns" in
			"$TOPO_PREFIX"-*) ip netns del "$ns" 2>/dev/null ;;
			esac
		done
	fi
	if [ -n "$TOPO_BACKLOG_OLD" ]; then
		sysctl -qw net.core.netdev_max_backlog="$TOPO_BACKLOG_OLD"
		TOPO_BACKLOG_OLD=
	fi
	[ -n "$TOPO_TMP" ] && rm -rf "$TOPO_TMP"
	TOPO_TMP=
}

# topo_nap SECONDS: sleep without a fork (a read that times out on a FIFO
# nobody writes); forks are slow in the VM and polling loops make many.
topo_nap()
{
	read -rt "$1" -u "$TOPO_NAP_FD" _
}

# topo_modules [MODULE...]: our qdisc modules from this tree (default
# sch_trim), any other (sch_netem) and tbf from the kernel (a module, or
# built in as on the debug kernel).
topo_modules()
{
	local m

	for m in "${@:-sch_trim}"; do
		grep -q "^$m " /proc/modules && continue
		case $m in
		sch_trim | sch_afq | sch_calq | sch_sqr | sch_pl2) ;;
		*)
			modprobe "$m" || topo_die "modprobe $m failed"
			continue
			;;
		esac
		insmod "$TREE/net/sched/$m.ko" ||
			topo_die "insmod $TREE/net/sched/$m.ko failed (make modules?)"
	done
	modprobe sch_tbf || topo_die "modprobe sch_tbf failed"
}

# topo_init [NAME]: choose a prefix no other run uses; tear down on exit.
topo_init()
{
	local name=${1:-topo}

	[ "$(id -u)" = 0 ] || topo_die "must run as root"
	if [ ! -x "$BLAST" ] || [ ! -x "$SINK" ]; then
		topo_die "build the tools first: make tools"
	fi
	command -v ethtool >/dev/null || topo_die "ethtool missing"
	command -v python3 >/dev/null || topo_die "python3 missing"
	TOPO_PREFIX="$name-$$"
	trap topo_teardown EXIT
	trap 'exit 130' INT TERM
	TOPO_TMP=$(mktemp -d) || topo_die "mktemp"
	mkfifo "$TOPO_TMP/nap" || topo_die "mkfifo"
	exec {TOPO_NAP_FD}<>"$TOPO_TMP/nap"
}

# Under QEMU TCG every `ip netns exec` or `ip -n` costs most of a second,
# so the fabric is built with one `ip -batch` per namespace plus one exec
# for what ip cannot do (sysctl, ethtool), namespaces in parallel.
# Links get `addrgenmode none` before they come up: no IPv6 link-local
# address, hence no DAD, router solicitation or MLD on it.

# topo_link_cfg DEV ADDR4/LEN ADDR6/LEN GW4 GW6 PEERMAC NEIGH4 NEIGH6 [default]:
# ip batch lines for one end of a link; "default" adds default routes via
# GW4/GW6, NEIGH4/NEIGH6 get PEERMAC as permanent neighbours.
topo_link_cfg()
{
	local dev=$1 a4=$2 a6=$3 gw4=$4 gw6=$5 mac=$6 n4=$7 n6=$8 dflt=${9:-}

	echo "link set dev $dev addrgenmode none"
	echo "address add $a4 dev $dev"
	echo "address add $a6 dev $dev nodad"
	echo "link set dev $dev up"
	echo "neigh replace $n4 lladdr $mac dev $dev nud permanent"
	echo "neigh replace $n6 lladdr $mac dev $dev nud permanent"
	if [ "$dflt" = default ]; then
		echo "route add default via $gw4"
		echo "route add default via $gw6"	# family from the gateway
	fi
}

# topo_host_setup NS BATCHFILE: configure an end host in one exec; its
# eth0 sends final checksums (the sink verifies every one).
topo_host_setup()
{
	# shellcheck disable=SC2016 # expanded by the inner shell
	ip netns exec "$1" sh -c '
		ip link set lo up && ip -batch "$1" &&
		ethtool -K eth0 tx off >/dev/null' sh "$2"
}

# topo_backlog: a switch namespace enqueues from every sender's softirq:
# queue there, not in the per-CPU backlog, so raise the backlog well above
# any burst (topo_teardown puts it back)
topo_backlog()
{
	if [ -z "$TOPO_BACKLOG_OLD" ]; then
		TOPO_BACKLOG_OLD=$(sysctl -n net.core.netdev_max_backlog)
		sysctl -qw net.core.netdev_max_backlog=100000
	fi
}

# topo_build N: N senders -> switch -> receiver, IPv4 and IPv6.
topo_build()
{
	local n=$1 i ns sw rx tmp pids=() p rc=0 sysctls ifs gw6 a6
	local rmac_w rmac_r mac_s mac_w

	TOPO_SW="$TOPO_PREFIX-sw"
	TOPO_RX="$TOPO_PREFIX-rx"
	sw=$TOPO_SW
	rx=$TOPO_RX
	tmp=$TOPO_TMP

	topo_backlog

	ip netns add "$sw" || topo_die "ip netns add $sw"
	ip netns add "$rx" || topo_die "ip netns add $rx"
	for ((i = 1; i <= n; i++)); do
		ip netns add "$TOPO_PREFIX-s$i" || topo_die "ip netns add $TOPO_PREFIX-s$i"
	done

	# switch: every link (veth peers go straight into the hosts)
	topo_mac rmac_w 0 254
	topo_mac rmac_r 0 1
	{
		echo "link set lo up"
		echo "link add r0 address $rmac_w mtu $TOPO_MTU type veth" \
			"peer name eth0 netns $rx address $rmac_r mtu $TOPO_MTU"
		topo_link_cfg r0 10.200.0.254/24 fd00:200::fe/64 - - \
			"$rmac_r" 10.200.0.1 fd00:200::1
		for ((i = 1; i <= n; i++)); do
			ns=$TOPO_PREFIX-s$i
			topo_mac mac_s "$i" 1
			topo_mac mac_w "$i" 254
			printf -v a6 'fd00:100:%x::' "$i"
			echo "link add s$i address $mac_w mtu $TOPO_MTU type veth" \
				"peer name eth0 netns $ns address $mac_s mtu $TOPO_MTU"
			topo_link_cfg "s$i" "10.100.$i.254/24" "${a6}fe/64" - - "$mac_s" \
				"10.100.$i.1" "${a6}1"
		done
	} >"$tmp/sw"
	ip -n "$sw" -batch "$tmp/sw" || topo_die "switch links"

	# hosts, in parallel
	topo_link_cfg eth0 10.200.0.1/24 fd00:200::1/64 10.200.0.254 fd00:200::fe \
		"$rmac_w" 10.200.0.254 fd00:200::fe default >"$tmp/rx"
	topo_host_setup "$rx" "$tmp/rx" &
	pids+=($!)
	for ((i = 1; i <= n; i++)); do
		printf -v a6 'fd00:100:%x::' "$i"
		gw6=${a6}fe
		topo_mac mac_w "$i" 254
		topo_link_cfg eth0 "10.100.$i.1/24" "${a6}1/64" "10.100.$i.254" "$gw6" \
			"$mac_w" "10.100.$i.254" "$gw6" default >"$tmp/s$i"
		topo_host_setup "$TOPO_PREFIX-s$i" "$tmp/s$i" &
		pids+=($!)
	done

	# switch: a router that forwards whatever comes back (return to sender)
	sysctls="net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1"
	sysctls+=" net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0"
	ifs="r0"
	for ((i = 1; i <= n; i++)); do
		ifs+=" s$i"
	done
	for i in $ifs; do
		sysctls+=" net.ipv4.conf.$i.rp_filter=0"
	done
	# shellcheck disable=SC2016 # expanded by the inner shell
	ip netns exec "$sw" sh -c '
		sysctl -qw $1 || exit 1
		for i in $2; do
			ethtool -K $i gro off gso off tso off >/dev/null || exit 1
		done' sh "$sysctls" "$ifs" &
	pids+=($!)

	for p in "${pids[@]}"; do
		wait "$p" || rc=1
	done
	[ $rc = 0 ] || topo_die "fabric setup failed"
	topo_settle
}

# Address changes schedule a few unsolicited MLD reports (within ~2 s);
# let them pass before a qdisc counts packets on r0.
topo_settle()
{
	sleep "${TOPO_SETTLE:-2.5}"
}

# topo_link_qdisc RATE BURST LIMIT CHILD...: tbf as root of r0 (the link),
# CHILD (e.g. "trim limit 12" or "pfifo limit 12") as its queue.
topo_link_qdisc()
{
	local rate=$1 burst=$2 limit=$3

	shift 3
	tc -n "$TOPO_SW" qdisc del dev r0 root 2>/dev/null
	tc -n "$TOPO_SW" qdisc add dev r0 root handle 1: tbf rate "$rate" \
		burst "$burst" limit "$limit" || return 1
	tc -n "$TOPO_SW" qdisc add dev r0 parent 1:1 handle 10: "$@" || return 1
}

topo_link_qdisc_del()
{
	tc -n "$TOPO_SW" qdisc del dev r0 root 2>/dev/null
}

# One python program reads what tools and tc wrote (python starts slowly
# in the VM: one run per case).  Modes:
#   qdisc              tc -s -j qdisc JSON on stdin
#   case DIR N         DIR/blast-1..N.json, DIR/sink.json, DIR/qdisc.json
# and prints shell assignments.  Missing values read as -1, so that checks
# on them fail rather than pass.
#
# qdisc: tbf_<field> for the root (tbf), child_<field> for handle 10:;
# tc prints a qdisc's xstats among its other keys, so the child's are
# child_<member of struct tc_trim_xstats>, e.g. child_trim_tail.  Floats
# (child_hdr_sojourn_avg_us) are printed as they come: not for (( )).
#
# case, in addition: sent send_errors retries bounced bounce_invalid
# bounce_dup blast_rx_dropped (summed over senders), skew_us (first to
# last sender start), rate_pct (the slowest paced sender's achieved rate,
# percent of its --rate; 100 if none was paced), s_<field> for the sink's integer fields,
# d_whole_<stat> and d_trim_<stat> (us), per_sender_bad (senders whose
# sent != whole + trimmed + unmarked + bounced at the sink/sender), reasons
# (malformed packets, text).
TOPO_PY=$TREE/tools/testing/lib/topo_values.py

# topo_qstats [DEV]: r0's qdisc counters now, as shell assignments (above)
topo_qstats()
{
	tc -n "$TOPO_SW" -s -j qdisc show dev "${1:-r0}" | python3 "$TOPO_PY" qdisc
}

# topo_qdisc_save FILE [DEV]: r0's qdisc counters as tc JSON, for topo_collect
topo_qdisc_save()
{
	tc -n "$TOPO_SW" -s -j qdisc show dev "${2:-r0}" >"$1"
}

# topo_softnet_drops: TOPO_SOFTNET = packets dropped for a full per-CPU
# backlog, all CPUs together.
topo_softnet_drops()
{
	local _ d _rest

	TOPO_SOFTNET=0
	while read -r _ d _rest; do
		TOPO_SOFTNET=$((TOPO_SOFTNET + 16#$d))
	done </proc/net/softnet_stat
}

# topo_sink OUTJSON ARGS...: start shoal-sink on the receiver's eth0 in the
# background; returns once its sockets are open.  Sets TOPO_SINK_PID.
# Its summary line goes to OUTJSON with .log for .json.
topo_sink()
{
	local json=$1 ready="$1.ready" i

	shift
	rm -f "$ready" "$json"
	ip netns exec "$TOPO_RX" "$SINK" --dev eth0 --json "$json" --ready "$ready" "$@" \
		2>"${json%.json}.log" &
	TOPO_SINK_PID=$!
	TOPO_PIDS+=("$TOPO_SINK_PID")
	for ((i = 0; i < 1200; i++)); do
		[ -e "$ready" ] && return 0
		kill -0 "$TOPO_SINK_PID" 2>/dev/null || break
		topo_nap 0.05
	done
	topo_die "shoal-sink did not start"
}

topo_sink_wait()
{
	wait "$TOPO_SINK_PID"
	local rc=$?

	TOPO_PIDS=("${TOPO_PIDS[@]/$TOPO_SINK_PID}")
	return $rc
}

# topo_blast N FAMILY OUTDIR ARGS...: senders 1..N blast at the receiver,
# all at once so that they really form an incast: each opens its socket,
# says so with a ready file and waits for SIGUSR1, which they all get
# together (`ip netns exec` execs in place: $! is shoal-blast itself).
# Waits for all of them; sender i uses --id i and writes
# OUTDIR/blast-i.json and blast-i.log.
topo_blast()
{
	local n=$1 fam=$2 dir=$3 i pids=() rc=0 dst tries

	shift 3
	dst=10.200.0.1
	[ "$fam" = 6 ] && dst=fd00:200::1
	rm -f "$dir"/blast-*.json "$dir"/blast-*.ready
	for ((i = 1; i <= n; i++)); do
		ip netns exec "$TOPO_PREFIX-s$i" "$BLAST" "-$fam" --dst "$dst" \
			--id "$i" --ready "$dir/blast-$i.ready" --json "$dir/blast-$i.json" \
			"$@" 2>"$dir/blast-$i.log" &
		pids+=($!)
	done
	TOPO_PIDS+=("${pids[@]}")
	for ((i = 1; i <= n; i++)); do
		for ((tries = 0; tries < 1200; tries++)); do
			[ -e "$dir/blast-$i.ready" ] && break
			kill -0 "${pids[i - 1]}" 2>/dev/null || break
			topo_nap 0.05
		done
	done
	kill -USR1 "${pids[@]}" 2>/dev/null
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	return $rc
}

# topo_run DIR N FAMILY SINK_ARGS... -- BLAST_ARGS...: one run through
# r0: the sink on the receiver, senders 1..N blasting together.  Afterwards
# DIR/qdisc.json holds r0's qdiscs, DIR/values.sh topo_collect's values,
# which are also set in the caller's shell, and $softnet is the packets the
# per-CPU backlogs dropped meanwhile (anything but 0 spoils a count).
topo_run()
{
	local dir=$1 n=$2 fam=$3 sink_args=() softnet0

	shift 3
	while [ "$1" != -- ]; do
		sink_args+=("$1")
		shift
	done
	shift
	mkdir -p "$dir"
	rm -f "$dir"/*.json
	topo_softnet_drops
	softnet0=$TOPO_SOFTNET
	topo_sink "$dir/sink.json" "-$fam" "${sink_args[@]}"
	topo_blast "$n" "$fam" "$dir" "$@" || topo_log "$dir: a sender failed"
	topo_sink_wait || topo_log "$dir: shoal-sink failed"
	topo_qdisc_save "$dir/qdisc.json"
	topo_softnet_drops
	# shellcheck disable=SC2034	# for the caller
	softnet=$((TOPO_SOFTNET - softnet0))
	topo_collect "$dir" "$n" >"$dir/values.sh"
	# shellcheck disable=SC1091
	source "$dir/values.sh"
}

# topo_collect DIR N: everything about one case, as shell assignments
# (see TOPO_PY); save the qdisc first with topo_qdisc_save DIR/qdisc.json.
topo_collect()
{
	python3 "$TOPO_PY" case "$1" "$2"
}

# jget FILE KEY[.KEY...]: one value from a JSON file
jget()
{
	python3 "$TREE/tools/testing/lib/jget.py" "$1" "$2"
}

# jsum KEY FILE...: the sum of a numeric field over several JSON files
jsum()
{
	local key=$1

	shift
	python3 "$TREE/tools/testing/lib/jsum.py" "$key" "$@"
}

# topo_write_results FILE FIELDS: write {FIELDS, "failed": N, "cases":
# [...]} to FILE, the cases being the JSON objects in the CASES array.
topo_write_results()
{
	local i

	{
		echo "{$2, \"failed\": $TAP_FAIL,"
		echo " \"cases\": ["
		for i in "${!CASES[@]}"; do
			((i)) && echo ","
			printf '  %s' "${CASES[$i]}"
		done
		echo
		echo " ]}"
	} >"$1"
	topo_log "results: $1"
}

# ---- TAP-ish result lines ----

TAP_N=0
TAP_FAIL=0

# tap_ok COND DESCRIPTION...: COND is an arithmetic expression for (( ));
# the description's words are joined with spaces
tap_ok()
{
	local ok=0

	(($1)) && ok=1
	shift
	TAP_N=$((TAP_N + 1))
	if ((ok)); then
		echo "ok $TAP_N - $*"
	else
		echo "not ok $TAP_N - $*"
		TAP_FAIL=$((TAP_FAIL + 1))
	fi
}

# tap_skip DESCRIPTION REASON: a check that could not be made
tap_skip()
{
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
}

tap_done()
{
	echo "1..$TAP_N"
	if [ "$TAP_FAIL" -ne 0 ]; then
		echo "# FAIL: $TAP_FAIL of $TAP_N checks failed"
		return 1
	fi
	echo "# PASS: all $TAP_N checks passed"
	return 0
}
