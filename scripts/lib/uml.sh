# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# scripts/lib/uml.sh: boot a user-mode Linux kernel once, with the host's
# root read-write on hostfs and a script of ours as its init, for the
# scripts that judge a real kernel (uml-oracle.sh, uml-batch.sh,
# uml-run.sh).
#
# The init script runs as the UML kernel's pid 1 and must end with
# uml_init_tail's lines: the kernel gives init no PATH and no mounts
# (uml_init_head), and a UML whose init returns panics instead of
# halting.  Everything UML writes for the host goes into a folder outside
# /tmp, which is a tmpfs of UML's own.
#
#   die MESSAGE                 bad usage: one line, exit 2
#   uml_parse_opts USAGE OPT=VAR... -- ARG...
#                               read the options of the command line:
#                               --kernel, --timeout, --log and OPTs
#   uml_need PROG KERNEL        exit 77 (skipped) unless root, UML, mkfs
#   uml_mkfs FS BLOCK           the command that makes FS on ubd0
#   uml_init_head, uml_init_tail  an init script's first and last lines
#   uml_run KERNEL WORK INIT LOG TIMEOUT NAME
#                               boot KERNEL with WORK/disk.img (512 MiB,
#                               sparse) as ubd0 and INIT as init, wait for
#                               it to halt; 1 when TIMEOUT seconds passed
#                               and it was killed; uml_ms: how long it ran
#   uml_kill                    kill a UML still running (in an EXIT trap)

# shellcheck disable=SC2034 # uml_ms: for the caller
uml_pid=
uml_ms=0

# bad usage: one line, exit 2 (the caller sets `prog`, its name; the same
# as lib/tree-opts.sh's, which tree-diff.sh sources along with this)
# shellcheck disable=SC2154 # prog
die() {
	echo "$prog: $*" >&2
	exit 2
}

# uml_parse_opts USAGE OPTION=VARIABLE... -- "$@": read the leading
# arguments that are options, each taking a value, or -h/--help (the
# script's header comment); stop at the first other argument.  The
# options every UML script takes: --kernel LINUX into `kernel` (default
# Debian's user-mode-linux), --timeout SECS into `timeout` (its default
# the caller's) and --log FILE into `log` (default none); then the
# caller's OPTIONs, each into its VARIABLE.  A missing value fails (die)
# with USAGE.  Sets uml_opts_used to the arguments read, for the caller
# to shift, and leaves the other arguments to the caller.
uml_parse_opts() {
	local uml_usage=$1
	local -A uml_var=([--kernel]=kernel [--timeout]=timeout [--log]=log)
	shift
	# shellcheck disable=SC2034 # for the caller
	kernel=/usr/bin/linux.uml log=
	while [ "$1" != -- ]; do
		uml_var[${1%%=*}]=${1#*=}
		shift
	done
	shift
	# shellcheck disable=SC2034 # for the caller
	uml_opts_used=0
	while [ $# -gt 0 ]; do
		case $1 in
		-h | --help)
			awk 'NR > 2 && !/^#/ { exit }
				NR > 2 { sub(/^# ?/, ""); print }' "$0"
			exit 0
			;;
		--*) [ -n "${uml_var[$1]:-}" ] || break ;;
		*) break ;;
		esac
		[ $# -ge 2 ] || die "$1 needs a value; $uml_usage"
		printf -v "${uml_var[$1]}" %s "$2"
		uml_opts_used=$((uml_opts_used + 2))
		shift 2
	done
}

# something needed is missing: one line, and the skip status
uml_need() {
	local prog=$1 kernel=$2 t
	[ "$(id -u)" -eq 0 ] || {
		echo "$prog: needs root (UML formats and mounts its devices as the host's root user)"
		exit 77
	}
	[ -x "$kernel" ] || {
		echo "$prog: no UML kernel at $kernel (Debian's user-mode-linux package, or scripts/uml-kernel.sh)"
		exit 77
	}
	for t in mkfs.ext4 mkfs.xfs setsid; do
		command -v "$t" >/dev/null || {
			echo "$prog: needs $t (scripts/quickstart.sh deps)"
			exit 77
		}
	done
}

# the file system FS with BLOCK-byte blocks, made afresh on UML's ubd0
uml_mkfs() {
	case $1 in
	xfs) echo "mkfs.xfs -q -f -b size=$2 /dev/ubda" ;;
	ext4) echo "mkfs.ext4 -q -F -b $2 /dev/ubda" ;;
	esac
}

uml_init_head() {
	cat <<'HEAD'
#!/bin/sh
# init of the UML kernel (the kernel gives init no PATH, and mkfs.* live
# in /sbin)
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
# a tmpfs of its own for /tmp, unless this script's folder is in the
# host's /tmp (a clone there): the tmpfs would hide it
case $0 in
/tmp/*) ;;
*) mount -t tmpfs tmp /tmp ;;
esac
HEAD
}

# halt: an init that returns panics the kernel
uml_init_tail() {
	printf 'echo o >/proc/sysrq-trigger\nsleep 60\n'
}

# the UML still running, its whole process group, by its own pid
uml_kill() {
	if [ -n "$uml_pid" ] && kill -0 "$uml_pid" 2>/dev/null; then
		kill -KILL -- "-$uml_pid" 2>/dev/null ||
			kill -KILL "$uml_pid" 2>/dev/null || true
		wait "$uml_pid" 2>/dev/null || true
	fi
	uml_pid=
}

uml_run() {
	local kernel=$1 work=$2 init=$3 log=$4 timeout=$5 name=$6 start end
	truncate -s 512M "$work/disk.img"
	start=$(date +%s%N)
	setsid "$kernel" mem=512M umid="$name-$$" uml_dir="$work" \
		root=/dev/root rootfstype=hostfs rootflags=/ rw \
		ubd0="$work/disk.img" init="$init" con=null con0=fd:0,fd:1 \
		</dev/null >"$log" 2>&1 &
	uml_pid=$!
	end=$(($(date +%s) + timeout))
	while kill -0 "$uml_pid" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do
		sleep 0.2
	done
	# shellcheck disable=SC2034 # for the caller
	uml_ms=$((($(date +%s%N) - start) / 1000000))
	if kill -0 "$uml_pid" 2>/dev/null; then
		uml_kill
		return 1
	fi
	wait "$uml_pid" 2>/dev/null || true
	uml_pid=
	return 0
}

# The tree KERNEL was built from, for Debian's UML package: linux-source
# at `KERNEL --version`, fetched once (scripts/get-kernel-tree.sh) into
# ~/.cache/iomapsim/trees/; its path on stdout.  Exits 77 with one line
# when it cannot be had.
uml_kernel_tree() {
	local prog=$1 kernel=$2 top=$3 ver series pkgver tree
	ver=$("$kernel" --version 2>/dev/null | head -n 1)
	case $ver in
	6.1.*) series=6.1 ;;
	6.12.*) series=6.12 ;;
	*)
		echo "$prog: UML kernel $kernel says version '$ver': give its tree with --tree"
		exit 77
		;;
	esac
	tree=$HOME/.cache/iomapsim/trees/linux-$ver-debian
	if [ -f "$tree/fs/iomap/direct-io.c" ]; then
		echo "$tree"
		return
	fi
	madison() {
		apt-cache madison "linux-source-$series" 2>/dev/null |
			awk -v v="$ver" '$3 ~ "^" v "-" { print $3; exit }'
	}
	pkgver=$(madison)
	# package lists never fetched on this machine: once, as root
	if [ -z "$pkgver" ]; then
		apt-get update -qq >/dev/null 2>&1 || true
		pkgver=$(madison)
	fi
	if [ -z "$pkgver" ]; then
		echo "$prog: Debian's archive has no linux-source-$series $ver for $kernel (apt-get update, or --tree)"
		exit 77
	fi
	echo "$prog: fetching linux-source-$series $pkgver (the tree of $kernel)" >&2
	"$top/scripts/get-kernel-tree.sh" --force --version "$pkgver" \
		"debian-$series" "$tree" >/dev/null
	echo "$tree"
}
