"""What a learner does to each explorer in the browser, and what its readout must say afterwards.

Each explorer of the series is listed here by its title (the bold header above its controls), so a
notebook that shows an explorer is covered wherever it lands. For each: the file name of its
screenshot, and a few moves. A move names a control by the label the learner reads, says what to
do to it, and computes from specdec (the core, with the explorer's documented recipe where rows are
random) the text the readout must then contain. The expected text is computed from the control
values the page shows after the move, so it does not depend on the explorer's starting values.

An explorer that a notebook shows but that is missing here fails the browser test. A new explorer
puts its check in its own test module instead, as ``BROWSER_CHECK = ExplorerCheck("XExplorer", ...)``
in ``tests/test_explore_<name>.py`` (with ``from .browser.moves import ExplorerCheck, Move``): `EXPLORERS`
below gathers those too, whichever module is imported first.
"""

from __future__ import annotations

import inspect
import re
from functools import lru_cache

import numpy as np

import specdec
from specdec.narrate import narrate_trace
from specdec.narrate import random_rows, spec_example, token_labels

from .moves import ExplorerCheck, Move


def _normalised(weights) -> np.ndarray:
    weights = np.asarray(weights, dtype=float)
    return weights / weights.sum()


# --- one token ------------------------------------------------------------------------------------

def _one_token(values: dict) -> list[str]:
    vocab = values["number of tokens V"]
    labels = token_labels(vocab)
    p = _normalised([values[f"p({label})"] for label in labels])
    q = _normalised([values[f"q({label})"] for label in labels])
    alpha = specdec.acceptance_rate(p, q)
    return [
        f"α = Σ min(p, q) = {alpha:.3f}",
        f"TV(p, q) = ½ Σ |p − q| = {specdec.tv_distance(p, q):.3f}",
        f"γ = {values['draft length γ (for expected tokens)']}: "
        f"{specdec.expected_tokens(alpha, values['draft length γ (for expected tokens)']):.3f} tokens per step on average",
    ]


# --- verify step ----------------------------------------------------------------------------------

def _verify_step_trace(values: dict):
    """The step the explorer documents for random rows: one generator makes rows, drafts and draws."""
    assert values["rows and draft tokens"] == "random rows from the seed", values["rows and draft tokens"]
    rng = np.random.default_rng(values["seed"])
    target_probs, draft_probs = random_rows(values["draft tokens γ"], values["vocabulary size V"],
                                            values["draft closeness to target"], rng)
    draft_tokens = specdec.sample_draft(draft_probs, rng)
    return specdec.trace_step(target_probs, draft_probs, draft_tokens, rng)


def _draws(trace) -> int:
    # One uniform per visited position, and one more draw for the bonus token.
    return len(trace.positions) + (1 if trace.all_accepted else 0)


def _verify_step_draw(shown: int):
    """The readout after `shown` presses of Step: the count, the latest line, and at the end the output."""
    def expected(values: dict) -> list[str]:
        trace = _verify_step_trace(values)
        total = _draws(trace)
        lines = narrate_trace(trace)
        if shown < total:  # the total is not told before the step is over
            return [f"Draw {shown}", f"Latest: {lines[shown - 1]}"]
        # At the end: the total, the last draw and the summary (the emitted tokens and their origins).
        return [f"Draw {total} of {total}: the step is over", f"Latest: {lines[total - 1]}", lines[-1]]
    return expected


def _verify_step_worked_example(values: dict) -> list[str]:
    """The worked example with the draft tokens the chosen case names, e.g. "…, drafts D A"."""
    case = re.search(r"drafts ([A-Z ]+)$", values["rows and draft tokens"]).group(1).split()
    target_probs, draft_probs, _ = spec_example()
    labels = token_labels(target_probs.shape[1])
    trace = specdec.trace_step(target_probs, draft_probs, [labels.index(name) for name in case],
                               np.random.default_rng(values["seed"]))
    rates = ", ".join(f"{rate:.2f}" for rate in specdec.acceptance_rates(target_probs, draft_probs))
    assert trace.tokens  # the step exists; a new one starts at draw 0 whatever was shown before
    return ["Draw 0", f"Draft proposed: {' '.join(case)}", f"α of each position: {rates}"]


def _worked_example_draw(shown: int):
    """The readout after `shown` presses of Step on the worked example's drafts A B (seed 0): accepted,
    accepted, then the bonus, three draws in all."""
    def expected(values: dict) -> list[str]:
        assert values["rows and draft tokens"] == "the worked example, drafts A B" and values["seed"] == 0
        trace = specdec.trace_step(*spec_example(), np.random.default_rng(0))
        total, lines = _draws(trace), narrate_trace(trace)
        if shown < total:
            return [f"Draw {shown}", f"Latest: {lines[shown - 1]}"]
        return [f"Draw {total} of {total}: the step is over", lines[-1]]
    return expected


def _verify_step_new_step(values: dict) -> list[str]:
    trace = _verify_step_trace(values)
    labels = token_labels(values["vocabulary size V"])
    return ["Draw 0", "Draft proposed: " + " ".join(labels[token] for token in trace.draft_tokens)]


# --- notebook 03: the output law ------------------------------------------------------------------

def _derivation(values: dict) -> list[str]:
    labels = sorted({label.rsplit(" ", 1)[-1] for label in values if label.startswith("target weight of ")})
    p = _normalised([values[f"target weight of {label}"] for label in labels])
    q = _normalised([values[f"draft weight of {label}"] for label in labels])
    alpha = specdec.acceptance_rate(p, q)
    return [f"α = Σ min(p, q) = {alpha:.3f}", f"probability 1 − α = {1 - alpha:.3f}"]


#: Steps per sampling block of the Monte Carlo explorer: block k comes from default_rng([seed, k]).
MONTE_CARLO_BLOCK = 100_000


def _monte_carlo_position(values: dict) -> list[str]:
    from specdec.goodness_of_fit import check_steps
    from specdec.sampling import sample_steps

    # Notebook 03 shows the explorer on the worked example's rows with the correct rule.
    target_probs, draft_probs, _ = spec_example()
    steps, seed, position = values["steps n"], values["seed"], values["output position i"]
    blocks = [sample_steps(target_probs, draft_probs, MONTE_CARLO_BLOCK, np.random.default_rng([seed, k]))
              for k in range(-(-steps // MONTE_CARLO_BLOCK))]
    tokens = np.concatenate([block[0] for block in blocks])[:steps]
    counts = np.concatenate([block[1] for block in blocks])[:steps]
    fit = check_steps(tokens, counts, target_probs, draft_probs).positions[position]
    return [f"position {position}: {fit.n:,} tokens, TV {fit.tv:.4f}", f"Position {position}: {fit.verdict}"]


# --- notebook 04: speedup -------------------------------------------------------------------------

def _speedup(values: dict) -> list[str]:
    alpha, gamma = values["acceptance rate α"], values["draft length γ"]
    c = values["cost ratio c (target time / draft time)"]
    best_gamma, best_speedup = specdec.optimal_gamma(alpha, c)
    times = lambda value: f"{value:.{3 if 0 < abs(value - 1) < 0.005 else 2}f}×"  # the readout's rounding
    best = (f"Best γ in 1 … 20: {best_gamma}, speedup {times(best_speedup)}" if best_speedup > 1
            else "No γ in 1 … 20 beats plain decoding here")
    return [
        f"E[N] = {specdec.expected_tokens(alpha, gamma):.3f}",  # the first move shows the best γ too
        f"Speedup = E[N] / (1 + γ/c) = {times(specdec.speedup(alpha, gamma, c))}",
        best,
    ]


# --- notebook 05: why it is fast ------------------------------------------------------------------

def _timeline(values: dict) -> list[str]:
    from specdec import hardware
    from specdec.explore.timeline import TIMELINE_TOKENS

    chip = hardware.with_pass_overhead(hardware.ACCELERATORS[values["accelerator"]],
                                       float(values["fixed time per pass (ms)"]) / 1e3)
    target, draft = (hardware.MODELS[name] for name in values["models: target / draft"].split(" / "))
    gamma, alpha = values["draft length γ"], values["acceptance rate α"]
    timeline = hardware.sample_timeline(chip, target, draft, gamma, alpha, batch=values["batch size b"],
                                        seed=values["seed"], tokens=TIMELINE_TOKENS)
    return [
        f"implied c = target ÷ draft = {timeline.times.implied_c:.1f}",
        f"Speedup, this seed: {timeline.sampled_speedup:.2f}×",
        f"expected, cost model: {timeline.expected_speedup:.2f}×",
        f"speedup(α, γ, c) = {specdec.speedup(alpha, gamma, timeline.times.implied_c):.2f}×",
    ]


# --- notebook 06: divergence and temperature ------------------------------------------------------

def _divergence_pair(values: dict) -> list[str]:
    from specdec.divergence import pair_cloud  # the cloud's recipe; α and TV come from the core

    cloud = pair_cloud(values["cloud seed"], values["tokens per distribution V"])
    index = values["highlighted pair"]
    p, q = cloud.targets[index], cloud.drafts[index]
    return [f"Pair {index}: α = {specdec.acceptance_rate(p, q):.3f}, TV = {specdec.tv_distance(p, q):.3f}"]


def _temperature(values: dict) -> list[str]:
    from specdec.temperature import related_logits, softmax
    from specdec.explore.temperature import TEMPERATURE_VOCAB

    t_p, t_q = values["target temperature T_p"], values["draft temperature T_q"]
    target_logits, draft_logits = related_logits(TEMPERATURE_VOCAB, np.random.default_rng(values["logits seed"]))
    alpha = specdec.acceptance_rate(softmax(target_logits, t_p), softmax(draft_logits, t_q))
    return [f"T_p = {t_p:.2f} (target), T_q = {t_q:.2f} (draft)", f"α = Σ min(p, q) = {alpha:.3f}"]


# --- notebook 07: real text -----------------------------------------------------------------------

@lru_cache(maxsize=None)
def _corpus() -> str:
    from specdec.text import stdlib_corpus

    return stdlib_corpus()


def _text_speedup(values: dict) -> list[str]:
    from specdec.explore import TextExplorer
    from specdec.text import fitted_model, speculative_generate

    # Notebook 07 fits both models on the standard-library corpus and keeps the default length.
    length = inspect.signature(TextExplorer.__init__).parameters["length"].default
    corpus = _corpus()
    temperature = round(float(values["temperature (both models)"]), 2)
    target = fitted_model(values["target: n-gram order"], corpus).at_temperature(temperature)
    draft = fitted_model(values["draft: n-gram order"], corpus).at_temperature(temperature)
    gamma, c = values["draft characters per step γ"], values["cost ratio c (target time / draft time)"]
    generation = speculative_generate(target, draft, values["prompt"], length, gamma,
                                      np.random.default_rng(values["random seed"]))
    return [
        f"{len(generation.text)} characters in {generation.target_calls} target calls",
        f"speedup at c = {c}: {generation.speedup_from_calls(c):.2f}× from this run's call counts",
        f"speedup(ᾱ = {generation.mean_acceptance_rate:.3f}, γ = {gamma}, c = {c}) = "
        f"{specdec.speedup(generation.mean_acceptance_rate, gamma, c):.2f}×",
    ]


# --- notebooks 08 and 09: several candidates, lossy rules, adaptive γ -----------------------------

def _candidates(values: dict) -> list[str]:
    from specdec.variants.broken_candidates import BROKEN_CANDIDATE_RULES
    from specdec.variants.multi_candidate import multi_candidate_law
    from specdec.variants.pairs import draft_with_acceptance, geometric_target
    from specdec.explore.candidates import CANDIDATE_RULES

    # The explorer's documented rows: p(x) ∝ 0.55^x over six tokens, a draft with the chosen α.
    k, alpha = values["candidates k"], round(float(values["α of one candidate"]), 2)
    rule = {label: name for name, label in CANDIDATE_RULES.items()}[values["rule"]]
    p = geometric_target(6, 0.55)
    q = draft_with_acceptance(p, alpha)
    if rule == "exact":
        accepted = multi_candidate_law(p, q, k).any_accepted
    else:
        accepted = float(BROKEN_CANDIDATE_RULES[rule].parts(p, q, k)[0].sum())
    return [f"α of one candidate = {alpha:.2f}, k = {k}", f"P(some candidate accepted) = {accepted:.3f}"]


def _lossy(values: dict) -> list[str]:
    from specdec.variants.lossy_acceptance import lossy_law
    from specdec.variants.pairs import confident_draft, draft_with_acceptance, geometric_target
    from specdec.explore.lossy import LOSSY_RULE_LABELS

    # The explorer's documented rows: p(x) ∝ 0.6^x over eight tokens; the draft the dropdown names.
    p = geometric_target(8, 0.6)
    alpha = round(float(values["exact α"]), 2)
    kind = values["draft"]
    q = draft_with_acceptance(p, alpha) if kind == "mixes p with its reverse" else \
        confident_draft(p, alpha, "ABC".index(kind.split()[-1]))
    rule = {label: name for name, label in LOSSY_RULE_LABELS.items()}[values["rule"]]
    law = lossy_law(rule, p, q, lenience=round(float(values["lenient λ"]), 2),
                    epsilon=round(float(values["typical ε"]), 2), delta=round(float(values["typical δ"]), 2))
    exact = lossy_law("exact", p, q)
    return [f"Acceptance rate {law.acceptance:.3f} against the exact rule's α = {exact.acceptance:.3f}: "
            f"change {round(law.acceptance - exact.acceptance, 3) + 0.0:+.3f}".replace("-", "−"),
            f"TV distance of the output from p: {law.tv:.3f}"]


@lru_cache(maxsize=None)
def _schedule_comparison():
    from specdec.variants.adaptive_gamma import stdlib_comparison

    return stdlib_comparison()  # notebook 09's runs: the same pair, prompt, length and seed


def _schedules(values: dict) -> list[str]:
    from specdec.explore.schedules import schedule_runs

    comparison = _schedule_comparison()
    c = values["cost ratio c (target time / draft time)"]
    run = schedule_runs(comparison)[values["schedule shown"]]
    best = max(sorted(comparison.fixed), key=lambda gamma: comparison.fixed[gamma].speedup(c))
    return [f"At c = {c}: speedup {run.speedup(c):.2f}×", f"Best fixed γ measured at this c: {best}"]


#: Every explorer of the series, by title.
EXPLORERS: dict[str, ExplorerCheck] = {
    "One token: the acceptance rule and the residual": ExplorerCheck("OneTokenExplorer", (
        Move("q(A)", "key:ArrowRight", _one_token),
        Move("identical (q = p)", "click", _one_token),
    )),
    "One verify step, draw by draw": ExplorerCheck("VerifyStepExplorer", (
        Move("Step", "click", _verify_step_draw(1)),
        Move("Step", "click", _verify_step_draw(2)),
        Move("Step", "click", _verify_step_draw(3)),
        Move("seed", "key:ArrowRight", _verify_step_new_step),
        Move("rows and draft tokens", "choose:the worked example, drafts D A", _verify_step_worked_example),
        # A new step always opens at draw 0, even after a longer step was played to its end: the
        # explorer once opened D A already finished after A B had been stepped through.
        Move("rows and draft tokens", "choose:the worked example, drafts A B", _verify_step_worked_example),
        Move("Step", "click", _worked_example_draw(1)),
        Move("Step", "click", _worked_example_draw(2)),
        Move("Step", "click", _worked_example_draw(3)),
        Move("rows and draft tokens", "choose:the worked example, drafts D A", _verify_step_worked_example),
    ), picture_after=3),
    "Accepted part + resampled part = p": ExplorerCheck("DerivationExplorer", (
        Move("draft weight of A", "key:ArrowRight", _derivation),
    )),
    "A million verify steps against the exact law": ExplorerCheck("MonteCarloExplorer", (
        Move("output position i", "key:ArrowRight", _monte_carlo_position),
    )),
    "Tokens per step and speedup": ExplorerCheck("SpeedupExplorer", (
        Move("draft length γ", "key:ArrowRight", _speedup),
        Move("acceptance rate α", "key:ArrowLeft", _speedup),
    )),
    "Where the time goes: draft and target passes": ExplorerCheck("TimelineExplorer", (
        Move("draft length γ", "key:ArrowRight", _timeline),
        Move("batch size b", "key:ArrowRight", _timeline),
        Move("accelerator", "choose:L4", _timeline),
    )),
    "α, total variation and KL divergence": ExplorerCheck("DivergenceExplorer", (
        Move("highlighted pair", "key:ArrowRight", _divergence_pair),
    )),
    "α and temperature": ExplorerCheck("TemperatureExplorer", (
        Move("greedy: both T = 0", "click", _temperature),
        Move("draft temperature T_q", "key:ArrowRight", _temperature),
    )),
    "Speculative decoding on real text": ExplorerCheck("TextExplorer", (
        Move("cost ratio c (target time / draft time)", "key:ArrowRight", _text_speedup),
    )),
    "Several candidates at one position": ExplorerCheck("CandidatesExplorer", (
        Move("candidates k", "key:ArrowRight", _candidates),
        Move("α of one candidate", "key:ArrowLeft", _candidates),
        Move("rule", "choose:broken: residual not updated", _candidates),
    )),
    "Adaptive γ on text: fixed, heuristic, oracle": ExplorerCheck("SchedulesExplorer", (
        Move("cost ratio c (target time / draft time)", "key:ArrowRight", _schedules),
        Move("schedule shown", "choose:oracle", _schedules),
    )),
    "Lossy acceptance: more accepted, how far from p": ExplorerCheck("LossyExplorer", (
        Move("draft", "choose:mixes p with its reverse", _lossy),
        Move("rule", "choose:lenient: accept when p/q ≥ λ", _lossy),
        Move("lenient λ", "drag:-80", _lossy),  # one key step often crosses no ratio p/q: the law stays
    )),
}


def _checks_in_test_modules() -> dict[str, ExplorerCheck]:
    """The `BROWSER_CHECK` of every ``tests/test_explore_*.py`` that has one, by its explorer's title."""
    import importlib
    from pathlib import Path

    import specdec.explore

    checks = {}
    for path in sorted(Path(__file__).resolve().parents[1].glob("test_explore_*.py")):
        check = getattr(importlib.import_module(f"tests.{path.stem}"), "BROWSER_CHECK", None)
        if check is not None:
            checks[specdec.explore.EXPLORERS[check.picture].title] = check
    return checks


EXPLORERS.update(_checks_in_test_modules())
