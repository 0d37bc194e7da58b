"""α and temperature, down to greedy decoding at T = 0 (notebook 06).

Seeded Gaussian logits (`specdec.temperature`) become p and q at two temperatures. Left: p and q, a
triangle over each greedy pick. Right: α as the draft's temperature alone changes and as both share one.
"""

from __future__ import annotations

import functools

import ipywidgets as widgets
import numpy as np

from .. import palette
from ..core import acceptance_rate
from ..narrate import token_labels
from ..temperature import alpha_over_temperatures, related_logits, softmax
from ..theory import tv_distance
from ..validation import Between, Count, checked
from .frame import (COMPACT_FIGURE_INCHES, SEED_SLIDER_MAX, Explorer, FastRedraw, Picture, Readout, bold, compact, line,
                    new_figure, panel_axes, role_style, slider, styled)

TEMPERATURE_SLIDER_MAX = 3.0  #: the temperature explorer's sliders offer 0 … 3
#: The logits' vocabulary; the temperatures' step on the sliders and the curves.
TEMPERATURE_VOCAB = 10
TEMPERATURE_STEP = 0.05
TEMPERATURE_GRID = np.round(np.arange(0.0, TEMPERATURE_SLIDER_MAX + TEMPERATURE_STEP / 2, TEMPERATURE_STEP), 10)


class TemperatureFigure(Picture):
    """p and q after temperature (left); α against the draft temperature and a shared one (right).

    `labels`: one name per token; `temperatures`: from 0 up, those of the two α curves.

    Examples
    --------
    >>> picture = TemperatureFigure(["A", "B"], [0.0, 1.0])
    >>> picture.update(target=[0.6, 0.4], draft=[0.3, 0.7], picks=(0, 1), draft_temperature=1.0, alpha=0.7,
    ...                alpha_over_draft_temperature=[0.6, 0.7], alpha_over_shared_temperature=[0.0, 0.7])
    >>> list(picture.greedy_marker.get_ydata())
    [0.0]
    """

    def __init__(self, labels, temperatures):
        small = compact()  # presentation mode: shorter labels, fewer ticks, more room above 1 for the legends
        axis = dict(ylim=(0, 2.2 if small else 1.5), yticks=np.linspace(0, 1, 3 if small else 6))
        positions, zeros = np.arange(len(labels)), np.zeros(len(labels))
        pick = dict(linestyle="none", marker="v", markersize=10, markeredgecolor=palette.HIGHLIGHT)
        target, draft = palette.ROLES["target"], palette.ROLES["draft"]
        with styled():
            self.figure = new_figure(9.5, 3.8, compact_size=COMPACT_FIGURE_INCHES)
            self.bars_axes, self.curve_axes = bars_axes, curve_axes = panel_axes(self.figure, 2)
            self.target_bars = bars_axes.bar(positions - 0.2, zeros, width=0.38, **role_style("target"),
                                             label=target.label)
            self.draft_bars = bars_axes.bar(positions + 0.2, zeros, width=0.38, **role_style("draft"),
                                            edgecolor=palette.HIGHLIGHT, linewidth=0.4, label=draft.label)
            self.target_pick, self.draft_pick = (
                bars_axes.plot([0], [0], markerfacecolor=role.colour, **pick,
                               label=role.labelled("pick" if small else "greedy pick"))[0] for role in (target, draft))
            # Headroom above 1 keeps the legend clear of a one-hot bar and its greedy-pick triangle.
            bars_axes.set(title="p and q after temperature", xlabel="token", ylabel="probability",
                          xlim=(-0.6, len(labels) - 0.4), xticks=positions, xticklabels=list(labels), **axis)
            bars_axes.legend(loc="upper left", ncols=2)
            flat = np.zeros(len(temperatures))
            (self.shared_line,) = curve_axes.plot(temperatures, flat, color=palette.NEUTRAL, linestyle="--",
                                                  linewidth=2, label="both at one T")
            (self.draft_line,) = curve_axes.plot(temperatures, flat, color=palette.HIGHLIGHT, linewidth=2,
                                                 label="draft at the T tried")
            (self.current_marker,) = curve_axes.plot([1], [0], linestyle="none", marker="o", markersize=12,
                                                     markerfacecolor="none", markeredgecolor=palette.HIGHLIGHT,
                                                     markeredgewidth=2, clip_on=False, label="the sliders now")
            (self.greedy_marker,) = curve_axes.plot([0], [0], linestyle="none", marker="s", markersize=10,
                                                    color=palette.HIGHLIGHT, clip_on=False, gid="greedy",
                                                    label="both greedy" if small else "both greedy: α is 0 or 1")
            curve_axes.set(title="α as the temperatures change", xlabel="temperature T", ylabel="α = Σ min(p, q)",
                           **axis, xlim=(-0.05 * temperatures[-1], 1.05 * temperatures[-1]))
            curve_axes.legend(loc="upper right", ncols=2, columnspacing=0.8, handlelength=1.5,
                              handletextpad=0.5)  # packed: as wide as the panel, not past its edge
        self.fast = FastRedraw(self.figure, [*bars_axes.patches, *bars_axes.lines, *curve_axes.lines])  # every mark

    def update(self, target, draft, picks, draft_temperature: float, alpha: float,
               alpha_over_draft_temperature, alpha_over_shared_temperature) -> None:
        """Show p and q with their greedy `picks` (target's, draft's), the two α curves and the current point."""
        for bar, height in zip([*self.target_bars, *self.draft_bars], [*target, *draft]):
            bar.set_height(height)
        for mark, row, pick, shift in zip((self.target_pick, self.draft_pick), (target, draft), picks, (-0.2, 0.2)):
            mark.set_data([pick + shift], [row[pick] + 0.06])  # over the bar of the pick
        self.draft_line.set_ydata(alpha_over_draft_temperature)
        self.shared_line.set_ydata(alpha_over_shared_temperature)
        self.current_marker.set_data([draft_temperature], [alpha])
        self.greedy_marker.set_data([0.0], [alpha_over_shared_temperature[0]])


@functools.lru_cache(maxsize=1)  # the temperature sliders alone keep the logits
def seeded_logits(seed: int):
    """The target's and the draft's logits for `seed`, and α over `TEMPERATURE_GRID` with both at one T."""
    target_logits, draft_logits = related_logits(TEMPERATURE_VOCAB, np.random.default_rng(seed))
    return target_logits, draft_logits, alpha_over_temperatures(target_logits, draft_logits, TEMPERATURE_GRID)


class TemperatureExplorer(Explorer):
    """α as the temperatures of the target and the draft change, down to greedy decoding (T = 0): p and q are
    the softmax at T_p and T_q of seeded `related_logits` over `TEMPERATURE_VOCAB` tokens.

    Parameters
    ----------
    target_temperature, draft_temperature : float in 0 … 3 (0 is greedy decoding)
    seed : int in 0 … 99, the seed of the logits

    Attributes
    ----------
    controls : the parameters' sliders and the buttons "greedy" (both T = 0) and "plain" (both T = 1).
    shown : the temperatures and seed, target, draft, alpha, tv, target_pick and draft_pick (argmax
        tokens), greedy_alpha (both T = 0), and the curves temperatures, alpha_over_draft_temperature
        (drawn over the draft temperatures `tried` only) and alpha_over_shared_temperature.

    Examples
    --------
    >>> explorer = TemperatureExplorer(seed=1)
    >>> explorer.controls["greedy"].click()
    >>> explorer.shown["alpha"] in (0.0, 1.0)
    True
    """

    title = "α and temperature"

    @checked(target_temperature=Between(0.0, TEMPERATURE_SLIDER_MAX),
             draft_temperature=Between(0.0, TEMPERATURE_SLIDER_MAX), seed=Count(0, SEED_SLIDER_MAX))
    def __init__(self, target_temperature=1.0, draft_temperature=1.0, seed=1):
        temperature_slider = dict(limits=(0.0, TEMPERATURE_SLIDER_MAX), step=TEMPERATURE_STEP, readout_format=".2f")
        controls = {
            "target_temperature": slider("target temperature T_p", target_temperature, **temperature_slider),
            "draft_temperature": slider("draft temperature T_q", draft_temperature, **temperature_slider),
            "seed": slider("logits seed", seed, (0, SEED_SLIDER_MAX)),
            "greedy": widgets.Button(description="greedy: both T = 0", tooltip="set both temperatures to 0"),
            "plain": widgets.Button(description="both T = 1", tooltip="set both temperatures to 1"),
        }
        self.labels = token_labels(TEMPERATURE_VOCAB)
        # The draft temperatures tried: the solid curve covers only them (not to give away notebook 06's Predict).
        self.tried = (draft_temperature, draft_temperature)
        super().__init__(controls, [["target_temperature", "draft_temperature"], ["seed", "greedy", "plain"]],
                         TemperatureFigure(self.labels, TEMPERATURE_GRID),
                         # compact: the buttons and T_q (which notebook 06 asks to move) above the key lines
                         compact_rows=([["greedy", "plain"], ["draft_temperature"]],
                                       [["target_temperature"], ["seed"]]))
        self.on_click("greedy", lambda: self.set_both(0.0))
        self.on_click("plain", lambda: self.set_both(1.0))

    def set_both(self, temperature: float) -> None:
        """Set both temperatures (a button's action: the view is drawn once, after both)."""
        self.controls["target_temperature"].value = temperature
        self.controls["draft_temperature"].value = temperature

    def compute(self) -> dict:
        t_p, t_q, seed = self.value("target_temperature"), self.value("draft_temperature"), self.value("seed")
        target_logits, draft_logits, shared_curve = seeded_logits(seed)
        target, draft = softmax(target_logits, t_p), softmax(draft_logits, t_q)
        alpha = acceptance_rate(target, draft)
        draft_curve = alpha_over_temperatures(target_logits, draft_logits, TEMPERATURE_GRID, target_temperature=t_p)
        picks = int(np.argmax(target_logits)), int(np.argmax(draft_logits))
        self.tried = low, high = min(self.tried[0], t_q), max(self.tried[1], t_q)
        tried = (TEMPERATURE_GRID >= low - 1e-9) & (TEMPERATURE_GRID <= high + 1e-9)
        self.picture.update(target, draft, picks, t_q, alpha, np.where(tried, draft_curve, np.nan), shared_curve)
        return {"target_temperature": t_p, "draft_temperature": t_q, "seed": seed, "target": target, "draft": draft,
                "alpha": alpha, "tv": tv_distance(target, draft), "target_pick": picks[0], "draft_pick": picks[1],
                "greedy_alpha": float(shared_curve[0]), "temperatures": TEMPERATURE_GRID,
                "alpha_over_draft_temperature": draft_curve.tolist(),
                "alpha_over_shared_temperature": shared_curve.tolist()}

    def describe(self, shown: dict) -> Readout:
        t_p, t_q = shown["target_temperature"], shown["draft_temperature"]
        p_pick, q_pick = shown["target_pick"], shown["draft_pick"]
        consequence = ("the argmaxes agree, so every draft token is accepted" if p_pick == q_pick
                       else "the argmaxes differ, so every draft token is rejected")
        return Readout([
            line(f"T_p = {t_p:.2f} (target), T_q = {t_q:.2f} (draft)" + (": both greedy" if t_p == t_q == 0 else "")),
            line("α = Σ min(p, q) = ", bold(f"{shown['alpha']:.3f}"), f"; 1 − TV = {1 - shown['tv']:.3f}"),
            line(f"Greedy pick: target {self.labels[p_pick]} (p = {shown['target'][p_pick]:.3f}), "
                 f"draft {self.labels[q_pick]} (q = {shown['draft'][q_pick]:.3f})"),
            line("With both models greedy (T = 0): α = ", bold(f"{shown['greedy_alpha']:.0f}"), f": {consequence}."),
        ])
