# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by scripts/check-tree.sh and scripts/tree-diff.sh: the options
# both take and the way both fail.  The caller sets `prog` (its name, for
# messages), and `count` and `root` to their defaults.
# shellcheck disable=SC2154 # prog
# shellcheck disable=SC2034 # count, root: for the caller

# Bad usage or a tree that cannot be built: one line, exit 2.
die() {
	echo "$prog: $*" >&2
	exit 2
}

# tree_common_opt "$@": take $1 (and its value) when it is one of the
# shared options -- --count N, --build-root DIR, -h/--help (the script's
# header comment) -- and set `shifted` to the arguments used (0: not one).
tree_common_opt() {
	shifted=0
	case $1 in
	--count)
		[ $# -ge 2 ] || die "--count needs a number"
		count=$2
		shifted=2
		;;
	--build-root)
		[ $# -ge 2 ] || die "--build-root needs a folder"
		mkdir -p "$2"
		root=$(cd "$2" && pwd)
		shifted=2
		;;
	-h | --help)
		awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"
		exit 0
		;;
	esac
}
