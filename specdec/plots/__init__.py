"""Figures of the series, drawn with matplotlib's object API (no pyplot state, no global figure).

Each explorer owns one `Figure`, draws into it again on every change and shows it as a PNG. The
palette and the meaning of each colour are in `specdec.palette`.
"""

from ._canvas import new_figure, png_bytes, styled

__all__ = ["new_figure", "png_bytes", "styled"]
