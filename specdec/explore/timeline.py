"""Where the time goes (notebook 05): draft and target passes on a clock, one pass's roofline, speedup against batch.

Top: plain against speculative decoding, a tile per emitted token. Bottom left: one pass's time
against the positions it scores. Bottom right: the expected speedup against the batch size. Every
number comes from `specdec.hardware`, which says what it leaves out.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.patches import PathPatch
from matplotlib.path import Path
from matplotlib.ticker import NullLocator

from .. import hardware, palette
from ..validation import Between, Count, OneOf, Probability, checked
from .frame import (COMPACT_FIGURE_INCHES, SEED_SLIDER_MAX, Explorer, FastRedraw, Picture, Readout, bold, compact,
                    labelled, line, new_figure, role_patch, role_style, slider, styled)

TIMELINE_GAMMA_SLIDER_MAX = 10  #: the hardware timeline's γ slider: 0 … 10
PASS_TIME_SLIDER_MAX_MS = 3.0  #: the timeline's fixed time per pass, 0 … 3 ms (`hardware.Accelerator.pass_overhead`)

#: Vertical extent of each row of the timeline (bottom, top).
PLAIN_ROW, SPECULATIVE_ROW, TOKEN_ROW = (2.55, 3.25), (1.35, 2.05), (0.55, 1.15)
#: The ordinary layout's bottom legends: under their panels, off the data, two columns as wide as a panel.
UNDER_PANEL = dict(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2, frameon=False, columnspacing=0.8,
                   handlelength=1.5, fontsize=9)
#: Ticks of the two log₂ axes, positions per sequence and batch size: every other power of two, readable.
ROOFLINE_TICKS = (1, 4, 16, 64, 256, 1024)
TIMELINE_TOKENS = 32  #: tokens in the timeline: several steps, each pass visible
MILLISECONDS = 1e3


def _boxes(passes, row) -> Path:
    """One path of the rectangles of every (start, duration) in ms on a row (bottom, top): one path per
    lane, not a collection of rectangles, hatches some 15 times faster."""
    bottom, top = row
    boxes = [[(s, bottom), (s + d, bottom), (s + d, top), (s, top)] for s, d in passes]
    return Path.make_compound_path_from_polys(np.array(boxes, dtype=float).reshape(-1, 4, 2))


class TimelineFigure(Picture):
    """The three panels, built once; `update` changes their data.

    Examples
    --------
    >>> h100 = hardware.ACCELERATORS["H100 SXM"]
    >>> timeline = hardware.sample_timeline(h100, 70e9, 7e9, 4, 0.8, tokens=12)
    >>> positions, target = hardware.roofline(70e9, h100, max_positions=1024)
    >>> _, draft = hardware.roofline(7e9, h100, max_positions=1024)
    >>> picture = TimelineFigure()
    >>> picture.update(timeline, positions, target, draft, batches=[1, 2], model_speedups=[2.4, 2.4],
    ...                formula_speedups=[2.4, 2.4], fits=[True, False], batch=1,
    ...                ridge=hardware.compute_bound_from(70e9, h100))
    >>> int((picture.lanes["plain"].get_path().codes == Path.MOVETO).sum())  # one box per token
    12
    """

    def __init__(self):
        # Presentation mode: three rows, one legend beside them all, fewer ticks, shorter labels.
        self.compact = compact()
        self.ticks = ROOFLINE_TICKS[::2] if self.compact else ROOFLINE_TICKS  # log₂ axes; compact: fewer, apart
        self.legend_handles = []  # the compact layout's one legend
        with styled():
            figure = self.figure = new_figure(10.0, 7.0, compact_size=COMPACT_FIGURE_INCHES)  # tall: legends below
            grid = figure.add_gridspec(3, 1) if self.compact else figure.add_gridspec(2, 2, height_ratios=(1.0, 1.1))
            cells = (grid[0], grid[1], grid[2]) if self.compact else (grid[0, :], grid[1, 0], grid[1, 1])
            self.timeline_axes, self.roofline_axes, self.batch_axes = map(figure.add_subplot, cells)
            self._build_timeline(self.timeline_axes)
            self._build_roofline(self.roofline_axes)
            self._build_batch(self.batch_axes)
            if self.compact:
                self.figure.legend(handles=self.legend_handles, loc="outside right center", handlelength=1.5)
        self.fast = FastRedraw(self.figure, changing=[
            *self.lanes.values(), self.timeline_title, self.plain_end, self.speculative_end, self.target_curve,
            self.draft_curve, self.plain_marker, self.verify_marker, self.draft_marker, self.ridge_line,
            self.model_curve, self.formula_curve, self.batch_marker, self.no_fit_marker,
        ], occasional=[self.timeline_axes.xaxis, self.roofline_axes.yaxis])
        self._limits = None

    def _short(self, compact_text: str, text: str) -> str:  # presentation mode: shorter labels
        return compact_text if self.compact else text

    def _legend(self, axes, handles, **place) -> None:
        """A panel's legend; in the compact layout its entries join the one legend beside the panels."""
        if self.compact:
            self.legend_handles += handles
        else:
            axes.legend(handles=handles, **place)

    @staticmethod
    def _log_axis(axes, which: str, ticks, label: str, limits) -> None:
        """Axis `which` ("x": log₂, "y": log₁₀) with only `ticks`, each labelled ``label.format(tick)``."""
        getattr(axes, f"set_{which}scale")("log", base=2 if which == "x" else 10)
        getattr(axes, f"{which}axis").set_minor_locator(NullLocator())
        getattr(axes, f"set_{which}ticks")(ticks, [label.format(tick) for tick in ticks])
        getattr(axes, f"set_{which}lim")(*limits)

    def _build_timeline(self, axes):
        # A white edge between boxes, none around a draft pass: with a cheap draft, a pass is a pixel or two wide.
        edges = {"draft": palette.ROLES["draft"].colour}
        self.lanes = {name: axes.add_patch(PathPatch(_boxes([], PLAIN_ROW), linewidth=0.5, **role_style(role),
                                                     edgecolor=edges.get(role, "white")))
                      for name, role in (("plain", "target"), ("target", "target"), ("accepted", "accepted"),
                                         ("resampled", "resampled"), ("bonus", "bonus"), ("draft", "draft"))}
        done = dict(color=palette.HIGHLIGHT, linewidth=1.5, linestyle="--")
        self.plain_end = axes.axvline(1.0, **done, label="plain done")
        self.speculative_end = axes.axvline(1.0, **{**done, "linestyle": ":"}, label="speculative done")
        axes.set_ylim(0.3, 3.5)
        axes.set_yticks([sum(PLAIN_ROW) / 2, sum(SPECULATIVE_ROW) / 2, sum(TOKEN_ROW) / 2],
                        ["plain", "speculative", ""] if self.compact else  # compact: rows too close for three
                        ["plain:\ntarget passes", "speculative:\npasses", "speculative:\ntokens out"])
        axes.set(xlabel="time (ms)", xlim=(0, 1))
        self.timeline_title = axes.set_title(" ")
        roles = [role_patch(name, self._short("", f"{name} pass") if name in ("target", "draft") else "")
                 for name in ("target", "draft", "accepted", "resampled", "bonus")]
        ends = [] if self.compact else [self.plain_end, self.speculative_end]  # compact: the title says them
        self._legend(axes, roles + ends, **{**UNDER_PANEL, "ncol": 4, "handlelength": 1.6, "columnspacing": 1.0,
                                            "fontsize": None})  # four columns, at the legends' usual size

    def _build_roofline(self, axes):
        target, draft = palette.ROLES["target"], palette.ROLES["draft"]
        self.target_curve, self.draft_curve = (axes.plot([1], [1], color=role.colour, linewidth=2.5, linestyle=style,
                                                         label=role.labelled("one pass"))[0]
                                               for role, style in ((target, "-"), (draft, "--")))
        marker = dict(linestyle="none", markeredgecolor=palette.HIGHLIGHT, markeredgewidth=1.5, zorder=5)
        (self.plain_marker,) = axes.plot([1], [1], marker="o", markersize=9, markerfacecolor="white",
                                         label=self._short("t = 1", "plain step, t = 1"), **marker)
        (self.verify_marker,) = axes.plot([1], [1], marker="*", markersize=15, markerfacecolor=palette.HIGHLIGHT,
                                          label=self._short("t = γ+1", "verify, t = γ+1"), **marker)
        (self.draft_marker,) = axes.plot([1], [1], marker="s", markersize=7, markerfacecolor=draft.colour, **marker)
        self.ridge_line = axes.axvline(1.0, color=palette.NEUTRAL, linestyle="-.", linewidth=1.5,
                                       label=self._short("compute-bound", "compute-bound from here"))
        self._log_axis(axes, "x", self.ticks, "{}", (0.8, ROOFLINE_TICKS[-1] * 1.25))
        axes.set_yscale("log")
        axes.set(xlabel=self._short("positions per sequence, t", "positions scored per sequence, t (log scale)"),
                 ylabel=self._short("ms (log)", "time of one pass (ms, log)"),
                 title=self._short("One pass", "One pass: flat while memory-bound"))
        axes.yaxis.set_label_coords(-0.25 if self.compact else -0.17, 0.5)  # clear of the widest tick label (10⁻¹)
        curves = [self.target_curve, self.draft_curve] if not self.compact else []  # compact: the roles' colours
        self._legend(axes, curves + [self.plain_marker, self.verify_marker, self.ridge_line], **UNDER_PANEL)

    def _build_batch(self, axes):
        plain = axes.axhline(1.0, color=palette.NEUTRAL, linestyle=":", linewidth=1.5,
                             label=self._short("1×", "1× (plain)"))
        (self.formula_curve,) = axes.plot([1], [1], color=palette.NEUTRAL, linestyle="--", linewidth=2, marker=".",
                                          label=self._short("verify free", "speedup(α, γ, c), verify free"))
        (self.model_curve,) = axes.plot([1], [1], color=palette.HIGHLIGHT, linewidth=2, marker=".", label="cost model")
        (self.batch_marker,) = axes.plot([1], [1], linestyle="none", marker="o", markersize=11, markerfacecolor="none",
                                         markeredgecolor=palette.HIGHLIGHT, markeredgewidth=2,
                                         label=self._short("this b", "this batch"))
        (self.no_fit_marker,) = axes.plot([1], [1], linestyle="none", marker="x", markersize=8, color=palette.HIGHLIGHT,
                                          markeredgewidth=2, label="not in memory")
        # Fixed limits, with room above 11× (the most, γ+1); the legend is outside.
        self._log_axis(axes, "y", (0.1, 1, 10) if self.compact else (0.1, 0.25, 0.5, 1, 2, 4, 8), "{:g}×", (0.07, 15))
        self._log_axis(axes, "x", self.ticks, "{}", (0.7, 1024 * 1.45))
        axes.set(xlabel=self._short("batch size b", "batch size b (log scale)"),
                 ylabel=self._short("speedup", "expected speedup (×, log)"),
                 title=self._short("Speedup, b tried", "Speedup at the batch sizes tried"))
        curves = [self.formula_curve, self.model_curve, self.batch_marker, self.no_fit_marker]
        self._legend(axes, ([] if self.compact else [plain]) + curves, **UNDER_PANEL)

    def update(self, timeline, positions, target_seconds, draft_seconds, batches, model_speedups,
               formula_speedups, fits, batch, ridge) -> None:
        """A `specdec.hardware.Timeline`, the roofline curves with the target's compute-bound point `ridge`, and the
        speedup at `batches` (`fits`: in memory), `batch` ringed."""
        spans = {name: [] for name in self.lanes}  # each lane's boxes: (start, duration) in ms
        spans["plain"] = [(p.start * MILLISECONDS, p.duration * MILLISECONDS) for p in timeline.plain]
        for p in timeline.speculative:
            start, duration = p.start * MILLISECONDS, p.duration * MILLISECONDS
            spans[p.model].append((start, duration))
            width = duration / max(len(p.origins), 1)  # a verify pass: a tile for each token it emits
            for i, origin in enumerate(p.origins):
                spans[origin].append((start + i * width, width))
        rows = {"plain": PLAIN_ROW, "target": SPECULATIVE_ROW, "draft": SPECULATIVE_ROW}  # the tokens: TOKEN_ROW
        for name, lane in self.lanes.items():
            lane.set_path(_boxes(spans[name], rows.get(name, TOKEN_ROW)))

        plain_end, speculative_end = ((lane[-1].start + lane[-1].duration) * MILLISECONDS
                                      for lane in (timeline.plain, timeline.speculative))
        for end_line, end in ((self.plain_end, plain_end), (self.speculative_end, speculative_end)):
            end_line.set_xdata([end, end])
        self.timeline_title.set_text(
            f"plain {plain_end:,.0f}, speculative {speculative_end:,.0f} ms" if self.compact else
            f"{timeline.tokens} tokens: plain {plain_end:,.1f} ms; speculative {speculative_end:,.1f} ms "
            f"for {timeline.speculative_tokens} tokens in {len(timeline.step_counts)} steps (this seed)")

        gamma, positions = timeline.times.gamma, np.asarray(positions)
        target_ms, draft_ms = (np.asarray(seconds) * MILLISECONDS for seconds in (target_seconds, draft_seconds))
        self.target_curve.set_data(positions, target_ms)
        self.draft_curve.set_data(positions, draft_ms)
        self.plain_marker.set_data([1], [target_ms[0]])
        self.verify_marker.set_data([gamma + 1], [target_ms[gamma]])
        self.draft_marker.set_data([1], [draft_ms[0]])
        self.ridge_line.set_xdata([max(ridge, 1.0)] * 2)  # below 1: compute-bound already at one position
        self.model_curve.set_data(batches, model_speedups)
        self.formula_curve.set_data(batches, formula_speedups)
        self.batch_marker.set_data([batch], [model_speedups[list(batches).index(batch)]])
        fits = np.asarray(fits, dtype=bool)
        self.no_fit_marker.set_data(np.asarray(batches)[~fits], np.asarray(model_speedups)[~fits])

        # Round limits (a few steps a decade; whole decades), so that the axes are redrawn only now and then.
        end = max(plain_end, speculative_end) * 1.02
        decade = 10 ** np.floor(np.log10(end))
        limits = (next(m * decade for m in (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10) if m * decade >= end),
                  10 ** np.floor(np.log10(min(target_ms.min(), draft_ms.min()) / 1.6)),
                  10 ** np.ceil(np.log10(max(target_ms.max(), draft_ms.max()) * 3)))  # a little room above the curves
        if limits != self._limits:
            self.timeline_axes.set_xlim(0, limits[0])
            self.roofline_axes.set_ylim(*limits[1:])
            self._limits = limits
            self.fast.invalidate(limits)


def model_pair(value, name: str, _arguments) -> tuple:
    """(target, draft), one of `specdec.hardware.PAIRS`; for another pair of models, the cost model's objection."""
    pair = tuple(value) if isinstance(value, (tuple, list)) else ()
    if pair in hardware.PAIRS:
        return pair
    if len(pair) == 2 and all(isinstance(model, str) and model in hardware.MODELS for model in pair):
        hardware.size_ratio(*(hardware.MODELS[model] for model in pair))  # a larger draft, another vocabulary
    raise ValueError(f"{name} must be one of the pairs (target, draft) {', '.join(map(str, hardware.PAIRS))}; "
                     f"got {value!r}")


class TimelineExplorer(Explorer):
    """A timeline of plain and speculative decoding on a chosen accelerator, with the pass-time roofline.

    Parameters
    ----------
    accelerator : a key of `specdec.hardware.ACCELERATORS`
    pair : (target, draft), one of `specdec.hardware.PAIRS`
    gamma, alpha, batch : int in 0 … 10, float in [0, 1], a power of two in 1 … 1024
    seed : int in 0 … 99, the seed of the sampled steps (each step's tokens drawn with the real verify rule)
    pass_time : float in 0 … 3, the fixed time of every forward pass in ms (`specdec.hardware.with_pass_overhead`)

    Attributes
    ----------
    controls : the parameters' controls, and the button ``"opening"`` (every control back where it opened).
    shown : those values, ``target``, ``draft``, ``chip``, ``times``, ``timeline``, ``implied_c``,
        ``size_ratio``, ``plain_``, ``speculative_`` and ``expected_ms_per_token``, ``sampled_``, ``expected_``
        and ``formula_speedup``, ``devices``, ``memory``, and the speedup curve: ``batches`` (up to the
        largest tried, not to answer before the learner tries one), ``model_speedups``,
        ``formula_speedups``, ``fits``.

    Examples
    --------
    >>> explorer = TimelineExplorer()
    >>> round(explorer.shown["implied_c"], 1), round(explorer.shown["formula_speedup"], 2)
    (21.2, 2.83)
    """

    title = "Where the time goes: draft and target passes"

    @checked(accelerator=OneOf(*hardware.ACCELERATORS), pair=model_pair, gamma=Count(0, TIMELINE_GAMMA_SLIDER_MAX),
             alpha=Probability(), batch=OneOf(*hardware.BATCH_SIZES), seed=Count(0, SEED_SLIDER_MAX),
             pass_time=Between(0.0, PASS_TIME_SLIDER_MAX_MS, " ms"))
    def __init__(self, accelerator="H100 SXM", pair=hardware.DEFAULT_PAIR, gamma=4, alpha=0.8, batch=1, seed=0,
                 pass_time=hardware.MEASURED_PASS_OVERHEAD * MILLISECONDS):
        controls = {
            "accelerator": labelled(widgets.Dropdown, "accelerator", options=list(hardware.ACCELERATORS),
                                    value=accelerator),
            # The pair's names are long: its label goes above the menu, so that the menu shows them whole.
            "pair": labelled(widgets.Dropdown, "models: target / draft", value=pair,
                             options=[(f"{t} / {d}", (t, d)) for t, d in hardware.PAIRS], label_above=True),
            "gamma": slider("draft length γ", gamma, (0, TIMELINE_GAMMA_SLIDER_MAX)),
            "alpha": slider("acceptance rate α", alpha, (0.0, 1.0), 0.01, readout_format=".2f"),
            "batch": labelled(widgets.SelectionSlider, "batch size b", options=list(hardware.BATCH_SIZES), value=batch),
            "seed": slider("seed", seed, (0, SEED_SLIDER_MAX)),
            "pass_time": slider("fixed time per pass (ms)", pass_time, (0.0, PASS_TIME_SLIDER_MAX_MS), 0.1,
                                readout_format=".1f"),
        }
        self.opening = {name: control.value for name, control in controls.items()}
        controls["opening"] = widgets.Button(description="opening settings",
                                             tooltip="put every control back where the explorer opened")
        self.widest_batch = batch  # the speedup curve is drawn up to the largest batch size tried
        super().__init__(controls, [["accelerator", "pair", "opening"], ["gamma", "alpha"],
                                    ["batch", "seed", "pass_time"]], TimelineFigure(),
                         compact_rows=([["accelerator", "opening"], ["gamma"], ["batch"]],
                                       [["pair"], ["alpha", "seed"], ["pass_time"]]))
        self.on_click("opening", self.open_again)

    def open_again(self) -> None:
        """Put every control back where the explorer opened (the speedup curve keeps the batch sizes tried)."""
        for name, value in self.opening.items():
            self.controls[name].value = value

    def compute(self) -> dict:
        values = {name: self.value(name) for name in self.opening}
        chip = hardware.with_pass_overhead(hardware.ACCELERATORS[values["accelerator"]],
                                           values["pass_time"] / MILLISECONDS)
        (target, draft), g, a, b, s = (values[name] for name in ("pair", "gamma", "alpha", "batch", "seed"))
        big, small = hardware.MODELS[target], hardware.MODELS[draft]
        timeline = hardware.sample_timeline(chip, big, small, g, a, batch=b, seed=s, tokens=TIMELINE_TOKENS)
        positions, target_seconds = hardware.roofline(big, chip, batch=b, max_positions=ROOFLINE_TICKS[-1])
        _, draft_seconds = hardware.roofline(small, chip, batch=b, max_positions=ROOFLINE_TICKS[-1])
        self.widest_batch = max(self.widest_batch, b)
        batches = [size for size in hardware.BATCH_SIZES if size <= self.widest_batch]
        model_speedups, formula_speedups = hardware.speedup_against_batch(chip, big, small, g, a, batches)
        needed = hardware.devices_needed(big, chip)
        devices = hardware.cluster(chip, needed)  # as many as the weights need
        fits = hardware.batches_that_fit(devices, big, small, batches)
        self.picture.update(timeline, positions, target_seconds, draft_seconds, batches, model_speedups,
                            formula_speedups, fits, b, hardware.compute_bound_from(big, chip, batch=b))
        times, plain_ms = timeline.times, timeline.plain_time_per_token * MILLISECONDS
        return {**values, "target": target, "draft": draft, "chip": chip, "times": times, "timeline": timeline,
                "implied_c": times.implied_c, "size_ratio": hardware.size_ratio(big, small), "batches": batches,
                "memory": hardware.memory_check(devices, big, small, batch=b), "model_speedups": model_speedups,
                "formula_speedups": formula_speedups, "fits": fits, "devices": needed, "plain_ms_per_token": plain_ms,
                "expected_ms_per_token": plain_ms / timeline.expected_speedup,
                "speculative_ms_per_token": timeline.speculative_time_per_token * MILLISECONDS,
                "sampled_speedup": timeline.sampled_speedup, "expected_speedup": timeline.expected_speedup,
                "formula_speedup": timeline.formula_speedup}

    def describe(self, shown: dict) -> Readout:
        times, timeline, chip, memory = shown["times"], shown["timeline"], shown["chip"], shown["memory"]
        overhead, devices, scored = times.verify_overhead, shown["devices"], shown["gamma"] + 1  # scored: positions
        verify = "free: same time as one position" if overhead == 1.0 else f"{overhead:.2f}× a plain pass"
        on = f"one {chip.name}" if devices == 1 else f"{devices} × {chip.name}, as many as the weights need"
        # As many decimals as it takes (up to 2) for the need and the capacity not to read as one number.
        digits = next((d for d in range(3) if f"{memory.needed / 1e9:.{d}f}" != f"{memory.capacity / 1e9:.{d}f}"), 2)
        needed = f"Memory: weights and KV caches (bf16) need {memory.needed / 1e9:,.{digits}f} GB"
        capacity = f"the {memory.capacity / 1e9:,.{digits}f} GB of {on}"
        cluster = (f"{shown['target']} needs {devices} × {chip.memory_capacity / 1e9:.0f} GB for its weights; the "
                   "model keeps one device's times and leaves out the communication.")
        return Readout([
            line(f"{chip.name}: {chip.memory_bandwidth / 1e12:.3g} TB/s, {chip.peak_flops / 1e12:.3g} TFLOP/s; "
                 f"compute-bound past {chip.ridge:.0f} FLOP/byte; {shown['pass_time']:.1f} ms fixed per pass"),
            line(f"{needed} of {capacity}" if memory.fits else
                 f"{needed}, more than {capacity}: this batch does not fit"),
            *([line(cluster)] if devices > 1 else []),
            line("One target pass: ", bold(f"{ms(times.target_decode)} ms"), key=False),
            line(f"Verify pass (γ+1 = {scored} {'position' if scored == 1 else 'positions'}): "
                 f"{ms(times.target_verify)} ms ({verify})"),
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
    """A time in ms as a readout shows it: three significant digits (trailing zeros kept), no scientific notation.

    >>> ms(0.0435), ms(1.6104), ms(0.000512), ms(0.072)
    ('43.5', '1,610', '0.512', '72.0')
    """
    milliseconds = seconds * MILLISECONDS
    return f"{milliseconds:,.0f}" if milliseconds >= 99.95 else f"{milliseconds:#.3g}"
