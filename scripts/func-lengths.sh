#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/func-lengths.sh [-n N] [-a] [FILES...]
#
# Lists the C functions longer than N lines (default 120), longest first,
# one a line: LINES FILE:LINE NAME.  A function's length runs from the
# line its definition starts on (the one holding its name) to its closing
# brace, as universal-ctags records them (end: field).  A Check test's
# START_TEST(name) body is listed as START_TEST.
#
# FILES default to the project's own C code that git tracks: sim/, block/,
# iomap/, fs/, tools/, fuzz/, tests/ and bench/.  The kernel's own functions are left
# out unless -a is given: iomap/direct-io.c and iomap/iter.c are the
# files a kernel-source build replaces with a tree's (principle 7 in
# docs/architecture.md), so they keep the kernel's functions as the
# kernel writes them.  iomap/direct-io-next.c, which includes
# direct-io.c, is ours and is measured.
#
# Exit status: 0 none over N, 1 some over N, 2 bad arguments, 77 ctags
# cannot be run (the reason is printed).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
max=120
all=false
while [ $# -gt 0 ]; do
	case $1 in
	-n)
		[ $# -ge 2 ] || {
			echo "func-lengths: -n needs a number" >&2
			exit 2
		}
		max=$2
		shift 2
		;;
	-a)
		all=true
		shift
		;;
	--)
		shift
		break
		;;
	-*)
		echo "usage: scripts/func-lengths.sh [-n N] [-a] [FILES...]" >&2
		exit 2
		;;
	*) break ;;
	esac
done
case $max in
'' | *[!0-9]*)
	echo "func-lengths: -n $max: not a number" >&2
	exit 2
	;;
esac

if ! ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
	echo "SKIP: universal-ctags is not installed (apt-get install universal-ctags)"
	exit 77
fi

cd "$top"
# shellcheck source-path=SCRIPTDIR source=lib/c-files.sh
. scripts/lib/c-files.sh
c_files 'sim/*.[ch]' 'block/*.[ch]' 'iomap/*.[ch]' 'fs/*.[ch]' \
	'tools/*.[ch]' 'fuzz/*.[ch]' 'tests/*.[ch]' 'bench/*.[ch]' -- "$@"
if ! $all; then
	mapfile -t files < <(printf '%s\n' "${files[@]}" |
		grep -v -x -e iomap/direct-io.c -e iomap/iter.c || true)
fi
if [ ${#files[@]} -eq 0 ]; then
	echo "func-lengths: no files (not a git checkout?)" >&2
	exit 2
fi

out=$(ctags -x --language-force=C --kinds-C=f --fields=+ne \
	--_xformat='%{line} %{end} %{input} %{name}' -o - "${files[@]}" |
	awk -v max="$max" '$2 != "" && $2 - $1 + 1 > max {
		print $2 - $1 + 1, $3 ":" $1, $4
	}' | sort -k1,1nr -k2,2)
over=0
if [ -n "$out" ]; then
	echo "$out"
	over=$(echo "$out" | wc -l)
fi
echo "func-lengths: $over functions over $max lines"
[ "$over" -eq 0 ]
