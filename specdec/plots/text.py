"""The real-text figure: α for each draft order, and measured against predicted gains of one run.

Left: the acceptance rate α of draft orders 1 … 4 against the chosen target, averaged over contexts
of the corpus, with the chosen draft and the α measured in the run marked. Middle: characters per
target call, as measured from the run's call counts next to `expected_tokens` at the α averaged
over the run's contexts, with the mean and range over several seeds (one short run is noisy) and
the ceiling γ + 1. Right: the speedup at cost ratio c, measured next to `speedup` at that α. The
two quantities have their own axes, each fixed whatever γ is.

The figure is built once. On every render (`RealTextFigure.png`, see `specdec.plots.fast_redraw`) only
the bars, their values, the markers, the guides and the titles of the right panels are drawn again;
the left title is redrawn when the target order changes; axes, labels and legends are drawn once.
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Patch

from .. import palette
from .canvas import COMPACT_FIGURE_INCHES, figure_scale, new_figure, panel_axes, role_patch, role_style, styled
from .fast_redraw import FastRedraw

#: Draft orders shown on the left panel.
DRAFT_ORDERS = (1, 2, 3, 4)

#: Hatching of the theory bars (grey, and unlike every role's hatch: a prediction, not a role).
THEORY_HATCH = "oo"

#: The fixed top of the two right panels: above γ + 1 = 11, the most one step can yield at the
#: largest γ, so neither axis ever rescales as γ moves (and a speedup cannot pass γ + 1 either).
GAIN_TOP = 12.0

#: How many seeds the mean and range beside the single run are taken over.
SEED_COUNT = 6

#: The bars of the two right panels: this run, and the theory at the run's averaged α.
_BAR_OFFSETS = (-0.2, 0.2)


class RealTextFigure:
    """Three panels, drawn once and updated in place.

    Left: α of each draft order against the target. Middle: characters per target call, this run
    against ``expected_tokens`` at the run's averaged α, with the mean and range over several seeds
    and the ceiling γ + 1. Right: the speedup at cost ratio c, this run against ``speedup`` at that
    α, with the 1× line. Both right-hand axes are fixed (0 … `GAIN_TOP`), so a bar's height can be
    compared as γ moves.

    Examples
    --------
    >>> picture = RealTextFigure()
    >>> picture.update(alphas=[0.2, 0.35, 0.56, 0.8], draft_order=3, target_order=5, measured_alpha=0.58,
    ...                measured=(2.2, 1.8), predicted=(2.17, 1.81), gamma=4, c=20, spread=(1.7, 2.2, 2.7))
    >>> [round(bar.get_height(), 2) for bar in picture.alpha_bars]
    [0.2, 0.35, 0.56, 0.8]
    >>> picture.tokens_axes.get_ylim() == picture.speed_axes.get_ylim() == (0.0, GAIN_TOP)
    True
    """

    def __init__(self):
        compact = figure_scale() > 1  # presentation mode: the panels in two rows (`panel_axes`)
        with styled():
            self.figure = new_figure(9.6, 3.9, compact_size=COMPACT_FIGURE_INCHES)
            alpha_axes, tokens_axes, speed_axes = panel_axes(self.figure, 3, width_ratios=(1.3, 1, 1))
        self.alpha_axes, self.tokens_axes, self.speed_axes = alpha_axes, tokens_axes, speed_axes

        with styled():
            self.alpha_bars = alpha_axes.bar(DRAFT_ORDERS, np.zeros(len(DRAFT_ORDERS)), width=0.7,
                                             **role_style("accepted"), edgecolor=palette.HIGHLIGHT, linewidth=0.6)
            (self.measured_marker,) = alpha_axes.plot([2.5, 3.5], [0, 0], color=palette.HIGHLIGHT, linewidth=3,
                                                      linestyle=(0, (1.5, 0.8)), label="measured in this run")
            self.alpha_labels = [alpha_axes.text(order, 0, "", ha="center", va="bottom") for order in DRAFT_ORDERS]
            alpha_axes.set(xticks=DRAFT_ORDERS, xlabel="draft order (1 = unigram, 2 = bigram)",
                           ylabel="acceptance rate α", ylim=(0, 1.12), xlim=(0.4, 4.6))
            self.alpha_title = alpha_axes.set_title("")
            # Under the panel: inside, the bars and their labels (up to α = 1) would run into it.
            alpha_handles = [
                role_patch("accepted", "α over corpus contexts", edgecolor=palette.HIGHLIGHT),
                Patch(facecolor="none", edgecolor=palette.HIGHLIGHT, linewidth=2.5, label="chosen draft"),
                self.measured_marker,
            ]
            if not compact:  # compact: one legend for the three panels, below
                self.figure.legend(handles=alpha_handles, loc="outside lower left")

            self.tokens_bars, self.tokens_values = self._gain_bars(tokens_axes)
            self.ceiling = tokens_axes.axhline(5.0, color=palette.HIGHLIGHT, linestyle="--", linewidth=1.2,
                                               label="γ + 1: every draft accepted")
            (self.spread_marker,) = tokens_axes.plot([0.0], [0.0], color=palette.HIGHLIGHT, marker="D",
                                                     markersize=5, linestyle="none", label=f"{SEED_COUNT} seeds: mean and range")
            (self.spread_range,) = tokens_axes.plot([0.0, 0.0], [0.0, 0.0], color=palette.HIGHLIGHT,
                                                    linewidth=2, solid_capstyle="butt", marker="_",
                                                    markersize=12, markeredgewidth=2)
            tokens_axes.set(ylabel="characters per target call", xticks=[-0.2, 0.2, 0.7],
                            xticklabels=["run", "theory", "seeds"], xlim=(-0.55, 0.95), ylim=(0, GAIN_TOP))
            self.tokens_title = tokens_axes.set_title("")
            self.speed_bars, self.speed_values = self._gain_bars(speed_axes)
            self.break_even = speed_axes.axhline(1.0, color=palette.NEUTRAL, linestyle=":", linewidth=1.5,
                                                 label="1×: plain decoding")
            speed_axes.set(ylabel="speedup (×)", xticks=list(_BAR_OFFSETS), xticklabels=["run", "theory"],
                           xlim=(-0.55, 0.55), ylim=(0, GAIN_TOP))
            self.speed_title = speed_axes.set_title("")
            # One legend for both right panels, under them: inside, the moving γ + 1 line and the
            # bars would cross it.
            self.figure.legend(
                handles=[*(alpha_handles if compact else []), *self.tokens_bars, self.spread_marker, self.ceiling,
                         self.break_even],
                labels=[*([handle.get_label() for handle in alpha_handles] if compact else []), "this run",
                        "theory at the averaged α", f"{SEED_COUNT} seeds: mean and range",
                        "γ + 1: every draft accepted", "1×: plain decoding"],
                loc="outside lower center" if compact else "outside lower right", ncols=2)
        self.fast = FastRedraw(
            self.figure,
            changing=[*self.alpha_bars, self.measured_marker, *self.alpha_labels, *self.tokens_bars,
                      *self.tokens_values, self.ceiling, self.spread_range, self.spread_marker,
                      *self.speed_bars, *self.speed_values, self.break_even, self.tokens_title,
                      self.speed_title],
            # Redrawn only when the target order (the left title) changes.
            occasional=[self.alpha_title],
        )

    @staticmethod
    def _gain_bars(axes):
        """A bar for this run (grey) and one for the theory (hatched), each with its value above it."""
        bars = [
            axes.bar([_BAR_OFFSETS[0]], [0.0], width=0.36, color=palette.NEUTRAL, edgecolor=palette.HIGHLIGHT,
                     linewidth=0.6)[0],
            axes.bar([_BAR_OFFSETS[1]], [0.0], width=0.36, color="white", hatch=THEORY_HATCH,
                     edgecolor=palette.NEUTRAL, linewidth=0.6)[0],
        ]
        values = [axes.text(offset, 0.0, "", ha="center", va="bottom") for offset in _BAR_OFFSETS]
        return bars, values

    def update(self, alphas, draft_order: int, target_order: int, measured_alpha: float,
               measured, predicted, gamma: int, c: float, spread=None) -> None:
        """Show α per draft order, and (characters per target call, speedup at c) measured and predicted.

        `spread` is (lowest, mean, highest) characters per target call over several seeds, or None
        to show none.
        """
        for order, bar, label, alpha in zip(DRAFT_ORDERS, self.alpha_bars, self.alpha_labels, alphas):
            chosen = order == draft_order
            bar.set_height(alpha)
            bar.set_linewidth(2.5 if chosen else 0.6)
            bar.set_alpha(1.0 if chosen else 0.55)
            label.set_position((order, max(alpha, measured_alpha if chosen else 0.0) + 0.02))
            label.set_text(f"{alpha:.2f}")
        self.measured_marker.set_data([draft_order - 0.5, draft_order + 0.5], [measured_alpha] * 2)
        title = f"α of each draft, {target_order}-gram target"
        if self.alpha_title.get_text() != title:  # a still part: redraw everything, rarely
            self.alpha_title.set_text(title)
            self.fast.invalidate()

        for bars, values, heights, unit in ((self.tokens_bars, self.tokens_values, (measured[0], predicted[0]), ""),
                                            (self.speed_bars, self.speed_values, (measured[1], predicted[1]), "×")):
            for bar, value, height in zip(bars, values, heights):
                shown = float(height) if np.isfinite(height) else 0.0
                bar.set_height(min(shown, GAIN_TOP))
                value.set_position((bar.get_x() + bar.get_width() / 2, min(shown, GAIN_TOP - 0.9) + 0.1))
                value.set_text(f"{height:.2f}{unit}" if np.isfinite(height) else "—")
        self.ceiling.set_ydata([gamma + 1, gamma + 1])
        low, mean, high = spread if spread is not None else (np.nan, np.nan, np.nan)
        self.spread_marker.set_data([0.7], [mean])
        self.spread_range.set_data([0.7, 0.7], [low, high])
        self.tokens_title.set_text(f"characters per call, γ = {gamma}")
        self.speed_title.set_text(f"speedup at c = {c:g}")

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only the bars, markers, labels and titles when it can."""
        with styled():
            return self.fast.png()
