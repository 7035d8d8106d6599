#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qdisc-nlfuzz: random and edge-case attribute sets sent raw (past the tc
# plugins) to the init and change of trim, afq, calq, sqr and pl2 (each at
# the root: pl2 is a root qdisc only) on the switch's port towards the
# receiver, with UDP traffic (half of it Shoal headers) crossing that port
# meanwhile (tools/testing/nlfuzz).  For each kind: every refusal carries
# an extack message and leaves the root qdisc's kind, handle and dumped
# options as they were; change, replace and init are each both taken and
# refused at least once, at least three different refusals are met, and
# packets went through.  The test bed fails the run on any oops, WARN or
# memory-debug report.
#
# NLFUZZ_SETS (1000) sets a kind; NLFUZZ_SEED (from the clock, printed)
# repeats a run.  `make fuzz` runs the long campaign (FUZZ_NL_SETS).
# shellcheck source-path=SCRIPTDIR
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"

FUZZ=$TREE/tools/testing/nlfuzz/qdisc-nlfuzz
SETS=${NLFUZZ_SETS:-1000}
SEED=${NLFUZZ_SEED:-$(($(date +%s) % 100000))}

[ -x "$FUZZ" ] || topo_die "build the tools first: make tools"
topo_modules sch_trim sch_afq sch_calq sch_sqr sch_pl2
topo_init nlfuzz
topo_build 1 >/dev/null
ip netns exec "$TOPO_SW" "$FUZZ" -d r0 -n "$SETS" -s "$SEED" -t "$(topo_rx_addr 4)"
