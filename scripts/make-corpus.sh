#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/make-corpus.sh [--ci] [--shared DIR] [CORPUS]: the corpus of
# kernel trees nobody tuned the simulator for, as sparse trees under
# CORPUS (default ${IOMAPSIM_CACHE:-~/.cache/iomapsim}/corpus), one
# folder each; scripts/check-corpus.sh CORPUS checks them all.  Kernel
# files stay in CORPUS: none enters the repository.
#
#  - debian-VERSION: every version of linux-source-6.1 and
#    linux-source-6.12 the package lists hold (apt-cache madison), and
#    debian-newest, the highest series of Debian unstable
#    (scripts/get-kernel-tree.sh);
#  - variant-NAME: a fixture tree of ../shared/kernel with one upstream
#    change taken back out (tests/corpus/NAME.patch names the base tree
#    and the change), the combinations no release shows.
#
# A tree already in CORPUS is kept (delete its folder to fetch it again).
#
#   --ci          only what CI checks: the variants, the oldest and the
#                 newest version of each Debian series, and debian-newest
#   --shared DIR  where the fixture trees are (default ../shared/kernel
#                 beside the repository)
#
# Exit status: 0 all made, 1 a tree could not be made (the others are),
# 2 bad usage.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
prog=make-corpus.sh
ci=
shared=$top/../shared/kernel
corpus=

die() {
	echo "$prog: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--ci) ci=1 ;;
	--shared)
		[ $# -ge 2 ] || die "--shared needs a folder"
		shared=$2
		shift
		;;
	-h | --help)
		awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"
		exit 0
		;;
	-*) die "unknown option '$1' (try --help)" ;;
	*)
		[ -z "$corpus" ] || die "one corpus folder ('$corpus', then '$1')"
		corpus=$1
		;;
	esac
	shift
done
corpus=${corpus:-${IOMAPSIM_CACHE:-$HOME/.cache/iomapsim}/corpus}
mkdir -p "$corpus" 2>/dev/null || die "cannot make $corpus"
[ -d "$shared" ] || die "--shared $shared: no such folder"

failed=0

# have DIR: DIR is a finished tree (get-kernel-tree.sh writes README.md
# last; a variant is renamed into place whole)
have() {
	[ -f "$1/README.md" ]
}

# ---- Debian's versions -----------------------------------------------------

# versions SERIES: the package versions the lists hold, oldest first
versions() {
	apt-cache madison "linux-source-$1" 2>/dev/null |
		awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | sort -uV
}

debian() {
	local series=$1 version=$2 dir
	dir=$corpus/debian-${version%%~*}
	have "$dir" && return 0
	rm -rf "$dir"
	if ! "$top/scripts/get-kernel-tree.sh" --version "$version" \
		"debian-$series" "$dir" >/dev/null; then
		echo "$prog: debian-$series $version: not fetched" >&2
		rm -rf "$dir"
		failed=1
	fi
}

for series in 6.1 6.12; do
	list=$(versions "$series")
	if [ -z "$list" ]; then
		echo "$prog: apt lists no linux-source-$series (apt-get update?)" >&2
		failed=1
		continue
	fi
	[ -z "$ci" ] || list=$(printf '%s\n' "$list" | sed -n '1p;$p' | sort -u)
	for v in $list; do
		debian "$series" "$v"
	done
done
if ! have "$corpus/debian-newest"; then
	rm -rf "$corpus/debian-newest"
	"$top/scripts/get-kernel-tree.sh" debian-newest "$corpus/debian-newest" \
		>/dev/null || {
		echo "$prog: debian-newest: not fetched" >&2
		rm -rf "$corpus/debian-newest"
		failed=1
	}
fi

# ---- feature combinations --------------------------------------------------

for p in "$top"/tests/corpus/*.patch; do
	name=$(basename "$p" .patch)
	dir=$corpus/variant-$name
	have "$dir" && continue
	base=$(sed -n 's/^base: //p' "$p")
	change=$(sed -n 's/^takes out: //p' "$p")
	if [ ! -d "$shared/$base" ]; then
		echo "$prog: $name: no base tree $shared/$base" >&2
		failed=1
		continue
	fi
	tmp=$(mktemp -d "$corpus/.variant.XXXXXX")
	for f in fs/iomap/direct-io.c fs/iomap/iter.c include/linux/iomap.h; do
		mkdir -p "$tmp/$(dirname "$f")"
		cp "$shared/$base/$f" "$tmp/$f"
	done
	if ! (cd "$tmp" && patch -s -p1 --no-backup-if-mismatch) <"$p"; then
		echo "$prog: $name: tests/corpus/$name.patch does not apply to $base" >&2
		rm -rf "$tmp"
		failed=1
		continue
	fi
	{
		echo "# variant-$name"
		echo
		echo "The fixture tree $base without \"$change\""
		echo "(tests/corpus/$name.patch, applied by scripts/make-corpus.sh)."
		echo
		echo "| file | bytes | sha256 |"
		echo "|---|---|---|"
		for f in fs/iomap/direct-io.c fs/iomap/iter.c include/linux/iomap.h; do
			echo "| $f | $(wc -c <"$tmp/$f") | $(sha256sum "$tmp/$f" | cut -d' ' -f1) |"
		done
	} >"$tmp/README.md"
	rm -rf "$dir"
	mv "$tmp" "$dir"
done

ls -1 "$corpus" | grep -v '^\.' | sed "s|^|$corpus/|"
exit $failed
