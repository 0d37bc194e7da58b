"""One way to write the rule: every broken rule is `verify`'s loop with its mistake marked (the exercise
checker's wrong steps are written as a learner would; tests/test_exercises_mistakes.py checks their marks).

Each variant's body is `check_step_arguments` followed by a copy of `specdec.core.verify`'s body (the
reference loop, without the lines that record a trace). A line diff of the two must show only lines
that end with the marker comment ``# the mistake``; a reference line that the mistake leaves out is
replaced by a comment line that starts with the marker. Lines are compared as written, except that
comments other than the marker are ignored and blank lines skipped.
"""

from __future__ import annotations

import ast
import difflib
import inspect
import io
import textwrap
import tokenize

import numpy as np
import pytest

from specdec import core
from specdec.core import check_step_arguments, normalised_for_choice, residual_distribution, unchecked_residual
from specdec.broken_rules import BROKEN_RULES, EDGE_CASES

MARKER = "# the mistake"
CHECK_LINE = "target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)"

VARIANTS = {function.__name__: function for function in (
    *(rule.function for rule in BROKEN_RULES.values()),
    *(case.function for case in EDGE_CASES.values()),
)}


def body_lines(function, skip_check_line: bool, left_out=lambda statement: False) -> list[tuple[str, bool]]:
    """The function's body after its docstring (and its argument check) as (code, marked) pairs.

    `code` is the line without its comment, indented relative to the body; a comment-only line keeps
    its comment as its code. `left_out` names statements whose lines are dropped.
    """
    source = textwrap.dedent(inspect.getsource(function))
    definition = ast.parse(source).body[0]
    statements = list(definition.body)
    if ast.get_docstring(definition) is not None:
        statements = statements[1:]
    if skip_check_line:
        first = statements.pop(0)
        assert ast.unparse(first) == CHECK_LINE, f"{function.__name__} must check its arguments first"
    start = statements[0].lineno
    if skip_check_line:
        start = first.end_lineno + 1
    dropped = {line for statement in ast.walk(definition) if isinstance(statement, ast.stmt)
               and left_out(statement) for line in range(statement.lineno, statement.end_lineno + 1)}
    comments = {token.start[0]: token for token in tokenize.generate_tokens(io.StringIO(source).readline)
                if token.type == tokenize.COMMENT}
    lines = source.splitlines()
    indent = len(lines[start - 1]) - len(lines[start - 1].lstrip())
    result = []
    for number in range(start, definition.end_lineno + 1):
        line = lines[number - 1]
        if number in dropped or not line.strip():
            continue
        comment = comments.get(number)
        code = line[: comment.start[1]].rstrip() if comment else line.rstrip()
        marked = comment is not None and comment.string.startswith(MARKER)
        if not code.strip():
            code = line.rstrip()  # a comment-only line
        result.append((code[indent:], marked))
    return result


def records_a_trace(statement) -> bool:
    return isinstance(statement, ast.If) and ast.unparse(statement.test) == "positions is not None"


def reference_lines() -> list[tuple[str, bool]]:
    return body_lines(core.verify, skip_check_line=False, left_out=records_a_trace)


def style_problems(function) -> list[str]:
    """Everything that keeps `function` from being the reference loop with marked mistakes."""
    reference = reference_lines()
    variant = body_lines(function, skip_check_line=True)
    # A marked line never equals a reference line, so the matcher aligns only unmarked ones.
    keys = [code + ("  " + MARKER if marked else "") for code, marked in variant]
    matcher = difflib.SequenceMatcher(None, [code for code, _ in reference], keys, autojunk=False)
    problems = []
    for tag, ref_start, ref_end, start, end in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "delete":
            problems.append(f"reference lines left out with no marked comment in their place: "
                            f"{[code.strip() for code, _ in reference[ref_start:ref_end]]}")
        replaced = {code.strip() for code, _ in reference[ref_start:ref_end]}
        for code, marked in variant[start:end]:
            if not marked:
                problems.append(f"differs from verify but is not marked: {code.strip()!r}")
            elif code.strip() in replaced:
                problems.append(f"marked but the same as verify's line: {code.strip()!r}")
    if not any(marked for _, marked in variant):
        problems.append("no line is marked as the mistake")
    return problems


# --- The reference is what the check compares against ------------------------------------------------


def test_the_reference_is_verify_without_its_trace_lines():
    codes = [code.strip() for code, _ in reference_lines()]
    assert codes[0] == "vocab = target.shape[1]" and codes[-1] == "return output"
    assert "u = rng.random()" in codes and "if u < threshold:" in codes
    assert not any("positions" in code for code in codes)
    assert not any(marked for _, marked in reference_lines())


# --- Every variant passes ---------------------------------------------------------------------------


def test_every_variant_of_the_verify_step_is_checked():
    assert len(BROKEN_RULES) + len(EDGE_CASES) >= 11
    assert {"unprocessed_draft_in_ratio", "residual_without_fallback"} <= set(VARIANTS)
    assert len(VARIANTS) == len(BROKEN_RULES) + len(EDGE_CASES)


@pytest.mark.parametrize("function", VARIANTS.values(), ids=list(VARIANTS))
def test_each_variant_differs_from_verify_only_in_its_marked_lines(function):
    assert style_problems(function) == []


# --- The check itself can fail ----------------------------------------------------------------------


def unmarked_change(target_probs, draft_probs, draft_tokens, rng):
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = min(1.0, p_x / q_x)
        u = rng.random()
        if u <= threshold:
            output.append(token)
            continue
        residual = unchecked_residual(target[i], draft[i])
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output  # the mistake: marked, but the real change above is not


def silent_removal(target_probs, draft_probs, draft_tokens, rng):
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = min(1.0, p_x / q_x)
        u = rng.random()
        if u < threshold:
            output.append(token)
            continue
        residual = unchecked_residual(target[i], draft[i])
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        return output
    return output


def different_style(target_probs, draft_probs, draft_tokens, rng):
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    output: list[int] = []
    for i, token in enumerate(tokens):
        threshold = min(1.0, float(target[i, token]) / float(draft[i, token]))
        if rng.random() < threshold:
            output.append(token)
            continue
        output.append(int(rng.choice(vocab, p=residual_distribution(target[i], draft[i]))))  # the mistake
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


@pytest.mark.parametrize("function, words", [
    (unmarked_change, "not marked: 'if u <= threshold:'"),
    (unmarked_change, "marked but the same as verify's line: 'return output'"),
    (silent_removal, "left out with no marked comment"),
    (silent_removal, "no line is marked"),
    (different_style, "not marked: 'threshold = min(1.0, float(target[i, token]) / float(draft[i, token]))'"),
    (different_style, "not marked: 'if rng.random() < threshold:'"),
])
def test_the_check_finds_unmarked_changes_removals_and_needless_marks(function, words):
    assert any(words in problem for problem in style_problems(function)), style_problems(function)


def test_the_check_insists_on_the_argument_check_first():
    def unchecked(target_probs, draft_probs, draft_tokens, rng):
        return core.verify(np.asarray(target_probs), np.asarray(draft_probs), list(draft_tokens), rng)

    with pytest.raises(AssertionError, match="must check its arguments first"):
        style_problems(unchecked)
