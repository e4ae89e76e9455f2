# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by scripts/check-tree.sh and scripts/tree-diff.sh: the options
# both take, the loop that reads them and the way both fail.  The caller
# sets `prog` (its name, for messages), and `count` and `root` to their
# defaults.
# shellcheck disable=SC2154 # prog
# shellcheck disable=SC2034 # count, root: for the caller

# Bad usage or a tree that cannot be built: one line, exit 2.
die() {
	echo "$prog: $*" >&2
	exit 2
}

# tree_opt_value WHAT "$@": the option $1 takes a value, WHAT (for the
# message): fail when none follows, else count both in `shifted`.
tree_opt_value() {
	[ $# -ge 3 ] || die "$2 needs $1"
	shifted=2
}

# tree_common_opt "$@": take $1 (and its value) when it is one of the
# shared options -- --count N, --build-root DIR, -h/--help (the script's
# header comment) -- and set `shifted` to the arguments used (0: not one).
tree_common_opt() {
	shifted=0
	case $1 in
	--count)
		tree_opt_value "a number" "$@"
		count=$2
		;;
	--build-root)
		tree_opt_value "a folder" "$@"
		# under set -e a failed mkdir would end the script with its own
		# status (1, "findings"), not the 2 of an error
		{ mkdir -p "$2" && root=$(cd "$2" && pwd); } 2>/dev/null ||
			die "--build-root $2: cannot make or enter the folder"
		;;
	-h | --help)
		awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"
		exit 0
		;;
	esac
}

# tree_parse_opts "$@": read the leading arguments that are options, each
# through tree_common_opt or else the caller's own tree_opt "$@" (which
# sets `shifted` likewise when it takes the argument); stop at the first
# argument neither takes, or fail on it when it looks like an option.
# Sets `opts_used` to the arguments read, for the caller to shift.
tree_parse_opts() {
	opts_used=0
	while [ $# -gt 0 ]; do
		tree_common_opt "$@"
		[ "$shifted" -gt 0 ] || tree_opt "$@"
		if [ "$shifted" -eq 0 ]; then
			case $1 in -*) die "unknown option '$1' (try --help)" ;; esac
			break
		fi
		opts_used=$((opts_used + shifted))
		shift "$shifted"
	done
}
