# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by scripts/format-check.sh and scripts/func-lengths.sh: the C
# files a style check reads.

# c_files PATHSPEC... -- "$@": into the array `files`, the files given
# after --, or when there are none the files git tracks that match a
# PATHSPEC (git's pathspecs, ':(exclude)DIR/' included; the caller is at
# the top of the checkout)
# shellcheck disable=SC2034 # files: for the caller
c_files() {
	local specs=()
	while [ "$1" != -- ]; do
		specs+=("$1")
		shift
	done
	shift
	if [ $# -gt 0 ]; then
		files=("$@")
	else
		mapfile -t files < <(git ls-files "${specs[@]}")
	fi
}
