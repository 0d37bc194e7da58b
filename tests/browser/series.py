"""Where the notebooks of the series are, and where the browser tests put their screenshots."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"


def notebook_paths(root: Path = NOTEBOOKS) -> list[str]:
    """Every notebook under `root` (solutions too), as paths relative to it, in order."""
    return sorted(path.relative_to(root).as_posix() for path in root.rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in path.parts)


def slug(path: str) -> str:
    """A file-name-safe name for the notebook at `path`: "solutions/07_x.ipynb" -> "solutions-07_x"."""
    return path.removesuffix(".ipynb").replace("/", "-")
