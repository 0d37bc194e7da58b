"""The tokens-per-step and speedup figure: P(N = k), E[N] against γ, and speedup against γ.

The figure is built once with every artist it will ever need (one bar per possible k up to the
largest γ), and `SpeedupFigure.update` only changes their data. The axes limits never change:
they cover every value the sliders can reach, so ticks, labels and legends are drawn once
(`specdec.plots.fast_redraw.FastRedraw`) and a slider move redraws only the data. The speedup axis is
logarithmic because speedups multiply: it spans 0.05× (α = 0, γ = 20, c = 1) to about 17×
(α = 1, γ = 20, c = 100) and keeps the usual 1×–4× readable in between.
"""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, NullLocator

from .. import palette
from .canvas import new_figure, role_patch, role_style, styled
from .fast_redraw import FastRedraw

#: Ticks of the logarithmic speedup axis.
SPEEDUP_TICKS = (0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16)


class SpeedupFigure:
    """Three panels over draft lengths 0 … `max_gamma`, drawn once and then updated in place.

    Left: P(N = k) as bars, a rejection-ended step (k ≤ γ) apart from the all-accepted step with
    its bonus token (k = γ+1), and the mean E[N] as a vertical line. Middle: E[N] against γ with the
    ceiling γ+1. Right: speedup against γ with the break-even line, the best γ and the chosen γ.

    Examples
    --------
    >>> picture = SpeedupFigure(max_gamma=3)
    >>> picture.update(token_counts=[0.5, 0.5], expected=[1, 1.5, 1.75, 1.875],
    ...                speedups=[1, 1.25, 1.2, 1.1], gamma=1, best_gamma=1)
    >>> list(picture.best_marker.get_xdata())
    [1]
    >>> picture.png()[:4]
    b'\\x89PNG'
    """

    def __init__(self, max_gamma: int = 20):
        self.max_gamma = max_gamma
        gammas = np.arange(max_gamma + 1)
        gamma_range = (-0.5, max_gamma + 0.5)
        chosen_style = dict(linestyle="none", marker="o", markersize=11, markerfacecolor="none",
                            markeredgecolor=palette.HIGHLIGHT, markeredgewidth=2, label="chosen γ")
        with styled():
            self.figure = new_figure(10.0, 3.7)
            counts_axes, tokens_axes, speed_axes = self.figure.subplots(1, 3)
            self.counts_axes, self.tokens_axes, self.speed_axes = counts_axes, tokens_axes, speed_axes

            self.bars = counts_axes.bar(gammas + 1, np.zeros(max_gamma + 1), width=0.8,
                                        edgecolor=palette.HIGHLIGHT, linewidth=0.6)
            self.mean_line = counts_axes.axvline(1.0, color=palette.HIGHLIGHT, linestyle="--", linewidth=1.5)
            self.mean_line.set_gid("mean")
            counts_axes.set(title="How many tokens one step yields", xlabel="tokens from one step, k",
                            ylabel="P(N = k)", ylim=(0, 1.05), xlim=(0.4, max_gamma + 1.6))
            counts_axes.legend(handles=[
                role_patch("resampled", "k ≤ γ, a rejection", edgecolor=palette.HIGHLIGHT),
                role_patch("bonus", "k = γ+1, all accepted", edgecolor=palette.HIGHLIGHT),
                Line2D([], [], color=palette.HIGHLIGHT, linestyle="--", label="mean E[N]"),
            ], loc="upper right", fontsize=9)

            tokens_axes.plot(gammas, gammas + 1, color=palette.NEUTRAL, linestyle=":", linewidth=1.5,
                             label="γ + 1: every draft accepted")
            (self.expected_line,) = tokens_axes.plot(gammas, np.ones(max_gamma + 1), color=palette.HIGHLIGHT,
                                                     marker=".", label="E[N] at this α")
            (self.tokens_marker,) = tokens_axes.plot([0], [1], **chosen_style)
            tokens_axes.set(title="Expected tokens per step", xlabel="draft length γ",
                            ylabel="E[N], tokens per step", xlim=gamma_range, ylim=(0, max_gamma + 2.5))
            tokens_axes.legend(loc="upper left")

            speed_axes.axhline(1.0, color=palette.NEUTRAL, linestyle=":", linewidth=1.5,
                               label="1× (plain decoding)")
            (self.speedup_line,) = speed_axes.plot(gammas, np.ones(max_gamma + 1), color=palette.HIGHLIGHT,
                                                   marker=".", label="speedup")
            (self.speed_marker,) = speed_axes.plot([0], [1], **chosen_style)
            (self.best_marker,) = speed_axes.plot([1], [1], linestyle="none", marker="*", markersize=15,
                                                  color=palette.HIGHLIGHT, label="best γ")
            self.best_marker.set_gid("best-gamma")
            self.best_label = speed_axes.annotate("", xy=(1, 1), xytext=(0, 9), textcoords="offset points",
                                                  ha="center", va="bottom")
            speed_axes.set_yscale("log")
            speed_axes.yaxis.set_major_locator(FixedLocator(SPEEDUP_TICKS))
            speed_axes.yaxis.set_minor_locator(NullLocator())
            speed_axes.set_yticklabels([f"{tick:g}×" for tick in SPEEDUP_TICKS])
            speed_axes.set(title="Speedup over plain decoding", xlabel="draft length γ",
                           ylabel="speedup (×, log scale)", xlim=gamma_range, ylim=(0.04, 100))
            speed_axes.legend(loc="upper left", fontsize=9)
        self.fast = FastRedraw(self.figure, [
            *self.bars, self.mean_line, self.expected_line, self.tokens_marker,
            self.speedup_line, self.speed_marker, self.best_marker, self.best_label,
        ])

    def update(self, token_counts, expected, speedups, gamma: int, best_gamma: int) -> None:
        """Show new numbers: P(N = k) for k = 1 … γ+1, and E[N] and speedup for γ = 0 … max_gamma."""
        token_counts = np.asarray(token_counts, dtype=float)
        expected = np.asarray(expected, dtype=float)
        speedups = np.asarray(speedups, dtype=float)
        for k, bar in enumerate(self.bars, start=1):
            visible = k <= gamma + 1
            bar.set_visible(visible)
            bar.set_height(token_counts[k - 1] if visible else 0.0)
            bar.set(**role_style("bonus" if k == gamma + 1 else "resampled"))
        mean = float(np.dot(np.arange(1, gamma + 2), token_counts))
        self.mean_line.set_xdata([mean, mean])

        self.expected_line.set_ydata(expected)
        self.tokens_marker.set_data([gamma], [expected[gamma]])

        self.speedup_line.set_ydata(speedups)
        self.speed_marker.set_data([gamma], [speedups[gamma]])
        self.best_marker.set_data([best_gamma], [speedups[best_gamma]])
        self.best_label.xy = (best_gamma, speedups[best_gamma])
        self.best_label.set_text(f"best γ = {best_gamma}")
        # Above the star, except near the right edge (where it would leave the figure: end it at
        # the star) and below 1× (where the curve falls away to the right: put it beside the star).
        if speedups[best_gamma] < 1:
            self.best_label.set(horizontalalignment="left", verticalalignment="center", position=(10, 0))
        else:
            right_edge = best_gamma > 0.7 * self.max_gamma
            self.best_label.set(horizontalalignment="right" if right_edge else "center",
                                verticalalignment="bottom", position=(0, 9))

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only the data (the axes never change)."""
        with styled():
            return self.fast.png()
