"""The "why it is fast" explorer: accelerator, models, γ, α, batch and seed in; a timeline of passes out.

Every number comes from `specdec.hardware` (the cost model and the sampled timeline); this module
only wires the controls to it and to `specdec.plots.timeline.TimelineFigure`. What the cost model
leaves out is listed in `specdec.hardware`'s docstring.
"""

from __future__ import annotations

import ipywidgets as widgets

from .. import hardware, validation
from ..plots.timeline import ROOFLINE_TICKS, TimelineFigure
from .explorer import LABEL_STYLE, Explorer

#: Largest draft length and seed offered.
MAX_GAMMA = 10
MAX_SEED = 99
#: Tokens in the timeline: enough for several steps, few enough to see each pass.
TIMELINE_TOKENS = 32


def timeline_explorer(accelerator="H100 SXM", target="Llama 2 70B", draft="Llama 3.2 1B", gamma=4, alpha=0.8,
                      batch=1, seed=0) -> Explorer:
    """A timeline of plain and speculative decoding on a chosen accelerator, with the pass-time roofline.

    Parameters
    ----------
    accelerator : str
        A key of `specdec.hardware.ACCELERATORS`.
    target, draft : str
        Keys of `specdec.hardware.MODELS`.
    gamma : int in 0 … 10
    alpha : float in [0, 1]
    batch : int, a power of two in 1 … 1024
    seed : int in 0 … 99
        Seed of the sampled steps: each step's number of tokens is drawn with the real verify rule.

    Returns
    -------
    Explorer
        ``controls``: ``"accelerator"``, ``"target"``, ``"draft"`` (dropdowns), ``"gamma"``,
        ``"alpha"``, ``"batch"``, ``"seed"``. ``shown`` holds those values, ``times``
        (`specdec.hardware.PassTimes`), ``timeline`` (`specdec.hardware.Timeline`), ``implied_c``,
        ``plain_ms_per_token``, ``speculative_ms_per_token`` (this seed), ``expected_ms_per_token``,
        ``sampled_speedup``, ``expected_speedup``, ``formula_speedup``, ``devices`` (devices the
        target's weights need) and ``readout``.

    Examples
    --------
    >>> explorer = timeline_explorer()
    >>> round(explorer.shown["implied_c"], 1), round(explorer.shown["formula_speedup"], 2)
    (55.8, 3.14)
    """
    accelerator = _choice(accelerator, "accelerator", hardware.ACCELERATORS)
    target = _choice(target, "target", hardware.MODELS)
    draft = _choice(draft, "draft", hardware.MODELS)
    gamma = validation.count(gamma, "gamma", 0, MAX_GAMMA)
    alpha = validation.probability(alpha, "alpha")
    batch = validation.count(batch, "batch", 1, hardware.BATCH_SIZES[-1])
    if batch not in hardware.BATCH_SIZES:
        raise ValueError(f"batch must be a power of two in 1 … {hardware.BATCH_SIZES[-1]}, got {batch}")
    seed = validation.count(seed, "seed", 0, MAX_SEED)

    controls = {
        "accelerator": widgets.Dropdown(options=list(hardware.ACCELERATORS), value=accelerator,
                                        description="accelerator", style=LABEL_STYLE),
        "target": widgets.Dropdown(options=list(hardware.MODELS), value=target,
                                   description="target model", style=LABEL_STYLE),
        "draft": widgets.Dropdown(options=list(hardware.MODELS), value=draft,
                                  description="draft model", style=LABEL_STYLE),
        "gamma": widgets.IntSlider(value=gamma, min=0, max=MAX_GAMMA, description="draft length γ",
                                   style=LABEL_STYLE),
        "alpha": widgets.FloatSlider(value=alpha, min=0.0, max=1.0, step=0.01, readout_format=".2f",
                                     description="acceptance rate α", style=LABEL_STYLE),
        "batch": widgets.SelectionSlider(options=list(hardware.BATCH_SIZES), value=batch,
                                         description="batch size b", style=LABEL_STYLE),
        "seed": widgets.IntSlider(value=seed, min=0, max=MAX_SEED, description="seed", style=LABEL_STYLE),
    }
    picture = TimelineFigure()
    max_positions = ROOFLINE_TICKS[-1]

    def redraw() -> dict:
        chip = hardware.ACCELERATORS[controls["accelerator"].value]
        big = hardware.MODELS[controls["target"].value]
        small = hardware.MODELS[controls["draft"].value]
        g, a = controls["gamma"].value, controls["alpha"].value
        b, s = controls["batch"].value, controls["seed"].value
        timeline = hardware.sample_timeline(chip, big, small, g, a, batch=b, seed=s, tokens=TIMELINE_TOKENS)
        positions, target_seconds = hardware.roofline(big, chip, batch=b, max_positions=max_positions)
        _, draft_seconds = hardware.roofline(small, chip, batch=b, max_positions=max_positions)
        model_speedups, formula_speedups = hardware.speedup_against_batch(chip, big, small, g, a)
        picture.update(timeline, positions, target_seconds, draft_seconds, list(hardware.BATCH_SIZES),
                       model_speedups, formula_speedups, b)
        times = timeline.times
        shown = {
            "accelerator": chip.name, "target": big.name, "draft": small.name,
            "gamma": g, "alpha": a, "batch": b, "seed": s,
            "times": times, "timeline": timeline,
            "implied_c": times.implied_c,
            "plain_ms_per_token": timeline.plain_time_per_token * 1e3,
            "speculative_ms_per_token": timeline.speculative_time_per_token * 1e3,
            "expected_ms_per_token": timeline.plain_time_per_token * 1e3 / timeline.expected_speedup,
            "sampled_speedup": timeline.sampled_speedup,
            "expected_speedup": timeline.expected_speedup,
            "formula_speedup": timeline.formula_speedup,
            "devices": hardware.devices_needed(big, chip),
        }
        shown["readout"] = _readout(shown, chip)
        shown["key_readout"] = _key_readout(shown)
        return shown

    explorer = Explorer(
        "Where the time goes: draft and target passes", controls,
        [[controls["accelerator"], controls["target"], controls["draft"]],
         [controls["gamma"], controls["alpha"]], [controls["batch"], controls["seed"]]],
        picture, redraw,
        compact_rows=([[controls["accelerator"]], [controls["gamma"]], [controls["batch"]]],
                      [[controls["target"], controls["draft"]], [controls["alpha"], controls["seed"]]]))
    explorer.observe_controls()
    return explorer


def _choice(value, name: str, table: dict) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a name (str), one of {', '.join(table)}; got {type(value).__name__}")
    if value not in table:
        raise ValueError(f"{name} must be one of {', '.join(table)}; got {value!r}")
    return value


def _key_readout(shown: dict) -> str:
    """The lines the compact layout shows beside the picture: time per token and speedup."""
    return (f"<div>per token: plain <b>{shown['plain_ms_per_token']:.3g} ms</b>, "
            f"speculative <b>{shown['speculative_ms_per_token']:.3g} ms</b></div>"
            f"<div>speedup, this seed: <b>{shown['sampled_speedup']:.2f}×</b></div>"
            f"<div>expected, cost model: <b>{shown['expected_speedup']:.2f}×</b></div>")


def _readout(shown: dict, chip) -> str:
    times = shown["times"]
    g, b = shown["gamma"], shown["batch"]
    ms = 1e3
    fit = ""
    if shown["devices"] > 1:
        fit = (f"<p><i>{shown['target']} needs {shown['devices']} × {chip.memory_capacity / 1e9:.0f} GB for its "
               f"weights in bf16; the model keeps one device's numbers and leaves out the communication.</i></p>")
    overhead = times.verify_overhead
    verify = "free: same time as one position" if overhead == 1.0 else f"{overhead:.2f}× a plain pass"
    return (
        f"<p>{chip.name}: {chip.memory_bandwidth / 1e12:.3g} TB/s, {chip.peak_flops / 1e12:.3g} TFLOP/s; "
        f"compute-bound past {chip.ridge:.0f} FLOP/byte</p>{fit}"
        f"<p>One target pass: <b>{times.target_decode * ms:.3g} ms</b><br>"
        f"Verify pass (γ+1 = {g + 1} positions): {times.target_verify * ms:.3g} ms ({verify})<br>"
        f"One draft pass: {times.draft_pass * ms:.3g} ms<br>"
        f"implied c = target ÷ draft = <b>{shown['implied_c']:.1f}</b></p>"
        f"<p>Time per token, plain: <b>{shown['plain_ms_per_token']:.3g} ms</b><br>"
        f"speculative, this seed: <b>{shown['speculative_ms_per_token']:.3g} ms</b> "
        f"(expected {shown['expected_ms_per_token']:.3g} ms)<br>"
        f"Tokens/s over the batch of {b}: plain {times.plain_tokens_per_second():,.0f}, "
        f"speculative {times.speculative_tokens_per_second(shown['alpha']):,.0f} expected</p>"
        f"<p>Speedup, this seed: <b>{shown['sampled_speedup']:.2f}×</b><br>"
        f"expected, cost model: <b>{shown['expected_speedup']:.2f}×</b><br>"
        f"speedup(α, γ, c) = {shown['formula_speedup']:.2f}× (verify pass counted as free)</p>"
    )
