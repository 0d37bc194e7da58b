"""Where the time goes (notebook 05): draft and target passes on a clock, one pass's roofline, speedup against batch.

Top: two lanes on one clock. Plain decoding is one target pass per token; speculative decoding is γ
draft passes and one verify pass per step, and under each verify pass one tile per token the step
emitted, coloured by where it came from. Bottom left: the time of one pass against the positions it
scores, for the target and the draft (log–log): flat while reading the weights dominates, rising once
the arithmetic does. Bottom right: the expected speedup against the batch size, by the cost model and
by speedup(α, γ, c) with the verify pass counted as free. Every number comes from `specdec.hardware`,
whose docstring lists what the cost model leaves out.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, NullLocator

from .. import hardware, palette
from ..limits import SEED_SLIDER_MAX, TIMELINE_GAMMA_SLIDER_MAX
from ..validation import Count, Probability, checked
from .temperature import slider_range
from .frame import (COMPACT_FIGURE_INCHES, LABEL_STYLE, Explorer, FastRedraw, Readout, bold, compact, line,
                    new_figure, role_patch, role_style, styled)

#: Vertical extent of each row of the timeline (bottom, top).
PLAIN_ROW, SPECULATIVE_ROW, TOKEN_ROW = (2.55, 3.25), (1.35, 2.05), (0.55, 1.15)
#: Ticks and fixed limits of the logarithmic speedup axis; positions per sequence on the roofline's axis.
SPEEDUP_TICKS = (0.1, 0.25, 0.5, 1, 2, 4, 8)
SPEEDUP_LIMITS = (0.07, 60)
ROOFLINE_TICKS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
#: Tokens in the timeline: several steps, each pass visible.
TIMELINE_TOKENS = 32
MILLISECONDS = 1e3
#: The fixed-time-per-pass slider: 0 … 3 ms (`specdec.hardware.Accelerator.pass_overhead`).
PASS_TIME_SLIDER_MAX_MS = 3.0


def _boxes(passes, row) -> list:
    """The rectangle of each (start, duration) in ms on a row (bottom, top)."""
    bottom, top = row
    return [[(s, bottom), (s + d, bottom), (s + d, top), (s, top)] for s, d in passes]


def _log_ticks(axes, which: str, ticks, labels) -> None:
    axis = getattr(axes, f"{which}axis")
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_minor_locator(NullLocator())
    getattr(axes, f"set_{which}ticks")(ticks, labels)


class TimelineFigure:
    """The three panels, built once; `update` changes their data.

    Examples
    --------
    >>> h100 = hardware.ACCELERATORS["H100 SXM"]
    >>> timeline = hardware.sample_timeline(h100, 70e9, 7e9, 4, 0.8, tokens=12)
    >>> positions, target = hardware.roofline(70e9, h100, max_positions=1024)
    >>> _, draft = hardware.roofline(7e9, h100, max_positions=1024)
    >>> picture = TimelineFigure()
    >>> picture.update(timeline, positions, target, draft, batches=[1, 2], model_speedups=[2.4, 2.4],
    ...                formula_speedups=[2.4, 2.4], batch=1)
    >>> len(picture.lanes["plain"].get_paths())
    12
    """

    def __init__(self):
        # Presentation mode: three rows, each legend beside its axes, fewer ticks, shorter labels.
        self.compact = compact()
        with styled():
            self.figure = new_figure(10.0, 5.9, compact_size=COMPACT_FIGURE_INCHES)
            if self.compact:
                self.timeline_axes, self.roofline_axes, self.batch_axes = self.figure.subplots(3, 1)
            else:
                grid = self.figure.add_gridspec(2, 2, height_ratios=(1.0, 1.1))
                self.timeline_axes = self.figure.add_subplot(grid[0, :])
                self.roofline_axes = self.figure.add_subplot(grid[1, 0])
                self.batch_axes = self.figure.add_subplot(grid[1, 1])
            self._build_timeline(self.timeline_axes)
            self._build_roofline(self.roofline_axes)
            self._build_batch(self.batch_axes)
        self.fast = FastRedraw(self.figure, changing=[
            *self.lanes.values(), self.timeline_title, self.plain_end, self.speculative_end, self.target_curve,
            self.draft_curve, self.plain_marker, self.verify_marker, self.draft_marker, self.ridge_line,
            self.model_curve, self.formula_curve, self.batch_marker,
        ], occasional=[self.timeline_axes.xaxis, self.roofline_axes.yaxis])
        self._limits = None

    def _short(self, compact_text: str, text: str) -> str:
        return compact_text if self.compact else text

    def _build_timeline(self, axes):
        edges = dict(edgecolor="white", linewidth=0.5)
        self.lanes = {name: PolyCollection([], **edges, **role_style(role)) for name, role in
                      (("plain", "target"), ("target", "target"), ("accepted", "accepted"),
                       ("resampled", "resampled"), ("bonus", "bonus"))}
        # No white gap around a draft pass: with a cheap draft, a pass is a pixel or two wide.
        self.lanes["draft"] = PolyCollection([], linewidth=0.5, **role_style("draft"),
                                             edgecolor=palette.ROLES["draft"].colour)
        for collection in self.lanes.values():
            axes.add_collection(collection)
        done = dict(color=palette.HIGHLIGHT, linewidth=1.5, linestyle="--")
        self.plain_end = axes.axvline(1.0, **done)
        self.speculative_end = axes.axvline(1.0, **{**done, "linestyle": ":"})
        axes.set_ylim(0.3, 3.5)
        axes.set_yticks([sum(PLAIN_ROW) / 2, sum(SPECULATIVE_ROW) / 2, sum(TOKEN_ROW) / 2],
                        ["plain", "speculative", "tokens out"] if self.compact else
                        ["plain:\ntarget passes", "speculative:\npasses", "speculative:\ntokens out"])
        axes.set_xlabel("time (ms)")
        axes.set_xlim(0, 1)
        self.timeline_title = axes.set_title(" ")
        # Ordinary layout: seven entries in one row fit the 8.75 in figure only at 9 pt (12 px, the minimum).
        place = (dict(loc="center left", bbox_to_anchor=(1.01, 0.5), ncol=1) if self.compact else
                 dict(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=7, fontsize=9))
        axes.legend(handles=[
            role_patch("target", "target pass"), role_patch("draft", "draft pass"), role_patch("accepted"),
            role_patch("resampled"), role_patch("bonus"), Line2D([], [], **done, label="plain done"),
            Line2D([], [], **{**done, "linestyle": ":"}, label="speculative done"),
        ], **place, frameon=False, handlelength=1.6, columnspacing=1.0)

    def _build_roofline(self, axes):
        target, draft = palette.ROLES["target"], palette.ROLES["draft"]
        (self.target_curve,) = axes.plot([1], [1], color=target.colour, linewidth=2.5,
                                         label=target.labelled("one pass"))
        (self.draft_curve,) = axes.plot([1], [1], color=draft.colour, linewidth=2.5, linestyle="--",
                                        label=draft.labelled("one pass"))
        marker = dict(linestyle="none", markeredgecolor=palette.HIGHLIGHT, markeredgewidth=1.5, zorder=5)
        (self.plain_marker,) = axes.plot([1], [1], marker="o", markersize=9, markerfacecolor="white",
                                         label="plain step, t = 1", **marker)
        (self.verify_marker,) = axes.plot([1], [1], marker="*", markersize=15, markerfacecolor=palette.HIGHLIGHT,
                                          label="verify pass, t = γ+1", **marker)
        (self.draft_marker,) = axes.plot([1], [1], marker="s", markersize=7, markerfacecolor=draft.colour, **marker)
        self.ridge_line = axes.axvline(1.0, color=palette.NEUTRAL, linestyle=":", linewidth=1.5,
                                       label="target turns compute-bound")
        axes.set_xscale("log", base=2)
        axes.set_yscale("log")
        ticks = ROOFLINE_TICKS[::2] if self.compact else ROOFLINE_TICKS  # 1, 4, 16, …: room for each label
        _log_ticks(axes, "x", ticks, [str(t) for t in ticks])
        axes.set_xlim(0.8, ROOFLINE_TICKS[-1] * 1.25)
        axes.set(xlabel=self._short("positions per sequence, t (log)", "positions scored per sequence, t (log scale)"),
                 ylabel=self._short("ms (log)", "time of one pass (ms, log)"),
                 title=self._short("One pass against t", "One pass: flat while reading weights dominates"))
        axes.legend(**self._legend_place(), framealpha=0.9, ncol=1 if self.compact else 2, columnspacing=0.8,
                    fontsize=None if self.compact else 9)  # 9 pt: the ordinary panel holds it only at that size

    def _build_batch(self, axes):
        axes.axhline(1.0, color=palette.NEUTRAL, linestyle=":", linewidth=1.5, label="1× (plain decoding)")
        (self.formula_curve,) = axes.plot([1], [1], color=palette.NEUTRAL, linestyle="--", linewidth=2, marker=".",
                                          label="speedup(α, γ, c): verify free")
        (self.model_curve,) = axes.plot([1], [1], color=palette.HIGHLIGHT, linewidth=2, marker=".",
                                        label="cost model")
        (self.batch_marker,) = axes.plot([1], [1], linestyle="none", marker="o", markersize=11, markerfacecolor="none",
                                         markeredgecolor=palette.HIGHLIGHT, markeredgewidth=2, label="this batch")
        axes.set_xscale("log", base=2)
        axes.set_yscale("log")
        speedup_ticks = (0.25, 1, 4) if self.compact else SPEEDUP_TICKS
        _log_ticks(axes, "y", speedup_ticks, [f"{tick:g}×" for tick in speedup_ticks])
        axes.set_ylim(*SPEEDUP_LIMITS)
        axes.set_xlim(0.7, 1024 * 1.45)
        batch_ticks = [1, 4, 16, 64, 256, 1024]
        _log_ticks(axes, "x", batch_ticks, [str(t) for t in batch_ticks])
        axes.set(xlabel=self._short("batch size b (log)", "batch size b (sequences together, log scale)"),
                 ylabel=self._short("speedup (log)", "expected speedup (×, log)"),
                 title=self._short("Speedup against batch b", "Expected speedup against batch size"))
        axes.legend(**self._legend_place("upper right"), framealpha=0.9, fontsize=None if self.compact else 9)

    def _legend_place(self, inside: str = "upper left") -> dict:
        """Where a lower panel's legend goes: inside the axes, or beside them in the compact layout."""
        return dict(loc="center left", bbox_to_anchor=(1.01, 0.5)) if self.compact else dict(loc=inside)

    def update(self, timeline, positions, target_seconds, draft_seconds, batches, model_speedups,
               formula_speedups, batch) -> None:
        """Show a `specdec.hardware.Timeline`, the two roofline curves and the speedup against batch."""
        def spans(passes):
            return [(p.start * MILLISECONDS, p.duration * MILLISECONDS) for p in passes]

        self.lanes["plain"].set_verts(_boxes(spans(timeline.plain), PLAIN_ROW))
        for model in ("target", "draft"):
            self.lanes[model].set_verts(_boxes(spans(p for p in timeline.speculative if p.model == model),
                                               SPECULATIVE_ROW))
        tiles = {"accepted": [], "resampled": [], "bonus": []}
        for verify in (p for p in timeline.speculative if p.model == "target"):
            width = verify.duration * MILLISECONDS / len(verify.origins)
            for i, origin in enumerate(verify.origins):
                tiles[origin].append((verify.start * MILLISECONDS + i * width, width))
        for origin, boxes in tiles.items():
            self.lanes[origin].set_verts(_boxes(boxes, TOKEN_ROW))

        plain_end, speculative_end = ((lane[-1].start + lane[-1].duration) * MILLISECONDS
                                      for lane in (timeline.plain, timeline.speculative))
        self.plain_end.set_xdata([plain_end, plain_end])
        self.speculative_end.set_xdata([speculative_end, speculative_end])
        self.timeline_title.set_text(
            f"plain {plain_end:,.0f} ms, speculative {speculative_end:,.0f} ms" if self.compact else
            f"{timeline.tokens} tokens: plain {plain_end:,.1f} ms; speculative {speculative_end:,.1f} ms "
            f"for {timeline.speculative_tokens} tokens in {len(timeline.step_counts)} steps (this seed)")

        gamma, positions = timeline.times.gamma, np.asarray(positions)
        target_ms = np.asarray(target_seconds) * MILLISECONDS
        draft_ms = np.asarray(draft_seconds) * MILLISECONDS
        self.target_curve.set_data(positions, target_ms)
        self.draft_curve.set_data(positions, draft_ms)
        self.plain_marker.set_data([1], [target_ms[0]])
        self.verify_marker.set_data([gamma + 1], [target_ms[gamma]])
        self.draft_marker.set_data([1], [draft_ms[0]])
        rising = np.flatnonzero(target_ms > target_ms[0])
        ridge = positions[rising[0]] if rising.size else positions[-1] * 2
        self.ridge_line.set_xdata([ridge, ridge])
        self.model_curve.set_data(batches, model_speedups)
        self.formula_curve.set_data(batches, formula_speedups)
        self.batch_marker.set_data([batch], [model_speedups[list(batches).index(batch)]])

        limits = (max(plain_end, speculative_end) * 1.02, min(target_ms.min(), draft_ms.min()) / 1.6,
                  max(target_ms.max(), draft_ms.max()) * 150)  # headroom above the curves for the legend
        if limits != self._limits:
            self.timeline_axes.set_xlim(0, limits[0])
            self.roofline_axes.set_ylim(*limits[1:])
            self._limits = limits
            self.fast.invalidate()

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only what changed."""
        with styled():
            return self.fast.png()


def accelerator_name(value, name: str, _arguments) -> str:
    """A key of `specdec.hardware.ACCELERATORS`."""
    names = ", ".join(hardware.ACCELERATORS)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a name (str), one of {names}; got {type(value).__name__}")
    if value not in hardware.ACCELERATORS:
        raise ValueError(f"{name} must be one of {names}; got {value!r}")
    return value


def model_pair(value, name: str, _arguments) -> tuple:
    """(target, draft), one of `specdec.hardware.PAIRS`; for another pair of models, the cost model's objection."""
    pair = tuple(value) if isinstance(value, (tuple, list)) else ()
    if pair in hardware.PAIRS:
        return pair
    if len(pair) == 2 and all(isinstance(model, str) and model in hardware.MODELS for model in pair):
        hardware.size_ratio(*(hardware.MODELS[model] for model in pair))  # a larger draft, another vocabulary
    raise ValueError(f"{name} must be one of the pairs (target, draft) {', '.join(map(str, hardware.PAIRS))}; "
                     f"got {value!r}")




def batch_size(value, name: str, arguments) -> int:
    """A batch size the slider offers: a power of two in 1 … 1024 (`specdec.hardware.BATCH_SIZES`)."""
    value = Count(1, hardware.BATCH_SIZES[-1])(value, name, arguments)
    if value not in hardware.BATCH_SIZES:
        raise ValueError(f"{name} must be a power of two in 1 … {hardware.BATCH_SIZES[-1]}, got {value}")
    return value


class TimelineExplorer(Explorer):
    """A timeline of plain and speculative decoding on a chosen accelerator, with the pass-time roofline.

    Parameters
    ----------
    accelerator : str
        A key of `specdec.hardware.ACCELERATORS`.
    pair : (str, str)
        (target, draft), one of `specdec.hardware.PAIRS` (models that share a vocabulary).
    gamma : int in 0 … 10
    alpha : float in [0, 1]
    batch : int, a power of two in 1 … 1024
    seed : int in 0 … 99
        Seed of the sampled steps: each step's number of tokens is drawn with the real verify rule.
    pass_time : float in 0 … 3
        The fixed time of every forward pass, in ms (`specdec.hardware.with_pass_overhead`).

    Attributes
    ----------
    controls : dict
        ``"accelerator"``, ``"pair"`` (dropdowns), ``"gamma"``, ``"alpha"``, ``"batch"``, ``"seed"``, ``"pass_time"``.
    shown : dict
        Those values, ``target`` and ``draft`` (names), ``chip`` (the `specdec.hardware.Accelerator` with
        that fixed time), ``times`` (`specdec.hardware.PassTimes`), ``timeline`` (`specdec.hardware.Timeline`),
        ``implied_c``, ``size_ratio``, ``plain_ms_per_token``, ``speculative_ms_per_token`` (this seed),
        ``expected_ms_per_token``, ``sampled_speedup``, ``expected_speedup``, ``formula_speedup``, ``devices``
        (devices the target's weights need) and ``memory`` (`specdec.hardware.MemoryCheck`).

    Examples
    --------
    >>> explorer = TimelineExplorer()
    >>> round(explorer.shown["implied_c"], 1), round(explorer.shown["formula_speedup"], 2)
    (21.2, 2.83)
    """

    title = "Where the time goes: draft and target passes"

    @checked(accelerator=accelerator_name, pair=model_pair, gamma=Count(0, TIMELINE_GAMMA_SLIDER_MAX),
             alpha=Probability(), batch=batch_size, seed=Count(0, SEED_SLIDER_MAX),
             pass_time=slider_range(PASS_TIME_SLIDER_MAX_MS, " ms"))
    def __init__(self, accelerator="H100 SXM", pair=hardware.DEFAULT_PAIR, gamma=4, alpha=0.8, batch=1, seed=0,
                 pass_time=hardware.MEASURED_PASS_OVERHEAD * MILLISECONDS):
        label = dict(style=LABEL_STYLE)
        controls = {
            "accelerator": widgets.Dropdown(options=list(hardware.ACCELERATORS), value=accelerator,
                                            description="accelerator", **label),
            "pair": widgets.Dropdown(options=[(f"{t} / {d}", (t, d)) for t, d in hardware.PAIRS], value=pair,
                                     description="models: target / draft", **label),
            "gamma": widgets.IntSlider(value=gamma, min=0, max=TIMELINE_GAMMA_SLIDER_MAX, description="draft length γ",
                                       **label),
            "alpha": widgets.FloatSlider(value=alpha, min=0.0, max=1.0, step=0.01, readout_format=".2f",
                                         description="acceptance rate α", **label),
            "batch": widgets.SelectionSlider(options=list(hardware.BATCH_SIZES), value=batch,
                                             description="batch size b", **label),
            "seed": widgets.IntSlider(value=seed, min=0, max=SEED_SLIDER_MAX, description="seed", **label),
            "pass_time": widgets.FloatSlider(value=pass_time, min=0.0, max=PASS_TIME_SLIDER_MAX_MS, step=0.1,
                                             readout_format=".1f", description="fixed time per pass (ms)", **label),
        }
        super().__init__(controls, [["accelerator", "pair"], ["gamma", "alpha"], ["batch", "seed", "pass_time"]],
                         TimelineFigure(), compact_rows=([["accelerator"], ["gamma"], ["batch"]],
                                                         [["pair"], ["alpha", "seed"], ["pass_time"]]))

    def compute(self) -> dict:
        chip = hardware.with_pass_overhead(hardware.ACCELERATORS[self.value("accelerator")],
                                           self.value("pass_time") / MILLISECONDS)
        target, draft = self.value("pair")
        big, small = hardware.MODELS[target], hardware.MODELS[draft]
        g, a, b, s = (self.value(name) for name in ("gamma", "alpha", "batch", "seed"))
        timeline = hardware.sample_timeline(chip, big, small, g, a, batch=b, seed=s, tokens=TIMELINE_TOKENS)
        positions, target_seconds = hardware.roofline(big, chip, batch=b, max_positions=ROOFLINE_TICKS[-1])
        _, draft_seconds = hardware.roofline(small, chip, batch=b, max_positions=ROOFLINE_TICKS[-1])
        model_speedups, formula_speedups = hardware.speedup_against_batch(chip, big, small, g, a)
        self.picture.update(timeline, positions, target_seconds, draft_seconds, list(hardware.BATCH_SIZES),
                            model_speedups, formula_speedups, b)
        times = timeline.times
        return {
            "accelerator": self.value("accelerator"), "pair": (target, draft), "target": target, "draft": draft,
            "gamma": g, "alpha": a, "batch": b, "seed": s, "pass_time": self.value("pass_time"), "chip": chip,
            "times": times, "timeline": timeline, "implied_c": times.implied_c,
            "size_ratio": hardware.size_ratio(big, small), "memory": times.memory,
            "plain_ms_per_token": timeline.plain_time_per_token * MILLISECONDS,
            "speculative_ms_per_token": timeline.speculative_time_per_token * MILLISECONDS,
            "expected_ms_per_token": timeline.plain_time_per_token * MILLISECONDS / timeline.expected_speedup,
            "sampled_speedup": timeline.sampled_speedup, "expected_speedup": timeline.expected_speedup,
            "formula_speedup": timeline.formula_speedup, "devices": hardware.devices_needed(big, chip),
        }

    def describe(self, shown: dict) -> Readout:
        times, timeline, chip, memory = shown["times"], shown["timeline"], shown["chip"], shown["memory"]
        overhead = times.verify_overhead
        verify = "free: same time as one position" if overhead == 1.0 else f"{overhead:.2f}× a plain pass"
        needed, capacity = f"{memory.needed / 1e9:,.0f} GB", f"{memory.capacity / 1e9:,.0f} GB"
        weights = f"; {shown['target']} needs {shown['devices']} × {capacity} for its weights alone"
        memory_line = line(f"Memory: {needed} for weights and KV caches (bf16), of {capacity}") if memory.fits else \
            line(f"Memory: {needed} for weights and KV caches (bf16), more than the {capacity} of one {chip.name}"
                 f"{weights if shown['devices'] > 1 else ''}; the model keeps one device's numbers and leaves out "
                 "the communication.")
        return Readout([
            line(f"{chip.name}: {chip.memory_bandwidth / 1e12:.3g} TB/s, {chip.peak_flops / 1e12:.3g} TFLOP/s; "
                 f"compute-bound past {chip.ridge:.0f} FLOP/byte; {shown['pass_time']:.1f} ms fixed per pass"),
            memory_line,
            line("One target pass: ", bold(f"{ms(times.target_decode)} ms"), key=False),
            line(f"Verify pass (γ+1 = {shown['gamma'] + 1} positions): {ms(times.target_verify)} ms ({verify})"),
            line(f"One draft pass: {ms(times.draft_pass)} ms"),
            line("implied c = target ÷ draft = ", bold(f"{shown['implied_c']:.1f}"),
                 f" (ratio of sizes {shown['size_ratio']:.1f})", key=True),
            line("Time per token, plain: ", bold(f"{ms(times.target_decode)} ms"), key=True),
            line("speculative, this seed: ", bold(f"{ms(timeline.speculative_time_per_token)} ms"),
                 f" (expected {ms(timeline.plain_time_per_token / timeline.expected_speedup)} ms)", key=False),
            line(f"Tokens/s over the batch of {shown['batch']}: plain {times.plain_tokens_per_second():,.0f}, "
                 f"speculative {times.speculative_tokens_per_second(shown['alpha']):,.0f} expected"),
            line("Speedup, this seed: ", bold(f"{shown['sampled_speedup']:.2f}×"), key=True),
            line("expected, cost model: ", bold(f"{shown['expected_speedup']:.2f}×"), key=True),
            line(f"speedup(α, γ, c) = {shown['formula_speedup']:.2f}× (verify pass counted as free)"),
        ])


def ms(seconds: float) -> str:
    """A time in ms as a readout shows it: three significant digits, no scientific notation.

    >>> ms(0.0435), ms(1.6104), ms(0.000512)
    ('43.5', '1,610', '0.512')
    """
    milliseconds = seconds * MILLISECONDS
    return f"{milliseconds:,.0f}" if milliseconds >= 100 else f"{milliseconds:.3g}"
