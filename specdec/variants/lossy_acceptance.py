"""Lossy shortcuts: acceptance tests that accept more than the exact rule, and what they cost.

At one position the draft proposes x ~ q; a rule accepts it with probability a(x); on rejection it
emits a replacement drawn from some law R. The output law is then

    P(output = x) = q(x)·a(x) + (1 − A)·R(x),   with A = Σₓ q(x)·a(x) the acceptance rate.

The exact rule has a(x) = min(1, p(x)/q(x)) and R = norm(max(0, p − q)), which makes the law p.
The shortcuts here trade that exactness for acceptance:

* ``"typical"`` — Medusa's typical acceptance (Cai et al. 2024, https://arxiv.org/abs/2401.10774):
  accept x when p(x) > min(ε, δ·exp(−H(p))), where H(p) = −Σ p log p is the entropy of p in nats.
  A flat p (high entropy) lowers the bar. On rejection, here, a fresh draw from p replaces x: R = p.
  (Medusa's code by default, ``fast=True``, emits the target's argmax instead; with ``fast=False`` it
  samples p without the tokens below the bar.)
  The Medusa code's defaults are ε = 0.09 (``posterior_threshold``) and δ = 0.3
  (``posterior_alpha``), https://github.com/FasterDecoding/Medusa.
* ``"lenient"`` — accept x outright when p(x)/q(x) ≥ λ (λ ≤ 1), and otherwise with the exact
  probability p(x)/q(x); on rejection R is the exact residual. λ = 1 is the exact rule; a smaller
  λ accepts more.
* ``"greedy"`` — greedy top-1 matching: accept x only when it is the target's most likely token,
  and otherwise emit that token: R = the point mass at argmax p. The output is always argmax p —
  exact for greedy decoding, far from p for sampling.

Every law here is exact (no sampling): `lossy_law` computes it; `sample_lossy` draws from a rule
so that the tests can check the law by sampling.

Order of random draws in `trace_lossy`: one ``rng.random()`` for the accept test of the exact and
lenient rules (none for typical and greedy, whose tests are deterministic); then, on rejection,
one ``rng.choice(V, p=R)`` (none for greedy, whose replacement is fixed).

What is simplified: one position. In Medusa the candidates come from extra decoding heads and are
organised in a tree, the first token of each step comes from the base model, and a temperature is
applied to p before the test; here p and q are given rows.

>>> law = lossy_law("greedy", [0.5, 0.3, 0.2, 0.0], [0.25] * 4)
>>> law.output, law.acceptance, law.tv
(array([1., 0., 0., 0.]), 0.25, 0.5)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core import normalised_for_choice, unchecked_residual
from ..validation import Constraint, Count, Distribution, Generator, OneOf, PositiveFraction, checked
from .multi_candidate import draw_categorical

#: The rules, in the order the notebook shows them.
LOSSY_RULES = ("exact", "typical", "lenient", "greedy")

#: Medusa's default hard threshold ε (``posterior_threshold``) and entropy factor δ (``posterior_alpha``).
MEDUSA_EPSILON = 0.09
MEDUSA_DELTA = 0.3


class ProposedToken(Constraint):
    """A token id the draft `draft` could propose: an int in 0 … V − 1 with q(x) > 0."""

    def __call__(self, token, name, arguments):
        draft = arguments["draft"]
        if isinstance(token, (bool, np.bool_)) or not isinstance(token, (int, np.integer)):
            raise TypeError(f"{name} must be an integer token id, got {token!r} of type {type(token).__name__}")
        token = int(token)
        if not 0 <= token < draft.size or not draft[token] > 0:
            raise ValueError(f"{name} must be a token the draft could propose (0 … {draft.size - 1} with q(x) > 0), got {token}")
        return token


#: What every rule here is given: the rule, p and q, Medusa's ε and δ, and λ.
RULE_SETTINGS = dict(rule=OneOf(*LOSSY_RULES), target=Distribution(), draft=Distribution(like="target"),
                     epsilon=PositiveFraction(), delta=PositiveFraction(), lenience=PositiveFraction())


@checked(target=Distribution())
def entropy(target) -> float:
    """H(p) = −Σ p log p in nats (terms with p(x) = 0 contribute 0).

    >>> round(entropy([0.5, 0.5]), 4)
    0.6931
    """
    positive = target[target > 0]
    return float(max(0.0, -np.sum(positive * np.log(positive))))


@checked(target=Distribution(), epsilon=PositiveFraction(), delta=PositiveFraction())
def typical_threshold(target, epsilon=MEDUSA_EPSILON, delta=MEDUSA_DELTA) -> float:
    """Medusa's bar for p(x): min(ε, δ·exp(−H(p))).

    >>> round(typical_threshold([0.25] * 4), 4)  # flat p: exp(−H) = 1/4
    0.075
    >>> typical_threshold([1.0, 0.0])  # certain p: exp(−H) = 1
    0.09
    """
    return min(epsilon, delta * math.exp(-entropy.__wrapped__(target)))


@checked(**RULE_SETTINGS)
def acceptance_probabilities(rule, target, draft, *, epsilon=MEDUSA_EPSILON, delta=MEDUSA_DELTA,
                             lenience=1.0) -> np.ndarray:
    """a(x): the probability that `rule` accepts token x when the draft proposes it.

    Examples
    --------
    >>> acceptance_probabilities("lenient", [0.5, 0.3, 0.2, 0.0], [0.25] * 4, lenience=0.5)
    array([1., 1., 1., 0.])
    >>> acceptance_probabilities("typical", [0.5, 0.3, 0.2, 0.0], [0.25] * 4)
    array([1., 1., 1., 0.])
    """
    return _acceptance(rule, target, draft, epsilon, delta, lenience)


def _acceptance(rule, p, q, epsilon, delta, lenience) -> np.ndarray:
    if rule == "greedy":
        accept = np.zeros(p.size)
        accept[int(np.argmax(p))] = 1.0
        return accept
    if rule == "typical":
        return (p > typical_threshold.__wrapped__(p, epsilon, delta)).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(q > 0, p / np.where(q > 0, q, 1.0), np.inf)
    exact = np.minimum(1.0, ratio)
    if rule == "exact":
        return exact
    return np.where(ratio >= lenience, 1.0, exact)


def _replacement(rule, p, q) -> np.ndarray:
    if rule == "typical":
        return p.copy()
    if rule == "greedy":
        point = np.zeros(p.size)
        point[int(np.argmax(p))] = 1.0
        return point
    return unchecked_residual(p, q)


@dataclass(frozen=True)
class LossyLaw:
    """The exact output law of one rule at one position."""

    rule: str
    accept: np.ndarray
    """a(x)."""
    accepted: np.ndarray
    """q(x)·a(x): P(x is drafted and accepted)."""
    replacement: np.ndarray
    """R: the law of the token emitted after a rejection."""
    output: np.ndarray
    """q·a + (1 − A)·R."""
    acceptance: float
    """A = Σ q·a."""
    tv: float
    """TV(output, p) = ½ Σ |output − p|: 0 for the exact rule."""


@checked(**RULE_SETTINGS)
def lossy_law(rule, target, draft, *, epsilon=MEDUSA_EPSILON, delta=MEDUSA_DELTA, lenience=1.0) -> LossyLaw:
    """The exact output law, acceptance rate and TV distance from p of one rule at one position.

    Parameters
    ----------
    rule : {"exact", "typical", "lenient", "greedy"}
    target, draft : array_like of shape (V,)
    epsilon, delta : float in (0, 1]
        Medusa's hard threshold and entropy factor (used by "typical").
    lenience : float in (0, 1]
        λ of "lenient": accept outright when p(x)/q(x) ≥ λ.

    Examples
    --------
    >>> law = lossy_law("lenient", [0.5, 0.3, 0.2, 0.0], [0.25] * 4, lenience=0.5)
    >>> law.acceptance, law.output.round(3), round(law.tv, 3)
    (0.75, array([0.458, 0.292, 0.25 , 0.   ]), 0.05)
    """
    p, q = target, draft
    accept = _acceptance(rule, p, q, epsilon, delta, lenience)
    accepted = q * accept
    acceptance = min(1.0, float(accepted.sum()))
    replacement = _replacement(rule, p, q)
    output = accepted + (1.0 - acceptance) * replacement
    return LossyLaw(rule, accept, accepted, replacement, output, acceptance, float(0.5 * np.abs(output - p).sum()))


@dataclass(frozen=True)
class LossyTrace:
    """What one rule did at one position: the test, the draw it made, and the emitted token."""

    rule: str
    draft_token: int
    acceptance_probability: float
    """a(x) for the draft token x: 0 or 1 for the typical and greedy rules."""
    uniform: float | None
    """The uniform compared with a(x); None for the deterministic tests (typical, greedy)."""
    accepted: bool
    replacement: np.ndarray | None
    """On rejection: R, the law the emitted token was drawn from (a point mass for greedy)."""
    token: int
    """The emitted token."""


@checked(**RULE_SETTINGS, token=ProposedToken(), rng=Generator())
def trace_lossy(rule, target, draft, token, rng, *, epsilon=MEDUSA_EPSILON, delta=MEDUSA_DELTA,
                lenience=1.0) -> LossyTrace:
    """One position verified by `rule`, with its test and draws recorded; ``.token`` is what it emits.

    `token` is the draft token, one the draft could propose (q(x) > 0); `epsilon`, `delta` and
    `lenience` are as in `lossy_law`.

    Examples
    --------
    >>> import numpy as np
    >>> trace = trace_lossy("lenient", [0.5, 0.3, 0.2, 0.0], [0.25] * 4, 2, np.random.default_rng(0), lenience=0.5)
    >>> trace.acceptance_probability, trace.accepted, trace.token
    (1.0, True, 2)
    """
    p, q = target, draft
    accept = _acceptance(rule, p, q, epsilon, delta, lenience).item(token)
    uniform = None
    if rule in ("exact", "lenient"):
        uniform = rng.random()
        accepted = uniform < accept
    else:
        accepted = accept == 1.0
    if accepted:
        return LossyTrace(rule, token, accept, uniform, True, None, token)
    replacement = _replacement(rule, p, q)
    if rule == "greedy":
        emitted = int(np.argmax(p))
    else:
        emitted = int(rng.choice(p.size, p=normalised_for_choice(replacement)))
    return LossyTrace(rule, token, accept, uniform, False, replacement, emitted)


@checked(**RULE_SETTINGS, n=Count(), rng=Generator())
def sample_lossy(rule, target, draft, n, rng, *, epsilon=MEDUSA_EPSILON, delta=MEDUSA_DELTA, lenience=1.0) -> np.ndarray:
    """n independent positions verified by `rule`, draft tokens drawn from q, vectorised.

    Same law as `trace_lossy` on draft tokens from q; the random stream differs.

    Examples
    --------
    >>> import numpy as np
    >>> tokens = sample_lossy("typical", [0.5, 0.3, 0.2, 0.0], [0.25] * 4, 40_000, np.random.default_rng(0))
    >>> (np.bincount(tokens, minlength=4) / 40_000).round(2)  # the law is (0.375, 0.325, 0.3, 0)
    array([0.37, 0.33, 0.3 , 0.  ])
    """
    p, q = target, draft
    accept = _acceptance(rule, p, q, epsilon, delta, lenience)
    uniforms = rng.random((3, n))
    drafted = draw_categorical(q, uniforms[0])
    kept = uniforms[1] < accept[drafted]
    replacement = draw_categorical(_replacement(rule, p, q), uniforms[2])
    return np.where(kept, drafted, replacement)
