"""The frame every explorer shares: controls, a picture redrawn in place, and a readout built as data.

An explorer is a subclass of `Explorer` that builds its controls and its picture, then overrides two
methods: `Explorer.compute` (read the controls, call the math, update the picture, return the numbers
on screen) and `Explorer.describe` (turn those numbers into a `Readout`: lines of text and bold
parts, some marked as key lines). The frame renders the readout to HTML for the view, to plain text
for the static view (`summary`), and picks its key lines for the compact layout and for screen
readers: nothing is ever parsed back out of HTML.

The frame adapts to the width it gets: control rows wrap rather than shrink (every slider track keeps
at least `MIN_TRACK_PX`), a label longer than `LONG_LABEL_CHARS` sits above its slider, the picture
scales down to the output, and the readout moves below the picture when both do not fit.
`presentation` is the one switch for a room: figures made afterwards are drawn larger
(`figure_scale`), arranged for a compact box (`compact`), and explorers use the compact layout.

Accessibility: the picture carries a text alternative (its ``title``: the explorer's title and the
readout's key lines, the same data as the readout) and the key lines sit in an ARIA live region
(``role="status"``, polite), in both layouts (visually hidden in the ordinary one), so a screen
reader announces what a control change did. How to write an explorer: ``specdec/explore/README.md``.
"""

from __future__ import annotations

import base64
from contextlib import contextmanager
from dataclasses import dataclass
from html import escape

import ipywidgets as widgets
import traitlets

from .figure_kit import (COMPACT_FIGURE_INCHES, DPI, FastRedraw, compact, figure_scale, new_figure, nice_top,  # noqa: F401
                         panel_axes, png_bytes, presentation, role_patch, role_style, styled)

__all__ = ["COMPACT_FIGURE_INCHES", "CSS", "KEY_LINES", "LABEL_STYLE", "Bold", "Explorer", "FastRedraw", "Line",
           "Readout", "bold", "compact", "figure_scale", "line", "new_figure", "nice_top", "panel_axes", "png_bytes",
           "presentation", "role_patch", "role_style", "styled", "table"]

#: The style of every control: the description is shown in full, never cut to a fixed width.
LABEL_STYLE = {"description_width": "initial"}

#: A slider's track is never narrower than this (CSS px): shorter tracks cannot be dragged.
MIN_TRACK_PX = 80

#: A slider label longer than this many characters is set above the slider instead of beside it.
LONG_LABEL_CHARS = 24

#: In the compact layout, the picture is at most the window's height minus this (CSS px): JupyterLab's
#: bars and the explorer's title.
COMPACT_CHROME_PX = 130

#: In the compact layout, an output narrower than this (CSS px) stacks the side column under the
#: picture, which then gets the whole width (JupyterLab's file browser open, at 853×480): beside a
#: 20em column, a picture would be too small for its text to read from the back of a room.
COMPACT_STACK_PX = 600

#: In the compact layout, the width of the column beside the picture (controls and key lines), in em.
COMPACT_SIDE_EM = 16

#: At most this many lines are key lines when a readout marks none itself.
KEY_LINES = 4

#: CSS class names on the frame's parts (for browser tests and the style sheet below).
CSS = {"explorer": "specdec-explorer", "title": "specdec-title", "controls": "specdec-controls",
       "body": "specdec-body", "picture": "specdec-picture", "readout": "specdec-readout",
       "side": "specdec-side", "key_readout": "specdec-key-readout", "label_above": "specdec-label-above",
       "compact": "specdec-compact", "screen_reader_only": "specdec-sr-only"}

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
.specdec-explorer.specdec-compact .specdec-body {{ container-type: inline-size; }}
.specdec-explorer.specdec-compact .specdec-picture {{ max-height: calc(100vh - {chrome}px); width: auto;
  max-width: calc(100% - {side}em); object-fit: contain; }}
@container (max-width: {stack}px) {{
  .specdec-explorer.specdec-compact .specdec-picture {{ max-width: 100%; }}
  .specdec-explorer.specdec-compact .specdec-side {{ flex-basis: 100%; padding-left: 0; }}
}}
.specdec-explorer .specdec-readout-{percent} {{ font-size: {percent}%; }}
.specdec-explorer .specdec-readout p {{ margin: 0 0 0.45em 0; }}
.specdec-explorer .specdec-note {{ font-size: 0.85em; color: #595959; }}
.specdec-explorer .specdec-side .widget-button, .specdec-explorer .specdec-side .jupyter-button {{ width: auto; }}
.specdec-explorer .specdec-side .widget-inline-hbox, .specdec-explorer .specdec-side .jupyter-widget-inline-hbox {{ width: auto; flex: 1 1 auto; }}
.specdec-explorer .specdec-side .specdec-key-readout {{ margin-top: 0.3em; font-size: 100%; }}
.specdec-explorer .specdec-key-readout, .specdec-explorer .specdec-key-readout * {{ line-height: 1.35; }}
.specdec-explorer .specdec-sr-only {{ position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; }}
</style>"""


# ---- readouts as data -----------------------------------------------------------------------------


class Bold(str):
    """A part of a readout line shown in bold (a `str`, so it joins plain text unchanged)."""


def bold(text) -> Bold:
    """`text` (formatted with `str`) as a bold part of a `line`.

    >>> bold(f"{2.8:.2f}×")
    '2.80×'
    """
    return Bold(text)


@dataclass(frozen=True)
class Line:
    """One line of a readout: its parts (`str` or `Bold`), and how it is shown.

    ``key``: True or False to say whether it is a key line; None lets the readout choose (see
    `Readout.key_lines`). ``note``: a smaller, muted aside. ``item``: one entry of a numbered list
    (consecutive items form one list). ``html``: markup shown instead of the parts in the HTML view
    (only where colour is truly needed); the plain text still comes from the parts.
    """

    parts: tuple
    key: bool | None = None
    note: bool = False
    item: bool = False
    html: str | None = None

    def plain(self) -> str:
        """The line's words.

        >>> line("E[N] = ", bold("3.36")).plain()
        'E[N] = 3.36'
        """
        return "".join(str(part) for part in self.parts)

    def inner_html(self) -> str:
        """The line as inline HTML: its parts escaped, bold parts in ``<b>``, or its own `html`.

        >>> line("p < q: ", bold("1")).inner_html()
        'p &lt; q: <b>1</b>'
        """
        if self.html is not None:
            return self.html
        return "".join(f"<b>{escape(part)}</b>" if isinstance(part, Bold) else escape(str(part))
                       for part in self.parts)

    @property
    def has_bold(self) -> bool:
        return any(isinstance(part, Bold) for part in self.parts)


def line(*parts, key: bool | None = None, note: bool = False, item: bool = False, html: str | None = None) -> Line:
    """A readout line of `parts`: strings, `bold` parts, or numbers (shown with `str`).

    >>> line("α = ", 0.8, key=False).plain()
    'α = 0.8'
    """
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
    """A `Table` block for a `Readout`; cells are formatted with `str`.

    >>> table(["token", "p"], [["A", "0.500"]]).plain_lines()
    ['token p', 'A 0.500']
    """
    return Table(tuple(map(str, header)), tuple(tuple(map(str, row)) for row in rows))


class Readout:
    """What an explorer says beside its picture: a list of `line`s (and `table`s), built once as data.

    Examples
    --------
    >>> readout = Readout([line("α = 0.80, γ = 4"), line("Speedup = ", bold("2.80×")),
    ...                    line("Cost 1.2", note=True)])
    >>> readout.plain()
    ['α = 0.80, γ = 4', 'Speedup = 2.80×', 'Cost 1.2']
    >>> [key.plain() for key in readout.key_lines()]
    ['Speedup = 2.80×']
    >>> readout.html()
    "<p>α = 0.80, γ = 4</p><p>Speedup = <b>2.80×</b></p><p class='specdec-note'>Cost 1.2</p>"
    """

    def __init__(self, blocks):
        self.blocks = list(blocks)

    @property
    def lines(self) -> list[Line]:
        return [block for block in self.blocks if isinstance(block, Line)]

    def plain(self) -> list[str]:
        """The readout's words, one string per line (and per table row); blank lines dropped."""
        texts = []
        for block in self.blocks:
            texts += block.plain_lines() if isinstance(block, Table) else [block.plain()]
        return [" ".join(text.split()) for text in texts if text.strip()]

    def text(self) -> str:
        """`plain` joined by newlines."""
        return "\n".join(self.plain())

    def key_lines(self, limit: int = KEY_LINES) -> list[Line]:
        """The lines marked ``key=True``; if none is, the unmarked lines with a bold part (at most
        `limit`); if none has one, the first line."""
        marked = [item for item in self.lines if item.key]
        if marked:
            return marked
        chosen = [item for item in self.lines if item.key is None and item.has_bold][:limit]
        return chosen or self.lines[:1]

    def html(self) -> str:
        """The readout as HTML: a paragraph per line, a numbered list per run of items, tables."""
        pieces, items = [], []
        for block in [*self.blocks, None]:
            if isinstance(block, Line) and block.item:
                items.append(f"<li>{block.inner_html()}</li>")
                continue
            if items:
                pieces.append("<ol class='specdec-note'>" + "".join(items) + "</ol>")
                items = []
            if isinstance(block, Table):
                pieces.append(block.to_html())
            elif block is not None:
                pieces.append(f"<p class='specdec-note'>{block.inner_html()}</p>" if block.note
                              else f"<p>{block.inner_html()}</p>")
        return "".join(pieces)

    def key_html(self) -> str:
        """The key lines as HTML, inside a polite ARIA live region (announced when they change)."""
        inner = "".join(f"<div>{item.inner_html()}</div>" for item in self.key_lines())
        return f"<div role='status' aria-live='polite'>{inner}</div>"


# ---- the explorer ---------------------------------------------------------------------------------


class Explorer(widgets.VBox):
    """A figure with a text readout beside it, under rows of controls; subclass it for each explorer.

    A subclass sets `title`, builds its controls and picture and its own state (as attributes, set
    before calling ``super().__init__``, which draws the first view), and overrides `compute` and
    `describe`. Buttons are wired with `on_click`; a control whose change must do more than redraw
    with `on_change`.

    Parameters
    ----------
    controls : dict of str to ipywidgets.Widget
        The inputs, by a short name that tests use (``explorer.controls["gamma"]``).
    rows : list of list of Widget
        How to lay the controls out; each inner list is one row (it wraps when the output is narrow).
    picture : object with ``figure`` and ``png()``
        The figure object: the one matplotlib figure (never rebuilt), and its PNG.
    compact_rows : (list of rows, list of rows), optional
        The compact layout's side column: the rows above the key lines and those below. Default:
        the rows that hold a button above, the others below.
    observe : bool or iterable of str
        Which controls redraw the view when their value changes: all (True, default), none, or
        those named.

    Attributes
    ----------
    shown : dict
        What `compute` last returned, plus ``"readout"``: the `Readout` `describe` made of it.
    image, readout, key_readout : ipywidgets.Image, ipywidgets.HTML, ipywidgets.HTML
        The picture (its ``tooltip`` is its text alternative), the whole readout, the key lines.
    figure : matplotlib.figure.Figure
        ``picture.figure``.
    compact : bool
        Whether the explorer was built in presentation mode.

    Examples
    --------
    >>> from specdec.explore.figure_kit import new_figure, png_bytes
    >>> class Square:
    ...     def __init__(self):
    ...         self.figure = new_figure(2, 2)
    ...         self.axes = self.figure.add_subplot(xlabel="x", ylabel="x²")
    ...         (self.curve,) = self.axes.plot([0], [0])
    ...     def update(self, x):
    ...         self.curve.set_data([0, x], [0, x * x])
    ...     def png(self):
    ...         return png_bytes(self.figure)
    >>> class SquareExplorer(Explorer):
    ...     title = "Squares"
    ...     def __init__(self, x=2):
    ...         super().__init__({"x": widgets.IntSlider(value=x, min=0, max=9, description="x")},
    ...                          rows=[["x"]], picture=Square())
    ...     def compute(self):
    ...         x = self.value("x")
    ...         self.picture.update(x)
    ...         return {"x": x, "square": x * x}
    ...     def describe(self, shown):
    ...         return Readout([line("x = ", shown["x"]), line("x² = ", bold(shown["square"]))])
    >>> explorer = SquareExplorer()
    >>> explorer.controls["x"].value = 3
    >>> explorer.shown["square"], explorer.summary()
    (9, 'Squares\\nx = 3\\nx² = 9')
    >>> explorer.image.tooltip
    'Squares. x² = 9'
    """

    #: Shown above the controls; subclasses set it.
    title = "Explorer"

    def __init__(self, controls: dict, rows: list, picture, compact_rows: tuple | None = None,
                 observe=True, **kwargs):
        self.controls = controls
        self.picture = picture
        self.figure = picture.figure
        self.scale = figure_scale()
        self.compact = compact()
        self.shown: dict = {}
        self._batch_depth = 0
        rows = [[controls[item] if isinstance(item, str) else item for item in row] for row in rows]
        percent = round(100 * self.scale)
        for control in controls.values():
            _lay_out_control(control)
        self.image = _Picture(format="png", layout=widgets.Layout(flex="0 1 auto", min_width="0"))
        self.image.add_class(CSS["picture"])
        self.readout = widgets.HTML(layout=widgets.Layout(flex="1 1 16em", min_width="16em", max_width="40em",
                                                          padding="0 0 0 1em"))
        self.readout.add_class(CSS["readout"])
        self.readout.add_class(f"specdec-readout-{percent}")
        self.key_readout = widgets.HTML()
        self.key_readout.add_class(CSS["key_readout"])
        style = widgets.HTML(_STYLE_SHEET.format(track=MIN_TRACK_PX, chrome=COMPACT_CHROME_PX, percent=percent,
                                                 side=COMPACT_SIDE_EM + 1, stack=COMPACT_STACK_PX),
                             layout=widgets.Layout(display="none"))
        header = widgets.HTML(f"<b>{escape(self.title)}</b>")
        header.add_class(CSS["title"])
        body_layout = widgets.Layout(flex_flow="row wrap", align_items="flex-start", max_width="100%")
        if self.compact:
            if compact_rows is None:
                above = [row for row in rows if any(isinstance(control, widgets.Button) for control in row)]
                compact_rows = (above, [row for row in rows if row not in above])
            above, below = ([_control_row([controls[item] if isinstance(item, str) else item for item in row])
                             for row in part] for part in compact_rows)
            side = widgets.VBox([*above, self.key_readout, *below],
                                layout=widgets.Layout(flex=f"1 1 {COMPACT_SIDE_EM}em", min_width=f"{COMPACT_SIDE_EM}em",
                                                      padding="0 0 0 1em"))
            side.add_class(CSS["side"])
            self.readout.layout.flex = "1 1 100%"
            self.readout.layout.max_width = "none"
            body = widgets.HBox([self.image, side, self.readout, style], layout=body_layout)
            children = [header, body]
        else:
            self.key_readout.add_class(CSS["screen_reader_only"])  # announced, not shown twice
            body = widgets.HBox([self.image, self.readout, self.key_readout, style], layout=body_layout)
            children = [header, *(_control_row(row) for row in rows), body]
        body.add_class(CSS["body"])
        super().__init__(children, **kwargs)
        self.layout.max_width = "100%"
        self.add_class(CSS["explorer"])
        if self.compact:
            self.add_class(CSS["compact"])
        names = [] if observe is False else list(controls) if observe is True else list(observe)
        for name in names:
            if "value" in controls[name].trait_names():
                controls[name].observe(self.refresh, names="value")
        self.refresh()

    # ---- what a subclass overrides ----

    def compute(self) -> dict:
        """Read the controls, compute with the math modules, update the picture; return what is shown."""
        raise NotImplementedError

    def describe(self, shown: dict) -> Readout:
        """The readout for the numbers `compute` returned."""
        raise NotImplementedError

    # ---- helpers for subclasses ----

    def value(self, name: str):
        """The current value of control `name`."""
        return self.controls[name].value

    def on_click(self, name: str, method) -> None:
        """Call `method()` when button `name` is pressed, then redraw once."""
        self.controls[name].on_click(lambda _button: self._run(method))

    def on_change(self, name: str, method) -> None:
        """Call `method()` (instead of only redrawing) when control `name` changes, then redraw once."""
        control = self.controls[name]
        try:
            control.unobserve(self.refresh, names="value")
        except ValueError:  # it was not observed
            pass
        control.observe(lambda _change: self._run(method), names="value")

    def _run(self, method) -> None:
        with self.batch():
            method()

    @property
    def batching(self) -> bool:
        """Whether a `batch` is open: control changes are then drawn once, when it closes."""
        return self._batch_depth > 0

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
        readout = self.describe(shown)
        shown["readout"] = readout
        self.readout.value = readout.html()
        self.key_readout.value = readout.key_html()
        self.image.value = self.picture.png()
        self.image.tooltip = self.alt_text(readout)
        # The first render lays the figure out; later renders keep that layout (faster, and the axes
        # do not jump). None rather than "none": savefig draws twice while any layout engine is set.
        self.figure.set_layout_engine(None)
        self.shown = shown

    def alt_text(self, readout: Readout) -> str:
        """The picture's text alternative: the title and the readout's key lines."""
        return " ".join([f"{self.title}.", *(" ".join(item.plain().split()) for item in readout.key_lines())])

    def summary(self) -> str:
        """The title and the readout's words, one line per readout line: the plain-text view."""
        return "\n".join([self.title, *self.shown["readout"].plain()])

    def _repr_mimebundle_(self, **kwargs):
        """The live view, plus the static view: the current picture (``image/png``), `summary`
        (``text/plain``) and both as HTML (``text/html``: the picture with its text alternative, then
        the readout), which nbconvert's exports and JupyterLab opening an unrun notebook show."""
        data = super()._repr_mimebundle_(**kwargs) or {}
        png = base64.b64encode(self.image.value).decode("ascii")
        data["text/plain"] = self.summary()
        data["image/png"] = png
        data["text/html"] = (f"<div class='specdec-static'><p><b>{escape(self.title)}</b></p>"
                             f"<img src='data:image/png;base64,{png}' alt='{escape(self.image.tooltip)}' "
                             f"style='max-width: 100%'>{self.shown['readout'].html()}</div>")
        return data


class _Picture(widgets.Image):
    """An Image whose ``tooltip`` (the text alternative: the ``title`` of its ``<img>``) the page can show.

    ipywidgets 8.1's front end reads a widget's ``description`` when it sets the tooltip; Image has
    none, so its view fails and shows no picture at all. This one carries an empty description.
    """

    description = traitlets.Unicode("").tag(sync=True)


def _control_row(row) -> widgets.HBox:
    """One row of controls, wrapping onto more lines when the output is narrow."""
    box = widgets.HBox(list(row), layout=widgets.Layout(flex_flow="row wrap", max_width="100%"))
    box.add_class(CSS["controls"])
    return box


def _lay_out_control(control) -> None:
    """Let a slider with a long label carry it above the track (a class the style sheet reads)."""
    description = getattr(control, "description", "") or ""
    if "slider" in type(control).__name__.lower() and len(description) > LONG_LABEL_CHARS:
        control.add_class(CSS["label_above"])
