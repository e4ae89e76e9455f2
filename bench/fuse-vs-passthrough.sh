#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# 4 KiB O_DIRECT random reads with fio through the iomapsim mount and
# through libfuse's own passthrough_ll example serving the same backing
# image file, in the same run: queue depth 1 (psync) and 64 (io_uring).
# Prints IOPS for each and the ratio iomapsim / passthrough_ll.  A
# benchmark, not a test: the figures depend on the machine.
#
#   bench/fuse-vs-passthrough.sh BUILD_DIR [SECONDS] [ROUNDS]
#
# Each depth is measured ROUNDS times (default 3), the two servers taking
# turns; the IOPS reported are each server's median, the ratio is the
# median of the rounds' ratios (each round's two runs back to back): on a
# shared or virtual machine the speed drifts by a tenth and more between
# runs, and a ratio within a round sees the least of it.
#
# Needs root, /dev/fuse, fio and the libfuse3-dev examples
# (/usr/share/doc/libfuse3-dev/examples/passthrough_ll.c), which this
# script compiles into BUILD_DIR.  $IOMAPSIM_BENCH_DIR (default /var/tmp)
# holds the image; it must support O_DIRECT.  Extra mount options for
# iomapsim can be given in $IOMAPSIM_BENCH_OPTS.
set -euo pipefail

build=$(realpath "${1:?usage: $0 BUILD_DIR [SECONDS] [ROUNDS]}")
secs=${2:-10}
rounds=${3:-3}
[[ $secs =~ ^[1-9][0-9]*$ && $rounds =~ ^[1-9][0-9]*$ ]] || {
	echo "bench: SECONDS and ROUNDS must be positive integers" >&2
	exit 1
}
bin=$build/iomapsim
ex=/usr/share/doc/libfuse3-dev/examples
size_mb=256

for t in fio fusermount3 gcc pkg-config python3; do
	command -v $t >/dev/null || { echo "bench: needs $t" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "bench: no $bin (build first)" >&2; exit 1; }
[ -f $ex/passthrough_ll.c ] || {
	echo "bench: no $ex/passthrough_ll.c (Debian package libfuse3-dev)" >&2
	exit 1
}

# passthrough_ll from the installed libfuse's examples, unchanged
pll=$build/passthrough_ll
if [ ! -x "$pll" ] || [ $ex/passthrough_ll.c -nt "$pll" ]; then
	gcc -O2 -Wall -I$ex -o "$pll" $ex/passthrough_ll.c \
		$(pkg-config --cflags --libs fuse3)
fi

work=$(mktemp -d "${IOMAPSIM_BENCH_DIR:-/var/tmp}/iomapsim-bench-XXXXXX")
src=$work/src		# passthrough_ll's source directory
img=$src/image		# the one backing file both serve
m_sim=$work/sim
m_pll=$work/pll
mkdir -p "$src" "$m_sim" "$m_pll"
cleanup() {
	fusermount3 -u "$m_sim" 2>/dev/null || true
	fusermount3 -u "$m_pll" 2>/dev/null || true
	sleep 0.2
	rm -rf "$work"
}
trap cleanup EXIT

"$bin" mkfs "$img" --size 1g >/dev/null
"$bin" mount -o "commit=0${IOMAPSIM_BENCH_OPTS:+,$IOMAPSIM_BENCH_OPTS}" \
	"$img" "$m_sim" >/dev/null
# the data: one file of $size_mb MiB written through the mount
fio --name=fill --filename="$m_sim/data" --direct=1 --rw=write --bs=1m \
	--size=${size_mb}m --ioengine=psync --output=/dev/null
"$pll" -o source="$src",cache=never "$m_pll"

fio_iops() { # FILE ENGINE DEPTH [extra fio options]
	local file=$1 engine=$2 depth=$3
	shift 3
	fio --name=bench --filename="$file" --direct=1 --rw=randread --bs=4k \
		--size=${size_mb}m --ioengine="$engine" --iodepth="$depth" \
		--runtime="$secs" --ramp_time=1 --time_based \
		--randrepeat=0 --norandommap "$@" --output-format=json |
		python3 -c 'import json,sys; print(int(json.load(sys.stdin)["jobs"][0]["read"]["iops"]))'
}

median() { # PRINTF_FORMAT numbers...
	local fmt=$1
	shift
	printf '%s\n' "$@" | sort -g | awk -v fmt="$fmt" '
		{ v[NR] = $1 }
		END {
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf fmt, m
		}'
}

declare -A res all
for depth in 1 64; do
	if [ $depth = 1 ]; then engine=psync; else engine=io_uring; fi
	sims=() plls=() ratios=()
	for ((r = 0; r < rounds; r++)); do
		s=$(fio_iops "$m_sim/data" $engine $depth)
		# the image's first $size_mb MiB: the same file and span
		p=$(fio_iops "$m_pll/image" $engine $depth)
		sims+=("$s")
		plls+=("$p")
		ratios+=("$(python3 -c "print(f'{$s/$p:.3f}' if $p else 0)")")
	done
	res[sim,$depth]=$(median %d "${sims[@]}")
	res[pll,$depth]=$(median %d "${plls[@]}")
	res[ratio,$depth]=$(median %.2f "${ratios[@]}")
	all[sim,$depth]="${sims[*]}"
	all[pll,$depth]="${plls[*]}"
	all[ratio,$depth]="${ratios[*]}"
done

echo "4 KiB O_DIRECT random reads, ${secs} s each, ${size_mb} MiB span," \
	"backing file $img; median of $rounds rounds, taking turns"
printf '%-28s %12s %16s %8s\n' "" "iomapsim" "passthrough_ll" "ratio"
for depth in 1 64; do
	if [ $depth = 1 ]; then what="QD1 (psync)"; else what="QD64 (io_uring)"; fi
	printf '%-28s %12s %16s %8s\n' "$what IOPS" "${res[sim,$depth]}" \
		"${res[pll,$depth]}" "${res[ratio,$depth]}"
done
echo
for depth in 1 64; do
	echo "QD$depth rounds: iomapsim ${all[sim,$depth]}; passthrough_ll" \
		"${all[pll,$depth]}; ratios ${all[ratio,$depth]}"
done
echo
echo "iomapsim counters for the run:"
"$bin" stats "$m_sim" | grep -E '^(iomap_simple_hits|iomap_simple_fallback_|bio_cache_hit|bio_cache_miss|iomap_dio_queued|fuse_reply_from_completion)' || true
