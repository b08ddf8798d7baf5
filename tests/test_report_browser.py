"""The HTML report in a real browser: headless Chromium renders the page at 1400 px.

Asserts what a reader sees: every figure loads, the page does not scroll sideways, the summary
is the first section, and a pair with an unavailable side reads "n/a: <reason>", never "no".
Skipped when ``chromium`` is not on PATH — except under ``CI=true``, where it fails (``make
test`` installs it as root: ``apt-get install -y chromium``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harness.analysis import runner
from harness.data.fixtures import load_fixture
from harness.report import build_report, write_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
WIDTH = 1400

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    f"--window-size={WIDTH},2000",
)

# Writes what the test checks into the DOM once the page (and its images) has loaded.
PROBE = """<script>
window.addEventListener("load", function () {
  var imgs = [];
  document.querySelectorAll("img").forEach(function (img) {
    imgs.push([img.getAttribute("src"), img.naturalWidth, img.naturalHeight]);
  });
  var first = document.querySelector("body > h1 ~ section, body > h1 ~ h2");
  var pairs = [];
  document.querySelectorAll("#pairs-table tbody tr").forEach(function (tr) {
    var td = tr.querySelectorAll("td");
    pairs.push([td[0].textContent, td[1].textContent, td[2].textContent.trim()]);
  });
  var out = {
    imgs: imgs,
    bodyScrollWidth: document.body.scrollWidth,
    bodyClientWidth: document.body.clientWidth,
    docScrollWidth: document.documentElement.scrollWidth,
    docClientWidth: document.documentElement.clientWidth,
    firstSection: first ? (first.id || first.tagName) : null,
    firstHeading: first ? first.querySelector("h2") ? first.querySelector("h2").textContent
                                                     : first.textContent : null,
    pairs: pairs
  };
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


class _Imgs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.srcs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.srcs.append(dict(attrs)["src"])


@pytest.fixture(scope="module")
def chromium() -> str:
    if CHROMIUM is None:
        msg = (
            "chromium is not on PATH: the HTML report cannot be checked in a browser. Install it "
            "(Debian/Ubuntu, as root: apt-get install -y chromium; `make test` does this)."
        )
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true: " + msg)
        pytest.skip(msg)
    return CHROMIUM


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory) -> tuple[Path, dict]:
    """A report whose evaluate adapter is really unavailable (its module path does not exist),
    next to nltk, sacrebleu and torchmetrics (judged at its 1e-4 tolerance)."""
    corpora = []
    for name in ("google_nasa_opportunity", "silence_pitfall"):
        fx = load_fixture(name)
        corpora += [(name, s, fx.corpus(s)) for s in fx.system_names]
    specs = ("sacrebleu", "nltk", "evaluate", "torchmetrics", "adapter:evaluate", "adapter:nltk")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BLEU_HARNESS_EVALUATE_MODULE", "/nonexistent/hf-evaluate/bleu")
        impls = [runner.Implementation.parse(x) for x in specs]
        rows = runner.run(corpora, impls, levels=("corpus", "segment"), progress=False)
    report = build_report(rows, corpora=corpora, max_attribution_corpora=1)
    out = tmp_path_factory.mktemp("browser") / "report"
    write_report(report, out)
    return out, report


def _run(chromium: str, *args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.fixture(scope="module")
def probe(chromium, report_dir, tmp_path_factory) -> dict:
    out, _ = report_dir
    html = (out / "index.html").read_text(encoding="utf-8")
    page = out / "probe.html"  # next to index.html, so relative src values resolve
    page.write_text(html.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    try:
        proc = _run(
            chromium,
            "--dump-dom",
            "--virtual-time-budget=15000",
            page.as_uri(),
            profile=tmp_path_factory.mktemp("profile"),
        )
    finally:
        page.unlink()
    match = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert match, f"the probe did not run in chromium; stderr: {proc.stderr[-2000:]}"
    return json.loads(
        match.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    )


def test_screenshot_at_page_width(chromium, report_dir, tmp_path):
    out, _ = report_dir
    shot = tmp_path / "page.png"
    proc = _run(
        chromium, f"--screenshot={shot}", (out / "index.html").as_uri(), profile=tmp_path / "p"
    )
    assert shot.is_file(), proc.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (WIDTH, 2000)


def test_every_image_loads(report_dir, probe):
    out, _ = report_dir
    parser = _Imgs()
    parser.feed((out / "index.html").read_text(encoding="utf-8"))
    assert parser.srcs, "the report has figures"
    assert sorted(src for src, _, _ in probe["imgs"]) == sorted(parser.srcs)
    for src, width, height in probe["imgs"]:
        assert width > 0 and height > 0, f"{src} did not load"


def test_the_page_does_not_scroll_sideways_at_1400_px(probe):
    assert probe["docClientWidth"] <= WIDTH
    assert probe["bodyScrollWidth"] <= probe["bodyClientWidth"], probe
    assert probe["docScrollWidth"] <= probe["docClientWidth"], probe


def test_the_summary_is_the_first_section(probe):
    assert probe["firstSection"] == "summary"
    assert probe["firstHeading"] == "Summary"


def test_no_no_where_a_side_is_unavailable(report_dir, probe):
    _, report = report_dir
    status: dict[str, set[str]] = {}
    for u in report["fixtures"]:
        for label, st in u["status"].items():
            status.setdefault(label, set()).add(st)
    without = {label for label, sts in status.items() if "ok" not in sts}
    assert without == {"evaluate"}, "the evaluate adapter is unavailable here"
    rows = [r for r in probe["pairs"] if r[0] in without or r[1] in without]
    assert rows, "a pair with the unavailable side is in the table"
    for a, b, verdict in rows:
        assert verdict.startswith("n/a: "), (a, b, verdict)
        assert "unavailable" in verdict and "/nonexistent/hf-evaluate/bleu" in verdict
    # and pairs that really differ still say "no"
    assert any(v == "no" for _, _, v in probe["pairs"])
