"""The tokens-per-step and speedup explorer: α, γ and c in; P(N = k), E[N] and speedup out.

Every number comes from `specdec.theory` and `specdec.core`; this module only wires sliders to
them and to `specdec.plots.speedup.SpeedupFigure`. The model behind it is the simple one of the
theory module (constant α at every position, a verify pass costing one target pass).
"""

from __future__ import annotations

import ipywidgets as widgets

from .. import validation
from ..core import expected_tokens
from ..plots.speedup import SpeedupFigure
from ..theory import (DEFAULT_MAX_GAMMA, break_even_acceptance_rate, optimal_gamma, speedup,
                      token_count_distribution)
from .explorer import LABEL_STYLE, Explorer

#: Range of the cost-ratio slider: c = 1 (the draft is as slow as the target) to 100.
COST_RANGE = (1, 100)


def speedup_explorer(alpha=0.8, gamma=4, c=20) -> Explorer:
    """Sliders for α, γ and c; P(N = k), expected tokens and speedup against γ, with the best γ.

    Parameters
    ----------
    alpha : float in [0, 1]
        Starting acceptance rate.
    gamma : int in 0 … 20
        Starting draft length.
    c : int in 1 … 100
        Starting cost ratio: time of one target pass over time of one draft pass.

    Returns
    -------
    Explorer
        ``controls``: ``"alpha"``, ``"gamma"``, ``"c"``. ``shown`` holds ``alpha``, ``gamma``,
        ``c``, ``token_counts`` (P(N = k) for k = 1 … γ+1), ``expected_tokens``, ``speedup``,
        ``expected_curve`` and ``speedup_curve`` (for γ = 0 … 20), ``best_gamma``,
        ``best_speedup`` and ``readout``.

    Examples
    --------
    >>> explorer = speedup_explorer(alpha=0.8, c=20)
    >>> explorer.shown["best_gamma"]
    8
    """
    alpha = validation.probability(alpha, "alpha")
    gamma = validation.count(gamma, "gamma", 0, DEFAULT_MAX_GAMMA)
    c = validation.count(c, "c", *COST_RANGE)
    controls = {
        "alpha": widgets.FloatSlider(value=alpha, min=0.0, max=1.0, step=0.01, readout_format=".2f",
                                     description="acceptance rate α", style=LABEL_STYLE),
        "gamma": widgets.IntSlider(value=gamma, min=0, max=DEFAULT_MAX_GAMMA,
                                   description="draft length γ", style=LABEL_STYLE),
        "c": widgets.IntSlider(value=c, min=COST_RANGE[0], max=COST_RANGE[1],
                               description="cost ratio c (target time / draft time)", style=LABEL_STYLE,
                               layout=widgets.Layout(width="40em")),
    }
    picture = SpeedupFigure(DEFAULT_MAX_GAMMA)

    def redraw() -> dict:
        a = controls["alpha"].value
        g = controls["gamma"].value
        cost = controls["c"].value
        token_counts = token_count_distribution(a, g)
        expected_curve = [expected_tokens(a, length) for length in range(DEFAULT_MAX_GAMMA + 1)]
        speedup_curve = [speedup(a, length, cost) for length in range(DEFAULT_MAX_GAMMA + 1)]
        best_gamma, best_speedup = optimal_gamma(a, cost, DEFAULT_MAX_GAMMA)
        picture.update(token_counts, expected_curve, speedup_curve, g, best_gamma)
        shown = {
            "alpha": a, "gamma": g, "c": cost,
            "token_counts": token_counts,
            "expected_tokens": expected_curve[g],
            "speedup": speedup_curve[g],
            "expected_curve": expected_curve,
            "speedup_curve": speedup_curve,
            "best_gamma": best_gamma,
            "best_speedup": best_speedup,
        }
        shown["readout"] = _readout(shown)
        return shown

    explorer = Explorer("Tokens per step and speedup", controls,
                        [[controls["alpha"], controls["gamma"]], [controls["c"]]], picture, redraw)
    explorer.observe_controls()
    return explorer


def _readout(shown: dict) -> str:
    a, g, cost = shown["alpha"], shown["gamma"], shown["c"]
    all_accepted = shown["token_counts"][-1]
    verdict = "faster" if shown["speedup"] > 1 else "not faster"
    return (
        f"<p>α = {a:.2f}, γ = {g}, c = {cost} (c′ = 1/c = {1 / cost:.3f})</p>"
        f"<p>Expected tokens per step E[N] = <b>{shown['expected_tokens']:.3f}</b> "
        f"(at most γ + 1 = {g + 1})<br>"
        f"P(all {g} drafts accepted) = α<sup>γ</sup> = {all_accepted:.3f}</p>"
        f"<p>Cost of one step = 1 + γ/c = {1 + g / cost:.3f} target passes<br>"
        f"Speedup = E[N] / (1 + γ/c) = <b>{shown['speedup']:.2f}×</b> ({verdict} than plain decoding)</p>"
        f"<p>{_best_text(shown)}</p>"
    )


def _best_text(shown: dict) -> str:
    """The best γ, or, when no γ beats plain decoding, that none does and why."""
    if shown["best_speedup"] > 1:
        return (f"Best γ in 1 … {DEFAULT_MAX_GAMMA}: <b>{shown['best_gamma']}</b>, "
                f"speedup {shown['best_speedup']:.2f}×")
    threshold = break_even_acceptance_rate(shown["c"])
    return (
        f"<b>No γ in 1 … {DEFAULT_MAX_GAMMA} beats plain decoding here</b>: even the best, γ = "
        f"{shown['best_gamma']}, gives {shown['best_speedup']:.2f}×. Some γ helps only when "
        f"α &gt; 1/c = {threshold:.3f}; here α = {shown['alpha']:.2f}."
    )


