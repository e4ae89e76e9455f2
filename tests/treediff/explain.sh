#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# explain.sh SRC: scripts/tree-diff-report.py says why a group of
# differences differs, by the two builds' features, and leaves a new kind
# of difference UNEXPLAINED.  No build: two hand-made outcome files of
# three requests, as `iomapsim batch` of a 6.1 tree and of a 6.12 tree
# would write them (the features are those trees' `iomapsim --version`
# words):
#   line 2: an async read whose second allocation fails (alloc-fail:2):
#     6.1 gets to its alignment check (-EINVAL), 6.12 creates
#     s_dio_done_wq first and that allocation fails (-ENOMEM before any
#     I/O): explained by G-17/G-61;
#   line 3: a write whose data reads back wrong in B only: nothing
#     accounts for it, whatever the features: UNEXPLAINED;
#   line 4: the same outcome on both: not a difference.
# The explanation needs the features to straddle the change: with B's
# features on both sides the first group is unexplained too, and with the
# two builds swapped it is explained again.
set -eu
src=$1
report=$src/scripts/tree-diff-report.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/iomapsim-treediff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

f61='simple=none mapping=iomap_ops iter=processed bio_iov_iter_get_pages=2 zero=ZERO_PAGE dma_checked_upfront inline_one_page bio_opflags_helper bio_page_refs'
f612='simple=none mapping=iomap_ops iter=processed bio_iov_iter_get_pages=2 zero=64k_page caller_comp inline_comp dio_trace dma_checked_upfront inline_one_page bio_opflags_helper kiocb_invalidate fua_no_cache zero_returns_int error_punt read_wq'

cat >"$tmp/requests.txt" <<'EOF'
# two differences and one request that does not differ
--op read --pos 0 --len 100 --iter ubuf --async --fault alloc-fail:2
--op write --pos 0 --len 4096 --iter ubuf
--op read --pos 0 --len 4096 --iter ubuf
EOF
# the keys of `iomapsim run`'s outcome, as kernel-source mode prints them
o() {
	printf '{"line":%s,"ret":%s,"queued":false,"path":"generic","fallback":"no_simple_path","bios":%s,"cache_hits":0,"punted":0,"ki_complete_calls":0,"completion":%s,"ki_pos":%s,"i_size":1048576,"iter_count":%s,"data":"%s","leaks":0,"warnings":0,"context_violations":0,"bios_fs_bio_set":%s,"bios_dops_bio_set":0,"bios_simple_pool":0,"why_mismatch":false,"code":{"tree":"%s"}}\n' "$@"
}
{
	o 2 -22 0 '"submitter"' 0 100 n/a 0 linux-6.1
	o 3 4096 1 '"submitter"' 4096 0 ok 1 linux-6.1
	o 4 4096 1 '"submitter"' 4096 0 ok 1 linux-6.1
} >"$tmp/a.jsonl"
{
	o 2 -12 0 null 0 100 n/a 0 linux-6.12
	o 3 4096 1 '"submitter"' 4096 0 mismatch 1 linux-6.12
	o 4 4096 1 '"submitter"' 4096 0 ok 1 linux-6.12
} >"$tmp/b.jsonl"

fail() {
	echo "FAIL: $*"
	cat "$tmp/out"
	exit 1
}

# text: exit 1 (differences), both groups, one why and one UNEXPLAINED
status=0
python3 "$report" --features-a "$f61" --features-b "$f612" \
	"$tmp/requests.txt" "$tmp/a.jsonl" "$tmp/b.jsonl" >"$tmp/out" || status=$?
cat "$tmp/out"
[ "$status" -eq 1 ] || fail "exit $status, want 1 (differences)"
grep -q '^  different  *2$' "$tmp/out" || fail "want 2 requests different"
grep -q '^explained 1, unexplained 1$' "$tmp/out" ||
	fail "no line 'explained 1, unexplained 1'"
grep -A4 '^ret -22→-12, completion "submitter"→null: 1 requests$' \
	"$tmp/out" | grep -q '^  why: an async read creates s_dio_done_wq first.*(G-17, G-61; "iomap: allocate s_dio_done_wq for async reads as well"' ||
	fail "the workqueue group is not explained by G-17/G-61"
grep -A4 '^data "ok"→"mismatch": 1 requests$' "$tmp/out" |
	grep -q '^  UNEXPLAINED: a finding, or an explanation missing (1 of 1 requests; line 3: data)$' ||
	fail "the data group is not UNEXPLAINED"
[ "$(grep -c '^  why: ' "$tmp/out")" -eq 1 ] || fail "want one why line"

# JSON: the same, as an object and as null
python3 "$report" --json --features-a "$f61" --features-b "$f612" \
	"$tmp/requests.txt" "$tmp/a.jsonl" "$tmp/b.jsonl" >"$tmp/json" || true
python3 - "$tmp/json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert (r["explained"], r["unexplained"]) == (1, 1), r
g = {tuple(x["changes"]): x for x in r["groups"]}
wq = g[('ret -22\u2192-12', 'completion "submitter"\u2192null')]
by = wq["explanation"]["by"]
assert [e["id"] for e in by] == ["wq-for-async-reads"], by
assert by[0]["rules"] == "G-17, G-61" and by[0]["requests"] == 1, by
data = g[('data "ok"\u2192"mismatch"',)]
assert data["explanation"] is None, data
assert data["unexplained"]["line"] == 3, data
assert data["unexplained"]["keys"] == ["data"], data
assert r["features_b"]["inline_comp"] is True, r["features_b"]
print("explain: json agrees: one group explained, one unexplained")
PY

# the features decide: the same builds' features on both sides explain
# nothing; swapped builds are explained the other way round
python3 "$report" --features-a "$f612" --features-b "$f612" \
	"$tmp/requests.txt" "$tmp/a.jsonl" "$tmp/b.jsonl" >"$tmp/out" || true
grep -q '^explained 0, unexplained 2$' "$tmp/out" ||
	fail "with equal features a group is still explained"
python3 "$report" --features-a "$f612" --features-b "$f61" \
	"$tmp/requests.txt" "$tmp/b.jsonl" "$tmp/a.jsonl" >"$tmp/out" || true
grep -q '^explained 1, unexplained 1$' "$tmp/out" ||
	fail "with the builds swapped the workqueue group is not explained"

# without features the report is as before: no why, no count line
python3 "$report" "$tmp/requests.txt" "$tmp/a.jsonl" "$tmp/b.jsonl" \
	>"$tmp/out" || true
if grep -q -e '^explained' -e '^  why:' -e 'UNEXPLAINED' "$tmp/out"; then
	fail "explanations printed without --features-a/--features-b"
fi
echo "explain: one group explained by its builds' features, one unexplained"
