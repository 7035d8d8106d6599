# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the shoal.ko scenarios (source after topo.sh).

SHOAL_CRAFT=$TREE/tools/testing/lib/shoal_craft.py
SHOAL_MSGS=$TREE/tools/testing/lib/shoal_msgs.py
SHOAL_PERF=$TREE/tools/shoal-perf/shoal-perf

# shoal_module: load the tree's shoal.ko unless it is loaded
shoal_module()
{
	modprobe udp_tunnel 2>/dev/null
	modprobe ip6_udp_tunnel 2>/dev/null
	grep -q '^shoal ' /proc/modules && return 0
	insmod "$TREE/net/transport/shoal.ko" ||
		topo_die "insmod $TREE/net/transport/shoal.ko failed (make modules?)"
}

# shoal_objects_zero WHAT [KIND...]: a check that shoal.ko's object
# counts (/sys/kernel/debug/shoal/objects; all kinds, or the KINDs named)
# are back to 0, waiting up to 10 s (a namespace goes away in a work
# item); WHAT says after what
shoal_objects_zero()
{
	local objs=/sys/kernel/debug/shoal/objects what=$1 left try

	shift
	for ((try = 0; try < 40; try++)); do
		left=$(awk -v kinds="$*" 'BEGIN { n = split(kinds, k); for (i = 1; i <= n; i++) want[k[i]] = 1 }
			(!n || $1 in want) && $2 != 0 { printf "%s %s ", $1, $2 }
			END { if (NR == 0) print "unreadable" }' "$objs" 2>&1)
		[ -z "$left" ] && break
		topo_nap 0.25
	done
	tap_ok "$([ -z "$left" ] && echo 1 || echo 0)" \
		"shoal.ko's objects${*:+ ($*)} back to 0 $what${left:+: left $left}"
}

# shoal_craft ARGS...: the packet generator (list, expect CASE, send ...)
shoal_craft()
{
	"$SHOAL_CRAFT" "$@"
}

# shoal_fan ADDR PORT COUNT SIZE OUT N: senders 1..N (topo_sender_ns) each
# send COUNT messages of SIZE to ADDR at once, tagged with their number,
# from one process (an interpreter per sender would load a slow guest);
# sender i's JSON (as shoal_msgs.py send prints it) in OUT$i.json
shoal_fan()
{
	local i senders=()

	for ((i = 1; i <= $6; i++)); do
		senders+=("$(topo_sender_ns "$i"):$i:$5$i.json")
	done
	"$SHOAL_MSGS" fan "$1" "$2" "$3" "$4" "${senders[@]}"
}

# shoal_stats_delta BEFORE AFTER: the counters of /proc/net/shoal/stats
# that moved, as "name+N" sorted by name, rx_packets and rx_bytes left out
shoal_stats_delta()
{
	"$SHOAL_CRAFT" delta "$1" "$2"
}

# shoal_stats_vars BEFORE AFTER: shell assignments of every counter's
# change, plus by_type (packets counted by type) and by_reason (dropped
# by the parser)
shoal_stats_vars()
{
	"$SHOAL_CRAFT" vars "$1" "$2"
}

# shoal_recv NS PORT COUNT OUT [CGROUP]: tools/testing/lib/shoal_msgs.py
# receiving COUNT messages on PORT in namespace NS (60 s at most, times
# SHOAL_TIMEOUT_FACTOR on a slower kernel; in the
# cgroup v2 directory CGROUP if one is named), its JSON to OUT, in the
# background; returns once its socket is bound, its pid in recv_pid.
# SHOAL_RCVBUF, SHOAL_READ_DELAY and SHOAL_HOLD in the environment reach it.
shoal_recv()
{
	local i

	rm -f "$TOPO_TMP/recv.ready"
	sh -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs" || exit 1; shift; exec "$@"' \
		sh "${5:-}" ip netns exec "$1" "$SHOAL_MSGS" recv "$2" "$3" \
		$((60 * ${SHOAL_TIMEOUT_FACTOR:-1})) \
		"$TOPO_TMP/recv.ready" >"$4" &
	# shellcheck disable=SC2034	# the caller waits for it
	recv_pid=$!
	for ((i = 0; i < 600; i++)); do
		[ -e "$TOPO_TMP/recv.ready" ] && return 0
		topo_nap 0.05
	done
	topo_die "the receiver in $1 did not bind port $2"
}

# shoal_verdict RECV SEND: shell assignments from shoal_msgs.py's JSON of
# a receiver (RECV: good, bad) and a sender (SEND: acked, failed, errors
# by name, and other_errors: the failures that are not ETIMEDOUT,
# ECONNRESET or ECONNREFUSED, which a peer that went away may cause);
# -1 for what a file lacks
shoal_verdict()
{
	python3 - "$1" "$2" <<'PYEOF'
import errno, json, sys
def load(p):
    try:
        return json.load(open(p))
    except (OSError, ValueError):
        return {}
r, s = load(sys.argv[1]), load(sys.argv[2])
errs = {int(k): v for k, v in s.get("errors", {}).items()}
print("good=%d bad=%d" % (r.get("good", -1), r.get("bad", -1)))
print("acked=%d failed=%d" % (s.get("tx_acked", -1), s.get("tx_failed", -1)))
print("errors='%s'" % (",".join("%s:%d" % (errno.errorcode.get(k, str(k)), v)
                                for k, v in sorted(errs.items())) or "none"))
gone = (errno.ETIMEDOUT, errno.ECONNRESET, errno.ECONNREFUSED)
print("other_errors=%d" % sum(v for k, v in errs.items() if k not in gone))
PYEOF
}

# shoal_stat NS NAME: shoal.ko's counter NAME in namespace NS now (0 if
# it has none of that name)
shoal_stat()
{
	ip netns exec "$1" awk -v k="$2" '$1 == k { v = $2 } END { print v + 0 }' \
		/proc/net/shoal/stats
}

# shoal_perf_server NS PROTO PORT: shoal-perf's server for PROTO in
# namespace NS, in the background (its counts in
# $TOPO_TMP/perf-server-PORT.log); returns once it listens, its pid in
# perf_pid (also in TOPO_PIDS, so teardown ends it)
shoal_perf_server()
{
	local ready=$TOPO_TMP/perf-server-$3.ready i

	rm -f "$ready"
	ip netns exec "$1" "$SHOAL_PERF" server --proto "$2" --port "$3" \
		--ready "$ready" 2>"$TOPO_TMP/perf-server-$3.log" &
	perf_pid=$!
	TOPO_PIDS+=("$perf_pid")
	for ((i = 0; i < 400; i++)); do
		[ -e "$ready" ] && return 0
		kill -0 "$perf_pid" 2>/dev/null || break
		topo_nap 0.05
	done
	topo_die "the $2 server in $1 did not listen on port $3"
}
