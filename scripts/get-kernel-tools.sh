#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/get-kernel-tools.sh [--version VER] DIR
#
# The kernel's own tools this project runs, from Debian's linux-source-6.12
# package, at their kernel paths under DIR:
#
#   tools/testing/kunit/   kunit.py: `kunit.py parse FILE` reads KTAP
#                          (kunit_parser.py, kunit_printer.py and the
#                          modules kunit.py imports; the whole folder)
#   scripts/checkpatch.pl  with what it reads under --no-tree:
#                          scripts/spelling.txt (typos),
#                          scripts/const_structs.checkpatch (CONST_STRUCT),
#                          Documentation/dev-tools/checkpatch.rst (--verbose)
#
# If DIR already holds them, nothing is fetched (a cache: CI and the tests
# point at one folder).  --version picks a package version other than the
# candidate.  Writes DIR/README.md with the origin and the files' sha256.
set -euo pipefail

prog=get-kernel-tools.sh
# shellcheck source-path=SCRIPTDIR source=lib/linux-source-deb.sh
. "$(dirname "$0")/lib/linux-source-deb.sh"

usage="usage: $prog [--version VER] DIR"
series=6.12
pkg=linux-source-$series
paths=(tools/testing/kunit scripts/checkpatch.pl scripts/spelling.txt
	scripts/const_structs.checkpatch Documentation/dev-tools/checkpatch.rst)
# the files listed with their sha256 (the folder has ~50 more)
listed=(tools/testing/kunit/kunit.py tools/testing/kunit/kunit_parser.py
	tools/testing/kunit/kunit_printer.py scripts/checkpatch.pl
	scripts/spelling.txt scripts/const_structs.checkpatch
	Documentation/dev-tools/checkpatch.rst)
lsd_options "$usage" 0 "$@"
[ ${#args[@]} -eq 1 ] || die "$usage"
dir=${args[0]}
if [ -e "$dir" ] && [ ! -d "$dir" ]; then
	die "$dir exists and is not a folder"
fi

have_all() {
	local f

	[ -f "$1/README.md" ] || return 1
	for f in "${listed[@]}"; do
		[ -f "$1/$f" ] || return 1
	done
}

if have_all "$dir"; then
	origin=$(head -n 1 "$dir/README.md" | sed 's/^# //')
	echo "$dir already holds kunit.py and checkpatch.pl ($origin): nothing fetched"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/get-kernel-tools.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

lsd_fetch "$pkg" "$want_version" "$tmp"
lsd_extract "$lsd_deb" "$series" "$tmp/tools" "${paths[@]}"
{
	echo "| file | bytes | sha256 |"
	echo "|---|---|---|"
	for f in "${listed[@]}"; do
		[ -f "$tmp/tools/$f" ] || die "$pkg $lsd_version has no $f"
		lsd_row "$tmp/tools/$f" "$f"
	done
} >"$tmp/table"
nkunit=$(find "$tmp/tools/tools/testing/kunit" -type f | wc -l)
cat >"$tmp/tools/README.md" <<EOF
# $pkg $lsd_version

The kernel's KUnit tool (tools/testing/kunit/, $nkunit files: \`kunit.py parse
FILE\` reads KTAP) and checkpatch (scripts/checkpatch.pl and the files it
reads), byte for byte as Debian's package \`$pkg\` version
\`$lsd_version\` ships them in \`usr/src/$pkg.tar.xz\`.
Written by \`scripts/get-kernel-tools.sh DIR\`.

$(cat "$tmp/table")
EOF

# staged: copy into DIR, the README (the cache's mark) last
mkdir -p "$dir"
(cd "$tmp/tools" && find . -type f ! -name README.md -print0) |
	while IFS= read -r -d '' f; do
		mkdir -p "$dir/$(dirname "$f")"
		cp -p "$tmp/tools/$f" "$dir/$f"
	done
cp "$tmp/tools/README.md" "$dir/README.md"

echo "$pkg $lsd_version -> $dir: tools/testing/kunit/ ($nkunit files), scripts/checkpatch.pl and what it reads"
cat "$tmp/table"
