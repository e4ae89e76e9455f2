#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/uml-kernel.sh [--kasan] [--base SERIES] [--jobs N] [--fetch]
#                       [--cached] [--patch FILE]... TREE
#
# Builds a user-mode Linux kernel (make ARCH=um) from TREE and prints the
# path of its `linux` binary on stdout; what made it (the options set, the
# base tree, the overlaid files with their sha256, the cache folder) goes
# to stderr.  The simulator runs a tree's fs/iomap/direct-io.c against
# shims; a UML kernel runs the same file against the real block layer,
# XFS and ext4, as an ordinary process, with no VM and no root: the check
# that the shims did not hide something.
#
# TREE is either
#   - a full tree (Makefile, arch/um): built as it is, out of tree
#     (make O=) into the cache, so that the tree itself is never written;
#   - a sparse tree (only fs/iomap/direct-io.c, fs/iomap/iter.c and
#     include/linux/iomap.h, what scripts/get-kernel-tree.sh writes and
#     ../shared/kernel/ holds): laid over a full base tree, Debian's
#     linux-source-6.1, -6.12 or the newest series, fetched into the cache
#     by `scripts/get-kernel-tree.sh --full` (or by --fetch here).
#
# The base is the tree of the sparse tree's series: named by --base, else
# by a README.md in the tree or the section for it in its parent folder's
# README.md (linux-source-X.Y, as the fixtures say), else by the folder's
# name (linux-X.Y...), else by what iomap.h declares
# (iomap_iter_advance(): newer than 6.12; IOMAP_DIO_CALLER_COMP: 6.6 to
# 6.12; else 6.1); else the newest.  Of the bases, the nearest series.
#
# Each base is built once, with its object folder a direct subfolder of
# its source (Kbuild then sets srctree to "..", so no command line or
# dependency file holds an absolute path).  An overlay is a copy of both:
# the source as hard links with the differing files replaced by real
# copies, the object folder as a real copy; `make` then recompiles only
# what the replaced files feed.  A second run with the same inputs finds
# the kernel in the cache and runs no make.
#
# Config: defconfig, plus XFS_FS, EXT4_FS, BLK_DEV_UBD, HOSTFS,
# BLK_DEV_LOOP, IO_URING (each where the tree's Kconfig has it) and
# DEBUG_INFO_NONE; --kasan adds KASAN, KASAN_GENERIC, KASAN_INLINE (UML
# selects HAVE_ARCH_KASAN from 5.16, "UML: add support for KASAN under
# x86_64").  Set with the tree's scripts/config, then make olddefconfig.
#
#   --base SERIES  6.1, 6.12 or newest (debian- prefix allowed): the base
#                  for a sparse tree, instead of the one its series names
#   --jobs N       make -jN (default: the number of CPUs)
#   --fetch        fetch a missing base (~150 MB download, ~1.5 GB
#                  unpacked) instead of refusing
#   --kasan        a KASAN kernel (a separate cache entry)
#   --patch FILE   also apply FILE (a patch of the kernel tree, -p1) to
#                  the base copy under a sparse tree: a fix outside
#                  fs/iomap (block/bio.c, say) built and run the same way,
#                  still incrementally (may be given more than once)
#   --cached       only a kernel already in the cache: build and fetch
#                  nothing; exit 77 (one line) when there is none, so
#                  that the test command runs what earlier runs built
#
# Cache: ${IOMAPSIM_CACHE:-~/.cache/iomapsim}/trees/debian-SERIES (the
# bases' sources) and .../uml/KEY (one folder per kernel: src/ with the
# object folder src/uml-obj/, the binary `linux`, `info`, `build.log`).
#
# Needs make, gcc, flex, bison, bc (and libc6-dev): as root, missing
# Debian packages are installed with apt-get, as scripts/quickstart.sh
# does; anyone else is told in one line what is missing.  Exit 0 with the
# path, 1 when the kernel cannot be had (a missing tool or base, a build
# error: its first error line), 2 on bad usage, 77 with --cached and no
# such kernel in the cache.
set -euo pipefail

prog="uml-kernel.sh"
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: $prog [--kasan] [--base 6.1|6.12|newest] [--jobs N] [--fetch] [--cached] [--patch FILE]... TREE"
cache=${IOMAPSIM_CACHE:-$HOME/.cache/iomapsim}
uml=$cache/uml
iomap_files=(fs/iomap/direct-io.c fs/iomap/iter.c include/linux/iomap.h)
# the object folder, a direct subfolder of each copied source (see above)
objname="uml-obj"

die() {
	echo "$prog: $*" >&2
	exit 1
}
# --cached and the kernel is not there: one line, nothing built
not_cached() {
	echo "$prog: no cached UML kernel for $tree${kasan:+ (KASAN)}: run without --cached to build it" >&2
	exit 77
}
bad_usage() {
	echo "$prog: $*; $usage" >&2
	exit 2
}
say() {
	echo "$*" >&2
}

kasan=
base_arg=
jobs=$(nproc 2>/dev/null || echo 2)
fetch=
cached=
patches=()
tree=
while [ $# -gt 0 ]; do
	case $1 in
	--kasan) kasan=1 ;;
	--fetch) fetch=1 ;;
	--cached) cached=1 ;;
	--base | --jobs)
		[ $# -ge 2 ] || bad_usage "$1 needs a value"
		if [ "$1" = --base ]; then base_arg=$2; else jobs=$2; fi
		shift ;;
	--patch)
		[ $# -ge 2 ] || bad_usage "$1 needs a file"
		[ -f "$2" ] || bad_usage "--patch $2: no such file"
		patches+=("$(cd "$(dirname "$2")" && pwd)/$(basename "$2")")
		shift ;;
	--base=*) base_arg=${1#--base=} ;;
	--jobs=*) jobs=${1#--jobs=} ;;
	-h | --help)
		echo "$usage"
		exit 0 ;;
	-*) bad_usage "unknown option $1" ;;
	*)
		[ -z "$tree" ] || bad_usage "one TREE only"
		tree=$1 ;;
	esac
	shift
done
[ -n "$tree" ] || bad_usage "no TREE"
case $jobs in
'' | *[!0-9]* | 0) bad_usage "--jobs takes a positive number, not '$jobs'" ;;
esac
case ${base_arg#debian-} in
'' | 6.1 | 6.12 | newest) base_arg=${base_arg#debian-} ;;
*) bad_usage "unknown base '$base_arg'" ;;
esac
[ -d "$tree" ] || bad_usage "$tree is not a folder"
tree=$(cd "$tree" && pwd)

# --- what TREE is ------------------------------------------------------

if [ -f "$tree/Makefile" ] && [ -d "$tree/arch/um" ]; then
	kind=full
	[ -z "$base_arg" ] || bad_usage "--base is for a sparse tree; $tree is a full tree"
	[ ${#patches[@]} -eq 0 ] || bad_usage "--patch is for a sparse tree; patch a full tree itself"
else
	for f in "${iomap_files[@]}"; do
		[ -f "$tree/$f" ] ||
			die "$tree is neither a full kernel tree (Makefile, arch/um) nor a sparse one (no $f)"
	done
	kind=sparse
fi

# series_of_sparse: "X.Y why" for a sparse tree, or nothing
series_of_sparse() {
	local readme s name
	readme=$tree/README.md
	if [ -f "$readme" ]; then
		# || true: no match is no answer here, not the end of the script
		s=$({ grep -o 'linux-source-[0-9]*\.[0-9]*' "$readme" || true; } | head -n 1)
		[ -z "$s" ] || { echo "${s#linux-source-} its README.md"; return; }
	fi
	name=$(basename "$tree")
	readme=$(dirname "$tree")/README.md
	if [ -f "$readme" ]; then
		# the section "## NAME" of the fixtures' README (../shared/kernel)
		s=$(awk -v h="## $name" '$0 == h { on = 1; next }
			/^## / { on = 0 } on' "$readme" |
			{ grep -o 'linux-source-[0-9]*\.[0-9]*' || true; } | head -n 1)
		[ -z "$s" ] || { echo "${s#linux-source-} ../README.md"; return; }
	fi
	s=$({ echo "$name" | grep -o '^linux-[0-9]*\.[0-9]*' || true; } | head -n 1)
	[ -z "$s" ] || { echo "${s#linux-} its folder name"; return; }
	# by feature, never by a version string: iomap_iter_advance() came
	# with "iomap: advance the iter directly on buffered writes" (6.15),
	# IOMAP_DIO_CALLER_COMP with "iomap: support IOCB_DIO_CALLER_COMP" (6.6)
	if grep -q 'iomap_iter_advance\|iomap_iter_next_fn' "$tree/include/linux/iomap.h"; then
		echo "newest iomap.h (iomap_iter_advance)"
	elif grep -q 'IOMAP_DIO_CALLER_COMP' "$tree/fs/iomap/direct-io.c"; then
		echo "6.12 direct-io.c (IOMAP_DIO_CALLER_COMP)"
	else
		echo "6.1 direct-io.c (no IOMAP_DIO_CALLER_COMP)"
	fi
}

# series_num X.Y: a number to measure distance by (newest counts as 99.0)
series_num() {
	local s=$1
	[ "$s" = newest ] && s=99.0
	echo $((${s%%.*} * 1000 + ${s#*.}))
}

base_dir() {
	echo "$cache/trees/debian-$1"
}

# origin_field DIR KEY: from get-kernel-tree.sh --full's .iomapsim-origin
origin_field() {
	sed -n "s/^$2 //p" "$1/.iomapsim-origin" 2>/dev/null | head -n 1
}

if [ "$kind" = sparse ]; then
	if [ -n "$base_arg" ]; then
		base=$base_arg
		why="--base"
	else
		read -r want why < <(series_of_sparse)
		why="series $want by $why"
		[ "$want" = newest ] || [ "$(series_num "$want")" -le 6012 ] || want=newest
		best="" bestd=""
		for s in 6.1 6.12 newest; do
			d=$(($(series_num "$want") - $(series_num "$s")))
			d=${d#-}
			if [ -z "$best" ] || [ "$d" -lt "$bestd" ]; then
				best=$s bestd=$d
			fi
		done
		base=$best
	fi
	src0=$(base_dir "$base")
	if [ ! -f "$src0/.iomapsim-origin" ]; then
		[ -z "$cached" ] || not_cached
		if [ -z "$fetch" ]; then
			die "no base tree debian-$base in $cache/trees ($why): run scripts/get-kernel-tree.sh --full debian-$base $src0, or pass --fetch"
		fi
		say "$prog: fetching base debian-$base into $src0"
		"$here/get-kernel-tree.sh" --full --force "debian-$base" "$src0" >&2 ||
			die "could not fetch base debian-$base"
	fi
	base_version=$(origin_field "$src0" version)
	base_pkg=$(origin_field "$src0" package)
else
	src0=$tree
fi

# --- tools -------------------------------------------------------------

need_tools() {
	local -a missing=() pkgs=()
	local t
	for t in make gcc flex bison bc perl; do
		command -v "$t" >/dev/null || { missing+=("$t"); pkgs+=("$t"); }
	done
	# UML links against the host's libc
	[ -e /usr/include/stdio.h ] || { missing+=(libc-headers); pkgs+=(libc6-dev); }
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
		die "needs ${missing[*]} (as root: apt-get install ${pkgs[*]})"
	fi
	say "$prog: installing ${pkgs[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 &&
		  apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null 2>&1; } ||
		die "needs ${missing[*]}: apt-get install ${pkgs[*]} failed"
}
# a cached kernel needs no tools
[ -n "$cached" ] || need_tools

# --- config ------------------------------------------------------------

# in_kconfig SRC SYM: whether some Kconfig file of SRC defines SYM
# (KASAN is a menuconfig)
in_kconfig() {
	grep -rqsxE --include='Kconfig*' "(menu)?config $2" "$1/fs" "$1/drivers/block" \
		"$1/arch/um" "$1/init" "$1/lib" "$1/mm" "$1/io_uring" 2>/dev/null
}

want_opts=(XFS_FS EXT4_FS BLK_DEV_UBD HOSTFS BLK_DEV_LOOP IO_URING DEBUG_INFO_NONE)
[ -z "$kasan" ] || want_opts+=(KASAN KASAN_GENERIC KASAN_INLINE)
set_opts=()
for o in "${want_opts[@]}"; do
	in_kconfig "$src0" "$o" && set_opts+=("$o")
done
if [ -n "$kasan" ] && ! grep -qs 'select HAVE_ARCH_KASAN' "$src0/arch/um/Kconfig"; then
	die "this tree's UML has no KASAN (arch/um selects HAVE_ARCH_KASAN from 5.16 on x86_64)"
fi
# the cache key covers what decides the config: the options and this
# script's way of applying them
cfg_hash=$(printf '%s\n' "v1 defconfig" "${set_opts[@]}" | sha256sum | cut -c1-12)

# configure SRC OBJ: defconfig, the options, olddefconfig; checks each
configure() {
	local src=$1 obj=$2 o v
	local -a args=()
	make -C "$src" O="$obj" ARCH=um defconfig >>"$log" 2>&1 || return 1
	for o in "${set_opts[@]}"; do
		args+=(-e "$o")
	done
	# DEBUG_INFO_NONE is one choice of a choice: leave the others
	args+=(-d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -d DEBUG_INFO_DWARF4
		-d DEBUG_INFO_DWARF5 -d DEBUG_INFO_BTF)
	"$src/scripts/config" --file "$obj/.config" "${args[@]}" >>"$log" 2>&1
	make -C "$src" O="$obj" ARCH=um olddefconfig >>"$log" 2>&1 || return 1
	for o in "${set_opts[@]}"; do
		v=$(sed -n "s/^CONFIG_$o=//p" "$obj/.config")
		if [ "$v" != y ]; then
			case $o in
			KASAN*) die "this tree's UML cannot have $o (olddefconfig dropped it: a dependency is missing)" ;;
			*) die "olddefconfig dropped CONFIG_$o (see $log)" ;;
			esac
		fi
	done
}

# first_error LOG: the compiler's (or make's) first error line
first_error() {
	{ grep -m1 -E ': (fatal )?error: |Error [0-9]+|undefined reference' "$1" ||
		tail -n 1 "$1"; } | sed 's#^\.\./##'
}

# build SRC OBJ [NICE]: make the UML binary into the log.  A base (some
# thousand files) runs under nice, not to starve a shared machine; an
# overlay (a few files and the link) runs as is, being waited for.
build() {
	nice -n "${3:-0}" make -C "$1" O="$2" ARCH=um -j"$jobs" linux >>"$log" 2>&1
}

report_config() {
	local o line=
	for o in "${set_opts[@]}"; do
		line+=" $o=y"
	done
	say "config: defconfig +$line, make olddefconfig (config hash $cfg_hash)"
}

elapsed() {
	echo "$(($(date +%s) - $1))s"
}

# --- a full tree: out of tree into the cache ---------------------------

mkdir -p "$uml"
if [ "$kind" = full ]; then
	key=tree-$(echo "$tree" | sha256sum | cut -c1-12)-$cfg_hash
	[ -z "$kasan" ] || key+=-kasan
	dir=$uml/$key
	say "$prog: $tree (full tree, built as it is, out of tree)"
	report_config
	say "cache: $dir"
	# the same inputs: no file of the tree newer than the kernel
	if [ -x "$dir/linux" ] && [ -z "$(find "$tree" -name .git -prune -o \
		-type f -newer "$dir/linux" -print -quit)" ]; then
		say "cached: no file of the tree changed since it was built"
		echo "$dir/linux"
		exit 0
	fi
	[ -z "$cached" ] || not_cached
	mkdir -p "$dir/obj"
	lock "$dir"
	log=$dir/build.log
	: >"$log"
	t0=$(date +%s)
	[ -f "$dir/obj/.config" ] || configure "$tree" "$dir/obj" ||
		die "configuring failed: $(first_error "$log")"
	build "$tree" "$dir/obj" 10 ||
		die "$tree does not build: $(first_error "$log")"
	cp "$dir/obj/linux" "$dir/linux.tmp" && mv -f "$dir/linux.tmp" "$dir/linux"
	say "built in $(elapsed "$t0")"
	echo "$dir/linux"
	exit 0
fi

# --- a sparse tree over a base ------------------------------------------

# lock DIR: hold DIR.lock until the script ends, so that two runs for
# the same kernel (the cache is per user, not per shell) build it once
lock() {
	command -v flock >/dev/null || return 0
	exec 9>"$1.lock"
	flock 9
}

# base_key SERIES: the cache folder of that base's build with this config
base_key() {
	local ver k
	ver=$(origin_field "$(base_dir "$1")" version)
	k=$uml/base-debian-$1-${ver//\~/_}-$cfg_hash
	[ -z "$kasan" ] || k+=-kasan
	echo "$k"
}

# ensure_base SERIES: the base's built object folder; sets bdir
ensure_base() {
	local s=$1 src ver
	src=$(base_dir "$s")
	ver=$(origin_field "$src" version)
	bdir=$(base_key "$s")
	[ -f "$bdir/done" ] && return 0
	[ -z "$cached" ] || not_cached
	lock "$bdir"
	[ -f "$bdir/done" ] && return 0
	log=$bdir/build.log
	t0=$(date +%s)
	if [ -f "$bdir/configured" ]; then
		# an interrupted build: make takes it up where it stopped
		say "$prog: resuming the build of base debian-$s $ver"
	else
		say "$prog: building base debian-$s $ver (once; later overlays reuse it)"
		rm -rf "$bdir"
		mkdir -p "$bdir"
		# hard links: no space, and the fetched tree stays clean
		cp -al "$src" "$bdir/src"
		configure "$bdir/src" "$bdir/src/$objname" ||
			die "configuring base debian-$s failed: $(first_error "$log")"
		: >"$bdir/configured"
	fi
	build "$bdir/src" "$bdir/src/$objname" 10 ||
		die "base debian-$s $ver does not build: $(first_error "$log")"
	cp "$bdir/src/$objname/linux" "$bdir/linux"
	echo "base debian-$s $ver built in $(elapsed "$t0")" >"$bdir/done"
	say "$(cat "$bdir/done")"
}

# apply_patches SRC: each --patch on SRC, every file it touches first made
# a real copy (SRC's files are hard links into the base); sets ovl_err
apply_patches() {
	local p f
	for p in "${patches[@]}"; do
		while read -r f; do
			[ -f "$1/$f" ] || continue
			cp --remove-destination "$1/$f" "$1/$f.real" &&
				mv -f "$1/$f.real" "$1/$f"
		done < <(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$p")
		say "  patch $p $(sha256sum <"$p" | cut -c1-64)"
		if ! patch -s -p1 -d "$1" <"$p" >"$dir/patch.log" 2>&1; then
			ovl_err="--patch $p does not apply: $(head -n 1 "$dir/patch.log")"
			rm -rf "$dir"
			return 1
		fi
	done
}

# overlay SERIES: the sparse tree over that base; sets dir, or returns 1
# with the first error in ovl_err
overlay() {
	local s=$1 f e rel
	ensure_base "$s"
	local fsum
	fsum=$({ (cd "$tree" && sha256sum "${iomap_files[@]}") &&
		{ [ ${#patches[@]} -eq 0 ] || sha256sum "${patches[@]}" | cut -c1-64; }; } |
		sha256sum | cut -c1-12)
	dir=${bdir/\/base-/\/overlay-}-$fsum
	say "base: $(origin_field "$(base_dir "$s")" package) $(origin_field "$(base_dir "$s")" version) ($why)"
	for f in "${iomap_files[@]}"; do
		if cmp -s "$tree/$f" "$bdir/src/$f"; then
			say "  $f $(sha256sum <"$tree/$f" | cut -c1-64) (same as the base's)"
		else
			say "  $f $(sha256sum <"$tree/$f" | cut -c1-64) (overlaid)"
		fi
	done
	report_config
	say "cache: $dir"
	if [ -f "$dir/done" ]; then
		say "cached: $(cat "$dir/done")"
		return 0
	fi
	[ -z "$cached" ] || not_cached
	lock "$dir"
	if [ -f "$dir/done" ]; then
		say "cached: $(cat "$dir/done") (by another run)"
		return 0
	fi
	rm -rf "$dir"
	mkdir -p "$dir/src"
	t0=$(date +%s)
	for e in "$bdir/src"/* "$bdir/src"/.[!.]*; do
		[ -e "$e" ] || continue
		[ "$(basename "$e")" = "$objname" ] && continue
		cp -al "$e" "$dir/src/"
	done
	# a real copy: the compiler rewrites objects in place
	cp -a "$bdir/src/$objname" "$dir/src/$objname"
	for f in "${iomap_files[@]}"; do
		# a file equal to the base's stays a link, so that what includes
		# it (iomap.h: XFS, ext4, ...) is not rebuilt for nothing
		cmp -s "$tree/$f" "$bdir/src/$f" && continue
		rm -f "$dir/src/$f"
		cp "$tree/$f" "$dir/src/$f"
	done
	apply_patches "$dir/src" || return 1
	log=$dir/build.log
	: >"$log"
	if ! build "$dir/src" "$dir/src/$objname"; then
		ovl_err=$(first_error "$log")
		mv -f "$log" "$uml/failed-${dir##*/}.log"
		rm -rf "$dir"
		return 1
	fi
	rel=$(grep -c '^  CC ' "$log" || true)
	cp "$dir/src/$objname/linux" "$dir/linux"
	echo "overlay rebuilt in $(elapsed "$t0"), $rel files compiled" >"$dir/done"
	{
		echo "base $base_pkg $base_version"
		for f in "${iomap_files[@]}"; do
			echo "$f $(sha256sum <"$tree/$f" | cut -c1-64)"
		done
		echo "config ${set_opts[*]}"
		for f in "${patches[@]}"; do
			echo "patch $f $(sha256sum <"$f" | cut -c1-64)"
		done
	} >"$dir/info"
	say "$(cat "$dir/done")"
}

if overlay "$base"; then
	echo "$dir/linux"
	exit 0
fi
first="$tree does not build on base debian-$base $base_version: $ovl_err"
# without --base, another base already built costs one more incremental
# build: a tree between two series may build on the other one
if [ -z "$base_arg" ]; then
	for s in newest 6.12 6.1; do
		[ "$s" != "$base" ] || continue
		[ -f "$(base_key "$s")/done" ] || continue
		say "$prog: trying base debian-$s"
		why="the nearest base failed"
		base_version=$(origin_field "$(base_dir "$s")" version)
		if overlay "$s"; then
			echo "$dir/linux"
			exit 0
		fi
		first+=" (nor on built base debian-$s)"
	done
fi
die "$first (log: $uml/failed-${dir##*/}.log)"
