"""The verify-step explorer: one step of speculative decoding, revealed one random draw at a time.

The explorer never decides anything itself. It has `specdec.rows.seeded_step` make and record the
step from the seed (the recipe is written out there), then only chooses how many of the recorded
draws to show (`specdec.narrate.frame_at`). So the tokens it shows at the end are exactly what
`speculative_step` returns for the same seed. What is simplified: the rows are random Dirichlet
draws rather than the outputs of two language models (see `specdec.rows`).
"""

from __future__ import annotations

from html import escape

import ipywidgets as widgets
import numpy as np

from .. import palette, validation
from ..narrate import draw_total, frame_at, narrate_trace
from ..plots.verify_step import VerifyStepFigure
from ..rows import seeded_step, token_labels
from ..theory import acceptance_rates, expected_tokens_for_rates
from .explorer import LABEL_STYLE, Explorer

#: Bounds of the sliders.
MAX_GAMMA, MIN_VOCAB, MAX_VOCAB, MAX_SEED = 8, 2, 64, 999

#: The choices of the "rows" menu: value -> (label, draft tokens, seed). None means random rows.
ROW_SOURCES = {
    "random": ("random rows from the seed", None, None),
    "example A B": ("the worked example, drafts A B (seed 0)", (0, 1), 0),
    "example D A": ("the worked example, drafts D A (seed 0)", (3, 0), 0),
    "example A A": ("the worked example, drafts A A (seed 3)", (0, 0), 3),
}

#: Milliseconds between two draws when the Play button runs.
PLAY_INTERVAL = 1500


def verify_step_explorer(gamma: int = 4, vocab: int = 8, seed: int = 7, closeness: float = 0.5,
                         rows: str = "random", draws: int = 0) -> Explorer:
    """An explorer of one verify step: Step, Back, Reset and Play reveal its draws one at a time.

    Parameters
    ----------
    gamma : int in 0 … 8
        Number of draft tokens γ (random rows).
    vocab : int in 2 … 64
        Vocabulary size V (random rows).
    seed : int in 0 … 999
        Seed of the one generator that makes the rows, the draft tokens and the step's draws.
    closeness : float in [0, 1]
        How close the draft rows are to the target rows (see `specdec.rows.random_rows`).
    rows : str
        "random", or one of the worked example's steps: "example A B", "example D A", "example A A"
        (which also set the seed to 0, 0 and 3, the seeds of the worked examples).
    draws : int
        How many draws to show at first (0 … the step's number of draws).

    Returns
    -------
    Explorer
        ``controls``: "rows", "gamma", "vocab", "seed", "closeness", the buttons "step", "back",
        "reset", "play" (an ipywidgets.Play whose value is the number of draws shown) and "draws"
        (a slider that mirrors "play", to drag through the draws).
        ``shown``: the step's rows, draft tokens and trace, the frame on screen, the tokens
        emitted so far and the log lines.

    Examples
    --------
    >>> explorer = verify_step_explorer(rows="example A B")
    >>> explorer.controls["step"].click(); explorer.controls["step"].click()
    >>> explorer.shown["tokens"], explorer.shown["total"]
    ([0, 1], 3)
    >>> explorer.controls["step"].click()
    >>> explorer.shown["tokens"], explorer.shown["origins"]
    ([0, 1, 0], ['accepted', 'accepted', 'bonus'])
    """
    gamma = validation.count(gamma, "gamma", 0, MAX_GAMMA)
    vocab = validation.count(vocab, "vocab", MIN_VOCAB, MAX_VOCAB)
    seed = validation.count(seed, "seed", 0, MAX_SEED)
    closeness = validation.probability(closeness, "closeness")
    if rows not in ROW_SOURCES:
        raise ValueError(f"rows must be one of {', '.join(map(repr, ROW_SOURCES))}, got {rows!r}")
    draws = validation.count(draws, "draws")

    controls = {
        "rows": widgets.Dropdown(options=[(label, key) for key, (label, _, _) in ROW_SOURCES.items()],
                                 value="random", description="rows and draft tokens", style=LABEL_STYLE,
                                 layout=widgets.Layout(width="32em")),
        "gamma": widgets.IntSlider(value=gamma, min=0, max=MAX_GAMMA, description="draft tokens γ",
                                   style=LABEL_STYLE),
        "vocab": widgets.IntSlider(value=vocab, min=MIN_VOCAB, max=MAX_VOCAB, description="vocabulary size V",
                                   style=LABEL_STYLE),
        "seed": widgets.IntSlider(value=seed, min=0, max=MAX_SEED, description="seed", style=LABEL_STYLE),
        "closeness": widgets.FloatSlider(value=closeness, min=0, max=1, step=0.05,
                                         description="draft closeness to target", style=LABEL_STYLE),
        "step": widgets.Button(description="Step", icon="step-forward", tooltip="reveal the next draw"),
        "back": widgets.Button(description="Back", icon="step-backward", tooltip="hide the last draw"),
        "reset": widgets.Button(description="Reset", icon="undo", tooltip="hide every draw"),
        "play": widgets.Play(value=0, min=0, max=1, interval=PLAY_INTERVAL, show_repeat=False,
                             description="play the draws", tooltip="reveal the draws one by one"),
    }
    play = controls["play"]
    draw_slider = widgets.IntSlider(min=0, max=1, description="draws shown", style=LABEL_STYLE,
                                    layout=widgets.Layout(width="18em"))
    controls["draws"] = draw_slider
    # The slider mirrors the Play widget, so a learner can also drag through the draws. The two are
    # kept in step here, in Python, never by a link in the browser: lowering a widget's max there
    # clamps its value, and a link would send that clamped value back as if the learner had
    # stepped, opening a new step with draws already shown. `show_draws` moves both widgets in an
    # order that never clamps, each in one message.
    picture = VerifyStepFigure(max_gamma=MAX_GAMMA)
    step = {}  # the step on screen: "trace" and "labels"
    learner_settings = []  # (γ, V, seed) kept while a worked example fixes the sliders

    def apply_rows_choice(key: str) -> None:
        """Set the sliders for a choice of rows: the worked examples fix γ, V and the seed; random restores them."""
        _, example_drafts, example_seed = ROW_SOURCES[key]
        example = example_drafts is not None
        sliders = [controls[name] for name in ("gamma", "vocab", "seed")]
        if example and not learner_settings:
            learner_settings.append([slider.value for slider in sliders])
        if example:
            for slider, value in zip(sliders, (len(example_drafts), 4, example_seed)):
                slider.value = value
        elif learner_settings:
            for slider, value in zip(sliders, learner_settings.pop()):
                slider.value = value
        for name in ("gamma", "vocab", "closeness"):
            controls[name].disabled = example

    def make_step() -> None:
        """A new step from the current settings, with none of its draws shown yet."""
        example_drafts = ROW_SOURCES[controls["rows"].value][1]
        step["trace"] = seeded_step(controls["seed"].value, controls["gamma"].value, controls["vocab"].value,
                                    controls["closeness"].value, example_drafts)
        step["labels"] = token_labels(step["trace"].target_probs.shape[1])
        play.playing = False
        show_draws(play, 0, draw_total(step["trace"]))

    def redraw() -> dict:
        trace, labels = step["trace"], step["labels"]
        frame = frame_at(trace, play.value)
        show_draws(draw_slider, frame.draws, frame.total)
        picture.update(trace, frame, labels)
        controls["step"].disabled = frame.finished
        controls["back"].disabled = frame.draws == 0
        lines = narrate_trace(trace, labels)
        rates = acceptance_rates(trace.target_probs, trace.draft_probs) if trace.gamma else np.empty(0)
        shown = {
            "rows": controls["rows"].value, "gamma": trace.gamma, "vocab": len(labels),
            "seed": controls["seed"].value, "closeness": controls["closeness"].value,
            "target_probs": trace.target_probs, "draft_probs": trace.draft_probs,
            "draft_tokens": list(trace.draft_tokens), "trace": trace, "frame": frame,
            "draws": frame.draws, "total": frame.total, "tokens": frame.tokens, "origins": frame.origins,
            "log": lines[: frame.draws] + (lines[-1:] if frame.finished else []),
            "acceptance_rates": rates, "expected_tokens": expected_tokens_for_rates(rates),
        }
        shown["readout"] = _readout(shown, labels)
        shown["key_readout"] = _key_readout(shown, labels)
        return shown

    controls["rows"].value = rows
    apply_rows_choice(rows)
    make_step()
    show_draws(play, min(draws, play.max), play.max)
    explorer = Explorer(
        "One verify step, draw by draw",
        controls,
        [[controls["rows"], controls["seed"]], [controls["gamma"], controls["vocab"], controls["closeness"]],
         [controls["step"], controls["back"], controls["reset"], play, draw_slider]],
        picture,
        redraw,
    )

    def settings_changed(_change) -> None:
        if explorer.batching:  # a rows choice is moving the sliders: it makes the step itself
            return
        with explorer.batch():
            make_step()

    def rows_changed(change) -> None:
        with explorer.batch():
            apply_rows_choice(change["new"])
            make_step()

    def move(delta: int) -> None:
        play.value = min(max(play.value + delta, 0), play.max)

    def reset(_button) -> None:
        play.playing = False
        play.value = 0

    def slider_dragged(change) -> None:
        if change["new"] != play.value and 0 <= change["new"] <= play.max:
            play.value = change["new"]

    for name in ("gamma", "vocab", "seed", "closeness"):
        controls[name].observe(settings_changed, names="value")
    controls["rows"].observe(rows_changed, names="value")
    explorer.observe_controls("play")
    draw_slider.observe(slider_dragged, names="value")
    controls["step"].on_click(lambda _button: move(+1))
    controls["back"].on_click(lambda _button: move(-1))
    controls["reset"].on_click(reset)
    return explorer


def show_draws(counter, draws: int, total: int) -> None:
    """Set a draw counter (the Play widget or its slider) to `draws` of `total` in one message.

    The value moves before a lowered max and after a raised one, so that it never exceeds the max
    on the way: a front end that received a max below the current value would clamp the value and
    report the clamped number back as a change of its own.
    """
    with counter.hold_sync():
        if total < counter.max:
            counter.value = min(draws, total)
            counter.max = total
        else:
            counter.max = total
        counter.value = draws


def draw_count(frame) -> str:
    """"Draw k" while the step runs; its total only once the step is over, so it does not tell the outcome early.

    >>> import numpy as np
    >>> from specdec import trace_step
    >>> from specdec.narrate import frame_at
    >>> from specdec.rows import spec_example
    >>> trace = trace_step(*spec_example(), np.random.default_rng(0))
    >>> draw_count(frame_at(trace, 0)), draw_count(frame_at(trace, 3))
    ('Draw 0', 'Draw 3 of 3: the step is over')
    """
    if frame.finished:
        return f"Draw {frame.draws} of {frame.total}: the step is over"
    return f"Draw {frame.draws}"


def _token_chip(label: str, origin: str) -> str:
    mark = {"accepted": "✓", "resampled": "↺", "bonus": "+"}[origin]
    # Black letters: they contrast more than white with every origin's colour, the pale bonus most of all.
    return (f"<span title='{origin}' style='background:{palette.ORIGIN_COLOURS[origin]};color:{palette.HIGHLIGHT};"
            f"padding:0 0.35em;margin-right:0.2em;border-radius:3px;font-weight:bold'>{escape(label)} {mark}</span>")


def _latest(shown: dict) -> str:
    if shown["frame"].draws == 0:
        return "Nothing drawn yet: press Step (or ▶) to reveal the first draw."
    return shown["log"][shown["frame"].draws - 1]


def _output_chips(shown: dict, labels: list[str]) -> str:
    frame = shown["frame"]
    return "".join(_token_chip(labels[token], origin) for token, origin in zip(frame.tokens, frame.origins))


def _key_readout(shown: dict, labels: list[str]) -> str:
    """The lines the compact layout shows beside the picture: the draw count, the latest draw, the output."""
    return (f"<div><b>{draw_count(shown['frame'])}</b></div>"
            f"<div>Latest: {escape(_latest(shown))}</div>"
            f"<div>Output so far: {_output_chips(shown, labels) or '(nothing yet)'}</div>")


def _readout(shown: dict, labels: list[str]) -> str:
    frame = shown["frame"]
    settings = (f"the worked example, seed {shown['seed']}" if shown["rows"] != "random" else
                f"γ = {shown['gamma']}, V = {shown['vocab']}, seed {shown['seed']}, closeness {shown['closeness']:.2f}")
    drafts = " ".join(labels[token] for token in shown["draft_tokens"]) or "none (γ = 0)"
    rates = ", ".join(f"{rate:.2f}" for rate in shown["acceptance_rates"]) or "none"
    latest = _latest(shown)
    output = _output_chips(shown, labels)
    log = "".join(f"<li>{escape(line)}</li>" for line in shown["log"])
    return (
        f"<p><b>{draw_count(frame)}</b> <span style='color:{palette.NEUTRAL}'>({escape(settings)})</span></p>"
        f"<p>Draft proposed: <b>{escape(drafts)}</b><br>"
        f"α of each position: {rates}; expected tokens per step: {shown['expected_tokens']:.2f}</p>"
        f"<p>Latest: {escape(latest)}</p>"
        f"<p>Output so far: {output or '(nothing yet)'}</p>"
        f"<p style='font-size:0.85em;color:{palette.NEUTRAL}'>✓ accepted draft token, ↺ resampled from the residual, "
        "+ bonus from p<sub>γ</sub></p>"
        f"<ol start='1' style='font-family:monospace;font-size:0.8em;padding-left:1.5em'>{log}</ol>"
    )
