"""The real-text figure: α for each draft order, and measured against predicted gains of one run.

Left: the acceptance rate α of draft orders 1 … 4 against the chosen target, averaged over contexts
of the corpus, with the chosen draft and the α measured in the run marked. Right: two pairs of
bars, characters per target call and speedup at cost ratio c, each as measured from the run's call
counts next to the prediction of `specdec.theory` at the run's average α.

The figure is built once. On every render (`RealTextFigure.png`, see `specdec.plots.fast_redraw`) only
the bars, the measured line, the α labels, the two horizontal guides and the right-hand title are
drawn again; the left title and the right y axis are redrawn when the target order or the y limits
change; frames, labels and legends are drawn once. The numbers of the right panel are printed in
the explorer's readout.
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Patch

from .. import palette
from .canvas import new_figure, role_patch, role_style, styled
from .fast_redraw import FastRedraw

#: Draft orders shown on the left panel.
DRAFT_ORDERS = (1, 2, 3, 4)

#: Hatching of the theory bars (grey, and unlike every role's hatch: a prediction, not a role).
THEORY_HATCH = "oo"

_QUANTITIES = ("characters per\ntarget call", "speedup\nat cost ratio c")

#: Tops of the right panel's y axis, so that the line at γ + 1 (the most one step can yield) stays
#: below the legend; the axis, a still part, then changes only when γ crosses 2 or 5.
GAIN_TOPS = (6.0, 10.0, 18.0)


class RealTextFigure:
    """Two panels, drawn once and updated in place.

    Examples
    --------
    >>> picture = RealTextFigure()
    >>> picture.update(alphas=[0.2, 0.35, 0.56, 0.8], draft_order=3, target_order=5, measured_alpha=0.58,
    ...                measured=(2.2, 1.8), predicted=(2.17, 1.81), gamma=4, c=20)
    >>> [round(bar.get_height(), 2) for bar in picture.alpha_bars]
    [0.2, 0.35, 0.56, 0.8]
    """

    def __init__(self):
        with styled():
            self.figure = new_figure(9.0, 3.4)
            alpha_axes, gain_axes = self.figure.subplots(1, 2, width_ratios=(1, 1))
        self.alpha_axes, self.gain_axes = alpha_axes, gain_axes

        with styled():
            self.alpha_bars = alpha_axes.bar(DRAFT_ORDERS, np.zeros(len(DRAFT_ORDERS)), width=0.7,
                                             **role_style("accepted"), edgecolor=palette.HIGHLIGHT, linewidth=0.6)
            (self.measured_marker,) = alpha_axes.plot([2.5, 3.5], [0, 0], color=palette.HIGHLIGHT, linewidth=3,
                                                      linestyle=(0, (1.5, 0.8)), label="measured in this run")
            self.alpha_labels = [alpha_axes.text(order, 0, "", ha="center", va="bottom") for order in DRAFT_ORDERS]
            alpha_axes.set(xticks=DRAFT_ORDERS, xlabel="draft order (1 = unigram, 2 = bigram)",
                           ylabel="acceptance rate α", ylim=(0, 1.12), xlim=(0.4, 4.6))
            self.alpha_title = alpha_axes.set_title("")
            alpha_axes.legend(handles=[
                role_patch("accepted", "α over corpus contexts", edgecolor=palette.HIGHLIGHT),
                Patch(facecolor="none", edgecolor=palette.HIGHLIGHT, linewidth=2.5, label="chosen draft"),
                self.measured_marker,
            ], loc="upper left", fontsize=9)

            positions = np.arange(len(_QUANTITIES))
            self.measured_bars = gain_axes.bar(positions - 0.2, np.zeros(2), width=0.38, color=palette.NEUTRAL,
                                               edgecolor=palette.HIGHLIGHT, linewidth=0.6,
                                               label="measured from call counts")
            self.predicted_bars = gain_axes.bar(positions + 0.2, np.zeros(2), width=0.38, color="white",
                                                hatch=THEORY_HATCH, edgecolor=palette.NEUTRAL, linewidth=0.6,
                                                label="theory at the run's α")
            # Drawn with the bars it crosses, so that it stays on top of them.
            self.break_even = gain_axes.axhline(1.0, color=palette.NEUTRAL, linestyle=":", linewidth=1.5,
                                                label="1×: plain decoding")
            self.ceiling = gain_axes.axhline(5.0, color=palette.HIGHLIGHT, linestyle="--", linewidth=1.2,
                                             label="γ + 1: every draft accepted")
            gain_axes.set(xticks=positions, ylabel="characters per call, or speedup (×)", xlim=(-0.6, 1.6))
            self.gain_axes.set_xticklabels(_QUANTITIES)
            self.gain_title = gain_axes.set_title("")
            gain_axes.legend(loc="upper right", fontsize=9)
        self.fast = FastRedraw(
            self.figure,
            changing=[*self.alpha_bars, self.measured_marker, *self.alpha_labels, *self.measured_bars,
                      *self.predicted_bars, self.break_even, self.ceiling, self.gain_title],
            # Redrawn only when the target order (the left title) or the right y axis changes.
            occasional=[self.alpha_title, gain_axes.yaxis],
        )

    def update(self, alphas, draft_order: int, target_order: int, measured_alpha: float,
               measured, predicted, gamma: int, c: float) -> None:
        """Show α per draft order, and (tokens per target call, speedup at c) measured and predicted."""
        for order, bar, label, alpha in zip(DRAFT_ORDERS, self.alpha_bars, self.alpha_labels, alphas):
            chosen = order == draft_order
            bar.set_height(alpha)
            bar.set_linewidth(2.5 if chosen else 0.6)
            bar.set_alpha(1.0 if chosen else 0.55)
            label.set_position((order, max(alpha, measured_alpha if chosen else 0.0) + 0.02))
            label.set_text(f"{alpha:.2f}")
        self.measured_marker.set_data([draft_order - 0.5, draft_order + 0.5], [measured_alpha] * 2)
        title = f"α of each draft against the {target_order}-gram target"
        if self.alpha_title.get_text() != title:  # a still part: redraw everything, rarely
            self.alpha_title.set_text(title)
            self.fast.invalidate()

        values = (*measured, *predicted)
        for bar, value in zip((*self.measured_bars, *self.predicted_bars), values):
            bar.set_height(value)
        top = next((top for top in GAIN_TOPS if top >= (gamma + 1) / 0.62), GAIN_TOPS[-1])
        if self.gain_axes.get_ylim()[1] != top:
            self.gain_axes.set_ylim(0, top)
            self.fast.invalidate()
        self.ceiling.set_ydata([gamma + 1, gamma + 1])
        self.gain_title.set_text(f"γ = {gamma}, c = {c:g}: measured against theory")

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only the bars, markers, labels and titles when it can."""
        with styled():
            return self.fast.png()
