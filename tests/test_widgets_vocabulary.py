"""Every explorer speaks the learner's words: no internal word in a label, option, tooltip or readout."""

import re

import ipywidgets as widgets
import pytest

import specdec.widgets

#: Words of the developers, not of the lesson (see the project guide).
INTERNAL_WORDS = re.compile(r"\bSPEC\b|(?i:\bcontract|\bnbval)")

EXPLORERS = sorted(name for name in specdec.widgets.__all__ if name.endswith("_explorer"))


def make(name):
    if name == "text_explorer":
        return specdec.widgets.text_explorer("the cat sat on the mat and the rat sat on the cat " * 20, length=40)
    return getattr(specdec.widgets, name)()


def words_on_screen(widget):
    """Every string a learner can read on `widget` and the widgets inside it."""
    texts = []
    for attribute in ("description", "tooltip", "value", "placeholder"):
        value = getattr(widget, attribute, None)
        if isinstance(value, str):
            texts.append(value)
    for option in getattr(widget, "options", ()) or ():
        texts.append(str(option[0] if isinstance(option, tuple) else option))
    for child in getattr(widget, "children", ()):
        texts += words_on_screen(child)
    return texts


def test_the_check_finds_an_internal_word():
    box = widgets.VBox([widgets.Dropdown(options=[("SPEC's example", 1)])])
    assert any(INTERNAL_WORDS.search(text) for text in words_on_screen(box))


@pytest.mark.parametrize("name", EXPLORERS)
def test_no_internal_word_on_any_explorer(name):
    explorer = make(name)
    texts = words_on_screen(explorer)
    for control in explorer.controls.values():  # controls not laid out in rows are read too
        texts += words_on_screen(control)
    assert texts and explorer.readout.value in texts
    assert [text for text in texts if INTERNAL_WORDS.search(text)] == []


def test_no_internal_word_on_the_worked_example_choices():
    explorer = specdec.widgets.verify_step_explorer()
    for _label, value in explorer.controls["rows"].options:
        explorer.controls["rows"].value = value
        assert not INTERNAL_WORDS.search(explorer.readout.value), value
