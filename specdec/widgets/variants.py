"""Explorers of notebook 08: several candidates at one position, and lossy acceptance rules.

Every number comes from `specdec.variants`; this module only wires controls to it and to the
figures of `specdec.plots.variants`. The target is a fixed row with a few likely tokens and a tail
(`specdec.variants.pairs.geometric_target`); the α slider picks a draft with exactly that acceptance
rate (`draft_with_acceptance`), so that moving α changes nothing else.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import validation
from ..goodness_of_fit import format_p_value, goodness_of_fit
from ..plots.variants import CandidatesFigure, LossyFigure, ScheduleFigure
from ..rows import token_labels
from ..theory import optimal_gamma, speedup, tv_distance
from ..variants.adaptive_gamma import ScheduleComparison, stdlib_comparison
from ..variants.broken_candidates import BROKEN_CANDIDATE_RULES
from ..variants.lossy_acceptance import MEDUSA_DELTA, MEDUSA_EPSILON, RULES, lossy_law, typical_threshold
from ..variants.multi_candidate import multi_candidate_law, sample_multi_candidate
from ..variants.pairs import confident_draft, draft_with_acceptance, geometric_target
from .explorer import LABEL_STYLE, Explorer

#: The target row of the candidates explorer: six tokens, p(x) ∝ 0.55^x.
CANDIDATE_TARGET = geometric_target(6, 0.55)
#: The most candidates the explorer offers (k ≤ V, so that k distinct candidates exist).
MAX_CANDIDATES = 6
#: Sample sizes of the Monte Carlo check.
SAMPLE_SIZES = (100, 1_000, 10_000, 50_000)
#: The rules of the candidates explorer: the exact one and the two broken ones.
CANDIDATE_RULES = {
    "exact": "residual updated (exact)",
    "stale residual": "broken: residual not updated",
    "without replacement": "broken: distinct candidates, with-replacement test",
}

#: Short names for the figure's title.
CANDIDATE_TITLES = {"exact": "exact rule", "stale residual": "stale residual", "without replacement": "without replacement"}

#: The target row of the lossy explorer: eight tokens, p(x) ∝ 0.6^x.
LOSSY_TARGET = geometric_target(8, 0.6)
LOSSY_RULE_LABELS = {
    "exact": "exact rule",
    "typical": "typical acceptance (Medusa)",
    "lenient": "lenient: accept when p/q ≥ λ",
    "greedy": "greedy top-1 matching",
}
#: The drafts of the lossy explorer: one that over-trusts a token, or one that mixes p with its reverse.
LOSSY_DRAFTS = {"over-trusts A": 0, "over-trusts B": 1, "over-trusts C": 2, "mixes p with its reverse": -1}


def lossy_draft(kind: int, alpha: float) -> np.ndarray:
    """The lossy explorer's draft: `confident_draft` toward token `kind`, or `draft_with_acceptance` if −1.

    >>> round(float(np.minimum(LOSSY_TARGET, lossy_draft(1, 0.6)).sum()), 10)
    0.6
    """
    if kind < 0:
        return draft_with_acceptance(LOSSY_TARGET, alpha)
    return confident_draft(LOSSY_TARGET, alpha, kind)


#: The settings the lenient and typical curves sweep.
LENIENCE_SWEEP = np.linspace(1.0, 0.05, 20)
EPSILON_SWEEP = np.geomspace(0.01, 1.0, 20)


def candidates_explorer(k=2, alpha=0.5, rule="exact", n=10_000, seed=0) -> Explorer:
    """k candidates and α in; the output law against p, a chi-square check, and acceptance against k.

    Parameters
    ----------
    k : int in 1 … 6
        Number of candidates.
    alpha : float in [0.3, 1]
        The acceptance rate α of one candidate (the draft is chosen to have it).
    rule : {"exact", "stale residual", "without replacement"}
    n : one of 100, 1000, 10000, 50000
        Sampled steps for the check.
    seed : int in 0 … 99

    Returns
    -------
    Explorer
        ``controls``: ``"k"``, ``"alpha"``, ``"rule"``, ``"n"``, ``"seed"``. ``shown`` holds those,
        ``target``, ``draft``, ``law`` (the rule's exact output law), ``tv`` (its distance from p),
        ``accepted_by_k`` (P(some candidate accepted) for k = 1 … 6 under the rule),
        ``exact_by_k`` (the same for the exact rule), ``frequencies``, ``fit`` (the chi-square
        check of the samples against p) and ``readout``.

    Examples
    --------
    >>> explorer = candidates_explorer(k=3, alpha=0.5)
    >>> round(explorer.shown["tv"], 12), explorer.shown["fit"].passed
    (0.0, True)
    """
    k = validation.count(k, "k", 1, MAX_CANDIDATES)
    alpha = validation.probability(alpha, "alpha")
    if alpha < 0.3:
        raise ValueError(f"alpha must be in [0.3, 1] for this explorer's target, got {alpha!r}")
    if rule not in CANDIDATE_RULES:
        raise ValueError(f"rule must be one of {', '.join(repr(r) for r in CANDIDATE_RULES)}; got {rule!r}")
    if n not in SAMPLE_SIZES:
        raise ValueError(f"n must be one of {', '.join(f'{size:,}' for size in SAMPLE_SIZES)}; got {n!r}")
    seed = validation.count(seed, "seed", 0, 99)
    labels = token_labels(CANDIDATE_TARGET.size)
    controls = {
        "k": widgets.IntSlider(value=k, min=1, max=MAX_CANDIDATES, description="candidates k", style=LABEL_STYLE),
        "alpha": widgets.FloatSlider(value=alpha, min=0.3, max=1.0, step=0.05, readout_format=".2f",
                                     description="α of one candidate", style=LABEL_STYLE),
        "rule": widgets.Dropdown(options=[(label, name) for name, label in CANDIDATE_RULES.items()], value=rule,
                                 description="rule", style=LABEL_STYLE, layout=widgets.Layout(width="30em")),
        "n": widgets.SelectionSlider(options=[(f"{size:,}", size) for size in SAMPLE_SIZES], value=n,
                                     description="sampled steps n", style=LABEL_STYLE),
        "seed": widgets.IntSlider(value=seed, min=0, max=99, description="seed", style=LABEL_STYLE),
    }
    picture = CandidatesFigure(labels, MAX_CANDIDATES)
    curves: dict = {}  # (α, rule) → acceptance for k = 1 … MAX_CANDIDATES; the enumeration is not free

    def parts(name, p, q, count):
        if name == "exact":
            law = multi_candidate_law(p, q, count)
            return law.accepted.sum(axis=0), law.resampled
        return BROKEN_CANDIDATE_RULES[name].parts(p, q, count)

    def acceptance_curve(name, a, p, q):
        if (a, name) not in curves:
            curves[(a, name)] = np.array([parts(name, p, q, count)[0].sum()
                                          for count in range(1, MAX_CANDIDATES + 1)])
        return curves[(a, name)]

    def redraw() -> dict:
        count, a, name = controls["k"].value, controls["alpha"].value, controls["rule"].value
        size, chosen_seed = controls["n"].value, controls["seed"].value
        p = CANDIDATE_TARGET
        q = draft_with_acceptance(p, a)
        accepted, resampled = parts(name, p, q, count)
        law = accepted + resampled
        rng = np.random.default_rng(chosen_seed)
        if name == "exact":
            tokens, _ = sample_multi_candidate(p, q, count, size, rng)
        else:
            tokens = BROKEN_CANDIDATE_RULES[name].sample(p, q, count, size, rng)
        frequencies = np.bincount(tokens, minlength=p.size) / size
        fit = goodness_of_fit(tokens, p)
        exact_curve = acceptance_curve("exact", a, p, q)
        rule_curve = acceptance_curve(name, a, p, q)
        tv = tv_distance(law / law.sum(), p)
        picture.update(accepted, resampled, p, q, frequencies, count, exact_curve, rule_curve,
                       f"{CANDIDATE_TITLES[name]}, k = {count}: TV from p = {tv:.3f}")
        shown = {
            "k": count, "alpha": a, "rule": name, "n": size, "seed": chosen_seed,
            "target": p, "draft": q, "law": law, "tv": tv,
            "accepted_by_k": rule_curve, "exact_by_k": exact_curve,
            "frequencies": frequencies, "fit": fit,
        }
        shown["readout"] = _candidates_readout(shown)
        return shown

    explorer = Explorer("Several candidates at one position", controls,
                        [[controls["k"], controls["alpha"]], [controls["rule"]], [controls["n"], controls["seed"]]],
                        picture, redraw)
    explorer.observe_controls()
    return explorer


def _candidates_readout(shown: dict) -> str:
    k, fit, name = shown["k"], shown["fit"], shown["rule"]
    verdict = "passes" if fit.passed else "<b>fails</b>"
    exactness = ("the output law is exactly p" if shown["tv"] < 1e-9
                 else f"the output law is <b>{shown['tv']:.3f}</b> away from p (TV)")
    return (
        f"<p><b>{CANDIDATE_RULES[name]}</b><br>α of one candidate = {shown['alpha']:.2f}, k = {k}</p>"
        f"<p>P(some candidate accepted) = <b>{shown['accepted_by_k'][k - 1]:.3f}</b>"
        f" (exact rule: {shown['exact_by_k'][k - 1]:.3f}; one candidate: {shown['exact_by_k'][0]:.3f})</p>"
        f"<p>By the exact law, {exactness}.</p>"
        f"<p>Check of {shown['n']:,} sampled steps against p: {verdict}, "
        f"p-value {format_p_value(fit.p_value)}; sampled TV {fit.tv:.3f}, chance alone ≈ {fit.typical_tv:.3f}</p>"
    )


def lossy_explorer(rule="typical", alpha=0.6, draft="over-trusts B", lenience=0.5, epsilon=MEDUSA_EPSILON,
                   delta=MEDUSA_DELTA) -> Explorer:
    """An acceptance rule and its setting in; its output law against p, and acceptance against TV.

    Parameters
    ----------
    rule : {"exact", "typical", "lenient", "greedy"}
    alpha : float in [0.45, 1]
        The exact rule's acceptance rate (the draft is chosen to have it).
    draft : one of `LOSSY_DRAFTS`
        A draft that over-trusts one token (sharper than p, as a greedy or top-k draft is), or one
        that mixes p with p in reverse order.
    lenience : float in [0.05, 1]
        λ of the lenient rule.
    epsilon, delta : float
        ε in [0.01, 1] and δ in [0.05, 1] of typical acceptance.

    Returns
    -------
    Explorer
        ``controls``: ``"rule"``, ``"alpha"``, ``"draft"``, ``"lenience"``, ``"epsilon"``, ``"delta"``. ``shown``
        holds those, ``law`` (the rule's `LossyLaw`), ``exact_acceptance``, ``gain`` (acceptance
        minus that of the exact rule), ``threshold`` (typical acceptance's bar on p(x)), ``lenient_curve``
        and ``typical_curve`` (acceptance and TV along each sweep) and ``readout``.

    Examples
    --------
    >>> explorer = lossy_explorer(rule="greedy", alpha=0.6)
    >>> round(explorer.shown["law"].tv, 3)
    0.593
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(repr(r) for r in RULES)}; got {rule!r}")
    alpha = validation.probability(alpha, "alpha")
    if alpha < 0.45:
        raise ValueError(f"alpha must be in [0.45, 1] for this explorer's drafts, got {alpha!r}")
    if draft not in LOSSY_DRAFTS:
        raise ValueError(f"draft must be one of {', '.join(repr(d) for d in LOSSY_DRAFTS)}; got {draft!r}")
    lenience = _in_range(lenience, "lenience", 0.05, 1.0)
    epsilon = _in_range(epsilon, "epsilon", 0.01, 1.0)
    delta = _in_range(delta, "delta", 0.05, 1.0)
    labels = token_labels(LOSSY_TARGET.size)
    controls = {
        "rule": widgets.Dropdown(options=[(label, name) for name, label in LOSSY_RULE_LABELS.items()], value=rule,
                                 description="rule", style=LABEL_STYLE, layout=widgets.Layout(width="24em")),
        "alpha": widgets.FloatSlider(value=alpha, min=0.45, max=1.0, step=0.05, readout_format=".2f",
                                     description="exact α", style=LABEL_STYLE),
        "draft": widgets.Dropdown(options=list(LOSSY_DRAFTS), value=draft, description="draft",
                                  style=LABEL_STYLE, layout=widgets.Layout(width="20em")),
        "lenience": widgets.FloatSlider(value=lenience, min=0.05, max=1.0, step=0.05, readout_format=".2f",
                                        description="lenient λ", style=LABEL_STYLE),
        "epsilon": widgets.FloatSlider(value=epsilon, min=0.01, max=1.0, step=0.01, readout_format=".2f",
                                       description="typical ε", style=LABEL_STYLE),
        "delta": widgets.FloatSlider(value=delta, min=0.05, max=1.0, step=0.05, readout_format=".2f",
                                     description="typical δ", style=LABEL_STYLE),
    }
    picture = LossyFigure(labels, len(LENIENCE_SWEEP))

    def redraw() -> dict:
        name, a = controls["rule"].value, controls["alpha"].value
        lam, eps, dlt = controls["lenience"].value, controls["epsilon"].value, controls["delta"].value
        kind = controls["draft"].value
        p = LOSSY_TARGET
        q = lossy_draft(LOSSY_DRAFTS[kind], a)
        settings = dict(lenience=lam, epsilon=eps, delta=dlt)
        law = lossy_law(name, p, q, **settings)
        exact = lossy_law("exact", p, q)
        greedy = lossy_law("greedy", p, q)
        lenient_laws = [lossy_law("lenient", p, q, lenience=value) for value in LENIENCE_SWEEP]
        typical_laws = [lossy_law("typical", p, q, epsilon=value, delta=dlt) for value in EPSILON_SWEEP]
        lenient_curve = ([x.acceptance for x in lenient_laws], [x.tv for x in lenient_laws])
        typical_curve = ([x.acceptance for x in typical_laws], [x.tv for x in typical_laws])
        picture.update(law.accepted, law.output - law.accepted, p, q,
                       f"{name}: accepts {law.acceptance:.2f}, TV from p {law.tv:.3f}",
                       lenient_curve, typical_curve, (exact.acceptance, exact.tv), (greedy.acceptance, greedy.tv),
                       (law.acceptance, law.tv))
        shown = {
            "rule": name, "alpha": a, "draft": kind, "lenience": lam, "epsilon": eps, "delta": dlt,
            "law": law, "exact_acceptance": exact.acceptance, "gain": law.acceptance - exact.acceptance,
            "threshold": typical_threshold(p, eps, dlt),
            "lenient_curve": lenient_curve, "typical_curve": typical_curve,
        }
        shown["readout"] = _lossy_readout(shown)
        shown["key_readout"] = (f"<div><b>{LOSSY_RULE_LABELS[name]}</b></div>"
                                f"<div>accepted <b>{law.acceptance:.3f}</b> (exact {exact.acceptance:.3f})</div>"
                                f"<div>TV from p: <b>{law.tv:.3f}</b></div>")
        return shown

    explorer = Explorer("Lossy acceptance: more accepted, how far from p", controls,
                        [[controls["rule"], controls["alpha"]], [controls["draft"], controls["lenience"]],
                         [controls["epsilon"], controls["delta"]]], picture, redraw,
                        compact_rows=([[controls["rule"]], [controls["epsilon"]], [controls["lenience"]]],
                                      [[controls["alpha"]], [controls["draft"]], [controls["delta"]]]))
    explorer.observe_controls()
    return explorer


def _lossy_readout(shown: dict) -> str:
    law, name = shown["law"], shown["rule"]
    if name == "typical":
        setting = (f"accepts x when p(x) > min(ε, δ·e<sup>−H(p)</sup>) = <b>{shown['threshold']:.3f}</b> "
                   f"(ε = {shown['epsilon']:.2f}, δ = {shown['delta']:.2f})")
    elif name == "lenient":
        setting = f"accepts x outright when p(x)/q(x) ≥ λ = {shown['lenience']:.2f}"
    elif name == "greedy":
        setting = "keeps the draft token only if it is the target's top token"
    else:
        setting = "accepts x with probability min(1, p(x)/q(x))"
    return (
        f"<p><b>{LOSSY_RULE_LABELS[name]}</b>: {setting}</p>"
        f"<p>Acceptance rate <b>{law.acceptance:.3f}</b> against the exact rule's α = "
        f"{shown['exact_acceptance']:.3f}: gain <b>{shown['gain']:+.3f}</b></p>"
        f"<p>TV distance of the output from p: <b>{law.tv:.3f}</b>"
        f"{' (exact: the output is p)' if law.tv < 1e-9 else ''}</p>"
    )


def _in_range(value, name: str, low: float, high: float) -> float:
    value = validation.probability(value, name)
    if not low <= value <= high:
        raise ValueError(f"{name} must be in [{low:g}, {high:g}], got {value!r}")
    return value


#: How many verify steps the schedules explorer draws.
SCHEDULE_STEPS = 120


def schedules_explorer(comparison=None, c=20) -> Explorer:
    """Fixed γ, Hugging Face's heuristic schedule and the oracle on one text, at a cost ratio c.

    The runs are those of `comparison` (from `specdec.variants.adaptive_gamma.compare_schedules`),
    made once; the controls only choose which run to look at and the cost ratio at which every run
    is priced, so nothing is generated again.

    Parameters
    ----------
    comparison : ScheduleComparison, optional
        By default notebook 08's runs, `specdec.variants.adaptive_gamma.stdlib_comparison()` (a few
        seconds to make).
    c : int in 1 … 100
        Starting cost ratio.

    Returns
    -------
    Explorer
        ``controls``: ``"c"`` and ``"schedule"`` (a key of `schedule_runs(comparison)`). ``shown``
        holds ``c``, ``schedule``, ``speedups`` (every run, in menu order), ``speedup``,
        ``tokens_per_call`` and ``mean_gamma`` (of the chosen run), ``heuristic`` and ``oracle`` (their
        speedups), ``best_fixed`` and ``best_fixed_speedup``, ``best_fixed`` (the fixed γ measured fastest at c),
        ``theory_gamma`` and ``theory_speedup`` (`optimal_gamma` at the average α) and ``readout``.

    Examples
    --------
    >>> from specdec.text import NGramModel
    >>> from specdec.variants.adaptive_gamma import compare_schedules
    >>> text = "the cat sat on the mat and the rat sat on the cat"
    >>> draft, target = NGramModel(order=2).fit(text), NGramModel(order=4).fit(text)
    >>> explorer = schedules_explorer(compare_schedules(target, draft, "the ", 80, c=20, seed=0, fixed_gammas=[1, 2]))
    >>> list(explorer.controls["schedule"].options)
    ['fixed γ = 1', 'fixed γ = 2', 'heuristic (+2 / −1)', 'oracle']
    """
    if comparison is None:
        comparison = stdlib_comparison()
    if not isinstance(comparison, ScheduleComparison):
        raise TypeError(f"comparison must be a ScheduleComparison from compare_schedules, got {type(comparison).__name__}")
    c = validation.count(c, "c", 1, 100)
    runs = schedule_runs(comparison)
    names = list(runs)
    fixed = sorted(comparison.fixed)
    controls = {
        "c": widgets.IntSlider(value=c, min=1, max=100, description="cost ratio c (target time / draft time)",
                               style=LABEL_STYLE, layout=widgets.Layout(width="40em")),
        "schedule": widgets.Dropdown(options=names, value="heuristic (+2 / −1)", description="schedule shown",
                                     style=LABEL_STYLE, layout=widgets.Layout(width="24em")),
    }
    max_gamma = max(max(run.gammas, default=1) for run in runs.values())
    short_names = [name.replace("fixed ", "").replace(" (+2 / −1)", "") for name in names]
    picture = ScheduleFigure(short_names, SCHEDULE_STEPS, max_gamma)
    alpha = min(1.0, comparison.mean_alpha)

    def redraw() -> dict:
        cost, name = controls["c"].value, controls["schedule"].value
        run = runs[name]
        speedups = [runs[key].speedup(cost) for key in names]
        theory = [speedup(alpha, gamma, cost) for gamma in fixed]
        best_fixed = max(fixed, key=lambda gamma: comparison.fixed[gamma].speedup(cost))
        theory_gamma, theory_speedup = optimal_gamma(alpha, cost)
        picture.update(run.gammas, run.accepted, speedups, theory, names.index(name), name)
        shown = {
            "c": cost, "schedule": name, "speedups": speedups, "speedup": speedups[names.index(name)],
            "tokens_per_call": run.tokens_per_target_call,
            "mean_gamma": run.mean_gamma, "best_fixed": best_fixed, "theory_gamma": theory_gamma,
            "theory_speedup": theory_speedup, "alpha": alpha,
            "heuristic": runs["heuristic (+2 / −1)"].speedup(cost), "oracle": runs["oracle"].speedup(cost),
            "best_fixed_speedup": comparison.fixed[best_fixed].speedup(cost),
        }
        shown["readout"] = _schedules_readout(shown, len(run.text))
        return shown

    explorer = Explorer("Adaptive γ on text: fixed, heuristic, oracle", controls,
                        [[controls["c"]], [controls["schedule"]]], picture, redraw)
    explorer.observe_controls()
    return explorer


def schedule_runs(comparison) -> dict:
    """The runs of a `ScheduleComparison` by the name the schedules explorer shows: fixed γ first.

    >>> from specdec.text import NGramModel
    >>> from specdec.variants.adaptive_gamma import compare_schedules
    >>> model = NGramModel(order=2).fit("abcabcabc")
    >>> list(schedule_runs(compare_schedules(model, model, "a", 10, c=5, seed=0, fixed_gammas=[3])))
    ['fixed γ = 3', 'heuristic (+2 / −1)', 'oracle']
    """
    runs = {f"fixed γ = {gamma}": comparison.fixed[gamma] for gamma in sorted(comparison.fixed)}
    runs["heuristic (+2 / −1)"] = comparison.heuristic
    runs["oracle"] = comparison.oracle
    return runs


def _schedules_readout(shown: dict, characters: int) -> str:
    return (
        f"<p><b>{shown['schedule']}</b>: mean γ {shown['mean_gamma']:.2f}, "
        f"{shown['tokens_per_call']:.3f} characters per target call ({characters} characters)</p>"
        f"<p>At c = {shown['c']}: speedup <b>{shown['speedup']:.2f}×</b></p>"
        f"<p>Best fixed γ measured at this c: <b>{shown['best_fixed']}</b>, {shown['best_fixed_speedup']:.2f}×<br>"
        f"optimal_gamma at the average α = {shown['alpha']:.3f}: γ = {shown['theory_gamma']}, "
        f"{shown['theory_speedup']:.2f}× predicted<br>"
        f"heuristic {shown['heuristic']:.2f}×, oracle {shown['oracle']:.2f}×</p>"
    )
