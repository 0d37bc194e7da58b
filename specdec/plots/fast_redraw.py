"""Redraw only what changed: an explorer's figure kept as three layers of pixels.

An explorer's figure is mostly still: frames, titles, axis labels and legends never change while a
slider moves; tick labels change now and then (a new vocabulary, new axis limits); only the bars,
markers and a few texts change on every update. Text is the slow part of a matplotlib draw, so
drawing everything again on each update costs far more than needed. `FastRedraw` keeps three layers:

- *base*: every artist that is neither of the two kinds below; drawn once, on the first render;
- *occasional* artists (typically `Axis` objects, whose ticks and labels follow the limits): drawn
  on top of the base after `invalidate`, and the result kept;
- *changing* artists: drawn on top of that on every render.

Both kinds of registered artists are marked *animated*, which makes matplotlib's ordinary draw
leave them out; that is how the base is drawn without them. Saving the figure the usual way
(`png_bytes`, ``savefig``) still draws every artist, animated or not.

Before the first render, and after each `invalidate`, text below the series' minimum size is raised
to it (`specdec.plots.canvas.enlarge_small_text`). The first render lays the figure out; after it
the layout is frozen (the layout engine is removed and the axis labels pinned where they are), since
kept pixels are only valid while nothing moves. The PNG is written by `png_from_rgba`, a minimal
encoder several times faster than a general one for pictures like these.

Only public matplotlib calls are used. (A renderer that cached each string's rendered glyphs, built
on private FreeType calls, was measured and removed: it saved 4-5 ms of a 20 ms median update and
the goals hold without it.)
"""

from __future__ import annotations

import struct
import zlib
from operator import methodcaller

import numpy as np
from matplotlib.figure import Figure

from .canvas import enlarge_small_text


class FastRedraw:
    """Render `figure` to PNG, drawing each part only as often as it changes.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        A figure made by `specdec.plots.new_figure` (it has an Agg canvas).
    changing : iterable of matplotlib artists
        Drawn on every render, in z-order, above everything else: keep them clear of artists
        that should cover them (a legend inside the axes, say).
    occasional : iterable of matplotlib artists
        Drawn on the first render and after each `invalidate` (say the axes' `Axis` objects, when
        limits or ticks change). They must not overlap anything in the base layer that they would
        hide, since the base is not drawn again.

    Examples
    --------
    >>> from specdec.plots import new_figure
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
        """The figure as PNG bytes, as `specdec.plots.png_bytes` would make it."""
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
            enlarge_small_text(self.figure)  # new tick labels take their size from the figure's own settings
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
    """Keep each axis label where the first draw put it.

    Otherwise every draw of an axis measures all tick labels (of shared axes too) to place its
    label, which costs more than drawing the ticks themselves.
    """
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            label = axis.label
            if not label.get_visible() or not label.get_text():
                continue
            where = label.get_transform().transform(label.get_position())
            x, y = axes.transAxes.inverted().transform(where)
            axis.set_label_coords(x, y)


def png_from_rgba(pixels: np.ndarray) -> bytes:
    """Encode an (height, width, 4) uint8 RGBA array as PNG, quickly.

    Plots are large flat areas of one colour, which zlib packs well without PNG's per-row filters;
    skipping the filters (filter type 0 on every row) and compressing at level 1 makes this several
    times faster than a general encoder, for files barely larger.

    >>> import zlib
    >>> data = png_from_rgba(np.zeros((2, 3, 4), np.uint8))
    >>> data[:8] == b"\\x89PNG\\r\\n\\x1a\\n", len(zlib.decompress(data[41:-16]))
    (True, 26)
    """
    height, width, channels = pixels.shape
    rows = np.empty((height, 1 + width * channels), np.uint8)
    rows[:, 0] = 0  # filter type "none"
    rows[:, 1:] = pixels.reshape(height, -1)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA, no interlace
    return b"".join((
        b"\x89PNG\r\n\x1a\n",
        _chunk(b"IHDR", header),
        _chunk(b"IDAT", zlib.compress(rows.tobytes(), 1)),
        _chunk(b"IEND", b""),
    ))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
