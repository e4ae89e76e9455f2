#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/get-kernel-tree.sh [--force] [--version VER] debian-6.12|debian-6.1 DIR
#
# A sparse kernel tree for kernel-source mode (cmake -DIOMAPSIM_KERNEL_TREE=DIR)
# from Debian's linux-source-6.12 or linux-source-6.1 package: only
# fs/iomap/direct-io.c, fs/iomap/iter.c and include/linux/iomap.h, at their
# kernel paths under DIR, byte for byte as the package ships them.  Prints
# the package version and each file's bytes and sha256, and writes the same
# table with the origin to DIR/README.md, so that tests/ksrc/checksums.sh
# takes DIR as a fixture.
#
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

usage="usage: $prog [--force] [--version VER] debian-6.12|debian-6.1 DIR"
files=(fs/iomap/direct-io.c fs/iomap/iter.c include/linux/iomap.h)
lsd_options "$usage" 1 "$@"
[ ${#args[@]} -eq 2 ] || die "$usage"
case ${args[0]} in
debian-6.12 | debian-6.1) series=${args[0]#debian-} ;;
*) die "unknown tree '${args[0]}' (debian-6.12 or debian-6.1); $usage" ;;
esac
dir=${args[1]}
pkg=linux-source-$series

if [ -e "$dir" ] && [ ! -d "$dir" ]; then
	die "$dir exists and is not a folder"
fi
if [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] && [ -z "$force" ]; then
	die "$dir is not empty (--force writes the tree's files into it)"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/get-kernel-tree.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

lsd_fetch "$pkg" "$want_version" "$tmp"
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
