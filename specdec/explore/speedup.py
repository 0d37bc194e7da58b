"""Tokens per step and speedup (notebook 04): α, γ and c in; P(N = k), E[N] and the speedup against γ out.

The numbers, and notebook 04's two static figures (also here), are `specdec.theory`'s: the same α at every position,
a verify pass costing one target pass. The speedup curve and its star stay hidden until a control moves, so that
the learner predicts the best γ first.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from ..palette import ACCEPTED, BONUS, DRAFT, HIGHLIGHT, NEUTRAL, RESAMPLED, TARGET
from ..validation import DEFAULT_MAX_GAMMA, Count, Probability, checked
from ..theory import (best_draft_lengths, break_even_acceptance_rate, expected_tokens, optimal_gamma, speedup,
                      speedup_table, token_count_distribution)
from .frame import (COMPACT_FIGURE_INCHES, COST_SLIDER_MAX, Explorer, FastRedraw, Picture, Readout, bold, compact, line,
                    new_figure, panel_axes, role_patch, role_style, slider, styled)

COST_RANGE = (1, COST_SLIDER_MAX)  #: the cost-ratio slider's range: from c = 1, the draft as slow as the target
LIMITS = (1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25)  #: the tops the E[N] and speedup axes may take
HEADROOM = 0.15  #: the room above the largest value, as a fraction of it
MIN_TOKEN_SLOTS = 4  #: the fewest k slots the P(N = k) panel shows


def nice_limit(value: float) -> float:
    """The smallest of `LIMITS` at least `HEADROOM` above `value`.

    >>> nice_limit(1.0), nice_limit(3.36), nice_limit(17.5)
    (1.25, 4, 25)
    """
    return next((limit for limit in LIMITS if value * (1 + HEADROOM) <= limit), LIMITS[-1])


def four_characters(value: float, _position=None) -> str:
    """A tick label of four characters ("0.25", "4.00", "12.5"), so labels never grow into the axis label.

    >>> [four_characters(v) for v in (0.25, 4, 12.5)]
    ['0.25', '4.00', '12.5']
    """
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


class SpeedupFigure(Picture):
    """Three panels over γ = 0 … `max_gamma`: P(N = k) with its mean, E[N] with its ceiling γ + 1, and
    the speedup (a linear axis) with the break-even line, the chosen γ ringed and the best γ starred.

    Examples
    --------
    >>> picture = SpeedupFigure(max_gamma=3)
    >>> picture.update(token_counts=[0.5, 0.5], expected=[1, 1.5, 1.75, 1.875],
    ...                speedups=[1, 1.25, 1.2, 1.1], gamma=1, best_gamma=1)
    >>> list(picture.best_marker.get_xdata()), [float(limit) for limit in picture.speed_axes.get_ylim()]
    ([1], [0.0, 1.5])
    """

    def __init__(self, max_gamma: int = DEFAULT_MAX_GAMMA):
        self.max_gamma, self.short = max_gamma, compact()  # compact: short titles (full ones collide), few ticks
        gammas, ones = np.arange(max_gamma + 1), np.ones(max_gamma + 1)
        chosen = dict(linestyle="none", marker="o", markersize=11, markerfacecolor="none",
                      markeredgecolor=HIGHLIGHT, markeredgewidth=2, label="chosen γ")
        with styled():
            self.figure = new_figure(10.0, 4.8, compact_size=COMPACT_FIGURE_INCHES)
            self.counts_axes, self.tokens_axes, self.speed_axes = counts, tokens, speed = panel_axes(self.figure, 3)
            self.bars = counts.bar(gammas + 1, np.zeros(max_gamma + 1), edgecolor=HIGHLIGHT, linewidth=0.6)
            self.mean_line = counts.axvline(1.0, color=HIGHLIGHT, linestyle="--", linewidth=1.5, gid="mean",
                                            label="mean E[N]")
            counts.set(title="Tokens from one step", xlabel="tokens from one step, k", ylabel="P(N = k)",
                       ylim=(0, 1.05))
            counts.xaxis.set_major_locator(MaxNLocator(integer=True))
            (self.ceiling,) = tokens.plot(gammas, gammas + 1, color=NEUTRAL, linestyle=":", linewidth=1.5,
                                          label="γ + 1: every draft accepted")
            (self.expected_line,) = tokens.plot(gammas, ones, color=HIGHLIGHT, marker=".", label="E[N] at this α")
            (self.tokens_marker,) = tokens.plot([0], [1], **chosen)
            tokens.set(title="Expected tokens" if self.short else "Expected tokens E[N]",
                       ylabel="E[N]" if self.short else "E[N], tokens per step")
            self.break_even = speed.axhline(1.0, color=NEUTRAL, linestyle="--", linewidth=1.5,
                                            label="1× (plain decoding)")
            (self.speedup_line,) = speed.plot(gammas, ones, color=HIGHLIGHT, marker=".", label="speedup")
            (self.speed_marker,) = speed.plot([0], [1], **chosen)
            (self.best_marker,) = speed.plot([1], [1], linestyle="none", marker="*", markersize=15,
                                             color=HIGHLIGHT, label="best γ", gid="best-gamma")
            self.best_label = speed.text(1, 1, "", ha="center", va="center")  # placed by `_place_label`
            self.speed_note = speed.text(0.5, 0.93, "", transform=speed.transAxes, ha="center", va="top",
                                         bbox={"facecolor": "white", "edgecolor": NEUTRAL, "alpha": 0.9})
            speed.set(title="Speedup" if self.short else "Speedup against γ", ylabel="speedup (×)")
            for axes in (tokens, speed):
                axes.set(xlabel="draft length γ", xlim=(-0.5, max_gamma + 0.5))
                axes.yaxis.set_major_locator(MaxNLocator(nbins=2 if self.short else 5, steps=[1, 2, 2.5, 5, 10]))
                axes.yaxis.set_major_formatter(FuncFormatter(four_characters))
            # One legend under the panels: inside, the curves (whose limits follow the data) would run into it.
            self.figure.legend(handles=[
                role_patch("resampled", "k ≤ γ, a rejection", edgecolor=HIGHLIGHT),
                role_patch("bonus", "k = γ+1, all accepted", edgecolor=HIGHLIGHT), self.mean_line, self.ceiling,
                self.expected_line, self.tokens_marker, self.break_even, self.speedup_line, self.best_marker,
            ], loc="outside lower center", ncols=2 if self.short else 3)
        self._limits = None
        every_mark = [artist for axes in self.figure.axes for artist in (*axes.patches, *axes.lines, *axes.texts)]
        self.fast = FastRedraw(self.figure, changing=every_mark, occasional=[counts.xaxis, tokens.yaxis, speed.yaxis])

    def update(self, token_counts, expected, speedups, gamma: int, best_gamma: int, reveal: bool = True) -> None:
        """Show P(N = k) for k = 1 … γ+1, E[N] and the speedup for γ = 0 … max_gamma; the best γ starred if its
        speedup is above 1 (else a note says so); with ``reveal=False`` the speedup curve and star hidden."""
        token_counts, expected, speedups = (np.asarray(values, float) for values in (token_counts, expected, speedups))
        for k, bar in enumerate(self.bars, start=1):
            bar.set(visible=k <= gamma + 1, height=token_counts[k - 1] if k <= gamma + 1 else 0.0,
                    **role_style("bonus" if k == gamma + 1 else "resampled"))
        self.mean_line.set_xdata([expected[gamma]] * 2)
        self.expected_line.set_ydata(expected)
        self.tokens_marker.set_data([gamma], [expected[gamma]])
        self.speedup_line.set(ydata=speedups, visible=reveal)
        self.speed_marker.set_data([gamma], [speedups[gamma]])
        helps = float(speedups[best_gamma]) > 1
        limits = (max(gamma + 1, MIN_TOKEN_SLOTS), nice_limit(float(expected.max())), nice_limit(float(speedups.max())))
        self.best_marker.set(xdata=[best_gamma], ydata=[float(speedups[best_gamma])], visible=helps and reveal)
        fits = self._place_label(speedups, best_gamma, limits[2])
        self.best_label.set_visible(helps and reveal and fits)  # no room: the star and the readout say it
        note = ("move a control\nto see the curve" if not reveal else "" if helps else
                "no γ beats\nplain decoding" if self.short else "no γ beats plain decoding")
        self.speed_note.set(text=note, visible=bool(note))
        if limits != self._limits:
            self.counts_axes.set_xlim(0.4, limits[0] + 0.6)
            self.tokens_axes.set_ylim(0, limits[1])
            self.speed_axes.set_ylim(0, limits[2])
            self._limits = limits
            self.fast.invalidate(limits)

    def _place_label(self, speedups, best_gamma: int, top: float) -> bool:
        """Write the best-γ label and put it where it fits clear of the curve, the star, the 1× line and the axes'
        edges, tried beside the star (under it, inside the hump, above it), then anywhere; False if nowhere."""
        self.best_label.set_text(f"best γ = {best_gamma}")
        box, dpi = self.speed_axes.get_position(), self.figure.dpi
        font_px = self.best_label.get_fontsize() * dpi / 72
        width_px = box.width * self.figure.get_figwidth() * dpi
        height_px = box.height * self.figure.get_figheight() * dpi
        half_width = 0.34 * font_px * len(self.best_label.get_text()) / width_px * (self.max_gamma + 1.0)
        half_height = 0.75 * font_px / height_px * top
        gammas, best = np.arange(speedups.size), float(speedups[best_gamma])
        low_edge, high_edge = -0.3, self.max_gamma + 0.3
        tried = ((1 + best) / 2, best + 2.2 * half_height, *(top * f for f in (0.15, 0.3, 0.45, 0.6, 0.75, 0.9)))
        heights = [y for y in tried if half_height < y < top - 1.2 * half_height and abs(y - 1) >= 1.2 * half_height]
        near_star = [("center", best_gamma - half_width), ("right", best_gamma - 2 * half_width - 0.3),
                     ("left", best_gamma + 0.3)]
        anywhere = [("left", float(x0)) for x0 in np.arange(low_edge, high_edge, 1.0)]
        candidates = ((align, x0, y) for places in (near_star, anywhere) for y in heights for align, x0 in places)
        for align, x0, y in candidates:
            x1 = x0 + 2 * half_width
            star_inside = x0 - 0.5 <= best_gamma <= x1 + 0.5 and abs(best - y) < 1.5 * half_height
            nearby = speedups[(gammas >= x0 - 0.6) & (gammas <= x1 + 0.6)]  # the curve under and beside the label
            if low_edge <= x0 and x1 <= high_edge and not star_inside and all(abs(nearby - y) > 1.3 * half_height):
                x = {"center": (x0 + x1) / 2, "right": x1, "left": x0}[align]
                self.best_label.set(position=(x, y), horizontalalignment=align)
                return True
        return False


class SpeedupExplorer(Explorer):
    """Sliders for α, γ and c; P(N = k), expected tokens and the speedup against γ, with the best γ.

    Parameters
    ----------
    alpha, gamma, c : float in [0, 1], int in 0 … 20, int in 1 … 100
        The starting acceptance rate, draft length and cost ratio (target pass time / draft pass time).
    reveal : bool
        Show the speedup curve and the best γ at once (default False: at the first move of a control).

    Attributes
    ----------
    controls : "alpha", "gamma", "c".
    shown : alpha, gamma, c, token_counts (P(N = k), k = 1 … γ+1), expected_tokens, speedup,
        expected_curve and speedup_curve (γ = 0 … 20), best_gamma, best_speedup, revealed, readout.

    Examples
    --------
    >>> explorer = SpeedupExplorer(alpha=0.8, c=20)
    >>> explorer.shown["best_gamma"], explorer.shown["revealed"]
    (8, False)
    >>> explorer.controls["gamma"].value = 5
    >>> explorer.shown["revealed"], round(explorer.shown["speedup"], 3)
    (True, 2.951)
    """

    title = "Tokens per step and speedup"

    @checked(alpha=Probability(), gamma=Count(0, DEFAULT_MAX_GAMMA), c=Count(*COST_RANGE))
    def __init__(self, alpha=0.8, gamma=4, c=20, reveal=False):
        self.revealed, self.opening = bool(reveal), (alpha, gamma, c)
        controls = {"alpha": slider("acceptance rate α", alpha, (0.0, 1.0), 0.01, readout_format=".2f"),
                    "gamma": slider("draft length γ", gamma, (0, DEFAULT_MAX_GAMMA)),
                    "c": slider("cost ratio c (target time / draft time)", c, COST_RANGE,
                                layout=widgets.Layout(width="40em"))}
        super().__init__(controls, [["alpha", "gamma"], ["c"]], SpeedupFigure(DEFAULT_MAX_GAMMA))

    def compute(self) -> dict:
        alpha, gamma, c = self.value("alpha"), self.value("gamma"), self.value("c")
        self.revealed = self.revealed or (alpha, gamma, c) != self.opening
        gammas = range(DEFAULT_MAX_GAMMA + 1)
        shown = {"alpha": alpha, "gamma": gamma, "c": c, "token_counts": token_count_distribution(alpha, gamma),
                 "expected_curve": [expected_tokens(alpha, length) for length in gammas],
                 "speedup_curve": [speedup(alpha, length, c) for length in gammas], "revealed": self.revealed}
        shown["expected_tokens"], shown["speedup"] = shown["expected_curve"][gamma], shown["speedup_curve"][gamma]
        shown["best_gamma"], shown["best_speedup"] = optimal_gamma(alpha, c, DEFAULT_MAX_GAMMA)
        self.picture.update(shown["token_counts"], shown["expected_curve"], shown["speedup_curve"], gamma,
                            shown["best_gamma"], reveal=self.revealed)
        return shown

    def describe(self, shown: dict) -> Readout:
        alpha, gamma, c, expected = shown["alpha"], shown["gamma"], shown["c"], shown["expected_tokens"]
        best, best_speedup = shown["best_gamma"], shown["best_speedup"]
        times = lambda value: f"{value:.{3 if 0 < abs(value - 1) < 0.005 else 2}f}×"  # 1.003× must not read 1.00×
        if not shown["revealed"]:
            best_line = line("Best γ: predict it, then move a control to see the curve and its star.", key=False)
        elif best_speedup > 1:
            best_line = line(f"Best γ in 1 … {DEFAULT_MAX_GAMMA}: ", bold(best), f", speedup {times(best_speedup)}")
        else:
            best_line = line(bold(f"No γ in 1 … {DEFAULT_MAX_GAMMA} beats plain decoding here"),
                             f": even the best, γ = {best}, gives {times(best_speedup)}. Some γ helps only "
                             f"when α > 1/c = {break_even_acceptance_rate(c):.3f}; here α = {alpha:.2f}.")
        return Readout([
            line(f"α = {alpha:.2f}, γ = {gamma}, c = {c} (c′ = 1/c = {1 / c:.3f})"),
            line("Expected tokens per step E[N] = ", bold(f"{expected:.3f}"), f" (at most γ + 1 = {gamma + 1})"),
            line("γ = 0: no draft, plain decoding" if gamma == 0 else  # else P(N = γ + 1), every draft token accepted
                 f"P(the draft token is accepted) = α = {shown['token_counts'][-1]:.3f}" if gamma == 1 else
                 f"P(all {gamma} drafts accepted) = α^γ = {shown['token_counts'][-1]:.3f}"),
            line(f"Cost of one step = 1 + γ/c = {1 + gamma / c:.3f} target passes"),
            line("Speedup = E[N] / (1 + γ/c) = ", bold(times(shown["speedup"])),
                 f" ({'faster' if shown['speedup'] > 1 else 'not faster'} than plain decoding)"),
            best_line,
        ])


# ---- the static figures of notebook 04 ------------------------------------------------------------
#: One look per curve: (colour, line style, marker), reused in order; colour is never the only cue.
CURVE_STYLES = ((TARGET, "-", "o"), (DRAFT, "--", "s"), (ACCEPTED, "-.", "^"), (RESAMPLED, ":", "D"),
                (BONUS, (0, (5, 1, 1, 1)), "v"), (HIGHLIGHT, (0, (1, 1)), "P"))


def speedup_against_draft_length(alphas, c, max_gamma=15) -> Figure:
    """speedup(α, γ, c) against γ = 1 … max_gamma, one curve per α (at most six), each peak starred.

    >>> figure = speedup_against_draft_length([0.5, 0.9], c=20, max_gamma=15)
    >>> [line.get_label() for line in figure.axes[0].get_lines() if not line.get_label().startswith("_")]
    ['α = 0.5 (best γ = 3)', 'α = 0.9 (best γ = 13)']
    """
    table, gammas = speedup_table(alphas, c, max_gamma), np.arange(1, max_gamma + 1)
    with styled():
        axes = _curve_axes(len(table))
        for (colour, style, marker), alpha, row in zip(CURVE_STYLES, alphas, table):
            best = int(np.argmax(row))
            axes.plot(gammas, row, color=colour, linestyle=style, marker=marker, markersize=4,
                      label=f"α = {alpha:g} (best γ = {gammas[best]})")
            axes.plot([gammas[best]], [row[best]], linestyle="none", marker="*", markersize=15, color=colour,
                      markeredgecolor=HIGHLIGHT)
        axes.axhline(1.0, color=NEUTRAL, linestyle=":", linewidth=1)
        axes.set(title=f"Speedup against draft length at c = {c:g} (★ the best γ)", xlabel="draft length γ",
                 ylabel="expected speedup over plain decoding", xticks=gammas[::2] if max_gamma > 10 else gammas)
        axes.legend(loc="upper left")
    return axes.figure


def best_draft_length_against_alpha(cs, alphas=None, max_gamma=40) -> Figure:
    """The best γ (in 1 … max_gamma) against α (default 0.50, 0.51, …, 0.90), one step curve per c.

    The picture of Leviathan et al. (2023), Figure 3, in this series' c: their cost coefficient c, written c′ here,
    is 1/c.

    >>> figure = best_draft_length_against_alpha([10, 100])
    >>> [line.get_label() for line in figure.axes[0].get_lines()]
    ['c = 10 (c′ = 0.1)', 'c = 100 (c′ = 0.01)']
    """
    alphas = np.round(np.arange(0.50, 0.901, 0.01), 2) if alphas is None else np.asarray(alphas, dtype=float)
    with styled():
        axes = _curve_axes(len(cs))
        for (colour, style, _marker), c in zip(CURVE_STYLES, cs):
            axes.step(alphas, best_draft_lengths(alphas, c, max_gamma), where="mid", color=colour, linestyle=style,
                      label=f"c = {c:g} (c′ = {1 / c:g})")
        axes.set(title="The best draft length grows with α and with c", xlabel="acceptance rate α",
                 ylabel="best draft length γ")
        axes.legend(loc="upper left", title="cost ratio (c′ = 1/c)")
    return axes.figure


def _curve_axes(count: int):
    """The axes of a new figure for `count` curves, one of `CURVE_STYLES` each (make it inside `styled`)."""
    if not 1 <= count <= len(CURVE_STYLES):
        raise ValueError(f"give between 1 and {len(CURVE_STYLES)} curves, got {count}")
    return new_figure(7.5, 4.2).subplots()
