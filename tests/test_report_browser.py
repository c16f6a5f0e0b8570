"""The HTML report in a real browser: it renders (not a blank page) and logs no console error.

Needs Chromium at /usr/bin/chromium (CI installs it; ``apt-get install -y chromium``). The
screenshot is decoded with zlib and struct only, so the check needs no imaging library.
"""

from __future__ import annotations

import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from medjudge.judging.report.build import ReportOptions, build_report, render
from medjudge.store.study import Study

from .support.rich_study import EVIL, build_rich_study

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
]

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Chromium not installed at /usr/bin/chromium (apt-get install -y chromium)",
)


def decode_png(data: bytes) -> tuple[int, int, int, list[bytes]]:
    """Width, height, bytes per pixel and unfiltered rows of an 8-bit RGB/RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    width = height = bpp = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        start = y * (stride + 1)
        kind_ = raw[start]
        line = bytearray(raw[start + 1 : start + 1 + stride])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            if kind_ == 1:
                line[x] = (line[x] + a) & 255
            elif kind_ == 2:
                line[x] = (line[x] + b) & 255
            elif kind_ == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif kind_ == 4:
                c = prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def _chromium(tmp_path: Path, page: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CHROMIUM), *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *extra, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("browser")
    with Study.open(build_rich_study(tmp)) as s:
        report = build_report(s, ReportOptions(n_boot=200))
    path = tmp / "report.html"
    path.write_text(render(report, "html"), encoding="utf-8")
    return path


def test_report_renders_in_chromium(page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    result = _chromium(
        tmp_path, page, f"--screenshot={shot}", "--window-size=1200,2000", "--hide-scrollbars"
    )
    assert shot.exists(), result.stderr[-2000:]
    width, height, bpp, rows = decode_png(shot.read_bytes())
    assert (width, height) == (1200, 2000)
    colours: set[bytes] = set()
    ink = 0
    sampled = 0
    for row in rows[::4]:
        for x in range(0, len(row), bpp * 3):
            px = row[x : x + 3]
            colours.add(px)
            sampled += 1
            ink += px != b"\xff\xff\xff"
    assert len(colours) > 50, f"only {len(colours)} colours: a blank page?"
    assert ink / sampled > 0.05, f"only {ink / sampled:.1%} of the page is not white"
    # The header band is dark: the page's CSS applied.
    assert sum(rows[20][:30]) / 30 < 100
    for marker in ("Uncaught", "ERROR:CONSOLE"):
        assert marker not in result.stderr, result.stderr[-2000:]


def test_dom_has_escaped_text_and_no_script(page: Path, tmp_path: Path) -> None:
    result = _chromium(tmp_path, page, "--dump-dom")
    dom = result.stdout
    assert "Agreement report" in dom and "<svg" in dom
    assert "<script" not in dom.lower()  # the planted name stayed text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    assert EVIL not in dom
    for marker in ("Uncaught", "ERROR:CONSOLE"):
        assert marker not in result.stderr, result.stderr[-2000:]
