"""The frame every explorer shares: controls, a picture redrawn in place, and a readout built as data.

An explorer subclasses `Explorer` and overrides `compute` (read the controls, call the math, update the picture,
return the numbers on screen) and `describe` (those numbers as a `Readout`, rendered to HTML and to plain text; nothing
is parsed back out of HTML). `presentation` is the one switch for a room. Figures come from `new_figure` inside
`styled`; `FastRedraw` redraws only what changed (`png_bytes`, a full ``savefig``, takes about 3 to 10 times as long,
by explorer: ``python -m benchmarks redraw``); `SliderNames` names the slider handles for screen readers. See
``specdec/explore/README.md``.
"""

from __future__ import annotations

import base64
import io
import math
import struct
import zlib
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from html import escape
from itertools import groupby

import anywidget
import ipywidgets as widgets
import matplotlib
import numpy as np
import traitlets
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.text import Text

from .. import palette

DPI = 96  #: resolution of every figure at scale 1: one PNG pixel per CSS pixel at the natural size
WIDEST_FIGURE_INCHES = 8.75  #: the widest figure (840 PNG px at scale 1): unshrunk with the file browser open
COMPACT_FIGURE_INCHES = (6.0, 4.6)  #: presentation: the largest figure (inches), about 400 × 315 CSS px at 853×480
#: Presentation mode: a figure is this many times smaller in inches and as many times finer (the PNG keeps its size,
#: all text grows): at 853×480 CSS px, device scale 1.5, a 420 CSS px picture's smallest text is about 16 device px.
COMPACT_TEXT_SCALE = 1.28
MIN_TEXT_PX, MIN_HEADING_PX = 12.0, 14.0  #: the smallest text, and title or axis label, in PNG px at scale 1
#: Text sizes, in points (1 pt = 96/72 px at scale 1): every one at or above the minimums above.
STYLE = {"font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11, "legend.fontsize": 10,
         "legend.title_fontsize": 10, "xtick.labelsize": 10, "ytick.labelsize": 10}
Y_TOPS = (0.2, 0.4, 0.6, 0.8, 1.05)  #: the upper limits a probability axis takes: few, so they seldom change
LABEL_STYLE = {"description_width": "initial"}  #: every control's style: its description shown in full
MIN_TRACK_PX = 80  #: a slider's track is never narrower than this (CSS px): shorter tracks cannot be dragged
LONG_LABEL_CHARS = 24  #: a slider label longer than this many characters is set above the slider
COMPACT_CHROME_PX = 130  #: compact layout: the picture is at most the window's height minus this (CSS px)
COMPACT_STACK_PX = 600  #: compact layout: a narrower output (CSS px) puts the side column under the picture
COMPACT_SIDE_EM = 16  #: in the compact layout, the width of the column beside the picture, in em
KEY_LINES = 4  #: at most this many lines are key lines when a readout marks none itself
_POINTS_PER_INCH = 72.0

# The ranges of the controls several explorers share, in one place: import them, never copy a number. A range of one
# explorer's own control (an n-gram order, a batch size, a tree's width) is a constant of its module. A control's
# bounds are its check: an explorer does not check them again. Every γ offered is one `validation.MAX_GAMMA` accepts.
GAMMA_SLIDER_MAX = 8  #: the verify-step explorer's γ slider: 0 … 8 draft tokens fit its picture, a column each
DRAFT_GAMMA_SLIDER_RANGE = (1, 8)  #: the γ slider of the drafters, batch and load explorers: 1 … 8 draft tokens
VOCAB_SLIDER_MIN = 2  #: the smallest vocabulary a V slider offers
VOCAB_SLIDER_MAX = 64  #: the verify-step explorer's V slider: up to 64 tokens
SEED_SLIDER_MAX = 99  #: the largest seed a seed slider offers
STEP_SEED_SLIDER_MAX = 999  #: the verify-step explorer's seed slider goes further: 0 … 999
COST_SLIDER_MAX = 100  #: the cost-ratio sliders (c = time of a target pass / time of a draft pass): 1 … 100

#: CSS class names on the frame's parts (for browser tests and the style sheet below).
CSS = {"explorer": "specdec-explorer", "title": "specdec-title", "controls": "specdec-controls",
       "body": "specdec-body", "picture": "specdec-picture", "readout": "specdec-readout",
       "side": "specdec-side", "key_readout": "specdec-key-readout", "label_above": "specdec-label-above",
       "compact": "specdec-compact", "screen_reader_only": "specdec-sr-only"}

#: The frame's style sheet; "&" stands for the explorer's box, as in CSS nesting (`Explorer` puts the class in).
_STYLE_SHEET = """<style>
&, & .widget-box {{ max-width: 100%; }}
& .widget-inline-hbox, & .jupyter-widget-inline-hbox {{ max-width: calc(100% - 4px); }}
& .widget-hslider, & .jupyter-widget-hslider {{ min-width: min-content; }}
& .slider-container {{ min-width: {track}px; }}
& .specdec-label-above, & .specdec-side .widget-hslider {{ flex-wrap: wrap; height: auto; }}
& .specdec-label-above > .widget-label, & .specdec-side .widget-hslider > .widget-label,
& .specdec-label-above > .jupyter-widget-label {{ flex: 1 0 100%; text-align: left;
  white-space: normal; line-height: 1.3; margin-bottom: 2px; height: auto; }}
& .specdec-picture {{ max-width: 100%; height: auto; min-width: 0; }}
&.specdec-compact .specdec-body {{ container-type: inline-size; }}
&.specdec-compact .specdec-picture {{ max-height: calc(100vh - {chrome}px); width: auto;
  max-width: calc(100% - {side}em); object-fit: contain; }}
@container (max-width: {stack}px) {{
  &.specdec-compact .specdec-picture {{ max-width: 100%; }}
  &.specdec-compact .specdec-side {{ flex-basis: 100%; padding-left: 0; }}
}}
& .specdec-readout-{percent} {{ font-size: {percent}%; }}
& .specdec-readout p {{ margin: 0 0 0.45em 0; }}
& .specdec-note {{ font-size: 0.85em; color: #595959; }}
& .specdec-side .widget-button, & .specdec-side .jupyter-button {{ width: auto; }}
& .specdec-side .widget-inline-hbox, & .specdec-side .jupyter-widget-inline-hbox {{ width: auto; flex: 1 1 auto; }}
& .specdec-side .specdec-key-readout {{ margin-top: 0.3em; font-size: 100%; }}
& .specdec-key-readout, & .specdec-key-readout * {{ line-height: 1.35; }}
& .specdec-sr-only {{ position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; }}
</style>""".replace("&", "." + CSS["explorer"])


# ---- the presentation switch ------------------------------------------------------------------

_presentation_scale = None  # the scale `presentation` set; None: the ordinary layout


def presentation(on: bool = True, scale: float = 1.5) -> None:
    """Make every explorer built afterwards larger and compact, for a room (``on=False``: back to normal).

    With it on (`scale` between 1 and 3), figures are drawn `scale` times finer (their text with them) and fitted
    into the compact layout's box, the readout text is `scale` times larger, and the layout is compact: the picture
    fits the window's height, beside a column holding the rows of buttons, the key lines and the other controls,
    with the whole readout under both. Meant for a projector at 1280×720 with browser zoom up to 150%.

    >>> presentation(scale=1.5); figure_scale(), compact()
    (1.5, True)
    >>> presentation(False); figure_scale(), compact()
    (1.0, False)
    """
    global _presentation_scale
    if not isinstance(on, bool):
        raise TypeError(f"on must be True or False, got {on!r}")
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise TypeError(f"scale must be a number between 1 and 3, got {scale!r}")
    if not 1 <= scale <= 3:
        raise ValueError(f"scale must be between 1 and 3 (1.5 suits a projector), got {scale!r}")
    _presentation_scale = float(scale) if on else None


def figure_scale() -> float:
    """How many times finer figures are drawn now: the presentation scale, or 1 when it is off (see `presentation`)."""
    return _presentation_scale or 1.0


def compact() -> bool:
    """Whether presentation mode is on: explorers built now use the compact layout (see `presentation`)."""
    return _presentation_scale is not None


# ---- figures --------------------------------------------------------------------------------------

def nice_top(value: float) -> float:
    """The smallest of `Y_TOPS` that leaves a little room above `value`: 0.6 for 0.5, 1.05 for 1 or more."""
    return next((top for top in Y_TOPS if value * 1.05 <= top), Y_TOPS[-1])


def new_figure(width: float, height: float, compact_size: tuple | None = None) -> Figure:
    """A figure with its own Agg canvas, not registered with pyplot, so it is never shown twice.

    A `width` over `WIDEST_FIGURE_INCHES` is scaled down to it, keeping the shape; in presentation mode the figure
    (of size `compact_size` if given) is fitted into `COMPACT_FIGURE_INCHES` instead, then made `COMPACT_TEXT_SCALE`
    times smaller and finer. The resolution is `DPI` times `figure_scale()` (times `COMPACT_TEXT_SCALE` when compact).

    >>> new_figure(4, 3).get_size_inches().tolist(), new_figure(10, 5).get_size_inches().tolist(), new_figure(4, 3).dpi
    ([4.0, 3.0], [8.75, 4.375], 96.0)
    """
    zoom, shrink = 1.0, min(1.0, WIDEST_FIGURE_INCHES / width)
    if compact():
        width, height = compact_size or (width, height)
        zoom, shrink = COMPACT_TEXT_SCALE, min(1.0, COMPACT_FIGURE_INCHES[0] / width, COMPACT_FIGURE_INCHES[1] / height)
    figure = Figure(figsize=(width * shrink / zoom, height * shrink / zoom), dpi=DPI * figure_scale() * zoom,
                    layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def panel_axes(figure: Figure, count: int, width_ratios=None) -> list:
    """`count` axes side by side; in presentation mode, the first across the top and the others under it."""
    if not compact() or count < 2:
        return list(figure.subplots(1, count, width_ratios=width_ratios, squeeze=False)[0])
    grid = figure.add_gridspec(2, count - 1, width_ratios=None if width_ratios is None else width_ratios[1:])
    return [figure.add_subplot(grid[0, :]), *(figure.add_subplot(grid[1, column]) for column in range(count - 1))]


def styled():
    """Context manager applying `STYLE`: create and draw every artist inside it (``with styled(): ...``)."""
    return matplotlib.rc_context(STYLE)


def png_bytes(figure: Figure) -> bytes:
    """`figure` drawn in full (every artist) as PNG bytes at its own resolution (`FastRedraw` draws less)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=figure.dpi, pil_kwargs={"compress_level": 1})
    return buffer.getvalue()


def role_style(name: str) -> dict:
    """The fill colour and hatch of role `name` of `specdec.palette.ROLES`, as matplotlib keywords.

    >>> role_style("draft")
    {'facecolor': '#E69F00', 'hatch': '\\\\\\\\'}
    """
    return {"facecolor": palette.ROLES[name].colour, "hatch": palette.ROLES[name].hatch}


def role_patch(name: str, detail: str = "", **style) -> Patch:
    """A legend entry for role `name`: its colour, hatch and label (then ``": detail"``); `style` overrides.

    >>> role_patch("resampled", "(1 − α)·r").get_label()
    'resampled: (1 − α)·r'
    """
    return Patch(**{"edgecolor": "white", **role_style(name), **style}, label=palette.ROLES[name].labelled(detail))


def heading_texts(figure: Figure) -> list:
    """The titles and axis labels of `figure` (its axes' three titles, x and y labels, its suptitles)."""
    texts = [getattr(figure, name, None) for name in ("_suptitle", "_supxlabel", "_supylabel")]
    for axes in figure.axes:
        texts += [axes.title, axes._left_title, axes._right_title, axes.xaxis.label, axes.yaxis.label]
    return [text for text in texts if text is not None]


def _shown_texts(figure: Figure) -> list[tuple[Text, bool]]:
    """(text, whether it is a heading) for every text of `figure` that is visible, not blank and not transparent."""
    headings = set(heading_texts(figure))
    return [(text, text in headings) for text in figure.findobj(Text)
            if text.get_visible() and text.get_text().strip() and text.get_alpha() != 0]


def enlarge_small_text(figure: Figure) -> None:
    """Raise every text below `MIN_TEXT_PX`, and every heading below `MIN_HEADING_PX`, to that size."""
    for text, heading in _shown_texts(figure):
        floor = (MIN_HEADING_PX if heading else MIN_TEXT_PX) * _POINTS_PER_INCH / DPI
        if text.get_fontsize() < floor:
            text.set_fontsize(floor)


def smallest_text_px(figure: Figure, headings: bool = False) -> float:
    """The smallest shown text of `figure` (only titles and axis labels with `headings`), in PNG px.

    >>> figure = new_figure(3, 2)
    >>> _ = figure.add_subplot().set_title("law", fontsize=15), figure.text(0, 0, "note", fontsize=9)
    >>> smallest_text_px(figure), smallest_text_px(figure, headings=True)
    (12.0, 20.0)
    """
    return min((text.get_fontsize() * figure.dpi / _POINTS_PER_INCH for text, heading in _shown_texts(figure)
                if heading or not headings), default=math.inf)


class FastRedraw:
    """Render `figure` to PNG, drawing each part only as often as it changes; after its first render the layout is
    frozen (no layout engine, axis labels pinned), so that kept pixels stay valid.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        Made by `new_figure` (it has an Agg canvas).
    changing : iterable of artists
        Drawn on every render, in z-order, above everything else.
    occasional : iterable of artists
        Drawn on the first render and after each `invalidate` (say an `Axis` whose limits change); the pixels drawn
        for an ``invalidate(key)`` are kept, and drawn again for that key (at most `KEPT`).

    Examples
    --------
    >>> axes = new_figure(3, 2).add_subplot()
    >>> (line,) = axes.plot([0, 1], [0, 1])
    >>> fast = FastRedraw(axes.figure, changing=[line], occasional=[axes.yaxis])
    >>> line.set_ydata([2, 0]); _ = axes.set_ylim(0, 2); fast.invalidate()  # the y ticks change
    >>> fast.png()[:4]
    b'\\x89PNG'
    """

    KEPT = 64  #: how many states of the occasional artists keep their pixels

    def __init__(self, figure: Figure, changing=(), occasional=()):
        self.figure, self._base, self._background, self._key, self._kept = figure, None, None, None, {}
        self._changing, self._occasional = (sorted(artists, key=lambda artist: artist.get_zorder())
                                            for artists in (changing, occasional))
        for artist in [*self._changing, *self._occasional]:
            artist.set_animated(True)

    def invalidate(self, key=None) -> None:
        """Say that an occasional artist changed: the next `png` draws them again, or, if `key` (a hashable
        description of every occasional artist's state, such as their limits) was seen, restores those pixels."""
        self._background, self._key = self._kept.get(key) if key is not None else None, key

    def png(self) -> bytes:
        """The figure as PNG bytes, as `png_bytes` would make it."""
        canvas, first = self.figure.canvas, self._base is None
        if self._background is None:  # the first render, or after an `invalidate` of pixels not kept
            enlarge_small_text(self.figure)  # (again: new tick labels take their size from the figure's settings)
            if first:
                canvas.draw()  # lays the figure out and draws the base: animated artists are left out
                self.figure.set_layout_engine(None)
                self._base = canvas.copy_from_bbox(self.figure.bbox)
            canvas.restore_region(self._base)
            self._draw(self._occasional)
            if first:
                self._pin_axis_labels()
            self._background = canvas.copy_from_bbox(self.figure.bbox)
        else:
            canvas.restore_region(self._background)
        if self._key is not None and len(self._kept) < self.KEPT:
            self._kept.setdefault(self._key, self._background)
        self._draw(self._changing)
        return png_from_rgba(np.asarray(canvas.buffer_rgba()))

    def _draw(self, artists) -> None:
        renderer = self.figure.canvas.get_renderer()
        for artist in artists:
            if artist.get_visible():
                artist.draw(renderer)

    def _pin_axis_labels(self) -> None:
        """Keep each axis label where the first draw put it (else each draw measures every tick label)."""
        for axes in self.figure.axes:
            for axis in (axes.xaxis, axes.yaxis):
                label = axis.label
                if label.get_visible() and label.get_text():
                    where = label.get_transform().transform(label.get_position())
                    axis.set_label_coords(*axes.transAxes.inverted().transform(where))


class Picture:
    """The base of an explorer's figure class: its `__init__` builds `figure` (with `new_figure`, inside `styled`)
    and `fast` (a `FastRedraw` of it); its ``update(...)`` sets the artists' data; `png` is shared."""
    figure: Figure
    fast: FastRedraw

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only what changed (inside `styled`, as it was built)."""
        with styled():
            return self.fast.png()


def png_from_rgba(pixels: np.ndarray) -> bytes:
    """Encode an (height, width, 4) uint8 RGBA array as PNG, quickly (no row filters, zlib level 1).

    >>> data = png_from_rgba(np.zeros((2, 3, 4), np.uint8))
    >>> data[:8] == b"\\x89PNG\\r\\n\\x1a\\n", len(zlib.decompress(data[41:-16]))
    (True, 26)
    """
    height, width, _ = pixels.shape
    rows = np.pad(pixels.reshape(height, -1), ((0, 0), (1, 0)))  # each row starts with its filter type, 0: none
    chunks = ((b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)),  # 8-bit RGBA, no interlace
              (b"IDAT", zlib.compress(rows.tobytes(), 1)), (b"IEND", b""))
    return b"\x89PNG\r\n\x1a\n" + b"".join(struct.pack(">I", len(data)) + kind + data
                                           + struct.pack(">I", zlib.crc32(kind + data)) for kind, data in chunks)


# ---- readouts as data -----------------------------------------------------------------------------

class Bold(str):
    """A part of a readout line shown in bold: ``bold(2.8)`` is "2.8" (a `str`, so it joins plain text unchanged)."""


bold = Bold  #: how an explorer marks a bold part: ``line("Speedup = ", bold("2.80×"))`` (see `Readout`)


@dataclass(frozen=True)
class Line:
    """One line of a readout: its parts (`str` or `Bold`), and how it is shown.

    ``key``: True or False to say whether it is a key line; None lets the readout choose (see `Readout.key_lines`).
    ``note``: a smaller, muted aside. ``item``: one entry of a numbered list (consecutive items form one list).
    ``html``: markup shown instead of the parts in the HTML view (only where colour is truly needed); the plain
    text still comes from the parts.
    """
    parts: tuple
    key: bool | None = None
    note: bool = False
    item: bool = False
    html: str | None = None

    def plain(self) -> str:
        """The line's words: ``line("E[N] = ", bold("3.36")).plain() == "E[N] = 3.36"``."""
        return "".join(str(part) for part in self.parts)

    def inner_html(self) -> str:
        """The line as inline HTML: its parts escaped, bold parts in ``<b>`` ("p &lt; q: <b>1</b>"), or its `html`."""
        if self.html is not None:
            return self.html
        return "".join(f"<b>{escape(part)}</b>" if isinstance(part, Bold) else escape(str(part)) for part in self.parts)

    def to_html(self) -> str:
        return f"<p class='specdec-note'>{self.inner_html()}</p>" if self.note else f"<p>{self.inner_html()}</p>"


def line(*parts, key: bool | None = None, note: bool = False, item: bool = False, html: str | None = None) -> Line:
    """A readout line of `parts`: strings, `bold` parts, or numbers (shown with `str`); see `Readout`."""
    return Line(tuple(part if isinstance(part, str) else str(part) for part in parts), key, note, item, html)


@dataclass(frozen=True)
class Table:
    """A small table in a readout: a header row and rows of cells (strings)."""
    header: tuple
    rows: tuple

    def plain_lines(self) -> list[str]:
        return [" ".join(cells) for cells in (self.header, *self.rows)]

    def to_html(self) -> str:
        head = "".join(f"<th>{escape(cell)}</th>" for cell in self.header)
        body = "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in self.rows)
        return f"<table><tr>{head}</tr>{body}</table>"


def table(header, rows) -> Table:
    """A `Table` block for a `Readout`; cells are formatted with `str` (plain text: one line per row)."""
    return Table(tuple(map(str, header)), tuple(tuple(map(str, row)) for row in rows))


class Readout:
    """What an explorer says beside its picture: a list of `line`s (and `table`s), built once as data.

    Examples
    --------
    >>> readout = Readout([line("α = 0.80, γ = 4"), line("Speedup = ", bold("2.80×")), line("Cost 1.2", note=True)])
    >>> readout.plain()
    ['α = 0.80, γ = 4', 'Speedup = 2.80×', 'Cost 1.2']
    >>> [key.plain() for key in readout.key_lines()]
    ['Speedup = 2.80×']
    >>> readout.html()
    "<p>α = 0.80, γ = 4</p><p>Speedup = <b>2.80×</b></p><p class='specdec-note'>Cost 1.2</p>"
    """

    def __init__(self, blocks):
        self.blocks = list(blocks)

    def plain(self) -> list[str]:
        """The readout's words, one string per line (and per table row); blank lines dropped."""
        texts = [text for block in self.blocks
                 for text in (block.plain_lines() if isinstance(block, Table) else [block.plain()])]
        return [" ".join(text.split()) for text in texts if text.strip()]

    def text(self) -> str:
        """`plain` joined by newlines."""
        return "\n".join(self.plain())

    def key_lines(self) -> list[Line]:
        """The lines marked ``key=True``, else the unmarked ones with bold parts (up to `KEY_LINES`), else the first."""
        lines = [block for block in self.blocks if isinstance(block, Line)]
        marked = [item for item in lines if item.key]
        with_bold = [item for item in lines if item.key is None and any(isinstance(part, Bold) for part in item.parts)]
        return marked or with_bold[:KEY_LINES] or lines[:1]

    def html(self) -> str:
        """The readout as HTML: a paragraph per line, a numbered list per run of items, tables."""
        pieces = []
        for items, run in groupby(self.blocks, key=lambda block: isinstance(block, Line) and block.item):
            if items:
                pieces += ["<ol class='specdec-note'>", *(f"<li>{item.inner_html()}</li>" for item in run), "</ol>"]
            else:
                pieces += [block.to_html() for block in run]
        return "".join(pieces)

    def key_html(self) -> str:
        """The key lines as HTML, inside a polite ARIA live region (announced when they change)."""
        inner = "".join(f"<div>{item.inner_html()}</div>" for item in self.key_lines())
        return f"<div role='status' aria-live='polite'>{inner}</div>"


# ---- the explorer ---------------------------------------------------------------------------------

def slider(description: str, value, limits: tuple, step=None, **traits):
    """A slider over `limits` (low, high) labelled `description` in full (`LABEL_STYLE`): an `IntSlider`,
    or a `FloatSlider` moving by `step` if one is given; `traits` go to the widget (``readout_format=".2f"``)."""
    kind, step = (widgets.IntSlider, 1) if step is None else (widgets.FloatSlider, step)
    return labelled(kind, description, value=value, min=limits[0], max=limits[1], step=step, **traits)


def labelled(kind, description: str, label_above=False, **traits):
    """A control of class `kind` (``widgets.Dropdown`` ...) labelled `description` in full (`LABEL_STYLE`); with
    `label_above` (True, or "compact": in presentation mode only) the label sits above it and a menu shows long
    options whole."""
    control = kind(description=description, style=LABEL_STYLE, **traits)
    if label_above is True or (label_above == "compact" and compact()):
        control.add_class(CSS["label_above"])
    return control


class Explorer(widgets.VBox):
    """A figure with a text readout beside it, under rows of controls; subclass it for each explorer.

    A subclass sets `title`, builds its controls and picture and its own state (as attributes, set before calling
    ``super().__init__``, which draws the first view), and overrides `compute` and `describe`. Buttons are wired
    with `on_click`; a control whose change must do more than redraw with `on_change`.

    Parameters
    ----------
    controls : dict of str to ipywidgets.Widget
        The inputs, by a short name that tests use (``explorer.controls["gamma"]``).
    rows : list of list of names (or widgets)
        How to lay the controls out; each inner list is one row (it wraps when the output is narrow).
    picture : a `Picture` (an object with ``figure`` and ``png()``)
        The one matplotlib figure (never rebuilt), and its PNG.
    compact_rows : (list of rows, list of rows), optional
        The compact side column's rows above the key lines and below them (default: the rows holding a button above).
    observe : bool or iterable of str
        Which controls redraw the view when their value changes: all (True, default), none, or those named.

    Attributes
    ----------
    shown : dict
        What `compute` last returned, plus ``"readout"``: the `Readout` `describe` made of it.
    image, readout, key_readout : ipywidgets.Image, ipywidgets.HTML, ipywidgets.HTML
        The picture (its ``tooltip`` is its text alternative), the whole readout, the key lines.
    figure, compact : ``picture.figure``; whether the explorer was built in presentation mode.

    Examples
    --------
    >>> class Square(Picture):
    ...     def __init__(self):
    ...         self.figure = new_figure(2, 2)
    ...         (self.curve,) = self.figure.add_subplot(xlabel="x", ylabel="x²").plot([0, 9], [0, 81])
    ...         self.fast = FastRedraw(self.figure, changing=[self.curve])
    ...     def update(self, x):
    ...         self.curve.set_data([0, x], [0, x * x])
    >>> class SquareExplorer(Explorer):
    ...     title = "Squares"
    ...     def __init__(self):
    ...         super().__init__({"x": slider("x", 2, (0, 9))}, rows=[["x"]], picture=Square())
    ...     def compute(self):
    ...         x = self.value("x")
    ...         self.picture.update(x)
    ...         return {"x": x, "square": x * x}
    ...     def describe(self, shown):
    ...         return Readout([line("x = ", shown["x"]), line("x² = ", bold(shown["square"]))])
    >>> explorer = SquareExplorer(); explorer.controls["x"].value = 3
    >>> explorer.shown["square"], explorer.summary(), explorer.image.tooltip
    (9, 'Squares\\nx = 3\\nx² = 9', 'Squares. x² = 9')
    """

    title = "Explorer"  #: shown above the controls; subclasses set it

    def __init__(self, controls: dict, rows: list, picture, compact_rows: tuple | None = None, observe=True, **kwargs):
        self.controls, self.picture, self.figure = controls, picture, picture.figure
        self.compact, self.shown, self._batch_depth = compact(), {}, 0
        rows = [[controls[item] if isinstance(item, str) else item for item in row] for row in rows]
        percent = round(100 * figure_scale())
        for control in controls.values():  # a slider with a long label carries it above its track
            if "slider" in type(control).__name__.lower() and len(control.description) > LONG_LABEL_CHARS:
                control.add_class(CSS["label_above"])
        self.image = _PictureWidget(format="png", layout=widgets.Layout(flex="0 1 auto", min_width="0"))
        self.image.add_class(CSS["picture"])
        self.readout = widgets.HTML(layout=widgets.Layout(flex="1 1 16em", min_width="16em", max_width="40em",
                                                          padding="0 0 0 1em"))
        self.readout.add_class(CSS["readout"]).add_class(f"specdec-readout-{percent}")
        self.key_readout = widgets.HTML().add_class(CSS["key_readout"])
        style = widgets.HTML(_STYLE_SHEET.format(track=MIN_TRACK_PX, chrome=COMPACT_CHROME_PX, percent=percent,
                                                 side=COMPACT_SIDE_EM + 1, stack=COMPACT_STACK_PX),
                             layout=widgets.Layout(display="none"))
        header = widgets.HTML(f"<b>{escape(self.title)}</b>").add_class(CSS["title"])
        if self.compact:
            if compact_rows is None:  # by default the rows holding a button go above the key lines
                above = [row for row in rows if any(isinstance(control, widgets.Button) for control in row)]
                compact_rows = (above, [row for row in rows if row not in above])
            above, below = ([_control_row(row, controls) for row in part] for part in compact_rows)
            side = widgets.VBox([*above, self.key_readout, *below],
                                layout=widgets.Layout(flex=f"1 1 {COMPACT_SIDE_EM}em", min_width=f"{COMPACT_SIDE_EM}em",
                                                      padding="0 0 0 1em")).add_class(CSS["side"])
            self.readout.layout.flex, self.readout.layout.max_width = "1 1 100%", "none"
            control_rows, beside_picture = [], [side, self.readout]
        else:
            self.key_readout.add_class(CSS["screen_reader_only"])  # announced, not shown twice
            control_rows = [_control_row(row, controls) for row in rows]
            beside_picture = [self.readout, self.key_readout]
        body = widgets.HBox([self.image, *beside_picture, style, SliderNames()],
                            layout=widgets.Layout(flex_flow="row wrap", align_items="flex-start", max_width="100%"))
        super().__init__([header, *control_rows, body.add_class(CSS["body"])], **kwargs)
        self.layout.max_width = "100%"
        self.add_class(CSS["explorer"])
        if self.compact:
            self.add_class(CSS["compact"])
        for name in [] if observe is False else list(controls) if observe is True else list(observe):
            if "value" in controls[name].trait_names():
                controls[name].observe(self.refresh, names="value")
        self.refresh()

    def compute(self) -> dict:
        """Read the controls, compute with the math modules, update the picture; return what is shown."""
        raise NotImplementedError

    def describe(self, shown: dict) -> Readout:
        """The readout for the numbers `compute` returned."""
        raise NotImplementedError

    def value(self, name: str):
        """The current value of control `name`."""
        return self.controls[name].value

    def on_click(self, name: str, method) -> None:
        """Call `method()` when button `name` is pressed, then redraw once."""
        self.controls[name].on_click(lambda _button: self._run_in_batch(method))

    def on_change(self, name: str, method) -> None:
        """Call `method()` (instead of only redrawing) when control `name` changes, then redraw once."""
        control = self.controls[name]
        with suppress(ValueError):  # it was not observed
            control.unobserve(self.refresh, names="value")
        control.observe(lambda _change: self._run_in_batch(method), names="value")

    def _run_in_batch(self, method) -> None:
        with self.batch():
            method()

    @contextmanager
    def batch(self):
        """Change several controls, then redraw once when the outermost batch closes."""
        self._batch_depth += 1
        try:
            yield
        finally:
            self._batch_depth -= 1
        if not self._batch_depth:
            self.refresh()

    def refresh(self, *_ignored) -> None:
        """Redraw the picture and the readout from the controls (deferred inside a `batch`)."""
        if self._batch_depth:
            return
        self._batch_depth += 1  # controls that compute sets (a mirror slider, a label) draw nothing more
        try:
            shown = self.compute()
        finally:
            self._batch_depth -= 1
        shown["readout"] = readout = self.describe(shown)
        self.readout.value = readout.html()
        self.key_readout.value = readout.key_html()
        self.image.value = self.picture.png()
        keys = (" ".join(key.plain().split()) for key in readout.key_lines())
        self.image.tooltip = " ".join([f"{self.title}.", *keys])  # the picture's text alternative
        # later renders keep the first one's layout (faster, nothing jumps); None: with any engine, savefig draws twice
        self.figure.set_layout_engine(None)
        self.shown = shown

    def summary(self) -> str:
        """The title and the readout's words, one line per readout line: the plain-text view."""
        return "\n".join([self.title, *self.shown["readout"].plain()])

    def _repr_mimebundle_(self, **kwargs):
        """The live view, plus the static view that nbconvert's exports and JupyterLab opening an unrun
        notebook show: the picture (``image/png``), `summary` (``text/plain``) and both as ``text/html``."""
        data = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = self.summary()
        data["image/png"] = png = base64.b64encode(self.image.value).decode("ascii")
        data["text/html"] = (f"<div class='specdec-static'><p><b>{escape(self.title)}</b></p>"
                             f"<img src='data:image/png;base64,{png}' alt='{escape(self.image.tooltip)}' "
                             f"style='max-width: 100%'>{self.shown['readout'].html()}</div>")
        return data


class _PictureWidget(widgets.Image):
    """An Image with an empty ``description``: ipywidgets 8.1's front end reads it to set the ``tooltip`` (the
    text alternative, its ``<img>``'s ``title``), and on an Image, which has none, shows no picture at all."""
    description = traitlets.Unicode("").tag(sync=True)


def _control_row(row, controls: dict) -> widgets.HBox:
    """One row of controls (widgets, or names in `controls`), wrapping onto more lines when the output is narrow."""
    row = [controls[item] if isinstance(item, str) else item for item in row]
    return widgets.HBox(row, layout=widgets.Layout(flex_flow="row wrap", max_width="100%")).add_class(CSS["controls"])


# ---- accessible names for sliders -----------------------------------------------------------------

class SliderNames(anywidget.AnyWidget):
    """Names each slider handle of the explorer around it after the slider's description label.

    ipywidgets 8.1.9 gives a slider's focusable handle (``<div class="noUi-handle" role="slider">``) no accessible
    name and ties its description label to nothing: screen readers announce an unnamed "slider" (axe-core rule
    ``aria-input-field-name``, serious). This widget shows nothing and takes no room; the frame puts one in each
    explorer's body. In the browser it gives each slider's label in the explorer's box an id and points the slider's
    handles at it (``aria-labelledby``), now and whenever a control is drawn again. A slider without a description
    stays unnamed, as it should be reported; where no widget runs (an exported notebook), nothing of it shows.

    Examples
    --------
    >>> SliderNames().layout.display, "aria-labelledby" in SliderNames._esm
    ('none', True)
    """

    #: The browser side, run once per view; it returns the clean-up that stops observing.
    _esm = """
    function nameHandles(box) {
      for (const slider of box.querySelectorAll(".widget-slider, .jupyter-widget-slider")) {
        const label = slider.querySelector(":scope > .widget-label, :scope > .jupyter-widget-label");
        if (!label) continue;
        label.id ||= "specdec-label-" + Math.random().toString(36).slice(2);
        for (const handle of slider.querySelectorAll(".noUi-handle[role=slider]"))
          if (handle.getAttribute("aria-labelledby") !== label.id) handle.setAttribute("aria-labelledby", label.id);
      }
    }

    function render({ el }) {
      let observer = null, frame = null;
      const attach = () => {
        const box = el.closest(".specdec-explorer");
        if (box) {
          nameHandles(box);
          observer = new MutationObserver(() => nameHandles(box));
          observer.observe(box, { childList: true, subtree: true });
        } else if (!el.isConnected) {
          frame = requestAnimationFrame(attach);  // not yet in the page: look again at the next frame
        }
      };
      attach();
      return () => { if (frame !== null) cancelAnimationFrame(frame); observer?.disconnect(); };
    }
    export default { render };
    """

    def __init__(self, **kwargs):
        super().__init__(layout=widgets.Layout(display="none"), **kwargs)
