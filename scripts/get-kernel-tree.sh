#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/get-kernel-tree.sh [--full] [--force] [--version VER] TREE DIR
#   TREE: debian-6.12, debian-6.1 or debian-newest
#
# A sparse kernel tree for kernel-source mode (cmake -DIOMAPSIM_KERNEL_TREE=DIR)
# from Debian's linux-source-6.12 or linux-source-6.1 package: only
# fs/iomap/direct-io.c, fs/iomap/iter.c and include/linux/iomap.h, at their
# kernel paths under DIR, byte for byte as the package ships them.  Prints
# the package version and each file's bytes and sha256, and writes the same
# table with the origin to DIR/README.md, so that tests/ksrc/checksums.sh
# takes DIR as a fixture.
#
# debian-newest is the highest linux-source-SERIES of Debian unstable (7.x
# at the time of writing): the machine's sources are Debian 12 only, so it
# is fetched through a private apt configuration under
# ~/.cache/iomapsim/apt-sid (IOMAPSIM_CACHE moves ~/.cache/iomapsim),
# checked with the system's Debian archive keyring; the system's sources
# and package lists are never touched.
#
#   --full         the whole tree, not the three files: what a kernel build
#                  needs (scripts/uml-kernel.sh builds on it).  DIR gets the
#                  package's tree as is, plus DIR/.iomapsim-origin (package,
#                  version, the .deb's sha256); no README.md is written, the
#                  tree has its own
#   --version VER  that package version (apt-cache policy lists the ones
#                  the mirror still has), not the candidate
#   --force        write into a DIR that is not empty (replaces those four
#                  files, leaves anything else)
#
# apt-get download needs no root; if the package lists lack the package,
# root refreshes them (apt-get update), anyone else is told to.
set -euo pipefail

prog=get-kernel-tree.sh
# shellcheck source-path=SCRIPTDIR source=lib/linux-source-deb.sh
. "$(dirname "$0")/lib/linux-source-deb.sh"

usage="usage: $prog [--full] [--force] [--version VER] debian-6.12|debian-6.1|debian-newest DIR"
files=(fs/iomap/direct-io.c fs/iomap/iter.c include/linux/iomap.h)
full=
rest=()
for a; do
	if [ "$a" = --full ]; then full=1; else rest+=("$a"); fi
done
lsd_options "$usage" 1 ${rest[@]+"${rest[@]}"}
[ ${#args[@]} -eq 2 ] || die "$usage"
case ${args[0]} in
debian-6.12 | debian-6.1) series=${args[0]#debian-} ;;
debian-newest)
	lsd_sid "${IOMAPSIM_CACHE:-$HOME/.cache/iomapsim}/apt-sid"
	series=$(lsd_newest_series)
	[ -n "$series" ] || die "Debian unstable lists no linux-source-SERIES package"
	;;
*) die "unknown tree '${args[0]}' (debian-6.12, debian-6.1 or debian-newest); $usage" ;;
esac
dir=${args[1]}
pkg=linux-source-$series

if [ -e "$dir" ] && [ ! -d "$dir" ]; then
	die "$dir exists and is not a folder"
fi
if [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] && [ -z "$force" ]; then
	die "$dir is not empty (--force writes the tree's files into it)"
fi

if [ -n "$full" ]; then
	# unpack next to DIR, so that the finished tree is moved in by rename
	mkdir -p "$(dirname "$dir")"
	tmp=$(mktemp -d "$(dirname "$dir")/.get-kernel-tree.XXXXXX")
else
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/get-kernel-tree.XXXXXX")
fi
trap 'rm -rf "$tmp"' EXIT

lsd_fetch "$pkg" "$want_version" "$tmp"
if [ -n "$full" ]; then
	deb_sum=$(sha256sum "$lsd_deb" | cut -d' ' -f1)
	lsd_extract_all "$lsd_deb" "$series" "$tmp/tree"
	[ -f "$tmp/tree/Makefile" ] || die "$pkg $lsd_version unpacked no Makefile"
	printf 'package %s\nversion %s\ndeb %s\nsha256 %s\n' "$pkg" \
		"$lsd_version" "$(basename "$lsd_deb")" "$deb_sum" \
		>"$tmp/tree/.iomapsim-origin"
	if [ -d "$dir" ]; then
		# --force: the old tree goes whole; a half-merged tree builds nothing
		mv "$dir" "$tmp/old"
	fi
	mv "$tmp/tree" "$dir"
	echo "$pkg $lsd_version (package sha256 $deb_sum) -> $dir (full tree)"
	{
		echo "| file | bytes | sha256 |"
		echo "|---|---|---|"
		for f in "${files[@]}"; do
			lsd_row "$dir/$f" "$f"
		done
	}
	exit 0
fi
lsd_extract "$lsd_deb" "$series" "$tmp/tree" "${files[@]}"
for f in "${files[@]}"; do
	[ -f "$tmp/tree/$f" ] || die "$pkg $lsd_version has no $f"
done

{
	echo "| file | bytes | sha256 |"
	echo "|---|---|---|"
	for f in "${files[@]}"; do
		lsd_row "$tmp/tree/$f" "$f"
	done
} >"$tmp/table"
deb_sum=$(sha256sum "$lsd_deb" | cut -d' ' -f1)
cat >"$tmp/tree/README.md" <<EOF
# $pkg $lsd_version

A sparse kernel tree for iomapsim's kernel-source mode: only the files that
mode compiles or includes, at their kernel paths, byte for byte as Debian's
package \`$pkg\` version \`$lsd_version\` (\`$(basename "$lsd_deb")\`,
sha256 $deb_sum) ships them in \`usr/src/$pkg.tar.xz\`.
Written by \`scripts/get-kernel-tree.sh debian-$series DIR\`.

$(cat "$tmp/table")
EOF

# everything is staged: only now touch DIR
mkdir -p "$dir"
for f in "${files[@]}" README.md; do
	mkdir -p "$dir/$(dirname "$f")"
	cp "$tmp/tree/$f" "$dir/$f.tmp.$$"
	mv -f "$dir/$f.tmp.$$" "$dir/$f"
done

echo "$pkg $lsd_version (package sha256 $deb_sum) -> $dir"
cat "$tmp/table"
