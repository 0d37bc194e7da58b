"""Figures of notebook 08: several candidates at one position, and lossy acceptance rules.

`CandidatesFigure`: left, the law of the token a multi-candidate step emits, stacked into the part
that comes out as an accepted candidate and the part drawn from the last residual, against p (blue
outline), q (orange diamonds) and sampled frequencies (black ticks); right, the chance that some
candidate is accepted, against k. `LossyFigure`: left, the output law of one acceptance rule split
the same way; right, acceptance rate against TV distance from p for every rule and setting, the
chosen one marked.

Both are built once with fixed axis limits; `update` only changes data, so
`specdec.plots.fast_redraw.FastRedraw` draws ticks, labels and legends once. Nothing is computed
here: the numbers come from `specdec.variants`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from .. import palette
from .canvas import COMPACT_FIGURE_INCHES, figure_scale, new_figure, panel_axes, role_style, styled
from .fast_redraw import FastRedraw
from .monte_carlo import target_and_draft_marks

#: Marker of sampled frequencies: black horizontal ticks (measured, not a role).
SAMPLED_STYLE = dict(linestyle="none", marker="_", markersize=22, markeredgewidth=3, color=palette.HIGHLIGHT)


def _stacked_bars(axes, positions, accepted_detail: str, resampled_detail: str):
    zeros = np.zeros(len(positions))
    accepted = axes.bar(positions, zeros, width=0.6, **role_style("accepted"), edgecolor="white", linewidth=0.5,
                        label=palette.ROLES["accepted"].labelled(accepted_detail))
    resampled = axes.bar(positions, zeros, width=0.6, **role_style("resampled"), edgecolor="white", linewidth=0.5,
                         label=palette.ROLES["resampled"].labelled(resampled_detail))
    return accepted, resampled


def _set_stack(accepted_bars, resampled_bars, accepted, resampled) -> None:
    for accepted_bar, resampled_bar, low, high in zip(accepted_bars, resampled_bars, accepted, resampled):
        accepted_bar.set_height(low)
        resampled_bar.set_y(low)
        resampled_bar.set_height(high)


class CandidatesFigure:
    """The output law of a multi-candidate step against p, and acceptance against k.

    Parameters
    ----------
    labels : list of str
        One name per token.
    max_k : int
        The largest number of candidates the right panel shows.

    Examples
    --------
    >>> picture = CandidatesFigure(["A", "B"], max_k=3)
    >>> picture.update(accepted=[0.4, 0.1], resampled=[0.1, 0.4], target=[0.5, 0.5], draft=[0.8, 0.2],
    ...                frequencies=[0.52, 0.48], k=2, correct_curve=[0.5, 0.7, 0.8],
    ...                rule_curve=[0.5, 0.75, 0.9], title="correct rule")
    >>> [round(float(bar.get_y() + bar.get_height()), 2) for bar in picture.resampled_bars]
    [0.5, 0.5]
    >>> picture.png()[:4]
    b'\\x89PNG'
    """

    def __init__(self, labels, max_k: int):
        self.labels = list(labels)
        positions = np.arange(len(self.labels))
        ks = np.arange(1, max_k + 1)
        with styled():
            self.figure = new_figure(10.0, 4.2, compact_size=COMPACT_FIGURE_INCHES)
            law_axes, k_axes = panel_axes(self.figure, 2, width_ratios=[1.25, 1])
            self.law_axes, self.k_axes = law_axes, k_axes
            self.accepted_bars, self.resampled_bars = _stacked_bars(
                law_axes, positions, "some candidate accepted", "drawn from the last residual")
            self.target_bars, self.draft_marks = target_and_draft_marks(law_axes, positions, draft_size=8)
            (self.sampled_marks,) = law_axes.plot(positions, np.zeros(len(positions)), label="sampled frequency",
                                                  **SAMPLED_STYLE)
            law_axes.set_xticks(positions, self.labels)
            law_axes.set(xlabel="output token", ylabel="probability / frequency", ylim=(0, 1.35),
                         xlim=(-0.6, len(self.labels) - 0.4))
            law_axes.legend(loc="upper right")
            self.law_title = law_axes.set_title(" ")

            (self.correct_line,) = k_axes.plot(ks, np.zeros(max_k), color=palette.HIGHLIGHT, marker="o",
                                               markersize=4, label="residual updated (exact)")
            (self.rule_line,) = k_axes.plot(ks, np.zeros(max_k), color=palette.NEUTRAL, linestyle="--",
                                            marker="s", markersize=4, label="chosen rule")
            (self.k_marker,) = k_axes.plot([1], [0], linestyle="none", marker="o", markersize=12,
                                           markerfacecolor="none", markeredgecolor=palette.HIGHLIGHT,
                                           markeredgewidth=2, label="chosen k")
            k_axes.set(title="P(some candidate is accepted)", xlabel="number of candidates k",
                       ylabel="probability", xlim=(0.5, max_k + 0.5), ylim=(0, 1.05), xticks=ks)
            k_axes.legend(loc="lower right")
        self.fast = FastRedraw(self.figure, [*self.accepted_bars, *self.resampled_bars, *self.target_bars,
                                             self.draft_marks, self.sampled_marks, self.law_title,
                                             self.correct_line, self.rule_line, self.k_marker])

    def update(self, accepted, resampled, target, draft, frequencies, k: int, correct_curve, rule_curve,
               title: str) -> None:
        """Show one rule's output law (two parts), p, q, sampled frequencies, and acceptance against k."""
        _set_stack(self.accepted_bars, self.resampled_bars, accepted, resampled)
        for bar, value in zip(self.target_bars, target):
            bar.set_height(value)
        self.draft_marks.set_ydata(draft)
        self.sampled_marks.set_ydata(frequencies)
        self.law_title.set_text(title)
        self.correct_line.set_ydata(correct_curve)
        self.rule_line.set_ydata(rule_curve)
        self.k_marker.set_data([k], [rule_curve[k - 1]])

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only the data."""
        with styled():
            return self.fast.png()


class LossyFigure:
    """One acceptance rule's output law against p, and acceptance against TV distance for every rule.

    Parameters
    ----------
    labels : list of str
        One name per token.
    curve_points : int
        How many settings each of the lenient and typical curves shows.

    Examples
    --------
    >>> picture = LossyFigure(["A", "B"], curve_points=3)
    >>> picture.update(accepted=[0.5, 0.2], replaced=[0.2, 0.1], target=[0.6, 0.4], draft=[0.7, 0.3],
    ...                title="typical", lenient=([0.7, 0.8, 0.9], [0, 0.05, 0.1]),
    ...                typical=([0.6, 0.8, 1.0], [0.1, 0.05, 0.0]), exact=(0.7, 0.0), greedy=(0.7, 0.4),
    ...                chosen=(0.7, 0.1))
    >>> picture.png()[:4]
    b'\\x89PNG'
    """

    def __init__(self, labels, curve_points: int):
        self.labels = list(labels)
        positions = np.arange(len(self.labels))
        zeros = np.zeros(curve_points)
        with styled():
            self.figure = new_figure(10.0, 4.2, compact_size=COMPACT_FIGURE_INCHES)
            law_axes, trade_axes = panel_axes(self.figure, 2, width_ratios=[1.25, 1])
            self.law_axes, self.trade_axes = law_axes, trade_axes
            self.accepted_bars, self.replaced_bars = _stacked_bars(
                law_axes, positions, "draft token kept", "replacement after a rejection")
            self.target_bars, self.draft_marks = target_and_draft_marks(law_axes, positions, draft_size=8)
            law_axes.set_xticks(positions, self.labels)
            compact = figure_scale() > 1  # panels stacked: shorter y labels
            law_axes.set(xlabel="output token", ylabel="probability" if compact else "probability of being emitted",
                         ylim=(0, 1.35),
                         xlim=(-0.6, len(self.labels) - 0.4))
            law_axes.legend(loc="upper right")
            self.law_title = law_axes.set_title(" ")

            (self.lenient_line,) = trade_axes.plot(zeros, zeros, color=palette.NEUTRAL, linestyle="-", marker=".",
                                                   label="lenient, λ: 1 → 0.05")
            (self.typical_line,) = trade_axes.plot(zeros, zeros, color=palette.HIGHLIGHT, linestyle=":",
                                                   marker=".", label="typical, ε: 0.01 → 1")
            (self.exact_point,) = trade_axes.plot([0], [0], linestyle="none", marker="*", markersize=14,
                                                  color=palette.HIGHLIGHT, label="exact rule")
            (self.greedy_point,) = trade_axes.plot([0], [0], linestyle="none", marker="X", markersize=10,
                                                   color=palette.NEUTRAL, label="greedy top-1")
            (self.chosen_point,) = trade_axes.plot([0], [0], linestyle="none", marker="o", markersize=13,
                                                   markerfacecolor="none", markeredgecolor=palette.HIGHLIGHT,
                                                   markeredgewidth=2, label="chosen rule")
            trade_axes.set(title="What acceptance costs", xlabel="acceptance rate (share of drafts kept)",
                           ylabel="TV from p" if compact else "TV distance of the output from p", xlim=(0, 1.02), ylim=(-0.02, 1.45),
                           yticks=np.linspace(0, 1, 6))
            trade_axes.axhline(1.0, color=palette.NEUTRAL, linewidth=0.8)  # the largest possible TV; the legend sits above
            trade_axes.legend(loc="upper left", ncols=2)
        self.fast = FastRedraw(self.figure, [*self.accepted_bars, *self.replaced_bars, *self.target_bars,
                                             self.draft_marks, self.law_title, self.lenient_line,
                                             self.typical_line, self.exact_point, self.greedy_point,
                                             self.chosen_point])

    def update(self, accepted, replaced, target, draft, title: str, lenient, typical, exact, greedy,
               chosen) -> None:
        """Show a rule's law in two parts, p and q, and the (acceptance, TV) curves and points."""
        _set_stack(self.accepted_bars, self.replaced_bars, accepted, replaced)
        for bar, value in zip(self.target_bars, target):
            bar.set_height(value)
        self.draft_marks.set_ydata(draft)
        self.law_title.set_text(title)
        self.lenient_line.set_data(*lenient)
        self.typical_line.set_data(*typical)
        self.exact_point.set_data([exact[0]], [exact[1]])
        self.greedy_point.set_data([greedy[0]], [greedy[1]])
        self.chosen_point.set_data([chosen[0]], [chosen[1]])

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only the data."""
        with styled():
            return self.fast.png()



class ScheduleFigure:
    """γ at each step of one schedule on text, and the speedup of every schedule at one cost ratio.

    Parameters
    ----------
    names : list of str
        One bar per schedule, in this order (fixed lengths first, then the adaptive ones).
    steps : int
        How many steps the left panel shows.
    max_gamma : int
        The top of the γ axis.

    Examples
    --------
    >>> picture = ScheduleFigure(["γ = 1", "γ = 2", "heuristic"], steps=4, max_gamma=5)
    >>> picture.update(gammas=[5, 4, 3, 5], accepted=[5, 1, 0, 2], speedups=[1.4, 1.6, 1.5],
    ...                theory=[1.45, 1.62], chosen=2, title="heuristic")
    >>> [round(bar.get_height(), 2) for bar in picture.bars]
    [1.4, 1.6, 1.5]
    >>> picture.png()[:4]
    b'\\x89PNG'
    """

    def __init__(self, names, steps: int, max_gamma: int):
        self.names = list(names)
        self.steps = steps
        positions = np.arange(len(self.names))
        accepted = palette.ROLES["accepted"]
        with styled():
            self.figure = new_figure(10.0, 4.2, compact_size=COMPACT_FIGURE_INCHES)
            step_axes, speed_axes = panel_axes(self.figure, 2, width_ratios=[1.25, 1])
            self.step_axes, self.speed_axes = step_axes, speed_axes
            (self.gamma_line,) = step_axes.step(np.arange(steps), np.zeros(steps), where="mid",
                                                color=palette.HIGHLIGHT, linewidth=1.5, label="γ drafted")
            (self.accepted_marks,) = step_axes.plot(np.arange(steps), np.zeros(steps), linestyle="none", marker="o",
                                                    markersize=4, color=accepted.colour,
                                                    label=accepted.labelled("draft tokens kept"))
            step_axes.set(xlabel="verify step", ylabel="draft tokens", xlim=(-1, steps), ylim=(-0.5, max_gamma + 4))
            step_axes.yaxis.set_major_locator(MaxNLocator(integer=True))
            step_axes.legend(loc="upper right", ncols=2)
            self.step_title = step_axes.set_title(" ")

            self.bars = speed_axes.bar(positions, np.zeros(len(positions)), width=0.7, color=palette.NEUTRAL,
                                       edgecolor=palette.HIGHLIGHT, linewidth=0.5, label="measured on the text")
            (self.theory_marks,) = speed_axes.plot([], [], linestyle="none", marker="_", markersize=16,
                                                   markeredgewidth=3, color=palette.HIGHLIGHT,
                                                   label="speedup(ᾱ, γ, c), constant α")
            speed_axes.axhline(1.0, color=palette.NEUTRAL, linestyle=":", linewidth=1.2)
            speed_axes.set_xticks(positions, self.names, rotation=45, ha="right")
            speed_axes.set(ylabel="speedup at cost ratio c", ylim=(0, 3.6), xlim=(-0.6, len(positions) - 0.4))
            speed_axes.legend(loc="upper left")
            self.speed_title = speed_axes.set_title(" ")
        self.fast = FastRedraw(self.figure, [self.gamma_line, self.accepted_marks, self.step_title, *self.bars,
                                             self.theory_marks, self.speed_title])

    def update(self, gammas, accepted, speedups, theory, chosen: int, title: str) -> None:
        """Show one schedule's γ and kept draft tokens per step, and every schedule's speedup.

        `theory` holds the constant-α prediction for the first len(theory) bars (the fixed lengths).
        """
        shown = min(self.steps, len(gammas))
        gamma_values = np.full(self.steps, np.nan)
        gamma_values[:shown] = gammas[:shown]
        kept = np.full(self.steps, np.nan)
        kept[:shown] = accepted[:shown]
        self.gamma_line.set_ydata(gamma_values)
        self.accepted_marks.set_ydata(kept)
        self.step_title.set_text(f"{title}: the first {shown} steps")
        for index, (bar, value) in enumerate(zip(self.bars, speedups)):
            bar.set_height(value)
            bar.set_linewidth(2.5 if index == chosen else 0.5)
        self.theory_marks.set_data(np.arange(len(theory)), theory)
        self.speed_title.set_text(f"{title}: {speedups[chosen]:.2f}×")

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only the data."""
        with styled():
            return self.fast.png()
