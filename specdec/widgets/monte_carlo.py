"""Explorers of notebook 03: the derivation for the learner's own p and q, and a Monte Carlo check.

`derivation_explorer` lets the learner set p and q with sliders and shows, token by token, that the
accepted part min(p, q) and the resampled part (1 − α)·r stack up to p exactly.

`monte_carlo_explorer` samples up to a million verify steps with `sample_steps` (or with a broken
rule's vectorised sampler) and compares what came out with the exact law: the tokens at one output
position against pᵢ, the token counts against their law, and the largest deviation against n.
The correct rule passes at every n; each broken rule fails once n is large enough, and the
deviation plot shows why: its curve stops following the 1/√n guide and levels off at the bias.

What is simplified: each (rule, seed) pair is one run (`specdec.sampled_runs`), sampled in blocks of
100,000 steps as the n slider asks for more; the slider looks at its first n steps. So growing n adds
samples to the same run, as a longer experiment would, and moving the slider back costs no sampling.
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np

from .. import validation
from ..broken_rules import BROKEN_RULES
from ..goodness_of_fit import format_p_value
from ..output_law import position_law, reach_probabilities, token_count_law
from ..plots.monte_carlo import DerivationFigure, MonteCarloFigure
from ..rows import spec_example, token_labels
from ..sampled_runs import MAX_STEPS, SampledRuns, deviation_guide
from .explorer import LABEL_STYLE, Explorer

#: The fewest steps the log slider offers (the most: `specdec.sampled_runs.MAX_STEPS`).
MIN_STEPS = 100
#: Largest seed offered.
MAX_SEED = 99
#: The largest vocabulary the derivation explorer gives sliders to.
MAX_DERIVATION_VOCAB = 8

#: How each rule is named in the dropdown.
RULE_LABELS = {
    "correct": "the correct rule",
    "resample_from_target": "broken: resample from p, not the residual",
    "resample_from_draft": "broken: resample from q, not the residual",
    "accept_with_target_probability": "broken: accept with probability p(x)",
    "always_accept": "broken: always accept (no verification)",
    "drop_bonus_token": "broken: drop the bonus token",
    "one_uniform_for_all": "broken: one uniform for every position",
    "greedy_draft": "broken: greedy draft, q in the ratio",
    "unprocessed_draft_in_ratio": "broken: draft sampled at T = 0.5, raw q in the ratio",
    "swapped_roles": "broken: p and q swapped",
}
_SLIDER_LAYOUT = widgets.Layout(width="26em")


def derivation_explorer(target=None, draft=None) -> Explorer:
    """Sliders for p and q; bars showing accepted part + resampled part = p for every token.

    Parameters
    ----------
    target, draft : array_like of shape (V,), optional
        Starting p and q (2 ≤ V ≤ 8); by default row 0 of SPEC's example,
        p = (0.5, 0.3, 0.2, 0) and q uniform.

    Returns
    -------
    Explorer
        ``controls``: ``"p0"`` … and ``"q0"`` …, one weight slider per token for each model (the
        weights are normalised to sum to 1), and three preset buttons that set q:
        ``"q = p"`` (α = 1), ``"q on one token"`` (all of q on the token p likes most, so α is p of
        that token) and ``"q where p has none"`` (q spread over the tokens p gives no weight, so
        α = 0; disabled while p gives weight to every token). ``shown`` holds ``law`` (a
        `specdec.output_law.PositionLaw`), ``largest_gap`` (max |accepted + resampled − p|) and
        ``readout``.

    Examples
    --------
    >>> explorer = derivation_explorer()
    >>> explorer.shown["law"].acceptance_rate
    0.7
    >>> explorer.controls["q0"].value = 1.0
    >>> explorer.shown["largest_gap"] < 1e-12
    True
    """
    default_target, default_draft, _ = spec_example()
    p, q = validation.distribution_pair(default_target[0] if target is None else target,
                                     default_draft[0] if draft is None else draft, "target", "draft")
    if not 2 <= p.size <= MAX_DERIVATION_VOCAB:
        raise ValueError(f"target must have 2 … {MAX_DERIVATION_VOCAB} tokens for the sliders, got {p.size}")
    labels = token_labels(p.size)
    slider = dict(min=0.0, max=1.0, step=0.01, readout_format=".2f", style=LABEL_STYLE,
                  layout=widgets.Layout(width="17em"))
    controls = {}
    for name, values, model in (("p", p, "target"), ("q", q, "draft")):
        for i, label in enumerate(labels):
            controls[f"{name}{i}"] = widgets.FloatSlider(value=round(float(values[i]), 2),
                                                         description=f"{model} weight of {label}", **slider)
    picture = DerivationFigure(labels)

    def weights(name: str) -> np.ndarray:
        values = np.array([controls[f"{name}{i}"].value for i in range(len(labels))])
        total = values.sum()
        return values / total if total > 0 else np.full(len(labels), 1.0 / len(labels))

    def redraw() -> dict:
        law = position_law(weights("p"), weights("q"))
        picture.update(law)
        shown = {"law": law, "largest_gap": float(np.abs(law.total - law.target).max())}
        shown["readout"] = _derivation_readout(law, labels, shown["largest_gap"])
        shown["key_readout"] = (f"<div>α = Σ min(p, q) = <b>{law.acceptance_rate:.3f}</b></div>"
                                f"<div>largest |sum − p|: <b>{shown['largest_gap']:.1e}</b></div>")
        return shown

    presets = {
        name: widgets.Button(description=name, tooltip=tooltip, layout=widgets.Layout(width="auto"))
        for name, tooltip in (
            ("q = p", "q takes p's weights: every draft token is accepted"),
            ("q on one token", "all of q's weight on the token p gives the most weight"),
            ("q where p has none", "q's weight only on tokens p never produces: nothing is accepted"),
        )
    }
    sliders = dict(controls)
    controls.update(presets)

    def set_q(values) -> None:
        with explorer.batch():
            for i, value in enumerate(values):
                controls[f"q{i}"].value = round(float(value), 2)

    def p_weights() -> np.ndarray:
        return np.array([controls[f"p{i}"].value for i in range(len(labels))])

    def q_on_one_token(_button) -> None:
        values = np.zeros(len(labels))
        values[int(np.argmax(p_weights()))] = 1.0
        set_q(values)

    def q_where_p_has_none(_button) -> None:
        empty = p_weights() == 0
        if empty.any():
            set_q(empty.astype(float))

    def redraw_with_presets() -> dict:
        shown = redraw()
        presets["q where p has none"].disabled = bool((p_weights() > 0).all())
        return shown

    rows = [[controls[f"p{i}"] for i in range(len(labels))], [controls[f"q{i}"] for i in range(len(labels))],
            list(presets.values())]
    explorer = Explorer("Accepted part + resampled part = p", controls, rows, picture, redraw_with_presets,
                        compact_rows=([rows[2]], [rows[1], rows[0]]))
    explorer.observe_controls(*sliders)
    presets["q = p"].on_click(lambda _button: set_q(p_weights()))
    presets["q on one token"].on_click(q_on_one_token)
    presets["q where p has none"].on_click(q_where_p_has_none)
    return explorer


def _derivation_readout(law, labels, largest_gap: float) -> str:
    rows = "".join(
        f"<tr><td>{label}</td><td>{p:.3f}</td><td>{q:.3f}</td><td>{a:.3f}</td><td>{r:.3f}</td>"
        f"<td><b>{a + r:.3f}</b></td></tr>"
        for label, p, q, a, r in zip(labels, law.target, law.draft, law.accepted, law.resampled)
    )
    return (
        f"<p>α = Σ min(p, q) = <b>{law.acceptance_rate:.3f}</b>; a rejection happens with "
        f"probability 1 − α = {1 - law.acceptance_rate:.3f}.</p>"
        "<table><tr><th>token</th><th>p</th><th>q</th><th>accepted</th><th>resampled</th><th>sum</th></tr>"
        f"{rows}</table>"
        f"<p>Largest |sum − p| over the tokens: {largest_gap:.1e}. The sum is p, whatever q is; "
        "only α, how often the draft is kept, depends on q.</p>"
    )


def monte_carlo_explorer(target_probs=None, draft_probs=None, rule="correct", n=100_000, seed=0) -> Explorer:
    """Sample up to a million verify steps and test them against the exact law.

    Parameters
    ----------
    target_probs, draft_probs : array_like, optional
        The rows of every step, (γ+1, V) and (γ, V) with V ≤ 26; by default SPEC's example.
    rule : str
        "correct" or a name from `specdec.broken_rules.BROKEN_RULES`.
    n : int in 100 … 1,000,000
        How many steps to look at.
    seed : int in 0 … 99

    Returns
    -------
    Explorer
        ``controls``: ``"rule"`` (dropdown), ``"n"`` (log slider), ``"position"``, ``"seed"``.
        Changing the rule moves ``position`` to where that rule's bias shows most (the smallest
        p-value). ``shown`` holds ``rule``, ``n``, ``position``, ``seed``, ``position_fits`` (a
        `specdec.goodness_of_fit.FitResult` per position), ``count_fit``, ``passed`` (all of them
        pass), ``frequencies`` (of the shown position), ``count_frequencies``, ``sizes`` and
        ``deviations`` (the deviation curve) and ``readout``.

    Examples
    --------
    >>> explorer = monte_carlo_explorer(n=10_000)
    >>> explorer.shown["passed"]
    True
    >>> explorer.controls["rule"].value = "always_accept"
    >>> explorer.shown["passed"]
    False
    """
    if target_probs is None and draft_probs is None:
        target_probs, draft_probs, _ = spec_example()
    target, draft = validation.verify_rows(target_probs, draft_probs)
    if target.shape[1] > 26:
        raise ValueError(f"the explorer shows at most 26 tokens, got V = {target.shape[1]}")
    if rule not in RULE_LABELS:
        raise ValueError(f"rule must be one of {sorted(RULE_LABELS)}, got {rule!r}")
    n = validation.count(n, "n", MIN_STEPS, MAX_STEPS)
    seed = validation.count(seed, "seed", 0, MAX_SEED)
    gamma = draft.shape[0]
    labels = token_labels(target.shape[1])
    controls = {
        "rule": widgets.Dropdown(options=[(label, name) for name, label in RULE_LABELS.items()], value=rule,
                                 description="verify rule", style=LABEL_STYLE, layout=widgets.Layout(width="30em")),
        "n": widgets.FloatLogSlider(value=n, base=10, min=2, max=6, step=0.25, description="steps n",
                                    readout_format=",.0f", continuous_update=False, style=LABEL_STYLE,
                                    layout=_SLIDER_LAYOUT),
        "position": widgets.IntSlider(value=0, min=0, max=gamma, description="output position i",
                                      style=LABEL_STYLE),
        "seed": widgets.IntSlider(value=seed, min=0, max=MAX_SEED, description="seed", continuous_update=False,
                                  style=LABEL_STYLE),
    }
    picture = MonteCarloFigure(labels, gamma)
    runs = SampledRuns(target, draft)
    count_law = np.concatenate(([0.0], token_count_law(target, draft)))
    reach = reach_probabilities(target, draft)

    def redraw() -> dict:
        rule_name, position = controls["rule"].value, controls["position"].value
        steps, seed_value = int(round(controls["n"].value)), controls["seed"].value
        run = runs.get(rule_name, seed_value)
        fits = run.position_fits(steps)
        count_fit, count_frequencies = run.count_fit(steps, count_law)
        sizes, deviations = run.deviation_curve(position, steps)
        spread = deviation_guide(target[position], reach[position], sizes)
        fit = fits[position]
        verdict = f"{'passes' if fit.passed else 'FAILS'}: χ² p-value {format_p_value(fit.p_value)}"
        picture.update(position, run.frequencies(steps, position), target[position],
                       draft[position] if position < gamma else None,
                       count_frequencies, count_law,
                       sizes, deviations, spread, steps, verdict,
                       f"{'passes' if count_fit.passed else 'FAILS'}: χ² p-value {format_p_value(count_fit.p_value)}")
        shown = {
            "rule": rule_name, "n": steps, "position": position, "seed": seed_value,
            "position_fits": fits, "count_fit": count_fit,
            "passed": count_fit.passed and all(f.passed for f in fits),
            "frequencies": run.frequencies(steps, position),
            "count_frequencies": count_frequencies,
            "sizes": sizes, "deviations": deviations,
        }
        shown["readout"] = _monte_carlo_readout(shown, gamma)
        return shown

    explorer = Explorer("A million verify steps against the exact law", controls,
                        [[controls["rule"]], [controls["n"], controls["position"], controls["seed"]]],
                        picture, redraw)
    explorer.observe_controls("n", "position", "seed")

    def on_rule(_change) -> None:
        # A broken rule failing at some position: jump to the position where it fails most.
        # One redraw either way.
        rule_name = controls["rule"].value
        worst = controls["position"].value
        if rule_name != "correct":
            fits = runs.get(rule_name, controls["seed"].value).position_fits(int(round(controls["n"].value)))
            failing = [i for i in range(gamma + 1) if not fits[i].passed]
            if failing:
                worst = min(failing, key=lambda i: (fits[i].p_value, i))
        if worst != controls["position"].value:
            controls["position"].value = worst
        else:
            explorer.refresh()

    controls["rule"].observe(on_rule, names="value")
    if rule != "correct":
        on_rule(None)
    return explorer


def _monte_carlo_readout(shown: dict, gamma: int) -> str:
    rule = shown["rule"]
    if rule == "correct":
        about = "<p>The correct rule: accept with min(1, p/q), resample from the residual, add a bonus.</p>"
    else:
        broken = BROKEN_RULES[rule]
        about = (f"<p><b>The mistake:</b> {html.escape(broken.mistake)}<br>"
                 f"<b>In real engines:</b> {html.escape(broken.real_world)}</p>")
    lines = "".join(
        f"<li>position {i}: {fit.n:,} tokens, TV {fit.tv:.4f} (chance: {fit.typical_tv:.4f}), "
        f"p-value {format_p_value(fit.p_value)} {'✓' if fit.passed else '✗'}</li>" if fit.n else
        f"<li>position {i}: never reached, nothing to test</li>"
        for i, fit in enumerate(shown["position_fits"])
    )
    count_fit = shown["count_fit"]
    lines += (f"<li>tokens per step: TV {count_fit.tv:.4f}, p-value {format_p_value(count_fit.p_value)} "
              f"{'✓' if count_fit.passed else '✗'}</li>")
    overall = ("<b>passes</b>: every position follows its pᵢ and the counts follow their law"
               if shown["passed"] else "<b>FAILS</b>: at least one check rejects the law (✗)")
    shown_fit = shown["position_fits"][shown["position"]]
    return (
        f"<p>{RULE_LABELS[rule]}, seed {shown['seed']}, n = {shown['n']:,} steps</p>{about}"
        f"<p>{overall}</p><ul>{lines}</ul>"
        f"<p>Position {shown['position']}: {html.escape(shown_fit.verdict)}.</p>"
    )
