"""A batch verified in one pass (notebook 11): each sequence's accepted count, the slots, the slowest sequence.

Left: one verify pass over b sequences, γ + 1 slots each, with the rejected slots the pass scored for
nothing. Right: the passes each sequence needs for its tokens; the batch is done at its slowest.
"""

from __future__ import annotations

import numpy as np

from .. import palette
from ..core import expected_tokens
from ..validation import Count, Probability, checked
from ..serving.batch import batch_run
from .frame import (COMPACT_FIGURE_INCHES, DRAFT_GAMMA_SLIDER_RANGE, SEED_SLIDER_MAX, Explorer, FastRedraw, Picture,
                    Readout, bold, line, new_figure, panel_axes, role_patch, role_style, slider, styled)

BATCH_RANGE = (1, 12)
#: Tokens each sequence generates.
TOKENS_PER_SEQUENCE = 32
STYLES = {"accepted": role_style("accepted"), "resampled": role_style("resampled"), "bonus": role_style("bonus"),
          "rejected": role_style("reject zone")}


class BatchFigure(Picture):
    """The slots of one pass (b rows × γ + 1), and the passes each sequence needs."""

    def __init__(self):
        b, g = BATCH_RANGE[1], DRAFT_GAMMA_SLIDER_RANGE[1] + 1
        with styled():
            self.figure = new_figure(9.6, 4.0, compact_size=COMPACT_FIGURE_INCHES)
            self.slot_axes, self.pass_axes = panel_axes(self.figure, 2)
            rows, columns = np.meshgrid(np.arange(b), np.arange(g), indexing="ij")
            self.slots = self.slot_axes.bar(columns.ravel(), 0.8, bottom=rows.ravel() - 0.4, width=0.85,
                                            edgecolor="white", linewidth=0.6, **STYLES["rejected"])
            self.slot_axes.set(xlabel="slot in the pass", ylabel="sequence", xlim=(-0.6, g - 0.4), ylim=(b - 0.4, -0.6))
            self.pass_bars = self.pass_axes.barh(np.arange(b), np.zeros(b), height=0.7, **role_style("target"))
            self.slowest = self.pass_axes.axvline(np.nan, color=palette.HIGHLIGHT, linewidth=1.5, label="slowest")
            self.mean = self.pass_axes.axvline(np.nan, color=palette.NEUTRAL, linestyle="--", label="mean")
            self.pass_axes.set(xlabel=f"verify passes for {TOKENS_PER_SEQUENCE} tokens", ylabel="sequence",
                               xlim=(0, TOKENS_PER_SEQUENCE + 1), ylim=(b - 0.4, -0.6))
            # One legend under both panels: inside the passes panel, the bars and lines reach it when α is low.
            self.figure.legend(handles=[role_patch("accepted"), role_patch("resampled"), role_patch("bonus"),
                                        role_patch("reject zone", "rejected slot"), self.slowest, self.mean],
                               loc="outside lower center", ncols=3, fontsize="small")
        self.fast = FastRedraw(self.figure, changing=[*self.slots, *self.pass_bars, self.slowest, self.mean])

    def update(self, roles, passes, slowest, mean) -> None:
        for index, slot in enumerate(self.slots):
            row, column = divmod(index, DRAFT_GAMMA_SLIDER_RANGE[1] + 1)
            slot.set_visible(row < roles.shape[0] and column < roles.shape[1])
            if slot.get_visible():
                slot.set(**STYLES[roles[row, column]])
        for i, bar in enumerate(self.pass_bars):
            bar.set_width(passes[i] if i < passes.size else 0)
        self.slowest.set_xdata([slowest] * 2)
        self.mean.set_xdata([mean] * 2)


def pass_roles(accepted_row, gamma: int) -> np.ndarray:
    """(b, γ+1) slot roles of one pass from each sequence's accepted count."""
    roles = np.full((accepted_row.size, gamma + 1), "rejected", dtype=object)
    for i, k in enumerate(accepted_row):
        roles[i, :k] = "accepted"
        roles[i, k] = "bonus" if k == gamma else "resampled"
    return roles


class BatchExplorer(Explorer):
    """b sequences verified together: the first pass's slots, and the passes each needs for its tokens.

    Parameters
    ----------
    batch, gamma, alpha, seed : int in 1 … 12, int in 1 … 8, float in [0, 1], int in 0 … 99

    Examples
    --------
    >>> explorer = BatchExplorer(batch=4)
    >>> explorer.shown["roles"].shape
    (4, 5)
    """

    title = "A batch accepts unevenly"

    @checked(batch=Count(*BATCH_RANGE), gamma=Count(*DRAFT_GAMMA_SLIDER_RANGE), alpha=Probability(),
             seed=Count(0, SEED_SLIDER_MAX))
    def __init__(self, batch=8, gamma=4, alpha=0.7, seed=0):
        controls = {"batch": slider("batch size b", batch, BATCH_RANGE),
                    "gamma": slider("draft length γ", gamma, DRAFT_GAMMA_SLIDER_RANGE),
                    "alpha": slider("acceptance rate α", alpha, (0.0, 1.0), 0.05),
                    "seed": slider("seed", seed, (0, SEED_SLIDER_MAX))}
        super().__init__(controls, [["batch", "gamma"], ["alpha", "seed"]], BatchFigure())

    def compute(self):
        b, gamma, alpha = self.value("batch"), self.value("gamma"), self.value("alpha")
        run = batch_run(alpha, gamma, b, TOKENS_PER_SEQUENCE, np.random.default_rng(self.value("seed")))
        first = run.accepted[0]
        roles = pass_roles(first, gamma)
        self.picture.update(roles, run.passes_per_sequence, run.slowest_passes, run.mean_passes)
        return {"run": run, "roles": roles, "first_tokens": int((first + 1).sum()),
                "rejected_slots": int((gamma - first).sum()), "slots": b * (gamma + 1),
                "expected_per_pass": b * expected_tokens(alpha, gamma)}

    def describe(self, shown):
        run, tokens = shown["run"], shown["first_tokens"]
        return Readout([
            line("First pass: ", bold(f"{tokens} {'token' if tokens == 1 else 'tokens'}"), f" from {shown['slots']} "
                 f"slots scored, {shown['rejected_slots']} rejected; accepted per sequence {run.accepted[0].tolist()}"),
            line("Tokens per pass on average: b · E[N] = ", bold(f"{shown['expected_per_pass']:.1f}")),
            line(f"Passes for {TOKENS_PER_SEQUENCE} tokens: mean ", bold(f"{run.mean_passes:.1f}"), ", slowest ",
                 bold(str(run.slowest_passes))),
        ])
