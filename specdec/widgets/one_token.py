"""The one-token explorer: edit p and q by hand and watch α, the overlap and the residual respond.

A slider per token sets a raw weight for p and for q; each row is divided by its sum before any
number is computed, so the learner never has to make weights add up to 1. Every number on screen
comes from the core: α from `acceptance_rate`, the residual from `residual_distribution`, TV and KL
from `specdec.theory`, the expected tokens from `expected_tokens`.

What is simplified: a row whose weights are all 0 has no distribution. Rather than invent one (a
floor would hide what the learner did), the explorer draws that row at zero and says in the readout
that it needs some mass.

Presets fill the visible sliders:

- "the worked example": p = (0.5, 0.3, 0.2, 0), q uniform over V = 4 (α = 0.7);
- "identical": q takes p's weights (α = 1, nothing is ever rejected);
- "disjoint": p spreads over the first half of the tokens, q over the rest (α = 0);
- "random": ``p, q = rows[0], draft[0]`` with
  ``rows, draft = random_rows(1, V, closeness, numpy.random.default_rng(seed))``, each weight
  rounded to the sliders' step of 0.01. Moving the closeness or seed slider applies it again.
"""

from __future__ import annotations

from html import escape

import ipywidgets as widgets
from ipywidgets.widgets.widget_string import HTMLStyle
import numpy as np

from .. import palette, validation
from ..core import acceptance_rate, expected_tokens, residual_distribution
from ..plots.one_token import OneTokenFigure
from ..rows import SPEC_DRAFT_PROBS, SPEC_TARGET_PROBS, random_rows, token_labels
from ..theory import kl_divergence, tv_distance
from .explorer import LABEL_STYLE, Explorer, presentation_scale

#: The vocabulary sizes the explorer offers.
MIN_VOCAB, MAX_VOCAB = 2, 12
#: Resolution of the weight sliders; presets round to it so the slider shows exactly the weight.
WEIGHT_STEP = 0.01
#: The weight of p and of q that a token starts with when a larger V first brings it in.
NEW_TOKEN_WEIGHT = 0.1


def one_token_explorer(target=SPEC_TARGET_PROBS[0], draft=SPEC_DRAFT_PROBS[0], gamma: int = 4,
                       closeness: float = 0.5, seed: int = 0) -> Explorer:
    """An explorer of one token: sliders for p and q, their overlap α, TV, KL and the residual.

    Parameters
    ----------
    target, draft : sequence of 2 … 12 weights in [0, 1]
        Initial raw weights of p and q (same length V); each row is normalised before use.
        Default: the worked example, p = (0.5, 0.3, 0.2, 0) and q uniform.
    gamma : int in 0 … 8
        The draft length at which the readout gives the expected tokens per step.
    closeness : float in [0, 1]
        Initial value of the "closeness" slider used by the random preset.
    seed : int in 0 … 999
        Initial value of the seed slider used by the random preset.

    Returns
    -------
    Explorer
        ``controls`` holds "vocab", "gamma", "closeness", "seed", one weight slider per token and
        row ("p A", "q A", …, "p L", "q L") and the preset buttons ("worked example", "identical",
        "disjoint", "random"). ``shown`` holds the normalised rows and every number in the readout.

    Examples
    --------
    >>> explorer = one_token_explorer()
    >>> explorer.shown["alpha"], explorer.shown["residual"].round(3).tolist()
    (0.7, [0.833, 0.167, 0.0, 0.0])
    >>> explorer.controls["identical"].click()
    >>> explorer.shown["alpha"]
    1.0
    """
    target = _checked_weights(target, "target")
    draft = _checked_weights(draft, "draft")
    validation.same_vocabulary(target, "target", draft, "draft")
    gamma = validation.count(gamma, "gamma", 0, 8)
    closeness = validation.probability(closeness, "closeness")
    seed = validation.count(seed, "seed", 0, 999)
    all_labels = token_labels(MAX_VOCAB)

    controls = {
        "vocab": widgets.IntSlider(value=target.size, min=MIN_VOCAB, max=MAX_VOCAB,
                                   description="number of tokens V", style=LABEL_STYLE),
        "gamma": widgets.IntSlider(value=gamma, min=0, max=8, description="draft length γ (for expected tokens)",
                                   style=LABEL_STYLE, layout=widgets.Layout(width="30em")),
        "closeness": widgets.FloatSlider(value=closeness, min=0, max=1, step=0.05,
                                         description="random preset: closeness of q to p",
                                         style=LABEL_STYLE, layout=widgets.Layout(width="32em")),
        "seed": widgets.IntSlider(value=seed, min=0, max=999, description="random preset: seed",
                                  style=LABEL_STYLE, layout=widgets.Layout(width="28em")),
    }
    weights = {"p": [], "q": []}  # the weight sliders of each row, one per token
    normalised = {"p": [], "q": []}  # the normalised weight shown beside each slider
    weight_lines = []  # per row, the slider-and-value lines, hidden beyond V
    columns = []
    # One layout and one style shared by all 24 weight sliders (and one by their labels): the
    # notebook stores each widget model once, so sharing keeps the saved notebook small.
    # In the compact layout of `presentation` the rows stand in a column 20em wide, so they are narrower.
    compact = presentation_scale() is not None
    slider_layout = widgets.Layout(width="14em" if compact else "17em")
    slider_style = widgets.SliderStyle(description_width="initial")
    label_layout, label_style = widgets.Layout(width="4em" if compact else "5em"), HTMLStyle()
    for row, role, initial in (("p", palette.ROLES["target"], target), ("q", palette.ROLES["draft"], draft)):
        lines = [widgets.HTML(f"<b style='color:{role.colour}'>{role.label}</b>: raw weight → normalised")]
        for index, label in enumerate(all_labels):
            value = float(initial[index]) if index < initial.size else NEW_TOKEN_WEIGHT
            slider = widgets.FloatSlider(value=value, min=0, max=1, step=WEIGHT_STEP, readout_format=".2f",
                                         description=f"{row}({label})", style=slider_style, layout=slider_layout)
            shown_value = widgets.HTML(layout=label_layout, style=label_style)
            weights[row].append(slider)
            normalised[row].append(shown_value)
            controls[f"{row} {label}"] = slider
            lines.append(widgets.HBox([slider, shown_value]))
        weight_lines.append(lines[1:])
        columns.append(widgets.VBox(lines, layout=widgets.Layout(margin="0" if compact else "0 2em 0 0")))
    button_layout = widgets.Layout(width="auto")  # wide enough for each label
    presets = {
        name: widgets.Button(description=description, tooltip=tooltip, layout=button_layout)
        for name, description, tooltip in (
            ("worked example", "the worked example", "p = (0.5, 0.3, 0.2, 0), q uniform, V = 4"),
            ("identical", "identical (q = p)", "q takes p's weights"),
            ("disjoint", "disjoint support", "p and q share no token"),
            ("random", "random (seed, closeness)", "seeded Dirichlet rows"),
        )
    }
    controls.update(presets)
    picture = OneTokenFigure(max_vocab=MAX_VOCAB)

    def redraw() -> dict:
        vocab = controls["vocab"].value
        labels = all_labels[:vocab]
        for lines in weight_lines:
            for index, line in enumerate(lines):
                display = None if index < vocab else "none"
                if line.layout.display != display:
                    line.layout.display = display
        rows, missing = {}, []
        for row in ("p", "q"):
            row_weights = np.array([slider.value for slider in weights[row][:vocab]])
            total = row_weights.sum()
            rows[row] = row_weights / total if total > 0 else None
            if rows[row] is None:
                missing.append(row)
            for index, label in enumerate(normalised[row][:vocab]):
                text = "→ —" if rows[row] is None else f"→ {rows[row][index]:.3f}"
                if label.value != text:
                    label.value = text
        return _shown(rows["p"], rows["q"], missing, labels, controls["gamma"].value, picture)

    explorer = Explorer(
        "One token: the acceptance rule and the residual",
        controls,
        [[controls["vocab"], controls["gamma"]], list(presets.values()), [controls["closeness"], controls["seed"]],
         [widgets.HBox(columns)]],
        picture,
        redraw,
        # Compact: the presets, the key lines, then q's sliders (the row a learner moves first), then p's.
        compact_rows=([list(presets.values())],
                      [[columns[1]], [columns[0]], [controls["vocab"], controls["gamma"]],
                       [controls["closeness"], controls["seed"]]]) if compact else None,
    )

    def set_rows(p_values=None, q_values=None) -> None:
        with explorer.batch():
            for row, values in (("p", p_values), ("q", q_values)):
                for slider, value in zip(weights[row], values if values is not None else []):
                    slider.value = float(value)

    def apply_worked_example(_button) -> None:
        with explorer.batch():
            controls["vocab"].value = len(SPEC_TARGET_PROBS[0])
            set_rows(SPEC_TARGET_PROBS[0], SPEC_DRAFT_PROBS[0])

    def apply_disjoint(_button) -> None:
        vocab = controls["vocab"].value
        half = (vocab + 1) // 2
        set_rows([1.0] * half + [0.0] * (vocab - half), [0.0] * half + [1.0] * (vocab - half))

    def apply_random(*_ignored) -> None:
        rng = np.random.default_rng(controls["seed"].value)
        p_rows, q_rows = random_rows(1, controls["vocab"].value, controls["closeness"].value, rng)
        set_rows(_slider_weights(p_rows[0]), _slider_weights(q_rows[0]))

    explorer.observe_controls(*(name for name, control in controls.items()
                                if name not in ("closeness", "seed") and not isinstance(control, widgets.Button)))
    controls["closeness"].observe(apply_random, names="value")
    controls["seed"].observe(apply_random, names="value")
    presets["worked example"].on_click(apply_worked_example)
    presets["identical"].on_click(
        lambda _button: set_rows(q_values=[slider.value for slider in weights["p"][: controls["vocab"].value]]))
    presets["disjoint"].on_click(apply_disjoint)
    presets["random"].on_click(apply_random)
    return explorer


def _checked_weights(values, name: str) -> np.ndarray:
    weights = validation.as_float_array(values, name, 1)
    if not MIN_VOCAB <= weights.size <= MAX_VOCAB:
        raise ValueError(f"{name} must have {MIN_VOCAB} … {MAX_VOCAB} weights (one per token), got {weights.size}")
    if not np.all((weights >= 0) & (weights <= 1)):  # False for NaN too
        index = int(np.argmax(~((weights >= 0) & (weights <= 1))))
        raise ValueError(f"{name}[{index}] = {weights[index]!r}: each weight must be in [0, 1] (a slider's range)")
    return weights


def _shown(target, draft, missing, labels, gamma, picture) -> dict:
    """Compute every number with the core, update the picture, and say what is shown."""
    shown = {"vocab": len(labels), "labels": labels, "gamma": gamma, "target": target, "draft": draft,
             "missing": missing}
    if missing:
        names = " and ".join({"p": "the target p", "q": "the draft q"}[row] for row in missing)
        note = f"every weight of {names} is 0: raise one of its sliders"
        picture.update(target, draft, None, labels, None, note=note)
        shown.update(alpha=None, tv=None, kl=None, excess=None, residual=None, expected_tokens=None)
        shown["readout"] = (
            f"<p><b>{escape(note[0].upper() + note[1:])}.</b></p>"
            "<p>A row of weights becomes a distribution by dividing it by its sum; when the sum is 0 "
            "there is nothing to divide, so that row needs some mass before α, TV, KL or the residual "
            "mean anything.</p>"
        )
        return shown
    alpha = acceptance_rate(target, draft)
    excess = np.maximum(target - draft, 0.0)
    residual = residual_distribution(target, draft)
    has_residual = excess.sum() > 0
    shown.update(
        alpha=alpha,
        tv=tv_distance(target, draft),
        kl=kl_divergence(target, draft),
        excess=excess,
        residual=residual,
        expected_tokens=expected_tokens(alpha, gamma),
    )
    picture.update(target, draft, residual if has_residual else None, labels, alpha)
    shown["readout"] = _readout(shown, has_residual)
    shown["key_readout"] = (f"<div><b>α = Σ min(p, q) = {alpha:.3f}</b></div>"
                            f"<div>TV(p, q) = {shown['tv']:.3f} = 1 − α</div>"
                            f"<div>γ = {gamma}: <b>{shown['expected_tokens']:.3f}</b> tokens per step</div>")
    return shown


def _slider_weights(row: np.ndarray) -> list[float]:
    return [round(float(value), 2) for value in row]  # 2 decimals: the sliders' step, WEIGHT_STEP


def _readout(shown: dict, has_residual: bool) -> str:
    alpha, tv, kl, gamma = shown["alpha"], shown["tv"], shown["kl"], shown["gamma"]
    labels, target, draft = shown["labels"], shown["target"], shown["draft"]
    if np.isinf(kl):
        impossible = [label for label, p, q in zip(labels, target, draft) if p > 0 and q == 0]
        kl_text = (
            f"KL(p‖q) = ∞: q gives probability 0 to {', '.join(impossible)}, which p can produce, so "
            f"log(p/q) is infinite there. α stays finite: the draft never proposes "
            f"{'that token' if len(impossible) == 1 else 'those tokens'}, and the residual puts p's mass back."
        )
    else:
        kl_text = f"KL(p‖q) = Σ p log(p/q) = {kl:.4f} nats"
    if has_residual:
        residual_text = "residual r = norm(max(0, p − q)) puts its mass on " + ", ".join(
            f"{label} {value:.3f}" for label, value in zip(labels, shown["residual"]) if value > 0
        )
    else:
        residual_text = "p = q, so max(0, p − q) has no mass: a draft token is never rejected, and no residual is needed"
    rows = "".join(
        f"<tr><td>{label}</td><td>{p:.3f}</td><td>{q:.3f}</td><td>{min(p, q):.3f}</td><td>{r:.3f}</td></tr>"
        for label, p, q, r in zip(labels, target, draft, shown["residual"] if has_residual else np.zeros(len(labels)))
    )
    return (
        f"<p style='font-size:1.15em'><b>α = Σ min(p, q) = {alpha:.3f}</b></p>"
        f"<p>TV(p, q) = ½ Σ |p − q| = {tv:.3f}, and 1 − TV = {1 - tv:.3f} = α</p>"
        f"<p>{escape(kl_text)}</p>"
        f"<p>{escape(residual_text)}</p>"
        f"<p>If every position had this α, a step with γ = {gamma} draft tokens would yield "
        f"(1 − α<sup>γ+1</sup>) / (1 − α) = <b>{shown['expected_tokens']:.3f}</b> tokens on average.</p>"
        "<table><tr><th>token</th><th>p</th><th>q</th><th>min</th><th>r</th></tr>"
        f"{rows}</table>"
    )
