#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# check-cmdline.sh REPLAY IOMAPSIM DIR...
#
# A fuzz_dio finding is reported as the `iomapsim run ...` line the replay
# driver prints; this checks that the line means what the input means: for
# every input in DIR..., the outcome `iomapsim run` prints for the line
# must be the outcome the replay driver's own run of the input gives.
set -eu
replay=$1
iomapsim=$2
shift 2

n=0
fail=0
skip=0
for dir in "$@"; do
	[ -d "$dir" ] || continue
	for f in "$dir"/*; do
		[ -f "$f" ] || continue
		case $(basename "$f") in .*) continue ;; esac
		line=$("$replay" --print "$f")
		args=${line#*: iomapsim run }
		want=$("$replay" --json "$f" 2>/dev/null | head -1)
		# word splitting of $args is intended: it is a command line
		# shellcheck disable=SC2086
		got=$("$iomapsim" run $args 2>/dev/null | head -1) || true
		if [ -z "$want" ] && [ -z "$got" ]; then
			# both died the same way (a known crash): nothing to compare
			skip=$((skip + 1))
			continue
		fi
		case $want in
		"refused: --iomap:"* | "refused: "*"not in this build's iomap code"*)
			# an entry point this build's iomap code lacks: the
			# command must refuse the line too (exit 2, no JSON)
			if [ -z "$got" ]; then
				skip=$((skip + 1))
				continue
			fi ;;
		esac
		n=$((n + 1))
		if [ "$want" != "$got" ]; then
			echo "MISMATCH $f" >&2
			echo "  iomapsim run $args" >&2
			echo "  replay:   $want" >&2
			echo "  iomapsim: $got" >&2
			fail=$((fail + 1))
		fi
	done
done
if [ "$n" -eq 0 ]; then
	echo "check-cmdline: no inputs" >&2
	exit 1
fi
if [ "$fail" -ne 0 ]; then
	echo "check-cmdline: $fail of $n command line(s) disagree" >&2
	exit 1
fi
echo "check-cmdline: $n command line(s) reproduce their input's outcome" \
	"($skip crashing or refused both ways, not compared)"
