"""The verify-step explorer, driven headless: after the last draw it shows what `speculative_step` returns; its figure."""

import asyncio
import random

import ipywidgets as widgets
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specdec import sample_draft, speculative_step, trace_step
from specdec.explore import verify_step
from specdec.explore.frame import Explorer, presentation
from specdec.explore.verify_step import PLAY, STOP, VerifyStepExplorer, VerifyStepFigure
from specdec.narrate import draw_total, frame_at, narrate_trace, random_rows, spec_example, subscript, token_labels

from .explorer_driving import assert_looks_like_a_full_draw, assert_picture_is_a_full_render

EXAMPLE_CASES = {"example A B": ([0, 1], 0, [0, 1, 0]), "example D A": ([3, 0], 0, [0]),
                 "example A A": ([0, 0], 3, [0, 0, 3])}


def core_step(gamma, vocab, seed, closeness):
    """The step for these settings, made with the core alone, as the explorer documents it."""
    rng = np.random.default_rng(seed)
    target_probs, draft_probs = random_rows(gamma, vocab, closeness, rng)
    draft_tokens = sample_draft(draft_probs, rng)
    state = rng.bit_generator.state
    output = speculative_step(target_probs, draft_probs, draft_tokens, rng)
    rng.bit_generator.state = state
    trace = trace_step(target_probs, draft_probs, draft_tokens, rng)
    return target_probs, draft_probs, draft_tokens, output, trace


def expected_step(explorer):
    controls = explorer.controls
    rows = controls["rows"].value
    if rows == "random":
        return core_step(controls["gamma"].value, controls["vocab"].value, controls["seed"].value,
                         controls["closeness"].value)
    target_probs, draft_probs, _ = spec_example()
    draft_tokens = EXAMPLE_CASES[rows][0]
    seed = controls["seed"].value
    output = speculative_step(target_probs, draft_probs, draft_tokens, np.random.default_rng(seed))
    trace = trace_step(target_probs, draft_probs, draft_tokens, np.random.default_rng(seed))
    return target_probs, draft_probs, draft_tokens, output, trace


def assert_matches_core(explorer):
    """What is on screen now agrees with the core's step, up to the draws revealed so far."""
    target_probs, draft_probs, draft_tokens, output, trace = expected_step(explorer)
    shown = explorer.shown
    draws = explorer.controls["draws"].value
    np.testing.assert_array_equal(shown["target_probs"], target_probs)
    np.testing.assert_array_equal(shown["draft_probs"], np.asarray(draft_probs).reshape(-1, target_probs.shape[1]))
    assert shown["draft_tokens"] == list(draft_tokens)
    assert shown["total"] == len(output)  # every draw emits one token
    assert shown["draws"] == draws
    assert shown["tokens"] == output[:draws]
    assert shown["origins"] == trace.origins[:draws]
    lines = narrate_trace(trace)
    assert shown["log"] == lines[:draws] + (lines[-1:] if draws == len(output) else [])
    first_line = shown["readout"].plain()[0]
    if draws == len(output):
        assert first_line == f"Draw {draws} of {len(output)}: the step is over"
    else:  # the total would tell the outcome before the learner has stepped
        assert first_line == f"Draw {draws}" and f"<b>Draw {draws}</b>" in explorer.readout.value
    assert explorer.controls["draws"].value == draws and explorer.controls["draws"].max == len(output)
    assert explorer.controls["step"].disabled == (draws == len(output))
    assert explorer.controls["back"].disabled == (draws == 0)


def run_to_the_end(explorer):
    clicks = 0
    while not explorer.controls["step"].disabled:
        explorer.controls["step"].click()
        clicks += 1
        assert_matches_core(explorer)
    return clicks


def test_default_step_runs_to_speculative_steps_output():
    explorer = VerifyStepExplorer()
    assert isinstance(explorer, Explorer)
    assert explorer.shown["draws"] == 0 and explorer.shown["tokens"] == []
    assert_matches_core(explorer)
    clicks = run_to_the_end(explorer)
    *_, output, _ = core_step(4, 8, 7, 0.5)
    assert clicks == len(output)
    assert explorer.shown["tokens"] == output
    assert explorer.shown["log"][-1].startswith("output:")


def drive(explorer, control):
    middle = control.min + (control.max - control.min) / 2
    if isinstance(control, widgets.IntSlider):
        middle = int(middle)
    for value in (control.min, control.max, middle):
        control.value = value
        assert explorer.shown["draws"] == 0  # a new step starts with nothing drawn
        assert_matches_core(explorer)
        run_to_the_end(explorer)
        assert_picture_is_a_full_render(explorer)  # no changing artist was left unregistered


@pytest.mark.parametrize("name", ["gamma", "vocab", "seed", "closeness"])
def test_every_slider_at_its_minimum_maximum_and_middle(name):
    explorer = VerifyStepExplorer()
    figure = explorer.figure
    artists = [len(axes.get_children()) for axes in figure.axes]
    drive(explorer, explorer.controls[name])
    assert explorer.figure is figure
    assert [len(axes.get_children()) for axes in figure.axes] == artists  # updated, not rebuilt


def test_step_back_reset_and_the_slider_reveal_the_draws_in_order():
    explorer = VerifyStepExplorer(seed=3)  # every draft token passes: 5 draws with the bonus
    controls = explorer.controls
    *_, output, trace = core_step(4, 8, 3, 0.5)
    assert trace.all_accepted and len(output) == 5
    run_to_the_end(explorer)
    assert explorer.shown["origins"][-1] == "bonus"
    controls["step"].click()  # nothing left to reveal
    assert explorer.shown["tokens"] == output
    for draws in range(len(output) - 1, -1, -1):
        controls["back"].click()
        assert explorer.shown["tokens"] == output[:draws]
        assert_matches_core(explorer)
    controls["back"].click()  # already at the start
    assert explorer.shown["draws"] == 0
    for draws in (3, 5, 1, 0, 2):
        controls["draws"].value = draws
        assert explorer.shown["tokens"] == output[:draws]
        assert_matches_core(explorer)
    controls["reset"].click()
    assert explorer.shown["tokens"] == [] and controls["draws"].value == 0
    assert_matches_core(explorer)


def test_a_rejection_shows_the_residual_and_the_resampled_token():
    explorer = VerifyStepExplorer(seed=7)
    *_, output, trace = core_step(4, 8, 7, 0.5)
    rejected = trace.positions[-1]
    assert not rejected.accepted
    run_to_the_end(explorer)
    frame = explorer.shown["frame"]
    assert (frame.position.index, frame.position.uniform) == (rejected.index, rejected.uniform)
    np.testing.assert_array_equal(frame.position.residual, rejected.residual)
    assert frame.draft_states[rejected.index] == "rejected"
    assert all(state == "discarded" for state in frame.draft_states[rejected.index + 1:])
    assert explorer.shown["origins"][-1] == "resampled"
    assert explorer.shown["tokens"][-1] == rejected.resampled_token
    assert "rejected; redrawn from the residual" in explorer.shown["readout"].text()


@pytest.mark.parametrize("case", list(EXAMPLE_CASES))
def test_the_worked_example_steps(case):
    draft_tokens, seed, expected = EXAMPLE_CASES[case]
    explorer = VerifyStepExplorer(gamma=6, vocab=30, seed=11)
    controls = explorer.controls
    controls["rows"].value = case
    assert (controls["gamma"].value, controls["vocab"].value, controls["seed"].value) == (2, 4, seed)
    assert controls["gamma"].disabled and controls["vocab"].disabled and controls["closeness"].disabled
    assert explorer.shown["draft_tokens"] == draft_tokens
    run_to_the_end(explorer)
    assert explorer.shown["tokens"] == expected
    controls["seed"].value = 5  # the worked example's rows with another seed still match the core
    assert_matches_core(explorer)
    run_to_the_end(explorer)
    controls["rows"].value = "random"  # back to the learner's own settings
    assert (controls["gamma"].value, controls["vocab"].value, controls["seed"].value) == (6, 30, 11)
    assert not controls["gamma"].disabled
    assert_matches_core(explorer)


def test_the_worked_example_can_be_the_starting_view():
    explorer = VerifyStepExplorer(rows="example A A", draws=3)
    assert explorer.shown["tokens"] == [0, 0, 3]
    assert_matches_core(explorer)


def test_gamma_zero_draws_only_the_bonus():
    explorer = VerifyStepExplorer(gamma=0, vocab=2)
    assert explorer.shown["total"] == 1 and explorer.shown["draft_tokens"] == []
    explorer.controls["step"].click()
    assert explorer.shown["origins"] == ["bonus"]
    assert_matches_core(explorer)


def test_bad_arguments_are_refused_with_the_argument_named():
    with pytest.raises(ValueError, match="gamma must be an integer in 0 … 8"):
        VerifyStepExplorer(gamma=9)
    with pytest.raises(ValueError, match="vocab must be an integer in 2 … 64"):
        VerifyStepExplorer(vocab=1)
    with pytest.raises(TypeError, match="seed"):
        VerifyStepExplorer(seed="0")
    with pytest.raises(ValueError, match="closeness"):
        VerifyStepExplorer(closeness=-0.1)
    with pytest.raises(ValueError, match="rows must be one of"):
        VerifyStepExplorer(rows="SPEC A B")


class Tick:
    """A pending tick of `Clock`, cancelled as an `asyncio.TimerHandle` is."""

    def __init__(self, callback):
        self.callback, self.cancelled = callback, False

    def cancel(self):
        self.cancelled = True


class Clock:
    """Stands in for the kernel's event loop: `call_later` records each tick, `run` fires the pending ones."""

    def __init__(self):
        self.pending = []

    def call_later(self, seconds, callback):
        assert seconds == verify_step.PLAY_SECONDS
        self.pending.append(Tick(callback))
        return self.pending[-1]

    def run(self, ticks=1):
        for _ in range(ticks):
            due, self.pending = self.pending, []
            for tick in due:
                if not tick.cancelled:
                    tick.callback()


#: The ranges of the controls; every combination below holds each end of each range at least once.
RANGES = {"gamma": (0, 8), "vocab": (2, 64), "seed": (0, 999), "closeness": (0.0, 1.0)}
MOVES = ("step", "back", "reset", "play", "tick", "drag")


def control_combinations(count=12, seed=18):
    """Seeded combinations of every control: the first two put every slider at its minimum and at its
    maximum, the others at an end (a third of the time) or anywhere in between; each rows choice and
    each move occurs."""
    rng = random.Random(seed)
    choices = ["random", *EXAMPLE_CASES]
    combinations = []
    for index in range(count):
        if index < 2:
            values = {name: ends[index] for name, ends in RANGES.items()}
        else:
            values = {name: rng.choice(ends) if rng.random() < 1 / 3 else
                      (rng.uniform(*ends) if isinstance(ends[0], float) else rng.randint(*ends))
                      for name, ends in RANGES.items()}
        values["closeness"] = round(values["closeness"] / 0.05) * 0.05  # the slider's step
        moves = [*MOVES] if index < 2 else rng.choices(MOVES, k=rng.randint(0, 8))
        rows = "random" if index < 2 else choices[(index - 2) % len(choices)]  # an example fixes γ, V, seed
        combinations.append((rows, values, moves, rng.randint(0, 9)))
    return combinations


def test_the_combinations_cover_every_end_of_every_control_and_every_move():
    combinations = control_combinations()
    for name, ends in RANGES.items():
        assert {values[name] for _rows, values, _moves, _to in combinations} >= set(ends)
    assert {rows for rows, *_ in combinations} == {"random", *EXAMPLE_CASES}
    assert {move for _rows, _values, moves, _to in combinations for move in moves} == set(MOVES)


def test_no_combination_of_control_values_raises():
    # One explorer, its controls set for each combination (building one per combination is what made
    # this test slow); the constructor's own arguments are checked by the tests above.
    explorer = VerifyStepExplorer()
    clock = Clock()
    explorer.call_later = clock.call_later
    controls = explorer.controls
    for rows, values, moves, drag_to in control_combinations():
        with explorer.batch():
            controls["rows"].value = "random"
            for name, value in values.items():
                controls[name].value = value
            controls["rows"].value = rows
        assert_matches_core(explorer)
        for move in moves:
            if move == "tick":
                clock.run()
            elif move == "drag":
                controls["draws"].value = min(drag_to, controls["draws"].max)
            else:
                controls[move].click()
            assert_matches_core(explorer)


class FrontEnd:
    """What a browser would hold for the draw slider, from the messages the kernel sends.

    A browser that receives a max below the value it holds clamps the value and sends the clamped
    number back as a change of its own: that is how a new step could open already finished. Every
    message is recorded, and a state with value > max (which the browser would clamp) is noted.
    """

    def __init__(self, *counters):
        self.states = {id(counter): {"value": counter.value, "max": counter.max} for counter in counters}
        self.sent = []
        self.clamped = []
        for counter in counters:
            counter._send = self._receiver(counter)

    def _receiver(self, counter):
        def receive(message, buffers=None):
            state = self.states[id(counter)]
            update = {key: message["state"][key] for key in ("value", "max") if key in message["state"]}
            state.update(update)
            self.sent.append((counter.description, update))
            if state["value"] > state["max"]:
                self.clamped.append((counter.description, dict(state)))
        return receive


@pytest.mark.parametrize("first, then", [
    ({"rows": "example A B"}, {"rows": "example D A"}),  # 3 draws shown, the new step has 1
    ({"seed": 3}, {"gamma": 3}),  # 5 draws shown, the new step has 4
    ({"seed": 3}, {"rows": "example D A"}),
])
def test_a_new_step_opens_at_draw_zero_in_the_browser_too(first, then):
    explorer = VerifyStepExplorer()
    controls = explorer.controls
    for name, value in first.items():
        controls[name].value = value
    run_to_the_end(explorer)
    shown_before = explorer.shown["draws"]
    browser = FrontEnd(controls["draws"])
    for name, value in then.items():
        controls[name].value = value
    assert explorer.shown["total"] < shown_before  # the case of the bug: fewer draws than were shown
    assert explorer.shown["draws"] == 0 and not controls["step"].disabled
    assert explorer.shown["readout"].plain()[0] == "Draw 0"
    assert browser.clamped == []  # the browser never holds a value above the max, so never clamps
    assert all(update.get("value", 0) == 0 for _name, update in browser.sent), browser.sent
    for state in browser.states.values():
        assert state == {"value": 0, "max": explorer.shown["total"]}
    assert_matches_core(explorer)


def test_dragging_the_draw_slider_moves_the_step():
    explorer = VerifyStepExplorer(seed=3)
    explorer.controls["draws"].value = 4
    assert explorer.shown["draws"] == 4
    assert_matches_core(explorer)


# ---- what a step reveals draw by draw, and the figure ----


def random_trace(gamma, vocab, seed, closeness):
    rng = np.random.default_rng(seed)
    target_probs, draft_probs = random_rows(gamma, vocab, closeness, rng)
    return trace_step(target_probs, draft_probs, sample_draft(draft_probs, rng), rng)


def test_subscript():
    assert subscript(0) + subscript(12) == "₀₁₂"


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 8), st.integers(2, 64), st.integers(0, 10_000), st.floats(0, 1))
def test_frames_reveal_the_trace_one_draw_at_a_time(gamma, vocab, seed, closeness):
    trace = random_trace(gamma, vocab, seed, closeness)
    total = draw_total(trace)
    assert total == len(trace.tokens)
    previous_states = ["pending"] * gamma
    for draws in range(total + 1):
        frame = frame_at(trace, draws)
        assert frame.tokens == trace.tokens[:draws] and frame.origins == trace.origins[:draws]
        assert frame.finished == (draws == total)
        decided = [state for state in frame.draft_states if state in ("accepted", "rejected")]
        assert len(decided) == min(draws, len(trace.positions))
        # A verdict, once shown, stays; pending proposals only ever become decided or discarded.
        for before, after in zip(previous_states, frame.draft_states):
            assert before == after or before == "pending"
        previous_states = frame.draft_states
        assert frame.bonus_drawn == (trace.all_accepted and draws == total)
        if gamma == 0:
            assert frame.focus is None
        else:
            assert 0 <= frame.focus < gamma
    if not trace.all_accepted:
        assert frame.draft_states.count("rejected") == 1


def test_specs_first_example_frame_by_frame():
    trace = trace_step(*spec_example(), np.random.default_rng(0))
    frames = [frame_at(trace, draws) for draws in range(4)]
    assert [frame.draft_states for frame in frames] == [
        ["pending", "pending"], ["accepted", "pending"], ["accepted", "accepted"], ["accepted", "accepted"]]
    assert [frame.bonus_next for frame in frames] == [False, False, True, False]
    assert frames[3].bonus_drawn and frames[3].tokens == [0, 1, 0]
    with pytest.raises(ValueError, match="draws must be in 0 … 3"):
        frame_at(trace, 4)


@pytest.mark.parametrize("gamma, vocab, seed", [(4, 8, 7), (4, 8, 3), (0, 2, 0), (8, 64, 1), (2, 4, 0)])
def test_figure_shows_each_frame(gamma, vocab, seed):
    trace = random_trace(gamma, vocab, seed, 0.5)
    labels = token_labels(vocab)
    picture = VerifyStepFigure()
    for draws in range(draw_total(trace) + 1):
        frame = frame_at(trace, draws)
        picture.update(trace, frame, labels)
        shown = [text.get_text() for text in picture.output_texts[:draws]]
        assert shown == [labels[token] for token in trace.tokens[:draws]]
        assert all(not text.get_visible() for text in picture.output_texts[draws:])
        picture.png()
    position = frame.position
    if position is not None and not position.accepted:
        assert picture.test_title.get_text() == "rejected ✗"
        assert picture.drawn_text.get_text() == labels[position.resampled_token]
    elif trace.all_accepted:
        assert picture.drawn_text.get_text() == labels[trace.bonus_token]
    assert_looks_like_a_full_draw(picture.png(), picture.figure)


# ---- what the learner met in the browser (issue 23) ----


def test_play_reveals_a_draw_a_tick_and_stop_stops_where_it_is():
    explorer = VerifyStepExplorer(seed=3)  # five draws
    clock = Clock()
    explorer.call_later = clock.call_later
    play = explorer.controls["play"]
    assert play.description == PLAY == "▶ play"  # a button named by its text (axe: button-name)
    play.click()  # the first draw at once, then one a tick
    assert explorer.shown["draws"] == 1 and play.description == STOP == "■ stop"
    clock.run()
    assert explorer.shown["draws"] == 2
    assert_matches_core(explorer)
    play.click()  # ■: stops where it is
    assert play.description == PLAY and explorer.timer is None
    clock.run(3)  # the cancelled tick does nothing
    assert explorer.shown["draws"] == 2
    play.click()
    clock.run(5)  # plays to the end of the step, then stops by itself
    assert explorer.shown["draws"] == 5 and play.description == PLAY and clock.pending == []
    play.click()  # ▶ on a finished step starts it again from draw 0
    assert explorer.shown["draws"] == 0 and play.description == STOP
    clock.run()
    assert explorer.shown["draws"] == 1
    explorer.controls["reset"].click()  # Reset stops and goes back to draw 0
    assert explorer.shown["draws"] == 0 and play.description == PLAY
    play.click()
    explorer.controls["seed"].value = 4  # a new step stops the play and opens at draw 0
    assert explorer.shown["draws"] == 0 and play.description == PLAY
    clock.run(3)
    assert explorer.shown["draws"] == 0
    explorer.controls["draws"].value = 3
    explorer.controls["draws"].value = 0  # dragging the slider to 0 is the learner's choice: it is kept
    assert explorer.shown["draws"] == 0


def test_play_runs_on_the_event_loop_without_a_thread(monkeypatch):
    monkeypatch.setattr(verify_step, "PLAY_SECONDS", 0.01)
    explorer = VerifyStepExplorer(seed=3)

    async def press_play_and_wait():
        explorer.controls["play"].click()
        for _ in range(500):
            if explorer.controls["play"].description == PLAY:
                break
            await asyncio.sleep(0.01)

    asyncio.run(press_play_and_wait())
    assert explorer.shown["draws"] == explorer.shown["total"] == 5
    assert_matches_core(explorer)
    explorer.controls["reset"].click()
    explorer.controls["play"].click()  # no event loop runs here: one draw, and nothing left pending
    assert explorer.shown["draws"] == 1 and explorer.timer is None and explorer.controls["play"].description == PLAY


def test_the_worked_example_menu_names_no_seed_the_slider_could_contradict():
    explorer = VerifyStepExplorer()
    explorer.controls["rows"].value = "example A B"
    explorer.controls["seed"].value = 1
    labels = [label for label, _value in explorer.controls["rows"].options]
    assert not any("seed" in label for label in labels if "worked example" in label)
    assert "(the worked example, seed 1)" in explorer.shown["readout"].plain()
    assert_matches_core(explorer)


def test_at_the_bonus_draw_the_test_panels_say_the_tests_are_done():
    explorer = VerifyStepExplorer(seed=3)  # every draft token passes
    picture = explorer.picture
    for _ in range(4):
        explorer.controls["step"].click()
    assert explorer.shown["frame"].bonus_next
    assert picture.test_title.get_text() == "tests done ✓" and picture.draw_title.get_text() == f"next: p{subscript(4)}"
    explorer.controls["step"].click()
    assert explorer.shown["frame"].bonus_drawn
    assert picture.test_title.get_text() == "tests done ✓" and picture.rows_title.get_text() == "i = 3: done"
    assert picture.draw_title.get_text() == f"p{subscript(4)} → {token_labels(8)[explorer.trace.bonus_token]}"
    assert_picture_is_a_full_render(explorer)


@pytest.mark.parametrize("draws", [0, 1, 2])
def test_the_threshold_drawn_is_the_one_the_trace_recorded(draws):
    explorer = VerifyStepExplorer(seed=7, draws=draws)
    focus = explorer.shown["frame"].focus
    recorded = explorer.trace.positions[focus].acceptance_probability
    assert explorer.picture.accept_zone.get_width() == recorded
    assert explorer.picture.threshold_text.get_text() == f"min(1, p/q) = {recorded:.3f}"


def test_the_key_lines_are_the_draw_count_the_latest_draw_and_the_output():
    explorer = VerifyStepExplorer()
    explorer.controls["step"].click()
    keys = [line.plain() for line in explorer.shown["readout"].key_lines()]
    assert keys == ["Draw 1", f"Latest: {explorer.shown['log'][0]}",
                    f"Output so far: {token_labels(8)[explorer.shown['tokens'][0]]} ✓"]
    assert "aria-live='polite'" in explorer.key_readout.value and explorer.image.tooltip.startswith(
        "One verify step, draw by draw. Draw 1 Latest:")


def test_presentation_puts_the_buttons_above_the_key_lines():
    presentation()
    try:
        explorer = VerifyStepExplorer()
    finally:
        presentation(False)
    first_row, key, *_others = explorer.children[1].children[1].children
    assert key is explorer.key_readout
    assert explorer.controls["step"] in first_row.children and explorer.controls["back"] in first_row.children
