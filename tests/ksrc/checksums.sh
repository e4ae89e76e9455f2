#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# checksums.sh TREE BUILD IOMAPSIM
#
# Kernel-source mode: the kernel files this build compiled are the tree's
# as published.  The fixtures' README (../shared/kernel/README.md, a
# section "## <tree folder>" per tree; or a README.md inside the tree)
# lists them with bytes and sha256; each must equal the copy the build
# compiled (BUILD/ksrc/<path>) and the sum `iomapsim --version` reports.
# A tree without such a table is not a fixture: skipped (77).
set -eu
tree=$1
build=$2
iomapsim=$3

row='^\| [a-z].*\| [0-9]+ \| [0-9a-f]{64} \|$'
rows=$(grep -E "$row" "$tree/README.md" 2>/dev/null || true)
if [ -z "$rows" ]; then
	# the section of the folder's name in the README beside it
	rows=$(awk -v s="## $(basename "$tree")" \
		'/^## / { on = ($0 == s) } on' "$tree/../README.md" 2>/dev/null |
		grep -E "$row" || true)
fi
if [ -z "$rows" ]; then
	echo "SKIP: no README table of $tree's kernel files and sha256 (not a fixture tree)"
	exit 77
fi
version=$("$iomapsim" --version)
n=0
fail=0
echo "$rows" | {
	while IFS='|' read -r _ path bytes sum _; do
		path=$(echo "$path" | tr -d ' ')
		bytes=$(echo "$bytes" | tr -d ' ')
		sum=$(echo "$sum" | tr -d ' ')
		n=$((n + 1))
		got=$(sha256sum "$build/ksrc/$path" | cut -d' ' -f1)
		size=$(wc -c <"$build/ksrc/$path")
		if [ "$got" != "$sum" ] || [ "$size" -ne "$bytes" ]; then
			echo "MISMATCH $path: compiled $got ($size bytes), README $sum ($bytes bytes)"
			fail=$((fail + 1))
		fi
		case $version in
		*"$path sha256 $sum"*) ;;
		*)
			echo "MISMATCH $path: iomapsim --version does not report sha256 $sum"
			fail=$((fail + 1)) ;;
		esac
	done
	if [ "$fail" -ne 0 ]; then
		exit 1
	fi
	echo "checksums: $n kernel file(s) compiled as the README of $tree lists them"
}
