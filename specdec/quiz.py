"""Questions with feedback that explains why, for the end of each lesson notebook.

`question(key)` shows a question and its choices; `check_answer(key, letter)` says whether the
letter is right and, either way, why: a wrong choice gets the reason it fails, so a second try is
an informed one. `check_answer(key, None)` is what a notebook ships with: it only says how to answer.

Each question has a kind: "concept" (why the rule is as it is), "application" (compute a number
from a given setting: E[N] from per-position α, the speedup of a setting) or "diagnosis" (name the
bug or the cause from its symptom). Every lesson notebook asks at least one application or
diagnosis question (tests/test_quiz.py).

>>> question("greedy_alpha").kind
'concept'
>>> check_answer("greedy_alpha", "b").correct
True
>>> print(check_answer("speedup_factors", None))
… speedup_factors: no answer yet. Replace None with one of 'a', 'b', 'c' and run the cell again.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from .validation import checked

#: Width the question and the feedback are wrapped to.
TEXT_WIDTH = 100
#: The kinds of question; the last two make a learner use what the notebook taught.
KINDS = ("concept", "application", "diagnosis")


@dataclass(frozen=True)
class Choice:
    """One answer a learner can pick, and why it is right or wrong."""

    text: str
    why: str


@dataclass(frozen=True, repr=False)
class Question:
    """A multiple-choice question: its key, kind, text, lettered choices and the right letter."""

    key: str
    kind: str
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


def parse_questions(text: str) -> dict[str, Question]:
    r"""Questions written as plain text: blocks separated by a blank line, each a line "key · kind · right
    letter", the prompt, then one line "(a) choice :: why it is right or wrong" per choice. A line that
    starts with four spaces continues the line above; a line that starts with "#" heads a group.

    >>> sheet = "k · concept · a\nWhy?\n(a) Yes :: Because it is.\n(b) No :: It is not\n    so."
    >>> parse_questions(sheet)["k"].choices["b"]
    Choice(text='No', why='It is not so.')
    """
    questions = {}
    for block in text.strip().split("\n\n"):
        lines = []
        for line in block.splitlines():
            if line.startswith("    "):
                lines[-1] += " " + line.strip()
            elif not line.startswith("#"):
                lines.append(line)
        key, kind, answer = lines[0].split(" · ")
        choices = {}
        for line in lines[2:]:
            letter, choice = re.fullmatch(r"\((\w)\) (.+)", line).groups()
            choices[letter] = Choice(*choice.split(" :: "))
        questions[key] = Question(key, kind, lines[1], choices, answer)
    return questions


QUESTIONS = parse_questions("""
# One position: acceptance and the residual
alpha_from_tv · application · b
Target and draft rows are at total variation distance TV(p, q) = 0.25. What is the acceptance rate α?
(a) 0.25 :: That is the probability of a rejection, 1 − α, not of an acceptance.
(b) 0.75 :: α = Σ min(p, q) = 1 − TV(p, q): the overlap of the two bar charts is what is not in their difference.
(c) It cannot be told from TV alone. :: It can: α = 1 − TV(p, q) holds for every pair of rows, because min(a, b) =
    (a + b − |a − b|)/2.

strict_comparison · concept · b
In floating point, why does the rule accept when u < min(1, p(x)/q(x)), strictly, rather than when u ≤ it?
(a) It makes no difference: u equals the ratio with probability 0. :: For a continuous uniform that is so, but a
    floating-point generator returns u = 0 exactly now and then (2⁻⁵³ of the time for numpy's float64 draws, 2⁻²⁴
    for float32), and a token with p(x) = 0 has ratio 0. With ≤ that token would be accepted.
(b) So that a token the target gives probability 0 is never accepted, not even when u is exactly 0. :: The ratio of
    such a token is 0, and no u in [0, 1) is below 0.
(c) Because a strict comparison is faster. :: Speed has nothing to do with it; the two comparisons cost the same.

worked_residual · application · c
In the worked example p = (0.5, 0.3, 0.2, 0) and q = (0.25, 0.25, 0.25, 0.25) over A, B, C, D. A draft token is
    rejected. With what probability is its replacement A?
(a) 0.5 :: That is p(A): drawing the replacement from p itself. The accepted tokens already supply min(p, q), so the
    replacement must come from the part of p that is missing.
(b) 0.25 :: That is max(0, p(A) − q(A)) before normalising: the residual max(0, p − q) = (0.25, 0.05, 0, 0) has mass
    0.3 and must be divided by it.
(c) About 0.83 :: max(0, p − q) = (0.25, 0.05, 0, 0), whose mass is 1 − α = 0.3: A gets 0.25/0.3 ≈ 0.83, B the rest,
    and C and D nothing, since the draft already offers them at least as much as p wants.

# One verify step
discard_after_rejection · concept · a
At the first rejection in a verify step, why are the later draft tokens thrown away, even ones the target likes?
(a) They were drafted after the rejected token, which is now replaced; the rows p_i and q_i behind them belong to a
    text that no longer exists. :: Each row is conditioned on the prefix before it. Once a token changes, the later
    rows answer a question nobody asks any more.
(b) To save the target's time. :: The target already scored them in its one pass; throwing them away saves nothing.
    Keeping them would break the output law.
(c) Because the target computed no rows for them. :: It did: one pass gives all γ + 1 rows.

draws_and_tokens · application · b
A step has γ = 3 draft tokens. The first is accepted and the second rejected. How many tokens does the step emit,
    and how many verify draws (after the draft tokens were drawn) does it make?
(a) 3 tokens from 3 draws: every draw emits one token. :: The uniform that rejects emits nothing, and the third
    draft token is never tested: the step ends at the replacement.
(b) 2 tokens from 3 draws: u₀ accepts, u₁ rejects, and one draw from the residual gives the replacement. :: The
    uniform that rejects emits nothing; the accepted token and the replacement are the step's two tokens, and the
    third draft token is neither tested nor kept.
(c) 2 tokens from 2 draws: the replacement reuses the uniform that rejected. :: The replacement is a draw of its
    own, rng.choice(V, p=residual), made right after the rejection.

extra_token_after_rejection · diagnosis · c
Your verify step returns the right tokens whenever every draft token passes, but after a rejection it returns one
    token more than the rule: the replacement, then another token. What is the bug?
(a) The acceptance ratio is upside down, q(x)/p(x) instead of p(x)/q(x). :: That changes which draft tokens are
    accepted, not how many tokens follow a rejection.
(b) The replacement is drawn from p instead of the residual. :: That changes which token replaces the rejected one
    (and the output law), not the length of the step.
(c) After the rejection the loop ends with break and falls through to the bonus-token draw. :: The bonus token comes
    only when all γ draft tokens pass: return right after appending the replacement. The target's later rows were
    conditioned on a token that is no longer there.

# Why the output is p
residual_source · concept · b
After a rejection, why must the replacement come from the residual norm(max(0, p − q)) rather than from p itself?
(a) Drawing from p would be just as correct, only slower. :: It would not be correct: tokens where q already covers
    p would come out too often.
(b) Accepted draft tokens already give each x probability min(p(x), q(x)); the replacement must add only the part of
    p that is still missing, max(0, p(x) − q(x)). :: Then accepted + resampled = min(p, q) + max(0, p − q) = p.
    Drawing from p would give min(p, q) + (1 − α)·p: too much wherever q already covers p.
(c) Because p may give the rejected token probability 0. :: The rejected token may come back from p, but that is not
    the problem: drawing from p gives each x min(p(x), q(x)) + (1 − α)·p(x), too much wherever q already covers p.

same_seed_same_text · concept · c
You generate once by plain sampling from the target and once by speculative sampling, with the same random seed. Are
    the two texts the same?
(a) Yes, always: speculative decoding does not change the output. :: It does not change the distribution of the
    output. The two procedures consume the random numbers differently, so one seed generally gives two different
    texts, each a draw from the same law.
(b) Never, not even under greedy decoding. :: Under greedy decoding there is no randomness left, and in exact
    arithmetic speculative decoding writes the target's greedy text exactly (in bf16 the verify pass's other kernel
    shapes can flip a near-tie, so real engines match it within hardware numerics).
(c) In general no; only their distribution is the same. Under greedy decoding they are identical (in exact
    arithmetic). :: Exactness is a statement about the law of the text, not about one draw.

token_count_law · application · a
A step has γ = 2 draft tokens with acceptance rates α₀ = 0.5 and α₁ = 0.5. What is the probability that it yields 3
    tokens?
(a) 0.25 :: N = γ + 1 = 3 needs both draft tokens accepted: α₀·α₁ = 0.25, and then the bonus token comes for free.
(b) 0.125 :: That would be α₀·α₁·(1 − α₂), but there is no third draft position: after two acceptances the bonus
    token always comes.
(c) 0.5 :: That is P(N ≥ 2) = α₀.

sampling_diagnosis · diagnosis · b
A sampling check over a million steps rejects a verify rule: the tokens the draft likes come out more often than p
    says, and the number of tokens per step is right. Which mistake fits?
(a) It accepts when u ≤ p(x)/q(x) instead of u < p(x)/q(x). :: That changes a step only when u equals the ratio
    exactly, such as u = 0 at a token with p(x) = 0: about once in 2⁵³ draws for numpy's float64 uniforms, which a
    million steps never see.
(b) It draws the replacement from p instead of the residual norm(max(0, p − q)). :: The accepted tokens already
    supply min(p, q); drawing the rest from p adds (1 − α)·p on top, so the tokens the draft covers are
    over-produced.
(c) It drops the bonus token when every draft token passes. :: That changes the number of tokens per step, which the
    check says is right.

# Tokens per step and speedup
speedup_factors · concept · b
In the cost model of notebook 04, what decides the expected speedup over plain decoding?
(a) The acceptance rate α alone. :: α decides how many tokens a step yields for a given γ, but each draft pass costs
    1/c of a target pass.
(b) α, the draft length γ and the cost ratio c together. :: speedup = (1 − α^(γ+1)) / ((1 − α)(1 + γ/c)): α and γ
    give the tokens per step, γ and c its cost.
(c) Only γ: more draft tokens always mean more speed. :: Past the best γ an extra draft pass adds fewer tokens than
    the step already earns in the time that pass takes.

below_break_even · concept · a
The draft gets slower until c < 1/α (equivalently α < 1/c). What happens?
(a) Every draft length γ ≥ 1 is slower than plain decoding. :: Some γ helps exactly when α > 1/c: the average of α,
    α², …, α^γ must beat 1/c, and it is largest at γ = 1, where it is α.
(b) The best γ gets longer, to make up for the slow draft. :: A slower draft makes every extra draft token dearer,
    so the best γ shrinks, down to none.
(c) The output is no longer distributed as p. :: Cost never changes the output law; only the rule does.

tokens_from_position_rates · application · a
The draft tokens of a step with γ = 3 are accepted with probabilities α₀ = 0.9, α₁ = 0.8 and α₂ = 0.5 (each given
    that the ones before it passed). What is E[N], the expected number of tokens the step yields?
(a) 2.98 :: N ≥ k + 1 needs the first k draft tokens accepted, so E[N] = Σₖ P(N ≥ k) = 1 + 0.9 + 0.9·0.8 +
    0.9·0.8·0.5 = 1 + 0.9 + 0.72 + 0.36 = 2.98.
(b) 3.2 :: 1 + 0.9 + 0.8 + 0.5 counts every position as if it were always reached; position i is tested only if
    every one before it passed, so its term is the product α₀·…·αᵢ.
(c) About 2.67 :: That is (1 − α^(γ+1))/(1 − α) at the mean α ≈ 0.733. The closed form holds when every position has
    the same α; with different rates, add the products.

predict_speedup · application · c
α = 0.8, γ = 4, and a draft pass costs 1/20 of a target pass (c = 20). What speedup over plain decoding does the
    cost model predict?
(a) About 3.36× :: That is E[N] = (1 − 0.8⁵)/(1 − 0.8), the tokens per step; the step also costs 1 + γ/c = 1.2
    target passes.
(b) 5× :: γ + 1 = 5 tokens per step is the ceiling, reached only when all four draft tokens pass (0.8⁴ ≈ 41% of the
    steps), and the draft passes cost time too.
(c) About 2.80× :: A step yields (1 − 0.8⁵)/(1 − 0.8) ≈ 3.36 tokens for 1 + 4/20 = 1.2 target passes: 3.36/1.2 ≈
    2.80.

# Where the time goes
verify_pass_time · application · a
In the roofline cost model, a 70B target at batch 1 at one H100 SXM's speeds (about 295 FLOPs per byte read; its
    141 GB of weights would in fact need two of them) takes about 42 ms for a pass over one position. About how long
    does the verify pass over γ + 1 = 5 positions take?
(a) About 42 ms, the same as over one position. :: At batch 1 the pass does about 5 FLOPs per byte it reads, far
    below 295: reading the weights sets the time, and one read serves all five positions. In this cost model the two
    times are equal; real kernels lose a little before the bend.
(b) About 210 ms: five positions cost five passes. :: That would hold if the arithmetic set the time. At batch 1 the
    reading of 141 GB of weights does, and the five positions share one read.
(c) About 42 ms plus the four draft passes. :: The draft passes come before the verify pass and are counted in the
    step's cost, 1 + γ/c; the verify pass itself is one target pass.

implied_speedup · application · a
At batch 1 a target pass takes 40 ms and a draft pass 0.8 ms, and the verify pass costs one target pass. With γ = 4
    and α = 0.8, what speedup should you expect?
(a) About 3.1× :: c = 40/0.8 = 50, so a step costs 1 + 4/50 = 1.08 target passes and yields (1 − 0.8⁵)/(1 − 0.8) ≈
    3.36 tokens: 3.36/1.08 ≈ 3.11×.
(b) About 3.4× :: 3.36 is the tokens per step; the four draft passes add 4 × 0.8 = 3.2 ms to every 40 ms target
    pass.
(c) About 50× :: 50 is c, how much cheaper a draft pass is. A step yields at most γ + 1 = 5 tokens, so no speedup
    can pass 5×.

large_batch_slowdown · diagnosis · b
A server decodes 512 sequences of Llama 3.1 70B at once (its grouped-query attention keeps 320 KiB of KV cache
    per token), with contexts of about 1,000 tokens. With speculative decoding on, it produces fewer tokens per
    second than without. What is the likely cause?
(a) α falls when many sequences share the accelerator. :: α depends only on the two models' distributions at each
    position, not on how many sequences share a pass.
(b) The verify pass scores 512 × (γ + 1) positions: far past the chip's FLOPs per byte, it is compute-bound and
    costs several plain passes. :: At batch 1 the extra positions ride along with the one read of the weights; at a
    large batch the arithmetic sets the time, and every position costs its share, more than the extra tokens save.
    (Where the KV cache dominates the bytes, at long contexts or with a target whose cache per token is several
    times larger, the verify pass stays memory-bound to much larger batches.)
(c) The draft's passes turn compute-bound first. :: A draft pass scores one position per sequence, 512 in all, so it
    turns compute-bound later than the verify pass, which scores 512 × (γ + 1).

# Acceptance, divergence and temperature
greedy_alpha · concept · b
Does greedy decoding (temperature 0 for both models) change the acceptance rate α?
(a) No: α depends only on the two models. :: α depends on the distributions actually used, and temperature changes
    them.
(b) Yes: each position's α becomes 1 where the argmaxes agree and 0 where they do not. For real model pairs the
    average is usually higher than at T = 1. :: Leviathan et al. (arxiv.org/abs/2211.17192, Table 3) measure T5-small
    drafting for T5-XXL on English→German 0.75 greedy against 0.62 at T = 1, and greedy α higher or equal for every
    pair but one (a 6M draft for a 97M target, 0.88 against 0.89):
    one likely reason is that real models often agree on the argmax of easy tokens. The Gaussian toy logits of
    notebook 06 do not, which is why the toy shows the opposite.
(c) Yes: greedy decoding always makes α = 0. :: Only where the two argmaxes differ.

kl_and_alpha · application · c
p = (0.99, 0.01) and q = (1, 0). KL(p‖q) is infinite. What is α?
(a) 0, because the divergence is infinite. :: α measures the overlap Σ min(p, q), which is 0.99 here; KL blows up
    because q calls a possible token impossible.
(b) Undefined. :: α = Σ min(p, q) is defined for every pair of rows.
(c) 0.99 :: min(0.99, 1) + min(0.01, 0) = 0.99. A huge KL can go with a high α.

processed_draft · diagnosis · b
The draft samples its tokens after top-k filtering, but the ratio p(x)/q(x) uses its unfiltered softmax. What goes
    wrong?
(a) Nothing: any q works in the rule. :: Any q works only if the draft tokens are really drawn from that same q.
(b) The output is no longer distributed as p: the q in the ratio is not the law the draft tokens came from. :: The
    proof needs P(draft proposes x) = q(x). With filtering, tokens inside the top k are proposed more often than the
    unfiltered q says.
(c) Only α changes; the output law is still p. :: The output law changes too; a sampling check like notebook 03's
    catches it.

# Real text
ngram_clock · concept · b
In notebook 07 the 3-gram draft passes about half of its characters (α ≈ 0.55) and a target call yields about two
    characters, yet speculative generation with n-gram models is slower by the clock. Why?
(a) The rule is implemented wrongly there. :: It is the same core code as everywhere; the output law is right.
(b) A target look-up costs only a few draft look-ups (c of a few, not tens), and the γ + 1 contexts are looked up
    one after another, not in one pass. :: The speedup rests on a cheap draft and on scoring γ + 1 positions for the
    price of one; neither holds for counting models.
(c) Because characters are shorter than subword tokens. :: Token size does not decide the clock; the cost ratio c
    does.

alpha_varies · application · c
Half of the target calls on a text fall in contexts with α = 0.9 and half in contexts with α = 0.1 (each step stays
    within one kind of context). With γ = 2, how many tokens does a target call yield on average?
(a) 1.75 :: That is E[N] at the average α = 0.5. E[N] = 1 + α + α² bends upwards, so the easy contexts gain more
    than the hard ones lose: average E[N] over the calls instead.
(b) 3 :: 3 = γ + 1 is the most a step yields, when both draft tokens pass: 81% of the steps in the easy contexts, 1%
    in the hard ones.
(c) 1.91 :: E[N] is 1 + 0.9 + 0.81 = 2.71 in the easy contexts and 1 + 0.1 + 0.01 = 1.11 in the hard ones: (2.71 +
    1.11)/2 = 1.91. Notebook 04's formula at one average α is not the average of E[N] when α varies from step to
    step.

mismatched_vocabularies · diagnosis · c
You fit the draft on one text and the target on another; each numbers its characters in the order it first met them,
    and you pass their rows (of the same length) to the rule as they are. The output still passes the check against p,
    but α is far below what the same two orders reach when fitted on one text. Why?
(a) The draft sees too little context. :: Less context lowers α, but the same orders fitted on one text agree far
    more often.
(b) The rule does not work for character models. :: The rule is the same for any vocabulary, characters or subword
    tokens.
(c) Index i is one character for the draft and another for the target, so the rule compares probabilities of
    different characters. :: The rule stays exact for any q over the target's indices, so the output is still p, but
    the draft rarely agrees with the target. To compare rows index by index, both must number one vocabulary in one
    order: fit both on one text (engines that pair different tokenizers translate between them first).

# Beyond one draft
candidates_acceptance · application · a
k = 3 candidates are tried in turn for one position, accepted with probabilities α₁ = 0.5, α₂ = 0.4 and α₃ = 0.2,
    each given that the candidates before it were rejected. What is the probability that one of them is accepted?
(a) 0.76 :: All three are rejected with probability (1 − 0.5)(1 − 0.4)(1 − 0.2) = 0.24; otherwise one is accepted: 1
    − 0.24 = 0.76. Here each candidate adds less than the one before (0.5, 0.2, 0.06).
(b) 1, since the rates add up to more than 1 :: Each rate holds only once the candidates before it are rejected: 0.5
    + 0.5·0.4 + 0.5·0.6·0.2 = 0.76.
(c) 0.04 :: 0.5·0.4·0.2 is the chance that three draft tokens of a chain all pass. Candidates are alternatives for
    one position: one acceptance is enough.

distinct_candidates · diagnosis · a
Your verifier draws k candidates from q without replacement (all distinct), and tests each as if it were an
    independent draw from q. A chi-square check passes for k = 1 and fails for k = 2. Why?
(a) A candidate drawn without replacement is not distributed as q, and the test assumes it is. :: From the second
    candidate on, the tokens already drawn are excluded, so the candidate's law is not q. As with a processed draft,
    each candidate must be tested with the law it was drawn from.
(b) Two candidates are too few for a chi-square check. :: The check's power grows with the number of samples, not
    with k, and it passed at k = 1 on as many samples.
(c) The check is wrong: distinct candidates are always exact. :: They can be exact with a test built for drawing
    without replacement; tested as independent draws, they move the output away from p.

tree_longest_step · application · b
A token tree of depth 3 and branching 2 (2 + 4 + 8 = 14 draft tokens) is verified in one target pass. What is the
    most tokens one step can emit?
(a) 15 :: All 14 draft tokens and a bonus token would need every branch kept. The branches are alternatives: an
    accepted token rules out its siblings, so at most one path from the root, 3 tokens deep, is kept.
(b) 4 :: At each depth at most one child is accepted, so a step keeps one root-to-leaf path of 3 tokens and adds the
    bonus token: a tree buys more chances per depth, not more depth.
(c) 3 :: One token per depth leaves out the bonus: when a whole path passes, the target's pass also gives the row
    after its leaf, and the bonus token comes from it.

exact_acceptance_cap · diagnosis · c
A verifier takes one draft token x ~ q per position. It accepts far more often than Σ min(p, q), and a chi-square
    check of its output against p fails. What can you conclude?
(a) Nothing yet: a better implementation of the exact rule accepts more often. :: The exact rule accepts exactly Σ
    min(p, q) of the time for given p and q; no implementation of it accepts more.
(b) It must try several candidates per position. :: Several candidates tried in turn raise acceptance and keep the
    output exactly p, so the check would pass.
(c) It is a lossy rule, such as typical acceptance: it buys acceptance by giving up exactness. :: If the output is
    p, x can be accepted at most min(p(x), q(x)) of the time, so any rule that tests one candidate position by
    position and accepts more than Σ min(p, q) cannot output p.

typical_with_perfect_draft · diagnosis · b
You run typical acceptance with a draft equal to the target (q = p), and some draft tokens are still rejected. Is
    that a bug?
(a) Yes: with q = p the draft is perfect, so every rule accepts every draft token. :: The exact rule does, since
    min(1, p/q) = 1. Typical acceptance never looks at q: it keeps x only if p(x) is above a threshold, so a token
    the target finds unlikely is rejected even from a perfect draft.
(b) No: typical acceptance keeps x only when p(x) > min(ε, δ·exp(−H(p))), whatever q is. :: Its test (Medusa,
    arxiv.org/abs/2401.10774) is about the target alone, so even with q = p a drafted token below the bar is
    rejected: the unlikely tokens come out less often than p says and the likely ones more often, so the output is
    not p: the rule trades exactness for acceptance.
(c) Yes: the threshold should use the draft's entropy H(q), not the target's. :: Medusa's threshold uses the
    target's entropy H(p), as here; and from H(q) it would still reject the unlikely tokens.

adaptive_full_acceptance · application · c
Hugging Face transformers' "heuristic" schedule (its default in earlier versions) lengthens γ by 2 after a step
    whose draft tokens all pass and shortens it by 1 otherwise.
    With α ≈ 0.56 at every position and γ = 5, how often does a step lengthen γ?
(a) About 56% of the steps :: 0.56 is the chance that one draft token passes; all five must.
(b) About 44% of the steps :: 0.44 is the chance that the first draft token fails, one way of shortening γ.
(c) About 5.5% of the steps :: All five pass with probability 0.56⁵ ≈ 0.055, so γ mostly shrinks: at this α the
    schedule keeps drafts short.

# How engines draft
deterministic_draft_rule · application · a
Prompt lookup drafts x by copying, so its draft is a point mass on x. The target gives p(x) = 0.3. With what
    probability must the exact rule accept x?
(a) 0.3 :: With q = δₓ the acceptance probability min(1, p(x)/q(x)) is p(x)/1 = 0.3; on a rejection the replacement
    is drawn from norm(max(0, p − δₓ)), p without x, renormalised.
(b) 1, since the draft is certain of x :: The draft's certainty says nothing about the target: accepting always
    would emit x every time instead of 30% of the time.
(c) min(1, p(x)/q(x)) with q the softmax of some draft model :: No model produced x; verifying with a softmax q the
    draft did not sample from changes the output law.

medusa_vs_eagle · concept · b
Medusa head 2 and an EAGLE drafter both guess the token two places after the last verified one. On the papers'
    models (EAGLE, arxiv.org/abs/2401.15077) the EAGLE guess is accepted more often. What is the main reason?
(a) EAGLE's drafter is verified with a more lenient rule. :: EAGLE verifies with the exact rule; the lenient rule,
    if either uses one, is Medusa's typical acceptance (notebook 09). In notebook 10 both are verified exactly.
(b) EAGLE feeds the token it drafted first back in; a Medusa head must guess without knowing it. :: A Medusa head
    reads only the last hidden state, so it averages over every possible next token. EAGLE drafts autoregressively
    at the feature level, conditioning each guess on the tokens before it.
(c) EAGLE's drafter has more layers than the target. :: It has one block; the papers' targets have 32 to 80.

tau_versus_speedup · diagnosis · c
A drafter doubles τ (tokens per target pass) but the measured speedup stays near 1. Which cause fits?
(a) The output law changed. :: An exact rule keeps the law whatever τ is; the law says nothing about time.
(b) τ counts the bonus token, which is free. :: The bonus is part of every step's output and is counted in plain
    decoding too; it cannot cancel a doubling.
(c) Each step also runs several draft passes that cost about as much as the target pass they save. :: Speedup is τ
    divided by a step's cost in target passes: γ draft passes of a large fraction of the target (layer skipping with
    many layers, or a fixed overhead per pass) can eat the whole gain.

# Inside a serving engine
kv_crop_symptom · diagnosis · b
An engine's speculative output at temperature 0 matches plain greedy decoding for the first few tokens, then drifts
    into nonsense, and only after a step that rejected a draft token; steps that accepted everything never start the
    drift. Which bug fits?
(a) The draft's cache is not caught up after a full acceptance. :: That costs acceptance, not correctness: the
    verify rule still uses the q the draft sampled from, so the text stays the target's, and it happens after full
    acceptances, not after rejections.
(b) The target's cache keeps the rejected draft positions. :: After a rejection the verify pass wrote γ + 1 slots
    but only 1 + k may stay; the next pass attends to the γ − k rejected ones, at shifted positions. A step that
    accepts everything has nothing to crop, so it never starts the drift.
(c) The bonus token is drawn from the residual. :: A full acceptance would then be the faulty step, and at
    temperature 0 the residual and p's argmax agree whenever the draft was rejected.

acceptance_length_vs_rate · application · c
vLLM reports mean acceptance length 3.36 with num_speculative_tokens = 4. What is the draft acceptance rate it
    reports beside it, and is that α?
(a) 0.84, and yes, it is α :: (3.36 − 1)/4 is 0.59, not 0.84; and a rate over all drafted tokens counts the tokens
    after a rejection, which are never tested.
(b) 0.84 = 3.36/4, the share of slots used :: The mean acceptance length includes the bonus or resampled token; the
    draft acceptance rate counts only accepted draft tokens: (3.36 − 1)/4.
(c) 0.59 = (3.36 − 1)/4, below α ≈ 0.8 :: E[N] = (1 − α⁵)/(1 − α) = 3.36 at α = 0.8; the rate (E[N] − 1)/γ
    (when every draft carries all γ tokens) is lower than α because every draft token after a rejection counts as
    not accepted (vLLM's definitions: vllm/v1/spec_decode/metrics.py).

speculation_under_load · concept · a
In the cost model, a 70B target with a 1B draft on four H100s, at a 1,024-token context, γ = 1 and α = 0.65,
    speculation makes one request faster even at the largest batch that fits beside the draft. Why can the best
    throughput still be higher without it?
(a) The draft's weights and KV caches take memory, so plain decoding fits a larger batch :: Plain decoding fits b =
    532 and makes about 21,100 tokens/s there; with the draft the largest batch that fits is 477, at about 20,300
    tokens/s.
(b) Speculation changes the output law at large batch :: It does not: each sequence of a batch is verified by the
    exact rule, whatever b is.
(c) The acceptance rate falls with the batch size :: α depends on the draft and the target, not on how many
    sequences share a pass.
""")


def _question_key(value, name, arguments) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a question name (a str), got {type(value).__name__}")
    if value not in QUESTIONS:
        raise ValueError(f"{name} must name a question, one of {', '.join(sorted(QUESTIONS))}; got {value!r}")
    return value


def _letter(value, name, arguments) -> str | None:
    """None, or a letter of the question's choices in either case, as the lower-case letter."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a letter such as 'a' (a str) or None, got {type(value).__name__}")
    choices = QUESTIONS[arguments["key"]].choices
    letter = value.strip().lower()
    if letter not in choices:
        listed = ", ".join(repr(choice) for choice in choices)
        raise ValueError(f"{name} must be one of {listed} for question {arguments['key']!r}, got {value!r}")
    return letter


@checked(key=_question_key)
def question(key) -> Question:
    """The question called `key`; printing it shows the question and its lettered choices.

    >>> print(question("token_count_law"))  # doctest: +ELLIPSIS
    token_count_law: A step has γ = 2 draft tokens ...
    """
    return QUESTIONS[key]


@checked(key=_question_key, answer=_letter)
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
    item = QUESTIONS[key]
    if answer is None:
        letters = ", ".join(repr(letter) for letter in item.choices)
        return Feedback(key, None, f"no answer yet. Replace None with one of {letters} and run the cell again.")
    choice = item.choices[answer]
    if answer == item.answer:
        return Feedback(key, True, f"Right. {choice.why}")
    return Feedback(key, False, f"Not quite. {choice.why} Try another letter.")
