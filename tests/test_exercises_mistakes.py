"""The exercise checker's known mistakes: each is marked where it goes wrong, differs from a right answer,
and the checker reads nothing from the broken-rule zoo or the theory modules."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import specdec.exercises.mistakes as mistakes_module
from specdec.broken_rules import BROKEN_RULES, EDGE_CASES
from specdec.exercises import capstones, checker
from specdec.exercises.mistakes import MISTAKES

MARKER = "# the mistake"
EVERY_MISTAKE = [(exercise, mistake) for exercise, known in MISTAKES.items() for mistake in known]


def marked_sources(function) -> list[str]:
    """The source of `function`, and of every function of specdec.exercises it names (a helper it calls)."""
    sources = [inspect.getsource(function)]
    names = set(function.__code__.co_names) | {name for const in function.__code__.co_consts
                                               if inspect.iscode(const) for name in const.co_names}
    for module in (mistakes_module, capstones):
        sources += [inspect.getsource(getattr(module, name)) for name in names
                    if inspect.isfunction(getattr(module, name, None))]
    return sources


@pytest.mark.parametrize("exercise, mistake", EVERY_MISTAKE, ids=[m.name for _, m in EVERY_MISTAKE])
def test_every_known_mistake_marks_where_it_goes_wrong(exercise, mistake):
    assert any(MARKER in source for source in marked_sources(mistake.function)), mistake.name


def test_the_zoo_is_copied_with_its_own_words():
    """Word for word; a rule that drafts its own tokens gets one sentence first, since the exercise gives them."""
    copied = {m.name: m for m in MISTAKES["speculative_step"]}
    for rule in (*BROKEN_RULES.values(), *EDGE_CASES.values()):
        hint = copied[rule.name].hint
        assert hint == rule.mistake or (hint.startswith("Your function ignored the draft_tokens")
                                        and hint.endswith(". " + rule.mistake)), rule.name
        assert copied[rule.name].in_practice == rule.real_world


@pytest.mark.parametrize("file", ["checker.py", "mistakes.py", "cases.py"])
def test_the_checker_imports_only_core_validation_and_palette(file):
    imported = set()
    path = Path(checker.__file__).with_name(file)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 2:
            imported |= {node.module} if node.module else {alias.name for alias in node.names}
    assert imported <= {"core", "validation", "palette"}, imported
