#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-memcg: memory Shoal allocates for a process is charged to that
# process's memory cgroup, and a cgroup without room gets ENOMEM, not an
# OOM kill and not the rest of the machine's memory.  A cgroup (v2) with
# memory.max MAX_MB; in a namespace whose max_msg_len and sndbuf root
# raised, nobody in that cgroup sends MSGS messages of MSG_MB each, from
# untouched anonymous memory (the zero page: the copies are the kernel's
# only), to an address behind a dummy device (a black hole: each message
# stays until it times out, long after the test).  Checked:
#   1. the sends the cgroup has no room for fail with ENOMEM (at least
#      one went, and what went fits in memory.max);
#   2. the cgroup's memory, while the sender holds its messages, counts
#      them: its vmalloc memory (where a message's copy is) is at least
#      what went, MSG_MB each;
#   3. the sender was not killed, and once it exits memory.current is
#      back where it started;
#   4. a qdisc's table is charged too: sqr's ring_bytes of RING_MB fails
#      with its "no memory" message inside a cgroup of QDISC_MB, and is
#      taken outside it.
# shellcheck source-path=SCRIPTDIR
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

MAX_MB=96
MSG_MB=32
MSGS=8
QDISC_MB=64
RING_MB=256
CG_ROOT=/sys/fs/cgroup
CG=$CG_ROOT/shoal-memcg.$$
CGQ=$CG_ROOT/shoal-memcg-tc.$$

topo_modules sch_sqr
shoal_module
topo_init shmc
cleanup()
{
	topo_teardown
	rmdir "$CG" "$CGQ" 2>/dev/null
}
trap cleanup EXIT
[ -e "$CG_ROOT/cgroup.controllers" ] || topo_die "no cgroup v2 at $CG_ROOT"
grep -qw memory "$CG_ROOT/cgroup.subtree_control" ||
	echo +memory >"$CG_ROOT/cgroup.subtree_control" ||
	topo_die "cannot enable the memory controller"
mkdir "$CG" "$CGQ" && echo $((MAX_MB << 20)) >"$CG/memory.max" &&
	echo $((QDISC_MB << 20)) >"$CGQ/memory.max" || topo_die "cgroups"

NS=$TOPO_PREFIX-h
ip netns add "$NS" && ip -n "$NS" link set lo up &&
	ip -n "$NS" link add bh0 type dummy && ip -n "$NS" link set bh0 up &&
	ip -n "$NS" addr add 10.9.0.1/24 dev bh0 || topo_die "namespace"
ip netns exec "$NS" sysctl -qw net.shoal.max_msg_len=$((2 * MSG_MB << 20)) \
	net.shoal.sndbuf=$((MSGS * 2 * MSG_MB << 20)) net.shoal.resend_ms=1000 \
	net.shoal.timeout_resends=1000 || topo_die "sysctls"

# the sender: in the cgroup, as nobody (`ip netns exec` mounts its own
# /sys, without the cgroups: this script reads memory.current).  It says
# "ready" and waits for a line, sends, says "sent N", "errors {...}",
# "held", and waits for the end of its input.
SEND_PY='
import errno, mmap, socket, sys
n, size = int(sys.argv[1]), int(sys.argv[2]) << 20
proto = int(open("/sys/module/shoal/parameters/proto_sird").read())
buf = memoryview(mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS))
print("ready", flush=True)
sys.stdin.readline()
socks, sent, errs = [], 0, {}
for i in range(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, proto)
    socks.append(s)
    try:
        s.sendto(buf, ("10.9.0.2", 7000))
        sent += 1
    except OSError as e:
        k = errno.errorcode.get(e.errno, str(e.errno))
        errs[k] = errs.get(k, 0) + 1
print("sent", sent)
print("errors", ",".join("%s:%d" % kv for kv in sorted(errs.items())) or "none")
print("held", flush=True)
sys.stdin.read()
'
coproc SENDER {
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" \
		ip netns exec "$NS" setpriv --reuid=65534 --regid=65534 --clear-groups \
		python3 -c "$SEND_PY" $MSGS $MSG_MB 2>"$TOPO_TMP/send.err"
}
declare -A R
read -r -t 120 k <&"${SENDER[0]}" && [ "$k" = ready ] || topo_die "the sender did not start: $(head -c 300 "$TOPO_TMP/send.err")"
base=$(cat "$CG/memory.current")
echo go >&"${SENDER[1]}"
for ((i = 0; i < 3; i++)); do
	read -r -t 120 k v <&"${SENDER[0]}" || break
	R[$k]=$v
done
held=$(cat "$CG/memory.current")
held_vmalloc=$(awk '$1 == "vmalloc" { print $2 }' "$CG/memory.stat")
held_stat=$(awk '$1 ~ /^(anon|file|kernel|vmalloc|slab|sock|percpu)$/ { printf "%s %d MiB, ", $1, $2 / 1048576 }' "$CG/memory.stat")
sent=${R[sent]:--1} errs=${R[errors]:-?}
[ -n "${R[held]+x}" ] || held=-1
echo "# cgroup memory.max $MAX_MB MiB: base $base, sent $sent of $MSGS x $MSG_MB MiB" \
	"($errs), held $held ($held_stat); $(head -c 300 "$TOPO_TMP/send.err")"
enomem=${errs#*ENOMEM:}
[ "$enomem" = "$errs" ] && enomem=0
enomem=${enomem%%,*}
tap_ok "$sent >= 1 && $enomem == $MSGS - $sent && $sent * $MSG_MB <= $MAX_MB" \
	"sends with no room in the cgroup fail with ENOMEM: $sent of $MSGS sent ($errs), $((sent * MSG_MB)) MiB <= memory.max $MAX_MB MiB"
tap_ok "${held_vmalloc:-0} >= $sent * ($MSG_MB << 20)" \
	"the cgroup is charged for the messages held: its vmalloc memory (the messages' copies) $((${held_vmalloc:-0} >> 20)) MiB for $sent x $MSG_MB MiB sent; memory.current $((held >> 20)) MiB"
eval "exec ${SENDER[1]}>&-"
wait "${SENDER_PID:-0}"
rc=$?
after=$(cat "$CG/memory.current")
tap_ok "$rc == 0 && $after <= $base" \
	"the sender was not killed (exit $rc), and once it is gone memory.current is $((after >> 20)) MiB, not above its start $((base >> 20)) MiB; OOM kills in the cgroup: $(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events")"

# 4. a qdisc's table: in a cgroup of QDISC_MB, then outside
out=$(sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CGQ" \
	ip netns exec "$NS" tc qdisc add dev bh0 root sqr hold 1ms ring_bytes ${RING_MB}mb 2>&1)
rc_in=$?
ip netns exec "$NS" tc qdisc add dev bh0 root sqr hold 1ms ring_bytes ${RING_MB}mb 2>"$TOPO_TMP/tc.err"
rc_out=$?
tap_ok "$rc_in != 0 && $(echo "$out" | grep -c 'no memory for a copy buffer') == 1 && $rc_out == 0" \
	"sqr's $RING_MB MiB ring in a cgroup of $QDISC_MB MiB: refused ('$(echo "$out" | tr '\n' ' ' | head -c 200)'); outside it: exit $rc_out $(head -c 200 "$TOPO_TMP/tc.err")"
tap_done
