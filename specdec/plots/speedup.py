"""The tokens-per-step and speedup figure: P(N = k), E[N] against γ, and speedup against γ.

The figure is built once with every artist it will ever need (one bar per possible k up to the
largest γ), and `SpeedupFigure.update` only changes their data. The axes' limits follow the data
with a little headroom: the token axis spans the γ + 1 bars on screen, the E[N] and speedup axes
rise a step above their curves' largest value. The tops come from short lists of round numbers
(`nice_limit`), so a slider move seldom changes them; when one does, that axis is drawn again
(`specdec.plots.fast_redraw.FastRedraw`). The speedup axis is linear, so the optimum stands out.
"""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, MaxNLocator

from .. import palette
from .canvas import COMPACT_FIGURE_INCHES, figure_scale, new_figure, panel_axes, role_patch, role_style, styled
from .fast_redraw import FastRedraw

#: Tops the E[N] axis and the speedup axis may take.
LIMITS = (1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25)

#: Room above the largest value: a fraction of it.
HEADROOM = 0.15

#: The fewest token counts k the left panel makes room for, so that a short step's bars stay bars.
MIN_TOKEN_SLOTS = 4


def nice_limit(value: float) -> float:
    """The smallest of `LIMITS` at least `HEADROOM` above `value`.

    >>> nice_limit(1.0), nice_limit(3.36), nice_limit(17.5)
    (1.25, 4, 25)
    """
    for limit in LIMITS:
        if value * (1 + HEADROOM) <= limit:
            return limit
    return LIMITS[-1]


def four_characters(value: float, _position=None) -> str:
    """A tick label of four characters whatever the limits ("0.25", "4.00", "12.5"), so that tick
    labels never grow into the axis label, whose place is fixed after the first render.

    >>> [four_characters(v) for v in (0.25, 4, 12.5, 20)]
    ['0.25', '4.00', '12.5', '20.0']
    """
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


class SpeedupFigure:
    """Three panels over draft lengths 0 … `max_gamma`, drawn once and then updated in place.

    Left: P(N = k) as bars, a rejection-ended step (k ≤ γ) apart from the all-accepted step with
    its bonus token (k = γ+1), and the mean E[N] as a vertical line. Middle: E[N] against γ with the
    ceiling γ+1. Right: speedup against γ with the break-even line, the best γ (only when some γ
    beats plain decoding; otherwise a note says none does) and the chosen γ.

    Examples
    --------
    >>> picture = SpeedupFigure(max_gamma=3)
    >>> picture.update(token_counts=[0.5, 0.5], expected=[1, 1.5, 1.75, 1.875],
    ...                speedups=[1, 1.25, 1.2, 1.1], gamma=1, best_gamma=1)
    >>> list(picture.best_marker.get_xdata()), [float(limit) for limit in picture.speed_axes.get_ylim()]
    ([1], [0.0, 1.5])
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
            self.figure = new_figure(10.0, 4.8, compact_size=COMPACT_FIGURE_INCHES)
            counts_axes, tokens_axes, speed_axes = panel_axes(self.figure, 3)
            self.counts_axes, self.tokens_axes, self.speed_axes = counts_axes, tokens_axes, speed_axes

            self.bars = counts_axes.bar(gammas + 1, np.zeros(max_gamma + 1), width=0.8,
                                        edgecolor=palette.HIGHLIGHT, linewidth=0.6)
            self.mean_line = counts_axes.axvline(1.0, color=palette.HIGHLIGHT, linestyle="--", linewidth=1.5)
            self.mean_line.set_gid("mean")
            counts_axes.set(title="Tokens from one step", xlabel="tokens from one step, k",
                            ylabel="P(N = k)", ylim=(0, 1.05))
            counts_axes.xaxis.set_major_locator(MaxNLocator(integer=True))

            self.ceiling = tokens_axes.plot(gammas, gammas + 1, color=palette.NEUTRAL, linestyle=":",
                                            linewidth=1.5, label="γ + 1: every draft accepted")[0]
            (self.expected_line,) = tokens_axes.plot(gammas, np.ones(max_gamma + 1), color=palette.HIGHLIGHT,
                                                     marker=".", label="E[N] at this α")
            (self.tokens_marker,) = tokens_axes.plot([0], [1], **chosen_style)
            tokens_axes.set(title="Expected tokens E[N]", xlabel="draft length γ",
                            ylabel="E[N], tokens per step", xlim=gamma_range)

            self.break_even = speed_axes.axhline(1.0, color=palette.NEUTRAL, linestyle="--", linewidth=1.5,
                                                 label="1× (plain decoding)")
            (self.speedup_line,) = speed_axes.plot(gammas, np.ones(max_gamma + 1), color=palette.HIGHLIGHT,
                                                   marker=".", label="speedup")
            (self.speed_marker,) = speed_axes.plot([0], [1], **chosen_style)
            (self.best_marker,) = speed_axes.plot([1], [1], linestyle="none", marker="*", markersize=15,
                                                  color=palette.HIGHLIGHT, label="best γ")
            self.best_marker.set_gid("best-gamma")
            self.best_label = speed_axes.annotate("", xy=(1, 1), xytext=(0, 10), textcoords="offset points",
                                                  ha="center", va="bottom")
            self.speed_note = speed_axes.text(0.5, 0.93, "", transform=speed_axes.transAxes, ha="center",
                                              va="top", bbox={"facecolor": "white", "edgecolor": palette.NEUTRAL,
                                                              "alpha": 0.9})
            speed_axes.set(title="Speedup over plain decoding", xlabel="draft length γ",
                           ylabel="speedup (×)", xlim=gamma_range)
            for axes in (tokens_axes, speed_axes):
                axes.yaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]))
                axes.yaxis.set_major_formatter(FuncFormatter(four_characters))
            # One legend under the three panels: inside, the curves (whose limits follow the data)
            # would run into it.
            self.figure.legend(handles=[
                role_patch("resampled", "k ≤ γ, a rejection", edgecolor=palette.HIGHLIGHT),
                role_patch("bonus", "k = γ+1, all accepted", edgecolor=palette.HIGHLIGHT),
                Line2D([], [], color=palette.HIGHLIGHT, linestyle="--", label="mean E[N]"),
                self.ceiling, self.expected_line, self.tokens_marker,
                self.break_even, self.speedup_line, self.best_marker,
            ], loc="outside lower center", ncols=2 if figure_scale() > 1 else 3)
        self._limits = None
        self.fast = FastRedraw(
            self.figure,
            changing=[*self.bars, self.mean_line, self.ceiling, self.expected_line, self.tokens_marker,
                      self.break_even, self.speedup_line, self.speed_marker, self.best_marker, self.best_label,
                      self.speed_note],
            occasional=[counts_axes.xaxis, tokens_axes.yaxis, speed_axes.yaxis],
        )

    def update(self, token_counts, expected, speedups, gamma: int, best_gamma: int) -> None:
        """Show new numbers: P(N = k) for k = 1 … γ+1, and E[N] and speedup for γ = 0 … max_gamma.

        `best_gamma` is marked only if its speedup is above 1; otherwise a note says that no draft
        length beats plain decoding.
        """
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
        best = float(speedups[best_gamma])
        helps = best > 1
        self.best_marker.set_data([best_gamma], [best])
        self.best_label.xy = (best_gamma, best)
        self.best_label.set_text(f"best γ = {best_gamma}")
        # Above the star, in the headroom over the curve's peak; ended at the star near the right edge.
        self.best_label.set_horizontalalignment("right" if best_gamma > 0.7 * self.max_gamma else "center")
        for artist in (self.best_marker, self.best_label):
            artist.set_visible(helps)
        self.speed_note.set_text("" if helps else "no γ beats plain decoding")
        self.speed_note.set_visible(not helps)

        limits = (max(gamma + 1, MIN_TOKEN_SLOTS), nice_limit(float(expected.max())),
                  nice_limit(float(speedups.max())))
        if limits != self._limits:
            self.counts_axes.set_xlim(0.4, limits[0] + 0.6)
            self.tokens_axes.set_ylim(0, limits[1])
            self.speed_axes.set_ylim(0, limits[2])
            self._limits = limits
            self.fast.invalidate()

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only the data and, when limits change, the axes."""
        with styled():
            return self.fast.png()
