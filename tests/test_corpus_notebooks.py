"""Notebooks 07 and 09 compare nothing that depends on their corpus, except the measured values they teach with.

The standard library's docstrings differ between Python versions, so a compared output computed from
them passes only on the Python the notebooks were executed with (binder/runtime.txt pins it). The
notebooks print what small texts inside them give, and, in the cells of `notebook_corpus.CORPUS_CELLS`,
the measured values a learner reasons about (α, characters per call, speedups), rounded to two decimals.
This test runs each notebook with `stdlib_corpus` replaced by another English text of the same size:
every other output nbval compares comes out the same as the stored one, and those cells print the same
lines with other numbers. On another Python, nbval runs those cells without comparing them (the root
conftest.py), and this test is what checks them.

How the corpus is replaced: a first cell, added to a copy of the notebook before it runs, points
`specdec.text.stdlib_corpus` (and the name in `specdec.text.corpus`) at a function returning the
other text; a last cell checks that the notebook's `corpus` is that text (or its start). The library
itself has no switch for tests.
"""

import configparser
import random
import re

import nbformat
import pytest
from nbclient import NotebookClient

from .notebook_corpus import CORPUS_CELLS, NOTEBOOKS, executed_with, header_line, leave_corpus_cells_uncompared

SANITIZE = NOTEBOOKS / "nbval_sanitize.cfg"
NUMBER = re.compile(r"\d+(\.\d+)?")

#: Output fields nbval does not compare (its defaults, as in nbval.plugin.IPyNbFile.skip_compare).
NOT_COMPARED = {"metadata", "traceback", "prompt_number", "output_type", "name", "execution_count",
                "application/vnd.jupyter.widget-view+json", "image/png", "image/jpeg"}

PATCH = """
import pathlib
import specdec.text
import specdec.text.corpus
_replacement = pathlib.Path({path!r}).read_text(encoding="utf-8")
def _replacement_corpus():
    return _replacement
specdec.text.stdlib_corpus = _replacement_corpus
specdec.text.corpus.stdlib_corpus = _replacement_corpus
"""

CHECK = """
print(len(corpus) >= 100_000 and _replacement.startswith(corpus))  # the notebook's corpus (or its start)
"""


def replacement_corpus(size=1_000_000) -> str:
    """Other English: the Python reference manual's help topics and the notebooks' own prose.

    Together they hold about half a megabyte; the rest is the same paragraphs in other orders.
    """
    from pydoc_data.topics import topics

    paragraphs = [paragraph for key in sorted(topics) for paragraph in topics[key].split("\n\n")]
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown":
                paragraphs.extend(cell.source.split("\n\n"))
    paragraphs = [paragraph.strip() for paragraph in paragraphs if paragraph.strip()]
    shuffler = random.Random(6)
    parts, total = [], 0
    while total < size:
        parts.extend(paragraphs)
        total += sum(len(paragraph) + 2 for paragraph in paragraphs)
        paragraphs = paragraphs[::-1] if shuffler.random() < 0.5 else shuffler.sample(paragraphs, len(paragraphs))
    return "\n\n".join(parts)[:size]


def sanitize(text: str) -> str:
    parser = configparser.ConfigParser()
    parser.read(SANITIZE, encoding="utf-8")
    for section in parser.sections():
        text = re.sub(parser[section]["regex"], parser[section]["replace"], text)
    return text


def compared(cell) -> list:
    """The parts of a code cell's outputs that nbval compares, sanitized."""
    if "nbval-ignore-output" in cell.metadata.get("tags", []):
        return []
    parts = []
    for output in cell.outputs:
        if output.output_type == "stream" and parts and parts[-1][0] == output.name:
            # A kernel may split one print into several stream chunks; nbval compares the joined text.
            parts[-1] = (output.name, parts[-1][1] + sanitize(output.text))
        elif output.output_type == "stream":
            parts.append((output.name, sanitize(output.text)))
        elif output.output_type == "error":
            parts.append(("error", output.ename, output.evalue))
        else:
            for key, value in sorted(output.get("data", {}).items()):
                if key not in NOT_COMPARED:
                    parts.append((key, sanitize(value if isinstance(value, str) else str(value))))
    return parts


def test_the_replacement_is_other_english_of_the_same_size():
    from specdec.text import stdlib_corpus

    text = replacement_corpus()
    assert len(text) == 1_000_000
    assert text[:10_000] not in stdlib_corpus()
    assert sum(char.isalpha() or char == " " for char in text) / len(text) > 0.75


@pytest.mark.parametrize("name", sorted(CORPUS_CELLS))
def test_compared_outputs_do_not_depend_on_the_corpus(tmp_path, name):
    notebook = NOTEBOOKS / name
    stored = nbformat.read(notebook, as_version=4)
    corpus_file = tmp_path / "other_corpus.txt"
    corpus_file.write_text(replacement_corpus(), encoding="utf-8")

    patched = nbformat.read(notebook, as_version=4)
    patched.cells.insert(0, nbformat.v4.new_code_cell(PATCH.format(path=str(corpus_file))))
    patched.cells.append(nbformat.v4.new_code_cell(CHECK))
    NotebookClient(patched, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()

    ran = patched.cells[1:-1]
    assert patched.cells[-1].outputs[0].text.strip() == "True", "the notebook did not use the replacement corpus"
    assert len(ran) == len(stored.cells)
    checked = 0
    for index, (before, after) in enumerate(zip(stored.cells, ran)):
        if before.cell_type != "code":
            continue
        if before.get("id") in CORPUS_CELLS[name]:
            # Same lines, other numbers: every number is a value of the corpus, at most two decimals.
            assert [NUMBER.sub("#", str(part)) for part in compared(after)] == \
                [NUMBER.sub("#", str(part)) for part in compared(before)], f"cell {index} prints other lines"
            assert all(len(match.group(1) or ".") <= 3 for part in compared(before)
                       for match in NUMBER.finditer(str(part[1]))), f"cell {index} prints more than 2 decimals"
            checked += 1
            continue
        assert compared(after) == compared(before), f"cell {index} differs on another corpus"
        checked += bool(compared(before))
    assert checked >= len(CORPUS_CELLS[name]) + 2  # the corpus cells and at least two others that print


class NotebookCell:
    """What `leave_corpus_cells_uncompared` reads of one of nbval's cell items."""

    def __init__(self, name, cell_id):
        self.path, self.cell, self.options = NOTEBOOKS / name, {"id": cell_id}, {"check": True}


def test_on_another_python_only_the_corpus_cells_are_left_uncompared():
    executed = executed_with("07_real_text.ipynb")
    other = (executed[0], executed[1] + 1)
    items = [NotebookCell("07_real_text.ipynb", "9283b85a"), NotebookCell("07_real_text.ipynb", "e5e3a95a"),
             NotebookCell("01_one_token_acceptance_and_residual.ipynb", "9283b85a")]
    assert leave_corpus_cells_uncompared(items, executed) == 0 and all(item.options["check"] for item in items)
    assert header_line(executed) is None
    assert leave_corpus_cells_uncompared(items, other) == 1
    assert [item.options["check"] for item in items] == [False, True, True]
    assert "run without comparing their outputs" in header_line(other)
