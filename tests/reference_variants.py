"""Plain-Python implementations of the variants, written from the definitions, for the tests.

Lists and loops only (numpy only where the random generator needs it): nothing is shared with
`specdec.variants`, so a test that compares the two compares two independent readings of the rule.
Laws are computed by enumerating every possible list of candidates, not by the recursions the
package uses.
"""

import itertools
import math


def residual(r, q):
    excess = [max(0.0, a - b) for a, b in zip(r, q)]
    total = sum(excess)
    if total <= 0:
        return list(r)
    return [value / total for value in excess]


def multi_candidate(p, q, candidates, rng):
    """Try each candidate against a residual that shrinks after every rejection."""
    r = [float(v) for v in p]
    q = [float(v) for v in q]
    for x in candidates:
        if rng.random() < min(1.0, r[x] / q[x]):
            return x
        r = residual(r, q)
    return int(rng.choice(len(r), p=_normalised(r)))


def _normalised(row):
    total = sum(row)
    return [v / total for v in row]


def _outcome_law(p, q, candidates, stale=False):
    """P(output = x) for a fixed list of candidates, by the rule (or the stale-residual rule)."""
    r = [float(v) for v in p]
    law = [0.0] * len(p)
    reach = 1.0
    for x in candidates:
        accept = min(1.0, (p[x] if stale else r[x]) / q[x])
        law[x] += reach * accept
        reach *= 1.0 - accept
        if not stale:
            r = residual(r, q)
    final = residual(p, q) if stale else r
    for token, value in enumerate(final):
        law[token] += reach * value
    return law


def multi_candidate_law(p, q, k, stale=False):
    """Output law with k independent candidates from q: a sum over all V^k candidate lists."""
    law = [0.0] * len(p)
    for candidates in itertools.product(range(len(q)), repeat=k):
        chance = math.prod(q[x] for x in candidates)
        if chance == 0:
            continue
        for token, value in enumerate(_outcome_law(p, q, candidates, stale)):
            law[token] += chance * value
    return law


def acceptance_probability(p, q, k):
    """P(some candidate is accepted), summed over all V^k candidate lists."""
    total = 0.0
    for candidates in itertools.product(range(len(q)), repeat=k):
        chance = math.prod(q[x] for x in candidates)
        if chance == 0:
            continue
        r = [float(v) for v in p]
        missed = 1.0
        for x in candidates:
            missed *= 1.0 - min(1.0, r[x] / q[x])
            r = residual(r, q)
        total += chance * (1.0 - missed)
    return total


def without_replacement_law(p, q, k):
    """Output law of the with-replacement rule fed k distinct candidates (ordered, from q)."""
    law = [0.0] * len(p)
    for candidates in itertools.permutations(range(len(q)), k):
        chance, left = 1.0, 1.0
        for x in candidates:
            chance *= q[x] / left if left > 0 else 0.0
            left -= q[x]
        if chance == 0:
            continue
        for token, value in enumerate(_outcome_law(p, q, candidates)):
            law[token] += chance * value
    return law


def tree_verify(parents, tokens, target_rows, draft_rows, rng):
    """Walk down a token tree; at each node try its children with the multi-candidate rule."""
    children = {node: [] for node in range(len(parents) + 1)}
    for child, parent in enumerate(parents, start=1):
        children[parent].append(child)
    node, output = 0, []
    while True:
        if not children[node]:
            output.append(int(rng.choice(len(target_rows[node]), p=_normalised(list(target_rows[node])))))
            return output
        r = [float(v) for v in target_rows[node]]
        q = [float(v) for v in draft_rows[node]]
        chosen = None
        for child in children[node]:
            x = tokens[child - 1]
            if rng.random() < min(1.0, r[x] / q[x]):
                chosen = child
                break
            r = residual(r, q)
        if chosen is None:
            output.append(int(rng.choice(len(r), p=_normalised(r))))
            return output
        output.append(tokens[chosen - 1])
        node = chosen


def lossy_law(rule, p, q, epsilon=0.09, delta=0.3, lenience=1.0):
    """(output law, acceptance rate) of one lossy rule at one position, token by token."""
    size = len(p)
    top = max(range(size), key=lambda x: (p[x], -x))
    entropy = -sum(v * math.log(v) for v in p if v > 0)
    bar = min(epsilon, delta * math.exp(-entropy))
    accept = []
    for x in range(size):
        exact = 1.0 if p[x] >= q[x] else p[x] / q[x]
        if rule == "exact":
            accept.append(exact)
        elif rule == "lenient":
            accept.append(1.0 if q[x] == 0 or p[x] / q[x] >= lenience else exact)
        elif rule == "typical":
            accept.append(1.0 if p[x] > bar else 0.0)
        else:
            accept.append(1.0 if x == top else 0.0)
    acceptance = sum(q[x] * accept[x] for x in range(size))
    if rule == "typical":
        replacement = list(p)
    elif rule == "greedy":
        replacement = [1.0 if x == top else 0.0 for x in range(size)]
    else:
        replacement = residual(p, q)
    law = [q[x] * accept[x] + (1.0 - acceptance) * replacement[x] for x in range(size)]
    return law, acceptance


def lossy_step(rule, p, q, x, rng, epsilon=0.09, delta=0.3, lenience=1.0):
    """One position by one rule, with the draws the module documents: a uniform for the random tests
    (exact, lenient), then a draw from the replacement law if the token was rejected (not for greedy)."""
    size = len(p)
    top = max(range(size), key=lambda t: (p[t], -t))
    exact = 1.0 if p[x] >= q[x] else p[x] / q[x]
    if rule in ("exact", "lenient"):
        keep = 1.0 if rule == "lenient" and p[x] / q[x] >= lenience else exact
        if rng.random() < keep:
            return x
        return int(rng.choice(size, p=_normalised(residual(list(p), list(q)))))
    if rule == "typical":
        entropy = -sum(v * math.log(v) for v in p if v > 0)
        if p[x] > min(epsilon, delta * math.exp(-entropy)):
            return x
        return int(rng.choice(size, p=_normalised(list(p))))
    return top
