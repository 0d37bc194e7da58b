"""One verify step of speculative decoding, revealed one random draw at a time.

The explorer decides nothing itself: `specdec.narrate.seeded_step` makes and records the step from the seed (the
recipe is written out there), `specdec.narrate.frame_at` says what the first k draws reveal, and the explorer only
chooses k. So its tokens at the end are what `speculative_step` returns for the same seed. What is simplified: the
rows are random Dirichlet draws, not two language models' outputs.

The figure's four panels: (1) the rows pᵢ and qᵢ at the position under test, xᵢ marked; (2) the test on a number
line: the accept zone [0, min(1, pᵢ(xᵢ)/qᵢ(xᵢ))) as the trace recorded it, the reject zone, and the uniform draw u;
(3) what the step's last token is drawn from: the residual rᵢ after a rejection, or the target's extra row p_γ (the
bonus); (4) the draft proposals with their verdicts, and the output, each token coloured by where it came from.
"""

from __future__ import annotations

import asyncio

import ipywidgets as widgets
import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FormatStrFormatter, MaxNLocator
from matplotlib.transforms import offset_copy

from .. import palette
from ..core import acceptance_rates, expected_tokens_for_rates
from ..narrate import draw_total, frame_at, narrate_trace, seeded_step, subscript, token_labels
from ..validation import Count, OneOf, Probability, checked
from .frame import (COMPACT_FIGURE_INCHES, GAMMA_SLIDER_MAX, STEP_SEED_SLIDER_MAX, VOCAB_SLIDER_MAX, VOCAB_SLIDER_MIN,
                    Explorer, FastRedraw, Picture, Readout, bold, compact, labelled, line, new_figure, nice_top,
                    role_patch, role_style, slider, styled)

#: The choices of the "rows" menu: value -> (label, draft tokens, seed of the worked example). None: random.
#: The labels name no seed: the seed slider, which the learner may move, says which one is in use.
ROW_SOURCES = {
    "random": ("random rows from the seed", None, None),
    "example A B": ("the worked example, drafts A B", (0, 1), 0),
    "example D A": ("the worked example, drafts D A", (3, 0), 0),
    "example A A": ("the worked example, drafts A A", (0, 0), 3),
}
PLAY_SECONDS = 1.5  #: seconds between two draws while "▶ play" runs
PLAY, STOP = "▶ play", "■ stop"  #: the play button's text: what a press does
ORIGINS = ("accepted", "resampled", "bonus")  #: where an output token comes from (`StepTrace.origins`)
#: A draft proposal's tile, by its verdict: its colour, its outline's style, its name's opacity, the mark after it.
DRAFT_TILES = {"pending": (palette.DRAFT, "--", 1.0, ""), "accepted": (palette.ACCEPTED, "-", 1.0, " ✓"),
               "rejected": (palette.RESAMPLED, "-", 1.0, " ✗"), "discarded": (palette.NEUTRAL, "--", 0.6, "")}
#: The test panel's verdict (its right title), and its colour.
TEST_VERDICTS = {"no test": palette.NEUTRAL, "u not drawn": palette.NEUTRAL, "accepted ✓": palette.ACCEPTED,
                 "tests done ✓": palette.ACCEPTED, "rejected ✗": palette.RESAMPLED}
MIN_SLOTS = 4  #: the fewest positions the sequence panel shows
_TEST_LINE_TOP = 0.86  # where the threshold and u lines end; the threshold's label sits above
#: The test panel's two zones: the colours of the outcomes they lead to, seen through.
_ZONES = {name: {**role_style(name), "edgecolor": palette.ROLES[name].colour, "alpha": alpha}
          for name, alpha in (("accept zone", 0.35), ("reject zone", 0.2))}


class _Bars:
    """Many bars as one collection: one artist to draw, however large the vocabulary."""

    def __init__(self, axes, offset: float, width: float, **style):
        self.offset, self.width = offset, width
        self.collection = PolyCollection([], zorder=2, **style)
        axes.add_collection(self.collection, autolim=False)

    def set(self, heights) -> None:
        heights = np.asarray(heights, dtype=float)
        keep = heights > 0
        left = np.arange(heights.size)[keep] + self.offset - self.width / 2
        tops, right, bottom = heights[keep], left + self.width, np.zeros(int(keep.sum()))
        self.collection.set_verts(np.stack([np.stack(pair, axis=1) for pair in
                                            ((left, bottom), (left, tops), (right, tops), (right, bottom))], axis=1))


def _mark_entry(label: str) -> Line2D:
    """The legend entry of the ▼ that marks a token."""
    return Line2D([], [], marker="v", color=palette.HIGHLIGHT, linestyle="none", markersize=9, label=label)


def _test_entries() -> list:
    """The legend entries of the test panel: its two zones and u."""
    return [*(role_patch(name, **style) for name, style in _ZONES.items()),
            Line2D([], [], color=palette.HIGHLIGHT, linestyle="--", marker="^", label="u")]


def _show_note(note, message: str) -> None:
    note.set(text=message, visible=bool(message))


def _beside(x: float, gap: float) -> tuple[float, str]:
    """Where the label of a line at `x` in [0, 1] goes, `gap` away on the roomier side, and its alignment."""
    return (x + gap, "left") if x < 0.5 else (x - gap, "right")


class VerifyStepFigure(Picture):
    """One figure for a verify step, redrawn in place by `update` for each revealed draw.

    Examples
    --------
    >>> from specdec import trace_step
    >>> from specdec.narrate import spec_example
    >>> trace = trace_step(*spec_example(), np.random.default_rng(0))
    >>> picture = VerifyStepFigure()
    >>> picture.update(trace, frame_at(trace, 3), token_labels(4))
    >>> [text.get_text() for text in picture.output_texts[:3]], picture.test_title.get_text()
    (['A', 'B', 'A'], 'tests done ✓')
    """

    def __init__(self, max_gamma: int = GAMMA_SLIDER_MAX, width: float = 7.8, height: float = 6.4):
        self.max_gamma, self.short = max_gamma, compact()  # short: the compact layout's titles, one legend for all
        with styled():
            self.figure = new_figure(width, height, compact_size=COMPACT_FIGURE_INCHES)
            if self.short:  # squarer, larger text: the rows and the draw beside the test and the legend, tokens below
                grid = self.figure.add_gridspec(3, 2, height_ratios=[1.2, 1.2, 1.15])
                cells = (grid[0, 0], grid[0, 1], grid[1, 0], grid[2, :])
                self.legend_axes = self.figure.add_subplot(grid[1, 1])
                self.legend_axes.axis("off")
            else:
                grid = self.figure.add_gridspec(4, 1, height_ratios=[2.6, 1.0, 2.0, 1.6])
                cells = (grid[0], grid[1], grid[2], grid[3])
            self.rows_axes, self.test_axes = self.figure.add_subplot(cells[0]), self.figure.add_subplot(cells[1])
            self.draw_axes = self.figure.add_subplot(cells[2], sharex=self.rows_axes)
            self.sequence_axes = self.figure.add_subplot(cells[3])
            changing = [*self._make_rows_panel(), *self._make_test_panel(), *self._make_draw_panel(),
                        *self._make_sequence_panel()]
            if self.short:
                entries = [role_patch("target"), role_patch("draft"), _mark_entry("token marked"), *_test_entries(),
                           *map(role_patch, ORIGINS)]
                self.legend_axes.legend(handles=entries, loc="center", ncols=2, borderaxespad=0, handlelength=1.5,
                                        columnspacing=0.8)
        # The bar panels' spines change with nothing, but drawn last they stay above the bars, as in a full draw.
        bar_axes = (self.rows_axes, self.draw_axes)
        spines = [spine for axes in bar_axes for spine in axes.spines.values()]
        self.fast = FastRedraw(self.figure, changing=changing + spines, occasional=[
            *(axis for axes in bar_axes for axis in (axes.xaxis, axes.yaxis)), self.sequence_axes.xaxis])
        self._axes_view = None  # what the axes show: the token names, γ and the bar panels' tops

    def _legend(self, axes, handles, left: float = 1.01) -> None:
        """A legend beside `axes` (the compact figure has one legend for all the panels instead)."""
        if not self.short:
            axes.legend(handles=handles, loc="upper left", bbox_to_anchor=(left, 1.0), borderaxespad=0)

    def _note(self, axes):
        """A boxed message in the middle of `axes`, shown while it has text (`_show_note`)."""
        return axes.text(0.5, 0.55, "", transform=axes.transAxes, ha="center", va="center", zorder=6,
                         bbox={"facecolor": "white", "edgecolor": palette.NEUTRAL, "alpha": 0.92})

    def _bar_panel(self, axes, title: str, handles: list, mark_label: str) -> list:
        """Set up a panel of bars (titles, y axis, legend); returns its ▼, the ▼'s token name (offset in points, so
        that they never collide), its right title, which tells the state (the compact figure has no left titles:
        its one legend says what each panel is), and its note."""
        marker = axes.add_line(Line2D([], [], marker="v", markersize=11, color=palette.HIGHLIGHT, linestyle="none",
                                      zorder=4, clip_on=False,
                                      transform=offset_copy(axes.transData, fig=self.figure, y=7, units="points")))
        name = axes.annotate("", xy=(0, 0), xytext=(0, 14), textcoords="offset points", ha="center", va="bottom",
                             zorder=5, fontweight="bold", annotation_clip=False)
        axes.set_title("" if self.short else title, loc="left", y=1.0)
        # compact: the panel is short, the ▼ over a tall bar reaches above it; the title is set clear of it
        right_title = axes.set_title(" ", loc="right", y=1.0, pad=15 if self.short else None)
        axes.set_ylabel("probability")
        axes.yaxis.set_major_locator(MaxNLocator(nbins=2 if self.short else 4, steps=[1, 2, 2.5, 5, 10]))
        axes.yaxis.set_major_formatter(FormatStrFormatter("%.2f"))  # labels of one width
        axes.grid(axis="y", color=palette.NEUTRAL, alpha=0.25, zorder=0)
        self._legend(axes, [*handles, _mark_entry(mark_label)])
        return [marker, name, right_title, self._note(axes)]

    def _make_rows_panel(self) -> list:
        axes = self.rows_axes
        self.target_bars = _Bars(axes, -0.2, 0.38, **role_style("target"), edgecolor="none")
        self.draft_bars = _Bars(axes, 0.2, 0.38, **role_style("draft"), edgecolor="white", linewidth=0)
        marks = self._bar_panel(axes, "target pᵢ and draft qᵢ at position i",
                                [role_patch("target", "row pᵢ"), role_patch("draft", "row qᵢ")], "drafted token xᵢ")
        self.drafted_marker, self.drafted_text, self.rows_title, self.rows_note = marks
        axes.tick_params(labelbottom=False)
        return [self.target_bars.collection, self.draft_bars.collection, *marks]

    def _make_test_panel(self) -> list:
        axes = self.test_axes
        self.accept_zone = axes.add_patch(Rectangle((0, 0.2), 0, 0.6, zorder=2, **_ZONES["accept zone"]))
        self.reject_zone = axes.add_patch(Rectangle((0, 0.2), 0, 0.6, zorder=2, **_ZONES["reject zone"]))
        self.threshold_line = axes.add_line(Line2D([], [], color=palette.HIGHLIGHT, linewidth=2, zorder=3))
        self.uniform_line = axes.add_line(Line2D([], [], color=palette.HIGHLIGHT, linewidth=1.5, linestyle="--",
                                                 marker="^", markevery=[0], markersize=10, zorder=4))
        self.threshold_text = axes.text(0, 0.84, "", ha="center", va="bottom", zorder=5)
        self.uniform_text = axes.text(0, 0.02, "", ha="left", va="bottom", zorder=5,
                                      bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 1})
        axes.set(xlim=(0, 1), ylim=(0, 1.5), yticks=[], xlabel="uniform draw u on [0, 1)")
        axes.set_title("" if self.short else "the test: accept xᵢ if u < min(1, pᵢ(xᵢ)/qᵢ(xᵢ))", loc="left", y=1.0)
        self.test_title = axes.set_title(" ", loc="right", y=1.0, fontweight="bold")
        self.test_note = self._note(axes)
        self._legend(axes, _test_entries(), left=1.045)  # clear of the "1.0" tick label, past the axes' right edge
        return [self.accept_zone, self.reject_zone, self.threshold_line, self.uniform_line, self.threshold_text,
                self.uniform_text, self.test_title, self.test_note]

    def _make_draw_panel(self) -> list:
        axes = self.draw_axes
        self.draw_bars = _Bars(axes, 0.0, 0.7, **role_style("resampled"), edgecolor="white", linewidth=0)
        marks = self._bar_panel(axes, "where the step's last token is drawn from",
                                [role_patch("resampled", "from the\nresidual rᵢ"),
                                 role_patch("bonus", "from the\nlast row pᵧ")], "token drawn")
        self.drawn_marker, self.drawn_text, self.draw_title, self.draw_note = marks
        axes.set_xlabel("token")
        return [self.draw_bars.collection, *marks]

    def _tiles(self, row: int, count: int) -> tuple[list, list]:
        """`count` token tiles along `row` of the sequence panel: their boxes and their names."""
        half = 0.43 if self.short else 0.36  # the compact text is larger against the tile: taller tiles
        boxes = [self.sequence_axes.add_patch(Rectangle((index - 0.42, row - half), 0.84, 2 * half, zorder=2,
                                                        linewidth=1.8)) for index in range(count)]
        texts = [self.sequence_axes.text(index, row, "", ha="center", va="center", zorder=3, fontweight="bold",
                                         fontsize=9 if self.short else None)  # nine tiles across the compact figure
                 for index in range(count)]
        return boxes, texts

    def _make_sequence_panel(self) -> list:
        axes = self.sequence_axes
        self.draft_boxes, self.draft_texts = self._tiles(1, self.max_gamma)
        self.output_boxes, self.output_texts = self._tiles(0, self.max_gamma + 1)
        self.focus_marker = axes.add_line(Line2D([], [], marker="v", markersize=10, color=palette.HIGHLIGHT,
                                                 linestyle="none", zorder=4, clip_on=False))
        axes.set(ylim=(-0.55, 1.7), xlabel="position in the step")
        axes.set_yticks([0, 1], ["output", "draft"])
        axes.set_title("tokens" if self.short else "draft proposals and output", loc="left", y=1.0)
        self.sequence_title = axes.set_title(" ", loc="right", y=1.0)
        for side in ("top", "right", "left"):
            axes.spines[side].set_visible(False)
        self._legend(axes, [*map(role_patch, ORIGINS), Patch(facecolor="white", edgecolor=palette.DRAFT, linestyle="--",
                                                             label=palette.ROLES["draft"].labelled("proposal"))])
        return [*self.draft_boxes, *self.draft_texts, *self.output_boxes, *self.output_texts, self.focus_marker,
                self.sequence_title]

    def png(self) -> bytes:
        """The figure as PNG bytes; after the first, in the compact figure, the legend's empty cell is made the
        legend's own size (the layout is fixed by then, the legend stays where it is): a holder, not a panel."""
        png = super().png()
        if self.short and self.figure.get_layout_engine() is None:
            legend = self.legend_axes.get_legend()
            box = legend.get_window_extent(self.figure.canvas.get_renderer())
            self.legend_axes.set_position(box.transformed(self.figure.transFigure.inverted()))
        return png

    def update(self, trace, frame, labels: list[str]) -> None:
        """Show `frame` (from `specdec.narrate.frame_at`) of the `StepTrace` `trace`, naming tokens with `labels`."""
        # One y scale for the whole step, so stepping never changes the axes; room above for the marker.
        gamma, vocab = trace.gamma, len(labels)
        top_rows = max(trace.target_probs[:gamma].max(), trace.draft_probs.max()) if gamma else 0.0
        finals = [position.residual.max() for position in trace.positions if position.residual is not None]
        top_draw = max(finals + ([trace.target_probs[gamma].max()] if trace.all_accepted else []))
        tops = (nice_top(1.3 * float(top_rows)), nice_top(1.3 * float(top_draw)))
        view = (tuple(labels), gamma, tops)
        if view != self._axes_view:  # the axes change: their ticks are drawn again
            self._axes_view = view
            # token names that stay apart (the compact panel is narrow: fewer names of two digits)
            most = (6 if max(map(len, labels)) < 3 else 4) if self.short else 16
            ticks = list(range(0, vocab, max(1, -(-vocab // most))))
            self.draw_axes.set_xticks(ticks, [labels[i] for i in ticks])  # the rows panel shares this x axis
            self.draw_axes.set_xlim(-0.6, vocab - 0.4)
            self.sequence_axes.set_xticks(range(gamma + 1))  # the step's γ + 1 positions, room for `MIN_SLOTS`
            self.sequence_axes.set_xlim(-0.6, max(gamma + 1, MIN_SLOTS) - 0.4)
            self.rows_axes.set_ylim(0, tops[0])
            self.draw_axes.set_ylim(0, tops[1])
            self.fast.invalidate()
        self._place_mark(self.drafted_marker, self.drafted_text, self._draw_rows(trace, frame, labels), tops[0], vocab)
        self._draw_test(trace, frame)
        self._place_mark(self.drawn_marker, self.drawn_text, self._draw_final(trace, frame, labels), tops[1], vocab)
        self._draw_sequence(trace, frame, labels)

    def _draw_rows(self, trace, frame, labels):
        """The rows at the position under test; returns the drafted token's mark (token, bar top, name) or None."""
        i = frame.focus
        if i is None:
            self.target_bars.set([])
            self.draft_bars.set([])
            self.rows_title.set_text("γ = 0")
            _show_note(self.rows_note, "γ = 0:\nno draft tokens" if self.short else "γ = 0: no draft tokens to test")
            return None
        p, q, x = trace.target_probs[i], trace.draft_probs[i], trace.draft_tokens[i]
        self.target_bars.set(p)
        self.draft_bars.set(q)
        self.rows_title.set_text(f"i = {i}: done" if frame.bonus_next or frame.bonus_drawn else f"i = {i}")
        _show_note(self.rows_note, "")
        return x, max(p[x], q[x]), f"x{subscript(i)} = {labels[x]}"

    def _draw_test(self, trace, frame) -> None:
        tested, position = frame.focus is not None, frame.position  # a position drawn is one under test
        verdict = ("no test" if not tested else "u not drawn" if position is None else
                   "tests done ✓" if frame.bonus_next or frame.bonus_drawn else
                   "accepted ✓" if position.accepted else "rejected ✗")
        self.test_title.set(text=verdict, color=TEST_VERDICTS[verdict])
        for artist in (self.accept_zone, self.reject_zone, self.threshold_line, self.threshold_text):
            artist.set_visible(tested)
        for artist in (self.uniform_line, self.uniform_text):
            artist.set_visible(position is not None)
        if not tested:
            _show_note(self.test_note, "every token\nfrom p₀" if self.short else "every output token comes from p₀")
            return
        _show_note(self.test_note, "")
        # The threshold as the trace recorded it (the position under test is one the step visited); each label on
        # the roomier side of its line, the threshold's above both (in the narrow compact panel, short and centred).
        threshold = trace.positions[frame.focus].acceptance_probability
        self.accept_zone.set_width(threshold)
        self.reject_zone.set(x=threshold, width=1.0 - threshold)
        self.threshold_line.set_data([threshold, threshold], [0.1, _TEST_LINE_TOP])
        x, align = (0.5, "center") if self.short else _beside(threshold, 0.01)
        self.threshold_text.set(position=(x, _TEST_LINE_TOP + 0.02), horizontalalignment=align,
                                text=f"{'threshold' if self.short else 'min(1, p/q) ='} {threshold:.3f}")
        if position is not None:
            u = position.uniform
            x, align = _beside(u, 0.012)
            self.uniform_line.set_data([u, u], [0.0, _TEST_LINE_TOP])
            self.uniform_text.set(position=(x, 0.02), horizontalalignment=align, text=f"u = {u:.3f}")

    def _draw_final(self, trace, frame, labels):
        """What the step's last token is drawn from; returns the drawn token's mark (token, bar top, name) or None."""
        position, gamma = frame.position, trace.gamma
        heights, role, token, title, note = [], "resampled", None, "", ""
        if position is not None and not position.accepted:
            heights, token = position.residual, position.resampled_token
            title = f"r{subscript(position.index)} → {labels[token]}"
        elif frame.bonus_drawn or frame.bonus_next or gamma == 0:
            heights, role = trace.target_probs[gamma], "bonus"
            token = trace.bonus_token if frame.bonus_drawn else None
            title = f"next: p{subscript(gamma)}" if token is None else f"p{subscript(gamma)} → {labels[token]}"
        else:
            note = ("press Step" if position is None else
                    "accepted:\nnothing to redraw" if self.short else "accepted: nothing to redraw")
        self.draw_title.set_text(title)
        self.draw_bars.collection.set(**role_style(role))
        self.draw_bars.set(heights)
        _show_note(self.draw_note, note)
        return None if token is None else (token, heights[token], labels[token])

    def _draw_sequence(self, trace, frame, labels) -> None:
        gamma = trace.gamma
        for index, (box, text) in enumerate(zip(self.draft_boxes, self.draft_texts)):
            box.set_visible(index < gamma)
            text.set_visible(index < gamma)
            if index < gamma:
                colour, linestyle, alpha, mark = DRAFT_TILES[frame.draft_states[index]]
                box.set(facecolor="white", edgecolor=colour, hatch="", linestyle=linestyle)
                text.set(text=labels[trace.draft_tokens[index]] + (mark.strip() if self.short else mark),
                         color=colour, alpha=alpha)
        for index, (box, text) in enumerate(zip(self.output_boxes, self.output_texts)):
            emitted = index < len(frame.tokens)
            box.set_visible(emitted or index <= gamma)  # an empty slot for each position still to emit
            text.set_visible(emitted)
            if emitted:
                origin = frame.origins[index]
                box.set(**role_style(origin), edgecolor="white", linestyle="-")
                text.set(text=labels[frame.tokens[index]], color=palette.HIGHLIGHT,  # black: most contrast on each
                         bbox={"facecolor": palette.ORIGIN_COLOURS[origin], "edgecolor": "none", "pad": 1})
            elif index <= gamma:
                box.set(facecolor="white", edgecolor=palette.NEUTRAL, hatch="", linestyle=":")
        # The marker points at what the upper panels show: the position under test, or the bonus.
        slot, row = (gamma, 0) if frame.bonus_drawn or gamma == 0 else (frame.focus, 1)
        self.focus_marker.set_data([slot], [row + 0.6])
        over = "over" if self.short else "step over"  # the total only at the end: it would tell the outcome
        self.sequence_title.set_text(f"draw {frame.draws} of {frame.total}: {over}" if frame.finished
                                     else f"draw {frame.draws}")

    def _place_mark(self, marker, text, mark, top: float, vocab: int) -> None:
        """Put the ▼ and the name on the token of `mark` (token, bar height, name), or hide them if it is None; the
        name goes above the ▼ if there is room below the axes' `top` (36 pt: the ▼, a gap and the name)."""
        marker.set_visible(mark is not None)
        text.set_visible(mark is not None)
        if mark is None:
            return
        token, height, name = mark
        marker.set_data([token], [float(height)])
        text.xy = (token, float(height))
        text.set_text(name)
        room_points = (1 - height / top) * text.axes.get_position().height * self.figure.get_figheight() * 72
        high = height > 0.45 * top
        if room_points < 36 and (high or self.short):  # beside: the compact panels are too short for a name above
            side = "left" if token < 0.6 * vocab else "right"  # the roomier side
            text.set(position=(12 if side == "left" else -12, 0), horizontalalignment=side,
                     verticalalignment="top" if high else "bottom")  # hanging down from a high bar's top
        else:  # near either end of the axis, the name ends at the ▼, so that it stays inside the figure
            end = "left" if token < 0.15 * vocab + 0.5 else "right" if token > 0.85 * vocab - 1 else "center"
            text.set(position=({"left": -6, "right": 6, "center": 0}[end], 14), horizontalalignment=end,
                     verticalalignment="bottom")


def call_later(seconds: float, callback):
    """Run `callback` after `seconds` on the running event loop (the kernel's: no thread); None if none runs."""
    try:
        return asyncio.get_running_loop().call_later(seconds, callback)
    except RuntimeError:
        return None


class VerifyStepExplorer(Explorer):
    """One verify step: Step, Back, Reset and "▶ play" (then "■ stop", which stops where it is) reveal its draws.

    Parameters
    ----------
    gamma, vocab, seed : int in 0 … 8, int in 2 … 64, int in 0 … 999
        The number of draft tokens γ and the vocabulary size V (random rows); the seed of the one generator that
        makes the rows, the draft tokens and the step's draws.
    closeness : float in [0, 1]
        How close the draft rows are to the target rows (see `specdec.narrate.random_rows`).
    rows : str
        "random", or a step of the worked example: "example A B", "example D A", "example A A" (which set the seed
        to 0, 0 and 3, the worked examples' seeds).
    draws : int >= 0
        How many draws to show at first (at most the step's number of draws).

    Attributes
    ----------
    controls : "rows", "gamma", "vocab", "seed", "closeness", "draws" (a slider: the draws shown) and the buttons
        "step", "back", "reset" and "play" (a draw every `PLAY_SECONDS`, on the kernel's event loop).
    shown : the step's rows, draft tokens and trace, the frame on screen, draws, total, tokens, origins, log
        (narrated lines so far), acceptance_rates, expected_tokens, readout.
    trace, labels, timer : the step on screen, its token names, and the pending tick while playing (an
        `asyncio.TimerHandle` from `call_later`), else None.

    Examples
    --------
    >>> explorer = VerifyStepExplorer(rows="example A B")
    >>> explorer.controls["step"].click(); explorer.controls["step"].click()
    >>> explorer.shown["tokens"], explorer.shown["total"]
    ([0, 1], 3)
    >>> explorer.controls["step"].click()
    >>> explorer.shown["tokens"], explorer.shown["origins"]
    ([0, 1, 0], ['accepted', 'accepted', 'bonus'])
    """

    title = "One verify step, draw by draw"

    @checked(gamma=Count(0, GAMMA_SLIDER_MAX), vocab=Count(VOCAB_SLIDER_MIN, VOCAB_SLIDER_MAX),
             seed=Count(0, STEP_SEED_SLIDER_MAX), closeness=Probability(), rows=OneOf(*ROW_SOURCES), draws=Count())
    def __init__(self, gamma=4, vocab=8, seed=7, closeness=0.5, rows="random", draws=0):
        self.learner_settings = None  # (γ, V, seed) kept while a worked example fixes the sliders
        self.choosing_rows = False  # a rows choice is moving the sliders: it makes the step itself
        self.timer, self.call_later = None, call_later  # call_later schedules a tick (tests drive a clock of their own)
        self.controls = controls = {
            "rows": labelled(widgets.Dropdown, "rows and draft tokens", label_above=True, value=rows,
                             options=[(label, key) for key, (label, _, _) in ROW_SOURCES.items()],
                             layout=widgets.Layout(width="32em")),
            "gamma": slider("draft tokens γ", gamma, (0, GAMMA_SLIDER_MAX)),
            "vocab": slider("vocabulary size V", vocab, (VOCAB_SLIDER_MIN, VOCAB_SLIDER_MAX)),
            "seed": slider("seed", seed, (0, STEP_SEED_SLIDER_MAX)),
            "closeness": slider("draft closeness to target", closeness, (0, 1), 0.05),
            "step": widgets.Button(description="Step", icon="step-forward", tooltip="reveal the next draw"),
            "back": widgets.Button(description="Back", icon="step-backward", tooltip="hide the last draw"),
            "reset": widgets.Button(description="Reset", icon="undo", tooltip="hide every draw"),
            "play": widgets.Button(description=PLAY, tooltip="reveal the draws one by one"),
            "draws": slider("draws shown", 0, (0, 1), layout=widgets.Layout(width="18em")),
        }
        self.rows_changed()
        self.show(draws)
        super().__init__(controls, [["rows", "seed"], ["gamma", "vocab", "closeness"],
                                    ["step", "back", "reset", "play", "draws"]],
                         VerifyStepFigure(), observe=["draws"])
        for name in ("gamma", "vocab", "seed", "closeness"):
            self.on_change(name, self.settings_changed)
        self.on_change("rows", self.rows_changed)
        for name, method in {"step": self.step, "back": self.back, "reset": self.reset,
                             "play": self.play_or_stop}.items():
            self.on_click(name, method)

    def rows_changed(self) -> None:
        """A new step for the rows chosen: a worked example fixes γ, V and the seed; random restores them."""
        _, example_drafts, example_seed = ROW_SOURCES[self.value("rows")]
        example = example_drafts is not None
        sliders = [self.controls[name] for name in ("gamma", "vocab", "seed")]
        if example and self.learner_settings is None:
            self.learner_settings = [control.value for control in sliders]
        values = (len(example_drafts), 4, example_seed) if example else self.learner_settings or ()
        self.choosing_rows = True
        for control, value in zip(sliders, values):
            control.value = value
        self.choosing_rows = False
        if not example:
            self.learner_settings = None
        for name in ("gamma", "vocab", "closeness"):
            self.controls[name].disabled = example
        self.make_step()

    def settings_changed(self) -> None:
        if not self.choosing_rows:
            self.make_step()

    def make_step(self) -> None:
        """A new step from the current settings, with none of its draws shown yet."""
        self.stop()
        self.trace = seeded_step(self.value("seed"), self.value("gamma"), self.value("vocab"),
                                 self.value("closeness"), ROW_SOURCES[self.value("rows")][1])
        self.labels = token_labels(self.trace.target_probs.shape[1])
        draws = self.controls["draws"]
        with draws.hold_sync():  # one message, the value first: never above the max, which a browser would
            draws.value, draws.max = 0, draw_total(self.trace)  # clamp and send back as a change of its own

    def show(self, draws: int) -> None:
        """Show `draws` draws (kept in 0 … the step's total)."""
        self.controls["draws"].value = min(max(draws, 0), self.controls["draws"].max)

    def step(self) -> None:
        self.show(self.value("draws") + 1)

    def back(self) -> None:
        self.show(self.value("draws") - 1)

    def reset(self) -> None:
        self.stop()
        self.show(0)

    def play_or_stop(self) -> None:
        """▶: the next draw now, then one every `PLAY_SECONDS` (from draw 0 on a finished step); ■ stops
        where it is. Where no event loop runs (a plain script), ▶ reveals one draw."""
        if self.timer is not None:
            self.stop()
        elif self.value("draws") == self.controls["draws"].max:
            self.show(0)
            self.wait_for_tick()
        else:
            self.tick()

    def tick(self) -> None:
        """Reveal the next draw, then wait for the next tick."""
        self.timer = None
        self.step()
        self.wait_for_tick()

    def wait_for_tick(self) -> None:
        """Have `tick` called in `PLAY_SECONDS`, unless the step is over; the button says what a press does."""
        if self.value("draws") < self.controls["draws"].max:
            self.timer = self.call_later(PLAY_SECONDS, self.tick)
        self.controls["play"].description = PLAY if self.timer is None else STOP

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.controls["play"].description = PLAY

    def compute(self) -> dict:
        trace, labels = self.trace, self.labels
        frame = frame_at(trace, self.value("draws"))
        self.picture.update(trace, frame, labels)
        self.controls["step"].disabled = frame.finished
        self.controls["back"].disabled = frame.draws == 0
        lines = narrate_trace(trace, labels)
        rates = acceptance_rates(trace.target_probs, trace.draft_probs) if trace.gamma else np.empty(0)
        return {"rows": self.value("rows"), "gamma": trace.gamma, "vocab": len(labels), "seed": self.value("seed"),
                "closeness": self.value("closeness"), "target_probs": trace.target_probs,
                "draft_probs": trace.draft_probs, "draft_tokens": list(trace.draft_tokens), "trace": trace,
                "frame": frame, "draws": frame.draws, "total": frame.total, "tokens": frame.tokens,
                "origins": frame.origins, "log": lines[: frame.draws] + (lines[-1:] if frame.finished else []),
                "acceptance_rates": rates, "expected_tokens": expected_tokens_for_rates(rates)}

    def describe(self, shown: dict) -> Readout:
        labels, frame = self.labels, shown["frame"]
        settings = (f"the worked example, seed {shown['seed']}" if shown["rows"] != "random" else
                    f"γ = {shown['gamma']}, V = {shown['vocab']}, seed {shown['seed']}, "
                    f"closeness {shown['closeness']:.2f}")
        drafts = " ".join(labels[token] for token in shown["draft_tokens"]) or "none (γ = 0)"
        rates = ", ".join(f"{rate:.2f}" for rate in shown["acceptance_rates"]) or "none"
        latest = shown["log"][frame.draws - 1] if frame.draws else \
            "Nothing drawn yet: press Step (or ▶) to reveal the first draw."
        marks = {"accepted": "✓", "resampled": "↺", "bonus": "+"}
        chips = [(labels[token], origin) for token, origin in zip(frame.tokens, frame.origins)]
        chips_html = "".join(
            f"<span title='{origin}' style='background:{palette.ORIGIN_COLOURS[origin]};color:{palette.HIGHLIGHT};"
            f"padding:0 0.35em;margin-right:0.2em;border-radius:3px;font-weight:bold'>{name} {marks[origin]}</span>"
            for name, origin in chips)
        output = " ".join(f"{name} {marks[origin]}" for name, origin in chips) or "(nothing yet)"
        # The total only once the step is over: before that it would tell the outcome.
        count = f"Draw {frame.draws} of {frame.total}: the step is over" if frame.finished else f"Draw {frame.draws}"
        return Readout([
            line(bold(count), key=True),
            line(f"({settings})", note=True),
            line("Draft proposed: ", bold(drafts)),
            line(f"α of each position: {rates}; expected tokens per step: {shown['expected_tokens']:.2f}"),
            line(f"Latest: {latest}", key=True),
            line(f"Output so far: {output}", key=True,
                 html=f"Output so far: {chips_html}" if chips else None),
            line("✓ accepted draft token, ↺ resampled from the residual, + bonus from p_γ", note=True),
            *(line(entry, item=True) for entry in shown["log"]),
        ])
