"""Explorers of what α depends on: how far q is from p (TV and KL), and the temperature of each model.

`divergence_explorer` draws a seeded cloud of random (p, q) pairs and plots α against TV, where they
all lie on α = 1 − TV, and against KL(p‖q), where they do not lie on any curve. `temperature_explorer`
turns seeded target and draft logits into distributions at two temperatures and shows α, down to
greedy decoding, where α can only be 0 or 1.

What is simplified: the pairs are Dirichlet draws blended as in `specdec.rows.random_rows` (a random
closeness per pair), and the logits are Gaussian (`specdec.temperature.related_logits`); neither comes
from a language model. The cloud's α, TV and KL are computed for all pairs at once with numpy; the
tests check them pair by pair against `acceptance_rate`, `tv_distance` and `kl_divergence`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from .. import validation
from ..core import acceptance_rate
from ..plots.divergence import KL_AXIS_MAX, CloudFigure, TemperatureFigure, pinsker_bound
from ..rows import DEFAULT_CONCENTRATION, token_labels
from ..temperature import related_logits, softmax
from ..theory import tv_distance
from .explorer import Explorer

#: How many random pairs make the cloud.
CLOUD_SIZE = 200
#: Range of the cloud's vocabulary slider.
CLOUD_VOCAB_RANGE = (2, 64)
#: The smallest probability a cloud row holds, so that KL(p‖q) stays finite.
PROBABILITY_FLOOR = 1e-9
#: Largest seed the sliders offer.
MAX_SEED = 99

#: Vocabulary size of the temperature explorer's logits, and the temperatures its curves use.
TEMPERATURE_VOCAB = 10
TEMPERATURE_STEP = 0.05
MAX_TEMPERATURE = 3.0
TEMPERATURE_GRID = np.round(np.arange(0.0, MAX_TEMPERATURE + TEMPERATURE_STEP / 2, TEMPERATURE_STEP), 10)

_LABEL_STYLE = {"description_width": "initial"}


@dataclass(frozen=True)
class PairCloud:
    """Random (p, q) pairs, one per row, with the α, TV and KL(p‖q) of each."""

    targets: np.ndarray
    """(count, V): the target distributions p."""
    drafts: np.ndarray
    """(count, V): the draft distributions q."""
    alpha: np.ndarray
    """(count,): Σ min(p, q) of each pair."""
    tv: np.ndarray
    """(count,): ½ Σ |p − q| of each pair."""
    kl: np.ndarray
    """(count,): KL(p‖q) of each pair, in nats."""


def pair_cloud(seed, vocab, count=CLOUD_SIZE) -> PairCloud:
    """A seeded cloud of (p, q) pairs, from nearly identical to unrelated.

    Each p is a Dirichlet draw; each q blends p with an independent draw d as
    q = w·p + (1 − w)·d, with the closeness w uniform in [0, 1) and drawn per pair. Every
    probability is at least about `PROBABILITY_FLOOR`, so KL(p‖q) is finite.

    Parameters
    ----------
    seed : int >= 0
    vocab : int >= 2
    count : int >= 1

    Examples
    --------
    >>> cloud = pair_cloud(seed=0, vocab=8)
    >>> cloud.targets.shape, cloud.alpha.shape
    ((200, 8), (200,))
    >>> bool(np.allclose(cloud.alpha, 1 - cloud.tv))
    True
    """
    seed = validation.count(seed, "seed")
    vocab = validation.count(vocab, "vocab", minimum=2)
    count = validation.count(count, "count", minimum=1)
    rng = np.random.default_rng(seed)
    concentration = np.full(vocab, DEFAULT_CONCENTRATION)
    targets = _floored(rng.dirichlet(concentration, size=count))
    independent = _floored(rng.dirichlet(concentration, size=count))
    closeness = rng.random(count)[:, None]
    drafts = closeness * targets + (1.0 - closeness) * independent
    drafts /= drafts.sum(axis=1, keepdims=True)
    alpha = np.minimum(targets, drafts).sum(axis=1)
    tv = 0.5 * np.abs(targets - drafts).sum(axis=1)
    kl = np.maximum(0.0, (targets * np.log(targets / drafts)).sum(axis=1))
    return PairCloud(targets, drafts, alpha, tv, kl)


def _floored(rows: np.ndarray) -> np.ndarray:
    rows = rows + PROBABILITY_FLOOR
    return rows / rows.sum(axis=1, keepdims=True)


def divergence_explorer(seed=0, vocab=8, pair=0) -> Explorer:
    """α against TV and KL(p‖q) for a seeded cloud of random pairs, with one pair highlighted.

    Parameters
    ----------
    seed : int in 0 … 99
        Seed of the cloud.
    vocab : int in 2 … 64
        Number of tokens V of every pair.
    pair : int in 0 … 199
        The pair whose numbers the readout lists and the figure rings.

    Returns
    -------
    Explorer
        ``controls``: ``"seed"``, ``"vocab"``, ``"pair"``. ``shown`` holds ``cloud`` (a `PairCloud`),
        ``pair``, ``alpha``, ``tv`` and ``kl`` of the highlighted pair, ``largest_gap`` (the largest
        |α − (1 − TV)| over the cloud), ``beyond_axis`` (pairs with KL past the axis), ``kl_neighbours``
        (how many pairs have a KL within 10% of the highlighted one's) with their ``neighbour_alpha_range``,
        and ``readout``.

    Examples
    --------
    >>> explorer = divergence_explorer()
    >>> explorer.shown["largest_gap"] < 1e-12
    True
    """
    seed = validation.count(seed, "seed", 0, MAX_SEED)
    vocab = validation.count(vocab, "vocab", *CLOUD_VOCAB_RANGE)
    pair = validation.count(pair, "pair", 0, CLOUD_SIZE - 1)
    controls = {
        "seed": widgets.IntSlider(value=seed, min=0, max=MAX_SEED, description="cloud seed",
                                  style=_LABEL_STYLE),
        "vocab": widgets.IntSlider(value=vocab, min=CLOUD_VOCAB_RANGE[0], max=CLOUD_VOCAB_RANGE[1],
                                   description="tokens per distribution V", style=_LABEL_STYLE),
        "pair": widgets.IntSlider(value=pair, min=0, max=CLOUD_SIZE - 1, description="highlighted pair",
                                  style=_LABEL_STYLE),
    }
    picture = CloudFigure()
    cache: dict = {}

    def redraw() -> dict:
        key = (controls["seed"].value, controls["vocab"].value)
        if key not in cache:  # moving the highlight alone keeps the cloud
            cache.clear()
            cache[key] = pair_cloud(*key)
        cloud = cache[key]
        index = controls["pair"].value
        picture.update(cloud.alpha, cloud.tv, cloud.kl, index)
        neighbours = np.abs(cloud.kl - cloud.kl[index]) <= 0.1 * cloud.kl[index]
        shown = {
            "cloud": cloud,
            "seed": key[0], "vocab": key[1], "pair": index,
            "alpha": float(cloud.alpha[index]),
            "tv": float(cloud.tv[index]),
            "kl": float(cloud.kl[index]),
            "largest_gap": float(np.max(np.abs(cloud.alpha - (1.0 - cloud.tv)))),
            "beyond_axis": int(np.sum(cloud.kl > KL_AXIS_MAX)),
            "kl_neighbours": int(neighbours.sum()),
            "neighbour_alpha_range": (float(cloud.alpha[neighbours].min()), float(cloud.alpha[neighbours].max())),
        }
        shown["readout"] = _cloud_readout(shown)
        return shown

    explorer = Explorer("α, total variation and KL divergence", controls,
                        [[controls["seed"], controls["vocab"]], [controls["pair"]]], picture.figure, redraw,
                        render=picture.png)
    explorer.observe_controls()
    return explorer


def _cloud_readout(shown: dict) -> str:
    cloud = shown["cloud"]
    low, high = shown["neighbour_alpha_range"]
    beyond = shown["beyond_axis"]
    edge_note = (f"<br>{beyond} pair{'s' if beyond != 1 else ''} with KL &gt; {KL_AXIS_MAX:g} "
                 f"drawn at the right edge" if beyond else "")
    return (
        f"<p>{len(cloud.alpha)} random pairs over V = {shown['vocab']} tokens, seed {shown['seed']}</p>"
        f"<p>Largest |α − (1 − TV)| in the cloud: {shown['largest_gap']:.1e}: every pair lies on the line.<br>"
        f"KL(p‖q) spans {cloud.kl.min():.3f} … {cloud.kl.max():.2f} nats.{edge_note}</p>"
        f"<p><b>Pair {shown['pair']}</b>: α = <b>{shown['alpha']:.3f}</b>, TV = {shown['tv']:.3f}, "
        f"1 − TV = {1 - shown['tv']:.3f}<br>"
        f"KL(p‖q) = {shown['kl']:.3f} nats; Pinsker's bound 1 − √(KL/2) = {float(pinsker_bound(shown['kl'])):.3f}</p>"
        f"<p>The {shown['kl_neighbours']} pairs whose KL is within 10% of this one's have α from "
        f"{low:.3f} to {high:.3f}: KL alone does not fix α.</p>"
    )


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
    slider = dict(min=0.0, max=MAX_TEMPERATURE, step=TEMPERATURE_STEP, readout_format=".2f", style=_LABEL_STYLE)
    controls = {
        "target_temperature": widgets.FloatSlider(value=target_temperature,
                                                  description="target temperature T_p", **slider),
        "draft_temperature": widgets.FloatSlider(value=draft_temperature,
                                                 description="draft temperature T_q", **slider),
        "seed": widgets.IntSlider(value=seed, min=0, max=MAX_SEED, description="logits seed", style=_LABEL_STYLE),
        "greedy": widgets.Button(description="greedy: both T = 0", tooltip="set both temperatures to 0"),
        "plain": widgets.Button(description="both T = 1", tooltip="set both temperatures to 1"),
    }
    labels = token_labels(TEMPERATURE_VOCAB)
    picture = TemperatureFigure(labels, TEMPERATURE_GRID)
    cache: dict = {}

    def logits(seed_value: int):
        if seed_value not in cache:
            cache.clear()
            target_logits, draft_logits = related_logits(TEMPERATURE_VOCAB, np.random.default_rng(seed_value))
            shared = [acceptance_rate(softmax(target_logits, t), softmax(draft_logits, t)) for t in TEMPERATURE_GRID]
            cache[seed_value] = (target_logits, draft_logits, shared)
        return cache[seed_value]

    def redraw() -> dict:
        t_p = controls["target_temperature"].value
        t_q = controls["draft_temperature"].value
        target_logits, draft_logits, shared_curve = logits(controls["seed"].value)
        target, draft = softmax(target_logits, t_p), softmax(draft_logits, t_q)
        alpha = acceptance_rate(target, draft)
        draft_curve = [acceptance_rate(target, softmax(draft_logits, t)) for t in TEMPERATURE_GRID]
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
        picture.figure, redraw, render=picture.png,
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


