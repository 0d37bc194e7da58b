"""The explorer of how α relates to divergences: α against TV and KL(p‖q) for a cloud of random pairs.

It draws a seeded cloud of (p, q) pairs (`specdec.divergence.pair_cloud`) and plots α against TV,
where they all lie on α = 1 − TV, and against KL(p‖q), where they do not lie on any curve; one pair
is highlighted and its numbers listed. What is simplified is said in `specdec.divergence`.
"""

from __future__ import annotations

import functools

import ipywidgets as widgets
import numpy as np

from .. import validation
from ..divergence import CLOUD_SIZE, MIN_ALPHA_SPREAD, MIN_NEIGHBOURS, pair_cloud, pinsker_bound
from ..plots.divergence import KL_AXIS_MAX, CloudFigure
from .explorer import LABEL_STYLE, Explorer

#: Range of the cloud's vocabulary slider.
CLOUD_VOCAB_RANGE = (2, 64)
#: Largest seed the slider offers.
MAX_SEED = 99


def divergence_explorer(seed=0, vocab=8, pair=0) -> Explorer:
    """α against TV and KL(p‖q) for a seeded cloud of random pairs, with one pair highlighted.

    Parameters
    ----------
    seed : int in 0 … 99
        Seed of the cloud.
    vocab : int in 2 … 64
        Number of tokens V of every pair.
    pair : int in 0 … 199
        The pair whose numbers the readout lists and the figure rings.

    Returns
    -------
    Explorer
        ``controls``: ``"seed"``, ``"vocab"``, ``"pair"``. ``shown`` holds ``cloud`` (a
        `specdec.divergence.PairCloud`),
        ``pair``, ``alpha``, ``tv`` and ``kl`` of the highlighted pair, ``largest_gap`` (the largest
        |α − (1 − TV)| over the cloud), ``beyond_axis`` (pairs with KL past the axis), ``kl_neighbours``
        (how many pairs have a KL within 10% of the highlighted one's) with their ``neighbour_alpha_range``,
        ``kl_band`` (a `specdec.divergence.KLBand`: whether those pairs show that KL alone does not
        fix α; the readout draws that conclusion only when they do) and ``readout``.

    Examples
    --------
    >>> explorer = divergence_explorer()
    >>> explorer.shown["largest_gap"] < 1e-12
    True
    """
    seed = validation.count(seed, "seed", 0, MAX_SEED)
    vocab = validation.count(vocab, "vocab", *CLOUD_VOCAB_RANGE)
    pair = validation.count(pair, "pair", 0, CLOUD_SIZE - 1)
    controls = {
        "seed": widgets.IntSlider(value=seed, min=0, max=MAX_SEED, description="cloud seed",
                                  style=LABEL_STYLE),
        "vocab": widgets.IntSlider(value=vocab, min=CLOUD_VOCAB_RANGE[0], max=CLOUD_VOCAB_RANGE[1],
                                   description="tokens per distribution V", style=LABEL_STYLE),
        "pair": widgets.IntSlider(value=pair, min=0, max=CLOUD_SIZE - 1, description="highlighted pair",
                                  style=LABEL_STYLE),
    }
    picture = CloudFigure()
    cloud_for = functools.lru_cache(maxsize=1)(pair_cloud)  # moving the highlight alone keeps the cloud

    def redraw() -> dict:
        key = (controls["seed"].value, controls["vocab"].value)
        cloud = cloud_for(*key)
        index = controls["pair"].value
        picture.update(cloud.alpha, cloud.tv, cloud.kl, index)
        band = cloud.kl_band(index)
        shown = {
            "cloud": cloud,
            "seed": key[0], "vocab": key[1], "pair": index,
            "alpha": float(cloud.alpha[index]),
            "tv": float(cloud.tv[index]),
            "kl": float(cloud.kl[index]),
            "largest_gap": cloud.largest_gap,
            "beyond_axis": int(np.sum(cloud.kl > KL_AXIS_MAX)),
            "kl_neighbours": band.count,
            "neighbour_alpha_range": (band.alpha_low, band.alpha_high),
            "kl_band": band,
        }
        shown["readout"] = _cloud_readout(shown)
        return shown

    explorer = Explorer("α, total variation and KL divergence", controls,
                        [[controls["seed"], controls["vocab"]], [controls["pair"]]], picture, redraw)
    explorer.observe_controls()
    return explorer


def _cloud_readout(shown: dict) -> str:
    cloud = shown["cloud"]
    beyond = shown["beyond_axis"]
    edge_note = (f"<br>{beyond} pair{'s' if beyond != 1 else ''} with KL &gt; {KL_AXIS_MAX:g} "
                 f"drawn at the right edge" if beyond else "")
    return (
        f"<p>{len(cloud.alpha)} random pairs over V = {shown['vocab']} tokens, seed {shown['seed']}</p>"
        f"<p>Largest |α − (1 − TV)| in the cloud: {shown['largest_gap']:.1e}: every pair lies on the line.<br>"
        f"KL(p‖q) spans {cloud.kl.min():.3f} … {cloud.kl.max():.2f} nats.{edge_note}</p>"
        f"<p><b>Pair {shown['pair']}</b>: α = <b>{shown['alpha']:.3f}</b>, TV = {shown['tv']:.3f}, "
        f"1 − TV = {1 - shown['tv']:.3f}<br>"
        f"KL(p‖q) = {shown['kl']:.3f} nats; Pinsker's bound 1 − √(KL/2) = {float(pinsker_bound(shown['kl'])):.3f}</p>"
        f"<p>{_kl_band_text(shown['kl_band'])}</p>"
    )


def _kl_band_text(band) -> str:
    """What the pairs near this KL show, with a conclusion only when the data support it."""
    if not band.enough_pairs:
        noun = "pair has" if band.count == 1 else "pairs have"
        return (f"Only {band.count} {noun} a KL within 10% of this one's: too few to say how much α "
                f"varies at this KL (it takes {MIN_NEIGHBOURS}). Highlight a pair where the cloud is denser.")
    text = (f"The {band.count} pairs whose KL is within 10% of this one's have α from "
            f"{band.alpha_low:.3f} to {band.alpha_high:.3f}")
    if band.shows_kl_does_not_fix_alpha:
        return text + ": the same KL, clearly different α. KL alone does not fix α."
    return (text + f", a spread of {band.spread:.3f}, under {MIN_ALPHA_SPREAD}: these pairs alone do not "
            "show α varying at this KL. Highlight another pair, or change the seed or V.")
