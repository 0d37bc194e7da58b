"""Conceptual questions with feedback that explains why, for the end of each notebook.

`question(key)` shows a question and its choices; `check_answer(key, letter)` says whether the
letter is right and, either way, why: a wrong choice gets the reason it fails, so a second try is
an informed one. `check_answer(key, None)` is what a notebook ships with: it only says how to answer.

>>> question("greedy_alpha").key
'greedy_alpha'
>>> check_answer("greedy_alpha", "b").correct
True
>>> print(check_answer("speedup_factors", None))
… speedup_factors: no answer yet. Replace None with one of 'a', 'b', 'c' and run the cell again.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

#: Width the question and the feedback are wrapped to.
TEXT_WIDTH = 100


@dataclass(frozen=True)
class Choice:
    """One answer a learner can pick, and why it is right or wrong."""

    text: str
    why: str


@dataclass(frozen=True, repr=False)
class Question:
    """A multiple-choice question: its key, its text, its lettered choices and the right letter."""

    key: str
    prompt: str
    choices: dict[str, Choice]
    answer: str

    def __str__(self) -> str:
        lines = textwrap.wrap(f"{self.key}: {self.prompt}", TEXT_WIDTH)
        for letter, choice in self.choices.items():
            lines += textwrap.wrap(f"({letter}) {choice.text}", TEXT_WIDTH, initial_indent="  ",
                                   subsequent_indent="      ")
        letters = ", ".join(f'"{letter}"' for letter in self.choices)
        lines.append(f"  Answer with check_answer({self.key!r}, letter), the letter one of {letters}.")
        return "\n".join(lines)

    __repr__ = __str__


@dataclass(frozen=True, repr=False)
class Feedback:
    """What `check_answer` says: whether the answer is right (None when there is no answer yet), and why."""

    key: str
    correct: bool | None
    text: str

    def __bool__(self) -> bool:
        return bool(self.correct)

    def __str__(self) -> str:
        mark = {True: "✓", False: "✗", None: "…"}[self.correct]
        return textwrap.fill(f"{mark} {self.key}: {self.text}", TEXT_WIDTH, subsequent_indent="  ")

    __repr__ = __str__


def _question(key, prompt, answer, **choices) -> Question:
    return Question(key, prompt, {letter: Choice(*pair) for letter, pair in choices.items()}, answer)


QUESTIONS = {question.key: question for question in (
    _question(
        "alpha_from_tv",
        "Target and draft rows are at total variation distance TV(p, q) = 0.25. What is the acceptance rate α?",
        "b",
        a=("0.25", "That is the probability of a rejection, 1 − α, not of an acceptance."),
        b=("0.75", "α = Σ min(p, q) = 1 − TV(p, q): the overlap of the two bar charts is what is not "
                   "in their difference."),
        c=("It cannot be told from TV alone.", "It can: α = 1 − TV(p, q) holds for every pair of rows, "
                                               "because min(a, b) = (a + b − |a − b|)/2."),
    ),
    _question(
        "strict_comparison",
        "Why does the rule accept when u < min(1, p(x)/q(x)), strictly, rather than when u ≤ it?",
        "b",
        a=("It makes no difference: u equals the ratio with probability 0.",
           "For most tokens that is so, but a token with p(x) = 0 has ratio 0, and a generator can "
           "return u = 0 exactly. With ≤ that token would be accepted."),
        b=("So that a token the target gives probability 0 is never accepted, not even when u is exactly 0.",
           "The ratio of such a token is 0, and no u in [0, 1) is below 0."),
        c=("Because a strict comparison is faster.", "Speed has nothing to do with it; the two "
                                                      "comparisons cost the same."),
    ),
    _question(
        "residual_source",
        "After a rejection, why must the replacement come from the residual norm(max(0, p − q)) rather "
        "than from p itself?",
        "b",
        a=("Drawing from p would be just as correct, only slower.",
           "It would not be correct: tokens where q already covers p would come out too often."),
        b=("Accepted draft tokens already give each x probability min(p(x), q(x)); the replacement must "
           "add only the part of p that is still missing, max(0, p(x) − q(x)).",
           "Then accepted + resampled = min(p, q) + max(0, p − q) = p. Drawing from p would count the "
           "overlap twice."),
        c=("Because p may give the rejected token probability 0.",
           "The rejected token may come back from p, but that is not the problem: drawing from p counts "
           "p's mass twice wherever q already covers it."),
    ),
    _question(
        "discard_after_rejection",
        "At the first rejection in a verify step, why are the later draft tokens thrown away, even ones "
        "the target likes?",
        "a",
        a=("They were drafted after the rejected token, which is now replaced; the rows p_i and q_i "
           "behind them belong to a text that no longer exists.",
           "Each row is conditioned on the prefix before it. Once a token changes, the later rows answer "
           "a question nobody asks any more."),
        b=("To save the target's time.", "The target already scored them in its one pass; throwing them "
                                        "away saves nothing. Keeping them would break the output law."),
        c=("Because the target computed no rows for them.", "It did: one pass gives all γ + 1 rows."),
    ),
    _question(
        "same_seed_same_text",
        "You generate once by plain sampling from the target and once by speculative sampling, with the "
        "same random seed. Are the two texts the same?",
        "c",
        a=("Yes, always: speculative decoding does not change the output.",
           "It does not change the distribution of the output. The two procedures consume the random "
           "numbers differently, so one seed gives two different (equally likely) texts."),
        b=("Never, not even under greedy decoding.", "Under greedy decoding there is no randomness left "
                                                     "and speculative decoding writes the target's greedy "
                                                     "text exactly."),
        c=("In general no; only their distribution is the same. Under greedy decoding they are identical.",
           "Exactness is a statement about the law of the text, not about one draw."),
    ),
    _question(
        "token_count_law",
        "A step has γ = 2 draft tokens with acceptance rates α₀ = 0.5 and α₁ = 0.5. What is the "
        "probability that it yields 3 tokens?",
        "a",
        a=("0.25", "N = γ + 1 = 3 needs both draft tokens accepted: α₀·α₁ = 0.25, and then the bonus token "
                   "comes for free."),
        b=("0.125", "That would be α₀·α₁·(1 − α₂), but there is no third draft position: after two "
                    "acceptances the bonus token always comes."),
        c=("0.5", "That is P(N ≥ 2) = α₀."),
    ),
    _question(
        "speedup_factors",
        "In the cost model of notebook 04, what decides the expected speedup over plain decoding?",
        "b",
        a=("The acceptance rate α alone.", "α decides how many tokens a step yields for a given γ, but "
                                           "each draft pass costs 1/c of a target pass."),
        b=("α, the draft length γ and the cost ratio c together.",
           "speedup = (1 − α^(γ+1)) / ((1 − α)(1 + γ/c)): α and γ give the tokens per step, γ and c its cost."),
        c=("Only γ: more draft tokens always mean more speed.", "Past the best γ each extra draft pass "
                                                               "costs more than the tokens it adds."),
    ),
    _question(
        "below_break_even",
        "The draft gets slower until c < 1/α (equivalently α < 1/c). What happens?",
        "a",
        a=("Every draft length γ ≥ 1 is slower than plain decoding.",
           "Some γ helps exactly when α > 1/c: the average of α, α², …, α^γ must beat 1/c, and it is "
           "largest at γ = 1, where it is α."),
        b=("The best γ gets longer, to make up for the slow draft.", "A slower draft makes every extra "
                                                                    "draft token dearer, so the best γ "
                                                                    "shrinks, down to none."),
        c=("The output is no longer distributed as p.", "Cost never changes the output law; only the "
                                                        "rule does."),
    ),
    _question(
        "greedy_alpha",
        "Does greedy decoding (temperature 0 for both models) change the acceptance rate α?",
        "b",
        a=("No: α depends only on the two models.", "α depends on the distributions actually used, and "
                                                    "temperature changes them."),
        b=("Yes: each position's α becomes 1 where the argmaxes agree and 0 where they do not. For real "
           "model pairs the average is higher than at T = 1.",
           "Leviathan et al. (Table 3) measure T5-small 0.75 greedy against 0.62 at T = 1; real models "
           "agree on the argmax of easy tokens very often. The Gaussian toy logits of notebook 06 do "
           "not, which is why the toy shows the opposite."),
        c=("Yes: greedy decoding always makes α = 0.", "Only where the two argmaxes differ."),
    ),
    _question(
        "kl_and_alpha",
        "p = (0.99, 0.01) and q = (1, 0). KL(p‖q) is infinite. What is α?",
        "c",
        a=("0, because the divergence is infinite.", "α measures the overlap Σ min(p, q), which is "
                                                     "0.99 here; KL blows up because q calls a possible "
                                                     "token impossible."),
        b=("Undefined.", "α = Σ min(p, q) is defined for every pair of rows."),
        c=("0.99", "min(0.99, 1) + min(0.01, 0) = 0.99. A huge KL can go with a high α."),
    ),
    _question(
        "processed_draft",
        "The draft samples its tokens after top-k filtering, but the ratio p(x)/q(x) uses its unfiltered "
        "softmax. What goes wrong?",
        "b",
        a=("Nothing: any q works in the rule.", "Any q works only if the draft tokens are really drawn "
                                                "from that same q."),
        b=("The output is no longer distributed as p: the q in the ratio is not the law the draft "
           "tokens came from.", "The proof needs P(draft proposes x) = q(x). With filtering, tokens inside "
                                "the top k are proposed more often than the unfiltered q says."),
        c=("Only α changes; the output law is still p.", "The output law changes too; a sampling check "
                                                         "like notebook 03's catches it."),
    ),
    _question(
        "ngram_clock",
        "In notebook 07, speculative generation with n-gram models has a high α but is slower by the "
        "clock. Why?",
        "b",
        a=("The rule is implemented wrongly there.", "It is the same core code as everywhere; the "
                                                     "output law is right."),
        b=("A target look-up costs about as much as a draft look-up (c near 1), and the γ + 1 contexts "
           "are looked up one after another, not in one pass.",
           "The speedup rests on a cheap draft and on scoring γ + 1 positions for the price of one; "
           "neither holds for counting models."),
        c=("Because characters are shorter than subword tokens.", "Token size does not decide the "
                                                                  "clock; the cost ratio c does."),
    ),
)}


def question(key) -> Question:
    """The question called `key`; printing it shows the question and its lettered choices.

    >>> print(question("token_count_law"))  # doctest: +ELLIPSIS
    token_count_law: A step has γ = 2 draft tokens ...
    """
    if not isinstance(key, str):
        raise TypeError(f"key must be a question name (a str), got {type(key).__name__}")
    if key not in QUESTIONS:
        raise ValueError(f"key must name a question, one of {', '.join(sorted(QUESTIONS))}; got {key!r}")
    return QUESTIONS[key]


def check_answer(key, answer) -> Feedback:
    """Whether `answer` (a letter such as "a") is right for question `key`, and why.

    Parameters
    ----------
    key : str
        A question name, as printed by `question`.
    answer : str or None
        The letter of your choice, in either case. None means "no answer yet".

    Returns
    -------
    Feedback
        ``correct`` is True or False (None for no answer), and the text explains why.

    Examples
    --------
    >>> print(check_answer("kl_and_alpha", "A"))  # doctest: +ELLIPSIS
    ✗ kl_and_alpha: Not quite. α measures the overlap ...
    """
    item = question(key)
    letters = ", ".join(repr(letter) for letter in item.choices)
    if answer is None:
        return Feedback(key, None, f"no answer yet. Replace None with one of {letters} and run the cell again.")
    if not isinstance(answer, str):
        raise TypeError(f"answer must be a letter such as 'a' (a str) or None, got {type(answer).__name__}")
    letter = answer.strip().lower()
    if letter not in item.choices:
        raise ValueError(f"answer must be one of {letters} for question {key!r}, got {answer!r}")
    choice = item.choices[letter]
    if letter == item.answer:
        return Feedback(key, True, f"Right. {choice.why}")
    return Feedback(key, False, f"Not quite. {choice.why} Try another letter.")
