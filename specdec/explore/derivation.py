"""Accepted part + resampled part = p, token by token, for the learner's own p and q (notebook 03).

For each token the figure stacks the mass that comes out accepted, min(p, q), and resampled,
(1 − α)·r = max(0, p − q) (`specdec.output_law.position_law`): the stack reaches p, whatever q is.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.ticker import FormatStrFormatter, MaxNLocator

from .. import palette
from ..output_law import position_law
from ..narrate import SPEC_DRAFT_PROBS, SPEC_TARGET_PROBS, token_labels
from ..validation import Distribution, checked
from .frame import (Explorer, FastRedraw, Picture, Readout, bold, compact, line, new_figure, nice_top, role_style,
                    slider, styled)

DERIVATION_VOCAB_MAX = 8  #: the derivation explorer gives one slider per token to at most this many tokens


def target_and_draft_marks(axes, positions, draft_size: float, **target_style):
    """p as outlined bars (`target_style`: more of their keywords) and q as diamonds over the tokens at
    `positions`, all at height 0 for now."""
    zeros = np.zeros(len(positions))
    target, draft = palette.ROLES["target"], palette.ROLES["draft"]
    bars = axes.bar(positions, zeros, width=0.8, fill=False, edgecolor=target.colour, linewidth=2.5,
                    label=target.labelled("outline"), **target_style)
    (marks,) = axes.plot(positions, zeros, linestyle="none", marker="D", markersize=draft_size,
                         color=draft.colour, markeredgecolor=palette.HIGHLIGHT, label=draft.label)
    return bars, marks


def set_stack(bars, accepted, resampled, target, draft) -> None:
    """Set the marks (accepted bars, resampled bars, p bars, q marks) of an output law: resampled on accepted."""
    for accepted_bar, resampled_bar, target_bar, low, high, top in zip(*bars[:3], accepted, resampled, target):
        accepted_bar.set_height(low)
        resampled_bar.set(y=low, height=high)
        target_bar.set_height(top)
    bars[3].set_ydata(draft)


def slider_row(value, name: str, arguments) -> np.ndarray:
    """A distribution over 2 … `DERIVATION_VOCAB_MAX` tokens: one slider per token."""
    row = Distribution()(value, name, arguments)
    if not 2 <= row.size <= DERIVATION_VOCAB_MAX:
        raise ValueError(f"{name} must have 2 … {DERIVATION_VOCAB_MAX} tokens for the sliders, got {row.size}")
    return row


class DerivationFigure(Picture):
    """Accepted part + resampled part = p, token by token, with q beside it.

    Examples
    --------
    >>> picture = DerivationFigure(["A", "B", "C", "D"])
    >>> picture.update(position_law([0.5, 0.3, 0.2, 0.0], [0.25] * 4))
    >>> [round(float(bar.get_y() + bar.get_height()), 3) for bar in picture.resampled_bars]
    [0.5, 0.3, 0.2, 0.0]
    """

    def __init__(self, labels):
        positions, zeros, short = np.arange(len(labels)), np.zeros(len(labels)), compact()  # short: shorter labels
        parts = dict(width=0.6, edgecolor="white", linewidth=0.5, zorder=2)  # above the grid (zorder 1.5)
        with styled():
            self.figure = new_figure(7.5, 4.2)
            self.axes = axes = self.figure.add_subplot()
            self.accepted_bars, self.resampled_bars = (
                axes.bar(positions, zeros, **role_style(role), **parts, label=palette.ROLES[role].labelled(detail))
                for role, detail in (("accepted", "min(p, q)" if short else "q·min(1, p/q) = min(p, q)"),
                                     ("resampled", "max(0, p − q)" if short else "(1 − α)·r = max(0, p − q)")))
            self.target_bars, self.draft_marks = target_and_draft_marks(axes, positions, draft_size=9, zorder=2)
            self.law_marks = self.accepted_bars, self.resampled_bars, self.target_bars, self.draft_marks
            axes.set(title="Where each output token comes from", xlabel="token",
                     ylabel="probability" if short else "probability of being emitted", ylim=(0, 1.05),
                     xlim=(-0.6, len(labels) - 0.4), xticks=positions, xticklabels=list(labels))
            axes.yaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]))
            axes.yaxis.set_major_formatter(FormatStrFormatter("%.2f"))  # labels of one width
            axes.grid(axis="y", color=palette.NEUTRAL, alpha=0.25)
            # Under the axes, so that the y limit can follow the bars without meeting the legend.
            self.figure.legend(handles=self.law_marks, loc="outside lower center", ncols=2)
        # The spines change with the bars, so that they are drawn over them, as in a full draw.
        self.fast = FastRedraw(self.figure, [*self.accepted_bars, *self.resampled_bars, *self.target_bars,
                                             self.draft_marks, *axes.spines.values()], occasional=[axes.yaxis])

    def update(self, law) -> None:
        """Show a `specdec.output_law.PositionLaw`."""
        set_stack(self.law_marks, law.accepted, law.resampled, law.target, law.draft)
        top = nice_top(max(float(np.max(law.target)), float(np.max(law.draft))))
        if top != self.axes.get_ylim()[1]:
            self.axes.set_ylim(0, top)
            self.fast.invalidate()


class DerivationExplorer(Explorer):
    """Sliders for p and q; bars showing accepted part + resampled part = p for every token.

    Parameters
    ----------
    target, draft : array_like of shape (V,), optional
        Starting p and q (2 ≤ V ≤ 8); by default the worked example's.

    Attributes
    ----------
    controls : "p0" …, "q0" …: a weight slider per token and model (each row normalised), and buttons
        that set q: "q = p" (α = 1), "q on one token" (the token the starting p gives the least weight
        above 0: C in the worked example) and "q where p has none" (α = 0; disabled while p has no zero).
    shown : law (a `specdec.output_law.PositionLaw`) and largest_gap (max |accepted + resampled − p|).

    Examples
    --------
    >>> explorer = DerivationExplorer()
    >>> explorer.shown["law"].acceptance_rate
    0.7
    >>> explorer.controls["q0"].value = 1.0
    >>> explorer.shown["largest_gap"] < 1e-12
    True
    """

    title = "Accepted part + resampled part = p"

    @checked(target=slider_row, draft=Distribution(like="target"))
    def __init__(self, target=SPEC_TARGET_PROBS[0], draft=SPEC_DRAFT_PROBS[0]):
        self.labels = labels = token_labels(target.size)
        width = widgets.Layout(width="17em")
        controls = {f"{name}{i}": slider(f"{model} weight of {label}", round(float(values[i]), 2), (0.0, 1.0), 0.01,
                                         readout_format=".2f", layout=width)
                    for name, values, model in (("p", target, "target"), ("q", draft, "draft"))
                    for i, label in enumerate(labels)}
        one = int(np.argmin(np.where(target > 0, target, np.inf)))  # the Predict's token: C in the example
        for name, description, tooltip in (
                ("q = p", "q = p", "q takes p's weights: every draft token is accepted"),
                ("q on one token", f"all of q on {labels[one]}", f"all of q's weight on {labels[one]}"),
                ("q where p has none", "q where p has none",
                 "q's weight only on tokens p never produces: nothing is accepted")):
            controls[name] = widgets.Button(description=description, tooltip=tooltip,
                                            layout=widgets.Layout(width="auto"))
        rows = [[f"p{i}" for i in range(target.size)], [f"q{i}" for i in range(target.size)],
                ["q = p", "q on one token", "q where p has none"]]
        super().__init__(controls, rows, DerivationFigure(labels), compact_rows=([rows[2]], [rows[1], rows[0]]))
        self.on_click("q = p", lambda: self.set_q(self.weights("p")))
        self.on_click("q on one token", lambda: self.set_q(np.arange(target.size) == one))
        self.on_click("q where p has none", self.q_where_p_has_none)

    def weights(self, name: str) -> np.ndarray:
        """The slider values of row `name` ("p" or "q"), as they are (not normalised)."""
        return np.array([self.value(f"{name}{i}") for i in range(len(self.labels))])

    def set_q(self, values) -> None:
        """Set every q slider (a button's action: the view is drawn once)."""
        for i, value in enumerate(np.asarray(values, dtype=float)):
            self.controls[f"q{i}"].value = round(float(value), 2)

    def q_where_p_has_none(self) -> None:
        """Spread q over the tokens p gives no weight, if there are any."""
        empty = self.weights("p") == 0
        if empty.any():
            self.set_q(empty)

    def compute(self) -> dict:
        p, q = (self.weights(name) for name in "pq")
        uniform = np.full(p.size, 1.0 / p.size)
        law = position_law(p / p.sum() if p.sum() > 0 else uniform, q / q.sum() if q.sum() > 0 else uniform)
        self.picture.update(law)
        self.controls["q where p has none"].disabled = bool((p > 0).all())
        return {"law": law, "largest_gap": float(np.abs(law.total - law.target).max()),
                "uniform": [name for name, row in (("p", p), ("q", q)) if row.sum() == 0]}

    def describe(self, shown: dict) -> Readout:
        law, empty = shown["law"], shown["uniform"]
        alpha = law.acceptance_rate
        each = f"{1 / len(self.labels):.3f} for each token"  # a uniform row's weight
        uniform = (f"All weights of p and of q are 0: both are taken as uniform, {each}." if len(empty) == 2 else
                   f"All weights of {empty[0]} are 0: {empty[0]} is taken as uniform, {each}." if empty else None)
        return Readout([
            line("α = Σ min(p, q) = ", bold(f"{alpha:.3f}"), f"; a rejection happens with probability 1 − α = "
                 f"{1 - alpha:.3f}.", key=True),
            *([line(uniform, key=False)] if uniform else []),
            line("token: p, q → accepted + resampled = sum"),
            *(line(f"{label}: {p:.3f}, {q:.3f} → {a:.3f} + {r:.3f} = ", bold(f"{a + r:.3f}"), key=False)
              for label, p, q, a, r in zip(self.labels, law.target, law.draft, law.accepted, law.resampled)),
            line("Largest |sum − p| over the tokens: ", bold(f"{shown['largest_gap']:.1e}"),
                 ". The sum is p, whatever q is; only α, how often the draft is kept, depends on q.", key=True),
        ])
