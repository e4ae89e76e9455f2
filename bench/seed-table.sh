#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The fio table of the merge commit "iomap: add simple dio path for small
# direct I/O" (its cover letter's figures), reproduced with
# `iomapsim bench`: 4 KiB random direct reads, queue depth 1, 64, 128 and
# 256, asynchronous (ki_complete from the device's interrupt, as libaio
# and io_uring) and polled (IOCB_HIPRI, io_uring_poll), simple=0 and
# simple=1, on a null device with an NVMe-like completion latency.
# Prints the table's columns (qd, simple=0, simple=1, gain) three ways:
#
#  measured  the threaded engine, wall clock: one submitter thread, the
#            device's timer thread ends each bio LATENCY after submission;
#  modelled  one CPU, closed loop: the deterministic engine's CPU time per
#            request c at that depth (the whole simulated stack, one
#            thread, no waiting) and the latency L give
#            IOPS = min(qd / (L + c), 1 / c); the shape the merge's table
#            has, free of this machine's scheduling noise;
#  profile   instructions per request (callgrind, deterministic engine):
#            the generic functions' share with simple=0 (the merge lists
#            __iomap_dio_rw, iomap_iter, iomap_dio_bio_iter, kfree,
#            iomap_dio_complete: 14.64 %), the simple path's with simple=1
#            (iomap_dio_simple: 4.83 %).
#
#   bench/seed-table.sh BUILD_DIR [LATENCY] [SECONDS]
#
# LATENCY defaults to 50us: the merge's qd-1 rows (18,740-19,315 IOPS) are
# 52-53 us per request.  SECONDS (default 2) per measured point.  A
# benchmark, not a test: the figures depend on the machine.
set -euo pipefail

build=$(realpath "${1:?usage: $0 BUILD_DIR [LATENCY] [SECONDS]}")
lat=${2:-50us}
secs=${3:-2}
bin=$build/iomapsim
[ -x "$bin" ] || { echo "seed-table: no $bin (build first)" >&2; exit 1; }
[[ $secs =~ ^[1-9][0-9]*$ ]] || {
	echo "seed-table: SECONDS must be a positive integer" >&2
	exit 1
}
lat_ns=$(awk -v t="$lat" 'BEGIN {
	if (t ~ /us$/) print t * 1000; else if (t ~ /ms$/) print t * 1000000;
	else if (t ~ /ns$/) print t + 0; else if (t ~ /s$/) print t * 1e9;
	else print t + 0 }')

run() { # run MODE QD SIMPLE EXTRA...
	local mode=$1 qd=$2 simple=$3
	shift 3
	"$bin" bench --mode "$mode" --qd "$qd" --simple "$simple" "$@"
}

gain() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f%%", a ? 100 * (b - a) / a : 0 }'; }

echo "# iomapsim seed table: 4 KiB random reads, null device, latency $lat ($(date -u +%F), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
for mode in async polled; do
	case $mode in
	async) name="async (libaio/io_uring)" ;;
	polled) name="polled (io_uring_poll)" ;;
	esac
	echo
	echo "## $name"
	printf "%-4s | %12s %12s %9s | %12s %12s %9s\n" qd \
		"simple=0" "simple=1" gain "model s=0" "model s=1" gain
	for qd in 1 64 128 256; do
		declare -A m=() c=()
		for s in 0 1; do
			m[$s]=$(run $mode $qd $s --engine threaded --dev null \
				--latency "$lat" --duration "${secs}s" |
				awk '/^  IOPS/ { print $2 }')
			ns=$(run $mode $qd $s --engine det --dev null \
				--count 200000 | awk '/^  CPU ns per I\/O/ { print $5 }')
			c[$s]=$(awk -v q=$qd -v l=$lat_ns -v c="$ns" 'BEGIN {
				a = q / (l + c) * 1e9; b = 1e9 / c;
				printf "%.0f", a < b ? a : b }')
		done
		printf "%-4s | %12s %12s %9s | %12s %12s %9s\n" $qd \
			"${m[0]}" "${m[1]}" "$(gain ${m[0]} ${m[1]})" \
			"${c[0]}" "${c[1]}" "$(gain ${c[0]} ${c[1]})"
	done
done

echo
echo "## profile: instructions per 4 KiB read (callgrind, deterministic engine, async, qd 64)"
if ! command -v valgrind >/dev/null; then
	echo "valgrind is not installed: no profile (scripts/quickstart.sh installs it)"
	exit 0
fi
share() { # share SIMPLE FUNCTIONS...: their own instructions' share of all
	local simple=$1
	shift
	run async 64 "$simple" --engine det --dev null --count 20000 \
		--profile --top 100000 |
		awk -v list="$*" '
		BEGIN { n = split(list, f, " "); for (i = 1; i <= n; i++) want[f[i]] = 1 }
		/^    total / { total = $2 }
		/^ +[0-9.]+ +[0-9.]+% / && ($3 in want) { sum += $1; got = got " " $3 "=" $1 }
		END { printf "%.1f of %.1f instructions per I/O: %.2f%% (%s )\n", sum, total, total ? 100 * sum / total : 0, got }'
}
printf "simple=0, generic functions: "
share 0 __iomap_dio_rw iomap_iter iomap_dio_bio_iter iomap_dio_complete \
	sim_kfree sim_kfree.part.0 free _int_free
printf "simple=1, simple path:       "
share 1 iomap_dio_rw iomap_dio_simple iomap_dio_simple_complete \
	iomap_dio_simple_end_io
