"""The quiz: every question is well formed, and check_answer explains right, wrong and missing answers."""

import pytest

from specdec.exercises.quiz import QUESTIONS, Feedback, check_answer, question


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
