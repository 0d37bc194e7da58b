"""The frame every explorer shares: controls, a figure redrawn in place, and a text readout.

The frame adapts to the width it gets: controls wrap onto more lines rather than shrink (every
slider track keeps at least `MIN_TRACK_PX`), a label longer than `LONG_LABEL_CHARS` is set above
its slider, the picture scales down to the output width, and the readout moves below the picture
when both do not fit side by side. `presentation` switches every explorer built afterwards to a
larger, compact layout for a room. The display output carries a still PNG and a plain-text summary
beside the live view, for front ends without widgets (GitHub, nbconvert, PDF).

How to write an explorer with it is in ``specdec/widgets/README.md``.
"""

from __future__ import annotations

import base64
import html
import re
from contextlib import contextmanager
from html.parser import HTMLParser
from typing import Callable

import ipywidgets as widgets

from ..plots import canvas

#: The style of every control: the description is shown in full, never cut to a fixed width.
LABEL_STYLE = {"description_width": "initial"}

#: A slider's track is never narrower than this (CSS px): shorter tracks cannot be dragged.
MIN_TRACK_PX = 80

#: A slider label longer than this many characters is set above the slider instead of beside it.
LONG_LABEL_CHARS = 24

#: In the compact layout, the picture is at most the window's height minus this (CSS px): room for
#: JupyterLab's menu, tab and tool bars and the explorer's title.
COMPACT_CHROME_PX = 165

#: In the compact layout, the width of the column beside the picture (controls and key lines), in em.
COMPACT_SIDE_EM = 20

#: In the compact layout, at most this many readout lines are picked as key lines when `redraw`
#: marks none.
KEY_LINES = 4

#: CSS class names on the frame's parts (for browser tests and the style sheet below).
CSS = {
    "explorer": "specdec-explorer",
    "title": "specdec-title",
    "controls": "specdec-controls",
    "body": "specdec-body",
    "picture": "specdec-picture",
    "readout": "specdec-readout",
    "side": "specdec-side",
    "key_readout": "specdec-key-readout",
    "label_above": "specdec-label-above",
    "compact": "specdec-compact",
}

_STYLE_SHEET = """<style>
.specdec-explorer, .specdec-explorer .widget-box {{ max-width: 100%; }}
.specdec-explorer .widget-inline-hbox, .specdec-explorer .jupyter-widget-inline-hbox {{ max-width: calc(100% - 4px); }}
.specdec-explorer .widget-hslider, .specdec-explorer .jupyter-widget-hslider {{ min-width: min-content; }}
.specdec-explorer .slider-container {{ min-width: {track}px; }}
.specdec-explorer .specdec-label-above, .specdec-explorer .specdec-side .widget-hslider {{ flex-wrap: wrap; height: auto; }}
.specdec-explorer .specdec-label-above > .widget-label, .specdec-explorer .specdec-side .widget-hslider > .widget-label,
.specdec-explorer .specdec-label-above > .jupyter-widget-label {{ flex: 1 0 100%; text-align: left;
  white-space: normal; line-height: 1.3; margin-bottom: 2px; }}
.specdec-explorer .specdec-picture {{ max-width: 100%; height: auto; min-width: 0; }}
.specdec-explorer.specdec-compact .specdec-picture {{ max-height: calc(100vh - {chrome}px); width: auto;
  max-width: calc(100% - {side}em); }}
.specdec-explorer .specdec-readout-{percent} {{ font-size: {percent}%; }}
.specdec-explorer .specdec-side .widget-button, .specdec-explorer .specdec-side .jupyter-button {{ width: auto; }}
.specdec-explorer .specdec-side .widget-inline-hbox, .specdec-explorer .specdec-side .jupyter-widget-inline-hbox {{ width: auto; flex: 1 1 auto; }}
.specdec-explorer .specdec-side .specdec-key-readout {{ margin-top: 0.3em; font-size: 100%; }}
.specdec-explorer .specdec-key-readout, .specdec-explorer .specdec-key-readout * {{ line-height: 1.35; }}
</style>"""


class _Presentation:
    """The presentation setting in force: `presentation` changes it, `Explorer` reads it."""

    scale = None  # None: the ordinary layout


def presentation(on: bool = True, scale: float = 1.5) -> None:
    """Make every explorer built afterwards larger and compact, for a room (``on=False``: back to normal).

    With it on, the figure is drawn `scale` times larger in pixels (its text with it) and the readout
    text is `scale` times larger. The layout is compact: the picture fits the window's height, with a
    column beside it holding the rows of buttons, the key lines of the readout and the other controls,
    and the whole readout under both. Meant for a projector at 1280×720, browser zoom up to 150%.

    Parameters
    ----------
    on : bool
        Switch presentation mode on (default) or off.
    scale : float
        How much larger, between 1 and 3.

    Examples
    --------
    >>> from specdec.widgets import presentation, speedup_explorer
    >>> presentation(scale=1.5)
    >>> speedup_explorer().figure.dpi
    144.0
    >>> presentation(False)
    """
    if not isinstance(on, bool):
        raise TypeError(f"on must be True or False, got {on!r}")
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise TypeError(f"scale must be a number between 1 and 3, got {scale!r}")
    if not 1 <= scale <= 3:
        raise ValueError(f"scale must be between 1 and 3 (1.5 suits a projector), got {scale!r}")
    _Presentation.scale = float(scale) if on else None
    canvas.set_figure_scale(float(scale) if on else 1.0)


def presentation_scale() -> float | None:
    """The scale of presentation mode, or None when it is off.

    >>> presentation_scale() is None
    True
    """
    return _Presentation.scale


class Explorer(widgets.VBox):
    """A figure with a text readout beside it, under a row (or several) of controls.

    Parameters
    ----------
    title : str
        Shown above the controls.
    controls : dict of str to ipywidgets.Widget
        The explorer's inputs, by a short name that tests use (``explorer.controls["gamma"]``).
    control_rows : list of list of Widget
        How to lay the controls out; each inner list is one row (it wraps when the output is narrow).
    picture : figure object from `specdec.plots`
        It has ``figure`` (the one matplotlib figure the explorer owns, never rebuilt) and ``png()``
        (the figure as PNG bytes, redrawing only what changed: `specdec.plots.fast_redraw`).
    redraw : callable returning dict
        Called after any change; it reads the controls, computes with the math modules, calls the
        picture's ``update`` and returns what the view shows: a dict with the key ``"readout"``
        (HTML for the text panel) and any numbers tests should compare. An optional key
        ``"key_readout"`` (HTML) holds the lines the compact layout of `presentation` shows beside
        the picture; without it, the readout lines with bold numbers are taken (at most `KEY_LINES`).
    compact_rows : (list of list of Widget, list of list of Widget), optional
        The control rows of the compact layout's side column: those above the key lines and those
        below them, top to bottom. Put the controls a learner uses first above, so they stay in the
        window. Default: the rows that hold a button above, the other `control_rows` below. Only the
        compact layout uses it; the ordinary one always shows `control_rows`.

    Attributes
    ----------
    shown : dict
        What `redraw` last returned: the numbers and text on screen right now.
    image, readout, key_readout : ipywidgets.Image, ipywidgets.HTML, ipywidgets.HTML
        The picture, the text beside (or below) it, and the key lines (compact layout only).
    figure : matplotlib.figure.Figure
        ``picture.figure``.
    compact : bool
        Whether the explorer was built in presentation mode.

    The children are always ``(title, *control rows, body)`` in the ordinary layout and
    ``(title, body)`` in the compact one; ``body`` holds the picture and the readout.
    """

    def __init__(self, title: str, controls: dict, control_rows: list, picture,
                 redraw: Callable[[], dict], compact_rows: tuple | None = None, **kwargs):
        self.controls = controls
        self.picture = picture
        self.figure = picture.figure
        self.title = title
        self._redraw = redraw
        self.scale = _Presentation.scale or 1.0
        self.compact = _Presentation.scale is not None
        self.shown: dict = {}
        self._batch_depth = 0
        percent = round(100 * self.scale)
        for control in controls.values():
            _lay_out_control(control)
        self.image = widgets.Image(format="png", layout=widgets.Layout(flex="0 1 auto", min_width="0"))
        self.image.add_class(CSS["picture"])
        self.readout = widgets.HTML(layout=widgets.Layout(flex="1 1 16em", min_width="16em", max_width="40em",
                                                          padding="0 0 0 1em"))
        self.readout.add_class(CSS["readout"])
        self.readout.add_class(f"specdec-readout-{percent}")
        self.key_readout = widgets.HTML()
        self.key_readout.add_class(CSS["key_readout"])
        style = widgets.HTML(_STYLE_SHEET.format(track=MIN_TRACK_PX, chrome=COMPACT_CHROME_PX, percent=percent,
                                                 side=COMPACT_SIDE_EM + 1),
                             layout=widgets.Layout(display="none"))
        header = widgets.HTML(f"<b>{html.escape(title)}</b>")
        header.add_class(CSS["title"])
        body_layout = widgets.Layout(flex_flow="row wrap", align_items="flex-start", max_width="100%")
        if self.compact:
            # The controls used first (by default the rows with buttons: Step, Back, presets), then the
            # key lines, then the other settings: the part most likely to fall below the window, and
            # the least missed.
            if compact_rows is None:
                above = [row for row in control_rows if any(isinstance(control, widgets.Button) for control in row)]
                compact_rows = (above, [row for row in control_rows if row not in above])
            above, below = ([_control_row(row) for row in part] for part in compact_rows)
            side = widgets.VBox([*above, self.key_readout, *below],
                                layout=widgets.Layout(flex=f"1 1 {COMPACT_SIDE_EM}em", min_width=f"{COMPACT_SIDE_EM}em",
                                                      padding="0 0 0 1em"))
            side.add_class(CSS["side"])
            self.readout.layout.flex = "1 1 100%"
            self.readout.layout.max_width = "none"
            body = widgets.HBox([self.image, side, self.readout, style], layout=body_layout)
            children = [header, body]
        else:
            body = widgets.HBox([self.image, self.readout, style], layout=body_layout)
            children = [header, *(_control_row(row) for row in control_rows), body]
        body.add_class(CSS["body"])
        super().__init__(children, **kwargs)
        self.layout.max_width = "100%"
        self.add_class(CSS["explorer"])
        if self.compact:
            self.add_class(CSS["compact"])
        self.refresh()

    @property
    def batching(self) -> bool:
        """Whether a `batch` is open: control changes are then drawn once, when it closes."""
        return self._batch_depth > 0

    @contextmanager
    def batch(self):
        """Change several controls, then redraw once at the end instead of after each change.

        Batches may nest; the redraw happens when the outermost one closes.
        """
        self._batch_depth += 1
        try:
            yield
        finally:
            self._batch_depth -= 1
        if not self._batch_depth:
            self.refresh()

    def refresh(self, *_ignored) -> None:
        """Redraw the figure and the readout from the current control values (deferred inside a `batch`)."""
        if self._batch_depth:
            return
        shown = self._redraw()
        self.readout.value = shown["readout"]
        if self.compact:
            self.key_readout.value = shown.get("key_readout") or key_lines(shown["readout"])
        self.image.value = self.picture.png()
        # The first render lays the figure out (constrained layout); later renders keep that layout,
        # which halves the cost of each update and stops the axes from jumping as values change.
        # None rather than "none": savefig draws a figure twice while it has any layout engine.
        self.figure.set_layout_engine(None)
        self.shown = shown

    def observe_controls(self, *names: str) -> None:
        """Redraw whenever one of the named controls (all, if none named) changes value."""
        for name in names or self.controls:
            self.controls[name].observe(self.refresh, names="value")

    def summary(self) -> str:
        """The title and the readout's words, one line per paragraph or line break: the plain-text view."""
        return "\n".join([self.title, *plain_lines(self.readout.value)])

    def _repr_mimebundle_(self, **kwargs):
        """The live view, plus the current picture (``image/png``) and `summary` (``text/plain``).

        Front ends that run widgets show the live view; the others (GitHub, nbconvert, a PDF) show
        the picture, and a plain-text reader the summary.
        """
        data = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = self.summary()
        data["image/png"] = base64.b64encode(self.image.value).decode("ascii")
        return data


def _control_row(row) -> widgets.HBox:
    """One row of controls, wrapping onto more lines when the output is narrow."""
    box = widgets.HBox(list(row), layout=widgets.Layout(flex_flow="row wrap", max_width="100%"))
    box.add_class(CSS["controls"])
    return box


def _lay_out_control(control) -> None:
    """Let a slider with a long label carry it above the track (a CSS class the frame's style sheet reads)."""
    description = getattr(control, "description", "") or ""
    if "slider" in type(control).__name__.lower() and len(description) > LONG_LABEL_CHARS:
        control.add_class(CSS["label_above"])


_BREAKS = re.compile(r"<\s*(?:br\s*/?|/?p\b[^>]*|/?li\b[^>]*|/?tr\b[^>]*|/?div\b[^>]*|/?ol\b[^>]*|/?ul\b[^>]*|/?h\d[^>]*)>",
                     re.IGNORECASE)


class _TextOnly(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script"):
            self._skipping += 1
        elif tag in ("td", "th"):
            self.parts.append(" ")
        elif tag == "sup":  # α<sup>γ</sup> reads α^γ, not αγ
            self.parts.append("^")
        elif tag == "sub":
            self.parts.append("_")

    def handle_endtag(self, tag):
        if tag in ("style", "script") and self._skipping:
            self._skipping -= 1

    def handle_data(self, data):
        if not self._skipping:
            self.parts.append(data)


def plain_lines(readout_html: str) -> list[str]:
    """The words of an HTML readout, one string per paragraph, line break or list item; blank lines dropped.

    >>> plain_lines("<p>α = <b>0.80</b><br>E[N] = 3.36</p><p>x<sup>2</sup> &amp; y<sub>i</sub></p>")
    ['α = 0.80', 'E[N] = 3.36', 'x^2 & y_i']
    """
    lines = []
    for piece in _BREAKS.split(readout_html):
        parser = _TextOnly()
        parser.feed(piece)
        parser.close()
        line = " ".join("".join(parser.parts).split())
        if line:
            lines.append(line)
    return lines


_INLINE_ONLY = re.compile(r"<\s*/?\s*(?:table|ol|ul|li|tr|td|th|div|h\d)\b", re.IGNORECASE)


def key_lines(readout_html: str, limit: int = KEY_LINES) -> str:
    """The lines of a readout that carry a bold number (at most `limit`), as HTML: the compact layout's default.

    A line is a piece between paragraph or line breaks with only inline markup. With no bold line,
    the first line is taken.

    >>> key_lines("<p>α = 0.80</p><p>Speedup = <b>2.80×</b><br>cost 1.2</p>")
    '<div>Speedup = <b>2.80×</b></div>'
    """
    pieces = [piece.strip() for piece in re.split(r"<\s*br\s*/?>|<\s*/?\s*p\b[^>]*>", readout_html, flags=re.IGNORECASE)]
    inline = [piece for piece in pieces if piece and not _INLINE_ONLY.search(piece)]
    chosen = [piece for piece in inline if re.search(r"<\s*b\s*>", piece, re.IGNORECASE)][:limit] or inline[:1]
    return "".join(f"<div>{piece}</div>" for piece in chosen)
