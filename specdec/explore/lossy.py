"""Lossy acceptance rules (notebook 09): more draft tokens kept, and how far the output moves from p.

The numbers are `specdec.variants.lossy_acceptance.lossy_law`'s (a rule's exact output law), for
p(x) ∝ 0.6^x over eight tokens and a draft with exactly the α of the slider. Left: the chosen rule's
law against p and q. Right: acceptance against TV from p for every rule and setting.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import palette
from ..narrate import token_labels
from ..validation import Between, OneOf, checked
from ..variants.lossy_acceptance import MEDUSA_DELTA, MEDUSA_EPSILON, LOSSY_RULES, lossy_law, typical_threshold
from ..variants.pairs import confident_draft, draft_with_acceptance, geometric_target
from .candidates import law_panel
from .derivation import set_stack
from .frame import (COMPACT_FIGURE_INCHES, Explorer, FastRedraw, Picture, Readout, bold, compact, labelled, line,
                    new_figure, panel_axes, slider, styled)

#: The target row: eight tokens, p(x) ∝ 0.6^x.
LOSSY_TARGET = geometric_target(8, 0.6)
LOSSY_RULE_LABELS = {"exact": "exact rule", "typical": "typical acceptance (Medusa)",
                     "lenient": "lenient: accept when p/q ≥ λ", "greedy": "greedy top-1 matching"}
#: The drafts: one that over-trusts token A, B or C, or one that mixes p with its reverse (−1).
LOSSY_DRAFTS = {"over-trusts A": 0, "over-trusts B": 1, "over-trusts C": 2, "mixes p with its reverse": -1}
#: The sliders' ranges: the exact α (the drafts exist from 0.45 up), λ, ε and δ.
LOSSY_ALPHA_RANGE = (0.45, 1.0)
LENIENCE_RANGE = (0.05, 1.0)
EPSILON_RANGE = (0.01, 1.0)
DELTA_RANGE = (0.05, 1.0)
#: The settings the lenient and typical curves sweep.
LENIENCE_SWEEP = np.linspace(1.0, 0.05, 20)
EPSILON_SWEEP = np.geomspace(0.01, 1.0, 20)


def lossy_draft(kind: int, alpha: float) -> np.ndarray:
    """The draft: `confident_draft` toward token `kind`, or `draft_with_acceptance` if `kind` is −1.

    >>> round(float(np.minimum(LOSSY_TARGET, lossy_draft(1, 0.6)).sum()), 10)
    0.6
    """
    return draft_with_acceptance(LOSSY_TARGET, alpha) if kind < 0 else confident_draft(LOSSY_TARGET, alpha, kind)


class LossyFigure(Picture):
    """One rule's output law against p (left), and acceptance against TV distance for every rule (right).

    Examples
    --------
    >>> picture = LossyFigure(["A", "B"], curve_points=3)
    >>> picture.update(accepted=[0.5, 0.2], replaced=[0.2, 0.1], target=[0.6, 0.4], draft=[0.7, 0.3],
    ...                title="typical", lenient=([0.7, 0.8, 0.9], [0, 0.05, 0.1]),
    ...                typical=([0.6, 0.8, 1.0], [0.1, 0.05, 0.0]), exact=(0.7, 0.0), greedy=(0.7, 0.4),
    ...                chosen=(0.7, 0.1))
    >>> picture.chosen_point.get_data()
    ([0.7], [0.1])
    """

    def __init__(self, labels, curve_points: int):
        zeros, short = np.zeros(curve_points), compact()  # presentation mode: panels stacked, short labels
        with styled():
            self.figure = new_figure(10.0, 4.2, compact_size=COMPACT_FIGURE_INCHES)
            self.law_axes, self.trade_axes = law_axes, trade_axes = panel_axes(self.figure, 2, width_ratios=[1.25, 1])
            self.law_marks = self.accepted_bars, self.replaced_bars, self.target_bars, self.draft_marks = law_panel(
                law_axes, labels, "draft token kept", "replacement after a rejection", "probability of being emitted")
            # compact: each legend beside its panel, one column (inside, they covered the bars and the TV = 1 line)
            beside = dict(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
            law_axes.legend(**(beside if short else dict(loc="upper right")))
            self.law_title = law_axes.set_title(" ")
            (self.lenient_line,) = trade_axes.plot(zeros, zeros, color=palette.NEUTRAL, linestyle="-", marker=".",
                                                   label="lenient" if short else "lenient, λ: 1 → 0.05")
            (self.typical_line,) = trade_axes.plot(zeros, zeros, color=palette.HIGHLIGHT, linestyle=":",
                                                   marker=".", label="typical" if short else "typical, ε: 0.01 → 1")
            (self.exact_point,) = trade_axes.plot([0], [0], linestyle="none", marker="*", markersize=14,
                                                  color=palette.HIGHLIGHT, label="exact" if short else "exact rule")
            (self.greedy_point,) = trade_axes.plot([0], [0], linestyle="none", marker="X", markersize=10,
                                                   color=palette.NEUTRAL, label="greedy" if short else "greedy top-1")
            (self.chosen_point,) = trade_axes.plot([0], [0], linestyle="none", marker="o", markersize=13,
                                                   markerfacecolor="none", markeredgecolor=palette.HIGHLIGHT,
                                                   markeredgewidth=2, label="chosen" if short else "chosen rule")
            trade_axes.set(title="What acceptance costs", xlabel="acceptance rate (share of drafts kept)",
                           ylabel="TV from p" if short else "TV distance of the output from p", xlim=(0, 1.02),
                           ylim=(-0.02, 1.05 if short else 1.45),
                           yticks=np.linspace(0, 1, 3 if short else 6))  # compact: 0.2 apart, the ticks ran together
            trade_axes.axhline(1.0, color=palette.NEUTRAL, linewidth=0.8)  # the largest TV (ordinary: the legend above)
            # ordinary: two columns, packed so that they stay inside the panel
            trade_axes.legend(**(beside if short else dict(loc="upper left", ncols=2, handlelength=1.5,
                                                            handletextpad=0.5, columnspacing=1.0)))
        self.fast = FastRedraw(self.figure, [*self.accepted_bars, *self.replaced_bars, *self.target_bars,
                                             self.draft_marks, self.law_title, self.lenient_line, self.typical_line,
                                             self.exact_point, self.greedy_point, self.chosen_point])

    def update(self, accepted, replaced, target, draft, title: str, lenient, typical, exact, greedy, chosen) -> None:
        """A rule's law in two parts, p and q; the (acceptance, TV) curves and points."""
        set_stack(self.law_marks, accepted, replaced, target, draft)
        self.law_title.set_text(title)
        self.lenient_line.set_data(*lenient)
        self.typical_line.set_data(*typical)
        for point, (x, y) in ((self.exact_point, exact), (self.greedy_point, greedy), (self.chosen_point, chosen)):
            point.set_data([x], [y])


class LossyExplorer(Explorer):
    """An acceptance rule and its setting in; its output law against p, and acceptance against TV.

    Parameters
    ----------
    rule : {"exact", "typical", "lenient", "greedy"}
    alpha, draft : float in [0.45, 1] (the exact rule's α: the draft has it), one of `LOSSY_DRAFTS`
    lenience, epsilon, delta : λ in [0.05, 1] (lenient rule), ε in [0.01, 1] and δ in [0.05, 1] (typical)

    Attributes
    ----------
    shown : the control values, ``law`` (the rule's `LossyLaw`), ``exact_acceptance``, ``gain`` (over the exact
        rule), ``threshold`` (typical acceptance's bar on p(x)), ``lenient_curve`` and ``typical_curve`` (acceptance
        and TV along each sweep).

    Examples
    --------
    >>> explorer = LossyExplorer(rule="greedy", alpha=0.6)
    >>> round(explorer.shown["law"].tv, 3)
    0.593
    """

    title = "Lossy acceptance: more accepted, how far from p"

    @checked(rule=OneOf(*LOSSY_RULES), alpha=Between(*LOSSY_ALPHA_RANGE), draft=OneOf(*LOSSY_DRAFTS),
             lenience=Between(*LENIENCE_RANGE), epsilon=Between(*EPSILON_RANGE), delta=Between(*DELTA_RANGE))
    def __init__(self, rule="typical", alpha=0.6, draft="over-trusts B", lenience=0.5, epsilon=MEDUSA_EPSILON,
                 delta=MEDUSA_DELTA):
        controls = {
            "rule": labelled(widgets.Dropdown, "rule", label_above=True, value=rule, layout=widgets.Layout(width="24em"),
                             options=[(label, name) for name, label in LOSSY_RULE_LABELS.items()]),
            "alpha": slider("exact α", alpha, LOSSY_ALPHA_RANGE, 0.05, readout_format=".2f"),
            "draft": labelled(widgets.Dropdown, "draft", label_above="compact", options=list(LOSSY_DRAFTS), value=draft,
                              layout=widgets.Layout(width="24em")),
            "lenience": slider("lenient λ", lenience, LENIENCE_RANGE, 0.05, readout_format=".2f"),
            "epsilon": slider("typical ε", epsilon, EPSILON_RANGE, 0.01, readout_format=".2f"),
            "delta": slider("typical δ", delta, DELTA_RANGE, 0.05, readout_format=".2f"),
        }
        super().__init__(controls, [["rule", "alpha"], ["draft", "lenience"], ["epsilon", "delta"]],
                         LossyFigure(token_labels(LOSSY_TARGET.size), len(LENIENCE_SWEEP)),
                         # compact: the rule, the draft and λ above the key lines (inside a 480 px window)
                         compact_rows=([["rule"], ["draft"], ["lenience"]], [["alpha"], ["epsilon"], ["delta"]]))

    def compute(self) -> dict:
        values = {name: self.value(name) for name in ("rule", "alpha", "draft", "lenience", "epsilon", "delta")}
        p = LOSSY_TARGET
        q = lossy_draft(LOSSY_DRAFTS[values["draft"]], values["alpha"])
        law = lossy_law(values["rule"], p, q, lenience=values["lenience"], epsilon=values["epsilon"],
                        delta=values["delta"])
        exact, greedy = lossy_law("exact", p, q), lossy_law("greedy", p, q)
        lenient = [lossy_law("lenient", p, q, lenience=value) for value in LENIENCE_SWEEP]
        typical = [lossy_law("typical", p, q, epsilon=value, delta=values["delta"]) for value in EPSILON_SWEEP]
        lenient_curve, typical_curve = (([law.acceptance for law in laws], [law.tv for law in laws])
                                        for laws in (lenient, typical))
        self.picture.update(law.accepted, law.output - law.accepted, p, q,
                            f"{values['rule']}: accepts {law.acceptance:.2f}, TV from p {law.tv:.3f}",
                            lenient_curve, typical_curve, (exact.acceptance, exact.tv), (greedy.acceptance, greedy.tv),
                            (law.acceptance, law.tv))
        return {**values, "law": law, "exact_acceptance": exact.acceptance, "gain": law.acceptance - exact.acceptance,
                "threshold": typical_threshold(p, values["epsilon"], values["delta"]),
                "lenient_curve": lenient_curve, "typical_curve": typical_curve}

    def describe(self, shown: dict) -> Readout:
        law, rule = shown["law"], shown["rule"]
        settings = {
            "typical": ["accepts x when p(x) > min(ε, δ·e^(−H(p))) = ", bold(f"{shown['threshold']:.3f}"),
                        f" (ε = {shown['epsilon']:.2f}, δ = {shown['delta']:.2f})"],
            "lenient": [f"accepts x outright when p(x)/q(x) ≥ λ = {shown['lenience']:.2f}"],
            "greedy": ["keeps the draft token only if it is the target's top token"],
            "exact": ["accepts x with probability min(1, p(x)/q(x))"],
        }
        name = LOSSY_RULE_LABELS[rule].split(":")[0]  # a label "name: what it does" is named by its name alone
        change = f"{round(shown['gain'], 3) + 0.0:+.3f}".replace("-", "−")  # + 0.0 turns −0.0 into 0.0: no "−0.000"
        return Readout([
            line(bold(name), ": ", *settings[rule], key=True),
            line("Acceptance rate ", bold(f"{law.acceptance:.3f}"), f" against the exact rule's α = "
                 f"{shown['exact_acceptance']:.3f}: change ", bold(change), key=True),
            line("TV distance of the output from p: ", bold(f"{law.tv:.3f}"),
                 " (exact: the output is p)" if law.tv < 1e-9 else "", key=True),
        ])
