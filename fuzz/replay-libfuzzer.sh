#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# replay-libfuzzer.sh BINARY CORPUS_DIR [REGRESSIONS_DIR]
#
# The replay test of a fuzz (clang + libFuzzer) build: a libFuzzer binary
# given files (not directories) runs each once and exits, failing on the
# first crash or oracle failure.  The seed corpus must not be empty: an
# empty one would pass without testing anything.
set -eu
bin=$1
corpus=$2
regress=${3:-}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
find "$corpus" -maxdepth 1 -type f ! -name '.*' | sort >"$tmp"
if [ ! -s "$tmp" ]; then
	echo "replay: no seed inputs in $corpus" >&2
	exit 1
fi
if [ -n "$regress" ] && [ -d "$regress" ]; then
	find "$regress" -maxdepth 1 -type f ! -name '.*' | sort >>"$tmp"
fi
n=$(wc -l <"$tmp")
# batches, so a large corpus stays under the argument limit
xargs -d '\n' -n 500 "$bin" -runs=1 <"$tmp" >/dev/null 2>"$tmp.log" || {
	cat "$tmp.log" >&2
	rm -f "$tmp.log"
	exit 1
}
rm -f "$tmp.log"
echo "replay: $n input(s) run, all oracles held"
