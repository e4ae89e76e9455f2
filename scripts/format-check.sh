#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/format-check.sh [--fix] [FILES...]
#
# clang-format (the repository's .clang-format, kernel style) over the
# simulator's own C code: sim/ (but its kernel-shaped headers,
# sim/include/linux/), fs/, tools/, tests/, fuzz/ and bench/.  iomap/
# and block/ are the kernel-shaped layers: they keep the layout of the
# kernel files they stand for, which clang-format does not reproduce
# (tab-aligned #defines, the kernel's line breaks in long calls), and
# scripts/checkpatch.sh checks them as the kernel checks its own code.
# FILES default to all of the above that git tracks.
#
# Prints each file that differs with clang-format's first complaints;
# --fix rewrites them instead.
#
# Exit status: 0 clean (or fixed), 1 some file differs, 2 bad arguments,
# 77 clang-format cannot be run (the reason is printed).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
fix=false
if [ "${1:-}" = --fix ]; then
	fix=true
	shift
fi
case "${1:-}" in
-*)
	echo "usage: scripts/format-check.sh [--fix] [FILES...]" >&2
	exit 2
	;;
esac

if ! command -v clang-format >/dev/null; then
	echo "SKIP: clang-format is not installed (scripts/quickstart.sh deps installs it)"
	exit 77
fi

cd "$top"
# shellcheck source-path=SCRIPTDIR source=lib/c-files.sh
. scripts/lib/c-files.sh
c_files 'sim/*.[ch]' ':(exclude)sim/include/linux/' 'fs/*.[ch]' \
	'tools/*.[ch]' 'tests/*.[ch]' 'fuzz/*.[ch]' 'bench/*.[ch]' -- "$@"
if [ ${#files[@]} -eq 0 ]; then
	echo "format-check: no files (not a git checkout?)" >&2
	exit 2
fi

bad=0
for f in "${files[@]}"; do
	if [ ! -f "$f" ]; then
		echo "format-check: $f: no such file" >&2
		exit 2
	fi
	if $fix; then
		clang-format -i "$f"
		continue
	fi
	if ! out=$(clang-format --dry-run --Werror "$f" 2>&1); then
		bad=$((bad + 1))
		echo "$out" | grep -m 3 'error:' || echo "$f: differs"
	fi
done
if $fix; then
	echo "format-check: ${#files[@]} files formatted"
	exit 0
fi
echo "format-check: ${#files[@]} files, $bad not clang-format clean"
[ "$bad" -eq 0 ]
