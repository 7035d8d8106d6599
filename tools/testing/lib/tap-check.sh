# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP lines from commands' exit statuses, for the test scripts that judge
# by status (the install and package checks); topo.sh's tap_ok judges an
# arithmetic condition instead.  TAP_N counts checks, TAP_FAIL failures.

TAP_N=0
TAP_FAIL=0

ok() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1"
}

not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAIL=$((TAP_FAIL + 1))
	echo "not ok $TAP_N - $1"
}

# check DESCRIPTION CMD...: one TAP line from CMD's status
check() {
	local what=$1

	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}
