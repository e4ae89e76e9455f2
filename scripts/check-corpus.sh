#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/check-corpus.sh [options] DIR...: scripts/check-tree.sh on every
# tree, and one matrix of what it said.
#
# Each DIR is a kernel tree (fs/iomap/direct-io.c, fs/iomap/iter.c and
# include/linux/iomap.h at their kernel paths; one with direct-io.c alone
# gets the page that refuses it) or a folder of them, such
# as the corpus scripts/make-corpus.sh makes.  Trees whose three files are
# byte for byte the same are checked once: the others' pages say so and
# carry the first one's.  Several trees are checked at once where memory
# allows (each build wants about 2 GiB); build folders are reused.
#
# Under OUT (default build-corpus/): pages/NAME.txt (the page),
# pages/NAME.ktap, pages/NAME.rc (check-tree's exit status), matrix.md
# (tree x verdict counts, fuzz result, tree-diff groups, findings
# carried) and matrix.png (which tree carries which finding, which rules
# are CHANGED or N/A: scripts/corpus-matrix.py).
#
#   --fuzz SECONDS    fuzz_dio time per tree (default 60; 0: none)
#   --count N         tree-diff requests per tree (default 30000; 0: none)
#   --suite REGEX     only the tests whose names match (ctest -R)
#   --parallel N      trees checked at once (default: by cores and memory)
#   --out DIR         where the pages and the matrix go
#
# Exit status: the highest of the trees' (check-tree.sh: 0 clean,
# 1 findings, 2 error), or 2 for bad usage.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
prog=check-corpus.sh
fuzz=60
count=30000
suite=
parallel=
out=$top/build-corpus
dirs=()

die() {
	echo "$prog: $*" >&2
	exit 2
}

number() {
	case $2 in '' | *[!0-9]*) die "$1 $2: not a number" ;; esac
}

while [ $# -gt 0 ]; do
	case $1 in
	--fuzz | --count | --suite | --parallel | --out)
		[ $# -ge 2 ] || die "$1 needs a value"
		case $1 in
		--fuzz) number "$1" "$2" && fuzz=$2 ;;
		--count) number "$1" "$2" && count=$2 ;;
		--parallel) number "$1" "$2" && parallel=$2 ;;
		--suite) suite=$2 ;;
		--out) out=$2 ;;
		esac
		shift
		;;
	-h | --help)
		awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"
		exit 0
		;;
	-*) die "unknown option '$1' (try --help)" ;;
	*) dirs+=("$1") ;;
	esac
	shift
done
[ ${#dirs[@]} -gt 0 ] || die "usage: $prog [--fuzz S] [--count N] [--suite REGEX] [--parallel N] [--out DIR] DIR..."

# a tree with direct-io.c alone is one too: check-tree.sh refuses it by
# name on its page (too old, or a piece missing)
is_tree() {
	[ -f "$1/fs/iomap/direct-io.c" ]
}

trees=()
for d in "${dirs[@]}"; do
	[ -d "$d" ] || die "$d: not a folder"
	if is_tree "$d"; then
		trees+=("$(cd "$d" && pwd -P)")
		continue
	fi
	n=0
	for t in "$d"/*/; do
		if is_tree "$t"; then
			trees+=("$(cd "$t" && pwd -P)")
			n=$((n + 1))
		fi
	done
	[ $n -gt 0 ] || die "$d: neither a kernel tree nor a folder of them"
done

mkdir -p "$out/pages" "$out/checks" 2>/dev/null || die "cannot make $out"
out=$(cd "$out" && pwd)

if [ -z "$parallel" ]; then
	cores=$(nproc 2>/dev/null || echo 1)
	mem=$(awk '/^MemAvailable:/ { print int($2 / 2097152) }' /proc/meminfo)
	parallel=$((cores < mem ? cores : mem))
	[ "$parallel" -ge 1 ] || parallel=1
fi

# the first tree of each content checks; the rest point at it
declare -A first_of
todo=()
: >"$out/trees.tsv"
for t in "${trees[@]}"; do
	name=$(basename "$t")
	sum=$(cd "$t" && for f in fs/iomap/direct-io.c fs/iomap/iter.c \
		include/linux/iomap.h; do
		[ ! -f "$f" ] || sha256sum "$f"
	done | sha256sum | cut -c1-16)
	if [ -n "${first_of[$sum]:-}" ]; then
		printf '%s\t%s\t%s\t%s\n' "$name" "$t" "$sum" "${first_of[$sum]}" >>"$out/trees.tsv"
		continue
	fi
	first_of[$sum]=$name
	printf '%s\t%s\t%s\t\n' "$name" "$t" "$sum" >>"$out/trees.tsv"
	todo+=("$t")
done
echo "$prog: ${#trees[@]} trees, ${#todo[@]} different, $parallel at a time" >&2

# check TREE: its page, KTAP and exit status under $out/pages
check() {
	local t=$1 name rc=0
	name=$(basename "$t")
	echo "$prog: checking $name" >&2
	"$top/scripts/check-tree.sh" "$t" --fuzz "$fuzz" --count "$count" \
		${suite:+--suite "$suite"} --build-root "$out/checks" \
		--ktap "$out/pages/$name.ktap" >"$out/pages/$name.txt" \
		2>"$out/pages/$name.log" || rc=$?
	echo "$rc" >"$out/pages/$name.rc"
	echo "$prog: $name: exit $rc" >&2
}

running=0
for t in "${todo[@]}"; do
	check "$t" &
	running=$((running + 1))
	if [ $running -ge "$parallel" ]; then
		wait -n || true
		running=$((running - 1))
	fi
done
wait || true

# the trees that share a content: a page of their own, saying so
while IFS='	' read -r name t sum first; do
	[ -n "$first" ] || continue
	{
		echo "iomapsim check of $t"
		echo "  its fs/iomap/direct-io.c, iter.c and include/linux/iomap.h are byte for"
		echo "  byte those of $first (sha256 of the three: $sum...): its page follows"
		echo
		cat "$out/pages/$first.txt"
	} >"$out/pages/$name.txt"
	cp "$out/pages/$first.ktap" "$out/pages/$name.ktap" 2>/dev/null || true
	cp "$out/pages/$first.rc" "$out/pages/$name.rc"
done <"$out/trees.tsv"

# Debian's python3, which has python3-matplotlib (quickstart.sh deps), for
# the picture; another python3 first on PATH may not have it
py=python3
[ ! -x /usr/bin/python3 ] || py=/usr/bin/python3
"$py" "$top/scripts/corpus-matrix.py" "$out" "$top" || {
	echo "$prog: no matrix (scripts/corpus-matrix.py failed)" >&2
	exit 2
}
cat "$out/matrix.md"

worst=0
for f in "$out"/pages/*.rc; do
	rc=$(cat "$f")
	[ "$rc" -le "$worst" ] || worst=$rc
done
exit "$worst"
