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
# scripts/tree-diff.sh --real [--kernel LINUX] [--fs LIST] [OPTIONS] [TREE]:
# does the simulator on TREE answer as the kernel built from TREE does?
# sim(TREE) is `iomapsim batch` in kernel-source mode on TREE; real(TREE)
# is the same request stream run as system calls on XFS and ext4 inside
# the UML kernel LINUX (scripts/uml-batch.sh, tests/real/real-batch.c).
# They are compared on the outcome keys both have (ret, ki_pos,
# iter_count, data); what the real side cannot express (injected faults,
# mapping flags, dio flags and ops, kvec, seeds, 64 KiB blocks)
# is counted apart by reason; each group of differences is explained by
# a difference by design (docs/rules.md 3.R) or a finding the kernel
# carries (docs/findings/), or reported UNEXPLAINED.  One report per
# file system.
#
#   --real          compare with a real kernel (needs root and UML)
#   --kernel LINUX  the UML kernel (default: Debian's /usr/bin/linux.uml);
#                   without TREE, the tree it was built from (Debian's
#                   linux-source at its version, fetched once)
#   --fs LIST       xfs, ext4 or both (default xfs,ext4)
#
#   --json          the report as one JSON object (for tools; with --real
#                   one per file system, one after the other)
#   --markdown      the report in Markdown (docs/releases.md is made of it)
#   --summary       Markdown: the counts and the release changes that
#                   explain the groups, how many each
#   --count N       requests from the generator (default 100000)
#   --keep DIR      keep the request stream and both outputs in DIR
#   --build-root D  where the build folders go (default build-diff/)
#
# Exit status: 0 no difference, 1 differences, 2 error; with --real, 77
# when root or UML is missing (one line says what).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
format=
count=100000
keep=
root=$top/build-diff
real=
kernel=/usr/bin/linux.uml
fss=xfs,ext4

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
	--real)
		real=1
		shifted=1
		;;
	--kernel)
		tree_opt_value "a UML kernel" "$@"
		kernel=$2
		;;
	--fs)
		tree_opt_value "xfs, ext4 or both" "$@"
		fss=$2
		;;
	esac
}

tree_parse_opts "$@"
shift "$opts_used"
[ -n "$real" ] || [ $# -eq 2 ] || die "want two trees: tree-diff.sh [OPTIONS] A B (a kernel tree path or 'embedded')"
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
	# shellcheck disable=SC2046 # real_batch, or no word at all
	if ! { cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$opt" &&
		cmake --build "$dir" -j"$jobs" --target iomapsim fuzz_replay_dio \
			$([ -z "$real" ] || echo real_batch); } \
		>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "$tree: the build failed (whole log: $log)"
	fi
}

name() {
	if [ "$1" = embedded ]; then
		echo "embedded (iomap/direct-io.c, iomap/iter.c): $2"
	else
		echo "$1: $2"
	fi
}

# the request stream into $work/requests.txt, with the fuzz corpus
# replayed by TREE's build, and $nreq, how many requests it has; $work is
# the --keep folder, or a temporary one removed on exit
requests() {
	if [ -n "$keep" ]; then
		mkdir -p "$keep"
		work=$(cd "$keep" && pwd)
	else
		work=$(mktemp -d)
		trap 'rm -rf "$work"' EXIT
	fi
	python3 "$top/scripts/gen-requests.py" --count "$count" \
		--replay "$(build_dir "$1")/fuzz/fuzz_replay_dio" \
		>"$work/requests.txt" || die "the request generator failed"
	nreq=$(grep -cv '^#' "$work/requests.txt" || true)
}

if [ -n "$real" ]; then
	[ $# -le 1 ] || die "want at most one tree with --real: tree-diff.sh --real [OPTIONS] [TREE]"
	# shellcheck source-path=SCRIPTDIR source=lib/uml.sh
	. "$top/scripts/lib/uml.sh"
	uml_need "$prog" "$kernel"
	if [ $# -eq 0 ]; then
		# a subshell: its exit 77 comes back as its status
		t=$(uml_kernel_tree "$prog" "$kernel" "$top") || {
			rc=$?
			echo "$t"
			exit $rc
		}
		set -- "$t"
	fi
	t=$(resolve "$1")
	build "$t"
	bin=$(build_dir "$t")/iomapsim
	requests "$t"
	echo "tree-diff: $nreq requests through the simulator and through $kernel" >&2
	start=$(date +%s)
	timeout 1200 "$bin" batch <"$work/requests.txt" >"$work/sim.jsonl" ||
		die "$bin batch failed"
	echo "tree-diff: the simulator's batch in $(($(date +%s) - start)) s" >&2
	"$top/scripts/uml-batch.sh" --kernel "$kernel" --fs "$fss" \
		--build "$(build_dir "$t")" "$work/requests.txt" "$work" ||
		die "the real kernel's batch failed (scripts/uml-batch.sh)"
	kver=$("$kernel" --version 2>/dev/null | head -n 1)
	rc=0
	for fs in ${fss//,/ }; do
		r=0
		python3 "$top/scripts/tree-diff-report.py" ${format:+"$format"} \
			--real "$fs" --name-a "$(name "$t" "$bin")" \
			--name-b "real: UML $kver ($kernel), $fs on ubd, $(cat "$work/real-$fs.ms") ms" \
			"$work/requests.txt" "$work/sim.jsonl" "$work/real-$fs.jsonl" || r=$?
		[ "$r" -le "$rc" ] || rc=$r
		[ "$format" = --json ] || echo
	done
	exit $rc
fi

a=$(resolve "$1")
b=$(resolve "$2")
build "$a"
[ "$(build_dir "$b")" = "$(build_dir "$a")" ] || build "$b"
bin_a=$(build_dir "$a")/iomapsim
bin_b=$(build_dir "$b")/iomapsim

requests "$a"
echo "tree-diff: $nreq requests through both builds" >&2
# A livelocked request (a patch that loops) would stop the diff for ever:
# each batch gets 20 minutes, 200 times what 100,000 requests take here.
# A request that oopses the code (kernel BUG: the simulated task dies, as
# finding 0006's NULL workqueue does) ends that batch: it is recorded as
# {"line":N,"oops":"..."} and the batch goes on after it, the lines before
# commented out so that every outcome keeps its input line; at most 1000
# (each restart has no workqueue an earlier request made, so one such
# bug can take the requests after it down too).
batch() {
	local rc in=$work/requests.txt left=$work/left.txt n oopses=0 last
	: >"$2"
	while :; do
		rc=0
		timeout 1200 "$1" batch <"$in" >>"$2" 2>"$work/batch.err" || rc=$?
		[ $rc -ne 124 ] || die "$1 batch: still running after 20 minutes (a request loops?); last answered: $(tail -c 200 "$2")"
		[ $rc -ne 0 ] || return 0
		last=$(tail -n 1 "$2" | sed -n 's/^{"line":\([0-9]*\),.*/\1/p')
		n=$(awk -v after="${last:-0}" 'NR > after && !/^#/ && NF { print NR; exit }' "$work/requests.txt")
		grep -q 'kernel BUG' "$work/batch.err" && [ -n "$n" ] &&
			[ $oopses -lt 1000 ] ||
			die "$1 batch failed (exit $rc): $(grep -m1 . "$work/batch.err")"
		oopses=$((oopses + 1))
		# the report without the file and line, JSON-escaped
		printf '{"line":%s,"oops":"%s"}\n' "$n" "$(grep -m1 'kernel BUG' \
			"$work/batch.err" | sed -e 's/ at [^ ]*:[0-9]* / /' \
			-e 's/[\\"]/\\&/g')" >>"$2"
		awk -v upto="$n" 'NR <= upto { print "# " $0; next } { print }' \
			"$work/requests.txt" >"$left"
		in=$left
	done
}
batch "$bin_a" "$work/a.jsonl"
batch "$bin_b" "$work/b.jsonl"

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
