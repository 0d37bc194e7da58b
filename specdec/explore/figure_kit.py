"""Making, styling and redrawing an explorer's figure, the same way for every explorer.

Every figure of the series is made by `new_figure` inside `styled`, so sizes are set here, once:

- A figure is at most `WIDEST_FIGURE_INCHES` wide (a wider request keeps its shape, scaled down), so
  JupyterLab at 1280×720 with the file browser open (a picture gets 844 CSS px) shows it unshrunk.
- No text is smaller than `MIN_TEXT_PX`, no title or axis label smaller than `MIN_HEADING_PX` (PNG
  pixels at scale 1): `enlarge_small_text` raises what a figure set smaller, before the first draw.
- In presentation mode (`specdec.explore.presentation`, read here through `figure_scale` and
  `compact`) figures are drawn `figure_scale()` times finer and fitted into `COMPACT_FIGURE_INCHES`,
  the box the compact layout gives a picture; `panel_axes` then stacks a figure's panels.

`FastRedraw` keeps a figure as three layers of pixels so that a slider move redraws only what
changed: *base* (frames, titles, legends: drawn once), *occasional* artists (axes whose ticks follow
the limits: drawn again after `FastRedraw.invalidate`) and *changing* artists (bars, markers, texts
with numbers: drawn on every render). Registered artists are marked animated, which makes
matplotlib's ordinary draw leave them out of the base; `png_bytes` (a full ``savefig``) still draws
every artist. A full redraw of the verify-step figure takes about 9 times as long. The first render
lays the figure out; after it the layout is frozen (no layout engine, axis labels pinned), because
kept pixels are only valid while nothing moves. `png_from_rgba` encodes the result quickly.
"""

from __future__ import annotations

import io
import math
import struct
import zlib
from operator import methodcaller

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.text import Text

from .. import palette

__all__ = ["COMPACT_FIGURE_INCHES", "COMPACT_TEXT_SCALE", "DPI", "MIN_HEADING_PX", "MIN_TEXT_PX", "STYLE", "WIDEST_FIGURE_INCHES",
           "FastRedraw", "compact", "enlarge_small_text", "figure_scale", "heading_texts", "new_figure",
           "nice_top", "panel_axes", "png_bytes", "png_from_rgba", "presentation", "role_patch", "role_style",
           "smallest_text_px", "styled"]

#: Resolution of every figure at scale 1: one PNG pixel per CSS pixel at the natural size.
DPI = 96

#: The widest figure, in inches (840 PNG px at scale 1): unshrunk at 1280×720 with the file browser open.
WIDEST_FIGURE_INCHES = 8.75

#: In presentation mode, the largest figure, in inches (width, height): the compact layout at 853×480
#: CSS px shows a picture in at most about 400 × 315 CSS px beside its side column.
COMPACT_FIGURE_INCHES = (6.0, 4.6)

#: In presentation mode, how much larger text is against the figure than in the ordinary layout: the
#: figure is made this many times smaller in inches and drawn this many times finer, so its PNG keeps its
#: size and every text, line and marker (sized in points) grows. The compact layout at 853×480 CSS px,
#: device scale 1.5, shows a picture about 420 CSS px wide (beside the side column, or above it when the
#: output is narrower, as with JupyterLab's file browser open): its smallest text is then about 16 device px.
COMPACT_TEXT_SCALE = 1.28

#: The smallest text of any figure, and of its titles and axis labels, in PNG pixels at scale 1.
MIN_TEXT_PX = 12.0
MIN_HEADING_PX = 14.0

#: Text sizes, in points (1 pt = 96/72 px at scale 1): every one at or above the minimums above.
STYLE = {"font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11, "legend.fontsize": 10,
         "legend.title_fontsize": 10, "xtick.labelsize": 10, "ytick.labelsize": 10}

_POINTS_PER_INCH = 72.0


class _Presentation:
    """The presentation setting in force: `presentation` changes it; the frame and figures read it."""

    scale = None  # None: the ordinary layout


def presentation(on: bool = True, scale: float = 1.5) -> None:
    """Make every explorer built afterwards larger and compact, for a room (``on=False``: back to normal).

    With it on, figures are drawn `scale` times finer (their text with them) and fitted into the
    compact layout's box, the readout text is `scale` times larger, and the layout is compact: the
    picture fits the window's height, beside a column holding the rows of buttons, the key lines and
    the other controls, with the whole readout under both. Meant for a projector at 1280×720 with
    browser zoom up to 150%.

    Parameters
    ----------
    on : bool
        Switch presentation mode on (default) or off.
    scale : float
        How much larger, between 1 and 3.

    Examples
    --------
    >>> presentation(scale=1.5)
    >>> figure_scale(), compact()
    (1.5, True)
    >>> presentation(False)
    >>> figure_scale(), compact()
    (1.0, False)
    """
    if not isinstance(on, bool):
        raise TypeError(f"on must be True or False, got {on!r}")
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise TypeError(f"scale must be a number between 1 and 3, got {scale!r}")
    if not 1 <= scale <= 3:
        raise ValueError(f"scale must be between 1 and 3 (1.5 suits a projector), got {scale!r}")
    _Presentation.scale = float(scale) if on else None


def figure_scale() -> float:
    """How many times finer figures are drawn now: the presentation scale, or 1 when it is off.

    >>> figure_scale()
    1.0
    """
    return _Presentation.scale or 1.0


def compact() -> bool:
    """Whether presentation mode is on: explorers built now use the compact layout.

    >>> compact()
    False
    """
    return _Presentation.scale is not None


#: The upper y-limits a probability axis may take: few, so that a slider move seldom changes them.
Y_TOPS = (0.2, 0.4, 0.6, 0.8, 1.05)


def nice_top(value: float) -> float:
    """The smallest of `Y_TOPS` that leaves a little room above `value`.

    >>> nice_top(0.5), nice_top(0.0), nice_top(1.0)
    (0.6, 0.2, 1.05)
    """
    return next((top for top in Y_TOPS if value * 1.05 <= top), Y_TOPS[-1])


def new_figure(width: float, height: float, compact_size: tuple | None = None) -> Figure:
    """A figure with its own Agg canvas, not registered with pyplot, so it is never shown twice.

    A `width` over `WIDEST_FIGURE_INCHES` is scaled down to it, keeping the shape; in presentation
    mode the figure (of size `compact_size` if given) is fitted into `COMPACT_FIGURE_INCHES` instead,
    then made `COMPACT_TEXT_SCALE` times smaller and finer. The resolution is `DPI` times
    `figure_scale()` (times `COMPACT_TEXT_SCALE` in presentation mode).

    >>> figure = new_figure(4, 3)
    >>> figure.get_size_inches().tolist(), figure.dpi
    ([4.0, 3.0], 96.0)
    >>> new_figure(10, 5).get_size_inches().tolist()
    [8.75, 4.375]
    """
    zoom = COMPACT_TEXT_SCALE if compact() else 1.0
    if compact():
        width, height = compact_size or (width, height)
        shrink = min(1.0, COMPACT_FIGURE_INCHES[0] / width, COMPACT_FIGURE_INCHES[1] / height)
    else:
        shrink = min(1.0, WIDEST_FIGURE_INCHES / width)
    figure = Figure(figsize=(width * shrink / zoom, height * shrink / zoom), dpi=DPI * figure_scale() * zoom,
                    layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def panel_axes(figure: Figure, count: int, width_ratios=None) -> list:
    """`count` axes side by side; in presentation mode, the first across the top and the others under it.

    >>> len(panel_axes(new_figure(8, 3), 3))
    3
    """
    if not compact() or count < 2:
        return list(figure.subplots(1, count, width_ratios=width_ratios, squeeze=False)[0])
    grid = figure.add_gridspec(2, count - 1, width_ratios=None if width_ratios is None else width_ratios[1:])
    return [figure.add_subplot(grid[0, :]), *(figure.add_subplot(grid[1, column]) for column in range(count - 1))]


def styled():
    """Context manager applying `STYLE`: create and draw every artist inside it.

    >>> with styled():
    ...     figure = new_figure(2, 2)
    """
    return matplotlib.rc_context(STYLE)


def png_bytes(figure: Figure) -> bytes:
    """`figure` drawn in full (every artist) as PNG bytes at its own resolution.

    >>> png_bytes(new_figure(2, 2))[:4]
    b'\\x89PNG'
    """
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=figure.dpi, pil_kwargs={"compress_level": 1})
    return buffer.getvalue()


def role_style(name: str) -> dict:
    """The fill colour and hatch of role `name` of `specdec.palette.ROLES`, as matplotlib keywords.

    >>> role_style("draft")
    {'facecolor': '#E69F00', 'hatch': '\\\\\\\\'}
    """
    role = palette.ROLES[name]
    return {"facecolor": role.colour, "hatch": role.hatch}


def role_patch(name: str, detail: str = "", **style) -> Patch:
    """A legend entry for role `name`: its colour, hatch and label (then ``": detail"``); `style` overrides.

    >>> role_patch("resampled", "(1 − α)·r").get_label()
    'resampled: (1 − α)·r'
    """
    return Patch(**{"edgecolor": "white", **role_style(name), **style}, label=palette.ROLES[name].labelled(detail))


def heading_texts(figure: Figure) -> list:
    """The titles and axis labels of `figure` (its axes' three titles, x and y labels, its suptitles).

    >>> figure = new_figure(3, 2)
    >>> _ = figure.add_subplot().set_xlabel("token")
    >>> [text.get_text() for text in heading_texts(figure) if text.get_text()]
    ['token']
    """
    texts = [getattr(figure, name, None) for name in ("_suptitle", "_supxlabel", "_supylabel")]
    for axes in figure.axes:
        texts += [axes.title, axes._left_title, axes._right_title, axes.xaxis.label, axes.yaxis.label]
    return [text for text in texts if text is not None]


def shown_texts(figure: Figure) -> list:
    """Every text of `figure` that is visible, not blank and not transparent."""
    return [text for text in figure.findobj(Text)
            if text.get_visible() and text.get_text().strip() and text.get_alpha() != 0]


def enlarge_small_text(figure: Figure) -> None:
    """Raise every text below `MIN_TEXT_PX`, and every heading below `MIN_HEADING_PX`, to that size.

    >>> figure = new_figure(3, 2)
    >>> note = figure.text(0.5, 0.5, "note", fontsize=6)
    >>> enlarge_small_text(figure)
    >>> note.get_fontsize()
    9.0
    """
    headings = {id(text) for text in heading_texts(figure)}
    for text in shown_texts(figure):
        floor = (MIN_HEADING_PX if id(text) in headings else MIN_TEXT_PX) * _POINTS_PER_INCH / DPI
        if text.get_fontsize() < floor:
            text.set_fontsize(floor)


def smallest_text_px(figure: Figure, headings: bool = False) -> float:
    """The smallest shown text of `figure` (only titles and axis labels with `headings`), in PNG px.

    >>> figure = new_figure(3, 2)
    >>> _ = figure.add_subplot().set_title("law", fontsize=15)
    >>> _ = figure.text(0, 0, "note", fontsize=9)
    >>> smallest_text_px(figure), smallest_text_px(figure, headings=True)
    (12.0, 20.0)
    """
    texts = shown_texts(figure)
    if headings:
        wanted = {id(text) for text in heading_texts(figure)}
        texts = [text for text in texts if id(text) in wanted]
    return min((text.get_fontsize() * figure.dpi / _POINTS_PER_INCH for text in texts), default=math.inf)


class FastRedraw:
    """Render `figure` to PNG, drawing each part only as often as it changes.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        Made by `new_figure` (it has an Agg canvas).
    changing : iterable of artists
        Drawn on every render, in z-order, above everything else.
    occasional : iterable of artists
        Drawn on the first render and after each `invalidate` (say an `Axis` whose limits change).

    Examples
    --------
    >>> figure = new_figure(3, 2)
    >>> axes = figure.add_subplot()
    >>> (line,) = axes.plot([0, 1], [0, 1])
    >>> fast = FastRedraw(figure, changing=[line], occasional=[axes.yaxis])
    >>> fast.png()[:4]
    b'\\x89PNG'
    >>> line.set_ydata([2, 0])
    >>> _ = axes.set_ylim(0, 2)
    >>> fast.invalidate()  # the y ticks change
    >>> fast.png()[:4]
    b'\\x89PNG'
    """

    def __init__(self, figure: Figure, changing=(), occasional=()):
        self.figure = figure
        self._changing = _animated(changing)
        self._occasional = _animated(occasional)
        self._base = None
        self._background = None

    def invalidate(self) -> None:
        """Say that an occasional artist changed: the next `png` draws them again."""
        self._background = None

    def png(self) -> bytes:
        """The figure as PNG bytes, as `png_bytes` would make it."""
        canvas = self.figure.canvas
        if self._base is None:
            enlarge_small_text(self.figure)
            canvas.draw()  # lays the figure out and draws the base: animated artists are left out
            self.figure.set_layout_engine(None)
            self._base = canvas.copy_from_bbox(self.figure.bbox)
            self._draw(self._occasional)
            _pin_axis_labels(self.figure)
            self._background = canvas.copy_from_bbox(self.figure.bbox)
        elif self._background is None:
            enlarge_small_text(self.figure)  # new tick labels take their size from the figure's settings
            canvas.restore_region(self._base)
            self._draw(self._occasional)
            self._background = canvas.copy_from_bbox(self.figure.bbox)
        else:
            canvas.restore_region(self._background)
        self._draw(self._changing)
        return png_from_rgba(np.asarray(canvas.buffer_rgba()))

    def _draw(self, artists) -> None:
        renderer = self.figure.canvas.get_renderer()
        for artist in artists:
            if artist.get_visible():
                artist.draw(renderer)


def _animated(artists) -> list:
    artists = sorted(artists, key=methodcaller("get_zorder"))
    for artist in artists:
        artist.set_animated(True)
    return artists


def _pin_axis_labels(figure: Figure) -> None:
    """Keep each axis label where the first draw put it (else each draw measures every tick label)."""
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            label = axis.label
            if label.get_visible() and label.get_text():
                where = label.get_transform().transform(label.get_position())
                axis.set_label_coords(*axes.transAxes.inverted().transform(where))


def png_from_rgba(pixels: np.ndarray) -> bytes:
    """Encode an (height, width, 4) uint8 RGBA array as PNG, quickly (no row filters, zlib level 1).

    >>> data = png_from_rgba(np.zeros((2, 3, 4), np.uint8))
    >>> data[:8] == b"\\x89PNG\\r\\n\\x1a\\n", len(zlib.decompress(data[41:-16]))
    (True, 26)
    """
    height, width, channels = pixels.shape
    rows = np.empty((height, 1 + width * channels), np.uint8)
    rows[:, 0] = 0  # filter type "none"
    rows[:, 1:] = pixels.reshape(height, -1)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA, no interlace
    return b"".join((b"\x89PNG\r\n\x1a\n", _chunk(b"IHDR", header),
                     _chunk(b"IDAT", zlib.compress(rows.tobytes(), 1)), _chunk(b"IEND", b"")))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
