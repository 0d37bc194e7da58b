"""Every committed explorer output can be read without widgets: a picture and a plain-text summary.

GitHub, nbconvert and a PDF export cannot run widgets; they show an output's ``image/png`` and
``text/plain`` instead. An explorer's output must therefore carry its picture and the readout's
words, not an object repr such as ``Explorer(children=(HTML(value='<b>…``.
"""

import base64
import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: An object repr: a class name and an opening bracket (``Explorer(``, ``VBox(``, ``<specdec...>``).
OBJECT_REPR = re.compile(r"^\s*(?:<[\w.]+ object|[A-Z]\w*\()")


def widget_outputs(path: Path) -> list[tuple[int, dict]]:
    """(cell index, output data) of every output of `path` that carries a widget view."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    found = []
    for index, cell in enumerate(notebook["cells"]):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                found.append((index, data))
    return found


def problems_of(data: dict) -> list[str]:
    """What a widget output lacks for a reader without widgets (empty when nothing)."""
    problems = []
    png = data.get("image/png")
    if not png:
        problems.append("no image/png")
    elif not base64.b64decode("".join(png) if isinstance(png, list) else png).startswith(b"\x89PNG"):
        problems.append("image/png is not a PNG")
    text = "".join(data.get("text/plain", ""))
    if not text.strip():
        problems.append("no text/plain")
    elif OBJECT_REPR.match(text):
        problems.append(f"text/plain is an object repr: {text[:60]!r}")
    return problems


def test_the_check_tells_a_repr_from_a_summary():
    png = base64.b64encode(b"\x89PNG\r\n\x1a\nrest").decode()
    assert problems_of({"text/plain": "Explorer(children=(HTML(value='<b>", WIDGET_VIEW: {}}) == [
        "no image/png", "text/plain is an object repr: \"Explorer(children=(HTML(value='<b>\""]
    assert problems_of({"text/plain": ["Tokens per step\n", "Speedup = 2.80×"], "image/png": png}) == []
    assert problems_of({"text/plain": "VBox(children=())", "image/png": "AAAA"}) == [
        "image/png is not a PNG", "text/plain is an object repr: 'VBox(children=())'"]


NOTEBOOK_PATHS = sorted(NOTEBOOKS.glob("*.ipynb")) + sorted(NOTEBOOKS.glob("solutions/*.ipynb"))
EXPLORER_CELL = re.compile(r"^(\w+Explorer)\(", flags=re.M)  # a line that builds an explorer


def code_of(path) -> str:
    return "\n".join("".join(cell["source"]) for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]
                     if cell["cell_type"] == "code")


@pytest.mark.parametrize("path", NOTEBOOK_PATHS, ids=lambda path: str(path.relative_to(NOTEBOOKS)))
def test_every_committed_widget_output_has_a_picture_and_a_summary(path):
    outputs = widget_outputs(path)
    builds = len(EXPLORER_CELL.findall(code_of(path)))
    assert len(outputs) >= builds, f"{builds} explorer cells, {len(outputs)} committed widget outputs"
    failures = [f"cell {index}: {', '.join(problems)}" for index, data in outputs if (problems := problems_of(data))]
    assert failures == []


def test_the_notebooks_commit_a_widget_output_for_every_explorer_they_show():
    built = {name for path in NOTEBOOK_PATHS for name in EXPLORER_CELL.findall(code_of(path))}
    shown = sum(len(widget_outputs(path)) for path in NOTEBOOK_PATHS)
    # One output per explorer class the notebooks build, at least; stripped outputs would make this 0.
    assert built and shown >= len(built), f"{len(built)} explorer classes built, {shown} committed widget outputs"
