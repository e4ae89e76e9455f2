#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Requests per second of `iomapsim batch` on one core, over the request
# stream scripts/tree-diff.sh feeds it (scripts/gen-requests.py, default
# 100,000 requests plus the fuzz corpus and regression inputs).  A
# benchmark, not a test: the figure depends on the machine.
#
#   bench/batch-rate.sh BUILD_DIR [ROUNDS] [COUNT]
#
# Each round runs the whole stream pinned to the last CPU (taskset); the
# script prints every round's rate and their median.  BUILD_DIR is best a
# Release build (cmake -DCMAKE_BUILD_TYPE=Release).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:?usage: $0 BUILD_DIR [ROUNDS] [COUNT]}")
rounds=${2:-3}
count=${3:-100000}
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$top/bench/lib.sh"
bench_positive "ROUNDS and COUNT" "$rounds" "$count"
bin=$build/iomapsim
[ -x "$bin" ] || { echo "bench: $bin is not built" >&2; exit 1; }
cpu=$(($(nproc) - 1))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

replay=()
[ -x "$build/fuzz/fuzz_replay_dio" ] &&
	replay=(--replay "$build/fuzz/fuzz_replay_dio")
python3 "$top/scripts/gen-requests.py" --count "$count" "${replay[@]}" \
	>"$work/requests.txt"
n=$(grep -cv '^#' "$work/requests.txt")
echo "batch-rate: $n requests, $rounds round(s), pinned to CPU $cpu, load $(cut -d' ' -f1-3 /proc/loadavg)"
rates=()
for r in $(seq "$rounds"); do
	start=$(date +%s.%N)
	taskset -c "$cpu" "$bin" batch <"$work/requests.txt" >"$work/out.jsonl"
	end=$(date +%s.%N)
	got=$(wc -l <"$work/out.jsonl")
	[ "$got" -eq "$n" ] || { echo "bench: $got outcomes for $n requests" >&2; exit 1; }
	rate=$(python3 -c "print(int($n / ($end - $start)))")
	rates+=("$rate")
	printf 'round %d: %d requests/s (%.2f s)\n' "$r" "$rate" \
		"$(python3 -c "print($end - $start)")"
done
printf '%s\n' "${rates[@]}" | sort -n |
	awk '{ v[NR] = $1 } END { printf "median: %d requests/s\n", v[int((NR + 1) / 2)] }'
