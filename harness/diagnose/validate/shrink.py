"""Shrinking: the smallest input on which the same thing still happens.

:func:`shrink` removes segments, references (a whole reference stream at once when the subject
reads line-aligned files) and tokens greedily while a predicate holds, within a budget of
predicate calls (each one usually calls the implementation).
"""

from __future__ import annotations

from collections.abc import Callable

from harness.diagnose.validate.cases import Case

__all__ = ["shrink"]


def shrink(
    case: Case, keep: Callable[[Case], bool], *, budget: int, by_stream: bool = False
) -> Case:
    """Greedily remove segments, references and tokens of ``case`` while ``keep`` holds.

    ``budget`` caps the calls of ``keep`` (a call that raises counts as false);
    ``by_stream`` removes the k-th reference of every segment at once (rectangular cases).
    """
    left = [budget]

    def attempt(c: Case) -> bool:
        if left[0] <= 0:
            return False
        left[0] -= 1
        try:
            return keep(c)
        except Exception:
            return False

    cur = case
    changed = True
    while changed and left[0] > 0:
        changed = False
        i = 0
        while len(cur.hypotheses) > 1 and i < len(cur.hypotheses):
            cand = Case(
                cur.source,
                cur.hypotheses[:i] + cur.hypotheses[i + 1 :],
                cur.references[:i] + cur.references[i + 1 :],
            )
            if attempt(cand):
                cur, changed = cand, True
            else:
                i += 1
        if by_stream:  # a whole reference stream at once
            k = 0
            while len(cur.references[0]) > 1 and k < len(cur.references[0]):
                refs = tuple(r[:k] + r[k + 1 :] for r in cur.references)
                cand = Case(cur.source, cur.hypotheses, refs)
                if attempt(cand):
                    cur, changed = cand, True
                else:
                    k += 1
        else:
            for i in range(len(cur.references)):
                k = 0
                while len(cur.references[i]) > 1 and k < len(cur.references[i]):
                    seg = cur.references[i][:k] + cur.references[i][k + 1 :]
                    refs = (*cur.references[:i], seg, *cur.references[i + 1 :])
                    cand = Case(cur.source, cur.hypotheses, refs)
                    if attempt(cand):
                        cur, changed = cand, True
                    else:
                        k += 1
        for where in _texts(cur):
            cur, did = _shrink_text(cur, where, attempt)
            changed = changed or did
    return cur


def _texts(case: Case) -> list[tuple[int, int]]:
    """Where every text of ``case`` is: ``(segment, -1)`` a hypothesis, ``(segment, k)`` its
    k-th reference."""
    out = [(i, -1) for i in range(len(case.hypotheses))]
    out += [(i, k) for i, refs in enumerate(case.references) for k in range(len(refs))]
    return out


def _replace(case: Case, where: tuple[int, int], text: str) -> Case:
    i, k = where
    if k < 0:
        hyps = (*case.hypotheses[:i], text, *case.hypotheses[i + 1 :])
        return Case(case.source, hyps, case.references)
    seg = (*case.references[i][:k], text, *case.references[i][k + 1 :])
    refs = (*case.references[:i], seg, *case.references[i + 1 :])
    return Case(case.source, case.hypotheses, refs)


def _shrink_text(
    case: Case, where: tuple[int, int], attempt: Callable[[Case], bool]
) -> tuple[Case, bool]:
    """Normalise the whitespace of one text, then drop its tokens one at a time."""
    i, k = where
    text = case.hypotheses[i] if k < 0 else case.references[i][k]
    changed = False
    norm = " ".join(text.split())
    if norm != text:
        cand = _replace(case, where, norm)
        if attempt(cand):
            case, text, changed = cand, norm, True
    toks = text.split()
    j = 0
    while j < len(toks):
        trial = toks[:j] + toks[j + 1 :]
        cand = _replace(case, where, " ".join(trial))
        if attempt(cand):
            case, toks, changed = cand, trial, True
        else:
            j += 1
    return case, changed
