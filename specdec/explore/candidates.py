"""Several candidates at one position (notebook 08): the output law against p, and acceptance against k.

The numbers are `specdec.variants`' (the exact multi-candidate law and two broken rules), for
p(x) ∝ 0.55^x over six tokens and a draft with exactly the α of the slider. The acceptance curve is
drawn up to the largest k shown so far, not to give away what a second candidate adds.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import palette
from ..goodness_of_fit import format_p_value, goodness_of_fit
from ..validation import Between, Count, OneOf, checked
from ..narrate import token_labels
from ..theory import tv_distance
from ..variants.broken_candidates import BROKEN_CANDIDATE_RULES
from ..variants.multi_candidate import multi_candidate_law, sample_multi_candidate
from ..variants.pairs import draft_with_acceptance, geometric_target
from .derivation import set_stack, target_and_draft_marks
from .frame import (COMPACT_FIGURE_INCHES, SEED_SLIDER_MAX, Explorer, FastRedraw, Picture, Readout, bold, compact,
                    labelled, line, new_figure, panel_axes, role_style, slider, styled)

CANDIDATES_SLIDER_MAX = 6  #: the candidates explorer's k slider: 1 … 6 (k ≤ V: k distinct candidates exist)
CANDIDATE_TARGET = geometric_target(6, 0.55)  #: the target row: six tokens, p(x) ∝ 0.55^x
CANDIDATE_ALPHA_RANGE = (0.3, 1.0)  #: the α slider's range: `draft_with_acceptance` has drafts for this p from 0.3
SAMPLE_SIZES = (100, 1_000, 10_000, 50_000)  #: sample sizes of the Monte Carlo check
#: The rules offered, the exact one and two broken ones: short name (in the titles) -> menu label.
CANDIDATE_RULES = {"exact": "residual updated (exact)", "stale residual": "broken: residual not updated",
                   "without replacement": "broken: distinct candidates"}
#: Marker of sampled frequencies: black horizontal ticks (measured, not a role).
SAMPLED_STYLE = dict(linestyle="none", marker="_", markersize=22, markeredgewidth=3, color=palette.HIGHLIGHT)


def law_panel(axes, labels, accepted_detail: str, resampled_detail: str, ylabel: str):
    """One rule's output law at height 0: accepted, resampled on it, p outlined, q as diamonds (compact: roles only)."""
    short, positions = compact(), np.arange(len(labels))
    parts = [axes.bar(positions, np.zeros(len(labels)), **role_style(role), width=0.6, edgecolor="white", linewidth=0.5,
                      label=palette.ROLES[role].labelled("" if short else detail))
             for role, detail in (("accepted", accepted_detail), ("resampled", resampled_detail))]
    target, draft = target_and_draft_marks(axes, positions, draft_size=8)
    if short:
        target.set_label(palette.ROLES["target"].label)
    axes.set(xlabel="output token", ylabel="probability" if short else ylabel, ylim=(0, 1.05 if short else 1.35),
             xlim=(-0.6, len(labels) - 0.4), xticks=positions, xticklabels=list(labels))
    return (*parts, target, draft)


class CandidatesFigure(Picture):
    """The output law of a multi-candidate step against p (left), and acceptance against k (right).

    Examples
    --------
    >>> picture = CandidatesFigure(["A", "B"], max_k=3)
    >>> picture.update(accepted=[0.4, 0.1], resampled=[0.1, 0.4], target=[0.5, 0.5], draft=[0.8, 0.2],
    ...                frequencies=[0.52, 0.48], k=2, exact_curve=[0.5, 0.7, 0.8],
    ...                rule_curve=[0.5, 0.75, 0.9], widest_k=2, title="exact rule")
    >>> [round(float(bar.get_y() + bar.get_height()), 2) for bar in picture.resampled_bars]
    [0.5, 0.5]
    >>> list(picture.rule_line.get_ydata())  # drawn up to the widest k shown so far
    [0.5, 0.75]
    """

    def __init__(self, labels, max_k: int):
        positions, ks, short = np.arange(len(labels)), np.arange(1, max_k + 1), compact()
        with styled():
            self.figure = new_figure(10.0, 4.2, compact_size=COMPACT_FIGURE_INCHES)
            self.law_axes, self.k_axes = law_axes, k_axes = panel_axes(self.figure, 2, width_ratios=[1.25, 1])
            self.law_marks = self.accepted_bars, self.resampled_bars, self.target_bars, self.draft_marks = law_panel(
                law_axes, labels, "some candidate accepted", "drawn from the last residual", "probability / frequency")
            (self.sampled_marks,) = law_axes.plot(positions, np.zeros(len(positions)), label="sampled frequency",
                                                  **SAMPLED_STYLE)
            # compact: the legend beside the panel, one column (inside, it took most of the panel's height)
            law_axes.legend(**(dict(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0) if short
                               else dict(loc="upper right")))
            self.law_title = law_axes.set_title(" ")
            (self.exact_line,) = k_axes.plot(ks, np.zeros(max_k), color=palette.HIGHLIGHT, marker="o",
                                             markersize=4, label="exact rule" if short else "residual updated (exact)")
            (self.rule_line,) = k_axes.plot(ks, np.zeros(max_k), color=palette.NEUTRAL, linestyle="--",
                                            marker="s", markersize=4, label="chosen rule")
            (self.k_marker,) = k_axes.plot([1], [0], linestyle="none", marker="o", markersize=12,
                                           markerfacecolor="none", markeredgecolor=palette.HIGHLIGHT,
                                           markeredgewidth=2, label="chosen k")
            k_axes.set(title="P(some candidate is accepted)", xlabel="number of candidates k",
                       ylabel="probability", xlim=(0.5, max_k + 0.5), ylim=(0, 1.05), xticks=ks)
            # compact: beside the panel too (in it, the legend's corner met the curve at k = 2 … 3)
            k_axes.legend(**(dict(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0) if short
                             else dict(loc="lower right")))
        self.fast = FastRedraw(self.figure, [*law_axes.patches, *law_axes.lines, self.law_title, *k_axes.lines])

    def update(self, accepted, resampled, target, draft, frequencies, k: int, exact_curve, rule_curve,
               widest_k: int, title: str) -> None:
        """One rule's law (two parts), p, q and sampled frequencies; acceptance for k = 1 … `widest_k`."""
        set_stack(self.law_marks, accepted, resampled, target, draft)
        self.sampled_marks.set_ydata(frequencies)
        self.law_title.set_text(title)
        ks = np.arange(1, widest_k + 1)
        self.exact_line.set_data(ks, exact_curve[:widest_k])
        self.rule_line.set_data(ks, rule_curve[:widest_k])
        self.k_marker.set_data([k], [rule_curve[k - 1]])


class CandidatesExplorer(Explorer):
    """k candidates and α in; the output law against p, a chi-square check, and acceptance against k.

    Parameters
    ----------
    k, alpha : int in 1 … 6 (candidates), float in [0.3, 1] (α of one candidate: the draft has it)
    rule : {"exact", "stale residual", "without replacement"}
    n, seed : one of 100, 1000, 10000, 50000 (sampled steps for the check), int in 0 … 99

    Attributes
    ----------
    shown : the control values, ``target``, ``draft``, ``law`` (the rule's exact output law), ``tv`` (from p),
        ``accepted_by_k`` and ``exact_by_k`` (P(some candidate accepted), k = 1 … 6, under the rule and the exact
        rule), ``widest_k``, ``frequencies`` and ``fit`` (chi-square against p).

    Examples
    --------
    >>> explorer = CandidatesExplorer(k=3, alpha=0.5)
    >>> round(explorer.shown["tv"], 12), explorer.shown["fit"].passed
    (0.0, True)
    """

    title = "Several candidates at one position"

    @checked(k=Count(1, CANDIDATES_SLIDER_MAX), alpha=Between(*CANDIDATE_ALPHA_RANGE),
             rule=OneOf(*CANDIDATE_RULES), n=OneOf(*SAMPLE_SIZES), seed=Count(0, SEED_SLIDER_MAX))
    def __init__(self, k=1, alpha=0.5, rule="exact", n=10_000, seed=0):
        controls = {
            "k": slider("candidates k", k, (1, CANDIDATES_SLIDER_MAX)),
            "alpha": slider("α of one candidate", alpha, CANDIDATE_ALPHA_RANGE, 0.05, readout_format=".2f"),
            "rule": labelled(widgets.Dropdown, "rule", label_above=True, value=rule, layout=widgets.Layout(width="30em"),
                             options=[(label, name) for name, label in CANDIDATE_RULES.items()]),
            "n": labelled(widgets.SelectionSlider, "sampled steps n", value=n,
                          options=[(f"{size:,}", size) for size in SAMPLE_SIZES]),
            "seed": slider("seed", seed, (0, SEED_SLIDER_MAX)),
        }
        self.curves = {}  # (α, rule) -> acceptance for every k: the enumeration is not free
        self.widest_k = k
        super().__init__(controls, [["k", "alpha"], ["rule"], ["n", "seed"]],
                         CandidatesFigure(token_labels(CANDIDATE_TARGET.size), CANDIDATES_SLIDER_MAX),
                         # compact: the rule menu first, on the first screen, above the key lines
                         compact_rows=([["rule"]], [["k"], ["alpha"], ["n"], ["seed"]]))

    @staticmethod
    def law_parts(rule: str, p, q, k: int):
        """(accepted part, resampled part) of the output law of `rule` with k candidates."""
        if rule == "exact":
            law = multi_candidate_law(p, q, k)
            return law.accepted.sum(axis=0), law.resampled
        return BROKEN_CANDIDATE_RULES[rule].parts(p, q, k)

    def acceptance_curve(self, rule: str, alpha: float, p, q) -> np.ndarray:
        """P(some candidate accepted) for k = 1 … `CANDIDATES_SLIDER_MAX` under `rule` (kept per α and rule)."""
        if (alpha, rule) not in self.curves:
            self.curves[(alpha, rule)] = np.array([self.law_parts(rule, p, q, count)[0].sum()
                                                   for count in range(1, CANDIDATES_SLIDER_MAX + 1)])
        return self.curves[(alpha, rule)]

    def compute(self) -> dict:
        k, alpha, rule, n, seed = (self.value(name) for name in ("k", "alpha", "rule", "n", "seed"))
        p, q = CANDIDATE_TARGET, draft_with_acceptance(CANDIDATE_TARGET, alpha)
        accepted, resampled = self.law_parts(rule, p, q, k)
        law = accepted + resampled
        rng = np.random.default_rng(seed)
        tokens = (sample_multi_candidate(p, q, k, n, rng)[0] if rule == "exact"
                  else BROKEN_CANDIDATE_RULES[rule].sample(p, q, k, n, rng))
        frequencies = np.bincount(tokens, minlength=p.size) / n
        exact_curve, rule_curve = self.acceptance_curve("exact", alpha, p, q), self.acceptance_curve(rule, alpha, p, q)
        tv = tv_distance(law / law.sum(), p)
        self.widest_k = max(self.widest_k, k)
        self.picture.update(accepted, resampled, p, q, frequencies, k, exact_curve, rule_curve, self.widest_k,
                            f"{'exact rule' if rule == 'exact' else rule}, k = {k}: TV from p = {tv:.3f}")
        return {"k": k, "alpha": alpha, "rule": rule, "n": n, "seed": seed, "target": p, "draft": q, "law": law,
                "tv": tv, "accepted_by_k": rule_curve, "exact_by_k": exact_curve, "widest_k": self.widest_k,
                "frequencies": frequencies, "fit": goodness_of_fit(tokens, p)}

    def describe(self, shown: dict) -> Readout:
        k, fit, tv = shown["k"], shown["fit"], shown["tv"]
        exactness = ["exactly p"] if tv < 1e-9 else [bold(f"{tv:.3f}"), " from p (TV)"]
        return Readout([
            line(bold(CANDIDATE_RULES[shown["rule"]]), key=False),
            line(f"α of one candidate = {shown['alpha']:.2f}, k = {k}"),
            line("P(some candidate accepted) = ", bold(f"{shown['accepted_by_k'][k - 1]:.3f}"),
                 f" (exact rule: {shown['exact_by_k'][k - 1]:.3f}; one candidate: {shown['exact_by_k'][0]:.3f})"),
            line("Computed exactly, this rule's output law is ", *exactness, "."),
            line(f"Check of {shown['n']:,} sampled steps against p: ", "passes" if fit.passed else bold("fails"),
                 f" (p-value {format_p_value(fit.p_value)}; it fails below {format_p_value(fit.significance)}); "
                 f"sampled TV {fit.tv:.3f}, chance alone ≈ {fit.typical_tv:.3f}"),
        ])
