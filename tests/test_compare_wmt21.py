"""``bleu-harness compare`` on WMT21 en→de: real sacrebleu and nltk beside their profiles.

The whole data set (20 systems × 1002 segments, 3 references) at corpus and segment level: the
run finishes, prints its run time, writes a table pandas can load, and every library number
equals its in-house profile (1e-9 BLEU points) on every segment.
"""

from __future__ import annotations

import json
import re

import pytest

from harness.cli import main
from harness.run.results import row_from_json

from .depth import full

pytestmark = pytest.mark.realdata


def test_compare_wmt21_corpus_and_segment_level(data_dir, tmp_path, capsys) -> None:
    # every segment at full depth (make test-full); the first 200 of each system otherwise
    segments = 1002 if full() else 200
    out = tmp_path / "wmt21"
    code = main(
        [
            "compare",
            *([] if full() else ["--limit", str(segments)]),
            "--wmt21",
            "--data",
            str(data_dir),
            "--impl",
            "profile:sacrebleu,adapter:sacrebleu,profile:nltk,adapter:nltk",
            "--level",
            "corpus",
            "segment",
            "--real",
            "all",
            "--no-progress",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    n_rows = 20 * 4 * (1 + segments)
    assert re.search(rf"^{n_rows} rows in \d+\.\d\d s", printed, re.M), printed[-300:]

    text = (out / "results.jsonl").read_text()
    rows = [row_from_json(json.loads(line)) for line in text.splitlines()]
    assert len(rows) == n_rows
    assert all(r.status == "ok" for r in rows)
    by_key: dict[tuple, dict[str, float]] = {}
    for r in rows:
        key = (r.system, r.level, r.segment_id)
        by_key.setdefault(key, {})[r.implementation] = r.score
    worst = {"sacrebleu": 0.0, "nltk": 0.0}
    for scores in by_key.values():
        for lib in worst:
            worst[lib] = max(worst[lib], abs(scores[lib] - scores[f"harness:{lib}"]))
    print(f"max |library - profile| over corpus and segment rows: {worst}")
    assert worst["sacrebleu"] < 1e-9
    assert worst["nltk"] < 1e-9

    import pandas as pd

    frame = pd.read_csv(out / "results.csv")
    assert len(frame) == len(rows)
    meta = json.loads((out / "meta.json").read_text())
    assert meta["versions"]["sacrebleu"] and meta["seconds"] > 0
