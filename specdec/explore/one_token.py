"""One token (notebook 01): edit p and q by hand and watch α, the overlap and the residual respond.

A slider per token sets a raw weight for p and for q: each row is divided by its sum (a row of zeros is drawn at
zero, with a note that it needs some mass), and every number comes from the core. Presets fill the sliders (the
worked example, q = p, disjoint rows, seeded `random_rows`), the random one again when the closeness or seed moves.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from ipywidgets.widgets.widget_string import HTMLStyle
from matplotlib.ticker import FormatStrFormatter, MaxNLocator

from .. import palette, validation
from ..core import acceptance_rate, expected_tokens, residual_distribution
from ..validation import Count, Probability, checked
from ..narrate import SPEC_DRAFT_PROBS, SPEC_TARGET_PROBS, random_rows, token_labels
from ..theory import kl_divergence, tv_distance
from .frame import (GAMMA_SLIDER_MAX, STEP_SEED_SLIDER_MAX, VOCAB_SLIDER_MIN, Explorer, FastRedraw, Picture, Readout,
                    bold, compact, line, new_figure, nice_top, role_style, slider, styled, table)

ONE_TOKEN_VOCAB_SLIDER_MAX = 12  #: the one-token explorer's V slider: each token has its own bar and label
WEIGHT_STEP = 0.01  #: the weight sliders' step; presets round to it, so that a slider shows exactly its weight
NEW_TOKEN_WEIGHT = 0.1  #: the weight of p and of q that a token starts with when a larger V first brings it in

_ROW_WIDTH, _ROW_OFFSET = 0.27, 0.29  # three bars per token above: p, min(p, q), q
_BAR_WIDTH, _OFFSET = 0.38, 0.2  # two below: max(0, p − q), r


class OneTokenFigure(Picture):
    """p, q and their overlap min(p, q) (whose area is α) above; max(0, p − q) and the residual r below.

    All bars for up to `max_vocab` tokens exist from the start; a smaller vocabulary hides the rest.

    Examples
    --------
    >>> picture = OneTokenFigure(max_vocab=4)
    >>> picture.update([0.5, 0.3, 0.2, 0.0], [0.25] * 4, [5 / 6, 1 / 6, 0, 0], list("ABCD"), 0.7)
    >>> [round(float(bar.get_height()), 2) for bar in picture.overlap_bars]
    [0.25, 0.25, 0.2, 0.0]
    """

    def __init__(self, max_vocab: int = ONE_TOKEN_VOCAB_SLIDER_MAX):
        self._positions = np.arange(max_vocab)
        with styled():
            self.figure = new_figure(7.4, 5.0)
            self.rows_axes, self.residual_axes = rows, residual = self.figure.subplots(
                2, 1, sharex=True, height_ratios=[3, 2])
            self.target_bars = self._bars(rows, -_ROW_OFFSET, _ROW_WIDTH, "target")
            self.overlap_bars = self._bars(rows, 0, _ROW_WIDTH, "accepted", "overlap\nmin(p, q),\nsums to α",
                                           edgecolor="white")
            self.draft_bars = self._bars(rows, _ROW_OFFSET, _ROW_WIDTH, "draft", edgecolor="white")
            self.excess_bars = self._bars(residual, -_OFFSET, _BAR_WIDTH, "resampled", "\nmax(0, p − q)",
                                          edgecolor="white")
            self.residual_bars = self._bars(residual, _OFFSET, _BAR_WIDTH, "resampled", "\nresidual r\n(normalised)",
                                            facecolor="white", edgecolor=palette.RESAMPLED, linewidth=1.2)
            residual.set_xlabel("token")
            titles, notes = [], []
            self.short = short = compact()  # the compact figure: titles that clear the right-hand ones
            for axes, title in ((rows, "p, q, min(p, q)" if short else "p, q and overlap min(p, q)"),
                                (residual, "" if short else "max(0, p − q) and residual r")):
                axes.set_ylabel("probability")
                axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
                axes.set_title(title, loc="left", y=1.0)
                titles.append(axes.set_title(" ", loc="right", y=1.0))
                notes.append(axes.text(0.5, 0.6, "", transform=axes.transAxes, ha="center", va="center", fontsize=11,
                                       zorder=5, bbox=dict(facecolor="white", edgecolor=palette.NEUTRAL, alpha=0.9)))
                axes.grid(axis="y", color=palette.NEUTRAL, alpha=0.25, zorder=0)
                axes.yaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]))
                axes.yaxis.set_major_formatter(FormatStrFormatter("%.2f"))  # one width: the frozen layout fits
            (self.rows_title, self.residual_title), (self.rows_note, self.residual_note) = titles, notes
        self._labels = self._limits = None
        self.fast = FastRedraw(self.figure, changing=[
            *self._all_bars(), *titles, *notes, *rows.spines.values(), *residual.spines.values()],
            occasional=[rows.xaxis, rows.yaxis, residual.xaxis, residual.yaxis])

    def _bars(self, axes, offset: float, width: float, role: str, detail: str = "", **style):
        """A bar per token, `offset` from it, at height 0 for now: role `role`'s look and label (then `detail`)."""
        return axes.bar(self._positions + offset, np.zeros(self._positions.size), width,
                        **{**role_style(role), **style}, label=palette.ROLES[role].labelled(detail), zorder=2)

    def _all_bars(self) -> list:
        return [*self.target_bars, *self.overlap_bars, *self.draft_bars, *self.excess_bars, *self.residual_bars]

    def update(self, target, draft, residual, labels, alpha, note: str = "") -> None:
        """Show normalised rows p and q (None for a row without mass, with `note` saying why), the
        residual norm(max(0, p − q)) as the core computed it (None when it has no mass), and α."""
        vocab, complete = len(labels), target is not None and draft is not None
        if labels != self._labels:  # a new V: every bar hidden, then those of its tokens with a height shown
            for bar in self._all_bars():
                bar.set_visible(False)
            self.residual_axes.set(xticks=range(vocab), xticklabels=labels, xlim=(-0.6, vocab - 0.4))
        p, q = (np.zeros(vocab) if row is None else np.asarray(row, dtype=float) for row in (target, draft))
        overlap, excess = (np.minimum(p, q), np.maximum(p - q, 0.0)) if complete else np.zeros((2, vocab))
        r = np.asarray(residual, dtype=float) if residual is not None and complete else np.zeros(vocab)
        for bars, heights in ((self.target_bars, p), (self.draft_bars, q), (self.overlap_bars, overlap),
                              (self.excess_bars, excess), (self.residual_bars, r)):
            for bar, height in zip(bars, heights):
                bar.set_height(height)
                bar.set_visible(height > 0)  # an empty bar would still draw its edge at 0
        self.rows_title.set_text(f"α = {'—' if alpha is None else f'{alpha:.3f}'}")
        self.residual_title.set_text(f"1 − α = {'—' if alpha is None else f'{1 - alpha:.3f}'}")
        residual_note = ("" if not complete or residual is not None else "p = q: no mass,\nnever rejected"
                         if self.short else "p = q: max(0, p − q) has no mass,\nso no token is ever rejected")
        for text, message in ((self.rows_note, note), (self.residual_note, residual_note)):
            text.set_text(message)
            text.set_visible(bool(message))
        limits = (nice_top(max(p.max(), q.max())), nice_top(max(excess.max(), r.max())))
        if (labels, limits) != (self._labels, self._limits):  # the state of both axes: seen before, its pixels are kept
            self.rows_axes.set_ylim(0, limits[0])
            self.residual_axes.set_ylim(0, limits[1])
            self._labels, self._limits = list(labels), limits
            self.fast.invalidate((vocab, limits))


def _weights(value, name, arguments):
    """A declared check: 2 … 12 raw weights, each in [0, 1] (a slider's range), as a float array."""
    weights = validation.as_float_array(value, name, 1)
    if not VOCAB_SLIDER_MIN <= weights.size <= ONE_TOKEN_VOCAB_SLIDER_MAX:
        raise ValueError(f"{name} must have {VOCAB_SLIDER_MIN} … {ONE_TOKEN_VOCAB_SLIDER_MAX} weights (one per token), "
                         f"got {weights.size}")
    if (outside := ~((weights >= 0) & (weights <= 1))).any():  # NaN counts as outside
        index = int(np.argmax(outside))
        raise ValueError(f"{name}[{index}] = {weights.item(index)!r}: each weight must be in [0, 1] (a slider's range)")
    if "target" in arguments and name == "draft":
        validation.same_vocabulary(arguments["target"], "target", weights, "draft")
    return weights


class OneTokenExplorer(Explorer):
    """One token: sliders for p and q, their overlap α, TV, KL and the residual.

    Parameters
    ----------
    target, draft : sequence of 2 … 12 weights in [0, 1]
        Initial raw weights of p and q (same length V); by default the worked example's.
    gamma : int in 0 … 8
        The draft length at which the readout gives the expected tokens per step.
    closeness, seed : float in [0, 1], int in 0 … 999
        Initial values of the sliders the random preset uses.

    Attributes
    ----------
    controls : "vocab", "gamma", "closeness", "seed", a weight slider per token and row ("p A", "q A",
        …, "q L") and the presets "worked example", "identical", "disjoint", "random".
    shown : vocab, labels, gamma, target, draft (normalised rows, None without mass), missing, alpha,
        tv, kl, excess, residual, expected_tokens, readout.

    Examples
    --------
    >>> explorer = OneTokenExplorer()
    >>> explorer.shown["alpha"], explorer.shown["residual"].round(3).tolist()
    (0.7, [0.833, 0.167, 0.0, 0.0])
    >>> explorer.controls["identical"].click()
    >>> explorer.shown["alpha"]
    1.0
    """

    title = "One token: the acceptance rule and the residual"

    @checked(target=_weights, draft=_weights, gamma=Count(0, GAMMA_SLIDER_MAX), closeness=Probability(),
             seed=Count(0, STEP_SEED_SLIDER_MAX))
    def __init__(self, target=SPEC_TARGET_PROBS[0], draft=SPEC_DRAFT_PROBS[0], gamma=4, closeness=0.5, seed=0):
        narrow = compact()  # the compact layout's side column is 16em wide
        self.labels = token_labels(ONE_TOKEN_VOCAB_SLIDER_MAX)
        controls = {
            "vocab": slider("number of tokens V", target.size, (VOCAB_SLIDER_MIN, ONE_TOKEN_VOCAB_SLIDER_MAX)),
            "gamma": slider("draft length γ (for expected tokens)", gamma, (0, GAMMA_SLIDER_MAX),
                            layout=widgets.Layout(width="30em")),
            "closeness": slider("random preset: closeness of q to p", closeness, (0, 1), 0.05,
                                layout=widgets.Layout(width="32em")),
            "seed": slider("random preset: seed", seed, (0, STEP_SEED_SLIDER_MAX), layout=widgets.Layout(width="28em")),
        }
        # One layout and one style for all 24 weight sliders, one for their labels: the saved notebook stores each once.
        shared = dict(min=0, max=1, step=WEIGHT_STEP, readout_format=".2f", layout=widgets.Layout(
            width="11.5em" if narrow else "17em"), style=widgets.SliderStyle(description_width="initial"))
        label_traits = dict(layout=widgets.Layout(width="3.5em" if narrow else "5em"), style=HTMLStyle())
        self.normalised = {"p": [], "q": []}  # per row, the normalised weight shown beside each slider
        self.weight_lines = {"p": [], "q": []}  # per row, each token's slider-and-value line, hidden beyond V
        columns = []
        for row, role, initial in (("p", palette.ROLES["target"], target), ("q", palette.ROLES["draft"], draft)):
            for index, label in enumerate(self.labels):
                value = float(initial[index]) if index < initial.size else NEW_TOKEN_WEIGHT
                controls[f"{row} {label}"] = widgets.FloatSlider(value=value, description=f"{row}({label})", **shared)
                self.normalised[row].append(widgets.HTML(**label_traits))
                self.weight_lines[row].append(widgets.HBox([controls[f"{row} {label}"], self.normalised[row][-1]]))
            heading = widgets.HTML(f"<b style='color:{role.colour}'>{role.label}</b>: raw weight → normalised")
            columns.append(widgets.VBox([heading, *self.weight_lines[row]],
                                        layout=widgets.Layout(margin="0" if narrow else "0 2em 0 0")))
        presets = {"worked example": ("the worked example", "p = (0.5, 0.3, 0.2, 0), q uniform, V = 4",
                                      self.apply_worked_example),
                   "identical": ("identical (q = p)", "q takes p's weights", self.apply_identical),
                   "disjoint": ("disjoint support", "p and q share no token", self.apply_disjoint),
                   "random": ("random (seed, closeness)", "seeded Dirichlet rows", self.apply_random)}
        for name, (text, tooltip, _method) in presets.items():
            controls[name] = widgets.Button(description=text, tooltip=tooltip, layout=widgets.Layout(width="auto"))
        rows = [["vocab", "gamma"], list(presets), ["closeness", "seed"], [widgets.HBox(columns)]]
        # Compact: the presets, the key lines, then q's sliders (the row a learner moves first), then p's.
        compact_rows = ([list(presets)], [[columns[1]], [columns[0]], ["vocab", "gamma"], ["closeness", "seed"]])
        super().__init__(controls, rows, OneTokenFigure(max_vocab=ONE_TOKEN_VOCAB_SLIDER_MAX), compact_rows)
        for name, (_description, _tooltip, method) in presets.items():
            self.on_click(name, method)
        for name in ("closeness", "seed"):
            self.on_change(name, self.apply_random)

    def set_rows(self, p_values=None, q_values=None) -> None:
        """Set the first weight sliders of p and of q (either may be None: left as it is)."""
        with self.batch():
            for row, values in (("p", p_values), ("q", q_values)):
                for label, value in zip(self.labels, [] if values is None else values):
                    self.controls[f"{row} {label}"].value = float(value)

    def apply_worked_example(self) -> None:
        self.controls["vocab"].value = len(SPEC_TARGET_PROBS[0])
        self.set_rows(SPEC_TARGET_PROBS[0], SPEC_DRAFT_PROBS[0])

    def apply_identical(self) -> None:
        self.set_rows(q_values=self.raw_weights("p"))

    def apply_disjoint(self) -> None:
        vocab = self.value("vocab")
        half = (vocab + 1) // 2
        self.set_rows([1.0] * half + [0.0] * (vocab - half), [0.0] * half + [1.0] * (vocab - half))

    def apply_random(self) -> None:
        p, q = random_rows(1, self.value("vocab"), self.value("closeness"), np.random.default_rng(self.value("seed")))
        self.set_rows(*([round(float(value), 2) for value in rows[0]] for rows in (p, q)))

    def raw_weights(self, row: str) -> np.ndarray:
        """The slider values of `row` ("p" or "q") for the V tokens in play."""
        return np.array([self.value(f"{row} {label}") for label in self.labels[: self.value("vocab")]])

    def compute(self) -> dict:
        vocab, gamma = self.value("vocab"), self.value("gamma")
        labels, rows = self.labels[:vocab], {}
        for row in ("p", "q"):
            weights = self.raw_weights(row)
            rows[row] = weights / weights.sum() if weights.sum() > 0 else None
            for index, weight_line in enumerate(self.weight_lines[row]):
                weight_line.layout.display = None if index < vocab else "none"
            for index, shown_weight in enumerate(self.normalised[row][:vocab]):
                shown_weight.value = "→ —" if rows[row] is None else f"→ {rows[row][index]:.3f}"
        p, q = rows["p"], rows["q"]
        shown = {"vocab": vocab, "labels": labels, "gamma": gamma, "target": p, "draft": q,
                 "missing": [row for row in ("p", "q") if rows[row] is None]}
        if shown["missing"]:  # the figure's note: short enough for the compact figure
            note = ("every weight of p\nand of q is 0:\nraise a slider in each row" if len(shown["missing"]) == 2 else
                    f"every weight of {shown['missing'][0]} is 0:\nraise one of its sliders")
            self.picture.update(p, q, None, labels, None, note=note)
            shown.update(alpha=None, tv=None, kl=None, excess=None, residual=None, expected_tokens=None)
            return shown
        alpha = acceptance_rate(p, q)
        shown.update(alpha=alpha, tv=tv_distance(p, q), kl=kl_divergence(p, q), excess=np.maximum(p - q, 0.0),
                     residual=residual_distribution(p, q), expected_tokens=expected_tokens(alpha, gamma))
        self.picture.update(p, q, shown["residual"] if shown["excess"].sum() > 0 else None, labels, alpha)
        return shown

    def describe(self, shown: dict) -> Readout:
        if shown["missing"]:
            name = {"p": "the target p", "q": "the draft q"}[shown["missing"][0]]
            empty = ("Every weight of p and of q is 0: raise a slider in each row." if len(shown["missing"]) == 2 else
                     f"Every weight of {name} is 0: raise one of its sliders.")
            return Readout([line(bold(empty)),
                            line("A row of weights becomes a distribution by dividing it by its sum; when the sum is 0 "
                                 "there is nothing to divide, so that row needs some mass before α, TV, KL or the "
                                 "residual mean anything.")])
        kl, gamma, labels, p, q = shown["kl"], shown["gamma"], shown["labels"], shown["target"], shown["draft"]
        drafts = "draft token" if gamma == 1 else "draft tokens"
        formula = "(1 − α^(γ+1)) / (1 − α)" if shown["alpha"] < 1 else "γ + 1"  # at α = 1 the quotient is 0/0
        impossible = [label for label, p_x, q_x in zip(labels, p, q) if p_x > 0 and q_x == 0]  # where KL is infinite
        kl_line = line(f"KL(p‖q) = Σ p log(p/q) = {kl:.4f} nats") if not np.isinf(kl) else line(
            f"KL(p‖q) = ∞: q gives probability 0 to {', '.join(impossible)}, which p can produce, so log(p/q) is "
            f"infinite there. α stays finite: the draft never proposes "
            f"{'that token' if len(impossible) == 1 else 'those tokens'}, and the residual puts p's mass back.")
        residual = shown["residual"] if shown["excess"].sum() > 0 else np.zeros(len(labels))
        masses = ", ".join(f"{label} {value:.3f}" for label, value in zip(labels, residual) if value > 0)
        residual_line = line(f"residual r = norm(max(0, p − q)) puts its mass on {masses}") if masses else line(
            "p = q, so max(0, p − q) has no mass: a draft token is never rejected, and no residual is needed")
        return Readout([
            line(bold(f"α = Σ min(p, q) = {shown['alpha']:.3f}"), key=True),
            line(f"TV(p, q) = ½ Σ |p − q| = {shown['tv']:.3f} = 1 − α", key=True),
            kl_line, residual_line,
            line(f"γ = {gamma}: ", bold(f"{shown['expected_tokens']:.3f}"), " tokens per step on average", key=True),
            line(f"(if every position had this α, a step with γ = {gamma} {drafts} yields "
                 f"{formula} tokens on average)", note=True),
            table(["token", "p", "q", "min", "r"],
                  [[label, f"{p_x:.3f}", f"{q_x:.3f}", f"{min(p_x, q_x):.3f}", f"{r:.3f}"]
                   for label, p_x, q_x, r in zip(labels, p, q, residual)]),
        ])
