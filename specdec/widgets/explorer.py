"""The frame every explorer shares: controls, a figure redrawn in place, and a text readout.

How to write an explorer with it is in ``specdec/widgets/README.md``.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable

import ipywidgets as widgets

#: The style of every control: the description is shown in full, never cut to a fixed width.
LABEL_STYLE = {"description_width": "initial"}


class Explorer(widgets.VBox):
    """A figure with a text readout beside it, under a row (or several) of controls.

    Parameters
    ----------
    title : str
        Shown above the controls.
    controls : dict of str to ipywidgets.Widget
        The explorer's inputs, by a short name that tests use (``explorer.controls["gamma"]``).
    control_rows : list of list of Widget
        How to lay the controls out; each inner list is one row.
    picture : figure object from `specdec.plots`
        It has ``figure`` (the one matplotlib figure the explorer owns, never rebuilt) and ``png()``
        (the figure as PNG bytes, redrawing only what changed: `specdec.plots.fast_redraw`).
    redraw : callable returning dict
        Called after any change; it reads the controls, computes with the math modules, calls the
        picture's ``update`` and returns what the view shows: a dict with the key ``"readout"``
        (HTML for the text panel) and any numbers tests should compare.

    Attributes
    ----------
    shown : dict
        What `redraw` last returned: the numbers and text on screen right now.
    image, readout : ipywidgets.Image, ipywidgets.HTML
        The picture and the text beside it.
    figure : matplotlib.figure.Figure
        ``picture.figure``.
    """

    def __init__(self, title: str, controls: dict, control_rows: list, picture,
                 redraw: Callable[[], dict], **kwargs):
        self.controls = controls
        self.picture = picture
        self.figure = picture.figure
        self._redraw = redraw
        self.image = widgets.Image(format="png", layout=widgets.Layout(width="auto", flex="0 1 auto"))
        self.readout = widgets.HTML(layout=widgets.Layout(min_width="16em", max_width="24em", padding="0 0 0 1em"))
        self.shown: dict = {}
        self._batch_depth = 0
        header = widgets.HTML(f"<b>{title}</b>")
        rows = [widgets.HBox(list(row), layout=widgets.Layout(flex_flow="row wrap")) for row in control_rows]
        body = widgets.HBox([self.image, self.readout], layout=widgets.Layout(align_items="flex-start"))
        super().__init__([header, *rows, body], **kwargs)
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
