"""Two static figures of the speedup model: speedup against γ for several α, and the best γ against α.

`speedup_against_draft_length` draws speedup(α, γ, c) against γ = 1 … max_gamma, one curve per α,
each with its peak starred. `best_draft_length_against_alpha` draws the best γ against α for
several cost ratios c, the picture of Leviathan et al. (2023), Figure 3, in this series' c (their
cost coefficient is 1/c). Both only draw: the numbers come from `specdec.theory`.

Curves differ by line style and marker as well as colour, so colour is never the only cue.

>>> figure = speedup_against_draft_length([0.5, 0.9], c=20, max_gamma=15)
>>> [line.get_label() for line in figure.axes[0].get_lines() if not line.get_label().startswith("_")][:2]
['α = 0.5 (best γ = 3)', 'α = 0.9 (best γ = 13)']
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import palette
from ..theory import best_draft_lengths, speedup_table
from .canvas import new_figure, styled

#: One look per curve: (colour, line style, marker), reused in order.
CURVE_STYLES = (
    (palette.TARGET, "-", "o"),
    (palette.DRAFT, "--", "s"),
    (palette.ACCEPTED, "-.", "^"),
    (palette.RESAMPLED, ":", "D"),
    (palette.BONUS, (0, (5, 1, 1, 1)), "v"),
    (palette.HIGHLIGHT, (0, (1, 1)), "P"),
)


def speedup_against_draft_length(alphas, c, max_gamma=15) -> Figure:
    """speedup(α, γ, c) against γ = 1 … max_gamma, one curve per α, the peak of each starred.

    Parameters
    ----------
    alphas : sequence of float in [0, 1]
        At most ``len(CURVE_STYLES)`` acceptance rates.
    c : float > 0
        Cost ratio: time of one target pass over one draft pass.
    max_gamma : int >= 1
    """
    table = speedup_table(alphas, c, max_gamma)
    _check_curve_count(len(table))
    gammas = np.arange(1, max_gamma + 1)
    with styled():
        figure = new_figure(7.5, 4.2)
        axes = figure.subplots()
        for (colour, style, marker), alpha, row in zip(CURVE_STYLES, alphas, table):
            best = int(np.argmax(row))
            axes.plot(gammas, row, color=colour, linestyle=style, marker=marker, markersize=4,
                      label=f"α = {alpha:g} (best γ = {gammas[best]})")
            axes.plot([gammas[best]], [row[best]], linestyle="none", marker="*", markersize=15,
                      color=colour, markeredgecolor=palette.HIGHLIGHT)
        axes.axhline(1.0, color=palette.NEUTRAL, linestyle=":", linewidth=1)
        axes.set(title=f"Speedup against draft length at c = {c:g} (★ the best γ)", xlabel="draft length γ",
                 ylabel="expected speedup over plain decoding", xticks=gammas[::2] if max_gamma > 10 else gammas)
        axes.legend(loc="upper left")
    return figure


def best_draft_length_against_alpha(cs, alphas=None, max_gamma=40) -> Figure:
    """The best γ (in 1 … max_gamma) against α, one step curve per cost ratio c.

    Parameters
    ----------
    cs : sequence of float > 0
        At most ``len(CURVE_STYLES)`` cost ratios.
    alphas : sequence of float in [0, 1], optional
        Where to evaluate; by default 0.50, 0.51, …, 0.90.
    max_gamma : int >= 1

    Examples
    --------
    >>> figure = best_draft_length_against_alpha([10, 100])
    >>> [line.get_label() for line in figure.axes[0].get_lines()]
    ['c = 10 (c′ = 0.1)', 'c = 100 (c′ = 0.01)']
    """
    alphas = np.round(np.arange(0.50, 0.901, 0.01), 2) if alphas is None else np.asarray(alphas, dtype=float)
    _check_curve_count(len(cs))
    with styled():
        figure = new_figure(7.5, 4.2)
        axes = figure.subplots()
        for (colour, style, marker), c in zip(CURVE_STYLES, cs):
            axes.step(alphas, best_draft_lengths(alphas, c, max_gamma), where="mid", color=colour,
                      linestyle=style, label=f"c = {c:g} (c′ = {1 / c:g})")
        axes.set(title="The best draft length grows with α and with c", xlabel="acceptance rate α",
                 ylabel="best draft length γ")
        axes.legend(loc="upper left", title="cost ratio (c′ = 1/c)")
    return figure


def _check_curve_count(count: int) -> None:
    if not 1 <= count <= len(CURVE_STYLES):
        raise ValueError(f"give between 1 and {len(CURVE_STYLES)} curves, got {count}")
