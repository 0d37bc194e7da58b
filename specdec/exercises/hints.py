"""The words of the feedback: one hint per common mistake, addressed to the learner.

A hint names the mistake in the learner's terms and says what to do instead. The mistakes of the
verify step that notebook 03 studies are worded in `specdec.broken_rules`; the hints here cover the
others and the mistakes of the five smaller functions.
"""

from __future__ import annotations

NOT_IMPLEMENTED = ("replace `raise NotImplementedError` in the cell above with your code, run that cell, then "
                   "run this one again.")

# --- Any exercise --------------------------------------------------------------------------------

TIMED_OUT = ("your function did not return in time: look for a loop that never ends, such as a `while` loop "
             "whose condition never changes or a counter that is never moved on. Call it on the inputs above "
             "by itself; if it hangs, interrupt the kernel (the ■ button).")

GLOBAL_RNG = ("you drew from numpy's global generator (np.random.random, np.random.choice, …) or Python's "
              "random module: draw from the rng argument instead (rng.random(), rng.choice(V, p=…)), so that "
              "the caller's seed decides the tokens.")


def changed_input(names) -> str:
    listed = " and ".join(names)
    return (f"you changed the caller's array ({listed}): the caller still needs it. Work on new arrays "
            "(p - q makes a new one, p -= q overwrites p), or copy first with np.array(target, dtype=float).")


NUMPY_FLOAT = ("return a Python float, not a numpy float: wrap the result in float(…), as in "
               "float(np.minimum(p, q).sum()).")
INT_NOT_FLOAT = "return a Python float even when the value is a whole number: float(gamma + 1), not gamma + 1."
RETURN_FLOAT = "return one Python float."
NUMPY_INTEGERS = ("return Python ints, not numpy integers: an element of a numpy array, np.argmax and rng.choice "
                  "over an array all give numpy integers, so convert each with int(…) before you return it.")

# --- acceptance_rate -----------------------------------------------------------------------------

ZERO_OVER_ZERO = ("at a token neither model can produce, p(x)/q(x) is 0/0 = NaN, and one NaN makes the sum NaN. "
                  "α = Σ min(p(x), q(x)) needs no division: np.minimum(p, q).sum().")
SUMMED_MAX = "α sums the overlap min(p(x), q(x)); you summed max(p(x), q(x))."
TOTAL_VARIATION = "you returned the total variation distance ½ Σ |p(x) − q(x)|, which is 1 − α."
SUMMED_PRODUCT = "α is Σ min(p(x), q(x)), not Σ p(x)·q(x)."
MEAN_NOT_SUM = "sum min(p(x), q(x)) over the tokens; you took the mean (the sum divided by V)."
SUMMED_RATIOS = ("you summed the acceptance probabilities min(1, p(x)/q(x)); weight each by q(x), how often the "
                 "draft proposes x: Σ q(x)·min(1, p(x)/q(x)) = Σ min(p(x), q(x)).")

# --- residual_distribution -----------------------------------------------------------------------

RESIDUAL_WITHOUT_FALLBACK = ("your residual divides by its own mass, which is 0 when p == q: 0/0 is NaN. When "
                             "max(0, p − q) sums to 0, return a float copy of target instead.")
FALLBACK_IS_TARGET = ("when max(0, p − q) sums to 0, return a copy of target, not the uniform "
                      "distribution or zeros.")
NOT_NORMALISED = "divide max(0, p − q) by its sum, so that the residual sums to 1."
DRAFT_MINUS_TARGET = ("the residual is max(0, p − q), target minus draft: it puts mass where the target wants "
                      "more than the draft offered. You used q − p.")
ABSOLUTE_DIFFERENCE = ("clip with max(0, p − q): |p − q| also counts the tokens the draft offered too much of, "
                       "and those must not be drawn again.")
NOT_CLIPPED = "clip the negative differences to 0 with np.maximum(p - q, 0) before you normalise."
RETURN_COPY = ("your result is the caller's array itself (or a view of it), so changing one changes the other: "
               "return a new array, e.g. np.array(target, dtype=float) in the fallback.")
RETURN_ARRAY = "return a numpy float array of shape (V,), e.g. np.asarray(values, dtype=float)."

# --- speculative_step ----------------------------------------------------------------------------

DRAW_ORDER = ("your draws are in a different order than the rule's: at each position draw u = rng.random(), "
              "compare it, and at a rejection draw the replacement right away with rng.choice and stop. "
              "Drawing all the uniforms first, or the replacement before u, uses the same stream in another "
              "order, so the same seed gives other tokens.")
STOP_AT_REJECTION = "stop at the first rejection: return right after appending the replacement token."
REPLACEMENT_MISSING = ("at a rejection, append a replacement token drawn from the residual: every step emits at "
                       "least one token.")
GREEDY_REPLACEMENT = ("draw the replacement with rng.choice(V, p=residual); taking the residual's argmax is not a "
                      "draw from it.")
RATIO_FLIPPED = "the acceptance probability is min(1, p(x)/q(x)), target over draft; you used q(x)/p(x)."
NOT_NORMALISED_FOR_CHOICE = ("rng.choice needs probabilities that sum to 1: divide the residual max(0, p − q) by "
                             "its sum before you draw from it.")
NO_DRAWS = ("your function never drew from rng, the generator it was given: use rng.random() for each uniform "
            "and rng.choice(V, p=…) for the last token.")
RETURN_TOKEN_LIST = "return a list of Python ints, e.g. [0, 1, 2]."


def draw_count(rule_draws: int | None, your_draws: int | None) -> str:
    if rule_draws is not None and your_draws is not None:
        counted = f"here the rule made {rule_draws} draws from rng and yours made {your_draws}. "
    else:
        counted = "your function drew from rng differently (other methods, or a different number of draws). "
    return ("your tokens are right but rng ended in another state: " + counted +
            "Make exactly one rng.random() per visited position, then one rng.choice(V, p=…) — the replacement "
            "or the bonus — and nothing else, so that the caller's next draws are what they expect.")


# --- expected_tokens, speedup, optimal_gamma -----------------------------------------------------

ALPHA_ONE = ("at α = 1 the formula divides by zero (1 − α = 0). There every draft token is accepted and a step "
             "yields γ + 1 tokens: return float(gamma + 1) when alpha == 1.")
EXPONENT_GAMMA = ("(1 − α^γ)/(1 − α) is one token short: a step yields up to γ + 1 tokens, so the exponent is "
                  "γ + 1.")
UNTRUNCATED = ("1/(1 − α) is the mean of a run that never stops; a step stops after γ draft tokens: "
               "(1 − α^(γ+1))/(1 − α).")
ONLY_ACCEPTED = ("you counted only the accepted draft tokens; every step also yields one more token (the "
                 "replacement or the bonus).")
COST_TIMES_C = ("c is how many times faster the draft is: a draft pass costs 1/c of a target pass, so a step "
                "costs 1 + γ/c, not 1 + γ·c.")
COST_WITHOUT_TARGET = "a step also runs the target once: its cost is 1 + γ/c, not γ/c."
NO_COST = "divide the expected tokens by the cost of the step, 1 + γ/c target passes."
COST_GAMMA_PLUS_ONE = "a step runs γ draft passes, one per draft token, not γ + 1: its cost is 1 + γ/c."
TIE = ("on a tie keep the smallest γ: replace the best only when a speedup is strictly larger (>, not >=). "
       "np.argmax already returns the first maximum.")
RANGE_END = "γ runs from 1 to 20 inclusive: range(1, 21) — range(1, 20) stops at 19."
RANGE_START = "γ starts at 1: γ = 0 is plain decoding, not a draft length."
RETURN_PAIR = "return a tuple (γ, speedup): return best_gamma, best_speedup."
