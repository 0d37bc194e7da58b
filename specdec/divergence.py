"""How α relates to divergences: a cloud of random (p, q) pairs, and Pinsker's bound.

For every pair α = 1 − TV(p, q) exactly, so a plot of α against TV puts every pair on one line.
KL(p‖q) does not fix α: pairs with the same KL have different α. It bounds α from below, through
Pinsker's inequality TV ≤ √(KL/2): α ≥ 1 − √(KL/2).

What is simplified: the pairs are Dirichlet draws blended as in `specdec.narrate.random_rows` (with a
random closeness per pair), not the rows of two language models.

>>> cloud = pair_cloud(seed=0, vocab=8)
>>> bool(np.all(cloud.alpha >= pinsker_bound(cloud.kl)))
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .core import acceptance_rate
from .narrate import blend_rows, dirichlet_rows
from .theory import kl_divergence, tv_distance
from .validation import Count, checked

#: How many random pairs make a cloud by default.
CLOUD_SIZE = 200

#: What it takes for a cloud to show that KL alone does not fix α near one pair's KL: at least this
#: many pairs within the KL band, whose α spans more than `MIN_ALPHA_SPREAD`.
MIN_NEIGHBOURS = 5
MIN_ALPHA_SPREAD = 0.05


@dataclass(frozen=True)
class KLBand:
    """The pairs of a cloud whose KL(p‖q) is close to one pair's, and what they show."""

    count: int
    """How many pairs fall in the band (the pair itself included)."""
    alpha_low: float
    alpha_high: float

    @property
    def spread(self) -> float:
        return self.alpha_high - self.alpha_low

    @property
    def enough_pairs(self) -> bool:
        """Whether the band holds at least `MIN_NEIGHBOURS` pairs."""
        return self.count >= MIN_NEIGHBOURS

    @property
    def shows_kl_does_not_fix_alpha(self) -> bool:
        """Enough pairs, with α spread wider than `MIN_ALPHA_SPREAD`: same KL, clearly different α."""
        return self.enough_pairs and self.spread > MIN_ALPHA_SPREAD


@dataclass(frozen=True)
class PairCloud:
    """Random (p, q) pairs, one per row, with the α, TV and KL(p‖q) of each."""

    targets: np.ndarray
    """(count, V): the target distributions p."""
    drafts: np.ndarray
    """(count, V): the draft distributions q."""
    alpha: np.ndarray
    """(count,): Σ min(p, q) of each pair (`specdec.acceptance_rate`)."""
    tv: np.ndarray
    """(count,): ½ Σ |p − q| of each pair (`specdec.tv_distance`)."""
    kl: np.ndarray
    """(count,): KL(p‖q) of each pair, in nats (`specdec.kl_divergence`)."""

    @property
    def largest_gap(self) -> float:
        """The largest |α − (1 − TV)| over the cloud: rounding error only, since α = 1 − TV."""
        return float(np.max(np.abs(self.alpha - (1.0 - self.tv))))

    def kl_neighbours(self, index: int, within: float = 0.1) -> np.ndarray:
        """Which pairs have a KL(p‖q) within a fraction `within` of pair `index`'s (itself included).

        Their α spread shows that KL alone does not fix α.

        >>> cloud = pair_cloud(seed=0, vocab=8)
        >>> alphas = cloud.alpha[cloud.kl_neighbours(0)]
        >>> bool(alphas.max() - alphas.min() > 0.01)
        True
        """
        return np.abs(self.kl - self.kl[index]) <= within * self.kl[index]

    def kl_band(self, index: int, within: float = 0.1) -> KLBand:
        """The pairs with a KL within a fraction `within` of pair `index`'s: how many, and their α range.

        >>> band = pair_cloud(seed=0, vocab=8).kl_band(0)
        >>> band.count >= MIN_NEIGHBOURS, band.shows_kl_does_not_fix_alpha
        (True, True)
        """
        neighbours = self.kl_neighbours(index, within)
        alphas = self.alpha[neighbours]
        return KLBand(int(neighbours.sum()), float(alphas.min()), float(alphas.max()))


@checked(seed=Count(), vocab=Count(2), count=Count(1))
def pair_cloud(seed, vocab, count=CLOUD_SIZE) -> PairCloud:
    """A seeded cloud of (p, q) pairs, from nearly identical to unrelated.

    Each p is a Dirichlet draw; each q blends p with an independent draw d as
    q = w·p + (1 − w)·d, with the closeness w uniform in [0, 1) and drawn per pair
    (`specdec.narrate.dirichlet_rows` and `specdec.narrate.blend_rows`, the recipe of `random_rows`).
    Every probability is at least about `specdec.narrate.PROBABILITY_FLOOR`, so KL(p‖q) is finite.

    Parameters
    ----------
    seed : int >= 0
        Seed of ``numpy.random.default_rng``: all p, then all d, then all w are drawn from it.
    vocab : int >= 2
    count : int >= 1

    Examples
    --------
    >>> cloud = pair_cloud(seed=0, vocab=8)
    >>> cloud.targets.shape, cloud.alpha.shape
    ((200, 8), (200,))
    >>> bool(np.allclose(cloud.alpha, 1 - cloud.tv))
    True
    """
    rng = np.random.default_rng(seed)
    targets = dirichlet_rows(rng, count, vocab)
    independent = dirichlet_rows(rng, count, vocab)
    drafts = blend_rows(targets, independent, rng.random(count)[:, None])
    pairs = list(zip(targets, drafts))
    return PairCloud(
        targets, drafts,
        alpha=np.array([acceptance_rate(p, q) for p, q in pairs]),
        tv=np.array([tv_distance(p, q) for p, q in pairs]),
        kl=np.array([kl_divergence(p, q) for p, q in pairs]),
    )


def pinsker_bound(kl) -> np.ndarray:
    """The lower bound on α that KL(p‖q) gives through Pinsker's inequality: max(0, 1 − √(KL/2)).

    Pinsker: TV(p, q) ≤ √(KL(p‖q)/2), and α = 1 − TV.

    >>> pinsker_bound([0.0, 0.5, 2.0, 8.0]).tolist()
    [1.0, 0.5, 0.0, 0.0]
    """
    return np.maximum(0.0, 1.0 - np.sqrt(np.asarray(kl, dtype=float) / 2.0))
