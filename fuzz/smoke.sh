#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fuzz/smoke.sh: a short, bounded libFuzzer run of every fuzz target, as
# the test command's last step (scripts/quickstart.sh test).  Not a timed
# test: it builds the targets with .clusterfuzzlite/build.sh (the script
# ClusterFuzzLite and OSS-Fuzz run) into build-fuzz-smoke/, then fuzzes
# each for FUZZ_SMOKE_SECONDS (default 10) from a copy of its seed corpus,
# and prints one line per target.  Exits 1 if a target fails to build or
# finds a crash or an oracle failure; prints SKIP and exits 0 when clang
# or libFuzzer is missing.
#
#   FUZZ_SMOKE_SECONDS=N   seconds per target (default 10)
#   FUZZ_SMOKE_DIR=DIR     build and scratch directory (build-fuzz-smoke)
#   IOMAPSIM_KERNEL_TREE=T fuzz a kernel tree's iomap code instead
#   FUZZ_SMOKE_TARGETS=... the targets (default all; fuzz_dio alone is the
#                          one that runs a tree's code)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${FUZZ_SMOKE_SECONDS:-10}
dir=${FUZZ_SMOKE_DIR:-$top/build-fuzz-smoke}

cc=${CC:-clang}
case $cc in *clang*) ;; *) cc=clang ;; esac
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "SKIP: clang/libFuzzer not available (no $cc)"
	exit 0
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ return 0; }\n' \
	>"$probe/p.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" \
	-o "$probe/p" >/dev/null 2>&1; then
	echo "SKIP: clang/libFuzzer not available ($cc cannot link -fsanitize=fuzzer)"
	exit 0
fi

mkdir -p "$dir/out" "$dir/work"
echo "fuzz smoke: building with .clusterfuzzlite/build.sh into $dir"
if ! CC=$cc \
	CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link" \
	LIB_FUZZING_ENGINE="-fsanitize=fuzzer" \
	SRC=$top WORK=$dir/work OUT=$dir/out IOMAPSIM_JOBS=2 \
	IOMAPSIM_FUZZ_TARGETS="${FUZZ_SMOKE_TARGETS:-}" \
	"$top/.clusterfuzzlite/build.sh" >"$dir/build.log" 2>&1; then
	cat "$dir/build.log"
	echo "FAIL: fuzz targets do not build (log: $dir/build.log)"
	exit 1
fi

status=0
for bin in "$dir"/out/fuzz_*; do
	case $bin in *.dict | *.options | *.zip) continue ;; esac
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	corpus=$dir/work/corpus-$name
	rm -rf "$corpus"
	mkdir -p "$corpus"
	python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
		"$bin"_seed_corpus.zip "$corpus"
	args=(-max_total_time="$secs" -timeout=20 -rss_limit_mb=2560
		-print_final_stats=1 -artifact_prefix="$dir/work/$name-")
	[ -f "$bin.dict" ] && args+=(-dict="$bin.dict")
	log=$dir/work/$name.log
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$bin" "${args[@]}" "$corpus" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
	if [ "$rc" -eq 0 ]; then
		echo "PASS: $name: ${runs:-?} runs in ${secs}s (${eps:-?} exec/s), ${cov:-no coverage line}"
	else
		echo "FAIL: $name: exit $rc after ${runs:-?} runs; log $log"
		grep -E -A4 'oracle failure|ERROR: (AddressSanitizer|libFuzzer)|runtime error|kernel BUG' \
			"$log" | head -20
		ls "$dir/work/$name-"* 2>/dev/null | sed 's/^/  reproducer: /'
		status=1
	fi
done
exit $status
