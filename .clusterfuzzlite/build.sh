#!/bin/bash -eu
# SPDX-License-Identifier: GPL-2.0-only
#
# Builds the iomapsim fuzz targets the OSS-Fuzz way, for ClusterFuzzLite,
# OSS-Fuzz and fuzz/smoke.sh alike.
#
# Inputs, as OSS-Fuzz sets them: CC, CFLAGS (sanitizers and
# -fsanitize=fuzzer-no-link included), LIB_FUZZING_ENGINE (libFuzzer's
# link flags), OUT (where the fuzzers go), WORK (scratch), SRC.  And, for
# fuzz/smoke.sh: IOMAPSIM_KERNEL_TREE (fuzz a kernel tree's iomap code)
# and IOMAPSIM_FUZZ_TARGETS (the targets to build, default all).  The source
# tree is the one this script lives in (.clusterfuzzlite/..), or $PWD when
# the script was copied to $SRC/build.sh, as the Dockerfile does.
#
# Output in $OUT, per target T: T, T_seed_corpus.zip (seed corpus plus
# saved regressions), T.dict, T.options.  Shared libraries the runner image
# may lack are not allowed: the dependencies are linked statically, and
# the script fails if a target still needs one.
top=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$top/fuzz/CMakeLists.txt" ]; then
	top=$PWD
fi
if [ ! -f "$top/fuzz/CMakeLists.txt" ]; then
	echo "build.sh: cannot find the iomapsim source tree" >&2
	exit 1
fi
: "${CC:=clang}"
: "${CFLAGS:=}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
: "${WORK:=/tmp}"
: "${OUT:?set OUT to the output directory}"
jobs=$(nproc 2>/dev/null || echo 2)
jobs=${IOMAPSIM_JOBS:-$jobs}
build=$WORK/iomapsim-fuzz-build
mkdir -p "$OUT" "$build"

# The fuzz environment has no /dev, no FUSE and a read-only file system
# outside /tmp: the targets only use in-memory devices.  liburing and
# libblkid are linked statically (IOMAPSIM_FUZZ_STATIC) so the binaries run
# on a runner image that never had them installed.  Warnings stay
# warnings: another clang may warn about more.
cmake -S "$top" -B "$build" \
	-DCMAKE_C_COMPILER="$CC" \
	-DCMAKE_C_FLAGS="$CFLAGS" \
	-DCMAKE_BUILD_TYPE=Fuzz \
	-DIOMAPSIM_FUZZ_STATIC=ON \
	-DIOMAPSIM_FUZZ=ON \
	-DIOMAPSIM_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" \
	-DIOMAPSIM_KERNEL_TREE="${IOMAPSIM_KERNEL_TREE:-}" \
	-DIOMAPSIM_WERROR=OFF >"$build/configure.log" 2>&1 || {
	cat "$build/configure.log" >&2
	exit 1
}
# shellcheck disable=SC2086 # a list of targets
cmake --build "$build" -j"$jobs" --target ${IOMAPSIM_FUZZ_TARGETS:-fuzz_targets} \
	>"$build/build.log" 2>&1 || {
	tail -50 "$build/build.log" >&2
	exit 1
}

# Shared libraries the runner image is sure to have.
base_libs='linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libstdc\+\+|libgcc_s'

shipped=0
for bin in "$build"/fuzz/fuzz_*; do
	if [ ! -f "$bin" ] || [ ! -x "$bin" ]; then
		continue
	fi
	name=$(basename "$bin")
	case $name in fuzz_replay_*) continue ;; esac
	t=${name#fuzz_}
	cp "$bin" "$OUT/$name"
	for f in dict options; do
		if [ -f "$top/fuzz/$name.$f" ]; then
			cp "$top/fuzz/$name.$f" "$OUT/$name.$f"
		fi
	done
	python3 - "$OUT/${name}_seed_corpus.zip" "$top/fuzz/corpus/$t" \
		"$top/fuzz/regressions/$t" <<'PY'
import os, sys, zipfile
out, dirs = sys.argv[1], sys.argv[2:]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for d in dirs:
        if not os.path.isdir(d):
            continue
        for n in sorted(os.listdir(d)):
            p = os.path.join(d, n)
            if os.path.isfile(p) and not n.startswith("."):
                z.write(p, os.path.basename(d) + "-" + n)
PY
	# The runner image has only the base libraries.
	if command -v ldd >/dev/null; then
		extra=$(ldd "$OUT/$name" | awk '$3 ~ /^\// {print $3}' |
			grep -Ev "$base_libs" || true)
		if [ -n "$extra" ]; then
			echo "build.sh: $name needs $(echo $extra | tr '\n' ' ')" \
				"- these are not linked statically" >&2
			exit 1
		fi
	fi
	shipped=$((shipped + 1))
	echo "build.sh: $OUT/$name"
done
if [ "$shipped" -eq 0 ]; then
	echo "build.sh: no fuzz target was built" >&2
	exit 1
fi
