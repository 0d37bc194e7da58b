"""The inputs every exercise is checked on: the worked examples, edge cases and seeded random ones.

A `Case` keeps its inputs frozen and hands out fresh, writable copies (and a fresh generator) on
every call of `Case.arguments`. Worked examples come first, then small random cases, then edge
cases, then larger random ones (up to V = 64 tokens; verify steps of up to γ = 8 draft tokens).

What is simplified: the random rows are Dirichlet draws (as `specdec.narrate.random_rows` makes
them), not language models; what the exercises check is the rule, which must hold for any rows.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from ..core import SPEC_DRAFT_PROBS, SPEC_TARGET_PROBS, rigged_generator, sample_draft, speedup


@dataclass(frozen=True)
class Case:
    """One set of inputs: a `label` in words, the `inputs` by name (read-only arrays, tuples), the
    `seed` of the generator handed over last as ``rng`` (its exact `first_uniform` if set), `tags` for
    naming a mistake, the digits arrays are shown with, and the `source`: "worked", "paper" (Leviathan
    et al.), "edge" or "random"."""

    label: str
    inputs: tuple
    seed: int | None = None
    first_uniform: float | None = None
    tags: frozenset = field(default_factory=frozenset)
    precision: int = 4
    source: str = "edge"

    @property
    def parameters(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.inputs) + (() if self.seed is None else ("rng",))

    def arguments(self) -> tuple:
        """Fresh copies of the inputs, in order, then a fresh generator if the case has one."""
        fresh = tuple(np.array(value) if isinstance(value, np.ndarray) else list(value) if isinstance(value, tuple)
                      else value for _, value in self.inputs)
        return fresh if self.seed is None else fresh + (self.generator(),)

    def generator(self) -> np.random.Generator:
        return np.random.default_rng(self.seed) if self.first_uniform is None else rigged_generator(
            self.first_uniform, self.seed)

    def generator_text(self) -> str:
        if self.first_uniform is None:
            return f"np.random.default_rng({self.seed})"
        return (f"rigged_generator({self.first_uniform!r}, seed={self.seed})\n"
                f"# from specdec.broken_rules: its first rng.random() returns exactly {self.first_uniform!r}")


def frozen(array_like) -> np.ndarray:
    array = np.array(array_like, dtype=np.float64)
    array.setflags(write=False)
    return array


def _random_rows(gamma: int, vocab: int, closeness: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """Dirichlet(0.5) target rows and draft rows closeness·p + (1 − closeness)·d."""
    def dirichlet(count):
        values = rng.dirichlet(np.full(vocab, 0.5), size=count) + 1e-9
        return values / values.sum(axis=1, keepdims=True)
    target, independent = dirichlet(gamma + 1), dirichlet(gamma)
    draft = closeness * target[:-1] + (1.0 - closeness) * independent
    return target, draft / draft.sum(axis=1, keepdims=True)


def _pair(label, target, draft, tags=(), source="edge", precision=4) -> Case:
    return Case(label, (("target", frozen(target)), ("draft", frozen(draft))), tags=frozenset(tags),
                precision=precision, source=source)


def _random_pair(seed: int, vocab: int, closeness: float) -> Case:
    target, draft = _random_rows(1, vocab, closeness, np.random.default_rng(seed))
    return _pair(f"random pair (V = {vocab}, seed {seed})", target[0], draft[0], source="random")


@functools.cache
def pair_cases() -> tuple[Case, ...]:
    """The cases of acceptance_rate and residual_distribution: pairs (p, q)."""
    equal = _random_rows(0, 5, 1.0, np.random.default_rng(11))[0][0]
    spread = _random_rows(1, 6, 0.0, np.random.default_rng(12))[1][0]
    small = [_random_pair(100 + i, v, c) for i, (v, c) in enumerate([(2, 0.0), (3, 0.5), (4, 0.2), (5, 0.8), (3, 0.0),
                                                                      (6, 0.6)])]
    edges = [_pair("p equal to q", equal, equal.copy(), tags={"zero_residual"}),
             _pair("p ≤ q everywhere up to rounding: 1 − α is 1e-9, yet max(0, p − q) has no mass",
                   [0.5 - 1e-9, 0.5], [0.5, 0.5], tags={"zero_residual"}, precision=12),
             _pair("no overlap: p and q on different tokens", [0.6, 0.4, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5]),
             _pair("a token neither model can produce (p(x) = q(x) = 0)", [0.5, 0.5, 0.0], [0.2, 0.8, 0.0],
                   tags={"zero_over_zero"}),
             _pair("p puts all its mass on one token", np.eye(6)[2], spread)]
    large = [_random_pair(200 + i, v, c) for i, (v, c) in enumerate(
        [(8, 0.5), (12, 0.0), (16, 0.9), (20, 0.3), (32, 0.7), (40, 0.1), (50, 0.95), (64, 0.5), (64, 0.0), (64, 0.8)])]
    spec = _pair("the worked example", SPEC_TARGET_PROBS[0], SPEC_DRAFT_PROBS[0], source="worked")
    return (spec, *small, *edges, *large)


def step_case(label, target_probs, draft_probs, draft_tokens, seed, first_uniform=None, tags=(), precision=4,
              source="edge") -> Case:
    target = frozen(target_probs)
    draft = frozen(np.reshape(draft_probs, (-1, target.shape[1])))  # γ = 0: shape (0, V)
    inputs = (("target_probs", target), ("draft_probs", draft), ("draft_tokens", tuple(int(t) for t in draft_tokens)))
    return Case(label, inputs, seed, first_uniform, frozenset(tags), precision, source)


def _random_step(seed: int, gamma: int, vocab: int, closeness: float) -> Case:
    rng = np.random.default_rng(seed)
    target, draft = _random_rows(gamma, vocab, closeness, rng)
    tokens = sample_draft(draft, rng) if gamma else []
    return step_case(f"random step (γ = {gamma}, V = {vocab}, seed {seed})", target, draft, tokens, seed,
                     source="random")


@functools.cache
def step_cases() -> tuple[Case, ...]:
    """The cases of `speculative_step`: worked examples, small random steps, three edge cases on a rigged
    generator (u = 0 at a token with p = 0; a u just below 1 where p ≤ q up to rounding, at V = 2 and at a V = 3
    whose fallback p is not uniform), larger steps."""
    spec = [step_case("worked example 1", SPEC_TARGET_PROBS, SPEC_DRAFT_PROBS, [0, 1], 0, source="worked"),
            step_case("worked example 2", SPEC_TARGET_PROBS, SPEC_DRAFT_PROBS, [3, 0], 0, source="worked"),
            step_case("worked example 3", SPEC_TARGET_PROBS, SPEC_DRAFT_PROBS, [0, 0], 3, source="worked"),
            step_case("γ = 0: no draft tokens, only the bonus token", [[0.1, 0.2, 0.7]], [], [], 5,
                      tags={"no_draft_rows"})]
    small = [_random_step(300 + i, g, v, c) for i, (g, v, c) in enumerate(
        [(1, 2, 0.0), (2, 3, 0.5), (1, 4, 0.0), (3, 3, 0.8), (2, 5, 0.3), (3, 4, 0.0), (2, 2, 0.6), (1, 6, 0.9),
         (3, 6, 0.5), (2, 4, 0.0)])]
    edges = [step_case("u = 0 exactly, at a drafted token the target gives probability 0", SPEC_TARGET_PROBS,
                       SPEC_DRAFT_PROBS, [3, 0], seed=1, first_uniform=0.0),
             step_case("p ≤ q everywhere up to rounding, and a u just below 1 rejects", ((0.5 - 1e-9, 0.5), (0.5, 0.5)),
                       ((0.5, 0.5),), (0,), seed=2, first_uniform=1.0 - 2.0**-53, tags={"zero_residual"}, precision=12),
             step_case("the same at V = 3, where the fallback p is not uniform",
                       ((0.2, 0.3, 0.5 - 1e-9), (0.1, 0.2, 0.7)), ((0.2, 0.3, 0.5),), (2,), seed=9,
                       first_uniform=1.0 - 2.0**-53, tags={"zero_residual"}, precision=12)]
    large = [_random_step(400 + i, g, v, c) for i, (g, v, c) in enumerate(
        [(0, 8, 0.5), (4, 8, 0.5), (5, 10, 0.0), (4, 16, 0.9), (6, 12, 0.7), (8, 20, 0.95), (3, 32, 0.2), (5, 24, 0.6),
         (7, 40, 0.8), (8, 64, 0.9), (6, 64, 0.5), (2, 50, 0.0), (8, 8, 0.99), (4, 64, 0.3), (1, 64, 0.0),
         (8, 30, 0.85)])]
    return (*spec, *small, *edges, *large)


def _scalars(label, tags=(), source="edge", **values) -> Case:
    return Case(label, tuple(values.items()), tags=frozenset(tags), source=source)


@functools.cache
def expected_tokens_cases() -> tuple[Case, ...]:
    """The cases of expected_tokens: (α, γ)."""
    rng = np.random.default_rng(7)
    return (_scalars("worked example (α = 0.8)", source="worked", alpha=0.8, gamma=4),
            _scalars("worked example (α = 1: every draft token passes)", {"alpha_one"}, "worked", alpha=1.0, gamma=4),
            _scalars("worked example (α = 0)", source="worked", alpha=0.0, gamma=4),
            _scalars("γ = 0: no draft tokens", alpha=0.7, gamma=0),
            _scalars("α = 1 and γ = 0", {"alpha_one"}, alpha=1.0, gamma=0),
            _scalars("α = 1, γ = 9", {"alpha_one"}, alpha=1.0, gamma=9),
            _scalars("α close to 1", alpha=0.999, gamma=8),
            _scalars("α within 10⁻⁶ of 1", alpha=1.0 - 1e-6, gamma=3),
            *(_scalars("seeded random α and γ", source="random", alpha=float(rng.random()),
                       gamma=int(rng.integers(1, 21))) for _ in range(15)))


#: The table of best draft lengths the notebooks teach: (α, c, best γ).
BEST_GAMMA_TABLE = ((0.6, 10, 3), (0.6, 20, 4), (0.6, 50, 6), (0.7, 10, 4), (0.7, 20, 6), (0.7, 50, 8),
                    (0.8, 10, 6), (0.8, 20, 8), (0.8, 50, 11), (0.9, 10, 10), (0.9, 20, 13), (0.9, 50, 19))
#: Leviathan et al., Table 1: a free draft (c = ∞) at the γ they list.
FREE_DRAFT_TABLE = ((0.6, 2), (0.7, 3), (0.8, 5), (0.9, 10))


@functools.cache
def speedup_cases() -> tuple[Case, ...]:
    """The cases of speedup: (α, γ, c)."""
    rng = np.random.default_rng(8)
    return (*(_scalars(f"the table of best γ (α = {a}, c = {c}, its best γ)", source="worked", alpha=a, gamma=g, c=c)
              for a, c, g in BEST_GAMMA_TABLE),
            *(_scalars("a free draft, c = ∞ (Leviathan et al., Table 1)", {"free_draft"}, "paper", alpha=a, gamma=g,
                       c=math.inf) for a, g in FREE_DRAFT_TABLE),
            _scalars("γ = 0: plain decoding", alpha=0.7, gamma=0, c=10),
            _scalars("α = 1: every draft token passes", {"alpha_one"}, alpha=1.0, gamma=4, c=20),
            _scalars("α = 0: every draft token is rejected", alpha=0.0, gamma=3, c=10),
            _scalars("a draft as slow as the target (c = 1)", alpha=0.9, gamma=2, c=1),
            *(_scalars("seeded random α, γ and c", source="random", alpha=float(rng.random()),
                       gamma=int(rng.integers(1, 21)), c=float(rng.uniform(1.5, 100))) for _ in range(10)))


@functools.cache
def optimal_gamma_cases() -> tuple[Case, ...]:
    """The cases of optimal_gamma: (α, c), with no near-tie that rounding could flip."""
    rng = np.random.default_rng(9)
    randoms = []
    while len(randoms) < 8:
        alpha, c = float(rng.uniform(0.3, 0.97)), float(rng.uniform(2, 100))
        values = sorted(speedup(alpha, gamma, c) for gamma in range(1, 21))
        if values[-1] - values[-2] > 1e-6:  # no near-tie that rounding could flip
            randoms.append(_scalars("seeded random α and c", source="random", alpha=alpha, c=c))
    return (*(_scalars(f"the table of best γ (α = {a}, c = {c})", source="worked", alpha=a, c=c)
              for a, c, _ in BEST_GAMMA_TABLE),
            _scalars("a tie: at α = 1 and c = 1 every γ gives speedup 1", {"alpha_one"}, alpha=1.0, c=1),
            _scalars("α = 1, c = 50: the longest draft wins", {"alpha_one"}, alpha=1.0, c=50),
            _scalars("α = 0: drafting only costs", alpha=0.0, c=10), *randoms)
