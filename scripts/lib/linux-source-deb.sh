# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by scripts/get-kernel-tree.sh and scripts/get-kernel-tools.sh:
# fetch Debian's linux-source-SERIES package and take single files out of
# the kernel tarball inside it, without unpacking the tree.
#
# The package (all architectures, ~150 MB) holds one file that matters,
# usr/src/linux-source-SERIES.tar.xz, whose members are named
# linux-source-SERIES/<kernel path>.  Extraction streams
# dpkg-deb -> tar -> xz -> tar, so nothing but the chosen members is ever
# written to disk.
#
# The caller sets `prog` (its name, for messages) and `set -euo pipefail`.
# The array lsd_apt holds apt options for every apt-get/apt-cache call:
# empty for the system's sources, or the private configuration lsd_sid
# sets up for Debian unstable.
# shellcheck disable=SC2154 # prog
# shellcheck disable=SC2034 # lsd_deb, lsd_version, ...: for the caller

lsd_apt=()

die() {
	echo "$prog: $*" >&2
	exit 1
}

# apt's first error or warning in FILE
apt_said() {
	grep -E '^(E|W):' "$1" | head -n 1
}

# lsd_options USAGE FORCE_OK ARG...: the options both scripts take.
# Sets want_version (--version VER, empty for the candidate), force
# (--force, only when FORCE_OK is 1) and the array args (the rest).
lsd_options() {
	local usage=$1 force_ok=$2

	shift 2
	want_version=
	force=
	args=()
	while [ $# -gt 0 ]; do
		case $1 in
		--force) [ "$force_ok" = 1 ] || die "unknown option $1; $usage"
			force=1 ;;
		--version)
			[ $# -ge 2 ] || die "--version needs a package version; $usage"
			want_version=$2
			shift ;;
		--version=*) want_version=${1#--version=} ;;
		-*) die "unknown option $1; $usage" ;;
		*) args+=("$1") ;;
		esac
		shift
	done
}

# lsd_fetch PKG VERSION TMPDIR: download PKG (VERSION, or the candidate
# when VERSION is empty) into TMPDIR and set lsd_deb to the .deb's path and
# lsd_version to its version.  Downloading needs no root when the package
# lists are there; only a missing package makes it refresh them (as root)
# or say how to.
lsd_fetch() {
	local pkg=$1 ver=$2 dir=$3 spec=$1 err=$3/apt.err tool

	[ -n "$ver" ] && spec="$pkg=$ver"
	for tool in apt-get apt-cache dpkg-deb tar xz sha256sum; do
		command -v "$tool" >/dev/null ||
			die "needs $tool (Debian's $pkg is fetched with apt)"
	done
	if ! (cd "$dir" && apt-get "${lsd_apt[@]}" download "$spec") >/dev/null 2>"$err"; then
		if apt-cache "${lsd_apt[@]}" show "$spec" >/dev/null 2>&1; then
			die "apt-get download $spec failed: $(apt_said "$err")"
		fi
		if [ "$(id -u)" -ne 0 ]; then
			die "$spec is not in the package lists: run 'apt-get update' as root, then again (downloading needs no root)"
		fi
		echo "$prog: $spec is not in the package lists: apt-get update" >&2
		apt-get "${lsd_apt[@]}" update >/dev/null 2>"$err" ||
			die "apt-get update failed: $(apt_said "$err")"
		(cd "$dir" && apt-get "${lsd_apt[@]}" download "$spec") >/dev/null 2>"$err" ||
			die "apt-get download $spec failed: $(apt_said "$err")"
	fi
	lsd_deb=$(find "$dir" -maxdepth 1 -name "${pkg}_*.deb" | head -n 1)
	[ -n "$lsd_deb" ] || die "apt-get download $spec left no ${pkg}_*.deb"
	lsd_version=$(dpkg-deb -f "$lsd_deb" Version)
}

# lsd_sid CACHE: point lsd_apt at a private apt configuration for Debian
# unstable under CACHE (a sources list, package lists and apt's own cache
# there; the system's sources and lists are never touched) and refresh its
# lists when they are missing or a day old.  The machine's sources are
# Debian 12 only, and the newest linux-source-SERIES is published in
# unstable.  The Release file is checked against the system's Debian
# archive keyring, as for the system's own sources.
lsd_sid() {
	local cache=$1 keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	local err=$1/update.err

	[ -r "$keyring" ] ||
		die "needs $keyring (package debian-archive-keyring) to check Debian unstable"
	mkdir -p "$cache/lists/partial" "$cache/archives/partial"
	echo "deb [signed-by=$keyring] http://deb.debian.org/debian unstable main" \
		>"$cache/sources.list"
	lsd_apt=(-o "Dir::Etc::SourceList=$cache/sources.list"
		-o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$cache/lists"
		-o "Dir::Cache=$cache"
		-o "Dir::Cache::archives=$cache/archives")
	if [ -z "$(find "$cache/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440)" ]; then
		apt-get "${lsd_apt[@]}" update >/dev/null 2>"$err" ||
			die "apt-get update for Debian unstable failed: $(apt_said "$err")"
	fi
}

# lsd_newest_series: the highest SERIES of a linux-source-SERIES package in
# the package lists lsd_apt names (after lsd_sid: Debian unstable).
lsd_newest_series() {
	apt-cache "${lsd_apt[@]}" pkgnames linux-source- |
		sed -n 's/^linux-source-\([0-9][0-9]*\.[0-9][0-9]*\)$/\1/p' |
		sort -V | tail -n 1
}

# lsd_extract DEB SERIES DEST PATH...: extract each kernel PATH (a file or
# a folder; shell wildcards allowed, `*` not crossing a `/`) of
# linux-source-SERIES.tar.xz into DEST, at DEST/<kernel path>.
lsd_extract() {
	local deb=$1 dest=$3 top=linux-source-$2 p
	local -a members=()

	shift 3
	for p; do
		members+=("$top/$p")
	done
	mkdir -p "$dest"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO -f - "./usr/src/$top.tar.xz" |
		xz -dc |
		tar -x -f - -C "$dest" --strip-components=1 \
			--wildcards --no-wildcards-match-slash "${members[@]}" ||
		die "$(basename "$deb"): usr/src/$top.tar.xz lacks one of: $*"
}

# lsd_extract_all DEB SERIES DEST: the whole linux-source-SERIES tree of
# DEB into DEST (~1.5 GB unpacked), at DEST/<kernel path>.
lsd_extract_all() {
	local deb=$1 dest=$3 top=linux-source-$2

	mkdir -p "$dest"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO -f - "./usr/src/$top.tar.xz" |
		xz -dc -T0 |
		tar -x -f - -C "$dest" --strip-components=1 ||
		die "$(basename "$deb"): cannot unpack usr/src/$top.tar.xz"
}

# lsd_row FILE NAME: one "| NAME | bytes | sha256 |" table row, the form of
# the kernel fixtures' README (tests/ksrc/checksums.sh reads it).
lsd_row() {
	printf '| %s | %s | %s |\n' "$2" "$(wc -c <"$1")" \
		"$(sha256sum "$1" | cut -d' ' -f1)"
}
