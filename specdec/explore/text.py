"""Speculative decoding on real text (notebook 07): n-gram models, coloured by where each character came from.

Left: α of each draft order over `CONTEXT_COUNT` contexts of the corpus. Right: characters per target
call and the speedup at c of the run, beside the theory at the averaged α and (tick box) the mean and
range over `SEED_COUNT` seeds. Counts are kept on disk (`specdec.text.ngram`).
"""

from __future__ import annotations

import functools
import html

import ipywidgets as widgets
import numpy as np
from IPython import get_ipython
from IPython.display import display
from matplotlib.patches import Patch

from .. import palette
from ..palette import ORIGIN_COLOURS
from ..core import expected_tokens, speedup
from ..validation import Between, Count, InstanceOf, OrNone, checked
from ..text import (Generation, corpus as corpus_module, fitted_model, mean_acceptance_rate, sample_contexts,
                    speculative_generate)
from ..text.repeated_runs import runs_over_seeds
from .frame import (COMPACT_FIGURE_INCHES, COST_SLIDER_MAX, Explorer, FastRedraw, Picture, Readout, bold, compact,
                    labelled, line, new_figure, panel_axes, role_patch, role_style, slider, styled)

#: Ranges of the sliders: the draft's n-gram order (small), the target's (larger), γ and the temperature.
DRAFT_ORDER_RANGE, TARGET_ORDER_RANGE, TEXT_GAMMA_RANGE, TEMPERATURE_RANGE = (1, 4), (4, 7), (1, 10), (0.2, 2.0)
DRAFT_ORDERS = tuple(range(DRAFT_ORDER_RANGE[0], DRAFT_ORDER_RANGE[1] + 1))
CONTEXT_COUNT = 200  #: contexts of the corpus over which the α of each draft order is averaged (left panel)
SEED_COUNT = 6  #: how many seeds the mean and range beside the single run are taken over
GAIN_TOP = 12.0  #: the fixed top of the two right panels: above γ + 1 = 11, the most one step yields at the largest γ
THEORY_HATCH = "oo"  #: hatching of the theory bars (grey, unlike every role's hatch: a prediction, not a role)
_BAR_OFFSETS, _SEEDS_AT = (-0.2, 0.2), 0.7  #: where the right panels put the run and theory bars, and the seeds

#: How each origin is written, so that colour is not the only cue: weight and underline differ.
ORIGIN_STYLES = {"accepted": "", "resampled": "font-weight:bold;text-decoration:underline wavy",
                 "bonus": "font-weight:bold;text-decoration:underline double", "target": ""}
ORIGIN_DESCRIPTIONS = {"accepted": "accepted draft character", "resampled": "resampled after a rejection",
                       "bonus": "bonus from the target", "target": "sampled from the target"}


def a_generation(value, name, _arguments=None) -> Generation:
    """A declared check: a `specdec.text.Generation` whose origins all have a colour."""
    InstanceOf(Generation, "a specdec.text.Generation")(value, name, _arguments)
    unknown = sorted(set(value.origins) - set(ORIGIN_COLOURS))
    if unknown:
        raise ValueError(f"{name}.origins holds {', '.join(map(repr, unknown))}: each origin must be one of "
                         f"{', '.join(map(repr, ORIGIN_COLOURS))}")
    return value


@checked(generation=a_generation)
def coloured_text_html(generation: Generation, legend: bool = True) -> str:
    """The prompt in grey, then each generated character on the background of its origin's colour.

    Returns HTML: a monospace block (line breaks shown as ↵), each character with its origin as a
    tooltip, resampled and bonus characters also bold and underlined; with `legend`, the origins above.

    Examples
    --------
    >>> origins = ("accepted", "resampled", "bonus", "accepted")
    >>> html_text = coloured_text_html(Generation("Hi", " <b>", origins, (4,), 1, 3, 3))
    >>> "&lt;" in html_text, "<b>" in html_text  # the generated "<b>" is shown, not obeyed
    (True, False)
    >>> html_text.count("title='resampled'")  # once in the legend, once in the text
    2
    """
    shown = [origin for origin in ORIGIN_COLOURS if origin in generation.origins] or ["accepted", "resampled", "bonus"]
    names = {origin: ORIGIN_DESCRIPTIONS[origin] for origin in shown} if legend else {}
    return origin_html(generation.prompt, generation.text, generation.origins, names)


def origin_html(prompt: str, text: str, origins, names: dict, height: str = "14em") -> str:
    """`prompt` in grey, then each character of `text` on its origin's colour in a block `height` high;
    above it, unless `names` (origin -> what it means) is empty, those origins as a legend."""
    spans = [f"<span style='color:#595959'>{html.escape(prompt)}</span>", *map(origin_span, text, origins)]
    block = (f"<div style='font-family:monospace;white-space:pre-wrap;line-height:1.7;max-height:{height};"
             "overflow-y:auto;border:1px solid #ccc;padding:0.4em'>" + "".join(spans) + "</div>")
    if not names:
        return block
    keys = " ".join(f"{origin_span('x', origin)} {name}&emsp;" for origin, name in names.items())
    return f"<div style='margin-bottom:0.3em'>{keys}<span style='color:#595959'>prompt in grey</span></div>{block}"


def origin_span(char: str, origin: str) -> str:
    """One character on its origin's colour, its origin as a tooltip."""
    colour = ORIGIN_COLOURS[origin]
    red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    style = f"background-color:rgba({red},{green},{blue},0.22);border-bottom:2px solid {colour};{ORIGIN_STYLES[origin]}"
    shown = "↵\n" if char == "\n" else html.escape(char)
    return f"<span title='{origin}' style='{style}'>{shown}</span>"


class RealTextFigure(Picture):
    """α of each draft order (left); characters per target call and speedup, run against theory (right).

    Examples
    --------
    >>> picture = RealTextFigure()
    >>> picture.update(alphas=[0.2, 0.35, 0.56, 0.8], draft_order=3, target_order=5, measured_alpha=0.58,
    ...                measured=(2.2, 1.8), predicted=(2.17, 1.81), gamma=4, c=20,
    ...                spread=((1.7, 2.2, 2.7), (1.5, 1.8, 2.1)))
    >>> [round(bar.get_height(), 2) for bar in picture.alpha_bars]
    [0.2, 0.35, 0.56, 0.8]
    >>> list(picture.speed.spread[0].get_ydata())
    [1.8]
    """

    def __init__(self):
        self.stacked = stacked = compact()  # presentation mode: the panels in two rows, one legend below
        with styled():
            self.figure = new_figure(9.6, 3.9, compact_size=COMPACT_FIGURE_INCHES)
            alpha_axes, tokens_axes, speed_axes = panel_axes(self.figure, 3, width_ratios=(1.3, 1, 1))
            self.alpha_bars = alpha_axes.bar(DRAFT_ORDERS, np.zeros(len(DRAFT_ORDERS)), width=0.7,
                                             **role_style("accepted"), edgecolor=palette.HIGHLIGHT, linewidth=0.6)
            (self.measured_marker,) = alpha_axes.plot([2.5, 3.5], [0, 0], color=palette.HIGHLIGHT, linewidth=3,
                                                      linestyle=(0, (1.5, 0.8)), label="measured in this run")
            self.alpha_labels = [alpha_axes.text(order, 0, "", ha="center", va="bottom") for order in DRAFT_ORDERS]
            alpha_axes.set(xticks=DRAFT_ORDERS, xlim=(0.4, 4.6), xlabel="draft order (1 = unigram, 2 = bigram)",
                           ylabel="α" if stacked else "acceptance rate α", ylim=(0, 1.3 if stacked else 1.12))
            self.alpha_title = alpha_axes.set_title("")
            accepted = role_patch("accepted", "α over corpus contexts", edgecolor=palette.HIGHLIGHT)
            if not stacked:  # under the panel: inside, the bars and their labels would run into it
                chosen = Patch(facecolor="none", edgecolor=palette.HIGHLIGHT, linewidth=2.5, label="chosen draft")
                self.figure.legend(handles=[accepted, chosen, self.measured_marker], loc="outside lower left")
            self.tokens = GainPanel(tokens_axes, "characters / call" if stacked else "characters per target call",
                                    5.0, color=palette.HIGHLIGHT, linestyle="--", linewidth=1.2,
                                    label="γ + 1: every draft accepted")
            self.speed = GainPanel(speed_axes, "speedup (×)", 1.0, color=palette.NEUTRAL, linestyle=":", linewidth=1.5,
                                   label="1×: plain decoding")
            if stacked:  # one legend for the three panels, short: the text is large and the picture small
                handles = [accepted, self.measured_marker, *self.tokens.bars, self.tokens.spread[0], self.tokens.level]
                labels = ["accepted: α of each draft", "α measured", "this run", "theory at ᾱ",
                          f"{SEED_COUNT} seeds: mean, range", "γ + 1"]
            else:  # one for both right panels, under them: inside, the moving γ + 1 line and the bars would cross it
                handles = [*self.tokens.bars, self.tokens.spread[0], self.tokens.level, self.speed.level]
                labels = ["this run", "theory at the averaged α", f"{SEED_COUNT} seeds: mean and range",
                          "γ + 1: every draft accepted", "1×: plain decoding"]
            self.figure.legend(handles=handles, labels=labels, loc="outside lower center" if stacked
                               else "outside lower right", ncols=2)
        self.fast = FastRedraw(self.figure, changing=[
            *self.alpha_bars, self.measured_marker, *self.alpha_labels, *self.tokens.artists, *self.speed.artists,
            self.tokens.title, self.speed.title], occasional=[self.alpha_title])  # redrawn when the target changes

    def update(self, alphas, draft_order: int, target_order: int, measured_alpha: float, measured, predicted,
               gamma: int, c: float, spread=None) -> None:
        """α per draft order; (characters per target call, speedup at c) measured and predicted; `spread`: their
        (lowest, mean, highest) over several seeds, or None."""
        for order, bar, label, alpha in zip(DRAFT_ORDERS, self.alpha_bars, self.alpha_labels, alphas):
            chosen = order == draft_order
            bar.set(height=alpha, linewidth=2.5 if chosen else 0.6, alpha=1.0 if chosen else 0.55)
            label.set(position=(order, max(alpha, measured_alpha if chosen else 0.0) + 0.02), text=f"{alpha:.2f}")
        self.measured_marker.set_data([draft_order - 0.5, draft_order + 0.5], [measured_alpha] * 2)
        self.alpha_title.set_text(f"α of each draft, {target_order}-gram target")
        self.fast.invalidate(target_order)  # a still part: drawn once for each target order, then kept
        spreads = spread if spread is not None else ((np.nan,) * 3,) * 2
        self.tokens.show((measured[0], predicted[0]), "", spreads[0])
        # compact: no "×" after the speedups (the axis says it): "1.72×1.68×" ran together, 1 px apart
        self.speed.show((measured[1], predicted[1]), "" if self.stacked else "×", spreads[1])
        self.tokens.level.set_ydata([gamma + 1, gamma + 1])
        # compact: the axis label already says "characters / call"; the long title would reach the next panel
        self.tokens.title.set_text(f"γ = {gamma}" if self.stacked else f"characters per call, γ = {gamma}")
        self.speed.title.set_text(f"speedup at c = {c:g}")


class GainPanel:
    """A right panel of `RealTextFigure`: a bar for this run (grey) and one for the theory (hatched), each with its
    value above it, a line at `level` (styled by `level_style`), the seeds' mean (a diamond) and range (capped)."""

    def __init__(self, axes, ylabel: str, level: float, **level_style):
        self.bars = list(axes.bar(_BAR_OFFSETS, [0.0, 0.0], width=0.36, color=[palette.NEUTRAL, "white"],
                                  edgecolor=[palette.HIGHLIGHT, palette.NEUTRAL], linewidth=0.6))
        self.bars[1].set_hatch(THEORY_HATCH)
        self.values = [axes.text(offset, 0.0, "", ha="center", va="bottom") for offset in _BAR_OFFSETS]
        self.level = axes.axhline(level, **level_style)
        self.spread = (*axes.plot([_SEEDS_AT], [np.nan], color=palette.HIGHLIGHT, marker="D", markersize=5,
                                  linestyle="none", label=f"{SEED_COUNT} seeds: mean and range"),
                       *axes.plot([_SEEDS_AT] * 2, [np.nan] * 2, color=palette.HIGHLIGHT, linewidth=2,
                                  solid_capstyle="butt", marker="_", markersize=12, markeredgewidth=2))
        # compact: room above the tallest bar for its value (it reached the title at γ = 10)
        axes.set(ylabel=ylabel, xticks=[*_BAR_OFFSETS, _SEEDS_AT], xticklabels=["run", "theory", "seeds"],
                 xlim=(-0.55, 0.95), ylim=(0, GAIN_TOP + 2.0 if compact() else GAIN_TOP))
        self.title = axes.set_title("")
        self.artists = [*self.bars, *self.values, self.level, *self.spread]

    def show(self, heights, unit: str, spread) -> None:
        """The run's and the theory's `heights` (their values followed by `unit`); `spread`: (lowest, mean, highest)."""
        for bar, value, height in zip(self.bars, self.values, heights):
            shown = float(height) if np.isfinite(height) else 0.0
            bar.set_height(min(shown, GAIN_TOP))
            value.set(position=(bar.get_x() + bar.get_width() / 2, min(shown, GAIN_TOP - 0.9) + 0.1),
                      text=f"{height:.2f}{unit}" if np.isfinite(height) else "—")
        low, middle, high = spread
        self.spread[0].set_ydata([middle])
        self.spread[1].set_ydata([low, high])


def long_enough(value, name, _arguments=None) -> str:
    """A declared check: a str of at least 2 · `CONTEXT_COUNT` characters."""
    InstanceOf(str, "a str")(value, name, _arguments)
    if len(value) < 2 * CONTEXT_COUNT:
        raise ValueError(f"{name} must hold at least {2 * CONTEXT_COUNT} characters, got {len(value)}")
    return value


class TextExplorer(Explorer):
    """Speculative decoding on real text: choose the two models, γ, temperature, seed, prompt and c.

    Parameters
    ----------
    corpus : str, optional
        The text both models are fitted on; `specdec.text.stdlib_corpus()` by default.
    draft_order, target_order, gamma : int in 1 … 4, 4 … 7, 1 … 10 (draft characters per step)
    temperature : float in 0.2 … 2, applied to both models
    seed, prompt, c : int >= 0, str, int in 1 … 100 (time of a target pass / time of a draft pass)
    length : int >= 1, the characters to generate (not a control: it sets how long one update takes)
    seed_spread : bool, whether the tick box "mean over 6 seeds" starts ticked

    Attributes
    ----------
    shown : the control values (``seed_spread``: a `SeedSpread` while ticked, else None), ``generation``,
        ``text_html``, ``measured_alpha``, ``mean_acceptance_rate``, ``tokens_per_target_call``,
        ``expected_tokens``, ``measured_speedup``, ``predicted_speedup``, ``alpha_by_draft_order``, ``length`` and
        ``seed_speedups`` (each seed's speedup at c, else None).
    text_view : ipywidgets.HTML, the coloured text.

    Examples
    --------
    >>> text = "the cat sat on the mat and the rat sat on the cat " * 20
    >>> explorer = TextExplorer(text, length=40)
    >>> len(explorer.shown["generation"].text)
    40
    """

    title = "Speculative decoding on real text"

    @checked(corpus=OrNone(long_enough), draft_order=Count(*DRAFT_ORDER_RANGE), target_order=Count(*TARGET_ORDER_RANGE),
             gamma=Count(*TEXT_GAMMA_RANGE), temperature=Between(*TEMPERATURE_RANGE), seed=Count(),
             prompt=InstanceOf(str, "a str"), length=Count(1), c=Count(1, COST_SLIDER_MAX),
             seed_spread=InstanceOf((bool, np.bool_), "True or False"))
    def __init__(self, corpus=None, *, draft_order=3, target_order=5, gamma=4, temperature=1.0, seed=0, prompt="The ",
                 length=120, c=20, seed_spread=False):
        progress = ProgressLine("Preparing the real-text explorer")
        if corpus is None:
            in_memory = getattr(corpus_module.stdlib_corpus, "cache_info", None)
            if in_memory is None or not in_memory().currsize:
                progress("reading the corpus (the standard library's docstrings; kept on disk afterwards)")
            corpus = corpus_module.stdlib_corpus()
        self.corpus, self.length = corpus, length
        self.contexts = sample_contexts(corpus, CONTEXT_COUNT, TARGET_ORDER_RANGE[1])
        for order in (*DRAFT_ORDERS, target_order):  # the orders of the first picture, now, saying so
            fitted_model(order, corpus, progress=progress)
        # One model per order, kept with the distributions it has computed (a new one would compute them again).
        self.fitted = functools.lru_cache(maxsize=None)(functools.partial(fitted_model, text=corpus))
        self.alphas = functools.lru_cache(maxsize=32)(self._alphas)
        self.run = functools.lru_cache(maxsize=32)(self._run)
        self.spread = functools.lru_cache(maxsize=64)(self._spread)
        self.text_view = widgets.HTML()
        controls = {
            "draft_order": slider("draft: n-gram order", draft_order, DRAFT_ORDER_RANGE, continuous_update=False),
            "target_order": slider("target: n-gram order", target_order, TARGET_ORDER_RANGE, continuous_update=False),
            "gamma": slider("draft characters per step γ", gamma, TEXT_GAMMA_RANGE, continuous_update=False),
            "temperature": slider("temperature (both models)", temperature, TEMPERATURE_RANGE, 0.1,
                                  readout_format=".1f", continuous_update=False),
            "seed": labelled(widgets.BoundedIntText, "random seed", value=seed, min=0, max=10**9,
                             layout=widgets.Layout(width="12em")),
            "prompt": labelled(widgets.Text, "prompt", value=prompt, continuous_update=False,
                               layout=widgets.Layout(width="24em")),
            "c": slider("cost ratio c (target time / draft time)", c, (1, COST_SLIDER_MAX),
                        layout=widgets.Layout(width="40em")),
            "seed_spread": widgets.Checkbox(value=bool(seed_spread), description=f"mean over {SEED_COUNT} seeds",
                                            indent=False, layout=widgets.Layout(width="auto")),
        }
        models = [["draft_order", "target_order", "gamma"], ["temperature", "seed", "prompt"]]
        super().__init__(controls, [*models, ["c", "seed_spread"]], RealTextFigure(),
                         compact_rows=([["c"]], [*models, ["seed_spread"]]))
        header, *rows, body = self.children
        # The text above the picture; in the compact layout under it (the picture has to fit the window's height).
        self.children = (header, body, self.text_view) if self.compact else (header, *rows, self.text_view, body)
        progress.done()

    def models(self, target_order: int, draft_order: int, temperature: float):
        """The target and the draft at `temperature`."""
        return tuple(self.fitted(order).at_temperature(temperature) for order in (target_order, draft_order))

    def _alphas(self, target_order: int, temperature: float) -> tuple:
        return tuple(mean_acceptance_rate(*self.models(target_order, order, temperature), self.contexts)
                     for order in DRAFT_ORDERS)

    def _run(self, draft_order, target_order, gamma, temperature, seed, prompt) -> Generation:
        return speculative_generate(*self.models(target_order, draft_order, temperature), prompt, self.length, gamma,
                                    np.random.default_rng(seed))

    def _spread(self, draft_order, target_order, gamma, temperature, prompt):
        return runs_over_seeds(*self.models(target_order, draft_order, temperature), prompt, self.length, gamma,
                               SEED_COUNT)

    def compute(self) -> dict:
        values = {name: control.value for name, control in self.controls.items()}
        temperature = round(float(values["temperature"]), 2)
        setting = (values["draft_order"], values["target_order"], values["gamma"], temperature)
        run = self.run(*setting, values["seed"], values["prompt"])
        alphas = self.alphas(values["target_order"], temperature)
        seeds = self.spread(*setting, values["prompt"]) if values["seed_spread"] else None
        gamma, c, mean_alpha = values["gamma"], values["c"], run.mean_acceptance_rate
        speedups = None if seeds is None else seeds.speedups(c)
        shown = {**values, "generation": run, "measured_alpha": run.measured_alpha, "mean_acceptance_rate": mean_alpha,
                 "tokens_per_target_call": run.tokens_per_target_call, "measured_speedup": run.speedup_from_calls(c),
                 "expected_tokens": expected_tokens(mean_alpha, gamma), "seed_spread": seeds, "length": self.length,
                 "predicted_speedup": speedup(mean_alpha, gamma, c), "seed_speedups": speedups,
                 "alpha_by_draft_order": dict(zip(DRAFT_ORDERS, alphas))}
        spread = None if seeds is None else ((seeds.low, seeds.mean, seeds.high),
                                             (speedups.min(), speedups.mean(), speedups.max()))
        self.picture.update(alphas, values["draft_order"], values["target_order"], run.measured_alpha,
                            (run.tokens_per_target_call, shown["measured_speedup"]),
                            (shown["expected_tokens"], shown["predicted_speedup"]), gamma, c, spread=spread)
        shown["text_html"] = self.text_view.value = coloured_text_html(run)
        return shown

    def describe(self, shown: dict) -> Readout:
        generation: Generation = shown["generation"]
        counts = {origin: generation.origins.count(origin) for origin in ("accepted", "resampled", "bonus")}
        passed, tested = sum(generation.visited_accepted), len(generation.visited_accepted)
        cut = passed - counts["accepted"]  # draft characters that passed after the text reached its length
        mean, gamma, c = f"{shown['mean_acceptance_rate']:.3f}", shown["gamma"], shown["c"]
        seeds, noisy = shown["seed_spread"], f"One run of {shown['length']} characters is noisy"
        if seeds is None:
            noise = [line(f"{noisy}: before reading a trend as γ grows, tick “mean over {SEED_COUNT} seeds” and "
                          "compare the means.", note=True)]
        else:
            speedups, count = shown["seed_speedups"], len(seeds.characters_per_call)
            noise = [line(f"over {count} seeds (0 … {count - 1}): characters per call: mean ",
                          bold(f"{seeds.mean:.2f}"), f", from {seeds.low:.2f} to {seeds.high:.2f}", key=True),
                     line(f"speedup at c = {c}: mean ", bold(f"{speedups.mean():.2f}×"),
                          f", from {speedups.min():.2f}× to {speedups.max():.2f}×", key=True),
                     line(f"{noisy}: compare settings by the mean of several seeds, not by one run.", note=True)]
        return Readout([
            line(f"draft: {shown['draft_order']}-gram, target: {shown['target_order']}-gram, γ = {gamma}, "
                 f"temperature {shown['temperature']:.1f}"),
            line("α over corpus contexts, by draft order: "
                 + ", ".join(f"{order}: {alpha:.2f}" for order, alpha in shown["alpha_by_draft_order"].items())),
            line(f"{len(generation.text)} characters in ", bold(generation.target_calls),
                 f" target calls and {generation.draft_calls} draft calls", key=False),
            line(f"characters of the text by origin: accepted {counts['accepted']}, resampled {counts['resampled']}, "
                 f"bonus {counts['bonus']}"),
            line("α measured in this run: ", bold(f"{shown['measured_alpha']:.3f}"), key=True),
            line(f"the share of tested draft characters that passed: {passed} of {tested}",
                 f"; {cut} of them came after character {len(generation.text)}, where the text stops, so "
                 f"{counts['accepted']} are in the text" if cut else ""),
            line("α averaged over the contexts the run visited, ᾱ = ", bold(mean),
                 ": what the measured α is expected to be; the theory below uses ᾱ", key=False),
            line("characters per target call: ", bold(f"{shown['tokens_per_target_call']:.2f}"), " in this run",
                 key=True),
            line(f"expected_tokens(ᾱ = {mean}, γ = {gamma}) = {shown['expected_tokens']:.2f}"),
            line(f"speedup at c = {c}: ", bold(f"{shown['measured_speedup']:.2f}×"), " from this run's call counts",
                 key=True),
            line(f"speedup(ᾱ = {mean}, γ = {gamma}, c = {c}) = {shown['predicted_speedup']:.2f}×"),
            *noise,
        ])


class ProgressLine:
    """A line in the notebook saying what is being done, shown once something is reported (never outside a
    notebook): ``report = ProgressLine(title)``, ``report(message)``, then ``report.done()`` empties it."""

    def __init__(self, title: str):
        self.title, self.handle = title, None

    def __call__(self, message: str) -> None:
        text = f"{self.title}: {message} …"
        bundle = {"text/plain": text, "text/html": f"<p style='color:#595959'><i>{html.escape(text)}</i></p>"}
        if self.handle is not None:
            self.handle.update(bundle, raw=True)
        elif hasattr(get_ipython(), "kernel"):
            self.handle = display(bundle, raw=True, display_id=True)

    def done(self) -> None:
        if self.handle is not None:
            self.handle.update({"text/plain": "", "text/html": ""}, raw=True)
            self.handle = None
