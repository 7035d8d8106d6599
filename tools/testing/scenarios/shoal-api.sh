#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-api: the socket API of shoal.ko, by the kselftest-harness program
# tools/testing/selftests/shoal_api.c (built by scripts/check), run in a
# namespace of its own on loopback, once with IPPROTO_SIRD sockets and
# once with IPPROTO_PL2 ones.  Then every socket is closed, the
# namespace deleted and the module must unload: no message, socket or
# charge may outlive them.
# shellcheck source-path=SCRIPTDIR
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

BIN=$TREE/build/selftests/shoal_api
[ -x "$BIN" ] || topo_die "missing $BIN (scripts/check builds it)"
shoal_module
topo_init shapi
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
NS=$TOPO_PREFIX-h
ip netns add "$NS" && ip -n "$NS" link set lo up || topo_die "namespace"
ip netns exec "$NS" "$TREE/tools/testing/lib/fault-run" "$BIN"
status=$?
tap_ok "$status == 0" "the API tests passed (IPPROTO_SIRD)"
ip netns exec "$NS" env SHOAL_PROTO=pl2 "$TREE/tools/testing/lib/fault-run" "$BIN"
status=$?
tap_ok "$status == 0" "the API tests passed (IPPROTO_PL2)"
ip netns del "$NS"
shoal_objects_zero "once the sockets are closed and the namespace is gone"
rmmod shoal
tap_ok "$? == 0" "shoal.ko unloads once the sockets are closed"
tap_done
