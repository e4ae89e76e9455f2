#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# 4 KiB O_DIRECT random reads with fio through the iomapsim mount and
# through libfuse's own passthrough_ll example serving the same backing
# image file, in the same run: queue depth 1 (psync) and 64 (io_uring).
# Prints IOPS for each and the ratio iomapsim / passthrough_ll.  A
# benchmark, not a test: the figures depend on the machine.
#
#   bench/fuse-vs-passthrough.sh [--busy] [--also OPTS] [--keep-uring] BUILD_DIR [SECONDS] [ROUNDS]
#
# Each depth is measured ROUNDS times (default 3), the servers taking
# turns, iomapsim first in even rounds and passthrough_ll first in odd
# ones; the IOPS reported are each server's median, the ratio is the
# median of the rounds' ratios (each round's runs back to back): on a
# shared or virtual machine the speed drifts by a tenth and more between
# runs, and a ratio within a round sees the least of it.  The iomapsim
# mount has its default options ($IOMAPSIM_BENCH_OPTS adds to them) and is
# mounted afresh for each run, so each run's poll statistics are its own.
#
#   --busy       measure everything twice: on the idle machine, then with
#                one CPU kept busy by a CPU-bound process this script
#                starts (pinned to the last CPU) and stops; a table each.
#   --also OPTS  in every round, also measure an iomapsim mount with these
#                options added (e.g. --also poll=0), as a second column
#                with its ratio to the default mount's.
#   --keep-uring leave the kernel's FUSE io_uring switch as it is.  By
#                default, where the kernel has one
#                (/sys/module/fuse/parameters/enable_uring, Linux 6.14+)
#                and it is off, the script turns it on for its run and
#                back off at the end: the mount then serves its requests
#                over io_uring (its default uring=auto), passthrough_ll
#                (libfuse 3.14) through /dev/fuse as before.  Compare
#                the two with --also uring=off.
#
# Under each table: each server's CPU time per read (median; it depends
# far less on what else the machine runs than IOPS do), every round's
# figures, and the mount's poll governor (tools/fuse/host/poll-gov.c)
# summed over the runs of each depth.  The load average is printed: on a
# machine that is not idle, polling rightly stays off and IOPS mean
# little.
#
# Needs root, /dev/fuse, fio and the libfuse3-dev examples
# (/usr/share/doc/libfuse3-dev/examples/passthrough_ll.c), which this
# script compiles into BUILD_DIR.  $IOMAPSIM_BENCH_DIR (default /var/tmp)
# holds the image; it must support O_DIRECT.
set -euo pipefail

usage="usage: $0 [--busy] [--also OPTS] [--keep-uring] BUILD_DIR [SECONDS] [ROUNDS]"
busy=0
also=
keep_uring=0
while [ $# -gt 0 ]; do
	case $1 in
	--busy) busy=1; shift ;;
	--also) also=${2:?$usage}; shift 2 ;;
	--keep-uring) keep_uring=1; shift ;;
	-*) echo "$usage" >&2; exit 1 ;;
	*) break ;;
	esac
done
build=$(realpath "${1:?$usage}")
secs=${2:-10}
rounds=${3:-3}
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
bench_positive "SECONDS and ROUNDS" "$secs" "$rounds"
bin=$build/iomapsim
ex=/usr/share/doc/libfuse3-dev/examples
size_mb=256

for t in fio fusermount3 gcc pkg-config python3; do
	command -v $t >/dev/null || { echo "bench: needs $t" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "bench: no $bin (build first)" >&2; exit 1; }
[ -f $ex/passthrough_ll.c ] || {
	echo "bench: no $ex/passthrough_ll.c (Debian package libfuse3-dev)" >&2
	exit 1
}

# passthrough_ll from the installed libfuse's examples, unchanged
pll=$build/passthrough_ll
if [ ! -x "$pll" ] || [ $ex/passthrough_ll.c -nt "$pll" ]; then
	gcc -O2 -Wall -I$ex -o "$pll" $ex/passthrough_ll.c \
		$(pkg-config --cflags --libs fuse3)
fi

work=$(mktemp -d "${IOMAPSIM_BENCH_DIR:-/var/tmp}/iomapsim-bench-XXXXXX")
src=$work/src		# passthrough_ll's source directory
img=$src/image		# the one backing file both serve
m_sim=$work/sim
m_pll=$work/pll
hog=
pll_pid=
uring_param=/sys/module/fuse/parameters/enable_uring
uring_was=
mkdir -p "$src" "$m_sim" "$m_pll"
cleanup() {
	[ -z "$hog" ] || kill "$hog" 2>/dev/null || true
	fusermount3 -u "$m_sim" 2>/dev/null || true
	fusermount3 -u "$m_pll" 2>/dev/null || true
	sleep 0.2
	# a server the unmount did not end must not outlive its directory
	[ -z "$pll_pid" ] || kill "$pll_pid" 2>/dev/null || true
	rm -rf "$work"
	# as it was (a live connection keeps what it negotiated)
	[ -z "$uring_was" ] || echo "$uring_was" >"$uring_param" || true
}
trap cleanup EXIT
if [ -w "$uring_param" ] && [ $keep_uring = 0 ] &&
	[ "$(cat "$uring_param")" != Y ]; then
	uring_was=$(cat "$uring_param")
	echo Y >"$uring_param"
fi
uring_note="FUSE io_uring: $(cat "$uring_param" 2>/dev/null || echo "not in this kernel")"
[ -z "$uring_was" ] || uring_note+=" (turned on for this run, was $uring_was)"

mount_sim() { # EXTRA_OPTIONS
	local o="commit=0${IOMAPSIM_BENCH_OPTS:+,$IOMAPSIM_BENCH_OPTS}"

	"$bin" mount -o "$o${1:+,$1}" "$img" "$m_sim" >/dev/null
}

umount_sim() {
	local i

	fusermount3 -u "$m_sim"
	# the daemon commits and exits after the unmount
	for ((i = 0; i < 600; i++)); do
		pgrep -f "iomapsim mount .*$m_sim" >/dev/null || return 0
		sleep 0.05
	done
	echo "bench: the iomapsim daemon did not exit after the unmount" >&2
	exit 1
}

"$bin" mkfs "$img" --size 1g >/dev/null
mount_sim ""
# the data: one file of $size_mb MiB written through the mount
fio --name=fill --filename="$m_sim/data" --direct=1 --rw=write --bs=1m \
	--size=${size_mb}m --ioengine=psync --output=/dev/null
umount_sim
# Every block of the image written, its content unchanged.  mkfs leaves
# it sparse, and passthrough_ll reads its first $size_mb MiB, where the
# file system's free space was never written: an O_DIRECT read of a hole
# returns zeros without going to the device (1 us instead of 60), which
# gave passthrough_ll one read in eight (the holes' share of that span)
# for free, while every read of the data file through iomapsim went to
# the device.  Dense, both servers' reads all go to the device.
cp --sparse=never "$img" "$img.dense"
mv "$img.dense" "$img"
"$pll" -o source="$src",cache=never "$m_pll"
pll_pid=$(pgrep -f "passthrough_ll -o source=$src" | head -1)

tck=$(getconf CLK_TCK)
cpu_ticks() { # PID: user + system time of all its threads
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# "IOPS CPU": CPU is the server's CPU time per read in microseconds (its
# ramp included, at the same rate): a figure the machine's other load
# sways far less than IOPS.
fio_iops() { # FILE ENGINE DEPTH SERVER_PID
	local c0 c1 iops

	c0=$(cpu_ticks "$4")
	iops=$(fio --name=bench --filename="$1" --direct=1 --rw=randread \
		--bs=4k --size=${size_mb}m --ioengine="$2" --iodepth="$3" \
		--runtime="$secs" --ramp_time=1 --time_based \
		--randrepeat=0 --norandommap --output-format=json |
		python3 -c 'import json,sys; print(int(json.load(sys.stdin)["jobs"][0]["read"]["iops"]))')
	c1=$(cpu_ticks "$4")
	echo "$iops $(python3 -c "print(f'{($c1 - $c0) / $tck * 1e6 / max($iops * ($secs + 1), 1):.1f}')")"
}

# One run on a fresh iomapsim mount; its counters go to STATS_FILE.
sim_run() { # EXTRA_OPTIONS ENGINE DEPTH STATS_FILE
	local r

	mount_sim "$1"
	r=$(fio_iops "$m_sim/data" "$2" "$3" \
		"$(pgrep -f "iomapsim mount .*$m_sim" | head -1)")
	{ echo "# run"; cat "$m_sim/.iomapsim/stats"; } >>"$4"
	umount_sim
	echo "$r"
}

median() { # PRINTF_FORMAT numbers...
	local fmt=$1
	shift
	printf '%s\n' "$@" | sort -g | awk -v fmt="$fmt" '
		{ v[NR] = $1 }
		END {
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf fmt, m
		}'
}

ratio() { python3 -c "print(f'{$1/$2:.3f}' if $2 else 0)"; }

# The poll governor's counters, summed over a depth's runs.
poll_stats() { # LABEL STATS_FILE
	python3 - "$1" "$2" <<'EOF'
import sys
label, path = sys.argv[1], sys.argv[2]
runs, tot, last = 0, {}, {}
for line in open(path):
    if line.startswith("# run"):
        runs += 1
        continue
    f = line.split()
    if len(f) != 2 or line.startswith("#"):
        continue
    try:
        v = int(f[1])
    except ValueError:
        continue
    tot[f[0]] = tot.get(f[0], 0) + v
    last[f[0]] = v
g = lambda k: tot.get(k, 0)
def win(prefix):
    w, h, ns = g(prefix + "_windows"), g(prefix + "_hits"), g(prefix + "_spent_ns")
    pct = f"{100 * h / w:.0f}%" if w else "-"
    return f"{w} windows, {h} hits ({pct}), {ns / 1e6:.1f} ms spent"
reads = g("device_read_bios")
print(f"  {label} ({runs} runs, {reads} device reads):")
print(f"    next request  {win('fuse_poll')}; "
      f"{g('fuse_poll_no_idle_cpu')} refused (no idle CPU)")
print(f"    completion    {win('bdev_file_poll')}; "
      f"{g('bdev_file_submit_and_wait')} lone reads submitted and "
      f"waited for in one io_uring_enter")
print(f"    sleeping      {g('fuse_clone_reads')} requests read by a worker "
      f"asleep in read() on its /dev/fuse clone")
print(f"    io_uring      {g('fuse_uring_requests')} requests over FUSE "
      f"io_uring")
print(f"    decisions     {g('fuse_poll_trials_won')} of "
      f"{g('fuse_poll_trials')} chose polling; last run's last epochs: "
      f"mean cycle {last.get('fuse_poll_cycle_polling_ns', 0) / 1e3:.1f} us "
      f"polling, {last.get('fuse_poll_cycle_sleeping_ns', 0) / 1e3:.1f} us "
      f"sleeping")
EOF
}

measure() { # TITLE
	local depth engine r s a p what sc pc
	local -A res all
	local sims alsos plls ratios aratios scpu pcpu

	for depth in 1 64; do
		if [ $depth = 1 ]; then engine=psync; else engine=io_uring; fi
		sims=() alsos=() plls=() ratios=() aratios=() scpu=() pcpu=()
		: >"$work/stats-$depth" >"$work/stats-also-$depth"
		for ((r = 0; r < rounds; r++)); do
			# the image's first $size_mb MiB: the same backing file, a
			# span of the same size, every block on the device.  Odd
			# rounds go the other way round: a device that speeds up
			# or slows down during a round favours neither server.
			((r % 2 == 0)) || read -r p pc < <(fio_iops \
				"$m_pll/image" $engine $depth "$pll_pid")
			read -r s sc < <(sim_run "" $engine $depth \
				"$work/stats-$depth")
			if [ -n "$also" ]; then
				read -r a _ < <(sim_run "$also" $engine \
					$depth "$work/stats-also-$depth")
				alsos+=("$a")
				aratios+=("$(ratio "$a" "$s")")
			fi
			((r % 2 == 1)) || read -r p pc < <(fio_iops \
				"$m_pll/image" $engine $depth "$pll_pid")
			sims+=("$s")
			plls+=("$p")
			scpu+=("$sc")
			pcpu+=("$pc")
			ratios+=("$(ratio "$s" "$p")")
		done
		res[sim,$depth]=$(median %d "${sims[@]}")
		res[pll,$depth]=$(median %d "${plls[@]}")
		res[ratio,$depth]=$(median %.2f "${ratios[@]}")
		res[scpu,$depth]=$(median %.1f "${scpu[@]}")
		res[pcpu,$depth]=$(median %.1f "${pcpu[@]}")
		all[$depth]="iomapsim ${sims[*]}; passthrough_ll ${plls[*]}; ratios ${ratios[*]}"
		if [ -n "$also" ]; then
			res[also,$depth]=$(median %d "${alsos[@]}")
			res[aratio,$depth]=$(median %.2f "${aratios[@]}")
			all[$depth]+="; iomapsim $also ${alsos[*]}; its ratios to iomapsim ${aratios[*]}"
		fi
	done

	echo "== $1"
	echo "4 KiB O_DIRECT random reads, ${secs} s each, ${size_mb} MiB span," \
		"backing file $img; median of $rounds rounds, taking turns;" \
		"load average before: $(cut -d' ' -f1-4 /proc/loadavg)"
	if [ -n "$also" ]; then
		printf '%-22s %10s %16s %7s %14s %9s\n' "" "iomapsim" \
			"passthrough_ll" "ratio" "+$also" "/iomapsim"
	else
		printf '%-22s %10s %16s %7s\n' "" "iomapsim" "passthrough_ll" \
			"ratio"
	fi
	for depth in 1 64; do
		if [ $depth = 1 ]; then what="QD1 (psync)"; else what="QD64 (io_uring)"; fi
		if [ -n "$also" ]; then
			printf '%-22s %10s %16s %7s %14s %9s\n' "$what IOPS" \
				"${res[sim,$depth]}" "${res[pll,$depth]}" \
				"${res[ratio,$depth]}" "${res[also,$depth]}" \
				"${res[aratio,$depth]}"
		else
			printf '%-22s %10s %16s %7s\n' "$what IOPS" \
				"${res[sim,$depth]}" "${res[pll,$depth]}" \
				"${res[ratio,$depth]}"
		fi
	done
	echo "server CPU time per read, median (us): QD1 iomapsim" \
		"${res[scpu,1]}, passthrough_ll ${res[pcpu,1]}; QD64 iomapsim" \
		"${res[scpu,64]}, passthrough_ll ${res[pcpu,64]}"
	for depth in 1 64; do
		echo "QD$depth rounds: ${all[$depth]}"
	done
	echo "iomapsim poll governor, summed over the runs:"
	for depth in 1 64; do
		poll_stats "QD$depth" "$work/stats-$depth"
		[ -z "$also" ] ||
			poll_stats "QD$depth, +$also" "$work/stats-also-$depth"
	done
	echo
}

echo "iomapsim: $(git -C "$(dirname "$0")" describe --always --dirty 2>/dev/null || echo '?')," \
	"$(nproc) CPUs; options: defaults${IOMAPSIM_BENCH_OPTS:+,$IOMAPSIM_BENCH_OPTS};" \
	"$uring_note"
measure "no load added by this script"
if [ $busy = 1 ]; then
	cpu=$(($(nproc) - 1))
	# one CPU-bound process, no system calls, on the last CPU
	if command -v taskset >/dev/null; then
		taskset -c $cpu awk 'BEGIN { for (;;) ; }' &
	else
		awk 'BEGIN { for (;;) ; }' &
	fi
	hog=$!
	sleep 1
	measure "one CPU busy (pid $hog, a CPU-bound loop on CPU $cpu)"
	kill $hog
	wait $hog 2>/dev/null || true
	hog=
fi
