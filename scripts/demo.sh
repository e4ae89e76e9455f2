#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A short tour of the simulated stack: the same small read through the
# simple path and the generic path, the fallbacks, an I/O error punted to
# the workqueue, and a completion-order replay.  Each line is the outcome
# record `iomapsim run` prints.  Usage: scripts/demo.sh BUILD_DIR
set -euo pipefail

bin=${1:-build}/iomapsim
if [ ! -x "$bin" ]; then
	echo "demo: $bin not built" >&2
	exit 1
fi

show() {
	local what=$1
	shift
	printf '\n# %s\n$ iomapsim run %s\n' "$what" "$*"
	"$bin" run "$@"
}

echo "iomapsim: the iomap direct-I/O + bio stack in user space"
show "4 KiB O_DIRECT read inside EOF: the simple path, one bio, completed in the submitter" \
	--op read --pos 8192 --len 4096
show "the same read with the simple path off (simple=0): the generic path" \
	--op read --pos 8192 --len 4096 --no-simple
show "an async read: inline completion from bio end_io (interrupt context)" \
	--op read --pos 8192 --len 4096 --async
show "an async read whose bio fails: error completion punted to the s_dio_done_wq worker" \
	--op read --pos 8192 --len 4096 --async --fault bio-error:1:IOERR
show "a read over a hole: not eligible for the simple path's mapping gate, zeroes from the generic path" \
	--op read --pos 0 --len 4096 --map hole:0:65536 --map mapped:65536:983040
show "8 KiB read: too large for the simple path" \
	--op read --pos 0 --len 8192
show "misaligned 512-byte read on a 4096-byte-sector device: EINVAL from the simple path" \
	--op read --pos 512 --len 512 --lbs 4096
show "a write that extends i_size: sub-block zeroing, completion work in the workqueue" \
	--op write --pos 1048576 --len 512 --async
show "a multi-bio generic read completing out of order (seeded)" \
	--op read --pos 0 --len 65536 --map mapped:0:16384 --map mapped:16384:49152 \
	--map mapped:65536:983040 --complete random --seed 42
echo
echo "Every run is replayable: same arguments and --seed, same outcome and trace."
