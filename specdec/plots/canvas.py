"""Creating a figure, drawing the palette's roles, and turning the figure into PNG bytes, the same way for every explorer."""

from __future__ import annotations

import io

import matplotlib

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from .. import palette

#: Resolution of every figure: sharp on a projector, small enough to redraw quickly.
DPI = 96

#: Text sizes chosen to stay readable from the back of a lecture room.
STYLE = {
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "legend.fontsize": 10,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
}


def new_figure(width: float, height: float, **subplot_kwargs) -> Figure:
    """A figure with its own Agg canvas, not registered with pyplot, so it is never shown twice.

    >>> figure = new_figure(4, 3)
    >>> figure.get_size_inches().tolist()
    [4.0, 3.0]
    """
    figure = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def styled():
    """Context manager applying `STYLE`: create and draw every artist inside it.

    >>> with styled():
    ...     figure = new_figure(2, 2)
    """
    return matplotlib.rc_context(STYLE)


def png_bytes(figure: Figure) -> bytes:
    """Render `figure` to PNG bytes; fast compression, because explorers redraw on every slider move.

    >>> png_bytes(new_figure(2, 2))[:4]
    b'\\x89PNG'
    """
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, pil_kwargs={"compress_level": 1})
    return buffer.getvalue()


def role_style(name: str) -> dict:
    """The fill colour and hatch of role `name` of `specdec.palette.ROLES`, as matplotlib keywords.

    >>> role_style("draft")
    {'facecolor': '#E69F00', 'hatch': '\\\\\\\\'}
    """
    role = palette.ROLES[name]
    return {"facecolor": role.colour, "hatch": role.hatch}


def role_patch(name: str, detail: str = "", **style) -> Patch:
    """A legend entry for role `name`: its colour, its hatch and its label (then ``": detail"``).

    `style` adds to or overrides the patch's other properties (edge colour, transparency).

    >>> role_patch("resampled", "(1 − α)·r").get_label()
    'resampled: (1 − α)·r'
    """
    role = palette.ROLES[name]
    return Patch(**{"edgecolor": "white", **role_style(name), **style}, label=role.labelled(detail))
