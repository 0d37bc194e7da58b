"""The quiz: every question is well formed, check_answer explains right, wrong and missing answers, and every
lesson notebook ends with its questions."""

import ast
import json
import re
from pathlib import Path

import pytest

from specdec.quiz import KINDS, QUESTIONS, Feedback, check_answer, question


def test_at_least_eight_questions_each_with_a_right_letter_among_its_choices():
    assert len(QUESTIONS) >= 8
    for key, item in QUESTIONS.items():
        assert item.key == key
        assert item.answer in item.choices
        assert len(item.choices) >= 2
        for choice in item.choices.values():
            assert choice.text.strip() and len(choice.why) > 20


@pytest.mark.parametrize("key", sorted(QUESTIONS))
def test_every_letter_gets_its_own_explanation(key):
    item = QUESTIONS[key]
    for letter, choice in item.choices.items():
        feedback = check_answer(key, letter.upper())
        assert isinstance(feedback, Feedback)
        assert feedback.correct is (letter == item.answer)
        assert choice.why in feedback.text
        assert str(feedback).startswith("✓" if letter == item.answer else "✗")
        assert bool(feedback) is (letter == item.answer)


def test_no_answer_yet_says_how_to_answer():
    feedback = check_answer("greedy_alpha", None)
    assert feedback.correct is None and not feedback
    assert "Replace None" in feedback.text and "'a', 'b', 'c'" in feedback.text


def test_printed_question_lists_choices_and_how_to_answer():
    text = str(question("residual_source"))
    assert text.startswith("residual_source: ")
    for letter in QUESTIONS["residual_source"].choices:
        assert f"({letter})" in text
    assert "check_answer('residual_source', letter)" in text


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="key must name a question.*greedy_alpha"):
        check_answer("no such question", "a")
    with pytest.raises(TypeError, match="key must be a question name"):
        question(3)
    with pytest.raises(ValueError, match="answer must be one of 'a', 'b', 'c'.*'d'"):
        check_answer("greedy_alpha", "d")
    with pytest.raises(TypeError, match="answer must be a letter"):
        check_answer("greedy_alpha", 1)


# --- The questions at the end of every lesson notebook ------------------------------------------

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def code_of(path):
    return ["".join(cell["source"]) for cell in json.loads(path.read_text())["cells"] if cell["cell_type"] == "code"]


def lesson_notebooks():
    """Every numbered notebook, whatever its number, except the start page (00) and the exercises notebook."""
    numbered = sorted(path for path in NOTEBOOKS.glob("*.ipynb") if re.match(r"\d+_", path.name))
    return [path for path in numbered if not path.name.startswith("00_")
            and not any("from specdec.exercises import check" in source for source in code_of(path))]


def calls(source, function):
    """The first arguments of the calls `function("key", ...)` in a cell."""
    return [node.args[0].value for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == function and node.args and isinstance(node.args[0], ast.Constant)]


def test_the_lesson_notebooks_are_found_whatever_their_number():
    names = [path.name for path in lesson_notebooks()]
    assert len(names) >= 8 and all(not name.startswith("00_") for name in names)
    assert not any("exercises" in name for name in names)


@pytest.mark.parametrize("path", lesson_notebooks(), ids=lambda path: path.name)
def test_every_lesson_ends_with_three_questions_one_that_applies_or_diagnoses(path):
    sources = code_of(path)
    shown = [key for source in sources for key in calls(source, "question")]
    answered = [key for source in sources for key in calls(source, "check_answer")]
    assert len(shown) >= 3, f"{path.name} asks {len(shown)} questions"
    assert answered == shown, "every question shown gets its own check_answer cell, in the same order"
    assert any(QUESTIONS[key].kind in ("application", "diagnosis") for key in shown), path.name
    quiz_cells = [i for i, source in enumerate(sources) if calls(source, "question") or calls(source, "check_answer")]
    assert quiz_cells == list(range(len(sources) - len(quiz_cells), len(sources))), "the quiz is the last code"


def test_every_question_is_asked_in_some_lesson():
    asked = {key for path in lesson_notebooks() for source in code_of(path) for key in calls(source, "question")}
    assert asked == set(QUESTIONS)


def test_every_question_has_a_known_kind_and_its_right_answer_is_not_always_the_same_letter():
    assert {item.kind for item in QUESTIONS.values()} == set(KINDS)
    answers = [item.answer for item in QUESTIONS.values()]
    assert max(answers.count(letter) for letter in "abc") < 0.6 * len(answers)
