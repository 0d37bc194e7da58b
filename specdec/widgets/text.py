"""The real-text explorer: speculative decoding with n-gram models, coloured by where each character came from.

A draft n-gram model proposes, a higher-order target verifies with `specdec.core`, and the generated
text is shown coloured by origin. Beside it: α measured in the run against α averaged over the
contexts it visited, tokens per target call against ``expected_tokens(α, γ)``, and the speedup the
call counts imply at a cost ratio c against ``speedup(α, γ, c)``.

The first picture comes quickly. The corpus and the models' counts are kept on disk between
sessions (`specdec.text.disk_cache`) and shared between orders (`specdec.text.ngram.CorpusCounts`),
and only the orders the first picture needs are made when the explorer is built (draft orders
1 … 4 for the left panel, and the chosen target); another target order is counted when the slider
first reaches it (a fraction of a second). When something must be read or counted first, which
takes a few seconds on the first run on a machine, the notebook shows what is being done meanwhile.
The α of every draft order on the left panel is averaged over `CONTEXT_COUNT` contexts of the
corpus and cached per (target order, temperature, corpus).

One run of `length` characters is noisy, so the readout says so, and a tick box adds the mean and
range of characters per call over `SEED_COUNT` seeds (`specdec.text.repeated_runs`), the basis for
any claim about how they move with γ. It is off at first: the extra runs take a few times as long
as the one run, too long to redo on every slider move.
"""

from __future__ import annotations

import functools
import html
import numbers

import ipywidgets as widgets
import numpy as np

from .. import validation
from ..core import expected_tokens
from ..palette import ORIGIN_COLOURS
from ..plots.text import DRAFT_ORDERS, SEED_COUNT, RealTextFigure
from ..text import corpus as corpus_module
from ..text.agreement import mean_acceptance_rate, sample_contexts
from ..text.generation import Generation, speculative_generate
from ..text.ngram import fitted_model
from ..text.repeated_runs import SeedSpread, runs_over_seeds
from ..theory import speedup
from .explorer import LABEL_STYLE, Explorer

#: Orders the sliders offer: a small draft, a larger target.
DRAFT_ORDER_RANGE = (1, 4)
TARGET_ORDER_RANGE = (4, 7)
GAMMA_RANGE = (1, 10)
TEMPERATURE_RANGE = (0.2, 2.0)
COST_RANGE = (1, 100)

#: Contexts of the corpus over which the α of each draft order is averaged (left panel).
CONTEXT_COUNT = 200


#: How each origin is written, so that colour is not the only cue: weight and underline differ.
ORIGIN_STYLES = {
    "accepted": "",
    "resampled": "font-weight:bold;text-decoration:underline wavy",
    "bonus": "font-weight:bold;text-decoration:underline double",
    "target": "",
}

ORIGIN_DESCRIPTIONS = {
    "accepted": "accepted draft character",
    "resampled": "resampled after a rejection",
    "bonus": "bonus from the target",
    "target": "sampled from the target",
}


def coloured_text_html(generation: Generation, legend: bool = True) -> str:
    """The prompt in grey, then each generated character on the background of its origin's colour.

    Parameters
    ----------
    generation : specdec.text.Generation
    legend : bool
        Whether to put a legend of the origins above the text.

    Returns
    -------
    str
        HTML: a monospace block; line breaks are shown as ↵ and kept, each character carries its
        origin as a tooltip, and resampled and bonus characters are also bold and underlined.

    Examples
    --------
    >>> from specdec.text import Generation
    >>> html_text = coloured_text_html(Generation("Hi", " <b>", ("accepted", "resampled", "bonus", "accepted"), (4,), 1, 3, 3))
    >>> "&lt;" in html_text, "<b>" in html_text  # the generated "<b>" is shown, not obeyed
    (True, False)
    >>> html_text.count("title='resampled'")  # once in the legend, once in the text
    2
    """
    if not isinstance(generation, Generation):
        raise TypeError(f"generation must be a specdec.text.Generation, got {type(generation).__name__}")
    unknown = sorted(set(generation.origins) - set(ORIGIN_COLOURS))
    if unknown:
        raise ValueError(
            f"generation.origins holds {', '.join(map(repr, unknown))}: each origin must be one of "
            f"{', '.join(map(repr, ORIGIN_COLOURS))}"
        )
    spans = [f"<span style='color:#595959'>{_escape(generation.prompt)}</span>"]
    for char, origin in zip(generation.text, generation.origins):
        spans.append(_span(char, origin))
    block = (
        "<div style='font-family:monospace;white-space:pre-wrap;line-height:1.7;max-height:14em;"
        "overflow-y:auto;border:1px solid #ccc;padding:0.4em'>" + "".join(spans) + "</div>"
    )
    if not legend:
        return block
    shown = [origin for origin in ORIGIN_COLOURS if origin in generation.origins] or ["accepted", "resampled", "bonus"]
    keys = " ".join(
        f"{_span('x', origin)} {ORIGIN_DESCRIPTIONS[origin]}" + "&emsp;" for origin in shown
    )
    return f"<div style='margin-bottom:0.3em'>{keys}<span style='color:#595959'>prompt in grey</span></div>{block}"


def text_explorer(corpus=None, *, draft_order=3, target_order=5, gamma=4, temperature=1.0, seed=0,
                  prompt="The ", length=120, c=20, seed_spread=False) -> Explorer:
    """Speculative decoding on real text: choose the two models, γ, temperature, seed, prompt and c.

    Parameters
    ----------
    corpus : str, optional
        The text both models are fitted on; `specdec.text.stdlib_corpus()` by default.
    draft_order : int in 1 … 4
    target_order : int in 4 … 7
    gamma : int in 1 … 10
        Draft characters per step.
    temperature : float in 0.2 … 2
        Applied to both models, as an engine applies it to both networks' logits.
    seed : int >= 0
    prompt : str
    length : int >= 1
        Characters to generate (not a control: it sets how long one update takes).
    c : int in 1 … 100
        Cost ratio: time of one target pass over time of one draft pass.
    seed_spread : bool
        Whether the tick box "mean over 6 seeds" starts ticked.

    Returns
    -------
    Explorer
        ``controls``: ``"draft_order"``, ``"target_order"``, ``"gamma"``, ``"temperature"``,
        ``"seed"``, ``"prompt"``, ``"c"``, ``"seed_spread"`` (the tick box). ``shown`` holds ``generation`` (the `Generation`),
        ``text_html``, ``measured_alpha``, ``mean_acceptance_rate``, ``tokens_per_target_call``,
        ``expected_tokens``, ``measured_speedup``, ``predicted_speedup``, ``alpha_by_draft_order``
        (dict order -> α over corpus contexts), ``seed_spread`` (a
        `specdec.text.repeated_runs.SeedSpread` while the tick box is ticked, else None), the other
        control values and ``readout``.

    Examples
    --------
    >>> text = "the cat sat on the mat and the rat sat on the cat " * 20
    >>> explorer = text_explorer(text, length=40)
    >>> len(explorer.shown["generation"].text)
    40
    """
    if corpus is not None and not isinstance(corpus, str):
        raise TypeError(f"corpus must be a str, got {type(corpus).__name__}")
    draft_order = validation.count(draft_order, "draft_order", *DRAFT_ORDER_RANGE)
    target_order = validation.count(target_order, "target_order", *TARGET_ORDER_RANGE)
    gamma = validation.count(gamma, "gamma", *GAMMA_RANGE)
    temperature = _number_in(temperature, "temperature", *TEMPERATURE_RANGE)
    seed = validation.count(seed, "seed")
    if not isinstance(prompt, str):
        raise TypeError(f"prompt must be a str, got {type(prompt).__name__}")
    length = validation.count(length, "length", minimum=1)
    c = validation.count(c, "c", *COST_RANGE)
    if not isinstance(seed_spread, (bool, np.bool_)):
        raise TypeError(f"seed_spread must be True or False, got {seed_spread!r}")
    progress = progress_display("Preparing the real-text explorer")
    if corpus is None:
        in_memory = getattr(corpus_module.stdlib_corpus, "cache_info", None)
        if in_memory is None or not in_memory().currsize:
            progress("reading the corpus (the standard library's docstrings; kept on disk afterwards)")
        corpus = corpus_module.stdlib_corpus()
    if len(corpus) < 2 * CONTEXT_COUNT:
        progress.done()
        raise ValueError(f"corpus must hold at least {2 * CONTEXT_COUNT} characters, got {len(corpus)}")

    controls = {
        "draft_order": widgets.IntSlider(value=draft_order, min=DRAFT_ORDER_RANGE[0], max=DRAFT_ORDER_RANGE[1],
                                         description="draft: n-gram order", style=LABEL_STYLE,
                                         continuous_update=False),
        "target_order": widgets.IntSlider(value=target_order, min=TARGET_ORDER_RANGE[0], max=TARGET_ORDER_RANGE[1],
                                          description="target: n-gram order", style=LABEL_STYLE,
                                          continuous_update=False),
        "gamma": widgets.IntSlider(value=gamma, min=GAMMA_RANGE[0], max=GAMMA_RANGE[1],
                                   description="draft characters per step γ", style=LABEL_STYLE,
                                   continuous_update=False),
        "temperature": widgets.FloatSlider(value=temperature, min=TEMPERATURE_RANGE[0], max=TEMPERATURE_RANGE[1],
                                           step=0.1, readout_format=".1f", description="temperature (both models)",
                                           style=LABEL_STYLE, continuous_update=False),
        "seed": widgets.BoundedIntText(value=seed, min=0, max=10**9, description="random seed",
                                       style=LABEL_STYLE, layout=widgets.Layout(width="12em")),
        "prompt": widgets.Text(value=prompt, description="prompt", style=LABEL_STYLE,
                               continuous_update=False, layout=widgets.Layout(width="24em")),
        "c": widgets.IntSlider(value=c, min=COST_RANGE[0], max=COST_RANGE[1],
                               description="cost ratio c (target time / draft time)", style=LABEL_STYLE,
                               layout=widgets.Layout(width="40em")),
        "seed_spread": widgets.Checkbox(value=seed_spread, description=f"mean over {SEED_COUNT} seeds",
                                        indent=False, layout=widgets.Layout(width="auto")),
    }
    picture = RealTextFigure()
    text_view = widgets.HTML()
    contexts = sample_contexts(corpus, CONTEXT_COUNT, TARGET_ORDER_RANGE[1])

    # The orders of the first picture now (the left panel shows draft orders 1 … 4), showing what is
    # being counted; other target orders when the slider first reaches them.
    for order in (*DRAFT_ORDERS, target_order):
        fitted_model(order, corpus, progress=progress)

    @functools.lru_cache(maxsize=32)
    def alphas_for(target_order: int, temperature: float) -> tuple[float, ...]:
        target = fitted_model(target_order, corpus).at_temperature(temperature)
        return tuple(
            mean_acceptance_rate(target, fitted_model(order, corpus).at_temperature(temperature), contexts)
            for order in DRAFT_ORDERS
        )

    @functools.lru_cache(maxsize=32)
    def run(draft_order, target_order, gamma, temperature, seed, prompt) -> Generation:
        target = fitted_model(target_order, corpus).at_temperature(temperature)
        draft = fitted_model(draft_order, corpus).at_temperature(temperature)
        return speculative_generate(target, draft, prompt, length, gamma, np.random.default_rng(seed))

    @functools.lru_cache(maxsize=64)
    def spread(draft_order, target_order, gamma, temperature, prompt):
        target = fitted_model(target_order, corpus).at_temperature(temperature)
        draft = fitted_model(draft_order, corpus).at_temperature(temperature)
        return runs_over_seeds(target, draft, prompt, length, gamma, SEED_COUNT)

    def redraw() -> dict:
        values = {name: control.value for name, control in controls.items()}
        temperature_now = round(float(values["temperature"]), 2)
        generation = run(values["draft_order"], values["target_order"], values["gamma"], temperature_now,
                         values["seed"], values["prompt"])
        alphas = alphas_for(values["target_order"], temperature_now)
        seeds = (spread(values["draft_order"], values["target_order"], values["gamma"], temperature_now,
                        values["prompt"]) if values["seed_spread"] else None)
        g, cost = values["gamma"], values["c"]
        mean_alpha = generation.mean_acceptance_rate
        shown = {
            **values,
            "generation": generation,
            "measured_alpha": generation.measured_alpha,
            "mean_acceptance_rate": mean_alpha,
            "tokens_per_target_call": generation.tokens_per_target_call,
            "expected_tokens": expected_tokens(mean_alpha, g),
            "measured_speedup": generation.speedup_from_calls(cost),
            "predicted_speedup": speedup(mean_alpha, g, cost),
            "alpha_by_draft_order": dict(zip(DRAFT_ORDERS, alphas)),
            "seed_spread": seeds,  # None while the tick box is off
            "length": length,
        }
        picture.update(alphas, values["draft_order"], values["target_order"], generation.measured_alpha,
                       (shown["tokens_per_target_call"], shown["measured_speedup"]),
                       (shown["expected_tokens"], shown["predicted_speedup"]), g, cost,
                       spread=None if seeds is None else (seeds.low, seeds.mean, seeds.high))
        shown["text_html"] = text_view.value = coloured_text_html(generation)
        shown["readout"] = _readout(shown)
        shown["key_readout"] = (
            f"<div>characters per target call: <b>{shown['tokens_per_target_call']:.2f}</b></div>"
            f"<div>speedup at c = {cost}: <b>{shown['measured_speedup']:.2f}×</b> "
            f"(theory {shown['predicted_speedup']:.2f}×)</div>"
            f"<div>α measured: <b>{shown['measured_alpha']:.3f}</b></div>")
        return shown

    explorer = Explorer(
        "Speculative decoding on real text",
        controls,
        [[controls["draft_order"], controls["target_order"], controls["gamma"]],
         [controls["temperature"], controls["seed"], controls["prompt"]],
         [controls["c"], controls["seed_spread"]]],
        picture,
        redraw,
        compact_rows=([[controls["c"]]],
                      [[controls["draft_order"], controls["target_order"], controls["gamma"]],
                       [controls["temperature"], controls["seed"], controls["prompt"]], [controls["seed_spread"]]]),
    )
    header, *rows, body = explorer.children
    # Compact layout (presentation mode): the text under the picture, which has to fit the window's height.
    explorer.children = (header, body, text_view) if explorer.compact else (header, *rows, text_view, body)
    explorer.observe_controls()
    progress.done()
    return explorer


def progress_display(title: str):
    """A line in the notebook saying what is being done, shown only once something is reported.

    Returns a function ``report(message)`` with a method ``report.done()`` that empties the line (an
    empty output stays behind, in HTML and in plain text). Outside a notebook (a script, a test)
    nothing is shown.
    """
    handle = {}

    def report(message: str) -> None:
        text = f"{title}: {message} …"
        bundle = {"text/plain": text, "text/html": f"<p style='color:#595959'><i>{html.escape(text)}</i></p>"}
        if "display" in handle:
            handle["display"].update(bundle, raw=True)
            return
        if _notebook_shell() is not None:
            from IPython.display import display

            handle["display"] = display(bundle, raw=True, display_id=True)

    def done() -> None:
        if "display" in handle:
            handle.pop("display").update({"text/plain": "", "text/html": ""}, raw=True)

    report.done = done
    return report


def _notebook_shell():
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return shell if shell is not None and hasattr(shell, "kernel") else None


def _readout(shown: dict) -> str:
    generation: Generation = shown["generation"]
    counts = {origin: generation.origins.count(origin) for origin in ("accepted", "resampled", "bonus")}
    alphas = ", ".join(f"{order}: {alpha:.2f}" for order, alpha in shown["alpha_by_draft_order"].items())
    passed, tested = sum(generation.visited_accepted), len(generation.visited_accepted)
    cut = passed - counts["accepted"]  # draft characters that passed after the text reached its length
    cut_text = (f"; {cut} of them came after character {len(generation.text)}, where the text stops, so "
                f"{counts['accepted']} are in the text" if cut else "")
    mean_alpha = shown["mean_acceptance_rate"]
    seeds: SeedSpread | None = shown["seed_spread"]
    g = shown["gamma"]
    return (
        f"<p>draft: {shown['draft_order']}-gram, target: {shown['target_order']}-gram, γ = {g}, "
        f"temperature {shown['temperature']:.1f}<br>"
        f"α over corpus contexts, by draft order: {alphas}</p>"
        f"<p>{len(generation.text)} characters in <b>{generation.target_calls}</b> target calls "
        f"and {generation.draft_calls} draft calls<br>"
        f"characters of the text by origin: accepted {counts['accepted']}, resampled {counts['resampled']}, "
        f"bonus {counts['bonus']}</p>"
        f"<p>α measured in this run: <b>{shown['measured_alpha']:.3f}</b>, the share of tested draft "
        f"characters that passed: {passed} of {tested}{cut_text}<br>"
        f"α averaged over the contexts the run visited, ᾱ = <b>{mean_alpha:.3f}</b>: what the measured α "
        f"is expected to be; the theory below uses ᾱ</p>"
        f"<p>characters per target call: <b>{shown['tokens_per_target_call']:.2f}</b> in this run; "
        f"expected_tokens(ᾱ = {mean_alpha:.3f}, γ = {g}) = {shown['expected_tokens']:.2f}<br>"
        f"{_noise_text(seeds, shown['length'])}</p>"
        f"<p>speedup at c = {shown['c']}: <b>{shown['measured_speedup']:.2f}×</b> from this run's call "
        f"counts; speedup(ᾱ = {mean_alpha:.3f}, γ = {g}, c = {shown['c']}) = {shown['predicted_speedup']:.2f}×</p>"
    )


def _noise_text(seeds, length: int) -> str:
    noisy = f"One run of {length} characters is noisy"
    if seeds is None:
        return (f"{noisy}: before reading a trend as γ grows, tick “mean over {SEED_COUNT} seeds” "
                "and compare the means.")
    count = len(seeds.characters_per_call)
    return (f"over {count} seeds (0 … {count - 1}): mean <b>{seeds.mean:.2f}</b>, from {seeds.low:.2f} to "
            f"{seeds.high:.2f}. {noisy}: compare settings by the mean of several seeds, not by one run.")


def _span(char: str, origin: str) -> str:
    colour = ORIGIN_COLOURS[origin]
    red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    style = f"background-color:rgba({red},{green},{blue},0.22);border-bottom:2px solid {colour};{ORIGIN_STYLES[origin]}"
    shown = "↵\n" if char == "\n" else _escape(char)
    return f"<span title='{origin}' style='{style}'>{shown}</span>"


def _escape(text: str) -> str:
    return html.escape(text, quote=True)


def _number_in(value, name: str, low: float, high: float) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in {low} … {high}, got {value!r} of type {type(value).__name__}")
    value = float(value)
    if not low <= value <= high:
        raise ValueError(f"{name} must be in {low} … {high}, got {value!r}")
    return value
