"""An independent, deliberately plain implementation of the verify rule, for tests to compare with.

It is written from the draw-by-draw description in `specdec.core`'s docstring, with Python lists and
floats only, and shares no code with specdec, so a mistake in specdec's numpy version would have to
be made twice, in two different styles, to go unnoticed.
"""


def plain_residual(p, q):
    excess = [max(0.0, float(a) - float(b)) for a, b in zip(p, q)]
    mass = sum(excess)
    if mass <= 0:
        return [float(a) for a in p]
    return [value / mass for value in excess]


def plain_step(target_probs, draft_probs, draft_tokens, rng):
    vocab = len(target_probs[0])
    output = []
    for i, token in enumerate(draft_tokens):
        p_x, q_x = float(target_probs[i][token]), float(draft_probs[i][token])
        u = rng.random()
        if u < min(1.0, p_x / q_x):
            output.append(int(token))
        else:
            output.append(int(rng.choice(vocab, p=plain_residual(target_probs[i], draft_probs[i]))))
            return output
    last = [float(value) for value in target_probs[-1]]
    total = sum(last)
    output.append(int(rng.choice(vocab, p=[value / total for value in last])))
    return output
