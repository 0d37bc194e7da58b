"""Temperature, top-k and top-p on both sides of the verify step, and two ways of getting it wrong.

A request's sampling parameters define the law the target alone would sample from:
p̃ = top-p(top-k(softmax(z_p / T))), renormalised. Speculative decoding keeps that law exactly when

1. the verifier compares against p̃ (the processed target row, not the raw one), and
2. the q in the ratio min(1, p̃(x)/q(x)) and in the residual is *the law the draft token was drawn
   from*: whatever the draft did to its own row, in the precision it sampled with.

The draft may sample from its raw row (its softmax at the request's temperature, without top-k and top-p), or
from its row shaped like the target's (often, not always, accepted more often): both are exact as long as rule
2 holds. The broken variants (`SAMPLING_RULES`):

* ``"target_only"``: the processors shape the target's row and the draft's sampling, but the
  draft probabilities handed to the verifier are its raw row, without top-k and top-p (one side of
  the verify sees those processors, the other does not);
  vLLM issue #9834 (https://github.com/vllm-project/vllm/issues/9834) reports the mirror case, the
  request's parameters reaching the draft's row but not the target's in the verification step;
* ``"low_precision_draft"``: the draft samples from a row computed from bf16-rounded logits, and
  the verifier uses the full-precision row (DeepSpec issue #31,
  https://github.com/deepseek-ai/DeepSpec/issues/31, reports a precision mismatch of this kind).

`output_law` gives each rule's exact law of the emitted token (one draft position), so the size of
the error, and the sample size a chi-square test needs to see it, are known in advance.

>>> import numpy as np
>>> z_p, z_q = np.array([2.0, 1.0, 0.0, -1.0]), np.array([0.0, 1.0, 2.0, 0.0])
>>> settings = dict(temperature=0.8, top_k=3, top_p=0.9)
>>> law = output_law(z_p, z_q, rule="exact", **settings)
>>> bool(np.allclose(law, processed_probabilities(z_p, **settings)))
True
"""

from __future__ import annotations

import numpy as np

from ..validation import Constraint, Count, Generator, OneOf, Probability, checked

#: The ways of applying the sampling parameters in a verify step.
SAMPLING_RULES = ("exact", "raw_draft", "target_only", "low_precision_draft")
#: The most samples `sample_tokens` draws at once.
MAX_PARAMETER_SAMPLES = 10_000_000


class LogitRow(Constraint):
    """A 1-D array of finite logits, at least two."""

    def __init__(self, like=None):
        self.like = like

    def __call__(self, value, name, arguments):
        z = np.array(value, dtype=np.float64)
        if z.ndim != 1 or z.size < 2 or not np.all(np.isfinite(z)):
            raise ValueError(f"{name} must be a 1-D array of at least 2 finite logits")
        if self.like is not None and z.size != arguments[self.like].size:
            raise ValueError(f"{name} and {self.like} must be over the same vocabulary")
        return z


class PositiveTemperature(Constraint):
    """A finite temperature > 0 (greedy decoding, T = 0, has nothing to sample)."""

    def __call__(self, value, name, arguments):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a number > 0, got {type(value).__name__}")
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a finite number > 0, got {value}")
        return float(value)


PARAMETERS = dict(temperature=PositiveTemperature(), top_k=Count(0), top_p=Probability())


def _processed(z, temperature, top_k, top_p) -> np.ndarray:
    z = z / temperature
    row = np.exp(z - z.max())
    row /= row.sum()
    order = np.argsort(-row, kind="stable")
    keep = np.ones(row.size, bool)
    if 0 < top_k < row.size:
        keep[order[top_k:]] = False
    if top_p < 1.0:
        ranked = np.where(keep[order], row[order], 0.0)
        ranked = ranked / ranked.sum()
        before = np.cumsum(ranked) - ranked  # mass of the tokens ranked above
        keep[order[before >= top_p]] = False
    row = np.where(keep, row, 0.0)
    return row / row.sum()


@checked(logits=LogitRow(), **PARAMETERS)
def processed_probabilities(logits, temperature=1.0, top_k=0, top_p=1.0) -> np.ndarray:
    """softmax(z / T), then the top k tokens (0: all), then the smallest top set of mass ≥ top_p; renormalised.

    >>> processed_probabilities([3.0, 2.0, 1.0, 0.0], top_k=2).round(3).tolist()
    [0.731, 0.269, 0.0, 0.0]
    >>> processed_probabilities([3.0, 2.0, 1.0, 0.0], top_p=0.5).tolist()
    [1.0, 0.0, 0.0, 0.0]
    """
    return _processed(logits, temperature, top_k, top_p)


def bf16(x: np.ndarray) -> np.ndarray:
    """Round float32 numbers to bfloat16 (8 significant bits), round-to-nearest-even, as float64.

    >>> bf16(np.array([1.0, 1.00390625, 20.3])).tolist()
    [1.0, 1.0, 20.25]
    """
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)


def _rows(z_p, z_q, rule, temperature, top_k, top_p):
    """(p̃ for the verify, q the draft samples from, q the verifier uses); p̃ is also the law the target alone
    samples."""
    target = _processed(z_p, temperature, top_k, top_p)
    shaped = _processed(z_q, temperature, top_k, top_p)
    if rule == "exact":
        return target, shaped, shaped
    if rule == "raw_draft":
        raw = _processed(z_q, temperature, 0, 1.0)
        return target, raw, raw
    if rule == "target_only":
        return target, shaped, _processed(z_q, temperature, 0, 1.0)
    return target, _processed(bf16(z_q), temperature, top_k, top_p), shaped


RULE_ARGUMENTS = dict(target_logits=LogitRow(), draft_logits=LogitRow(like="target_logits"), rule=OneOf(*SAMPLING_RULES),
                      **PARAMETERS)


@checked(**RULE_ARGUMENTS)
def output_law(target_logits, draft_logits, rule="exact", temperature=1.0, top_k=0, top_p=1.0) -> np.ndarray:
    """The exact law of the token one verify step emits at its first position, under `rule`.

    P(y) = q_s(y)·min(1, p̃(y)/q_v(y)) + P(reject)·residual(y), with q_s the row the draft samples
    from, q_v the row the verifier uses, residual ∝ max(0, p̃ − q_v).

    >>> import numpy as np
    >>> z = np.array([1.0, 0.0, -1.0])
    >>> bool(np.allclose(output_law(z, -z, "raw_draft", top_k=2), processed_probabilities(z, top_k=2)))
    True
    """
    p, q_sample, q_verify = _rows(target_logits, draft_logits, rule, temperature, top_k, top_p)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(q_verify > 0, np.minimum(1.0, p / np.where(q_verify > 0, q_verify, 1.0)), 1.0)
    accepted = q_sample * ratio
    residual = np.maximum(p - q_verify, 0.0)
    residual = residual / residual.sum() if residual.sum() > 0 else p
    return accepted + (1.0 - accepted.sum()) * residual


@checked(**RULE_ARGUMENTS, n=Count(1, MAX_PARAMETER_SAMPLES), rng=Generator())
def sample_tokens(target_logits, draft_logits, n, rng, rule="exact", temperature=1.0, top_k=0, top_p=1.0):
    """Run `n` one-position verify steps under `rule` and return the emitted tokens (int array).

    Each step draws x from the draft's sampling row, accepts it with min(1, p̃(x)/q_v(x)), and
    otherwise draws from the residual of p̃ and q_v.

    >>> import numpy as np
    >>> z = np.array([1.0, 0.0, -1.0, -2.0])
    >>> tokens = sample_tokens(z, -z, 20_000, np.random.default_rng(0), top_k=2)
    >>> bool(tokens.max() <= 1)
    True
    """
    p, q_sample, q_verify = _rows(target_logits, draft_logits, rule, temperature, top_k, top_p)
    draws = rng.choice(p.size, size=n, p=q_sample)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(q_verify > 0, np.minimum(1.0, p / np.where(q_verify > 0, q_verify, 1.0)), 1.0)
    keep = rng.random(n) < ratio[draws]
    residual = np.maximum(p - q_verify, 0.0)
    residual = residual / residual.sum() if residual.sum() > 0 else p
    replacement = rng.choice(p.size, size=n, p=residual)
    return np.where(keep, draws, replacement)
