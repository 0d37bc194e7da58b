"""Adaptive γ on text (notebook 09): fixed γ, Hugging Face's heuristic schedule and an oracle, priced at c.

The runs of a `specdec.variants.adaptive_gamma.ScheduleComparison` are made once. Left: γ drafted at
each of the chosen run's first steps, and the draft tokens kept. Right: every run's speedup at c, with
the constant-α prediction `speedup(ᾱ, γ, c)` over the fixed lengths.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.ticker import MaxNLocator

from .. import palette
from ..validation import Count, InstanceOf, OrNone, checked
from ..theory import optimal_gamma, speedup
from ..variants.adaptive_gamma import ScheduleComparison, stdlib_comparison
from .frame import (COMPACT_FIGURE_INCHES, COST_SLIDER_MAX, Explorer, FastRedraw, Picture, Readout, bold, compact,
                    labelled, line, new_figure, slider, styled)

#: How many verify steps the left panel draws.
SCHEDULE_STEPS = 120
HEURISTIC = "heuristic (+2 / −1)"


def schedule_runs(comparison) -> dict:
    """The runs of a `ScheduleComparison` by the name the explorer shows: fixed γ first.

    >>> from specdec.text import NGramModel
    >>> from specdec.variants.adaptive_gamma import compare_schedules
    >>> model = NGramModel(order=2).fit("abcabcabc")
    >>> list(schedule_runs(compare_schedules(model, model, "a", 10, c=5, seed=0, fixed_gammas=[3])))
    ['fixed γ = 3', 'heuristic (+2 / −1)', 'oracle']
    """
    runs = {f"fixed γ = {gamma}": comparison.fixed[gamma] for gamma in sorted(comparison.fixed)}
    runs[HEURISTIC] = comparison.heuristic
    runs["oracle"] = comparison.oracle
    return runs


class ScheduleFigure(Picture):
    """γ at each step of one schedule on text (left), and the speedup of every schedule at one c (right).

    `names`: one bar per schedule, top to bottom (fixed lengths first); `steps`: how many steps the left
    panel shows; `max_gamma` and `max_speedup`: the top of the γ axis and the end of the speedup axis.

    Examples
    --------
    >>> picture = ScheduleFigure(["γ = 1", "γ = 2", "heuristic"], steps=4, max_gamma=5, max_speedup=2)
    >>> picture.update(gammas=[5, 4, 3, 5], accepted=[5, 1, 0, 2], speedups=[1.4, 1.6, 1.5],
    ...                theory=[1.45, 1.62], chosen=2, title="heuristic")
    >>> [round(bar.get_width(), 2) for bar in picture.bars]
    [1.4, 1.6, 1.5]
    """

    def __init__(self, names, steps: int, max_gamma: int, max_speedup: float):
        self.steps, self.names = steps, list(names)
        positions = np.arange(len(names))
        accepted, self.short = palette.ROLES["accepted"], compact()
        with styled():
            self.figure = new_figure(10.0, 4.2, compact_size=COMPACT_FIGURE_INCHES)
            # Side by side in both layouts: the bars need the full height, one line of text per run.
            self.step_axes, self.speed_axes = step_axes, speed_axes = self.figure.subplots(
                1, 2, width_ratios=[1, 1.25] if self.short else [1.25, 1])
            (self.gamma_line,) = step_axes.step(np.arange(steps), np.zeros(steps), where="mid",
                                                color=palette.HIGHLIGHT, linewidth=1.5, label="γ drafted")
            (self.accepted_marks,) = step_axes.plot(np.arange(steps), np.zeros(steps), linestyle="none", marker="o",
                                                    markersize=4, color=accepted.colour,
                                                    label=accepted.labelled("draft tokens kept"))
            step_axes.set(xlabel="verify step", ylabel="draft tokens", xlim=(-1, steps), ylim=(-0.5, max_gamma + 0.5))
            step_axes.yaxis.set_major_locator(MaxNLocator(integer=True))
            step_axes.xaxis.set_major_locator(MaxNLocator(nbins=3 if self.short else "auto", integer=True))
            self.step_title = step_axes.set_title(" ")
            self.bars = speed_axes.barh(positions, np.zeros(len(positions)), height=0.7, color=palette.NEUTRAL,
                                        edgecolor=palette.HIGHLIGHT, linewidth=0.5,
                                        label="measured speedup" if self.short else "speedup measured on the text")
            (self.theory_marks,) = speed_axes.plot([], [], linestyle="none", marker="|", markersize=14,
                                                   markeredgewidth=3, color=palette.HIGHLIGHT,
                                                   label="theory, constant α" if self.short
                                                   else "speedup(ᾱ, γ, c) at constant α")
            self.break_even = speed_axes.axvline(1.0, color=palette.NEUTRAL, linestyle=":", linewidth=1.2,
                                                 label="1×: plain decoding")
            speed_axes.set_yticks(positions, list(names))
            speed_axes.set(xlabel="speedup (×)" if self.short else "speedup at cost ratio c (×)", xlim=(0, max_speedup),
                           ylim=(len(positions) - 0.4, -0.6))  # the first run on top
            self.speed_title = speed_axes.set_title(" ")
            # Under the panels: inside, a long γ run or a long bar would run into it.
            self.figure.legend(handles=[self.gamma_line, self.accepted_marks, self.bars, self.theory_marks,
                                        self.break_even], loc="outside lower center", ncols=2 if self.short else 3)
        self.fast = FastRedraw(self.figure, [self.gamma_line, self.accepted_marks, self.step_title, *self.bars,
                                             self.theory_marks, self.speed_title])

    def update(self, gammas, accepted, speedups, theory, chosen: int, title: str) -> None:
        """One schedule's γ and kept draft tokens per step; every schedule's speedup, and the constant-α
        prediction `theory` for the first len(theory) bars (the fixed lengths)."""
        shown = min(self.steps, len(gammas))
        gamma_values, kept = np.full(self.steps, np.nan), np.full(self.steps, np.nan)
        gamma_values[:shown], kept[:shown] = gammas[:shown], accepted[:shown]
        self.gamma_line.set_ydata(gamma_values)
        self.accepted_marks.set_ydata(kept)
        self.step_title.set_text(f"first {shown} steps" if self.short else f"{title}: the first {shown} steps")
        for index, (bar, value) in enumerate(zip(self.bars, speedups)):
            bar.set_width(value)
            bar.set_linewidth(2.5 if index == chosen else 0.5)
        self.theory_marks.set_data(theory, np.arange(len(theory)))
        self.speed_title.set_text(f"{self.names[chosen] if self.short else title}: {speedups[chosen]:.2f}×")


class SchedulesExplorer(Explorer):
    """Fixed γ, Hugging Face's heuristic schedule and the oracle on one text, priced at a cost ratio c.

    Parameters
    ----------
    comparison : ScheduleComparison, optional
        From `specdec.variants.adaptive_gamma.compare_schedules`; by default notebook 09's runs,
        `stdlib_comparison()` (a few seconds to make).
    c : int in 1 … 100, the starting cost ratio

    Attributes
    ----------
    shown : ``c``, ``schedule`` (a key of `schedule_runs(comparison)`), ``speedups`` (every run, in menu order), the
        chosen run's ``speedup``, ``tokens_per_call``, ``mean_gamma`` and ``characters``, ``heuristic``, ``oracle``,
        ``best_fixed`` and ``best_fixed_speedup`` (the fastest fixed γ at c), ``alpha`` (the average α),
        ``theory_gamma`` and ``theory_speedup`` (`optimal_gamma`).

    Examples
    --------
    >>> from specdec.text import NGramModel
    >>> from specdec.variants.adaptive_gamma import compare_schedules
    >>> text = "the cat sat on the mat and the rat sat on the cat"
    >>> draft, target = NGramModel(order=2).fit(text), NGramModel(order=4).fit(text)
    >>> explorer = SchedulesExplorer(compare_schedules(target, draft, "the ", 80, c=20, seed=0, fixed_gammas=[1, 2]))
    >>> list(explorer.controls["schedule"].options)
    ['fixed γ = 1', 'fixed γ = 2', 'heuristic (+2 / −1)', 'oracle']
    """

    title = "Adaptive γ on text: fixed, heuristic, oracle"

    @checked(comparison=OrNone(InstanceOf(ScheduleComparison, "a ScheduleComparison from compare_schedules")),
             c=Count(1, COST_SLIDER_MAX))
    def __init__(self, comparison=None, c=20):
        self.comparison = comparison = stdlib_comparison() if comparison is None else comparison
        self.runs = runs = schedule_runs(comparison)
        self.fixed = sorted(comparison.fixed)
        self.alpha = min(1.0, comparison.mean_alpha)
        controls = {
            "c": slider("cost ratio c (target time / draft time)", c, (1, COST_SLIDER_MAX),
                        layout=widgets.Layout(width="40em")),
            "schedule": labelled(widgets.Dropdown, "schedule shown", options=list(runs), value=HEURISTIC,
                                 layout=widgets.Layout(width="24em")),
        }
        # Speedups grow with c: the largest c gives the end of the speedup axis, fixed once.
        fastest = max(run.speedup(COST_SLIDER_MAX) for run in runs.values())
        short_names = [name.replace("fixed ", "").replace(" (+2 / −1)", "") for name in runs]
        picture = ScheduleFigure(short_names, SCHEDULE_STEPS,
                                 max(max(run.gammas, default=1) for run in runs.values()), np.ceil(2 * fastest) / 2)
        super().__init__(controls, [["c"], ["schedule"]], picture)

    def compute(self) -> dict:
        c, name = self.value("c"), self.value("schedule")
        run, names = self.runs[name], list(self.runs)
        speedups = [self.runs[key].speedup(c) for key in names]
        best_fixed = max(self.fixed, key=lambda gamma: self.comparison.fixed[gamma].speedup(c))
        theory_gamma, theory_speedup = optimal_gamma(self.alpha, c)
        chosen = names.index(name)
        self.picture.update(run.gammas, run.accepted, speedups, [speedup(self.alpha, gamma, c) for gamma in self.fixed],
                            chosen, name)
        return {"c": c, "schedule": name, "speedups": speedups, "speedup": speedups[chosen],
                "tokens_per_call": run.tokens_per_target_call, "mean_gamma": run.mean_gamma, "characters": len(run.text),
                "best_fixed": best_fixed, "best_fixed_speedup": self.comparison.fixed[best_fixed].speedup(c),
                "theory_gamma": theory_gamma, "theory_speedup": theory_speedup, "alpha": self.alpha,
                "heuristic": self.runs[HEURISTIC].speedup(c), "oracle": self.runs["oracle"].speedup(c)}

    def describe(self, shown: dict) -> Readout:
        characters = shown["characters"]
        return Readout([
            line(bold(shown["schedule"]), f": mean γ {shown['mean_gamma']:.2f}, {shown['tokens_per_call']:.3f} "
                 f"characters per target call ({characters:,} character{'' if characters == 1 else 's'})", key=False),
            line(f"At c = {shown['c']}: speedup ", bold(f"{shown['speedup']:.2f}×")),
            line("Best fixed γ measured at this c: ", bold(shown["best_fixed"]),
                 f", {shown['best_fixed_speedup']:.2f}×"),
            line(f"optimal_gamma at the average α = {shown['alpha']:.3f}: γ = {shown['theory_gamma']}, "
                 f"{shown['theory_speedup']:.2f}× predicted"),
            line(f"heuristic {shown['heuristic']:.2f}×, oracle {shown['oracle']:.2f}×"),
        ])
