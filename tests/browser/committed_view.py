"""What JupyterLab and Notebook 7 show of a committed notebook that nobody has run there.

A reader who opens a notebook from a clone, a download or Binder has not run it, and the front end
does not trust it (its signature is in no one's database but the author's). Each explorer output
must then show its picture and its readout's words, and never "Error displaying widget",
"Loading widget..." or an empty box. `explorer_cells` lists what each committed notebook should show;
`shown_outputs` reads what the open notebook shows of those cells.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from pathlib import Path

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
#: The narrowest picture a reader can still read (CSS px).
MIN_PICTURE_PX = 300
#: What the widget renderer writes when it cannot draw a widget.
WIDGET_FAILURES = ("Error displaying widget", "Loading widget...")


@dataclass(frozen=True)
class ExplorerCell:
    """A code cell whose committed output is an explorer: its id, and the lines of its text summary."""

    cell_id: str
    summary: tuple[str, ...]


def explorer_notebook(paths: list[Path]) -> dict:
    """One notebook (as JSON) holding every cell of `paths` whose output is an explorer, unchanged, and
    the widget state those notebooks store: what each of them shows of its explorers, in one file."""
    combined, state, ids = None, {}, set()
    for path in paths:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        if combined is None:
            combined = copy.deepcopy(notebook)
            combined["cells"] = []
        for cell in notebook["cells"]:
            if any(WIDGET_VIEW in output.get("data", {}) for output in cell.get("outputs", [])):
                if cell["id"] in ids:
                    raise ValueError(f"cell id {cell['id']} of {path.name} is also another notebook's")
                ids.add(cell["id"])
                combined["cells"].append(cell)
        state.update(notebook["metadata"].get("widgets", {}).get(WIDGET_STATE, {}).get("state", {}))
    if combined is None:
        raise ValueError("no notebook given")
    combined["metadata"].pop("widgets", None)
    if state:
        combined["metadata"]["widgets"] = {WIDGET_STATE: {"state": state, "version_major": 2, "version_minor": 0}}
    return combined


def explorer_cells(path: Path) -> list[ExplorerCell]:
    """The explorer outputs of the notebook file at `path`, in order."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = []
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                text = data.get("text/plain", "")
                lines = ("".join(text) if isinstance(text, list) else text).splitlines()
                cells.append(ExplorerCell(cell["id"], tuple(line.strip() for line in lines if line.strip())))
    return cells


_SCROLL_TO = """(cellId) => {
    const panel = window.jupyterapp.shell.currentWidget;
    const cell = panel.content.widgets.find(cell => cell.model.id === cellId);
    if (cell) { cell.node.scrollIntoView({block: 'start'}); }
    return Boolean(cell);
}"""

_SHOWN = """(cellId) => {
    const panel = window.jupyterapp.shell.currentWidget;
    const cell = panel.content.widgets.find(cell => cell.model.id === cellId);
    const area = cell && cell.outputArea ? cell.outputArea.node : null;
    if (!area) { return null; }
    const pictures = [...area.querySelectorAll('img')].map(img => ({
        loaded: img.complete && img.naturalWidth > 0,
        natural: img.naturalWidth,
        shown: Math.round(img.getBoundingClientRect().width),
    }));
    const outputs = [...area.querySelectorAll('.jp-OutputArea-output')].map(output => ({
        mime: output.dataset.mimeType || '',
        text: output.innerText,
        height: Math.round(output.getBoundingClientRect().height),
    }));
    return {pictures, outputs, text: area.innerText, trusted: cell.model.trusted};
}"""


def shown_outputs(page, cells: list[ExplorerCell]) -> dict:
    """Cell id -> what the open notebook shows in that cell's output area (None: no output area).

    Each cell is scrolled into view first, as a reader scrolls to it: JupyterLab skips the layout
    of cells out of view (CSS content-visibility), and then shows no text there.
    """
    shown = {}
    for cell in cells:
        if page.evaluate(_SCROLL_TO, cell.cell_id):
            page.wait_for_timeout(150)
        shown[cell.cell_id] = page.evaluate(_SHOWN, cell.cell_id)
    return shown


def normalised(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\xa0", " ")).strip()


def view_problems(shown: dict | None, cell: ExplorerCell) -> list[str]:
    """What a reader misses of `cell`'s committed output on the page (empty when it is all there)."""
    if shown is None:
        return ["the cell or its output area is not on the page"]
    problems = []
    failures = [failure for failure in WIDGET_FAILURES if failure in shown["text"]]
    if failures:
        problems.append(f"shows {failures}")
    empty = [output["mime"] or "?" for output in shown["outputs"]
             if not output["text"].strip() and output["height"] < 10 and not shown["pictures"]]
    if empty or not shown["outputs"]:
        problems.append(f"an empty box ({empty or 'no output'})")
    if not any(p["loaded"] and p["natural"] >= MIN_PICTURE_PX and p["shown"] >= MIN_PICTURE_PX
               for p in shown["pictures"]):
        problems.append(f"no picture at least {MIN_PICTURE_PX} px wide is shown (pictures: {shown['pictures']})")
    text = normalised(shown["text"])
    missing = [line for line in cell.summary if normalised(line) not in text]
    if missing:
        problems.append(f"the readout's words are not shown: {missing[:3]}{' ...' if len(missing) > 3 else ''}")
    return problems
