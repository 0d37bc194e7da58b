"""The cloud of (p, q) pairs and Pinsker's bound, against plain re-implementations."""

import math

import numpy as np
import pytest

import specdec
from specdec.divergence import CLOUD_SIZE, pair_cloud, pinsker_bound


def plain_cloud(seed, vocab, count=CLOUD_SIZE):
    """The documented recipe, written out: all p, then all d, then all closeness w, from one generator."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(2):
        draws = rng.dirichlet([0.5] * vocab, size=count) + 1e-9
        rows.append(draws / draws.sum(axis=1, keepdims=True))
    targets, independent = rows
    closeness = rng.random(count)
    drafts = []
    for p, d, w in zip(targets, independent, closeness):
        q = w * p + (1 - w) * d
        drafts.append(q / q.sum())
    return targets, np.array(drafts)


@pytest.mark.parametrize("seed, vocab", [(0, 2), (7, 8), (99, 64)])
def test_the_cloud_follows_its_recipe_and_each_number_is_the_plain_formula(seed, vocab):
    cloud = pair_cloud(seed, vocab)
    targets, drafts = plain_cloud(seed, vocab)
    np.testing.assert_allclose(cloud.targets, targets, rtol=1e-12)
    np.testing.assert_allclose(cloud.drafts, drafts, rtol=1e-12)
    assert cloud.targets.shape == cloud.drafts.shape == (CLOUD_SIZE, vocab)
    for i, (p, q) in enumerate(zip(targets, drafts)):
        assert cloud.alpha[i] == pytest.approx(sum(min(a, b) for a, b in zip(p, q)), abs=1e-12)
        assert cloud.tv[i] == pytest.approx(0.5 * sum(abs(a - b) for a, b in zip(p, q)), abs=1e-12)
        assert cloud.kl[i] == pytest.approx(sum(a * math.log(a / b) for a, b in zip(p, q)), rel=1e-9, abs=1e-12)
    assert (cloud.drafts > 0).all()  # so every KL is finite


def test_the_cloud_spreads_from_near_identical_to_unrelated_pairs():
    cloud = pair_cloud(0, 8)
    assert cloud.alpha.max() > 0.98 and cloud.alpha.min() < 0.4
    assert np.array_equal(pair_cloud(0, 8).alpha, cloud.alpha)  # seeded
    assert not np.array_equal(pair_cloud(1, 8).alpha, cloud.alpha)


def test_the_cloud_statistics_match_a_plain_loop():
    cloud = pair_cloud(3, 6)
    assert cloud.largest_gap == max(abs(a - (1 - t)) for a, t in zip(cloud.alpha, cloud.tv)) < 1e-12
    for index in (0, 17, CLOUD_SIZE - 1):
        mine = cloud.kl[index]
        expected = [abs(kl - mine) <= 0.1 * mine for kl in cloud.kl]
        assert cloud.kl_neighbours(index).tolist() == expected
        assert cloud.kl_neighbours(index)[index]
    assert cloud.kl_neighbours(0, within=0.0).sum() >= 1


@pytest.mark.parametrize("kl", [0.0, 1e-6, 0.3, 1.0, 2.0, 7.5])
def test_pinsker_bound_is_the_plain_formula(kl):
    assert pinsker_bound(kl) == pytest.approx(max(0.0, 1 - math.sqrt(kl / 2)), abs=1e-15)


@pytest.mark.parametrize("seed, vocab", [(0, 2), (5, 8), (9, 40)])
def test_every_pair_lies_on_or_above_pinskers_bound(seed, vocab):
    cloud = pair_cloud(seed, vocab)
    assert (cloud.alpha >= pinsker_bound(cloud.kl) - 1e-12).all()
    for p, q, alpha in zip(cloud.targets[:20], cloud.drafts[:20], cloud.alpha[:20]):
        assert alpha >= 1 - math.sqrt(specdec.kl_divergence(p, q) / 2) - 1e-12


@pytest.mark.parametrize("kwargs, error, name", [
    (dict(seed=-1, vocab=4), ValueError, "seed"),
    (dict(seed=0, vocab=1), ValueError, "vocab"),
    (dict(seed=0, vocab=4, count=0), ValueError, "count"),
    (dict(seed=0.5, vocab=4), TypeError, "seed"),
])
def test_pair_cloud_checks_its_arguments(kwargs, error, name):
    with pytest.raises(error, match=name):
        pair_cloud(**kwargs)


def test_the_kl_band_against_a_plain_loop():
    from specdec.divergence import MIN_ALPHA_SPREAD, MIN_NEIGHBOURS

    cloud = pair_cloud(5, 12)
    for index in range(0, CLOUD_SIZE, 7):
        mine = cloud.kl[index]
        alphas = [a for a, kl in zip(cloud.alpha, cloud.kl) if abs(kl - mine) <= 0.1 * mine]
        band = cloud.kl_band(index)
        assert (band.count, band.alpha_low, band.alpha_high) == (len(alphas), min(alphas), max(alphas))
        supported = len(alphas) >= MIN_NEIGHBOURS and max(alphas) - min(alphas) > MIN_ALPHA_SPREAD
        assert band.shows_kl_does_not_fix_alpha == supported


def test_the_kl_band_thresholds_at_their_boundaries():
    from specdec.divergence import MIN_ALPHA_SPREAD, MIN_NEIGHBOURS, KLBand

    # "At least MIN_NEIGHBOURS pairs": exactly that many is enough, one fewer is not.
    assert KLBand(MIN_NEIGHBOURS, 0.0, 1.0).enough_pairs
    assert not KLBand(MIN_NEIGHBOURS - 1, 0.0, 1.0).enough_pairs
    # "α spread wider than MIN_ALPHA_SPREAD": a spread of exactly MIN_ALPHA_SPREAD does not show it.
    assert KLBand(MIN_NEIGHBOURS, 0.0, MIN_ALPHA_SPREAD).spread == MIN_ALPHA_SPREAD
    assert not KLBand(MIN_NEIGHBOURS, 0.0, MIN_ALPHA_SPREAD).shows_kl_does_not_fix_alpha
    assert KLBand(MIN_NEIGHBOURS, 0.0, 2 * MIN_ALPHA_SPREAD).shows_kl_does_not_fix_alpha
    assert not KLBand(MIN_NEIGHBOURS - 1, 0.0, 1.0).shows_kl_does_not_fix_alpha
