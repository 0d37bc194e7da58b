"""The frame every explorer shares: controls, a figure redrawn in place, and a text readout."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable

import ipywidgets as widgets
from matplotlib.figure import Figure

from ..plots import png_bytes


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
    figure : matplotlib.figure.Figure
        The one figure the explorer owns. `redraw` updates its artists; it is never rebuilt.
    redraw : callable returning dict
        Called after any change; it updates `figure` and returns what the view shows: a dict with
        the key ``"readout"`` (HTML for the text panel) and any numbers tests should compare.
    render : callable returning bytes, optional
        Turns `figure` into PNG bytes after `redraw`; by default `specdec.plots.png_bytes`. An
        explorer passes `specdec.plots.fast_redraw.FastRedraw.png` to redraw only the artists that change.

    Attributes
    ----------
    shown : dict
        What `redraw` last returned: the numbers and text on screen right now.
    image, readout : ipywidgets.Image, ipywidgets.HTML
        The picture and the text beside it.
    """

    def __init__(self, title: str, controls: dict, control_rows: list, figure: Figure,
                 redraw: Callable[[], dict], render: Callable[[], bytes] | None = None, **kwargs):
        self.controls = controls
        self.figure = figure
        self._redraw = redraw
        self._render = render if render is not None else lambda: png_bytes(figure)
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
        self.image.value = self._render()
        # The first render lays the figure out (constrained layout); later renders keep that layout,
        # which halves the cost of each update and stops the axes from jumping as values change.
        # None rather than "none": savefig draws a figure twice while it has any layout engine.
        self.figure.set_layout_engine(None)
        self.shown = shown

    def observe_controls(self, *names: str) -> None:
        """Redraw whenever one of the named controls (all, if none named) changes value."""
        for name in names or self.controls:
            self.controls[name].observe(self.refresh, names="value")
