# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by the benchmark scripts of bench/: what they check alike.

# bench_positive WHAT VALUE...: exit 1 with "WHAT must be positive
# integers" unless every VALUE is one (rounds, counts, seconds)
bench_positive() {
	local what=$1 v
	shift
	for v; do
		[[ $v =~ ^[1-9][0-9]*$ ]] || {
			echo "bench: $what must be positive integers" >&2
			exit 1
		}
	done
}
