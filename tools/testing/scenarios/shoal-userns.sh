#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-userns: what an unprivileged user may do with net.shoal.* in a
# network namespace of its own (setpriv to nobody, then unshare -Urn, as a
# rootless container does).  The initial namespace's rcvbuf and
# timeout_resends are lowered first, below their defaults.  Checked:
#   1. the settings that size memory or a message's lifetime (max_msg_len,
#      resend_ms, timeout_resends, rcvbuf, sndbuf) start there at the
#      initial namespace's values where those are lower;
#   2. a write one above that value is refused and leaves it, one below
#      is taken, and the value itself can be written back;
#   3. a setting that sizes nothing (pl2_k) is the user's to write;
#   4. a namespace root made (ip netns add) is not bounded: its rcvbuf
#      takes 64 MiB;
#   5. a port below 1024: refused to nobody in the initial namespace
#      (EACCES), taken in its own namespace, where it holds
#      CAP_NET_BIND_SERVICE: as UDP in both places.
# shellcheck source-path=SCRIPTDIR
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

BOUNDED=(max_msg_len resend_ms timeout_resends rcvbuf sndbuf)
LOW_RCVBUF=1048576		# the initial namespace's, for the test
LOW_TIMEOUT=20
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

shoal_module
topo_init shun
SAVED=()
for n in "${BOUNDED[@]}"; do
	SAVED+=("$n=$(sysctl -n net.shoal.$n)")
done
restore()
{
	local kv

	for kv in "${SAVED[@]}"; do
		sysctl -qw "net.shoal.$kv"
	done
}
trap 'restore; topo_teardown' EXIT
sysctl -qw net.shoal.rcvbuf=$LOW_RCVBUF net.shoal.timeout_resends=$LOW_TIMEOUT ||
	topo_die "lowering the initial namespace's settings"
declare -A INIT
for n in "${BOUNDED[@]}"; do
	INIT[$n]=$(sysctl -n net.shoal.$n)
done

# bind_below NAME: a Shoal (SIRD) and a UDP socket bound to port 80, as
# "NAME.shoal=ok|ERRNO NAME.udp=..."
BIND_PY='
import errno, socket, sys
proto = int(open("/sys/module/shoal/parameters/proto_sird").read())
for kind, p in (("shoal", proto), ("udp", 0)):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, p)
    try:
        s.bind(("0.0.0.0", 80))
        r = "ok"
    except OSError as e:
        r = errno.errorcode[e.errno]
    print("%s.%s=%s" % (sys.argv[1], kind, r))
'

# What nobody sees and does in a user and network namespace of its own:
# NAME.start, NAME.up (ok|refused), NAME.after_up, NAME.down,
# NAME.back, NAME.end for each bounded setting; pl2_k's write; the binds
INSIDE='
cd /proc/sys/net/shoal || exit 1
for n in '"${BOUNDED[*]}"'; do
	v=$(cat $n)
	echo "$n.start=$v"
	if echo $((v + 1)) 2>/dev/null >$n; then echo "$n.up=ok"; else echo "$n.up=refused"; fi
	echo "$n.after_up=$(cat $n)"
	if echo $((v - 1)) 2>/dev/null >$n; then echo "$n.down=ok"; else echo "$n.down=refused"; fi
	echo "$n.after_down=$(cat $n)"
	if echo $v 2>/dev/null >$n; then echo "$n.back=ok"; else echo "$n.back=refused"; fi
	echo "$n.end=$(cat $n)"
done
if echo 8 2>/dev/null >pl2_k; then echo "pl2_k.write=$(cat pl2_k)"; else echo pl2_k.write=refused; fi
python3 -c "$1" own
'
"${NOBODY[@]}" unshare -Urn sh -c "$INSIDE" sh "$BIND_PY" >"$TOPO_TMP/inside" 2>"$TOPO_TMP/inside.err" ||
	topo_die "nobody's namespace: $(head -c 300 "$TOPO_TMP/inside.err")"
declare -A IN
while IFS='=' read -r k v; do
	IN[$k]=$v
done <"$TOPO_TMP/inside"
got()
{
	echo "${IN[$1]:--1}"
}

for n in "${BOUNDED[@]}"; do
	start=$(got "$n.start")
	tap_ok "$start == ${INIT[$n]}" \
		"nobody's namespace: $n starts at $start, the initial namespace's ${INIT[$n]}"
done
for n in "${BOUNDED[@]}"; do
	v=${INIT[$n]}
	tap_ok "$([ "$(got "$n.up")" = refused ] && echo 1 || echo 0) &&
		$(got "$n.after_up") == $v &&
		$([ "$(got "$n.down")" = ok ] && echo 1 || echo 0) &&
		$(got "$n.after_down") == $v - 1 &&
		$([ "$(got "$n.back")" = ok ] && echo 1 || echo 0) && $(got "$n.end") == $v" \
		"nobody's namespace: $n $((v + 1)) $(got "$n.up") ($(got "$n.after_up") after), $((v - 1)) $(got "$n.down") ($(got "$n.after_down")), $v $(got "$n.back")"
done
tap_ok "$([ "$(got pl2_k.write)" = 8 ] && echo 1 || echo 0)" \
	"nobody's namespace: pl2_k, which sizes nothing, takes 8 ($(got pl2_k.write))"

NS=$TOPO_PREFIX-r
ip netns add "$NS" || topo_die "namespace"
ip netns exec "$NS" sysctl -qw net.shoal.rcvbuf=67108864
r=$(ip netns exec "$NS" sysctl -n net.shoal.rcvbuf)
tap_ok "$r == 67108864" "a namespace root made is not bounded: its rcvbuf takes 64 MiB ($r)"

"${NOBODY[@]}" python3 -c "$BIND_PY" init >>"$TOPO_TMP/binds" 2>&1
while IFS='=' read -r k v; do
	IN[$k]=$v
done <"$TOPO_TMP/binds"
tap_ok "$([ "$(got init.shoal)" = EACCES ] && [ "$(got init.udp)" = EACCES ] &&
	[ "$(got own.shoal)" = ok ] && [ "$(got own.udp)" = ok ] && echo 1 || echo 0)" \
	"port 80: nobody in the initial namespace $(got init.shoal) (UDP $(got init.udp)), in its own $(got own.shoal) (UDP $(got own.udp))"
tap_done
