"""The explorer of α and temperature: the target's and the draft's, down to greedy decoding (T = 0).

Seeded target and draft logits (`specdec.temperature.related_logits`) become distributions at two
temperatures (`specdec.temperature.softmax`); the explorer shows them, their α, and α as either
temperature changes (`specdec.temperature.alpha_over_temperatures`). At T = 0 both models are greedy and α can only be 0 or 1. What is simplified
is said in `specdec.temperature`: the logits are Gaussian, not a language model's.
"""

from __future__ import annotations

import functools
import numbers

import ipywidgets as widgets
import numpy as np

from .. import validation
from ..core import acceptance_rate
from ..plots.temperature import TemperatureFigure
from ..rows import token_labels
from ..temperature import alpha_over_temperatures, related_logits, softmax
from ..theory import tv_distance
from .explorer import LABEL_STYLE, Explorer

#: Largest seed the slider offers.
MAX_SEED = 99
#: Vocabulary size of the logits, and the temperatures the curves use.
TEMPERATURE_VOCAB = 10
TEMPERATURE_STEP = 0.05
MAX_TEMPERATURE = 3.0
TEMPERATURE_GRID = np.round(np.arange(0.0, MAX_TEMPERATURE + TEMPERATURE_STEP / 2, TEMPERATURE_STEP), 10)


def temperature_explorer(target_temperature=1.0, draft_temperature=1.0, seed=1) -> Explorer:
    """α as the temperatures of the target and the draft change, down to greedy decoding (T = 0).

    The target and draft logits come from `related_logits` with ``default_rng(seed)`` over
    `TEMPERATURE_VOCAB` tokens; p = softmax(target logits / T_p), q = softmax(draft logits / T_q).

    Parameters
    ----------
    target_temperature, draft_temperature : float in 0 … 3
        Starting temperatures; 0 is greedy decoding.
    seed : int in 0 … 99
        Seed of the logits.

    Returns
    -------
    Explorer
        ``controls``: ``"target_temperature"``, ``"draft_temperature"``, ``"seed"`` and the buttons
        ``"greedy"`` (both T = 0) and ``"plain"`` (both T = 1). ``shown`` holds ``target`` and
        ``draft`` (the distributions), ``alpha``, ``tv``, ``target_pick`` and ``draft_pick`` (the
        argmax tokens), ``greedy_alpha`` (α when both temperatures are 0), the curves
        ``temperatures``, ``alpha_over_draft_temperature`` and ``alpha_over_shared_temperature``,
        and ``readout``.

    Examples
    --------
    >>> explorer = temperature_explorer(seed=1)
    >>> explorer.controls["greedy"].click()
    >>> explorer.shown["alpha"] in (0.0, 1.0)
    True
    """
    target_temperature = _slider_temperature(target_temperature, "target_temperature")
    draft_temperature = _slider_temperature(draft_temperature, "draft_temperature")
    seed = validation.count(seed, "seed", 0, MAX_SEED)
    slider = dict(min=0.0, max=MAX_TEMPERATURE, step=TEMPERATURE_STEP, readout_format=".2f", style=LABEL_STYLE)
    controls = {
        "target_temperature": widgets.FloatSlider(value=target_temperature,
                                                  description="target temperature T_p", **slider),
        "draft_temperature": widgets.FloatSlider(value=draft_temperature,
                                                 description="draft temperature T_q", **slider),
        "seed": widgets.IntSlider(value=seed, min=0, max=MAX_SEED, description="logits seed", style=LABEL_STYLE),
        "greedy": widgets.Button(description="greedy: both T = 0", tooltip="set both temperatures to 0"),
        "plain": widgets.Button(description="both T = 1", tooltip="set both temperatures to 1"),
    }
    labels = token_labels(TEMPERATURE_VOCAB)
    picture = TemperatureFigure(labels, TEMPERATURE_GRID)

    @functools.lru_cache(maxsize=1)  # the temperature sliders alone keep the logits
    def logits(seed_value: int):
        target_logits, draft_logits = related_logits(TEMPERATURE_VOCAB, np.random.default_rng(seed_value))
        shared = alpha_over_temperatures(target_logits, draft_logits, TEMPERATURE_GRID).tolist()
        return target_logits, draft_logits, shared

    def redraw() -> dict:
        t_p = controls["target_temperature"].value
        t_q = controls["draft_temperature"].value
        target_logits, draft_logits, shared_curve = logits(controls["seed"].value)
        target, draft = softmax(target_logits, t_p), softmax(draft_logits, t_q)
        alpha = acceptance_rate(target, draft)
        draft_curve = alpha_over_temperatures(target_logits, draft_logits, TEMPERATURE_GRID,
                                              target_temperature=t_p).tolist()
        picture.update(target, draft, t_q, alpha, draft_curve, shared_curve)
        shown = {
            "target_temperature": t_p, "draft_temperature": t_q, "seed": controls["seed"].value,
            "target": target, "draft": draft,
            "alpha": alpha, "tv": tv_distance(target, draft),
            "target_pick": int(np.argmax(target_logits)), "draft_pick": int(np.argmax(draft_logits)),
            "greedy_alpha": shared_curve[0],
            "temperatures": TEMPERATURE_GRID,
            "alpha_over_draft_temperature": draft_curve,
            "alpha_over_shared_temperature": shared_curve,
        }
        shown["readout"] = _temperature_readout(shown, labels)
        return shown

    explorer = Explorer(
        "α and temperature", controls,
        [[controls["target_temperature"], controls["draft_temperature"]],
         [controls["seed"], controls["greedy"], controls["plain"]]],
        picture, redraw,
    )

    def set_both(value: float) -> None:
        with explorer.batch():  # both sliders move, and the view is drawn once, after both
            controls["target_temperature"].value = value
            controls["draft_temperature"].value = value

    explorer.observe_controls("target_temperature", "draft_temperature", "seed")
    controls["greedy"].on_click(lambda _button: set_both(0.0))
    controls["plain"].on_click(lambda _button: set_both(1.0))
    return explorer


def _temperature_readout(shown: dict, labels: list[str]) -> str:
    t_p, t_q = shown["target_temperature"], shown["draft_temperature"]
    target, draft = shown["target"], shown["draft"]
    p_pick, q_pick = shown["target_pick"], shown["draft_pick"]
    agree = p_pick == q_pick
    greedy_now = " (greedy now)" if t_p == 0 and t_q == 0 else ""
    consequence = ("the argmaxes agree, so every draft token is accepted" if agree
                   else "the argmaxes differ, so every draft token is rejected")
    return (
        f"<p>T_p = {t_p:.2f} (target), T_q = {t_q:.2f} (draft){greedy_now}</p>"
        f"<p>α = Σ min(p, q) = <b>{shown['alpha']:.3f}</b>; 1 − TV = {1 - shown['tv']:.3f}</p>"
        f"<p>Greedy pick: target {labels[p_pick]} (p = {target[p_pick]:.3f}), "
        f"draft {labels[q_pick]} (q = {draft[q_pick]:.3f})</p>"
        f"<p>With both models greedy (T = 0): α = <b>{shown['greedy_alpha']:.0f}</b>: {consequence}.</p>"
    )


def _slider_temperature(value, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in 0 … {MAX_TEMPERATURE:g}, got {value!r} of type "
                        f"{type(value).__name__}")
    value = float(value)
    if not 0.0 <= value <= MAX_TEMPERATURE:
        raise ValueError(f"{name} must be in 0 … {MAX_TEMPERATURE:g} (the slider's range), got {value!r}")
    return value
