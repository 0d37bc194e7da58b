"""Up to a million sampled verify steps against the exact law (notebook 03).

Steps of the correct rule or a broken one (`specdec.broken_rules`): the tokens at one position against
pᵢ, the tokens per step against their law, and the largest deviation from pᵢ against n. Each (rule,
seed) is one run (`specdec.sampled_runs`) sampled in blocks as n grows; the slider looks at its first n.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import palette
from ..broken_rules import BROKEN_RULES
from ..goodness_of_fit import format_p_value
from ..output_law import reach_probabilities, token_count_law
from ..narrate import SPEC_DRAFT_PROBS, SPEC_TARGET_PROBS, token_labels
from ..sampled_runs import MAX_STEPS, SampledRuns, deviation_guide
from ..validation import Count, OneOf, StepRows, checked
from .derivation import target_and_draft_marks
from .frame import (COMPACT_FIGURE_INCHES, SEED_SLIDER_MAX, Explorer, FastRedraw, Picture, Readout, bold, compact,
                    labelled, line, new_figure, slider, styled)

STEPS_SLIDER_MIN = 100  #: the fewest steps of the Monte Carlo log slider (the most: `sampled_runs.MAX_STEPS`)
MAX_SHOWN_VOCAB = 26  #: the most tokens the token panel shows
SAMPLED_HATCH = "||"  #: sampled frequencies' hatch (grey, and unlike every role's hatch: measured, not a role)
N_AXIS, DEVIATION_AXIS = (60, 1.6e6), (1e-4, 1.0)  #: the deviation plot's axes (the n slider runs from 10² to 10⁶)
#: The guide: this many standard deviations of the most variable token's frequency, an upper envelope that chance
#: almost never crosses (correct rule, worked example, seeds 0 … 19: never, at any position or n; at 3, for 5 seeds).
GUIDE_DEVIATIONS = 4
FREQUENCY_AXIS_TOP = 1.75  #: the token and count panels' top: room above 1 for the verdict and the legend

RULE_LABELS = {  #: how each rule is named in the dropdown: short, to fit the projector layout's side column
    "correct": "the correct rule",
    "resample_from_target": "broken: resample from p",
    "resample_from_draft": "broken: resample from q",
    "accept_with_target_probability": "broken: accept with p(x)",
    "always_accept": "broken: always accept",
    "drop_bonus_token": "broken: drop the bonus token",
    "one_uniform_for_all": "broken: one uniform per step",
    "greedy_draft": "broken: greedy draft, q ratio",
    "unprocessed_draft_in_ratio": "broken: T = 0.5 draft, raw q",
    "swapped_roles": "broken: p and q swapped",
}


def _shown_vocab(rows, name, arguments):
    """A declared check: rows over at most `MAX_SHOWN_VOCAB` tokens (one bar each)."""
    if rows.shape[1] > MAX_SHOWN_VOCAB:
        raise ValueError(f"the explorer shows at most {MAX_SHOWN_VOCAB} tokens, got V = {rows.shape[1]}")
    return rows


class MonteCarloFigure(Picture):
    """Sampled output tokens at one position (a bar per name in `labels`), the tokens per step (0 … γ+1 for
    draft length `gamma`), and the largest deviation against n.

    Examples
    --------
    >>> from specdec.goodness_of_fit import goodness_of_fit
    >>> picture, fit = MonteCarloFigure(["A", "B"], gamma=1), goodness_of_fit([0, 1, 1, 0], [0.5, 0.5])
    >>> picture.update(position=0, frequencies=[0.6, 0.4], target=[0.6, 0.4], draft=[0.5, 0.5],
    ...                count_frequencies=[0, 0.2, 0.8], count_law=[0, 0.2, 0.8], sizes=[100, 1000],
    ...                deviations=[0.05, 0.01], guide=[0.05, 0.016], n=1000, fits=(fit, fit))
    >>> picture.verdict_texts[0].get_text()
    'passes: χ² p-value 1.000'
    """

    def __init__(self, labels, gamma: int):
        tokens, counts = np.arange(len(labels)), np.arange(gamma + 2)
        self.compact = compact()  # presentation mode: short labels, one legend under the panels
        short = self._short
        sampled = dict(width=0.6, color=palette.NEUTRAL, hatch=SAMPLED_HATCH, edgecolor="white", linewidth=0.5,
                       label=short("sampled", "sampled frequency"))
        with styled():
            self.figure = new_figure(10.0, 6.6, compact_size=COMPACT_FIGURE_INCHES)
            grid = self.figure.subplot_mosaic([["tokens", "counts"], ["deviation", "deviation"]],
                                              width_ratios=[max(2, len(labels)), gamma + 2])
            self.token_axes, self.count_axes, self.deviation_axes = token_axes, count_axes, deviation_axes = (
                grid["tokens"], grid["counts"], grid["deviation"])
            self.sampled_bars = token_axes.bar(tokens, np.zeros(len(labels)), **sampled)
            self.target_bars, self.draft_marks = target_and_draft_marks(token_axes, tokens, draft_size=8)
            token_axes.set(xticks=tokens, xticklabels=list(labels), xlabel=short("token", "output token"),
                           xlim=(-0.6, len(labels) - 0.4), title=" ")
            self.count_bars = count_axes.bar(counts, np.zeros(gamma + 2), **sampled)
            self.count_law_bars = count_axes.bar(counts, np.zeros(gamma + 2), width=0.8, fill=False,
                                                 edgecolor=palette.HIGHLIGHT, linewidth=2, linestyle="--",
                                                 label=short("exact law", "exact law (outline)"))
            count_axes.set(xticks=counts, title=short("Per step", "Tokens per step"), xlim=(-0.6, gamma + 1.6),
                           xlabel=short("tokens per step", "tokens emitted by one step"))
            for axes in (token_axes, count_axes):  # the legend under the verdict line, both above the bars
                axes.set(ylabel=short("frequency", "frequency / probability"), ylim=(0, short(1.4, FREQUENCY_AXIS_TOP)),
                         yticks=short((0, 1), np.linspace(0, 1, 6)))
                if not self.compact:
                    axes.legend(loc="upper right", bbox_to_anchor=(1, 0.87), fontsize=9)
            self.verdict_texts = [axes.text(0.02, 0.96, "", transform=axes.transAxes, va="top", fontsize=10,
                                            fontweight="bold", in_layout=False) for axes in (token_axes, count_axes)]
            (self.deviation_line,) = deviation_axes.plot(
                [1], [1], color=palette.HIGHLIGHT, marker="o", markersize=4, linewidth=1.8,
                label=short("largest |f − p|", "largest |frequency − p| among the first n steps"))
            guide = short(f"guide: {GUIDE_DEVIATIONS} sd", f"guide: {GUIDE_DEVIATIONS} standard deviations, as 1/√n")
            (self.guide_line,) = deviation_axes.plot([1], [1], color=palette.NEUTRAL, linestyle="--", linewidth=1.5,
                                                     label=guide)
            self.n_marker = deviation_axes.axvline(1e5, color=palette.NEUTRAL, linestyle=":", linewidth=1.5,
                                                   label=short("n now", "n on the slider"))
            deviation_axes.set(xscale="log", yscale="log", xlim=N_AXIS, ylim=DEVIATION_AXIS, title=" ",
                               xlabel=short("steps n", "steps n (log scale)"),
                               ylabel=short("deviation", "largest deviation (log scale)"))
            if self.compact:
                self.figure.legend(handles=[self.sampled_bars, self.target_bars, self.draft_marks, self.count_law_bars,
                                            self.deviation_line, self.guide_line, self.n_marker],
                                   loc="outside lower center", ncols=3, handlelength=1.5, columnspacing=1.0)
            else:
                deviation_axes.legend(loc="lower left")
        self.fast = FastRedraw(self.figure, [  # the two titles that `update` sets, too
            *self.sampled_bars, *self.target_bars, self.draft_marks, token_axes.title, *self.verdict_texts,
            *self.count_bars, *self.count_law_bars, self.deviation_line, self.guide_line, self.n_marker,
            deviation_axes.title])

    def _short(self, compact_text, text):
        """The compact layout's text (or value), else the ordinary one."""
        return compact_text if self.compact else text

    def update(self, position: int, frequencies, target, draft, count_frequencies, count_law,
               sizes, deviations, guide, n: int, fits) -> None:
        """Position `position`'s sampled frequencies against p and q (None at the bonus position); the verdicts of
        `fits` (the `FitResult` of that position and of the counts) on the token and count panels."""
        for bars, heights in ((self.sampled_bars, frequencies), (self.target_bars, target),
                              (self.count_bars, count_frequencies), (self.count_law_bars, count_law)):
            for bar, height in zip(bars, heights):
                bar.set_height(height)
        self.draft_marks.set_visible(draft is not None)
        if draft is not None:
            self.draft_marks.set_ydata(draft)
        for text, fit in zip(self.verdict_texts, fits):
            text.set_text(f"{'passes' if fit.passed else 'FAILS'}: {self._short('p', 'χ² p-value')} "
                          f"{format_p_value(fit.p_value)}")
            text.set_color(palette.ACCEPTED if fit.passed else palette.RESAMPLED)
        self.token_axes.title.set_text(self._short(f"Position {position}", f"Output tokens at position {position}"))
        self.deviation_line.set_data(sizes, np.maximum(deviations, DEVIATION_AXIS[0]))
        self.guide_line.set_data(sizes, guide)
        self.n_marker.set_xdata([n, n])
        self.deviation_axes.title.set_text(self._short("Largest deviation from p",
                                                       f"Position {position}: the largest deviation from p as n grows"))


class MonteCarloExplorer(Explorer):
    """Sample up to a million verify steps and test them against the exact law.

    Parameters
    ----------
    target_probs, draft_probs : array_like, optional
        The rows of every step, (γ+1, V) and (γ, V) with V ≤ 26; by default the worked example's.
    rule : "correct" or a name of `specdec.broken_rules.BROKEN_RULES`
    n, seed : int in 100 … 1,000,000 (the steps looked at), int in 0 … 99

    Attributes
    ----------
    controls : "rule", "n" (log slider), "position" (a new rule moves it to where its p-value is smallest), "seed".
    shown : the control values, position_fits (a `FitResult` per position), count_fit, passed (all
        pass), frequencies (at the position shown), count_frequencies, and the curve sizes, deviations.

    Examples
    --------
    >>> explorer = MonteCarloExplorer(n=10_000)
    >>> explorer.shown["passed"]
    True
    >>> explorer.controls["rule"].value = "always_accept"
    >>> explorer.shown["passed"]
    False
    """

    title = "A million verify steps against the exact law"

    @checked(StepRows("target_probs", "draft_probs"), target_probs=_shown_vocab, rule=OneOf(*RULE_LABELS),
             n=Count(STEPS_SLIDER_MIN, MAX_STEPS), seed=Count(0, SEED_SLIDER_MAX))
    def __init__(self, target_probs=SPEC_TARGET_PROBS, draft_probs=SPEC_DRAFT_PROBS, rule="correct", n=100_000, seed=0):
        self.target, self.draft, self.gamma = target_probs, draft_probs, len(draft_probs)
        self.runs = SampledRuns(self.target, self.draft)
        self.count_law = np.concatenate(([0.0], token_count_law(self.target, self.draft)))
        self.reach = reach_probabilities(self.target, self.draft)
        controls = {
            "rule": labelled(widgets.Dropdown, "verify rule", label_above=True, value=rule,
                             layout=widgets.Layout(width="30em"),
                             options=[(label, name) for name, label in RULE_LABELS.items()]),
            "n": labelled(widgets.FloatLogSlider, "steps n", value=n, base=10, min=2, max=6, step=0.25,
                          readout_format=",.0f", continuous_update=False, layout=widgets.Layout(width="26em")),
            "position": slider("output position i", self.worst_position(rule, seed, n, 0), (0, self.gamma)),
            "seed": slider("seed", seed, (0, SEED_SLIDER_MAX), continuous_update=False),
        }
        super().__init__(controls, [["rule"], ["n", "position", "seed"]],
                         MonteCarloFigure(token_labels(self.target.shape[1]), self.gamma))
        self.on_change("rule", self.on_rule)

    def worst_position(self, rule: str, seed: int, steps: int, current: int) -> int:
        """Where a broken rule fails most (the smallest p-value), or `current` if it fails at no position."""
        fits = [] if rule == "correct" else self.runs.get(rule, seed).position_fits(steps)
        failing = [i for i, fit in enumerate(fits) if not fit.passed]
        return min(failing, key=lambda i: fits[i].p_value) if failing else current

    def on_rule(self) -> None:
        """A new rule: jump to the position where it fails most (one redraw either way)."""
        self.controls["position"].value = self.worst_position(self.value("rule"), self.value("seed"),
                                                              round(self.value("n")), self.value("position"))

    def compute(self) -> dict:
        rule, position, seed = self.value("rule"), self.value("position"), self.value("seed")
        steps = round(self.value("n"))
        run = self.runs.get(rule, seed)
        fits = run.position_fits(steps)
        count_fit, count_frequencies = run.count_fit(steps, self.count_law)
        sizes, deviations = run.deviation_curve(position, steps)
        frequencies = run.frequencies(steps, position)
        guide = GUIDE_DEVIATIONS * deviation_guide(self.target[position], self.reach[position], sizes)
        self.picture.update(position, frequencies, self.target[position],
                            self.draft[position] if position < self.gamma else None, count_frequencies, self.count_law,
                            sizes, deviations, guide, steps, (fits[position], count_fit))
        return {"rule": rule, "n": steps, "position": position, "seed": seed, "position_fits": fits,
                "count_fit": count_fit, "passed": count_fit.passed and all(fit.passed for fit in fits),
                "frequencies": frequencies, "count_frequencies": count_frequencies, "sizes": sizes,
                "deviations": deviations}

    def describe(self, shown: dict) -> Readout:
        rule, count_fit = shown["rule"], shown["count_fit"]
        about = ([line("The correct rule: accept with min(1, p/q), resample from the residual, add a bonus.")]
                 if rule == "correct" else
                 [line(bold("The mistake:"), " ", BROKEN_RULES[rule].mistake),
                  line(bold("In real engines:"), " ", BROKEN_RULES[rule].real_world)])
        checks = [line(f"position {i}: {fit.n:,} tokens, TV {fit.tv:.4f} (chance: {fit.typical_tv:.4f}), "
                       f"p-value {format_p_value(fit.p_value)} {'✓' if fit.passed else '✗'}") if fit.n else
                  line(f"position {i}: no token emitted here, nothing to test")
                  for i, fit in enumerate(shown["position_fits"])]
        return Readout([
            line(f"{RULE_LABELS[rule]}, seed {shown['seed']}, n = {shown['n']:,} steps"), *about,
            line(bold("passes"), ": no check rejects the law at this n (a pass is not a proof)") if shown["passed"]
            else line(bold("FAILS"), ": at least one check rejects the law (✗)"),
            *checks,
            line(f"tokens per step: TV {count_fit.tv:.4f}, p-value {format_p_value(count_fit.p_value)} "
                 f"{'✓' if count_fit.passed else '✗'}"),
            line(f"Position {shown['position']}: {shown['position_fits'][shown['position']].verdict}."),
        ])
