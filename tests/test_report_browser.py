"""The HTML report in a real browser: headless Chromium renders the page and loads every figure.

Skipped (also on CI) when ``chromium`` is not on PATH: ``apt-get install chromium``.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harness import runner
from harness.fixtures import load_fixture
from harness.report import build_report, write_report

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not on PATH (apt-get install chromium)"
)

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

# Writes every image's load state into the DOM once the page (and its images) has loaded.
PROBE = """<script>
window.addEventListener("load", function () {
  var lines = [];
  document.querySelectorAll("img").forEach(function (img) {
    lines.push(img.getAttribute("src") + " " + img.naturalWidth + " " + img.naturalHeight);
  });
  var pre = document.createElement("pre");
  pre.id = "img-probe";
  pre.textContent = lines.join("\\n");
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
def report_dir(tmp_path_factory) -> Path:
    corpora = []
    for name in ("google_nasa_opportunity", "silence_pitfall"):
        fx = load_fixture(name)
        corpora += [(name, s, fx.corpus(s)) for s in fx.system_names]
    impls = [runner.Implementation.parse(x) for x in ("sacrebleu", "nltk", "evaluate")]
    rows = runner.run(corpora, impls, levels=("corpus", "segment"), progress=False)
    report = build_report(rows, corpora=corpora, max_attribution_corpora=1)
    out = tmp_path_factory.mktemp("browser") / "report"
    write_report(report, out)
    return out


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_screenshot(report_dir, tmp_path):
    shot = tmp_path / "page.png"
    proc = _chromium(
        f"--screenshot={shot}",
        "--window-size=1400,3000",
        (report_dir / "index.html").as_uri(),
        profile=tmp_path / "profile",
    )
    assert shot.is_file(), proc.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (1400, 3000)


def test_every_image_loads(report_dir, tmp_path):
    html = (report_dir / "index.html").read_text(encoding="utf-8")
    parser = _Imgs()
    parser.feed(html)
    assert parser.srcs
    probe = report_dir / "probe.html"  # next to index.html, so relative src values resolve
    probe.write_text(html.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    try:
        proc = _chromium(
            "--dump-dom",
            "--virtual-time-budget=10000",
            probe.as_uri(),
            profile=tmp_path / "profile",
        )
    finally:
        probe.unlink()
    match = re.search(r'<pre id="img-probe">(.*?)</pre>', proc.stdout, re.S)
    assert match, f"probe output missing; stderr: {proc.stderr[-2000:]}"
    loaded = {}
    for line in match.group(1).strip().splitlines():
        src, width, height = line.rsplit(" ", 2)
        loaded[src] = (int(width), int(height))
    assert sorted(loaded) == sorted(parser.srcs)
    for src, (width, height) in loaded.items():
        assert width > 0 and height > 0, f"{src} did not load"
