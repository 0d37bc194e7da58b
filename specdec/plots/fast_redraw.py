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
to it (`specdec.plots.canvas.enlarge_small_text`). The first render lays the figure out; after it the layout is frozen (the layout engine is removed
and the axis labels pinned where they are), since kept pixels are only valid while nothing moves.
The PNG is written by `png_from_rgba`, a minimal encoder several times faster than a general one
for pictures like these.

Text is drawn from a cache of rendered strings (`TextCachingCanvas`): matplotlib 3.11 lays out and
renders every glyph of every string on every draw, while an explorer shows the same few labels again
and again. The cache keeps each string's glyphs as one coverage bitmap and pastes it in the text's
colour, placed on whole pixels (as matplotlib itself did up to 3.10). Where the private matplotlib
calls it relies on are missing or fail, it steps aside and matplotlib draws the text itself.
"""

from __future__ import annotations

import struct
import zlib
from operator import methodcaller

import numpy as np
from matplotlib import ft2font as _ft2font
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg, get_hinting_flag
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
        if type(figure.canvas) is FigureCanvasAgg:
            TextCachingCanvas(figure)
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


class TextCachingRenderer(RendererAgg):
    """An Agg renderer that draws each distinct string from a cached coverage bitmap.

    Unrotated plain text (no mathtext, no font features or language) is cached; anything else, and
    everything if the private font calls below are unavailable, is drawn by matplotlib as usual.
    """

    #: Rendered strings, shared by all figures: (text, font, size, dpi, ...) -> (bitmap, left, top).
    cache: dict = {}
    #: Beyond this many strings the cache starts afresh (numbers in titles change all the time).
    max_entries = 4096
    #: Set when the private font calls failed once; the renderer then never tries them again.
    unavailable = not all(hasattr(_ft2font.FT2Font, name) for name in ("_layout", "_render_glyph", "_set_transform"))

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if TextCachingRenderer.unavailable or ismath or angle % 360 != 0 or (
                mtext is not None and (mtext.get_fontfeatures() or mtext.get_language())):
            return super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
        antialiased = bool(gc.get_antialiased())
        key = (s, tuple(prop.get_family()), prop.get_style(), prop.get_variant(), prop.get_weight(),
               prop.get_stretch(), prop.get_size_in_points(), prop.get_file(), self.dpi, antialiased,
               get_hinting_flag())
        entry = self.cache.get(key)
        if entry is None:
            try:
                entry = self._render_string(s, prop, antialiased)
            except Exception:  # an optimisation must never stop a figure from drawing
                TextCachingRenderer.unavailable = True
                return super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
            if len(self.cache) >= self.max_entries:
                self.cache.clear()
            self.cache[key] = entry
        bitmap, left, top = entry
        if bitmap is None:
            return
        # Agg's y runs downwards from the top; FreeType's runs upwards from the bottom.
        origin_x, origin_y = round(x), round(self.height - y)
        self._renderer.draw_text_image(bitmap, origin_x + left, int(self.height) - (origin_y + top) + bitmap.shape[0], 0, gc)

    def _render_string(self, s, prop, antialiased):
        """Lay out and render `s` with its origin at (0, 0): one coverage bitmap and its offsets."""
        flags = get_hinting_flag()
        mode = _ft2font.RenderMode.NORMAL if antialiased else _ft2font.RenderMode.MONO
        size = prop.get_size_in_points()
        glyphs = []
        for item in self._prepare_font(prop)._layout(s, flags=flags):
            font = item.ft_object
            font.set_size(size, self.dpi)
            font._set_transform(np.array([[0x10000, 0], [0, 0x10000]]), [round(0x40 * item.x), round(0x40 * item.y)])
            rendered = font._render_glyph(item.glyph_index, flags, mode)
            buffer = np.array(rendered.buffer, dtype=np.uint8)
            if not antialiased:
                buffer *= 0xFF
            if buffer.size:
                glyphs.append((buffer, rendered.left, rendered.top))
        if not glyphs:
            return None, 0, 0
        left = min(glyph_left for _, glyph_left, _ in glyphs)
        top = max(glyph_top for _, _, glyph_top in glyphs)
        right = max(glyph_left + buffer.shape[1] for buffer, glyph_left, _ in glyphs)
        bottom = min(glyph_top - buffer.shape[0] for buffer, _, glyph_top in glyphs)
        bitmap = np.zeros((top - bottom, right - left), np.uint8)
        for buffer, glyph_left, glyph_top in glyphs:
            rows = slice(top - glyph_top, top - glyph_top + buffer.shape[0])
            columns = slice(glyph_left - left, glyph_left - left + buffer.shape[1])
            np.maximum(bitmap[rows, columns], buffer, out=bitmap[rows, columns])
        return bitmap, left, top


class TextCachingCanvas(FigureCanvasAgg):
    """An Agg canvas whose renderer is a `TextCachingRenderer`; ``TextCachingCanvas(figure)`` installs it.

    >>> from specdec.plots import new_figure, png_bytes
    >>> figure = new_figure(2, 1)
    >>> _ = figure.text(0.5, 0.5, "α = 0.700")
    >>> canvas = TextCachingCanvas(figure)
    >>> png_bytes(figure)[:4], type(canvas.get_renderer()).__name__
    (b'\\x89PNG', 'TextCachingRenderer')
    """

    def get_renderer(self):
        width, height = self.get_width_height(physical=True)
        key = width, height, self.figure.dpi
        if self._lastKey != key:
            self.renderer = TextCachingRenderer(width, height, self.figure.dpi)
            self._lastKey = key
        return self.renderer


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
