#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/checkpatch.sh [FILES...]
#
# The kernel's scripts/checkpatch.pl (Debian linux-source-6.12's, fetched by
# scripts/get-kernel-tools.sh) over the kernel-shaped code, as a file check
# (--no-tree --file: there is no kernel tree and no patch).  FILES default
# to iomap/ and block/: their .c and .h files, the kernel headers they
# provide (iomap/include/linux, block/include/linux) and kernel-source
# mode's shims (iomap/ksrc).  Prints each complaint ("file:line:
# LEVEL:TYPE: message"), then the count of each type.
#
# The tools folder is $IOMAPSIM_KERNEL_TOOLS, else build/kernel-tools;
# fetched there when it lacks checkpatch.pl.
#
# Exit status: 0 no ERROR or WARNING left, 1 some, 2 bad arguments,
# 77 checkpatch.pl cannot be had (the reason is printed).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tools=${IOMAPSIM_KERNEL_TOOLS:-$top/build/kernel-tools}

# Checks that cannot apply here, each with why:
ignore=(
	# The project keeps the kernel's paths (iomap/direct-io.c stands for
	# fs/iomap/direct-io.c, block/bio.c for block/bio.c) and each file's
	# header names the kernel file it stands for; checkpatch takes that
	# for the file naming itself.
	EMBEDDED_FILENAME
	# Its premise is that the allocator already reported the failure
	# (the kernel's warns with a stack dump): the simulator's kmalloc
	# (sim/kernel/alloc.c) reports nothing, and the "out of memory" it
	# finds is the one-line error a backend hands back to its caller
	# (blksim_bdev_err()), the user's only report of it.
	OOM_MESSAGE
)

# Lines that are the kernel's own text, in the files that mirror a
# kernel file: checkpatch says the same of the kernel's file (run on
# Debian linux-source-6.12's include/linux/blk_types.h, iomap.h,
# args.h and fs/iomap/direct-io.c), and the mirror keeps the kernel's
# text so that code moves between the two with mechanical edits.
#   FILE:TYPE,TYPE
kernel_text=(
	# the REQ_* values, (__force blk_opf_t)(1ULL << __REQ_X), and the
	# BIO_* comments beside their enum values
	"block/include/linux/blk_types.h:COMPLEX_MACRO,BLOCK_COMMENT_STYLE,NEW_TYPEDEFS"
	# 'unsigned flags' in the ops' signatures and struct iomap_dio
	"iomap/include/linux/iomap.h:UNSPECIFIED_INT,MACRO_WITH_FLOW_CONTROL"
	"iomap/direct-io.c:UNSPECIFIED_INT"
	# the argument-count selector, as the kernel's COUNT_ARGS()
	"iomap/ksrc/fs/iomap/ksrc-compat.h:MACRO_ARG_UNUSED"
	# vm_fault_t, the kernel's typedef, for the tree's iomap.h
	"iomap/ksrc/include/linux/mm_types.h:NEW_TYPEDEFS"
	# Not kernel text, but the check's premise does not hold: in_atomic()
	# cannot see a spinlock's preemption count on a kernel without
	# CONFIG_PREEMPT_COUNT; the simulator's (sim/kernel/context.c)
	# knows every context exactly, and the file backend asks it whether
	# it may wait for its ring.
	"block/backend-file.c:IN_ATOMIC"
)

# the ignore list for FILE: the general one, and its kernel text's
ignore_for() {
	local f=$1 k list
	list=$(IFS=,; echo "${ignore[*]}")
	for k in "${kernel_text[@]}"; do
		[ "${k%%:*}" = "$f" ] && list="$list,${k#*:}"
	done
	echo "$list"
}

if [ $# -gt 0 ]; then
	files=()
	for f; do
		case $f in
		-*) echo "checkpatch.sh: unknown option $f (usage: checkpatch.sh [FILES...])" >&2
			exit 2 ;;
		esac
		[ -f "$f" ] || {
			echo "checkpatch.sh: $f: no such file" >&2
			exit 2
		}
		files+=("$(realpath --relative-to="$top" "$f")")
	done
	cd "$top"
else
	cd "$top"
	shopt -s nullglob
	files=(iomap/*.c iomap/*.h iomap/include/linux/*.h
		block/*.c block/*.h block/include/linux/*.h)
	shopt -u nullglob
	while IFS= read -r f; do
		files+=("$f")
	done < <(find iomap/ksrc -name '*.[ch]' | sort)
fi

command -v perl >/dev/null || {
	echo "SKIP: checkpatch.pl needs perl"
	exit 77
}
checkpatch=$tools/scripts/checkpatch.pl
if [ ! -f "$checkpatch" ]; then
	if ! err=$("$top/scripts/get-kernel-tools.sh" "$tools" 2>&1); then
		echo "SKIP: the kernel's checkpatch.pl cannot be had: $(echo "$err" | tail -n 1)"
		exit 77
	fi
fi

out=$(mktemp "${TMPDIR:-/tmp}/checkpatch.XXXXXX")
trap 'rm -f "$out"' EXIT
# HOME: a developer's own ~/.checkpatch.conf must not change the verdict
# (a .checkpatch.conf in the project's top folder would still apply)
rc=0
for f in "${files[@]}"; do
	HOME=/nonexistent perl "$checkpatch" --no-tree --file --terse \
		--show-types --no-summary --color=never \
		--ignore "$(ignore_for "$f")" "$f" >>"$out" 2>&1 || rc=$?
done
cat "$out"

complaints='^[^:]+:[0-9]+: (ERROR|WARNING):[A-Z0-9_]+:'
n=$(grep -cE "$complaints" "$out" || true)
nerr=$(grep -cE '^[^:]+:[0-9]+: ERROR:' "$out" || true)
echo "checkpatch: ${#files[@]} files: $nerr errors, $((n - nerr)) warnings" \
	"(ignored as not applicable: ${ignore[*]}; the kernel's own text in" \
	"${#kernel_text[@]} mirrored files)"
grep -oE "$complaints" "$out" | sed -E 's/^[^ ]+ //; s/:$//' |
	sort | uniq -c | sort -rn || true
if [ "$n" -gt 0 ]; then
	exit 1
fi
if [ "$rc" -ne 0 ]; then
	echo "checkpatch: checkpatch.pl exited $rc with no complaint it names"
	exit 2
fi
