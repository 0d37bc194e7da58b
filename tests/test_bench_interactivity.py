"""The interactivity benchmark times explorers in the groups the notebooks build them in (times not asserted)."""

import json
import warnings

import ipywidgets

from benchmarks import interactivity


def _notebook(path, *sources):
    cells = [{"cell_type": "code", "source": [source], "metadata": {}, "outputs": [], "execution_count": None}
             for source in sources]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_explorers_are_grouped_by_the_notebook_that_builds_them(tmp_path):
    explorers = dict.fromkeys(["AExplorer", "BExplorer", "CExplorer", "DExplorer"])
    _notebook(tmp_path / "01_one.ipynb", "from specdec.explore import AExplorer", "AExplorer(gamma=2)")
    _notebook(tmp_path / "02_two.ipynb", "CExplorer()\nAExplorer()", "x = BExplorer(seed=1)")
    _notebook(tmp_path / "notes.ipynb", "DExplorer()")  # not a numbered notebook
    groups = interactivity.notebook_groups(explorers, tmp_path)
    assert groups == [["AExplorer"], ["BExplorer", "CExplorer"], ["DExplorer"]]


def test_every_explorer_is_timed_once_and_the_series_kernels_are_found():
    explorers = interactivity.load_explorers()
    groups = interactivity.notebook_groups(explorers)
    assert sorted(name for group in groups for name in group) == sorted(explorers)
    codes = ["\n".join("".join(cell["source"]) for cell in json.loads(path.read_text())["cells"]
                       if cell["cell_type"] == "code") for path in sorted(interactivity.NOTEBOOKS.glob("[0-9]*.ipynb"))]
    shared = [group for group in groups if len(group) > 1]
    assert shared  # some notebooks build several explorers, and each such group is one notebook's
    for group in shared:
        assert any(all(f"{name}(" in code for name in group) for code in codes), group


def _open_widgets() -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Widget.widgets: ipywidgets 8 keeps it, deprecated
        return len(ipywidgets.Widget.widgets)


def test_a_group_is_closed_before_the_next_and_collections_are_reported(capsys):
    open_before = _open_widgets()
    assert interactivity.main(["--explorer", "DivergenceExplorer", "--explorer", "LoadExplorer",
                               "--changes", "1"]) == 0
    output = capsys.readouterr().out
    assert "kernels, as the notebooks share them out: DivergenceExplorer; LoadExplorer" in output
    assert "full garbage collections during builds and changes:" in output
    assert _open_widgets() <= open_before
