"""The package's promises about itself: what importing it costs, and what it exports."""

import subprocess
import sys

import specdec
from specdec import palette


def test_import_specdec_loads_neither_matplotlib_nor_ipywidgets():
    probe = "import sys, specdec; print(sorted(m for m in ('matplotlib', 'ipywidgets', 'anywidget', 'scipy') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_every_exported_name_exists_and_is_documented_with_an_example():
    for name in specdec.__all__:
        value = getattr(specdec, name)
        assert value.__doc__, name
        if callable(value) and not isinstance(value, type):
            assert "Examples" in value.__doc__ or ">>>" in value.__doc__, name


def test_the_palette_gives_each_role_its_own_colour():
    roles = [palette.TARGET, palette.DRAFT, palette.ACCEPTED, palette.RESAMPLED, palette.BONUS]
    assert len(set(roles)) == 5
    assert palette.ORIGIN_COLOURS["accepted"] == palette.ACCEPTED
    assert palette.ROLE_LABELS[palette.TARGET] == "target p" and palette.ROLE_LABELS[palette.DRAFT] == "draft q"


def test_dir_lists_every_exported_name_for_tab_completion():
    assert set(specdec.__all__) <= set(dir(specdec))


def test_no_module_imports_a_private_name_from_another_module():
    import ast
    import pathlib

    package = pathlib.Path(specdec.__file__).parent
    crossings = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                private = [alias.name for alias in node.names if alias.name.startswith("_")]
                if private or (node.module or "").split(".")[-1].startswith("_"):
                    crossings.append(f"{path.relative_to(package)}: from {'.' * node.level}{node.module} import {private}")
    assert crossings == []


def _dotted_names_and_links(text):
    import re

    names = set(re.findall(r"`(specdec(?:\.[A-Za-z_][A-Za-z0-9_]*)+)", text))
    links = {target for target in re.findall(r"\]\(([^)#\s]+)", text) if "://" not in target}
    return names, links


def _resolves(dotted):
    import importlib

    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[split:]:
            if not hasattr(value, attribute):
                return False
            value = getattr(value, attribute)
        return True
    return False


def test_the_guides_name_only_modules_and_files_that_exist():
    import json
    import pathlib

    root = pathlib.Path(specdec.__file__).parent.parent
    documents = {path: path.read_text(encoding="utf-8") for path in
                 [root / "README.md", *sorted((root / "specdec").rglob("README.md"))]}
    for notebook in sorted((root / "notebooks").rglob("*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        documents[notebook] = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    missing, checked = [], 0
    for path, text in documents.items():
        names, links = _dotted_names_and_links(text)
        checked += len(names) + len(links)
        missing += [f"{path.name}: `{name}`" for name in sorted(names) if not _resolves(name)]
        missing += [f"{path.name}: link {link}" for link in sorted(links) if not (path.parent / link).exists()]
    assert missing == [] and checked >= 50  # about 80 names and links today


def test_refresh_screenshots_copies_the_readme_pictures_from_the_explorers_screenshots(tmp_path):
    import pathlib
    import re
    import shutil

    import specdec.explore

    root = pathlib.Path(specdec.__file__).parent.parent
    shutil.copytree(root / ".ci", tmp_path / ".ci")
    screenshots = tmp_path / "tests" / "browser" / "screenshots"
    screenshots.mkdir(parents=True)
    for name in specdec.explore.EXPLORERS:  # the browser tests save one picture per explorer class
        (screenshots / f"{name}.png").write_bytes(name.encode())
    result = subprocess.run(["bash", ".ci/refresh-screenshots", "--copy-only"], cwd=tmp_path, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    shown = set(re.findall(r"\]\(notebooks/images/([^)]+)\)", (root / "README.md").read_text(encoding="utf-8")))
    copied = {path.name for path in (tmp_path / "notebooks" / "images").iterdir()}
    assert shown and shown <= copied
