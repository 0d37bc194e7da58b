"""Creating a figure, drawing the palette's roles, and turning the figure into PNG bytes, the same way for every explorer.

Every figure of the series is made by `new_figure` inside `styled`, so text sizes and figure sizes are
set here, once, for all of them:

- A figure is at most `WIDEST_FIGURE_INCHES` wide (a wider request keeps its shape, scaled down), so
  an explorer shows it at its natural size in JupyterLab at 1280×720 with the file browser open
  (a picture gets 844 CSS px there) and its text is not shrunk by the browser.
- No text is smaller than `MIN_TEXT_PX`, and titles and axis labels no smaller than `MIN_HEADING_PX`
  (PNG pixels at scale 1, which are CSS pixels at the natural size): `enlarge_small_text` raises
  whatever a figure set smaller, before the first draw. `smallest_text_px` measures the result.
- `set_figure_scale` multiplies the resolution of figures made afterwards (the presentation mode of
  `specdec.widgets.presentation`): the picture and every text in it grow together. At a scale over 1
  a figure is also fitted into `COMPACT_FIGURE_INCHES` (keeping its shape): the compact layout shows
  it in about 400 × 315 CSS px, so a smaller figure keeps its text large there. A figure module may
  read `figure_scale` to arrange its panels for that box (two rows instead of one).
"""

from __future__ import annotations

import io
import math

import matplotlib

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.text import Text

from .. import palette

#: Resolution of every figure at scale 1: one PNG pixel per CSS pixel at the natural size.
DPI = 96

#: The widest figure, in inches (840 PNG pixels at scale 1): shown unshrunk at 1280×720 with JupyterLab's
#: file browser open, where the output area is 848 CSS px wide and a picture gets 844 (measured in Chromium).
WIDEST_FIGURE_INCHES = 8.75

#: In presentation mode (`figure_scale` > 1), the largest figure, in inches (width, height). The compact
#: layout at 853×480 CSS px shows a picture in at most about 400 × 315 CSS px (beside a column 20em
#: wide, under JupyterLab's bars); a figure of this size is shown there at about 0.47 of its PNG size,
#: so its 12 px text (18 PNG px at scale 1.5) reads about 8.5 CSS px, 12.7 device px at zoom 150%:
#: the size of the ordinary layout's smallest text at 1280×720 on the same projector.
COMPACT_FIGURE_INCHES = (6.0, 4.6)

#: The smallest text of any figure and of its titles and axis labels, in PNG pixels at scale 1.
#: 12 px is a minimum for a room reading from a wall; titles and axis labels are read first.
MIN_TEXT_PX = 12.0
MIN_HEADING_PX = 14.0

#: Text sizes, in points (1 pt = 96/72 px at scale 1): every one at or above the minimums above.
STYLE = {
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "legend.fontsize": 10,
    "legend.title_fontsize": 10,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
}

_POINTS_PER_INCH = 72.0


class _Scale:
    """The figure scale in force: `set_figure_scale` changes it, `new_figure` reads it."""

    value = 1.0


def set_figure_scale(scale: float = 1.0) -> None:
    """Make figures created afterwards `scale` times larger in pixels, text included (1 = normal size).

    Figures already made keep their size. `specdec.widgets.presentation` calls this.

    >>> set_figure_scale(1.5)
    >>> new_figure(4, 3).dpi
    144.0
    >>> set_figure_scale(1)
    """
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale):
        raise TypeError(f"scale must be a real number, got {scale!r}")
    if not 0.5 <= scale <= 4:
        raise ValueError(f"scale must be between 0.5 and 4 (1 is the normal size), got {scale!r}")
    _Scale.value = float(scale)


def figure_scale() -> float:
    """The scale figures are made at now (1 unless `set_figure_scale` changed it).

    >>> figure_scale()
    1.0
    """
    return _Scale.value


def new_figure(width: float, height: float, compact_size: tuple | None = None) -> Figure:
    """A figure with its own Agg canvas, not registered with pyplot, so it is never shown twice.

    A `width` over `WIDEST_FIGURE_INCHES` is scaled down to it, with `height` in proportion; at a
    `figure_scale` over 1 (presentation mode) the figure is fitted into `COMPACT_FIGURE_INCHES` instead,
    with the size `compact_size` if given (a figure that arranges its panels for that box, as
    `panel_axes` does, asks for a taller shape there). The resolution is `DPI` times the `figure_scale`
    in force.

    >>> figure = new_figure(4, 3)
    >>> figure.get_size_inches().tolist(), figure.dpi
    ([4.0, 3.0], 96.0)
    >>> new_figure(10, 5).get_size_inches().tolist()
    [8.75, 4.375]
    >>> set_figure_scale(1.5)
    >>> new_figure(10, 5).get_size_inches().tolist(), new_figure(4, 3).get_size_inches().tolist()
    ([6.0, 3.0], [4.0, 3.0])
    >>> set_figure_scale(1)
    """
    if _Scale.value > 1:
        width, height = compact_size or (width, height)
        shrink = min(1.0, COMPACT_FIGURE_INCHES[0] / width, COMPACT_FIGURE_INCHES[1] / height)
    else:
        shrink = min(1.0, WIDEST_FIGURE_INCHES / width)
    figure = Figure(figsize=(width * shrink, height * shrink), dpi=DPI * _Scale.value, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def panel_axes(figure: Figure, count: int, width_ratios=None) -> list:
    """`count` axes side by side; in presentation mode (`figure_scale` > 1), the first across the top and
    the others side by side under it, for the compact layout's squarer box.

    >>> len(panel_axes(new_figure(8, 3), 3))
    3
    >>> set_figure_scale(1.5)
    >>> [axes.get_subplotspec().rowspan.start for axes in panel_axes(new_figure(8, 3), 2)]
    [0, 1]
    >>> set_figure_scale(1)
    """
    if _Scale.value <= 1 or count < 2:
        return list(figure.subplots(1, count, width_ratios=width_ratios, squeeze=False)[0])
    below = count - 1
    grid = figure.add_gridspec(2, below, width_ratios=None if width_ratios is None else width_ratios[1:])
    return [figure.add_subplot(grid[0, :]), *(figure.add_subplot(grid[1, column]) for column in range(below))]


def styled():
    """Context manager applying `STYLE`: create and draw every artist inside it.

    >>> with styled():
    ...     figure = new_figure(2, 2)
    """
    return matplotlib.rc_context(STYLE)


def png_bytes(figure: Figure) -> bytes:
    """Render `figure` to PNG bytes at its own resolution; fast compression, because explorers redraw on every slider move.

    >>> png_bytes(new_figure(2, 2))[:4]
    b'\\x89PNG'
    """
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=figure.dpi, pil_kwargs={"compress_level": 1})
    return buffer.getvalue()


def heading_texts(figure: Figure) -> list:
    """The titles and axis labels of `figure` (its axes' three titles, x and y labels, and its suptitles).

    >>> figure = new_figure(3, 2)
    >>> axes = figure.add_subplot()
    >>> _ = axes.set_xlabel("token")
    >>> [text.get_text() for text in heading_texts(figure) if text.get_text()]
    ['token']
    """
    texts = [getattr(figure, name, None) for name in ("_suptitle", "_supxlabel", "_supylabel")]
    for axes in figure.axes:
        texts += [axes.title, axes._left_title, axes._right_title, axes.xaxis.label, axes.yaxis.label]
    return [text for text in texts if text is not None]


def _shown_texts(figure: Figure) -> list:
    return [text for text in figure.findobj(Text)
            if text.get_visible() and text.get_text().strip() and text.get_alpha() != 0]


def enlarge_small_text(figure: Figure) -> None:
    """Raise every text of `figure` below `MIN_TEXT_PX`, and every heading below `MIN_HEADING_PX`, to that size.

    Sizes are compared at scale 1 (points), so the rule holds at any `figure_scale`. Called by
    `specdec.plots.fast_redraw.FastRedraw` before the first draw; texts created later are not seen.

    >>> figure = new_figure(3, 2)
    >>> note = figure.text(0.5, 0.5, "note", fontsize=6)
    >>> enlarge_small_text(figure)
    >>> note.get_fontsize()
    9.0
    """
    smallest = MIN_TEXT_PX * _POINTS_PER_INCH / DPI
    smallest_heading = MIN_HEADING_PX * _POINTS_PER_INCH / DPI
    headings = {id(text) for text in heading_texts(figure)}
    for text in _shown_texts(figure):
        floor = smallest_heading if id(text) in headings else smallest
        if text.get_fontsize() < floor:
            text.set_fontsize(floor)


def smallest_text_px(figure: Figure, headings: bool = False) -> float:
    """The size of the smallest text shown in `figure`, in PNG pixels (font size × dpi / 72).

    With ``headings=True``, only titles and axis labels count. Texts that are hidden or empty do not
    count, nor tick labels the figure has not drawn yet. On screen a text is this size times the
    displayed width of the picture over its PNG width. Returns infinity if no text counts.

    >>> figure = new_figure(3, 2)
    >>> axes = figure.add_subplot()
    >>> _ = axes.set_title("law", fontsize=15)
    >>> _ = figure.text(0, 0, "note", fontsize=9)
    >>> smallest_text_px(figure), smallest_text_px(figure, headings=True)
    (12.0, 20.0)
    """
    texts = _shown_texts(figure)
    if headings:
        wanted = {id(text) for text in heading_texts(figure)}
        texts = [text for text in texts if id(text) in wanted]
    return min((text.get_fontsize() * figure.dpi / _POINTS_PER_INCH for text in texts), default=math.inf)


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
