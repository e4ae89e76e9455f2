#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/tree-diff.sh [OPTIONS] A B: what does my patch change?
#
# A and B are each a kernel tree (a full Linux tree, or a sparse one with
# fs/iomap/direct-io.c, fs/iomap/iter.c and include/linux/iomap.h at their
# kernel paths) or the word "embedded" (iomapsim's own iomap/ copy).  Each
# is configured and built (kernel-source mode for a tree; build folders
# under build-diff/ are reused), the same request stream
# (scripts/gen-requests.py: a grid over the dimensions that matter, the
# fuzz corpus and the regression inputs) goes through `iomapsim batch` of
# both, and the outcomes are compared request by request
# (scripts/tree-diff-report.py): how many were compared, identical and
# different, how many one build cannot express, and the differences
# grouped by which outcome keys changed and how, each group with its count
# and its shortest request as an `iomapsim run` line, and why it differs:
# the behaviour change between releases that accounts for it, by the two
# builds' features (`iomapsim --version`; scripts/tree_diff_explain.py),
# or UNEXPLAINED -- a finding, or an explanation missing.
#
#   --json          the report as one JSON object (for tools)
#   --markdown      the report in Markdown (docs/releases.md is made of it)
#   --summary       Markdown: the counts and the release changes that
#                   explain the groups, how many each
#   --count N       requests from the generator (default 100000)
#   --keep DIR      keep the request stream and both outputs in DIR
#   --build-root D  where the build folders go (default build-diff/)
#
# Exit status: 0 no difference, 1 differences, 2 error.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
format=
count=100000
keep=
root=$top/build-diff

prog="tree-diff"
# shellcheck source-path=SCRIPTDIR source=lib/tree-opts.sh
. "$top/scripts/lib/tree-opts.sh"

# the options come before the two trees
tree_opt() {
	case $1 in
	--json | --markdown | --summary)
		format=$1
		shifted=1
		;;
	--keep)
		tree_opt_value "a folder" "$@"
		keep=$2
		;;
	esac
}

tree_parse_opts "$@"
shift "$opts_used"
[ $# -eq 2 ] || die "want two trees: tree-diff.sh [OPTIONS] A B (a kernel tree path or 'embedded')"
case $count in '' | *[!0-9]*) die "--count $count: not a number" ;; esac

# what a tree argument names: "embedded", or the tree's absolute path
resolve() {
	if [ "$1" = embedded ]; then
		echo embedded
		return
	fi
	[ -d "$1" ] || die "$1: not a folder (want a kernel tree or 'embedded')"
	local f
	for f in fs/iomap/direct-io.c fs/iomap/iter.c include/linux/iomap.h; do
		[ -f "$1/$f" ] || die "$1: no $f (want a kernel tree or 'embedded')"
	done
	(cd "$1" && pwd -P)
}

# the build folder of a tree: one per tree path, kept between runs
build_dir() {
	if [ "$1" = embedded ]; then
		echo "$root/embedded"
	else
		echo "$root/tree-$(printf '%s' "$1" | sha256sum | cut -c1-12)"
	fi
}

build() {
	local tree=$1 dir log
	dir=$(build_dir "$tree")
	log="$dir.log"
	mkdir -p "$dir"
	local opt=-DIOMAPSIM_KERNEL_TREE=
	[ "$tree" = embedded ] || opt="-DIOMAPSIM_KERNEL_TREE=$tree"
	echo "tree-diff: building $tree in ${dir#"$top"/}" >&2
	if ! { cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$opt" &&
		cmake --build "$dir" -j"$jobs" --target iomapsim fuzz_replay_dio; } \
		>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "$tree: the build failed (whole log: $log)"
	fi
}

a=$(resolve "$1")
b=$(resolve "$2")
build "$a"
[ "$(build_dir "$b")" = "$(build_dir "$a")" ] || build "$b"
bin_a=$(build_dir "$a")/iomapsim
bin_b=$(build_dir "$b")/iomapsim

if [ -n "$keep" ]; then
	mkdir -p "$keep"
	work=$(cd "$keep" && pwd)
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
python3 "$top/scripts/gen-requests.py" --count "$count" \
	--replay "$(build_dir "$a")/fuzz/fuzz_replay_dio" >"$work/requests.txt" ||
	die "the request generator failed"
nreq=$(grep -cv '^#' "$work/requests.txt" || true)
echo "tree-diff: $nreq requests through both builds" >&2
# A livelocked request (a patch that loops) would stop the diff for ever:
# each batch gets 20 minutes, 200 times what 100,000 requests take here.
batch() {
	local rc=0
	timeout 1200 "$1" batch <"$work/requests.txt" >"$2" || rc=$?
	[ $rc -ne 124 ] || die "$1 batch: still running after 20 minutes (a request loops?); last answered: $(tail -c 200 "$2")"
	[ $rc -eq 0 ] || die "$1 batch failed (exit $rc)"
}
batch "$bin_a" "$work/a.jsonl"
batch "$bin_b" "$work/b.jsonl"

name() {
	if [ "$1" = embedded ]; then
		echo "embedded (iomap/direct-io.c, iomap/iter.c): $2"
	else
		echo "$1: $2"
	fi
}
# the words after "features:" in the build's --version line
features() {
	local f
	f=$("$1" --version | sed -n 's/.*features: //p')
	[ -n "$f" ] || die "$1 --version names no features"
	echo "$f"
}
rc=0
python3 "$top/scripts/tree-diff-report.py" ${format:+"$format"} \
	--name-a "$(name "$a" "$bin_a")" --name-b "$(name "$b" "$bin_b")" \
	--features-a "$(features "$bin_a")" --features-b "$(features "$bin_b")" \
	"$work/requests.txt" "$work/a.jsonl" "$work/b.jsonl" || rc=$?
exit $rc
