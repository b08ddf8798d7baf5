#!/usr/bin/env bash
# The fast loop's honesty check: three wrong BLEU arithmetics that `make check` must reject.
# Each mutant is applied to a throwaway worktree of HEAD and `make check`'s test selection is run
# on the library goldens (tests/test_library_goldens.py, part of that selection) against it; each
# must fail, and the unmutated tree must pass. Not a test: run it after touching the arithmetic.
#
#     bash tools/check_mutants.sh
set -euo pipefail
repo=$(git rev-parse --show-toplevel)
python=${PYTHON:-$repo/.venv/bin/python}
tree=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$tree" >/dev/null 2>&1 || true; rm -rf "$tree"' EXIT
git -C "$repo" worktree add -q --detach "$tree" HEAD
cp "$repo"/harness/bleu/*.so "$tree/harness/bleu/" 2>/dev/null || true
cp "$repo"/harness/statistics/*.so "$tree/harness/statistics/" 2>/dev/null || true
cd "$tree"

goldens() {
  BLEU_HARNESS_TEST_DEPTH=check BLEU_HARNESS_DATA= OMP_NUM_THREADS=1 PYTHONPATH="$tree" \
    "$python" -m pytest -q -x -p no:cacheprovider \
    -m "not oracle and not realdata and not browser and not slow" tests/test_library_goldens.py \
    >/dev/null 2>&1
}

mutant() {  # name, file, sed expression: the mutant must change the file and fail the goldens
  git checkout -q -- harness
  sed -i "$3" "$2"
  if git diff --quiet -- "$2"; then echo "$1: the mutant no longer applies to $2" >&2; exit 2; fi
  if goldens; then echo "$1: make check PASSES (it must fail)"; status=1; else echo "$1: fails, as it must"; fi
}

status=0
mutant "brevity penalty with the ratio swapped" harness/bleu/arithmetic.py \
  's/        bp = np.exp(np.minimum(0.0, 1 - q))/        bp = np.exp(np.minimum(0.0, 1 - 1 \/ np.where(q > 0, q, 1)))/'
mutant "exp smoothing not cumulative" harness/bleu/smoothing.py \
  's/    doubling = np.exp2(np.cumsum(o.no_match, axis=1))/    doubling = np.exp2(o.no_match.astype(float))/'
mutant "closest reference ties sent to the longer" harness/bleu/stats.py \
  's/    return np.where(nearest, refs, _BIG).min(axis=1)/    return np.where(nearest, refs, -1).max(axis=1)/'
git checkout -q -- harness
if goldens; then echo "unmutated: passes"; else echo "unmutated: FAILS"; status=1; fi
exit $status
