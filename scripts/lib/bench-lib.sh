# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the `make bench` parts whose results scripts/lib/fabric_results.py
# turns into Documentation/results/fabric.md (the bench-fabric*.sh parts).
# Each part leaves in its results directory DIR:
#
#   DIR/meta        KEY=VALUE lines: the part's parameters as it ran (its
#                   BENCH_* knobs under their names, hosts, host_mbit and
#                   any other KEY the results page's prose names), the
#                   guest's kernel, and once the report has run its exit
#                   status (report_status), the part's seconds (elapsed_s)
#                   and its end (ended, UTC)
#   DIR/report.txt  what the report printed: tables and verdict lines
#
#   bench_meta DIR KEY=VALUE...       start DIR/meta (after the part has
#                                     emptied DIR)
#   bench_report DIR REPORT ARG...    python3 REPORT ARG..., its output on
#                                     stdout and in DIR/report.txt; then the
#                                     end of DIR/meta; returns the report's
#                                     exit status
#
# A part whose DIR/meta has no report_status 0 did not run to its end.

bench_meta()
{
	local dir=$1 kv

	shift
	{
		echo "part=${dir##*/}"
		echo "kernel=$(uname -r)"
		# a line each: a value's newlines and tabs become spaces
		for kv in "$@"; do
			kv=${kv//[[:space:]]/ }
			while [[ $kv == *"  "* ]]; do
				kv=${kv//  / }
			done
			echo "$kv"
		done
	} >"$dir/meta"
}

bench_report()
{
	local dir=$1 rc

	shift
	python3 "$@" | tee "$dir/report.txt"
	rc=${PIPESTATUS[0]}
	{
		echo "elapsed_s=$SECONDS"
		echo "ended=$(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "report_status=$rc"
	} >>"$dir/meta"
	return "$rc"
}
