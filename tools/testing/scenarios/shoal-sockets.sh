#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-sockets: /proc/net/shoal/sockets lists each bound socket of the
# namespace as it is (tools/testing/lib/shoal_sockets_check.py): a SIRD
# receiver that does not read, a PL2 socket and a SIRD sender of 5
# messages to the receiver over loopback; each line says its port,
# protocol, owner, inode, messages each way, memory and SO_RCVBUF; after
# the receiver reads, none queued and less memory than a message's bytes
# (the names of read messages stay charged); once closed, no line.
# Then the file of another namespace lists none of them, and shoal.ko's
# objects are back to 0 once the namespaces are gone.
# shellcheck source-path=SCRIPTDIR
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

PORT=7300
COUNT=5

shoal_module
topo_init shsk
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
NS=$TOPO_PREFIX-h
OTHER=$TOPO_PREFIX-o
ip netns add "$NS" && ip -n "$NS" link set lo up &&
	ip netns add "$OTHER" && ip -n "$OTHER" link set lo up ||
	topo_die "namespaces"

# a socket in the other namespace, on the same port, held meanwhile
ip netns exec "$OTHER" python3 -c 'import socket, sys, time
proto = int(open("/sys/module/shoal/parameters/proto_sird").read())
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, proto)
s.bind(("127.0.0.1", int(sys.argv[1])))
open(sys.argv[2], "w").close()
time.sleep(60)' $PORT "$TOPO_TMP/hold.ready" &
hold=$!
TOPO_PIDS+=("$hold")
for ((i = 0; i < 200; i++)); do
	[ -e "$TOPO_TMP/hold.ready" ] && break
	topo_nap 0.05
done
[ -e "$TOPO_TMP/hold.ready" ] || topo_die "the other namespace's socket"
ip netns exec "$NS" python3 "$HERE/../lib/shoal_sockets_check.py" $PORT $COUNT |
	sed -E 's/^(not )?ok [0-9]+ - /# \1ok: /; s/^1\.\./# 1../' >"$TOPO_TMP/check.out"
rc=${PIPESTATUS[0]}
cat "$TOPO_TMP/check.out"
tap_ok "rc == 0" \
	"one namespace's sockets as they are, each line ($(grep -c '^# ok' "$TOPO_TMP/check.out") checks passed, $(grep -c '^# not ok' "$TOPO_TMP/check.out") failed)"
others=$(ip netns exec "$OTHER" awk '!/^#/' /proc/net/shoal/sockets | wc -l)
tap_ok "others == 1" "the other namespace lists its own socket only ($others line)"
kill "$hold" 2>/dev/null
wait "$hold" 2>/dev/null
ip netns del "$NS"
ip netns del "$OTHER"
shoal_objects_zero "once the namespaces are gone"
tap_done
