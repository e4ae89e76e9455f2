#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Mutation testing: how many one-line behaviour changes in iomap/, block/
# and the simple path do the unit suites catch?
#
#   scripts/mutate.sh [--check] [--fuzz] [--only REGEX] [-j N] [CATALOGUE]
#
# Copies the working tree (tracked files, uncommitted edits included) to a
# scratch directory under /tmp, builds it once, then for each mutant of
# CATALOGUE (scripts/mutants.tsv; format in its header) applies it to the
# copy, rebuilds the unit-suite executables incrementally and runs
# `ctest -L '^(sim|block|iomap|cli)$' -LE script` (those layers' Check
# suites).  A mutant is killed when a suite fails (or the build fails:
# reported apart, not scored).  --fuzz also runs the
# fuzz replay tests (corpus and regressions) against each mutant that the
# suites missed.  Prints each result, the score, and every survivor with
# its diff; exits 0 whatever the score.  Not part of CI: it takes about
# 15 s per mutant on one core.  Your own tree is never modified.
#
#   --check    only verify that every mutant applies (no build)
#   --only RE  only the mutants whose ID matches the extended regex RE
#   -j N       build parallelism (1; the machine may be shared)
set -euo pipefail

check=0 fuzz=0 only= jobs=1 catalogue=
while [ $# -gt 0 ]; do
	case "$1" in
	--check) check=1 ;;
	--fuzz) fuzz=1 ;;
	--only) only=$2; shift ;;
	-j) jobs=$2; shift ;;
	-j*) jobs=${1#-j} ;;
	-h|--help) sed -n '4,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "mutate.sh: unknown option $1" >&2; exit 2 ;;
	*) catalogue=$1 ;;
	esac
	shift
done

repo=$(cd "$(dirname "$0")/.." && pwd)
catalogue=${catalogue:-$repo/scripts/mutants.tsv}
[ -r "$catalogue" ] || { echo "mutate.sh: cannot read $catalogue" >&2; exit 2; }
catalogue=$(cd "$(dirname "$catalogue")" && pwd)/$(basename "$catalogue")

scratch=$(mktemp -d /tmp/iomapsim-mutate.XXXXXX)
# a mutant can stop block_backend_file between its chattr +i and -i
trap 'chattr -R -i "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT
src=$scratch/src
mkdir -p "$src"
(cd "$repo" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$src"

# apply.py ID SRC OUT: write the mutated file to OUT, print its path
# relative to SRC; "list" prints the IDs.
cat >"$scratch/apply.py" <<'EOF'
import sys

def unesc(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == '\\' and i + 1 < len(s):
            out.append({'n': '\n', 't': '\t', '\\': '\\'}.get(s[i + 1],
                                                           s[i + 1]))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return ''.join(out)

def mutants(path):
    for n, line in enumerate(open(path), 1):
        line = line.rstrip('\n')
        if not line or line.startswith('#'):
            continue
        f = line.split('\t')
        if len(f) != 5:
            sys.exit(f'{path}:{n}: {len(f)} fields, want 5')
        yield n, f[0], f[1], unesc(f[2]), unesc(f[3]), unesc(f[4])

def apply(src, file, anchor, old, new):
    text = open(f'{src}/{file}').read()
    start = 0
    if anchor:
        if text.count(anchor) != 1:
            return None, f'anchor found {text.count(anchor)} times'
        start = text.rfind('\n', 0, text.index(anchor)) + 1
    elif text.count(old) != 1:
        return None, f'found {text.count(old)} times'
    at = text.find(old, start)
    if at < 0:
        return None, 'not found after the anchor'
    return text[:at] + new + text[at + len(old):], None

cmd, cat = sys.argv[1], sys.argv[2]
if cmd == 'list':
    seen = set()
    for n, mid, *_ in mutants(cat):
        if mid in seen:
            sys.exit(f'{cat}:{n}: duplicate ID {mid}')
        seen.add(mid)
        print(mid)
elif cmd == 'check':
    bad = 0
    for n, mid, file, anchor, old, new in mutants(cat):
        text, err = apply(sys.argv[3], file, anchor, old, new)
        if err:
            print(f'{cat}:{n}: {mid}: {file}: {err}')
            bad += 1
    sys.exit(1 if bad else 0)
else:  # apply ID SRC OUT
    for n, mid, file, anchor, old, new in mutants(cat):
        if mid == cmd:
            text, err = apply(sys.argv[3], file, anchor, old, new)
            if err:
                sys.exit(f'{mid}: {err}')
            open(sys.argv[4], 'w').write(text)
            print(file)
            break
    else:
        sys.exit(f'no mutant {cmd}')
EOF

if ! python3 "$scratch/apply.py" check "$catalogue" "$src"; then
	echo "mutate.sh: the catalogue does not apply to this tree" >&2
	exit 1
fi
mapfile -t ids < <(python3 "$scratch/apply.py" list "$catalogue")
if [ -n "$only" ]; then
	mapfile -t ids < <(printf '%s\n' "${ids[@]}" | grep -E -- "$only" || true)
fi
if [ $check = 1 ]; then
	echo "mutate.sh: ${#ids[@]} mutants apply"
	exit 0
fi

# the Check suites of these layers, not the script tests (label script)
labels=(-L '^(sim|block|iomap|cli)$' -LE '^script$')
build=$scratch/build
echo "mutate.sh: ${#ids[@]} mutants; building the copy in $build" >&2
cmake -S "$src" -B "$build" -DIOMAPSIM_WERROR=ON >"$scratch/cmake.log" 2>&1 ||
	{ cat "$scratch/cmake.log" >&2; exit 1; }
# each suite is the executable of its name; the cli suites run iomapsim
mapfile -t targets < <(ctest --test-dir "$build" -N "${labels[@]}" |
			sed -n 's/^ *Test *#[0-9]*: //p')
targets+=(iomapsim)
replay=()
if [ $fuzz = 1 ]; then
	mapfile -t replay < <(ctest --test-dir "$build" -N -R '^fuzz_replay_' |
			      sed -n 's/^ *Test *#[0-9]*: //p')
fi
build_targets() {
	cmake --build "$build" -j "$jobs" --target "${targets[@]}" \
		${replay[@]+"${replay[@]}"} >"$scratch/build.log" 2>&1
}
build_targets || { echo "mutate.sh: the unmutated copy does not build" >&2
		   tail -20 "$scratch/build.log" >&2; exit 1; }
ctest --test-dir "$build" "${labels[@]}" >/dev/null 2>&1 ||
	{ echo "mutate.sh: the unmutated copy fails its suites" >&2; exit 1; }

# "suite suite (case, case)" from a ctest log: the failed suites and the
# first four failing Check test cases
failures() {
	local suites cases
	suites=$(sed -n 's/^.*[0-9]* - \([a-z_0-9]*\) (.*)$/\1/p' "$1" |
		 paste -sd' ' -)
	[ -n "$suites" ] || return 0
	cases=$(sed -n 's/^[^ ]*:[0-9]*:[FE]:[^:]*:\(test_[a-z_0-9]*\):.*/\1/p' \
		"$1" | awk '!seen[$0]++' | head -4 | paste -sd, - |
		sed 's/,/, /g')
	echo "$suites${cases:+ ($cases)}"
}

killed=0 survived=0 stillborn=0
survivors=()
for id in "${ids[@]}"; do
	file=$(python3 "$scratch/apply.py" "$id" "$catalogue" "$src" \
		"$scratch/mutant")
	cp -p "$src/$file" "$scratch/orig"
	cp "$scratch/mutant" "$src/$file"
	t0=$(date +%s)
	if ! build_targets; then
		result="stillborn: $(grep -m1 'error' "$scratch/build.log" |
				     sed 's|^.*/src/||')"
		stillborn=$((stillborn + 1))
	else
		ctest --test-dir "$build" "${labels[@]}" --timeout 120 \
			--output-on-failure >"$scratch/test.log" 2>&1 || true
		failed=$(failures "$scratch/test.log")
		how=
		if [ -z "$failed" ] && [ $fuzz = 1 ]; then
			ctest --test-dir "$build" -R '^fuzz_replay_' \
				--timeout 300 >"$scratch/test.log" 2>&1 || true
			failed=$(failures "$scratch/test.log")
			how=" (fuzz replay)"
		fi
		if [ -n "$failed" ]; then
			result="killed by ${failed% }$how"
			killed=$((killed + 1))
		else
			result=SURVIVED
			survived=$((survived + 1))
			survivors+=("$id")
			diff -u --label "a/$file" --label "b/$file" \
				"$scratch/orig" "$src/$file" \
				>"$scratch/$id.diff" || true
		fi
	fi
	cp -p "$scratch/orig" "$src/$file"
	touch "$src/$file"
	printf '%-36s %s  [%ss]\n' "$id" "$result" $(($(date +%s) - t0))
done

scored=$((killed + survived))
echo
if [ $scored -gt 0 ]; then
	echo "mutate.sh: $killed of $scored mutants killed ($((100 * killed / scored)) %), $stillborn stillborn"
else
	echo "mutate.sh: no mutant built"
fi
for id in ${survivors[@]+"${survivors[@]}"}; do
	echo
	echo "survivor $id:"
	cat "$scratch/$id.diff"
done
