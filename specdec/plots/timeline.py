"""Where the time goes: a timeline of draft and target passes, the roofline of one pass, and speedup against batch.

Top: two lanes on one clock. Plain decoding is one target pass per token. Speculative decoding is
γ draft passes and one verify pass per step; under each verify pass, one tile per token the step
emitted, coloured by where it came from (accepted, resampled, bonus). Bottom left: the time of one
pass against the number of positions it scores, for the target and the draft (log–log): flat while
reading the weights dominates, then rising once the arithmetic does. Bottom right: the expected
speedup against the batch size, by the cost model and by speedup(α, γ, c) with the verify pass
counted as free.

Nothing here computes what the notebook teaches: the numbers come from `specdec.hardware`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, NullLocator

from .. import palette
from .canvas import COMPACT_FIGURE_INCHES, figure_scale, new_figure, role_patch, role_style, styled
from .fast_redraw import FastRedraw

#: Vertical extent of each row of the timeline (bottom, top).
PLAIN_ROW = (2.55, 3.25)
SPECULATIVE_ROW = (1.35, 2.05)
TOKEN_ROW = (0.55, 1.15)

#: Ticks of the logarithmic speedup axis, and its fixed limits.
SPEEDUP_TICKS = (0.1, 0.25, 0.5, 1, 2, 4, 8)
SPEEDUP_LIMITS = (0.07, 60)

#: Positions per sequence on the roofline's axis.
ROOFLINE_TICKS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


def _boxes(starts, durations, row) -> list:
    bottom, top = row
    return [[(s, bottom), (s + d, bottom), (s + d, top), (s, top)] for s, d in zip(starts, durations)]


class TimelineFigure:
    """The three panels, built once; `update` changes their data.

    Examples
    --------
    >>> from specdec import hardware
    >>> line = hardware.sample_timeline(hardware.ACCELERATORS["H100 SXM"], 70e9, 7e9, 4, 0.8, tokens=12)
    >>> positions, target = hardware.roofline(70e9, hardware.ACCELERATORS["H100 SXM"], max_positions=1024)
    >>> _, draft = hardware.roofline(7e9, hardware.ACCELERATORS["H100 SXM"], max_positions=1024)
    >>> picture = TimelineFigure()
    >>> picture.update(line, positions, target, draft, batches=[1, 2], model_speedups=[2.4, 2.4],
    ...                formula_speedups=[2.4, 2.4], batch=1)
    >>> len(picture.lanes["plain"].get_paths()), picture.png()[:4]
    (12, b'\\x89PNG')
    """

    def __init__(self):
        # Presentation mode's compact layout: the legends beside or under the axes, fewer ticks, the
        # title on two lines, so that the smaller figure keeps its text large and uncrowded.
        self.compact = figure_scale() > 1
        with styled():
            self.figure = new_figure(10.0, 5.9, compact_size=COMPACT_FIGURE_INCHES)
            if self.compact:  # three rows, each with its legend beside it
                self.timeline_axes, self.roofline_axes, self.batch_axes = self.figure.subplots(3, 1)
            else:
                grid = self.figure.add_gridspec(2, 2, height_ratios=(1.0, 1.1))
                self.timeline_axes = self.figure.add_subplot(grid[0, :])
                self.roofline_axes = self.figure.add_subplot(grid[1, 0])
                self.batch_axes = self.figure.add_subplot(grid[1, 1])
            self._build_timeline(self.timeline_axes)
            self._build_roofline(self.roofline_axes)
            self._build_batch(self.batch_axes)
        self.fast = FastRedraw(
            self.figure,
            changing=[*self.lanes.values(), self.timeline_title, self.plain_end, self.speculative_end,
                      self.target_curve, self.draft_curve, self.plain_marker, self.verify_marker,
                      self.draft_marker, self.ridge_line,
                      self.model_curve, self.formula_curve, self.batch_marker],
            occasional=[self.timeline_axes.xaxis, self.roofline_axes.yaxis],
        )
        self._limits = None

    def _build_timeline(self, axes):
        self.lanes = {
            "plain": PolyCollection([], edgecolor="white", linewidth=0.5, **role_style("target")),
            "target": PolyCollection([], edgecolor="white", linewidth=0.5, **role_style("target")),
            # No white gap around a draft pass: with a cheap draft, a pass is a pixel or two wide.
            "draft": PolyCollection([], linewidth=0.5, **role_style("draft"),
                                    edgecolor=palette.ROLES["draft"].colour),
        }
        for origin in ("accepted", "resampled", "bonus"):
            self.lanes[origin] = PolyCollection([], edgecolor="white", linewidth=0.5, **role_style(origin))
        for collection in self.lanes.values():
            axes.add_collection(collection)
        line_style = dict(color=palette.HIGHLIGHT, linewidth=1.5, linestyle="--")
        self.plain_end = axes.axvline(1.0, ymin=0.0, ymax=1.0, **line_style)
        self.speculative_end = axes.axvline(1.0, ymin=0.0, ymax=1.0, **{**line_style, "linestyle": ":"})
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
            role_patch("target", "target pass"), role_patch("draft", "draft pass"),
            role_patch("accepted"), role_patch("resampled"), role_patch("bonus"),
            Line2D([], [], **line_style, label="plain done"),
            Line2D([], [], **{**line_style, "linestyle": ":"}, label="speculative done"),
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
        (self.draft_marker,) = axes.plot([1], [1], marker="s", markersize=7, markerfacecolor=draft.colour,
                                         **marker)
        self.ridge_line = axes.axvline(1.0, color=palette.NEUTRAL, linestyle=":", linewidth=1.5,
                                       label="target turns compute-bound")
        axes.set_xscale("log", base=2)
        axes.set_yscale("log")
        ticks = ROOFLINE_TICKS[::2] if self.compact else ROOFLINE_TICKS  # 1, 4, 16, …: room for each label
        axes.xaxis.set_major_locator(FixedLocator(ticks))
        axes.xaxis.set_minor_locator(NullLocator())
        axes.set_xticks(ticks, [str(t) for t in ticks])
        axes.set_xlim(0.8, ROOFLINE_TICKS[-1] * 1.25)
        axes.set_xlabel("positions per sequence, t (log)" if self.compact else
                        "positions scored per sequence, t (log scale)")
        axes.set_ylabel("ms (log)" if self.compact else "time of one pass (ms, log)")
        axes.set_title("One pass against t" if self.compact else "One pass: flat while reading weights dominates")
        axes.legend(**self._legend_place(), framealpha=0.9, ncol=1 if self.compact else 2, columnspacing=0.8,
                    fontsize=None if self.compact else 9)  # 9 pt: the ordinary panel holds it only at that size

    def _build_batch(self, axes):
        axes.axhline(1.0, color=palette.NEUTRAL, linestyle=":", linewidth=1.5, label="1× (plain decoding)")
        (self.formula_curve,) = axes.plot([1], [1], color=palette.NEUTRAL, linestyle="--", linewidth=2,
                                          marker=".", label="speedup(α, γ, c): verify free")
        (self.model_curve,) = axes.plot([1], [1], color=palette.HIGHLIGHT, linewidth=2, marker=".",
                                        label="cost model")
        (self.batch_marker,) = axes.plot([1], [1], linestyle="none", marker="o", markersize=11,
                                         markerfacecolor="none", markeredgecolor=palette.HIGHLIGHT,
                                         markeredgewidth=2, label="this batch")
        axes.set_xscale("log", base=2)
        axes.set_yscale("log")
        speedup_ticks = (0.25, 1, 4) if self.compact else SPEEDUP_TICKS
        axes.yaxis.set_major_locator(FixedLocator(speedup_ticks))
        axes.yaxis.set_minor_locator(NullLocator())
        axes.set_yticks(speedup_ticks, [f"{tick:g}×" for tick in speedup_ticks])
        axes.set_ylim(*SPEEDUP_LIMITS)
        axes.set_xlim(0.7, 1024 * 1.45)
        axes.xaxis.set_major_locator(FixedLocator([1, 4, 16, 64, 256, 1024]))
        axes.xaxis.set_minor_locator(NullLocator())
        ticks = [1, 4, 16, 64, 256, 1024]
        axes.set_xticks(ticks, [str(t) for t in ticks])
        axes.set_xlabel("batch size b (log)" if self.compact else "batch size b (sequences together, log scale)")
        axes.set_ylabel("speedup (log)" if self.compact else "expected speedup (×, log)")
        axes.set_title("Speedup against batch b" if self.compact else "Expected speedup against batch size")
        axes.legend(**self._legend_place("upper right"), framealpha=0.9, fontsize=None if self.compact else 9)

    def _legend_place(self, inside: str = "upper left") -> dict:
        """Where a lower panel's legend goes: inside the axes, or beside them in the compact layout."""
        if self.compact:
            return dict(loc="center left", bbox_to_anchor=(1.01, 0.5))
        return dict(loc=inside)

    def update(self, timeline, positions, target_seconds, draft_seconds, batches, model_speedups,
               formula_speedups, batch) -> None:
        """Show a `specdec.hardware.Timeline`, the two roofline curves and the speedup against batch."""
        milliseconds = 1e3
        plain = timeline.plain
        self.lanes["plain"].set_verts(_boxes([p.start * milliseconds for p in plain],
                                             [p.duration * milliseconds for p in plain], PLAIN_ROW))
        for model in ("target", "draft"):
            passes = [p for p in timeline.speculative if p.model == model]
            self.lanes[model].set_verts(_boxes([p.start * milliseconds for p in passes],
                                               [p.duration * milliseconds for p in passes], SPECULATIVE_ROW))
        tiles = {"accepted": ([], []), "resampled": ([], []), "bonus": ([], [])}
        for verify in (p for p in timeline.speculative if p.model == "target"):
            width = verify.duration * milliseconds / len(verify.origins)
            for i, origin in enumerate(verify.origins):
                tiles[origin][0].append(verify.start * milliseconds + i * width)
                tiles[origin][1].append(width)
        for origin, (starts, widths) in tiles.items():
            self.lanes[origin].set_verts(_boxes(starts, widths, TOKEN_ROW))

        plain_end = (plain[-1].start + plain[-1].duration) * milliseconds
        last = timeline.speculative[-1]
        speculative_end = (last.start + last.duration) * milliseconds
        self.plain_end.set_xdata([plain_end, plain_end])
        self.speculative_end.set_xdata([speculative_end, speculative_end])
        if self.compact:
            self.timeline_title.set_text(f"plain {plain_end:,.0f} ms, speculative {speculative_end:,.0f} ms")
        else:
            self.timeline_title.set_text(
                f"{timeline.tokens} tokens: plain {plain_end:,.1f} ms; speculative {speculative_end:,.1f} ms "
                f"for {timeline.speculative_tokens} tokens in {len(timeline.step_counts)} steps (this seed)")

        gamma = timeline.times.gamma
        positions = np.asarray(positions)
        target_ms = np.asarray(target_seconds) * milliseconds
        draft_ms = np.asarray(draft_seconds) * milliseconds
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
        index = list(batches).index(batch)
        self.batch_marker.set_data([batch], [model_speedups[index]])

        timeline_limit = max(plain_end, speculative_end) * 1.02
        low = min(target_ms.min(), draft_ms.min()) / 1.6
        high = max(target_ms.max(), draft_ms.max()) * 150  # headroom above the curves for the legend
        limits = (timeline_limit, low, high)
        if limits != self._limits:
            self.timeline_axes.set_xlim(0, timeline_limit)
            self.roofline_axes.set_ylim(low, high)
            self._limits = limits
            self.fast.invalidate()

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only what changed."""
        with styled():
            return self.fast.png()
