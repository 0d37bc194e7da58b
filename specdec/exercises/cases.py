"""The inputs every exercise is checked on: the worked examples, chosen edge cases and seeded random ones.

A `Case` keeps its inputs frozen (read-only arrays, tuples) and hands out fresh, writable copies on
every call of `Case.arguments`, so the learner's function, the reference and each known mistake all
start from the same inputs and the same generator state, and a function that changes its inputs is
caught by comparing them afterwards. The first failure a learner sees is on small inputs: worked
examples first, then small random ones, then edge cases, then larger random ones (up to V = 64
tokens and γ = 8 draft tokens, the bounds the notebooks work within).

What is simplified: the random rows are Dirichlet draws (`specdec.rows.random_rows`), not language
models; what the exercises check is the rule, which must hold for any rows.

>>> [case.label for case in expected_tokens_cases()[:3]]
['worked example (α = 0.8)', 'worked example (α = 1: every draft token passes)', 'worked example (α = 0)']
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from .. import rows
from ..broken_rules import EDGE_CASES, rigged_generator
from ..core import sample_draft
from ..theory import speedup


@dataclass(frozen=True)
class Case:
    """One set of inputs for an exercise.

    Attributes
    ----------
    label : str
        What the case is, in words ("the worked example", "random pair (V = 16, seed 3)").
    inputs : tuple of (str, object)
        The arguments by name, frozen. For `speculative_step` the generator is not among them: it is
        made fresh from `seed` (and `first_uniform`) and handed over last, as ``rng``.
    seed, first_uniform : int or None, float or None
        The generator's seed; if `first_uniform` is set, its first ``rng.random()`` is exactly that
        value (`specdec.broken_rules.rigged_generator`).
    tags : frozenset of str
        What is special about the case, for naming a mistake: "alpha_one", "zero_residual",
        "zero_over_zero", "impossible_token_at_u_zero", "tie".
    precision : int
        Digits to show its arrays with; more where rounding is what the case is about.
    source : str
        "worked" (the notebooks' worked examples), "paper" (Leviathan et al.), "edge" or "random".
    """

    label: str
    inputs: tuple
    seed: int | None = None
    first_uniform: float | None = None
    tags: frozenset = field(default_factory=frozenset)
    precision: int = 4
    source: str = "edge"

    @property
    def parameters(self) -> tuple[str, ...]:
        """The parameter names, in order, ``rng`` last where the case has a generator."""
        return tuple(name for name, _ in self.inputs) + (() if self.seed is None else ("rng",))

    def arguments(self) -> tuple:
        """Fresh copies of the inputs, in order, followed by a fresh generator if the case has one.

        >>> case = step_cases()[0]
        >>> target_probs, draft_probs, draft_tokens, rng = case.arguments()
        >>> draft_tokens, rng.random() == np.random.default_rng(0).random()
        ([0, 1], True)
        """
        fresh = tuple(np.array(value) if isinstance(value, np.ndarray) else list(value) if isinstance(value, tuple)
                      else value for _, value in self.inputs)
        return fresh if self.seed is None else fresh + (self.generator(),)

    def generator(self) -> np.random.Generator:
        """A fresh copy of the case's generator, in its starting state."""
        if self.first_uniform is None:
            return np.random.default_rng(self.seed)
        return rigged_generator(self.first_uniform, seed=self.seed)

    def generator_text(self) -> str:
        """How to make the case's generator, as code."""
        if self.first_uniform is None:
            return f"np.random.default_rng({self.seed})"
        return (f"rigged_generator({self.first_uniform!r}, seed={self.seed})\n"
                f"# from specdec.broken_rules: its first rng.random() returns exactly {self.first_uniform!r}")


def _frozen(array_like) -> np.ndarray:
    array = np.array(array_like, dtype=np.float64)
    array.setflags(write=False)
    return array


def _pair_case(label, target, draft, tags=(), source="edge") -> Case:
    return Case(label, (("target", _frozen(target)), ("draft", _frozen(draft))), tags=frozenset(tags), source=source)


def _random_pair(seed: int, vocab: int, closeness: float) -> Case:
    target, draft = rows.random_rows(1, vocab, closeness, np.random.default_rng(seed))
    return _pair_case(f"random pair (V = {vocab}, seed {seed})", target[0], draft[0], source="random")


@functools.cache
def pair_cases() -> tuple[Case, ...]:
    """The cases of acceptance_rate and residual_distribution: pairs (p, q).

    >>> len(pair_cases()) > 20
    True
    """
    equal = rows.random_rows(0, 5, 1.0, np.random.default_rng(11))[0][0]
    spread = rows.random_rows(1, 6, 0.0, np.random.default_rng(12))[1][0]
    small = [_random_pair(100 + i, vocab, closeness)
             for i, (vocab, closeness) in enumerate([(2, 0.0), (3, 0.5), (4, 0.2), (5, 0.8), (3, 0.0), (6, 0.6)])]
    edges = [
        _pair_case("p equal to q", equal, equal.copy(), tags={"zero_residual"}),
        _pair_case("no overlap: p and q on different tokens", [0.6, 0.4, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5]),
        _pair_case("a token neither model can produce (p(x) = q(x) = 0)", [0.5, 0.5, 0.0], [0.2, 0.8, 0.0],
                   tags={"zero_over_zero"}),
        _pair_case("p puts all its mass on one token", np.eye(6)[2], spread),
    ]
    large = [_random_pair(200 + i, vocab, closeness)
             for i, (vocab, closeness) in enumerate(
                 [(8, 0.5), (12, 0.0), (16, 0.9), (20, 0.3), (32, 0.7), (40, 0.1), (50, 0.95), (64, 0.5),
                  (64, 0.0), (64, 0.8)])]
    spec = _pair_case("the worked example", [0.5, 0.3, 0.2, 0.0], [0.25, 0.25, 0.25, 0.25], source="worked")
    return (spec, *small, *edges, *large)


def _step_case(label, target_probs, draft_probs, draft_tokens, seed, first_uniform=None, tags=(), precision=4,
               source="edge") -> Case:
    target = _frozen(target_probs)
    draft = _frozen(draft_probs) if len(draft_probs) else _frozen(np.empty((0, target.shape[1])))
    inputs = (("target_probs", target), ("draft_probs", draft), ("draft_tokens", tuple(int(t) for t in draft_tokens)))
    return Case(label, inputs, seed, first_uniform, frozenset(tags), precision, source)


def _random_step(seed: int, gamma: int, vocab: int, closeness: float) -> Case:
    rng = np.random.default_rng(seed)
    target, draft = rows.random_rows(gamma, vocab, closeness, rng)
    tokens = sample_draft(draft, rng) if gamma else []
    return _step_case(f"random step (γ = {gamma}, V = {vocab}, seed {seed})", target, draft, tokens, seed,
                      source="random")


@functools.cache
def step_cases() -> tuple[Case, ...]:
    """The cases of `speculative_step`: the worked examples, small random steps, the two edge cases of
    `specdec.broken_rules.EDGE_CASES` on a rigged generator, then larger random steps."""
    spec_rows = (rows.SPEC_TARGET_PROBS, rows.SPEC_DRAFT_PROBS)
    spec = [
        _step_case("worked example 1", *spec_rows, [0, 1], 0, source="worked"),
        _step_case("worked example 2", *spec_rows, [3, 0], 0, source="worked"),
        _step_case("worked example 3", *spec_rows, [0, 0], 3, source="worked"),
        _step_case("γ = 0: no draft tokens, only the bonus token", [[0.1, 0.2, 0.7]], [], [], 5),
    ]
    small = [_random_step(300 + i, gamma, vocab, closeness)
             for i, (gamma, vocab, closeness) in enumerate(
                 [(1, 2, 0.0), (2, 3, 0.5), (1, 4, 0.0), (3, 3, 0.8), (2, 5, 0.3), (3, 4, 0.0), (2, 2, 0.6),
                  (1, 6, 0.9), (3, 6, 0.5), (2, 4, 0.0)])]
    on_equal, no_fallback = EDGE_CASES["accept_on_equal"], EDGE_CASES["residual_without_fallback"]
    edges = [
        _step_case("u = 0 exactly, at a drafted token the target gives probability 0", *on_equal.example,
                   seed=1, first_uniform=on_equal.fatal_uniform, tags={"impossible_token_at_u_zero"}),
        _step_case("p ≤ q everywhere up to rounding, and a u just below 1 rejects", *no_fallback.example,
                   seed=2, first_uniform=no_fallback.fatal_uniform, tags={"zero_residual"}, precision=12),
    ]
    large = [_random_step(400 + i, gamma, vocab, closeness)
             for i, (gamma, vocab, closeness) in enumerate(
                 [(0, 8, 0.5), (4, 8, 0.5), (5, 10, 0.0), (4, 16, 0.9), (6, 12, 0.7), (8, 20, 0.95),
                  (3, 32, 0.2), (5, 24, 0.6), (7, 40, 0.8), (8, 64, 0.9), (6, 64, 0.5), (2, 50, 0.0),
                  (8, 8, 0.99), (4, 64, 0.3), (1, 64, 0.0), (8, 30, 0.85)])]
    return (*spec, *small, *edges, *large)


def _scalars(label, tags=(), source="edge", **values) -> Case:
    return Case(label, tuple(values.items()), tags=frozenset(tags), source=source)


@functools.cache
def expected_tokens_cases() -> tuple[Case, ...]:
    """The cases of expected_tokens: (α, γ)."""
    spec = [
        _scalars("worked example (α = 0.8)", source="worked", alpha=0.8, gamma=4),
        _scalars("worked example (α = 1: every draft token passes)", tags={"alpha_one"}, source="worked",
                 alpha=1.0, gamma=4),
        _scalars("worked example (α = 0)", source="worked", alpha=0.0, gamma=4),
    ]
    edges = [
        _scalars("γ = 0: no draft tokens", alpha=0.7, gamma=0),
        _scalars("α = 1 and γ = 0", tags={"alpha_one"}, alpha=1.0, gamma=0),
        _scalars("α = 1, γ = 9", tags={"alpha_one"}, alpha=1.0, gamma=9),
        _scalars("α close to 1", alpha=0.999, gamma=8),
        _scalars("α within 10⁻⁶ of 1", alpha=1.0 - 1e-6, gamma=3),
    ]
    rng = np.random.default_rng(7)
    randoms = [_scalars("seeded random α and γ", source="random", alpha=float(rng.random()),
                        gamma=int(rng.integers(1, 21))) for _ in range(15)]
    return (*spec, *edges, *randoms)


# The table of best draft lengths the notebooks teach: (α, c) -> best γ; speedup at that γ is checked too.
BEST_GAMMA_TABLE = (
    (0.6, 10, 3), (0.6, 20, 4), (0.6, 50, 6),
    (0.7, 10, 4), (0.7, 20, 6), (0.7, 50, 8),
    (0.8, 10, 6), (0.8, 20, 8), (0.8, 50, 11),
    (0.9, 10, 10), (0.9, 20, 13), (0.9, 50, 19),
)
# Leviathan et al., Table 1: a free draft (c = ∞) at the γ they list.
FREE_DRAFT_TABLE = ((0.6, 2), (0.7, 3), (0.8, 5), (0.9, 10))


@functools.cache
def speedup_cases() -> tuple[Case, ...]:
    """The cases of speedup: (α, γ, c)."""
    spec = [_scalars(f"the table of best γ (α = {alpha}, c = {c}, its best γ)", source="worked",
                     alpha=alpha, gamma=gamma, c=c)
            for alpha, c, gamma in BEST_GAMMA_TABLE]
    free = [_scalars("a free draft, c = ∞ (Leviathan et al., Table 1)", source="paper", alpha=alpha, gamma=gamma,
                     c=math.inf)
            for alpha, gamma in FREE_DRAFT_TABLE]
    edges = [
        _scalars("γ = 0: plain decoding", alpha=0.7, gamma=0, c=10),
        _scalars("α = 1: every draft token passes", tags={"alpha_one"}, alpha=1.0, gamma=4, c=20),
        _scalars("α = 0: every draft token is rejected", alpha=0.0, gamma=3, c=10),
        _scalars("a draft as slow as the target (c = 1)", alpha=0.9, gamma=2, c=1),
    ]
    rng = np.random.default_rng(8)
    randoms = [_scalars("seeded random α, γ and c", source="random", alpha=float(rng.random()),
                        gamma=int(rng.integers(1, 21)), c=float(rng.uniform(1.5, 100))) for _ in range(10)]
    return (*spec, *free, *edges, *randoms)


@functools.cache
def optimal_gamma_cases() -> tuple[Case, ...]:
    """The cases of optimal_gamma: (α, c), with no near-tie that rounding could flip."""
    spec = [_scalars(f"the table of best γ (α = {alpha}, c = {c})", source="worked", alpha=alpha, c=c)
            for alpha, c, _ in BEST_GAMMA_TABLE]
    edges = [
        _scalars("a tie: at α = 1 and c = 1 every γ gives speedup 1", tags={"tie", "alpha_one"}, alpha=1.0, c=1),
        _scalars("α = 1, c = 50: the longest draft wins", tags={"alpha_one"}, alpha=1.0, c=50),
        _scalars("α = 0: drafting only costs", alpha=0.0, c=10),
    ]
    rng = np.random.default_rng(9)
    randoms = []
    while len(randoms) < 8:
        alpha, c = float(rng.uniform(0.3, 0.97)), float(rng.uniform(2, 100))
        values = sorted(speedup(alpha, gamma, c) for gamma in range(1, 21))
        if values[-1] - values[-2] > 1e-6:  # no near-tie that rounding could flip
            randoms.append(_scalars("seeded random α and c", source="random", alpha=alpha, c=c))
    return (*spec, *edges, *randoms)
