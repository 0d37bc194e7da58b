"""The picture of one verify step, draw by draw.

A `StepTrace` records every random draw of a step. `specdec.narrate.frame_at` says what the first
k draws have revealed (which tokens are out, which draft tokens passed, what is drawn next), and
`VerifyStepFigure` draws that frame in four panels:

1. the rows at the position under test: target pᵢ and draft qᵢ, with the drafted token xᵢ marked;
2. the test itself on a number line from 0 to 1: the accept zone [0, min(1, pᵢ(xᵢ)/qᵢ(xᵢ))), the
   reject zone above it, and the uniform draw u;
3. the distribution the step's last token is drawn from: the residual rᵢ after a rejection, or the
   target's extra row p_γ when every draft token passed (the bonus);
4. the step's tokens: the draft proposals, each marked accepted, rejected or discarded, and the
   output, each token coloured by where it came from.

What is simplified: the figure shows one step on its own; in decoding, the output would be
appended to the context and the next step would start from there.
"""

from __future__ import annotations

import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FormatStrFormatter, MaxNLocator
from matplotlib.transforms import offset_copy

from .. import palette
from ..core import StepTrace
from ..narrate import StepFrame, subscript
from .canvas import COMPACT_FIGURE_INCHES, figure_scale, new_figure, role_patch, role_style, styled
from .fast_redraw import FastRedraw
from .one_token import nice_top

#: A mark after a draft proposal's label, for each verdict.
VERDICT_MARKS = {"accepted": " ✓", "rejected": " ✗", "pending": "", "discarded": ""}

#: The fewest positions the sequence panel makes room for, so that a short step's boxes stay boxes.
MIN_SLOTS = 4

#: Where the threshold and u lines of the test panel end; the threshold's label sits above.
_TEST_LINE_TOP = 0.86

#: The letter on an output chip: black, which contrasts more than white with every origin's colour
#: (the pale bonus colour most of all).
CHIP_TEXT_COLOUR = palette.HIGHLIGHT


def _step_maxima(trace: StepTrace) -> tuple[float, float]:
    """The tallest bar the step will show in the rows panel, and in the final-draw panel."""
    gamma = trace.gamma
    rows = max(trace.target_probs[:gamma].max(), trace.draft_probs.max()) if gamma else 0.0
    finals = [position.residual.max() for position in trace.positions if position.residual is not None]
    if trace.all_accepted:
        finals.append(trace.target_probs[gamma].max())
    return float(rows), float(max(finals))


def _bar_verts(positions: np.ndarray, heights: np.ndarray, width: float) -> np.ndarray:
    left, right = positions - width / 2, positions + width / 2
    bottom = np.zeros_like(heights)
    return np.stack([
        np.stack([left, bottom], axis=1), np.stack([left, heights], axis=1),
        np.stack([right, heights], axis=1), np.stack([right, bottom], axis=1),
    ], axis=1)


class _Bars:
    """Many bars as one collection: one artist to draw, however large the vocabulary."""

    def __init__(self, axes, offset: float, width: float, **style):
        self.offset, self.width = offset, width
        self.collection = PolyCollection([], zorder=2, **style)
        axes.add_collection(self.collection, autolim=False)

    def set(self, heights) -> None:
        heights = np.asarray(heights, dtype=float)
        keep = heights > 0
        positions = np.arange(heights.size)[keep] + self.offset
        self.collection.set_verts(_bar_verts(positions, heights[keep], self.width))


def _token_ticks(axes, labels: list[str]) -> None:
    vocab = len(labels)
    every = max(1, -(-vocab // 16))  # at most 16 labels, so they stay readable
    ticks = list(range(0, vocab, every))
    axes.set_xticks(ticks, [labels[i] for i in ticks])
    axes.set_xlim(-0.6, vocab - 0.4)


class VerifyStepFigure:
    """One figure for a verify step, redrawn in place by `update` for each revealed draw.

    Parameters
    ----------
    max_gamma : int
        The largest number of draft tokens the sequence panel has room for.
    width, height : float
        Figure size in inches.

    Examples
    --------
    >>> import numpy as np
    >>> from specdec import trace_step
    >>> from specdec.narrate import frame_at
    >>> from specdec.rows import spec_example, token_labels
    >>> trace = trace_step(*spec_example(), np.random.default_rng(0))
    >>> picture = VerifyStepFigure()
    >>> picture.update(trace, frame_at(trace, 3), token_labels(4))
    >>> [text.get_text() for text in picture.output_texts[:3]]
    ['A', 'B', 'A']
    """

    def __init__(self, max_gamma: int = 8, width: float = 7.8, height: float = 6.4):
        self.max_gamma = max_gamma
        with styled():
            self.figure = new_figure(width, height, compact_size=COMPACT_FIGURE_INCHES)
            grid = self.figure.add_gridspec(4, 1, height_ratios=[2.6, 1.0, 2.0, 1.6])
            self.rows_axes = self.figure.add_subplot(grid[0])
            self.test_axes = self.figure.add_subplot(grid[1])
            self.draw_axes = self.figure.add_subplot(grid[2], sharex=self.rows_axes)
            self.sequence_axes = self.figure.add_subplot(grid[3])
            dynamic = []
            dynamic += self._make_rows_panel()
            dynamic += self._make_test_panel()
            dynamic += self._make_draw_panel()
            dynamic += self._make_sequence_panel()
            for axes in (self.rows_axes, self.draw_axes):
                axes.yaxis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]))
                axes.yaxis.set_major_formatter(FormatStrFormatter("%.2f"))  # labels of one width
                axes.grid(axis="y", color=palette.NEUTRAL, alpha=0.25, zorder=0)
        # The spines of the bar panels go with the changing artists, so that they are drawn over
        # the bars and the grid, as in a full draw.
        spines = [spine for axes in (self.rows_axes, self.draw_axes) for spine in axes.spines.values()]
        self.fast = FastRedraw(
            self.figure,
            changing=dynamic + spines,
            occasional=[*(axis for axes in (self.rows_axes, self.draw_axes) for axis in (axes.xaxis, axes.yaxis)),
                        self.sequence_axes.xaxis],
        )
        self._labels = None
        self._sequence_gamma = None
        self._limits = None
        self._marked_rows = self._marked_draw = None  # (token, bar height, label) of the ▼ markers

    # --- building ------------------------------------------------------------------------------

    @staticmethod
    def _note(axes):
        return axes.text(0.5, 0.55, "", transform=axes.transAxes, ha="center", va="center", zorder=6,
                         bbox={"facecolor": "white", "edgecolor": palette.NEUTRAL, "alpha": 0.92})

    def _token_marker(self, axes):
        """A ▼ just above a bar and the token's name above it, offset in points so they never collide."""
        marker = Line2D([], [], marker="v", markersize=11, color=palette.HIGHLIGHT, linestyle="none",
                        zorder=4, clip_on=False,
                        transform=offset_copy(axes.transData, fig=self.figure, y=7, units="points"))
        axes.add_line(marker)
        label = axes.annotate("", xy=(0, 0), xytext=(0, 14), textcoords="offset points", ha="center",
                              va="bottom", zorder=5, fontweight="bold")
        return marker, label

    @staticmethod
    def _legend(axes, handles, left: float = 1.01):
        axes.legend(handles=handles, loc="upper left", bbox_to_anchor=(left, 1.0), borderaxespad=0)

    def _bar_panel(self, axes, title: str, handles: list, marker_label: str):
        """Title, y label, legend (`handles` and the ▼ marker) of a panel of bars; its right title and note."""
        axes.set_title(title, loc="left", y=1.0)
        right_title = axes.set_title(" ", loc="right", y=1.0)
        axes.set_ylabel("probability")
        self._legend(axes, [*handles, Line2D([], [], marker="v", color=palette.HIGHLIGHT, linestyle="none",
                                             markersize=9, label=marker_label)])
        return right_title, self._note(axes)

    def _make_rows_panel(self) -> list:
        axes = self.rows_axes
        self.target_bars = _Bars(axes, -0.2, 0.38, **role_style("target"), edgecolor="none")
        self.draft_bars = _Bars(axes, 0.2, 0.38, **role_style("draft"), edgecolor="white", linewidth=0)
        self.drafted_marker, self.drafted_text = self._token_marker(axes)
        self.rows_title, self.rows_note = self._bar_panel(
            # Presentation mode's smaller figure: shorter titles, so they clear the right-hand ones.
            axes, "pᵢ and qᵢ at position i" if figure_scale() > 1 else "target pᵢ and draft qᵢ at the position under test",
            [role_patch("target", "row pᵢ"), role_patch("draft", "row qᵢ")], "drafted token xᵢ")
        axes.tick_params(labelbottom=False)
        return [self.target_bars.collection, self.draft_bars.collection, self.drafted_marker,
                self.drafted_text, self.rows_title, self.rows_note]

    def _make_test_panel(self) -> list:
        axes = self.test_axes
        zones = {name: dict(**role_style(name), edgecolor=palette.ROLES[name].colour, alpha=alpha)
                 for name, alpha in (("accept zone", 0.35), ("reject zone", 0.2))}
        self.accept_zone = Rectangle((0, 0.2), 0, 0.6, zorder=2, **zones["accept zone"])
        self.reject_zone = Rectangle((0, 0.2), 0, 0.6, zorder=2, **zones["reject zone"])
        for zone in (self.accept_zone, self.reject_zone):
            axes.add_patch(zone)
        self.threshold_line = Line2D([], [], color=palette.HIGHLIGHT, linewidth=2, zorder=3)
        self.uniform_line = Line2D([], [], color=palette.HIGHLIGHT, linewidth=1.5, linestyle="--",
                                   marker="^", markevery=[0], markersize=10, zorder=4)
        axes.add_line(self.threshold_line)
        axes.add_line(self.uniform_line)
        self.threshold_text = axes.text(0, 0.84, "", ha="center", va="bottom", zorder=5)
        self.uniform_text = axes.text(0, 0.02, "", ha="left", va="bottom", zorder=5,
                                      bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 1})
        axes.set_xlim(0, 1)
        axes.set_ylim(0, 1.35)
        axes.set_yticks([])
        axes.set_xlabel("uniform draw u on [0, 1)")
        axes.set_title("the test on u" if figure_scale() > 1 else
                       "the test: accept xᵢ if u < min(1, pᵢ(xᵢ)/qᵢ(xᵢ))", loc="left", y=1.0)
        self.test_title = axes.set_title(" ", loc="right", y=1.0, fontweight="bold")
        self.test_note = self._note(axes)
        self._legend(axes, [
            role_patch("accept zone", **zones["accept zone"]),
            role_patch("reject zone", **zones["reject zone"]),
            Line2D([], [], color=palette.HIGHLIGHT, linestyle="--", marker="^", label="u"),
        ], left=1.045)  # clear of the "1.0" tick label, which reaches past the axes' right edge
        return [self.accept_zone, self.reject_zone, self.threshold_line, self.uniform_line,
                self.threshold_text, self.uniform_text, self.test_title, self.test_note]

    def _make_draw_panel(self) -> list:
        axes = self.draw_axes
        self.draw_bars = _Bars(axes, 0.0, 0.7, **role_style("resampled"), edgecolor="white", linewidth=0)
        self.drawn_marker, self.drawn_text = self._token_marker(axes)
        self.draw_title, self.draw_note = self._bar_panel(
            axes, "where the step's last token is drawn from",
            [role_patch("resampled", "from the\nresidual rᵢ"), role_patch("bonus", "from the\nlast row pᵧ")],
            "token drawn")
        axes.set_xlabel("token")
        return [self.draw_bars.collection, self.drawn_marker, self.drawn_text, self.draw_title, self.draw_note]

    def _make_sequence_panel(self) -> list:
        axes = self.sequence_axes
        slots = self.max_gamma + 1
        self.draft_boxes, self.draft_texts, self.output_boxes, self.output_texts = [], [], [], []
        for index in range(slots):
            for row, boxes, texts in ((1, self.draft_boxes, self.draft_texts), (0, self.output_boxes, self.output_texts)):
                if row == 1 and index == self.max_gamma:
                    continue
                box = Rectangle((index - 0.42, row - 0.36), 0.84, 0.72, zorder=2, linewidth=1.8)
                axes.add_patch(box)
                boxes.append(box)
                texts.append(axes.text(index, row, "", ha="center", va="center", zorder=3, fontweight="bold"))
        self.focus_marker = Line2D([], [], marker="v", markersize=10, color=palette.HIGHLIGHT,
                                   linestyle="none", zorder=4, clip_on=False)
        axes.add_line(self.focus_marker)
        self._set_sequence_positions(self.max_gamma)
        axes.set_ylim(-0.55, 1.7)
        axes.set_yticks([0, 1], ["output", "draft"])
        axes.set_xlabel("position in the step")
        axes.set_title("draft proposals and output", loc="left", y=1.0)
        self.sequence_title = axes.set_title(" ", loc="right", y=1.0)
        for side in ("top", "right", "left"):
            axes.spines[side].set_visible(False)
        self._legend(axes, [
            *(role_patch(origin) for origin in ("accepted", "resampled", "bonus")),
            Patch(facecolor="white", edgecolor=palette.DRAFT, linestyle="--",
                  label=palette.ROLES["draft"].labelled("proposal")),
        ])
        return [*self.draft_boxes, *self.draft_texts, *self.output_boxes, *self.output_texts,
                self.focus_marker, self.sequence_title]

    def _set_sequence_positions(self, gamma: int) -> None:
        """The sequence panel's axis shows the step's γ + 1 positions (room for at least `MIN_SLOTS`)."""
        self.sequence_axes.set_xticks(range(gamma + 1))
        self.sequence_axes.set_xlim(-0.6, max(gamma + 1, MIN_SLOTS) - 0.4)
        self._sequence_gamma = gamma

    # --- drawing -------------------------------------------------------------------------------

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only what changed since the last call."""
        with styled():
            return self.fast.png()

    def update(self, trace: StepTrace, frame: StepFrame, labels: list[str]) -> None:
        """Show `frame` of `trace`, naming tokens with `labels`."""
        if trace.gamma > self.max_gamma:
            raise ValueError(f"this figure has room for γ <= {self.max_gamma} draft tokens, got γ = {trace.gamma}")
        if labels != self._labels:
            _token_ticks(self.draw_axes, labels)  # the rows panel shares this x axis
            self._labels = list(labels)
            self.fast.invalidate()
        if trace.gamma != self._sequence_gamma:
            self._set_sequence_positions(trace.gamma)
            self.fast.invalidate()
        self._draw_rows(trace, frame, labels)
        self._draw_test(trace, frame)
        self._draw_final(trace, frame, labels)
        self._draw_sequence(trace, frame, labels)
        # One scale for the whole step, so positions compare at a glance and stepping through the
        # draws never changes the axes; room above the tallest bar for the marker and its label.
        top_rows, top_draw = _step_maxima(trace)
        limits = (nice_top(1.3 * top_rows), nice_top(1.3 * top_draw))
        if limits != self._limits:
            self.rows_axes.set_ylim(0, limits[0])
            self.draw_axes.set_ylim(0, limits[1])
            self._limits = limits
            self.fast.invalidate()
        self._place_marker(self.drafted_marker, self.drafted_text, self._marked_rows, limits[0])
        self._place_marker(self.drawn_marker, self.drawn_text, self._marked_draw, limits[1])

    def _draw_rows(self, trace, frame, labels) -> None:
        if frame.focus is None:
            self.target_bars.set([])
            self.draft_bars.set([])
            self._marked_rows = None
            self.rows_title.set_text("γ = 0")
            self._show_note(self.rows_note, "γ = 0: no draft tokens to test")
            return
        i = frame.focus
        p, q, x = trace.target_probs[i], trace.draft_probs[i], trace.draft_tokens[i]
        self.target_bars.set(p)
        self.draft_bars.set(q)
        self._marked_rows = (x, max(p[x], q[x]), f"x{subscript(i)} = {labels[x]}")
        self.rows_title.set_text(f"i = {i}")
        self._show_note(self.rows_note, "")

    def _draw_test(self, trace, frame) -> None:
        if frame.focus is None:
            for artist in (self.accept_zone, self.reject_zone, self.threshold_line, self.uniform_line,
                           self.threshold_text, self.uniform_text):
                artist.set_visible(False)
            self.test_title.set_text("no test")
            self.test_title.set_color(palette.NEUTRAL)
            self._show_note(self.test_note, "every output token comes from p₀")
            return
        i = frame.focus
        x = trace.draft_tokens[i]
        p_x, q_x = float(trace.target_probs[i, x]), float(trace.draft_probs[i, x])
        threshold = frame.position.acceptance_probability if frame.position else min(1.0, p_x / q_x)
        self.accept_zone.set_width(threshold)
        self.reject_zone.set_x(threshold)
        self.reject_zone.set_width(1.0 - threshold)
        self.threshold_line.set_data([threshold, threshold], [0.1, _TEST_LINE_TOP])
        # Each label sits on the roomier side of its line, so it never runs off the axes; the
        # threshold's label sits above both lines, so the u line never crosses it.
        self.threshold_text.set_position((threshold + 0.01 if threshold < 0.5 else threshold - 0.01,
                                          _TEST_LINE_TOP + 0.02))
        self.threshold_text.set_horizontalalignment("left" if threshold < 0.5 else "right")
        self.threshold_text.set_text(f"min(1, p/q) = {threshold:.3f}")
        for artist in (self.accept_zone, self.reject_zone, self.threshold_line, self.threshold_text):
            artist.set_visible(True)
        self._show_note(self.test_note, "")
        position = frame.position
        if position is None:
            self.uniform_line.set_visible(False)
            self.uniform_text.set_visible(False)
            self.test_title.set_text("u not drawn")
            self.test_title.set_color(palette.NEUTRAL)
            return
        u = position.uniform
        self.uniform_line.set_data([u, u], [0.0, _TEST_LINE_TOP])
        self.uniform_text.set_position((u + 0.012 if u < 0.5 else u - 0.012, 0.02))
        self.uniform_text.set_horizontalalignment("left" if u < 0.5 else "right")
        self.uniform_text.set_text(f"u = {u:.3f}")
        self.uniform_line.set_visible(True)
        self.uniform_text.set_visible(True)
        if position.accepted:
            self.test_title.set_text("accepted ✓")
            self.test_title.set_color(palette.ACCEPTED)
        else:
            self.test_title.set_text("rejected ✗")
            self.test_title.set_color(palette.RESAMPLED)

    def _draw_final(self, trace, frame, labels) -> None:
        position = frame.position
        gamma = trace.gamma
        marked = None
        note = ""
        heights: np.ndarray | list = []
        role = "resampled"
        if position is not None and not position.accepted:
            heights = position.residual
            token = position.resampled_token
            marked = (token, heights[token], labels[token])
            self.draw_title.set_text(f"r{subscript(position.index)} → {labels[token]}")
        elif frame.bonus_drawn or frame.bonus_next or (gamma == 0):
            heights = trace.target_probs[gamma]
            role = "bonus"
            if frame.bonus_drawn:
                token = trace.bonus_token
                marked = (token, heights[token], labels[token])
                self.draw_title.set_text(f"p{subscript(gamma)} → {labels[token]}")
            else:
                self.draw_title.set_text(f"next: p{subscript(gamma)}")
                note = "" if gamma == 0 else "all passed: bonus next"
        elif position is None:
            self.draw_title.set_text("")
            note = "press Step"
        else:
            self.draw_title.set_text("")
            note = "accepted: nothing to redraw"
        self.draw_bars.collection.set(**role_style(role))
        self.draw_bars.set(heights)
        self._marked_draw = marked
        self._show_note(self.draw_note, note)

    def _draw_sequence(self, trace, frame, labels) -> None:
        gamma = trace.gamma
        for index, (box, text) in enumerate(zip(self.draft_boxes, self.draft_texts)):
            visible = index < gamma
            box.set_visible(visible)
            text.set_visible(visible)
            if not visible:
                continue
            state = frame.draft_states[index]
            colour = {"pending": palette.DRAFT, "accepted": palette.ACCEPTED, "rejected": palette.RESAMPLED,
                      "discarded": palette.NEUTRAL}[state]
            box.set_facecolor("white")
            box.set_edgecolor(colour)
            box.set_linestyle("--" if state in ("pending", "discarded") else "-")
            box.set_hatch("")
            name = labels[trace.draft_tokens[index]]
            text.set_text(name + VERDICT_MARKS[state])
            text.set_color(colour)
            text.set_alpha(0.6 if state == "discarded" else 1.0)
        for index, (box, text) in enumerate(zip(self.output_boxes, self.output_texts)):
            shown = index < len(frame.tokens)
            empty_slot = not shown and index <= gamma
            box.set_visible(shown or empty_slot)
            text.set_visible(shown)
            if shown:
                origin = frame.origins[index]
                box.set(**role_style(origin), edgecolor="white")
                box.set_linestyle("-")
                text.set_text(labels[frame.tokens[index]])
                text.set_color(CHIP_TEXT_COLOUR)
                text.set_bbox({"facecolor": palette.ORIGIN_COLOURS[origin], "edgecolor": "none", "pad": 1})
            elif empty_slot:
                box.set_facecolor("white")
                box.set_edgecolor(palette.NEUTRAL)
                box.set_hatch("")
                box.set_linestyle(":")
        # The marker points at what the upper panels show: the position under test, or the bonus.
        if frame.bonus_drawn or gamma == 0:
            slot, row = gamma, 0
        else:
            slot, row = frame.focus, 1
        self.focus_marker.set_data([slot], [row + 0.6])
        # The total only once the step is over: before that it would tell the outcome.
        self.sequence_title.set_text(f"draw {frame.draws} of {frame.total}: step over" if frame.finished
                                     else f"draw {frame.draws}")

    def _place_marker(self, marker, text, marked, top) -> None:
        if marked is None:
            marker.set_visible(False)
            text.set_visible(False)
            return
        token, height, name = marked
        marker.set_data([token], [float(height)])
        text.xy = (token, float(height))
        text.set_text(name)
        # Above the marker if there is room under the top of the axes, else beside it.
        beside = height > 0.72 * top
        text.set_position((12, 2) if beside else (0, 14))
        text.set_horizontalalignment("left" if beside else "center")
        marker.set_visible(True)
        text.set_visible(True)

    @staticmethod
    def _show_note(note, message: str) -> None:
        note.set_text(message)
        note.set_visible(bool(message))
