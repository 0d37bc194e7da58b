"""The verify-step explorer: one step of speculative decoding, revealed one random draw at a time.

The explorer never decides anything itself. It builds the step's rows from the seed, has the core
record the step with `trace_step`, and then only chooses how many of the recorded draws to show.
So the tokens it shows at the end are exactly what `speculative_step` returns for the same seed.

How the seed becomes a step (the notebook and the tests repeat this with the core alone):

random rows (the default)::

    rng = numpy.random.default_rng(seed)
    target_probs, draft_probs = random_rows(gamma, vocab, closeness, rng)
    draft_tokens = sample_draft(draft_probs, rng)
    trace = trace_step(target_probs, draft_probs, draft_tokens, rng)

SPEC's example (γ = 2, V = 4, the draft tokens fixed by the chosen case)::

    target_probs, draft_probs, _ = spec_example()
    trace = trace_step(target_probs, draft_probs, case_tokens, numpy.random.default_rng(seed))

One generator serves the whole step, so the rows, the draft tokens and the verify draws all follow
from the seed. What is simplified: the rows are random Dirichlet draws rather than the outputs of two
language models (see `specdec.rows`).
"""

from __future__ import annotations

from html import escape

import ipywidgets as widgets
import numpy as np

from .. import palette, validation
from ..core import sample_draft, trace_step
from ..narrate import narrate_trace
from ..plots.verify_step import VerifyStepFigure, draw_count, frame_at
from ..rows import random_rows, spec_example, token_labels
from ..theory import acceptance_rates, expected_tokens_for_rates
from .explorer import Explorer

#: Bounds of the sliders.
MAX_GAMMA, MIN_VOCAB, MAX_VOCAB, MAX_SEED = 8, 2, 64, 999

#: The choices of the "rows" menu: value -> (label, draft tokens, seed). None means random rows.
ROW_SOURCES = {
    "random": ("random rows from the seed", None, None),
    "SPEC A B": ("SPEC's example, drafts A B (seed 0)", (0, 1), 0),
    "SPEC D A": ("SPEC's example, drafts D A (seed 0)", (3, 0), 0),
    "SPEC A A": ("SPEC's example, drafts A A (seed 3)", (0, 0), 3),
}

#: Milliseconds between two draws when the Play button runs.
PLAY_INTERVAL = 1500

_LABEL_STYLE = {"description_width": "initial"}


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
        "random", or one of SPEC's example steps: "SPEC A B", "SPEC D A", "SPEC A A" (which also
        set the seed to 0, 0 and 3, the seeds SPEC uses).
    draws : int
        How many draws to show at first (0 … the step's number of draws).

    Returns
    -------
    Explorer
        ``controls``: "rows", "gamma", "vocab", "seed", "closeness", the buttons "step", "back",
        "reset", and "play" (an ipywidgets.Play whose value is the number of draws shown).
        ``shown``: the step's rows, draft tokens and trace, the frame on screen, the tokens
        emitted so far and the log lines.

    Examples
    --------
    >>> explorer = verify_step_explorer(rows="SPEC A B")
    >>> explorer.controls["step"].click(); explorer.controls["step"].click()
    >>> explorer.shown["tokens"], explorer.shown["total"]
    ([0, 1], 3)
    >>> explorer.controls["step"].click()
    >>> explorer.shown["tokens"], explorer.shown["origins"]
    ([0, 1, 0], ['accepted', 'accepted', 'bonus'])
    """
    return _VerifyStepExplorer(gamma, vocab, seed, closeness, rows, draws).explorer


def step_for(rows: str, gamma: int, vocab: int, seed: int, closeness: float):
    """The traced step the explorer shows for these settings, built from the seed as documented above.

    Returns
    -------
    (StepTrace, list of str)
        The trace and the token labels.

    Examples
    --------
    >>> trace, labels = step_for("SPEC D A", 2, 4, 0, 0.5)
    >>> trace.tokens, labels
    ([0], ['A', 'B', 'C', 'D'])
    """
    _, case_tokens, _ = ROW_SOURCES[rows]
    if case_tokens is not None:
        target_probs, draft_probs, _ = spec_example()
        trace = trace_step(target_probs, draft_probs, list(case_tokens), np.random.default_rng(seed))
    else:
        rng = np.random.default_rng(seed)
        target_probs, draft_probs = random_rows(gamma, vocab, closeness, rng)
        draft_tokens = sample_draft(draft_probs, rng)
        trace = trace_step(target_probs, draft_probs, draft_tokens, rng)
    return trace, token_labels(trace.target_probs.shape[1])


class _VerifyStepExplorer:
    """Widgets, figure and the logic that ties them; `explorer` is what the caller gets."""

    def __init__(self, gamma, vocab, seed, closeness, rows, draws):
        gamma = validation.count(gamma, "gamma", 0, MAX_GAMMA)
        vocab = validation.count(vocab, "vocab", MIN_VOCAB, MAX_VOCAB)
        seed = validation.count(seed, "seed", 0, MAX_SEED)
        closeness = validation.probability(closeness, "closeness")
        if rows not in ROW_SOURCES:
            raise ValueError(f"rows must be one of {', '.join(map(repr, ROW_SOURCES))}, got {rows!r}")
        draws = validation.count(draws, "draws")
        self._random_settings = None

        self.rows = widgets.Dropdown(options=[(label, key) for key, (label, _, _) in ROW_SOURCES.items()],
                                     value="random", description="rows and draft tokens", style=_LABEL_STYLE,
                                     layout=widgets.Layout(width="32em"))
        self.gamma = widgets.IntSlider(value=gamma, min=0, max=MAX_GAMMA, description="draft tokens γ",
                                       style=_LABEL_STYLE)
        self.vocab = widgets.IntSlider(value=vocab, min=MIN_VOCAB, max=MAX_VOCAB, description="vocabulary size V",
                                       style=_LABEL_STYLE)
        self.seed = widgets.IntSlider(value=seed, min=0, max=MAX_SEED, description="seed", style=_LABEL_STYLE)
        self.closeness = widgets.FloatSlider(value=closeness, min=0, max=1, step=0.05,
                                             description="draft closeness to target", style=_LABEL_STYLE)
        self.step = widgets.Button(description="Step", icon="step-forward", tooltip="reveal the next draw")
        self.back = widgets.Button(description="Back", icon="step-backward", tooltip="hide the last draw")
        self.reset = widgets.Button(description="Reset", icon="undo", tooltip="hide every draw")
        self.play = widgets.Play(value=0, min=0, max=1, interval=PLAY_INTERVAL, show_repeat=False,
                                 description="play the draws", tooltip="reveal the draws one by one")
        self.draw_slider = widgets.IntSlider(min=0, max=1, description="draws shown", style=_LABEL_STYLE,
                                             layout=widgets.Layout(width="18em"))
        # The slider only mirrors the Play widget in the browser, so a learner can also drag through
        # the draws; Python reads the Play widget's value.
        widgets.jslink((self.play, "value"), (self.draw_slider, "value"))
        widgets.jslink((self.play, "max"), (self.draw_slider, "max"))

        controls = {"rows": self.rows, "gamma": self.gamma, "vocab": self.vocab, "seed": self.seed,
                    "closeness": self.closeness, "step": self.step, "back": self.back, "reset": self.reset,
                    "play": self.play}
        self.picture = VerifyStepFigure(max_gamma=MAX_GAMMA)
        self.rows.value = rows
        self._apply_rows_choice(rows)
        self._make_step()
        self.play.max = draw_count(self.trace)
        self.play.value = min(draws, self.play.max)
        self.explorer = Explorer(
            "One verify step, draw by draw",
            controls,
            [[self.rows, self.seed], [self.gamma, self.vocab, self.closeness],
             [self.step, self.back, self.reset, self.play, self.draw_slider]],
            self.picture.figure,
            self.view,
            render=self.picture.png,
        )
        for name in ("gamma", "vocab", "seed", "closeness"):
            controls[name].observe(self._settings_changed, names="value")
        self.rows.observe(self._rows_changed, names="value")
        self.play.observe(self.explorer.refresh, names="value")
        self.step.on_click(lambda _button: self._move(+1))
        self.back.on_click(lambda _button: self._move(-1))
        self.reset.on_click(lambda _button: self._move(None))

    # --- reacting to the controls ----------------------------------------------------------------

    def _move(self, delta: int | None) -> None:
        if delta is None:
            self.play.playing = False
            self.play.value = 0
        else:
            self.play.value = min(max(self.play.value + delta, 0), self.play.max)

    def _settings_changed(self, _change=None) -> None:
        if self.explorer.batching:
            return
        with self.explorer.batch():
            self._restart()

    def _rows_changed(self, change) -> None:
        with self.explorer.batch():
            self._apply_rows_choice(change["new"])
            self._restart()

    def _apply_rows_choice(self, key: str) -> None:
        """Set the sliders for a choice of rows: SPEC's cases fix γ, V and the seed; random restores them."""
        _, case_tokens, case_seed = ROW_SOURCES[key]
        spec = case_tokens is not None
        if spec and self._random_settings is None:
            self._random_settings = (self.gamma.value, self.vocab.value, self.seed.value)
        if spec:
            self.gamma.value, self.vocab.value, self.seed.value = len(case_tokens), 4, case_seed
        elif self._random_settings is not None:
            self.gamma.value, self.vocab.value, self.seed.value = self._random_settings
            self._random_settings = None
        for slider in (self.gamma, self.vocab, self.closeness):
            slider.disabled = spec

    def _restart(self) -> None:
        """A new step from the current settings, with none of its draws shown yet."""
        self._make_step()
        self.play.playing = False
        self.play.value = 0
        self.play.max = draw_count(self.trace)

    def _make_step(self) -> None:
        self.trace, self.labels = step_for(self.rows.value, self.gamma.value, self.vocab.value,
                                           self.seed.value, self.closeness.value)

    # --- drawing -------------------------------------------------------------------------------

    def view(self) -> dict:
        """Update the figure, the buttons and the readout; return what is shown."""
        trace, labels = self.trace, self.labels
        frame = frame_at(trace, self.play.value)
        # The browser keeps the slider in step with Play by itself; this keeps the saved view right.
        self.draw_slider.max, self.draw_slider.value = frame.total, frame.draws
        self.picture.draw(trace, frame, labels)
        self.step.disabled = frame.finished
        self.back.disabled = frame.draws == 0
        lines = narrate_trace(trace, labels)
        log = lines[: frame.draws] + (lines[-1:] if frame.finished else [])
        rates = acceptance_rates(trace.target_probs, trace.draft_probs) if trace.gamma else np.empty(0)
        shown = {
            "rows": self.rows.value,
            "gamma": trace.gamma,
            "vocab": len(labels),
            "seed": self.seed.value,
            "closeness": self.closeness.value,
            "target_probs": trace.target_probs,
            "draft_probs": trace.draft_probs,
            "draft_tokens": list(trace.draft_tokens),
            "trace": trace,
            "frame": frame,
            "draws": frame.draws,
            "total": frame.total,
            "tokens": frame.tokens,
            "origins": frame.origins,
            "log": log,
            "acceptance_rates": rates,
            "expected_tokens": expected_tokens_for_rates(rates),
        }
        shown["readout"] = _readout(shown, labels)
        return shown


def _token_chip(label: str, origin: str) -> str:
    mark = {"accepted": "✓", "resampled": "↺", "bonus": "+"}[origin]
    return (f"<span title='{origin}' style='background:{palette.ORIGIN_COLOURS[origin]};color:white;"
            f"padding:0 0.35em;margin-right:0.2em;border-radius:3px;font-weight:bold'>{escape(label)} {mark}</span>")


def _readout(shown: dict, labels: list[str]) -> str:
    frame = shown["frame"]
    settings = (f"SPEC's example, seed {shown['seed']}" if shown["rows"] != "random" else
                f"γ = {shown['gamma']}, V = {shown['vocab']}, seed {shown['seed']}, closeness {shown['closeness']:.2f}")
    drafts = " ".join(labels[token] for token in shown["draft_tokens"]) or "none (γ = 0)"
    rates = ", ".join(f"{rate:.2f}" for rate in shown["acceptance_rates"]) or "none"
    if frame.draws == 0:
        latest = "Nothing drawn yet: press Step (or ▶) to reveal the first draw."
    else:
        latest = shown["log"][frame.draws - 1]
    output = "".join(_token_chip(labels[token], origin) for token, origin in zip(frame.tokens, frame.origins))
    log = "".join(f"<li>{escape(line)}</li>" for line in shown["log"])
    return (
        f"<p><b>Draw {frame.draws} of {frame.total}</b> <span style='color:{palette.NEUTRAL}'>({escape(settings)})</span></p>"
        f"<p>Draft proposed: <b>{escape(drafts)}</b><br>"
        f"α of each position: {rates}; expected tokens per step: {shown['expected_tokens']:.2f}</p>"
        f"<p>Latest: {escape(latest)}</p>"
        f"<p>Output so far: {output or '(nothing yet)'}</p>"
        f"<p style='font-size:0.85em;color:{palette.NEUTRAL}'>✓ accepted draft token, ↺ resampled from the residual, "
        "+ bonus from p<sub>γ</sub></p>"
        f"<ol start='1' style='font-family:monospace;font-size:0.8em;padding-left:1.5em'>{log}</ol>"
    )
