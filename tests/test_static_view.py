"""Every explorer output of every committed notebook reads well where no widget runs.

A reader who opens the nbconvert export of a notebook (the HTML that notebook renderers are built
on, its Markdown, a PDF) runs no kernel, and often no script either. There, each explorer's output
must show its picture and its readout's words, without fetching anything from the network.
nbconvert shows an output's widget view, an embed script that loads its manager from a CDN, instead
of the output's other representations whenever the notebook stores that widget's state in
``metadata.widgets``; ``.ci/execute-notebooks`` therefore executes without storing it.

- HTML: ``nbconvert --to html``, opened in Chromium with every network request refused: in each
  explorer's output area, a loaded picture at least `MIN_PICTURE_PX` wide and every line of the
  output's plain-text summary (its title and the readout's words).
- Markdown: ``nbconvert --to markdown``: each explorer's picture is in the document, as an extracted
  file or inline.
- PDF: ``nbconvert --to webpdf`` printed by Debian's Chromium (Playwright's own browser cannot be
  downloaded here), over one notebook holding every explorer output of the series: each picture is
  an image of the PDF, at its own size in pixels.

The opening in JupyterLab and Notebook 7 is checked in ``tests/browser/test_static_view_in_jupyter.py``.
To check executed copies before they are committed, point ``SPECDEC_STATIC_VIEW_NOTEBOOKS`` at their
folder (it must hold the notebooks as ``notebooks/`` does).
"""

from __future__ import annotations

import base64
import json
import os
import re
import struct
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from .browser.committed_view import explorer_notebook
from .browser.jupyter_driver import CHROMIUM, require_chromium

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = Path(os.environ.get("SPECDEC_STATIC_VIEW_NOTEBOOKS") or REPO / "notebooks")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: The narrowest picture a reader can still read on a course page (CSS px, at zoom 100%).
MIN_PICTURE_PX = 300


@dataclass(frozen=True)
class ExplorerOutput:
    """One committed explorer output: where it is, its plain-text summary and its picture."""

    notebook: str
    cell_id: str
    summary: tuple[str, ...]
    png: bytes

    @property
    def where(self) -> str:
        return f"{self.notebook}, cell {self.cell_id} ({self.summary[0]!r})"


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) in pixels, from the PNG's header."""
    if not png.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ValueError("not a PNG")
    return struct.unpack(">II", png[16:24])


def joined(value) -> str:
    return "".join(value) if isinstance(value, list) else value


def explorer_outputs(path: Path) -> list[ExplorerOutput]:
    """The outputs of `path` that carry a widget view (the explorers), in order."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    found = []
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                lines = [line.strip() for line in joined(data.get("text/plain", "")).splitlines()]
                found.append(ExplorerOutput(path.relative_to(NOTEBOOKS).as_posix(), cell["id"],
                                            tuple(line for line in lines if line),
                                            base64.b64decode(joined(data.get("image/png", "")))))
    return found


PATHS = sorted(path for path in NOTEBOOKS.rglob("*.ipynb") if ".ipynb_checkpoints" not in path.parts)
WITH_EXPLORERS = [path for path in PATHS if explorer_outputs(path)]


def normalised(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\xa0", " ")).strip()


def test_the_series_has_explorer_outputs_to_check():
    outputs = [output for path in WITH_EXPLORERS for output in explorer_outputs(path)]
    assert len(outputs) >= 10, f"only {len(outputs)} explorer outputs under {NOTEBOOKS}"
    assert all(output.summary and output.png for output in outputs), [
        output.where for output in outputs if not (output.summary and output.png)]


# --- HTML, opened offline in Chromium --------------------------------------------------------------

_OUTPUT_SHOWN = """(cellId) => {
    const cell = document.getElementById('cell-id=' + cellId);
    if (!cell) { return null; }
    const outputs = cell.querySelector('.jp-Cell-outputWrapper') || cell;
    const pictures = [...outputs.querySelectorAll('img')].map(img => ({
        loaded: img.complete && img.naturalWidth > 0,
        natural: img.naturalWidth,
        shown: Math.round(img.getBoundingClientRect().width),
    }));
    return {pictures, text: outputs.innerText};
}"""


def shown_problems(shown: dict | None, output: ExplorerOutput) -> list[str]:
    """What a reader of the page misses of `output` (empty when it is all there)."""
    if shown is None:
        return ["the cell is not on the page"]
    problems = []
    if not any(p["loaded"] and p["natural"] >= MIN_PICTURE_PX and p["shown"] >= MIN_PICTURE_PX
               for p in shown["pictures"]):
        problems.append(f"no picture at least {MIN_PICTURE_PX} px wide is shown (pictures: {shown['pictures']})")
    text = normalised(shown["text"])
    missing = [line for line in output.summary if normalised(line) not in text]
    if missing:
        problems.append(f"the readout's words are not shown: {missing[:3]}{' ...' if len(missing) > 3 else ''}")
    return problems


def test_the_html_check_tells_a_bare_picture_from_a_full_view():
    output = ExplorerOutput("x.ipynb", "c", ("Title", "α = 0.80"), b"")
    picture = {"loaded": True, "natural": 840, "shown": 840}
    assert shown_problems({"pictures": [picture], "text": "Title\nα =  0.80"}, output) == []
    assert shown_problems({"pictures": [dict(picture, shown=200)], "text": "Title"}, output) == [
        f"no picture at least {MIN_PICTURE_PX} px wide is shown (pictures: [{dict(picture, shown=200)}])",
        "the readout's words are not shown: ['α = 0.80']"]
    assert shown_problems(None, output) == ["the cell is not on the page"]


@pytest.mark.parametrize("path", WITH_EXPLORERS, ids=lambda path: path.name)
def test_html_export_shows_each_explorer_offline(chromium, tmp_path, path):
    browser = chromium
    import nbconvert

    body, _ = nbconvert.HTMLExporter().from_filename(str(path))
    page_file = tmp_path / "page.html"
    page_file.write_text(body, encoding="utf-8")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    refused = []

    def refuse_network(route):
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    try:
        page.route("**/*", refuse_network)
        page.goto(page_file.as_uri(), wait_until="load")
        failures = [f"{output.where}: {problem}" for output in explorer_outputs(path)
                    for problem in shown_problems(page.evaluate(_OUTPUT_SHOWN, output.cell_id), output)]
    finally:
        page.close()
    assert not failures, (f"nbconvert {nbconvert.__version__}, network refused ({len(refused)} requests):\n"
                          + "\n".join(failures))


# --- Markdown ----------------------------------------------------------------------------------------

_INLINE_PNG = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=\s]+)")
_LINKED = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)|<img[^>]*\ssrc=['\"]([^'\"]+)['\"]")


def markdown_pictures(markdown: str, files: dict[str, bytes]) -> list[bytes]:
    """Every PNG a Markdown document shows: inline (data URIs) and linked files among `files`."""
    pictures = [base64.b64decode(re.sub(r"\s", "", match)) for match in _INLINE_PNG.findall(markdown)]
    for link in _LINKED.findall(markdown):
        target = link[0] or link[1]
        if target in files:
            pictures.append(files[target])
    return pictures


@pytest.mark.parametrize("path", WITH_EXPLORERS, ids=lambda path: path.name)
def test_markdown_export_has_each_explorer_picture(path):
    import nbconvert

    markdown, resources = nbconvert.MarkdownExporter().from_filename(str(path))
    files = {name: data for name, data in resources.get("outputs", {}).items()}
    pictures = markdown_pictures(markdown, files)
    missing = [output.where for output in explorer_outputs(path)
               if output.png not in pictures or png_size(output.png)[0] < MIN_PICTURE_PX]
    assert not missing, f"nbconvert {nbconvert.__version__} --to markdown lacks the picture of: {missing}"


def test_markdown_pictures_finds_inline_and_linked_pngs():
    png = b"\x89PNG\r\n\x1a\n" + struct.pack(">II", 400, 300)
    inline = f"<img src='data:image/png;base64,{base64.b64encode(png).decode()}'>"
    assert markdown_pictures(f"text\n{inline}\n![png](out_1.png)", {"out_1.png": b"file"}) == [png, b"file"]
    assert markdown_pictures("![png](elsewhere.png)", {"out_1.png": b"file"}) == []


# --- PDF (webpdf, printed by Debian's Chromium) --------------------------------------------------------

_PDF_IMAGE = re.compile(rb"/Subtype\s*/Image\b[^>]*?/Width\s+(\d+)\s*/Height\s+(\d+)")


def pdf_image_sizes(pdf: bytes) -> Counter:
    """(width, height) in pixels of each image XObject of a PDF that Chromium printed."""
    return Counter((int(width), int(height)) for width, height in _PDF_IMAGE.findall(pdf))


def test_webpdf_export_has_each_explorer_picture(monkeypatch):
    require_chromium()
    import nbconvert
    import nbformat
    from playwright.async_api import BrowserType

    launch = BrowserType.launch

    async def launch_debian_chromium(self, *args, **kwargs):
        kwargs["executable_path"] = str(CHROMIUM)
        return await launch(self, *args, **kwargs)

    # webpdf launches Playwright's own Chromium, which cannot be downloaded here: use Debian's.
    monkeypatch.setattr(BrowserType, "launch", launch_debian_chromium)
    notebook = nbformat.reads(json.dumps(explorer_notebook(WITH_EXPLORERS)), as_version=4)
    pdf, _ = nbconvert.WebPDFExporter(disable_sandbox=True).from_notebook_node(notebook)
    wanted = Counter(png_size(output.png) for path in WITH_EXPLORERS for output in explorer_outputs(path))
    printed = pdf_image_sizes(pdf)
    missing = wanted - printed
    assert not missing, (f"nbconvert {nbconvert.__version__} --to webpdf: pictures missing, "
                         f"(width, height): count {dict(missing)}; the PDF's images: {dict(printed)}")
    assert all(width >= MIN_PICTURE_PX for width, _ in wanted), dict(wanted)
